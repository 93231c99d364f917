#!/bin/sh
# Evaluation weights fitted to positions labelled by the exact solver (evolve label, evolve fit),
# and what they do in games. Run from the repository root.
set -e
out=experiments/labels-20261123
# 1. positions: 3,000 on the 2-core machine (11 min); 12,000 asked on the 16-core device machine,
#    8,416 solved when `timeout -s INT` stopped it after 490 s (it keeps what it has solved)
evolve label --positions 3000 --seed 11 --jobs 2 --out $out/labels-11.json.gz
timeout -s INT 490 evolve label --positions 12000 --seed 101 --jobs 16 --out $out/labels-101.json.gz
# 2. the fit (seconds; the same weights every time)
evolve fit $out/labels-11.json.gz $out/labels-101.json.gz --method cmaes --out $out/fitted-params.json > $out/fit.txt
# 3. would a sixth feature help? (each candidate added, refitted, held-out ranking accuracy)
python3 $out/features.py $out/labels-*.json.gz > $out/features.txt
# 4. the eight positions where the shipped agent gave a won game away against GNU Go, searched
#    with the fitted weights at depths 2-7, each pick judged by the compiled solver
littlego study depth experiments/random-openings-20261122/gnugo-sgf.tar.xz game-0006.sgf:2 game-0008.sgf:2 game-0019.sgf:3 game-0074.sgf:4 game-0112.sgf:4 game-0152.sgf:4 game-0190.sgf:2 game-0099.sgf:3 --params $out/fitted-params.json --deepest 7 > $out/depth-fitted.txt
# 5. on the 16-core device machine: the shipped agent (book included) with the fitted weights
#    copied over params.json, against GNU Go on the same 200 games' openings as the shipped
#    weights' measurement (seed 1601), then which openings were won (their solutions reused)
cp $out/fitted-params.json params.json      # on the device machine's copy only
littlego match champion gnugo --games 200 --random-opening 2 --seed 1601 --jobs 16 --sgf $out/gnugo-sgf --json > $out/vs-gnugo.json
git checkout params.json
#    (the games kept packed: `littlego records unpack $out/gnugo-sgf.tar.xz` gives the folder back)
littlego records pack $out/gnugo-sgf && rm -r $out/gnugo-sgf
littlego openings report $out/gnugo-sgf.tar.xz experiments/random-openings-20261122/gnugo-openings.json > $out/gnugo-openings.txt
#    and against the shipped weights at the playing settings, until `timeout -s INT` stopped it
timeout -s INT 220 littlego match agent:$out/fitted-params.json agent:params.json --games 400 --random-opening 2 --seed 2101 --jobs 16 --json > $out/vs-shipped.json
# 6. on the 2-core machine: the SPRT against the shipped weights at the playing settings
#    (a first try, seed 2201, was stopped after 52 games: vs-shipped-sprt-2201.json); then, stopped
#    by hand with SIGINT after 58 minutes:
timeout -s INT 4900 littlego match agent:$out/fitted-params.json agent:params.json --games 1000 --random-opening 2 --sprt 0,20 --seed 2202 --jobs 2 --json > $out/vs-shipped-sprt.json
#    and a fixed 400 games decided beforehand (90 minutes on 2 cores)
littlego match agent:$out/fitted-params.json agent:params.json --games 400 --random-opening 2 --seed 2301 --jobs 2 --json > $out/vs-shipped-400.json
# at depth 4 (fixed depth, no exact solving), on the 2-core machine
littlego match agent:$out/fitted-params.json@4 agent@4 --games 200 --random-opening 2 --seed 2004 --jobs 1 --json > $out/vs-shipped-depth4.json

#!/bin/sh
# The shipped agent (params.json, book.json to ply 8 for the device matches) with 2 random
# opening plies, colours alternating, both colours from each opening. Run from the repository
# root. The first two blocks ran on the 16-core device machine (--jobs 16, GNU Go 3.8 copied
# there); CPU per move is per process, so parallel games do not change what the agent spends.
# GNU Go's games are kept packed, $out/gnugo-sgf.tar.xz (littlego records pack);
# `littlego records unpack $out/gnugo-sgf.tar.xz` gives the folder back.
set -e
out=experiments/random-openings-20261122
littlego match champion gnugo --games 200 --random-opening 2 --seed 1601 --jobs 16 --sgf $out/gnugo-sgf --json > $out/vs-gnugo.json
littlego records pack $out/gnugo-sgf && rm -r $out/gnugo-sgf
for opponent in aggressive alphabeta greedy; do
    littlego match champion $opponent --games 100 --random-opening 2 --seed 1602 --jobs 16 --json > $out/vs-$opponent.json
done
# on the 2-core machine, with the ply-10 book:
littlego match champion random --games 100 --random-opening 2 --seed 1603 --jobs 2 --json > $out/vs-random.json
littlego bench search --max-depth 6 --games 2 > $out/bench-search.txt 2>&1
littlego match champion agent:experiments/baseline-20261121-055758/best-params.json@6 --games 400 --random-opening 2 --sprt 0,20 --seed 1604 --jobs 2 --json > $out/vs-previous.json
# which side each opening of the GNU Go games left won (compiled solver; 60 distinct openings:
# 46 solved in two device calls of 530 s and 440 s, 16 at a time, the rest on the 2-core machine
# with 2 at a time: 64-470 s each), then the tally
littlego openings solve $out/gnugo-sgf.tar.xz $out/gnugo-openings.json --jobs 16
littlego openings report $out/gnugo-sgf.tar.xz $out/gnugo-openings.json > $out/gnugo-openings.txt
# where the games lost from won openings went wrong (plies 2-4: the solver's answer took up to 145 s)
littlego study mistakes $out/gnugo-sgf.tar.xz game-0006.sgf game-0008.sgf game-0019.sgf game-0074.sgf game-0112.sgf game-0152.sgf game-0190.sgf game-0099.sgf > $out/mistakes.txt
# would more depth have saved them? the shipped evaluation at depths 2-8 in those eight positions, each pick judged by the solver
littlego study depth $out/gnugo-sgf.tar.xz game-0006.sgf:2 game-0008.sgf:2 game-0019.sgf:3 game-0074.sgf:4 game-0112.sgf:4 game-0152.sgf:4 game-0190.sgf:2 game-0099.sgf:3 --params params.json > $out/depth.txt
# again with the book in its grouped format (2026-11-23)
littlego bench search --max-depth 6 --games 2 > $out/bench-search-20261123.txt 2>&1

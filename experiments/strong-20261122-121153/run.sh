#!/bin/sh
# The evolved weights against the shipped ones, fresh seeds, 2 random opening plies, both
# colours from each opening. Run from the repository root on a 2-core machine.
set -e
out=experiments/strong-20261122-121153
evolve export $out --to $out/candidate-params.json --depth 12 --cpu-budget 2.5 --cpu-cap 4.5 --solve-from 12
# (ran with the same file at /tmp/cand.json, hence the names in the reports)
littlego match agent:$out/candidate-params.json@4 agent:params.json@4 --games 400 --random-opening 2 --seed 1701 --jobs 2 > $out/vs-shipped-depth4.txt
littlego match agent:$out/candidate-params.json@6 agent:params.json@6 --games 400 --random-opening 2 --seed 1702 --jobs 2 > $out/vs-shipped-depth6.txt
# at the playing budget, each side a course bundle (a process per move, the shipped book beside it);
# stopped by SIGINT after 45 minutes if the SPRT has not decided by then
littlego bundle /tmp/candb --params $out/candidate-params.json --force
littlego bundle /tmp/champ --force
timeout -s INT 2700 littlego match cmd:/tmp/candb cmd:/tmp/champ --games 400 --random-opening 2 --sprt 0,20 --seed 1703 --jobs 2 --json > $out/vs-shipped-budget.json || true

#!/bin/sh
# The measurements of experiments/strength-20261122/SUMMARY.md, in the order they were run
# (from the repository root; each writes its JSON report here).
set -e
OUT=experiments/strength-20261122
PREVIOUS=agent:experiments/baseline-20261121-055758/best-params.json@6
littlego match champion "$PREVIOUS" --games 400 --random-opening 2 --sprt 0,20 --seed 1401 --json > $OUT/vs-previous.json
littlego match champion gnugo --games 200 --random-opening 2 --seed 1402 --sgf $OUT/gnugo-sgf --json > $OUT/vs-gnugo.json
littlego records pack $OUT/gnugo-sgf && rm -r $OUT/gnugo-sgf      # kept packed
for opponent in aggressive alphabeta greedy random; do
    littlego match champion $opponent --games 100 --random-opening 2 --seed 1403 --json > $OUT/vs-$opponent.json
done

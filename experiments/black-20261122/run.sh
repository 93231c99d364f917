#!/bin/sh
# The shipped agent (params.json + book.json) as Black from the empty board, every game,
# against each opponent (issue 13: "100% wins as Black"). Run from the repository root.
# Each SGF folder is kept packed (the last lines); `littlego records unpack
# $out/NAME-sgf.tar.xz` gives it back.
set -e
out=experiments/black-20261122
for opponent in random greedy aggressive alphabeta; do
    littlego match champion $opponent --colour black --games 200 --seed 1501 --jobs 2 --json > $out/$opponent.json
done
littlego match champion gnugo --colour black --games 200 --seed 1502 --jobs 2 --json --sgf $out/gnugo-sgf > $out/gnugo.json
littlego match champion champion --colour black --games 30 --seed 1503 --jobs 2 --json > $out/champion.json
# ply 10, the gap between the book and the exact solver: 80 sampled positions of the shipped book's tree
python3 experiments/black-20261122/ply10.py book.json 80 agent 21 > $out/ply10-agent.txt
# a second match against itself, with its games kept
littlego match champion champion --colour black --games 30 --seed 1504 --jobs 2 --json --sgf $out/champion-1504-sgf > $out/champion-1504.json
# the ply-10 layer (the shipped book since the evening of 2026-11-22: 138,163 positions)
littlego book extend book.json --max-ply 10 --jobs 2
# the agent's first move past the book, at ply 12: 100 random walks down the book's tree
python3 experiments/black-20261122/ply12.py 100 31 > $out/ply12-agent.txt
# the headline: 200 games against itself as White, with the ply-10 book, games kept
littlego match champion champion --colour black --games 200 --seed 1605 --jobs 2 --json --sgf $out/champion-1605-sgf > $out/champion-1605.json
for folder in gnugo-sgf champion-1504-sgf champion-1605-sgf; do
    littlego records pack $out/$folder && rm -r $out/$folder
done

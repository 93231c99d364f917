#!/bin/sh
# Issue 37, item 4: from the empty board nothing may change. The agent with the weights shipped on
# 2026-11-24 (the centre feature; experiments/centre-20261124) as Black from the empty board, and as
# White after a random first move of Black (every first move but 2,2 loses), against GNU Go 3.8
# (level 10) and against itself, on the 2-core machine; the weights of 2026-11-23 did this in
# experiments/white-book-20261123 (200 of 200 each). Run from the repository root; each match
# continues from its journal when stopped (the same command); the journals are kept compressed
# (xz -dk to continue or report again).
set -e
out=experiments/empty-board-20261124
littlego match champion gnugo --colour black --games 200 --seed 3861 --jobs 2 \
    --resume $out/black-gnugo.journal --json > $out/black-gnugo.json
# as White after a random first move: 210 games, so that at least 200 start from a losing one
# (a first move of 2,2 leaves White lost; kept.py says which games those are and what was kept)
littlego match champion gnugo --colour white --random-opening 1 --games 210 --seed 3862 --jobs 2 \
    --sgf $out/white-gnugo-sgf --resume $out/white-gnugo.journal --json > $out/white-gnugo.json
# (every game won, so the counts by first move came from the journal instead: SUMMARY.md)
# python3 experiments/white-book-20261123/kept.py $out/white-gnugo-sgf champion > $out/white-gnugo-kept.txt
littlego match champion champion --colour black --games 200 --seed 3863 --jobs 2 \
    --resume $out/black-champion.journal --json > $out/black-champion.json
littlego match champion champion --colour white --random-opening 1 --games 210 --seed 3864 --jobs 2 \
    --sgf $out/white-champion-sgf --resume $out/white-champion.journal --json > $out/white-champion.json
python3 experiments/white-book-20261123/kept.py $out/white-champion-sgf white > $out/white-champion-kept.txt
for journal in $out/*.journal; do xz -9e "$journal"; done
rm -r $out/*-sgf
# kept since as one file, a section a match: each match's progress lines (its stderr, NAME.log),
# `cd $out && tail -n +1 NAME.log ... > matches.log`

#!/bin/sh
# Issue 37: where the agent gives won games away out of book, at scale, and what buys them back.
# Run from the repository root with the project installed (pip install -e .); GNU Go installed.
set -e
out=experiments/giveaways-20261124
# 1. the study before any change (the code of 06f5d2b, the shipped params.json and book.json):
#    400 games against GNU Go level 10 from 200 random 2-ply openings, both colours from each;
#    each opening settled; each won opening given away found by the compiled solver
littlego study giveaways $out/before-3801 --seed 3801 --openings 200 --jobs 2 > $out/before-3801.log 2>&1
xz -9e -k $out/before-3801/match.journal    # what is kept: the journal compressed
#    the give-away positions searched again: with a centre term of several weights, and with
#    search.close_stones 0.5 (three tie-break seeds)
python3 $out/centre.py $out/before-3801 0 5 10 20 > $out/centre-3801.txt
python3 $out/retry.py $out/before-3801 0.5 3 > $out/retry-3801.txt
# 2. search.close_stones (item 3): CPU, depth and move on 40 early out-of-book positions, as
#    shipped and with close_stones 0.5
python3 $out/unclear.py 40 3802 0.5 > $out/unclear-3802.txt
# (the centre-*, retry-*, unclear-* and cross-* outputs are kept together in probes.txt, a section each)
# 3. the solved table of every 2-ply opening (engine/data/openings.json): the 80 answers of the
#    earlier experiments and 5 solved here by the compiled solver
littlego openings table engine/data/openings.json --jobs 1 --earlier experiments/random-openings-20261122/gnugo-openings.json --earlier experiments/white-book-20261123/openings-2808.json
# 4. the same study for a bundle whose book is Black's alone (every move a process, as the course runs it)
littlego book trim book.json --side white --max-ply 0 --out /tmp/book-black.json
littlego bundle /work/bundle-black --book /tmp/book-black.json
littlego study giveaways $out/black-book-3803 --seed 3803 --openings 200 --agent cmd:/work/bundle-black \
    --jobs 2 > $out/black-book-3803.log 2>&1
# 5. after the centre weights shipped (2026-11-24 14:06 UTC, experiments/centre-20261124): the study
#    again on a fresh seed (the same command resumes a cut study from its folder)
littlego study giveaways $out/after-3841 --seed 3841 --openings 200 --jobs 2 > $out/after-3841.log 2>&1
xz -9e -k $out/after-3841/match.journal
# 6. the Black-book bundle with the shipped centre weights, on a fresh seed
littlego book trim book.json --side white --max-ply 0 --out /tmp/book-black.json
littlego bundle /work/bundle-black --book /tmp/book-black.json --force
littlego study giveaways $out/black-book-3843 --seed 3843 --openings 200 --agent cmd:/work/bundle-black \
    --jobs 2 > $out/black-book-3843.log 2>&1
xz -9e -k $out/black-book-3843/match.journal
# 7. the give-away positions of seeds 3841 and 3843 decided again with the cross candidate, and
#    searched with a term on the four points next to the centre (section 7)
python3 $out/picks.py $out/after-3841 params.json experiments/cross-20261124/candidate-params.json > $out/picks-3841-cross.txt
python3 $out/picks.py $out/black-book-3843 params.json experiments/cross-20261124/candidate-params.json > $out/picks-3843-cross.txt
# (the picks-*.txt outputs are kept together in picks.txt, a section each)
python3 $out/centre.py $out/after-3841 --points 1,2 2,1 2,3 3,2 0 2 5 10 > $out/cross-3841.txt

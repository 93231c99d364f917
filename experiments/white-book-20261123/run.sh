#!/bin/sh
# The White book and what it does (issue 25), on the 2-core machine, 2026-11-23. Run from the
# repository root. Black's first moves other than 2,2 lose with perfect play: the book answers
# each of them to ply 11; the agent solves exactly from ply 12.
#
# The record of each match is its journal (kept as $out/NAME.journal.xz, one a match; packed as plain
# NAME.journal in $out/journals.tar.xz since 2026-11-29: tar -xJf $out/journals.tar.xz -C $out first);
# the SGF folders the matches wrote (--sgf) are not kept, since they are the journals' games.
# From the repository, before the scripts below that read a folder:
#   for m in white-gnugo white-champion black-gnugo empty-white-gnugo openings-gnugo; do
#       littlego records unpack $out/$m.journal; done
# gives back $out/NAME-sgf/, byte for byte what the match wrote. A match's command continues
# (or, when the journal is complete, reports again without playing) after
# the journals are unpacked. The commands marked (reconstructed) were run but not written
# down at the time: their settings are those in the journal's first line and the JSON report.
set -e
out=experiments/white-book-20261123
# the book: 11 minutes on 2 cores, then one file with the Black book (the walk of the merge: 31 s)
littlego book build --side white --max-ply 11 --table-bits 25 --jobs 2 --out book-white.json
littlego book merge book.json book-white.json --out book.json
littlego book check book.json
# as White after a random first move (seed 2801: 200 losing first moves and 6 of 2,2 in 206 games)
littlego match champion gnugo --colour white --random-opening 1 --games 206 --seed 2801 --jobs 2 \
    --sgf $out/white-gnugo-sgf --resume $out/white-gnugo.journal --json > $out/white-gnugo.json
python3 $out/kept.py $out/white-gnugo-sgf champion > $out/white-gnugo-kept.txt
# the same against the agent itself as Black (seed 2802: 200 losing first moves and 9 of 2,2 in 209 games)
littlego match champion champion --colour white --random-opening 1 --games 209 --seed 2802 --jobs 2 \
    --sgf $out/white-champion-sgf --resume $out/white-champion.journal --json > $out/white-champion.json
python3 $out/kept.py $out/white-champion-sgf white > $out/white-champion-kept.txt
# as Black from the empty board
littlego match champion gnugo --colour black --games 200 --seed 2803 --jobs 2 \
    --sgf $out/black-gnugo-sgf --resume $out/black-gnugo.journal --json > $out/black-gnugo.json
# as White from the empty board (GNU Go opens 2,2), and from GNU Go's side where the win went (reconstructed)
littlego match champion gnugo --colour white --games 50 --seed 2804 --jobs 1 \
    --sgf $out/empty-white-gnugo-sgf --resume $out/empty-white-gnugo.journal --json > $out/empty-white-gnugo.json
python3 $out/kept.py $out/empty-white-gnugo-sgf gnugo > $out/empty-white-gnugo-kept.txt
# the course bundle as White after a random first move, a process a move (reconstructed)
littlego bundle /tmp/w/bundle --force
littlego match cmd:/tmp/w/bundle gnugo --colour white --random-opening 1 --games 20 --seed 2805 --jobs 1 \
    --resume $out/bundle-white-gnugo.journal --json > $out/bundle-white-gnugo.json
# what the book's plies buy: won positions a book-following White meets (Black at random), played
# by the agent without the book, judged by the compiled solver
python3 $out/gap.py book.json 7,9,11 60 1 > $out/gap.txt
python3 $out/gap.py book.json 5 60 2 >> $out/gap.txt
# from which ply the Python solver settles book-following positions within its share of a move
python3 $out/settle.py $out/white-gnugo-sgf 10,11,12,13 30 1 > $out/settle-white.txt
python3 $out/settle.py $out/black-gnugo-sgf 10,12 30 1 > $out/settle-black.txt      # (reconstructed)
# (settle-white.txt and settle-black.txt are kept together in settle.txt, a section each)
# the Python solver's trees against the compiled solver's, 12 positions a ply (reconstructed)
python3 $out/nodes.py $out/white-gnugo-sgf 11 > $out/nodes.txt
python3 $out/nodes.py $out/white-gnugo-sgf 10 >> $out/nodes.txt
# as Black from the empty board against the four scripted opponents (resumable journals)
for opponent in random greedy aggressive alphabeta; do
    littlego match champion $opponent --colour black --games 200 --seed 2806 --jobs 2 \
        --resume $out/black-$opponent.journal --json > $out/black-$opponent.json
done
# as Black from the empty board against itself (resumable: started 2026-11-23 22:31, resume with the same command)
littlego match champion champion --colour black --games 200 --seed 2807 --jobs 2 \
    --resume $out/black-champion.journal --json > $out/black-champion.json
# random 2-ply openings against GNU Go, both colours from each opening (resumable), and which
# side each opening left won (earlier solves, the Black book, else the compiled solver)
littlego match champion gnugo --games 200 --random-opening 2 --seed 2808 --jobs 2 \
    --resume $out/openings-gnugo.journal --sgf $out/openings-gnugo-sgf --json > $out/openings-gnugo.json
littlego openings solve-seed 2808 200 $out/openings-2808.json --jobs 2 --earlier experiments/random-openings-20261122/gnugo-openings.json
littlego openings report $out/openings-gnugo-sgf $out/openings-2808.json > $out/openings-gnugo.txt
# where the 8 games lost from won openings gave the win away (compiled solver, walking back from ply 12)
littlego study mistakes $out/openings-gnugo-sgf game-0008.sgf game-0014.sgf game-0026.sgf game-0031.sgf > $out/mistakes-a.txt
littlego study mistakes $out/openings-gnugo-sgf game-0104.sgf game-0108.sgf game-0157.sgf game-0166.sgf > $out/mistakes-b.txt
# what is kept: the journals, compressed; not the SGF folders (the journals' games, see above)
for journal in $out/*.journal; do xz -9e "$journal"; done
rm -r $out/*-sgf
# kept since as one file, a section a match: each match's progress lines (its stderr, NAME.log),
# `cd $out && tail -n +1 NAME.log ... > matches.log` (kept as matches.log.xz since 2026-11-29)

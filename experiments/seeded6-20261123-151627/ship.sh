#!/bin/sh
# After the playing-budget SPRT accepted the candidate (2026-11-23): ship it, then measure the
# shipped agent again. Run from the repository root.
set -e
run=experiments/seeded6-20261123-151627
out=$run/shipped
# params.json: candidate-params.json (evolve export, see SUMMARY.md) with its provenance saying
# how it was exported and what accepted it
python3 - <<'PY'
from engine.params import load_params, save_params
p = load_params("experiments/seeded6-20261123-151627/candidate-params.json")
prov = dict(p.provenance)
prov["exported_by"] = ("evolve export experiments/seeded6-20261123-151627 --to candidate-params.json --depth 12 "
                       "--cpu-budget 2.5 --cpu-cap 4.5 --solve-from 12")
prov["panel_note"] = ("'params.json' in the panel was the previous shipped weights "
                      "(baseline-20261121-055758, generation 24)")
prov["shipped_after"] = ("the playing-budget SPRT [0, 20] of experiments/seeded6-20261123-151627/PLAN.md accepted "
                         "Elo >= 20 against the previous params.json: 229 of 394 games, LLR 3.03 (2026-11-23); "
                         "see that folder's SUMMARY.md")
save_params("params.json", p._replace(provenance=prov))
PY
mkdir -p $out
# GNU Go from the 200 random openings of the previous agent's match (seed 1601: the same 60
# openings, which the compiled solver settled in experiments/random-openings-20261122), so the
# won-opening share is known; GNU Go's own randomness makes the games new.
littlego match champion gnugo --games 200 --random-opening 2 --seed 1601 --jobs 2 --sgf $out/gnugo-sgf --json > $out/vs-gnugo.json
# the games kept packed (`littlego records unpack $out/gnugo-sgf.tar.xz` gives the folder back)
littlego records pack $out/gnugo-sgf && rm -r $out/gnugo-sgf
littlego openings report $out/gnugo-sgf.tar.xz experiments/random-openings-20261122/gnugo-openings.json > $out/gnugo-openings.txt
# as Black from the empty board (fresh seeds)
littlego match champion gnugo --colour black --games 50 --seed 2702 --jobs 2 --json > $out/black-gnugo.json
littlego match champion champion --colour black --games 50 --seed 2703 --jobs 2 --json > $out/black-champion.json
for opponent in random greedy aggressive alphabeta; do
    littlego match champion $opponent --colour black --games 50 --seed 2701 --jobs 2 --json > $out/black-$opponent.json
done

#!/usr/bin/env bash
# What tuning the constants of a plain course agent buys, as docs/tune-your-agent.md reports it:
#   bash experiments/plain-agents-20261128/reproduce.sh python|cpp|java [OUT]
# from the repository's root. It tunes examples/plain-LANG's constants without editing it
# (evolve run examples/plain-LANG/evolve.toml), exports the tuned agent to OUT/tuned, grades the
# original and the tuned agent as the course does (littlego grade, 20 games an opponent, seed 1),
# and plays them against each other until an SPRT decides (Elo 0 against 50, at most 400 games,
# random 2-ply openings, each opening with both colours, seed 1128). Everything lands in OUT
# (default /tmp/plain-LANG).
set -euo pipefail
lang=${1:?python, cpp or java}
out=${2:-/tmp/plain-$lang}
agent=examples/plain-$lang
mkdir -p "$out"
evolve run "$agent/evolve.toml" --runs-dir "$out/runs" --no-progress 2>&1 | tee "$out/run.log"
run=$(ls -d "$out"/runs/plain-"$lang"-* | tail -1)
rm -rf "$out/tuned"
evolve export "$run" --to "$out/tuned" | tee "$out/export.log"
littlego grade "$agent" --games 20 --seed 1 --no-progress > "$out/grade-before.txt"
littlego grade "$out/tuned" --games 20 --seed 1 --no-progress > "$out/grade-after.txt"
littlego match "cmd:$out/tuned" "cmd:$agent" --sprt 0,50 --games 400 --random-opening 2 --seed 1128 \
    --no-progress > "$out/sprt.txt"
tail -n 3 "$out/grade-before.txt" "$out/grade-after.txt"
cat "$out/sprt.txt"

#!/bin/sh
# The grade report of the shipped bundle under each edition (issue 37: CPU against every budget):
# the default bundle, and the bundle fitted to that edition (bundle --edition), 4 games against
# each opponent (the editions play 20-100), one job, on the 2-core machine. Run from the
# repository root; the bundles are written to $B (default /tmp/grade-bundles), the reports to
# $OUT (default experiments/grade-20261124: the weights before the centre ship; the shipped centre
# weights' reports are in experiments/grade-20261124-centre, OUT=experiments/grade-20261124-centre).
set -e
out=${OUT:-experiments/grade-20261124}
mkdir -p $out
B=${B:-/tmp/grade-bundles}
littlego bundle $B/b-default --force
for e in fall2023 fall2020 earlier; do
  littlego bundle $B/b-$e --edition $e --force
done
for e in fall2023 fall2020 earlier; do
  littlego grade $B/b-default --edition $e --games 4 --jobs 1 --json > $out/default-$e.json
  littlego grade $B/b-$e --edition $e --games 4 --jobs 1 --json > $out/fitted-$e.json
done
# The six JSON reports are kept packed (experiments/ stays small): tar -xJf $out/reports.tar.xz reads them.
(cd $out && tar -cJf reports.tar.xz default-*.json fitted-*.json && rm default-*.json fitted-*.json)

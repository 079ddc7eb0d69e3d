#!/bin/sh
# Instructions per frame of the classifier, measured with callgrind.
#
# usage: bench/callgrind.sh [BUILD_DIR [FIXTURE [ITERATIONS]]]
#   defaults: build, tests/fixtures/lab_dp4.ini, 20
#
# Runs bench_classify under valgrind --tool=callgrind, collecting only inside
# bench_burst*() (the non-inlined wrapper, maybe a .constprop clone, around classify_burst(), so set-up
# and frame building are not counted), and prints the collected Ir divided by
# the frames classified as one JSON line.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
fixture=${2:-$here/tests/fixtures/lab_dp4.ini}
iters=${3:-20}
out=$(mktemp /tmp/callgrind.classify.XXXXXX)
trap 'rm -f "$out"' EXIT

json=$(valgrind --tool=callgrind --callgrind-out-file="$out" \
	--toggle-collect='bench_burst*' "$build/bench/bench_classify" "$fixture" "$iters" --no-tsc \
	2>/dev/null)
frames=$(printf '%s\n' "$json" | sed -n 's/.*"frames":\([0-9]*\).*/\1/p')
ir=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$out")
if [ -z "$ir" ]; then
	ir=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$out")
fi
printf '%s\n' "$json"
awk -v ir="$ir" -v f="$frames" 'BEGIN {
	printf "{\"tool\":\"callgrind\",\"collect\":\"bench_burst\",\"ir\":%d,\"frames\":%d,\"ir_per_frame\":%.2f}\n", ir, f, ir / f
}'

#!/bin/sh
# Instructions per lookup of the session tables, measured with callgrind.
#
# usage: bench/callgrind_session.sh [BUILD_DIR [ITERATIONS]]
#   defaults: build, 5
#
# Runs bench_session under valgrind --tool=callgrind twice: once collecting
# only inside bench_up() (upstream bulk lookups), once only inside bench_down()
# (downstream), so the EAL start, the table fill and the key preparation are
# not counted. Both sizes (4096 and 65536 sessions) run in one process, so
# the figure is the mean over both. Prints the benchmark's JSON lines, then
# one JSON line per direction with the collected Ir divided by the lookups.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
iters=${2:-5}
out=$(mktemp /tmp/callgrind.session.XXXXXX)
trap 'rm -f "$out"' EXIT

for dir in up down; do
	json=$(valgrind --tool=callgrind --callgrind-out-file="$out" \
		--toggle-collect="bench_${dir}*" "$build/bench/bench_session" "$iters" --no-tsc \
		2>/dev/null)
	n=$(printf '%s\n' "$json" | sed -n "s/.*\"${dir}_lookups\":\([0-9]*\).*/\1/p" |
		awk '{ s += $1 } END { print s }')
	ir=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$out")
	if [ -z "$ir" ]; then
		ir=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$out")
	fi
	[ "$dir" = up ] && printf '%s\n' "$json"
	awk -v ir="$ir" -v n="$n" -v d="$dir" 'BEGIN {
		printf "{\"tool\":\"callgrind\",\"collect\":\"bench_%s\",\"ir\":%d,\"lookups\":%d,\"ir_per_lookup\":%.2f}\n", d, ir, n, ir / n
	}'
done

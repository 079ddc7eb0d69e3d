#!/bin/sh
# Instructions per packet of the header rewrite stage, measured with callgrind.
#
# usage: bench/callgrind_rewrite.sh [BUILD_DIR [ITERATIONS]]
#   defaults: build, 20
#
# Runs bench_rewrite under valgrind --tool=callgrind twice: once collecting
# only inside bench_up*() (decap + TTL + MSS check), once only inside
# bench_down*() (encap), so the set-up and the restores between passes are not
# counted. Prints the benchmark's JSON line, then one JSON line per direction
# with the collected Ir divided by the packets.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
iters=${2:-20}
out=$(mktemp /tmp/callgrind.rewrite.XXXXXX)
trap 'rm -f "$out"' EXIT

for dir in up down; do
	json=$(valgrind --tool=callgrind --callgrind-out-file="$out" \
		--toggle-collect="bench_${dir}*" "$build/bench/bench_rewrite" "$iters" --no-tsc \
		2>/dev/null)
	pkts=$(printf '%s\n' "$json" | sed -n "s/.*\"${dir}_packets\":\([0-9]*\).*/\1/p")
	ir=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$out")
	if [ -z "$ir" ]; then
		ir=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$out")
	fi
	[ "$dir" = up ] && printf '%s\n' "$json"
	awk -v ir="$ir" -v p="$pkts" -v d="$dir" 'BEGIN {
		printf "{\"tool\":\"callgrind\",\"collect\":\"bench_%s\",\"ir\":%d,\"packets\":%d,\"ir_per_packet\":%.2f}\n", d, ir, p, ir / p
	}'
done

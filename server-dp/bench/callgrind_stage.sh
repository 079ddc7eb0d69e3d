#!/bin/sh
# Instructions per unit of one data-plane stage, measured with callgrind.
#
# usage: bench/callgrind_stage.sh BUILD_DIR BENCH UNIT 'FUNC:KEY ...' [ARGS...]
#   BENCH  benchmark binary under BUILD_DIR/bench (bench_classify, ...)
#   UNIT   what is counted, singular (frame, packet, lookup)
#   FUNC   function to collect inside (callgrind --toggle-collect=FUNC*, so
#          .constprop clones count too); one valgrind run per FUNC
#   KEY    the benchmark's JSON field giving the units FUNC handled, summed
#          over all its JSON lines
#   ARGS   the benchmark's arguments; --no-tsc is appended
#
# Prints the benchmark's JSON line(s) of the first run, then per FUNC one line
#   {"tool":"callgrind","collect":FUNC,"ir":N,"UNITs":N,"ir_per_UNIT":X.XX}
# Exits non-zero when the benchmark fails or a FUNC counted no instructions or units.
# e.g. bench/callgrind_stage.sh build bench_rewrite packet \
#        'bench_up:up_packets bench_down:down_packets' 20
set -eu

if [ $# -lt 4 ]; then
	sed -n '3,14s/^# \{0,1\}//p' "$0" >&2
	exit 2
fi
build=$1
bench=$2
unit=$3
funcs=$4
shift 4
out=$(mktemp "/tmp/callgrind.${bench#bench_}.XXXXXX")
trap 'rm -f "$out"' EXIT

first=1
for fk in $funcs; do
	func=${fk%%:*}
	key=${fk#*:}
	json=$(valgrind --tool=callgrind --callgrind-out-file="$out" \
		--toggle-collect="${func}*" "$build/bench/$bench" "$@" --no-tsc \
		2>/dev/null)
	n=$(printf '%s\n' "$json" | sed -n "s/.*\"${key}\":\([0-9]*\).*/\1/p" |
		awk '{ s += $1 } END { print s }')
	ir=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$out")
	if [ -z "$ir" ]; then
		ir=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$out")
	fi
	[ "$first" = 1 ] && printf '%s\n' "$json"
	# A renamed wrapper or a benchmark that counted nothing would print 0 and pass.
	if [ -z "$n" ] || [ "$n" = 0 ] || [ -z "$ir" ] || [ "$ir" = 0 ]; then
		echo "$0: $bench: nothing measured in $func* (ir ${ir:-none}, $key ${n:-none})" >&2
		exit 1
	fi
	first=0
	awk -v ir="$ir" -v n="$n" -v c="$func" -v u="$unit" 'BEGIN {
		printf "{\"tool\":\"callgrind\",\"collect\":\"%s\",\"ir\":%d,\"%ss\":%d,\"ir_per_%s\":%.2f}\n", c, ir, u, n, u, ir / n
	}'
done

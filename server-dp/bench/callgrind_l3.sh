#!/bin/sh
# Instructions per call of the worker's L3 helpers, measured with callgrind.
#
# usage: bench/callgrind_l3.sh [BUILD_DIR [ITERATIONS]]
#   defaults: build, 5
#
# Runs bench_l3 under valgrind --tool=callgrind five times, collecting only
# inside bench_te*() (icmp_error, time exceeded, 98-byte quote), bench_fn*()
# (icmp_error, frag needed, 548-byte quote), bench_busy*() (icmp_error
# refused by an empty token bucket), bench_lookup*() (neigh_lookup)
# and bench_resolve*() (neigh_resolve), and prints the benchmark's JSON line
# then one line per function with the collected Ir divided by the calls.
# Thin wrapper of callgrind_stage.sh.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
exec "$here/bench/callgrind_stage.sh" "${1:-$here/build}" bench_l3 call \
	'bench_te:te_calls bench_fn:fn_calls bench_busy:busy_calls bench_lookup:lookups bench_resolve:resolves' \
	"${2:-5}"

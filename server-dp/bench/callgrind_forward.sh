#!/bin/sh
# Instructions per packet of the policer, route and ACL stages, measured with
# callgrind.
#
# usage: bench/callgrind_forward.sh [BUILD_DIR [ITERATIONS [SCENARIO...]]]
#   defaults: build, 5, every scenario of bench_forward
#
# Runs bench_forward under valgrind --tool=callgrind once per scenario,
# collecting only inside the stage's non-inlined wrapper (bench_police,
# bench_route or bench_acl), so the EAL start, the table builds and the packet
# preparation are not counted. Prints per scenario the benchmark's JSON line,
# then one JSON line with the collected Ir divided by the packets. Run from
# server-dp/ (the route-lab and acl-lab scenarios read tests/fixtures).
# Thin wrapper of callgrind_stage.sh.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
iters=${2:-5}
[ $# -gt 2 ] && shift 2 || set --
[ $# -gt 0 ] || set -- police-4k police-64k route-lab route-max acl-lab acl-64 acl-1024
export BNG_FIXTURES="$here/tests/fixtures"
for scenario in "$@"; do
	case $scenario in
	police-*) func=bench_police ;;
	route-*) func=bench_route ;;
	*) func=bench_acl ;;
	esac
	"$here/bench/callgrind_stage.sh" "$build" bench_forward packet "$func:packets" \
		"$iters" "$scenario"
done

#!/bin/sh
# Instructions per lookup of the session tables, measured with callgrind.
#
# usage: bench/callgrind_session.sh [BUILD_DIR [ITERATIONS [SESSIONS...]]]
#   defaults: build, 2, 4096 65536
#
# For each table size, runs bench_session under valgrind --tool=callgrind
# twice: once collecting only inside bench_up() (upstream lookups), once only
# inside bench_down() (downstream), so the EAL start, the table fill and the
# key preparation are not counted. Prints, per size, the benchmark's JSON
# line, then one JSON line per direction with the collected Ir divided by the
# lookups. Thin wrapper of callgrind_stage.sh.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
iters=${2:-2}
[ $# -gt 2 ] && shift 2 || set -- 4096 65536
for n in "$@"; do
	"$here/bench/callgrind_stage.sh" "$build" bench_session lookup \
		'bench_up:up_lookups bench_down:down_lookups' "$iters" "$n"
done

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
# Thin wrapper of callgrind_stage.sh.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
exec "$here/bench/callgrind_stage.sh" "${1:-$here/build}" bench_session lookup \
	'bench_up:up_lookups bench_down:down_lookups' "${2:-5}"

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
# with the collected Ir divided by the packets. Thin wrapper of
# callgrind_stage.sh.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
exec "$here/bench/callgrind_stage.sh" "${1:-$here/build}" bench_rewrite packet \
	'bench_up:up_packets bench_down:down_packets' "${2:-20}"

#!/bin/sh
# Instructions per frame of the classifier, measured with callgrind.
#
# usage: bench/callgrind.sh [BUILD_DIR [FIXTURE [ITERATIONS]]]
#   defaults: build, tests/fixtures/lab_dp4.ini, 20
#
# Runs bench_classify under valgrind --tool=callgrind, collecting only inside
# bench_burst*() (the non-inlined wrapper, maybe a .constprop clone, around classify_burst(), so set-up
# and frame building are not counted), and prints the collected Ir divided by
# the frames classified as one JSON line. Thin wrapper of callgrind_stage.sh.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
exec "$here/bench/callgrind_stage.sh" "${1:-$here/build}" bench_classify frame \
	'bench_burst:frames' "${2:-$here/tests/fixtures/lab_dp4.ini}" "${3:-20}"

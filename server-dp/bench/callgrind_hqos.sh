#!/bin/sh
# Instructions per packet of the HQoS stage, measured with callgrind.
#
# usage: bench/callgrind_hqos.sh [BUILD_DIR [ITERATIONS [SCHEDULERS]]]
#   defaults: build, 2, "hsched rte_sched"
#
# Runs bench_hqos under valgrind --tool=callgrind once for 4096 pipes and once
# for 65536, for each scheduler, collecting only inside bench_step() (hqos_enqueue() of a marked
# burst of 32, hqos_dequeue() of up to 32, hqos_owner() of each), so the EAL
# start, the profile tables, the pipe allocation and the marking are not
# counted. Prints each run's JSON line, then
#   {"tool":"callgrind","collect":"bench_step","ir":N,"packets":N,"ir_per_packet":X}
# Thin wrapper of callgrind_stage.sh.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
iters=${2:-2}
scheds=${3:-hsched rte_sched}
for sched in $scheds; do
	for pipes in 4096 65536; do
		"$here/bench/callgrind_stage.sh" "$build" bench_hqos packet 'bench_step:packets' \
			"$iters" "$pipes" "$sched"
	done
done

#!/bin/bash
# make bench-dp: bng-dp's whole pipeline and DPDK's ip_pipeline example configured as
# the same vBNG, on the same sessions and traffic (vbng_traffic.py), downstream and
# upstream, 4096 and 65536 sessions, measured in interleaved windows with equal queue
# sizes, mbufs, cores and counting point (run_bench_dp.py). Prints JSON lines: the
# fairness settings, each implementation's points, then the ratios to ip_pipeline.
# Method and recorded figures: docs/benchmarks.md.
#
# usage: bench/bench_dp.sh [run_bench_dp.py options]   (BENCH_OUT: output directory,
#        default server-dp/build-bench)
# Needs root for hugepages (else --no-huge); every process is stopped and the hugepage
# setting restored on exit, also when interrupted. Exits non-zero when any side fails
# (pipefail: tee, which keeps the lines in OUT/bench-dp.jsonl, cannot hide it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${BENCH_OUT:-$root/server-dp/build-bench}
py=$root/.venv/bin/python
[ -x "$py" ] || py=python3
mkdir -p "$out"
hp=/proc/sys/vm/nr_hugepages
old=$(cat "$hp" 2>/dev/null || echo "")
restore() {
	if [ -n "$old" ] && [ -w "$hp" ] && [ "$(cat "$hp")" != "$old" ]; then
		echo "$old" >"$hp" || true
	fi
}
trap restore EXIT
"$py" "$here/run_bench_dp.py" --out "$out" "$@" | tee "$out/bench-dp.jsonl"

#!/bin/bash
# make bench-dp: bng-dp's whole pipeline and DPDK's ip_pipeline example configured as
# the same vBNG, on the same sessions and traffic (vbng_traffic.py), downstream and
# upstream, 4096 and 65536 sessions. Prints JSON lines: bng-dp's points, ip_pipeline's
# points, then the ratios (compare.py). Method and recorded figures: docs/benchmarks.md.
#
# usage: bench/bench_dp.sh [run_bench_dp.py options]   (BENCH_OUT: output directory,
#        default server-dp/build-bench; BENCH_IPP_ARGS: options of run_ip_pipeline.sh)
# Needs root for hugepages (else --no-huge); every process is stopped and the hugepage
# setting restored on exit, also when interrupted. Exits non-zero as soon as a half
# fails: pipefail, so tee (which keeps each half's lines for compare.py) cannot hide it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${BENCH_OUT:-$root/server-dp/build-bench}
py=$root/.venv/bin/python
[ -x "$py" ] || py=python3
mkdir -p "$out"
"$py" "$here/run_bench_dp.py" --out "$out" "$@" | tee "$out/bng-dp.jsonl"
# shellcheck disable=SC2086
"$here/run_ip_pipeline.sh" --out "$out" ${BENCH_IPP_ARGS:-} | tee "$out/ip_pipeline.jsonl"
"$py" "$here/compare.py" "$out/bng-dp.jsonl" "$out/ip_pipeline.jsonl"

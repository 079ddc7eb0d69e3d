#!/bin/bash
# The HQoS dequeue batch at full load (issue 20 item 2, docs/dp/hqos.md "Batching and the
# idle back-off"): bench_dp's whole downstream pipeline (full bursts of 32 on net_null:
# the load where batching matters) with --hqos-batch 1 (the worker before: dequeue every
# iteration), fixed batches, and auto. Prints one JSON line per setting: instructions
# per packet (callgrind, bench_loop(), repeatable) and cycles per packet of the worker's
# CPU time over interleaved timed windows (median, min, max), with the load average.
#
# usage: server-dp/bench/bench_hqos_batch.sh [BUILD_DIR] [ROUNDS]
#   BUILD_DIR default server-dp/build; inputs from vbng_traffic.py in $BENCH_OUT
#   (default /tmp/bench-hqos-batch, made when absent); ROUNDS of timed windows (3).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/server-dp/build}
rounds=${2:-3}
out=${BENCH_OUT:-/tmp/bench-hqos-batch}
py=$root/.venv/bin/python
[ -x "$py" ] || py=python3
bench=$build/bench/bench_dp
settings="1 8 16 32 64 128 auto"
mkdir -p "$out"
[ -f "$out/down_4096.pcap" ] || "$py" "$here/vbng_traffic.py" "$out" --sessions 4096 >/dev/null
eal=(-l 1 --no-huge -m 2048 --no-shconf --no-pci --no-telemetry --log-level=error --vdev net_null0)
args=(--config "$out/bng_dp_4096.ini" --sessions "$out/sessions_4096.csv"
	--pcap "$out/down_4096.pcap" --scenario down --qsize 64 --mbufs 65536)
for b in $settings; do
	cg=$out/cg_$b.out
	valgrind --tool=callgrind --callgrind-out-file="$cg" --toggle-collect=bench_loop \
		"$bench" "${eal[@]}" --file-prefix=bhb$$ -- "${args[@]}" --bursts 4000 \
		--stats-period-us 500000 --hqos-batch "$b" >"$out/cg_$b.json" 2>/dev/null
	ir=$(callgrind_annotate "$cg" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
	echo "$b $ir" >>"$out/ir.txt.$$"
done
: >"$out/timed.txt.$$"
for r in $(seq "$rounds"); do
	for b in $settings; do
		la=$(cut -d' ' -f1 /proc/loadavg)
		line=$("$bench" "${eal[@]}" --file-prefix=bhb$$ -- "${args[@]}" --seconds 2 --runs 1 \
			--hqos-batch "$b" 2>/dev/null | grep '"run": 0')
		echo "$b $la $line" >>"$out/timed.txt.$$"
	done
done
"$py" - "$out/ir.txt.$$" "$out/timed.txt.$$" <<'PY'
import json, statistics, sys
ir = dict(l.split() for l in open(sys.argv[1]))
timed = {}
for l in open(sys.argv[2]):
    b, la, js = l.split(" ", 2)
    timed.setdefault(b, []).append((float(la), json.loads(js)))
for b, v in ir.items():
    cpp = [j["cycles_per_packet"] for _, j in timed.get(b, [])]
    print(json.dumps({"hqos_batch": b, "instructions_per_packet": round(int(v) / 128000, 1),
                      "cycles_per_packet_median": statistics.median(cpp) if cpp else None,
                      "cycles_per_packet_min": min(cpp, default=None), "cycles_per_packet_max": max(cpp, default=None),
                      "loadavg": [la for la, _ in timed.get(b, [])]}))
PY
rm -f "$out/ir.txt.$$" "$out/timed.txt.$$"

#!/bin/sh
# The ip_pipeline half of `make bench-dp`: builds DPDK's ip_pipeline example (Debian's
# dpdk-doc) out of tree, configures it as the bench-dp vBNG, runs downstream and
# upstream at 4096 and 65536 sessions on the shared traffic, and prints one JSON line
# per point (docs/benchmarks.md, "ip_pipeline baseline").
#
# usage: bench/run_ip_pipeline.sh [--out DIR] [ip_pipeline/run.py options]
#   default DIR: server-dp/build-bench (pcaps, session CSVs, configs, logs, profiles)
#   --callgrind 4096|none  skip the slow callgrind runs at 64K / everywhere
#   --verify               first check 256 output frames each way with scapy
#
# Needs root for hugepages (else it runs with --no-huge). Every process it starts is
# stopped and nr_hugepages restored on exit, also when interrupted; this wrapper
# restores nr_hugepages once more in case the Python driver itself is killed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
py=$root/.venv/bin/python
[ -x "$py" ] || py=python3
hp=/proc/sys/vm/nr_hugepages
old=$(cat "$hp" 2>/dev/null || echo "")
restore() {
	if [ -n "$old" ] && [ -w "$hp" ] && [ "$(cat "$hp")" != "$old" ]; then
		echo "$old" >"$hp" || true
	fi
}
trap restore EXIT
"$py" "$here/ip_pipeline/run.py" "$@" &
child=$!
trap 'kill -TERM "$child" 2>/dev/null || true' INT TERM HUP
rc=0
wait "$child" || rc=$?
# wait returns early when a trapped signal arrives: let the driver finish its cleanup
while kill -0 "$child" 2>/dev/null; do wait "$child" || rc=$?; done
exit "$rc"

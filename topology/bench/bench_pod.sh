#!/usr/bin/env bash
# make bench-pod: setup rate and per-subscriber throughput through the whole emulated pod
# (bench_pod.py; docs/benchmarks.md). Arguments go to bench_pod.py (--sizes 1000, --keep, ...).
# Needs root, a built bng-dp (server-dp/build/bng-dp); builds bng-cp, bngcpctl and
# bng-subemu when missing; takes the netns lock the pod tests use.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
export PATH="$PATH:/usr/local/go/bin"
py=python3
[ -x "$root/.venv/bin/python3" ] && py="$root/.venv/bin/python3"
[ -x "$root/server-dp/build/bng-dp" ] || { echo "bench-pod: build server-dp first (ninja -C server-dp/build)" >&2; exit 1; }
glue="$root/accel-ppp-glue"
for cmd in bng-cp bngcpctl bng-subemu; do
	[ -x "$glue/build/$cmd" ] || (cd "$glue" && go build -o "build/$cmd" "./cmd/$cmd")
done
exec flock /tmp/bngpod-netns.lock "$py" "$here/bench_pod.py" "$@"

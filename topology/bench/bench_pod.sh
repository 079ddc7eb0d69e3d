#!/usr/bin/env bash
# make bench-pod: setup rate and per-subscriber throughput through the whole emulated pod
# (bench_pod.py; docs/benchmarks.md). Arguments go to bench_pod.py (--sizes 1000, --keep, ...).
# Needs root and the built programs (`make binaries`: bng-dp, bng-cp, bngcpctl, bng-subemu;
# `make bench-pod` builds them first); takes the netns lock the pod tests use.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
py=python3
[ -x "$root/.venv/bin/python3" ] && py="$root/.venv/bin/python3"
exec flock /tmp/bngpod-netns.lock "$py" "$here/bench_pod.py" "$@"

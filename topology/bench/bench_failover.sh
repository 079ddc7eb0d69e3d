#!/usr/bin/env bash
# make bench-failover: failover of the whole emulated pod with a standby, in controller mode
# (bench_failover.py; docs/benchmarks.md). Arguments go to bench_failover.py (--sizes 1000,
# --keep). Needs root and the built programs (`make binaries`: bng-dp, bng-cp, bngcpctl,
# bng-subemu and the controller; `make bench-failover` builds them first); takes the netns
# lock the pod tests use.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
py=python3
[ -x "$root/.venv/bin/python3" ] && py="$root/.venv/bin/python3"
exec flock /tmp/bngpod-netns.lock "$py" "$here/bench_failover.py" "$@"

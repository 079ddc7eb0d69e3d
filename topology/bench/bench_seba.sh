#!/usr/bin/env bash
# make bench-seba: the session setup rate through the whole emulated pod in controller mode,
# org.bngpod.seba off, on, and on with its Kafka publisher (bench_seba.py; docs/benchmarks.md).
# Arguments go to bench_seba.py (--sessions 1000, --rounds 3, --modes off,seba,seba+kafka).
# Needs root and the built programs (`make binaries`: bng-dp, bng-cp, bng-subemu, the
# controllers, the broker's class path; `make bench-seba` builds them first); takes the netns
# lock the pod tests use.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
py=python3
[ -x "$root/.venv/bin/python3" ] && py="$root/.venv/bin/python3"
exec flock /tmp/bngpod-netns.lock "$py" "$here/bench_seba.py" "$@"

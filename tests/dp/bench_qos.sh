#!/usr/bin/env bash
# make bench-qos: 4 bng-dp processes sharing one access port, then one server port, static shares against the
# peer exchange (bench_qos.py; docs/benchmarks.md "QoS across instances"). Arguments go to
# bench_qos.py (--rate, --seconds, --pairs, --case). Needs root and `make binaries`; takes the
# netns lock the tests use.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
py=python3
[ -x "$root/.venv/bin/python3" ] && py="$root/.venv/bin/python3"
exec flock /tmp/bngpod-netns.lock "$py" "$here/bench_qos.py" "$@"

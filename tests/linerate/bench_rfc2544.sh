#!/usr/bin/env bash
# make bench-rfc2544: RFC 2544 throughput and latency through the emulated pod with bng-lrgen
# (rfc2544.py; docs/linerate.md). Arguments go to rfc2544.py (--full, --sizes 64,imix, ...).
# Needs root and the built programs (`make binaries`); takes the netns lock the pod tests use.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
py=python3
[ -x "$root/.venv/bin/python3" ] && py="$root/.venv/bin/python3"
exec flock /tmp/bngpod-netns.lock "$py" "$here/rfc2544.py" "$@"

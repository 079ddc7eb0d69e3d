#!/usr/bin/env bash
# make bench-move: the time a line-group move takes onto the real bng-dp (bench_move.py).
#
# Environment: BENCH_MOVE_SIZES (default "1000 10000"), BENCH_MOVE_WINDOW (CPEs dialling at
# once, default 1000), BENCH_MOVE_KEEP=1 (keep logs). Needs root and the programs `make
# binaries` builds (bng-dp, bng-cp, bngcpctl, bng-cpload; `make bench-move` builds them
# first); takes the netns lock the tests use.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
glue=$(dirname "$here")
root=$(dirname "$glue")
py=python3
[ -x "$root/.venv/bin/python3" ] && py="$root/.venv/bin/python3"
py=${BENCH_MOVE_PYTHON:-$py}
for b in "$root/server-dp/build/bng-dp" "$glue/build/bng-cp" "$glue/build/bngcpctl" "$glue/build/bng-cpload"; do
	[ -x "$b" ] || { echo "bench-move: $b is not built: run \`make build\` (or \`make binaries\`)" >&2; exit 1; }
done
flock /tmp/bngpod-netns.lock "$py" "$here/bench_move.py" --bng-cp "$glue/build/bng-cp" \
	--bngcpctl "$glue/build/bngcpctl" --cpload "$glue/build/bng-cpload"

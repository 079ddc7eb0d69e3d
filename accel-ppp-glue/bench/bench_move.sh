#!/usr/bin/env bash
# make bench-move: the time a line-group move takes onto the real bng-dp (bench_move.py).
#
# Environment: BENCH_MOVE_SIZES (default "1000 10000"), BENCH_MOVE_WINDOW (CPEs dialling at
# once, default 1000), BENCH_MOVE_KEEP=1 (keep logs). Needs root and a built bng-dp
# (server-dp/build/bng-dp); takes the netns lock the tests use.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
glue=$(dirname "$here")
root=$(dirname "$glue")
export PATH="$PATH:/usr/local/go/bin"
py=python3
[ -x "$root/.venv/bin/python3" ] && py="$root/.venv/bin/python3"
py=${BENCH_MOVE_PYTHON:-$py}
[ -x "$root/server-dp/build/bng-dp" ] || { echo "bench-move: build server-dp first (ninja -C server-dp/build)" >&2; exit 1; }
bin=$(mktemp -d "${TMPDIR:-/tmp}/bench-move-bin.XXXXXX")
trap 'rm -rf "$bin"' EXIT
echo "bench-move: building bng-cp, bngcpctl and bng-cpload" >&2
(cd "$glue" && go build -o "$bin/bng-cp" ./cmd/bng-cp && go build -o "$bin/bngcpctl" ./cmd/bngcpctl &&
	go build -o "$bin/bng-cpload" ./cmd/bng-cpload)
flock /tmp/bngpod-netns.lock "$py" "$here/bench_move.py" --bng-cp "$bin/bng-cp" --bngcpctl "$bin/bngcpctl" \
	--cpload "$bin/bng-cpload"

"""The private FreeRADIUS of the control-plane tests and the CP benchmark: topology/bngpod/
radius.py (shared with `bngpod up`), re-exported here, and its command line.

Command line (for shells, the benchmark, and by hand):

    python3 -m tests.cp.radiusd up DIR --address 127.200.0.2 --auth-port 18120 \\
        --acct-port 18130 --secret S --client 127.200.0.1 [--client ...] --users N \\
        [--debug]
    python3 -m tests.cp.radiusd down DIR
    python3 -m tests.cp.radiusd records DIR [detail|auth-detail|reply-detail]

`up` creates the users user1..userN with password pw1..pwN (user7's password is pw7) and no
reply items, starts the server in the background (its pid in DIR/freeradius.pid, its log
in DIR/radius.log, DIR/stdout.log), waits until both ports are bound and exits 0; `down`
stops it (SIGTERM, then SIGKILL) and leaves DIR in place; `records` prints the parsed
records of a detail file as JSON lines."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

try:
    import bngpod  # noqa: F401
except ImportError:  # run as `python3 -m tests.cp.radiusd` without the repository's path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "topology"))

from bngpod.radius import (  # noqa: E402
    FREERADIUS,
    KEEP_MODULES,
    SYSTEM_RADDB,
    FreeRadius,
    RadiusError,
    Record,
    Reply,
    access_request,
    installed,
    numbered_users,
    parse_detail,
    stop_dir,
    users_file,
    wait_records,
)

__all__ = [
    "FREERADIUS",
    "KEEP_MODULES",
    "SYSTEM_RADDB",
    "FreeRadius",
    "RadiusError",
    "Record",
    "Reply",
    "access_request",
    "installed",
    "numbered_users",
    "parse_detail",
    "stop_dir",
    "users_file",
    "wait_records",
]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tests.cp.radiusd", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    up = sub.add_parser("up", help="configure and start a FreeRADIUS in DIR")
    up.add_argument("dir")
    up.add_argument("--address", default="127.0.0.1")
    up.add_argument("--auth-port", type=int, default=18120)
    up.add_argument("--acct-port", type=int, default=18130)
    up.add_argument("--secret", default="testing123")
    up.add_argument("--client", action="append", help="NAS address allowed (repeatable; default 127.0.0.1)")
    up.add_argument("--users", type=int, default=10, help="users user1..userN, passwords pw1..pwN")
    up.add_argument("--debug", action="store_true", help="freeradius -X (slow: not for benchmarks)")
    down = sub.add_parser("down", help="stop the FreeRADIUS of DIR")
    down.add_argument("dir")
    rec = sub.add_parser("records", help="print a detail file's records as JSON lines")
    rec.add_argument("dir")
    rec.add_argument("which", nargs="?", default="detail", choices=["detail", "auth-detail", "reply-detail"])
    a = ap.parse_args(argv)
    if a.cmd == "up":
        stop_dir(a.dir)
        r = FreeRadius(
            a.dir,
            address=a.address,
            auth_port=a.auth_port,
            acct_port=a.acct_port,
            secret=a.secret,
            nas_addresses=a.client or ["127.0.0.1"],
            users=numbered_users(a.users),
            debug=a.debug,
        )
        try:
            r.start(detach=True)
        except RadiusError as e:
            print(f"radiusd: {e}", file=sys.stderr)
            return 1
        print(f"freeradius pid {r.proc.pid} on {a.address} auth {a.auth_port} acct {a.acct_port}")
        return 0
    if a.cmd == "down":
        if not stop_dir(a.dir):
            print(f"radiusd: no FreeRADIUS running in {a.dir}", file=sys.stderr)
        return 0
    for r in FreeRadius(a.dir).records(a.which):
        print(json.dumps({"header": r.header, **r.multi}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

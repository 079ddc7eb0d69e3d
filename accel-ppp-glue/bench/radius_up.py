"""Start the private FreeRADIUS of tests/cp/radiusd.py for `make bench-cp`.

The same server as `python3 -m tests.cp.radiusd up` (users user1..userN with passwords
pw1..pwN, Message-Authenticator on every reply, detail files), with two changes for the
benchmark: no per-request logs of Access-Requests and replies (the tests' instruments;
the accounting detail file stays), and 4 MiB socket receive buffers (`recv_buff`) on the auth and acct listeners.
The kernel's default (208 KiB) overflows when a thousand Access-Requests arrive at once,
and every dropped request then costs the CP's RADIUS timeout (3 s), which measures the
loss, not the control plane. Stop it with `python3 -m tests.cp.radiusd down DIR`.

Usage (from the repository root): python3 accel-ppp-glue/bench/radius_up.py DIR ADDRESS
AUTH_PORT ACCT_PORT SECRET USERS CLIENT [CLIENT ...]
"""

from __future__ import annotations

import sys

from tests.cp.radiusd import FreeRadius, RadiusError, numbered_users, stop_dir

RECV_BUFF = 4 * 1024 * 1024


class BenchRadius(FreeRadius):
    def _site(self) -> str:
        site = super()._site()
        for kind in ("auth", "acct"):
            site = site.replace(f"\ttype = {kind}\n", f"\ttype = {kind}\n\trecv_buff = {RECV_BUFF}\n", 1)
        # The tests' per-request logs of Access-Requests and replies (auth-detail,
        # reply-detail) are test instruments, not what a production server writes;
        # the accounting detail file stays.
        for module in ("bngpod_auth", "bngpod_reply"):
            site = site.replace(f"\t{module}\n", "")
        return site


def main(argv: list[str]) -> int:
    if len(argv) < 7:
        print(__doc__, file=sys.stderr)
        return 2
    workdir, address, auth, acct, secret, users = argv[:6]
    stop_dir(workdir)
    r = BenchRadius(
        workdir,
        address=address,
        auth_port=int(auth),
        acct_port=int(acct),
        secret=secret,
        nas_addresses=argv[6:],
        users=numbered_users(int(users)),
    )
    try:
        r.start(detach=True)
    except RadiusError as e:
        print(f"radius_up: {e}", file=sys.stderr)
        return 1
    print(f"freeradius pid {r.proc.pid} on {address} auth {auth} acct {acct} (recv_buff {RECV_BUFF})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

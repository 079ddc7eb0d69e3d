"""The inet host's servers in bngpod-inet (`python -m bngpod.servers serve`): UDP/TCP echo on
port 7, HTTP on port 80. Ready once they answer from bngpod-core."""

from __future__ import annotations

import os
import sys

from .. import binaries, servers
from .. import supervisor as sv
from ..network import CORE_NS, INET_HOST, INET_NS
from ..rawsock import in_netns


def start(state: sv.State) -> None:
    log = sv.logs_dir() / "servers.log"
    cmd = [sys.executable, "-m", "bngpod.servers", "serve", "--log", str(log)]
    pythonpath = str(binaries.REPO / "topology") + os.pathsep + os.environ.get("PYTHONPATH", "")
    env = dict(os.environ, PYTHONPATH=pythonpath)
    proc = sv.spawn(state, "servers", INET_NS, cmd, log, os.path.basename(sys.executable), env=env)

    def answer() -> bool | str:
        with in_netns(CORE_NS):
            failed = servers.check(INET_HOST, timeout=0.5)
        return not failed or "; ".join(failed)

    sv.wait_ready(f"servers on {INET_HOST}", proc, log, answer)

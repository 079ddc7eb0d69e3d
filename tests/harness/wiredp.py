"""PPPoE clients on the access side of a real bng-dp (rig.py).

`WireDp` is what `PppoeClient` needs from a DP (`attach`, `send_frame`): the client's
frames go onto the rig's wire port as QinQ frames, and every frame bng-dp sends towards a
client MAC comes back to that client. Frames on the core side (untagged) are kept in
`core` for the test; the DP's ARP request for its next hop is answered as the router
would.

Beside it, what the tests that run bng-cp against the real bng-dp (tests/cp/test_with_dp.py,
tests/cp/test_move_with_dp.py) and `make bench-move` (accel-ppp-glue/bench/bench_move.py)
share: the lab pod's cp.yaml reduced to some instances, polling for a condition, bngcpctl's
answers, bng-dp's sessions from its telemetry, stopping a child process, and one packet each
way through the DP (`send_upstream`, `send_downstream`)."""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import threading
import time

import yaml

from bngpod.binaries import BNG_DP, BNGCPCTL, REPO

from .frames import INTERNET, IP, ROUTER_MAC, UDP, Ether, Raw, arp_reply_from_router, is_router_arp_request, parse
from .pppoe_client import IPV4

LAB = REPO / "topology" / "tests" / "golden" / "lab"


class WireDp:
    def __init__(self, rig):
        self.rig = rig
        self.clients: dict[str, object] = {}
        self.core: queue.Queue[bytes] = queue.Queue()
        self.arp_answered = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="wire-dp", daemon=True)
        self._thread.start()

    def attach(self, client) -> None:
        self.clients[client.mac] = client

    def send_frame(self, frame: bytes) -> None:
        self.rig.wire.send(frame)

    def send_core(self, frame: bytes) -> None:
        self.rig.wire.send(frame)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)

    def _run(self) -> None:
        while not self._stop.is_set():
            frame = self.rig.wire.recv(0.1)
            if frame is None:
                continue
            p = parse(frame)
            if is_router_arp_request(p):
                self.rig.wire.send(bytes(arp_reply_from_router()))
                self.arp_answered += 1
                continue
            client = self.clients.get(p[Ether].dst.lower())
            if client is not None and len(frame) >= 18 and frame[12:14] in (b"\x81\x00", b"\x88\xa8"):
                client.deliver(p)
            else:
                self.core.put(frame)


def require_dp() -> None:
    """Skip the test (fail it under BNGPOD_REQUIRE_POD=1) without root or a built bng-dp."""
    from . import podenv  # pytest's: not for the bench

    podenv.require("bng-cp with bng-dp", podenv.missing(tools=(), files=(BNG_DP,)))


def lab_cp_doc(instances: set[int]) -> dict:
    """The lab pod's cp.yaml reduced to the given instances, their line groups and pools."""
    doc = yaml.safe_load((LAB / "cp.yaml").read_text())
    doc["instances"] = [i for i in doc["instances"] if i["id"] in instances]
    groups = {g for i in doc["instances"] for g in i["line_groups"]}
    doc["line_groups"] = [g for g in doc["line_groups"] if g["name"] in groups]
    doc["pools"] = [p for p in doc["pools"] if p["line_group"] in groups]
    if "ipv6_pools" in doc:
        doc["ipv6_pools"] = [p for p in doc["ipv6_pools"] if p["line_group"] in groups]
    return doc


def wait(pred, timeout: float, what: str, interval: float = 0.1):
    """pred()'s first true value, polled every `interval` s; AssertionError after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout} s")
        time.sleep(interval)


def ctl(work, *args: str) -> object:
    """bngcpctl's JSON answer on bng-cp's control socket work/cp.sock; None when it failed."""
    out = subprocess.run(
        [str(BNGCPCTL), "--socket", str(work / "cp.sock"), *args, "-o", "json"],
        capture_output=True, text=True, timeout=10,
    )  # fmt: skip
    if out.returncode != 0:
        return None
    return json.loads(out.stdout)


def instances(work) -> dict[str, str]:
    """bng-cp's DP instances by name, each with its association state."""
    v = ctl(work, "instances")
    return {i["name"]: i["state"] for i in v} if v else {}


def dp_sessions(rig) -> list[dict]:
    """bng-dp's sessions, each as its telemetry shows it (a session deleted between the list
    and its own query is left out: telemetry then answers without its fields)."""
    ids = rig.telemetry("/bng/sessions").get("ids", [])
    got = (rig.telemetry(f"/bng/sessions,{i}") for i in ids)
    return [s for s in got if isinstance(s, dict) and "pppoe_sid" in s]


def stop(proc: subprocess.Popen | None, timeout: float) -> None:
    """SIGTERM to a child still running, SIGKILL when it has not exited within `timeout` s."""
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def send_upstream(wire: WireDp, client, ipv4: str, data: bytes):
    """A UDP packet from the CPE at `ipv4` in its PPPoE session; the packet as bng-dp sends
    it out on the core side to the router (decapsulated)."""
    payload = IP(src=ipv4, dst=INTERNET) / UDP(sport=4000, dport=53) / Raw(data)
    client.send(client.ppp_frame(IPV4, bytes(payload)))

    def core_frame():
        while True:
            try:
                f = wire.core.get(timeout=0.2)
            except queue.Empty:
                return None
            p = Ether(f)
            if IP in p and p[IP].src == ipv4 and p[Ether].dst == ROUTER_MAC:
                return p

    return wait(core_frame, 5, "upstream packet on the core side")


def send_downstream(wire: WireDp, client, ipv4: str, core_mac: str, data: bytes):
    """A UDP packet from the router to `core_mac` for the subscriber at `ipv4`; what the CPE
    receives of it in its PPPoE session."""
    wire.send_core(
        bytes(Ether(src=ROUTER_MAC, dst=core_mac) / IP(src=INTERNET, dst=ipv4) / UDP(sport=53, dport=4000) / Raw(data))
    )
    return client.expect(lambda rx: rx.proto == IPV4, timeout=5, what="downstream IPv4 in the session")

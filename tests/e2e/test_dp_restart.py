"""kill -9 one bng-dp and start it again: its sessions come back from the control plane
without a re-dial (same PPPoE session id, AC MAC and address; the client sends no PADI and
gets no PADT), and the traffic gap is measured (UDP echo every 50 ms) and printed."""

import os
import signal
import threading
import time

import pytest
from harness.pppoe_client import IPV4
from scapy.layers.inet import IP, UDP

from bngpod import emu

from . import pod as p

pytestmark = pytest.mark.pod
INTERVAL = 0.05
MAX_GAP = 5.0


@pytest.fixture(scope="module")
def subs(lab_pod):
    lines = {name: p.AccessLine(lab_pod.port(name)) for name in ("access1", "access3")}
    try:
        out = {}
        for i, (group, port) in enumerate((("lg3", "access3"), ("lg1", "access1"))):
            c = p.client(lines[port], p.mac(5, i + 1), p.user_on(group, port))
            res, session = p.dial(c)
            p.udp_echo(c, b"warm up")
            out[group] = {"client": c, "res": res, "session": session, "line": lines[port]}
        yield out
    finally:
        for line in lines.values():
            line.close()


class EchoStream:
    """UDP echo requests every INTERVAL in a session, each with its sequence number; the
    answers' arrival times are read from the access line's tap."""

    def __init__(self, c, line: p.AccessLine, sport: int):
        self.c, self.line, self.sport = c, line, sport
        self.sent = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self.t0 = time.monotonic()
        self._thread.start()

    def stop(self):
        self._stop.set()
        self._thread.join(5)
        self.t1 = time.monotonic()

    def _run(self):
        nxt = time.monotonic()
        while not self._stop.is_set():
            payload = b"gap %08d" % self.sent
            pkt = IP(src=self.c.ipv4, dst=emu.INET_HOST) / UDP(sport=self.sport, dport=7) / payload
            self.c.send(self.c.ppp_frame(IPV4, bytes(pkt)))
            self.sent += 1
            nxt += INTERVAL
            self._stop.wait(max(0.0, nxt - time.monotonic()))

    def answers(self) -> list[p.Frame]:
        return self.line.frames(self.t0, lambda f: f.dst == self.c.mac and b"gap " in f.raw)

    def longest_gap(self) -> float:
        times = [self.t0] + [f.t for f in self.answers()] + [self.t1]
        return max(b - a for a, b in zip(times, times[1:], strict=False))


def test_killed_dp_gets_its_sessions_back_without_redial(lab_pod, subs):
    victim, other = subs["lg3"], subs["lg1"]
    c, res = victim["client"], victim["res"]
    sent_before = len(c.sent)
    old_pid = emu.dp_pid("dp3")
    assert old_pid is not None
    repushed = p.cp_metrics().get("bngcp_sessions_repushed_total", 0.0)

    stream = EchoStream(c, victim["line"], 40500)
    stream.start()
    time.sleep(1.0)
    os.kill(old_pid, signal.SIGKILL)
    t_kill = time.monotonic()
    new_pid = emu.restart_dp("dp3")
    t_started = time.monotonic()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not [f for f in stream.answers() if f.t > t_started]:
        time.sleep(0.05)
    t_back = next((f.t for f in stream.answers() if f.t > t_started), None)
    time.sleep(1.0)
    stream.stop()
    gap = stream.longest_gap()
    got = len(stream.answers())
    print(
        f"\nbng-dp dp3 kill -9 and restart: longest traffic gap {gap:.2f} s "
        f"(restart took {t_started - t_kill:.2f} s, traffic back {((t_back or t_kill) - t_kill):.2f} s after the kill; "
        f"{got} of {stream.sent} echoes answered at {INTERVAL * 1000:.0f} ms)"
    )
    assert t_back is not None, "traffic did not come back within 20 s"
    assert gap < MAX_GAP, f"traffic gap {gap:.2f} s"

    # the same session, not a new one: no discovery from the client, no PADT to it
    assert new_pid != old_pid and emu.dp_pid("dp3") == new_pid
    assert p.sent_discovery(c, since=sent_before) == [], "the client re-dialled"
    assert not c.padt_received.is_set() and not c.terminated_by_peer.is_set()
    session = p.wait_session(c.user, lambda s: s["state"] == "established")
    keep = ("id", "pppoe_session_id", "ipv4", "mac", "instance", "acct_session_id")
    assert {k: session[k] for k in keep} == {k: victim["session"][k] for k in keep}
    dp = p.dp_session("dp3", res.ipv4)
    assert dp is not None and dp["state"] == "up"
    assert (dp["pppoe_sid"], dp["mac"], dp["stag"], dp["ctag"]) == (res.session_id, c.mac, c.stag, c.ctag)
    after_restart = [f for f in stream.answers() if f.t > t_started]
    assert after_restart and all(f.src == res.ac_mac and f.pppoe_sid == res.session_id for f in after_restart)
    assert p.cp_metrics()["bngcp_sessions_repushed_total"] >= repushed + 1
    # another instance's subscriber did not notice
    p.udp_echo(other["client"], b"dp1 unaffected")
    assert not other["client"].padt_received.is_set()

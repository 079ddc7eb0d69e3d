"""Failover of the whole pod, end to end: the failover pod (topology/examples/failover.yaml,
the lab and a standby dp5) in controller mode (`bngpod up --controller`): the switch driven
by the ONOS application's own code, bng-cp following its placement.

Subscribers dialled on lg1 (dp1) send UDP echoes every 50 ms and, as a CPE does, an LCP
Echo-Request every second. Then dp1 is killed with SIGKILL and not restarted: its switch
port stays up, so only PFCP heartbeats tell (control_plane.heartbeat_* of the pod file:
250 ms, 3 tries of 250 ms). bng-cp declares dp1 dead to the app, the app moves lg1 to the
standby (the most headroom), re-steers the switch, and bng-cp adopts lg1 on dp5 with its
sessions. The test checks, per subscriber: the same PPPoE session id, AC MAC, address and
Acct-Session-Id; no PADT, no PADI or PADR; traffic back; no LCP Echo-Request of the CPE
left unanswered three times in a row (a CPE's usual failure count); Acct-Input/Output-Octets
never going down across the move, and the usage lost at most one URR period of the traffic
(what dp1 counted after its last report). It prints the detection time (kill to bng-cp's
health report reaching the app) and kill-to-traffic."""

import os
import signal
import threading
import time

import pytest
from harness import podenv
from harness.pppoe_client import ECHO_REP, ECHO_REQ, LCP

from bngpod import emu, validate

from . import pod as p
from . import podfix

pytestmark = pytest.mark.pod

FAILOVER = podenv.REPO / "topology" / "examples" / "failover.yaml"
SUBSCRIBERS = 3
INTERVAL = 0.05  # UDP echo period per subscriber
URR = 2.0  # the URR period (interim) bng-cp gives the DPs: usage of dp1 since its last report is lost
LCP_ECHO = 1.0  # the CPEs' LCP Echo-Request period
LCP_FAILURES = 3  # unanswered in a row before a CPE hangs up (pppd's lcp-echo-failure is often 3..5)
DETECT_TARGET = 1.0  # seconds from the kill to the app hearing of it (docs/benchmarks.md)
BACK_BOUND = 3.0  # seconds from the kill to traffic on every session (measured: about 1.1)
IP_LEN = 20 + 8 + 12  # an echo datagram: IPv4 + UDP + "gap %08d"


@pytest.fixture(scope="module")
def pod():
    podenv.require("E2E failover", podenv.missing(podenv.POD_TOOLS) or emu.controller_missing())
    emu.down(quiet=True)
    pod = validate.load(FAILOVER)
    t0 = time.monotonic()
    emu.up(pod, str(FAILOVER), subscribers=8, cp_options={"interim": f"{URR:.0f}s"}, controller=True)
    print(f"\nfailover pod up with its controller in {time.monotonic() - t0:.1f} s")
    try:
        yield pod
    finally:
        emu.down(quiet=True)


class LcpEcho:
    """A CPE's LCP keepalive: an Echo-Request every LCP_ECHO seconds, each with its own id;
    replies are looked up in the client's received frames."""

    def __init__(self, c):
        self.c = c
        self.sent: list[int] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self._thread.start()

    def stop(self):
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(5)

    def _run(self):
        while not self._stop.is_set():
            ident = self.c.next_id()
            self.sent.append(ident)
            self.c.send_ppp(LCP, ECHO_REQ, ident, self.c.magic.to_bytes(4, "big"))
            self._stop.wait(LCP_ECHO)

    def longest_unanswered_run(self) -> int:
        answered = {r.ppp_id for r in list(self.c.rx) if r.proto == LCP and r.ppp_code == ECHO_REP}
        run = longest = 0
        for ident in self.sent[:-1]:  # the last may still be on its way
            run = 0 if ident in answered else run + 1
            longest = max(longest, run)
        return longest


def up_octets(pod, asid):
    return [(podfix.octets(r, "Input"), podfix.octets(r, "Output")) for r in podfix.accounting(pod, asid)]


def test_kill_9_of_an_instance_moves_its_sessions_to_the_standby(pod):
    line = p.AccessLine(pod.port("access1"))
    subs = []
    try:
        users = [u for u in p.users() if u["line_group"] == "lg1" and u["port"] == "access1"][:SUBSCRIBERS]
        assert len(users) == SUBSCRIBERS
        for i, u in enumerate(users):
            c = p.client(line, p.mac(9, i + 1), u)
            res, session = p.dial(c)
            assert session["instance"] == 1, session
            subs.append({"c": c, "res": res, "session": session, "sent_before": len(c.sent)})
        for i, s in enumerate(subs):
            s["stream"] = p.EchoStream(s["c"], line, 40600 + i, INTERVAL)
            s["lcp"] = LcpEcho(s["c"])
            s["stream"].start()
            s["lcp"].start()
        time.sleep(3 * URR)  # traffic flows, dp1 reports usage a few times
        before = {s["session"]["acct_session_id"]: up_octets(pod, s["session"]["acct_session_id"]) for s in subs}

        dp1 = emu.dp_pid("dp1")
        assert dp1 is not None
        t_kill = time.monotonic()
        t_kill_wall = time.time()
        os.kill(dp1, signal.SIGKILL)

        # the app hears of it from bng-cp, moves lg1 to the standby, re-steers the switch
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            events = emu.controller_events()
            health = [e for e in events if e.get("event") == "request" and e["path"].endswith("/instances/1/health")
                      and e["t"] >= t_kill_wall * 1000]  # fmt: skip
            moved = [e for e in events if e.get("event") == "placement" and e["type"] == "PLACEMENT_CHANGED"
                     and e["groups"].get("lg1") == 5 and e["t"] >= t_kill_wall * 1000]  # fmt: skip
            if health and moved:
                break
            time.sleep(0.05)
        assert health, "bng-cp's health report never reached the app"
        assert moved, "lg1 was not moved to the standby dp5"
        detect = health[0]["t"] / 1000 - t_kill_wall
        status, placement = emu.controller_api(pod, "GET", "/placement", user="viewer")
        assert status == 200
        dead = next(i for i in placement["instances"] if i["id"] == 1)
        assert not dead["available"] and "PFCP heartbeats lost" in dead["reason"], dead
        lg1 = next(g for g in placement["groups"] if g["lineGroup"] == "lg1")
        assert lg1["instance"] == 5 and lg1["reasonKind"] == "MOVED" and "dp1 (id 1) unavailable" in lg1["reason"]
        steer = "in_port=1,dl_vlan=100 actions=output:5101"  # lg1's first S-tag to dp5's port
        deadline = time.monotonic() + 10
        while steer not in emu.ofctl("dump-flows", emu.BRIDGE, "--no-stats").stdout:
            assert time.monotonic() < deadline, "the switch was not re-steered to dp5"
            time.sleep(0.05)

        # traffic comes back on every session
        t_back = {}
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and len(t_back) < len(subs):
            for i, s in enumerate(subs):
                after = [f for f in s["stream"].answers() if f.t > t_kill]
                if after and i not in t_back:
                    t_back[i] = after[0].t
            time.sleep(0.05)
        time.sleep(2 * URR)  # the sessions run on dp5 for a while, dp5 reports usage
        for s in subs:
            s["stream"].stop()
            s["lcp"].stop()
        back = [t_back.get(i, float("inf")) - t_kill for i in range(len(subs))]
        gaps = [s["stream"].longest_gap() for s in subs]
        print(
            f"\ndp1 kill -9: detected (bng-cp's report at the app) {detect * 1000:.0f} ms after the kill; lg1 "
            f"moved to dp5; traffic back {', '.join(f'{b:.2f}' for b in back)} s after the kill; longest echo gap "
            f"{max(gaps):.2f} s ({INTERVAL * 1000:.0f} ms echoes, {SUBSCRIBERS} sessions)"
        )
        assert all(b < BACK_BOUND for b in back), f"traffic not back on every session within {BACK_BOUND} s: {back}"
        assert detect < DETECT_TARGET + 0.5, f"detection took {detect:.2f} s"

        for s in subs:
            c, res, session = s["c"], s["res"], s["session"]
            # the same session on the standby: no discovery, no PADT
            assert p.sent_discovery(c, since=s["sent_before"]) == [], f"{c.user} re-dialled"
            assert not c.padt_received.is_set() and not c.terminated_by_peer.is_set()
            now = p.wait_session(c.user, lambda x: x["instance"] == 5 and x["state"] == "established")
            keep = ("id", "pppoe_session_id", "ipv4", "mac", "acct_session_id")
            assert {k: now[k] for k in keep} == {k: session[k] for k in keep}
            dp = p.dp_session("dp5", res.ipv4)
            assert dp is not None and dp["state"] == "up"
            assert (dp["pppoe_sid"], dp["mac"]) == (res.session_id, c.mac)
            after = [f for f in s["stream"].answers() if f.t > t_kill]
            assert after and all(f.src == res.ac_mac and f.pppoe_sid == res.session_id for f in after)
            assert s["lcp"].longest_unanswered_run() < LCP_FAILURES, "the CPE would have declared LCP dead"

        # accounting: totals never go down across the move; what is lost is at most one URR period
        for s in subs:
            asid = s["session"]["acct_session_id"]
            assert s["c"].terminate(), f"{s['c'].user} did not hang up cleanly"
            stop = podfix.wait_accounting(pod, asid, "Stop")
            records = up_octets(pod, asid)
            assert len(records) > len(before[asid]) + 1, "no interim after the move"
            for (i0, o0), (i1, o1) in zip(records, records[1:], strict=False):
                assert i1 >= i0 and o1 >= o0, f"{asid}: accounting went down: {records}"
            answered = len(s["stream"].answers())
            per_period = URR / INTERVAL * IP_LEN
            final_in, final_out = podfix.octets(stop, "Input"), podfix.octets(stop, "Output")
            # every answer was forwarded up and down by a DP; at most one URR period of dp1's count is lost
            assert final_out >= answered * IP_LEN - per_period - 4 * IP_LEN, (final_out, answered)
            assert final_in >= answered * IP_LEN - per_period - 4 * IP_LEN, (final_in, answered)
            assert final_in <= s["stream"].sent * IP_LEN + 100 * IP_LEN, (final_in, s["stream"].sent)
    finally:
        for s in subs:
            for part in ("stream", "lcp"):
                if part in s:
                    s[part].stop()
        line.close()

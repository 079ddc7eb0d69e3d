"""The SEBA identity and rate path through the whole emulated lab pod (issue 16, docs/seba.md):
real bng-dp, real bng-cp and real FreeRADIUS, with bng-cp's `onos` section pointing at
tests/harness/fakeonos.py in the management namespace, standing in for org.bngpod.app
(placement: every line group where lab.yaml puts it) and org.bngpod.seba (the subscribers
table as the Java app writes it from SADIS, its teardown requests, POST /pppoe-events
checked as its resource checks it). The ONOS runtime cannot run here; the Java side of the
same table and requests is tested with ONOS's test kit (voltha-adapters/seba) and the wire
format by the contract files (tests/contract/onos/seba-*.json).

One subscriber whose line the SEBA table maps dials with the independent scapy PPPoE client
through the switch fold and bng-dp; the test asserts:
- FreeRADIUS's Access-Request (auth-detail) and Accounting-Start carry the SADIS circuit id
  and remote id (BBF 3561/1, 3561/2) and NAS-Port-Id;
- the session's downstream rate, measured on the access line, is the SEBA downstream
  profile's peak (bng-dp's shaper within 5 %; measured -15 %..+5 %, within 5 % on a quiet
  host; not lab.yaml's silver 20 Mbit/s); the upstream policer passes the upstream
  profile's peak (measured -15 %..+5 %; not silver's 10 Mbit/s);
- a Lost-Carrier teardown request (what org.bngpod.seba posts after UNI_REMOVED and its
  hold-down) ends the session: PADT at the subscriber, the session gone from bng-cp and
  bng-dp, an Accounting-Stop with Acct-Terminate-Cause Lost-Carrier;
- SESSION_INIT and AUTH_SUCCESS posted for bng.pppoe, and the session reported to
  org.bngpod.app with the SEBA rates, and at its end with the packets bng-dp's policer and
  HQoS dropped of it, their octets (about the test packets' size each) and the control
  frames bng-cp counted (bng.stats's upDropPackets, downDropPackets, upDropBytes,
  downDropBytes, controlPackets).

Rates are Ethernet frame rates on the access line with FCS (docs/dp/hqos.md,
docs/dp/forwarding.md): a PPPoE session frame is QinQ + PPPoE + PPP, 30 bytes before IPv4."""

from __future__ import annotations

import socket
import struct
import threading
import time

import pytest
from harness import ipoe_pod as ip
from harness import podenv
from harness.fakeonos import CP_PASSWORD, CP_USER, FakeOnos
from harness.pppoe_client import IPV4, PppoeClient
from harness.rawaccess import RawAccess
from scapy.layers.inet import IP, UDP

from bngpod import emu, radius
from bngpod.rawsock import in_netns

pytestmark = pytest.mark.pod

UNI = "BBSM00000001-1"
CIRCUIT_ID, REMOTE_ID = "olt1 pon 0/1 onu 1 uni 1", "BBSM00000001"
MAC = "02:5e:ba:00:00:01"
# The SEBA app's values (bit/s, bytes) of two SADIS profiles (docs/seba.md, "What maps"):
# MEF "Down12M" (cir 4000, cbs 500, eir 8000, ebs 500 kbit/s, kbit) down; IETF "Up8M"
# (cir 2000, cbs 500, pir 8000, pbs 500) up. Both differ from lab.yaml's silver profile of
# lg1 (20 Mbit/s down, 10 Mbit/s up), so the rates measured are the SEBA ones.
DOWN_PEAK, DOWN_GUARANTEED = 12_000_000, 4_000_000
UP_PEAK, UP_GUARANTEED = 8_000_000, 2_000_000
SILVER_DOWN, SILVER_UP = 20_000_000, 10_000_000
PPPOE_HEADER = 30  # Ethernet 14 + S-tag 4 + C-tag 4 + PPPoE 6 + PPP 2, before the IPv4 packet
FCS = 4
IP_SIZE = 1400
DOWN_PORT, UP_PORT = 40310, 40311


# The subscriber: a line of lg1 (access1, S-tags 100-149). Its FreeRADIUS entry gives no
# Filter-Id and no rate (the generated users get their group's profile as Filter-Id, and
# RADIUS wins over SADIS, docs/seba.md), so the SEBA rates are the session's.
SUBSCRIBER = {
    "user": "seba-1",
    "password": "pw-seba-1",
    "line_group": "lg1",
    "port": "access1",
    "stag": 100,
    "ctag": 900,
}


def sadis_line(u: dict) -> dict:
    """The subscribers-table line org.bngpod.seba writes for the user's line (the shape of
    tests/contract/onos/seba-subscribers.json)."""
    return {
        "accessPort": u["port"],
        "stag": u["stag"],
        "ctag": u["ctag"],
        "lineGroup": u["line_group"],
        "uni": {"deviceId": "of:00000000000000a1", "port": "256", "name": UNI},
        "onuSerial": "BBSM00000001",
        "serviceName": "hsia",
        "circuitId": CIRCUIT_ID,
        "remoteId": REMOTE_ID,
        "nasPortId": UNI,
        "down": {
            "profile": "Down12M",
            "rate": DOWN_PEAK,
            "guaranteed": DOWN_GUARANTEED,
            "peakBurst": 125_000,
            "committedBurst": 62_500,
        },
        "up": {
            "profile": "Up8M",
            "rate": UP_PEAK,
            "guaranteed": UP_GUARANTEED,
            "peakBurst": 62_500,
            "committedBurst": 62_500,
        },
    }


def onos_section(url: str) -> str:
    """cp.yaml's `onos` section for the fake ONOS (as the controller mode writes it for its
    controller, topology/bngpod/controller.py)."""
    return (
        "# tests/emulated/test_seba_pod.py: the fake ONOS (tests/harness/fakeonos.py)\n"
        "onos:\n"
        f"  url: {url}\n"
        f"  username: {CP_USER}\n"
        f"  password: {CP_PASSWORD}\n"
        "  cp_name: cp-seba\n"
        "  placement_wait: 30s\n"
        "  poll_interval: 200ms\n"
        "  timeout: 2s\n"
    )


@pytest.fixture(scope="module")
def seba(pod_prereqs, tmp_path_factory):
    """The lab pod, bng-cp restarted with an `onos` section pointing at a fake ONOS that
    listens on the control plane's address in bngpod-mgmt (the emulated pod writes no
    `onos` section outside its controller mode, so the test appends one to the generated
    cp.yaml and starts bng-cp again; bng-cp pulls the table at start)."""
    podenv.require("SEBA emulated pod", podenv.missing())
    users = tmp_path_factory.mktemp("seba") / "radius-users"
    users.write_text(radius.users_file({SUBSCRIBER["user"]: (SUBSCRIBER["password"], {})}))
    with podenv.lab_pod(users_file=str(users)) as pod:
        user = SUBSCRIBER
        with in_netns(emu.MGMT_NS):
            onos = FakeOnos(str(pod.control_plane.address))
        onos.start()
        try:
            onos.place(
                1,
                {g.name: i.id for i in pod.instances for g in i.groups},
                {i.id: i.name for i in pod.instances},
            )
            onos.seba_subscribers = [sadis_line(user)]
            emu.stop_cp()
            cp_yaml = emu.generated_dir() / "cp.yaml"
            cp_yaml.write_text(cp_yaml.read_text() + onos_section(onos.url))
            emu.start_cp()
            yield pod, onos, user
        finally:
            onos.close()


class MeteredAccess(RawAccess):
    """RawAccess that records downstream PPPoE session frames carrying UDP to DOWN_PORT
    (time, frame length) before any decoding, so a 12 Mbit/s stream costs no scapy."""

    def __init__(self, port):
        self.down: list[tuple[float, int]] = []
        super().__init__(port)

    def on_frame(self, frame: bytes) -> None:
        if (
            len(frame) >= PPPOE_HEADER + 28
            and frame[20:22] == b"\x88\x64"
            and frame[28:30] == b"\x00\x21"
            and frame[PPPOE_HEADER + 9] == 17
        ):
            ihl = (frame[PPPOE_HEADER] & 0x0F) * 4
            if struct.unpack_from("!H", frame, PPPOE_HEADER + ihl + 2)[0] == DOWN_PORT:
                self.down.append((time.monotonic(), len(frame)))
                return
        super().on_frame(frame)


def frame_rate(frames: list[tuple[float, int]], t0: float, t1: float, extra: int) -> tuple[float, int]:
    """bit/s of the frames seen in [t0, t1] (each length + extra octets), and how many."""
    got = [f for f in frames if t0 <= f[0] <= t1]
    if len(got) < 2:
        return 0.0, len(got)
    span = got[-1][0] - got[0][0]
    return sum(n + extra for _t, n in got[1:]) * 8 / span, len(got)


def upstream_rate(c: PppoeClient, line: MeteredAccess, src: str, rate_bps: float, seconds: float = 4.0,
                  warmup: float = 1.0) -> tuple[float, int, int]:  # fmt: skip
    """Offer UDP upstream at rate_bps (access frames with FCS) to the inet host; the rate of
    what reached it, as access frames with FCS, after warmup; datagrams received, sent."""
    payload = b"\x5a" * (IP_SIZE - 28)
    frame = bytes(
        c.ppp_frame(IPV4, bytes(IP(src=src, dst=emu.INET_HOST) / UDP(sport=UP_PORT, dport=UP_PORT) / payload))
    )
    assert len(frame) == PPPOE_HEADER + IP_SIZE, len(frame)
    with in_netns(emu.INET_NS):
        rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rx.bind((emu.INET_HOST, UP_PORT))
    rx.settimeout(0.2)
    got: list[tuple[float, int]] = []
    stop = threading.Event()

    def receive() -> None:
        while not stop.is_set():
            try:
                n = len(rx.recv(4096))
            except TimeoutError:
                continue
            got.append((time.monotonic(), PPPOE_HEADER + 28 + n))

    t = threading.Thread(target=receive, daemon=True)
    t.start()
    pps = rate_bps / ((len(frame) + FCS) * 8)
    sent = 0
    try:
        t0 = time.monotonic()
        while (now := time.monotonic()) - t0 < seconds:
            due = int((now - t0) * pps) + 1
            while sent < due:
                line.send_frame(frame)
                sent += 1
            time.sleep(0.0005)
        t1 = time.monotonic()
        time.sleep(0.5)
    finally:
        stop.set()
        t.join(2)
        rx.close()
    rate, n = frame_rate(got, t0 + warmup, t1, FCS)
    return rate, n, sent


def auth_requests(pod, user: str) -> list[radius.Record]:
    path = emu.run_dir() / "radius" / pod.radius.servers[0].name / "auth-detail"
    recs = radius.parse_detail(path.read_text(errors="replace")) if path.exists() else []
    return [r for r in recs if r.get("User-Name") == user]


def text(v: str | None) -> str | None:
    """A RADIUS string as FreeRADIUS's detail file writes it (plain, or 0x... for octets)."""
    if v and v.startswith("0x"):
        return bytes.fromhex(v[2:]).decode()
    return v


def test_sadis_identity_rates_and_lost_carrier(seba):
    pod, onos, u = seba
    onos.wait(lambda: onos.seba_pulls, timeout=20, what="bng-cp's first pull of the subscribers table")
    onos.wait(lambda: onos.teardown_polls, timeout=20, what="bng-cp's first poll of the teardown requests")
    time.sleep(0.5)  # the answer decoded and stored
    port = pod.port(u["port"])
    with MeteredAccess(port) as line:
        c = PppoeClient(
            line, MAC, u["stag"], u["ctag"], user=u["user"], password=u["password"], auth="pap",
            outer_tpid=port.tpid,
        )  # fmt: skip
        res = c.dial(timeout=20)
        assert res.ok, res.reason
        s = ip.cp_session(u["user"])
        asid = s["acct_session_id"]
        assert s["instance"] == 1 and s["ipv4"] == res.ipv4, s

        # the SADIS identity in FreeRADIUS's Access-Request and Accounting-Start
        req = auth_requests(pod, u["user"])[-1]
        assert text(req.get("ADSL-Agent-Circuit-Id")) == CIRCUIT_ID, req
        assert text(req.get("ADSL-Agent-Remote-Id")) == REMOTE_ID, req
        assert req.get("NAS-Port-Id") == UNI, req
        start = ip.wait_accounting(pod, asid, "Start")
        assert text(start.get("ADSL-Agent-Circuit-Id")) == CIRCUIT_ID, start
        assert text(start.get("ADSL-Agent-Remote-Id")) == REMOTE_ID, start
        assert start.get("NAS-Port-Id") == UNI, start
        dp = ip.dp_session("dp1", res.ipv4)
        assert dp is not None, f"dp1 holds no session of {res.ipv4}"
        print(f"\nSEBA session {asid} on dp1: {dp}")
        # bng-dp's pipe runs at the SEBA peak (the rate rte_sched could set), not silver's
        assert ip.within(dp["hqos_rate_bps"], DOWN_PEAK), dp

        # downstream: shaped to the SEBA profile's peak
        offered = 1.5 * DOWN_PEAK
        t0 = time.monotonic()
        sent = ip.send_downstream(res.ipv4, DOWN_PORT, offered, 4.0, ip_size=IP_SIZE)
        t1 = time.monotonic()
        time.sleep(0.3)
        down, frames = frame_rate(line.down, t0 + 1.0, t1, FCS)
        print(
            f"SEBA downstream (Down12M, peak {DOWN_PEAK / 1e6:g} Mbit/s): offered {offered / 1e6:.1f} Mbit/s "
            f"({sent} datagrams), measured {down / 1e6:.3f} Mbit/s over {frames} frames "
            f"({(down - DOWN_PEAK) / DOWN_PEAK:+.2%})"
        )
        assert frames > 100, "next to nothing arrived downstream"
        # Within 5% on a quiet host (-1.1% measured, docs/seba.md); a loaded two-core host
        # delivers less than the shaper allows (-8% seen under a parallel build), so the
        # test takes the measured rate loosely and the shaper's own rate (above) at 5%.
        # Either bound still tells the profile's 12 Mbit/s from lab.yaml's 20.
        assert 0.85 * DOWN_PEAK <= down <= 1.05 * DOWN_PEAK, f"downstream {down:.0f} bit/s, SEBA peak {DOWN_PEAK}"

        # upstream: policed to the SEBA profile's peak
        offered = 1.5 * UP_PEAK
        up, frames, sent = upstream_rate(c, line, res.ipv4, offered)
        print(
            f"SEBA upstream (Up8M, peak {UP_PEAK / 1e6:g} Mbit/s): offered {offered / 1e6:.1f} Mbit/s "
            f"({sent} frames), measured {up / 1e6:.3f} Mbit/s over {frames} datagrams "
            f"({(up - UP_PEAK) / UP_PEAK:+.2%})"
        )
        assert frames > 100, "next to nothing arrived upstream"
        assert 0.85 * UP_PEAK <= up <= 1.05 * UP_PEAK, (
            f"upstream {up:.0f} bit/s, SEBA peak {UP_PEAK}"
        )  # not silver's 10

        # the UNI stayed removed past the hold-down: org.bngpod.seba asks for Lost-Carrier
        onos.seba_teardown(u["port"], u["stag"], u["ctag"], UNI, "Lost-Carrier")
        assert c.padt_received.wait(10), "no PADT after the teardown request"
        # Lost-Carrier: the subscriber is unreachable, so no LCP Terminate-Request first
        assert not c.terminated_by_peer.is_set(), "an LCP Terminate-Request came for Lost-Carrier"
        ip.wait_cp_gone(u["user"])
        ip.wait_dp_gone("dp1", res.ipv4)
        stop = ip.wait_accounting(pod, asid, "Stop")
        assert stop["Acct-Terminate-Cause"] == "Lost-Carrier", stop
        assert stop.get("NAS-Port-Id") == UNI and text(stop.get("ADSL-Agent-Circuit-Id")) == CIRCUIT_ID, stop
    # bng-cp's PPPoE steps for bng.pppoe reached the SEBA app's resource, on the mapped line
    line_key = {"accessPort": u["port"], "stag": u["stag"], "ctag": u["ctag"], "mac": MAC}
    onos.wait(lambda: len(onos.pppoe_events) >= 2, what="SESSION_INIT and AUTH_SUCCESS")
    assert onos.pppoe_events[:2] == [
        dict(line_key, type="SESSION_INIT", pppoeId=0),
        dict(line_key, type="AUTH_SUCCESS", pppoeId=res.session_id),
    ], onos.pppoe_events
    assert onos.pppoe_refused == [], onos.pppoe_refused
    # and the session as reported to org.bngpod.app, with the SEBA rates (checked there as
    # the app's SessionCodec checks it)
    onos.wait(lambda: any(e["event"] == "down" for e in onos.events), what="the session's down event")
    up = next(e["session"] for e in onos.events if e["event"] == "up")
    assert (up["id"], up["downRate"], up["upRate"]) == (asid, DOWN_PEAK, UP_PEAK), up
    # its final usage: the frames bng-dp's policer and HQoS dropped of it (offered at 1.5
    # times the peaks; the DP's Dropped Packets IE) and its control frames bng-cp counted,
    # what bng.stats carries as upDropPackets, downDropPackets and controlPackets; and the
    # dropped packets' octets (upDropBytes, downDropBytes): IP packets as the DP counts
    # them, so about IP_SIZE each (every dropped packet is a test stream's)
    down = next(e["session"] for e in onos.events if e["event"] == "down")
    usage = down["usage"]
    assert usage["upDropPackets"] > 100 and usage["downDropPackets"] > 100, usage
    for d in ("up", "down"):
        pkts, octets = usage[f"{d}DropPackets"], usage[f"{d}DropBytes"]
        assert 0.9 * pkts * IP_SIZE <= octets <= 1.1 * pkts * IP_SIZE, (d, usage)
    assert usage["controlPackets"] >= 10, usage
    print(f"final usage reported: {usage}")

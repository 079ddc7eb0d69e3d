"""E2E on the lab pod with the scapy client dialling through the whole pod: downstream
shaping to the QoS profile, RADIUS accounting (Start, Interim, Stop) matching the traffic,
and a CoA that changes the downstream rate live.

Rates are compared at the profile's layer: Ethernet frames on the access line with FCS
(podfix: the raw socket's frame length + 4). Accounting is compared at the DP's layer:
IPv4 packets as forwarded (docs/cp/radius.md "Accounting", docs/dp/datapath.md)."""

import struct
import time

import pytest
from harness.pppoe_client import IPV4
from scapy.layers.inet import IP, UDP

from bngpod import emu

from . import podfix
from .podfix import ACCESS_HEADER, FCS, Line, dial, measure_downstream, within

pytestmark = pytest.mark.pod

INTERIM_S = 5
lab_pod = podfix.lab_pod_fixture(interim=f"{INTERIM_S}s")

SILVER_DOWN = 20_000_000  # lab.yaml qos_profiles silver downstream rate
SILVER_UP = 10_000_000
OFFERED = 30_000_000  # 1.5 x the profile: the shaper must drop the excess


def test_downstream_shaping_holds_the_profile_rate(lab_pod):
    with Line(lab_pod.port("access1")) as line:
        client, addr = dial(line, lab_pod, "lg1-1", "02:5b:00:00:0e:01")
        assert podfix.in_pool(lab_pod, "lg1", addr)
        assert podfix.cp_session("lg1-1")["instance"] == 1
        rate, frames, sent = measure_downstream(line, client, addr, OFFERED)
        print(
            f"\nshaping lg1-1 (silver {SILVER_DOWN / 1e6:.0f} Mbit/s): offered {OFFERED / 1e6:.1f} Mbit/s "
            f"({sent} datagrams), measured {rate / 1e6:.3f} Mbit/s access-frame rate over {frames} frames "
            f"({(rate - SILVER_DOWN) / SILVER_DOWN:+.2%})"
        )
        assert frames > 100, "next to nothing arrived"
        assert within(rate, SILVER_DOWN), f"measured {rate:.0f} bit/s, profile {SILVER_DOWN}"
        client.terminate()


def test_coa_changes_the_downstream_rate_live(lab_pod):
    new_rate = 10_000_000
    with Line(lab_pod.port("access1")) as line:
        client, addr = dial(line, lab_pod, "lg1-2", "02:5b:00:00:0e:02")
        asid = podfix.cp_session("lg1-2")["acct_session_id"]
        before, frames_b, _ = measure_downstream(line, client, addr, OFFERED)
        out = podfix.coa(lab_pod, {"Acct-Session-Id": asid, "WISPr-Bandwidth-Max-Down": new_rate})
        assert "CoA-ACK" in out, out
        after, frames_a, _ = measure_downstream(line, client, addr, OFFERED)
        print(
            f"\nCoA lg1-2 ({asid}): before {before / 1e6:.3f} Mbit/s ({frames_b} frames, profile "
            f"{SILVER_DOWN / 1e6:.0f}), after WISPr-Bandwidth-Max-Down={new_rate} {after / 1e6:.3f} Mbit/s "
            f"({frames_a} frames, {(after - new_rate) / new_rate:+.2%})"
        )
        assert within(before, SILVER_DOWN), f"before the CoA: {before:.0f} bit/s"
        assert within(after, new_rate), f"after the CoA: {after:.0f} bit/s, want {new_rate}"
        # the session lives on: same session, no PADT
        assert not client.padt_received.is_set()
        assert podfix.cp_session("lg1-2")["acct_session_id"] == asid
        client.terminate()


def _upstream_echo(line, client, addr: str, count: int, ip_size: int, pps: float) -> tuple[int, int]:
    """count UDP datagrams (ip_size bytes as IPv4 packets) to the inet host's echo port at
    pps; the IPv4 octets sent and the IPv4 octets of the echoes received."""
    sport = 40200
    meter = line.meter(client, sport)
    payload = b"\xa5" * (ip_size - 28)
    packet = bytes(IP(src=addr, dst=emu.INET_HOST, ttl=64) / UDP(sport=sport, dport=7) / payload)
    assert len(packet) == ip_size
    frame = bytes(client.ppp_frame(IPV4, packet))
    assert len(frame) == ACCESS_HEADER + ip_size
    t0 = time.monotonic()
    for i in range(count):
        while time.monotonic() - t0 < i / pps:
            time.sleep(0.0005)
        line.send_frame(frame)
    deadline = time.monotonic() + 3
    while len(meter.frames) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    line.meters.pop((client.session_id, sport), None)
    return count * ip_size, meter.ipv4_octets()


def test_accounting_start_interim_stop_match_the_traffic(lab_pod):
    pod = lab_pod
    count, ip_size, pps = 2000, 1000, 400.0
    # stay below silver's upstream policer: (30 + 4 + 1000) * 8 * 400 = 3.3 Mbit/s < 10 Mbit/s
    assert (ACCESS_HEADER + FCS + ip_size) * 8 * pps < SILVER_UP
    with Line(pod.port("access1")) as line:
        client, addr = dial(line, pod, "lg1-3", "02:5b:00:00:0e:03")
        sess = podfix.cp_session("lg1-3")
        asid = sess["acct_session_id"]
        start = podfix.wait_accounting(pod, asid, "Start")
        assert start.get("User-Name") == "lg1-3" and start.get("Framed-IP-Address") == addr
        sent, received = _upstream_echo(line, client, addr, count, ip_size, pps)
        t_done = time.monotonic()
        assert received >= 0.99 * sent, f"echoes: {received} of {sent} octets came back"

        # an Interim that carries all of it (usage reports every INTERIM_S)
        interim = podfix.wait_accounting(
            pod, asid, "Interim-Update", lambda r: podfix.octets(r, "Input") >= sent, timeout=3 * INTERIM_S + 5
        )
        waited = time.monotonic() - t_done
        client.terminate()
        stop = podfix.wait_accounting(pod, asid, "Stop")

    recs = podfix.accounting(pod, asid)
    kinds = [r.get("Acct-Status-Type") for r in recs]
    print(f"\naccounting {asid}: {kinds}; sent {sent} IPv4 octets up, received {received} down")
    for r in (interim, stop):
        print(
            f"  {r.get('Acct-Status-Type')}: Input-Octets {r.get('Acct-Input-Octets')} "
            f"Gigawords {r.get('Acct-Input-Gigawords')} Packets {r.get('Acct-Input-Packets')}; "
            f"Output-Octets {r.get('Acct-Output-Octets')} Gigawords {r.get('Acct-Output-Gigawords')} "
            f"Packets {r.get('Acct-Output-Packets')}"
        )
    print(f"  the full Interim came {waited:.1f} s after the traffic")
    assert kinds[0] == "Start" and kinds[-1] == "Stop" and kinds.count("Start") == kinds.count("Stop") == 1
    assert "Interim-Update" in kinds
    for r in (interim, stop):
        for direction in ("Input", "Output"):
            assert f"Acct-{direction}-Gigawords" in r, f"{direction} Gigawords missing in {dict(r)}"
        # the DP's layer is the IPv4 packet: exact for what the subscriber sent (nothing
        # else goes upstream as IPv4), and for what it received (only the echoes come down)
        assert within(podfix.octets(r, "Input"), sent, 0.005), (podfix.octets(r, "Input"), sent)
        assert within(podfix.octets(r, "Output"), received, 0.005), (podfix.octets(r, "Output"), received)
        assert int(r.get("Acct-Input-Packets", "0")) == count
    # totals never go backwards
    inputs = [podfix.octets(r, "Input") for r in recs]
    assert inputs == sorted(inputs), inputs
    assert int(stop.get("Acct-Session-Time", "-1")) >= 0
    assert stop.get("Acct-Terminate-Cause") == "User-Request"


def test_upstream_header_layout_is_what_the_meter_assumes(lab_pod):
    """The meter reads PPPoE session id and PPP protocol at fixed offsets of a QinQ frame:
    check them against scapy's own build of the client's frame."""
    from harness.pppoe_client import PppoeClient

    class _Sink:
        def attach(self, client):
            pass

    client = PppoeClient(_Sink(), "02:5b:00:00:0e:09", 100, 7)
    client.session_id, client.ac_mac = 0x1234, "02:bb:00:00:00:01"
    frame = bytes(client.ppp_frame(IPV4, b"\x45" + b"\0" * 27))
    assert struct.unpack_from("!HxxHHH", frame, 20) == (0x8864, 0x1234, 30, IPV4)

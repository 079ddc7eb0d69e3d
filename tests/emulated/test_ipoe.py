"""IPoE through the whole emulated pod (topology/examples/ipoe.yaml: lg1 PPPoE and IPoE on dp1,
lg2 IPoE only on dp2, bng-cp the DHCP server of both): the independent scapy IPoE client
(tests/harness/dhcp_client.py) on the access wire does DHCP with bng-cp through the switch
fold and bng-dp, and its traffic goes to the inet host and back.

What the contract (the IPoE contract of issue 19, docs/dp/pfcp.md, docs/cp/ipoe.md) fixes and
these tests check: the DHCP answer (address of the group's pool, mask, gateway as router and
server identifier, DNS, lease, T1, T2, from the group's ac_mac); the session on the serving
instance only; anti-spoofing on (line, MAC, source address) with bng-dp's drop counters
drop_ipoe_spoof and drop_ipoe_no_session; ARP answered by bng-dp (proxy ARP on lg1, the
gateway only on lg2, never an RFC 5227 probe); the QoS profile's downstream rate within 5 %
as Ethernet frame rate; RADIUS accounting exact at the IPv4 layer; CoA of the rate live,
Disconnect then a NAK to the next RENEW; RENEW (unicast), REBIND, RELEASE and a silent
client whose lease runs out (Acct-Terminate-Cause Lost-Service)."""

from __future__ import annotations

import ipaddress
import time

import pytest
from harness import ipoe_pod as ip
from harness import podenv
from harness.dhcp_client import ACK, NAK, ZERO_IP
from scapy.layers.l2 import ARP

from bngpod import emu

pytestmark = pytest.mark.pod

INTERIM_S = 5
BASIC_DOWN, BASIC_UP = 50_000_000, 10_000_000  # ipoe.yaml qos_profiles basic (lg1)
SMALL_DOWN = 10_000_000  # small (lg2)
LG1_AC_MAC, LG2_AC_MAC = "02:bb:00:00:00:01", "02:bb:00:00:00:02"
LG1_GATEWAY, LG2_GATEWAY = "100.80.0.1", "100.81.0.1"
LG1_POOL, LG2_POOL = ipaddress.IPv4Network("100.80.0.0/22"), ipaddress.IPv4Network("100.81.0.0/24")


@pytest.fixture(scope="module")
def pod(pod_prereqs):
    podenv.require("IPoE E2E", podenv.missing(podenv.POD_TOOLS + ("radclient",)))
    with podenv.pod_up(ip.IPOE, subscribers=12, cp_options={"interim": f"{INTERIM_S}s"}) as pod:
        yield pod


@pytest.fixture
def access1(pod):
    with ip.IpoeLine(pod.port("access1")) as line:
        yield line


@pytest.fixture
def access2(pod):
    with ip.IpoeLine(pod.port("access2")) as line:
        yield line


def bound(line, u, **kw):
    c = ip.client(line, u, **kw)
    c.dora()
    assert c.violations == [], c.violations
    return c


def test_dora_gives_the_contracts_answer(pod, access1):
    u = ip.ipoe_users("lg1")[0]
    c = bound(access1, u)
    lease = c.lease
    assert ipaddress.IPv4Address(lease.address) in LG1_POOL
    assert lease.address not in (LG1_GATEWAY, str(LG1_POOL.network_address), str(LG1_POOL.broadcast_address))
    assert (lease.router, lease.server_id, lease.mask) == (LG1_GATEWAY, LG1_GATEWAY, "255.255.252.0")
    assert lease.dns == ["198.51.100.53"]
    assert (lease.lease_time, lease.t1, lease.t2) == (3600, 300, 3150)
    assert lease.gateway_mac == LG1_AC_MAC
    # the answers came on the client's line from the gateway
    answers = [rx for rx in c.rx if rx.kind == "dhcp"]
    assert all((rx.stag, rx.ctag) == (u["stag"], u["ctag"]) and rx.frame.src.lower() == LG1_AC_MAC for rx in answers)
    s = ip.cp_session(u["user"])  # User-Name = the MAC (username: mac)
    assert (s.get("kind"), s["mac"], s["ipv4"], s["instance"]) == ("ipoe", c.mac, lease.address, 1)
    c.release()
    ip.wait_cp_gone(u["user"])


def test_session_only_on_the_serving_instance(pod, access1, access2):
    c1 = bound(access1, ip.ipoe_users("lg1")[1])
    c2 = bound(access2, ip.ipoe_users("lg2")[0])
    assert ip.dp_session("dp1", c1.lease.address) is not None
    assert ip.dp_session("dp2", c1.lease.address) is None
    assert ip.dp_session("dp2", c2.lease.address) is not None
    assert ip.dp_session("dp1", c2.lease.address) is None
    assert ip.cp_session(c1.mac)["instance"] == 1 and ip.cp_session(c2.mac)["instance"] == 2
    # both reach the inet host, each through its own instance
    assert ip.udp_echo(c1, b"ipoe-dp1") is not None
    assert ip.udp_echo(c2, b"ipoe-dp2", sport=40008) is not None
    for c in (c1, c2):
        c.release()


def test_anti_spoofing_on_line_mac_and_address(pod, access1):
    users = ip.ipoe_users("lg1")
    c = bound(access1, users[2])
    assert ip.udp_echo(c, b"genuine") is not None
    lease = c.lease
    other_address = str(next(a for a in LG1_POOL.hosts() if str(a) not in (lease.address, LG1_GATEWAY)))
    spoof0, nosess0 = ip.dp_drop("dp1", "ipoe_spoof"), ip.dp_drop("dp1", "ipoe_no_session")

    # the session's MAC on its line with another address of the pool
    assert ip.udp_echo(c, b"wrong-address", src_ip=other_address) is None
    spoof1 = ip.dp_drop("dp1", "ipoe_spoof")
    assert spoof1 - spoof0 >= 3, (spoof0, spoof1)

    # the session's address from another MAC on its line
    assert ip.udp_echo(c, b"wrong-mac", src_mac="02:49:ee:00:00:01") is None
    nosess1 = ip.dp_drop("dp1", "ipoe_no_session")
    assert nosess1 - nosess0 >= 3, (nosess0, nosess1)

    # the session's MAC and address on another line of the same group (another S-tag)
    stranger = ip.client(access1, users[2], stag=users[2]["stag"] + 50)
    stranger.lease = lease
    assert ip.udp_echo(c, b"other-line", sender=stranger) is None
    nosess2 = ip.dp_drop("dp1", "ipoe_no_session")
    assert nosess2 - nosess1 >= 3, (nosess1, nosess2)

    # the genuine subscriber still works
    assert ip.udp_echo(c, b"genuine-again") is not None
    c.release()


def test_arp_answered_by_the_instance(pod, access1, access2):
    c1 = bound(access1, ip.ipoe_users("lg1")[3])
    assert c1.resolve(LG1_GATEWAY) == LG1_AC_MAC
    # proxy ARP (lg1): any other address of the pool is the gateway's MAC too
    assert c1.resolve("100.80.1.77") == LG1_AC_MAC
    # never the subscriber's own address, never a probe from 0.0.0.0 (RFC 5227)
    assert c1.resolve(c1.lease.address, timeout=1.0) is None
    c1.send(c1.arp_frame(LG1_GATEWAY, sender=ZERO_IP))
    time.sleep(1.0)
    probes = [rx for rx in c1.rx if rx.kind == "arp" and rx.frame[ARP].pdst == ZERO_IP]
    assert probes == []
    # lg2 has proxy_arp: false: the gateway only
    c2 = bound(access2, ip.ipoe_users("lg2")[1])
    assert c2.resolve(LG2_GATEWAY) == LG2_AC_MAC
    assert c2.resolve("100.81.0.200", timeout=1.0) is None
    for c in (c1, c2):
        c.release()


def test_downstream_shaping_holds_the_profile_rate(pod, access2):
    c = bound(access2, ip.ipoe_users("lg2")[2])
    offered = 1.5 * SMALL_DOWN
    rate, frames, sent = ip.measure_downstream(access2, c, offered)
    print(
        f"\nIPoE shaping {c.mac} (small {SMALL_DOWN / 1e6:.0f} Mbit/s): offered {offered / 1e6:.1f} Mbit/s "
        f"({sent} datagrams), measured {rate / 1e6:.3f} Mbit/s over {frames} frames "
        f"({(rate - SMALL_DOWN) / SMALL_DOWN:+.2%})"
    )
    assert frames > 100, "next to nothing arrived"
    assert ip.within(rate, SMALL_DOWN), f"measured {rate:.0f} bit/s, profile {SMALL_DOWN}"
    c.release()


def _upstream_echo(line, c, count: int, ip_size: int, pps: float) -> tuple[int, int]:
    sport = 40200
    meter = line.meter(c.mac, sport)
    frame = c.ipv4_frame(emu.INET_HOST, b"\xa5" * (ip_size - ip.UDP_IP_HEADER), sport=sport, dport=ip.ECHO_PORT)
    assert len(frame) == ip.ACCESS_HEADER + ip_size
    t0 = time.monotonic()
    for i in range(count):
        while time.monotonic() - t0 < i / pps:
            time.sleep(0.0005)
        line.send_frame(frame)
    deadline = time.monotonic() + 3
    while len(meter.frames) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    line.meters.pop((c.mac, sport), None)
    return count * ip_size, meter.ipv4_octets()


def test_accounting_matches_the_traffic(pod, access1):
    count, ip_size, pps = 1000, 1000, 300.0
    assert (ip.ACCESS_HEADER + ip.FCS + ip_size) * 8 * pps < BASIC_UP
    u = ip.ipoe_users("lg1")[4]
    c = bound(access1, u)
    asid = ip.cp_session(u["user"])["acct_session_id"]
    start = ip.wait_accounting(pod, asid, "Start")
    assert start.get("User-Name") == u["user"] and start.get("Framed-IP-Address") == c.lease.address
    sent, received = _upstream_echo(access1, c, count, ip_size, pps)
    assert received >= 0.99 * sent, f"echoes: {received} of {sent} octets came back"
    interim = ip.wait_accounting(
        pod, asid, "Interim-Update", lambda r: ip.octets(r, "Input") >= sent, timeout=3 * INTERIM_S + 5
    )
    address = c.lease.address
    c.release()
    stop = ip.wait_accounting(pod, asid, "Stop")
    for r in (interim, stop):
        # IPv4 packets as forwarded: the DHCP exchange is no IPv4 traffic of the session
        assert ip.within(ip.octets(r, "Input"), sent, 0.005), (ip.octets(r, "Input"), sent)
        assert ip.within(ip.octets(r, "Output"), received, 0.005), (ip.octets(r, "Output"), received)
        assert int(r.get("Acct-Input-Packets", "0")) == count
    assert stop.get("Acct-Terminate-Cause") == "User-Request"
    ip.wait_cp_gone(u["user"])
    ip.wait_dp_gone("dp1", address)


def test_coa_changes_the_rate_and_disconnect_naks_the_renew(pod, access2):
    u = ip.ipoe_users("lg2")[3]
    c = bound(access2, u)
    asid = ip.cp_session(u["user"])["acct_session_id"]
    new_rate = 5_000_000
    before, _, _ = ip.measure_downstream(access2, c, 1.5 * SMALL_DOWN)
    out = ip.radclient(pod, "coa", {"Acct-Session-Id": asid, "WISPr-Bandwidth-Max-Down": new_rate})
    assert "CoA-ACK" in out, out
    after, frames, _ = ip.measure_downstream(access2, c, 1.5 * SMALL_DOWN)
    print(f"\nIPoE CoA {asid}: before {before / 1e6:.3f} Mbit/s, after {after / 1e6:.3f} Mbit/s ({frames} frames)")
    assert ip.within(before, SMALL_DOWN) and ip.within(after, new_rate), (before, after)
    assert ip.cp_session(u["user"])["acct_session_id"] == asid  # the same session

    lease = c.lease
    out = ip.radclient(pod, "disconnect", {"Acct-Session-Id": asid})
    assert "Disconnect-ACK" in out, out
    ip.wait_cp_gone(u["user"])
    ip.wait_dp_gone("dp2", lease.address)
    assert ip.udp_echo(c, b"after-disconnect") is None
    # the CPE is told at its next RENEW, not left silent until its lease ends
    rx = c.renew()
    assert rx is not None and rx.msg == NAK, rx
    c.dora()
    assert ip.udp_echo(c, b"dialled-again") is not None
    c.release()


def test_renew_rebind_release(pod, access1):
    u = ip.ipoe_users("lg1")[5]
    c = bound(access1, u)
    first = c.lease
    asid = ip.cp_session(u["user"])["acct_session_id"]
    rx = c.renew()
    assert rx is not None and rx.msg == ACK and c.lease.address == first.address
    rx = c.rebind()
    assert rx is not None and rx.msg == ACK and c.lease.address == first.address
    assert c.violations == []
    assert ip.cp_session(u["user"])["acct_session_id"] == asid
    assert ip.udp_echo(c, b"after-renew") is not None
    c.release()
    ip.wait_cp_gone(u["user"])
    ip.wait_dp_gone("dp1", first.address)
    assert ip.wait_accounting(pod, asid, "Stop").get("Acct-Terminate-Cause") == "User-Request"


def test_silent_client_loses_its_session_at_lease_end(pod, access2):
    u = ip.ipoe_users("lg2")[4]
    c = bound(access2, u)
    assert c.lease.lease_time == 60
    address = c.lease.address
    asid = ip.cp_session(u["user"])["acct_session_id"]
    c.wait_expiry(slack=3.0)
    ip.wait_cp_gone(u["user"], timeout=10)
    ip.wait_dp_gone("dp2", address)
    assert ip.wait_accounting(pod, asid, "Stop").get("Acct-Terminate-Cause") == "Lost-Service"
    # its traffic is dropped now
    c.lease = c.expired_lease
    assert ip.udp_echo(c, b"expired") is None


def test_decline_gets_another_address(pod, access2):
    u = ip.ipoe_users("lg2")[5]
    c = bound(access2, u)
    first = c.lease.address
    c.decline()
    ip.wait_cp_gone(u["user"])
    c.dora()
    assert c.lease.address != first
    c.release()

"""Dual stack over IPoE through the whole emulated pod (issue 19's last item; the contract is
/work/notes/ipoe6-contract.md, docs/dp/pfcp.md and docs/cp/ipoe.md): topology/examples/ipoe.yaml's
lg1 (dp1, PPPoE and IPoE, bng-cp its DHCP server) has v6pool1 (a /64 per session from
2001:db8:180::/48 with IA_NA, a /56 per session from 2001:db8:2800::/40 by IA_PD). The
independent scapy client (tests/harness/ipoe6_client.py: DHCPv4 of dhcp_client.py plus RS/RA,
DHCPv6 and ND written from the RFCs) is on the access wire.

What these tests check:
- DHCPv4 first, then IPv6 joins the session (one session, one Acct Start, one RADIUS
  Access-Request); DHCPv6 first (an IPv6-only IPoE session), then IPv4 joins it;
- the RA (from ac_mac and fe80::EUI-64(ac_mac), hop limit 255, SLLA = ac_mac, M and O, the
  session's /64 with L and A once bound; without a prefix before the session exists), the
  DHCPv6 answers (IA_NA inside the /64, IA_PD of the pool's length, DNS), Rapid Commit;
- IPv6 both ways between the subscriber and the inet host, from the IA_NA address, from the
  SLAAC address and from inside the delegated prefix;
- anti-spoof: a source outside the session's prefixes, another session's prefix, a
  link-local source: dropped (bng-dp's drop_ipoe6_spoof), the genuine traffic still flows;
- NS for the BNG's link-local answered by bng-dp itself, also while bng-cp is stopped;
  NS for another address of the session's /64 answered with ac_mac (proxy), never for the
  sender's own address nor a DAD NS from ::;
- a group without IPv6 pools (lg2) gives no IPv6 and its IPv4 works as before;
- DHCPv6 Release removes IPv6 only (IPv4 and the session stay);
- accounting carries the IPv6 octets (FreeRADIUS detail: ERX-IPv6-Acct-*, Framed- and
  Delegated-IPv6-Prefix);
- bng-cp restart keeps the IPv6 binding (a Renew is answered by the same server DUID with
  the same prefix), bng-dp restart re-pushes it (no DHCP from the client, traffic back)."""

from __future__ import annotations

import dataclasses
import ipaddress
import os
import signal
import time

import pytest
from harness import ipoe_pod as ip
from harness import ipv6 as v6
from harness import podenv
from harness.dhcp_client import ACK, ZERO_IP
from harness.ipoe6_client import IpoeDualClient, mac_link_local, multicast_mac, solicited_node

from bngpod import emu

pytestmark = pytest.mark.pod

INTERIM_S = 5
LG1_AC_MAC = "02:bb:00:00:00:01"
LG1_GATEWAY = "100.80.0.1"
LG1_POOL = ipaddress.IPv4Network("100.80.0.0/22")
WAN_POOL = ipaddress.IPv6Network("2001:db8:180::/48")  # ipoe.yaml v6pool1
PD_POOL, PD_LENGTH = ipaddress.IPv6Network("2001:db8:2800::/40"), 56
DNS6 = [ipaddress.IPv6Address("2001:db8::53")]
BNG_LL = mac_link_local(LG1_AC_MAC)
INET6 = emu.INET6_HOST
SPOOF6 = "ipoe6_spoof"  # bng-dp's drop counter drop_ipoe6_spoof (the contract's name)
BACK_BOUND = 20.0  # seconds for traffic to come back after a bng-dp restart


@pytest.fixture(scope="module")
def pod(pod_prereqs):
    podenv.require("IPoE dual-stack E2E", podenv.missing(podenv.POD_TOOLS + ("radclient",)))
    with podenv.pod_up(ip.IPOE, subscribers=24, cp_options={"interim": f"{INTERIM_S}s"}) as pod:
        yield pod


@pytest.fixture
def access1(pod):
    with ip.IpoeLine(pod.port("access1")) as line:
        yield line


@pytest.fixture
def access2(pod):
    with ip.IpoeLine(pod.port("access2")) as line:
        yield line


_taken: set[str] = set()


def fresh_user() -> dict:
    """An IPoE subscriber of lg1 no test of this module has used yet (a failed test leaves
    none of its state to the next)."""
    u = next(u for u in ip.ipoe_users("lg1") if u["user"] not in _taken)
    _taken.add(u["user"])
    return u


def client(line, u=None) -> IpoeDualClient:
    return ip.dual_client(line, u or fresh_user(), LG1_AC_MAC)


def echo6(c: IpoeDualClient, src, tag: bytes, **kw):
    return c.udp6_echo(src, INET6, tag, **kw)


def check_ra(c: IpoeDualClient, ra: v6.RouterAdvert, with_prefix: bool) -> None:
    assert ra is not None, f"{c.mac}: no RA"
    assert ra.src == BNG_LL and ra.hop_limit == 255 and ra.slla == LG1_AC_MAC, ra
    assert ra.managed and ra.other, f"M and O: {ra}"  # IA_NA on (M), DNS servers (O)
    assert ra.router_lifetime > 0
    if with_prefix:
        assert len(ra.prefixes) == 1, ra.prefixes
        p = ra.prefixes[0]
        assert p.prefix.prefixlen == 64 and p.prefix.subnet_of(WAN_POOL) and p.on_link and p.autonomous, p
        assert DNS6 == ra.rdnss, ra.rdnss
    else:
        assert ra.prefixes == [], f"an RA before the session has a /64 has no prefix: {ra.prefixes}"


def check_binding(c: IpoeDualClient) -> None:
    b = c.binding6
    assert c.violations == [], c.violations
    assert b.delegated_prefix is not None and b.delegated_prefix.prefixlen == PD_LENGTH
    assert b.delegated_prefix.subnet_of(PD_POOL), b.delegated_prefix
    assert b.ia_na is not None and b.ia_na in WAN_POOL, b.ia_na
    assert b.dns == DNS6, b.dns


def bound_ra(c: IpoeDualClient) -> v6.RouterAdvert:
    """An RA after the DHCPv6 binding: it names the session's /64 (which holds the IA_NA).
    An RA without prefix still queued from before the binding (the answer to a repeated RS)
    is passed over."""
    for _ in range(3):
        ra = c.solicit_router()
        if ra is not None and ra.prefixes:
            break
    check_ra(c, ra, with_prefix=True)
    assert c.binding6.ia_na in ra.prefixes[0].prefix, (c.binding6.ia_na, ra.prefixes)
    return ra


def cp_v6(s: dict, c: IpoeDualClient) -> None:
    """bng-cp's view of the session names what the client holds."""
    b = c.binding6
    assert s.get("kind") == "ipoe" and s.get("mac") == c.mac, s
    assert s.get("delegated_prefix") == str(b.delegated_prefix), s
    assert s.get("ipv6_address") == str(b.ia_na), s
    assert ipaddress.IPv6Address(s["ipv6_address"]) in ipaddress.IPv6Network(s["ipv6_prefix"]), s


def wait_cp(user: str, pred, what: str, timeout: float = 10.0) -> dict:
    """bng-cp's session of user once pred holds for it."""
    deadline = time.monotonic() + timeout
    while True:
        mine = ip.cp_sessions(user)
        if len(mine) == 1 and pred(mine[0]):
            return mine[0]
        assert time.monotonic() < deadline, f"bng-cp: {what} not within {timeout} s: {mine}"
        time.sleep(0.2)


def release_all(c: IpoeDualClient, u: dict) -> None:
    if c.binding6.delegated_prefix is not None or c.binding6.ia_na is not None:
        c.release6()
    if c.lease is not None:
        c.release()
    ip.wait_cp_gone(u["user"])


# -- the two orders --------------------------------------------------------------------------------------
def test_dhcpv4_first_then_ipv6_joins_the_session(pod, access1):
    u = fresh_user()
    c = client(access1, u)
    c.dora()
    assert c.violations == [] and ipaddress.IPv4Address(c.lease.address) in LG1_POOL
    before = ip.cp_session(u["user"])
    asid = before["acct_session_id"]
    ip.wait_accounting(pod, asid, "Start")

    b = c.bind6(rapid_commit=False)  # RS/RA, Solicit, Advertise, Request, Reply
    check_binding(c)
    check_ra(c, b.ra, with_prefix=b.ra.prefixes != [])  # the session exists (IPv4): a /64 or not yet
    ra = bound_ra(c)
    after = ip.cp_session(u["user"])
    cp_v6(after, c)
    assert after["acct_session_id"] == asid and after.get("ipv4") == c.lease.address, after
    assert after["ipv6_prefix"] == str(ra.prefixes[0].prefix)

    dp = ip.dp_session_of("dp1", c.mac)
    assert dp is not None and dp["kind"] == "ipoe" and dp["ipv4"] == c.lease.address, dp
    assert set(dp["ipv6_prefixes"].split()) == {after["ipv6_prefix"], str(b.delegated_prefix)}, dp
    assert ip.dp_session_of("dp2", c.mac) is None  # the serving instance only
    # both families through the same session
    assert ip.udp_echo(c, b"v4 of a dual-stack IPoE session") is not None
    assert echo6(c, b.ia_na, b"v6 from the IA_NA address") is not None
    starts = [r for r in ip.accounting(pod, asid) if r.get("Acct-Status-Type") == "Start"]
    assert len(starts) == 1, starts  # IPv6 joined the session: no second session
    release_all(c, u)


def test_dhcpv6_first_then_ipv4_joins_the_session(pod, access1):
    u = fresh_user()
    c = client(access1, u)
    ra0 = c.solicit_router()
    check_ra(c, ra0, with_prefix=False)  # no session yet: M|O, no prefix (the CPE starts DHCPv6)
    first = c.solicit(rapid_commit=True)
    assert first is not None, "no answer to the Solicit"
    if first.msg_type != v6.REPLY:
        assert c.request(first) is not None, "no Reply to the Request"
    check_binding(c)
    # User-Name = the MAC (username: mac) for an IPv6-only session too
    s = wait_cp(u["user"], lambda s: s.get("delegated_prefix"), "the IPv6-only session")
    cp_v6(s, c)
    assert not s.get("ipv4"), f"an IPv6-only session: {s}"
    asid = s["acct_session_id"]
    ip.wait_accounting(pod, asid, "Start")
    pd = str(c.binding6.delegated_prefix)
    ip.wait_accounting(pod, asid, "Interim-Update", lambda r: r.get("Delegated-IPv6-Prefix") == pd,
                       timeout=3 * INTERIM_S + 5)  # fmt: skip
    bound_ra(c)
    dp = ip.dp_session_of("dp1", c.mac)
    assert dp is not None and dp["kind"] == "ipoe" and dp["ipv4"] in (ZERO_IP, ""), dp
    assert echo6(c, c.binding6.ia_na, b"IPv6-only IPoE") is not None
    assert echo6(c, c.delegated_host(1), b"IPv6-only IPoE, LAN host") is not None
    assert ip.udp_echo(c, b"no IPv4 yet", src_ip="100.80.3.3", dst_mac=LG1_AC_MAC, tries=1) is None

    c.dora()  # IPv4 joins the IPv6-only session
    assert c.violations == [], c.violations
    after = ip.cp_session(u["user"])
    assert after["acct_session_id"] == asid and after.get("ipv4") == c.lease.address, after
    cp_v6(after, c)
    assert ip.udp_echo(c, b"IPv4 added") is not None
    assert echo6(c, c.binding6.ia_na, b"IPv6 still there") is not None
    assert ip.dp_session_of("dp1", c.mac)["ipv4"] == c.lease.address
    kinds = [r.get("Acct-Status-Type") for r in ip.accounting(pod, asid)]
    assert kinds.count("Start") == 1 and "Stop" not in kinds, kinds
    release_all(c, u)
    stop = ip.wait_accounting(pod, asid, "Stop")
    assert stop.get("Acct-Terminate-Cause") == "User-Request"


# -- traffic and anti-spoof ------------------------------------------------------------------------------
def test_ipv6_both_ways_from_the_address_slaac_and_delegated_prefix(pod, access1):
    u = fresh_user()
    c = client(access1, u)
    c.dora()
    c.bind6(rapid_commit=True)
    check_binding(c)
    bound_ra(c)
    b = c.binding6
    for src, tag in ((b.ia_na, b"IA_NA"), (b.slaac, b"SLAAC"), (c.delegated_host(1), b"LAN host 1"),
                     (b.delegated_prefix[-1], b"last address of the delegated prefix")):  # fmt: skip
        got = echo6(c, src, tag)
        assert got is not None, f"no echo from {src} ({tag!r})"
        assert got.dst == src and got.src == INET6
    # downstream frames: QinQ + 0x86DD to the client MAC from ac_mac on the client's line
    frames = [rx for rx in c.rx if rx.kind == "ipv6" and rx.ipv6 is not None and rx.ipv6.src == INET6]
    assert frames and all(rx.frame.src.lower() == LG1_AC_MAC and rx.frame.dst.lower() == c.mac for rx in frames)
    assert all((rx.stag, rx.ctag) == (u["stag"], u["ctag"]) for rx in frames)
    release_all(c, u)


def test_anti_spoof(pod, access1):
    a, b = client(access1), client(access1)
    for c in (a, b):
        c.dora()
        c.bind6(rapid_commit=True)
        check_binding(c)
        bound_ra(c)
    assert echo6(a, a.binding6.ia_na, b"genuine") is not None
    spoof0 = ip.dp_drop("dp1", SPOOF6)
    outside = WAN_POOL.network_address + (255 << 64) + 7  # in the pool, another /64
    assert all(outside not in c.binding6.wan_prefix for c in (a, b))
    cases = [
        ("outside its prefixes", outside),
        ("the other session's delegated prefix", b.delegated_host(1)),
        ("the other session's address", b.binding6.ia_na),
        ("outside every pool", ipaddress.IPv6Address("2001:db8:dead::1")),
    ]
    for what, src in cases:
        assert echo6(a, src, b"spoof " + what.encode(), tries=2, timeout=0.5) is None, f"{what} was forwarded"
    spoof1 = ip.dp_drop("dp1", SPOOF6)
    assert spoof1 - spoof0 >= 2 * len(cases), (spoof0, spoof1)
    # b's prefix from a's MAC did not reach b either, and both still work
    assert echo6(a, a.delegated_host(2), b"a still fine") is not None
    assert echo6(b, b.binding6.ia_na, b"b still fine") is not None
    for c in (a, b):
        c.release6()
        c.release()


# -- neighbour discovery by bng-dp -----------------------------------------------------------------------
def test_ns_is_answered_by_the_dp_also_without_bng_cp(pod, access1):
    u = fresh_user()
    c = client(access1, u)
    c.dora()
    c.bind6(rapid_commit=True)
    check_binding(c)
    na = c.neighbor_solicit()  # for fe80::EUI-64(ac_mac)
    assert na is not None and na.target == BNG_LL and na.tlla == LG1_AC_MAC and c.violations == [], c.violations
    # from its global address too (NUD after SLAAC)
    na = c.neighbor_solicit(src=c.binding6.ia_na)
    assert na is not None and na.dst == c.binding6.ia_na
    # another address of its /64 (an on-link neighbour to the CPE): bng-dp answers for it
    # with ac_mac, as proxy ARP does; never for the sender's own address
    bound_ra(c)
    other = c.binding6.wan_prefix.network_address + 0x77
    assert other not in (c.binding6.ia_na, c.binding6.slaac)
    na = c.neighbor_solicit(other, src=c.binding6.ia_na)
    assert na is not None and na.tlla == LG1_AC_MAC and na.target == other, na
    assert c.neighbor_solicit(c.binding6.ia_na, src=c.binding6.ia_na, timeout=1.5) is None
    # never an answer to DAD (NS from ::)
    t_dad = time.monotonic()
    c.send6(c.neighbor_solicitation(BNG_LL, src="::"), multicast_mac(solicited_node(BNG_LL)), "ns")
    time.sleep(1.0)
    nas = [v6.parse_na(rx.ipv6) for rx in c.rx if rx.kind == "ipv6" and rx.ipv6 is not None and rx.t > t_dad]
    assert [na for na in nas if na is not None] == [], "an NA to an NS from :: (DAD)"
    emu.stop_cp(signal.SIGTERM)
    try:
        na = c.neighbor_solicit()
        assert na is not None, "bng-dp did not answer the NS while bng-cp was away"
        assert na.tlla == LG1_AC_MAC and c.violations == [], c.violations
        assert echo6(c, c.binding6.ia_na, b"while bng-cp is away") is not None
    finally:
        emu.start_cp()
    release_all(c, u)


def test_a_group_without_ipv6_pools_gives_no_ipv6_and_keeps_ipv4(pod, access2):
    """lg2 (IPoE only, no ipv6_pools): no IPv6 session, whatever the CPE asks; DHCPv4 works."""
    u = ip.ipoe_users("lg2")[0]
    c = ip.dual_client(access2, u, "02:bb:00:00:00:02", timeout=3.0)
    ra = c.solicit_router()
    assert ra is None or ra.prefixes == [], ra
    got = c.solicit(rapid_commit=True)
    bound = got is not None and any(ia.leases and ia.leases[0].valid for ia in got.ia_na + got.ia_pd)
    assert not bound, f"lg2 has no IPv6 pools, yet DHCPv6 gave {got}"
    assert not any(s.get("delegated_prefix") or s.get("ipv6_prefix") for s in ip.cp_sessions(u["user"]))
    c.dora()
    assert c.violations == [] and ip.udp_echo(c, b"IPv4 on lg2") is not None
    s = ip.cp_session(u["user"])
    assert not s.get("ipv6_prefix") and not s.get("delegated_prefix"), s
    c.release()
    ip.wait_cp_gone(u["user"])


# -- the lifecycle ---------------------------------------------------------------------------------------
def test_dhcpv6_release_removes_ipv6_only(pod, access1):
    u = fresh_user()
    c = client(access1, u)
    c.dora()
    c.bind6(rapid_commit=True)
    check_binding(c)
    asid = ip.cp_session(u["user"])["acct_session_id"]
    held = c.binding6
    assert echo6(c, held.ia_na, b"before the release") is not None
    reply = c.release6()
    assert reply is not None and reply.status in (None, v6.STATUS_SUCCESS), reply
    deadline = time.monotonic() + 10
    while (s := ip.cp_session(u["user"])).get("delegated_prefix"):
        assert time.monotonic() < deadline, f"bng-cp still binds IPv6: {s}"
        time.sleep(0.2)
    assert s["acct_session_id"] == asid and s.get("ipv4") == c.lease.address and not s.get("ipv6_address"), s
    deadline = time.monotonic() + 10
    while (dp := ip.dp_session_of("dp1", c.mac)) is not None and dp.get("ipv6_prefixes"):
        assert time.monotonic() < deadline, f"bng-dp still holds IPv6 prefixes: {dp}"
        time.sleep(0.2)
    assert dp is not None and dp["ipv4"] == c.lease.address, dp
    assert echo6(c, held.ia_na, b"after the release", tries=1, timeout=0.5) is None
    assert ip.udp_echo(c, b"IPv4 stays") is not None
    assert [r for r in ip.accounting(pod, asid) if r.get("Acct-Status-Type") == "Stop"] == []
    c.release()
    ip.wait_cp_gone(u["user"])
    assert ip.wait_accounting(pod, asid, "Stop").get("Acct-Terminate-Cause") == "User-Request"


def test_accounting_carries_the_ipv6_octets(pod, access1):
    u = fresh_user()
    c = client(access1, u)
    c.dora()
    c.bind6(rapid_commit=True)
    check_binding(c)
    asid = ip.cp_session(u["user"])["acct_session_id"]
    ip.wait_accounting(pod, asid, "Start")
    n, size = 300, 1000
    sent = got = 0
    for i in range(n):
        payload = b"%05d" % i + b"\xa6" * (size - 48 - 5)
        echoed = echo6(c, c.binding6.ia_na if i % 2 else c.delegated_host(3), payload, sport=41200, tries=1,
                       timeout=0.3)  # fmt: skip
        sent += size
        got += size if echoed is not None else 0
    assert got >= 0.95 * sent, f"echoes: {got} of {sent} octets came back"
    assert ip.udp_echo(c, b"an IPv4 packet too") is not None
    dp = ip.dp_session_of("dp1", c.mac)
    cp = ip.cp_session(u["user"])
    print(f"\nIPoE dual stack: sent v6 {sent} got {got}; bng-dp: {dp}; bng-cp: {cp}")
    assert ip.within(dp["bytes_up_v6"], sent, 0.01) and ip.within(dp["bytes_down_v6"], got, 0.01), dp
    assert dp["bytes_up"] > dp["bytes_up_v6"], dp  # the IPv4 echo is in the totals only
    rec = ip.wait_accounting(pod, asid, "Interim-Update", lambda r: ip.octets(r, "Input") >= dp["bytes_up"],
                             timeout=3 * INTERIM_S + 5)  # fmt: skip

    def erx(name: str) -> int:
        return (int(rec.get(f"ERX-IPv6-Acct-{name}-Gigawords", "0")) << 32) + int(
            rec.get(f"ERX-IPv6-Acct-{name}-Octets", "-1")
        )

    assert (erx("Input"), erx("Output")) == (dp["bytes_up_v6"], dp["bytes_down_v6"]), dict(rec)
    assert (ip.octets(rec, "Input"), ip.octets(rec, "Output")) == (dp["bytes_up"], dp["bytes_down"]), dict(rec)
    recs = ip.accounting(pod, asid)
    assert {r.get("Delegated-IPv6-Prefix") for r in recs} - {None} == {str(c.binding6.delegated_prefix)}
    framed = {r.get("Framed-IPv6-Prefix") for r in recs} - {None}
    assert framed == {ip.cp_session(u["user"])["ipv6_prefix"]}, framed
    release_all(c, u)
    stop = ip.wait_accounting(pod, asid, "Stop")
    assert int(stop.get("ERX-IPv6-Acct-Input-Octets", "-1")) >= dp["bytes_up_v6"]


# -- restarts --------------------------------------------------------------------------------------------
def test_dp_restart_repushes_the_ipv6_session(pod, access1):
    u = fresh_user()
    c = client(access1, u)
    c.dora()
    c.bind6(rapid_commit=True)
    check_binding(c)
    held = dataclasses.replace(c.binding6)
    assert echo6(c, c.delegated_host(1), b"before") is not None
    old_pid = emu.dp_pid("dp1")
    t_kill = time.monotonic()
    os.kill(old_pid, signal.SIGKILL)
    emu.restart_dp("dp1")
    t0 = time.monotonic()
    while echo6(c, c.delegated_host(1), b"after the DP restart", tries=1, timeout=0.3) is None:
        assert time.monotonic() - t0 < BACK_BOUND, f"no IPv6 echo within {BACK_BOUND} s of the restart"
    print(f"\nbng-dp dp1 restarted: IPv6 from the delegated prefix back after {time.monotonic() - t0:.1f} s")
    # the client did nothing but send data: no DHCP of either family, no RS, no NS
    control = [name for t, name in c.sent6 if t > t_kill and name != "ipv6"] + [n for t, n in c.sent if t > t_kill]
    assert control == [], control
    dp = ip.dp_session_of("dp1", c.mac)
    assert dp is not None and str(held.delegated_prefix) in dp["ipv6_prefixes"].split(), dp
    assert echo6(c, held.ia_na, b"and from the IA_NA address") is not None
    assert ip.udp_echo(c, b"and IPv4") is not None
    assert c.neighbor_solicit() is not None  # the restarted instance answers NS again
    assert c.renew6() is not None and c.binding6.delegated_prefix == held.delegated_prefix
    release_all(c, u)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
def test_cp_restart_keeps_the_ipv6_binding(pod, access1, sig):
    u = fresh_user()
    c = client(access1, u)
    c.dora()
    c.bind6(rapid_commit=False)
    check_binding(c)
    held = dataclasses.replace(c.binding6)  # a copy: renew6 re-binds c.binding6 in place
    before = ip.cp_session(u["user"])
    assert echo6(c, held.ia_na, b"before") is not None
    emu.stop_cp(sig)
    try:
        assert echo6(c, c.delegated_host(2), b"while bng-cp is away") is not None
    finally:
        emu.start_cp()
    after = ip.cp_session(u["user"])
    keep = ("acct_session_id", "ipv4", "ipv6_prefix", "delegated_prefix", "ipv6_address", "instance")
    assert {k: after.get(k) for k in keep} == {k: before.get(k) for k in keep}, (before, after)
    reply = c.renew6()  # the server DUID and the bindings survived
    assert reply is not None, "no Reply to the Renew after the restart"
    assert reply.server_id == held.server_duid and reply.status in (None, v6.STATUS_SUCCESS), reply
    assert c.binding6.delegated_prefix == held.delegated_prefix and c.binding6.ia_na == held.ia_na
    assert c.violations == [], c.violations
    assert echo6(c, held.ia_na, b"after") is not None
    rx = c.renew()
    assert rx is not None and rx.msg == ACK, rx
    release_all(c, u)

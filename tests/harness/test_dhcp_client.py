"""The independent IPoE client (dhcp_client.py) against a strict scripted DHCP server
(dhcp_responder.py) on a veth pair in a namespace of the test's own: QinQ frames on a real
link, both ends checking each other against RFC 2131. Needs root (the netns lock is the
session's, tests/conftest.py)."""

from __future__ import annotations

import os
import time

import pytest
from scapy.layers.dhcp import BOOTP
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from harness import podenv
from harness.dhcp_client import ACK, NAK, ZERO_IP, DhcpClient, DhcpError
from harness.dhcp_responder import DhcpResponder
from harness.rawaccess import RawLoop
from harness.vethns import veth_pair

MAC = "02:49:00:00:00:01"


class ClientEnd(RawLoop):
    """cli0: what a DP is to the clients (attach, send_frame); frames go to every client."""

    def __init__(self, ns: str):
        self.clients = []
        super().__init__(ns, "cli0", "dhcp-cli")

    def attach(self, client) -> None:
        self.clients.append(client)

    def send_frame(self, frame: bytes) -> None:
        self.sock.send(frame)

    def on_frame(self, frame: bytes) -> None:
        for c in self.clients:
            c.deliver(Ether(frame))


class ServerEnd(RawLoop):
    def __init__(self, ns: str, responder: DhcpResponder):
        self.responder = responder
        super().__init__(ns, "srv0", "dhcp-srv")

    def on_frame(self, frame: bytes) -> None:
        self.responder.handle(frame)


@pytest.fixture
def link():
    """(client end, responder) on one veth pair; the responder's violations are checked at
    the end of every test."""
    podenv.require("the IPoE client's tests", "needs root (a namespace and a veth pair)" if os.geteuid() else None)
    with veth_pair("dhcpc") as ns:
        ends = []
        try:
            cli = ClientEnd(ns)
            ends.append(cli)
            responder = DhcpResponder(send_frame=None)
            srv = ServerEnd(ns, responder)
            ends.append(srv)
            responder.send_frame = srv.sock.send
            yield cli, responder
            assert responder.violations == []
        finally:
            for e in ends:
                e.close()


def client(cli, **kw) -> DhcpClient:
    kw.setdefault("timeout", 3.0)
    return DhcpClient(cli, kw.pop("mac", MAC), kw.pop("stag", 100), kw.pop("ctag", 7), **kw)


@pytest.mark.parametrize("tpid", [0x8100, 0x88A8])
def test_dora(link, tpid):
    cli, srv = link
    c = client(cli, outer_tpid=tpid)
    lease = c.dora()
    assert (lease.address, lease.server_id, lease.router, lease.mask) == (
        "100.80.0.2",
        "100.80.0.1",
        "100.80.0.1",
        "255.255.255.0",
    )
    assert (lease.lease_time, lease.t1, lease.t2, lease.dns) == (3600, 300, 3150, ["198.51.100.53"])
    assert lease.gateway_mac == srv.gateway_mac
    assert [m for _t, _mac, m in srv.seen] == ["discover", "request"]
    assert srv.bindings[MAC].address == "100.80.0.2"
    # the answers came on the client's tags, to its MAC (no broadcast flag)
    acks = [rx for rx in c.rx if rx.msg == ACK]
    assert len(acks) == 1 and (acks[0].stag, acks[0].ctag, acks[0].frame.dst) == (100, 7, MAC)
    assert c.violations == []


def test_two_clients_on_two_lines_get_their_own_answers(link):
    cli, srv = link
    a = client(cli, mac="02:49:00:00:00:01", stag=100, ctag=1)
    b = client(cli, mac="02:49:00:00:00:02", stag=101, ctag=1)
    la, lb = a.dora(), b.dora()
    assert la.address != lb.address
    assert all(rx.stag == 100 for rx in a.rx) and all(rx.stag == 101 for rx in b.rx)


def test_renew_is_unicast_to_the_server_identifier(link):
    cli, srv = link
    c = client(cli)
    first = c.dora()
    time.sleep(0.05)
    rx = c.renew()
    assert rx is not None and rx.msg == ACK
    assert c.lease.address == first.address and c.lease.bound_at > first.bound_at
    # the responder checks RENEWING: ciaddr, source address, IP and MAC of the server
    assert [m for _t, _mac, m in srv.seen] == ["discover", "request", "request"]
    assert c.violations == []


def test_rebind_is_broadcast(link):
    cli, srv = link
    c = client(cli)
    c.dora()
    rx = c.rebind()
    assert rx is not None and rx.msg == ACK
    assert c.violations == []


def test_release_then_renew_is_naked(link):
    cli, srv = link
    c = client(cli)
    lease = c.dora()
    c.release()
    time.sleep(0.3)
    assert MAC not in srv.bindings and c.lease is None
    c.lease = lease  # a CPE that goes on as if nothing happened
    rx = c.renew()
    assert rx is not None and rx.msg == NAK and c.lease is None
    assert c.violations == []


def test_decline_and_a_new_address(link):
    cli, srv = link
    c = client(cli)
    first = c.dora()
    c.decline()
    time.sleep(0.3)
    assert first.address in srv.declined
    second = c.dora()
    assert second.address != first.address


def test_init_reboot(link):
    cli, srv = link
    c = client(cli)
    lease = c.dora()
    rx = c.init_reboot(lease.address)
    assert rx is not None and rx.msg == ACK
    rx = c.init_reboot("100.80.0.77")
    assert rx is not None and rx.msg == NAK


def test_inform(link):
    cli, srv = link
    c = client(cli)
    c.dora()
    rx = c.inform()
    assert rx is not None and rx.msg == ACK and rx.frame[BOOTP].yiaddr == ZERO_IP
    assert c.violations == []


def test_broadcast_flag(link):
    cli, srv = link
    c = client(cli, broadcast_flag=True)
    c.dora()
    assert {rx.frame.dst for rx in c.rx if rx.kind == "dhcp"} == {"ff:ff:ff:ff:ff:ff"}
    assert c.violations == []


def test_silent_client_loses_its_lease(link):
    cli, srv = link
    srv.lease_time, srv.t1, srv.t2 = 3, 1, 2
    c = client(cli)
    lease = c.dora()
    assert (lease.lease_time, lease.t1, lease.t2) == (3, 1, 2)
    c.wait_expiry(slack=0.3)
    assert c.lease is None and c.expired_lease.expired()
    # nothing after the REQUEST: the client stayed silent
    assert [m for _t, _mac, m in srv.seen] == ["discover", "request"]
    c.lease = c.expired_lease
    rx = c.renew()  # the responder expired the binding meanwhile
    assert rx is not None and rx.msg == NAK and MAC in srv.expired


def test_arp_for_the_gateway(link):
    cli, srv = link
    c = client(cli)
    c.dora()
    assert c.resolve("100.80.0.1") == srv.gateway_mac
    assert c.resolve("100.80.0.9", timeout=0.5) is None


def test_ipv4_frame_from_the_lease(link):
    cli, _srv = link
    c = client(cli)
    c.dora()
    e = Ether(c.ipv4_frame("198.51.100.10", b"hello"))
    assert (e[IP].src, e[IP].dst, e[UDP].dport, e.dst) == (c.lease.address, "198.51.100.10", 7, c.lease.gateway_mac)
    spoofed = Ether(c.ipv4_frame("198.51.100.10", src_ip="100.80.0.99", src_mac="02:49:00:00:00:63"))
    assert (spoofed[IP].src, spoofed.src) == ("100.80.0.99", "02:49:00:00:00:63")


def test_the_client_catches_a_server_without_identifier(link):
    cli, srv = link
    srv.omit_server_id = True
    c = client(cli)
    c.discover()
    assert any("no server identifier" in v for v in c.violations)


def test_no_server_no_lease(link):
    cli, _srv = link
    c = client(cli, stag=4000, timeout=0.5)
    c.dp = cli
    cli.clients.clear()  # nobody delivers answers to this client
    with pytest.raises(DhcpError, match="DORA failed"):
        c.dora(retries=0)

"""The isc-dhcp-server helper (dhcpd.py) works: dhcpd in a namespace of its own answers a
relayed DISCOVER/REQUEST built with scapy (giaddr, option 82 with sub-options 1 circuit id,
2 remote id, 5 link selection (RFC 3527), 11 server identifier override (RFC 5107)) with an
address of the subnet the link selection names, echoes option 82, answers the relay at
giaddr:67, and stores option 82 in its leases file. Needs root and isc-dhcp-server."""

from __future__ import annotations

import ipaddress
import os
import socket
import struct

import pytest
from scapy.layers.dhcp import BOOTP, DHCP

from bngpod.rawsock import in_netns
from harness import dhcpd, podenv
from harness.dhcp_client import ACK, OFFER, message_type, option
from harness.vethns import ip, two_namespaces


@pytest.fixture(autouse=True)
def _prereqs(request):
    """Root and dhcpd (a skip, or a failure under BNGPOD_REQUIRE_POD=1); not for the parser."""
    if request.node.name != "test_parse_leases":
        podenv.require("the isc-dhcp-server helper's test", "needs root" if os.geteuid() != 0 else dhcpd.missing())


RELAY, SERVER = "10.200.0.1", "10.200.0.50"
POOL = ipaddress.IPv4Network("100.82.0.0/24")
OTHER = ipaddress.IPv4Network("100.83.0.0/24")
GATEWAY = "100.82.0.1"
MAC = bytes.fromhex("024900020001")
CIRCUIT, REMOTE = b"access2 eth 250:1", b"olt1-onu7"


def option82(circuit: bytes, remote: bytes, link: str, override: str) -> bytes:
    subs = [(1, circuit), (2, remote), (5, socket.inet_aton(link)), (11, socket.inet_aton(override))]
    return b"".join(struct.pack("!BB", t, len(v)) + v for t, v in subs)


def relayed(msg: str, xid: int, extra: list, giaddr: str = RELAY) -> bytes:
    pkt = BOOTP(op=1, hops=1, xid=xid, giaddr=giaddr, chaddr=MAC + bytes(10)) / DHCP(
        options=[
            ("message-type", msg),
            *extra,
            ("relay_agent_information", option82(CIRCUIT, REMOTE, GATEWAY, GATEWAY)),
            "end",
        ]
    )
    return bytes(pkt)


@pytest.fixture
def server(tmp_path):
    with two_namespaces("relay", "dhcpd") as (relay_ns, server_ns):
        ip("ip", "addr", "add", f"{RELAY}/24", "dev", "eth0", ns=relay_ns)
        ip("ip", "addr", "add", f"{SERVER}/24", "dev", "eth0", ns=server_ns)
        subnets = [
            dhcpd.Subnet(POOL, "100.82.0.10", "100.82.0.20", router=GATEWAY, dns=["198.51.100.53"]),
            dhcpd.Subnet(OTHER, "100.83.0.10", "100.83.0.20", router="100.83.0.1"),
        ]
        with dhcpd.IscDhcpServer(server_ns, "eth0", f"{SERVER}/24", subnets, tmp_path / "dhcpd") as srv:
            with in_netns(relay_ns):
                sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            sock.bind((RELAY, 67))
            sock.settimeout(5)
            try:
                yield srv, sock
            finally:
                sock.close()


def exchange(sock, data: bytes) -> BOOTP:
    sock.sendto(data, (SERVER, 67))
    answer, (src, sport) = sock.recvfrom(2048)
    assert (src, sport) == (SERVER, 67)  # the server answers the relay at giaddr:67 from :67
    return BOOTP(answer)


def test_relayed_dora_with_option82(server):
    srv, sock = server
    offer = exchange(sock, relayed("discover", 0x1234, []))
    assert message_type(offer) == OFFER and offer.xid == 0x1234
    assert offer.giaddr == RELAY and bytes(offer.chaddr)[:6] == MAC
    # link selection, not giaddr, chose the subnet
    assert ipaddress.IPv4Address(offer.yiaddr) in POOL
    assert option(offer, "router") == GATEWAY
    # RFC 3046 2.2: option 82 comes back as sent
    assert option(offer, "relay_agent_information") == option82(CIRCUIT, REMOTE, GATEWAY, GATEWAY)
    server_id = option(offer, "server_id")
    assert server_id in (SERVER, GATEWAY)  # GATEWAY where dhcpd honours RFC 5107's override
    ack = exchange(sock, relayed("request", 0x1235, [("requested_addr", offer.yiaddr), ("server_id", server_id)]))
    assert message_type(ack) == ACK and ack.yiaddr == offer.yiaddr and option(ack, "lease_time") == 600
    lease = srv.lease_of(offer.yiaddr)
    assert lease is not None and lease.mac == MAC.hex(":") and lease.state == "active"
    assert lease.stored["agent-circuit-id"] == dhcpd.hexed(CIRCUIT)
    assert lease.stored["agent-remote-id"] == dhcpd.hexed(REMOTE)
    assert lease.stored["agent-link-selection"] == dhcpd.hexed(socket.inet_aton(GATEWAY))
    assert lease.stored["agent-server-id-override"] == dhcpd.hexed(socket.inet_aton(GATEWAY))
    assert f"option82 circuit-id {dhcpd.hexed(CIRCUIT)}" in srv.log()


def test_parse_leases():
    text = """# comment
lease 100.82.0.10 {
  starts 0 2026/12/06 11:00:00;
  binding state active;
  hardware ethernet 02:49:00:02:00:01;
  set agent-circuit-id = "61:62";
}
lease 100.82.0.11 {
  binding state free;
}
"""
    a, b = dhcpd.parse_leases(text)
    assert (a.address, a.mac, a.state, a.stored) == (
        "100.82.0.10",
        "02:49:00:02:00:01",
        "active",
        {"agent-circuit-id": "61:62"},
    )
    assert (b.address, b.mac, b.state, b.stored) == ("100.82.0.11", None, "free", {})
    assert dhcpd.hexed(b"\x0a\x00\xff") == "a:0:ff"

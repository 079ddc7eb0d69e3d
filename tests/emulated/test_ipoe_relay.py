"""IPoE in relay mode through the whole emulated pod, against the real Debian isc-dhcp-server
(topology/examples/ipoe.yaml lg3 on dp2: `mode: relay`, `relay.servers: [10.200.0.50]`,
`option82: keep`).

The test starts dhcpd (tests/harness/dhcpd.py) in a namespace of its own, joined to the
pod's management bridge (bngpod-mgmt's mgmtbr) at 10.200.0.50, serving lg3's pool
100.82.0.0/24. The independent scapy client dials on lg3's line; bng-cp relays from its
management address (giaddr 10.200.0.1, port 67), selects the subnet with the link-selection
sub-option (RFC 3527), adds option 82 (the access node added none) and sets the server
identifier override (RFC 5107) to the pool's gateway, so that the client's RENEWs come
through the pod. Checked on the server's side: the lease dhcpd committed for the client's
MAC with the option 82 it received (stored by dhcpd in its leases file)."""

from __future__ import annotations

import ipaddress

import pytest
from harness import dhcpd, podenv
from harness import ipoe_pod as ip
from harness.dhcp_client import ACK
from harness.vethns import PREFIX
from harness.vethns import ip as _ip

from bngpod import emu

pytestmark = pytest.mark.pod

SERVER = "10.200.0.50"
POOL3 = ipaddress.IPv4Network("100.82.0.0/24")
GATEWAY3 = "100.82.0.1"
LG3_AC_MAC = "02:bb:00:00:00:03"
DHCPD_NS = PREFIX + "dhcpd"


@pytest.fixture(scope="module")
def pod(pod_prereqs):
    podenv.require("IPoE relay E2E", podenv.missing(podenv.POD_TOOLS + ("radclient",)) or dhcpd.missing())
    with podenv.pod_up(ip.IPOE, subscribers=6) as pod:
        yield pod


@pytest.fixture(scope="module")
def server(pod, tmp_path_factory):
    """dhcpd at 10.200.0.50 on the management network, serving lg3's pool."""
    _ip("ip", "netns", "delete", DHCPD_NS, check=False)
    _ip("ip", "netns", "add", DHCPD_NS)
    try:
        _ip("ip", "link", "add", "dhcpd0", "type", "veth", "peer", "name", "eth0", "netns", DHCPD_NS, ns=emu.MGMT_NS)
        _ip("ip", "link", "set", "dhcpd0", "master", "mgmtbr", "up", ns=emu.MGMT_NS)
        _ip("ip", "addr", "add", f"{SERVER}/{pod.management.prefixlen}", "dev", "eth0", ns=DHCPD_NS)
        _ip("ip", "link", "set", "eth0", "up", ns=DHCPD_NS)
        _ip("ip", "link", "set", "lo", "up", ns=DHCPD_NS)
        subnets = [dhcpd.Subnet(POOL3, "100.82.0.10", "100.82.0.60", router=GATEWAY3, dns=["198.51.100.53"])]
        work = tmp_path_factory.mktemp("dhcpd")
        with dhcpd.IscDhcpServer(DHCPD_NS, "eth0", f"{SERVER}/{pod.management.prefixlen}", subnets, work) as srv:
            yield srv
    finally:
        _ip("ip", "link", "delete", "dhcpd0", ns=emu.MGMT_NS, check=False)
        _ip("ip", "netns", "delete", DHCPD_NS, check=False)


@pytest.fixture
def access2(pod):
    with ip.IpoeLine(pod.port("access2")) as line:
        yield line


def _address(hexed: str) -> ipaddress.IPv4Address:
    """An address as dhcpd's binary-to-ascii(16, 8, ":", ...) wrote it."""
    return ipaddress.IPv4Address(bytes(int(x, 16) for x in hexed.split(":")))


def test_relay_to_isc_dhcp_server_with_option82(pod, server, access2):
    u = ip.ipoe_users("lg3")[0]
    c = ip.client(access2, u)
    lease = c.dora()
    assert c.violations == [], c.violations
    # the server's offer, within the group's pool, relayed back from the gateway
    assert ipaddress.IPv4Address(lease.address) in POOL3
    assert lease.router == GATEWAY3 and lease.gateway_mac == LG3_AC_MAC
    assert lease.server_id == GATEWAY3, "the server identifier must lead RENEWs to the pod (RFC 5107 override)"
    assert lease.lease_time == 600  # the server's lease (docs/cp/ipoe.md "Relay mode")
    # dhcpd's side: the lease for the client's MAC, with the option 82 bng-cp sent
    committed = server.lease_of(lease.address)
    assert committed is not None and committed.mac == c.mac and committed.state == "active", server.leases()
    stored = committed.stored
    assert stored.get("agent-circuit-id"), f"no circuit id reached dhcpd: {stored}"
    assert _address(stored["agent-link-selection"]) in POOL3, stored
    assert _address(stored["agent-server-id-override"]) == ipaddress.IPv4Address(GATEWAY3), stored
    assert "option82 circuit-id " + stored["agent-circuit-id"] in server.log()
    assert f"DHCPACK on {lease.address} to {c.mac}" in server.log()
    # the session, and traffic through it
    s = ip.cp_session(u["user"])
    assert (s.get("kind"), s["ipv4"], s["instance"]) == ("ipoe", lease.address, 2)
    assert ip.udp_echo(c, b"relayed") is not None

    # RENEW unicast to the gateway reaches dhcpd through the pod, relayed again
    acks = server.log().count(f"DHCPACK on {lease.address}")
    rx = c.renew()
    assert rx is not None and rx.msg == ACK and c.lease.address == lease.address
    assert server.log().count(f"DHCPACK on {lease.address}") == acks + 1

    c.release()
    ip.wait_cp_gone(u["user"])
    assert server.wait_log(f"DHCPRELEASE of {lease.address} from {c.mac}"), server.log()[-2000:]


def test_relay_source_is_the_management_address(pod, server, access2):
    """bng-cp relays from control_plane.address, port 67 (dhcpd logs the relay's address)."""
    u = ip.ipoe_users("lg3")[1]
    c = ip.client(access2, u)
    c.dora()
    assert f"DHCPDISCOVER from {c.mac} via {pod.control_plane.address}" in server.log(), server.log()
    c.release()

"""The emulated pod's network: namespaces, veths, the Open vSwitch bridge that plays the
whitebox (with the generated flow table), the management network, the core router and
the inet host (docs/emulated-pod.md, "What gets built").

Namespaces (all named bngpod-*):
  bngpod-sw            the whitebox: ovsdb-server + ovs-vswitchd (userspace datapath);
                       every switch-side veth end lives here, so the host's own
                       namespace is never touched
  bngpod-acc-<port>    subscriber side of an access port: sub0
  bngpod-dp-<name>     a DP instance: data0 (its VF, an OVS port of its own) and
                       mgmt0 (its kernel management interface, control address)
  bngpod-mgmt          control plane and RADIUS: bridge mgmtbr joining every mgmt0
  bngpod-core          the upstream router: up0 on the uplink, routes to each pool via
                       its line group's core address (IPv6: each group's WAN and
                       delegated-prefix pools via its core IPv6 address), srv0 towards
                       bngpod-inet
  bngpod-inet          a host on the core side (a server subscribers can reach), with
                       an IPv6 address too when the pod has IPv6

Every namespace is recorded in the state before it is created (supervisor)."""

from __future__ import annotations

import ctypes
import ipaddress
import os
import socket
import subprocess
from pathlib import Path

from . import binaries
from . import model as m
from .supervisor import NS_PREFIX, State, daemon_pid, run_dir, sh

SWITCH_NS = "bngpod-sw"
MGMT_NS = "bngpod-mgmt"
CORE_NS = "bngpod-core"
INET_NS = "bngpod-inet"
BRIDGE = "bpsw"
LINK_MTU = 1600
INET_SUBNET = "198.51.100.0/24"
INET_ROUTER = "198.51.100.1"
INET_HOST = "198.51.100.10"
# The inet host's IPv6 side (a pod with core.subnet6): bngpod-core routes it.
INET6_SUBNET = ipaddress.IPv6Network("2001:db8:ffff::/64")
INET6_ROUTER = ipaddress.IPv6Address("2001:db8:ffff::1")
INET6_HOST = ipaddress.IPv6Address("2001:db8:ffff::10")
OVS_SCHEMA = Path("/usr/share/openvswitch/vswitch.ovsschema")
TOOLS = ("ovsdb-server", "ovs-vswitchd", "ovs-vsctl", "ovs-ofctl", "ethtool")
# The receive buffer of each socket Open vSwitch reads a port through (docs/emulated-pod.md,
# "The switch's port buffers"): the host default (net.core.rmem_default, 208 KiB, not per
# namespace) overflows whenever ovs-vswitchd waits for a CPU.
SWITCH_PORT_BUFFER = 4 << 20


def access_ns(port: m.SwitchPort) -> str:
    return f"{NS_PREFIX}acc-{port.name}"


def dp_ns(inst: m.Instance) -> str:
    return f"{NS_PREFIX}dp-{inst.name}"


# -- Open vSwitch ---------------------------------------------------------------------------------
def ovs_dir() -> Path:
    return run_dir() / "ovs"


def ovs_env() -> dict:
    rundir = str(ovs_dir())
    env = dict(os.environ)
    env.update(OVS_RUNDIR=rundir, OVS_DBDIR=rundir, OVS_LOGDIR=rundir, OVS_SYSCONFDIR=rundir)
    return env


def vsctl(*args: str, check=True) -> subprocess.CompletedProcess:
    db = f"unix:{ovs_dir() / 'db.sock'}"
    return sh("ovs-vsctl", f"--db={db}", "--timeout=20", *args, env=ovs_env(), check=check)


def ofctl(*args: str, check=True) -> subprocess.CompletedProcess:
    return sh("ovs-ofctl", "-O", "OpenFlow13", *args, env=ovs_env(), check=check)


def _start_ovs(state: State, pod: m.Pod) -> None:
    ovs = ovs_dir()
    ovs.mkdir(parents=True, exist_ok=True)
    env = ovs_env()
    sh("ovsdb-tool", "create", str(ovs / "conf.db"), str(OVS_SCHEMA))
    for daemon, args in (
        (
            "ovsdb-server",
            [str(ovs / "conf.db"), f"--remote=punix:{ovs / 'db.sock'}", "--no-chdir"],
        ),
        ("ovs-vswitchd", [f"unix:{ovs / 'db.sock'}", "--no-chdir"]),
    ):
        pidfile = ovs / f"{daemon}.pid"
        sh(
            daemon,
            *args,
            f"--pidfile={pidfile}",
            f"--log-file={ovs / (daemon + '.log')}",
            f"--unixctl={ovs / (daemon + '.ctl')}",
            "--detach",
            ns=SWITCH_NS,
            env=env,
        )
        state.add_pid(daemon, daemon_pid(pidfile), daemon)
        if daemon == "ovsdb-server":
            vsctl("--no-wait", "init")
            # Two tags parsed, so a flow may pop the S-tag and match the C-tag.
            vsctl("--no-wait", "set", "Open_vSwitch", ".", "other_config:vlan-limit=2")
    vsctl(
        "add-br",
        BRIDGE,
        "--",
        "set",
        "bridge",
        BRIDGE,
        "datapath_type=netdev",
        "protocols=OpenFlow13",
        "fail_mode=secure",
        f"other-config:datapath-id={pod.dpid}",
    )


def _ovs_port(ifname: str, ofport: int) -> None:
    vsctl("add-port", BRIDGE, ifname, "--", "set", "interface", ifname, f"ofport_request={ofport}")


_SYS_PIDFD_GETFD = 438  # the same number on every Linux architecture (since 5.6)
_SO_RCVBUFFORCE = getattr(socket, "SO_RCVBUFFORCE", 33)  # asm-generic/socket.h; Python has no name for it


def _packet_socket_inodes(pid: int) -> set[int]:
    """The inodes of the AF_PACKET sockets in pid's network namespace (/proc/PID/net/packet)."""
    lines = Path(f"/proc/{pid}/net/packet").read_text().splitlines()
    head = lines[0].split()
    col = head.index("Inode")
    return {int(ln.split()[col]) for ln in lines[1:] if len(ln.split()) > col}


def enlarge_socket_buffers(pid: int, inodes: set[int], size: int) -> int:
    """Set the receive buffer of pid's sockets among inodes to size bytes (SO_RCVBUFFORCE,
    past net.core.rmem_max), through a duplicate of each descriptor (pidfd_getfd: the
    same socket; needs CAP_SYS_PTRACE over pid). Open vSwitch has no setting for it. Returns
    how many were set; raises OSError when pid is gone or the kernel refuses."""
    libc = ctypes.CDLL(None, use_errno=True)
    done = 0
    pidfd = os.pidfd_open(pid)
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except FileNotFoundError:  # closed meanwhile
                continue
            if not (target.startswith("socket:[") and int(target[8:-1]) in inodes):
                continue
            dup = libc.syscall(_SYS_PIDFD_GETFD, pidfd, int(fd), 0)
            if dup < 0:
                err = ctypes.get_errno()
                raise OSError(err, f"pidfd_getfd of fd {fd} of pid {pid}: {os.strerror(err)}")
            sock = socket.socket(fileno=dup)
            try:
                sock.setsockopt(socket.SOL_SOCKET, _SO_RCVBUFFORCE, size)
            finally:
                sock.detach()
                os.close(dup)
            done += 1
    finally:
        os.close(pidfd)
    return done


def _enlarge_switch_buffers() -> int:
    """SWITCH_PORT_BUFFER on every port socket of the pod's ovs-vswitchd (after its ports
    are added: a port's socket is opened when the port is). Returns how many were set."""
    pid = daemon_pid(ovs_dir() / "ovs-vswitchd.pid")
    try:
        return enlarge_socket_buffers(pid, _packet_socket_inodes(pid), SWITCH_PORT_BUFFER)
    except OSError as exc:  # the pod works without; the switch drops more under load
        print(f"warning: the switch's port sockets keep the host's receive buffer: {exc}")
        return 0


def switch_report() -> tuple[list[str], str | None]:
    """The bridge's ports and its flow count (ovs-ofctl), for `bngpod status`."""
    ports = ofctl("dump-ports-desc", BRIDGE, check=False).stdout
    agg = ofctl("dump-aggregate", BRIDGE, check=False).stdout
    flows = agg.strip().splitlines()[-1].strip() if agg.strip() else None
    return [ln.strip() for ln in ports.splitlines() if "(" in ln and "addr" in ln], flows


# -- namespaces and links -------------------------------------------------------------------------
def _netns_add(state: State, name: str) -> None:
    state.add_ns(name)
    sh("ip", "netns", "add", name)
    # No kernel IPv6 on pod links: its neighbour discovery and MLD would put frames on the
    # wire that no part of the pod sent. Where the pod carries IPv6 (core router and inet
    # host of a pod with core.subnet6), _enable_ipv6 turns it on per interface.
    for key in ("all", "default"):
        sh("sysctl", "-qw", f"net.ipv6.conf.{key}.disable_ipv6=1", ns=name)
    sh("ip", "link", "set", "lo", "up", ns=name)


def _veth(a_ns: str, a: str, b_ns: str, b: str, mtu: int = LINK_MTU, b_mac: str | None = None) -> None:
    sh("ip", "link", "add", a, "netns", a_ns, "type", "veth", "peer", "name", b, "netns", b_ns)
    for ns, ifname in ((a_ns, a), (b_ns, b)):
        sh("ip", "link", "set", ifname, "mtu", str(mtu), ns=ns)
    if b_mac:
        sh("ip", "link", "set", b, "address", b_mac, ns=b_ns)
    for ns, ifname in ((a_ns, a), (b_ns, b)):
        sh("ip", "link", "set", ifname, "up", ns=ns)
    # Userspace datapaths and raw sockets see no checksum offload: have the kernel
    # fill in checksums (needed for TCP through OVS's userspace datapath).
    if b_ns != SWITCH_NS:
        sh("ethtool", "-K", b, "tx", "off", ns=b_ns, check=False)


def _access_ingress(ifname: str) -> None:
    """The switch's ingress check on an access port (topology/xdp/access_ingress.c): frames
    with a single VLAN tag belong to no line and are dropped before Open vSwitch sees them,
    counted as the veth's xdp_drops (`ethtool -S`). Open vSwitch's userspace datapath would
    otherwise cache their drop so that it also swallows the double-tagged frames of the same
    S-tag (docs/switch-fold.md)."""
    sh("ip", "link", "set", "dev", ifname, "xdpdrv", "obj", str(binaries.ACCESS_INGRESS), "sec", "xdp", ns=SWITCH_NS)


def access_ingress_drops(port: m.SwitchPort) -> int:
    """Frames the access port's ingress check dropped since the pod came up."""
    out = sh("ethtool", "-S", f"a{port.number}", ns=SWITCH_NS).stdout
    return sum(int(ln.split(":")[1]) for ln in out.splitlines() if "_xdp_drops:" in ln)


def wire(state: State, pod: m.Pod, flows: Path | None) -> None:
    """Build the pod's network and load the switch's flow table from the file flows (the
    generated basebox/flows.of13); None: an empty table (fail_mode=secure: everything is
    dropped) that the controller fills."""
    _netns_add(state, SWITCH_NS)
    _start_ovs(state, pod)

    for port in pod.ports_with_role("access"):
        ns = access_ns(port)
        _netns_add(state, ns)
        _veth(SWITCH_NS, f"a{port.number}", ns, "sub0")
        _access_ingress(f"a{port.number}")
        _ovs_port(f"a{port.number}", port.number)

    _netns_add(state, MGMT_NS)
    sh("ip", "link", "add", "mgmtbr", "type", "bridge", ns=MGMT_NS)
    sh("ip", "link", "set", "mgmtbr", "up", ns=MGMT_NS)
    mgmt_len = pod.management.prefixlen
    mgmt_addrs = {pod.control_plane.address} | {s.address for s in pod.radius.servers if s.address in pod.management}
    for addr in sorted(mgmt_addrs):
        sh("ip", "addr", "add", f"{addr}/{mgmt_len}", "dev", "mgmtbr", ns=MGMT_NS)

    for inst in pod.instances:
        ns = dp_ns(inst)
        _netns_add(state, ns)
        _veth(SWITCH_NS, f"v{inst.vf.emu_ofport}", ns, "data0", b_mac=inst.vf.mac)
        _ovs_port(f"v{inst.vf.emu_ofport}", inst.vf.emu_ofport)
        _veth(MGMT_NS, f"m{inst.id}", ns, "mgmt0", mtu=1500)
        sh("ip", "link", "set", f"m{inst.id}", "master", "mgmtbr", ns=MGMT_NS)
        sh("ip", "addr", "add", f"{inst.control}/{mgmt_len}", "dev", "mgmt0", ns=ns)

    _netns_add(state, CORE_NS)
    _netns_add(state, INET_NS)
    _core_router(pod)
    _enlarge_switch_buffers()
    if flows is None:
        ofctl("del-flows", BRIDGE)
    else:
        ofctl("replace-flows", BRIDGE, str(flows))


def _core_router(pod: m.Pod) -> None:
    """bngpod-core on the uplink, routing each pool via its line group's core address, and
    bngpod-inet behind it."""
    up_port = pod.core.uplink
    _veth(SWITCH_NS, f"u{up_port.number}", CORE_NS, "up0", b_mac=pod.core.router_mac)
    _ovs_port(f"u{up_port.number}", up_port.number)
    sh("ip", "addr", "add", f"{pod.core.router_address}/{pod.core.subnet.prefixlen}", "dev", "up0", ns=CORE_NS)
    _veth(CORE_NS, "srv0", INET_NS, "eth0", mtu=1500)
    net = INET_SUBNET.split("/")[1]
    sh("ip", "addr", "add", f"{INET_ROUTER}/{net}", "dev", "srv0", ns=CORE_NS)
    sh("ip", "addr", "add", f"{INET_HOST}/{net}", "dev", "eth0", ns=INET_NS)
    sh("ip", "route", "add", "default", "via", INET_ROUTER, ns=INET_NS)
    sh("sysctl", "-qw", "net.ipv4.ip_forward=1", ns=CORE_NS)
    for group in pod.groups:
        for pool in group.pools:
            sh("ip", "route", "add", str(pool.prefix), "via", str(group.core_address), ns=CORE_NS)
    if pod.core.subnet6 is not None:
        _core_router6(pod)
    # Static routes: bngpod-core also plays each other next hop (a second address on up0,
    # behind the router MAC the fold forwards to the uplink) and delivers the prefix to
    # bngpod-inet, which holds its first address.
    for via in sorted({r.via for r in pod.core.routes if r.via is not None} - {pod.core.router_address}):
        sh("ip", "addr", "add", f"{via}/{pod.core.subnet.prefixlen}", "dev", "up0", ns=CORE_NS)
    for route in pod.core.routes:
        if route.via is not None and not route.prefix.overlaps(ipaddress.IPv4Network(INET_SUBNET)):
            first = next(iter(route.prefix.hosts()), route.prefix.network_address)
            sh("ip", "addr", "add", f"{first}/32", "dev", "eth0", ns=INET_NS)
            sh("ip", "route", "add", str(route.prefix), "via", INET_HOST, ns=CORE_NS)


def _enable_ipv6(ns: str, ifname: str) -> None:
    """Kernel IPv6 on one interface: no DAD (addresses usable at once, as the pod's own
    parts use theirs) and no router discovery (the core router is configured, not told)."""
    for key, value in (("disable_ipv6", 0), ("accept_dad", 0), ("accept_ra", 0), ("router_solicitations", 0)):
        sh("sysctl", "-qw", f"net.ipv6.conf.{ifname}.{key}={value}", ns=ns)


def _core_router6(pod: m.Pod) -> None:
    """bngpod-core's IPv6: core.router.address6 on up0, forwarding, each line group's WAN
    and delegated-prefix pools via the group's core IPv6 address (which moves with the
    group: the router finds it by neighbour discovery, wherever the group is served);
    bngpod-inet behind it on INET6_SUBNET."""
    _enable_ipv6(CORE_NS, "up0")
    _enable_ipv6(CORE_NS, "srv0")
    _enable_ipv6(INET_NS, "eth0")
    sh("sysctl", "-qw", "net.ipv6.conf.all.forwarding=1", ns=CORE_NS)
    sh("ip", "-6", "addr", "add", f"{pod.core.router_address6}/{pod.core.subnet6.prefixlen}", "dev", "up0",
       "nodad", ns=CORE_NS)  # fmt: skip
    sh("ip", "-6", "addr", "add", f"{INET6_ROUTER}/{INET6_SUBNET.prefixlen}", "dev", "srv0", "nodad", ns=CORE_NS)
    sh("ip", "-6", "addr", "add", f"{INET6_HOST}/{INET6_SUBNET.prefixlen}", "dev", "eth0", "nodad", ns=INET_NS)
    sh("ip", "-6", "route", "add", "default", "via", str(INET6_ROUTER), ns=INET_NS)
    for group in pod.groups:
        for pool in group.ipv6_pools:
            for prefix in (pool.wan_prefix, pool.delegated_prefix):
                sh("ip", "-6", "route", "add", str(prefix), "via", str(group.core_address6), "dev", "up0",
                   ns=CORE_NS)  # fmt: skip


def core_routes6() -> list[str]:
    """bngpod-core's IPv6 routes (`ip -6 route`), for tests and `bngpod status`."""
    out = sh("ip", "-6", "route", "show", ns=CORE_NS, check=False).stdout
    return [ln.strip() for ln in out.splitlines() if ln.strip()]

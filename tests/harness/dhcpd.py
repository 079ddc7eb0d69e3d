"""Debian's isc-dhcp-server (ISC dhcpd 4.4) started in a network namespace, for the relay
tests: the DHCP server a BNG relays to. The configuration has the subnet of the server's
own interface (dhcpd serves nothing there) and the subscribers' subnets, which a relay
selects with giaddr or the link-selection sub-option (RFC 3527); on every commit dhcpd
stores the relay agent information (option 82) of the request in the lease, so that a test
reads what the server saw from its leases file (`leases()`), and logs it (`log()`).

Started in the foreground (-f -d) by this process, stopped by its PID (stop, or the with
block's end); its files live in a directory of the caller's."""

from __future__ import annotations

import ipaddress
import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

DHCPD = "/usr/sbin/dhcpd"
START_TIMEOUT = 15.0


def missing() -> str | None:
    """Why dhcpd cannot run here (None: it can)."""
    if not Path(DHCPD).exists() and shutil.which("dhcpd") is None:
        return "isc-dhcp-server is not installed (make setup)"
    return None


@dataclass
class Subnet:
    prefix: ipaddress.IPv4Network
    first: str  # the range handed out
    last: str
    router: str | None = None
    dns: list[str] = field(default_factory=list)


@dataclass
class Lease:
    address: str
    mac: str | None
    state: str | None
    stored: dict[str, str]  # `set NAME = "value";` of the lease: the option 82 record


def _hex(name: str) -> str:
    return f'binary-to-ascii(16, 8, ":", option agent.{name})'


def _hex_or_dash(name: str) -> str:
    """A sub-option for the log line: an absent one would make the whole concat() null."""
    return f'pick-first-value({_hex(name)}, "-")'


def config(interface_net: ipaddress.IPv4Network, subnets: list[Subnet], lease_time: int) -> str:
    """dhcpd.conf: authoritative, the interface's empty subnet, the subscribers' subnets,
    option 82's sub-options 1, 2, 5 and 11 stored in the lease (hex; an absent one is not
    stored) and logged (an absent one as "-")."""
    lines = [
        "# written by tests/harness/dhcpd.py",
        # RFC 5107's sub-option has no name in dhcpd 4.4: named here so that it can be stored
        "option agent.server-id-override code 11 = string;",
        "authoritative;",
        "ddns-update-style none;",
        f"default-lease-time {lease_time};",
        f"max-lease-time {lease_time};",
        "on commit {",
        f"  set agent-circuit-id = {_hex('circuit-id')};",
        f"  set agent-remote-id = {_hex('remote-id')};",
        f"  set agent-link-selection = {_hex('link-selection')};",
        f"  set agent-server-id-override = {_hex('server-id-override')};",
        '  log(info, concat("option82 circuit-id ", '
        + _hex_or_dash("circuit-id")
        + ', " remote-id ", '
        + _hex_or_dash("remote-id")
        + ', " link-selection ", '
        + _hex_or_dash("link-selection")
        + "));",
        "}",
        f"subnet {interface_net.network_address} netmask {interface_net.netmask} {{ }}",
    ]
    for s in subnets:
        lines.append(f"subnet {s.prefix.network_address} netmask {s.prefix.netmask} {{")
        lines.append(f"  range {s.first} {s.last};")
        if s.router:
            lines.append(f"  option routers {s.router};")
        if s.dns:
            lines.append(f"  option domain-name-servers {', '.join(s.dns)};")
        lines.append("}")
    return "\n".join(lines) + "\n"


_LEASE = re.compile(r"^lease ([0-9.]+) \{(.*?)^\}", re.MULTILINE | re.DOTALL)


def parse_leases(text: str) -> list[Lease]:
    """The leases of a dhcpd.leases file, in file order (a lease may appear several times:
    the last one counts)."""
    out = []
    for address, body in _LEASE.findall(text):
        mac = re.search(r"hardware ethernet ([0-9a-f:]+);", body)
        state = re.search(r"^\s*binding state (\w+);", body, re.MULTILINE)
        stored = dict(re.findall(r'set ([\w-]+) = "([^"]*)";', body))
        out.append(Lease(address, mac.group(1) if mac else None, state.group(1) if state else None, stored))
    return out


class IscDhcpServer:
    """dhcpd in namespace ns on interface iface, whose address is `address` (with its
    prefix length); files in workdir."""

    def __init__(
        self,
        ns: str,
        iface: str,
        address: str,
        subnets: list[Subnet],
        workdir: Path,
        lease_time: int = 600,
    ):
        self.ns, self.iface = ns, iface
        self.interface = ipaddress.IPv4Interface(address)
        self.subnets = subnets
        self.dir = Path(workdir)
        self.lease_time = lease_time
        self.conf = self.dir / "dhcpd.conf"
        self.leases_file = self.dir / "dhcpd.leases"
        self.log_file = self.dir / "dhcpd.log"
        self.proc: subprocess.Popen | None = None

    def start(self) -> IscDhcpServer:
        self.dir.mkdir(parents=True, exist_ok=True)
        self.conf.write_text(config(self.interface.network, self.subnets, self.lease_time))
        self.leases_file.write_text("")
        cmd = [
            "ip", "netns", "exec", self.ns, DHCPD, "-4", "-f", "-d",
            "-cf", str(self.conf), "-lf", str(self.leases_file), "-pf", str(self.dir / "dhcpd.pid"),
            self.iface,
        ]  # fmt: skip
        with open(self.log_file, "wb") as log:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"dhcpd exited ({self.proc.returncode}):\n{self.log()}")
            if "Server starting service." in self.log():
                return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"dhcpd did not start within {START_TIMEOUT:g} s:\n{self.log()}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def __enter__(self) -> IscDhcpServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def log(self) -> str:
        try:
            return self.log_file.read_text(errors="replace")
        except OSError:
            return ""

    def wait_log(self, text: str, timeout: float = 5.0) -> bool:
        """Whether text appears in dhcpd's log within timeout: for what the server is only
        told (a relayed DHCPRELEASE is answered by nobody, so nothing else says it arrived)."""
        deadline = time.monotonic() + timeout
        while text not in self.log():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    def leases(self) -> list[Lease]:
        try:
            return parse_leases(self.leases_file.read_text(errors="replace"))
        except OSError:
            return []

    def lease_of(self, address: str) -> Lease | None:
        found = [lease for lease in self.leases() if lease.address == address]
        return found[-1] if found else None


def hexed(value: bytes) -> str:
    """How dhcpd's binary-to-ascii(16, 8, ":", ...) writes octets: lower-case hex without
    leading zeros, colon separated."""
    return ":".join(f"{b:x}" for b in value)

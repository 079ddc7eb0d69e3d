"""A control-plane pod on loopback for the integration tests: two private FreeRADIUS servers,
two fake DP instances and one bng-cp, all on 127.200.0.0/24 (BNGCP_TEST_NET overrides the
first three octets; when something already listens on the pod's addresses of 127.200.0,
the first free 127.200.N is taken):

    .1   bng-cp: PFCP 8805, VXLAN 4789, CoA/DM 3799, metrics 19464
    .2   FreeRADIUS radius1 (auth 18120, acct 18130, secret s3cr3t-one)
    .3   FreeRADIUS radius2 (auth 18120, acct 18130, secret s3cr3t-two)
    .11  dp1: instance 1, line group lg1 (access1 S-tags 100-149, any C-tag), pool1 100.80.0.0/24
    .12  dp2: instance 2, line group lg2 (access2 S-tag 200), pool2 100.81.0.0/29 (6 addresses)

`Pod.start()` starts the RADIUS servers, the DPs and bng-cp and waits until both DPs are
associated and hold their default session; `Pod.close()` stops every process it started
(also after a failure) and removes its temporary directory unless BNGCP_KEEP=1."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from harness import fakeonos
from harness.pppoe_client import PppoeClient

from bngpod.binaries import BNG_CP, BNGCPCTL
from bngpod.clients import unix_request
from bngpod.radius import FreeRadius, Record, wait_records

from .fakedp import FakeDp


def _udp_bound_addresses() -> set[str]:
    out = set()
    try:
        for line in Path("/proc/net/udp").read_text().splitlines()[1:]:
            a = line.split()[1].split(":")[0]
            out.add(socket.inet_ntoa(bytes.fromhex(a)[::-1]))
    except (OSError, ValueError, IndexError):
        pass
    return out


def _free_net() -> str:
    """127.200.0, or the first 127.200.N whose pod addresses nothing is bound to (another run,
    or a benchmark using the same addresses, may hold 127.200.0.x)."""
    bound = _udp_bound_addresses()
    for n in range(0, 250):
        net = f"127.200.{n}"
        if not any(f"{net}.{h}" in bound for h in (1, 2, 3, 11, 12)):
            return net
    return "127.200.0"


NET = os.environ.get("BNGCP_TEST_NET") or _free_net()
CP_ADDR = f"{NET}.1"
RADIUS = [(f"{NET}.2", "s3cr3t-one"), (f"{NET}.3", "s3cr3t-two")]
AUTH_PORT, ACCT_PORT, COA_PORT = 18120, 18130, 3799
METRICS = f"{CP_ADDR}:19464"
DP_ADDR = {1: f"{NET}.11", 2: f"{NET}.12"}
AC_MAC = {1: "02:bb:00:00:00:01", 2: "02:bb:00:00:00:02"}
POOL = {1: "100.80.0.0/24", 2: "100.81.0.0/29"}
DNS = ["198.51.100.53", "198.51.100.54"]
LINE = {1: (100, None), 2: (200, None)}
TPID = {1: 0x8100, 2: 0x88A8}  # access1 is 802.1Q, access2 802.1ad  # instance -> (an S-tag of its line, C-tag range)

# RADIUS users: name -> (password, reply items). Both servers know them all, except
# "evil", whom radius2 rejects (its password there is another): the Message-Authenticator
# tests need a user only a forged Accept could let in.
USERS: dict[str, tuple[str, dict]] = {f"user{i}": (f"pw{i}", {}) for i in range(1, 41)}
USERS.update(
    {
        "chapuser": ("chap-secret", {}),
        "golduser": ("gold-pw", {"Filter-Id": "gold", "Class": ["cls-gold-1", "cls-gold-2"]}),
        "rateuser": ("rate-pw", {"WISPr-Bandwidth-Max-Down": 30000000, "WISPr-Bandwidth-Max-Up": 5000000}),
        "fixedip": ("fixed-pw", {"Framed-IP-Address": "100.80.0.200"}),
        "outside": ("outside-pw", {"Framed-IP-Address": "10.9.9.9"}),
        "interim": ("interim-pw", {"Acct-Interim-Interval": 4}),
        "evil": ("evil-pw", {}),
        "shortlived": ("short-pw", {"Session-Timeout": 3}),
    }
)
USERS_R2 = dict(USERS, evil=("not-the-evil-pw", {}))


def cp_yaml(onos_url: str | None = None) -> str:
    r1, r2 = RADIUS
    onos = ""
    if onos_url:
        onos = f"""onos:
  url: {onos_url}
  username: {fakeonos.CP_USER}
  password: {fakeonos.CP_PASSWORD}
  cp_name: cp-itest
  poll_interval: 200ms
  timeout: 1s
"""
    return (
        onos
        + f"""# written by tests/cp/pod.py
pod: itest
control_plane: {{address: {CP_ADDR}, pfcp_port: 8805, vxlan_port: 4789}}
management: {{subnet: {NET}.0/24}}
radius:
  nas_identifier: bngpod-itest
  coa_port: {COA_PORT}
  timeout_ms: 500
  retries: 1
  servers:
    - {{name: radius1, address: {r1[0]}, auth_port: {AUTH_PORT}, acct_port: {ACCT_PORT}, secret: {r1[1]}}}
    - {{name: radius2, address: {r2[0]}, auth_port: {AUTH_PORT}, acct_port: {ACCT_PORT}, secret: {r2[1]}}}
access_ports:
  - {{name: access1, tpid: 33024, rate: 10000000000}}
  - {{name: access2, tpid: 34984, rate: 10000000000}}
pools:
  - {{name: pool1, prefix: {POOL[1]}, dns: [{DNS[0]}, {DNS[1]}], line_group: lg1}}
  - {{name: pool2, prefix: {POOL[2]}, dns: [{DNS[0]}], line_group: lg2}}
qos_profiles:
  - {{name: silver, down_rate: 20000000, up_pir: 10000000}}
  - {{name: gold, down_rate: 100000000, up_pir: 50000000, up_cir: 20000000}}
line_groups:
  - {{name: lg1, ac_mac: "{AC_MAC[1]}", core_address: 100.64.0.11, core_mac: "02:cc:00:00:00:01",
     pools: [pool1], qos_profile: silver, instance: 1}}
  - {{name: lg2, ac_mac: "{AC_MAC[2]}", core_address: 100.64.0.12, core_mac: "02:cc:00:00:00:02",
     pools: [pool2], qos_profile: silver, instance: 2}}
instances:
  - id: 1
    name: dp1
    control_address: {DP_ADDR[1]}
    data_mac: "02:00:00:00:01:01"
    line_groups: [lg1]
    lines:
      - {{group: lg1, access_port: access1, stag: {{min: 100, max: 149}}, ctag: null}}
  - id: 2
    name: dp2
    control_address: {DP_ADDR[2]}
    data_mac: "02:00:00:00:01:02"
    line_groups: [lg2]
    lines:
      - {{group: lg2, access_port: access2, stag: {{min: 200, max: 200}}, ctag: null}}
"""
    )


@dataclass
class CpOptions:
    echo_interval: int = 1  # seconds
    echo_failures: int = 2
    interim: int = 300  # seconds
    auth: str = "pap,chap"
    extra: tuple[str, ...] = ()
    users_file: str | None = None  # text of a local users file: bng-cp --users (labs)


class BngCp:
    """The bng-cp process: start, stop (SIGTERM), kill (SIGKILL), its JSON log lines."""

    def __init__(self, workdir: Path, opts: CpOptions):
        self.dir = workdir
        self.opts = opts
        self.config = workdir / "cp.yaml"
        self.state = workdir / "state"
        self.sock = workdir / "cp.sock"
        self.proc: subprocess.Popen | None = None
        self.runs = 0

    def start(self) -> BngCp:
        self.state.mkdir(exist_ok=True)
        self.runs += 1
        log = open(self.dir / f"bng-cp.{self.runs}.log", "wb")  # noqa: SIM115 (the child keeps it)
        o = self.opts
        cmd = [
            str(BNG_CP),
            "--config", str(self.config),
            "--state", str(self.state),
            "--ctl", str(self.sock),
            "--metrics", METRICS,
            "--lcp-echo-interval", f"{o.echo_interval}s",
            "--lcp-echo-failures", str(o.echo_failures),
            "--interim", f"{o.interim}s",
            "--auth", o.auth,
            "--log-format", "json",
            "--log-level", "debug",
            *o.extra,
        ]  # fmt: skip
        if o.users_file is not None:
            users = self.dir / "users"
            users.write_text(o.users_file)
            cmd += ["--users", str(users)]
        try:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        finally:
            log.close()
        return self

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout: float = 10.0) -> int | None:
        """SIGTERM and wait; SIGKILL after timeout. The exit code (None when not running)."""
        if self.proc is None:
            return None
        p, self.proc = self.proc, None
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=5)
                return -9
        return p.returncode

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(timeout=5)
            self.proc = None

    def log_text(self) -> str:
        return "".join(p.read_text(errors="replace") for p in sorted(self.dir.glob("bng-cp.*.log")))

    def logs(self) -> list[dict]:
        out = []
        for line in self.log_text().splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                out.append({"msg": line, "level": "RAW"})
        return out

    # -- management API (HTTP+JSON over the unix socket) ----------------------------------------
    def api(self, method: str, path: str, timeout: float = 5.0) -> tuple[int, object]:
        status, body = unix_request(self.sock, method, path, timeout)
        try:
            return status, json.loads(body) if body else None
        except ValueError:
            return status, body.decode(errors="replace")

    def sessions(self) -> list[dict]:
        status, body = self.api("GET", "/v1/sessions")
        assert status == 200, (status, body)
        if isinstance(body, dict):  # {"sessions": [...]} or a list
            body = body.get("sessions", [])
        return list(body or [])

    def pools(self) -> list[dict]:
        status, body = self.api("GET", "/v1/pools")
        assert status == 200, (status, body)
        if isinstance(body, dict):
            body = body.get("pools", [])
        return list(body or [])

    def ctl(self, *args: str) -> subprocess.CompletedProcess:
        """bngcpctl --socket ... args (the CLI the operators use)."""
        return subprocess.run(
            [str(BNGCPCTL), "--socket", str(self.sock), *args], capture_output=True, text=True, timeout=30
        )


class Pod:
    def __init__(
        self,
        opts: CpOptions | None = None,
        lcp_offload: dict[int, bool] | None = None,
        onos_url: str | None = None,
    ):
        self.onos_url = onos_url
        self.dir = Path(tempfile.mkdtemp(prefix="bngcp-itest-"))
        self.opts = opts or CpOptions()
        self.radius = [
            FreeRadius(
                self.dir / f"radius{i + 1}",
                address=addr,
                auth_port=AUTH_PORT,
                acct_port=ACCT_PORT,
                secret=secret,
                nas_addresses=[CP_ADDR],
                users=USERS if i == 0 else USERS_R2,
            )
            for i, (addr, secret) in enumerate(RADIUS)
        ]
        off = lcp_offload or {}
        self.dps = {
            i: FakeDp(
                i,
                DP_ADDR[i],
                CP_ADDR,
                ac_macs={AC_MAC[i]},
                lcp_offload=off.get(i, True),
                periodic_usage=True,  # URR Measurement Period reports, as bng-dp sends them
                heartbeat_interval=5.0,  # as bng-dp
            )
            for i in (1, 2)
        }
        self.cp = BngCp(self.dir, self.opts)
        self._macs = itertools.count(1)

    def start(self, timeout: float = 20.0) -> Pod:
        (self.dir / "cp.yaml").write_text(cp_yaml(self.onos_url))
        for r in self.radius:
            r.start()
        for dp in self.dps.values():
            dp.start()
        self.cp.start()
        self.wait_ready(timeout)
        return self

    def wait_ready(self, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        for dp in self.dps.values():
            try:
                dp.wait(lambda dp=dp: dp.associated and dp.default_session(), max(deadline - time.monotonic(), 0.1))
            except AssertionError as e:
                alive = "running" if self.cp.alive() else f"exited {self.cp.proc and self.cp.proc.returncode}"
                raise AssertionError(f"{e}; bng-cp {alive}; log:\n{self.cp.log_text()[-4000:]}") from None

    def close(self) -> None:
        try:
            self.cp.stop()
        finally:
            for dp in self.dps.values():
                dp.close()
            for r in self.radius:
                r.stop()
            if os.environ.get("BNGCP_KEEP") != "1":
                shutil.rmtree(self.dir, ignore_errors=True)

    # -- subscribers ---------------------------------------------------------------------------
    def client(self, instance: int = 1, user: str = "user1", password: str | None = None, **kw) -> PppoeClient:
        """A CPE on a line of `instance` with a MAC of its own; C-tag = its number unless given."""
        n = next(self._macs)
        stag = kw.pop("stag", LINE[instance][0])
        ctag = kw.pop("ctag", n % 4000 + 1)
        mac = kw.pop("mac", f"02:11:00:{instance:02x}:{n >> 8 & 0xFF:02x}:{n & 0xFF:02x}")
        pw = password if password is not None else USERS[user][0]
        kw.setdefault("outer_tpid", TPID[instance])
        return PppoeClient(self.dps[instance], mac, stag, ctag, user=user, password=pw, **kw)

    # -- RADIUS ----------------------------------------------------------------------------------
    def accounting(self, **match: str) -> list[Record]:
        """Accounting records of both servers (in arrival order per server) matching `match`."""
        out: list[Record] = []
        for r in self.radius:
            out += r.accounting(**match)
        return out

    def wait_accounting(self, timeout: float = 10.0, count: int = 1, **match: str) -> list[Record]:
        return wait_records(self.accounting, timeout, count, **match)

    def access_requests(self, user: str) -> list[Record]:
        return [x for r in self.radius for x in r.records("auth-detail") if x.get("User-Name") == user]

    def dynauth(self, kind: str, attrs: dict[str, str], server: int = 0, secret: str | None = None) -> str:
        """A CoA-Request or Disconnect-Request (kind "coa" / "disconnect") from a RADIUS server's
        address with radclient; radclient's output (contains CoA-ACK, Disconnect-NAK, ...)."""
        addr, sec = RADIUS[server]
        lines = [f"Packet-Src-IP-Address = {addr}", "Message-Authenticator = 0x00"]
        for k, v in attrs.items():
            lines.append(f'{k} = "{v}"' if isinstance(v, str) else f"{k} = {v}")
        p = subprocess.run(
            ["radclient", "-x", "-r", "2", "-t", "2", f"{CP_ADDR}:{COA_PORT}", kind, secret or sec],
            input="\n".join(lines) + "\n",
            capture_output=True,
            text=True,
            timeout=30,
        )
        return p.stdout + p.stderr

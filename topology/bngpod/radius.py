"""A private FreeRADIUS: the emulated pod's RADIUS server (`bngpod up`), the one of the
control-plane tests and of the CP benchmark. A manager of the server only: RADIUS clients
belong to what they test (tests/harness/radius_codec.py).

`FreeRadius(workdir, ...)` copies the Debian configuration (/etc/freeradius/3.0) into
`workdir/raddb`, strips it to what a BNG needs and starts `freeradius -f` on one address
with an authentication and an accounting port, optionally inside a network namespace
(`netns=`, as `bngpod up` runs it in bngpod-mgmt):

- clients: one per NAS address, with the given secret and `require_message_authenticator
  = yes` (an Access-Request without a valid Message-Authenticator is dropped);
- users (`mods-config/files/authorize`): `user -> (password, reply)`, the password as
  Cleartext-Password (so PAP and CHAP-MD5 both work), the reply items (Framed-IP-Address,
  Filter-Id, WISPr-Bandwidth-Max-Down, Class, Acct-Interim-Interval, Session-Timeout,
  Reply-Message, ...) written as they are given; or a users file's text as it is
  (`users_text=`);
- every Access-Accept and Access-Reject carries a Message-Authenticator (FreeRADIUS 3.2.1
  does not add one to non-EAP replies by itself; the post-auth section asks for it);
- detail files (`records()`): `detail` (every Accounting-Request received) and, unless
  `request_detail=False`, `auth-detail` (every Access-Request, as decoded, before
  authentication) and `reply-detail` (every reply to an Access-Request, Accept or Reject):
  the tests' instruments, which a benchmark leaves out;
- `recv_buff=` sets the listeners' socket receive buffers (the kernel's default, 208 KiB,
  overflows when a thousand Access-Requests arrive at once).

Command line (for shells, the CP benchmark, and by hand):

    python3 -m bngpod.radius up DIR --address 127.200.0.2 --auth-port 18120 \\
        --acct-port 18130 --secret S --client 127.200.0.1 [--client ...] --users N \\
        [--recv-buff BYTES] [--no-request-detail] [--debug]
    python3 -m bngpod.radius down DIR
    python3 -m bngpod.radius records DIR [detail|auth-detail|reply-detail]

`up` creates the users user1..userN with password pw1..pwN (user7's password is pw7) and no
reply items, starts the server in the background (its pid in DIR/freeradius.pid, its log
in DIR/radius.log, DIR/stdout.log), waits until both ports are bound and exits 0; `down`
stops it (SIGTERM, then SIGKILL) and leaves DIR in place; `records` prints the parsed
records of a detail file as JSON lines."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

SYSTEM_RADDB = Path("/etc/freeradius/3.0")
FREERADIUS = "freeradius"

# modules kept from mods-enabled; everything else (eap, mschap, unix, ...) is removed
KEEP_MODULES = ("always", "pap", "chap", "files", "expr", "attr_filter")

Reply = Mapping[str, "str | int | list[str | int]"]


class RadiusError(RuntimeError):
    pass


def installed() -> bool:
    return shutil.which(FREERADIUS) is not None and SYSTEM_RADDB.is_dir()


def _quote(v: str | int) -> str:
    if isinstance(v, int):
        return str(v)
    if re.fullmatch(r"[0-9]+(\.[0-9]+){3}(/[0-9]+)?", v) or re.fullmatch(r"0x[0-9a-fA-F]+", v):
        return v
    return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'


def users_file(users: Mapping[str, tuple[str, Reply]]) -> str:
    """The FreeRADIUS `files` module text for `users`."""
    out = []
    for name, (password, reply) in users.items():
        out.append(f"{_quote(name)}\tCleartext-Password := {_quote(password)}")
        items = []
        for attr, val in (reply or {}).items():
            for v in val if isinstance(val, list) else [val]:
                items.append(f"\t{attr} += {_quote(v)}")
        if items:
            out[-1] += "\n" + ",\n".join(items)
        out.append("")
    out.append('DEFAULT\tAuth-Type := Reject\n\tReply-Message = "unknown user"\n')
    return "\n".join(out)


def _bound_udp(addr: str, port: int, pid: int | None = None) -> bool:
    """Whether something listens on UDP addr:port (from /proc/net/udp, or the one of pid's
    network namespace)."""
    want_port = f"{port:04X}"
    want_addr = socket.inet_aton(addr)[::-1].hex().upper()
    try:
        lines = Path(f"/proc/{pid}/net/udp" if pid else "/proc/net/udp").read_text().splitlines()[1:]
    except OSError:
        return False
    for line in lines:
        local = line.split()[1]
        a, p = local.split(":")
        if p == want_port and a in (want_addr, "00000000"):
            return True
    return False


class Record(dict):
    """One detail record: attribute -> first value (quotes removed); `all(attr)` for repeats;
    `header` is the record's time line."""

    def __init__(self, header: str):
        super().__init__()
        self.header = header
        self.multi: dict[str, list[str]] = {}

    def add(self, attr: str, value: str) -> None:
        self.multi.setdefault(attr, []).append(value)
        self.setdefault(attr, value)

    def all(self, attr: str) -> list[str]:
        return list(self.multi.get(attr, []))

    @property
    def user(self) -> str:
        """The request's User-Name, from the header (the only place a reply record has it)."""
        return self.header.partition(" user=")[2]


def parse_detail(text: str) -> list[Record]:
    """Records of a FreeRADIUS detail file."""
    recs: list[Record] = []
    cur: Record | None = None
    for line in text.splitlines():
        if not line.strip():
            cur = None
            continue
        if not line[0].isspace():
            cur = Record(line.strip())
            recs.append(cur)
            continue
        if cur is None or "=" not in line:
            continue
        attr, _, val = line.strip().partition(" = ")
        val = val.strip()
        if len(val) >= 2 and val[0] == '"' and val[-1] == '"':
            val = val[1:-1].replace('\\"', '"').replace("\\\\", "\\")
        cur.add(attr.strip(), val)
    return recs


class FreeRadius:
    """A private FreeRADIUS: `start()`, `stop()`, `records()`; a context manager too."""

    def __init__(
        self,
        workdir: str | os.PathLike,
        address: str = "127.0.0.1",
        auth_port: int = 18120,
        acct_port: int = 18130,
        secret: str = "testing123",  # noqa: S107 (a lab secret on loopback)
        nas_addresses: Iterable[str] = ("127.0.0.1",),
        users: Mapping[str, tuple[str, Reply]] | None = None,
        debug: bool = False,
        netns: str | None = None,
        users_text: str | None = None,
        recv_buff: int | None = None,
        request_detail: bool = True,
    ):
        self.dir = Path(workdir).resolve()
        self.raddb = self.dir / "raddb"
        self.address = address
        self.auth_port = auth_port
        self.acct_port = acct_port
        self.secret = secret
        self.nas_addresses = list(nas_addresses)
        self.users = dict(users or {})
        self.debug = debug
        self.netns = netns
        self.users_text = users_text
        self.recv_buff = recv_buff
        self.request_detail = request_detail
        self.proc: subprocess.Popen | None = None
        self.detail = self.dir / "detail"
        self.auth_detail = self.dir / "auth-detail"
        self.reply_detail = self.dir / "reply-detail"
        self.log = self.dir / "radius.log"
        self.pidfile = self.dir / "freeradius.pid"

    # -- configuration ------------------------------------------------------------------
    def configure(self) -> None:
        if not installed():
            raise RadiusError(f"{FREERADIUS} or {SYSTEM_RADDB} is missing (apt-get install freeradius)")
        self.dir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.dir, 0o700)
        if self.raddb.exists():
            shutil.rmtree(self.raddb)
        shutil.copytree(SYSTEM_RADDB, self.raddb, symlinks=True)
        (self.dir / "run").mkdir(exist_ok=True)
        conf = self.raddb / "radiusd.conf"
        text = conf.read_text()
        subst = {
            "logdir": str(self.dir),
            "raddbdir": str(self.raddb),
            "run_dir": str(self.dir / "run"),
            "radacctdir": str(self.dir / "radacct"),
            "max_requests": "262144",
            "reject_delay": "0",
        }
        for key, val in subst.items():
            text, n = re.subn(rf"(?m)^(\s*){key}\s*=.*$", rf"\g<1>{key} = {val}", text, count=1)
            if n != 1:
                raise RadiusError(f"radiusd.conf: no {key} line")
        text = re.sub(r"(?m)^(\s*)(user|group)\s*=.*$", r"\1# \2 removed by bngpod.radius", text)
        conf.write_text(text)

        enabled = self.raddb / "mods-enabled"
        for p in enabled.iterdir():
            if p.name not in KEEP_MODULES:
                p.unlink()
        (enabled / "bngpod_detail").write_text(self._detail_modules())
        for p in (self.raddb / "sites-enabled").iterdir():
            p.unlink()
        (self.raddb / "sites-enabled" / "bngpod").write_text(self._site())
        (self.raddb / "clients.conf").write_text(self._clients())
        (self.raddb / "mods-config" / "files" / "authorize").write_text(
            self.users_text if self.users_text is not None else users_file(self.users)
        )

    def _detail_modules(self) -> str:
        out = []
        for name, path in (
            ("bngpod_acct", self.detail),
            ("bngpod_auth", self.auth_detail),
            ("bngpod_reply", self.reply_detail),
        ):
            out.append(
                f"detail {name} {{\n\tfilename = {path}\n\tescape_filenames = no\n\tpermissions = 0600\n"
                f'\theader = "%t user=%{{User-Name}}"\n\tlocking = no\n}}\n'
            )
        return "\n".join(out)

    def _site(self) -> str:
        recv_buff = f"\n\trecv_buff = {self.recv_buff}" if self.recv_buff else ""
        auth_log = "\tbngpod_auth\n" if self.request_detail else ""
        reply_log = "\tbngpod_reply\n" if self.request_detail else ""
        reject_log = "\t\tbngpod_reply\n" if self.request_detail else ""
        return f"""server bngpod {{
listen {{
	type = auth{recv_buff}
	ipaddr = {self.address}
	port = {self.auth_port}
}}
listen {{
	type = acct{recv_buff}
	ipaddr = {self.address}
	port = {self.acct_port}
}}
authorize {{
{auth_log}	chap
	files
	pap
}}
authenticate {{
	Auth-Type PAP {{
		pap
	}}
	Auth-Type CHAP {{
		chap
	}}
}}
preacct {{
}}
accounting {{
	bngpod_acct
	ok
}}
post-auth {{
	update reply {{
		Message-Authenticator := 0x00
	}}
{reply_log}	Post-Auth-Type REJECT {{
		update reply {{
			Message-Authenticator := 0x00
		}}
{reject_log}	}}
}}
}}
"""

    def _clients(self) -> str:
        out = []
        for i, addr in enumerate(self.nas_addresses):
            out.append(
                f"client nas{i} {{\n\tipaddr = {addr}\n\tsecret = {self.secret}\n"
                f"\trequire_message_authenticator = yes\n\tnas_type = other\n}}\n"
            )
        return "\n".join(out)

    # -- process --------------------------------------------------------------------------
    def start(self, timeout: float = 20.0, detach: bool = False) -> FreeRadius:
        """Configure, start and wait until both ports are bound. `detach` puts the server in its
        own session (the command line's `up`)."""
        self.configure()
        cmd = [FREERADIUS, "-f", "-d", str(self.raddb), "-n", "radiusd"]
        if self.netns:
            cmd = ["ip", "netns", "exec", self.netns, *cmd]
        if self.debug:
            cmd += ["-X"]
        else:
            cmd += ["-l", str(self.log)]
        out = open(self.dir / "stdout.log", "wb")  # noqa: SIM115 (the child keeps it)
        try:
            self.proc = subprocess.Popen(
                cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=detach
            )
        finally:
            out.close()
        self.pidfile.write_text(f"{self.proc.pid}\n")
        deadline = time.monotonic() + timeout
        while not self.bound(self.proc.pid if self.netns else None):
            if self.proc.poll() is not None:
                raise RadiusError(f"freeradius exited with {self.proc.returncode}:\n{self.output()}")
            if time.monotonic() > deadline:
                self.stop()
                raise RadiusError(f"freeradius did not bind its ports in {timeout} s:\n{self.output()}")
            time.sleep(0.05)
        return self

    def bound(self, pid: int | None = None) -> bool:
        """Whether the authentication and accounting ports are bound (in pid's network
        namespace when given): FreeRADIUS opens its listeners once its configuration and
        modules are loaded, and answers what arrives from then on."""
        return _bound_udp(self.address, self.auth_port, pid) and _bound_udp(self.address, self.acct_port, pid)

    def output(self, tail: int = 4000) -> str:
        text = ""
        for p in (self.dir / "stdout.log", self.log):
            if p.exists():
                text += p.read_text(errors="replace")[-tail:]
        return text

    def stop(self) -> None:
        if self.proc is not None:
            _terminate(self.proc.pid, self.proc)
            self.proc = None
        elif self.pidfile.exists():
            stop_dir(self.dir)
        self.pidfile.unlink(missing_ok=True)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def pause(self) -> None:
        """SIGSTOP: the server is 'down' (its ports stay bound, nothing answers)."""
        if self.proc is not None:
            os.kill(self.proc.pid, signal.SIGSTOP)

    def resume(self) -> None:
        if self.proc is not None:
            os.kill(self.proc.pid, signal.SIGCONT)

    def __enter__(self) -> FreeRadius:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- what the server saw ----------------------------------------------------------------
    def records(self, which: str = "detail") -> list[Record]:
        """Parsed records of `detail` (accounting), `auth-detail` (Access-Requests) or
        `reply-detail` (replies to Access-Requests)."""
        path = self.dir / which
        return parse_detail(path.read_text(errors="replace")) if path.exists() else []

    def accounting(self, **match: str) -> list[Record]:
        """Accounting records whose attributes equal `match` (e.g. Acct_Status_Type="Stop":
        underscores stand for dashes)."""
        want = {k.replace("_", "-"): v for k, v in match.items()}
        return [r for r in self.records("detail") if all(r.get(k) == v for k, v in want.items())]

    def wait_accounting(self, timeout: float = 10.0, count: int = 1, **match: str) -> list[Record]:
        return wait_records(self.accounting, timeout, count, **match)


def wait_records(fetch, timeout: float = 10.0, count: int = 1, **match: str) -> list[Record]:
    """Poll fetch(**match) until it returns at least count accounting records."""
    deadline = time.monotonic() + timeout
    while True:
        got = fetch(**match)
        if len(got) >= count:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"{count} accounting records {match} not seen in {timeout} s; got {got}")
        time.sleep(0.1)


def _terminate(pid: int, proc: subprocess.Popen | None = None, timeout: float = 5.0) -> None:
    try:
        os.kill(pid, signal.SIGCONT)
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None:
            if proc.poll() is not None:
                return
        else:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
        time.sleep(0.05)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    if proc is not None:
        proc.wait(timeout=5)


def stop_dir(workdir: str | os.PathLike) -> bool:
    """Stop the server started in workdir (by its pid file). False when none ran."""
    pidfile = Path(workdir) / "freeradius.pid"
    if not pidfile.exists():
        return False
    pid = int(pidfile.read_text().strip() or 0)
    pidfile.unlink()
    if pid <= 0:
        return False
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    if not cmdline or Path(cmdline[0].decode(errors="replace")).name not in ("freeradius", "radiusd"):
        return False  # the pid was reused by something else: leave it alone
    _terminate(pid)
    return True


def numbered_users(n: int) -> dict[str, tuple[str, Reply]]:
    """user1..userN with passwords pw1..pwN."""
    return {f"user{i}": (f"pw{i}", {}) for i in range(1, n + 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m bngpod.radius", description="a private FreeRADIUS in a directory")
    sub = ap.add_subparsers(dest="cmd", required=True)
    up = sub.add_parser("up", help="configure and start a FreeRADIUS in DIR")
    up.add_argument("dir")
    up.add_argument("--address", default="127.0.0.1")
    up.add_argument("--auth-port", type=int, default=18120)
    up.add_argument("--acct-port", type=int, default=18130)
    up.add_argument("--secret", default="testing123")
    up.add_argument("--client", action="append", help="NAS address allowed (repeatable; default 127.0.0.1)")
    up.add_argument("--users", type=int, default=10, help="users user1..userN, passwords pw1..pwN")
    up.add_argument(
        "--ipoe-users", type=int, default=0, help="also ipoe1..ipoeN, password ipoe (IPoE's default User-Password)"
    )
    up.add_argument("--recv-buff", type=int, metavar="BYTES", help="socket receive buffer of both listeners")
    up.add_argument(
        "--no-request-detail",
        dest="request_detail",
        action="store_false",
        help="no auth-detail and reply-detail files (the tests' per-request logs)",
    )
    up.add_argument("--debug", action="store_true", help="freeradius -X (slow: not for benchmarks)")
    down = sub.add_parser("down", help="stop the FreeRADIUS of DIR")
    down.add_argument("dir")
    rec = sub.add_parser("records", help="print a detail file's records as JSON lines")
    rec.add_argument("dir")
    rec.add_argument("which", nargs="?", default="detail", choices=["detail", "auth-detail", "reply-detail"])
    a = ap.parse_args(argv)
    if a.cmd == "up":
        stop_dir(a.dir)
        r = FreeRadius(
            a.dir,
            address=a.address,
            auth_port=a.auth_port,
            acct_port=a.acct_port,
            secret=a.secret,
            nas_addresses=a.client or ["127.0.0.1"],
            users=numbered_users(a.users) | {f"ipoe{i}": ("ipoe", {}) for i in range(1, a.ipoe_users + 1)},
            debug=a.debug,
            recv_buff=a.recv_buff,
            request_detail=a.request_detail,
        )
        try:
            r.start(detach=True)
        except RadiusError as e:
            print(f"radius: {e}", file=sys.stderr)
            return 1
        buff = f" (recv_buff {a.recv_buff})" if a.recv_buff else ""
        print(f"freeradius pid {r.proc.pid} on {a.address} auth {a.auth_port} acct {a.acct_port}{buff}")
        return 0
    if a.cmd == "down":
        if not stop_dir(a.dir):
            print(f"radius: no FreeRADIUS running in {a.dir}", file=sys.stderr)
        return 0
    for r in FreeRadius(a.dir).records(a.which):
        print(json.dumps({"header": r.header, **r.multi}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Clients of the pod's read-side interfaces, for the CLI, the demo, the benchmarks and the
tests (one copy of each):

- `unix_request` / `unix_get`: HTTP/1.1 on a unix socket: bng-cp's management API
  (`--ctl`, docs/cp/operations.md) and bng-subemu's status API (`--status`);
- `telemetry`: commands on a DPDK telemetry socket (`dpdk_telemetry.v2`, SOCK_SEQPACKET:
  one JSON reply per command), such as bng-dp's `/bng/stats`;
- `scrape`: a Prometheus text exposition (bng-cp's `--metrics`) as name -> value;
- `rest`: a JSON request with HTTP Basic credentials (the controller's REST API, as ONOS's).

Each opens its socket in the caller's network namespace (bngpod.rawsock.in_netns to choose
another) and raises OSError when the peer cannot be reached or does not answer."""

from __future__ import annotations

import base64
import http.client
import json
import socket
from pathlib import Path

DPDK_RUNTIME = Path("/var/run/dpdk")
TELEMETRY_SOCKET = "dpdk_telemetry.v2"
# A telemetry reply is one datagram; DPDK caps it at 16 KiB by default, but bng-dp's session
# lists are longer, so read up to 1 MiB.
TELEMETRY_MAX_REPLY = 1 << 20


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str | Path, timeout: float):
        super().__init__("localhost", timeout=timeout)
        self.unix_path = str(path)

    def connect(self) -> None:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        try:
            s.connect(self.unix_path)
        except OSError:
            s.close()
            raise
        self.sock = s


def unix_request(sock: str | Path, method: str, url: str, timeout: float = 3.0) -> tuple[int, bytes]:
    """One HTTP request on the unix socket sock: (status, body)."""
    conn = _UnixConnection(sock, timeout)
    try:
        conn.request(method, url)
        r = conn.getresponse()
        return r.status, r.read()
    except http.client.HTTPException as exc:
        raise OSError(f"{sock} {method} {url}: {exc!r}") from None
    finally:
        conn.close()


def unix_get(sock: str | Path, url: str, timeout: float = 3.0):
    """GET url from the HTTP server on the unix socket sock; its JSON. OSError when it cannot
    be reached or does not answer 200, ValueError when the body is not JSON."""
    status, body = unix_request(sock, "GET", url, timeout)
    if status != 200:
        raise OSError(f"{sock} {url}: HTTP {status}: {body[:200]!r}")
    return json.loads(body)


def telemetry_socket(file_prefix: str) -> Path:
    """The telemetry socket of the DPDK process run with --file-prefix=file_prefix."""
    return DPDK_RUNTIME / file_prefix / TELEMETRY_SOCKET


def telemetry(path: str | Path, *commands: str, timeout: float = 5.0) -> list:
    """Run commands on the DPDK telemetry socket at path, on one connection; the value of each
    reply in order (a reply is {"<command without parameters>": value})."""
    out = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as s:
        s.settimeout(timeout)
        s.connect(str(path))
        s.recv(16384)  # the greeting: version, pid, max_output_len
        for cmd in commands:
            s.send(cmd.encode())
            reply = json.loads(s.recv(TELEMETRY_MAX_REPLY))
            out.append(reply.get(cmd.split(",", 1)[0]) if isinstance(reply, dict) else None)
    return out


def parse_prometheus(text: str) -> dict[str, float]:
    """Samples of a Prometheus text exposition by their full name (`name{labels}`); lines
    that are comments or whose value is not a number are left out."""
    got: dict[str, float] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        name, _, value = line.rpartition(" ")
        try:
            got[name] = float(value)
        except ValueError:
            continue
    return got


def scrape(host: str, port: int, path: str = "/metrics", timeout: float = 3.0) -> dict[str, float]:
    """The Prometheus metrics served at http://host:port/path (parse_prometheus)."""
    status, body = _http(host, port, "GET", path, None, {}, timeout)
    if status != 200:
        raise OSError(f"GET http://{host}:{port}{path}: HTTP {status}")
    return parse_prometheus(body.decode(errors="replace"))


def _http(host: str, port: int, method: str, path: str, data: bytes | None, headers: dict, timeout: float):
    """One HTTP request on a connection of its own: (status, body). OSError when the server
    cannot be reached or does not answer."""
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        conn.request(method, path, body=data, headers=headers)
        r = conn.getresponse()
        return r.status, r.read()
    except http.client.HTTPException as exc:
        raise OSError(f"{method} http://{host}:{port}{path}: {exc!r}") from None
    finally:
        conn.close()


def rest(
    host: str,
    port: int,
    method: str,
    path: str,
    user: str,
    password: str,
    body: dict | None = None,
    timeout: float = 5.0,
) -> tuple[int, object]:
    """One JSON request to http://host:port/path as user: (status, the answer's JSON, or None
    when it has no body). OSError when the server cannot be reached or does not answer."""
    auth = base64.b64encode(f"{user}:{password}".encode()).decode()
    headers = {"Authorization": f"Basic {auth}", "Accept": "application/json"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    status, raw = _http(host, port, method, path, data, headers, timeout)
    return status, (json.loads(raw) if raw.strip() else None)

"""The servers of the emulated pod's internet host (bngpod-inet): what subscribers reach.

    python -m bngpod.servers serve [--address 0.0.0.0] [--address6 ::] [--echo-port 7] [--http-port 80]
                                   [--log FILE]
    python -m bngpod.servers check HOST [--echo-port 7] [--http-port 80] [--timeout 3]

`serve` runs, in one asyncio loop: UDP echo and TCP echo (RFC 862) on the echo port, and an
HTTP/1.1 server on the HTTP port with `/` (a small page), `/bytes/N` (N bytes of
application/octet-stream, N up to 10 GiB, for download tests) and `/health`; the same on
--address6 when the host has IPv6 (none with --address6 ""). It prints "ready" once every
socket is bound, and stops on SIGTERM or SIGINT.

`check` sends a UDP echo, a TCP echo and an HTTP GET to HOST and exits 0 when all three
answer correctly, else 1 naming the part that did not."""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import socket
import sys
import time

MAX_BYTES = 10 << 30
CHUNK = 64 << 10
PAGE = b"""<!doctype html>
<html><head><title>bngpod inet host</title></head>
<body><h1>bngpod</h1><p>You reached the emulated pod's internet host through your BNG.</p>
<p>Download test: <a href="/bytes/1048576">/bytes/1048576</a></p></body></html>
"""
_REQUEST = re.compile(rb"^(GET|HEAD) (\S+) HTTP/1\.[01]\r?$")


class UdpEcho(asyncio.DatagramProtocol):
    def connection_made(self, transport):
        self.transport = transport

    def datagram_received(self, data, addr):
        self.transport.sendto(data, addr)


async def tcp_echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(CHUNK):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        writer.close()


def _response(status: str, body: bytes, ctype: str = "text/plain; charset=utf-8", length: int | None = None) -> bytes:
    n = len(body) if length is None else length
    return (
        f"HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {n}\r\nConnection: keep-alive\r\n"
        "Server: bngpod\r\n\r\n"
    ).encode()


async def http(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            try:
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
            except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
                return
            first = head.split(b"\n", 1)[0]
            m = _REQUEST.match(first)
            if m is None:
                writer.write(_response("400 Bad Request", b"bad request\n") + b"bad request\n")
                await writer.drain()
                return
            method, path = m.group(1), m.group(2).decode(errors="replace").split("?", 1)[0]
            send_body = method == b"GET"
            if path in ("/", "/index.html"):
                writer.write(_response("200 OK", PAGE, "text/html; charset=utf-8") + (PAGE if send_body else b""))
            elif path == "/health":
                writer.write(_response("200 OK", b"ok\n") + (b"ok\n" if send_body else b""))
            elif (bm := re.fullmatch(r"/bytes/([0-9]{1,11})", path)) and int(bm.group(1)) <= MAX_BYTES:
                n = int(bm.group(1))
                writer.write(_response("200 OK", b"", "application/octet-stream", n))
                chunk = bytes(CHUNK)
                left = n if send_body else 0
                while left > 0:
                    writer.write(chunk[: min(left, CHUNK)])
                    left -= min(left, CHUNK)
                    await writer.drain()
            else:
                body = b"not found\n"
                writer.write(_response("404 Not Found", body) + (body if send_body else b""))
            await writer.drain()
            if re.search(rb"(?im)^connection:\s*close\s*$", head) or first.endswith(b"1.0\r"):
                return
    except ConnectionError:
        pass
    finally:
        writer.close()


async def _serve6(address6: str, echo_port: int, http_port: int) -> list:
    """The same servers on an IPv6 address (IPV6_V6ONLY: the IPv4 ones stay apart); none
    where the host has no IPv6 (a pod without it)."""
    loop = asyncio.get_running_loop()
    sock = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    try:
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind((address6, echo_port))
    except OSError as exc:
        sock.close()
        print(f"no IPv6 servers on [{address6}]: {exc}", flush=True)
        return []
    udp, _ = await loop.create_datagram_endpoint(UdpEcho, sock=sock)
    tcp = await asyncio.start_server(tcp_echo, address6, echo_port, reuse_address=True)
    web = await asyncio.start_server(http, address6, http_port, reuse_address=True)
    print(f"ready: udp/tcp echo [{address6}]:{echo_port}, http [{address6}]:{http_port}", flush=True)
    return [udp, tcp, web]


async def serve(address: str, echo_port: int, http_port: int, address6: str | None = None) -> None:
    loop = asyncio.get_running_loop()
    udp, _ = await loop.create_datagram_endpoint(UdpEcho, local_addr=(address, echo_port), reuse_port=False)
    tcp = await asyncio.start_server(tcp_echo, address, echo_port, reuse_address=True)
    web = await asyncio.start_server(http, address, http_port, reuse_address=True)
    more = await _serve6(address6, echo_port, http_port) if address6 else []
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    print(f"ready: udp/tcp echo {address}:{echo_port}, http {address}:{http_port} (pid {os.getpid()})", flush=True)
    await stop.wait()
    for server in (udp, tcp, web, *more):
        server.close()
    print("stopped", flush=True)


def check(host: str, echo_port: int = 7, http_port: int = 80, timeout: float = 3.0) -> list[str]:
    """What of the servers on host does not answer (empty: all do)."""
    failed = []
    payload = f"bngpod-check {time.time()}".encode()
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.settimeout(timeout)
            s.sendto(payload, (host, echo_port))
            if s.recvfrom(2048)[0] != payload:
                failed.append("UDP echo: wrong answer")
    except OSError as exc:
        failed.append(f"UDP echo {host}:{echo_port}: {exc or 'no answer'}")
    try:
        with socket.create_connection((host, echo_port), timeout=timeout) as s:
            s.sendall(payload)
            got = b""
            while len(got) < len(payload) and (data := s.recv(2048)):
                got += data
            if got != payload:
                failed.append("TCP echo: wrong answer")
    except OSError as exc:
        failed.append(f"TCP echo {host}:{echo_port}: {exc or 'no answer'}")
    try:
        status, body = http_get(host, "/bytes/1000", http_port, timeout)
        if status != 200 or body != bytes(1000):
            failed.append(f"HTTP {host}:{http_port}: status {status}, {len(body)} bytes")
    except OSError as exc:
        failed.append(f"HTTP {host}:{http_port}: {exc or 'no answer'}")
    return failed


def http_get(host: str, path: str, port: int = 80, timeout: float = 3.0) -> tuple[int, bytes]:
    """A plain GET over a socket made in the caller's namespace: (status, body)."""
    with socket.create_connection((host, port), timeout=timeout) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(CHUNK):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/") else 0
    return status, body


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bngpod.servers", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve", help="run UDP/TCP echo and HTTP")
    s.add_argument("--address", default="0.0.0.0")  # noqa: S104 (the inet host's every address)
    s.add_argument("--address6", default="::", help='the IPv6 address to serve on too ("": none)')
    s.add_argument("--echo-port", type=int, default=7)
    s.add_argument("--http-port", type=int, default=80)
    s.add_argument("--log", help="append stdout and stderr to this file (also marks the run dir)")
    c = sub.add_parser("check", help="check that the servers on HOST answer")
    c.add_argument("host")
    c.add_argument("--echo-port", type=int, default=7)
    c.add_argument("--http-port", type=int, default=80)
    c.add_argument("--timeout", type=float, default=3.0)
    a = ap.parse_args(argv)
    if a.cmd == "serve":
        if a.log:
            fd = os.open(a.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.close(fd)
        try:
            asyncio.run(serve(a.address, a.echo_port, a.http_port, a.address6 or None))
        except OSError as exc:
            print(f"bngpod.servers: {exc}", file=sys.stderr, flush=True)
            return 1
        return 0
    failed = check(a.host, a.echo_port, a.http_port, a.timeout)
    for f in failed:
        print(f, file=sys.stderr)
    if not failed:
        print(f"{a.host}: UDP echo, TCP echo and HTTP answer")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""bngpod.clients against small local servers (no root): HTTP on a unix socket, a DPDK
telemetry socket (SOCK_SEQPACKET) and a Prometheus exposition."""

from __future__ import annotations

import json
import socket
import socketserver
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from bngpod import clients


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        routes = {
            "/v1/stats": (200, b'{"up": 3}'),
            "/metrics": (
                200,
                b"# HELP bngcp_sessions sessions\n# TYPE bngcp_sessions gauge\nbngcp_sessions 4\n"
                b'bngcp_setups_total{instance="1"} 12\nodd_line not-a-number\n\nbngcp_nan NaN\n',
            ),
            "/bad": (200, b"not json"),
        }
        status, body = routes.get(self.path, (404, b"nope"))
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class _UnixHTTPServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def get_request(self):
        conn, _ = super().get_request()
        return conn, ("local", 0)  # BaseHTTPRequestHandler wants an address pair


@pytest.fixture
def unix_server(tmp_path):
    path = tmp_path / "api.sock"
    srv = _UnixHTTPServer(str(path), _Handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield path
    srv.shutdown()
    srv.server_close()


def test_unix_get_returns_json_and_refuses_errors(unix_server, tmp_path):
    assert clients.unix_get(unix_server, "/v1/stats") == {"up": 3}
    with pytest.raises(OSError, match="HTTP 404"):
        clients.unix_get(unix_server, "/v1/none")
    with pytest.raises(ValueError):
        clients.unix_get(unix_server, "/bad")
    assert clients.unix_request(unix_server, "GET", "/v1/none") == (404, b"nope")
    with pytest.raises(OSError):
        clients.unix_get(tmp_path / "absent.sock", "/v1/stats", timeout=0.5)


def test_scrape_parses_the_exposition():
    srv = HTTPServer(("127.0.0.1", 0), _Handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        got = clients.scrape("127.0.0.1", srv.server_address[1])
        with pytest.raises(OSError, match="HTTP 404"):
            clients.scrape("127.0.0.1", srv.server_address[1], path="/nothing")
    finally:
        srv.shutdown()
        srv.server_close()
    assert got["bngcp_sessions"] == 4.0
    assert got['bngcp_setups_total{instance="1"}'] == 12.0
    assert "odd_line" not in got and got["bngcp_nan"] != got["bngcp_nan"]  # NaN is a value
    assert not any(k.startswith("#") for k in got)


def test_telemetry_runs_commands_on_one_connection(tmp_path):
    path = tmp_path / "dpdk_telemetry.v2"
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    srv.bind(str(path))
    srv.listen(1)
    seen = []

    def serve():
        conn, _ = srv.accept()
        with conn:
            conn.send(json.dumps({"version": "DPDK 22.11", "pid": 1, "max_output_len": 16384}).encode())
            while True:
                cmd = conn.recv(1024).decode()
                if not cmd:
                    return
                seen.append(cmd)
                name = cmd.split(",", 1)[0]
                value = {"count": 2} if name == "/bng/sessions" else None
                conn.send(json.dumps({name: value} if name != "/odd" else [1, 2]).encode())

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    try:
        got = clients.telemetry(path, "/bng/sessions", "/bng/sessions,7", "/bng/none", "/odd", timeout=2)
    finally:
        t.join(2)
        srv.close()
    assert got == [{"count": 2}, {"count": 2}, None, None]
    assert seen == ["/bng/sessions", "/bng/sessions,7", "/bng/none", "/odd"]
    assert clients.telemetry_socket("bngpod-dp1") == clients.DPDK_RUNTIME / "bngpod-dp1" / "dpdk_telemetry.v2"


def test_telemetry_without_a_socket_is_an_oserror(tmp_path):
    with pytest.raises(OSError):
        clients.telemetry(tmp_path / "none", "/bng/stats", timeout=0.5)

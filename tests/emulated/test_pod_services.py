"""The whole emulated pod with its real parts: FreeRADIUS and bng-cp in bngpod-mgmt, one
bng-dp per instance, the servers in bngpod-inet; a PPPoE subscriber dials through the
switch fold and bng-dp and reaches the inet host."""

import ipaddress
import json
import os
import struct
import subprocess
import time

import pytest
from harness.pppoe_client import IPV4, PppoeClient
from harness.radius_codec import access_request
from harness.rawaccess import RawAccess
from scapy.layers.inet import ICMP, IP, UDP

from bngpod import emu, servers
from bngpod.rawsock import in_netns

pytestmark = pytest.mark.pod


@pytest.fixture(scope="module")
def users(lab_pod):
    got = emu.generated_users()
    assert len(got) == 64 * len(lab_pod.groups)
    return got


def _radius(pod, user: str, password: str) -> str:
    s = pod.radius.servers[0]
    with in_netns(emu.MGMT_NS):
        kind, _ = access_request(
            str(s.address), s.auth_port, s.secret, user, password, source=str(pod.control_plane.address)
        )
    return kind


def test_generated_users(lab_pod, users):
    lg1 = [u for u in users if u["line_group"] == "lg1"]
    assert lg1[0] == {
        "user": "lg1-1", "password": "pw-lg1-1", "line_group": "lg1", "port": "access1", "stag": 100, "ctag": 1,
        "tpid": "0x8100",
    }  # fmt: skip
    # each entry carries its access port's outer TPID
    assert {u["tpid"] for u in users if u["port"] in ("access2", "access4")} == {"0x88a8"}
    # S-tags first (100..149), then the next C-tag
    assert [(u["stag"], u["ctag"]) for u in lg1[49:52]] == [(149, 1), (100, 2), (101, 2)]
    lg3 = [u for u in users if u["line_group"] == "lg3"]
    assert {(u["port"], u["stag"]) for u in lg3} == {("access3", 300)} and lg3[-1]["ctag"] == 64
    assert len({u["user"] for u in users}) == len(users)


def test_radius_accepts_generated_user_and_rejects_wrong_password(lab_pod, users):
    assert _radius(lab_pod, users[0]["user"], users[0]["password"]) == "accept"
    assert _radius(lab_pod, users[0]["user"], "wrong") == "reject"
    assert _radius(lab_pod, "nobody", "x") == "reject"


def test_cp_associated_with_every_instance(lab_pod):
    views = {v["id"]: v for v in emu.cp_api("/v1/instances")}
    assert sorted(views) == [i.id for i in lab_pod.instances]
    assert all(v["state"] == "associated" for v in views.values()), views
    ctl = subprocess.run(
        [str(emu.BNGCPCTL), "--socket", str(emu.cp_socket()), "instances"], capture_output=True, text=True
    )
    assert ctl.returncode == 0 and ctl.stdout.count("associated") == len(lab_pod.instances), ctl.stdout


def test_status_shows_the_cp_view_and_processes(lab_pod):
    report = emu.status()
    for name in ("freeradius radius1", "bng-cp", "servers"):
        assert report["processes"][name]["running"], name
    assert [i["state"] for i in report["cp"]["instances"]] == ["associated"] * 4


def test_inet_servers_answer_from_core(lab_pod):
    with in_netns(emu.CORE_NS):
        assert servers.check(emu.INET_HOST) == []
        status, body = servers.http_get(emu.INET_HOST, "/")
        assert status == 200 and b"bngpod" in body
        status, body = servers.http_get(emu.INET_HOST, "/bytes/200000")
        assert status == 200 and len(body) == 200000
        assert servers.http_get(emu.INET_HOST, "/nope")[0] == 404


def _ip_of(rx) -> IP | None:
    raw = bytes(rx.frame)
    return IP(raw[30:]) if rx.proto == IPV4 and len(raw) > 50 else None


def _send_until(client, packet: IP, pred, what: str, tries: int = 5):
    """Send packet in the session until an answer matching pred comes (the first packet of
    a session may go while bng-dp resolves its next hop)."""
    for _ in range(tries):
        client.send(client.ppp_frame(IPV4, bytes(packet)))
        try:
            return client.expect(lambda r: (ip := _ip_of(r)) is not None and pred(ip), 1.0, what)
        except AssertionError:
            continue
    raise AssertionError(f"no {what} in {tries} tries")


def test_pppoe_dial_reaches_inet_and_hangs_up(lab_pod, users):
    user = next(u for u in users if u["line_group"] == "lg1")
    port = lab_pod.port(user["port"])
    pool = ipaddress.ip_network("100.80.0.0/22")
    with RawAccess(port) as line:
        client = PppoeClient(
            line, "02:5b:00:00:00:01", user["stag"], user["ctag"], user=user["user"],
            password=user["password"], auth="pap", outer_tpid=port.tpid,
        )  # fmt: skip
        res = client.dial(timeout=20)
        assert res.ok, res.reason
        assert ipaddress.ip_address(res.ipv4) in pool
        assert res.ac_mac == "02:bb:00:00:00:01"
        sessions = emu.cp_api("/v1/sessions")
        sessions = sessions.get("sessions", sessions) if isinstance(sessions, dict) else sessions
        mine = [s for s in sessions if s["user"] == user["user"]]
        assert len(mine) == 1 and mine[0]["instance"] == 1 and mine[0]["ipv4"] == res.ipv4

        # UDP echo and ping to the inet host, through bng-dp and the core router
        payload = struct.pack("!Q", time.time_ns()) + b"bngpod e2e"
        udp = IP(src=res.ipv4, dst=emu.INET_HOST, ttl=64) / UDP(sport=40007, dport=7) / payload
        got = _send_until(client, udp, lambda ip: UDP in ip and ip[UDP].sport == 7, "UDP echo answer")
        ip = _ip_of(got)
        assert ip.src == emu.INET_HOST and ip.dst == res.ipv4 and bytes(ip[UDP].payload) == payload
        ping = IP(src=res.ipv4, dst=emu.INET_HOST) / ICMP(type=8, id=0x5B, seq=1) / b"ping"
        got = _send_until(client, ping, lambda ip: ICMP in ip and ip[ICMP].type == 0, "ping reply")
        assert _ip_of(got)[ICMP].id == 0x5B

        client.terminate()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            ctl = subprocess.run(
                [str(emu.BNGCPCTL), "--socket", str(emu.cp_socket()), "-o", "json", "sessions", "--user", user["user"]],
                capture_output=True, text=True,
            )  # fmt: skip
            assert ctl.returncode == 0, ctl.stderr
            left = json.loads(ctl.stdout or "[]")
            left = left.get("sessions", left) if isinstance(left, dict) else left
            if not left:
                break
            time.sleep(0.2)
        assert not left, left


def test_users_file_must_exist(lab_pod):
    with pytest.raises(emu.EmuError, match="already up|does not exist"):
        emu.up(lab_pod, "x", users_file=os.devnull + "-missing")

"""The TRex profile's frames through the running lab pod: sessions dialled by bng-subemu, their
export made into a profile, and every frame the profile describes sent as it is from the
session's access line (upstream) or from the inet host (downstream). Each must come out on the
other side as that session's traffic: decapsulated from the session's address at the inet
host; encapsulated in the session's tags and PPPoE session id from its group's AC MAC at the
subscriber's access port."""

from __future__ import annotations

import json
import subprocess
import time

import pytest
from harness import podenv
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.layers.ppp import PPPoE

from bngpod import emu
from bngpod.rawsock import RawPort

from . import rfc2544
from .profiles import common, trex
from .test_profiles import check_upstream_frame, load_profile

PER_GROUP = 3


@pytest.fixture(scope="module")
def dialled(tmp_path_factory):
    podenv.require("the profiles' pod test", podenv.missing())
    tmp = tmp_path_factory.mktemp("profiles")
    with podenv.lab_pod(subscribers=PER_GROUP) as pod:
        users = json.loads((emu.users_dir() / "users.json").read_text())
        path = tmp / "users.json"
        path.write_text(json.dumps(users))
        holders = rfc2544.Holders(pod, path)
        try:
            deadline = time.monotonic() + 60
            while holders.up() < len(users) and time.monotonic() < deadline:
                time.sleep(0.3)
            sessions = holders.sessions()
            assert len(sessions) == len(users), "every subscriber is up"
            group = {(u["port"], u["stag"], u["ctag"]): u["line_group"] for u in users}
            for s in sessions:
                s["line_group"] = group[(s["port"], s["stag"], s["ctag"])]
            (tmp / "export.json").write_text(json.dumps(sessions))
            yield pod, sessions, tmp
        finally:
            holders.stop()


def mac(ns: str, ifname: str) -> str:
    return subprocess.run(["ip", "netns", "exec", ns, "cat", f"/sys/class/net/{ifname}/address"], check=True,
                          capture_output=True, text=True).stdout.strip()  # fmt: skip


def test_trex_profile_frames_pass_the_pod_as_their_sessions(dialled):
    pod, sessions, tmp = dialled
    core = common.CoreSide(
        emu.INET_HOST, 24, emu.INET_ROUTER, gateway_mac=mac(emu.CORE_NS, "srv0"), tester_mac=mac(emu.INET_NS, "eth0")
    )
    prof_path = tmp / "trex_bngpod.py"
    prof_path.write_text(trex.render(pod, common.load_sessions(pod, tmp / "export.json"), core))
    prof = load_profile(prof_path)
    ports = {p.name: p for p in pod.ports_with_role("access")}
    inet = RawPort(emu.INET_NS, "eth0")
    try:
        # upstream, port by port: every frame arrives at the inet host from its session's address
        for name in sorted({s["port"] for s in sessions}):
            mine = [s for s in sessions if s["port"] == name]
            streams = prof.get_streams(side="access", access_port=name, size="128")
            acc = RawPort(emu.access_ns(ports[name]), "sub0")
            try:
                inet.drain()
                for s, st in zip(mine, streams, strict=True):
                    frame = st.packet.get_pkt()
                    check_upstream_frame(pod, frame, s, 128, core=core)
                    acc.send(frame)
                got = set()
                deadline = time.monotonic() + 5
                while len(got) < len(mine) and time.monotonic() < deadline:
                    f = inet.recv(0.5)
                    if f is None:
                        continue
                    p = Ether(f)
                    if IP in p and UDP in p and p[UDP].dport == common.UDP_PORT:
                        got.add((p[IP].src, p[UDP].sport, p[IP].len))
                want = {(s["address"], 10000 + i, 128 - 34) for i, s in enumerate(mine)}
                assert got == want, name
            finally:
                acc.close()
        # downstream: every session's frame reaches its line in its session
        accs = {n: RawPort(emu.access_ns(ports[n]), "sub0") for n in {s["port"] for s in sessions}}
        try:
            for a in accs.values():
                a.drain()
            for st in prof.get_streams(side="core", size="256"):
                inet.send(st.packet.get_pkt())
            for name, a in accs.items():
                mine = {s["address"]: s for s in sessions if s["port"] == name}
                got = {}
                deadline = time.monotonic() + 5
                while len(got) < len(mine) and time.monotonic() < deadline:
                    f = a.recv(0.5)
                    if f is None:
                        continue
                    p = Ether(f)
                    if PPPoE in p and IP in p and UDP in p and p[UDP].dport == common.UDP_PORT:
                        got[p[IP].dst] = p
                assert set(got) == set(mine), name
                for addr, p in got.items():
                    s = mine[addr]
                    assert p.dst == s["mac"] and p.src == s["ac_mac"] and p[PPPoE].sessionid == s["pppoe_id"]
                    assert p.type == ports[name].tpid
                    assert len(p) + 4 == 256  # the access frame of a 240-byte core frame
        finally:
            for a in accs.values():
                a.close()
    finally:
        inet.close()

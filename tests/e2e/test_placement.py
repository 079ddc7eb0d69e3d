"""Sessions come up on the instance that serves their line, and only that instance answers
their PADI: one line of every line group of the lab pod, including access3's S-tag 300
split by C-tag between dp3 (C 1-1999) and dp4 (C 2000-4094), on 0x8100 and 802.1ad ports."""

import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from . import pod as p

pytestmark = pytest.mark.pod

# (line group, access port, S-tag, C-tag or None for the user's own)
LINES = [
    ("lg1", "access1", 100, None),
    ("lg2", "access1", 150, None),
    ("lg2", "access2", 200, None),  # 802.1ad
    ("lg3", "access3", 300, 1999),  # the last C-tag of dp3's half of S-tag 300
    ("lg4", "access3", 300, 2000),  # the first C-tag of dp4's half
    ("lg4", "access4", 400, None),  # 802.1ad
]
IDS = [f"{g}-{port}-S{s}" + (f"-C{c}" if c else "") for g, port, s, c in LINES]
INSTANCES = ["dp1", "dp2", "dp3", "dp4"]


def _counters() -> dict[str, tuple[int, int]]:
    out = {}
    for name in INSTANCES:
        st, punt = p.telemetry(name, "/bng/stats"), p.telemetry(name, "/bng/punt")
        out[name] = (st["kind_pppoe_disc"], punt["vxlan_tx"])
    return out


@pytest.fixture(scope="module")
def lines(lab_pod):
    ports = {port for _, port, _, _ in LINES}
    access = {name: p.AccessLine(lab_pod.port(name)) for name in sorted(ports)}
    try:
        out = {}
        for i, (group, port, stag, ctag) in enumerate(LINES):
            user = next(u for u in p.users() if u["line_group"] == group and u["port"] == port and u["stag"] == stag)
            c = p.client(access[port], p.mac(1, i + 1), user, ctag=ctag)
            out[IDS[i]] = {"group": lab_pod.group(group), "client": c, "line": access[port]}
        yield out
    finally:
        for a in access.values():
            a.close()


@pytest.mark.parametrize("line_id", IDS)
def test_only_the_serving_instance_answers_the_padi(lab_pod, lines, line_id):
    entry = lines[line_id]
    c, group, line = entry["client"], entry["group"], entry["line"]
    serving = group.instance.name
    before = _counters()
    t0 = time.monotonic()
    c.send_padi()
    pado = c.expect(lambda r: r.discovery and r.code == p.PADO, 3.0, "PADO")
    time.sleep(0.7)  # a second instance's PADO would come in this time
    after = _counters()

    padoes = line.frames(t0, p.is_pado_to(c))
    assert len(padoes) == 1, f"{len(padoes)} PADOs on {line.port.name} for one PADI"
    assert padoes[0].src == group.ac_mac == pado.frame.src
    assert padoes[0].tags() == (line.port.tpid, c.stag, c.ctag)
    for name in INSTANCES:
        disc = after[name][0] - before[name][0]
        vxlan = after[name][1] - before[name][1]
        if name == serving:
            assert disc == 1 and vxlan == 1, f"{name} (serving): {disc} discovery frames, {vxlan} redirected"
        else:
            assert disc == 0 and vxlan == 0, f"{name} saw the PADI of {line_id}: {disc} frames, {vxlan} redirected"


def test_sessions_come_up_on_their_instance(lab_pod, lines):
    with ThreadPoolExecutor(len(lines)) as pool:
        dialled = dict(zip(lines, pool.map(lambda e: p.dial(e["client"]), lines.values()), strict=True))
    for line_id, (res, session) in dialled.items():
        entry = lines[line_id]
        c, group = entry["client"], entry["group"]
        serving = group.instance
        assert res.ac_mac == group.ac_mac, line_id
        assert p.in_pool(lab_pod, group.name, res.ipv4), (line_id, res.ipv4)
        # the CP's view (bngcpctl sessions)
        assert session["instance"] == serving.id, (line_id, session)
        assert (session["access_port"], session["stag"], session["ctag"]) == (entry["line"].port.name, c.stag, c.ctag)
        assert session["pppoe_session_id"] == res.session_id and session["ipv4"] == res.ipv4
        assert session["mac"] == c.mac
        # the serving DP has it installed with the same keys; no other instance has it
        dp = p.dp_session(serving.name, res.ipv4)
        assert dp is not None and dp["state"] == "up", (line_id, dp)
        assert dp["line_group"] == group.name and dp["access_port"] == entry["line"].port.name
        assert (dp["stag"], dp["ctag"], dp["pppoe_sid"], dp["mac"]) == (c.stag, c.ctag, res.session_id, c.mac)
        for other in INSTANCES:
            if other != serving.name:
                assert p.dp_session(other, res.ipv4) is None, f"{other} has {line_id}'s session"
        # and traffic passes on it
        p.udp_echo(c, f"placement {line_id}".encode())
    for e in lines.values():
        e["client"].terminate()

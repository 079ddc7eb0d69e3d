"""`bngpod demo --ipoe` (make demo IPOE=1): what it refuses before building anything and
which subscribers it gives to which emulator. The pod itself runs in tests/emulated."""

import json
import os
import stat
from pathlib import Path

import pytest

from bngpod import binaries, demo, users, validate

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def fake_subemu(tmp_path, usage: str) -> Path:
    path = tmp_path / "bng-subemu"
    path.write_text(f"#!/bin/sh\ncat >&2 <<'EOF'\n{usage}\nEOF\nexit 2\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_refuses_a_pod_without_ipoe():
    pod = validate.load(EXAMPLES / "lab.yaml")
    with pytest.raises(demo.DemoError, match="no line group with ipoe"):
        demo.check_ipoe(pod, "lab.yaml")


def test_refuses_a_subemu_without_ipoe(tmp_path, monkeypatch):
    pod = validate.load(EXAMPLES / "ipoe.yaml")
    monkeypatch.setattr(binaries, "BNG_SUBEMU", fake_subemu(tmp_path, "  -iface string\n  -dual-stack\n"))
    assert not demo.subemu_has_ipoe()
    with pytest.raises(demo.DemoError, match="has no --ipoe option"):
        demo.check_ipoe(pod, "ipoe.yaml")
    monkeypatch.setattr(binaries, "BNG_SUBEMU", fake_subemu(tmp_path, "  -iface string\n  -ipoe\n    \tDHCP"))
    assert demo.subemu_has_ipoe()
    demo.check_ipoe(pod, "ipoe.yaml")
    monkeypatch.setattr(binaries, "BNG_SUBEMU", tmp_path / "missing")
    assert not demo.subemu_has_ipoe()


def test_ipoe_subscribers_of_server_groups_only():
    pod = validate.load(EXAMPLES / "ipoe.yaml")
    generated = users.generate(pod, 4)
    got = demo.ipoe_subscribers(pod, generated)
    # lg1 (both kinds): its 2nd and 4th; lg2: all four; lg3 relays to an outside server: none
    assert [(u["line_group"], u["mac"]) for u in got] == [
        ("lg1", "02:49:00:00:00:02"),
        ("lg1", "02:49:00:00:00:04"),
        *((("lg2", f"02:49:01:00:00:0{i}")) for i in range(1, 5)),
    ]


def test_emulators_per_port_and_kind(tmp_path, monkeypatch):
    pod = validate.load(EXAMPLES / "ipoe.yaml")
    chosen = [u for u in users.generate(pod, 4) if u["line_group"] != "lg3"]
    spawned = []

    def spawn(port, state, name, users_file, count, args):
        spawned.append((port.name, name, users_file.name, count, args[:1]))
        return demo.Emulator(port, count, None, Path(), Path(), name=name, kind="ipoe" if "--ipoe" in args else "pppoe")

    monkeypatch.setattr(demo, "spawn_emulator", spawn)
    monkeypatch.setattr(demo.emu, "run_dir", lambda: tmp_path)
    emulators = demo.start_emulators(pod, None, chosen, 0)
    assert spawned == [
        ("access1", "access1", "users.json", 2, []),
        ("access1", "access1-ipoe", "users-ipoe.json", 2, ["--ipoe"]),
        ("access2", "access2-ipoe", "users-ipoe.json", 4, ["--ipoe"]),
    ]
    assert [e.label for e in emulators] == ["access1", "access1-ipoe", "access2-ipoe"]
    pppoe = json.loads((tmp_path / "demo" / "users.json").read_text())
    assert [u["user"] for u in pppoe] == ["lg1-1", "lg1-3"]
    ipoe = json.loads((tmp_path / "demo" / "users-ipoe.json").read_text())
    assert all(u["kind"] == "ipoe" for u in ipoe) and len(ipoe) == 6
    assert os.path.exists(tmp_path / "demo")


def test_dual_stack_subscribers_one_per_kind(tmp_path, monkeypatch):
    """With --ipoe in ipoe.yaml (lg1: PPPoE and IPoE, IPv6 pool v6pool1) the demo dials a PPPoE
    and an IPoE dual-stack subscriber that no port emulator dials, each by its own bng-subemu
    that skips the port's others of its kind (bng-subemu reads only the entries of its kind)."""
    from bngpod import dualstack

    pod = validate.load(EXAMPLES / "ipoe.yaml")
    generated = users.generate(pod, 6)  # 4 per group dialled + 2 spares (demo --ipoe: one of each kind)
    chosen = [u for g in ("lg1", "lg2") for u in [u for u in generated if u["line_group"] == g][:4]]
    taken = {u["user"] for u in chosen}
    pppoe = dualstack.pick(pod, generated, taken)
    ipoe = dualstack.pick(pod, generated, taken, ipoe=True)
    assert pppoe is not None and ipoe is not None
    assert pppoe["line_group"] == ipoe["line_group"] == "lg1"  # the only group with IPv6 pools
    assert users.is_ipoe(ipoe) and not users.is_ipoe(pppoe) and {pppoe["user"], ipoe["user"]}.isdisjoint(taken)
    # no IPoE pick in a group where an outside server answers DHCP (relay), none without IPv6
    assert dualstack.pick(pod, [u for u in generated if u["line_group"] != "lg1"], set(), ipoe=True) is None

    spawned = []

    def spawn(port, state, name, users_file, count, args):
        spawned.append((name, count, args))
        return demo.Emulator(port, count, None, Path(), users_file, name=name)

    monkeypatch.setattr(dualstack, "spawn_emulator", spawn)
    monkeypatch.setattr(dualstack.emu, "run_dir", lambda: tmp_path)
    for u in (pppoe, ipoe):
        dualstack.DualStackSubscriber(pod, u).start(None, chosen)
    (n1, c1, a1), (n2, c2, a2) = spawned
    on_port = [u for u in chosen if u["port"] == "access1"]
    assert (n1, c1, a1[:3]) == ("dualstack-access1", 1, ["--dual-stack", "--skip", str(sum(
        1 for u in on_port if not users.is_ipoe(u)))])  # fmt: skip
    assert (n2, c2, a2[:4]) == ("dualstack-ipoe-access1", 1, ["--ipoe", "--dual-stack", "--skip", str(sum(
        1 for u in on_port if users.is_ipoe(u)))])  # fmt: skip
    assert "--target6" in a2 and "--rate" in a2
    written = json.loads((tmp_path / "demo" / "users-dualstack-ipoe.json").read_text())
    assert written[-1] == ipoe and written[:-1] == chosen
    # the dashboard: the PPPoE one's line as before (tests/emulated/test_demo.py reads it), the IPoE one named
    heads = [dualstack.DualStackSubscriber(pod, u).describe()[0] for u in (pppoe, ipoe)]
    assert heads[0].startswith(f"dual-stack subscriber {pppoe['user']} on access1 (dp1): ")
    assert heads[1].startswith(f"dual-stack IPoE subscriber {ipoe['user']} on access1 (dp1): ")


def test_dashboard_and_verdict_show_every_dual_stack_subscriber(monkeypatch):
    """render and verdict take the list of dual-stack subscribers (PPPoE, and IPoE with --ipoe)."""
    pod = validate.load(EXAMPLES / "ipoe.yaml")

    class Fake:
        def __init__(self, name):
            self.name = name

        def describe(self):
            return [f"dual-stack {self.name} line"]

        def problems(self):
            return [f"{self.name} problem"]

        ipv4 = ""

    monkeypatch.setattr(demo.emu, "cp_api", lambda *a, **k: [])
    ctx = {"started": 0.0, "emulators": [], "rate": 5.0, "load": [], "top": 3, "peak_setup": 0.0}
    ctx["ds"] = [Fake("a"), Fake("b")]
    text = demo.render(pod, demo.Sample(1.0), None, ctx)
    assert "dual-stack a line" in text and "dual-stack b line" in text
    why = demo.verdict(pod, None, demo.Sample(1.0), [], [], ctx)
    assert "a problem" in why and "b problem" in why


def test_the_ipoe_subscribers_ipv6_line_names_its_source_address():
    pod = validate.load(EXAMPLES / "ipoe.yaml")
    ipoe = next(u for u in users.generate(pod, 6) if users.is_ipoe(u) and u["line_group"] == "lg1")
    from bngpod import dualstack

    ds = dualstack.DualStackSubscriber(pod, ipoe)
    ds.refresh = lambda: None
    ds.session = {"state": "up", "address": "100.80.0.7", "ipv6_address": "2001:db8:180:3::1",
                  "ia_na_address": "2001:db8:180:3::1", "delegated_prefix": "2001:db8:2800:300::/56"}  # fmt: skip
    lines = ds.describe()
    assert lines[1] == (
        "  IPv6 2001:db8:180:3::/64 (IA_NA 2001:db8:180:3::1), delegated prefix 2001:db8:2800:300::/56, "
        "IA_NA 2001:db8:180:3::1"
    ), lines

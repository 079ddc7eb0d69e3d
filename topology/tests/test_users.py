"""Subscribers generated from the pod file (bngpod/users.py) and given users.json files."""

import json
from pathlib import Path

import pytest

from bngpod import users, validate

LAB = Path(__file__).resolve().parents[1] / "examples" / "lab.yaml"


@pytest.fixture(scope="module")
def lab():
    return validate.load(LAB)


def test_generated_slots_and_names(lab):
    got = users.generate(lab, 3)
    assert [u["user"] for u in got[:3]] == ["lg1-1", "lg1-2", "lg1-3"]
    lg2 = [u for u in got if u["line_group"] == "lg2"]
    assert [(u["port"], u["stag"], u["ctag"], u["tpid"]) for u in lg2] == [
        ("access2", 200, 1, "0x88a8"),
        ("access2", 201, 1, "0x88a8"),
        ("access2", 202, 1, "0x88a8"),
    ]
    assert {u["tpid"] for u in got if u["port"] == "access1"} == {"0x8100"}
    lg4 = [u for u in users.generate(lab, 2) if u["line_group"] == "lg4"]
    # access3 splits S-tag 300 by C-tag: lg4's first line starts at C-tag 2000
    assert (lg4[0]["port"], lg4[0]["stag"], lg4[0]["ctag"]) == ("access3", 300, 2000)
    assert (lg4[1]["port"], lg4[1]["stag"]) == ("access4", 400)


def test_too_many_subscribers_for_the_lines(lab):
    doc = validate.load_document(LAB)
    doc["line_groups"][2]["lines"] = [{"port": "access3", "stag": 300, "ctag": "1-3"}]
    pod = validate.check(doc).pod
    with pytest.raises(users.UsersError, match="lg3 has only 3 line slots for 4"):
        users.generate(pod, 4)
    with pytest.raises(users.UsersError, match="0..100000"):
        users.generate(lab, -1)


def test_radius_text_carries_the_profile(lab):
    text = users.radius_text(lab, users.generate(lab, 1))
    assert '"lg2-1"\tCleartext-Password := "pw-lg2-1"\n\tFilter-Id += "gold"' in text
    assert text.rstrip().endswith('Reply-Message = "unknown user"')


@pytest.mark.parametrize(
    ("doc", "error"),
    [
        ([{"user": "a"}], "needs string 'user' and 'password'"),
        ([{"user": "a", "password": "b"}, {"user": "a", "password": "c"}], "repeated"),
        ([{"user": "a", "password": "b", "line_group": "lg9"}], "line group 'lg9' is not in the pod"),
        ([{"user": "a", "password": "b", "port": "uplink1"}], "access port 'uplink1' is not in the pod"),
        ([{"user": "a", "password": "b", "stag": 4095}], "stag must be 1..4094"),
        ([{"user": "a", "password": "b", "ctag": True}], "ctag must be 1..4094"),
        ([{"user": "a", "password": "b", "tpid": "0x9100"}], "tpid must be 0x8100 or 0x88a8"),
        ([{"user": "a", "password": "b", "tpid": True}], "tpid must be 0x8100 or 0x88a8"),
        ([{"user": "a", "password": "b", "tpid": "x"}], "tpid must be 0x8100 or 0x88a8"),
        ([{"user": "a", "password": "b", "port": "access2", "tpid": "0x8100"}], r"access port access2's \(0x88a8\)"),
    ],
)
def test_given_users_json_is_checked(lab, tmp_path, doc, error):
    path = tmp_path / "users.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(users.UsersError, match=error):
        users.load_json(path, lab)


def test_given_users_json_round_trips(lab, tmp_path):
    js, txt = users.write(tmp_path, lab, users.generate(lab, 2))
    assert users.load_json(js, lab) == users.generate(lab, 2)
    assert "lg4-2" in txt.read_text()


def test_written_users_json_carries_the_port_tpid(lab, tmp_path):
    # a given file without tpid (or with it as a number): written with the access port's
    given = [
        {"user": "a", "password": "p", "port": "access2", "stag": 200, "ctag": 1},
        {"user": "b", "password": "p", "port": "access1", "stag": 100, "ctag": 1, "tpid": 0x8100},
        {"user": "c", "password": "p"},
    ]
    src = tmp_path / "given.json"
    src.write_text(json.dumps(given))
    js, _ = users.write(tmp_path / "out", lab, users.load_json(src, lab))
    got = json.loads(js.read_text())
    assert [u["tpid"] for u in got] == ["0x88a8", "0x8100", None]


def test_dp_capacity_follows_the_subscribers(lab):
    from bngpod import emu

    # lab: one line group per instance
    assert emu.instance_subscribers(lab, 64, None) == {"dp1": 64, "dp2": 64, "dp3": 64, "dp4": 64}
    assert emu.dp_capacity(64) == emu.DP_SESSIONS == 4096
    assert emu.dp_capacity(4096 - 64) == 4096
    assert emu.dp_capacity(4096 - 63) == 5120  # headroom for re-dials, whole 1024s
    assert emu.dp_capacity(10_000) == 10_240
    given = [{"user": "a", "line_group": "lg2"}, {"user": "b", "line_group": "lg2"}, {"user": "c"}]
    assert emu.instance_subscribers(lab, 64, given) == {"dp1": 0, "dp2": 2, "dp3": 0, "dp4": 0}
    assert emu.dp_memory_mb(4096) == emu.dp_memory_mb(16384) == emu.DP_MEMORY_MB
    assert emu.dp_memory_mb(16385) == emu.DP_MEMORY_MB + 256
    assert emu.dp_memory_mb(65536) == emu.DP_MEMORY_MB + 3 * 256
    cmd = emu.dp_command(lab.instances[0], emu.Path("/x.ini"), False, 10_240)
    assert cmd[cmd.index("--sessions") + 1] == "10240" and cmd[cmd.index("-m") + 1] == "512"


IPOE = Path(__file__).resolve().parents[1] / "examples" / "ipoe.yaml"


def test_ipoe_subscribers(tmp_path):
    pod = validate.load(IPOE)
    got = users.generate(pod, 4)
    lg1 = [u for u in got if u["line_group"] == "lg1"]
    # a group allowing both: every second subscriber is an IPoE one, named by its MAC
    assert [u.get("kind") for u in lg1] == [None, "ipoe", None, "ipoe"]
    assert [u["user"] for u in lg1] == ["lg1-1", "02:49:00:00:00:02", "lg1-3", "02:49:00:00:00:04"]
    assert lg1[1]["mac"] == lg1[1]["user"] and lg1[1]["password"] == "ipoe"
    assert lg1[0]["password"] == "pw-lg1-1" and "mac" not in lg1[0]
    lg2 = [u for u in got if u["line_group"] == "lg2"]
    assert all(u["kind"] == "ipoe" for u in lg2)
    assert [u["mac"] for u in lg2][:2] == ["02:49:01:00:00:01", "02:49:01:00:00:02"]
    assert (lg2[0]["stag"], lg2[0]["tpid"]) == (200, "0x88a8")
    assert len({u["mac"] for u in got if "mac" in u}) == len([u for u in got if "mac" in u])
    js, txt = users.write(tmp_path, pod, got)
    back = users.load_json(js, pod)
    assert [u.get("mac") for u in back] == [u.get("mac") for u in got]
    assert "kind" not in back[0]  # PPPoE entries are as before
    radius_users = txt.read_text()
    assert '"02:49:00:00:00:02"\tCleartext-Password := "ipoe"' in radius_users


@pytest.mark.parametrize(
    "change,text",
    [
        ({"kind": "l2tp"}, "kind must be pppoe or ipoe"),
        ({"kind": "ipoe"}, "needs its mac"),
        ({"kind": "ipoe", "mac": "01:00:5e:00:00:01"}, "needs its mac"),
        ({"kind": "ipoe", "mac": "00:00:00:00:00:00"}, "needs its mac"),
        ({"kind": "ipoe", "mac": "02:49:00:00:00"}, "needs its mac"),
        ({"kind": "ipoe", "mac": 7}, "needs its mac"),
    ],
)
def test_ipoe_entries_refused(tmp_path, change, text):
    pod = validate.load(IPOE)
    entry = {"user": "u1", "password": "p", "line_group": "lg2", "port": "access2", "stag": 200, "ctag": 1, **change}
    path = tmp_path / "users.json"
    path.write_text(json.dumps([entry]))
    with pytest.raises(users.UsersError, match=text):
        users.load_json(path, pod)

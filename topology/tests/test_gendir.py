"""The generated directory (bngpod/gendir.py): what `bngpod generate` writes and `bngpod up`
runs from, and the checks `bngpod up DIR` makes before it builds anything (no root needed)."""

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from bngpod import cli, emu, gendir, generate, users, validate

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
LAB = EXAMPLES / "lab.yaml"
GOLDEN = Path(__file__).resolve().parent / "golden" / "lab"


@pytest.fixture(scope="module")
def lab():
    return validate.load(LAB)


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_write_holds_the_configurations_the_pod_file_and_the_subscribers(lab, tmp_path):
    out = tmp_path / "gen"
    written = gendir.write(lab, LAB, out, subscribers=3)
    assert written == sorted(written) and all(p.is_file() for p in written)
    got = _files(out)
    # the configurations are generate_all's, byte for byte (the golden files)
    for rel, data in _files(GOLDEN).items():
        assert got[rel] == data, rel
    assert got["pod.yaml"] == LAB.read_bytes()
    listed = json.loads(got["radius/users.json"])
    assert listed == json.loads(json.dumps(users.generate(lab, 3)))
    assert got["radius/users"].decode() == users.radius_text(lab, users.generate(lab, 3))
    manifest = json.loads(got["bngpod.json"])
    assert manifest == {
        "pod": "lab",
        "source": str(LAB.resolve()),
        "pod_sha256": hashlib.sha256(LAB.read_bytes()).hexdigest(),
        "subscribers": {"per_group": 3, "given": None, "count": 12},
    }
    assert gendir.check(out, lab) == manifest
    assert gendir.load(out).name == "lab"


def test_a_given_freeradius_users_file_replaces_the_list(lab, tmp_path):
    out = tmp_path / "gen"
    gendir.write(lab, LAB, out)
    assert (out / "radius" / "users.json").exists()
    given = tmp_path / "users.txt"
    given.write_text('alice Cleartext-Password := "a"\n')
    gendir.write(lab, LAB, out, users_file=given)
    assert not (out / "radius" / "users.json").exists(), "a stale users.json must not outlive the given file"
    assert (out / "radius" / "users").read_text() == given.read_text()
    assert gendir.subscribers(out) is None
    assert gendir.manifest(out)["subscribers"] == {"per_group": 64, "given": str(given.resolve()), "count": None}
    with pytest.raises(gendir.GenDirError, match="does not exist"):
        gendir.write(lab, LAB, tmp_path / "other", users_file=tmp_path / "missing.txt")
    with pytest.raises(gendir.GenDirError, match="line slots"):
        gendir.write(lab, LAB, tmp_path / "other", subscribers=5000)


def test_regenerating_in_place_keeps_the_pod_file(lab, tmp_path):
    out = tmp_path / "gen"
    gendir.write(lab, LAB, out)
    gendir.write(validate.load(out / "pod.yaml"), out / "pod.yaml", out)
    assert (out / "pod.yaml").read_bytes() == LAB.read_bytes()
    assert gendir.check(out, lab)["source"] == str((out / "pod.yaml").resolve())


def test_check_refuses_a_changed_pod_file_or_a_lost_file(lab, tmp_path):
    out = tmp_path / "gen"
    gendir.write(lab, LAB, out)
    (out / "pod.yaml").write_text(LAB.read_text() + "\n# edited after generate\n")
    with pytest.raises(gendir.GenDirError, match="changed since `bngpod generate`"):
        gendir.check(out, lab)
    shutil.copyfile(LAB, out / "pod.yaml")
    (out / "dp" / "dp3.ini").unlink()
    with pytest.raises(gendir.GenDirError, match=r"lacks dp/dp3.ini: generate it again"):
        gendir.check(out, lab)
    with pytest.raises(gendir.GenDirError, match="not written by `bngpod generate`"):
        gendir.manifest(tmp_path)
    (tmp_path / gendir.MANIFEST).write_text("[1, 2]")
    with pytest.raises(gendir.GenDirError, match="not a manifest"):
        gendir.manifest(tmp_path)


def test_dp_sessions_follow_the_generated_subscribers(lab, tmp_path):
    out = tmp_path / "gen"
    gendir.write(lab, LAB, out, subscribers=1999)  # lab: one line group per instance
    assert emu._dp_sessions(lab, out, cp=True, dp_sessions=None) == {n: 4096 for n in ("dp1", "dp2", "dp3", "dp4")}
    assert set(emu._dp_sessions(lab, out, cp=True, dp_sessions=9000).values()) == {9000}
    given = tmp_path / "many.json"  # 5,000 on lg2: with the headroom, the next whole 1024
    given.write_text(json.dumps([{"user": f"u{i}", "password": "p", "line_group": "lg2"} for i in range(5000)]))
    gendir.write(lab, LAB, out, users_file=given)
    want = {"dp1": 4096, "dp2": 5120, "dp3": 4096, "dp4": 4096}
    assert emu._dp_sessions(lab, out, cp=True, dp_sessions=None) == want
    assert emu._dp_sessions(lab, out, cp=False, dp_sessions=None) == want  # given ones count without a CP too
    gendir.write(lab, LAB, out, subscribers=1999)
    assert set(emu._dp_sessions(lab, out, cp=False, dp_sessions=None).values()) == {4096}  # nobody dials


def test_cli_generate_writes_the_directory(tmp_path, capsys):
    out = tmp_path / "gen"
    assert cli.main(["generate", str(LAB), "-o", str(out), "--subscribers", "2"]) == cli.EXIT_OK
    printed = capsys.readouterr().out.split()
    assert str(out / "pod.yaml") in printed and str(out / "radius" / "users.json") in printed
    assert len(json.loads((out / "radius" / "users.json").read_text())) == 2 * 4
    assert generate.generate_all(validate.load(LAB), tmp_path / "plain")  # generate_all itself is unchanged
    assert cli.main(["generate", str(LAB), "-o", str(out), "--subscribers", "5000"]) == cli.EXIT_INVALID
    assert "line slots" in capsys.readouterr().err


def test_cli_up_from_a_directory_takes_no_generate_options(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("BNGPOD_RUN_DIR", str(tmp_path / "run"))
    monkeypatch.setattr(cli, "_need_root", lambda what: None)
    out = tmp_path / "gen"
    gendir.write(validate.load(LAB), LAB, out)
    for extra in (["--subscribers", "3"], ["--users", str(LAB)], ["--generated", str(tmp_path / "x")]):
        assert cli.main(["up", str(out), *extra]) == cli.EXIT_USAGE
        assert "not with a generated directory" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_up_refuses_a_stale_directory_before_building_anything(tmp_path, monkeypatch):
    monkeypatch.setenv("BNGPOD_RUN_DIR", str(tmp_path / "run"))
    out = tmp_path / "gen"
    gendir.write(validate.load(LAB), LAB, out)
    (out / "pod.yaml").write_text(LAB.read_text() + "\n# edited\n")
    with pytest.raises(emu.EmuError, match="changed since"):
        emu.up_generated(out)
    (out / "pod.yaml").write_text(LAB.read_text())
    (out / "cp.yaml").unlink()
    with pytest.raises(emu.EmuError, match="lacks cp.yaml"):
        emu.up_generated(out)
    assert not (tmp_path / "run").exists()

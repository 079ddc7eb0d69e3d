"""bngpod up's bng-cp options (no root needed: only the checking of values)."""

import pytest

from bngpod import cli, emu


@pytest.mark.parametrize(
    "options, flags",
    [
        ({}, []),
        ({"interim": "5s"}, ["--interim", "5s"]),
        (
            {"interim": "2m", "lcp_echo_interval": "1s", "lcp_echo_failures": "3"},
            ["--interim", "2m", "--lcp-echo-interval", "1s", "--lcp-echo-failures", "3"],
        ),
        ({"interim": "1500ms"}, ["--interim", "1500ms"]),
    ],
)
def test_cp_option_flags(options, flags):
    assert emu.cp_option_flags(options) == flags


@pytest.mark.parametrize(
    "options, message",
    [
        ({"interim": "500ms"}, "--interim '500ms': must be a duration of at least 1s"),
        ({"interim": "5"}, "--interim '5': must be"),
        ({"interim": "fives"}, "--interim 'fives': must be"),
        ({"lcp_echo_interval": "70000s"}, "--lcp-echo-interval '70000s': must be a duration of 1s..65535s"),
        ({"lcp_echo_failures": "0"}, "--lcp-echo-failures '0': must be a number 1..255"),
        ({"lcp_echo_failures": "-1"}, "must be a number"),
        ({"lcp_echo_failures": "256"}, "must be a number"),
        ({"shards": "8"}, "unknown bng-cp option 'shards'"),
    ],
)
def test_cp_option_flags_refuse_bad_values(options, message):
    with pytest.raises(emu.EmuError, match=message.replace("(", r"\(").replace(".", r"\.")):
        emu.cp_option_flags(options)


def test_up_rejects_bad_cp_option_before_building_anything(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("BNGPOD_RUN_DIR", str(tmp_path / "run"))
    monkeypatch.setattr(cli, "_need_root", lambda what: None)
    monkeypatch.setattr(emu.radius, "installed", lambda: True)
    monkeypatch.setattr(emu.shutil, "which", lambda tool: "/usr/bin/" + tool)
    lab = str(emu.REPO / "topology" / "examples" / "lab.yaml")
    assert cli.main(["up", lab, "--interim", "0s"]) != 0
    assert "--interim '0s': must be a duration of at least 1s" in capsys.readouterr().err
    assert not (tmp_path / "run" / "state.json").exists()


def test_up_names_make_build_for_a_missing_binary_before_building_anything(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("BNGPOD_RUN_DIR", str(tmp_path / "run"))
    monkeypatch.setattr(cli, "_need_root", lambda what: None)
    monkeypatch.setattr(emu.radius, "installed", lambda: True)
    monkeypatch.setattr(emu.shutil, "which", lambda tool: "/usr/bin/" + tool)
    monkeypatch.setattr(emu.binaries, "BNG_CP", tmp_path / "no-bng-cp")
    lab = str(emu.REPO / "topology" / "examples" / "lab.yaml")
    assert cli.main(["up", lab, "--no-dp"]) != 0
    err = capsys.readouterr().err
    assert f"{tmp_path / 'no-bng-cp'} is not built: run `make build`" in err and "--no-cp" in err
    assert not (tmp_path / "run").exists()

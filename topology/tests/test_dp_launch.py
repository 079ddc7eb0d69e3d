"""bng-dp's start in the emulated pod (no root needed: the spawn is replaced)."""

from pathlib import Path
from types import SimpleNamespace

import pytest

from bngpod import supervisor as sv
from bngpod.launch import dp


class _State(sv.State):
    def save(self) -> None:  # no state file here
        pass


@pytest.fixture
def spawned(monkeypatch, tmp_path):
    """dp.start_all with a fake spawn: records (instance, hugepages) per start; the first
    start of dp1 fails as EAL does when hugepages vanished in between."""
    calls = []
    monkeypatch.setattr(dp.binaries, "require", lambda _b: None)
    monkeypatch.setattr(dp, "free_hugepages_mb", lambda: 1 << 20)
    monkeypatch.setattr(dp, "_log", lambda inst: tmp_path / f"{inst.name}.log")

    def spawn(_state, inst, _generated, hugepages, _sessions):
        calls.append((inst.name, hugepages))
        return SimpleNamespace(name=inst.name, attempt=sum(1 for c in calls if c[0] == inst.name))

    def wait_up(inst, proc, _log, offset=0):
        if inst.name == "dp1" and proc.attempt == 1:
            raise sv.EmuError("bng-dp dp1 exited (1): bng-dp: EAL: Cannot allocate memory")

    monkeypatch.setattr(dp, "_spawn", spawn)
    monkeypatch.setattr(dp, "_wait_up", wait_up)
    return calls


def _pod(*names):
    return SimpleNamespace(instances=[SimpleNamespace(name=n) for n in names])


def test_an_instance_whose_hugepages_vanished_starts_on_small_pages(spawned):
    state = _State()
    dp.start_all(state, _pod("dp1", "dp2"), None, {"dp1": 4096, "dp2": 4096})
    assert spawned == [("dp1", True), ("dp2", True), ("dp1", False)]
    assert state.data["dp_hugepages"] == {"dp1": False, "dp2": True}  # restart() runs each as it ran


def test_other_start_failures_are_not_retried(spawned, monkeypatch):
    def wait_up(inst, proc, _log, offset=0):
        raise sv.EmuError("bng-dp dp1 exited (1): bng-dp: bad config")

    monkeypatch.setattr(dp, "_wait_up", wait_up)
    with pytest.raises(sv.EmuError, match="bad config"):
        dp.start_all(_State(), _pod("dp1"), None, {"dp1": 4096})
    assert spawned == [("dp1", True)]


def test_an_instance_that_shares_a_port_runs_with_its_qos_share_file(tmp_path):
    """bng-dp gets --qos-share with the generated qos_share/<instance>.ini, and only then."""
    from bngpod import generate, validate

    pod = validate.load(Path(__file__).resolve().parents[1] / "examples" / "lab.yaml")
    generate.generate_all(pod, tmp_path)
    (tmp_path / "qos_share" / "dp4.ini").unlink()  # as if dp4 shared nothing
    for inst in pod.instances:
        share = dp.qos_share_file(tmp_path, inst.name)
        cmd = dp.command(inst, tmp_path / "dp" / f"{inst.name}.ini", False, 4096, share)
        args = cmd[cmd.index("--") :]
        if inst.name == "dp4":
            assert share is None and "--qos-share" not in args
        else:
            assert share == tmp_path / "qos_share" / f"{inst.name}.ini"
            assert args[args.index("--qos-share") + 1] == str(share)

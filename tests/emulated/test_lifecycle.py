"""`bngpod up` / `down` leave the host as they found it, also after failures."""

import os
import re
import signal
import subprocess
from pathlib import Path

import pytest

from bngpod import emu, network, validate

from .conftest import LAB

pytestmark = pytest.mark.pod
REPO = Path(__file__).resolve().parents[2]


def host_snapshot() -> dict:
    """What a pod could leave behind: namespaces, root-namespace links, processes
    naming the run dir, the run dir itself."""
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout
    return {
        "namespaces": sorted(emu.our_namespaces()),
        "links": sorted(ln.split(":")[1].strip().split("@")[0] for ln in links.splitlines()),
        "processes": sorted(emu.stray_pids()),
        "run_dir": emu.run_dir().exists(),
    }


def switch_port_buffers() -> dict[str, int]:
    """Per interface, the receive buffer of the AF_PACKET socket ovs-vswitchd reads it
    through (`ss -0 -m` in the switch's namespace; the kernel shows twice what was set)."""
    out = subprocess.run(
        ["ip", "netns", "exec", network.SWITCH_NS, "ss", "-0", "-m", "-a", "-H"], capture_output=True, text=True
    ).stdout
    found = re.findall(r"\*:(\S+)\s+\S*\s*skmem:\(r\d+,rb(\d+),", out)
    return {ifname: int(rb) for ifname, rb in found}


@pytest.fixture
def clean_host(pod_prereqs):
    emu.down(quiet=True)
    before = host_snapshot()
    assert before["namespaces"] == [] and not before["run_dir"]
    yield before
    emu.down(quiet=True)


def test_cli_up_status_down_leaves_nothing(clean_host):
    bngpod = [str(REPO / "bngpod")]
    up = subprocess.run([*bngpod, "up", str(LAB)], capture_output=True, text=True)
    assert up.returncode == 0, up.stderr
    status = subprocess.run([*bngpod, "status"], capture_output=True, text=True)
    assert status.returncode == 0
    assert "ovs-vswitchd" in status.stdout and "running" in status.stdout
    assert "flow_count=" in status.stdout
    for part in ("freeradius radius1", "bng-cp", "servers", "bng-dp dp1"):
        line = next(ln for ln in status.stdout.splitlines() if ln.strip().startswith(part))
        assert "running" in line, status.stdout
    assert status.stdout.count("associated") == 4, status.stdout
    assert "subscribers:       256" in status.stdout
    pids = {name: (e["pid"], e["exe"]) for name, e in emu.State.load().data["pids"].items()}
    assert all(emu.alive(pid, exe) for pid, exe in pids.values())
    # every port socket of the switch has its larger receive buffer (network.SWITCH_PORT_BUFFER)
    buffers = switch_port_buffers()
    assert sorted(buffers) == sorted(["a1", "a2", "a3", "a4", "u10", "v4901", "v4902", "v5001", "v5002"]), buffers
    assert all(rb == 2 * network.SWITCH_PORT_BUFFER for rb in buffers.values()), buffers
    during = host_snapshot()
    assert len(during["namespaces"]) == 4 + 4 + 4  # access, DP, switch+mgmt+core+inet
    assert during["links"] == clean_host["links"], "the pod must not add links to the host namespace"
    # a second pod cannot be started over the first
    again = subprocess.run([*bngpod, "up", str(LAB)], capture_output=True, text=True)
    assert again.returncode == 2 and "already up" in again.stderr
    down = subprocess.run([*bngpod, "down"], capture_output=True, text=True)
    assert down.returncode == 0, down.stderr
    assert host_snapshot() == clean_host
    for name, (pid, exe) in pids.items():
        assert not emu.alive(pid, exe), f"{name} ({pid}) still runs"
    # down is idempotent
    assert subprocess.run([*bngpod, "down"], capture_output=True, text=True).returncode == 0


def test_down_after_a_crash(clean_host):
    state = emu.up(validate.load(LAB), str(LAB))
    # the switch daemon dies and the state file is lost: down must still find it all
    os.kill(state.data["pids"]["ovs-vswitchd"]["pid"], signal.SIGKILL)
    emu.state_path().unlink()
    emu.down(quiet=True)
    assert host_snapshot() == clean_host


def test_failed_up_cleans_up(clean_host):
    # Something half-way through `up` fails (the core namespace's name is taken):
    # every namespace and daemon made before the failure must be gone.
    subprocess.run(["ip", "netns", "add", emu.CORE_NS], check=True)
    with pytest.raises(emu.EmuError, match="bngpod-core"):
        emu.up(validate.load(LAB), str(LAB))
    assert host_snapshot() == clean_host


def test_failed_cp_cleans_up_radius_and_servers(clean_host, tmp_path, monkeypatch):
    # bng-cp dies at once: up names it and its log, and FreeRADIUS and the servers started
    # before it are stopped by their recorded pids.
    fake = tmp_path / "bng-cp"
    fake.write_text("#!/bin/sh\necho 'bng-cp: no luck today' >&2\nexit 3\n")
    fake.chmod(0o755)
    monkeypatch.setattr(emu.binaries, "BNG_CP", fake)
    started = {}
    spawn = emu.supervisor.spawn

    def recording_spawn(state, name, *args, **kw):
        proc = spawn(state, name, *args, **kw)
        started[name] = proc
        return proc

    monkeypatch.setattr(emu.supervisor, "spawn", recording_spawn)
    with pytest.raises(emu.EmuError, match=r"bng-cp exited \(3\) \(see .*bng-cp.log\): bng-cp: no luck today"):
        emu.up(validate.load(LAB), str(LAB))
    assert "freeradius radius1" in started
    for name, proc in started.items():
        assert proc.wait(timeout=5) is not None, name
    assert host_snapshot() == clean_host


def test_core_vlan_is_refused_before_anything_is_built(clean_host):
    doc = validate.load_document(LAB)
    doc["core"]["vlan"] = 77
    pod = validate.check(doc).pod
    with pytest.raises(emu.EmuError, match="core.vlan is not supported"):
        emu.up(pod, str(LAB))
    assert host_snapshot() == clean_host


def test_demo_runs_once_and_cleans_up(clean_host):
    """The README's first command, without a terminal: up, probe, tear down."""
    demo = subprocess.run([str(REPO / "bngpod"), "demo", "--no-hold"], capture_output=True, text=True, timeout=120)
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert "14 of 14 probes went where the pod file says" in demo.stdout
    assert "nothing of the pod is left" in demo.stdout
    assert host_snapshot() == clean_host


def test_cli_generate_then_up_runs_the_generated_directory(clean_host, tmp_path):
    """validate, generate and up one by one: the pod runs the files of the directory, and
    `down` leaves the directory (the user's) but nothing else."""
    bngpod = [str(REPO / "bngpod")]
    gen = tmp_path / "lab.gen"
    made = subprocess.run([*bngpod, "generate", str(LAB), "-o", str(gen), "--subscribers", "2"], capture_output=True)
    assert made.returncode == 0, made.stderr
    # what runs is what is in the directory, edits included
    users = gen / "radius" / "users"
    users.write_text(users.read_text().replace("pw-lg1-1", "changed-by-hand"))
    up = subprocess.run([*bngpod, "up", str(gen)], capture_output=True, text=True)
    assert up.returncode == 0, up.stderr
    status = subprocess.run([*bngpod, "status"], capture_output=True, text=True).stdout
    assert f"generated:         {gen}" in status and "subscribers:       8" in status, status
    pids = emu.State.load().data["pids"]
    for name, config in (("bng-dp dp1", gen / "dp" / "dp1.ini"), ("bng-cp", gen / "cp.yaml")):
        argv = Path(f"/proc/{pids[name]['pid']}/cmdline").read_bytes().split(b"\0")
        assert str(config).encode() in argv, (name, argv)
    authorize = emu.run_dir() / "radius" / "radius1" / "raddb" / "mods-config" / "files" / "authorize"
    assert "changed-by-hand" in authorize.read_text()
    assert [u["user"] for u in emu.generated_users()][:2] == ["lg1-1", "lg1-2"]
    down = subprocess.run([*bngpod, "down"], capture_output=True, text=True)
    assert down.returncode == 0, down.stderr
    assert host_snapshot() == clean_host
    assert (gen / "cp.yaml").is_file(), "the generated directory is the user's"

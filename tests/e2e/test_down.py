"""`bngpod down` after a pod that carried sessions and had a DP killed and restarted leaves
the host as before `up`: namespaces, links of the host namespace, processes, DPDK runtime
directories, the run directory."""

import os
import signal
import subprocess

import pytest

from bngpod import emu, validate

from . import pod as p

pytestmark = pytest.mark.pod


def snapshot() -> dict:
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout
    return {
        "namespaces": sorted(emu.our_namespaces()),
        "links": sorted(ln.split(":")[1].strip().split("@")[0] for ln in links.splitlines()),
        "processes": sorted(emu.stray_pids()),
        "dpdk": sorted(str(d) for d in emu.DPDK_RUNTIME.glob(f"{emu.NS_PREFIX}*")),
        "run_dir": emu.run_dir().exists(),
    }


def test_down_leaves_nothing_behind(pod_prereqs):
    emu.down(quiet=True)
    before = snapshot()
    assert before["namespaces"] == [] and not before["run_dir"] and before["dpdk"] == []
    try:
        emu.up(validate.load(p.LAB), str(p.LAB))
        pod = validate.load(p.LAB)
        with p.AccessLine(pod.port("access4")) as line:
            c = p.client(line, p.mac(6, 1), p.user_on("lg4", "access4"))
            p.dial(c)
            p.udp_echo(c, b"before down")
            os.kill(emu.dp_pid("dp4"), signal.SIGKILL)
            emu.restart_dp("dp4")
            pids = {name: (e["pid"], e["exe"]) for name, e in emu.State.load().data["pids"].items()}
            assert all(emu.alive(pid, exe) for pid, exe in pids.values()), pids
            assert snapshot()["links"] == before["links"]
        down = subprocess.run([str(p.REPO / "bngpod"), "down"], capture_output=True, text=True, timeout=120)
        assert down.returncode == 0, down.stderr
        assert snapshot() == before
        for name, (pid, exe) in pids.items():
            assert not emu.alive(pid, exe), f"{name} ({pid}) still runs"
    finally:
        emu.down(quiet=True)

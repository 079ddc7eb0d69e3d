"""`bngpod demo` headless (as CI runs `make demo < /dev/null`): every instance holds sessions,
traffic flows both ways and the shaper drops the excess, and afterwards nothing is left."""

import re
import subprocess
from pathlib import Path

import pytest

from bngpod import emu

from .conftest import LAB
from .test_lifecycle import host_snapshot

pytestmark = pytest.mark.pod
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def clean_host(pod_prereqs):
    emu.down(quiet=True)
    before = host_snapshot()
    assert before["namespaces"] == [] and not before["run_dir"]
    yield before
    emu.down(quiet=True)


def _last_block(out: str, title: str) -> list[str]:
    """The rows of the last table under title in the printed dashboards."""
    start = out.rindex(title)
    block = out[start:].split("\n\n", 1)[0].splitlines()
    return block[1:]


def test_headless_demo_shows_sessions_traffic_and_drops_then_leaves_nothing(clean_host):
    proc = subprocess.run(
        [str(REPO / "bngpod"), "demo", str(LAB), "--duration", "25"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    out = proc.stdout
    assert proc.returncode == 0, out[-4000:] + proc.stderr
    assert out.count("bngpod demo: pod lab,") >= 2, "the dashboard is printed a few times"
    assert re.search(r"(\d+) of \1 probes went where the pod file says", out), "the fold probe runs first"

    # Per instance: the CP and the DP hold the same nonzero number of sessions, the load
    # arrives and the shaper drops some of it.
    rows = {r.split()[0]: r.split() for r in _last_block(out, "instance  groups")}
    assert sorted(rows) == ["dp1", "dp2", "dp3", "dp4"], rows
    for name, r in rows.items():
        cp, dp, down_in, shaped, up, drops_s, drops = r[2:9]
        assert int(cp) == int(dp) == 25, (name, r)
        assert float(down_in) > float(shaped) > 1.0, (name, r)  # offered above what is sent
        assert float(up) > 0, (name, r)
        assert int(drops) > 0, (name, r)

    # The loaded subscribers top the list at about their profile's rate (the shaper counts
    # access frames, the counters IPv4 bytes: a little below; on a loaded host the
    # dashboard's sampling interval jitters, hence the 5% above).
    top = _last_block(out, "top 10 of 100 subscribers")[1:5]
    for row in top:
        user, _inst, _addr, _profile, limit, rate, *_ = row.split()
        limit = float(limit.rstrip("M"))  # the profile's downstream rate
        assert 0.7 * limit < float(rate) <= 1.05 * limit, row
        assert user.endswith("-1"), row

    # UDP echo traffic on every access port; every session hung up at the end.
    finals = re.findall(r"(access\d): (\d+) of (\d+) came up, (\d+) datagrams sent, (\d+) echoed", out)
    assert sorted(f[0] for f in finals) == ["access1", "access2", "access3", "access4"], out[-2000:]
    for port, ever, count, sent, echoed in finals:
        assert ever == count and int(count) > 0, port
        assert int(echoed) > 0.8 * int(sent) > 0, port
    assert "the control plane holds 0 session(s) after the hang-up" in out
    assert "nothing of the pod is left" in out

    after = host_snapshot()
    assert after == clean_host, "the demo must leave the host as it found it"
    load = subprocess.run(["pgrep", "-f", "bngpod.loadgen"], capture_output=True, text=True)
    assert load.stdout == "", "the load generator must be gone"

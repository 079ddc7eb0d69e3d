"""Fixtures for the control-plane integration tests (tests/cp/pod.py describes the pod).

bng-cp is built once per run (`go build -o accel-ppp-glue/build/bng-cp ./cmd/bng-cp`, and
bngcpctl next to it) unless BNG_CP names a binary. Without its source, FreeRADIUS,
radclient, tshark or Go, the tests that need the daemon are skipped with the reason;
under BNGPOD_REQUIRE_POD=1 (as `make test` sets) they fail instead.

Options of one test: `@pytest.mark.cp(echo_interval=1, echo_failures=2, interim=300,
auth="pap,chap", extra=(...), lcp_offload={2: False})`."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from .pod import BNG_CP, BNGCPCTL, GLUE, CpOptions, Pod
from .radiusd import installed


def pytest_configure(config):
    config.addinivalue_line("markers", "cp(**options): bng-cp options and fake DP features for the pod fixture")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)


def _go() -> str | None:
    return shutil.which("go") or ("/usr/local/go/bin/go" if os.path.exists("/usr/local/go/bin/go") else None)


def _build() -> str | None:
    """Build bng-cp and bngcpctl; None when done, else why not."""
    if "BNG_CP" in os.environ:
        return None if BNG_CP.exists() else f"BNG_CP={BNG_CP} does not exist"
    if not (GLUE / "cmd" / "bng-cp").is_dir():
        return "accel-ppp-glue/cmd/bng-cp does not exist yet (the daemon is not written)"
    go = _go()
    if go is None:
        return "Go is not installed (scripts/setup.sh installs it)"
    for name, out in (("bng-cp", BNG_CP), ("bngcpctl", BNGCPCTL)):
        if not (GLUE / "cmd" / name).is_dir():
            continue
        p = subprocess.run(
            [go, "build", "-o", str(out), f"./cmd/{name}"], cwd=GLUE, capture_output=True, text=True, timeout=600
        )
        if p.returncode != 0:
            return f"go build ./cmd/{name} failed:\n{p.stderr[-3000:]}"
    return None


@pytest.fixture(scope="session")
def cp_prereqs():
    why = None
    if not installed():
        why = "freeradius is not installed (apt-get install freeradius)"
    elif shutil.which("radclient") is None:
        why = "radclient is not installed (freeradius-utils)"
    elif shutil.which("tshark") is None:
        why = "tshark is not installed"
    else:
        why = _build()
    if why:
        if os.environ.get("BNGPOD_REQUIRE_POD") == "1":
            pytest.fail(f"bng-cp integration tests cannot run: {why}")
        pytest.skip(why)


@pytest.fixture
def pod(cp_prereqs, request):
    m = request.node.get_closest_marker("cp")
    kw = dict(m.kwargs) if m else {}
    offload = kw.pop("lcp_offload", None)
    p = Pod(CpOptions(**kw), lcp_offload=offload)
    try:
        p.start()
        yield p
    finally:
        rep = getattr(request.node, "rep_call", None)
        if rep is None or rep.failed:
            print(f"--- bng-cp log (tail) of {p.dir} ---\n{p.cp.log_text()[-6000:]}")
            for dp in p.dps.values():
                if dp.inject_errors:
                    print(f"--- dp{dp.id} inject errors: {dp.inject_errors[:20]}")
        p.close()

"""Fixtures for the control-plane integration tests (tests/cp/pod.py describes the pod).

bng-cp and bngcpctl are the ones `make binaries` builds into accel-ppp-glue/build (or
$BNG_CP, $BNGCPCTL); the tests build nothing. Without them, FreeRADIUS, radclient or
tshark, the tests that need the daemon are skipped with the reason; under
BNGPOD_REQUIRE_POD=1 (as `make test` sets) they fail instead.

Options of one test: `@pytest.mark.cp(echo_interval=1, echo_failures=2, interim=300,
auth="pap,chap", extra=(...), lcp_offload={2: False})`."""

from __future__ import annotations

import os
import shutil

import pytest

from bngpod.binaries import BNG_CP, BNGCPCTL, missing
from bngpod.radius import installed

from .pod import CpOptions, Pod


def pytest_configure(config):
    config.addinivalue_line("markers", "cp(**options): bng-cp options and fake DP features for the pod fixture")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)


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
        why = missing(BNG_CP, BNGCPCTL)
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

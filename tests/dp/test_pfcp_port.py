"""bng-dp with a PFCP port other than 8805 (`[instance] pfcp_port`, the pod's
control_plane.pfcp_port): the CP listens there, so every request of the DP's own
(heartbeats, usage reports, LCP dead reports) must go to cp_address:pfcp_port, and
nothing to 8805. Its own rig: the lab's dp1.ini with pfcp_port = 18805."""

from __future__ import annotations

import re
import time

import pytest
from harness.pfcp_cp import REPORT_USAR, Cp, Sub
from harness.rig import DpRig, cleanup_stale

from .conftest import LAB_DP1

PORT = 18805


@pytest.fixture(scope="module")
def dp_alt(dp_prereqs, tmp_path_factory):
    ini = tmp_path_factory.mktemp("pfcp_port") / "dp1.ini"
    text, n = re.subn(r"(?m)^(pfcp_port\s*=\s*)8805\b", rf"\g<1>{PORT}", LAB_DP1.read_text())
    assert n == 1, "dp1.ini names pfcp_port 8805"
    ini.write_text(text)
    rig = DpRig(ini).start()
    try:
        yield rig
    finally:
        rig.close()
        cleanup_stale()


def test_own_requests_go_to_the_configured_cp_port(dp_alt):
    default = dp_alt.cp_socket(8805)  # the old hard-coded port: nothing may arrive here
    cp = Cp(dp_alt.cp_socket(PORT), dp_addr=(dp_alt.DP_CTRL, PORT), node_ip=dp_alt.CP_ADDR)
    try:
        assert cp.associate() == 1
        sub = Sub(urr_period=1, lcp_magic=0x11223344, lcp_peer_magic=0x55667788, echo_interval=1, echo_misses=1)
        _cp_seid, up_seid, cause = cp.establish(sub)
        assert cause == 1
        # A periodic usage report each second, an LCP dead report after one unanswered
        # echo, and the association's heartbeat after 5 s: all to the CP's port.
        deadline = time.monotonic() + 9
        seen: list = []
        while time.monotonic() < deadline:
            cp.poll(0.5)
            seen += cp.reports
            cp.reports.clear()
            heartbeats = sum(1 for d in cp.received if d[1] == 1)
            if heartbeats and any(r.lcp_dead for r in seen) and any(r.report_type & REPORT_USAR for r in seen):
                break
        assert heartbeats >= 1, "no heartbeat request reached the CP's port"
        assert any(r.lcp_dead for r in seen), "no LCP dead report reached the CP's port"
        assert any(r.report_type & REPORT_USAR and r.usage for r in seen), "no usage report"
        st = dp_alt.telemetry("/bng/pfcp")
        assert st["tx_errors"] == 0 and st["req_timeouts"] == 0
        assert cp.delete(up_seid)[0] == 1
        default.settimeout(0.5)
        with pytest.raises(TimeoutError):
            default.recvfrom(65535)
    finally:
        cp.close()
        default.close()

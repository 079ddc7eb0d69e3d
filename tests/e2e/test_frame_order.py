"""A session's frames reach the CPE in the order the BNG means them, through the whole
emulated pod, as a strict CPE needs them: the PADS before any session frame of that
session, and the Terminate-Ack (or the CPE's Ack of the BNG's Terminate-Request) before
the BNG's PADT.

The scapy client is strict the way most CPEs are: it waits for the PADS and ignores the
session frames that came before it, so a BNG whose first LCP Configure-Request overtakes
its PADS costs it one LCP restart period. Found with an independent client through the
pod: Open vSwitch's userspace datapath runs a frame that misses its flow cache ahead of
the cached frames of the same batch, so a PADS (cached: its PADO went the same way) fell
behind the session's first LCP frame (not cached yet), and a PADT behind a cached
Terminate-Ack. See docs/cp/sessions.md and docs/switch-fold.md."""

from __future__ import annotations

import subprocess
import time
from contextlib import contextmanager

import pytest
from harness.pppoe_client import LCP, PADS, PADT, TERM_ACK, TERM_REQ

from bngpod import emu

from . import pod as p
from .podfix import lab_pod_fixture

pytestmark = pytest.mark.pod
lab_pod = lab_pod_fixture()

# A dial that waited for the 3 s LCP restart takes > 3 s; a cold dial through the pod takes
# tens of milliseconds. The bound is loose for a busy 2-core machine.
DIAL_BOUND_S = 1.5


@contextmanager
def discovery_flows_expired(c, seconds: float = 1.5):
    """Let the switch's cached discovery flows of this line idle out while the session's own
    flows stay cached (echoes every 0.1 s), as they are when a session that has been up a
    while hangs up: Open vSwitch keeps an idle megaflow 10 s; here 0.5 s for the block."""
    emu.vsctl("set", "Open_vSwitch", ".", "other_config:max-idle=500")
    try:
        t_end = time.monotonic() + seconds
        while time.monotonic() < t_end:
            c.echo(timeout=1.0)
            time.sleep(0.1)
        yield
    finally:
        emu.vsctl("remove", "Open_vSwitch", ".", "other_config", "max-idle")


def session_frames(line: p.AccessLine, mac: str, sid: int, since: float) -> list[tuple[str, float]]:
    """The frames to `mac` of PPPoE session `sid` on the access wire, in arrival order:
    ("PADS" | "PADT" | "LCP<code>" | "PPP", time)."""
    out = []
    for f in line.frames(since, lambda f: f.dst == mac and f.tags() is not None):
        if f.ethertype == 0x8863 and f.pppoe_code in (PADS, PADT) and f.pppoe_sid == sid:
            out.append(("PADS" if f.pppoe_code == PADS else "PADT", f.t))
        elif f.ethertype == 0x8864 and f.pppoe_sid == sid:
            proto = int.from_bytes(f.raw[28:30], "big") if len(f.raw) >= 31 else 0
            out.append((f"LCP{f.raw[30]}" if proto == LCP else "PPP", f.t))
    return out


def test_cold_dials_are_fast_and_the_pads_comes_first(lab_pod):
    """Subscribers on S-tags no frame has crossed yet (each lg1 user has its own S-tag): the
    first session frame a strict CPE receives comes after the PADS, and no dial waits for
    an LCP restart."""
    with p.AccessLine(lab_pod.port("access1")) as line:
        users = [u for u in p.users() if u["line_group"] == "lg1"][:4]
        report = []
        for i, u in enumerate(users):
            c = p.client(line, p.mac(31, i + 1), u)
            t0 = time.monotonic()
            res = c.dial(timeout=10)
            report.append((u["user"], res.ok, round(res.seconds, 3)))
            assert res.ok, f"{u['user']}: {res.reason}"
            frames = session_frames(line, c.mac, c.session_id, t0)
            kinds = [k for k, _ in frames]
            assert kinds and kinds[0] == "PADS", f"{u['user']}: session frames before the PADS: {kinds[:4]}"
        print(f"\ncold dials (user, ok, seconds): {report}")
        slow = [r for r in report if r[2] >= DIAL_BOUND_S]
        assert not slow, f"dials that waited for an LCP restart: {slow}"


def test_client_hangup_gets_the_terminate_ack_before_any_padt(lab_pod):
    """The CPE sends Terminate-Request and waits for the Ack before its PADT (as pppd does):
    the Ack reaches it first, and the BNG's own PADT, if it sends one at all, comes later."""
    with p.AccessLine(lab_pod.port("access1")) as line:
        u = [u for u in p.users() if u["line_group"] == "lg1"][4]
        c = p.client(line, p.mac(32, 1), u)
        p.dial(c)
        with discovery_flows_expired(c):
            t0 = time.monotonic()
            assert c.terminate(timeout=5.0), "no Terminate-Ack"
            time.sleep(1.0)
        kinds = [k for k, _ in session_frames(line, c.mac, c.session_id, t0)]
        ack = kinds.index(f"LCP{TERM_ACK}")
        assert "PADT" not in kinds[:ack], f"PADT before the Terminate-Ack: {kinds}"
        p.wait_gone(u["user"])


def test_client_that_never_sends_padt_still_gets_one_after_the_ack(lab_pod):
    """A CPE that sends Terminate-Request and then goes silent: the BNG ends the session
    itself after a bounded wait, with its PADT after the Terminate-Ack."""
    with p.AccessLine(lab_pod.port("access1")) as line:
        u = [u for u in p.users() if u["line_group"] == "lg1"][5]
        c = p.client(line, p.mac(33, 1), u)
        p.dial(c)
        with discovery_flows_expired(c):
            t0 = time.monotonic()
            c.send_ppp(LCP, TERM_REQ, c.next_id(), b"bye")
            assert c.padt_received.wait(5.0), "the BNG never sent its PADT"
        kinds = [k for k, _ in session_frames(line, c.mac, c.session_id, t0)]
        assert f"LCP{TERM_ACK}" in kinds and kinds.index(f"LCP{TERM_ACK}") < kinds.index("PADT"), kinds
        p.wait_gone(u["user"])


def test_bng_hangup_waits_for_the_cpe_ack_before_its_padt(lab_pod):
    """The BNG ends a live session (bngcpctl session terminate): Terminate-Request, the CPE's
    Ack, and only then the PADT."""
    with p.AccessLine(lab_pod.port("access1")) as line:
        u = [u for u in p.users() if u["line_group"] == "lg1"][6]
        c = p.client(line, p.mac(34, 1), u)
        _, session = p.dial(c)
        acked_at: list[float] = []
        answer = c.deliver

        def deliver(frame):  # note when the client's Ack leaves (the client answers on its own)
            answer(frame)
            if c.terminated_by_peer.is_set() and not acked_at:
                acked_at.append(time.monotonic())

        c.deliver = deliver
        with discovery_flows_expired(c):
            t0 = time.monotonic()
            ctl = subprocess.run(
                [str(emu.BNGCPCTL), "--socket", str(emu.cp_socket()), "session", "terminate", str(session["id"])],
                capture_output=True, text=True, timeout=10,
            )  # fmt: skip
            assert ctl.returncode == 0, ctl.stderr
            assert c.padt_received.wait(5.0), "no PADT"
        frames = session_frames(line, c.mac, c.session_id, t0)
        kinds = [k for k, _ in frames]
        assert kinds[0] == f"LCP{TERM_REQ}", kinds
        padt_at = next(t for k, t in frames if k == "PADT")
        assert acked_at and padt_at > acked_at[0], f"PADT before the CPE's Terminate-Ack: {kinds}"
        p.wait_gone(u["user"])

"""A PADI flood from one MAC (hundreds per second for a few seconds) on an access line does
not disturb other subscribers of the same port: one dials on the flooded line meanwhile,
an established one keeps its echo traffic; bng-dp's punt policer and bng-cp's PADI limits
show the flood was limited."""

import threading
import time

import pytest
from harness.pppoe_client import PADI, PppoeClient

from . import pod as p

pytestmark = pytest.mark.pod
FLOOD_MAC = "02:66:00:00:00:01"
FLOOD_PPS = 400
FLOOD_SECONDS = 3.0


def test_padi_flood_does_not_disturb_the_neighbours(lab_pod):
    with p.AccessLine(lab_pod.port("access1")) as line:
        lg1 = [u for u in p.users() if u["line_group"] == "lg1"]
        established = p.client(line, p.mac(4, 1), lg1[0])
        p.dial(established)
        p.udp_echo(established, b"warm up")
        dialler = p.client(line, p.mac(4, 2), lg1[1])
        # the flood comes on the dialler's own line (its S- and C-tag)
        flooder = PppoeClient(line, FLOOD_MAC, dialler.stag, dialler.ctag, outer_tpid=line.port.tpid)
        padi = bytes(flooder.discovery_frame(PADI, flooder.padi_body()))
        punt0, cp0 = p.telemetry("dp1", "/bng/punt"), p.cp_metrics()

        sent = 0
        stop = threading.Event()

        def flood():
            nonlocal sent
            t0 = time.monotonic()
            while not stop.is_set() and time.monotonic() - t0 < FLOOD_SECONDS:
                for _ in range(FLOOD_PPS // 100):
                    line.send_frame(padi)
                    sent += 1
                stop.wait(max(0.0, t0 + sent / FLOOD_PPS - time.monotonic()))

        t_flood = time.monotonic()
        flooding = threading.Thread(target=flood, daemon=True)
        flooding.start()
        try:
            time.sleep(0.3)
            result = {}
            dialling = threading.Thread(target=lambda: result.update(res=dialler.dial(timeout=20)), daemon=True)
            dialling.start()
            echoes = answered = 0
            while flooding.is_alive():
                echoes += 1
                try:
                    p.udp_echo(established, b"during the flood %d" % echoes, timeout=0.5, tries=1)
                    answered += 1
                except AssertionError:
                    pass
                time.sleep(0.05)
            dialling.join(25)
        finally:
            stop.set()
            flooding.join(5)
        t_end = time.monotonic()
        time.sleep(0.5)
        punt1, cp1 = p.telemetry("dp1", "/bng/punt"), p.cp_metrics()

        res = result.get("res")
        padoes = line.frames(t_flood, lambda f: f.dst == FLOOD_MAC and f.ethertype == 0x8863)
        dp_policed = punt1["policed"] - punt0["policed"]
        key = 'bngcp_frames_dropped_total{reason="padi_rate"}'
        cp_limited = cp1.get(key, 0) - cp0.get(key, 0)
        print(
            f"\nPADI flood: {sent} PADIs in {t_end - t_flood:.1f} s from {FLOOD_MAC}; bng-dp policed {dp_policed}, "
            f"bng-cp limited {cp_limited:.0f}, {len(padoes)} PADOs to the flooder; "
            f"neighbour echoes {answered}/{echoes}; "
            f"dial during the flood: {res and (res.ok, round(res.seconds, 2), res.reason)}"
        )
        assert sent >= FLOOD_PPS * FLOOD_SECONDS * 0.8, f"only {sent} PADIs sent"
        assert res is not None and res.ok, f"the neighbour could not dial during the flood: {res and res.reason}"
        p.wait_session(dialler.user, lambda s: s["state"] == "established" and s["instance"] == 1)
        assert echoes >= 10 and answered >= echoes - 1, f"established session disturbed: {answered}/{echoes}"
        # the flood was limited: hardly any of it was answered, the rest dropped and counted
        assert len(padoes) <= 20, f"{len(padoes)} PADOs to the flooding MAC"
        assert dp_policed + cp_limited >= sent - 40, (dp_policed, cp_limited, sent)
        p.udp_echo(dialler, b"the new session works")

"""Malformed single-tagged frames on an access port do not block the lines of their S-tag.

Found through the pod: one PADI with only an S-tag (300, access3: the S-tag lg3 and lg4
split by C-tag) made Open vSwitch's userspace datapath cache a drop that matched every
frame on S-tag 300 with that EtherType, whatever its C-tag, for about 12 s after the last
such frame (the cache cannot say "no inner tag" after a pop). The emulated switch's access
ports now drop single-tagged frames before Open vSwitch sees them, counted by the veth
(docs/switch-fold.md)."""

from __future__ import annotations

import threading
import time

import pytest
from harness.pppoe_client import PADI, PADO
from scapy.layers.l2 import Dot1Q, Ether
from scapy.layers.ppp import PPPoED
from scapy.packet import Raw

from bngpod import network

from . import pod as p
from .podfix import lab_pod_fixture

pytestmark = pytest.mark.pod
lab_pod = lab_pod_fixture()
BAD_PPS = 10


def test_single_tagged_padis_do_not_block_the_c_tagged_lines_of_their_s_tag(lab_pod):
    port = lab_pod.port("access3")
    with p.AccessLine(port) as line:
        bad = bytes(
            Ether(src="02:5b:40:00:00:ff", dst="ff:ff:ff:ff:ff:ff")
            / Dot1Q(vlan=300)
            / PPPoED(code=PADI)
            / Raw(b"\x01\x01\x00\x00")
        )
        drops0 = network.access_ingress_drops(port)
        stop = threading.Event()
        sent = 0

        def malformed():
            nonlocal sent
            while not stop.is_set():
                line.send_frame(bad)
                sent += 1
                stop.wait(1 / BAD_PPS)

        t = threading.Thread(target=malformed, daemon=True)
        t.start()
        try:
            time.sleep(1.0)  # the bad frames have long reached the switch
            waits = {}
            for group in ("lg3", "lg4"):
                u = next(u for u in p.users() if u["line_group"] == group and u["port"] == "access3")
                c = p.client(line, p.mac(40, len(waits) + 1), u)
                t0 = time.monotonic()
                c.send_padi()
                c.expect(lambda r: r.discovery and r.code == PADO, timeout=1.0, what=f"PADO for {group}")
                waits[group] = round(time.monotonic() - t0, 3)
                assert u["stag"] == 300
        finally:
            stop.set()
            t.join(5)
        dropped = network.access_ingress_drops(port) - drops0
        print(f"\nPADO waits, single-tagged PADIs at {BAD_PPS}/s on S-tag 300: {waits}; {sent} sent, {dropped} dropped")
        assert dropped >= sent - 1, f"{sent} single-tagged frames sent, the switch counted {dropped} dropped"

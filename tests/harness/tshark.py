"""PFCP captures and tshark, for checks independent of every PFCP codec under test: a pcap
of PFCP messages (UDP 8805 in raw IPv4), tshark's dissection of a capture as (field, shown
value) pairs, and small look-ups on those. Used by the bng-dp tests (tests/dp) and the
control-plane tests (tests/cp)."""

from __future__ import annotations

import struct
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path


def write_pcap(path: Path, msgs: list[tuple[bytes, bool]]) -> None:
    """msgs: (PFCP message, sent by the CP?) as UDP 8805 datagrams in raw-IPv4 frames."""
    out = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 101)
    for i, (m, from_cp) in enumerate(msgs):
        src, dst = (b"\x0a\xc8\x00\x01", b"\x0a\xc8\x00\x0b") if from_cp else (b"\x0a\xc8\x00\x0b", b"\x0a\xc8\x00\x01")
        udp = struct.pack("!HHHH", 8805, 8805, 8 + len(m), 0) + m
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), i, 0, 64, 17, 0, src, dst) + udp
        out += struct.pack("<IIII", i, 0, len(ip), len(ip)) + ip
    path.write_bytes(out)


def dissect_pcap(pcap: Path, prefixes: tuple[str, ...] = ("pfcp",)) -> list[list[tuple[str, str]]]:
    """tshark's fields of each packet of a capture whose names start with one of
    `prefixes` (PFCP by default), malformed/expert notes included: [(name, shown value)]."""
    xml = subprocess.run(
        ["tshark", "-r", str(pcap), "-T", "pdml", "-o", "pfcp.port_pfcp:8805"],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    pkts = []
    for pkt in ET.fromstring(xml).iter("packet"):  # noqa: S314 (tshark's own output, not the network's)
        fields = []
        for f in pkt.iter("field"):
            n = f.get("name", "")
            if n.startswith(prefixes) or n.startswith("_ws.malformed") or n.startswith("_ws.expert"):
                fields.append((n, f.get("show", "")))
        pkts.append(fields)
    return pkts


def dissect(tmp_path: Path, msgs: list[tuple[bytes, bool]]) -> list[list[tuple[str, str]]]:
    """tshark's fields of each message: [(field name, shown value)] in order."""
    pcap = tmp_path / "pfcp.pcap"
    write_pcap(pcap, msgs)
    pkts = dissect_pcap(pcap)
    assert len(pkts) == len(msgs)
    return pkts


def vals(fields: list[tuple[str, str]], name: str) -> list[str]:
    return [v for n, v in fields if n == name]


def one(fields: list[tuple[str, str]], name: str) -> str:
    got = vals(fields, name)
    assert len(got) == 1, (name, got)
    return got[0]


def clean(fields: list[tuple[str, str]]) -> None:
    bad = [(n, v) for n, v in fields if n.startswith("_ws.malformed") or n.startswith("_ws.expert")]
    assert bad == [], bad

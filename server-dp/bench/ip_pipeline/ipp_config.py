#!/usr/bin/env python3
"""DPDK's ip_pipeline example (22.11) configured as the bench-dp vBNG: writes the CLI
scripts, the bulk rule files and the DSCP tables for one session count.

Downstream pipeline PDOWN (one pipeline, one worker lcore):
    port in 0  source: the downstream pcap (bpp bytes of each frame copied per packet)
    table 0    LPM on the IPv4 destination, one /32 per session:
               tm (subport, pipe; class and queue from the DSCP table)
               + encap qinq_pppoe (client MAC, AC MAC, S-tag, C-tag, PPPoE id)
               + ttl dec -> port out 0
    port out 0 tmgr TMGR0 (rte_sched: 4096 pipes a subport, 13 classes, 16 queues)
    port in 1  tmgr TMGR0 (dequeue)
    table 1    array with one entry (index always 0), action stats -> port out 1
               (the sink's packet counter: Debian's DPDK counts no port statistics)
    port out 1 sink
Upstream pipeline PUP:
    port in 0  source: the upstream pcap
    table 0    hash (16-byte key at the S-tag TCI: S-VID, C-TPID, C-VID, 0x8864,
               PPPoE ver/type/code, session id, PPP protocol; PCP/DEI and the PPPoE
               length masked out): meter trtcm per session (color blind, red dropped)
               -> table 1
    table 1    LPM on the IPv4 destination (198.18.0.0/15 via the core router):
               encap ether (core header in front of the IP header, which drops the
               access header) + ttl dec + stats -> port out 0
    port out 0 sink

usage: ipp_config.py OUTDIR --sessions N --down PCAP --up PCAP [--bpp B]
writes OUTDIR/{down,up}_N.cli and the files they name.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import vbng_traffic as vt  # noqa: E402

# Offsets from the start of the mbuf: struct rte_mbuf (128) + headroom (128).
ETH = 256
DOWN_IP = ETH + 14
UP_KEY = ETH + 14  # S-tag TCI
UP_IP = ETH + 30
UP_KEY_MASK = "0FFFFFFF0FFFFFFFFFFFFFFF0000FFFF"
MEMPOOL = "mempool MEMPOOL0 buffer 2304 pool 32K cache 256 cpu 0"
TC_PERIOD_MS = 10
TB_SIZE = 1_000_000  # bytes, subport and pipe token buckets
METER_BURST = 100_000  # bytes, trTCM CBS and PBS
FRAME_OVERHEAD = 4  # FCS: rates are Ethernet frame rates, preamble and gap excluded
SERVER_NET = ("198.18.0.0", 15)


def _bps(bits: int) -> int:
    return bits // 8


def dscp_table_down() -> str:
    """64 lines '<tc> <queue in pipe> <color>': gold's dscp_map, BE DSCPs spread over
    the 4 best-effort queues (bng-dp spreads them by flow hash instead)."""
    g = vt.GOLD
    lines = []
    for d in range(64):
        if d in g["dscp_map"]:
            tc = g["dscp_map"][d]
            lines.append(f"{tc} {tc} g")
        else:
            q = 12 + (vt.BE_DSCPS.index(d) if d in vt.BE_DSCPS else 0)
            lines.append(f"12 {q} g")
    return "\n".join(lines) + "\n"


def down_cli(n: int, d: str, pcap: str, bpp: int) -> str:
    g = vt.GOLD
    spp = n // vt.SUBPORT_SESSIONS
    port = _bps(vt.PORT_RATE)
    pipe = _bps(g["down_rate"])
    pipe_tc = [_bps(g["tc_rates"].get(tc, g["down_rate"])) for tc in range(13)]
    rules = os.path.join(d, f"rules_down_{n}.txt")
    with open(rules, "w") as f:
        ac = vt.mac_str(vt.AC_MAC)
        for s in vt.sessions(n):
            f.write(
                f"match lpm ipv4 {vt.ip_str(s.ip)} 32 action fwd port 0 tm subport {s.subport} pipe {s.pipe} "
                f"encap qinq_pppoe {vt.mac_str(s.mac)} {ac} 0 0 {s.stag} 0 0 {s.ctag} {s.sid} ttl dec\n"
            )
    dscp = os.path.join(d, "dscp_down.txt")
    with open(dscp, "w") as f:
        f.write(dscp_table_down())
    return "\n".join(
        [
            f"; bench-dp downstream vBNG, {n} sessions (server-dp/bench/ip_pipeline/ipp_config.py)",
            MEMPOOL,
            f"tmgr subport profile {port} {TB_SIZE} " + " ".join([str(port)] * 13) + f" {TC_PERIOD_MS}",
            f"tmgr pipe profile {pipe} {TB_SIZE} "
            + " ".join(map(str, pipe_tc))
            + f" {TC_PERIOD_MS} 1 "
            + " ".join(map(str, g["be_weights"])),
            f"tmgr TMGR0 rate {port} spp {spp} pps {vt.SUBPORT_SESSIONS} fo {FRAME_OVERHEAD} mtu 1522 cpu 0",
            f"table action profile APDOWN ipv4 offset {DOWN_IP} fwd tm spp {spp} pps {vt.SUBPORT_SESSIONS} "
            "encap qinq_pppoe ttl drop stats none",
            f"table action profile APCOUNT ipv4 offset {DOWN_IP} fwd stats pkts",
            "pipeline PDOWN period 10 offset_port_id 0 cpu 0",
            f"pipeline PDOWN port in bsz 32 source mempool MEMPOOL0 file {pcap} bpp {bpp}",
            "pipeline PDOWN port in bsz 32 tmgr TMGR0",
            "pipeline PDOWN port out bsz 32 tmgr TMGR0",
            "pipeline PDOWN port out bsz 32 sink",
            f"pipeline PDOWN table match lpm ipv4 offset {DOWN_IP + 16} size {n} action APDOWN",
            f"pipeline PDOWN table match array offset {ETH} size 1 action APCOUNT",
            "pipeline PDOWN port in 0 table 0",
            "pipeline PDOWN port in 1 table 1",
            f"pipeline PDOWN table 0 dscp {dscp}",
            "pipeline PDOWN table 0 rule add match default action fwd drop",
            f"pipeline PDOWN table 0 rule add bulk {rules}",
            "pipeline PDOWN table 1 rule add match array 0 action fwd port 1 stats",
            "thread 1 pipeline PDOWN enable",
            "",
        ]
    )


def up_key(s: vt.Session) -> str:
    return f"{s.stag:04X}8100{s.ctag:04X}88641100{s.sid:04X}00000021"


def up_cli(n: int, d: str, pcap: str, bpp: int) -> str:
    g = vt.GOLD
    rules = os.path.join(d, f"rules_up_{n}.txt")
    with open(rules, "w") as f:
        for s in vt.sessions(n):
            f.write(f"match hash raw {up_key(s)} action fwd table 1 meter tc0 meter 0 policer g g y y r drop\n")
    dscp = os.path.join(d, "dscp_up.txt")
    with open(dscp, "w") as f:
        f.write("0 0 g\n" * 64)
    return "\n".join(
        [
            f"; bench-dp upstream vBNG, {n} sessions (server-dp/bench/ip_pipeline/ipp_config.py)",
            MEMPOOL,
            f"table action profile APSESS ipv4 offset {UP_IP} fwd meter trtcm tc 1 stats pkts",
            f"table action profile APROUTE ipv4 offset {UP_IP} fwd encap ether ttl drop stats none stats pkts",
            "pipeline PUP period 10 offset_port_id 0 cpu 0",
            f"pipeline PUP port in bsz 32 source mempool MEMPOOL0 file {pcap} bpp {bpp}",
            "pipeline PUP port out bsz 32 sink",
            f"pipeline PUP table match hash ext key 16 mask {UP_KEY_MASK} offset {UP_KEY} "
            f"buckets {n} size {n} action APSESS",
            f"pipeline PUP table match lpm ipv4 offset {UP_IP + 16} size 1K action APROUTE",
            "pipeline PUP port in 0 table 0",
            f"pipeline PUP table 0 dscp {dscp}",
            f"pipeline PUP table 0 meter profile 0 add trtcm cir {_bps(g['up_cir'])} pir {_bps(g['up_pir'])} "
            f"cbs {METER_BURST} pbs {METER_BURST}",
            "pipeline PUP table 0 rule add match default action fwd drop",
            f"pipeline PUP table 0 rule add bulk {rules}",
            "pipeline PUP table 1 rule add match default action fwd drop",
            f"pipeline PUP table 1 rule add match lpm ipv4 {SERVER_NET[0]} {SERVER_NET[1]} action fwd port 0 "
            f"encap ether {vt.mac_str(vt.ROUTER_MAC)} {vt.mac_str(vt.CORE_MAC)} ttl dec stats",
            "thread 1 pipeline PUP enable",
            "",
        ]
    )


# The CLI command that reads the packet count at the sink, per direction.
COUNT_CMD = {
    "downstream": "pipeline PDOWN table 1 rule read stats match array 0",
    "upstream": f"pipeline PUP table 1 rule read stats match lpm ipv4 {SERVER_NET[0]} {SERVER_NET[1]}",
}


def write(outdir: str, n: int, down_pcap: str, up_pcap: str, bpp: int) -> dict[str, str]:
    os.makedirs(outdir, exist_ok=True)
    out = {}
    for scen, fn, pcap in (("downstream", down_cli, down_pcap), ("upstream", up_cli, up_pcap)):
        path = os.path.join(outdir, f"{scen}_{n}.cli")
        with open(path, "w") as f:
            f.write(fn(n, outdir, pcap, bpp))
        out[scen] = path
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--sessions", type=int, required=True)
    ap.add_argument("--down", required=True, help="downstream pcap")
    ap.add_argument("--up", required=True, help="upstream pcap")
    ap.add_argument("--bpp", type=int, default=64, help="bytes of each pcap frame the source port copies")
    a = ap.parse_args(argv)
    for scen, path in write(a.outdir, a.sessions, a.down, a.up, a.bpp).items():
        print(f"{scen}: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

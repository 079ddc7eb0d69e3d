#!/usr/bin/env python3
"""`make bench-dp`: bng-dp's whole pipeline (bench_dp.c, once per HQoS scheduler) and
DPDK's ip_pipeline configured as the same vBNG (ip_pipeline/), on the same sessions and
traffic (vbng_traffic.py), downstream and upstream, at 4096 and 65536 sessions.

Fair by construction (the settings are printed first as one {"fairness": ...} line):
- the same queue size (--qsize, ip_pipeline's fixed 64) and mbuf count (--mbufs, 32K,
  ip_pipeline's pool) on both sides;
- each side runs its worker on lcore 1 and its control thread on lcore 0; bng-dp's
  control thread waits in a blocking read, ip_pipeline's CLI loop sleeps
  --ipp-cli-sleep-us per turn (patched into the fast build; 0 = busy-poll as shipped);
- both count packets at the sink (after the HQoS dequeue downstream), inside the
  window; nothing is drained outside it;
- all implementations of a point are started once and measured in interleaved windows
  (A, B, C, A, B, C, ...), each process idle between its windows (bench_dp blocked on
  stdin, ip_pipeline stopped with SIGSTOP), so machine drift hits all alike.

Per point and implementation, one JSON line on stdout:
  {"impl": ..., "scenario": ..., "sessions": N, "mpps_per_core": median,
   "mpps_per_core_spread": [min, max], "wall_mpps": median, "wall_mpps_spread": [min, max],
   "cycles_per_packet": TSC Hz / median per-core rate, "instructions_per_packet": Y,
   "frame_bytes": 504|128, "runs": K, "loadavg": [1, 5, 15 min], ...}
then the ratios to ip_pipeline ({"compare": ...}).

mpps_per_core: packets at the sink / CPU time the worker thread was given in the window
  (bng-dp: CLOCK_THREAD_CPUTIME_ID; ip_pipeline: the worker's schedstat), so time the
  scheduler gives to other processes is not charged; wall_mpps: / wall-clock time.
instructions_per_packet: callgrind (--no-huge): bench_loop() for bng-dp, the worker
  thread between two sink counts for ip_pipeline. The callgrind profile's heaviest
  functions go to OUT/bng-dp/<point>.stages.txt.

control_cpu_share: CPU time of the control (main) thread / wall time over the windows:
  near 0 when it does not poll, near 1 for ip_pipeline with --ipp-cli-sleep-us 0.

Every process started here is stopped and the hugepage setting restored on exit; any
failure of either side exits non-zero."""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "ip_pipeline"))
import ipp_config  # noqa: E402
import run as ipp  # noqa: E402
import vbng_traffic as vt  # noqa: E402

BENCH = os.path.join(os.path.dirname(HERE), "build", "bench", "bench_dp")
CALLGRIND_SLOWDOWN = 50  # about how much slower bench_dp runs under callgrind (time-based work)
# Implementations of a point: (kind, bng-dp's --hqos scheduler or None for the default).
IMPLS = {
    "bng-dp (hsched)": ("bng-dp", "hsched"),
    "bng-dp (rte_sched)": ("bng-dp", "rte_sched"),
    "ip_pipeline": ("ip_pipeline", None),
}
SCEN = {
    "downstream": ("down", vt.DOWN_FRAME_LEN),
    "upstream": ("up", vt.UP_FRAME_LEN),
    # IPv6 (dual-stack sessions with a /64 and a /56 each), bng-dp only
    "downstream6": ("down6", vt.DOWN_FRAME_LEN),
    "upstream6": ("up6", vt.UP_FRAME_LEN),
    # IPoE (the same sessions as IPoE subscribers, QinQ + Ethernet), bng-dp only
    "downstream_ipoe": ("down", vt.DOWN_FRAME_LEN),
    "upstream_ipoe": ("up_ipoe", vt.UP_FRAME_LEN - 8),
    # IPoE IPv6 (dual stack over IPoE: the IPv6 sessions as IPoE subscribers), bng-dp only
    "downstream6_ipoe": ("down6", vt.DOWN_FRAME_LEN),
    "upstream6_ipoe": ("up6_ipoe", vt.UP_FRAME_LEN - 8),
}


def log(msg: str) -> None:
    print(f"[bng-dp] {msg}", file=sys.stderr, flush=True)


def eal(huge: bool, file_prefix: str, lcores: str = "1") -> list[str]:
    mem = ["--in-memory", "--socket-mem", "1536"] if huge else ["--no-huge", "-m", "2048", "--no-shconf"]
    return ["-l", lcores, *mem, "--no-pci", "--no-telemetry", "--log-level=error",
            f"--file-prefix={file_prefix}", "--vdev", "net_null0"]  # fmt: skip


def args_of(out: str, n: int, scen: str, args, hqos: str | None) -> list[str]:
    short, _ = SCEN[scen]
    v6 = scen.startswith(("downstream6", "upstream6"))
    ipoe = scen.endswith("_ipoe")
    return [
        "--config", os.path.join(out, f"bng_dp{'6' if v6 else ''}{'_ipoe' if ipoe else ''}_{n}.ini"),
        "--sessions", os.path.join(out, f"sessions_{n}.csv"),
        "--pcap", os.path.join(out, f"{short}_{n}.pcap"), "--scenario", scen,
        "--qsize", str(args.qsize), "--mbufs", str(args.mbufs),
        # IPv6's headers (30 + 40 + 8 bytes) do not fit the 64 bytes copied for IPv4
        "--copy", str(max(args.copy, 128) if v6 and args.copy else args.copy), *(["--v6"] if v6 else []),
        *(["--ipoe"] if ipoe else []),
        *(["--hqos", hqos] if hqos else []),
    ]  # fmt: skip


# Where an instruction is spent, by the file or library callgrind names (exclusive cost).
STAGES = (
    ("classify.h", "classify"),
    ("session.h", "session lookup"),
    ("librte_hash", "session lookup"),
    ("rte_hash_crc", "session lookup"),
    ("acl.h", "ACL"),
    ("librte_acl", "ACL"),
    ("police.h", "policer"),
    ("rte_meter", "policer"),
    ("route.h", "route"),
    ("rte_lpm", "route"),
    ("neigh.h", "next hop (ARP table)"),
    ("rewrite.h", "rewrite (decap/encap, TTL, DSCP, MSS)"),
    ("hsched", "HQoS (hsched)"),
    ("hqos", "HQoS glue (hqos.c: pacer, commands, owners)"),
    ("librte_sched", "HQoS (rte_sched and its glue)"),
    ("net_null", "sink (net_null TX, frees the mbufs)"),
    ("rte_ethdev.h", "sink (net_null TX, frees the mbufs)"),
    ("bench_dp.c", "source (mbuf alloc + copy)"),
    ("memmove", "source (mbuf alloc + copy)"),
    ("librte_mempool", "source (mbuf alloc + copy)"),
    ("rte_mempool.h", "mbuf alloc/free"),
    ("tls_get_addr", "DPDK per-lcore data (TLS of the shared libraries)"),
    ("rte_byteorder", "byte order swaps (inlined in the stages)"),
    ("rte_prefetch", "prefetch"),
    ("rte_seqcount", "policer"),
    ("police.c", "policer"),
    ("rte_mbuf.h", "mbuf alloc/free"),
    ("worker.c", "worker glue (sort, counters, drop paths)"),
)


def stage_of(where: str) -> str:
    return next((name for key, name in STAGES if key in where), "other: " + where.split("[")[0].strip())


def run_json(cmd: list[str], res: ipp.Resources, timeout: float) -> list[dict]:
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    res.procs.append(p)
    try:
        out, err = p.communicate(timeout=timeout)
    finally:
        res.stop(p)
    if p.returncode != 0:
        raise RuntimeError(f"{cmd[0]} exited {p.returncode}: {err.strip()[-500:]}")
    return [json.loads(ln) for ln in out.splitlines() if ln.startswith("{")]


def callgrind(res, out, n, scen, args, cgdir, hqos: str | None, tag: str) -> dict:
    cg = os.path.join(cgdir, f"{scen}_{n}{tag}.callgrind")
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={cg}", "--toggle-collect=bench_loop",
           BENCH, *eal(False, f"bngbenchcg{os.getpid()}"), "--", *args_of(out, n, scen, args, hqos),
           "--bursts", str(args.bursts), "--stats-period-us", str(10000 * CALLGRIND_SLOWDOWN)]  # fmt: skip
    line = run_json(cmd, res, timeout=1800)[0]
    if line["forwarded"] != line["pkts"]:
        raise RuntimeError(f"callgrind {scen} {n}: not every packet forwarded")
    ann = subprocess.run(
        ["callgrind_annotate", "--tree=none", "--auto=no", "--threshold=100", cg], capture_output=True, text=True
    ).stdout
    total = next(int(ln.split()[0].replace(",", "")) for ln in ann.splitlines() if "PROGRAM TOTALS" in ln)
    stages: dict[str, int] = {}
    listing = ann.split("file:function", 1)[-1].splitlines()
    for ln in listing:
        m = re.match(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*)$", ln)
        if m:
            name = stage_of(m.group(2))
            stages[name] = stages.get(name, 0) + int(m.group(1).replace(",", ""))
    with open(os.path.join(cgdir, f"{scen}_{n}{tag}.stages.txt"), "w") as f:
        f.write(f"{scen}, {n} sessions: instructions per packet by stage (callgrind, {line['pkts']} packets)\n")
        for name, ir in sorted(stages.items(), key=lambda kv: -kv[1]):
            f.write(f"{ir / line['pkts']:9.1f}  {name}\n")
        f.write(f"{total / line['pkts']:9.1f}  total\n")
    return {"instructions": total, "packets": line["pkts"], "memory_mb": line.get("heap_mb")}


def main_thread_ns(pid: int) -> int:
    """CPU time of a process's main thread (its control thread here), from schedstat."""
    with open(f"/proc/{pid}/task/{pid}/schedstat") as f:
        return int(f.read().split()[0])


class BngServe:
    """One bench_dp --serve process: set up and warm, then one window per run()."""

    def __init__(self, res, out, n, scen, huge, args, hqos, prefix) -> None:
        cmd = [BENCH, *eal(huge, prefix, "0,1"), "--", *args_of(out, n, scen, args, hqos), "--serve"]
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, preexec_fn=ipp._die_with_parent)  # fmt: skip
        res.procs.append(self.p)
        self.res = res
        self.ready = self._line()

    def _line(self) -> dict:
        while True:
            ln = self.p.stdout.readline()
            if not ln:
                err = self.p.stderr.read() if self.p.poll() is not None else ""
                raise RuntimeError(f"bench_dp exited ({self.p.poll()}): {err.strip()[-500:]}")
            if ln.startswith("{"):
                return json.loads(ln)

    def window(self, seconds: float) -> dict:
        k0 = main_thread_ns(self.p.pid)
        self.p.stdin.write(f"run {seconds}\n")
        self.p.stdin.flush()
        w = self._line()
        ctl = (main_thread_ns(self.p.pid) - k0) / 1e9
        return {"packets": w["pkts"], "wall_s": w["wall_s"], "worker_cpu_s": w["worker_cpu_s"],
                "mpps_per_core": w["mpps_per_core"], "mpps_wall": w["wall_mpps"], "control_cpu_s": ctl}  # fmt: skip

    def close(self) -> None:
        if self.p.poll() is None:
            try:
                self.p.stdin.write("quit\n")
                self.p.stdin.flush()
                self.p.wait(10)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.res.stop(self.p)


class IppServe:
    """ip_pipeline running the point's script, stopped (SIGSTOP) between its windows."""

    def __init__(self, res, binary, script, scen, huge, args, logpath) -> None:
        self.cmd = ipp_config.COUNT_CMD[scen]
        self.ipp = ipp.Ipp(res, binary, script, huge, logpath)
        self.ipp.wait_flowing(self.cmd, args.start_timeout)
        time.sleep(args.warmup)
        os.kill(self.ipp.proc.pid, signal.SIGSTOP)

    def window(self, seconds: float) -> dict:
        os.kill(self.ipp.proc.pid, signal.SIGCONT)
        try:
            time.sleep(0.05)
            t0, c0 = self.ipp.count(self.cmd)
            r0 = self.ipp.worker_runtime_ns()
            k0 = main_thread_ns(self.ipp.proc.pid)
            time.sleep(seconds)
            t1, c1 = self.ipp.count(self.cmd)
            r1 = self.ipp.worker_runtime_ns()
            k1 = main_thread_ns(self.ipp.proc.pid)
        finally:
            os.kill(self.ipp.proc.pid, signal.SIGSTOP)
        if c1 <= c0 or r1 <= r0:
            raise RuntimeError("ip_pipeline: nothing reached the sink in a window")
        cpu = (r1 - r0) / 1e9
        return {"packets": c1 - c0, "wall_s": t1 - t0, "worker_cpu_s": cpu, "control_cpu_s": (k1 - k0) / 1e9,
                "mpps_per_core": (c1 - c0) / cpu / 1e6, "mpps_wall": (c1 - c0) / (t1 - t0) / 1e6}  # fmt: skip

    def close(self) -> None:
        try:
            os.kill(self.ipp.proc.pid, signal.SIGCONT)
        except OSError:
            pass
        self.ipp.stop()


def summary(ws: list[dict], key: str) -> tuple[float, list[float]]:
    v = [w[key] for w in ws]
    return round(statistics.median(v), 3), [round(min(v), 3), round(max(v), 3)]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description="make bench-dp: bng-dp against ip_pipeline, interleaved")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(HERE), "build-bench"))
    ap.add_argument("--sessions", type=int, nargs="+", default=[4096, 65536])
    ap.add_argument("--scenarios", nargs="+", choices=list(SCEN), default=list(SCEN))
    ap.add_argument("--impls", nargs="+", choices=list(IMPLS), default=list(IMPLS))
    ap.add_argument("--frames", type=int, default=vt.DEFAULT_FRAMES)
    ap.add_argument("--copy", type=int, default=64, help="bytes of each frame copied into the mbuf (0 = all)")
    ap.add_argument("--qsize", type=int, default=64, help="HQoS frames per queue (ip_pipeline's is 64)")
    ap.add_argument("--mbufs", type=int, default=32768, help="mbufs of bng-dp (ip_pipeline's pool is 32K)")
    ap.add_argument("--ipp-cli-sleep-us", type=int, default=1000, help="0: ip_pipeline's CLI busy-polls")
    ap.add_argument("--hugepages", choices=("auto", "yes", "no"), default="auto")
    ap.add_argument("--hugepage-count", type=int, default=2600)
    ap.add_argument("--runs", type=int, default=5, help="windows per implementation and point")
    ap.add_argument("--window", type=float, default=1.0)
    ap.add_argument("--warmup", type=float, default=2.0)
    ap.add_argument("--start-timeout", type=float, default=300)
    ap.add_argument("--bursts", type=int, default=4000, help="bursts of 32 counted by callgrind (bng-dp)")
    ap.add_argument("--callgrind", choices=("all", "4096", "none"), default="all")
    ap.add_argument("--callgrind-window", type=float, default=8.0)
    ap.add_argument("--callgrind-warmup", type=float, default=3.0)
    ap.add_argument("--callgrind-start-timeout", type=float, default=1200)
    args = ap.parse_args(argv)
    if args.qsize != 64:
        log(f"qsize {args.qsize}: ip_pipeline's queues stay at 64, the comparison is not equal")
    if not os.path.exists(BENCH):
        raise SystemExit(f"{BENCH} is not built (ninja -C server-dp/build)")
    out = os.path.abspath(args.out)
    cgdir = os.path.join(out, "bng-dp")
    ipp_dir = os.path.join(out, "ip_pipeline")
    os.makedirs(cgdir, exist_ok=True)
    os.makedirs(ipp_dir, exist_ok=True)
    os.environ["IPP_CLI_SLEEP_US"] = str(args.ipp_cli_sleep_us)
    res = ipp.Resources()

    def on_signal(signum, _frame):
        raise SystemExit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, on_signal)
    details = []
    results: dict[tuple, dict] = {}
    tsc_hz = 0.0
    try:
        use_ipp = "ip_pipeline" in args.impls
        if use_ipp:
            log(f"building {ipp.IPP_SRC} in {ipp_dir}")
            _, ipp_bin, helper = ipp.build(ipp_dir)
            tsc_hz = float(subprocess.run([helper], capture_output=True, text=True, check=True).stdout)
        paths = ipp.traffic(out, args.sessions, args.frames, 64)
        huge = args.hugepages != "no" and res.set_hugepages(args.hugepage_count)
        if args.hugepages == "yes" and not huge:
            raise RuntimeError("hugepages requested but not available")
        fair = {
            "qsize": args.qsize, "ip_pipeline_qsize": 64, "mbufs": args.mbufs, "ip_pipeline_mbufs": 32768,
            "worker_lcore": 1, "control_lcore": 0,
            "bng_dp_control": "blocked in read() (no polling)",
            "ip_pipeline_cli": f"sleeps {args.ipp_cli_sleep_us} us per turn" if args.ipp_cli_sleep_us
            else "busy-polls (as shipped)",
            "count_point": "sink, after the HQoS dequeue, inside the window (no drain outside it)",
            "order": "interleaved windows " + ", ".join(args.impls) + ", repeated",
            "runs": args.runs, "window_s": args.window, "hugepages": huge, "copy_bytes": args.copy,
            "loadavg": list(os.getloadavg()),
        }  # fmt: skip
        print(json.dumps({"fairness": fair}), flush=True)
        for n in args.sessions:
            scripts = {}
            if use_ipp:
                scripts = ipp_config.write(ipp_dir, n, paths[n]["ipp"]["down"], paths[n]["ipp"]["up"], 64)
            for scen in args.scenarios:
                servers: dict[str, object] = {}
                try:
                    for name in args.impls:
                        kind, hqos = IMPLS[name]
                        if kind == "ip_pipeline" and scen not in ipp_config.COUNT_CMD:
                            continue  # a scenario ip_pipeline is not configured for
                        log(f"{scen} {n}: starting {name}")
                        if kind == "bng-dp":
                            servers[name] = BngServe(res, out, n, scen, huge, args, hqos,
                                                     f"bngbench{os.getpid()}{len(servers)}")  # fmt: skip
                        else:
                            servers[name] = IppServe(res, ipp_bin, scripts[scen], scen, huge, args,
                                                     os.path.join(ipp_dir, f"{scen}_{n}.log"))  # fmt: skip
                    for srv in servers.values():
                        if isinstance(srv, BngServe):
                            tsc_hz = float(srv.ready["tsc_hz"])
                    wins: dict[str, list] = {name: [] for name in servers}
                    load0 = os.getloadavg()
                    for r in range(args.runs):
                        for name, srv in servers.items():
                            wins[name].append(srv.window(args.window))
                        log(f"{scen} {n}: round {r + 1}/{args.runs}: " + ", ".join(
                            f"{k} {v[-1]['mpps_per_core']:.3f}" for k, v in wins.items()))  # fmt: skip
                    load1 = os.getloadavg()
                finally:
                    for srv in servers.values():
                        srv.close()
                for name in servers:
                    kind, hqos = IMPLS[name]
                    ws = wins[name]
                    wall_s = sum(w["wall_s"] for w in ws)
                    mpps, spread = summary(ws, "mpps_per_core")
                    wall, wspread = summary(ws, "mpps_wall")
                    cg = None
                    if args.callgrind == "all" or (args.callgrind == "4096" and n == 4096):
                        log(f"{scen} {n}: callgrind of {name}")
                        if kind == "bng-dp":
                            c = callgrind(res, out, n, scen, args, cgdir, hqos, f"_{hqos or 'default'}")
                        else:
                            c = ipp.callgrind(res, ipp_bin, scripts[scen], scen, args, ipp_dir, f"{scen}_{n}")
                        cg = round(c["instructions"] / c["packets"], 1)
                    line = {
                        "impl": name, "scenario": scen, "sessions": n,
                        "mpps_per_core": mpps, "mpps_per_core_spread": spread,
                        "wall_mpps": wall, "wall_mpps_spread": wspread,
                        "cycles_per_packet": round(tsc_hz / (mpps * 1e6), 1),
                        "instructions_per_packet": cg, "frame_bytes": SCEN[scen][1],
                        "hugepages": huge, "runs": args.runs,
                        "cpu_share": round(sum(w["worker_cpu_s"] for w in ws) / wall_s, 3),
                        "control_cpu_share": round(sum(w["control_cpu_s"] for w in ws) / wall_s, 4),
                        "loadavg_start": [round(x, 2) for x in load0],
                        "loadavg_end": [round(x, 2) for x in load1],
                    }  # fmt: skip
                    print(json.dumps(line), flush=True)
                    results[(name, scen, n)] = line
                    details.append({**line, "windows": ws})
                base = results.get(("ip_pipeline", scen, n))
                for name in args.impls:
                    a = results.get((name, scen, n))
                    if base is None or a is None or name == "ip_pipeline":
                        continue
                    ir = None
                    if a["instructions_per_packet"] and base["instructions_per_packet"]:
                        ir = round(a["instructions_per_packet"] / base["instructions_per_packet"], 3)
                    print(json.dumps({
                        "compare": f"{name}/ip_pipeline", "scenario": scen, "sessions": n,
                        "mpps_ratio": round(a["mpps_per_core"] / base["mpps_per_core"], 3),
                        "wall_mpps_ratio": round(a["wall_mpps"] / base["wall_mpps"], 3),
                        "instructions_ratio": ir,
                    }), flush=True)  # fmt: skip
                # bng-dp's IPv6 points against its own IPv4 (the target: within 15% in cycles per packet)
                for name in args.impls:
                    a = results.get((name, scen, n))
                    b = results.get((name, scen[:-1], n)) if scen.endswith("6") else None
                    what = "ipv6/ipv4"
                    if scen.endswith("_ipoe"):  # IPoE against PPPoE (the target: no more cycles)
                        b, what = results.get((name, scen[: -len("_ipoe")], n)), "ipoe/pppoe"
                    if a is None or b is None:
                        continue
                    ir = None
                    if a["instructions_per_packet"] and b["instructions_per_packet"]:
                        ir = round(a["instructions_per_packet"] / b["instructions_per_packet"], 3)
                    print(json.dumps({
                        "compare": f"{name} {what}", "scenario": scen, "sessions": n,
                        "cycles_ratio": round(a["cycles_per_packet"] / b["cycles_per_packet"], 3),
                        "instructions_ratio": ir,
                    }), flush=True)  # fmt: skip
    finally:
        res.close()
        with open(os.path.join(out, "details.json"), "w") as f:
            json.dump(details, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

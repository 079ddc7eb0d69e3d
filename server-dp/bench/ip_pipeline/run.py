#!/usr/bin/env python3
"""The ip_pipeline half of `make bench-dp`: DPDK's own ip_pipeline example (Debian's
dpdk-doc, DPDK 22.11) built out of tree and configured as the bench-dp vBNG
(ipp_config.py), run on the shared sessions and traffic (../vbng_traffic.py).

For every scenario (downstream, upstream) and session count (4096, 65536) it prints
one JSON line on stdout:
  {"impl": "ip_pipeline", "scenario": ..., "sessions": N, "mpps_per_core": X,
   "cycles_per_packet": C, "instructions_per_packet": Y, "frame_bytes": 504|128,
   "hugepages": true|false, "runs": K}
and writes the details (every window, memory, the callgrind profile) under --out.

mpps_per_core: packets counted at the sink over K windows, each divided by the CPU
  time the worker thread (lcore 1) was given in that window (its schedstat run time),
  so time the scheduler hands to other processes is not charged; median of K.
cycles_per_packet: TSC Hz / (mpps_per_core * 1e6).
instructions_per_packet: the worker thread's instructions under callgrind (--no-huge)
  over a window, divided by the packets counted at the sink in the same window.

Progress goes to stderr. Every process started here is stopped, and the hugepage
setting restored, on any exit (including Ctrl-C and SIGTERM).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
import ipp_config  # noqa: E402
import vbng_traffic as vt  # noqa: E402

IPP_SRC = "/usr/share/dpdk/examples/ip_pipeline"
PROMPT = b"pipeline> "
HUGEPAGE_MB = 2
NOHUGE_MB = 2048
SCENARIOS = ("downstream", "upstream")
FRAME_BYTES = {"downstream": vt.DOWN_FRAME_LEN, "upstream": vt.UP_FRAME_LEN}

TSC_HZ_C = r"""
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>
/* TSC ticks per second against CLOCK_MONOTONIC_RAW over 200 ms. */
int main(void)
{
	struct timespec a, b, d = {0, 200000000};
	clock_gettime(CLOCK_MONOTONIC_RAW, &a);
	uint64_t t0 = __rdtsc();
	nanosleep(&d, NULL);
	uint64_t t1 = __rdtsc();
	clock_gettime(CLOCK_MONOTONIC_RAW, &b);
	double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	printf("%.0f\n", (double)(t1 - t0) / s);
	return 0;
}
"""


def log(msg: str) -> None:
    print(f"[ip_pipeline] {msg}", file=sys.stderr, flush=True)


def meminfo() -> dict[str, int]:
    out = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, _, v = line.partition(":")
            out[k] = int(v.split()[0])
    return out


def _die_with_parent() -> None:
    """In the child: SIGKILL when the driver dies, even by SIGKILL (prctl PR_SET_PDEATHSIG)."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Resources:
    """Processes started and the hugepage setting changed; undone by close()."""

    def __init__(self) -> None:
        self.procs: list[subprocess.Popen] = []
        self.hugepages_old: int | None = None

    def set_hugepages(self, pages: int) -> bool:
        """Make `pages` 2 MB hugepages free; False if that cannot be done."""
        path = "/proc/sys/vm/nr_hugepages"
        m = meminfo()
        if m.get("HugePages_Free", 0) >= pages:
            return True
        try:
            with open(path) as f:
                old = int(f.read())
            with open(path, "w") as f:
                f.write(str(m["HugePages_Total"] + pages - m["HugePages_Free"]))
        except OSError as e:
            log(f"cannot reserve hugepages ({e})")
            return False
        self.hugepages_old = old
        if meminfo()["HugePages_Free"] < pages:
            log(f"only {meminfo()['HugePages_Free']} hugepages free after asking for {pages}")
            self.restore_hugepages()
            return False
        return True

    def restore_hugepages(self) -> None:
        if self.hugepages_old is not None:
            with open("/proc/sys/vm/nr_hugepages", "w") as f:
                f.write(str(self.hugepages_old))
            log(f"nr_hugepages restored to {self.hugepages_old}")
            self.hugepages_old = None

    def stop(self, p: subprocess.Popen) -> None:
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        if p in self.procs:
            self.procs.remove(p)

    def close(self) -> None:
        for p in list(self.procs):
            self.stop(p)
        self.restore_hugepages()


class Cli:
    """ip_pipeline's TCP command line."""

    def __init__(self, port: int, timeout: float) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.sock.settimeout(timeout)
        self._read()

    def _read(self) -> str:
        buf = b""
        while not buf.endswith(PROMPT):
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("ip_pipeline closed the command line")
            buf += chunk
        return buf[: -len(PROMPT)].decode()

    def cmd(self, line: str) -> str:
        self.sock.sendall(line.encode() + b"\n")
        return self._read()

    def close(self) -> None:
        self.sock.close()


class Ipp:
    """One ip_pipeline process (optionally under valgrind) running one CLI script."""

    def __init__(self, res: Resources, binary: str, script: str, hugepages: bool, logpath: str, wrapper=()):
        self.res = res
        self.port = free_port()
        mem = ["--in-memory"] if hugepages else ["--no-huge", "-m", str(NOHUGE_MB), "--no-shconf"]
        prefix = f"ippbench{os.getpid()}p{self.port}"
        argv = [*wrapper, binary, "-l", "0,1", "--no-pci", *mem, "--file-prefix", prefix]
        argv += ["--", "-h", "127.0.0.1", "-p", str(self.port), "-s", script]
        self.logf = open(logpath, "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            argv, stdout=self.logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent
        )
        res.procs.append(self.proc)
        self.cli: Cli | None = None
        self.logpath = logpath

    def connect(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while self.cli is None:
            if self.proc.poll() is not None:
                raise RuntimeError(f"ip_pipeline exited ({self.proc.returncode}); see {self.logpath}")
            try:
                self.cli = Cli(self.port, max(1.0, deadline - time.monotonic()))
            except OSError as e:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"no command line on port {self.port} ({e}); see {self.logpath}") from e
                time.sleep(0.5)

    def count(self, cmd: str) -> tuple[float, int]:
        assert self.cli is not None
        out = self.cli.cmd(cmd)
        m = re.search(r"Packets: (\d+)", out)
        if not m:
            raise RuntimeError(f"unexpected answer to {cmd!r}: {out!r}")
        return time.monotonic(), int(m.group(1))

    def wait_flowing(self, cmd: str, timeout: float) -> None:
        """Until the script has run and packets reach the sink."""
        self.connect(timeout)
        deadline = time.monotonic() + timeout
        while True:
            try:
                if self.count(cmd)[1] > 0:
                    return
            except RuntimeError:
                pass  # the rule is not there yet: the script is still running
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError(f"no packets at the sink; see {self.logpath}")
            time.sleep(0.5)

    def worker_runtime_ns(self) -> int:
        """CPU time the worker lcore thread has been given (schedstat, ns)."""
        task = f"/proc/{self.proc.pid}/task"
        for tid in os.listdir(task):
            try:
                with open(f"{task}/{tid}/comm") as f:
                    if f.read().strip() != "rte-worker-1":
                        continue
                with open(f"{task}/{tid}/schedstat") as f:
                    return int(f.read().split()[0])
            except OSError:
                continue
        raise RuntimeError("worker thread rte-worker-1 not found")

    def rss_mb(self) -> float:
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def stop(self) -> None:
        if self.cli:
            self.cli.close()
        self.res.stop(self.proc)
        self.logf.close()


# The example keeps a list of its rules for `rule show`/`delete` and searches it on every
# add: O(n^2) for 64K rules, minutes under valgrind. The "fast setup" build drops that
# search (every bench rule is new). It runs on the main thread before the pipeline is
# enabled and the worker never reads the list, so the data path is the same code;
# --timed-build pristine times the unchanged example instead.
CLI_LOOP = "\tfor ( ; ; ) {\n"
CLI_SLEEP = (
    '\t\t{ static long us = -1; if (us < 0) { const char *e = getenv("IPP_CLI_SLEEP_US");'
    " us = e ? atol(e) : 0; } if (us > 0) usleep((useconds_t)us); }\n"
)
FIND_IN_BULK = "\t\texisting_rule = table_rule_find(table, &new_rule->match);\n"


def _make(src: str) -> str:
    env = dict(os.environ, CFLAGS="-g")  # the Makefile appends -O3 and pkg-config's flags
    r = subprocess.run(["make", "-C", src, "-j2"], env=env, capture_output=True, text=True)
    if r.returncode:
        sys.stderr.write(r.stdout + r.stderr)
        raise RuntimeError(f"ip_pipeline build failed in {src}")
    return os.path.join(src, "build", "ip_pipeline")


def build(out: str) -> tuple[str, str, str]:
    """The example as shipped, the fast-setup build, and the TSC helper."""
    src = os.path.join(out, "ip_pipeline-src")
    fast = os.path.join(out, "ip_pipeline-src-cg")
    for d in (src, fast):
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(IPP_SRC, d)
    with open(os.path.join(fast, "pipeline.c")) as f:
        text = f.read()
    start = text.index("table_rule_add_bulk(struct table *table,")
    at = text.index(FIND_IN_BULK, start)
    text = text[:at] + "\t\texisting_rule = NULL; /* bench: rules are unique */\n" + text[at + len(FIND_IN_BULK) :]
    with open(os.path.join(fast, "pipeline.c"), "w") as f:
        f.write(text)
    # The main lcore's CLI loop polls without pause on the control core (as shipped);
    # IPP_CLI_SLEEP_US=N makes it sleep N us per turn, as bng-dp's control thread
    # sleeps, so the two compare with the same idle control core (make bench-dp).
    with open(os.path.join(fast, "main.c")) as f:
        text = f.read()
    text = text.replace("#include <stdio.h>\n", "#include <stdio.h>\n#include <unistd.h>\n", 1)
    text = text.replace(CLI_LOOP, CLI_LOOP + CLI_SLEEP, 1)
    if CLI_SLEEP not in text:
        raise RuntimeError("ip_pipeline main.c: dispatch loop not found")
    with open(os.path.join(fast, "main.c"), "w") as f:
        f.write(text)
    helper = os.path.join(out, "tsc_hz")
    with open(helper + ".c", "w") as f:
        f.write(TSC_HZ_C)
    subprocess.run(["cc", "-O2", "-o", helper, helper + ".c"], check=True)
    return _make(src), _make(fast), helper


def traffic(out: str, sessions: list[int], frames: int, bpp: int) -> dict:
    """The shared pcaps (full frames, for bng-dp) and ip_pipeline's copies truncated to
    bpp bytes (the source port copies only bpp bytes; smaller files load faster)."""
    with open(vt.__file__, "rb") as f:
        stamp = {"frames": frames, "bpp": bpp, "gen": hashlib.sha256(f.read()).hexdigest()}
    paths = {}
    for n in sessions:
        p = {
            "full": {
                s: os.path.join(out, f"{s}_{n}.pcap") for s in ("down", "up", "down6", "up6", "up_ipoe", "up6_ipoe")
            },
            "ipp": {s: os.path.join(out, f"{s}_{n}.snap{bpp}.pcap") for s in ("down", "up")},
            "csv": os.path.join(out, f"sessions_{n}.csv"),
        }
        paths[n] = p
        stamp_path = os.path.join(out, f"traffic_{n}.stamp")
        try:
            with open(stamp_path) as f:
                if json.load(f) == stamp and all(os.path.exists(x) for x in [*p["full"].values(), *p["ipp"].values()]):
                    continue
        except (OSError, ValueError):
            pass
        log(f"writing sessions and traffic for {n} sessions ({frames} frames each way)")
        sess = vt.sessions(n)
        vt.write_sessions_csv(p["csv"], sess)
        with open(os.path.join(out, f"bng_dp_{n}.ini"), "w") as f:
            f.write(vt.bng_dp_ini(n))
        vt.write_pcap(p["full"]["down"], vt.down_frames(sess, frames))
        vt.write_pcap(p["full"]["up"], vt.up_frames(sess, frames))
        # IPv6, bng-dp only (no ip_pipeline baseline)
        with open(os.path.join(out, f"bng_dp6_{n}.ini"), "w") as f:
            f.write(vt.bng_dp6_ini(n))
        vt.write_pcap(os.path.join(out, f"down6_{n}.pcap"), vt.down6_frames(sess, frames))
        vt.write_pcap(os.path.join(out, f"up6_{n}.pcap"), vt.up6_frames(sess, frames))
        # IPoE, bng-dp only: the same sessions as IPoE subscribers (downstream: down_N.pcap)
        with open(os.path.join(out, f"bng_dp_ipoe_{n}.ini"), "w") as f:
            f.write(vt.bng_dp_ipoe_ini(n))
        vt.write_pcap(p["full"]["up_ipoe"], vt.up_ipoe_frames(sess, frames))
        # IPoE IPv6, bng-dp only (downstream: down6_N.pcap)
        with open(os.path.join(out, f"bng_dp6_ipoe_{n}.ini"), "w") as f:
            f.write(vt.bng_dp6_ipoe_ini(n))
        vt.write_pcap(p["full"]["up6_ipoe"], vt.up6_ipoe_frames(sess, frames))
        snap = bpp if bpp else 65535
        vt.write_pcap(p["ipp"]["down"], vt.down_frames(sess, frames), snap)
        vt.write_pcap(p["ipp"]["up"], vt.up_frames(sess, frames), snap)
        with open(stamp_path, "w") as f:
            json.dump(stamp, f)
    return paths


def measure(res, binary, script, scen, hugepages, args, logpath) -> dict:
    cmd = ipp_config.COUNT_CMD[scen]
    for attempt in (1, 2):
        if hugepages and not res.set_hugepages(args.hugepage_count):
            raise RuntimeError("the reserved hugepages were taken by another process")
        free0 = meminfo().get("HugePages_Free", 0)
        ipp = Ipp(res, binary, script, hugepages, logpath)
        t = time.monotonic()
        try:
            ipp.wait_flowing(cmd, args.start_timeout)
            break
        except RuntimeError as e:
            ipp.stop()
            if attempt == 2:
                raise
            log(f"  {scen}: {e}; once more")
            time.sleep(2)
    try:
        log(f"  {scen}: flowing after {time.monotonic() - t:.1f} s")
        time.sleep(args.warmup)
        mem_mb = (free0 - meminfo().get("HugePages_Free", 0)) * HUGEPAGE_MB if hugepages else ipp.rss_mb()
        windows = []
        t0, c0 = ipp.count(cmd)
        r0 = ipp.worker_runtime_ns()
        for _ in range(args.runs):
            time.sleep(args.window)
            t1, c1 = ipp.count(cmd)
            r1 = ipp.worker_runtime_ns()
            windows.append(
                {
                    "packets": c1 - c0,
                    "wall_s": t1 - t0,
                    "worker_cpu_s": (r1 - r0) / 1e9,
                    "mpps_per_core": (c1 - c0) / ((r1 - r0) / 1e9) / 1e6,
                    "mpps_wall": (c1 - c0) / (t1 - t0) / 1e6,
                }
            )
            t0, c0, r0 = t1, c1, r1
        return {"windows": windows, "memory_mb": round(mem_mb, 1)}
    finally:
        ipp.stop()


def callgrind(res, binary, script, scen, args, outdir, tag) -> dict:
    """Instructions per packet of the worker thread, from two callgrind dumps taken
    right after two sink counter reads; the second dump covers the window between."""
    cmd = ipp_config.COUNT_CMD[scen]
    base = os.path.join(outdir, f"callgrind.{tag}")
    for old in [f for f in os.listdir(outdir) if f.startswith(f"callgrind.{tag}")]:
        os.remove(os.path.join(outdir, old))
    vg = [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        "--fair-sched=yes",
        "--separate-threads=yes",
        f"--callgrind-out-file={base}.%p",
    ]
    ipp = Ipp(res, binary, script, False, os.path.join(outdir, f"valgrind.{tag}.log"), wrapper=vg)
    pid = ipp.proc.pid

    def control(*a: str) -> None:
        subprocess.run(["callgrind_control", *a, str(pid)], check=True, capture_output=True, timeout=120)

    try:
        t = time.monotonic()
        ipp.wait_flowing(cmd, args.callgrind_start_timeout)
        log(f"  {scen}: flowing under valgrind after {time.monotonic() - t:.0f} s")
        control("--instr=on")
        time.sleep(args.callgrind_warmup)
        _, c0 = ipp.count(cmd)
        control("--dump")
        time.sleep(args.callgrind_window)
        _, c1 = ipp.count(cmd)
        control("--dump")
    finally:
        ipp.stop()
    # Dump 2 of the thread that runs the pipeline (the only one calling rte_pipeline_run).
    best = None
    for f in sorted(os.listdir(outdir)):
        if not re.fullmatch(rf"callgrind\.{re.escape(tag)}\.{pid}\.2-\d+", f):
            continue
        path = os.path.join(outdir, f)
        with open(path, errors="replace") as fh:
            text = fh.read()
        m = re.search(r"^(?:summary|totals): (\d+)", text, re.M)
        if m and "rte_pipeline_run" in text and (best is None or int(m.group(1)) > best[1]):
            best = (path, int(m.group(1)))
    if best is None or c1 <= c0:
        raise RuntimeError(f"no worker profile or no packets under callgrind ({base}*)")
    annotate = base + ".annotate.txt"
    with open(annotate, "w") as fh:
        subprocess.run(["callgrind_annotate", "--inclusive=no", best[0]], stdout=fh, stderr=subprocess.DEVNULL)
    stages = breakdown(best[0], scen, c1 - c0)
    for row in stages:
        log(f"    {row['instructions_per_packet']:8.1f}  {row['stage']}")
    return {"instructions": best[1], "packets": c1 - c0, "profile": best[0], "annotate": annotate, "stages": stages}


# Where the worker's instructions go. Debian's DPDK libraries keep only their exported
# symbols, so the static port and table functions are named through the exported ops
# tables that point at them; the one hot static function of librte_pipeline is the
# table action handler ah_default (the caller of rte_pipeline_ah_packet_drop).
OPS = {
    "librte_port.so.23": {
        "rte_port_source_ops": ("in", "source"),
        "rte_port_sink_ops": ("out", "sink"),
        "rte_port_sched_reader_ops": ("in", "sched_reader"),
        "rte_port_sched_writer_ops": ("out", "sched_writer"),
    },
    "librte_table.so.23": {
        "rte_table_lpm_ops": ("table", "lpm"),
        "rte_table_hash_key16_ext_ops": ("table", "hash_key16_ext"),
        "rte_table_array_ops": ("table", "array"),
    },
}
OPS_FIELDS = {
    "in": ("f_create", "f_free", "f_rx", "f_stats"),
    "out": ("f_create", "f_free", "f_tx", "f_tx_bulk", "f_flush", "f_stats"),
    "table": ("f_create", "f_free", "f_add", "f_delete", "f_add_bulk", "f_delete_bulk", "f_lookup", "f_stats"),
}
STAGES = {
    "downstream": (
        ("source port: mbuf alloc + copy of bpp bytes", ("source.f_rx",)),
        ("LPM lookup (one /32 a session)", ("lpm.f_lookup",)),
        ("table actions: tm + encap qinq_pppoe + ttl; stats", ("ah_default",)),
        ("tmgr enqueue (rte_sched)", ("sched_writer.f_tx", "sched_writer.f_tx_bulk", "sched_writer.f_flush")),
        ("tmgr dequeue (rte_sched)", ("sched_reader.f_rx",)),
        ("counting table (array, 1 entry)", ("array.f_lookup",)),
        ("sink: mbuf free", ("sink.f_tx", "sink.f_tx_bulk")),
    ),
    "upstream": (
        ("source port: mbuf alloc + copy of bpp bytes", ("source.f_rx",)),
        ("hash lookup (16-byte key)", ("hash_key16_ext.f_lookup",)),
        ("LPM lookup (route)", ("lpm.f_lookup",)),
        ("table actions: trTCM meter; encap ether + ttl + stats", ("ah_default",)),
        ("sink: mbuf free", ("sink.f_tx", "sink.f_tx_bulk")),
    ),
}


def ops_names() -> dict[tuple[str, int], str]:
    """(library, offset) -> 'label.f_field' for the functions of the exported ops tables."""
    import ctypes

    names = {}
    for lib, syms in OPS.items():
        try:
            h = ctypes.CDLL(lib)
        except OSError:
            continue
        base = None
        with open("/proc/self/maps") as f:
            for line in f:
                if lib in line:
                    base = int(line.split("-")[0], 16)
                    break
        for sym, (kind, label) in syms.items():
            try:
                table = ctypes.c_void_p.in_dll(h, sym)
            except ValueError:
                continue
            fields = OPS_FIELDS[kind]
            ptrs = (ctypes.c_void_p * len(fields)).from_address(ctypes.addressof(table))
            for field, ptr in zip(fields, ptrs, strict=True):
                if ptr and base is not None:
                    names[(lib, ptr - base)] = f"{label}.{field}"
    return names


def breakdown(profile: str, scen: str, packets: int) -> list[dict]:
    """Inclusive instructions per packet of each stage of the worker."""
    names = ops_names()
    r = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--threshold=100", profile], capture_output=True, text=True
    )
    incl: dict[str, int] = {}
    total = 0
    for line in r.stdout.splitlines():
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+(\*\s+)?(\S+?):(\S+) \[([^\]]+)\]", line)
        if m:
            cost, fn, lib = int(m.group(1).replace(",", "")), m.group(4), os.path.basename(m.group(5))
            lib = re.sub(r"\.so\.23\..*", ".so.23", lib)
            if fn.startswith("0x"):
                fn = names.get((lib, int(fn, 16)), "ah_default" if lib.startswith("librte_pipeline") else fn)
            incl[fn] = max(incl.get(fn, 0), cost)
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+PROGRAM TOTALS", line)
        if m:
            total = int(m.group(1).replace(",", ""))
    rows = []
    for label, fns in STAGES[scen]:
        rows.append({"stage": label, "instructions_per_packet": sum(incl.get(f, 0) for f in fns) / packets})
    run_all = incl.get("rte_pipeline_run", 0)
    inner = sum(r["instructions_per_packet"] for r in rows)
    rows.append(
        {
            "stage": "rte_pipeline_run itself (burst masks, dispatch)",
            "instructions_per_packet": run_all / packets - inner,
        }
    )
    rows.append(
        {"stage": "worker loop outside rte_pipeline_run", "instructions_per_packet": (total - run_all) / packets}
    )
    for row in rows:
        row["instructions_per_packet"] = round(row["instructions_per_packet"], 1)
    return rows


def verify(res, binary, paths, outdir, bpp) -> None:
    """Run both pipelines at 4096 sessions with a pcap sink and check the frames."""
    from scapy.layers.inet import IP
    from scapy.layers.l2 import Dot1Q, Ether
    from scapy.layers.ppp import PPPoE
    from scapy.utils import rdpcap

    n = 4096
    d = os.path.join(outdir, "verify")
    os.makedirs(d, exist_ok=True)
    scripts = ipp_config.write(d, n, paths[n]["ipp"]["down"], paths[n]["ipp"]["up"], bpp)
    sess = {s.ip: s for s in vt.sessions(n)}
    for scen, script in scripts.items():
        sink = os.path.join(d, f"{scen}_out.pcap")
        with open(script) as f:
            text = f.read().replace("port out bsz 32 sink", f"port out bsz 32 sink file {sink} pkts 256")
        vscript = script.replace(".cli", ".verify.cli")
        with open(vscript, "w") as f:
            f.write(text)
        if os.path.exists(sink):
            os.remove(sink)
        ipp = Ipp(res, binary, vscript, False, os.path.join(d, f"{scen}.log"))
        try:
            ipp.wait_flowing(ipp_config.COUNT_CMD[scen], 120)
            time.sleep(1)
        finally:
            ipp.stop()
        frames = rdpcap(sink)
        assert len(frames) == 256, f"{scen}: {len(frames)} frames in {sink}"
        for p in frames:
            ip = p[IP]
            q = IP(bytes(ip))
            q.chksum = None
            assert IP(bytes(q)).chksum == ip.chksum and ip.ttl == 63, f"{scen}: bad IPv4 header"
            if scen == "downstream":
                s = sess[int.from_bytes(bytes(ip)[16:20], "big")]
                tags = [p.getlayer(Dot1Q, nb=1).vlan, p.getlayer(Dot1Q, nb=2).vlan]
                assert p[Ether].dst == vt.mac_str(s.mac) and tags == [s.stag, s.ctag]
                assert p[PPPoE].sessionid == s.sid and p[PPPoE].len == ip.len + 2
                assert len(p) == vt.DOWN_FRAME_LEN - 14 + 30
            else:
                assert p[Ether].dst == vt.mac_str(vt.ROUTER_MAC) and p[Ether].type == 0x0800
                assert int.from_bytes(bytes(ip)[12:16], "big") in sess and len(p) == vt.UP_FRAME_LEN - 30 + 14
        log(f"verify {scen}: 256 frames at the sink are correct")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description="ip_pipeline vBNG baseline of make bench-dp")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.dirname(HERE)), "build-bench"))
    ap.add_argument("--sessions", type=int, nargs="+", default=[4096, 65536])
    ap.add_argument("--scenarios", nargs="+", choices=SCENARIOS, default=list(SCENARIOS))
    ap.add_argument("--frames", type=int, default=vt.DEFAULT_FRAMES, help="frames per pcap (2^18)")
    ap.add_argument("--bpp", type=int, default=64, help="bytes of each frame the source port copies (0 = all)")
    ap.add_argument("--hugepages", choices=("auto", "yes", "no"), default="auto")
    ap.add_argument("--hugepage-count", type=int, default=1024, help="2 MB pages to reserve (default 1024)")
    ap.add_argument("--runs", type=int, default=5, help="measured windows per point")
    ap.add_argument("--window", type=float, default=1.0, help="seconds per window")
    ap.add_argument("--warmup", type=float, default=2.0)
    ap.add_argument("--start-timeout", type=float, default=180)
    ap.add_argument("--callgrind", choices=("all", "4096", "none"), default="all", help="points measured by callgrind")
    ap.add_argument(
        "--timed-build",
        choices=("fast", "pristine"),
        default="fast",
        help="build timed natively: fast setup (default) or the example unchanged (slow 64K setup)",
    )
    ap.add_argument("--callgrind-window", type=float, default=8.0)
    ap.add_argument("--callgrind-warmup", type=float, default=3.0)
    ap.add_argument("--callgrind-start-timeout", type=float, default=1200)
    ap.add_argument("--verify", action="store_true", help="check the output frames first (needs scapy)")
    args = ap.parse_args(argv)

    out = os.path.abspath(args.out)
    ipp_dir = os.path.join(out, "ip_pipeline")
    os.makedirs(ipp_dir, exist_ok=True)
    res = Resources()

    def on_signal(signum, _frame):
        raise SystemExit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, on_signal)
    details = []
    try:
        log(f"building {IPP_SRC} in {ipp_dir}")
        pristine, cg_binary, helper = build(ipp_dir)
        binary = pristine if args.timed_build == "pristine" else cg_binary
        tsc_hz = float(subprocess.run([helper], capture_output=True, text=True, check=True).stdout)
        log(f"TSC {tsc_hz / 1e6:.1f} MHz")
        paths = traffic(out, args.sessions, args.frames, args.bpp)
        if args.verify:
            verify(res, binary, paths, ipp_dir, args.bpp)
        if args.callgrind != "none" and not (shutil.which("valgrind") and shutil.which("callgrind_control")):
            log("valgrind (callgrind) is not installed: instructions_per_packet will be null")
            args.callgrind = "none"
        huge = args.hugepages != "no" and res.set_hugepages(args.hugepage_count)
        if args.hugepages == "yes" and not huge:
            raise RuntimeError("hugepages requested but not available")
        log(f"hugepages: {'yes' if huge else 'no (--no-huge)'}")
        for n in args.sessions:
            scripts = ipp_config.write(ipp_dir, n, paths[n]["ipp"]["down"], paths[n]["ipp"]["up"], args.bpp)
            for scen in args.scenarios:
                tag = f"{scen}_{n}"
                log(f"{tag}: {args.runs} windows of {args.window} s")
                m = measure(res, binary, scripts[scen], scen, huge, args, os.path.join(ipp_dir, f"{tag}.log"))
                mpps = statistics.median(w["mpps_per_core"] for w in m["windows"])
                share = sum(w["worker_cpu_s"] for w in m["windows"]) / sum(w["wall_s"] for w in m["windows"])
                ipp_per_pkt = None
                cg = None
                if args.callgrind == "all" or (args.callgrind == "4096" and n == 4096):
                    cg = callgrind(res, cg_binary, scripts[scen], scen, args, ipp_dir, tag)
                    ipp_per_pkt = round(cg["instructions"] / cg["packets"], 1)
                line = {
                    "impl": "ip_pipeline",
                    "scenario": scen,
                    "sessions": n,
                    "mpps_per_core": round(mpps, 3),
                    "cycles_per_packet": round(tsc_hz / (mpps * 1e6), 1),
                    "instructions_per_packet": ipp_per_pkt,
                    "frame_bytes": FRAME_BYTES[scen],
                    "hugepages": huge,
                    "runs": args.runs,
                }
                print(json.dumps(line), flush=True)
                details.append(
                    {
                        **line,
                        "tsc_hz": tsc_hz,
                        "bpp": args.bpp,
                        "timed_build": args.timed_build,
                        "worker_cpu_share": round(share, 3),
                        "memory_mb": m["memory_mb"],
                        "windows": m["windows"],
                        "callgrind": cg,
                    }
                )
                log(
                    f"{tag}: {mpps:.3f} Mpps per core (worker got {share:.0%} of the wall time), "
                    f"{line['cycles_per_packet']} cycles, {ipp_per_pkt} instructions per packet, "
                    f"{m['memory_mb']} MB"
                )
    finally:
        res.close()
        with open(os.path.join(ipp_dir, "details.json"), "w") as f:
            json.dump(details, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

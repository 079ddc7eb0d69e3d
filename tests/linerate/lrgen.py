"""Running bng-lrgen (tests/linerate/gen): one process in --serve mode holds its ports and
runs trials on request, one JSON document each."""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BINARY = Path(os.environ.get("BNG_LRGEN", REPO / "tests" / "linerate" / "gen" / "build" / "bng-lrgen"))


def binary() -> Path:
    if not BINARY.is_file():
        raise FileNotFoundError(f"{BINARY} is missing: run `make binaries` (it builds tests/linerate/gen)")
    return BINARY


def eal_args(prefix: str, lcore: int = 0, memory_mb: int = 256) -> list[str]:
    return ["-l", str(lcore), "--no-huge", "-m", str(memory_mb), "--no-pci", "--file-prefix", prefix,
            "--log-level", "lib.eal:error"]  # fmt: skip


def af_packet(index: int, iface: str, framecnt: int = 4096) -> str:
    """net_af_packet devargs; a large ring, since its drops are not counted (FACTS.md)."""
    return f"net_af_packet{index},iface={iface},framecnt={framecnt},qdisc_bypass=0"


class LrGen:
    """bng-lrgen --serve. ports: (netns, devargs) in port order ('' = the current netns);
    arp: {port index: IPv4 address the generator answers ARP for on that port}; nd: the same for
    IPv6 (it answers Neighbor Solicitations for the address); lcp_magic: when
    set, the generator answers LCP Echo-Requests on every port with this magic number."""

    def __init__(
        self,
        streams: Path,
        ports: list[tuple[str, str]],
        arp: dict[int, str] | None = None,
        prefix: str = "lrgen",
        netns: str | None = None,
        log: Path | None = None,
        per_stream: bool = False,
        lcp_magic: int = 0,
        lcore: int = 0,
        nd: dict[int, str] | None = None,
    ):
        cmd = [str(binary()), *eal_args(f"{prefix}{os.getpid()}", lcore), "--", "--streams", str(streams), "--serve"]
        if lcp_magic:
            cmd += ["--lcp-echo", str(lcp_magic)]
        if per_stream:
            cmd.append("--per-stream")
        for ns, dev in ports:
            cmd += ["--netns-vdev", f"{ns},{dev}"]
        for port, ip in (arp or {}).items():
            cmd += ["--arp", f"{port}={ip}"]
        for port, ip in (nd or {}).items():
            cmd += ["--nd", f"{port}={ip}"]
        if netns:
            cmd = ["ip", "netns", "exec", netns, *cmd]
        self.cmd = cmd
        self.log = open(log, "wb") if log else subprocess.DEVNULL  # noqa: SIM115
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True, bufsize=1
        )
        self.ready = self._read(60.0)
        if not self.ready.get("ready"):
            self.close()
            raise RuntimeError(f"bng-lrgen did not start: {self.ready}")

    def _read(self, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("bng-lrgen did not answer")
            r, _, _ = select.select([self.proc.stdout], [], [], left)
            if r:
                line = self.proc.stdout.readline()
                if not line:
                    raise RuntimeError(f"bng-lrgen exited ({self.proc.wait()})")
                if line.startswith("{"):  # DPDK's drivers may print lines of their own
                    return json.loads(line)

    def trial(self, duration: float, drain_ms: int = 500, **groups) -> dict:
        """groups: rate0=PPS, size0=N or 'imix', ... for groups 0..3."""
        words = [f"duration={duration:g}", f"drain_ms={drain_ms}"]
        words += [f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in groups.items()]
        self.proc.stdin.write("trial " + " ".join(words) + "\n")
        self.proc.stdin.flush()
        res = self._read(duration + drain_ms / 1000 + 60)
        if "error" in res:
            raise ValueError(res["error"])
        return res

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
                self.proc.wait(10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        if self.log is not subprocess.DEVNULL:
            self.log.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

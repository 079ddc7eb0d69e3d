"""`bngpod demo`: bring a pod up, show how the switch folds each subscriber line into
its DP instance, keep a live view of the switch counters, tear it all down on Ctrl-C.

The DP instances, control plane and subscriber sessions join the demo as they land
(server-dp, accel-ppp-glue and end-to-end issues); today it shows the pod's wiring and
the fold with PPPoE discovery frames sent from each access port."""

from __future__ import annotations

import re
import struct
import sys
import time

from . import emu, probe, validate

SUB_MAC = bytes.fromhex("025b00000001")
PADI = bytes.fromhex("1109000000040101000000")  # PPPoE discovery: PADI, Service-Name ""


def padi(tpid: int, stag: int, ctag: int) -> bytes:
    frame = b"\xff" * 6 + SUB_MAC + struct.pack("!HHHHH", tpid, stag, 0x8100, ctag, 0x8863) + PADI
    return frame.ljust(60, b"\0")  # Ethernet minimum without FCS


def _probe_lines(pod, edges) -> list[tuple[str, ...]]:
    rows = []
    for group in pod.groups:
        for line in group.lines:
            for stag in sorted({line.stag.lo, line.stag.hi}):
                ctag = line.ctags.lo
                got = probe.send_and_collect(edges, line.port.name, padi(0x88A8, stag, ctag))
                want = group.instance.name if group.instance else "-"
                seen = ",".join(sorted(got)) or "dropped"
                rows.append(
                    (line.port.name, str(stag), str(ctag), group.name, want, seen, "ok" if seen == want else "WRONG")
                )
    for port in pod.ports_with_role("access"):
        used = {t for g in pod.groups for ln in g.lines if ln.port is port for t in ln.stag}
        spare = next(t for t in range(1, 4095) if t not in used)
        got = probe.send_and_collect(edges, port.name, padi(0x8100, spare, 1))
        seen = ",".join(sorted(got)) or "dropped"
        rows.append((port.name, str(spare), "1", "(nobody)", "dropped", seen, "ok" if seen == "dropped" else "WRONG"))
    return rows


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return "\n".join(fmt.format(*r) for r in [header, *rows])


def _counters(pod) -> list[tuple[str, ...]]:
    flows = emu.ofctl("dump-flows", emu.BRIDGE, check=False).stdout
    by_cookie: dict[int, list[int]] = {}
    for line in flows.splitlines():
        cookie = re.search(r"cookie=(0x[0-9a-f]+)", line)
        counts = re.search(r"n_packets=(\d+), n_bytes=(\d+)", line)
        if cookie and counts:
            total = by_cookie.setdefault(int(cookie.group(1), 16), [0, 0, 0])
            total[0] += 1
            total[1] += int(counts.group(1))
            total[2] += int(counts.group(2))
    rows = []
    for inst in pod.instances:
        n, pkts, octets = by_cookie.get(inst.id, [0, 0, 0])
        groups = ",".join(g.name for g in inst.groups)
        rows.append((inst.name, str(inst.id), groups, f"{inst.vf.emu_ofport}", str(n), str(pkts), str(octets)))
    n, pkts, octets = by_cookie.get(0, [0, 0, 0])
    rows.append(("(shared/drop)", "-", "-", "-", str(n), str(pkts), str(octets)))
    return rows


def run(path: str, hold: bool | None) -> int:
    if hold is None:
        hold = sys.stdin.isatty()
    try:
        pod = validate.load(path)
    except validate.PodError as exc:
        print(exc, file=sys.stderr)
        return 1
    if emu.State.load() is not None:
        print("a pod is already up; run `bngpod down` first", file=sys.stderr)
        return 2
    print(f"bngpod demo: building pod {pod.name} from {path}")
    started = time.monotonic()
    try:
        emu.up(pod, path)
        print(f"pod {pod.name} is up in {time.monotonic() - started:.1f} s\n")
        status = emu.status()
        for name, proc in status["processes"].items():
            print(f"  {name:<13} pid {proc['pid']}")
        print(f"  namespaces:   {' '.join(sorted(status['namespaces']))}")
        print(f"  flow table:   {status['flows']}\n")

        edges = probe.open_edges(pod, emu)
        print("The fold: a PPPoE PADI from each end of every line, and from an S-tag nobody serves")
        rows = _probe_lines(pod, edges)
        print(_table(("access", "S-tag", "C-tag", "group", "expected", "arrived at", ""), rows))
        wrong = [r for r in rows if r[-1] != "ok"]
        print(f"\n{len(rows) - len(wrong)} of {len(rows)} probes went where the pod file says\n")
        header = ("instance", "id", "groups", "VF port", "flows", "packets", "bytes")
        if hold:
            print("The pod stays up: try `bngpod status`, `bngpod ofctl dump-flows bpsw`,")
            print("`ip netns exec bngpod-acc-access1 ...`. Ctrl-C tears it down.\n")
        print(_table(header, _counters(pod)))
        while hold:
            time.sleep(2)
            sys.stdout.write(f"\x1b[{len(pod.instances) + 2}A")  # back to the table's header
            print(_table(header, _counters(pod)))
        return 1 if wrong else 0
    except KeyboardInterrupt:
        print()
        return 0
    except emu.EmuError as exc:
        print(f"bngpod demo: {exc}", file=sys.stderr)
        return 2
    finally:
        print("tearing the pod down ...")
        removed = emu.down(quiet=True)
        left = emu.our_namespaces()
        if left:
            print(f"could not remove {', '.join(left)}: run `bngpod down`", file=sys.stderr)
        else:
            print(f"removed {len(removed)} item(s); nothing of the pod is left")

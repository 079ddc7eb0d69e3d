"""The RFC 2544 report (report.md and SVG plots) from the harness's results.json document, in
the seeds' layout: throughput per frame size (frames/s and Mbit/s at layer 1), the loss rate
of each trial against its offered rate, and probe latency under background load."""

from __future__ import annotations

from pathlib import Path

import svgplot


def _fmt(v, nd=1) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:,.{nd}f}"
    return f"{v:,}" if isinstance(v, int) else str(v)


def write(res: dict, out: Path) -> Path:
    tp = [t for t in res.get("throughput", []) if t["direction"] in ("up", "down")]
    mix = [t for t in res.get("throughput", []) if t["direction"].startswith("mix")]
    lat = res.get("latency", [])
    conform = "conformant" if res.get("conformant") else "NOT conformant (short run: shorter trials, coarser search)"
    s = res.get("settings", {})
    memif = s.get("attach") == "memif"
    where = (
        "bng-dp alone on net_memif (sessions established through PFCP)"
        if memif
        else f"pod {res.get('pod')} (attach {s.get('attach', 'pod')})"
    )
    lines = [
        "# RFC 2544 " + ("of bng-dp on net_memif" if memif else "through the emulated pod"),
        "",
        f"Run {res.get('started')}, {conform}; {where}, {res.get('sessions', '-')} PPPoE sessions "
        f"over QinQ; load average at start {res.get('loadavg_start')}, at end {res.get('loadavg_end')}; "
        f"{res.get('wall_s')} s in all.",
        "",
        f"Throughput trials {s.get('trial_s')} s, search resolution {s.get('resolution')} of the upper bound; "
        "frame sizes are access-side Ethernet frames with FCS (upstream 64 B is sent as 78 B, the smallest "
        "that carries QinQ + PPPoE + IPv4 + UDP + the 16-byte signature; downstream frames are 16 bytes shorter "
        "on the core side, at least 64 B). Mbit/s are layer 1 (frame + 20 B preamble and gap) at the access side.",
        "",
        "## Throughput",
        "",
        "| direction | size | access frame B | zero loss, frames/s | Mbit/s L1 | <= 0.001% loss, frames/s | "
        "generator ceiling, frames/s | generator-bound |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for t in tp:
        lines.append(
            f"| {t['direction']} | {t['size']} | {_fmt(t['access_frame_bytes'])} | {_fmt(t['ndr_pps'])} | "
            f"{_fmt(t['ndr_mbps_l1'], 2)} | {_fmt(t['pdr_0.001%_pps'])} | {_fmt(t['generator_ceiling_pps'])} | "
            f"{'yes' if t['generator_bound'] else 'no'} |"
        )
    for t in mix:
        lines.append(
            f"| {t['direction']} | {t['size']} | - | {_fmt(t['ndr_pps'])} (down {_fmt(t['ndr_down_pps'])}, up "
            f"{_fmt(t['ndr_up_pps'])}) | {_fmt(t['ndr_mbps_l1'], 2)} | "
            f"{_fmt(t['pdr_0.001%_mbps_l1'], 2)} Mbit/s | - | - |"
        )
    lines += ["", "![throughput](throughput.svg)", "", "## Frame loss rate (every trial)", "", "![loss](loss.svg)", ""]
    lines += [
        "## Latency of the VoIP-like probe",
        "",
        "178-byte frames, DSCP EF, 1000 frames/s each way, under a background of the 89/11 mix at a share of its "
        f"zero-loss rate; wire to wire through {'bng-dp and its memif rings' if memif else 'the pod'}, microseconds.",
        "",
        "| background | Mbit/s L1 | direction | min | avg | p99 | max | probe frames lost | background lost |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for d in lat:
        for name in ("up", "down"):
            x = d.get(name) or {}
            lines.append(
                f"| {int(d['background'] * 100)}% | {_fmt(d['background_mbps_l1'], 2)} | {name} | "
                f"{_fmt(x.get('min_us'))} | {_fmt(x.get('avg_us'))} | {_fmt(x.get('p99_us'))} | "
                f"{_fmt(x.get('max_us'))} | {_fmt(x.get('lost'))} | {_fmt(d.get('background_lost'))} |"
            )
    lines += ["", "![latency](latency.svg)", ""]
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.md").write_text("\n".join(lines) + "\n")
    cats = [t["size"] for t in tp if t["direction"] == "up"]
    series = {}
    for d in ("up", "down"):
        by = {t["size"]: t for t in tp if t["direction"] == d}
        series[f"{d}, zero loss"] = [by[c]["ndr_pps"] / 1e3 if c in by else None for c in cats]
        series[f"{d}, generator"] = [by[c]["generator_ceiling_pps"] / 1e3 if c in by else None for c in cats]
    (out / "throughput.svg").write_text(
        svgplot.bars("Throughput without loss per frame size", "kframes/s (log)", cats, series, log_y=True)
    )
    loss = {}
    for t in tp:
        key = f"{t['direction']} {t['size']}"
        loss[key] = [(x["rate"] / 1e3, 100.0 * x["lost"] / x["tx"] if x["tx"] else 100.0) for x in t.get("trials", [])]
    (out / "loss.svg").write_text(
        svgplot.lines("Frame loss rate per trial", "offered kframes/s (log)", "loss %", loss, log_x=True)
    )
    lat_series = {}
    for name in ("up", "down"):
        for q in ("avg_us", "p99_us", "max_us"):
            pts = [(d["background"] * 100, d[name][q]) for d in lat if d.get(name) and d[name].get(q) is not None]
            lat_series[f"{name} {q[:-3]}"] = pts
    (out / "latency.svg").write_text(
        svgplot.lines(
            "Probe latency under background load", "background, % of the mix's rate", "us (log)", lat_series, log_y=True
        )
    )
    return out / "report.md"

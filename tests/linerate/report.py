"""The RFC 2544 report (report.md, PNG plots and the same as SVG) from the harness's
results.json document, in the seeds' layout: throughput per frame size (frames/s and Mbit/s at
layer 1) by binary search and, reported apart, by MLRsearch; back-to-back bursts (26.4); the
frame loss rate curve (26.3); latency at the throughput rate (26.2) and at fractions of it, and
of the VoIP-like probe under background load."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display: files only
import matplotlib.pyplot as plt  # noqa: E402


def _fmt(v, nd=1) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:,.{nd}f}"
    return f"{v:,}" if isinstance(v, int) else str(v)


def _table(header: list[str], rows: list[list]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(_fmt(c) if not isinstance(c, str) else c for c in r) + " |" for r in rows]
    return out + [""]


def _save(fig, out: Path, name: str, plots: list[dict], series: int) -> None:
    fig.tight_layout()
    fig.savefig(out / f"{name}.png", dpi=100)
    fig.savefig(out / f"{name}.svg")
    plt.close(fig)
    plots.append({"file": f"{name}.png", "series": series})


def _bars(ax, cats: list[str], series: dict[str, list[float | None]]) -> int:
    n = max(1, len(series))
    w = 0.8 / n
    drawn = 0
    for i, (name, vals) in enumerate(series.items()):
        xs = [k + (i - (n - 1) / 2) * w for k, v in enumerate(vals) if v]
        ys = [v for v in vals if v]
        if ys:
            ax.bar(xs, ys, width=w * 0.95, label=name)
            drawn += 1
    ax.set_xticks(range(len(cats)), cats)
    return drawn


def plots(res: dict, out: Path) -> list[dict]:
    """Writes the plots that res has data for; [{file, series}, ...] (series: lines or bar
    groups drawn)."""
    made: list[dict] = []
    tp = [t for t in res.get("throughput", []) if t["direction"] in ("up", "down")]
    mlr = {(t["direction"], t["size"]): t for t in res.get("throughput_mlr", [])}
    if tp:
        cats = list(dict.fromkeys(t["size"] for t in tp))
        series: dict[str, list[float | None]] = {}
        for d in ("up", "down"):
            by = {t["size"]: t for t in tp if t["direction"] == d}
            if not by:
                continue
            series[f"{d}, zero loss (binary)"] = [by[c]["ndr_pps"] / 1e3 if c in by else None for c in cats]
            if mlr:
                series[f"{d}, zero loss (MLRsearch)"] = [
                    mlr[(d, c)]["ndr_pps"] / 1e3 if (d, c) in mlr else None for c in cats
                ]
            series[f"{d}, generator ceiling"] = [
                by[c]["generator_ceiling_pps"] / 1e3 if c in by else None for c in cats
            ]
        fig, ax = plt.subplots(figsize=(9, 4.5))
        n = _bars(ax, cats, series)
        ax.set_yscale("log")
        ax.set_ylabel("kframes/s (log)")
        ax.set_xlabel("access frame size, bytes")
        ax.set_title("Throughput without loss per frame size")
        ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1, 0.5))
        _save(fig, out, "throughput", made, n)
    curves = res.get("loss_curve", [])
    if curves:
        fig, ax = plt.subplots(figsize=(9, 4.5))
        for c in curves:
            pts = sorted((p["fraction"] * 100, p["loss_pct"]) for p in c["points"])
            ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", label=f"{c['direction']} {c['size']}")
        ax.set_xlabel(f"offered load, % of the maximum rate ({curves[0].get('max_rate_is', 'generator ceiling')})")
        ax.set_ylabel("frame loss rate, %")
        ax.set_title("Frame loss rate (RFC 2544 26.3)")
        ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1, 0.5))
        _save(fig, out, "loss_curve", made, len(curves))
    b2b = res.get("back_to_back", [])
    if b2b:
        cats = list(dict.fromkeys(b["size"] for b in b2b))
        series = {}
        for d in ("up", "down"):
            by = {b["size"]: b for b in b2b if b["direction"] == d}
            if by:
                series[d] = [by[c]["frames"] if c in by else None for c in cats]
        fig, ax = plt.subplots(figsize=(9, 4.5))
        n = _bars(ax, cats, series)
        ax.set_ylabel("frames in the longest burst without loss")
        ax.set_xlabel("access frame size, bytes")
        ax.set_title("Back-to-back frames (RFC 2544 26.4)")
        ax.legend(fontsize=8)
        _save(fig, out, "back_to_back", made, n)
    trials = [t for t in tp if t.get("trials")]
    if trials:
        fig, ax = plt.subplots(figsize=(9, 4.5))
        for t in trials:
            pts = sorted((x["rate"] / 1e3, 100.0 * x["lost"] / x["tx"] if x["tx"] else 100.0) for x in t["trials"])
            ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", ls=":", label=f"{t['direction']} {t['size']}")
        ax.set_xscale("log")
        ax.set_xlabel("offered kframes/s (log)")
        ax.set_ylabel("loss, %")
        ax.set_title("Loss of every throughput search trial (binary search)")
        ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1, 0.5))
        _save(fig, out, "trials", made, len(trials))
    at_rate = [x for x in res.get("latency_at_throughput", []) if x.get("avg_us") is not None]
    if at_rate:
        fig, ax = plt.subplots(figsize=(9, 4.5))
        n = 0
        for key in dict.fromkeys((x["direction"], x["size"]) for x in at_rate):
            pts = sorted((x.get("fraction", 1.0) * 100, x["avg_us"], x["p99_us"]) for x in at_rate
                         if (x["direction"], x["size"]) == key)  # fmt: skip
            (line,) = ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"{key[0]} {key[1]} avg")
            ax.plot([p[0] for p in pts], [p[2] for p in pts], marker="^", ls=":", color=line.get_color(),
                    label=f"{key[0]} {key[1]} p99")  # fmt: skip
            n += 1
        ax.set_yscale("log")
        ax.set_xlabel("offered load, % of the size's zero-loss rate")
        ax.set_ylabel("us (log)")
        ax.set_title("Latency at fractions of the throughput rate (RFC 2544 26.2 at 100%)")
        ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1, 0.5))
        _save(fig, out, "latency_at_throughput", made, n)
    lat = res.get("latency", [])
    if lat:
        fig, ax = plt.subplots(figsize=(9, 4.5))
        n = 0
        for name in ("up", "down"):
            for q in ("avg_us", "p99_us", "max_us"):
                pts = [(d["background"] * 100, d[name][q]) for d in lat if d.get(name) and d[name].get(q) is not None]
                if pts:
                    ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", label=f"{name} {q[:-3]}")
                    n += 1
        ax.set_yscale("log")
        ax.set_xlabel("background, % of the 89/11 mix's zero-loss rate")
        ax.set_ylabel("us (log)")
        ax.set_title("VoIP-like probe latency under background load")
        ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1, 0.5))
        _save(fig, out, "latency", made, n)
    return made


def write(res: dict, out: Path) -> Path:
    tp = [t for t in res.get("throughput", []) if t["direction"] in ("up", "down")]
    mix = [t for t in res.get("throughput", []) if t["direction"].startswith("mix")]
    lat = res.get("latency", [])
    conform = (
        "conformant (RFC 2544 sections 24 and 26: 60 s trials, latency over 20 trials at the throughput rate)"
        if res.get("conformant")
        else "NOT conformant (short run: shorter trials, coarser search, fewer repeats; `--conformant` is the full run)"
    )
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
        "## Throughput (RFC 2544 26.1), binary search",
        "",
    ]
    rows = [
        [t["direction"], t["size"], t["access_frame_bytes"], t["ndr_pps"], t["ndr_mbps_l1"], t["pdr_0.001%_pps"],
         t["generator_ceiling_pps"], t["generator_bound"]]
        for t in tp
    ]  # fmt: skip
    rows += [
        [t["direction"], t["size"], "-", f"{_fmt(t['ndr_pps'])} (down {_fmt(t['ndr_down_pps'])}, up "
         f"{_fmt(t['ndr_up_pps'])})", t["ndr_mbps_l1"], f"{_fmt(t['pdr_0.001%_mbps_l1'])} Mbit/s", "-", "-"]
        for t in mix
    ]  # fmt: skip
    lines += _table(
        ["direction", "size", "access frame B", "zero loss, frames/s", "Mbit/s L1", "<= 0.001% loss, frames/s",
         "generator ceiling, frames/s", "generator-bound"], rows)  # fmt: skip
    if res.get("throughput_mlr"):
        lines += [
            "## Throughput, MLRsearch (reported apart)",
            "",
            "FD.io CSIT's MLRsearch (PyPI MLRsearch), both goals in one search: zero loss and 0.001% loss, exceed "
            "ratio 0 (one final trial decides), the same trial length and relative width as the binary search. "
            "The figure is the conditional throughput at the relevant lower bound.",
            "",
        ]
        lines += _table(
            ["direction", "size", "zero loss, frames/s", "bounds", "<= 0.001% loss, frames/s", "bounds", "trials"],
            [[t["direction"], t["size"], t["ndr_pps"], f"{_fmt(t['ndr_lower'], 0)}..{_fmt(t['ndr_upper'], 0)}",
              t["pdr_pps"], f"{_fmt(t['pdr_lower'], 0)}..{_fmt(t['pdr_upper'], 0)}", t["trial_count"]]
             for t in res["throughput_mlr"]],
        )  # fmt: skip
    if res.get("back_to_back"):
        lines += [
            "## Back-to-back frames (RFC 2544 26.4)",
            "",
            "The longest burst at the generator's ceiling rate forwarded without loss, mean over the repeats "
            "(RFC 2544: at least 50); 'at ceiling' means the longest burst tried passed (the device kept up).",
            "",
        ]
        lines += _table(
            ["direction", "size", "burst rate, frames/s", "frames (mean)", "repeats", "at ceiling"],
            [[b["direction"], b["size"], b["rate_pps"], b["frames"], " ".join(str(x) for x in b["repeats"]),
              b["at_ceiling"]] for b in res["back_to_back"]],
        )  # fmt: skip
    if res.get("loss_curve"):
        lines += [
            "## Frame loss rate (RFC 2544 26.3)",
            "",
            "From 100% of the maximum rate down in 10% steps until two successive trials lose nothing; "
            "loss % = (sent - received) x 100 / sent.",
            "",
        ]
        lines += _table(
            ["direction", "size", "max rate, frames/s", "loss % at 100%, 90%, ..."],
            [[c["direction"], c["size"], c["max_rate_pps"],
              ", ".join(f"{p['fraction']:.0%}: {p['loss_pct']:.3g}" for p in c["points"])] for c in res["loss_curve"]],
        )  # fmt: skip
    if res.get("latency_at_throughput"):
        lines += [
            "## Latency at the throughput rate (RFC 2544 26.2) and at fractions of it",
            "",
            "The stream at a share of its zero-loss rate (100%: the rate itself, RFC 2544 26.2's); each trial's "
            "figures averaged over the trials (min and max: extremes).",
            "",
        ]
        lines += _table(
            ["direction", "size", "share", "rate, frames/s", "trials x s", "min us", "avg us", "p99 us", "max us",
             "lost"],
            [[x["direction"], x["size"], f"{x.get('fraction', 1.0):.0%}", x["rate_pps"],
              f"{x['trials']} x {x['trial_s']}", x["min_us"], x["avg_us"], x["p99_us"], x["max_us"], x["lost"]]
             for x in res["latency_at_throughput"]],
        )  # fmt: skip
    if lat:
        lines += [
            "## Latency of the VoIP-like probe",
            "",
            "178-byte frames, DSCP EF, 1000 frames/s each way, under a background of the 89/11 mix at a share of "
            f"its zero-loss rate; wire to wire through {'bng-dp and its memif rings' if memif else 'the pod'}, "
            "microseconds.",
            "",
        ]
        rows = []
        for d in lat:
            for name in ("up", "down"):
                x = d.get(name) or {}
                rows.append([f"{int(d['background'] * 100)}%", d["background_mbps_l1"], name, x.get("min_us"),
                             x.get("avg_us"), x.get("p99_us"), x.get("max_us"), x.get("lost"),
                             d.get("background_lost")])  # fmt: skip
        lines += _table(
            ["background", "Mbit/s L1", "direction", "min", "avg", "p99", "max", "probe frames lost",
             "background lost"], rows)  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)
    made = plots(res, out)
    lines += ["## Plots", ""] + [f"![{p['file'][:-4]}]({p['file']})" for p in made] + [""]
    (out / "report.md").write_text("\n".join(lines))
    return out / "report.md"

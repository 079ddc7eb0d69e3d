"""Small SVG charts for the RFC 2544 report, written by hand (matplotlib is not among the
project's Python dependencies): grouped bars and lines with axes, ticks and a legend."""

from __future__ import annotations

import math
from html import escape

W, H = 720, 400
LEFT, RIGHT, TOP, BOTTOM = 80, 170, 40, 60
COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf")  # fmt: skip


def _nice_max(v: float) -> float:
    if v <= 0 or math.isnan(v):
        return 1.0
    e = 10 ** math.floor(math.log10(v))
    for m in (1, 2, 2.5, 5, 10):
        if m * e >= v:
            return m * e
    return 10 * e


class _Log:
    """A base-10 axis from a power of ten below the smallest value to one above the largest."""

    def __init__(self, values: list[float]):
        pos = [v for v in values if v > 0]
        self.lo = math.floor(math.log10(min(pos))) if pos else 0
        self.hi = max(self.lo + 1, math.ceil(math.log10(max(pos)))) if pos else 1

    def frac(self, v: float) -> float:
        if v <= 0:
            return 0.0
        return min(1.0, max(0.0, (math.log10(v) - self.lo) / (self.hi - self.lo)))

    def ticks(self) -> list[tuple[float, str]]:
        return [((e - self.lo) / (self.hi - self.lo), f"{10.0**e:g}") for e in range(self.lo, self.hi + 1)]


def _frame(title: str, ylabel: str, ymax: float, yticks: list[tuple[float, str]] | None = None) -> list[str]:
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
        f'<rect width="{W}" height="{H}" fill="white"/>',
        f'<text x="{W / 2}" y="22" text-anchor="middle" font-size="15">{escape(title)}</text>',
        f'<text transform="translate(18,{TOP + ph / 2}) rotate(-90)" text-anchor="middle">{escape(ylabel)}</text>',
        f'<line x1="{LEFT}" y1="{TOP + ph}" x2="{LEFT + pw}" y2="{TOP + ph}" stroke="black"/>',
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + ph}" stroke="black"/>',
    ]
    for f, label in yticks or [(i / 5, f"{ymax * i / 5:g}") for i in range(6)]:
        y = TOP + ph - ph * f
        out.append(f'<line x1="{LEFT}" y1="{y}" x2="{LEFT + pw}" y2="{y}" stroke="#ddd"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y + 4}" text-anchor="end">{label}</text>')
    return out


def _legend(names: list[str]) -> list[str]:
    out = []
    for i, name in enumerate(names):
        y = TOP + 10 + i * 18
        x = W - RIGHT + 15
        out.append(f'<rect x="{x}" y="{y - 9}" width="12" height="12" fill="{COLOURS[i % len(COLOURS)]}"/>')
        out.append(f'<text x="{x + 18}" y="{y + 1}">{escape(name)}</text>')
    return out


def bars(
    title: str, ylabel: str, categories: list[str], series: dict[str, list[float | None]], log_y: bool = False
) -> str:
    """Grouped bars: one group per category, one bar per series (None: no bar)."""
    vals = [v for s in series.values() for v in s if v is not None]
    ymax = _nice_max(max(vals, default=1.0))
    ylog = _Log(vals) if log_y else None
    out = _frame(title, ylabel, ymax, ylog.ticks() if ylog else None)
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM
    gw = pw / max(1, len(categories))
    bw = gw * 0.8 / max(1, len(series))
    for ci, cat in enumerate(categories):
        x0 = LEFT + ci * gw + gw * 0.1
        out.append(f'<text x="{LEFT + ci * gw + gw / 2}" y="{TOP + ph + 18}" text-anchor="middle">{escape(cat)}</text>')
        for si, vals_ in enumerate(series.values()):
            v = vals_[ci]
            if v is None:
                continue
            h = ph * (ylog.frac(v) if ylog else v / ymax)
            out.append(
                f'<rect x="{x0 + si * bw:.1f}" y="{TOP + ph - h:.1f}" width="{bw * 0.95:.1f}" height="{h:.1f}" '
                f'fill="{COLOURS[si % len(COLOURS)]}"><title>{escape(cat)}: {v:g}</title></rect>'
            )
    out += _legend(list(series))
    out.append("</svg>")
    return "\n".join(out)


def lines(
    title: str, xlabel: str, ylabel: str, series: dict[str, list[tuple[float, float]]], log_x: bool = False,
    log_y: bool = False,
) -> str:  # fmt: skip
    """Lines with markers: series of (x, y) points; log axes where asked."""
    pts = [p for s in series.values() for p in s]
    xmax = _nice_max(max((p[0] for p in pts), default=1.0))
    ymax = _nice_max(max((p[1] for p in pts), default=1.0))
    xlog = _Log([p[0] for p in pts]) if log_x else None
    ylog = _Log([p[1] for p in pts]) if log_y else None
    out = _frame(title, ylabel, ymax, ylog.ticks() if ylog else None)
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM
    for f, label in xlog.ticks() if xlog else [(i / 5, f"{xmax * i / 5:g}") for i in range(6)]:
        x = LEFT + pw * f
        out.append(f'<text x="{x}" y="{TOP + ph + 18}" text-anchor="middle">{label}</text>')
    out.append(f'<text x="{LEFT + pw / 2}" y="{H - 15}" text-anchor="middle">{escape(xlabel)}</text>')
    for si, s in enumerate(series.values()):
        c = COLOURS[si % len(COLOURS)]
        xy = [
            (LEFT + pw * (xlog.frac(x) if xlog else x / xmax), TOP + ph - ph * (ylog.frac(y) if ylog else y / ymax))
            for x, y in sorted(s)
        ]
        if len(xy) > 1:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in xy)
            out.append(f'<polyline points="{path}" fill="none" stroke="{c}" stroke-width="2"/>')
        for x, y in xy:
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{c}"/>')
    out += _legend(list(series))
    out.append("</svg>")
    return "\n".join(out)

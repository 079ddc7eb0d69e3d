"""The RFC 2544 report writer (report.py): tables and PNG plots from a results document shaped
as rfc2544.py writes it, filled by the real search functions against simulated devices."""

from __future__ import annotations

import struct

from . import report, search
from .test_search import buffered_device, device, timed_device


def results() -> dict:
    tp, mlr, b2b, curves, lat_rate = [], [], [], [], []
    for direction, cap in (("up", 40_000), ("down", 25_000)):
        for size in ("64", "512", "IMIX"):
            ndr = search.binary_search(device(cap), 100_000, resolution=0.02, max_trials=10)
            tp.append({"test": "throughput", "direction": direction, "size": size, "access_frame_bytes": 512.0,
                       "ndr_pps": round(ndr.rate), "ndr_mbps_l1": 1.0, "pdr_0.001%_pps": round(ndr.rate),
                       "generator_ceiling_pps": 100_000, "generator_bound": False,
                       "trials": [vars(t) for t in ndr.trials]})  # fmt: skip
            m = search.mlr_search(timed_device(cap), 100_000, 100, resolution=0.02, trial_s=2)
            mlr.append({"direction": direction, "size": size, "ndr_pps": round(m.goals[0].rate),
                        "ndr_lower": m.goals[0].lower, "ndr_upper": m.goals[0].upper,
                        "pdr_pps": round(m.goals[1].rate), "pdr_lower": m.goals[1].lower,
                        "pdr_upper": m.goals[1].upper, "trial_count": len(m.trials)})  # fmt: skip
            b = search.back_to_back(buffered_device(cap, 500, 100_000), 100_000, 20_000)
            b2b.append({"direction": direction, "size": size, "rate_pps": 100_000, "frames": b.frames,
                        "repeats": b.repeats, "at_ceiling": b.at_ceiling})  # fmt: skip
            c = search.loss_curve(device(cap), 100_000)
            curves.append({"direction": direction, "size": size, "max_rate_pps": 100_000,
                           "points": [{"fraction": f, "rate": t.rate, "tx": t.tx, "lost": t.lost,
                                       "loss_pct": search.loss_percent(t)} for f, t in c]})  # fmt: skip
            for f in (0.1, 0.5, 1.0):
                lat_rate.append({"direction": direction, "size": size, "fraction": f, "rate_pps": round(ndr.rate * f),
                                 "trials": 2, "trial_s": 2.0, "min_us": 5.0, "avg_us": 9.5 * f, "p99_us": 20.1 * f,
                                 "max_us": 40.0, "lost": 0})  # fmt: skip
    lat = [{"background": f, "background_mbps_l1": 100 * f, "up": {"avg_us": 10 + f, "p99_us": 20 + f, "max_us": 50,
            "min_us": 3, "lost": 0}, "down": {"avg_us": 11, "p99_us": 21, "max_us": 51, "min_us": 4, "lost": 0},
            "background_lost": 0} for f in (0.0, 0.1, 0.9)]  # fmt: skip
    return {"bench": "rfc2544", "conformant": False, "settings": {"attach": "memif", "trial_s": 2.0},
            "throughput": tp, "throughput_mlr": mlr, "back_to_back": b2b, "loss_curve": curves,
            "latency_at_throughput": lat_rate, "latency": lat}  # fmt: skip


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_the_report_has_every_table_and_a_png_per_plot(tmp_path):
    md = report.write(results(), tmp_path).read_text()
    pngs = sorted(p.name for p in tmp_path.glob("*.png"))
    assert pngs == ["back_to_back.png", "latency.png", "latency_at_throughput.png", "loss_curve.png",
                    "throughput.png", "trials.png"]  # fmt: skip
    for name in pngs:
        w, h = png_size((tmp_path / name).read_bytes())
        assert (w, h) == (900, 450)  # 9 x 4.5 inches at 100 dpi
        assert f"]({name})" in md and (tmp_path / name.replace(".png", ".svg")).stat().st_size > 1000
    for title in ("binary search", "MLRsearch (reported apart)", "Back-to-back frames (RFC 2544 26.4)",
                  "Frame loss rate (RFC 2544 26.3)", "Latency at the throughput rate (RFC 2544 26.2) and at fractions",
                  "VoIP-like probe", "NOT conformant"):  # fmt: skip
        assert title in md, title
    # the loss curve's rows: 100% of 100,000 frames/s against a 40,000 frames/s device loses 60%
    assert "| up | 64 | 100,000 | 100%: 60, 90%: 55.6," in md
    # latency at each share of the found rate: a row each, the share and its rate
    ndr = next(t["ndr_pps"] for t in results()["throughput"] if (t["direction"], t["size"]) == ("down", "512"))
    assert f"| down | 512 | 50% | {round(ndr * 0.5):,} | 2 x 2.0 | 5.0 | 4.8 | 10.1 | 40.0 | 0 |" in md


def test_the_plots_draw_what_the_results_hold(tmp_path):
    made = {p["file"]: p["series"] for p in report.plots(results(), tmp_path)}
    # throughput: per direction binary, MLRsearch and the ceiling; one curve per direction and size
    assert made == {"throughput.png": 6, "loss_curve.png": 6, "back_to_back.png": 2, "trials.png": 6,
                    "latency.png": 6, "latency_at_throughput.png": 6}  # fmt: skip
    # a run with throughput alone plots throughput and its trials, nothing else
    drop = ("throughput_mlr", "back_to_back", "loss_curve", "latency", "latency_at_throughput")
    only = {k: v for k, v in results().items() if k not in drop}
    out = tmp_path / "only"
    out.mkdir()
    assert {p["file"]: p["series"] for p in report.plots(only, out)} == {"throughput.png": 4, "trials.png": 6}
    assert sorted(p.name for p in out.glob("*.png")) == ["throughput.png", "trials.png"]

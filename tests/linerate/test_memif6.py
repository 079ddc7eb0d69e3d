"""bng-lrgen's IPv6 streams against bng-dp over net_memif (memif.py): dual-stack sessions
installed through PFCP (PDR 3 upstream PPP 0x0057, PDR 4 the /64, PDR 5 the delegated /56),
and IPv6-only ones (no IPv4 PDRs); the generator answers bng-dp's Neighbor Solicitations
for the core router's IPv6 address as it answers ARP for the IPv4 one. One trial at a low
rate: every frame of every IPv4 and IPv6 stream comes back, upstream decapsulated and
routed to the router's MAC, downstream encapsulated into its session with PPP protocol
0x0057. Root; tests/conftest.py holds the bngpod-netns lock."""

from __future__ import annotations

import time

import pytest

from . import lrgen, memif, streams

N = 40  # sessions
RATE, SECONDS = 2000.0, 2.0  # per group: 25 frames/s per stream (2 families x 40 sessions)
G_UP, G_DOWN = 0, 1


@pytest.fixture(params=["both", "6"])
def dual_dp(lrgen_binary, tmp_path, request):
    if not memif.BNG_DP.is_file():
        pytest.fail(f"{memif.BNG_DP} is missing: run `make binaries`")
    with memif.MemifDp(N, log=tmp_path / "bng-dp.log", family=request.param) as dp:
        yield dp


def test_ipv6_and_ipv4_streams_through_bng_dp_over_memif_lose_nothing(dual_dp, tmp_path):
    """Dual stack (IPv4 and IPv6 streams) and IPv6 only (no IPv4 PDRs, IPv6 streams)."""
    dp = dual_dp
    st = memif.dp_streams(dp, "02:aa:00:00:00:01", 0, G_UP, G_DOWN, 2, 3)
    v4 = 2 * N if dp.family == "both" else 0  # the IPv6 streams' first id
    assert len(st) == v4 + 2 * N
    # the IPv6 streams as described: PPPoE session, PPP 0x0057, the session's own prefixes
    up6, down6 = st[v4], st[v4 + N + 1]
    assert up6.header[20:22] == b"\x88\x64" and up6.header[28:30] == b"\x00\x57" and up6.header[30] >> 4 == 6
    assert down6.header[12:14] == b"\x86\xdd" and down6.size_adjust == -streams.ACCESS_EXTRA
    wan, pd = memif.addresses6(dp.subs[0])[0], memif.addresses6(dp.subs[1])[1]
    assert wan.startswith("2001:db8:100:1::") and pd.startswith("2001:db8:2000:100::")
    path = streams.write(tmp_path / "streams.txt", st)
    with lrgen.LrGen(
        path,
        [("", dp.devargs())],
        arp={0: memif.ROUTER_ADDR},
        nd={0: memif.ROUTER6_ADDR},
        prefix="lrm6test",
        log=tmp_path / "gen.log",
        per_stream=True,
        lcp_magic=memif.LCP_MAGIC,
    ) as gen:
        # bng-dp solicits the router's IPv6 address every second until it is answered; the
        # generator answers between trials too
        deadline = time.monotonic() + 15
        while dp.telemetry("/bng/stats").get("router6_resolved") != 1:
            assert time.monotonic() < deadline, "bng-dp did not resolve the router's IPv6 address"
            time.sleep(0.2)
        warm = gen.trial(1.0, drain_ms=300, rate0=200.0, size0=128, rate1=200.0, size1=128)
        res = gen.trial(SECONDS, drain_ms=1000, rate0=RATE, size0=128, rate1=RATE, size1=512)
    per = {s["id"]: s for s in res["streams"]}
    want = round(RATE * SECONDS / (len(st) // 2))
    for sid in range(len(st)):  # (IPv4 up, IPv4 down), IPv6 up, IPv6 down
        s = per[sid]
        assert abs(s["tx"] - want) <= 2, s
        assert s["rx"] == s["tx"] and s["lost"] == 0, s
        assert s["reordered"] == 0 and s["duplicates"] == 0, s
        assert 0 < s["lat_min_ns"] <= s["lat_max_ns"] < 5e9, s
    for g in res["groups"][:2]:
        assert g["unexpected"] == 0 and g["lost"] == 0, g
    assert res["rx_stale"] == 0 and res["rx_bad_stream"] == 0
    # bng-dp's counters: its IPv6 share both ways holds the IPv6 streams' frames of the trial
    # and at most the warm-up's besides; none was dropped for scope, spoofing or a missing session
    stats = dp.telemetry("/bng/stats")
    up6 = sum(per[i]["rx"] for i in range(v4, v4 + N))
    down6 = sum(per[i]["rx"] for i in range(v4 + N, v4 + 2 * N))
    assert up6 <= stats["up6_pkts"] <= up6 + warm["groups"][0]["tx"], stats
    assert down6 <= stats["down6_pkts"] <= down6 + warm["groups"][1]["tx"], stats
    if v4:
        assert stats["up_pkts"] - stats["up6_pkts"] >= RATE * SECONDS / 2, stats
    else:
        assert stats["up_pkts"] == stats["up6_pkts"] and stats["down_pkts"] == stats["down6_pkts"], stats
    for k in ("drop_ipv6_scope", "drop_spoofed_source", "drop_no_session_down", "drop_ipv6_not_forwarded"):
        assert stats.get(k, 0) == 0, (k, stats)
    assert dp.sessions_alive() == N

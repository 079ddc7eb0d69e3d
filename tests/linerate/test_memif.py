"""bng-lrgen against bng-dp over net_memif (memif.py): bng-dp on a memif server port with
sessions established through PFCP, the generator on the client end answering bng-dp's ARP
for its next hop and its LCP echoes. One trial at a low rate: every frame of every stream
comes back, upstream decapsulated and routed, downstream encapsulated into its session.
Root; tests/conftest.py holds the bngpod-netns lock (namespaces for the management link)."""

from __future__ import annotations

import pytest

from . import lrgen, memif, streams

N = 40  # sessions
RATE, SECONDS = 2000.0, 2.0  # per direction: 50 frames/s per session


@pytest.fixture
def memif_dp(lrgen_binary, tmp_path):
    if not memif.BNG_DP.is_file():
        pytest.fail(f"{memif.BNG_DP} is missing: run `make binaries`")
    with memif.MemifDp(N, log=tmp_path / "bng-dp.log") as dp:
        yield dp


def test_one_trial_through_bng_dp_over_memif_loses_nothing(memif_dp, tmp_path):
    dp = memif_dp
    st = memif.dp_streams(dp, "02:aa:00:00:00:01", 2, 0, 1, 2, 3)
    path = streams.write(tmp_path / "streams.txt", st)
    with lrgen.LrGen(
        path,
        [("", dp.devargs())],
        arp={0: memif.ROUTER_ADDR},
        prefix="lrmtest",
        log=tmp_path / "gen.log",
        per_stream=True,
        lcp_magic=memif.LCP_MAGIC,
    ) as gen:
        warm = gen.trial(1.0, drain_ms=300, rate0=200.0, size0=128, rate1=200.0, size1=128)
        assert warm["ports"][0]["arp_replies"] >= 1, "bng-dp did not ask the generator for its next hop"
        res = gen.trial(SECONDS, drain_ms=1000, rate0=RATE, size0=128, rate1=RATE, size1=512)
        # bng-dp sends each session an LCP echo every ECHO_INTERVAL s: wait for a round
        extra = gen.trial(memif.ECHO_INTERVAL + 1.0, drain_ms=200)
    per = {s["id"]: s for s in res["streams"]}
    want = round(RATE * SECONDS / N)
    for sid in range(2 * N):  # N upstream, then N downstream
        s = per[sid]
        assert abs(s["tx"] - want) <= 2, s
        assert s["rx"] == s["tx"] and s["lost"] == 0, s
        assert s["reordered"] == 0 and s["duplicates"] == 0, s
        assert 0 < s["lat_min_ns"] <= s["lat_max_ns"] < 5e9, s
    for g in res["groups"][:2]:
        assert g["unexpected"] == 0 and g["lost"] == 0, g
    assert res["rx_stale"] == 0 and res["rx_bad_stream"] == 0
    # bng-dp's own counters saw them as session traffic both ways
    stats = dp.telemetry("/bng/stats")
    assert stats["up_pkts"] >= RATE * SECONDS and stats["down_pkts"] >= RATE * SECONDS, stats
    assert stats["drop_no_session_down"] == 0 and stats["drop_spoofed_source"] == 0
    # every session's LCP echoes were answered by the generator and none died
    lcp = warm["ports"][0]["lcp_replies"] + res["ports"][0]["lcp_replies"] + extra["ports"][0]["lcp_replies"]
    assert lcp >= N, f"{lcp} LCP echo replies for {N} sessions"
    assert dp.sessions_alive() == N
    assert dp.telemetry("/bng/stats")["lcp_consumed"] >= N

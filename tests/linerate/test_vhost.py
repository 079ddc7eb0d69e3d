"""bng-lrgen against bng-dp over vhost-user (memif.py, attach "vhost"): bng-dp on a net_vhost
port (the vhost-user socket's server, the backend), the generator on a net_virtio_user port
(the frontend: its memory, memfd-backed under --no-huge, is what the rings and buffers live
in). Sessions through PFCP as for net_memif; one trial at a low rate both ways, every frame
of every stream back, LCP echoes answered. Root; tests/conftest.py holds the bngpod-netns
lock."""

from __future__ import annotations

import pytest

from . import lrgen, memif, streams

N = 20  # sessions
RATE, SECONDS = 1000.0, 2.0  # per direction: 50 frames/s per session


@pytest.fixture
def vhost_dp(lrgen_binary, tmp_path):
    if not memif.BNG_DP.is_file():
        pytest.fail(f"{memif.BNG_DP} is missing: run `make binaries`")
    with memif.MemifDp(N, log=tmp_path / "bng-dp.log", attach="vhost") as dp:
        yield dp


def test_one_trial_through_bng_dp_over_vhost_user_loses_nothing(vhost_dp, tmp_path):
    dp = vhost_dp
    assert dp.devargs().startswith("net_virtio_user0,") and dp.dp_vdev().startswith("net_vhost0,")
    st = memif.dp_streams(dp, "02:aa:00:00:00:01", 0, 0, 1, 2, 3)
    path = streams.write(tmp_path / "streams.txt", st)
    with lrgen.LrGen(
        path,
        [("", dp.devargs())],
        arp={0: memif.ROUTER_ADDR},
        prefix="lrvtest",
        log=tmp_path / "gen.log",
        per_stream=True,
        lcp_magic=memif.LCP_MAGIC,
    ) as gen:
        warm = gen.trial(1.0, drain_ms=300, rate0=200.0, size0=128, rate1=200.0, size1=128)
        assert warm["ports"][0]["arp_replies"] >= 1, "bng-dp did not ask the generator for its next hop"
        res = gen.trial(SECONDS, drain_ms=1000, rate0=RATE, size0=128, rate1=RATE, size1=1518)
        extra = gen.trial(memif.ECHO_INTERVAL + 1.0, drain_ms=200)
    per = {s["id"]: s for s in res["streams"]}
    want = round(RATE * SECONDS / N)
    for sid in range(2 * N):  # N upstream, then N downstream
        s = per[sid]
        assert abs(s["tx"] - want) <= 2, s
        assert s["rx"] == s["tx"] and s["lost"] == 0, s
        assert s["reordered"] == 0 and s["duplicates"] == 0, s
    assert res["rx_stale"] == 0 and res["rx_bad_stream"] == 0
    stats = dp.telemetry("/bng/stats")
    assert stats["up_pkts"] >= RATE * SECONDS and stats["down_pkts"] >= RATE * SECONDS, stats
    lcp = sum(x["ports"][0]["lcp_replies"] for x in (warm, res, extra))
    assert lcp >= N, f"{lcp} LCP echo replies for {N} sessions"
    assert dp.sessions_alive() == N

"""The memif rig (on net_memif and on vhost-user) installing exactly the sessions of a
session export (`bngcpctl sessions --export`; testdata/cp-export.json was written by a real
bng-cp) through PFCP, and the generator's streams using exactly those sessions: every
stream's frames come back through bng-dp both ways, counted exactly. The refusals (sessions
of another instance, line, pool or QoS profile) run without root. The live test is root (the
lrgen_binary fixture skips it otherwise, or fails it under BNGPOD_REQUIRE_POD=1);
tests/conftest.py holds the bngpod-netns lock."""

from __future__ import annotations

import json

import pytest

from . import lrgen, memif, streams

EXPORT = memif.HERE / "testdata" / "cp-export.json"
RATE, SECONDS = 300.0, 2.0  # per direction: 100 frames/s per session


def _export(tmp_path, **change):
    raw = json.loads(EXPORT.read_text())
    raw[0].update(change)
    p = tmp_path / "x.json"
    p.write_text(json.dumps(raw))
    return p


def test_export_sessions_become_the_rigs_subscribers():
    subs, ac, ipoe = memif.export_subscribers(EXPORT)
    raw = [s for s in json.loads(EXPORT.read_text()) if s["kind"] == "pppoe"]
    assert [(s.stag, s.ctag, s.sid, s.mac, s.ipv4, s.qos) for s in subs] == [
        (r["stag"], r["ctag"], r["pppoe_id"], r["mac"], r["address"], r["qos_profile"]) for r in raw
    ]
    assert ac == "02:ac:00:00:00:01" and [s.kind for s in ipoe] == ["ipoe"]
    csv_subs, _, _ = memif.export_subscribers(EXPORT.with_suffix(".csv"))
    assert csv_subs == subs
    assert memif.family_of(subs) == "4"


@pytest.mark.parametrize(
    "change, error",
    [
        ({"instance": 2}, "instance 2, the rig is instance 1"),
        ({"stag": 300}, "no line group serves access1 S-tag 300"),
        ({"port": "access2"}, "KeyError('access2')"),
        ({"address": "100.81.0.9"}, "is in no pool of lg1"),
        ({"line_group": "lg2"}, "line_group lg2 but the line is lg1's"),
        ({"ipv6_prefix": "2001:db8:999:1::/64", "delegated_prefix": "2001:db8:2000:100::/56"}, "outside lg1's"),
        ({"pppoe_id": 0}, "PPPoE session id 0"),
        ({"qos_profile": "platinum"}, "QoS profile 'platinum': dp1 has gold, silver"),
        ({"mac": "02:5b:00:00:00:05", "pppoe_id": 2651, "ctag": 6}, "twice in the export"),
    ],
)
def test_sessions_not_of_the_rig_are_refused(tmp_path, change, error):
    with pytest.raises(ValueError, match=error.replace("(", r"\(").replace(")", r"\)")):
        memif.export_subscribers(_export(tmp_path, **change))


def test_another_ac_mac_within_the_export_is_refused(tmp_path):
    raw = json.loads(EXPORT.read_text())
    raw[1]["ac_mac"] = "02:ac:00:00:00:09"
    p = tmp_path / "x.json"
    p.write_text(json.dumps(raw))
    with pytest.raises(ValueError, match="AC MAC 02:ac:00:00:00:09 is not lg1's"):
        memif.export_subscribers(p)


@pytest.mark.parametrize("attach", memif.ATTACHES)
def test_exported_sessions_carry_every_frame_both_ways(lrgen_binary, tmp_path, attach):
    if not memif.BNG_DP.is_file():
        pytest.fail(f"{memif.BNG_DP} is missing: run `make binaries`")
    with memif.MemifDp(0, log=tmp_path / "bng-dp.log", export=EXPORT, attach=attach) as dp:
        n = len(dp.subs)
        assert dp.established == n == 3 and len(dp.ipoe_skipped) == 1
        st = memif.dp_streams(dp, "02:aa:00:00:00:01", 1, 0, 1, 2, 3)
        # the streams are the export's sessions: tags, PPPoE ids, MACs, addresses, lg1's AC MAC
        raw = [s for s in json.loads(EXPORT.read_text()) if s["kind"] == "pppoe"]
        for s, r in zip(st[:n], raw, strict=True):
            h = s.header
            assert h[:6] == streams.mac_bytes(r["ac_mac"]) and h[6:12] == streams.mac_bytes(r["mac"])
            assert int.from_bytes(h[14:16]) == r["stag"] and int.from_bytes(h[18:20]) == r["ctag"]
            assert int.from_bytes(h[24:26]) == r["pppoe_id"] and h[42:46] == bytes(map(int, r["address"].split(".")))
        for s, r in zip(st[n : 2 * n], raw, strict=True):
            assert s.header[30:34] == bytes(map(int, r["address"].split(".")))
        path = streams.write(tmp_path / "streams.txt", st)
        with lrgen.LrGen(
            path,
            [("", dp.devargs())],
            arp={0: memif.ROUTER_ADDR},
            prefix=f"lrexp{attach}",
            log=tmp_path / "gen.log",
            per_stream=True,
            lcp_magic=memif.LCP_MAGIC,
        ) as gen:
            warm = gen.trial(1.0, drain_ms=300, rate0=30.0, size0=128, rate1=30.0, size1=128)
            assert warm["ports"][0]["arp_replies"] >= 1, "bng-dp did not ask the generator for its next hop"
            res = gen.trial(SECONDS, drain_ms=1000, rate0=RATE, size0=128, rate1=RATE, size1=512)
        per = {s["id"]: s for s in res["streams"]}
        want = round(RATE * SECONDS / n)
        for sid in range(2 * n):  # n upstream, then n downstream
            s = per[sid]
            assert abs(s["tx"] - want) <= 2, s
            assert s["rx"] == s["tx"] and s["lost"] == 0 and s["reordered"] == 0 and s["duplicates"] == 0, s
        assert res["rx_stale"] == 0 and res["rx_bad_stream"] == 0
        for g in res["groups"][:2]:
            assert g["unexpected"] == 0 and g["lost"] == 0, g
        stats = dp.telemetry("/bng/stats")
        assert stats["drop_no_session_down"] == 0 and stats["drop_spoofed_source"] == 0, stats
        assert stats["up_pkts"] >= RATE * SECONDS and stats["down_pkts"] >= RATE * SECONDS, stats
        assert dp.sessions_alive() == n

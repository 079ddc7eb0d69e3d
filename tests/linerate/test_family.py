"""The IPv6 side of the memif rig without running anything: the sessions' prefixes lie in
lg1's pools of dp1.ini and are distinct, an IPv6-only session has no IPv4 PDRs, and the
smallest frames the harness's arithmetic assumes per family (memif.min_frames) are those the
generator really sends (streams.frame_len, streams.c's lr_stream_frame_len)."""

from __future__ import annotations

import ipaddress
import statistics

import pytest

from . import memif, streams


def test_prefixes_lie_in_the_groups_pools_and_are_distinct():
    subs = memif.subscribers(memif.MAX_SESSIONS, family="both")
    wan_pool, pd_pool = ipaddress.ip_network("2001:db8:100::/48"), ipaddress.ip_network("2001:db8:2000::/40")
    wans = [ipaddress.ip_network(s.ipv6_prefix) for s in subs]
    pds = [ipaddress.ip_network(s.delegated_prefix) for s in subs]
    assert all(w.prefixlen == 64 and w.subnet_of(wan_pool) for w in wans)
    assert all(p.prefixlen == 56 and p.subnet_of(pd_pool) for p in pds)
    assert len(set(wans)) == len(set(pds)) == len(subs)
    for s in subs[:3] + subs[-3:]:
        wan, lan = memif.addresses6(s)
        assert ipaddress.ip_address(wan) in ipaddress.ip_network(s.ipv6_prefix)
        assert ipaddress.ip_address(lan) in ipaddress.ip_network(s.delegated_prefix)
    assert all(s.ipv4 for s in subs)
    assert not any(s.ipv4 for s in memif.subscribers(4, family="6"))
    assert not any(s.has_ipv6 for s in memif.subscribers(4, family="4"))
    with pytest.raises(ValueError):
        memif.subscribers(4, family="5")


@pytest.mark.parametrize("family", memif.FAMILIES)
def test_min_frames_are_what_the_generator_sends(family):
    s = streams.Session("access1", 100, 1, 0x8100, 0x100, "02:11:00:00:00:01", memif.AC_MAC, "100.80.0.4")
    up4, down4 = (
        streams.upstream(s, memif.DST4, 0, 0, 1),
        streams.downstream(s, "02:aa:00:00:00:01", memif.CORE_MAC, memif.DST4, 0, 1, 1),
    )
    up6 = streams.upstream6(s, "2001:db8:100:1::2", memif.DST6, 0, 0, 1)
    down6 = streams.downstream6("2001:db8:100:1::2", "02:aa:00:00:00:01", memif.CORE_MAC, memif.ROUTER6_ADDR, 0, 1, 1)
    ups = {"4": [up4], "6": [up6], "both": [up4, up6]}[family]
    downs = {"4": [down4], "6": [down6], "both": [down4, down6]}[family]
    min_up, min_core = memif.min_frames(family)
    # with FCS; the core frame of a downstream stream at the smallest access size asked
    assert statistics.mean(streams.frame_len(x, 64) + streams.FCS for x in ups) == min_up
    assert statistics.mean(streams.frame_len(x, 64) + streams.FCS for x in downs) == min_core

"""PFCP on the wire, without a DP process or root.

- The messages bng-dp's C code produces (server-dp/build/tests/pfcp-encode-samples: the CP
  builders and the user-plane function's own answers, heartbeats and reports) and the ones
  the independent Python CP (tests/harness/pfcp_cp.py, scapy) produces are written into a pcap (UDP 8805
  over IPv4) and dissected by tshark: nothing malformed, and every BBF IE decodes with the
  intended field names and values.
- The Python CP runs against the C user-plane function through
  server-dp/build/tests/pfcp-up-pipe (stdin/stdout, a fake data path): association,
  sessions, retransmission, CoA, usage reports, LCP dead, deletion, the default session,
  refusals. Every datagram of that exchange is dissected too.

Needs tshark and `ninja -C server-dp/build`; skipped without them (failed under
BNGPOD_REQUIRE_POD=1)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from harness.pfcp_cp import (
    REPORT_UPIR,
    URT_IMMER,
    URT_PERIO,
    URT_TERMR,
    Cp,
    Sub,
    ntp,
)
from harness.tshark import clean, dissect, one, vals

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "server-dp" / "build" / "tests"
SAMPLES = BUILD / "pfcp-encode-samples"
PIPE = BUILD / "pfcp-up-pipe"
RECOVERY_UNIX = 1700000000  # the pipe's and the samples' recovery time stamp


def _need(ok: bool, why: str) -> None:
    if not ok:
        if os.environ.get("BNGPOD_REQUIRE_POD") == "1":
            pytest.fail(why)
        pytest.skip(why)


@pytest.fixture(scope="module")
def tools():
    _need(shutil.which("tshark") is not None, "tshark is not installed")
    _need(SAMPLES.exists() and PIPE.exists(), f"{BUILD} has no pfcp-encode-samples / pfcp-up-pipe")


@pytest.fixture(scope="module")
def samples(tools) -> dict[str, list[bytes]]:
    out = subprocess.run([str(SAMPLES)], check=True, capture_output=True, text=True, timeout=30).stdout
    got: dict[str, list[bytes]] = {}
    for line in out.splitlines():
        name, hx = line.split()
        got.setdefault(name, []).append(bytes.fromhex(hx))
    return got


# ---- what a bngpod message must show in tshark ------------------------------------------------


def check_subscriber_establishment(f, sub: Sub) -> None:
    """The TR-459 IEs of a subscriber's Session Establishment Request."""
    clean(f)
    assert one(f, "pfcp.msg_type") == "50"
    assert one(f, "pfcp.bbf.logical_port_id_str") == sub.logical_port
    assert one(f, "pfcp.bbf.pppoe_session_id") == f"0x{sub.sid:04x}"
    assert one(f, "pfcp.bbf.protocol_flags.specific") == "1"
    assert one(f, "pfcp.bbf.protocol_flags.data") == "0"
    assert one(f, "pfcp.bbf.protocol_flags.control") == "0"
    assert one(f, "pfcp.bbf.protocol_flags.protocol") == "0x0021"
    assert one(f, "pfcp.bbf.out_hdr_desc") == "3"  # PPP/PPPoE/Ethernet
    assert one(f, "pfcp.bbf.outer_hdr_desc") == "512"  # Traffic-Endpoint
    assert one(f, "pfcp.bbf.outer_hdr_creation.tunnel_id") == "0x0000"
    assert one(f, "pfcp.bbf.outer_hdr_creation.session_id") == f"0x{sub.sid:04x}"
    assert one(f, "pfcp.s_tag.svid") == f"0x{sub.stag:04x}"
    assert one(f, "pfcp.c_tag.cvid") == f"0x{sub.ctag:04x}"
    assert one(f, "pfcp.mac_address.sour") == sub.mac
    assert one(f, "pfcp.ethertype") == "0x8864"
    assert one(f, "pfcp.ue_ip_addr_ipv4") == sub.ipv4
    assert vals(f, "pfcp.source_interface") == ["0", "1"]
    assert vals(f, "pfcp.dst_interface") == ["1", "0"]
    assert one(f, "pfcp.forwarding_policy_id") == sub.qos.encode().hex(":")  # FT_BYTES
    assert one(f, "pfcp.ul_mbr") == str(sub.mbr_ul)
    assert one(f, "pfcp.dl_mbr") == str(sub.mbr_dl)
    assert one(f, "pfcp.ul_gbr") == str(sub.gbr_ul)
    assert one(f, "pfcp.measurement_period") == str(sub.urr_period)
    assert one(f, "pfcp.bbf.mtu") == str(sub.mtu)
    assert one(f, "pfcp.bbf.verification_timer.interval") == str(sub.echo_interval)
    assert one(f, "pfcp.bbf.verification_timer.count") == str(sub.echo_misses)
    assert one(f, "pfcp.bbf.lcp_magic_number.tx") == f"0x{sub.lcp_magic:08x}"
    assert one(f, "pfcp.bbf.lcp_magic_number.rx") == f"0x{sub.lcp_peer_magic:08x}"
    assert vals(f, "pfcp.enterprise_id") == ["3561"] * 9


def check_default_session(f, cp_ip: str, port: int) -> None:
    clean(f)
    assert vals(f, "pfcp.ethertype") == ["0x8863", "0x8864", "0x8864"]
    assert one(f, "pfcp.bbf.protocol_flags.control") == "1"
    assert one(f, "pfcp.dst_interface") == "3"  # CP-function
    assert one(f, "pfcp.outer_hdr_creation.ipv4") == cp_ip
    assert one(f, "pfcp.outer_hdr_creation.port") == str(port)


def check_assoc_response(f, ipoe: bool) -> None:
    clean(f)
    assert one(f, "pfcp.msg_type") == "6"
    assert one(f, "pfcp.cause") == "1"
    assert one(f, "pfcp.node_id_ipv4") == "10.200.0.11"
    assert one(f, "pfcp.bbf.up_function_features.pppoe") == "1"
    assert one(f, "pfcp.bbf.up_function_features.lcp_keepalive_offload") == "1"
    # bng-dp and pfcp-up-pipe announce IPoE (issue 19); the encoder sample is the PPPoE-only form
    assert one(f, "pfcp.bbf.up_function_features.ipoe") == ("1" if ipoe else "0")
    assert one(f, "pfcp.bbf.up_function_features.lac") == "0"
    assert one(f, "pfcp.up_function_features.mnop") == "1"
    assert one(f, "pfcp.enterprise_id") == "3561"
    assert "2023" in one(f, "pfcp.recovery_time_stamp")  # Unix 1700000000 = 2023-11-14


def check_lcp_dead(f, sub: Sub) -> None:
    clean(f)
    assert one(f, "pfcp.msg_type") == "56"
    assert one(f, "pfcp.report_type.upir") == "1"
    assert one(f, "pfcp.report_type.usar") == "0"
    assert one(f, "pfcp.bbf.verification_timer.interval") == str(sub.echo_interval)
    assert one(f, "pfcp.bbf.verification_timer.count") == str(sub.echo_misses)
    assert one(f, "pfcp.bbf.lcp_magic_number.tx") == f"0x{sub.lcp_magic:08x}"
    assert one(f, "pfcp.bbf.lcp_magic_number.rx") == f"0x{sub.lcp_peer_magic:08x}"


SAMPLE_SUB = Sub(
    mtu=1492,
    mbr_ul=10000,
    mbr_dl=50000,
    gbr_ul=2000,
    qos="gold",
    lcp_magic=0x11223344,
    lcp_peer_magic=0x55667788,
    echo_interval=30,
    echo_misses=3,
    urr_period=60,
)


# ---- the C code's messages -----------------------------------------------------------------


def test_c_messages_decode_as_intended(samples, tmp_path):
    names = [n for n in samples for _ in samples[n]]
    msgs = [(m, n.startswith("cp_")) for n in samples for m in samples[n]]
    pkts = dict(zip(names, dissect(tmp_path, msgs), strict=True))
    for name, f in pkts.items():
        clean(f)
        assert vals(f, "pfcp.version") == ["1"], name
    check_subscriber_establishment(pkts["cp_session_establishment_req"], SAMPLE_SUB)
    check_default_session(pkts["cp_default_session_req"], "10.200.0.1", 4789)
    check_assoc_response(pkts["up_assoc_setup_rsp"], ipoe=False)
    check_lcp_dead(pkts["up_session_report_req_lcp_dead"], SAMPLE_SUB)

    f = pkts["cp_lcp_off_req"]  # LCP offload off: the connectivity IE with no value
    assert one(f, "pfcp.enterprise_ie") == "32780" and vals(f, "pfcp.ie_len") == ["2"]

    f = pkts["up_session_establishment_rsp"]
    assert one(f, "pfcp.cause") == "1" and one(f, "pfcp.f_seid.ipv4") == "10.200.0.11"
    assert vals(f, "pfcp.seid")[0] == "0x0000000000001001"  # the CP's SEID in the header

    f = pkts["up_session_establishment_rsp_67"]  # no S-TAG
    assert one(f, "pfcp.cause") == "67" and one(f, "pfcp.offending_ie") == "135"
    f = pkts["up_session_establishment_rsp_73"]  # duplicate PDR ID
    assert one(f, "pfcp.cause") == "73" and one(f, "pfcp.failed_rule_id_type") == "0"
    f = pkts["up_session_modification_rsp_65"]
    assert one(f, "pfcp.cause") == "65" and one(f, "pfcp.seid") == "0x0000000000000000"
    assert one(pkts["up_session_establishment_rsp_72"], "pfcp.cause") == "72"
    assert one(pkts["up_version_not_supported_rsp"], "pfcp.msg_type") == "11"

    f = pkts["up_session_report_req_usage"]
    assert one(f, "pfcp.report_type.usar") == "1"
    assert one(f, "pfcp.usage_report_trigger_flags.perio") == "1"
    assert one(f, "pfcp.volume_measurement.ulvol") == "1000"
    assert one(f, "pfcp.volume_measurement.dlvol") == "5000"
    assert one(f, "pfcp.volume_measurement.tovol") == "6000"
    assert one(f, "pfcp.volume_measurement.ulnop") == "10"
    assert one(f, "pfcp.volume_measurement.dlnop") == "50"
    assert one(f, "pfcp.volume_measurement.tonop") == "60"
    assert one(f, "pfcp.duration_measurement") == "60"
    # bngpod's Dropped Packets IE inside the Usage Report: an enterprise IE of PEN 32473
    assert "32771" in vals(f, "pfcp.enterprise_ie") and "32473" in vals(f, "pfcp.enterprise_id")
    f = pkts["up_session_deletion_rsp"]
    assert one(f, "pfcp.usage_report_trigger.term") == "1"
    f = pkts["up_session_modification_rsp"]
    assert one(f, "pfcp.usage_report_trigger.immer") == "1"


# ---- the Python CP against the C user-plane function ----------------------------------------


class PipeDp:
    """A datagram socket whose peer is pfcp-up-pipe: sendto() is a datagram from the CP,
    recvfrom() returns what the UP function sent. Time is the `now` attribute (ms)."""

    def __init__(self):
        self.proc = subprocess.Popen([str(PIPE)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.queue: list[bytes] = []
        self.now = 0
        self.log: list[tuple[bytes, bool]] = []  # every datagram, (bytes, from the CP?)

    def cmd(self, line: str) -> list[str]:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        out = []
        while True:
            got = self.proc.stdout.readline()
            assert got, "pfcp-up-pipe exited"
            got = got.strip()
            if got == "ok":
                return out
            if got.startswith("tx "):
                _, ip, port, hx = got.split()
                assert (ip, port) == ("10.200.0.1", "8805")
                self.queue.append(bytes.fromhex(hx))
                self.log.append((bytes.fromhex(hx), False))
            out.append(got)

    def state(self) -> dict:
        line = self.cmd("state")[0]
        return json.loads(line.split(" ", 1)[1])

    def tick(self, now: int) -> None:
        self.now = now
        self.cmd(f"tick {now}")

    # the socket interface Cp uses
    def sendto(self, data: bytes, addr) -> None:
        assert addr == ("10.200.0.11", 8805)
        self.log.append((data, True))
        self.cmd(f"rx {self.now} {data.hex()}")

    def settimeout(self, t: float) -> None:
        pass

    def recvfrom(self, n: int):
        if not self.queue:
            raise TimeoutError
        return self.queue.pop(0), ("10.200.0.11", 8805)

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=10)


@pytest.fixture
def pipe(tools):
    p = PipeDp()
    try:
        yield p
    finally:
        p.close()


def test_python_cp_against_the_c_up_function(pipe, samples, tmp_path):
    cp = Cp(pipe, t1=0.01, recovery=ntp(1600000000))
    assert cp.associate() == 1
    assert cp.dp_recovery == ntp(RECOVERY_UNIX)
    assert cp.dp_features == {"pppoe": True, "lcp_keepalive_offload": True}
    assert cp.heartbeat() == ntp(RECOVERY_UNIX)

    # a subscriber: every field reaches the data path
    pipe.now = 100000
    cp_seid, up_seid, cause = cp.establish(SAMPLE_SUB, cp_seid=0x1001)
    assert cause == 1 and up_seid != 0
    est_request = cp.last_request
    st = pipe.state()
    assert st["installs"] == 1 and st["live"] == 1 and st["sub_sessions"] == 1
    assert st["sub"] == {
        "logical_port": "access1",
        "stag": 100,
        "ctag": 7,
        "mac": "02:11:00:00:00:07",
        "sid": 0x0107,
        "ipv4": "100.80.0.7",
        "mtu": 1492,
        "mbr_ul": 10_000_000,
        "mbr_dl": 50_000_000,
        "gbr_ul": 2_000_000,
        "gbr_dl": 0,
        "qos": "gold",
        "lcp_offload": True,
        "lcp_magic": 0x11223344,
        "lcp_peer_magic": 0x55667788,
        "echo_interval": 30,
        "echo_misses": 3,
        "urr_period": 60,
        "has_ipv4": True,
        "has_ipv6": False,
        "prefixes6": [],
        "ra": {"on": False, "interval": 0, "lifetime": 0, "flags": 0, "mtu": 0, "dns": 0},
        "arp_ping_interval": 0,  # IPoE liveness: a PPPoE session has none
        "arp_ping_count": 0,
    }
    # two independent encoders agree byte for byte (sequence number and CP SEID aside)
    c_est = bytearray(samples["cp_session_establishment_req"][0])
    c_est[12:15] = est_request[12:15]
    assert bytes(c_est) == est_request

    # a retransmission is answered from the cache, not applied again
    before = len(pipe.queue)
    pipe.sendto(est_request, ("10.200.0.11", 8805))
    assert len(pipe.queue) == before + 1
    assert pipe.queue.pop()[:4] == bytes([0x21, 51, 0, 43])
    st = pipe.state()
    assert st["installs"] == 1 and st["retrans_rx"] == 1

    # periodic usage, then LCP keepalive failure, both reported to the CP
    pipe.cmd("usage 0 10 1000 50 5000 0 0 0 0 3 4 180 4400")  # and 3 / 4 packets dropped, their octets
    pipe.tick(160000)
    r = cp.expect_report(timeout=0.1)
    assert r.seid == cp_seid and len(r.usage) == 1 and not r.lcp_dead
    u = r.usage[0]
    assert (u.ul_dropped, u.dl_dropped) == (3, 4)
    assert (u.ul_dropped_bytes, u.dl_dropped_bytes) == (180, 4400)
    assert u.trigger == URT_PERIO and (u.ul_bytes, u.dl_bytes, u.total_bytes) == (1000, 5000, 6000)
    assert (u.ul_pkts, u.dl_pkts, u.total_pkts) == (10, 50, 60)
    assert (u.start, u.end, u.duration) == (ntp(RECOVERY_UNIX + 100), ntp(RECOVERY_UNIX + 160), 60)
    pipe.cmd(f"dead 0 {pipe.now}")
    r = cp.expect_report(timeout=0.1)
    assert r.lcp_dead and r.report_type == REPORT_UPIR
    assert r.lcp == {"interval": 30, "count": 3, "magic_tx": 0x11223344, "magic_rx": 0x55667788}
    assert pipe.state()["pending"] == 0  # both acknowledged by the Python CP

    # a CoA: new profile and rates, and a usage query
    pipe.cmd("usage 0 15 1500 50 5000")
    cause, usage = cp.modify(up_seid, qos="silver", mbr_ul=20000, mbr_dl=100000, query=True)
    assert cause == 1 and len(usage) == 1
    assert usage[0].trigger == URT_IMMER and usage[0].ul_bytes == 500 and usage[0].dl_bytes == 0
    st = pipe.state()
    assert st["modifies"] == 1 and st["last_changed"] == 0x04 | 0x08  # rates, QoS profile
    assert st["sub"]["qos"] == "silver" and st["sub"]["mbr_dl"] == 100_000_000
    # LCP offload off (null-length connectivity IE), MTU change
    assert cp.modify(up_seid, lcp=False, mtu=1500)[0] == 1
    st = pipe.state()
    assert not st["sub"]["lcp_offload"] and st["sub"]["mtu"] == 1500 and st["last_changed"] == 0x10 | 0x02

    # refusals: cause and offending IE
    bad = Sub(ctag=8, sid=0x0108, mac="02:11:00:00:00:08", ipv4="100.80.0.8", mtu=100)
    assert cp.establish(bad)[2] == 69
    pipe.cmd("fail 2")  # ENOENT from the data path: unknown QoS profile
    assert cp.establish(Sub(ctag=9, qos="nope"))[2] == 70
    pipe.cmd("fail 28")  # ENOSPC
    assert cp.establish(Sub(ctag=10))[2] == 75
    pipe.cmd("fail 0")
    assert cp.modify(0xDEAD)[0] == 65
    assert pipe.state()["live"] == 1

    # deletion: the final usage
    pipe.cmd("usage 0 20 2000 60 6000")
    cause, usage = cp.delete(up_seid)
    assert cause == 1 and len(usage) == 1 and usage[0].trigger == URT_TERMR
    assert (usage[0].ul_bytes, usage[0].dl_bytes) == (500, 1000)
    assert pipe.state()["live"] == 0

    # the default session turns the control redirect to the CP, its deletion back to the fallback
    d_cp, d_up, cause = cp.default_session("10.200.0.1", 4789)
    assert cause == 1
    st = pipe.state()
    assert st["redirect"] == {"cp_ip": "10.200.0.1", "port": 4789, "classes": 7, "fallback": False}
    assert cp.delete(d_up)[0] == 1
    assert pipe.state()["redirect"]["fallback"] is True
    assert cp.default_session("10.200.0.1", 4789, classes=("discovery", "control"))[2] == 1
    assert pipe.state()["redirect"]["classes"] == 3

    # a release deletes everything
    assert cp.establish(Sub(ctag=11))[2] == 1
    assert cp.release() == 1
    st = pipe.state()
    assert st["live"] == 0 and st["sessions"] == 0 and st["cp_state"] == 0

    # every datagram of the exchange, both ways, decodes cleanly in tshark
    pkts = dissect(tmp_path, pipe.log)
    for f in pkts:
        clean(f)
    ests = [f for f, (m, from_cp) in zip(pkts, pipe.log, strict=True) if from_cp and m[1] == 50]
    check_subscriber_establishment(ests[0], SAMPLE_SUB)
    check_default_session([f for f in ests if "3" in vals(f, "pfcp.dst_interface")][0], "10.200.0.1", 4789)
    rsps = [f for f, (m, from_cp) in zip(pkts, pipe.log, strict=True) if not from_cp and m[1] == 6]
    check_assoc_response(rsps[0], ipoe=True)
    dead = [
        f for f, (m, _) in zip(pkts, pipe.log, strict=True) if m[1] == 56 and vals(f, "pfcp.report_type.upir") == ["1"]
    ]
    check_lcp_dead(dead[0], SAMPLE_SUB)


def test_python_cp_dual_stack_against_the_c_up_function(pipe):
    """The Python CP's dual-stack and IPv6-only sessions (docs/dp/pfcp.md "Dual stack") reach
    the C user-plane function's data path whole; per-family URRs report exactly."""
    cp = Cp(pipe, t1=0.01, recovery=ntp(1600000000))
    assert cp.associate() == 1
    pipe.now = 200000
    sub = Sub(
        ctag=70,
        sid=0x0170,
        mac="02:11:00:00:00:70",
        ipv6_prefix="2001:db8:100:70::/64",
        delegated_prefix="2001:db8:200:7000::/56",
        urr_period=600,
        ra={"interval": 200, "lifetime": 1800, "flags": 0x40, "mtu": 1492, "dns": ("2001:db8::53",)},
    )
    _, up_seid, cause = cp.establish(sub, cp_seid=0x7001)
    assert cause == 1
    st = pipe.state()["sub"]
    assert st["has_ipv4"] and st["has_ipv6"] and st["ipv4"] == "100.80.0.7"
    assert st["prefixes6"] == ["2001:db8:100:70::/64", "2001:db8:200:7000::/56"]
    assert st["ra"] == {"on": True, "interval": 200, "lifetime": 1800, "flags": 0x40, "mtu": 1492, "dns": 1}
    # usage: totals 1000/5000 bytes, of which IPv6 600/2500
    pipe.cmd(f"usage {pipe.state()['last_handle']} 10 1000 20 5000 4 600 5 2500")
    cause, usage = cp.delete(up_seid)
    assert cause == 1
    by = {u.urr_id: u for u in usage}
    assert (by[1].ul_bytes, by[1].dl_bytes) == (1000, 5000)
    assert (by[2].ul_bytes, by[2].dl_bytes, by[2].ul_pkts) == (400, 2500, 6)
    assert (by[3].ul_bytes, by[3].dl_bytes, by[3].dl_pkts) == (600, 2500, 5)
    # an IPv6-only session
    v6only = Sub(ctag=71, sid=0x0171, mac="02:11:00:00:00:71", ipv4=None, ipv6_prefix="2001:db8:100:71::/64")
    _, up_seid, cause = cp.establish(v6only, cp_seid=0x7002)
    assert cause == 1
    st = pipe.state()["sub"]
    assert not st["has_ipv4"] and st["ipv4"].split(".") == ["0"] * 4
    assert st["prefixes6"] == ["2001:db8:100:71::/64"]
    assert cp.delete(up_seid)[0] == 1

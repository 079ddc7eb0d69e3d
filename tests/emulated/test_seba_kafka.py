"""org.bngpod.seba's own Kafka publisher in the emulated pod (issue 16, docs/seba.md): the lab
pod with `seba: {kafka: true}` in controller mode, so `bngpod up` starts the KRaft broker and
the controller runs SebaPodController, which loads KafkaOssPublisher beside the app's BNG
services (no kafka-onos in that pod). The seba netcfg pushed to the lab side points the
publisher's `kafka` section at the pod's broker and shortens `statsPeriod` to 1 s; bng-cp
reports usage every 2 s (its accounting interim). SADIS's BBSim entry BBSM00000001-1 and the
olt app's UNI_ADDED map the OLT UNI onto lg1's line S100 C900; bng-subemu dials that line,
sends UDP echo traffic to the inet host and hangs up. A real Kafka consumer (kafka-clients,
tests/emulated/kafka/KafkaTopics.java, in bngpod-mgmt) reads both topics from the broker:

- `bng.pppoe`: SESSION_INIT, AUTH_SUCCESS (bng-cp's steps), SESSION_CONFIRMATION, IPCP_CONF_ACK
  (the session up) and after the hang-up SESSION_TERMINATION, with kafka-onos's fields in its
  order and types: the OLT UNI's connect point from the UNI_ADDED (not the switch's port),
  the subscriber's MAC (upper case, as ONOS writes it), the address it got (0.0.0.0 before),
  SADIS's ONU serial, the PPPoE session id as a string ("" at SESSION_INIT, before there is
  one; bng-api's short, so negative above 32767), an ISO-8601 UTC timestamp, no key;
- `bng.stats`: one record a second for that session, its counters never falling, the last
  one consistent with what bng-subemu sent and received (loose bounds: the reading lags by
  an interim), octets per packet those of bng-subemu's datagrams, no drops at this light
  rate, and the control-plane counter in every record (kafka-onos reads it unconditionally).
"""

from __future__ import annotations

import ipaddress
import json
import re
import signal
import subprocess
import time
from datetime import datetime
from pathlib import Path

import pytest
from harness import podenv

from bngpod import binaries, clients, emu
from bngpod.launch import kafka
from bngpod.network import MGMT_NS

from .sebalab import (
    CTAG,
    OLT,
    ONU_SERIAL,
    STAG,
    UNI_PORT,
    lab,
    netcfg,
    put_sadis,
    seba_pod,
    uni_event,
    wait,
    wait_mapped,
)

pytestmark = pytest.mark.pod

CONSUMER = Path(__file__).resolve().parent / "kafka" / "KafkaTopics.java"
USER, PASSWORD = "seba-kafka-1", "pw-seba-kafka-1"
MAC = "02:5b:00:00:00:01"  # bng-subemu's MAC of the first subscriber of its users file
ONOS_MAC = MAC.upper()  # as ONOS's MacAddress.toString() writes it (kafka-onos too)
NO_ADDRESS = str(ipaddress.IPv4Address(0))  # kafka-onos's ipAddress before the session has one
RATE, SIZE = 50, 64  # UDP datagrams per second to the inet host's echo server, payload bytes
TRAFFIC_S = 8.0
PPPOE_FIELDS = ["timestamp", "eventType", "deviceId", "portNumber", "macAddress", "ipAddress", "serialNumber",
                "sessionId"]  # fmt: skip
# kafka-onos's BngStatsKafkaIntegration: the counters bngpod gives (no RX: not counted by bng-dp)
STATS_FIELDS = ["macAddress", "ipAddress", "pppoeSessionId", "sTag", "cTag", "onuSerialNumber", "attachmentType",
                "deviceId", "portNumber", "upTxBytes", "upTxPackets", "upDropBytes", "upDropPackets",
                "downTxBytes", "downTxPackets", "downDropBytes", "downDropPackets", "controlPackets",
                "timestamp"]  # fmt: skip
ISO_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")


@pytest.fixture(scope="module")
def pod(pod_prereqs, tmp_path_factory):
    podenv.require("the pod's Kafka broker", kafka.missing())
    with seba_pod(tmp_path_factory.mktemp("seba-kafka"), "{kafka: true}", {USER: PASSWORD},
                  cp_options={"interim": "2s"}) as up:  # fmt: skip
        yield up


def consume(bootstrap: str) -> subprocess.Popen:
    """The real Kafka consumer in bngpod-mgmt, reading bng.pppoe until a SESSION_TERMINATION
    and bng.stats (at most 100 s): lines TOPIC, KEY, VALUE."""
    cp = kafka.CLASSPATH_FILE.read_text().strip()
    return subprocess.Popen(
        ["ip", "netns", "exec", MGMT_NS, "java", "-cp", cp, str(CONSUMER), bootstrap, "100",
         "bng.pppoe~SESSION_TERMINATION", "bng.stats"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def subemu(pod, work: Path) -> tuple[subprocess.Popen, Path, Path]:
    """bng-subemu in access1's namespace dialling USER on S100 C900 (no redial), UDP echo
    traffic to the inet host; its status socket and its JSON lines."""
    port = pod.port("access1")
    users = work / "users.json"
    users.write_text(json.dumps([{"user": USER, "password": PASSWORD, "line_group": "lg1", "port": "access1",
                                  "stag": STAG, "ctag": CTAG, "tpid": f"{port.tpid:#06x}"}]))  # fmt: skip
    status, out = work / "subemu.sock", work / "subemu.jsonl"
    cmd = [
        str(binaries.BNG_SUBEMU), "--iface", "sub0", "--subscribers", str(users), "--port", "access1",
        "--status", str(status), "--json-every", "1s", "--strict", "--no-redial",
        "--rate", str(RATE), "--size", str(SIZE), "--target", f"{emu.INET_HOST}:7",
    ]  # fmt: skip
    with open(out, "wb") as stdout, open(work / "subemu.log", "wb") as stderr:
        proc = subprocess.Popen(["ip", "netns", "exec", emu.access_ns(port), *cmd], stdin=subprocess.DEVNULL,
                                stdout=stdout, stderr=stderr, start_new_session=True)  # fmt: skip
    return proc, status, out


def session_of(status: Path) -> dict | None:
    try:
        sessions = clients.unix_get(status, "/v1/sessions", 2.0)
    except (OSError, ValueError):
        return None
    return next((s for s in sessions if s.get("state") == "up" and s.get("address")), None)


def records(lines: str) -> list[tuple[str, str, dict]]:
    out = []
    for line in lines.splitlines():
        topic, key, value = line.split("\t", 2)
        out.append((topic, key, json.loads(value)))
    return out


def test_bng_topics_from_the_running_pod(pod, tmp_path):
    from bngpod import controller as files

    bootstrap = kafka.bootstrap(pod)
    put_sadis(pod)
    lab(pod, "POST", "/netcfg", netcfg(statsPeriod=1, kafka={"bootstrapServers": bootstrap}))
    uni_event(pod, "UNI_ADDED")
    line = wait_mapped(pod)
    assert (line["uni"]["deviceId"], line["uni"]["port"]) == (OLT, str(UNI_PORT)), line
    consumer = consume(bootstrap)  # its JVM starts while the subscriber dials
    proc = None
    try:
        # bng-cp reports PPPoE steps only on lines of the table it pulled (at start; every 30 s)
        emu.stop_cp()
        emu.start_cp()
        wait("bng-cp's pull of the table", lambda: emu.cp_metrics(pod).get("bngcp_onos_subscribers") == 1)
        proc, status, out = subemu(pod, tmp_path)
        sub = wait("the subscriber's session up", lambda: session_of(status), timeout=40)
        print("bng-subemu session:", json.dumps(sub))
        address, pppoe_id = sub["address"], sub["pppoe_id"]
        assert sub["mac"] == MAC, sub

        # traffic both ways, and org.bngpod.app holding usage readings of it (bng-cp's interims)
        def usage():
            st, body = emu.controller_api(pod, "GET", "/sessions", user=files.VIEWER_USER)
            s = [x for x in body.get("sessions", []) if x.get("username") == USER] if st == 200 else []
            return s[0]["usage"] if s and s[0]["usage"]["upPackets"] >= RATE * TRAFFIC_S * 0.5 else None

        print("usage in org.bngpod.app:", json.dumps(wait("usage readings of the traffic", usage, timeout=40)))
        time.sleep(1.5)  # a bng.stats reading of it (statsPeriod 1 s)
        before = session_of(status)
        assert before and before["tx_pkts"] > 0 and before["rx_pkts"] > 0, before
        # hang up: LCP Terminate-Request and PADT
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
        final = json.loads(out.read_text().splitlines()[-1])
        assert final["type"] == "final" and final["tx_pkts"] >= before["tx_pkts"], final
        rc = consumer.wait(110)
        got, err = consumer.communicate()
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        if consumer.poll() is None:
            consumer.kill()
            consumer.communicate()
    print(got)
    assert rc == 0, f"the consumer did not read both topics ({rc}): {err[-3000:]}"
    recs = records(got)
    assert all(key == "null" for _, key, _ in recs), "kafka-onos sends no record key"
    # the only subscriber of the pod: nothing else on either topic
    assert all(v["macAddress"] == ONOS_MAC for _, _, v in recs), recs

    # bng.pppoe: the session's steps in order, as kafka-onos writes them
    pppoe = [v for t, _, v in recs if t == "bng.pppoe" and v["macAddress"] == ONOS_MAC]
    assert [e["eventType"] for e in pppoe] == [
        "SESSION_INIT", "AUTH_SUCCESS", "SESSION_CONFIRMATION", "IPCP_CONF_ACK", "SESSION_TERMINATION",
    ], pppoe  # fmt: skip
    for e in pppoe:
        assert list(e) == PPPOE_FIELDS, e
        assert all(isinstance(v, str) for v in e.values()), e
        assert ISO_UTC.match(e["timestamp"]), e
        # the OLT UNI of the UNI_ADDED, not access1 of the switch
        assert (e["deviceId"], e["portNumber"], e["serialNumber"]) == (OLT, str(UNI_PORT), ONU_SERIAL), e
    times = [datetime.fromisoformat(e["timestamp"].replace("Z", "+00:00")) for e in pppoe]
    assert times == sorted(times), pppoe
    # before the PADS there is no session id, before IPCP no address; bng-api's session id
    # is a Java short, so an id above 32767 reads negative, as kafka-onos writes it
    sid = pppoe_id - 65536 if pppoe_id > 32767 else pppoe_id
    assert [(e["sessionId"], e["ipAddress"]) for e in pppoe[:2]] == [("", NO_ADDRESS), (str(sid), NO_ADDRESS)]
    assert all((e["sessionId"], e["ipAddress"]) == (str(sid), address) for e in pppoe[2:]), pppoe

    # bng.stats: the session's readings
    stats = [v for t, _, v in recs if t == "bng.stats" and v["macAddress"] == ONOS_MAC]
    assert len(stats) >= 3, stats
    for r in stats:
        assert list(r) == STATS_FIELDS, r
        assert (r["ipAddress"], r["pppoeSessionId"], r["sTag"], r["cTag"]) == (address, sid, STAG, CTAG), r
        assert (r["onuSerialNumber"], r["attachmentType"]) == (ONU_SERIAL, "PPPoE"), r
        assert (r["deviceId"], r["portNumber"]) == (OLT, str(UNI_PORT)), r
        assert ISO_UTC.match(r["timestamp"]), r
        counters = [r[f] for f in STATS_FIELDS[9:18]]
        assert all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in counters), r
        assert r["upDropBytes"] == 0 and r["downDropBytes"] == 0, r  # bng-dp counts dropped packets only
        # the session's PPPoE/PPP control frames (PADR, PADS, LCP, PAP, IPCP both ways), from
        # the session-up report on
        assert r["controlPackets"] >= 8, r
    for field in STATS_FIELDS[9:18]:
        series = [r[field] for r in stats]
        assert series == sorted(series), (field, series)
    last = stats[-1]
    print("last bng.stats reading:", json.dumps(last), "bng-subemu final:", json.dumps(final))
    # what bng-dp forwarded of the session, up to the last interim before the hang-up
    assert RATE * TRAFFIC_S * 0.5 <= last["upTxPackets"] <= final["tx_pkts"], (last, final)
    assert 0.3 * final["rx_pkts"] <= last["downTxPackets"] <= last["upTxPackets"], (last, final)
    # octets from the IP header on: bng-subemu's IPv4 datagrams
    per_packet = final["tx_bytes"] // final["tx_pkts"]
    assert per_packet == SIZE + 28, final
    assert last["upTxBytes"] == last["upTxPackets"] * per_packet, last
    assert last["downTxBytes"] == last["downTxPackets"] * per_packet, last
    assert last["upDropPackets"] <= 0.05 * last["upTxPackets"], last
    assert last["downDropPackets"] <= 0.05 * last["downTxPackets"], last

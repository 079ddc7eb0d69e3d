"""`bngpod demo --seba`'s SEBA side without a pod (sebademo.py): the UNIs, SADIS documents and
netcfg it provisions, and its reading of the Kafka consumer's JSON lines. The whole run:
tests/emulated/test_demo.py."""

import json
from pathlib import Path

import pytest

from bngpod import sebademo, users, validate

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SEBA = validate.load(EXAMPLES / "seba.yaml")


def chosen(per_group: int = 6) -> list[dict]:
    return users.generate(SEBA, per_group)


def test_seba_example_has_the_broker_and_the_app():
    assert SEBA.seba and SEBA.kafka_port == 9092


def test_refuses_a_pod_without_seba_kafka():
    with pytest.raises(sebademo.SebaError, match=r"seba: \{kafka: true\}.*examples/seba.yaml"):
        sebademo.check(validate.load(EXAMPLES / "lab.yaml"), "lab.yaml")


def test_unis_as_bbsim_names_them():
    us = sebademo.unis(SEBA, chosen())
    # lg1 on access1 (OLT 0): S-tags 100-103 are its PON ports 0-3, C-tags its ONUs
    first = us[0]
    assert (first.user, first.port, first.stag, first.ctag) == ("lg1-1", "access1", 100, 1)
    assert (first.olt, first.serial, first.name, first.number) == ("of:00000a0a0a0a0a0a", "BBSM00000001",
                                                                   "BBSM00000001-1", 1 << 4)  # fmt: skip
    fifth = us[4]  # the second C-tag of S-tag 100: ONU 2 of PON 0
    assert (fifth.stag, fifth.ctag, fifth.serial, fifth.number) == (100, 2, "BBSM00000002", 2 << 4)
    second = us[1]  # S-tag 101: PON 1
    assert (second.serial, second.number) == ("BBSM00000101", 1 << 12 | 1 << 4)
    lg2 = [u for u in us if u.group == "lg2"]
    assert lg2[0].olt == "of:00000a0a0a0a0a0b" and lg2[0].serial == "BBSM00010001"
    assert len({u.key for u in us}) == len({u.name for u in us}) == len(us) == 12


def test_more_onus_than_a_pon_takes_is_refused():
    many = [{"user": f"u{i}", "line_group": "lg1", "port": "access1", "stag": 100, "ctag": i} for i in range(1, 257)]
    with pytest.raises(sebademo.SebaError, match="more than 255"):
        sebademo.unis(SEBA, many)


def test_sadis_documents_in_bbsims_format():
    u = sebademo.unis(SEBA, chosen())[0]
    doc = sebademo.subscriber(u, "silver")
    assert doc == {
        "id": "BBSM00000001-1", "nasPortId": "BBSM00000001-1", "circuitId": "BBSM00000001-1",
        "remoteId": "BBSM00000001",
        "uniTagList": [{"ponCTag": 1, "ponSTag": 100, "technologyProfileId": 64,
                        "upstreamBandwidthProfile": "silver-up", "downstreamBandwidthProfile": "silver-down",
                        "isPppoeRequired": True, "serviceName": "hsia"}],
    }  # fmt: skip
    profiles = {q.name: q for q in SEBA.qos_profiles}
    # IETF style, kbit/s and kbit: the QoS profile's peak as pir, its guaranteed rate as cir
    assert sebademo.bandwidth_profiles(profiles["silver"]) == [
        {"id": "silver-down", "cir": 0, "cbs": 0, "pir": 20000, "pbs": 400},
        {"id": "silver-up", "cir": 10000, "cbs": 200, "pir": 10000, "pbs": 200},
    ]
    assert sebademo.bandwidth_profiles(profiles["gold"])[1] == {
        "id": "gold-up", "cir": 20000, "cbs": 400, "pir": 50000, "pbs": 1000,
    }  # fmt: skip


def test_requests_profiles_entries_netcfg_then_uni_added():
    us = sebademo.unis(SEBA, chosen(2))
    reqs = sebademo.requests(SEBA, us)
    kinds = [(method, path.rsplit("/", 1)[0] if path.startswith("/sadis") else path) for method, path, _ in reqs]
    assert (
        kinds
        == [("PUT", "/sadis/bandwidthprofiles")] * 4
        + [("PUT", "/sadis/subscribers")] * 4
        + [("POST", "/netcfg")]
        + [("POST", "/olt/events")] * 4
    )
    netcfg = reqs[8][2]
    assert netcfg == {
        "olts": [{"deviceId": "of:00000a0a0a0a0a0a", "accessPort": "access1"},
                 {"deviceId": "of:00000a0a0a0a0a0b", "accessPort": "access2"}],
        "statsPeriod": 5, "holdDown": 10, "kafka": {"bootstrapServers": "10.200.0.1:9092"},
    }  # fmt: skip
    assert reqs[9][2] == {"type": "UNI_ADDED", "deviceId": us[0].olt, "port": us[0].number, "name": us[0].name}


def record(topic: str, value) -> str:
    return json.dumps({"topic": topic, "partition": 0, "offset": 0, "timestamp": 0, "value": json.dumps(value)})


def pppoe(u, kind: str, session: str = "17") -> str:
    return record("bng.pppoe", {"timestamp": "2026-12-06T18:00:00.123Z", "eventType": kind, "deviceId": u.olt,
                                "portNumber": str(u.number), "macAddress": "02:00:00:00:00:01",
                                "ipAddress": "100.80.0.2", "serialNumber": u.serial, "sessionId": session})  # fmt: skip


def test_oss_view_reads_what_is_new_and_counts_what_is_not_a_record(tmp_path):
    us = sebademo.unis(SEBA, chosen(1))
    a, b = us
    out = tmp_path / "tail.jsonl"
    stats = record("bng.stats", {"deviceId": a.olt, "portNumber": str(a.number), "pppoeSessionId": 17,
                                 "sTag": 100, "cTag": 1, "downTxBytes": 2000,
                                 "timestamp": "2026-12-06T18:00:05Z"})  # fmt: skip
    lines = ['{"assigned":["bng.pppoe-0","bng.stats-0"]}', pppoe(a, "SESSION_INIT"), pppoe(a, "SESSION_CONFIRMATION"),
             "not json", record("bng.pppoe", "a string, not an object"), stats]  # fmt: skip
    half = pppoe(b, "SESSION_CONFIRMATION")
    out.write_text("\n".join(lines) + "\n" + half[:30])
    view = sebademo.SebaView(out, us)
    view.poll()
    assert view.assigned and view.pppoe == 2 and view.bad == 2 and view.stats_records == 1
    assert view.confirmed() == {a.key} and view.with_stats() == {a.key}
    # bng-cp's sessions: a's with SADIS's identity, b's with the TR-101 tag's
    view.cp_sessions([
        {"state": "established", "access_port": a.port, "stag": a.stag, "ctag": a.ctag, "circuit_id": a.name,
         "remote_id": a.serial},
        {"state": "established", "access_port": b.port, "stag": b.stag, "ctag": b.ctag,
         "circuit_id": "olt1 eth 1/1:100.1", "remote_id": b.serial},
        {"state": "negotiating", "access_port": b.port, "stag": b.stag, "ctag": b.ctag, "circuit_id": b.name,
         "remote_id": b.serial},  # not up yet: not counted
    ])  # fmt: skip
    assert view.identified == {a.key}
    why = view.problems()
    assert "2 line(s)" in why[0] and f"{b.user}'s session has circuit id 'olt1 eth 1/1:100.1'" in why[1], why
    assert f"no session with the SADIS identity for 1 of 2 UNIs ({b.name}" in why[2], why
    assert f"SESSION_CONFIRMATION for 1 of 2 UNIs ({b.name}" in why[3], why
    assert f"bng.stats carried no record for 1 of 2 UNIs ({b.name}" in why[4], why

    with open(out, "a") as f:  # the rest of the half-written line, then the hang-up
        f.write(half[30:] + "\n" + pppoe(a, "SESSION_TERMINATION") + "\n")
    view.poll()
    assert view.confirmed() == {a.key, b.key} and view.terminated() == {a.key}
    assert view.types == {"SESSION_INIT": 1, "SESSION_CONFIRMATION": 2, "SESSION_TERMINATION": 1}
    with open(out, "a") as f:  # b dialled again after its termination: up, not ended
        f.write(pppoe(b, "SESSION_TERMINATION") + "\n" + pppoe(b, "SESSION_CONFIRMATION", "18") + "\n")
    view.poll()
    assert view.terminated() == {a.key}

    text = "\n".join(view.panel(SEBA, None, 10))
    assert "bng.pppoe: 6 records (SESSION_INIT 1, SESSION_CONFIRMATION 3, SESSION_TERMINATION 2)" in text, text
    assert a.name in text and "2000/0" in text, text

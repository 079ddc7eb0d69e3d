"""make bench-seba's pod files and SEBA documents, offline (no pod): each mode's pod file,
one SADIS entry and UNI_ADDED per dialled subscriber on its own line, the netcfg's OLTs."""

import sys
from pathlib import Path

import pytest
import yaml

from bngpod import users, validate

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import bench_seba as bs  # noqa: E402

BENCH = yaml.safe_load(bs.POD.read_text())


@pytest.mark.parametrize(("mode", "seba", "kafka_port"), [("off", False, None), ("seba", True, None),
                                                          ("seba+kafka", True, 9092)])  # fmt: skip
def test_pod_file_of_each_mode(mode, seba, kafka_port):
    result = validate.check(bs.pod_doc(BENCH, mode))
    assert not result.errors, result.errors
    pod = result.pod
    assert (pod.seba, pod.kafka_port) == (seba, kafka_port)
    assert "seba" not in BENCH  # the base is left as it is


def test_refusals():
    with pytest.raises(ValueError, match="seba section"):
        bs.pod_doc({**BENCH, "seba": {}}, "seba")
    for bad in ("", "off,off", "seba,kafka"):
        with pytest.raises(ValueError):
            bs.parse_modes(bad)
    assert bs.parse_modes("seba+kafka, off") == ["seba+kafka", "off"]
    assert bs.main(["--modes", "nope"]) == 64


def test_sadis_entries_and_netcfg():
    pod = validate.check(bs.pod_doc(BENCH, "seba+kafka")).pod
    subs = users.generate(pod, 250)
    entries = bs.sadis_entries(pod, subs)
    cfg = bs.netcfg(pod, kafka_on=True)
    olts = {o["deviceId"]: o["accessPort"] for o in cfg["olts"]}
    assert sorted(olts.values()) == ["access1", "access2", "access3", "access4"]
    assert cfg["kafka"] == {"bootstrapServers": "10.200.0.1:9092"}
    assert "kafka" not in bs.netcfg(pod, kafka_on=False)
    assert len({uni for uni, _, _ in entries}) == len({(e["deviceId"], e["port"]) for _, _, e in entries}) == 1000
    for u, (uni, doc, event) in zip(subs, entries, strict=True):
        (service,) = doc["uniTagList"]
        assert (service["ponSTag"], service["ponCTag"]) == (u["stag"], u["ctag"])
        assert doc["id"] == doc["nasPortId"] == doc["circuitId"] == event["name"] == uni
        assert olts[event["deviceId"]] == u["port"] and event["type"] == "UNI_ADDED"
        assert (service["upstreamBandwidthProfile"], service["downstreamBandwidthProfile"]) == (
            bs.UP_PROFILE, bs.DOWN_PROFILE)  # fmt: skip
    assert entries[0][0] == "BBSM00000001-1"

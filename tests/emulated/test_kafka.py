"""`seba: {kafka: true}` in the pod file: `bngpod up` starts a Kafka KRaft broker in
bngpod-mgmt on the control plane's address, a real Kafka client there produces to and
consumes from a topic through it, KafkaTail (the demo's consumer, launch/kafka.py start_tail)
prints those records as JSON lines, and `bngpod down` stops both."""

import copy
import json
import subprocess
import time
from pathlib import Path

import pytest
import yaml
from harness import podenv

from bngpod import emu, validate
from bngpod.launch import kafka
from bngpod.network import MGMT_NS

from .conftest import LAB

pytestmark = pytest.mark.pod
CLIENT = Path(__file__).resolve().parent / "kafka" / "KafkaRoundTrip.java"


def test_kafka_in_the_pod(pod_prereqs, tmp_path):
    podenv.require("the pod's Kafka broker", kafka.missing())
    podenv.require("KafkaTail", kafka.tail_missing())
    doc = copy.deepcopy(yaml.safe_load(Path(LAB).read_text()))
    doc["seba"] = {"kafka": True}
    source = tmp_path / "lab-kafka.yaml"
    source.write_text(yaml.safe_dump(doc))
    pod = validate.load(source)
    emu.down(quiet=True)
    state = emu.up(pod, str(source), dp=False, cp=False)
    try:
        broker = state.data["pids"]["kafka"]
        assert emu.alive(broker["pid"], broker["exe"])
        bootstrap = f"{pod.control_plane.address}:9092"
        assert state.data["kafka"] == {"bootstrap": bootstrap}
        records = [json.dumps({"eventType": "SESSION_CONFIRMATION", "sessionId": str(i)}) for i in (1, 2, 3)]
        records.append('not JSON: a "quoted" \\ backslash and\ta tab')  # KafkaTail quotes it
        cp = kafka.CLASSPATH_FILE.read_text().strip()
        run = subprocess.run(
            ["ip", "netns", "exec", MGMT_NS, "java", "-cp", cp, str(CLIENT), bootstrap, "bng.pppoe", *records],
            capture_output=True, text=True, timeout=240,
        )  # fmt: skip
        assert run.returncode == 0, run.stdout + run.stderr
        assert run.stdout.splitlines() == records
        assert emu.status()["processes"]["kafka"]["running"]

        # KafkaTail: the topic from its start, each record a JSON line with its value as a string
        out = tmp_path / "tail.jsonl"
        proc = kafka.start_tail(state, pod, "kafka-tail", "bngpod-test-tail", ["bng.pppoe"], out)
        deadline = time.monotonic() + 120
        lines = []
        while time.monotonic() < deadline and len(lines) < 1 + len(records) and proc.poll() is None:
            time.sleep(0.5)
            lines = [json.loads(x) for x in out.read_text().splitlines()]
        assert lines and lines[0] == {"assigned": ["bng.pppoe-0"]}, (lines, out.with_suffix(".log").read_text())
        got = lines[1:]
        assert [r["value"] for r in got] == records, lines
        assert [(r["topic"], r["partition"], r["offset"]) for r in got] == [("bng.pppoe", 0, i) for i in range(4)]
        assert state.data["pids"]["kafka-tail"]["pid"] == proc.pid and emu.alive(proc.pid, "java")
    finally:
        emu.down(quiet=True)
    assert not emu.alive(broker["pid"], broker["exe"]), "the broker still runs after down"
    assert not emu.alive(state.data["pids"]["kafka-tail"]["pid"], "java"), "KafkaTail still runs after down"
    assert not emu.stray_pids()

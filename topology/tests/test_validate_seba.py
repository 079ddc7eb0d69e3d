"""The pod file's seba section: the Kafka broker switch and its refusals."""

import copy
from pathlib import Path

import pytest
import yaml

from bngpod import validate

LAB = yaml.safe_load((Path(__file__).resolve().parents[1] / "examples" / "lab.yaml").read_text())


def checked(seba):
    doc = copy.deepcopy(LAB)
    if seba is not None:
        doc["seba"] = seba
    return validate.check(doc)


@pytest.mark.parametrize(
    ("seba", "port"),
    [
        (None, None),
        ({}, None),
        ({"kafka": False}, None),
        ({"kafka": True}, 9092),
        ({"kafka": True, "kafka_port": 19092}, 19092),
    ],
)
def test_kafka_port(seba, port):
    r = checked(seba)
    assert r.errors == [] and r.warnings == []
    assert r.pod.kafka_port == port


@pytest.mark.parametrize(
    ("seba", "where", "text"),
    [
        ({"kafka": "yes"}, "seba", "boolean"),
        ({"kafka": True, "kafka_port": 0}, "seba", ""),
        ({"kafka": True, "kafka_port": 70000}, "seba", ""),
        ({"kafka": True, "broker": 1}, "seba", "broker"),
        ({"kafka_port": 9092}, "seba.kafka_port", "needs seba.kafka: true"),
        ({"kafka": True, "kafka_port": 65535}, "seba.kafka_port", "above 65535"),
        ({"kafka": True, "kafka_port": 8180}, "seba.kafka_port", "controller's REST API"),
        ({"kafka": True, "kafka_port": 9464}, "seba.kafka_port", "bng-cp's metrics"),
        ([], "seba", ""),
    ],
)
def test_kafka_refusals(seba, where, text):
    errors = checked(seba).errors
    assert errors, seba
    assert any(e.startswith(where) and text in e for e in errors), errors

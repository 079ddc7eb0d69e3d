"""Mutation fuzzing of the validator: any edit of a valid pod file must give a result
(a pod, or errors), never an exception. Seeds are fixed so a failure reproduces."""

import copy
import random
from pathlib import Path

import pytest
import yaml

from bngpod import validate

LAB = yaml.safe_load((Path(__file__).resolve().parents[1] / "examples" / "lab.yaml").read_text())
ODD_VALUES = [
    None,
    0,
    -1,
    1 << 40,
    "",
    "x" * 300,
    "0x8100",
    "1-4094",
    "4094-1",
    "100M",
    "-5G",
    "1.5.6",
    "10.0.0.0/8",
    "10.0.0.1/33",
    "ff:ff:ff:ff:ff:ff",
    "02:00:00:00:00:00",
    [],
    {},
    [1, 2],
    {"a": 1},
    True,
    3.5,
    "lg1",
    "access1",
    "pool1",
    "gold",
    "server1",
    "p1",
    "\u0000",
    "é",
]


def _nodes(node, path=()):
    yield path, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _nodes(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _nodes(value, (*path, i))


def _mutate(doc, rng):
    nodes = [p for p, _ in _nodes(doc) if p]
    for _ in range(rng.randint(1, 4)):
        path = rng.choice(nodes)
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        action = rng.random()
        try:
            if action < 0.6:
                parent[path[-1]] = copy.deepcopy(rng.choice(ODD_VALUES))
            elif action < 0.8:
                del parent[path[-1]]
            elif isinstance(parent, list):
                parent.append(copy.deepcopy(parent[path[-1]]))
            else:
                parent[rng.choice(["extra", "id", "name", "lines"])] = rng.choice(ODD_VALUES)
        except (KeyError, IndexError, TypeError):
            pass
        nodes = [p for p, _ in _nodes(doc) if p]
        if not nodes:
            break


@pytest.mark.parametrize("seed", range(400))
def test_mutated_pod_files_never_crash(seed):
    rng = random.Random(seed)
    doc = copy.deepcopy(LAB)
    _mutate(doc, rng)
    result = validate.check(doc)
    assert (result.pod is None) == bool(result.errors)
    for error in result.errors:
        assert ": " in error, error  # every error has a location


@pytest.mark.parametrize("seed", range(100))
def test_random_bytes_never_crash(seed):
    rng = random.Random(seed)
    text = yaml.safe_dump(LAB).encode()
    data = bytearray(text)
    for _ in range(rng.randint(1, 20)):
        data[rng.randrange(len(data))] = rng.randrange(256)
    try:
        doc = validate.parse_document(bytes(data))
    except validate.PodError as exc:
        assert exc.errors
        return
    validate.check(doc)

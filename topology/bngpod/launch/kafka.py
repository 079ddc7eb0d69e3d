"""Apache Kafka in KRaft mode (one node: broker and controller in one JVM) in bngpod-mgmt on
the control plane's address, when the pod file says `seba: {kafka: true}` (docs/seba.md,
docs/configuration.md). Its class path is the one voltha-adapters/kafka-broker's pom
resolves from Maven Central (`make binaries` writes it); data and log under <run>/kafka.
Ready once the broker listens on its port (its log: SLF4J has no binding on the class path,
so the broker itself logs nothing); `bngpod down` stops it with the pod. start_tail runs a
consumer of it (voltha-adapters/kafka-tail's KafkaTail) for the demo's SEBA panel."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from .. import model as m
from .. import supervisor as sv
from ..network import MGMT_NS

REPO = Path(__file__).resolve().parents[3]
CLASSPATH_FILE = REPO / "voltha-adapters" / "kafka-broker" / "target" / "broker.classpath"
JVM = ["-Xms128m", "-Xmx384m", "-XX:+UseSerialGC"]
START_TIMEOUT = 180.0


def missing() -> str | None:
    """Why the broker cannot run here, or None."""
    if shutil.which("java") is None:
        return "java is not installed; run `make setup`"
    if not CLASSPATH_FILE.is_file() or not CLASSPATH_FILE.read_text().strip():
        return f"no {CLASSPATH_FILE}: run `make binaries` (mvn package in voltha-adapters/kafka-broker)"
    return None


def work_dir() -> Path:
    return sv.run_dir() / "kafka"


def bootstrap(pod: m.Pod) -> str:
    """host:port of the pod's broker (reachable in bngpod-mgmt)."""
    return f"{pod.control_plane.address}:{pod.kafka_port}"


def properties(pod: m.Pod, data: Path) -> str:
    host, port = pod.control_plane.address, pod.kafka_port
    return f"""process.roles=broker,controller
node.id=1
controller.quorum.voters=1@{host}:{port + 1}
listeners=PLAINTEXT://{host}:{port},CONTROLLER://{host}:{port + 1}
advertised.listeners=PLAINTEXT://{host}:{port}
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs={data}
num.partitions=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=true
"""


def start(state: sv.State, pod: m.Pod) -> None:
    """Format the broker's storage, start it in bngpod-mgmt and wait until it runs."""
    why = missing()
    if why:
        raise sv.EmuError(f"Kafka (seba.kafka): {why}")
    java = shutil.which("java") or "java"
    cp = CLASSPATH_FILE.read_text().strip()
    d = work_dir()
    (d / "data").mkdir(parents=True, exist_ok=True)
    props = d / "server.properties"
    props.write_text(properties(pod, d / "data"))
    log = d / "broker.log"
    jvm = [java, *JVM, "-cp", cp]
    try:
        cluster = subprocess.run(
            [*jvm, "kafka.tools.StorageTool", "random-uuid"], capture_output=True, text=True, check=True, timeout=120
        ).stdout.split()[-1]
        subprocess.run(
            [*jvm, "kafka.tools.StorageTool", "format", "-t", cluster, "-c", str(props), "--ignore-formatted"],
            capture_output=True, text=True, check=True, timeout=120,
        )  # fmt: skip
    except (subprocess.SubprocessError, IndexError) as exc:
        raise sv.EmuError(f"Kafka: formatting {d / 'data'} failed: {exc}") from None
    proc = sv.spawn(state, "kafka", MGMT_NS, [*jvm, "kafka.Kafka", str(props)], log, "java")
    sv.wait_ready(
        f"Kafka on {bootstrap(pod)}",
        proc,
        log,
        lambda: listening(proc.pid, pod.kafka_port) or f"port {pod.kafka_port} not listening yet",
        timeout=START_TIMEOUT,
    )
    state.data["kafka"] = {"bootstrap": bootstrap(pod)}
    state.save()


def listening(pid: int, port: int) -> bool:
    """Whether pid has a TCP socket listening on port (/proc/PID/net/tcp shows the sockets of
    its network namespace; the inode ties one to pid)."""
    try:
        rows = Path(f"/proc/{pid}/net/tcp").read_text().splitlines()[1:]
        entries = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return False
    fds = set()
    for e in entries:
        try:
            fds.add(os.readlink(e))
        except OSError:
            pass  # closed meanwhile
    for row in rows:
        f = row.split()
        if len(f) > 9 and f[3] == "0A" and int(f[1].rsplit(":", 1)[1], 16) == port and f"socket:[{f[9]}]" in fds:
            return True
    return False


# -- a consumer of the pod's broker (the demo's OSS side) ----------------------------------------------
TAIL_TARGET = REPO / "voltha-adapters" / "kafka-tail" / "target"
TAIL_CLASSPATH_FILE = TAIL_TARGET / "tail.classpath"
TAIL_MAIN = "org.bngpod.kafka.KafkaTail"


def tail_missing() -> str | None:
    """Why the consumer (voltha-adapters/kafka-tail) cannot run here, or None."""
    if shutil.which("java") is None:
        return "java is not installed; run `make setup`"
    if not TAIL_CLASSPATH_FILE.is_file() or not (TAIL_TARGET / "classes").is_dir():
        return f"no {TAIL_CLASSPATH_FILE}: run `make binaries` (mvn package in voltha-adapters/kafka-tail)"
    return None


def start_tail(state: sv.State, pod: m.Pod, name: str, group: str, topics: list[str], out: Path) -> subprocess.Popen:
    """KafkaTail in bngpod-mgmt reading topics from the pod's broker from their start (consumer
    group `group`): one JSON line per record appended to out, its own log beside it (out with
    .log); recorded in the state under name, so `bngpod down` stops it too."""
    why = tail_missing()
    if why:
        raise sv.EmuError(f"the Kafka consumer: {why}")
    cp = f"{TAIL_TARGET / 'classes'}:{TAIL_CLASSPATH_FILE.read_text().strip()}"
    # -Dbngpod.run names the run directory, so `bngpod down` finds it even if the state lost its pid
    cmd = [shutil.which("java") or "java", "-Xms32m", "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
           f"-Dbngpod.run={sv.run_dir()}", "-cp", cp, TAIL_MAIN, bootstrap(pod), group, *topics]  # fmt: skip
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "ab") as stdout, open(out.with_suffix(".log"), "ab") as stderr:
        proc = subprocess.Popen(
            ["ip", "netns", "exec", MGMT_NS, *cmd], stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr,
            start_new_session=True,
        )  # fmt: skip
    state.add_pid(name, proc.pid, "java")
    return proc

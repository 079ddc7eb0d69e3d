"""The emulated pod's controller (`bngpod up --controller`, docs/emulated-pod.md): the ONOS
application's own components on ONOS's test kit (org.bngpod.app.emu.PodController, a Java
program `make binaries` builds), in bngpod-mgmt on the control plane's address, port 8181.
It drives the switch through ONOS's DefaultSingleTablePipeline and the flow-mods of ONOS's
OpenFlow 1.3 provider (ovs-ofctl on the bridge's management socket), follows its port status,
and serves the app's REST API as ONOS does (/onos/bngpod, HTTP Basic, the app's roles) to
bng-cp and the operator. Ready once the stated placement is steered (its events file says
`ready`). With a pod file's `seba` section, org.bngpod.seba runs beside it
(org.bngpod.seba.impl.SebaPodController, voltha-adapters/seba's test scope, docs/seba.md): its
REST API at /onos/bngpod-seba on the same server, SADIS and the olt app stood in for, the lab's
side of those stand-ins on the control plane's address, port SEBA_CONTROL_PORT (seba_lab)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from .. import binaries, clients
from .. import controller as files
from .. import model as m
from .. import supervisor as sv
from ..network import BRIDGE, MGMT_NS, ovs_dir, ovs_env
from ..rawsock import in_netns

SEBA_CONTROL_PORT = 8182  # SebaPodController's lab side, on the control plane's address
START_TIMEOUT = 120.0  # a JVM on a loaded 2-core host, then the whole steering pushed
# Small and cheap: a single-node app with a few hundred rules. The stores' Kryo reflects into
# JDK internals that JDK 17 keeps closed (the same opens as onos-app/app/pom.xml's kryo.argLine).
# sun.net.httpserver.nodelay: the JDK's HTTP server (org.bngpod.seba's SADIS stand-in and lab side)
# writes a response's headers and body apart; with Nagle on, each answer waited for the client's
# delayed ACK (about 40 ms), three per UNI's SADIS look-up.
JAVA_OPTIONS = ["-Xms64m", "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dsun.net.httpserver.nodelay=true"]  # fmt: skip
OPENS = ["java.lang", "java.lang.invoke", "java.lang.reflect", "java.util", "java.util.concurrent",
         "java.util.concurrent.atomic", "java.util.regex", "java.net", "java.nio", "java.io", "java.math",
         "java.time", "java.text", "java.security"]  # fmt: skip


def missing(pod: m.Pod | None = None) -> str | None:
    """Why the controller (the pod's: with org.bngpod.seba when it has a `seba` section)
    cannot run here, or None."""
    if shutil.which("java") is None:
        return "java is not installed; run `make setup`"
    if pod is not None and pod.seba:
        return binaries.sebactl_missing()
    return binaries.podctl_missing()


def work_dir() -> Path:
    return sv.run_dir() / "controller"


def events_path() -> Path:
    return work_dir() / "events.jsonl"


def command(pod: m.Pod, generated: Path) -> list[str]:
    opens = [arg for pkg in OPENS for arg in ("--add-opens", f"java.base/{pkg}=ALL-UNNAMED")]
    return [
        shutil.which("java") or "java", *JAVA_OPTIONS, *opens,
        "-Dorg.slf4j.simpleLogger.showDateTime=true",
        "-Dorg.slf4j.simpleLogger.dateTimeFormat=yyyy-MM-dd'T'HH:mm:ss.SSS",
        *(["-cp", binaries.sebactl_classpath(), binaries.SEBACTL_MAIN] if pod.seba
          else ["-cp", binaries.podctl_classpath(), binaries.PODCTL_MAIN]),
        "--netcfg", str(generated / files.NETCFG),
        "--listen", f"{pod.control_plane.address}:{files.CONTROLLER_PORT}",
        "--users", str(generated / files.USERS),
        "--web-xml", str(binaries.PODCTL_WEB_XML),
        "--switch", f"unix:{ovs_dir() / (BRIDGE + '.mgmt')}",
        "--events", str(events_path()),
        *(["--seba-control", f"{pod.control_plane.address}:{SEBA_CONTROL_PORT}",
           "--seba-web-xml", str(binaries.SEBACTL_WEB_XML)]
          if pod.seba else []),
    ]  # fmt: skip


def start(state: sv.State, pod: m.Pod, generated: Path) -> None:
    """The controller, waited for until the stated placement is steered."""
    why = missing(pod)
    if why:
        raise sv.EmuError(f"{why}; or start the pod without --controller")
    work_dir().mkdir(parents=True, exist_ok=True)
    events_path().unlink(missing_ok=True)
    state.data["controller"] = {"url": files.url(pod), "generated": str(generated)}
    state.save()
    log = sv.logs_dir() / "controller.log"
    # ovs-ofctl (the controller runs it) keeps its control socket in the pod's OVS run directory
    proc = sv.spawn(state, "controller", MGMT_NS, command(pod, generated), log, "java", env=ovs_env())

    def ready() -> bool | str:
        return any(e.get("event") == "ready" for e in events()) or "the stated placement is not steered yet"

    sv.wait_ready("the controller", proc, log, ready, timeout=START_TIMEOUT)


def events() -> list[dict]:
    """The controller's events so far (JSON lines: ready, request, placement, push, port)."""
    try:
        lines = events_path().read_text().splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        try:
            out.append(json.loads(line))
        except ValueError:
            continue  # a line being written
    return out


def api(pod: m.Pod, method: str, path: str, body: dict | None = None, user: str = files.ADMIN_USER,
        timeout: float = 5.0, app: str = "/onos/bngpod") -> tuple[int, object]:  # fmt: skip
    """A request to the controller's REST API (path under app: /onos/bngpod, or org.bngpod.seba's
    /onos/bngpod-seba) as one of the generated users: (status, JSON answer)."""
    state = sv.State.load()
    if state is None or "controller" not in state.data:
        raise sv.EmuError("this pod runs no controller (bngpod up --controller)")
    password = files.users(Path(state.data["controller"]["generated"]))[user]
    with in_netns(MGMT_NS):
        return clients.rest(str(pod.control_plane.address), files.CONTROLLER_PORT, method,
                            app + path, user, password, body, timeout)  # fmt: skip


def seba_lab(pod: m.Pod, method: str, path: str, body: object) -> tuple[int, str]:
    """A request to SebaPodController's lab side (SADIS documents, this app's netcfg, olt UNI
    events, programmed subscribers; the class's javadoc): (status, answer)."""
    return seba_lab_many(pod, [(method, path, body)])[0]


def seba_lab_many(pod: m.Pod, requests: list[tuple[str, str, object]], timeout: float = 5.0) -> list[tuple[int, str]]:
    """Requests to the lab side in order, over one kept-alive connection (a new one when the
    server closed it): (status, answer) of each."""
    import http.client

    out = []
    with in_netns(MGMT_NS):
        conn = None
        try:
            for method, path, body in requests:
                data = body if isinstance(body, (bytes, str)) else json.dumps(body)
                for attempt in (1, 2):
                    if conn is None:
                        conn = http.client.HTTPConnection(str(pod.control_plane.address), SEBA_CONTROL_PORT,
                                                          timeout=timeout)  # fmt: skip
                    try:
                        conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
                        r = conn.getresponse()
                        out.append((r.status, r.read().decode()))
                        break
                    except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                        conn.close()
                        conn = None
                        if attempt == 2:
                            raise
        finally:
            if conn is not None:
                conn.close()
    return out

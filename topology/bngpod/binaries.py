"""The programs the emulated pod, the demo, the tests and the benchmarks run, where the
root Makefile builds them (`make binaries`; `make build` builds everything). Nothing here
builds them: a missing program is an error that says which target makes it.

BNG_CP, BNGCPCTL, BNG_SUBEMU and BNG_CPLOAD name other builds of the Go programs when set in
the environment (to run a pod with a bng-cp built elsewhere, for instance)."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GLUE = REPO / "accel-ppp-glue"
GLUE_BUILD = GLUE / "build"
BNG_DP = REPO / "server-dp" / "build" / "bng-dp"
BNG_CP = Path(os.environ.get("BNG_CP", GLUE_BUILD / "bng-cp"))
BNGCPCTL = Path(os.environ.get("BNGCPCTL", GLUE_BUILD / "bngcpctl"))
BNG_SUBEMU = Path(os.environ.get("BNG_SUBEMU", GLUE_BUILD / "bng-subemu"))
BNG_CPLOAD = Path(os.environ.get("BNG_CPLOAD", GLUE_BUILD / "bng-cpload"))
# The emulated switch's access-port ingress check, an XDP object (topology/xdp/).
ACCESS_INGRESS = REPO / "topology" / "build" / "access_ingress.o"
# The emulated pod's controller (`bngpod up --controller`): the ONOS app's classes, its test
# classes (org.bngpod.app.emu.PodController and the test kit it runs on) and the classpath
# Maven wrote for them (`make binaries` runs `mvn package` for it; nothing is built at run time).
ONOS_APP = REPO / "onos-app" / "app"
PODCTL_CLASSPATH = ONOS_APP / "target" / "podctl.classpath"
PODCTL_CLASSES = (ONOS_APP / "target" / "test-classes", ONOS_APP / "target" / "classes")
PODCTL_MAIN = "org.bngpod.app.emu.PodController"
PODCTL_WEB_XML = ONOS_APP / "src" / "main" / "webapp" / "WEB-INF" / "web.xml"
# with a pod file's `seba` section: org.bngpod.seba beside it (voltha-adapters/seba's test
# scope, SebaPodController; onos-app's classes first, then this module's)
SEBA = REPO / "voltha-adapters" / "seba"
SEBACTL_CLASSPATH = SEBA / "target" / "sebactl.classpath"
SEBACTL_CLASSES = (SEBA / "target" / "test-classes", SEBA / "target" / "classes")
SEBACTL_MAIN = "org.bngpod.seba.impl.SebaPodController"
SEBACTL_WEB_XML = SEBA / "src" / "main" / "webapp" / "WEB-INF" / "web.xml"


class MissingBinary(RuntimeError):
    pass


def missing(*programs: Path) -> str | None:
    """Why these programs cannot run (the first that is not built), or None."""
    for path in programs:
        if not (os.path.isfile(path) if path.suffix == ".o" else os.access(path, os.X_OK)):
            return f"{path} is not built: run `make build` (or `make binaries`)"
    return None


def podctl_missing() -> str | None:
    """Why the emulated pod's controller cannot run, or None."""
    main = PODCTL_CLASSES[0] / (PODCTL_MAIN.replace(".", "/") + ".class")
    for path in (PODCTL_CLASSPATH, main, PODCTL_WEB_XML):
        if not path.is_file():
            return f"the emulated pod's controller is not built ({path} is missing): run `make binaries`"
    return None


def sebactl_missing() -> str | None:
    """Why the controller with org.bngpod.seba cannot run, or None."""
    main = SEBACTL_CLASSES[0] / (SEBACTL_MAIN.replace(".", "/") + ".class")
    for path in (SEBACTL_CLASSPATH, main, SEBACTL_WEB_XML):
        if not path.is_file():
            why = f"the emulated pod's controller with org.bngpod.seba is not built ({path} is missing)"
            return why + ": run `make binaries`"
    return podctl_missing()


def sebactl_classpath() -> str:
    """The controller's classpath with org.bngpod.seba: onos-app's, then the SEBA module's."""
    jars = SEBACTL_CLASSPATH.read_text().strip()
    return os.pathsep.join([podctl_classpath(), *(str(p) for p in SEBACTL_CLASSES), jars])


def podctl_classpath() -> str:
    """The controller's Java classpath: its classes, then the jars Maven listed."""
    jars = PODCTL_CLASSPATH.read_text().strip()
    return os.pathsep.join([*(str(p) for p in PODCTL_CLASSES), jars])


def require(*programs: Path) -> None:
    """MissingBinary naming the first program that is not built."""
    why = missing(*programs)
    if why:
        raise MissingBinary(why)

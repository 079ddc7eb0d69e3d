"""The generated directory: what `bngpod generate` writes and `bngpod up` runs from.

    pod.yaml             the pod file it was generated from, byte for byte
    bngpod.json          the manifest: pod name, the pod file's SHA-256 and source path, the subscribers
    dp/<instance>.ini    bng-dp's configuration, one per instance       (generate.generate_all)
    cp.yaml              bng-cp's configuration
    onos-netcfg.json     the ONOS application's network configuration
    basebox/flows.of13   the static fold as OpenFlow 1.3 (the emulated switch loads it)
    basebox/networkd/    the static fold for baseboxd
    radius/users.json    the emulated pod's subscribers: who dials where (bngpod.users);
                         absent when a FreeRADIUS users file was given instead
    radius/users         the FreeRADIUS users file made from them (or the one given)
    controller/          what `bngpod up --controller` runs the emulated pod's controller from
                         (the netcfg with the emulated switch ports, its REST users, a cp.yaml
                         pointing bng-cp at it: bngpod.controller)

`bngpod up FILE` writes it (under the run directory, or where --generated says) and then
runs the pod from it; `bngpod up DIR` runs the pod of a directory written before, so a
user can check or change what runs between the two steps. A directory whose pod.yaml no
longer matches the manifest is refused: generate it again."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from . import controller, generate, users, validate
from . import model as m

POD_FILE = "pod.yaml"
MANIFEST = "bngpod.json"
USERS_JSON = "radius/users.json"
RADIUS_USERS = "radius/users"


class GenDirError(Exception):
    pass


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write(
    pod: m.Pod,
    source: str | Path,
    out: Path,
    subscribers: int = users.DEFAULT_PER_GROUP,
    users_file: str | Path | None = None,
) -> list[Path]:
    """Write the directory for pod (read from the file source) into out; the files written.
    Subscribers: `subscribers` per line group (bngpod.users), or those of users_file (a
    users.json, checked against the pod, or a FreeRADIUS users file used as it is).
    GenDirError when the subscribers cannot be made."""
    source = Path(source).resolve()
    try:
        entries = None
        if users_file is None:
            entries = users.generate(pod, subscribers)
        elif str(users_file).endswith(".json"):
            entries = users.load_json(Path(users_file), pod)
        elif not Path(users_file).is_file():
            raise users.UsersError(f"users file {users_file} does not exist")
    except users.UsersError as exc:
        raise GenDirError(str(exc)) from None
    written = generate.generate_all(pod, out)
    written += controller.write(pod, out)
    copy = out / POD_FILE
    if copy.resolve() != source:
        shutil.copyfile(source, copy)
    written.append(copy)
    radius_dir = out / "radius"
    (radius_dir / "users.json").unlink(missing_ok=True)  # a stale list must not outlive a given users file
    if entries is None:
        radius_dir.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(users_file, out / RADIUS_USERS)
        written.append(out / RADIUS_USERS)
    else:
        written += users.write(radius_dir, pod, entries)
    manifest = {
        "pod": pod.name,
        "source": str(source),
        "pod_sha256": _sha256(copy),
        "subscribers": {
            "per_group": subscribers,
            "given": str(Path(users_file).resolve()) if users_file is not None else None,
            "count": None if entries is None else len(entries),
        },
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    written.append(out / MANIFEST)
    return sorted(written)


def manifest(directory: Path) -> dict:
    """The directory's manifest; GenDirError when it is not a generated directory."""
    path = directory / MANIFEST
    try:
        doc = json.loads(path.read_text())
    except FileNotFoundError:
        raise GenDirError(f"{directory} was not written by `bngpod generate` (no {MANIFEST})") from None
    except (OSError, ValueError) as exc:
        raise GenDirError(f"{path}: {exc}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("pod_sha256"), str):
        raise GenDirError(f"{path}: not a manifest of `bngpod generate`")
    subs = doc.get("subscribers")
    if not isinstance(subs, dict) or not isinstance(subs.get("per_group"), int):
        raise GenDirError(f"{path}: no subscribers section")
    return doc


def check(directory: Path, pod: m.Pod, with_controller: bool = False) -> dict:
    """The manifest of a directory whose pod.yaml is pod's and unchanged since it was
    generated, and which holds every file the emulated pod runs from (with_controller: its
    controller mode too); else GenDirError."""
    doc = manifest(directory)
    if _sha256(directory / POD_FILE) != doc["pod_sha256"]:
        raise GenDirError(
            f"{directory / POD_FILE} changed since `bngpod generate` wrote {directory}: generate it again"
        )
    need = [f"dp/{i.name}.ini" for i in pod.instances] + ["cp.yaml", "basebox/flows.of13", RADIUS_USERS]
    if with_controller:
        need += list(controller.FILES)
    lost = [rel for rel in need if not (directory / rel).is_file()]
    if lost:
        raise GenDirError(f"{directory} lacks {', '.join(lost)}: generate it again")
    return doc


def load(directory: Path) -> m.Pod:
    """The checked pod of a generated directory (validate.PodError when its pod.yaml is not
    valid)."""
    path = directory / POD_FILE
    if not path.is_file():
        raise GenDirError(f"{directory} holds no {POD_FILE}: not a directory `bngpod generate` wrote")
    return validate.load(path)


def subscribers(directory: Path) -> list[dict] | None:
    """The directory's users.json (None when the subscribers came as a FreeRADIUS users file)."""
    try:
        return json.loads((directory / USERS_JSON).read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise GenDirError(f"{directory / USERS_JSON}: {exc}") from None

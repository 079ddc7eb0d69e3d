"""bngpod: validate a pod file, generate every component's configuration, and run the
emulated pod on this host from what was generated. The three steps can be run one by one:
`bngpod validate FILE`, `bngpod generate FILE -o DIR`, `bngpod up DIR`; `bngpod up FILE` does
the first two itself."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from . import emu, gendir, users, validate

EXIT_OK, EXIT_INVALID, EXIT_FAILED, EXIT_USAGE = 0, 1, 2, 64


def _load(path: str):
    """The checked pod, or print every error and exit 1."""
    try:
        result = validate.check(validate.load_document(path), path)
    except validate.PodError as exc:
        for e in exc.errors:
            print(f"{path}: {e}", file=sys.stderr)
        sys.exit(EXIT_INVALID)
    except OSError as exc:
        print(f"{path}: cannot read: {exc.strerror}", file=sys.stderr)
        sys.exit(EXIT_INVALID)
    for w in result.warnings:
        print(f"{path}: warning: {w}", file=sys.stderr)
    if result.errors:
        for e in result.errors:
            print(f"{path}: {e}", file=sys.stderr)
        print(f"{path}: {len(result.errors)} error(s)", file=sys.stderr)
        sys.exit(EXIT_INVALID)
    return result.pod


def _need_root(what: str) -> None:
    if os.geteuid() != 0:
        print(f"bngpod {what} needs root (network namespaces, veths, OVS)", file=sys.stderr)
        sys.exit(EXIT_FAILED)


def cmd_validate(args) -> int:
    pod = _load(args.file)
    summary = (
        f"{args.file}: pod {pod.name} is valid: {len(pod.instances)} instance(s), "
        f"{len(pod.groups)} line group(s), {sum(len(g.lines) for g in pod.groups)} line(s), "
        f"{len(pod.pools)} pool(s), {len(pod.qos_profiles)} QoS profile(s)"
    )
    print(summary)
    return EXIT_OK


def cmd_generate(args) -> int:
    pod = _load(args.file)
    subscribers = users.DEFAULT_PER_GROUP if args.subscribers is None else args.subscribers
    try:
        written = gendir.write(pod, args.file, Path(args.out), subscribers, args.users)
    except gendir.GenDirError as exc:
        print(f"bngpod generate: {exc}", file=sys.stderr)
        return EXIT_INVALID
    for path in written:
        print(path)
    return EXIT_OK


def cmd_up(args) -> int:
    _need_root("up")
    cp_options = {k: getattr(args, k) for k in emu.CP_OPTIONS if getattr(args, k) is not None}
    run = {
        "dp": not args.no_dp,
        "cp": not args.no_cp,
        "dp_sessions": args.dp_sessions,
        "cp_options": cp_options,
        "controller": args.controller,
    }
    from_dir = Path(args.file).is_dir()
    if from_dir:
        given = [flag for flag, v in (("--users", args.users), ("--subscribers", args.subscribers),
                                      ("--generated", args.generated)) if v is not None]  # fmt: skip
        if given:
            print(
                f"bngpod up: {', '.join(given)}: not with a generated directory (give them to `bngpod generate`)",
                file=sys.stderr,
            )
            return EXIT_USAGE
        pod = _load(str(Path(args.file) / gendir.POD_FILE))
    else:
        pod = _load(args.file)
    subscribers = users.DEFAULT_PER_GROUP if args.subscribers is None else args.subscribers
    try:
        if from_dir:
            emu.up_generated(args.file, **run)
        else:
            emu.up(pod, args.file, users_file=args.users, subscribers=subscribers, generated=args.generated, **run)
    except emu.EmuError as exc:
        print(f"bngpod up: {exc}", file=sys.stderr)
        return EXIT_FAILED
    print(f"pod {pod.name} is up")
    _print_status(emu.status())
    return EXIT_OK


def cmd_down(args) -> int:
    _need_root("down")
    removed = emu.down()
    for item in removed:
        print(f"removed {item}")
    if not removed:
        print("nothing to remove")
    left = emu.our_namespaces()
    if left:
        print(f"could not remove: {', '.join(left)}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def _print_status(report: dict) -> None:
    if not report["up"]:
        print("no pod is up")
        if report["namespaces"]:
            print(f"stray namespaces (run `bngpod down`): {', '.join(report['namespaces'])}")
        return
    print(f"pod {report['pod']} from {report['source']} ({'ready' if report['ready'] else 'NOT READY'})")
    if report.get("generated"):
        print(f"  generated:         {report['generated']}")
    for name, proc in report["processes"].items():
        print(f"  {name:<18} pid {proc['pid']:<8} {'running' if proc['running'] else 'STOPPED'}")
    if report.get("controller"):
        print(f"  controller:        {report['controller']['url']} (events {report['controller']['events']})")
    if report.get("users"):
        u = report["users"]
        print(f"  subscribers:       {u['count'] if u['count'] is not None else '?'} ({u['file']})")
    cp = report.get("cp")
    if cp is not None:
        if "error" in cp:
            print(f"  control plane:     {cp['error']}")
        else:
            total = sum(i["sessions"] for i in cp["instances"])
            print(f"  control plane:     {total} session(s)")
            for i in cp["instances"]:
                print(f"    instance {i['id']} {i['name']:<8} {i['state']:<12} {i['sessions']} session(s)")
    for name, q in report.get("qos_share", {}).items():
        if "error" in q:
            print(f"  qos share {name:<7} {q['error']}")
            continue
        for g in [q, *q.get("more", [])]:
            mbit = {k: g.get(f"{k}_bps", 0) / 1e6 for k in ("port_rate", "static", "applied", "demand", "served")}
            what = "server port" if g.get("kind") == "server_port" else f"access_port.{g.get('access_port')}"
            print(
                f"  qos share {name:<7} {what}: applied {mbit['applied']:.1f} of "
                f"{mbit['port_rate']:.1f} Mbit/s (static {mbit['static']:.1f}), demand {mbit['demand']:.1f}, "
                f"served {mbit['served']:.1f}, {'consistent' if g.get('consistent') else 'INCONSISTENT'} view"
            )
    print(f"  namespaces:    {' '.join(report['namespaces'])}")
    for port in report["ports"]:
        print(f"  switch port    {port}")
    if report["flows"]:
        print(f"  flow table:    {report['flows']}")


def cmd_status(args) -> int:
    try:
        report = emu.status()
    except emu.EmuError as exc:
        print(f"bngpod status: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        _print_status(report)
    return EXIT_OK if report["up"] else EXIT_INVALID


def cmd_ofctl(args) -> int:
    proc = emu.ofctl(*args.args, check=False) if args.args else None
    if proc is None:
        print("usage: bngpod ofctl dump-flows bpsw", file=sys.stderr)
        return EXIT_USAGE
    sys.stdout.write(proc.stdout)
    sys.stderr.write(proc.stderr)
    return proc.returncode


def cmd_demo(args) -> int:
    _need_root("demo")
    from . import demo

    opts = demo.Options(
        hold=args.hold, duration=args.duration, subscribers=args.subscribers, rate=args.rate,
        load=args.load, fold=args.fold, top=args.top, interval=args.interval, ipoe=args.ipoe, seba=args.seba,
    )  # fmt: skip
    return demo.run(args.file, opts)


def _subscriber_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--users",
        metavar="FILE",
        help="subscribers: a users.json ([{user, password, line_group, port, stag, ctag[, tpid]}]) or a FreeRADIUS "
        "users file, instead of the generated ones",
    )
    p.add_argument(
        "--subscribers",
        type=int,
        metavar="N",
        help=f"generated subscribers per line group (default {users.DEFAULT_PER_GROUP})",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bngpod", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("validate", help="check a pod file and report every error with its location")
    p.add_argument("file")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser(
        "generate",
        help="write every component's configuration from a pod file, with the pod file and the emulated pod's "
        "subscribers: the directory `bngpod up` runs from",
    )
    p.add_argument("file")
    p.add_argument("-o", "--out", required=True, help="output directory")
    _subscriber_options(p)
    p.set_defaults(func=cmd_generate)

    p = sub.add_parser(
        "up",
        help="build the emulated pod on this host: from a pod file (generated first, as `bngpod generate` does) "
        "or from a directory `bngpod generate` wrote",
    )
    p.add_argument("file", metavar="POD", help="a pod file, or a directory written by `bngpod generate`")
    p.add_argument(
        "--generated",
        metavar="DIR",
        help="with a pod file: generate into DIR (default: <run dir>/generated, removed by `bngpod down`)",
    )
    p.add_argument(
        "--controller",
        action="store_true",
        help="controller mode: the switch driven by the ONOS app's own placement and steering code (its REST API "
        "served as ONOS does, bng-cp following it) instead of the static fold",
    )
    p.add_argument("--no-dp", action="store_true", help="start no bng-dp")
    p.add_argument("--no-cp", action="store_true", help="start neither FreeRADIUS nor bng-cp")
    _subscriber_options(p)
    p.add_argument(
        "--dp-sessions",
        type=int,
        metavar="N",
        help="session capacity of each bng-dp (default: the subscribers of its line groups + 64, at least 4096)",
    )
    p.add_argument("--interim", metavar="DURATION", help="bng-cp's accounting interim interval (e.g. 5s)")
    p.add_argument("--lcp-echo-interval", metavar="DURATION", help="bng-cp's LCP echo interval (e.g. 2s)")
    p.add_argument("--lcp-echo-failures", metavar="N", help="unanswered LCP echoes before a session is dead")
    p.set_defaults(func=cmd_up)

    p = sub.add_parser("down", help="remove everything `bngpod up` created")
    p.set_defaults(func=cmd_down)

    p = sub.add_parser("status", help="show what of the emulated pod runs")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_status)

    p = sub.add_parser("ofctl", help="run ovs-ofctl (OpenFlow 1.3) against the emulated switch")
    p.add_argument("args", nargs=argparse.REMAINDER)
    p.set_defaults(func=cmd_ofctl)

    p = sub.add_parser(
        "demo", help="bring a pod up, dial subscribers, run traffic, show a live dashboard; tear it down on Ctrl-C"
    )
    p.add_argument("file", nargs="?", default=str(Path(__file__).resolve().parents[1] / "examples" / "lab.yaml"))
    p.add_argument(
        "--hold",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="run until Ctrl-C or q (default: when run on a terminal)",
    )
    p.add_argument(
        "--duration", type=float, default=None,
        help="stop after this many seconds (default: 60 when not on a terminal)",
    )  # fmt: skip
    p.add_argument("--subscribers", type=int, default=100, help="subscribers to dial across the line groups")
    p.add_argument("--rate", type=float, default=5.0, help="UDP echo datagrams per second per subscriber")
    p.add_argument(
        "--load", type=float, default=1.25,
        help="downstream load to one subscriber per line group, times its profile's rate (0: none)",
    )  # fmt: skip
    p.add_argument("--fold", action=argparse.BooleanOptionalAction, default=True, help="run the fold probe first")
    p.add_argument("--top", type=int, default=10, help="subscribers shown by downstream rate")
    p.add_argument("--interval", type=float, default=None, help="seconds between dashboard refreshes")
    p.add_argument(
        "--ipoe",
        action="store_true",
        help="dial the pod's IPoE subscribers too (bng-subemu --ipoe; a pod with IPoE such as examples/ipoe.yaml)",
    )
    p.add_argument(
        "--seba",
        action="store_true",
        help="as next to SEBA: controller mode with org.bngpod.seba, the subscribers provisioned through SADIS, "
        "the olt app and netcfg, bng.pppoe and bng.stats read from the pod's Kafka (a pod with `seba: {kafka: "
        "true}` such as examples/seba.yaml)",
    )
    p.set_defaults(func=cmd_demo)

    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())

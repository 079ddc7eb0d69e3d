"""A paced UDP sender: the demo's downstream load from the inet host to a few subscribers.

    python -m bngpod.loadgen [--size 1400] [--port 9] ADDRESS:BPS ...

Sends UDP datagrams of --size bytes (IPv4 packet size) to each ADDRESS at BPS bits per
second of IPv4 packets (suffixes k, M, G), until SIGTERM or SIGINT. Paced per millisecond
tick so that the load is smooth rather than bursts of a second's worth. Prints one JSON
line per target on exit: packets and bytes sent, and send errors (a full socket buffer
counts as one)."""

from __future__ import annotations

import argparse
import json
import signal
import socket
import sys
import time

IP_UDP_HEADERS = 28
TICK = 0.001


def parse_rate(text: str) -> int:
    units = {"k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}
    try:
        if text and text[-1] in units:
            return int(float(text[:-1]) * units[text[-1]])
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"rate {text!r}: want bits per second, e.g. 25M") from None


def parse_target(text: str) -> tuple[str, int]:
    addr, sep, rate = text.rpartition(":")
    if not sep:
        raise argparse.ArgumentTypeError(f"target {text!r}: want ADDRESS:BPS")
    try:
        socket.inet_aton(addr)
    except OSError:
        raise argparse.ArgumentTypeError(f"target {text!r}: {addr!r} is not an IPv4 address") from None
    bps = parse_rate(rate)
    if bps <= 0:
        raise argparse.ArgumentTypeError(f"target {text!r}: the rate must be positive")
    return addr, bps


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bngpod.loadgen", description=__doc__.split("\n\n")[0])
    ap.add_argument("targets", nargs="+", type=parse_target, metavar="ADDRESS:BPS")
    ap.add_argument("--size", type=int, default=1400, help="IPv4 packet size, 64..1500")
    ap.add_argument("--port", type=int, default=9, help="destination UDP port (discard)")
    args = ap.parse_args(argv)
    if not 64 <= args.size <= 1500:
        ap.error("--size must be 64..1500")
    stop = False

    def on_signal(signum, frame):
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    payload = bytes(args.size - IP_UDP_HEADERS)
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    sock.setblocking(False)
    pps = [bps / 8 / args.size for _, bps in args.targets]
    sent = [0] * len(args.targets)
    errors = [0] * len(args.targets)
    skipped = [0] * len(args.targets)  # packets given up on after falling behind
    start = time.monotonic()
    while not stop:
        elapsed = time.monotonic() - start
        for i, (addr, _) in enumerate(args.targets):
            due = int(elapsed * pps[i]) - sent[i] - skipped[i]
            for _ in range(min(due, 1000)):
                try:
                    sock.sendto(payload, (addr, args.port))
                except BlockingIOError:
                    errors[i] += 1
                    break
                except OSError:
                    errors[i] += 1
                    break
                sent[i] += 1
            if due > 1000:  # fallen behind by more than a burst: do not try to catch up
                skipped[i] += due - 1000
        time.sleep(TICK)
    for i, (addr, bps) in enumerate(args.targets):
        line = {"target": addr, "bps": bps, "packets": sent[i], "bytes": sent[i] * args.size}
        print(json.dumps(line | {"errors": errors[i], "skipped": skipped[i]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Writes the outside testers' profiles of a pod (tests/linerate/profiles; docs/linerate.md):

  make_profiles.py --pod POD.yaml --users users.json [--sessions export.json] --out DIR
      [--core-address 198.51.100.99/24] [--core-gateway 198.51.100.1] [--core-gateway-mac MAC]

- DIR/bngblaster.json  BNG Blaster: dials the users (PAP) over QinQ, bidirectional streams;
- DIR/spirent_bngpod.py  Spirent TestCenter over its REST API: PPPoX client blocks, RFC 2544;
- DIR/trex_bngpod.py  TRex STL (needs --sessions, a session export: TRex cannot dial, its
  streams use established sessions; and --core-gateway-mac).

users.json is the generated directory's radius/users.json (`bngpod generate`); the session
export is `bngcpctl sessions --export json` (or csv) of the running pod, or bng-subemu's
/v1/sessions. With --sessions every profile takes exactly the exported sessions: TRex their
session ids, MACs and addresses; BNG Blaster their lines and users (it picks its own MACs,
and the BNG gives ids and addresses when it dials); Spirent their lines, users and MACs."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "topology"))
sys.path.insert(0, str(HERE.parent))

from bngpod import users as pod_users  # noqa: E402
from bngpod import validate  # noqa: E402
from linerate.profiles import bngblaster, common, spirent, trex  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pod", required=True)
    ap.add_argument("--users", required=True, help="users.json of the generated directory")
    ap.add_argument(
        "--sessions", help="a session export (bngcpctl sessions --export json|csv): the sessions of every profile"
    )
    ap.add_argument("--out", required=True)
    ap.add_argument("--core-address", default="198.51.100.99/24")
    ap.add_argument("--core-gateway", default="198.51.100.1")
    ap.add_argument("--core-gateway-mac")
    ap.add_argument("--size", default="512", help="BNG Blaster stream size: 64..1518 or imix")
    ap.add_argument("--access-if", default="eth1", help="BNG Blaster's access interface")
    ap.add_argument("--network-if", default="eth2", help="BNG Blaster's network (core side) interface")
    a = ap.parse_args(argv)
    pod = validate.load(Path(a.pod))
    users = pod_users.load_json(Path(a.users), pod)
    addr, _, plen = a.core_address.partition("/")
    core = common.CoreSide(addr, int(plen or 24), a.core_gateway, a.core_gateway_mac)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    size = a.size if a.size == "imix" else int(a.size)
    sessions = common.load_sessions(pod, Path(a.sessions)) if a.sessions else None
    cfg = bngblaster.render(pod, users, core, a.access_if, a.network_if, size=size, sessions=sessions)
    (out / "bngblaster.json").write_text(json.dumps(cfg, indent=1) + "\n")
    (out / "spirent_bngpod.py").write_text(spirent.render(pod, users, core, sessions=sessions))
    written = ["bngblaster.json", "spirent_bngpod.py"]
    if sessions is not None:
        (out / "trex_bngpod.py").write_text(trex.render(pod, sessions, core))
        written.append("trex_bngpod.py")
    n = len(sessions) if sessions is not None else len(users)
    print(json.dumps({"out": str(out), "written": written, "users": len(users), "sessions": n}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

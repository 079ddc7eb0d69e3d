"""The ONOS bngpod application's REST endpoints as bng-cp uses them (Contract B,
docs/cp/onos.md), on loopback: GET /placement answers what the test sets (as a long poll
with `after` and `wait`, checked as strictly as the app checks them), PUT /sessions
(one request, or paged: staged per resync id, recorded when the last page arrives),
POST /sessions/events and POST /instances/{id}/health are recorded.

As strict as the real application about who may call: every endpoint here is the control
plane's and needs HTTP Basic credentials of a user with the role `bngpod-cp`
(CP_USER/CP_PASSWORD); ONOS's default admin onos/rocks, or a viewer, gets 403, as the real
app's RoleFilter answers (docs/onos/operations.md); other credentials get 401.

And about what is sent: every Session object of a resync page or an event batch is checked
as the app's SessionCodec checks it (check_session); one bad session refuses the whole
request with 400 {"error": "<field path>: ..."} and nothing of it is recorded."""

from __future__ import annotations

import base64
import json
import re
import threading
import time
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from ipaddress import IPv4Address
from urllib.parse import parse_qs, urlsplit

BASE = "/onos/bngpod"
SEBA_BASE = "/onos/bngpod-seba"  # the SEBA app beside it
PPPOE_EVENT_TYPES = ("SESSION_INIT", "AUTH_SUCCESS", "AUTH_FAILURE")  # what bng-cp may report
PPPOE_MAX_EVENTS, PPPOE_MAX_BODY = 1000, 1 << 20  # PppoeEventsWebResource's limits
TEARDOWN_CAUSES = ("Lost-Carrier", "Admin-Reset")  # the two the SEBA app requests (docs/seba.md)
CP_USER, CP_PASSWORD = "bngcp", "cp-secret"  # a user holding the role bngpod-cp
OTHER_USERS = {"onos": "rocks", "viewer": "viewer"}  # known to ONOS, without the role bngpod-cp


NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,62}")
MAC = re.compile(r"[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}")
MAX_RATE = 1_000_000_000_000  # bit/s: the app's SessionCodec.MAX_RATE
COUNTERS = (
    "upBytes",
    "downBytes",
    "upPackets",
    "downPackets",
    "upDropPackets",  # issue 16: the DP's drops, the session's control frames
    "downDropPackets",
    "upDropBytes",  # and their octets (the Dropped Packets IE's 32-octet form)
    "downDropBytes",
    "controlPackets",
)


def check_session(s, path: str) -> None:
    """Raises ValueError naming the field for what the app's SessionCodec refuses (unknown
    fields are ignored there too)."""

    def integer(obj: dict, key: str, lo: int, hi: int, optional: bool = False) -> None:
        v = obj.get(key)
        if v is None and optional:
            return
        if v is None:
            raise ValueError(f"{path}.{key}: missing")
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"{path}.{key}: expected an integer, got {type(v).__name__}")
        if not lo <= v <= hi:
            raise ValueError(f"{path}.{key}: {v} is out of range ({lo}..{hi})")

    def text(obj: dict, key: str, where: str, pattern=None, optional: bool = False):
        v = obj.get(key)
        if v is None:
            if optional:
                return None
            raise ValueError(f"{where}.{key}: missing")
        if not isinstance(v, str) or (pattern is not None and not pattern.fullmatch(v)):
            raise ValueError(f"{where}.{key}: {v!r} is not valid")
        return v

    def rfc3339(obj: dict, key: str, where: str) -> None:
        v = text(obj, key, where, optional=True)
        if v is not None:
            try:
                datetime.fromisoformat(v.replace("Z", "+00:00"))
            except ValueError:
                raise ValueError(f"{where}.{key}: {v!r} is not an RFC 3339 time") from None

    if not isinstance(s, dict):
        raise ValueError(f"{path}: expected an object")
    text(s, "id", path)
    for key in ("lineGroup", "accessPort"):
        text(s, key, path, NAME)
    text(s, "qosProfile", path, NAME, optional=True)
    integer(s, "instance", 1, 2**24 - 1)
    integer(s, "stag", 1, 4094)
    integer(s, "ctag", 1, 4094)
    integer(s, "pppoeId", 0, 0xFFFF)
    integer(s, "downRate", 0, MAX_RATE, optional=True)
    integer(s, "upRate", 0, MAX_RATE, optional=True)
    text(s, "mac", path, MAC)
    ip = text(s, "ipv4", path, optional=True)
    if ip is not None:
        try:
            IPv4Address(ip)
        except ValueError:
            raise ValueError(f"{path}.ipv4: {ip!r} is not an IPv4 address") from None
    rfc3339(s, "since", path)
    usage = s.get("usage")
    if usage is not None:
        if not isinstance(usage, dict):
            raise ValueError(f"{path}.usage: expected an object")
        for key in COUNTERS:
            integer(usage, key, 0, 2**63 - 1, optional=True)
        rfc3339(usage, "at", f"{path}.usage")


MAX_WAIT_SECONDS = 60  # the app's limit of GET /placement?wait=


def _integer(name: str, text: str, top: int) -> tuple[int | None, str | None]:
    """A query parameter 0..top in decimal digits, or the app's 400 text."""
    if not text or len(text) > 32 or not text.isascii() or not text.isdigit():
        return None, f'{name}: expected an integer 0..{top}, got "{text[:32]}"'
    if int(text) > top:
        return None, f"{name}: {text} is out of range 0..{top}"
    return int(text), None


def _long_poll(q: dict[str, str]) -> tuple[int | None, int, str | None]:
    """(after, wait seconds, error) of GET /placement's query, as the app reads it."""
    if "after" not in q:
        return None, 0, "wait: only with after" if "wait" in q else None
    after, bad = _integer("after", q["after"], 2**63 - 1)
    if bad:
        return None, 0, bad
    wait, bad = _integer("wait", q["wait"], MAX_WAIT_SECONDS) if "wait" in q else (0, None)
    return after, wait or 0, bad


class FakeOnos:
    def __init__(self, address: str = "127.0.0.1"):
        self.placement: dict = {"version": 1, "groups": [], "instances": []}
        self.resyncs: list[tuple[str, list[dict]]] = []  # (cp, sessions): resyncs completed
        self.staged: dict[tuple[str, str], tuple[int, list[dict]]] = {}  # (cp, id) -> (next page, sessions)
        self.events: list[dict] = []  # {"cp":..., "event":..., "session":...}
        self.health: list[tuple[int, dict]] = []
        self.unauthorized = 0
        self.forbidden = 0
        self.served: dict[int, float] = {}  # placement version -> time.time() it was first served
        # The SEBA app (org.bngpod.seba, docs/seba.md), absent (404) unless a test sets
        # seba_subscribers: its subscribers table, its teardown requests, the PPPoE steps
        # bng-cp posted (refused ones with their reason, as the Java resource does).
        self.seba_subscribers: list[dict] | None = None
        self.seba_teardowns: list[dict] = []
        self.pppoe_events: list[dict] = []
        self.pppoe_refused: list[str] = []
        self.seba_pulls = 0  # subscribers tables served
        self.teardown_polls = 0  # GET /teardowns answered
        self.cond = threading.Condition()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):  # quiet
                pass

            def _auth(self) -> bool:
                def basic(user: str, password: str) -> str:
                    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()

                got = self.headers.get("Authorization")
                if got == basic(CP_USER, CP_PASSWORD):
                    return True
                known = any(got == basic(u, p) for u, p in OTHER_USERS.items())
                with owner.cond:
                    if known:
                        owner.forbidden += 1
                    else:
                        owner.unauthorized += 1
                self._reply(403 if known else 401, {"error": "role" if known else "credentials"})
                return False

            def _reply(self, code: int, body: dict | None = None) -> None:
                data = json.dumps(body).encode() if body is not None else b""
                self.send_response(code)
                if body is not None:
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _body(self):
                n = int(self.headers.get("Content-Length") or 0)
                return json.loads(self.rfile.read(n) or b"null")

            def do_GET(self):
                if not self._auth():
                    return
                u = urlsplit(self.path)
                if u.path == BASE + "/placement":
                    q = {k: v[-1] for k, v in parse_qs(u.query, keep_blank_values=True).items()}
                    after, wait, bad = _long_poll(q)
                    if bad:
                        self._reply(400, {"error": bad})
                        return
                    with owner.cond:
                        end = time.monotonic() + wait
                        while after is not None and owner.placement["version"] == after:
                            left = end - time.monotonic()
                            if left <= 0:
                                break
                            owner.cond.wait(left)
                        owner.served.setdefault(owner.placement["version"], time.time())
                        self._reply(200, owner.placement)
                    return
                if owner.seba_subscribers is not None and u.path == SEBA_BASE + "/subscribers":
                    with owner.cond:
                        self._reply(200, {"subscribers": owner.seba_subscribers, "problems": []})
                        owner.seba_pulls += 1
                        owner.cond.notify_all()
                    return
                if owner.seba_subscribers is not None and u.path == SEBA_BASE + "/teardowns":
                    q = {k: v[-1] for k, v in parse_qs(u.query, keep_blank_values=True).items()}
                    after = q.get("after", "0")
                    if not after or len(after) > 18 or not (after.isascii() and after.isdigit()):
                        # as TeardownsWebResource
                        self._reply(400, {"error": f"after: {after} is not a whole number 0 or above"})
                        return
                    after = int(after)
                    with owner.cond:
                        owner.teardown_polls += 1
                        self._reply(
                            200,
                            {
                                "version": len(owner.seba_teardowns),
                                "teardowns": [t for t in owner.seba_teardowns if t["version"] > after],
                            },
                        )
                    return
                self._reply(404, {"error": "path"})

            def do_PUT(self):
                if not self._auth():
                    return
                u = urlsplit(self.path)
                if u.path == BASE + "/sessions":
                    q = {k: v[0] for k, v in parse_qs(u.query).items()}
                    sessions = self._body()["sessions"]
                    if "cp" not in q or len(sessions) > 10000:
                        self._reply(400, {"error": "cp or page size"})
                        return
                    cp, rid = q["cp"], q.get("resync")
                    try:
                        for i, x in enumerate(sessions):
                            check_session(x, f"sessions[{i}]")
                    except ValueError as e:
                        self._reply(400, {"error": str(e)})
                        return
                    with owner.cond:
                        if rid is None:  # one-request resync
                            done = sessions
                        else:
                            page, last = int(q["page"]), q["last"] == "true"
                            if page == 0:
                                owner.staged = {k: v for k, v in owner.staged.items() if k[0] != cp}
                                owner.staged[(cp, rid)] = (0, [])
                            if owner.staged.get((cp, rid), (-1, []))[0] != page:
                                self._reply(409, {"error": f"resync {rid}: page {page} not expected"})
                                return
                            staged = owner.staged[(cp, rid)][1] + sessions
                            owner.staged[(cp, rid)] = (page + 1, staged)
                            done = staged if last else None
                            if last:
                                del owner.staged[(cp, rid)]
                        if done is not None:
                            owner.resyncs.append((cp, done))
                            owner.cond.notify_all()
                    self._reply(204)
                    return
                self._reply(404, {"error": "path"})

            def do_POST(self):
                if not self._auth():
                    return
                if owner.seba_subscribers is not None and self.path == SEBA_BASE + "/pppoe-events":
                    # as PppoeEventsWebResource: at most MAX_BODY bytes of JSON
                    n = int(self.headers.get("Content-Length") or 0)
                    if n > PPPOE_MAX_BODY:
                        self._reply(400, {"error": f"body larger than {PPPOE_MAX_BODY} bytes"})
                        return
                    try:
                        b = json.loads(self.rfile.read(n))
                    except ValueError as e:
                        self._reply(400, {"error": f"body is not JSON: {e}"})
                        return
                    self._pppoe_events(b)
                    return
                b = self._body()
                if self.path == BASE + "/sessions/events":
                    assert 0 < len(b["events"]) <= 1000
                    try:
                        for i, e in enumerate(b["events"]):
                            check_session(e.get("session"), f"events[{i}].session")
                    except ValueError as e:
                        self._reply(400, {"error": str(e)})
                        return
                    with owner.cond:
                        for e in b["events"]:
                            owner.events.append(dict(e, cp=b["cp"]))
                        owner.cond.notify_all()
                    self._reply(204)
                    return
                parts = self.path[len(BASE) :].split("/")
                if len(parts) == 4 and parts[1] == "instances" and parts[3] == "health":
                    with owner.cond:
                        owner.health.append((int(parts[2]), b))
                        owner.cond.notify_all()
                    self._reply(204)
                    return
                self._reply(404, {"error": "path"})

            def _pppoe_events(self, b) -> None:
                """As PppoeEventsWebResource: the three reported types, valid fields, the line
                mapped by the table (else unmapped)."""
                if not isinstance(b, dict) or set(b) != {"events"} or not isinstance(b["events"], list):
                    self._reply(400, {"error": "body must be {events: [...]}"})
                    return
                if len(b["events"]) > PPPOE_MAX_EVENTS:
                    self._reply(400, {"error": f"{len(b['events'])} events, at most {PPPOE_MAX_EVENTS}"})
                    return
                posted, unmapped, refused = 0, 0, []
                with owner.cond:
                    lines = {(x["accessPort"], x["stag"], x["ctag"]) for x in owner.seba_subscribers}
                    for i, e in enumerate(b["events"]):
                        ok = (
                            isinstance(e, dict)
                            and set(e) == {"type", "accessPort", "stag", "ctag", "mac", "pppoeId"}
                            and e["type"] in PPPOE_EVENT_TYPES
                            and isinstance(e["accessPort"], str)
                            and 1 <= len(e["accessPort"]) <= 64
                            and isinstance(e["stag"], int)
                            and isinstance(e["ctag"], int)
                            and 1 <= e["stag"] <= 4094
                            and 1 <= e["ctag"] <= 4094
                            and isinstance(e["pppoeId"], int)
                            and 0 <= e["pppoeId"] <= 0xFFFF
                            and re.fullmatch(r"[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}", str(e["mac"])) is not None
                        )
                        if not ok:
                            refused.append(f"event {i}: not valid")
                        elif (e["accessPort"], e["stag"], e["ctag"]) in lines:
                            owner.pppoe_events.append(e)
                            posted += 1
                        else:
                            unmapped += 1
                    owner.pppoe_refused += refused
                    owner.cond.notify_all()
                self._reply(200, {"posted": posted, "unmapped": unmapped, "refused": refused})

        self.server = ThreadingHTTPServer((address, 0), Handler)
        self.url = f"http://{address}:{self.server.server_address[1]}{BASE}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self) -> FakeOnos:
        self._thread.start()
        return self

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def place(self, version: int, groups: dict[str, int | None], instances: dict[int, str] | None = None) -> None:
        """Placement `version`: each line group on an instance id (None: unplaced); the
        instances (id -> name, all available; default dp1 and dp2)."""
        instances = instances or {1: "dp1", 2: "dp2"}
        with self.cond:
            self.placement = {
                "version": version,
                "groups": [
                    {"lineGroup": g, "instance": i, "state": "placed" if i else "unplaced", "reason": "test"}
                    for g, i in groups.items()
                ],
                "instances": [{"id": i, "name": n, "available": True} for i, n in sorted(instances.items())],
            }
            self.cond.notify_all()

    def seba_teardown(self, access_port: str, stag: int, ctag: int, uni: str, cause: str) -> dict:
        """Add a teardown request as the SEBA app's TeardownLog does (the next version, `at`
        now as Java's Instant prints it: ISO-8601 UTC, milliseconds unless zero); refuses what
        the app never makes. The request."""
        if cause not in TEARDOWN_CAUSES:
            raise ValueError(f"cause {cause!r}: the SEBA app requests only {TEARDOWN_CAUSES}")
        if not (NAME.fullmatch(access_port) and 1 <= stag <= 4094 and 1 <= ctag <= 4094 and uni):
            raise ValueError(f"not a line the SEBA app maps: {access_port} {stag}.{ctag} {uni!r}")
        now = datetime.now(UTC)
        ms = now.microsecond // 1000
        at = now.strftime("%Y-%m-%dT%H:%M:%S") + (f".{ms:03d}" if ms else "") + "Z"
        with self.cond:
            t = {
                "version": len(self.seba_teardowns) + 1,
                "accessPort": access_port,
                "stag": stag,
                "ctag": ctag,
                "uni": uni,
                "cause": cause,
                "at": at,
            }
            self.seba_teardowns.append(t)
            self.cond.notify_all()
        return t

    def wait(self, pred, timeout: float = 15.0, what: str = "condition"):
        end = time.monotonic() + timeout
        with self.cond:
            while True:
                v = pred()
                if v:
                    return v
                left = end - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"timed out waiting for {what}")
                self.cond.wait(min(left, 0.2))

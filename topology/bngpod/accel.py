"""accel-ppp as the pod's PPPoE control plane: its configuration, the control server's VXLAN
set-up script and the systemd units (docs/cp/accel-ppp.md).

The control server terminates the frames bng-dp redirects (VXLAN, VNI = instance id) on
kernel interfaces:

    vx<id>               VXLAN, one per DP instance: VNI <id>, local = the control plane's
                         address, remote = the instance's control address, learning off
    vx<id>.<S>           one per S-tag of a line group placed on the instance (802.1Q or
                         802.1ad as the access port's TPID), MAC = the group's AC MAC
    vx<id>.<S>.<C>       made by accel-ppp's vlan-mon on demand (vlan-name=%I.%N); a VLAN
                         device inherits its parent's MAC, so accel-ppp answers from the
                         group's AC MAC, which bng-dp's inject guard demands

accel-ppp.conf is for upstream accel-ppp (session events through pppd-compat ip-up/ip-down
scripts); accel-ppp-redis.conf for the fork of the BISDN/Altran vBNG (JSON events on redis).
check_conf() is a checker as strict as accel-ppp's own parser (triton/conf_file.c) for the
sections and keys written here; generate refuses to write a file it rejects."""

from __future__ import annotations

import ipaddress
import re

from . import model as m

MAX_INSTANCE_ID = 999  # "vx999.4094.4094" is 15 characters: IFNAMSIZ - 1
GLUE_SOCKET = "/run/bngpod/accel-glue.sock"
HOOKS = "/etc/bngpod/accel-ppp/hooks"  # pppd-compat scripts: `bng-accel-glue hook <script>`
HOOK_SCRIPTS = ("ip-pre-up", "ip-down", "ip-change")
RADATTR = "/run/bngpod/radattr"
CLI = "127.0.0.1:2001"
REDIS_CHANNEL = "accel-ppp"
# accel-ppp's ppp module: the PPPoE MRU bng-dp's sessions are installed with (its default MTU)
PPP_MRU = 1492
# bng-cp's defaults (--lcp-echo-interval, --lcp-echo-failures): the same keepalive either way
LCP_ECHO_INTERVAL = 10
LCP_ECHO_FAILURE = 3
# accel-ppp reads lines with fgets(buf, 1024): a longer line is cut in two
MAX_LINE = 1022


class AccelError(ValueError):
    """The pod cannot be expressed as an accel-ppp deployment (the message says why)."""


def ifname(inst: m.Instance, stag: int | None = None) -> str:
    return f"vx{inst.id}" if stag is None else f"vx{inst.id}.{stag}"


def _token(what: str, value: str) -> str:
    """A value accel-ppp splits on ',' (radius server, dae-server) or trims: refuse what it
    would misread rather than write a file that means something else."""
    if not value or re.search(r"[,\s#\x00-\x1f\x7f]", value):
        raise AccelError(f"{what} {value!r}: accel-ppp.conf cannot carry ',', '#', spaces or control characters")
    return value


def _ranges(tags: list[int]) -> str:
    """1,2,3,7 -> '1-3,7' (vlan-mon's filter form)."""
    out: list[str] = []
    for t in sorted(set(tags)):
        if out and "-" in out[-1] and int(out[-1].split("-")[1]) == t - 1:
            out[-1] = f"{out[-1].split('-')[0]}-{t}"
        elif out and "-" not in out[-1] and int(out[-1]) == t - 1:
            out[-1] = f"{out[-1]}-{t}"
        else:
            out.append(str(t))
    return ",".join(out)


class SVlan:
    """One S-tag interface of an instance."""

    def __init__(self, inst: m.Instance, stag: int, group: m.LineGroup, tpid: int, ctags: list[int]):
        self.inst, self.stag, self.group, self.tpid, self.ctags = inst, stag, group, tpid, ctags

    @property
    def name(self) -> str:
        return ifname(self.inst, self.stag)


def svlans(pod: m.Pod, inst: m.Instance) -> list[SVlan]:
    """The S-tag interfaces of an instance: every S-tag of the line groups the pod file places
    on it. An S-tag whose C-tags are split between two groups on one instance cannot be: the
    C-tag interfaces vlan-mon makes all take the S-tag interface's MAC."""
    if inst.id > MAX_INSTANCE_ID:
        raise AccelError(f"instance {inst.name}: id {inst.id} above {MAX_INSTANCE_ID} (interface names)")
    by_stag: dict[int, SVlan] = {}
    for g in inst.groups:
        for ln in g.lines:
            ctags = list(range(ln.ctag.lo, ln.ctag.hi + 1)) if ln.ctag else list(range(1, 4095))
            for s in range(ln.stag.lo, ln.stag.hi + 1):
                sv = by_stag.get(s)
                if sv is None:
                    by_stag[s] = SVlan(inst, s, g, ln.port.tpid, ctags)
                elif sv.group is not g:
                    raise AccelError(
                        f"instance {inst.name}: S-tag {s} is split between line groups {sv.group.name} and "
                        f"{g.name}; accel-ppp answers from one MAC per S-tag interface"
                    )
                else:
                    sv.ctags = sv.ctags + ctags
    return [by_stag[s] for s in sorted(by_stag)]


def _vlan_mon(pod: m.Pod) -> list[str]:
    """vlan-mon lines: per instance, one per set of C-tags watched, naming its S-tag
    interfaces by a regular expression (cut in several lines before accel-ppp's line limit)."""
    out = []
    for inst in pod.instances:
        by_filter: dict[str, list[int]] = {}
        for sv in svlans(pod, inst):
            by_filter.setdefault(_ranges(sv.ctags), []).append(sv.stag)
        everything = {sv.stag for sv in svlans(pod, inst)}
        for filt, stags in by_filter.items():
            if set(stags) == everything:
                out.append(f"re:^vx{inst.id}\\.[0-9]+$,{filt}")
                continue
            chunk: list[str] = []
            for t in stags:
                chunk.append(str(t))
                if len("|".join(chunk)) > 600:
                    out.append(f"re:^vx{inst.id}\\.({'|'.join(chunk)})$,{filt}")
                    chunk = []
            if chunk:
                out.append(f"re:^vx{inst.id}\\.({'|'.join(chunk)})$,{filt}")
    return out


def _pools4(pod: m.Pod) -> list[m.Pool]:
    """The IPv4 pools: accel-ppp's [ip-pool] (IPv6 is denied in this mode, [ppp] ipv6=deny)."""
    return [p for p in pod.pools if p.prefix.version == 4]


def _pool_lines(pod: m.Pod) -> list[str]:
    # ippool gives out every address of the prefix; bng-dp accepts any address inside the
    # line group's prefixes
    # the pools of one line group are chained (next=): one is full, the next is used
    out = []
    pools = _pools4(pod)
    for p in pools:
        same = [q for q in pools if q.group == p.group]
        after = same[same.index(p) + 1 :]
        out.append(f"{p.prefix},name={p.name}" + (f",next={after[0].name}" if after else ""))
    return out


def _default_pool(pod: m.Pod) -> list[str]:
    """[pppoe] ip-pool when one line group has pools: accel-ppp picks a pool per session only
    from RADIUS (Framed-Pool), not per interface; with several groups RADIUS must name the
    group's pool (bng-accel-glue refuses an address outside the session's line group)."""
    pools = _pools4(pod)
    groups = {p.group for p in pools}
    return [f"ip-pool={pools[0].name}"] if len(groups) == 1 and pools else []


def conf(pod: m.Pod, events: str) -> str:
    """accel-ppp's configuration. events: 'pppd-compat' (upstream accel-ppp: ip-up/ip-down
    scripts) or 'redis' (the BISDN/Altran fork's redis module)."""
    if events not in ("pppd-compat", "redis"):
        raise ValueError(events)
    rad = pod.radius
    nas = _token("radius nas_identifier", rad.nas_identifier)
    dae_secret = _token("radius secret", rad.servers[0].secret)
    modules = ["log_syslog", "pppoe", "auth_pap", "auth_chap_md5", "radius", "ippool"]
    # pppd_compat in both: with the fork it writes only the radattr files (the Access-Accept's
    # attributes: the session's rates), the events go on redis
    modules += ["sigchld", "pppd_compat"] + (["redis"] if events == "redis" else [])
    s: list[tuple[str, list[str]]] = [("modules", modules)]
    s.append(("core", ["thread-count=2"]))
    s.append(("common", ["single-session=replace", "sid-case=lower"]))
    s.append(
        (
            "ppp",
            [
                "verbose=1",
                "min-mtu=1280",
                f"mtu={PPP_MRU}",
                f"mru={PPP_MRU}",
                "ipv4=require",
                "ipv6=deny",
                # the kernel PPP unit sees no data (bng-dp forwards it): keepalives by LCP
                # echoes only, never the adaptive lcp-echo-timeout that counts data
                f"lcp-echo-interval={LCP_ECHO_INTERVAL}",
                f"lcp-echo-failure={LCP_ECHO_FAILURE}",
                "unit-cache=1000",
            ],
        )
    )
    s.append(("auth", ["timeout=10"]))
    pppoe = [
        "verbose=1",
        f"ac-name=bngpod-{_token('pod name', pod.name)}",
        # Called-Station-Id = the interface the PADR came in on: the glue's key to the line
        "called-sid=ifname",
        "padi-limit=0",
        "vlan-timeout=0",
        "vlan-name=%I.%N",
    ]
    pppoe += _default_pool(pod)
    pppoe += [f"vlan-mon={v}" for v in _vlan_mon(pod)]
    pppoe += [f"interface=re:^vx{inst.id}\\.[0-9]+\\.[0-9]+$" for inst in pod.instances if svlans(pod, inst)]
    s.append(("pppoe", pppoe))
    dns = sorted({str(d) for p in _pools4(pod) for d in p.dns if d.version == 4}, key=ipaddress.ip_address)
    if len(dns) > 2:
        raise AccelError(f"accel-ppp gives two DNS servers ([dns] dns1, dns2); the pools name {len(dns)}")
    s.append(("dns", [f"dns{i + 1}={d}" for i, d in enumerate(dns)]))
    servers = [
        f"server={srv.address},{_token(f'radius server {srv.name} secret', srv.secret)},"
        f"auth-port={srv.auth_port},acct-port=0,req-limit=0,fail-timeout=0,max-fail=10,weight=1"
        for srv in rad.servers
    ]
    s.append(
        (
            "radius",
            [
                f"nas-identifier={nas}",
                f"nas-ip-address={pod.control_plane.address}",
                f"gw-ip-address={_gateway(pod)}",
                # bng-accel-glue accounts from bng-dp's usage reports: accel-ppp's kernel
                # unit counts nothing, so its own accounting stays off (acct-port=0)
                *servers,
                f"dae-server={pod.control_plane.address}:{rad.coa_port},{dae_secret}",
                f"timeout={max(1, rad.timeout_ms // 1000)}",
                f"max-try={rad.retries + 1}",
                "acct-on=0",
                "blast-protection=1",
                "verbose=1",
            ],
        )
    )
    s.append(("ip-pool", [f"gw-ip-address={_gateway(pod)}", "attr=Framed-Pool", *_pool_lines(pod)]))
    s.append(("log", ["syslog=accel-pppd,daemon", "copy=1", "level=3"]))
    columns = "sid,ifname,username,ip,calling-sid,called-sid,state"
    s.append(("cli", ["verbose=1", f"tcp={CLI}", f"sessions-columns={columns}"]))
    scripts = [f"{h}={HOOKS}/{h}" for h in HOOK_SCRIPTS] if events == "pppd-compat" else []
    # ip-pre-up: accel-ppp waits for it and ends the session when it fails, so a session
    # bng-dp refused never comes up
    s.append(("pppd-compat", ["verbose=1", *scripts, f"radattr-prefix={RADATTR}", "fork-limit=16"]))
    if events == "redis":
        s.append(
            (
                "redis",
                [
                    "host=127.0.0.1",
                    "port=6379",
                    f"pubchan={REDIS_CHANNEL}",
                    "ev_ses_acct_start=yes",
                    "ev_ses_started=yes",
                    "ev_ses_pre_finished=yes",
                    "ev_radius_coa=yes",
                    "ev_ip_changed=yes",
                ],
            )
        )
    flavour = "upstream accel-ppp, pppd-compat events" if events == "pppd-compat" else "the BISDN/Altran fork, redis"
    head = [
        f"# accel-ppp configuration for the control server of pod {pod.name}",
        f"# ({flavour}).",
        "# Generated by `bngpod generate` from the pod file; do not edit. See docs/cp/accel-ppp.md",
    ]
    out = head[:]
    for name, lines in s:
        out.append("")
        out.append(f"[{name}]")
        out.extend(lines)
    text = "\n".join(out) + "\n"
    errors = check_conf(text)
    if errors:
        raise AccelError("; ".join(errors))
    return text


def _gateway(pod: m.Pod) -> ipaddress.IPv4Address:
    """The local address of accel-ppp's PPP units (IPCP's own address). bng-dp routes the
    subscribers; the address only has to be outside every pool: the control plane's."""
    return pod.control_plane.address


def net_script(pod: m.Pod) -> str:
    """The control server's interfaces (`bngpod-accel-net up|down`)."""
    cp = pod.control_plane
    lines = [
        "#!/bin/sh",
        f"# The control server's VXLAN interfaces for accel-ppp, pod {pod.name}. Generated by",
        "# `bngpod generate`; do not edit. See docs/cp/accel-ppp.md.",
        "#   bngpod-accel-net up [--no-vlan]   create them (idempotent: an existing one is replaced)",
        "#   bngpod-accel-net down             remove them",
        "# --no-vlan: only the VXLAN interfaces (a kernel without 802.1Q, as the project's test machine).",
        "set -eu",
        'IP="${IP:-ip}"',
        "",
        "vxlan() { # name vni remote",
        '    $IP link del "$1" 2>/dev/null || true',
        f'    $IP link add "$1" type vxlan id "$2" local {cp.address} remote "$3" dstport {cp.vxlan_port} nolearning',
        # QinQ + PPPoE inside: the S- and C-tag take 8 octets more than a plain frame
        '    $IP link set "$1" mtu 1508 up',
        "}",
        "",
        "svlans() { # parent first-stag last-stag proto mac",
        "    s=$2",
        '    while [ "$s" -le "$3" ]; do',
        '        $IP link add link "$1" name "$1.$s" type vlan protocol "$4" id "$s"',
        '        $IP link set "$1.$s" address "$5" mtu 1504 up',
        "        s=$((s + 1))",
        "    done",
        "}",
        "",
        'case "${1:-}" in',
        "up)",
        '    novlan=no; [ "${2:-}" = "--no-vlan" ] && novlan=yes',
    ]
    for inst in pod.instances:
        svs = svlans(pod, inst)
        if not svs:
            continue
        lines.append(f"    vxlan {ifname(inst)} {inst.id} {inst.control}")
        lines.append('    if [ "$novlan" = no ]; then')
        runs: list[list] = []  # [first, last, proto, mac]
        for sv in svs:
            proto = "802.1ad" if sv.tpid == 0x88A8 else "802.1Q"
            if runs and runs[-1][1] == sv.stag - 1 and runs[-1][2:] == [proto, sv.group.ac_mac]:
                runs[-1][1] = sv.stag
            else:
                runs.append([sv.stag, sv.stag, proto, sv.group.ac_mac])
        lines.extend(f"        svlans {ifname(inst)} {a} {b} {proto} {mac}" for a, b, proto, mac in runs)
        lines.append("    fi")
    lines += ["    ;;", "down)"]
    for inst in pod.instances:
        if svlans(pod, inst):
            lines.append(f"    $IP link del {ifname(inst)} 2>/dev/null || true")
    lines += [
        "    ;;",
        "*)",
        '    echo "usage: $0 up [--no-vlan] | down" >&2',
        "    exit 2",
        "    ;;",
        "esac",
    ]
    return "\n".join(lines) + "\n"


def units(pod: m.Pod) -> dict[str, str]:
    head = f"# pod {pod.name}: generated by `bngpod generate`; do not edit. See docs/cp/accel-ppp.md\n"
    return {
        "bngpod-accel-net.service": head
        + "[Unit]\nDescription=bngpod: VXLAN interfaces of the DP instances for accel-ppp\n"
        "After=network-online.target\nWants=network-online.target\nBefore=accel-ppp.service\n\n"
        "[Service]\nType=oneshot\nRemainAfterExit=yes\n"
        "ExecStart=/bin/sh /etc/bngpod/accel-ppp/bngpod-accel-net up\n"
        "ExecStop=/bin/sh /etc/bngpod/accel-ppp/bngpod-accel-net down\n\n"
        "[Install]\nWantedBy=multi-user.target\n",
        "accel-ppp.service.d/bngpod.conf": head
        + "[Unit]\nRequires=bngpod-accel-net.service\nAfter=bngpod-accel-net.service bng-accel-glue.service\n\n"
        # in the foreground (no -d), as accel-ppp's own accel-ppp.service runs it
        "[Service]\nType=simple\nExecStart=\n"
        "ExecStart=/usr/sbin/accel-pppd -c /etc/bngpod/accel-ppp/accel-ppp.conf -p /run/accel-pppd.pid\n",
        "bng-accel-glue.service": head + "[Unit]\nDescription=bngpod: accel-ppp sessions into bng-dp over PFCP\n"
        "After=network-online.target bngpod-accel-net.service\nWants=network-online.target\n\n"
        # /proc/net/pppoe (the PPPoE session ids) exists once the pppoe module is loaded
        "[Service]\nRuntimeDirectory=bngpod\nRuntimeDirectoryPreserve=yes\nExecStartPre=-/sbin/modprobe pppoe\n"
        "ExecStart=/usr/local/bin/bng-accel-glue -config /etc/bngpod/cp.yaml -state /var/lib/bngpod/accel-glue.db "
        f"-hook-socket {GLUE_SOCKET} -cli {CLI} -radattr-prefix {RADATTR}\n"
        "Restart=always\nRestartSec=1\n\n"
        "[Install]\nWantedBy=multi-user.target\n",
    }


def files(pod: m.Pod) -> dict[str, str]:
    """Everything under accel-ppp/ of the generated directory; a pod accel-ppp cannot serve
    gets NOT-RENDERED.txt with the reason instead."""
    try:
        out = {
            "accel-ppp/accel-ppp.conf": conf(pod, "pppd-compat"),
            "accel-ppp/accel-ppp-redis.conf": conf(pod, "redis"),
            "accel-ppp/bngpod-accel-net": net_script(pod),
        }
    except AccelError as exc:
        return {"accel-ppp/NOT-RENDERED.txt": f"accel-ppp configuration not rendered: {exc}\n"}
    for name, text in units(pod).items():
        out[f"accel-ppp/systemd/{name}"] = text
    for h in HOOK_SCRIPTS:
        out[f"accel-ppp/hooks/{h}"] = hook_script(pod, h)
    return out


def hook_script(pod: m.Pod, script: str) -> str:
    """A pppd-compat script: hands its arguments and environment to bng-accel-glue (install
    with mode 0755: accel-ppp skips a script it cannot execute)."""
    return (
        "#!/bin/sh\n"
        f"# accel-ppp's pppd-compat {script} for pod {pod.name}: bng-accel-glue's hook. Generated by\n"
        "# `bngpod generate`; do not edit. See docs/cp/accel-ppp.md.\n"
        f'exec /usr/local/bin/bng-accel-glue hook -socket {GLUE_SOCKET} {script} "$@"\n'
    )


# ---- the checker -----------------------------------------------------------------------

_INT = r"(0|[1-9][0-9]{0,8})"
_IPV4 = r"(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}"
_PORT = r"([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])"
_TOKEN = r"[^,\s#]+"  # noqa: S105 (a pattern, not a password)
_VLANS = r"[0-9]{1,4}(-[0-9]{1,4})?(,[0-9]{1,4}(-[0-9]{1,4})?)*"
_PATH = r"/[A-Za-z0-9_./-]+"

# Which keys each section takes (accel-ppp's man page accel-ppp.conf(5) and its module
# sources), the form of their values, and whether a key may repeat: accel-ppp's
# conf_get_opt() returns the first occurrence, so a repeated single key would be ignored
# silently; the repeatable ones are those a module walks item by item.
_KEYS: dict[str, dict[str, tuple[str, bool]]] = {
    "core": {"thread-count": (_INT, False), "log-error": (_PATH, False)},
    "common": {
        "single-session": ("(replace|deny)", False),
        "sid-case": ("(upper|lower)", False),
    },
    "ppp": {
        "verbose": (_INT, False),
        "min-mtu": (_INT, False),
        "mtu": (_INT, False),
        "mru": (_INT, False),
        "ipv4": ("(deny|allow|prefer|require)", False),
        "ipv6": ("(deny|allow|prefer|require)", False),
        "lcp-echo-interval": (_INT, False),
        "lcp-echo-failure": (_INT, False),
        "unit-cache": (_INT, False),
    },
    "auth": {"timeout": (_INT, False)},
    "pppoe": {
        "verbose": (_INT, False),
        "ac-name": (_TOKEN, False),
        "called-sid": ("(ifname|mac|ifname:mac)", False),
        "padi-limit": (_INT, False),
        "vlan-timeout": (_INT, False),
        "vlan-name": ("%I\\.%N", False),
        "vlan-mon": (r"re:\^vx[0-9]{1,3}\\\.(\[0-9\]\+|\([0-9]{1,4}(\|[0-9]{1,4})*\))\$," + _VLANS, True),
        "ip-pool": (r"[A-Za-z0-9_.-]+", False),
        "interface": (r"re:\^vx[0-9]{1,3}\\\.\[0-9\]\+\\\.\[0-9\]\+\$", True),
    },
    "dns": {"dns1": (_IPV4, False), "dns2": (_IPV4, False)},
    "radius": {
        "nas-identifier": (_TOKEN, False),
        "nas-ip-address": (_IPV4, False),
        "gw-ip-address": (_IPV4, False),
        "server": (
            _IPV4
            + ","
            + _TOKEN
            + ",auth-port="
            + _PORT
            + ",acct-port=(0|"
            + _PORT
            + "),req-limit="
            + _INT
            + ",fail-timeout="
            + _INT
            + ",max-fail="
            + _INT
            + ",weight="
            + _INT,
            True,
        ),  # fmt: skip
        "dae-server": (_IPV4 + ":" + _PORT + "," + _TOKEN, False),
        "timeout": (_INT, False),
        "max-try": (_INT, False),
        "acct-on": ("[01]", False),
        "blast-protection": ("[01]", False),
        "verbose": (_INT, False),
    },
    "ip-pool": {"gw-ip-address": (_IPV4, False), "attr": (_TOKEN, False)},
    "log": {"syslog": (r"[A-Za-z0-9_-]+,daemon", False), "copy": (_INT, False), "level": ("[0-5]", False)},
    "cli": {
        "verbose": ("[0-2]", False),
        "tcp": (_IPV4 + ":" + _PORT, False),
        "sessions-columns": ("[a-z0-9-]+(,[a-z0-9-]+)*", False),
    },
    "pppd-compat": {
        "ip-pre-up": (_PATH, False),
        "verbose": (_INT, False),
        "ip-up": (_PATH, False),
        "ip-down": (_PATH, False),
        "ip-change": (_PATH, False),
        "radattr-prefix": (_PATH, False),
        "fork-limit": (_INT, False),
    },
    "redis": {
        "host": (_IPV4, False),
        "port": (_PORT, False),
        "pubchan": (_TOKEN, False),
        **{
            f"ev_{e}": ("yes", False)
            for e in ("ses_acct_start", "ses_started", "ses_pre_finished", "radius_coa", "ip_changed", "ses_authorized")
        },
    },
}
_MODULES = {
    "log_syslog", "pppoe", "auth_pap", "auth_chap_md5", "radius", "ippool", "sigchld", "pppd_compat", "redis",
}  # fmt: skip
_SHOW_COLUMNS = {"sid", "ifname", "username", "ip", "calling-sid", "called-sid", "state", "type", "uptime-raw"}


def _split(line: str) -> tuple[str, str | None]:
    """name and value as triton/conf_file.c splits them: the name ends at a space, tab or
    '='; then '=' or ',' starts the value (spaces around it skipped); else no value."""
    i = 0
    while i < len(line) and line[i] not in " \t=":
        i += 1
    name, rest = line[:i], line[i:].lstrip(" \t")
    if rest[:1] in ("=", ","):
        return name, rest[1:].lstrip(" \t")
    return name, None


def check_conf(text: str) -> list[str]:
    """Errors in an accel-ppp.conf, each with its line number; [] when accel-ppp reads it as
    meant. Parsing as conf_file.c: lines cut at 1023 bytes by fgets, trailing spaces and
    tabs dropped, '#' starts a comment only as the first non-blank character, '[name]' opens
    a section, a value ending in '{' opens a nested block (never written here)."""
    errors: list[str] = []
    section: str | None = None
    seen: dict[str, set[str]] = {}
    modules: list[str] = []
    pools: list[tuple[int, int]] = []
    for no, raw in enumerate(text.split("\n"), 1):
        if len(raw.encode()) > MAX_LINE:
            errors.append(f"line {no}: {len(raw.encode())} bytes, accel-ppp reads at most {MAX_LINE} per line")
            continue
        if "\r" in raw or "\t" in raw:
            errors.append(f"line {no}: tab or carriage return")
        line = raw.rstrip(" \t").lstrip(" \t")
        if not line or line.startswith("#"):
            continue
        if line.startswith("$include"):
            errors.append(f"line {no}: $include not expected")
            continue
        if line.startswith("["):
            if not line.endswith("]") or "]" in line[:-1]:
                errors.append(f"line {no}: section header {line!r}")
                continue
            section = line[1:-1]
            if section in seen:
                errors.append(f"line {no}: section [{section}] opened twice")
            if section != "modules" and section not in _KEYS:
                errors.append(f"line {no}: unknown section [{section}]")
            seen.setdefault(section, set())
            continue
        if section is None:
            errors.append(f"line {no}: no section opened")
            continue
        name, value = _split(line)
        if value is not None and value.endswith("{"):
            errors.append(f"line {no}: a value ending in '{{' opens a nested block")
            continue
        if section == "modules":
            if value is not None or name not in _MODULES:
                errors.append(f"line {no}: module {line!r}")
            elif name in modules:
                errors.append(f"line {no}: module {name} twice")
            modules.append(name)
            continue
        if section == "ip-pool" and name not in _KEYS["ip-pool"]:
            pools.extend(_check_pool(no, line, errors))
            continue
        keys = _KEYS.get(section, {})
        if name not in keys:
            errors.append(f"line {no}: [{section}] {name}: not a key written for accel-ppp here")
            continue
        form, repeat = keys[name]
        if value is None or not re.fullmatch(form, value):
            errors.append(f"line {no}: [{section}] {name}={value!r} does not match {form}")
        if name in seen[section] and not repeat:
            errors.append(f"line {no}: [{section}] {name} repeated: accel-ppp reads only the first")
        seen[section].add(name)
        if section == "cli" and name == "sessions-columns" and value:
            bad = set(value.split(",")) - _SHOW_COLUMNS
            if bad:
                errors.append(f"line {no}: show sessions columns {sorted(bad)}")
        if name in ("vlan-mon",) and value:
            for part in value.split(",")[1:]:
                lo, _, hi = part.partition("-")
                if not (1 <= int(lo) <= 4094 and 1 <= int(hi or lo) <= 4094 and int(lo) <= int(hi or lo)):
                    errors.append(f"line {no}: vlan-mon filter {part}")
    for need in ("pppoe", "radius", "ippool"):
        if need not in modules:
            errors.append(f"[modules] lacks {need}")
    if ("pppd_compat" in modules) != ("pppd-compat" in seen):
        errors.append("[modules] pppd_compat and the [pppd-compat] section go together")
    if "pppd_compat" in modules and "sigchld" not in modules:
        errors.append("pppd_compat needs the sigchld module")
    if ("redis" in modules) != ("redis" in seen):
        errors.append("[modules] redis and the [redis] section go together")
    if "redis" in modules and any(k.startswith("ip-") for k in seen.get("pppd-compat", set())):
        errors.append("pppd-compat scripts and redis both report sessions: pick one")
    for sect, keys in (("pppoe", ("interface", "called-sid")), ("cli", ("tcp",)), ("radius", ("server",))):
        for k in keys:
            if k not in seen.get(sect, set()):
                errors.append(f"[{sect}] lacks {k}")
    pools.sort()
    for (_, hi), (lo, _) in zip(pools, pools[1:], strict=False):
        if lo <= hi:
            errors.append("[ip-pool] ranges overlap (ippool would give an address out twice)")
    return errors


def _check_pool(no: int, line: str, errors: list[str]) -> list[tuple[int, int]]:
    """A range line of [ip-pool]: x.x.x.x/mask,name=N or x.x.x.x-y,name=N (ippool parses
    the raw line). Returns its first and last address, for the overlap check."""
    mo = re.fullmatch(
        r"(?P<ip>" + _IPV4 + r")(/(?P<mask>[0-9]{1,2})|-(?P<last>[0-9]{1,3}))"
        r",name=[A-Za-z0-9_.-]+(,next=[A-Za-z0-9_.-]+)?",
        line,
    )
    if not mo:
        errors.append(f"line {no}: [ip-pool] range {line!r}")
        return []
    first = int(ipaddress.IPv4Address(mo["ip"]))
    if mo["mask"] is not None:
        try:
            net = ipaddress.IPv4Network(f"{mo['ip']}/{mo['mask']}")
        except ValueError:
            errors.append(f"line {no}: [ip-pool] {line!r}: host bits set or bad mask")
            return []
        return [(int(net.network_address), int(net.broadcast_address))]
    last = int(mo["last"])
    if not first & 0xFF <= last <= 255:
        errors.append(f"line {no}: [ip-pool] {line!r}: last octet before the first")
        return []
    return [(first, (first & ~0xFF) + last)]

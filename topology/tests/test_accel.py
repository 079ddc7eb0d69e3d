"""accel-ppp's configuration (bngpod/accel.py): the files check against accel-ppp's parser
rules and documented keys, say what the pod file says, and the checker itself bites."""

import re
import subprocess
from pathlib import Path

import pytest
import yaml

from bngpod import accel, validate

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples"
GOLDEN = HERE / "golden"


def conf_items(text: str) -> dict[str, list[tuple[str, str | None]]]:
    out: dict[str, list] = {}
    section = None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            section = line[1:-1]
            out[section] = []
            continue
        out[section].append(accel._split(line))
    return out


def values(items, key):
    return [v for k, v in items if k == key]


@pytest.mark.parametrize("example", ["lab", "minimal"])
@pytest.mark.parametrize("name", ["accel-ppp.conf", "accel-ppp-redis.conf"])
def test_golden_conf_passes_the_checker(example, name):
    text = (GOLDEN / example / "accel-ppp" / name).read_text()
    assert accel.check_conf(text) == []


def test_conf_says_what_the_pod_says():
    pod = validate.load(EXAMPLES / "lab.yaml")
    items = conf_items((GOLDEN / "lab" / "accel-ppp" / "accel-ppp.conf").read_text())
    pppoe = items["pppoe"]
    assert values(pppoe, "called-sid") == ["ifname"]  # the glue's key to the line
    assert values(pppoe, "ac-name") == ["bngpod-lab"]
    # every instance with lines has exactly its interface pattern
    assert values(pppoe, "interface") == [f"re:^vx{i.id}\\.[0-9]+\\.[0-9]+$" for i in pod.instances]
    # vlan-mon watches, on each S-tag interface the set-up script makes (the lines' S-tags
    # on their instance, test_script_makes_what_the_pod_says), exactly the lines' C-tags
    want: dict[tuple[int, int], set[int]] = {}
    for inst in pod.instances:
        for g in inst.groups:
            for ln in g.lines:
                for s in range(ln.stag.lo, ln.stag.hi + 1):
                    c = set(range(ln.ctag.lo, ln.ctag.hi + 1)) if ln.ctag else set(range(1, 4095))
                    want.setdefault((inst.id, s), set()).update(c)
    watched: dict[tuple[int, int], set[int]] = {}
    for v in values(pppoe, "vlan-mon"):
        pattern, _, filt = v.partition(",")
        ctags = set()
        for part in filt.split(","):
            lo, _, hi = part.partition("-")
            ctags |= set(range(int(lo), int(hi or lo) + 1))
        for inst, stag in want:
            if re.fullmatch(pattern[3:], f"vx{inst}.{stag}"):
                assert (inst, stag) not in watched, "an S-tag interface watched twice"
                watched[(inst, stag)] = ctags
    assert watched == want
    # RADIUS: every server for authentication, accounting off (the glue accounts)
    servers = values(items["radius"], "server")
    assert [s.split(",")[0] for s in servers] == [str(s.address) for s in pod.radius.servers]
    assert all(",acct-port=0," in s for s in servers)
    # pools: every pool of the pod, by name, with its prefix
    ranges = [line for line, v in items["ip-pool"] if v is None or line.startswith("100.")]
    assert {r.split(",")[0] for r in ranges} == {str(p.prefix) for p in pod.pools}
    # pppd-compat hooks point at the glue's hook, and the redis variant has the events the glue needs
    for h in ("ip-pre-up", "ip-down", "ip-change"):
        assert values(items["pppd-compat"], h) == [f"/etc/bngpod/accel-ppp/hooks/{h}"]
        hook = (GOLDEN / "lab" / "accel-ppp" / "hooks" / h).read_text()
        assert f"bng-accel-glue hook -socket /run/bngpod/accel-glue.sock {h} " in hook
    redis = conf_items((GOLDEN / "lab" / "accel-ppp" / "accel-ppp-redis.conf").read_text())["redis"]
    assert values(redis, "ev_ses_acct_start") == ["yes"] and values(redis, "ev_ses_pre_finished") == ["yes"]
    # with the fork, pppd-compat only writes the radattr files (rates), runs no script
    fork = conf_items((GOLDEN / "lab" / "accel-ppp" / "accel-ppp-redis.conf").read_text())
    assert sorted(k for k, _ in fork["pppd-compat"]) == ["fork-limit", "radattr-prefix", "verbose"]
    assert values(redis, "ev_ses_started") == ["yes"]


def test_script_makes_what_the_pod_says(tmp_path):
    """The set-up script run with a recording `ip`: one VXLAN per instance (VNI = id, the
    instance's control address as remote), one S-tag interface per S-tag with its group's AC
    MAC and the access port's TPID."""
    script = tmp_path / "net"
    script.write_text((GOLDEN / "lab" / "accel-ppp" / "bngpod-accel-net").read_text())
    log = tmp_path / "log"
    fake = tmp_path / "ip"
    fake.write_text(f'#!/bin/sh\necho "$*" >> {log}\n')
    fake.chmod(0o755)
    subprocess.run(["sh", "-n", str(script)], check=True)
    subprocess.run(["sh", str(script), "up"], check=True, env={"IP": str(fake), "PATH": "/usr/bin:/bin"})
    calls = log.read_text().splitlines()
    pod = validate.load(EXAMPLES / "lab.yaml")
    for inst in pod.instances:
        assert (
            f"link add vx{inst.id} type vxlan id {inst.id} local {pod.control_plane.address} remote {inst.control} "
            f"dstport {pod.control_plane.vxlan_port} nolearning"
        ) in calls
    made = {c.split()[5]: c for c in calls if " type vlan " in c}
    macs = {c.split()[2]: c.split()[4] for c in calls if " address " in c}
    want = {}
    for inst in pod.instances:
        for g in inst.groups:
            for ln in g.lines:
                for s in range(ln.stag.lo, ln.stag.hi + 1):
                    want[f"vx{inst.id}.{s}"] = (g.ac_mac, "802.1ad" if ln.port.tpid == 0x88A8 else "802.1Q")
    assert set(made) == set(want)
    for name, (mac, proto) in want.items():
        assert macs[name] == mac
        assert f"protocol {proto} " in made[name]
    log.unlink()
    subprocess.run(["sh", str(script), "up", "--no-vlan"], check=True, env={"IP": str(fake), "PATH": "/usr/bin:/bin"})
    assert not [c for c in log.read_text().splitlines() if "type vlan" in c]
    assert subprocess.run(["sh", str(script)], env={"IP": str(fake)}, capture_output=True).returncode == 2


def pod_variant(tmp_path, change) -> "validate.m.Pod":
    doc = yaml.safe_load((EXAMPLES / "lab.yaml").read_text())
    change(doc)
    path = tmp_path / "pod.yaml"
    path.write_text(yaml.safe_dump(doc))
    return validate.load(path)


def test_not_rendered_when_accel_ppp_cannot_serve_the_pod(tmp_path):
    def comma_secret(doc):
        doc["radius"]["servers"][0]["secret"] = "a,b"

    def split_stag(doc):
        doc["instances"][3]["line_groups"] = []
        doc["instances"][2]["line_groups"] = ["lg3", "lg4"]

    for change, words in ((comma_secret, "secret"), (split_stag, "S-tag 300 is split")):
        out = accel.files(pod_variant(tmp_path, change))
        assert list(out) == ["accel-ppp/NOT-RENDERED.txt"]
        assert words in out["accel-ppp/NOT-RENDERED.txt"]


GOOD = (GOLDEN / "minimal" / "accel-ppp" / "accel-ppp.conf").read_text()


@pytest.mark.parametrize(
    "edit, complaint",
    [
        (lambda t: t.replace("[ppp]\n", "[ppp]\nmtu=1400\n"), "repeated"),
        (lambda t: t.replace("called-sid=ifname", "called-sid=iface"), "called-sid"),
        (lambda t: t.replace("lcp-echo-interval=10", "lcp-echo-intervall=10"), "not a key"),
        (lambda t: t.replace("[cli]", "[clii]"), "unknown section"),
        (lambda t: t.replace("sigchld\n", ""), "sigchld"),
        (lambda t: t.replace("ippool\n", "ippool\nredis\n"), "redis"),
        (lambda t: t.replace("ippool\n", "ippool\nredis\n") + "\n[redis]\nport=6379\n", "pick one"),
        (lambda t: t.replace("pppoe\n", "pppoe\npppoe\n", 1), "twice"),
        (lambda t: t.replace(",1-4094", ",1-4095"), "vlan-mon filter"),
        (lambda t: t.replace("100.80.0.0/22,name=pool1", "100.80.0.0/22,name=pool1\n100.80.1.0/24,name=p2"), "overlap"),
        (lambda t: t.replace("100.80.0.0/22", "100.80.0.1/22"), "host bits"),
        (lambda t: t.replace("ac-name=bngpod-minimal", "ac-name=a#b"), "ac-name"),
        (lambda t: t.replace("ac-name=bngpod-minimal", "ac-name=x {"), "nested"),
        (lambda t: t.replace("ac-name=bngpod-minimal", "ac-name=" + "x" * 1100), "bytes"),
        (lambda t: t.replace("tcp=127.0.0.1:2001", "tcp=127.0.0.1:65536"), "tcp"),
        (lambda t: t.replace("sid,ifname", "sid,ifnam"), "columns"),
        (lambda t: t.replace("timeout=10", "timeout = 10\ttimeout"), "tab"),
        (lambda t: "verbose=1\n" + t, "no section"),
        (lambda t: t.replace("interface=re:^vx1\\.[0-9]+\\.[0-9]+$\n", ""), "lacks interface"),
        (lambda t: t.replace("dae-server=10.200.0.1:3799,testing123", "dae-server=10.200.0.1,testing123"), "dae"),
    ],
)
def test_checker_refuses(edit, complaint):
    assert accel.check_conf(GOOD) == []
    errors = accel.check_conf(edit(GOOD))
    assert errors, "the checker accepted a file accel-ppp would misread"
    assert any(complaint in e for e in errors), errors


def test_split_matches_accel_ppps_parser():
    # triton/conf_file.c: the name ends at space, tab or '='; '=' or ',' then starts the value
    assert accel._split("interface=re:^a,b") == ("interface", "re:^a,b")
    assert accel._split("pppoe") == ("pppoe", None)
    assert accel._split("100.80.0.0/22,name=pool1") == ("100.80.0.0/22,name", "pool1")
    assert accel._split("mtu = 1492") == ("mtu", "1492")
    assert accel._split("dns1 , 1.2.3.4") == ("dns1", "1.2.3.4")


def test_units_pass_systemd_analyze(tmp_path):
    """systemd's own checker on the generated units, the drop-in over a stand-in for
    accel-ppp's accel-ppp.service (Type=simple, as accel-ppp ships it). The programs are not
    installed here: their absence is the only complaint allowed."""
    import shutil

    if shutil.which("systemd-analyze") is None:
        pytest.skip("no systemd-analyze")
    src = GOLDEN / "lab" / "accel-ppp" / "systemd"
    for p in src.rglob("*"):
        if p.is_file():
            (tmp_path / p.relative_to(src)).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / p.relative_to(src)).write_text(p.read_text())
    (tmp_path / "accel-ppp.service").write_text(
        "[Unit]\nDescription=accel-ppp\n[Service]\nType=simple\nExecStart=/usr/sbin/accel-pppd\n"
        "[Install]\nWantedBy=multi-user.target\n"
    )
    units = ["accel-ppp.service", "bng-accel-glue.service", "bngpod-accel-net.service"]
    out = subprocess.run(
        ["systemd-analyze", "verify", *(f"./{u}" for u in units)], cwd=tmp_path, capture_output=True, text=True
    )
    ours = [ln for ln in (out.stdout + out.stderr).splitlines() if any(u in ln for u in units) or "bngpod" in ln]
    allowed = {
        "accel-ppp.service: Command /usr/sbin/accel-pppd is not executable: No such file or directory",
        "bng-accel-glue.service: Command /usr/local/bin/bng-accel-glue is not executable: No such file or directory",
    }
    assert [ln for ln in ours if ln not in allowed] == []

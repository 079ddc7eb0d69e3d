#!/usr/bin/env bash
# Installs everything the pod and its tests need on a Debian 12 machine, as root.
# Idempotent: a second run changes nothing. `setup.sh --check` changes nothing either;
# it exits 1 and says what setup would do when anything is missing or stale.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
export PATH="$PATH:/usr/local/go/bin"  # where the Go distribution installs itself
check_only=0
[ "${1:-}" = "--check" ] && check_only=1
pending=()

say() { printf 'setup: %s\n' "$*"; }
todo() { pending+=("$1"); [ "$check_only" = 1 ] || say "$1"; }

APT_PACKAGES=(
    # build and data plane
    build-essential pkg-config meson ninja-build dpdk dpdk-dev libdpdk-dev dpdk-doc
    clang clang-format libclang-rt-14-dev valgrind
    # the emulated pod
    iproute2 ethtool iputils-ping procps openvswitch-switch openvswitch-common
    freeradius freeradius-utils tcpdump tshark
    # IPoE relay tests: the outside DHCP server (tests/harness/dhcpd.py starts its own)
    isc-dhcp-server
    # accel-ppp mode: the fork's event bus (bng-accel-glue's tests)
    redis-server
    # languages
    python3 python3-venv git ca-certificates
    # the ONOS GUI view's browser test (headless, driven over the DevTools protocol)
    chromium chromium-driver
)
# Toolchains the machine may already have outside Debian's packages.
command -v javac >/dev/null 2>&1 || APT_PACKAGES+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || APT_PACKAGES+=(maven)
command -v npm >/dev/null 2>&1 || APT_PACKAGES+=(npm)

if [ "$(id -u)" != 0 ]; then
    echo "setup: run as root (it installs Debian packages)" >&2
    exit 2
fi

# --- Debian packages ------------------------------------------------------------------
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
    todo "install Debian packages: ${missing[*]}"
    if [ "$check_only" = 0 ]; then
        export DEBIAN_FRONTEND=noninteractive
        # bngpod starts its own private Open vSwitch and FreeRADIUS: keep the packages'
        # system services from starting during the install.
        made_policy=0
        if [ ! -e /usr/sbin/policy-rc.d ]; then
            printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
            chmod +x /usr/sbin/policy-rc.d
            made_policy=1
        fi
        trap '[ "$made_policy" = 1 ] && rm -f /usr/sbin/policy-rc.d' EXIT
        apt-get update -q
        apt-get install -y -qq --no-install-recommends "${missing[@]}"
    fi
fi

# --- Python virtual environment --------------------------------------------------------
venv="$root/.venv"
want=$(sha256sum "$root/requirements.txt" | cut -d' ' -f1)
have=$(cat "$venv/.requirements.sha256" 2>/dev/null || true)
if [ ! -x "$venv/bin/python" ] || [ "$want" != "$have" ]; then
    todo "Python virtual environment $venv from requirements.txt"
    if [ "$check_only" = 0 ]; then
        [ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv "$venv"
        "$venv/bin/pip" install -q --disable-pip-version-check -r "$root/requirements.txt"
        echo "$want" > "$venv/.requirements.sha256"
    fi
fi

# --- Go toolchain ----------------------------------------------------------------------
# The control plane needs Go 1.23 or newer (bbolt 1.4; go-pfcp needs 1.21) and Debian 12's
# golang-go is 1.19. The Go project publishes every release as a module,
# golang.org/toolchain (what `go` itself fetches when a go.mod asks for a newer toolchain),
# so the Go module proxy ($GOPROXY, else proxy.golang.org) serves it as a zip. The zip is
# checked like any module against its go.sum line: the h1: hash below is the one the
# checksum database sum.golang.org holds for this version (looked up when the version was
# chosen, through the proxy's /sumdb/sum.golang.org/lookup/ mirror, and recomputed from the
# zip then). The .ziphash the proxy serves next to the zip would prove nothing: it comes
# from the same server as the zip.
GO_MIN_MINOR=23  # Go 1.x with x at least this
GO_TOOLCHAIN_VERSION=1.23.12
declare -A GO_TOOLCHAIN_H1=(
    [amd64]=h1:CQZ55qhuGAYcgv4npnr3DsfZP3i8URMjkpv7TYHRIH4=
)
GO_ROOT=/usr/local/go

# go_ok BINARY: BINARY runs and is Go 1.$GO_MIN_MINOR or newer. From / and with
# GOTOOLCHAIN=local, so that no go.mod around makes it fetch another toolchain.
go_ok() {
    local v
    [ -n "$1" ] && [ -x "$1" ] || return 1
    v=$(cd / && GOTOOLCHAIN=local "$1" env GOVERSION 2>/dev/null) || return 1
    [[ $v =~ ^(devel\ )?go([0-9]+)\.([0-9]+) ]] || return 1
    (( BASH_REMATCH[2] > 1 || BASH_REMATCH[3] >= GO_MIN_MINOR ))
}

# install_go: download golang.org/toolchain, check its go.sum hash, unpack it next to
# $GO_ROOT and swap it in (the old tree, if any, is removed only once the new one runs).
install_go() {
    local arch h1
    arch=$(dpkg --print-architecture)
    h1=${GO_TOOLCHAIN_H1[$arch]:-}
    if [ -z "$h1" ]; then
        echo "setup: no go.sum hash for the Go toolchain on $arch here; install Go >= 1.$GO_MIN_MINOR into $GO_ROOT by hand" >&2
        exit 1
    fi
    /usr/bin/python3 - "$GO_TOOLCHAIN_VERSION" "linux-$arch" "$h1" "${GOPROXY:-https://proxy.golang.org}" "$GO_ROOT" <<'PY'
import base64, hashlib, os, re, shutil, stat, subprocess, sys, tempfile, urllib.request, zipfile

version, platform, want, proxies, dest = sys.argv[1:]
mod, ver = "golang.org/toolchain", f"v0.0.1-go{version}.{platform}"
prefix = f"{mod}@{ver}/"  # every file of a module zip sits under module@version/
os.makedirs(os.path.dirname(dest), exist_ok=True)
tmp = tempfile.mkdtemp(prefix=".go-setup-", dir=os.path.dirname(dest))
try:
    # Download: each proxy of GOPROXY in turn ("direct" and "off" are no proxies).
    zpath, errors = os.path.join(tmp, "toolchain.zip"), []
    for proxy in re.split(r"[,|]", proxies):
        proxy = proxy.strip().rstrip("/")
        if proxy in ("", "direct", "off"):
            continue
        url = f"{proxy}/{mod}/@v/{ver}.zip"
        try:
            with urllib.request.urlopen(url, timeout=120) as r, open(zpath, "wb") as f:
                shutil.copyfileobj(r, f, 1 << 20)
            break
        except Exception as e:  # next proxy
            errors.append(f"{url}: {e}")
    else:
        sys.exit("setup: cannot download the Go toolchain: " + ("; ".join(errors) or f"no proxy in GOPROXY={proxies}"))

    with zipfile.ZipFile(zpath) as z:
        # The go.sum hash ("h1:", golang.org/x/mod/sumdb/dirhash Hash1): SHA-256 over the
        # lines "<sha256 of the file>  <name>\n" of every file, sorted by name.
        summary = hashlib.sha256()
        for info in sorted(z.infolist(), key=lambda i: i.filename):
            h = hashlib.sha256()
            with z.open(info) as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
            summary.update(f"{h.hexdigest()}  {info.filename}\n".encode())
        got = "h1:" + base64.b64encode(summary.digest()).decode()
        if got != want:
            sys.exit(f"setup: {mod}@{ver} from the proxy hashes to {got}, its go.sum line says {want}: not installing it")
        # Unpack to tmp/go: plain files only, under the module prefix; executable bits
        # from the zip (python's zipfile does not restore them itself).
        root = os.path.join(tmp, "go")
        for info in z.infolist():
            rel = info.filename[len(prefix):] if info.filename.startswith(prefix) else ""
            parts = rel.split("/")
            mode = info.external_attr >> 16
            if not rel or any(p in ("", ".", "..") for p in parts) or stat.S_ISLNK(mode):
                sys.exit(f"setup: unexpected entry {info.filename!r} in the Go toolchain zip")
            out = os.path.join(root, *parts)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with z.open(info) as src, open(out, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            os.chmod(out, 0o755 if mode & 0o111 else 0o644)

    have = subprocess.run([os.path.join(root, "bin", "go"), "env", "GOVERSION"], cwd="/",
                          env={**{k: v for k, v in os.environ.items() if k != "GOROOT"}, "GOTOOLCHAIN": "local"},
                          capture_output=True, text=True).stdout.strip()
    if have != f"go{version}":
        sys.exit(f"setup: the unpacked Go toolchain says {have!r}, not go{version}")
    if os.path.lexists(dest):
        os.rename(dest, os.path.join(tmp, "old"))
    os.rename(root, dest)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
PY
}

# A Go that will do: the first `go` in PATH (which ends with $GO_ROOT/bin), else $GO_ROOT's.
good_go=""
for g in "$(command -v go || true)" "$GO_ROOT/bin/go"; do
    if go_ok "$g"; then good_go=$(readlink -f "$g"); break; fi
done
if [ -z "$good_go" ]; then
    found=$(command -v go || true)
    [ -z "$found" ] || found="$found $(cd / && GOTOOLCHAIN=local "$found" env GOVERSION 2>/dev/null || echo '(does not run)')"
    todo "install Go $GO_TOOLCHAIN_VERSION into $GO_ROOT from the Go module proxy (found: ${found:-no go})"
    if [ "$check_only" = 0 ]; then
        install_go
        good_go=$GO_ROOT/bin/go
    fi
fi
# `go` for everyone: the scripts add $GO_ROOT/bin to PATH, but make (`make build`) and
# people use the system PATH, where Debian's old golang-go in /usr/bin would win, or no go
# is found at all. /usr/local/bin comes before /usr/bin in Debian's PATH.
sys_go=$(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin command -v go || true)
if ! go_ok "$sys_go"; then
    go_bin=$(dirname "${good_go:-$GO_ROOT/bin/go}")
    todo "link /usr/local/bin/go and gofmt -> $go_bin (the system PATH has ${sys_go:-no go})"
    if [ "$check_only" = 0 ]; then
        ln -sfn "$go_bin/go" /usr/local/bin/go
        [ ! -x "$go_bin/gofmt" ] || ln -sfn "$go_bin/gofmt" /usr/local/bin/gofmt
        hash -r
    fi
fi

# --- Go modules ------------------------------------------------------------------------
if [ -f "$root/accel-ppp-glue/go.mod" ]; then
    if ! (cd "$root/accel-ppp-glue" && GOFLAGS=-mod=mod go list -m all >/dev/null 2>&1 \
            && go mod verify >/dev/null 2>&1); then
        todo "Go modules of accel-ppp-glue"
        [ "$check_only" = 1 ] || (cd "$root/accel-ppp-glue" && go mod download)
    fi
fi

# --- Maven dependencies ----------------------------------------------------------------
if [ -f "$root/pom.xml" ]; then
    poms=$(cd "$root" && find . -name pom.xml -not -path './.venv/*' | sort | xargs sha256sum | sha256sum | cut -d' ' -f1)
    stamp="${HOME:-/root}/.m2/bngpod-$poms.stamp"
    if [ ! -f "$stamp" ]; then
        todo "Maven dependencies (first time about 100 MB into ~/.m2)"
        if [ "$check_only" = 0 ]; then
            # `verify`, the goal `make test` runs offline, is the pre-fetch: running it is the
            # one way to fetch what it needs (Surefire's and Failsafe's JUnit providers, the
            # assembly, antrun and dependency plugins that build the .oar and unpack onos-rest
            # for the REST tests); dependency:go-offline trips over a jacoco artifact. The OVS
            # steering test only fetches its provider here (bngpod.ovs.skip); make test runs it.
            (cd "$root" && mvn -B -q verify -Dbngpod.ovs.skip=true -Dmaven.test.failure.ignore=true >/dev/null)
            mkdir -p "$(dirname "$stamp")" && touch "$stamp"
        fi
    fi
fi

# --- The GUI view's browser test: ONOS 2.5.6's AngularJS -----------------------------------
# The view runs on the AngularJS of ONOS's legacy GUI (1.3.5, with its router), from the npm
# registry, pinned with integrity hashes by package-lock.json; npm ci checks them.
harness="$root/onos-app/app/src/test/gui-harness"
if [ -f "$harness/package-lock.json" ]; then
    want=$(sha256sum "$harness/package-lock.json" | cut -d' ' -f1)
    have=$(cat "$harness/node_modules/.package-lock.sha256" 2>/dev/null || true)
    if [ "$want" != "$have" ]; then
        todo "AngularJS for the GUI view's browser test (npm ci in $harness)"
        if [ "$check_only" = 0 ]; then
            (cd "$harness" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
            echo "$want" > "$harness/node_modules/.package-lock.sha256"
        fi
    fi
fi

# --- bngpod on PATH --------------------------------------------------------------------
if [ "$(readlink /usr/local/bin/bngpod 2>/dev/null || true)" != "$root/bngpod" ]; then
    todo "link /usr/local/bin/bngpod -> $root/bngpod"
    [ "$check_only" = 1 ] || ln -sfn "$root/bngpod" /usr/local/bin/bngpod
fi

if [ "${#pending[@]}" -eq 0 ]; then
    say "everything is in place"
elif [ "$check_only" = 1 ]; then
    for p in "${pending[@]}"; do say "would $p"; done
    exit 1
else
    say "done"
fi

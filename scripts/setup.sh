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
    # languages
    python3 python3-venv git ca-certificates
)
# Toolchains the machine may already have outside Debian's packages.
command -v go >/dev/null 2>&1 || APT_PACKAGES+=(golang-go)
command -v javac >/dev/null 2>&1 || APT_PACKAGES+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || APT_PACKAGES+=(maven)

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
            # `test` is the one goal that also fetches Surefire's JUnit provider, so a later
            # offline (-o) run works; dependency:go-offline trips over a jacoco artifact.
            (cd "$root" && mvn -B -q test -Dmaven.test.failure.ignore=true >/dev/null)
            mkdir -p "$(dirname "$stamp")" && touch "$stamp"
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

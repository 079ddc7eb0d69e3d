#!/usr/bin/env bash
# Runs the README's commands on a brand-new Debian 12 inside a debootstrap chroot, to
# prove that setup installs everything itself. Usage (root):
#   scripts/fresh-machine.sh [CHROOT_DIR] [MAKE_TARGET]     defaults: /srv/fresh test
# The chroot shares this host's kernel (namespaces, veths) but has its own /run, so its
# pod and daemons never meet the host's. Everything mounted is unmounted on exit.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-/srv/fresh}
target=${2:-test}

[ "$(id -u)" = 0 ] || { echo "run as root" >&2; exit 2; }
if [ ! -x "$dir/usr/bin/apt-get" ]; then
    command -v debootstrap >/dev/null || apt-get install -y -q debootstrap
    debootstrap --variant=minbase bookworm "$dir" http://deb.debian.org/debian
fi

mounts=()
cleanup() {
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[$i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
bind() { mount --bind "$1" "$dir$1"; mounts+=("$dir$1"); }
# The new root must be a mount point of its own: `ip netns exec` remounts it.
mount --bind "$dir" "$dir"; mounts+=("$dir")
bind /proc
bind /sys
bind /dev
mount -t tmpfs tmpfs "$dir/run"; mounts+=("$dir/run")
mount --make-rshared "$dir/run"
cp /etc/resolv.conf "$dir/etc/resolv.conf"
# The registries may be reached through a proxy whose CA the host trusts: give the new
# machine the same trust (and pip's setting for it), as its image would have.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    mkdir -p "$dir/usr/local/share/ca-certificates"
    cp /usr/local/share/ca-certificates/*.crt "$dir/usr/local/share/ca-certificates/"
fi
[ -f /etc/pip.conf ] && cp /etc/pip.conf "$dir/etc/pip.conf"
passenv=()
for var in SSL_CERT_FILE SSL_CERT_DIR PIP_CERT REQUESTS_CA_BUNDLE CURL_CA_BUNDLE GIT_SSL_CAINFO; do
    [ -n "${!var:-}" ] && passenv+=("$var=${!var}")
done

rm -rf "$dir/root/bngpod"
git clone -q "$root" "$dir/root/bngpod"
chroot "$dir" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    TERM="${TERM:-dumb}" LANG=C.UTF-8 "${passenv[@]}" bash -c "
        set -e
        apt-get update -q >/dev/null && apt-get install -y -q make ca-certificates >/dev/null
        update-ca-certificates >/dev/null
        cd /root/bngpod && time make $target </dev/null"

#!/usr/bin/env bash
# Runs every fuzzer of the repository for SECONDS each (default 60); a finding fails.
#   C   server-dp: libFuzzer + ASan/UBSan on the DP configuration loader, the
#       frame classifier, the control-frame code (LCP offload, VXLAN codec),
#       the core-side ARP table, the PFCP codec / user-plane function, the HQoS
#       scheduler hsched, the access port sharing (peer reports, --qos-share file) and the IPv6 parsers (core-side ND, the RA offload IE, the Line
#       Group IE's IPv6 trailer); tests/linerate/gen: the line-rate generator's stream
#       file and received frames
#   Go  accel-ppp-glue: go test -fuzz on the control-plane configuration parser, the
#       PPPoE frame and tag decoders, the PPP engine (LCP/PAP/CHAP/IPCP), RADIUS
#       replies and CoA/DM requests, the PFCP input path, the address pools and the
#       subscriber emulator's receive path (bng-subemu), the DHCPv4 codec (IPoE) and the VXLAN codec of bng-cp
#       and bng-accel-glue's inputs (accel-ppp's redis events and CLI, RESP, pppd-compat hooks,
#       /proc/net/pppoe and radattr files)
# The pod-file validator is fuzzed by deterministic mutation tests inside pytest
# (topology/tests/test_validate_fuzz.py), which run with every `make test`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
export PATH="$PATH:/usr/local/go/bin"

cd "$root/server-dp"
[ -f build-fuzz/build.ninja ] || CC=clang meson setup build-fuzz -Dfuzz=true >/dev/null
ninja -C build-fuzz fuzz/fuzz_dp_config fuzz/fuzz_classify fuzz/fuzz_ctl fuzz/fuzz_neigh \
    fuzz/fuzz_pfcp fuzz/fuzz_hsched fuzz/fuzz_ipv6 fuzz/fuzz_share
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/config" "$work/classify" "$work/ctl" "$work/neigh" "$work/pfcp" "$work/hsched" "$work/ipv6" "$work/share"
cp fuzz/corpus/* "$work/config/"
cp fuzz/corpus_classify/* "$work/classify/"
cp fuzz/corpus_ctl/* "$work/ctl/"
cp fuzz/corpus_neigh/* "$work/neigh/"
cp fuzz/corpus_pfcp/* "$work/pfcp/"
cp fuzz/corpus_hsched/* "$work/hsched/"
cp fuzz/corpus_ipv6/* "$work/ipv6/"
cp fuzz/corpus_share/* "$work/share/"
echo "== C: fuzz_dp_config for ${seconds}s"
build-fuzz/fuzz/fuzz_dp_config -max_total_time="$seconds" -dict=fuzz/dp_config.dict \
    -print_final_stats=1 -artifact_prefix="$work/" "$work/config"
echo "== C: fuzz_classify for ${seconds}s"
build-fuzz/fuzz/fuzz_classify -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$work/" "$work/classify"
echo "== C: fuzz_ctl for ${seconds}s"
build-fuzz/fuzz/fuzz_ctl -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$work/" "$work/ctl"
echo "== C: fuzz_neigh for ${seconds}s"
build-fuzz/fuzz/fuzz_neigh -max_total_time="$seconds" -max_len=1024 -print_final_stats=1 \
    -artifact_prefix="$work/" "$work/neigh"
echo "== C: fuzz_pfcp for ${seconds}s"
build-fuzz/fuzz/fuzz_pfcp -max_total_time="$seconds" -max_len=8192 -print_final_stats=1 \
    -artifact_prefix="$work/" "$work/pfcp"
echo "== C: fuzz_hsched for ${seconds}s"
build-fuzz/fuzz/fuzz_hsched -max_total_time="$seconds" -max_len=2048 -print_final_stats=1 \
    -artifact_prefix="$work/" "$work/hsched"

echo "== C: fuzz_ipv6 for ${seconds}s"
build-fuzz/fuzz/fuzz_ipv6 -max_total_time="$seconds" -max_len=2048 -print_final_stats=1 \
    -artifact_prefix="$work/" "$work/ipv6"
echo "== C: fuzz_share for ${seconds}s"
build-fuzz/fuzz/fuzz_share -max_total_time="$seconds" -max_len=2048 -print_final_stats=1 \
    -artifact_prefix="$work/" "$work/share"

cd "$root/tests/linerate/gen"
[ -f build-fuzz/build.ninja ] || CC=clang meson setup build-fuzz -Dfuzz=true >/dev/null
ninja -C build-fuzz fuzz_lrgen
mkdir "$work/lrgen"
cp fuzz/corpus/* "$work/lrgen/"
echo "== C: fuzz_lrgen for ${seconds}s"
build-fuzz/fuzz_lrgen -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="$work/" "$work/lrgen"

cd "$root/accel-ppp-glue"
files_in() { if [ -d "$1" ]; then find "$1" -type f | wc -l; else echo 0; fi; }
for target in config:FuzzParse pppoe:FuzzDecodeFrame pppoe:FuzzParseTags ppp:FuzzLink \
    aaa:FuzzParseReply aaa:FuzzDecodeDyn pfcpcp:FuzzInput pfcpcp:FuzzLineGroupIE pool:FuzzGroup \
    v6ctl:FuzzHandle v6ctl:FuzzFrameAndPeek \
    dhcp4:FuzzDecode \
    onos:FuzzDecodePlacement onos:FuzzDecodeSubscribers onos:FuzzDecodeTeardowns vxlan:FuzzDecode \
    cmd/bng-subemu:FuzzInput cmd/bng-subemu:FuzzIPoEInput cmd/bng-cpload:FuzzParseDHCPReply \
    accel:FuzzEvent accel:FuzzHook accel:FuzzCLI accel:FuzzRESP accel:FuzzProcAndRadattr \
    api:FuzzReadExportCSV; do
    pkg=${target%%:*} fn=${target#*:}
    case $pkg in */*) dir=$pkg ;; *) dir=internal/$pkg ;; esac
    echo "== Go: $fn ($pkg) for ${seconds}s"
    corpus="$dir/testdata/fuzz/$fn"
    before=$(files_in "$corpus")
    if ! go test -run '^$' -fuzz "^${fn}\$" -fuzztime "${seconds}s" -fuzzminimizetime 5s \
        "./$dir" 2>&1 | tee "$work/go-fuzz.log"; then
        after=$(files_in "$corpus")
        # Go's fuzz coordinator can report its own -fuzztime deadline as a failure
        # (go.dev/issue/75804, fixed in Go 1.27): that is no finding when no failing
        # input was written and the deadline is the only error. Anything else fails.
        if [ "$after" = "$before" ] && grep -q 'context deadline exceeded' "$work/go-fuzz.log" &&
            ! grep -qE 'panic:|Failing input written' "$work/go-fuzz.log"; then
            echo "== Go: $fn: the coordinator's deadline race (go.dev/issue/75804), no failing input: not a finding"
        else
            exit 1
        fi
    fi
done

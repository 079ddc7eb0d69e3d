#!/usr/bin/env bash
# make bench-cp: the session setup rate of bng-cp alone.
#
# On loopback: a private FreeRADIUS (bngpod.radius), bng-cp with a fresh state
# directory on disk (the store fsyncs as in production), and bng-cpload playing two DP
# instances (VXLAN-redirected PPPoE CPEs + a PFCP user-plane peer that acknowledges).
# A session is timed from its PADI to the acknowledged PFCP Session Establishment and
# counts only when complete. Prints one JSON line per size:
#   {"sessions":N,"sessions_per_second":X,"completed":C,"failed":F,"p50_ms":..,"p99_ms":..,"duration_s":..}
#
# Environment:
#   BENCH_CP_SIZES   session counts, one bng-cp (fresh state) per count (default "1000 10000")
#   BENCH_CP_WINDOW  CPEs dialing at once (default 2000)
#   BENCH_CP_AUTH    pap or chap (default pap)
#   BENCH_CP_DUAL    1 (default): dp2's line group has IPv6 pools and its CPEs dial dual stack
#                    (IPv6CP, RS/RA, DHCPv6 Solicit with Rapid Commit and IA_PD), interleaved
#                    with dp1's IPv4-only CPEs; the JSON line gains "ipv4" and "dual_stack"
#                    (completed, p50_ms, p99_ms). 0: every CPE IPv4 only, no IPv6 anywhere.
#   BENCH_CP_IPOE    1 (default): a third instance dp3 whose line group allows only IPoE; its
#                    CPEs dial DHCP (DISCOVER, OFFER, REQUEST with option 82, ACK; bng-cp
#                    authorizes the circuit id ipoeN in RADIUS and installs the IPoE session),
#                    interleaved with the others; the JSON line gains "pppoe" and "ipoe"
#                    (completed, sessions_per_second, p50_ms, p99_ms). only: the loader dials
#                    dp3 alone (every session IPoE). 0: no dp3.
#   BENCH_CP_CPUPROFILE  write bng-cp's Go CPU profile to this path + ".N" per size
#   BNG_CP           use this bng-cp binary instead of accel-ppp-glue/build/bng-cp
#   BNG_CPLOAD       use this bng-cpload binary instead of accel-ppp-glue/build/bng-cpload
# bng-cp and bng-cpload are `make binaries`' (`make bench-cp` builds them first).
#   BENCH_CP_ONOS   base URL of an ONOS bngpod app (.../onos/bngpod) bng-cp reports to
#                    (BENCH_CP_ONOS_USER, BENCH_CP_ONOS_PASSWORD; default bngcp/cp-secret)
#   BENCH_CP_KEEP=1  keep the work directory (logs, cp.yaml, FreeRADIUS detail files)
# Exit status: 0 when every session of every size completed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
glue=$(dirname "$here")
root=$(dirname "$glue")

sizes=${BENCH_CP_SIZES:-"1000 10000"}
window=${BENCH_CP_WINDOW:-2000}
auth=${BENCH_CP_AUTH:-pap}
dual=${BENCH_CP_DUAL:-1}
ipoe=${BENCH_CP_IPOE:-1}
secret=bench-cp-secret

# Loopback address plan (management subnet 127.201.0.0/24).
cp_addr=127.201.0.1
radius_addr=127.201.0.2
dp1=127.201.0.11
dp2=127.201.0.12
dp3=127.201.0.13
auth_port=18120
acct_port=18130

log() { echo "bench-cp: $*" >&2; }
die() { log "$*"; exit 1; }

command -v freeradius >/dev/null || die "freeradius not found (make setup installs it)"
bng_cp=${BNG_CP:-$glue/build/bng-cp}
bng_cpload=${BNG_CPLOAD:-$glue/build/bng-cpload}
for b in "$bng_cp" "$bng_cpload"; do
	[ -x "$b" ] || die "$b is not built: run \`make build\` (or \`make binaries\`)"
done
py=python3
[ -x "$root/.venv/bin/python3" ] && py="$root/.venv/bin/python3"
# The private FreeRADIUS: bngpod.radius's command line.
radius() { PYTHONPATH="$root/topology" "$py" -m bngpod.radius "$@"; }

max=0
for n in $sizes; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || die "BENCH_CP_SIZES: $n is not a session count"
	((n > max)) && max=$n
done
((max <= 16000)) || die "BENCH_CP_SIZES: at most 16000 sessions (the pools of cp.yaml)"

work=$(mktemp -d "${TMPDIR:-/tmp}/bench-cp.XXXXXX")
cp_pid=""
load_pid=""
radius_up=""
cleanup() {
	local rc=$?
	set +e # a failing wait or kill must not cut the cleanup short
	trap - EXIT INT TERM
	for pid in $load_pid $cp_pid; do
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	if [ -n "$radius_up" ]; then
		radius down "$work/radius" >/dev/null 2>&1
	fi
	if [ "${BENCH_CP_KEEP:-0}" = 1 ]; then
		log "kept $work"
	else
		rm -rf "$work"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log "starting FreeRADIUS on $radius_addr:$auth_port/$acct_port with user1..user$max"
radius_up=1
# Two changes from the tests' server: 4 MiB socket receive buffers (the kernel's default,
# 208 KiB, overflows when a thousand Access-Requests arrive at once, and every dropped
# request then costs the CP's RADIUS timeout, 3 s, which measures the loss, not the control
# plane), and no per-request logs of Access-Requests and replies (the tests' instruments;
# the accounting detail file stays). 127.0.0.1 is a NAS too: a socket that does not bind its
# source address sends from 127.0.0.1 on loopback, whatever 127.x it talks to.
radius up "$work/radius" --address "$radius_addr" --auth-port "$auth_port" --acct-port "$acct_port" \
	--secret "$secret" --users "$max" --ipoe-users "$max" --client "$cp_addr" --client 127.0.0.1 --recv-buff $((4 * 1024 * 1024)) \
	--no-request-detail >&2

# lg2 dual stack: a /48 of /64s and a /40 of /56s, more than the largest run needs
lg2_v6=""
dual_flags=()
if [ "$dual" = 1 ]; then
	lg2_v6=', core_address6: "2001:db8:64::12", ipv6_pools: [v6pool2]'
	dual_flags=(-dual-stack-dp 2)
fi

# Two instances, each with one line group: S-tags x C-tags and a /18 pool (16382
# addresses) per group, more than the largest run needs.
cat >"$work/cp.yaml" <<EOF
pod: bench
control_plane: {address: $cp_addr, pfcp_port: 8805, vxlan_port: 4789}
management: {subnet: 127.201.0.0/24}
radius:
  nas_identifier: bngpod-bench
  coa_port: 13799
  timeout_ms: 3000
  retries: 3
  servers:
    - {name: radius1, address: $radius_addr, auth_port: $auth_port, acct_port: $acct_port, secret: $secret}
access_ports:
  - {name: access1, tpid: 33024, rate: 10000000000}
  - {name: access2, tpid: 33024, rate: 10000000000}
pools:
  - {name: pool1, prefix: 100.64.0.0/18, dns: [198.51.100.53, 198.51.100.54], line_group: lg1}
  - {name: pool2, prefix: 100.64.64.0/18, dns: [198.51.100.53, 198.51.100.54], line_group: lg2}
qos_profiles:
  - name: silver
    down_rate: 20000000
    up_pir: 10000000
line_groups:
  - {name: lg1, ac_mac: "02:bb:00:00:00:01", core_address: 100.64.0.1,
     core_mac: "02:cc:00:00:00:01", pools: [pool1], qos_profile: silver, instance: 1}
  - {name: lg2, ac_mac: "02:bb:00:00:00:02", core_address: 100.64.64.1,
     core_mac: "02:cc:00:00:00:02", pools: [pool2], qos_profile: silver, instance: 2$lg2_v6}
instances:
  - id: 1
    name: dp1
    control_address: $dp1
    data_mac: "02:00:00:00:01:01"
    line_groups: [lg1]
    lines:
      - {group: lg1, access_port: access1, stag: {min: 100, max: 149}, ctag: {min: 1, max: 4000}}
  - id: 2
    name: dp2
    control_address: $dp2
    data_mac: "02:00:00:00:01:02"
    line_groups: [lg2]
    lines:
      - {group: lg2, access_port: access2, stag: {min: 200, max: 249}, ctag: {min: 1, max: 4000}}
EOF
# dp3: IPoE only (bng-cp the DHCP server; RADIUS User-Name = option 82's circuit id)
dps=(-dp "1=$dp1/100-149/1-4000" -dp "2=$dp2/200-249/1-4000")
case "$ipoe" in
0) ;;
1 | only)
	sed -i 's|^  - {name: pool2, |  - {name: pool3, prefix: 100.64.128.0/18, gateway: 100.64.191.254, dns: [198.51.100.53], line_group: lg3}\n&|' "$work/cp.yaml"
	sed -i 's|^instances:|  - {name: lg3, ac_mac: "02:bb:00:00:00:03", core_address: 100.64.128.1,\n     core_mac: "02:cc:00:00:00:03", pools: [pool3], qos_profile: silver, instance: 3,\n     session_types: [ipoe], ipoe: {username: circuit_id}}\n&|' "$work/cp.yaml"
	cat >>"$work/cp.yaml" <<EOF2
  - id: 3
    name: dp3
    control_address: $dp3
    data_mac: "02:00:00:00:01:03"
    line_groups: [lg3]
    lines:
      - {group: lg3, access_port: access3, stag: {min: 300, max: 349}, ctag: {min: 1, max: 4000}}
EOF2
	sed -i 's|^pools:|  - {name: access3, tpid: 33024, rate: 10000000000}\n&|' "$work/cp.yaml"
	if [ "$ipoe" = only ]; then
		dps=()
	fi
	dps+=(-dp "3=$dp3/300-349/1-4000" -ipoe-dp 3)
	;;
*) die "BENCH_CP_IPOE: 0, 1 or only" ;;
esac

if [ -n "${BENCH_CP_ONOS:-}" ]; then
	# bng-cp reports its sessions to an ONOS app at this base URL (docs/cp/onos.md)
	cat >>"$work/cp.yaml" <<EOF
onos: {url: "$BENCH_CP_ONOS", username: "${BENCH_CP_ONOS_USER:-bngcp}", password: "${BENCH_CP_ONOS_PASSWORD:-cp-secret}", cp_name: cp1}
EOF
fi

if [ "$dual" = 1 ]; then
	cat >>"$work/cp.yaml" <<EOF
core6: {subnet: "2001:db8:64::/64", router: "2001:db8:64::1"}
ipv6_pools:
  - {name: v6pool2, wan_prefix: "2001:db8:100::/48", delegated_prefix: "2001:db8:200::/40",
     delegated_length: 56, dns: ["2001:db8::53"], line_group: lg2}
EOF
fi

fstype=$(stat -f -c %T "$work")
[ "$fstype" = tmpfs ] && log "warning: $work is on tmpfs: the store's fsync costs nothing there"

# CPU seconds a process has used so far (utime + stime of /proc/PID/stat).
hz=$(getconf CLK_TCK)
cpu_s() { awk -v hz="$hz" '{printf "%.2f", ($14 + $15) / hz}' "/proc/$1/stat" 2>/dev/null || echo 0; }
radius_pid=$(cat "$work/radius/freeradius.pid" 2>/dev/null || echo "")

rc=0
for n in $sizes; do
	rad0=0
	[ -n "$radius_pid" ] && rad0=$(cpu_s "$radius_pid")
	state="$work/state-$n"
	mkdir -p "$state"
	# The loader first: its PFCP sockets must be up when bng-cp associates.
	"$bng_cpload" -cp "$cp_addr" "${dps[@]}" \
		-sessions "$n" -window "$window" -auth "$auth" -user 'user%d' -password 'pw%d' \
		-timeout 60s -assoc-timeout 30s "${dual_flags[@]}" -v >"$work/load-$n.json" 2>"$work/load-$n.err" &
	load_pid=$!
	sleep 0.2
	"$bng_cp" -config "$work/cp.yaml" -state "$state" -ctl "" -metrics "" -auth "$auth" \
		${BENCH_CP_CPUPROFILE:+-cpuprofile "$BENCH_CP_CPUPROFILE.$n"} -log-level warn 2>"$work/cp-$n.log" &
	cp_pid=$!
	# bng-cp dying early (bad cp.yaml, ports taken) ends the run at once.
	while kill -0 "$load_pid" 2>/dev/null; do
		if ! kill -0 "$cp_pid" 2>/dev/null; then
			log "bng-cp exited early"
			kill "$load_pid" 2>/dev/null || true
			break
		fi
		sleep 0.2
	done
	lrc=0
	wait "$load_pid" || lrc=$?
	load_pid=""
	# Where the CPU went (the loader reports its own on stderr).
	cp_cpu=$(cpu_s "$cp_pid")
	rad_cpu=0
	[ -n "$radius_pid" ] && rad_cpu=$(awk -v a="$(cpu_s "$radius_pid")" -v b="$rad0" 'BEGIN{printf "%.2f", a - b}')
	log "$n sessions: cpu_s bng-cp=$cp_cpu freeradius=$rad_cpu (bng-cp includes its start and association)"
	log "$n sessions: cpu_ms per session bng-cp=$(awk -v c="$cp_cpu" -v n="$n" 'BEGIN{printf "%.3f", c * 1000 / n}') freeradius=$(awk -v c="$rad_cpu" -v n="$n" 'BEGIN{printf "%.3f", c * 1000 / n}')"
	kill "$cp_pid" 2>/dev/null || true
	wait "$cp_pid" 2>/dev/null || true
	cp_pid=""
	if [ -s "$work/load-$n.json" ]; then
		cat "$work/load-$n.json"
	else
		echo "{\"sessions\": $n, \"sessions_per_second\": 0, \"error\": \"bng-cpload produced no result\"}"
	fi
	# The loader's counters (resends, odd frames) and failure reasons, for the record.
	[ -s "$work/load-$n.err" ] && sed "s/^bng-cpload: /bench-cp: $n sessions: /" "$work/load-$n.err" >&2
	if [ "$lrc" != 0 ]; then
		rc=1
		log "$n sessions: bng-cpload exited $lrc"
		log "bng-cp log (tail):"
		tail -n 20 "$work/cp-$n.log" | sed 's/^/  /' >&2
	fi
done
exit "$rc"

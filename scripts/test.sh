#!/usr/bin/env bash
# Runs every check and test suite of the repository; each runner prints its own summary
# line. All suites run even when one fails; the exit status says whether all passed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$PATH:/usr/local/go/bin"
failed=()

# Each step's output is also kept, so that the summary at the end can repeat the lines
# that name what failed (a CI log is often read from its tail).
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
step() {
    local name=$1
    shift
    nstep=$((nstep + 1))
    local log="$logs/$nstep.log"
    printf '\n===== %s =====\n' "$name"
    if "$@" 2>&1 | tee "$log"; then
        printf '===== %s: ok\n' "$name"
    else
        printf '===== %s: FAILED\n' "$name"
        failed+=("$name")
        failed_logs+=("$log")
    fi
}
failed_logs=()
nstep=0

# The lines of a failed step's log that say what failed, at most 40.
what_failed() {
    grep -E -e '--- FAIL|^FAIL|FAILED|^ERROR|\[ERROR\] +[A-Za-z]+.*:[0-9]+|Tests run:.*Fail|^not ok|AssertionError|panic:|Error:' "$1" |
        grep -v -E '^===== ' | head -40
}

lint_python() {
    .venv/bin/ruff check . && .venv/bin/ruff format --check .
}

lint_c() {
    find server-dp/src server-dp/tests server-dp/fuzz server-dp/bench -name '*.[ch]' -print0 |
        xargs -0 clang-format --dry-run --Werror &&
        clang-format --dry-run --Werror --style=file:tests/linerate/gen/.clang-format tests/linerate/gen/src/*.[ch] tests/linerate/gen/fuzz/*.c &&
        clang-format --dry-run --Werror --style=file:server-dp/.clang-format topology/xdp/*.c
}

lint_go() {
    local unformatted
    unformatted=$(cd accel-ppp-glue && gofmt -l .)
    [ -z "$unformatted" ] || { echo "not gofmt-formatted: $unformatted"; return 1; }
    (cd accel-ppp-glue && go vet ./...)
}

c_tests() {
    [ -f server-dp/build/build.ninja ] || meson setup server-dp/build server-dp >/dev/null || return 1
    ninja -C server-dp/build && meson test -C server-dp/build --print-errorlogs -v
}

go_tests() {
    # BNGPOD_REQUIRE_POD=1: a Go test whose prerequisite is missing fails instead of
    # skipping (internal/prereq). They need root, FreeRADIUS, radclient, tshark, ip and
    # the C build: server-dp/build/bng-dp, server-dp/build/tests/pfcp-up-pipe and
    # pfcp-encode-samples (c_tests builds them first). The raw-socket and bng-dp tests
    # take /tmp/bngpod-netns.lock themselves.
    (cd accel-ppp-glue && BNGPOD_REQUIRE_POD=1 go test -count=1 ./...)
}

java_tests() {
    # verify: the JUnit tests, the ONOS application archive
    # (onos-app/app/target/bngpod-onos-app-*.oar) built from this reactor's bundles, and the
    # OVS steering test (OvsSteeringIT: root and Open vSwitch, a failure if it cannot run)
    BNGPOD_REQUIRE_POD=1 mvn -B -o -q verify
}

python_tests() {
    # --durations: the slowest tests, to watch make test's 40-minute budget
    BNGPOD_REQUIRE_POD=1 .venv/bin/python -m pytest -q --durations=20
}

step "setup is idempotent" scripts/setup.sh --check
step "lint: Python (ruff)" lint_python
step "lint: C (clang-format)" lint_c
step "lint: Go (gofmt, go vet)" lint_go
step "C tests (server-dp)" c_tests
step "Go tests (accel-ppp-glue)" go_tests
step "Java: tests and the .oar (onos-app)" java_tests
step "Python tests (topology, basebox-config, emulated pod, bng-dp, bng-cp)" python_tests
step "fuzz: every fuzzer for 10 s (longer: make fuzz)" scripts/fuzz.sh 10

printf '\n'
if [ "${#failed[@]}" -gt 0 ]; then
    for i in "${!failed[@]}"; do
        printf '\n----- what failed in: %s\n' "${failed[$i]}"
        what_failed "${failed_logs[$i]}" || true
    done
    printf '\n'
    printf 'FAILED: %s\n' "${failed[@]}"
    exit 1
fi
echo "all checks and test suites passed"

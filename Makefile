# bngpod: the single entry point. `make demo` and `make test` set up first when needed.
SHELL := /bin/bash
POD ?= topology/examples/lab.yaml

.PHONY: help setup demo test lint build fuzz bench bench-dp bench-cp bench-move bench-pod bench-onos up down status clean

help:
	@echo "make demo    set up when needed, bring the lab pod up, dial 100 subscribers, show a live dashboard (q/Ctrl-C tears it down)"
	@echo "make test    set up when needed, then run every lint and test suite"
	@echo "make setup   install everything (Debian packages, Python venv, Go modules, Maven deps)"
	@echo "make up|down|status [POD=file]   drive the emulated pod by hand"
	@echo "make fuzz    run the fuzzers for a short while"
	@echo "make bench   data-plane stage benchmarks (callgrind instructions, TSC cycles)"
	@echo "make bench-dp  the whole bng-dp pipeline against DPDK's ip_pipeline as a vBNG (JSON lines)"
	@echo "make bench-cp  bng-cp's session setup rate, PADI to PFCP-acknowledged establishment (JSON lines)"
	@echo "make bench-move  a line group's move onto the real bng-dp, new placement to sessions acked and traffic (JSON lines, root)"
	@echo "make bench-pod  session setup rate (counted once traffic passes) and per-subscriber throughput through the whole emulated pod (JSON lines, root)"
	@echo "make bench-onos  the ONOS app's failover work on a 240-group pod: re-balance, steering plan, objectives sent (JSON lines)"

setup:
	@scripts/setup.sh

demo: setup
	@[ -f server-dp/build/build.ninja ] || meson setup server-dp/build server-dp >/dev/null
	@ninja -C server-dp/build bng-dp >/dev/null
	./bngpod demo $(POD)

test: setup
	@scripts/test.sh

build: setup
	[ -f server-dp/build/build.ninja ] || meson setup server-dp/build server-dp
	ninja -C server-dp/build
	cd accel-ppp-glue && go build ./...
	mvn -B -q -o -DskipTests package

up: setup
	./bngpod up $(POD)

down:
	./bngpod down

status:
	./bngpod status

fuzz: setup
	scripts/fuzz.sh

bench: setup
	[ -f server-dp/build/build.ninja ] || meson setup server-dp/build server-dp
	ninja -C server-dp/build
	cd server-dp && bench/callgrind.sh build tests/fixtures/lab_dp4.ini 20
	cd server-dp && build/bench/bench_classify tests/fixtures/lab_dp4.ini 1000
	cd server-dp && bench/callgrind_rewrite.sh build 20
	cd server-dp && build/bench/bench_rewrite 1000
	cd server-dp && bench/callgrind_session.sh build 2
	cd server-dp && build/bench/bench_session 20
	cd server-dp && bench/callgrind_forward.sh build 5
	cd server-dp && BNG_FIXTURES=tests/fixtures build/bench/bench_forward 300 all
	cd server-dp && bench/callgrind_l3.sh build 5
	cd server-dp && build/bench/bench_l3 500

bench-dp: setup
	[ -f server-dp/build/build.ninja ] || meson setup server-dp/build server-dp
	ninja -C server-dp/build
	server-dp/bench/bench_dp.sh

bench-cp: setup
	accel-ppp-glue/bench/bench_cp.sh

bench-move: setup
	[ -f server-dp/build/build.ninja ] || meson setup server-dp/build server-dp
	ninja -C server-dp/build
	accel-ppp-glue/bench/bench_move.sh

bench-pod: setup
	[ -f server-dp/build/build.ninja ] || meson setup server-dp/build server-dp
	ninja -C server-dp/build
	topology/bench/bench_pod.sh

bench-onos: setup
	@# the old copy of the bench's output goes first: a bench that did not run or failed
	@# must not print the figures of an earlier run
	@out=onos-app/app/target/surefire-reports/org.bngpod.app.placement.FailoverBench-output.txt; \
	log=onos-app/app/target/bench-onos.log; rm -f $$out; mkdir -p onos-app/app/target; \
	mvn -B -o -q test -Dtest=FailoverBench -DfailIfNoTests=false -Dsurefire.failIfNoSpecifiedTests=false \
		>$$log 2>&1 || { tail -n 40 $$log >&2; echo "bench-onos: FailoverBench failed (log: $$log)" >&2; exit 1; }; \
	grep '^{' $$out 2>/dev/null || { echo "bench-onos: FailoverBench printed no figures ($$out, log: $$log)" >&2; exit 1; }

clean:
	./bngpod down >/dev/null 2>&1 || true
	rm -rf server-dp/build server-dp/build-fuzz
	mvn -B -q -o clean >/dev/null 2>&1 || true

# bngpod: the single entry point. `make demo` and `make test` set up first when needed.
SHELL := /bin/bash
POD ?= topology/examples/lab.yaml
# setup installs Go here; the system PATH may not have it yet.
export PATH := $(PATH):/usr/local/go/bin

# The programs the pod, the demo, the tests and the benches run. Nothing builds them at run
# time: a missing one is an error that names `make build`.
DP_BUILD := server-dp/build
BNG_DP := $(DP_BUILD)/bng-dp
GO_PROGRAMS := bng-cp bngcpctl bng-subemu bng-cpload bng-accel-glue
GO_BINARIES := $(addprefix accel-ppp-glue/build/,$(GO_PROGRAMS))
GO_SOURCES := $(shell find accel-ppp-glue/cmd accel-ppp-glue/internal -name '*.go' ! -name '*_test.go' 2>/dev/null) \
	accel-ppp-glue/go.mod accel-ppp-glue/go.sum

.PHONY: help setup binaries demo test lint build fuzz bench bench-dp bench-mem bench-cp bench-move bench-pod bench-onos bench-failover bench-seba bench-rfc2544 bench-qos bench-qos-latency up down status clean FORCE

help:
	@echo "make demo    set up when needed, bring the lab pod up, dial 100 subscribers, show a live dashboard (q/Ctrl-C tears it down)"
	@echo "             IPOE=1: the IPoE pod (topology/examples/ipoe.yaml), PPPoE and IPoE subscribers (bng-subemu --ipoe)"
	@echo "             SEBA=1: the SEBA pod (topology/examples/seba.yaml) in controller mode with org.bngpod.seba and Kafka: subscribers provisioned through SADIS, the olt app and netcfg; the dashboard shows bng.pppoe and bng.stats as a Kafka consumer reads them"
	@echo "make test    set up when needed, then run every lint and test suite"
	@echo "make setup   install everything (Debian packages, Python venv, Go modules, Maven deps)"
	@echo "make build   build every binary (bng-dp and its tests, the Go programs, the ONOS bundles)"
	@echo "make binaries  build only what the pod runs: bng-dp, $(GO_PROGRAMS), the switch's XDP check, the controller of --controller and the line-rate generator bng-lrgen (incremental)"
	@echo "make up|down|status [POD=file]   drive the emulated pod by hand"
	@echo "make fuzz    run the fuzzers for a short while"
	@echo "make bench   data-plane stage benchmarks (callgrind instructions, TSC cycles)"
	@echo "make bench-dp  the whole bng-dp pipeline (hsched and rte_sched) against DPDK's ip_pipeline as a vBNG, interleaved (JSON lines)"
	@echo "make bench-mem  bng-dp's memory per session at 64K and 256K sessions (DPDK heap, C heap, per part) and the largest capacity within 2 GiB, hsched and rte_sched, queues of 64 and 16 (JSON lines)"
	@echo "make bench-cp  bng-cp's session setup rate, PADI (IPoE: DISCOVER) to PFCP-acknowledged establishment, PPPoE, dual stack and IPoE interleaved (JSON lines)"
	@echo "make bench-move  a line group's move onto the real bng-dp, new placement to sessions acked and traffic (JSON lines, root)"
	@echo "make bench-pod  session setup rate (counted once traffic passes; lenient and strict clients, a fresh pod per point) and per-subscriber throughput through the whole emulated pod (JSON lines, root)"
	@echo "make bench-rfc2544  RFC 2544 throughput (zero loss, 0.001%) per frame size and IMIX, and probe latency under load, through the emulated pod with the in-box generator bng-lrgen (ATTACH=memif: bng-dp alone on net_memif, 1,000 PFCP sessions; ATTACH=vhost: the same on vhost-user; FAMILY=6|both: IPv6 or dual-stack sessions and streams, memif and vhost only; SESSIONS=EXPORT: exactly the PPPoE sessions of a bngcpctl session export, memif and vhost only (ATTACH=memif when unset); SEARCH=mlr|both: FD.io MLRsearch beside the binary search), latency at the throughput rate and at 10, 50, 90% of it, back-to-back, frame loss rate curve; short, non-conformant run (the full one: tests/linerate/bench_rfc2544.sh --conformant); JSON lines and tests/linerate/report/ with PNG plots (root)"
	@echo "make bench-qos-latency  a VoIP-like probe's wire-to-wire latency through bng-dp on net_memif at 0/10/90% of the subport rate, idle back-off off and on, beside the generator alone on memif (JSON lines, root)"
	@echo "make bench-qos  4 bng-dp processes sharing one 200 Mbit/s access port, then a server port: static shares against the peer exchange (port use, fairness, convergence, overshoot; JSON lines, root)"
	@echo "make bench-onos  the ONOS app's failover work on a 240-group pod: re-balance, steering plan, objectives sent (JSON lines)"
	@echo "make bench-failover  kill -9 of an instance of the whole emulated pod in controller mode, a standby taking over: detection, re-steer, sessions re-placed, traffic gap (JSON lines, root)"
	@echo "make bench-seba  session setup rate through the whole emulated pod in controller mode, org.bngpod.seba off / on (SADIS lines, PPPoE events) / on with its Kafka publisher, interleaved, a fresh pod per point (JSON lines and a summary, root)"

setup:
	@scripts/setup.sh

# bng-dp: ninja decides what is out of date (cheap when nothing is).
$(DP_BUILD)/build.ninja:
	meson setup $(DP_BUILD) server-dp >/dev/null

$(BNG_DP): $(DP_BUILD)/build.ninja FORCE
	@ninja -C $(DP_BUILD) bng-dp >/dev/null

# The Go programs, rebuilt when a Go source, go.mod or go.sum is newer (Go's build cache
# makes a rebuild cheap too).
accel-ppp-glue/build/%: $(GO_SOURCES)
	cd accel-ppp-glue && go build -o build/$* ./cmd/$*

# The emulated switch's access-port ingress check (an XDP object, topology/xdp/).
ACCESS_INGRESS := topology/build/access_ingress.o
$(ACCESS_INGRESS): topology/xdp/access_ingress.c
	@mkdir -p $(@D)
	clang -O2 -g -Wall -Werror -target bpf -I/usr/include/$$(gcc -print-multiarch) -c $< -o $@

# The emulated pod's controller (`bngpod up --controller`): the ONOS app's classes and test
# classes and the classpath Maven lists for them (onos-app/app/pom.xml, podctl-classpath),
# rebuilt when a source of the ONOS app or a pom changes.
PODCTL := onos-app/app/target/podctl.classpath
ONOS_SOURCES := $(shell find onos-app -path '*/target' -prune -o -type f \( -name '*.java' -o -name '*.xml' -o -name '*.json' \) -print 2>/dev/null) \
	pom.xml .mvn/jvm.config
$(PODCTL): $(ONOS_SOURCES)
	mvn -B -o -q -DskipTests package >/dev/null
	@touch $@

# With a pod file's `seba` section, the controller runs org.bngpod.seba too
# (org.bngpod.seba.impl.SebaPodController, voltha-adapters/seba's test scope): its class path
# after onos-app's; the reactor's package above builds it too.
SEBACTL := voltha-adapters/seba/target/sebactl.classpath
SEBA_SOURCES := $(shell find voltha-adapters/seba -path '*/target' -prune -o -type f \( -name '*.java' -o -name '*.xml' -o -name '*.json' \) -print 2>/dev/null)
$(SEBACTL): $(PODCTL) $(SEBA_SOURCES)
	mvn -B -o -q -pl voltha-adapters/seba -am -DskipTests package >/dev/null
	@touch $@

# The in-box line-rate generator (tests/linerate/gen, its own meson build).
LRGEN_BUILD := tests/linerate/gen/build
LRGEN := $(LRGEN_BUILD)/bng-lrgen
$(LRGEN_BUILD)/build.ninja:
	meson setup $(LRGEN_BUILD) tests/linerate/gen >/dev/null

$(LRGEN): $(LRGEN_BUILD)/build.ninja FORCE
	@ninja -C $(LRGEN_BUILD) >/dev/null

# The pod's Kafka broker (pod file `seba: {kafka: true}`): its class path from Maven Central.
KAFKA_CLASSPATH := voltha-adapters/kafka-broker/target/broker.classpath
$(KAFKA_CLASSPATH): voltha-adapters/kafka-broker/pom.xml voltha-adapters/pom.xml pom.xml
	mvn -B -o -q -pl voltha-adapters/kafka-broker -am -DskipTests package >/dev/null
	@touch $@

# The demo's Kafka consumer (make demo SEBA=1): compiled, and its class path from Maven Central.
KAFKA_TAIL := voltha-adapters/kafka-tail/target/tail.classpath
$(KAFKA_TAIL): voltha-adapters/kafka-tail/pom.xml $(shell find voltha-adapters/kafka-tail/src -name '*.java' 2>/dev/null)
	mvn -B -o -q -pl voltha-adapters/kafka-tail -DskipTests package >/dev/null
	@touch $@

binaries: $(BNG_DP) $(GO_BINARIES) $(ACCESS_INGRESS) $(PODCTL) $(SEBACTL) $(LRGEN) $(KAFKA_CLASSPATH) $(KAFKA_TAIL)

# make demo IPOE=1: the IPoE pod (topology/examples/ipoe.yaml), PPPoE and IPoE subscribers
ifeq ($(IPOE),1)
POD := topology/examples/ipoe.yaml
DEMO_FLAGS += --ipoe
endif
# make demo SEBA=1: the SEBA pod (topology/examples/seba.yaml), docs/seba.md "What you will see"
ifeq ($(SEBA),1)
POD := topology/examples/seba.yaml
DEMO_FLAGS += --seba
endif
demo: setup binaries
	./bngpod demo $(DEMO_FLAGS) $(POD)

test: setup binaries
	@scripts/test.sh

build: setup binaries
	ninja -C $(DP_BUILD)
	cd accel-ppp-glue && go build ./...
	mvn -B -q -o -DskipTests package

up: setup binaries
	./bngpod up $(POD)

down:
	./bngpod down

status:
	./bngpod status

fuzz: setup
	scripts/fuzz.sh

bench: setup $(DP_BUILD)/build.ninja
	ninja -C $(DP_BUILD)
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

bench-dp: setup binaries
	ninja -C $(DP_BUILD)
	server-dp/bench/bench_dp.sh

bench-mem: setup $(DP_BUILD)/build.ninja
	ninja -C $(DP_BUILD) bench/bench_mem
	.venv/bin/python server-dp/bench/run_bench_mem.py

bench-cp: setup binaries
	accel-ppp-glue/bench/bench_cp.sh

bench-move: setup binaries
	accel-ppp-glue/bench/bench_move.sh

bench-pod: setup binaries
	topology/bench/bench_pod.sh

bench-failover: setup binaries
	topology/bench/bench_failover.sh

bench-seba: setup binaries
	topology/bench/bench_seba.sh

bench-rfc2544: setup binaries
	tests/linerate/bench_rfc2544.sh $(if $(ATTACH),--attach $(ATTACH),$(if $(SESSIONS),--attach memif)) $(if $(SEARCH),--search $(SEARCH)) $(if $(FAMILY),--family $(FAMILY)) $(if $(SESSIONS),--sessions $(SESSIONS))

bench-qos: setup binaries
	tests/dp/bench_qos.sh

bench-qos-latency: setup binaries
	.venv/bin/python server-dp/bench/bench_hqos_latency.py --attach memif

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
	rm -rf server-dp/build server-dp/build-fuzz accel-ppp-glue/build topology/build tests/linerate/gen/build tests/linerate/gen/build-fuzz
	mvn -B -q -o clean >/dev/null 2>&1 || true

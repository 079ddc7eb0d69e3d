#!/usr/bin/env bash
# A single-node Apache Kafka broker in KRaft mode (broker and controller in one
# process) on 127.0.0.1, for the SEBA adapter's tests. The class path comes from
# Maven Central through this module's pom (target/broker.classpath, written by
# `mvn package`); nothing is downloaded here. Java 17.
#
#   kafka-broker.sh start DIR PORT   format DIR, start the broker, wait until PORT answers
#   kafka-broker.sh stop DIR         stop the broker started in DIR (TERM, then KILL after 30 s)
#
# The controller listens on PORT+1. Output goes to DIR/broker.log, the pid to DIR/broker.pid.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cmd=${1:?usage: kafka-broker.sh start DIR PORT | stop DIR}
dir=${2:?missing DIR}

stop() {
    [ -f "$dir/broker.pid" ] || return 0
    local pid
    pid=$(cat "$dir/broker.pid")
    if kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid"
        for _ in $(seq 60); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.5
        done
        kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
    fi
    rm -f "$dir/broker.pid"
}

case "$cmd" in
start)
    port=${3:?missing PORT}
    cport=$((port + 1))
    cpfile="$here/target/broker.classpath"
    [ -s "$cpfile" ] || { echo "no $cpfile: run mvn package in voltha-adapters/kafka-broker" >&2; exit 2; }
    cp=$(cat "$cpfile")
    mkdir -p "$dir/data"
    cat >"$dir/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$dir/data
num.partitions=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=true
PROPS
    jvm=(java -Xms128m -Xmx384m -XX:+UseSerialGC -cp "$cp")
    cluster=$("${jvm[@]}" kafka.tools.StorageTool random-uuid 2>>"$dir/broker.log" | tail -1)
    "${jvm[@]}" kafka.tools.StorageTool format -t "$cluster" -c "$dir/server.properties" \
        --ignore-formatted >>"$dir/broker.log" 2>&1
    setsid "${jvm[@]}" kafka.Kafka "$dir/server.properties" >>"$dir/broker.log" 2>&1 &
    echo $! >"$dir/broker.pid"
    for _ in $(seq 180); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            exit 0
        fi
        if ! kill -0 "$(cat "$dir/broker.pid")" 2>/dev/null; then
            echo "the broker exited; see $dir/broker.log" >&2
            tail -20 "$dir/broker.log" >&2
            rm -f "$dir/broker.pid"
            exit 1
        fi
        sleep 0.5
    done
    echo "the broker did not listen on 127.0.0.1:$port within 90 s; see $dir/broker.log" >&2
    stop
    exit 1
    ;;
stop)
    stop
    ;;
*)
    echo "usage: kafka-broker.sh start DIR PORT | stop DIR" >&2
    exit 2
    ;;
esac

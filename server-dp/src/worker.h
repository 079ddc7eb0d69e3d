/*
 * bng-dp worker: the run-to-completion loop of one lcore.
 *
 * Each iteration: apply pending HQoS commands, receive a burst on the data
 * port and run every stage on it (worker_burst), then HQoS enqueue and
 * dequeue and transmit (worker_flush); then transmit what the control thread
 * queued on the inject ring. When an iteration finds nothing to do and
 * --idle-sleep-us is set, the worker sleeps that long (the only system call
 * it makes, and only when idle). At the end of every iteration it reports a
 * quiescent state to the session tables' RCU: no session id it looked up in
 * that iteration is used after it.
 *
 * worker_burst() and worker_flush() are the whole per-packet pipeline; the
 * benchmark (bench/bench_dp.c) drives them with synthetic bursts.
 */
#ifndef BNG_WORKER_H
#define BNG_WORKER_H

#include "app.h"

/* lcore entry point (rte_eal_remote_launch); arg is the struct app. */
int worker_main(void *arg);

/* Run every stage on n received frames (now: rte_rdtsc()); a owns them after. */
void worker_burst(struct app *a, struct rte_mbuf **pkts, uint16_t n, uint64_t now);

/* HQoS enqueue of what worker_burst() queued, dequeue, transmit on the data
 * port. Returns the number of frames HQoS released. */
uint32_t worker_flush(struct app *a);

#endif /* BNG_WORKER_H */

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

/* lcore entry point (rte_eal_remote_launch); arg is the struct app. In split
 * mode (a->down_ring set) it runs the upstream worker's loop. */
int worker_main(void *arg);

/* Run every stage on n received frames (now: rte_rdtsc()); a owns them after. */
void worker_burst(struct app *a, struct rte_mbuf **pkts, uint16_t n, uint64_t now);

/* HQoS enqueue of what worker_burst() queued, dequeue, transmit on the data
 * port. Returns the number of frames HQoS released. */
uint32_t worker_flush(struct app *a);

/*
 * Split mode (--workers 2): two worker lcores, no lock between them.
 *
 *   upstream worker    (worker_main on struct app, QSBR reader 0): RX on every
 *                      queue of the port, classify, upstream, control frames,
 *                      punt/ARP rings, inject ring; TX queue 0;
 *   downstream worker  (worker_down_main on a->down, QSBR reader 1): the core
 *                      frames handed over down_ring (single producer, single
 *                      consumer, bursts of 24-byte elements: the mbuf and its
 *                      classification), downstream lookup, encapsulation,
 *                      HQoS (every subport, every command of the control
 *                      thread), TX queue 1.
 *
 * Each lcore writes only its own counters (struct app_worker_stats of its
 * view; worker_stats_sum() adds them for telemetry), its own ICMP bucket and
 * output arrays; per-session counters are split by direction (the upstream
 * worker writes *_up, the downstream worker *_down). No session id crosses the
 * ring: the downstream worker looks sessions up itself, so each lcore's
 * quiescent report covers every id it holds. docs/dp/datapath.md, "Two
 * worker lcores", gives the ordering and failure reasoning.
 */
#define APP_HANDOFF_RING 1024 /* entries of the upstream -> downstream ring */

struct app_handoff {
	struct rte_mbuf *m;
	struct cls_result r;
};

/* Build the ring and the downstream worker's view (a->down) of a fully
 * initialised app; before either worker runs. */
int worker_split_init(struct app *a, char *err, size_t errlen);

/* Free the ring (and the frames on it) and the view; workers stopped. */
void worker_split_fini(struct app *a);

/* lcore entry point of the downstream worker; arg is a->down. */
int worker_down_main(void *arg);

/* Downstream stages on n handed-over frames (the downstream worker's part of
 * worker_burst); then worker_flush() as with one worker. */
void worker_down_burst(struct app *a, const struct app_handoff *h, uint16_t n, uint64_t now);

/* Transmit what worker_burst() queued for the port (the upstream worker's
 * flush: no HQoS). */
void worker_tx_flush(struct app *a);

/* Counters of every worker lcore of a, added up. */
void worker_stats_sum(const struct app *a, struct app_worker_stats *sum);

#endif /* BNG_WORKER_H */

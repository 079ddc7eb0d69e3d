/*
 * The worker's HQoS dequeue batch and idle back-off (docs/dp/hqos.md, "Batching and
 * the idle back-off"). Header only, no DPDK: the worker loop (worker.c) and its unit
 * test (tests/test_hqos_batch.c) use the same functions.
 *
 * Adaptive (fixed == 0, the default): the load the worker sees is the size of its last
 * receive burst. A burst below the poll's maximum means the receive queue is drained:
 * waiting cannot make a batch bigger, so whatever is queued is dequeued in the same
 * iteration (no threshold). A full burst means more frames wait behind it: the dequeue
 * is put off until `hi` frames are queued, so the scheduler and the transmit path work
 * on large batches, for at most `max_wait` TSC ticks.
 *
 * Fixed (fixed = N >= 1): dequeue once N frames are queued, or when the oldest deferral
 * is `max_wait` ticks old, whatever the load (N = 1: dequeue on every iteration, the
 * worker's behaviour before this module).
 *
 * Cost: a few compares per loop iteration and one counter per deferral; nothing per
 * packet.
 */
#ifndef BNG_HQOS_BATCH_H
#define BNG_HQOS_BATCH_H

#include <stdint.h>

#define HQOS_BATCH_HI 64	     /* adaptive: the batch under load (the best fixed one) */
#define HQOS_BATCH_WAIT_US 20	     /* adaptive: longest deferral */
#define HQOS_BATCH_FIXED_WAIT_US 100 /* fixed: longest deferral */

struct hqos_batch {
	uint32_t fixed;	   /* 0: adaptive; N: fixed batch of N frames */
	uint32_t hi;	   /* adaptive: the batch when the receive burst was full */
	uint64_t max_wait; /* TSC ticks a dequeue may be put off */
	uint64_t since;	   /* TSC of the first deferral of the current wait */
	uint32_t waiting;  /* a deferral is in progress (since is valid) */
	uint64_t deferred; /* iterations whose dequeue was put off (counter) */
	uint64_t timeouts; /* dequeues forced by max_wait (counter) */
};

static inline void
hqos_batch_init(struct hqos_batch *b, uint32_t fixed, uint64_t tsc_hz)
{
	b->fixed = fixed;
	b->hi = HQOS_BATCH_HI;
	b->max_wait = tsc_hz * (fixed ? HQOS_BATCH_FIXED_WAIT_US : HQOS_BATCH_WAIT_US) / 1000000;
	b->since = 0;
	b->waiting = 0;
	b->deferred = 0;
	b->timeouts = 0;
}

/*
 * Whether the worker dequeues in this iteration. rx: frames its last poll returned,
 * rx_max: the most a poll returns; backlog: frames queued in the scheduler (after this
 * iteration's enqueue); now: the iteration's TSC.
 */
static inline int
hqos_batch_due(struct hqos_batch *b, uint32_t rx, uint32_t rx_max, uint64_t backlog, uint64_t now)
{
	uint64_t want;

	if (backlog == 0) {
		b->waiting = 0;
		return 0;
	}
	want = b->fixed ? b->fixed : (rx >= rx_max ? b->hi : 1);
	if (backlog >= want)
		goto due;
	if (!b->waiting) {
		b->waiting = 1;
		b->since = now;
	} else if (now - b->since >= b->max_wait) {
		b->timeouts++;
		goto due;
	}
	b->deferred++;
	return 0;
due:
	b->waiting = 0;
	return 1;
}

/*
 * Whether the idle back-off may sleep after an iteration: only when the poll, the
 * dequeue and the inject ring found nothing, and nothing waits in the scheduler for the
 * batch: frames the batch holds back (a deferral, at most the adaptive wait) keep the
 * worker polling. Frames that the scheduler was asked for and did not give (`tried`
 * and nothing dequeued) wait for their shaper's tokens: the worker may sleep then, so a
 * subscriber above its rate does not keep a worker spinning on a shared CPU (the
 * emulated pod runs four workers on two cores). Such a frame leaves at most one idle
 * sleep after its token time.
 */
static inline int
hqos_batch_may_sleep(uint32_t idle_sleep_us, uint32_t rx, uint32_t injected, uint32_t dequeued,
		     uint64_t backlog, int tried)
{
	return idle_sleep_us > 0 && rx == 0 && injected == 0 && dequeued == 0 &&
	       (backlog == 0 || tried);
}

#endif

/*
 * The worker's HQoS dequeue batch and idle back-off (hqos_batch.h) on a real HQoS
 * instance (hsched, or rte_sched with argv[1]).
 *
 * usage: test_hqos_batch [hsched|rte_sched]
 *
 * iteration() does what one worker loop iteration does with the HQoS (worker.c,
 * worker_main() and worker_flush()): the frames of the receive burst are enqueued,
 * the dequeue runs when hqos_batch_due() says so, and the loop may sleep when
 * hqos_batch_may_sleep() says so. Checked:
 *  - adaptive, low load: a single frame (receive burst of 1) leaves in the same
 *    iteration, each of 1,000 times; so does the last frame of a load that stops;
 *  - adaptive, high load: full receive bursts are batched to HQOS_BATCH_HI frames
 *    (one dequeue every second iteration), and a deferral never exceeds the
 *    adaptive wait (synthetic TSC);
 *  - fixed batch of 32 at low load: a single frame waits the fixed wait, then leaves
 *    (the latency a fixed batch costs);
 *  - the idle back-off: frames held by a shaper (a 1 Mbit/s pipe, backlog > 0, asked
 *    for and nothing dequeued) allow the sleep (they wait for tokens, not for the
 *    worker); frames the batch holds back (not asked for) forbid it; the held frames
 *    leave within their token time plus 20 ms of slack (rte_sched: its 1 s credit
 *    period).
 * The last line is "N passed, M failed".
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "hqos.h"
#include "hqos_batch.h"
#define HARNESS_EAL
#include "harness.h"

#define RX_MAX 32u
#define FRAME 1000u

static struct rte_mempool *pool;
static uint8_t sched_kind = HQOS_SCHED_HSCHED;
static char err[256];

static struct dp_config *
synth(uint64_t rate, uint64_t pipe_rate)
{
	struct dp_config *c = calloc(1, sizeof(*c));
	struct dp_qos_profile *qp = &c->qos_profiles[0];
	uint32_t i;

	c->instance.port_rate = rate;
	c->n_access_ports = 1;
	snprintf(c->access_ports[0].name, DP_NAME_SIZE, "ap0");
	c->access_ports[0].tpid = DP_TPID_8021Q;
	c->access_ports[0].rate = rate;
	snprintf(qp->name, sizeof(qp->name), "p0");
	qp->down_rate = pipe_rate;
	qp->up_pir = pipe_rate;
	qp->up_cir = pipe_rate;
	qp->default_tc = DP_TC_BEST_EFFORT;
	for (i = 0; i < DP_NUM_TCS; i++)
		qp->tc_rate[i] = pipe_rate;
	memset(qp->be_weights, 1, 4);
	c->n_qos_profiles = 1;
	return c;
}

static struct hqos *
make(struct dp_config *c, uint32_t *ref)
{
	struct hqos_params p;
	struct hqos *h;

	hqos_params_default(&p);
	p.scheduler = sched_kind;
	p.capacity = 4;
	p.qsize = 128;
	if (sched_kind == HQOS_SCHED_RTE_SCHED)
		p.qsize = 256;
	h = hqos_create(c, &p, err, sizeof(err));
	if (h == NULL) {
		printf("hqos_create: %s\n", err);
		return NULL;
	}
	if (hqos_pipe_alloc(h, 0, 0, 0, ref) != 0)
		return NULL;
	hqos_pipe_set_owner(h, *ref, 7);
	return h;
}

/*
 * One worker iteration: enqueue rx frames, then the dequeue if due (at TSC now).
 * Returns the frames dequeued (freed); *sleep says whether the loop would sleep.
 */
static uint32_t
iteration(struct hqos *h, struct hqos_batch *b, uint32_t ref, uint32_t rx, uint64_t now, int *sleep)
{
	struct rte_mbuf *m[512];
	uint32_t i, d = 0;

	for (i = 0; i < rx; i++) {
		m[i] = rte_pktmbuf_alloc(pool);
		if (m[i] == NULL || rte_pktmbuf_append(m[i], FRAME) == NULL)
			abort();
		hqos_mark(m[i], ref, DP_TC_BEST_EFFORT, 0);
	}
	hqos_enqueue(h, m, rx);
	int tried = 0;

	if (h->backlog > 0 && hqos_batch_due(b, rx, RX_MAX, h->backlog, now)) {
		tried = 1;
		d = hqos_dequeue(h, m, 512);
		rte_pktmbuf_free_bulk(m, d);
	}
	if (sleep != NULL)
		*sleep = hqos_batch_may_sleep(10, rx, 0, d, h->backlog, tried);
	return d;
}

static void
test_adaptive(void)
{
	struct dp_config *c = synth(1000000000000ull, 1000000000000ull);
	struct hqos_batch b;
	uint64_t hz = rte_get_tsc_hz(), now = 1000 * hz, gap_max = 0, since = 0;
	uint32_t ref, i, d, same = 0, dq = 0, its = 0, hi_batches = 0;
	struct hqos *h = make(c, &ref);
	int sleep;

	check(h != NULL, "adaptive", "hqos_create");
	if (h == NULL)
		return;
	hqos_batch_init(&b, 0, hz);
	for (i = 0; i < 1000; i++, now += hz / 2000)
		same += iteration(h, &b, ref, 1, now, NULL) == 1;
	CHECKF(same == 1000, "adaptive low load: single frame leaves in its iteration (%u/1000)",
	       same);
	check(b.deferred == 0, "adaptive low load", "no deferral");

	/* High load: full bursts, 1 us apart. */
	for (i = 0; i < 200; i++, now += hz / 1000000) {
		d = iteration(h, &b, ref, RX_MAX, now, NULL);
		its++;
		if (d > 0) {
			dq++;
			hi_batches += d >= HQOS_BATCH_HI;
			if (since != 0 && now - since > gap_max)
				gap_max = now - since;
			since = now;
		}
	}
	CHECKF(dq >= 95 && dq <= 105, "adaptive high load: one dequeue per 2 iterations (%u/%u)",
	       dq, its);
	CHECKF(hi_batches + 1 >= dq, "adaptive high load: batches of %u (%u of %u)", HQOS_BATCH_HI,
	       hi_batches, dq);
	check(b.deferred >= 95, "adaptive high load", "deferrals counted");
	/* The load stops: the rest leaves in the first iteration with a short burst. */
	d = iteration(h, &b, ref, 3, now, &sleep);
	CHECKF(h->backlog == 0, "adaptive: load stops, backlog %lu left",
	       (unsigned long)h->backlog);
	/* A deferral is bounded: full bursts whose frames do not reach hi (queue held
	 * at 32 by feeding 32 and a timeout), on a synthetic clock. */
	hqos_batch_init(&b, 0, hz);
	d = iteration(h, &b, ref, RX_MAX, now, NULL);
	check(d == 0, "adaptive bound", "full burst of 32 deferred");
	check(!hqos_batch_due(&b, RX_MAX, RX_MAX, h->backlog, now + b.max_wait - 1),
	      "adaptive bound", "still deferred just before the wait");
	check(hqos_batch_due(&b, RX_MAX, RX_MAX, h->backlog, now + b.max_wait), "adaptive bound",
	      "due at the wait");
	check(b.timeouts == 1, "adaptive bound", "timeout counted");
	CHECKF(b.max_wait <= hz * HQOS_BATCH_WAIT_US / 1000000, "adaptive wait %lu ticks",
	       (unsigned long)b.max_wait);
	hqos_free(h);
	free(c);
}

static void
test_fixed(void)
{
	struct dp_config *c = synth(1000000000000ull, 1000000000000ull);
	struct hqos_batch b;
	uint64_t hz = rte_get_tsc_hz(), now = 1000 * hz, t0;
	uint32_t ref, d = 0;
	struct hqos *h = make(c, &ref);

	check(h != NULL, "fixed", "hqos_create");
	if (h == NULL)
		return;
	hqos_batch_init(&b, 32, hz);
	check(iteration(h, &b, ref, 1, now, NULL) == 0, "fixed 32", "a single frame waits");
	for (t0 = now; d == 0 && now - t0 < 2 * b.max_wait; now += hz / 1000000)
		d = iteration(h, &b, ref, 0, now, NULL);
	CHECKF(d == 1 && now - t0 >= b.max_wait, "fixed 32: single frame left after %lu us",
	       (unsigned long)((now - t0) * 1000000 / hz));
	hqos_free(h);
	free(c);
}

static void
test_sleep(void)
{
	/* 1 Mbit/s pipe: 10 frames of 1004 bytes, its bucket holds a few. */
	struct dp_config *c = synth(1000000000000ull, 1000000ull);
	struct hqos_batch b;
	uint64_t hz = rte_get_tsc_hz(), t0, waited = 0;
	uint32_t ref, d, total = 0, held = 0, slept = 0;
	struct hqos *h = make(c, &ref);
	int sleep;

	check(h != NULL, "sleep", "hqos_create");
	if (h == NULL)
		return;
	hqos_batch_init(&b, 0, hz);
	total = iteration(h, &b, ref, 10, rte_rdtsc(), &sleep);
	CHECKF(total < 10 && h->backlog > 0, "sleep: the shaper holds frames (%u left)", total);
	t0 = rte_rdtsc();
	/* The busy loop with nothing received: every held frame leaves at its token time. */
	while (h->backlog > 0 && (waited = rte_rdtsc() - t0) < 2 * hz) {
		d = iteration(h, &b, ref, 0, rte_rdtsc(), &sleep);
		total += d;
		if (d == 0 && h->backlog > 0) {
			held++;
			slept += sleep;
		}
	}
	/* Each such poll received, injected and dequeued nothing: the rule before slept. */
	check(held > 0, "sleep", "polls with frames held by the shaper seen");
	/* Those frames wait for their tokens (the scheduler was asked and gave nothing): the
	 * worker may sleep, so a subscriber above its rate does not keep it spinning. */
	CHECKF(slept == held, "sleep: polls with frames held by the shaper may sleep (%u of %u)",
	       slept, held);
	/* 9 frames x 1004 B at 1 Mbit/s: at most 72 ms, plus 20 ms of slack (rte_sched:
	 * its class credit comes once per period, 1 s at this rate). */
	CHECKF(total == 10 && waited < hz * (sched_kind == HQOS_SCHED_RTE_SCHED ? 1500 : 92) / 1000,
	       "sleep: held frames out in %lu ms", (unsigned long)(waited * 1000 / hz));
	sleep = hqos_batch_may_sleep(10, 0, 0, 0, h->backlog, 0);
	check(sleep == 1, "sleep", "idle with an empty HQoS: the back-off sleeps");
	check(hqos_batch_may_sleep(10, 0, 0, 0, 5, 0) == 0, "sleep",
	      "frames the batch holds back (not asked for): no sleep");
	check(hqos_batch_may_sleep(10, 1, 0, 0, 5, 1) == 0, "sleep", "a frame received: no sleep");
	check(hqos_batch_may_sleep(0, 0, 0, 0, 0, 0) == 0, "sleep", "--idle-sleep-us 0: never");
	hqos_free(h);
	free(c);
}

int
main(int argc, char **argv)
{
	if (argc > 1 && hqos_sched_parse(argv[1]) != 0)
		sched_kind = hqos_sched_parse(argv[1]);
	if (harness_eal_init(argv[0]) < 0)
		return 1;
	pool = rte_pktmbuf_pool_create("batch", 4096, 0, 0, 2048, 0);
	if (pool == NULL) {
		printf("FAIL mbuf pool\n0 passed, 1 failed\n");
		return 1;
	}
	test_adaptive();
	test_fixed();
	test_sleep();
	return harness_report();
}

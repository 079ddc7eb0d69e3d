/*
 * Tests of the HQoS stage (hqos.h).
 *
 * usage: test_hqos FIXTURES_DIR
 *
 * The EAL starts in memory (harness.h: --no-huge -m 128). Covers: creation
 * from the fixtures (lab_dp4.ini; multi_group.ini refused for its 1 bit/s
 * profile, accepted once that is raised) and from synthetic configurations,
 * parameter refusals, the profile ladder (never above the request, within
 * the step), the marking layout against rte_sched_port_pkt_write(), the
 * best-effort flow hash, pipe allocation across subports, exhaustion, free
 * and reuse, the command ring full and drained, owner mapping across
 * free/reuse, command ordering (alloc then an immediate enqueue), strict
 * priority, WRR weights, shaping accuracy (2x a pipe's rate over two classes
 * for ~1 s of TSC time, within 2%, nothing lost in the high class), two and
 * two unequal pipes oversubscribing a small subport, stats harvest, and
 * memory figures for 4K and 64K pipes. Timed parts run in a tight loop
 * measured by the TSC and retry when the process was descheduled.
 * The last line is "N passed, M failed"; exit status 1 when M > 0.
 */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_sched.h>

#include "hqos.h"
#include "session.h"
#define HARNESS_EAL
#include "harness.h"

static_assert(HQOS_OWNER_NONE == SESSION_ID_NONE, "stale frames have no session");

#define FRAME 1000u /* bytes without FCS: 1004 on the wire */
#define BURST 32u

static struct rte_mempool *pool;
static uint64_t hz;
static char err[256];

/* --- configurations ----------------------------------------------------- */

static void
qos_set(struct dp_config *c, uint16_t q, const char *name, uint64_t down, const uint8_t w[4])
{
	struct dp_qos_profile *qp = &c->qos_profiles[q];
	uint32_t i;

	memset(qp, 0, sizeof(*qp));
	snprintf(qp->name, sizeof(qp->name), "%s", name);
	qp->down_rate = down;
	qp->up_pir = down;
	qp->up_cir = down;
	qp->default_tc = DP_TC_BEST_EFFORT;
	for (i = 0; i < DP_NUM_TCS; i++)
		qp->tc_rate[i] = down;
	memcpy(qp->be_weights, w, 4);
	if (q >= c->n_qos_profiles)
		c->n_qos_profiles = (uint16_t)(q + 1);
}

/* port_rate, n access ports at ap_rate each, one profile "p0" at down (1 1 1 1). */
static struct dp_config *
synth(uint64_t port_rate, uint16_t n_ap, uint64_t ap_rate, uint64_t down)
{
	static const uint8_t eq[4] = {1, 1, 1, 1};
	struct dp_config *c = calloc(1, sizeof(*c));
	uint16_t a;

	c->instance.port_rate = port_rate;
	c->n_access_ports = n_ap;
	for (a = 0; a < n_ap; a++) {
		snprintf(c->access_ports[a].name, DP_NAME_SIZE, "ap%u", a);
		c->access_ports[a].tpid = DP_TPID_8021Q;
		c->access_ports[a].rate = ap_rate;
	}
	qos_set(c, 0, "p0", down, eq);
	return c;
}

/* The scheduler under test: argv[2], "hsched" (default) or "rte_sched". */
static uint8_t sched_kind = HQOS_SCHED_HSCHED;

static struct hqos_params
params(uint32_t capacity, uint32_t subport_pipes, uint16_t qsize)
{
	struct hqos_params p;

	hqos_params_default(&p);
	p.scheduler = sched_kind;
	p.capacity = capacity;
	p.subport_pipes = subport_pipes;
	p.qsize = qsize;
	return p;
}

/* For the timed tests: 20 ms buckets and pacer, so a short stall of this
 * process (the machine is shared) costs no rate. */
#define TIMED_TB_MS 20u

static struct hqos_params
params_timed(void)
{
	struct hqos_params p = params(4, 0, 64);

	p.tb_ms = TIMED_TB_MS;
	p.port_burst_us = TIMED_TB_MS * 1000;
	return p;
}

/* --- frames --------------------------------------------------------------- */

static struct rte_mbuf *
frame(uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	if (m != NULL && rte_pktmbuf_append(m, (uint16_t)len) == NULL) {
		rte_pktmbuf_free(m);
		m = NULL;
	}
	return m;
}

/* Enqueue n frames of len on (ref, tc, q); returns how many were accepted. */
static uint32_t
put(struct hqos *h, uint32_t ref, uint8_t tc, uint8_t q, uint32_t n, uint32_t len)
{
	struct rte_mbuf *m[BURST];
	uint32_t k, i, done = 0, ok = 0;

	while (done < n) {
		k = RTE_MIN(n - done, BURST);
		for (i = 0; i < k; i++) {
			m[i] = frame(len);
			if (m[i] == NULL)
				return ok;
			hqos_mark(m[i], ref, tc, q);
		}
		ok += hqos_enqueue(h, m, k);
		done += k;
	}
	return ok;
}

/* Dequeue until empty or ms of TSC time; owners[] gets each frame's owner
 * and tcs[] its class when not NULL. Returns the frames dequeued. */
static uint32_t
drain(struct hqos *h, uint32_t ms, uint32_t *owners, uint8_t *tcs, uint32_t max)
{
	struct rte_mbuf *m[BURST];
	uint64_t end = rte_rdtsc() + hz * ms / 1000;
	uint32_t n = 0, k, i;

	while (rte_rdtsc() < end) {
		k = hqos_dequeue(h, m, BURST);
		for (i = 0; i < k; i++) {
			if (n < max) {
				if (owners != NULL)
					owners[n] = hqos_owner(h, m[i]);
				if (tcs != NULL)
					tcs[n] = m[i]->hash.sched.traffic_class;
			}
			n++;
			rte_pktmbuf_free(m[i]);
		}
	}
	return n;
}

/* --- creation --------------------------------------------------------------- */

static void
test_fixtures(const char *dir)
{
	struct dp_config *c = calloc(1, sizeof(*c));
	struct hqos_params p = params(256, 0, 16);
	struct rte_malloc_socket_stats before, after;
	char path[512];
	struct hqos *h;
	uint64_t est;

	snprintf(path, sizeof(path), "%s/lab_dp4.ini", dir);
	check(dp_config_load(path, c, err, sizeof(err)) == 0, "fixtures", "lab_dp4.ini loads");
	rte_malloc_get_socket_stats(0, &before);
	h = hqos_create(c, &p, err, sizeof(err));
	rte_malloc_get_socket_stats(0, &after);
	check(h != NULL, "fixtures", "lab_dp4: created");
	if (h == NULL) {
		printf("  %s\n", err);
		free(c);
		return;
	}
	/* 256 pipes for 2 access ports: one spare chunk, of 64 pipes so that it
	 * costs a quarter of the capacity (4 + 1 chunks, 8 subports). */
	check(h->n_chunks == 5 && h->n_subports == 8 && h->subport_pipes == 64, "fixtures",
	      "lab_dp4: 4 + 1 subports of 64 pipes");
	check(h->n_qos == 2 && h->n_shapes == 2, "fixtures", "lab_dp4: gold and silver shapes");
	check(h->n_profiles == 1 + 2 + 2 * h->n_rungs, "fixtures", "lab_dp4: profile count");
	check(h->exact_rate[0] == 100000000 && h->exact_rate[1] == 20000000, "fixtures",
	      "lab_dp4: exact rates");
	check(h->rungs[0] == HQOS_DEFAULT_LADDER_MIN && h->rungs[h->n_rungs - 1] == 12500000000ull,
	      "fixtures", "lab_dp4: ladder 64 kbit/s .. port rate");
	est = hqos_memory_estimate(c, &p, err, sizeof(err));
	printf("lab_dp4: %u rungs (step %u bp), %u profiles per subport; memory %" PRIu64
	       " bytes (heap delta %zu), estimate %" PRIu64 "\n",
	       h->n_rungs, h->ladder_step_bp, h->n_profiles, hqos_memory_bytes(h),
	       (size_t)(after.heap_allocsz_bytes - before.heap_allocsz_bytes), est);
	check(est > 0 && est <= hqos_memory_bytes(h) && est * 105 / 100 >= hqos_memory_bytes(h),
	      "fixtures", "estimate within 5% below the measured heap");
	hqos_free(h);

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "%s/multi_group.ini", dir);
	check(dp_config_load(path, c, err, sizeof(err)) == 0, "fixtures", "multi_group.ini loads");
	h = hqos_create(c, &p, err, sizeof(err));
	check(h == NULL && strstr(err, "qos_profile.2 'bronze'") != NULL &&
		      strstr(err, "down_rate 1 bit/s") != NULL,
	      "fixtures", "multi_group: 1 bit/s bronze refused, named");
	printf("multi_group: %s\n", err);
	/* Raised to 1 Mbit/s (class 0 listed at 200 kbit/s) it is accepted. */
	c->qos_profiles[2].down_rate = 1000000;
	for (int i = 0; i < DP_NUM_TCS; i++)
		c->qos_profiles[2].tc_rate[i] = i == 0 ? 200000 : 1000000;
	h = hqos_create(c, &p, err, sizeof(err));
	check(h != NULL && h->n_shapes == 3 && h->n_chunks == 5, "fixtures",
	      "multi_group with bronze at 1 Mbit/s: three shapes");
	hqos_free(h);
	free(c);
}

static void
test_params(void)
{
	struct dp_config *c = synth(1000000000, 1, 1000000000, 10000000);
	struct hqos_params p;
	struct hqos *h;

	p = params(64, 0, 3);
	check(hqos_create(c, &p, err, sizeof(err)) == NULL && strstr(err, "qsize") != NULL,
	      "params", "qsize 3 refused");
	p = params(64, 3000, 16);
	check(hqos_create(c, &p, err, sizeof(err)) == NULL && strstr(err, "subport_pipes"),
	      "params", "subport_pipes 3000 refused");
	p = params(64, 0, 16);
	p.ladder_min_rate = 1000;
	check(hqos_create(c, &p, err, sizeof(err)) == NULL && strstr(err, "ladder_min_rate"),
	      "params", "ladder minimum below one frame per second refused");
	p = params(64, 0, 16);
	p.ladder_step_bp = 20000;
	check(hqos_create(c, &p, err, sizeof(err)) == NULL && strstr(err, "ladder_step_bp"),
	      "params", "ladder step 200% refused");
	p = params(64, 0, 16);
	p.cmd_ring_size = 1;
	check(hqos_create(c, &p, err, sizeof(err)) == NULL && strstr(err, "cmd_ring_size"),
	      "params", "command ring of 1 refused");
	p = params(HQOS_MAX_PIPES + 1, 0, 16);
	check(hqos_create(c, &p, err, sizeof(err)) == NULL && strstr(err, "capacity"), "params",
	      "capacity above 4M refused");
	p = params(64, 0, 16);
	p.max_pipe_profiles = 3;
	check(hqos_create(c, &p, err, sizeof(err)) == NULL && strstr(err, "max_pipe_profiles"),
	      "params", "a table without room for a ladder refused");
	/* A small table widens the step instead. */
	p = params(64, 0, 16);
	p.max_pipe_profiles = 200;
	h = hqos_create(c, &p, err, sizeof(err));
	check(h != NULL && h->n_profiles <= 200 && h->ladder_step_bp > 100, "params",
	      "max_pipe_profiles 200 widens the ladder step");
	if (h != NULL)
		printf("200 profiles: %u rungs, step %u bp\n", h->n_rungs, h->ladder_step_bp);
	hqos_free(h);
	c->access_ports[0].rate = 8000;
	p = params(64, 0, 16);
	check(hqos_create(c, &p, err, sizeof(err)) == NULL && strstr(err, "access_port.0"),
	      "params", "8 kbit/s access port refused");
	free(c);
}

/* --- ladder ------------------------------------------------------------- */

static uint64_t
rnd64(void)
{
	static uint64_t s = 0x9e3779b97f4a7c15ULL;

	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	return s;
}

static void
test_ladder(void)
{
	struct dp_config *c = synth(12500000000ull, 1, 10000000000ull, 100000000);
	struct hqos_params p = params(64, 0, 16);
	struct hqos *h = hqos_create(c, &p, err, sizeof(err));
	double g, worst = 0.0, e;
	uint64_t r, eff, lo, span;
	uint32_t k, above = 0, beyond = 0, mono = 0;

	check(h != NULL, "ladder", "created");
	if (h == NULL) {
		free(c);
		return;
	}
	g = 1.0 + h->ladder_step_bp / 10000.0;
	for (k = 1; k < h->n_rungs; k++)
		if (h->rungs[k] <= h->rungs[k - 1] || h->rungs[k] % 8 != 0 ||
		    (double)h->rungs[k] > g * (double)h->rungs[k - 1] + 8.0)
			mono++;
	check(mono == 0, "ladder", "rungs ascend, multiples of 8, at most one step apart");
	/* Log-uniform requests over the whole ladder. */
	lo = h->rungs[0];
	span = h->port_rate - lo;
	for (k = 0; k < 100000; k++) {
		r = lo + (uint64_t)((double)span * ((double)(rnd64() % 1000000) / 1e6) *
				    ((double)(rnd64() % 1000000) / 1e6) *
				    ((double)(rnd64() % 1000000) / 1e6));
		if (r == c->qos_profiles[0].down_rate)
			continue;
		eff = hqos_rate_effective(h, 0, r);
		if (eff > r)
			above++;
		e = 1.0 - (double)eff / (double)r;
		if (e > worst)
			worst = e;
		if ((double)eff < (double)r / g - 8.0)
			beyond++;
	}
	printf("ladder: %u rungs from %" PRIu64 " to %" PRIu64 " bit/s, step %u bp: worst "
	       "rounding %.4f%% (bound %.4f%%)\n",
	       h->n_rungs, h->rungs[0], h->rungs[h->n_rungs - 1], h->ladder_step_bp, 100.0 * worst,
	       100.0 * (1.0 - 1.0 / g));
	check(above == 0, "ladder", "never above the request");
	check(beyond == 0, "ladder", "within one step below the request");
	check(hqos_rate_effective(h, 0, 0) == 100000000, "ladder", "0 = the profile's rate");
	check(hqos_rate_effective(h, 0, 100000000) == 100000000, "ladder",
	      "the profile's own rate is exact");
	check(hqos_rate_effective(h, 0, 99999999) < 100000000, "ladder",
	      "just below the profile's rate rounds down");
	check(hqos_rate_effective(h, 0, 50000) == 0, "ladder", "below the lowest rung refused");
	check(hqos_rate_effective(h, 0, 64000) == 64000, "ladder", "the lowest rung");
	check(hqos_rate_effective(h, 0, 40000000000ull) == 12500000000ull, "ladder",
	      "above the port rate: the port rate");
	check(hqos_rate_effective(h, 1, 0) == 0, "ladder", "unknown profile refused");
	hqos_free(h);
	free(c);
}

/* --- marking -------------------------------------------------------------- */

static struct hqos_params
mark_params(void)
{
	struct hqos_params p = params(40, 8, 8);

	p.scheduler = HQOS_SCHED_RTE_SCHED;
	return p;
}

static void
test_mark(void)
{
	struct dp_config *c = synth(1000000000, 3, 100000000, 10000000);
	/* The layout is the scheduler's contract either way: checked with rte_sched's
	 * own functions, so on an rte_sched port. */
	struct hqos_params p = mark_params();
	struct hqos *h = hqos_create(c, &p, err, sizeof(err));
	struct rte_mbuf *m = frame(64), *m2 = frame(64);
	uint32_t ref, bad = 0, bad_path = 0, sp, pipe, tc, q, n, i;
	struct hqos_pipe_info info;
	uint8_t ip[20];
	uint32_t hist[4] = {0}, stable = 0;

	check(h != NULL && m != NULL && m2 != NULL, "mark", "created");
	if (h == NULL || m == NULL || m2 == NULL)
		goto out;
	/* 40 pipes in chunks of 8 + 2 spare = 7 chunks, 8 rte_sched subports. */
	check(h->n_chunks == 7 && h->n_subports == 8, "mark", "7 chunks padded to 8 subports");
	for (n = 0; n < 40; n++) {
		if (hqos_pipe_alloc(h, (uint16_t)(n % 3), 0, 0, &ref) != 0 ||
		    hqos_pipe_info(h, ref, &info) != 0) {
			bad++;
			continue;
		}
		for (tc = 0; tc < DP_NUM_TCS; tc++) {
			for (q = 0; q < (tc == DP_TC_BEST_EFFORT ? 4u : 1u); q++) {
				hqos_mark(m, ref, (uint8_t)tc, (uint8_t)q);
				rte_sched_port_pkt_write(h->port, m2, info.subport, info.pipe, tc,
							 q, RTE_COLOR_GREEN);
				if (m->hash.sched.queue_id != m2->hash.sched.queue_id ||
				    m->hash.sched.traffic_class != tc ||
				    m->hash.sched.reserved != hqos_ref_gen(ref))
					bad++;
				rte_sched_port_pkt_read_tree_path(h->port, m, &sp, &pipe, &i, &i);
				if (sp != info.subport || pipe != info.pipe)
					bad_path++;
			}
		}
	}
	check(bad == 0, "mark", "hqos_mark() == rte_sched_port_pkt_write() for every queue");
	check(bad_path == 0, "mark", "rte_sched reads back subport and pipe");
	hqos_mark(m, ref, 200, 7);
	check((m->hash.sched.queue_id & 15) == 15 && m->hash.sched.traffic_class == 12, "mark",
	      "out-of-range class and queue fold into best effort");

	/* Best-effort flow hash: spread and stable. */
	for (n = 0; n < 40000; n++) {
		memset(ip, 0, sizeof(ip));
		ip[0] = 0x45;
		ip[9] = n & 1 ? 6 : 17;
		for (i = 12; i < 20; i++)
			ip[i] = (uint8_t)rnd64();
		q = hqos_be_queue_ipv4(ip);
		hist[q & 3]++;
		stable += q < 4 && hqos_be_queue_ipv4(ip) == q;
	}
	check(stable == 40000, "mark", "flow hash in 0..3 and stable");
	for (q = 0; q < 4; q++)
		check(hist[q] > 9000 && hist[q] < 11000, "mark", "flow hash spreads over 4 queues");
out:
	rte_pktmbuf_free(m);
	rte_pktmbuf_free(m2);
	hqos_free(h);
	free(c);
}

/* --- allocation ----------------------------------------------------------- */

static void
test_alloc(void)
{
	struct dp_config *c = synth(2000000000, 2, 1000000000, 10000000);
	struct hqos_params p = params(64, 16, 8);
	struct hqos *h = hqos_create(c, &p, err, sizeof(err));
	uint32_t r0[48], r1[40], ref = 0, ref2 = 0, n0 = 0, n1 = 0, i, sub_c, bad = 0;
	struct hqos_pipe_info info, info2;
	struct hqos_worker_counters wc;
	int rc;

	check(h != NULL, "alloc", "created");
	if (h == NULL) {
		free(c);
		return;
	}
	/* 64 / 16 = 4 chunks + 1 spare for the second access port. */
	check(h->n_chunks == 5 && h->n_subports == 8 && h->n_pipes == 80, "alloc",
	      "5 chunks of 16 pipes");
	for (i = 0; i < 40; i++)
		n0 += hqos_pipe_alloc(h, 0, 0, 0, &r0[i]) == 0;
	check(n0 == 40 && hqos_access_port_pipes(h, 0) == 40, "alloc",
	      "40 pipes on access port 0 (3 chunks)");
	hqos_pipe_info(h, r0[0], &info);
	hqos_pipe_info(h, r0[39], &info2);
	sub_c = info2.subport;
	check(info.subport != info2.subport && info2.pipe == 7, "alloc",
	      "access port 0 spans subports, filled densest first");
	for (i = 0; i < 40; i++) {
		rc = hqos_pipe_alloc(h, 1, 0, 0, &r1[i]);
		if (rc != 0)
			break;
		n1++;
	}
	check(n1 == 32 && rc == -ENOSPC, "alloc",
	      "access port 1 gets the 2 free chunks, then -ENOSPC");
	check(hqos_pipe_alloc(h, 0, 0, 0, &ref) == 0, "alloc",
	      "access port 0 still has room in its partly used chunk");
	r0[n0++] = ref;
	check(hqos_pipe_alloc(h, 2, 0, 0, &ref) == -EINVAL &&
		      hqos_pipe_alloc(h, 0, 1, 0, &ref) == -EINVAL &&
		      hqos_pipe_alloc(h, 0, 0, 1000, &ref) == -EINVAL,
	      "alloc", "bad access port, profile, rate: -EINVAL");

	/* Free and reuse: the same pipe comes back with a new generation. */
	hqos_pipe_info(h, r0[5], &info);
	check(hqos_pipe_free(h, r0[5]) == 0, "alloc", "free");
	check(hqos_pipe_free(h, r0[5]) == -ENOENT && hqos_pipe_set_owner(h, r0[5], 1) == -ENOENT &&
		      hqos_pipe_modify(h, r0[5], 0, 0) == -ENOENT,
	      "alloc", "a freed reference is not live");
	/* The densest chunk with room is the one just freed from. */
	check(hqos_pipe_alloc(h, 0, 0, 0, &ref2) == 0 && hqos_pipe_info(h, ref2, &info2) == 0 &&
		      info2.subport == info.subport && info2.pipe == info.pipe && ref2 != r0[5] &&
		      hqos_ref_gen(ref2) == (hqos_ref_gen(r0[5]) + 1),
	      "alloc", "reuse: same pipe, next generation");
	r0[5] = ref2;

	/* Empty the last chunk of access port 0: it goes back to the pool. */
	for (i = 0; i < n0; i++) {
		hqos_pipe_info(h, r0[i], &info);
		if (info.subport == sub_c && hqos_pipe_free(h, r0[i]) != 0)
			bad++;
	}
	check(bad == 0 && hqos_access_port_pipes(h, 0) == 32, "alloc",
	      "access port 0 back to 2 chunks");
	check(hqos_pipe_alloc(h, 1, 0, 5000000, &ref) == 0 && hqos_pipe_info(h, ref, &info) == 0 &&
		      info.subport == sub_c && info.access_port == 1 && info.rate_bps <= 5000000 &&
		      info.rate_bps > 4900000,
	      "alloc", "the released chunk serves access port 1 (ladder rate)");
	check(hqos_pipe_modify(h, ref, 0, 0) == 0 && hqos_pipe_info(h, ref, &info) == 0 &&
		      info.rate_bps == 10000000 && info.profile == 1,
	      "alloc", "modify back to the exact profile");
	check(hqos_pipe_set_owner(h, ref, HQOS_OWNER_UNSET) == -EINVAL &&
		      hqos_pipe_set_owner(h, HQOS_PIPE_NONE, 1) == -EINVAL,
	      "alloc", "bad owner or reference refused");

	hqos_worker_apply(h, rte_rdtsc());
	hqos_worker_counters_read(h, &wc);
	check(wc.cmd_errors == 0 && wc.cmds > 80, "alloc", "every command applied");
	check(h->w_profile[hqos_ref_pipe(ref)] == 1 && h->w_bound[sub_c] == 1, "alloc",
	      "the worker applied the last profile and binding");
	hqos_free(h);

	/* Command ring of 4: -EAGAIN when the worker does not apply. */
	p = params(64, 16, 8);
	p.cmd_ring_size = 4;
	h = hqos_create(c, &p, err, sizeof(err));
	check(h != NULL, "alloc", "created with a ring of 4");
	if (h != NULL) {
		n0 = 0;
		while (hqos_pipe_alloc(h, 0, 0, 0, &ref) == 0)
			n0++;
		check(n0 == 3 && hqos_pipe_alloc(h, 0, 0, 0, &ref) == -EAGAIN &&
			      h->n_allocated == 3,
		      "alloc", "bind + 3 allocs fill the ring, then -EAGAIN, nothing changed");
		hqos_worker_apply(h, 0);
		check(hqos_pipe_alloc(h, 0, 0, 0, &ref) == 0, "alloc",
		      "room again once the worker applied");
		hqos_free(h);
	}
	free(c);
}

/* Contracted rates (the qos-share weight) and the pacer's run-time rate. */
static void
test_guaranteed_and_pacer(void)
{
	struct dp_config *c = synth(2000000000, 2, 1000000000, 10000000);
	struct hqos_params p = params(64, 16, 8);
	struct hqos *h = hqos_create(c, &p, err, sizeof(err));
	uint32_t a = 0, b = 0, d = 0;
	struct rte_mbuf *none[1];

	check(h != NULL, "guaranteed", "created");
	if (h == NULL) {
		free(c);
		return;
	}
	hqos_pipe_alloc(h, 0, 0, 0, &a);
	hqos_pipe_alloc(h, 0, 0, 0, &b);
	hqos_pipe_alloc(h, 1, 0, 0, &d);
	check(hqos_access_port_guaranteed(h, 0, 1000) == 2000 &&
		      hqos_access_port_guaranteed(h, HQOS_UNBOUND, 1000) == 3000,
	      "guaranteed", "no GBR: every session counts the default");
	check(hqos_pipe_set_guaranteed(h, a, 3000000) == 0 &&
		      hqos_pipe_set_guaranteed(h, d, 1000000) == 0,
	      "guaranteed", "set");
	check(hqos_access_port_guaranteed(h, 0, 1000) == 3001000 &&
		      hqos_access_port_guaranteed(h, 1, 1000) == 1000000 &&
		      hqos_access_port_guaranteed(h, HQOS_UNBOUND, 1000) == 4001000,
	      "guaranteed", "3 Mbit/s + one default on port 0, 1 Mbit/s on port 1");
	check(hqos_pipe_set_guaranteed(h, a, 0) == 0 &&
		      hqos_access_port_guaranteed(h, 0, 1000) == 2000,
	      "guaranteed", "back to none");
	hqos_pipe_set_guaranteed(h, a, 5000000);
	check(hqos_pipe_free(h, a) == 0 && hqos_access_port_guaranteed(h, 0, 1000) == 1000 &&
		      hqos_pipe_set_guaranteed(h, a, 1) == -ENOENT,
	      "guaranteed", "a freed pipe's GBR leaves the sum; its reference is refused");
	check(hqos_pipe_alloc(h, 0, 0, 0, &a) == 0 &&
		      hqos_access_port_guaranteed(h, 0, 1000) == 2000,
	      "guaranteed", "a new allocation starts with none");

	/* The pacer: up to the ceiling (port_rate), a frame per second at least. */
	check(hqos_port_rate_get(h) == 2000000000, "pacer", "starts at port_rate");
	check(hqos_port_rate_set(h, 2000000001) == -EINVAL && hqos_port_rate_set(h, 8) == -EINVAL,
	      "pacer", "above the ceiling or below a frame a second: refused");
	check(hqos_port_rate_set(h, 100000000) == 0 && hqos_port_rate_get(h) == 100000000 &&
		      h->pace_req_per_cycle != h->pace_per_cycle,
	      "pacer", "100 Mbit/s set, the worker not yet told");
	h->backlog = 1; /* let hqos_dequeue() reach the pacer (the scheduler is empty) */
	h->pace_credit = h->pace_depth;
	hqos_dequeue(h, none, 1);
	h->backlog = 0;
	check(h->pace_per_cycle == h->pace_req_per_cycle && h->pace_depth == h->pace_req_depth &&
		      h->pace_credit <= h->pace_depth &&
		      (uint64_t)(h->pace_depth >> HQOS_PACE_SHIFT) == 100000000 / 8 / 100,
	      "pacer", "the worker took the rate at its dequeue, credit capped to 10 ms of it");
	hqos_free(h);
	free(c);
}

/* Any split of the capacity over the access ports fits (8 ports, 64 pipes). */
static void
test_split(void)
{
	struct dp_config *c = synth(10000000000ull, 8, 1000000000, 10000000);
	struct hqos_params p = params(64, 0, 2);
	struct hqos *h = hqos_create(c, &p, err, sizeof(err));
	uint32_t refs[64], round, i, ok = 0, bad = 0;

	check(h != NULL, "split", "created");
	if (h == NULL) {
		free(c);
		return;
	}
	printf("split: 64 pipes over 8 access ports: %u chunks of %u (%u pipes)\n", h->n_chunks,
	       h->subport_pipes, h->n_pipes);
	for (round = 0; round < 20; round++) {
		/* Skewed: most sessions on a few ports, every port some of the time. */
		for (i = 0; i < 64; i++) {
			uint16_t a = (uint16_t)(rnd64() % (round % 2 ? 8 : 3 + round % 5));

			if (hqos_pipe_alloc(h, a, 0, 0, &refs[i]) == 0)
				ok++;
			else
				bad++;
		}
		for (i = 0; i < 64; i++)
			hqos_pipe_free(h, refs[i]);
		hqos_worker_apply(h, 0);
	}
	check(bad == 0 && ok == 20 * 64, "split", "20 skewed splits of 64 sessions all fit");
	check(h->n_allocated == 0 && hqos_access_port_pipes(h, 0) == 0, "split", "all freed");
	hqos_free(h);
	free(c);
}

/* --- owners and ordering ----------------------------------------------------- */

static void
test_owner(void)
{
	struct dp_config *c = synth(1000000000, 1, 1000000000, 100000000);
	struct hqos_params p = params(1, 0, 16);
	struct hqos *h = hqos_create(c, &p, err, sizeof(err));
	uint32_t ref = 0, ref2 = 0, own[16], n;

	check(h != NULL && h->n_pipes == 1, "owner", "one pipe");
	if (h == NULL) {
		free(c);
		return;
	}
	hqos_pipe_alloc(h, 0, 0, 0, &ref);
	check(put(h, ref, 0, 0, 2, FRAME) == 2, "owner", "enqueue before the owner is named");
	n = drain(h, 5, own, NULL, 16);
	check(n == 2 && own[0] == HQOS_OWNER_UNSET && own[1] == HQOS_OWNER_UNSET, "owner",
	      "unnamed owner: HQOS_OWNER_UNSET");
	hqos_pipe_set_owner(h, ref, 7);
	put(h, ref, DP_TC_BEST_EFFORT, 2, 3, FRAME);
	n = drain(h, 5, own, NULL, 16);
	check(n == 3 && own[0] == 7 && own[2] == 7, "owner", "frames carry their session");

	/* Three frames still queued when the pipe is freed and reused. */
	put(h, ref, 5, 0, 3, FRAME);
	check(hqos_pipe_free(h, ref) == 0 && hqos_pipe_alloc(h, 0, 0, 0, &ref2) == 0 &&
		      hqos_ref_pipe(ref2) == hqos_ref_pipe(ref) && ref2 != ref,
	      "owner", "the only pipe is reused");
	hqos_pipe_set_owner(h, ref2, 9);
	put(h, ref2, 5, 0, 2, FRAME);
	n = drain(h, 5, own, NULL, 16);
	check(n == 5 && own[0] == HQOS_OWNER_NONE && own[1] == HQOS_OWNER_NONE &&
		      own[2] == HQOS_OWNER_NONE && own[3] == 9 && own[4] == 9,
	      "owner", "frames of the previous owner: HQOS_OWNER_NONE, then the new owner");
	/* Freed with frames queued and not reused: still none. */
	put(h, ref2, 5, 0, 2, FRAME);
	hqos_pipe_free(h, ref2);
	n = drain(h, 5, own, NULL, 16);
	check(n == 2 && own[0] == HQOS_OWNER_NONE && own[1] == HQOS_OWNER_NONE, "owner",
	      "frames of a freed pipe drain (drain profile) with no owner");
	hqos_free(h);
	free(c);
}

static void
test_order(void)
{
	/* A 100 kbit/s pipe: 2-frame bucket, half full at configuration. */
	struct dp_config *c = synth(1000000000, 1, 1000000000, 100000);
	struct hqos_params p = params(4, 0, 32);
	struct hqos *h = hqos_create(c, &p, err, sizeof(err));
	uint32_t ref, n;

	check(h != NULL, "order", "created");
	if (h == NULL) {
		free(c);
		return;
	}
	/* No hqos_worker_apply(): the commands are still in the ring. */
	check(hqos_pipe_alloc(h, 0, 0, 0, &ref) == 0 && rte_ring_count(h->cmds) == 2, "order",
	      "bind and alloc pending");
	check(put(h, ref, DP_TC_BEST_EFFORT, 0, 20, FRAME) == 20 && rte_ring_count(h->cmds) == 0 &&
		      h->w_profile[hqos_ref_pipe(ref)] == 1,
	      "order", "hqos_enqueue() applied the pipe's profile before enqueueing");
	/* Configured: one frame now, 12.5 bytes/ms after. An unconfigured pipe
	 * (drain profile) would let all 20 go. */
	n = drain(h, 20, NULL, NULL, 0);
	check(n >= 1 && n <= 2, "order", "the frames are shaped by the new pipe's profile");
	hqos_free(h);
	free(c);
}

/*
 * Control thread (this one) and a worker pthread at once, for ~0.5 s. The
 * control thread allocates a pipe, names its owner (a fresh session number),
 * publishes (reference, session) in a slot with a release store, later
 * unpublishes it and frees the pipe. The worker, like bng-dp's, applies
 * commands at the top of its loop, marks frames for random published slots
 * (the session number also written in the frame), enqueues, dequeues and
 * checks each frame's owner: its own session or HQOS_OWNER_NONE (pipe freed
 * since), never another session or an unnamed owner.
 */
#define CC_SLOTS 64

struct cc {
	struct hqos *h;
	uint64_t slot[CC_SLOTS]; /* reference << 32 | session, 0 = empty */
	volatile int stop;
	uint64_t frames, owned, stale, wrong, unset;
};

static void *
cc_worker(void *arg)
{
	struct cc *x = arg;
	struct rte_mbuf *m[BURST];
	uint64_t e, rng = 88172645463325252ull;
	uint32_t i, k, n, sid, own;

	while (!x->stop) {
		hqos_worker_apply(x->h, rte_rdtsc());
		for (n = 0, i = 0; i < 8; i++) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			e = __atomic_load_n(&x->slot[rng % CC_SLOTS], __ATOMIC_ACQUIRE);
			if (e == 0 || (m[n] = frame(64)) == NULL)
				continue;
			sid = (uint32_t)e;
			memcpy(rte_pktmbuf_mtod(m[n], void *), &sid, sizeof(sid));
			hqos_mark(m[n], (uint32_t)(e >> 32), (uint8_t)(rng >> 40) % 13,
				  (uint8_t)(rng >> 50));
			n++;
		}
		hqos_enqueue(x->h, m, n);
		k = hqos_dequeue(x->h, m, BURST);
		for (i = 0; i < k; i++) {
			memcpy(&sid, rte_pktmbuf_mtod(m[i], void *), sizeof(sid));
			own = hqos_owner(x->h, m[i]);
			x->frames++;
			if (own == sid)
				x->owned++;
			else if (own == HQOS_OWNER_NONE)
				x->stale++;
			else if (own == HQOS_OWNER_UNSET)
				x->unset++;
			else
				x->wrong++;
			rte_pktmbuf_free(m[i]);
		}
	}
	return NULL;
}

static void
test_concurrent(void)
{
	struct dp_config *c = synth(10000000000ull, 2, 10000000000ull, 1000000000);
	struct hqos_params p = params(48, 16, 16);
	struct hqos_worker_counters wc;
	static struct cc x;
	uint32_t refs[CC_SLOTS], sid = 0, s, k, ops = 0, busy = 0;
	uint64_t end;
	pthread_t t;
	int rc;

	memset(&x, 0, sizeof(x));
	x.h = hqos_create(c, &p, err, sizeof(err));
	check(x.h != NULL, "concurrent", "created");
	if (x.h == NULL) {
		free(c);
		return;
	}
	if (pthread_create(&t, NULL, cc_worker, &x) != 0) {
		check(0, "concurrent", "worker thread");
		hqos_free(x.h);
		free(c);
		return;
	}
	end = rte_rdtsc() + hz / 2;
	for (k = 0; rte_rdtsc() < end; k++) {
		s = k % CC_SLOTS;
		if (x.slot[s] != 0) {
			__atomic_store_n(&x.slot[s], 0, __ATOMIC_RELEASE);
			while ((rc = hqos_pipe_free(x.h, refs[s])) == -EAGAIN)
				busy++;
			ops += rc == 0;
		}
		rc = hqos_pipe_alloc(x.h, (uint16_t)(k & 1), 0, (k & 2) ? 0 : 500000000, &refs[s]);
		if (rc != 0) {
			busy += rc == -EAGAIN;
			continue;
		}
		sid = sid % 1000000 + 1;
		hqos_pipe_set_owner(x.h, refs[s], sid);
		__atomic_store_n(&x.slot[s], (uint64_t)refs[s] << 32 | sid, __ATOMIC_RELEASE);
		ops++;
	}
	x.stop = 1;
	pthread_join(t, NULL);
	hqos_worker_counters_read(x.h, &wc);
	printf("concurrent: %u allocs+frees, %" PRIu64 " frames: %" PRIu64 " owned, %" PRIu64
	       " stale, %" PRIu64 " unnamed, %" PRIu64 " wrong; %" PRIu64 " commands\n",
	       ops, x.frames, x.owned, x.stale, x.unset, x.wrong, wc.cmds);
	check(ops > 1000 && x.frames > 1000 && x.owned > 0, "concurrent", "both sides ran");
	check(x.wrong == 0 && x.unset == 0, "concurrent",
	      "no frame counted on another session or an unnamed owner");
	check(wc.cmd_errors == 0, "concurrent", "every command valid");
	hqos_free(x.h);
	free(c);
}

/* --- scheduling ---------------------------------------------------------- */

static void
test_priority(void)
{
	struct dp_config *c = synth(1000000000, 1, 1000000000, 10000000);
	struct hqos_params p = params(4, 0, 64);
	struct hqos *h = hqos_create(c, &p, err, sizeof(err));
	uint8_t tcs[128];
	uint32_t ref, n, i, last_tc0 = 0, first_be = UINT32_MAX;

	check(h != NULL, "priority", "created");
	if (h == NULL) {
		free(c);
		return;
	}
	hqos_pipe_alloc(h, 0, 0, 0, &ref);
	/* Overloaded 10 Mbit/s pipe: best effort first in time, then class 0. */
	put(h, ref, DP_TC_BEST_EFFORT, 0, 40, FRAME);
	put(h, ref, 3, 0, 20, FRAME);
	put(h, ref, 0, 0, 30, FRAME);
	n = drain(h, 150, NULL, tcs, 128);
	for (i = 0; i < RTE_MIN(n, 128u); i++) {
		if (tcs[i] == 0)
			last_tc0 = i;
		if (tcs[i] == DP_TC_BEST_EFFORT && first_be == UINT32_MAX)
			first_be = i;
	}
	check(n == 90, "priority", "every frame leaves");
	check(last_tc0 == 29 && tcs[30] == 3 && tcs[49] == 3 && first_be == 50, "priority",
	      "class 0, then class 3, then best effort");
	hqos_free(h);
	free(c);
}

/* WRR 4:2:1:1 with frames of len: returns the counts per queue of the first
 * total frames out of a pipe whose 4 best-effort queues never empty. */
static void
wrr_run(uint32_t len, uint32_t total, uint32_t cnt[4])
{
	static const uint8_t w[4] = {4, 2, 1, 1};
	struct dp_config *c = synth(2000000000, 1, 2000000000, 1000000000);
	struct hqos_params p = params(4, 0, 64);
	struct hqos *h;
	struct rte_mbuf *m[BURST];
	uint32_t ref, n = 0, k, i, q;
	uint64_t end;

	qos_set(c, 0, "wrr", 1000000000, w);
	h = hqos_create(c, &p, err, sizeof(err));
	memset(cnt, 0, 4 * sizeof(cnt[0]));
	if (h == NULL) {
		free(c);
		return;
	}
	hqos_pipe_alloc(h, 0, 0, 0, &ref);
	for (q = 0; q < 4; q++)
		put(h, ref, DP_TC_BEST_EFFORT, (uint8_t)q, 64, len);
	end = rte_rdtsc() + hz * 3;
	while (n < total && rte_rdtsc() < end) {
		k = hqos_dequeue(h, m, 8);
		for (i = 0; i < k; i++) {
			q = m[i]->hash.sched.queue_id & 3;
			if (n++ < total)
				cnt[q]++;
			rte_pktmbuf_free(m[i]);
			/* Refill the queue just served: all four stay backlogged. */
			put(h, ref, DP_TC_BEST_EFFORT, (uint8_t)q, 1, len);
		}
	}
	hqos_free(h);
	free(c);
}

static void
test_wrr(void)
{
	uint32_t cnt[4], total = 16000;
	double r0, r1, r2;

	wrr_run(256, total, cnt);
	r0 = (double)cnt[0] / cnt[3];
	r1 = (double)cnt[1] / cnt[3];
	r2 = (double)cnt[2] / cnt[3];
	printf("wrr 4:2:1:1, 256-byte frames: %u %u %u %u (%.2f : %.2f : %.2f : 1)\n", cnt[0],
	       cnt[1], cnt[2], cnt[3], r0, r1, r2);
	check(r0 > 3.6 && r0 < 4.4 && r1 > 1.8 && r1 < 2.2 && r2 > 0.9 && r2 < 1.1, "wrr",
	      "4:2:1:1 within 10% (256-byte frames)");
	wrr_run(1500, total, cnt);
	printf("wrr 4:2:1:1, 1500-byte frames: %u %u %u %u (%.2f : %.2f : %.2f : 1)\n", cnt[0],
	       cnt[1], cnt[2], cnt[3], (double)cnt[0] / cnt[3], (double)cnt[1] / cnt[3],
	       (double)cnt[2] / cnt[3]);
	check(cnt[0] > cnt[1] && cnt[1] > cnt[2] && cnt[0] > 2 * cnt[3], "wrr",
	      "1500-byte frames keep the order of the weights");
}

/*
 * Offer traffic for ms of TSC time on n pipes: pipe i gets rate_bps[i] split
 * over classes as frac_tc0[i] (class 0) and the rest (best effort, 4 queues).
 * Dequeued wire bytes (+4 per frame) per pipe are counted between warm-up and
 * the end. Offers missed while descheduled are skipped, not burst, and the
 * longest gap between two loop iterations is returned.
 */
struct offer {
	uint32_t ref;
	uint64_t rate_bps;
	double frac_tc0;
	uint64_t offered[2]; /* frames due (skipped ones included): class 0, best effort */
	uint64_t sent[2];    /* frames enqueued */
	uint64_t done[2];    /* frames dequeued */
	uint64_t bytes;	     /* wire bytes dequeued in the window */
};

struct run {
	uint64_t window; /* cycles measured */
	uint64_t gap;	 /* longest time between two loop iterations */
	uint64_t stall;	 /* sum of the gaps over 1 ms: the process was not running */
};

static void
offer_run(struct hqos *h, struct offer *o, uint32_t n, uint32_t warm_ms, uint32_t ms,
	  struct run *run)
{
	struct rte_mbuf *m[BURST];
	uint64_t t0 = rte_rdtsc(), w0 = t0 + hz * warm_ms / 1000, w1 = w0 + hz * ms / 1000;
	uint64_t now, prev = t0, due;
	uint32_t i, ii, j, k, cls, iter = 0;

	memset(run, 0, sizeof(*run));
	run->window = w1 - w0;
	for (;;) {
		now = rte_rdtsc();
		if (now > w0 && now - prev > run->gap)
			run->gap = now - prev;
		if (now > w0 && now - prev > hz / 1000)
			run->stall += now - prev;
		prev = now;
		if (now >= w1)
			break;
		for (ii = 0; ii < n; ii++) {
			/* Rotate which pipe is offered first: no pipe always gets the
			 * slot a dequeue just freed. */
			i = (ii + iter) % n;
			for (cls = 0; cls < 2; cls++) {
				double share = cls == 0 ? o[i].frac_tc0 : 1.0 - o[i].frac_tc0;

				due = (uint64_t)((double)o[i].rate_bps * share / 8.0 /
						 (FRAME + HQOS_FRAME_OVERHEAD) *
						 (double)(now - t0) / (double)hz);
				if (due > o[i].offered[cls] + 4)
					o[i].offered[cls] = due - 4; /* skip, do not burst */
				while (o[i].offered[cls] < due) {
					struct rte_mbuf *f = frame(FRAME);

					if (f == NULL)
						break;
					hqos_mark(f, o[i].ref, cls == 0 ? 0 : DP_TC_BEST_EFFORT,
						  (uint8_t)(o[i].offered[cls] & 3));
					hqos_enqueue(h, &f, 1);
					o[i].offered[cls]++;
					o[i].sent[cls]++;
				}
			}
		}
		k = hqos_dequeue(h, m, BURST);
		for (j = 0; j < k; j++) {
			for (i = 0; i < n; i++) {
				if (hqos_ref_pipe(o[i].ref) != m[j]->hash.sched.queue_id >> 4)
					continue;
				o[i].done[m[j]->hash.sched.traffic_class == 0 ? 0 : 1]++;
				if (now >= w0)
					o[i].bytes += m[j]->pkt_len + HQOS_FRAME_OVERHEAD;
			}
			rte_pktmbuf_free(m[j]);
		}
		hqos_worker_apply(h, now);
		iter++;
	}
}

/*
 * Rate check that survives a shared machine. Without a stall (no gap over
 * 1 ms) the rate must be within 2% of want. With stalls, rte_sched drops the
 * class credits of periods the worker missed and its buckets refill while it
 * is away, so: at least want - 2% over the time the process ran, at most
 * want + 2% plus one bucket (TIMED_TB_MS) flushed inside the window.
 */
static int
rate_ok(double got, double want, const struct run *r)
{
	double win = (double)r->window / (double)hz;
	double ran = (double)(r->window - RTE_MIN(r->stall, r->window)) / (double)r->window;

	if (r->gap < hz / 1000)
		return got >= want * 0.98 && got <= want * 1.02;
	return got >= want * 0.98 * ran && got <= want * (1.02 + TIMED_TB_MS / 1000.0 / win);
}

/* Dequeue what is left for ms, counting it per pipe and class. */
static void
offer_drain(struct hqos *h, struct offer *o, uint32_t n, uint32_t ms)
{
	struct rte_mbuf *m[BURST];
	uint64_t end = rte_rdtsc() + hz * ms / 1000;
	uint32_t i, j, k;

	while (rte_rdtsc() < end) {
		k = hqos_dequeue(h, m, BURST);
		for (j = 0; j < k; j++) {
			for (i = 0; i < n; i++)
				if (hqos_ref_pipe(o[i].ref) == m[j]->hash.sched.queue_id >> 4)
					o[i].done[m[j]->hash.sched.traffic_class == 0 ? 0 : 1]++;
			rte_pktmbuf_free(m[j]);
		}
	}
}

static void
test_shaping(void)
{
	struct dp_config *c = synth(1000000000, 1, 1000000000, 50000000);
	struct hqos_params p = params_timed();
	struct hqos_tc_counters st;
	struct hqos_worker_counters wc;
	struct hqos *h = NULL;
	struct offer o;
	struct run run;
	double got = 0.0, rel = 1.0;
	int attempt, ok = 0;

	for (attempt = 0; attempt < 3; attempt++) {
		hqos_free(h);
		h = hqos_create(c, &p, err, sizeof(err));
		if (h == NULL)
			break;
		memset(&o, 0, sizeof(o));
		hqos_pipe_alloc(h, 0, 0, 0, &o.ref);
		/* 2x the pipe rate: a quarter of it in class 0, the rest best effort. */
		o.rate_bps = 100000000;
		o.frac_tc0 = 0.25;
		offer_run(h, &o, 1, 100, 1000, &run);
		got = (double)o.bytes * 8.0 * (double)hz / (double)run.window;
		rel = got / 50000000.0 - 1.0;
		printf("shaping: 50 Mbit/s pipe offered 100 Mbit/s (25%% class 0): %.3f Mbit/s "
		       "(%+.3f%%); stalls %.1f ms, longest %.2f ms; attempt %d\n",
		       got / 1e6, 100.0 * rel, 1e3 * (double)run.stall / (double)hz,
		       1e3 * (double)run.gap / (double)hz, attempt + 1);
		ok = rate_ok(got, 50e6, &run);
		if (ok && rel < 0.02 && rel > -0.02)
			break;
	}
	check(h != NULL, "shaping", "created");
	if (h == NULL) {
		free(c);
		return;
	}
	check(ok, "shaping", "pipe output within 2% of its rate (of the time it ran)");
	offer_drain(h, &o, 1, 200);
	check(o.done[0] == o.sent[0], "shaping", "class 0 loses nothing");
	hqos_worker_apply(h, UINT64_MAX);
	hqos_stats_read(h, HQOS_SCOPE_TOTAL, 0, &st);
	hqos_worker_counters_read(h, &wc);
	printf("shaping: class 0 %" PRIu64 " frames sent, %" PRIu64 " out; best effort %" PRIu64
	       " sent, %" PRIu64 " out, %" PRIu64 " dropped\n",
	       o.sent[0], o.done[0], o.sent[1], o.done[1], st.drop_pkts[DP_TC_BEST_EFFORT]);
	check(o.done[1] + st.drop_pkts[DP_TC_BEST_EFFORT] == o.sent[1], "shaping",
	      "every loss is best effort");
	check(st.drop_pkts[0] == 0 && st.pkts[0] == o.sent[0] &&
		      st.pkts[DP_TC_BEST_EFFORT] + st.drop_pkts[DP_TC_BEST_EFFORT] == o.sent[1],
	      "shaping", "harvested class counters add up to what was offered");
	check(wc.enq_drops == st.drop_pkts[DP_TC_BEST_EFFORT] &&
		      wc.deq_pkts == o.done[0] + o.done[1],
	      "shaping", "worker counters agree");
	hqos_stats_read(h, HQOS_SCOPE_ACCESS_PORT, 0, &st);
	check(st.pkts[0] == o.sent[0], "shaping", "access port counters");
	hqos_free(h);
	free(c);
}

/* Two pipes oversubscribing a 20 Mbit/s access port. */
static void
share_run(uint64_t rate_b, double want_a, double want_b, const char *what)
{
	struct dp_config *c = synth(1000000000, 1, 20000000, 20000000);
	struct hqos_params p = params_timed();
	struct hqos *h = NULL;
	struct offer o[2];
	struct run run;
	uint64_t drops = 0, dummy;
	double a = 0, b = 0, tot = 0;
	int attempt, ok = 0, ok_tot = 0, ok_share = 0;

	for (attempt = 0; attempt < 3 && !ok; attempt++) {
		hqos_free(h);
		h = hqos_create(c, &p, err, sizeof(err));
		if (h == NULL)
			break;
		memset(o, 0, sizeof(o));
		hqos_pipe_alloc(h, 0, 0, 0, &o[0].ref);
		hqos_pipe_alloc(h, 0, 0, rate_b, &o[1].ref);
		o[0].rate_bps = o[1].rate_bps = 20000000;
		offer_run(h, o, 2, 100, 1000, &run);
		a = (double)o[0].bytes * 8.0 * (double)hz / (double)run.window;
		b = (double)o[1].bytes * 8.0 * (double)hz / (double)run.window;
		tot = a + b;
		printf("subport 20 Mbit/s, %s: pipe A %.3f, pipe B %.3f, total %.3f Mbit/s; "
		       "stalls %.1f ms, longest %.2f ms; attempt %d\n",
		       what, a / 1e6, b / 1e6, tot / 1e6, 1e3 * (double)run.stall / (double)hz,
		       1e3 * (double)run.gap / (double)hz, attempt + 1);
		ok_tot = rate_ok(tot, 20e6, &run);
		/* Shares relative to the total, so a stall does not move them... */
		ok_share = a > 0.9 * want_a / 20e6 * tot && a < 1.1 * want_a / 20e6 * tot &&
			   b > 0.9 * want_b / 20e6 * tot && b < 1.1 * want_b / 20e6 * tot;
		/* ... or, with stalls shorter than the buckets, max-min: a pipe
		 * below its fair share keeps its own rate (hsched's buckets fill
		 * during a stall; rte_sched drops the missed periods' class credits)
		 * and the other takes the rest. */
		if (!ok_share && run.gap >= hz / 1000 && want_b < want_a)
			ok_share = b > 0.98 * want_b * (tot / 20e6) && b < 1.02 * want_b &&
				   a > 0.9 * (tot - want_b);
		ok = ok_tot && ok_share;
	}
	check(h != NULL, "share", "created");
	check(ok_tot, "share", "the subport total within 2% of its rate (of the time it ran)");
	check(ok_share, "share", what);
	if (h != NULL) {
		struct hqos_tc_counters st;
		uint64_t sum = 0, pb = 0;
		uint32_t i;

		/* The queue-stats sweep (4 pipes, 64 a harvest) has read every pipe. */
		hqos_worker_apply(h, UINT64_MAX);
		hqos_stats_read(h, HQOS_SCOPE_SUBPORT, 0, &st);
		for (i = 0; i < DP_NUM_TCS; i++)
			sum += st.drop_pkts[i];
		hqos_pipe_drops(h, o[0].ref, &drops, &dummy);
		hqos_pipe_drops(h, o[1].ref, &pb, &dummy);
		check(drops + pb == sum, "share",
		      "per-pipe drops of the sweep add up to the subport's");
	}
	hqos_free(h);
	free(c);
}

static void
test_share(void)
{
	share_run(0, 10e6, 10e6, "equal pipes share it evenly (+-10%)");
	/* Pipe B asked for 5 Mbit/s (rung 4,999,672 bit/s): A gets the rest. */
	share_run(5000000, 15e6, 5e6, "a 5 Mbit/s pipe keeps its rate, the other the rest");
}

/*
 * The port rate: rte_sched's clock advances with every frame it sends, so
 * without the pacer backlogged subports together leave at CPU speed.
 */
static void
port_run(uint64_t port, uint16_t n_ap, uint64_t ap, uint64_t pipe, uint32_t n_pipes,
	 const char *what)
{
	struct dp_config *c = synth(port, n_ap, ap, pipe);
	struct hqos_params p = params_timed();
	struct hqos *h = NULL;
	struct offer o[8];
	struct run run;
	double tot = 0;
	uint32_t i;
	int attempt, ok = 0;

	for (attempt = 0; attempt < 3 && !ok; attempt++) {
		hqos_free(h);
		h = hqos_create(c, &p, err, sizeof(err));
		if (h == NULL)
			break;
		memset(o, 0, sizeof(o));
		for (i = 0; i < n_pipes; i++) {
			hqos_pipe_alloc(h, (uint16_t)(i % n_ap), 0, 0, &o[i].ref);
			o[i].rate_bps = 2 * port / n_pipes;
		}
		offer_run(h, o, n_pipes, 200, 1000, &run);
		for (tot = 0, i = 0; i < n_pipes; i++)
			tot += (double)o[i].bytes * 8.0 * (double)hz / (double)run.window;
		printf("port %.0f Mbit/s, %s: %.3f Mbit/s (%+.2f%%); stalls %.1f ms, longest %.2f "
		       "ms; attempt %d\n",
		       port / 1e6, what, tot / 1e6, 100.0 * (tot / (double)port - 1.0),
		       1e3 * (double)run.stall / (double)hz, 1e3 * (double)run.gap / (double)hz,
		       attempt + 1);
		ok = rate_ok(tot, (double)port, &run);
	}
	check(h != NULL && ok, "port", what);
	hqos_free(h);
	free(c);
}

static void
test_port(void)
{
	port_run(100000000, 2, 100000000, 50000000, 4,
		 "4 pipes on 2 access ports at the port rate, 2x offered: within 2%");
	port_run(50000000, 1, 50000000, 50000000, 2,
		 "2 pipes at the port rate, 2x offered: within 2%");
}

/* --- memory --------------------------------------------------------------- */

static void
test_memory(const char *dir)
{
	struct dp_config *c = calloc(1, sizeof(*c));
	char path[512];
	static const uint32_t caps[3] = {1024, 4096, 65536};
	static const uint16_t qs[2] = {16, 64};
	uint64_t b2, b1;
	struct hqos_params p;
	uint32_t i, j;

	snprintf(path, sizeof(path), "%s/lab_dp4.ini", dir);
	dp_config_load(path, c, err, sizeof(err));
	for (i = 0; i < 3; i++) {
		for (j = 0; j < 2; j++) {
			/* lab_dp4 has 2 access ports: chunk size and spare by default. */
			p = params(caps[i], 0, qs[j]);
			c->n_access_ports = 2;
			b2 = hqos_memory_estimate(c, &p, err, sizeof(err));
			c->n_access_ports = 1;
			b1 = hqos_memory_estimate(c, &p, err, sizeof(err));
			printf("memory: %5u pipes, qsize %2u: 1 access port %6.1f MiB (%5.0f "
			       "bytes/pipe), 2 access ports %6.1f MiB\n",
			       caps[i], qs[j], b1 / 1048576.0, (double)b1 / caps[i],
			       b2 / 1048576.0);
			/* The spares: <= 25% more pipes, and one more ~350 KB profile
			 * table per subport (chunks are smaller with 2 access ports). */
			check(b1 > (uint64_t)caps[i] * (sched_kind == HQOS_SCHED_HSCHED
								? 128u * qs[j]
								: 2200 + 128u * qs[j]) &&
				      b2 > b1 && b2 < b1 * 16 / 10,
			      "memory", "estimate above the queue arrays, 2 access ports < 1.6x");
		}
	}
	free(c);
}

int
main(int argc, char **argv)
{
	if (argc < 2 || argc > 3 || (argc == 3 && hqos_sched_parse(argv[2]) == 0)) {
		fprintf(stderr, "usage: %s FIXTURES_DIR [hsched|rte_sched]\n", argv[0]);
		return 2;
	}
	if (argc == 3)
		sched_kind = hqos_sched_parse(argv[2]);
	printf("scheduler: %s\n", hqos_sched_name(sched_kind));
	if (harness_eal_init(argv[0]) != 0)
		return 1;
	hz = rte_get_tsc_hz();
	pool = rte_pktmbuf_pool_create("hqos_test", 8191, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (pool == NULL) {
		printf("FAIL mbuf pool\n0 passed, 1 failed\n");
		return 1;
	}
	test_fixtures(argv[1]);
	test_params();
	test_ladder();
	test_mark();
	test_alloc();
	test_guaranteed_and_pacer();
	test_split();
	test_owner();
	test_order();
	test_concurrent();
	test_priority();
	test_wrr();
	test_shaping();
	test_share();
	test_port();
	test_memory(argv[1]);
	check(rte_mempool_in_use_count(pool) == 0, "main", "every mbuf back in the pool");
	return harness_report();
}

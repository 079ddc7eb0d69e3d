/*
 * Tests of the upstream policer (police.h).
 *
 * rte_meter takes the time as an argument, so the rate tests are exact: they
 * offer frames at twice PIR with synthetic TSC timestamps (spaced by the wire
 * time of each frame at the offered rate) over several seconds of "time" and
 * count the bytes of each colour, FCS included. Then: id bounds, the "no
 * policing" cases, CIR defaults and capping, the FCS, the accuracy of the
 * token-bucket periods, generations (same rates keep the buckets, new rates
 * refill them, a write in progress is not adopted) and a reader thread
 * metering while the control thread changes the rates, which must only ever
 * see one of the two published profiles. EAL --no-huge, in memory.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_memory.h>

#define HARNESS_EAL
#include "harness.h"
#include "police.h"

#define T0 1000000000000ULL /* synthetic TSC start, far from 0 */

static uint64_t hz;

struct tally {
	uint64_t bytes[3]; /* by rte_color, FCS included */
	uint64_t pkts[3];
};

/*
 * Offer frames of the lengths in lens (without FCS, in turn) to session id at
 * offered bit/s (counting FCS) for secs seconds from *now; *now ends at the end.
 */
static void
offer(struct police *p, uint32_t id, uint64_t *now, double secs, double offered_bps,
      const uint32_t *lens, unsigned int n_lens, struct tally *t)
{
	double tcur = (double)*now, end = (double)*now + secs * (double)hz;
	unsigned int i = 0;

	while (tcur < end) {
		uint32_t len = lens[i++ % n_lens];
		enum rte_color c = police_color(p, id, (uint64_t)tcur, len);

		t->bytes[c] += len + POLICE_FCS_LEN;
		t->pkts[c]++;
		tcur += (double)(len + POLICE_FCS_LEN) * 8.0 * (double)hz / offered_bps;
	}
	*now = (uint64_t)end;
}

static bool
within(double got, double want, double rel)
{
	double d = got - want;

	return (d < 0 ? -d : d) <= rel * want;
}

static const uint32_t mix[] = {60, 124, 508, 1000, 1514, 60, 60, 1514};

static void
test_rates(struct police *p)
{
	static const struct {
		uint64_t cir, pir;
		double secs;
		const uint32_t *lens;
		unsigned int n_lens;
	} cases[] = {
		/* Long enough that the bucket at start is below 1 % of rate x time. */
		{20000000, 50000000, 10.0, mix, 8}, /* the lab's gold profile */
		{10000000, 10000000, 10.0, mix, 8},
		{1000000, 2000000, 60.0, mix, 8},
		{1000000000, 10000000000ULL, 5.0, &mix[4], 1},
		{64000, 128000, 1000.0, mix, 2},
	};
	char name[128];
	unsigned int i;

	for (i = 0; i < RTE_DIM(cases); i++) {
		struct tally t = {0};
		uint64_t now = T0;
		double pir_bytes, cir_bytes, gy, pbs, cbs;

		snprintf(name, sizeof(name),
			 "rates: cir %" PRIu64 " pir %" PRIu64 " offered 2x pir", cases[i].cir,
			 cases[i].pir);
		check(police_set(p, i, cases[i].cir, cases[i].pir) == 0, name, "police_set");
		offer(p, i, &now, cases[i].secs, 2.0 * (double)cases[i].pir, cases[i].lens,
		      cases[i].n_lens, &t);
		pir_bytes = (double)cases[i].pir / 8 * cases[i].secs;
		cir_bytes = (double)cases[i].cir / 8 * cases[i].secs;
		pbs = (double)police_burst(cases[i].pir / 8);
		cbs = (double)police_burst(cases[i].cir / 8);
		gy = (double)(t.bytes[RTE_COLOR_GREEN] + t.bytes[RTE_COLOR_YELLOW]);
		/* The brief's 1 %, then the exact model: rate x time + the bucket at start. */
		check(within(gy, pir_bytes, 0.01), name, "green + yellow within 1 % of PIR x time");
		check(within((double)t.bytes[RTE_COLOR_GREEN], cir_bytes, 0.01), name,
		      "green within 1 % of CIR x time");
		check(within(gy, pir_bytes + pbs, 0.001), name,
		      "green + yellow within 0.1 % of PIR x time + PBS");
		check(within((double)t.bytes[RTE_COLOR_GREEN], cir_bytes + cbs, 0.002), name,
		      "green within 0.2 % of CIR x time + CBS");
		check(t.bytes[RTE_COLOR_RED] > 0, name, "excess is red");
		if (cases[i].cir == cases[i].pir)
			check(t.pkts[RTE_COLOR_YELLOW] == 0, name, "CIR = PIR: nothing yellow");
		printf("     %s: green %.4f yellow %.4f of PIR x time\n", name,
		       (double)t.bytes[RTE_COLOR_GREEN] / pir_bytes,
		       (double)t.bytes[RTE_COLOR_YELLOW] / pir_bytes);
	}
}

/* Rate change of a live session in the middle of a stream. */
static void
test_live_change(struct police *p)
{
	static const char name[] = "live change: 50M/20M for 5 s, then 10M/5M for 5 s";
	struct tally a = {0}, b = {0};
	uint64_t now = T0;
	double gy;

	police_set(p, 7, 20000000, 50000000);
	offer(p, 7, &now, 5.0, 100000000.0, mix, 8, &a);
	check(police_set(p, 7, 5000000, 10000000) == 0, name, "police_set while live");
	offer(p, 7, &now, 5.0, 100000000.0, mix, 8, &b);
	gy = (double)(a.bytes[RTE_COLOR_GREEN] + a.bytes[RTE_COLOR_YELLOW]);
	check(within(gy, 50e6 / 8 * 5, 0.01), name, "first half at 50M");
	gy = (double)(b.bytes[RTE_COLOR_GREEN] + b.bytes[RTE_COLOR_YELLOW]);
	check(within(gy, 10e6 / 8 * 5 + (double)police_burst(10000000 / 8), 0.002), name,
	      "second half at 10M (+ the refilled PBS)");
	check(within((double)b.bytes[RTE_COLOR_GREEN],
		     5e6 / 8 * 5 + (double)police_burst(5000000 / 8), 0.002),
	      name, "second half green at 5M (+ the refilled CBS)");
}

static void
test_bounds_and_off(void)
{
	static const char name[] = "bounds";
	struct police *p = police_create(16, SOCKET_ID_ANY);
	struct tally t = {0};
	uint64_t now = T0;

	check(police_create(0, SOCKET_ID_ANY) == NULL && rte_errno == EINVAL, name,
	      "capacity 0 refused");
	check(p != NULL, name, "create 16");
	if (p == NULL)
		return;
	check(police_set(p, 16, 1000, 1000) == -EINVAL, name, "police_set id == capacity");
	check(police_set(p, UINT32_MAX, 1000, 1000) == -EINVAL, name, "police_set id UINT32_MAX");
	check(police_set(p, 15, 1000, 1000) == 0, name, "police_set last id");
	check(police_color(p, 16, now, 100) == RTE_COLOR_RED, name, "color id == capacity: RED");
	check(police_color(p, UINT32_MAX, now, 100) == RTE_COLOR_RED, name,
	      "color id UINT32_MAX: RED");
	check(police_set(p, 1, 0, POLICE_MAX_RATE + 1) == -EINVAL, name, "PIR above 1 Tbit/s");
	check(police_set(p, 1, 0, POLICE_MAX_RATE) == 0, name, "PIR of 1 Tbit/s");

	/* Never set, and PIR 0: every frame GREEN, however much is offered. */
	offer(p, 2, &now, 1.0, 1e10, &mix[4], 1, &t);
	check(t.pkts[RTE_COLOR_YELLOW] + t.pkts[RTE_COLOR_RED] == 0 && t.pkts[0] > 0, "no policing",
	      "slot never set: all green");
	police_set(p, 3, 1000000, 2000000);
	check(police_set(p, 3, 5, 0) == 0, "no policing", "PIR 0 accepted");
	memset(&t, 0, sizeof(t));
	offer(p, 3, &now, 1.0, 1e10, &mix[4], 1, &t);
	check(t.pkts[RTE_COLOR_YELLOW] + t.pkts[RTE_COLOR_RED] == 0, "no policing",
	      "PIR 0: all green");

	/* CIR 0 is PIR; CIR above PIR is PIR. */
	police_set(p, 4, 0, 8000000);
	check(p->slots[4].cir == 1000000 && p->slots[4].pir == 1000000, "cir", "CIR 0 = PIR");
	police_set(p, 5, 9000000, 8000000);
	check(p->slots[5].cir == 1000000, "cir", "CIR above PIR capped");
	police_set(p, 6, 1, 9);
	check(p->slots[6].cir == 1 && p->slots[6].pir == 2, "cir", "bit/s round up to bytes/s");
	police_free(p);
	police_free(NULL);
}

/* The FCS is counted: a fresh PBS of 32768 bytes holds 256 frames of 124 + 4 bytes. */
static void
test_fcs(struct police *p)
{
	static const char name[] = "fcs";
	unsigned int passed = 0, i;

	police_set(p, 8, 1000000, 1000000); /* both buckets at the 32 KiB floor */
	check(police_burst(1000000 / 8) == 32768, name, "burst floor 32 KiB");
	for (i = 0; i < 300; i++)
		passed += police_color(p, 8, T0, 124) != RTE_COLOR_RED;
	check(passed == 32768 / 128, name, "256 frames of 128 bytes on the wire");
}

/* Token-bucket periods: the effective rate is within 0.01 % of every rate. */
static void
test_accuracy(void)
{
	static const char name[] = "accuracy";
	struct rte_meter_trtcm_profile prof;
	struct rte_meter_trtcm_params prm;
	double worst = 0, worst_rte = 0;
	uint64_t rate;

	for (rate = 1; rate <= POLICE_MAX_RATE / 8; rate = rate * 3 + 1) {
		double eff, err;

		if (police_profile(hz, rate, rate, &prof) != 0) {
			check(false, name, "police_profile failed");
			return;
		}
		eff = (double)prof.pir_bytes_per_period * (double)hz / (double)prof.pir_period;
		err = eff / (double)rate - 1;
		worst = RTE_MAX(worst, err < 0 ? -err : err);
		check(prof.pir_period >= POLICE_TB_PERIOD_MIN, name, "period >= 10000 cycles");

		prm = (struct rte_meter_trtcm_params){rate, rate, 1, 1};
		rte_meter_trtcm_profile_config(&prof, &prm);
		eff = (double)prof.pir_bytes_per_period * (double)hz / (double)prof.pir_period;
		err = eff / (double)rate - 1;
		worst_rte = RTE_MAX(worst_rte, err < 0 ? -err : err);
	}
	check(worst < 1e-4, name, "effective rate within 0.01 %");
	printf("     accuracy: worst rate error %.6f %% (rte_meter's own periods: %.4f %%)\n",
	       worst * 100, worst_rte * 100);
}

static void
test_generations(struct police *p)
{
	static const char name[] = "generations";
	struct police_slot *s = &p->slots[9];
	uint64_t now = T0;
	uint32_t gen, i;

	police_set(p, 9, 1000000, 1000000);
	gen = s->gen.sn;
	check(gen % 2 == 0 && gen != 0, name, "set: even generation");
	check(police_color(p, 9, now, 1000) == RTE_COLOR_GREEN && s->seen == gen, name,
	      "adopted on the next frame");
	for (i = 0; i < 100; i++)
		police_color(p, 9, now, 1000);
	check(police_color(p, 9, now, 1000) == RTE_COLOR_RED, name, "bucket drained");

	/* The same rates again: no new generation, the bucket stays empty. */
	police_set(p, 9, 1000000, 1000000);
	check(s->gen.sn == gen, name, "same rates: same generation");
	check(police_color(p, 9, now, 1000) == RTE_COLOR_RED, name, "same rates: still empty");

	/* New rates: a new generation, full buckets at the frame's time. */
	police_set(p, 9, 2000000, 2000000);
	check(s->gen.sn == gen + 2, name, "new rates: generation + 2");
	check(police_color(p, 9, now, 1000) == RTE_COLOR_GREEN, name, "new rates: buckets full");
	check(s->seen == gen + 2 && s->time_tp == now, name, "buckets timed from the frame");

	/* A write in progress (odd generation) is not adopted; its end is. */
	rte_seqcount_write_begin(&s->gen);
	__atomic_store_n(&s->pir, 0, __ATOMIC_RELAXED);
	for (i = 0; i < 100; i++)
		police_color(p, 9, now, 1000);
	check(s->seen == gen + 2 && police_slot_on(s), name, "odd generation: old rates kept");
	check(police_color(p, 9, now, 1000) == RTE_COLOR_RED, name,
	      "odd generation: still metered");
	rte_seqcount_write_end(&s->gen);
	check(police_color(p, 9, now, 1000) == RTE_COLOR_GREEN && s->seen == gen + 4 &&
		      !police_slot_on(s),
	      name, "write finished: PIR 0 adopted");
}

/* --- a worker metering while the control thread changes the rates --------- */

struct reader {
	struct police *p;
	struct rte_meter_trtcm_profile a, b;
	bool stop; /* atomic accesses */
	uint64_t frames, adoptions, torn;
};

/* Whether the slot's meter was built from profile q (every field of it). */
static bool
meter_is(const struct police_slot *s, const struct rte_meter_trtcm_profile *q)
{
	return s->cbs == q->cbs && s->pbs == q->pbs && s->cir_period == q->cir_period &&
	       s->pir_period == q->pir_period &&
	       s->cir_bytes_per_period == q->cir_bytes_per_period &&
	       s->pir_bytes_per_period == q->pir_bytes_per_period;
}

static void *
reader_main(void *arg)
{
	struct reader *r = arg;
	struct police_slot *s = &r->p->slots[0];
	uint32_t seen = s->seen;

	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		police_color(r->p, 0, rte_rdtsc(), 200);
		r->frames++;
		if (s->seen != seen) {
			seen = s->seen;
			__atomic_store_n(&r->adoptions, r->adoptions + 1, __ATOMIC_RELAXED);
			if (police_slot_on(s) && !meter_is(s, &r->a) && !meter_is(s, &r->b))
				r->torn++;
		}
	}
	return NULL;
}

static void
test_concurrent(struct police *p)
{
	static const char name[] = "concurrent";
	struct reader r = {.p = p};
	uint64_t start, end, now, sets = 0;
	pthread_t th;

	police_profile(hz, 20000000 / 8, 50000000 / 8, &r.a);
	police_profile(hz, 1000000 / 8, 2000000 / 8, &r.b);
	police_set(p, 0, 20000000, 50000000);
	if (pthread_create(&th, NULL, reader_main, &r) != 0) {
		check(false, name, "pthread_create");
		return;
	}
	/* 1 s, longer (up to 20 s) on a loaded machine until the reader has adopted
	 * new rates 100 times. */
	start = rte_rdtsc();
	end = start + hz;
	while ((now = rte_rdtsc()) < end ||
	       (__atomic_load_n(&r.adoptions, __ATOMIC_RELAXED) < 100 && now < start + 20 * hz)) {
		police_set(p, 0, 1000000, 2000000);
		police_set(p, 0, 20000000, 50000000);
		sets += 2;
	}
	__atomic_store_n(&r.stop, true, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	printf("     concurrent: %" PRIu64 " rate changes, %" PRIu64 " frames, %" PRIu64
	       " adoptions, %" PRIu64 " torn\n",
	       sets, r.frames, r.adoptions, r.torn);
	check(r.frames > 0 && r.adoptions > 0, name, "the reader adopted new rates");
	check(r.torn == 0, name, "never a profile that was not published");
}

int
main(int argc, char **argv)
{
	struct police *p;

	(void)argc;
	if (harness_eal_init(argv[0]) != 0)
		return 1;
	hz = rte_get_tsc_hz();
	p = police_create(64, SOCKET_ID_ANY);
	check(p != NULL, "create", "police_create(64)");
	if (p != NULL) {
		test_rates(p);
		test_live_change(p);
		test_fcs(p);
		test_generations(p);
		test_concurrent(p);
		police_free(p);
	}
	test_bounds_and_off();
	test_accuracy();
	rte_eal_cleanup();
	return harness_report();
}

/*
 * bng-dp upstream policer: slot allocation and rate changes (control thread),
 * profile construction and rate adoption (worker, rarely). See police.h.
 */

#include <assert.h>
#include <errno.h>
#include <stddef.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "police.h"

static_assert(sizeof(struct police_slot) == 2 * RTE_CACHE_LINE_SIZE, "two lines per session");
static_assert(offsetof(struct police_slot, gen) + sizeof(rte_seqcount_t) <= RTE_CACHE_LINE_SIZE &&
		      offsetof(struct police_slot, cir) == RTE_CACHE_LINE_SIZE,
	      "the worker's meter on line 0");

struct police *
police_create(uint32_t capacity, int socket)
{
	struct police *p;

	if (capacity == 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	p = rte_zmalloc_socket("police", sizeof(*p), RTE_CACHE_LINE_SIZE, socket);
	if (p == NULL)
		goto nomem;
	p->slots = rte_zmalloc_socket("police_slots", (size_t)capacity * sizeof(p->slots[0]),
				      RTE_CACHE_LINE_SIZE, socket);
	if (p->slots == NULL)
		goto nomem;
	p->capacity = capacity;
	p->hz = rte_get_tsc_hz();
	return p;
nomem:
	police_free(p);
	rte_errno = ENOMEM;
	return NULL;
}

void
police_free(struct police *p)
{
	if (p == NULL)
		return;
	rte_free(p->slots);
	rte_free(p);
}

uint64_t
police_burst(uint64_t rate)
{
	uint64_t b = rate / (1000000 / POLICE_BURST_US);

	static_assert(1000000 % POLICE_BURST_US == 0, "burst time divides a second");
	return RTE_MAX(b, (uint64_t)POLICE_BURST_MIN);
}

/*
 * One bucket: bytes per period rounded up so that a period is at least
 * POLICE_TB_PERIOD_MIN cycles, period rounded to nearest. rate <= 1.25e11 and
 * hz < 2^40 keep every product below 2^64.
 */
static void
tb_refine(uint64_t hz, uint64_t rate, uint64_t *period, uint64_t *bytes_per_period)
{
	uint64_t bpp = (POLICE_TB_PERIOD_MIN * rate + hz - 1) / hz;

	if (bpp == 0)
		bpp = 1;
	*bytes_per_period = bpp;
	*period = (hz * bpp + rate / 2) / rate;
}

int
police_profile(uint64_t hz, uint64_t cir, uint64_t pir, struct rte_meter_trtcm_profile *prof)
{
	struct rte_meter_trtcm_params prm = {
		.cir = cir,
		.pir = pir,
		.cbs = police_burst(cir),
		.pbs = police_burst(pir),
	};
	int rc;

	rc = rte_meter_trtcm_profile_config(prof, &prm);
	if (rc != 0)
		return rc;
	tb_refine(hz, cir, &prof->cir_period, &prof->cir_bytes_per_period);
	tb_refine(hz, pir, &prof->pir_period, &prof->pir_bytes_per_period);
	return 0;
}

/* bit/s of frames to bytes/s, rounded up so that 1..7 bit/s is still a rate. */
static uint64_t
bytes_per_s(uint64_t bps)
{
	return (bps + 7) / 8;
}

int
police_set(struct police *p, uint32_t id, uint64_t cir_bps, uint64_t pir_bps)
{
	struct rte_meter_trtcm_profile check;
	struct police_slot *s;
	uint64_t cir, pir;

	if (id >= p->capacity || pir_bps > POLICE_MAX_RATE)
		return -EINVAL;
	s = &p->slots[id];
	pir = bytes_per_s(pir_bps);
	cir = cir_bps == 0 ? pir : RTE_MIN(bytes_per_s(cir_bps), pir);
	if (pir == 0)
		cir = 0;
	/* Only this thread writes cir and pir: plain reads of its own stores. */
	if (s->pir == pir && s->cir == cir)
		return 0;
	/* The worker will build the same profile: make sure it can. */
	/* The worker keeps sizes and bytes per period in 32 bits: with rates up to
	 * POLICE_MAX_RATE they fit unless the TSC ran below 300 kHz. */
	if (pir != 0 && (police_profile(p->hz, cir, pir, &check) != 0 || check.cbs > UINT32_MAX ||
			 check.pbs > UINT32_MAX || check.cir_bytes_per_period > UINT32_MAX ||
			 check.pir_bytes_per_period > UINT32_MAX))
		return -EINVAL;

	rte_seqcount_write_begin(&s->gen);
	__atomic_store_n(&s->cir, cir, __ATOMIC_RELAXED);
	__atomic_store_n(&s->pir, pir, __ATOMIC_RELAXED);
	rte_seqcount_write_end(&s->gen);
	return 0;
}

void
police_adopt(const struct police *p, struct police_slot *s, uint32_t gen, uint64_t now)
{
	struct rte_meter_trtcm_profile prof;
	uint64_t cir, pir;

	/* An odd gen is a write in progress: keep the old rates for this frame. */
	if (gen & 1)
		return;
	cir = __atomic_load_n(&s->cir, __ATOMIC_RELAXED);
	pir = __atomic_load_n(&s->pir, __ATOMIC_RELAXED);
	if (rte_seqcount_read_retry(&s->gen, gen))
		return;
	if (pir == 0 || police_profile(p->hz, cir, pir, &prof) != 0 || prof.cbs > UINT32_MAX ||
	    prof.pbs > UINT32_MAX || prof.cir_bytes_per_period > UINT32_MAX ||
	    prof.pir_bytes_per_period > UINT32_MAX) {
		s->pbs = 0;
	} else {
		/* Full buckets, timed from this frame (not rte_meter's own TSC read). */
		s->cir_period = prof.cir_period;
		s->pir_period = prof.pir_period;
		s->cir_bytes_per_period = (uint32_t)prof.cir_bytes_per_period;
		s->pir_bytes_per_period = (uint32_t)prof.pir_bytes_per_period;
		s->cbs = (uint32_t)prof.cbs;
		s->pbs = (uint32_t)prof.pbs;
		s->tc = s->cbs;
		s->tp = s->pbs;
		s->time_tc = now;
		s->time_tp = now;
	}
	s->seen = gen;
}

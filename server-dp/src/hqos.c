/*
 * bng-dp HQoS: the plan (profile ladder, subports), creation, the control
 * thread's pipe API and the worker's burst calls (hqos.h).
 *
 * rte_sched 22.11 frees the whole port when rte_sched_subport_config() or
 * rte_sched_pipe_config() fails, so every argument is checked here first and
 * a failure of either is treated as fatal for the instance.
 */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>
#include <rte_sched.h>

#include "hqos.h"
#include "hsched.h"

static_assert(DP_NUM_TCS == RTE_SCHED_TRAFFIC_CLASSES_PER_PIPE, "rte_sched class count");
static_assert(DP_TC_BEST_EFFORT == RTE_SCHED_TRAFFIC_CLASS_BE, "rte_sched best-effort class");
static_assert(HQOS_QUEUES_PER_PIPE == RTE_SCHED_QUEUES_PER_PIPE, "rte_sched queues per pipe");
static_assert(sizeof(struct hqos_cmd) == 16, "ring element size");
static_assert((HQOS_MAX_PIPES << 4) - 1 == (HQOS_REF_QID_MASK | 0xfu), "reference layout");
static_assert(sizeof(struct hqos_tc_counters) % sizeof(uint64_t) == 0, "counters are u64");

#define BPS_PER_BYTE 8u

/* Everything hqos_create() derives from the configuration before allocating. */
struct hqos_plan {
	struct hqos_params p; /* defaults resolved */
	uint32_t frame_bytes; /* max_frame + FCS */
	uint64_t min_bps;     /* lowest rate a class may have (one frame per longest period) */
	uint64_t port_bps;
	uint32_t n_chunks;
	uint32_t n_subports;
	uint32_t n_shapes;
	uint32_t n_rungs;
	uint32_t step_bp;
	uint32_t n_profiles;
	uint16_t n_access_ports;
	uint16_t n_qos;
	uint16_t shape_of[DP_MAX_QOS_PROFILES];
	uint16_t shape_rep[DP_MAX_QOS_PROFILES]; /* first QoS profile of each shape */
	uint64_t *rungs;
	struct rte_sched_pipe_params *profiles;
	struct rte_sched_subport_profile_params sub_profiles[DP_MAX_ACCESS_PORTS + 1];
	struct rte_sched_subport_params sp_chunk;
	struct rte_sched_subport_params sp_pad;
	struct rte_sched_port_params pp;
};

static void
errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static int
is_pow2(uint64_t v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

static uint32_t
pow2_ceil(uint32_t v)
{
	uint32_t r = 1;

	while (r < v)
		r <<= 1;
	return r;
}

static uint32_t
gcd_u32(uint32_t a, uint32_t b)
{
	while (b != 0) {
		uint32_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* Single writer: a relaxed store of the new value, never a locked add. */
static inline void
ctr_add(uint64_t *c, uint64_t v)
{
	__atomic_store_n(c, *c + v, __ATOMIC_RELAXED);
}

static inline void
ctr_set(uint64_t *c, uint64_t v)
{
	__atomic_store_n(c, v, __ATOMIC_RELAXED);
}

/* --- profiles --------------------------------------------------------------- */

/*
 * Credit period (ms) of a pipe or subport whose slowest class has min_Bps.
 * rte_sched refills class credits every period and drops what is left, so a
 * period must hold at least one largest frame (else that class never sends)
 * and, for accuracy, HQOS_TC_PERIOD_FRAMES of them: the leftover (< 1 frame)
 * is then < 1% of the period's credit.
 */
static uint64_t
tc_period_ms(uint32_t frame_bytes, uint64_t min_Bps)
{
	uint64_t ms =
		((uint64_t)HQOS_TC_PERIOD_FRAMES * frame_bytes * 1000 + min_Bps - 1) / min_Bps;

	return RTE_MIN(RTE_MAX(ms, (uint64_t)HQOS_TC_PERIOD_MIN_MS),
		       (uint64_t)HQOS_TC_PERIOD_MAX_MS);
}

/*
 * Token bucket depth: tb_ms of the rate, at least two largest frames.
 * Credits beyond it are lost while the grinder is away from the pipe, so it
 * bounds how late a revisit may come without costing rate; it is also the
 * burst a pipe may send after being idle (half of it right after config).
 */
static uint64_t
tb_size(const struct hqos_plan *pl, uint64_t Bps)
{
	return RTE_MAX(Bps * pl->p.tb_ms / 1000, 2 * (uint64_t)pl->frame_bytes);
}

/*
 * rte_sched WRR: cost_i = lcm(w) / w_i, and a queue's tokens grow by
 * frame length * cost in a uint16_t. Pick weights as close as possible (worst
 * relative error of the ratios to the largest) to the configured ones whose
 * lcm keeps frame_bytes * lcm within 16 bits: 4:2:1:1 and 3:2:1:1 stay exact,
 * 255:1:1:1 becomes 42:1:1:1 for 1534-byte frames.
 */
static void
wrr_convert(const uint8_t w[DP_NUM_BE_QUEUES], uint32_t frame_bytes,
	    uint8_t out[RTE_SCHED_BE_QUEUES_PER_PIPE])
{
	uint32_t lcm_max = RTE_MAX(65535u / frame_bytes, 1u), maxw = 1, s, i, l, cmax;
	double best = -1.0, e, want, got;
	uint8_t c[DP_NUM_BE_QUEUES];

	for (i = 0; i < DP_NUM_BE_QUEUES; i++)
		maxw = RTE_MAX(maxw, (uint32_t)RTE_MAX(w[i], 1));
	for (s = 1; s <= RTE_MIN(lcm_max, 255u); s++) {
		l = 1;
		cmax = 1;
		for (i = 0; i < DP_NUM_BE_QUEUES; i++) {
			uint32_t v = (s * RTE_MAX(w[i], 1) + maxw / 2) / maxw;

			c[i] = (uint8_t)RTE_MAX(v, 1u);
			l = l / gcd_u32(l, c[i]) * c[i];
			cmax = RTE_MAX(cmax, (uint32_t)c[i]);
		}
		if (l > lcm_max)
			continue;
		e = 0.0;
		for (i = 0; i < DP_NUM_BE_QUEUES; i++) {
			want = (double)RTE_MAX(w[i], 1) / maxw;
			got = (double)c[i] / cmax;
			e = RTE_MAX(e, (got > want ? got - want : want - got) / want);
		}
		if (best < 0.0 || e < best - 1e-12) {
			best = e;
			memcpy(out, c, DP_NUM_BE_QUEUES);
		}
	}
}

static void
pipe_params_fill(const struct hqos_plan *pl, struct rte_sched_pipe_params *out, uint64_t tb_bps,
		 const uint64_t tc_bps[DP_NUM_TCS], const uint8_t weights[DP_NUM_BE_QUEUES])
{
	uint64_t min_Bps;
	uint32_t i;

	memset(out, 0, sizeof(*out));
	out->tb_rate = tb_bps / BPS_PER_BYTE;
	min_Bps = out->tb_rate;
	for (i = 0; i < DP_NUM_TCS; i++) {
		out->tc_rate[i] = RTE_MIN(tc_bps[i], tb_bps) / BPS_PER_BYTE;
		min_Bps = RTE_MIN(min_Bps, out->tc_rate[i]);
	}
	out->tc_period = tc_period_ms(pl->frame_bytes, min_Bps);
	out->tb_size = tb_size(pl, out->tb_rate);
	out->tc_ov_weight = 1;
	wrr_convert(weights, pl->frame_bytes, out->wrr_weights);
}

static void
subport_profile_fill(const struct hqos_plan *pl, struct rte_sched_subport_profile_params *out,
		     uint64_t bps)
{
	uint32_t i;

	memset(out, 0, sizeof(*out));
	out->tb_rate = bps / BPS_PER_BYTE;
	out->tc_period = tc_period_ms(pl->frame_bytes, out->tb_rate);
	out->tb_size = tb_size(pl, out->tb_rate);
	for (i = 0; i < DP_NUM_TCS; i++)
		out->tc_rate[i] = out->tb_rate;
}

/* Rungs from min to max (multiples of 8 bit/s, max rounded down to one,
 * ascending, distinct); out == NULL counts them. */
static uint32_t
ladder_fill(uint64_t min, uint64_t max, uint32_t step_bp, uint64_t *out)
{
	double g = 1.0 + step_bp / 10000.0, x = (double)min;
	uint64_t top = max / BPS_PER_BYTE * BPS_PER_BYTE, last = min / BPS_PER_BYTE * BPS_PER_BYTE;
	uint64_t r;
	uint32_t n = 0;

	if (out != NULL)
		out[n] = last;
	n++;
	if (last >= top)
		return n;
	for (;;) {
		x *= g;
		r = (uint64_t)x / BPS_PER_BYTE * BPS_PER_BYTE;
		if (r >= top)
			break;
		if (r > last) {
			if (out != NULL)
				out[n] = r;
			n++;
			last = r;
		}
	}
	if (out != NULL)
		out[n] = top;
	return n + 1;
}

/* Same class caps (classes listed in tc_rates) and WRR weights. */
static int
same_shape(const struct dp_qos_profile *a, const struct dp_qos_profile *b)
{
	uint32_t i;

	if (a->tc_rate_listed != b->tc_rate_listed ||
	    memcmp(a->be_weights, b->be_weights, sizeof(a->be_weights)) != 0)
		return 0;
	for (i = 0; i < DP_NUM_TCS; i++)
		if ((a->tc_rate_listed >> i & 1) && a->tc_rate[i] != b->tc_rate[i])
			return 0;
	return 1;
}

/*
 * The rate rte_sched is told for the port. Its clock turns TSC cycles into
 * bytes with cycles_per_byte = (hz << 8) / rate in integers, so it runs fast
 * by the truncated fraction (with a 2.6 GHz TSC: 0.23% at 12.5 Gbit/s, 0.47%
 * at 100 Gbit/s, 6.5% at 1 Tbit/s), and every pipe and subport with it. Declaring the rate for
 * which that division is exact keeps the clock right; the port itself is
 * held to its configured rate by the pacer in hqos_dequeue(), not by this.
 */
static uint64_t
sched_port_rate(uint64_t Bps)
{
	uint64_t hz = rte_get_tsc_hz(), cpb;

	if (hz == 0 || hz > (UINT64_MAX >> 8))
		return Bps;
	cpb = (hz << 8) / Bps;
	if (cpb == 0 || cpb > UINT32_MAX)
		return Bps;
	return (hz << 8) / cpb;
}

/* The pacer's fixed-point rate and depth for Bps (hqos_create() and
 * hqos_port_rate_set() alike). */
static void
pace_of(uint64_t Bps, uint32_t burst_us, uint32_t frame_bytes, uint64_t *per_cycle, int64_t *depth)
{
	uint64_t hz = rte_get_tsc_hz(),
		 d = RTE_MAX(Bps * burst_us / 1000000, 4 * (uint64_t)frame_bytes);

	*per_cycle = (Bps << HQOS_PACE_SHIFT) / hz;
	if (*per_cycle == 0)
		*per_cycle = 1;
	*depth = (int64_t)(d << HQOS_PACE_SHIFT);
}

/* --- plan --------------------------------------------------------------- */

static int
plan_params(const struct dp_config *cfg, const struct hqos_params *in, struct hqos_plan *pl,
	    char *err, size_t errlen)
{
	struct hqos_params *p = &pl->p;
	uint32_t base;

	if (in != NULL)
		*p = *in;
	else
		hqos_params_default(p);
	if (p->capacity == 0)
		p->capacity = HQOS_DEFAULT_CAPACITY;
	if (p->capacity > HQOS_MAX_PIPES) {
		errf(err, errlen, "hqos: capacity %u is above %u pipes", p->capacity,
		     HQOS_MAX_PIPES);
		return -EINVAL;
	}
	if (p->subport_pipes != 0 &&
	    (!is_pow2(p->subport_pipes) || p->subport_pipes > HQOS_MAX_SUBPORT_PIPES)) {
		errf(err, errlen, "hqos: subport_pipes %u is not a power of two <= %u",
		     p->subport_pipes, HQOS_MAX_SUBPORT_PIPES);
		return -EINVAL;
	}
	if (p->qsize == 0)
		p->qsize = HQOS_DEFAULT_QSIZE;
	if (!is_pow2(p->qsize) || p->qsize < 2 || p->qsize > 4096) {
		errf(err, errlen, "hqos: qsize %u is not a power of two in 2..4096", p->qsize);
		return -EINVAL;
	}
	if (p->scheduler == HQOS_SCHED_DEFAULT)
		p->scheduler = HQOS_SCHED_DEFAULT_KIND;
	if (p->scheduler != HQOS_SCHED_HSCHED && p->scheduler != HQOS_SCHED_RTE_SCHED) {
		errf(err, errlen, "hqos: unknown scheduler %u", p->scheduler);
		return -EINVAL;
	}
	if (p->scheduler == HQOS_SCHED_HSCHED && p->qsize > HSCHED_MAX_QSIZE) {
		errf(err, errlen, "hqos: qsize %u is above hsched's %u (hqos = rte_sched takes it)",
		     p->qsize, HSCHED_MAX_QSIZE);
		return -EINVAL;
	}
	if (p->scheduler == HQOS_SCHED_HSCHED && p->be_oversubscription) {
		errf(err, errlen, "hqos: be_oversubscription is rte_sched's (hqos = rte_sched)");
		return -EINVAL;
	}
	if (p->max_frame == 0)
		p->max_frame = HQOS_DEFAULT_MAX_FRAME;
	if (p->max_frame < 64 || p->max_frame > 9216) {
		errf(err, errlen, "hqos: max_frame %u is not in 64..9216", p->max_frame);
		return -EINVAL;
	}
	pl->frame_bytes = p->max_frame + HQOS_FRAME_OVERHEAD;
	/* One largest frame per longest credit period. */
	pl->min_bps = (uint64_t)pl->frame_bytes * BPS_PER_BYTE * 1000 / HQOS_TC_PERIOD_MAX_MS;
	pl->port_bps = cfg->instance.port_rate;
	if (pl->port_bps < pl->min_bps || pl->port_bps > DP_MAX_RATE) {
		errf(err, errlen,
		     "instance: port_rate %" PRIu64 " bit/s is not in %" PRIu64 "..%llu",
		     pl->port_bps, pl->min_bps, DP_MAX_RATE);
		return -EINVAL;
	}
	if (p->ladder_min_rate == 0)
		p->ladder_min_rate = HQOS_DEFAULT_LADDER_MIN;
	p->ladder_min_rate = RTE_MIN(p->ladder_min_rate, pl->port_bps);
	p->ladder_min_rate = p->ladder_min_rate / BPS_PER_BYTE * BPS_PER_BYTE;
	if (p->ladder_min_rate < pl->min_bps) {
		errf(err, errlen,
		     "hqos: ladder_min_rate %" PRIu64 " bit/s is below the minimum of %" PRIu64
		     " bit/s (one %u-byte frame per %u ms)",
		     p->ladder_min_rate, pl->min_bps, pl->frame_bytes, HQOS_TC_PERIOD_MAX_MS);
		return -EINVAL;
	}
	if (p->ladder_step_bp == 0)
		p->ladder_step_bp = HQOS_DEFAULT_LADDER_STEP_BP;
	if (p->ladder_step_bp > 10000) {
		errf(err, errlen, "hqos: ladder_step_bp %u is above 10000 (100%%)",
		     p->ladder_step_bp);
		return -EINVAL;
	}
	if (p->max_pipe_profiles == 0)
		p->max_pipe_profiles = HQOS_DEFAULT_MAX_PIPE_PROFILES;
	if (p->cmd_ring_size == 0)
		p->cmd_ring_size = HQOS_DEFAULT_CMD_RING;
	if (p->cmd_ring_size < 2 || p->cmd_ring_size > (1u << 20)) {
		errf(err, errlen, "hqos: cmd_ring_size %u is not in 2..%u", p->cmd_ring_size,
		     1u << 20);
		return -EINVAL;
	}
	if (p->stats_period_us == 0)
		p->stats_period_us = HQOS_DEFAULT_STATS_PERIOD_US;
	if (p->port_burst_us == 0)
		p->port_burst_us = HQOS_DEFAULT_PORT_BURST_US;
	if (p->tb_ms == 0)
		p->tb_ms = HQOS_DEFAULT_TB_MS;
	if (p->tb_ms > 1000) {
		errf(err, errlen, "hqos: tb_ms %u is above 1000", p->tb_ms);
		return -EINVAL;
	}
	if (p->socket < 0) {
		p->socket = (int)rte_socket_id();
		if (p->socket < 0)
			p->socket = 0;
	}
	pl->n_access_ports = cfg->n_access_ports;
	pl->n_qos = cfg->n_qos_profiles;
	if (pl->n_access_ports > DP_MAX_ACCESS_PORTS || pl->n_qos > DP_MAX_QOS_PROFILES) {
		errf(err, errlen, "hqos: %u access ports / %u QoS profiles above the limits",
		     pl->n_access_ports, pl->n_qos);
		return -EINVAL;
	}
	/*
	 * Spare chunks: an access port holds whole chunks, so with A access
	 * ports up to A - 1 chunks can be partly used; A - 1 spares let any
	 * split of capacity sessions over the access ports fit.
	 */
	if (p->spare_subports == 0)
		p->spare_subports = pl->n_access_ports > 1 ? pl->n_access_ports - 1 : 0;
	else if (p->spare_subports < 0)
		p->spare_subports = 0;
	if ((uint32_t)p->spare_subports > HQOS_MAX_PIPES) {
		errf(err, errlen, "hqos: spare_subports %d is too many", p->spare_subports);
		return -EINVAL;
	}
	/*
	 * Chunk size: the largest power of two <= 4096 (and <= the capacity)
	 * whose spares cost at most a quarter of the capacity in pipes. Large
	 * chunks keep an access port in one subport (one rate ceiling) longer.
	 */
	if (p->subport_pipes == 0) {
		p->subport_pipes = RTE_MIN(HQOS_MAX_SUBPORT_PIPES, pow2_ceil(p->capacity));
		while (p->subport_pipes > HQOS_MIN_AUTO_SUBPORT_PIPES &&
		       ((uint64_t)(p->capacity + p->subport_pipes - 1) / p->subport_pipes +
			(uint32_t)p->spare_subports) *
				       p->subport_pipes * 4 >
			       (uint64_t)p->capacity * 5)
			p->subport_pipes >>= 1;
	}
	base = (p->capacity + p->subport_pipes - 1) / p->subport_pipes;
	pl->n_chunks = base + (uint32_t)p->spare_subports;
	pl->n_subports = pow2_ceil(pl->n_chunks);
	if ((uint64_t)pl->n_subports * p->subport_pipes > HQOS_MAX_PIPES) {
		errf(err, errlen,
		     "hqos: %u subports of %u pipes exceed the %u pipes a reference can name",
		     pl->n_subports, p->subport_pipes, HQOS_MAX_PIPES);
		return -EINVAL;
	}
	if (p->sweep_pipes == 0)
		/* rte_sched_queue_read_stats() walks every subport per call. */
		p->sweep_pipes =
			RTE_MAX(1u, RTE_MIN(HQOS_DEFAULT_SWEEP_PIPES, 2048u / pl->n_subports));
	return 0;
}

/* Every rate rte_sched will see: nonzero, a frame per period, below its parent. */
static int
plan_check_rates(const struct dp_config *cfg, const struct hqos_plan *pl, char *err, size_t errlen)
{
	uint32_t a, q, i;

	for (a = 0; a < pl->n_access_ports; a++) {
		const struct dp_access_port *ap = &cfg->access_ports[a];

		if (ap->rate < pl->min_bps) {
			errf(err, errlen,
			     "access_port.%u '%s': rate %" PRIu64
			     " bit/s is below the HQoS minimum of %" PRIu64 " bit/s",
			     a, ap->name, ap->rate, pl->min_bps);
			return -EINVAL;
		}
	}
	for (q = 0; q < pl->n_qos; q++) {
		const struct dp_qos_profile *qp = &cfg->qos_profiles[q];

		if (qp->down_rate < pl->min_bps || qp->down_rate > pl->port_bps) {
			errf(err, errlen,
			     "qos_profile.%u '%s': down_rate %" PRIu64
			     " bit/s is not in the HQoS range %" PRIu64 "..%" PRIu64
			     " (one %u-byte frame per %u ms .. port_rate)",
			     q, qp->name, qp->down_rate, pl->min_bps, pl->port_bps, pl->frame_bytes,
			     HQOS_TC_PERIOD_MAX_MS);
			return -EINVAL;
		}
		for (i = 0; i < DP_NUM_TCS; i++) {
			if (qp->tc_rate[i] < pl->min_bps || qp->tc_rate[i] > qp->down_rate) {
				errf(err, errlen,
				     "qos_profile.%u '%s': tc %u rate %" PRIu64
				     " bit/s is not in the HQoS range %" PRIu64 "..%" PRIu64
				     " (down_rate)",
				     q, qp->name, i, qp->tc_rate[i], pl->min_bps, qp->down_rate);
				return -EINVAL;
			}
		}
	}
	return 0;
}

static void
plan_free(struct hqos_plan *pl)
{
	if (pl == NULL)
		return;
	free(pl->rungs);
	free(pl->profiles);
	free(pl);
}

static struct hqos_plan *
plan_build(const struct dp_config *cfg, const struct hqos_params *in, char *err, size_t errlen)
{
	struct hqos_plan *pl = calloc(1, sizeof(*pl));
	uint64_t tc[DP_NUM_TCS];
	uint32_t q, s, k, i, a, lo, hi, fixed, idx;
	static const uint8_t equal[DP_NUM_BE_QUEUES] = {1, 1, 1, 1};

	if (pl == NULL) {
		errf(err, errlen, "hqos: out of memory");
		return NULL;
	}
	if (plan_params(cfg, in, pl, err, errlen) != 0 ||
	    plan_check_rates(cfg, pl, err, errlen) != 0)
		goto fail;

	/* Shapes: QoS profiles with the same class caps and weights share a ladder. */
	for (q = 0; q < pl->n_qos; q++) {
		for (s = 0; s < pl->n_shapes; s++)
			if (same_shape(&cfg->qos_profiles[q], &cfg->qos_profiles[pl->shape_rep[s]]))
				break;
		if (s == pl->n_shapes)
			pl->shape_rep[pl->n_shapes++] = (uint16_t)q;
		pl->shape_of[q] = (uint16_t)s;
	}

	/* Ladder: the configured step, widened until every shape's ladder fits. */
	fixed = 1u + pl->n_qos;
	pl->step_bp = pl->p.ladder_step_bp;
	pl->n_rungs = ladder_fill(pl->p.ladder_min_rate, pl->port_bps, pl->step_bp, NULL);
	if (pl->n_shapes > 0 &&
	    fixed + (uint64_t)pl->n_shapes * pl->n_rungs > pl->p.max_pipe_profiles) {
		lo = pl->step_bp;
		hi = 10000;
		if (fixed + (uint64_t)pl->n_shapes *
				    ladder_fill(pl->p.ladder_min_rate, pl->port_bps, hi, NULL) >
		    pl->p.max_pipe_profiles) {
			errf(err, errlen,
			     "hqos: max_pipe_profiles %u cannot hold %u exact profiles and %u "
			     "ladders",
			     pl->p.max_pipe_profiles, pl->n_qos, pl->n_shapes);
			goto fail;
		}
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (fixed + (uint64_t)pl->n_shapes * ladder_fill(pl->p.ladder_min_rate,
									 pl->port_bps, mid, NULL) >
			    pl->p.max_pipe_profiles)
				lo = mid + 1;
			else
				hi = mid;
		}
		pl->step_bp = lo;
		pl->n_rungs = ladder_fill(pl->p.ladder_min_rate, pl->port_bps, pl->step_bp, NULL);
	}
	pl->rungs = calloc(pl->n_rungs, sizeof(*pl->rungs));
	pl->n_profiles = fixed + pl->n_shapes * pl->n_rungs;
	pl->profiles = calloc(pl->n_profiles, sizeof(*pl->profiles));
	if (pl->rungs == NULL || pl->profiles == NULL) {
		errf(err, errlen, "hqos: out of memory");
		goto fail;
	}
	ladder_fill(pl->p.ladder_min_rate, pl->port_bps, pl->step_bp, pl->rungs);

	/* 0: drain, at the port rate. */
	for (i = 0; i < DP_NUM_TCS; i++)
		tc[i] = pl->port_bps;
	pipe_params_fill(pl, &pl->profiles[0], pl->port_bps, tc, equal);
	/* 1 + q: the QoS profiles as configured. */
	for (q = 0; q < pl->n_qos; q++) {
		const struct dp_qos_profile *qp = &cfg->qos_profiles[q];

		pipe_params_fill(pl, &pl->profiles[1 + q], qp->down_rate, qp->tc_rate,
				 qp->be_weights);
	}
	/* Ladders: pipe rate = the rung; listed classes keep their cap. */
	for (s = 0; s < pl->n_shapes; s++) {
		const struct dp_qos_profile *qp = &cfg->qos_profiles[pl->shape_rep[s]];

		for (k = 0; k < pl->n_rungs; k++) {
			uint64_t r = pl->rungs[k];

			for (i = 0; i < DP_NUM_TCS; i++)
				tc[i] = (qp->tc_rate_listed >> i & 1) ? RTE_MIN(qp->tc_rate[i], r)
								      : r;
			idx = fixed + s * pl->n_rungs + k;
			pipe_params_fill(pl, &pl->profiles[idx], r, tc, qp->be_weights);
		}
	}

	/* Subport profiles: 0 unbound (port rate), 1 + a access port a. */
	subport_profile_fill(pl, &pl->sub_profiles[0], pl->port_bps);
	for (a = 0; a < pl->n_access_ports; a++)
		subport_profile_fill(pl, &pl->sub_profiles[1 + a],
				     RTE_MIN(cfg->access_ports[a].rate, pl->port_bps));

	pl->sp_chunk.n_pipes_per_subport_enabled = pl->p.subport_pipes;
	for (i = 0; i < DP_NUM_TCS; i++)
		pl->sp_chunk.qsize[i] = pl->p.qsize;
	pl->sp_chunk.pipe_profiles = pl->profiles;
	pl->sp_chunk.n_pipe_profiles = pl->n_profiles;
	pl->sp_chunk.n_max_pipe_profiles = pl->n_profiles;
	/* Padding up to a power of two of subports: one pipe, never marked. */
	pl->sp_pad.n_pipes_per_subport_enabled = 1;
	for (i = 0; i < DP_NUM_TCS; i++)
		pl->sp_pad.qsize[i] = 2;
	pl->sp_pad.pipe_profiles = pl->profiles;
	pl->sp_pad.n_pipe_profiles = 1;
	pl->sp_pad.n_max_pipe_profiles = 1;

	pl->pp.name = "hqos";
	pl->pp.socket = pl->p.socket;
	pl->pp.rate = sched_port_rate(pl->port_bps / BPS_PER_BYTE);
	pl->pp.mtu = pl->p.max_frame;
	pl->pp.frame_overhead = HQOS_FRAME_OVERHEAD;
	pl->pp.n_subports_per_port = pl->n_subports;
	pl->pp.subport_profiles = pl->sub_profiles;
	pl->pp.n_subport_profiles = 1u + pl->n_access_ports;
	pl->pp.n_max_subport_profiles = 1u + pl->n_access_ports;
	pl->pp.n_pipes_per_subport = pl->p.subport_pipes;
	return pl;
fail:
	plan_free(pl);
	return NULL;
}

uint8_t
hqos_sched_parse(const char *name)
{
	if (name != NULL && strcmp(name, "hsched") == 0)
		return HQOS_SCHED_HSCHED;
	if (name != NULL && strcmp(name, "rte_sched") == 0)
		return HQOS_SCHED_RTE_SCHED;
	return 0;
}

const char *
hqos_sched_name(uint8_t kind)
{
	return kind == HQOS_SCHED_RTE_SCHED ? "rte_sched"
	       : kind == HQOS_SCHED_HSCHED  ? "hsched"
					    : "?";
}

/* hsched's parameters for a plan: the chunks only (no padding subports), the
 * same profile table, every subport at the port rate until bound. */
static void
hsched_params_of(const struct hqos_plan *pl, struct hsched_params *hp)
{
	memset(hp, 0, sizeof(*hp));
	hp->n_subports = pl->n_chunks;
	hp->n_pipes_per_subport = pl->p.subport_pipes;
	hp->qsize = pl->p.qsize;
	hp->frame_overhead = HQOS_FRAME_OVERHEAD;
	hp->max_frame = pl->frame_bytes;
	hp->n_profiles = pl->n_profiles;
	hp->profiles = pl->profiles;
	hp->subport_rate = pl->sub_profiles[0].tb_rate;
	hp->subport_size = pl->sub_profiles[0].tb_size;
	hp->socket = pl->p.socket;
}

/* rte_sched's footprint of one subport (its arrays) and of the port. */
static int
sched_footprint(const struct hqos_plan *pl, struct rte_sched_subport_params *sp, uint64_t *sub,
		uint64_t *port)
{
	struct rte_sched_port_params pp = pl->pp;
	struct rte_sched_subport_params *two[2] = {sp, sp};
	uint32_t f1, f2;

	pp.n_subports_per_port = 1;
	f1 = rte_sched_port_get_memory_footprint(&pp, two);
	pp.n_subports_per_port = 2;
	f2 = rte_sched_port_get_memory_footprint(&pp, two);
	if (f1 == 0 || f2 <= f1)
		return -EINVAL;
	*sub = f2 - f1;
	*port = 2ull * f1 - f2;
	return 0;
}

/* This module's own tables for a plan. */
static uint64_t
own_bytes(const struct hqos_plan *pl)
{
	uint64_t n = (uint64_t)pl->n_chunks * pl->p.subport_pipes;

	return sizeof(struct hqos) +
	       n * (sizeof(uint64_t) /* owner */ + 1 /* w_active */ + sizeof(uint32_t) +
		    2 * sizeof(uint64_t) /* drops */ + sizeof(struct hqos_pipe_ctl) +
		    sizeof(uint16_t) /* fifo */) +
	       pl->n_chunks * (sizeof(uint16_t) + sizeof(struct hqos_tc_counters) +
			       sizeof(struct hqos_chunk)) +
	       pl->n_access_ports * sizeof(struct hqos_tc_counters) +
	       (uint64_t)pl->p.cmd_ring_size * sizeof(struct hqos_cmd) +
	       pl->n_rungs * sizeof(uint64_t);
}

uint64_t
hqos_memory_estimate(const struct dp_config *cfg, const struct hqos_params *p, char *err,
		     size_t errlen)
{
	struct hqos_plan *pl = plan_build(cfg, p, err, errlen);
	uint64_t chunk, pad, port, total;

	if (pl == NULL)
		return 0;
	if (pl->p.scheduler == HQOS_SCHED_HSCHED) {
		struct hsched_params hp;

		hsched_params_of(pl, &hp);
		total = hsched_memory_footprint(&hp) + own_bytes(pl);
		plan_free(pl);
		return total;
	}
	if (sched_footprint(pl, &pl->sp_chunk, &chunk, &port) != 0 ||
	    sched_footprint(pl, &pl->sp_pad, &pad, &port) != 0) {
		errf(err, errlen, "hqos: rte_sched refused the subport parameters");
		plan_free(pl);
		return 0;
	}
	total = port + pl->n_chunks * chunk + (pl->n_subports - pl->n_chunks) * pad +
		pl->n_subports * sizeof(void *) +
		pl->pp.n_max_subport_profiles * sizeof(struct rte_sched_subport_profile_params) +
		own_bytes(pl);
	plan_free(pl);
	return total;
}

/* --- create / free -------------------------------------------------------- */

void
hqos_params_default(struct hqos_params *p)
{
	memset(p, 0, sizeof(*p));
	p->capacity = HQOS_DEFAULT_CAPACITY;
	p->qsize = HQOS_DEFAULT_QSIZE;
	p->max_frame = HQOS_DEFAULT_MAX_FRAME;
	p->ladder_min_rate = HQOS_DEFAULT_LADDER_MIN;
	p->ladder_step_bp = HQOS_DEFAULT_LADDER_STEP_BP;
	p->max_pipe_profiles = HQOS_DEFAULT_MAX_PIPE_PROFILES;
	p->cmd_ring_size = HQOS_DEFAULT_CMD_RING;
	p->stats_period_us = HQOS_DEFAULT_STATS_PERIOD_US;
	p->port_burst_us = HQOS_DEFAULT_PORT_BURST_US;
	p->tb_ms = HQOS_DEFAULT_TB_MS;
	p->socket = -1;
}

/*
 * rte_sched_port_free() frees the frames of every queue except full ones
 * (22.11 compares masked read and write positions, equal when full). Empty
 * the scheduler first: every subport at the port rate and every pipe on the
 * drain profile, so rte_sched's clock, advanced by each frame it sends,
 * refills the credits as fast as frames leave.
 */
static void
drain_all(struct hqos *h)
{
	struct rte_mbuf *m[64];
	uint64_t end = rte_rdtsc() + rte_get_tsc_hz() / 2;
	uint32_t s, i, idle = 0, k;

	for (s = 0; s < h->n_chunks; s++)
		rte_sched_subport_config(h->port, s, NULL, 0);
	for (i = 0; i < h->n_pipes; i++)
		if (h->w_active[i])
			rte_sched_pipe_config(h->port, i / h->subport_pipes, i % h->subport_pipes,
					      -1);
	/* A grinder needs a few calls to load a pipe: stop after many empty ones. */
	while (idle < 4 * h->n_subports * 8 && rte_rdtsc() < end) {
		k = (uint32_t)rte_sched_port_dequeue(h->port, m, RTE_DIM(m));
		idle = k == 0 ? idle + 1 : 0;
		rte_pktmbuf_free_bulk(m, k);
	}
}

void
hqos_free(struct hqos *h)
{
	if (h == NULL)
		return;
	if (h->port != NULL && h->w_active != NULL)
		drain_all(h);
	rte_sched_port_free(h->port);
	hsched_free(h->hs); /* frees its queued frames */
	rte_ring_free(h->cmds);
	rte_free(h->owner);
	rte_free(h->w_bound);
	rte_free(h->w_active);
	rte_free(h->w_profile);
	rte_free(h->pipe_drops);
	rte_free(h->st_subport);
	rte_free(h->st_port);
	free(h->rungs);
	free(h->pipes);
	free(h->chunks);
	free(h->fifo);
	rte_free(h);
}

struct hqos *
hqos_create(const struct dp_config *cfg, const struct hqos_params *p, char *err, size_t errlen)
{
	static uint32_t seq;
	struct rte_malloc_socket_stats before, after;
	struct hqos_plan *pl = plan_build(cfg, p, err, errlen);
	char name[RTE_RING_NAMESIZE];
	struct hqos *h = NULL;
	uint64_t hz = rte_get_tsc_hz();
	uint32_t s, i, c, q;
	int socket, have_stats;

	if (pl == NULL)
		return NULL;
	socket = pl->p.socket;
	have_stats = rte_malloc_get_socket_stats(socket, &before) == 0;
	h = rte_zmalloc_socket("hqos", sizeof(*h), RTE_CACHE_LINE_SIZE, socket);
	if (h == NULL)
		goto nomem;
	h->n_chunks = pl->n_chunks;
	h->n_subports = pl->n_subports;
	h->subport_pipes = pl->p.subport_pipes;
	h->n_pipes = pl->n_chunks * pl->p.subport_pipes;
	h->qsize = pl->p.qsize;
	h->max_frame = pl->p.max_frame;
	h->n_access_ports = pl->n_access_ports;
	h->n_qos = pl->n_qos;
	h->n_shapes = pl->n_shapes;
	h->n_rungs = pl->n_rungs;
	h->n_profiles = pl->n_profiles;
	h->ladder_step_bp = pl->step_bp;
	h->port_rate = pl->port_bps;
	h->sweep_pipes = RTE_MIN(pl->p.sweep_pipes, pl->n_chunks * pl->p.subport_pipes);
	memcpy(h->shape_of, pl->shape_of, sizeof(h->shape_of));
	for (q = 0; q < pl->n_qos; q++) {
		h->exact_rate[q] = pl->profiles[1 + q].tb_rate * BPS_PER_BYTE;
		h->down_rate[q] = cfg->qos_profiles[q].down_rate;
	}
	h->rungs = pl->rungs;
	pl->rungs = NULL;

	snprintf(name, sizeof(name), "hqos_cmd%u", __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	h->cmds = rte_ring_create_elem(name, sizeof(struct hqos_cmd), pl->p.cmd_ring_size, socket,
				       RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ);
	h->owner = rte_malloc_socket("hqos_owner", h->n_pipes * sizeof(uint64_t),
				     RTE_CACHE_LINE_SIZE, socket);
	h->w_bound = rte_malloc_socket("hqos_bound", h->n_chunks * sizeof(uint16_t), 0, socket);
	h->w_active = rte_zmalloc_socket("hqos_active", h->n_pipes, 0, socket);
	h->w_profile = rte_malloc_socket("hqos_wprof", h->n_pipes * sizeof(uint32_t), 0, socket);
	h->pipe_drops = rte_zmalloc_socket("hqos_drops", h->n_pipes * 2 * sizeof(uint64_t),
					   RTE_CACHE_LINE_SIZE, socket);
	h->st_subport =
		rte_zmalloc_socket("hqos_stsub", h->n_chunks * sizeof(struct hqos_tc_counters),
				   RTE_CACHE_LINE_SIZE, socket);
	h->st_port = rte_zmalloc_socket(
		"hqos_stport", RTE_MAX(h->n_access_ports, 1) * sizeof(struct hqos_tc_counters),
		RTE_CACHE_LINE_SIZE, socket);
	h->pipes = calloc(h->n_pipes, sizeof(*h->pipes));
	h->chunks = calloc(h->n_chunks, sizeof(*h->chunks));
	h->fifo = malloc(h->n_pipes * sizeof(*h->fifo));
	if (h->cmds == NULL || h->owner == NULL || h->w_bound == NULL || h->w_active == NULL ||
	    h->w_profile == NULL || h->pipe_drops == NULL || h->st_subport == NULL ||
	    h->st_port == NULL || h->pipes == NULL || h->chunks == NULL || h->fifo == NULL)
		goto nomem;

	h->sched_kind = pl->p.scheduler;
	for (q = 0; q < pl->n_access_ports; q++) {
		h->sub_rate[q] = pl->sub_profiles[1 + q].tb_rate;
		h->sub_size[q] = pl->sub_profiles[1 + q].tb_size;
	}
	h->tb_ms = pl->p.tb_ms;
	h->frame_bytes = pl->frame_bytes;
	if (h->sched_kind == HQOS_SCHED_HSCHED) {
		struct hsched_params hp;

		hsched_params_of(pl, &hp);
		h->hs = hsched_create(&hp, err, errlen);
		if (h->hs == NULL)
			goto fail;
		goto built;
	}
	h->port = rte_sched_port_config(&pl->pp);
	if (h->port == NULL) {
		errf(err, errlen,
		     "hqos: rte_sched_port_config failed (%u subports): out of memory?",
		     pl->n_subports);
		goto fail;
	}
	for (s = 0; s < pl->n_subports; s++) {
		if (rte_sched_subport_config(
			    h->port, s, s < pl->n_chunks ? &pl->sp_chunk : &pl->sp_pad, 0) != 0) {
			/* rte_sched has freed the port and its subports. */
			h->port = NULL;
			errf(err, errlen,
			     "hqos: rte_sched_subport_config of subport %u failed (%u pipes, %u "
			     "profiles): out of memory?",
			     s, s < pl->n_chunks ? pl->p.subport_pipes : 1u, pl->n_profiles);
			goto fail;
		}
		/* Best-effort oversubscription control (off by default): its
		 * watermark starts at the fastest profile's best-effort rate (the
		 * port rate) and moves 1/128 per credit period, i.e. it needs tens
		 * of seconds to settle and as long to let a pipe use capacity its
		 * neighbours left. Without it backlogged pipes share a subport by
		 * the grinder's turns (docs/dp/hqos.md "Sharing a subport"). */
		rte_sched_subport_tc_ov_config(h->port, s, pl->p.be_oversubscription != 0);
	}
built:

	for (i = 0; i < h->n_pipes; i++) {
		h->owner[i] = (uint64_t)HQOS_GEN_FREED << 32 | HQOS_OWNER_NONE;
		h->w_profile[i] = UINT32_MAX;
		h->fifo[i] = (uint16_t)(i % h->subport_pipes);
	}
	for (c = 0; c < h->n_chunks; c++) {
		h->w_bound[c] = HQOS_UNBOUND;
		h->chunks[c].access_port = HQOS_UNBOUND;
		h->chunks[c].fifo_count = h->subport_pipes;
	}

	/* Port pacer: a token bucket at the port rate, port_burst_us deep. */
	pace_of(pl->port_bps / BPS_PER_BYTE, pl->p.port_burst_us, pl->frame_bytes,
		&h->pace_per_cycle, &h->pace_depth);
	h->pace_max_cycles = (uint64_t)h->pace_depth / h->pace_per_cycle + 1;
	h->pace_credit = h->pace_depth;
	h->pace_req_depth = h->pace_depth;
	h->pace_req_per_cycle = h->pace_per_cycle;
	h->port_burst_us = pl->p.port_burst_us;
	h->pace_rate = pl->port_bps;
	h->pace_tsc = rte_rdtsc();
	h->harvest_cycles = hz * pl->p.stats_period_us / 1000000;
	h->next_harvest = h->pace_tsc + h->harvest_cycles;

	if (have_stats && rte_malloc_get_socket_stats(socket, &after) == 0)
		h->mem_bytes = after.heap_allocsz_bytes - before.heap_allocsz_bytes;
	h->mem_bytes += h->n_pipes * (sizeof(*h->pipes) + sizeof(*h->fifo)) +
			h->n_chunks * sizeof(*h->chunks) + h->n_rungs * sizeof(*h->rungs);
	plan_free(pl);
	return h;
nomem:
	errf(err, errlen, "hqos: out of memory (%u pipes)", pl->n_chunks * pl->p.subport_pipes);
fail:
	hqos_free(h);
	plan_free(pl);
	return NULL;
}

uint64_t
hqos_memory_bytes(const struct hqos *h)
{
	return h->mem_bytes;
}

/* --- control thread ------------------------------------------------------- */

static int
profile_for(const struct hqos *h, uint16_t q, uint64_t rate, uint32_t *profile, uint64_t *eff)
{
	uint32_t lo = 0, n = h->n_rungs, half;

	if (q >= h->n_qos)
		return -EINVAL;
	if (rate == 0 || rate == h->down_rate[q]) {
		*profile = 1u + q;
		*eff = h->exact_rate[q];
		return 0;
	}
	if (rate < h->rungs[0])
		return -EINVAL;
	/* The last rung <= rate. */
	while (n > 1) {
		half = n / 2;
		if (h->rungs[lo + half] <= rate)
			lo += half;
		n -= half;
	}
	*profile = 1u + h->n_qos + h->shape_of[q] * h->n_rungs + lo;
	*eff = h->rungs[lo];
	return 0;
}

uint64_t
hqos_rate_effective(const struct hqos *h, uint16_t qos_profile, uint64_t rate_bps)
{
	uint32_t profile;
	uint64_t eff;

	return profile_for(h, qos_profile, rate_bps, &profile, &eff) == 0 ? eff : 0;
}

static int
cmd_send(struct hqos *h, uint8_t op, uint32_t index, uint32_t profile, uint16_t access_port)
{
	struct hqos_cmd c = {
		.op = op, .access_port = access_port, .index = index, .profile = profile};

	return rte_ring_sp_enqueue_elem(h->cmds, &c, sizeof(c)) == 0 ? 0 : -EAGAIN;
}

/* Global index of a live reference, or a negative errno. */
static int
ref_live(const struct hqos *h, uint32_t ref, uint32_t *pipe)
{
	uint32_t i = hqos_ref_pipe(ref);

	if (ref == HQOS_PIPE_NONE || i >= h->n_pipes)
		return -EINVAL;
	if (!h->pipes[i].allocated || h->pipes[i].gen != hqos_ref_gen(ref))
		return -ENOENT;
	*pipe = i;
	return 0;
}

int
hqos_pipe_alloc(struct hqos *h, uint16_t access_port, uint16_t qos_profile, uint64_t rate_bps,
		uint32_t *pipe_ref)
{
	struct hqos_chunk *ch;
	struct hqos_pipe_ctl *pc;
	uint32_t c, best = UINT32_MAX, profile, p, i;
	uint64_t eff;
	int bind = 0;

	if (access_port >= h->n_access_ports || pipe_ref == NULL)
		return -EINVAL;
	if (profile_for(h, qos_profile, rate_bps, &profile, &eff) != 0)
		return -EINVAL;
	/* The densest chunk of this access port that has room, so sparse chunks
	 * empty out and go back to the pool. */
	for (c = 0; c < h->n_chunks; c++) {
		ch = &h->chunks[c];
		if (ch->access_port == access_port && ch->used < h->subport_pipes &&
		    (best == UINT32_MAX || ch->used > h->chunks[best].used))
			best = c;
	}
	if (best == UINT32_MAX) {
		for (c = 0; c < h->n_chunks && h->chunks[c].access_port != HQOS_UNBOUND; c++)
			;
		if (c == h->n_chunks)
			return -ENOSPC;
		best = c;
		bind = 1;
	}
	if (rte_ring_free_count(h->cmds) < 1u + (unsigned int)bind)
		return -EAGAIN;
	ch = &h->chunks[best];
	if (bind) {
		ch->access_port = access_port;
		if (h->hs != NULL)
			hsched_subport_rate_set(h->hs, best, h->sub_rate[access_port],
						h->sub_size[access_port]);
		cmd_send(h, HQOS_CMD_BIND, best, 0, access_port);
	}
	/* Least recently freed pipe first: frames of its last owner are long gone. */
	p = h->fifo[best * h->subport_pipes + ch->fifo_head];
	ch->fifo_head = (ch->fifo_head + 1) & (h->subport_pipes - 1);
	ch->fifo_count--;
	ch->used++;
	i = best * h->subport_pipes + p;
	pc = &h->pipes[i];
	pc->gen = (uint16_t)((pc->gen + 1) & HQOS_GEN_MASK);
	pc->allocated = 1;
	pc->access_port = access_port;
	pc->qos = qos_profile;
	pc->profile = profile;
	pc->rate_req = rate_bps;
	pc->gbr = 0;
	h->n_allocated++;
	__atomic_store_n(&h->owner[i], (uint64_t)pc->gen << 32 | HQOS_OWNER_UNSET,
			 __ATOMIC_RELEASE);
	cmd_send(h, HQOS_CMD_ALLOC, i, profile, access_port);
	*pipe_ref = hqos_ref_make(i, pc->gen);
	return 0;
}

int
hqos_pipe_modify(struct hqos *h, uint32_t pipe_ref, uint16_t qos_profile, uint64_t rate_bps)
{
	struct hqos_pipe_ctl *pc;
	uint32_t i, profile;
	uint64_t eff;
	int rc = ref_live(h, pipe_ref, &i);

	if (rc != 0)
		return rc;
	if (profile_for(h, qos_profile, rate_bps, &profile, &eff) != 0)
		return -EINVAL;
	if (cmd_send(h, HQOS_CMD_MODIFY, i, profile, 0) != 0)
		return -EAGAIN;
	pc = &h->pipes[i];
	pc->qos = qos_profile;
	pc->profile = profile;
	pc->rate_req = rate_bps;
	return 0;
}

int
hqos_pipe_set_owner(struct hqos *h, uint32_t pipe_ref, uint32_t session_id)
{
	uint32_t i;
	int rc = ref_live(h, pipe_ref, &i);

	if (rc != 0)
		return rc;
	if (session_id >= HQOS_OWNER_UNSET)
		return -EINVAL;
	__atomic_store_n(&h->owner[i], (uint64_t)h->pipes[i].gen << 32 | session_id,
			 __ATOMIC_RELEASE);
	return 0;
}

int
hqos_pipe_free(struct hqos *h, uint32_t pipe_ref)
{
	struct hqos_chunk *ch;
	uint32_t i, c;
	int rc = ref_live(h, pipe_ref, &i);

	if (rc != 0)
		return rc;
	if (cmd_send(h, HQOS_CMD_FREE, i, 0, 0) != 0)
		return -EAGAIN;
	__atomic_store_n(&h->owner[i], (uint64_t)HQOS_GEN_FREED << 32 | HQOS_OWNER_NONE,
			 __ATOMIC_RELEASE);
	h->pipes[i].allocated = 0;
	h->n_allocated--;
	if (h->pipes[i].gbr != 0) {
		h->gbr_sum[h->pipes[i].access_port] -= h->pipes[i].gbr;
		h->gbr_pipes[h->pipes[i].access_port]--;
		h->pipes[i].gbr = 0;
	}
	c = i / h->subport_pipes;
	ch = &h->chunks[c];
	h->fifo[c * h->subport_pipes + ((ch->fifo_head + ch->fifo_count) &
					(h->subport_pipes - 1))] = (uint16_t)(i % h->subport_pipes);
	ch->fifo_count++;
	if (--ch->used == 0)
		ch->access_port = HQOS_UNBOUND;
	return 0;
}

int
hqos_pipe_info(const struct hqos *h, uint32_t pipe_ref, struct hqos_pipe_info *out)
{
	const struct hqos_pipe_ctl *pc;
	uint32_t i, profile;
	uint64_t eff = 0;
	int rc = ref_live(h, pipe_ref, &i);

	if (rc != 0)
		return rc;
	pc = &h->pipes[i];
	profile_for(h, pc->qos, pc->rate_req, &profile, &eff);
	out->access_port = pc->access_port;
	out->qos_profile = pc->qos;
	out->subport = i / h->subport_pipes;
	out->pipe = i % h->subport_pipes;
	out->profile = pc->profile;
	out->rate_req = pc->rate_req;
	out->rate_bps = eff;
	out->owner = (uint32_t)__atomic_load_n(&h->owner[i], __ATOMIC_RELAXED);
	return 0;
}

uint32_t
hqos_access_port_pipes(const struct hqos *h, uint16_t access_port)
{
	uint32_t c, n = 0;

	for (c = 0; c < h->n_chunks; c++)
		if (h->chunks[c].access_port == access_port)
			n += h->chunks[c].used;
	return n;
}

int
hqos_pipe_set_guaranteed(struct hqos *h, uint32_t pipe_ref, uint64_t gbr_bps)
{
	struct hqos_pipe_ctl *pc;
	uint32_t i;
	int rc = ref_live(h, pipe_ref, &i);

	if (rc != 0)
		return rc;
	pc = &h->pipes[i];
	if (gbr_bps > h->port_rate)
		gbr_bps = h->port_rate;			  /* never more than the port could carry */
	h->gbr_sum[pc->access_port] += gbr_bps - pc->gbr; /* modulo 2^64: exact */
	h->gbr_pipes[pc->access_port] += (gbr_bps != 0) - (pc->gbr != 0);
	pc->gbr = gbr_bps;
	return 0;
}

uint64_t
hqos_access_port_guaranteed(const struct hqos *h, uint16_t access_port, uint64_t dflt_bps)
{
	uint64_t sum = 0;
	uint16_t a;

	for (a = 0; a < h->n_access_ports; a++)
		if (a == access_port || access_port == HQOS_UNBOUND)
			sum += h->gbr_sum[a] +
			       (hqos_access_port_pipes(h, a) - h->gbr_pipes[a]) * dflt_bps;
	return sum;
}

uint64_t
hqos_access_port_pipe_rate(const struct hqos *h, uint16_t access_port)
{
	uint64_t sum = 0, eff;
	uint32_t i, profile;

	for (i = 0; i < h->n_pipes; i++) {
		const struct hqos_pipe_ctl *pc = &h->pipes[i];

		if (pc->allocated &&
		    (pc->access_port == access_port || access_port == HQOS_UNBOUND) &&
		    profile_for(h, pc->qos, pc->rate_req, &profile, &eff) == 0)
			sum += eff;
	}
	return sum;
}

int
hqos_access_port_rate_set(struct hqos *h, uint16_t access_port, uint64_t rate_bps)
{
	uint64_t Bps, size;
	uint32_t c;

	if (access_port >= h->n_access_ports || rate_bps < (uint64_t)h->frame_bytes * BPS_PER_BYTE)
		return -EINVAL;
	if (h->hs == NULL)
		return -ENOTSUP;
	Bps = RTE_MIN(rate_bps, h->port_rate) / BPS_PER_BYTE;
	size = RTE_MAX(Bps * h->tb_ms / 1000, 2 * (uint64_t)h->frame_bytes);
	/* For later bindings (hqos_pipe_alloc() sets a bound chunk's rate)... */
	h->sub_size[access_port] = size;
	h->sub_rate[access_port] = Bps;
	/* ... and for the subports bound now (a BIND still in the ring takes
	 * the new rate when the worker applies it). */
	for (c = 0; c < h->n_chunks; c++)
		if (h->chunks[c].access_port == access_port)
			hsched_subport_rate_set(h->hs, c, Bps, size);
	return 0;
}

int
hqos_port_rate_set(struct hqos *h, uint64_t rate_bps)
{
	uint64_t per_cycle;
	int64_t depth;

	if (rate_bps < (uint64_t)h->frame_bytes * BPS_PER_BYTE || rate_bps > h->port_rate)
		return -EINVAL;
	pace_of(rate_bps / BPS_PER_BYTE, h->port_burst_us, h->frame_bytes, &per_cycle, &depth);
	/* Depth first: a worker that sees the new rate (acquire) sees its depth. */
	__atomic_store_n(&h->pace_req_depth, depth, __ATOMIC_RELAXED);
	__atomic_store_n(&h->pace_req_per_cycle, per_cycle, __ATOMIC_RELEASE);
	h->pace_rate = rate_bps;
	return 0;
}

uint64_t
hqos_port_rate_get(const struct hqos *h)
{
	return h->pace_rate;
}

/* Worker: take a pacer rate the control thread set (one load when unchanged). */
static inline void
pace_take(struct hqos *h)
{
	uint64_t req = __atomic_load_n(&h->pace_req_per_cycle, __ATOMIC_ACQUIRE);

	if (likely(req == h->pace_per_cycle))
		return;
	h->pace_per_cycle = req;
	h->pace_depth = __atomic_load_n(&h->pace_req_depth, __ATOMIC_RELAXED);
	h->pace_max_cycles = (uint64_t)h->pace_depth / h->pace_per_cycle + 1;
	if (h->pace_credit > h->pace_depth)
		h->pace_credit = h->pace_depth;
}

/* --- telemetry ------------------------------------------------------------ */

static void
counters_copy(void *dst, const void *src, size_t size)
{
	const uint64_t *s = src;
	uint64_t *d = dst;
	size_t i;

	for (i = 0; i < size / sizeof(uint64_t); i++)
		d[i] = __atomic_load_n(&s[i], __ATOMIC_RELAXED);
}

int
hqos_stats_read(const struct hqos *h, enum hqos_scope scope, uint32_t index,
		struct hqos_tc_counters *out)
{
	const struct hqos_tc_counters *src;

	switch (scope) {
	case HQOS_SCOPE_TOTAL:
		src = &h->st_total;
		break;
	case HQOS_SCOPE_ACCESS_PORT:
		if (index >= h->n_access_ports)
			return -EINVAL;
		src = &h->st_port[index];
		break;
	case HQOS_SCOPE_SUBPORT:
		if (index >= h->n_chunks)
			return -EINVAL;
		src = &h->st_subport[index];
		break;
	default:
		return -EINVAL;
	}
	counters_copy(out, src, sizeof(*out));
	return 0;
}

void
hqos_worker_counters_read(const struct hqos *h, struct hqos_worker_counters *out)
{
	counters_copy(out, &h->wc, sizeof(*out));
}

int
hqos_pipe_drops(const struct hqos *h, uint32_t pipe_ref, uint64_t *pkts, uint64_t *bytes)
{
	uint32_t i = hqos_ref_pipe(pipe_ref);

	if (pipe_ref == HQOS_PIPE_NONE || i >= h->n_pipes)
		return -EINVAL;
	*pkts = __atomic_load_n(&h->pipe_drops[2 * i], __ATOMIC_RELAXED);
	*bytes = __atomic_load_n(&h->pipe_drops[2 * i + 1], __ATOMIC_RELAXED);
	return 0;
}

/* --- worker ----------------------------------------------------------------- */

static void
harvest_subport(struct hqos *h, uint32_t s)
{
	struct rte_sched_subport_stats st;
	struct hqos_tc_counters *dst[3];
	uint32_t tc_ov, n = 0, i, k;
	uint16_t a = h->w_bound[s];

	if (h->hs != NULL) {
		struct hsched_subport_stats hs;

		if (hsched_subport_read_stats(h->hs, s, &hs) != 0)
			return;
		for (i = 0; i < DP_NUM_TCS; i++) {
			st.n_pkts_tc[i] = hs.pkts[i];
			st.n_bytes_tc[i] = hs.bytes[i];
			st.n_pkts_tc_dropped[i] = hs.drop_pkts[i];
			st.n_bytes_tc_dropped[i] = hs.drop_bytes[i];
		}
	} else if (rte_sched_subport_read_stats(h->port, s, &st, &tc_ov) != 0) {
		return;
	}
	dst[n++] = &h->st_subport[s];
	dst[n++] = &h->st_total;
	if (a != HQOS_UNBOUND)
		dst[n++] = &h->st_port[a];
	for (k = 0; k < n; k++) {
		for (i = 0; i < DP_NUM_TCS; i++) {
			if (st.n_pkts_tc[i] != 0) {
				ctr_add(&dst[k]->pkts[i], st.n_pkts_tc[i]);
				ctr_add(&dst[k]->bytes[i], st.n_bytes_tc[i]);
			}
			if (st.n_pkts_tc_dropped[i] != 0) {
				ctr_add(&dst[k]->drop_pkts[i], st.n_pkts_tc_dropped[i]);
				ctr_add(&dst[k]->drop_bytes[i], st.n_bytes_tc_dropped[i]);
			}
		}
	}
}

/* Read (and so clear) the 16 queue counters of pipe i; add the drops unless
 * flushing a pipe about to get a new owner. */
static void
harvest_pipe(struct hqos *h, uint32_t i, int keep)
{
	struct rte_sched_queue_stats qs;
	uint64_t pkts = 0, bytes = 0;
	uint16_t qlen;
	uint32_t q;

	if (h->hs != NULL)
		hsched_pipe_read_drops(h->hs, i / h->subport_pipes, i % h->subport_pipes, &pkts,
				       &bytes);
	for (q = 0; h->hs == NULL && q < HQOS_QUEUES_PER_PIPE; q++) {
		if (rte_sched_queue_read_stats(h->port, i << 4 | q, &qs, &qlen) != 0)
			continue;
		pkts += qs.n_pkts_dropped;
		bytes += qs.n_bytes_dropped;
	}
	if (!keep) {
		ctr_set(&h->pipe_drops[2 * i], 0);
		ctr_set(&h->pipe_drops[2 * i + 1], 0);
	} else if (pkts != 0) {
		ctr_add(&h->pipe_drops[2 * i], pkts);
		ctr_add(&h->pipe_drops[2 * i + 1], bytes);
	}
}

static void
harvest(struct hqos *h)
{
	uint32_t s, k;

	for (s = 0; s < h->n_chunks; s++)
		harvest_subport(h, s);
	for (k = 0; k < h->sweep_pipes; k++) {
		if (h->w_active[h->sweep_cursor])
			harvest_pipe(h, h->sweep_cursor, 1);
		if (++h->sweep_cursor == h->n_pipes)
			h->sweep_cursor = 0;
	}
	ctr_add(&h->wc.harvests, 1);
}

static int
pipe_config(struct hqos *h, uint32_t i, int32_t profile)
{
	if (h->hs != NULL)
		return hsched_pipe_config(h->hs, i / h->subport_pipes, i % h->subport_pipes,
					  profile);
	return rte_sched_pipe_config(h->port, i / h->subport_pipes, i % h->subport_pipes, profile);
}

static void
apply_one(struct hqos *h, const struct hqos_cmd *c)
{
	int rc = -EINVAL;

	switch (c->op) {
	case HQOS_CMD_BIND:
		if (c->index >= h->n_chunks || c->access_port >= h->n_access_ports)
			break;
		/* What the subport did so far belongs to its previous access port. */
		harvest_subport(h, c->index);
		h->w_bound[c->index] = c->access_port;
		if (h->hs != NULL) /* the rate was set by hqos_pipe_alloc() */
			rc = hsched_subport_reset(h->hs, c->index);
		else
			rc = rte_sched_subport_config(h->port, c->index, NULL, 1u + c->access_port);
		break;
	case HQOS_CMD_ALLOC:
	case HQOS_CMD_MODIFY:
		if (c->index >= h->n_pipes || c->profile >= h->n_profiles)
			break;
		if (c->op == HQOS_CMD_ALLOC)
			harvest_pipe(h, c->index, 0);
		rc = pipe_config(h, c->index, (int32_t)c->profile);
		h->w_active[c->index] = 1;
		h->w_profile[c->index] = c->profile;
		break;
	case HQOS_CMD_FREE:
		if (c->index >= h->n_pipes)
			break;
		harvest_pipe(h, c->index, 1);
		/* Deactivated: zeroed, so it runs on profile 0 (drain) until reused. */
		rc = pipe_config(h, c->index, -1);
		h->w_active[c->index] = 0;
		h->w_profile[c->index] = 0;
		break;
	default:
		break;
	}
	ctr_add(rc == 0 ? &h->wc.cmds : &h->wc.cmd_errors, 1);
}

static inline void
apply_cmds(struct hqos *h)
{
	struct hqos_cmd c[32];
	unsigned int n, i;

	while ((n = rte_ring_sc_dequeue_burst_elem(h->cmds, c, sizeof(c[0]), RTE_DIM(c), NULL)) > 0)
		for (i = 0; i < n; i++)
			apply_one(h, &c[i]);
}

void
hqos_worker_apply(struct hqos *h, uint64_t now)
{
	apply_cmds(h);
	if (now >= h->next_harvest) {
		harvest(h);
		h->next_harvest = now + h->harvest_cycles;
	}
}

uint32_t
hqos_enqueue(struct hqos *h, struct rte_mbuf **pkts, uint32_t n)
{
	uint32_t ok;

	/* A session found by a lookup before this call was published after its
	 * pipe's commands were enqueued: apply them before its frames go in. */
	apply_cmds(h);
	if (n == 0)
		return 0;
	if (h->hs != NULL)
		ok = hsched_enqueue(h->hs, pkts, n);
	else
		ok = (uint32_t)rte_sched_port_enqueue(h->port, pkts, n);
	h->backlog += ok;
	ctr_add(&h->wc.enq_pkts, ok);
	if (ok < n)
		ctr_add(&h->wc.enq_drops, n - ok);
	return ok;
}

uint32_t
hqos_dequeue(struct hqos *h, struct rte_mbuf **pkts, uint32_t n)
{
	uint64_t now, elapsed, bytes = 0, cap;
	uint32_t k, i;

	/*
	 * Nothing queued: skip rte_sched, whose dequeue scans every subport
	 * even when all are empty (13 000 instructions a call at 16 subports).
	 * Its clock catches up at the next call; the pacer's credit is capped.
	 */
	if (h->backlog == 0)
		return 0;
	pace_take(h);
	now = rte_rdtsc();
	elapsed = now - h->pace_tsc;
	h->pace_tsc = now;
	if (elapsed > h->pace_max_cycles)
		elapsed = h->pace_max_cycles;
	h->pace_credit += (int64_t)(elapsed * h->pace_per_cycle);
	if (h->pace_credit > h->pace_depth)
		h->pace_credit = h->pace_depth;
	if (h->pace_credit <= 0) {
		ctr_add(&h->wc.pacer_waits, 1);
		return 0;
	}
	/* No more frames than the credit covers, plus one: the pacer overdraws by one
	 * frame at most, not by a batch, so its output is smooth to a frame (one
	 * division per call with a backlog). */
	cap = (uint64_t)h->pace_credit / ((uint64_t)h->frame_bytes << HQOS_PACE_SHIFT) + 1;
	if (n > cap)
		n = (uint32_t)cap;
	if (h->hs != NULL)
		k = hsched_dequeue(h->hs, pkts, n, now);
	else
		k = (uint32_t)rte_sched_port_dequeue(h->port, pkts, n);
	h->backlog -= k;
	for (i = 0; i < k; i++)
		bytes += pkts[i]->pkt_len + HQOS_FRAME_OVERHEAD;
	h->pace_credit -= (int64_t)(bytes << HQOS_PACE_SHIFT);
	if (k > 0) {
		ctr_add(&h->wc.deq_pkts, k);
		ctr_add(&h->wc.deq_wire_bytes, bytes);
	}
	return k;
}

/*
 * hsched: the hierarchical scheduler (hsched.h has the model).
 *
 * Units: a bucket holds tokens in bytes x hz (hz: TSC ticks a second). A
 * frame of b bytes costs (b + frame_overhead) x hz; dt TSC ticks at r bytes/s
 * earn dt x r. Depths are capped below 2^62 so neither side overflows.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#include "hsched.h"

#define MAX_UNITS (INT64_C(1) << 62)
#define BM_WORDS (HSCHED_MAX_PIPES_PER_SUBPORT / 64)

/* Per pipe, the hot line: what enqueue and dequeue touch for every frame. */
struct hs_pipe {
	int64_t tb;		   /* tokens, bytes x hz */
	uint64_t time;		   /* TSC of the last refill */
	uint8_t qr[HSCHED_QUEUES]; /* read positions (mod 256) */
	uint8_t qw[HSCHED_QUEUES]; /* write positions */
	uint16_t qmask;		   /* queues with frames */
	uint16_t prof;
	uint16_t wrr[HSCHED_BE_QUEUES]; /* WRR tokens of the best-effort queues */
	uint8_t pad[4];
} __rte_cache_aligned;

/* Per pipe, cold: capped classes' buckets and the drop counters. */
struct hs_pipe_cold {
	int64_t tc_tb[HSCHED_TCS];
	uint64_t tc_time[HSCHED_TCS];
	uint64_t drop_pkts;
	uint64_t drop_bytes;
};

struct hs_prof {
	uint64_t rate; /* bytes/s */
	int64_t depth; /* bytes x hz */
	uint64_t max_dt;
	uint16_t capped; /* classes with their own bucket */
	uint16_t wrr_cost[HSCHED_BE_QUEUES];
	uint64_t tc_rate[HSCHED_TCS];
	int64_t tc_depth[HSCHED_TCS];
	uint64_t tc_max_dt[HSCHED_TCS];
};

struct hs_sub {
	/* worker */
	int64_t tb;
	uint64_t time;
	uint64_t rate;
	int64_t depth;
	uint64_t max_dt;
	uint32_t cursor;   /* next pipe to visit */
	uint32_t n_active; /* pipes with frames */
	uint64_t summary;  /* bit w: bits[w] != 0 */
	uint64_t bits[BM_WORDS];
	struct hsched_subport_stats st;
	/* written by any thread (hsched_subport_rate_set) */
	uint64_t req_rate __rte_cache_aligned;
	uint64_t req_size;
};

struct hsched {
	struct hs_pipe *pipes;	   /* [n_sub * pps] */
	struct hs_pipe_cold *cold; /* [n_sub * pps] */
	struct rte_mbuf **queues;  /* [n_sub * pps * 16 * qsize] */
	struct hs_sub *subs;	   /* [n_sub] */
	struct hs_prof *prof;	   /* [n_prof] */
	uint64_t hz;
	uint64_t backlog;
	uint32_t n_sub;
	uint32_t pps_shift;
	uint32_t n_pipes;
	uint32_t qsize;
	uint32_t qshift;
	uint32_t fo;
	uint32_t n_prof;
	uint32_t sub_cursor;
	uint32_t n_active_sub;
	uint64_t sub_summary;
	uint64_t sub_bits[HSCHED_MAX_SUBPORTS / 64];
	uint64_t mem;
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
pow2(uint64_t v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

/* --- two-level bitmaps of at most 4096 bits --------------------------------- */

static inline void
bm_set(uint64_t *bits, uint64_t *summary, uint32_t i)
{
	bits[i >> 6] |= UINT64_C(1) << (i & 63);
	*summary |= UINT64_C(1) << (i >> 6);
}

static inline void
bm_clear(uint64_t *bits, uint64_t *summary, uint32_t i)
{
	bits[i >> 6] &= ~(UINT64_C(1) << (i & 63));
	if (bits[i >> 6] == 0)
		*summary &= ~(UINT64_C(1) << (i >> 6));
}

/* The first set bit at or after from, wrapping; the bitmap is not empty. */
static inline uint32_t
bm_next(const uint64_t *bits, uint64_t summary, uint32_t from)
{
	uint32_t w = from >> 6;
	uint64_t x, s;

	if (w < 64) {
		x = bits[w] & (~UINT64_C(0) << (from & 63));
		if (x != 0)
			return w << 6 | (uint32_t)__builtin_ctzll(x);
		s = w < 63 ? summary & (~UINT64_C(0) << (w + 1)) : 0;
		if (s != 0) {
			w = (uint32_t)__builtin_ctzll(s);
			return w << 6 | (uint32_t)__builtin_ctzll(bits[w]);
		}
	}
	w = (uint32_t)__builtin_ctzll(summary);
	return w << 6 | (uint32_t)__builtin_ctzll(bits[w]);
}

/* --- buckets -------------------------------------------------------------- */

static int64_t
units(uint64_t bytes, uint64_t hz)
{
	if (bytes >= (uint64_t)MAX_UNITS / hz)
		return MAX_UNITS;
	return (int64_t)(bytes * hz);
}

/* Ticks that fill an empty bucket: refills are capped at that, so dt x rate
 * never overflows. */
static uint64_t
fill_ticks(int64_t depth, uint64_t rate)
{
	return rate == 0 ? 0 : (uint64_t)depth / rate + 1;
}

static inline void
refill(int64_t *tb, uint64_t *time, uint64_t now, uint64_t rate, int64_t depth, uint64_t max_dt)
{
	uint64_t dt = now - *time;

	if (dt == 0 || (int64_t)dt < 0)
		return;
	*time = now;
	if (dt > max_dt)
		dt = max_dt;
	*tb += (int64_t)(dt * rate);
	if (*tb > depth)
		*tb = depth;
}

static uint32_t
gcd(uint32_t a, uint32_t b)
{
	while (b != 0) {
		uint32_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static int
prof_build(struct hs_prof *o, const struct rte_sched_pipe_params *p, uint64_t hz,
	   uint32_t max_frame)
{
	uint32_t lcm = 1, i;

	if (p->tb_rate == 0 || p->tb_size == 0 || p->tc_period == 0)
		return -EINVAL;
	memset(o, 0, sizeof(*o));
	o->rate = p->tb_rate;
	o->depth = units(p->tb_size, hz);
	o->max_dt = fill_ticks(o->depth, o->rate);
	for (i = 0; i < HSCHED_TCS; i++) {
		uint64_t r = p->tc_rate[i];

		if (r == 0)
			return -EINVAL;
		if (r >= p->tb_rate)
			continue;
		/* A bucket as deep in time as the pipe's (rte_sched resets a
		 * class's credit to tc_rate x tc_period every period instead: a
		 * period's burst at most; this bucket's burst is smaller). */
		o->capped |= (uint16_t)(1u << i);
		o->tc_rate[i] = r;
		o->tc_depth[i] = units(
			RTE_MAX((uint64_t)((double)p->tb_size * (double)r / (double)p->tb_rate),
				2 * (uint64_t)max_frame),
			hz);
		o->tc_max_dt[i] = fill_ticks(o->tc_depth[i], r);
	}
	for (i = 0; i < HSCHED_BE_QUEUES; i++) {
		uint32_t w = p->wrr_weights[i] ? p->wrr_weights[i] : 1;

		lcm = lcm / gcd(lcm, w) * w;
		if (lcm > 65535)
			return -EINVAL;
	}
	for (i = 0; i < HSCHED_BE_QUEUES; i++)
		o->wrr_cost[i] = (uint16_t)(lcm / (p->wrr_weights[i] ? p->wrr_weights[i] : 1));
	return 0;
}

/* --- create / free -------------------------------------------------------- */

static int
params_check(const struct hsched_params *p, char *err, size_t errlen)
{
	if (p->n_subports == 0 || p->n_subports > HSCHED_MAX_SUBPORTS) {
		errf(err, errlen, "hsched: %u subports (1..%u)", p->n_subports,
		     HSCHED_MAX_SUBPORTS);
		return -EINVAL;
	}
	if (!pow2(p->n_pipes_per_subport) ||
	    p->n_pipes_per_subport > HSCHED_MAX_PIPES_PER_SUBPORT) {
		errf(err, errlen, "hsched: %u pipes per subport (a power of two <= %u)",
		     p->n_pipes_per_subport, HSCHED_MAX_PIPES_PER_SUBPORT);
		return -EINVAL;
	}
	if (!pow2(p->qsize) || p->qsize < 2 || p->qsize > HSCHED_MAX_QSIZE) {
		errf(err, errlen, "hsched: qsize %u (a power of two, 2..%u; rte_sched takes more)",
		     p->qsize, HSCHED_MAX_QSIZE);
		return -EINVAL;
	}
	if (p->n_profiles == 0 || p->profiles == NULL || p->n_profiles > 65535) {
		errf(err, errlen, "hsched: %u pipe profiles (1..65535)", p->n_profiles);
		return -EINVAL;
	}
	if (p->subport_rate == 0 || p->subport_size == 0) {
		errf(err, errlen, "hsched: subport rate and size must be nonzero");
		return -EINVAL;
	}
	return 0;
}

uint64_t
hsched_memory_footprint(const struct hsched_params *p)
{
	uint64_t n;

	if (params_check(p, NULL, 0) != 0)
		return 0;
	n = (uint64_t)p->n_subports * p->n_pipes_per_subport;
	return sizeof(struct hsched) + n * sizeof(struct hs_pipe) +
	       n * sizeof(struct hs_pipe_cold) +
	       n * HSCHED_QUEUES * p->qsize * sizeof(struct rte_mbuf *) +
	       (uint64_t)p->n_subports * sizeof(struct hs_sub) +
	       (uint64_t)p->n_profiles * sizeof(struct hs_prof);
}

static void
sub_set(struct hsched *s, struct hs_sub *sb, uint64_t rate, uint64_t size)
{
	sb->rate = rate;
	sb->depth = units(size, s->hz);
	sb->max_dt = fill_ticks(sb->depth, rate);
	if (sb->tb > sb->depth)
		sb->tb = sb->depth;
}

struct hsched *
hsched_create(const struct hsched_params *p, char *err, size_t errlen)
{
	struct hsched *s;
	uint64_t n, now = rte_rdtsc();
	uint32_t i;
	int socket = p->socket;

	if (params_check(p, err, errlen) != 0)
		return NULL;
	s = rte_zmalloc_socket("hsched", sizeof(*s), RTE_CACHE_LINE_SIZE, socket);
	if (s == NULL)
		goto nomem;
	s->hz = rte_get_tsc_hz();
	s->n_sub = p->n_subports;
	s->pps_shift = (uint32_t)__builtin_ctz(p->n_pipes_per_subport);
	s->n_pipes = p->n_subports * p->n_pipes_per_subport;
	s->qsize = p->qsize;
	s->qshift = (uint32_t)__builtin_ctz(p->qsize);
	s->fo = p->frame_overhead;
	s->n_prof = p->n_profiles;
	n = s->n_pipes;
	s->pipes = rte_zmalloc_socket("hsched_pipes", n * sizeof(*s->pipes), RTE_CACHE_LINE_SIZE,
				      socket);
	s->cold = rte_zmalloc_socket("hsched_cold", n * sizeof(*s->cold), RTE_CACHE_LINE_SIZE,
				     socket);
	s->queues = rte_malloc_socket("hsched_queues",
				      n * HSCHED_QUEUES * p->qsize * sizeof(struct rte_mbuf *),
				      RTE_CACHE_LINE_SIZE, socket);
	s->subs = rte_zmalloc_socket("hsched_subs", p->n_subports * sizeof(*s->subs),
				     RTE_CACHE_LINE_SIZE, socket);
	s->prof = rte_zmalloc_socket("hsched_prof", p->n_profiles * sizeof(*s->prof),
				     RTE_CACHE_LINE_SIZE, socket);
	if (s->pipes == NULL || s->cold == NULL || s->queues == NULL || s->subs == NULL ||
	    s->prof == NULL)
		goto nomem;
	for (i = 0; i < p->n_profiles; i++) {
		if (prof_build(&s->prof[i], &p->profiles[i], s->hz, p->max_frame) != 0) {
			errf(err, errlen,
			     "hsched: pipe profile %u: zero rate, size or period, or WRR weights "
			     "whose lcm exceeds 65535",
			     i);
			hsched_free(s);
			return NULL;
		}
	}
	for (i = 0; i < s->n_sub; i++) {
		struct hs_sub *sb = &s->subs[i];

		sub_set(s, sb, p->subport_rate, p->subport_size);
		sb->tb = sb->depth;
		sb->time = now;
		sb->req_rate = p->subport_rate;
		sb->req_size = p->subport_size;
	}
	for (i = 0; i < n; i++) {
		s->pipes[i].tb = s->prof[0].depth;
		s->pipes[i].time = now;
	}
	s->mem = hsched_memory_footprint(p);
	return s;
nomem:
	errf(err, errlen, "hsched: out of memory (%u subports of %u pipes, qsize %u)",
	     p->n_subports, p->n_pipes_per_subport, p->qsize);
	hsched_free(s);
	return NULL;
}

static inline struct rte_mbuf **
qslot(const struct hsched *s, uint32_t pipe, uint32_t q, uint8_t pos)
{
	return &s->queues[((size_t)(pipe * HSCHED_QUEUES + q) << s->qshift) +
			  (pos & (s->qsize - 1))];
}

void
hsched_free(struct hsched *s)
{
	uint32_t i, q;

	if (s == NULL)
		return;
	if (s->pipes != NULL && s->queues != NULL) {
		for (i = 0; i < s->n_pipes; i++) {
			struct hs_pipe *pp = &s->pipes[i];

			for (q = 0; q < HSCHED_QUEUES; q++)
				for (; pp->qr[q] != pp->qw[q]; pp->qr[q]++)
					rte_pktmbuf_free(*qslot(s, i, q, pp->qr[q]));
		}
	}
	rte_free(s->pipes);
	rte_free(s->cold);
	rte_free(s->queues);
	rte_free(s->subs);
	rte_free(s->prof);
	rte_free(s);
}

/* --- configuration -------------------------------------------------------- */

int
hsched_pipe_config(struct hsched *s, uint32_t subport, uint32_t pipe, int32_t profile)
{
	uint32_t i = (subport << s->pps_shift) + pipe, c;
	struct hs_pipe *pp;
	const struct hs_prof *pr;
	uint64_t now = rte_rdtsc();

	if (subport >= s->n_sub || pipe >= (1u << s->pps_shift) ||
	    (profile >= 0 && (uint32_t)profile >= s->n_prof))
		return -EINVAL;
	if (profile < 0)
		profile = 0;
	pp = &s->pipes[i];
	pr = &s->prof[profile];
	pp->prof = (uint16_t)profile;
	pp->tb = pr->depth / 2; /* as rte_sched: half a bucket after configuration */
	pp->time = now;
	for (c = 0; c < HSCHED_TCS; c++) {
		s->cold[i].tc_tb[c] = pr->tc_depth[c] / 2;
		s->cold[i].tc_time[c] = now;
	}
	return 0;
}

int
hsched_subport_reset(struct hsched *s, uint32_t subport)
{
	struct hs_sub *sb;
	uint64_t rate;

	if (subport >= s->n_sub)
		return -EINVAL;
	sb = &s->subs[subport];
	rate = __atomic_load_n(&sb->req_rate, __ATOMIC_ACQUIRE);
	sub_set(s, sb, rate, __atomic_load_n(&sb->req_size, __ATOMIC_RELAXED));
	sb->tb = sb->depth / 2;
	sb->time = rte_rdtsc();
	return 0;
}

int
hsched_subport_rate_set(struct hsched *s, uint32_t subport, uint64_t rate, uint64_t size)
{
	struct hs_sub *sb;

	if (subport >= s->n_sub || rate == 0 || size == 0)
		return -EINVAL;
	sb = &s->subs[subport];
	/* Size first: a worker that sees the new rate (acquire) sees its size. */
	__atomic_store_n(&sb->req_size, size, __ATOMIC_RELAXED);
	__atomic_store_n(&sb->req_rate, rate, __ATOMIC_RELEASE);
	return 0;
}

/* --- enqueue -------------------------------------------------------------- */

static inline void
drop(struct hsched *s, struct rte_mbuf *m, uint32_t pipe, uint32_t tc)
{
	if (pipe < s->n_pipes) {
		struct hs_sub *sb = &s->subs[pipe >> s->pps_shift];

		sb->st.drop_pkts[tc]++;
		sb->st.drop_bytes[tc] += m->pkt_len;
		s->cold[pipe].drop_pkts++;
		s->cold[pipe].drop_bytes += m->pkt_len;
	}
	rte_pktmbuf_free(m);
}

uint32_t
hsched_enqueue(struct hsched *s, struct rte_mbuf **pkts, uint32_t n)
{
	uint32_t i, ok = 0;

	for (i = 0; i < n; i++) {
		uint32_t pipe = pkts[i]->hash.sched.queue_id >> 4;

		if (pipe < s->n_pipes)
			rte_prefetch0(&s->pipes[pipe]);
	}
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint32_t qid = m->hash.sched.queue_id, pipe = qid >> 4, q = qid & 15u;
		uint32_t tc = q < HSCHED_BE_TC ? q : HSCHED_BE_TC;
		struct hs_pipe *pp;
		struct hs_sub *sb;

		if (unlikely(pipe >= s->n_pipes)) {
			drop(s, m, pipe, tc);
			continue;
		}
		pp = &s->pipes[pipe];
		if (unlikely((uint8_t)(pp->qw[q] - pp->qr[q]) >= s->qsize)) {
			drop(s, m, pipe, tc);
			continue;
		}
		*qslot(s, pipe, q, pp->qw[q]) = m;
		pp->qw[q]++;
		sb = &s->subs[pipe >> s->pps_shift];
		if (!(pp->qmask & (1u << q))) {
			/* A best-effort queue that becomes active keeps its WRR tokens:
			 * wrr_charge() keeps them relative to the active queues' least
			 * (clamped at 0), so an idle queue gets no credit for its idle
			 * time, and one that empties after every frame cannot win every
			 * pick by starting from 0 again (which starved the others). */
			if (pp->qmask == 0) {
				bm_set(sb->bits, &sb->summary, pipe & ((1u << s->pps_shift) - 1));
				if (sb->n_active++ == 0) {
					bm_set(s->sub_bits, &s->sub_summary, pipe >> s->pps_shift);
					s->n_active_sub++;
				}
			}
			pp->qmask |= (uint16_t)(1u << q);
		}
		sb->st.pkts[tc]++;
		sb->st.bytes[tc] += m->pkt_len;
		ok++;
	}
	s->backlog += ok;
	return ok;
}

/* --- dequeue -------------------------------------------------------------- */

/* The best-effort queue (0..3) of the non-empty ones in be (4 bits) with the
 * fewest WRR tokens. */
static inline uint32_t
wrr_pick(const struct hs_pipe *pp, uint32_t be)
{
	uint32_t best = (uint32_t)__builtin_ctz(be), j;

	for (j = best + 1; j < HSCHED_BE_QUEUES; j++)
		if ((be >> j & 1) && pp->wrr[j] < pp->wrr[best])
			best = j;
	return best;
}

static inline void
wrr_charge(struct hs_pipe *pp, const struct hs_prof *pr, uint32_t j, uint32_t bytes, uint32_t be)
{
	uint32_t t = pp->wrr[j] + bytes * pr->wrr_cost[j], min = UINT32_MAX, k;

	pp->wrr[j] = (uint16_t)RTE_MIN(t, 65535u);
	if (be == 0) { /* no best-effort queue left: everyone starts level */
		for (k = 0; k < HSCHED_BE_QUEUES; k++)
			pp->wrr[k] = 0;
		return;
	}
	for (k = 0; k < HSCHED_BE_QUEUES; k++)
		if ((be >> k & 1) && pp->wrr[k] < min)
			min = pp->wrr[k];
	if (min > 0) /* the active queues' least goes to 0; idle ones follow, not below 0 */
		for (k = 0; k < HSCHED_BE_QUEUES; k++)
			pp->wrr[k] = (uint16_t)(pp->wrr[k] > min ? pp->wrr[k] - min : 0);
}

enum { SERVED = 1, PIPE_BLOCKED = 0, SUB_BLOCKED = -1 };

/* One frame of pipe i (the highest class whose buckets allow it). */
static inline int
pipe_serve(struct hsched *s, struct hs_sub *sb, uint32_t i, struct rte_mbuf **out, uint64_t now)
{
	struct hs_pipe *pp = &s->pipes[i];
	const struct hs_prof *pr = &s->prof[pp->prof];
	uint32_t mask = pp->qmask;

	refill(&pp->tb, &pp->time, now, pr->rate, pr->depth, pr->max_dt);
	while (mask != 0) {
		uint32_t q = (uint32_t)__builtin_ctz(mask), tc = q, be = 0, len;
		struct rte_mbuf *m;
		int64_t cost;

		if (q >= HSCHED_BE_TC) {
			be = mask >> HSCHED_BE_TC;
			q = HSCHED_BE_TC + wrr_pick(pp, be);
			tc = HSCHED_BE_TC;
		}
		m = *qslot(s, i, q, pp->qr[q]);
		len = m->pkt_len + s->fo;
		cost = (int64_t)len * (int64_t)s->hz;
		if (pp->tb < cost)
			return PIPE_BLOCKED;
		if (unlikely(pr->capped >> tc & 1)) {
			struct hs_pipe_cold *c = &s->cold[i];

			refill(&c->tc_tb[tc], &c->tc_time[tc], now, pr->tc_rate[tc],
			       pr->tc_depth[tc], pr->tc_max_dt[tc]);
			if (c->tc_tb[tc] < cost) {
				/* This class waits; a lower one may go (rte_sched too). */
				mask &= tc < HSCHED_BE_TC ? ~(1u << q) : 0x0fffu;
				continue;
			}
			if (sb->tb < cost)
				return SUB_BLOCKED;
			c->tc_tb[tc] -= cost;
		} else if (sb->tb < cost) {
			return SUB_BLOCKED;
		}
		pp->tb -= cost;
		sb->tb -= cost;
		*out = m;
		pp->qr[q]++;
		if (pp->qr[q] == pp->qw[q]) {
			pp->qmask &= (uint16_t) ~(1u << q);
			if (pp->qmask == 0) {
				bm_clear(sb->bits, &sb->summary, i & ((1u << s->pps_shift) - 1));
				sb->n_active--;
			}
		}
		if (tc == HSCHED_BE_TC)
			wrr_charge(pp, pr, q - HSCHED_BE_TC, len, pp->qmask >> HSCHED_BE_TC);
		return SERVED;
	}
	return PIPE_BLOCKED;
}

static uint32_t
sub_dequeue(struct hsched *s, uint32_t si, struct rte_mbuf **out, uint32_t n, uint64_t now)
{
	struct hs_sub *sb = &s->subs[si];
	uint32_t k = 0, idle = 0, base = si << s->pps_shift, mask = (1u << s->pps_shift) - 1;
	uint64_t rate = __atomic_load_n(&sb->req_rate, __ATOMIC_ACQUIRE);

	if (unlikely(rate != sb->rate))
		sub_set(s, sb, rate, __atomic_load_n(&sb->req_size, __ATOMIC_RELAXED));
	refill(&sb->tb, &sb->time, now, sb->rate, sb->depth, sb->max_dt);
	while (k < n && sb->n_active != 0) {
		uint32_t p = bm_next(sb->bits, sb->summary, sb->cursor), nx;
		int r;

		/* The pipe after this one: its line is on its way while this one is served. */
		nx = bm_next(sb->bits, sb->summary, (p + 1) & mask);
		rte_prefetch0(&s->pipes[base + nx]);
		r = pipe_serve(s, sb, base + p, &out[k], now);
		if (r == SUB_BLOCKED) {
			sb->cursor = p;
			break;
		}
		sb->cursor = (p + 1) & mask;
		if (r == SERVED) {
			k++;
			idle = 0;
		} else if (++idle >= sb->n_active) {
			break; /* every pipe with frames waits for its tokens */
		}
	}
	if (sb->n_active == 0) {
		bm_clear(s->sub_bits, &s->sub_summary, si);
		s->n_active_sub--;
	}
	return k;
}

uint32_t
hsched_dequeue(struct hsched *s, struct rte_mbuf **pkts, uint32_t n, uint64_t now)
{
	uint32_t k = 0, idle = 0;

	while (k < n && s->n_active_sub != 0) {
		uint32_t si = bm_next(s->sub_bits, s->sub_summary, s->sub_cursor), got;

		got = sub_dequeue(s, si, &pkts[k], n - k, now);
		s->sub_cursor = si + 1 < s->n_sub ? si + 1 : 0;
		k += got;
		if (got != 0)
			idle = 0;
		else if (++idle >= s->n_active_sub)
			break;
	}
	s->backlog -= k;
	return k;
}

/* --- stats ---------------------------------------------------------------- */

int
hsched_subport_read_stats(struct hsched *s, uint32_t subport, struct hsched_subport_stats *st)
{
	if (subport >= s->n_sub)
		return -EINVAL;
	*st = s->subs[subport].st;
	memset(&s->subs[subport].st, 0, sizeof(s->subs[subport].st));
	return 0;
}

int
hsched_pipe_read_drops(struct hsched *s, uint32_t subport, uint32_t pipe, uint64_t *pkts,
		       uint64_t *bytes)
{
	uint32_t i = (subport << s->pps_shift) + pipe;

	if (subport >= s->n_sub || pipe >= (1u << s->pps_shift))
		return -EINVAL;
	*pkts = s->cold[i].drop_pkts;
	*bytes = s->cold[i].drop_bytes;
	s->cold[i].drop_pkts = 0;
	s->cold[i].drop_bytes = 0;
	return 0;
}

uint64_t
hsched_backlog(const struct hsched *s)
{
	return s->backlog;
}

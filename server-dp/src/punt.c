/*
 * Punt policing (punt.h): GCRA token buckets per client and per line, class
 * thresholds on the punt ring.
 */

#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "punt.h"

const char *const punt_class_names[PUNT_NUM_CLASSES] = {
#define PUNT_CLASS_DEF(sym, name) [PUNT_##sym] = name,
#include "punt.def"
#undef PUNT_CLASS_DEF
};

const char *const punt_reason_names[PUNT_REASON_MAX] = {
#define PUNT_REASON_DEF(sym, name) [PUNT_##sym] = name,
#include "punt.def"
#undef PUNT_REASON_DEF
};

#define PUNT_MAX_MAC_BUCKETS (1u << 24)

void
punt_params_apply(struct punt_params *p, const struct dp_punt *c)
{
	static const int cls[DP_PUNT_CLASSES] = {
		[DP_PUNT_HIGH] = PUNT_HIGH,
		[DP_PUNT_MID] = PUNT_MID,
		[DP_PUNT_LOW] = PUNT_LOW,
	};

	for (int k = 0; k < DP_PUNT_CLASSES; k++) {
		const struct dp_punt_class_cfg *from = &c->cls[k];

		p->mac[cls[k]] = (struct punt_rate){from->client.rate, from->client.burst};
		p->line[cls[k]] = (struct punt_rate){from->line.rate, from->line.burst};
		p->ring_pct[cls[k]] = from->ring_percent;
	}
}

void
punt_params_default(struct punt_params *p)
{
	/* The configuration's defaults, so that a [punt] section left out and
	 * punt_create(NULL, ...) police alike. */
	static const struct dp_punt defaults = DP_PUNT_DEFAULTS;

	memset(p, 0, sizeof(*p));
	punt_params_apply(p, &defaults);
	p->mac_buckets = PUNT_DEFAULT_MAC_BUCKETS;
	p->redirect = PUNT_REDIRECT_ALL;
}

/* GCRA parameters of a bucket: emission interval and tolerance in TSC ticks. */
static int
punt_gcra_params(const struct punt_rate *r, uint64_t hz, uint64_t *t, uint64_t *tau)
{
	uint64_t burst = r->burst ? r->burst : 1;

	if (r->rate == 0) {
		*t = 0;
		*tau = 0;
		return 0;
	}
	if (r->rate > hz)
		return -EINVAL;
	*t = (hz + r->rate / 2) / r->rate;
	*tau = *t * (burst - 1);
	return 0;
}

struct punt *
punt_create(const struct punt_params *prm, struct rte_ring *ring, int socket)
{
	struct punt_params def;
	struct punt *p;
	uint64_t hz;
	uint32_t cap;
	int c;

	if (prm == NULL) {
		punt_params_default(&def);
		prm = &def;
	}
	if (ring == NULL || prm->mac_buckets == 0 || prm->mac_buckets > PUNT_MAX_MAC_BUCKETS ||
	    (prm->mac_buckets & (prm->mac_buckets - 1)) != 0)
		goto inval;
	hz = prm->tsc_hz ? prm->tsc_hz : rte_get_tsc_hz();
	p = rte_zmalloc_socket("punt", sizeof(*p), RTE_CACHE_LINE_SIZE, socket);
	if (p == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	p->ring = ring;
	p->redirect = prm->redirect & PUNT_REDIRECT_ALL;
	p->mac_mask = prm->mac_buckets - 1;
	p->seed = prm->hash_seed ? prm->hash_seed : rte_rand();
	cap = rte_ring_get_capacity(ring);
	for (c = 0; c < PUNT_NUM_CLASSES; c++) {
		if (prm->ring_pct[c] < 1 || prm->ring_pct[c] > 100 ||
		    punt_gcra_params(&prm->mac[c], hz, &p->mac_t[c], &p->mac_tau[c]) != 0 ||
		    punt_gcra_params(&prm->line[c], hz, &p->line_t[c], &p->line_tau[c]) != 0) {
			rte_free(p);
			goto inval;
		}
		/* 100% = no threshold: only a full ring refuses. */
		p->ring_thr[c] = prm->ring_pct[c] == 100
					 ? UINT32_MAX
					 : (uint32_t)((uint64_t)cap * prm->ring_pct[c] / 100);
	}
	p->mac_tat = rte_zmalloc_socket("punt_mac",
					sizeof(uint64_t) * PUNT_NUM_CLASSES * prm->mac_buckets,
					RTE_CACHE_LINE_SIZE, socket);
	if (p->mac_tat == NULL) {
		rte_free(p);
		rte_errno = ENOMEM;
		return NULL;
	}
	return p;
inval:
	rte_errno = EINVAL;
	return NULL;
}

void
punt_free(struct punt *p)
{
	if (p == NULL)
		return;
	rte_free(p->mac_tat);
	rte_free(p);
}

void
punt_set_classes(struct punt *p, uint32_t mask)
{
	__atomic_store_n(&p->redirect, mask & PUNT_REDIRECT_ALL, __ATOMIC_RELEASE);
}

uint32_t
punt_get_classes(const struct punt *p)
{
	return __atomic_load_n(&p->redirect, __ATOMIC_ACQUIRE);
}

void
punt_counters_get(const struct punt *p, struct punt_counters *out)
{
	const uint64_t *src = (const uint64_t *)&p->cnt;
	uint64_t *dst = (uint64_t *)out;

	for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

/* A bijective 64-bit mixer (the splitmix64 finalizer constants). */
static inline uint64_t
punt_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/*
 * Keyed in two rounds: the MAC is mixed with the secret first, so that the
 * tags cannot be used to cancel MAC bits (a plain XOR of both into one word
 * would let a CPE pick a MAC that collides with a neighbour on another tag).
 */
static inline uint32_t
punt_slot(const struct punt *p, uint16_t stag, uint16_t ctag, uint64_t mac)
{
	uint64_t h = punt_mix(mac ^ p->seed);

	h = punt_mix(h ^ ((uint64_t)stag << 12 | ctag));
	return (uint32_t)(h >> 32) & p->mac_mask;
}

uint32_t
punt_client_slot(const struct punt *p, uint16_t stag, uint16_t ctag, const uint8_t *mac)
{
	return punt_slot(p, stag, ctag, mac_key(mac));
}

/* GCRA: 1 and the new arrival time in *next when a frame at now conforms. */
static inline int
punt_gcra(uint64_t tat, uint64_t now, uint64_t t, uint64_t tau, uint64_t *next)
{
	uint64_t start = tat > now ? tat : now;

	if (t == 0) {
		*next = tat;
		return 1;
	}
	if (start - now > tau)
		return 0;
	*next = start + t;
	return 1;
}

static inline int
punt_refuse(struct punt *p, int cls, enum punt_reason why, int err)
{
	p->cnt.c[cls][why]++;
	return err;
}

int
punt_enqueue(struct punt *p, struct rte_mbuf *m, const struct cls_result *r, uint64_t now_tsc)
{
	const uint8_t *frame = rte_pktmbuf_mtod(m, const uint8_t *);
	uint64_t *mt, *lt, mac_next, line_next;
	uint32_t bit;
	int cls;

	/* The frame must hold the QinQ header (source MAC) and what the class reads. */
	if (r->line >= DP_MAX_LINES || rte_pktmbuf_data_len(m) < 22 ||
	    rte_pktmbuf_data_len(m) <= r->l3_off + 1u ||
	    (cls = punt_class_of(r, frame, &bit)) < 0) {
		p->cnt.invalid++;
		return -EINVAL;
	}
	if (!(__atomic_load_n(&p->redirect, __ATOMIC_ACQUIRE) & bit))
		return punt_refuse(p, cls, PUNT_NOT_REDIRECTED, -EPERM);
	mt = &p->mac_tat[punt_slot(p, r->stag, r->ctag, mac_key(frame + 6))][cls];
	if (!punt_gcra(*mt, now_tsc, p->mac_t[cls], p->mac_tau[cls], &mac_next))
		return punt_refuse(p, cls, PUNT_POLICED_MAC, -EBUSY);
	lt = &p->line_tat[r->line][cls];
	if (!punt_gcra(*lt, now_tsc, p->line_t[cls], p->line_tau[cls], &line_next))
		return punt_refuse(p, cls, PUNT_POLICED_LINE, -EBUSY);
	if (rte_ring_count(p->ring) >= p->ring_thr[cls] || rte_ring_enqueue(p->ring, m) != 0)
		return punt_refuse(p, cls, PUNT_RING_FULL, -ENOBUFS);
	*mt = mac_next;
	*lt = line_next;
	p->cnt.c[cls][PUNT_ADMITTED]++;
	return 0;
}

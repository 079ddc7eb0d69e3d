/*
 * bng-dp neighbour table: ARP on the core side (neigh.h). Control thread.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_telemetry.h>

#include "neigh.h"

#define ARP_OP_REQUEST 1
#define ARP_OP_REPLY 2
#define WANT_DRAIN 64

const char *const neigh_state_names[NEIGH_STATE_MAX] = {
#define NEIGH_STATE_DEF(sym, name) [NEIGH_##sym] = name,
#include "neigh.def"
#undef NEIGH_STATE_DEF
};

const char *const neigh_ignore_names[NEIGH_IGN_MAX] = {
#define NEIGH_IGNORE_DEF(sym, name) [NEIGH_IGN_##sym] = name,
#include "neigh.def"
#undef NEIGH_IGNORE_DEF
};

/* --- helpers ------------------------------------------------------------- */

static uint32_t
be32_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void
put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void
put_mac(uint8_t *p, uint64_t key)
{
	neigh_mac_bytes(key, p);
}

/* A host of the core subnet: inside it, and not its network/broadcast address below /31. */
static int
neigh_in_subnet(const struct neigh_table *t, uint32_t ip)
{
	if ((ip & t->mask) != t->subnet)
		return 0;
	if (t->plen >= 31)
		return 1;
	return ip != t->subnet && ip != (t->subnet | ~t->mask);
}

/* The group owning ip, or -1. */
static int
neigh_own_group(const struct neigh_table *t, uint32_t ip)
{
	uint32_t lo = 0, n = t->n_own, half;

	if (n == 0)
		return -1;
	while (n > 1) {
		half = n / 2;
		if (t->own[lo + half].ip <= ip)
			lo += half;
		n -= half;
	}
	return t->own[lo].ip == ip ? t->own[lo].group : -1;
}

static int
neigh_own_mac(const struct neigh_table *t, uint64_t key)
{
	for (unsigned int k = 0; k < t->n_own; k++)
		if (mac_key(t->core_mac[t->own[k].group]) == key)
			return 1;
	return 0;
}

static struct neigh_slot *
slot_of(struct neigh_table *t, unsigned int i)
{
	return &t->buckets[i / NEIGH_WAYS].s[i % NEIGH_WAYS];
}

static void
slot_set_word(struct neigh_table *t, unsigned int i, uint64_t w)
{
	__atomic_store_n(&slot_of(t, i)->word, w, __ATOMIC_RELEASE);
}

static uint64_t
slot_word(struct neigh_table *t, unsigned int i)
{
	return __atomic_load_n(&slot_of(t, i)->word, __ATOMIC_RELAXED);
}

/* Index of ip's slot, or -1. */
static int
neigh_find(struct neigh_table *t, uint32_t ip)
{
	unsigned int b = ip & (NEIGH_BUCKETS - 1);

	for (unsigned int w = 0; w < NEIGH_WAYS; w++)
		if ((uint32_t)t->buckets[b].s[w].key == ip &&
		    t->entries[b * NEIGH_WAYS + w].state != NEIGH_FREE)
			return (int)(b * NEIGH_WAYS + w);
	return -1;
}

static void
neigh_schedule(struct neigh_table *t, unsigned int i, uint64_t at)
{
	t->entries[i].next_ms = at;
	if (at < t->next_due_ms)
		t->next_due_ms = at;
}

static void
neigh_set_state(struct neigh_table *t, unsigned int i, enum neigh_state s, uint64_t now)
{
	t->entries[i].state = (uint8_t)s;
	t->entries[i].since_ms = now;
	t->entries[i].probes = 0;
}

static uint32_t
slot_ip(struct neigh_table *t, unsigned int i)
{
	return (uint32_t)slot_of(t, i)->key;
}

/* Free slot i: the MAC goes first, then the address; the generation stays. */
static void
neigh_release(struct neigh_table *t, unsigned int i)
{
	struct neigh_slot *s = slot_of(t, i);

	slot_set_word(t, i, 0);
	__atomic_store_n(&s->key, s->key & ~(uint64_t)UINT32_MAX, __ATOMIC_RELEASE);
	memset(&t->entries[i], 0, sizeof(t->entries[i]));
}

/*
 * A slot for a new address ip: a free one of its bucket, else the oldest
 * FAILED, else the oldest STALE. -1 when every slot is busy.
 */
static int
neigh_alloc(struct neigh_table *t, uint32_t ip, uint64_t now)
{
	unsigned int b = ip & (NEIGH_BUCKETS - 1), i;
	int pick = -1, pick_rank = 0;
	uint64_t pick_since = 0;

	for (unsigned int w = 0; w < NEIGH_WAYS; w++) {
		const struct neigh_entry *e = &t->entries[b * NEIGH_WAYS + w];
		int rank = e->state == NEIGH_FREE     ? 3
			   : e->state == NEIGH_FAILED ? 2
			   : e->state == NEIGH_STALE  ? 1
						      : 0;

		if (rank > pick_rank ||
		    (rank == pick_rank && rank > 0 && e->since_ms < pick_since)) {
			pick = (int)(b * NEIGH_WAYS + w);
			pick_rank = rank;
			pick_since = e->since_ms;
		}
	}
	if (pick < 0) {
		t->st.table_full++;
		return -1;
	}
	i = (unsigned int)pick;
	if (t->entries[i].state != NEIGH_FREE) {
		t->st.evictions++;
		neigh_release(t, i);
	}
	/* word is 0 here; the address, with a new generation, becomes visible
	 * before any MAC. */
	__atomic_store_n(&slot_of(t, i)->key, ((slot_of(t, i)->key >> 32) + 1) << 32 | ip,
			 __ATOMIC_RELEASE);
	neigh_set_state(t, i, NEIGH_INCOMPLETE, now);
	return pick;
}

/* Interval after the n-th request of a round (n >= 1). */
static uint64_t
neigh_interval(const struct neigh_params *p, unsigned int n)
{
	uint64_t v;

	if (n < NEIGH_FAST_PROBES)
		return p->retry_ms;
	if (n - NEIGH_FAST_PROBES + 1 >= 32)
		return p->retry_max_ms;
	v = (uint64_t)p->retry_ms << (n - NEIGH_FAST_PROBES + 1);
	return v < p->retry_max_ms ? v : p->retry_max_ms;
}

/* When a REACHABLE entry confirmed at c starts its refresh or usage check. */
static uint64_t
neigh_refresh_at(const struct neigh_params *p, uint64_t c)
{
	return c + p->reachable_ms - p->refresh_lead_ms;
}

/* --- frames --------------------------------------------------------------- */

/* Ethernet (+ core VLAN) + ARP, padded to NEIGH_FRAME_LEN. */
static uint16_t
neigh_build(const struct neigh_table *t, uint8_t *f, uint64_t eth_dst, uint64_t eth_src,
	    uint16_t op, uint64_t sha, uint32_t spa, uint64_t tha, uint32_t tpa)
{
	uint8_t *a;

	memset(f, 0, NEIGH_FRAME_LEN);
	put_mac(f, eth_dst);
	put_mac(f + 6, eth_src);
	if (t->vlan != 0) {
		put_be16(f + 12, CLS_ETH_VLAN);
		put_be16(f + 14, t->vlan);
		put_be16(f + 16, CLS_ETH_ARP);
		a = f + 18;
	} else {
		put_be16(f + 12, CLS_ETH_ARP);
		a = f + 14;
	}
	put_be16(a, 1);
	put_be16(a + 2, CLS_ETH_IPV4);
	a[4] = 6;
	a[5] = 4;
	put_be16(a + 6, op);
	put_mac(a + 8, sha);
	put_be32(a + 14, spa);
	put_mac(a + 18, tha);
	put_be32(a + 24, tpa);
	return NEIGH_FRAME_LEN;
}

static void
neigh_send(struct neigh_table *t, neigh_send_fn send, void *arg, const uint8_t *f, uint16_t len)
{
	if (send(arg, f, len) != 0)
		t->st.send_failed++;
}

/* An ARP request for ip from the first group: broadcast, or unicast to mac. */
static void
neigh_request(struct neigh_table *t, uint32_t ip, uint64_t mac, neigh_send_fn send, void *arg)
{
	uint8_t f[NEIGH_FRAME_LEN];
	uint64_t src;
	uint16_t len;

	if (t->n_own == 0)
		return;
	src = mac_key(t->core_mac[t->first_own]);
	len = neigh_build(t, f, mac != 0 ? mac : CLS_MAC_BCAST, src, ARP_OP_REQUEST, src,
			  t->core_addr[t->first_own], 0, ip);
	t->st.requests_sent++;
	if (mac != 0)
		t->st.refreshes_sent++;
	neigh_send(t, send, arg, f, len);
}

/* --- create / free ---------------------------------------------------------- */

void
neigh_params_default(struct neigh_params *p)
{
	p->reachable_ms = NEIGH_DEFAULT_REACHABLE_MS;
	p->refresh_lead_ms = NEIGH_DEFAULT_REFRESH_LEAD_MS;
	p->retry_ms = NEIGH_DEFAULT_RETRY_MS;
	p->retry_max_ms = NEIGH_DEFAULT_RETRY_MAX_MS;
	p->max_probes = NEIGH_DEFAULT_MAX_PROBES;
	p->failed_hold_ms = NEIGH_DEFAULT_FAILED_HOLD_MS;
	p->garp_count = NEIGH_DEFAULT_GARP_COUNT;
	p->garp_interval_ms = NEIGH_DEFAULT_GARP_INTERVAL_MS;
}

int
neigh_set_params(struct neigh_table *t, const struct neigh_params *p)
{
	if (p->reachable_ms == 0 || p->retry_ms == 0 || p->retry_max_ms < p->retry_ms ||
	    p->max_probes == 0 || p->max_probes > 255 || p->refresh_lead_ms >= p->reachable_ms)
		return -EINVAL;
	t->params = *p;
	return 0;
}

static int
own_cmp(const void *a, const void *b)
{
	const struct neigh_own *x = a, *y = b;

	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

struct neigh_table *
neigh_create(const struct dp_config *cfg, int socket)
{
	static unsigned int seq;
	unsigned int id = __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED);
	char name[RTE_RING_NAMESIZE];
	struct neigh_table *t;
	int i;

	t = rte_zmalloc_socket("neigh_table", sizeof(*t), RTE_CACHE_LINE_SIZE, socket);
	if (t == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	snprintf(name, sizeof(name), "neigh_want%u", id);
	t->want_ring = rte_ring_create_elem(name, sizeof(uint32_t), NEIGH_WANT_RING_SIZE, socket,
					    RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (t->want_ring == NULL) {
		rte_free(t);
		rte_errno = ENOMEM;
		return NULL;
	}
	neigh_params_default(&t->params);
	t->epoch = 1;
	t->plen = cfg->core.subnet.len;
	t->mask = t->plen == 0 ? 0 : 0xffffffffu << (32 - t->plen);
	t->subnet = cfg->core.subnet.addr & t->mask;
	t->vlan = cfg->core.vlan;
	t->router = cfg->core.router_address;
	neigh_set_own(t, cfg);
	t->garp_left = t->params.garp_count;
	t->next_due_ms = UINT64_MAX;
	if (!neigh_in_subnet(t, t->router) || neigh_own_group(t, t->router) >= 0) {
		neigh_free(t);
		rte_errno = EINVAL;
		return NULL;
	}
	i = neigh_alloc(t, t->router, 0);
	t->entries[i].pinned = 1;
	neigh_schedule(t, (unsigned int)i, 0);
	return t;
}

void
neigh_free(struct neigh_table *t)
{
	if (t == NULL)
		return;
	rte_ring_free(t->want_ring);
	rte_free(t);
}

/* --- learning and answering ------------------------------------------------ */

/*
 * An ARP packet from (spa, sha): update spa's entry, or create it when
 * create is set. 1 when an entry was created or updated.
 */
static int
neigh_learn(struct neigh_table *t, uint32_t spa, uint64_t sha, int create, uint64_t now)
{
	int i = neigh_find(t, spa);
	uint64_t old;

	if (i < 0) {
		if (!create)
			return 0;
		i = neigh_alloc(t, spa, now);
		if (i < 0)
			return 0;
	}
	old = slot_word(t, (unsigned int)i) & NEIGH_MAC_MASK;
	if (old != 0 && old != sha)
		t->st.mac_changes++;
	slot_set_word(t, (unsigned int)i, sha);
	neigh_set_state(t, (unsigned int)i, NEIGH_REACHABLE, now);
	t->entries[i].confirmed_ms = now;
	neigh_schedule(t, (unsigned int)i, neigh_refresh_at(&t->params, now));
	return 1;
}

static int
neigh_ignore(struct neigh_table *t, enum neigh_ignore why)
{
	t->st.ignored[why]++;
	return NEIGH_ARP_IGNORED;
}

int
neigh_arp_input(struct neigh_table *t, const uint8_t *frame, uint16_t len,
		const struct cls_result *r, uint64_t now_ms, uint8_t *reply, uint16_t *reply_len)
{
	const uint8_t *a;
	uint64_t sha;
	uint32_t spa, tpa;
	uint16_t op;
	int g, req_for_us;

	*reply_len = 0;
	t->st.arp_in++;
	if (r->kind != CLS_CORE_ARP || (uint32_t)r->l3_off + NEIGH_ARP_LEN > len || r->l3_off < 14)
		return neigh_ignore(t, NEIGH_IGN_SHORT);
	a = frame + r->l3_off;
	if (cls_be16(a) != 1 || cls_be16(a + 2) != CLS_ETH_IPV4 || a[4] != 6 || a[5] != 4)
		return neigh_ignore(t, NEIGH_IGN_FORMAT);
	op = cls_be16(a + 6);
	if (op != ARP_OP_REQUEST && op != ARP_OP_REPLY)
		return neigh_ignore(t, NEIGH_IGN_OP);
	sha = mac_key(a + 8);
	spa = be32_at(a + 14);
	tpa = be32_at(a + 24);
	if (sha == 0 || (a[8] & 0x01))
		return neigh_ignore(t, NEIGH_IGN_SENDER_MAC);
	if (mac_key(frame + 6) != sha)
		return neigh_ignore(t, NEIGH_IGN_SHA_MISMATCH);
	if (neigh_own_mac(t, sha))
		return neigh_ignore(t, NEIGH_IGN_OWN_MAC);
	g = neigh_own_group(t, tpa);
	req_for_us = op == ARP_OP_REQUEST && g >= 0;
	if (spa == 0) {
		/* RFC 5227 probe: answer so the prober sees the address is taken. */
		if (!req_for_us)
			return neigh_ignore(t, NEIGH_IGN_SENDER_ADDRESS);
		*reply_len = neigh_build(t, reply, sha, mac_key(t->core_mac[g]), ARP_OP_REPLY,
					 mac_key(t->core_mac[g]), tpa, sha, 0);
		t->st.requests_answered++;
		t->st.probes_answered++;
		return NEIGH_ARP_REPLY;
	}
	if (neigh_own_group(t, spa) >= 0)
		return neigh_ignore(t, NEIGH_IGN_OWN_ADDRESS);
	if (!neigh_in_subnet(t, spa))
		return neigh_ignore(t, NEIGH_IGN_SENDER_ADDRESS);
	if (neigh_learn(t, spa, sha, req_for_us, now_ms)) {
		if (op == ARP_OP_REPLY)
			t->st.learnt_replies++;
		else
			t->st.learnt_requests++;
	} else if (!req_for_us) {
		return neigh_ignore(t, op == ARP_OP_REPLY ? NEIGH_IGN_UNSOLICITED
							  : NEIGH_IGN_NOT_FOR_US);
	}
	if (!req_for_us)
		return NEIGH_ARP_LEARNT;
	*reply_len = neigh_build(t, reply, sha, mac_key(t->core_mac[g]), ARP_OP_REPLY,
				 mac_key(t->core_mac[g]), tpa, sha, spa);
	t->st.requests_answered++;
	return NEIGH_ARP_REPLY;
}

/* --- timers ------------------------------------------------------------------ */

/*
 * A pinned address still unresolved whose next retry is not due at `at`: ask
 * at `at`, the retry schedule starting over. The worker wants an address at
 * most once per NEIGH_WANT_EPOCH_MS, so this adds at most one request a second.
 */
static void
neigh_reprobe(struct neigh_table *t, unsigned int i, uint64_t at)
{
	struct neigh_entry *e = &t->entries[i];

	if (e->state != NEIGH_INCOMPLETE || !e->pinned || e->next_ms <= at)
		return;
	e->probes = 0;
	neigh_schedule(t, i, at);
}

static void
neigh_want_in(struct neigh_table *t, uint32_t ip, uint64_t now)
{
	struct neigh_entry *e;
	int i;

	t->st.wants++;
	if (!neigh_in_subnet(t, ip) || neigh_own_group(t, ip) >= 0) {
		t->st.wants_invalid++;
		return;
	}
	i = neigh_find(t, ip);
	if (i < 0) {
		i = neigh_alloc(t, ip, now);
		if (i < 0)
			return;
		t->entries[i].wanted_ms = now;
		neigh_schedule(t, (unsigned int)i, now);
		return;
	}
	e = &t->entries[i];
	e->wanted_ms = now;
	switch (e->state) {
	case NEIGH_STALE:
		/* Still used: refresh it, keeping the MAC. */
		slot_set_word(t, (unsigned int)i, slot_word(t, (unsigned int)i) & NEIGH_MAC_MASK);
		neigh_set_state(t, (unsigned int)i, NEIGH_PROBE, now);
		neigh_schedule(t, (unsigned int)i, now);
		break;
	case NEIGH_INCOMPLETE:
		/* At work; a packet waiting for the router does not wait for the backoff. */
		neigh_reprobe(t, (unsigned int)i, now);
		break;
	default:
		/* PROBE: already at work; REACHABLE: nothing to do;
		 * FAILED: held until failed_hold_ms, then freed. */
		break;
	}
}

/*
 * Run the timer of entry i at now. A transition that has something to send
 * at once (REACHABLE -> PROBE, PROBE -> INCOMPLETE) runs the new state's
 * timer in the same call.
 */
static void
neigh_timer(struct neigh_table *t, unsigned int i, uint64_t now, neigh_send_fn send, void *arg)
{
	struct neigh_entry *e = &t->entries[i];
	const struct neigh_params *p = &t->params;
	uint32_t ip = slot_ip(t, i);
	uint64_t expiry, mac;

	for (;;) {
		switch (e->state) {
		case NEIGH_INCOMPLETE:
			if (!e->pinned && e->probes >= p->max_probes) {
				neigh_set_state(t, i, NEIGH_FAILED, now);
				t->st.resolutions_failed++;
				neigh_schedule(t, i, now + p->failed_hold_ms);
				return;
			}
			if (e->probes > 0)
				t->st.retries++;
			neigh_request(t, ip, 0, send, arg);
			if (e->probes < 255)
				e->probes++;
			neigh_schedule(t, i, now + neigh_interval(p, e->probes));
			return;
		case NEIGH_REACHABLE:
			if (e->pinned) {
				neigh_set_state(t, i, NEIGH_PROBE, now);
				continue;
			}
			/* Ask the worker whether it still uses the MAC. */
			slot_set_word(t, i, slot_word(t, i) | NEIGH_WORD_CHECK);
			neigh_set_state(t, i, NEIGH_STALE, now);
			neigh_schedule(t, i, e->confirmed_ms + p->reachable_ms);
			return;
		case NEIGH_STALE:
			t->st.expired_unused++;
			neigh_release(t, i);
			return;
		case NEIGH_PROBE:
			expiry = e->confirmed_ms + p->reachable_ms;
			if (now >= expiry) {
				t->st.aged_out++;
				slot_set_word(t, i, 0);
				if (e->pinned) {
					neigh_set_state(t, i, NEIGH_INCOMPLETE, now);
					continue;
				}
				neigh_set_state(t, i, NEIGH_FAILED, now);
				neigh_schedule(t, i, now + p->failed_hold_ms);
				return;
			}
			if (e->probes > 0)
				t->st.retries++;
			mac = slot_word(t, i) & NEIGH_MAC_MASK;
			neigh_request(t, ip, mac, send, arg);
			if (e->probes < 255)
				e->probes++;
			neigh_schedule(t, i, RTE_MIN(now + neigh_interval(p, e->probes), expiry));
			return;
		case NEIGH_FAILED:
			neigh_release(t, i);
			return;
		default:
			return;
		}
	}
}

static void
neigh_garp(struct neigh_table *t, neigh_send_fn send, void *arg)
{
	uint8_t f[NEIGH_FRAME_LEN];
	uint16_t len;

	for (unsigned int k = 0; k < t->n_own; k++) {
		unsigned int g = t->own[k].group;
		uint64_t mac = mac_key(t->core_mac[g]);

		len = neigh_build(t, f, CLS_MAC_BCAST, mac, ARP_OP_REQUEST, mac, t->core_addr[g], 0,
				  t->core_addr[g]);
		t->st.gratuitous_sent++;
		neigh_send(t, send, arg, f, len);
	}
}

void
neigh_set_own(struct neigh_table *t, const struct dp_config *cfg)
{
	bool first = true;

	t->n_own = 0;
	t->first_own = 0;
	for (unsigned int g = 0; g < cfg->n_line_groups && g < DP_MAX_LINE_GROUPS; g++) {
		t->core_addr[g] = cfg->line_groups[g].core_address;
		memcpy(t->core_mac[g], cfg->line_groups[g].core_mac, 6);
		if (cfg->line_groups[g].standby)
			continue;
		if (first)
			t->first_own = (uint16_t)g;
		first = false;
		t->own[t->n_own].ip = cfg->line_groups[g].core_address;
		t->own[t->n_own].group = (uint16_t)g;
		t->n_own++;
	}
	qsort(t->own, t->n_own, sizeof(t->own[0]), own_cmp);
}

void
neigh_announce(struct neigh_table *t)
{
	t->garp_left = t->params.garp_count;
	t->garp_next_ms = 0;
	for (unsigned int i = 0; i < NEIGH_CAPACITY; i++)
		neigh_reprobe(t, i, 0);
}

void
neigh_tick(struct neigh_table *t, uint64_t now_ms, neigh_send_fn send, void *arg)
{
	uint32_t ips[WANT_DRAIN];
	unsigned int n, k;
	uint64_t due;

	if (now_ms >= t->epoch_next_ms) {
		__atomic_store_n(&t->epoch, t->epoch + 1, __ATOMIC_RELAXED);
		t->epoch_next_ms = now_ms + NEIGH_WANT_EPOCH_MS;
	}
	/* Bounded: at most the ring's size per tick. */
	for (k = 0; k < NEIGH_WANT_RING_SIZE; k += n) {
		n = rte_ring_sc_dequeue_burst_elem(t->want_ring, ips, sizeof(ips[0]), WANT_DRAIN,
						   NULL);
		if (n == 0)
			break;
		for (unsigned int j = 0; j < n; j++)
			neigh_want_in(t, ips[j], now_ms);
	}
	if (t->garp_left > 0 && now_ms >= t->garp_next_ms) {
		neigh_garp(t, send, arg);
		t->garp_left--;
		t->garp_next_ms = now_ms + t->params.garp_interval_ms;
	}
	if (now_ms < t->next_due_ms)
		return;
	/* Timers may schedule more timers; each entry fires at most once per tick. */
	t->next_due_ms = UINT64_MAX;
	due = UINT64_MAX;
	for (unsigned int i = 0; i < NEIGH_CAPACITY; i++) {
		struct neigh_entry *e = &t->entries[i];

		if (e->state == NEIGH_FREE)
			continue;
		if (e->next_ms <= now_ms)
			neigh_timer(t, i, now_ms, send, arg);
		if (e->state != NEIGH_FREE && e->next_ms < due)
			due = e->next_ms;
	}
	if (due < t->next_due_ms)
		t->next_due_ms = due;
}

/* --- telemetry ------------------------------------------------------------ */

unsigned int
neigh_list(const struct neigh_table *t, uint64_t now_ms, struct neigh_info *out, unsigned int max)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < NEIGH_CAPACITY; i++) {
		const struct neigh_entry *e = &t->entries[i];
		const struct neigh_slot *s = &t->buckets[i / NEIGH_WAYS].s[i % NEIGH_WAYS];
		uint8_t state = __atomic_load_n(&e->state, __ATOMIC_RELAXED);
		uint64_t c;

		if (state == NEIGH_FREE)
			continue;
		if (n < max) {
			struct neigh_info *o = &out[n];

			o->ip = (uint32_t)__atomic_load_n(&s->key, __ATOMIC_RELAXED);
			o->state = state;
			o->pinned = e->pinned;
			o->probes = e->probes;
			o->pad = 0;
			o->mac = __atomic_load_n(&s->word, __ATOMIC_RELAXED) & NEIGH_MAC_MASK;
			c = __atomic_load_n(&e->confirmed_ms, __ATOMIC_RELAXED);
			o->age_ms = o->mac == 0 ? UINT64_MAX : now_ms >= c ? now_ms - c : 0;
		}
		n++;
	}
	return n;
}

void
neigh_counters_get(const struct neigh_table *t, struct neigh_counters *out)
{
	*out = t->st;
	out->wants_dropped = __atomic_load_n(&t->wants_dropped, __ATOMIC_RELAXED);
}

static void
fmt_ip(char *b, size_t n, uint32_t ip)
{
	snprintf(b, n, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 0xff, (ip >> 8) & 0xff, ip & 0xff);
}

static void
fmt_mac(char *b, size_t n, uint64_t k)
{
	uint8_t m[6];

	neigh_mac_bytes(k, m);
	snprintf(b, n, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

/* "a.b.c.d" strictly (no sign, no leading zero, 4 parts of 0..255). */
static int
parse_ip(const char *s, uint32_t *ip)
{
	uint32_t v = 0, part;
	int parts = 0;

	while (parts < 4) {
		if (*s < '0' || *s > '9')
			return -1;
		if (*s == '0' && s[1] >= '0' && s[1] <= '9')
			return -1;
		for (part = 0; *s >= '0' && *s <= '9'; s++) {
			part = part * 10 + (uint32_t)(*s - '0');
			if (part > 255)
				return -1;
		}
		v = v << 8 | part;
		if (++parts < 4 && *s++ != '.')
			return -1;
	}
	if (*s != '\0')
		return -1;
	*ip = v;
	return 0;
}

int
neigh_telemetry(const struct neigh_table *t, uint64_t now_ms, const char *params,
		struct rte_tel_data *d)
{
	struct neigh_info info[NEIGH_TEL_MAX_LIST];
	struct neigh_counters c;
	char ip[16], mac[18], line[RTE_TEL_MAX_STRING_LEN];
	struct rte_tel_data *list;
	unsigned int n, i;
	uint32_t want;

	rte_tel_data_start_dict(d);
	if (params != NULL && *params != '\0') {
		if (parse_ip(params, &want) != 0)
			return -EINVAL;
		for (i = 0; i < NEIGH_CAPACITY; i++) {
			const struct neigh_slot *s = &t->buckets[i / NEIGH_WAYS].s[i % NEIGH_WAYS];
			const struct neigh_entry *e = &t->entries[i];
			uint64_t m;

			if (want == 0 ||
			    (uint32_t)__atomic_load_n(&s->key, __ATOMIC_RELAXED) != want)
				continue;
			m = __atomic_load_n(&s->word, __ATOMIC_RELAXED) & NEIGH_MAC_MASK;
			fmt_ip(ip, sizeof(ip), want);
			fmt_mac(mac, sizeof(mac), m);
			rte_tel_data_add_dict_string(d, "ip", ip);
			rte_tel_data_add_dict_string(d, "mac", mac);
			rte_tel_data_add_dict_string(d, "state",
						     neigh_state_names[e->state % NEIGH_STATE_MAX]);
			rte_tel_data_add_dict_u64(d, "pinned", e->pinned);
			rte_tel_data_add_dict_u64(d, "probes", e->probes);
			if (m != 0)
				rte_tel_data_add_dict_u64(
					d, "age_ms",
					now_ms >= e->confirmed_ms ? now_ms - e->confirmed_ms : 0);
			return 0;
		}
		rte_tel_data_add_dict_string(d, "state", "none");
		return 0;
	}
	neigh_counters_get(t, &c);
	n = neigh_list(t, now_ms, info, NEIGH_TEL_MAX_LIST);
	rte_tel_data_add_dict_u64(d, "entries", n);
	rte_tel_data_add_dict_u64(d, "capacity", NEIGH_CAPACITY);
	rte_tel_data_add_dict_u64(d, "arp_in", c.arp_in);
	rte_tel_data_add_dict_u64(d, "requests_answered", c.requests_answered);
	rte_tel_data_add_dict_u64(d, "probes_answered", c.probes_answered);
	rte_tel_data_add_dict_u64(d, "learnt_replies", c.learnt_replies);
	rte_tel_data_add_dict_u64(d, "learnt_requests", c.learnt_requests);
	rte_tel_data_add_dict_u64(d, "mac_changes", c.mac_changes);
	rte_tel_data_add_dict_u64(d, "requests_sent", c.requests_sent);
	rte_tel_data_add_dict_u64(d, "retries", c.retries);
	rte_tel_data_add_dict_u64(d, "refreshes_sent", c.refreshes_sent);
	rte_tel_data_add_dict_u64(d, "gratuitous_sent", c.gratuitous_sent);
	rte_tel_data_add_dict_u64(d, "send_failed", c.send_failed);
	rte_tel_data_add_dict_u64(d, "resolutions_failed", c.resolutions_failed);
	rte_tel_data_add_dict_u64(d, "aged_out", c.aged_out);
	rte_tel_data_add_dict_u64(d, "expired_unused", c.expired_unused);
	rte_tel_data_add_dict_u64(d, "wants", c.wants);
	rte_tel_data_add_dict_u64(d, "wants_invalid", c.wants_invalid);
	rte_tel_data_add_dict_u64(d, "wants_dropped", c.wants_dropped);
	rte_tel_data_add_dict_u64(d, "table_full", c.table_full);
	rte_tel_data_add_dict_u64(d, "evictions", c.evictions);
	for (i = 0; i < NEIGH_IGN_MAX; i++) {
		snprintf(line, sizeof(line), "ignored_%s", neigh_ignore_names[i]);
		rte_tel_data_add_dict_u64(d, line, c.ignored[i]);
	}
	list = rte_tel_data_alloc();
	if (list == NULL)
		return 0;
	rte_tel_data_start_array(list, RTE_TEL_STRING_VAL);
	for (i = 0; i < n && i < NEIGH_TEL_MAX_LIST; i++) {
		fmt_ip(ip, sizeof(ip), info[i].ip);
		fmt_mac(mac, sizeof(mac), info[i].mac);
		if (info[i].age_ms == UINT64_MAX)
			snprintf(line, sizeof(line), "%s %s %s -%s", ip, mac,
				 neigh_state_names[info[i].state % NEIGH_STATE_MAX],
				 info[i].pinned ? " pinned" : "");
		else
			snprintf(line, sizeof(line), "%s %s %s %llums%s", ip, mac,
				 neigh_state_names[info[i].state % NEIGH_STATE_MAX],
				 (unsigned long long)info[i].age_ms,
				 info[i].pinned ? " pinned" : "");
		rte_tel_data_add_array_string(list, line);
	}
	rte_tel_data_add_dict_container(d, "table", list, 0);
	return 0;
}

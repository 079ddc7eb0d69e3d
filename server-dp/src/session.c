/*
 * bng-dp session tables: creation and the control-thread API (session.h).
 */

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "session.h"

/* Upstream uses line 0 of a session only, downstream mostly line 1. */
static_assert(offsetof(struct dp_session, drops_up) + 8 <= RTE_CACHE_LINE_SIZE &&
		      offsetof(struct dp_session, encap) == RTE_CACHE_LINE_SIZE,
	      "session lines");
static_assert(sizeof(struct dp_session) == 2 * RTE_CACHE_LINE_SIZE, "session size");
/* Upstream key word 0 is one 8-byte load from either struct. */
static_assert(offsetof(struct dp_session, stag) == 2 && offsetof(struct dp_session, ctag) == 4 &&
		      offsetof(struct dp_session, sid) == 6 &&
		      offsetof(struct dp_session, mac) == 8,
	      "dp_session key words");
static_assert(offsetof(struct cls_result, stag) == offsetof(struct cls_result, line) + 2 &&
		      offsetof(struct cls_result, ctag) == offsetof(struct cls_result, line) + 4 &&
		      offsetof(struct cls_result, sid) == offsetof(struct cls_result, line) + 6,
	      "cls_result key word");
static_assert(offsetof(struct dp_session, next_up) % 4 == 0, "next_up atomic");
/* The worker's fields and the control thread's do not share a line. */
static_assert(offsetof(struct session_tables, down_spare) >= RTE_CACHE_LINE_SIZE,
	      "session_tables lines");

/* --- worker: drops (session.h) -------------------------------------------------- */

void
session_drop_up(const struct session_tables *t, struct dp_session *s, uint32_t len)
{
	s->drops_up++;
	t->drop_bytes_up[s - t->sessions] += len;
}

void
session_drop_down(const struct session_tables *t, struct dp_session *s, uint32_t len)
{
	s->drops_down++;
	t->drop_bytes_down[s - t->sessions] += len;
}

/* Smallest index sizes, so that the 1/8 and 1/4 thresholds are whole entries. */
#define SESSION_MIN_INDEX 16u

/* --- upstream chains ---------------------------------------------------------- */

static void
up_key_of(const struct dp_session *s, uint64_t *k0, uint64_t *k1)
{
	memcpy(k0, s, sizeof(*k0));
	*k1 = session_key1_of(s->mac);
}

/* The live id of key (k0, k1), or SESSION_ID_NONE. */
static uint32_t
up_find(const struct session_tables *t, uint64_t k0, uint64_t k1)
{
	uint32_t id = t->up_heads[session_up_bucket(t, k0, k1)];

	while (id != SESSION_ID_NONE && !session_key_eq(&t->sessions[id], k0, k1))
		id = t->sessions[id].next_up;
	return id;
}

/* Push id, whose slot is written, at the head of its chain: the release store
 * publishes the slot. */
static void
up_link(struct session_tables *t, uint32_t id)
{
	struct dp_session *s = &t->sessions[id];
	uint64_t k0, k1;
	uint32_t *head;

	up_key_of(s, &k0, &k1);
	head = &t->up_heads[session_up_bucket(t, k0, k1)];
	__atomic_store_n(&s->next_up, *head, __ATOMIC_RELAXED);
	__atomic_store_n(head, id, __ATOMIC_RELEASE);
}

/* Unlink live id; its own next_up stays for readers standing on it. */
static void
up_unlink(struct session_tables *t, uint32_t id)
{
	const struct dp_session *s = &t->sessions[id];
	uint64_t k0, k1;
	uint32_t *link;

	up_key_of(s, &k0, &k1);
	link = &t->up_heads[session_up_bucket(t, k0, k1)];
	while (*link != id)
		link = &t->sessions[*link].next_up;
	__atomic_store_n(link, s->next_up, __ATOMIC_RELEASE);
}

/* --- downstream open addressing ----------------------------------------------- */

static inline uint64_t
down_entry(uint32_t ipv4, uint32_t id)
{
	return (uint64_t)id << 32 | ipv4;
}

static inline bool
down_is_live(uint64_t e)
{
	return (uint32_t)(e >> 32) != SESSION_ID_NONE;
}

static void
down_fill_empty(uint64_t *tab, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		tab[i] = SESSION_DOWN_EMPTY;
}

/* Position of live address a, or -1. */
static int64_t
down_find(const struct session_tables *t, uint32_t a)
{
	const uint64_t *tab = t->down;
	uint32_t p = session_down_home(t->down_shift, a);
	uint64_t e;

	for (e = tab[p]; (uint32_t)e != 0; e = tab[p]) {
		if ((uint32_t)e == a && down_is_live(e))
			return p;
		p = (p + 1) & t->down_mask;
	}
	return -1;
}

/*
 * Copy the live entries into the spare array and publish it. The spare must
 * have passed the grace period of its own swap: checked without waiting
 * unless wait. Returns 0 or -EAGAIN.
 */
static int
down_rebuild(struct session_tables *t, bool wait)
{
	uint64_t *old = t->down, *tab = t->down_spare, e;
	uint32_t i, p, live = 0;

	if (t->spare_busy) {
		if (rte_rcu_qsbr_check(t->qsbr, t->spare_token, wait) != 1) {
			t->down_rebuilds_deferred++;
			return -EAGAIN;
		}
		t->spare_busy = 0;
	}
	down_fill_empty(tab, t->down_mask + 1);
	for (i = 0; i <= t->down_mask; i++) {
		e = old[i];
		if ((uint32_t)e == 0 || !down_is_live(e))
			continue;
		p = session_down_home(t->down_shift, (uint32_t)e);
		while (tab[p] != SESSION_DOWN_EMPTY)
			p = (p + 1) & t->down_mask;
		tab[p] = e;
		live++;
	}
	/* Readers that load the new pointer see the copied entries. */
	__atomic_store_n(&t->down, tab, __ATOMIC_RELEASE);
	t->down_spare = old;
	t->spare_token = rte_rcu_qsbr_start(t->qsbr);
	t->spare_busy = 1;
	t->down_tombs = 0;
	t->down_empty = t->down_mask + 1 - live;
	t->down_rebuilds++;
	return 0;
}

/* Rebuild when tombstones reach 1/8 of the entries, if the spare is ready. */
static void
down_maybe_rebuild(struct session_tables *t)
{
	if (t->down_tombs >= (t->down_mask + 1) / 8)
		down_rebuild(t, false);
}

/* Add live {a, id}; a is not live. */
static void
down_insert(struct session_tables *t, uint32_t a, uint32_t id)
{
	uint64_t *tab;
	uint32_t p;

	for (;;) {
		tab = t->down;
		p = session_down_home(t->down_shift, a);
		/* The first free position: a tombstone (of any address) or the
		 * empty entry that ends the probe. */
		while (tab[p] != SESSION_DOWN_EMPTY && down_is_live(tab[p]))
			p = (p + 1) & t->down_mask;
		if (tab[p] != SESSION_DOWN_EMPTY) {
			t->down_tombs--;
			break;
		}
		/* Keep a quarter of the entries empty (see session.h): past that,
		 * rebuild first, waiting for the spare if it must. */
		if (t->down_empty - 1 >= (t->down_mask + 1) / 4) {
			t->down_empty--;
			break;
		}
		down_rebuild(t, true);
	}
	__atomic_store_n(&tab[p], down_entry(a, id), __ATOMIC_RELEASE);
}

/*
 * Empty the tombstones of the cluster around position q that no live entry's
 * probe path (home .. position) crosses. The cluster runs from the entry after
 * an empty one to the entry before the next empty one; every live entry of it
 * has its home inside it, so walking it backwards with the smallest home
 * offset seen so far tells whether a position is crossed.
 */
static void
down_purge(struct session_tables *t, uint32_t q)
{
	uint64_t *tab = t->down;
	const uint32_t mask = t->down_mask;
	uint32_t start = q, end = q, p, off, min_home, h;
	uint64_t e;

	while (tab[(start - 1) & mask] != SESSION_DOWN_EMPTY)
		start = (start - 1) & mask;
	while (tab[(end + 1) & mask] != SESSION_DOWN_EMPTY)
		end = (end + 1) & mask;
	min_home = UINT32_MAX;
	for (p = end;; p = (p - 1) & mask) {
		e = tab[p];
		off = (p - start) & mask;
		if (down_is_live(e)) {
			h = (session_down_home(t->down_shift, (uint32_t)e) - start) & mask;
			min_home = RTE_MIN(min_home, h);
		} else if (min_home > off) {
			__atomic_store_n(&tab[p], SESSION_DOWN_EMPTY, __ATOMIC_RELEASE);
			t->down_tombs--;
			t->down_empty++;
		}
		if (p == start)
			break;
	}
}

/* Turn live address a into its tombstone. */
static void
down_remove(struct session_tables *t, uint32_t a)
{
	int64_t q = down_find(t, a);

	if (q < 0)
		return;
	__atomic_store_n(&t->down[q], down_entry(a, SESSION_ID_NONE), __ATOMIC_RELEASE);
	t->down_tombs++;
	down_purge(t, (uint32_t)q);
	down_maybe_rebuild(t);
}

/* --- tables -------------------------------------------------------------------- */

/* Called by the defer queue once no worker can hold the ids in e[0..n). */
static void
session_ids_free(void *p, void *e, unsigned int n)
{
	struct session_tables *t = p;
	const uint32_t *ids = e;
	unsigned int i;

	for (i = 0; i < n; i++) {
		memset(&t->sessions[ids[i]], 0, sizeof(t->sessions[0]));
		memset(&t->s6[ids[i]], 0, sizeof(t->s6[0]));
		t->drop_bytes_up[ids[i]] = 0;
		t->drop_bytes_down[ids[i]] = 0;
		t->free_ids[t->n_free++] = ids[i];
	}
}

struct session_tables *
session_tables_create(const char *name, uint32_t capacity, uint32_t max_workers, int socket)
{
	struct rte_rcu_qsbr_dq_parameters dqp = {0};
	struct session_tables *t;
	char dqname[RTE_RING_NAMESIZE];
	uint32_t i, n_up, n_down;
	size_t qsz;

	if (capacity == 0)
		capacity = SESSION_DEFAULT_CAPACITY;
	if (name == NULL || max_workers == 0 || max_workers > SESSION_MAX_WORKERS ||
	    capacity > SESSION_MAX_CAPACITY) {
		rte_errno = EINVAL;
		return NULL;
	}
	t = rte_zmalloc_socket("session_tables", sizeof(*t), RTE_CACHE_LINE_SIZE, socket);
	if (t == NULL)
		goto nomem;
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->capacity = capacity;
	t->max_workers = max_workers;
	/* Both indexes have twice as many entries as sessions: chains of 1.25
	 * sessions on average for a hit, and a downstream load of at most 1/2. */
	n_up = RTE_MAX(rte_align32pow2(2 * capacity), SESSION_MIN_INDEX);
	n_down = n_up;
	t->up_shift = 64 - (uint32_t)rte_bsf32(n_up);
	t->down_shift = 64 - (uint32_t)rte_bsf32(n_down);
	t->down_mask = n_down - 1;
	t->down_empty = n_down;
	t->s6 = rte_zmalloc_socket("sessions6", (size_t)capacity * sizeof(struct dp_session6),
				   RTE_CACHE_LINE_SIZE, socket);
	t->sessions = rte_zmalloc_socket("sessions", (size_t)capacity * sizeof(struct dp_session),
					 RTE_CACHE_LINE_SIZE, socket);
	t->drop_bytes_up = rte_zmalloc_socket("session_dropb", (size_t)capacity * sizeof(uint64_t),
					      RTE_CACHE_LINE_SIZE, socket);
	t->drop_bytes_down = rte_zmalloc_socket(
		"session_dropb", (size_t)capacity * sizeof(uint64_t), RTE_CACHE_LINE_SIZE, socket);
	t->up_heads = rte_malloc_socket("session_up", (size_t)n_up * sizeof(uint32_t),
					RTE_CACHE_LINE_SIZE, socket);
	t->down = rte_malloc_socket("session_down", (size_t)n_down * sizeof(uint64_t),
				    RTE_CACHE_LINE_SIZE, socket);
	t->down_spare = rte_malloc_socket("session_down", (size_t)n_down * sizeof(uint64_t),
					  RTE_CACHE_LINE_SIZE, socket);
	t->free_ids =
		rte_malloc_socket("session_free", (size_t)capacity * sizeof(uint32_t), 0, socket);
	qsz = rte_rcu_qsbr_get_memsize(max_workers);
	t->qsbr = rte_zmalloc_socket("session_qsbr", qsz, RTE_CACHE_LINE_SIZE, socket);
	if (t->sessions == NULL || t->s6 == NULL || t->drop_bytes_up == NULL ||
	    t->drop_bytes_down == NULL || t->up_heads == NULL || t->down == NULL ||
	    t->down_spare == NULL || t->free_ids == NULL || t->qsbr == NULL)
		goto nomem;
	memset(t->up_heads, 0xff, (size_t)n_up * sizeof(uint32_t)); /* SESSION_ID_NONE */
	down_fill_empty(t->down, n_down);
	if (rte_rcu_qsbr_init(t->qsbr, max_workers) != 0)
		goto fail;
	/* Lowest ids on top, so ids are handed out 0, 1, 2, ... */
	for (i = 0; i < capacity; i++)
		t->free_ids[i] = capacity - 1 - i;
	t->n_free = capacity;

	snprintf(dqname, sizeof(dqname), "%s_dq", name);
	dqp.name = dqname;
	dqp.flags = RTE_RCU_QSBR_DQ_MT_UNSAFE; /* one control thread */
	dqp.size = capacity;
	dqp.esize = sizeof(uint32_t);
	/* Reclaim a little on each delete, so ids flow back without a caller. */
	dqp.trigger_reclaim_limit = 32;
	dqp.max_reclaim_size = 32;
	dqp.free_fn = session_ids_free;
	dqp.p = t;
	dqp.v = t->qsbr;
	t->dq = rte_rcu_qsbr_dq_create(&dqp);
	if (t->dq == NULL)
		goto fail;
	return t;
nomem:
	rte_errno = ENOMEM;
fail:
	i = (uint32_t)rte_errno;
	session_tables_free(t);
	rte_errno = (int)i;
	return NULL;
}

void
session_tables_free(struct session_tables *t)
{
	if (t == NULL)
		return;
	if (t->dq != NULL)
		rte_rcu_qsbr_dq_delete(t->dq);
	rte_free(t->qsbr);
	rte_free(t->free_ids);
	rte_free(t->down_spare);
	rte_free(t->down);
	rte_free(t->up_heads);
	rte_free(t->sessions);
	rte_free(t->s6);
	rte_free(t->drop_bytes_up);
	rte_free(t->drop_bytes_down);
	for (unsigned int j = 0; j < t->n_down6; j++)
		rte_free(t->down6[j]);
	rte_free(t);
}

uint32_t
session_reclaim(struct session_tables *t)
{
	unsigned int freed = 0, pending = 0, avail = 0;

	rte_rcu_qsbr_dq_reclaim(t->dq, t->capacity, &freed, &pending, &avail);
	down_maybe_rebuild(t);
	return freed;
}

uint32_t
session_pending(const struct session_tables *t)
{
	return t->capacity - t->count - t->n_free;
}

uint32_t
session_next_id(struct session_tables *t)
{
	if (t->n_free == 0)
		session_reclaim(t);
	return t->n_free == 0 ? SESSION_ID_NONE : t->free_ids[t->n_free - 1];
}

/* --- downstream IPv6 chains ---------------------------------------------------- */

int
session_tables_set_v6(struct session_tables *t, const uint8_t *lens, unsigned int n, int socket)
{
	uint8_t sorted[SESSION6_MAX_TABLES];
	unsigned int m = 0;
	uint32_t heads;

	if (t->n_down6 != 0)
		return -EEXIST;
	for (unsigned int i = 0; i < n; i++) {
		bool seen = false;

		if (lens[i] < 32 || lens[i] > 64)
			return -EINVAL;
		for (unsigned int j = 0; j < m; j++)
			seen |= sorted[j] == lens[i];
		if (seen)
			continue;
		if (m == SESSION6_MAX_TABLES)
			return -EINVAL;
		sorted[m++] = lens[i];
	}
	/* longest first: the /64 of a WAN pool before a shorter delegated prefix */
	for (unsigned int i = 1; i < m; i++)
		for (unsigned int j = i; j > 0 && sorted[j] > sorted[j - 1]; j--) {
			uint8_t x = sorted[j];

			sorted[j] = sorted[j - 1];
			sorted[j - 1] = x;
		}
	heads = rte_align32pow2(t->capacity < 2 ? 4 : 2 * t->capacity);
	for (unsigned int j = 0; j < m; j++) {
		t->down6[j] = rte_malloc_socket("session_down6", (size_t)heads * sizeof(uint32_t),
						RTE_CACHE_LINE_SIZE, socket);
		if (t->down6[j] == NULL) {
			for (unsigned int k = 0; k < j; k++) {
				rte_free(t->down6[k]);
				t->down6[k] = NULL;
			}
			return -ENOMEM;
		}
		memset(t->down6[j], 0xff, (size_t)heads * sizeof(uint32_t));
		t->down6_len[j] = sorted[j];
		t->down6_mask[j] = session6_mask(sorted[j]);
	}
	t->down6_shift = 64 - (uint32_t)rte_bsf32(heads);
	__atomic_store_n(&t->n_down6, (uint8_t)m, __ATOMIC_RELEASE);
	return 0;
}

static int
down6_table(const struct session_tables *t, uint8_t len)
{
	for (unsigned int j = 0; j < t->n_down6; j++)
		if (t->down6_len[j] == len)
			return (int)j;
	return -1;
}

/* The id holding prefix key of table j, or SESSION_ID_NONE. */
static uint32_t
down6_find(const struct session_tables *t, unsigned int j, uint64_t key)
{
	uint32_t link = t->down6[j][session6_bucket(t->down6_shift, key)];

	while (link != SESSION_ID_NONE) {
		const struct dp_session6 *s = &t->s6[link >> 1];

		if (s->pfx[link & 1] == key && s->tab[link & 1] == j)
			return link >> 1;
		link = s->next[link & 1];
	}
	return SESSION_ID_NONE;
}

static void
down6_link(struct session_tables *t, uint32_t id, unsigned int k)
{
	struct dp_session6 *s = &t->s6[id];
	uint32_t *head = &t->down6[s->tab[k]][session6_bucket(t->down6_shift, s->pfx[k])];

	s->next[k] = *head;
	__atomic_store_n(head, SESSION6_LINK(id, k), __ATOMIC_RELEASE);
}

static void
down6_unlink(struct session_tables *t, uint32_t id, unsigned int k)
{
	const struct dp_session6 *s = &t->s6[id];
	uint32_t *link = &t->down6[s->tab[k]][session6_bucket(t->down6_shift, s->pfx[k])];
	uint32_t me = SESSION6_LINK(id, k);

	while (*link != me && *link != SESSION_ID_NONE)
		link = &t->s6[*link >> 1].next[*link & 1];
	if (*link == me)
		__atomic_store_n(link, s->next[k], __ATOMIC_RELEASE);
}

/* Check the IPv6 prefixes of p: known lengths, no host bits, not held by a live session. */
static int
v6_params_check(const struct session_tables *t, const struct dp_session_params *p, int tab[])
{
	if (p->n_prefix6 > SESSION6_MAX_PREFIX)
		return -EINVAL;
	for (unsigned int k = 0; k < p->n_prefix6; k++) {
		uint64_t key = session6_hi64(p->prefix6[k]);
		static const uint8_t zero[8];

		tab[k] = down6_table(t, p->prefix6_len[k]);
		if (tab[k] < 0 || (key & ~session6_mask(p->prefix6_len[k])) != 0 ||
		    memcmp(p->prefix6[k] + 8, zero, 8) != 0)
			return -EINVAL;
		if (down6_find(t, (unsigned int)tab[k], key) != SESSION_ID_NONE)
			return -EEXIST;
	}
	if (p->n_prefix6 == 2 && tab[0] == tab[1] &&
	    session6_hi64(p->prefix6[0]) == session6_hi64(p->prefix6[1]))
		return -EINVAL;
	return 0;
}

int
session_add(struct session_tables *t, const struct dp_session_params *p, uint32_t *id)
{
	int tab[SESSION6_MAX_PREFIX] = {0};
	struct dp_session *s;
	uint64_t k0;
	uint32_t i;
	int rc;

	if ((p->ipv4 == 0 && p->n_prefix6 == 0) ||
	    (p->mtu != 0 && (p->mtu < SESSION_MIN_MTU || p->mtu > SESSION_MAX_MTU)) ||
	    (p->sid == 0) != (p->ipoe != 0))
		return -EINVAL;
	rc = v6_params_check(t, p, tab);
	if (rc != 0)
		return rc;
	memcpy(&k0, (const uint16_t[4]){p->line, p->stag, p->ctag, p->sid}, sizeof(k0));
	if (up_find(t, k0, session_key1_of(p->mac)) != SESSION_ID_NONE ||
	    (p->ipv4 != 0 && down_find(t, p->ipv4) >= 0))
		return -EEXIST;
	if (t->n_free == 0)
		session_reclaim(t);
	if (t->n_free == 0)
		return -ENOSPC;
	i = t->free_ids[t->n_free - 1];
	s = &t->sessions[i];
	/* The slot is invisible to readers until up_link() and down_insert()
	 * publish i with release stores. */
	if (p->ipoe)
		rc = rw_encap_tmpl_init_ipoe(&s->encap, p->mac, p->ac_mac, p->tpid, p->stag,
					     p->ctag);
	else
		rc = rw_encap_tmpl_init(&s->encap, p->mac, p->ac_mac, p->tpid, p->stag, p->ctag,
					p->sid);
	if (rc != 0) {
		memset(s, 0, sizeof(*s));
		return rc;
	}
	s->line = p->line;
	s->stag = p->stag;
	s->ctag = p->ctag;
	s->sid = p->sid;
	memcpy(s->mac, p->mac, sizeof(s->mac));
	s->group = p->group;
	s->ipv4 = p->ipv4;
	s->qos = p->qos;
	s->mtu = p->mtu != 0 ? p->mtu : p->ipoe ? SESSION_DEFAULT_MTU_IPOE : SESSION_DEFAULT_MTU;
	s->sched = p->sched;
	/* Neither index can refuse: chains are unbounded and the downstream
	 * array always has room for capacity addresses. */
	{
		struct dp_session6 *s6 = &t->s6[i];

		s6->n = p->n_prefix6;
		for (unsigned int k = 0; k < p->n_prefix6; k++) {
			s6->pfx[k] = session6_hi64(p->prefix6[k]);
			s6->plen[k] = p->prefix6_len[k];
			s6->tab[k] = (uint8_t)tab[k];
		}
	}
	up_link(t, i);
	if (p->ipv4 != 0)
		down_insert(t, p->ipv4, i);
	for (unsigned int k = 0; k < p->n_prefix6; k++)
		down6_link(t, i, k);
	t->n_free--;
	t->count++;
	*id = i;
	return 0;
}

int
session_del(struct session_tables *t, uint32_t id)
{
	struct dp_session *s;
	uint64_t k0, k1;

	if (id >= t->capacity)
		return -ENOENT;
	s = &t->sessions[id];
	/* A slot waiting for its grace period keeps its key, which may be live
	 * again under another id: the key must map to this id. */
	if (!session_live(s))
		return -ENOENT;
	up_key_of(s, &k0, &k1);
	if (up_find(t, k0, k1) != id)
		return -ENOENT;
	up_unlink(t, id);
	if (s->ipv4 != 0)
		down_remove(t, s->ipv4);
	for (unsigned int k = 0; k < t->s6[id].n; k++)
		down6_unlink(t, id, k);
	t->count--;
	/* The slot keeps its contents until the grace period ends. The queue
	 * holds capacity ids, so it can only be full if something is wrong;
	 * then wait for the grace period here rather than leak the id. */
	if (rte_rcu_qsbr_dq_enqueue(t->dq, &id) != 0) {
		rte_rcu_qsbr_synchronize(t->qsbr, RTE_QSBR_THRID_INVALID);
		session_ids_free(t, &id, 1);
	}
	return 0;
}

int
session_modify_qos(struct session_tables *t, uint32_t id, uint16_t qos)
{
	struct dp_session *s;

	if (id >= t->capacity)
		return -ENOENT;
	s = &t->sessions[id];
	if (!session_live(s))
		return -ENOENT;
	__atomic_store_n(&s->qos, qos, __ATOMIC_RELAXED);
	return 0;
}

uint32_t
session_count(const struct session_tables *t)
{
	return t->count;
}

void
session_table_stats(const struct session_tables *t, struct session_table_stats *st)
{
	uint32_t b, id, len, p, n_up = (uint32_t)(1ull << (64 - t->up_shift));
	uint64_t e;

	memset(st, 0, sizeof(*st));
	st->up_buckets = n_up;
	for (b = 0; b < n_up; b++) {
		len = 0;
		for (id = t->up_heads[b]; id != SESSION_ID_NONE; id = t->sessions[id].next_up)
			st->up_links += ++len;
		st->up_used += len > 0;
		st->up_max_chain = RTE_MAX(st->up_max_chain, len);
	}
	st->down_entries = t->down_mask + 1;
	for (p = 0; p <= t->down_mask; p++) {
		e = t->down[p];
		if (e == SESSION_DOWN_EMPTY) {
			st->down_empty++;
		} else if (!down_is_live(e)) {
			st->down_tombs++;
		} else {
			len = ((p - session_down_home(t->down_shift, (uint32_t)e)) & t->down_mask) +
			      1;
			st->down_probes += len;
			st->down_max_probe = RTE_MAX(st->down_max_probe, len);
		}
	}
	st->down_rebuilds = t->down_rebuilds;
	st->down_rebuilds_deferred = t->down_rebuilds_deferred;
}

int
session_worker_register(struct session_tables *t, unsigned int thread_id)
{
	int rc;

	if (thread_id >= t->max_workers)
		return -EINVAL;
	rc = rte_rcu_qsbr_thread_register(t->qsbr, thread_id);
	if (rc != 0)
		return rc;
	rte_rcu_qsbr_thread_online(t->qsbr, thread_id);
	return 0;
}

void
session_worker_unregister(struct session_tables *t, unsigned int thread_id)
{
	rte_rcu_qsbr_thread_offline(t->qsbr, thread_id);
	rte_rcu_qsbr_thread_unregister(t->qsbr, thread_id);
}

void
session_tables_sync(struct session_tables *t)
{
	rte_rcu_qsbr_synchronize(t->qsbr, RTE_QSBR_THRID_INVALID);
}

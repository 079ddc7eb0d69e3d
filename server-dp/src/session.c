/*
 * bng-dp session tables: creation and the control-thread API (session.h).
 */

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include <rte_errno.h>
#include <rte_hash_crc.h>
#include <rte_malloc.h>

#include "session.h"

/* The worker reads line 0 of a session and writes line 1: keep them apart. */
static_assert(offsetof(struct dp_session, pkts_up) == RTE_CACHE_LINE_SIZE, "session line 0");
static_assert(sizeof(struct dp_session) == 2 * RTE_CACHE_LINE_SIZE, "session size");

/* Called by the defer queue once no worker can hold the ids in e[0..n). */
static void
session_ids_free(void *p, void *e, unsigned int n)
{
	struct session_tables *t = p;
	const uint32_t *ids = e;
	unsigned int i;

	for (i = 0; i < n; i++) {
		memset(&t->sessions[ids[i]], 0, sizeof(t->sessions[0]));
		t->free_ids[t->n_free++] = ids[i];
	}
}

static struct rte_hash *
session_hash_create(struct session_tables *t, const char *suffix, uint32_t key_len, int socket)
{
	struct rte_hash_rcu_config rcu = {
		.v = t->qsbr,
		.mode = RTE_HASH_QSBR_MODE_DQ,
	};
	struct rte_hash_parameters hp = {
		/* rte_hash wants at least one bucket of 8 entries. */
		.entries = RTE_MAX(t->capacity, 8u),
		.key_len = key_len,
		.hash_func = rte_hash_crc,
		.socket_id = socket,
		/* The extendable table lets the hash hold all capacity keys:
		 * plain cuckoo buckets would refuse some near full load. */
		.extra_flag =
			RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF | RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};
	char name[RTE_HASH_NAMESIZE];
	struct rte_hash *h;

	snprintf(name, sizeof(name), "%s_%s", t->name, suffix);
	hp.name = name;
	h = rte_hash_create(&hp);
	if (h == NULL)
		return NULL;
	if (rte_hash_rcu_qsbr_add(h, &rcu) != 0) {
		rte_hash_free(h);
		return NULL;
	}
	return h;
}

struct session_tables *
session_tables_create(const char *name, uint32_t capacity, uint32_t max_workers, int socket)
{
	struct rte_rcu_qsbr_dq_parameters dqp = {0};
	struct session_tables *t;
	char dqname[RTE_RING_NAMESIZE];
	size_t qsz;
	uint32_t i;

	if (capacity == 0)
		capacity = SESSION_DEFAULT_CAPACITY;
	if (name == NULL || max_workers == 0 || max_workers > SESSION_MAX_WORKERS ||
	    capacity >= SESSION_ID_NONE) {
		rte_errno = EINVAL;
		return NULL;
	}
	t = rte_zmalloc_socket("session_tables", sizeof(*t), RTE_CACHE_LINE_SIZE, socket);
	if (t == NULL)
		goto nomem;
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->capacity = capacity;
	t->max_workers = max_workers;
	t->sessions = rte_zmalloc_socket("sessions", (size_t)capacity * sizeof(struct dp_session),
					 RTE_CACHE_LINE_SIZE, socket);
	t->free_ids =
		rte_malloc_socket("session_free", (size_t)capacity * sizeof(uint32_t), 0, socket);
	qsz = rte_rcu_qsbr_get_memsize(max_workers);
	t->qsbr = rte_zmalloc_socket("session_qsbr", qsz, RTE_CACHE_LINE_SIZE, socket);
	if (t->sessions == NULL || t->free_ids == NULL || t->qsbr == NULL)
		goto nomem;
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
	t->up = session_hash_create(t, "up", sizeof(struct session_up_key), socket);
	if (t->up == NULL)
		goto fail;
	t->down = session_hash_create(t, "down", sizeof(uint32_t), socket);
	if (t->down == NULL)
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
	rte_hash_free(t->up);
	rte_hash_free(t->down);
	if (t->dq != NULL)
		rte_rcu_qsbr_dq_delete(t->dq);
	rte_free(t->qsbr);
	rte_free(t->free_ids);
	rte_free(t->sessions);
	rte_free(t);
}

uint32_t
session_reclaim(struct session_tables *t)
{
	unsigned int freed = 0, pending = 0, avail = 0;

	rte_rcu_qsbr_dq_reclaim(t->dq, t->capacity, &freed, &pending, &avail);
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

int
session_add(struct session_tables *t, const struct dp_session_params *p, uint32_t *id)
{
	struct session_up_key k;
	struct dp_session *s;
	uint32_t i;
	int rc;

	if (p->ipv4 == 0 || (p->mtu != 0 && (p->mtu < SESSION_MIN_MTU || p->mtu > SESSION_MAX_MTU)))
		return -EINVAL;
	session_up_key_make(&k, p->line, p->stag, p->ctag, p->sid, p->mac);
	/* rte_hash_add_key_data() would overwrite an existing key: check first. */
	if (rte_hash_lookup(t->up, &k) >= 0 || rte_hash_lookup(t->down, &p->ipv4) >= 0)
		return -EEXIST;
	if (t->n_free == 0)
		session_reclaim(t);
	if (t->n_free == 0)
		return -ENOSPC;
	i = t->free_ids[t->n_free - 1];
	s = &t->sessions[i];
	/* The slot is invisible to readers until a hash publishes i (the LF
	 * hash stores the key index with release semantics). */
	rc = rw_encap_tmpl_init(&s->encap, p->mac, p->ac_mac, p->tpid, p->stag, p->ctag, p->sid);
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
	s->mtu = p->mtu != 0 ? p->mtu : SESSION_DEFAULT_MTU;
	s->sched = p->sched;
	rc = rte_hash_add_key_data(t->up, &k, (void *)(uintptr_t)i);
	if (rc != 0) {
		memset(s, 0, sizeof(*s));
		return rc == -ENOSPC ? -ENOSPC : rc;
	}
	rc = rte_hash_add_key_data(t->down, &p->ipv4, (void *)(uintptr_t)i);
	if (rc != 0) {
		/* A reader may already have found i through the upstream key:
		 * the slot then waits for a grace period like any deleted id. */
		rte_hash_del_key(t->up, &k);
		t->n_free--;
		if (rte_rcu_qsbr_dq_enqueue(t->dq, &i) != 0) {
			rte_rcu_qsbr_synchronize(t->qsbr, RTE_QSBR_THRID_INVALID);
			session_ids_free(t, &i, 1);
		}
		return rc;
	}
	t->n_free--;
	t->count++;
	*id = i;
	return 0;
}

int
session_del(struct session_tables *t, uint32_t id)
{
	struct session_up_key k;
	struct dp_session *s;
	void *data;

	if (id >= t->capacity)
		return -ENOENT;
	s = &t->sessions[id];
	session_up_key_make(&k, s->line, s->stag, s->ctag, s->sid, s->mac);
	/* A slot waiting for its grace period keeps its key, which may be live
	 * again under another id: the key must map to this id. */
	if (s->ipv4 == 0 || rte_hash_lookup_data(t->up, &k, &data) < 0 ||
	    (uint32_t)(uintptr_t)data != id)
		return -ENOENT;
	rte_hash_del_key(t->up, &k);
	rte_hash_del_key(t->down, &s->ipv4);
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
	if (s->ipv4 == 0)
		return -ENOENT;
	__atomic_store_n(&s->qos, qos, __ATOMIC_RELAXED);
	return 0;
}

uint32_t
session_count(const struct session_tables *t)
{
	return t->count;
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

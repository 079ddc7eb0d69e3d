/*
 * bng-dp session tables of one DP instance.
 *
 * Data layout (allocated once by session_tables_create() on the control thread):
 *   sessions[capacity]  struct dp_session, 128 bytes, cache-line aligned; the
 *                       session id is the index. First line: the keys, the
 *                       encap template and the QoS profile, read by the worker
 *                       and written by the control thread only while no
 *                       reader can hold the id. Second line: the counters,
 *                       written only by the worker, so that its stores never
 *                       bounce the line the control thread reads.
 *   up                  rte_hash, 16-byte struct session_up_key -> id;
 *   down                rte_hash, IPv4 address (uint32, network order) -> id;
 *   free_ids[]          stack of ids ready for reuse (control thread only);
 *   dq                  RCU defer queue of ids deleted but maybe still held
 *                       by a reader.
 *
 * Concurrency model: one control thread writes (add, delete, modify), any
 * number of workers read. Both hashes are created with
 * RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF, so lookups take no lock, and are
 * attached to the tables' RCU QSBR variable (rte_hash_rcu_qsbr_add, defer
 * queue mode), so a deleted key slot is recycled only after every worker has
 * reported a quiescent state. A worker registers once
 * (session_worker_register) and calls session_worker_quiescent() once per
 * burst, after it has stopped using every id of that burst.
 *
 * Id reuse waits for the same grace period: session_del() removes both keys,
 * then enqueues the id on an rte_rcu_qsbr_dq of the same QSBR variable with
 * the current token. The id goes back to free_ids[] (and its slot is zeroed)
 * only when that token has been acknowledged by every registered worker, i.e.
 * when no worker can still hold it from a lookup made before the delete.
 * Until then the slot keeps its old contents, so a late reader sees a
 * consistent (if stale) session, never a half-written new one.
 *
 * Fields a reader may see change: only qos (session_modify_qos), a naturally
 * aligned uint16_t written with one relaxed atomic store, so a reader sees the
 * old or the new value, never a mix. Anything wider that must change as a
 * whole (keys, address, template) is changed by adding a new session and
 * deleting the old one.
 */

#ifndef BNG_SESSION_H
#define BNG_SESSION_H

#include <stdint.h>
#include <string.h>

#include <rte_common.h>
/* rte_rcu_qsbr.h (also included by rte_hash.h) uses named variadic macros and
 * a zero-length array, which -Wpedantic -Werror would refuse. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wvariadic-macros"
#include <rte_hash.h>
#include <rte_rcu_qsbr.h>
#pragma GCC diagnostic pop

#include "classify.h"
#include "rewrite.h"

#define SESSION_DEFAULT_CAPACITY 65536u
#define SESSION_ID_NONE UINT32_MAX
#define SESSION_MAX_WORKERS 64u
#define SESSION_DEFAULT_MTU 1492u /* RFC 2516 */
#define SESSION_MIN_MTU 576u
#define SESSION_MAX_MTU 9000u /* RFC 4638 PPP-Max-Payload, jumbo access */

/* One subscriber session; fields of the first cache line are read-mostly. */
struct dp_session {
	/* line 0: keys, template, QoS; written before the id is published */
	uint16_t line;
	uint16_t stag;
	uint16_t ctag;
	uint16_t sid; /* PPPoE session id, host order */
	uint8_t mac[6];
	uint16_t group; /* line group */
	uint32_t ipv4;	/* network order */
	uint16_t qos;	/* QoS profile index, atomically replaceable */
	uint16_t mtu;	/* PPP MTU (BBF MTU IE; 1492 by default): downstream fragmentation */
	struct rw_encap_tmpl encap; /* downstream access header */
	uint32_t sched;		    /* HQoS pipe reference (hqos.h), set before publishing */
	/* line 1: per-session counters, plain stores by the single worker */
	uint64_t pkts_up __rte_cache_aligned;
	uint64_t bytes_up;
	uint64_t pkts_down;
	uint64_t bytes_down;
	uint64_t drops_up; /* refused upstream: spoofed, ACL, policed, no route, TTL */
	uint64_t drops_down;
} __rte_cache_aligned;

/* The upstream key, packed to 16 bytes (no padding byte left undefined). */
struct session_up_key {
	uint16_t line;
	uint16_t stag;
	uint16_t ctag;
	uint16_t sid;
	uint8_t mac[6];
	uint16_t zero;
};

/* What the control plane knows of a new session. */
struct dp_session_params {
	uint16_t line;
	uint16_t stag; /* 1..4094 */
	uint16_t ctag; /* 1..4094 */
	uint16_t sid;  /* 1..0xfffe */
	uint8_t mac[6];
	uint8_t ac_mac[6]; /* source of downstream frames */
	uint16_t tpid;	   /* outer TPID of the access port, 0x8100 or 0x88a8 */
	uint16_t group;
	uint16_t qos;
	uint32_t ipv4;	/* network order, not 0 */
	uint16_t mtu;	/* 0: SESSION_DEFAULT_MTU; else 576..SESSION_MAX_MTU */
	uint32_t sched; /* HQoS pipe reference, opaque here */
};

struct session_tables {
	struct dp_session *sessions;
	struct rte_hash *up;
	struct rte_hash *down;
	struct rte_rcu_qsbr *qsbr;
	struct rte_rcu_qsbr_dq *dq;
	uint32_t *free_ids;
	uint32_t n_free;
	uint32_t capacity;
	uint32_t count; /* live sessions (not counting ids waiting in dq) */
	uint32_t max_workers;
	char name[16]; /* prefix of the hash and queue names */
};

/* --- control thread -------------------------------------------------------- */

/*
 * Create the tables of name (unique per process) with room for capacity
 * sessions (0: SESSION_DEFAULT_CAPACITY) and max_workers QSBR reader ids
 * (1..SESSION_MAX_WORKERS), on socket. NULL with rte_errno set on failure.
 */
struct session_tables *session_tables_create(const char *name, uint32_t capacity,
					     uint32_t max_workers, int socket);

/* Free everything. No worker may use the tables any more. NULL is ignored. */
void session_tables_free(struct session_tables *t);

/*
 * Add a session; *id receives its id. Returns 0; -EEXIST when the upstream key
 * or the address is in use; -ENOSPC when every id is live or still waiting for
 * its grace period; -EINVAL for tags, sid, TPID or address out of range. On
 * failure nothing has changed.
 */
int session_add(struct session_tables *t, const struct dp_session_params *p, uint32_t *id);

/*
 * The id the next successful session_add() will give, or SESSION_ID_NONE when
 * none is free: per-session state the worker reads next to the session (the
 * policer's rates) can be set before the session is published.
 */
uint32_t session_next_id(struct session_tables *t);

/* Delete a live session. Returns 0 or -ENOENT. Its id is reusable after a
 * grace period. */
int session_del(struct session_tables *t, uint32_t id);

/* Change the QoS profile of a live session (see the header comment). */
int session_modify_qos(struct session_tables *t, uint32_t id, uint16_t qos);

/* Live sessions. */
uint32_t session_count(const struct session_tables *t);

/* Ids deleted but not yet reusable (waiting for a grace period). */
uint32_t session_pending(const struct session_tables *t);

/* Try to return ids whose grace period is over to the free list; returns how many. */
uint32_t session_reclaim(struct session_tables *t);

/* --- workers -------------------------------------------------------------- */

/* Register worker thread_id (0..max_workers-1) and put it online. */
int session_worker_register(struct session_tables *t, unsigned int thread_id);

/* Put the worker offline and unregister it (it will not block grace periods). */
void session_worker_unregister(struct session_tables *t, unsigned int thread_id);

/* Once per burst: the worker no longer uses any id it looked up before. */
static inline void
session_worker_quiescent(struct session_tables *t, unsigned int thread_id)
{
	rte_rcu_qsbr_quiescent(t->qsbr, thread_id);
}

static inline struct dp_session *
session_get(const struct session_tables *t, uint32_t id)
{
	return &t->sessions[id];
}

static inline void
session_up_key_make(struct session_up_key *k, uint16_t line, uint16_t stag, uint16_t ctag,
		    uint16_t sid, const uint8_t *mac)
{
	k->line = line;
	k->stag = stag;
	k->ctag = ctag;
	k->sid = sid;
	memcpy(k->mac, mac, sizeof(k->mac));
	k->zero = 0;
}

/* The ids of one bulk lookup: data[i] where bit i of the hit mask is set. */
static inline void
session_ids_from_bulk(uint64_t mask, void *const *data, uint16_t m, uint32_t *ids)
{
	for (uint16_t i = 0; i < m; i++)
		ids[i] = (mask >> i) & 1 ? (uint32_t)(uintptr_t)data[i] : SESSION_ID_NONE;
}

/*
 * Upstream: ids[i] = session of (res[i].line, stag, ctag, sid, client_macs[i])
 * or SESSION_ID_NONE. Any n; looked up RTE_HASH_LOOKUP_BULK_MAX at a time.
 * Returns the number of hits.
 */
static inline uint32_t
session_lookup_up_burst(const struct session_tables *t, const struct cls_result *res,
			const uint8_t *const *client_macs, uint16_t n, uint32_t *ids)
{
	struct session_up_key keys[RTE_HASH_LOOKUP_BULK_MAX];
	const void *kp[RTE_HASH_LOOKUP_BULK_MAX];
	void *data[RTE_HASH_LOOKUP_BULK_MAX];
	uint32_t hits = 0;
	uint16_t done, i, m;
	uint64_t mask;

	for (done = 0; done < n; done += m) {
		m = (uint16_t)RTE_MIN(n - done, RTE_HASH_LOOKUP_BULK_MAX);
		for (i = 0; i < m; i++) {
			const struct cls_result *r = &res[done + i];

			session_up_key_make(&keys[i], r->line, r->stag, r->ctag, r->sid,
					    client_macs[done + i]);
			kp[i] = &keys[i];
		}
		mask = 0;
		hits += (uint32_t)rte_hash_lookup_bulk_data(t->up, kp, m, &mask, data);
		session_ids_from_bulk(mask, data, m, &ids[done]);
	}
	return hits;
}

/* Downstream: ids[i] = session of address ipv4[i] (network order) or SESSION_ID_NONE. */
static inline uint32_t
session_lookup_down_burst(const struct session_tables *t, const uint32_t *ipv4, uint16_t n,
			  uint32_t *ids)
{
	const void *kp[RTE_HASH_LOOKUP_BULK_MAX];
	void *data[RTE_HASH_LOOKUP_BULK_MAX];
	uint32_t hits = 0;
	uint16_t done, i, m;
	uint64_t mask;

	for (done = 0; done < n; done += m) {
		m = (uint16_t)RTE_MIN(n - done, RTE_HASH_LOOKUP_BULK_MAX);
		for (i = 0; i < m; i++)
			kp[i] = &ipv4[done + i];
		mask = 0;
		hits += (uint32_t)rte_hash_lookup_bulk_data(t->down, kp, m, &mask, data);
		session_ids_from_bulk(mask, data, m, &ids[done]);
	}
	return hits;
}

/* Anti-spoofing: an upstream IPv4 source (network order) must be the session's. */
static inline int
session_src_ok(const struct dp_session *s, uint32_t src_ipv4)
{
	return s->ipv4 == src_ipv4;
}

#endif /* BNG_SESSION_H */

/*
 * bng-dp session tables of one DP instance.
 *
 * Data layout (allocated once by session_tables_create() on the control thread):
 *   sessions[capacity]  struct dp_session, 128 bytes, cache-line aligned; the
 *                       session id is the index. First line: everything an
 *                       upstream packet uses (keys, address, QoS profile,
 *                       MTU, next_up, upstream counters), so that upstream
 *                       touches one line per session; second line: the
 *                       downstream template, HQoS pipe and counters. The
 *                       control thread writes a slot only while no reader
 *                       can hold the id (next_up and qos excepted, see
 *                       below); the worker alone writes the counters, with
 *                       plain stores. The control thread reads line 0 only
 *                       to add or delete a session (chain walks), so the
 *                       worker's counter stores rarely bounce it.
 *   up_heads[2^u]       upstream index: 2^u >= 2 * capacity chain heads
 *                       (uint32_t session ids, SESSION_ID_NONE when empty).
 *                       Bucket = top u bits of a multiplicative hash of the
 *                       first key word (line, S-tag, C-tag, PPPoE session id)
 *                       and the client MAC. A chain runs through
 *                       dp_session.next_up; a lookup compares the two key
 *                       words of the slot (8 bytes, then the 6 MAC bytes of
 *                       the next 8) with the packet's.
 *   down[2^d]           downstream index: 2^d >= 2 * capacity 64-bit entries,
 *                       open addressing with linear probing from the top d
 *                       bits of (host-order address * 2^64 / golden ratio),
 *                       which spreads consecutive pool addresses evenly.
 *                       Entry = address
 *                       (uint32, network order) in the low half, id in the
 *                       high half:
 *                         live       {address, id}
 *                         tombstone  {address, SESSION_ID_NONE}: a deleted
 *                                    address (the position is free for an
 *                                    insert)
 *                         empty      {0, SESSION_ID_NONE}: ends every probe
 *                       A lookup of A stops at the first entry whose address
 *                       half is A or 0 and returns its id half: the id of a
 *                       live A, or SESSION_ID_NONE for a tombstone of A or an
 *                       empty entry (A == 0 stops at an empty one, since no
 *                       session has address 0).
 *   down_spare[2^d]     a second downstream array, into which the control
 *                       thread rebuilds the table without tombstones, then
 *                       swaps the two under RCU (see below);
 *   drop_bytes_up[capacity], drop_bytes_down[capacity]
 *                       the octets (IP packet, header included) of the
 *                       session's dropped packets, one uint64_t per session
 *                       and direction, parallel to sessions[]: written only
 *                       when a worker drops a packet of the session
 *                       (session_drop_up/down(), beside drops_up/down), so
 *                       forwarding never touches them; one array per
 *                       direction, so the two workers of split mode never
 *                       write the same line;
 *   free_ids[]          stack of ids ready for reuse (control thread only);
 *   dq                  RCU defer queue of ids deleted but maybe still held
 *                       by a reader.
 * Memory per session of capacity: 128 (slot) + 64 (IPv6 slot) + 16 (dropped
 * octets) + 8 (2 up heads) + 32 (2 * 2 down entries) + 4 (free stack) + about
 * 24 (id defer queue, allocator) bytes (tests/test_session.c prints it).
 *
 * Concurrency model: one control thread writes (add, delete, modify), any
 * number of workers read without lock or retry. Every word a reader may see
 * change is naturally aligned and written with one atomic store: up_heads[],
 * dp_session.next_up, dp_session.qos, the 64-bit down entries and the down
 * table pointer. A worker registers once (session_worker_register) and calls
 * session_worker_quiescent() once per burst, after it has stopped using every
 * id of that burst; the QSBR variable of the tables then tells the control
 * thread when no worker can still hold something it unlinked.
 *
 * Publication: session_add() writes the whole slot, including next_up (the
 * old head of its bucket), then stores the id into up_heads[] and the down
 * entry with release semantics; a worker loads heads, next_up and entries
 * with acquire semantics, so whatever id it obtains, it sees the slot as it
 * was when published.
 *
 * Upstream chains: an insert pushes at the head (one release store). A delete
 * unlinks with one release store of the predecessor's next_up (or the head)
 * and leaves the deleted slot, next_up included, untouched until its id is
 * reused after a grace period; so a reader standing on a deleted slot still
 * follows valid ids to the end of the chain. A reader only reaches slots that
 * were linked at some moment of its current burst (it starts at a head, and
 * each next_up it follows was a link when it was stored), and such a slot is
 * reused only after the reader's next quiescent report: under a reader, chains
 * stay acyclic and never lead into another bucket. A lookup that races an
 * insert or a delete of its own key may miss it; a key live throughout the
 * lookup is always found.
 *
 * Downstream entries: a reader compares the address in the same 64-bit load
 * that gives the id, so it can never return the id of another address, even
 * when the entry it probes is deleted and refilled under it. Positions only
 * change live -> tombstone (delete), empty or tombstone -> live (insert, at
 * the first free position from the home, so a live address always precedes
 * its own old tombstones) and tombstone -> empty (purge); a tombstone is made
 * empty only when no live entry's probe path (home to position) crosses it,
 * so a probe for an address that stays live never stops early. Each delete
 * purges the tombstones of its cluster that no live entry needs; the rest
 * (crossed by a live path) stay until a rebuild: when tombstones reach 1/8
 * of the entries, the control thread copies the live entries into
 * down_spare, publishes it with a release store of the table pointer and
 * takes an RCU token; the old array becomes the spare once every worker has
 * passed the token (checked without waiting; the control thread waits only
 * if tombstones reach 1/4 of the entries before then). With at most
 * capacity live entries in 2 * capacity positions, at least 1/4 of the
 * entries are therefore always empty and every probe ends.
 *
 * Id reuse waits for a grace period: session_del() unlinks both keys, then
 * enqueues the id on an rte_rcu_qsbr_dq of the tables' QSBR variable with the
 * current token. The id goes back to free_ids[] (and its slot is zeroed) only
 * when that token has been acknowledged by every registered worker, i.e.
 * when no worker can still hold it from a lookup made before the delete.
 * Until then the slot keeps its old contents, so a late reader sees a
 * consistent (if stale) session, never a half-written new one.
 *
 * Fields a reader may see change: qos (session_modify_qos), a naturally
 * aligned uint16_t written with one relaxed atomic store, so a reader sees the
 * old or the new value, never a mix; and next_up (above). Anything wider that
 * must change as a whole (keys, address, template) is changed by adding a new
 * session and deleting the old one.
 */

#ifndef BNG_SESSION_H
#define BNG_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_prefetch.h>
/* rte_rcu_qsbr.h uses named variadic macros and a zero-length array, which
 * -Wpedantic -Werror would refuse. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wvariadic-macros"
#include <rte_rcu_qsbr.h>
#pragma GCC diagnostic pop

#include "classify.h"
#include "rewrite.h"

#define SESSION_DEFAULT_CAPACITY 65536u
#define SESSION_MAX_CAPACITY (1u << 24) /* the indexes' sizes fit 32 bits */
#define SESSION_ID_NONE UINT32_MAX
#define SESSION_MAX_WORKERS 64u
#define SESSION_DEFAULT_MTU 1492u /* RFC 2516 */
#define SESSION_DEFAULT_MTU_IPOE 1500u
#define SESSION_MIN_MTU 576u
#define SESSION_MAX_MTU 9000u	/* RFC 4638 PPP-Max-Payload, jumbo access */
#define SESSION_LOOKUP_STEP 32u /* lookups prefetched together */

/* Multiplicative hashing constants (odd; the first is 2^64 / golden ratio). */
#define SESSION_HASH_MUL 0x9e3779b97f4a7c15ull
#define SESSION_HASH_MIX 0xc2b2ae3d27d4eb4full

/* A downstream entry with address half 0: empty. */
#define SESSION_DOWN_EMPTY ((uint64_t)SESSION_ID_NONE << 32)

/*
 * One subscriber session, two cache lines. Line 0 is all an upstream packet
 * reads or writes of its session (key, anti-spoofing address, QoS profile,
 * MTU, chain link, upstream counters); line 1 is the downstream side
 * (template, HQoS pipe, downstream counters; downstream also reads qos and
 * mtu of line 0).
 */
struct dp_session {
	/* line 0, upstream: keys, address, QoS, written before the id is published */
	uint16_t line; /* line..sid: upstream key word 0, in cls_result's order */
	uint16_t stag;
	uint16_t ctag;
	uint16_t sid;	  /* PPPoE session id, host order; 0 for IPoE */
	uint8_t mac[6];	  /* upstream key word 1: these 6 bytes of the next 8 */
	uint16_t group;	  /* line group */
	uint32_t ipv4;	  /* network order */
	uint16_t qos;	  /* QoS profile index, atomically replaceable */
	uint16_t mtu;	  /* MTU (BBF MTU IE; 1492 PPPoE, 1500 IPoE by default); not 0 = live */
	uint32_t next_up; /* next id of its upstream chain, atomic; NONE ends */
	uint32_t pad0;
	/* upstream counters, plain stores by the single worker */
	uint64_t pkts_up;
	uint64_t bytes_up;
	uint64_t drops_up; /* refused upstream: spoofed, ACL, policed, no route, TTL */
	/* line 1, downstream */
	struct rw_encap_tmpl encap __rte_cache_aligned; /* downstream access header */
	uint32_t sched; /* HQoS pipe reference (hqos.h), set before publishing */
	uint32_t pad1;
	uint64_t pkts_down; /* plain stores by the single worker */
	uint64_t bytes_down;
	uint64_t drops_down;
} __rte_cache_aligned;

/*
 * IPv6 of a session (dual stack), parallel to sessions[]: its downstream
 * prefixes (at most SESSION6_MAX_PREFIX, each 32..64 long: the /64 and the
 * delegated prefix), their links in the downstream IPv6 index, and the
 * IPv6 share of its counters (the totals stay in struct dp_session). 64
 * bytes, one cache line, read only by IPv6 packets. Prefixes are the upper
 * 64 bits as an 8-byte load of the address bytes sees them ("raw").
 */
#define SESSION6_MAX_PREFIX 2
#define SESSION6_MAX_TABLES 8 /* distinct assigned prefix lengths */
#define SESSION6_LINK(id, k) ((id) << 1 | (k))

struct dp_session6 {
	uint64_t pfx[SESSION6_MAX_PREFIX];  /* raw, host bits zero */
	uint32_t next[SESSION6_MAX_PREFIX]; /* down6 chain: next link, atomic */
	uint8_t plen[SESSION6_MAX_PREFIX];  /* 32..64 */
	uint8_t tab[SESSION6_MAX_PREFIX];   /* down6 table of each prefix */
	uint8_t n;			    /* prefixes; 0 = no IPv6 */
	uint8_t pad[3];
	/* the IPv6 share of the session's counters, plain stores by the worker */
	uint64_t pkts_up;
	uint64_t bytes_up;
	uint64_t pkts_down;
	uint64_t bytes_down;
} __rte_cache_aligned;

/* What the control plane knows of a new session. */
struct dp_session_params {
	uint16_t line;
	uint16_t stag; /* 1..4094 */
	uint16_t ctag; /* 1..4094 */
	uint16_t sid;  /* 1..0xfffe; 0 with ipoe */
	uint8_t ipoe;  /* 1: an IPoE session, keyed by (line, MAC) with sid 0 */
	uint8_t mac[6];
	uint8_t ac_mac[6]; /* source of downstream frames */
	uint16_t tpid;	   /* outer TPID of the access port, 0x8100 or 0x88a8 */
	uint16_t group;
	uint16_t qos;
	uint32_t ipv4;	   /* network order; 0 = no IPv4 (then n_prefix6 > 0) */
	uint8_t n_prefix6; /* 0..SESSION6_MAX_PREFIX */
	uint8_t prefix6_len[SESSION6_MAX_PREFIX]; /* a length of a down6 table */
	uint8_t prefix6[SESSION6_MAX_PREFIX][16]; /* network order, host bits zero */
	uint16_t mtu;	/* 0: SESSION_DEFAULT_MTU(_IPOE); else 576..SESSION_MAX_MTU */
	uint32_t sched; /* HQoS pipe reference, opaque here */
};

/*
 * Whether slot s holds a session (live, or deleted and waiting for its grace
 * period): session_add() sets the MTU, a reused slot is zeroed. The PPPoE
 * session id cannot say it (IPoE sessions have 0).
 */
static inline int
session_live(const struct dp_session *s)
{
	return s->mtu != 0;
}

struct session_tables {
	/* read by the workers on every lookup; written at create and (down) on
	 * a rebuild */
	struct dp_session *sessions;
	uint32_t *up_heads;
	uint64_t *down;	     /* current downstream array: atomic pointer */
	uint32_t up_shift;   /* 64 - log2(up buckets) */
	uint32_t down_shift; /* 64 - log2(down entries) */
	uint32_t down_mask;  /* down entries - 1 */
	uint32_t capacity;
	/* IPv6: per-session state and one chained exact-match index per
	 * assigned prefix length (session_tables_set_v6), longest first */
	struct dp_session6 *s6;
	/* octets of dropped packets, parallel to sessions[]: written by the
	 * worker only on a drop (session_drop_up/down) */
	uint64_t *drop_bytes_up;
	uint64_t *drop_bytes_down;
	uint32_t *down6[SESSION6_MAX_TABLES];	  /* chain heads: links, SESSION_ID_NONE empty */
	uint64_t down6_mask[SESSION6_MAX_TABLES]; /* raw mask of the table's length */
	uint8_t down6_len[SESSION6_MAX_TABLES];
	uint8_t n_down6;
	uint32_t down6_shift; /* 64 - log2(heads per table) */
	/* control thread only, on its own cache line */
	uint64_t *down_spare __rte_cache_aligned;
	uint64_t spare_token; /* QSBR token the spare waits for */
	uint64_t down_rebuilds;
	uint64_t down_rebuilds_deferred; /* spare still in its grace period */
	uint32_t down_tombs;
	uint32_t down_empty;
	int spare_busy;
	struct rte_rcu_qsbr *qsbr;
	struct rte_rcu_qsbr_dq *dq;
	uint32_t *free_ids;
	uint32_t n_free;
	uint32_t count; /* live sessions (not counting ids waiting in dq) */
	uint32_t max_workers;
	char name[16]; /* prefix of the queue name */
};

/* Shape of the indexes (control thread; tests, benchmarks, telemetry). */
struct session_table_stats {
	uint32_t up_buckets;
	uint32_t up_used;      /* non-empty chains */
	uint32_t up_max_chain; /* longest chain, in sessions */
	uint32_t down_entries;
	uint32_t down_tombs;
	uint32_t down_empty;
	uint32_t down_max_probe; /* most entries read to find a live address */
	uint64_t up_links;	 /* sum over live sessions of the slots read to find it */
	uint64_t down_probes;	 /* sum over live addresses of the entries read */
	uint64_t down_rebuilds;
	uint64_t down_rebuilds_deferred; /* the spare was still in its grace period */
};

/* --- control thread -------------------------------------------------------- */

/*
 * Create the tables of name (unique per process) with room for capacity
 * sessions (0: SESSION_DEFAULT_CAPACITY; at most SESSION_MAX_CAPACITY) and
 * max_workers QSBR reader ids (1..SESSION_MAX_WORKERS), on socket. NULL with
 * rte_errno set on failure.
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

/* Try to return ids whose grace period is over to the free list; returns how
 * many. Also rebuilds the downstream index if it was deferred. */
uint32_t session_reclaim(struct session_tables *t);

/*
 * Create the downstream IPv6 tables: one per distinct length of lens (n of
 * them, 32..64 each, at most SESSION6_MAX_TABLES), each with 2^k >= 2 x
 * capacity chain heads. Once, before any session with IPv6 is added.
 * Returns 0, -EINVAL, -EEXIST (called twice) or -ENOMEM.
 */
int session_tables_set_v6(struct session_tables *t, const uint8_t *lens, unsigned int n,
			  int socket);

/* Raw (network byte order as loaded) mask of the upper 64 bits for a prefix length 0..64. */
static inline uint64_t
session6_mask(unsigned int len)
{
	return rte_cpu_to_be_64(len == 0 ? 0 : ~UINT64_C(0) << (64 - len));
}

/* Walk both indexes (O(capacity)) and fill *st. */
void session_table_stats(const struct session_tables *t, struct session_table_stats *st);

/* --- workers -------------------------------------------------------------- */

/* Register worker thread_id (0..max_workers-1) and put it online. */
int session_worker_register(struct session_tables *t, unsigned int thread_id);

/* Put the worker offline and unregister it (it will not block grace periods). */
void session_worker_unregister(struct session_tables *t, unsigned int thread_id);

/*
 * Control thread: wait for a grace period of the tables' QSBR variable, so no
 * worker still uses anything it read before the call (a session unlinked, a
 * line map replaced). Returns at once when no worker is online.
 */
void session_tables_sync(struct session_tables *t);

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

/*
 * Worker, drop path only: s (a session of t) lost an upstream (downstream)
 * packet of len octets (its IP packet, header included, as the forwarded
 * octets count). The packet count stays on the session's line; the octets go
 * to an array forwarding never touches. Plain stores: one worker per direction.
 * Out of line and cold (session.c), so that the forwarding code around a drop
 * site compiles as it did with a bare counter increment.
 */
void session_drop_up(const struct session_tables *t, struct dp_session *s, uint32_t len) __rte_cold;
void session_drop_down(const struct session_tables *t, struct dp_session *s,
		       uint32_t len) __rte_cold;

/* Upstream key word 0: line, S-tag, C-tag, PPPoE id, as laid out in both
 * struct cls_result and struct dp_session (checked in session.c). */
static inline uint64_t
session_key0_of(const struct cls_result *r)
{
	uint64_t k;

	memcpy(&k, (const uint8_t *)r + offsetof(struct cls_result, line), sizeof(k));
	return k;
}

/* Upstream key word 1: the 6 MAC bytes then 2 zero bytes, as an 8-byte load
 * of them would see it (built from a 4-byte and a 2-byte load). */
static inline uint64_t
session_key1_of(const uint8_t *mac)
{
	uint32_t lo;
	uint16_t hi;

	memcpy(&lo, mac, sizeof(lo));
	memcpy(&hi, mac + 4, sizeof(hi));
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	return (uint64_t)hi << 32 | lo;
#else
	return (uint64_t)lo << 32 | (uint64_t)hi << 16;
#endif
}

/* The bits of key word 1 that are the MAC (the other two bytes of the slot's
 * word hold the line group). */
static inline uint64_t
session_key1_mask(void)
{
	static const uint8_t b[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0};
	uint64_t m;

	memcpy(&m, b, sizeof(m));
	return m;
}

/* Whether slot s holds the key (k0, k1): two 8-byte loads, one mask. */
static inline int
session_key_eq(const struct dp_session *s, uint64_t k0, uint64_t k1)
{
	uint64_t w0, w1;

	memcpy(&w0, s, sizeof(w0));
	memcpy(&w1, (const uint8_t *)s + offsetof(struct dp_session, mac), sizeof(w1));
	return ((w0 ^ k0) | ((w1 ^ k1) & session_key1_mask())) == 0;
}

static inline uint32_t
session_up_bucket(const struct session_tables *t, uint64_t k0, uint64_t k1)
{
	return (uint32_t)(((k0 ^ (k1 * SESSION_HASH_MIX)) * SESSION_HASH_MUL) >> t->up_shift);
}

/* Home of an address (network order): in host order, consecutive addresses
 * of a pool are spread evenly by the golden-ratio multiplier. */
static inline uint32_t
session_down_home(uint32_t shift, uint32_t ipv4)
{
	return (uint32_t)(((uint64_t)rte_be_to_cpu_32(ipv4) * SESSION_HASH_MUL) >> shift);
}

/*
 * Upstream: ids[i] = session of (res[i].line, stag, ctag, sid, client_macs[i])
 * or SESSION_ID_NONE. Any n; SESSION_LOOKUP_STEP at a time: hash and
 * prefetch the heads, load the heads and prefetch the slots, then compare
 * and follow the chains. Returns the number of hits.
 */
static inline uint32_t
session_lookup_up_burst(const struct session_tables *t, const struct cls_result *res,
			const uint8_t *const *client_macs, uint16_t n, uint32_t *ids)
{
	uint64_t k0[SESSION_LOOKUP_STEP], k1[SESSION_LOOKUP_STEP];
	uint32_t cur[SESSION_LOOKUP_STEP];
	const struct dp_session *ss = t->sessions;
	const uint32_t *heads = t->up_heads;
	uint32_t hits = 0, id;
	uint16_t done, i, m;

	for (done = 0; done < n; done += m) {
		m = (uint16_t)RTE_MIN(n - done, (int)SESSION_LOOKUP_STEP);
		for (i = 0; i < m; i++) {
			k0[i] = session_key0_of(&res[done + i]);
			k1[i] = session_key1_of(client_macs[done + i]);
			cur[i] = session_up_bucket(t, k0[i], k1[i]);
			rte_prefetch0(&heads[cur[i]]);
		}
		for (i = 0; i < m; i++) {
			cur[i] = __atomic_load_n(&heads[cur[i]], __ATOMIC_ACQUIRE);
			if (cur[i] != SESSION_ID_NONE)
				rte_prefetch0(&ss[cur[i]]);
		}
		for (i = 0; i < m; i++) {
			id = cur[i];
			while (id != SESSION_ID_NONE && !session_key_eq(&ss[id], k0[i], k1[i]))
				id = __atomic_load_n(&ss[id].next_up, __ATOMIC_ACQUIRE);
			ids[done + i] = id;
			hits += id != SESSION_ID_NONE;
		}
	}
	return hits;
}

/* Downstream: ids[i] = session of address ipv4[i] (network order) or
 * SESSION_ID_NONE. Any n; hash and prefetch, then probe. */
static inline uint32_t
session_lookup_down_burst(const struct session_tables *t, const uint32_t *ipv4, uint16_t n,
			  uint32_t *ids)
{
	const uint64_t *tab = __atomic_load_n(&t->down, __ATOMIC_ACQUIRE);
	const uint32_t shift = t->down_shift, mask = t->down_mask;
	uint32_t pos[SESSION_LOOKUP_STEP];
	uint32_t hits = 0, a, p, id;
	uint16_t done, i, m;
	uint64_t e;

	for (done = 0; done < n; done += m) {
		m = (uint16_t)RTE_MIN(n - done, (int)SESSION_LOOKUP_STEP);
		for (i = 0; i < m; i++) {
			pos[i] = session_down_home(shift, ipv4[done + i]);
			rte_prefetch0(&tab[pos[i]]);
		}
		for (i = 0; i < m; i++) {
			a = ipv4[done + i];
			p = pos[i];
			e = __atomic_load_n(&tab[p], __ATOMIC_ACQUIRE);
			while ((uint32_t)e != a && (uint32_t)e != 0) {
				p = (p + 1) & mask;
				e = __atomic_load_n(&tab[p], __ATOMIC_ACQUIRE);
			}
			id = (uint32_t)(e >> 32);
			ids[done + i] = id;
			hits += id != SESSION_ID_NONE;
		}
	}
	return hits;
}

/* The upper 64 bits of the IPv6 address at a, raw. */
static inline uint64_t
session6_hi64(const uint8_t *a)
{
	uint64_t v;

	memcpy(&v, a, sizeof(v));
	return v;
}

static inline uint32_t
session6_bucket(uint32_t shift, uint64_t key)
{
	return (uint32_t)(((key ^ (key >> 29)) * SESSION_HASH_MUL) >> shift);
}

/*
 * Downstream IPv6: ids[i] = the session holding a prefix that contains the
 * destination whose upper 64 bits (raw) are hi[i], or SESSION_ID_NONE. The
 * tables are tried longest length first; a prefix is an exact match of the
 * masked address in its length's table: per table one hash, one head load
 * and the slots of its chain (prefixes of the same length never overlap).
 */
static inline uint32_t
session_lookup_down6_burst(const struct session_tables *t, const uint64_t *hi, uint16_t n,
			   uint32_t *ids)
{
	const struct dp_session6 *s6 = t->s6;
	uint32_t link[SESSION_LOOKUP_STEP];
	uint32_t hits = 0;
	uint16_t done, i, m;

	if (t->n_down6 == 0) {
		for (i = 0; i < n; i++)
			ids[i] = SESSION_ID_NONE;
		return 0;
	}
	for (done = 0; done < n; done += m) {
		m = (uint16_t)RTE_MIN(n - done, (int)SESSION_LOOKUP_STEP);
		/* the first (longest) table: prefetch the heads, then the first slots */
		for (i = 0; i < m; i++) {
			link[i] = session6_bucket(t->down6_shift, hi[done + i] & t->down6_mask[0]);
			rte_prefetch0(&t->down6[0][link[i]]);
		}
		for (i = 0; i < m; i++) {
			link[i] = __atomic_load_n(&t->down6[0][link[i]], __ATOMIC_ACQUIRE);
			if (link[i] != SESSION_ID_NONE)
				rte_prefetch0(&s6[link[i] >> 1]);
		}
		for (i = 0; i < m; i++) {
			uint32_t id = SESSION_ID_NONE;

			for (unsigned int j = 0; j < t->n_down6 && id == SESSION_ID_NONE; j++) {
				uint64_t key = hi[done + i] & t->down6_mask[j];
				uint32_t l = j == 0 ? link[i]
						    : __atomic_load_n(&t->down6[j][session6_bucket(
									      t->down6_shift, key)],
								      __ATOMIC_ACQUIRE);

				while (l != SESSION_ID_NONE) {
					const struct dp_session6 *s = &s6[l >> 1];

					if (s->pfx[l & 1] == key &&
					    s->plen[l & 1] == t->down6_len[j]) {
						id = l >> 1;
						break;
					}
					l = __atomic_load_n(&s->next[l & 1], __ATOMIC_ACQUIRE);
				}
			}
			ids[done + i] = id;
			hits += id != SESSION_ID_NONE;
		}
	}
	return hits;
}

/* Anti-spoofing IPv6: the source's upper 64 bits (raw) inside one of the session's prefixes. */
static inline int
session6_src_ok(const struct dp_session6 *s, uint64_t src_hi)
{
	for (unsigned int k = 0; k < s->n && k < SESSION6_MAX_PREFIX; k++)
		if ((src_hi & session6_mask(s->plen[k])) == s->pfx[k])
			return 1;
	return 0;
}

static inline struct dp_session6 *
session6_get(const struct session_tables *t, uint32_t id)
{
	return &t->s6[id];
}

/* Anti-spoofing: an upstream IPv4 source (network order) must be the session's. */
static inline int
session_src_ok(const struct dp_session *s, uint32_t src_ipv4)
{
	return s->ipv4 == src_ipv4;
}

#endif /* BNG_SESSION_H */

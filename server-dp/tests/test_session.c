/*
 * Tests of the session tables (session.h).
 *
 * usage: test_session
 *
 * The EAL is initialised as in test_rewrite (--no-huge -m 128 --no-pci
 * --no-shconf). Covers: add / lookup / delete round trips both ways,
 * duplicates of either key refused with the tables unchanged, hijack attempts
 * (another line, S-tag, C-tag, session id or MAC), a full table of 65536
 * sessions (-ENOSPC, every session found both ways), delete then re-add,
 * ids held back until a registered reader reports quiescence, QoS updates;
 * upstream chains (one PPPoE id on 16 lines, 8 sessions forced into one
 * bucket and deleted in the middle, at the head, at the tail); downstream
 * probe sequences with tombstones (kept while a live probe crosses them,
 * purged otherwise, reused by inserts); a model check of random adds and
 * deletes over keys crowded into few buckets and homes, forcing rebuilds; a
 * reader pthread looking up for ~1 s while this thread adds and deletes,
 * checking every hit against the key it looked up; and the same on crowded
 * indexes, where sessions live throughout must always be found. Prints the
 * heap used by 65536 sessions and the shape of the crowded runs. The last
 * line of output is "N passed, M failed"; the exit status is 1 when M > 0.
 */

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "session.h"
#define HARNESS_EAL
#include "harness.h"

static const uint8_t AC_MAC[6] = {0x02, 0xaa, 0x00, 0x00, 0x00, 0x01};

/* Session number k: distinct upstream key and address for every k < 2^20. */
static void
params_of(uint32_t k, struct dp_session_params *p)
{
	memset(p, 0, sizeof(*p));
	p->line = (uint16_t)(k % 7);
	p->stag = (uint16_t)(1 + (k >> 12) % 4094);
	p->ctag = (uint16_t)(1 + k % 4094);
	p->sid = (uint16_t)(1 + k % 0xfffe);
	p->mac[0] = 0x02;
	p->mac[3] = (uint8_t)(k >> 16);
	p->mac[4] = (uint8_t)(k >> 8);
	p->mac[5] = (uint8_t)k;
	memcpy(p->ac_mac, AC_MAC, 6);
	p->tpid = k & 1 ? 0x88a8 : 0x8100;
	p->group = (uint16_t)(k % 3);
	p->qos = (uint16_t)(k % 5);
	p->ipv4 = rte_cpu_to_be_32(0x64400000u + k + 1); /* 100.64.0.0/10 */
}

static void
result_of(const struct dp_session_params *p, struct cls_result *r)
{
	memset(r, 0, sizeof(*r));
	r->kind = CLS_PPPOE_SESS_IPV4;
	r->line = p->line;
	r->stag = p->stag;
	r->ctag = p->ctag;
	r->sid = p->sid;
}

static uint32_t
lookup_up(const struct session_tables *t, const struct dp_session_params *p)
{
	const uint8_t *mac = p->mac;
	struct cls_result r;
	uint32_t id;

	result_of(p, &r);
	session_lookup_up_burst(t, &r, &mac, 1, &id);
	return id;
}

static uint32_t
lookup_down(const struct session_tables *t, uint32_t ipv4)
{
	uint32_t id;

	session_lookup_down_burst(t, &ipv4, 1, &id);
	return id;
}

static bool
session_matches(const struct dp_session *s, const struct dp_session_params *p)
{
	return s->line == p->line && s->stag == p->stag && s->ctag == p->ctag && s->sid == p->sid &&
	       memcmp(s->mac, p->mac, 6) == 0 && s->ipv4 == p->ipv4;
}

static void
test_round_trip(void)
{
	struct session_tables *t = session_tables_create("rt", 1024, 1, SOCKET_ID_ANY);
	struct dp_session_params p, q, h;
	uint32_t id = 99, id2 = 99;
	const struct dp_session *s;

	check(t != NULL, "round trip", "create");
	if (t == NULL)
		return;
	params_of(5, &p);
	check(session_add(t, &p, &id) == 0 && id == 0, "round trip", "add gives id 0");
	check(session_count(t) == 1, "round trip", "count 1");
	check(lookup_up(t, &p) == id, "round trip", "upstream lookup");
	check(lookup_down(t, p.ipv4) == id, "round trip", "downstream lookup");
	s = session_get(t, id);
	check(session_matches(s, &p) && s->group == p.group && s->qos == p.qos, "round trip",
	      "stored fields");
	check(s->encap.hdr[0] == 0x02 && s->encap.hdr[5] == 5 && s->encap.hdr[12] == 0x88 &&
		      s->encap.hdr[13] == 0xa8,
	      "round trip", "encap template: subscriber MAC, TPID 0x88a8");
	check(session_src_ok(s, p.ipv4) && !session_src_ok(s, p.ipv4 ^ rte_cpu_to_be_32(1)),
	      "round trip", "anti-spoof");
	check(session_modify_qos(t, id, 9) == 0 && s->qos == 9, "round trip", "modify qos");
	check(session_modify_qos(t, 500, 9) == -ENOENT, "round trip", "modify qos of a free id");

	/* Duplicates: the same upstream key with another address, the same
	 * address with another key. */
	q = p;
	q.ipv4 = rte_cpu_to_be_32(0x0a000001);
	check(session_add(t, &q, &id2) == -EEXIST && id2 == 99, "duplicate", "upstream key");
	params_of(6, &q);
	q.ipv4 = p.ipv4;
	check(session_add(t, &q, &id2) == -EEXIST && id2 == 99, "duplicate", "address");
	check(session_count(t) == 1 && lookup_up(t, &p) == id && lookup_down(t, p.ipv4) == id &&
		      lookup_up(t, &q) == SESSION_ID_NONE && session_matches(s, &p),
	      "duplicate", "tables unchanged");
	params_of(7, &q);
	q.stag = 0;
	check(session_add(t, &q, &id2) == -EINVAL && session_count(t) == 1 &&
		      lookup_down(t, q.ipv4) == SESSION_ID_NONE,
	      "invalid", "S-tag 0 refused, nothing added");

	/* Hijack attempts: one field of the key differs. */
	h = p;
	h.line = (uint16_t)(p.line + 1);
	check(lookup_up(t, &h) == SESSION_ID_NONE, "hijack", "other line");
	h = p;
	h.stag = (uint16_t)(p.stag + 1);
	check(lookup_up(t, &h) == SESSION_ID_NONE, "hijack", "other S-tag");
	h = p;
	h.ctag = (uint16_t)(p.ctag + 1);
	check(lookup_up(t, &h) == SESSION_ID_NONE, "hijack", "other C-tag");
	h = p;
	h.sid = (uint16_t)(p.sid + 1);
	check(lookup_up(t, &h) == SESSION_ID_NONE, "hijack", "other session id");
	h = p;
	h.mac[5] ^= 1;
	check(lookup_up(t, &h) == SESSION_ID_NONE, "hijack", "other MAC");
	h = p;
	h.mac[0] ^= 0x80;
	check(lookup_up(t, &h) == SESSION_ID_NONE, "hijack", "other MAC first byte");

	/* Delete, then re-add the same key. No reader is registered, so the
	 * grace period is over at once. */
	check(session_del(t, id) == 0 && session_count(t) == 0, "delete", "del");
	check(lookup_up(t, &p) == SESSION_ID_NONE && lookup_down(t, p.ipv4) == SESSION_ID_NONE,
	      "delete", "both keys gone");
	check(session_del(t, id) == -ENOENT, "delete", "twice");
	check(session_add(t, &p, &id2) == 0 && lookup_up(t, &p) == id2 &&
		      lookup_down(t, p.ipv4) == id2 && session_count(t) == 1,
	      "delete", "re-add the same key");
	check(session_del(t, id2) == 0 && session_count(t) == 0, "delete", "del again");
	session_tables_free(t);
}

static void
test_grace_period(void)
{
	struct session_tables *t = session_tables_create("gp", 4, 2, SOCKET_ID_ANY);
	struct dp_session_params p;
	uint32_t ids[4], id = 99, k;
	bool ok = true;

	check(t != NULL, "grace", "create");
	if (t == NULL)
		return;
	/* Reader 1 is online and has not reported a quiescent state. */
	check(session_worker_register(t, 1) == 0, "grace", "register reader");
	for (k = 0; k < 4; k++) {
		params_of(k, &p);
		ok = ok && session_add(t, &p, &ids[k]) == 0;
	}
	check(ok, "grace", "fill 4");
	params_of(4, &p);
	check(session_add(t, &p, &id) == -ENOSPC && session_count(t) == 4 &&
		      lookup_down(t, p.ipv4) == SESSION_ID_NONE,
	      "grace", "full: -ENOSPC, nothing added");
	check(session_del(t, ids[2]) == 0 && session_count(t) == 3 && session_pending(t) == 1,
	      "grace", "deleted id pending");
	check(session_add(t, &p, &id) == -ENOSPC && id == 99, "grace",
	      "reader not quiescent: id not reused");
	check(session_reclaim(t) == 0 && session_pending(t) == 1, "grace", "reclaim blocked");
	check(session_get(t, ids[2])->ipv4 != 0, "grace", "slot keeps its contents");
	session_worker_quiescent(t, 1);
	check(session_add(t, &p, &id) == 0 && id == ids[2] && session_pending(t) == 0, "grace",
	      "after quiescence the id is reused");
	check(lookup_up(t, &p) == id && lookup_down(t, p.ipv4) == id, "grace", "reused id found");
	session_worker_unregister(t, 1);
	session_tables_free(t);
}

static void
test_full(void)
{
	const uint32_t cap = SESSION_DEFAULT_CAPACITY;
	struct rte_malloc_socket_stats before, after;
	struct dp_session_params p;
	struct cls_result res[32];
	const uint8_t *macs[32];
	struct dp_session_params ps[32];
	uint32_t ipv4[32], up[32], down[32], id, k, i, bad_add = 0, bad_up = 0, bad_down = 0;
	struct session_tables *t;
	int sock = 0;
	size_t used;

	rte_malloc_get_socket_stats(sock, &before);
	t = session_tables_create("full", 0, 1, sock);
	check(t != NULL && t->capacity == cap, "full", "create default capacity");
	if (t == NULL)
		return;
	rte_malloc_get_socket_stats(sock, &after);
	used = after.heap_allocsz_bytes - before.heap_allocsz_bytes;
	printf("memory: %u sessions: %zu bytes (%.1f MiB, %.0f bytes per session; store %zu)\n",
	       cap, used, used / 1048576.0, (double)used / cap,
	       (size_t)cap * sizeof(struct dp_session));
	check(sizeof(struct dp_session) == 128, "full", "struct dp_session is 2 cache lines");
	for (k = 0; k < cap; k++) {
		params_of(k, &p);
		if (session_add(t, &p, &id) != 0 || id != k)
			bad_add++;
	}
	check(bad_add == 0 && session_count(t) == cap, "full", "65536 sessions added");
	params_of(cap, &p);
	check(session_add(t, &p, &id) == -ENOSPC, "full", "65537th: -ENOSPC");
	check(lookup_down(t, p.ipv4) == SESSION_ID_NONE && session_count(t) == cap, "full",
	      "nothing added");
	for (k = 0; k < cap; k += 32) {
		for (i = 0; i < 32; i++) {
			params_of(k + i, &ps[i]);
			result_of(&ps[i], &res[i]);
			macs[i] = ps[i].mac;
			ipv4[i] = ps[i].ipv4;
		}
		if (session_lookup_up_burst(t, res, macs, 32, up) != 32)
			bad_up++;
		if (session_lookup_down_burst(t, ipv4, 32, down) != 32)
			bad_down++;
		for (i = 0; i < 32; i++) {
			bad_up += up[i] != k + i;
			bad_down += down[i] != k + i;
		}
	}
	check(bad_up == 0, "full", "all 65536 found upstream, bursts of 32");
	check(bad_down == 0, "full", "all 65536 found downstream, bursts of 32");
	/* Hijack at full load: the key of k with the MAC of k + 1. */
	params_of(100, &p);
	p.mac[5] = 101;
	check(lookup_up(t, &p) == SESSION_ID_NONE, "full", "other MAC not found at full load");
	/* Free half, add them back under the same keys. */
	for (k = 0; k < cap; k += 2)
		bad_add += session_del(t, k) != 0;
	check(bad_add == 0 && session_count(t) == cap / 2, "full", "half deleted");
	for (k = 0; k < cap; k += 2) {
		params_of(k, &p);
		bad_add += session_add(t, &p, &id) != 0;
		bad_add += lookup_up(t, &p) != id;
	}
	check(bad_add == 0 && session_count(t) == cap, "full", "half re-added and found");
	session_tables_free(t);
}

/* --- concurrent reader ---------------------------------------------------- */

#define CONC_KEYS 2048
#define CONC_MIN_LOOKUPS 100000

struct conc {
	struct session_tables *t;
	volatile int stop;
	uint64_t lookups, hits, bad;
};

static void *
reader(void *arg)
{
	struct conc *c = arg;
	struct dp_session_params ps[32];
	struct cls_result res[32];
	const uint8_t *macs[32];
	uint32_t ipv4[32], up[32], down[32], i;
	uint64_t r = 0x853c49e6748fea9bULL;
	long cpu, n_cpu = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	/* The EAL pinned the main thread to one CPU and this thread inherited
	 * it: run anywhere, so reader and writer really overlap. */
	CPU_ZERO(&set);
	for (cpu = 0; cpu < n_cpu && cpu < CPU_SETSIZE; cpu++)
		CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	session_worker_register(c->t, 0);
	while (!c->stop) {
		for (i = 0; i < 32; i++) {
			r ^= r << 13;
			r ^= r >> 7;
			r ^= r << 17;
			params_of((uint32_t)(r % CONC_KEYS), &ps[i]);
			result_of(&ps[i], &res[i]);
			macs[i] = ps[i].mac;
			ipv4[i] = ps[i].ipv4;
		}
		c->hits += session_lookup_up_burst(c->t, res, macs, 32, up);
		c->hits += session_lookup_down_burst(c->t, ipv4, 32, down);
		for (i = 0; i < 32; i++) {
			if (up[i] != SESSION_ID_NONE &&
			    !session_matches(session_get(c->t, up[i]), &ps[i]))
				c->bad++;
			if (down[i] != SESSION_ID_NONE &&
			    !session_matches(session_get(c->t, down[i]), &ps[i]))
				c->bad++;
		}
		__atomic_store_n(&c->lookups, c->lookups + 64, __ATOMIC_RELAXED);
		/* Done with every id of this burst. */
		session_worker_quiescent(c->t, 0);
	}
	session_worker_unregister(c->t, 0);
	return NULL;
}

static void
test_concurrent(void)
{
	static uint32_t id_of[CONC_KEYS];
	struct conc c = {0};
	struct dp_session_params p;
	uint64_t adds = 0, dels = 0, full = 0, end, max_end, now, r = 0x2545f4914f6cdd1dULL;
	uint32_t k, bad = 0;
	pthread_t th;
	int rc;

	/* Few ids for the keys, so they are reused while the reader runs. */
	c.t = session_tables_create("conc", CONC_KEYS / 2, 1, SOCKET_ID_ANY);
	check(c.t != NULL, "concurrent", "create");
	if (c.t == NULL)
		return;
	for (k = 0; k < CONC_KEYS; k++)
		id_of[k] = SESSION_ID_NONE;
	if (pthread_create(&th, NULL, reader, &c) != 0) {
		check(false, "concurrent", "pthread_create");
		session_tables_free(c.t);
		return;
	}
	/*
	 * At least one second; on a loaded machine the reader may get little CPU
	 * at first, so go on (up to 30 s) until it has done enough lookups.
	 */
	end = rte_get_tsc_cycles() + rte_get_tsc_hz();
	max_end = rte_get_tsc_cycles() + 30 * rte_get_tsc_hz();
	for (;;) {
		now = rte_get_tsc_cycles();
		if (now >= max_end ||
		    (now >= end &&
		     __atomic_load_n(&c.lookups, __ATOMIC_RELAXED) > CONC_MIN_LOOKUPS &&
		     adds > 1000 && dels > 1000))
			break;
		r ^= r << 13;
		r ^= r >> 7;
		r ^= r << 17;
		k = (uint32_t)(r % CONC_KEYS);
		if (id_of[k] == SESSION_ID_NONE) {
			params_of(k, &p);
			rc = session_add(c.t, &p, &id_of[k]);
			if (rc == 0)
				adds++;
			else if (rc == -ENOSPC)
				full++;
			else
				bad++;
		} else {
			bad += session_del(c.t, id_of[k]) != 0;
			id_of[k] = SESSION_ID_NONE;
			dels++;
		}
	}
	c.stop = 1;
	pthread_join(th, NULL);
	printf("concurrent: %" PRIu64 " adds, %" PRIu64 " deletes, %" PRIu64 " lookups, %" PRIu64
	       " hits, %" PRIu64 " mismatches, %" PRIu64 " -ENOSPC, %u live at the end\n",
	       adds, dels, c.lookups, c.hits, c.bad, full, session_count(c.t));
	check(bad == 0, "concurrent", "control operations succeed");
	check(adds > 1000 && dels > 1000, "concurrent", "enough adds and deletes");
	check(c.lookups > CONC_MIN_LOOKUPS && c.hits > 0, "concurrent", "reader ran and hit");
	check(c.bad == 0, "concurrent", "every hit matches the key looked up");
	session_tables_free(c.t);
}

/* --- chains, probe sequences, tombstones ------------------------------------ */

/* Session number k of a forced collision set: key and address given. */
static void
params_key(struct dp_session_params *p, uint16_t line, uint16_t sid, uint32_t mac_low,
	   uint32_t ipv4_host)
{
	memset(p, 0, sizeof(*p));
	p->line = line;
	p->stag = 100;
	p->ctag = 200;
	p->sid = sid;
	p->mac[0] = 0x02;
	p->mac[3] = (uint8_t)(mac_low >> 16);
	p->mac[4] = (uint8_t)(mac_low >> 8);
	p->mac[5] = (uint8_t)mac_low;
	memcpy(p->ac_mac, AC_MAC, 6);
	p->tpid = 0x8100;
	p->ipv4 = rte_cpu_to_be_32(ipv4_host);
}

static uint32_t
up_bucket_of(const struct session_tables *t, const struct dp_session_params *p)
{
	struct cls_result r;

	result_of(p, &r);
	return session_up_bucket(t, session_key0_of(&r), session_key1_of(p->mac));
}

/*
 * n MAC numbers, from *next on, whose key (line, sid, MAC) falls in bucket b:
 * a chain of n sessions.
 */
static void
macs_in_bucket(const struct session_tables *t, uint16_t line, uint16_t sid, uint32_t b,
	       uint32_t *next, uint32_t *out, unsigned int n)
{
	struct dp_session_params p;
	unsigned int found = 0;

	while (found < n) {
		params_key(&p, line, sid, *next, 1);
		if (up_bucket_of(t, &p) == b)
			out[found++] = *next;
		(*next)++;
	}
}

/* n host-order addresses, from *next on, whose home is h. */
static void
addrs_at_home(const struct session_tables *t, uint32_t h, uint32_t *next, uint32_t *out,
	      unsigned int n)
{
	unsigned int found = 0;

	while (found < n) {
		if (session_down_home(t->down_shift, rte_cpu_to_be_32(*next)) == h)
			out[found++] = *next;
		(*next)++;
	}
}

static void
test_chains(void)
{
	struct session_tables *t = session_tables_create("chain", 64, 1, SOCKET_ID_ANY);
	struct dp_session_params p[16], q;
	struct session_table_stats st;
	uint32_t ids[16], macs[8], next = 1, b, k, bad = 0;
	static const unsigned int del_order[8] = {3, 7, 0, 5, 1, 6, 2, 4};
	bool gone[8] = {false};

	check(t != NULL, "chain", "create");
	if (t == NULL)
		return;
	/* The same PPPoE id, tags and MAC on 16 lines: 16 sessions. */
	for (k = 0; k < 16; k++) {
		params_key(&p[k], (uint16_t)k, 7, 0x42, 0x0a000001 + k);
		bad += session_add(t, &p[k], &ids[k]) != 0;
	}
	check(bad == 0, "chain", "PPPoE id 7 on 16 lines added");
	for (k = 0; k < 16; k++) {
		bad += lookup_up(t, &p[k]) != ids[k];
		bad += lookup_down(t, p[k].ipv4) != ids[k];
	}
	check(bad == 0, "chain", "each line finds its own session both ways");
	params_key(&q, 16, 7, 0x42, 0x0a0000ff);
	check(lookup_up(t, &q) == SESSION_ID_NONE, "chain", "PPPoE id 7 on a 17th line not found");
	for (k = 0; k < 16; k += 2)
		bad += session_del(t, ids[k]) != 0;
	for (k = 0; k < 16; k++)
		bad += lookup_up(t, &p[k]) != (k % 2 ? ids[k] : SESSION_ID_NONE);
	check(bad == 0, "chain", "every other line deleted, the others still found");
	for (k = 1; k < 16; k += 2)
		bad += session_del(t, ids[k]) != 0;
	check(bad == 0 && session_count(t) == 0, "chain", "all deleted");

	/* Eight sessions forced into one bucket: a chain of 8; delete in the
	 * middle, at the head (the last added), at the tail (the first). */
	b = up_bucket_of(t, &p[0]);
	macs_in_bucket(t, 3, 0x1234, b, &next, macs, 8);
	for (k = 0; k < 8; k++) {
		params_key(&p[k], 3, 0x1234, macs[k], 0x0b000001 + k);
		bad += session_add(t, &p[k], &ids[k]) != 0;
	}
	session_table_stats(t, &st);
	check(bad == 0 && st.up_max_chain == 8 && st.up_used == 1, "chain",
	      "8 sessions in one bucket: one chain of 8");
	for (k = 0; k < 8; k++)
		bad += lookup_up(t, &p[k]) != ids[k];
	check(bad == 0, "chain", "every link of the chain found");
	params_key(&q, 3, 0x1234, macs[7] + 1, 0x0c000001);
	check(lookup_up(t, &q) == SESSION_ID_NONE, "chain", "a MAC not in the chain: miss");
	for (unsigned int d = 0; d < 8; d++) {
		bad += session_del(t, ids[del_order[d]]) != 0;
		gone[del_order[d]] = true;
		for (k = 0; k < 8; k++)
			bad += lookup_up(t, &p[k]) != (gone[k] ? SESSION_ID_NONE : ids[k]);
	}
	session_table_stats(t, &st);
	check(bad == 0 && st.up_used == 0, "chain",
	      "deleted middle, head, tail in turn: the rest always found, chain empty");
	for (k = 0; k < 8; k++)
		bad += session_add(t, &p[k], &ids[k]) != 0 || lookup_up(t, &p[k]) != ids[k];
	check(bad == 0, "chain", "re-added into the same chain");
	session_tables_free(t);
}

static void
test_probe(void)
{
	struct session_tables *t = session_tables_create("probe", 64, 1, SOCKET_ID_ANY);
	struct dp_session_params p[8], q;
	struct session_table_stats st;
	uint32_t ids[8], addr[9], next = 0x0a000001, h, k, id, bad = 0;

	check(t != NULL, "probe", "create");
	if (t == NULL)
		return;
	/* Nine addresses with the same home h: one cluster h .. h+5 of six. */
	h = 17;
	addrs_at_home(t, h, &next, addr, 9);
	for (k = 0; k < 6; k++) {
		params_of(k, &p[k]);
		p[k].ipv4 = rte_cpu_to_be_32(addr[k]);
		bad += session_add(t, &p[k], &ids[k]) != 0;
	}
	session_table_stats(t, &st);
	check(bad == 0 && st.down_max_probe == 6 && st.down_tombs == 0, "probe",
	      "6 addresses of one home: probe of 6");
	for (k = 0; k < 6; k++)
		bad += lookup_down(t, p[k].ipv4) != ids[k];
	check(bad == 0 && lookup_down(t, rte_cpu_to_be_32(addr[8])) == SESSION_ID_NONE, "probe",
	      "each found; an absent one of the same home misses");
	/* Delete the 2nd and 4th: tombstones crossed by the 3rd, 5th, 6th stay. */
	bad += session_del(t, ids[1]) != 0;
	bad += session_del(t, ids[3]) != 0;
	session_table_stats(t, &st);
	check(bad == 0 && st.down_tombs == 2, "probe", "two tombstones inside the cluster");
	for (k = 0; k < 6; k++)
		bad += lookup_down(t, p[k].ipv4) != (k == 1 || k == 3 ? SESSION_ID_NONE : ids[k]);
	check(bad == 0, "probe", "the addresses behind the tombstones found, deleted ones miss");
	/* Delete the 6th (cluster end): nothing crosses it; the 4th's tombstone
	 * is still crossed by the 5th. Then the 5th: both purged. */
	bad += session_del(t, ids[5]) != 0;
	session_table_stats(t, &st);
	check(bad == 0 && st.down_tombs == 2, "probe", "end of cluster deleted: purged at once");
	bad += session_del(t, ids[4]) != 0;
	session_table_stats(t, &st);
	check(bad == 0 && st.down_tombs == 1 && st.down_max_probe == 3, "probe",
	      "tail freed: only the 2nd's tombstone (crossed by the 3rd) stays");
	/* A new address of the same home reuses that tombstone. */
	params_of(6, &q);
	q.ipv4 = rte_cpu_to_be_32(addr[6]);
	bad += session_add(t, &q, &id) != 0;
	session_table_stats(t, &st);
	check(bad == 0 && st.down_tombs == 0 && lookup_down(t, q.ipv4) == id &&
		      lookup_down(t, p[2].ipv4) == ids[2] &&
		      lookup_down(t, p[1].ipv4) == SESSION_ID_NONE,
	      "probe", "insert reuses the tombstone; the 3rd still found");
	/* Address 0 (never a session's) stops at an empty entry. */
	check(lookup_down(t, 0) == SESSION_ID_NONE, "probe", "address 0 misses");
	session_tables_free(t);
}

/*
 * Random adds and deletes over keys crowded into few buckets and homes,
 * checked after every operation against a plain array: every key found
 * both ways exactly when the model says it is live, with its id.
 */
#define MODEL_KEYS 96
#define MODEL_OPS 20000

static void
test_model(void)
{
	struct session_tables *t = session_tables_create("model", 48, 1, SOCKET_ID_ANY);
	static struct dp_session_params p[MODEL_KEYS];
	uint32_t id_of[MODEL_KEYS], macs[MODEL_KEYS / 3], addrs[MODEL_KEYS],
		next_mac = 1, next_addr = 0x0a000001, k, i, op, id, bad_op = 0, bad_look = 0,
		bad_shape = 0, max_tombs = 0;
	struct session_table_stats st;
	uint64_t r = 0x9e3779b97f4a7c15ULL;
	int rc;

	check(t != NULL, "model", "create");
	if (t == NULL)
		return;
	/* Keys: 3 lines x 32 MACs, all 96 in 3 buckets; addresses: 96 with 4
	 * homes, so probes cross long clusters and tombstones pile up. */
	for (i = 0; i < 3; i++) {
		macs_in_bucket(t, (uint16_t)i, 9, 5 + 40 * i, &next_mac, macs, MODEL_KEYS / 3);
		for (k = 0; k < MODEL_KEYS / 3; k++)
			params_key(&p[i * (MODEL_KEYS / 3) + k], (uint16_t)i, 9, macs[k], 1);
	}
	for (i = 0; i < 4; i++)
		addrs_at_home(t, 3 + 25 * i, &next_addr, &addrs[i * (MODEL_KEYS / 4)],
			      MODEL_KEYS / 4);
	for (k = 0; k < MODEL_KEYS; k++) {
		p[k].ipv4 = rte_cpu_to_be_32(addrs[(k * 37) % MODEL_KEYS]);
		id_of[k] = SESSION_ID_NONE;
	}
	for (op = 0; op < MODEL_OPS; op++) {
		r ^= r << 13;
		r ^= r >> 7;
		r ^= r << 17;
		k = (uint32_t)(r % MODEL_KEYS);
		if (id_of[k] == SESSION_ID_NONE) {
			rc = session_add(t, &p[k], &id);
			if (rc == 0)
				id_of[k] = id;
			else if (rc != -ENOSPC || session_count(t) != 48)
				bad_op++;
		} else {
			bad_op += session_del(t, id_of[k]) != 0;
			id_of[k] = SESSION_ID_NONE;
		}
		for (i = 0; i < MODEL_KEYS; i++) {
			bad_look += lookup_up(t, &p[i]) != id_of[i];
			bad_look += lookup_down(t, p[i].ipv4) != id_of[i];
		}
		session_table_stats(t, &st);
		max_tombs = RTE_MAX(max_tombs, st.down_tombs);
		bad_shape += st.down_tombs != t->down_tombs || st.down_empty != t->down_empty ||
			     st.down_empty < st.down_entries / 4 ||
			     st.down_entries - st.down_empty - st.down_tombs != session_count(t);
	}
	session_table_stats(t, &st);
	printf("model: %u operations, %u live at the end, %" PRIu64
	       " rebuilds, at most %u tombstones of %u entries, longest chain %u, longest "
	       "probe %u\n",
	       MODEL_OPS, session_count(t), st.down_rebuilds, max_tombs, st.down_entries,
	       st.up_max_chain, st.down_max_probe);
	check(bad_op == 0, "model", "adds and deletes as the model says");
	check(bad_look == 0, "model", "every lookup both ways as the model says");
	check(bad_shape == 0, "model", "tombstones and empties counted; a quarter always empty");
	check(st.down_rebuilds > 0, "model", "tombstones forced rebuilds");
	session_tables_free(t);
}

/*
 * A reader racing churn on crowded indexes: 128 keys in 4 upstream buckets
 * (chains of up to 64), 128 addresses of 4 homes (long clusters, tombstone
 * reuse, rebuilds while the reader probes). 8 anchor keys stay live all the
 * time and must always be found both ways; every hit must be the session of
 * the key looked up.
 */
#define CROWD_KEYS 128
#define CROWD_ANCHORS 8

struct crowd {
	struct session_tables *t;
	struct dp_session_params p[CROWD_KEYS];
	volatile int stop;
	uint64_t lookups, hits, bad, anchor_miss;
};

static void *
crowd_reader(void *arg)
{
	struct crowd *c = arg;
	const struct dp_session_params *ps[32];
	struct cls_result res[32];
	const uint8_t *macs[32];
	uint32_t ipv4[32], up[32], down[32], i, k;
	uint64_t r = 0x853c49e6748fea9bULL;
	long cpu, n_cpu = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	CPU_ZERO(&set);
	for (cpu = 0; cpu < n_cpu && cpu < CPU_SETSIZE; cpu++)
		CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	session_worker_register(c->t, 0);
	while (!c->stop) {
		for (i = 0; i < 32; i++) {
			r ^= r << 13;
			r ^= r >> 7;
			r ^= r << 17;
			k = (uint32_t)(r % CROWD_KEYS);
			ps[i] = &c->p[k];
			result_of(ps[i], &res[i]);
			macs[i] = ps[i]->mac;
			ipv4[i] = ps[i]->ipv4;
		}
		c->hits += session_lookup_up_burst(c->t, res, macs, 32, up);
		c->hits += session_lookup_down_burst(c->t, ipv4, 32, down);
		for (i = 0; i < 32; i++) {
			k = (uint32_t)(ps[i] - c->p);
			if (up[i] != SESSION_ID_NONE &&
			    !session_matches(session_get(c->t, up[i]), ps[i]))
				c->bad++;
			if (down[i] != SESSION_ID_NONE &&
			    !session_matches(session_get(c->t, down[i]), ps[i]))
				c->bad++;
			if (k < CROWD_ANCHORS &&
			    (up[i] == SESSION_ID_NONE || down[i] == SESSION_ID_NONE))
				c->anchor_miss++;
		}
		__atomic_store_n(&c->lookups, c->lookups + 64, __ATOMIC_RELAXED);
		session_worker_quiescent(c->t, 0);
	}
	session_worker_unregister(c->t, 0);
	return NULL;
}

static void
test_concurrent_crowded(void)
{
	static struct crowd c;
	struct session_table_stats st;
	uint32_t id_of[CROWD_KEYS], macs[CROWD_KEYS / 4], addrs[CROWD_KEYS],
		next_mac = 1, next_addr = 0x0a000001, k, i, bad = 0;
	uint64_t adds = 0, dels = 0, end, max_end, now, r = 0x2545f4914f6cdd1dULL;
	pthread_t th;
	int rc;

	memset(&c, 0, sizeof(c));
	c.t = session_tables_create("crowd", 64, 1, SOCKET_ID_ANY);
	check(c.t != NULL, "crowded", "create");
	if (c.t == NULL)
		return;
	for (i = 0; i < 4; i++) {
		macs_in_bucket(c.t, (uint16_t)(i + 1), 77, 11 + 30 * i, &next_mac, macs,
			       CROWD_KEYS / 4);
		for (k = 0; k < CROWD_KEYS / 4; k++)
			params_key(&c.p[i * (CROWD_KEYS / 4) + k], (uint16_t)(i + 1), 77, macs[k],
				   1);
		addrs_at_home(c.t, 7 + 32 * i, &next_addr, &addrs[i * (CROWD_KEYS / 4)],
			      CROWD_KEYS / 4);
	}
	for (k = 0; k < CROWD_KEYS; k++) {
		c.p[k].ipv4 = rte_cpu_to_be_32(addrs[(k * 37) % CROWD_KEYS]);
		id_of[k] = SESSION_ID_NONE;
	}
	for (k = 0; k < CROWD_ANCHORS; k++)
		bad += session_add(c.t, &c.p[k], &id_of[k]) != 0;
	if (pthread_create(&th, NULL, crowd_reader, &c) != 0) {
		check(false, "crowded", "pthread_create");
		session_tables_free(c.t);
		return;
	}
	end = rte_get_tsc_cycles() + rte_get_tsc_hz();
	max_end = rte_get_tsc_cycles() + 30 * rte_get_tsc_hz();
	for (;;) {
		now = rte_get_tsc_cycles();
		if (now >= max_end ||
		    (now >= end &&
		     __atomic_load_n(&c.lookups, __ATOMIC_RELAXED) > CONC_MIN_LOOKUPS &&
		     adds > 1000 && c.t->down_rebuilds > 10))
			break;
		r ^= r << 13;
		r ^= r >> 7;
		r ^= r << 17;
		k = CROWD_ANCHORS + (uint32_t)(r % (CROWD_KEYS - CROWD_ANCHORS));
		if (id_of[k] == SESSION_ID_NONE) {
			rc = session_add(c.t, &c.p[k], &id_of[k]);
			if (rc == 0)
				adds++;
			else if (rc != -ENOSPC)
				bad++;
		} else {
			bad += session_del(c.t, id_of[k]) != 0;
			id_of[k] = SESSION_ID_NONE;
			dels++;
		}
	}
	c.stop = 1;
	pthread_join(th, NULL);
	session_table_stats(c.t, &st);
	printf("crowded: %" PRIu64 " adds, %" PRIu64 " deletes, %" PRIu64 " lookups, %" PRIu64
	       " hits, %" PRIu64 " mismatches, %" PRIu64 " anchor misses, %" PRIu64
	       " rebuilds (%" PRIu64 " deferred), longest chain %u, longest probe %u\n",
	       adds, dels, c.lookups, c.hits, c.bad, c.anchor_miss, st.down_rebuilds,
	       st.down_rebuilds_deferred, st.up_max_chain, st.down_max_probe);
	check(bad == 0, "crowded", "control operations succeed");
	check(adds > 1000 && st.down_rebuilds > 0, "crowded", "churn and rebuilds happened");
	check(c.lookups > CONC_MIN_LOOKUPS, "crowded", "reader ran");
	check(c.bad == 0, "crowded", "every hit matches the key looked up");
	check(c.anchor_miss == 0, "crowded", "sessions live throughout always found");
	session_tables_free(c.t);
}

/* IPoE (issue 19): keyed by (line, tags, MAC) with session id 0, beside a PPPoE session. */
static void
test_ipoe(void)
{
	struct session_tables *t = session_tables_create("ipoe", 64, 1, SOCKET_ID_ANY);
	struct dp_session_params p, q, h;
	uint32_t id = 99, idp = 99, id2 = 99;
	const struct dp_session *s;
	struct cls_result r;
	const uint8_t *mac;

	check(t != NULL, "ipoe", "create");
	if (t == NULL)
		return;
	params_of(3, &p);
	p.sid = 0;
	p.ipoe = 1;
	check(session_add(t, &p, &id) == 0, "ipoe", "add with sid 0");
	s = session_get(t, id);
	check(session_live(s) && s->sid == 0 && s->mtu == SESSION_DEFAULT_MTU_IPOE && s->encap.ipoe,
	      "ipoe", "live, sid 0, MTU 1500, IPoE template");
	check(s->encap.hdr[20] == 0x08 && s->encap.hdr[21] == 0x00 && s->encap.hdr[22] == 0 &&
		      memcmp(s->encap.hdr, p.mac, 6) == 0 &&
		      memcmp(s->encap.hdr + 6, AC_MAC, 6) == 0,
	      "ipoe", "template: client MAC, AC MAC, tags, IPv4");
	/* an IPoE frame of the same line and MAC (sid 0 in the result) finds it */
	result_of(&p, &r);
	r.kind = CLS_IPOE_IPV4;
	mac = p.mac;
	session_lookup_up_burst(t, &r, &mac, 1, &id2);
	check(id2 == id, "ipoe", "upstream lookup by (line, MAC)");
	check(lookup_down(t, p.ipv4) == id, "ipoe", "downstream lookup");
	/* a PPPoE session of the same client MAC and line is another key */
	q = p;
	q.ipoe = 0;
	q.sid = 7;
	q.ipv4 = rte_cpu_to_be_32(0x0a000007);
	check(session_add(t, &q, &idp) == 0 && idp != id && lookup_up(t, &q) == idp, "ipoe",
	      "a PPPoE session beside it");
	h = p;
	h.ipv4 = rte_cpu_to_be_32(0x0a000008);
	check(session_add(t, &h, &id2) == -EEXIST, "ipoe", "a second session of one (line, MAC)");
	h.mac[5] ^= 1;
	h.line = (uint16_t)(p.line + 1);
	check(lookup_up(t, &h) == SESSION_ID_NONE, "ipoe", "other line, other MAC: no session");
	h = p;
	h.ipoe = 0;
	check(session_add(t, &h, &id2) == -EINVAL, "ipoe", "sid 0 without ipoe refused");
	h = p;
	h.sid = 5;
	check(session_add(t, &h, &id2) == -EINVAL, "ipoe", "ipoe with a sid refused");
	check(session_del(t, id) == 0 && !session_src_ok(s, 0) &&
		      lookup_up(t, &p) == SESSION_ID_NONE,
	      "ipoe", "delete");
	check(session_del(t, id) == -ENOENT, "ipoe", "delete twice");
	check(session_del(t, idp) == 0 && session_count(t) == 0, "ipoe", "delete the PPPoE one");
	session_tables_free(t);
}

int
main(int argc, char **argv)
{
	if (harness_eal_init(argc > 0 ? argv[0] : "test_session") != 0)
		return 1;
	test_round_trip();
	test_ipoe();
	test_grace_period();
	test_full();
	test_chains();
	test_probe();
	test_model();
	test_concurrent();
	test_concurrent_crowded();
	rte_eal_cleanup();
	return harness_report();
}

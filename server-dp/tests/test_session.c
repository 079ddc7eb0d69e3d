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
 * ids held back until a registered reader reports quiescence, QoS updates,
 * and a reader pthread looking up for ~1 s while this thread adds and deletes,
 * checking every hit against the key it looked up. Prints the heap used by
 * 65536 sessions. The last line of output is "N passed, M failed"; the exit
 * status is 1 when M > 0.
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

int
main(int argc, char **argv)
{
	if (harness_eal_init(argc > 0 ? argv[0] : "test_session") != 0)
		return 1;
	test_round_trip();
	test_grace_period();
	test_full();
	test_concurrent();
	rte_eal_cleanup();
	return harness_report();
}

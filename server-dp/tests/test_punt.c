/*
 * Tests of punt policing (punt.h).
 *
 * usage: test_punt FIXTURE_DIR
 *
 * EAL as in test_rewrite (--no-huge, in memory). Frames are written byte by
 * byte on the lines of the lab fixture (line 0: S 300, C 2000-4094; line 1:
 * S 400-449) and classified by the real classifier. Time is synthetic: a
 * 1 GHz "TSC" (punt_params.tsc_hz), so the rates are exact. The control
 * thread is simulated by draining the punt ring every millisecond.
 * Covers: a PADI flood from one MAC at 10000/s next to a neighbour's PADR,
 * LCP and PADI on the same line; a PADI flood from random MACs; per-line
 * limits per class; ring occupancy thresholds; redirect classes; invalid
 * kinds; tokens charged only for admitted frames; clients that share a
 * bucket; parameter checks. Every scenario checks that admitted plus every
 * drop reason equals what was offered, per class.
 * The last line of output is "N passed, M failed".
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "ctl_frames.h"
#include "punt.h"
#define HARNESS_EAL
#include "harness.h"

#define HZ 1000000000ull /* synthetic TSC: 1 tick = 1 ns */
#define MS 1000000ull
#define T0 (1000ull * HZ)

static struct rte_mempool *pool;
static struct dp_config *cfg;
static struct line_map *lmap;
static const uint8_t BCAST[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

enum kind { PADI, PADR, PADT, LCP, IPV4, DHCP, CORE, NKINDS };

/* What the test offered, per class, to compare with the counters. */
static uint64_t offered[PUNT_NUM_CLASSES];
static uint64_t offered_invalid;

static void
mac_of(uint8_t *mac, uint32_t k)
{
	mac[0] = 0x02;
	mac[1] = 0x42;
	mac[2] = (uint8_t)(k >> 24);
	mac[3] = (uint8_t)(k >> 16);
	mac[4] = (uint8_t)(k >> 8);
	mac[5] = (uint8_t)k;
}

/* A frame of kind from client mac on (stag, ctag). */
static size_t
frame_of(uint8_t *f, enum kind k, const uint8_t *mac, unsigned int stag, unsigned int ctag)
{
	static const uint8_t lcp_conf[] = {1, 1, 0, 4};
	uint8_t ip[20] = {0x45, 0, 0, 20, 0, 0, 0, 0, 64, 17};
	size_t n;

	switch (k) {
	case PADI:
		return ctl_disc_frame(f, BCAST, mac, 0x88a8, stag, ctag, CLS_PADI, 0, 8);
	case PADR:
		return ctl_disc_frame(f, LAB_AC_MAC, mac, 0x88a8, stag, ctag, CLS_PADR, 0, 8);
	case PADT:
		return ctl_disc_frame(f, LAB_AC_MAC, mac, 0x8100, stag, ctag, CLS_PADT, 7, 0);
	case LCP:
		return ctl_session_frame(f, LAB_AC_MAC, mac, 0x8100, stag, ctag, 7, 0xc021,
					 lcp_conf, sizeof(lcp_conf), 0, 60);
	case IPV4:
		return ctl_session_frame(f, LAB_AC_MAC, mac, 0x8100, stag, ctag, 7, 0x0021, ip,
					 sizeof(ip), 0, 60);
	case DHCP: /* IPoE DHCPDISCOVER: QinQ + IPv4 UDP 68 -> 67 to broadcast */
		memcpy(f, BCAST, 6);
		memcpy(f + 6, mac, 6);
		ctl_put16(f + 12, 0x88a8);
		ctl_put16(f + 14, (uint16_t)stag);
		ctl_put16(f + 16, 0x8100);
		ctl_put16(f + 18, (uint16_t)ctag);
		ctl_put16(f + 20, 0x0800);
		memcpy(f + 22, ip, sizeof(ip));
		ctl_put16(f + 22 + 2, 28);
		memset(f + 22 + 16, 0xff, 4);
		memset(f + 42, 0, 8);
		ctl_put16(f + 42, 68);
		ctl_put16(f + 44, 67);
		ctl_put16(f + 46, 8);
		return 50;
	default: /* a core ARP request: never punted */
		memcpy(f, BCAST, 6);
		memcpy(f + 6, mac, 6);
		ctl_put16(f + 12, 0x0806);
		n = 14;
		memset(f + n, 0, 28);
		ctl_put16(f + n, 1);
		ctl_put16(f + n + 2, 0x0800);
		f[n + 4] = 6;
		f[n + 5] = 4;
		return n + 28;
	}
}

/* Offer one frame; the result of punt_enqueue(). Refused mbufs are freed. */
static int
offer(struct punt *p, enum kind k, const uint8_t *mac, unsigned int stag, unsigned int ctag,
      uint64_t now)
{
	struct cls_counters cc = {0};
	struct cls_result r;
	struct rte_mbuf *m;
	uint8_t f[128];
	uint32_t bit;
	size_t n;
	int rc, cls;

	n = frame_of(f, k, mac, stag, ctag);
	m = rte_pktmbuf_alloc(pool);
	if (m == NULL)
		abort();
	memcpy(rte_pktmbuf_append(m, (uint16_t)n), f, n);
	if (classify_frame(lmap, f, (uint32_t)n, &r, &cc) == CLS_DROP)
		abort();
	cls = punt_class_of(&r, f, &bit);
	if (cls < 0)
		offered_invalid++;
	else
		offered[cls]++;
	rc = punt_enqueue(p, m, &r, now);
	if (rc != 0)
		rte_pktmbuf_free(m);
	return rc;
}

static void
drain(struct rte_ring *ring)
{
	struct rte_mbuf *m[64];
	unsigned int n;

	while ((n = rte_ring_dequeue_burst(ring, (void **)m, 64, NULL)) > 0)
		rte_pktmbuf_free_bulk(m, n);
}

static void
reset_offered(void)
{
	memset(offered, 0, sizeof(offered));
	offered_invalid = 0;
}

/* admitted + every drop reason == offered, for every class. */
static void
check_sums(const struct punt *p, const char *name)
{
	struct punt_counters c;
	bool ok = true;

	punt_counters_get(p, &c);
	for (int k = 0; k < PUNT_NUM_CLASSES; k++) {
		uint64_t sum = 0;

		for (int why = 0; why < PUNT_REASON_MAX; why++)
			sum += c.c[k][why];
		ok = ok && sum == offered[k];
	}
	check(ok && c.invalid == offered_invalid, name, "admitted + drops == offered, per class");
}

static struct punt *
make(struct rte_ring *ring, struct punt_params *prm)
{
	struct punt_params def;

	if (prm == NULL) {
		punt_params_default(&def);
		prm = &def;
	}
	prm->tsc_hz = HZ;
	prm->hash_seed = 0x1234567;
	reset_offered();
	return punt_create(prm, ring, SOCKET_ID_ANY);
}

/* One MAC floods PADI at 10000/s for 2 s; neighbours on the same line are served. */
static void
test_single_mac_flood(struct rte_ring *ring)
{
	struct punt *p = make(ring, NULL);
	uint8_t a[6], b[6], c[6];
	uint64_t t, end = T0 + 2 * HZ;
	unsigned int a_ok = 0, b_padr = 0, b_lcp = 0, c_padi = 0, b_padr_ok = 0, b_lcp_ok = 0,
		     c_padi_ok = 0, i = 0;
	struct punt_counters cnt;

	mac_of(a, 1);
	mac_of(b, 2);
	mac_of(c, 3);
	/* Events every 100 us: A's PADI each time; B's LCP every 100 ms, PADR every 500 ms. */
	for (t = T0; t < end; t += 100000, i++) {
		a_ok += offer(p, PADI, a, 300, 2000, t) == 0;
		if (i % 1000 == 0) {
			b_lcp++;
			b_lcp_ok += offer(p, LCP, b, 300, 2001, t) == 0;
		}
		if (i % 5000 == 2500) {
			b_padr++;
			b_padr_ok += offer(p, PADR, b, 300, 2001, t) == 0;
			c_padi++;
			c_padi_ok += offer(p, PADI, c, 300, 2002, t) == 0;
		}
		if (i % 10 == 0)
			drain(ring);
	}
	check(b_lcp == 20 && b_lcp_ok == b_lcp, "single-MAC flood", "neighbour's LCP all admitted");
	check(b_padr == 4 && b_padr_ok == b_padr, "single-MAC flood",
	      "neighbour's PADR all admitted");
	check(c_padi == 4 && c_padi_ok == c_padi, "single-MAC flood",
	      "another neighbour's PADI all admitted");
	/* A: burst 10, then 5/s for 2 s. */
	check(a_ok >= 19 && a_ok <= 21, "single-MAC flood", "flooder held to burst + 5/s");
	punt_counters_get(p, &cnt);
	check(cnt.c[PUNT_LOW][PUNT_POLICED_MAC] == 20000 - a_ok &&
		      cnt.c[PUNT_LOW][PUNT_POLICED_LINE] == 0,
	      "single-MAC flood", "flooder policed per MAC, line untouched");
	printf("single-MAC flood: flooder 20000 PADI -> %u admitted\n", a_ok);
	check_sums(p, "single-MAC flood");
	drain(ring);
	punt_free(p);
}

/* Random source MACs: the line's LOW bucket binds; MID and HIGH are untouched. */
static void
test_random_mac_flood(struct rte_ring *ring)
{
	struct punt *p = make(ring, NULL);
	uint8_t m[6], b[6], d[6];
	uint64_t t, end = T0 + 2 * HZ;
	unsigned int flood_ok = 0, b_ok = 0, b_n = 0, d_ok = 0, d_n = 0, i = 0;
	struct punt_counters cnt;

	mac_of(b, 2);
	mac_of(d, 4);
	for (t = T0; t < end; t += 100000, i++) {
		mac_of(m, 1000 + i);
		flood_ok += offer(p, PADI, m, 300, 2000 + i % 2000, t) == 0;
		if (i % 1000 == 0) {
			b_n++;
			b_ok += offer(p, LCP, b, 300, 2001, t) == 0;
		}
		if (i % 5000 == 0) {
			b_n++;
			b_ok += offer(p, PADR, b, 300, 2001, t) == 0;
			d_n++;
			d_ok += offer(p, PADI, d, 400, 7, t) == 0; /* another line */
		}
		if (i % 10 == 0)
			drain(ring);
	}
	punt_counters_get(p, &cnt);
	check(b_ok == b_n, "random-MAC flood", "LCP and PADR of the same line all admitted");
	check(d_ok == d_n, "random-MAC flood", "PADI of another line all admitted");
	/* Line LOW: burst 400, then 200/s for 2 s. */
	check(flood_ok >= 795 && flood_ok <= 801, "random-MAC flood",
	      "held to the line's PADI rate");
	check(cnt.c[PUNT_LOW][PUNT_POLICED_LINE] == 20000 - flood_ok, "random-MAC flood",
	      "policed per line");
	printf("random-MAC flood: 20000 PADI from 20000 MACs -> %u admitted\n", flood_ok);
	check_sums(p, "random-MAC flood");
	drain(ring);
	punt_free(p);
}

/* Per-line limit of each class, with every client under its own limit. */
static void
test_line_limits(struct rte_ring *ring)
{
	static const struct {
		enum kind k;
		int cls;
		unsigned int per_ms, expect_lo, expect_hi;
	} rows[] = {
		/* 20 frames/ms = 20000/s from 300 clients (67/s each): burst 10000 + 5000/s. */
		{LCP, PUNT_HIGH, 20, 19990, 20010},
		/* 1 PADR/ms = 1000/s from 1000 clients (1/s each): burst 400 + 200/s. */
		{PADR, PUNT_MID, 1, 795, 801},
	};

	for (size_t row = 0; row < 2; row++) {
		struct punt *p = make(ring, NULL);
		unsigned int ok = 0, i = 0, clients = rows[row].per_ms == 20 ? 300 : 1000;
		uint8_t mac[6];
		struct punt_counters c;

		for (uint64_t t = T0; t < T0 + 2 * HZ; t += MS) {
			for (unsigned int j = 0; j < rows[row].per_ms; j++, i++) {
				mac_of(mac, i % clients);
				ok += offer(p, rows[row].k, mac, 300, 2000 + i % clients, t) == 0;
			}
			drain(ring);
		}
		punt_counters_get(p, &c);
		check(ok >= rows[row].expect_lo && ok <= rows[row].expect_hi, "line limit",
		      punt_class_names[rows[row].cls]);
		check(c.c[rows[row].cls][PUNT_POLICED_MAC] == 0 &&
			      c.c[rows[row].cls][PUNT_POLICED_LINE] == i - ok,
		      "line limit", "policed per line only");
		printf("line limit %s: %u offered in 2 s -> %u admitted\n",
		       punt_class_names[rows[row].cls], i, ok);
		check_sums(p, "line limit");
		punt_free(p);
	}
}

/* Ring occupancy: LOW below 50%, MID below 75%, HIGH until full. */
static void
test_ring_thresholds(void)
{
	struct rte_ring *ring =
		rte_ring_create("punt_small", 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	struct punt_params prm;
	struct punt *p;
	unsigned int low = 0, mid = 0, high = 0, i;
	uint8_t mac[6];
	struct punt_counters c;
	int rc;

	punt_params_default(&prm);
	for (i = 0; i < PUNT_NUM_CLASSES; i++) {
		prm.mac[i].rate = 0; /* no limits: only the ring refuses */
		prm.line[i].rate = 0;
	}
	p = make(ring, &prm);
	check(p != NULL && rte_ring_get_capacity(ring) == 63, "ring", "capacity 63");
	for (i = 0; i < 100; i++) {
		mac_of(mac, i);
		low += offer(p, PADI, mac, 300, 2000, T0) == 0;
	}
	check(low == 31, "ring", "LOW admitted below 50% (31 of 63)");
	for (i = 0; i < 100; i++) {
		mac_of(mac, i);
		mid += offer(p, PADR, mac, 300, 2000, T0) == 0;
	}
	check(mid == 47 - 31, "ring", "MID admitted below 75% (47 of 63)");
	for (i = 0; i < 100; i++) {
		mac_of(mac, i);
		rc = offer(p, PADT, mac, 300, 2000, T0);
		high += rc == 0;
	}
	check(high == 63 - 47 && rc == -ENOBUFS, "ring", "HIGH admitted until full, then -ENOBUFS");
	{
		struct rte_mbuf *m[10];

		check(rte_ring_dequeue_bulk(ring, (void **)m, 10, NULL) == 10, "ring", "drain 10");
		rte_pktmbuf_free_bulk(m, 10);
	}
	check(offer(p, PADI, mac, 300, 2000, T0) == -ENOBUFS, "ring", "LOW still refused at 53");
	check(offer(p, LCP, mac, 300, 2000, T0) == 0, "ring", "LCP admitted at 53");
	punt_counters_get(p, &c);
	check(c.c[PUNT_LOW][PUNT_RING_FULL] == 70 && c.c[PUNT_MID][PUNT_RING_FULL] == 84 &&
		      c.c[PUNT_HIGH][PUNT_RING_FULL] == 84,
	      "ring", "ring_full counted per class");
	check_sums(p, "ring");
	drain(ring);
	punt_free(p);
	rte_ring_free(ring);
}

static void
test_redirect_and_invalid(struct rte_ring *ring)
{
	struct punt *p = make(ring, NULL);
	struct punt_counters c;
	uint8_t mac[6];
	bool all = true;

	mac_of(mac, 9);
	check(punt_get_classes(p) == PUNT_REDIRECT_ALL, "redirect", "static fallback: all");
	punt_set_classes(p, 0);
	for (int k = PADI; k <= IPV4; k++)
		all = all && offer(p, (enum kind)k, mac, 300, 2000, T0) == -EPERM;
	check(all, "redirect", "nothing redirected: -EPERM for every class");
	punt_set_classes(p, PUNT_REDIRECT_DISCOVERY);
	check(offer(p, PADI, mac, 300, 2000, T0) == 0 && offer(p, PADT, mac, 300, 2000, T0) == 0,
	      "redirect", "discovery only: PADI, PADT admitted");
	check(offer(p, LCP, mac, 300, 2000, T0) == -EPERM &&
		      offer(p, IPV4, mac, 300, 2000, T0) == -EPERM,
	      "redirect", "discovery only: LCP, unknown session refused");
	punt_set_classes(p, PUNT_REDIRECT_PPP_CTRL | PUNT_REDIRECT_UNKNOWN_SESSION | 0xe0);
	check(punt_get_classes(p) == (PUNT_REDIRECT_PPP_CTRL | PUNT_REDIRECT_UNKNOWN_SESSION),
	      "redirect", "unknown bits ignored");
	check(offer(p, LCP, mac, 300, 2000, T0) == 0 && offer(p, IPV4, mac, 300, 2000, T0) == 0 &&
		      offer(p, PADR, mac, 300, 2000, T0) == -EPERM,
	      "redirect", "control and unknown session admitted, PADR refused");
	punt_counters_get(p, &c);
	check(c.c[PUNT_HIGH][PUNT_NOT_REDIRECTED] == 3 && c.c[PUNT_MID][PUNT_NOT_REDIRECTED] == 2 &&
		      c.c[PUNT_LOW][PUNT_NOT_REDIRECTED] == 3,
	      "redirect", "not_redirected counted per class");
	check(offer(p, CORE, mac, 0, 0, T0) == -EINVAL, "invalid", "core ARP refused");
	{
		struct cls_result r = {.kind = CLS_PPPOE_DISC, .line = CLS_NO_LINE, .l3_off = 22};
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		uint8_t f[64];
		size_t n = frame_of(f, PADI, mac, 300, 2000);

		memcpy(rte_pktmbuf_append(m, (uint16_t)n), f, n);
		check(punt_enqueue(p, m, &r, T0) == -EINVAL, "invalid", "no line refused");
		r.line = 0;
		r.kind = CLS_IPOE_ARP;
		check(punt_enqueue(p, m, &r, T0) == -EINVAL, "invalid", "IPoE ARP refused");
		r.kind = CLS_PPPOE_DISC;
		r.l3_off = 200;
		check(punt_enqueue(p, m, &r, T0) == -EINVAL, "invalid", "window past the data");
		rte_pktmbuf_free(m);
		offered_invalid += 3;
	}
	check_sums(p, "redirect");
	drain(ring);
	punt_free(p);
}

/* IPoE DHCP (class dhcp): its own redirect bit, policed in class low per client and line. */
static void
test_dhcp_class(struct rte_ring *ring)
{
	struct punt *p = make(ring, NULL);
	struct punt_counters c;
	uint8_t mac[6], other[6];
	unsigned int ok = 0;
	uint32_t bit = 0;
	uint8_t f[64];

	mac_of(mac, 11);
	mac_of(other, 12);
	frame_of(f, DHCP, mac, 300, 2000);
	{
		struct cls_result r = {.kind = CLS_IPOE_IPV4, .line = 0, .l3_off = 22};

		check(punt_class_of(&r, f, &bit) == PUNT_LOW && bit == PUNT_REDIRECT_DHCP, "dhcp",
		      "class low, redirect bit dhcp");
		r.kind = CLS_IPOE_IPV6;
		check(punt_class_of(&r, f, &bit) == PUNT_LOW && bit == PUNT_REDIRECT_DHCP6, "dhcp",
		      "IPoE IPv6 (RS, DHCPv6): class low, redirect bit dhcp6");
	}
	punt_set_classes(p, PUNT_REDIRECT_ALL & ~PUNT_REDIRECT_DHCP);
	check(offer(p, DHCP, mac, 300, 2000, T0) == -EPERM, "dhcp",
	      "not redirected without its bit");
	punt_set_classes(p, PUNT_REDIRECT_DHCP);
	check(offer(p, PADI, mac, 300, 2000, T0) == -EPERM, "dhcp", "dhcp only: PADI refused");
	for (int i = 0; i < 30; i++)
		ok += offer(p, DHCP, mac, 300, 2000, T0) == 0;
	check(ok == 10, "dhcp", "one client's burst of 10 admitted");
	check(offer(p, DHCP, other, 300, 2000, T0) == 0, "dhcp", "a neighbour still admitted");
	punt_counters_get(p, &c);
	check(c.c[PUNT_LOW][PUNT_ADMITTED] == 11 && c.c[PUNT_LOW][PUNT_POLICED_MAC] == 20 &&
		      c.c[PUNT_LOW][PUNT_NOT_REDIRECTED] == 2,
	      "dhcp", "counted in class low");
	check_sums(p, "dhcp");
	drain(ring);
	punt_free(p);
}

/* Frames refused by the line or the ring do not take the client's tokens. */
static void
test_tokens_only_when_admitted(struct rte_ring *ring)
{
	struct punt_params prm;
	struct punt *p;
	uint8_t mac[6];
	unsigned int ok = 0, i;

	punt_params_default(&prm);
	prm.mac[PUNT_LOW] = (struct punt_rate){1, 10};
	prm.line[PUNT_LOW] = (struct punt_rate){1000, 1};
	p = make(ring, &prm);
	mac_of(mac, 5);
	for (i = 0; i < 10; i++)
		ok += offer(p, PADI, mac, 300, 2000, T0) == 0;
	check(ok == 1, "tokens", "line burst 1: one of ten admitted");
	for (i = 1, ok = 0; i <= 9; i++)
		ok += offer(p, PADI, mac, 300, 2000, T0 + i * MS) == 0;
	check(ok == 9, "tokens", "the client's 9 other tokens are still there");
	check(offer(p, PADI, mac, 300, 2000, T0 + 10 * MS) == -EBUSY, "tokens",
	      "then the client's bucket is empty");
	check_sums(p, "tokens");
	drain(ring);
	punt_free(p);
}

/* Two clients hashed to the same entry share their buckets (documented). */
static void
test_shared_bucket(struct rte_ring *ring)
{
	struct punt *p = make(ring, NULL);
	uint8_t a[6], b[6];
	uint32_t slot_a, k;
	unsigned int ok = 0, i;

	mac_of(a, 1);
	slot_a = punt_client_slot(p, 300, 2000, a);
	for (k = 2;; k++) {
		mac_of(b, k);
		if (punt_client_slot(p, 300, 2001, b) == slot_a)
			break;
	}
	check(punt_client_slot(p, 300, 2000, a) != punt_client_slot(p, 301, 2000, a) ||
		      punt_client_slot(p, 300, 2000, a) != punt_client_slot(p, 300, 2001, a),
	      "shared bucket", "tags are part of the client key");
	for (i = 0; i < 10; i++)
		ok += offer(p, PADI, a, 300, 2000, T0) == 0;
	check(ok == 10 && offer(p, PADI, b, 300, 2001, T0) == -EBUSY, "shared bucket",
	      "a colliding client shares the burst");
	printf("shared bucket: found a colliding MAC after %u tries (65536 entries)\n", k - 1);
	check_sums(p, "shared bucket");
	drain(ring);
	punt_free(p);
}

static void
test_params(struct rte_ring *ring)
{
	struct punt_params prm;

	punt_params_default(&prm);
	prm.mac_buckets = 1000;
	check(make(ring, &prm) == NULL && rte_errno == EINVAL, "params",
	      "buckets not a power of 2");
	punt_params_default(&prm);
	prm.ring_pct[PUNT_LOW] = 0;
	check(make(ring, &prm) == NULL && rte_errno == EINVAL, "params", "ring_pct 0");
	punt_params_default(&prm);
	prm.line[PUNT_HIGH].rate = 2000000000u;
	check(make(ring, &prm) == NULL && rte_errno == EINVAL, "params", "rate above the TSC");
	check(punt_create(NULL, NULL, SOCKET_ID_ANY) == NULL && rte_errno == EINVAL, "params",
	      "no ring");
	{
		struct punt *p = punt_create(NULL, ring, SOCKET_ID_ANY);

		check(p != NULL && punt_get_classes(p) == PUNT_REDIRECT_ALL, "params",
		      "defaults with the real TSC");
		punt_free(p);
	}
}

int
main(int argc, char **argv)
{
	struct rte_ring *ring;

	if (argc < 2) {
		printf("usage: test_punt FIXTURE_DIR\n0 passed, 1 failed\n");
		return 1;
	}
	if (harness_eal_init(argv[0]) != 0)
		return 1;
	pool = rte_pktmbuf_pool_create("punt_test", 4095, 0, 0, 256, SOCKET_ID_ANY);
	ring = rte_ring_create("punt", 1024, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (pool == NULL || ring == NULL) {
		printf("FAIL pool/ring: %s\n0 passed, 1 failed\n", rte_strerror(rte_errno));
		return 1;
	}
	ctl_load_map(argv[1], "lab_dp4.ini", &cfg, &lmap);
	test_single_mac_flood(ring);
	test_random_mac_flood(ring);
	test_line_limits(ring);
	test_ring_thresholds();
	test_redirect_and_invalid(ring);
	test_dhcp_class(ring);
	test_tokens_only_when_admitted(ring);
	test_shared_bucket(ring);
	test_params(ring);
	check(rte_mempool_avail_count(pool) == 4095, "pool", "every mbuf freed");
	rte_ring_free(ring);
	rte_mempool_free(pool);
	free(cfg);
	free(lmap);
	rte_eal_cleanup();
	return harness_report();
}

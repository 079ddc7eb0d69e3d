/*
 * Tests of the ICMP errors generated in the data path (icmp.h).
 *
 * usage: test_icmp
 *
 * Every accepted row is compared byte for byte with the message the test
 * builds itself: the L2 bytes kept, a new IPv4 header, the ICMP header with
 * a checksum computed here (RFC 1071 sum written out in the test, not
 * DPDK's), the original packet quoted. Rows cover both kinds, L2 offsets 0,
 * 14 and 30, IHL 5..15, lengths around the 8-byte minimum and the 576-byte
 * maximum, the never-answer list (each refused row must leave the mbuf
 * exactly as it was), the token bucket on a synthetic TSC, the tailroom
 * fallback when the headroom is short, and chained mbufs.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "icmp.h"
#define HARNESS_EAL
#include "harness.h"

#define HZ 1000000000ull /* synthetic TSC: 1 tick = 1 ns */
#define POOL_N 255
#define SRC_BE RTE_BE32(0x6440000a) /* 100.64.0.10, a line group's core address */
#define MAX_PKT 4096

static struct rte_mempool *pool;

static void
put16(uint8_t *p, unsigned int v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static unsigned int
get16(const uint8_t *p)
{
	return (unsigned int)p[0] << 8 | p[1];
}

static void
put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

/* RFC 1071: one's complement sum of big-endian words, folded, complemented. */
static unsigned int
csum(const uint8_t *p, size_t n)
{
	uint32_t s = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += get16(p + i);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return ~s & 0xffff;
}

struct pkt {
	unsigned int ihl; /* bytes */
	unsigned int tot;
	uint8_t proto;
	uint8_t icmp_type; /* first data byte when proto is 1 */
	uint32_t src, dst; /* host order */
	uint16_t frag;	   /* flags + offset field */
};

/* An IPv4 packet per p into ip[0..tot): options of NOPs and a record route, data pattern. */
static void
build_ip(uint8_t *ip, const struct pkt *p)
{
	unsigned int i;

	for (i = 0; i < p->tot; i++)
		ip[i] = (uint8_t)(i * 7 + 3);
	ip[0] = (uint8_t)(0x40 | p->ihl / 4);
	ip[1] = 0x28;
	put16(ip + 2, p->tot);
	put16(ip + 4, 0xbeef);
	put16(ip + 6, p->frag);
	ip[8] = 1;
	ip[9] = p->proto;
	put32(ip + 12, p->src);
	put32(ip + 16, p->dst);
	if (p->ihl > 20) {
		memset(ip + 20, 1, p->ihl - 20); /* NOP */
		if (p->ihl >= 28) {
			ip[20] = 7; /* record route, 7 bytes */
			ip[21] = 7;
			ip[22] = 4;
		}
	}
	if (p->proto == 1 && p->tot > p->ihl)
		ip[p->ihl] = p->icmp_type;
	put16(ip + 10, 0);
	put16(ip + 10, csum(ip, p->ihl));
}

/* An mbuf with headroom, l3_off bytes of L2 pattern, then ip[0..len). */
static struct rte_mbuf *
mk(uint16_t headroom, uint16_t l3_off, const uint8_t *ip, unsigned int len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *d;

	if (m == NULL)
		return NULL;
	m->data_off = headroom;
	d = rte_pktmbuf_mtod(m, uint8_t *);
	for (unsigned int i = 0; i < l3_off; i++)
		d[i] = (uint8_t)(0xa0 + i);
	memcpy(d + l3_off, ip, len);
	m->data_len = (uint16_t)(l3_off + len);
	m->pkt_len = m->data_len;
	return m;
}

/* The expected message: L2 kept, IPv4 + ICMP headers, quote of q bytes of ip. */
static unsigned int
expect(uint8_t *out, uint16_t l3_off, const uint8_t *ip, unsigned int q, enum icmp_kind kind,
       uint16_t mtu, uint16_t id)
{
	uint8_t *h = out + l3_off, *ic = h + 20;

	for (unsigned int i = 0; i < l3_off; i++)
		out[i] = (uint8_t)(0xa0 + i);
	memset(h, 0, 28);
	h[0] = 0x45;
	h[1] = 0xc0;
	put16(h + 2, 28 + q);
	put16(h + 4, id);
	h[8] = 64;
	h[9] = 1;
	put32(h + 12, rte_be_to_cpu_32(SRC_BE));
	memcpy(h + 16, ip + 12, 4);
	put16(h + 10, csum(h, 20));
	if (kind == ICMP_TIME_EXCEEDED) {
		ic[0] = 11;
		ic[1] = 0;
	} else {
		ic[0] = 3;
		ic[1] = 4;
		put16(ic + 6, mtu);
	}
	memcpy(ic + 8, ip, q);
	put16(ic + 2, csum(ic, 8 + q));
	return l3_off + 28 + q;
}

static bool
mbuf_is(const struct rte_mbuf *m, const uint8_t *bytes, unsigned int len)
{
	return rte_pktmbuf_pkt_len(m) == len && rte_pktmbuf_data_len(m) == len && m->nb_segs == 1 &&
	       memcmp(rte_pktmbuf_mtod(m, const uint8_t *), bytes, len) == 0;
}

static struct icmp_state st;
static struct icmp_counters cnt;
static uint64_t now = 5 * HZ;
static uint16_t next_id = 0x1000;

static void
fresh_state(void)
{
	icmp_state_init(&st, 1000000, 1000000, HZ, next_id);
}

/* --- accepted rows ---------------------------------------------------------- */

struct ok_row {
	const char *name;
	struct pkt p;
	uint16_t l3_off;
	enum icmp_kind kind;
	uint16_t mtu;
	unsigned int q; /* expected quote length */
};

#define SUB 0x64500001u	 /* 100.80.0.1, a subscriber */
#define HOST 0x08080808u /* 8.8.8.8 */

static const struct ok_row ok_rows[] = {
	{"te udp 100, l2 30", {20, 100, 17, 0, SUB, HOST, 0}, 30, ICMP_TIME_EXCEEDED, 0, 100},
	{"te header only", {20, 20, 17, 0, SUB, HOST, 0}, 30, ICMP_TIME_EXCEEDED, 0, 20},
	{"te 27 bytes", {20, 27, 17, 0, SUB, HOST, 0}, 30, ICMP_TIME_EXCEEDED, 0, 27},
	{"te 28 bytes", {20, 28, 6, 0, SUB, HOST, 0}, 30, ICMP_TIME_EXCEEDED, 0, 28},
	{"te 548 bytes", {20, 548, 17, 0, SUB, HOST, 0}, 30, ICMP_TIME_EXCEEDED, 0, 548},
	{"te 549 bytes", {20, 549, 17, 0, SUB, HOST, 0}, 30, ICMP_TIME_EXCEEDED, 0, 548},
	{"te 1500 bytes", {20, 1500, 17, 0, SUB, HOST, 0}, 30, ICMP_TIME_EXCEEDED, 0, 548},
	{"te l2 0", {20, 64, 17, 0, SUB, HOST, 0}, 0, ICMP_TIME_EXCEEDED, 0, 64},
	{"te l2 14", {20, 64, 17, 0, HOST, SUB, 0}, 14, ICMP_TIME_EXCEEDED, 0, 64},
	{"te ihl 24", {24, 200, 17, 0, SUB, HOST, 0}, 30, ICMP_TIME_EXCEEDED, 0, 200},
	{"te ihl 60 (40 bytes options)",
	 {60, 1000, 17, 0, SUB, HOST, 0},
	 30,
	 ICMP_TIME_EXCEEDED,
	 0,
	 548},
	{"te ihl 60, 68 bytes", {60, 68, 17, 0, SUB, HOST, 0}, 30, ICMP_TIME_EXCEEDED, 0, 68},
	{"te ihl 60, header only", {60, 60, 17, 0, SUB, HOST, 0}, 30, ICMP_TIME_EXCEEDED, 0, 60},
	{"te echo request", {20, 84, 1, 8, SUB, HOST, 0}, 30, ICMP_TIME_EXCEEDED, 0, 84},
	{"te echo reply", {20, 84, 1, 0, SUB, HOST, 0}, 30, ICMP_TIME_EXCEEDED, 0, 84},
	{"te timestamp", {20, 40, 1, 13, SUB, HOST, 0}, 30, ICMP_TIME_EXCEEDED, 0, 40},
	{"te first fragment MF",
	 {20, 1000, 17, 0, SUB, HOST, 0x2000},
	 30,
	 ICMP_TIME_EXCEEDED,
	 0,
	 548},
	{"te directed broadcast dst",
	 {20, 60, 17, 0, SUB, 0x0affffffu, 0},
	 30,
	 ICMP_TIME_EXCEEDED,
	 0,
	 60},
	{"te source 1.0.0.1", {20, 60, 17, 0, 0x01000001u, HOST, 0}, 30, ICMP_TIME_EXCEEDED, 0, 60},
	{"te source 223.255.255.254",
	 {20, 60, 17, 0, 0xdffffffeu, HOST, 0},
	 30,
	 ICMP_TIME_EXCEEDED,
	 0,
	 60},
	{"fn 1500 mtu 1492, l2 0",
	 {20, 1500, 6, 0, HOST, SUB, 0x4000},
	 0,
	 ICMP_FRAG_NEEDED,
	 1492,
	 548},
	{"fn 1500 mtu 1492, l2 18",
	 {20, 1500, 6, 0, HOST, SUB, 0x4000},
	 18,
	 ICMP_FRAG_NEEDED,
	 1492,
	 548},
	{"fn 600 mtu 576", {20, 600, 17, 0, HOST, SUB, 0x4000}, 14, ICMP_FRAG_NEEDED, 576, 548},
	{"fn mtu 0xffff", {20, 1500, 17, 0, HOST, SUB, 0x4000}, 14, ICMP_FRAG_NEEDED, 0xffff, 548},
	{"fn options", {32, 1500, 17, 0, HOST, SUB, 0x4000}, 14, ICMP_FRAG_NEEDED, 1400, 548},
};

static void
test_ok_rows(void)
{
	static uint8_t ip[MAX_PKT], exp[MAX_PKT];
	char name[160];

	fresh_state();
	for (size_t r = 0; r < RTE_DIM(ok_rows); r++) {
		const struct ok_row *row = &ok_rows[r];
		struct rte_mbuf *m;
		unsigned int len;
		int ret;

		build_ip(ip, &row->p);
		m = mk(128, row->l3_off, ip, row->p.tot);
		len = expect(exp, row->l3_off, ip, row->q, row->kind, row->mtu, next_id);
		ret = icmp_error(&st, m, row->l3_off, row->kind, row->mtu, SRC_BE, now, &cnt);
		snprintf(name, sizeof(name), "ok row '%s'", row->name);
		check(ret == 0, name, "returns 0");
		check(ret == 0 && mbuf_is(m, exp, len), name, "message byte for byte");
		if (ret == 0) {
			const uint8_t *h = rte_pktmbuf_mtod_offset(m, const uint8_t *, row->l3_off);

			check(csum(h, 20) == 0, name, "IPv4 checksum verifies");
			check(csum(h + 20, len - row->l3_off - 20) == 0, name,
			      "ICMP checksum verifies");
			check(len - row->l3_off <= 576, name, "within 576 bytes");
			check(row->q >= RTE_MIN(row->p.tot, row->p.ihl + 8u), name,
			      "quotes header + 8 bytes (or all)");
			next_id++;
		}
		rte_pktmbuf_free(m);
	}
	check(cnt.sent[ICMP_TIME_EXCEEDED] + cnt.sent[ICMP_FRAG_NEEDED] == RTE_DIM(ok_rows),
	      "ok rows", "sent counters add up");
	/* Every quote length from 20 to 548 (and past it), both kinds: the
	 * checksum's 8/4/2/1-byte tails and the whole message. */
	{
		bool same = true, sums = true;

		for (unsigned int tot = 20; tot <= 600; tot++) {
			struct pkt p = {
				20 + 4 * (tot % 3 == 0 && tot >= 24), tot, 17, 0, SUB, HOST, 0};
			enum icmp_kind kind = tot & 1 ? ICMP_FRAG_NEEDED : ICMP_TIME_EXCEEDED;
			uint16_t off = (uint16_t)(tot % 31);
			struct rte_mbuf *m;
			unsigned int len;

			build_ip(ip, &p);
			m = mk(128, off, ip, tot);
			len = expect(exp, off, ip, RTE_MIN(tot, 548u), kind, (uint16_t)tot,
				     next_id);
			if (icmp_error(&st, m, off, kind, (uint16_t)tot, SRC_BE, now, &cnt) == 0) {
				const uint8_t *h = rte_pktmbuf_mtod_offset(m, const uint8_t *, off);

				same &= mbuf_is(m, exp, len);
				sums &= csum(h, 20) == 0 && csum(h + 20, len - off - 20) == 0;
				next_id++;
			} else {
				same = false;
			}
			rte_pktmbuf_free(m);
		}
		check(same, "quote sweep 20..600", "every message byte for byte");
		check(sums, "quote sweep 20..600", "every checksum verifies");
	}
}

/* --- refused rows: -EPERM / -EINVAL, mbuf untouched -------------------------- */

struct bad_row {
	const char *name;
	struct pkt p;
	int ret;
	enum icmp_refuse why;
	int mangle; /* 1 version 6, 2 IHL 4, 3 total < IHL, 4 total > packet, 5 cut to 19 */
};

static const struct bad_row bad_rows[] = {
	{"dest unreachable", {20, 56, 1, 3, SUB, HOST, 0}, -EPERM, ICMP_REFUSE_ICMP_ERROR, 0},
	{"source quench", {20, 56, 1, 4, SUB, HOST, 0}, -EPERM, ICMP_REFUSE_ICMP_ERROR, 0},
	{"redirect", {20, 56, 1, 5, SUB, HOST, 0}, -EPERM, ICMP_REFUSE_ICMP_ERROR, 0},
	{"time exceeded", {20, 56, 1, 11, SUB, HOST, 0}, -EPERM, ICMP_REFUSE_ICMP_ERROR, 0},
	{"parameter problem", {20, 56, 1, 12, SUB, HOST, 0}, -EPERM, ICMP_REFUSE_ICMP_ERROR, 0},
	{"unknown type 42", {20, 56, 1, 42, SUB, HOST, 0}, -EPERM, ICMP_REFUSE_ICMP_ERROR, 0},
	{"icmp without type", {20, 20, 1, 0, SUB, HOST, 0}, -EPERM, ICMP_REFUSE_ICMP_ERROR, 0},
	{"not first fragment",
	 {20, 100, 17, 0, SUB, HOST, 0x0001},
	 -EPERM,
	 ICMP_REFUSE_FRAGMENT,
	 0},
	{"last fragment", {20, 100, 17, 0, SUB, HOST, 0x1fff}, -EPERM, ICMP_REFUSE_FRAGMENT, 0},
	{"middle fragment", {20, 100, 17, 0, SUB, HOST, 0x2100}, -EPERM, ICMP_REFUSE_FRAGMENT, 0},
	{"src 0.0.0.0", {20, 60, 17, 0, 0, HOST, 0}, -EPERM, ICMP_REFUSE_SOURCE, 0},
	{"src 0.1.2.3", {20, 60, 17, 0, 0x00010203u, HOST, 0}, -EPERM, ICMP_REFUSE_SOURCE, 0},
	{"src 127.0.0.1", {20, 60, 17, 0, 0x7f000001u, HOST, 0}, -EPERM, ICMP_REFUSE_SOURCE, 0},
	{"src 224.0.0.1", {20, 60, 17, 0, 0xe0000001u, HOST, 0}, -EPERM, ICMP_REFUSE_SOURCE, 0},
	{"src 239.1.1.1", {20, 60, 17, 0, 0xef010101u, HOST, 0}, -EPERM, ICMP_REFUSE_SOURCE, 0},
	{"src 240.0.0.1", {20, 60, 17, 0, 0xf0000001u, HOST, 0}, -EPERM, ICMP_REFUSE_SOURCE, 0},
	{"src 255.255.255.255",
	 {20, 60, 17, 0, 0xffffffffu, HOST, 0},
	 -EPERM,
	 ICMP_REFUSE_SOURCE,
	 0},
	{"dst 224.0.0.5", {20, 60, 17, 0, SUB, 0xe0000005u, 0}, -EPERM, ICMP_REFUSE_DEST, 0},
	{"dst 239.255.255.250", {20, 60, 17, 0, SUB, 0xeffffffau, 0}, -EPERM, ICMP_REFUSE_DEST, 0},
	{"dst 255.255.255.255", {20, 60, 17, 0, SUB, 0xffffffffu, 0}, -EPERM, ICMP_REFUSE_DEST, 0},
	{"version 6", {20, 60, 17, 0, SUB, HOST, 0}, -EINVAL, ICMP_REFUSE_MALFORMED, 1},
	{"ihl 4", {20, 60, 17, 0, SUB, HOST, 0}, -EINVAL, ICMP_REFUSE_MALFORMED, 2},
	{"total below ihl", {20, 60, 17, 0, SUB, HOST, 0}, -EINVAL, ICMP_REFUSE_MALFORMED, 3},
	{"total beyond packet", {20, 60, 17, 0, SUB, HOST, 0}, -EINVAL, ICMP_REFUSE_MALFORMED, 4},
	{"19 bytes", {20, 60, 17, 0, SUB, HOST, 0}, -EINVAL, ICMP_REFUSE_MALFORMED, 5},
};

static void
test_bad_rows(void)
{
	static uint8_t ip[MAX_PKT], before[MAX_PKT];
	struct icmp_counters c = {0};
	char name[160];

	fresh_state();
	for (size_t r = 0; r < RTE_DIM(bad_rows); r++) {
		const struct bad_row *row = &bad_rows[r];
		unsigned int len = row->p.tot;
		struct rte_mbuf *m;
		uint16_t off = 30;
		int ret;

		build_ip(ip, &row->p);
		switch (row->mangle) {
		case 1:
			ip[0] = 0x65;
			break;
		case 2:
			ip[0] = 0x44;
			break;
		case 3:
			put16(ip + 2, 19);
			break;
		case 4:
			put16(ip + 2, row->p.tot + 1);
			break;
		case 5:
			len = 19;
			break;
		}
		m = mk(128, off, ip, len);
		memcpy(before, rte_pktmbuf_mtod(m, uint8_t *), off + len);
		ret = icmp_error(&st, m, off, ICMP_TIME_EXCEEDED, 0, SRC_BE, now, &c);
		snprintf(name, sizeof(name), "refused row '%s'", row->name);
		check(ret == row->ret, name, "errno");
		check(c.refused[row->why] == 1, name, "counted under its reason");
		check(m->data_off == 128 && mbuf_is(m, before, off + len), name, "mbuf untouched");
		memset(&c, 0, sizeof(c));
		rte_pktmbuf_free(m);
	}
	/* Refusals by rule take no token. */
	icmp_state_init(&st, 1, 1, HZ, 1);
	{
		struct pkt p = {20, 60, 1, 3, SUB, HOST, 0};
		struct rte_mbuf *m;

		build_ip(ip, &p);
		for (int i = 0; i < 5; i++) {
			m = mk(128, 0, ip, 60);
			check(icmp_error(&st, m, 0, ICMP_TIME_EXCEEDED, 0, SRC_BE, now, &c) ==
				      -EPERM,
			      "tokens", "icmp error refused");
			rte_pktmbuf_free(m);
		}
		p.proto = 17;
		build_ip(ip, &p);
		m = mk(128, 0, ip, 60);
		check(icmp_error(&st, m, 0, ICMP_TIME_EXCEEDED, 0, SRC_BE, now, &c) == 0, "tokens",
		      "the single token is still there after refusals");
		rte_pktmbuf_free(m);
	}
	{
		struct rte_mbuf *m = mk(128, 0, ip, 60);

		check(icmp_error(&st, m, 0, ICMP_KIND_MAX, 0, SRC_BE, now, &c) == -EINVAL, "kind",
		      "unknown kind refused");
		rte_pktmbuf_free(m);
	}
}

/* --- rate limit -------------------------------------------------------------- */

static int
try_at(uint64_t t)
{
	static uint8_t ip[128];
	struct pkt p = {20, 60, 17, 0, SUB, HOST, 0};
	struct icmp_counters c = {0};
	struct rte_mbuf *m;
	int ret;

	build_ip(ip, &p);
	m = mk(128, 0, ip, 60);
	ret = icmp_error(&st, m, 0, ICMP_TIME_EXCEEDED, 0, SRC_BE, t, &c);
	rte_pktmbuf_free(m);
	return ret;
}

static void
test_rate(void)
{
	uint64_t t0 = 1000 * HZ;
	int ok = 0, busy = 0, i;

	icmp_state_init(&st, ICMP_DEFAULT_RATE, ICMP_DEFAULT_BURST, HZ, 7);
	for (i = 0; i < 25; i++)
		ok += try_at(t0) == 0;
	check(ok == ICMP_DEFAULT_BURST, "rate", "a full bucket gives 20 at once");
	check(try_at(t0) == -EBUSY, "rate", "the 21st is refused with -EBUSY");
	check(try_at(t0 + 9999999) == -EBUSY, "rate", "9.99 ms later still none (100/s)");
	check(try_at(t0 + 10000000) == 0, "rate", "10 ms later one token");
	check(try_at(t0 + 10000001) == -EBUSY, "rate", "and only one");
	/* 1 s at 100/s: 100 answers at most over any second plus the burst. */
	ok = busy = 0;
	for (uint64_t t = t0 + 20000000; t < t0 + 20000000 + HZ; t += 1000000) {
		int r = try_at(t);

		ok += r == 0;
		busy += r == -EBUSY;
	}
	check(ok == 100, "rate", "1 offer per ms for 1 s: 100 answered");
	check(busy == 900, "rate", "900 rate limited");
	/* A long pause refills to the burst, not more. */
	ok = 0;
	for (i = 0; i < 50; i++)
		ok += try_at(t0 + 100 * HZ) == 0;
	check(ok == ICMP_DEFAULT_BURST, "rate", "refill stops at the burst");
	/* Rate 0: never. */
	icmp_state_init(&st, 0, 5, HZ, 7);
	check(try_at(t0) == -EBUSY && try_at(t0 + 10 * HZ) == -EBUSY, "rate", "rate 0 sends none");
	check(icmp_state_init(&st, 1, 1, 0, 0) == -EINVAL, "rate", "tsc_hz 0 refused");
	/* A TSC that runs backwards does not add tokens. */
	icmp_state_init(&st, 100, 1, HZ, 7);
	check(try_at(t0) == 0 && try_at(t0 - HZ) == -EBUSY, "rate", "time going back adds nothing");
}

/* --- headroom, tailroom, segments -------------------------------------------- */

static void
test_room(void)
{
	static uint8_t ip[MAX_PKT], exp[MAX_PKT], before[MAX_PKT];
	struct pkt p = {24, 1000, 17, 0, SUB, HOST, 0};
	struct icmp_counters c = {0};
	struct rte_mempool *small;
	struct rte_mbuf *m;
	unsigned int len;
	uint16_t buf = (uint16_t)rte_pktmbuf_data_room_size(pool);

	fresh_state();
	build_ip(ip, &p);
	/* Headroom 0..30: the same message whichever way the room is made. */
	for (uint16_t hr = 0; hr <= 30; hr++) {
		char name[64];

		snprintf(name, sizeof(name), "headroom %u", hr);
		m = mk(hr, 30, ip, p.tot);
		len = expect(exp, 30, ip, 548, ICMP_TIME_EXCEEDED, 0, next_id);
		check(icmp_error(&st, m, 30, ICMP_TIME_EXCEEDED, 0, SRC_BE, now, &c) == 0, name,
		      "answered");
		check(mbuf_is(m, exp, len), name, "same message whichever room is used");
		check(m->data_off == (hr >= 28 ? hr - 28 : hr), name,
		      "prepends with headroom, else writes in place");
		next_id++;
		rte_pktmbuf_free(m);
	}
	/* No headroom, a first segment filling the buffer: the quote moves over the rest. */
	p.tot = (unsigned int)(buf - 30);
	build_ip(ip, &p);
	m = mk(0, 30, ip, p.tot);
	check(rte_pktmbuf_tailroom(m) == 0, "full buffer", "tailroom 0");
	len = expect(exp, 30, ip, 548, ICMP_TIME_EXCEEDED, 0, next_id);
	check(icmp_error(&st, m, 30, ICMP_TIME_EXCEEDED, 0, SRC_BE, now, &c) == 0, "full buffer",
	      "answered");
	check(mbuf_is(m, exp, len), "full buffer", "message");
	next_id++;
	rte_pktmbuf_free(m);
	/* Headroom path at the very end of the buffer (tailroom 0). */
	p.tot = 60;
	build_ip(ip, &p);
	m = mk((uint16_t)(buf - 90), 30, ip, 60);
	len = expect(exp, 30, ip, 60, ICMP_TIME_EXCEEDED, 0, next_id);
	check(icmp_error(&st, m, 30, ICMP_TIME_EXCEEDED, 0, SRC_BE, now, &c) == 0, "end of buffer",
	      "answered through the headroom");
	check(mbuf_is(m, exp, len), "end of buffer", "message");
	next_id++;
	rte_pktmbuf_free(m);

	/* 100-byte buffers, no headroom: 42 bytes left for a quote behind 30 + 28. */
	small = rte_pktmbuf_pool_create("icmp_small", 15, 0, 0, 100, SOCKET_ID_ANY);
	check(small != NULL, "small pool", "created");
	if (small == NULL)
		return;
	{
		struct rte_mempool *keep = pool;
		static const struct {
			unsigned int ihl, tot, q;
			int ret;
		} rows[] = {
			{20, 48, 42, 0},      /* quote cut to 42 >= 28 */
			{20, 42, 42, 0},      /* whole packet fits */
			{24, 60, 42, 0},      /* need 32 */
			{32, 70, 42, 0},      /* need 40 */
			{36, 70, 0, -ENOSPC}, /* need 44 > 42 */
			{60, 70, 0, -ENOSPC}, /* need 68 */
			{20, 20, 20, 0},      /* header only */
		};

		pool = small;
		for (size_t r = 0; r < RTE_DIM(rows); r++) {
			char name[64];
			struct pkt ps = {rows[r].ihl, rows[r].tot, 17, 0, SUB, HOST, 0};

			snprintf(name, sizeof(name), "100-byte buffer ihl %u tot %u", rows[r].ihl,
				 rows[r].tot);
			build_ip(ip, &ps);
			m = mk(0, 30, ip, ps.tot);
			memcpy(before, rte_pktmbuf_mtod(m, uint8_t *), 30 + ps.tot);
			len = expect(exp, 30, ip, rows[r].q, ICMP_TIME_EXCEEDED, 0, next_id);
			check(icmp_error(&st, m, 30, ICMP_TIME_EXCEEDED, 0, SRC_BE, now, &c) ==
				      rows[r].ret,
			      name, "result");
			if (rows[r].ret == 0) {
				check(mbuf_is(m, exp, len), name, "quote cut to the buffer");
				next_id++;
			} else {
				check(m->data_off == 0 && mbuf_is(m, before, 30 + ps.tot), name,
				      "untouched");
			}
			rte_pktmbuf_free(m);
		}
		check(c.refused[ICMP_REFUSE_NO_ROOM] == 2, "small pool", "no_room counted");
		pool = keep;
	}
	rte_mempool_free(small);
}

static void
test_segments(void)
{
	static uint8_t ip[MAX_PKT], exp[MAX_PKT];
	struct pkt p = {20, 1400, 17, 0, SUB, HOST, 0};
	struct icmp_counters c = {0};
	unsigned int avail0 = rte_mempool_avail_count(pool), len;
	struct rte_mbuf *m, *m2, *m3;

	fresh_state();
	build_ip(ip, &p);
	/* 30 + 200 bytes in the first segment, 600 + 600 in two more. */
	m = mk(128, 30, ip, 200);
	m2 = mk(128, 0, ip + 200, 600);
	m3 = mk(128, 0, ip + 800, 600);
	rte_pktmbuf_chain(m, m2);
	rte_pktmbuf_chain(m, m3);
	check(m->nb_segs == 3 && m->pkt_len == 1430, "segments", "setup");
	len = expect(exp, 30, ip, 200, ICMP_TIME_EXCEEDED, 0, next_id);
	check(icmp_error(&st, m, 30, ICMP_TIME_EXCEEDED, 0, SRC_BE, now, &c) == 0, "segments",
	      "answered");
	check(mbuf_is(m, exp, len), "segments", "quote of the first segment only, chain freed");
	next_id++;
	rte_pktmbuf_free(m);
	check(rte_mempool_avail_count(pool) == avail0, "segments",
	      "every segment back in the pool");

	/* First segment holds only the header + 4 data bytes: -EINVAL, untouched. */
	m = mk(128, 30, ip, 24);
	m2 = mk(128, 0, ip + 24, 1376);
	rte_pktmbuf_chain(m, m2);
	check(icmp_error(&st, m, 30, ICMP_TIME_EXCEEDED, 0, SRC_BE, now, &c) == -EINVAL, "segments",
	      "minimum quote not in the first segment");
	check(m->nb_segs == 2 && m->pkt_len == 1430 && m->data_len == 54, "segments",
	      "chain untouched");
	rte_pktmbuf_free(m);

	/* A clone (indirect mbuf) is not written. */
	m = mk(128, 30, ip, 100);
	put16(rte_pktmbuf_mtod_offset(m, uint8_t *, 32), 100);
	m2 = rte_pktmbuf_clone(m, pool);
	check(m2 != NULL, "clone", "setup");
	if (m2 != NULL) {
		check(icmp_error(&st, m2, 30, ICMP_TIME_EXCEEDED, 0, SRC_BE, now, &c) == -ENOSPC,
		      "clone", "indirect mbuf refused");
		check(icmp_error(&st, m, 30, ICMP_TIME_EXCEEDED, 0, SRC_BE, now, &c) == -ENOSPC,
		      "clone", "shared direct mbuf refused");
		rte_pktmbuf_free(m2);
	}
	rte_pktmbuf_free(m);
	check(rte_mempool_avail_count(pool) == avail0, "segments", "no mbuf leaked");
}

static void
test_ids(void)
{
	static uint8_t ip[128];
	struct pkt p = {20, 60, 17, 0, SUB, HOST, 0};
	struct icmp_counters c = {0};
	uint16_t ids[3];

	icmp_state_init(&st, 100, 10, HZ, 0xfffe);
	build_ip(ip, &p);
	for (int i = 0; i < 3; i++) {
		struct rte_mbuf *m = mk(128, 0, ip, 60);

		icmp_error(&st, m, 0, ICMP_FRAG_NEEDED, 1492, SRC_BE, now, &c);
		ids[i] = (uint16_t)get16(rte_pktmbuf_mtod_offset(m, uint8_t *, 4));
		rte_pktmbuf_free(m);
	}
	check(ids[0] == 0xfffe && ids[1] == 0xffff && ids[2] == 0, "ids",
	      "a new id per message, wrapping");
	check(strcmp(icmp_kind_names[ICMP_FRAG_NEEDED], "frag_needed") == 0 &&
		      strcmp(icmp_refuse_names[ICMP_REFUSE_RATE], "rate_limited") == 0,
	      "names", "kind and reason names");
}

int
main(int argc, char **argv)
{
	if (harness_eal_init(argc > 0 ? argv[0] : "test_icmp") != 0)
		return 1;
	pool = rte_pktmbuf_pool_create("icmp_test", POOL_N, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (pool == NULL) {
		printf("FAIL mempool\n0 passed, 1 failed\n");
		rte_eal_cleanup();
		return 1;
	}
	test_ok_rows();
	test_bad_rows();
	test_rate();
	test_room();
	test_segments();
	test_ids();
	check(rte_mempool_avail_count(pool) == POOL_N, "pool", "every mbuf freed");
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return harness_report();
}

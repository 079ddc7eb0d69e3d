/*
 * Tests of the header rewrite stage (rewrite.h), table-driven.
 *
 * usage: test_rewrite
 *
 * The EAL is initialised with --no-huge -m 128 --no-pci --no-shconf (DPDK 22.11
 * refuses --in-memory with --no-huge: --no-huge implies --legacy-mem, which
 * --in-memory excludes; --no-shconf is the part of --in-memory that matters
 * without hugepages: no files in /var/run/dpdk) and mbufs
 * come from a small pktmbuf pool, as in the worker. Decap and encap rows are
 * compared byte for byte with the expected headers written out in the row.
 * The incremental checksum updates (TTL, DSCP, MSS) are compared with a full
 * recomputation over 12,000 random headers each (fixed seed), a quarter of
 * them forced to a checksum of 0x0000 before or after the update. The last
 * line of output is "N passed, M failed"; the exit status is 1 when M > 0.
 */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "rewrite.h"
#define HARNESS_EAL
#include "harness.h"

static struct rte_mempool *pool;

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static uint32_t
rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)((rng >> 16) % n);
}

static const uint8_t SUB_MAC[6] = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};
static const uint8_t AC_MAC[6] = {0x02, 0xaa, 0x00, 0x00, 0x00, 0x01};
static const uint8_t NH_MAC[6] = {0x02, 0xbb, 0x00, 0x00, 0x00, 0xfe};
static const uint8_t CORE_MAC[6] = {0x02, 0xcc, 0x00, 0x00, 0x00, 0x01};

/* tc -> pcp: tc 3 -> 5, tc 12 -> 7, others mixed. */
static const struct rw_pcp_map PCP = {{0, 1, 2, 5, 4, 3, 6, 7, 1, 1, 1, 1, 7, 0, 0, 0}};

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

/* One's complement sum of n bytes as big-endian words, folded to 16 bits. */
static uint32_t
sum16(const uint8_t *p, size_t n, uint32_t s)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += get16(p + i);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

/* The IPv4 header checksum recomputed from scratch (field treated as 0). */
static unsigned int
ip_csum_full(const uint8_t *ip)
{
	uint8_t h[60];
	size_t ihl = (size_t)(ip[0] & 0x0f) * 4;

	memcpy(h, ip, ihl);
	h[10] = h[11] = 0;
	return ~sum16(h, ihl, 0) & 0xffff;
}

/* The TCP checksum recomputed from scratch, pseudo header included. */
static unsigned int
tcp_csum_full(const uint8_t *ip)
{
	size_t ihl = (size_t)(ip[0] & 0x0f) * 4, tl = get16(ip + 2) - ihl;
	uint8_t t[1500];
	uint32_t s;

	memcpy(t, ip + ihl, tl);
	t[16] = t[17] = 0;
	s = sum16(ip + 12, 8, 0) + RW_IPPROTO_TCP + (uint32_t)tl;
	return ~sum16(t, tl, s) & 0xffff;
}

/* A random IPv4 header of ihl bytes (valid version/IHL), checksum set. */
static void
rand_ipv4(uint8_t *ip, unsigned int ihl, unsigned int tot)
{
	unsigned int i;

	for (i = 0; i < ihl; i++)
		ip[i] = (uint8_t)rnd(256);
	ip[0] = (uint8_t)(0x40 | ihl / 4);
	put16(ip + 2, tot);
	put16(ip + 10, ip_csum_full(ip));
}

/*
 * Set the IPv4 identification so that the header sums to 0xffff (checksum
 * 0x0000) when its TTL/TOS byte pair at off holds the value v, then restore
 * the pair and recompute the checksum: with v the value after the update,
 * the update must produce 0x0000; with the current value, it starts there.
 */
static void
force_zero_csum(uint8_t *ip, int off, unsigned int v)
{
	unsigned int ihl = (unsigned int)(ip[0] & 0x0f) * 4, saved = get16(ip + off), s;

	put16(ip + off, v);
	put16(ip + 4, 0);
	ip[10] = ip[11] = 0;
	s = sum16(ip, ihl, 0);
	put16(ip + 4, 0xffff - s);
	put16(ip + off, saved);
	put16(ip + 10, ip_csum_full(ip));
}

static struct rte_mbuf *
mk_mbuf(const uint8_t *bytes, unsigned int len, unsigned int headroom)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	if (m == NULL)
		return NULL;
	m->data_off = (uint16_t)headroom;
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), bytes, len);
	return m;
}

/* --- decap ---------------------------------------------------------------- */

struct decap_case {
	const char *name;
	uint16_t tpid;	    /* outer TPID of the access frame */
	uint16_t core_vlan; /* 0 = untagged core */
	unsigned int ip_len;
	unsigned int pad_to; /* frame padded with 0xee bytes up to this length */
	int kind;	     /* cls_result kind given to the decap */
	int l3_len_delta;    /* cls_result l3_len edit (inconsistent results) */
	int rc;
	const char *hdr; /* expected core header, hdr_len bytes */
	unsigned int hdr_len;
};

/* clang-format off */
static const struct decap_case decap_cases[] = {
	{"88a8 untagged core", CLS_ETH_QINQ, 0, 84, 0, CLS_PPPOE_SESS_IPV4, 0, 0,
	 "\x02\xbb\x00\x00\x00\xfe\x02\xcc\x00\x00\x00\x01\x08\x00", 14},
	{"8100 core vlan 42", CLS_ETH_VLAN, 42, 84, 0, CLS_PPPOE_SESS_IPV4, 0, 0,
	 "\x02\xbb\x00\x00\x00\xfe\x02\xcc\x00\x00\x00\x01\x81\x00\x00\x2a\x08\x00", 18},
	{"88a8 core vlan 4094, padded 64", CLS_ETH_QINQ, 4094, 20, 64, CLS_PPPOE_SESS_IPV4, 0, 0,
	 "\x02\xbb\x00\x00\x00\xfe\x02\xcc\x00\x00\x00\x01\x81\x00\x0f\xfe\x08\x00", 18},
	{"8100 untagged, 28 bytes padded 60", CLS_ETH_VLAN, 0, 28, 60, CLS_PPPOE_SESS_IPV4, 0, 0,
	 "\x02\xbb\x00\x00\x00\xfe\x02\xcc\x00\x00\x00\x01\x08\x00", 14},
	{"1500 bytes", CLS_ETH_QINQ, 7, 1500, 0, CLS_PPPOE_SESS_IPV4, 0, 0,
	 "\x02\xbb\x00\x00\x00\xfe\x02\xcc\x00\x00\x00\x01\x81\x00\x00\x07\x08\x00", 18},
	/* IPv6 is decapsulated the same way (the worker then writes ethertype 0x86dd) */
	{"kind ipv6 decapsulated", CLS_ETH_QINQ, 0, 84, 0, CLS_PPPOE_SESS_IPV6, 0, 0,
	 "\x02\xbb\x00\x00\x00\xfe\x02\xcc\x00\x00\x00\x01\x08\x00", 14},
	{"kind drop refused", CLS_ETH_QINQ, 0, 84, 0, CLS_DROP, 0, -EINVAL, "", 0},
	{"l3_len beyond frame", CLS_ETH_QINQ, 0, 84, 0, CLS_PPPOE_SESS_IPV4, 1, -EINVAL, "", 0},
	{"l3_len shorter: rest trimmed", CLS_ETH_QINQ, 0, 84, 0, CLS_PPPOE_SESS_IPV4, -4, 0,
	 "\x02\xbb\x00\x00\x00\xfe\x02\xcc\x00\x00\x00\x01\x08\x00", 14},
};
/* clang-format on */

static void
test_decap(void)
{
	uint8_t f[1600], ip[1500];
	size_t k;

	for (k = 0; k < sizeof(decap_cases) / sizeof(decap_cases[0]); k++) {
		const struct decap_case *c = &decap_cases[k];
		unsigned int len = 30 + c->ip_len, want_len;
		struct cls_result r = {0};
		struct rw_core_tmpl ct;
		struct rte_mbuf *m;
		uint16_t off0;
		int rc;

		rand_ipv4(ip, 20, c->ip_len);
		for (unsigned int i = 20; i < c->ip_len; i++)
			ip[i] = (uint8_t)rnd(256);
		memcpy(f, AC_MAC, 6);
		memcpy(f + 6, SUB_MAC, 6);
		put16(f + 12, c->tpid);
		put16(f + 14, 5u << 13 | 400);
		put16(f + 16, CLS_ETH_VLAN);
		put16(f + 18, 5u << 13 | 1);
		put16(f + 20, CLS_ETH_PPPOE_SESS);
		f[22] = 0x11;
		f[23] = 0;
		put16(f + 24, 9);
		put16(f + 26, c->ip_len + 2);
		put16(f + 28, CLS_PPP_IPV4);
		memcpy(f + 30, ip, c->ip_len);
		if (c->pad_to > len) {
			memset(f + len, 0xee, c->pad_to - len);
			len = c->pad_to;
		}
		r.kind = (uint8_t)c->kind;
		r.l3_off = 30;
		r.l3_len = (uint16_t)(c->ip_len + c->l3_len_delta);
		r.sid = 9;
		check(rw_core_tmpl_init(&ct, NH_MAC, CORE_MAC, c->core_vlan) == 0, c->name,
		      "core template");
		m = mk_mbuf(f, len, RTE_PKTMBUF_HEADROOM);
		if (m == NULL) {
			check(false, c->name, "mbuf alloc");
			continue;
		}
		off0 = m->data_off;
		rc = rw_decap_pppoe(m, &r, &ct);
		check(rc == c->rc, c->name, "return code");
		if (rc != 0) {
			check(m->data_off == off0 && rte_pktmbuf_pkt_len(m) == len &&
				      rte_pktmbuf_data_len(m) == len &&
				      memcmp(rte_pktmbuf_mtod(m, uint8_t *), f, len) == 0,
			      c->name, "mbuf untouched on error");
		} else {
			want_len = c->hdr_len + r.l3_len;
			check(rte_pktmbuf_pkt_len(m) == want_len &&
				      rte_pktmbuf_data_len(m) == want_len,
			      c->name, "length: core header + IPv4, padding trimmed");
			check(memcmp(rte_pktmbuf_mtod(m, uint8_t *), c->hdr, c->hdr_len) == 0,
			      c->name, "core header bytes");
			check(memcmp(rte_pktmbuf_mtod_offset(m, uint8_t *, c->hdr_len), ip,
				     r.l3_len) == 0,
			      c->name, "IPv4 bytes unchanged");
		}
		rte_pktmbuf_free(m);
	}
}

/* --- core strip + encap ---------------------------------------------------- */

struct encap_case {
	const char *name;
	uint16_t tpid, stag, ctag, sid;
	uint8_t tc;
	unsigned int ip_len;
	unsigned int headroom;
	int tot_delta; /* IPv4 total length edit (inconsistent packet) */
	int rc;
	const char *hdr; /* the expected 30-byte access header */
};

/* clang-format off */
static const struct encap_case encap_cases[] = {
	{"88a8 tc 3 -> pcp 5", CLS_ETH_QINQ, 400, 1, 9, 3, 84, RTE_PKTMBUF_HEADROOM, 0, 0,
	 "\x02\x11\x22\x33\x44\x55\x02\xaa\x00\x00\x00\x01\x88\xa8\xa1\x90\x81\x00\xa0\x01"
	 "\x88\x64\x11\x00\x00\x09\x00\x56\x00\x21"},
	{"8100 tc 0 -> pcp 0, 1500", CLS_ETH_VLAN, 300, 4094, 0x1234, 0, 1500,
	 RTE_PKTMBUF_HEADROOM, 0, 0,
	 "\x02\x11\x22\x33\x44\x55\x02\xaa\x00\x00\x00\x01\x81\x00\x01\x2c\x81\x00\x0f\xfe"
	 "\x88\x64\x11\x00\x12\x34\x05\xde\x00\x21"},
	{"88a8 tc 12 -> pcp 7, 20 bytes", CLS_ETH_QINQ, 4094, 2000, 0xfffe, 12, 20,
	 RTE_PKTMBUF_HEADROOM, 0, 0,
	 "\x02\x11\x22\x33\x44\x55\x02\xaa\x00\x00\x00\x01\x88\xa8\xef\xfe\x81\x00\xe7\xd0"
	 "\x88\x64\x11\x00\xff\xfe\x00\x16\x00\x21"},
	{"8100 tc 5 -> pcp 3", CLS_ETH_VLAN, 1, 1, 1, 5, 40, RTE_PKTMBUF_HEADROOM, 0, 0,
	 "\x02\x11\x22\x33\x44\x55\x02\xaa\x00\x00\x00\x01\x81\x00\x60\x01\x81\x00\x60\x01"
	 "\x88\x64\x11\x00\x00\x01\x00\x2a\x00\x21"},
	{"tc 19 masked to 3 -> pcp 5", CLS_ETH_QINQ, 400, 1, 9, 19, 84, RTE_PKTMBUF_HEADROOM, 0, 0,
	 "\x02\x11\x22\x33\x44\x55\x02\xaa\x00\x00\x00\x01\x88\xa8\xa1\x90\x81\x00\xa0\x01"
	 "\x88\x64\x11\x00\x00\x09\x00\x56\x00\x21"},
	{"headroom exactly 30", CLS_ETH_QINQ, 400, 1, 9, 3, 84, 30, 0, 0,
	 "\x02\x11\x22\x33\x44\x55\x02\xaa\x00\x00\x00\x01\x88\xa8\xa1\x90\x81\x00\xa0\x01"
	 "\x88\x64\x11\x00\x00\x09\x00\x56\x00\x21"},
	{"headroom 29", CLS_ETH_QINQ, 400, 1, 9, 3, 84, 29, 0, -ENOSPC, ""},
	{"headroom 0", CLS_ETH_QINQ, 400, 1, 9, 3, 84, 0, 0, -ENOSPC, ""},
	{"total length above packet", CLS_ETH_QINQ, 400, 1, 9, 3, 84, RTE_PKTMBUF_HEADROOM, 1,
	 -EINVAL, ""},
	{"total length below packet", CLS_ETH_QINQ, 400, 1, 9, 3, 84, RTE_PKTMBUF_HEADROOM, -1,
	 -EINVAL, ""},
};
/* clang-format on */

static void
test_encap(void)
{
	uint8_t ip[1500];
	size_t k;

	for (k = 0; k < sizeof(encap_cases) / sizeof(encap_cases[0]); k++) {
		const struct encap_case *c = &encap_cases[k];
		struct rw_encap_tmpl t;
		struct rte_mbuf *m;
		uint16_t off0;
		int rc;

		rand_ipv4(ip, 20, (unsigned int)((int)c->ip_len + c->tot_delta));
		for (unsigned int i = 20; i < c->ip_len; i++)
			ip[i] = (uint8_t)rnd(256);
		check(rw_encap_tmpl_init(&t, SUB_MAC, AC_MAC, c->tpid, c->stag, c->ctag, c->sid) ==
			      0,
		      c->name, "template");
		m = mk_mbuf(ip, c->ip_len, c->headroom);
		if (m == NULL) {
			check(false, c->name, "mbuf alloc");
			continue;
		}
		off0 = m->data_off;
		rc = rw_encap_pppoe(m, &t, &PCP, c->tc);
		check(rc == c->rc, c->name, "return code");
		if (rc != 0) {
			check(m->data_off == off0 && rte_pktmbuf_pkt_len(m) == c->ip_len &&
				      memcmp(rte_pktmbuf_mtod(m, uint8_t *), ip, c->ip_len) == 0,
			      c->name, "mbuf untouched on error");
		} else {
			check(rte_pktmbuf_pkt_len(m) == 30 + c->ip_len &&
				      rte_pktmbuf_data_len(m) == 30 + c->ip_len,
			      c->name, "length");
			check(memcmp(rte_pktmbuf_mtod(m, uint8_t *), c->hdr, 30) == 0, c->name,
			      "access header bytes");
			check(memcmp(rte_pktmbuf_mtod_offset(m, uint8_t *, 30), ip, c->ip_len) == 0,
			      c->name, "IPv4 bytes unchanged");
		}
		rte_pktmbuf_free(m);
	}
}

/* Template refusals and the core strip helper. */
static void
test_templates_and_strip(void)
{
	struct rw_encap_tmpl t;
	struct rw_core_tmpl ct;
	struct cls_result r = {0};
	uint8_t f[128], ip[84];
	struct rte_mbuf *m;

	check(rw_encap_tmpl_init(&t, SUB_MAC, AC_MAC, 0x9100, 1, 1, 1) == -EINVAL, "tmpl",
	      "tpid 0x9100 refused");
	check(rw_encap_tmpl_init(&t, SUB_MAC, AC_MAC, CLS_ETH_VLAN, 0, 1, 1) == -EINVAL, "tmpl",
	      "stag 0 refused");
	check(rw_encap_tmpl_init(&t, SUB_MAC, AC_MAC, CLS_ETH_VLAN, 1, 4095, 1) == -EINVAL, "tmpl",
	      "ctag 4095 refused");
	check(rw_encap_tmpl_init(&t, SUB_MAC, AC_MAC, CLS_ETH_VLAN, 1, 1, 0) == -EINVAL, "tmpl",
	      "sid 0 refused");
	check(rw_encap_tmpl_init(&t, SUB_MAC, AC_MAC, CLS_ETH_VLAN, 1, 1, 0xffff) == -EINVAL,
	      "tmpl", "sid 0xffff refused");
	check(rw_core_tmpl_init(&ct, NH_MAC, CORE_MAC, 4095) == -EINVAL, "tmpl",
	      "core vlan 4095 refused");

	/* Tagged core frame, 28-byte IPv4 padded to 64: strip, then encap. */
	rand_ipv4(ip, 20, 28);
	memset(f, 0xee, sizeof(f));
	memcpy(f, CORE_MAC, 6);
	memcpy(f + 6, NH_MAC, 6);
	put16(f + 12, CLS_ETH_VLAN);
	put16(f + 14, 42);
	put16(f + 16, CLS_ETH_IPV4);
	memcpy(f + 18, ip, 28);
	r.kind = CLS_CORE_IPV4;
	r.l3_off = 18;
	r.l3_len = 28;
	m = mk_mbuf(f, 64, RTE_PKTMBUF_HEADROOM);
	if (m == NULL) {
		check(false, "strip", "mbuf alloc");
		return;
	}
	r.kind = CLS_PPPOE_SESS_IPV4;
	check(rw_core_strip(m, &r) == -EINVAL && rte_pktmbuf_pkt_len(m) == 64, "strip",
	      "wrong kind refused, untouched");
	r.kind = CLS_CORE_IPV4;
	check(rw_core_strip(m, &r) == 0, "strip", "tagged core, padded: ok");
	check(rte_pktmbuf_pkt_len(m) == 28 && rte_pktmbuf_data_len(m) == 28 &&
		      memcmp(rte_pktmbuf_mtod(m, uint8_t *), ip, 28) == 0,
	      "strip", "IPv4 packet only");
	rw_encap_tmpl_init(&t, SUB_MAC, AC_MAC, CLS_ETH_QINQ, 400, 1, 9);
	check(rw_encap_pppoe(m, &t, &PCP, 0) == 0 &&
		      get16(rte_pktmbuf_mtod_offset(m, uint8_t *, 26)) == 30,
	      "strip", "then encap: PPPoE length 30");
	rte_pktmbuf_free(m);
}

/* --- TTL and DSCP: incremental vs full ------------------------------------- */

#define N_RANDOM 12000

static void
test_ttl_dscp_random(void)
{
	unsigned int bad_ttl = 0, bad_dscp = 0, zero_before = 0, zero_after = 0, ffff_word = 0;
	unsigned int expired_ok = 0, expired = 0;
	uint8_t ip[60], before[60];
	int i;

	for (i = 0; i < N_RANDOM; i++) {
		unsigned int ihl = 20 + 4 * rnd(11), ttl, dscp, tos;

		rand_ipv4(ip, ihl, ihl + rnd(1000));
		if (i % 16 == 5) {
			ip[8] = 0xff; /* TTL/protocol word 0xffff before */
			ip[9] = 0xff;
			put16(ip + 10, ip_csum_full(ip));
		}
		ttl = ip[8];
		if (i % 4 == 1 && ttl > 1)
			force_zero_csum(ip, 8, get16(ip + 8) - 0x100); /* 0x0000 after */
		else if (i % 4 == 2)
			force_zero_csum(ip, 8, get16(ip + 8)); /* 0x0000 before */
		zero_before += get16(ip + 10) == 0;
		ffff_word += get16(ip + 8) == 0xffff;
		memcpy(before, ip, ihl);
		if (rw_ipv4_ttl_dec(ip)) {
			expired++;
			expired_ok += ttl <= 1 && memcmp(before, ip, ihl) == 0;
		} else {
			bad_ttl += ttl <= 1 || ip[8] != ttl - 1 ||
				   get16(ip + 10) != ip_csum_full(ip) ||
				   memcmp(before, ip, 8) != 0 ||
				   memcmp(before + 9, ip + 9, 1) != 0 ||
				   memcmp(before + 12, ip + 12, ihl - 12) != 0;
			zero_after += get16(ip + 10) == 0;
		}

		/* DSCP: random value, corner checksums the same way on the TOS word. */
		dscp = rnd(64);
		tos = ip[1];
		if (i % 4 == 1)
			force_zero_csum(ip, 0, (unsigned int)ip[0] << 8 | dscp << 2 | (tos & 3));
		else if (i % 4 == 2)
			force_zero_csum(ip, 0, get16(ip));
		zero_before += get16(ip + 10) == 0;
		rw_ipv4_dscp_set(ip, (uint8_t)dscp);
		bad_dscp += ip[1] != (dscp << 2 | (tos & 3)) || get16(ip + 10) != ip_csum_full(ip);
		zero_after += get16(ip + 10) == 0;
	}
	check(bad_ttl == 0, "ttl random", "incremental == full recomputation");
	check(expired > 0 && expired_ok == expired, "ttl random", "TTL 0/1: expired, untouched");
	check(bad_dscp == 0, "dscp random", "incremental == full, ECN kept");
	check(zero_before > 1000 && zero_after > 1000, "ttl/dscp random",
	      "0x0000 checksums before and after hit");
	check(ffff_word > 100, "ttl/dscp random", "0xffff TTL/protocol words hit");
	printf("ttl/dscp: %d headers, %u expired, %u zero-before, %u zero-after\n", N_RANDOM,
	       expired, zero_before, zero_after);

	/* Fixed TTL edges. */
	memset(ip, 0, 20);
	ip[0] = 0x45;
	put16(ip + 2, 20);
	ip[9] = 6;
	for (unsigned int ttl = 0; ttl < 4; ttl++) {
		ip[8] = (uint8_t)ttl;
		put16(ip + 10, ip_csum_full(ip));
		check(rw_ipv4_ttl_dec(ip) == (ttl <= 1), "ttl edges", "expired iff TTL <= 1");
	}
}

/* --- MSS -------------------------------------------------------------------- */

struct mss_case {
	const char *name;
	uint8_t proto, flags, ihl_words; /* ihl_words 0 = 5 */
	unsigned int frag;		 /* flags + fragment offset field */
	const char *opt;		 /* TCP options */
	unsigned int optlen;		 /* multiple of 4 */
	int doff_delta;			 /* data offset edit, in words (ihl 5 rows) */
	int cut;			 /* bytes readable: total - cut (8 bytes of payload) */
	int tot_delta;			 /* IPv4 total length = end of the TCP header + delta */
	uint16_t clamp;
	int rc;
	uint16_t mss_after; /* checked at mss_at when rc == 1 */
	unsigned int mss_at;
};

#define SYN RW_TCP_SYN
#define SYNACK (RW_TCP_SYN | 0x10)
#define ACK 0x10

/* clang-format off */
static const struct mss_case mss_cases[] = {
	{"syn mss 1460 > 1452", 6, SYN, 0, 0, "\x02\x04\x05\xb4", 4, 0, 0, 0, 1452, 1, 1452, 22},
	{"syn mss 1400 < 1452", 6, SYN, 0, 0, "\x02\x04\x05\x78", 4, 0, 0, 0, 1452, 0, 0, 0},
	{"syn mss 1452 == 1452", 6, SYN, 0, 0, "\x02\x04\x05\xac", 4, 0, 0, 0, 1452, 0, 0, 0},
	{"syn-ack mss 1460", 6, SYNACK, 0, 0, "\x02\x04\x05\xb4", 4, 0, 0, 0, 1452, 1, 1452, 22},
	{"syn mss 65535 -> 0", 6, SYN, 0, 0, "\x02\x04\xff\xff", 4, 0, 0, 0, 0, 1, 0, 22},
	{"syn without options", 6, SYN, 0, 0, "", 0, 0, 0, 0, 1452, 0, 0, 0},
	{"syn nop nop ts, no mss", 6, SYN, 0, 0,
	 "\x01\x01\x08\x0a\x00\x00\x00\x01\x00\x00\x00\x00", 12, 0, 0, 0, 1452, 0, 0, 0},
	{"syn linux options", 6, SYN, 0, 0,
	 "\x02\x04\x05\xb4\x04\x02\x08\x0a\x00\x00\x00\x01\x00\x00\x00\x00\x01\x03\x03\x07", 20,
	 0, 0, 0, 1400, 1, 1400, 22},
	{"syn nop, mss at 21", 6, SYN, 0, 0, "\x01\x02\x04\x05\xb4\x00\x00\x00", 8, 0, 0, 0, 1000,
	 1, 1000, 23},
	{"eol before mss", 6, SYN, 0, 0, "\x00\x02\x04\x05\xb4\x00\x00\x00", 8, 0, 0, 0, 1000, 0,
	 0, 0},
	{"option length 0 before mss", 6, SYN, 0, 0, "\x08\x00\x02\x04\x05\xb4\x00\x00", 8, 0, 0,
	 0, 1000, 0, 0, 0},
	{"option length 1 after mss", 6, SYN, 0, 0, "\x02\x04\x05\xb4\x08\x01\x00\x00", 8, 0, 0, 0,
	 1000, 0, 0, 0},
	{"option past data offset", 6, SYN, 0, 0, "\x02\x04\x05\xb4\x01\x01\x03\x0a", 8, 0, 0, 0,
	 1000, 0, 0, 0},
	{"kind without length byte", 6, SYN, 0, 0, "\x02\x04\x05\xb4\x01\x01\x01\x03", 8, 0, 0, 0,
	 1000, 0, 0, 0},
	{"mss length 3", 6, SYN, 0, 0, "\x02\x03\x05\xb4", 4, 0, 0, 0, 1000, 0, 0, 0},
	{"mss length 6", 6, SYN, 0, 0, "\x02\x06\x05\xb4\x00\x00\x00\x00", 8, 0, 0, 0, 1000, 0, 0,
	 0},
	{"two mss options", 6, SYN, 0, 0, "\x02\x04\x05\xb4\x02\x04\x05\xb4", 8, 0, 0, 0, 1000, 0,
	 0, 0},
	{"ack only", 6, ACK, 0, 0, "\x02\x04\x05\xb4", 4, 0, 0, 0, 1452, 0, 0, 0},
	{"udp", 17, SYN, 0, 0, "\x02\x04\x05\xb4", 4, 0, 0, 0, 1452, 0, 0, 0},
	{"non-first fragment", 6, SYN, 0, 0x0001, "\x02\x04\x05\xb4", 4, 0, 0, 0, 1452, 0, 0, 0},
	{"non-first last fragment", 6, SYN, 0, 0x00b9, "\x02\x04\x05\xb4", 4, 0, 0, 0, 1452, 0, 0,
	 0},
	{"first fragment (MF)", 6, SYN, 0, 0x2000, "\x02\x04\x05\xb4", 4, 0, 0, 0, 1452, 1, 1452,
	 22},
	{"DF set", 6, SYN, 0, 0x4000, "\x02\x04\x05\xb4", 4, 0, 0, 0, 1452, 1, 1452, 22},
	{"ihl 6", 6, SYN, 6, 0, "\x02\x04\x05\xb4", 4, 0, 0, 0, 1452, 1, 1452, 22},
	{"ihl 15", 6, SYN, 15, 0, "\x02\x04\x05\xb4", 4, 0, 0, 0, 1452, 1, 1452, 22},
	{"ihl 4", 6, SYN, 4, 0, "\x02\x04\x05\xb4", 4, 0, 0, 0, 1452, 0, 0, 0},
	{"data offset 4", 6, SYN, 0, 0, "\x02\x04\x05\xb4", 4, -2, 0, 0, 1452, 0, 0, 0},
	{"data offset past packet", 6, SYN, 0, 0, "\x02\x04\x05\xb4", 4, 3, 0, 0, 1452, 0, 0, 0},
	{"readable bytes cut", 6, SYN, 0, 0, "\x02\x04\x05\xb4", 4, 0, 9, 0, 1452, 0, 0, 0},
	{"total length cut", 6, SYN, 0, 0, "\x02\x04\x05\xb4", 4, 0, 0, -1, 1452, 0, 0, 0},
	{"40 bytes of options, mss last", 6, SYN, 0, 0,
	 "\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01"
	 "\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x02\x04\x23\x28", 40,
	 0, 0, 0, 1300, 1, 1300, 58},
};
/* clang-format on */

/*
 * IPv4 + TCP SYN into p: ihl bytes of IP, TCP header with opts, payload
 * bytes of random data; both checksums valid. Returns the total length.
 */
static unsigned int
build_tcp(uint8_t *p, unsigned int ihl, uint8_t proto, unsigned int frag, uint8_t flags,
	  const uint8_t *opt, unsigned int optlen, unsigned int payload)
{
	unsigned int tot = ihl + 20 + optlen + payload, i;
	uint8_t *th = p + ihl;

	for (i = 0; i < tot; i++)
		p[i] = (uint8_t)rnd(256);
	p[0] = (uint8_t)(0x40 | ihl / 4);
	put16(p + 2, tot);
	put16(p + 6, frag);
	p[9] = proto;
	th[12] = (uint8_t)((20 + optlen) / 4 << 4);
	th[13] = flags;
	memcpy(th + 20, opt, optlen);
	put16(th + 16, tcp_csum_full(p));
	put16(p + 10, ip_csum_full(p));
	return tot;
}

static void
test_mss_table(void)
{
	uint8_t pkt[200], before[200];
	size_t k;

	for (k = 0; k < sizeof(mss_cases) / sizeof(mss_cases[0]); k++) {
		const struct mss_case *c = &mss_cases[k];
		unsigned int ihl = 4u * (c->ihl_words ? c->ihl_words : 5), tot, len;
		struct rte_mbuf *m;
		uint8_t *ip;
		int rc;

		tot = build_tcp(pkt, ihl < 20 ? 20 : ihl, c->proto, c->frag, c->flags,
				(const uint8_t *)c->opt, c->optlen, 8);
		if (ihl < 20)
			pkt[0] = (uint8_t)(0x40 | ihl / 4);
		if (c->doff_delta != 0)
			pkt[20 + 12] = (uint8_t)(((int)(c->optlen / 4) + 5 + c->doff_delta) << 4);
		if (c->tot_delta != 0)
			put16(pkt + 2, (unsigned int)((int)(tot - 8) + c->tot_delta));
		m = mk_mbuf(pkt, tot, RTE_PKTMBUF_HEADROOM);
		if (m == NULL) {
			check(false, c->name, "mbuf alloc");
			continue;
		}
		ip = rte_pktmbuf_mtod(m, uint8_t *);
		memcpy(before, ip, tot);
		len = tot - (unsigned int)c->cut;
		rc = rw_tcp_mss_clamp(ip, len, c->clamp);
		check(rc == c->rc, c->name, "return code");
		if (rc == 0) {
			check(memcmp(before, ip, tot) == 0, c->name, "packet untouched");
		} else {
			check(get16(ip + ihl + c->mss_at) == c->mss_after, c->name, "MSS value");
			check(get16(ip + ihl + 16) == tcp_csum_full(ip), c->name,
			      "TCP checksum == full recomputation");
			check(memcmp(before, ip, ihl) == 0, c->name, "IPv4 header untouched");
		}
		rte_pktmbuf_free(m);
	}
}

static void
test_mss_random(void)
{
	unsigned int bad = 0, clamped = 0, zero_before = 0, zero_after = 0;
	uint8_t pkt[200], opt[40];
	int i;

	for (i = 0; i < N_RANDOM; i++) {
		unsigned int ihl = 20 + 4 * rnd(11), nop = rnd(37), optlen, tot, at, mss, clamp;
		unsigned int s, want;
		uint8_t *th;

		/* NOPs, then the MSS option, then EOL padding to a multiple of 4. */
		memset(opt, RW_TCPOPT_NOP, nop);
		mss = i % 8 == 0 ? 0xffff : i % 8 == 1 ? 0 : rnd(65536);
		clamp = i % 8 == 2 ? 0xffff : rnd(65536);
		opt[nop] = RW_TCPOPT_MSS;
		opt[nop + 1] = 4;
		put16(opt + nop + 2, mss);
		optlen = (nop + 4 + 3) & ~3u;
		memset(opt + nop + 4, RW_TCPOPT_EOL, optlen - nop - 4);
		tot = build_tcp(pkt, ihl, 6, 0, SYN, opt, optlen, 2 + 2 * rnd(20));
		th = pkt + ihl;
		at = 20 + nop + 2;
		/* Force a 0x0000 TCP checksum before (i % 4 == 1) or after (== 2) via the
		 * first payload word. */
		if ((i % 4 == 1) || (i % 4 == 2 && mss > clamp)) {
			unsigned int pw = 20 + optlen;

			if (i % 4 == 2)
				put16(th + at, clamp);
			put16(th + pw, 0);
			th[16] = th[17] = 0;
			s = sum16(pkt + 12, 8, 0) + RW_IPPROTO_TCP + (tot - ihl);
			s = sum16(th, tot - ihl, s);
			put16(th + pw, 0xffff - s);
			put16(th + at, mss);
			put16(th + 16, tcp_csum_full(pkt));
		}
		zero_before += get16(th + 16) == 0;
		want = mss > clamp ? clamp : mss;
		clamped += rw_tcp_mss_clamp(pkt, tot, (uint16_t)clamp);
		bad += get16(th + at) != want || get16(th + 16) != tcp_csum_full(pkt);
		zero_after += mss > clamp && get16(th + 16) == 0;
	}
	check(bad == 0, "mss random", "MSS value and incremental == full recomputation");
	check(clamped > 1000 && zero_before > 1000 && zero_after > 500, "mss random",
	      "clamps and 0x0000 checksums before and after hit");
	printf("mss: %d packets, %u clamped, %u zero-before, %u zero-after\n", N_RANDOM, clamped,
	       zero_before, zero_after);
}

/* IPoE (issue 19): the 22-byte QinQ + Ethernet header on, and off again upstream. */
static void
test_ipoe(void)
{
	static const uint8_t want[22] = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55, 0x02, 0xaa,
					 0x00, 0x00, 0x00, 0x01, 0x88, 0xa8, 0xa0, 0x64,
					 0x81, 0x00, 0xa7, 0xd0, 0x08, 0x00}; /* PCP 5 */
	struct rw_encap_tmpl t, tp;
	struct rw_core_tmpl ct;
	struct cls_result r = {.kind = CLS_IPOE_IPV4, .l3_off = 22, .l3_len = 60};
	struct rte_mbuf *m;
	uint8_t ip[60], frame[96];

	rand_ipv4(ip, 20, sizeof(ip));
	check(rw_encap_tmpl_init_ipoe(&t, SUB_MAC, AC_MAC, 0x88a8, 100, 2000) == 0 && t.ipoe,
	      "ipoe", "template");
	check(rw_encap_tmpl_init_ipoe(&t, SUB_MAC, AC_MAC, 0x9100, 100, 2000) == -EINVAL &&
		      rw_encap_tmpl_init_ipoe(&t, SUB_MAC, AC_MAC, 0x88a8, 0, 2000) == -EINVAL,
	      "ipoe", "template refusals");
	check(rw_encap_tmpl_init_ipoe(&t, SUB_MAC, AC_MAC, 0x88a8, 100, 2000) == 0, "ipoe",
	      "template again");
	m = mk_mbuf(ip, sizeof(ip), 64);
	check(m != NULL && rw_encap_ipv4(m, &t, &PCP, 3) == 0 && rte_pktmbuf_pkt_len(m) == 82 &&
		      memcmp(rte_pktmbuf_mtod(m, uint8_t *), want, 22) == 0 &&
		      memcmp(rte_pktmbuf_mtod_offset(m, uint8_t *, 22), ip, 60) == 0,
	      "ipoe", "encap: header bytes, PCP of tc 3, IPv4 unchanged");
	rte_pktmbuf_free(m);
	check(rw_encap_tmpl_init(&tp, SUB_MAC, AC_MAC, 0x8100, 100, 2000, 7) == 0, "ipoe",
	      "pppoe template");
	m = mk_mbuf(ip, sizeof(ip), 64);
	check(m != NULL && rw_encap_ipoe(m, &tp, &PCP, 0) == -EINVAL &&
		      rte_pktmbuf_pkt_len(m) == 60,
	      "ipoe", "a PPPoE template refused, mbuf untouched");
	check(rw_encap_ipv4(m, &tp, &PCP, 0) == 0 && rte_pktmbuf_pkt_len(m) == 90, "ipoe",
	      "rw_encap_ipv4 picks PPPoE by the template");
	rte_pktmbuf_free(m);
	/* upstream: QinQ + Ethernet off, core header on, padding off */
	memcpy(frame, want, 22);
	memcpy(frame + 22, ip, 60);
	check(rw_core_tmpl_init(&ct, NH_MAC, CORE_MAC, 0) == 0, "ipoe", "core template");
	m = mk_mbuf(frame, 22 + 60, 64);
	check(m != NULL && rw_decap_pppoe(m, &r, &ct) == 0 && rte_pktmbuf_pkt_len(m) == 14 + 60 &&
		      memcmp(rte_pktmbuf_mtod(m, uint8_t *), NH_MAC, 6) == 0 &&
		      memcmp(rte_pktmbuf_mtod_offset(m, uint8_t *, 14), ip, 60) == 0,
	      "ipoe", "decap to the core");
	rte_pktmbuf_free(m);
	r.l3_off = 21;
	m = mk_mbuf(frame, 22 + 60, 64);
	check(m != NULL && rw_decap_pppoe(m, &r, &ct) == -EINVAL, "ipoe",
	      "decap: IPoE header shorter than QinQ refused");
	rte_pktmbuf_free(m);
}

int
main(int argc, char **argv)
{
	if (harness_eal_init(argc > 0 ? argv[0] : "test_rewrite") != 0)
		return 1;
	pool = rte_pktmbuf_pool_create("rw_test", 255, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (pool == NULL) {
		printf("FAIL mempool: %s\n0 passed, 1 failed\n", rte_strerror(rte_errno));
		rte_eal_cleanup();
		return 1;
	}
	test_decap();
	test_encap();
	test_ipoe();
	test_templates_and_strip();
	test_ttl_dscp_random();
	test_mss_table();
	test_mss_random();
	check(rte_mempool_avail_count(pool) == 255, "pool", "every mbuf freed");
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return harness_report();
}

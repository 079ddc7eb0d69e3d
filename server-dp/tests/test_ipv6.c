/*
 * Unit tests of bng-dp's IPv6 pieces: the per-session prefixes and the
 * downstream exact-match chains (session.h), core-side Neighbor Discovery
 * (nd.h), ICMPv6 errors (icmp6.h) and the RA offload (ra.h): frames byte for
 * byte, checksums against a full recomputation, timing with a fake clock.
 * Needs EAL (--no-huge).
 */

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_eal.h>
#include <rte_mbuf.h>

#include "icmp6.h"
#include "nd.h"
#include "ra.h"
#include "session.h"

#define HARNESS_EAL
#include "harness.h"

static void
ip6(const char *s, uint8_t out[16])
{
	if (inet_pton(AF_INET6, s, out) != 1)
		abort();
}

static void
params6(uint32_t k, struct dp_session_params *p, const char *wan, const char *pd)
{
	static const uint8_t ac[6] = {0x02, 0xaa, 0, 0, 0, 1};

	memset(p, 0, sizeof(*p));
	p->line = 1;
	p->stag = 100;
	p->ctag = (uint16_t)(1 + k % 4094);
	p->sid = (uint16_t)(1 + k);
	p->mac[0] = 0x02;
	p->mac[4] = (uint8_t)(k >> 8);
	p->mac[5] = (uint8_t)k;
	memcpy(p->ac_mac, ac, 6);
	p->tpid = 0x8100;
	if (wan) {
		ip6(wan, p->prefix6[p->n_prefix6]);
		p->prefix6_len[p->n_prefix6++] = 64;
	}
	if (pd) {
		ip6(pd, p->prefix6[p->n_prefix6]);
		p->prefix6_len[p->n_prefix6++] = 56;
	}
}

static uint32_t
down6(const struct session_tables *t, const char *addr)
{
	uint8_t a[16];
	uint64_t hi;
	uint32_t id;

	ip6(addr, a);
	hi = session6_hi64(a);
	session_lookup_down6_burst(t, &hi, 1, &id);
	return id;
}

static void
test_session6(void)
{
	static const uint8_t lens[] = {56, 64, 56};
	struct session_tables *t = session_tables_create("t6", 4096, 1, SOCKET_ID_ANY);
	struct dp_session_params p;
	uint32_t a, b, c, id;
	uint8_t src[16];

	CHECKF(t != NULL, "create");
	if (t == NULL)
		return;
	CHECKF(session_tables_set_v6(t, lens, 3, SOCKET_ID_ANY) == 0 && t->n_down6 == 2 &&
		       t->down6_len[0] == 64 && t->down6_len[1] == 56,
	       "two tables, longest first");
	CHECKF(session_tables_set_v6(t, lens, 3, SOCKET_ID_ANY) == -EEXIST, "set once");
	params6(1, &p, "2001:db8:100:1::", "2001:db8:200:100::");
	p.ipv4 = rte_cpu_to_be_32(0x64500001);
	CHECKF(session_add(t, &p, &a) == 0, "dual stack add");
	params6(2, &p, "2001:db8:100:2::", "2001:db8:200:200::");
	CHECKF(session_add(t, &p, &b) == 0, "ipv6-only add (no IPv4)");
	CHECKF(session_get(t, b)->ipv4 == 0 && session6_get(t, b)->n == 2, "ipv6-only slot");
	CHECKF(down6(t, "2001:db8:100:1::99") == a &&
		       down6(t, "2001:db8:100:1:ffff:ffff:ffff:ffff") == a,
	       "the /64");
	CHECKF(down6(t, "2001:db8:200:1ff::1") == a && down6(t, "2001:db8:200:100::") == a,
	       "the /56, any /64 of it");
	CHECKF(down6(t, "2001:db8:200:200::1") == b && down6(t, "2001:db8:100:2::7") == b,
	       "the other session");
	CHECKF(down6(t, "2001:db8:200:300::1") == SESSION_ID_NONE &&
		       down6(t, "2001:db8:100:3::1") == SESSION_ID_NONE,
	       "other prefixes miss");
	ip6("2001:db8:200:1ff:1::5", src);
	CHECKF(session6_src_ok(session6_get(t, a), session6_hi64(src)), "anti-spoof: in the /56");
	ip6("2001:db8:200:200::5", src);
	CHECKF(!session6_src_ok(session6_get(t, a), session6_hi64(src)),
	       "anti-spoof: another session's /56");
	/* duplicates and bad prefixes */
	params6(3, &p, "2001:db8:100:1::", NULL);
	CHECKF(session_add(t, &p, &c) == -EEXIST, "a /64 held by another session");
	params6(3, &p, "2001:db8:100:3::1", NULL);
	CHECKF(session_add(t, &p, &c) == -EINVAL, "host bits");
	params6(3, &p, "2001:db8:100:3::", NULL);
	p.prefix6_len[0] = 48;
	CHECKF(session_add(t, &p, &c) == -EINVAL, "a length without a table");
	params6(3, &p, NULL, NULL);
	CHECKF(session_add(t, &p, &c) == -EINVAL, "neither IPv4 nor IPv6");
	/* delete: the prefixes go, the other session stays */
	CHECKF(session_del(t, a) == 0, "del");
	CHECKF(down6(t, "2001:db8:100:1::99") == SESSION_ID_NONE &&
		       down6(t, "2001:db8:200:100::1") == SESSION_ID_NONE &&
		       down6(t, "2001:db8:200:200::1") == b,
	       "deleted prefixes miss, others hit");
	CHECKF(session_del(t, a) == -ENOENT, "del twice");
	params6(1, &p, "2001:db8:100:1::", "2001:db8:200:100::");
	CHECKF(session_add(t, &p, &c) == 0 && down6(t, "2001:db8:200:100::1") == c,
	       "the prefixes can be added again");
	/* many sessions in one bucket's worth: all found, after deletes too */
	{
		uint32_t ids[1000];
		int ok = 1;
		char w[64];

		for (uint32_t k = 0; k < 1000; k++) {
			snprintf(w, sizeof(w), "2001:db8:101:%x::", k);
			params6(100 + k, &p, w, NULL);
			ok &= session_add(t, &p, &ids[k]) == 0;
		}
		for (uint32_t k = 0; k < 1000; k += 2)
			ok &= session_del(t, ids[k]) == 0;
		for (uint32_t k = 0; k < 1000; k++) {
			snprintf(w, sizeof(w), "2001:db8:101:%x::1", k);
			id = down6(t, w);
			ok &= (k & 1) ? id == ids[k] : id == SESSION_ID_NONE;
		}
		CHECKF(ok, "1000 /64s, half deleted");
	}
	session_tables_free(t);
}

static const uint8_t CORE_MAC[6] = {0x02, 0xcc, 0, 0, 0, 1};
static const uint8_t ROUTER_MAC[6] = {0x02, 0xee, 0, 0, 0, 1};

static void
test_nd(void)
{
	uint8_t f[ND_FRAME_MAX], core6[16], router6[16], sn[16], mac[6];
	struct nd_msg m;
	size_t n;

	ip6("2001:db8:64::11", core6);
	ip6("2001:db8:64::1", router6);
	nd_solicited_node(router6, sn, mac);
	CHECKF(sn[0] == 0xff && sn[1] == 0x02 && sn[11] == 1 && sn[12] == 0xff && sn[15] == 1 &&
		       mac[0] == 0x33 && mac[1] == 0x33 && mac[2] == 0xff && mac[5] == 1,
	       "solicited-node address and MAC");
	n = nd_build_ns(f, sizeof(f), CORE_MAC, 0, core6, router6);
	CHECKF(n == 86 && memcmp(f, mac, 6) == 0 && f[12] == 0x86 && f[13] == 0xdd, "NS frame: %zu",
	       n);
	CHECKF(nd_parse(f + 14, n - 14, &m) == ND_OK && m.type == ND_TYPE_NS && m.has_lla &&
		       memcmp(m.lla, CORE_MAC, 6) == 0 && memcmp(m.target, router6, 16) == 0,
	       "NS parses back (checksum right)");
	n = nd_build_na(f, sizeof(f), ROUTER_MAC, CORE_MAC, 42, router6, core6,
			ND_NA_R | ND_NA_S | ND_NA_O);
	CHECKF(n == 90 && f[12] == 0x81 && f[15] == 42 && f[16] == 0x86, "NA frame, VLAN 42");
	CHECKF(nd_parse(f + 18, n - 18, &m) == ND_OK && m.type == ND_TYPE_NA && m.flags == 0xe0 &&
		       m.has_lla && memcmp(m.lla, CORE_MAC, 6) == 0,
	       "NA parses back");
	f[18 + 40 + 30] ^= 1; /* the option's MAC: the checksum breaks */
	CHECKF(nd_parse(f + 18, n - 18, &m) == ND_ERR_CSUM, "wrong checksum");
	f[18 + 40 + 30] ^= 1;
	f[18 + 7] = 64;
	CHECKF(nd_parse(f + 18, n - 18, &m) == ND_ERR_HEADER, "hop limit 64");
	f[18 + 7] = 255;
	f[18 + 40 + 25] = 0; /* option length 0 */
	CHECKF(nd_parse(f + 18, n - 18, &m) != ND_OK, "option length 0");
	CHECKF(nd_parse(f + 18, 50, &m) == ND_ERR_SHORT, "short");
}

static struct rte_mempool *pool;

static struct rte_mbuf *
mbuf_of(const uint8_t *b, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	memcpy(rte_pktmbuf_append(m, len), b, len);
	return m;
}

static void
test_icmp6(void)
{
	struct icmp_state st;
	struct icmp6_counters c = {0};
	uint8_t pkt[30 + 1500], core6[16];
	struct rte_mbuf *m;
	const uint8_t *e;

	ip6("2001:db8:64::11", core6);
	icmp_state_init(&st, 100, 2, 1000000, 1);
	memset(pkt, 0xab, sizeof(pkt));
	memset(pkt, 0x11, 30); /* an access header */
	pkt[30] = 0x60;
	pkt[30 + 1] = pkt[30 + 2] = pkt[30 + 3] = 0;
	pkt[30 + 4] = (1460 >> 8);
	pkt[30 + 5] = 1460 & 0xff;
	pkt[30 + 6] = 17;
	pkt[30 + 7] = 1;
	ip6("2001:db8:100:1::2", pkt + 30 + 8);
	ip6("2001:db8:ffff::7", pkt + 30 + 24);
	m = mbuf_of(pkt, sizeof(pkt));
	CHECKF(icmp6_error(&st, m, 30, 1500, ICMP6_TYPE_PTB, 1492, core6, 10, &c) == 0,
	       "PTB built");
	e = rte_pktmbuf_mtod_offset(m, const uint8_t *, 30);
	CHECKF(rte_pktmbuf_pkt_len(m) == 30 + 1280, "1280 bytes after the header: %u",
	       rte_pktmbuf_pkt_len(m));
	CHECKF(memcmp(rte_pktmbuf_mtod(m, const uint8_t *), pkt, 30) == 0, "header kept");
	CHECKF(e[0] == 0x60 && e[6] == 58 && e[7] == 64 && memcmp(e + 8, core6, 16) == 0 &&
		       memcmp(e + 24, pkt + 30 + 8, 16) == 0,
	       "IPv6 header: from the core address to the source");
	CHECKF(e[40] == 2 && e[44] == 0 && e[46] == (1492 >> 8) && e[47] == (1492 & 0xff),
	       "PTB with the MTU");
	CHECKF(memcmp(e + 48, pkt + 30, 1232) == 0, "the quote");
	CHECKF(ip6_l4_csum(e, e + 40, 1240, 58) == 0, "checksum verifies");
	rte_pktmbuf_free(m);
	/* an ICMPv6 error is never answered; a multicast destination neither */
	pkt[30 + 6] = 58;
	pkt[30 + 40] = 1;
	m = mbuf_of(pkt, sizeof(pkt));
	CHECKF(icmp6_error(&st, m, 30, 1500, ICMP6_TYPE_TIME_EXCEEDED, 0, core6, 20, &c) != 0 &&
		       c.not_allowed == 1 && rte_pktmbuf_pkt_len(m) == sizeof(pkt),
	       "no error about an error");
	rte_pktmbuf_free(m);
	pkt[30 + 6] = 17;
	m = mbuf_of(pkt, sizeof(pkt));
	CHECKF(icmp6_error(&st, m, 30, 1500, ICMP6_TYPE_TIME_EXCEEDED, 0, core6, 30, &c) == 0,
	       "second token");
	rte_pktmbuf_free(m);
	m = mbuf_of(pkt, sizeof(pkt));
	CHECKF(icmp6_error(&st, m, 30, 1500, ICMP6_TYPE_TIME_EXCEEDED, 0, core6, 31, &c) != 0 &&
		       c.rate_limited == 1,
	       "rate limited (burst 2)");
	rte_pktmbuf_free(m);
	m = mbuf_of(pkt, sizeof(pkt));
	CHECKF(icmp6_error(&st, m, 30, 1500, ICMP6_TYPE_TIME_EXCEEDED, 0, NULL, 100000, &c) != 0,
	       "no core IPv6 address: none");
	rte_pktmbuf_free(m);
}

static struct {
	unsigned int n;
	uint32_t ids[64];
	uint64_t at[64];
	uint64_t now;
	int fail;
} S;

static int
send_rec(void *arg, uint32_t id, const struct pfcp_ra_offload *ra)
{
	(void)arg;
	(void)ra;
	if (S.fail)
		return -1;
	if (S.n < 64) {
		S.ids[S.n] = id;
		S.at[S.n] = S.now;
	}
	S.n++;
	return 0;
}

static void
test_ra(void)
{
	struct pfcp_ra_offload ra = {.on = true,
				     .interval_s = 10,
				     .lifetime_s = 1800,
				     .flags = PFCP_RA_FLAG_O,
				     .mtu = 1492,
				     .valid_s = 86400,
				     .preferred_s = 14400,
				     .n_dns = 1};
	uint8_t hdr[30], f[RA_FRAME_MAX];
	struct ra_table *t = ra_create(70000, 100, 7);
	struct ra_counters c;
	size_t n;

	{
		uint8_t full[16];

		ip6("2001:db8:100:1::", full);
		memcpy(ra.prefix, full, 8); /* the upper 8 octets */
	}
	memcpy(ra.iid, "\x00\xbb\x00\xff\xfe\x00\x00\x01", 8);
	ip6("2001:db8::53", ra.dns[0]);
	memset(hdr, 0x22, sizeof(hdr));
	n = ra_build(f, sizeof(f), hdr, &ra);
	CHECKF(n == 30 + 40 + 16 + 32 + 8 + 24, "RA length %zu", n);
	CHECKF(f[28] == 0 && f[29] == 0x57 && ((f[26] << 8) | f[27]) == (int)(n - 30 + 2),
	       "PPP 0x0057, PPPoE length");
	CHECKF(f[30 + 7] == 255 && f[30 + 8] == 0xfe && f[30 + 9] == 0x80 && f[30 + 17] == 0xbb &&
		       f[30 + 24] == 0xff && f[30 + 39] == 1,
	       "fe80::IID to ff02::1, hop limit 255");
	CHECKF(f[70] == 134 && f[74] == 64 && f[75] == 0x40 && ((f[76] << 8) | f[77]) == 1800,
	       "RA header");
	CHECKF(f[86] == 3 && f[87] == 4 && f[88] == 64 && f[89] == 0xc0 && f[102] == 0x20 &&
		       f[109] == 1,
	       "prefix information");
	CHECKF(f[118] == 5 && f[119] == 1 && ((f[124] << 8) | f[125]) == 1492, "MTU option");
	CHECKF(f[126] == 25 && f[127] == 3 && f[149] == 0x53, "RDNSS");
	CHECKF(ip6_l4_csum(f + 30, f + 70, (uint32_t)(n - 70), 58) == 0, "checksum verifies");
	/* IPoE (dual stack over IPoE): QinQ + 0x86DD from the template, SLLA = the AC MAC first */
	{
		uint8_t h22[22], g[RA_FRAME_MAX];
		size_t k;

		memset(h22, 0x33, sizeof(h22));
		memcpy(h22 + 6, "\x02\xbb\x00\x00\x00\x01", 6);
		h22[20] = 0x08;
		h22[21] = 0x00;
		k = ra_build_ipoe(g, sizeof(g), h22, &ra);
		CHECKF(k == 22 + 40 + 16 + 8 + 32 + 8 + 24, "IPoE RA length %zu", k);
		CHECKF(memcmp(g, h22, 20) == 0 && g[20] == 0x86 && g[21] == 0xdd,
		       "IPoE RA: the template's MACs and tags, Ethertype 0x86DD");
		CHECKF(g[22 + 7] == 255 && g[22 + 8] == 0xfe && g[22 + 9] == 0x80 && g[62] == 134,
		       "IPoE RA: fe80::IID, hop limit 255, type 134");
		CHECKF(g[78] == 1 && g[79] == 1 && memcmp(g + 80, h22 + 6, 6) == 0,
		       "IPoE RA: Source Link-Layer Address option = the AC MAC");
		CHECKF(memcmp(g + 86, f + 86, 64) == 0, "IPoE RA: then the PPPoE RA's options");
		CHECKF(ip6_l4_csum(g + 22, g + 62, (uint32_t)(k - 62), 58) == 0,
		       "IPoE RA: checksum verifies");
		CHECKF(ra_build_ipoe(g, k - 1, h22, &ra) == 0, "IPoE RA: short buffer");
	}

	/* timing: 0, 4, 8 s, then every 10 s +-10% */
	S.now = 1000;
	ra_set(t, 5, &ra, S.now);
	for (S.now = 1000; S.now <= 1000 + 60000; S.now += 10)
		ra_tick(t, S.now, send_rec, NULL);
	CHECKF(S.n >= 7 && S.n <= 8, "RAs in 60 s: %u", S.n);
	CHECKF(S.at[0] <= 1060 && S.at[1] - S.at[0] >= 4000 && S.at[1] - S.at[0] <= 4060 &&
		       S.at[2] - S.at[1] >= 4000 && S.at[2] - S.at[1] <= 4060,
	       "initial RAs 4 s apart: %lu %lu %lu", (unsigned long)S.at[0], (unsigned long)S.at[1],
	       (unsigned long)S.at[2]);
	for (unsigned int i = 3; i < S.n && i < 64; i++)
		CHECKF(S.at[i] - S.at[i - 1] >= 9000 && S.at[i] - S.at[i - 1] <= 11060,
		       "periodic gap %u: %lu", i, (unsigned long)(S.at[i] - S.at[i - 1]));
	ra_set(t, 5, NULL, S.now);
	S.n = 0;
	for (; S.now <= 1000 + 90000; S.now += 10)
		ra_tick(t, S.now, send_rec, NULL);
	CHECKF(S.n == 0, "off: none");

	/* 65536 sessions switched on at once: at most max_sends per tick, all within 1 s */
	for (uint32_t id = 0; id < 65536; id++)
		ra_set(t, id, &ra, S.now);
	S.n = 0;
	{
		unsigned int most = 0, before;
		uint64_t start = S.now;

		for (; S.n < 65536 && S.now < start + 5000; S.now += 1) {
			before = S.n;
			ra_tick(t, S.now, send_rec, NULL);
			if (S.n - before > most)
				most = S.n - before;
		}
		CHECKF(S.n == 65536 && most <= 100,
		       "65536 first RAs, %u at most per tick, in %lu ms", most,
		       (unsigned long)(S.now - start));
	}
	ra_counters_get(t, &c);
	CHECKF(c.active == 65536 && c.deferred > 0, "counters: active %u", c.active);
	ra_free(t);
}

int
main(int argc, char **argv)
{
	if (harness_eal_init(argc > 0 ? argv[0] : "test_ipv6") != 0)
		return 1;
	pool = rte_pktmbuf_pool_create("t6", 64, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	test_session6();
	test_nd();
	test_icmp6();
	test_ra();
	rte_eal_cleanup();
	return harness_report();
}

/*
 * Tests of IPv4 fragmentation (frag.h), in both buffer layouts.
 *
 * usage: test_frag
 *
 * Each row builds an IPv4 packet (single or chained mbuf), fragments it and
 * checks every fragment as a receiver would: version, IHL, total length
 * against the mbuf, header checksum recomputed here, id/TOS/TTL/protocol/
 * addresses copied, DF clear, MF and offsets (multiples of 8, contiguous),
 * the size limit, the options (all in the first fragment, only the copied
 * ones later, EOL-padded), 30 bytes of headroom (and the prepend itself),
 * one segment in FRAG_COPY; then reassembles the payload by offset and
 * compares it with the original. Failures (DF, too many fragments, pool
 * exhaustion, invalid packets) must leave the input untouched and every
 * pool full again.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "frag.h"
#define HARNESS_EAL
#include "harness.h"

#define IN_ROOM 10000
#define IN_N 64
#define MAX_PKT 9100

static struct rte_mempool *in_pool;
static struct frag_pools *pools[2];
static const char *const mode_names[2] = {"copy", "chain"};

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

/* RFC 1071 checksum of n bytes (0 when a header with its checksum verifies). */
static unsigned int
csum(const uint8_t *p, size_t n)
{
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		s += get16(p + i);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return ~s & 0xffff;
}

/* Options of 20 bytes: record route (not copied), NOP, LSRR (copied), router alert (copied), EOL.
 */
static const uint8_t OPTS_MIXED[20] = {0x07, 7,	 4, 0, 0, 0,	0, 0x01, 0x83, 7,
				       4,    10, 0, 0, 1, 0x94, 4, 0,	 0,    0x00};
/* Copied options of the later fragments: LSRR, router alert, EOL padding. */
static const uint8_t OPTS_MIXED_LATER[12] = {0x83, 7, 4, 10, 0, 0, 1, 0x94, 4, 0, 0, 0x00};
/* 4 bytes: a timestamp-like option that is not copied (type 0x44 len 4). */
static const uint8_t OPTS_NOT_COPIED[4] = {0x44, 4, 5, 0};

struct pkt {
	unsigned int tot;
	uint16_t frag; /* flags + offset field */
	const uint8_t *opts;
	unsigned int optlen; /* multiple of 4 */
};

static void
build_ip(uint8_t *ip, const struct pkt *p)
{
	unsigned int ihl = 20 + p->optlen;

	for (unsigned int i = 0; i < p->tot; i++)
		ip[i] = (uint8_t)(i * 13 + (i >> 8) + 1);
	ip[0] = (uint8_t)(0x40 | ihl / 4);
	ip[1] = 0xb8;
	put16(ip + 2, p->tot);
	put16(ip + 4, 0x4242);
	put16(ip + 6, p->frag);
	ip[8] = 57;
	ip[9] = 17;
	memcpy(ip + 12, "\x08\x08\x08\x08\x64\x50\x00\x07", 8);
	if (p->optlen > 0)
		memcpy(ip + 20, p->opts, p->optlen);
	put16(ip + 10, 0);
	put16(ip + 10, csum(ip, ihl));
}

/* ip[0..len) in one mbuf, or split at the given cut points (0-terminated). */
static struct rte_mbuf *
mk(const uint8_t *ip, unsigned int len, const unsigned int *cuts)
{
	struct rte_mbuf *head = NULL;
	unsigned int from = 0;

	for (unsigned int k = 0;; k++) {
		unsigned int to = cuts != NULL && cuts[k] != 0 ? cuts[k] : len;
		struct rte_mbuf *m = rte_pktmbuf_alloc(in_pool);

		if (m == NULL)
			return head;
		memcpy(rte_pktmbuf_append(m, (uint16_t)(to - from)), ip + from, to - from);
		if (head == NULL)
			head = m;
		else
			rte_pktmbuf_chain(head, m);
		from = to;
		if (to == len)
			return head;
	}
}

/* The bytes of an mbuf chain, and whether its lengths are consistent. */
static bool
flatten(const struct rte_mbuf *m, uint8_t *out, unsigned int *len)
{
	unsigned int n = 0, segs = 0;

	for (const struct rte_mbuf *s = m; s != NULL; s = s->next, segs++) {
		memcpy(out + n, rte_pktmbuf_mtod(s, const uint8_t *), s->data_len);
		n += s->data_len;
	}
	*len = n;
	return n == m->pkt_len && segs == m->nb_segs;
}

static bool
pools_full(void)
{
	bool ok = rte_mempool_full(in_pool) == 1;

	for (int i = 0; i < 2; i++) {
		ok = ok && rte_mempool_full(pools[i]->direct) == 1;
		if (pools[i]->indirect != NULL)
			ok = ok && rte_mempool_full(pools[i]->indirect) == 1;
	}
	return ok;
}

/*
 * Check the k fragments of orig (tot bytes) for mtu in mode, free them.
 * expect_k: 0 = do not check the count.
 */
static void
check_fragments(const char *name, const uint8_t *orig, struct rte_mbuf **out, int k,
		unsigned int mtu, int mode, unsigned int expect_k)
{
	static uint8_t buf[MAX_PKT], payload[70000], seen[70000];
	unsigned int ihl0 = (orig[0] & 0x0f) * 4u, tot = get16(orig + 2);
	unsigned int off0 = (get16(orig + 6) & 0x1fff) * 8u, mf0 = get16(orig + 6) & 0x2000;
	unsigned int eff =
		mode == FRAG_COPY && mtu > pools[0]->max_frag_len ? pools[0]->max_frag_len : mtu;
	unsigned int step = (eff - ihl0) & ~7u, covered = 0;
	bool ok_hdr = true, ok_len = true, ok_ck = true, ok_flags = true, ok_room = true,
	     ok_opts = true, ok_segs = true, ok_step = true;
	char what[96];

	memset(seen, 0, sizeof(seen));
	if (expect_k != 0) {
		snprintf(what, sizeof(what), "%u fragments (got %d)", expect_k, k);
		check(k == (int)expect_k, name, what);
	}
	for (int i = 0; i < k; i++) {
		unsigned int len, ihl, ftot, fo, plen;
		bool last = i == k - 1;

		ok_len &= flatten(out[i], buf, &len);
		ihl = (buf[0] & 0x0f) * 4u;
		ftot = get16(buf + 2);
		fo = (get16(buf + 6) & 0x1fff) * 8u;
		plen = ftot - ihl;
		ok_hdr &= (buf[0] >> 4) == 4 && ihl >= 20 && out[i]->data_len >= ihl;
		ok_len &= ftot == len && ftot <= eff;
		ok_ck &= csum(buf, ihl) == 0;
		ok_hdr &= buf[1] == orig[1] && memcmp(buf + 4, orig + 4, 2) == 0 &&
			  buf[8] == orig[8] && buf[9] == orig[9] &&
			  memcmp(buf + 12, orig + 12, 8) == 0;
		ok_flags &= !(buf[6] & 0x40) && !(buf[6] & 0x80);
		ok_flags &=
			last ? (get16(buf + 6) & 0x2000) == mf0 : (get16(buf + 6) & 0x2000) != 0;
		ok_step &= last || plen == step;
		ok_step &= last || plen % 8 == 0;
		ok_room &= rte_pktmbuf_headroom(out[i]) == RTE_PKTMBUF_HEADROOM;
		ok_segs &= mode == FRAG_CHAIN || out[i]->nb_segs == 1;
		/* Options: the first fragment keeps all; later ones only the copied. */
		if (fo == off0 && (get16(orig + 6) & 0x1fff) == 0)
			ok_opts &= ihl == ihl0 && memcmp(buf + 20, orig + 20, ihl0 - 20) == 0;
		else if ((get16(orig + 6) & 0x1fff) != 0)
			ok_opts &= ihl == ihl0 && memcmp(buf + 20, orig + 20, ihl0 - 20) == 0;
		else if (ihl0 == 40)
			ok_opts &= ihl == 32 && memcmp(buf + 20, OPTS_MIXED_LATER, 12) == 0;
		else
			ok_opts &= ihl == 20;
		for (unsigned int b = 0; b < plen && fo + b < sizeof(payload); b++) {
			payload[fo + b - off0] = buf[ihl + b];
			seen[fo + b - off0]++;
		}
		covered += plen;
		ok_room &= rte_pktmbuf_prepend(out[i], FRAG_HEADROOM_NEEDED) != NULL;
		rte_pktmbuf_free(out[i]);
	}
	check(ok_hdr, name, "version, IHL, copied fields");
	check(ok_len, name, "total length = mbuf length <= MTU");
	check(ok_ck, name, "header checksums verify");
	check(ok_flags, name, "DF clear, MF on all but the last, last keeps the original MF");
	check(ok_step, name, "non-last payloads are the full 8-byte multiple");
	check(ok_room, name, "RTE_PKTMBUF_HEADROOM (128) of headroom, a 30-byte prepend works");
	check(ok_segs, name, "one segment in copy mode");
	check(ok_opts, name, "options per RFC 791");
	check(covered == tot - ihl0, name, "payload bytes add up");
	{
		bool once = true;

		for (unsigned int b = 0; b < tot - ihl0; b++)
			once &= seen[b] == 1;
		check(once, name, "every payload byte exactly once");
		check(memcmp(payload, orig + ihl0, tot - ihl0) == 0, name,
		      "reassembled payload equals the original");
	}
}

struct row {
	const char *name;
	struct pkt p;
	unsigned int mtu;
	unsigned int k; /* fragments expected (1 = fits) */
	unsigned int cuts[4];
};

static const struct row rows[] = {
	{"1491 mtu 1492", {1491, 0, NULL, 0}, 1492, 1, {0}},
	{"1492 mtu 1492", {1492, 0, NULL, 0}, 1492, 1, {0}},
	{"1493 mtu 1492", {1493, 0, NULL, 0}, 1492, 2, {0}},
	{"1500 mtu 1492", {1500, 0, NULL, 0}, 1492, 2, {0}},
	{"1500 mtu 1492 DF clear, MF base", {1500, 0, NULL, 0}, 1492, 2, {0}},
	{"2964 mtu 1492 (2 x 1472)", {2964, 0, NULL, 0}, 1492, 2, {0}},
	{"2965 mtu 1492", {2965, 0, NULL, 0}, 1492, 3, {0}},
	{"4000 mtu 1492", {4000, 0, NULL, 0}, 1492, 3, {0}},
	{"9000 mtu 1492", {9000, 0, NULL, 0}, 1492, 7, {0}},
	{"9000 mtu 576", {9000, 0, NULL, 0}, 576, 17, {0}},
	{"1500 mtu 1499 (odd MTU)", {1500, 0, NULL, 0}, 1499, 2, {0}},
	{"1500 mtu 68", {1500, 0, NULL, 0}, 68, 31, {0}},
	{"1500 options mixed mtu 1492", {1500, 0, OPTS_MIXED, 20}, 1492, 2, {0}},
	{"4000 options mixed mtu 1000", {4000, 0, OPTS_MIXED, 20}, 1000, 5, {0}},
	{"1500 option not copied mtu 1000", {1500, 0, OPTS_NOT_COPIED, 4}, 1000, 2, {0}},
	{"fragment of a fragment, MF", {3000, 0x2000 | 100, NULL, 0}, 1492, 3, {0}},
	{"last fragment re-fragmented", {3000, 100, NULL, 0}, 1492, 3, {0}},
	{"later fragment with options", {3000, 0x2000 | 50, OPTS_NOT_COPIED, 4}, 1492, 3, {0}},
	{"first fragment with options, MF", {3000, 0x2000, OPTS_MIXED, 20}, 1492, 3, {0}},
	{"chained input 3 segments", {4000, 0, NULL, 0}, 1492, 3, {700, 1900, 0}},
	{"chained input cut inside a fragment", {3000, 0, OPTS_MIXED, 20}, 1000, 4, {41, 999, 0}},
	{"9000 mtu 9000 fits", {9000, 0, NULL, 0}, 9000, 1, {0}},
	{"9000 mtu 8999", {9000, 0, NULL, 0}, 8999, 0, {0}},
};

static void
test_rows(void)
{
	static uint8_t ip[MAX_PKT];
	struct rte_mbuf *out[FRAG_MAX_FRAGMENTS];
	char name[160];

	unsigned int fits = 0;

	for (size_t r = 0; r < RTE_DIM(rows); r++)
		fits += rows[r].k == 1;
	for (int mode = 0; mode < 2; mode++) {
		struct frag_counters c = {0};

		for (size_t r = 0; r < RTE_DIM(rows); r++) {
			const struct row *row = &rows[r];
			struct rte_mbuf *m;
			unsigned int k = row->k;
			int n;

			snprintf(name, sizeof(name), "%s: %s", mode_names[mode], row->name);
			build_ip(ip, &row->p);
			m = mk(ip, row->p.tot, row->cuts[0] != 0 ? row->cuts : NULL);
			if (k == 0) /* 9000 at 8999: 2 chained, copy mode capped to 2048 */
				k = mode == FRAG_COPY ? 5 : 2;
			n = frag_ipv4(m, (uint16_t)row->mtu, out, FRAG_MAX_FRAGMENTS, pools[mode],
				      &c);
			if (row->k == 1) {
				check(n == 1 && out[0] == m, name, "fits: passed through");
				rte_pktmbuf_free(m);
				continue;
			}
			check(n > 1, name, "fragmented");
			if (n > 0)
				check_fragments(name, ip, out, n, row->mtu, mode, k);
			else
				rte_pktmbuf_free(m);
		}
		snprintf(name, sizeof(name), "%s counters", mode_names[mode]);
		check(c.result[FRAG_R_FITS] == fits &&
			      c.result[FRAG_R_FRAGMENTED] == RTE_DIM(rows) - fits,
		      name, "fits / fragmented");
	}
	check(pools_full(), "rows", "every mbuf back in its pool");
}

static void
test_refusals(void)
{
	static uint8_t ip[MAX_PKT], before[MAX_PKT];
	struct rte_mbuf *out[FRAG_MAX_FRAGMENTS];
	struct pkt p = {9000, 0, NULL, 0};
	struct frag_counters c = {0};
	struct rte_mbuf *m;
	unsigned int len;

	for (int mode = 0; mode < 2; mode++) {
		char name[64];

		snprintf(name, sizeof(name), "%s max", mode_names[mode]);
		p.tot = 9000;
		p.frag = 0;
		build_ip(ip, &p);
		m = mk(ip, 9000, NULL);
		check(frag_ipv4(m, 576, out, 16, pools[mode], &c) == -E2BIG, name,
		      "17 fragments with room for 16: -E2BIG");
		flatten(m, before, &len);
		check(len == 9000 && memcmp(before, ip, 9000) == 0, name, "input untouched");
		check(frag_ipv4(m, 576, out, 17, pools[mode], &c) == 17, name, "room for 17: ok");
		check_fragments(name, ip, out, 17, 576, mode, 17);

		snprintf(name, sizeof(name), "%s DF", mode_names[mode]);
		p.tot = 1500;
		p.frag = 0x4000;
		build_ip(ip, &p);
		m = mk(ip, 1500, NULL);
		check(frag_ipv4(m, 1492, out, 64, pools[mode], &c) == -EMSGSIZE, name, "-EMSGSIZE");
		flatten(m, before, &len);
		check(len == 1500 && memcmp(before, ip, 1500) == 0, name, "input untouched");
		check(frag_ipv4(m, 1500, out, 64, pools[mode], &c) == 1 && out[0] == m, name,
		      "DF that fits passes");
		rte_pktmbuf_free(m);
	}
	/* Invalid packets and arguments. */
	{
		static const struct {
			const char *what;
			int mangle;
			unsigned int mtu;
			uint16_t max;
		} bad[] = {
			{"version 6", 1, 1492, 64},   {"IHL 4", 2, 1492, 64},
			{"total < IHL", 3, 1492, 64}, {"total != packet", 4, 1492, 64},
			{"mtu 67", 0, 67, 64},	      {"max 0", 0, 1492, 0},
			{"19 bytes", 5, 1492, 64},
		};

		p.tot = 1500;
		p.frag = 0;
		for (size_t i = 0; i < RTE_DIM(bad); i++) {
			unsigned int n = 1500;

			build_ip(ip, &p);
			switch (bad[i].mangle) {
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
				put16(ip + 2, 1499);
				break;
			case 5:
				n = 19;
				break;
			}
			m = mk(ip, n, NULL);
			check(frag_ipv4(m, (uint16_t)bad[i].mtu, out, bad[i].max, pools[0], &c) ==
				      -EINVAL,
			      bad[i].what, "-EINVAL");
			flatten(m, before, &len);
			check(len == n && memcmp(before, ip, n) == 0, bad[i].what,
			      "input untouched");
			rte_pktmbuf_free(m);
		}
		/* IHL 60: an MTU of 68 leaves 8 bytes per fragment, still valid. */
		{
			static const uint8_t opts40[40] = {0x07, 39, 4};
			struct pkt p60 = {200, 0, opts40, 40};

			build_ip(ip, &p60);
			m = mk(ip, 200, NULL);
			{
				int n = frag_ipv4(m, 68, out, 64, pools[0], &c);

				check(n == 18, "ihl 60 mtu 68", "18 fragments of 8 bytes");
				if (n > 0)
					check_fragments("ihl 60 mtu 68", ip, out, n, 68, 0, 18);
				else
					rte_pktmbuf_free(m);
			}
		}
	}
	check(c.result[FRAG_R_TOO_MANY] == 2 && c.result[FRAG_R_DF] == 2 &&
		      c.result[FRAG_R_INVALID] == 7,
	      "refusals", "counted by reason");
	check(pools_full(), "refusals", "every mbuf back in its pool");
}

/* Pools of a few mbufs: -ENOMEM leaves the input untouched and the pools full. */
static void
test_exhaustion(void)
{
	static uint8_t ip[MAX_PKT], before[MAX_PKT];
	struct rte_mbuf *out[FRAG_MAX_FRAGMENTS];
	struct pkt p = {7000, 0, NULL, 0};
	struct frag_counters c = {0};
	struct frag_pools *sp;
	struct rte_mbuf *m;
	unsigned int len;
	int n;

	build_ip(ip, &p);
	for (int mode = 0; mode < 2; mode++) {
		char name[64];

		snprintf(name, sizeof(name), "%s exhaustion", mode_names[mode]);
		sp = frag_pools_create(SOCKET_ID_ANY, 4, (enum frag_mode)mode);
		check(sp != NULL, name, "pools of 4");
		if (sp == NULL)
			continue;
		m = mk(ip, 7000, NULL);
		n = frag_ipv4(m, 1492, out, 64, sp, &c);
		check(n == -ENOMEM, name, "5 fragments from 4 mbufs: -ENOMEM");
		flatten(m, before, &len);
		check(len == 7000 && memcmp(before, ip, 7000) == 0 && m->nb_segs == 1, name,
		      "input untouched");
		check(rte_mempool_full(sp->direct) == 1 &&
			      (sp->indirect == NULL || rte_mempool_full(sp->indirect) == 1),
		      name, "pools full again");
		rte_pktmbuf_free(m);
		/* 4 fragments fit exactly. */
		p.tot = 5500;
		build_ip(ip, &p);
		m = mk(ip, 5500, NULL);
		n = frag_ipv4(m, 1492, out, 64, sp, &c);
		check(n == 4, name, "4 fragments from 4 mbufs");
		if (n > 0)
			check_fragments(name, ip, out, n, 1492, mode, 4);
		else
			rte_pktmbuf_free(m);
		p.tot = 7000;
		build_ip(ip, &p);
		if (mode == FRAG_CHAIN) {
			/* Enough direct mbufs, not enough indirect: a 4-fragment packet
			 * split over 3 input segments needs 6 indirect mbufs. */
			const unsigned int cuts[] = {1000, 3000, 0};

			p.tot = 5500;
			build_ip(ip, &p);
			m = mk(ip, 5500, cuts);
			n = frag_ipv4(m, 1492, out, 64, sp, &c);
			check(n == -ENOMEM, name, "indirect pool exhausted: -ENOMEM");
			flatten(m, before, &len);
			check(len == 5500 && memcmp(before, ip, 5500) == 0 && m->nb_segs == 3, name,
			      "chained input untouched");
			rte_pktmbuf_free(m);
			p.tot = 7000;
			build_ip(ip, &p);
		}
		check(rte_mempool_full(sp->direct) == 1 &&
			      (sp->indirect == NULL || rte_mempool_full(sp->indirect) == 1),
		      name, "pools full at the end");
		frag_pools_free(sp);
	}
	check(c.result[FRAG_R_NO_MBUF] == 3, "exhaustion", "no_mbuf counted");
	check(frag_pools_create(SOCKET_ID_ANY, 8, (enum frag_mode)7) == NULL, "pools",
	      "unknown mode refused");
	frag_pools_free(NULL);
}

int
main(int argc, char **argv)
{
	if (harness_eal_init(argc > 0 ? argv[0] : "test_frag") != 0)
		return 1;
	in_pool = rte_pktmbuf_pool_create("frag_in", IN_N, 0, 0, RTE_PKTMBUF_HEADROOM + IN_ROOM,
					  SOCKET_ID_ANY);
	pools[FRAG_COPY] = frag_pools_create(SOCKET_ID_ANY, 256, FRAG_COPY);
	pools[FRAG_CHAIN] = frag_pools_create(SOCKET_ID_ANY, 256, FRAG_CHAIN);
	if (in_pool == NULL || pools[0] == NULL || pools[1] == NULL) {
		printf("FAIL pools\n0 passed, 1 failed\n");
		rte_eal_cleanup();
		return 1;
	}
	check(pools[FRAG_COPY]->max_frag_len == 2048 && pools[FRAG_COPY]->indirect == NULL, "pools",
	      "copy mode: 2048-byte fragments, no indirect pool");
	check(pools[FRAG_CHAIN]->indirect != NULL, "pools", "chain mode: indirect pool");
	test_rows();
	test_refusals();
	test_exhaustion();
	frag_pools_free(pools[0]);
	frag_pools_free(pools[1]);
	rte_mempool_free(in_pool);
	rte_eal_cleanup();
	return harness_report();
}

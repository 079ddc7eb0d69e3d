/*
 * Benchmark of the header rewrite stage (rewrite.h).
 *
 * usage: bench_rewrite ITERATIONS [--no-tsc]
 *
 * Two sets of 4096 mbufs, each in its own 2 KiB buffer behind a plain struct
 * rte_mbuf (no EAL, no mempool; rewrite.h needs neither):
 *   up    128-byte access frames, PPPoE session IPv4 on random (S, C, sid),
 *         90% UDP, 10% TCP SYN with MSS 1460; per frame rw_decap_pppoe() to
 *         an untagged core header, rw_ipv4_ttl_dec(), rw_tcp_mss_clamp(1452);
 *   down  98-byte IPv4 packets (the core header already stripped); per packet
 *         rw_encap_pppoe() with one of 4096 session templates (half 0x8100,
 *         half 0x88a8) and a random traffic class.
 * Each pass runs over the 4096 mbufs in bursts of 32. Between passes the
 * mbufs are restored (frames copied back, offsets reset) outside the measured
 * functions. The seed is fixed. With ITERATIONS = 0 only the set-up runs.
 *
 * Prints one JSON line: packets per direction, MSS clamps, expired TTLs and,
 * unless --no-tsc (under valgrind), TSC ticks per packet of each direction,
 * measured around each burst call (rdtsc overhead included, ~1 tick/packet).
 * bench_up() and bench_down() are not inlined so that callgrind's
 * --toggle-collect measures exactly the stage (bench/callgrind_rewrite.sh).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_prefetch.h>

#include "bench_common.h"
#include "rewrite.h"

#define N_PKTS 4096
#define BURST 32
#define BUF_SIZE 2048
#define HEADROOM 128
#define FRAME_LEN 128
#define MSS_MAX 1452
#define PREFETCH_AHEAD 4

/* Valid IPv4 (+ TCP SYN with MSS 1460 when syn) of tot bytes, checksums not
 * needed for the cost: the updates are incremental either way. */
static void
put_ipv4(uint8_t *p, unsigned int tot, int syn)
{
	put_ipv4_hdr(p, tot, syn ? RW_IPPROTO_TCP : 17);
	put16(p + 10, 0x1234);
	if (syn) {
		p[32] = 6 << 4; /* data offset 24 */
		p[33] = RW_TCP_SYN;
		p[40] = RW_TCPOPT_MSS;
		p[41] = 4;
		put16(p + 42, 1460);
	}
}

static void
mbuf_init(struct rte_mbuf *m, uint8_t *buf)
{
	memset(m, 0, sizeof(*m));
	m->buf_addr = buf;
	m->buf_len = BUF_SIZE;
	m->nb_segs = 1;
	m->refcnt = 1;
}

static void
mbuf_set(struct rte_mbuf *m, uint16_t off, uint16_t len)
{
	m->data_off = off;
	m->data_len = len;
	m->pkt_len = len;
}

struct up_stats {
	uint64_t expired, clamped, errors;
};

__attribute__((noinline)) static void
bench_up(struct rte_mbuf **pkts, const struct cls_result *res, const struct rw_core_tmpl *ct,
	 struct up_stats *st)
{
	uint16_t i;

	for (i = 0; i < PREFETCH_AHEAD; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], const void *));
	for (i = 0; i < BURST; i++) {
		struct rte_mbuf *m = pkts[i];
		uint8_t *ip;

		if (i + PREFETCH_AHEAD < BURST)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + PREFETCH_AHEAD], const void *));
		if (rw_decap_pppoe(m, &res[i], ct) != 0) {
			st->errors++;
			continue;
		}
		ip = rte_pktmbuf_mtod_offset(m, uint8_t *, ct->len);
		if (rw_ipv4_ttl_dec(ip)) {
			st->expired++;
			continue;
		}
		st->clamped +=
			(uint64_t)rw_tcp_mss_clamp(ip, rte_pktmbuf_data_len(m) - ct->len, MSS_MAX);
	}
}

__attribute__((noinline)) static uint64_t
bench_down(struct rte_mbuf **pkts, const struct rw_encap_tmpl *const *tmpl, const uint8_t *tc,
	   const struct rw_pcp_map *pcp)
{
	uint64_t errors = 0;
	uint16_t i;

	for (i = 0; i < PREFETCH_AHEAD; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], const void *));
	for (i = 0; i < BURST; i++) {
		if (i + PREFETCH_AHEAD < BURST)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + PREFETCH_AHEAD], const void *));
		errors += rw_encap_pppoe(pkts[i], tmpl[i], pcp, tc[i]) != 0;
	}
	return errors;
}

int
main(int argc, char **argv)
{
	static const uint8_t nh[6] = {0x02, 0xbb, 0, 0, 0, 0xfe},
			     core[6] = {0x02, 0xcc, 0, 0, 0, 1};
	static const uint8_t ac[6] = {0x02, 0xaa, 0, 0, 0, 1};
	static const struct rw_pcp_map pcp = {{0, 1, 2, 3, 4, 5, 6, 7, 1, 1, 1, 1, 7, 0, 0, 0}};
	struct rte_mbuf *up = calloc(N_PKTS, sizeof(*up)), *down = calloc(N_PKTS, sizeof(*down));
	struct rte_mbuf **up_p = calloc(N_PKTS, sizeof(*up_p)),
			**down_p = calloc(N_PKTS, sizeof(*down_p));
	uint8_t *data = aligned_alloc(64, (size_t)2 * N_PKTS * BUF_SIZE);
	uint8_t *orig = malloc((size_t)N_PKTS * FRAME_LEN);
	struct rw_encap_tmpl *tmpls = calloc(N_PKTS, sizeof(*tmpls));
	const struct rw_encap_tmpl **tp = calloc(N_PKTS, sizeof(*tp));
	struct cls_result *res = calloc(N_PKTS, sizeof(*res));
	uint8_t *tc = malloc(N_PKTS);
	struct up_stats st = {0};
	uint64_t t_up = 0, t_down = 0, t0, down_err = 0, n;
	struct rw_core_tmpl ct;
	unsigned long iters, it;
	int i, j, no_tsc;

	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "--no-tsc") != 0)) {
		fprintf(stderr, "usage: %s ITERATIONS [--no-tsc]\n", argv[0]);
		return 2;
	}
	if (!up || !down || !up_p || !down_p || !data || !orig || !tmpls || !tp || !res || !tc) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	no_tsc = argc == 3;
	iters = strtoul(argv[1], NULL, 10);
	rw_core_tmpl_init(&ct, nh, core, 0);
	for (i = 0; i < N_PKTS; i++) {
		uint8_t *f = orig + (size_t)i * FRAME_LEN, sub[6] = {0x02, 0x11, 0, 0, 0, 0};
		unsigned int s = 1 + rnd(4094), c = 1 + rnd(4094), sid = 1 + rnd(0xfffe);

		memset(f, 0, FRAME_LEN);
		memcpy(f, ac, 6);
		sub[4] = (uint8_t)(i >> 8);
		sub[5] = (uint8_t)i;
		memcpy(f + 6, sub, 6);
		put16(f + 12, i & 1 ? CLS_ETH_QINQ : CLS_ETH_VLAN);
		put16(f + 14, s);
		put16(f + 16, CLS_ETH_VLAN);
		put16(f + 18, c);
		put16(f + 20, CLS_ETH_PPPOE_SESS);
		f[22] = 0x11;
		put16(f + 24, sid);
		put16(f + 26, FRAME_LEN - 28);
		put16(f + 28, CLS_PPP_IPV4);
		put_ipv4(f + 30, FRAME_LEN - 30, rnd(10) == 0);
		res[i].kind = CLS_PPPOE_SESS_IPV4;
		res[i].l3_off = 30;
		res[i].l3_len = FRAME_LEN - 30;
		res[i].stag = (uint16_t)s;
		res[i].ctag = (uint16_t)c;
		res[i].sid = (uint16_t)sid;
		rw_encap_tmpl_init(&tmpls[i], sub, ac, i & 1 ? CLS_ETH_QINQ : CLS_ETH_VLAN,
				   (uint16_t)s, (uint16_t)c, (uint16_t)sid);
		tc[i] = (uint8_t)rnd(13);
		mbuf_init(&up[i], data + (size_t)i * BUF_SIZE);
		mbuf_init(&down[i], data + (size_t)(N_PKTS + i) * BUF_SIZE);
		up_p[i] = &up[i];
		down_p[i] = &down[i];
	}
	/* Downstream packets use random sessions, not their own index. */
	for (i = 0; i < N_PKTS; i++)
		tp[i] = &tmpls[rnd(N_PKTS)];
	for (it = 0; it < iters; it++) {
		for (i = 0; i < N_PKTS; i++) {
			mbuf_set(&up[i], HEADROOM, FRAME_LEN);
			memcpy((uint8_t *)up[i].buf_addr + HEADROOM, orig + (size_t)i * FRAME_LEN,
			       FRAME_LEN);
			mbuf_set(&down[i], HEADROOM + 30, FRAME_LEN - 30);
			if (it == 0)
				memcpy((uint8_t *)down[i].buf_addr + HEADROOM + 30,
				       orig + (size_t)i * FRAME_LEN + 30, FRAME_LEN - 30);
		}
		for (j = 0; j < N_PKTS; j += BURST) {
			t0 = no_tsc ? 0 : rte_rdtsc();
			bench_up(&up_p[j], &res[j], &ct, &st);
			if (!no_tsc)
				t_up += rte_rdtsc() - t0;
		}
		for (j = 0; j < N_PKTS; j += BURST) {
			t0 = no_tsc ? 0 : rte_rdtsc();
			down_err += bench_down(&down_p[j], &tp[j], &tc[j], &pcp);
			if (!no_tsc)
				t_down += rte_rdtsc() - t0;
		}
	}
	n = (uint64_t)iters * N_PKTS;
	printf("{\"bench\":\"rewrite\",\"iterations\":%lu,\"up_packets\":%llu,\"down_packets\":%"
	       "llu,"
	       "\"mss_clamped\":%llu,\"ttl_expired\":%llu,\"errors\":%llu",
	       iters, (unsigned long long)n, (unsigned long long)n, (unsigned long long)st.clamped,
	       (unsigned long long)st.expired, (unsigned long long)(st.errors + down_err));
	if (!no_tsc && n > 0)
		printf(",\"up_tsc_per_packet\":%.2f,\"down_tsc_per_packet\":%.2f",
		       (double)t_up / (double)n, (double)t_down / (double)n);
	printf("}\n");
	free(up);
	free(down);
	free(up_p);
	free(down_p);
	free(data);
	free(orig);
	free(tmpls);
	free(tp);
	free(res);
	free(tc);
	return st.errors + down_err != 0;
}

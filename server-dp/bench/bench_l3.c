/*
 * Benchmark of the worker's L3 helpers: ICMP errors (icmp.h) and neighbour
 * lookups (neigh.h).
 *
 * usage: bench_l3 ITERATIONS [--no-tsc]
 *
 * ICMP: two sets of 1024 mbufs (plain struct rte_mbuf with 2 KiB buffers
 * and 128 bytes of headroom; icmp_error() needs no mempool), each turned
 * into an error in bursts of 32 and restored between passes outside the
 * measured functions:
 *   te  128-byte upstream frames (30-byte QinQ + PPPoE header, 98-byte UDP
 *       packet with TTL 1): ICMP time exceeded, 98-byte quote;
 *   fn  1500-byte downstream IPv4 packets with DF (no L2): ICMP frag-needed
 *       with MTU 1492, 548-byte quote (checksummed: most of the cost).
 * The token bucket is set wide open so every call builds a message; a third
 * pass (busy) offers the te frames to an empty bucket: the cost of a refused
 * packet during a flood.
 * Neighbours: a table of the lab core subnet (100.64.0.0/24) with the router
 * and 200 hosts learnt from ARP requests; 4096 lookups per pass of random
 * learnt addresses, in bursts of 32, with neigh_lookup() (read only) and
 * neigh_resolve() (the worker's call: also checks the want flag).
 *
 * Prints one JSON line: calls per function and, unless --no-tsc (under
 * valgrind), TSC ticks per call read around each burst. bench_te(),
 * bench_fn(), bench_busy(), bench_lookup() and bench_resolve() are not inlined so that
 * callgrind's --toggle-collect measures exactly them (bench/callgrind_l3.sh).
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include "bench_common.h"
#include "icmp.h"
#include "neigh.h"

#define N_PKTS 1024
#define N_LOOKUPS 4096
#define BURST 32
#define BUF_SIZE 2048
#define HEADROOM 128
#define N_HOSTS 200
#define SRC_BE RTE_BE32(0x6440000e) /* 100.64.0.14 */

static struct rte_mbuf te_m[N_PKTS], fn_m[N_PKTS];
static uint8_t te_buf[N_PKTS][BUF_SIZE], fn_buf[N_PKTS][BUF_SIZE];
static uint8_t te_orig[N_PKTS][128], fn_orig[N_PKTS][1500];
static struct icmp_state st, st_empty;
static struct icmp_counters cnt;

static void
mbuf_set(struct rte_mbuf *m, uint8_t *buf, const uint8_t *frame, uint16_t len)
{
	memset(m, 0, sizeof(*m));
	m->buf_addr = buf;
	m->buf_len = BUF_SIZE;
	m->nb_segs = 1;
	m->refcnt = 1;
	m->data_off = HEADROOM;
	m->data_len = len;
	m->pkt_len = len;
	memcpy(buf + HEADROOM, frame, len);
}

static void
restore(void)
{
	for (int i = 0; i < N_PKTS; i++) {
		mbuf_set(&te_m[i], te_buf[i], te_orig[i], 128);
		mbuf_set(&fn_m[i], fn_buf[i], fn_orig[i], 1500);
	}
}

static void
build(void)
{
	for (int i = 0; i < N_PKTS; i++) {
		uint8_t *f = te_orig[i];

		memset(f, 0, 30);
		f[12] = 0x88;
		f[13] = 0xa8;
		f[20] = 0x88;
		f[21] = 0x64;
		put_ipv4_hdr(f + 30, 98, 17);
		f[30 + 8] = 1; /* TTL 1 */
		put_ipv4_hdr(fn_orig[i], 1500, 6);
		memcpy(fn_orig[i] + 12, "\x08\x08\x08\x08", 4); /* from the Internet */
		fn_orig[i][6] = 0x40;				/* DF */
		for (int k = 20; k < 1500; k++)
			fn_orig[i][k] = (uint8_t)rnd(256);
	}
}

__attribute__((noinline)) static int
bench_te(struct rte_mbuf *m, uint64_t now)
{
	int ok = 0;

	for (int i = 0; i < BURST; i++)
		ok += icmp_error(&st, &m[i], 30, ICMP_TIME_EXCEEDED, 0, SRC_BE, now, &cnt) == 0;
	return ok;
}

__attribute__((noinline)) static int
bench_fn(struct rte_mbuf *m, uint64_t now)
{
	int ok = 0;

	for (int i = 0; i < BURST; i++)
		ok += icmp_error(&st, &m[i], 0, ICMP_FRAG_NEEDED, 1492, SRC_BE, now, &cnt) == 0;
	return ok;
}

/* The flood case: the bucket is empty, every call is refused (-EBUSY). */
__attribute__((noinline)) static int
bench_busy(struct rte_mbuf *m, uint64_t now)
{
	int busy = 0;

	for (int i = 0; i < BURST; i++)
		busy += icmp_error(&st_empty, &m[i], 30, ICMP_TIME_EXCEEDED, 0, SRC_BE, now,
				   &cnt) == -EBUSY;
	return busy;
}

__attribute__((noinline)) static int
bench_lookup(const struct neigh_table *t, const uint32_t *ip)
{
	int hits = 0;

	for (int i = 0; i < BURST; i++)
		hits += neigh_lookup(t, ip[i]) != 0;
	return hits;
}

__attribute__((noinline)) static int
bench_resolve(struct neigh_table *t, const uint32_t *ip)
{
	int hits = 0;

	for (int i = 0; i < BURST; i++)
		hits += neigh_resolve(t, ip[i]) != 0;
	return hits;
}

static struct neigh_table *
neigh_setup(struct dp_config *cfg)
{
	static const uint8_t core_mac[6] = {0x02, 0xcc, 0, 0, 0, 0x04};
	uint8_t f[60], reply[NEIGH_FRAME_LEN];
	struct cls_result r = {.kind = CLS_CORE_ARP, .l3_off = 14, .l3_len = 28};
	struct neigh_table *t;
	uint16_t rlen;

	memset(cfg, 0, sizeof(*cfg));
	cfg->core.subnet.addr = 0x64400000; /* 100.64.0.0/24 */
	cfg->core.subnet.len = 24;
	cfg->core.router_address = 0x64400001;
	cfg->n_line_groups = 1;
	cfg->line_groups[0].core_address = 0x6440000e;
	memcpy(cfg->line_groups[0].core_mac, core_mac, 6);
	t = neigh_create(cfg, SOCKET_ID_ANY);
	if (t == NULL)
		return NULL;
	/* The router and hosts .20 .. .219 ask for our address. */
	for (uint32_t h = 0; h <= N_HOSTS; h++) {
		uint32_t ip = h == 0 ? 0x64400001 : 0x64400000 + 19 + h;

		memset(f, 0, sizeof(f));
		memset(f, 0xff, 6);
		f[6] = 0x02;
		f[11] = (uint8_t)h;
		put16(f + 12, 0x0806);
		put16(f + 14, 1);
		put16(f + 16, 0x0800);
		f[18] = 6;
		f[19] = 4;
		put16(f + 20, 1);
		memcpy(f + 22, f + 6, 6);
		put16(f + 28, ip >> 16);
		put16(f + 30, ip & 0xffff);
		put16(f + 38, 0x6440);
		put16(f + 40, 0x000e);
		if (neigh_arp_input(t, f, 60, &r, 1, reply, &rlen) != NEIGH_ARP_REPLY)
			return NULL;
	}
	return t;
}

int
main(int argc, char **argv)
{
	char *eal_argv[] = {argv[0],	   "--no-huge",		"-m", "128", "--no-pci",
			    "--no-shconf", "--log-level=error", NULL};
	static struct dp_config cfg;
	static uint32_t ips[N_LOOKUPS];
	uint64_t t_te = 0, t_fn = 0, t_bz = 0, t_lk = 0, t_rs = 0, t0, now = 1ull << 40;
	uint64_t n_icmp, n_nb, ok_te = 0, ok_fn = 0, busy = 0, hits_lk = 0, hits_rs = 0;
	struct neigh_table *t;
	unsigned long iters, it;
	int no_tsc;

	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "--no-tsc") != 0)) {
		fprintf(stderr, "usage: %s ITERATIONS [--no-tsc]\n", argv[0]);
		return 2;
	}
	no_tsc = argc == 3;
	iters = strtoul(argv[1], NULL, 10);
	if (rte_eal_init(7, eal_argv) < 0) {
		fprintf(stderr, "EAL init: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	icmp_state_init(&st, 1000000000u, 1000000000u, 1000, 1);
	icmp_state_init(&st_empty, 0, 1, 1000, 1);
	build();
	t = neigh_setup(&cfg);
	if (t == NULL) {
		fprintf(stderr, "neighbour set-up failed\n");
		return 1;
	}
	for (int i = 0; i < N_LOOKUPS; i++)
		ips[i] = 0x64400000 + 20 + rnd(N_HOSTS);
	for (it = 0; it < iters; it++) {
		restore();
		for (int i = 0; i < N_PKTS; i += BURST) {
			t0 = no_tsc ? 0 : rte_rdtsc();
			busy += (uint64_t)bench_busy(&te_m[i], now++);
			if (!no_tsc)
				t_bz += rte_rdtsc() - t0;
		}
		for (int i = 0; i < N_PKTS; i += BURST) {
			t0 = no_tsc ? 0 : rte_rdtsc();
			ok_te += (uint64_t)bench_te(&te_m[i], now++);
			if (!no_tsc)
				t_te += rte_rdtsc() - t0;
		}
		for (int i = 0; i < N_PKTS; i += BURST) {
			t0 = no_tsc ? 0 : rte_rdtsc();
			ok_fn += (uint64_t)bench_fn(&fn_m[i], now++);
			if (!no_tsc)
				t_fn += rte_rdtsc() - t0;
		}
		for (int i = 0; i < N_LOOKUPS; i += BURST) {
			t0 = no_tsc ? 0 : rte_rdtsc();
			hits_lk += (uint64_t)bench_lookup(t, &ips[i]);
			if (!no_tsc)
				t_lk += rte_rdtsc() - t0;
		}
		for (int i = 0; i < N_LOOKUPS; i += BURST) {
			t0 = no_tsc ? 0 : rte_rdtsc();
			hits_rs += (uint64_t)bench_resolve(t, &ips[i]);
			if (!no_tsc)
				t_rs += rte_rdtsc() - t0;
		}
	}
	n_icmp = (uint64_t)iters * N_PKTS;
	n_nb = (uint64_t)iters * N_LOOKUPS;
	printf("{\"te_calls\":%" PRIu64 ",\"fn_calls\":%" PRIu64 ",\"busy_calls\":%" PRIu64
	       ",\"lookups\":%" PRIu64 ",\"resolves\":%" PRIu64 ",\"icmp_failed\":%" PRIu64
	       ",\"misses\":%" PRIu64,
	       n_icmp, n_icmp, n_icmp, n_nb, n_nb, 3 * n_icmp - ok_te - ok_fn - busy,
	       2 * n_nb - hits_lk - hits_rs);
	if (!no_tsc && iters > 0)
		printf(",\"te_tsc_per_call\":%.2f,\"fn_tsc_per_call\":%.2f,"
		       "\"busy_tsc_per_call\":%.2f,\"lookup_tsc\":%.2f,\"resolve_tsc\":%.2f",
		       (double)t_te / (double)n_icmp, (double)t_fn / (double)n_icmp,
		       (double)t_bz / (double)n_icmp, (double)t_lk / (double)n_nb,
		       (double)t_rs / (double)n_nb);
	printf("}\n");
	neigh_free(t);
	rte_eal_cleanup();
	return 0;
}

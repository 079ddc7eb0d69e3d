/*
 * Benchmark of classify_burst() on a fixed frame mix.
 *
 * usage: bench_classify FIXTURE ITERATIONS [--no-tsc]
 *
 * 4096 frames are built once, each in its own 2 KiB buffer behind a plain
 * struct rte_mbuf (no EAL, no mempool): 85% upstream PPPoE session IPv4
 * frames of 128 bytes on random (S, C) of the fixture's lines, 5% PADI
 * (60 bytes, broadcast), 10% core IPv4 frames of 128 bytes to a core MAC.
 * The seed is fixed, so every run classifies the same frames. They are
 * classified in bursts of 32, ITERATIONS times over. With ITERATIONS = 0
 * only the set-up runs (the baseline for callgrind).
 *
 * Prints one JSON line: frames classified, frames kept, the kind counts and,
 * unless --no-tsc (used under valgrind, where time means nothing), TSC ticks
 * per frame. bench_burst() is not inlined so that callgrind's
 * --toggle-collect=bench_burst measures exactly the classifier.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "bench_common.h"
#include "classify.h"

#define N_FRAMES 4096
#define BURST 32
#define BUF_SIZE 2048
#define HEADROOM 128

static uint16_t
build(const struct dp_config *cfg, uint8_t *f)
{
	uint32_t pick = rnd(100);
	const struct dp_line *l;
	unsigned int s, c, off;

	memset(f, 0, 128);
	memcpy(f + 6, "\x02\x00\x00\xaa\xbb\xcc", 6);
	if (pick >= 90 || cfg->n_lines == 0) {
		/* Core IPv4, 128 bytes. */
		memcpy(f, cfg->line_groups[rnd(cfg->n_line_groups)].core_mac, 6);
		off = 12;
		if (cfg->core.vlan) {
			put16(f + 12, CLS_ETH_VLAN);
			put16(f + 14, cfg->core.vlan);
			off = 16;
		}
		put16(f + off, CLS_ETH_IPV4);
		put_ipv4_hdr(f + off + 2, 128 - off - 2, 17);
		return 128;
	}
	l = &cfg->lines[rnd(cfg->n_lines)];
	s = l->stag.lo + rnd(l->stag.hi - l->stag.lo + 1u);
	c = l->ctag.lo + rnd(l->ctag.hi - l->ctag.lo + 1u);
	put16(f + 12, cfg->access_ports[l->access_port].tpid);
	put16(f + 14, s);
	put16(f + 16, CLS_ETH_VLAN);
	put16(f + 18, c);
	f[22] = 0x11;
	if (pick >= 85) {
		/* PADI with a service-name tag, padded to 60 bytes. */
		memset(f, 0xff, 6);
		put16(f + 20, CLS_ETH_PPPOE_DISC);
		f[23] = CLS_PADI;
		put16(f + 26, 4);
		put16(f + 28, 0x0101);
		return 60;
	}
	memcpy(f, cfg->line_groups[l->group].ac_mac, 6);
	put16(f + 20, CLS_ETH_PPPOE_SESS);
	put16(f + 24, 1 + rnd(0xfffe));
	put16(f + 26, 128 - 28);
	put16(f + 28, CLS_PPP_IPV4);
	put_ipv4_hdr(f + 30, 128 - 30, 17);
	return 128;
}

__attribute__((noinline)) static uint16_t
bench_burst(const struct line_map *m, struct rte_mbuf **pkts, struct cls_result *res,
	    struct cls_counters *c)
{
	return classify_burst(m, pkts, BURST, res, c);
}

int
main(int argc, char **argv)
{
	static struct cls_result res[BURST];
	struct dp_config *cfg = calloc(1, sizeof(*cfg));
	struct line_map *m = calloc(1, sizeof(*m));
	struct rte_mbuf *mbufs = calloc(N_FRAMES, sizeof(*mbufs));
	struct rte_mbuf **pkts = calloc(N_FRAMES, sizeof(*pkts));
	uint8_t *data = aligned_alloc(64, (size_t)N_FRAMES * BUF_SIZE);
	struct cls_counters cnt = {0};
	uint64_t kept = 0, t0, t1, frames;
	unsigned long iters;
	char err[256];
	int i, no_tsc;

	if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "--no-tsc") != 0)) {
		fprintf(stderr, "usage: %s FIXTURE ITERATIONS [--no-tsc]\n", argv[0]);
		return 2;
	}
	no_tsc = argc == 4;
	iters = strtoul(argv[2], NULL, 10);
	if (dp_config_load(argv[1], cfg, err, sizeof(err)) != 0 ||
	    line_map_build(m, cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s: %s\n", argv[1], err);
		return 1;
	}
	for (i = 0; i < N_FRAMES; i++) {
		mbufs[i].buf_addr = data + (size_t)i * BUF_SIZE;
		mbufs[i].data_off = HEADROOM;
		mbufs[i].nb_segs = 1;
		mbufs[i].data_len = build(cfg, data + (size_t)i * BUF_SIZE + HEADROOM);
		mbufs[i].pkt_len = mbufs[i].data_len;
		pkts[i] = &mbufs[i];
	}

	t0 = rte_rdtsc();
	for (unsigned long k = 0; k < iters; k++)
		for (i = 0; i < N_FRAMES; i += BURST)
			kept += bench_burst(m, pkts + i, res, &cnt);
	t1 = rte_rdtsc();

	frames = (uint64_t)iters * N_FRAMES;
	printf("{\"bench\":\"classify\",\"fixture\":\"%s\",\"frames\":%llu,\"iterations\":%lu,"
	       "\"burst\":%d,\"kept\":%llu",
	       argv[1], (unsigned long long)frames, iters, BURST, (unsigned long long)kept);
	for (i = 0; i < CLS_KIND_MAX; i++)
		printf(",\"%s\":%llu", cls_kind_names[i], (unsigned long long)cnt.kind[i]);
	if (!no_tsc && frames > 0)
		printf(",\"tsc_per_frame\":%.2f", (double)(t1 - t0) / (double)frames);
	printf("}\n");
	free(data);
	free(pkts);
	free(mbufs);
	free(m);
	free(cfg);
	return 0;
}

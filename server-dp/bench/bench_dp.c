/*
 * bench_dp: the whole bng-dp pipeline (worker_burst + worker_flush, worker.h) on
 * synthetic bursts, no kernel in the loop.
 *
 *   bench_dp [EAL options, with --vdev net_null0] -- --config INI --sessions CSV
 *            --pcap FILE --scenario up|down [--seconds S | --bursts K] [--runs R]
 *            [--qsize N] [--copy B] [--stats-period-us U] [--mbufs N] [--serve]
 *            [--hqos hsched|rte_sched] [--hqos-batch auto|N] [--v6] [--ipoe] [--split]
 *
 * --ipoe: the sessions are IPoE (issue 19): installed with kind IPoE, keyed by
 * (line, MAC); use the IPoE pcap and INI of vbng_traffic.py (up_ipoe_N.pcap,
 * bng_dp_ipoe_N.ini).
 *
 * --v6: every session also gets its IPv6 /64 and /56 (vbng_traffic.py) and the
 * IPv6 router is taken as resolved; the pcap is then IPv6 traffic.
 *
 * The instance is built by the same code as bng-dp (app_init.h) from INI; every
 * session of CSV is installed through the PFCP user-plane function's data-path
 * operations (subs.h, the code a PFCP Session Establishment ends in); the core
 * router's MAC is learnt from an ARP reply through the ARP table. Then, per
 * burst: 32 mbufs are allocated and filled from the pcap's frames in order
 * (the traffic of bench/vbng_traffic.py: random sessions, no locality), run
 * through every stage, and transmitted on net_null (which frees them), as
 * DPDK's ip_pipeline does with its source and sink ports. Allocation and copy
 * are inside the measured loop on both sides. Like ip_pipeline's source port
 * with "bpp 64", only the first --copy bytes (default 64: every header) of a
 * frame are copied into the mbuf; the mbuf still has the frame's length.
 *
 * Fairness (make bench-dp, docs/benchmarks.md): with two lcores (-l 0,1) the
 * pipeline runs on the second one (the worker) and the main lcore, the control
 * thread, only waits in a blocking read; packets are counted where they leave
 * the pipeline (net_null TX, after the HQoS dequeue), inside the timed window,
 * with no drain outside it, as ip_pipeline counts at its sink.
 *
 * --serve: set up, warm up, print {"ready": true}, then read commands on stdin,
 * "run SECONDS" (one window, one JSON line) or "quit", so the driver can
 * interleave windows of several processes (bench/run_bench_dp.py).
 *
 * Timed mode prints one JSON object per run and a summary with the medians:
 * mpps_per_core and cycles_per_packet from the CPU time this thread was given
 * (CLOCK_THREAD_CPUTIME_ID; on a shared machine, time the scheduler gave to
 * others is not charged, as bench/ip_pipeline/run.py does with schedstat),
 * and the same from wall-clock TSC ("wall_"). With --bursts the
 * loop runs exactly K bursts in bench_loop(), which callgrind's
 * --toggle-collect=bench_loop counts (bench/run_bench_dp.py). Under callgrind
 * the program runs about 50 times slower, so the driver stretches the HQoS
 * stats harvest period (--stats-period-us) by as much: per packet, the
 * harvests then cost what they cost at full speed.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "app_init.h"
#include "control.h"
#include "subs.h"
#include "worker.h"

#define MAX_FRAME 2048
#define MAX_RUNS 32

/*
 * The frames of the pcap, stored as ip_pipeline's source port stores its
 * "bpp 64" snapshot: the first `stride` bytes of each, back to back (64 bytes
 * a frame by default, 16 MiB for 2^18 frames), and their real lengths.
 */
struct frames {
	uint8_t *data; /* n * stride */
	uint16_t *len;
	uint32_t n;
	uint32_t stride;
};

static struct app the_app;
static struct frames fr;
static uint16_t copy_bytes = 64;
static int with_v6;   /* --v6: every session also gets its /64 and /56 (vbng_traffic.py) */
static int with_ipoe; /* --ipoe: the sessions are IPoE (no PPPoE session id) */

static int
load_pcap(const char *path, struct frames *f, uint32_t stride)
{
	uint32_t hdr[6], rec[4], cap = 1u << 16;
	uint8_t buf[MAX_FRAME];
	FILE *fp = fopen(path, "rb");

	if (fp == NULL || fread(hdr, 4, 6, fp) != 6 || hdr[0] != 0xa1b2c3d4u) {
		fprintf(stderr, "bench_dp: %s: not a little-endian pcap\n", path);
		return -1;
	}
	f->stride = stride;
	f->data = malloc((size_t)cap * stride);
	f->len = malloc((size_t)cap * sizeof(*f->len));
	f->n = 0;
	while (f->data != NULL && f->len != NULL && fread(rec, 4, 4, fp) == 4) {
		if (rec[2] > MAX_FRAME || rec[2] != rec[3]) {
			fprintf(stderr, "bench_dp: %s: frame %u of %u bytes\n", path, f->n, rec[2]);
			return -1;
		}
		if (f->n == cap) {
			cap *= 2;
			f->data = realloc(f->data, (size_t)cap * stride);
			f->len = realloc(f->len, (size_t)cap * sizeof(*f->len));
			if (f->data == NULL || f->len == NULL)
				break;
		}
		if (fread(buf, 1, rec[2], fp) != rec[2])
			break;
		memcpy(f->data + (size_t)f->n * stride, buf, RTE_MIN(rec[2], stride));
		f->len[f->n++] = (uint16_t)rec[2];
	}
	fclose(fp);
	if (f->data == NULL || f->len == NULL || f->n == 0) {
		fprintf(stderr, "bench_dp: %s: no frames\n", path);
		return -1;
	}
	return 0;
}

static int
parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6];

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

/* i,subport,pipe,stag,ctag,pppoe_sid,mac,ipv4 (bench/vbng_traffic.py) */
static int
install_sessions(struct app *a, const char *path, uint32_t *count)
{
	char line[256], mac[32], ip[32];
	unsigned int i, sp, pipe, stag, ctag, sid, b0, b1, b2, b3;
	FILE *fp = fopen(path, "r");
	uint32_t handle;
	int rc;

	*count = 0;
	if (fp == NULL || fgets(line, sizeof(line), fp) == NULL) {
		fprintf(stderr, "bench_dp: %s: cannot read\n", path);
		return -1;
	}
	while (fgets(line, sizeof(line), fp) != NULL) {
		struct up_sub u = {0};

		if (sscanf(line, "%u,%u,%u,%u,%u,%u,%31[^,],%31s", &i, &sp, &pipe, &stag, &ctag,
			   &sid, mac, ip) != 8 ||
		    parse_mac(mac, u.mac) != 0 ||
		    sscanf(ip, "%u.%u.%u.%u", &b0, &b1, &b2, &b3) != 4) {
			fprintf(stderr, "bench_dp: %s: bad line %s", path, line);
			fclose(fp);
			return -1;
		}
		u.stag = (uint16_t)stag;
		u.ctag = (uint16_t)ctag;
		u.pppoe_sid = with_ipoe ? 0 : (uint16_t)sid;
		u.kind = with_ipoe ? UP_SUB_IPOE : UP_SUB_PPPOE;
		u.ipv4 = b0 << 24 | b1 << 16 | b2 << 8 | b3;
		if (with_v6) {
			/* 2001:db8:100:i::/64 and 2001:db8:2HH:LL00::/56 (vbng_traffic.py) */
			static const uint8_t wan[6] = {0x20, 0x01, 0x0d, 0xb8, 0x01, 0x00};
			static const uint8_t pd[5] = {0x20, 0x01, 0x0d, 0xb8, 0x02};

			u.n_prefix6 = 2;
			memcpy(u.prefix6[0], wan, 6);
			u.prefix6[0][6] = (uint8_t)(i >> 8);
			u.prefix6[0][7] = (uint8_t)i;
			u.prefix6_len[0] = 64;
			memcpy(u.prefix6[1], pd, 5);
			u.prefix6[1][5] = (uint8_t)(i >> 8);
			u.prefix6[1][6] = (uint8_t)i;
			u.prefix6_len[1] = 56;
			u.has_ipv4 = u.has_ipv6 = true;
		}
		/* This thread is the worker too: apply the HQoS commands as it would. */
		hqos_worker_apply(a->hqos, rte_rdtsc());
		rc = subs_ops.install(a, &u, &handle);
		if (rc != 0) {
			fprintf(stderr, "bench_dp: session %u refused: %s\n", i, strerror(-rc));
			fclose(fp);
			return -1;
		}
		(*count)++;
	}
	fclose(fp);
	return 0;
}

static int
discard(void *arg, const uint8_t *frame, uint16_t len)
{
	(void)arg;
	(void)frame;
	(void)len;
	return 0;
}

/* The router answers the ARP table's request: its MAC is learnt as in production. */
static int
resolve_router(struct app *a)
{
	static const uint8_t router_mac[6] = {0x02, 0xee, 0x00, 0x00, 0x00, 0x01};
	const struct dp_line_group *g = &a->cfg->line_groups[0];
	uint32_t rip = a->cfg->core.router_address, cip = g->core_address;
	uint8_t f[60] = {0}, reply[NEIGH_FRAME_LEN];
	struct cls_counters cc = {0};
	struct cls_result r;
	uint16_t rlen;

	neigh_tick(a->neigh, control_now_ms(), discard, NULL);
	memcpy(f, g->core_mac, 6);
	memcpy(f + 6, router_mac, 6);
	f[12] = 0x08, f[13] = 0x06;
	f[14] = 0, f[15] = 1, f[16] = 0x08, f[17] = 0, f[18] = 6, f[19] = 4, f[20] = 0, f[21] = 2;
	memcpy(f + 22, router_mac, 6);
	f[28] = (uint8_t)(rip >> 24), f[29] = (uint8_t)(rip >> 16), f[30] = (uint8_t)(rip >> 8);
	f[31] = (uint8_t)rip;
	memcpy(f + 32, g->core_mac, 6);
	f[38] = (uint8_t)(cip >> 24), f[39] = (uint8_t)(cip >> 16), f[40] = (uint8_t)(cip >> 8);
	f[41] = (uint8_t)cip;
	classify_frame(a->lmap, f, sizeof(f), &r, &cc);
	neigh_arp_input(a->neigh, f, sizeof(f), &r, control_now_ms(), reply, &rlen);
	if (neigh_lookup(a->neigh, rip) == 0) {
		fprintf(stderr, "bench_dp: the router's MAC was not learnt\n");
		return -1;
	}
	return 0;
}

/*
 * --split: the two workers' parts of the pipeline (worker.h, "Split mode")
 * run one after the other on this lcore, the ring between them emptied after
 * every burst, so each part can be counted on its own (callgrind inclusive
 * costs of bench_up_side and bench_down_side; TSC per side in
 * the timed windows). It measures what each lcore would spend per packet, not
 * the two lcores running at once.
 */
static int split;
static uint64_t tsc_up, tsc_down; /* split: TSC ticks spent by each side */

__attribute__((noinline)) uint32_t
bench_down_side(struct app *d, uint64_t now)
{
	struct app_handoff h[APP_BURST];
	uint32_t n, total = 0;

	hqos_worker_apply(d->hqos, now);
	while ((n = rte_ring_sc_dequeue_burst_elem(d->down_ring, h, sizeof(h[0]), APP_BURST,
						   NULL)) > 0) {
		d->rx_last = n;
		worker_down_burst(d, h, (uint16_t)n, now);
		total += n;
	}
	worker_flush(d);
	return total;
}

/* The upstream worker's part of one burst: classify, upstream, control frames,
 * the hand-off of core frames, its transmit. */
__attribute__((noinline)) void
bench_up_side(struct app *a, struct rte_mbuf **m, uint64_t now)
{
	worker_burst(a, m, APP_BURST, now);
	worker_tx_flush(a);
}

/* Exactly `bursts` bursts through the pipeline; frames from *next on. */
static inline __attribute__((always_inline)) uint64_t
run_bursts(struct app *a, uint64_t bursts, uint32_t *next)
{
	struct rte_mbuf *m[APP_BURST];
	uint32_t k = *next;
	uint64_t pkts = 0;

	for (uint64_t b = 0; b < bursts; b++) {
		uint64_t now;

		if (rte_pktmbuf_alloc_bulk(a->pool, m, APP_BURST) != 0) {
			worker_flush(a);
			continue;
		}
		for (int i = 0; i < APP_BURST; i++) {
			uint16_t len = fr.len[k];

			memcpy(rte_pktmbuf_mtod(m[i], uint8_t *), fr.data + (size_t)k * fr.stride,
			       RTE_MIN((uint32_t)len, fr.stride));
			m[i]->data_len = len;
			m[i]->pkt_len = len;
			if (++k == fr.n)
				k = 0;
		}
		now = rte_rdtsc();
		if (split) {
			uint64_t t1, t2;

			bench_up_side(a, m, now);
			t1 = rte_rdtsc();
			bench_down_side(a->down, t1);
			t2 = rte_rdtsc();
			tsc_up += t1 - now;
			tsc_down += t2 - t1;
			session_worker_quiescent(a->sessions, 0);
			session_worker_quiescent(a->sessions, 1);
			pkts += APP_BURST;
			continue;
		}
		hqos_worker_apply(a->hqos, now);
		worker_burst(a, m, APP_BURST, now);
		worker_flush(a);
		session_worker_quiescent(a->sessions, 0);
		pkts += APP_BURST;
	}
	*next = k;
	return pkts;
}

/* The measured loop: callgrind --toggle-collect=bench_loop counts this one only. */
__attribute__((noinline)) uint64_t
bench_loop(struct app *a, uint64_t bursts, uint32_t *next)
{
	return run_bursts(a, bursts, next);
}

/* The same loop, for warming up: not counted (the counter keeps the compiler
 * from folding the two functions into one address). */
static uint64_t warm_bursts;

__attribute__((noinline)) static uint64_t
warm_loop(struct app *a, uint64_t bursts, uint32_t *next)
{
	warm_bursts += bursts;
	return run_bursts(a, bursts, next);
}

/* What left the pipeline: to the core, or out of HQoS towards subscribers. */
static uint64_t
forwarded(const struct app *a)
{
	const struct app *d = a->down;

	return a->wstats.up_pkts + a->wstats.down_sent +
	       (d != NULL ? d->wstats.up_pkts + d->wstats.down_sent : 0);
}

static void
drain(struct app *a)
{
	if (a->down != NULL)
		a = a->down; /* split: the HQoS is the downstream side's */
	a->rx_last = 0;	     /* nothing more to receive: the batch does not wait (hqos_batch.h) */
	for (int i = 0; i < 100000; i++) {
		if (worker_flush(a) == 0 && a->hqos->backlog == 0 && i > 100)
			break;
	}
}

static int
port_open(struct app *a)
{
	struct rte_eth_conf conf = {0};
	uint16_t id, n = 0;

	RTE_ETH_FOREACH_DEV(id)
	{
		a->port_id = id;
		n++;
	}
	if (n != 1) {
		fprintf(stderr, "bench_dp: give exactly one port (--vdev net_null0)\n");
		return -1;
	}
	uint16_t nq = split ? 2 : 1;

	if (rte_eth_dev_configure(a->port_id, nq, nq, &conf) != 0)
		goto fail;
	for (uint16_t q = 0; q < nq; q++)
		if (rte_eth_rx_queue_setup(a->port_id, q, 512, (unsigned int)rte_socket_id(), NULL,
					   a->pool) != 0 ||
		    rte_eth_tx_queue_setup(a->port_id, q, 512, (unsigned int)rte_socket_id(),
					   NULL) != 0)
			goto fail;
	if (rte_eth_dev_start(a->port_id) != 0)
		goto fail;
	a->port_ready = true;
	return 0;
fail:
	fprintf(stderr, "bench_dp: port setup failed\n");
	return -1;
}

static double
thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* One window of the serve mode: packets counted at the sink inside it. */
struct window {
	uint64_t pkts;
	double cpu_s, wall_s;
};

static void
run_window(struct app *a, double seconds, uint32_t *next, struct window *w)
{
	uint64_t hz = rte_get_tsc_hz(), f0 = forwarded(a), t0 = rte_rdtsc(), t1;
	uint64_t until = t0 + (uint64_t)(seconds * (double)hz);
	double c0 = thread_cpu_s();

	tsc_up = tsc_down = 0;

	do {
		bench_loop(a, 64, next);
		t1 = rte_rdtsc();
	} while (t1 < until);
	w->cpu_s = thread_cpu_s() - c0;
	w->wall_s = (double)(t1 - t0) / (double)hz;
	w->pkts = forwarded(a) - f0;
}

static void
print_window(const char *scenario, int r, const struct window *w, uint64_t hz)
{
	printf("{\"impl\": \"bng-dp\", \"scenario\": \"%s\", \"run\": %d, \"pkts\": %" PRIu64
	       ", \"worker_cpu_s\": %.6f, \"wall_s\": %.6f, \"cpu_share\": %.3f, "
	       "\"cycles_per_packet\": %.1f, \"mpps_per_core\": %.3f, "
	       "\"wall_cycles_per_packet\": %.1f, \"wall_mpps\": %.3f}\n",
	       scenario, r, w->pkts, w->cpu_s, w->wall_s, w->cpu_s / w->wall_s,
	       w->cpu_s * (double)hz / (double)w->pkts, (double)w->pkts / w->cpu_s / 1e6,
	       w->wall_s * (double)hz / (double)w->pkts, (double)w->pkts / w->wall_s / 1e6);
	if (split)
		printf("{\"impl\": \"bng-dp split\", \"scenario\": \"%s\", \"run\": %d, "
		       "\"up_side_cycles_per_packet\": %.1f, \"down_side_cycles_per_packet\": "
		       "%.1f}\n",
		       scenario, r, (double)tsc_up / (double)w->pkts,
		       (double)tsc_down / (double)w->pkts);
	fflush(stdout);
}

static int g_argc;
static char **g_argv;
static int g_rc;
static int g_done[2] = {-1, -1};

static int bench_main(int argc, char **argv);

/* The worker lcore runs the whole benchmark; then it wakes the main lcore. */
static int
worker_lcore(void *arg)
{
	char b = 0;

	(void)arg;
	g_rc = bench_main(g_argc, g_argv);
	if (write(g_done[1], &b, 1) != 1)
		return -1;
	return 0;
}

int
main(int argc, char **argv)
{
	unsigned int lc;
	char b;
	int n = rte_eal_init(argc, argv);

	if (n < 0) {
		fprintf(stderr, "bench_dp: EAL: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	g_argc = argc - n;
	g_argv = argv + n;
	lc = rte_get_next_lcore(-1, 1, 0);
	if (lc >= RTE_MAX_LCORE)
		return bench_main(g_argc, g_argv); /* one lcore: it is the worker */
	/* Control thread: blocked in read() until the worker is done, as bng-dp's
	 * control thread sleeps between its timers; never a busy wait. */
	if (pipe(g_done) != 0 || rte_eal_remote_launch(worker_lcore, NULL, lc) != 0) {
		fprintf(stderr, "bench_dp: cannot start the worker lcore\n");
		return 1;
	}
	while (read(g_done[0], &b, 1) < 0 && errno == EINTR)
		;
	rte_eal_wait_lcore(lc);
	rte_eal_cleanup();
	return g_rc;
}

static int
bench_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{"config", required_argument, NULL, 'c'},
		{"sessions", required_argument, NULL, 's'},
		{"pcap", required_argument, NULL, 'p'},
		{"scenario", required_argument, NULL, 'S'},
		{"seconds", required_argument, NULL, 't'},
		{"bursts", required_argument, NULL, 'b'},
		{"runs", required_argument, NULL, 'r'},
		{"qsize", required_argument, NULL, 'q'},
		{"copy", required_argument, NULL, 'C'},
		{"stats-period-us", required_argument, NULL, 'P'},
		{"mbufs", required_argument, NULL, 'm'},
		{"serve", no_argument, NULL, 'V'},
		{"hqos", required_argument, NULL, 'H'},
		{"hqos-batch", required_argument, NULL, 'B'},
		{"v6", no_argument, NULL, '6'},
		{"ipoe", no_argument, NULL, 'I'},
		{"split", no_argument, NULL, 'W'},
		{NULL, 0, NULL, 0},
	};
	const char *csv = NULL, *pcap = NULL, *scenario = "down";
	double seconds = 2.0, cpp[MAX_RUNS], mpps[MAX_RUNS], wcpp[MAX_RUNS], wmpps[MAX_RUNS];
	uint64_t bursts = 0, hz;
	double heap_mb = 0, hqos_mb = 0;
	struct app *a = &the_app;
	char err[512];
	uint32_t n_sess = 0, next = 0;
	int c, runs = 5, qsize = 64, serve = 0;
	uint32_t mbufs = 32768;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'c':
			a->opts.config_path = optarg;
			break;
		case 's':
			csv = optarg;
			break;
		case 'p':
			pcap = optarg;
			break;
		case 'S':
			scenario = optarg;
			break;
		case 't':
			seconds = atof(optarg);
			break;
		case 'b':
			bursts = strtoull(optarg, NULL, 10);
			break;
		case 'r':
			runs = atoi(optarg);
			break;
		case 'q':
			qsize = atoi(optarg);
			break;
		case 'C':
			copy_bytes = (uint16_t)atoi(optarg);
			break;
		case 'P':
			a->opts.hqos_stats_period_us = (uint32_t)atoi(optarg);
			break;
		case 'm':
			mbufs = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'V':
			serve = 1;
			break;
		case 'H':
			a->opts.hqos_sched = hqos_sched_parse(optarg);
			if (a->opts.hqos_sched == 0) {
				fprintf(stderr, "bench_dp: --hqos hsched|rte_sched\n");
				return 1;
			}
			break;
		case 'B':
			/* auto (the default) or a fixed batch 1..APP_TX_MAX (hqos_batch.h) */
			a->opts.hqos_batch =
				strcmp(optarg, "auto") == 0 ? 0 : (uint32_t)atoi(optarg);
			if (strcmp(optarg, "auto") != 0 &&
			    (a->opts.hqos_batch < 1 || a->opts.hqos_batch > APP_TX_MAX)) {
				fprintf(stderr, "bench_dp: --hqos-batch auto|1..%u\n", APP_TX_MAX);
				return 1;
			}
			break;
		case '6':
			with_v6 = 1;
			break;
		case 'I':
			with_ipoe = 1;
			break;
		case 'W':
			split = 1;
			break;
		default:
			return 1;
		}
	}
	if (a->opts.config_path == NULL || csv == NULL || pcap == NULL || runs < 1 ||
	    runs > MAX_RUNS || seconds <= 0) {
		fprintf(stderr, "bench_dp: --config, --sessions and --pcap are required\n");
		return 1;
	}
	/* --copy B: the first B bytes of each frame, rounded up to 64; 0: whole frames. */
	if (load_pcap(pcap, &fr, copy_bytes != 0 ? RTE_ALIGN_CEIL(copy_bytes, 64u) : MAX_FRAME) !=
	    0)
		return 1;
	/* Capacity = the sessions of the CSV (counted first). */
	{
		FILE *fp = fopen(csv, "r");
		int ch;

		if (fp == NULL)
			return 1;
		while ((ch = fgetc(fp)) != EOF)
			n_sess += ch == '\n';
		fclose(fp);
		n_sess = n_sess > 1 ? n_sess - 1 : 1;
	}
	a->opts.sessions = n_sess;
	a->opts.mbufs = mbufs;
	a->opts.qsize = (uint16_t)qsize;
	a->opts.hqos_spare_subports = -1; /* the sessions are spread evenly */
	a->opts.workers = split ? 2 : 1;
	if (app_init(a, err, sizeof(err)) != 0) {
		fprintf(stderr, "bench_dp: %s\n", err);
		return 1;
	}
	if (port_open(a) != 0 || install_sessions(a, csv, &n_sess) != 0 || resolve_router(a) != 0)
		return 1;
	/* The IPv6 router as Neighbor Discovery would have resolved it (02:ee:00:00:00:01). */
	if (with_v6)
		__atomic_store_n(&a->router6_mac, 0x02ee00000001ULL, __ATOMIC_RELAXED);
	if (split && worker_split_init(a, err, sizeof(err)) != 0) {
		fprintf(stderr, "bench_dp: %s\n", err);
		return 1;
	}
	session_worker_register(a->sessions, 0);
	if (split)
		session_worker_register(a->sessions, 1);
	hqos_worker_apply(a->hqos, rte_rdtsc());
	hz = rte_get_tsc_hz();
	{
		struct rte_malloc_socket_stats ms;

		if (rte_malloc_get_socket_stats((int)rte_socket_id(), &ms) == 0)
			heap_mb = (double)ms.heap_allocsz_bytes / (1 << 20);
		hqos_mb = (double)hqos_memory_bytes(a->hqos) / (1 << 20);
	}

	if (bursts > 0) {
		/* Callgrind mode: warm up (every session seen, its policer profile adopted),
		 * then exactly `bursts` bursts in bench_loop(). */
		warm_loop(a, (n_sess * 8) / APP_BURST + 256, &next);
		drain(a);
		uint64_t f0 = forwarded(a), pkts = bench_loop(a, bursts, &next);

		drain(a);
		printf("{\"impl\": \"bng-dp\", \"scenario\": \"%s\", \"sessions\": %u, \"pkts\": "
		       "%" PRIu64 ", \"forwarded\": %" PRIu64
		       ", \"heap_mb\": %.1f, \"hqos_mb\": %.1f}\n",
		       scenario, n_sess, pkts, forwarded(a) - f0, heap_mb, hqos_mb);
		return 0;
	}
	/* Timed and serve modes: one warm-up pass over the frames, then windows
	 * counted at the sink (the HQoS backlog stays: no drain between them). */
	warm_loop(a, fr.n / APP_BURST + 1, &next);
	if (serve) {
		char line[128];
		int r = 0;

		printf("{\"ready\": true, \"hqos\": \"%s\", \"sessions\": %u, \"mbufs\": %u, "
		       "\"qsize\": %d, "
		       "\"lcore\": %u, \"heap_mb\": %.1f, \"hqos_mb\": %.1f, \"tsc_hz\": %" PRIu64
		       "}\n",
		       hqos_sched_name(a->hqos->sched_kind), n_sess, mbufs, qsize, rte_lcore_id(),
		       heap_mb, hqos_mb, hz);
		fflush(stdout);
		while (fgets(line, sizeof(line), stdin) != NULL) {
			struct window w;
			double sec;

			if (strncmp(line, "quit", 4) == 0)
				break;
			if (sscanf(line, "run %lf", &sec) != 1 || sec <= 0 || sec > 60) {
				fprintf(stderr, "bench_dp: bad command %s", line);
				return 1;
			}
			run_window(a, sec, &next, &w);
			if (w.pkts == 0) {
				fprintf(stderr, "bench_dp: nothing reached the sink\n");
				return 1;
			}
			print_window(scenario, r++, &w, hz);
		}
		return 0;
	}
	for (int r = 0; r < runs; r++) {
		struct window w;

		run_window(a, seconds, &next, &w);
		if (w.pkts == 0) {
			fprintf(stderr, "bench_dp: nothing reached the sink\n");
			return 1;
		}
		wcpp[r] = w.wall_s * (double)hz / (double)w.pkts;
		wmpps[r] = (double)w.pkts / w.wall_s / 1e6;
		cpp[r] = w.cpu_s * (double)hz / (double)w.pkts;
		mpps[r] = (double)w.pkts / w.cpu_s / 1e6;
		print_window(scenario, r, &w, hz);
	}
	qsort(cpp, (size_t)runs, sizeof(double), cmp_double);
	qsort(mpps, (size_t)runs, sizeof(double), cmp_double);
	qsort(wcpp, (size_t)runs, sizeof(double), cmp_double);
	qsort(wmpps, (size_t)runs, sizeof(double), cmp_double);
	printf("{\"impl\": \"bng-dp\", \"scenario\": \"%s\", \"sessions\": %u, \"runs\": %d, "
	       "\"cycles_per_packet\": %.1f, \"mpps_per_core\": %.3f, "
	       "\"wall_cycles_per_packet\": %.1f, \"wall_mpps\": %.3f, \"tsc_hz\": %" PRIu64
	       ", \"heap_mb\": %.1f, \"hqos_mb\": %.1f, \"summary\": true}\n",
	       scenario, n_sess, runs, cpp[runs / 2], mpps[runs / 2], wcpp[runs / 2],
	       wmpps[runs / 2], hz, heap_mb, hqos_mb);
	session_worker_unregister(a->sessions, 0);
	if (split)
		session_worker_unregister(a->sessions, 1);
	rte_eth_dev_stop(a->port_id);
	rte_eth_dev_close(a->port_id);
	worker_split_fini(a);
	app_fini(a);
	return 0;
}

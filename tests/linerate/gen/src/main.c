/* bng-lrgen: the in-box line-rate generator and analyser (tests/linerate/README.md).
 *
 *   bng-lrgen EAL-ARGS -- --streams FILE [--netns-vdev NS,DEVARGS]... [--arp PORT=IPV4]...
 *       [--nd PORT=IPV6]... [--lcp-echo MAGIC]
 *       (--serve | --rx-only S [--expect N] | TRIAL-OPTIONS) [--per-stream]
 *
 * One lcore does everything, run to completion: per loop it polls every port (answering ARP,
 * Neighbor Solicitations and, with --lcp-echo, LCP Echo-Requests; analysing signed frames)
 * and sends what each group's rate makes due, in bursts of up to 32.
 * A trial: every group g with a rate sends round robin over its streams at rate g pps, frames
 * of size g (access-side Ethernet frame with FCS, or IMIX 7:4:1 of 64/594/1518) for the
 * duration, then the receive side keeps counting for the drain time; one JSON document per
 * trial on stdout. --serve reads trials from stdin, one a line:
 *   trial duration=S drain_ms=M rate0=PPS size0=N|imix rate1=... (groups 0..3)
 * and answers ARP and Neighbor Solicitations between trials, sleeping when idle. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "ports.h"
#include "rxstats.h"
#include "streams.h"

#define BURST 32u
#define MAX_PORTS 8u
#define IMIX_LEN 12u

/* IMIX 7:4:1, interleaved so that every window of 12 frames holds the mix */
static const uint16_t imix[IMIX_LEN] = {64, 594, 64, 64, 1518, 64, 594, 64, 64, 594, 64, 594};

struct group_conf {
	double pps;
	uint32_t size; /* 0: IMIX */
};

struct trial {
	double duration_s;
	uint32_t drain_ms;
	struct group_conf g[LR_GROUPS];
};

struct gen {
	struct lr_stream_table t;
	struct lr_rx rx;
	struct lr_port ports[MAX_PORTS];
	uint16_t n_ports;
	struct rte_mempool *pool;
	uint64_t hz;
	double ns_per_tick;
	uint64_t trial_start_tsc; /* frames signed before it are stale: an earlier trial's */
	uint64_t stale;
	int per_stream;
	uint32_t idle_sleep_us;
	uint32_t trials;
};

static void
die(const char *msg)
{
	fprintf(stderr, "bng-lrgen: %s\n", msg);
	exit(2);
}

/* ---- receive: every port, one burst each ---- */
static unsigned
poll_rx(struct gen *G)
{
	struct rte_mbuf *b[BURST];
	unsigned total = 0;
	for (uint16_t i = 0; i < G->n_ports; i++) {
		struct lr_port *p = &G->ports[i];
		uint16_t n = rte_eth_rx_burst(p->id, 0, b, BURST);
		if (!n)
			continue;
		uint64_t now = rte_rdtsc();
		total += n;
		p->rx += n;
		for (uint16_t k = 0; k < n; k++) {
			struct rte_mbuf *m = b[k];
			if (lr_port_arp_answer(p, m) || lr_port_lcp_answer(p, m) ||
			    lr_port_nd_answer(p, m)) {
				if (rte_eth_tx_burst(p->id, 0, &m, 1) == 1)
					continue;
			} else {
				struct lr_sig sig;
				if (lr_rx_parse(rte_pktmbuf_mtod(m, const uint8_t *),
						rte_pktmbuf_data_len(m), &sig) < 0) {
					G->rx.other++;
				} else if (sig.stream >= G->t.n) {
					G->rx.bad_stream++;
				} else if (sig.tsc < G->trial_start_tsc || sig.tsc > now) {
					G->stale++;
				} else {
					uint64_t lat = (uint64_t)((double)(now - sig.tsc) *
								  G->ns_per_tick);
					lr_rx_record(&G->rx, G->t.s[sig.stream].group, sig.stream,
						     sig.seq, lat);
				}
			}
			rte_pktmbuf_free(m);
		}
	}
	return total;
}

/* ---- send: what group g owes at time now, at most one burst ---- */
struct group_state {
	uint64_t sent, bytes, rr, size_i;
};

static void
send_group(struct gen *G, const struct group_conf *c, struct group_state *gs, uint32_t g,
	   uint64_t due)
{
	struct rte_mbuf *bufs[MAX_PORTS][BURST];
	uint32_t sid[MAX_PORTS][BURST];
	uint16_t lens[MAX_PORTS][BURST];
	uint16_t cnt[MAX_PORTS] = {0};
	uint32_t n = due > BURST ? BURST : (uint32_t)due;
	if (!n || !G->t.n_group[g])
		return;
	struct rte_mbuf *m[BURST];
	if (rte_pktmbuf_alloc_bulk(G->pool, m, n) != 0)
		return; /* pool empty: in flight; the next loop catches up */
	uint64_t tsc = rte_rdtsc();
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id = G->t.by_group[g][gs->rr];
		if (++gs->rr == G->t.n_group[g])
			gs->rr = 0;
		struct lr_stream *s = &G->t.s[id];
		uint32_t size = c->size ? c->size : imix[gs->size_i++ % IMIX_LEN];
		uint16_t len = lr_stream_frame_len(s, size);
		uint8_t *d = (uint8_t *)rte_pktmbuf_append(m[i], len);
		lr_stream_build(s, (uint16_t)id, d, len, s->next_seq++, tsc);
		uint16_t pi = s->tx_port;
		bufs[pi][cnt[pi]] = m[i];
		sid[pi][cnt[pi]] = id;
		lens[pi][cnt[pi]++] = len;
	}
	for (uint16_t pi = 0; pi < G->n_ports; pi++) {
		if (!cnt[pi])
			continue;
		struct lr_port *p = &G->ports[pi];
		uint16_t ok = rte_eth_tx_burst(p->id, 0, bufs[pi], cnt[pi]);
		p->tx += ok;
		for (uint16_t k = 0; k < ok; k++)
			gs->bytes += lens[pi][k] + LR_FCS;
		gs->sent += ok;
		/* not sent: give the sequence numbers back (the tail holds each stream's latest) */
		for (int k = cnt[pi] - 1; k >= ok; k--) {
			G->t.s[sid[pi][k]].next_seq--;
			rte_pktmbuf_free(bufs[pi][k]);
			p->tx_fail++;
		}
	}
}

/* ---- reporting ---- */
static void
print_lat(const struct lr_hist *h, uint64_t min, uint64_t max, uint64_t sum, uint64_t n)
{
	if (!n) {
		printf("null");
		return;
	}
	printf("{\"min\":%" PRIu64 ",\"avg\":%.0f,\"max\":%" PRIu64 ",\"p50\":%" PRIu64
	       ",\"p99\":%" PRIu64 ",\"p999\":%" PRIu64 "}",
	       min, (double)sum / (double)n, max, lr_hist_quantile(h, 0.5),
	       lr_hist_quantile(h, 0.99), lr_hist_quantile(h, 0.999));
}

static void
report(struct gen *G, const struct trial *tr, const struct group_state *gs, double secs,
       uint64_t expect)
{
	printf("{\"trial\":%u,\"duration_s\":%.6f,\"drain_ms\":%u,\"tsc_hz\":%" PRIu64
	       ",\"groups\":[",
	       G->trials, secs, tr->drain_ms, G->hz);
	int first = 1;
	for (uint32_t g = 0; g < LR_GROUPS; g++) {
		if (!G->t.n_group[g])
			continue;
		uint64_t tx = 0, rx = 0, lost = 0, extra = 0, dup = 0, reo = 0, sum = 0;
		uint64_t min = UINT64_MAX, max = 0;
		for (uint32_t k = 0; k < G->t.n_group[g]; k++) {
			uint32_t id = G->t.by_group[g][k];
			const struct lr_rx_stream *r = &G->rx.st[id];
			uint64_t t = expect ? expect : (gs ? G->t.s[id].next_seq : r->next);
			tx += t;
			rx += r->rx;
			if (t >= r->rx)
				lost += t - r->rx;
			else
				extra += r->rx - t;
			dup += r->dup;
			reo += r->reordered;
			sum += r->lat_sum;
			if (r->rx && r->lat_min < min)
				min = r->lat_min;
			if (r->lat_max > max)
				max = r->lat_max;
		}
		printf("%s{\"group\":%u,\"streams\":%u,\"pps_asked\":%.1f,\"size\":",
		       first ? "" : ",", g, G->t.n_group[g], tr->g[g].pps);
		if (tr->g[g].size)
			printf("%u", tr->g[g].size);
		else
			printf("\"imix\"");
		printf(",\"tx\":%" PRIu64 ",\"tx_pps\":%.1f,\"tx_bytes\":%" PRIu64
		       ",\"rx\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"unexpected\":%" PRIu64
		       ",\"reordered\":%" PRIu64 ",\"duplicates\":%" PRIu64 ",\"latency_ns\":",
		       tx, secs > 0 ? (double)(gs ? gs[g].sent : tx) / secs : 0.0,
		       gs ? gs[g].bytes : 0, rx, lost, extra, reo, dup);
		print_lat(&G->rx.hist[g], min, max, sum, rx);
		printf("}");
		first = 0;
	}
	printf("],\"ports\":[");
	for (uint16_t i = 0; i < G->n_ports; i++) {
		struct lr_port *p = &G->ports[i];
		printf("%s{\"port\":%u,\"tx\":%" PRIu64 ",\"tx_fail\":%" PRIu64 ",\"rx\":%" PRIu64
		       ",\"arp_replies\":%" PRIu64 ",\"nd_replies\":%" PRIu64
		       ",\"lcp_replies\":%" PRIu64 "}",
		       i ? "," : "", i, p->tx, p->tx_fail, p->rx, p->arp_replies, p->nd_replies,
		       p->lcp_replies);
	}
	printf("],\"rx_other\":%" PRIu64 ",\"rx_bad_stream\":%" PRIu64 ",\"rx_stale\":%" PRIu64,
	       G->rx.other, G->rx.bad_stream, G->stale);
	if (G->per_stream) {
		printf(",\"streams\":[");
		for (uint32_t id = 0; id < G->t.n; id++) {
			const struct lr_rx_stream *r = &G->rx.st[id];
			uint64_t t = expect ? expect : (gs ? G->t.s[id].next_seq : r->next);
			printf("%s{\"id\":%u,\"tx\":%" PRIu64 ",\"rx\":%" PRIu64
			       ",\"lost\":%" PRId64 ",\"reordered\":%" PRIu64
			       ",\"duplicates\":%" PRIu64 ",\"lat_min_ns\":%" PRIu64
			       ",\"lat_max_ns\":%" PRIu64 ",\"lat_avg_ns\":%.0f}",
			       id ? "," : "", id, t, r->rx, (int64_t)t - (int64_t)r->rx,
			       r->reordered, r->dup, r->rx ? r->lat_min : 0, r->lat_max,
			       r->rx ? (double)r->lat_sum / (double)r->rx : 0.0);
		}
		printf("]");
	}
	printf("}\n");
	fflush(stdout);
}

static void
reset_counters(struct gen *G)
{
	lr_rx_reset(&G->rx);
	G->stale = 0;
	for (uint32_t i = 0; i < G->t.n; i++)
		G->t.s[i].next_seq = 0;
	for (uint16_t i = 0; i < G->n_ports; i++) {
		struct lr_port *p = &G->ports[i];
		p->tx = p->tx_fail = p->rx = p->arp_replies = p->lcp_replies = p->nd_replies = 0;
	}
}

static void
run_trial(struct gen *G, const struct trial *tr)
{
	struct group_state gs[LR_GROUPS] = {0};
	/* what an earlier trial left in flight is counted stale, not as this one's */
	for (int i = 0; i < 50 && poll_rx(G); i++)
		;
	reset_counters(G);
	G->trials++;
	uint64_t start = rte_rdtsc();
	G->trial_start_tsc = start;
	uint64_t len = (uint64_t)(tr->duration_s * (double)G->hz);
	uint64_t now = start;
	while (now - start < len) {
		poll_rx(G);
		now = rte_rdtsc();
		double el = (double)(now - start) / (double)G->hz;
		for (uint32_t g = 0; g < LR_GROUPS; g++) {
			if (tr->g[g].pps <= 0)
				continue;
			uint64_t owed = (uint64_t)(el * tr->g[g].pps) + 1;
			if (owed > gs[g].sent)
				send_group(G, &tr->g[g], &gs[g], g, owed - gs[g].sent);
		}
	}
	double secs = (double)(rte_rdtsc() - start) / (double)G->hz;
	uint64_t drain_end = rte_rdtsc() + (uint64_t)tr->drain_ms * (G->hz / 1000);
	while (rte_rdtsc() < drain_end)
		if (!poll_rx(G) && G->idle_sleep_us)
			usleep(G->idle_sleep_us);
	report(G, tr, gs, secs, 0);
}

static void
run_rx_only(struct gen *G, double secs, uint64_t expect)
{
	struct trial tr = {.duration_s = secs};
	reset_counters(G);
	G->trial_start_tsc = 0; /* replayed frames carry any earlier TSC */
	G->trials++;
	uint64_t start = rte_rdtsc(), end = start + (uint64_t)(secs * (double)G->hz);
	while (rte_rdtsc() < end)
		if (!poll_rx(G) && G->idle_sleep_us)
			usleep(G->idle_sleep_us);
	report(G, &tr, NULL, secs, expect);
}

static int
parse_size(const char *v, uint32_t *size)
{
	if (!strcmp(v, "imix")) {
		*size = 0;
		return 0;
	}
	char *end;
	unsigned long s = strtoul(v, &end, 10);
	if (*end || s < LR_MIN_FRAME || s > LR_MAX_FRAME)
		return -1;
	*size = (uint32_t)s;
	return 0;
}

/* "key=value" words of a trial line; returns 0 or -1 with err */
static int
parse_trial_word(struct trial *tr, const char *w, char *err, size_t errlen)
{
	const char *eq = strchr(w, '=');
	if (!eq) {
		snprintf(err, errlen, "%s: not key=value", w);
		return -1;
	}
	size_t kl = (size_t)(eq - w);
	const char *v = eq + 1;
	char *end;
	if (kl == 8 && !strncmp(w, "duration", 8)) {
		tr->duration_s = strtod(v, &end);
		if (*end || !(tr->duration_s > 0 && tr->duration_s <= 3600))
			goto bad;
	} else if (kl == 8 && !strncmp(w, "drain_ms", 8)) {
		unsigned long d = strtoul(v, &end, 10);
		if (*end || d > 60000)
			goto bad;
		tr->drain_ms = (uint32_t)d;
	} else if (kl == 5 && (!strncmp(w, "rate", 4) || !strncmp(w, "size", 4)) && w[4] >= '0' &&
		   w[4] < '0' + (int)LR_GROUPS) {
		struct group_conf *c = &tr->g[w[4] - '0'];
		if (w[0] == 'r') {
			c->pps = strtod(v, &end);
			if (*end || !(c->pps >= 0 && c->pps <= 1e9))
				goto bad;
		} else if (parse_size(v, &c->size) < 0) {
			goto bad;
		}
	} else {
		snprintf(err, errlen, "unknown key in %s", w);
		return -1;
	}
	return 0;
bad:
	snprintf(err, errlen, "bad value in %s", w);
	return -1;
}

static void
serve(struct gen *G)
{
	char line[1024], err[256];
	struct pollfd pfd = {.fd = 0, .events = POLLIN};
	for (;;) {
		if (!poll_rx(G) && G->idle_sleep_us)
			usleep(G->idle_sleep_us);
		if (poll(&pfd, 1, 0) <= 0)
			continue;
		if (!fgets(line, sizeof(line), stdin))
			return;
		char *save = NULL, *w = strtok_r(line, " \t\r\n", &save);
		if (!w)
			continue;
		if (!strcmp(w, "quit"))
			return;
		if (strcmp(w, "trial")) {
			printf("{\"error\":\"unknown command %s\"}\n", w);
			fflush(stdout);
			continue;
		}
		struct trial tr = {.duration_s = 1, .drain_ms = 500};
		for (uint32_t g = 0; g < LR_GROUPS; g++)
			tr.g[g].size = 64;
		int ok = 1;
		while (ok && (w = strtok_r(NULL, " \t\r\n", &save)))
			ok = parse_trial_word(&tr, w, err, sizeof(err)) == 0;
		if (!ok) {
			printf("{\"error\":\"%s\"}\n", err);
			fflush(stdout);
			continue;
		}
		run_trial(G, &tr);
	}
}

static void
usage(void)
{
	fprintf(stderr,
		"usage: bng-lrgen EAL-ARGS -- --streams FILE [--netns-vdev NS,DEVARGS]...\n"
		"  [--arp PORT=IPV4]... [--nd PORT=IPV6]... [--lcp-echo MAGIC] [--per-stream] "
		"[--idle-sleep-us N]\n"
		"  (--serve | --rx-only SECONDS [--expect N] | --trial 'duration=S rate0=PPS "
		"size0=N|imix ...')\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	int n = rte_eal_init(argc, argv);
	if (n < 0)
		die("EAL initialisation failed");
	argc -= n;
	argv += n;
	struct gen *G = calloc(1, sizeof(*G));
	if (!G)
		die("out of memory");
	G->idle_sleep_us = 100;
	const char *streams = NULL, *trial_text = NULL;
	char *netns_vdev[MAX_PORTS];
	unsigned n_nv = 0;
	struct {
		unsigned port;
		uint32_t ip;
	} arps[MAX_PORTS];
	unsigned n_arp = 0;
	struct {
		unsigned port;
		uint8_t ip[16];
	} nds[MAX_PORTS];
	unsigned n_nd = 0;
	uint32_t lcp_magic = 0;
	int serve_mode = 0;
	double rx_only = 0;
	uint64_t expect = 0;
	static const struct option opts[] = {
		{"streams", required_argument, 0, 's'},
		{"netns-vdev", required_argument, 0, 'v'},
		{"arp", required_argument, 0, 'a'},
		{"nd", required_argument, 0, 'n'},
		{"lcp-echo", required_argument, 0, 'l'},
		{"per-stream", no_argument, 0, 'p'},
		{"serve", no_argument, 0, 'S'},
		{"rx-only", required_argument, 0, 'r'},
		{"expect", required_argument, 0, 'e'},
		{"trial", required_argument, 0, 't'},
		{"idle-sleep-us", required_argument, 0, 'i'},
		{0, 0, 0, 0},
	};
	int c;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			streams = optarg;
			break;
		case 'v':
			if (n_nv == MAX_PORTS)
				die("too many ports");
			netns_vdev[n_nv++] = optarg;
			break;
		case 'l': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 0);
			if (*end || v == 0 || v > UINT32_MAX)
				die("--lcp-echo MAGIC: a non-zero 32-bit number");
			lcp_magic = (uint32_t)v;
			break;
		}
		case 'a': {
			char *eq = strchr(optarg, '=');
			struct in_addr a;
			if (!eq || n_arp == MAX_PORTS || inet_pton(AF_INET, eq + 1, &a) != 1)
				die("--arp PORT=IPV4");
			arps[n_arp].port = (unsigned)atoi(optarg);
			arps[n_arp++].ip = a.s_addr;
			break;
		}
		case 'n': {
			char *eq = strchr(optarg, '=');
			if (!eq || n_nd == MAX_PORTS ||
			    inet_pton(AF_INET6, eq + 1, nds[n_nd].ip) != 1)
				die("--nd PORT=IPV6");
			nds[n_nd++].port = (unsigned)atoi(optarg);
			break;
		}
		case 'p':
			G->per_stream = 1;
			break;
		case 'S':
			serve_mode = 1;
			break;
		case 'r':
			rx_only = atof(optarg);
			if (!(rx_only > 0))
				die("--rx-only SECONDS");
			break;
		case 'e':
			expect = strtoull(optarg, NULL, 10);
			break;
		case 't':
			trial_text = optarg;
			break;
		case 'i':
			G->idle_sleep_us = (uint32_t)atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (!streams || (serve_mode + (rx_only > 0) + (trial_text != NULL)) != 1)
		usage();
	char err[512];
	if (lr_streams_load(streams, &G->t, err, sizeof(err)) < 0)
		die(err);
	if (lr_rx_init(&G->rx, G->t.n) < 0)
		die("out of memory");
	uint16_t pid;
	G->pool = rte_pktmbuf_pool_create("lrgen", 16383, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
					  (int)rte_socket_id());
	if (!G->pool)
		die("no mbuf pool");
	/* the EAL's own --vdev ports first, in this namespace; then the others, each in its own */
	RTE_ETH_FOREACH_DEV(pid)
	{
		if (G->n_ports == MAX_PORTS)
			die("too many ports");
		int rc = lr_port_start(&G->ports[G->n_ports], pid, G->pool);
		if (rc < 0) {
			snprintf(err, sizeof(err), "port %u: %s", pid, rte_strerror(-rc));
			die(err);
		}
		G->n_ports++;
	}
	for (unsigned i = 0; i < n_nv; i++) {
		char *comma = strchr(netns_vdev[i], ',');
		if (!comma)
			die("--netns-vdev NS,DEVARGS");
		*comma = 0;
		if (G->n_ports == MAX_PORTS)
			die("too many ports");
		if (lr_port_open(&G->ports[G->n_ports], netns_vdev[i], comma + 1, G->pool, err,
				 sizeof(err)) < 0)
			die(err);
		G->n_ports++;
	}
	for (uint32_t i = 0; i < G->t.n; i++)
		if (G->t.s[i].tx_port >= G->n_ports) {
			snprintf(err, sizeof(err), "stream %u sends on port %u: there are %u ports",
				 i, G->t.s[i].tx_port, G->n_ports);
			die(err);
		}
	for (uint16_t i = 0; i < G->n_ports; i++)
		G->ports[i].lcp_magic = lcp_magic;
	for (unsigned i = 0; i < n_arp; i++) {
		if (arps[i].port >= G->n_ports)
			die("--arp names a port that does not exist");
		G->ports[arps[i].port].arp_ip = arps[i].ip;
	}
	for (unsigned i = 0; i < n_nd; i++) {
		if (nds[i].port >= G->n_ports)
			die("--nd names a port that does not exist");
		G->ports[nds[i].port].has_nd = 1;
		memcpy(G->ports[nds[i].port].nd_ip, nds[i].ip, 16);
	}
	G->hz = rte_get_tsc_hz();
	G->ns_per_tick = 1e9 / (double)G->hz;
	fprintf(stderr, "bng-lrgen: %u streams, %u ports, TSC %.0f MHz\n", G->t.n, G->n_ports,
		(double)G->hz / 1e6);
	if (serve_mode) {
		printf("{\"ready\":true,\"streams\":%u,\"ports\":%u,\"tsc_hz\":%" PRIu64 "}\n",
		       G->t.n, G->n_ports, G->hz);
		fflush(stdout);
		serve(G);
	} else if (rx_only > 0) {
		run_rx_only(G, rx_only, expect);
	} else {
		struct trial tr = {.duration_s = 1, .drain_ms = 500};
		for (uint32_t g = 0; g < LR_GROUPS; g++)
			tr.g[g].size = 64;
		char *copy = strdup(trial_text), *save = NULL;
		for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
			if (parse_trial_word(&tr, w, err, sizeof(err)) < 0)
				die(err);
		free(copy);
		run_trial(G, &tr);
	}
	for (uint16_t i = 0; i < G->n_ports; i++)
		lr_port_close(&G->ports[i]);
	lr_rx_free(&G->rx);
	lr_streams_free(&G->t);
	rte_eal_cleanup();
	return 0;
}

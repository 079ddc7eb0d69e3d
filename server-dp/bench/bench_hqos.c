/*
 * Benchmark of the HQoS stage (hqos.h): mark, enqueue, dequeue, owner.
 *
 * usage: bench_hqos ITERATIONS [PIPES] [--no-tsc]
 *
 * For 4096 pipes (qsize 64, one subport) and 65536 pipes (qsize 16, 16
 * subports of 4096), or only PIPES: one access port, every pipe allocated
 * (1 Gbit/s profile, never the limit here) on a 1 Tbit/s port so the port
 * pacer never waits. BACKLOG frames of 500 bytes (504 on the wire, the
 * downstream frame of TARGETS.md) circulate: each step marks a burst of 32
 * with a random pipe, a random class (best effort with a random WRR queue
 * 1 in 2), enqueues it, dequeues 32 and reads their owners; the dequeued
 * frames are the next step's burst. ITERATIONS x 1024 steps are measured
 * after a warm-up. Prints one JSON line per size: packets, TSC ticks per
 * packet (enqueue + dequeue) unless --no-tsc (under valgrind), and the
 * memory hqos_create() took. bench_step() is not inlined so that callgrind's
 * --toggle-collect counts exactly the stage (bench/callgrind_hqos.sh).
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "bench_common.h"
#include "hqos.h"

#define BURST 32
#define BACKLOG 4096
#define STEPS 1024
#define FRAME 500

static struct rte_mempool *pool;
static uint8_t sched; /* 0: the default */

/* Random pipe, class and queue for each frame of the burst. */
static void
mark_burst(struct rte_mbuf **m, uint32_t n, const uint32_t *refs, uint32_t n_pipes)
{
	uint32_t i, r;

	for (i = 0; i < n; i++) {
		r = rnd(1u << 30);
		hqos_mark(m[i], refs[r % n_pipes],
			  (uint8_t)((r >> 20) & 1 ? DP_TC_BEST_EFFORT : (r >> 21) % 12),
			  (uint8_t)(r >> 24));
	}
}

__attribute__((noinline)) static uint32_t
bench_step(struct hqos *h, struct rte_mbuf **in, uint32_t n, struct rte_mbuf **out,
	   uint32_t *owners)
{
	uint32_t k, i;

	hqos_enqueue(h, in, n);
	k = hqos_dequeue(h, out, BURST);
	for (i = 0; i < k; i++)
		owners[i] = hqos_owner(h, out[i]);
	return k;
}

static int
run(uint32_t n_pipes, uint16_t qsize, unsigned long iters, int no_tsc)
{
	static const uint8_t w[4] = {4, 2, 1, 1};
	struct dp_config *c = calloc(1, sizeof(*c));
	struct rte_mbuf *burst[BURST], *out[BURST];
	uint32_t *refs = malloc(n_pipes * sizeof(*refs)), owners[BURST], i, n, k;
	struct hqos_worker_counters wc;
	struct hqos_params p;
	struct hqos *h;
	uint64_t t = 0, t0, pkts = 0, steps;
	char err[256];

	if (c == NULL || refs == NULL)
		return -1;
	c->instance.port_rate = DP_MAX_RATE;
	c->n_access_ports = 1;
	snprintf(c->access_ports[0].name, DP_NAME_SIZE, "ap0");
	c->access_ports[0].tpid = DP_TPID_8021Q;
	c->access_ports[0].rate = DP_MAX_RATE;
	c->n_qos_profiles = 1;
	snprintf(c->qos_profiles[0].name, DP_NAME_SIZE, "gig");
	c->qos_profiles[0].down_rate = 1000000000;
	for (i = 0; i < DP_NUM_TCS; i++)
		c->qos_profiles[0].tc_rate[i] = 1000000000;
	memcpy(c->qos_profiles[0].be_weights, w, 4);
	hqos_params_default(&p);
	p.capacity = n_pipes;
	p.qsize = qsize;
	p.cmd_ring_size = 2 * n_pipes + 2;
	p.scheduler = sched;
	h = hqos_create(c, &p, err, sizeof(err));
	if (h == NULL) {
		fprintf(stderr, "hqos_create: %s\n", err);
		return -1;
	}
	for (i = 0; i < n_pipes; i++)
		if (hqos_pipe_alloc(h, 0, 0, 0, &refs[i]) != 0 ||
		    hqos_pipe_set_owner(h, refs[i], i) != 0)
			return -1;
	hqos_worker_apply(h, rte_rdtsc());
	/* Fill the backlog, then circulate it. */
	for (n = 0; n < BACKLOG; n += BURST) {
		for (i = 0; i < BURST; i++) {
			burst[i] = rte_pktmbuf_alloc(pool);
			if (burst[i] == NULL || rte_pktmbuf_append(burst[i], FRAME) == NULL)
				return -1;
		}
		mark_burst(burst, BURST, refs, n_pipes);
		hqos_enqueue(h, burst, BURST);
	}
	k = 0;
	steps = (uint64_t)iters * STEPS;
	for (uint64_t s = 0; s < steps + STEPS; s++) {
		mark_burst(out, k, refs, n_pipes);
		memcpy(burst, out, k * sizeof(out[0]));
		t0 = no_tsc ? 0 : rte_rdtsc();
		n = bench_step(h, burst, k, out, owners);
		if (s >= STEPS) {
			if (!no_tsc)
				t += rte_rdtsc() - t0;
			pkts += n;
		}
		k = n;
	}
	hqos_worker_counters_read(h, &wc);
	printf("{\"scheduler\":\"%s\",\"pipes\":%u,\"subports\":%u,\"qsize\":%u,\"frame\":%u,"
	       "\"burst\":%d,"
	       "\"backlog\":%d,\"packets\":%" PRIu64 ",\"enq_drops\":%" PRIu64
	       ",\"memory_bytes\":%" PRIu64,
	       hqos_sched_name(h->sched_kind), n_pipes, h->n_chunks, qsize,
	       FRAME + HQOS_FRAME_OVERHEAD, BURST, BACKLOG, pkts, wc.enq_drops,
	       hqos_memory_bytes(h));
	if (!no_tsc && pkts > 0)
		printf(",\"tsc_per_packet\":%.1f,\"mpps\":%.2f", (double)t / (double)pkts,
		       (double)pkts * (double)rte_get_tsc_hz() / (double)t / 1e6);
	printf("}\n");
	fflush(stdout);
	rte_pktmbuf_free_bulk(out, k);
	hqos_free(h);
	free(refs);
	free(c);
	return 0;
}

int
main(int argc, char **argv)
{
	char *eal_argv[] = {argv[0],	   "--no-huge",		"-m", "1024", "--no-pci",
			    "--no-shconf", "--log-level=error", NULL};
	unsigned long iters, pipes = 0;
	int no_tsc = 0, i;

	if (argc < 2 || argc > 5) {
		fprintf(stderr, "usage: %s ITERATIONS [PIPES] [--no-tsc] [hsched|rte_sched]\n",
			argv[0]);
		return 2;
	}
	iters = strtoul(argv[1], NULL, 10);
	for (i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--no-tsc") == 0)
			no_tsc = 1;
		else if (hqos_sched_parse(argv[i]) != 0)
			sched = hqos_sched_parse(argv[i]);
		else
			pipes = strtoul(argv[i], NULL, 10);
	}
	if (rte_eal_init(7, eal_argv) < 0) {
		fprintf(stderr, "EAL init: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	pool = rte_pktmbuf_pool_create("bench", 8191, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (pool == NULL) {
		fprintf(stderr, "mbuf pool: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	if ((pipes == 0 || pipes == 4096) && run(4096, 64, iters, no_tsc) != 0)
		goto fail;
	if ((pipes == 0 || pipes == 65536) && run(65536, 16, iters, no_tsc) != 0)
		goto fail;
	if (pipes != 0 && pipes != 4096 && pipes != 65536 &&
	    run((uint32_t)pipes, 16, iters, no_tsc) != 0)
		goto fail;
	rte_eal_cleanup();
	return 0;
fail:
	fprintf(stderr, "set-up failed\n");
	return 1;
}

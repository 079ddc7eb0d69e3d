/*
 * libFuzzer target: hsched (src/hsched.h) driven by a script.
 *
 * Input: byte 0 picks the shape (subports 1..4, pipes per subport 1..8, qsize
 * 2..8), the next 4 x 8 bytes make four pipe profiles (rates from 1 byte/s to
 * 2^40, bucket sizes, class rates below, at or above the pipe's, weights 0..255);
 * then operations of 4 bytes: op, a, b, c:
 *   0 enqueue c & 15 frames, queue ids from a, b (some out of range), lengths
 *   1 dequeue up to c & 31 frames, the clock advanced by a << (b & 31) ticks
 *   2 pipe_config(subport a & 7, pipe b & 15, profile c - 1: -1..254)
 *   3 subport_rate_set(a & 7, rate 1 << (b & 47), size c << 4) then reset
 *   4 read the stats of subport a & 7 and the drops of pipe b & 31
 * Invariants: what is accepted is dequeued at most once and in order within a
 * queue; accepted = dequeued + backlog; the stats count every frame offered to
 * a valid queue (accepted or dropped); no frame leaks (the pool is whole after
 * hsched_free()); invalid arguments are refused, never a crash.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_mbuf.h>

#include "hsched.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_Q (4 * 8 * HSCHED_QUEUES)
#define POOL 1023

static struct rte_mempool *pool;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char *eal_argv[] = {
		(*argv)[0],	  "--no-huge",	       "-m", "128", "--no-pci", "--no-shconf",
		"--no-telemetry", "--log-level=error", NULL};

	(void)argc;
	if (rte_eal_init(8, eal_argv) < 0) {
		fprintf(stderr, "EAL init failed\n");
		abort();
	}
	pool = rte_pktmbuf_pool_create("fuzz_hsched", POOL, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (pool == NULL)
		abort();
	return 0;
}

static uint64_t
rate_of(uint8_t b)
{
	return UINT64_C(1) << (b % 41);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rte_sched_pipe_params prof[4];
	struct hsched_params p;
	struct hsched *s;
	/* per queue: sequence numbers enqueued and next expected out */
	static uint32_t seq_in[MAX_Q], seq_out[MAX_Q];
	uint64_t accepted = 0, dequeued = 0, offered_valid = 0, counted = 0, now;
	struct rte_mbuf *m[32];
	size_t at;
	uint32_t i, k, n;

	if (size < 33)
		return 0;
	memset(&p, 0, sizeof(p));
	p.n_subports = 1u + (data[0] & 3u);
	p.n_pipes_per_subport = 1u << ((data[0] >> 2) & 3u);
	if (p.n_pipes_per_subport > 8)
		p.n_pipes_per_subport = 8;
	p.qsize = 2u << ((data[0] >> 4) & 3u);
	if (p.qsize > 8)
		p.qsize = 8;
	p.frame_overhead = 4;
	p.max_frame = 1534;
	p.n_profiles = 4;
	p.profiles = prof;
	p.subport_rate = 1000000;
	p.subport_size = 20000;
	p.socket = -1;
	for (i = 0; i < 4; i++) {
		const uint8_t *b = data + 1 + 8 * i;

		memset(&prof[i], 0, sizeof(prof[i]));
		prof[i].tb_rate = rate_of(b[0]);
		prof[i].tb_size = 1u + (uint64_t)b[1] * 97u;
		for (k = 0; k < HSCHED_TCS; k++)
			prof[i].tc_rate[k] =
				(b[2] >> (k % 8) & 1) ? rate_of(b[3]) : prof[i].tb_rate;
		prof[i].tc_period = 1u + b[4];
		prof[i].wrr_weights[0] = b[5];
		prof[i].wrr_weights[1] = b[6];
		prof[i].wrr_weights[2] = b[7];
		prof[i].wrr_weights[3] = (uint8_t)(b[5] ^ b[6]);
	}
	s = hsched_create(&p, NULL, 0);
	if (s == NULL)
		return 0; /* a profile refused (zero rate, weights with a huge lcm) */
	memset(seq_in, 0, sizeof(seq_in));
	memset(seq_out, 0, sizeof(seq_out));
	now = rte_rdtsc();
	for (at = 33; at + 4 <= size; at += 4) {
		uint8_t op = data[at] % 5, a = data[at + 1], b = data[at + 2], c = data[at + 3];

		switch (op) {
		case 0:
			n = c & 15u;
			if (rte_pktmbuf_alloc_bulk(pool, m, n) != 0)
				break;
			for (i = 0; i < n; i++) {
				uint32_t qid =
					((uint32_t)a << 1 ^ (uint32_t)b * (i + 1)) %
					(p.n_subports * p.n_pipes_per_subport * HSCHED_QUEUES +
					 HSCHED_QUEUES);

				rte_pktmbuf_append(m[i], (uint16_t)(60u + (uint32_t)b * 5u + i));
				m[i]->hash.sched.queue_id = qid;
				m[i]->dynfield1[0] = UINT32_MAX; /* not tracked */
				if ((qid >> 4) < p.n_subports * p.n_pipes_per_subport)
					offered_valid++;
			}
			if (c & 16u) {
				/* One at a time: which were accepted is known, so their
				 * order per queue is checked at the dequeue. */
				for (i = 0; i < n; i++) {
					uint32_t qid = m[i]->hash.sched.queue_id;

					if (qid < MAX_Q)
						m[i]->dynfield1[0] = seq_in[qid];
					k = hsched_enqueue(s, &m[i], 1);
					accepted += k;
					if (k == 1 && qid < MAX_Q)
						seq_in[qid]++;
				}
			} else {
				accepted += hsched_enqueue(s, m, n);
			}
			break;
		case 1:
			now += (uint64_t)a << (b & 31u);
			n = hsched_dequeue(s, m, c & 31u, now);
			dequeued += n;
			for (i = 0; i < n; i++) {
				uint32_t qid = m[i]->hash.sched.queue_id, sq = m[i]->dynfield1[0];

				if (sq == UINT32_MAX)
					continue;
				if (qid >= MAX_Q || sq != seq_out[qid]) {
					fprintf(stderr,
						"queue %u: frame %u out of order (next %u)\n", qid,
						sq, qid < MAX_Q ? seq_out[qid] : 0);
					abort();
				}
				seq_out[qid]++;
			}
			rte_pktmbuf_free_bulk(m, n);
			break;
		case 2:
			if (hsched_pipe_config(s, a & 7u, b & 15u, (int32_t)c - 1) == 0 &&
			    ((a & 7u) >= p.n_subports || (b & 15u) >= p.n_pipes_per_subport ||
			     c > 4)) {
				fprintf(stderr, "pipe_config accepted bad arguments\n");
				abort();
			}
			break;
		case 3:
			if (hsched_subport_rate_set(s, a & 7u, UINT64_C(1) << (b % 48),
						    (uint64_t)c << 4) == 0 &&
			    ((a & 7u) >= p.n_subports || c == 0)) {
				fprintf(stderr, "rate_set accepted bad arguments\n");
				abort();
			}
			hsched_subport_reset(s, a & 7u);
			break;
		default: {
			struct hsched_subport_stats st;
			uint64_t dp, db;

			if (hsched_subport_read_stats(s, a & 7u, &st) == 0)
				for (k = 0; k < HSCHED_TCS; k++)
					counted += st.pkts[k] + st.drop_pkts[k];
			hsched_pipe_read_drops(s, a & 3u, b & 7u, &dp, &db);
			break;
		}
		}
		if (accepted != dequeued + hsched_backlog(s) ||
		    rte_mempool_in_use_count(pool) != hsched_backlog(s)) {
			fprintf(stderr, "accepted %lu, dequeued %lu, backlog %lu, in use %u\n",
				(unsigned long)accepted, (unsigned long)dequeued,
				(unsigned long)hsched_backlog(s), rte_mempool_in_use_count(pool));
			abort();
		}
	}
	for (i = 0; i < p.n_subports; i++) {
		struct hsched_subport_stats st;

		hsched_subport_read_stats(s, i, &st);
		for (k = 0; k < HSCHED_TCS; k++)
			counted += st.pkts[k] + st.drop_pkts[k];
	}
	if (counted != offered_valid) {
		fprintf(stderr, "stats counted %lu of %lu frames offered to valid queues\n",
			(unsigned long)counted, (unsigned long)offered_valid);
		abort();
	}
	hsched_free(s);
	if (rte_mempool_in_use_count(pool) != 0) {
		fprintf(stderr, "%u frames leaked\n", rte_mempool_in_use_count(pool));
		abort();
	}
	return 0;
}

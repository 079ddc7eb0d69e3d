/*
 * hsched: bng-dp's hierarchical scheduler, the default alternative to rte_sched
 * behind hqos.c (docs/dp/hqos.md, "hsched").
 *
 * port -> subport -> pipe -> 13 traffic classes / 16 queues: classes 0..11
 * one queue each, strict priority (0 first); class 12 four queues, WRR by
 * bytes with the profile's weights. Token buckets: per subport, per pipe, and
 * per class for the classes whose rate is below the pipe's (a capped class,
 * its bucket as many ms deep as the pipe's, at least two largest frames);
 * a frame costs pkt_len + frame_overhead bytes of each. Buckets refill lazily
 * from the TSC when their pipe or subport is visited: tokens are kept in
 * byte x TSC-Hz units, so refill (cycles x bytes/s) and cost (bytes x Hz) are
 * exact integer products, no division on the fast path.
 *
 * Pipe profiles are rte_sched's (struct rte_sched_pipe_params) so hqos.c
 * builds one table for both schedulers. Per pipe the hot state is one cache
 * line (buckets, queue positions, non-empty mask, WRR tokens); the per-class
 * buckets and drop counters are in a second array touched only for capped
 * classes and drops. Each subport keeps a two-level bitmap of its pipes with
 * frames, the port one of its subports with frames; dequeue serves one frame
 * per pipe visit, round robin over the pipes with frames.
 *
 * Thread model: everything is the worker's except hsched_subport_rate_set()
 * (one other thread; the worker applies it at its next visit of the subport).
 */
#ifndef BNG_HSCHED_H
#define BNG_HSCHED_H

#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_sched.h>

#define HSCHED_TCS 13
#define HSCHED_QUEUES 16
#define HSCHED_BE_TC 12
#define HSCHED_BE_QUEUES 4
#define HSCHED_MAX_QSIZE 128u /* queue positions are 8-bit */
#define HSCHED_MAX_PIPES_PER_SUBPORT 4096u
#define HSCHED_MAX_SUBPORTS 4096u

struct hsched;

struct hsched_params {
	uint32_t n_subports;	      /* 1..HSCHED_MAX_SUBPORTS */
	uint32_t n_pipes_per_subport; /* power of two, 1..4096 */
	uint32_t qsize;		      /* power of two, 2..HSCHED_MAX_QSIZE */
	uint32_t frame_overhead;      /* bytes added to pkt_len for every bucket */
	uint32_t max_frame;	      /* largest frame + overhead: least class bucket / 2 */
	uint32_t n_profiles;	      /* >= 1: profile 0 is what an unconfigured pipe runs */
	const struct rte_sched_pipe_params *profiles;
	uint64_t subport_rate; /* bytes/s: initial rate of every subport */
	uint64_t subport_size; /* bytes: bucket depth */
	int socket;
};

/* Per class, since the last read (read clears). pkts/bytes: accepted
 * (pkt_len); drop_*: refused (queue full). */
struct hsched_subport_stats {
	uint64_t pkts[HSCHED_TCS];
	uint64_t bytes[HSCHED_TCS];
	uint64_t drop_pkts[HSCHED_TCS];
	uint64_t drop_bytes[HSCHED_TCS];
};

/* NULL with one line in err on bad parameters or no memory. */
struct hsched *hsched_create(const struct hsched_params *p, char *err, size_t errlen);
/* Frees every queued frame too. */
void hsched_free(struct hsched *s);
/* Bytes hsched_create() allocates for p (0: bad parameters). */
uint64_t hsched_memory_footprint(const struct hsched_params *p);

/* Worker (or before the first enqueue). profile < 0: profile 0. Resets the
 * pipe's buckets to half full (as rte_sched), keeps its queued frames. */
int hsched_pipe_config(struct hsched *s, uint32_t subport, uint32_t pipe, int32_t profile);
/* One writer thread at a time (the control thread): a subport's rate
 * (bytes/s) and depth (bytes), taken by the worker at its next visit of the
 * subport; tokens already earned are kept (capped to the new depth). */
int hsched_subport_rate_set(struct hsched *s, uint32_t subport, uint64_t rate, uint64_t size);
/* Worker: take the last rate set now, the subport's bucket half full. */
int hsched_subport_reset(struct hsched *s, uint32_t subport);

/* Worker. Queue from m->hash.sched.queue_id = (subport * pipes + pipe) * 16 +
 * queue (hqos_mark()). Frames refused are freed: a full queue's are counted
 * on the subport's class and the pipe, an out-of-range queue id's only in the
 * return value. Returns the frames accepted. */
uint32_t hsched_enqueue(struct hsched *s, struct rte_mbuf **pkts, uint32_t n);
/* Worker: up to n frames the buckets allow at TSC time now. */
uint32_t hsched_dequeue(struct hsched *s, struct rte_mbuf **pkts, uint32_t n, uint64_t now);

/* Worker: read and clear. */
int hsched_subport_read_stats(struct hsched *s, uint32_t subport, struct hsched_subport_stats *st);
int hsched_pipe_read_drops(struct hsched *s, uint32_t subport, uint32_t pipe, uint64_t *pkts,
			   uint64_t *bytes);
/* Frames queued in the whole port. */
uint64_t hsched_backlog(const struct hsched *s);

#endif /* BNG_HSCHED_H */

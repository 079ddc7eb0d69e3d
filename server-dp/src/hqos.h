/*
 * bng-dp HQoS: the downstream hierarchical scheduler of one DP instance
 * (DPDK rte_sched, 22.11 API).
 *
 * Hierarchy:
 *   port     the instance's data port at [instance] port_rate; its rate is
 *            enforced here by a TSC pacer in hqos_dequeue(): rte_sched's clock
 *            advances with every frame it sends, so on its own it leaves the
 *            port rate to the NIC;
 *   subport  a chunk of subport_pipes pipes (power of two, <= 4096) bound to
 *            one access port at a time, shaped at min(access port rate, port
 *            rate). An access port takes chunks as it needs pipes (densest
 *            first) and gives a chunk back when its last pipe is freed, so
 *            memory follows the session capacity, not access ports x capacity;
 *            access ports - 1 spare chunks let any split of the capacity fit.
 *            An access port with more than subport_pipes subscribers spans
 *            several subports; each gets the access port rate as its ceiling
 *            (work-conserving; the sum can exceed the access port rate,
 *            docs/dp/hqos.md "Subports");
 *   pipe     one subscriber session; 13 traffic classes over 16 queues:
 *            classes 0..11 strict priority, one queue each; class 12 best
 *            effort, 4 queues served by WRR with the QoS profile's be_weights.
 * Rates are Ethernet frame rates on the access line with FCS, without
 * preamble and IFG: frames are enqueued fully encapsulated (QinQ + PPPoE, no
 * FCS), so frame_overhead = HQOS_FRAME_OVERHEAD (4).
 *
 * Pipe profiles (one table per subport, identical in every subport, built at
 * start; rte_sched cannot delete profiles):
 *   0                         drain: the port rate; freed pipes run on it so
 *                             frames still queued for them leave at once;
 *   1 + q                     exact copy of [qos_profile.q];
 *   1 + n_qos + s * n_rungs + k  ladder rung k of shape s: pipe rate rungs[k],
 *                             class caps and WRR weights of the QoS profiles
 *                             of shape s. rungs[] is geometric from
 *                             ladder_min_rate to the port rate in steps of
 *                             ladder_step_bp; an explicit rate is rounded DOWN
 *                             to a rung (error < step / (1 + step)).
 *
 * Pipe reference (uint32, opaque to other stages, fixed layout so that
 * hqos_mark() needs no handle):
 *   bits  4..25  global pipe index = subport * subport_pipes + pipe, which is
 *                also rte_sched's queue id >> 4 (dense ids: the port is
 *                configured with n_pipes_per_subport = subport_pipes);
 *   bits  0..3, 26..31  a 10-bit generation, bumped at every allocation of the
 *                pipe. hqos_mark() copies it into the mbuf (sched.reserved);
 *                hqos_owner() compares it with the pipe's current one, so a
 *                frame queued before its pipe was freed is never attributed to
 *                the next owner.
 *
 * Data layout (allocated once by hqos_create() on the control thread):
 *   owner[n_pipes]   uint64: generation << 32 | session id. Written by the
 *                    control thread with single atomic stores (alloc, set
 *                    owner, free), read by the worker in hqos_owner();
 *   cmds             SP/SC rte_ring of 16-byte struct hqos_cmd: bind a subport
 *                    to an access port, configure / free a pipe. Only the
 *                    worker calls rte_sched after hqos_create();
 *   w_bound, w_active, counters   worker-written; counters are 64-bit and
 *                    written with relaxed atomic stores by the only writer, so
 *                    telemetry may read them at any time (per counter atomic,
 *                    not a snapshot);
 *   pipes, chunks, fifo   control-thread bookkeeping (malloc).
 *
 * Ordering: the control thread enqueues a pipe's commands before it returns
 * from hqos_pipe_alloc(), i.e. before the session that names the pipe is
 * published. hqos_enqueue() applies every pending command before it calls
 * rte_sched_port_enqueue(): a worker that found the session has seen its
 * publication, hence the command (docs/dp/hqos.md "Thread model").
 *
 * Per packet: hqos_mark(), hqos_be_queue_ipv4() and hqos_owner() are static
 * inline, allocate nothing, lock nothing. hqos_enqueue() / hqos_dequeue()
 * wrap rte_sched per burst.
 */

#ifndef BNG_HQOS_H
#define BNG_HQOS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_meter.h>

#include "dp_config.h"

struct rte_ring;
struct rte_sched_port;

/* --- shape and limits ----------------------------------------------------- */

#define HQOS_FRAME_OVERHEAD 4 /* FCS: profile rates include it, mbufs do not */
#define HQOS_MAX_SUBPORT_PIPES 4096u
#define HQOS_MIN_AUTO_SUBPORT_PIPES 16u
#define HQOS_MAX_PIPES (1u << 22) /* 22 bits of pipe index in a reference */
#define HQOS_QUEUES_PER_PIPE 16u

#define HQOS_PIPE_NONE UINT32_MAX	  /* no pipe; never pass it to hqos_mark() */
#define HQOS_OWNER_NONE UINT32_MAX	  /* == SESSION_ID_NONE: stale frame, drop it */
#define HQOS_OWNER_UNSET (UINT32_MAX - 1) /* live pipe whose owner is not named yet */
#define HQOS_REF_QID_MASK 0x03fffff0u	  /* queue id of queue 0 of the pipe */
#define HQOS_GEN_MASK 0x3ffu		  /* 10-bit generation */
#define HQOS_GEN_FREED 0xffffu		  /* owner[] generation of a free pipe */

/* Defaults of struct hqos_params (0 in a field selects its default). */
#define HQOS_DEFAULT_CAPACITY 65536u
#define HQOS_DEFAULT_QSIZE 64u
#define HQOS_DEFAULT_MAX_FRAME 1530u	 /* IPv4 1500 in PPPoE in QinQ, no FCS */
#define HQOS_DEFAULT_LADDER_MIN 64000u	 /* bit/s */
#define HQOS_DEFAULT_LADDER_STEP_BP 100u /* 1% */
#define HQOS_DEFAULT_MAX_PIPE_PROFILES 4096u
#define HQOS_DEFAULT_CMD_RING 4096u
#define HQOS_DEFAULT_STATS_PERIOD_US 10000u
#define HQOS_DEFAULT_SWEEP_PIPES 64u
#define HQOS_DEFAULT_PORT_BURST_US 10000u

/* Traffic-class credit period bounds (ms) and the frames one period must hold. */
#define HQOS_TC_PERIOD_MIN_MS 10u
#define HQOS_TC_PERIOD_MAX_MS 1000u
#define HQOS_TC_PERIOD_FRAMES 100u
#define HQOS_DEFAULT_TB_MS 10u /* token bucket depth, ms of the rate */

/*
 * Parameters of hqos_create(); 0 in a field selects its default.
 *   capacity       pipes to provide (the session capacity);
 *   subport_pipes  pipes per subport (chunk), power of two <= 4096; default:
 *                  the largest whose spare chunks add at most 25% of capacity;
 *   spare_subports chunks beyond ceil(capacity / subport_pipes); default
 *                  access ports - 1 (any split of capacity over the access
 *                  ports fits), < 0: none;
 *   qsize          frames per queue, power of two, 2..4096;
 *   max_frame      largest frame without FCS, 64..9216 (credit periods);
 *   ladder_min_rate, ladder_step_bp   lowest rung (bit/s) and step (basis
 *                  points, 1..10000); the step widens until every ladder fits
 *                  in max_pipe_profiles (per subport);
 *   cmd_ring_size  control -> worker commands in flight;
 *   stats_period_us  subport stats harvest period; sweep_pipes: pipes whose
 *                  queue stats one harvest reads;
 *   port_burst_us  port pacer depth; tb_ms: pipe and subport bucket depth in
 *                  ms of their rate (1..1000): how late the worker may come
 *                  back without losing rate, and the burst after idle;
 *   be_oversubscription  1: rte_sched's best-effort oversubscription control
 *                  (rte_sched only);
 *   scheduler      HQOS_SCHED_HSCHED (hsched.h, qsize <= 128) or
 *                  HQOS_SCHED_RTE_SCHED; 0: HQOS_SCHED_DEFAULT;
 *   socket         < 0: the caller's socket.
 */
struct hqos_params {
	uint32_t capacity;
	uint32_t subport_pipes;
	int32_t spare_subports;
	uint16_t qsize;
	uint16_t max_frame;
	uint64_t ladder_min_rate;
	uint32_t ladder_step_bp;
	uint32_t max_pipe_profiles;
	uint32_t cmd_ring_size;
	uint32_t stats_period_us;
	uint32_t sweep_pipes;
	uint32_t port_burst_us;
	uint32_t tb_ms;
	uint8_t be_oversubscription;
	uint8_t scheduler;
	int socket;
};

/* The scheduler under the module: hsched (hsched.h) or DPDK's rte_sched. */
enum hqos_sched_kind {
	HQOS_SCHED_DEFAULT = 0,
	HQOS_SCHED_HSCHED = 1,
	HQOS_SCHED_RTE_SCHED = 2,
};
#define HQOS_SCHED_DEFAULT_KIND HQOS_SCHED_HSCHED

/* "hsched" / "rte_sched" -> the kind; 0 for an unknown name. */
uint8_t hqos_sched_parse(const char *name);
const char *hqos_sched_name(uint8_t kind);

/* Per traffic class, 64-bit, monotonic. pkts/bytes: accepted into the queues
 * (frame bytes without FCS); drop_*: refused by rte_sched (queue full). */
struct hqos_tc_counters {
	uint64_t pkts[DP_NUM_TCS];
	uint64_t bytes[DP_NUM_TCS];
	uint64_t drop_pkts[DP_NUM_TCS];
	uint64_t drop_bytes[DP_NUM_TCS];
};

enum hqos_scope { HQOS_SCOPE_TOTAL, HQOS_SCOPE_ACCESS_PORT, HQOS_SCOPE_SUBPORT };

/* Worker counters (one writer, relaxed atomic stores). */
struct hqos_worker_counters {
	uint64_t enq_pkts;  /* accepted by hqos_enqueue() */
	uint64_t enq_drops; /* refused and freed by rte_sched */
	uint64_t deq_pkts;
	uint64_t deq_wire_bytes; /* frame + FCS: what the pacer charged */
	uint64_t pacer_waits;	 /* hqos_dequeue() calls refused by the port pacer */
	uint64_t cmds;		 /* commands applied */
	uint64_t cmd_errors;	 /* commands refused (never expected) */
	uint64_t harvests;
};

/* A control -> worker command (the ring's 16-byte element). */
enum hqos_cmd_op { HQOS_CMD_BIND = 1, HQOS_CMD_ALLOC, HQOS_CMD_MODIFY, HQOS_CMD_FREE };
struct hqos_cmd {
	uint8_t op;
	uint8_t pad;
	uint16_t access_port; /* BIND */
	uint32_t index;	      /* BIND: subport; others: global pipe index */
	uint32_t profile;     /* ALLOC, MODIFY */
	uint32_t pad2;
};

/* Control-thread state of one pipe. */
struct hqos_pipe_ctl {
	uint64_t rate_req; /* bit/s asked (0: the profile's) */
	uint64_t gbr;	   /* bit/s contracted downstream (QER GBR DL), 0: none */
	uint32_t profile;  /* rte_sched pipe profile */
	uint16_t gen;	   /* generation of the current / last allocation */
	uint16_t access_port;
	uint16_t qos;
	uint8_t allocated;
	uint8_t pad;
};

/* Control-thread state of one chunk (rte_sched subport). */
struct hqos_chunk {
	uint32_t used;	    /* allocated pipes */
	uint32_t fifo_head; /* free pipes: fifo[c * subport_pipes + (head + i) % S] */
	uint32_t fifo_count;
	uint16_t access_port; /* HQOS_UNBOUND when it holds no pipe */
	uint16_t pad;
};
#define HQOS_UNBOUND 0xffffu

struct hqos_pipe_info {
	uint16_t access_port;
	uint16_t qos_profile;
	uint32_t subport;
	uint32_t pipe;	   /* within the subport */
	uint32_t profile;  /* rte_sched pipe profile */
	uint64_t rate_req; /* as asked */
	uint64_t rate_bps; /* what the pipe is shaped to */
	uint32_t owner;	   /* session id, HQOS_OWNER_UNSET */
};

struct hsched;

struct hqos {
	/* --- worker: read per packet / per burst --- */
	struct rte_sched_port *port; /* rte_sched, or NULL */
	struct hsched *hs;	     /* hsched, or NULL */
	uint64_t *owner;	     /* [n_pipes] gen << 32 | session; control writes */
	struct rte_ring *cmds;
	int64_t pace_credit; /* port pacer, bytes << HQOS_PACE_SHIFT */
	int64_t pace_depth;
	uint64_t pace_per_cycle; /* bytes per TSC cycle << HQOS_PACE_SHIFT */
	uint64_t pace_max_cycles;
	uint64_t pace_tsc;
	/* hqos_port_rate_set(): the control thread writes depth, then per_cycle
	 * (release); the worker compares per_cycle at every dequeue with a backlog */
	uint64_t pace_req_per_cycle;
	int64_t pace_req_depth;
	uint64_t backlog; /* frames inside rte_sched (worker only): 0 = nothing to dequeue */
	uint64_t next_harvest;
	uint64_t harvest_cycles;
	uint32_t sweep_cursor;
	uint32_t sweep_pipes;
	struct hqos_worker_counters wc;
	/* --- worker: written by the worker only, read by telemetry --- */
	uint16_t *w_bound;		     /* [n_chunks] access port of a subport's stats */
	uint8_t *w_active;		     /* [n_pipes] configured pipes (queue stats sweep) */
	uint32_t *w_profile;		     /* [n_pipes] profile applied, UINT32_MAX: none */
	uint64_t *pipe_drops;		     /* [2 * n_pipes] packets, bytes dropped */
	struct hqos_tc_counters *st_subport; /* [n_chunks] */
	struct hqos_tc_counters *st_port;    /* [n_access_ports] */
	struct hqos_tc_counters st_total;
	/* --- read-only after hqos_create() --- */
	uint32_t n_pipes;    /* n_chunks * subport_pipes */
	uint32_t n_chunks;   /* subports that hold pipes */
	uint32_t n_subports; /* rte_sched subports: n_chunks rounded up to a power of two */
	uint32_t subport_pipes;
	uint32_t qsize;
	uint32_t max_frame;
	uint16_t n_access_ports;
	uint16_t n_qos;
	uint32_t n_shapes;
	uint32_t n_rungs;
	uint32_t n_profiles;	 /* per subport */
	uint32_t ladder_step_bp; /* effective (widened to fit max_pipe_profiles) */
	uint64_t port_rate;	 /* bit/s: the ceiling of the pacer and of every subport */
	uint64_t *rungs;	 /* [n_rungs] bit/s, ascending, multiples of 8 */
	uint16_t shape_of[DP_MAX_QOS_PROFILES];
	uint64_t exact_rate[DP_MAX_QOS_PROFILES]; /* shaped rate of profile 1 + q */
	uint64_t down_rate[DP_MAX_QOS_PROFILES];  /* as configured */
	uint64_t mem_bytes;
	uint8_t sched_kind;
	uint32_t tb_ms;
	uint32_t frame_bytes; /* max_frame + FCS */
	uint32_t port_burst_us;
	uint64_t pace_rate; /* bit/s, the pacer rate last set (control thread) */
	/* access port a's subport rate (bytes/s) and depth (bytes), [a]: hsched,
	 * control thread only (hqos_access_port_rate_set(), hqos_pipe_alloc()) */
	uint64_t sub_rate[DP_MAX_ACCESS_PORTS];
	uint64_t sub_size[DP_MAX_ACCESS_PORTS];
	/* --- control thread only --- */
	uint64_t gbr_sum[DP_MAX_ACCESS_PORTS];	 /* bit/s, the live pipes' gbr per access port */
	uint32_t gbr_pipes[DP_MAX_ACCESS_PORTS]; /* live pipes with a gbr, per access port */
	struct hqos_pipe_ctl *pipes;		 /* [n_pipes] */
	struct hqos_chunk *chunks;		 /* [n_chunks] */
	uint16_t *fifo;				 /* [n_pipes] */
	uint32_t n_allocated;
};

#define HQOS_PACE_SHIFT 24

/* --- control thread ----------------------------------------------------- */

/* Every field of p set to its default (capacity HQOS_DEFAULT_CAPACITY). */
void hqos_params_default(struct hqos_params *p);

/*
 * Build the scheduler of a loaded configuration: rte_sched port, every subport
 * with the whole profile table, the command ring and the tables above. p may
 * be NULL (defaults). The EAL must be up. Returns NULL with a one-line
 * message in err when a parameter is out of range, a rate is one rte_sched
 * would refuse or starve (e.g. "qos_profile.2 'bronze': down_rate 1 bit/s is
 * not in the HQoS range 12272..25000000000 ..."), or memory runs out.
 */
struct hqos *hqos_create(const struct dp_config *cfg, const struct hqos_params *p, char *err,
			 size_t errlen);

/* Free everything (queued frames included). The worker must be stopped. */
void hqos_free(struct hqos *h);

/*
 * Bytes hqos_create() would take for cfg and p (rte_sched's own footprint of
 * every subport, plus this module's tables), without allocating. 0 and a
 * message on a bad configuration.
 */
uint64_t hqos_memory_estimate(const struct dp_config *cfg, const struct hqos_params *p, char *err,
			      size_t errlen);

/* Heap bytes hqos_create() took (rte_malloc delta on its socket + malloc'd tables). */
uint64_t hqos_memory_bytes(const struct hqos *h);

/*
 * The rate a pipe of qos_profile asked for rate_bps gets (bit/s): the exact
 * profile when rate_bps is 0 or the profile's down_rate, else the highest
 * rung <= min(rate_bps, port rate). 0 when the profile or rate is invalid.
 */
uint64_t hqos_rate_effective(const struct hqos *h, uint16_t qos_profile, uint64_t rate_bps);

/*
 * Allocate a pipe on access_port shaped by qos_profile at rate_bps (0: the
 * profile's down_rate; otherwise rounded down to a rung). *pipe_ref receives
 * the reference to store in the session before publishing it. Returns 0;
 * -EINVAL: access port, profile or rate out of range (rate below the lowest
 * rung); -ENOSPC: no free pipe for that access port; -EAGAIN: the command
 * ring is full (the worker is not applying), nothing changed.
 */
int hqos_pipe_alloc(struct hqos *h, uint16_t access_port, uint16_t qos_profile, uint64_t rate_bps,
		    uint32_t *pipe_ref);

/* New profile / rate of a live pipe (e.g. a CoA). Errors as above, -ENOENT
 * for a reference that is not live. The pipe's credits restart. */
int hqos_pipe_modify(struct hqos *h, uint32_t pipe_ref, uint16_t qos_profile, uint64_t rate_bps);

/* Name the session that owns a live pipe (immediate, one atomic store). */
int hqos_pipe_set_owner(struct hqos *h, uint32_t pipe_ref, uint32_t session_id);

/* Free a live pipe: from now on hqos_owner() is HQOS_OWNER_NONE for its
 * frames; the worker deactivates it (drain profile). -ENOENT, -EAGAIN. */
int hqos_pipe_free(struct hqos *h, uint32_t pipe_ref);

/* Control view of a live pipe. */
int hqos_pipe_info(const struct hqos *h, uint32_t pipe_ref, struct hqos_pipe_info *out);

/* Pipes allocated on an access port (control thread). */
uint32_t hqos_access_port_pipes(const struct hqos *h, uint16_t access_port);

/* Control thread: the downstream rate a live pipe's session has contracted
 * (the QER's GBR DL, bit/s; 0: none), kept for hqos_access_port_guaranteed();
 * it does not shape. A new allocation starts with none. -ENOENT, -EINVAL. */
int hqos_pipe_set_guaranteed(struct hqos *h, uint32_t pipe_ref, uint64_t gbr_bps);
/* Control thread, O(access ports x subports): the sum of the contracted rates (bit/s) of
 * the pipes on access_port (HQOS_UNBOUND: on every access port), a pipe
 * without one counted as dflt_bps. */
uint64_t hqos_access_port_guaranteed(const struct hqos *h, uint16_t access_port, uint64_t dflt_bps);

/*
 * Control thread, hsched only: the rate (bit/s, frame rate as everywhere
 * here) of the subports of an access port from now on, min(rate, port rate);
 * every subport bound to it takes the new rate at the worker's next visit
 * (two atomic stores per subport, no command, no stop), later bindings too.
 * The bucket depth follows (tb_ms of the rate). -EINVAL: bad access port or a
 * rate below one frame per second; -ENOTSUP: rte_sched (it can only switch
 * among its subport profiles).
 */
int hqos_access_port_rate_set(struct hqos *h, uint16_t access_port, uint64_t rate_bps);
/*
 * Control thread, either scheduler: the port pacer's rate (bit/s) from now on,
 * <= [instance] port_rate (the ceiling: the pipe ladder and the subport rates
 * are planned up to it). The depth follows (port_burst_us of the rate, at
 * least 4 largest frames). Two atomic stores; the worker takes them at its
 * next dequeue with frames queued and keeps the credit it had, capped to the
 * new depth. -EINVAL: below one frame per second or above the ceiling.
 */
int hqos_port_rate_set(struct hqos *h, uint64_t rate_bps);
/* The pacer rate last set (bit/s; port_rate until hqos_port_rate_set()). */
uint64_t hqos_port_rate_get(const struct hqos *h);

/* Control thread: the sum of the shaped rates (bit/s) of the pipes allocated on
 * access_port (HQOS_UNBOUND: on every access port); walks every pipe. */
uint64_t hqos_access_port_pipe_rate(const struct hqos *h, uint16_t access_port);

/* --- any thread (telemetry) -------------------------------------------- */

/* Copy the counters of the whole port, an access port or a subport (chunk). */
int hqos_stats_read(const struct hqos *h, enum hqos_scope scope, uint32_t index,
		    struct hqos_tc_counters *out);
void hqos_worker_counters_read(const struct hqos *h, struct hqos_worker_counters *out);

/* Queue drops of a pipe since its allocation, as far as the sweep has read
 * them (a full sweep takes n_pipes / sweep_pipes harvests). */
int hqos_pipe_drops(const struct hqos *h, uint32_t pipe_ref, uint64_t *pkts, uint64_t *bytes);

/* --- worker ---------------------------------------------------------------- */

/* Top of every loop iteration: apply pending commands; harvest the stats
 * every stats_period_us (now: rte_rdtsc()). */
void hqos_worker_apply(struct hqos *h, uint64_t now);

/* Apply pending commands, then enqueue marked frames. Returns how many were
 * accepted; rte_sched has freed the others (counted in enq_drops). */
uint32_t hqos_enqueue(struct hqos *h, struct rte_mbuf **pkts, uint32_t n);

/* Up to n frames the port pacer lets through now. */
uint32_t hqos_dequeue(struct hqos *h, struct rte_mbuf **pkts, uint32_t n);

static inline uint32_t
hqos_ref_pipe(uint32_t pipe_ref)
{
	return (pipe_ref & HQOS_REF_QID_MASK) >> 4;
}

static inline uint32_t
hqos_ref_gen(uint32_t pipe_ref)
{
	return (pipe_ref & 0xfu) | ((pipe_ref >> 22) & 0x3f0u);
}

static inline uint32_t
hqos_ref_make(uint32_t pipe, uint32_t gen)
{
	return ((gen & 0x3f0u) << 22) | (pipe << 4) | (gen & 0xfu);
}

/*
 * Write the scheduler path of a frame: the pipe of pipe_ref, class tc
 * (0..12, larger values are best effort) and, for best effort, WRR queue
 * be_queue (0..3), colour green, and the pipe's generation. Same queue id as
 * rte_sched_port_pkt_write() for this port's layout, without the call.
 */
static inline void
hqos_mark(struct rte_mbuf *m, uint32_t pipe_ref, uint8_t tc, uint8_t be_queue)
{
	uint32_t q = tc < DP_TC_BEST_EFFORT ? tc : DP_TC_BEST_EFFORT + (be_queue & 3u);

	m->hash.sched = (struct rte_mbuf_sched){
		.queue_id = (pipe_ref & HQOS_REF_QID_MASK) | q,
		.traffic_class = (uint8_t)(tc < DP_TC_BEST_EFFORT ? tc : DP_TC_BEST_EFFORT),
		.color = RTE_COLOR_GREEN,
		.reserved = (uint16_t)hqos_ref_gen(pipe_ref),
	};
}

/*
 * Best-effort queue 0..3 of an IPv4 packet from a multiplicative hash of its
 * addresses and protocol, so one subscriber's flows spread over the WRR
 * queues and each flow stays in order. ip must have 20 readable bytes.
 */
static inline uint8_t
hqos_be_queue_ipv4(const uint8_t *ip)
{
	uint32_t s, d, x;

	memcpy(&s, ip + 12, sizeof(s));
	memcpy(&d, ip + 16, sizeof(d));
	x = (s ^ d ^ ((uint32_t)ip[9] << 16)) * 0x9e3779b1u;
	x ^= x >> 15;
	x *= 0x85ebca6bu;
	return (uint8_t)(x >> 30);
}

/*
 * The session that owned the pipe of a dequeued frame when it was marked:
 * HQOS_OWNER_NONE when the pipe has been freed (and maybe reallocated) since:
 * the frame belongs to a deleted session, drop it; HQOS_OWNER_UNSET in the
 * short window between hqos_pipe_alloc() and hqos_pipe_set_owner(): forward,
 * but there is no session to count it on.
 */
static inline uint32_t
hqos_owner(const struct hqos *h, const struct rte_mbuf *m)
{
	uint64_t e = __atomic_load_n(&h->owner[m->hash.sched.queue_id >> 4], __ATOMIC_RELAXED);

	if ((uint32_t)(e >> 32) != m->hash.sched.reserved)
		return HQOS_OWNER_NONE;
	return (uint32_t)e;
}

#endif /* BNG_HQOS_H */

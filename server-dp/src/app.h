/*
 * bng-dp: one DP instance process.
 *
 * Threads (run-to-completion mode):
 *   worker   one lcore (the [instance] worker_cores entry): receives bursts on
 *            the data port and runs every per-packet stage for both directions
 *            and the HQoS dequeue, then transmits (worker.h);
 *   control  the EAL main lcore: the PFCP user-plane function and the VXLAN
 *            control redirect on ordinary UDP sockets of the management
 *            interface, the ARP resolver and LCP echo timers, and every table
 *            update (control.h);
 *   telemetry DPDK's own thread, answering /bng/... commands (telemetry.c).
 *
 * The worker never blocks, allocates (beyond mbufs from its pool), locks or
 * makes a system call per packet; it sleeps only when idle and only when
 * --idle-sleep-us asks for it. Control -> worker hand-offs are lock-free:
 * tables through RCU QSBR (session.h) or single atomic stores, frames to send
 * through the inject ring, rte_sched changes through the HQoS command ring.
 * Worker -> control: punted frames through the punt ring.
 */

#ifndef BNG_APP_H
#define BNG_APP_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mempool.h>
#include <rte_ring.h>

#include "classify.h"
#include "dp_config.h"
#include "session.h"

#define APP_BURST 32
#define APP_RING_SIZE 4096 /* punt and inject rings, entries */

/* Run-time options (command line after the EAL's "--"). */
struct app_opts {
	const char *config_path;
	const char *port_name;	/* DPDK device name; NULL = the only port */
	uint32_t sessions;	/* session capacity */
	uint32_t idle_sleep_us; /* 0 = busy-poll */
	uint32_t mbufs;		/* mbufs in the pool */
	uint16_t rx_desc;
	uint16_t tx_desc;
};

/* Worker counters beyond the classifier's; plain stores by the worker. */
enum app_drop {
	APP_DROP_NO_SESSION_DOWN, /* downstream address of no session */
	APP_DROP_SPOOF,		  /* upstream source is not the session's address */
	APP_DROP_REWRITE,	  /* a rewrite stage refused the frame */
	APP_DROP_TX,		  /* the port did not take the frame */
	APP_DROP_IPOE,		  /* IPoE: parsed and counted, not forwarded this wave */
	APP_DROP_IPV6,		  /* IPv6 in PPPoE: parsed and counted, not forwarded */
	APP_DROP_PUNT,		  /* control frame with no way to the CP */
	APP_DROP_NO_ROUTE,
	APP_DROP_TTL,
	APP_DROP_MAX
};

extern const char *const app_drop_names[APP_DROP_MAX];

struct app_worker_stats {
	uint64_t rx_pkts;
	uint64_t rx_bursts;
	uint64_t tx_pkts;
	uint64_t up_pkts; /* forwarded to the core */
	uint64_t up_bytes;
	uint64_t down_pkts; /* forwarded to subscribers */
	uint64_t down_bytes;
	uint64_t drop[APP_DROP_MAX];
	uint64_t idle_sleeps;
	struct cls_counters cls;
} __rte_cache_aligned;

struct app {
	struct app_opts opts;
	struct dp_config *cfg;
	struct line_map *lmap;
	struct session_tables *sessions;
	struct rte_mempool *pool;
	struct rte_ring *punt_ring;   /* worker -> control */
	struct rte_ring *inject_ring; /* control -> worker, frames to transmit */
	uint16_t port_id;
	unsigned int worker_lcore;
	uint64_t start_time; /* seconds since the epoch: the Recovery Time Stamp */
	volatile bool stop;
	struct app_worker_stats wstats;
};

#endif /* BNG_APP_H */

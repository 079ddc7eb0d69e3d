/*
 * bng-dp: one DP instance process.
 *
 * Threads (run-to-completion mode):
 *   worker    one lcore (the [instance] worker_cores entry): receives bursts on
 *             the data port and runs every per-packet stage for both
 *             directions and the HQoS dequeue, then transmits (worker.h);
 *   control   the EAL main lcore: the PFCP user-plane function and the VXLAN
 *             control redirect on ordinary UDP sockets of the management
 *             interface, ARP, the LCP echo timers, and every table update
 *             (control.h, subs.h);
 *   telemetry DPDK's own thread, answering /bng/... commands (telemetry.h).
 *
 * The worker never blocks, allocates (beyond mbufs from its pools), locks or
 * makes a system call per packet; it sleeps only when idle and only when
 * --idle-sleep-us asks for it. Control -> worker hand-offs are lock-free:
 * session tables through RCU QSBR (session.h), policer rates through a
 * sequence count (police.h), ARP entries through generation-checked words
 * (neigh.h), the LCP offload flag and punt classes through single atomic
 * stores, HQoS pipe changes through rte_sched commands the worker applies
 * itself (hqos.h), frames to send through the inject ring. Worker -> control:
 * frames for the CP through the punt ring (punt.h), ARP frames through the
 * ARP ring.
 *
 * Stage order (worker.c):
 *   upstream    classify, session lookup (miss: punt, the CP answers PADT),
 *               anti-spoofing, ACL, trTCM policer, route, TTL, DSCP, MSS
 *               clamp, next hop, decapsulation, transmit;
 *   downstream  classify, session lookup by destination, ACL, TTL, traffic
 *               class from DSCP, MSS clamp, MTU (fragment or ICMP),
 *               encapsulation, HQoS enqueue; HQoS dequeue, transmit;
 *   control     PPPoE discovery and PPP control to the CP (punt), LCP echoes
 *               of offloaded sessions answered in place; ARP to the control
 *               thread.
 */

#ifndef BNG_APP_H
#define BNG_APP_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mempool.h>
#include <rte_ring.h>

#include "acl.h"
#include "arpping.h"
#include "classify.h"
#include "dp_config.h"
#include "frag.h"
#include "hqos.h"
#include "hqos_batch.h"
#include "icmp.h"
#include "icmp6.h"
#include "lcp.h"
#include "neigh.h"
#include "pfcp_up.h"
#include "police.h"
#include "punt.h"
#include "ra.h"
#include "rewrite.h"
#include "route.h"
#include "session.h"

#define APP_BURST 32
#define APP_RING_SIZE 4096 /* punt, ARP and inject rings, entries */
#define APP_FRAG_MAX 8	   /* fragments of one packet (MTU >= 576, 9000-byte packets at most) */
#define APP_TX_MAX 512	   /* frames one iteration may transmit or queue */

/* Run-time options (command line after the EAL's "--"). */
struct app_opts {
	const char *config_path;
	const char *port_name;	       /* DPDK device name; NULL = the only port */
	uint32_t sessions;	       /* session capacity */
	uint32_t idle_sleep_us;	       /* 0 = busy-poll */
	uint32_t hqos_batch;	       /* 0: adaptive; N: fixed HQoS dequeue batch (hqos_batch.h) */
	uint32_t mbufs;		       /* mbufs in the pool */
	uint16_t qsize;		       /* HQoS frames per queue */
	int32_t hqos_spare_subports;   /* 0: HQoS default; < 0: none (sessions spread evenly) */
	uint32_t hqos_stats_period_us; /* 0: HQoS default (10 ms) */
	uint8_t hqos_sched;	       /* 0: HQoS default; enum hqos_sched_kind */
	const char *qos_share_path;    /* --qos-share FILE (share_ctl.h); NULL: none */
	uint32_t workers; /* worker lcores: 1 (run to completion) or 2 (split, worker.h) */
	uint16_t rx_desc;
	uint16_t tx_desc;
};

/*
 * Worker drop reasons beyond the classifier's, one counter each. Every frame
 * the worker receives ends in exactly one place: transmitted, queued in HQoS,
 * handed to the control thread (punt or ARP ring), answered in place (LCP
 * echo, ICMP error: the frame becomes the answer), or freed with exactly one
 * of these counters (or a classifier drop counter) incremented. The list,
 * with each reason's telemetry name, is app_drop.def.
 */
enum app_drop {
#define APP_DROP_DEF(sym, name) APP_DROP_##sym,
#include "app_drop.def"
#undef APP_DROP_DEF
	APP_DROP_MAX
};

extern const char *const app_drop_names[APP_DROP_MAX];

/* Worker counters; plain stores by the one worker, read by telemetry. */
struct app_worker_stats {
	uint64_t rx_pkts;
	uint64_t rx_bursts;
	uint64_t tx_pkts;
	uint64_t up_pkts; /* forwarded to the core; bytes: IPv4 total length */
	uint64_t up_bytes;
	uint64_t down_pkts; /* accepted into HQoS towards subscribers; IPv4 bytes */
	uint64_t down_bytes;
	uint64_t down_sent; /* left HQoS and handed to the port */
	uint64_t up6_pkts;  /* the IPv6 share of up_* (bytes: 40 + payload length) */
	uint64_t up6_bytes;
	uint64_t down6_pkts; /* the IPv6 share of down_* */
	uint64_t down6_bytes;
	uint64_t v6_punted; /* IPv6 control of sessions (RS, NS, NA, DHCPv6) offered to the CP */
	uint64_t punted;    /* put on the punt ring (to the CP) */
	uint64_t arp_to_control;
	uint64_t lcp_answered;	   /* Echo-Requests answered in place */
	uint64_t lcp_consumed;	   /* Echo-Replies recorded */
	uint64_t ipoe_arp_replies; /* IPoE ARP requests answered in place (gateway, proxy) */
	uint64_t ipoe_na_replies;  /* IPoE IPv6 NS answered in place (BNG link-local, proxy) */
	uint64_t ipoe6_punted;	   /* IPoE RS and DHCPv6 offered to the CP (class dhcp) */
	uint64_t icmp_sent;	   /* ICMP errors transmitted (the frame became the error) */
	uint64_t fragmented;	   /* packets split; their fragments count in down_pkts */
	uint64_t injected;	   /* frames of the control thread transmitted */
	uint64_t drop[APP_DROP_MAX];
	uint64_t idle_sleeps;
	uint64_t idle_sleeps_held; /* idle polls that did not sleep: frames waited in HQoS */
	struct cls_counters cls;
	struct route_counters route;
	struct acl_counters acl;
	struct icmp_counters icmp;
	struct frag_counters frag;
	struct icmp6_counters icmp6;
} __rte_cache_aligned;

/* Worker-private cache of the core Ethernet header of each line group. */
struct app_core_hdr {
	uint64_t nh_mac; /* the next-hop MAC key the header was built for; 0 = none */
	struct rw_core_tmpl t;
};

/* Frames one worker iteration produced. */
struct app_out {
	struct rte_mbuf *tx[APP_TX_MAX];
	struct rte_mbuf *sched[APP_TX_MAX];
	uint16_t n_tx;
	uint16_t n_sched;
};

struct app {
	struct app_opts opts;
	struct dp_config *cfg;
	/*
	 * The line map the worker classifies with. The control thread builds a
	 * new one in lmap_spare when a line group is adopted or released,
	 * publishes it with one release store, waits for a QSBR grace period of
	 * the session tables, and keeps the old one as the next spare.
	 */
	struct line_map *lmap;
	struct line_map *lmap_spare; /* control thread only */
	struct session_tables *sessions;
	struct rte_mempool *pool;
	struct rte_ring *punt_ring;   /* worker -> control: frames for the CP */
	struct rte_ring *arp_ring;    /* worker -> control: ARP frames */
	struct rte_ring *inject_ring; /* control -> worker: frames to transmit */
	/* per-packet stages (worker), configured by the control thread */
	struct hqos *hqos;
	struct police *police;
	struct neigh_table *neigh;
	struct route_table *routes;
	struct acl *acl;
	struct punt *punt;
	struct lcp *lcp;
	struct arpping *arpping; /* IPoE ARP ping (control thread; replies counted by the worker) */
	struct ra_table *ra;	 /* RA offload (control thread) */
	struct frag_pools *frag;
	struct rw_pcp_map pcp; /* traffic class -> PCP of the access tags */
	/* worker only */
	struct icmp_state icmp;
	struct app_core_hdr *core_hdr; /* [DP_MAX_LINE_GROUPS] */
	struct app_out *out;
	struct hqos_batch batch; /* the HQoS dequeue batch (hqos_batch.h) */
	uint32_t rx_last;	 /* frames of the last receive burst: the load the batch sees */
	int hqos_tried;		 /* the last flush asked the scheduler for frames */
	/* The core router's IPv6 MAC (mac_key), 0 while unresolved: written by
	 * the control thread's Neighbor Discovery (atomic), read by the worker. */
	uint64_t router6_mac;
	/* control thread only */
	struct pfcp_up *pfcp;
	uint16_t port_id;
	bool port_ready; /* started: stop and close it at the end */
	unsigned int worker_lcore;
	uint64_t start_time; /* seconds since the epoch: the Recovery Time Stamp */
	volatile bool stop;
	/*
	 * Split mode (--workers 2, worker.h): the upstream worker runs on this
	 * struct and hands downstream frames over down_ring to the downstream
	 * worker, which runs the same stage code on its own view (down): a copy
	 * of this struct taken before launch, with its own worker-only fields
	 * and tx_queue 1, and main pointing back here. One worker: down_ring,
	 * down and main are NULL, tx_queue and the RX queue are 0.
	 */
	struct rte_ring *down_ring;
	struct app *down;
	struct app *main;
	unsigned int down_lcore;
	uint16_t tx_queue;    /* the data port's TX queue of the worker running on this view */
	uint16_t n_rx_queues; /* RX queues the (upstream) worker polls */
	struct app_worker_stats wstats;
};

#endif /* BNG_APP_H */

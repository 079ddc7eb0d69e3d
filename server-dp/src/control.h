/*
 * bng-dp control thread (EAL main lcore).
 *
 * Owns the management-side sockets, bound to the instance's control address
 * on the kernel management interface (never the DPDK data port):
 *   PFCP   UDP [instance] pfcp_port (8805): the user-plane function (pfcp_up.h,
 *          its data-path side in subs.h);
 *   VXLAN  UDP [instance] vxlan_port (4789): control frames to and from the CP.
 * Datagrams from any address other than [instance] cp_address are dropped and
 * counted before any parsing.
 *
 * The loop waits in epoll for at most CONTROL_TICK_MS, then:
 *   - drains the punt ring: each frame into VXLAN (VNI = instance id) to the
 *     redirect target the CP's default session set (static fallback: the
 *     configured CP address and VXLAN port);
 *   - drains the ARP ring through the neighbour table, answers go to the
 *     inject ring;
 *   - runs the timers: ARP (neigh_tick), LCP echoes (lcp_tick), PFCP
 *     heartbeats, retransmissions and usage reports (pfcp_up_tick), session
 *     id reclaim.
 * It is the only writer of every table the worker reads.
 */
#ifndef BNG_CONTROL_H
#define BNG_CONTROL_H

#include "app.h"
#include "vxlan.h"

#define CONTROL_TICK_MS 1
#define CONTROL_RX_BATCH 256 /* datagrams read per socket per wake-up */

struct control_stats {
	uint64_t pfcp_rx;
	uint64_t pfcp_tx;
	uint64_t pfcp_tx_errors;
	uint64_t pfcp_not_allowed;
	uint64_t vxlan_rx;
	uint64_t vxlan_not_allowed;
	uint64_t vxlan_bad;	 /* refused by vxlan_decap() */
	uint64_t inject_refused; /* refused by vxlan_inject_check() */
	uint64_t injected_cp;	 /* CP frames put on the inject ring */
	uint64_t punt_tx;	 /* frames sent to the CP in VXLAN */
	uint64_t punt_tx_errors;
	uint64_t arp_rx;	     /* ARP frames handed over by the worker */
	uint64_t arp_tx;	     /* ARP frames we built (replies, requests, announcements) */
	uint64_t lcp_tx;	     /* LCP Echo-Requests we built */
	uint64_t lcp_dead;	     /* sessions the offload declared dead */
	uint64_t arpping_tx;	     /* IPoE ARP pings sent */
	uint64_t arpping_dead;	     /* IPoE sessions the ARP ping declared dead */
	uint64_t inject_full;	     /* frames the inject ring or the pool had no room for */
	uint64_t nd_rx;		     /* Neighbor Solicitations / Advertisements handed over */
	uint64_t nd_bad;	     /* refused by nd_parse() */
	uint64_t nd_tx;		     /* NA and NS we built */
	uint64_t nd_router_resolved; /* times the router's IPv6 MAC was learnt or changed */
	struct vxlan_counters vxlan;
};

extern struct control_stats control_stats;

/* Where punted frames go (set by the PFCP default session or the fallback). */
struct control_redirect {
	uint32_t cp_ip; /* host order */
	uint16_t cp_port;
	uint32_t classes; /* PUNT_REDIRECT_* */
};

/* Point the control redirect at r (control thread). */
void control_redirect_set(struct app *a, const struct control_redirect *r);
void control_redirect_get(struct control_redirect *r);

/* Put a frame built by the control thread on the inject ring; 0 or -1 (counted). */
int control_inject(struct app *a, const uint8_t *frame, uint16_t len);

/* Open and bind the sockets; 0, or -1 with a message on stderr. */
int control_init(struct app *a);

/* Send an unsolicited Neighbor Advertisement for every served group's core
 * IPv6 address (at start and after an adoption) and ask for the router. */
void control_nd_announce(struct app *a);
/* Serve until a->stop; then return. */
void control_run(struct app *a);
/* Close the sockets and release what control_init() took. */
void control_fini(struct app *a);

/* Milliseconds of CLOCK_MONOTONIC. */
uint64_t control_now_ms(void);

#endif /* BNG_CONTROL_H */

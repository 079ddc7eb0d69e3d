/* The generator's ports: DPDK virtual devices, possibly in other network namespaces (an
 * af_packet or af_xdp socket belongs to the namespace it was opened in, so the device is
 * probed after a setns() there), one RX and one TX queue each; and the ARP responder that
 * answers for an address on a core-side port so that a router can send to it, and its IPv6
 * counterpart, the Neighbor Solicitation responder. */
#ifndef LRGEN_PORTS_H
#define LRGEN_PORTS_H

#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

struct lr_port {
	uint16_t id;
	char netns[64]; /* "" : the process's own */
	struct rte_ether_addr mac;
	uint32_t arp_ip;    /* network order; 0: no ARP answers */
	uint32_t lcp_magic; /* answer LCP Echo-Requests with this magic number; 0: do not */
	int has_nd;	    /* answer Neighbor Solicitations for nd_ip */
	uint8_t nd_ip[16];
	uint64_t tx, tx_fail, rx, arp_replies, lcp_replies, nd_replies;
};

/* Enters network namespace ns (a name under /run/netns; "" or NULL: stays) and returns a
 * descriptor of the one left (-2 when nothing changed), or -1 with err set. Every control
 * operation on a port of another namespace runs in it: af_packet's PMD sets interface flags
 * (promiscuous mode, link) by name through a socket of the calling thread's namespace. */
int lr_netns_enter(const char *ns, char *err, size_t errlen);
void lr_netns_leave(int self);

/* Probes devargs (e.g. "net_af_packet0,iface=sub0") inside network namespace ns and starts
 * the port there with pool; fills p. Returns 0 or -1 with err set. */
int lr_port_open(struct lr_port *p, const char *ns, const char *devargs, struct rte_mempool *pool,
		 char *err, size_t errlen);

/* Configures and starts port id (in the current namespace); returns 0 or a negative errno. */
int lr_port_start(struct lr_port *p, uint16_t id, struct rte_mempool *pool);

/* Stops and closes the port inside its namespace. */
void lr_port_close(struct lr_port *p);

/* If m is an ARP request for p's arp_ip, turns it into the reply in place and returns 1
 * (the caller sends it); else 0. */
int lr_port_arp_answer(struct lr_port *p, struct rte_mbuf *m);
/* If p answers LCP echoes and m is a PPPoE session frame (up to two VLAN tags) carrying an
 * LCP Echo-Request (RFC 1661 5.8) whose lengths hold together, turns it into the
 * Echo-Reply in place (MACs swapped, code 10, p's magic number; identifier, tags, session
 * id and data kept) and returns 1 (the caller sends it); else 0. */
int lr_port_lcp_answer(struct lr_port *p, struct rte_mbuf *m);
/* If p answers Neighbor Solicitations and m is one for p's nd_ip, turns it into the Neighbor
 * Advertisement in place (lr_nd_na_reply; the mbuf's length set) and returns 1; else 0. */
int lr_port_nd_answer(struct lr_port *p, struct rte_mbuf *m);

#endif

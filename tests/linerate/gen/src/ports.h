/* The generator's ports: DPDK virtual devices, possibly in other network namespaces (an
 * af_packet or af_xdp socket belongs to the namespace it was opened in, so the device is
 * probed after a setns() there), one RX and one TX queue each; and the ARP responder that
 * answers for an address on a core-side port so that a router can send to it. */
#ifndef LRGEN_PORTS_H
#define LRGEN_PORTS_H

#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

struct lr_port {
	uint16_t id;
	struct rte_ether_addr mac;
	uint32_t arp_ip; /* network order; 0: no ARP answers */
	uint64_t tx, tx_fail, rx, arp_replies;
};

/* Probes devargs (e.g. "net_af_packet0,iface=sub0") inside network namespace ns (a name
 * under /run/netns, or "" for the current one); returns the port id or -1 with err set. */
int lr_port_probe(const char *ns, const char *devargs, char *err, size_t errlen);

/* Configures and starts port with pool; returns 0 or a negative errno. */
int lr_port_start(struct lr_port *p, uint16_t id, struct rte_mempool *pool);

/* If m is an ARP request for p's arp_ip, turns it into the reply in place and returns 1
 * (the caller sends it); else 0. */
int lr_port_arp_answer(struct lr_port *p, struct rte_mbuf *m);

#endif

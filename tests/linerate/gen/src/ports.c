/* Ports of the generator (ports.h). Control-path code: runs before and between trials. */
#include "ports.h"
#include "rxstats.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_arp.h>
#include <rte_bus_vdev.h>
#include <rte_dev.h>
#include <rte_ethdev.h>

int
lr_netns_enter(const char *ns, char *err, size_t errlen)
{
	if (!ns || !*ns)
		return -2;
	char path[256];
	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	int self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	int target = open(path, O_RDONLY | O_CLOEXEC);
	if (self < 0 || target < 0 || setns(target, CLONE_NEWNET) < 0) {
		snprintf(err, errlen, "network namespace %s: %s", ns, strerror(errno));
		if (self >= 0)
			close(self);
		if (target >= 0)
			close(target);
		return -1;
	}
	close(target);
	return self;
}

void
lr_netns_leave(int self)
{
	if (self < 0)
		return;
	if (setns(self, CLONE_NEWNET) < 0) {
		/* carrying on in the wrong namespace would touch its interfaces */
		fprintf(stderr, "bng-lrgen: back to our network namespace: %s\n", strerror(errno));
		abort();
	}
	close(self);
}

int
lr_port_open(struct lr_port *p, const char *ns, const char *devargs, struct rte_mempool *pool,
	     char *err, size_t errlen)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	size_t n = strcspn(devargs, ",");
	if (n == 0 || n >= sizeof(name)) {
		snprintf(err, errlen, "bad device arguments %s", devargs);
		return -1;
	}
	memcpy(name, devargs, n);
	name[n] = 0;
	int self = lr_netns_enter(ns, err, errlen);
	if (self == -1)
		return -1;
	int rc = rte_dev_probe(devargs);
	uint16_t id = 0;
	if (rc < 0) {
		snprintf(err, errlen, "probing %s%s%s failed: %s", devargs, ns && *ns ? " in " : "",
			 ns ? ns : "", rte_strerror(-rc));
	} else if (rte_eth_dev_get_port_by_name(name, &id) != 0) {
		snprintf(err, errlen, "%s probed but no port of that name", name);
		rc = -1;
	} else if ((rc = lr_port_start(p, id, pool)) < 0) {
		snprintf(err, errlen, "starting %s: %s", devargs, rte_strerror(-rc));
	}
	lr_netns_leave(self);
	if (rc < 0)
		return -1;
	snprintf(p->netns, sizeof(p->netns), "%s", ns ? ns : "");
	return 0;
}

void
lr_port_close(struct lr_port *p)
{
	char err[256];
	int self = lr_netns_enter(p->netns, err, sizeof(err));
	if (self == -1) {
		fprintf(stderr, "bng-lrgen: %s: port %u left open\n", err, p->id);
		return;
	}
	rte_eth_dev_stop(p->id);
	rte_eth_dev_close(p->id);
	lr_netns_leave(self);
}

int
lr_port_start(struct lr_port *p, uint16_t id, struct rte_mempool *pool)
{
	struct rte_eth_conf conf = {0};
	int rc;
	memset(p, 0, sizeof(*p));
	p->id = id;
	if ((rc = rte_eth_dev_configure(id, 1, 1, &conf)) < 0)
		return rc;
	if ((rc = rte_eth_rx_queue_setup(id, 0, 1024, rte_eth_dev_socket_id(id), NULL, pool)) < 0)
		return rc;
	if ((rc = rte_eth_tx_queue_setup(id, 0, 1024, rte_eth_dev_socket_id(id), NULL)) < 0)
		return rc;
	if ((rc = rte_eth_dev_start(id)) < 0)
		return rc;
	return rte_eth_macaddr_get(id, &p->mac);
}

int
lr_port_arp_answer(struct lr_port *p, struct rte_mbuf *m)
{
	if (!p->arp_ip ||
	    rte_pktmbuf_data_len(m) < sizeof(struct rte_ether_hdr) + sizeof(struct rte_arp_hdr))
		return 0;
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	if (eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP))
		return 0;
	struct rte_arp_hdr *arp = (struct rte_arp_hdr *)(eth + 1);
	if (arp->arp_hardware != rte_cpu_to_be_16(RTE_ARP_HRD_ETHER) ||
	    arp->arp_protocol != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) || arp->arp_hlen != 6 ||
	    arp->arp_plen != 4 || arp->arp_opcode != rte_cpu_to_be_16(RTE_ARP_OP_REQUEST) ||
	    arp->arp_data.arp_tip != p->arp_ip)
		return 0;
	struct rte_arp_ipv4 *d = &arp->arp_data;
	arp->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REPLY);
	d->arp_tha = d->arp_sha;
	d->arp_tip = d->arp_sip;
	d->arp_sha = p->mac;
	d->arp_sip = p->arp_ip;
	eth->dst_addr = d->arp_tha;
	eth->src_addr = p->mac;
	p->arp_replies++;
	return 1;
}

int
lr_port_lcp_answer(struct lr_port *p, struct rte_mbuf *m)
{
	if (!p->lcp_magic || !lr_lcp_echo_reply(rte_pktmbuf_mtod(m, uint8_t *),
						rte_pktmbuf_data_len(m), p->lcp_magic))
		return 0;
	p->lcp_replies++;
	return 1;
}

int
lr_port_nd_answer(struct lr_port *p, struct rte_mbuf *m)
{
	if (!p->has_nd || !rte_pktmbuf_is_contiguous(m))
		return 0;
	uint32_t cap = rte_pktmbuf_data_len(m) + rte_pktmbuf_tailroom(m);
	uint32_t n = lr_nd_na_reply(rte_pktmbuf_mtod(m, uint8_t *), rte_pktmbuf_data_len(m), cap,
				    p->nd_ip, p->mac.addr_bytes);
	if (!n)
		return 0;
	m->data_len = (uint16_t)n;
	m->pkt_len = n;
	p->nd_replies++;
	return 1;
}

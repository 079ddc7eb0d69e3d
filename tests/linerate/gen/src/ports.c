/* Ports of the generator (ports.h). Control-path code: runs before and between trials. */
#include "ports.h"

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
lr_port_probe(const char *ns, const char *devargs, char *err, size_t errlen)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	size_t n = strcspn(devargs, ",");
	if (n == 0 || n >= sizeof(name)) {
		snprintf(err, errlen, "bad device arguments %s", devargs);
		return -1;
	}
	memcpy(name, devargs, n);
	name[n] = 0;
	int self = -1, target = -1, rc;
	if (ns && *ns) {
		char path[256];
		snprintf(path, sizeof(path), "/run/netns/%s", ns);
		self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
		target = open(path, O_RDONLY | O_CLOEXEC);
		if (self < 0 || target < 0 || setns(target, CLONE_NEWNET) < 0) {
			snprintf(err, errlen, "network namespace %s: %s", ns, strerror(errno));
			if (self >= 0)
				close(self);
			if (target >= 0)
				close(target);
			return -1;
		}
	}
	rc = rte_dev_probe(devargs);
	if (self >= 0) {
		if (setns(self, CLONE_NEWNET) < 0) {
			snprintf(err, errlen, "back to our network namespace: %s", strerror(errno));
			rc = -1;
		}
		close(self);
		close(target);
	}
	if (rc < 0) {
		snprintf(err, errlen, "probing %s%s%s failed: %s", devargs, ns && *ns ? " in " : "",
			 ns ? ns : "", rte_strerror(-rc));
		return -1;
	}
	uint16_t id;
	if (rte_eth_dev_get_port_by_name(name, &id) != 0) {
		snprintf(err, errlen, "%s probed but no port of that name", name);
		return -1;
	}
	return id;
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

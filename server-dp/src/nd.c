/*
 * Core-side Neighbor Discovery (nd.h).
 */

#include <string.h>

#include "icmp6.h"
#include "nd.h"

int
nd_parse(const uint8_t *ip, size_t len, struct nd_msg *m)
{
	size_t plen, off;
	const uint8_t *icmp;

	memset(m, 0, sizeof(*m));
	if (len < 40 + 24)
		return ND_ERR_SHORT;
	plen = (size_t)ip[4] << 8 | ip[5];
	if ((ip[0] >> 4) != 6 || ip[6] != ICMP6_NH || ip[7] != 255)
		return ND_ERR_HEADER;
	if (plen < 24 || 40 + plen > len)
		return ND_ERR_SHORT;
	icmp = ip + 40;
	if ((icmp[0] != ND_TYPE_NS && icmp[0] != ND_TYPE_NA) || icmp[1] != 0)
		return ND_ERR_HEADER;
	if (ip6_l4_csum(ip, icmp, (uint32_t)plen, ICMP6_NH) != 0)
		return ND_ERR_CSUM;
	m->type = icmp[0];
	m->flags = icmp[0] == ND_TYPE_NA ? (uint8_t)(icmp[4] & 0xe0) : 0;
	memcpy(m->src, ip + 8, 16);
	memcpy(m->dst, ip + 24, 16);
	memcpy(m->target, icmp + 8, 16);
	if (ip6_is_multicast(m->target))
		return ND_ERR_TARGET;
	for (off = 24; off < plen;) {
		size_t olen;

		if (off + 2 > plen)
			return ND_ERR_OPTION;
		olen = (size_t)icmp[off + 1] * 8;
		if (olen == 0 || off + olen > plen)
			return ND_ERR_OPTION;
		if (olen == 8 && ((icmp[off] == ND_OPT_SLLA && m->type == ND_TYPE_NS) ||
				  (icmp[off] == ND_OPT_TLLA && m->type == ND_TYPE_NA))) {
			m->has_lla = true;
			memcpy(m->lla, icmp + off + 2, 6);
		}
		off += olen;
	}
	if (m->type == ND_TYPE_NS && ip6_is_unspecified(m->src)) {
		/* DAD: to the target's solicited-node address, no source link-layer option */
		uint8_t sn[16], mac[6];

		nd_solicited_node(m->target, sn, mac);
		if (memcmp(m->dst, sn, 16) != 0 || m->has_lla)
			return ND_ERR_TARGET;
	}
	return ND_OK;
}

void
nd_solicited_node(const uint8_t *a, uint8_t ip[16], uint8_t mac[6])
{
	static const uint8_t pfx[13] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff};

	memcpy(ip, pfx, 13);
	memcpy(ip + 13, a + 13, 3);
	mac[0] = mac[1] = 0x33;
	memcpy(mac + 2, ip + 12, 4);
}

/* Ethernet (+ VLAN) + IPv6 header; returns the offset of the IPv6 header. */
static size_t
eth_ip6(uint8_t *f, const uint8_t *dst_mac, const uint8_t *src_mac, uint16_t vlan,
	const uint8_t *src_ip, const uint8_t *dst_ip, uint16_t plen)
{
	size_t off = 12;
	uint8_t *ip;

	memcpy(f, dst_mac, 6);
	memcpy(f + 6, src_mac, 6);
	if (vlan != 0) {
		f[12] = 0x81;
		f[13] = 0x00;
		f[14] = (uint8_t)(vlan >> 8);
		f[15] = (uint8_t)vlan;
		off = 16;
	}
	f[off] = 0x86;
	f[off + 1] = 0xdd;
	ip = f + off + 2;
	memset(ip, 0, 40);
	ip[0] = 0x60;
	ip[4] = (uint8_t)(plen >> 8);
	ip[5] = (uint8_t)plen;
	ip[6] = ICMP6_NH;
	ip[7] = 255;
	memcpy(ip + 8, src_ip, 16);
	memcpy(ip + 24, dst_ip, 16);
	return off + 2;
}

static size_t
nd_build(uint8_t *f, size_t cap, const uint8_t *dst_mac, const uint8_t *src_mac, uint16_t vlan,
	 const uint8_t *src_ip, const uint8_t *dst_ip, uint8_t type, uint8_t flags,
	 const uint8_t *target)
{
	size_t l3 = vlan ? 18 : 14, total = l3 + 40 + 32;
	uint8_t *ip, *icmp;
	uint16_t ck;

	if (cap < total)
		return 0;
	l3 = eth_ip6(f, dst_mac, src_mac, vlan, src_ip, dst_ip, 32);
	ip = f + l3;
	icmp = ip + 40;
	memset(icmp, 0, 32);
	icmp[0] = type;
	icmp[4] = flags;
	memcpy(icmp + 8, target, 16);
	icmp[24] = type == ND_TYPE_NS ? ND_OPT_SLLA : ND_OPT_TLLA;
	icmp[25] = 1;
	memcpy(icmp + 26, src_mac, 6);
	ck = ip6_l4_csum(ip, icmp, 32, ICMP6_NH);
	icmp[2] = (uint8_t)(ck >> 8);
	icmp[3] = (uint8_t)ck;
	return total;
}

size_t
nd_build_na(uint8_t *frame, size_t cap, const uint8_t *dst_mac, const uint8_t *src_mac,
	    uint16_t vlan, const uint8_t *dst_ip, const uint8_t *target, uint8_t flags)
{
	return nd_build(frame, cap, dst_mac, src_mac, vlan, target, dst_ip, ND_TYPE_NA, flags,
			target);
}

size_t
nd_build_ns(uint8_t *frame, size_t cap, const uint8_t *src_mac, uint16_t vlan,
	    const uint8_t *src_ip, const uint8_t *target)
{
	uint8_t sn[16], mac[6];

	nd_solicited_node(target, sn, mac);
	return nd_build(frame, cap, mac, src_mac, vlan, src_ip, sn, ND_TYPE_NS, 0, target);
}

/*
 * ICMPv6 errors of the data path (icmp6.h).
 */

#include <rte_byteorder.h>

#include "icmp6.h"

uint32_t
ip6_csum_add(uint32_t sum, const uint8_t *p, uint32_t len)
{
	uint32_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

uint16_t
ip6_l4_csum(const uint8_t *ip, const uint8_t *l4, uint32_t len, uint8_t nh)
{
	uint8_t ph[8] = {(uint8_t)(len >> 24),
			 (uint8_t)(len >> 16),
			 (uint8_t)(len >> 8),
			 (uint8_t)len,
			 0,
			 0,
			 0,
			 nh};
	uint32_t sum = ip6_csum_add(0, ip + 8, 32);

	sum = ip6_csum_add(sum, ph, 8);
	sum = ip6_csum_add(sum, l4, len);
	return (uint16_t)~sum;
}

/* Is the packet an ICMPv6 error or a redirect (never answered)? */
static bool
is_icmp6_error(const uint8_t *ip, uint16_t len)
{
	return ip[6] == ICMP6_NH && len > 40 && (ip[40] < 128 || ip[40] == 137);
}

int
icmp6_error(struct icmp_state *s, struct rte_mbuf *m, uint16_t l3_off, uint16_t l3_len,
	    uint8_t type, uint32_t mtu, const uint8_t *src16, uint64_t now_tsc,
	    struct icmp6_counters *c)
{
	uint8_t *ip = rte_pktmbuf_mtod_offset(m, uint8_t *, l3_off);
	uint8_t save[ICMP6_ROOM], *e;
	uint32_t quote, total;
	uint16_t ck;

	if (m->nb_segs != 1 || (uint32_t)l3_off + l3_len > rte_pktmbuf_data_len(m) || l3_len < 40 ||
	    rte_pktmbuf_headroom(m) + l3_off < ICMP6_ROOM) {
		c->no_room++;
		return -1;
	}
	if (is_icmp6_error(ip, l3_len) || ip6_is_multicast(ip + 24) || !ip6_is_global(ip + 8) ||
	    src16 == NULL) {
		c->not_allowed++;
		return -1;
	}
	if (!icmp_take_token(s, now_tsc)) {
		c->rate_limited++;
		return -1;
	}
	quote = l3_len;
	if (quote > ICMP6_MAX_DGRAM - ICMP6_ROOM)
		quote = ICMP6_MAX_DGRAM - ICMP6_ROOM;
	total = ICMP6_ROOM + quote;
	/* the frame's bytes before l3_off move ICMP6_ROOM to the front with the packet */
	memcpy(save, ip, 40);
	if (rte_pktmbuf_prepend(m, ICMP6_ROOM) == NULL) {
		c->no_room++;
		return -1;
	}
	memmove(rte_pktmbuf_mtod(m, uint8_t *), rte_pktmbuf_mtod_offset(m, uint8_t *, ICMP6_ROOM),
		l3_off);
	rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_pkt_len(m) - l3_off - total));
	e = rte_pktmbuf_mtod_offset(m, uint8_t *, l3_off);
	/* e + 48 already holds the quote (the packet did not move) */
	e[0] = 0x60;
	e[1] = e[2] = e[3] = 0;
	e[4] = (uint8_t)((total - 40) >> 8);
	e[5] = (uint8_t)(total - 40);
	e[6] = ICMP6_NH;
	e[7] = ICMP6_HOP_LIMIT;
	memcpy(e + 8, src16, 16);
	memcpy(e + 24, save + 8, 16); /* the offending packet's source */
	e[40] = type;
	e[41] = 0;
	e[42] = e[43] = 0;
	e[44] = (uint8_t)(mtu >> 24);
	e[45] = (uint8_t)(mtu >> 16);
	e[46] = (uint8_t)(mtu >> 8);
	e[47] = (uint8_t)mtu;
	if (type != ICMP6_TYPE_PTB)
		memset(e + 44, 0, 4);
	ck = ip6_l4_csum(e, e + 40, total - 40, ICMP6_NH);
	e[42] = (uint8_t)(ck >> 8);
	e[43] = (uint8_t)ck;
	if (type == ICMP6_TYPE_PTB)
		c->packet_too_big++;
	else
		c->time_exceeded++;
	return 0;
}

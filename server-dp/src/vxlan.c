/*
 * VXLAN control redirect codec and the inject guard (vxlan.h).
 */

#include <errno.h>
#include <string.h>

#include "vxlan.h"

const char *const vxlan_count_names[VXLAN_COUNT_MAX] = {
#define VXLAN_COUNT_DEF(sym, name) [VXLAN_##sym] = name,
#include "vxlan.def"
#undef VXLAN_COUNT_DEF
};

static inline int
vxlan_count(struct vxlan_counters *c, enum vxlan_count what, int ret)
{
	if (c != NULL)
		c->c[what]++;
	return ret;
}

int
vxlan_encap(uint8_t *dgram, size_t cap, uint32_t vni, const uint8_t *frame, uint16_t len)
{
	if (vni == 0 || vni > VXLAN_MAX_VNI || len < VXLAN_MIN_INNER || len > VXLAN_MAX_INNER)
		return -EINVAL;
	if (cap < (size_t)VXLAN_HLEN + len)
		return -ENOSPC;
	/* memmove first: the frame may already sit at dgram + 8. */
	memmove(dgram + VXLAN_HLEN, frame, len);
	dgram[0] = VXLAN_FLAG_I;
	dgram[1] = dgram[2] = dgram[3] = 0;
	dgram[4] = (uint8_t)(vni >> 16);
	dgram[5] = (uint8_t)(vni >> 8);
	dgram[6] = (uint8_t)vni;
	dgram[7] = 0;
	return VXLAN_HLEN + len;
}

int
vxlan_decap(const uint8_t *dgram, size_t len, uint32_t vni, const uint8_t **frame, uint16_t *flen,
	    struct vxlan_counters *c)
{
	uint32_t got;
	size_t inner;

	if (len < VXLAN_HLEN)
		return vxlan_count(c, VXLAN_DECAP_SHORT, -EINVAL);
	if (!(dgram[0] & VXLAN_FLAG_I))
		return vxlan_count(c, VXLAN_DECAP_NO_I_FLAG, -EINVAL);
	got = (uint32_t)dgram[4] << 16 | (uint32_t)dgram[5] << 8 | dgram[6];
	if (got != vni)
		return vxlan_count(c, VXLAN_DECAP_WRONG_VNI, -EINVAL);
	inner = len - VXLAN_HLEN;
	if (inner < VXLAN_MIN_INNER)
		return vxlan_count(c, VXLAN_DECAP_INNER_SHORT, -EINVAL);
	if (inner > VXLAN_MAX_INNER)
		return vxlan_count(c, VXLAN_DECAP_INNER_LONG, -EINVAL);
	/* RFC 7348: reserved fields are ignored on receipt. Counted all the same. */
	if ((dgram[0] & ~VXLAN_FLAG_I) != 0 || dgram[1] != 0 || dgram[2] != 0 || dgram[3] != 0 ||
	    dgram[7] != 0)
		vxlan_count(c, VXLAN_DECAP_RESERVED_SET, 0);
	*frame = dgram + VXLAN_HLEN;
	*flen = (uint16_t)inner;
	return vxlan_count(c, VXLAN_DECAP_OK, 0);
}

static inline int
vxlan_ppp_ctrl(uint16_t proto)
{
	return proto == CLS_PPP_LCP || proto == CLS_PPP_PAP || proto == CLS_PPP_CHAP ||
	       proto == CLS_PPP_IPCP || proto == CLS_PPP_IPV6CP;
}

/*
 * The IPv6 the CP may send on a session (docs/dp/control-frames.md): its answers
 * to what bng-dp punted, from its link-local address: Router Advertisements and
 * Neighbor Solicitations/Advertisements (hop limit 255, RFC 4861) and DHCPv6 from
 * the server port to the client port. Anything else would let the control server
 * inject subscriber data: refused.
 */
static int
vxlan_ipv6_ctrl(const uint8_t *ip, uint16_t len)
{
	uint16_t paylen;

	if (len < 40 + 8 || (ip[0] >> 4) != 6)
		return 0;
	paylen = cls_be16(ip + 4);
	if (paylen < 8 || paylen > len - 40)
		return 0;
	if (ip[8] != 0xfe || (ip[9] & 0xc0) != 0x80) /* source fe80::/10 */
		return 0;
	switch (ip[6]) {
	case 58: /* ICMPv6: RA, NS, NA */
		return ip[7] == 255 && ip[40] >= 134 && ip[40] <= 136;
	case 17: /* UDP: DHCPv6 server -> client */
		return cls_be16(ip + 40) == 547 && cls_be16(ip + 42) == 546;
	default:
		return 0;
	}
}

/*
 * IPoE: the CP's DHCPv4 answers (docs/dp/control-frames.md): on a line of a
 * group that allows IPoE, from its AC MAC (the gateway's), to a unicast client
 * MAC or broadcast (the client's broadcast flag), a whole unfragmented IPv4
 * UDP datagram from port 67 to port 68. Nothing else IPoE: the CP never sends
 * subscriber data.
 */
static int
vxlan_ipoe_check(const struct line_map *lm, uint16_t line, const uint8_t *frame, uint16_t len,
		 struct vxlan_counters *c)
{
	const uint8_t *ip = frame + 22;
	uint32_t ihl, tot;

	if (!(lm->lines[line].flags & LM_LINE_IPOE))
		return vxlan_count(c, VXLAN_INJECT_IPOE, -EPERM);
	if (mac_key(frame + 6) != lm->lines[line].ac_mac)
		return vxlan_count(c, VXLAN_INJECT_SRC_MAC, -EPERM);
	if (mac_key(frame) == 0 || ((frame[0] & 0x01) && mac_key(frame) != CLS_MAC_BCAST))
		return vxlan_count(c, VXLAN_INJECT_DST_MAC, -EPERM);
	if (len < 22 + 20 + 8 || (ip[0] >> 4) != 4)
		return vxlan_count(c, VXLAN_INJECT_IPOE, -EPERM);
	ihl = (uint32_t)(ip[0] & 0x0f) * 4;
	tot = cls_be16(ip + 2);
	if (ihl < 20 || tot < ihl + 8 || tot > (uint32_t)len - 22 || ip[9] != 17 ||
	    (cls_be16(ip + 6) & 0x3fff) != 0 || cls_be16(ip + ihl) != 67 ||
	    cls_be16(ip + ihl + 2) != 68)
		return vxlan_count(c, VXLAN_INJECT_IPOE, -EPERM);
	return vxlan_count(c, VXLAN_INJECT_OK, line);
}

/*
 * IPoE IPv6: the CP's answers on the redirect (docs/dp/control-frames.md): on a
 * line of a group that allows IPoE, from its AC MAC to a unicast client MAC,
 * IPv6 from the BNG's link-local (fe80:: + modified EUI-64 of the AC MAC),
 * no extension header: a Router Advertisement or Neighbor Advertisement with
 * hop limit 255, or UDP from port 547 to port 546 (DHCPv6 server -> client).
 */
static int
vxlan_ipoe6_check(const struct line_map *lm, uint16_t line, const uint8_t *frame, uint16_t len,
		  struct vxlan_counters *c)
{
	const uint8_t *ip = frame + 22;
	uint64_t ac = lm->lines[line].ac_mac;
	uint16_t paylen;
	uint8_t ll[16] = {0xfe, 0x80};

	if (!(lm->lines[line].flags & LM_LINE_IPOE))
		return vxlan_count(c, VXLAN_INJECT_IPOE, -EPERM);
	if (mac_key(frame + 6) != ac)
		return vxlan_count(c, VXLAN_INJECT_SRC_MAC, -EPERM);
	if (mac_key(frame) == 0 || (frame[0] & 0x01))
		return vxlan_count(c, VXLAN_INJECT_DST_MAC, -EPERM);
	if (len < 22 + 40 + 8 || (ip[0] >> 4) != 6)
		return vxlan_count(c, VXLAN_INJECT_IPOE6, -EPERM);
	paylen = cls_be16(ip + 4);
	ll[8] = (uint8_t)(ac >> 40) ^ 0x02;
	ll[9] = (uint8_t)(ac >> 32);
	ll[10] = (uint8_t)(ac >> 24);
	ll[11] = 0xff;
	ll[12] = 0xfe;
	ll[13] = (uint8_t)(ac >> 16);
	ll[14] = (uint8_t)(ac >> 8);
	ll[15] = (uint8_t)ac;
	if (paylen < 8 || paylen > len - 22 - 40 || memcmp(ip + 8, ll, 16) != 0)
		return vxlan_count(c, VXLAN_INJECT_IPOE6, -EPERM);
	if (ip[6] == 58 && ip[7] == 255 && (ip[40] == 134 || ip[40] == 136))
		return vxlan_count(c, VXLAN_INJECT_OK, line);
	if (ip[6] == 17 && cls_be16(ip + 40) == 547 && cls_be16(ip + 42) == 546)
		return vxlan_count(c, VXLAN_INJECT_OK, line);
	return vxlan_count(c, VXLAN_INJECT_IPOE6, -EPERM);
}

int
vxlan_inject_check(const struct line_map *lm, const uint8_t *frame, uint16_t len,
		   struct vxlan_counters *c)
{
	const uint8_t *h = frame + 22; /* PPPoE header */
	uint16_t outer, et, line, sid, plen;
	uint64_t dst;

	if (len < 22 + 6)
		return vxlan_count(c, VXLAN_INJECT_SHORT, -EPERM);
	/* (the IPoE check reads its own, longer, minimum) */
	outer = cls_be16(frame + 12);
	if ((outer != CLS_ETH_VLAN && outer != CLS_ETH_QINQ) ||
	    cls_be16(frame + 16) != CLS_ETH_VLAN)
		return vxlan_count(c, VXLAN_INJECT_NOT_QINQ, -EPERM);
	line = line_map_lookup(lm, cls_be16(frame + 14) & 0x0fff, cls_be16(frame + 18) & 0x0fff);
	if (line == CLS_NO_LINE)
		return vxlan_count(c, VXLAN_INJECT_FOREIGN_LINE, -EPERM);
	et = cls_be16(frame + 20);
	if (et == CLS_ETH_IPV4)
		return vxlan_ipoe_check(lm, line, frame, len, c);
	if (et == CLS_ETH_IPV6)
		return vxlan_ipoe6_check(lm, line, frame, len, c);
	if (et != CLS_ETH_PPPOE_DISC && et != CLS_ETH_PPPOE_SESS)
		return vxlan_count(c, VXLAN_INJECT_ETHERTYPE, -EPERM);
	if (mac_key(frame + 6) != lm->lines[line].ac_mac)
		return vxlan_count(c, VXLAN_INJECT_SRC_MAC, -EPERM);
	dst = mac_key(frame);
	if (dst == 0 || (frame[0] & 0x01))
		return vxlan_count(c, VXLAN_INJECT_DST_MAC, -EPERM);
	plen = cls_be16(h + 4);
	if (h[0] != 0x11 || plen > len - 22 - 6)
		return vxlan_count(c, VXLAN_INJECT_PPPOE_HDR, -EPERM);
	sid = cls_be16(h + 2);
	if (et == CLS_ETH_PPPOE_DISC) {
		if (h[1] != VXLAN_PADO && h[1] != VXLAN_PADS && h[1] != CLS_PADT)
			return vxlan_count(c, VXLAN_INJECT_PPPOE_CODE, -EPERM);
		if ((h[1] == VXLAN_PADO) != (sid == 0) || sid == 0xffff)
			return vxlan_count(c, VXLAN_INJECT_PPPOE_SID, -EPERM);
		return vxlan_count(c, VXLAN_INJECT_OK, line);
	}
	if (h[1] != 0)
		return vxlan_count(c, VXLAN_INJECT_PPPOE_CODE, -EPERM);
	if (sid == 0 || sid == 0xffff)
		return vxlan_count(c, VXLAN_INJECT_PPPOE_SID, -EPERM);
	if (plen < 2 || (!vxlan_ppp_ctrl(cls_be16(h + 6)) &&
			 !(cls_be16(h + 6) == CLS_PPP_IPV6 && vxlan_ipv6_ctrl(h + 8, plen - 2))))
		return vxlan_count(c, VXLAN_INJECT_PPP_PROTO, -EPERM);
	return vxlan_count(c, VXLAN_INJECT_OK, line);
}

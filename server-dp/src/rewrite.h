/*
 * bng-dp header rewrite: the stage after the classifier.
 *
 * Upstream (access -> core), for a frame classified CLS_PPPOE_SESS_IPV4 (or
 * CLS_IPOE_IPV4: no PPPoE and PPP headers):
 *   rw_decap_pppoe()   Ethernet + S-tag + C-tag + PPPoE + PPP off, Ethernet
 *                      padding off, core Ethernet header (optional 802.1Q) on.
 * Downstream (core -> access), for an IPv4 packet routed to a session:
 *   rw_core_strip()    core Ethernet header and padding off (CLS_CORE_IPV4);
 *   rw_encap_pppoe()   the session's 30-byte access header on, from a template;
 *   rw_encap_ipoe()    an IPoE session's 22-byte header (QinQ + Ethernet);
 *   rw_encap_ipoe6()   the same with Ethertype IPv6;
 * Both directions:
 *   rw_ipv4_ttl_dec()  TTL - 1, RFC 1624 incremental checksum;
 *   rw_ipv4_dscp_set() DSCP rewrite (ECN kept), incremental checksum;
 *   rw_tcp_mss_clamp() MSS option of TCP SYNs lowered, incremental checksum.
 *
 * Data layout (built once on the control thread by rewrite.c):
 *   struct rw_encap_tmpl  one per session, 32 bytes: the whole access header
 *                         with PCP 0 and PPPoE length 0, so the per-packet
 *                         work is one copy, two ORed PCP bytes and one
 *                         16-bit length store;
 *   struct rw_core_tmpl   one per (line group, next hop), 20 bytes: the core
 *                         Ethernet header, 14 or 18 bytes;
 *   struct rw_pcp_map     traffic class -> PCP, 16 bytes.
 *
 * Contract of every function here: headers must be in the first segment
 * (only rte_pktmbuf_data_len() bytes are read or written); nothing is
 * allocated, no lock is taken, no system call is made, and the work is
 * bounded (the only loop walks at most 40 bytes of TCP options). On an error
 * the mbuf is left exactly as it was. Checksum offload flags are not used:
 * checksums are updated in the packet.
 */

#ifndef BNG_REWRITE_H
#define BNG_REWRITE_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_mbuf.h>

#include "classify.h"

/* --- templates (control thread) ------------------------------------------ */

#define RW_ENCAP_LEN 30	    /* Ethernet 14 + S-tag 4 + C-tag 4 + PPPoE 6 + PPP 2 */
#define RW_PPPOE_LEN_OFF 26 /* PPPoE length field in the access header */
#define RW_STAG_TCI_OFF 14
#define RW_CTAG_TCI_OFF 18
#define RW_CORE_MAX_LEN 18 /* Ethernet + one 802.1Q tag */
#define RW_NUM_TC 16	   /* rw_pcp_map is indexed by tc & 15 (dp_config: tc 0..12) */

/*
 * The access header of one session, PCP 0 and PPPoE length 0 in hdr[]. For
 * an IPoE session (ipoe = 1) hdr[] holds the RW_IPOE_LEN bytes Ethernet +
 * S-tag + C-tag with Ethertype IPv4, and the rest is zero.
 */
struct rw_encap_tmpl {
	uint8_t hdr[RW_ENCAP_LEN];
	uint8_t ipoe;
	uint8_t pad;
};

#define RW_IPOE_LEN 22 /* Ethernet 14 + S-tag 4 + C-tag 4 */

/* The core Ethernet header of one (line group, next hop). */
struct rw_core_tmpl {
	uint8_t hdr[RW_CORE_MAX_LEN];
	uint8_t len; /* 14 untagged, 18 with the core VLAN */
	uint8_t pad;
};

/* Traffic class -> 802.1p PCP (0..7), for both tags of the access header. */
struct rw_pcp_map {
	uint8_t pcp[RW_NUM_TC];
};

/*
 * Build a session template: dst = subscriber MAC, src = AC MAC, outer tag
 * tpid (0x8100 or 0x88a8, the access port's) with VLAN stag, C-tag 0x8100
 * with VLAN ctag, PPPoE session sid, PPP IPv4. Returns 0, or -EINVAL for a
 * TPID other than those two, a tag outside 1..4094 or a session id 0/0xffff.
 */
int rw_encap_tmpl_init(struct rw_encap_tmpl *t, const uint8_t sub_mac[6], const uint8_t ac_mac[6],
		       uint16_t tpid, uint16_t stag, uint16_t ctag, uint16_t sid);

/*
 * The IPoE form: dst = subscriber MAC, src = AC MAC (the gateway's), the two
 * tags, Ethertype IPv4; no PPPoE. Same errors, without the session id.
 */
int rw_encap_tmpl_init_ipoe(struct rw_encap_tmpl *t, const uint8_t sub_mac[6],
			    const uint8_t ac_mac[6], uint16_t tpid, uint16_t stag, uint16_t ctag);

/*
 * Build a core header: dst = next-hop MAC, src = the line group's core MAC,
 * one 0x8100 tag when vlan != 0, ethertype IPv4. Returns 0, or -EINVAL for a
 * VLAN above 4094.
 */
int rw_core_tmpl_init(struct rw_core_tmpl *t, const uint8_t nh_mac[6], const uint8_t core_mac[6],
		      uint16_t vlan);

/* --- checksums ------------------------------------------------------------ */

/*
 * RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'), for one 16-bit word m -> m'.
 * All three values in the same byte order (network order in the packet; the
 * one's complement sum does not depend on it). Eqn. 3, not eqn. 2, so the
 * result is never 0xffff for a header whose true sum cannot be zero, which
 * is the case of IPv4 (version 4) and TCP (protocol 6 in the pseudo header).
 */
static inline uint16_t
rw_csum_update16(uint16_t hc, uint16_t old, uint16_t new)
{
	uint32_t s = (uint32_t)(uint16_t)~hc + (uint16_t)~old + new;

	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static inline uint16_t
rw_load16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t
rw_load32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void
rw_store16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* --- IPv4 fields ----------------------------------------------------------- */

/*
 * Decrement the TTL of the IPv4 header at ip. Returns 1 and leaves the
 * header untouched when the TTL is 0 or 1 on arrival (expired: the caller
 * sends ICMP time exceeded and drops), else 0. TTL and protocol share the
 * checksum word at offset 8, so m' = m - 0x0100.
 */
static inline int
rw_ipv4_ttl_dec(uint8_t *ip)
{
	uint16_t old = rw_load16(ip + 8);

	if (ip[8] <= 1)
		return 1;
	ip[8]--;
	rw_store16(ip + 10, rw_csum_update16(rw_load16(ip + 10), old, rw_load16(ip + 8)));
	return 0;
}

/* Set the DSCP (0..63) of the IPv4 header at ip; the 2 ECN bits are kept. */
static inline void
rw_ipv4_dscp_set(uint8_t *ip, uint8_t dscp)
{
	uint16_t old = rw_load16(ip);

	ip[1] = (uint8_t)((dscp << 2) | (ip[1] & 0x03));
	rw_store16(ip + 10, rw_csum_update16(rw_load16(ip + 10), old, rw_load16(ip)));
}

/* --- TCP MSS clamping ------------------------------------------------------ */

#define RW_IPPROTO_TCP 6
#define RW_TCP_SYN 0x02
#define RW_TCPOPT_EOL 0
#define RW_TCPOPT_NOP 1
#define RW_TCPOPT_MSS 2

/*
 * Offset in th of the 2-byte MSS value, 0 when there is none, -1 when the
 * options are malformed (a length below 2, an option past the data offset,
 * an MSS option whose length is not 4, two MSS options). doff is the TCP
 * header length, already checked to be 20..60 and inside the packet.
 */
static inline int
rw_tcp_find_mss(const uint8_t *th, uint32_t doff)
{
	uint32_t i = 20, olen;
	int at = 0;

	while (i < doff) {
		if (th[i] == RW_TCPOPT_EOL)
			break;
		if (th[i] == RW_TCPOPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= doff)
			return -1;
		olen = th[i + 1];
		if (olen < 2 || i + olen > doff)
			return -1;
		if (th[i] == RW_TCPOPT_MSS) {
			if (olen != 4 || at != 0)
				return -1;
			at = (int)i + 2;
		}
		i += olen;
	}
	return at;
}

/*
 * Clamp the MSS option of a TCP SYN (SYN-ACK included) in the IPv4 packet at
 * ip, of which len bytes are readable, to mss_max. Returns 1 when the MSS was
 * lowered (TCP checksum updated incrementally), 0 when the packet is left
 * untouched: not TCP, not a SYN, a non-first fragment, no MSS option, MSS
 * already <= mss_max, or a header or option that does not fit (IHL < 5,
 * data offset < 5, anything past min(len, total length), malformed options).
 * A first fragment (offset 0, MF set) is clamped: it carries the TCP header,
 * and the checksum update is valid for the reassembled segment.
 */
static inline int
rw_tcp_mss_clamp(uint8_t *ip, uint32_t len, uint16_t mss_max)
{
	uint32_t ihl, tot, doff;
	uint16_t old, new;
	uint8_t *th;
	int at;

	if (len < 20 || ip[9] != RW_IPPROTO_TCP)
		return 0;
	if (rw_load16(ip + 6) & rte_cpu_to_be_16(0x1fff))
		return 0; /* non-first fragment: no TCP header here */
	ihl = (uint32_t)(ip[0] & 0x0f) * 4;
	tot = rte_be_to_cpu_16(rw_load16(ip + 2));
	if (tot < len)
		len = tot;
	if (ihl < 20 || ihl + 20 > len)
		return 0;
	th = ip + ihl;
	if (!(th[13] & RW_TCP_SYN))
		return 0;
	doff = (uint32_t)(th[12] >> 4) * 4;
	if (doff <= 20 || ihl + doff > len)
		return 0;
	at = rw_tcp_find_mss(th, doff);
	if (at <= 0)
		return 0;
	old = rw_load16(th + at);
	if (rte_be_to_cpu_16(old) <= mss_max)
		return 0;
	new = rte_cpu_to_be_16(mss_max);
	rw_store16(th + at, new);
	/*
	 * After an odd number of NOPs the value sits at an odd offset: its bytes
	 * then fall in the low half of one checksum word and the high half of the
	 * next, i.e. it is summed byte-swapped.
	 */
	if (at & 1) {
		old = rte_bswap16(old);
		new = rte_bswap16(new);
	}
	rw_store16(th + 16, rw_csum_update16(rw_load16(th + 16), old, new));
	return 1;
}

/* --- upstream: PPPoE decap ------------------------------------------------- */

/*
 * Turn an access frame classified CLS_PPPOE_SESS_IPV4 (r from
 * classify_frame() on this mbuf) into a core frame with header ct: trim the
 * Ethernet padding after the IPv4 packet (r->l3_len bytes), then one
 * rte_pktmbuf_adj() of r->l3_off - ct->len, which strips Ethernet, both tags,
 * PPPoE and PPP and leaves exactly the room of the core header, written over
 * the old bytes. Equivalent to adj(l3_off) + prepend(ct->len), without the
 * round trip. Returns 0; -EINVAL when r is not a session IPv4 result or its
 * window is not inside the first segment and the packet (then m is untouched).
 */
static inline int
rw_decap_pppoe(struct rte_mbuf *m, const struct cls_result *r, const struct rw_core_tmpl *ct)
{
	uint32_t end = (uint32_t)r->l3_off + r->l3_len;
	uint32_t pad;
	uint8_t *h;

	if ((r->kind != CLS_PPPOE_SESS_IPV4 && r->kind != CLS_PPPOE_SESS_IPV6 &&
	     r->kind != CLS_IPOE_IPV4 && r->kind != CLS_IPOE_IPV6) ||
	    r->l3_off < ((r->kind == CLS_IPOE_IPV4 || r->kind == CLS_IPOE_IPV6) ? RW_IPOE_LEN
										: RW_ENCAP_LEN) ||
	    r->l3_off < ct->len || end > rte_pktmbuf_data_len(m) || end > rte_pktmbuf_pkt_len(m))
		return -EINVAL;
	pad = rte_pktmbuf_pkt_len(m) - end;
	/* Padding in another segment than the last cannot be trimmed in place. */
	if (pad != 0 && m->nb_segs > 1 && rte_pktmbuf_lastseg(m)->data_len < pad)
		return -EINVAL;
	if (pad != 0)
		rte_pktmbuf_trim(m, (uint16_t)pad);
	h = (uint8_t *)rte_pktmbuf_adj(m, (uint16_t)(r->l3_off - ct->len));
	/* Two fixed-size copies: the compiler turns each into a few stores. */
	if (ct->len == RW_CORE_MAX_LEN)
		memcpy(h, ct->hdr, RW_CORE_MAX_LEN);
	else
		memcpy(h, ct->hdr, 14);
	return 0;
}

/* --- downstream: core strip, PPPoE encap ----------------------------------- */

/*
 * Strip the core Ethernet header (and VLAN tag) of a frame classified
 * CLS_CORE_IPV4, and the padding after the IPv4 packet, so that m starts at
 * the IPv4 header and holds exactly r->l3_len bytes. Returns 0 or -EINVAL
 * (m untouched) for another kind or a window outside the first segment.
 */
static inline int
rw_core_strip(struct rte_mbuf *m, const struct cls_result *r)
{
	uint32_t end = (uint32_t)r->l3_off + r->l3_len;
	uint32_t pad;

	if ((r->kind != CLS_CORE_IPV4 && r->kind != CLS_CORE_IPV6) ||
	    end > rte_pktmbuf_data_len(m) || end > rte_pktmbuf_pkt_len(m))
		return -EINVAL;
	pad = rte_pktmbuf_pkt_len(m) - end;
	if (pad != 0 && m->nb_segs > 1 && rte_pktmbuf_lastseg(m)->data_len < pad)
		return -EINVAL;
	if (pad != 0)
		rte_pktmbuf_trim(m, (uint16_t)pad);
	rte_pktmbuf_adj(m, r->l3_off);
	return 0;
}

/*
 * Prepend the session's access header to m, which starts at an IPv4 packet
 * and holds exactly that packet (rw_core_strip()): one rte_pktmbuf_prepend()
 * of 30 bytes, a copy of t->hdr, then the PCP of traffic class tc
 * (pcp->pcp[tc & 15]) ORed into both TCIs and the PPPoE length (IPv4 total
 * length + 2) stored. Returns 0; -EINVAL (m untouched) when the first
 * segment holds fewer than 20 bytes or the IPv4 total length differs from
 * the packet length; -ENOSPC (m untouched) when the headroom is below 30.
 */
static inline int
rw_encap_pppoe(struct rte_mbuf *m, const struct rw_encap_tmpl *t, const struct rw_pcp_map *pcp,
	       uint8_t tc)
{
	const uint8_t *ip = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t tot, tci_pcp;
	uint8_t *h;

	if (rte_pktmbuf_data_len(m) < 20)
		return -EINVAL;
	tot = rte_be_to_cpu_16(rw_load16(ip + 2));
	if (tot != rte_pktmbuf_pkt_len(m) || tot > 0xffff - 2)
		return -EINVAL;
	h = (uint8_t *)rte_pktmbuf_prepend(m, RW_ENCAP_LEN);
	if (h == NULL)
		return -ENOSPC;
	memcpy(h, t->hdr, RW_ENCAP_LEN);
	/* PCP is the top 3 bits of the TCI, i.e. of its first byte. */
	tci_pcp = (uint16_t)((pcp->pcp[tc & (RW_NUM_TC - 1)] & 7) << 5);
	h[RW_STAG_TCI_OFF] |= (uint8_t)tci_pcp;
	h[RW_CTAG_TCI_OFF] |= (uint8_t)tci_pcp;
	rw_store16(h + RW_PPPOE_LEN_OFF, rte_cpu_to_be_16((uint16_t)(tot + 2)));
	return 0;
}

/*
 * IPoE: like rw_encap_pppoe(), with the 22-byte header of an IPoE template
 * (no PPPoE length to write). -EINVAL for a PPPoE template.
 */
static inline int
rw_encap_ipoe(struct rte_mbuf *m, const struct rw_encap_tmpl *t, const struct rw_pcp_map *pcp,
	      uint8_t tc)
{
	const uint8_t *ip = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t tci_pcp;
	uint8_t *h;

	if (!t->ipoe || rte_pktmbuf_data_len(m) < 20 ||
	    rte_be_to_cpu_16(rw_load16(ip + 2)) != rte_pktmbuf_pkt_len(m))
		return -EINVAL;
	h = (uint8_t *)rte_pktmbuf_prepend(m, RW_IPOE_LEN);
	if (h == NULL)
		return -ENOSPC;
	memcpy(h, t->hdr, RW_IPOE_LEN);
	tci_pcp = (uint16_t)((pcp->pcp[tc & (RW_NUM_TC - 1)] & 7) << 5);
	h[RW_STAG_TCI_OFF] |= (uint8_t)tci_pcp;
	h[RW_CTAG_TCI_OFF] |= (uint8_t)tci_pcp;
	return 0;
}

/* The access header of a session's IPv4 packet: PPPoE or IPoE by its template. */
static inline int
rw_encap_ipv4(struct rte_mbuf *m, const struct rw_encap_tmpl *t, const struct rw_pcp_map *pcp,
	      uint8_t tc)
{
	if (t->ipoe)
		return rw_encap_ipoe(m, t, pcp, tc);
	return rw_encap_pppoe(m, t, pcp, tc);
}

/*
 * IPv6: like rw_encap_pppoe(), for m holding exactly an IPv6 packet: the
 * PPPoE length is 40 + payload length + 2 and the PPP protocol 0x0057.
 */
static inline int
rw_encap_pppoe6(struct rte_mbuf *m, const struct rw_encap_tmpl *t, const struct rw_pcp_map *pcp,
		uint8_t tc)
{
	const uint8_t *ip = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t tot;
	uint16_t tci_pcp;
	uint8_t *h;

	if (rte_pktmbuf_data_len(m) < 40)
		return -EINVAL;
	tot = 40u + rte_be_to_cpu_16(rw_load16(ip + 4));
	if (tot != rte_pktmbuf_pkt_len(m) || tot > 0xffff - 2)
		return -EINVAL;
	h = (uint8_t *)rte_pktmbuf_prepend(m, RW_ENCAP_LEN);
	if (h == NULL)
		return -ENOSPC;
	memcpy(h, t->hdr, RW_ENCAP_LEN);
	tci_pcp = (uint16_t)((pcp->pcp[tc & (RW_NUM_TC - 1)] & 7) << 5);
	h[RW_STAG_TCI_OFF] |= (uint8_t)tci_pcp;
	h[RW_CTAG_TCI_OFF] |= (uint8_t)tci_pcp;
	rw_store16(h + RW_PPPOE_LEN_OFF, rte_cpu_to_be_16((uint16_t)(tot + 2)));
	h[RW_ENCAP_LEN - 2] = 0x00;
	h[RW_ENCAP_LEN - 1] = 0x57;
	return 0;
}

/*
 * IPoE IPv6: the IPoE template's 22-byte header with Ethertype 0x86DD, for m
 * holding exactly an IPv6 packet. -EINVAL for a PPPoE template or a length
 * that is not the packet's; -ENOSPC without the headroom.
 */
static inline int
rw_encap_ipoe6(struct rte_mbuf *m, const struct rw_encap_tmpl *t, const struct rw_pcp_map *pcp,
	       uint8_t tc)
{
	const uint8_t *ip = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t tci_pcp;
	uint8_t *h;

	if (!t->ipoe || rte_pktmbuf_data_len(m) < 40 ||
	    40u + rte_be_to_cpu_16(rw_load16(ip + 4)) != rte_pktmbuf_pkt_len(m))
		return -EINVAL;
	h = (uint8_t *)rte_pktmbuf_prepend(m, RW_IPOE_LEN);
	if (h == NULL)
		return -ENOSPC;
	memcpy(h, t->hdr, RW_IPOE_LEN);
	tci_pcp = (uint16_t)((pcp->pcp[tc & (RW_NUM_TC - 1)] & 7) << 5);
	h[RW_STAG_TCI_OFF] |= (uint8_t)tci_pcp;
	h[RW_CTAG_TCI_OFF] |= (uint8_t)tci_pcp;
	h[RW_IPOE_LEN - 2] = 0x86;
	h[RW_IPOE_LEN - 1] = 0xdd;
	return 0;
}

/* The access header of a session's IPv6 packet: PPPoE or IPoE by its template. */
static inline int
rw_encap_ipv6(struct rte_mbuf *m, const struct rw_encap_tmpl *t, const struct rw_pcp_map *pcp,
	      uint8_t tc)
{
	if (t->ipoe)
		return rw_encap_ipoe6(m, t, pcp, tc);
	return rw_encap_pppoe6(m, t, pcp, tc);
}

/* The DSCP of the IPv6 header at ip (upper 6 bits of the traffic class). */
static inline uint8_t
rw_ipv6_dscp(const uint8_t *ip)
{
	return (uint8_t)(((ip[0] & 0x0f) << 2) | (ip[1] >> 6));
}

/* Set the DSCP of the IPv6 header at ip; ECN and the flow label are kept. */
static inline void
rw_ipv6_dscp_set(uint8_t *ip, uint8_t dscp)
{
	ip[0] = (uint8_t)(0x60 | (dscp >> 2));
	ip[1] = (uint8_t)(((dscp & 3) << 6) | (ip[1] & 0x3f));
}

/*
 * Clamp the MSS of a TCP SYN in the IPv6 packet at ip (len readable bytes;
 * TCP directly after the fixed header, next header 6) to mss_max. Returns 1
 * when lowered (checksum updated incrementally), else 0, as rw_tcp_mss_clamp().
 */
static inline int
rw_tcp6_mss_clamp(uint8_t *ip, uint32_t len, uint16_t mss_max)
{
	uint32_t tot, doff;
	uint16_t old, new;
	uint8_t *th;
	int at;

	if (len < 60 || ip[6] != RW_IPPROTO_TCP)
		return 0;
	tot = 40u + rte_be_to_cpu_16(rw_load16(ip + 4));
	if (tot < len)
		len = tot;
	if (len < 60)
		return 0;
	th = ip + 40;
	if (!(th[13] & RW_TCP_SYN))
		return 0;
	doff = (uint32_t)(th[12] >> 4) * 4;
	if (doff <= 20 || 40 + doff > len)
		return 0;
	at = rw_tcp_find_mss(th, doff);
	if (at <= 0)
		return 0;
	old = rw_load16(th + at);
	if (rte_be_to_cpu_16(old) <= mss_max)
		return 0;
	new = rte_cpu_to_be_16(mss_max);
	rw_store16(th + at, new);
	if (at & 1) {
		old = rte_bswap16(old);
		new = rte_bswap16(new);
	}
	rw_store16(th + 16, rw_csum_update16(rw_load16(th + 16), old, new));
	return 1;
}

#endif /* BNG_REWRITE_H */

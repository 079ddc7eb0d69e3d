/*
 * bng-dp frame classifier: the first per-packet stage.
 *
 * One data port carries both sides of an instance:
 *   access  QinQ: outer S-tag (TPID 0x88a8 or 0x8100), inner C-tag (0x8100),
 *           then PPPoE discovery / session, or IPoE (IPv4 / IPv6 / ARP);
 *   core    untagged (core VLAN 0) or one 0x8100 tag with the core VLAN,
 *           then IPv4, ARP or IPv6 (Neighbor Discovery: CLS_CORE_ND, to a
 *           core MAC or an IPv6 multicast MAC 33:33:xx:xx:xx:xx).
 * The classifier maps a frame to a kind, a line (access) and the offsets the
 * next stage needs, or to one drop reason. Frames of lines the instance does
 * not serve are dropped and counted here, never punted.
 *
 * Data layout (struct line_map, built once on the control thread):
 *   stag[4096]  uint16 per S-tag, direct-indexed by the S-tag VLAN id:
 *                 LM_NONE           no line of this instance;
 *                 < LM_LIST_FLAG    one line index for the whole S-tag, whose
 *                                   C-range is then checked (lines[i].ctag_lo/hi);
 *                 LM_LIST_FLAG | k  lists[k]: a run of crange entries, sorted by
 *                                   C-tag lo, non-overlapping, searched by
 *                                   binary search: at most ceil(log2(n + 1))
 *                                   probes for n lines on the S-tag (<= 11).
 *   lines[]     per line: C-range, group, AC MAC (a 48-bit key).
 *   core_macs[] the line groups' core MACs, sorted and unique; binary search,
 *               at most 9 probes for 256 groups.
 * Cost of a line lookup: one 8 KiB table read, one 16-byte line entry read,
 * plus the binary search for S-tags split between several lines.
 *
 * Destination MAC rule: an access frame must be sent to the AC MAC of its
 * line's group (broadcast is accepted for PPPoE discovery, IPoE IPv4 and
 * ARP, an IPv6 multicast MAC 33:33:xx:xx:xx:xx for IPoE IPv6); a
 * core frame must be sent to one of the core MACs (broadcast for ARP only).
 * Everything else, multicast included, is CLS_DROP_DST_MAC.
 *
 * classify_frame() reads only frame[0..len), allocates nothing, takes no lock,
 * makes no system call, and does a bounded amount of work.
 */

#ifndef BNG_CLASSIFY_H
#define BNG_CLASSIFY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "dp_config.h"

/* --- line map ------------------------------------------------------------ */

#define LM_NUM_STAGS 4096
#define LM_NONE 0xffffu
#define LM_LIST_FLAG 0x8000u
/* S-tags shared by several lines: distinct runs, and their entries in total. */
#define LM_MAX_LISTS 2048
#define LM_MAX_CRANGES 16384
#define LM_MAX_CORE_MACS DP_MAX_LINE_GROUPS

#define CLS_NO_LINE 0xffffu
#define CLS_MAC_BCAST 0xffffffffffffULL

/* One C-range of an S-tag shared by several lines. */
struct lm_crange {
	uint16_t lo;
	uint16_t hi;
	uint16_t line;
};

/* A run of lm_crange entries: cranges[first .. first + count). */
struct lm_list {
	uint16_t first;
	uint16_t count;
};

/* What the classifier needs of a line, 16 bytes. */
struct lm_line {
	uint16_t ctag_lo;
	uint16_t ctag_hi;
	uint16_t group;
	uint16_t flags;	 /* LM_LINE_*: what the group allows */
	uint64_t ac_mac; /* mac_key() of the group's AC MAC */
};

/* struct lm_line flags. */
#define LM_LINE_IPOE 0x0001 /* the group's session_types include IPoE */

struct line_map {
	uint16_t stag[LM_NUM_STAGS];
	uint16_t core_vlan; /* 0 = untagged core side */
	uint16_t n_lines;
	uint16_t n_lists;
	uint16_t n_cranges;
	uint16_t n_core_macs;
	struct lm_line lines[DP_MAX_LINES];
	struct lm_list lists[LM_MAX_LISTS];
	struct lm_crange cranges[LM_MAX_CRANGES];
	uint64_t core_macs[LM_MAX_CORE_MACS]; /* sorted, unique */
};

/*
 * Build the map of a loaded and validated configuration (control thread).
 * Only served groups are in it: the lines and core MAC of a standby group
 * (dp_line_group.standby) are left out, so their frames classify as
 * CLS_DROP_UNSERVED_LINE / CLS_DROP_DST_MAC and line_map_lookup() misses.
 * Checks again what the lookup relies on (indices in range, tags 1..4094,
 * no overlapping (S, C)). Returns 0, or -EINVAL / -ENOSPC with a one-line
 * message in err; m is then all zeros except stag[] = LM_NONE.
 */
int line_map_build(struct line_map *m, const struct dp_config *cfg, char *err, size_t errlen);

/* --- results ------------------------------------------------------------- */

/* Result kinds and drop reasons, with their telemetry names: classify.def. */
enum cls_kind {
#define CLS_KIND_DEF(sym, name) CLS_##sym,
#include "classify.def"
#undef CLS_KIND_DEF
	CLS_KIND_MAX
};

/* Drop reasons, one per check, in the order the checks run. */
enum cls_drop {
#define CLS_DROP_DEF(sym, name) CLS_DROP_##sym,
#include "classify.def"
#undef CLS_DROP_DEF
	CLS_DROP_MAX
};

extern const char *const cls_drop_names[CLS_DROP_MAX];
extern const char *const cls_kind_names[CLS_KIND_MAX];

/*
 * l3_off / l3_len by kind:
 *   PPPOE_DISC       the PPPoE header; 6 + PPPoE length
 *   PPPOE_SESS_IPV4  the IPv4 header; IPv4 total length (IPV6: 40 + payload)
 *   PPPOE_SESS_CTRL  the PPP payload after the protocol; PPPoE length - 2
 *   IPOE_*, CORE_IPV4 the IP header; its total length
 *   CORE_ARP, IPOE_ARP the ARP packet; 28
 *   DROP             0; 0
 * stag/ctag: the tags seen (0 when absent); for a tagged core frame stag is
 * the core VLAN. line: the line index for access kinds (and for drops after
 * the line lookup), else CLS_NO_LINE.
 */
struct cls_result {
	uint8_t kind;	 /* enum cls_kind */
	uint8_t drop;	 /* enum cls_drop; CLS_DROP_NONE unless kind == CLS_DROP */
	uint16_t line;	 /* index into dp_config.lines or CLS_NO_LINE */
	uint16_t stag;	 /* outer VLAN id */
	uint16_t ctag;	 /* inner VLAN id */
	uint16_t sid;	 /* PPPoE session id (host order) */
	uint16_t proto;	 /* PPP protocol (host order), session kinds */
	uint16_t l3_off; /* from the start of the frame */
	uint16_t l3_len;
};

/* Per worker, plain increments. sum(kind[]) == frames; kind[CLS_DROP] == sum(drop[]). */
struct cls_counters {
	uint64_t kind[CLS_KIND_MAX];
	uint64_t drop[CLS_DROP_MAX];
};

/* --- classifier ---------------------------------------------------------- */

#define CLS_ETH_IPV4 0x0800
#define CLS_ETH_ARP 0x0806
#define CLS_ETH_VLAN 0x8100
#define CLS_ETH_QINQ 0x88a8
#define CLS_ETH_QINQ_OLD 0x9100
#define CLS_ETH_IPV6 0x86dd
#define CLS_ETH_PPPOE_DISC 0x8863
#define CLS_ETH_PPPOE_SESS 0x8864

#define CLS_PADI 0x09
#define CLS_PADR 0x19
#define CLS_PADT 0xa7

#define CLS_PPP_IPV4 0x0021
#define CLS_PPP_IPV6 0x0057
#define CLS_PPP_LCP 0xc021
#define CLS_PPP_PAP 0xc023
#define CLS_PPP_CHAP 0xc223
#define CLS_PPP_IPCP 0x8021
#define CLS_PPP_IPV6CP 0x8057

/* Big-endian 16-bit load from a byte pointer (no alignment assumed). */
static inline uint16_t
cls_be16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return rte_be_to_cpu_16(v);
}

/* A MAC address as a 48-bit integer, first byte most significant. */
static inline uint64_t
mac_key(const uint8_t *p)
{
	uint32_t hi;
	uint16_t lo;

	memcpy(&hi, p, sizeof(hi));
	memcpy(&lo, p + 4, sizeof(lo));
	return (uint64_t)rte_be_to_cpu_32(hi) << 16 | rte_be_to_cpu_16(lo);
}

/* Line of (stag, ctag), or CLS_NO_LINE. */
static inline uint16_t
line_map_lookup(const struct line_map *m, uint16_t stag, uint16_t ctag)
{
	uint16_t e = m->stag[stag & (LM_NUM_STAGS - 1)];
	const struct lm_crange *cr;
	uint32_t lo, n, half;

	if (e == LM_NONE)
		return CLS_NO_LINE;
	if (!(e & LM_LIST_FLAG)) {
		const struct lm_line *l = &m->lines[e];

		return (ctag >= l->ctag_lo && ctag <= l->ctag_hi) ? e : CLS_NO_LINE;
	}
	/* Last entry with lo <= ctag, then check its hi. */
	cr = &m->cranges[m->lists[e & ~LM_LIST_FLAG].first];
	n = m->lists[e & ~LM_LIST_FLAG].count;
	lo = 0;
	while (n > 1) {
		half = n / 2;
		if (cr[lo + half].lo <= ctag)
			lo += half;
		n -= half;
	}
	if (ctag >= cr[lo].lo && ctag <= cr[lo].hi)
		return cr[lo].line;
	return CLS_NO_LINE;
}

static inline int
cls_core_mac_ok(const struct line_map *m, uint64_t key)
{
	uint32_t lo = 0, n = m->n_core_macs, half;

	if (n == 0)
		return 0;
	while (n > 1) {
		half = n / 2;
		if (m->core_macs[lo + half] <= key)
			lo += half;
		n -= half;
	}
	return m->core_macs[lo] == key;
}

static inline enum cls_kind
cls_drop_frame(struct cls_result *r, struct cls_counters *c, enum cls_drop why)
{
	r->kind = CLS_DROP;
	r->drop = (uint8_t)why;
	r->l3_off = 0;
	r->l3_len = 0;
	c->kind[CLS_DROP]++;
	c->drop[why]++;
	return CLS_DROP;
}

static inline enum cls_kind
cls_accept(struct cls_result *r, struct cls_counters *c, enum cls_kind kind, uint32_t off,
	   uint32_t l3len)
{
	r->kind = (uint8_t)kind;
	r->l3_off = (uint16_t)off;
	r->l3_len = (uint16_t)l3len;
	c->kind[kind]++;
	return kind;
}

/* IPv4 header at frame[off], avail bytes of L3. */
static inline enum cls_kind
cls_ipv4(const uint8_t *frame, uint32_t off, uint32_t avail, enum cls_kind kind,
	 struct cls_result *r, struct cls_counters *c)
{
	const uint8_t *ip = frame + off;
	uint32_t ihl, tot;

	if (avail < 20 || (ip[0] >> 4) != 4)
		return cls_drop_frame(r, c, CLS_DROP_IPV4_VERSION);
	ihl = (uint32_t)(ip[0] & 0x0f) * 4;
	if (ihl < 20)
		return cls_drop_frame(r, c, CLS_DROP_IPV4_IHL);
	tot = cls_be16(ip + 2);
	if (tot < ihl || tot > avail)
		return cls_drop_frame(r, c, CLS_DROP_IPV4_TOTAL_LEN);
	return cls_accept(r, c, kind, off, tot);
}

static inline enum cls_kind
cls_ipv6(const uint8_t *frame, uint32_t off, uint32_t avail, enum cls_kind kind,
	 struct cls_result *r, struct cls_counters *c)
{
	const uint8_t *ip = frame + off;
	uint32_t tot;

	if (avail < 40 || (ip[0] >> 4) != 6)
		return cls_drop_frame(r, c, CLS_DROP_IPV6_VERSION);
	tot = 40u + cls_be16(ip + 4);
	if (tot > avail)
		return cls_drop_frame(r, c, CLS_DROP_IPV6_PAYLOAD_LEN);
	return cls_accept(r, c, kind, off, tot);
}

/* Core side: ethertype et at frame[off - 2]. */
static inline enum cls_kind
cls_core(const struct line_map *m, const uint8_t *frame, uint32_t len, uint32_t off, uint16_t et,
	 struct cls_result *r, struct cls_counters *c)
{
	uint64_t dst = mac_key(frame);
	const uint8_t *a;

	if (et == CLS_ETH_ARP) {
		if (dst != CLS_MAC_BCAST && !cls_core_mac_ok(m, dst))
			return cls_drop_frame(r, c, CLS_DROP_DST_MAC);
		a = frame + off;
		if (len - off < 28 || cls_be16(a) != 1 || cls_be16(a + 2) != CLS_ETH_IPV4 ||
		    a[4] != 6 || a[5] != 4)
			return cls_drop_frame(r, c, CLS_DROP_ARP_BAD);
		return cls_accept(r, c, CLS_CORE_ARP, off, 28);
	}
	if (et == CLS_ETH_IPV6) {
		const uint8_t *ip = frame + off;

		/* ICMPv6 Neighbor Solicitation / Advertisement, no extension header,
		 * the type inside the payload */
		if (len - off >= 41 && (ip[0] >> 4) == 6 && ip[6] == 58 && cls_be16(ip + 4) >= 1 &&
		    40u + cls_be16(ip + 4) <= len - off && (ip[40] == 135 || ip[40] == 136)) {
			if ((dst >> 32) != 0x3333 && !cls_core_mac_ok(m, dst))
				return cls_drop_frame(r, c, CLS_DROP_DST_MAC);
			if (ip[7] != 255 || cls_be16(ip + 4) < 24)
				return cls_drop_frame(r, c, CLS_DROP_ND_BAD);
			return cls_ipv6(frame, off, len - off, CLS_CORE_ND, r, c);
		}
		if (!cls_core_mac_ok(m, dst))
			return cls_drop_frame(r, c, CLS_DROP_DST_MAC);
		return cls_ipv6(frame, off, len - off, CLS_CORE_IPV6, r, c);
	}
	if (!cls_core_mac_ok(m, dst))
		return cls_drop_frame(r, c, CLS_DROP_DST_MAC);
	return cls_ipv4(frame, off, len - off, CLS_CORE_IPV4, r, c);
}

/* PPPoE header at frame[off], after the C-tag. */
static inline enum cls_kind
cls_pppoe(const uint8_t *frame, uint32_t len, uint32_t off, int session, struct cls_result *r,
	  struct cls_counters *c)
{
	const uint8_t *h = frame + off;
	uint32_t plen;
	uint16_t proto;
	uint8_t code;

	if (len - off < 6)
		return cls_drop_frame(r, c, CLS_DROP_RUNT);
	if (h[0] != 0x11)
		return cls_drop_frame(r, c, CLS_DROP_PPPOE_VER_TYPE);
	code = h[1];
	r->sid = cls_be16(h + 2);
	plen = cls_be16(h + 4);
	if (!session) {
		if (code != CLS_PADI && code != CLS_PADR && code != CLS_PADT)
			return cls_drop_frame(r, c, CLS_DROP_PPPOE_CODE);
		if ((code == CLS_PADT) != (r->sid != 0))
			return cls_drop_frame(r, c, CLS_DROP_PPPOE_DISC_SID);
		if (plen > len - off - 6)
			return cls_drop_frame(r, c, CLS_DROP_PPPOE_LENGTH);
		return cls_accept(r, c, CLS_PPPOE_DISC, off, 6 + plen);
	}
	if (code != 0)
		return cls_drop_frame(r, c, CLS_DROP_PPPOE_CODE);
	if (r->sid == 0 || r->sid == 0xffff)
		return cls_drop_frame(r, c, CLS_DROP_PPPOE_SESS_SID);
	if (plen < 2 || plen > len - off - 6)
		return cls_drop_frame(r, c, CLS_DROP_PPPOE_LENGTH);
	proto = cls_be16(h + 6);
	r->proto = proto;
	off += 8;
	plen -= 2;
	switch (proto) {
	case CLS_PPP_IPV4:
		return cls_ipv4(frame, off, plen, CLS_PPPOE_SESS_IPV4, r, c);
	case CLS_PPP_IPV6:
		return cls_ipv6(frame, off, plen, CLS_PPPOE_SESS_IPV6, r, c);
	case CLS_PPP_LCP:
	case CLS_PPP_PAP:
	case CLS_PPP_CHAP:
	case CLS_PPP_IPCP:
	case CLS_PPP_IPV6CP:
		return cls_accept(r, c, CLS_PPPOE_SESS_CTRL, off, plen);
	default:
		return cls_drop_frame(r, c, CLS_DROP_PPP_PROTO);
	}
}

/*
 * Classify one frame of len bytes. Fills every field of *r and counts the
 * result in *c. Check order: runt, tags, line, ethertype, destination MAC,
 * PPPoE header, PPP protocol, L3 header.
 */
static inline enum cls_kind
classify_frame(const struct line_map *m, const uint8_t *frame, uint32_t len, struct cls_result *r,
	       struct cls_counters *c)
{
	uint16_t et, inner, line;
	uint64_t dst;
	int bcast_ok;

	r->line = CLS_NO_LINE;
	r->stag = 0;
	r->ctag = 0;
	r->sid = 0;
	r->proto = 0;
	r->drop = CLS_DROP_NONE;
	if (len < 14)
		return cls_drop_frame(r, c, CLS_DROP_RUNT);
	et = cls_be16(frame + 12);
	if (et != CLS_ETH_QINQ && et != CLS_ETH_VLAN) {
		/* Untagged: the core side when the core VLAN is 0. */
		if (et != CLS_ETH_IPV4 && et != CLS_ETH_ARP && et != CLS_ETH_IPV6)
			return cls_drop_frame(r, c, CLS_DROP_UNKNOWN_ETHERTYPE);
		if (m->core_vlan != 0)
			return cls_drop_frame(r, c, CLS_DROP_CORE_VLAN);
		return cls_core(m, frame, len, 14, et, r, c);
	}
	if (len < 18)
		return cls_drop_frame(r, c, CLS_DROP_RUNT);
	r->stag = cls_be16(frame + 14) & 0x0fff;
	inner = cls_be16(frame + 16);
	if (inner != CLS_ETH_VLAN) {
		if (et == CLS_ETH_QINQ || inner == CLS_ETH_QINQ || inner == CLS_ETH_QINQ_OLD)
			return cls_drop_frame(r, c, CLS_DROP_BAD_INNER_TPID);
		/* One 0x8100 tag: the core side when it is the core VLAN. */
		if (inner != CLS_ETH_IPV4 && inner != CLS_ETH_ARP && inner != CLS_ETH_IPV6)
			return cls_drop_frame(r, c, CLS_DROP_SINGLE_TAG);
		if (m->core_vlan == 0 || r->stag != m->core_vlan)
			return cls_drop_frame(r, c, CLS_DROP_CORE_VLAN);
		return cls_core(m, frame, len, 18, inner, r, c);
	}
	if (len < 22)
		return cls_drop_frame(r, c, CLS_DROP_RUNT);
	r->ctag = cls_be16(frame + 18) & 0x0fff;
	line = line_map_lookup(m, r->stag, r->ctag);
	if (line == CLS_NO_LINE)
		return cls_drop_frame(r, c, CLS_DROP_UNSERVED_LINE);
	r->line = line;
	et = cls_be16(frame + 20);
	dst = mac_key(frame);
	switch (et) {
	case CLS_ETH_PPPOE_SESS:
		bcast_ok = 0;
		break;
	case CLS_ETH_PPPOE_DISC:
	case CLS_ETH_IPV4:
	case CLS_ETH_ARP:
		bcast_ok = 1;
		break;
	case CLS_ETH_IPV6:
		bcast_ok = 2; /* IPv6 multicast 33:33:xx:xx:xx:xx, not broadcast */
		break;
	default:
		return cls_drop_frame(r, c, CLS_DROP_UNKNOWN_ETHERTYPE);
	}
	if (dst != m->lines[line].ac_mac && !(bcast_ok == 1 && dst == CLS_MAC_BCAST) &&
	    !(bcast_ok == 2 && (dst >> 32) == 0x3333))
		return cls_drop_frame(r, c, CLS_DROP_DST_MAC);
	if (et == CLS_ETH_PPPOE_DISC || et == CLS_ETH_PPPOE_SESS)
		return cls_pppoe(frame, len, 22, et == CLS_ETH_PPPOE_SESS, r, c);
	if (et == CLS_ETH_IPV4)
		return cls_ipv4(frame, 22, len - 22, CLS_IPOE_IPV4, r, c);
	if (et == CLS_ETH_ARP) {
		const uint8_t *a = frame + 22;

		if (len - 22 < 28 || cls_be16(a) != 1 || cls_be16(a + 2) != CLS_ETH_IPV4 ||
		    a[4] != 6 || a[5] != 4)
			return cls_drop_frame(r, c, CLS_DROP_ARP_BAD);
		return cls_accept(r, c, CLS_IPOE_ARP, 22, 28);
	}
	return cls_ipv6(frame, 22, len - 22, CLS_IPOE_IPV6, r, c);
}

/* Frames ahead whose first cache line is prefetched. */
#define CLS_PREFETCH_AHEAD 4

/*
 * Classify a burst: res[i] for pkts[i]. Headers must be in the first segment
 * (only rte_pktmbuf_data_len() bytes are read). Returns the number of frames
 * that are not CLS_DROP.
 */
static inline uint16_t
classify_burst(const struct line_map *m, struct rte_mbuf **pkts, uint16_t n, struct cls_result *res,
	       struct cls_counters *c)
{
	uint16_t i, kept = 0;

	for (i = 0; i < n && i < CLS_PREFETCH_AHEAD; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], const void *));
	for (i = 0; i < n; i++) {
		if (i + CLS_PREFETCH_AHEAD < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + CLS_PREFETCH_AHEAD], const void *));
		kept += classify_frame(m, rte_pktmbuf_mtod(pkts[i], const uint8_t *),
				       rte_pktmbuf_data_len(pkts[i]), &res[i], c) != CLS_DROP;
	}
	return kept;
}

#endif /* BNG_CLASSIFY_H */

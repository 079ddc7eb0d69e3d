/*
 * PFCP codec (pfcp.h).
 */

#include <errno.h>
#include <string.h>

#include "pfcp.h"

/* ---- big-endian helpers ------------------------------------------------- */

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}

static inline uint32_t
rd24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t
rd40(const uint8_t *p)
{
	return (uint64_t)p[0] << 32 | rd32(p + 1);
}

static inline uint64_t
rd64(const uint8_t *p)
{
	return (uint64_t)rd32(p) << 32 | rd32(p + 4);
}

/* ---- header ------------------------------------------------------------- */

int
pfcp_hdr_decode(const uint8_t *buf, size_t len, struct pfcp_hdr *h)
{
	memset(h, 0, sizeof(*h));
	if (len < 4)
		return PFCP_EHDR;
	h->version = buf[0] >> 5;
	h->flags = buf[0] & 0x07;
	h->type = buf[1];
	h->length = rd16(buf + 2);
	h->hdr_len = (h->flags & PFCP_FLAG_S) ? PFCP_HDR_LEN_SESS : PFCP_HDR_LEN_NODE;
	if (len < h->hdr_len)
		return PFCP_EHDR;
	if (h->flags & PFCP_FLAG_S)
		h->seid = rd64(buf + 4);
	h->seq = rd24(buf + h->hdr_len - 4);
	if (h->flags & PFCP_FLAG_MP)
		h->priority = buf[h->hdr_len - 1] >> 4;
	if (h->version != PFCP_VERSION)
		return PFCP_EVERSION;
	h->msg_len = (uint32_t)h->length + 4;
	if (h->msg_len < h->hdr_len || h->msg_len > len)
		return PFCP_EHDR;
	return PFCP_OK;
}

/* ---- IE walker ------------------------------------------------------------ */

struct ie {
	uint16_t type; /* BBF IEs keep bit 15 */
	uint16_t len;  /* value length (enterprise id excluded) */
	const uint8_t *v;
};

struct dctx {
	struct pfcp_msg *m;
	struct pfcp_derr *e;
};

typedef int (*ie_fn)(struct dctx *c, const struct ie *ie, void *obj, int depth);

static int
fail(struct dctx *c, uint8_t cause, uint16_t ie)
{
	c->e->cause = cause;
	c->e->offending_ie = ie;
	return PFCP_EIE;
}

static bool
lg_name_char(uint8_t ch, bool first)
{
	if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'))
		return true;
	return !first && (ch == '_' || ch == '.' || ch == '-');
}

static bool
lg_mac_ok(const uint8_t *mac)
{
	static const uint8_t zero[6];

	return !(mac[0] & 0x01) && memcmp(mac, zero, 6) != 0;
}

static bool
lg_ipv4_ok(uint32_t a)
{
	uint8_t top = (uint8_t)(a >> 24);

	return top != 0 && top != 127 && top < 224;
}

bool
pfcp_ipv6_global(const uint8_t *a)
{
	return a[0] != 0 && a[0] != 0xff && !(a[0] == 0xfe && (a[1] & 0x80) == 0x80);
}

int
pfcp_line_group_decode(const uint8_t *v, size_t len, struct pfcp_line_group *lg)
{
	size_t n;

	memset(lg, 0, sizeof(*lg));
	if (v == NULL || len < PFCP_LG_FIXED_LEN + 1)
		return -EINVAL;
	n = v[17];
	if (n < 1 || n > PFCP_LG_NAME_MAX ||
	    (len != PFCP_LG_FIXED_LEN + n && len != PFCP_LG_FIXED_LEN + n + 16))
		return -EINVAL;
	if (v[0] != PFCP_LG_ADOPT && v[0] != PFCP_LG_RELEASE)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!lg_name_char(v[PFCP_LG_FIXED_LEN + i], i == 0))
			return -EINVAL;
	lg->action = v[0];
	memcpy(lg->ac_mac, v + 1, 6);
	memcpy(lg->core_mac, v + 7, 6);
	lg->core_ipv4 = rd32(v + 13);
	if (len == PFCP_LG_FIXED_LEN + n + 16) {
		lg->has_core_ipv6 = true;
		memcpy(lg->core_ipv6, v + PFCP_LG_FIXED_LEN + n, 16);
	}
	if (lg->action == PFCP_LG_ADOPT &&
	    (!lg_mac_ok(lg->ac_mac) || !lg_mac_ok(lg->core_mac) || !lg_ipv4_ok(lg->core_ipv4) ||
	     (lg->has_core_ipv6 && !pfcp_ipv6_global(lg->core_ipv6)))) {
		memset(lg, 0, sizeof(*lg));
		return -EINVAL;
	}
	lg->name_len = (uint8_t)n;
	memcpy(lg->name, v + PFCP_LG_FIXED_LEN, n);
	lg->name[n] = '\0';
	return 0;
}

int
pfcp_line_group_encode(const struct pfcp_line_group *lg, uint8_t *buf, size_t cap)
{
	size_t n = lg->name_len;

	if (n > PFCP_LG_NAME_MAX || cap < PFCP_LG_FIXED_LEN + n + (lg->has_core_ipv6 ? 16 : 0))
		return -ENOSPC;
	buf[0] = lg->action;
	memcpy(buf + 1, lg->ac_mac, 6);
	memcpy(buf + 7, lg->core_mac, 6);
	buf[13] = (uint8_t)(lg->core_ipv4 >> 24);
	buf[14] = (uint8_t)(lg->core_ipv4 >> 16);
	buf[15] = (uint8_t)(lg->core_ipv4 >> 8);
	buf[16] = (uint8_t)lg->core_ipv4;
	buf[17] = (uint8_t)n;
	memcpy(buf + PFCP_LG_FIXED_LEN, lg->name, n);
	if (lg->has_core_ipv6) {
		memcpy(buf + PFCP_LG_FIXED_LEN + n, lg->core_ipv6, 16);
		return (int)(PFCP_LG_FIXED_LEN + n + 16);
	}
	return (int)(PFCP_LG_FIXED_LEN + n);
}

int
pfcp_ra_offload_decode(const uint8_t *v, size_t len, struct pfcp_ra_offload *ra)
{
	uint8_t prefix[16] = {0};
	size_t n;

	memset(ra, 0, sizeof(*ra));
	if (len == 0)
		return 0;
	if (v == NULL || len < PFCP_RA_FIXED_LEN)
		return -EINVAL;
	n = v[31];
	if (n > PFCP_RA_MAX_DNS || len != PFCP_RA_FIXED_LEN + 16 * n)
		return -EINVAL;
	ra->interval_s = rd16(v);
	ra->lifetime_s = rd16(v + 2);
	ra->flags = v[4];
	ra->mtu = rd16(v + 5);
	memcpy(ra->prefix, v + 7, 8);
	ra->valid_s = rd32(v + 15);
	ra->preferred_s = rd32(v + 19);
	memcpy(ra->iid, v + 23, 8);
	ra->n_dns = (uint8_t)n;
	for (size_t i = 0; i < n; i++)
		memcpy(ra->dns[i], v + PFCP_RA_FIXED_LEN + 16 * i, 16);
	memcpy(prefix, ra->prefix, 8);
	if (ra->interval_s < PFCP_RA_MIN_INTERVAL || ra->interval_s > PFCP_RA_MAX_INTERVAL ||
	    (ra->lifetime_s != 0 &&
	     (ra->lifetime_s < ra->interval_s || ra->lifetime_s > PFCP_RA_MAX_LIFETIME)) ||
	    (ra->flags & (uint8_t) ~(PFCP_RA_FLAG_M | PFCP_RA_FLAG_O)) != 0 ||
	    (ra->mtu != 0 && (ra->mtu < PFCP_RA_MIN_MTU || ra->mtu > 9000)) ||
	    !pfcp_ipv6_global(prefix) || ra->preferred_s > ra->valid_s || rd64(ra->iid) == 0)
		goto bad;
	for (size_t i = 0; i < n; i++)
		if (!pfcp_ipv6_global(ra->dns[i]))
			goto bad;
	ra->on = true;
	return 0;
bad:
	memset(ra, 0, sizeof(*ra));
	return -EINVAL;
}

int
pfcp_arp_ping_decode(const uint8_t *v, size_t len, struct pfcp_arp_ping *ap)
{
	memset(ap, 0, sizeof(*ap));
	if (len == 0)
		return 0;
	if (v == NULL || len != PFCP_ARP_PING_LEN || rd16(v) == 0 || v[2] == 0)
		return -EINVAL;
	ap->on = true;
	ap->interval_s = rd16(v);
	ap->count = v[2];
	return 0;
}

int
pfcp_arp_ping_encode(const struct pfcp_arp_ping *ap, uint8_t *buf, size_t cap)
{
	if (!ap->on)
		return 0;
	if (cap < PFCP_ARP_PING_LEN)
		return -ENOSPC;
	buf[0] = (uint8_t)(ap->interval_s >> 8);
	buf[1] = (uint8_t)ap->interval_s;
	buf[2] = ap->count;
	return PFCP_ARP_PING_LEN;
}

int
pfcp_ra_offload_encode(const struct pfcp_ra_offload *ra, uint8_t *buf, size_t cap)
{
	size_t n = ra->n_dns > PFCP_RA_MAX_DNS ? PFCP_RA_MAX_DNS : ra->n_dns;
	size_t len = ra->on ? PFCP_RA_FIXED_LEN + 16 * n : 0;

	if (cap < len)
		return -ENOSPC;
	if (!ra->on)
		return 0;
	buf[0] = (uint8_t)(ra->interval_s >> 8);
	buf[1] = (uint8_t)ra->interval_s;
	buf[2] = (uint8_t)(ra->lifetime_s >> 8);
	buf[3] = (uint8_t)ra->lifetime_s;
	buf[4] = ra->flags;
	buf[5] = (uint8_t)(ra->mtu >> 8);
	buf[6] = (uint8_t)ra->mtu;
	memcpy(buf + 7, ra->prefix, 8);
	for (int i = 0; i < 4; i++) {
		buf[15 + i] = (uint8_t)(ra->valid_s >> (24 - 8 * i));
		buf[19 + i] = (uint8_t)(ra->preferred_s >> (24 - 8 * i));
	}
	memcpy(buf + 23, ra->iid, 8);
	buf[31] = (uint8_t)n;
	for (size_t i = 0; i < n; i++)
		memcpy(buf + PFCP_RA_FIXED_LEN + 16 * i, ra->dns[i], 16);
	return (int)len;
}

/*
 * A bngpod IE (enterprise id still in front of the value): the Line Group IE
 * at the top level is decoded (a malformed one is cause 69), a repeat is
 * counted; anything else of bngpod's is skipped.
 */
static int
bngpod_ie(struct dctx *c, const struct ie *ie, uint16_t container, void *obj)
{
	struct pfcp_msg *m = c->m;

	if ((container == PFCP_IE_USAGE_REPORT_SMR || container == PFCP_IE_USAGE_REPORT_SDR ||
	     container == PFCP_IE_USAGE_REPORT_SRR) &&
	    ie->type == PFCP_IE_BNGPOD_DROPPED) {
		struct pfcp_usage_report *r = obj;

		size_t len = (size_t)ie->len - 2;

		/* another length, or a repeat: skipped, the report stands */
		if ((len != PFCP_DROPPED_LEN && len != PFCP_DROPPED_BYTES_LEN) ||
		    (r->present & PFCP_UR_DROPPED)) {
			m->n_skipped++;
			return PFCP_OK;
		}
		r->present |= PFCP_UR_DROPPED;
		r->dropped_ul = rd64(ie->v + 2);
		r->dropped_dl = rd64(ie->v + 10);
		if (len == PFCP_DROPPED_BYTES_LEN) { /* with the octets */
			r->present |= PFCP_UR_DROPPED_BYTES;
			r->dropped_ul_bytes = rd64(ie->v + 18);
			r->dropped_dl_bytes = rd64(ie->v + 26);
		}
		return PFCP_OK;
	}
	if (container == 0 && ie->type == PFCP_IE_BNGPOD_RA_OFFLOAD) {
		if (m->present & PFCP_M_BNGPOD_RA) {
			m->n_dup++;
			return PFCP_OK;
		}
		if (pfcp_ra_offload_decode(ie->v + 2, (size_t)ie->len - 2, &m->ra) != 0)
			return fail(c, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
				    PFCP_IE_BNGPOD_RA_OFFLOAD);
		m->present |= PFCP_M_BNGPOD_RA;
		return PFCP_OK;
	}
	if (container == 0 && ie->type == PFCP_IE_BNGPOD_ARP_PING) {
		if (m->present & PFCP_M_BNGPOD_ARP_PING) {
			m->n_dup++;
			return PFCP_OK;
		}
		if (pfcp_arp_ping_decode(ie->v + 2, (size_t)ie->len - 2, &m->arp_ping) != 0)
			return fail(c, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_BNGPOD_ARP_PING);
		m->present |= PFCP_M_BNGPOD_ARP_PING;
		return PFCP_OK;
	}
	if (container != 0 || ie->type != PFCP_IE_BNGPOD_LINE_GROUP) {
		m->n_skipped++;
		return PFCP_OK;
	}
	if (m->n_line_group < UINT8_MAX)
		m->n_line_group++;
	if (m->present & PFCP_M_BNGPOD_LINE_GROUP) {
		m->n_dup++;
		return PFCP_OK;
	}
	if (pfcp_line_group_decode(ie->v + 2, (size_t)ie->len - 2, &m->line_group) != 0)
		return fail(c, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_BNGPOD_LINE_GROUP);
	m->present |= PFCP_M_BNGPOD_LINE_GROUP;
	return PFCP_OK;
}

/* Walk the IEs of one container (the message body or a grouped IE value). */
static int
walk(struct dctx *c, const uint8_t *p, size_t n, uint16_t container, int depth, ie_fn fn, void *obj)
{
	size_t off = 0;

	if (depth > PFCP_MAX_DEPTH)
		return fail(c, PFCP_CAUSE_INVALID_LENGTH, container);
	while (off < n) {
		struct ie ie;
		uint16_t ilen;
		int rc;

		if (n - off < 4)
			return fail(c, PFCP_CAUSE_INVALID_LENGTH, container);
		ie.type = rd16(p + off);
		ilen = rd16(p + off + 2);
		off += 4;
		if (ilen > n - off)
			return fail(c, PFCP_CAUSE_INVALID_LENGTH, ie.type);
		ie.v = p + off;
		ie.len = ilen;
		off += ilen;
		if (++c->m->n_ies > PFCP_MAX_IES)
			return fail(c, PFCP_CAUSE_NO_RESOURCES_AVAILABLE, ie.type);
		if (ie.type & 0x8000) {
			if (ie.len < 2)
				return fail(c, PFCP_CAUSE_INVALID_LENGTH, ie.type);
			if (rd16(ie.v) == PFCP_ENTERPRISE_BNGPOD) {
				rc = bngpod_ie(c, &ie, container, obj);
				if (rc != PFCP_OK)
					return rc;
				continue;
			}
			if (rd16(ie.v) != PFCP_ENTERPRISE_BBF) {
				c->m->n_skipped++;
				continue;
			}
			ie.v += 2;
			ie.len -= 2;
		}
		rc = fn(c, &ie, obj, depth);
		if (rc != PFCP_OK)
			return rc;
	}
	return PFCP_OK;
}

/* A single-instance IE: the first wins; returns true if this one is a repeat. */
static bool
dup(struct dctx *c, uint32_t *present, uint32_t bit)
{
	if (*present & bit) {
		c->m->n_dup++;
		return true;
	}
	*present |= bit;
	return false;
}

static bool
dup64(struct dctx *c, uint64_t *present, uint64_t bit)
{
	if (*present & bit) {
		c->m->n_dup++;
		return true;
	}
	*present |= bit;
	return false;
}

static int
skip(struct dctx *c)
{
	c->m->n_skipped++;
	return PFCP_OK;
}

#define NEED(n)                                                              \
	do {                                                                 \
		if (ie->len < (n))                                           \
			return fail(c, PFCP_CAUSE_INVALID_LENGTH, ie->type); \
	} while (0)

static int
get_str(struct dctx *c, const struct ie *ie, struct pfcp_str *s)
{
	if (ie->len > PFCP_STR_MAX)
		return fail(c, PFCP_CAUSE_NO_RESOURCES_AVAILABLE, ie->type);
	s->len = ie->len;
	memcpy(s->v, ie->v, ie->len);
	return PFCP_OK;
}

/* Volume Threshold / Volume Measurement: flags, then the 8-octet fields flagged. */
static int
get_volume(struct dctx *c, const struct ie *ie, struct pfcp_volume *vol, bool measurement)
{
	uint8_t f, mask = measurement ? 0x3f : 0x07;
	uint64_t *fld[6] = {&vol->total,      &vol->ul,	     &vol->dl,
			    &vol->total_pkts, &vol->ul_pkts, &vol->dl_pkts};
	size_t off = 1;

	NEED(1);
	f = ie->v[0] & mask;
	vol->flags = f;
	for (int i = 0; i < 6; i++) {
		if (!(f & (1u << i)))
			continue;
		if (ie->len < off + 8)
			return fail(c, PFCP_CAUSE_INVALID_LENGTH, ie->type);
		*fld[i] = rd64(ie->v + off);
		off += 8;
	}
	return PFCP_OK;
}

static int
get_vlan(struct dctx *c, const struct ie *ie, struct pfcp_vlan *t)
{
	NEED(3);
	t->flags = ie->v[0] & 0x07;
	t->pcp = (t->flags & PFCP_VLAN_PCP) ? (ie->v[1] & 0x07) : 0;
	t->dei = (t->flags & PFCP_VLAN_DEI) ? ((ie->v[1] >> 3) & 1) : 0;
	t->vid = (t->flags & PFCP_VLAN_VID) ? (uint16_t)((ie->v[1] & 0xf0) << 4 | ie->v[2]) : 0;
	return PFCP_OK;
}

/* Node ID: type nibble, then IPv4, IPv6, or an FQDN as DNS labels. */
static int
get_node_id(struct dctx *c, const struct ie *ie, struct pfcp_node_id *n)
{
	NEED(1);
	n->type = ie->v[0] & 0x0f;
	switch (n->type) {
	case PFCP_NODE_ID_IPV4:
		NEED(5);
		n->ipv4 = rd32(ie->v + 1);
		return PFCP_OK;
	case PFCP_NODE_ID_IPV6:
		NEED(17);
		memcpy(n->ipv6, ie->v + 1, 16);
		return PFCP_OK;
	case PFCP_NODE_ID_FQDN: {
		size_t off = 1;

		n->fqdn.len = 0;
		while (off < ie->len) {
			uint8_t l = ie->v[off++];

			if (l == 0) {
				/* a root label is tolerated only as the last octet */
				if (off != ie->len)
					return fail(c, PFCP_CAUSE_MANDATORY_IE_INCORRECT, ie->type);
				break;
			}
			if (l > 63 || l > ie->len - off)
				return fail(c, PFCP_CAUSE_MANDATORY_IE_INCORRECT, ie->type);
			if (n->fqdn.len + (n->fqdn.len ? 1u : 0u) + l > PFCP_STR_MAX)
				return fail(c, PFCP_CAUSE_MANDATORY_IE_INCORRECT, ie->type);
			if (n->fqdn.len)
				n->fqdn.v[n->fqdn.len++] = '.';
			memcpy(n->fqdn.v + n->fqdn.len, ie->v + off, l);
			n->fqdn.len += l;
			off += l;
		}
		if (n->fqdn.len == 0)
			return fail(c, PFCP_CAUSE_MANDATORY_IE_INCORRECT, ie->type);
		return PFCP_OK;
	}
	default:
		return fail(c, PFCP_CAUSE_MANDATORY_IE_INCORRECT, ie->type);
	}
}

static int
get_fseid(struct dctx *c, const struct ie *ie, struct pfcp_fseid *f)
{
	size_t off = 9;

	NEED(9);
	f->flags = ie->v[0] & (PFCP_FSEID_V4 | PFCP_FSEID_V6);
	f->seid = rd64(ie->v + 1);
	if (f->flags == 0)
		return fail(c, PFCP_CAUSE_MANDATORY_IE_INCORRECT, ie->type);
	if (f->flags & PFCP_FSEID_V4) {
		NEED(off + 4);
		f->ipv4 = rd32(ie->v + off);
		off += 4;
	}
	if (f->flags & PFCP_FSEID_V6) {
		NEED(off + 16);
		memcpy(f->ipv6, ie->v + off, 16);
	}
	return PFCP_OK;
}

static int
get_ue_ip(struct dctx *c, const struct ie *ie, struct pfcp_ue_ip *u)
{
	size_t off = 1;

	NEED(1);
	u->flags = ie->v[0] & 0x7f;
	if ((u->flags & PFCP_UEIP_V4) && !(u->flags & PFCP_UEIP_CHV4)) {
		NEED(off + 4);
		u->ipv4 = rd32(ie->v + off);
		off += 4;
	}
	if ((u->flags & PFCP_UEIP_V6) && !(u->flags & PFCP_UEIP_CHV6)) {
		NEED(off + 16);
		memcpy(u->ipv6, ie->v + off, 16);
		off += 16;
	}
	if (u->flags & PFCP_UEIP_IPV6D) {
		NEED(off + 1);
		u->v6_pd_bits = ie->v[off++];
	}
	if (u->flags & PFCP_UEIP_IP6PL) {
		NEED(off + 1);
		u->v6_plen = ie->v[off++];
	}
	return PFCP_OK;
}

static int
get_ohc(struct dctx *c, const struct ie *ie, struct pfcp_ohc *o)
{
	size_t off = 2;

	NEED(2);
	o->desc = rd16(ie->v);
	if (o->desc & (PFCP_OHC_GTPU_UDP_IPV4 | PFCP_OHC_GTPU_UDP_IPV6)) {
		NEED(off + 4);
		o->teid = rd32(ie->v + off);
		off += 4;
	}
	if (o->desc & (PFCP_OHC_GTPU_UDP_IPV4 | PFCP_OHC_UDP_IPV4 | PFCP_OHC_IPV4)) {
		NEED(off + 4);
		o->ipv4 = rd32(ie->v + off);
		off += 4;
	}
	if (o->desc & (PFCP_OHC_GTPU_UDP_IPV6 | PFCP_OHC_UDP_IPV6 | PFCP_OHC_IPV6)) {
		NEED(off + 16);
		memcpy(o->ipv6, ie->v + off, 16);
		off += 16;
	}
	if (o->desc & (PFCP_OHC_UDP_IPV4 | PFCP_OHC_UDP_IPV6)) {
		NEED(off + 2);
		o->port = rd16(ie->v + off);
		off += 2;
	}
	if (o->desc & PFCP_OHC_CTAG) {
		NEED(off + 3);
		o->ctag = rd24(ie->v + off);
		off += 3;
	}
	if (o->desc & PFCP_OHC_STAG) {
		NEED(off + 3);
		o->stag = rd24(ie->v + off);
	}
	return PFCP_OK;
}

/*
 * SDF Filter: flags, a spare octet, then (FD) a 2-octet length and the Flow
 * Description. Only the flags and the Flow Description are kept (the other
 * flagged fields make the filter one the DP does not accept); a description
 * longer than PFCP_SDF_MAX_FD is marked fd_long.
 */
static int
get_sdf(struct dctx *c, const struct ie *ie, struct pfcp_sdf *f, uint32_t *present)
{
	size_t n;

	NEED(2);
	f->flags = ie->v[0];
	if (f->flags & PFCP_SDF_FD) {
		NEED(4);
		n = rd16(ie->v + 2);
		NEED(4 + n);
		if (n > PFCP_SDF_MAX_FD) {
			f->fd_long = true;
		} else {
			f->fd_len = (uint8_t)n;
			memcpy(f->fd, ie->v + 4, n);
		}
	}
	*present |= PFCP_PDI_SDF;
	return PFCP_OK;
}

/* ---- grouped IEs ----------------------------------------------------------- */

static int
eth_ie(struct dctx *c, const struct ie *ie, void *obj, int depth)
{
	struct pfcp_eth_filter *f = obj;

	(void)depth;
	switch (ie->type) {
	case PFCP_IE_ETHERNET_FILTER_ID:
		NEED(4);
		if (dup(c, &f->present, PFCP_EF_ID))
			return PFCP_OK;
		f->filter_id = rd32(ie->v);
		return PFCP_OK;
	case PFCP_IE_ETHERNET_FILTER_PROPERTIES:
		NEED(1);
		if (dup(c, &f->present, PFCP_EF_PROPS))
			return PFCP_OK;
		f->props = ie->v[0];
		return PFCP_OK;
	case PFCP_IE_MAC_ADDRESS: {
		uint8_t *dst[4] = {f->mac.src, f->mac.dst, f->mac.usrc, f->mac.udst};
		size_t off = 1;

		NEED(1);
		/* 29.244 allows up to 16 MAC address IEs; the profile uses one */
		if (f->present & PFCP_EF_MAC)
			return fail(c, PFCP_CAUSE_NO_RESOURCES_AVAILABLE, ie->type);
		f->present |= PFCP_EF_MAC;
		f->mac.flags = ie->v[0] & 0x0f;
		for (int i = 0; i < 4; i++) {
			if (!(f->mac.flags & (1u << i)))
				continue;
			NEED(off + 6);
			memcpy(dst[i], ie->v + off, 6);
			off += 6;
		}
		return PFCP_OK;
	}
	case PFCP_IE_ETHERTYPE:
		NEED(2);
		if (dup(c, &f->present, PFCP_EF_ETHERTYPE))
			return PFCP_OK;
		f->ethertype = rd16(ie->v);
		return PFCP_OK;
	case PFCP_IE_C_TAG:
		NEED(3);
		if (dup(c, &f->present, PFCP_EF_CTAG))
			return PFCP_OK;
		return get_vlan(c, ie, &f->ctag);
	case PFCP_IE_S_TAG:
		NEED(3);
		if (dup(c, &f->present, PFCP_EF_STAG))
			return PFCP_OK;
		return get_vlan(c, ie, &f->stag);
	default:
		return skip(c);
	}
}

static int
pdi_ie(struct dctx *c, const struct ie *ie, void *obj, int depth)
{
	struct pfcp_pdi *p = obj;

	switch (ie->type) {
	case PFCP_IE_SOURCE_INTERFACE:
		NEED(1);
		if (dup(c, &p->present, PFCP_PDI_SRC_IF))
			return PFCP_OK;
		p->src_if = ie->v[0] & 0x0f;
		return PFCP_OK;
	case PFCP_IE_NETWORK_INSTANCE:
		if (dup(c, &p->present, PFCP_PDI_NETINST))
			return PFCP_OK;
		return get_str(c, ie, &p->netinst);
	case PFCP_IE_UE_IP_ADDRESS:
		NEED(1);
		if (dup(c, &p->present, PFCP_PDI_UE_IP))
			return PFCP_OK;
		return get_ue_ip(c, ie, &p->ue_ip);
	case PFCP_IE_ETHERNET_PACKET_FILTER:
		if (p->present & PFCP_PDI_ETH)
			return fail(c, PFCP_CAUSE_NO_RESOURCES_AVAILABLE, ie->type);
		p->present |= PFCP_PDI_ETH;
		return walk(c, ie->v, ie->len, ie->type, depth + 1, eth_ie, &p->eth);
	case PFCP_IE_BBF_LOGICAL_PORT:
		if (dup(c, &p->present, PFCP_PDI_LPORT))
			return PFCP_OK;
		return get_str(c, ie, &p->lport);
	case PFCP_IE_BBF_PPPOE_SESSION_ID:
		NEED(2);
		if (dup(c, &p->present, PFCP_PDI_PPPOE_SID))
			return PFCP_OK;
		p->pppoe_sid = rd16(ie->v);
		return PFCP_OK;
	case PFCP_IE_BBF_PPP_PROTOCOL:
		NEED(1);
		if (ie->v[0] & PFCP_BBF_PPP_SPECIFIC)
			NEED(3);
		if (dup(c, &p->present, PFCP_PDI_PPP_PROTO))
			return PFCP_OK;
		p->ppp.flags = ie->v[0] & 0x07;
		p->ppp.proto = (p->ppp.flags & PFCP_BBF_PPP_SPECIFIC) ? rd16(ie->v + 1) : 0;
		return PFCP_OK;
	case PFCP_IE_SDF_FILTER:
		if (p->present & PFCP_PDI_SDF)
			return fail(c, PFCP_CAUSE_NO_RESOURCES_AVAILABLE, ie->type);
		return get_sdf(c, ie, &p->sdf, &p->present);
	default:
		return skip(c);
	}
}

static int
pdr_ie(struct dctx *c, const struct ie *ie, void *obj, int depth)
{
	struct pfcp_pdr *p = obj;

	switch (ie->type) {
	case PFCP_IE_PDR_ID:
		NEED(2);
		if (dup(c, &p->present, PFCP_PDR_ID))
			return PFCP_OK;
		p->id = rd16(ie->v);
		return PFCP_OK;
	case PFCP_IE_PRECEDENCE:
		NEED(4);
		if (dup(c, &p->present, PFCP_PDR_PRECEDENCE))
			return PFCP_OK;
		p->precedence = rd32(ie->v);
		return PFCP_OK;
	case PFCP_IE_PDI:
		if (dup(c, &p->present, PFCP_PDR_PDI))
			return PFCP_OK;
		return walk(c, ie->v, ie->len, ie->type, depth + 1, pdi_ie, &p->pdi);
	case PFCP_IE_OUTER_HEADER_REMOVAL:
		NEED(1);
		if (dup(c, &p->present, PFCP_PDR_OHR))
			return PFCP_OK;
		p->ohr = ie->v[0];
		return PFCP_OK;
	case PFCP_IE_BBF_OUTER_HEADER_REMOVAL:
		NEED(1);
		if (dup(c, &p->present, PFCP_PDR_BBF_OHR))
			return PFCP_OK;
		p->bbf_ohr = ie->v[0];
		return PFCP_OK;
	case PFCP_IE_FAR_ID:
		NEED(4);
		if (dup(c, &p->present, PFCP_PDR_FAR_ID))
			return PFCP_OK;
		p->far_id = rd32(ie->v);
		return PFCP_OK;
	case PFCP_IE_URR_ID:
		NEED(4);
		if (p->n_urr >= PFCP_MAX_PDR_URRS)
			return fail(c, PFCP_CAUSE_NO_RESOURCES_AVAILABLE, ie->type);
		p->urr_id[p->n_urr++] = rd32(ie->v);
		return PFCP_OK;
	case PFCP_IE_QER_ID:
		NEED(4);
		if (p->n_qer >= PFCP_MAX_PDR_QERS)
			return fail(c, PFCP_CAUSE_NO_RESOURCES_AVAILABLE, ie->type);
		p->qer_id[p->n_qer++] = rd32(ie->v);
		return PFCP_OK;
	default:
		return skip(c);
	}
}

/* Forwarding Parameters and Update Forwarding Parameters share their children. */
static int
fwd_ie(struct dctx *c, const struct ie *ie, void *obj, int depth)
{
	struct pfcp_fwd *f = obj;

	(void)depth;
	switch (ie->type) {
	case PFCP_IE_DESTINATION_INTERFACE:
		NEED(1);
		if (dup(c, &f->present, PFCP_FWD_DST_IF))
			return PFCP_OK;
		f->dst_if = ie->v[0] & 0x0f;
		return PFCP_OK;
	case PFCP_IE_NETWORK_INSTANCE:
		if (dup(c, &f->present, PFCP_FWD_NETINST))
			return PFCP_OK;
		return get_str(c, ie, &f->netinst);
	case PFCP_IE_OUTER_HEADER_CREATION:
		NEED(2);
		if (dup(c, &f->present, PFCP_FWD_OHC))
			return PFCP_OK;
		return get_ohc(c, ie, &f->ohc);
	case PFCP_IE_BBF_OUTER_HEADER_CREATION:
		NEED(2);
		if (dup(c, &f->present, PFCP_FWD_BBF_OHC))
			return PFCP_OK;
		f->bbf_ohc.desc = rd16(ie->v);
		if (ie->len >= 6) {
			f->bbf_ohc.has_ids = 1;
			f->bbf_ohc.tunnel_id = rd16(ie->v + 2);
			f->bbf_ohc.session_id = rd16(ie->v + 4);
		}
		return PFCP_OK;
	case PFCP_IE_FORWARDING_POLICY:
		NEED(1);
		if ((size_t)ie->v[0] + 1 > ie->len)
			return fail(c, PFCP_CAUSE_INVALID_LENGTH, ie->type);
		if (dup(c, &f->present, PFCP_FWD_POLICY))
			return PFCP_OK;
		f->policy.len = ie->v[0];
		memcpy(f->policy.v, ie->v + 1, ie->v[0]);
		return PFCP_OK;
	default:
		return skip(c);
	}
}

struct far_ctx {
	struct pfcp_far *f;
	uint16_t fwd_type; /* the forwarding parameters IE this context takes */
};

static int
far_ie(struct dctx *c, const struct ie *ie, void *obj, int depth)
{
	struct far_ctx *fc = obj;
	struct pfcp_far *f = fc->f;

	switch (ie->type) {
	case PFCP_IE_FAR_ID:
		NEED(4);
		if (dup(c, &f->present, PFCP_FAR_ID))
			return PFCP_OK;
		f->id = rd32(ie->v);
		return PFCP_OK;
	case PFCP_IE_APPLY_ACTION:
		NEED(1);
		if (dup(c, &f->present, PFCP_FAR_APPLY))
			return PFCP_OK;
		f->apply = ie->v[0];
		if (ie->len >= 2)
			f->apply |= (uint16_t)(ie->v[1] << 8);
		return PFCP_OK;
	case PFCP_IE_FORWARDING_PARAMETERS:
	case PFCP_IE_UPDATE_FORWARDING_PARAMETERS:
		if (ie->type != fc->fwd_type)
			return skip(c);
		if (dup(c, &f->present, PFCP_FAR_FWD))
			return PFCP_OK;
		return walk(c, ie->v, ie->len, ie->type, depth + 1, fwd_ie, &f->fwd);
	default:
		return skip(c);
	}
}

static int
qer_ie(struct dctx *c, const struct ie *ie, void *obj, int depth)
{
	struct pfcp_qer *q = obj;

	(void)depth;
	switch (ie->type) {
	case PFCP_IE_QER_ID:
		NEED(4);
		if (dup(c, &q->present, PFCP_QER_ID))
			return PFCP_OK;
		q->id = rd32(ie->v);
		return PFCP_OK;
	case PFCP_IE_GATE_STATUS:
		NEED(1);
		if (dup(c, &q->present, PFCP_QER_GATE))
			return PFCP_OK;
		q->gate_ul = (ie->v[0] >> 2) & 0x03;
		q->gate_dl = ie->v[0] & 0x03;
		return PFCP_OK;
	case PFCP_IE_MBR:
		NEED(10);
		if (dup(c, &q->present, PFCP_QER_MBR))
			return PFCP_OK;
		q->mbr_ul = rd40(ie->v);
		q->mbr_dl = rd40(ie->v + 5);
		return PFCP_OK;
	case PFCP_IE_GBR:
		NEED(10);
		if (dup(c, &q->present, PFCP_QER_GBR))
			return PFCP_OK;
		q->gbr_ul = rd40(ie->v);
		q->gbr_dl = rd40(ie->v + 5);
		return PFCP_OK;
	default:
		return skip(c);
	}
}

static int
urr_ie(struct dctx *c, const struct ie *ie, void *obj, int depth)
{
	struct pfcp_urr *u = obj;

	(void)depth;
	switch (ie->type) {
	case PFCP_IE_URR_ID:
		NEED(4);
		if (dup(c, &u->present, PFCP_URR_ID))
			return PFCP_OK;
		u->id = rd32(ie->v);
		return PFCP_OK;
	case PFCP_IE_MEASUREMENT_METHOD:
		NEED(1);
		if (dup(c, &u->present, PFCP_URR_METHOD))
			return PFCP_OK;
		u->method = ie->v[0] & 0x07;
		return PFCP_OK;
	case PFCP_IE_REPORTING_TRIGGERS:
		NEED(2);
		if (dup(c, &u->present, PFCP_URR_TRIGGERS))
			return PFCP_OK;
		u->triggers = (uint32_t)ie->v[0] | (uint32_t)ie->v[1] << 8;
		if (ie->len >= 3)
			u->triggers |= (uint32_t)ie->v[2] << 16;
		return PFCP_OK;
	case PFCP_IE_MEASUREMENT_PERIOD:
		if (ie->len == 0) { /* Update URR: remove the period */
			u->present |= PFCP_URR_PERIOD_DEL;
			return PFCP_OK;
		}
		NEED(4);
		if (dup(c, &u->present, PFCP_URR_PERIOD))
			return PFCP_OK;
		u->period = rd32(ie->v);
		return PFCP_OK;
	case PFCP_IE_VOLUME_THRESHOLD:
		if (ie->len == 0) {
			u->present |= PFCP_URR_VOL_THRESH_DEL;
			return PFCP_OK;
		}
		if (dup(c, &u->present, PFCP_URR_VOL_THRESH))
			return PFCP_OK;
		return get_volume(c, ie, &u->vol_thresh, false);
	case PFCP_IE_MEASUREMENT_INFORMATION:
		NEED(1);
		if (dup(c, &u->present, PFCP_URR_MEAS_INFO))
			return PFCP_OK;
		u->meas_info = ie->v[0];
		return PFCP_OK;
	default:
		return skip(c);
	}
}

static int
usage_ie(struct dctx *c, const struct ie *ie, void *obj, int depth)
{
	struct pfcp_usage_report *r = obj;
	uint32_t *t = NULL;
	uint32_t bit = 0;

	(void)depth;
	switch (ie->type) {
	case PFCP_IE_URR_ID:
		t = &r->urr_id;
		bit = PFCP_UR_URR_ID;
		break;
	case PFCP_IE_UR_SEQN:
		t = &r->seqn;
		bit = PFCP_UR_SEQN;
		break;
	case PFCP_IE_USAGE_REPORT_TRIGGER:
		NEED(2);
		if (dup(c, &r->present, PFCP_UR_TRIGGER))
			return PFCP_OK;
		r->trigger = (uint32_t)ie->v[0] | (uint32_t)ie->v[1] << 8;
		if (ie->len >= 3)
			r->trigger |= (uint32_t)ie->v[2] << 16;
		return PFCP_OK;
	case PFCP_IE_START_TIME:
		t = &r->start_time;
		bit = PFCP_UR_START;
		break;
	case PFCP_IE_END_TIME:
		t = &r->end_time;
		bit = PFCP_UR_END;
		break;
	case PFCP_IE_DURATION_MEASUREMENT:
		t = &r->duration;
		bit = PFCP_UR_DURATION;
		break;
	case PFCP_IE_TIME_OF_FIRST_PACKET:
		t = &r->first_pkt;
		bit = PFCP_UR_FIRST_PKT;
		break;
	case PFCP_IE_TIME_OF_LAST_PACKET:
		t = &r->last_pkt;
		bit = PFCP_UR_LAST_PKT;
		break;
	case PFCP_IE_VOLUME_MEASUREMENT:
		NEED(1);
		if (dup(c, &r->present, PFCP_UR_VOLUME))
			return PFCP_OK;
		return get_volume(c, ie, &r->vol, true);
	default:
		return skip(c);
	}
	NEED(4);
	if (dup(c, &r->present, bit))
		return PFCP_OK;
	*t = rd32(ie->v);
	return PFCP_OK;
}

static int
lcp_ie(struct dctx *c, const struct ie *ie, void *obj, int depth)
{
	struct pfcp_lcp_conn *l = obj;

	(void)depth;
	switch (ie->type) {
	case PFCP_IE_BBF_VERIFICATION_TIMERS:
		NEED(3);
		if (dup(c, &l->present, PFCP_LCP_TIMERS))
			return PFCP_OK;
		l->interval = rd16(ie->v);
		l->count = ie->v[2];
		return PFCP_OK;
	case PFCP_IE_BBF_PPP_LCP_MAGIC_NUMBER:
		NEED(8);
		if (dup(c, &l->present, PFCP_LCP_MAGIC))
			return PFCP_OK;
		l->magic_tx = rd32(ie->v);
		l->magic_rx = rd32(ie->v + 4);
		return PFCP_OK;
	default:
		return skip(c);
	}
}

/* Remove X / Query URR: a group holding one rule id IE. */
struct id_ctx {
	uint16_t id_type;
	uint8_t width; /* 2 for PDR ID, 4 otherwise */
	bool seen;
	uint32_t id;
};

static int
id_ie(struct dctx *c, const struct ie *ie, void *obj, int depth)
{
	struct id_ctx *ic = obj;

	(void)depth;
	if (ie->type != ic->id_type)
		return skip(c);
	NEED(ic->width);
	if (ic->seen) {
		c->m->n_dup++;
		return PFCP_OK;
	}
	ic->seen = true;
	ic->id = ic->width == 2 ? rd16(ie->v) : rd32(ie->v);
	return PFCP_OK;
}

static int
get_id_group(struct dctx *c, const struct ie *ie, int depth, uint16_t id_type, uint8_t width,
	     uint32_t *id)
{
	struct id_ctx ic = {.id_type = id_type, .width = width};
	int rc = walk(c, ie->v, ie->len, ie->type, depth + 1, id_ie, &ic);

	if (rc != PFCP_OK)
		return rc;
	if (!ic.seen)
		return fail(c, PFCP_CAUSE_MANDATORY_IE_MISSING, id_type);
	*id = ic.id;
	return PFCP_OK;
}

/* Remove PDR/FAR/QER/URR and Query URR: append the one rule id to arr. */
static int
id_list(struct dctx *c, const struct ie *ie, int depth, uint16_t id_type, uint8_t width,
	uint32_t *arr, uint8_t *cnt)
{
	uint32_t id;
	int rc;

	if (*cnt >= PFCP_MAX_RULES)
		return fail(c, PFCP_CAUSE_NO_RESOURCES_AVAILABLE, ie->type);
	rc = get_id_group(c, ie, depth, id_type, width, &id);
	if (rc != PFCP_OK)
		return rc;
	arr[(*cnt)++] = id;
	return PFCP_OK;
}

static int
top_ie(struct dctx *c, const struct ie *ie, void *obj, int depth)
{
	struct pfcp_msg *m = obj;
	struct far_ctx fc;

	switch (ie->type) {
	case PFCP_IE_NODE_ID:
		NEED(1);
		if (dup64(c, &m->present, PFCP_M_NODE_ID))
			return PFCP_OK;
		return get_node_id(c, ie, &m->node_id);
	case PFCP_IE_CAUSE:
		NEED(1);
		if (dup64(c, &m->present, PFCP_M_CAUSE))
			return PFCP_OK;
		m->cause = ie->v[0];
		return PFCP_OK;
	case PFCP_IE_OFFENDING_IE:
		NEED(2);
		if (dup64(c, &m->present, PFCP_M_OFFENDING_IE))
			return PFCP_OK;
		m->offending_ie = rd16(ie->v);
		return PFCP_OK;
	case PFCP_IE_F_SEID:
		NEED(9);
		if (dup64(c, &m->present, PFCP_M_F_SEID))
			return PFCP_OK;
		return get_fseid(c, ie, &m->fseid);
	case PFCP_IE_RECOVERY_TIME_STAMP:
		NEED(4);
		if (dup64(c, &m->present, PFCP_M_RECOVERY_TS))
			return PFCP_OK;
		m->recovery_ts = rd32(ie->v);
		return PFCP_OK;
	case PFCP_IE_UP_FUNCTION_FEATURES:
		NEED(2);
		if (dup64(c, &m->present, PFCP_M_UP_FEATURES))
			return PFCP_OK;
		m->up_features_len = ie->len > sizeof(m->up_features) ? sizeof(m->up_features)
								      : (uint8_t)ie->len;
		memcpy(m->up_features, ie->v, m->up_features_len);
		return PFCP_OK;
	case PFCP_IE_CP_FUNCTION_FEATURES:
		NEED(1);
		if (dup64(c, &m->present, PFCP_M_CP_FEATURES))
			return PFCP_OK;
		m->cp_features_len = ie->len > sizeof(m->cp_features) ? sizeof(m->cp_features)
								      : (uint8_t)ie->len;
		memcpy(m->cp_features, ie->v, m->cp_features_len);
		return PFCP_OK;
	case PFCP_IE_BBF_UP_FUNCTION_FEATURES:
		NEED(1);
		if (dup64(c, &m->present, PFCP_M_BBF_UP_FEATURES))
			return PFCP_OK;
		m->bbf_up_features_len = ie->len > sizeof(m->bbf_up_features)
						 ? sizeof(m->bbf_up_features)
						 : (uint8_t)ie->len;
		memcpy(m->bbf_up_features, ie->v, m->bbf_up_features_len);
		return PFCP_OK;
	case PFCP_IE_REPORT_TYPE:
		NEED(1);
		if (dup64(c, &m->present, PFCP_M_REPORT_TYPE))
			return PFCP_OK;
		m->report_type = ie->v[0] & 0x7f;
		return PFCP_OK;
	case PFCP_IE_PFCPSMREQ_FLAGS:
		NEED(1);
		if (dup64(c, &m->present, PFCP_M_SMREQ_FLAGS))
			return PFCP_OK;
		m->smreq_flags = ie->v[0];
		return PFCP_OK;
	case PFCP_IE_FAILED_RULE_ID: {
		uint8_t type;

		NEED(1);
		type = ie->v[0] & 0x0f;
		if (type > PFCP_RULE_BAR) /* PDR, FAR, QER, URR, BAR */
			return fail(c, PFCP_CAUSE_MANDATORY_IE_INCORRECT, ie->type);
		NEED(type == PFCP_RULE_PDR ? 3 : type == PFCP_RULE_BAR ? 2 : 5);
		if (dup64(c, &m->present, PFCP_M_FAILED_RULE))
			return PFCP_OK;
		m->failed_rule.type = type;
		m->failed_rule.id = type == PFCP_RULE_PDR   ? rd16(ie->v + 1)
				    : type == PFCP_RULE_BAR ? ie->v[1]
							    : rd32(ie->v + 1);
		return PFCP_OK;
	}
	case PFCP_IE_BBF_MTU:
		NEED(2);
		if (dup64(c, &m->present, PFCP_M_BBF_MTU))
			return PFCP_OK;
		m->bbf_mtu = rd16(ie->v);
		return PFCP_OK;
	case PFCP_IE_BBF_PPP_LCP_CONNECTIVITY:
		if (dup64(c, &m->present, PFCP_M_BBF_LCP))
			return PFCP_OK;
		if (ie->len == 0) {
			m->lcp.present = PFCP_LCP_EMPTY;
			return PFCP_OK;
		}
		return walk(c, ie->v, ie->len, ie->type, depth + 1, lcp_ie, &m->lcp);

	case PFCP_IE_CREATE_PDR:
		if (m->n_create_pdr >= PFCP_MAX_RULES)
			return fail(c, PFCP_CAUSE_NO_RESOURCES_AVAILABLE, ie->type);
		return walk(c, ie->v, ie->len, ie->type, depth + 1, pdr_ie,
			    &m->create_pdr[m->n_create_pdr++]);
	case PFCP_IE_UPDATE_PDR:
		if (m->n_update_pdr >= PFCP_MAX_RULES)
			return fail(c, PFCP_CAUSE_NO_RESOURCES_AVAILABLE, ie->type);
		return walk(c, ie->v, ie->len, ie->type, depth + 1, pdr_ie,
			    &m->update_pdr[m->n_update_pdr++]);
	case PFCP_IE_CREATE_FAR:
		if (m->n_create_far >= PFCP_MAX_RULES)
			return fail(c, PFCP_CAUSE_NO_RESOURCES_AVAILABLE, ie->type);
		fc.f = &m->create_far[m->n_create_far++];
		fc.fwd_type = PFCP_IE_FORWARDING_PARAMETERS;
		return walk(c, ie->v, ie->len, ie->type, depth + 1, far_ie, &fc);
	case PFCP_IE_UPDATE_FAR:
		if (m->n_update_far >= PFCP_MAX_RULES)
			return fail(c, PFCP_CAUSE_NO_RESOURCES_AVAILABLE, ie->type);
		fc.f = &m->update_far[m->n_update_far++];
		fc.fwd_type = PFCP_IE_UPDATE_FORWARDING_PARAMETERS;
		return walk(c, ie->v, ie->len, ie->type, depth + 1, far_ie, &fc);
	case PFCP_IE_CREATE_QER:
		if (m->n_create_qer >= PFCP_MAX_RULES)
			return fail(c, PFCP_CAUSE_NO_RESOURCES_AVAILABLE, ie->type);
		return walk(c, ie->v, ie->len, ie->type, depth + 1, qer_ie,
			    &m->create_qer[m->n_create_qer++]);
	case PFCP_IE_UPDATE_QER:
		if (m->n_update_qer >= PFCP_MAX_RULES)
			return fail(c, PFCP_CAUSE_NO_RESOURCES_AVAILABLE, ie->type);
		return walk(c, ie->v, ie->len, ie->type, depth + 1, qer_ie,
			    &m->update_qer[m->n_update_qer++]);
	case PFCP_IE_CREATE_URR:
		if (m->n_create_urr >= PFCP_MAX_RULES)
			return fail(c, PFCP_CAUSE_NO_RESOURCES_AVAILABLE, ie->type);
		return walk(c, ie->v, ie->len, ie->type, depth + 1, urr_ie,
			    &m->create_urr[m->n_create_urr++]);
	case PFCP_IE_UPDATE_URR:
		if (m->n_update_urr >= PFCP_MAX_RULES)
			return fail(c, PFCP_CAUSE_NO_RESOURCES_AVAILABLE, ie->type);
		return walk(c, ie->v, ie->len, ie->type, depth + 1, urr_ie,
			    &m->update_urr[m->n_update_urr++]);
	case PFCP_IE_USAGE_REPORT_SMR:
	case PFCP_IE_USAGE_REPORT_SDR:
	case PFCP_IE_USAGE_REPORT_SRR:
		if (m->n_usage >= PFCP_MAX_RULES)
			return fail(c, PFCP_CAUSE_NO_RESOURCES_AVAILABLE, ie->type);
		m->usage[m->n_usage].ie_type = ie->type;
		return walk(c, ie->v, ie->len, ie->type, depth + 1, usage_ie,
			    &m->usage[m->n_usage++]);
	case PFCP_IE_REMOVE_PDR:
		return id_list(c, ie, depth, PFCP_IE_PDR_ID, 2, m->remove_pdr, &m->n_remove_pdr);
	case PFCP_IE_REMOVE_FAR:
		return id_list(c, ie, depth, PFCP_IE_FAR_ID, 4, m->remove_far, &m->n_remove_far);
	case PFCP_IE_REMOVE_QER:
		return id_list(c, ie, depth, PFCP_IE_QER_ID, 4, m->remove_qer, &m->n_remove_qer);
	case PFCP_IE_REMOVE_URR:
		return id_list(c, ie, depth, PFCP_IE_URR_ID, 4, m->remove_urr, &m->n_remove_urr);
	case PFCP_IE_QUERY_URR:
		return id_list(c, ie, depth, PFCP_IE_URR_ID, 4, m->query_urr, &m->n_query_urr);
	default:
		return skip(c);
	}
}

int
pfcp_msg_decode(const uint8_t *buf, size_t len, struct pfcp_msg *m, struct pfcp_derr *e)
{
	struct dctx c = {.m = m, .e = e};
	int rc;

	memset(m, 0, sizeof(*m));
	e->cause = 0;
	e->offending_ie = 0;
	rc = pfcp_hdr_decode(buf, len, &m->h);
	if (rc != PFCP_OK)
		return rc;
	return walk(&c, buf + m->h.hdr_len, m->h.msg_len - m->h.hdr_len, 0, 0, top_ie, m);
}

/* ---- encoder -------------------------------------------------------------- */

struct w {
	uint8_t *b;
	size_t cap;
	size_t len;
	bool bad;
	int depth;
	size_t grp[PFCP_MAX_DEPTH + 2];
};

static void
w_bytes(struct w *w, const void *p, size_t n)
{
	if (n == 0)
		return;
	if (w->bad || w->cap - w->len < n) {
		w->bad = true;
		return;
	}
	memcpy(w->b + w->len, p, n);
	w->len += n;
}

static void
w_u8(struct w *w, uint8_t v)
{
	w_bytes(w, &v, 1);
}

static void
w_u16(struct w *w, uint16_t v)
{
	uint8_t b[2] = {(uint8_t)(v >> 8), (uint8_t)v};

	w_bytes(w, b, 2);
}

static void
w_u24(struct w *w, uint32_t v)
{
	uint8_t b[3] = {(uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};

	w_bytes(w, b, 3);
}

static void
w_u32(struct w *w, uint32_t v)
{
	uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};

	w_bytes(w, b, 4);
}

static void
w_u40(struct w *w, uint64_t v)
{
	w_u8(w, (uint8_t)(v >> 32));
	w_u32(w, (uint32_t)v);
}

static void
w_u64(struct w *w, uint64_t v)
{
	w_u32(w, (uint32_t)(v >> 32));
	w_u32(w, (uint32_t)v);
}

/* Open an IE (grouped or not): type, length placeholder, enterprise id for BBF IEs. */
static void
w_begin(struct w *w, uint16_t type)
{
	if (w->depth >= (int)(sizeof(w->grp) / sizeof(w->grp[0]))) {
		w->bad = true;
		return;
	}
	w->grp[w->depth++] = w->len;
	w_u16(w, type);
	w_u16(w, 0);
	if (type & 0x8000)
		w_u16(w, PFCP_ENTERPRISE_BBF);
}

static void
w_end(struct w *w)
{
	size_t start, l;

	if (w->depth == 0) {
		w->bad = true;
		return;
	}
	start = w->grp[--w->depth];
	if (w->bad)
		return;
	l = w->len - start - 4;
	if (l > 0xffff) {
		w->bad = true;
		return;
	}
	w->b[start + 2] = (uint8_t)(l >> 8);
	w->b[start + 3] = (uint8_t)l;
}

static void
ie_u8(struct w *w, uint16_t t, uint8_t v)
{
	w_begin(w, t);
	w_u8(w, v);
	w_end(w);
}

static void
ie_u16(struct w *w, uint16_t t, uint16_t v)
{
	w_begin(w, t);
	w_u16(w, v);
	w_end(w);
}

static void
ie_u32(struct w *w, uint16_t t, uint32_t v)
{
	w_begin(w, t);
	w_u32(w, v);
	w_end(w);
}

static void
ie_bytes(struct w *w, uint16_t t, const void *p, size_t n)
{
	w_begin(w, t);
	w_bytes(w, p, n);
	w_end(w);
}

static void
ie_str(struct w *w, uint16_t t, const struct pfcp_str *s)
{
	if (s->len > PFCP_STR_MAX) {
		w->bad = true;
		return;
	}
	ie_bytes(w, t, s->v, s->len);
}

static void
enc_node_id(struct w *w, const struct pfcp_node_id *n)
{
	w_begin(w, PFCP_IE_NODE_ID);
	w_u8(w, n->type & 0x0f);
	if (n->type == PFCP_NODE_ID_IPV4) {
		w_u32(w, n->ipv4);
	} else if (n->type == PFCP_NODE_ID_IPV6) {
		w_bytes(w, n->ipv6, 16);
	} else {
		/* dotted text -> DNS labels */
		size_t i = 0;

		if (n->fqdn.len > PFCP_STR_MAX)
			w->bad = true;
		while (!w->bad && i < n->fqdn.len) {
			size_t j = i;

			while (j < n->fqdn.len && n->fqdn.v[j] != '.')
				j++;
			if (j - i == 0 || j - i > 63) {
				w->bad = true;
				break;
			}
			w_u8(w, (uint8_t)(j - i));
			w_bytes(w, n->fqdn.v + i, j - i);
			i = j + 1;
		}
	}
	w_end(w);
}

static void
enc_fseid(struct w *w, const struct pfcp_fseid *f)
{
	w_begin(w, PFCP_IE_F_SEID);
	w_u8(w, f->flags & (PFCP_FSEID_V4 | PFCP_FSEID_V6));
	w_u64(w, f->seid);
	if (f->flags & PFCP_FSEID_V4)
		w_u32(w, f->ipv4);
	if (f->flags & PFCP_FSEID_V6)
		w_bytes(w, f->ipv6, 16);
	w_end(w);
}

static void
enc_volume(struct w *w, uint16_t t, const struct pfcp_volume *v, bool measurement)
{
	const uint64_t fld[6] = {v->total, v->ul, v->dl, v->total_pkts, v->ul_pkts, v->dl_pkts};
	uint8_t f = v->flags & (measurement ? 0x3f : 0x07);

	w_begin(w, t);
	w_u8(w, f);
	for (int i = 0; i < 6; i++)
		if (f & (1u << i))
			w_u64(w, fld[i]);
	w_end(w);
}

static void
enc_vlan(struct w *w, uint16_t t, const struct pfcp_vlan *v)
{
	w_begin(w, t);
	w_u8(w, v->flags & 0x07);
	w_u8(w, (uint8_t)(((v->vid >> 8) & 0x0f) << 4 | (v->dei & 1) << 3 | (v->pcp & 0x07)));
	w_u8(w, (uint8_t)v->vid);
	w_end(w);
}

static void
enc_pdi(struct w *w, const struct pfcp_pdi *p)
{
	w_begin(w, PFCP_IE_PDI);
	if (p->present & PFCP_PDI_SRC_IF)
		ie_u8(w, PFCP_IE_SOURCE_INTERFACE, p->src_if & 0x0f);
	if (p->present & PFCP_PDI_NETINST)
		ie_str(w, PFCP_IE_NETWORK_INSTANCE, &p->netinst);
	if (p->present & PFCP_PDI_UE_IP) {
		w_begin(w, PFCP_IE_UE_IP_ADDRESS);
		w_u8(w, p->ue_ip.flags & 0x7f);
		if ((p->ue_ip.flags & PFCP_UEIP_V4) && !(p->ue_ip.flags & PFCP_UEIP_CHV4))
			w_u32(w, p->ue_ip.ipv4);
		if ((p->ue_ip.flags & PFCP_UEIP_V6) && !(p->ue_ip.flags & PFCP_UEIP_CHV6))
			w_bytes(w, p->ue_ip.ipv6, 16);
		if (p->ue_ip.flags & PFCP_UEIP_IPV6D)
			w_u8(w, p->ue_ip.v6_pd_bits);
		if (p->ue_ip.flags & PFCP_UEIP_IP6PL)
			w_u8(w, p->ue_ip.v6_plen);
		w_end(w);
	}
	if (p->present & PFCP_PDI_ETH) {
		const struct pfcp_eth_filter *f = &p->eth;

		w_begin(w, PFCP_IE_ETHERNET_PACKET_FILTER);
		if (f->present & PFCP_EF_ID)
			ie_u32(w, PFCP_IE_ETHERNET_FILTER_ID, f->filter_id);
		if (f->present & PFCP_EF_PROPS)
			ie_u8(w, PFCP_IE_ETHERNET_FILTER_PROPERTIES, f->props);
		if (f->present & PFCP_EF_MAC) {
			const uint8_t *src[4] = {f->mac.src, f->mac.dst, f->mac.usrc, f->mac.udst};

			w_begin(w, PFCP_IE_MAC_ADDRESS);
			w_u8(w, f->mac.flags & 0x0f);
			for (int i = 0; i < 4; i++)
				if (f->mac.flags & (1u << i))
					w_bytes(w, src[i], 6);
			w_end(w);
		}
		if (f->present & PFCP_EF_ETHERTYPE)
			ie_u16(w, PFCP_IE_ETHERTYPE, f->ethertype);
		if (f->present & PFCP_EF_CTAG)
			enc_vlan(w, PFCP_IE_C_TAG, &f->ctag);
		if (f->present & PFCP_EF_STAG)
			enc_vlan(w, PFCP_IE_S_TAG, &f->stag);
		w_end(w);
	}
	if (p->present & PFCP_PDI_SDF) {
		w_begin(w, PFCP_IE_SDF_FILTER);
		w_u8(w, p->sdf.flags);
		w_u8(w, 0);
		if (p->sdf.flags & PFCP_SDF_FD) {
			w_u16(w, p->sdf.fd_len);
			w_bytes(w, p->sdf.fd, p->sdf.fd_len);
		}
		w_end(w);
	}
	if (p->present & PFCP_PDI_LPORT)
		ie_str(w, PFCP_IE_BBF_LOGICAL_PORT, &p->lport);
	if (p->present & PFCP_PDI_PPPOE_SID)
		ie_u16(w, PFCP_IE_BBF_PPPOE_SESSION_ID, p->pppoe_sid);
	if (p->present & PFCP_PDI_PPP_PROTO) {
		w_begin(w, PFCP_IE_BBF_PPP_PROTOCOL);
		w_u8(w, p->ppp.flags & 0x07);
		if (p->ppp.flags & PFCP_BBF_PPP_SPECIFIC)
			w_u16(w, p->ppp.proto);
		w_end(w);
	}
	w_end(w);
}

static void
enc_pdr(struct w *w, uint16_t t, const struct pfcp_pdr *p)
{
	w_begin(w, t);
	if (p->present & PFCP_PDR_ID)
		ie_u16(w, PFCP_IE_PDR_ID, p->id);
	if (p->present & PFCP_PDR_PRECEDENCE)
		ie_u32(w, PFCP_IE_PRECEDENCE, p->precedence);
	if (p->present & PFCP_PDR_PDI)
		enc_pdi(w, &p->pdi);
	if (p->present & PFCP_PDR_OHR)
		ie_u8(w, PFCP_IE_OUTER_HEADER_REMOVAL, p->ohr);
	if (p->present & PFCP_PDR_BBF_OHR)
		ie_u8(w, PFCP_IE_BBF_OUTER_HEADER_REMOVAL, p->bbf_ohr);
	if (p->present & PFCP_PDR_FAR_ID)
		ie_u32(w, PFCP_IE_FAR_ID, p->far_id);
	for (int i = 0; i < p->n_urr && i < PFCP_MAX_PDR_URRS; i++)
		ie_u32(w, PFCP_IE_URR_ID, p->urr_id[i]);
	for (int i = 0; i < p->n_qer && i < PFCP_MAX_PDR_QERS; i++)
		ie_u32(w, PFCP_IE_QER_ID, p->qer_id[i]);
	w_end(w);
}

static void
enc_fwd(struct w *w, uint16_t t, const struct pfcp_fwd *f)
{
	w_begin(w, t);
	if (f->present & PFCP_FWD_DST_IF)
		ie_u8(w, PFCP_IE_DESTINATION_INTERFACE, f->dst_if & 0x0f);
	if (f->present & PFCP_FWD_NETINST)
		ie_str(w, PFCP_IE_NETWORK_INSTANCE, &f->netinst);
	if (f->present & PFCP_FWD_OHC) {
		const struct pfcp_ohc *o = &f->ohc;

		w_begin(w, PFCP_IE_OUTER_HEADER_CREATION);
		w_u16(w, o->desc);
		if (o->desc & (PFCP_OHC_GTPU_UDP_IPV4 | PFCP_OHC_GTPU_UDP_IPV6))
			w_u32(w, o->teid);
		if (o->desc & (PFCP_OHC_GTPU_UDP_IPV4 | PFCP_OHC_UDP_IPV4 | PFCP_OHC_IPV4))
			w_u32(w, o->ipv4);
		if (o->desc & (PFCP_OHC_GTPU_UDP_IPV6 | PFCP_OHC_UDP_IPV6 | PFCP_OHC_IPV6))
			w_bytes(w, o->ipv6, 16);
		if (o->desc & (PFCP_OHC_UDP_IPV4 | PFCP_OHC_UDP_IPV6))
			w_u16(w, o->port);
		if (o->desc & PFCP_OHC_CTAG)
			w_u24(w, o->ctag);
		if (o->desc & PFCP_OHC_STAG)
			w_u24(w, o->stag);
		w_end(w);
	}
	if (f->present & PFCP_FWD_BBF_OHC) {
		w_begin(w, PFCP_IE_BBF_OUTER_HEADER_CREATION);
		w_u16(w, f->bbf_ohc.desc);
		if (f->bbf_ohc.has_ids) {
			w_u16(w, f->bbf_ohc.tunnel_id);
			w_u16(w, f->bbf_ohc.session_id);
		}
		w_end(w);
	}
	if (f->present & PFCP_FWD_POLICY) {
		if (f->policy.len > PFCP_STR_MAX)
			w->bad = true;
		w_begin(w, PFCP_IE_FORWARDING_POLICY);
		w_u8(w, (uint8_t)f->policy.len);
		w_bytes(w, f->policy.v, f->policy.len);
		w_end(w);
	}
	w_end(w);
}

static void
enc_far(struct w *w, uint16_t t, uint16_t fwd_t, const struct pfcp_far *f)
{
	w_begin(w, t);
	if (f->present & PFCP_FAR_ID)
		ie_u32(w, PFCP_IE_FAR_ID, f->id);
	if (f->present & PFCP_FAR_APPLY) {
		w_begin(w, PFCP_IE_APPLY_ACTION);
		w_u8(w, (uint8_t)f->apply);
		if (f->apply >> 8)
			w_u8(w, (uint8_t)(f->apply >> 8));
		w_end(w);
	}
	if (f->present & PFCP_FAR_FWD)
		enc_fwd(w, fwd_t, &f->fwd);
	w_end(w);
}

static void
enc_qer(struct w *w, uint16_t t, const struct pfcp_qer *q)
{
	w_begin(w, t);
	if (q->present & PFCP_QER_ID)
		ie_u32(w, PFCP_IE_QER_ID, q->id);
	if (q->present & PFCP_QER_GATE)
		ie_u8(w, PFCP_IE_GATE_STATUS,
		      (uint8_t)((q->gate_ul & 0x03) << 2 | (q->gate_dl & 0x03)));
	if (q->present & PFCP_QER_MBR) {
		w_begin(w, PFCP_IE_MBR);
		w_u40(w, q->mbr_ul);
		w_u40(w, q->mbr_dl);
		w_end(w);
	}
	if (q->present & PFCP_QER_GBR) {
		w_begin(w, PFCP_IE_GBR);
		w_u40(w, q->gbr_ul);
		w_u40(w, q->gbr_dl);
		w_end(w);
	}
	w_end(w);
}

static void
enc_urr(struct w *w, uint16_t t, const struct pfcp_urr *u)
{
	w_begin(w, t);
	if (u->present & PFCP_URR_ID)
		ie_u32(w, PFCP_IE_URR_ID, u->id);
	if (u->present & PFCP_URR_METHOD)
		ie_u8(w, PFCP_IE_MEASUREMENT_METHOD, u->method & 0x07);
	if (u->present & PFCP_URR_TRIGGERS) {
		w_begin(w, PFCP_IE_REPORTING_TRIGGERS);
		w_u8(w, (uint8_t)u->triggers);
		w_u8(w, (uint8_t)(u->triggers >> 8));
		if (u->triggers >> 16)
			w_u8(w, (uint8_t)(u->triggers >> 16));
		w_end(w);
	}
	if (u->present & PFCP_URR_PERIOD)
		ie_u32(w, PFCP_IE_MEASUREMENT_PERIOD, u->period);
	else if (u->present & PFCP_URR_PERIOD_DEL)
		ie_bytes(w, PFCP_IE_MEASUREMENT_PERIOD, NULL, 0);
	if (u->present & PFCP_URR_VOL_THRESH)
		enc_volume(w, PFCP_IE_VOLUME_THRESHOLD, &u->vol_thresh, false);
	else if (u->present & PFCP_URR_VOL_THRESH_DEL)
		ie_bytes(w, PFCP_IE_VOLUME_THRESHOLD, NULL, 0);
	if (u->present & PFCP_URR_MEAS_INFO)
		ie_u8(w, PFCP_IE_MEASUREMENT_INFORMATION, u->meas_info);
	w_end(w);
}

static void
enc_id_group(struct w *w, uint16_t t, uint16_t id_t, uint32_t id)
{
	w_begin(w, t);
	if (id_t == PFCP_IE_PDR_ID)
		ie_u16(w, id_t, (uint16_t)id);
	else
		ie_u32(w, id_t, id);
	w_end(w);
}

static void
enc_usage(struct w *w, const struct pfcp_usage_report *r)
{
	uint16_t t = r->ie_type ? r->ie_type : PFCP_IE_USAGE_REPORT_SRR;

	w_begin(w, t);
	if (r->present & PFCP_UR_URR_ID)
		ie_u32(w, PFCP_IE_URR_ID, r->urr_id);
	if (r->present & PFCP_UR_SEQN)
		ie_u32(w, PFCP_IE_UR_SEQN, r->seqn);
	if (r->present & PFCP_UR_TRIGGER) {
		w_begin(w, PFCP_IE_USAGE_REPORT_TRIGGER);
		w_u24(w, (r->trigger & 0xff) << 16 | (r->trigger & 0xff00) |
				 (r->trigger >> 16 & 0xff));
		w_end(w);
	}
	if (r->present & PFCP_UR_START)
		ie_u32(w, PFCP_IE_START_TIME, r->start_time);
	if (r->present & PFCP_UR_END)
		ie_u32(w, PFCP_IE_END_TIME, r->end_time);
	if (r->present & PFCP_UR_VOLUME)
		enc_volume(w, PFCP_IE_VOLUME_MEASUREMENT, &r->vol, true);
	if (r->present & PFCP_UR_DURATION)
		ie_u32(w, PFCP_IE_DURATION_MEASUREMENT, r->duration);
	if (r->present & PFCP_UR_FIRST_PKT)
		ie_u32(w, PFCP_IE_TIME_OF_FIRST_PACKET, r->first_pkt);
	if (r->present & PFCP_UR_LAST_PKT)
		ie_u32(w, PFCP_IE_TIME_OF_LAST_PACKET, r->last_pkt);
	if (r->present & PFCP_UR_DROPPED) {
		bool octets = (r->present & PFCP_UR_DROPPED_BYTES) != 0;

		w_u16(w, PFCP_IE_BNGPOD_DROPPED);
		w_u16(w, (octets ? PFCP_DROPPED_BYTES_LEN : PFCP_DROPPED_LEN) + 2);
		w_u16(w, PFCP_ENTERPRISE_BNGPOD);
		w_u64(w, r->dropped_ul);
		w_u64(w, r->dropped_dl);
		if (octets) {
			w_u64(w, r->dropped_ul_bytes);
			w_u64(w, r->dropped_dl_bytes);
		}
	}
	w_end(w);
}

int
pfcp_msg_encode(const struct pfcp_msg *m, uint8_t *buf, size_t cap)
{
	struct w w = {.b = buf, .cap = cap};
	const struct pfcp_hdr *h = &m->h;
	uint8_t flags = h->flags & (PFCP_FLAG_S | PFCP_FLAG_MP);
	size_t l;

	w_u8(&w, (uint8_t)(PFCP_VERSION << 5 | flags));
	w_u8(&w, h->type);
	w_u16(&w, 0);
	if (flags & PFCP_FLAG_S)
		w_u64(&w, h->seid);
	w_u24(&w, h->seq & PFCP_SEQ_MASK);
	w_u8(&w, (flags & PFCP_FLAG_MP) ? (uint8_t)(h->priority << 4) : 0);

	if (m->present & PFCP_M_NODE_ID)
		enc_node_id(&w, &m->node_id);
	if (m->present & PFCP_M_CAUSE)
		ie_u8(&w, PFCP_IE_CAUSE, m->cause);
	if (m->present & PFCP_M_OFFENDING_IE)
		ie_u16(&w, PFCP_IE_OFFENDING_IE, m->offending_ie);
	if (m->present & PFCP_M_F_SEID)
		enc_fseid(&w, &m->fseid);
	if (m->present & PFCP_M_RECOVERY_TS)
		ie_u32(&w, PFCP_IE_RECOVERY_TIME_STAMP, m->recovery_ts);
	if (m->present & PFCP_M_UP_FEATURES)
		ie_bytes(&w, PFCP_IE_UP_FUNCTION_FEATURES, m->up_features,
			 m->up_features_len > sizeof(m->up_features) ? sizeof(m->up_features)
								     : m->up_features_len);
	if (m->present & PFCP_M_BBF_UP_FEATURES)
		ie_bytes(&w, PFCP_IE_BBF_UP_FUNCTION_FEATURES, m->bbf_up_features,
			 m->bbf_up_features_len > sizeof(m->bbf_up_features)
				 ? sizeof(m->bbf_up_features)
				 : m->bbf_up_features_len);
	if (m->present & PFCP_M_CP_FEATURES)
		ie_bytes(&w, PFCP_IE_CP_FUNCTION_FEATURES, m->cp_features,
			 m->cp_features_len > sizeof(m->cp_features) ? sizeof(m->cp_features)
								     : m->cp_features_len);
	if (m->present & PFCP_M_BNGPOD_RA) {
		uint8_t v[PFCP_RA_FIXED_LEN + 16 * PFCP_RA_MAX_DNS];
		int n = pfcp_ra_offload_encode(&m->ra, v, sizeof(v));

		if (n < 0) {
			w.bad = true;
		} else {
			w_u16(&w, PFCP_IE_BNGPOD_RA_OFFLOAD);
			w_u16(&w, (uint16_t)(n + 2));
			w_u16(&w, PFCP_ENTERPRISE_BNGPOD);
			w_bytes(&w, v, (size_t)n);
		}
	}
	if (m->present & PFCP_M_BNGPOD_ARP_PING) {
		uint8_t v[PFCP_ARP_PING_LEN];
		int n = pfcp_arp_ping_encode(&m->arp_ping, v, sizeof(v));

		w_u16(&w, PFCP_IE_BNGPOD_ARP_PING);
		w_u16(&w, (uint16_t)(n + 2));
		w_u16(&w, PFCP_ENTERPRISE_BNGPOD);
		w_bytes(&w, v, (size_t)n);
	}
	if (m->present & PFCP_M_BNGPOD_LINE_GROUP) {
		uint8_t v[PFCP_LG_FIXED_LEN + PFCP_LG_NAME_MAX + 16];
		int n = pfcp_line_group_encode(&m->line_group, v, sizeof(v));

		if (n < 0) {
			w.bad = true;
		} else {
			w_u16(&w, PFCP_IE_BNGPOD_LINE_GROUP);
			w_u16(&w, (uint16_t)(n + 2));
			w_u16(&w, PFCP_ENTERPRISE_BNGPOD);
			w_bytes(&w, v, (size_t)n);
		}
	}
	for (int i = 0; i < m->n_remove_pdr && i < PFCP_MAX_RULES; i++)
		enc_id_group(&w, PFCP_IE_REMOVE_PDR, PFCP_IE_PDR_ID, m->remove_pdr[i]);
	for (int i = 0; i < m->n_remove_far && i < PFCP_MAX_RULES; i++)
		enc_id_group(&w, PFCP_IE_REMOVE_FAR, PFCP_IE_FAR_ID, m->remove_far[i]);
	for (int i = 0; i < m->n_remove_urr && i < PFCP_MAX_RULES; i++)
		enc_id_group(&w, PFCP_IE_REMOVE_URR, PFCP_IE_URR_ID, m->remove_urr[i]);
	for (int i = 0; i < m->n_remove_qer && i < PFCP_MAX_RULES; i++)
		enc_id_group(&w, PFCP_IE_REMOVE_QER, PFCP_IE_QER_ID, m->remove_qer[i]);
	for (int i = 0; i < m->n_create_pdr && i < PFCP_MAX_RULES; i++)
		enc_pdr(&w, PFCP_IE_CREATE_PDR, &m->create_pdr[i]);
	for (int i = 0; i < m->n_create_far && i < PFCP_MAX_RULES; i++)
		enc_far(&w, PFCP_IE_CREATE_FAR, PFCP_IE_FORWARDING_PARAMETERS, &m->create_far[i]);
	for (int i = 0; i < m->n_create_urr && i < PFCP_MAX_RULES; i++)
		enc_urr(&w, PFCP_IE_CREATE_URR, &m->create_urr[i]);
	for (int i = 0; i < m->n_create_qer && i < PFCP_MAX_RULES; i++)
		enc_qer(&w, PFCP_IE_CREATE_QER, &m->create_qer[i]);
	for (int i = 0; i < m->n_update_pdr && i < PFCP_MAX_RULES; i++)
		enc_pdr(&w, PFCP_IE_UPDATE_PDR, &m->update_pdr[i]);
	for (int i = 0; i < m->n_update_far && i < PFCP_MAX_RULES; i++)
		enc_far(&w, PFCP_IE_UPDATE_FAR, PFCP_IE_UPDATE_FORWARDING_PARAMETERS,
			&m->update_far[i]);
	for (int i = 0; i < m->n_update_urr && i < PFCP_MAX_RULES; i++)
		enc_urr(&w, PFCP_IE_UPDATE_URR, &m->update_urr[i]);
	for (int i = 0; i < m->n_update_qer && i < PFCP_MAX_RULES; i++)
		enc_qer(&w, PFCP_IE_UPDATE_QER, &m->update_qer[i]);
	if (m->present & PFCP_M_SMREQ_FLAGS)
		ie_u8(&w, PFCP_IE_PFCPSMREQ_FLAGS, m->smreq_flags);
	for (int i = 0; i < m->n_query_urr && i < PFCP_MAX_RULES; i++)
		enc_id_group(&w, PFCP_IE_QUERY_URR, PFCP_IE_URR_ID, m->query_urr[i]);
	if (m->present & PFCP_M_REPORT_TYPE)
		ie_u8(&w, PFCP_IE_REPORT_TYPE, m->report_type);
	for (int i = 0; i < m->n_usage && i < PFCP_MAX_RULES; i++)
		enc_usage(&w, &m->usage[i]);
	if (m->present & PFCP_M_FAILED_RULE) {
		const struct pfcp_failed_rule *f = &m->failed_rule;

		w_begin(&w, PFCP_IE_FAILED_RULE_ID);
		w_u8(&w, f->type & 0x0f);
		if (f->type == PFCP_RULE_PDR)
			w_u16(&w, (uint16_t)f->id);
		else if (f->type == PFCP_RULE_BAR)
			w_u8(&w, (uint8_t)f->id);
		else
			w_u32(&w, f->id);
		w_end(&w);
	}
	if (m->present & PFCP_M_BBF_MTU)
		ie_u16(&w, PFCP_IE_BBF_MTU, m->bbf_mtu);
	if (m->present & PFCP_M_BBF_LCP) {
		/* an empty group means "offload off": never write one by accident */
		if (!(m->lcp.present & (PFCP_LCP_TIMERS | PFCP_LCP_MAGIC | PFCP_LCP_EMPTY)))
			w.bad = true;
		w_begin(&w, PFCP_IE_BBF_PPP_LCP_CONNECTIVITY);
		if (m->lcp.present & PFCP_LCP_TIMERS) {
			w_begin(&w, PFCP_IE_BBF_VERIFICATION_TIMERS);
			w_u16(&w, m->lcp.interval);
			w_u8(&w, m->lcp.count);
			w_end(&w);
		}
		if (m->lcp.present & PFCP_LCP_MAGIC) {
			w_begin(&w, PFCP_IE_BBF_PPP_LCP_MAGIC_NUMBER);
			w_u32(&w, m->lcp.magic_tx);
			w_u32(&w, m->lcp.magic_rx);
			w_end(&w);
		}
		w_end(&w);
	}

	if (w.bad || w.depth != 0)
		return -ENOSPC;
	l = w.len - 4;
	if (l > 0xffff)
		return -ENOSPC;
	buf[2] = (uint8_t)(l >> 8);
	buf[3] = (uint8_t)l;
	return (int)w.len;
}

/* ---- names ------------------------------------------------------------------ */

const char *
pfcp_msg_type_name(uint8_t type)
{
	switch (type) {
#define PFCP_MSG_DEF(sym, value, name, is_request) \
	case PFCP_##sym:                           \
		return name;
#include "pfcp.def"
#undef PFCP_MSG_DEF
	default:
		return "?";
	}
}

const char *
pfcp_cause_name(uint8_t cause)
{
	switch (cause) {
#define PFCP_CAUSE_DEF(sym, value, name) \
	case PFCP_CAUSE_##sym:           \
		return name;
#include "pfcp.def"
#undef PFCP_CAUSE_DEF
	default:
		return "?";
	}
}

bool
pfcp_msg_is_request(uint8_t type)
{
	switch (type) {
#define PFCP_MSG_DEF(sym, value, name, is_request) \
	case PFCP_##sym:                           \
		return is_request;
#include "pfcp.def"
#undef PFCP_MSG_DEF
	default:
		return false;
	}
}

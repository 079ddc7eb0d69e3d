/*
 * The rules of one PFCP session, built from a request's IEs (pfcp_rules.h).
 */

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "pfcp_rules.h"

/* ---- interned names -------------------------------------------------------------------------- */

int
up_name_intern(struct up_names *t, const struct pfcp_str *s)
{
	uint32_t h = 2166136261u, i;

	if (s->len == 0 || s->len >= UP_NAME_SIZE)
		return -EINVAL;
	for (i = 0; i < s->len; i++) {
		if (s->v[i] < 0x20 || s->v[i] > 0x7e)
			return -EINVAL;
		h = (h ^ s->v[i]) * 16777619u;
	}
	for (i = h & (UP_NAMES_HASH - 1); t->hash[i] != 0; i = (i + 1) & (UP_NAMES_HASH - 1)) {
		const char *n = t->s[t->hash[i]];

		if (strlen(n) == s->len && memcmp(n, s->v, s->len) == 0)
			return t->hash[i];
	}
	if (t->n + 1u >= UP_MAX_NAMES)
		return -ENOSPC;
	t->n++;
	memcpy(t->s[t->n], s->v, s->len);
	t->s[t->n][s->len] = '\0';
	t->hash[i] = t->n;
	return t->n;
}

/* A string IE -> name index; cause on failure. */
static int
intern(struct up_names *names, const struct pfcp_str *s, uint8_t bad_cause, uint16_t ie,
       uint16_t *idx, struct up_err *e)
{
	int rc = up_name_intern(names, s);

	if (rc == -ENOSPC)
		return up_err_ie(e, PFCP_CAUSE_NO_RESOURCES_AVAILABLE, ie);
	if (rc < 0)
		return up_err_ie(e, bad_cause, ie);
	*idx = (uint16_t)rc;
	return 0;
}

/* ---- applying one IE to one rule ------------------------------------------------------------- */

/* Fill the PDI fields of d from a decoded PDI (replacing them). */
static int
pdi_apply(struct up_names *names, struct up_pdr *d, const struct pfcp_pdi *p, struct up_err *e)
{
	const struct pfcp_eth_filter *f = &p->eth;

	if (!(p->present & PFCP_PDI_SRC_IF))
		return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_SOURCE_INTERFACE);
	d->has &= (uint16_t) ~(UPR_UE_IP | UPR_STAG | UPR_CTAG | UPR_MAC | UPR_SID | UPR_ETHERTYPE |
			       UPR_PPP | UPR_MAC_OTHER | UPR_LPORT | UPR_SDF);
	d->sdf_dhcp = false;
	d->sdf_dhcp6 = false;
	d->src_if = p->src_if;
	d->ue_ip = 0;
	d->ue_flags = 0;
	d->ue_plen = 0;
	memset(d->ue_ip6, 0, sizeof(d->ue_ip6));
	d->stag = d->ctag = d->sid = d->ethertype = d->ppp_proto = 0;
	d->ppp_flags = 0;
	d->lport = d->netinst = 0;
	memset(d->mac, 0, sizeof(d->mac));
	if (p->present & PFCP_PDI_NETINST &&
	    intern(names, &p->netinst, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_NETWORK_INSTANCE,
		   &d->netinst, e) != 0)
		return -1;
	if (p->present & PFCP_PDI_LPORT) {
		if (intern(names, &p->lport, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
			   PFCP_IE_BBF_LOGICAL_PORT, &d->lport, e) != 0)
			return -1;
		d->has |= UPR_LPORT;
	}
	if (p->present & PFCP_PDI_UE_IP) {
		d->has |= UPR_UE_IP;
		d->ue_flags = p->ue_ip.flags;
		d->ue_ip = p->ue_ip.ipv4;
		memcpy(d->ue_ip6, p->ue_ip.ipv6, 16);
		d->ue_plen = p->ue_ip.v6_plen;
	}
	if (p->present & PFCP_PDI_PPPOE_SID) {
		d->has |= UPR_SID;
		d->sid = p->pppoe_sid;
	}
	if (p->present & PFCP_PDI_SDF) {
		d->has |= UPR_SDF;
		d->sdf_dhcp = p->sdf.flags == PFCP_SDF_FD && !p->sdf.fd_long &&
			      p->sdf.fd_len == sizeof(PFCP_SDF_DHCP_FD) - 1 &&
			      memcmp(p->sdf.fd, PFCP_SDF_DHCP_FD, p->sdf.fd_len) == 0;
		d->sdf_dhcp6 = p->sdf.flags == PFCP_SDF_FD && !p->sdf.fd_long &&
			       p->sdf.fd_len == sizeof(PFCP_SDF_DHCP6_FD) - 1 &&
			       memcmp(p->sdf.fd, PFCP_SDF_DHCP6_FD, p->sdf.fd_len) == 0;
	}
	if (p->present & PFCP_PDI_PPP_PROTO) {
		d->has |= UPR_PPP;
		d->ppp_flags = p->ppp.flags;
		d->ppp_proto = p->ppp.proto;
	}
	if (p->present & PFCP_PDI_ETH) {
		if (f->present & PFCP_EF_ETHERTYPE) {
			d->has |= UPR_ETHERTYPE;
			d->ethertype = f->ethertype;
		}
		if (f->present & PFCP_EF_STAG) {
			if (!(f->stag.flags & PFCP_VLAN_VID))
				return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
						 PFCP_IE_S_TAG);
			d->has |= UPR_STAG;
			d->stag = f->stag.vid;
		}
		if (f->present & PFCP_EF_CTAG) {
			if (!(f->ctag.flags & PFCP_VLAN_VID))
				return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
						 PFCP_IE_C_TAG);
			d->has |= UPR_CTAG;
			d->ctag = f->ctag.vid;
		}
		if (f->present & PFCP_EF_MAC) {
			if (f->mac.flags & PFCP_MAC_SOUR) {
				d->has |= UPR_MAC;
				memcpy(d->mac, f->mac.src, 6);
			}
			if (f->mac.flags & ~PFCP_MAC_SOUR)
				d->has |= UPR_MAC_OTHER;
		}
	}
	return 0;
}

/* Create or Update PDR: the fields present replace the rule's. */
static int
pdr_apply(struct up_names *names, void *rule, const void *ie, bool create, struct up_err *e)
{
	struct up_pdr *d = rule;
	const struct pfcp_pdr *p = ie;

	if (create)
		d->id = p->id;
	if (p->present & PFCP_PDR_PRECEDENCE)
		d->precedence = p->precedence;
	if ((p->present & PFCP_PDR_PDI) && pdi_apply(names, d, &p->pdi, e) != 0)
		return -1;
	if (p->present & PFCP_PDR_FAR_ID) {
		d->has |= UPR_FAR;
		d->far_id = p->far_id;
	}
	if (p->present & PFCP_PDR_OHR) {
		d->has |= UPR_OHR;
		d->ohr = p->ohr;
	}
	if (p->present & PFCP_PDR_BBF_OHR) {
		d->has |= UPR_BBF_OHR;
		d->bbf_ohr = p->bbf_ohr;
	}
	if (p->n_qer) {
		d->has |= UPR_QER;
		d->qer_id = p->qer_id[0];
	}
	if (p->n_urr) {
		memset(d->urr_id, 0, sizeof(d->urr_id));
		d->n_urr = p->n_urr;
		for (int k = 0; k < p->n_urr; k++)
			d->urr_id[k] = p->urr_id[k];
	}
	return 0;
}

/* A PDR references at most UP_PDR_MAX_URR URRs and one QER. */
static bool
pdr_refs_ok(const void *ie)
{
	const struct pfcp_pdr *p = ie;

	return p->n_urr <= UP_PDR_MAX_URR && p->n_qer <= 1;
}

/* Forwarding Parameters (create) or Update Forwarding Parameters. */
static int
fwd_apply(struct up_names *names, struct up_far *d, const struct pfcp_fwd *f, bool create,
	  struct up_err *e)
{
	if (create && !(f->present & PFCP_FWD_DST_IF))
		return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_DESTINATION_INTERFACE);
	d->has |= UPF_FWD;
	if (f->present & PFCP_FWD_DST_IF) {
		d->has |= UPF_DST_IF;
		d->dst_if = f->dst_if;
	}
	if ((f->present & PFCP_FWD_NETINST) &&
	    intern(names, &f->netinst, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_NETWORK_INSTANCE,
		   &d->netinst, e) != 0)
		return -1;
	if (f->present & PFCP_FWD_OHC) {
		d->has |= UPF_OHC;
		d->ohc_desc = f->ohc.desc;
		d->ohc_ip = f->ohc.ipv4;
		d->ohc_port = f->ohc.port;
	}
	if (f->present & PFCP_FWD_BBF_OHC) {
		d->has |= UPF_BBF_OHC;
		d->has &= (uint8_t)~UPF_BBF_OHC_IDS;
		d->bbf_ohc_desc = f->bbf_ohc.desc;
		d->bbf_ohc_tunnel = f->bbf_ohc.tunnel_id;
		d->bbf_ohc_sid = f->bbf_ohc.session_id;
		if (f->bbf_ohc.has_ids)
			d->has |= UPF_BBF_OHC_IDS;
	}
	if (f->present & PFCP_FWD_POLICY) {
		if (intern(names, &f->policy, PFCP_CAUSE_INVALID_FORWARDING_POLICY,
			   PFCP_IE_FORWARDING_POLICY, &d->policy, e) != 0)
			return -1;
		d->has |= UPF_POLICY;
	}
	return 0;
}

static int
far_apply(struct up_names *names, void *rule, const void *ie, bool create, struct up_err *e)
{
	struct up_far *d = rule;
	const struct pfcp_far *f = ie;

	if (create)
		d->id = f->id;
	if (f->present & PFCP_FAR_APPLY) {
		d->apply = f->apply;
		d->has |= UPF_APPLY;
	}
	if ((f->present & PFCP_FAR_FWD) && fwd_apply(names, d, &f->fwd, create, e) != 0)
		return -1;
	return 0;
}

static int
qer_apply(struct up_names *names, void *rule, const void *ie, bool create, struct up_err *e)
{
	struct up_qer *d = rule;
	const struct pfcp_qer *q = ie;

	(void)names;
	(void)e;
	if (create)
		d->id = q->id;
	if (q->present & PFCP_QER_GATE) {
		d->has |= UPQ_GATE;
		d->gate_ul = q->gate_ul;
		d->gate_dl = q->gate_dl;
	}
	if (q->present & PFCP_QER_MBR) {
		d->has |= UPQ_MBR;
		d->mbr_ul = q->mbr_ul;
		d->mbr_dl = q->mbr_dl;
	}
	if (q->present & PFCP_QER_GBR) {
		d->has |= UPQ_GBR;
		d->gbr_ul = q->gbr_ul;
		d->gbr_dl = q->gbr_dl;
	}
	return 0;
}

static int
urr_apply(struct up_names *names, void *rule, const void *ie, bool create, struct up_err *e)
{
	struct up_urr *d = rule;
	const struct pfcp_urr *q = ie;

	(void)names;
	(void)e;
	if (create)
		d->id = q->id;
	if (q->present & PFCP_URR_METHOD)
		d->method = q->method;
	if (q->present & PFCP_URR_TRIGGERS)
		d->triggers = q->triggers;
	if (q->present & PFCP_URR_PERIOD) {
		d->has |= UPU_PERIOD;
		d->period = q->period;
	} else if (q->present & PFCP_URR_PERIOD_DEL) {
		d->has &= (uint8_t)~UPU_PERIOD;
		d->period = 0;
	}
	if (q->present & PFCP_URR_VOL_THRESH) {
		d->has |= UPU_VOLTH;
		d->vol_flags = q->vol_thresh.flags;
		d->vol_thresh[0] = q->vol_thresh.total;
		d->vol_thresh[1] = q->vol_thresh.ul;
		d->vol_thresh[2] = q->vol_thresh.dl;
	} else if (q->present & PFCP_URR_VOL_THRESH_DEL) {
		d->has &= (uint8_t)~UPU_VOLTH;
		d->vol_flags = 0;
		memset(d->vol_thresh, 0, sizeof(d->vol_thresh));
	}
	if (q->present & PFCP_URR_MEAS_INFO)
		d->meas_info = q->meas_info;
	return 0;
}

/* ---- the table of rule kinds ----------------------------------------------------------------- */

/* Every decoded rule IE starts with its presence bits (the generic code reads them there). */
_Static_assert(offsetof(struct pfcp_pdr, present) == 0, "present first");
_Static_assert(offsetof(struct pfcp_far, present) == 0, "present first");
_Static_assert(offsetof(struct pfcp_qer, present) == 0, "present first");
_Static_assert(offsetof(struct pfcp_urr, present) == 0, "present first");
/* A rule keeps its ID in the IE's width: a PDR's is 16 bits, the others' 32. */
_Static_assert(sizeof(((struct up_pdr *)0)->id) == sizeof(((struct pfcp_pdr *)0)->id), "PDR ID");
_Static_assert(sizeof(((struct up_far *)0)->id) == sizeof(((struct pfcp_far *)0)->id), "FAR ID");
_Static_assert(sizeof(((struct up_qer *)0)->id) == sizeof(((struct pfcp_qer *)0)->id), "QER ID");
_Static_assert(sizeof(((struct up_urr *)0)->id) == sizeof(((struct pfcp_urr *)0)->id), "URR ID");

struct rule_kind {
	uint8_t failed_rule;  /* PFCP_RULE_*: the Failed Rule ID's type */
	uint8_t max;	      /* rules of this kind in one session */
	uint16_t create_ie;   /* Offending IE when the session has no room for another */
	uint16_t id_ie;	      /* the rule's ID IE ... */
	uint32_t id_bit;      /* ... and its bit in the decoded IE's present */
	struct {	      /* the other mandatory IEs of a Create, in the order checked */
		uint32_t bit; /* 0 = none */
		uint16_t ie;
	} need[2];
	size_t rule_size;		 /* struct up_pdr ... */
	size_t rules_off;		 /* in struct up_rules: the array ... */
	size_t count_off;		 /* ... and its uint8_t count */
	size_t ie_size;			 /* struct pfcp_pdr ... */
	size_t create_off, n_create_off; /* in struct pfcp_msg: IE arrays and uint8_t counts */
	size_t update_off, n_update_off;
	size_t remove_off, n_remove_off; /* uint32_t IDs */
	size_t id_size;			 /* the ID, 2 octets (PDR) or 4, in the rule ... */
	size_t rule_id_off;
	size_t ie_id_off;		 /* ... and in the decoded IE */
	bool (*refs_ok)(const void *ie); /* NULL: anything goes */
	int (*apply)(struct up_names *names, void *rule, const void *ie, bool create,
		     struct up_err *e);
};

/* Where rules of kind k sit in struct up_rules and their IEs in struct pfcp_msg. */
#define KIND_LAYOUT(k)                                                                           \
	.rule_size = sizeof(struct up_##k), .rules_off = offsetof(struct up_rules, k),           \
	.count_off = offsetof(struct up_rules, n_##k), .ie_size = sizeof(struct pfcp_##k),       \
	.create_off = offsetof(struct pfcp_msg, create_##k),                                     \
	.n_create_off = offsetof(struct pfcp_msg, n_create_##k),                                 \
	.update_off = offsetof(struct pfcp_msg, update_##k),                                     \
	.n_update_off = offsetof(struct pfcp_msg, n_update_##k),                                 \
	.remove_off = offsetof(struct pfcp_msg, remove_##k),                                     \
	.n_remove_off = offsetof(struct pfcp_msg, n_remove_##k),                                 \
	.id_size = sizeof(((struct up_##k *)0)->id), .rule_id_off = offsetof(struct up_##k, id), \
	.ie_id_off = offsetof(struct pfcp_##k, id)

static const struct rule_kind kinds[UP_RULE_KINDS] = {
	[UP_RULE_PDR] = {KIND_LAYOUT(pdr), .failed_rule = PFCP_RULE_PDR, .max = UP_SESS_MAX_PDR,
			 .create_ie = PFCP_IE_CREATE_PDR, .id_ie = PFCP_IE_PDR_ID,
			 .id_bit = PFCP_PDR_ID,
			 .need = {{PFCP_PDR_PRECEDENCE, PFCP_IE_PRECEDENCE},
				  {PFCP_PDR_PDI, PFCP_IE_PDI}},
			 .refs_ok = pdr_refs_ok, .apply = pdr_apply},
	[UP_RULE_FAR] = {KIND_LAYOUT(far), .failed_rule = PFCP_RULE_FAR, .max = UP_SESS_MAX_FAR,
			 .create_ie = PFCP_IE_CREATE_FAR, .id_ie = PFCP_IE_FAR_ID,
			 .id_bit = PFCP_FAR_ID, .need = {{PFCP_FAR_APPLY, PFCP_IE_APPLY_ACTION}},
			 .apply = far_apply},
	[UP_RULE_QER] = {KIND_LAYOUT(qer), .failed_rule = PFCP_RULE_QER, .max = UP_SESS_MAX_QER,
			 .create_ie = PFCP_IE_CREATE_QER, .id_ie = PFCP_IE_QER_ID,
			 .id_bit = PFCP_QER_ID, .need = {{PFCP_QER_GATE, PFCP_IE_GATE_STATUS}},
			 .apply = qer_apply},
	[UP_RULE_URR] = {KIND_LAYOUT(urr), .failed_rule = PFCP_RULE_URR, .max = UP_SESS_MAX_URR,
			 .create_ie = PFCP_IE_CREATE_URR, .id_ie = PFCP_IE_URR_ID,
			 .id_bit = PFCP_URR_ID,
			 .need = {{PFCP_URR_METHOD, PFCP_IE_MEASUREMENT_METHOD},
				  {PFCP_URR_TRIGGERS, PFCP_IE_REPORTING_TRIGGERS}},
			 .apply = urr_apply},
};

/* ---- generic create / update / remove -------------------------------------------------------- */

static uint8_t *
count_of(const struct rule_kind *k, struct up_rules *r)
{
	return (uint8_t *)r + k->count_off;
}

static void *
rule_at(const struct rule_kind *k, struct up_rules *r, int i)
{
	return (uint8_t *)r + k->rules_off + (size_t)i * k->rule_size;
}

static const void *
msg_ie(const struct pfcp_msg *m, size_t off, size_t ie_size, int i)
{
	return (const uint8_t *)m + off + (size_t)i * ie_size;
}

static uint8_t
msg_count(const struct pfcp_msg *m, size_t off)
{
	return *((const uint8_t *)m + off);
}

static uint32_t
ie_present(const void *ie)
{
	return *(const uint32_t *)ie;
}

/* The ID at p + off, 2 or 4 octets wide. */
static uint32_t
id_at(const void *p, size_t off, size_t size)
{
	const uint8_t *b = (const uint8_t *)p + off;
	uint16_t v16;
	uint32_t v32;

	if (size == sizeof(v16)) {
		memcpy(&v16, b, sizeof(v16));
		return v16;
	}
	memcpy(&v32, b, sizeof(v32));
	return v32;
}

static int
find(const struct rule_kind *k, const struct up_rules *r, uint32_t id)
{
	const uint8_t *rules = (const uint8_t *)r + k->rules_off;
	uint8_t n = *((const uint8_t *)r + k->count_off);

	for (int i = 0; i < n; i++)
		if (id_at(rules + (size_t)i * k->rule_size, k->rule_id_off, k->id_size) == id)
			return i;
	return -1;
}

int
up_rule_find(const struct up_rules *r, enum up_rule_kind kind, uint32_t id)
{
	return find(&kinds[kind], r, id);
}

static int
rule_create(const struct rule_kind *k, struct up_rules *r, struct up_names *names, const void *ie,
	    struct up_err *e)
{
	uint8_t *n = count_of(k, r);
	uint32_t id;
	void *d;

	if (!(ie_present(ie) & k->id_bit))
		return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, k->id_ie);
	for (int i = 0; i < 2 && k->need[i].bit != 0; i++)
		if (!(ie_present(ie) & k->need[i].bit))
			return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, k->need[i].ie);
	id = id_at(ie, k->ie_id_off, k->id_size);
	if (find(k, r, id) >= 0)
		return up_err_rule(e, k->failed_rule, id);
	if (*n >= k->max)
		return up_err_ie(e, PFCP_CAUSE_NO_RESOURCES_AVAILABLE, k->create_ie);
	if (k->refs_ok != NULL && !k->refs_ok(ie))
		return up_err_rule(e, k->failed_rule, id);
	d = rule_at(k, r, *n);
	memset(d, 0, k->rule_size);
	if (k->apply(names, d, ie, true, e) != 0)
		return -1;
	(*n)++;
	return 0;
}

static int
rule_update(const struct rule_kind *k, struct up_rules *r, struct up_names *names, const void *ie,
	    struct up_err *e)
{
	uint32_t id;
	int i;

	if (!(ie_present(ie) & k->id_bit))
		return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, k->id_ie);
	id = id_at(ie, k->ie_id_off, k->id_size);
	i = find(k, r, id);
	if (i < 0 || (k->refs_ok != NULL && !k->refs_ok(ie)))
		return up_err_rule(e, k->failed_rule, id);
	return k->apply(names, rule_at(k, r, i), ie, false, e);
}

/* Remove rule id, keeping the order of the others. */
static int
rule_remove(const struct rule_kind *k, struct up_rules *r, uint32_t id, struct up_err *e)
{
	uint8_t *n = count_of(k, r);
	uint8_t *a = rule_at(k, r, 0);
	int i = find(k, r, id);

	if (i < 0)
		return up_err_rule(e, k->failed_rule, id);
	memmove(a + (size_t)i * k->rule_size, a + (size_t)(i + 1) * k->rule_size,
		(size_t)(*n - i - 1) * k->rule_size);
	(*n)--;
	memset(a + (size_t)*n * k->rule_size, 0, k->rule_size);
	return 0;
}

int
up_rules_remove(struct up_rules *r, const struct pfcp_msg *m, struct up_err *e)
{
	for (int t = 0; t < UP_RULE_KINDS; t++) {
		const struct rule_kind *k = &kinds[t];
		const uint32_t *ids = (const uint32_t *)((const uint8_t *)m + k->remove_off);

		for (int i = 0; i < msg_count(m, k->n_remove_off); i++)
			if (rule_remove(k, r, ids[i], e) != 0)
				return -1;
	}
	return 0;
}

int
up_rules_update(struct up_rules *r, struct up_names *names, const struct pfcp_msg *m,
		struct up_err *e)
{
	for (int t = 0; t < UP_RULE_KINDS; t++) {
		const struct rule_kind *k = &kinds[t];

		for (int i = 0; i < msg_count(m, k->n_update_off); i++)
			if (rule_update(k, r, names, msg_ie(m, k->update_off, k->ie_size, i), e) !=
			    0)
				return -1;
	}
	return 0;
}

int
up_rules_create(struct up_rules *r, struct up_names *names, const struct pfcp_msg *m,
		struct up_err *e)
{
	for (int t = 0; t < UP_RULE_KINDS; t++) {
		const struct rule_kind *k = &kinds[t];

		for (int i = 0; i < msg_count(m, k->n_create_off); i++)
			if (rule_create(k, r, names, msg_ie(m, k->create_off, k->ie_size, i), e) !=
			    0)
				return -1;
	}
	return 0;
}

/* ---- message-level attributes ---------------------------------------------------------------- */

int
up_attr_apply(struct up_attr *a, const struct pfcp_msg *m, struct up_err *e)
{
	if (m->present & PFCP_M_BNGPOD_RA)
		a->ra = m->ra; /* checked by the decoder; against the session by validation */
	if (m->present & PFCP_M_BNGPOD_ARP_PING)
		a->arp_ping = m->arp_ping; /* checked by the decoder; IPoE only (validation) */
	if (m->present & PFCP_M_BBF_MTU) {
		if (m->bbf_mtu < UP_MIN_MTU || m->bbf_mtu > UP_MAX_MTU)
			return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_BBF_MTU);
		a->mtu = m->bbf_mtu;
	}
	if (m->present & PFCP_M_BBF_LCP) {
		const struct pfcp_lcp_conn *l = &m->lcp;

		if (l->present & PFCP_LCP_EMPTY) {
			a->lcp_on = 0;
			a->lcp_interval = 0;
			a->lcp_count = 0;
			a->magic_tx = a->magic_rx = 0;
			return 0;
		}
		if (!(l->present & PFCP_LCP_TIMERS))
			return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING,
					 PFCP_IE_BBF_VERIFICATION_TIMERS);
		if (!(l->present & PFCP_LCP_MAGIC))
			return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING,
					 PFCP_IE_BBF_PPP_LCP_MAGIC_NUMBER);
		if (l->interval == 0 || l->count == 0)
			return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
					 PFCP_IE_BBF_VERIFICATION_TIMERS);
		if (l->magic_tx == 0)
			return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
					 PFCP_IE_BBF_PPP_LCP_MAGIC_NUMBER);
		a->lcp_on = 1;
		a->lcp_interval = l->interval;
		a->lcp_count = l->count;
		a->magic_tx = l->magic_tx;
		a->magic_rx = l->magic_rx;
	}
	return 0;
}

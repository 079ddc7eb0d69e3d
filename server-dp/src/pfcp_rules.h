/*
 * The rules of one PFCP session in compact form, built from the Create,
 * Update and Remove IEs of a request (part of the user-plane function,
 * pfcp_up.h; docs/dp/pfcp.md section 5 is the profile).
 *
 * A session holds at most UP_SESS_MAX_PDR PDRs, UP_SESS_MAX_FAR FARs,
 * UP_SESS_MAX_QER QERs and UP_SESS_MAX_URR URRs (struct up_rules, about
 * 940 bytes, no pointers: compared and copied whole). What the rules mean
 * for the data path is decided later, by validation (pfcp_validate.h); here
 * a rule is only checked for what its own IE must carry.
 *
 * The four kinds are one table (pfcp_rules.c): per kind its Failed Rule ID
 * type, its ID and mandatory IEs, its limit, where its rules sit in struct
 * up_rules and its IEs in struct pfcp_msg, and the function that applies
 * an IE's fields to a rule. Create, update and remove run through the table
 * in the order PDR, FAR, QER, URR, each IE in message order; the first
 * failure stops the request and names its cause, Offending IE or Failed
 * Rule ID in a struct up_err.
 *
 * Strings (logical ports, network instances, forwarding policies) are
 * interned in a struct up_names: a rule keeps a 16-bit index, 0 for "".
 *
 * Plain C, control thread, no allocation.
 */

#ifndef BNG_PFCP_RULES_H
#define BNG_PFCP_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include "pfcp.h"
#include "pfcp_up.h"

/* ---- what a request is answered with --------------------------------------------------------- */

struct up_err {
	uint8_t cause;	    /* PFCP_CAUSE_* */
	uint16_t offending; /* Offending IE type; 0 = none */
	bool has_rule;	    /* Failed Rule ID present */
	struct pfcp_failed_rule rule;
};

static inline void
up_set_err(struct up_err *e, uint8_t cause, uint16_t ie)
{
	e->cause = cause;
	e->offending = ie;
	e->has_rule = false;
}

/* Cause with an Offending IE; returns -1 for the caller to return. */
static inline int
up_err_ie(struct up_err *e, uint8_t cause, uint16_t ie)
{
	up_set_err(e, cause, ie);
	return -1;
}

/* Cause 73 (rule creation/modification failure) naming a rule; returns -1. */
static inline int
up_err_rule(struct up_err *e, uint8_t type, uint32_t id)
{
	e->cause = PFCP_CAUSE_RULE_CREATION_MODIFICATION_FAILURE;
	e->offending = 0;
	e->has_rule = true;
	e->rule.type = type;
	e->rule.id = id;
	return -1;
}

/* ---- interned names -------------------------------------------------------------------------- */

#define UP_NAMES_HASH 2048
struct up_names {
	uint16_t n; /* index 0 is "" */
	uint16_t hash[UP_NAMES_HASH];
	char s[UP_MAX_NAMES][UP_NAME_SIZE];
};

/* Intern a name: 1..UP_NAME_SIZE-1 printable ASCII octets. Returns its index
 * (>= 1), or -EINVAL (not a name), -ENOSPC (table full). */
int up_name_intern(struct up_names *t, const struct pfcp_str *s);

/* ---- the rules ------------------------------------------------------------------------------- */

#define UPR_FAR 0x0001
#define UPR_QER 0x0002
#define UPR_UE_IP 0x0004
#define UPR_STAG 0x0008
#define UPR_CTAG 0x0010
#define UPR_MAC 0x0020
#define UPR_SID 0x0040
#define UPR_ETHERTYPE 0x0080
#define UPR_PPP 0x0100
#define UPR_BBF_OHR 0x0200
#define UPR_OHR 0x0400
#define UPR_MAC_OTHER 0x0800 /* a MAC address IE with more than the source MAC */
#define UPR_LPORT 0x1000
#define UPR_SDF 0x2000 /* an SDF Filter; sdf_dhcp(6) say whether it is the DHCP class's */

struct up_pdr {
	uint32_t precedence;
	uint32_t far_id;
	uint32_t qer_id;
	uint32_t urr_id[UP_PDR_MAX_URR];
	uint32_t ue_ip;
	uint8_t ue_ip6[16]; /* with PFCP_UEIP_V6 */
	uint8_t ue_plen;    /* with PFCP_UEIP_IP6PL */
	uint16_t id;
	uint16_t stag;
	uint16_t ctag;
	uint16_t sid;
	uint16_t ethertype;
	uint16_t ppp_proto;
	uint16_t lport; /* name index, 0 = none */
	uint16_t netinst;
	uint16_t has; /* UPR_* */
	uint8_t mac[6];
	uint8_t src_if;
	uint8_t ue_flags;
	uint8_t ppp_flags;
	uint8_t bbf_ohr;
	uint8_t ohr;
	uint8_t n_urr;
	bool sdf_dhcp;	/* flags FD only, Flow Description PFCP_SDF_DHCP_FD exactly */
	bool sdf_dhcp6; /* flags FD only, Flow Description PFCP_SDF_DHCP6_FD exactly */
};

#define UPF_FWD 0x01
#define UPF_DST_IF 0x02
#define UPF_OHC 0x04
#define UPF_BBF_OHC 0x08
#define UPF_BBF_OHC_IDS 0x10
#define UPF_POLICY 0x20
#define UPF_APPLY 0x40

struct up_far {
	uint32_t id;
	uint32_t ohc_ip;
	uint16_t ohc_desc;
	uint16_t ohc_port;
	uint16_t bbf_ohc_desc;
	uint16_t bbf_ohc_tunnel;
	uint16_t bbf_ohc_sid;
	uint16_t policy; /* name index */
	uint16_t netinst;
	uint16_t apply;
	uint8_t dst_if;
	uint8_t has; /* UPF_* */
};

#define UPQ_MBR 0x01
#define UPQ_GBR 0x02
#define UPQ_GATE 0x04

struct up_qer {
	uint32_t id;
	uint8_t gate_ul;
	uint8_t gate_dl;
	uint8_t has;				 /* UPQ_* */
	uint64_t mbr_ul, mbr_dl, gbr_ul, gbr_dl; /* kbit/s */
};

#define UPU_PERIOD 0x01
#define UPU_VOLTH 0x02

struct up_urr {
	uint32_t id;
	uint32_t period;
	uint32_t triggers;
	uint8_t method;
	uint8_t meas_info;
	uint8_t has; /* UPU_* */
	uint8_t vol_flags;
	uint64_t vol_thresh[3]; /* total, ul, dl */
};

/* Directions a URR measures: those of the PDRs that name it. */
#define UP_DIR_UL 0x01	/* IPv4 uplink */
#define UP_DIR_DL 0x02	/* IPv4 downlink */
#define UP_DIR_UL6 0x04 /* IPv6 uplink */
#define UP_DIR_DL6 0x08 /* IPv6 downlink */
#define UP_DIR_ALL 0x10 /* every PDR of the session names it: it carries the session's drops */

struct up_rules {
	uint8_t n_pdr, n_far, n_qer, n_urr;
	struct up_pdr pdr[UP_SESS_MAX_PDR];
	struct up_far far[UP_SESS_MAX_FAR];
	struct up_qer qer[UP_SESS_MAX_QER];
	struct up_urr urr[UP_SESS_MAX_URR];
};

/* Session-level attributes (message-level IEs). */
struct up_attr {
	uint16_t mtu; /* 0 = default */
	uint8_t lcp_on;
	uint8_t lcp_count;
	uint16_t lcp_interval;
	uint32_t magic_tx;
	uint32_t magic_rx;
	struct pfcp_ra_offload ra;     /* bngpod RA offload; ra.on false: off */
	struct pfcp_arp_ping arp_ping; /* bngpod IPoE ARP ping; arp_ping.on false: off */
};

/* The rule kinds, in the order a request's IEs are applied. */
enum up_rule_kind { UP_RULE_PDR, UP_RULE_FAR, UP_RULE_QER, UP_RULE_URR, UP_RULE_KINDS };

/* Index of the rule of this kind with this ID in r, or -1. */
int up_rule_find(const struct up_rules *r, enum up_rule_kind kind, uint32_t id);

/*
 * Apply the Remove, Update or Create IEs of m to r (a copy the caller
 * commits only when the whole request succeeds). Remove: every ID must name
 * a rule (else cause 73 with its Failed Rule ID); the order of the others is
 * kept. Update: the fields present replace the rule's; the ID must name a
 * rule. Create: the mandatory IEs must be present (66), the ID must be new
 * (73) and the kind must have room (75, Offending IE the Create IE). A PDR
 * may name at most UP_PDR_MAX_URR URRs and one QER (73). Names go into
 * names (75 when it is full; 69 or 70 for a string that is not a name).
 * Return 0, or -1 with *e set; r may then be half changed.
 */
int up_rules_remove(struct up_rules *r, const struct pfcp_msg *m, struct up_err *e);
int up_rules_update(struct up_rules *r, struct up_names *names, const struct pfcp_msg *m,
		    struct up_err *e);
int up_rules_create(struct up_rules *r, struct up_names *names, const struct pfcp_msg *m,
		    struct up_err *e);

/*
 * Message-level attributes of m into a: BBF MTU (UP_MIN_MTU..UP_MAX_MTU),
 * BBF PPP LCP Connectivity (empty: offload off; else Verification Timers
 * and LCP Magic Number, non-zero). 0, or -1 with *e set.
 */
int up_attr_apply(struct up_attr *a, const struct pfcp_msg *m, struct up_err *e);

#endif /* BNG_PFCP_RULES_H */

/*
 * A PFCP session's rules validated into what the data path installs
 * (pfcp_validate.h).
 */

#include <errno.h>
#include <string.h>

#include "pfcp_validate.h"

static bool
unicast_ipv4(uint32_t a)
{
	uint8_t hi = (uint8_t)(a >> 24);

	return a != 0 && hi != 0 && hi != 127 && hi < 224;
}

static int
validate_default(const struct up_rules *r, struct up_derived *d, struct up_err *e)
{
	bool have_target = false;

	if (r->n_qer)
		return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_CREATE_QER);
	if (r->n_urr)
		return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_CREATE_URR);
	d->kind = UP_KIND_DEFAULT;
	for (int i = 0; i < r->n_pdr; i++) {
		const struct up_pdr *p = &r->pdr[i];
		const struct up_far *f = &r->far[up_rule_find(r, UP_RULE_FAR, p->far_id)];

		if (p->src_if != PFCP_IF_ACCESS)
			return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
					 PFCP_IE_SOURCE_INTERFACE);
		if (p->has & UPR_UE_IP)
			return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
					 PFCP_IE_UE_IP_ADDRESS);
		if (p->has & UPR_SID)
			return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
					 PFCP_IE_BBF_PPPOE_SESSION_ID);
		if (p->has & UPR_LPORT)
			return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
					 PFCP_IE_BBF_LOGICAL_PORT);
		if (p->has & (UPR_MAC | UPR_MAC_OTHER))
			return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_MAC_ADDRESS);
		if (p->has & UPR_STAG)
			return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_S_TAG);
		if (p->has & UPR_CTAG)
			return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_C_TAG);
		if (p->has & UPR_OHR)
			return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
					 PFCP_IE_OUTER_HEADER_REMOVAL);
		if (p->has & UPR_BBF_OHR)
			return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
					 PFCP_IE_BBF_OUTER_HEADER_REMOVAL);
		if (!(p->has & UPR_ETHERTYPE))
			return up_err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_ETHERTYPE);
		if ((p->has & UPR_SDF) && !(p->ethertype == 0x0800 && p->sdf_dhcp) &&
		    !(p->ethertype == 0x86dd && p->sdf_dhcp6))
			return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_SDF_FILTER);
		if (p->ethertype == 0x86dd) {
			/* IPoE IPv6: RS and DHCPv6, named by the DHCPv6 SDF Filter */
			if (p->has & UPR_PPP)
				return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
						 PFCP_IE_BBF_PPP_PROTOCOL);
			if (!(p->has & UPR_SDF))
				return up_err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING,
						 PFCP_IE_SDF_FILTER);
			d->redir.classes |= UP_REDIRECT_DHCP6;
		} else if (p->ethertype == 0x0800) {
			/* IPoE DHCP: the SDF Filter says which IPv4 frames */
			if (p->has & UPR_PPP)
				return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
						 PFCP_IE_BBF_PPP_PROTOCOL);
			if (!(p->has & UPR_SDF))
				return up_err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING,
						 PFCP_IE_SDF_FILTER);
			d->redir.classes |= UP_REDIRECT_DHCP;
		} else if (p->ethertype == 0x8863) {
			if (p->has & UPR_PPP)
				return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
						 PFCP_IE_BBF_PPP_PROTOCOL);
			d->redir.classes |= UP_REDIRECT_DISCOVERY;
		} else if (p->ethertype == 0x8864) {
			if (!(p->has & UPR_PPP))
				d->redir.classes |= UP_REDIRECT_UNKNOWN_SESSION;
			else if (p->ppp_flags == PFCP_BBF_PPP_CONTROL)
				d->redir.classes |= UP_REDIRECT_PPP_CONTROL;
			else
				return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
						 PFCP_IE_BBF_PPP_PROTOCOL);
		} else {
			return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_ETHERTYPE);
		}
		if (f->apply != PFCP_APPLY_FORW)
			return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_APPLY_ACTION);
		if (!(f->has & UPF_FWD))
			return up_err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING,
					 PFCP_IE_FORWARDING_PARAMETERS);
		if (f->dst_if != PFCP_IF_CP_FUNCTION)
			return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
					 PFCP_IE_DESTINATION_INTERFACE);
		if (!(f->has & UPF_OHC))
			return up_err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING,
					 PFCP_IE_OUTER_HEADER_CREATION);
		if (f->ohc_desc != PFCP_OHC_UDP_IPV4)
			return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
					 PFCP_IE_OUTER_HEADER_CREATION);
		if (!unicast_ipv4(f->ohc_ip) || f->ohc_port == 0)
			return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
					 PFCP_IE_OUTER_HEADER_CREATION);
		if (f->has & UPF_BBF_OHC)
			return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
					 PFCP_IE_BBF_OUTER_HEADER_CREATION);
		if (have_target && (f->ohc_ip != d->redir.cp_ip || f->ohc_port != d->redir.cp_port))
			return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
					 PFCP_IE_OUTER_HEADER_CREATION);
		have_target = true;
		d->redir.cp_ip = f->ohc_ip;
		d->redir.cp_port = f->ohc_port;
	}
	d->redir.fallback = false;
	return 0;
}

/* The FAR of a subscriber PDR: forward, with Forwarding Parameters to dst_if. */
static int
check_sub_far(const struct up_far *f, uint8_t dst_if, struct up_err *e)
{
	if (!(f->apply & PFCP_APPLY_FORW) ||
	    (f->apply & (PFCP_APPLY_DROP | PFCP_APPLY_BUFF | PFCP_APPLY_DUPL)))
		return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_APPLY_ACTION);
	if (!(f->has & UPF_FWD))
		return up_err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING,
				 PFCP_IE_FORWARDING_PARAMETERS);
	if (!(f->has & UPF_DST_IF) || f->dst_if != dst_if)
		return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
				 PFCP_IE_DESTINATION_INTERFACE);
	if (f->has & UPF_OHC)
		return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
				 PFCP_IE_OUTER_HEADER_CREATION);
	return 0;
}

/* BBF Outer Header Removal 1 (Ethernet) on an upstream PDR makes the session IPoE. */
static bool
is_ipoe(const struct up_pdr *p)
{
	return (p->has & UPR_BBF_OHR) && p->bbf_ohr == PFCP_BBF_OHR_ETHERNET;
}

/* An IPoE upstream PDR's family: Ethertype 0x86DD is IPv6 (PDR 3), else IPv4. */
static bool
ipoe_is_ipv6(const struct up_pdr *p)
{
	return (p->has & UPR_ETHERTYPE) && p->ethertype == 0x86dd;
}

static bool
ppp_is_ipv6(const struct up_pdr *p)
{
	return (p->has & UPR_PPP) && (p->ppp_flags & ~PFCP_BBF_PPP_DATA) == PFCP_BBF_PPP_SPECIFIC &&
	       p->ppp_proto == 0x0057;
}

/* Both upstream PDRs describe the same line, PPPoE session, FAR and QER. */
static bool
same_line(const struct up_pdr *a, const struct up_pdr *b)
{
	const uint16_t keys = UPR_STAG | UPR_CTAG | UPR_MAC | UPR_MAC_OTHER | UPR_SID | UPR_LPORT |
			      UPR_BBF_OHR | UPR_OHR | UPR_QER;

	return (a->has & keys) == (b->has & keys) && a->stag == b->stag && a->ctag == b->ctag &&
	       memcmp(a->mac, b->mac, 6) == 0 && a->sid == b->sid && a->lport == b->lport &&
	       a->bbf_ohr == b->bbf_ohr && (!(a->has & UPR_OHR) || a->ohr == b->ohr) &&
	       a->far_id == b->far_id && (!(a->has & UPR_QER) || a->qer_id == b->qer_id);
}

static bool
prefix6_host_bits(const uint8_t *a, uint8_t len)
{
	for (unsigned int i = len; i < 128; i++)
		if (a[i / 8] & (0x80 >> (i % 8)))
			return true;
	return false;
}

static bool
prefix6_contains(const uint8_t *p, uint8_t len, const uint8_t *a)
{
	for (unsigned int i = 0; i < len; i++)
		if ((p[i / 8] ^ a[i / 8]) & (0x80 >> (i % 8)))
			return false;
	return true;
}

/* A downstream IPv6 prefix PDR (docs/dp/pfcp.md, "Dual stack: the IPv6 PDRs"). */
static int
check_dn6(const struct up_pdr *p, const struct up_pdr *dn, struct up_err *e)
{
	if (p->ue_flags & (PFCP_UEIP_CHV4 | PFCP_UEIP_CHV6 | PFCP_UEIP_IPV6D))
		return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_UE_IP_ADDRESS);
	if (!(p->ue_flags & PFCP_UEIP_SD) || !(p->ue_flags & PFCP_UEIP_IP6PL) || p->ue_plen < 32 ||
	    p->ue_plen > 64 || prefix6_host_bits(p->ue_ip6, p->ue_plen) ||
	    !pfcp_ipv6_global(p->ue_ip6))
		return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_UE_IP_ADDRESS);
	if (p->has & (UPR_STAG | UPR_CTAG | UPR_MAC | UPR_MAC_OTHER | UPR_SID | UPR_PPP |
		      UPR_ETHERTYPE | UPR_LPORT))
		return up_err_rule(e, PFCP_RULE_PDR, p->id);
	if (p->has & (UPR_OHR | UPR_BBF_OHR))
		return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
				 (p->has & UPR_OHR) ? PFCP_IE_OUTER_HEADER_REMOVAL
						    : PFCP_IE_BBF_OUTER_HEADER_REMOVAL);
	if (p != dn && (p->far_id != dn->far_id || (p->has & UPR_QER) != (dn->has & UPR_QER) ||
			((p->has & UPR_QER) && p->qer_id != dn->qer_id)))
		return up_err_rule(e, PFCP_RULE_PDR, p->id);
	return 0;
}

/*
 * What an IPoE session (docs/dp/pfcp.md, "IPoE subscriber session") must
 * and must not carry beyond the common checks, for each upstream PDR: BBF
 * Outer Header Removal 1 on all of them (an IPoE and a PPPoE upstream PDR
 * together: 69), no PPPoE Session ID or PPP Protocol, the same MAC and tags,
 * the IPv4 one with the UE IP Address (anti-spoofing) and Ethertype 0x0800
 * when given; and no LCP keepalive.
 */
static int
check_ipoe(const struct up_pdr *up4, const struct up_pdr *up6, const struct up_attr *a,
	   struct up_err *e)
{
	const struct up_pdr *const ups[2] = {up4, up6};

	for (int i = 0; i < 2; i++) {
		const struct up_pdr *p = ups[i];

		if (p == NULL)
			continue;
		if (p->has & UPR_SID)
			return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
					 PFCP_IE_BBF_PPPOE_SESSION_ID);
		if (p->has & UPR_PPP)
			return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
					 PFCP_IE_BBF_PPP_PROTOCOL);
		if (!is_ipoe(p))
			return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
					 PFCP_IE_BBF_OUTER_HEADER_REMOVAL);
	}
	if (a->lcp_on)
		return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
				 PFCP_IE_BBF_PPP_LCP_CONNECTIVITY);
	if (up4 != NULL && !(up4->has & UPR_UE_IP))
		return up_err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_UE_IP_ADDRESS);
	if (up4 != NULL && (up4->has & UPR_ETHERTYPE) && up4->ethertype != 0x0800)
		return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_ETHERTYPE);
	if (up4 != NULL && up6 != NULL) {
		if ((up4->has & UPR_MAC) != (up6->has & UPR_MAC) ||
		    memcmp(up4->mac, up6->mac, 6) != 0)
			return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_MAC_ADDRESS);
		if ((up4->has & UPR_STAG) != (up6->has & UPR_STAG) || up4->stag != up6->stag)
			return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_S_TAG);
		if ((up4->has & UPR_CTAG) != (up6->has & UPR_CTAG) || up4->ctag != up6->ctag)
			return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_C_TAG);
	}
	return 0;
}

static int
validate_sub(const struct up_names *names, const struct up_rules *r, const struct up_attr *a,
	     struct up_derived *d, struct up_err *e)
{
	const struct up_pdr *up4 = NULL, *up6 = NULL, *dn4 = NULL, *dn6[UP_SUB_MAX_PREFIX6];
	const struct up_pdr *up, *dn;
	const struct up_far *fu, *fd;
	const struct up_qer *qu = NULL, *qd = NULL;
	struct up_sub *s = &d->sub;
	uint16_t policy = 0;
	bool ipoe = false;
	int n6 = 0;

	d->kind = UP_KIND_SUBSCRIBER;
	for (int i = 0; i < r->n_pdr; i++) {
		const struct up_pdr *p = &r->pdr[i];

		if (p->has & UPR_SDF)
			return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_SDF_FILTER);
		if (p->src_if == PFCP_IF_ACCESS) {
			/* the family: PPPoE's PPP Protocol, IPoE's Ethertype */
			const struct up_pdr **slot =
				(is_ipoe(p) ? ipoe_is_ipv6(p) : ppp_is_ipv6(p)) ? &up6 : &up4;

			if (*slot != NULL)
				return up_err_rule(e, PFCP_RULE_PDR, p->id);
			*slot = p;
		} else if (p->src_if == PFCP_IF_CORE) {
			if ((p->has & UPR_UE_IP) && (p->ue_flags & PFCP_UEIP_V6)) {
				if (p->ue_flags & PFCP_UEIP_V4)
					return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
							 PFCP_IE_UE_IP_ADDRESS);
				if (n6 == UP_SUB_MAX_PREFIX6)
					return up_err_rule(e, PFCP_RULE_PDR, p->id);
				dn6[n6++] = p;
			} else {
				if (dn4 != NULL)
					return up_err_rule(e, PFCP_RULE_PDR, p->id);
				dn4 = p;
			}
		} else {
			return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
					 PFCP_IE_SOURCE_INTERFACE);
		}
	}
	if ((up4 == NULL && up6 == NULL) || (dn4 == NULL && n6 == 0))
		return up_err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_CREATE_PDR);
	/* each family present in both directions */
	if ((up4 == NULL) != (dn4 == NULL) || (up6 == NULL) != (n6 == 0))
		return up_err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_CREATE_PDR);
	up = up4 != NULL ? up4 : up6;
	dn = dn4 != NULL ? dn4 : dn6[0];
	if ((up4 != NULL && is_ipoe(up4)) || (up6 != NULL && is_ipoe(up6))) {
		if (check_ipoe(up4, up6, a, e) != 0)
			return -1;
		ipoe = true;
	} else if (a->arp_ping.on) {
		return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_BNGPOD_ARP_PING);
	}

	/* upstream PDR: the line and PPPoE identity */
	if (!(up->has & UPR_STAG))
		return up_err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_S_TAG);
	if (!(up->has & UPR_CTAG))
		return up_err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_C_TAG);
	if (!(up->has & UPR_MAC))
		return up_err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_MAC_ADDRESS);
	if (!ipoe && !(up->has & UPR_SID))
		return up_err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING,
				 PFCP_IE_BBF_PPPOE_SESSION_ID);
	if (!(up->has & UPR_BBF_OHR))
		return up_err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING,
				 PFCP_IE_BBF_OUTER_HEADER_REMOVAL);
	if (up->has & UPR_MAC_OTHER)
		return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_MAC_ADDRESS);
	if (up->stag < 1 || up->stag > 4094)
		return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_S_TAG);
	if (up->ctag < 1 || up->ctag > 4094)
		return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_C_TAG);
	if ((up->mac[0] & 1) ||
	    (up->mac[0] | up->mac[1] | up->mac[2] | up->mac[3] | up->mac[4] | up->mac[5]) == 0)
		return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_MAC_ADDRESS);
	if (!ipoe && (up->sid == 0 || up->sid == 0xffff))
		return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
				 PFCP_IE_BBF_PPPOE_SESSION_ID);
	if (ipoe)
		; /* the PPPoE ethertype and PPP protocol checks do not apply (check_ipoe()) */
	else if (((up4 != NULL && (up4->has & UPR_ETHERTYPE) && up4->ethertype != 0x8864)) ||
		 (up6 != NULL && (up6->has & UPR_ETHERTYPE) && up6->ethertype != 0x8864))
		return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_ETHERTYPE);
	if (!ipoe && up4 != NULL && (up4->has & UPR_PPP) &&
	    !(up4->ppp_flags == PFCP_BBF_PPP_DATA ||
	      ((up4->ppp_flags & ~PFCP_BBF_PPP_DATA) == PFCP_BBF_PPP_SPECIFIC &&
	       up4->ppp_proto == 0x0021)))
		return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_BBF_PPP_PROTOCOL);
	if (!ipoe && up->bbf_ohr != PFCP_BBF_OHR_PPP_PPPOE_ETHERNET)
		return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
				 PFCP_IE_BBF_OUTER_HEADER_REMOVAL);
	if ((up->has & UPR_OHR) && up->ohr != PFCP_OHR_STAG_CTAG)
		return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_OUTER_HEADER_REMOVAL);
	if (up4 != NULL && up6 != NULL && !same_line(up4, up6))
		return up_err_rule(e, PFCP_RULE_PDR, up6->id);

	/* downstream IPv4 PDR: the UE address */
	if (dn4 != NULL) {
		if (!(dn4->has & UPR_UE_IP))
			return up_err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING,
					 PFCP_IE_UE_IP_ADDRESS);
		if (!(dn4->ue_flags & PFCP_UEIP_V4) ||
		    (dn4->ue_flags & (PFCP_UEIP_CHV4 | PFCP_UEIP_CHV6)))
			return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
					 PFCP_IE_UE_IP_ADDRESS);
		if (!(dn4->ue_flags & PFCP_UEIP_SD) || !unicast_ipv4(dn4->ue_ip))
			return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
					 PFCP_IE_UE_IP_ADDRESS);
		if ((up4->has & UPR_UE_IP) &&
		    (!(up4->ue_flags & PFCP_UEIP_V4) || (up4->ue_flags & PFCP_UEIP_SD) ||
		     up4->ue_ip != dn4->ue_ip))
			return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
					 PFCP_IE_UE_IP_ADDRESS);
		if (dn4->has & (UPR_STAG | UPR_CTAG | UPR_MAC | UPR_MAC_OTHER | UPR_SID | UPR_PPP |
				UPR_ETHERTYPE | UPR_LPORT))
			return up_err_rule(e, PFCP_RULE_PDR, dn4->id);
		if (dn4->has & (UPR_OHR | UPR_BBF_OHR))
			return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
					 (dn4->has & UPR_OHR) ? PFCP_IE_OUTER_HEADER_REMOVAL
							      : PFCP_IE_BBF_OUTER_HEADER_REMOVAL);
	}

	/* downstream IPv6 PDRs: the session's prefixes */
	for (int i = 0; i < n6; i++)
		if (check_dn6(dn6[i], dn, e) != 0)
			return -1;
	if (n6 == 2) {
		uint8_t l = dn6[0]->ue_plen < dn6[1]->ue_plen ? dn6[0]->ue_plen : dn6[1]->ue_plen;

		if (prefix6_contains(dn6[0]->ue_ip6, l, dn6[1]->ue_ip6))
			return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
					 PFCP_IE_UE_IP_ADDRESS);
	}
	if (up6 != NULL && (up6->has & UPR_UE_IP)) {
		bool match = false;

		for (int i = 0; i < n6; i++)
			match |= up6->ue_plen == dn6[i]->ue_plen &&
				 memcmp(up6->ue_ip6, dn6[i]->ue_ip6, 16) == 0;
		if ((up6->ue_flags & (PFCP_UEIP_V4 | PFCP_UEIP_SD)) ||
		    !(up6->ue_flags & PFCP_UEIP_V6) || !(up6->ue_flags & PFCP_UEIP_IP6PL) || !match)
			return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
					 PFCP_IE_UE_IP_ADDRESS);
	}
	if (dn4 != NULL && n6 > 0 &&
	    (dn6[0]->far_id != dn4->far_id || (dn6[0]->has & UPR_QER) != (dn4->has & UPR_QER) ||
	     ((dn4->has & UPR_QER) && dn6[0]->qer_id != dn4->qer_id)))
		return up_err_rule(e, PFCP_RULE_PDR, dn6[0]->id);

	/* FARs */
	fu = &r->far[up_rule_find(r, UP_RULE_FAR, up->far_id)];
	fd = &r->far[up_rule_find(r, UP_RULE_FAR, dn->far_id)];
	if (fu == fd)
		return up_err_rule(e, PFCP_RULE_FAR, fu->id);
	if (check_sub_far(fu, PFCP_IF_CORE, e) != 0 || check_sub_far(fd, PFCP_IF_ACCESS, e) != 0)
		return -1;
	if (fu->has & UPF_BBF_OHC)
		return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
				 PFCP_IE_BBF_OUTER_HEADER_CREATION);
	if (!(fd->has & UPF_BBF_OHC))
		return up_err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING,
				 PFCP_IE_BBF_OUTER_HEADER_CREATION);
	if (fd->bbf_ohc_desc != PFCP_BBF_OHC_TRAFFIC_ENDPOINT)
		return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
				 PFCP_IE_BBF_OUTER_HEADER_CREATION);
	if ((fd->has & UPF_BBF_OHC_IDS) &&
	    (fd->bbf_ohc_tunnel != 0 || fd->bbf_ohc_sid != (ipoe ? 0 : up->sid)))
		return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
				 PFCP_IE_BBF_OUTER_HEADER_CREATION);
	if (fd->has & UPF_POLICY)
		policy = fd->policy;
	if (fu->has & UPF_POLICY) {
		if (policy != 0 && policy != fu->policy)
			return up_err_ie(e, PFCP_CAUSE_INVALID_FORWARDING_POLICY,
					 PFCP_IE_FORWARDING_POLICY);
		policy = fu->policy;
	}

	/* QERs: uplink rates from the upstream PDR's, downlink from the downstream's */
	if (up->has & UPR_QER)
		qu = &r->qer[up_rule_find(r, UP_RULE_QER, up->qer_id)];
	if (dn->has & UPR_QER)
		qd = &r->qer[up_rule_find(r, UP_RULE_QER, dn->qer_id)];
	if (qu != NULL && qu->gate_ul != PFCP_GATE_OPEN)
		return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_GATE_STATUS);
	if (qd != NULL && qd->gate_dl != PFCP_GATE_OPEN)
		return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_GATE_STATUS);
	if (qu != NULL) {
		s->mbr_ul = (qu->has & UPQ_MBR) ? qu->mbr_ul * 1000 : 0;
		s->gbr_ul = (qu->has & UPQ_GBR) ? qu->gbr_ul * 1000 : 0;
	}
	if (qd != NULL) {
		s->mbr_dl = (qd->has & UPQ_MBR) ? qd->mbr_dl * 1000 : 0;
		s->gbr_dl = (qd->has & UPQ_GBR) ? qd->gbr_dl * 1000 : 0;
	}
	if ((s->mbr_ul && s->gbr_ul > s->mbr_ul) || (s->mbr_dl && s->gbr_dl > s->mbr_dl))
		return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_GBR);

	/* URRs: the families and directions of the PDRs that name them */
	for (int i = 0; i < r->n_urr; i++) {
		const struct up_urr *q = &r->urr[i];
		const struct up_pdr *const by[] = {up4, dn4, up6, n6 > 0 ? dn6[0] : NULL,
						   n6 > 1 ? dn6[1] : NULL};
		static const uint8_t bit[] = {UP_DIR_UL, UP_DIR_DL, UP_DIR_UL6, UP_DIR_DL6,
					      UP_DIR_DL6};

		if (!(q->method & (PFCP_METHOD_VOLUM | PFCP_METHOD_DURAT)))
			return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
					 PFCP_IE_MEASUREMENT_METHOD);
		if ((q->triggers & PFCP_RT_PERIO) && (!(q->has & UPU_PERIOD) || q->period == 0))
			return up_err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING,
					 PFCP_IE_MEASUREMENT_PERIOD);
		if ((q->triggers & PFCP_RT_VOLTH) && (!(q->has & UPU_VOLTH) || q->vol_flags == 0))
			return up_err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING,
					 PFCP_IE_VOLUME_THRESHOLD);
		bool all = true;

		for (size_t j = 0; j < sizeof(by) / sizeof(by[0]); j++) {
			bool named = false;

			for (int k = 0; by[j] != NULL && k < by[j]->n_urr; k++)
				named |= by[j]->urr_id[k] == q->id;
			if (named)
				d->dirs[i] |= bit[j];
			else if (by[j] != NULL)
				all = false;
		}
		if (d->dirs[i] && all)
			d->dirs[i] |= UP_DIR_ALL;
		if (d->dirs[i] && (q->triggers & PFCP_RT_PERIO) &&
		    (s->urr_period_s == 0 || q->period < s->urr_period_s))
			s->urr_period_s = q->period;
	}

	/* RA offload: the /64 must be one of the session's, the MTU within the session's */
	if (a->ra.on) {
		bool match = false;
		uint16_t mtu = a->mtu ? a->mtu : ipoe ? UP_DEFAULT_MTU_IPOE : UP_DEFAULT_MTU;

		for (int i = 0; i < n6; i++)
			match |= dn6[i]->ue_plen == 64 &&
				 memcmp(dn6[i]->ue_ip6, a->ra.prefix, 8) == 0;
		if (!match || a->ra.mtu > mtu)
			return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
					 PFCP_IE_BNGPOD_RA_OFFLOAD);
		s->ra = a->ra;
	}

	/* the flat description */
	if (up->lport)
		memcpy(s->logical_port, names->s[up->lport], UP_NAME_SIZE);
	if (policy)
		memcpy(s->qos_profile, names->s[policy], UP_NAME_SIZE);
	s->kind = ipoe ? UP_SUB_IPOE : UP_SUB_PPPOE;
	s->arp_ping = a->arp_ping;
	s->stag = up->stag;
	s->ctag = up->ctag;
	memcpy(s->mac, up->mac, 6);
	s->pppoe_sid = ipoe ? 0 : up->sid;
	s->has_ipv4 = dn4 != NULL;
	s->ipv4 = dn4 != NULL ? dn4->ue_ip : 0;
	s->has_ipv6 = n6 > 0;
	s->n_prefix6 = (uint8_t)n6;
	for (int i = 0; i < n6; i++) {
		memcpy(s->prefix6[i], dn6[i]->ue_ip6, 16);
		s->prefix6_len[i] = dn6[i]->ue_plen;
	}
	s->mtu = a->mtu;
	s->lcp_offload = a->lcp_on != 0;
	s->lcp_magic = a->magic_tx;
	s->lcp_peer_magic = a->magic_rx;
	s->echo_interval_s = a->lcp_interval;
	s->echo_misses = a->lcp_count;
	return 0;
}

int
up_validate(const struct up_names *names, const struct up_rules *r, const struct up_attr *a,
	    struct up_derived *d, struct up_err *e)
{
	bool to_cp = false;

	memset(d, 0, sizeof(*d));
	if (r->n_pdr == 0)
		return up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_CREATE_PDR);
	for (int i = 0; i < r->n_pdr; i++) {
		const struct up_pdr *p = &r->pdr[i];

		if (!(p->has & UPR_FAR))
			return up_err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_FAR_ID);
		if (up_rule_find(r, UP_RULE_FAR, p->far_id) < 0)
			return up_err_rule(e, PFCP_RULE_PDR, p->id);
		if ((p->has & UPR_QER) && up_rule_find(r, UP_RULE_QER, p->qer_id) < 0)
			return up_err_rule(e, PFCP_RULE_PDR, p->id);
		for (int k = 0; k < p->n_urr; k++)
			if (up_rule_find(r, UP_RULE_URR, p->urr_id[k]) < 0)
				return up_err_rule(e, PFCP_RULE_PDR, p->id);
	}
	for (int i = 0; i < r->n_far; i++)
		if ((r->far[i].has & UPF_DST_IF) && r->far[i].dst_if == PFCP_IF_CP_FUNCTION)
			to_cp = true;
	if (to_cp && a->ra.on)
		return up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_BNGPOD_RA_OFFLOAD);
	if (to_cp)
		return validate_default(r, d, e);
	return validate_sub(names, r, a, d, e);
}

uint32_t
up_sub_changes(const struct up_sub *o, const struct up_sub *n)
{
	uint32_t c = 0;

	if (strcmp(o->logical_port, n->logical_port) != 0 || o->stag != n->stag ||
	    o->ctag != n->ctag || memcmp(o->mac, n->mac, 6) != 0 || o->pppoe_sid != n->pppoe_sid ||
	    o->ipv4 != n->ipv4 || o->has_ipv4 != n->has_ipv4 || o->has_ipv6 != n->has_ipv6 ||
	    o->n_prefix6 != n->n_prefix6 || memcmp(o->prefix6, n->prefix6, sizeof(o->prefix6)) ||
	    memcmp(o->prefix6_len, n->prefix6_len, sizeof(o->prefix6_len)))
		c |= UP_CHG_KEYS;
	if (o->mtu != n->mtu)
		c |= UP_CHG_MTU;
	if (o->mbr_ul != n->mbr_ul || o->mbr_dl != n->mbr_dl || o->gbr_ul != n->gbr_ul ||
	    o->gbr_dl != n->gbr_dl)
		c |= UP_CHG_RATES;
	if (strcmp(o->qos_profile, n->qos_profile) != 0)
		c |= UP_CHG_QOS;
	if (o->kind != n->kind)
		c |= UP_CHG_KEYS;
	if (memcmp(&o->arp_ping, &n->arp_ping, sizeof(o->arp_ping)) != 0)
		c |= UP_CHG_ARP_PING;
	if (o->lcp_offload != n->lcp_offload || o->lcp_magic != n->lcp_magic ||
	    o->lcp_peer_magic != n->lcp_peer_magic || o->echo_interval_s != n->echo_interval_s ||
	    o->echo_misses != n->echo_misses)
		c |= UP_CHG_LCP;
	if (o->urr_period_s != n->urr_period_s)
		c |= UP_CHG_URR;
	if (memcmp(&o->ra, &n->ra, sizeof(o->ra)) != 0)
		c |= UP_CHG_RA;
	return c;
}

static uint8_t
errno_cause(int rc)
{
	switch (rc) {
	case -ENOSPC:
	case -ENOMEM:
		return PFCP_CAUSE_NO_RESOURCES_AVAILABLE;
	case -ENOENT:
		return PFCP_CAUSE_INVALID_FORWARDING_POLICY;
	default:
		return PFCP_CAUSE_RULE_CREATION_MODIFICATION_FAILURE;
	}
}

void
up_ops_error(const struct up_rules *r, int rc, struct up_err *e)
{
	uint8_t cause = errno_cause(rc);

	if (cause == PFCP_CAUSE_RULE_CREATION_MODIFICATION_FAILURE) {
		uint16_t id = 0;

		for (int i = 0; i < r->n_pdr; i++)
			if (r->pdr[i].src_if == PFCP_IF_ACCESS)
				id = r->pdr[i].id;
		up_err_rule(e, PFCP_RULE_PDR, id);
	} else {
		up_set_err(e, cause,
			   cause == PFCP_CAUSE_INVALID_FORWARDING_POLICY ? PFCP_IE_FORWARDING_POLICY
									 : 0);
	}
}

/*
 * Builders of the PFCP messages a bngpod CP sends, as struct pfcp_msg, for
 * the tests, the sample printer (pfcp-encode-samples) and the fuzzer's
 * seeds. The byte-exact reference is the hand-built vectors of
 * test_pfcp.c; these builders follow docs/dp/pfcp.md and are checked
 * against those vectors there.
 */
#ifndef BNG_TESTS_PFCP_BUILD_H
#define BNG_TESTS_PFCP_BUILD_H

#include <stdint.h>
#include <string.h>

#include "pfcp.h"

#define PB_CP_IP 0x0ac80001u /* 10.200.0.1 */
#define PB_UP_IP 0x0ac8000bu /* 10.200.0.11 */
#define PB_CP_RECOVERY 0xe8000000u

/* One subscriber as the CP describes it (rates in kbit/s, 0 = none). */
struct pb_sub {
	uint16_t stag, ctag;
	uint8_t mac[6];
	uint16_t sid;
	uint32_t ipv4;
	const char *lport; /* NULL = none */
	uint16_t mtu;	   /* 0 = no BBF MTU IE */
	uint64_t mbr_ul, mbr_dl, gbr_ul, gbr_dl;
	const char *qos; /* NULL = no Forwarding Policy */
	uint32_t magic_tx, magic_rx;
	uint16_t echo_interval;
	uint8_t echo_count;  /* 0 = no LCP Connectivity */
	uint32_t urr_period; /* 0 = no URR */
};

static inline struct pb_sub
pb_sub_default(void)
{
	struct pb_sub s = {
		.stag = 100,
		.ctag = 7,
		.mac = {0x02, 0x11, 0x00, 0x00, 0x00, 0x07},
		.sid = 0x0107,
		.ipv4 = 0x64500007, /* 100.80.0.7 */
		.lport = "access1",
		.mtu = 1492,
		.mbr_ul = 10000,
		.mbr_dl = 50000,
		.gbr_ul = 2000,
		.qos = "gold",
		.magic_tx = 0x11223344,
		.magic_rx = 0x55667788,
		.echo_interval = 30,
		.echo_count = 3,
		.urr_period = 60,
	};
	return s;
}

static inline void
pb_str(struct pfcp_str *d, const char *s)
{
	d->len = (uint16_t)strlen(s);
	memcpy(d->v, s, d->len);
}

static inline void
pb_hdr(struct pfcp_msg *m, uint8_t type, int sess, uint64_t seid, uint32_t seq)
{
	memset(m, 0, sizeof(*m));
	m->h.type = type;
	m->h.seq = seq;
	if (sess) {
		m->h.flags = PFCP_FLAG_S;
		m->h.seid = seid;
	}
}

static inline void
pb_node_cp(struct pfcp_msg *m)
{
	m->present |= PFCP_M_NODE_ID;
	m->node_id.type = PFCP_NODE_ID_IPV4;
	m->node_id.ipv4 = PB_CP_IP;
}

static inline void
pb_assoc_setup(struct pfcp_msg *m, uint32_t seq, uint32_t recovery)
{
	pb_hdr(m, PFCP_ASSOC_SETUP_REQ, 0, 0, seq);
	pb_node_cp(m);
	m->present |= PFCP_M_RECOVERY_TS | PFCP_M_CP_FEATURES;
	m->recovery_ts = recovery;
	m->cp_features_len = 1;
}

static inline void
pb_heartbeat(struct pfcp_msg *m, uint32_t seq)
{
	pb_hdr(m, PFCP_HEARTBEAT_REQ, 0, 0, seq);
	m->present |= PFCP_M_RECOVERY_TS;
	m->recovery_ts = PB_CP_RECOVERY;
}

static inline void
pb_fseid(struct pfcp_msg *m, uint64_t cp_seid)
{
	m->present |= PFCP_M_F_SEID;
	m->fseid.flags = PFCP_FSEID_V4;
	m->fseid.seid = cp_seid;
	m->fseid.ipv4 = PB_CP_IP;
}

static inline void
pb_lcp(struct pfcp_msg *m, const struct pb_sub *s)
{
	m->present |= PFCP_M_BBF_LCP;
	m->lcp.present = PFCP_LCP_TIMERS | PFCP_LCP_MAGIC;
	m->lcp.interval = s->echo_interval;
	m->lcp.count = s->echo_count;
	m->lcp.magic_tx = s->magic_tx;
	m->lcp.magic_rx = s->magic_rx;
}

/* Session Establishment Request of one subscriber: PDR 1 up, PDR 2 down,
 * FAR 1 up, FAR 2 down, QER 1 and URR 1 on both PDRs. */
static inline void
pb_establish(struct pfcp_msg *m, const struct pb_sub *s, uint64_t cp_seid, uint32_t seq)
{
	struct pfcp_pdr *up, *dn;
	struct pfcp_far *fu, *fd;
	int q = s->mbr_ul || s->mbr_dl || s->gbr_ul || s->gbr_dl;

	pb_hdr(m, PFCP_SESS_EST_REQ, 1, 0, seq);
	pb_node_cp(m);
	pb_fseid(m, cp_seid);

	up = &m->create_pdr[m->n_create_pdr++];
	up->present = PFCP_PDR_ID | PFCP_PDR_PRECEDENCE | PFCP_PDR_PDI | PFCP_PDR_BBF_OHR |
		      PFCP_PDR_FAR_ID;
	up->id = 1;
	up->precedence = 100;
	up->pdi.present = PFCP_PDI_SRC_IF | PFCP_PDI_ETH | PFCP_PDI_PPPOE_SID | PFCP_PDI_PPP_PROTO;
	up->pdi.src_if = PFCP_IF_ACCESS;
	up->pdi.eth.present = PFCP_EF_MAC | PFCP_EF_ETHERTYPE | PFCP_EF_CTAG | PFCP_EF_STAG;
	up->pdi.eth.mac.flags = PFCP_MAC_SOUR;
	memcpy(up->pdi.eth.mac.src, s->mac, 6);
	up->pdi.eth.ethertype = 0x8864;
	up->pdi.eth.ctag.flags = PFCP_VLAN_VID;
	up->pdi.eth.ctag.vid = s->ctag;
	up->pdi.eth.stag.flags = PFCP_VLAN_VID;
	up->pdi.eth.stag.vid = s->stag;
	if (s->lport) {
		up->pdi.present |= PFCP_PDI_LPORT;
		pb_str(&up->pdi.lport, s->lport);
	}
	up->pdi.pppoe_sid = s->sid;
	up->pdi.ppp.flags = PFCP_BBF_PPP_SPECIFIC;
	up->pdi.ppp.proto = 0x0021;
	up->bbf_ohr = PFCP_BBF_OHR_PPP_PPPOE_ETHERNET;
	up->far_id = 1;

	dn = &m->create_pdr[m->n_create_pdr++];
	dn->present = PFCP_PDR_ID | PFCP_PDR_PRECEDENCE | PFCP_PDR_PDI | PFCP_PDR_FAR_ID;
	dn->id = 2;
	dn->precedence = 100;
	dn->pdi.present = PFCP_PDI_SRC_IF | PFCP_PDI_UE_IP;
	dn->pdi.src_if = PFCP_IF_CORE;
	dn->pdi.ue_ip.flags = PFCP_UEIP_V4 | PFCP_UEIP_SD;
	dn->pdi.ue_ip.ipv4 = s->ipv4;
	dn->far_id = 2;
	if (s->urr_period) {
		up->urr_id[up->n_urr++] = 1;
		dn->urr_id[dn->n_urr++] = 1;
	}
	if (q) {
		up->qer_id[up->n_qer++] = 1;
		dn->qer_id[dn->n_qer++] = 1;
	}

	fu = &m->create_far[m->n_create_far++];
	fu->present = PFCP_FAR_ID | PFCP_FAR_APPLY | PFCP_FAR_FWD;
	fu->id = 1;
	fu->apply = PFCP_APPLY_FORW;
	fu->fwd.present = PFCP_FWD_DST_IF;
	fu->fwd.dst_if = PFCP_IF_CORE;

	fd = &m->create_far[m->n_create_far++];
	fd->present = PFCP_FAR_ID | PFCP_FAR_APPLY | PFCP_FAR_FWD;
	fd->id = 2;
	fd->apply = PFCP_APPLY_FORW;
	fd->fwd.present = PFCP_FWD_DST_IF | PFCP_FWD_BBF_OHC;
	fd->fwd.dst_if = PFCP_IF_ACCESS;
	fd->fwd.bbf_ohc.desc = PFCP_BBF_OHC_TRAFFIC_ENDPOINT;
	fd->fwd.bbf_ohc.has_ids = 1;
	fd->fwd.bbf_ohc.session_id = s->sid;
	if (s->qos) {
		fd->fwd.present |= PFCP_FWD_POLICY;
		pb_str(&fd->fwd.policy, s->qos);
	}

	if (s->urr_period) {
		struct pfcp_urr *u = &m->create_urr[m->n_create_urr++];

		u->present = PFCP_URR_ID | PFCP_URR_METHOD | PFCP_URR_TRIGGERS | PFCP_URR_PERIOD;
		u->id = 1;
		u->method = PFCP_METHOD_VOLUM | PFCP_METHOD_DURAT;
		u->triggers = PFCP_RT_PERIO;
		u->period = s->urr_period;
	}
	if (q) {
		struct pfcp_qer *qe = &m->create_qer[m->n_create_qer++];

		qe->present = PFCP_QER_ID | PFCP_QER_GATE | PFCP_QER_MBR | PFCP_QER_GBR;
		qe->id = 1;
		qe->mbr_ul = s->mbr_ul;
		qe->mbr_dl = s->mbr_dl;
		qe->gbr_ul = s->gbr_ul;
		qe->gbr_dl = s->gbr_dl;
	}
	if (s->mtu) {
		m->present |= PFCP_M_BBF_MTU;
		m->bbf_mtu = s->mtu;
	}
	if (s->echo_count)
		pb_lcp(m, s);
}

/* The sample dual-stack prefixes: 2001:db8:100:7::/64 and 2001:db8:200:700::/56. */
static const uint8_t PB_V6_WAN[16] = {0x20, 0x01, 0x0d, 0xb8, 0x01, 0x00, 0x00, 0x07};
static const uint8_t PB_V6_PD[16] = {0x20, 0x01, 0x0d, 0xb8, 0x02, 0x00, 0x07, 0x00};

/*
 * Add the IPv6 part (docs/dp/pfcp.md "Dual stack"): PDR 3 upstream (PPP
 * 0x0057, the same PDI, FAR and QER as PDR 1), PDR 4 the /64, PDR 5 the /56
 * (FAR 2); with URRs, URR 3 (IPv6) on PDRs 3-5 and URR 2 (IPv4) on PDRs 1, 2
 * beside URR 1. v6only: PDRs 1 and 2 are dropped (an IPv6-only session).
 */
static inline void
pb_add_ipv6(struct pfcp_msg *m, bool v6only)
{
	struct pfcp_pdr up = m->create_pdr[0], dn = m->create_pdr[1];
	bool urr = m->n_create_urr > 0;
	struct pfcp_pdr *p;

	if (v6only) {
		m->n_create_pdr = 0;
	} else if (urr) {
		m->create_pdr[0].urr_id[m->create_pdr[0].n_urr++] = 2;
		m->create_pdr[1].urr_id[m->create_pdr[1].n_urr++] = 2;
	}
	p = &m->create_pdr[m->n_create_pdr++];
	*p = up;
	p->id = 3;
	p->pdi.ppp.flags = PFCP_BBF_PPP_SPECIFIC;
	p->pdi.ppp.proto = 0x0057;
	for (int i = 0; i < 2; i++) {
		p = &m->create_pdr[m->n_create_pdr++];
		*p = dn;
		p->id = (uint16_t)(4 + i);
		p->pdi.ue_ip.flags = PFCP_UEIP_V6 | PFCP_UEIP_SD | PFCP_UEIP_IP6PL;
		memcpy(p->pdi.ue_ip.ipv6, i == 0 ? PB_V6_WAN : PB_V6_PD, 16);
		p->pdi.ue_ip.v6_plen = i == 0 ? 64 : 56;
	}
	if (urr) {
		for (int i = m->n_create_pdr - 3; i < m->n_create_pdr; i++)
			m->create_pdr[i].urr_id[m->create_pdr[i].n_urr++] = 3;
		for (int id = 2; id <= 3; id++) {
			if (v6only && id == 2)
				continue;
			m->create_urr[m->n_create_urr] = m->create_urr[0];
			m->create_urr[m->n_create_urr++].id = (uint32_t)id;
		}
	}
}

/* The RA offload IE for the sample /64: interval 200 s, lifetime 1800 s, O, MTU 1492, one DNS. */
static inline void
pb_ra(struct pfcp_msg *m)
{
	struct pfcp_ra_offload *ra = &m->ra;

	memset(ra, 0, sizeof(*ra));
	ra->on = true;
	ra->interval_s = 200;
	ra->lifetime_s = 1800;
	ra->flags = PFCP_RA_FLAG_O;
	ra->mtu = 1492;
	memcpy(ra->prefix, PB_V6_WAN, 8);
	ra->valid_s = 86400;
	ra->preferred_s = 14400;
	memcpy(ra->iid, "\x00\xbb\x00\xff\xfe\x00\x00\x01", 8);
	ra->n_dns = 1;
	memcpy(ra->dns[0], "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x53", 16);
	m->present |= PFCP_M_BNGPOD_RA;
}

/* The default session: discovery, PPP control and unknown-session PDRs to one FAR. */
static inline void
pb_default(struct pfcp_msg *m, uint64_t cp_seid, uint32_t seq, uint32_t vx_ip, uint16_t vx_port)
{
	static const struct {
		uint16_t ethertype;
		uint8_t ppp;
		uint32_t prec;
	} cls[3] = {{0x8863, 0, 10}, {0x8864, PFCP_BBF_PPP_CONTROL, 20}, {0x8864, 0, 65000}};
	struct pfcp_far *f;

	pb_hdr(m, PFCP_SESS_EST_REQ, 1, 0, seq);
	pb_node_cp(m);
	pb_fseid(m, cp_seid);
	for (int i = 0; i < 3; i++) {
		struct pfcp_pdr *p = &m->create_pdr[m->n_create_pdr++];

		p->present = PFCP_PDR_ID | PFCP_PDR_PRECEDENCE | PFCP_PDR_PDI | PFCP_PDR_FAR_ID;
		p->id = (uint16_t)(i + 1);
		p->precedence = cls[i].prec;
		p->pdi.present = PFCP_PDI_SRC_IF | PFCP_PDI_ETH;
		p->pdi.src_if = PFCP_IF_ACCESS;
		p->pdi.eth.present = PFCP_EF_ETHERTYPE;
		p->pdi.eth.ethertype = cls[i].ethertype;
		if (cls[i].ppp) {
			p->pdi.present |= PFCP_PDI_PPP_PROTO;
			p->pdi.ppp.flags = cls[i].ppp;
		}
		p->far_id = 1;
	}
	f = &m->create_far[m->n_create_far++];
	f->present = PFCP_FAR_ID | PFCP_FAR_APPLY | PFCP_FAR_FWD;
	f->id = 1;
	f->apply = PFCP_APPLY_FORW;
	f->fwd.present = PFCP_FWD_DST_IF | PFCP_FWD_OHC;
	f->fwd.dst_if = PFCP_IF_CP_FUNCTION;
	f->fwd.ohc.desc = PFCP_OHC_UDP_IPV4;
	f->fwd.ohc.ipv4 = vx_ip;
	f->fwd.ohc.port = vx_port;
}

/*
 * Session Establishment Request of one IPoE subscriber (docs/dp/pfcp.md,
 * "IPoE subscriber session"): the PPPoE shape with Ethertype 0x0800, the UE
 * IP Address (S/D = 0) upstream, no PPPoE Session ID or PPP Protocol, BBF
 * Outer Header Removal 1, BBF Outer Header Creation session id 0, MTU 1500,
 * no LCP; ARP ping when echo_count is set (interval echo_interval).
 */
static inline void
pb_establish_ipoe(struct pfcp_msg *m, const struct pb_sub *s, uint64_t cp_seid, uint32_t seq)
{
	struct pfcp_pdr *up;
	struct pb_sub t = *s;

	t.echo_count = 0;
	pb_establish(m, &t, cp_seid, seq);
	up = &m->create_pdr[0];
	up->pdi.present &= ~(uint32_t)(PFCP_PDI_PPPOE_SID | PFCP_PDI_PPP_PROTO);
	up->pdi.present |= PFCP_PDI_UE_IP;
	up->pdi.ue_ip.flags = PFCP_UEIP_V4;
	up->pdi.ue_ip.ipv4 = s->ipv4;
	up->pdi.eth.ethertype = 0x0800;
	up->bbf_ohr = PFCP_BBF_OHR_ETHERNET;
	m->create_far[1].fwd.bbf_ohc.session_id = 0;
	if (s->mtu) {
		m->present |= PFCP_M_BBF_MTU;
		m->bbf_mtu = 1500;
	}
	if (s->echo_count) {
		m->present |= PFCP_M_BNGPOD_ARP_PING;
		m->arp_ping.on = true;
		m->arp_ping.interval_s = s->echo_interval;
		m->arp_ping.count = s->echo_count;
	}
}

/* Add the default session's DHCP class (PDR 4, precedence 30) to pb_default()'s request. */
static inline void
pb_default_dhcp(struct pfcp_msg *m)
{
	struct pfcp_pdr *p = &m->create_pdr[m->n_create_pdr++];

	p->present = PFCP_PDR_ID | PFCP_PDR_PRECEDENCE | PFCP_PDR_PDI | PFCP_PDR_FAR_ID;
	p->id = 4;
	p->precedence = 30;
	p->pdi.present = PFCP_PDI_SRC_IF | PFCP_PDI_ETH | PFCP_PDI_SDF;
	p->pdi.src_if = PFCP_IF_ACCESS;
	p->pdi.eth.present = PFCP_EF_ETHERTYPE;
	p->pdi.eth.ethertype = 0x0800;
	p->pdi.sdf.flags = PFCP_SDF_FD;
	p->pdi.sdf.fd_len = sizeof(PFCP_SDF_DHCP_FD) - 1;
	memcpy(p->pdi.sdf.fd, PFCP_SDF_DHCP_FD, p->pdi.sdf.fd_len);
	p->far_id = 1;
}

/*
 * Dual stack over IPoE (docs/dp/pfcp.md "IPoE with IPv6"): pb_add_ipv6() on a
 * pb_establish_ipoe() request, with PDR 3 the IPoE upstream IPv6 PDR: PDR 1's
 * PDI with Ethertype 0x86DD and no UE IP Address. v6only: PDRs 3, 4, 5 only.
 */
static inline void
pb_add_ipoe6(struct pfcp_msg *m, bool v6only)
{
	pb_add_ipv6(m, v6only);
	for (int i = 0; i < m->n_create_pdr; i++) {
		struct pfcp_pdr *p = &m->create_pdr[i];

		if (p->id != 3)
			continue;
		p->pdi.present &= ~(uint32_t)(PFCP_PDI_PPP_PROTO | PFCP_PDI_UE_IP);
		memset(&p->pdi.ppp, 0, sizeof(p->pdi.ppp));
		memset(&p->pdi.ue_ip, 0, sizeof(p->pdi.ue_ip));
		p->pdi.eth.ethertype = 0x86dd;
	}
}

/* Add the dhcp class's IPv6 PDR (PDR 5, precedence 31: RS and DHCPv6 of IPoE lines). */
static inline void
pb_default_dhcp6(struct pfcp_msg *m)
{
	struct pfcp_pdr *p = &m->create_pdr[m->n_create_pdr++];

	p->present = PFCP_PDR_ID | PFCP_PDR_PRECEDENCE | PFCP_PDR_PDI | PFCP_PDR_FAR_ID;
	p->id = 5;
	p->precedence = 31;
	p->pdi.present = PFCP_PDI_SRC_IF | PFCP_PDI_ETH | PFCP_PDI_SDF;
	p->pdi.src_if = PFCP_IF_ACCESS;
	p->pdi.eth.present = PFCP_EF_ETHERTYPE;
	p->pdi.eth.ethertype = 0x86dd;
	p->pdi.sdf.flags = PFCP_SDF_FD;
	p->pdi.sdf.fd_len = sizeof(PFCP_SDF_DHCP6_FD) - 1;
	memcpy(p->pdi.sdf.fd, PFCP_SDF_DHCP6_FD, p->pdi.sdf.fd_len);
	p->far_id = 1;
}

static inline void
pb_delete(struct pfcp_msg *m, uint64_t up_seid, uint32_t seq)
{
	pb_hdr(m, PFCP_SESS_DEL_REQ, 1, up_seid, seq);
}

/* Modification: new QoS profile and rates (a CoA), and a query of URR 1. */
static inline void
pb_modify_coa(struct pfcp_msg *m, uint64_t up_seid, uint32_t seq, const char *qos, uint64_t mbr_ul,
	      uint64_t mbr_dl, int query)
{
	pb_hdr(m, PFCP_SESS_MOD_REQ, 1, up_seid, seq);
	if (qos) {
		struct pfcp_far *f = &m->update_far[m->n_update_far++];

		f->present = PFCP_FAR_ID | PFCP_FAR_FWD;
		f->id = 2;
		f->fwd.present = PFCP_FWD_POLICY;
		pb_str(&f->fwd.policy, qos);
	}
	if (mbr_ul || mbr_dl) {
		struct pfcp_qer *q = &m->update_qer[m->n_update_qer++];

		q->present = PFCP_QER_ID | PFCP_QER_MBR;
		q->id = 1;
		q->mbr_ul = mbr_ul;
		q->mbr_dl = mbr_dl;
	}
	if (query)
		m->query_urr[m->n_query_urr++] = 1;
}

static inline void
pb_report_rsp(struct pfcp_msg *m, uint64_t up_seid, uint32_t seq, uint8_t cause)
{
	pb_hdr(m, PFCP_SESS_REPORT_RSP, 1, up_seid, seq);
	m->present |= PFCP_M_CAUSE;
	m->cause = cause;
}

static inline void
pb_heartbeat_rsp(struct pfcp_msg *m, uint32_t seq, uint32_t recovery)
{
	pb_hdr(m, PFCP_HEARTBEAT_RSP, 0, 0, seq);
	m->present |= PFCP_M_RECOVERY_TS;
	m->recovery_ts = recovery;
}

#endif /* BNG_TESTS_PFCP_BUILD_H */

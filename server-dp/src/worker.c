/*
 * bng-dp worker loop (worker.h).
 *
 * One burst goes through these steps:
 *   1. classify (classify.h): kind, line, offsets, or a counted drop;
 *   2. sort by kind into the upstream IPv4, downstream IPv4 and control lists;
 *      discovery and IPoE DHCP are punted, core ARP goes to the control
 *      thread, IPoE ARP is answered in place; IPoE IPv4 data joins the
 *      upstream list (keyed by line and MAC, PPPoE session id 0); IPoE IPv6:
 *      RS and DHCPv6 are punted, NS answered in place, data joins the IPv6
 *      upstream list with PPPoE IPv6;
 *   3. upstream (PPPoE and IPoE): one bulk session lookup, anti-spoofing; then for the frames
 *      left one bulk ACL classification and one bulk route lookup; then per
 *      frame policer, route kind, TTL, DSCP, MSS, next hop, decapsulation;
 *   4. downstream: one bulk session lookup by destination, one bulk ACL
 *      classification; then per packet TTL, traffic class, MSS, MTU
 *      (fragments or ICMP), encapsulation, HQoS mark;
 *   5. control: LCP echoes of offloaded sessions answered in place,
 *      everything else policed onto the punt ring for the CP;
 *   6. HQoS enqueue and dequeue, transmit; then the inject ring (frames of the
 *      control thread).
 * Every frame ends in exactly one place: transmitted, queued in HQoS, on the
 * punt or ARP ring, or freed with one drop counter incremented (app.h).
 */

#include <sys/prctl.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "nd.h"
#include "worker.h"

const char *const app_drop_names[APP_DROP_MAX] = {
#define APP_DROP_DEF(sym, name) [APP_DROP_##sym] = name,
#include "app_drop.def"
#undef APP_DROP_DEF
};

static void
idle_sleep(uint32_t us)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)us * 1000};

	nanosleep(&ts, NULL);
}

static inline void
drop(struct app *a, struct rte_mbuf *m, enum app_drop why)
{
	a->wstats.drop[why]++;
	rte_pktmbuf_free(m);
}

static inline void
out_tx(struct app *a, struct rte_mbuf *m)
{
	struct app_out *o = a->out;

	if (unlikely(o->n_tx == APP_TX_MAX)) {
		drop(a, m, APP_DROP_TX);
		return;
	}
	o->tx[o->n_tx++] = m;
}

/* The core header of a group towards the next hop of MAC key k (non-zero). */
static inline const struct rw_core_tmpl *
core_hdr(struct app *a, uint16_t group, uint64_t k)
{
	struct app_core_hdr *c = &a->core_hdr[group];
	uint8_t mac[6];

	if (unlikely(k != c->nh_mac)) {
		neigh_mac_bytes(k, mac);
		rw_core_tmpl_init(&c->t, mac, a->cfg->line_groups[group].core_mac,
				  a->cfg->core.vlan);
		c->nh_mac = k;
	}
	return &c->t;
}

/* The traffic class of a downstream packet: its session profile's DSCP map. */
static inline uint8_t
tc_of(const struct app *a, const struct dp_session *s, const uint8_t *ip)
{
	uint16_t q = __atomic_load_n(&s->qos, __ATOMIC_RELAXED);

	return a->cfg->qos_profiles[q].dscp_tc[ip[1] >> 2];
}

/* Largest MSS a TCP SYN may announce through a session of this MTU. */
static inline uint16_t
mss_of(uint16_t mtu)
{
	return (uint16_t)(mtu - 40);
}

static inline uint32_t
core_address_be(const struct app *a, uint16_t group)
{
	return rte_cpu_to_be_32(a->cfg->line_groups[group].core_address);
}

/*
 * An upstream frame of session s whose TTL expired: turn it into ICMP time
 * exceeded from the group's core address and send it back inside the
 * session. Counted as icmp_sent, or as a TTL drop when no answer is allowed.
 */
static void
icmp_to_subscriber(struct app *a, struct rte_mbuf *m, const struct cls_result *r,
		   const struct dp_session *s, uint64_t now)
{
	if (icmp_error(&a->icmp, m, r->l3_off, ICMP_TIME_EXCEEDED, 0, core_address_be(a, s->group),
		       now, &a->wstats.icmp) != 0) {
		drop(a, m, APP_DROP_TTL);
		return;
	}
	/* m is now [access header][ICMP datagram], exactly. */
	rte_pktmbuf_adj(m, r->l3_off);
	if (rw_encap_ipv4(m, &s->encap, &a->pcp, 0) != 0) {
		drop(a, m, APP_DROP_REWRITE);
		return;
	}
	a->wstats.icmp_sent++;
	out_tx(a, m);
}

/*
 * A downstream core frame answered with an ICMP error towards its source,
 * back through the router it came from: the error replaces the packet in
 * place and the Ethernet addresses are swapped (the core VLAN stays).
 */
static void
icmp_to_core(struct app *a, struct rte_mbuf *m, const struct cls_result *r,
	     const struct dp_session *s, enum icmp_kind kind, uint16_t mtu, enum app_drop why,
	     uint64_t now)
{
	uint8_t *h, t[6];

	if (icmp_error(&a->icmp, m, r->l3_off, kind, mtu, core_address_be(a, s->group), now,
		       &a->wstats.icmp) != 0) {
		drop(a, m, why);
		return;
	}
	h = rte_pktmbuf_mtod(m, uint8_t *);
	memcpy(t, h, 6);
	memcpy(h, h + 6, 6);
	memcpy(h + 6, t, 6);
	a->wstats.icmp_sent++;
	out_tx(a, m);
}

static inline void
punt(struct app *a, struct rte_mbuf *m, const struct cls_result *r, uint64_t now)
{
	if (punt_enqueue(a->punt, m, r, now) == 0)
		a->wstats.punted++;
	else
		drop(a, m, APP_DROP_PUNT);
}

/* The traffic class of a DSCP in the session profile's map. */
static inline uint8_t
tc_of_dscp(const struct app *a, const struct dp_session *s, uint8_t dscp)
{
	uint16_t q = __atomic_load_n(&s->qos, __ATOMIC_RELAXED);

	return a->cfg->qos_profiles[q].dscp_tc[dscp & 63];
}

/* --- upstream ---------------------------------------------------------------- */

static void
upstream(struct app *a, struct rte_mbuf **pkts, struct cls_result *res, uint16_t n, uint64_t now)
{
	const uint8_t *macs[APP_BURST], *ips[APP_BURST];
	uint32_t ids[APP_BURST], dst[APP_BURST];
	struct route_result rt[APP_BURST];
	uint8_t deny[APP_BURST];
	struct app_worker_stats *w = &a->wstats;
	uint64_t last_mac = 0;
	uint32_t last_nh = 0;
	uint16_t i, k = 0;

	for (i = 0; i < n; i++)
		macs[i] = rte_pktmbuf_mtod(pkts[i], const uint8_t *) + 6;
	session_lookup_up_burst(a->sessions, res, macs, n, ids);
	/* The lookup read the session's line, which holds its counters too:
	 * bring in its policer. */
	for (i = 0; i < n; i++)
		if (ids[i] != SESSION_ID_NONE)
			police_prefetch(a->police, ids[i]);

	/* Unknown sessions to the CP (it answers PADT), spoofed sources out. */
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, res[i].l3_off);
		struct dp_session *s;

		if (ids[i] == SESSION_ID_NONE) {
			/* IPoE: never punted (its DHCP went to the CP in worker_burst) */
			if (res[i].kind == CLS_IPOE_IPV4)
				drop(a, m, APP_DROP_IPOE_NO_SESSION);
			else if (punt_enqueue(a->punt, m, &res[i], now) == 0)
				w->punted++;
			else
				drop(a, m, APP_DROP_PUNT);
			continue;
		}
		s = session_get(a->sessions, ids[i]);
		if (unlikely(!session_src_ok(s, rw_load32(ip + 12)))) {
			session_drop_up(a->sessions, s, res[i].l3_len);
			drop(a, m,
			     res[i].kind == CLS_IPOE_IPV4 ? APP_DROP_IPOE_SPOOF : APP_DROP_SPOOF);
			continue;
		}
		pkts[k] = m;
		ids[k] = ids[i];
		ips[k] = ip;
		dst[k] = rte_be_to_cpu_32(rw_load32(ip + 16));
		if (k != i)
			res[k] = res[i];
		k++;
	}
	if (k == 0)
		return;
	acl_classify_burst(a->acl, ACL_UP, ips, k, deny, &w->acl);
	route_lookup_burst(a->routes, dst, k, rt, &w->route);

	for (i = 0; i < k; i++) {
		struct rte_mbuf *m = pkts[i];
		const struct cls_result *r = &res[i];
		struct dp_session *s = session_get(a->sessions, ids[i]);
		uint8_t *ip = (uint8_t *)(uintptr_t)ips[i];
		const struct dp_qos_profile *qp;
		enum app_drop why;
		uint16_t q;

		if (unlikely(deny[i])) {
			why = APP_DROP_ACL;
			goto refused;
		}
		if (police_color(a->police, ids[i], now, rte_pktmbuf_pkt_len(m)) == RTE_COLOR_RED) {
			why = APP_DROP_POLICED;
			goto refused;
		}
		switch (rt[i].kind) {
		case ROUTE_NEXT_HOP:
		case ROUTE_CONNECTED:
		case ROUTE_SUBSCRIBER:
			break;
		case ROUTE_DROP:
			why = APP_DROP_BLACKHOLE;
			goto refused;
		case ROUTE_LOCAL:
			why = APP_DROP_LOCAL;
			goto refused;
		default:
			why = APP_DROP_NO_ROUTE;
			goto refused;
		}
		if (unlikely(rw_ipv4_ttl_dec(ip))) {
			session_drop_up(a->sessions, s, r->l3_len);
			icmp_to_subscriber(a, m, r, s, now);
			continue;
		}
		q = __atomic_load_n(&s->qos, __ATOMIC_RELAXED);
		qp = &a->cfg->qos_profiles[q];
		if (qp->up_dscp != DP_DSCP_KEEP && (ip[1] >> 2) != qp->up_dscp)
			rw_ipv4_dscp_set(ip, qp->up_dscp);
		if (ip[9] == RW_IPPROTO_TCP)
			rw_tcp_mss_clamp(ip, r->l3_len, mss_of(s->mtu));
		/* A burst mostly goes to one next hop: ask the ARP table once for it. */
		if (rt[i].nh != last_nh) {
			last_nh = rt[i].nh;
			last_mac = neigh_resolve(a->neigh, last_nh);
		}
		if (unlikely(last_mac == 0)) {
			why = APP_DROP_NO_NEIGH;
			goto refused;
		}
		if (unlikely(rw_decap_pppoe(m, r, core_hdr(a, s->group, last_mac)) != 0)) {
			why = APP_DROP_REWRITE;
			goto refused;
		}
		s->pkts_up++;
		s->bytes_up += r->l3_len;
		w->up_pkts++;
		w->up_bytes += r->l3_len;
		out_tx(a, m);
		continue;
	refused:
		session_drop_up(a->sessions, s, r->l3_len);
		drop(a, m, why);
	}
}

/* --- downstream -------------------------------------------------------------- */

/* Encapsulate one IPv4 packet (m holds exactly it) for s and mark it for HQoS. */
static inline void
down_encap(struct app *a, struct rte_mbuf *m, struct dp_session *s, uint8_t tc, uint8_t queue)
{
	struct app_out *o = a->out;
	uint32_t len = rte_pktmbuf_pkt_len(m);

	if (unlikely(rw_encap_ipv4(m, &s->encap, &a->pcp, tc) != 0)) {
		session_drop_down(a->sessions, s, len);
		drop(a, m, APP_DROP_REWRITE);
		return;
	}
	if (unlikely(o->n_sched == APP_TX_MAX)) {
		session_drop_down(a->sessions, s, len);
		drop(a, m, APP_DROP_HQOS);
		return;
	}
	a->wstats.down_pkts++;
	a->wstats.down_bytes += len;
	/* for sched_account(): the access header's length (IPoE 22, PPPoE 30) */
	m->packet_type = s->encap.ipoe ? RTE_PTYPE_L2_ETHER_QINQ : 0;
	hqos_mark(m, s->sched, tc, queue);
	o->sched[o->n_sched++] = m;
}

static void
downstream(struct app *a, struct rte_mbuf **pkts, struct cls_result *res, uint16_t n, uint64_t now)
{
	uint32_t ids[APP_BURST], dst[APP_BURST];
	const uint8_t *ips[APP_BURST];
	uint8_t deny[APP_BURST];
	struct app_worker_stats *w = &a->wstats;
	struct rte_mbuf *frags[APP_FRAG_MAX];
	uint16_t i, k = 0;

	for (i = 0; i < n; i++) {
		ips[i] = rte_pktmbuf_mtod_offset(pkts[i], const uint8_t *, res[i].l3_off);
		dst[i] = rw_load32(ips[i] + 16);
	}
	session_lookup_down_burst(a->sessions, dst, n, ids);
	/* The index gave ids without reading the slots: bring in their QoS and
	 * MTU (line 0) and templates (line 1). */
	for (i = 0; i < n; i++) {
		if (ids[i] != SESSION_ID_NONE) {
			rte_prefetch0(session_get(a->sessions, ids[i]));
			rte_prefetch0(&session_get(a->sessions, ids[i])->encap);
		}
	}
	for (i = 0; i < n; i++) {
		if (ids[i] == SESSION_ID_NONE) {
			drop(a, pkts[i], APP_DROP_NO_SESSION_DOWN);
			continue;
		}
		pkts[k] = pkts[i];
		ids[k] = ids[i];
		ips[k] = ips[i];
		if (k != i)
			res[k] = res[i];
		k++;
	}
	if (k == 0)
		return;
	acl_classify_burst(a->acl, ACL_DOWN, ips, k, deny, &w->acl);

	for (i = 0; i < k; i++) {
		struct rte_mbuf *m = pkts[i];
		const struct cls_result *r = &res[i];
		struct dp_session *s = session_get(a->sessions, ids[i]);
		uint8_t *ip = (uint8_t *)(uintptr_t)ips[i];
		uint8_t tc, queue;
		int nf;

		if (unlikely(deny[i])) {
			session_drop_down(a->sessions, s, r->l3_len);
			drop(a, m, APP_DROP_ACL);
			continue;
		}
		if (unlikely(rw_ipv4_ttl_dec(ip))) {
			session_drop_down(a->sessions, s, r->l3_len);
			icmp_to_core(a, m, r, s, ICMP_TIME_EXCEEDED, 0, APP_DROP_TTL, now);
			continue;
		}
		tc = tc_of(a, s, ip);
		/* Only best effort has several queues (WRR) to spread flows over. */
		queue = tc == DP_TC_BEST_EFFORT ? hqos_be_queue_ipv4(ip) : 0;
		if (ip[9] == RW_IPPROTO_TCP)
			rw_tcp_mss_clamp(ip, r->l3_len, mss_of(s->mtu));
		if (likely(r->l3_len <= s->mtu)) {
			if (unlikely(rw_core_strip(m, r) != 0)) {
				session_drop_down(a->sessions, s, r->l3_len);
				drop(a, m, APP_DROP_REWRITE);
				continue;
			}
			down_encap(a, m, s, tc, queue);
			continue;
		}
		/* Larger than the session's MTU: RFC 1191 answer, or fragments. */
		if (rw_load16(ip + 6) & rte_cpu_to_be_16(0x4000)) {
			session_drop_down(a->sessions, s, r->l3_len);
			icmp_to_core(a, m, r, s, ICMP_FRAG_NEEDED, s->mtu, APP_DROP_FRAG_NEEDED,
				     now);
			continue;
		}
		if (unlikely(rw_core_strip(m, r) != 0)) {
			session_drop_down(a->sessions, s, r->l3_len);
			drop(a, m, APP_DROP_REWRITE);
			continue;
		}
		nf = frag_ipv4(m, s->mtu, frags, APP_FRAG_MAX, a->frag, &w->frag);
		if (nf <= 0) {
			session_drop_down(a->sessions, s, r->l3_len);
			drop(a, m, APP_DROP_FRAG);
			continue;
		}
		w->fragmented++;
		for (int j = 0; j < nf; j++)
			down_encap(a, frags[j], s, tc, queue);
	}
}

/* --- IPv6 --------------------------------------------------------------------- */

/* The group's core IPv6 address, the source of ICMPv6 errors; NULL when none. */
static inline const uint8_t *
core6_of(const struct app *a, uint16_t group)
{
	const struct dp_line_group *g = &a->cfg->line_groups[group];

	return g->has_core6 ? g->core_address6 : NULL;
}

/*
 * IPv6 control a session's subscriber sends to its BNG, for the CP: ICMPv6
 * Router Solicitation, Neighbor Solicitation and Advertisement from or to a
 * link-local or unspecified address, and DHCPv6 (UDP to port 547) to
 * ff02::1:2 or a link-local address.
 */
static inline bool
v6_is_control(const uint8_t *ip, uint16_t len)
{
	const uint8_t *src = ip + 8, *dst = ip + 24;
	bool local = ip6_is_link_local(src) || ip6_is_unspecified(src) || ip6_is_link_local(dst) ||
		     ip6_is_multicast(dst);

	if (ip[6] == ICMP6_NH && len >= 41)
		return local && (ip[40] == 133 || ip[40] == 135 || ip[40] == 136);
	if (ip[6] == 17 && len >= 44 && ip[42] == 0x02 && ip[43] == 0x23) {
		static const uint8_t all_dhcp[16] = {0xff, 0x02, [13] = 1, [15] = 2};

		return memcmp(dst, all_dhcp, 16) == 0 || ip6_is_link_local(dst);
	}
	return false;
}

/* Best-effort queue of an IPv6 flow: a hash of its addresses. */
static inline uint8_t
be_queue_ipv6(const uint8_t *ip)
{
	uint64_t h = session6_hi64(ip + 8) ^ session6_hi64(ip + 16) ^ session6_hi64(ip + 24) ^
		     session6_hi64(ip + 32);

	h *= SESSION_HASH_MUL;
	return (uint8_t)(h >> 62);
}

static void
upstream6(struct app *a, struct rte_mbuf **pkts, struct cls_result *res, uint16_t n, uint64_t now)
{
	const uint8_t *macs[APP_BURST];
	uint32_t ids[APP_BURST];
	struct app_worker_stats *w = &a->wstats;
	uint64_t rmac = __atomic_load_n(&a->router6_mac, __ATOMIC_RELAXED);
	uint16_t i;

	for (i = 0; i < n; i++)
		macs[i] = rte_pktmbuf_mtod(pkts[i], const uint8_t *) + 6;
	session_lookup_up_burst(a->sessions, res, macs, n, ids);
	/* The lines every hit will read and write: its IPv6 slot and its policer. */
	for (i = 0; i < n; i++) {
		if (ids[i] != SESSION_ID_NONE) {
			rte_prefetch0(session6_get(a->sessions, ids[i]));
			police_prefetch(a->police, ids[i]);
		}
	}
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const struct cls_result *r = &res[i];
		uint8_t *ip = rte_pktmbuf_mtod_offset(m, uint8_t *, r->l3_off);
		struct dp_session *s;
		struct dp_session6 *s6;
		const struct dp_qos_profile *qp;
		enum app_drop why;

		if (ids[i] == SESSION_ID_NONE) {
			if (r->kind == CLS_IPOE_IPV6) /* never punted: RS/DHCPv6 went already */
				drop(a, m, APP_DROP_IPOE_NO_SESSION);
			else
				punt(a, m, r, now); /* unknown session: the CP answers PADT */
			continue;
		}
		s = session_get(a->sessions, ids[i]);
		s6 = session6_get(a->sessions, ids[i]);
		/* (IPoE control never gets here: ipoe6_sort()) */
		if (unlikely(r->kind == CLS_PPPOE_SESS_IPV6 && v6_is_control(ip, r->l3_len))) {
			struct cls_result cr = *r;

			/* with the PPP control class (docs/dp/pfcp.md section 7) */
			cr.kind = CLS_PPPOE_SESS_CTRL;
			w->v6_punted++;
			punt(a, m, &cr, now);
			continue;
		}
		if (unlikely(s6->n == 0)) {
			why = APP_DROP_IPV6;
			goto refused;
		}
		if (unlikely(!ip6_is_global(ip + 8) || !ip6_is_global(ip + 24))) {
			why = APP_DROP_V6_SCOPE;
			goto refused;
		}
		if (unlikely(!session6_src_ok(s6, session6_hi64(ip + 8)))) {
			why = r->kind == CLS_IPOE_IPV6 ? APP_DROP_IPOE6_SPOOF : APP_DROP_SPOOF;
			goto refused;
		}
		if (unlikely(acl_classify6(a->acl, ACL_UP, ip, r->l3_len, &w->acl))) {
			why = APP_DROP_ACL;
			goto refused;
		}
		if (police_color(a->police, ids[i], now, rte_pktmbuf_pkt_len(m)) == RTE_COLOR_RED) {
			why = APP_DROP_POLICED;
			goto refused;
		}
		if (unlikely(ip[7] <= 1)) {
			session_drop_up(a->sessions, s, r->l3_len);
			if (icmp6_error(&a->icmp, m, r->l3_off, r->l3_len, ICMP6_TYPE_TIME_EXCEEDED,
					0, core6_of(a, s->group), now, &w->icmp6) != 0) {
				drop(a, m, APP_DROP_TTL);
				continue;
			}
			rte_pktmbuf_adj(m, r->l3_off);
			if (rw_encap_ipv6(m, &s->encap, &a->pcp, 0) != 0) {
				drop(a, m, APP_DROP_REWRITE);
				continue;
			}
			w->icmp_sent++;
			out_tx(a, m);
			continue;
		}
		if (unlikely(rmac == 0)) {
			why = APP_DROP_NO_NEIGH;
			goto refused;
		}
		ip[7]--;
		qp = &a->cfg->qos_profiles[__atomic_load_n(&s->qos, __ATOMIC_RELAXED)];
		if (qp->up_dscp != DP_DSCP_KEEP && rw_ipv6_dscp(ip) != qp->up_dscp)
			rw_ipv6_dscp_set(ip, qp->up_dscp);
		if (ip[6] == RW_IPPROTO_TCP)
			rw_tcp6_mss_clamp(ip, r->l3_len, (uint16_t)(s->mtu - 60));
		{
			const struct rw_core_tmpl *ct = core_hdr(a, s->group, rmac);

			if (unlikely(rw_decap_pppoe(m, r, ct) != 0)) {
				why = APP_DROP_REWRITE;
				goto refused;
			}
			rte_pktmbuf_mtod_offset(m, uint8_t *, ct->len - 2)[0] = 0x86;
			rte_pktmbuf_mtod_offset(m, uint8_t *, ct->len - 2)[1] = 0xdd;
		}
		s->pkts_up++;
		s->bytes_up += r->l3_len;
		s6->pkts_up++;
		s6->bytes_up += r->l3_len;
		w->up_pkts++;
		w->up_bytes += r->l3_len;
		w->up6_pkts++;
		w->up6_bytes += r->l3_len;
		out_tx(a, m);
		continue;
	refused:
		session_drop_up(a->sessions, s, r->l3_len);
		drop(a, m, why);
	}
}

static void
downstream6(struct app *a, struct rte_mbuf **pkts, struct cls_result *res, uint16_t n, uint64_t now)
{
	uint64_t hi[APP_BURST];
	uint32_t ids[APP_BURST];
	struct app_worker_stats *w = &a->wstats;
	struct app_out *o = a->out;
	uint16_t i;

	for (i = 0; i < n; i++)
		hi[i] = session6_hi64(
			rte_pktmbuf_mtod_offset(pkts[i], const uint8_t *, res[i].l3_off + 24));
	session_lookup_down6_burst(a->sessions, hi, n, ids);
	/* The index gave ids: bring their QoS, MTU and templates in. */
	for (i = 0; i < n; i++) {
		if (ids[i] != SESSION_ID_NONE) {
			rte_prefetch0(session_get(a->sessions, ids[i]));
			rte_prefetch0(&session_get(a->sessions, ids[i])->encap);
		}
	}
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const struct cls_result *r = &res[i];
		uint8_t *ip = rte_pktmbuf_mtod_offset(m, uint8_t *, r->l3_off);
		struct dp_session *s;
		uint8_t tc, queue;
		uint32_t len;

		if (ids[i] == SESSION_ID_NONE) {
			drop(a, m, APP_DROP_NO_SESSION_DOWN);
			continue;
		}
		s = session_get(a->sessions, ids[i]);
		if (unlikely(acl_classify6(a->acl, ACL_DOWN, ip, r->l3_len, &w->acl))) {
			session_drop_down(a->sessions, s, r->l3_len);
			drop(a, m, APP_DROP_ACL);
			continue;
		}
		if (unlikely(ip[7] <= 1)) {
			session_drop_down(a->sessions, s, r->l3_len);
			if (icmp6_error(&a->icmp, m, r->l3_off, r->l3_len, ICMP6_TYPE_TIME_EXCEEDED,
					0, core6_of(a, s->group), now, &w->icmp6) != 0) {
				drop(a, m, APP_DROP_TTL);
				continue;
			}
			goto to_core;
		}
		if (unlikely(r->l3_len > s->mtu)) {
			session_drop_down(a->sessions, s, r->l3_len);
			if (icmp6_error(&a->icmp, m, r->l3_off, r->l3_len, ICMP6_TYPE_PTB, s->mtu,
					core6_of(a, s->group), now, &w->icmp6) != 0) {
				drop(a, m, APP_DROP_PTB);
				continue;
			}
			goto to_core;
		}
		ip[7]--;
		tc = tc_of_dscp(a, s, rw_ipv6_dscp(ip));
		queue = tc == DP_TC_BEST_EFFORT ? be_queue_ipv6(ip) : 0;
		if (ip[6] == RW_IPPROTO_TCP)
			rw_tcp6_mss_clamp(ip, r->l3_len, (uint16_t)(s->mtu - 60));
		if (unlikely(rw_core_strip(m, r) != 0 ||
			     rw_encap_ipv6(m, &s->encap, &a->pcp, tc) != 0)) {
			session_drop_down(a->sessions, s, r->l3_len);
			drop(a, m, APP_DROP_REWRITE);
			continue;
		}
		if (unlikely(o->n_sched == APP_TX_MAX)) {
			session_drop_down(a->sessions, s, r->l3_len);
			drop(a, m, APP_DROP_HQOS);
			continue;
		}
		len = r->l3_len;
		w->down_pkts++;
		w->down_bytes += len;
		w->down6_pkts++;
		w->down6_bytes += len;
		hqos_mark(m, s->sched, tc, queue);
		/* for sched_account(): the IPv6 counters, the access header's length */
		m->packet_type = RTE_PTYPE_L3_IPV6 | (s->encap.ipoe ? RTE_PTYPE_L2_ETHER_QINQ : 0);
		o->sched[o->n_sched++] = m;
		continue;
	to_core : {
		/* the error goes back the way the packet came: swap the Ethernet addresses */
		uint8_t *h = rte_pktmbuf_mtod(m, uint8_t *), t[6];

		memcpy(t, h, 6);
		memcpy(h, h + 6, 6);
		memcpy(h + 6, t, 6);
		w->icmp_sent++;
		out_tx(a, m);
	}
	}
}

/* --- control frames ------------------------------------------------------------ */

static void
control_frames(struct app *a, struct rte_mbuf **pkts, const struct cls_result *res, uint16_t n,
	       uint64_t now)
{
	const uint8_t *macs[APP_BURST];
	uint32_t ids[APP_BURST];
	uint16_t i;

	for (i = 0; i < n; i++)
		macs[i] = rte_pktmbuf_mtod(pkts[i], const uint8_t *) + 6;
	session_lookup_up_burst(a->sessions, res, macs, n, ids);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		if (ids[i] != SESSION_ID_NONE && res[i].proto == CLS_PPP_LCP) {
			switch (lcp_input(a->lcp, m, &res[i], ids[i],
					  session_get(a->sessions, ids[i]), now)) {
			case LCP_TX:
				a->wstats.lcp_answered++;
				out_tx(a, m);
				continue;
			case LCP_CONSUMED:
				a->wstats.lcp_consumed++;
				rte_pktmbuf_free(m);
				continue;
			case LCP_DROP:
				drop(a, m, APP_DROP_LCP);
				continue;
			default:
				break; /* LCP_PUNT */
			}
		}
		punt(a, m, &res[i], now);
	}
}

static inline void
arp_to_control(struct app *a, struct rte_mbuf *m)
{
	if (rte_ring_sp_enqueue(a->arp_ring, m) == 0)
		a->wstats.arp_to_control++;
	else
		drop(a, m, APP_DROP_ARP_RING);
}

/* --- IPoE --------------------------------------------------------------------- */

/*
 * Whether an IPoE IPv4 frame is a DHCP client frame for the CP (punt class
 * dhcp): unfragmented UDP from port 68 to port 67, to 255.255.255.255 or to
 * a gateway of the line's group. Reads the group's configuration only for
 * UDP 68 -> 67.
 */
static inline bool
ipoe_is_dhcp(const struct app *a, const struct cls_result *r, const uint8_t *ip)
{
	uint32_t ihl = (uint32_t)(ip[0] & 0x0f) * 4, dst;
	const struct dp_line_group *g;

	/* the ports first: one compare rejects almost all data */
	if (r->l3_len < ihl + 8 || rw_load32(ip + ihl) != rte_cpu_to_be_32(68u << 16 | 67u) ||
	    ip[9] != 17 || (rw_load16(ip + 6) & rte_cpu_to_be_16(0x3fff)) != 0)
		return false;
	dst = rte_be_to_cpu_32(rw_load32(ip + 16));
	if (dst == UINT32_MAX)
		return true;
	g = &a->cfg->line_groups[a->cfg->lines[r->line].group];
	for (unsigned int k = 0; k < g->n_ipoe_gateways; k++)
		if (g->ipoe_gateways[k].addr == dst)
			return true;
	return false;
}

/*
 * Whether the group answers an ARP request from sip (its session's address)
 * for tip: a gateway always; with proxy ARP any other address of the pool of
 * a gateway whose pool holds sip too. Host order.
 */
static inline bool
ipoe_arp_target_ok(const struct dp_line_group *g, uint32_t sip, uint32_t tip)
{
	for (unsigned int k = 0; k < g->n_ipoe_gateways; k++) {
		const struct dp_ipoe_gateway *gw = &g->ipoe_gateways[k];
		uint32_t mask = ~UINT32_C(0) << (32 - gw->len);

		if (tip == gw->addr)
			return true;
		if (g->ipoe_proxy_arp && ((tip ^ gw->addr) & mask) == 0 &&
		    ((sip ^ gw->addr) & mask) == 0)
			return true;
	}
	return false;
}

/*
 * An ARP frame of an IPoE subscriber (CLS_IPOE_ARP): answered in place from
 * the group's AC MAC when the sender MAC has a session on the line, the
 * request comes from the session's own address (never 0.0.0.0: RFC 5227
 * probes are not answered) and asks for a gateway (or, with proxy ARP, a
 * neighbour of its pool; never the sender's own address). Nothing is learnt.
 */
static void
ipoe_arp(struct app *a, const struct line_map *lm, struct rte_mbuf *m, const struct cls_result *r)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *), *arp = f + r->l3_off;
	const uint8_t *macs[1] = {f + 6};
	const struct dp_line_group *g;
	const struct dp_session *s;
	uint32_t id, sip, tip;

	if (!(lm->lines[r->line].flags & LM_LINE_IPOE)) {
		drop(a, m, APP_DROP_IPOE);
		return;
	}
	session_lookup_up_burst(a->sessions, r, macs, 1, &id);
	if (id == SESSION_ID_NONE) {
		drop(a, m, APP_DROP_IPOE_ARP_NO_SESSION);
		return;
	}
	s = session_get(a->sessions, id);
	sip = rw_load32(arp + 14);
	tip = rw_load32(arp + 24);
	if (arpping_reply(a->arpping, id, s, arp)) {
		/* an answer to our ARP ping (arpping.h): liveness */
		rte_pktmbuf_free(m);
		return;
	}
	g = &a->cfg->line_groups[s->group];
	if (cls_be16(arp + 6) != 1 || sip == 0 || sip != s->ipv4 || tip == sip ||
	    memcmp(arp + 8, f + 6, 6) != 0 ||
	    !ipoe_arp_target_ok(g, rte_be_to_cpu_32(sip), rte_be_to_cpu_32(tip))) {
		drop(a, m, APP_DROP_IPOE_ARP);
		return;
	}
	/* The reply: to the asker from the gateway's MAC, tags kept. */
	memcpy(f, f + 6, 6);
	memcpy(f + 6, g->ac_mac, 6);
	arp[6] = 0;
	arp[7] = 2;
	memcpy(arp + 18, arp + 8, 6);
	memcpy(arp + 24, &sip, 4);
	memcpy(arp + 8, g->ac_mac, 6);
	memcpy(arp + 14, &tip, 4);
	a->wstats.ipoe_arp_replies++;
	out_tx(a, m);
}

/* --- split mode: the hand-off to the downstream worker ------------------------- */

/*
 * Core frames of one burst onto the downstream worker's ring, with their
 * classification (the downstream worker never classifies). What does not fit
 * is dropped and counted here: the ring is the only queue between the two
 * lcores, and the upstream worker must never wait for the other.
 */
static __rte_noinline void
handoff(struct app *a, struct rte_mbuf **d4, const struct cls_result *r4, uint16_t n4,
	struct rte_mbuf **d6, const struct cls_result *r6, uint16_t n6)
{
	struct app_handoff h[2 * APP_BURST];
	unsigned int i, n = 0, k;

	for (i = 0; i < n4; i++, n++) {
		h[n].m = d4[i];
		h[n].r = r4[i];
	}
	for (i = 0; i < n6; i++, n++) {
		h[n].m = d6[i];
		h[n].r = r6[i];
	}
	k = rte_ring_sp_enqueue_burst_elem(a->down_ring, h, sizeof(h[0]), n, NULL);
	for (i = k; i < n; i++)
		drop(a, h[i].m, APP_DROP_HANDOFF);
}

/* --- IPoE IPv6 --------------------------------------------------------------------- */

/* The BNG's link-local on an IPoE line: fe80::/64 + modified EUI-64 of the AC MAC (key). */
static inline void
ipoe6_bng_ll(uint64_t ac_mac, uint8_t ll[16])
{
	memset(ll, 0, 16);
	ll[0] = 0xfe;
	ll[1] = 0x80;
	ll[8] = (uint8_t)(ac_mac >> 40) ^ 0x02;
	ll[9] = (uint8_t)(ac_mac >> 32);
	ll[10] = (uint8_t)(ac_mac >> 24);
	ll[11] = 0xff;
	ll[12] = 0xfe;
	ll[13] = (uint8_t)(ac_mac >> 16);
	ll[14] = (uint8_t)(ac_mac >> 8);
	ll[15] = (uint8_t)ac_mac;
}

#define IPOE6_NA_LEN (RW_IPOE_LEN + 40 + 32) /* QinQ + IPv6 + NA with the TLLA option */

/*
 * A Neighbor Solicitation of an IPoE subscriber, answered in place (as ARP):
 * from a MAC with an IPv6 session on the line, not from :: (DAD), for the
 * BNG's link-local or (proxy) another address of the session's /64 (a
 * prefix of length 64) other than the sender's own. The answer: NA from the
 * AC MAC and the BNG's link-local to the sender, flags R|S, Target
 * Link-Layer Address = the AC MAC, tags kept. Anything else: counted drop.
 */
static void
ipoe6_ns(struct app *a, const struct line_map *lm, struct rte_mbuf *m, const struct cls_result *r)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *), *ip = f + r->l3_off, *icmp = ip + 40;
	const uint8_t *macs[1] = {f + 6};
	uint64_t ac = lm->lines[r->line].ac_mac;
	uint8_t ll[16], src[16], target[16], client[6];
	const struct dp_session6 *s6;
	struct nd_msg nd;
	bool ok;
	uint32_t id;
	uint16_t ck;

	if (nd_parse(ip, r->l3_len, &nd) != ND_OK || nd.type != ND_TYPE_NS ||
	    ip6_is_unspecified(nd.src) || m->nb_segs != 1) {
		drop(a, m, APP_DROP_IPOE6_ND);
		return;
	}
	session_lookup_up_burst(a->sessions, r, macs, 1, &id);
	if (id == SESSION_ID_NONE || (s6 = session6_get(a->sessions, id))->n == 0) {
		drop(a, m, APP_DROP_IPOE6_ND);
		return;
	}
	ipoe6_bng_ll(ac, ll);
	ok = memcmp(nd.target, ll, 16) == 0;
	for (unsigned int k = 0; !ok && k < s6->n && k < SESSION6_MAX_PREFIX; k++)
		ok = s6->plen[k] == 64 && session6_hi64(nd.target) == s6->pfx[k] &&
		     memcmp(nd.target, nd.src, 16) != 0;
	if (!ok) {
		drop(a, m, APP_DROP_IPOE6_ND);
		return;
	}
	/* the frame becomes exactly the NA */
	if (rte_pktmbuf_pkt_len(m) > IPOE6_NA_LEN)
		rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_pkt_len(m) - IPOE6_NA_LEN));
	else if (rte_pktmbuf_pkt_len(m) < IPOE6_NA_LEN &&
		 rte_pktmbuf_append(m, (uint16_t)(IPOE6_NA_LEN - rte_pktmbuf_pkt_len(m))) == NULL) {
		drop(a, m, APP_DROP_REWRITE);
		return;
	}
	memcpy(src, nd.src, 16);
	memcpy(target, nd.target, 16);
	memcpy(client, f + 6, 6);
	memcpy(f, client, 6);
	neigh_mac_bytes(ac, f + 6);
	ip = f + RW_IPOE_LEN;
	icmp = ip + 40;
	memset(ip, 0, 40 + 32);
	ip[0] = 0x60;
	ip[5] = 32;
	ip[6] = ICMP6_NH;
	ip[7] = 255;
	memcpy(ip + 8, ll, 16);
	memcpy(ip + 24, src, 16);
	icmp[0] = ND_TYPE_NA;
	icmp[4] = ND_NA_R | ND_NA_S;
	memcpy(icmp + 8, target, 16);
	icmp[24] = ND_OPT_TLLA;
	icmp[25] = 1;
	memcpy(icmp + 26, f + 6, 6);
	ck = ip6_l4_csum(ip, icmp, 32, ICMP6_NH);
	icmp[2] = (uint8_t)(ck >> 8);
	icmp[3] = (uint8_t)ck;
	a->wstats.ipoe_na_replies++;
	out_tx(a, m);
}

/*
 * An IPoE IPv6 frame (CLS_IPOE_IPV6): 1 when it is data for upstream6()
 * (unicast MAC, global source and destination, not Neighbor Discovery, so a
 * unicast NS for a neighbour of the /64 is answered, never routed); else
 * consumed here:
 * Router Solicitations (hop limit 255) and DHCPv6 client frames (UDP 546 ->
 * 547 to ff02::1:2 or the BNG's link-local) punted in class dhcp whether or
 * not the MAC has a session, NS answered (ipoe6_ns()), the rest of
 * link-local / multicast and Neighbor Discovery dropped and counted.
 */
static inline int
ipoe6_sort(struct app *a, const struct line_map *lm, struct rte_mbuf *m, const struct cls_result *r,
	   uint64_t now)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *), *ip = f + r->l3_off;
	static const uint8_t all_dhcp[16] = {0xff, 0x02, [13] = 1, [15] = 2};
	uint8_t ll[16];

	if (unlikely(!(lm->lines[r->line].flags & LM_LINE_IPOE))) {
		drop(a, m, APP_DROP_IPOE);
		return 0;
	}
	/* data: unicast MAC, global addresses, not Neighbor Discovery (ICMPv6 133..137) */
	if (likely(!(f[0] & 1) && ip6_is_global(ip + 8) && ip6_is_global(ip + 24) &&
		   (ip[6] != ICMP6_NH || r->l3_len <= 40 || ip[40] < 133 || ip[40] > 137)))
		return 1;
	if (ip[6] == ICMP6_NH && r->l3_len >= 40 + 8) {
		if (ip[40] == 133 && ip[7] == 255) {
			a->wstats.ipoe6_punted++;
			punt(a, m, r, now);
		} else if (ip[40] == ND_TYPE_NS) {
			ipoe6_ns(a, lm, m, r);
		} else {
			drop(a, m, APP_DROP_IPOE6_LOCAL);
		}
		return 0;
	}
	if (ip[6] == 17 && r->l3_len >= 40 + 8 && cls_be16(ip + 40) == 546 &&
	    cls_be16(ip + 42) == 547) {
		ipoe6_bng_ll(lm->lines[r->line].ac_mac, ll);
		if (memcmp(ip + 24, all_dhcp, 16) == 0 || memcmp(ip + 24, ll, 16) == 0) {
			a->wstats.ipoe6_punted++;
			punt(a, m, r, now);
			return 0;
		}
	}
	drop(a, m, APP_DROP_IPOE6_LOCAL);
	return 0;
}

/* --- the burst ----------------------------------------------------------------- */

void
worker_burst(struct app *a, struct rte_mbuf **pkts, uint16_t n, uint64_t now)
{
	struct cls_result res[APP_BURST], ures[APP_BURST], dres[APP_BURST], cres[APP_BURST];
	struct cls_result u6res[APP_BURST], d6res[APP_BURST];
	struct rte_mbuf *up[APP_BURST], *down[APP_BURST], *ctl[APP_BURST];
	struct rte_mbuf *up6[APP_BURST], *down6[APP_BURST];
	struct app_worker_stats *w = &a->wstats;
	uint16_t i, nu = 0, nd = 0, nc = 0, nu6 = 0, nd6 = 0;
	/* Acquire: pairs with the control thread's publication of a new map. */
	const struct line_map *lm = __atomic_load_n(&a->lmap, __ATOMIC_ACQUIRE);

	w->rx_pkts += n;
	w->rx_bursts++;
	a->rx_last = n;
	classify_burst(lm, pkts, n, res, &w->cls);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		switch (res[i].kind) {
		case CLS_PPPOE_SESS_IPV4:
			ures[nu] = res[i];
			up[nu++] = m;
			break;
		case CLS_CORE_IPV4:
			dres[nd] = res[i];
			down[nd++] = m;
			break;
		case CLS_PPPOE_SESS_CTRL:
			cres[nc] = res[i];
			ctl[nc++] = m;
			break;
		case CLS_PPPOE_DISC:
			punt(a, m, &res[i], now);
			break;
		case CLS_CORE_ARP:
		case CLS_CORE_ND:
			arp_to_control(a, m);
			break;
		case CLS_IPOE_IPV4: {
			const struct lm_line *l = &lm->lines[res[i].line];
			const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);

			if (unlikely(!(l->flags & LM_LINE_IPOE)))
				drop(a, m, APP_DROP_IPOE);
			else if (unlikely(ipoe_is_dhcp(a, &res[i], f + res[i].l3_off)))
				punt(a, m, &res[i], now);
			else if (unlikely(f[0] & 1)) /* classified: the AC MAC or broadcast */
				drop(a, m, APP_DROP_IPOE_BCAST);
			else {
				ures[nu] = res[i];
				up[nu++] = m;
			}
			break;
		}
		case CLS_IPOE_ARP:
			ipoe_arp(a, lm, m, &res[i]);
			break;
		case CLS_PPPOE_SESS_IPV6:
			u6res[nu6] = res[i];
			up6[nu6++] = m;
			break;
		case CLS_CORE_IPV6:
			d6res[nd6] = res[i];
			down6[nd6++] = m;
			break;
		case CLS_IPOE_IPV6:
			if (ipoe6_sort(a, lm, m, &res[i], now)) {
				u6res[nu6] = res[i];
				up6[nu6++] = m;
			}
			break;
		default: /* CLS_DROP: counted by the classifier */
			rte_pktmbuf_free(m);
			break;
		}
	}
	if (nu > 0)
		upstream(a, up, ures, nu, now);
	if (unlikely(a->down_ring != NULL)) {
		/* split mode: downstream runs on the downstream worker */
		if (nd + nd6 > 0)
			handoff(a, down, dres, nd, down6, d6res, nd6);
		nd = nd6 = 0;
	}
	if (nd > 0)
		downstream(a, down, dres, nd, now);
	if (nc > 0)
		control_frames(a, ctl, cres, nc, now);
	if (nu6 > 0)
		upstream6(a, up6, u6res, nu6, now);
	if (nd6 > 0)
		downstream6(a, down6, d6res, nd6, now);
}

static uint16_t
tx_burst(struct app *a, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t sent = 0;

	if (n == 0)
		return 0;
	sent = rte_eth_tx_burst(a->port_id, a->tx_queue, pkts, n);
	a->wstats.tx_pkts += sent;
	if (unlikely(sent < n)) {
		a->wstats.drop[APP_DROP_TX] += n - sent;
		rte_pktmbuf_free_bulk(&pkts[sent], n - sent);
	}
	return sent;
}

void
worker_tx_flush(struct app *a)
{
	struct app_out *o = a->out;

	for (uint32_t k = 0; k < o->n_tx; k += APP_BURST)
		tx_burst(a, &o->tx[k], (uint16_t)RTE_MIN((uint32_t)APP_BURST, o->n_tx - k));
	o->n_tx = 0;
}

/* Count a dequeued frame on its session; drop frames of deleted sessions. */
static uint16_t
sched_account(struct app *a, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t i, k = 0;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint32_t id = hqos_owner(a->hqos, m);

		if (unlikely(id == HQOS_OWNER_NONE)) {
			drop(a, m, APP_DROP_HQOS_STALE);
			continue;
		}
		if (likely(id != HQOS_OWNER_UNSET)) {
			struct dp_session *s = session_get(a->sessions, id);
			uint32_t l3 =
				rte_pktmbuf_pkt_len(m) -
				((m->packet_type & RTE_PTYPE_L2_MASK) == RTE_PTYPE_L2_ETHER_QINQ
					 ? RW_IPOE_LEN
					 : RW_ENCAP_LEN);

			s->pkts_down++;
			s->bytes_down += l3;
			/* downstream6() marked IPv6 (first mbuf line, already in cache) */
			if ((m->packet_type & RTE_PTYPE_L3_MASK) == RTE_PTYPE_L3_IPV6) {
				struct dp_session6 *s6 = session6_get(a->sessions, id);

				s6->pkts_down++;
				s6->bytes_down += l3;
			}
		}
		pkts[k++] = m;
	}
	a->wstats.down_sent += k;
	return k;
}

uint32_t
worker_flush(struct app *a)
{
	struct app_out *o = a->out;
	uint32_t k, d = 0;

	if (o->n_sched > 0) {
		k = hqos_enqueue(a->hqos, o->sched, o->n_sched);
		/* rte_sched frees what it refuses. */
		a->wstats.drop[APP_DROP_HQOS] += (uint64_t)(o->n_sched - k);
		o->n_sched = 0;
	}
	/* The batch (hqos_batch.h): at once when the receive queue is drained. */
	a->hqos_tried = 0;
	if (o->n_tx < APP_TX_MAX && a->hqos->backlog > 0 &&
	    hqos_batch_due(&a->batch, a->rx_last, APP_BURST, a->hqos->backlog, rte_rdtsc())) {
		a->hqos_tried = 1;
		d = hqos_dequeue(a->hqos, &o->tx[o->n_tx], (uint32_t)(APP_TX_MAX - o->n_tx));
		if (d > 0)
			o->n_tx = (uint16_t)(o->n_tx +
					     sched_account(a, &o->tx[o->n_tx], (uint16_t)d));
	}
	worker_tx_flush(a);
	return d;
}

/* --- split mode: the two loops ------------------------------------------------- */

/*
 * The upstream worker (QSBR reader 0): receives on every RX queue, classifies,
 * runs upstream and the control frames, hands core frames to the downstream
 * worker, transmits on TX queue 0 (upstream frames and every answer it makes
 * in place: LCP echoes, IPoE ARP, ICMP to subscribers) and the control
 * thread's frames of the inject ring. It never touches HQoS.
 */
static int
up_main(struct app *a)
{
	struct rte_mbuf *pkts[APP_BURST];
	uint32_t n;
	uint16_t q, r, k;
	uint64_t now;

	session_worker_register(a->sessions, 0);
	if (a->opts.idle_sleep_us > 0)
		prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	while (!a->stop) {
		now = rte_rdtsc();
		n = 0;
		for (q = 0; q < a->n_rx_queues; q++) {
			r = rte_eth_rx_burst(a->port_id, q, pkts, APP_BURST);
			if (r > 0)
				worker_burst(a, pkts, r, now);
			n += r;
		}
		worker_tx_flush(a);
		k = (uint16_t)rte_ring_sc_dequeue_burst(a->inject_ring, (void **)pkts, APP_BURST,
							NULL);
		if (k > 0)
			a->wstats.injected += tx_burst(a, pkts, k);
		session_worker_quiescent(a->sessions, 0);
		if (hqos_batch_may_sleep(a->opts.idle_sleep_us, n, k, 0, 0, 0)) {
			a->wstats.idle_sleeps++;
			idle_sleep(a->opts.idle_sleep_us);
		}
	}
	session_worker_unregister(a->sessions, 0);
	return 0;
}

void
worker_down_burst(struct app *a, const struct app_handoff *h, uint16_t n, uint64_t now)
{
	struct cls_result r4[APP_BURST], r6[APP_BURST];
	struct rte_mbuf *d4[APP_BURST], *d6[APP_BURST];
	uint16_t i, n4 = 0, n6 = 0;

	for (i = 0; i < n; i++) {
		if (h[i].r.kind == CLS_CORE_IPV6) {
			r6[n6] = h[i].r;
			d6[n6++] = h[i].m;
		} else {
			r4[n4] = h[i].r;
			d4[n4++] = h[i].m;
		}
	}
	if (n4 > 0)
		downstream(a, d4, r4, n4, now);
	if (n6 > 0)
		downstream6(a, d6, r6, n6, now);
}

/*
 * The downstream worker (QSBR reader 1), on its own view of the app (a->main
 * is the upstream worker's): applies HQoS commands, takes up to a burst of
 * core frames from the ring, runs downstream on them, HQoS enqueue and
 * dequeue, transmits on TX queue 1. Its idle back-off is the single worker's
 * with the ring in place of the receive queue.
 */
int
worker_down_main(void *arg)
{
	struct app *a = arg;
	struct app_handoff h[APP_BURST];
	uint32_t d;
	uint16_t n;
	uint64_t now;

	session_worker_register(a->sessions, 1);
	if (a->opts.idle_sleep_us > 0)
		prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	while (!a->main->stop) {
		now = rte_rdtsc();
		hqos_worker_apply(a->hqos, now);
		n = (uint16_t)rte_ring_sc_dequeue_burst_elem(a->down_ring, h, sizeof(h[0]),
							     APP_BURST, NULL);
		a->rx_last = n;
		if (n > 0)
			worker_down_burst(a, h, n, now);
		d = worker_flush(a);
		session_worker_quiescent(a->sessions, 1);
		if (hqos_batch_may_sleep(a->opts.idle_sleep_us, n, 0, d, a->hqos->backlog,
					 a->hqos_tried)) {
			a->wstats.idle_sleeps++;
			idle_sleep(a->opts.idle_sleep_us);
		} else if (n == 0 && d == 0 && a->opts.idle_sleep_us > 0) {
			a->wstats.idle_sleeps_held++;
		}
	}
	session_worker_unregister(a->sessions, 1);
	return 0;
}

int
worker_split_init(struct app *a, char *err, size_t errlen)
{
	struct app *d;

	a->down_ring = rte_ring_create_elem("down", sizeof(struct app_handoff), APP_HANDOFF_RING,
					    (int)rte_socket_id(), RING_F_SP_ENQ | RING_F_SC_DEQ);
	d = rte_zmalloc("down_view", sizeof(*d), RTE_CACHE_LINE_SIZE);
	if (a->down_ring == NULL || d == NULL) {
		rte_free(d);
		snprintf(err, errlen, "split workers: %s", rte_strerror(rte_errno));
		return -1;
	}
	a->down = d;
	memcpy(d, a, sizeof(*d));
	memset(&d->wstats, 0, sizeof(d->wstats));
	/* What the downstream stages never use is absent from the view: a
	 * mistaken use crashes at once instead of racing the upstream worker. */
	d->lmap = d->lmap_spare = NULL;
	d->punt_ring = d->arp_ring = d->inject_ring = NULL;
	d->police = NULL;
	d->neigh = NULL;
	d->routes = NULL;
	d->punt = NULL;
	d->lcp = NULL;
	d->arpping = NULL;
	d->ra = NULL;
	d->pfcp = NULL;
	d->down = NULL;
	d->main = a;
	d->tx_queue = 1;
	d->n_rx_queues = 0;
	/* its own ICMP bucket; IPv4 ids from the other half of the space */
	d->icmp.next_id = (uint16_t)(a->icmp.next_id ^ 0x8000);
	d->core_hdr = rte_zmalloc("down_core_hdr", sizeof(*d->core_hdr) * DP_MAX_LINE_GROUPS,
				  RTE_CACHE_LINE_SIZE);
	d->out = rte_zmalloc("down_out", sizeof(*d->out), RTE_CACHE_LINE_SIZE);
	if (d->core_hdr == NULL || d->out == NULL) {
		snprintf(err, errlen, "split workers: out of memory");
		return -1;
	}
	return 0;
}

void
worker_split_fini(struct app *a)
{
	struct app_handoff h;

	if (a->down_ring != NULL) {
		while (rte_ring_sc_dequeue_elem(a->down_ring, &h, sizeof(h)) == 0)
			rte_pktmbuf_free(h.m);
		rte_ring_free(a->down_ring);
		a->down_ring = NULL;
	}
	if (a->down != NULL) {
		rte_free(a->down->out);
		rte_free(a->down->core_hdr);
		rte_free(a->down);
		a->down = NULL;
	}
}

void
worker_stats_sum(const struct app *a, struct app_worker_stats *sum)
{
	uint64_t *y = (uint64_t *)sum;
	const uint64_t *x;

	/* every counter is a uint64_t (app.h); the tail padding is zero in both */
	RTE_BUILD_BUG_ON(sizeof(*sum) % sizeof(uint64_t) != 0);
	memcpy(sum, &a->wstats, sizeof(*sum));
	if (a->down != NULL) {
		x = (const uint64_t *)&a->down->wstats;
		for (size_t i = 0; i < sizeof(*sum) / sizeof(uint64_t); i++)
			y[i] += x[i];
	}
}

int
worker_main(void *arg)
{
	struct app *a = arg;
	struct rte_mbuf *pkts[APP_BURST];
	uint16_t n, k;
	uint32_t d;
	uint64_t now;

	if (a->down_ring != NULL)
		return up_main(a);
	session_worker_register(a->sessions, 0);
	/* The idle back-off sleeps for what it asks, not 50 us more (the default slack). */
	if (a->opts.idle_sleep_us > 0)
		prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	while (!a->stop) {
		now = rte_rdtsc();
		hqos_worker_apply(a->hqos, now);
		n = rte_eth_rx_burst(a->port_id, 0, pkts, APP_BURST);
		a->rx_last = n;
		if (n > 0)
			worker_burst(a, pkts, n, now);
		d = worker_flush(a);
		k = (uint16_t)rte_ring_sc_dequeue_burst(a->inject_ring, (void **)pkts, APP_BURST,
							NULL);
		if (k > 0)
			a->wstats.injected += tx_burst(a, pkts, k);
		session_worker_quiescent(a->sessions, 0);
		/* Never while the batch holds frames back; frames waiting for tokens may. */
		if (hqos_batch_may_sleep(a->opts.idle_sleep_us, n, k, d, a->hqos->backlog,
					 a->hqos_tried)) {
			a->wstats.idle_sleeps++;
			idle_sleep(a->opts.idle_sleep_us);
		} else if (n == 0 && k == 0 && d == 0 && a->opts.idle_sleep_us > 0) {
			a->wstats.idle_sleeps_held++;
		}
	}
	session_worker_unregister(a->sessions, 0);
	return 0;
}

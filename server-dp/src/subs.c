/*
 * bng-dp subscriber manager (subs.h).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_byteorder.h>

#include "control.h"
#include "subs.h"

struct subs_stats subs_stats;

/*
 * The HQoS command ring is full only while the worker is behind (a CP
 * re-pushing thousands of sessions in one go while the worker sleeps): give it
 * up to HQOS_WAIT_US to catch up rather than refuse the session.
 */
#define HQOS_WAIT_US 20000

static int
hqos_retry(int rc, unsigned int *waited)
{
	if (rc != -EAGAIN || *waited >= HQOS_WAIT_US)
		return 0;
	usleep(50);
	*waited += 50;
	return 1;
}

static int
find_line(const struct app *a, const struct up_sub *u, uint16_t *line)
{
	uint16_t l;
	const struct dp_line *dl;

	if (u->stag < DP_VLAN_ID_MIN || u->stag > DP_VLAN_ID_MAX || u->ctag < DP_VLAN_ID_MIN ||
	    u->ctag > DP_VLAN_ID_MAX)
		return -1;
	l = line_map_lookup(a->lmap, u->stag, u->ctag);
	if (l == CLS_NO_LINE)
		return -1;
	dl = &a->cfg->lines[l];
	if (u->logical_port[0] != '\0' &&
	    strcmp(u->logical_port, a->cfg->access_ports[dl->access_port].name) != 0)
		return -1;
	*line = l;
	return 0;
}

/* ipv4 in host order inside one of the group's pools. */
static int
in_pools(const struct dp_line_group *g, uint32_t ipv4)
{
	for (uint16_t i = 0; i < g->n_prefixes; i++) {
		uint32_t mask = ~0u << (32 - g->prefixes[i].len);

		if ((ipv4 & mask) == g->prefixes[i].addr)
			return 1;
	}
	return 0;
}

/* An IPv6 prefix of the session: inside one of the group's pools, of its assigned length. */
static int
in_pools6(const struct dp_line_group *g, const uint8_t *pfx, uint8_t len)
{
	for (uint16_t i = 0; i < g->n_prefixes6; i++)
		if (g->prefixes6[i].assigned == len &&
		    dp_ipv6_in_prefix(pfx, &g->prefixes6[i].prefix))
			return 1;
	return 0;
}

static int
find_qos(const struct app *a, const struct up_sub *u, uint16_t group, uint16_t *qos)
{
	if (u->qos_profile[0] == '\0') {
		*qos = a->cfg->line_groups[group].qos_profile;
		return 0;
	}
	for (uint16_t i = 0; i < a->cfg->n_qos_profiles; i++) {
		if (strcmp(a->cfg->qos_profiles[i].name, u->qos_profile) == 0) {
			*qos = i;
			return 0;
		}
	}
	return -1;
}

/* Upstream trTCM of a session: QER rates when given, else the profile's. */
static void
police_apply(struct app *a, uint32_t id, const struct up_sub *u, uint16_t qos)
{
	const struct dp_qos_profile *p = &a->cfg->qos_profiles[qos];
	uint64_t pir = u->mbr_ul != 0 ? u->mbr_ul : p->up_pir;
	uint64_t cir = u->gbr_ul != 0 ? u->gbr_ul : (u->mbr_ul != 0 ? pir : p->up_cir);

	police_set(a->police, id, RTE_MIN(cir, pir), pir);
}

static void
lcp_apply(struct app *a, uint32_t id, const struct up_sub *u)
{
	if (!u->lcp_offload || lcp_enable(a->lcp, id, u->lcp_magic, u->echo_interval_s,
					  u->echo_misses, control_now_ms()) != 0)
		lcp_disable(a->lcp, id);
}

static void
arpping_apply(struct app *a, uint32_t id, const struct up_sub *u)
{
	const struct dp_session *s = session_get(a->sessions, id);

	/* the ping is an ARP request to the session's IPv4 address: not without IPv4 */
	if (u->kind != UP_SUB_IPOE || !u->arp_ping.on || u->ipv4 == 0 ||
	    arpping_enable(a->arpping, id, u->arp_ping.interval_s, u->arp_ping.count,
			   __atomic_load_n(&s->pkts_up, __ATOMIC_RELAXED), control_now_ms()) != 0)
		arpping_disable(a->arpping, id);
}

static int
sub_install(void *ctx, const struct up_sub *u, uint32_t *handle)
{
	struct app *a = ctx;
	struct dp_session_params p = {0};
	const struct dp_line_group *g;
	uint16_t line, qos;
	uint32_t ref, id;
	unsigned int waited = 0;
	int rc;

	if (find_line(a, u, &line) != 0) {
		subs_stats.refused_line++;
		return -EINVAL;
	}
	p.group = a->cfg->lines[line].group;
	g = &a->cfg->line_groups[p.group];
	if (!(g->session_types &
	      (u->kind == UP_SUB_IPOE ? DP_SESSION_TYPE_IPOE : DP_SESSION_TYPE_PPPOE))) {
		subs_stats.refused_type++;
		return -EINVAL;
	}
	if ((u->ipv4 == 0 && u->n_prefix6 == 0) || (u->ipv4 != 0 && !in_pools(g, u->ipv4)) ||
	    u->n_prefix6 > SESSION6_MAX_PREFIX) {
		subs_stats.refused_address++;
		return -EINVAL;
	}
	for (unsigned int k = 0; k < u->n_prefix6; k++) {
		if (!in_pools6(g, u->prefix6[k], u->prefix6_len[k])) {
			subs_stats.refused_address++;
			return -EINVAL;
		}
		memcpy(p.prefix6[k], u->prefix6[k], 16);
		p.prefix6_len[k] = u->prefix6_len[k];
	}
	p.n_prefix6 = u->n_prefix6;
	if (find_qos(a, u, p.group, &qos) != 0) {
		subs_stats.refused_qos++;
		return -ENOENT;
	}
	if (u->mtu != 0 && (u->mtu < SESSION_MIN_MTU || u->mtu > SESSION_MAX_MTU)) {
		subs_stats.refused_mtu++;
		return -EINVAL;
	}
	id = session_next_id(a->sessions);
	if (id == SESSION_ID_NONE) {
		subs_stats.refused_session++;
		return -ENOSPC;
	}
	do
		rc = hqos_pipe_alloc(a->hqos, a->cfg->lines[line].access_port, qos, u->mbr_dl,
				     &ref);
	while (hqos_retry(rc, &waited));
	if (rc != 0) {
		subs_stats.refused_pipe++;
		return rc == -ENOSPC || rc == -EAGAIN ? -ENOSPC : -EINVAL;
	}
	hqos_pipe_set_guaranteed(a->hqos, ref, u->gbr_dl); /* the qos-share weight */
	/* Rates first, for the id the session is about to get. */
	police_apply(a, id, u, qos);
	p.line = line;
	p.stag = u->stag;
	p.ctag = u->ctag;
	p.sid = u->kind == UP_SUB_IPOE ? 0 : u->pppoe_sid;
	p.ipoe = u->kind == UP_SUB_IPOE;
	memcpy(p.mac, u->mac, 6);
	memcpy(p.ac_mac, g->ac_mac, 6);
	p.tpid = a->cfg->access_ports[a->cfg->lines[line].access_port].tpid;
	p.qos = qos;
	p.ipv4 = rte_cpu_to_be_32(u->ipv4);
	p.mtu = u->mtu;
	p.sched = ref;
	rc = session_add(a->sessions, &p, &id);
	if (rc != 0) {
		hqos_pipe_free(a->hqos, ref);
		subs_stats.refused_session++;
		return rc == -ENOSPC ? -ENOSPC : -EINVAL;
	}
	hqos_pipe_set_owner(a->hqos, ref, id);
	lcp_apply(a, id, u);
	arpping_apply(a, id, u);
	ra_set(a->ra, id, &u->ra, control_now_ms());
	subs_stats.installed++;
	*handle = id;
	return 0;
}

static struct dp_session *
live(struct app *a, uint32_t id)
{
	struct dp_session *s;

	if (id >= a->sessions->capacity)
		return NULL;
	s = session_get(a->sessions, id);
	return session_live(s) ? s : NULL;
}

static void
sub_remove(void *ctx, uint32_t handle)
{
	struct app *a = ctx;
	struct dp_session *s = live(a, handle);

	if (s == NULL)
		return;
	lcp_disable(a->lcp, handle);
	arpping_disable(a->arpping, handle);
	ra_set(a->ra, handle, NULL, 0);
	/* Frames of this session still queued in HQoS are dropped at dequeue. */
	hqos_pipe_free(a->hqos, s->sched);
	session_del(a->sessions, handle);
	subs_stats.removed++;
}

static int
sub_modify(void *ctx, uint32_t *handle, const struct up_sub *u, uint32_t changed)
{
	struct app *a = ctx;
	struct dp_session *s = live(a, *handle);
	uint16_t line, qos;
	unsigned int waited = 0;
	uint32_t nh;
	int rc;

	if (s == NULL)
		return -EINVAL;
	if (changed & (UP_CHG_KEYS | UP_CHG_MTU)) {
		/*
		 * The worker must never see a half-changed session: install the
		 * new one whole, then remove the old. When the address stays, the
		 * two cannot coexist (the downstream key), so remove first; a
		 * failed install then leaves no session, and the CP is told.
		 */
		if (rte_cpu_to_be_32(u->ipv4) != s->ipv4 && u->n_prefix6 == 0 &&
		    session6_get(a->sessions, *handle)->n == 0) {
			rc = sub_install(ctx, u, &nh);
			if (rc != 0)
				return rc;
			sub_remove(ctx, *handle);
		} else {
			sub_remove(ctx, *handle);
			rc = sub_install(ctx, u, &nh);
			if (rc != 0)
				return rc;
		}
		*handle = nh;
		subs_stats.readded++;
		return 0;
	}
	if (find_line(a, u, &line) != 0) {
		subs_stats.refused_line++;
		return -EINVAL;
	}
	if (find_qos(a, u, a->cfg->lines[line].group, &qos) != 0) {
		subs_stats.refused_qos++;
		return -ENOENT;
	}
	if (changed & (UP_CHG_RATES | UP_CHG_QOS)) {
		do
			rc = hqos_pipe_modify(a->hqos, s->sched, qos, u->mbr_dl);
		while (hqos_retry(rc, &waited));
		if (rc != 0) {
			subs_stats.refused_pipe++;
			return rc == -EAGAIN ? -ENOSPC : -EINVAL;
		}
		hqos_pipe_set_guaranteed(a->hqos, s->sched, u->gbr_dl);
		session_modify_qos(a->sessions, *handle, qos);
		police_apply(a, *handle, u, qos);
	}
	if (changed & UP_CHG_LCP)
		lcp_apply(a, *handle, u);
	if (changed & UP_CHG_ARP_PING)
		arpping_apply(a, *handle, u);
	if (changed & UP_CHG_RA)
		ra_set(a->ra, *handle, &u->ra, control_now_ms());
	subs_stats.modified++;
	return 0;
}

static void
sub_usage(void *ctx, uint32_t handle, struct up_usage *out)
{
	struct app *a = ctx;
	const struct dp_session *s = live(a, handle);

	if (s == NULL)
		return;
	/* Counters only the worker writes, aligned 64-bit: never torn on x86-64. */
	out->ul_pkts = __atomic_load_n(&s->pkts_up, __ATOMIC_RELAXED);
	out->ul_bytes = __atomic_load_n(&s->bytes_up, __ATOMIC_RELAXED);
	out->dl_pkts = __atomic_load_n(&s->pkts_down, __ATOMIC_RELAXED);
	out->dl_bytes = __atomic_load_n(&s->bytes_down, __ATOMIC_RELAXED);
	out->ul_drops = __atomic_load_n(&s->drops_up, __ATOMIC_RELAXED);
	out->dl_drops = __atomic_load_n(&s->drops_down, __ATOMIC_RELAXED);
	out->ul_drop_bytes = __atomic_load_n(&a->sessions->drop_bytes_up[handle], __ATOMIC_RELAXED);
	out->dl_drop_bytes =
		__atomic_load_n(&a->sessions->drop_bytes_down[handle], __ATOMIC_RELAXED);
	{
		/* and what the HQoS queues of its pipe dropped (as far as the sweep read them):
		 * frames with the access header, whose IP packets are that much shorter */
		uint64_t qpkts, qbytes, hdr;

		if (a->hqos != NULL && hqos_pipe_drops(a->hqos, s->sched, &qpkts, &qbytes) == 0) {
			hdr = qpkts * (s->encap.ipoe ? RW_IPOE_LEN : RW_ENCAP_LEN);
			out->dl_drops += qpkts;
			out->dl_drop_bytes += qbytes > hdr ? qbytes - hdr : 0;
		}
	}
	{
		const struct dp_session6 *s6 = session6_get(a->sessions, handle);

		out->ul_pkts6 = __atomic_load_n(&s6->pkts_up, __ATOMIC_RELAXED);
		out->ul_bytes6 = __atomic_load_n(&s6->bytes_up, __ATOMIC_RELAXED);
		out->dl_pkts6 = __atomic_load_n(&s6->pkts_down, __ATOMIC_RELAXED);
		out->dl_bytes6 = __atomic_load_n(&s6->bytes_down, __ATOMIC_RELAXED);
	}
}

static void
sub_redirect(void *ctx, const struct up_redirect *r)
{
	struct control_redirect cr = {
		.cp_ip = r->cp_ip,
		.cp_port = r->cp_port,
		.classes =
			((r->classes & UP_REDIRECT_DISCOVERY) ? PUNT_REDIRECT_DISCOVERY : 0) |
			((r->classes & UP_REDIRECT_PPP_CONTROL) ? PUNT_REDIRECT_PPP_CTRL : 0) |
			((r->classes & UP_REDIRECT_UNKNOWN_SESSION) ? PUNT_REDIRECT_UNKNOWN_SESSION
								    : 0) |
			((r->classes & UP_REDIRECT_DHCP) ? PUNT_REDIRECT_DHCP : 0) |
			((r->classes & UP_REDIRECT_DHCP6) ? PUNT_REDIRECT_DHCP6 : 0),
	};

	control_redirect_set(ctx, &cr);
	printf("bng-dp: control redirect -> %u.%u.%u.%u:%u classes 0x%x%s\n", r->cp_ip >> 24,
	       (r->cp_ip >> 16) & 0xff, (r->cp_ip >> 8) & 0xff, r->cp_ip & 0xff, r->cp_port,
	       cr.classes, r->fallback ? " (static fallback)" : "");
	fflush(stdout);
}

static void
sub_cp_state(void *ctx, enum up_cp_state state)
{
	static const char *const names[] = {
		[UP_CP_NONE] = "not associated",
		[UP_CP_ASSOCIATED] = "associated",
		[UP_CP_UNREACHABLE] = "unreachable (sessions kept)",
	};

	(void)ctx;
	printf("bng-dp: PFCP control plane %s\n",
	       (unsigned int)state < RTE_DIM(names) ? names[state] : "?");
	fflush(stdout);
}

static void
mac_str(const uint8_t *m, char *buf, size_t len)
{
	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

static void
ipv4_str(uint32_t a, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u.%u", a >> 24, (a >> 16) & 0xff, (a >> 8) & 0xff, a & 0xff);
}

/*
 * Build the line map of the groups served now into the spare, publish it and
 * wait until the worker no longer uses the old one, which becomes the spare.
 */
static int
lmap_publish(struct app *a, char *why, size_t whylen)
{
	struct line_map *old = a->lmap;
	int rc = line_map_build(a->lmap_spare, a->cfg, why, whylen);

	if (rc != 0)
		return rc;
	__atomic_store_n(&a->lmap, a->lmap_spare, __ATOMIC_RELEASE);
	session_tables_sync(a->sessions);
	a->lmap_spare = old;
	neigh_set_own(a->neigh, a->cfg);
	return 0;
}

static int
lg_refuse(const struct pfcp_line_group *lg, int rc, const char *why)
{
	subs_stats.lg_refused++;
	printf("bng-dp: line group '%s': %s refused: %s\n", lg->name,
	       lg->action == PFCP_LG_ADOPT ? "adoption" : "release", why);
	fflush(stdout);
	return rc;
}

/* Log each value of the IE that differs from what the group had. */
static void
lg_log_changes(const struct dp_line_group *g, const struct pfcp_line_group *lg)
{
	char was[32], now[32];

	if (memcmp(g->ac_mac, lg->ac_mac, 6) != 0) {
		mac_str(g->ac_mac, was, sizeof(was));
		mac_str(lg->ac_mac, now, sizeof(now));
		printf("bng-dp: line group '%s': AC MAC %s -> %s\n", g->name, was, now);
	}
	if (memcmp(g->core_mac, lg->core_mac, 6) != 0) {
		mac_str(g->core_mac, was, sizeof(was));
		mac_str(lg->core_mac, now, sizeof(now));
		printf("bng-dp: line group '%s': core MAC %s -> %s\n", g->name, was, now);
	}
	if (g->core_address != lg->core_ipv4) {
		ipv4_str(g->core_address, was, sizeof(was));
		ipv4_str(lg->core_ipv4, now, sizeof(now));
		printf("bng-dp: line group '%s': core address %s -> %s\n", g->name, was, now);
	}
}

static int
lg_adopt(struct app *a, uint16_t gi, const struct pfcp_line_group *lg)
{
	struct dp_line_group *g = &a->cfg->line_groups[gi];
	struct dp_line_group saved = *g;
	char why[256];
	int rc;

	if (!g->standby) {
		if (memcmp(g->ac_mac, lg->ac_mac, 6) == 0 &&
		    memcmp(g->core_mac, lg->core_mac, 6) == 0 && g->core_address == lg->core_ipv4 &&
		    g->has_core6 == lg->has_core_ipv6 &&
		    (!g->has_core6 || memcmp(g->core_address6, lg->core_ipv6, 16) == 0))
			return 0; /* a repeat */
		return lg_refuse(lg, -EBUSY, "served with other addresses; release it first");
	}
	rc = dp_config_adopt_check(a->cfg, gi, lg->core_ipv4, why, sizeof(why));
	if (rc == 0)
		rc = dp_config_adopt_check6(a->cfg, gi, lg->has_core_ipv6 ? lg->core_ipv6 : NULL,
					    why, sizeof(why));
	if (rc != 0)
		return lg_refuse(lg, rc, why);
	/*
	 * The group has no session (refused while standby, removed at release)
	 * and no line in the map; after this grace period no worker still reads
	 * its values or its cached core header, so both may change in place.
	 */
	session_tables_sync(a->sessions);
	lg_log_changes(g, lg);
	memcpy(g->ac_mac, lg->ac_mac, 6);
	memcpy(g->core_mac, lg->core_mac, 6);
	g->core_address = lg->core_ipv4;
	g->has_core6 = lg->has_core_ipv6;
	if (lg->has_core_ipv6)
		memcpy(g->core_address6, lg->core_ipv6, 16);
	a->core_hdr[gi].nh_mac = 0;
	g->standby = false;
	rc = lmap_publish(a, why, sizeof(why));
	if (rc != 0) {
		*g = saved;
		return lg_refuse(lg, rc, why);
	}
	neigh_announce(a->neigh);
	control_nd_announce(a);
	subs_stats.lg_adopted++;
	printf("bng-dp: line group '%s' adopted: served\n", g->name);
	fflush(stdout);
	return 0;
}

static int
lg_release(struct app *a, uint16_t gi, const struct pfcp_line_group *lg)
{
	struct dp_line_group *g = &a->cfg->line_groups[gi];
	char why[256];
	int rc;

	if (g->standby)
		return 0; /* a repeat */
	g->standby = true;
	rc = lmap_publish(a, why, sizeof(why));
	if (rc != 0) {
		g->standby = false;
		return lg_refuse(lg, rc, why);
	}
	subs_stats.lg_released++;
	printf("bng-dp: line group '%s' released: standby\n", g->name);
	fflush(stdout);
	return 0;
}

static int
sub_line_group(void *ctx, const struct pfcp_line_group *lg)
{
	struct app *a = ctx;

	for (uint16_t gi = 0; gi < a->cfg->n_line_groups; gi++) {
		if (strcmp(a->cfg->line_groups[gi].name, lg->name) != 0)
			continue;
		return lg->action == PFCP_LG_ADOPT ? lg_adopt(a, gi, lg) : lg_release(a, gi, lg);
	}
	return lg_refuse(lg, -ENOENT, "not a line group of this instance's configuration");
}

static bool
sub_served(void *ctx, uint32_t handle)
{
	struct app *a = ctx;
	const struct dp_session *s = live(a, handle);

	return s != NULL && s->group < a->cfg->n_line_groups &&
	       !a->cfg->line_groups[s->group].standby;
}

const struct pfcp_up_ops subs_ops = {
	.install = sub_install,
	.modify = sub_modify,
	.remove = sub_remove,
	.usage = sub_usage,
	.redirect = sub_redirect,
	.cp_state = sub_cp_state,
	.line_group = sub_line_group,
	.served = sub_served,
};

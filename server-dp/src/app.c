/*
 * bng-dp: building and releasing one instance's tables (app_init.h).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "app_init.h"
#include "control.h"
#include "subs.h"

#define MBUF_CACHE 256

/*
 * Traffic class -> 802.1p PCP of the access tags: the strict-priority classes
 * in pairs from PCP 5 (voice) down, best effort at 0. PCP 6 and 7 are left to
 * network control: LCP echoes the DP sends go out at 7 (lcp.h).
 */
static const uint8_t tc_pcp[DP_NUM_TCS] = {5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 1, 1, 0};

static int
fail(char *err, size_t errlen, const char *what, const char *why)
{
	snprintf(err, errlen, "%s: %s", what, why);
	return -1;
}

void
app_pfcp_conf(const struct dp_config *cfg, uint32_t sessions, uint64_t start_time,
	      int64_t wall_offset_ms, struct pfcp_up_conf *uc)
{
	const struct dp_instance *in = &cfg->instance;

	memset(uc, 0, sizeof(*uc));
	uc->node_ipv4 = in->control_address;
	uc->cp_ip = in->cp_address;
	/* The CP listens on the pod's PFCP port as we do (control_plane.pfcp_port). */
	uc->cp_port = in->pfcp_port;
	/* What docs/dp/pfcp.md section 4 announces: MNOP (packet counts in usage
	 * reports), PPPoE and LCP keepalive offload. */
	uc->up_features[2] = 0x10;
	uc->bbf_features =
		PFCP_BBF_UPF_PPPOE | PFCP_BBF_UPF_IPOE | PFCP_BBF_UPF_LCP_KEEPALIVE_OFFLOAD;
	uc->recovery_unix_s = (uint32_t)start_time;
	uc->wall_offset_ms = wall_offset_ms;
	/* Subscriber sessions plus the default session. */
	uc->capacity = sessions + 1;
	uc->fallback.cp_ip = in->cp_address;
	uc->fallback.cp_port = in->vxlan_port;
	uc->fallback.classes = UP_REDIRECT_ALL;
	uc->fallback.fallback = true;
}

void
app_punt_params(const struct dp_config *cfg, struct punt_params *p)
{
	punt_params_default(p);
	punt_params_apply(p, &cfg->punt);
}

static int
pfcp_setup(struct app *a, char *err, size_t errlen)
{
	struct pfcp_up_conf uc;
	struct timeval tv;

	gettimeofday(&tv, NULL);
	app_pfcp_conf(a->cfg, a->opts.sessions, a->start_time,
		      (int64_t)((uint64_t)tv.tv_sec * 1000 + (uint64_t)tv.tv_usec / 1000) -
			      (int64_t)control_now_ms(),
		      &uc);
	a->pfcp = pfcp_up_create(&uc, &subs_ops, a);
	if (a->pfcp == NULL)
		return fail(err, errlen, "PFCP user-plane function",
			    "bad configuration or no memory");
	return 0;
}

static int
stages_setup(struct app *a, char *err, size_t errlen)
{
	int socket = (int)rte_socket_id();
	struct punt_params pp;
	struct hqos_params hp;
	char why[256];

	hqos_params_default(&hp);
	hp.capacity = a->opts.sessions;
	hp.qsize = a->opts.qsize;
	hp.scheduler = a->opts.hqos_sched;
	if (a->opts.hqos_stats_period_us != 0)
		hp.stats_period_us = a->opts.hqos_stats_period_us;
	if (a->opts.hqos_spare_subports != 0)
		hp.spare_subports = a->opts.hqos_spare_subports;
	a->hqos = hqos_create(a->cfg, &hp, why, sizeof(why));
	if (a->hqos == NULL)
		return fail(err, errlen, "HQoS", why);
	hqos_batch_init(&a->batch, a->opts.hqos_batch, rte_get_tsc_hz());
	a->police = police_create(a->opts.sessions, socket);
	if (a->police == NULL)
		return fail(err, errlen, "policers", rte_strerror(rte_errno));
	a->neigh = neigh_create(a->cfg, socket);
	if (a->neigh == NULL)
		return fail(err, errlen, "ARP table", rte_strerror(rte_errno));
	a->routes = route_create(a->cfg, socket, why, sizeof(why));
	if (a->routes == NULL)
		return fail(err, errlen, "routes", why);
	a->acl = acl_create(a->cfg, socket, why, sizeof(why));
	if (a->acl == NULL)
		return fail(err, errlen, "ACL", why);
	app_punt_params(a->cfg, &pp);
	a->punt = punt_create(&pp, a->punt_ring, socket);
	if (a->punt == NULL)
		return fail(err, errlen, "punt policer", rte_strerror(rte_errno));
	a->lcp = lcp_create(a->opts.sessions, NULL, socket);
	if (a->lcp == NULL)
		return fail(err, errlen, "LCP offload", rte_strerror(rte_errno));
	a->arpping = arpping_create(a->opts.sessions, socket);
	if (a->arpping == NULL)
		return fail(err, errlen, "IPoE ARP ping", rte_strerror(rte_errno));
	a->ra = ra_create(a->opts.sessions, 0, rte_rdtsc());
	if (a->ra == NULL)
		return fail(err, errlen, "RA offload", "out of memory");
	/* Copies: always right whatever the port can send (net_af_xdp takes no chains). */
	a->frag = frag_pools_create(socket, 0, FRAG_COPY);
	if (a->frag == NULL)
		return fail(err, errlen, "fragmentation pools", rte_strerror(rte_errno));
	if (icmp_state_init(&a->icmp, ICMP_DEFAULT_RATE, ICMP_DEFAULT_BURST, rte_get_tsc_hz(),
			    (uint16_t)a->cfg->instance.id) != 0)
		return fail(err, errlen, "ICMP", "no TSC frequency");
	for (unsigned int tc = 0; tc < RW_NUM_TC; tc++)
		a->pcp.pcp[tc] = tc < DP_NUM_TCS ? tc_pcp[tc] : 0;
	a->core_hdr = rte_zmalloc("core_hdr", sizeof(*a->core_hdr) * DP_MAX_LINE_GROUPS,
				  RTE_CACHE_LINE_SIZE);
	a->out = rte_zmalloc("worker_out", sizeof(*a->out), RTE_CACHE_LINE_SIZE);
	if (a->core_hdr == NULL || a->out == NULL)
		return fail(err, errlen, "worker state", "out of memory");
	return pfcp_setup(a, err, errlen);
}

static struct rte_ring *
ring(const char *name, unsigned int flags)
{
	return rte_ring_create(name, APP_RING_SIZE, (int)rte_socket_id(), flags);
}

int
app_init(struct app *a, char *err, size_t errlen)
{
	char why[256];
	int rc;

	a->start_time = (uint64_t)time(NULL);
	a->cfg = calloc(1, sizeof(*a->cfg));
	a->lmap = rte_zmalloc("line_map", sizeof(*a->lmap), RTE_CACHE_LINE_SIZE);
	a->lmap_spare = rte_zmalloc("line_map_spare", sizeof(*a->lmap), RTE_CACHE_LINE_SIZE);
	if (a->cfg == NULL || a->lmap == NULL || a->lmap_spare == NULL)
		return fail(err, errlen, "start", "out of memory");
	rc = dp_config_load(a->opts.config_path, a->cfg, why, sizeof(why));
	if (rc == 0)
		rc = line_map_build(a->lmap, a->cfg, why, sizeof(why));
	if (rc != 0)
		return fail(err, errlen, a->opts.config_path, why);
	/* one QSBR reader per worker lcore (worker.h) */
	a->sessions = session_tables_create("sess", a->opts.sessions,
					    a->opts.workers > 1 ? a->opts.workers : 1,
					    (int)rte_socket_id());
	if (a->sessions == NULL)
		return fail(err, errlen, "session tables", rte_strerror(rte_errno));
	{
		/* one downstream IPv6 table per assigned length of the groups' prefixes6 */
		uint8_t lens[DP_MAX_LINE_GROUPS * DP_MAX_GROUP_PREFIXES6];
		unsigned int n = 0;

		for (unsigned int g = 0; g < a->cfg->n_line_groups; g++)
			for (unsigned int i = 0; i < a->cfg->line_groups[g].n_prefixes6; i++)
				lens[n++] = a->cfg->line_groups[g].prefixes6[i].assigned;
		if (n > 0 && session_tables_set_v6(a->sessions, lens, n, (int)rte_socket_id()) != 0)
			return fail(err, errlen, "session tables", "IPv6 tables");
	}
	a->pool = rte_pktmbuf_pool_create("pkts", a->opts.mbufs, MBUF_CACHE, 0,
					  RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	if (a->pool == NULL)
		return fail(err, errlen, "mbuf pool", rte_strerror(rte_errno));
	/* Each ring has one producer and one consumer thread. */
	a->punt_ring = ring("punt", RING_F_SP_ENQ | RING_F_SC_DEQ);
	a->arp_ring = ring("arp", RING_F_SP_ENQ | RING_F_SC_DEQ);
	a->inject_ring = ring("inject", RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (a->punt_ring == NULL || a->arp_ring == NULL || a->inject_ring == NULL)
		return fail(err, errlen, "rings", rte_strerror(rte_errno));
	return stages_setup(a, err, errlen);
}

static void
ring_free(struct rte_ring *r)
{
	void *m;

	if (r == NULL)
		return;
	while (rte_ring_sc_dequeue(r, &m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(r);
}

void
app_fini(struct app *a)
{
	pfcp_up_free(a->pfcp);
	rte_free(a->out);
	rte_free(a->core_hdr);
	frag_pools_free(a->frag);
	lcp_free(a->lcp);
	arpping_free(a->arpping);
	ra_free(a->ra);
	punt_free(a->punt);
	acl_free(a->acl);
	route_free(a->routes);
	neigh_free(a->neigh);
	police_free(a->police);
	hqos_free(a->hqos);
	ring_free(a->punt_ring);
	ring_free(a->arp_ring);
	ring_free(a->inject_ring);
	session_tables_free(a->sessions);
	rte_mempool_free(a->pool);
	rte_free(a->lmap);
	rte_free(a->lmap_spare);
	free(a->cfg);
	memset((char *)a + offsetof(struct app, cfg), 0, sizeof(*a) - offsetof(struct app, cfg));
}

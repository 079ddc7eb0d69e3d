/*
 * bng-dp telemetry commands (telemetry.h).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_telemetry.h>

#include "control.h"
#include "subs.h"
#include "telemetry.h"
#include "worker.h"

static struct app *tel_app;
/* Telemetry commands run on DPDK's telemetry thread; the process tears down on the main
 * thread. Every command runs under this mutex and only while tel_app is set, so a command
 * asked during teardown answers an error instead of reading freed state. */
static pthread_mutex_t tel_mu = PTHREAD_MUTEX_INITIALIZER;

int
telemetry_call(telemetry_cmd_fn fn, const char *cmd, const char *params, struct rte_tel_data *d)
{
	int rc = -1;

	pthread_mutex_lock(&tel_mu);
	if (tel_app != NULL)
		rc = fn(cmd, params, d);
	pthread_mutex_unlock(&tel_mu);
	return rc;
}

void
telemetry_close(void)
{
	pthread_mutex_lock(&tel_mu);
	tel_app = NULL;
	pthread_mutex_unlock(&tel_mu);
}

static void
add_counters(struct rte_tel_data *d, const char *prefix, const char *const *names,
	     const uint64_t *v, unsigned int n, unsigned int first)
{
	char key[RTE_TEL_MAX_STRING_LEN];
	unsigned int i;

	for (i = first; i < n; i++) {
		snprintf(key, sizeof(key), "%s%s", prefix, names[i]);
		rte_tel_data_add_dict_u64(d, key, v[i]);
	}
}

static void
ipv4_str(uint32_t host, char *out, size_t len)
{
	snprintf(out, len, "%u.%u.%u.%u", host >> 24, (host >> 16) & 0xff, (host >> 8) & 0xff,
		 host & 0xff);
}

static int
tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	static struct app_worker_stats sum; /* under tel_mu */
	const struct app_worker_stats *w = &sum;
	/* the HQoS batch is the downstream worker's in split mode (worker.h) */
	const struct hqos_batch *b =
		tel_app->down != NULL ? &tel_app->down->batch : &tel_app->batch;
	char key[RTE_TEL_MAX_STRING_LEN];

	(void)cmd;
	(void)params;
	worker_stats_sum(tel_app, &sum);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "instance", tel_app->cfg->instance.name);
	rte_tel_data_add_dict_u64(d, "workers", tel_app->down != NULL ? 2 : 1);
	rte_tel_data_add_dict_u64(d, "rx_pkts", w->rx_pkts);
	rte_tel_data_add_dict_u64(d, "rx_bursts", w->rx_bursts);
	rte_tel_data_add_dict_u64(d, "tx_pkts", w->tx_pkts);
	rte_tel_data_add_dict_u64(d, "up_pkts", w->up_pkts);
	rte_tel_data_add_dict_u64(d, "up_bytes", w->up_bytes);
	rte_tel_data_add_dict_u64(d, "down_pkts", w->down_pkts);
	rte_tel_data_add_dict_u64(d, "down_bytes", w->down_bytes);
	rte_tel_data_add_dict_u64(d, "down_sent", w->down_sent);
	rte_tel_data_add_dict_u64(d, "punted", w->punted);
	rte_tel_data_add_dict_u64(d, "arp_to_control", w->arp_to_control);
	rte_tel_data_add_dict_u64(d, "lcp_answered", w->lcp_answered);
	rte_tel_data_add_dict_u64(d, "lcp_consumed", w->lcp_consumed);
	rte_tel_data_add_dict_u64(d, "ipoe_arp_replies", w->ipoe_arp_replies);
	rte_tel_data_add_dict_u64(d, "ipoe_na_replies", w->ipoe_na_replies);
	rte_tel_data_add_dict_u64(d, "ipoe6_punted", w->ipoe6_punted);
	rte_tel_data_add_dict_u64(d, "icmp_sent", w->icmp_sent);
	rte_tel_data_add_dict_u64(d, "fragmented", w->fragmented);
	rte_tel_data_add_dict_u64(d, "up6_pkts", w->up6_pkts);
	rte_tel_data_add_dict_u64(d, "up6_bytes", w->up6_bytes);
	rte_tel_data_add_dict_u64(d, "down6_pkts", w->down6_pkts);
	rte_tel_data_add_dict_u64(d, "down6_bytes", w->down6_bytes);
	rte_tel_data_add_dict_u64(d, "v6_punted", w->v6_punted);
	rte_tel_data_add_dict_u64(d, "icmp6_time_exceeded", w->icmp6.time_exceeded);
	rte_tel_data_add_dict_u64(d, "icmp6_packet_too_big", w->icmp6.packet_too_big);
	rte_tel_data_add_dict_u64(d, "icmp6_rate_limited", w->icmp6.rate_limited);
	rte_tel_data_add_dict_u64(d, "icmp6_not_allowed", w->icmp6.not_allowed);
	rte_tel_data_add_dict_u64(d, "router6_resolved",
				  __atomic_load_n(&tel_app->router6_mac, __ATOMIC_RELAXED) != 0);
	rte_tel_data_add_dict_u64(d, "injected", w->injected);
	rte_tel_data_add_dict_u64(d, "idle_sleeps", w->idle_sleeps);
	rte_tel_data_add_dict_u64(d, "idle_sleeps_held", w->idle_sleeps_held);
	rte_tel_data_add_dict_u64(d, "hqos_batch_deferred", b->deferred);
	rte_tel_data_add_dict_u64(d, "hqos_batch_timeouts", b->timeouts);
	add_counters(d, "kind_", cls_kind_names, w->cls.kind, CLS_KIND_MAX, 0);
	add_counters(d, "drop_", cls_drop_names, w->cls.drop, CLS_DROP_MAX, 1);
	add_counters(d, "drop_", app_drop_names, w->drop, APP_DROP_MAX, 0);
	add_counters(d, "route_", route_kind_names, w->route.kind, ROUTE_KINDS, 0);
	add_counters(d, "icmp_sent_", icmp_kind_names, w->icmp.sent, ICMP_KIND_MAX, 0);
	add_counters(d, "icmp_refused_", icmp_refuse_names, w->icmp.refused, ICMP_REFUSE_MAX, 0);
	add_counters(d, "frag_", frag_result_names, w->frag.result, FRAG_R_MAX, 0);
	rte_tel_data_add_dict_u64(d, "frag_fragments", w->frag.fragments);
	for (unsigned int dir = 0; dir < ACL_DIRS; dir++) {
		snprintf(key, sizeof(key), "acl_%s_packets", dir == ACL_UP ? "up" : "down");
		rte_tel_data_add_dict_u64(d, key, w->acl.packets[dir]);
		snprintf(key, sizeof(key), "acl_%s_denied", dir == ACL_UP ? "up" : "down");
		rte_tel_data_add_dict_u64(d, key, w->acl.denied[dir]);
	}
	return 0;
}

/* A decimal number below cap, no sign, no spaces. */
static int
parse_id(const char *s, uint32_t cap, uint32_t *id)
{
	unsigned long v;
	char *end;

	if (s == NULL || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || v >= cap)
		return -EINVAL;
	*id = (uint32_t)v;
	return 0;
}

static void
session_dict(struct rte_tel_data *d, uint32_t id, const struct dp_session *s)
{
	const struct app *a = tel_app;
	struct hqos_pipe_info pi;
	struct lcp_info li;
	char mac[18], ip[16];

	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", s->mac[0], s->mac[1], s->mac[2],
		 s->mac[3], s->mac[4], s->mac[5]);
	ipv4_str(rte_be_to_cpu_32(s->ipv4), ip, sizeof(ip));
	rte_tel_data_add_dict_string(d, "state", "up");
	rte_tel_data_add_dict_u64(d, "id", id);
	rte_tel_data_add_dict_string(d, "access_port",
				     a->cfg->access_ports[a->cfg->lines[s->line].access_port].name);
	rte_tel_data_add_dict_u64(d, "line", s->line);
	rte_tel_data_add_dict_string(d, "line_group", a->cfg->line_groups[s->group].name);
	rte_tel_data_add_dict_u64(d, "stag", s->stag);
	rte_tel_data_add_dict_u64(d, "ctag", s->ctag);
	rte_tel_data_add_dict_string(d, "kind", s->encap.ipoe ? "ipoe" : "pppoe");
	rte_tel_data_add_dict_u64(d, "pppoe_sid", s->sid);
	rte_tel_data_add_dict_string(d, "mac", mac);
	rte_tel_data_add_dict_string(d, "ipv4", ip);
	rte_tel_data_add_dict_u64(d, "mtu", s->mtu);
	rte_tel_data_add_dict_string(d, "qos_profile", a->cfg->qos_profiles[s->qos].name);
	if (hqos_pipe_info(a->hqos, s->sched, &pi) == 0) {
		rte_tel_data_add_dict_u64(d, "hqos_subport", pi.subport);
		rte_tel_data_add_dict_u64(d, "hqos_pipe", pi.pipe);
		rte_tel_data_add_dict_u64(d, "hqos_rate_bps", pi.rate_bps);
	}
	if (lcp_get(a->lcp, id, &li) == 0) {
		rte_tel_data_add_dict_u64(d, "lcp_offload", (uint64_t)li.enabled);
		rte_tel_data_add_dict_u64(d, "lcp_dead", (uint64_t)li.dead);
		rte_tel_data_add_dict_u64(d, "lcp_replies", li.replies);
	}
	if (s->encap.ipoe) {
		struct arpping_info ai;

		if (arpping_get(a->arpping, id, &ai) == 0) {
			rte_tel_data_add_dict_u64(d, "arp_ping", (uint64_t)ai.enabled);
			rte_tel_data_add_dict_u64(d, "arp_ping_dead", (uint64_t)ai.dead);
			rte_tel_data_add_dict_u64(d, "arp_ping_replies", ai.heard);
		}
	}
	rte_tel_data_add_dict_u64(d, "pkts_up", s->pkts_up);
	rte_tel_data_add_dict_u64(d, "bytes_up", s->bytes_up);
	rte_tel_data_add_dict_u64(d, "drops_up", s->drops_up);
	rte_tel_data_add_dict_u64(d, "pkts_down", s->pkts_down);
	rte_tel_data_add_dict_u64(d, "bytes_down", s->bytes_down);
	rte_tel_data_add_dict_u64(d, "drops_down", s->drops_down);
	/* the octets of those drops (IP packets; without the HQoS pipe's, as drops_down) */
	rte_tel_data_add_dict_u64(d, "drop_bytes_up", a->sessions->drop_bytes_up[id]);
	rte_tel_data_add_dict_u64(d, "drop_bytes_down", a->sessions->drop_bytes_down[id]);
	{
		/* the IPv6 share of the counters above, and the session's prefixes */
		const struct dp_session6 *s6 = session6_get(a->sessions, id);
		char p6[2 * (INET6_ADDRSTRLEN + 4)] = "";
		size_t off = 0;

		for (unsigned int k = 0; k < s6->n && k < SESSION6_MAX_PREFIX; k++) {
			uint8_t b[16] = {0};
			char t[INET6_ADDRSTRLEN];

			memcpy(b, &s6->pfx[k], 8);
			inet_ntop(AF_INET6, b, t, sizeof(t));
			off += (size_t)snprintf(p6 + off, sizeof(p6) - off, "%s%s/%u", k ? " " : "",
						t, s6->plen[k]);
		}
		rte_tel_data_add_dict_string(d, "ipv6_prefixes", p6);
		rte_tel_data_add_dict_u64(d, "pkts_up_v6", s6->pkts_up);
		rte_tel_data_add_dict_u64(d, "bytes_up_v6", s6->bytes_up);
		rte_tel_data_add_dict_u64(d, "pkts_down_v6", s6->pkts_down);
		rte_tel_data_add_dict_u64(d, "bytes_down_v6", s6->bytes_down);
	}
}

/*
 * Without a parameter: counts and the ids of live sessions (the first 512);
 * "ID": that session; "ipv4=A.B.C.D": the session of that address.
 */
static int
tel_sessions(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct session_tables *t = tel_app->sessions;
	struct rte_tel_data *ids;
	uint32_t id, n = 0;

	(void)cmd;
	rte_tel_data_start_dict(d);
	if (params == NULL || *params == '\0') {
		rte_tel_data_add_dict_u64(d, "count", session_count(t));
		rte_tel_data_add_dict_u64(d, "capacity", t->capacity);
		rte_tel_data_add_dict_u64(d, "pending_reuse", session_pending(t));
		rte_tel_data_add_dict_u64(d, "installed", subs_stats.installed);
		rte_tel_data_add_dict_u64(d, "removed", subs_stats.removed);
		rte_tel_data_add_dict_u64(d, "modified", subs_stats.modified);
		rte_tel_data_add_dict_u64(d, "readded", subs_stats.readded);
		rte_tel_data_add_dict_u64(d, "refused_line", subs_stats.refused_line);
		rte_tel_data_add_dict_u64(d, "refused_address", subs_stats.refused_address);
		rte_tel_data_add_dict_u64(d, "refused_qos", subs_stats.refused_qos);
		rte_tel_data_add_dict_u64(d, "refused_mtu", subs_stats.refused_mtu);
		rte_tel_data_add_dict_u64(d, "refused_type", subs_stats.refused_type);
		rte_tel_data_add_dict_u64(d, "refused_pipe", subs_stats.refused_pipe);
		rte_tel_data_add_dict_u64(d, "refused_session", subs_stats.refused_session);
		ids = rte_tel_data_alloc();
		if (ids == NULL)
			return 0;
		rte_tel_data_start_array(ids, RTE_TEL_U64_VAL);
		for (id = 0; id < t->capacity && n < 512; id++) {
			if (session_live(session_get(t, id))) {
				rte_tel_data_add_array_u64(ids, id);
				n++;
			}
		}
		rte_tel_data_add_dict_container(d, "ids", ids, 0);
		return 0;
	}
	if (strncmp(params, "ipv4=", 5) == 0) {
		unsigned int b[4];
		char tail;
		uint32_t want;

		if (sscanf(params + 5, "%3u.%3u.%3u.%3u%c", &b[0], &b[1], &b[2], &b[3], &tail) !=
			    4 ||
		    b[0] > 255 || b[1] > 255 || b[2] > 255 || b[3] > 255)
			return -EINVAL;
		want = rte_cpu_to_be_32(b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3]);
		for (id = 0; id < t->capacity; id++) {
			if (session_get(t, id)->ipv4 == want) {
				session_dict(d, id, session_get(t, id));
				return 0;
			}
		}
		rte_tel_data_add_dict_string(d, "state", "none");
		return 0;
	}
	if (parse_id(params, t->capacity, &id) != 0)
		return -EINVAL;
	if (!session_live(session_get(t, id))) {
		rte_tel_data_add_dict_string(d, "state", "free");
		return 0;
	}
	session_dict(d, id, session_get(t, id));
	return 0;
}

/* Totals, and per traffic class when per_tc (a dict holds 256 entries at most). */
static void
tc_counters(struct rte_tel_data *d, const char *prefix, const struct hqos_tc_counters *c,
	    int per_tc)
{
	char key[RTE_TEL_MAX_STRING_LEN];
	uint64_t pkts = 0, bytes = 0, dp = 0, db = 0;

	for (unsigned int tc = 0; tc < DP_NUM_TCS; tc++) {
		pkts += c->pkts[tc];
		bytes += c->bytes[tc];
		dp += c->drop_pkts[tc];
		db += c->drop_bytes[tc];
		if (!per_tc)
			continue;
		snprintf(key, sizeof(key), "%stc%u_pkts", prefix, tc);
		rte_tel_data_add_dict_u64(d, key, c->pkts[tc]);
		snprintf(key, sizeof(key), "%stc%u_drop_pkts", prefix, tc);
		rte_tel_data_add_dict_u64(d, key, c->drop_pkts[tc]);
	}
	snprintf(key, sizeof(key), "%spkts", prefix);
	rte_tel_data_add_dict_u64(d, key, pkts);
	snprintf(key, sizeof(key), "%sbytes", prefix);
	rte_tel_data_add_dict_u64(d, key, bytes);
	snprintf(key, sizeof(key), "%sdrop_pkts", prefix);
	rte_tel_data_add_dict_u64(d, key, dp);
	snprintf(key, sizeof(key), "%sdrop_bytes", prefix);
	rte_tel_data_add_dict_u64(d, key, db);
}

/* HQoS: the port and each access port; worker counters; memory. */
static int
tel_hqos(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct app *a = tel_app;
	struct hqos_worker_counters wc;
	struct hqos_tc_counters c;
	char prefix[64];

	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	hqos_worker_counters_read(a->hqos, &wc);
	rte_tel_data_add_dict_u64(d, "memory_bytes", hqos_memory_bytes(a->hqos));
	rte_tel_data_add_dict_u64(d, "enq_pkts", wc.enq_pkts);
	rte_tel_data_add_dict_u64(d, "enq_drops", wc.enq_drops);
	rte_tel_data_add_dict_u64(d, "deq_pkts", wc.deq_pkts);
	rte_tel_data_add_dict_u64(d, "deq_wire_bytes", wc.deq_wire_bytes);
	rte_tel_data_add_dict_u64(d, "pacer_waits", wc.pacer_waits);
	rte_tel_data_add_dict_u64(d, "cmds", wc.cmds);
	rte_tel_data_add_dict_u64(d, "cmd_errors", wc.cmd_errors);
	if (hqos_stats_read(a->hqos, HQOS_SCOPE_TOTAL, 0, &c) == 0)
		tc_counters(d, "port_", &c, 1);
	for (uint16_t p = 0; p < a->cfg->n_access_ports && p < 48; p++) {
		if (hqos_stats_read(a->hqos, HQOS_SCOPE_ACCESS_PORT, p, &c) != 0)
			continue;
		snprintf(prefix, sizeof(prefix), "%s_", a->cfg->access_ports[p].name);
		tc_counters(d, prefix, &c, 0);
	}
	return 0;
}

static int
tel_arp(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	return neigh_telemetry(tel_app->neigh, control_now_ms(), params, d);
}

/* Control frames: punt policer, VXLAN both ways, LCP offload, redirect target. */
static int
tel_punt(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct app *a = tel_app;
	const struct control_stats *cs = &control_stats;
	struct control_redirect r;
	struct punt_counters pc;
	char key[RTE_TEL_MAX_STRING_LEN], ip[16];
	uint64_t policed = 0;

	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	control_redirect_get(&r);
	ipv4_str(r.cp_ip, ip, sizeof(ip));
	rte_tel_data_add_dict_string(d, "redirect_ip", ip);
	rte_tel_data_add_dict_u64(d, "redirect_port", r.cp_port);
	rte_tel_data_add_dict_u64(d, "redirect_classes", r.classes);
	punt_counters_get(a->punt, &pc);
	for (unsigned int c = 0; c < PUNT_NUM_CLASSES; c++) {
		for (unsigned int k = 0; k < PUNT_REASON_MAX; k++) {
			snprintf(key, sizeof(key), "%s_%s", punt_class_names[c],
				 punt_reason_names[k]);
			rte_tel_data_add_dict_u64(d, key, pc.c[c][k]);
			if (k == PUNT_POLICED_MAC || k == PUNT_POLICED_LINE)
				policed += pc.c[c][k];
		}
	}
	rte_tel_data_add_dict_u64(d, "policed", policed);
	rte_tel_data_add_dict_u64(d, "invalid", pc.invalid);
	rte_tel_data_add_dict_u64(d, "vxlan_tx", cs->punt_tx);
	rte_tel_data_add_dict_u64(d, "vxlan_tx_errors", cs->punt_tx_errors);
	rte_tel_data_add_dict_u64(d, "vxlan_rx", cs->vxlan_rx);
	rte_tel_data_add_dict_u64(d, "vxlan_not_allowed", cs->vxlan_not_allowed);
	rte_tel_data_add_dict_u64(d, "vxlan_bad", cs->vxlan_bad);
	rte_tel_data_add_dict_u64(d, "inject_refused", cs->inject_refused);
	rte_tel_data_add_dict_u64(d, "injected_cp", cs->injected_cp);
	rte_tel_data_add_dict_u64(d, "inject_full", cs->inject_full);
	add_counters(d, "vxlan_", vxlan_count_names, cs->vxlan.c, VXLAN_COUNT_MAX, 0);
	add_counters(d, "lcp_", lcp_wcount_names, a->lcp->wcount, LCP_W_MAX, 0);
	add_counters(d, "lcp_", lcp_ccount_names, a->lcp->ccount, LCP_C_MAX, 0);
	rte_tel_data_add_dict_u64(d, "lcp_scheduled", lcp_scheduled(a->lcp));
	rte_tel_data_add_dict_u64(d, "arp_ping_sessions", arpping_count(a->arpping));
	rte_tel_data_add_dict_u64(d, "arp_ping_request_sent", a->arpping->st.request_sent);
	rte_tel_data_add_dict_u64(d, "arp_ping_send_failed", a->arpping->st.send_failed);
	rte_tel_data_add_dict_u64(d, "arp_ping_heard", a->arpping->st.heard);
	rte_tel_data_add_dict_u64(d, "arp_ping_missed", a->arpping->st.missed);
	rte_tel_data_add_dict_u64(d, "arp_ping_dead", a->arpping->st.dead);
	rte_tel_data_add_dict_u64(d, "arp_ping_replies_heard", a->arpping->replies_heard);
	return 0;
}

/* The PFCP user-plane function: association, messages, sessions. */
static int
tel_pfcp(const char *cmd, const char *params, struct rte_tel_data *d)
{
	static const char *const states[] = {"none", "associated", "unreachable"};
	const struct control_stats *cs = &control_stats;
	struct pfcp_up_stats st;
	char key[RTE_TEL_MAX_STRING_LEN];

	(void)cmd;
	(void)params;
	pfcp_up_stats_get(tel_app->pfcp, &st);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(
		d, "cp_state",
		(unsigned int)st.cp_state < RTE_DIM(states) ? states[st.cp_state] : "?");
	rte_tel_data_add_dict_u64(d, "recovery_time_stamp", tel_app->start_time);
	rte_tel_data_add_dict_u64(d, "sessions", st.sessions);
	rte_tel_data_add_dict_u64(d, "sub_sessions", st.sub_sessions);
	rte_tel_data_add_dict_u64(d, "default_session", st.default_session);
	rte_tel_data_add_dict_u64(d, "pending", st.pending);
	rte_tel_data_add_dict_u64(d, "hb_missed", st.hb_missed);
	rte_tel_data_add_dict_u64(d, "rx_datagrams", cs->pfcp_rx);
	rte_tel_data_add_dict_u64(d, "tx_datagrams", cs->pfcp_tx);
	rte_tel_data_add_dict_u64(d, "tx_errors", cs->pfcp_tx_errors);
	rte_tel_data_add_dict_u64(d, "not_allowed", cs->pfcp_not_allowed + st.not_allowed);
	rte_tel_data_add_dict_u64(d, "bad_header", st.bad_header);
	rte_tel_data_add_dict_u64(d, "unknown_type", st.unknown_type);
	rte_tel_data_add_dict_u64(d, "version_not_supported", st.version_not_supported);
	rte_tel_data_add_dict_u64(d, "retrans_rx", st.retrans_rx);
	rte_tel_data_add_dict_u64(d, "retrans_tx", st.retrans_tx);
	rte_tel_data_add_dict_u64(d, "req_timeouts", st.req_timeouts);
	rte_tel_data_add_dict_u64(d, "hb_sent", st.hb_sent);
	rte_tel_data_add_dict_u64(d, "hb_failures", st.hb_failures);
	rte_tel_data_add_dict_u64(d, "cp_restarts", st.cp_restarts);
	rte_tel_data_add_dict_u64(d, "assoc_setups", st.assoc_setups);
	rte_tel_data_add_dict_u64(d, "assoc_releases", st.assoc_releases);
	rte_tel_data_add_dict_u64(d, "sessions_established", st.sessions_established);
	rte_tel_data_add_dict_u64(d, "sessions_modified", st.sessions_modified);
	rte_tel_data_add_dict_u64(d, "sessions_deleted", st.sessions_deleted);
	rte_tel_data_add_dict_u64(d, "reports_sent", st.reports_sent);
	rte_tel_data_add_dict_u64(d, "lcp_dead_sent", st.lcp_dead_sent);
	rte_tel_data_add_dict_u64(d, "install_failed", st.install_failed);
	rte_tel_data_add_dict_u64(d, "lg_adopts", st.lg_adopts);
	rte_tel_data_add_dict_u64(d, "lg_releases", st.lg_releases);
	rte_tel_data_add_dict_u64(d, "lg_refused", st.lg_refused);
	rte_tel_data_add_dict_u64(d, "lg_sessions_deleted", st.lg_sessions_deleted);
	for (unsigned int c = 0; c < PFCP_CAUSE_MAX; c++) {
		if (st.rejected[c] != 0) {
			snprintf(key, sizeof(key), "rejected_cause_%u", c);
			rte_tel_data_add_dict_u64(d, key, st.rejected[c]);
		}
		if (st.decode_error[c] != 0) {
			snprintf(key, sizeof(key), "decode_error_cause_%u", c);
			rte_tel_data_add_dict_u64(d, key, st.decode_error[c]);
		}
	}
	return 0;
}

/*
 * Line groups: "served" or "standby" by name, and the adoption counters. The
 * control thread flips the flag; a stale read here is only a late answer.
 */
static int
tel_line_groups(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct dp_config *cfg = tel_app->cfg;
	struct rte_tel_data *groups;

	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "adopted", subs_stats.lg_adopted);
	rte_tel_data_add_dict_u64(d, "released", subs_stats.lg_released);
	rte_tel_data_add_dict_u64(d, "refused", subs_stats.lg_refused);
	groups = rte_tel_data_alloc();
	if (groups == NULL)
		return 0;
	rte_tel_data_start_dict(groups);
	for (unsigned int g = 0; g < cfg->n_line_groups; g++)
		rte_tel_data_add_dict_string(
			groups, cfg->line_groups[g].name,
			__atomic_load_n(&cfg->line_groups[g].standby, __ATOMIC_RELAXED) ? "standby"
											: "served");
	rte_tel_data_add_dict_container(d, "groups", groups, 0);
	return 0;
}

static int
tel_stats_gated(const char *cmd, const char *params, struct rte_tel_data *d)
{
	return telemetry_call(tel_stats, cmd, params, d);
}

static int
tel_sessions_gated(const char *cmd, const char *params, struct rte_tel_data *d)
{
	return telemetry_call(tel_sessions, cmd, params, d);
}

static int
tel_hqos_gated(const char *cmd, const char *params, struct rte_tel_data *d)
{
	return telemetry_call(tel_hqos, cmd, params, d);
}

static int
tel_arp_gated(const char *cmd, const char *params, struct rte_tel_data *d)
{
	return telemetry_call(tel_arp, cmd, params, d);
}

static int
tel_punt_gated(const char *cmd, const char *params, struct rte_tel_data *d)
{
	return telemetry_call(tel_punt, cmd, params, d);
}

static int
tel_pfcp_gated(const char *cmd, const char *params, struct rte_tel_data *d)
{
	return telemetry_call(tel_pfcp, cmd, params, d);
}

static int
tel_line_groups_gated(const char *cmd, const char *params, struct rte_tel_data *d)
{
	return telemetry_call(tel_line_groups, cmd, params, d);
}

int
telemetry_register(struct app *a)
{
	pthread_mutex_lock(&tel_mu);
	tel_app = a;
	pthread_mutex_unlock(&tel_mu);
	if (rte_telemetry_register_cmd("/bng/stats", tel_stats_gated,
				       "Worker counters: traffic each way, drops by reason") != 0 ||
	    rte_telemetry_register_cmd("/bng/sessions", tel_sessions_gated,
				       "Session counts and ids; with a session id or ipv4=A.B.C.D: "
				       "that session") != 0 ||
	    rte_telemetry_register_cmd("/bng/hqos", tel_hqos_gated,
				       "HQoS: per port and access port packets and drops by "
				       "traffic class, memory") != 0 ||
	    rte_telemetry_register_cmd("/bng/arp", tel_arp_gated,
				       "Core-side ARP table and counters; with A.B.C.D: that "
				       "entry") != 0 ||
	    rte_telemetry_register_cmd("/bng/punt", tel_punt_gated,
				       "Control frames: redirect target, punt policer, VXLAN, "
				       "LCP offload") != 0 ||
	    rte_telemetry_register_cmd("/bng/pfcp", tel_pfcp_gated,
				       "PFCP user-plane function: association, messages, "
				       "sessions") != 0 ||
	    rte_telemetry_register_cmd("/bng/line_groups", tel_line_groups_gated,
				       "Line groups served or standby; adoptions, releases, "
				       "refusals") != 0) {
		fprintf(stderr, "bng-dp: telemetry command registration failed\n");
		return -1;
	}
	return 0;
}

/*
 * bng-dp telemetry commands (telemetry.h).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_telemetry.h>

#include "telemetry.h"

static struct app *tel_app;

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

static int
tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct app_worker_stats *w = &tel_app->wstats;

	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "instance", tel_app->cfg->instance.name);
	rte_tel_data_add_dict_u64(d, "rx_pkts", w->rx_pkts);
	rte_tel_data_add_dict_u64(d, "rx_bursts", w->rx_bursts);
	rte_tel_data_add_dict_u64(d, "tx_pkts", w->tx_pkts);
	rte_tel_data_add_dict_u64(d, "up_pkts", w->up_pkts);
	rte_tel_data_add_dict_u64(d, "up_bytes", w->up_bytes);
	rte_tel_data_add_dict_u64(d, "down_pkts", w->down_pkts);
	rte_tel_data_add_dict_u64(d, "down_bytes", w->down_bytes);
	rte_tel_data_add_dict_u64(d, "idle_sleeps", w->idle_sleeps);
	add_counters(d, "kind_", cls_kind_names, w->cls.kind, CLS_KIND_MAX, 0);
	add_counters(d, "drop_", cls_drop_names, w->cls.drop, CLS_DROP_MAX, 1);
	add_counters(d, "drop_", app_drop_names, w->drop, APP_DROP_MAX, 0);
	return 0;
}

/* A session id: decimal, no sign, no spaces, below the capacity. */
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

static int
tel_sessions(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct session_tables *t = tel_app->sessions;
	const struct dp_session *s;
	char mac[18], ip[16];
	uint32_t id, a;

	(void)cmd;
	rte_tel_data_start_dict(d);
	if (params == NULL || *params == '\0') {
		rte_tel_data_add_dict_u64(d, "count", session_count(t));
		rte_tel_data_add_dict_u64(d, "capacity", t->capacity);
		rte_tel_data_add_dict_u64(d, "pending_reuse", session_pending(t));
		return 0;
	}
	if (parse_id(params, t->capacity, &id) != 0)
		return -EINVAL;
	s = session_get(t, id);
	if (s->ipv4 == 0) {
		rte_tel_data_add_dict_string(d, "state", "free");
		return 0;
	}
	a = rte_be_to_cpu_32(s->ipv4);
	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", s->mac[0], s->mac[1], s->mac[2],
		 s->mac[3], s->mac[4], s->mac[5]);
	snprintf(ip, sizeof(ip), "%u.%u.%u.%u", a >> 24, (a >> 16) & 0xff, (a >> 8) & 0xff,
		 a & 0xff);
	rte_tel_data_add_dict_string(d, "state", "up");
	rte_tel_data_add_dict_u64(d, "line", s->line);
	rte_tel_data_add_dict_u64(d, "stag", s->stag);
	rte_tel_data_add_dict_u64(d, "ctag", s->ctag);
	rte_tel_data_add_dict_u64(d, "pppoe_sid", s->sid);
	rte_tel_data_add_dict_string(d, "mac", mac);
	rte_tel_data_add_dict_string(d, "ipv4", ip);
	rte_tel_data_add_dict_u64(d, "qos_profile", s->qos);
	rte_tel_data_add_dict_u64(d, "pkts_up", s->pkts_up);
	rte_tel_data_add_dict_u64(d, "bytes_up", s->bytes_up);
	rte_tel_data_add_dict_u64(d, "pkts_down", s->pkts_down);
	rte_tel_data_add_dict_u64(d, "bytes_down", s->bytes_down);
	return 0;
}

int
telemetry_register(struct app *a)
{
	tel_app = a;
	if (rte_telemetry_register_cmd("/bng/stats", tel_stats,
				       "Worker counters: traffic each way, drops by reason") != 0 ||
	    rte_telemetry_register_cmd("/bng/sessions", tel_sessions,
				       "Session count; with a session id: that session. "
				       "Parameters: int id") != 0) {
		fprintf(stderr, "bng-dp: telemetry command registration failed\n");
		return -1;
	}
	return 0;
}

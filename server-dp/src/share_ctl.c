/*
 * The control thread's side of sharing an access port (share_ctl.h).
 */
#include "share_ctl.h"
#include "telemetry.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_telemetry.h>

#include "app.h"
#include "hqos.h"

#define SAMPLES 256u	    /* per-tick samples kept for the demand window */
#define TRACE_MAX 600000u   /* trace lines kept (10 min of 1 ms ticks) */
#define PIPE_RATE_EVERY 10u /* rounds between walks of the pipes (the demand cap) */
#define MIN_WINDOW_MS 20u   /* the worker harvests access port counters every 10 ms */
#define FCS 4u

struct sample {
	uint64_t tsc;
	uint64_t offered; /* the group's port: accepted + refused bytes, FCS included */
	uint64_t served;  /* dequeued wire bytes (all access ports) */
};

struct trace_rec {
	uint64_t tsc;
	uint64_t served;
	uint64_t applied;
};

struct peer_state {
	struct share_report last;
	uint64_t heard_tsc; /* 0: never */
	uint64_t rx;
};

/* One sharing group ([qos_share] section): an access port's subports, or the
 * instance's port pacer (its share of the server port). */
struct group {
	struct share_conf c;
	uint64_t interval_tsc, silent_tsc, window_tsc;
	uint64_t next_round;
	uint64_t rate;			/* R, bytes/s */
	uint64_t stat[SHARE_MAX_PEERS]; /* bytes/s */
	struct peer_state p[SHARE_MAX_PEERS];
	uint64_t applied; /* this instance's subport / pacer rate, bytes/s */
	uint64_t target;
	uint64_t demand, served, weight;
	uint64_t pipe_cap; /* bytes/s, sum of the pipe rates it shapes */
	uint32_t seq, rounds, consistent;
	struct sample s[SAMPLES];
	uint32_t s_head; /* next slot */
	uint32_t s_count;
	struct trace_rec *trace;
	uint32_t n_trace;
	/* counters (control thread writes, telemetry reads) */
	uint64_t tx, tx_errors, rx, rx_not_allowed, rx_bad_index, rate_changes, rate_errors,
		inconsistent_rounds;
};

static struct {
	int on;
	int fd;
	struct app *a;
	uint64_t hz;
	uint64_t mono_ns, mono_tsc; /* CLOCK_MONOTONIC and TSC at start: trace readers align */
	uint32_t n;
	struct group g[SHARE_MAX_GROUPS];
	/* datagrams refused before a group is known, by reason (socket-wide) */
	uint64_t rx, rx_bad[SHARE_ERR_MAX];
} sh = {.fd = -1};

static const char *
kind_name(uint8_t kind)
{
	return kind == SHARE_KIND_SERVER ? "server_port" : "access_port";
}

/* --- telemetry ------------------------------------------------------------- */

/* params: the group's index (0 when empty). */
static int
tel_share(const char *cmd, const char *params, struct rte_tel_data *d)
{
	uint64_t now = rte_rdtsc();
	const struct group *g;
	unsigned long gi = 0;
	char name[64], *end;
	uint32_t i;

	(void)cmd;
	if (params != NULL && *params != '\0') {
		gi = strtoul(params, &end, 10);
		if (*end != '\0' || gi >= sh.n)
			return -1;
	}
	g = &sh.g[gi];
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "groups", sh.n);
	rte_tel_data_add_dict_u64(d, "group", gi);
	rte_tel_data_add_dict_string(d, "kind", kind_name(g->c.kind));
	rte_tel_data_add_dict_u64(d, "share_id", g->c.share_id);
	if (g->c.kind == SHARE_KIND_ACCESS)
		rte_tel_data_add_dict_u64(d, "access_port", g->c.access_port);
	rte_tel_data_add_dict_u64(d, "self", g->c.self);
	rte_tel_data_add_dict_u64(d, "port_rate_bps", g->c.port_rate);
	rte_tel_data_add_dict_u64(d, "static_bps", g->stat[g->c.self] * 8);
	rte_tel_data_add_dict_u64(d, "applied_bps",
				  __atomic_load_n(&g->applied, __ATOMIC_RELAXED) * 8);
	rte_tel_data_add_dict_u64(d, "target_bps", g->target * 8);
	rte_tel_data_add_dict_u64(d, "demand_bps", g->demand * 8);
	rte_tel_data_add_dict_u64(d, "served_bps", g->served * 8);
	rte_tel_data_add_dict_u64(d, "weight", g->weight);
	rte_tel_data_add_dict_u64(d, "consistent", g->consistent);
	rte_tel_data_add_dict_u64(d, "rounds", g->rounds);
	rte_tel_data_add_dict_u64(d, "inconsistent_rounds", g->inconsistent_rounds);
	rte_tel_data_add_dict_u64(d, "rate_changes", g->rate_changes);
	rte_tel_data_add_dict_u64(d, "rate_errors", g->rate_errors);
	rte_tel_data_add_dict_u64(d, "tx", g->tx);
	rte_tel_data_add_dict_u64(d, "tx_errors", g->tx_errors);
	rte_tel_data_add_dict_u64(d, "rx", g->rx);
	rte_tel_data_add_dict_u64(d, "rx_not_allowed", g->rx_not_allowed);
	rte_tel_data_add_dict_u64(d, "rx_group_bad_index", g->rx_bad_index);
	/* The socket's: datagrams refused before (or because) no group matched. */
	rte_tel_data_add_dict_u64(d, "rx_socket", sh.rx);
	for (i = 1; i < SHARE_ERR_MAX; i++) {
		snprintf(name, sizeof(name), "rx_%s", share_err_name((enum share_err)i));
		rte_tel_data_add_dict_u64(d, name, sh.rx_bad[i]);
	}
	for (i = 0; i < g->c.n_peers; i++) {
		const struct peer_state *p = &g->p[i];

		if (i == g->c.self)
			continue;
		snprintf(name, sizeof(name), "peer%u_applied_bps", i);
		rte_tel_data_add_dict_u64(d, name, p->last.applied * 8);
		snprintf(name, sizeof(name), "peer%u_demand_bps", i);
		rte_tel_data_add_dict_u64(d, name, p->last.demand * 8);
		snprintf(name, sizeof(name), "peer%u_weight", i);
		rte_tel_data_add_dict_u64(d, name, p->last.weight);
		snprintf(name, sizeof(name), "peer%u_age_us", i);
		rte_tel_data_add_dict_u64(d, name,
					  p->heard_tsc ? (now - p->heard_tsc) * 1000000 / sh.hz
						       : UINT64_MAX);
	}
	return 0;
}

static int
tel_share_gated(const char *cmd, const char *params, struct rte_tel_data *d)
{
	return telemetry_call(tel_share, cmd, params, d);
}

/* --- what a group shares: an access port's subports or the port pacer --------- */

static int
group_rate_set(const struct group *g, uint64_t bps)
{
	if (g->c.kind == SHARE_KIND_SERVER)
		return hqos_port_rate_set(sh.a->hqos, bps);
	return hqos_access_port_rate_set(sh.a->hqos, g->c.access_port, bps);
}

static uint64_t
offered_bytes(const struct group *g)
{
	struct hqos_tc_counters t;
	uint64_t b = 0;
	uint32_t i;

	if (hqos_stats_read(sh.a->hqos,
			    g->c.kind == SHARE_KIND_SERVER ? HQOS_SCOPE_TOTAL
							   : HQOS_SCOPE_ACCESS_PORT,
			    g->c.access_port, &t) != 0)
		return 0;
	for (i = 0; i < DP_NUM_TCS; i++)
		b += t.bytes[i] + t.drop_bytes[i] + FCS * (t.pkts[i] + t.drop_pkts[i]);
	return b;
}

/* bit/s: the sum of the rates of the pipes the group's rate shapes. */
static uint64_t
pipe_rate(const struct group *g)
{
	return hqos_access_port_pipe_rate(sh.a->hqos, g->c.kind == SHARE_KIND_SERVER
							      ? (uint16_t)HQOS_UNBOUND
							      : g->c.access_port);
}

/* The weight the group reports (>= 1): the contracted downstream rates of its
 * sessions in kbit/s (a session without a GBR DL counted as gbr_default), the
 * session count, or the file's number. */
static uint64_t
weight_of_group(const struct group *g)
{
	uint16_t ap = g->c.kind == SHARE_KIND_SERVER ? (uint16_t)HQOS_UNBOUND : g->c.access_port;
	uint64_t w;

	switch (g->c.weight_mode) {
	case SHARE_WEIGHT_FIXED:
		w = g->c.weight;
		break;
	case SHARE_WEIGHT_SESSIONS:
		w = g->c.kind == SHARE_KIND_SERVER ? sh.a->hqos->n_allocated
						   : hqos_access_port_pipes(sh.a->hqos, ap);
		break;
	default:
		w = hqos_access_port_guaranteed(sh.a->hqos, ap, g->c.gbr_default) / 1000;
		break;
	}
	return w ? w : 1;
}

/* --- the exchange ------------------------------------------------------------ */

static void
rate_apply(struct group *g, uint64_t Bps)
{
	if (Bps == g->applied)
		return;
	if (group_rate_set(g, Bps * 8) != 0) {
		g->rate_errors++;
		return;
	}
	__atomic_store_n(&g->applied, Bps, __ATOMIC_RELAXED);
	g->rate_changes++;
}

static void
sample(struct group *g, uint64_t now, uint64_t served)
{
	struct sample *s = &g->s[g->s_head];

	s->tsc = now;
	s->offered = offered_bytes(g);
	s->served = served;
	g->s_head = (g->s_head + 1) % SAMPLES;
	if (g->s_count < SAMPLES)
		g->s_count++;
	if (g->trace != NULL && g->n_trace < TRACE_MAX)
		g->trace[g->n_trace++] = (struct trace_rec){now, served, g->applied};
}

/* Rates over the window ending at the newest sample. */
static void
measure(struct group *g)
{
	const struct sample *new = &g->s[(g->s_head + SAMPLES - 1) % SAMPLES], *old = new;
	uint32_t k;

	for (k = 1; k < g->s_count; k++) {
		const struct sample *s = &g->s[(g->s_head + SAMPLES - 1 - k) % SAMPLES];

		old = s;
		if (new->tsc - s->tsc >= g->window_tsc)
			break;
	}
	if (new->tsc <= old->tsc)
		return;
	g->demand = (new->offered - old->offered) * sh.hz / (new->tsc - old->tsc);
	g->served = (new->served - old->served) * sh.hz / (new->tsc - old->tsc);
	if (g->pipe_cap < g->demand)
		g->demand = g->pipe_cap;
}

static struct group *
group_find(uint8_t kind, uint16_t share_id)
{
	uint32_t i;

	for (i = 0; i < sh.n; i++)
		if (sh.g[i].c.kind == kind && sh.g[i].c.share_id == share_id)
			return &sh.g[i];
	return NULL;
}

static void
receive(uint64_t now)
{
	uint8_t buf[SHARE_MSG_LEN + 1];
	struct sockaddr_in from;
	socklen_t fl;
	ssize_t n;
	int k;

	for (k = 0; k < 256; k++) {
		struct share_report r;
		struct group *g;
		enum share_err e;
		uint16_t id;
		uint8_t kind;

		fl = sizeof(from);
		n = recvfrom(sh.fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
		if (n < 0)
			return;
		sh.rx++;
		e = share_peek(buf, (size_t)n, &kind, &id);
		g = e == SHARE_OK ? group_find(kind, id) : NULL;
		if (e == SHARE_OK && g == NULL)
			e = SHARE_ERR_ID;
		if (e == SHARE_OK)
			e = share_decode(buf, (size_t)n, kind, id, g->c.n_peers, g->c.self, &r);
		if (e != SHARE_OK) {
			sh.rx_bad[e]++;
			if (e == SHARE_ERR_INDEX)
				g->rx_bad_index++;
			continue;
		}
		if (ntohl(from.sin_addr.s_addr) != g->c.peer_addr[r.index] ||
		    ntohs(from.sin_port) != g->c.peer_port[r.index]) {
			g->rx_not_allowed++;
			continue;
		}
		g->p[r.index].last = r;
		g->p[r.index].heard_tsc = now;
		g->p[r.index].rx++;
		g->rx++;
	}
}

static void
send_report(struct group *g, uint32_t heard)
{
	struct share_report r = {
		.index = (uint8_t)g->c.self,
		.kind = g->c.kind,
		.share_id = g->c.share_id,
		.seq = ++g->seq,
		.heard = heard,
		.weight = g->weight,
		.demand = g->demand,
		.served = g->served,
		.applied = g->applied,
		.stat = g->stat[g->c.self],
	};
	uint8_t buf[SHARE_MSG_LEN];
	uint32_t i;

	share_encode(&r, buf);
	for (i = 0; i < g->c.n_peers; i++) {
		struct sockaddr_in to = {
			.sin_family = AF_INET,
			.sin_port = htons(g->c.peer_port[i]),
			.sin_addr.s_addr = htonl(g->c.peer_addr[i]),
		};

		if (i == g->c.self)
			continue;
		if (sendto(sh.fd, buf, sizeof(buf), 0, (struct sockaddr *)&to, sizeof(to)) ==
		    (ssize_t)sizeof(buf))
			g->tx++;
		else
			g->tx_errors++;
	}
}

static void
round_run(struct group *g, uint64_t now)
{
	struct share_peer peers[SHARE_MAX_PEERS];
	uint64_t target[SHARE_MAX_PEERS], applied[SHARE_MAX_PEERS];
	uint32_t heard_of[SHARE_MAX_PEERS], present = 0, i, self = g->c.self, n = g->c.n_peers;

	if (g->rounds % PIPE_RATE_EVERY == 0)
		g->pipe_cap = pipe_rate(g) / 8;
	g->rounds++;
	measure(g);
	g->weight = weight_of_group(g);
	for (i = 0; i < n; i++) {
		const struct peer_state *p = &g->p[i];
		int fresh = i == self || (p->heard_tsc != 0 && now - p->heard_tsc <= g->silent_tsc);

		peers[i].present = (uint8_t)fresh;
		peers[i].stat = g->stat[i];
		if (i == self) {
			peers[i].weight = g->weight;
			peers[i].demand = g->demand;
			applied[i] = g->applied;
		} else {
			peers[i].weight = p->last.weight;
			peers[i].demand = p->last.demand;
			applied[i] = fresh ? p->last.applied : g->stat[i];
		}
		if (fresh)
			present |= 1u << i;
	}
	for (i = 0; i < n; i++)
		heard_of[i] = i == self ? present : g->p[i].last.heard;
	g->consistent = (uint32_t)share_view_consistent(present, heard_of, n);
	share_divide(g->rate, peers, n, target);
	if (!g->consistent) {
		g->inconsistent_rounds++;
		for (i = 0; i < n; i++)
			if (target[i] > g->stat[i])
				target[i] = g->stat[i];
	}
	g->target = target[self];
	rate_apply(g, share_step(g->rate, peers, n, self, target, applied));
	send_report(g, present);
}

/* --- lifecycle --------------------------------------------------------------- */

static int
group_init(struct app *a, struct group *g, uint32_t gi)
{
	uint32_t i;

	g->rate = g->c.port_rate / 8;
	for (i = 0; i < g->c.n_peers; i++)
		g->stat[i] = g->c.stat[i] / 8;
	g->interval_tsc = sh.hz * g->c.interval_ms / 1000;
	g->silent_tsc = g->interval_tsc * g->c.silent_intervals;
	g->window_tsc =
		sh.hz *
		(2 * g->c.interval_ms > MIN_WINDOW_MS ? 2 * g->c.interval_ms : MIN_WINDOW_MS) /
		1000;
	g->pipe_cap = UINT64_MAX;
	if (g->c.kind == SHARE_KIND_SERVER && g->c.port_rate > a->hqos->port_rate) {
		fprintf(stderr,
			"bng-dp: --qos-share [qos_share] %u: server_port port_rate %" PRIu64
			" bit/s is above the instance's port_rate %" PRIu64
			" bit/s, the pacer's ceiling: set [instance] port_rate to the server "
			"port's rate\n",
			gi + 1, g->c.port_rate, a->hqos->port_rate);
		return -1;
	}
	if (group_rate_set(g, g->stat[g->c.self] * 8) != 0) {
		fprintf(stderr,
			"bng-dp: --qos-share [qos_share] %u: the static share %" PRIu64
			" bit/s is refused, or the HQoS scheduler cannot change a subport rate at "
			"run time (use --hqos hsched; the server_port pacer works with either)\n",
			gi + 1, g->c.stat[g->c.self]);
		return -1;
	}
	g->applied = g->stat[g->c.self];
	if (g->c.trace[0] != '\0') {
		g->trace = calloc(TRACE_MAX, sizeof(*g->trace));
		if (g->trace == NULL) {
			fprintf(stderr, "bng-dp: --qos-share: no memory for the trace\n");
			return -1;
		}
	}
	g->next_round = rte_rdtsc();
	return 0;
}

int
share_ctl_init(struct app *a)
{
	static struct share_file f;
	struct sockaddr_in sa = {.sin_family = AF_INET};
	char err[512];
	uint32_t i;

	if (a->opts.qos_share_path == NULL)
		return 0;
	if (share_conf_load(a->opts.qos_share_path, a->cfg->n_access_ports, &f, err, sizeof(err)) !=
	    0) {
		fprintf(stderr, "bng-dp: --qos-share: %s\n", err);
		return -1;
	}
	sh.a = a;
	sh.hz = rte_get_tsc_hz();
	sh.n = f.n;
	for (i = 0; i < f.n; i++) {
		sh.g[i].c = f.g[i];
		if (group_init(a, &sh.g[i], i) != 0)
			return -1;
	}
	/* One socket for every group (share_conf.c checks they name one address). */
	sh.fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	sa.sin_port = htons(f.g[0].peer_port[f.g[0].self]);
	sa.sin_addr.s_addr = htonl(f.g[0].peer_addr[f.g[0].self]);
	if (sh.fd < 0 || bind(sh.fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		fprintf(stderr, "bng-dp: --qos-share: socket %s:%u: %s\n", inet_ntoa(sa.sin_addr),
			f.g[0].peer_port[f.g[0].self], strerror(errno));
		return -1;
	}
	if (rte_telemetry_register_cmd("/bng/qos_share", tel_share_gated,
				       "Sharing of port rates with peer instances. Param: group "
				       "(default 0)") != 0) {
		fprintf(stderr, "bng-dp: telemetry: /bng/qos_share refused\n");
		return -1;
	}
	{
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		sh.mono_tsc = rte_rdtsc();
		sh.mono_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	}
	sh.on = 1;
	return 0;
}

void
share_ctl_tick(struct app *a)
{
	struct hqos_worker_counters w;
	uint64_t now;
	uint32_t i;

	(void)a;
	if (!sh.on)
		return;
	now = rte_rdtsc();
	hqos_worker_counters_read(sh.a->hqos, &w);
	for (i = 0; i < sh.n; i++)
		sample(&sh.g[i], now, w.deq_wire_bytes);
	receive(now);
	for (i = 0; i < sh.n; i++) {
		struct group *g = &sh.g[i];

		if (!g->c.exchange || now < g->next_round)
			continue; /* exchange off: the static share, traced */
		round_run(g, now);
		g->next_round += g->interval_tsc;
		if (g->next_round < now) /* late (the process was not running): no catch-up burst */
			g->next_round = now + g->interval_tsc;
	}
}

static void
trace_write(struct group *g, uint32_t gi)
{
	FILE *f = fopen(g->c.trace, "w");

	if (f != NULL) {
		fprintf(f,
			"# tsc_hz %" PRIu64 " self %u port_rate_bps %" PRIu64 " mono_ns %" PRIu64
			" tsc %" PRIu64 " group %u kind %s\n",
			sh.hz, g->c.self, g->c.port_rate, sh.mono_ns, sh.mono_tsc, gi,
			kind_name(g->c.kind));
		for (uint32_t i = 0; i < g->n_trace; i++)
			fprintf(f, "%" PRIu64 " %" PRIu64 " %" PRIu64 "\n", g->trace[i].tsc,
				g->trace[i].served, g->trace[i].applied * 8);
		fclose(f);
	} else {
		fprintf(stderr, "bng-dp: --qos-share trace %s: %s\n", g->c.trace, strerror(errno));
	}
}

void
share_ctl_fini(struct app *a)
{
	uint32_t i;

	(void)a;
	for (i = 0; i < sh.n; i++) {
		struct group *g = &sh.g[i];

		if (g->trace != NULL) {
			if (sh.on)
				trace_write(g, i);
			free(g->trace);
			g->trace = NULL;
		}
	}
	if (sh.fd >= 0)
		close(sh.fd);
	sh.fd = -1;
	sh.on = 0;
}

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
	uint64_t offered; /* access port: accepted + refused bytes, FCS included */
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

static struct {
	int on;
	int fd;
	struct share_conf c;
	struct app *a;
	uint64_t hz;
	uint64_t interval_tsc, silent_tsc, window_tsc;
	uint64_t next_round;
	uint64_t rate;			/* R, bytes/s */
	uint64_t stat[SHARE_MAX_PEERS]; /* bytes/s */
	struct peer_state p[SHARE_MAX_PEERS];
	uint64_t applied; /* this instance's subport rate, bytes/s */
	uint64_t target;
	uint64_t demand, served, weight;
	uint64_t pipe_cap; /* bytes/s, sum of the port's pipe rates */
	uint32_t seq, rounds, consistent;
	struct sample s[SAMPLES];
	uint32_t s_head; /* next slot */
	uint32_t s_count;
	struct trace_rec *trace;
	uint32_t n_trace;
	uint64_t mono_ns, mono_tsc; /* CLOCK_MONOTONIC and TSC at start: trace readers align */
	/* counters (control thread writes, telemetry reads) */
	uint64_t tx, tx_errors, rx, rx_not_allowed, rate_changes, rate_errors, inconsistent_rounds;
	uint64_t rx_bad[SHARE_ERR_MAX];
} sh = {.fd = -1};

/* --- telemetry ------------------------------------------------------------- */

static int
tel_share(const char *cmd, const char *params, struct rte_tel_data *d)
{
	uint64_t now = rte_rdtsc();
	char name[64];
	uint32_t i;

	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "access_port", sh.c.access_port);
	rte_tel_data_add_dict_u64(d, "self", sh.c.self);
	rte_tel_data_add_dict_u64(d, "port_rate_bps", sh.c.port_rate);
	rte_tel_data_add_dict_u64(d, "static_bps", sh.stat[sh.c.self] * 8);
	rte_tel_data_add_dict_u64(d, "applied_bps",
				  __atomic_load_n(&sh.applied, __ATOMIC_RELAXED) * 8);
	rte_tel_data_add_dict_u64(d, "target_bps", sh.target * 8);
	rte_tel_data_add_dict_u64(d, "demand_bps", sh.demand * 8);
	rte_tel_data_add_dict_u64(d, "served_bps", sh.served * 8);
	rte_tel_data_add_dict_u64(d, "weight", sh.weight);
	rte_tel_data_add_dict_u64(d, "consistent", sh.consistent);
	rte_tel_data_add_dict_u64(d, "rounds", sh.rounds);
	rte_tel_data_add_dict_u64(d, "inconsistent_rounds", sh.inconsistent_rounds);
	rte_tel_data_add_dict_u64(d, "rate_changes", sh.rate_changes);
	rte_tel_data_add_dict_u64(d, "rate_errors", sh.rate_errors);
	rte_tel_data_add_dict_u64(d, "tx", sh.tx);
	rte_tel_data_add_dict_u64(d, "tx_errors", sh.tx_errors);
	rte_tel_data_add_dict_u64(d, "rx", sh.rx);
	rte_tel_data_add_dict_u64(d, "rx_not_allowed", sh.rx_not_allowed);
	for (i = 1; i < SHARE_ERR_MAX; i++) {
		snprintf(name, sizeof(name), "rx_%s", share_err_name((enum share_err)i));
		rte_tel_data_add_dict_u64(d, name, sh.rx_bad[i]);
	}
	for (i = 0; i < sh.c.n_peers; i++) {
		const struct peer_state *p = &sh.p[i];

		if (i == sh.c.self)
			continue;
		snprintf(name, sizeof(name), "peer%u_applied_bps", i);
		rte_tel_data_add_dict_u64(d, name, p->last.applied * 8);
		snprintf(name, sizeof(name), "peer%u_demand_bps", i);
		rte_tel_data_add_dict_u64(d, name, p->last.demand * 8);
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

/* --- the exchange ------------------------------------------------------------ */

static void
rate_apply(uint64_t Bps)
{
	int rc;

	if (Bps == sh.applied)
		return;
	rc = hqos_access_port_rate_set(sh.a->hqos, sh.c.access_port, Bps * 8);
	if (rc != 0) {
		sh.rate_errors++;
		return;
	}
	__atomic_store_n(&sh.applied, Bps, __ATOMIC_RELAXED);
	sh.rate_changes++;
}

static uint64_t
offered_bytes(void)
{
	struct hqos_tc_counters t;
	uint64_t b = 0;
	uint32_t i;

	if (hqos_stats_read(sh.a->hqos, HQOS_SCOPE_ACCESS_PORT, sh.c.access_port, &t) != 0)
		return 0;
	for (i = 0; i < DP_NUM_TCS; i++)
		b += t.bytes[i] + t.drop_bytes[i] + FCS * (t.pkts[i] + t.drop_pkts[i]);
	return b;
}

static void
sample(uint64_t now)
{
	struct hqos_worker_counters w;
	struct sample *s = &sh.s[sh.s_head];

	hqos_worker_counters_read(sh.a->hqos, &w);
	s->tsc = now;
	s->offered = offered_bytes();
	s->served = w.deq_wire_bytes;
	sh.s_head = (sh.s_head + 1) % SAMPLES;
	if (sh.s_count < SAMPLES)
		sh.s_count++;
	if (sh.trace != NULL && sh.n_trace < TRACE_MAX)
		sh.trace[sh.n_trace++] = (struct trace_rec){now, w.deq_wire_bytes, sh.applied};
}

/* Rates over the window ending at the newest sample. */
static void
measure(void)
{
	const struct sample *new = &sh.s[(sh.s_head + SAMPLES - 1) % SAMPLES], *old = new;
	uint32_t k;

	for (k = 1; k < sh.s_count; k++) {
		const struct sample *s = &sh.s[(sh.s_head + SAMPLES - 1 - k) % SAMPLES];

		old = s;
		if (new->tsc - s->tsc >= sh.window_tsc)
			break;
	}
	if (new->tsc <= old->tsc)
		return;
	sh.demand = (new->offered - old->offered) * sh.hz / (new->tsc - old->tsc);
	sh.served = (new->served - old->served) * sh.hz / (new->tsc - old->tsc);
	if (sh.pipe_cap < sh.demand)
		sh.demand = sh.pipe_cap;
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
		enum share_err e;

		fl = sizeof(from);
		n = recvfrom(sh.fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
		if (n < 0)
			return;
		sh.rx++;
		e = share_decode(buf, (size_t)n, sh.c.share_id, sh.c.n_peers, sh.c.self, &r);
		if (e != SHARE_OK) {
			sh.rx_bad[e]++;
			continue;
		}
		if (ntohl(from.sin_addr.s_addr) != sh.c.peer_addr[r.index] ||
		    ntohs(from.sin_port) != sh.c.peer_port[r.index]) {
			sh.rx_not_allowed++;
			continue;
		}
		sh.p[r.index].last = r;
		sh.p[r.index].heard_tsc = now;
		sh.p[r.index].rx++;
	}
}

static void
send_report(uint32_t heard)
{
	struct share_report r = {
		.index = (uint8_t)sh.c.self,
		.share_id = sh.c.share_id,
		.seq = ++sh.seq,
		.heard = heard,
		.weight = sh.weight,
		.demand = sh.demand,
		.served = sh.served,
		.applied = sh.applied,
		.stat = sh.stat[sh.c.self],
	};
	uint8_t buf[SHARE_MSG_LEN];
	uint32_t i;

	share_encode(&r, buf);
	for (i = 0; i < sh.c.n_peers; i++) {
		struct sockaddr_in to = {
			.sin_family = AF_INET,
			.sin_port = htons(sh.c.peer_port[i]),
			.sin_addr.s_addr = htonl(sh.c.peer_addr[i]),
		};

		if (i == sh.c.self)
			continue;
		if (sendto(sh.fd, buf, sizeof(buf), 0, (struct sockaddr *)&to, sizeof(to)) ==
		    (ssize_t)sizeof(buf))
			sh.tx++;
		else
			sh.tx_errors++;
	}
}

static void
round_run(uint64_t now)
{
	struct share_peer peers[SHARE_MAX_PEERS];
	uint64_t target[SHARE_MAX_PEERS], applied[SHARE_MAX_PEERS];
	uint32_t heard_of[SHARE_MAX_PEERS], present = 0, i, self = sh.c.self, n = sh.c.n_peers;

	if (sh.rounds % PIPE_RATE_EVERY == 0)
		sh.pipe_cap = hqos_access_port_pipe_rate(sh.a->hqos, sh.c.access_port) / 8;
	sh.rounds++;
	measure();
	sh.weight =
		sh.c.weight ? sh.c.weight : hqos_access_port_pipes(sh.a->hqos, sh.c.access_port);
	if (sh.weight == 0)
		sh.weight = 1;
	for (i = 0; i < n; i++) {
		const struct peer_state *p = &sh.p[i];
		int fresh = i == self || (p->heard_tsc != 0 && now - p->heard_tsc <= sh.silent_tsc);

		peers[i].present = (uint8_t)fresh;
		peers[i].stat = sh.stat[i];
		if (i == self) {
			peers[i].weight = sh.weight;
			peers[i].demand = sh.demand;
			applied[i] = sh.applied;
		} else {
			peers[i].weight = p->last.weight;
			peers[i].demand = p->last.demand;
			applied[i] = fresh ? p->last.applied : sh.stat[i];
		}
		if (fresh)
			present |= 1u << i;
	}
	for (i = 0; i < n; i++)
		heard_of[i] = i == self ? present : sh.p[i].last.heard;
	sh.consistent = (uint32_t)share_view_consistent(present, heard_of, n);
	share_divide(sh.rate, peers, n, target);
	if (!sh.consistent) {
		sh.inconsistent_rounds++;
		for (i = 0; i < n; i++)
			if (target[i] > sh.stat[i])
				target[i] = sh.stat[i];
	}
	sh.target = target[self];
	rate_apply(share_step(sh.rate, peers, n, self, target, applied));
	send_report(present);
}

/* --- lifecycle --------------------------------------------------------------- */

int
share_ctl_init(struct app *a)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	char err[512];
	uint32_t i;

	if (a->opts.qos_share_path == NULL)
		return 0;
	if (share_conf_load(a->opts.qos_share_path, a->cfg->n_access_ports, &sh.c, err,
			    sizeof(err)) != 0) {
		fprintf(stderr, "bng-dp: --qos-share: %s\n", err);
		return -1;
	}
	sh.a = a;
	sh.hz = rte_get_tsc_hz();
	sh.rate = sh.c.port_rate / 8;
	for (i = 0; i < sh.c.n_peers; i++)
		sh.stat[i] = sh.c.stat[i] / 8;
	sh.interval_tsc = sh.hz * sh.c.interval_ms / 1000;
	sh.silent_tsc = sh.interval_tsc * sh.c.silent_intervals;
	sh.window_tsc =
		sh.hz *
		(2 * sh.c.interval_ms > MIN_WINDOW_MS ? 2 * sh.c.interval_ms : MIN_WINDOW_MS) /
		1000;
	sh.pipe_cap = UINT64_MAX;
	if (hqos_access_port_rate_set(a->hqos, sh.c.access_port, sh.stat[sh.c.self] * 8) != 0) {
		fprintf(stderr,
			"bng-dp: --qos-share: the HQoS scheduler cannot change a subport rate at "
			"run "
			"time (use --hqos hsched), or the static share %" PRIu64
			" bit/s is refused\n",
			sh.c.stat[sh.c.self]);
		return -1;
	}
	sh.applied = sh.stat[sh.c.self];
	sh.fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	sa.sin_port = htons(sh.c.peer_port[sh.c.self]);
	sa.sin_addr.s_addr = htonl(sh.c.peer_addr[sh.c.self]);
	if (sh.fd < 0 || bind(sh.fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		fprintf(stderr, "bng-dp: --qos-share: socket %s:%u: %s\n", inet_ntoa(sa.sin_addr),
			sh.c.peer_port[sh.c.self], strerror(errno));
		return -1;
	}
	if (sh.c.trace[0] != '\0') {
		sh.trace = calloc(TRACE_MAX, sizeof(*sh.trace));
		if (sh.trace == NULL) {
			fprintf(stderr, "bng-dp: --qos-share: no memory for the trace\n");
			return -1;
		}
	}
	if (rte_telemetry_register_cmd("/bng/qos_share", tel_share_gated,
				       "Sharing of an access port's rate with peer instances") !=
	    0) {
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
	sh.next_round = rte_rdtsc();
	return 0;
}

void
share_ctl_tick(struct app *a)
{
	uint64_t now;

	(void)a;
	if (!sh.on)
		return;
	now = rte_rdtsc();
	sample(now);
	if (!sh.c.exchange)
		return; /* the static share, traced */
	receive(now);
	if (now >= sh.next_round) {
		round_run(now);
		sh.next_round += sh.interval_tsc;
		if (sh.next_round < now) /* late (the process was not running): no catch-up burst */
			sh.next_round = now + sh.interval_tsc;
	}
}

void
share_ctl_fini(struct app *a)
{
	(void)a;
	if (sh.trace != NULL) {
		FILE *f = fopen(sh.c.trace, "w");

		if (f != NULL) {
			fprintf(f,
				"# tsc_hz %" PRIu64 " self %u port_rate_bps %" PRIu64
				" mono_ns %" PRIu64 " tsc %" PRIu64 "\n",
				sh.hz, sh.c.self, sh.c.port_rate, sh.mono_ns, sh.mono_tsc);
			for (uint32_t i = 0; i < sh.n_trace; i++)
				fprintf(f, "%" PRIu64 " %" PRIu64 " %" PRIu64 "\n", sh.trace[i].tsc,
					sh.trace[i].served, sh.trace[i].applied * 8);
			fclose(f);
		} else {
			fprintf(stderr, "bng-dp: --qos-share trace %s: %s\n", sh.c.trace,
				strerror(errno));
		}
		free(sh.trace);
		sh.trace = NULL;
	}
	if (sh.fd >= 0)
		close(sh.fd);
	sh.fd = -1;
	sh.on = 0;
}

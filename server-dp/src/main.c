/*
 * bng-dp: the bngpod user plane, one process per DP instance.
 *
 *   bng-dp [EAL options] -- --config dp/<name>.ini [--port DEVICE]
 *          [--sessions N] [--idle-sleep-us N] [--mbufs N] [--hqos-qsize N] [--hqos NAME]
 *          [--hqos-batch N|auto]
 *          [--qos-share FILE]
 *
 * Start-up order: EAL, configuration (refused as a whole on any error),
 * tables, data port, rings, then the worker on its lcore and the control
 * loop on the main lcore. SIGTERM/SIGINT stop both; everything is released
 * before exit, so a restarted instance comes up empty with a new Recovery
 * Time Stamp.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "app.h"
#include "app_init.h"
#include "control.h"
#include "subs.h"
#include "telemetry.h"
#include "worker.h"

#define MAX_SESSIONS (1u << 20)

static struct app the_app;
static char runtime_dir[PATH_MAX];

/*
 * EAL leaves its runtime directory behind, emptied by the telemetry library's
 * own exit handler. Registered before rte_eal_init(), so it runs after that
 * handler, and the directory can be removed.
 */
static void
runtime_dir_remove(void)
{
	if (runtime_dir[0] != '\0')
		rmdir(runtime_dir);
}

static void
on_signal(int sig)
{
	(void)sig;
	the_app.stop = true;
}

static void
usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [EAL options] -- --config FILE [--port DEVICE] [--sessions N]\n"
		"          [--idle-sleep-us N] [--mbufs N] [--hqos-qsize N] [--hqos NAME]\n"
		"  --config FILE        dp/<name>.ini written by `bngpod generate`\n"
		"  --port DEVICE        DPDK device of the data port (default: the only port)\n"
		"  --sessions N         session capacity, 1..%u (default %u)\n"
		"  --idle-sleep-us N    sleep N us when a poll finds nothing, 0..100000\n"
		"                       (default 0: busy-poll)\n"
		"  --mbufs N            mbufs in the packet pool, 1024..4194304 (default 16384)\n"
		"  --hqos-qsize N       HQoS frames per queue, a power of two 2..4096 (default "
		"64;\n"
		"                       hsched takes at most 128)\n"
		"  --hqos NAME          HQoS scheduler: hsched (default) or rte_sched\n"
		"  --hqos-batch N|auto  HQoS dequeue batch: auto (default: from the load) or a\n"
		"                       fixed N frames, 1..512 (1: dequeue every iteration)\n"
		"  --qos-share FILE     share an access port's rate with peer instances "
		"(docs/dp/hqos.md)\n"
		"  --workers N          worker lcores: 1 (default: every stage on one) or 2\n"
		"                       (upstream | downstream + HQoS; the port needs 2 TX\n"
		"                       queues, e.g. net_af_packet qpairs=2)\n",
		prog, MAX_SESSIONS, SESSION_DEFAULT_CAPACITY);
}

/* Strict unsigned decimal in [lo, hi]; 0 on success. */
static int
parse_u32(const char *opt, const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (s == NULL || *s < '0' || *s > '9') {
		fprintf(stderr, "bng-dp: %s: '%s' is not a number\n", opt, s ? s : "");
		return -1;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "bng-dp: %s: '%s' is not a number in %" PRIu32 "..%" PRIu32 "\n",
			opt, s, lo, hi);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

static int
parse_args(struct app_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"config", required_argument, NULL, 'c'},
		{"port", required_argument, NULL, 'p'},
		{"sessions", required_argument, NULL, 's'},
		{"idle-sleep-us", required_argument, NULL, 'i'},
		{"mbufs", required_argument, NULL, 'm'},
		{"hqos-qsize", required_argument, NULL, 'q'},
		{"hqos-batch", required_argument, NULL, 'B'},
		{"hqos", required_argument, NULL, 'H'},
		{"qos-share", required_argument, NULL, 'S'},
		{"workers", required_argument, NULL, 'W'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	uint32_t v;
	int c;

	o->sessions = SESSION_DEFAULT_CAPACITY;
	o->workers = 1;
	o->mbufs = 16384;
	o->qsize = HQOS_DEFAULT_QSIZE;
	o->rx_desc = 1024;
	o->tx_desc = 1024;
	optind = 1;
	while ((c = getopt_long(argc, argv, "c:p:s:i:m:q:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->config_path = optarg;
			break;
		case 'p':
			o->port_name = optarg;
			break;
		case 's':
			if (parse_u32("--sessions", optarg, 1, MAX_SESSIONS, &o->sessions) != 0)
				return -1;
			break;
		case 'i':
			if (parse_u32("--idle-sleep-us", optarg, 0, 100000, &o->idle_sleep_us) != 0)
				return -1;
			break;
		case 'm':
			if (parse_u32("--mbufs", optarg, 1024, 4194304, &v) != 0)
				return -1;
			o->mbufs = v;
			break;
		case 'q':
			if (parse_u32("--hqos-qsize", optarg, 2, 4096, &v) != 0)
				return -1;
			if ((v & (v - 1)) != 0) {
				fprintf(stderr, "bng-dp: --hqos-qsize: %u is not a power of two\n",
					v);
				return -1;
			}
			o->qsize = (uint16_t)v;
			break;
		case 'H':
			o->hqos_sched = hqos_sched_parse(optarg);
			if (o->hqos_sched == 0) {
				fprintf(stderr, "bng-dp: --hqos: '%s' is not hsched or rte_sched\n",
					optarg);
				return -1;
			}
			break;
		case 'B':
			if (strcmp(optarg, "auto") == 0)
				o->hqos_batch = 0;
			else if (parse_u32("--hqos-batch", optarg, 1, APP_TX_MAX, &o->hqos_batch) !=
				 0)
				return -1;
			break;
		case 'S':
			o->qos_share_path = optarg;
			break;
		case 'W':
			if (parse_u32("--workers", optarg, 1, 2, &o->workers) != 0)
				return -1;
			break;
		case 'h':
			usage(argv[0]);
			exit(0);
		default:
			usage(argv[0]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "bng-dp: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (o->config_path == NULL) {
		fprintf(stderr, "bng-dp: --config is required\n");
		usage(argv[0]);
		return -1;
	}
	return 0;
}

static int
port_find(const char *name, uint16_t *port_id)
{
	uint16_t id, n = 0;

	if (name != NULL) {
		if (rte_eth_dev_get_port_by_name(name, port_id) != 0) {
			fprintf(stderr, "bng-dp: --port %s: no such DPDK device\n", name);
			return -1;
		}
		return 0;
	}
	RTE_ETH_FOREACH_DEV(id)
	{
		*port_id = id;
		n++;
	}
	if (n != 1) {
		fprintf(stderr, "bng-dp: %u DPDK ports; name the data port with --port\n", n);
		return -1;
	}
	return 0;
}

/*
 * One RX and one TX queue per worker lcore, promiscuous: the port receives
 * frames for every line group's AC and core MAC, which are not the port's own
 * address. With two workers, each transmits on its own TX queue and the
 * upstream worker polls both RX queues (net_af_packet qpairs=2 spreads
 * received frames over its two sockets).
 */
static int
port_init(struct app *a)
{
	struct rte_eth_conf conf = {0};
	struct rte_eth_dev_info info;
	uint16_t rxd = a->opts.rx_desc, txd = a->opts.tx_desc;
	uint16_t q, nq = (uint16_t)a->opts.workers;
	int socket, rc;

	rc = rte_eth_dev_info_get(a->port_id, &info);
	if (rc != 0)
		goto fail;
	if (info.max_tx_queues < nq || info.max_rx_queues < nq) {
		fprintf(stderr,
			"bng-dp: --workers %u needs %u TX and RX queues on port %u, it has %u and "
			"%u (net_af_packet: qpairs=%u)\n",
			nq, nq, a->port_id, info.max_tx_queues, info.max_rx_queues, nq);
		return -1;
	}
	rc = rte_eth_dev_configure(a->port_id, nq, nq, &conf);
	if (rc != 0)
		goto fail;
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(a->port_id, &rxd, &txd);
	if (rc != 0)
		goto fail;
	socket = rte_eth_dev_socket_id(a->port_id);
	if (socket < 0)
		socket = (int)rte_socket_id();
	for (q = 0; q < nq; q++) {
		rc = rte_eth_rx_queue_setup(a->port_id, q, rxd, (unsigned int)socket, NULL,
					    a->pool);
		if (rc != 0)
			goto fail;
		rc = rte_eth_tx_queue_setup(a->port_id, q, txd, (unsigned int)socket, NULL);
		if (rc != 0)
			goto fail;
	}
	a->n_rx_queues = nq;
	rc = rte_eth_dev_start(a->port_id);
	if (rc != 0)
		goto fail;
	a->port_ready = true;
	rc = rte_eth_promiscuous_enable(a->port_id);
	if (rc != 0 && rc != -ENOTSUP)
		goto fail;
	return 0;
fail:
	fprintf(stderr, "bng-dp: port %u: %s\n", a->port_id, rte_strerror(-rc));
	return -1;
}

/*
 * The worker lcore: the configuration's first worker core, enabled in the
 * EAL. With --workers 2 the downstream worker's: the configuration's second
 * worker core, or else the next EAL worker lcore (e.g. --lcores 0@0,1@1,2@0).
 */
static int
worker_lcore_pick(struct app *a)
{
	unsigned int lc = a->cfg->instance.worker_cores[0];

	if (a->cfg->instance.n_worker_cores > a->opts.workers)
		fprintf(stderr, "bng-dp: %u worker cores configured; --workers %u uses %u\n",
			a->cfg->instance.n_worker_cores, a->opts.workers, a->opts.workers);
	if (lc >= RTE_MAX_LCORE || !rte_lcore_is_enabled(lc) || lc == rte_get_main_lcore()) {
		fprintf(stderr,
			"bng-dp: worker core %u of [instance] is not an EAL worker lcore "
			"(give the EAL -l MAIN,%u)\n",
			lc, lc);
		return -1;
	}
	a->worker_lcore = lc;
	if (a->opts.workers < 2)
		return 0;
	lc = a->cfg->instance.n_worker_cores > 1 ? a->cfg->instance.worker_cores[1]
						 : rte_get_next_lcore(a->worker_lcore, 1, 1);
	if (lc >= RTE_MAX_LCORE || !rte_lcore_is_enabled(lc) || lc == rte_get_main_lcore() ||
	    lc == a->worker_lcore) {
		fprintf(stderr,
			"bng-dp: --workers 2: no second EAL worker lcore for the downstream "
			"worker (give the EAL e.g. --lcores 0@0,%u@1,%u@0)\n",
			a->worker_lcore, a->worker_lcore + 1);
		return -1;
	}
	a->down_lcore = lc;
	return 0;
}

static int
app_setup(struct app *a)
{
	char err[512];

	/* Arguments first, before the tables take their memory. */
	if (port_find(a->opts.port_name, &a->port_id) != 0)
		return -1;
	if (app_init(a, err, sizeof(err)) != 0) {
		fprintf(stderr, "bng-dp: %s\n", err);
		return -1;
	}
	if (worker_lcore_pick(a) != 0)
		return -1;
	if (port_init(a) != 0)
		return -1;
	if (a->opts.workers > 1 && worker_split_init(a, err, sizeof(err)) != 0) {
		fprintf(stderr, "bng-dp: %s\n", err);
		return -1;
	}
	return 0;
}

static void
app_teardown(struct app *a)
{
	if (a->pool != NULL && a->port_ready) {
		rte_eth_dev_stop(a->port_id);
		rte_eth_dev_close(a->port_id);
	}
	worker_split_fini(a);
	app_fini(a);
}

int
main(int argc, char **argv)
{
	struct app *a = &the_app;
	int n, rc = 1;

	atexit(runtime_dir_remove);
	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "bng-dp: EAL: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	snprintf(runtime_dir, sizeof(runtime_dir), "%s", rte_eal_get_runtime_dir());
	argc -= n;
	argv += n;
	argv[0] = "bng-dp";
	if (parse_args(&a->opts, argc, argv) != 0)
		goto out;
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	if (app_setup(a) != 0)
		goto out;
	if (telemetry_register(a) != 0)
		goto out;
	if (control_init(a) != 0)
		goto out;
	printf("bng-dp: instance %s (id %" PRIu32 ") up: port %u, worker lcore %u, %u sessions\n",
	       a->cfg->instance.name, a->cfg->instance.id, a->port_id, a->worker_lcore,
	       a->opts.sessions);
	if (a->down != NULL)
		printf("bng-dp: split workers: upstream lcore %u, downstream and HQoS lcore %u\n",
		       a->worker_lcore, a->down_lcore);
	fflush(stdout);
	rc = rte_eal_remote_launch(worker_main, a, a->worker_lcore);
	if (rc == 0 && a->down != NULL) {
		rc = rte_eal_remote_launch(worker_down_main, a->down, a->down_lcore);
		if (rc != 0) {
			a->stop = true;
			rte_eal_wait_lcore(a->worker_lcore);
		}
	}
	if (rc != 0) {
		fprintf(stderr, "bng-dp: worker launch: %s\n", rte_strerror(-rc));
		rc = 1;
		goto out_control;
	}
	control_run(a); /* returns when a->stop is set */
	a->stop = true;
	rte_eal_wait_lcore(a->worker_lcore);
	if (a->down != NULL)
		rte_eal_wait_lcore(a->down_lcore);
	rc = 0;
out_control:
	telemetry_close();
	control_fini(a);
out:
	telemetry_close(); /* no command reads what app_teardown() frees */
	app_teardown(a);
	rte_eal_cleanup();
	if (rc == 0)
		printf("bng-dp: stopped\n");
	return rc;
}

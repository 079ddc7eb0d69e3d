/*
 * bench_mem: bng-dp's memory for a session capacity, per part and per session.
 *
 *   bench_mem [EAL options] -- --sessions N [--qsize Q] [--hqos hsched|rte_sched]
 *             [--no-install] [--ini PATH]
 *
 * Writes an instance configuration for N sessions (the bench-dp instance of
 * vbng_traffic.py scaled up: access ports of 4096 x k sessions, at most 64, two
 * S-tags of 2048 C-tags per 4096, QoS profile "gold", two ACL rules, two static
 * routes; pool 10.0.0.0/8), then:
 *
 *  1. builds each per-session part alone, as app_init() builds it, and frees it
 *     again: session tables (with the IPv6 tables), HQoS, policers, LCP offload,
 *     RA offload, the PFCP user-plane function; the DPDK heap (bytes allocated,
 *     rte_malloc_get_socket_stats() over all sockets) and the C heap (mallinfo2:
 *     in use, mmapped included) before and after each;
 *  2. builds the whole instance with app_init() (what bng-dp does at start, the
 *     same code): DPDK heap and C heap taken, and the rest (mbuf pool, rings,
 *     routes, ACL, ARP table, fragmentation pools, line maps) as the difference;
 *  3. unless --no-install, installs N sessions through the PFCP user-plane
 *     function's data-path operations (subs_ops.install, where a PFCP Session
 *     Establishment ends; bench_dp does the same) and reads both heaps again:
 *     every table is allocated for the capacity at start, so they do not grow.
 *
 * Prints one JSON line. Bytes are what the allocators handed out (DPDK: in
 * hugepages or, with --no-huge, in its anonymous memory; C heap: calloc()ed
 * tables count whole, resident or not). bench/bench_mem.sh runs it for 64K and
 * 256K sessions and finds the largest capacity within a budget.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "app_init.h"
#include "hqos.h"
#include "lcp.h"
#include "pfcp_up.h"
#include "police.h"
#include "ra.h"
#include "session.h"
#include "subs.h"

#define PER_PORT_UNIT 4096u
#define MAX_PORTS 64u

static struct app the_app;

struct usage {
	uint64_t dpdk; /* DPDK heap bytes allocated */
	uint64_t libc; /* C heap bytes in use */
};

static struct usage
usage_now(void)
{
	struct usage u = {0, 0};
	struct mallinfo2 mi = mallinfo2();
	unsigned int s;

	for (s = 0; s < rte_socket_count(); s++) {
		struct rte_malloc_socket_stats st;

		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(s), &st) == 0)
			u.dpdk += st.heap_allocsz_bytes;
	}
	u.libc = mi.uordblks + mi.hblkhd;
	return u;
}

static struct usage
usage_since(struct usage a)
{
	struct usage b = usage_now();

	return (struct usage){b.dpdk - a.dpdk, b.libc - a.libc};
}

/* Sessions per access port: 4096 x k, as few access ports as that allows (<= 64). */
static uint32_t
per_port(uint32_t n)
{
	uint32_t k = (n + PER_PORT_UNIT * MAX_PORTS - 1) / (PER_PORT_UNIT * MAX_PORTS);

	return PER_PORT_UNIT * (k ? k : 1);
}

static int
write_ini(const char *path, uint32_t n)
{
	uint32_t pp = per_port(n), ports = (n + pp - 1) / pp, tags = pp / 2048, p, t;
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -1;
	fprintf(f,
		"; bench-mem instance: %u sessions, written by bench_mem\n"
		"[instance]\nid = 1\nname = bench\npod = bench\ndata_mac = 02:00:00:00:00:01\n"
		"worker_cores = 1\nport_rate = 100000000000\ncontrol_address = 10.200.0.2\n"
		"control_prefix_len = 24\ncp_address = 10.200.0.1\npfcp_port = 8805\n"
		"vxlan_port = 4789\naccess_ports = %u\nline_groups = 1\nlines = %u\n"
		"qos_profiles = 1\nacl_rules = 2\nroutes = 2\n\n"
		"[core]\nsubnet = 192.0.2.0/24\nrouter_address = 192.0.2.1\nvlan = 0\n\n",
		n, ports, ports * tags);
	for (p = 0; p < ports; p++)
		fprintf(f,
			"[access_port.%u]\nname = access%u\ntpid = 0x88a8\nrate = 10000000000\n\n",
			p, p);
	fprintf(f, "[line_group.0]\nname = lg0\nac_mac = 02:bb:00:00:00:01\n"
		   "core_address = 192.0.2.2\ncore_mac = 02:cc:00:00:00:01\n"
		   "prefixes = 10.0.0.0/8\nqos_profile = gold\n\n");
	for (p = 0; p < ports; p++)
		for (t = 0; t < tags; t++)
			fprintf(f,
				"[line.%u]\ngroup = lg0\naccess_port = access%u\nstag = %u-%u\n"
				"ctag = 100-2147\n\n",
				p * tags + t, p, 100 + p * tags + t, 100 + p * tags + t);
	fprintf(f, "[qos_profile.0]\nname = gold\ndown_rate = 100000000\nup_pir = 50000000\n"
		   "up_cir = 20000000\nup_dscp = keep\ndefault_tc = 12\n"
		   "dscp_map = 34:2 36:2 46:0\ntc_rates = 0:2000000\nbe_weights = 4 2 1 1\n\n"
		   "[acl.0]\naction = deny\ndirection = up\nprotocol = tcp\nsource = 0.0.0.0/0\n"
		   "destination = 0.0.0.0/0\nsource_ports = any\n"
		   "destination_ports = 25-25\n\n"
		   "[acl.1]\naction = deny\ndirection = down\nprotocol = tcp\nsource = 0.0.0.0/0\n"
		   "destination = 0.0.0.0/0\ndestination_ports = any\n"
		   "source_ports = 25-25\n\n"
		   "[route.0]\nprefix = 198.51.100.0/24\nvia = 192.0.2.3\n\n"
		   "[route.1]\nprefix = 203.0.113.0/24\nvia = drop\n");
	return fclose(f);
}

/* Session i of n: its access port's S-tag and C-tag, PPPoE id, MAC, address. */
static void
session_of(uint32_t i, uint32_t n, struct up_sub *u)
{
	uint32_t pp = per_port(n), p = i / pp, j = i % pp;

	memset(u, 0, sizeof(*u));
	u->stag = (uint16_t)(100 + p * (pp / 2048) + j / 2048);
	u->ctag = (uint16_t)(100 + j % 2048);
	u->pppoe_sid = (uint16_t)(1 + j);
	u->mac[0] = 0x02;
	u->mac[1] = 0x10;
	u->mac[2] = (uint8_t)(i >> 24);
	u->mac[3] = (uint8_t)(i >> 16);
	u->mac[4] = (uint8_t)(i >> 8);
	u->mac[5] = (uint8_t)i;
	u->ipv4 = (10u << 24) + 1 + i;
	u->has_ipv4 = true;
}

#define PART(name, expr_create, expr_free)                                                    \
	do {                                                                                  \
		struct usage b0, d;                                                           \
		void *obj;                                                                    \
                                                                                              \
		err[0] = 0;                                                                   \
		b0 = usage_now();                                                             \
		obj = (void *)(expr_create);                                                  \
                                                                                              \
		d = usage_since(b0);                                                          \
		if (obj == NULL) {                                                            \
			fprintf(stderr, "bench_mem: %s: cannot create %s\n", name, err);      \
			return 1;                                                             \
		}                                                                             \
		expr_free;                                                                    \
		printf("%s\"%s\": {\"dpdk\": %" PRIu64 ", \"libc\": %" PRIu64 "}", sep, name, \
		       d.dpdk, d.libc);                                                       \
		parts.dpdk += d.dpdk;                                                         \
		parts.libc += d.libc;                                                         \
		sep = ", ";                                                                   \
	} while (0)

int
main(int argc, char **argv)
{
	static const struct option lo[] = {
		{"sessions", required_argument, NULL, 's'}, {"qsize", required_argument, NULL, 'q'},
		{"hqos", required_argument, NULL, 'H'},	    {"no-install", no_argument, NULL, 'n'},
		{"ini", required_argument, NULL, 'i'},	    {NULL, 0, NULL, 0},
	};
	struct app *a = &the_app;
	char ini[] = "/tmp/bench_mem_XXXXXX", err[512];
	const char *ini_path = NULL, *sep = "";
	uint32_t n = 65536, i, installed = 0;
	int c, install = 1, e = rte_eal_init(argc, argv);
	struct usage base, total, after, parts = {0, 0};
	struct hqos_params hp;
	struct pfcp_up_conf uc;
	struct dp_config *cfg;
	uint64_t t0;

	if (e < 0) {
		fprintf(stderr, "bench_mem: EAL: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	argc -= e;
	argv += e;
	a->opts.qsize = HQOS_DEFAULT_QSIZE;
	a->opts.mbufs = 16384; /* bng-dp's default */
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			n = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'q':
			a->opts.qsize = (uint16_t)atoi(optarg);
			break;
		case 'H':
			a->opts.hqos_sched = hqos_sched_parse(optarg);
			if (a->opts.hqos_sched == 0) {
				fprintf(stderr, "bench_mem: --hqos hsched|rte_sched\n");
				return 1;
			}
			break;
		case 'n':
			install = 0;
			break;
		case 'i':
			ini_path = optarg;
			break;
		default:
			return 1;
		}
	}
	if (n == 0 || n > SESSION_MAX_CAPACITY || n > per_port(n) * MAX_PORTS) {
		fprintf(stderr, "bench_mem: --sessions 1..%u\n", per_port(n) * MAX_PORTS);
		return 1;
	}
	if (ini_path == NULL) {
		int fd = mkstemp(ini);

		if (fd < 0)
			return 1;
		close(fd);
		ini_path = ini;
	}
	if (write_ini(ini_path, n) != 0)
		return 1;
	a->opts.config_path = ini_path;
	a->opts.sessions = n;
	cfg = calloc(1, sizeof(*cfg));
	if (cfg == NULL || dp_config_load(ini_path, cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "bench_mem: %s: %s\n", ini_path, err);
		return 1;
	}

	printf("{\"bench\": \"mem\", \"sessions\": %u, \"access_ports\": %u, \"hqos\": \"%s\", "
	       "\"qsize\": %u, \"parts\": {",
	       n, cfg->n_access_ports,
	       hqos_sched_name(a->opts.hqos_sched ? a->opts.hqos_sched : HQOS_SCHED_DEFAULT_KIND),
	       a->opts.qsize);
	/* 1. Each per-session part alone, with app_init()'s arguments. */
	PART("session_tables", session_tables_create("m_sess", n, 1, (int)rte_socket_id()),
	     session_tables_free(obj));
	hqos_params_default(&hp);
	hp.capacity = n;
	hp.qsize = a->opts.qsize;
	hp.scheduler = a->opts.hqos_sched;
	PART("hqos", hqos_create(cfg, &hp, err, sizeof(err)), hqos_free(obj));
	PART("policers", police_create(n, (int)rte_socket_id()), police_free(obj));
	PART("lcp_offload", lcp_create(n, NULL, (int)rte_socket_id()), lcp_free(obj));
	PART("ra_offload", ra_create(n, 0, rte_rdtsc()), ra_free(obj));
	app_pfcp_conf(cfg, n, 0, 0, &uc);
	PART("pfcp", pfcp_up_create(&uc, &subs_ops, a), pfcp_up_free(obj));
	printf("}");

	/* 2. The whole instance, as bng-dp builds it. */
	base = usage_now();
	if (app_init(a, err, sizeof(err)) != 0) {
		printf(", \"error\": \"app_init: %s\"}\n", err);
		return 1;
	}
	total = usage_since(base);
	printf(", \"hqos_memory_bytes\": %" PRIu64 ", \"total\": {\"dpdk\": %" PRIu64
	       ", \"libc\": %" PRIu64 ", \"all\": %" PRIu64 "}",
	       hqos_memory_bytes(a->hqos), total.dpdk, total.libc, total.dpdk + total.libc);
	printf(", \"fixed\": {\"dpdk\": %" PRIu64 ", \"libc\": %" PRIu64 "}",
	       total.dpdk > parts.dpdk ? total.dpdk - parts.dpdk : 0,
	       total.libc > parts.libc ? total.libc - parts.libc : 0);
	printf(", \"per_session_parts\": %.1f", (double)(parts.dpdk + parts.libc) / n);

	/* 3. The sessions installed: nothing more is allocated. */
	if (install) {
		t0 = rte_rdtsc();
		for (i = 0; i < n; i++) {
			struct up_sub u;
			uint32_t handle;
			int rc;

			session_of(i, n, &u);
			/* This thread is the worker too: apply the HQoS commands as it would. */
			hqos_worker_apply(a->hqos, rte_rdtsc());
			rc = subs_ops.install(a, &u, &handle);
			if (rc != 0) {
				printf(", \"error\": \"session %u refused: %s\"}\n", i,
				       strerror(-rc));
				return 1;
			}
			installed++;
		}
		hqos_worker_apply(a->hqos, rte_rdtsc());
		after = usage_since(base);
		printf(", \"installed\": %u, \"session_count\": %u, \"install_s\": %.2f, "
		       "\"after_install\": {\"dpdk\": %" PRIu64 ", \"libc\": %" PRIu64 "}",
		       installed, session_count(a->sessions),
		       (double)(rte_rdtsc() - t0) / (double)rte_get_tsc_hz(), after.dpdk,
		       after.libc);
	}
	printf("}\n");
	fflush(stdout);
	if (ini_path == ini)
		unlink(ini);
	app_fini(a);
	free(cfg);
	rte_eal_cleanup();
	return 0;
}

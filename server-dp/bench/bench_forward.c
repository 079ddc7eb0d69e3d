/*
 * Benchmark of the forwarding stages: policer (police.h), upstream route
 * lookup (route.h) and operator ACL (acl.h).
 *
 * usage: bench_forward ITERATIONS SCENARIO [--no-tsc]
 *
 * Scenarios (each one set-up, then ITERATIONS passes over 4096 packets in
 * bursts of 32, prepared before the measured calls; fixed seed):
 *   police-4k, police-64k  police_color() on 4096 / 65536 sessions at the lab's
 *                          gold rates (20/50 Mbit/s), a random session per
 *                          128-byte frame, TSC time advancing 100 ticks a
 *                          frame; every session has adopted its rates before
 *                          the measurement (one untimed pass);
 *   route-lab              route_lookup_burst() on the lab dp4 table, uniformly
 *                          random destinations (the default route mostly,
 *                          martians 1/8);
 *   route-max              a table at every limit (256 groups x 16 pools of /22
 *                          to /32, 256 static routes of /8 to /32), half the
 *                          destinations inside the static routes and pools;
 *   acl-lab                acl_classify_burst() upstream with the lab's one rule;
 *   acl-64, acl-1024       64 / 1024 rules of prefixes and TCP/UDP port ranges
 *                          (acl-1024 as the loader's limit test);
 *   all                    each of the above in turn.
 * Packets for the ACL: 128-byte IPv4 from 100.80.x.y, random destinations in a
 * few /16s, 45% TCP, 45% UDP with random ports, 10% ICMP.
 *
 * Prints one JSON line per scenario: packets and, unless --no-tsc (under
 * valgrind), TSC ticks per packet measured around each burst call. The
 * measured calls are bench_police(), bench_route() and bench_acl(), not
 * inlined, for callgrind's --toggle-collect (bench/callgrind_forward.sh).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_memory.h>

#include "acl.h"
#include "bench_common.h"
#include "police.h"
#include "route.h"

#define N_PKTS 4096
#define BURST 32
#define FRAME_LEN 128
#define TICKS_PER_FRAME 100

#define A(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

static const char *fixture_dir;
static struct dp_config *cfg;
static int no_tsc;

static void
report(const char *scenario, const char *what, unsigned int count, uint64_t packets, uint64_t ticks)
{
	printf("{\"scenario\":\"%s\",\"%s\":%u,\"burst\":%d,\"packets\":%" PRIu64, scenario, what,
	       count, BURST, packets);
	if (!no_tsc && packets > 0)
		printf(",\"tsc_per_packet\":%.2f", (double)ticks / (double)packets);
	printf("}\n");
	fflush(stdout);
}

/* --- policer --------------------------------------------------------------- */

__attribute__((noinline)) static uint32_t
bench_police(struct police *p, const uint32_t *ids, uint64_t now)
{
	uint32_t red = 0, i;

	for (i = 0; i < BURST; i++)
		red += police_color(p, ids[i], now + i * TICKS_PER_FRAME, FRAME_LEN) ==
		       RTE_COLOR_RED;
	return red;
}

static int
run_police(const char *scenario, uint32_t sessions, unsigned long iters)
{
	static uint32_t ids[N_PKTS];
	struct police *p = police_create(sessions, SOCKET_ID_ANY);
	uint64_t now = 1000000000, ticks = 0, t0;
	unsigned long it;
	uint32_t i;

	if (p == NULL)
		return -1;
	for (i = 0; i < sessions; i++)
		police_set(p, i, 20000000, 50000000);
	for (i = 0; i < sessions; i++) /* adopt the rates outside the measurement */
		police_color(p, i, now, FRAME_LEN);
	for (i = 0; i < N_PKTS; i++)
		ids[i] = rnd(sessions);
	for (it = 0; it < iters; it++) {
		for (i = 0; i < N_PKTS; i += BURST) {
			t0 = no_tsc ? 0 : rte_rdtsc();
			bench_police(p, &ids[i], now);
			if (!no_tsc)
				ticks += rte_rdtsc() - t0;
			now += BURST * TICKS_PER_FRAME;
		}
	}
	report(scenario, "sessions", sessions, (uint64_t)iters * N_PKTS, ticks);
	police_free(p);
	return 0;
}

/* --- routes ---------------------------------------------------------------- */

__attribute__((noinline)) static void
bench_route(const struct route_table *t, const uint32_t *dst, struct route_result *out,
	    struct route_counters *c)
{
	route_lookup_burst(t, dst, BURST, out, c);
}

static uint32_t
mask_of(uint8_t len)
{
	return len == 0 ? 0 : UINT32_MAX << (32 - len);
}

/* As tests/test_route.c: every limit, pools of /22../32, routes of /8../32. */
static void
route_max_config(void)
{
	unsigned int g, i, j;

	memset(cfg, 0, sizeof(*cfg));
	cfg->core.subnet = (struct dp_ipv4_prefix){A(100, 64, 0, 0), 16};
	cfg->core.router_address = A(100, 64, 0, 1);
	cfg->n_line_groups = DP_MAX_LINE_GROUPS;
	for (g = 0; g < DP_MAX_LINE_GROUPS; g++) {
		struct dp_line_group *lg = &cfg->line_groups[g];

		lg->core_address = A(100, 64, 1, g);
		lg->n_prefixes = DP_MAX_GROUP_PREFIXES;
		for (i = 0; i < DP_MAX_GROUP_PREFIXES; i++) {
			uint8_t len = (uint8_t)(22 + (g + i) % 11);

			lg->prefixes[i] = (struct dp_ipv4_prefix){
				A(11 + g / 64, g % 64 * 4, i * 16, 0) & mask_of(len), len};
		}
	}
	for (i = 0; i < DP_MAX_ROUTES; i++) {
		struct dp_route *r = &cfg->routes[cfg->n_routes];
		uint8_t len = (uint8_t)(8 + i % 25);

		r->prefix = (struct dp_ipv4_prefix){A(20 + i % 8, i, i * 7, i * 13) & mask_of(len),
						    len};
		r->drop = i % 5 == 0;
		r->via = r->drop ? 0 : A(100, 64, 2, i);
		for (j = 0; j < cfg->n_routes; j++)
			if (cfg->routes[j].prefix.addr == r->prefix.addr &&
			    cfg->routes[j].prefix.len == r->prefix.len)
				break;
		if (j == cfg->n_routes)
			cfg->n_routes++;
	}
}

static int
run_route(const char *scenario, unsigned long iters)
{
	static uint32_t dst[N_PKTS];
	static struct route_result out[BURST];
	struct route_counters c = {0};
	uint64_t ticks = 0, t0;
	struct route_table *t;
	char path[4096], err[256];
	bool max = strcmp(scenario, "route-max") == 0;
	unsigned long it;
	unsigned int i;

	if (max) {
		route_max_config();
	} else {
		snprintf(path, sizeof(path), "%s/lab_dp4.ini", fixture_dir);
		if (dp_config_load(path, cfg, err, sizeof(err)) != 0) {
			fprintf(stderr, "%s: %s\n", path, err);
			return -1;
		}
	}
	t = route_create(cfg, SOCKET_ID_ANY, err, sizeof(err));
	if (t == NULL) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	for (i = 0; i < N_PKTS; i++) {
		dst[i] = rnd(65536) << 16 | rnd(65536);
		if (max && i % 2) {
			const struct dp_ipv4_prefix *pf =
				i % 4 == 1 ? &cfg->routes[rnd(cfg->n_routes)].prefix
					   : &cfg->line_groups[rnd(256)].prefixes[rnd(16)];

			dst[i] = pf->addr | (dst[i] & ~mask_of(pf->len));
		}
	}
	for (it = 0; it < iters; it++) {
		for (i = 0; i < N_PKTS; i += BURST) {
			t0 = no_tsc ? 0 : rte_rdtsc();
			bench_route(t, &dst[i], out, &c);
			if (!no_tsc)
				ticks += rte_rdtsc() - t0;
		}
	}
	report(scenario, "rules", t->n_rules, (uint64_t)iters * N_PKTS, ticks);
	route_free(t);
	return 0;
}

/* --- ACL ------------------------------------------------------------------- */

__attribute__((noinline)) static void
bench_acl(const struct acl *a, const uint8_t *const *ip, uint8_t *deny, struct acl_counters *c)
{
	acl_classify_burst(a, ACL_UP, ip, BURST, deny, c);
}

static void
acl_rules_config(unsigned int n)
{
	unsigned int i;

	memset(cfg, 0, sizeof(*cfg));
	cfg->n_acl_rules = (uint16_t)n;
	for (i = 0; i < n; i++) {
		struct dp_acl_rule *r = &cfg->acl_rules[i];
		uint8_t dlen = (uint8_t)(16 + i % 17);

		r->action = i % 2 ? DP_ACL_DENY : DP_ACL_PERMIT;
		r->dirs = i % 3 ? DP_ACL_DIR_UP | DP_ACL_DIR_DOWN : DP_ACL_DIR_UP;
		r->protocol = i % 2 ? DP_IPPROTO_UDP : DP_IPPROTO_TCP;
		r->src = (struct dp_ipv4_prefix){A(100, 80, i % 4, 0), 24};
		r->dst = (struct dp_ipv4_prefix){A(198, 18 + i % 2, i, 0) & mask_of(dlen), dlen};
		r->sport = i % 2 ? (struct dp_port_range){0, 65535}
				 : (struct dp_port_range){1024, 65535};
		r->dport =
			(struct dp_port_range){(uint16_t)(1 + i * 50), (uint16_t)(1 + i * 50 + 9)};
	}
}

static int
run_acl(const char *scenario, unsigned long iters)
{
	static uint8_t pkts[N_PKTS][FRAME_LEN];
	static const uint8_t *ip[N_PKTS];
	static struct acl_counters c;
	uint8_t deny[BURST];
	uint64_t ticks = 0, t0;
	char path[4096], err[256];
	unsigned long it;
	unsigned int i;
	struct acl *a;

	if (strcmp(scenario, "acl-lab") == 0) {
		snprintf(path, sizeof(path), "%s/lab_dp4.ini", fixture_dir);
		if (dp_config_load(path, cfg, err, sizeof(err)) != 0) {
			fprintf(stderr, "%s: %s\n", path, err);
			return -1;
		}
	} else {
		acl_rules_config(strcmp(scenario, "acl-64") == 0 ? 64 : DP_MAX_ACL_RULES);
	}
	a = acl_create(cfg, SOCKET_ID_ANY, err, sizeof(err));
	if (a == NULL) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	for (i = 0; i < N_PKTS; i++) {
		unsigned int k = rnd(20), proto = k < 9 ? 6 : k < 18 ? 17 : 1;
		uint8_t *p = pkts[i];

		put_ipv4_hdr(p, FRAME_LEN, proto);
		p[16] = 198;
		p[17] = (uint8_t)(18 + rnd(2));
		p[18] = (uint8_t)rnd(256);
		p[19] = (uint8_t)rnd(256);
		put16(p + 20, 1024 + rnd(64512));
		put16(p + 22, rnd(4) == 0 ? 25 : 1 + rnd(65535));
		ip[i] = p;
	}
	for (it = 0; it < iters; it++) {
		for (i = 0; i < N_PKTS; i += BURST) {
			t0 = no_tsc ? 0 : rte_rdtsc();
			bench_acl(a, &ip[i], deny, &c);
			if (!no_tsc)
				ticks += rte_rdtsc() - t0;
		}
	}
	report(scenario, "rules", a->n_rules, (uint64_t)iters * N_PKTS, ticks);
	acl_free(a);
	return 0;
}

static int
run(const char *scenario, unsigned long iters)
{
	if (strcmp(scenario, "police-4k") == 0)
		return run_police(scenario, 4096, iters);
	if (strcmp(scenario, "police-64k") == 0)
		return run_police(scenario, 65536, iters);
	if (strncmp(scenario, "route-", 6) == 0)
		return run_route(scenario, iters);
	return run_acl(scenario, iters);
}

int
main(int argc, char **argv)
{
	static const char *const scenarios[] = {"police-4k", "police-64k", "route-lab", "route-max",
						"acl-lab",   "acl-64",	   "acl-1024"};
	char *eal_argv[] = {argv[0],	   "--no-huge",		"-m", "512", "--no-pci",
			    "--no-shconf", "--log-level=error", NULL};
	unsigned long iters;
	unsigned int i;
	int known = 0;

	if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "--no-tsc") != 0)) {
		fprintf(stderr, "usage: %s ITERATIONS SCENARIO [--no-tsc]\n", argv[0]);
		return 2;
	}
	for (i = 0; i < RTE_DIM(scenarios); i++)
		known |= strcmp(argv[2], scenarios[i]) == 0;
	if (!known && strcmp(argv[2], "all") != 0) {
		fprintf(stderr, "unknown scenario %s\n", argv[2]);
		return 2;
	}
	no_tsc = argc == 4;
	iters = strtoul(argv[1], NULL, 10);
	fixture_dir = getenv("BNG_FIXTURES") ? getenv("BNG_FIXTURES") : "tests/fixtures";
	cfg = malloc(sizeof(*cfg));
	if (cfg == NULL || rte_eal_init(7, eal_argv) < 0) {
		fprintf(stderr, "EAL init: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	for (i = 0; i < RTE_DIM(scenarios); i++) {
		if (strcmp(argv[2], "all") != 0 && strcmp(argv[2], scenarios[i]) != 0)
			continue;
		if (run(scenarios[i], iters) != 0) {
			fprintf(stderr, "%s: set-up failed\n", scenarios[i]);
			return 1;
		}
	}
	free(cfg);
	rte_eal_cleanup();
	return 0;
}

/*
 * Tests of the upstream route table (route.h).
 *
 * usage: test_route FIXTURE_DIR
 *
 * Named destinations of the lab fixture (every kind, the edges of every
 * prefix, every martian), longest-prefix cases of multi_group.ini (static
 * routes inside static routes, a route around the core subnet and the pools),
 * a /31 core subnet, a pool inside a martian refused, and a table at every
 * limit (256 groups x 16 pools, 256 static routes, many longer than /24)
 * against a linear reference matcher written from the table in route.h:
 * route_lookup_burst() must equal route_lookup() and the reference for random
 * addresses and for both sides of every prefix edge, in bursts of every size
 * up to 200, and its counters must add up. EAL --no-huge, in memory.
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#define HARNESS_EAL
#include "harness.h"
#include "route.h"

static const char *fixture_dir;
static struct dp_config *cfg;

#define A(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

static bool
load(const char *file)
{
	char path[4096], err[256];

	snprintf(path, sizeof(path), "%s/%s", fixture_dir, file);
	if (dp_config_load(path, cfg, err, sizeof(err)) != 0) {
		printf("FAIL load %s: %s\n", path, err);
		n_failed++;
		return false;
	}
	return true;
}

struct expect {
	uint32_t dst;
	uint8_t kind;
	uint32_t nh;
};

static void
check_expect(const struct route_table *t, const char *name, const struct expect *e, unsigned int n)
{
	struct route_result r;
	char what[128];
	unsigned int i;

	for (i = 0; i < n; i++) {
		route_lookup(t, e[i].dst, &r);
		snprintf(what, sizeof(what), "%u.%u.%u.%u -> %s %08x (got %s %08x)", e[i].dst >> 24,
			 (e[i].dst >> 16) & 0xff, (e[i].dst >> 8) & 0xff, e[i].dst & 0xff,
			 route_kind_names[e[i].kind], e[i].nh, route_kind_names[r.kind], r.nh);
		check(r.kind == e[i].kind && r.nh == e[i].nh, name, what);
	}
}

static void
test_lab(void)
{
	const uint32_t router = A(100, 64, 0, 1);
	const struct expect e[] = {
		{A(8, 8, 8, 8), ROUTE_NEXT_HOP, router},
		{A(1, 0, 0, 0), ROUTE_NEXT_HOP, router},
		{A(126, 255, 255, 255), ROUTE_NEXT_HOP, router},
		{A(128, 0, 0, 0), ROUTE_NEXT_HOP, router},
		{A(127, 255, 255, 255), ROUTE_DROP, 0},
		{A(223, 255, 255, 255), ROUTE_NEXT_HOP, router},
		/* [route.0] 192.0.2.0/24 via 100.64.0.2, [route.1] 203.0.113.0/24 drop */
		{A(192, 0, 2, 0), ROUTE_NEXT_HOP, A(100, 64, 0, 2)},
		{A(192, 0, 2, 255), ROUTE_NEXT_HOP, A(100, 64, 0, 2)},
		{A(192, 0, 1, 255), ROUTE_NEXT_HOP, router},
		{A(192, 0, 3, 0), ROUTE_NEXT_HOP, router},
		{A(203, 0, 113, 7), ROUTE_DROP, 0},
		{A(203, 0, 114, 0), ROUTE_NEXT_HOP, router},
		/* the core subnet: connected, its ends dropped, the group's address local */
		{A(100, 64, 0, 1), ROUTE_CONNECTED, A(100, 64, 0, 1)},
		{A(100, 64, 0, 2), ROUTE_CONNECTED, A(100, 64, 0, 2)},
		{A(100, 64, 0, 254), ROUTE_CONNECTED, A(100, 64, 0, 254)},
		{A(100, 64, 0, 0), ROUTE_DROP, 0},
		{A(100, 64, 0, 255), ROUTE_DROP, 0},
		{A(100, 64, 0, 14), ROUTE_LOCAL, A(100, 64, 0, 14)},
		{A(100, 64, 1, 0), ROUTE_NEXT_HOP, router},
		{A(100, 63, 255, 255), ROUTE_NEXT_HOP, router},
		/* the group's pool, 100.80.12.0/22: via the router */
		{A(100, 80, 12, 0), ROUTE_SUBSCRIBER, router},
		{A(100, 80, 15, 255), ROUTE_SUBSCRIBER, router},
		{A(100, 80, 11, 255), ROUTE_NEXT_HOP, router},
		{A(100, 80, 16, 0), ROUTE_NEXT_HOP, router},
		/* martians */
		{A(0, 0, 0, 0), ROUTE_DROP, 0},
		{A(0, 255, 255, 255), ROUTE_DROP, 0},
		{A(127, 0, 0, 1), ROUTE_DROP, 0},
		{A(224, 0, 0, 1), ROUTE_DROP, 0},
		{A(239, 255, 255, 255), ROUTE_DROP, 0},
		{A(240, 0, 0, 1), ROUTE_DROP, 0},
		{A(255, 255, 255, 255), ROUTE_DROP, 0},
	};
	char err[256];
	struct route_table *t;

	if (!load("lab_dp4.ini"))
		return;
	t = route_create(cfg, SOCKET_ID_ANY, err, sizeof(err));
	check(t != NULL, "lab", err);
	if (t == NULL)
		return;
	check_expect(t, "lab", e, RTE_DIM(e));
	/* martians, default (2), core, net, bcast, local, pool, 2 routes */
	check(t->n_rules == 4 + 5 + 2 + 2, "lab", "rule count");
	route_free(t);
}

static void
test_multi_group(void)
{
	const uint32_t router = A(100, 64, 0, 1), gw = A(100, 64, 0, 254);
	const struct expect e[] = {
		/* 10/8 via .254 around 10.1/16 drop: longest prefix wins */
		{A(10, 0, 0, 0), ROUTE_NEXT_HOP, gw},
		{A(10, 0, 255, 255), ROUTE_NEXT_HOP, gw},
		{A(10, 1, 0, 0), ROUTE_DROP, 0},
		{A(10, 1, 255, 255), ROUTE_DROP, 0},
		{A(10, 2, 0, 0), ROUTE_NEXT_HOP, gw},
		{A(10, 255, 255, 255), ROUTE_NEXT_HOP, gw},
		{A(11, 0, 0, 0), ROUTE_NEXT_HOP, router},
		/* 100.64/10 via the router holds the core subnet and every pool */
		{A(100, 65, 0, 1), ROUTE_NEXT_HOP, router},
		{A(100, 64, 0, 5), ROUTE_CONNECTED, A(100, 64, 0, 5)},
		{A(100, 64, 0, 10), ROUTE_LOCAL, A(100, 64, 0, 10)},
		{A(100, 64, 0, 11), ROUTE_LOCAL, A(100, 64, 0, 11)},
		{A(100, 80, 0, 1), ROUTE_SUBSCRIBER, router},
		{A(100, 80, 7, 255), ROUTE_SUBSCRIBER, router},
		{A(100, 81, 0, 200), ROUTE_SUBSCRIBER, router},
		{A(100, 82, 0, 1), ROUTE_SUBSCRIBER, router},
		{A(100, 82, 0, 0), ROUTE_NEXT_HOP, router},
		{A(100, 82, 0, 2), ROUTE_NEXT_HOP, router},
	};
	char err[256];
	struct route_table *t;

	if (!load("multi_group.ini"))
		return;
	t = route_create(cfg, SOCKET_ID_ANY, err, sizeof(err));
	check(t != NULL, "multi_group", err);
	if (t == NULL)
		return;
	check_expect(t, "multi_group", e, RTE_DIM(e));
	route_free(t);
}

/* A minimal valid configuration built in memory: core 100.64.0.0/len. */
static void
small_config(uint8_t core_len)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->core.subnet = (struct dp_ipv4_prefix){A(100, 64, 0, 0), core_len};
	cfg->core.router_address = A(100, 64, 0, 1);
	cfg->n_line_groups = 1;
	cfg->line_groups[0].core_address = A(100, 64, 0, 0) | (core_len == 32 ? 0 : 2);
	cfg->line_groups[0].n_prefixes = 1;
	cfg->line_groups[0].prefixes[0] = (struct dp_ipv4_prefix){A(100, 80, 0, 0), 22};
}

static void
test_edges(void)
{
	const uint32_t router = A(100, 64, 0, 1);
	struct expect e31[] = {
		/* a /31 has no network or broadcast address */
		{A(100, 64, 0, 0), ROUTE_LOCAL, A(100, 64, 0, 0)},
		{A(100, 64, 0, 1), ROUTE_CONNECTED, router},
		{A(100, 64, 0, 2), ROUTE_NEXT_HOP, router},
	};
	char err[256];
	struct route_table *t;

	small_config(31);
	cfg->line_groups[0].core_address = A(100, 64, 0, 0);
	t = route_create(cfg, SOCKET_ID_ANY, err, sizeof(err));
	check(t != NULL, "edges", err);
	if (t != NULL)
		check_expect(t, "edges: /31 core subnet", e31, RTE_DIM(e31));
	route_free(t);

	small_config(24);
	cfg->line_groups[0].prefixes[0] = (struct dp_ipv4_prefix){A(127, 1, 0, 0), 16};
	t = route_create(cfg, SOCKET_ID_ANY, err, sizeof(err));
	check(t == NULL && strstr(err, "route: line_group.0 prefix 127.1.0.0/16 is inside "
				       "127.0.0.0/8") != NULL,
	      "edges", "a pool inside a martian is refused");
	route_free(t);
	route_free(NULL);

	/* No line groups, no routes: the fixed routes only. */
	small_config(24);
	cfg->n_line_groups = 0;
	t = route_create(cfg, SOCKET_ID_ANY, err, sizeof(err));
	check(t != NULL && t->n_nh == 3, "edges",
	      "no groups: drop, default, connected, and no more");
	route_free(t);
}

/* --- a table at every limit against a linear reference ---------------------- */

struct ref_rule {
	uint32_t addr;
	uint8_t len;
	uint8_t kind;
	uint32_t nh; /* UINT32_MAX: the destination */
};

static struct ref_rule ref[8192];
static unsigned int n_ref;

static uint32_t
mask_of(uint8_t len)
{
	return len == 0 ? 0 : UINT32_MAX << (32 - len);
}

static void
ref_add(uint32_t addr, uint8_t len, uint8_t kind, uint32_t nh)
{
	ref[n_ref++] = (struct ref_rule){addr, len, kind, nh};
}

/* The table of route.h, rule by rule. */
static void
ref_build(const struct dp_config *c)
{
	static const struct dp_ipv4_prefix martians[DP_N_MARTIANS] = DP_MARTIANS;
	const struct dp_core *core = &c->core;
	unsigned int g, i;

	n_ref = 0;
	ref_add(0, 0, ROUTE_NEXT_HOP, core->router_address);
	for (i = 0; i < DP_N_MARTIANS; i++)
		ref_add(martians[i].addr, martians[i].len, ROUTE_DROP, 0);
	ref_add(core->subnet.addr, core->subnet.len, ROUTE_CONNECTED, UINT32_MAX);
	if (core->subnet.len <= 30) {
		ref_add(core->subnet.addr, 32, ROUTE_DROP, 0);
		ref_add(core->subnet.addr | ~mask_of(core->subnet.len), 32, ROUTE_DROP, 0);
	}
	for (g = 0; g < c->n_line_groups; g++) {
		ref_add(c->line_groups[g].core_address, 32, ROUTE_LOCAL, UINT32_MAX);
		for (i = 0; i < c->line_groups[g].n_prefixes; i++)
			ref_add(c->line_groups[g].prefixes[i].addr,
				c->line_groups[g].prefixes[i].len, ROUTE_SUBSCRIBER,
				core->router_address);
	}
	for (i = 0; i < c->n_routes; i++)
		ref_add(c->routes[i].prefix.addr, c->routes[i].prefix.len,
			c->routes[i].drop ? ROUTE_DROP : ROUTE_NEXT_HOP, c->routes[i].via);
}

static void
ref_lookup(uint32_t dst, struct route_result *r)
{
	int best = -1;
	unsigned int i;

	for (i = 0; i < n_ref; i++)
		if ((dst & mask_of(ref[i].len)) == ref[i].addr &&
		    (best < 0 || ref[i].len > ref[best].len))
			best = (int)i;
	r->kind = (uint8_t)ref[best].kind;
	r->nh = ref[best].nh == UINT32_MAX ? dst : ref[best].nh;
}

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static uint32_t
rnd32(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static void
max_config(void)
{
	unsigned int g, i;

	memset(cfg, 0, sizeof(*cfg));
	cfg->core.subnet = (struct dp_ipv4_prefix){A(100, 64, 0, 0), 16};
	cfg->core.router_address = A(100, 64, 0, 1);
	cfg->n_line_groups = DP_MAX_LINE_GROUPS;
	for (g = 0; g < DP_MAX_LINE_GROUPS; g++) {
		struct dp_line_group *lg = &cfg->line_groups[g];

		lg->core_address = A(100, 64, 1, g);
		lg->n_prefixes = DP_MAX_GROUP_PREFIXES;
		/* /22 .. /32 pools, so that some /24s need tbl8 groups */
		for (i = 0; i < DP_MAX_GROUP_PREFIXES; i++) {
			uint8_t len = (uint8_t)(22 + (g + i) % 11);

			lg->prefixes[i] = (struct dp_ipv4_prefix){
				A(11 + g / 64, g % 64 * 4, i * 16, 0) & mask_of(len), len};
		}
	}
	/* Routes nested in each other and around pools; /25../32 among them. */
	cfg->n_routes = DP_MAX_ROUTES;
	for (i = 0; i < DP_MAX_ROUTES; i++) {
		struct dp_route *r = &cfg->routes[i];
		uint8_t len = (uint8_t)(8 + i % 25);

		r->prefix = (struct dp_ipv4_prefix){A(20 + i % 8, i, i * 7, i * 13) & mask_of(len),
						    len};
		r->drop = i % 5 == 0;
		r->via = r->drop ? 0 : A(100, 64, 2, i);
	}
	/* Distinct prefixes (the loader's rule): drop the repeats. */
	for (i = 0; i < cfg->n_routes; i++) {
		unsigned int j;

		for (j = 0; j < i; j++)
			if (cfg->routes[j].prefix.addr == cfg->routes[i].prefix.addr &&
			    cfg->routes[j].prefix.len == cfg->routes[i].prefix.len)
				break;
		if (j < i)
			cfg->routes[i--] = cfg->routes[--cfg->n_routes];
	}
}

static void
test_max_against_reference(void)
{
	static const char name[] = "max table vs reference";
	static uint32_t dst[1 << 16];
	static struct route_result bulk[1 << 16];
	struct rte_malloc_socket_stats before, after;
	struct route_counters c = {0};
	struct route_result one, want;
	uint64_t total = 0, mism_ref = 0, mism_one = 0;
	unsigned int n = 0, i, k, size;
	char err[256];
	struct route_table *t;

	max_config();
	ref_build(cfg);
	rte_malloc_get_socket_stats(0, &before);
	t = route_create(cfg, SOCKET_ID_ANY, err, sizeof(err));
	rte_malloc_get_socket_stats(0, &after);
	check(t != NULL, name, err);
	if (t == NULL)
		return;
	printf("     max table: %u rules, %u next-hop entries, %u static routes, %zu bytes of "
	       "rte_malloc heap\n",
	       t->n_rules, t->n_nh, cfg->n_routes,
	       after.heap_allocsz_bytes - before.heap_allocsz_bytes);
	/* Both sides of every prefix edge, then random addresses. */
	for (i = 0; i < n_ref && n + 4 <= RTE_DIM(dst); i++) {
		uint32_t lo = ref[i].addr, hi = ref[i].addr | ~mask_of(ref[i].len);

		dst[n++] = lo;
		dst[n++] = hi;
		dst[n++] = lo - 1;
		dst[n++] = hi + 1;
	}
	while (n < RTE_DIM(dst))
		dst[n++] = rnd32();

	/* Bursts of 0..200 addresses, cycling through the list. */
	for (i = 0, size = 0; i < n; i += size, size = (size + 1) % 201) {
		uint16_t m = (uint16_t)RTE_MIN(size, n - i);

		route_lookup_burst(t, &dst[i], m, &bulk[i], &c);
		total += m;
		if (m < size)
			break;
	}
	for (k = 0; k < total; k++) {
		ref_lookup(dst[k], &want);
		route_lookup(t, dst[k], &one);
		mism_ref += bulk[k].kind != want.kind || bulk[k].nh != want.nh;
		mism_one += bulk[k].kind != one.kind || bulk[k].nh != one.nh;
	}
	check(total == n, name, "every address looked up");
	check(mism_ref == 0, name, "bulk equals the reference");
	check(mism_one == 0, name, "bulk equals single lookups");
	for (k = 0, i = 0; k < ROUTE_KINDS; k++)
		i += (unsigned int)c.kind[k];
	check(i == total && c.kind[ROUTE_NONE] == 0, name, "counters add up, no ROUTE_NONE");
	for (k = ROUTE_NEXT_HOP; k < ROUTE_KINDS; k++)
		check(c.kind[k] > 0, name, "every kind seen");
	route_free(t);
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_route FIXTURE_DIR\n");
		return 2;
	}
	fixture_dir = argv[1];
	if (harness_eal_init(argv[0]) != 0)
		return 1;
	cfg = malloc(sizeof(*cfg));
	if (cfg == NULL)
		return 1;
	test_lab();
	test_multi_group();
	test_edges();
	test_max_against_reference();
	free(cfg);
	rte_eal_cleanup();
	return harness_report();
}

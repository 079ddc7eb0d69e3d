/*
 * bng-dp upstream routing: building the rte_lpm table from the configuration
 * (control thread, once at start). See route.h for the routes and the layout.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "route.h"

static_assert(ROUTE_MAX_NH <= (1u << 24), "rte_lpm next hops are 24 bits");

const char *const route_kind_names[ROUTE_KINDS] = {
#define ROUTE_KIND_DEF(sym, name) [ROUTE_##sym] = name,
#include "route.def"
#undef ROUTE_KIND_DEF
};

struct builder {
	struct route_table *t;
	char *err;
	size_t errlen;
};

static int fail(struct builder *b, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
fail(struct builder *b, int rc, const char *fmt, ...)
{
	va_list ap;

	if (b->err != NULL && b->errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(b->err, b->errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

static void
format_ipv4(uint32_t a, char buf[16])
{
	snprintf(buf, 16, "%u.%u.%u.%u", a >> 24, (a >> 16) & 0xff, (a >> 8) & 0xff, a & 0xff);
}

static uint32_t
mask_of(uint8_t len)
{
	return len == 0 ? 0 : UINT32_MAX << (32 - len);
}

/* Index of the (kind, addr, dst_mask) entry, added when new. */
static uint32_t
nh_index(struct route_table *t, uint8_t kind, uint32_t addr, uint32_t dst_mask)
{
	uint32_t i;

	for (i = 0; i < t->n_nh; i++)
		if (t->nh[i].kind == kind && t->nh[i].addr == addr && t->nh[i].dst_mask == dst_mask)
			return i;
	t->nh[i] = (struct route_nh){.addr = addr, .dst_mask = dst_mask, .kind = kind};
	t->n_nh++;
	return i;
}

/* what names the route in errors ("route.3", "martian", ...). */
static int
add(struct builder *b, const char *what, uint32_t addr, uint8_t len, uint8_t kind, uint32_t nh)
{
	uint32_t dst_mask = kind == ROUTE_CONNECTED || kind == ROUTE_LOCAL ? UINT32_MAX : 0;
	char a[16];
	int rc;

	if (b->t->n_nh == ROUTE_MAX_NH)
		return fail(b, -ENOSPC, "route: more than %u next hops", ROUTE_MAX_NH);
	rc = rte_lpm_add(b->t->lpm, addr, len, nh_index(b->t, kind, dst_mask ? 0 : nh, dst_mask));
	if (rc != 0) {
		format_ipv4(addr, a);
		return fail(b, rc, "route: %s %s/%u: rte_lpm_add: %s", what, a, len, strerror(-rc));
	}
	return 0;
}

static bool
inside(uint32_t addr, uint8_t len, uint32_t outer, uint8_t outer_len)
{
	return len >= outer_len && (addr & mask_of(outer_len)) == outer;
}

/* The datapath's own prefixes must not fall inside a martian (the loader
 * checks the static routes). */
static int
check_martians(struct builder *b, const struct dp_config *cfg)
{
	static const struct dp_ipv4_prefix martians[DP_N_MARTIANS] = DP_MARTIANS;
	unsigned int g, i, k;
	char a[16], m[16];

	for (k = 0; k < DP_N_MARTIANS; k++) {
		const struct dp_ipv4_prefix *mp = &martians[k];

		format_ipv4(mp->addr, m);
		if (inside(cfg->core.subnet.addr, cfg->core.subnet.len, mp->addr, mp->len)) {
			format_ipv4(cfg->core.subnet.addr, a);
			return fail(b, -EINVAL, "route: [core] subnet %s/%u is inside %s/%u", a,
				    cfg->core.subnet.len, m, mp->len);
		}
		for (g = 0; g < cfg->n_line_groups; g++) {
			const struct dp_line_group *lg = &cfg->line_groups[g];

			for (i = 0; i < lg->n_prefixes; i++) {
				if (!inside(lg->prefixes[i].addr, lg->prefixes[i].len, mp->addr,
					    mp->len))
					continue;
				format_ipv4(lg->prefixes[i].addr, a);
				return fail(b, -EINVAL,
					    "route: line_group.%u prefix %s/%u is inside %s/%u", g,
					    a, lg->prefixes[i].len, m, mp->len);
			}
		}
	}
	return 0;
}

static int
add_all(struct builder *b, const struct dp_config *cfg)
{
	static const struct dp_ipv4_prefix martians[DP_N_MARTIANS] = DP_MARTIANS;
	const struct dp_core *core = &cfg->core;
	char what[32];
	unsigned int g, i;
	int rc = 0;

	rc = check_martians(b, cfg);
	for (i = 0; rc == 0 && i < DP_N_MARTIANS; i++)
		rc = add(b, "martian", martians[i].addr, martians[i].len, ROUTE_DROP, 0);
	/* The default route as two /1s: rte_lpm depths are 1..32. */
	if (rc == 0)
		rc = add(b, "default", 0, 1, ROUTE_NEXT_HOP, core->router_address);
	if (rc == 0)
		rc = add(b, "default", 0x80000000u, 1, ROUTE_NEXT_HOP, core->router_address);
	if (rc == 0)
		rc = add(b, "core subnet", core->subnet.addr, core->subnet.len, ROUTE_CONNECTED, 0);
	if (rc == 0 && core->subnet.len <= 30) {
		rc = add(b, "core network", core->subnet.addr, 32, ROUTE_DROP, 0);
		if (rc == 0)
			rc = add(b, "core broadcast",
				 core->subnet.addr | ~mask_of(core->subnet.len), 32, ROUTE_DROP, 0);
	}
	for (g = 0; rc == 0 && g < cfg->n_line_groups; g++) {
		const struct dp_line_group *lg = &cfg->line_groups[g];

		snprintf(what, sizeof(what), "line_group.%u", g);
		rc = add(b, what, lg->core_address, 32, ROUTE_LOCAL, 0);
		for (i = 0; rc == 0 && i < lg->n_prefixes; i++)
			rc = add(b, what, lg->prefixes[i].addr, lg->prefixes[i].len,
				 ROUTE_SUBSCRIBER, core->router_address);
	}
	for (i = 0; rc == 0 && i < cfg->n_routes; i++) {
		const struct dp_route *r = &cfg->routes[i];

		snprintf(what, sizeof(what), "route.%u", i);
		rc = add(b, what, r->prefix.addr, r->prefix.len,
			 r->drop ? ROUTE_DROP : ROUTE_NEXT_HOP, r->via);
	}
	return rc;
}

struct route_table *
route_create(const struct dp_config *cfg, int socket, char *err, size_t errlen)
{
	static uint32_t serial;
	struct builder b = {.err = err, .errlen = errlen};
	struct rte_lpm_config lc = {0};
	unsigned int g, i, deep = 0;
	char name[RTE_LPM_NAMESIZE];
	struct route_table *t;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	t = rte_zmalloc_socket("route_table", sizeof(*t), RTE_CACHE_LINE_SIZE, socket);
	if (t == NULL) {
		fail(&b, -ENOMEM, "route: out of memory for the table");
		return NULL;
	}
	b.t = t;

	/* Rules: martians, default (2), core subnet with network and broadcast, and per
	 * group its address and pools, static routes. A /25../32 needs a tbl8. */
	t->n_rules = DP_N_MARTIANS + 5 + cfg->n_routes;
	deep = 2;
	for (g = 0; g < cfg->n_line_groups; g++) {
		t->n_rules += 1u + cfg->line_groups[g].n_prefixes;
		deep++;
		for (i = 0; i < cfg->line_groups[g].n_prefixes; i++)
			deep += cfg->line_groups[g].prefixes[i].len > 24;
	}
	for (i = 0; i < cfg->n_routes; i++)
		deep += cfg->routes[i].prefix.len > 24;
	lc.max_rules = t->n_rules;
	lc.number_tbl8s = deep;

	snprintf(name, sizeof(name), "route%u", __atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED));
	t->lpm = rte_lpm_create(name, socket, &lc);
	if (t->lpm == NULL) {
		fail(&b, -rte_errno, "route: rte_lpm_create (%u rules, %u tbl8 groups): %s",
		     lc.max_rules, lc.number_tbl8s, rte_strerror(rte_errno));
		route_free(t);
		return NULL;
	}
	if (add_all(&b, cfg) != 0) {
		route_free(t);
		return NULL;
	}
	return t;
}

void
route_free(struct route_table *t)
{
	if (t == NULL)
		return;
	rte_lpm_free(t->lpm);
	rte_free(t);
}

/*
 * bng-dp upstream routing: where an IPv4 packet from a subscriber goes on the
 * core side, by longest-prefix match (DPDK rte_lpm).
 *
 * Routes, built once at start from the configuration and static while running
 * (route_create(); the table is read-only afterwards, so any number of
 * workers may look up without synchronisation):
 *
 *   prefix                                 kind              nh
 *   0.0.0.0/0 (as two /1, rte_lpm's least) ROUTE_NEXT_HOP    [core] router_address
 *   [route.N] prefix via A                 ROUTE_NEXT_HOP    A
 *   [route.N] prefix via drop              ROUTE_DROP        0
 *   [core] subnet                          ROUTE_CONNECTED   the destination itself
 *   its network and broadcast address     ROUTE_DROP        0 (no directed broadcast)
 *   a line group's core_address (/32)      ROUTE_LOCAL       the destination (the DP)
 *   a line group's pool prefixes           ROUTE_SUBSCRIBER  router_address
 *   0/8, 127/8, 224/4, 240/4 (martians)    ROUTE_DROP        0
 *
 * Traffic between subscribers (ROUTE_SUBSCRIBER) is sent to the core router
 * too, which routes each pool to its group's core address: operators apply
 * their policy there, and a group can move to another instance. ROUTE_LOCAL
 * is the DP itself: the worker answers (ICMP) or drops it, never forwards it.
 * ROUTE_NONE (no match) cannot happen while the default route exists; it is
 * still counted. The loader refuses static routes inside any of the other
 * prefixes, so a longest match never takes traffic from them.
 *
 * Data layout: rte_lpm (DIR-24-8: tbl24 of 2^24 4-byte entries = 64 MiB, plus
 * one 1 KiB tbl8 group per /24 that holds a longer prefix) whose 24-bit next
 * hop indexes nh[], a small array of {address, mask of the destination, kind}
 * with one entry per distinct (kind, next hop) (at most ROUTE_MAX_NH). A
 * lookup reads one tbl24 entry, sometimes one tbl8 entry, and one nh[] entry.
 */

#ifndef BNG_ROUTE_H
#define BNG_ROUTE_H

#include <stddef.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
/* rte_lpm.h includes rte_rcu_qsbr.h, whose named variadic macros and
 * zero-length array -Wpedantic -Werror would refuse (as in session.h). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wvariadic-macros"
#include <rte_lpm.h>
#pragma GCC diagnostic pop

#include "dp_config.h"

/* Lookup results, with their telemetry names: route.def. */
enum route_kind {
#define ROUTE_KIND_DEF(sym, name) ROUTE_##sym,
#include "route.def"
#undef ROUTE_KIND_DEF
	ROUTE_KINDS,
};

/* Distinct next-hop entries: 6 fixed kinds of entry + every static route's. */
#define ROUTE_MAX_NH (8 + DP_MAX_ROUTES)
/* Addresses looked up per rte_lpm_lookup_bulk() call. */
#define ROUTE_BULK 64

struct route_result {
	uint32_t nh;  /* host order; 0 for ROUTE_NONE and ROUTE_DROP */
	uint8_t kind; /* enum route_kind */
};

/* Per worker, plain increments: lookups by result kind. */
struct route_counters {
	uint64_t kind[ROUTE_KINDS];
};

struct route_nh {
	uint32_t addr;	   /* next hop, host order (0 when dst_mask is set) */
	uint32_t dst_mask; /* UINT32_MAX: the next hop is the destination */
	uint8_t kind;
};

struct route_table {
	struct rte_lpm *lpm;
	uint32_t n_rules;
	uint32_t n_nh;
	struct route_nh nh[ROUTE_MAX_NH];
};

extern const char *const route_kind_names[ROUTE_KINDS];

/* --- control thread, at start ---------------------------------------------- */

/*
 * Build the table of cfg on socket. Needs the EAL (rte_lpm memory). NULL on
 * failure, with a one-line reason in err (truncated to errlen, may be NULL).
 */
struct route_table *route_create(const struct dp_config *cfg, int socket, char *err, size_t errlen);

/* Free the table; no worker may use it any more. NULL is ignored. */
void route_free(struct route_table *t);

/* --- workers --------------------------------------------------------------- */

static inline void
route_result_of(const struct route_table *t, uint32_t hop, uint32_t dst, struct route_result *r)
{
	const struct route_nh *e;

	if (unlikely(!(hop & RTE_LPM_LOOKUP_SUCCESS))) {
		r->nh = 0;
		r->kind = ROUTE_NONE;
		return;
	}
	e = &t->nh[hop & 0x00ffffff];
	r->nh = e->addr | (dst & e->dst_mask);
	r->kind = e->kind;
}

/* One destination (host order), e.g. for the control thread or tests. */
static inline void
route_lookup(const struct route_table *t, uint32_t dst, struct route_result *r)
{
	uint32_t hop = 0;

	if (rte_lpm_lookup(t->lpm, dst, &hop) == 0)
		hop |= RTE_LPM_LOOKUP_SUCCESS;
	route_result_of(t, hop, dst, r);
}

/*
 * Route n destinations (host order): out[i] for dst[i]; c->kind[] counts
 * them. Any n; rte_lpm_lookup_bulk() ROUTE_BULK at a time.
 */
static inline void
route_lookup_burst(const struct route_table *t, const uint32_t *dst, uint16_t n,
		   struct route_result *out, struct route_counters *c)
{
	uint32_t hop[ROUTE_BULK];
	uint16_t done, i, m;

	for (done = 0; done < n; done += m) {
		m = (uint16_t)RTE_MIN(n - done, ROUTE_BULK);
		rte_lpm_lookup_bulk(t->lpm, &dst[done], hop, m);
		for (i = 0; i < m; i++) {
			route_result_of(t, hop[i], dst[done + i], &out[done + i]);
			c->kind[out[done + i].kind]++;
		}
	}
}

#endif /* BNG_ROUTE_H */

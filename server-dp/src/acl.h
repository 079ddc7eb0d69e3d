/*
 * bng-dp operator ACL: the [acl.N] rules of the configuration, applied to IPv4
 * packets upstream (from subscribers, after decapsulation) and downstream
 * (towards them), with DPDK rte_acl.
 *
 * Semantics: rules are tried in file order and the first that matches
 * decides (permit or deny); a packet that no rule matches is permitted. A
 * rule matches when the protocol (or any), the source and destination
 * prefixes, and the source and destination port ranges all match. Packets
 * without ports (non-first fragments, protocols other than TCP and UDP, a
 * TCP/UDP packet too short to hold them) are classified with ports 0, which
 * only "any" covers (the loader keeps explicit ranges within 1..65535).
 *
 * Data layout: one rte_acl context per direction, built once at start from
 * the rules of that direction ("both" rules are in each) and static while
 * running, so any number of workers classify without synchronisation. A
 * direction without rules has no context: acl_classify_burst() then returns
 * all-permit without touching the packets. Rule priority is
 * RTE_ACL_MAX_PRIORITY - N, so rte_acl's highest-priority match is the first
 * in file order; its userdata is N + 1 (0 is rte_acl's "no match"), which
 * indexes deny[] (the action) and the per-rule hit counters.
 *
 * The classification key is built per packet (struct acl_key, 16 bytes,
 * network byte order as in the packet): rte_acl's first field must be one
 * byte (the protocol) and the others come in 4-byte groups (source,
 * destination, source port + destination port).
 */

#ifndef BNG_ACL_H
#define BNG_ACL_H

#include <stdint.h>
#include <string.h>

#include <rte_acl.h>
#include <rte_common.h>

#include "dp_config.h"

enum acl_dir {
	ACL_UP = 0,   /* from subscribers: [acl.N] direction up or both */
	ACL_DOWN = 1, /* towards subscribers: down or both */
	ACL_DIRS,
};

/* Packets classified per rte_acl_classify() call. */
#define ACL_BULK 64

/* The classification key of one packet; every byte is written. */
struct acl_key {
	uint8_t proto;
	uint8_t zero[3];
	uint32_t src; /* network order */
	uint32_t dst;
	uint16_t sport; /* network order; 0 when the packet has no ports */
	uint16_t dport;
};

/* Per worker, plain increments. hits[N] counts matches of [acl.N], both directions. */
struct acl_counters {
	uint64_t packets[ACL_DIRS]; /* classified */
	uint64_t denied[ACL_DIRS];
	uint64_t hits[DP_MAX_ACL_RULES];
};

/*
 * An IPv6 rule ([acl.N] family ipv6), matched by a linear scan in file order
 * (acl_classify6()): addresses as two raw 64-bit halves with their masks.
 */
struct acl6_rule {
	uint64_t src[2], srcm[2];
	uint64_t dst[2], dstm[2];
	uint16_t sp_lo, sp_hi, dp_lo, dp_hi; /* host order */
	uint16_t proto;			     /* 0..255 or DP_ACL_PROTO_ANY */
	uint16_t idx;			     /* N */
};

struct acl {
	struct rte_acl_ctx *ctx[ACL_DIRS]; /* NULL: no IPv4 rules in that direction */
	uint16_t n_rules;		   /* [acl.N] in the configuration */
	uint16_t n_dir_rules[ACL_DIRS];	   /* IPv4 rules */
	uint16_t n6[ACL_DIRS];		   /* IPv6 rules, in v6[dir] */
	struct acl6_rule *v6[ACL_DIRS];
	uint8_t deny[DP_MAX_ACL_RULES]; /* by N: 1 for deny, 0 for permit */
};

/* --- control thread, at start ---------------------------------------------- */

/*
 * Build both contexts from cfg on socket. Needs the EAL. NULL on failure with
 * a one-line reason in err (truncated to errlen, may be NULL).
 */
struct acl *acl_create(const struct dp_config *cfg, int socket, char *err, size_t errlen);

/* Free everything; no worker may use it any more. NULL is ignored. */
void acl_free(struct acl *a);

/* --- workers --------------------------------------------------------------- */

/*
 * The key of the IPv4 packet at ip. The classifier has checked the version,
 * IHL >= 5 and that total length bytes (>= IHL x 4) are readable; options are
 * skipped by the IHL. Ports are read only from the first fragment of TCP and
 * UDP and only when the total length holds them.
 */
static inline void
acl_key_make(struct acl_key *k, const uint8_t *ip)
{
	uint32_t ihl = (uint32_t)(ip[0] & 0x0f) * 4;
	uint32_t tot = (uint32_t)ip[2] << 8 | ip[3];
	uint32_t frag_off = ((uint32_t)ip[6] << 8 | ip[7]) & 0x1fff;
	uint8_t proto = ip[9];

	k->proto = proto;
	k->zero[0] = k->zero[1] = k->zero[2] = 0;
	memcpy(&k->src, ip + 12, 4);
	memcpy(&k->dst, ip + 16, 4);
	if ((proto == DP_IPPROTO_TCP || proto == DP_IPPROTO_UDP) && frag_off == 0 &&
	    tot >= ihl + 4) {
		memcpy(&k->sport, ip + ihl, 4);
	} else {
		k->sport = 0;
		k->dport = 0;
	}
}

/*
 * Classify n IPv4 packets (ip[i] at the IPv4 header) of direction dir:
 * deny[i] = 1 to drop, 0 to pass. Counts packets, denies and rule hits in c.
 */
static inline void
acl_classify_burst(const struct acl *a, enum acl_dir dir, const uint8_t *const *ip, uint16_t n,
		   uint8_t *deny, struct acl_counters *c)
{
	struct acl_key keys[ACL_BULK];
	const uint8_t *data[ACL_BULK];
	uint32_t res[ACL_BULK];
	const struct rte_acl_ctx *ctx = a->ctx[dir];
	uint16_t done, i, m;
	uint64_t denied = 0;

	c->packets[dir] += n;
	if (ctx == NULL) {
		memset(deny, 0, n);
		return;
	}
	for (done = 0; done < n; done += m) {
		m = (uint16_t)RTE_MIN(n - done, ACL_BULK);
		for (i = 0; i < m; i++) {
			acl_key_make(&keys[i], ip[done + i]);
			data[i] = (const uint8_t *)&keys[i];
		}
		rte_acl_classify(ctx, data, res, m, 1);
		for (i = 0; i < m; i++) {
			uint8_t d = 0;

			if (res[i] != 0) {
				c->hits[res[i] - 1]++;
				d = a->deny[res[i] - 1];
			}
			deny[done + i] = d;
			denied += d;
		}
	}
	c->denied[dir] += denied;
}

static inline int
acl6_half(const uint8_t *a, const uint64_t *v, const uint64_t *m)
{
	uint64_t hi, lo;

	memcpy(&hi, a, 8);
	memcpy(&lo, a + 8, 8);
	return ((hi & m[0]) == v[0]) & ((lo & m[1]) == v[1]);
}

/*
 * The IPv6 packet at ip (len bytes, the fixed header at least) in direction
 * dir: 1 when the first IPv6 rule that matches denies it. The ports are read
 * when the next header is TCP or UDP and the packet holds them (no extension
 * headers are walked: behind one, the ports are 0).
 */
static inline uint8_t
acl_classify6(const struct acl *a, enum acl_dir dir, const uint8_t *ip, uint32_t len,
	      struct acl_counters *c)
{
	const struct acl6_rule *r = a->v6[dir];
	uint16_t sp = 0, dp = 0;
	uint8_t nh = ip[6];

	c->packets[dir]++;
	if (a->n6[dir] == 0)
		return 0;
	if ((nh == 6 || nh == 17) && len >= 44) {
		sp = (uint16_t)(ip[40] << 8 | ip[41]);
		dp = (uint16_t)(ip[42] << 8 | ip[43]);
	}
	for (uint16_t i = 0; i < a->n6[dir]; i++, r++) {
		if ((r->proto == DP_ACL_PROTO_ANY || r->proto == nh) && sp >= r->sp_lo &&
		    sp <= r->sp_hi && dp >= r->dp_lo && dp <= r->dp_hi &&
		    acl6_half(ip + 8, r->src, r->srcm) && acl6_half(ip + 24, r->dst, r->dstm)) {
			c->hits[r->idx]++;
			c->denied[dir] += a->deny[r->idx];
			return a->deny[r->idx];
		}
	}
	return 0;
}

#endif /* BNG_ACL_H */

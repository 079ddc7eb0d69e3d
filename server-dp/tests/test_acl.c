/*
 * Tests of the operator ACL (acl.h).
 *
 * usage: test_acl FIXTURE_DIR
 *
 * Packets are built here from table rows. Each field of a rule alone
 * (protocol, source and destination prefix edges, source and destination port
 * range edges), first match in file order against rte_acl's own priorities,
 * directions (up, down, both, and a direction without rules), fragments (the
 * first has ports, the others have none), IPv4 options (ports found after
 * them, option bytes never taken for ports), packets too short for ports, no
 * rules at all, the lab fixture, burst sizes, and a reference matcher (a
 * linear first-match scan written from the semantics in acl.h) against
 * random rule sets and random packets. Also a build at DP_MAX_ACL_RULES with
 * its time and memory. EAL --no-huge, in memory.
 */

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#define HARNESS_EAL
#include "acl.h"
#include "harness.h"

#define A(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))
#define ANY_PORTS        \
	{                \
		0, 65535 \
	}

static const char *fixture_dir;
static struct dp_config *cfg;

/* One IPv4 packet to build: protocol, addresses, ports, and its shape. */
struct pkt {
	uint8_t proto;
	uint32_t src, dst;
	uint16_t sport, dport;
	uint8_t ihl;	   /* 32-bit words; 0 = 5 */
	uint16_t frag_off; /* in 8-byte units */
	bool mf;
	uint16_t l4_len; /* bytes after the header; 0 = 8 */
};

#define PKT_MAX 128

static void
put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

/* Writes the packet into buf (PKT_MAX bytes); option bytes look like port 25. */
static void
build(uint8_t *buf, const struct pkt *p)
{
	unsigned int ihl = p->ihl ? p->ihl : 5, l4 = p->l4_len ? p->l4_len : 8, i;

	memset(buf, 0, PKT_MAX);
	buf[0] = (uint8_t)(0x40 | ihl);
	put16(buf + 2, ihl * 4 + l4);
	put16(buf + 6, (p->mf ? 0x2000u : 0) | p->frag_off);
	buf[8] = 64;
	buf[9] = p->proto;
	put32(buf + 12, p->src);
	put32(buf + 16, p->dst);
	for (i = 20; i < ihl * 4; i += 4) /* NOPs would be 0x01; these mimic ports 25 */
		put32(buf + i, 0x00190019);
	put16(buf + ihl * 4, p->sport);
	put16(buf + ihl * 4 + 2, p->dport);
}

/* Deny flags of packets ps[] in direction dir, one burst. */
static void
classify(const struct acl *a, enum acl_dir dir, const struct pkt *ps, uint16_t n, uint8_t *deny,
	 struct acl_counters *c)
{
	static uint8_t bufs[512][PKT_MAX];
	const uint8_t *ip[512];
	uint16_t i;

	for (i = 0; i < n; i++) {
		build(bufs[i], &ps[i]);
		ip[i] = bufs[i];
	}
	acl_classify_burst(a, dir, ip, n, deny, c);
}

static struct dp_acl_rule
rule(uint8_t action, uint8_t dirs, uint16_t proto, uint32_t src, uint8_t src_len, uint32_t dst,
     uint8_t dst_len, struct dp_port_range sport, struct dp_port_range dport)
{
	return (struct dp_acl_rule){
		.src = {src, src_len},
		.dst = {dst, dst_len},
		.sport = sport,
		.dport = dport,
		.protocol = proto,
		.action = action,
		.dirs = dirs,
	};
}

static struct acl *
make(const char *name, const struct dp_acl_rule *rules, unsigned int n)
{
	char err[256];
	struct acl *a;

	memset(cfg, 0, sizeof(*cfg));
	if (n > 0)
		memcpy(cfg->acl_rules, rules, n * sizeof(rules[0]));
	cfg->n_acl_rules = (uint16_t)n;
	a = acl_create(cfg, SOCKET_ID_ANY, err, sizeof(err));
	check(a != NULL, name, err);
	return a;
}

struct row {
	struct pkt p;
	uint8_t deny;
};

/* Each row alone and all rows as one burst, direction up. */
static void
check_rows(const char *name, const struct acl *a, const struct row *rows, unsigned int n)
{
	struct acl_counters c = {0};
	struct pkt ps[64];
	uint8_t deny[64];
	char what[160];
	unsigned int i;

	for (i = 0; i < n; i++) {
		const struct pkt *p = &rows[i].p;

		classify(a, ACL_UP, p, 1, deny, &c);
		snprintf(what, sizeof(what),
			 "row %u: proto %u %08x:%u -> %08x:%u ihl %u frag %u mf %d: %s", i,
			 p->proto, p->src, p->sport, p->dst, p->dport, p->ihl, p->frag_off, p->mf,
			 rows[i].deny ? "deny" : "permit");
		check(deny[0] == rows[i].deny, name, what);
		ps[i] = *p;
	}
	memset(deny, 0xff, sizeof(deny));
	classify(a, ACL_UP, ps, (uint16_t)n, deny, &c);
	for (i = 0; i < n; i++)
		if (deny[i] != rows[i].deny)
			break;
	check(i == n, name, "one burst gives the same");
}

#define TCP(s, sp, d, dp)                                                        \
	{                                                                        \
		.proto = 6, .src = (s), .dst = (d), .sport = (sp), .dport = (dp) \
	}
#define UDP(s, sp, d, dp)                                                         \
	{                                                                         \
		.proto = 17, .src = (s), .dst = (d), .sport = (sp), .dport = (dp) \
	}
#define PROTO(pr, s, d)                               \
	{                                             \
		.proto = (pr), .src = (s), .dst = (d) \
	}

static void
test_fields(void)
{
	const uint32_t x = A(100, 80, 0, 1), y = A(8, 8, 8, 8);
	struct acl *a;

	{
		const struct dp_acl_rule r[] = {rule(DP_ACL_DENY, DP_ACL_DIR_UP, 47, 0, 0, 0, 0,
						     (struct dp_port_range)ANY_PORTS,
						     (struct dp_port_range)ANY_PORTS)};
		const struct row rows[] = {
			{PROTO(47, x, y), 1}, {PROTO(46, x, y), 0}, {PROTO(48, x, y), 0},
			{TCP(x, 1, y, 2), 0}, {PROTO(1, x, y), 0},
		};

		a = make("field: protocol 47", r, 1);
		if (a != NULL)
			check_rows("field: protocol 47", a, rows, RTE_DIM(rows));
		acl_free(a);
	}
	{
		const struct dp_acl_rule r[] = {
			rule(DP_ACL_DENY, DP_ACL_DIR_UP, DP_ACL_PROTO_ANY, A(10, 0, 0, 0), 8, 0, 0,
			     (struct dp_port_range)ANY_PORTS, (struct dp_port_range)ANY_PORTS)};
		const struct row rows[] = {
			{TCP(A(10, 0, 0, 0), 1, y, 2), 1},
			{UDP(A(10, 255, 255, 255), 1, y, 2), 1},
			{PROTO(50, A(10, 1, 2, 3), y), 1},
			{TCP(A(9, 255, 255, 255), 1, y, 2), 0},
			{TCP(A(11, 0, 0, 0), 1, y, 2), 0},
			{TCP(y, 1, A(10, 0, 0, 1), 2), 0}, /* destination, not source */
		};

		a = make("field: source 10/8", r, 1);
		if (a != NULL)
			check_rows("field: source 10/8", a, rows, RTE_DIM(rows));
		acl_free(a);
	}
	{
		const struct dp_acl_rule r[] = {
			rule(DP_ACL_DENY, DP_ACL_DIR_UP, DP_ACL_PROTO_ANY, 0, 0, A(192, 0, 2, 1),
			     32, (struct dp_port_range)ANY_PORTS, (struct dp_port_range)ANY_PORTS),
			rule(DP_ACL_DENY, DP_ACL_DIR_UP, DP_ACL_PROTO_ANY, 0, 0,
			     A(198, 51, 100, 128), 25, (struct dp_port_range)ANY_PORTS,
			     (struct dp_port_range)ANY_PORTS)};
		const struct row rows[] = {
			{TCP(x, 1, A(192, 0, 2, 1), 2), 1},
			{TCP(x, 1, A(192, 0, 2, 0), 2), 0},
			{TCP(x, 1, A(192, 0, 2, 2), 2), 0},
			{TCP(x, 1, A(198, 51, 100, 128), 2), 1},
			{TCP(x, 1, A(198, 51, 100, 255), 2), 1},
			{TCP(x, 1, A(198, 51, 100, 127), 2), 0},
			{TCP(x, 1, A(198, 51, 101, 0), 2), 0},
		};

		a = make("field: destination /32 and /25", r, 2);
		if (a != NULL)
			check_rows("field: destination /32 and /25", a, rows, RTE_DIM(rows));
		acl_free(a);
	}
	{
		const struct dp_acl_rule r[] = {rule(DP_ACL_DENY, DP_ACL_DIR_UP, DP_IPPROTO_UDP, 0,
						     0, 0, 0, (struct dp_port_range){1000, 2000},
						     (struct dp_port_range)ANY_PORTS)};
		const struct row rows[] = {
			{UDP(x, 999, y, 53), 0},  {UDP(x, 1000, y, 53), 1},
			{UDP(x, 1500, y, 53), 1}, {UDP(x, 2000, y, 53), 1},
			{UDP(x, 2001, y, 53), 0}, {TCP(x, 1500, y, 53), 0},
			{UDP(x, 53, y, 1500), 0},
		};

		a = make("field: source ports 1000-2000 udp", r, 1);
		if (a != NULL)
			check_rows("field: source ports 1000-2000 udp", a, rows, RTE_DIM(rows));
		acl_free(a);
	}
	{
		const struct dp_acl_rule r[] = {rule(DP_ACL_DENY, DP_ACL_DIR_UP, DP_IPPROTO_TCP, 0,
						     0, 0, 0, (struct dp_port_range)ANY_PORTS,
						     (struct dp_port_range){25, 25})};
		const struct row rows[] = {
			{TCP(x, 40000, y, 25), 1}, {TCP(x, 40000, y, 24), 0},
			{TCP(x, 40000, y, 26), 0}, {TCP(x, 25, y, 80), 0},
			{UDP(x, 40000, y, 25), 0}, {TCP(x, 0, y, 25), 1},
			{TCP(x, 65535, y, 25), 1},
		};

		a = make("field: destination port 25 tcp", r, 1);
		if (a != NULL)
			check_rows("field: destination port 25 tcp", a, rows, RTE_DIM(rows));
		acl_free(a);
	}
	{
		/* Port range edges at 1 and 65535. */
		const struct dp_acl_rule r[] = {rule(DP_ACL_DENY, DP_ACL_DIR_UP, DP_IPPROTO_TCP, 0,
						     0, 0, 0, (struct dp_port_range){1, 1},
						     (struct dp_port_range){65535, 65535})};
		const struct row rows[] = {
			{TCP(x, 1, y, 65535), 1},
			{TCP(x, 0, y, 65535), 0},
			{TCP(x, 2, y, 65535), 0},
			{TCP(x, 1, y, 65534), 0},
		};

		a = make("field: ports 1 and 65535", r, 1);
		if (a != NULL)
			check_rows("field: ports 1 and 65535", a, rows, RTE_DIM(rows));
		acl_free(a);
	}
}

static void
test_first_match(void)
{
	static const char name[] = "first match";
	const uint32_t y = A(8, 8, 8, 8);
	struct dp_acl_rule r[] = {
		/* a narrow permit before a wide deny, a wide permit before a narrow deny */
		rule(DP_ACL_PERMIT, DP_ACL_DIR_UP, DP_IPPROTO_TCP, A(100, 80, 0, 0), 24, 0, 0,
		     (struct dp_port_range)ANY_PORTS, (struct dp_port_range){25, 25}),
		rule(DP_ACL_DENY, DP_ACL_DIR_UP, DP_IPPROTO_TCP, 0, 0, 0, 0,
		     (struct dp_port_range)ANY_PORTS, (struct dp_port_range){1, 1023}),
		rule(DP_ACL_PERMIT, DP_ACL_DIR_UP, DP_IPPROTO_UDP, 0, 0, 0, 0,
		     (struct dp_port_range)ANY_PORTS, (struct dp_port_range)ANY_PORTS),
		rule(DP_ACL_DENY, DP_ACL_DIR_UP, DP_IPPROTO_UDP, 0, 0, y, 32,
		     (struct dp_port_range)ANY_PORTS, (struct dp_port_range){53, 53}),
		rule(DP_ACL_DENY, DP_ACL_DIR_UP, DP_ACL_PROTO_ANY, 0, 0, 0, 0,
		     (struct dp_port_range)ANY_PORTS, (struct dp_port_range)ANY_PORTS),
	};
	const struct row rows[] = {
		{TCP(A(100, 80, 0, 9), 40000, y, 25), 0},   /* rule 0 */
		{TCP(A(100, 80, 1, 9), 40000, y, 25), 1},   /* rule 1 */
		{TCP(A(100, 80, 1, 9), 40000, y, 8080), 1}, /* rule 4 */
		{UDP(A(100, 80, 1, 9), 40000, y, 53), 0},   /* rule 2, not 3 */
		{PROTO(1, A(100, 80, 1, 9), y), 1},	    /* rule 4 */
	};
	const uint64_t hits[] = {1, 1, 1, 0, 2};
	struct acl_counters c = {0};
	struct pkt ps[RTE_DIM(rows)];
	uint8_t deny[RTE_DIM(rows)];
	unsigned int i;
	struct acl *a;

	a = make(name, r, RTE_DIM(r));
	if (a == NULL)
		return;
	check_rows(name, a, rows, RTE_DIM(rows));
	for (i = 0; i < RTE_DIM(rows); i++)
		ps[i] = rows[i].p;
	classify(a, ACL_UP, ps, RTE_DIM(rows), deny, &c);
	for (i = 0; i < RTE_DIM(hits); i++)
		if (c.hits[i] != hits[i])
			break;
	check(i == RTE_DIM(hits), name, "hits per rule");
	check(c.packets[ACL_UP] == 5 && c.denied[ACL_UP] == 3 && c.packets[ACL_DOWN] == 0, name,
	      "packet and deny counters");
	acl_free(a);

	/* Rule 1 moved first: now it decides the first row too. */
	r[0] = r[1];
	a = make(name, r, 2);
	if (a != NULL) {
		classify(a, ACL_UP, &rows[0].p, 1, deny, &c);
		check(deny[0] == 1, name, "order decides, not specificity");
	}
	acl_free(a);
}

static void
test_directions(void)
{
	static const char name[] = "directions";
	const struct dp_acl_rule r[] = {
		rule(DP_ACL_DENY, DP_ACL_DIR_UP, DP_IPPROTO_TCP, 0, 0, 0, 0,
		     (struct dp_port_range)ANY_PORTS, (struct dp_port_range){25, 25}),
		rule(DP_ACL_DENY, DP_ACL_DIR_DOWN, DP_IPPROTO_TCP, 0, 0, 0, 0,
		     (struct dp_port_range)ANY_PORTS, (struct dp_port_range){23, 23}),
		rule(DP_ACL_DENY, DP_ACL_DIR_UP | DP_ACL_DIR_DOWN, DP_IPPROTO_UDP, 0, 0, 0, 0,
		     (struct dp_port_range)ANY_PORTS, (struct dp_port_range){69, 69}),
	};
	const struct pkt ps[] = {
		TCP(A(1, 1, 1, 1), 40000, A(2, 2, 2, 2), 25),
		TCP(A(1, 1, 1, 1), 40000, A(2, 2, 2, 2), 23),
		UDP(A(1, 1, 1, 1), 40000, A(2, 2, 2, 2), 69),
		UDP(A(1, 1, 1, 1), 40000, A(2, 2, 2, 2), 70),
	};
	struct acl_counters c = {0};
	uint8_t up[4], down[4];
	struct acl *a;

	a = make(name, r, RTE_DIM(r));
	if (a == NULL)
		return;
	check(a->n_dir_rules[ACL_UP] == 2 && a->n_dir_rules[ACL_DOWN] == 2, name,
	      "both-rule in both contexts");
	classify(a, ACL_UP, ps, 4, up, &c);
	classify(a, ACL_DOWN, ps, 4, down, &c);
	check(up[0] == 1 && up[1] == 0 && up[2] == 1 && up[3] == 0, name, "upstream");
	check(down[0] == 0 && down[1] == 1 && down[2] == 1 && down[3] == 0, name, "downstream");
	check(c.hits[0] == 1 && c.hits[1] == 1 && c.hits[2] == 2, name, "hits over both");
	check(c.denied[ACL_UP] == 2 && c.denied[ACL_DOWN] == 2, name, "denies per direction");
	acl_free(a);

	/* Only upstream rules: downstream has no context and permits all. */
	a = make(name, r, 1);
	if (a == NULL)
		return;
	memset(down, 0xff, sizeof(down));
	classify(a, ACL_DOWN, ps, 4, down, &c);
	check(a->ctx[ACL_DOWN] == NULL && down[0] == 0 && down[3] == 0, name,
	      "direction without rules: all permitted");
	acl_free(a);
}

static void
test_no_rules(void)
{
	static const char name[] = "no rules";
	const struct pkt ps[] = {TCP(1, 2, 3, 25), PROTO(47, 1, 2)};
	struct acl_counters c = {0};
	uint8_t deny[2] = {7, 7};
	struct acl *a;

	a = make(name, NULL, 0);
	if (a == NULL)
		return;
	check(a->ctx[ACL_UP] == NULL && a->ctx[ACL_DOWN] == NULL, name, "no contexts");
	classify(a, ACL_UP, ps, 2, deny, &c);
	check(deny[0] == 0 && deny[1] == 0 && c.packets[ACL_UP] == 2, name, "all permitted");
	acl_classify_burst(a, ACL_DOWN, NULL, 0, deny, &c);
	check(c.packets[ACL_DOWN] == 0, name, "empty burst");
	acl_free(a);
	acl_free(NULL);
}

static void
test_fragments_options(void)
{
	const uint32_t x = A(100, 80, 0, 1), y = A(8, 8, 8, 8);
	const struct dp_acl_rule r[] = {
		rule(DP_ACL_DENY, DP_ACL_DIR_UP, DP_IPPROTO_TCP, 0, 0, 0, 0,
		     (struct dp_port_range)ANY_PORTS, (struct dp_port_range){25, 25}),
		rule(DP_ACL_DENY, DP_ACL_DIR_UP, DP_IPPROTO_UDP, 0, 0, 0, 0,
		     (struct dp_port_range)ANY_PORTS, (struct dp_port_range)ANY_PORTS),
	};
	const struct row rows[] = {
		/* first fragment: ports present */
		{{.proto = 6, .src = x, .dst = y, .sport = 1, .dport = 25, .mf = true}, 1},
		/* later fragments: no ports, even if the bytes there read 25 */
		{{.proto = 6, .src = x, .dst = y, .sport = 1, .dport = 25, .frag_off = 1}, 0},
		{{.proto = 6, .src = x, .dst = y, .dport = 25, .frag_off = 185, .mf = true}, 0},
		{{.proto = 6, .src = x, .dst = y, .dport = 25, .frag_off = 0x1fff}, 0},
		/* a rule with ports "any" does take later fragments */
		{{.proto = 17, .src = x, .dst = y, .dport = 9, .frag_off = 3}, 1},
		/* options: ports after them; option bytes are never ports */
		{{.proto = 6, .src = x, .dst = y, .sport = 1, .dport = 25, .ihl = 6}, 1},
		{{.proto = 6, .src = x, .dst = y, .sport = 1, .dport = 25, .ihl = 15}, 1},
		{{.proto = 6, .src = x, .dst = y, .sport = 25, .dport = 80, .ihl = 6}, 0},
		{{.proto = 6, .src = x, .dst = y, .sport = 25, .dport = 80, .ihl = 15}, 0},
		/* too short for ports: none */
		{{.proto = 6, .src = x, .dst = y, .dport = 25, .l4_len = 3}, 0},
		{{.proto = 6, .src = x, .dst = y, .dport = 25, .l4_len = 4}, 1},
		{{.proto = 6, .src = x, .dst = y, .dport = 25, .ihl = 15, .l4_len = 3}, 0},
	};
	struct acl *a;

	a = make("fragments and options", r, RTE_DIM(r));
	if (a != NULL)
		check_rows("fragments and options", a, rows, RTE_DIM(rows));
	acl_free(a);
}

/* The key itself, byte for byte. */
static void
test_key(void)
{
	static const char name[] = "key";
	const struct pkt p = {.proto = 6,
			      .src = A(1, 2, 3, 4),
			      .dst = A(5, 6, 7, 8),
			      .sport = 0x1234,
			      .dport = 0x5678,
			      .ihl = 7};
	const uint8_t want[16] = {6, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0x12, 0x34, 0x56, 0x78};
	uint8_t buf[PKT_MAX];
	struct acl_key k;

	memset(&k, 0xaa, sizeof(k));
	build(buf, &p);
	acl_key_make(&k, buf);
	check(memcmp(&k, want, sizeof(want)) == 0, name, "network order, ports after options");
	buf[9] = 1; /* ICMP: the same bytes are no ports */
	acl_key_make(&k, buf);
	check(k.proto == 1 && k.sport == 0 && k.dport == 0 && k.zero[0] == 0, name,
	      "icmp: ports 0");
}

static void
test_lab(void)
{
	static const char name[] = "lab fixture";
	const struct pkt ps[] = {
		TCP(A(100, 80, 12, 5), 40000, A(192, 0, 2, 25), 25),
		TCP(A(100, 80, 12, 5), 40000, A(192, 0, 2, 25), 587),
	};
	struct rte_malloc_socket_stats before, after;
	struct acl_counters c = {0};
	char path[4096], err[256];
	uint8_t up[2], down[2];
	struct acl *a;

	snprintf(path, sizeof(path), "%s/lab_dp4.ini", fixture_dir);
	if (dp_config_load(path, cfg, err, sizeof(err)) != 0) {
		check(false, name, err);
		return;
	}
	rte_malloc_get_socket_stats(0, &before);
	a = acl_create(cfg, SOCKET_ID_ANY, err, sizeof(err));
	rte_malloc_get_socket_stats(0, &after);
	check(a != NULL, name, err);
	if (a == NULL)
		return;
	printf("     lab: %zu bytes of rte_malloc heap\n",
	       after.heap_allocsz_bytes - before.heap_allocsz_bytes);
	classify(a, ACL_UP, ps, 2, up, &c);
	classify(a, ACL_DOWN, ps, 2, down, &c);
	check(up[0] == 1 && up[1] == 0, name, "upstream SMTP denied, submission permitted");
	check(down[0] == 0 && down[1] == 0 && a->ctx[ACL_DOWN] == NULL, name,
	      "downstream untouched");
	acl_free(a);
}

/* --- random rules and packets against a reference matcher ----------------- */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t
rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)((rng >> 16) % n);
}

static uint32_t
mask_of(uint8_t len)
{
	return len == 0 ? 0 : UINT32_MAX << (32 - len);
}

/* Addresses from a small pool so that prefixes and packets meet. */
static uint32_t
rnd_addr(void)
{
	static const uint32_t base[] = {A(10, 0, 0, 0), A(100, 80, 4, 0), A(192, 0, 2, 0),
					A(8, 8, 8, 0)};

	return base[rnd(4)] | rnd(4) << 8 | rnd(256);
}

static struct dp_port_range
rnd_ports(void)
{
	static const uint16_t edges[] = {1, 2, 24, 25, 26, 53, 80, 1023, 1024, 65534, 65535};
	uint16_t lo, hi;

	if (rnd(3) == 0)
		return (struct dp_port_range)ANY_PORTS;
	lo = edges[rnd(RTE_DIM(edges))];
	hi = edges[rnd(RTE_DIM(edges))];
	return lo <= hi ? (struct dp_port_range){lo, hi} : (struct dp_port_range){hi, lo};
}

static uint16_t
rnd_port(void)
{
	static const uint16_t edges[] = {0, 1, 2, 24, 25, 26, 53, 80, 1023, 1024, 65534, 65535};

	return rnd(4) == 0 ? (uint16_t)rnd(65536) : edges[rnd(RTE_DIM(edges))];
}

static struct dp_acl_rule
rnd_rule(void)
{
	static const uint16_t protos[] = {DP_ACL_PROTO_ANY, 6, 17, 1, 47};
	struct dp_acl_rule r = {0};
	uint8_t l1 = (uint8_t)rnd(33), l2 = (uint8_t)rnd(33);

	r.protocol = protos[rnd(RTE_DIM(protos))];
	r.src = (struct dp_ipv4_prefix){rnd_addr() & mask_of(l1), l1};
	r.dst = (struct dp_ipv4_prefix){rnd_addr() & mask_of(l2), l2};
	if (rnd(3) == 0) {
		r.src.len = 0;
		r.src.addr = 0;
	}
	r.sport = (struct dp_port_range)ANY_PORTS;
	r.dport = (struct dp_port_range)ANY_PORTS;
	if (r.protocol == 6 || r.protocol == 17) {
		r.sport = rnd_ports();
		r.dport = rnd_ports();
	}
	r.action = (uint8_t)rnd(2);
	r.dirs = (uint8_t)(1 + rnd(3));
	return r;
}

static struct pkt
rnd_pkt(void)
{
	static const uint8_t protos[] = {6, 6, 17, 17, 1, 47, 50};
	struct pkt p = {0};

	p.proto = protos[rnd(RTE_DIM(protos))];
	p.src = rnd_addr();
	p.dst = rnd_addr();
	p.sport = rnd_port();
	p.dport = rnd_port();
	p.ihl = (uint8_t)(rnd(4) == 0 ? 5 + rnd(11) : 5);
	p.frag_off = (uint16_t)(rnd(6) == 0 ? 1 + rnd(0x1fff) : 0);
	p.mf = rnd(6) == 0;
	p.l4_len = (uint16_t)(rnd(10) == 0 ? rnd(4) : 8);
	if (p.l4_len == 0)
		p.l4_len = 8;
	return p;
}

/* First rule of dir that matches, as acl.h describes; -1 for none. */
static int
ref_match(const struct dp_acl_rule *rules, unsigned int n, enum acl_dir dir, const struct pkt *p)
{
	uint8_t bit = dir == ACL_UP ? DP_ACL_DIR_UP : DP_ACL_DIR_DOWN;
	bool ports = (p->proto == 6 || p->proto == 17) && p->frag_off == 0 && p->l4_len >= 4;
	uint16_t sport = ports ? p->sport : 0, dport = ports ? p->dport : 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		const struct dp_acl_rule *r = &rules[i];

		if (!(r->dirs & bit) ||
		    (r->protocol != DP_ACL_PROTO_ANY && r->protocol != p->proto))
			continue;
		if ((p->src & mask_of(r->src.len)) != r->src.addr ||
		    (p->dst & mask_of(r->dst.len)) != r->dst.addr)
			continue;
		if (sport < r->sport.lo || sport > r->sport.hi || dport < r->dport.lo ||
		    dport > r->dport.hi)
			continue;
		return (int)i;
	}
	return -1;
}

static void
test_reference(void)
{
	static const char name[] = "random rules vs reference";
	static const unsigned int sizes[] = {1, 5, 40, 300};
	static struct dp_acl_rule rules[300];
	static struct pkt ps[4096];
	static uint8_t deny[4096];
	struct acl_counters c;
	uint64_t want_hits[300], mism = 0, checked = 0, matched = 0;
	unsigned int s, round, i, dir, n;
	struct acl *a;

	for (s = 0; s < RTE_DIM(sizes); s++) {
		for (round = 0; round < 5; round++) {
			n = sizes[s];
			for (i = 0; i < n; i++)
				rules[i] = rnd_rule();
			a = make(name, rules, n);
			if (a == NULL)
				return;
			for (i = 0; i < RTE_DIM(ps); i++)
				ps[i] = rnd_pkt();
			memset(&c, 0, sizeof(c));
			memset(want_hits, 0, sizeof(want_hits));
			for (dir = 0; dir < ACL_DIRS; dir++) {
				/* bursts of 0..200 packets */
				unsigned int done = 0, b = 0;

				while (done < RTE_DIM(ps)) {
					uint16_t m = (uint16_t)RTE_MIN(b, RTE_DIM(ps) - done);

					classify(a, (enum acl_dir)dir, &ps[done], m, &deny[done],
						 &c);
					done += m;
					b = (b + 37) % 201;
				}
				for (i = 0; i < RTE_DIM(ps); i++) {
					int k = ref_match(rules, n, (enum acl_dir)dir, &ps[i]);
					uint8_t want = k >= 0 && rules[k].action == DP_ACL_DENY;

					mism += deny[i] != want;
					matched += k >= 0;
					if (k >= 0)
						want_hits[k]++;
					checked++;
				}
			}
			for (i = 0; i < n; i++)
				mism += c.hits[i] != want_hits[i];
			acl_free(a);
		}
	}
	printf("     reference: %" PRIu64 " packet classifications, %" PRIu64
	       " matched a rule, %" PRIu64 " mismatches\n",
	       checked, matched, mism);
	check(mism == 0, name, "deny flags and per-rule hits equal the reference");
	check(matched > checked / 4 && matched < checked, name, "rules and packets meet");
}

/* DP_MAX_ACL_RULES rules, as the loader's max test writes them: build time and memory. */
static void
test_max(void)
{
	static const char name[] = "max rules";
	struct rte_malloc_socket_stats before, after;
	struct pkt ps[64];
	uint8_t deny[64];
	struct acl_counters c = {0};
	uint64_t t0, t1;
	unsigned int i;
	struct acl *a;

	memset(cfg, 0, sizeof(*cfg));
	cfg->n_acl_rules = DP_MAX_ACL_RULES;
	for (i = 0; i < DP_MAX_ACL_RULES; i++)
		cfg->acl_rules[i] =
			rule(i % 2 ? DP_ACL_DENY : DP_ACL_PERMIT,
			     i % 3 ? DP_ACL_DIR_UP | DP_ACL_DIR_DOWN : DP_ACL_DIR_UP,
			     i % 2 ? DP_IPPROTO_UDP : DP_IPPROTO_TCP, A(10, i / 256, i % 256, 0),
			     24, 0, 0,
			     i % 2 ? (struct dp_port_range)ANY_PORTS
				   : (struct dp_port_range){1024, 65535},
			     (struct dp_port_range){(uint16_t)(i + 1), (uint16_t)(i + 1)});
	rte_malloc_get_socket_stats(0, &before);
	t0 = rte_rdtsc();
	a = acl_create(cfg, SOCKET_ID_ANY, NULL, 0);
	t1 = rte_rdtsc();
	rte_malloc_get_socket_stats(0, &after);
	check(a != NULL, name, "1024 rules build");
	if (a == NULL)
		return;
	printf("     max rules: build %.0f ms, %zu bytes of rte_malloc heap\n",
	       (double)(t1 - t0) * 1000 / (double)rte_get_tsc_hz(),
	       after.heap_allocsz_bytes - before.heap_allocsz_bytes);
	for (i = 0; i < 64; i++)
		ps[i] = (struct pkt)TCP(A(10, 3, 254, 1), 2000, A(1, 1, 1, 1), 1023);
	ps[1].src = A(10, 3, 255, 1); /* rule 1023: udp, deny, port 1024 */
	ps[1].proto = 17;
	ps[1].dport = 1024;
	classify(a, ACL_UP, ps, 64, deny, &c);
	check(deny[0] == 0 && c.hits[1022] == 63, name, "rule 1022 permits");
	check(deny[1] == 1 && c.hits[1023] == 1, name, "rule 1023 denies");
	acl_free(a);
}

/* An IPv6 packet: next header, addresses (text), ports. */
static void
build6(uint8_t *b, uint8_t nh, const char *src, const char *dst, uint16_t sp, uint16_t dp)
{
	memset(b, 0, PKT_MAX);
	b[0] = 0x60;
	put16(b + 4, 8);
	b[6] = nh;
	b[7] = 64;
	inet_pton(AF_INET6, src, b + 8);
	inet_pton(AF_INET6, dst, b + 24);
	put16(b + 40, sp);
	put16(b + 42, dp);
}

/* family ipv6 rules: matched on IPv6 only, first match in file order; never on IPv4. */
static void
test_ipv6_rules(void)
{
	static const char name[] = "ipv6 rules";
	struct dp_acl_rule rules[3];
	struct acl_counters c = {0};
	uint8_t b[PKT_MAX], deny[1];
	struct acl *a;

	memset(rules, 0, sizeof(rules));
	/* 0: ipv6 deny tcp ::/0 -> 2001:db8:dead::/48 port 25 (up) */
	rules[0].family = DP_ACL_IPV6;
	rules[0].action = DP_ACL_DENY;
	rules[0].dirs = DP_ACL_DIR_UP;
	rules[0].protocol = DP_IPPROTO_TCP;
	inet_pton(AF_INET6, "2001:db8:dead::", rules[0].dst6.addr);
	rules[0].dst6.len = 48;
	rules[0].sport = (struct dp_port_range){0, 65535};
	rules[0].dport = (struct dp_port_range){25, 25};
	/* 1: ipv6 permit any 2001:db8:dead:1::/64 (both), then 2: ipv6 deny any ::/0 -> dead::/48
	 * down */
	rules[1] = rules[0];
	rules[1].action = DP_ACL_PERMIT;
	rules[1].dirs = DP_ACL_DIR_UP | DP_ACL_DIR_DOWN;
	rules[1].protocol = DP_ACL_PROTO_ANY;
	inet_pton(AF_INET6, "2001:db8:dead:1::", rules[1].dst6.addr);
	rules[1].dst6.len = 64;
	rules[1].dport = (struct dp_port_range){0, 65535};
	rules[2] = rules[1];
	rules[2].action = DP_ACL_DENY;
	rules[2].dirs = DP_ACL_DIR_DOWN;
	rules[2].dst6.len = 48;
	inet_pton(AF_INET6, "2001:db8:dead::", rules[2].dst6.addr);
	a = make(name, rules, 3);
	if (a == NULL)
		return;
	CHECKF(a->ctx[ACL_UP] == NULL && a->ctx[ACL_DOWN] == NULL && a->n6[ACL_UP] == 2 &&
		       a->n6[ACL_DOWN] == 2,
	       "%s: no IPv4 context, two IPv6 rules each way", name);
	build6(b, 6, "2001:db8:100:1::2", "2001:db8:dead:5::1", 4000, 25);
	CHECKF(acl_classify6(a, ACL_UP, b, 48, &c) == 1 && c.hits[0] == 1, "%s: tcp 25 denied",
	       name);
	build6(b, 17, "2001:db8:100:1::2", "2001:db8:dead:5::1", 4000, 25);
	CHECKF(acl_classify6(a, ACL_UP, b, 48, &c) == 0, "%s: udp 25 permitted", name);
	build6(b, 6, "2001:db8:100:1::2", "2001:db8:beef::1", 4000, 25);
	CHECKF(acl_classify6(a, ACL_UP, b, 48, &c) == 0, "%s: other destination", name);
	build6(b, 6, "2001:db8:100:1::2", "2001:db8:dead::1", 4000, 25);
	CHECKF(acl_classify6(a, ACL_UP, b, 40, &c) == 0, "%s: no room for ports: port 0", name);
	build6(b, 17, "2001:db8::1", "2001:db8:dead:1::9", 53, 53);
	CHECKF(acl_classify6(a, ACL_DOWN, b, 48, &c) == 0 && c.hits[1] == 1,
	       "%s: first match permits", name);
	build6(b, 17, "2001:db8::1", "2001:db8:dead:2::9", 53, 53);
	CHECKF(acl_classify6(a, ACL_DOWN, b, 48, &c) == 1 && c.denied[ACL_DOWN] == 1,
	       "%s: then the deny", name);
	/* IPv4 packets see none of them */
	{
		struct pkt p = {.proto = 6, .src = 0x64500001, .dst = 0x0a000001, .dport = 25};

		classify(a, ACL_UP, &p, 1, deny, &c);
		CHECKF(deny[0] == 0, "%s: an IPv4 tcp 25 packet is not denied by an IPv6 rule",
		       name);
	}
	acl_free(a);
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_acl FIXTURE_DIR\n");
		return 2;
	}
	fixture_dir = argv[1];
	if (harness_eal_init(argv[0]) != 0)
		return 1;
	cfg = malloc(sizeof(*cfg));
	if (cfg == NULL)
		return 1;
	test_key();
	test_fields();
	test_first_match();
	test_directions();
	test_no_rules();
	test_fragments_options();
	test_lab();
	test_reference();
	test_max();
	test_ipv6_rules();
	free(cfg);
	rte_eal_cleanup();
	return harness_report();
}

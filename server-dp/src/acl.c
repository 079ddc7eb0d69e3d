/*
 * bng-dp operator ACL: building the two rte_acl contexts from the [acl.N]
 * rules (control thread, once at start). See acl.h.
 */

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "acl.h"

enum { F_PROTO, F_SRC, F_DST, F_SPORT, F_DPORT, ACL_FIELDS };

RTE_ACL_RULE_DEF(acl_rule, ACL_FIELDS);

static_assert(sizeof(struct acl_key) == 16, "packed key");
static_assert(DP_MAX_ACL_RULES < RTE_ACL_MAX_PRIORITY, "one priority per rule");

/* Input groups: the 1-byte protocol, then 4 bytes each (rte_acl's rule). */
static const struct rte_acl_field_def acl_fields[ACL_FIELDS] = {
	[F_PROTO] = {.type = RTE_ACL_FIELD_TYPE_BITMASK,
		     .size = sizeof(uint8_t),
		     .field_index = F_PROTO,
		     .input_index = 0,
		     .offset = offsetof(struct acl_key, proto)},
	[F_SRC] = {.type = RTE_ACL_FIELD_TYPE_MASK,
		   .size = sizeof(uint32_t),
		   .field_index = F_SRC,
		   .input_index = 1,
		   .offset = offsetof(struct acl_key, src)},
	[F_DST] = {.type = RTE_ACL_FIELD_TYPE_MASK,
		   .size = sizeof(uint32_t),
		   .field_index = F_DST,
		   .input_index = 2,
		   .offset = offsetof(struct acl_key, dst)},
	[F_SPORT] = {.type = RTE_ACL_FIELD_TYPE_RANGE,
		     .size = sizeof(uint16_t),
		     .field_index = F_SPORT,
		     .input_index = 3,
		     .offset = offsetof(struct acl_key, sport)},
	[F_DPORT] = {.type = RTE_ACL_FIELD_TYPE_RANGE,
		     .size = sizeof(uint16_t),
		     .field_index = F_DPORT,
		     .input_index = 3,
		     .offset = offsetof(struct acl_key, dport)},
};

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* rte_acl form of [acl.idx]: values in host order, prefixes as mask lengths. */
static void
rule_of(const struct dp_acl_rule *r, unsigned int idx, struct acl_rule *out)
{
	memset(out, 0, sizeof(*out));
	out->data.category_mask = 1;
	out->data.priority = (int32_t)(RTE_ACL_MAX_PRIORITY - idx);
	out->data.userdata = idx + 1;
	if (r->protocol != DP_ACL_PROTO_ANY) {
		out->field[F_PROTO].value.u8 = (uint8_t)r->protocol;
		out->field[F_PROTO].mask_range.u8 = UINT8_MAX;
	}
	out->field[F_SRC].value.u32 = r->src.addr;
	out->field[F_SRC].mask_range.u32 = r->src.len;
	out->field[F_DST].value.u32 = r->dst.addr;
	out->field[F_DST].mask_range.u32 = r->dst.len;
	out->field[F_SPORT].value.u16 = r->sport.lo;
	out->field[F_SPORT].mask_range.u16 = r->sport.hi;
	out->field[F_DPORT].value.u16 = r->dport.lo;
	out->field[F_DPORT].mask_range.u16 = r->dport.hi;
}

/* A prefix's 128-bit value and mask as two raw (network order as loaded) halves. */
static void
half6(const struct dp_ipv6_prefix *p, uint64_t v[2], uint64_t m[2])
{
	uint8_t mb[16] = {0};

	for (unsigned int b = 0; b < p->len; b++)
		mb[b / 8] |= (uint8_t)(0x80 >> (b % 8));
	memcpy(v, p->addr, 16);
	memcpy(m, mb, 16);
	v[0] &= m[0];
	v[1] &= m[1];
}

static void
rule6_of(const struct dp_acl_rule *r, unsigned int idx, struct acl6_rule *out)
{
	memset(out, 0, sizeof(*out));
	half6(&r->src6, out->src, out->srcm);
	half6(&r->dst6, out->dst, out->dstm);
	out->sp_lo = r->sport.lo;
	out->sp_hi = r->sport.hi;
	out->dp_lo = r->dport.lo;
	out->dp_hi = r->dport.hi;
	out->proto = r->protocol;
	out->idx = (uint16_t)idx;
}

static int
build_dir(struct acl *a, const struct dp_config *cfg, enum acl_dir dir, int socket, char *err,
	  size_t errlen)
{
	static const char *const dir_names[ACL_DIRS] = {"up", "down"};
	static uint32_t serial;
	uint8_t bit = dir == ACL_UP ? DP_ACL_DIR_UP : DP_ACL_DIR_DOWN;
	struct rte_acl_config bc = {.num_categories = 1, .num_fields = ACL_FIELDS};
	struct rte_acl_param prm = {.socket_id = socket, .rule_size = RTE_ACL_RULE_SZ(ACL_FIELDS)};
	char name[RTE_ACL_NAMESIZE];
	struct acl_rule rule;
	unsigned int i;
	int rc;

	for (i = 0; i < cfg->n_acl_rules; i++) {
		const struct dp_acl_rule *r = &cfg->acl_rules[i];

		if (!(r->dirs & bit))
			continue;
		if (r->family == DP_ACL_IPV6)
			a->n6[dir]++;
		else
			a->n_dir_rules[dir]++;
	}
	if (a->n6[dir] > 0) {
		a->v6[dir] = rte_zmalloc_socket("acl6", a->n6[dir] * sizeof(struct acl6_rule),
						RTE_CACHE_LINE_SIZE, socket);
		if (a->v6[dir] == NULL) {
			set_err(err, errlen, "acl: out of memory");
			return -ENOMEM;
		}
		unsigned int k = 0;

		for (i = 0; i < cfg->n_acl_rules; i++)
			if ((cfg->acl_rules[i].dirs & bit) &&
			    cfg->acl_rules[i].family == DP_ACL_IPV6)
				rule6_of(&cfg->acl_rules[i], i, &a->v6[dir][k++]);
	}
	if (a->n_dir_rules[dir] == 0)
		return 0;

	/* rte_acl_create() hands back an existing context of the same name. */
	snprintf(name, sizeof(name), "acl%u_%s", __atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED),
		 dir_names[dir]);
	prm.name = name;
	prm.max_rule_num = a->n_dir_rules[dir];
	a->ctx[dir] = rte_acl_create(&prm);
	if (a->ctx[dir] == NULL) {
		set_err(err, errlen, "acl: rte_acl_create (%s, %u rules): %s", dir_names[dir],
			prm.max_rule_num, rte_strerror(rte_errno));
		return -rte_errno;
	}
	for (i = 0; i < cfg->n_acl_rules; i++) {
		if (!(cfg->acl_rules[i].dirs & bit) || cfg->acl_rules[i].family == DP_ACL_IPV6)
			continue;
		rule_of(&cfg->acl_rules[i], i, &rule);
		rc = rte_acl_add_rules(a->ctx[dir], (const struct rte_acl_rule *)&rule, 1);
		if (rc != 0) {
			set_err(err, errlen, "acl: acl.%u: rte_acl_add_rules: %s", i,
				strerror(-rc));
			return rc;
		}
	}
	memcpy(bc.defs, acl_fields, sizeof(acl_fields));
	rc = rte_acl_build(a->ctx[dir], &bc);
	if (rc != 0)
		set_err(err, errlen, "acl: rte_acl_build (%s, %u rules): %s", dir_names[dir],
			a->n_dir_rules[dir], strerror(-rc));
	return rc;
}

struct acl *
acl_create(const struct dp_config *cfg, int socket, char *err, size_t errlen)
{
	struct acl *a;
	unsigned int i;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	a = rte_zmalloc_socket("acl", sizeof(*a), RTE_CACHE_LINE_SIZE, socket);
	if (a == NULL) {
		set_err(err, errlen, "acl: out of memory");
		return NULL;
	}
	a->n_rules = cfg->n_acl_rules;
	for (i = 0; i < cfg->n_acl_rules; i++)
		a->deny[i] = cfg->acl_rules[i].action == DP_ACL_DENY;
	if (build_dir(a, cfg, ACL_UP, socket, err, errlen) != 0 ||
	    build_dir(a, cfg, ACL_DOWN, socket, err, errlen) != 0) {
		acl_free(a);
		return NULL;
	}
	return a;
}

void
acl_free(struct acl *a)
{
	if (a == NULL)
		return;
	rte_acl_free(a->ctx[ACL_UP]);
	rte_acl_free(a->ctx[ACL_DOWN]);
	rte_free(a->v6[ACL_UP]);
	rte_free(a->v6[ACL_DOWN]);
	rte_free(a);
}

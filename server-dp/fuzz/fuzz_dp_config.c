/*
 * libFuzzer target for dp_config_load().
 *
 * Each input is written to a memfd and loaded through /proc/self/fd/N, the
 * same path-based entry the datapath uses. Besides the sanitizers, a
 * successful load must satisfy the invariants dp_config.h promises, and a
 * failed one must leave a terminated, non-empty message and a zeroed cfg.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dp_config.h"

#define CHECK(cond)                                                       \
	do {                                                              \
		if (!(cond)) {                                            \
			fprintf(stderr, "invariant failed: %s\n", #cond); \
			abort();                                          \
		}                                                         \
	} while (0)

static bool
name_ok(const char *name)
{
	size_t n = strnlen(name, DP_NAME_SIZE);

	return n > 0 && n < DP_NAME_SIZE;
}

static bool
range_ok(const struct dp_tag_range *r)
{
	return r->lo >= DP_VLAN_ID_MIN && r->lo <= r->hi && r->hi <= DP_VLAN_ID_MAX;
}

static void
check_lines(const struct dp_config *cfg)
{
	const struct dp_line *a, *b;
	unsigned int i, j;

	for (i = 0; i < cfg->n_lines; i++) {
		a = &cfg->lines[i];
		CHECK(a->group < cfg->n_line_groups);
		CHECK(a->access_port < cfg->n_access_ports);
		CHECK(range_ok(&a->stag) && range_ok(&a->ctag));
		CHECK(!a->ctag_any ||
		      (a->ctag.lo == DP_VLAN_ID_MIN && a->ctag.hi == DP_VLAN_ID_MAX));
		for (j = 0; j < i; j++) {
			b = &cfg->lines[j];
			if (a->stag.lo > b->stag.hi || b->stag.lo > a->stag.hi)
				continue;
			/* different ports may share S-tags while a group is standby */
			if (a->access_port != b->access_port) {
				CHECK(cfg->line_groups[a->group].standby ||
				      cfg->line_groups[b->group].standby);
				continue;
			}
			CHECK(a->ctag.lo > b->ctag.hi || b->ctag.lo > a->ctag.hi);
		}
	}
}

static uint32_t
mask_of(uint8_t len)
{
	return len == 0 ? 0 : UINT32_MAX << (32 - len);
}

static bool
prefix_ok(const struct dp_ipv4_prefix *p, uint8_t min_len)
{
	return p->len >= min_len && p->len <= 32 && (p->addr & ~mask_of(p->len)) == 0;
}

static bool
within(const struct dp_ipv4_prefix *inner, const struct dp_ipv4_prefix *outer)
{
	return inner->len >= outer->len && (inner->addr & mask_of(outer->len)) == outer->addr;
}

static bool
ports_any(const struct dp_port_range *r)
{
	return r->lo == 0 && r->hi == UINT16_MAX;
}

static void
check_acl_rules(const struct dp_config *cfg)
{
	unsigned int i;

	for (i = 0; i < cfg->n_acl_rules; i++) {
		const struct dp_acl_rule *r = &cfg->acl_rules[i];

		CHECK(r->action == DP_ACL_PERMIT || r->action == DP_ACL_DENY);
		CHECK(r->dirs >= 1 && r->dirs <= (DP_ACL_DIR_UP | DP_ACL_DIR_DOWN));
		CHECK(r->protocol <= DP_ACL_PROTO_ANY);
		CHECK(prefix_ok(&r->src, 0) && prefix_ok(&r->dst, 0));
		CHECK(ports_any(&r->sport) || (r->sport.lo >= 1 && r->sport.lo <= r->sport.hi));
		CHECK(ports_any(&r->dport) || (r->dport.lo >= 1 && r->dport.lo <= r->dport.hi));
		CHECK((ports_any(&r->sport) && ports_any(&r->dport)) ||
		      r->protocol == DP_IPPROTO_TCP || r->protocol == DP_IPPROTO_UDP);
	}
}

static void
check_routes(const struct dp_config *cfg)
{
	static const struct dp_ipv4_prefix martians[DP_N_MARTIANS] = DP_MARTIANS;
	const struct dp_ipv4_prefix *core = &cfg->core.subnet;
	unsigned int i, j, g;

	for (i = 0; i < cfg->n_routes; i++) {
		const struct dp_route *r = &cfg->routes[i];

		CHECK(prefix_ok(&r->prefix, 1));
		CHECK(!within(&r->prefix, core));
		for (j = 0; j < DP_N_MARTIANS; j++)
			CHECK(!within(&r->prefix, &martians[j]));
		for (j = 0; j < i; j++)
			CHECK(r->prefix.addr != cfg->routes[j].prefix.addr ||
			      r->prefix.len != cfg->routes[j].prefix.len);
		CHECK(r->drop == (r->via == 0));
		if (!r->drop)
			CHECK((r->via & mask_of(core->len)) == core->addr);
		for (g = 0; g < cfg->n_line_groups; g++) {
			const struct dp_line_group *lg = &cfg->line_groups[g];

			CHECK(r->via != lg->core_address);
			for (j = 0; j < lg->n_prefixes; j++)
				CHECK(!within(&r->prefix, &lg->prefixes[j]));
		}
	}
}

static void
check_config(const struct dp_config *cfg)
{
	unsigned int i, j;

	CHECK(cfg->n_access_ports <= DP_MAX_ACCESS_PORTS);
	CHECK(cfg->n_line_groups <= DP_MAX_LINE_GROUPS);
	CHECK(cfg->n_lines <= DP_MAX_LINES);
	CHECK(cfg->n_qos_profiles <= DP_MAX_QOS_PROFILES);
	CHECK(cfg->n_acl_rules <= DP_MAX_ACL_RULES);
	CHECK(cfg->n_routes <= DP_MAX_ROUTES);
	CHECK(name_ok(cfg->instance.name) && name_ok(cfg->instance.pod));
	CHECK(cfg->instance.id >= DP_INSTANCE_ID_MIN && cfg->instance.id <= DP_INSTANCE_ID_MAX);
	CHECK(cfg->instance.n_worker_cores >= 1);
	CHECK(cfg->instance.n_worker_cores <= DP_MAX_WORKER_CORES);
	CHECK(cfg->instance.port_rate >= 1 && cfg->instance.port_rate <= DP_MAX_RATE);
	CHECK(cfg->core.subnet.len >= 1 && cfg->core.subnet.len <= 32);
	CHECK(cfg->core.vlan <= DP_VLAN_ID_MAX);

	for (i = 0; i < cfg->n_access_ports; i++) {
		CHECK(name_ok(cfg->access_ports[i].name));
		CHECK(cfg->access_ports[i].tpid == DP_TPID_8021Q ||
		      cfg->access_ports[i].tpid == DP_TPID_8021AD);
		for (j = 0; j < i; j++)
			CHECK(strcmp(cfg->access_ports[i].name, cfg->access_ports[j].name) != 0);
	}
	for (i = 0; i < cfg->n_line_groups; i++) {
		const struct dp_line_group *lg = &cfg->line_groups[i];

		CHECK(name_ok(lg->name));
		CHECK(lg->qos_profile < cfg->n_qos_profiles);
		CHECK(lg->n_prefixes >= 1 && lg->n_prefixes <= DP_MAX_GROUP_PREFIXES);
		for (j = 0; j < lg->n_prefixes; j++) {
			static const struct dp_ipv4_prefix martians[DP_N_MARTIANS] = DP_MARTIANS;
			unsigned int k;

			CHECK(prefix_ok(&lg->prefixes[j], 1));
			for (k = 0; k < DP_N_MARTIANS; k++)
				CHECK(!within(&lg->prefixes[j], &martians[k]));
		}
	}
	for (i = 0; i < cfg->n_qos_profiles; i++) {
		const struct dp_qos_profile *qp = &cfg->qos_profiles[i];

		CHECK(name_ok(qp->name));
		CHECK(qp->default_tc < DP_NUM_TCS);
		CHECK(qp->up_cir <= qp->up_pir);
		CHECK(qp->up_dscp == DP_DSCP_KEEP || qp->up_dscp < DP_NUM_DSCPS);
		CHECK(qp->down_rate >= 1 && qp->down_rate <= cfg->instance.port_rate);
		for (j = 0; j < DP_NUM_DSCPS; j++)
			CHECK(qp->dscp_tc[j] < DP_NUM_TCS);
		for (j = 0; j < DP_NUM_TCS; j++)
			CHECK(qp->tc_rate[j] >= 1 && qp->tc_rate[j] <= qp->down_rate);
		for (j = 0; j < DP_NUM_BE_QUEUES; j++)
			CHECK(qp->be_weights[j] >= 1);
	}
	for (i = 0; i < DP_PUNT_CLASSES; i++) {
		const struct dp_punt_class_cfg *k = &cfg->punt.cls[i];

		CHECK(k->client.rate >= 1 && k->client.rate <= DP_PUNT_MAX_RATE);
		CHECK(k->line.rate >= 1 && k->line.rate <= DP_PUNT_MAX_RATE);
		CHECK(k->client.burst >= 1 && k->client.burst <= DP_PUNT_MAX_BURST);
		CHECK(k->line.burst >= 1 && k->line.burst <= DP_PUNT_MAX_BURST);
		CHECK(k->ring_percent >= 1 && k->ring_percent <= 100);
	}
	check_lines(cfg);
	check_acl_rules(cfg);
	check_routes(cfg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Heap, not stack or .bss: ASan then sees overflows of the 165 KiB struct. */
	static struct dp_config *cfg;
	static const struct dp_config zero;
	char path[40], err[256];
	size_t done = 0;
	ssize_t n;
	int fd, rc;

	if (cfg == NULL) {
		cfg = malloc(sizeof(*cfg));
		CHECK(cfg != NULL);
	}
	fd = memfd_create("fuzz_dp_config", MFD_CLOEXEC);
	CHECK(fd >= 0);
	while (done < size) {
		n = write(fd, data + done, size - done);
		CHECK(n > 0);
		done += (size_t)n;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);

	memset(err, 'x', sizeof(err));
	rc = dp_config_load(path, cfg, err, sizeof(err));
	close(fd);

	if (rc == 0) {
		check_config(cfg);
	} else {
		CHECK(rc < 0);
		CHECK(memchr(err, '\0', sizeof(err)) != NULL && err[0] != '\0');
		/* memcmp, not a byte loop: compare tracing of 165 KiB would dominate. */
		CHECK(memcmp(cfg, &zero, sizeof(zero)) == 0);
	}
	return 0;
}

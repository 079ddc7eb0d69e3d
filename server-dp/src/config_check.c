/*
 * bng-dp-config: load a dp/<name>.ini as bng-dp would and print it back one
 * line per object, or print why it was refused (exit 1). Runs without EAL,
 * hugepages or NICs, so it fits into generator tests and deploy checks.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp_config.h"

#define IPV4_STRLEN 16 /* "255.255.255.255" */
#define MAC_STRLEN 18  /* "aa:bb:cc:dd:ee:ff" */

static const char *
ipv4_str(uint32_t a, char buf[IPV4_STRLEN])
{
	snprintf(buf, IPV4_STRLEN, "%u.%u.%u.%u", a >> 24, (a >> 16) & 0xff, (a >> 8) & 0xff,
		 a & 0xff);
	return buf;
}

static const char *
mac_str(const uint8_t m[DP_ETHER_ADDR_LEN], char buf[MAC_STRLEN])
{
	snprintf(buf, MAC_STRLEN, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4],
		 m[5]);
	return buf;
}

static void
print_instance(const struct dp_config *cfg)
{
	const struct dp_instance *inst = &cfg->instance;
	char mac[MAC_STRLEN], control[IPV4_STRLEN], cp[IPV4_STRLEN];
	unsigned int i;

	printf("instance %s id=%" PRIu32 " pod=%s data_mac=%s workers=", inst->name, inst->id,
	       inst->pod, mac_str(inst->data_mac, mac));
	for (i = 0; i < inst->n_worker_cores; i++)
		printf("%s%u", i > 0 ? "," : "", inst->worker_cores[i]);
	printf(" port_rate=%" PRIu64 " control=%s/%u cp=%s pfcp_port=%u vxlan_port=%u\n",
	       inst->port_rate, ipv4_str(inst->control_address, control), inst->control_prefix_len,
	       ipv4_str(inst->cp_address, cp), inst->pfcp_port, inst->vxlan_port);
}

static void
print_core(const struct dp_config *cfg)
{
	const struct dp_core *core = &cfg->core;
	char subnet[IPV4_STRLEN], router[IPV4_STRLEN];

	printf("core subnet=%s/%u router=%s vlan=%u\n", ipv4_str(core->subnet.addr, subnet),
	       core->subnet.len, ipv4_str(core->router_address, router), core->vlan);
}

static void
print_access_port(const struct dp_config *cfg, unsigned int i)
{
	const struct dp_access_port *port = &cfg->access_ports[i];

	printf("access_port.%u %s tpid=0x%04x rate=%" PRIu64 "\n", i, port->name, port->tpid,
	       port->rate);
}

static void
print_line_group(const struct dp_config *cfg, unsigned int i)
{
	const struct dp_line_group *lg = &cfg->line_groups[i];
	char ac_mac[MAC_STRLEN], core_mac[MAC_STRLEN], core[IPV4_STRLEN], pfx[IPV4_STRLEN];
	unsigned int p;

	printf("line_group.%u %s ac_mac=%s core=%s core_mac=%s prefixes=", i, lg->name,
	       mac_str(lg->ac_mac, ac_mac), ipv4_str(lg->core_address, core),
	       mac_str(lg->core_mac, core_mac));
	for (p = 0; p < lg->n_prefixes; p++)
		printf("%s%s/%u", p > 0 ? "," : "", ipv4_str(lg->prefixes[p].addr, pfx),
		       lg->prefixes[p].len);
	printf(" qos_profile=%s", cfg->qos_profiles[lg->qos_profile].name);
	if (lg->session_types & DP_SESSION_TYPE_IPOE) {
		printf(" session_types=%s",
		       lg->session_types & DP_SESSION_TYPE_PPPOE ? "pppoe,ipoe" : "ipoe");
		printf(" ipoe_gateways=");
		for (p = 0; p < lg->n_ipoe_gateways; p++)
			printf("%s%s/%u", p > 0 ? "," : "",
			       ipv4_str(lg->ipoe_gateways[p].addr, pfx), lg->ipoe_gateways[p].len);
		printf(" ipoe_proxy_arp=%s", lg->ipoe_proxy_arp ? "yes" : "no");
	}
	printf("\n");
}

static void
print_line(const struct dp_config *cfg, unsigned int i)
{
	const struct dp_line *line = &cfg->lines[i];

	printf("line.%u group=%s access_port=%s stag=%u-%u ctag=", i,
	       cfg->line_groups[line->group].name, cfg->access_ports[line->access_port].name,
	       line->stag.lo, line->stag.hi);
	if (line->ctag_any)
		printf("any\n");
	else
		printf("%u-%u\n", line->ctag.lo, line->ctag.hi);
}

static void
print_qos_profile(const struct dp_config *cfg, unsigned int i)
{
	const struct dp_qos_profile *qp = &cfg->qos_profiles[i];
	const char *sep = "";
	unsigned int d, tc, q;

	printf("qos_profile.%u %s down_rate=%" PRIu64 " up_pir=%" PRIu64 " up_cir=%" PRIu64
	       " up_dscp=",
	       i, qp->name, qp->down_rate, qp->up_pir, qp->up_cir);
	if (qp->up_dscp == DP_DSCP_KEEP)
		printf("keep");
	else
		printf("%u", qp->up_dscp);
	printf(" default_tc=%u dscp_map=", qp->default_tc);
	for (d = 0; d < DP_NUM_DSCPS; d++) {
		if (qp->dscp_listed & (UINT64_C(1) << d)) {
			printf("%s%u:%u", sep, d, qp->dscp_tc[d]);
			sep = ",";
		}
	}
	printf("%s tc_rates=", *sep == '\0' ? "-" : "");
	sep = "";
	for (tc = 0; tc < DP_NUM_TCS; tc++) {
		if (qp->tc_rate_listed & (1u << tc)) {
			printf("%s%u:%" PRIu64, sep, tc, qp->tc_rate[tc]);
			sep = ",";
		}
	}
	printf("%s be_weights=", *sep == '\0' ? "-" : "");
	for (q = 0; q < DP_NUM_BE_QUEUES; q++)
		printf("%s%u", q > 0 ? "," : "", qp->be_weights[q]);
	printf("\n");
}

static void
print_ports(const char *what, const struct dp_port_range *r)
{
	if (r->lo == 0 && r->hi == UINT16_MAX)
		printf(" %s=any", what);
	else
		printf(" %s=%u-%u", what, r->lo, r->hi);
}

static void
print_acl_rule(const struct dp_config *cfg, unsigned int i)
{
	static const char *const dirs[] = {"-", "up", "down", "both"};
	const struct dp_acl_rule *r = &cfg->acl_rules[i];
	char src[IPV4_STRLEN], dst[IPV4_STRLEN];

	printf("acl.%u %s %s protocol=", i, r->action == DP_ACL_DENY ? "deny" : "permit",
	       dirs[r->dirs & 3]);
	if (r->protocol == DP_ACL_PROTO_ANY)
		printf("any");
	else
		printf("%u", r->protocol);
	printf(" source=%s/%u destination=%s/%u", ipv4_str(r->src.addr, src), r->src.len,
	       ipv4_str(r->dst.addr, dst), r->dst.len);
	print_ports("source_ports", &r->sport);
	print_ports("destination_ports", &r->dport);
	printf("\n");
}

static void
print_route(const struct dp_config *cfg, unsigned int i)
{
	const struct dp_route *r = &cfg->routes[i];
	char pfx[IPV4_STRLEN], via[IPV4_STRLEN];

	printf("route.%u %s/%u via=%s\n", i, ipv4_str(r->prefix.addr, pfx), r->prefix.len,
	       r->drop ? "drop" : ipv4_str(r->via, via));
}

static void
print_punt(const struct dp_config *cfg)
{
	for (unsigned int c = 0; c < DP_PUNT_CLASSES; c++) {
		const struct dp_punt_class_cfg *k = &cfg->punt.cls[c];

		printf("punt.%s client_rate=%u client_burst=%u line_rate=%u line_burst=%u "
		       "ring_percent=%u\n",
		       dp_punt_class_names[c], k->client.rate, k->client.burst, k->line.rate,
		       k->line.burst, k->ring_percent);
	}
}

static void
print_config(const struct dp_config *cfg)
{
	unsigned int i;

	print_instance(cfg);
	print_core(cfg);
	for (i = 0; i < cfg->n_access_ports; i++)
		print_access_port(cfg, i);
	for (i = 0; i < cfg->n_line_groups; i++)
		print_line_group(cfg, i);
	for (i = 0; i < cfg->n_lines; i++)
		print_line(cfg, i);
	for (i = 0; i < cfg->n_qos_profiles; i++)
		print_qos_profile(cfg, i);
	for (i = 0; i < cfg->n_acl_rules; i++)
		print_acl_rule(cfg, i);
	for (i = 0; i < cfg->n_routes; i++)
		print_route(cfg, i);
	print_punt(cfg);
}

static void
usage(FILE *out)
{
	fprintf(out, "usage: bng-dp-config FILE\n"
		     "Check a bng-dp instance configuration (dp/<name>.ini) and print it,\n"
		     "one line per object. Exit status 0 if valid, 1 if not.\n");
}

int
main(int argc, char **argv)
{
	struct dp_config *cfg;
	char err[512];
	int rc;

	if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc != 2) {
		usage(stderr);
		return 2;
	}

	/* About 165 KiB: not for the stack. */
	cfg = malloc(sizeof(*cfg));
	if (cfg == NULL) {
		fprintf(stderr, "bng-dp-config: %s\n", strerror(ENOMEM));
		return 1;
	}
	rc = dp_config_load(argv[1], cfg, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "bng-dp-config: %s: %s\n", argv[1], err);
		free(cfg);
		return 1;
	}
	print_config(cfg);
	free(cfg);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "bng-dp-config: write error\n");
		return 1;
	}
	return 0;
}

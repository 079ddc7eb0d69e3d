/*
 * Tests of dp_config_load(), table-driven.
 *
 * usage: test_dp_config FIXTURE_DIR SCRATCH_DIR
 *   FIXTURE_DIR  tests/fixtures (lab_dp4.ini, multi_group.ini, ...)
 *   SCRATCH_DIR  where the generated case files are written
 * env DP_GOLDEN_ROOT: directory of <pod>/dp/<name>.ini generator golden files;
 *   each is loaded too. Skipped, with a message, when absent.
 *
 * Most rejection cases are the lab fixture with a few edits applied (set a
 * key, drop a key, add a line, drop a section, append text); each must fail
 * with a message containing the expected section and key. Raw cases feed
 * bytes that are not the contract's INI at all. The last line of output is
 * always "N passed, M failed"; the exit status is 1 when M > 0.
 */

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dp_config.h"
#include "harness.h"

#define MAX_EDITS 10

enum edit_op {
	EDIT_END = 0,	   /* terminates the edit list */
	EDIT_SET,	   /* section, key, text: replace the key's value */
	EDIT_DEL,	   /* section, key: drop the key's line */
	EDIT_ADD,	   /* section, text: raw line right after the section header */
	EDIT_DROP_SECTION, /* section: drop its header and keys */
	EDIT_APPEND,	   /* text: raw text at the end of the file */
};

struct edit {
	enum edit_op op;
	const char *section;
	const char *key;
	const char *text;
};

#define SET(s, k, v)                    \
	{                               \
		EDIT_SET, (s), (k), (v) \
	}
#define DEL(s, k)                        \
	{                                \
		EDIT_DEL, (s), (k), NULL \
	}
#define ADD(s, line)                        \
	{                                   \
		EDIT_ADD, (s), NULL, (line) \
	}
#define DROP(s)                                    \
	{                                          \
		EDIT_DROP_SECTION, (s), NULL, NULL \
	}
#define APPEND(t)                            \
	{                                    \
		EDIT_APPEND, NULL, NULL, (t) \
	}

/* The lab fixture with edits; expect NULL means it must load. */
struct edit_case {
	const char *name;
	struct edit edits[MAX_EDITS];
	const char *expect;
};

/* Bytes that are written as they are. */
struct raw_case {
	const char *name;
	const char *data;
	size_t len;
	const char *expect;
};

#define RAW(name, lit, expect)                           \
	{                                                \
		(name), (lit), sizeof(lit) - 1, (expect) \
	}

static const char *fixture_dir;
static const char *scratch_path;
static struct dp_config *cfg;

/* Growable text buffer. */
struct text {
	char *p;
	size_t len;
	size_t cap;
};

static void
text_add(struct text *t, const char *s, size_t n)
{
	if (t->len + n + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 4096;
		char *p;

		while (t->len + n + 1 > cap)
			cap *= 2;
		p = realloc(t->p, cap);
		if (p == NULL) {
			fprintf(stderr, "out of memory\n");
			exit(2);
		}
		t->p = p;
		t->cap = cap;
	}
	memcpy(t->p + t->len, s, n);
	t->len += n;
	t->p[t->len] = '\0';
}

static void text_printf(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
text_printf(struct text *t, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(buf)) {
		fprintf(stderr, "text_printf: line too long\n");
		exit(2);
	}
	text_add(t, buf, (size_t)n);
}

static void
text_free(struct text *t)
{
	free(t->p);
	t->p = NULL;
	t->len = t->cap = 0;
}

static bool
read_text(const char *path, struct text *t)
{
	char buf[4096];
	size_t n;
	FILE *f;

	f = fopen(path, "rb");
	if (f == NULL)
		return false;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		text_add(t, buf, n);
	fclose(f);
	return true;
}

static bool
write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	bool ok;

	if (f == NULL)
		return false;
	ok = fwrite(data, 1, len, f) == len;
	return fclose(f) == 0 && ok;
}

static void
pass(const char *name)
{
	n_passed++;
	printf("ok   %s\n", name);
}

static void failed(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
failed(const char *name, const char *fmt, ...)
{
	va_list ap;

	n_failed++;
	printf("FAIL %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* "[ name ]" -> name; false if the line is no section header. */
static bool
header_name(const char *line, size_t n, char *out, size_t outlen)
{
	size_t i = 0, j;

	while (i < n && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i == n || line[i] != '[')
		return false;
	j = ++i;
	while (j < n && line[j] != ']')
		j++;
	snprintf(out, outlen, "%.*s", (int)(j - i), line + i);
	return true;
}

/* Is this line "key = ..." for the given key? */
static bool
line_has_key(const char *line, size_t n, const char *key)
{
	size_t i = 0, k = strlen(key);

	while (i < n && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (n - i < k || strncmp(line + i, key, k) != 0)
		return false;
	i += k;
	while (i < n && (line[i] == ' ' || line[i] == '\t'))
		i++;
	return i < n && line[i] == '=';
}

/*
 * Applies edits to base into out. Every edit must apply at least once, so a
 * drifting fixture fails loudly instead of testing nothing.
 */
static bool
apply_edits(const char *base, const struct edit *edits, struct text *out, const char **unapplied)
{
	unsigned int hits[MAX_EDITS] = {0};
	char section[128] = "";
	const char *line = base, *nl;
	size_t n;
	int e;

	for (; *line != '\0'; line += n + (nl != NULL)) {
		bool is_header, keep = true;

		nl = strchr(line, '\n');
		n = nl != NULL ? (size_t)(nl - line) : strlen(line);
		is_header = header_name(line, n, section, sizeof(section));

		for (e = 0; e < MAX_EDITS && edits[e].op != EDIT_END; e++) {
			const struct edit *ed = &edits[e];

			if (ed->section == NULL || strcmp(ed->section, section) != 0)
				continue;
			if (ed->op == EDIT_DROP_SECTION) {
				keep = false;
				hits[e]++;
			} else if (!is_header && (ed->op == EDIT_SET || ed->op == EDIT_DEL) &&
				   line_has_key(line, n, ed->key)) {
				keep = false;
				hits[e]++;
				if (ed->op == EDIT_SET)
					text_printf(out, "%s = %s\n", ed->key, ed->text);
			}
		}
		if (keep) {
			text_add(out, line, n);
			text_add(out, "\n", 1);
		}
		for (e = 0; is_header && e < MAX_EDITS && edits[e].op != EDIT_END; e++) {
			if (edits[e].op == EDIT_ADD && strcmp(edits[e].section, section) == 0) {
				text_printf(out, "%s\n", edits[e].text);
				hits[e]++;
			}
		}
	}
	for (e = 0; e < MAX_EDITS && edits[e].op != EDIT_END; e++) {
		if (edits[e].op == EDIT_APPEND) {
			text_add(out, edits[e].text, strlen(edits[e].text));
			hits[e]++;
		}
		if (hits[e] == 0) {
			*unapplied = edits[e].section;
			return false;
		}
	}
	return true;
}

/* Loads path; expect NULL: must succeed, else must fail with expect in err. */
static bool
check_load(const char *name, const char *path, const char *expect)
{
	char err[512];
	int rc;

	rc = dp_config_load(path, cfg, err, sizeof(err));
	if (expect == NULL) {
		if (rc != 0) {
			failed(name, "expected success, got %d: %s", rc, err);
			return false;
		}
		return true;
	}
	if (rc == 0) {
		failed(name, "loaded, expected error containing \"%s\"", expect);
		return false;
	}
	if (strstr(err, expect) == NULL) {
		failed(name, "error \"%s\" does not contain \"%s\"", err, expect);
		return false;
	}
	return true;
}

static void
run_edit_case(const char *base, const struct edit_case *c)
{
	struct text t = {0};
	const char *unapplied = NULL;

	if (!apply_edits(base, c->edits, &t, &unapplied)) {
		failed(c->name, "edit of [%s] did not apply to the fixture",
		       unapplied ? unapplied : "?");
	} else if (!write_file(scratch_path, t.p, t.len)) {
		failed(c->name, "cannot write %s: %s", scratch_path, strerror(errno));
	} else if (check_load(c->name, scratch_path, c->expect)) {
		pass(c->name);
	}
	text_free(&t);
}

static void
run_raw_case(const struct raw_case *c)
{
	if (!write_file(scratch_path, c->data, c->len))
		failed(c->name, "cannot write %s: %s", scratch_path, strerror(errno));
	else if (check_load(c->name, scratch_path, c->expect))
		pass(c->name);
}

/* Field checks: record the first mismatch and leave the case. */
#define EXPECT(name, cond)                                                      \
	do {                                                                    \
		if (!(cond)) {                                                  \
			failed((name), "%s:%d: %s", __FILE__, __LINE__, #cond); \
			return;                                                 \
		}                                                               \
	} while (0)

static void
test_lab_fields(void)
{
	static const char name[] = "valid: lab_dp4.ini (doc example) fields";
	static const uint8_t data_mac[] = {0x02, 0x00, 0x00, 0x00, 0x02, 0x02};
	const struct dp_qos_profile *gold, *silver;
	const struct dp_line_group *lg;
	const struct dp_acl_rule *acl;
	char path[4096];
	int d, tc;

	snprintf(path, sizeof(path), "%s/lab_dp4.ini", fixture_dir);
	if (!check_load(name, path, NULL))
		return;
	EXPECT(name, cfg->instance.id == 4);
	EXPECT(name, strcmp(cfg->instance.name, "dp4") == 0);
	EXPECT(name, strcmp(cfg->instance.pod, "lab") == 0);
	EXPECT(name, memcmp(cfg->instance.data_mac, data_mac, 6) == 0);
	EXPECT(name, cfg->instance.n_worker_cores == 1 && cfg->instance.worker_cores[0] == 1);
	EXPECT(name, cfg->instance.port_rate == 12500000000ULL);
	EXPECT(name, cfg->instance.control_address == 0x0ac8000e);
	EXPECT(name, cfg->instance.control_prefix_len == 24);
	EXPECT(name, cfg->instance.cp_address == 0x0ac80001);
	EXPECT(name, cfg->instance.pfcp_port == 8805 && cfg->instance.vxlan_port == 4789);
	EXPECT(name, cfg->n_access_ports == 2 && cfg->n_line_groups == 1);
	EXPECT(name, cfg->n_lines == 2 && cfg->n_qos_profiles == 2);

	EXPECT(name, cfg->core.subnet.addr == 0x64400000 && cfg->core.subnet.len == 24);
	EXPECT(name, cfg->core.router_address == 0x64400001 && cfg->core.vlan == 0);

	EXPECT(name, strcmp(cfg->access_ports[0].name, "access3") == 0);
	EXPECT(name, cfg->access_ports[0].tpid == DP_TPID_8021Q);
	EXPECT(name, cfg->access_ports[1].tpid == DP_TPID_8021AD);
	EXPECT(name, cfg->access_ports[1].rate == 10000000000ULL);

	lg = &cfg->line_groups[0];
	EXPECT(name, strcmp(lg->name, "lg4") == 0);
	EXPECT(name, lg->ac_mac[0] == 0x02 && lg->ac_mac[1] == 0xbb && lg->ac_mac[5] == 0x04);
	EXPECT(name, lg->core_mac[1] == 0xcc && lg->core_address == 0x6440000e);
	EXPECT(name, lg->n_prefixes == 1 && lg->prefixes[0].addr == 0x64500c00);
	EXPECT(name, lg->prefixes[0].len == 22);
	EXPECT(name, lg->qos_profile == 0);

	EXPECT(name, cfg->lines[0].group == 0 && cfg->lines[0].access_port == 0);
	EXPECT(name, cfg->lines[0].stag.lo == 300 && cfg->lines[0].stag.hi == 300);
	EXPECT(name, cfg->lines[0].ctag.lo == 2000 && cfg->lines[0].ctag.hi == 4094);
	EXPECT(name, !cfg->lines[0].ctag_any);
	EXPECT(name, cfg->lines[1].access_port == 1 && cfg->lines[1].ctag_any);
	EXPECT(name, cfg->lines[1].ctag.lo == 1 && cfg->lines[1].ctag.hi == 4094);
	EXPECT(name, cfg->lines[1].stag.lo == 400 && cfg->lines[1].stag.hi == 449);

	gold = &cfg->qos_profiles[0];
	EXPECT(name, strcmp(gold->name, "gold") == 0);
	EXPECT(name, gold->down_rate == 100000000 && gold->up_pir == 50000000);
	EXPECT(name, gold->up_cir == 20000000 && gold->default_tc == 12);
	EXPECT(name, gold->up_dscp == DP_DSCP_KEEP);
	for (d = 0; d < DP_NUM_DSCPS; d++) {
		int want = d == 34 || d == 36 ? 2 : d == 46 ? 0 : 12;

		EXPECT(name, gold->dscp_tc[d] == want);
	}
	EXPECT(name, gold->dscp_listed == ((1ULL << 34) | (1ULL << 36) | (1ULL << 46)));
	EXPECT(name, gold->tc_rate[0] == 2000000 && gold->tc_rate_listed == 1);
	for (tc = 1; tc < DP_NUM_TCS; tc++)
		EXPECT(name, gold->tc_rate[tc] == gold->down_rate);
	EXPECT(name, gold->be_weights[0] == 4 && gold->be_weights[1] == 2);
	EXPECT(name, gold->be_weights[2] == 1 && gold->be_weights[3] == 1);

	silver = &cfg->qos_profiles[1];
	EXPECT(name, silver->dscp_listed == 0 && silver->tc_rate_listed == 0);
	EXPECT(name, silver->dscp_tc[46] == 12 && silver->tc_rate[12] == 20000000);
	EXPECT(name, silver->up_dscp == 0);

	EXPECT(name, cfg->n_acl_rules == 1 && cfg->n_routes == 2);
	acl = &cfg->acl_rules[0];
	EXPECT(name, acl->action == DP_ACL_DENY && acl->dirs == DP_ACL_DIR_UP);
	EXPECT(name, acl->protocol == DP_IPPROTO_TCP);
	EXPECT(name, acl->src.addr == 0 && acl->src.len == 0);
	EXPECT(name, acl->dst.addr == 0 && acl->dst.len == 0);
	EXPECT(name, acl->sport.lo == 0 && acl->sport.hi == 65535);
	EXPECT(name, acl->dport.lo == 25 && acl->dport.hi == 25);
	EXPECT(name, cfg->routes[0].prefix.addr == 0xc0000200 && cfg->routes[0].prefix.len == 24);
	EXPECT(name, !cfg->routes[0].drop && cfg->routes[0].via == 0x64400002);
	EXPECT(name, cfg->routes[1].prefix.addr == 0xcb007100 && cfg->routes[1].drop);
	EXPECT(name, cfg->routes[1].via == 0);

	EXPECT(name, cfg->punt.cls[DP_PUNT_HIGH].client.rate == 100);
	EXPECT(name, cfg->punt.cls[DP_PUNT_HIGH].client.burst == 200);
	EXPECT(name, cfg->punt.cls[DP_PUNT_HIGH].line.rate == 5000);
	EXPECT(name, cfg->punt.cls[DP_PUNT_HIGH].line.burst == 10000);
	EXPECT(name, cfg->punt.cls[DP_PUNT_HIGH].ring_percent == 100);
	EXPECT(name, cfg->punt.cls[DP_PUNT_MID].client.rate == 5);
	EXPECT(name, cfg->punt.cls[DP_PUNT_MID].client.burst == 10);
	EXPECT(name, cfg->punt.cls[DP_PUNT_MID].line.rate == 200);
	EXPECT(name, cfg->punt.cls[DP_PUNT_MID].line.burst == 400);
	EXPECT(name, cfg->punt.cls[DP_PUNT_MID].ring_percent == 75);
	EXPECT(name, cfg->punt.cls[DP_PUNT_LOW].client.rate == 5);
	EXPECT(name, cfg->punt.cls[DP_PUNT_LOW].client.burst == 10);
	EXPECT(name, cfg->punt.cls[DP_PUNT_LOW].line.rate == 200);
	EXPECT(name, cfg->punt.cls[DP_PUNT_LOW].line.burst == 400);
	EXPECT(name, cfg->punt.cls[DP_PUNT_LOW].ring_percent == 50);
	pass(name);
}

static void
test_multi_group_fields(void)
{
	static const char name[] = "valid: multi_group.ini (mixed order, tabs, no blanks)";
	const struct dp_qos_profile *gold;
	const struct dp_line_group *lg;
	const struct dp_acl_rule *acl;
	char path[4096];

	snprintf(path, sizeof(path), "%s/multi_group.ini", fixture_dir);
	if (!check_load(name, path, NULL))
		return;
	EXPECT(name, cfg->instance.id == 0xffffff);
	EXPECT(name, strcmp(cfg->instance.pod, "pod_2.test") == 0);
	EXPECT(name, cfg->instance.n_worker_cores == 3);
	EXPECT(name, cfg->instance.worker_cores[0] == 2 && cfg->instance.worker_cores[2] == 5);
	EXPECT(name, cfg->core.vlan == 42);

	lg = &cfg->line_groups[0];
	EXPECT(name, strcmp(lg->name, "lg-a") == 0 && lg->n_prefixes == 3);
	EXPECT(name, lg->prefixes[2].addr == 0x64520001 && lg->prefixes[2].len == 32);
	EXPECT(name, lg->qos_profile == 2);
	EXPECT(name, cfg->line_groups[1].qos_profile == 0);

	EXPECT(name, cfg->lines[0].group == 0 && cfg->lines[0].ctag.hi == 1999);
	EXPECT(name, cfg->lines[1].group == 1 && cfg->lines[1].ctag.lo == 2000);
	EXPECT(name, cfg->lines[2].group == 1 && cfg->lines[2].access_port == 1);
	EXPECT(name, cfg->lines[2].ctag_any);

	gold = &cfg->qos_profiles[0];
	EXPECT(name, gold->dscp_tc[0] == 12 && gold->dscp_tc[10] == 11 && gold->dscp_tc[63] == 1);
	EXPECT(name, gold->tc_rate[2] == 30000000 && gold->tc_rate[12] == 100000000);
	EXPECT(name, gold->tc_rate[1] == 100000000);
	EXPECT(name, cfg->qos_profiles[1].dscp_tc[0] == 11);
	EXPECT(name, cfg->qos_profiles[1].be_weights[0] == 255);
	EXPECT(name, cfg->qos_profiles[2].down_rate == 1 && cfg->qos_profiles[2].tc_rate[0] == 1);
	EXPECT(name, gold->up_dscp == DP_DSCP_KEEP && cfg->qos_profiles[1].up_dscp == 0);
	EXPECT(name, cfg->qos_profiles[2].up_dscp == 63);

	/* [acl.N] and [route.N] in mixed order keep their numbers. */
	EXPECT(name, cfg->n_acl_rules == 4 && cfg->n_routes == 3);
	acl = cfg->acl_rules;
	EXPECT(name, acl[0].dirs == (DP_ACL_DIR_UP | DP_ACL_DIR_DOWN));
	EXPECT(name, acl[0].protocol == DP_ACL_PROTO_ANY && acl[0].action == DP_ACL_DENY);
	EXPECT(name, acl[0].dst.addr == 0x64520001 && acl[0].dst.len == 32);
	EXPECT(name, acl[1].action == DP_ACL_PERMIT && acl[1].dirs == DP_ACL_DIR_DOWN);
	EXPECT(name, acl[1].protocol == DP_IPPROTO_UDP && acl[1].src.len == 24);
	EXPECT(name, acl[1].sport.lo == 53 && acl[1].sport.hi == 53);
	EXPECT(name, acl[1].dport.lo == 1024 && acl[1].dport.hi == 65535);
	EXPECT(name, acl[2].protocol == DP_IPPROTO_ICMP && acl[3].protocol == 47);
	EXPECT(name, acl[3].src.addr == 0x64510000 && acl[3].dirs == DP_ACL_DIR_UP);
	EXPECT(name, cfg->routes[0].prefix.addr == 0x0a000000 && cfg->routes[0].via == 0x644000fe);
	EXPECT(name, cfg->routes[1].prefix.len == 16 && cfg->routes[1].drop);
	EXPECT(name, cfg->routes[2].prefix.len == 10 && cfg->routes[2].via == 0x64400001);
	pass(name);
}

/* The lab file with CRLF line ends must load the same (rte_cfgfile strips CR). */
static void
test_crlf(const char *base)
{
	static const char name[] = "valid: lab_dp4.ini with CRLF line ends";
	struct text t = {0};
	const char *p;

	for (p = base; *p != '\0'; p++) {
		if (*p == '\n')
			text_add(&t, "\r", 1);
		text_add(&t, p, 1);
	}
	if (!write_file(scratch_path, t.p, t.len)) {
		failed(name, "cannot write %s", scratch_path);
	} else if (check_load(name, scratch_path, NULL)) {
		if (cfg->n_lines == 2 && strcmp(cfg->qos_profiles[1].name, "silver") == 0 &&
		    cfg->lines[0].ctag.hi == 4094)
			pass(name);
		else
			failed(name, "fields differ from the LF file");
	}
	text_free(&t);
}

/* A file at every limit of dp_config.h. */
static void
build_max_config(struct text *t)
{
	unsigned int i, j;

	text_printf(t, "[instance]\nid = 1\nname = dpmax\npod = max\n"
		       "data_mac = 02:00:00:00:00:01\nworker_cores =");
	for (i = 0; i < DP_MAX_WORKER_CORES; i++)
		text_printf(t, " %u", i);
	text_printf(t,
		    "\nport_rate = %llu\ncontrol_address = 10.200.0.2\n"
		    "control_prefix_len = 24\ncp_address = 10.200.0.1\npfcp_port = 8805\n"
		    "vxlan_port = 4789\naccess_ports = %d\nline_groups = %d\nlines = %d\n"
		    "qos_profiles = %d\nacl_rules = %d\nroutes = %d\n",
		    DP_MAX_RATE, DP_MAX_ACCESS_PORTS, DP_MAX_LINE_GROUPS, DP_MAX_LINES,
		    DP_MAX_QOS_PROFILES, DP_MAX_ACL_RULES, DP_MAX_ROUTES);
	text_printf(t, "[core]\nsubnet = 100.64.0.0/16\nrouter_address = 100.64.0.1\n"
		       "vlan = 4094\n");
	for (i = 0; i < DP_MAX_ACCESS_PORTS; i++)
		text_printf(t, "[access_port.%u]\nname = port%u\ntpid = %s\nrate = 10000000000\n",
			    i, i, i % 2 ? "0x88a8" : "0x8100");
	for (i = 0; i < DP_MAX_QOS_PROFILES; i++) {
		text_printf(t,
			    "[qos_profile.%u]\nname = profile%u\ndown_rate = 1000000000\n"
			    "up_pir = 500000000\nup_cir = 100000000\nup_dscp = %s\n"
			    "default_tc = 12\ndscp_map =",
			    i, i, i % 2 ? "keep" : "63");
		for (j = 0; j < 40; j++)
			text_printf(t, " %u:%u", j, j % DP_NUM_TCS);
		text_printf(t, "\ntc_rates =");
		for (j = 0; j < DP_NUM_TCS; j++)
			text_printf(t, " %u:%u", j, 1000000 * (j + 1));
		text_printf(t, "\nbe_weights = 255 100 10 1\n");
	}
	for (i = 0; i < DP_MAX_LINE_GROUPS; i++) {
		text_printf(t,
			    "[line_group.%u]\nname = group%u\nac_mac = 02:bb:00:00:00:%02x\n"
			    "core_address = 100.64.1.%u\ncore_mac = 02:cc:00:00:00:%02x\n"
			    "prefixes =",
			    i, i, i, i, i);
		for (j = 0; j < DP_MAX_GROUP_PREFIXES; j++)
			text_printf(t, " 11.%u.%u.0/24", i, j);
		text_printf(t, "\nqos_profile = profile%u\n", DP_MAX_QOS_PROFILES - 1 - i);
	}
	/* Four lines per group; every S-tag on one port, C-tags split in two. */
	for (i = 0; i < DP_MAX_LINES; i++)
		text_printf(t,
			    "[line.%u]\ngroup = group%u\naccess_port = port%u\n"
			    "stag = %u-%u\nctag = %s\n",
			    i, i / 4, (i / 2) % DP_MAX_ACCESS_PORTS, i / 2 + 1, i / 2 + 1,
			    i % 2 ? "2048-4094" : "1-2047");
	/* Every field of an ACL rule set, alternating protocols and directions. */
	for (i = 0; i < DP_MAX_ACL_RULES; i++)
		text_printf(t,
			    "[acl.%u]\naction = %s\ndirection = %s\nprotocol = %s\n"
			    "source = 10.%u.%u.0/24\ndestination = 0.0.0.0/0\n"
			    "source_ports = %s\ndestination_ports = %u-%u\n",
			    i, i % 2 ? "deny" : "permit", i % 3 ? "both" : "up",
			    i % 2 ? "udp" : "tcp", i / 256, i % 256, i % 2 ? "any" : "1024-65535",
			    i + 1, i + 1);
	text_printf(t, "[punt]\n");
	for (i = 0; i < DP_PUNT_CLASSES; i++)
		text_printf(t,
			    "%s_client_rate = %u\n%s_client_burst = %u\n%s_line_rate = %u\n"
			    "%s_line_burst = %u\n%s_ring_percent = 100\n",
			    dp_punt_class_names[i], DP_PUNT_MAX_RATE, dp_punt_class_names[i],
			    DP_PUNT_MAX_BURST, dp_punt_class_names[i], DP_PUNT_MAX_RATE,
			    dp_punt_class_names[i], DP_PUNT_MAX_BURST, dp_punt_class_names[i]);
	for (i = 0; i < DP_MAX_ROUTES; i++) {
		if (i % 2)
			text_printf(t, "[route.%u]\nprefix = 20.%u.0.0/16\nvia = drop\n", i, i);
		else
			text_printf(t, "[route.%u]\nprefix = 20.%u.0.0/16\nvia = 100.64.2.%u\n", i,
				    i, i);
	}
}

static void
test_max_config(void)
{
	static const char name[] = "valid: every limit reached";
	static const char name_over[] = "reject: one line more than DP_MAX_LINES";
	static const struct edit over[] = {SET("instance", "lines", "1025"),
					   {EDIT_END, NULL, NULL, NULL}};
	struct text t = {0}, t2 = {0};
	const char *unapplied;

	build_max_config(&t);
	if (!write_file(scratch_path, t.p, t.len)) {
		failed(name, "cannot write %s", scratch_path);
	} else if (check_load(name, scratch_path, NULL)) {
		if (cfg->n_lines != DP_MAX_LINES || cfg->n_line_groups != DP_MAX_LINE_GROUPS ||
		    cfg->n_access_ports != DP_MAX_ACCESS_PORTS ||
		    cfg->n_qos_profiles != DP_MAX_QOS_PROFILES ||
		    cfg->instance.n_worker_cores != DP_MAX_WORKER_CORES ||
		    cfg->line_groups[255].n_prefixes != DP_MAX_GROUP_PREFIXES ||
		    cfg->line_groups[255].qos_profile != 0 || cfg->lines[1023].group != 255 ||
		    cfg->lines[1023].stag.lo != 512 ||
		    cfg->qos_profiles[7].tc_rate[12] != 13000000 ||
		    cfg->n_acl_rules != DP_MAX_ACL_RULES || cfg->n_routes != DP_MAX_ROUTES ||
		    cfg->acl_rules[1023].dport.lo != 1024 ||
		    cfg->acl_rules[1023].src.addr != 0x0a03ff00 || !cfg->routes[255].drop ||
		    cfg->routes[254].via != 0x644002fe ||
		    cfg->punt.cls[DP_PUNT_LOW].line.burst != DP_PUNT_MAX_BURST ||
		    cfg->punt.cls[DP_PUNT_HIGH].client.rate != DP_PUNT_MAX_RATE ||
		    cfg->punt.cls[DP_PUNT_MID].ring_percent != 100)
			failed(name, "counts or fields differ");
		else
			pass(name);
	}

	if (!apply_edits(t.p, over, &t2, &unapplied))
		failed(name_over, "edit did not apply");
	else if (!write_file(scratch_path, t2.p, t2.len))
		failed(name_over, "cannot write %s", scratch_path);
	else if (check_load(name_over, scratch_path,
			    "instance: lines '1025' is out of range 0..1024"))
		pass(name_over);
	text_free(&t);
	text_free(&t2);
}

/* Shapes of files that must not get through screening. */
static void
test_generated_raw(void)
{
	struct raw_case c;
	struct text t = {0};
	unsigned int i;

	/* One section more than a file at every limit ([punt] included) can have. */
	for (i = 0; i < 3 + DP_MAX_ACCESS_PORTS + DP_MAX_LINE_GROUPS + DP_MAX_LINES +
				DP_MAX_QOS_PROFILES + DP_MAX_ACL_RULES + DP_MAX_ROUTES + 1;
	     i++)
		text_printf(&t, "[s%u]\n", i);
	c = (struct raw_case){"raw: more sections than any valid file", t.p, t.len,
			      "more than 2883 sections"};
	run_raw_case(&c);
	text_free(&t);

	text_printf(&t, "[instance]\n");
	for (i = 0; i < 33; i++)
		text_printf(&t, "k%u = 1\n", i);
	c = (struct raw_case){"raw: 33 keys in one section", t.p, t.len,
			      "file line 34: more than 32 keys in one section"};
	run_raw_case(&c);
	text_free(&t);

	/* A line that overflows rte_cfgfile's fgets() buffer. */
	text_printf(&t, ";");
	for (i = 0; i < 322; i++)
		text_add(&t, "x", 1);
	text_add(&t, "\n", 1);
	c = (struct raw_case){"raw: comment line of 323 characters", t.p, t.len,
			      "file line 1: longer than 322 characters"};
	run_raw_case(&c);
	text_free(&t);

	/* rte_cfgfile would silently truncate this value to 255 characters. */
	text_printf(&t, "[instance]\nname = ");
	for (i = 0; i < 256; i++)
		text_add(&t, "n", 1);
	text_add(&t, "\n", 1);
	c = (struct raw_case){"raw: value of 256 characters", t.p, t.len,
			      "file line 2: value of 'name' longer than 255 characters"};
	run_raw_case(&c);
	text_free(&t);

	text_printf(&t, "[instance]\n");
	for (i = 0; i < 64; i++)
		text_add(&t, "k", 1);
	text_printf(&t, " = 1\n");
	c = (struct raw_case){"raw: key of 64 characters", t.p, t.len,
			      "file line 2: key longer than 63 characters"};
	run_raw_case(&c);
	text_free(&t);

	text_printf(&t, "[");
	for (i = 0; i < 64; i++)
		text_add(&t, "s", 1);
	text_printf(&t, "]\n");
	c = (struct raw_case){"raw: section name of 64 characters", t.p, t.len,
			      "file line 1: section name longer than 63 characters"};
	run_raw_case(&c);
	text_free(&t);

	/* Larger than DP_CONFIG_MAX_FILE_SIZE, made of harmless comment lines. */
	while (t.len <= DP_CONFIG_MAX_FILE_SIZE)
		text_printf(&t, "; %s\n", "padding padding padding padding padding padding");
	c = (struct raw_case){"raw: file larger than the limit", t.p, t.len,
			      "file is larger than 4194304 bytes"};
	run_raw_case(&c);
	text_free(&t);
}

/* A line of exactly rte_cfgfile's limit still passes. */
static void
test_longest_line(const char *base)
{
	static const char name[] = "valid: comment line of exactly 322 characters";
	struct text t = {0};
	unsigned int i;

	text_add(&t, base, strlen(base));
	text_add(&t, ";", 1);
	for (i = 1; i < 322; i++)
		text_add(&t, "x", 1);
	text_add(&t, "\n", 1);
	if (!write_file(scratch_path, t.p, t.len))
		failed(name, "cannot write %s", scratch_path);
	else if (check_load(name, scratch_path, NULL))
		pass(name);
	text_free(&t);
}

static void
test_io_errors(void)
{
	char path[4096], err[512], tiny[8];
	int rc;

	snprintf(path, sizeof(path), "%s/does-not-exist.ini", fixture_dir);
	rc = dp_config_load(path, cfg, err, sizeof(err));
	if (rc == -ENOENT && strstr(err, "open: No such file") != NULL)
		pass("io: missing file is -ENOENT");
	else
		failed("io: missing file is -ENOENT", "rc %d err \"%s\"", rc, err);

	rc = dp_config_load(fixture_dir, cfg, err, sizeof(err));
	if (rc == -EISDIR && strstr(err, "Is a directory") != NULL)
		pass("io: directory is -EISDIR");
	else
		failed("io: directory is -EISDIR", "rc %d err \"%s\"", rc, err);

	if (check_load("io: /dev/null is an empty file", "/dev/null", "missing section [instance]"))
		pass("io: /dev/null is an empty file");

	/* A short err buffer gets a truncated, terminated message; NULL is fine. */
	memset(tiny, 'x', sizeof(tiny));
	rc = dp_config_load("/dev/null", cfg, tiny, sizeof(tiny));
	if (rc == -EINVAL && memchr(tiny, '\0', sizeof(tiny)) != NULL &&
	    strncmp(tiny, "missing", sizeof(tiny) - 1) == 0 &&
	    dp_config_load("/dev/null", cfg, NULL, 0) == -EINVAL)
		pass("api: short or NULL err buffer");
	else
		failed("api: short or NULL err buffer", "rc %d", rc);
}

/* After a failed load, cfg holds nothing from the partial parse. */
static void
test_zeroed_on_error(void)
{
	static const char name[] = "api: cfg zeroed after a failed load";
	static const struct dp_config zero;
	char path[4096];

	snprintf(path, sizeof(path), "%s/bad_reference.ini", fixture_dir);
	if (check_load(name, path, "line.1: group 'lg9' is not a [line_group.N] name")) {
		if (memcmp(cfg, &zero, sizeof(zero)) == 0)
			pass(name);
		else
			failed(name, "cfg not zeroed");
	}
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Names of the *.ini files in dir, sorted; returns their number. */
static unsigned int
list_ini(const char *dir, char **names, unsigned int max)
{
	struct dirent *de;
	unsigned int n = 0;
	size_t len;
	DIR *d;

	d = opendir(dir);
	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL && n < max) {
		len = strlen(de->d_name);
		if (len > 4 && strcmp(de->d_name + len - 4, ".ini") == 0)
			names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	return n;
}

/*
 * [qos_profile.N] up_dscp, one case per spelling, on the lab fixture's gold
 * (keep) or silver (0) profile. value NULL drops the key. A valid value must
 * land in up_dscp; a bad one must fail with expect.
 */
struct up_dscp_case {
	const char *name;
	unsigned int profile;
	const char *value;
	uint8_t want;
	const char *expect;
};

#define UP_DSCP_BAD(v, p) "qos_profile." #p ": up_dscp '" v "' is neither 'keep' nor a DSCP 0..63"

static const struct up_dscp_case up_dscp_cases[] = {
	{"valid: up_dscp keep", 1, "keep", DP_DSCP_KEEP, NULL},
	{"valid: up_dscp 0", 0, "0", 0, NULL},
	{"valid: up_dscp 63", 0, "63", 63, NULL},
	{"reject: up_dscp 64", 0, "64", 0, UP_DSCP_BAD("64", 0)},
	{"reject: up_dscp -1", 1, "-1", 0, UP_DSCP_BAD("-1", 1)},
	{"reject: up_dscp abc", 0, "abc", 0, UP_DSCP_BAD("abc", 0)},
	{"reject: up_dscp KEEP", 0, "KEEP", 0, UP_DSCP_BAD("KEEP", 0)},
	{"reject: up_dscp with leading zero", 0, "07", 0, UP_DSCP_BAD("07", 0)},
	{"reject: up_dscp 2^64", 0, "18446744073709551616", 0,
	 UP_DSCP_BAD("18446744073709551616", 0)},
	{"reject: up_dscp empty", 0, "", 0, UP_DSCP_BAD("", 0)},
	{"reject: up_dscp missing", 1, NULL, 0, "qos_profile.1: missing key 'up_dscp'"},
};

static void
run_up_dscp_case(const char *base, const struct up_dscp_case *c)
{
	struct edit edits[2] = {SET(NULL, "up_dscp", c->value), {EDIT_END, NULL, NULL, NULL}};
	const char *unapplied = NULL;
	struct text t = {0};
	char sec[32];

	snprintf(sec, sizeof(sec), "qos_profile.%u", c->profile);
	edits[0].section = sec;
	if (c->value == NULL)
		edits[0].op = EDIT_DEL;
	if (!apply_edits(base, edits, &t, &unapplied))
		failed(c->name, "edit of [%s] did not apply to the fixture", sec);
	else if (!write_file(scratch_path, t.p, t.len))
		failed(c->name, "cannot write %s: %s", scratch_path, strerror(errno));
	else if (!check_load(c->name, scratch_path, c->expect))
		;
	else if (c->expect == NULL && cfg->qos_profiles[c->profile].up_dscp != c->want)
		failed(c->name, "up_dscp is %u, expected %u", cfg->qos_profiles[c->profile].up_dscp,
		       c->want);
	else
		pass(c->name);
	text_free(&t);
}

/*
 * [punt]: the lab fixture with its [punt] section dropped, then the given
 * text appended (NULL: nothing, the section is absent). Loads, or fails.
 */
static bool
load_punt_variant(const char *name, const char *base, const char *section)
{
	struct edit edits[3] = {DROP("punt"), APPEND(section), {EDIT_END, NULL, NULL, NULL}};
	const char *unapplied = NULL;
	struct text t = {0};
	bool ok;

	if (section == NULL)
		edits[1].op = EDIT_END;
	ok = apply_edits(base, edits, &t, &unapplied);
	if (!ok)
		failed(name, "edit of [%s] did not apply to the fixture",
		       unapplied ? unapplied : "?");
	else if (!(ok = write_file(scratch_path, t.p, t.len)))
		failed(name, "cannot write %s: %s", scratch_path, strerror(errno));
	else
		ok = check_load(name, scratch_path, NULL);
	text_free(&t);
	return ok;
}

static bool
punt_class_is(const struct dp_punt_class_cfg *k, uint32_t crate, uint32_t cburst, uint32_t lrate,
	      uint32_t lburst, uint8_t pct)
{
	return k->client.rate == crate && k->client.burst == cburst && k->line.rate == lrate &&
	       k->line.burst == lburst && k->ring_percent == pct;
}

static bool
punt_equal(const struct dp_punt *a, const struct dp_punt *b)
{
	for (int c = 0; c < DP_PUNT_CLASSES; c++) {
		const struct dp_punt_class_cfg *k = &b->cls[c];

		if (!punt_class_is(&a->cls[c], k->client.rate, k->client.burst, k->line.rate,
				   k->line.burst, k->ring_percent))
			return false;
	}
	return true;
}

/* Absent section or keys: the defaults; every key lands in its own field. */
static void
test_punt_section(const char *base)
{
	static const struct dp_punt defaults = DP_PUNT_DEFAULTS;
	static const char all[] =
		"[punt]\n"
		"high_client_rate = 11\nhigh_client_burst = 12\n"
		"high_line_rate = 13\nhigh_line_burst = 14\nhigh_ring_percent = 15\n"
		"mid_client_rate = 21\nmid_client_burst = 22\n"
		"mid_line_rate = 23\nmid_line_burst = 24\nmid_ring_percent = 25\n"
		"low_client_rate = 31\nlow_client_burst = 32\n"
		"low_line_rate = 33\nlow_line_burst = 34\nlow_ring_percent = 1\n";
	const char *name;
	struct dp_punt want;
	char path[4096];

	for (int i = 0; i < 2; i++) {
		name = i == 0 ? "valid: [punt] absent: the defaults"
			      : "valid: [punt] empty: the defaults";
		if (!load_punt_variant(name, base, i == 0 ? NULL : "[punt]\n"))
			continue;
		if (!punt_equal(&cfg->punt, &defaults))
			failed(name, "[punt] differs from DP_PUNT_DEFAULTS");
		else
			pass(name);
	}

	name = "valid: [punt] one key, the others their defaults";
	if (load_punt_variant(name, base, "[punt]\nlow_line_burst = 5000\n")) {
		want = defaults;
		want.cls[DP_PUNT_LOW].line.burst = 5000;
		if (!punt_equal(&cfg->punt, &want))
			failed(name, "only low line burst may differ from the defaults");
		else
			pass(name);
	}

	name = "valid: [punt] every key in its own field";
	if (load_punt_variant(name, base, all)) {
		if (!punt_class_is(&cfg->punt.cls[DP_PUNT_HIGH], 11, 12, 13, 14, 15) ||
		    !punt_class_is(&cfg->punt.cls[DP_PUNT_MID], 21, 22, 23, 24, 25) ||
		    !punt_class_is(&cfg->punt.cls[DP_PUNT_LOW], 31, 32, 33, 34, 1))
			failed(name, "a value is in the wrong field");
		else
			pass(name);
	}

	name = "valid: multi_group.ini (no [punt]): the defaults";
	snprintf(path, sizeof(path), "%s/multi_group.ini", fixture_dir);
	if (check_load(name, path, NULL)) {
		if (!punt_equal(&cfg->punt, &defaults))
			failed(name, "[punt] differs from DP_PUNT_DEFAULTS");
		else
			pass(name);
	}
}

/* Every <root>/<pod>/dp/<instance>.ini must load and be that instance. */
static void
test_golden(void)
{
	const char *root = getenv("DP_GOLDEN_ROOT");
	char *pods[64], *files[256], dir[4096], path[8192], name[8500];
	unsigned int np, nf, p, f, loaded = 0;
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (root == NULL || root[0] == '\0' || (d = opendir(root)) == NULL) {
		printf("skip golden: no directory DP_GOLDEN_ROOT=%s\n", root ? root : "(unset)");
		return;
	}
	for (np = 0; (de = readdir(d)) != NULL && np < 64;)
		if (de->d_name[0] != '.')
			pods[np++] = strdup(de->d_name);
	closedir(d);
	qsort(pods, np, sizeof(pods[0]), cmp_str);

	for (p = 0; p < np; p++) {
		snprintf(dir, sizeof(dir), "%s/%s/dp", root, pods[p]);
		if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		nf = list_ini(dir, files, 256);
		for (f = 0; f < nf; f++) {
			size_t stem = strlen(files[f]) - 4;

			snprintf(path, sizeof(path), "%s/%s", dir, files[f]);
			snprintf(name, sizeof(name), "golden: %s/dp/%s", pods[p], files[f]);
			if (!check_load(name, path, NULL))
				;
			else if (strlen(cfg->instance.name) != stem ||
				 strncmp(cfg->instance.name, files[f], stem) != 0 ||
				 strcmp(cfg->instance.pod, pods[p]) != 0)
				failed(name, "instance %s of pod %s in the wrong file",
				       cfg->instance.name, cfg->instance.pod);
			else
				pass(name);
			loaded++;
			free(files[f]);
		}
		free(pods[p]);
	}
	if (loaded == 0)
		printf("skip golden: no %s/<pod>/dp/*.ini\n", root);
}

/* One case per rule: the lab fixture with the smallest edit that breaks it. */
static const struct edit_case edit_cases[] = {
	/* Sections and keys. */
	{"reject: unknown section",
	 {APPEND("[bogus]\nx = 1\n")},
	 "section [bogus] is not part of the DP instance format"},
	{"reject: section number with leading zero",
	 {APPEND("[line.01]\ngroup = lg4\n")},
	 "section [line.01] is not part of the DP instance format"},
	{"reject: section number above the limit",
	 {APPEND("[line.1024]\ngroup = lg4\n")},
	 "section [line.1024]: at most 1024 [line.N] sections are supported"},
	{"reject: duplicate section",
	 {APPEND("[core]\nsubnet = 100.65.0.0/24\nrouter_address = 100.65.0.1\nvlan = 0\n")},
	 "section [core] appears twice"},
	{"reject: duplicate key", {ADD("core", "vlan = 5")}, "core: key 'vlan' appears twice"},
	{"reject: unknown key",
	 {ADD("access_port.0", "mtu = 1500")},
	 "access_port.0: unknown key 'mtu'"},
	{"reject: missing key", {DEL("line.0", "ctag")}, "line.0: missing key 'ctag'"},
	{"reject: missing [instance]", {DROP("instance")}, "missing section [instance]"},
	/* [punt]: each key 1..its bound, nothing else. */
	{"reject: punt rate 0",
	 {SET("punt", "low_line_rate", "0")},
	 "punt: low_line_rate '0' is out of range 1..1000000"},
	{"reject: punt rate above the bound",
	 {SET("punt", "mid_client_rate", "1000001")},
	 "punt: mid_client_rate '1000001' is out of range 1..1000000"},
	{"reject: punt burst 0",
	 {SET("punt", "high_client_burst", "0")},
	 "punt: high_client_burst '0' is out of range 1..1000000"},
	{"reject: punt burst above the bound",
	 {SET("punt", "low_line_burst", "4294967297")},
	 "punt: low_line_burst '4294967297' is out of range 1..1000000"},
	{"reject: punt ring_percent 0",
	 {SET("punt", "low_ring_percent", "0")},
	 "punt: low_ring_percent '0' is out of range 1..100"},
	{"reject: punt ring_percent 101",
	 {SET("punt", "high_ring_percent", "101")},
	 "punt: high_ring_percent '101' is out of range 1..100"},
	{"reject: punt rate not a number",
	 {SET("punt", "mid_line_rate", "fast")},
	 "punt: mid_line_rate 'fast' is not a decimal number"},
	{"reject: punt negative burst",
	 {SET("punt", "mid_line_burst", "-400")},
	 "punt: mid_line_burst '-400' is not a decimal number"},
	{"reject: punt rate with a unit",
	 {SET("punt", "high_line_rate", "5k")},
	 "punt: high_line_rate '5k' is not a decimal number"},
	{"reject: punt empty value",
	 {SET("punt", "low_client_rate", "")},
	 "punt: low_client_rate '' is not a decimal number"},
	{"reject: punt unknown class",
	 {ADD("punt", "medium_line_rate = 5")},
	 "punt: unknown key 'medium_line_rate'"},
	{"reject: punt unknown field",
	 {ADD("punt", "low_line_pps = 5")},
	 "punt: unknown key 'low_line_pps'"},
	{"reject: punt duplicate key",
	 {ADD("punt", "low_line_rate = 1")},
	 "punt: key 'low_line_rate' appears twice"},
	{"reject: punt section twice",
	 {APPEND("[punt]\nlow_line_rate = 1\n")},
	 "section [punt] appears twice"},
	{"reject: punt numbered",
	 {APPEND("[punt.0]\nlow_line_rate = 1\n")},
	 "section [punt.0] is not part of the DP instance format"},
	{"reject: missing [core]", {DROP("core")}, "missing section [core]"},

	/* Counts. */
	{"reject: count above the limit",
	 {SET("instance", "access_ports", "65")},
	 "instance: access_ports '65' is out of range 0..64"},
	{"reject: count above the sections present",
	 {SET("instance", "lines", "3")},
	 "line.2: missing section ([instance] lines = 3)"},
	{"reject: section beyond the count",
	 {SET("instance", "qos_profiles", "1")},
	 "qos_profile.1: section present but [instance] qos_profiles = 1"},
	{"reject: numbered section missing in the middle",
	 {DROP("access_port.0")},
	 "access_port.0: missing section ([instance] access_ports = 2)"},
	{"reject: empty count",
	 {SET("instance", "lines", "")},
	 "instance: lines '' is not a decimal number"},

	/* Numbers. */
	{"reject: number with leading zero",
	 {SET("instance", "pfcp_port", "08805")},
	 "instance: pfcp_port '08805' is not a decimal number"},
	{"reject: number with sign",
	 {SET("access_port.0", "rate", "+10000")},
	 "access_port.0: rate '+10000' is not a decimal number"},
	{"reject: number with trailing junk",
	 {SET("instance", "vxlan_port", "4789x")},
	 "instance: vxlan_port '4789x' is not a decimal number"},
	{"reject: number with inner blank",
	 {SET("instance", "vxlan_port", "47 89")},
	 "instance: vxlan_port '47 89' is not a decimal number"},
	{"reject: hex where decimal is due",
	 {SET("instance", "id", "0x4")},
	 "instance: id '0x4' is not a decimal number"},
	{"reject: number overflowing 64 bits",
	 {SET("instance", "port_rate", "99999999999999999999999")},
	 "instance: port_rate '99999999999999999999999' is out of range 1..1000000000000"},
	{"reject: rate zero",
	 {SET("access_port.1", "rate", "0")},
	 "access_port.1: rate '0' is out of range 1..1000000000000"},
	{"reject: rate above 1 Tbit/s",
	 {SET("access_port.1", "rate", "1000000000001")},
	 "access_port.1: rate '1000000000001' is out of range"},
	{"reject: instance id zero",
	 {SET("instance", "id", "0")},
	 "instance: id '0' is out of range 1..16777215"},
	{"reject: instance id above 24 bits",
	 {SET("instance", "id", "16777216")},
	 "instance: id '16777216' is out of range 1..16777215"},
	{"reject: UDP port 65536",
	 {SET("instance", "pfcp_port", "65536")},
	 "instance: pfcp_port '65536' is out of range 1..65535"},
	{"reject: pfcp_port equals vxlan_port",
	 {SET("instance", "pfcp_port", "4789")},
	 "instance: pfcp_port and vxlan_port are both 4789"},
	{"reject: control_prefix_len 33",
	 {SET("instance", "control_prefix_len", "33")},
	 "instance: control_prefix_len '33' is out of range 1..32"},
	{"reject: core vlan 4095",
	 {SET("core", "vlan", "4095")},
	 "core: vlan '4095' is out of range 0..4094"},

	/* Worker cores. */
	{"reject: no worker core",
	 {SET("instance", "worker_cores", "")},
	 "instance: worker_cores is empty"},
	{"reject: worker core twice",
	 {SET("instance", "worker_cores", "1 2 1")},
	 "instance: worker_cores: lcore 1 listed twice"},
	{"reject: worker core beyond RTE_MAX_LCORE",
	 {SET("instance", "worker_cores", "1 4096")},
	 "instance: worker_cores: lcore '4096' is not below"},
	{"reject: 65 worker cores",
	 {SET("instance", "worker_cores",
	      "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 "
	      "31 32 "
	      "33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 "
	      "61 62 63 64")},
	 "instance: worker_cores: more than 64 cores"},
	{"reject: worker core not a number",
	 {SET("instance", "worker_cores", "1,2")},
	 "instance: worker_cores: '1,2' is not an lcore id"},

	/* Tag ranges. */
	{"reject: stag 0",
	 {SET("line.0", "stag", "0-5")},
	 "line.0: stag '0-5': VLAN ids must be 1..4094"},
	{"reject: stag 4095",
	 {SET("line.1", "stag", "4000-4095")},
	 "line.1: stag '4000-4095': VLAN ids must be 1..4094"},
	{"reject: ctag lo above hi",
	 {SET("line.0", "ctag", "2000-1000")},
	 "line.0: ctag '2000-1000': range starts above its end"},
	{"reject: stag without range",
	 {SET("line.0", "stag", "300")},
	 "line.0: stag '300' is not a VLAN id range lo-hi"},
	{"reject: stag any",
	 {SET("line.1", "stag", "any")},
	 "line.1: stag 'any' is not a VLAN id range lo-hi"},
	{"reject: ctag ANY",
	 {SET("line.1", "ctag", "ANY")},
	 "line.1: ctag 'ANY' is not a VLAN id range lo-hi or 'any'"},
	{"reject: negative tag",
	 {SET("line.0", "ctag", "-5-10")},
	 "line.0: ctag '-5-10' is not a VLAN id range"},
	{"reject: tag overflowing 64 bits",
	 {SET("line.0", "ctag", "1-99999999999999999999")},
	 "line.0: ctag '1-99999999999999999999': VLAN ids must be 1..4094"},

	/* TPID. */
	{"reject: tpid 0x9100",
	 {SET("access_port.0", "tpid", "0x9100")},
	 "access_port.0: tpid '0x9100' is neither 0x8100 nor 0x88a8"},
	{"reject: tpid in decimal",
	 {SET("access_port.1", "tpid", "34984")},
	 "access_port.1: tpid '34984' is neither 0x8100 nor 0x88a8"},

	/* Names. */
	{"reject: duplicate access_port name",
	 {SET("access_port.1", "name", "access3")},
	 "access_port.1: name 'access3' is already used by access_port.0"},
	{"reject: duplicate qos_profile name",
	 {SET("qos_profile.1", "name", "gold")},
	 "qos_profile.1: name 'gold' is already used by qos_profile.0"},
	{"reject: duplicate line_group name",
	 {SET("instance", "line_groups", "2"),
	  APPEND("[line_group.1]\nname = lg4\nac_mac = 02:bb:00:00:00:05\n"
		 "core_address = 100.64.0.15\ncore_mac = 02:cc:00:00:00:05\n"
		 "prefixes = 100.80.16.0/22\nqos_profile = silver\n")},
	 "line_group.1: name 'lg4' is already used by line_group.0"},
	{"reject: name with blank",
	 {SET("qos_profile.0", "name", "go ld")},
	 "qos_profile.0: name 'go ld' is not a name"},
	{"reject: name of 32 characters",
	 {SET("instance", "name", "dp45678901234567890123456789012x")},
	 "instance: name 'dp45678901234567890123456789012x' is not a name"},
	{"reject: empty name",
	 {SET("access_port.0", "name", "")},
	 "access_port.0: name '' is not a name"},

	/* References. */
	{"reject: line.group unknown",
	 {SET("line.1", "group", "lg9")},
	 "line.1: group 'lg9' is not a [line_group.N] name"},
	{"reject: line.access_port unknown",
	 {SET("line.0", "access_port", "access9")},
	 "line.0: access_port 'access9' is not an [access_port.N] name"},
	{"reject: line_group.qos_profile unknown",
	 {SET("line_group.0", "qos_profile", "platinum")},
	 "line_group.0: qos_profile 'platinum' is not a [qos_profile.N] name"},

	/* QoS profiles. */
	{"reject: dscp 64",
	 {SET("qos_profile.0", "dscp_map", "34:2 64:0")},
	 "qos_profile.0: dscp_map: '64:0': dscp must be 0..63"},
	{"reject: dscp_map tc 13",
	 {SET("qos_profile.0", "dscp_map", "46:13")},
	 "qos_profile.0: dscp_map: '46:13': tc must be 0..12"},
	{"reject: default_tc 13",
	 {SET("qos_profile.1", "default_tc", "13")},
	 "qos_profile.1: default_tc '13' is out of range 0..12"},
	{"reject: dscp_map not sorted",
	 {SET("qos_profile.0", "dscp_map", "46:0 34:2")},
	 "qos_profile.0: dscp_map: dscp 34 after 46"},
	{"reject: dscp_map dscp twice",
	 {SET("qos_profile.0", "dscp_map", "34:2 34:3")},
	 "qos_profile.0: dscp_map: dscp 34 after 34"},
	{"reject: dscp_map no pair",
	 {SET("qos_profile.0", "dscp_map", "34")},
	 "qos_profile.0: dscp_map: '34' is not a dscp:tc pair"},
	{"reject: dscp_map triple",
	 {SET("qos_profile.0", "dscp_map", "34:2:1")},
	 "qos_profile.0: dscp_map: '34:2:1' is not a dscp:tc pair"},
	{"reject: tc_rates tc 13",
	 {SET("qos_profile.0", "tc_rates", "13:1000")},
	 "qos_profile.0: tc_rates: '13:1000': tc must be 0..12"},
	{"reject: tc_rates tc twice",
	 {SET("qos_profile.0", "tc_rates", "0:2000000 0:1000")},
	 "qos_profile.0: tc_rates: tc 0 listed twice"},
	{"reject: tc rate above down_rate",
	 {SET("qos_profile.1", "tc_rates", "12:20000001")},
	 "qos_profile.1: tc_rates: '12:20000001': rate must be 1..down_rate (20000000)"},
	{"reject: tc rate zero",
	 {SET("qos_profile.0", "tc_rates", "0:0")},
	 "qos_profile.0: tc_rates: '0:0': rate must be 1..down_rate"},
	{"reject: be_weights 3 values",
	 {SET("qos_profile.0", "be_weights", "4 2 1")},
	 "qos_profile.0: be_weights '4 2 1': exactly 4 weights expected"},
	{"reject: be_weights 5 values",
	 {SET("qos_profile.1", "be_weights", "1 1 1 1 1")},
	 "qos_profile.1: be_weights '1 1 1 1 1': exactly 4 weights expected"},
	{"reject: be_weights 0",
	 {SET("qos_profile.0", "be_weights", "4 0 1 1")},
	 "qos_profile.0: be_weights: '0' is not a weight 1..255"},
	{"reject: be_weights 256",
	 {SET("qos_profile.0", "be_weights", "256 2 1 1")},
	 "qos_profile.0: be_weights: '256' is not a weight 1..255"},
	{"reject: be_weights empty",
	 {SET("qos_profile.0", "be_weights", "")},
	 "qos_profile.0: be_weights '': exactly 4 weights expected"},
	{"reject: up_cir above up_pir",
	 {SET("qos_profile.0", "up_cir", "60000000")},
	 "qos_profile.0: up_cir 60000000 exceeds up_pir 50000000"},
	{"reject: down_rate above port_rate",
	 {SET("qos_profile.1", "down_rate", "12500000001")},
	 "qos_profile.1: down_rate 12500000001 exceeds [instance] port_rate 12500000000"},
	{"reject: down_rate zero",
	 {SET("qos_profile.0", "down_rate", "0")},
	 "qos_profile.0: down_rate '0' is out of range 1..1000000000000"},

	/* Lines: (S-tag, C-tag) overlaps and S-tags on two ports. */
	{"reject: (stag, ctag) overlap on one port",
	 {SET("line.1", "access_port", "access3"), SET("line.1", "stag", "300-300"),
	  SET("line.1", "ctag", "1-2000")},
	 "line.1: stag 300-300 ctag 1-2000 overlaps line.0 (stag 300-300 ctag 2000-4094)"},
	{"reject: ctag any overlaps a C-tag range",
	 {SET("line.1", "access_port", "access3"), SET("line.1", "stag", "299-301")},
	 "line.1: stag 299-301 ctag 1-4094 overlaps line.0"},
	{"reject: same S-tag on two access ports",
	 {SET("line.1", "stag", "300-300"), SET("line.1", "ctag", "1-1999")},
	 "line.1: stag 300-300 overlaps line.0 on access port 'access3'"},
	{"reject: S-tag ranges meeting at one id on two ports",
	 {SET("line.1", "stag", "100-300")},
	 "line.1: stag 100-300 overlaps line.0 on access port 'access3'"},
	/* IPoE keys (all optional: an older file is PPPoE only). */
	{"valid: IPoE keys left out (PPPoE only)", {DEL("line_group.0", "standby")}, NULL},
	{"valid: session_types pppoe ipoe with a gateway",
	 {ADD("line_group.0", "session_types = pppoe ipoe"),
	  ADD("line_group.0", "ipoe_gateways = 100.80.12.1/22"),
	  ADD("line_group.0", "ipoe_proxy_arp = no")},
	 NULL},
	{"valid: session_types pppoe, ipoe_gateways none",
	 {ADD("line_group.0", "session_types = pppoe"), ADD("line_group.0", "ipoe_gateways = none"),
	  ADD("line_group.0", "ipoe_proxy_arp = yes")},
	 NULL},
	{"reject: session_types unknown",
	 {ADD("line_group.0", "session_types = pppoe l2tp")},
	 "line_group.0: session_types: 'l2tp' is not pppoe or ipoe"},
	{"reject: session_types twice",
	 {ADD("line_group.0", "session_types = ipoe ipoe"),
	  ADD("line_group.0", "ipoe_gateways = 100.80.12.1/22")},
	 "line_group.0: session_types: 'ipoe' given twice"},
	{"reject: session_types empty",
	 {ADD("line_group.0", "session_types = ")},
	 "line_group.0: session_types is empty"},
	{"reject: ipoe without gateways",
	 {ADD("line_group.0", "session_types = ipoe"), ADD("line_group.0", "ipoe_gateways = none")},
	 "line_group.0: session_types has ipoe but ipoe_gateways is none"},
	{"reject: ipoe, ipoe_gateways left out",
	 {ADD("line_group.0", "session_types = pppoe ipoe")},
	 "line_group.0: session_types has ipoe but ipoe_gateways is none"},
	{"reject: gateways without ipoe",
	 {ADD("line_group.0", "ipoe_gateways = 100.80.12.1/22")},
	 "line_group.0: ipoe_gateways without ipoe in session_types"},
	{"reject: gateway outside the pools",
	 {ADD("line_group.0", "session_types = ipoe"),
	  ADD("line_group.0", "ipoe_gateways = 100.80.16.1/22")},
	 "line_group.0: ipoe_gateways: '100.80.16.1/22' is not inside a pool of the group"},
	{"reject: gateway length other than its pool's",
	 {ADD("line_group.0", "session_types = ipoe"),
	  ADD("line_group.0", "ipoe_gateways = 100.80.12.1/24")},
	 "line_group.0: ipoe_gateways: '100.80.12.1/24' is not inside a pool of the group"},
	{"reject: gateway is the pool's network address",
	 {ADD("line_group.0", "session_types = ipoe"),
	  ADD("line_group.0", "ipoe_gateways = 100.80.12.0/22")},
	 "line_group.0: ipoe_gateways: '100.80.12.0/22' is the network or broadcast address of "
	 "its pool"},
	{"reject: gateway is the pool's broadcast address",
	 {ADD("line_group.0", "session_types = ipoe"),
	  ADD("line_group.0", "ipoe_gateways = 100.80.15.255/22")},
	 "line_group.0: ipoe_gateways: '100.80.15.255/22' is the network or broadcast address of "
	 "its pool"},
	{"reject: two gateways in one pool",
	 {ADD("line_group.0", "session_types = ipoe"),
	  ADD("line_group.0", "ipoe_gateways = 100.80.12.1/22 100.80.12.2/22")},
	 "line_group.0: ipoe_gateways: '100.80.12.2/22': its pool has a gateway already"},
	{"reject: gateway not an address",
	 {ADD("line_group.0", "session_types = ipoe"),
	  ADD("line_group.0", "ipoe_gateways = gw/22")},
	 "line_group.0: ipoe_gateways: 'gw/22' is not gateway/length (a.b.c.d/1..32)"},
	{"reject: gateway without length",
	 {ADD("line_group.0", "session_types = ipoe"),
	  ADD("line_group.0", "ipoe_gateways = 100.80.12.1")},
	 "line_group.0: ipoe_gateways: '100.80.12.1' is not gateway/length (a.b.c.d/1..32)"},
	{"reject: ipoe_gateways empty",
	 {ADD("line_group.0", "session_types = ipoe"), ADD("line_group.0", "ipoe_gateways = ")},
	 "line_group.0: ipoe_gateways is empty (write none)"},
	{"reject: ipoe_proxy_arp neither yes nor no",
	 {ADD("line_group.0", "ipoe_proxy_arp = true")},
	 "line_group.0: ipoe_proxy_arp 'true' is not yes or no"},
	/* Standby groups (adoption at run time): parsed, and exempt from the port rule. */
	{"reject: standby neither yes nor no",
	 {SET("line_group.0", "standby", "maybe")},
	 "line_group.0: standby 'maybe' is not yes or no"},
	{"reject: standby in capitals",
	 {SET("line_group.0", "standby", "YES")},
	 "line_group.0: standby 'YES' is not yes or no"},
	{"valid: standby left out (default no)", {DEL("line_group.0", "standby")}, NULL},
	{"valid: standby yes", {SET("line_group.0", "standby", "yes")}, NULL},
	{"valid: same S-tag on two access ports in a standby group",
	 {SET("line_group.0", "standby", "yes"), SET("line.1", "stag", "300-300"),
	  SET("line.1", "ctag", "1-1999")},
	 NULL},
	{"reject: (stag, ctag) overlap on one port, even standby",
	 {SET("line_group.0", "standby", "yes"), SET("line.1", "access_port", "access3"),
	  SET("line.1", "stag", "300-300"), SET("line.1", "ctag", "1-2000")},
	 "line.1: stag 300-300 ctag 1-2000 overlaps line.0 (stag 300-300 ctag 2000-4094)"},
	{"valid: one S-tag split by C-tag on one port",
	 {SET("line.1", "access_port", "access3"), SET("line.1", "stag", "300-300"),
	  SET("line.1", "ctag", "1-1999")},
	 NULL},

	/* MAC and IPv4 addresses, subnets and pools. */
	{"reject: MAC in upper case",
	 {SET("instance", "data_mac", "02:00:00:00:02:0A")},
	 "instance: data_mac '02:00:00:00:02:0A' is not a MAC address"},
	{"reject: MAC with dashes",
	 {SET("line_group.0", "core_mac", "02-cc-00-00-00-04")},
	 "line_group.0: core_mac '02-cc-00-00-00-04' is not a MAC address"},
	{"reject: MAC too short",
	 {SET("line_group.0", "core_mac", "02:cc:00:00:00:4")},
	 "line_group.0: core_mac '02:cc:00:00:00:4' is not a MAC address"},
	{"reject: multicast MAC",
	 {SET("line_group.0", "ac_mac", "03:bb:00:00:00:04")},
	 "line_group.0: ac_mac '03:bb:00:00:00:04' is a multicast address"},
	{"reject: zero MAC",
	 {SET("instance", "data_mac", "00:00:00:00:00:00")},
	 "instance: data_mac '00:00:00:00:00:00' is the zero address"},
	{"reject: IPv4 octet 256",
	 {SET("instance", "control_address", "10.200.0.256")},
	 "instance: control_address '10.200.0.256' is not an IPv4 address"},
	{"reject: IPv4 octet with leading zero",
	 {SET("instance", "control_address", "10.200.00.14")},
	 "instance: control_address '10.200.00.14' is not an IPv4 address"},
	{"reject: IPv4 with 3 parts",
	 {SET("instance", "cp_address", "10.200.1")},
	 "instance: cp_address '10.200.1' is not an IPv4 address"},
	{"reject: IPv4 with 5 parts",
	 {SET("instance", "cp_address", "10.200.0.1.1")},
	 "instance: cp_address '10.200.0.1.1' is not an IPv4 address"},
	{"reject: multicast IPv4",
	 {SET("instance", "cp_address", "224.0.0.1")},
	 "instance: cp_address '224.0.0.1' is not a unicast host address"},
	{"reject: control_address is its network address",
	 {SET("instance", "control_address", "10.200.0.0")},
	 "instance: control_address 10.200.0.0 is the network or broadcast address"},
	{"reject: cp_address equals control_address",
	 {SET("instance", "cp_address", "10.200.0.14")},
	 "instance: cp_address equals control_address"},
	{"reject: core subnet with host bits",
	 {SET("core", "subnet", "100.64.0.1/24")},
	 "core: subnet '100.64.0.1/24' has host bits set"},
	{"reject: core subnet /33",
	 {SET("core", "subnet", "100.64.0.0/33")},
	 "core: subnet '100.64.0.0/33' is not an IPv4 prefix"},
	{"reject: core subnet without length",
	 {SET("core", "subnet", "100.64.0.0")},
	 "core: subnet '100.64.0.0' is not an IPv4 prefix"},
	{"reject: router outside core subnet",
	 {SET("core", "router_address", "100.65.0.1")},
	 "core: router_address 100.65.0.1 is outside [core] subnet 100.64.0.0/24"},
	{"reject: core_address outside core subnet",
	 {SET("line_group.0", "core_address", "100.64.1.14")},
	 "line_group.0: core_address 100.64.1.14 is outside [core] subnet 100.64.0.0/24"},
	{"reject: core_address is the router",
	 {SET("line_group.0", "core_address", "100.64.0.1")},
	 "line_group.0: core_address equals [core] router_address"},
	{"reject: core_address is the broadcast",
	 {SET("line_group.0", "core_address", "100.64.0.255")},
	 "line_group.0: core_address 100.64.0.255 is the network or broadcast address"},
	{"reject: pool prefixes overlap in a group",
	 {SET("line_group.0", "prefixes", "100.80.12.0/22 100.80.13.0/24")},
	 "line_group.0: prefixes: '100.80.13.0/24' overlaps 100.80.12.0/22 of line_group.0"},
	{"reject: pool prefixes overlap between groups",
	 {SET("instance", "line_groups", "2"),
	  APPEND("[line_group.1]\nname = lg5\nac_mac = 02:bb:00:00:00:05\n"
		 "core_address = 100.64.0.15\ncore_mac = 02:cc:00:00:00:05\n"
		 "prefixes = 100.80.0.0/16\nqos_profile = silver\n")},
	 "line_group.1: prefixes: '100.80.0.0/16' overlaps 100.80.12.0/22 of line_group.0"},
	{"reject: duplicate core_address",
	 {SET("instance", "line_groups", "2"),
	  APPEND("[line_group.1]\nname = lg5\nac_mac = 02:bb:00:00:00:05\n"
		 "core_address = 100.64.0.14\ncore_mac = 02:cc:00:00:00:05\n"
		 "prefixes = 100.80.16.0/22\nqos_profile = silver\n")},
	 "line_group.1: core_address is already used by line_group.0"},
	{"reject: pool overlaps the core subnet",
	 {SET("line_group.0", "prefixes", "100.64.0.0/16")},
	 "line_group.0: prefixes: '100.64.0.0/16' overlaps the [core] subnet"},
	{"reject: pool prefix with host bits",
	 {SET("line_group.0", "prefixes", "100.80.12.1/22")},
	 "line_group.0: prefixes: '100.80.12.1/22' has host bits set"},
	{"reject: pool prefix /0",
	 {SET("line_group.0", "prefixes", "0.0.0.0/0")},
	 "line_group.0: prefixes: '0.0.0.0/0' is not an IPv4 prefix"},
	{"reject: pool prefix inside a martian",
	 {SET("line_group.0", "prefixes", "100.80.12.0/22 127.0.0.0/24")},
	 "line_group.0: prefixes: '127.0.0.0/24' is inside 127.0.0.0/8, which is never forwarded"},
	{"reject: pool prefix inside multicast",
	 {SET("line_group.0", "prefixes", "224.0.0.0/24")},
	 "line_group.0: prefixes: '224.0.0.0/24' is inside 224.0.0.0/4, which is never forwarded"},
	{"reject: no pool prefix",
	 {SET("line_group.0", "prefixes", "")},
	 "line_group.0: prefixes is empty"},
	{"reject: 17 pool prefixes",
	 {SET("line_group.0", "prefixes",
	      "10.0.0.0/24 10.0.1.0/24 10.0.2.0/24 10.0.3.0/24 10.0.4.0/24 10.0.5.0/24 "
	      "10.0.6.0/24 10.0.7.0/24 10.0.8.0/24 10.0.9.0/24 10.0.10.0/24 10.0.11.0/24 "
	      "10.0.12.0/24 10.0.13.0/24 10.0.14.0/24 10.0.15.0/24 10.0.16.0/24")},
	 "line_group.0: prefixes: more than 16 prefixes"},

	/* ACL rules. */
	{"reject: acl action drop",
	 {SET("acl.0", "action", "drop")},
	 "acl.0: action 'drop' is neither permit nor deny"},
	{"reject: acl direction in",
	 {SET("acl.0", "direction", "in")},
	 "acl.0: direction 'in' is not up, down or both"},
	{"reject: acl protocol in upper case",
	 {SET("acl.0", "protocol", "TCP")},
	 "acl.0: protocol 'TCP' is not any, tcp, udp, icmp or a number 0..255"},
	{"reject: acl protocol 256",
	 {SET("acl.0", "protocol", "256"), SET("acl.0", "destination_ports", "any")},
	 "acl.0: protocol '256' is not any, tcp, udp, icmp or a number 0..255"},
	{"reject: acl protocol with leading zero",
	 {SET("acl.0", "protocol", "06")},
	 "acl.0: protocol '06' is not any, tcp, udp, icmp or a number 0..255"},
	{"reject: acl source without length",
	 {SET("acl.0", "source", "10.0.0.0")},
	 "acl.0: source '10.0.0.0' is not an IPv4 prefix a.b.c.d/0..32"},
	{"reject: acl source 'any'",
	 {SET("acl.0", "source", "any")},
	 "acl.0: source 'any' is not an IPv4 prefix a.b.c.d/0..32"},
	{"reject: acl destination with host bits",
	 {SET("acl.0", "destination", "10.0.0.1/8")},
	 "acl.0: destination '10.0.0.1/8' has host bits set"},
	{"reject: acl /0 that is not 0.0.0.0",
	 {SET("acl.0", "destination", "10.0.0.0/0")},
	 "acl.0: destination '10.0.0.0/0' has host bits set"},
	{"reject: acl single port",
	 {SET("acl.0", "destination_ports", "25")},
	 "acl.0: destination_ports '25' is neither 'any' nor a port range lo-hi of 1..65535"},
	{"reject: acl port 0",
	 {SET("acl.0", "destination_ports", "0-25")},
	 "acl.0: destination_ports '0-25' is neither 'any' nor a port range lo-hi"},
	{"reject: acl port 65536",
	 {SET("acl.0", "source_ports", "1024-65536")},
	 "acl.0: source_ports '1024-65536' is neither 'any' nor a port range lo-hi"},
	{"reject: acl port range reversed",
	 {SET("acl.0", "destination_ports", "30-25")},
	 "acl.0: destination_ports '30-25': range starts above its end"},
	{"reject: acl ports with icmp",
	 {SET("acl.0", "protocol", "icmp")},
	 "acl.0: destination_ports '25-25' needs protocol tcp or udp"},
	{"reject: acl ports with any protocol",
	 {SET("acl.0", "protocol", "any"), SET("acl.0", "source_ports", "1-1023")},
	 "acl.0: source_ports '1-1023' needs protocol tcp or udp"},
	{"reject: acl ports with protocol 47",
	 {SET("acl.0", "protocol", "47"), SET("acl.0", "destination_ports", "any"),
	  SET("acl.0", "source_ports", "5-6")},
	 "acl.0: source_ports '5-6' needs protocol tcp or udp"},
	{"reject: acl missing key",
	 {DEL("acl.0", "source_ports")},
	 "acl.0: missing key 'source_ports'"},
	{"reject: acl unknown key", {ADD("acl.0", "name = smtp")}, "acl.0: unknown key 'name'"},
	{"reject: acl count above the sections",
	 {SET("instance", "acl_rules", "2")},
	 "acl.1: missing section ([instance] acl_rules = 2)"},
	{"reject: acl section beyond the count",
	 {SET("instance", "acl_rules", "0")},
	 "acl.0: section present but [instance] acl_rules = 0"},
	{"reject: acl_rules above the limit",
	 {SET("instance", "acl_rules", "1025")},
	 "instance: acl_rules '1025' is out of range 0..1024"},
	{"reject: acl section number at the limit",
	 {APPEND("[acl.1024]\n")},
	 "section [acl.1024]: at most 1024 [acl.N] sections are supported"},
	{"reject: acl section number not canonical",
	 {APPEND("[acl.01]\n")},
	 "section [acl.01] is not part of the DP instance format"},
	{"valid: acl protocol number and both directions",
	 {SET("acl.0", "protocol", "17"), SET("acl.0", "direction", "both"),
	  SET("acl.0", "source", "100.80.12.0/22"), SET("acl.0", "source_ports", "1-65535")},
	 NULL},

	/* Static routes. */
	{"reject: route to 0.0.0.0/0",
	 {SET("route.0", "prefix", "0.0.0.0/0")},
	 "route.0: prefix '0.0.0.0/0': the default route is [core] router_address"},
	{"reject: route prefix /33",
	 {SET("route.0", "prefix", "192.0.2.0/33")},
	 "route.0: prefix '192.0.2.0/33' is not an IPv4 prefix a.b.c.d/1..32"},
	{"reject: route prefix with host bits",
	 {SET("route.0", "prefix", "192.0.2.1/24")},
	 "route.0: prefix '192.0.2.1/24' has host bits set"},
	{"reject: route inside 0/8",
	 {SET("route.0", "prefix", "0.1.0.0/16")},
	 "route.0: prefix '0.1.0.0/16' is inside 0.0.0.0/8, which is never forwarded"},
	{"reject: route inside loopback",
	 {SET("route.0", "prefix", "127.0.0.0/8")},
	 "route.0: prefix '127.0.0.0/8' is inside 127.0.0.0/8, which is never forwarded"},
	{"reject: route inside multicast",
	 {SET("route.0", "prefix", "239.1.0.0/16")},
	 "route.0: prefix '239.1.0.0/16' is inside 224.0.0.0/4, which is never forwarded"},
	{"reject: route to the limited broadcast",
	 {SET("route.1", "prefix", "255.255.255.255/32")},
	 "route.1: prefix '255.255.255.255/32' is inside 240.0.0.0/4, which is never forwarded"},
	{"reject: route inside the core subnet",
	 {SET("route.0", "prefix", "100.64.0.128/25")},
	 "route.0: prefix '100.64.0.128/25' is inside the [core] subnet 100.64.0.0/24"},
	{"reject: route equal to the core subnet",
	 {SET("route.1", "prefix", "100.64.0.0/24")},
	 "route.1: prefix '100.64.0.0/24' is inside the [core] subnet 100.64.0.0/24"},
	{"reject: route inside a pool",
	 {SET("route.0", "prefix", "100.80.13.0/24")},
	 "route.0: prefix '100.80.13.0/24' is inside pool prefix 100.80.12.0/22 of line_group.0"},
	{"reject: route prefix twice",
	 {SET("route.1", "prefix", "192.0.2.0/24")},
	 "route.1: prefix '192.0.2.0/24' is already routed by route.0"},
	{"reject: route via a name",
	 {SET("route.0", "via", "gw1")},
	 "route.0: via 'gw1' is not an IPv4 address"},
	{"reject: route via multicast",
	 {SET("route.0", "via", "224.0.0.1")},
	 "route.0: via '224.0.0.1' is not a unicast host address"},
	{"reject: route via outside the core subnet",
	 {SET("route.0", "via", "100.65.0.2")},
	 "route.0: via 100.65.0.2 is outside [core] subnet 100.64.0.0/24"},
	{"reject: route via the core broadcast",
	 {SET("route.0", "via", "100.64.0.255")},
	 "route.0: via 100.64.0.255 is the network or broadcast address of 100.64.0.0/24"},
	{"reject: route via a group's core address",
	 {SET("route.0", "via", "100.64.0.14")},
	 "route.0: via 100.64.0.14 is the core_address of line_group.0"},
	{"reject: route via DROP",
	 {SET("route.1", "via", "DROP")},
	 "route.1: via 'DROP' is not an IPv4 address"},
	{"reject: route missing via", {DEL("route.0", "via")}, "route.0: missing key 'via'"},
	{"reject: routes above the limit",
	 {SET("instance", "routes", "257")},
	 "instance: routes '257' is out of range 0..256"},
	{"reject: routes count below the sections",
	 {SET("instance", "routes", "1")},
	 "route.1: section present but [instance] routes = 1"},
	{"valid: routes around the core subnet and a pool, via the router",
	 {SET("route.0", "prefix", "100.0.0.0/8"), SET("route.0", "via", "100.64.0.1"),
	  SET("route.1", "prefix", "100.80.0.0/16")},
	 NULL},
	{"valid: a route inside another route", {SET("route.1", "prefix", "192.0.2.128/25")}, NULL},

	/* Valid variants. */
	{"valid: empty dscp_map and tc_rates",
	 {SET("qos_profile.0", "dscp_map", ""), SET("qos_profile.0", "tc_rates", "")},
	 NULL},
	{"valid: zero counts for empty objects",
	 {SET("instance", "lines", "0"), DROP("line.0"), DROP("line.1")},
	 NULL},
	{"valid: no ACL rules and no routes",
	 {SET("instance", "acl_rules", "0"), SET("instance", "routes", "0"), DROP("acl.0"),
	  DROP("route.0"), DROP("route.1")},
	 NULL},
	{"valid: core vlan 4094, /32 control",
	 {SET("core", "vlan", "4094"), SET("instance", "control_prefix_len", "32")},
	 NULL},

	/* Line syntax of the file. */
	{"reject: line without '='",
	 {ADD("core", "vlan 5")},
	 "neither '[section]' nor 'key = value'"},
	{"reject: backslash", {SET("instance", "pod", "la\\;b")}, "'\\' is not allowed"},
	{"reject: unterminated section header",
	 {APPEND("[line.2\n")},
	 "section header does not end in ']'"},
	{"reject: text after section header",
	 {APPEND("[line.2] extra\n")},
	 "section header does not end in ']'"},
	{"reject: empty section header", {APPEND("[ ]\n")}, "empty section name"},
	{"reject: upper-case section name",
	 {APPEND("[Core]\n")},
	 "section name 'Core' has a character other than a-z 0-9 _ ."},
	{"reject: key with blank",
	 {ADD("core", "my key = 1")},
	 "key 'my key' has a character other than a-z 0-9 _"},
	{"reject: no key before '='", {ADD("core", "= 1")}, "no key before '='"},

	/* IPv6 (dual stack). */
	{"valid: dual stack keys",
	 {ADD("core", "subnet6 = 2001:db8:64::/64"),
	  ADD("core", "router_address6 = 2001:db8:64::1"),
	  ADD("line_group.0", "core_address6 = 2001:db8:64::14"),
	  ADD("line_group.0", "prefixes6 = 2001:db8:100::/48:64 2001:db8:200::/40:56"),
	  ADD("acl.0", "family = ipv4")},
	 NULL},
	{"valid: every IPv6 key none",
	 {ADD("core", "subnet6 = none"), ADD("core", "router_address6 = none"),
	  ADD("line_group.0", "core_address6 = none"), ADD("line_group.0", "prefixes6 = none")},
	 NULL},
	{"reject: subnet6 not a prefix",
	 {ADD("core", "subnet6 = 2001:db8:64::")},
	 "core: subnet6 '2001:db8:64::' is not an IPv6 prefix"},
	{"reject: subnet6 an IPv4 prefix",
	 {ADD("core", "subnet6 = 100.64.0.0/24")},
	 "is not an IPv6 prefix"},
	{"reject: subnet6 host bits",
	 {ADD("core", "subnet6 = 2001:db8:64::1/64")},
	 "core: subnet6 '2001:db8:64::1/64' has host bits set"},
	{"reject: subnet6 link-local",
	 {ADD("core", "subnet6 = fe80::/64")},
	 "core: subnet6 'fe80::/64' is not a global unicast prefix"},
	{"reject: subnet6 too short",
	 {ADD("core", "subnet6 = 2001:db8::/32")},
	 "is not an IPv6 prefix x::/48..127"},
	{"reject: router_address6 without subnet6",
	 {ADD("core", "router_address6 = 2001:db8:64::1")},
	 "core: router_address6 needs [core] subnet6"},
	{"reject: router_address6 outside subnet6",
	 {ADD("core", "subnet6 = 2001:db8:64::/64"),
	  ADD("core", "router_address6 = 2001:db8:65::1")},
	 "core: router_address6 '2001:db8:65::1' is not a host of [core] subnet6"},
	{"reject: router_address6 the subnet's first address",
	 {ADD("core", "subnet6 = 2001:db8:64::/64"),
	  ADD("core", "router_address6 = 2001:db8:64::")},
	 "is not a host of [core] subnet6"},
	{"reject: router_address6 garbage",
	 {ADD("core", "subnet6 = 2001:db8:64::/64"),
	  ADD("core", "router_address6 = 2001:db8:64::g")},
	 "core: router_address6 '2001:db8:64::g' is not an IPv6 address"},
	{"reject: core_address6 equals the router",
	 {ADD("core", "subnet6 = 2001:db8:64::/64"),
	  ADD("core", "router_address6 = 2001:db8:64::1"),
	  ADD("line_group.0", "core_address6 = 2001:db8:64::1")},
	 "line_group.0: core_address6 equals [core] router_address6"},
	{"reject: prefixes6 without core_address6",
	 {ADD("core", "subnet6 = 2001:db8:64::/64"),
	  ADD("line_group.0", "prefixes6 = 2001:db8:100::/48:64")},
	 "line_group.0: prefixes6 needs a core_address6"},
	{"reject: prefixes6 without assigned length",
	 {ADD("core", "subnet6 = 2001:db8:64::/64"),
	  ADD("line_group.0", "core_address6 = 2001:db8:64::14"),
	  ADD("line_group.0", "prefixes6 = 2001:db8:100::/48")},
	 "line_group.0: prefixes6: '2001:db8:100::/48' is not prefix/length:assigned"},
	{"reject: prefixes6 assigned shorter than the pool",
	 {ADD("core", "subnet6 = 2001:db8:64::/64"),
	  ADD("line_group.0", "core_address6 = 2001:db8:64::14"),
	  ADD("line_group.0", "prefixes6 = 2001:db8:100::/48:40")},
	 "assigned length is not 48..64"},
	{"reject: prefixes6 assigned longer than 64",
	 {ADD("core", "subnet6 = 2001:db8:64::/64"),
	  ADD("line_group.0", "core_address6 = 2001:db8:64::14"),
	  ADD("line_group.0", "prefixes6 = 2001:db8:100::/48:65")},
	 "assigned length is not 48..64"},
	{"reject: prefixes6 pool shorter than 32",
	 {ADD("core", "subnet6 = 2001:db8:64::/64"),
	  ADD("line_group.0", "core_address6 = 2001:db8:64::14"),
	  ADD("line_group.0", "prefixes6 = 2001:d00::/24:64")},
	 "is not an IPv6 prefix x::/32..64"},
	{"reject: prefixes6 overlap each other",
	 {ADD("core", "subnet6 = 2001:db8:64::/64"),
	  ADD("line_group.0", "core_address6 = 2001:db8:64::14"),
	  ADD("line_group.0", "prefixes6 = 2001:db8:100::/48:64 2001:db8:100:100::/56:64")},
	 "line_group.0: prefixes6: '2001:db8:100:100::/56:64' overlaps a pool of line_group.0"},
	{"reject: prefixes6 overlaps subnet6",
	 {ADD("core", "subnet6 = 2001:db8:64::/64"),
	  ADD("line_group.0", "core_address6 = 2001:db8:64::14"),
	  ADD("line_group.0", "prefixes6 = 2001:db8::/32:64")},
	 "overlaps [core] subnet6"},
	{"reject: prefixes6 multicast",
	 {ADD("core", "subnet6 = 2001:db8:64::/64"),
	  ADD("line_group.0", "core_address6 = 2001:db8:64::14"),
	  ADD("line_group.0", "prefixes6 = ff00::/32:64")},
	 "is not a global unicast prefix"},
	{"reject: prefixes6 more than 8 pairs",
	 {ADD("core", "subnet6 = 2001:db8:64::/64"),
	  ADD("line_group.0", "core_address6 = 2001:db8:64::14"),
	  ADD("line_group.0",
	      "prefixes6 = 2001:db8:1::/48:64 2001:db8:2::/48:64 2001:db8:3::/48:64 "
	      "2001:db8:4::/48:64 2001:db8:5::/48:64 2001:db8:6::/48:64 2001:db8:7::/48:64 "
	      "2001:db8:8::/48:64 2001:db8:9::/48:64")},
	 "line_group.0: prefixes6: more than 8 pairs"},
	{"reject: prefixes6 empty",
	 {ADD("core", "subnet6 = 2001:db8:64::/64"),
	  ADD("line_group.0", "core_address6 = 2001:db8:64::14"),
	  ADD("line_group.0", "prefixes6 = ")},
	 "prefixes6 is empty"},
	{"valid: an IPv6 ACL rule, icmp is ICMPv6",
	 {ADD("acl.0", "family = ipv6"), SET("acl.0", "source", "::/0"),
	  SET("acl.0", "destination", "2001:db8:dead::/48")},
	 NULL},
	{"reject: an IPv6 ACL rule with IPv4 prefixes",
	 {ADD("acl.0", "family = ipv6")},
	 "acl.0: source '0.0.0.0/0' is not an IPv6 prefix"},
	{"reject: an IPv4 ACL rule with IPv6 prefixes",
	 {SET("acl.0", "source", "::/0")},
	 "acl.0: source '::/0' is not an IPv4 prefix"},
	{"reject: ACL family unknown",
	 {ADD("acl.0", "family = ipx")},
	 "acl.0: family 'ipx' is neither ipv4 nor ipv6"},
	{"reject: IPv6 ACL prefix with host bits",
	 {ADD("acl.0", "family = ipv6"), SET("acl.0", "source", "::/0"),
	  SET("acl.0", "destination", "2001:db8:dead::1/48")},
	 "has host bits set"},
};

static const struct raw_case raw_cases[] = {
	RAW("raw: empty file", "", "missing section [instance]"),
	RAW("raw: comments only", "; nothing\n\n   ; here\n", "missing section [instance]"),
	RAW("raw: ELF header",
	    "\x7f"
	    "ELF\x02\x01\x01\0\0\0",
	    "file line 1: byte 0x7f is not printable ASCII"),
	RAW("raw: NUL byte smuggling a section", "[instance]\nid = 1\0[core]\n",
	    "file line 2: byte 0x00 is not printable ASCII"),
	RAW("raw: UTF-8 text", "[instance]\nname = d\xc3\xa9p\n",
	    "file line 2: byte 0xc3 is not printable ASCII"),
	RAW("raw: plain prose", "This is not a configuration file.\n",
	    "file line 1: neither '[section]' nor 'key = value'"),
	RAW("raw: JSON", "{\"instance\": {\"id\": 4}}\n",
	    "file line 1: neither '[section]' nor 'key = value'"),
	RAW("raw: YAML", "pod: lab\ninstances:\n  - id: 1\n",
	    "file line 1: neither '[section]' nor 'key = value'"),
	RAW("raw: key before any section", "id = 4\n[instance]\n",
	    "file line 1: key 'id' before the first section"),
	RAW("raw: form feed", "[instance]\f\n", "file line 1: byte 0x0c is not printable ASCII"),
	RAW("raw: only a header", "[instance]", "instance: missing key 'id'"),
};

/* The dual-stack keys land in the right fields. */
static void
test_ipoe_fields(const char *base)
{
	static const char name[] = "valid: IPoE fields";
	static const struct edit edits[MAX_EDITS] = {
		SET("line_group.0", "prefixes", "100.80.12.0/22 100.81.0.0/24 100.82.0.0/31"),
		ADD("line_group.0", "session_types = ipoe pppoe"),
		ADD("line_group.0", "ipoe_gateways = 100.81.0.254/24 100.80.12.1/22 100.82.0.0/31"),
		ADD("line_group.0", "ipoe_proxy_arp = no"),
	};
	struct text t = {0};
	const char *unapplied = NULL;
	const struct dp_line_group *lg;
	bool ok;

	ok = apply_edits(base, edits, &t, &unapplied) && write_file(scratch_path, t.p, t.len) &&
	     check_load(name, scratch_path, NULL);
	text_free(&t);
	if (!ok)
		return;
	lg = &cfg->line_groups[0];
	EXPECT(name, lg->session_types == (DP_SESSION_TYPE_PPPOE | DP_SESSION_TYPE_IPOE));
	EXPECT(name, !lg->ipoe_proxy_arp);
	EXPECT(name, lg->n_ipoe_gateways == 3);
	EXPECT(name, lg->ipoe_gateways[0].addr == 0x645100fe && lg->ipoe_gateways[0].len == 24 &&
			     lg->ipoe_gateways[0].pool == 1);
	EXPECT(name, lg->ipoe_gateways[1].addr == 0x64500c01 && lg->ipoe_gateways[1].len == 22 &&
			     lg->ipoe_gateways[1].pool == 0);
	EXPECT(name, lg->ipoe_gateways[2].addr == 0x64520000 && lg->ipoe_gateways[2].pool == 2);
	pass(name);
}

static void
test_ipoe_absent(const char *base)
{
	static const char name[] = "valid: IPoE keys absent: PPPoE only, no gateways";
	static const struct edit edits[MAX_EDITS] = {DEL("line_group.0", "standby")};
	struct text t = {0};
	const char *unapplied = NULL;
	bool ok;

	ok = apply_edits(base, edits, &t, &unapplied) && write_file(scratch_path, t.p, t.len) &&
	     check_load(name, scratch_path, NULL);
	text_free(&t);
	if (!ok)
		return;
	EXPECT(name, cfg->line_groups[0].session_types == DP_SESSION_TYPE_PPPOE);
	EXPECT(name, cfg->line_groups[0].n_ipoe_gateways == 0);
	EXPECT(name, cfg->line_groups[0].ipoe_proxy_arp);
	pass(name);
}

static void
test_ipv6_fields(const char *base)
{
	static const char name[] = "valid: IPv6 fields";
	static const struct edit edits[MAX_EDITS] = {
		ADD("core", "subnet6 = 2001:db8:64::/64"),
		ADD("core", "router_address6 = 2001:db8:64::1"),
		ADD("line_group.0", "core_address6 = 2001:db8:64::14"),
		ADD("line_group.0", "prefixes6 = 2001:db8:100::/48:64 2001:db8:200::/40:56"),
		ADD("acl.0", "family = ipv6"),
		SET("acl.0", "source", "::/0"),
		SET("acl.0", "destination", "2001:db8:dead::/48"),
		SET("acl.0", "protocol", "icmp"),
		SET("acl.0", "destination_ports", "any"),
	};
	static const uint8_t router6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0x64, [15] = 1};
	static const uint8_t core6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0x64, [15] = 0x14};
	static const uint8_t pd[16] = {0x20, 0x01, 0x0d, 0xb8, 0x02, 0x00};
	static const uint8_t in_pd[16] = {0x20, 0x01, 0x0d, 0xb8, 0x02, 0xff, 0xff, 0xff, [15] = 1};
	static const uint8_t out_pd[16] = {0x20, 0x01, 0x0d, 0xb8, 0x03, 0x00, [15] = 1};
	struct text t = {0};
	const char *unapplied = NULL;
	const struct dp_line_group *lg;
	bool ok;

	ok = apply_edits(base, edits, &t, &unapplied) && write_file(scratch_path, t.p, t.len) &&
	     check_load(name, scratch_path, NULL);
	text_free(&t);
	if (!ok)
		return;
	lg = &cfg->line_groups[0];
	EXPECT(name, cfg->core.has_subnet6 && cfg->core.subnet6.len == 64);
	EXPECT(name, cfg->core.has_router6 && memcmp(cfg->core.router_address6, router6, 16) == 0);
	EXPECT(name, lg->has_core6 && memcmp(lg->core_address6, core6, 16) == 0);
	EXPECT(name, lg->n_prefixes6 == 2);
	EXPECT(name, lg->prefixes6[0].prefix.len == 48 && lg->prefixes6[0].assigned == 64);
	EXPECT(name, lg->prefixes6[1].prefix.len == 40 && lg->prefixes6[1].assigned == 56);
	EXPECT(name, memcmp(lg->prefixes6[1].prefix.addr, pd, 16) == 0);
	EXPECT(name, dp_ipv6_in_prefix(in_pd, &lg->prefixes6[1].prefix));
	EXPECT(name, !dp_ipv6_in_prefix(out_pd, &lg->prefixes6[1].prefix));
	EXPECT(name, cfg->acl_rules[0].family == DP_ACL_IPV6);
	EXPECT(name, cfg->acl_rules[0].protocol == DP_IPPROTO_ICMPV6);
	EXPECT(name, cfg->acl_rules[0].src6.len == 0 && cfg->acl_rules[0].dst6.len == 48);
	EXPECT(name, dp_config_adopt_check6(cfg, 0, core6, NULL, 0) == 0);
	EXPECT(name, dp_config_adopt_check6(cfg, 0, router6, NULL, 0) == -EINVAL);
	EXPECT(name, dp_config_adopt_check6(cfg, 0, pd, NULL, 0) == -EINVAL);
	EXPECT(name, dp_config_adopt_check6(cfg, 0, NULL, NULL, 0) == 0);
	pass(name);
}

/* The lab fixture without IPv6 keys: no IPv6, ACL rules are IPv4. */
static void
test_ipv6_absent(void)
{
	static const char name[] = "valid: IPv6 keys absent";
	char path[4096];

	snprintf(path, sizeof(path), "%s/lab_dp4.ini", fixture_dir);
	if (!check_load(name, path, NULL))
		return;
	EXPECT(name, !cfg->core.has_subnet6 && !cfg->core.has_router6);
	EXPECT(name, !cfg->line_groups[0].has_core6 && cfg->line_groups[0].n_prefixes6 == 0);
	EXPECT(name, cfg->acl_rules[0].family == DP_ACL_IPV4);
	pass(name);
}

int
main(int argc, char **argv)
{
	static char scratch[4096];
	struct text base = {0};
	char path[4096];
	size_t i;

	if (argc != 3) {
		fprintf(stderr, "usage: test_dp_config FIXTURE_DIR SCRATCH_DIR\n");
		return 2;
	}
	fixture_dir = argv[1];
	snprintf(scratch, sizeof(scratch), "%s/test_dp_config.case.ini", argv[2]);
	scratch_path = scratch;
	cfg = malloc(sizeof(*cfg));
	snprintf(path, sizeof(path), "%s/lab_dp4.ini", fixture_dir);
	if (cfg == NULL || !read_text(path, &base) || base.len == 0) {
		fprintf(stderr, "cannot read %s\n", path);
		printf("0 passed, 1 failed\n");
		text_free(&base);
		free(cfg);
		return 1;
	}

	test_lab_fields();
	test_multi_group_fields();
	test_crlf(base.p);
	test_longest_line(base.p);
	test_max_config();
	test_io_errors();
	test_zeroed_on_error();
	test_punt_section(base.p);
	test_ipv6_fields(base.p);
	test_ipv6_absent();
	test_ipoe_fields(base.p);
	test_ipoe_absent(base.p);
	for (i = 0; i < sizeof(up_dscp_cases) / sizeof(up_dscp_cases[0]); i++)
		run_up_dscp_case(base.p, &up_dscp_cases[i]);
	for (i = 0; i < sizeof(edit_cases) / sizeof(edit_cases[0]); i++)
		run_edit_case(base.p, &edit_cases[i]);
	for (i = 0; i < sizeof(raw_cases) / sizeof(raw_cases[0]); i++)
		run_raw_case(&raw_cases[i]);
	test_generated_raw();
	test_golden();

	remove(scratch_path);
	text_free(&base);
	free(cfg);
	return harness_report();
}

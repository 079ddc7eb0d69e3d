/*
 * Loader of dp/<name>.ini, the bng-dp instance configuration.
 *
 * The file is hostile input. Loading runs in four steps, each of which may
 * only narrow what the next one sees:
 *
 *  1. read:   at most DP_CONFIG_MAX_FILE_SIZE bytes, into memory, once.
 *  2. screen: line by line, the exact grammar rte_cfgfile understands, minus
 *             everything it handles badly (see screen_file()).
 *  3. parse:  rte_cfgfile_load() on a private snapshot of the screened bytes.
 *  4. check:  sections and keys against the schema, then every value against
 *             the contract, references resolved to indices, cross-object
 *             rules (overlapping tags, prefixes, names) last.
 *
 * Nothing here needs the EAL: rte_cfgfile uses plain malloc() and stdio.
 */

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_cfgfile.h>
#include <rte_common.h>
#include <rte_sched.h>

#include "dp_config.h"

/* The struct layout promises of dp_config.h, held against DPDK. */
static_assert(DP_NUM_TCS == RTE_SCHED_TRAFFIC_CLASSES_PER_PIPE, "rte_sched class count");
static_assert(DP_TC_BEST_EFFORT == RTE_SCHED_TRAFFIC_CLASS_BE, "rte_sched best-effort class");
static_assert(DP_NUM_BE_QUEUES == RTE_SCHED_BE_QUEUES_PER_PIPE, "rte_sched WRR queues");
static_assert(DP_MAX_WORKER_CORES <= RTE_MAX_LCORE, "more worker cores than lcores");
static_assert(DP_NUM_TCS <= 16, "tc_rate_listed is a 16-bit mask");
static_assert(DP_NUM_DSCPS <= 64, "dscp_listed is a 64-bit mask");
/*
 * rte_cfgfile.h lets a user redefine these, but librte_cfgfile.so is built
 * with the defaults and struct rte_cfgfile_entry must match it.
 */
static_assert(CFG_NAME_LEN == 64 && CFG_VALUE_LEN == 256, "rte_cfgfile entry sizes");

/*
 * Screening limits.
 *
 * rte_cfgfile reads lines with fgets() into CFG_NAME_LEN + CFG_VALUE_LEN + 4
 * bytes and fails on a longer line, so a line may have at most this many
 * characters before its '\n'.
 */
#define INI_MAX_LINE (CFG_NAME_LEN + CFG_VALUE_LEN + 2)
/* Most keys a section may have; the largest section ([instance]) has 17. */
#define INI_MAX_KEYS 32
/* Most sections a valid file can have: [instance], [core], [punt] and the rest. */
#define INI_MAX_SECTIONS                                                                     \
	(3 + DP_MAX_ACCESS_PORTS + DP_MAX_LINE_GROUPS + DP_MAX_LINES + DP_MAX_QOS_PROFILES + \
	 DP_MAX_ACL_RULES + DP_MAX_ROUTES)

/* First read chunk when the size of the file is not known up front. */
#define READ_CHUNK 4096

enum section_kind {
	SEC_INSTANCE,
	SEC_CORE,
	SEC_ACCESS_PORT,
	SEC_LINE_GROUP,
	SEC_LINE,
	SEC_QOS_PROFILE,
	SEC_ACL,
	SEC_ROUTE,
	SEC_PUNT,
	SEC_KINDS,
};

/* What a section of one kind looks like. Every key is mandatory but the optional ones. */
struct section_schema {
	const char *name;	 /* "core", or "line" for [line.N] */
	bool numbered;		 /* [name.N], N counted in [instance] */
	uint16_t limit;		 /* most sections of this kind */
	const char *count_key;	 /* [instance] key holding their number */
	const char *const *keys; /* NULL-terminated */
	uint32_t optional;	 /* bit k: keys[k] may be left out */
};

static const char *const instance_keys[] = {
	"id",
	"name",
	"pod",
	"data_mac",
	"worker_cores",
	"port_rate",
	"control_address",
	"control_prefix_len",
	"cp_address",
	"pfcp_port",
	"vxlan_port",
	"access_ports",
	"line_groups",
	"lines",
	"qos_profiles",
	"acl_rules",
	"routes",
	NULL,
};
static const char *const core_keys[] = {
	"subnet", "router_address", "vlan", "subnet6", "router_address6", NULL,
};
#define CORE_OPTIONAL (UINT32_C(3) << 3) /* subnet6, router_address6 (default none) */
static const char *const access_port_keys[] = {"name", "tpid", "rate", NULL};
static const char *const line_group_keys[] = {
	"name",	     "ac_mac",	      "core_address",  "core_mac",
	"prefixes",  "qos_profile",   "standby",       "core_address6",
	"prefixes6", "session_types", "ipoe_gateways", "ipoe_proxy_arp",
	NULL,
};
/*
 * standby (default no), core_address6 and prefixes6 (default none),
 * session_types (default pppoe), ipoe_gateways (default none), ipoe_proxy_arp
 * (default yes)
 */
#define LINE_GROUP_OPTIONAL (UINT32_C(0x3f) << 6)
static const char *const line_keys[] = {"group", "access_port", "stag", "ctag", NULL};
static const char *const qos_profile_keys[] = {
	"name",	      "down_rate", "up_pir",   "up_cir",     "up_dscp",
	"default_tc", "dscp_map",  "tc_rates", "be_weights", NULL,
};
static const char *const acl_keys[] = {
	"action",	"direction",	     "protocol", "source", "destination",
	"source_ports", "destination_ports", "family",	 NULL,
};
#define ACL_OPTIONAL (UINT32_C(1) << 7) /* family (default ipv4) */
static const char *const route_keys[] = {"prefix", "via", NULL};
/* [punt]: <class>_<field> for the classes in enum dp_punt_class order, all optional. */
const char *const dp_punt_class_names[DP_PUNT_CLASSES] = {
	[DP_PUNT_HIGH] = "high",
	[DP_PUNT_MID] = "mid",
	[DP_PUNT_LOW] = "low",
};
static const char *const punt_keys[] = {
	"high_client_rate",  "high_client_burst", "high_line_rate",   "high_line_burst",
	"high_ring_percent", "mid_client_rate",	  "mid_client_burst", "mid_line_rate",
	"mid_line_burst",    "mid_ring_percent",  "low_client_rate",  "low_client_burst",
	"low_line_rate",     "low_line_burst",	  "low_ring_percent", NULL,
};
#define PUNT_FIELDS 5 /* client_rate, client_burst, line_rate, line_burst, ring_percent */
static_assert(RTE_DIM(punt_keys) == PUNT_FIELDS * DP_PUNT_CLASSES + 1, "a key per class and field");
#define PUNT_OPTIONAL ((UINT32_C(1) << (PUNT_FIELDS * DP_PUNT_CLASSES)) - 1)

static const struct section_schema schemas[SEC_KINDS] = {
	[SEC_INSTANCE] = {"instance", false, 1, NULL, instance_keys, 0},
	[SEC_CORE] = {"core", false, 1, NULL, core_keys, CORE_OPTIONAL},
	[SEC_ACCESS_PORT] = {"access_port", true, DP_MAX_ACCESS_PORTS, "access_ports",
			     access_port_keys, 0},
	[SEC_LINE_GROUP] = {"line_group", true, DP_MAX_LINE_GROUPS, "line_groups", line_group_keys,
			    LINE_GROUP_OPTIONAL},
	[SEC_LINE] = {"line", true, DP_MAX_LINES, "lines", line_keys, 0},
	[SEC_QOS_PROFILE] = {"qos_profile", true, DP_MAX_QOS_PROFILES, "qos_profiles",
			     qos_profile_keys, 0},
	[SEC_ACL] = {"acl", true, DP_MAX_ACL_RULES, "acl_rules", acl_keys, ACL_OPTIONAL},
	[SEC_ROUTE] = {"route", true, DP_MAX_ROUTES, "routes", route_keys, 0},
	[SEC_PUNT] = {"punt", false, 1, NULL, punt_keys, PUNT_OPTIONAL},
};

/* Bitmaps of seen sections are sized by the largest limit. */
static_assert(DP_MAX_LINES >= DP_MAX_ACCESS_PORTS && DP_MAX_LINES >= DP_MAX_LINE_GROUPS &&
		      DP_MAX_LINES >= DP_MAX_QOS_PROFILES && DP_MAX_LINES >= DP_MAX_ACL_RULES &&
		      DP_MAX_LINES >= DP_MAX_ROUTES,
	      "seen[] is sized by DP_MAX_LINES");
#define SEEN_WORDS (DP_MAX_LINES / 64)

struct loader {
	struct dp_config *cfg;
	char *err;
	size_t errlen;
	struct rte_cfgfile *file;
	struct rte_cfgfile_entry *entries; /* INI_MAX_KEYS, scratch of the section walk */
	uint64_t seen[SEC_KINDS][SEEN_WORDS];
};

/* Records the message and returns -EINVAL, the error of any content problem. */
static int fail(struct loader *ld, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
fail(struct loader *ld, const char *fmt, ...)
{
	va_list ap;

	if (ld->err != NULL && ld->errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(ld->err, ld->errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Records "what: strerror(-rc)" and returns rc, for system call failures. */
static int
fail_sys(struct loader *ld, int rc, const char *what)
{
	char buf[128];

	if (ld->err != NULL && ld->errlen > 0)
		snprintf(ld->err, ld->errlen, "%s: %s", what, strerror_r(-rc, buf, sizeof(buf)));
	return rc;
}

/*
 * Step 1: read the whole file. Only once, so that what is screened is what
 * gets parsed, and bounded, so /dev/zero or a huge file cannot exhaust memory.
 */
static int
read_file(struct loader *ld, const char *path, char **bufp, size_t *lenp)
{
	size_t cap = READ_CHUNK, len = 0;
	struct stat st;
	char *buf, *grown;
	ssize_t n;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return fail_sys(ld, -errno, "open");
	if (fstat(fd, &st) < 0) {
		rc = fail_sys(ld, -errno, "fstat");
		close(fd);
		return rc;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return fail_sys(ld, -EISDIR, "open");
	}
	/* One allocation for a regular file; st_size is only a hint though. */
	if (S_ISREG(st.st_mode) && st.st_size >= 0 &&
	    (uint64_t)st.st_size < DP_CONFIG_MAX_FILE_SIZE)
		cap = RTE_MAX((size_t)st.st_size + 1, (size_t)READ_CHUNK);

	buf = malloc(cap);
	if (buf == NULL) {
		close(fd);
		return fail_sys(ld, -ENOMEM, "read");
	}
	for (;;) {
		if (len == cap) {
			if (cap > DP_CONFIG_MAX_FILE_SIZE)
				break;
			cap = RTE_MIN(cap * 2, (size_t)DP_CONFIG_MAX_FILE_SIZE + 1);
			grown = realloc(buf, cap);
			if (grown == NULL) {
				rc = fail_sys(ld, -ENOMEM, "read");
				goto out_free;
			}
			buf = grown;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = fail_sys(ld, -errno, "read");
			goto out_free;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (len > DP_CONFIG_MAX_FILE_SIZE) {
		free(buf);
		*bufp = NULL;
		return fail(ld, "file is larger than %u bytes", DP_CONFIG_MAX_FILE_SIZE);
	}
	*bufp = buf;
	*lenp = len;
	return 0;

out_free:
	free(buf);
	close(fd);
	return rc;
}

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Trims what rte_cfgfile's isspace()-based strip would (\v, \f never get here). */
static void
trim(const char **s, size_t *n)
{
	while (*n > 0 && is_blank((*s)[*n - 1]))
		(*n)--;
	while (*n > 0 && is_blank(**s)) {
		(*s)++;
		(*n)--;
	}
}

static bool
is_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* Section names are schema names: [a-z0-9_.]. */
static bool
is_section_name(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!is_lower_alnum(s[i]) && s[i] != '_' && s[i] != '.')
			return false;
	return true;
}

/* Keys are schema keys: [a-z0-9_]. */
static bool
is_key_name(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!is_lower_alnum(s[i]) && s[i] != '_')
			return false;
	return true;
}

/*
 * Step 2: accept only lines rte_cfgfile turns into exactly what they say.
 *
 * rte_cfgfile (22.11) silently
 *  - ignores a line that is neither "[...]" nor has a '=' (a typo'd key),
 *  - ignores text after the ']' of a section header,
 *  - truncates section names and keys to 63 and values to 255 characters,
 *  - keeps duplicate sections and keys (lookups see the first one),
 *  - stops a line at a NUL byte and resumes the remainder of a long line as
 *    a new line, so a NUL can smuggle in sections,
 * and unescapes "\;" in a value with strlcat() on overlapping buffers
 * (undefined behaviour).
 * It also grows without bound with the number of sections and keys.
 *
 * So: printable ASCII (plus tab, and CR of a CRLF line end) only, no backslash,
 * lines no longer than its line buffer, every non-blank, non-comment line a
 * well-formed "[section]" or "key = value" of bounded size, and bounded
 * numbers of sections and keys. Duplicates are caught after parsing.
 */
static int
screen_file(struct loader *ld, const char *buf, size_t len)
{
	unsigned int lineno = 0, sections = 0, keys = 0;
	const char *line, *end, *s, *eq, *key, *value;
	size_t pos = 0, n, i, keylen, valuelen;

	while (pos < len) {
		line = buf + pos;
		end = memchr(line, '\n', len - pos);
		n = end != NULL ? (size_t)(end - line) : len - pos;
		pos += n + (end != NULL);
		lineno++;

		if (n > INI_MAX_LINE)
			return fail(ld, "file line %u: longer than %d characters", lineno,
				    INI_MAX_LINE);
		for (i = 0; i < n; i++) {
			unsigned char c = (unsigned char)line[i];

			if (c == '\\')
				return fail(ld, "file line %u: '\\' is not allowed", lineno);
			/* CR only as part of a CRLF line end. */
			if ((c < 0x20 || c > 0x7e) && c != '\t' && !(c == '\r' && i == n - 1))
				return fail(ld, "file line %u: byte 0x%02x is not printable ASCII",
					    lineno, c);
		}

		/* A ';' starts a comment anywhere, as in rte_cfgfile. */
		s = memchr(line, ';', n);
		if (s != NULL)
			n = (size_t)(s - line);
		trim(&line, &n);
		if (n == 0)
			continue;

		if (line[0] == '[') {
			if (n < 2 || line[n - 1] != ']')
				return fail(ld, "file line %u: section header does not end in ']'",
					    lineno);
			s = line + 1;
			n -= 2;
			trim(&s, &n);
			if (n == 0)
				return fail(ld, "file line %u: empty section name", lineno);
			if (n >= CFG_NAME_LEN)
				return fail(ld,
					    "file line %u: section name longer than %d characters",
					    lineno, CFG_NAME_LEN - 1);
			if (!is_section_name(s, n))
				return fail(ld,
					    "file line %u: section name '%.*s' has a character "
					    "other than a-z 0-9 _ .",
					    lineno, (int)n, s);
			if (++sections > INI_MAX_SECTIONS)
				return fail(ld, "file line %u: more than %d sections", lineno,
					    INI_MAX_SECTIONS);
			keys = 0;
			continue;
		}

		eq = memchr(line, '=', n);
		if (eq == NULL)
			return fail(ld, "file line %u: neither '[section]' nor 'key = value'",
				    lineno);
		key = line;
		keylen = (size_t)(eq - line);
		trim(&key, &keylen);
		value = eq + 1;
		valuelen = (size_t)(line + n - value);
		trim(&value, &valuelen);
		if (keylen == 0)
			return fail(ld, "file line %u: no key before '='", lineno);
		if (keylen >= CFG_NAME_LEN)
			return fail(ld, "file line %u: key longer than %d characters", lineno,
				    CFG_NAME_LEN - 1);
		if (!is_key_name(key, keylen))
			return fail(ld,
				    "file line %u: key '%.*s' has a character other than a-z 0-9 _",
				    lineno, (int)keylen, key);
		if (valuelen >= CFG_VALUE_LEN)
			return fail(ld, "file line %u: value of '%.*s' longer than %d characters",
				    lineno, (int)keylen, key, CFG_VALUE_LEN - 1);
		if (sections == 0)
			return fail(ld, "file line %u: key '%.*s' before the first section", lineno,
				    (int)keylen, key);
		if (++keys > INI_MAX_KEYS)
			return fail(ld, "file line %u: more than %d keys in one section", lineno,
				    INI_MAX_KEYS);
	}
	return 0;
}

/*
 * Step 3: hand the screened bytes to rte_cfgfile. It only takes a path, and
 * the file on disk may have changed since it was read, so it gets a sealed
 * in-memory copy instead.
 */
static int
parse_snapshot(struct loader *ld, const char *buf, size_t len)
{
	char path[40];
	size_t done = 0;
	ssize_t n;
	int fd, rc;

	fd = memfd_create("bng-dp-config", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return fail_sys(ld, -errno, "memfd_create");
	while (done < len) {
		n = write(fd, buf + done, len - done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = fail_sys(ld, -errno, "write snapshot");
			close(fd);
			return rc;
		}
		done += (size_t)n;
	}
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) < 0) {
		rc = fail_sys(ld, -errno, "seal snapshot");
		close(fd);
		return rc;
	}

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ld->file = rte_cfgfile_load(path, CFG_FLAG_EMPTY_VALUES);
	close(fd);
	if (ld->file == NULL) {
		/* The screen admits nothing rte_cfgfile rejects: fopen() or malloc() failed. */
		return fail_sys(ld, -EIO, "rte_cfgfile_load of the snapshot (is /proc mounted?)");
	}
	return 0;
}

/*
 * Strict unsigned decimal of exactly n characters: digits only, no sign, no
 * blanks, no leading zero (so "010" is not silently ten). Returns 0,
 * -EINVAL for bad syntax or -ERANGE outside min..max (overflow included).
 */
static int
parse_dec(const char *s, size_t n, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v = 0, digit;
	bool overflow = false;
	size_t i;

	if (n == 0 || (n > 1 && s[0] == '0'))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		digit = (uint64_t)(s[i] - '0');
		if (v > (UINT64_MAX - digit) / 10)
			overflow = true;
		else
			v = v * 10 + digit;
	}
	if (overflow || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/* Lower-case only: the contract spells MACs in lower case. */
static int
hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Dotted quad, each part canonical decimal 0..255; host byte order out. */
static bool
parse_ipv4(const char *s, size_t n, uint32_t *addr)
{
	const char *part = s, *end = s + n, *dot;
	uint32_t a = 0;
	uint64_t octet;
	int i;

	for (i = 0; i < 4; i++) {
		dot = i < 3 ? memchr(part, '.', (size_t)(end - part)) : end;
		if (dot == NULL || parse_dec(part, (size_t)(dot - part), 0, 255, &octet) != 0)
			return false;
		a = a << 8 | (uint32_t)octet;
		part = dot + 1;
	}
	*addr = a;
	return true;
}

static uint32_t
prefix_mask(uint8_t len)
{
	return len == 0 ? 0 : UINT32_MAX << (32 - len);
}

/* A unicast address a host may use: not 0/8, 127/8, multicast or class E. */
static bool
ipv4_is_host(uint32_t a)
{
	uint32_t first = a >> 24;

	return first != 0 && first != 127 && first < 224;
}

static bool
prefixes_overlap(const struct dp_ipv4_prefix *a, const struct dp_ipv4_prefix *b)
{
	uint32_t mask = prefix_mask(RTE_MIN(a->len, b->len));

	return (a->addr & mask) == (b->addr & mask);
}

/* Is inner inside outer (equal included)? */
static bool
prefix_within(const struct dp_ipv4_prefix *inner, const struct dp_ipv4_prefix *outer)
{
	return inner->len >= outer->len && (inner->addr & prefix_mask(outer->len)) == outer->addr;
}

static bool
ranges_overlap(const struct dp_tag_range *a, const struct dp_tag_range *b)
{
	return a->lo <= b->hi && b->lo <= a->hi;
}

static void
format_ipv4(uint32_t a, char *buf, size_t size)
{
	snprintf(buf, size, "%u.%u.%u.%u", a >> 24, (a >> 16) & 0xff, (a >> 8) & 0xff, a & 0xff);
}

/* Next token of a space/tab separated list; false at the end. */
static bool
next_token(const char **p, const char **tok, size_t *len)
{
	const char *s = *p;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '\0') {
		*p = s;
		return false;
	}
	*tok = s;
	while (*s != '\0' && *s != ' ' && *s != '\t')
		s++;
	*len = (size_t)(s - *tok);
	*p = s;
	return true;
}

/* Splits "a:b" at its only ':'; false unless there is exactly one. */
static bool
split_pair(const char *tok, size_t len, size_t *alen, const char **b, size_t *blen)
{
	const char *colon = memchr(tok, ':', len);

	if (colon == NULL || memchr(colon + 1, ':', len - (size_t)(colon - tok) - 1) != NULL)
		return false;
	*alen = (size_t)(colon - tok);
	*b = colon + 1;
	*blen = len - *alen - 1;
	return true;
}

/*
 * Value getters. Each names section, key and offending value in its error.
 * The section walk has made sure every key exists exactly once.
 */
static int
get_value(struct loader *ld, const char *sec, const char *key, const char **value)
{
	*value = rte_cfgfile_get_entry(ld->file, sec, key);
	if (*value == NULL) {
		fail(ld, "%s: missing key '%s'", sec, key);
		return -EINVAL;
	}
	return 0;
}

static int
get_uint(struct loader *ld, const char *sec, const char *key, uint64_t min, uint64_t max,
	 uint64_t *out)
{
	const char *v;
	int rc;

	rc = get_value(ld, sec, key, &v);
	if (rc != 0)
		return rc;
	rc = parse_dec(v, strlen(v), min, max, out);
	if (rc == -ERANGE)
		fail(ld, "%s: %s '%s' is out of range %" PRIu64 "..%" PRIu64, sec, key, v, min,
		     max);
	else if (rc != 0)
		fail(ld, "%s: %s '%s' is not a decimal number", sec, key, v);
	return rc == 0 ? 0 : -EINVAL;
}

static int
get_u16(struct loader *ld, const char *sec, const char *key, uint16_t min, uint16_t max,
	uint16_t *out)
{
	uint64_t v;
	int rc;

	rc = get_uint(ld, sec, key, min, max, &v);
	if (rc == 0)
		*out = (uint16_t)v;
	return rc;
}

static int
get_rate(struct loader *ld, const char *sec, const char *key, uint64_t *out)
{
	return get_uint(ld, sec, key, 1, DP_MAX_RATE, out);
}

static bool
is_alnum(char c)
{
	return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

/* Names end up in logs and CLI output: keep them short and plain. */
static int
get_name(struct loader *ld, const char *sec, const char *key, char out[DP_NAME_SIZE])
{
	const char *v;
	size_t i, n;
	int rc;

	rc = get_value(ld, sec, key, &v);
	if (rc != 0)
		return rc;
	n = strlen(v);
	if (n == 0 || n >= DP_NAME_SIZE || !is_alnum(v[0]))
		goto bad;
	for (i = 1; i < n; i++)
		if (!is_alnum(v[i]) && v[i] != '_' && v[i] != '.' && v[i] != '-')
			goto bad;
	memcpy(out, v, n + 1);
	return 0;
bad:
	return fail(ld,
		    "%s: %s '%s' is not a name (1..%d of A-Z a-z 0-9 _ . -, starting with a "
		    "letter or digit)",
		    sec, key, v, DP_NAME_SIZE - 1);
}

/* Lower-case aa:bb:cc:dd:ee:ff of a unicast interface. */
static int
get_mac(struct loader *ld, const char *sec, const char *key, uint8_t mac[DP_ETHER_ADDR_LEN])
{
	uint8_t m[DP_ETHER_ADDR_LEN];
	int hi, lo, i, rc;
	const char *v;

	rc = get_value(ld, sec, key, &v);
	if (rc != 0)
		return rc;
	if (strlen(v) != 3 * DP_ETHER_ADDR_LEN - 1)
		goto bad;
	for (i = 0; i < DP_ETHER_ADDR_LEN; i++) {
		const char *p = v + 3 * i;

		if (i > 0 && p[-1] != ':')
			goto bad;
		hi = hex_digit(p[0]);
		lo = hex_digit(p[1]);
		if (hi < 0 || lo < 0)
			goto bad;
		m[i] = (uint8_t)(hi << 4 | lo);
	}
	if (m[0] & 0x01)
		return fail(ld, "%s: %s '%s' is a multicast address", sec, key, v);
	if ((m[0] | m[1] | m[2] | m[3] | m[4] | m[5]) == 0)
		return fail(ld, "%s: %s '%s' is the zero address", sec, key, v);
	memcpy(mac, m, sizeof(m));
	return 0;
bad:
	return fail(ld, "%s: %s '%s' is not a MAC address (lower-case aa:bb:cc:dd:ee:ff)", sec, key,
		    v);
}

static int
get_host_address(struct loader *ld, const char *sec, const char *key, uint32_t *addr)
{
	const char *v;
	int rc;

	rc = get_value(ld, sec, key, &v);
	if (rc != 0)
		return rc;
	if (!parse_ipv4(v, strlen(v), addr))
		return fail(ld, "%s: %s '%s' is not an IPv4 address", sec, key, v);
	if (!ipv4_is_host(*addr))
		return fail(ld, "%s: %s '%s' is not a unicast host address", sec, key, v);
	return 0;
}

/*
 * "a.b.c.d/len" with len min_len..32 and no host bits. what names it in
 * errors. min_len is 1, or 0 where 0.0.0.0/0 means any address (ACL rules).
 */
static int
parse_prefix_min(struct loader *ld, const char *sec, const char *what, const char *s, size_t n,
		 unsigned int min_len, struct dp_ipv4_prefix *pfx)
{
	const char *slash = memchr(s, '/', n);
	uint64_t len;
	uint32_t addr;

	if (slash == NULL || !parse_ipv4(s, (size_t)(slash - s), &addr) ||
	    parse_dec(slash + 1, n - (size_t)(slash - s) - 1, min_len, 32, &len) != 0)
		return fail(ld, "%s: %s '%.*s' is not an IPv4 prefix a.b.c.d/%u..32", sec, what,
			    (int)n, s, min_len);
	if (addr & ~prefix_mask((uint8_t)len))
		return fail(ld, "%s: %s '%.*s' has host bits set", sec, what, (int)n, s);
	pfx->addr = addr;
	pfx->len = (uint8_t)len;
	return 0;
}

static int
parse_prefix(struct loader *ld, const char *sec, const char *what, const char *s, size_t n,
	     struct dp_ipv4_prefix *pfx)
{
	return parse_prefix_min(ld, sec, what, s, n, 1, pfx);
}

static const char *section_name(char buf[CFG_NAME_LEN], enum section_kind kind, unsigned int idx);

/* ---- IPv6 ---------------------------------------------------------------------------------- */

bool
dp_ipv6_in_prefix(const uint8_t a[DP_IPV6_ADDR_LEN], const struct dp_ipv6_prefix *p)
{
	unsigned int full = p->len / 8, rem = p->len % 8;

	if (memcmp(a, p->addr, full) != 0)
		return false;
	return rem == 0 || ((a[full] ^ p->addr[full]) & (uint8_t)(0xff << (8 - rem))) == 0;
}

static bool
ipv6_prefixes_overlap(const struct dp_ipv6_prefix *a, const struct dp_ipv6_prefix *b)
{
	return a->len <= b->len ? dp_ipv6_in_prefix(b->addr, a) : dp_ipv6_in_prefix(a->addr, b);
}

/* Not in ::/8 (unspecified, loopback, mapped), fe80::/10, fec0::/10 or ff00::/8. */
static bool
ipv6_is_global(const uint8_t a[DP_IPV6_ADDR_LEN])
{
	return a[0] != 0 && a[0] != 0xff && !(a[0] == 0xfe && (a[1] & 0x80) == 0x80);
}

static bool
parse_ipv6(const char *s, size_t n, uint8_t out[DP_IPV6_ADDR_LEN])
{
	char buf[INET6_ADDRSTRLEN + 1];

	if (n == 0 || n >= sizeof(buf) || memchr(s, '.', n) != NULL)
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return inet_pton(AF_INET6, buf, out) == 1;
}

static int
parse_prefix6(struct loader *ld, const char *sec, const char *what, const char *s, size_t n,
	      unsigned int min_len, unsigned int max_len, struct dp_ipv6_prefix *pfx)
{
	const char *slash = memchr(s, '/', n);
	struct dp_ipv6_prefix full;
	uint64_t len;

	if (slash == NULL || !parse_ipv6(s, (size_t)(slash - s), pfx->addr) ||
	    parse_dec(slash + 1, n - (size_t)(slash - s) - 1, min_len, max_len, &len) != 0)
		return fail(ld, "%s: %s '%.*s' is not an IPv6 prefix x::/%u..%u", sec, what, (int)n,
			    s, min_len, max_len);
	pfx->len = (uint8_t)len;
	memset(&full, 0, sizeof(full));
	for (unsigned int i = 0; i < len; i++)
		full.addr[i / 8] |= (uint8_t)(pfx->addr[i / 8] & (0x80 >> (i % 8)));
	if (memcmp(full.addr, pfx->addr, DP_IPV6_ADDR_LEN) != 0)
		return fail(ld, "%s: %s '%.*s' has host bits set", sec, what, (int)n, s);
	return 0;
}

/* Is the value "none" (or the key absent)? */
static bool
value_none(const char *v)
{
	return v == NULL || strcmp(v, "none") == 0;
}

/* An address of p other than its first (the subnet-router anycast address). */
static bool
ipv6_host_of(const uint8_t a[DP_IPV6_ADDR_LEN], const struct dp_ipv6_prefix *p)
{
	return dp_ipv6_in_prefix(a, p) && memcmp(a, p->addr, DP_IPV6_ADDR_LEN) != 0;
}

static int
get_host_address6(struct loader *ld, const char *sec, const char *key, const char *v,
		  const struct dp_core *core, uint8_t out[DP_IPV6_ADDR_LEN])
{
	if (!parse_ipv6(v, strlen(v), out))
		return fail(ld, "%s: %s '%s' is not an IPv6 address", sec, key, v);
	if (!core->has_subnet6)
		return fail(ld, "%s: %s needs [core] subnet6", sec, key);
	if (!ipv6_host_of(out, &core->subnet6))
		return fail(ld, "%s: %s '%s' is not a host of [core] subnet6", sec, key, v);
	return 0;
}

static int
parse_core6(struct loader *ld)
{
	static const char sec[] = "core";
	struct dp_core *core = &ld->cfg->core;
	const char *v;
	int rc;

	v = rte_cfgfile_get_entry(ld->file, sec, "subnet6");
	if (!value_none(v)) {
		rc = parse_prefix6(ld, sec, "subnet6", v, strlen(v), 48, 127, &core->subnet6);
		if (rc != 0)
			return rc;
		if (!ipv6_is_global(core->subnet6.addr))
			return fail(ld, "%s: subnet6 '%s' is not a global unicast prefix", sec, v);
		core->has_subnet6 = true;
	}
	v = rte_cfgfile_get_entry(ld->file, sec, "router_address6");
	if (!value_none(v)) {
		rc = get_host_address6(ld, sec, "router_address6", v, core, core->router_address6);
		if (rc != 0)
			return rc;
		core->has_router6 = true;
	}
	return 0;
}

/* "prefix/len:assigned" pairs of [line_group.N] prefixes6. */
static int
parse_group_prefixes6(struct loader *ld, const char *sec, unsigned int idx)
{
	struct dp_config *cfg = ld->cfg;
	struct dp_line_group *lg = &cfg->line_groups[idx];
	char other_sec[CFG_NAME_LEN];
	const char *v, *p, *tok, *colon;
	size_t len;
	uint64_t assigned;
	int rc;

	v = rte_cfgfile_get_entry(ld->file, sec, "prefixes6");
	if (value_none(v))
		return 0;
	if (!lg->has_core6)
		return fail(ld, "%s: prefixes6 needs a core_address6", sec);
	for (p = v; next_token(&p, &tok, &len);) {
		struct dp_ipv6_pool *pool = &lg->prefixes6[lg->n_prefixes6];
		const char *slash = memchr(tok, '/', len);

		if (lg->n_prefixes6 == DP_MAX_GROUP_PREFIXES6)
			return fail(ld, "%s: prefixes6: more than %d pairs", sec,
				    DP_MAX_GROUP_PREFIXES6);
		colon = slash == NULL ? NULL : memchr(slash, ':', len - (size_t)(slash - tok));
		if (colon == NULL)
			return fail(ld, "%s: prefixes6: '%.*s' is not prefix/length:assigned", sec,
				    (int)len, tok);
		rc = parse_prefix6(ld, sec, "prefixes6:", tok, (size_t)(colon - tok), 32, 64,
				   &pool->prefix);
		if (rc != 0)
			return rc;
		if (parse_dec(colon + 1, len - (size_t)(colon - tok) - 1, pool->prefix.len, 64,
			      &assigned) != 0)
			return fail(ld, "%s: prefixes6: '%.*s': assigned length is not %u..64", sec,
				    (int)len, tok, pool->prefix.len);
		pool->assigned = (uint8_t)assigned;
		if (!ipv6_is_global(pool->prefix.addr))
			return fail(ld, "%s: prefixes6: '%.*s' is not a global unicast prefix", sec,
				    (int)len, tok);
		if (cfg->core.has_subnet6 &&
		    ipv6_prefixes_overlap(&pool->prefix, &cfg->core.subnet6))
			return fail(ld, "%s: prefixes6: '%.*s' overlaps [core] subnet6", sec,
				    (int)len, tok);
		for (unsigned int g = 0; g <= idx; g++) {
			const struct dp_line_group *og = &cfg->line_groups[g];
			unsigned int n = g == idx ? lg->n_prefixes6 : og->n_prefixes6;

			for (unsigned int i = 0; i < n; i++)
				if (ipv6_prefixes_overlap(&pool->prefix, &og->prefixes6[i].prefix))
					return fail(ld,
						    "%s: prefixes6: '%.*s' overlaps a pool of %s",
						    sec, (int)len, tok,
						    section_name(other_sec, SEC_LINE_GROUP, g));
		}
		lg->n_prefixes6++;
	}
	if (lg->n_prefixes6 == 0)
		return fail(ld, "%s: prefixes6 is empty (write none)", sec);
	return 0;
}

static int
parse_line_group6(struct loader *ld, const char *sec, unsigned int idx)
{
	struct dp_config *cfg = ld->cfg;
	struct dp_line_group *lg = &cfg->line_groups[idx];
	char other[CFG_NAME_LEN];
	const char *v;
	int rc;

	v = rte_cfgfile_get_entry(ld->file, sec, "core_address6");
	if (!value_none(v)) {
		rc = get_host_address6(ld, sec, "core_address6", v, &cfg->core, lg->core_address6);
		if (rc != 0)
			return rc;
		if (cfg->core.has_router6 &&
		    memcmp(lg->core_address6, cfg->core.router_address6, DP_IPV6_ADDR_LEN) == 0)
			return fail(ld, "%s: core_address6 equals [core] router_address6", sec);
		for (unsigned int g = 0; g < idx; g++)
			if (cfg->line_groups[g].has_core6 &&
			    memcmp(cfg->line_groups[g].core_address6, lg->core_address6,
				   DP_IPV6_ADDR_LEN) == 0)
				return fail(ld, "%s: core_address6 is already used by %s", sec,
					    section_name(other, SEC_LINE_GROUP, g));
		lg->has_core6 = true;
	}
	return parse_group_prefixes6(ld, sec, idx);
}

/* At most DP_MAX_V6_LENGTHS distinct assigned lengths: one exact-match table each. */
static int
check_v6_lengths(struct loader *ld)
{
	const struct dp_config *cfg = ld->cfg;
	uint64_t seen = 0;

	for (unsigned int g = 0; g < cfg->n_line_groups; g++)
		for (unsigned int i = 0; i < cfg->line_groups[g].n_prefixes6; i++)
			seen |= UINT64_C(1) << (cfg->line_groups[g].prefixes6[i].assigned - 1);
	if (__builtin_popcountll(seen) > DP_MAX_V6_LENGTHS)
		return fail(ld, "line groups: more than %d distinct prefixes6 assigned lengths",
			    DP_MAX_V6_LENGTHS);
	return 0;
}

/* "lo-hi" of VLAN ids; also "any" (1..4094) when any != NULL. */
static int
get_tag_range(struct loader *ld, const char *sec, const char *key, struct dp_tag_range *r,
	      bool *any)
{
	uint64_t lo, hi;
	const char *v, *dash;
	size_t n;
	int rc;

	rc = get_value(ld, sec, key, &v);
	if (rc != 0)
		return rc;
	if (any != NULL) {
		*any = strcmp(v, "any") == 0;
		if (*any) {
			r->lo = DP_VLAN_ID_MIN;
			r->hi = DP_VLAN_ID_MAX;
			return 0;
		}
	}
	n = strlen(v);
	dash = memchr(v, '-', n);
	if (dash == NULL || parse_dec(v, (size_t)(dash - v), 0, UINT64_MAX, &lo) == -EINVAL ||
	    parse_dec(dash + 1, n - (size_t)(dash - v) - 1, 0, UINT64_MAX, &hi) == -EINVAL)
		return fail(ld, "%s: %s '%s' is not a VLAN id range lo-hi%s", sec, key, v,
			    any != NULL ? " or 'any'" : "");
	rc = parse_dec(v, (size_t)(dash - v), DP_VLAN_ID_MIN, DP_VLAN_ID_MAX, &lo);
	if (rc == 0)
		rc = parse_dec(dash + 1, n - (size_t)(dash - v) - 1, DP_VLAN_ID_MIN, DP_VLAN_ID_MAX,
			       &hi);
	if (rc != 0)
		return fail(ld, "%s: %s '%s': VLAN ids must be %d..%d", sec, key, v, DP_VLAN_ID_MIN,
			    DP_VLAN_ID_MAX);
	if (lo > hi)
		return fail(ld, "%s: %s '%s': range starts above its end", sec, key, v);
	r->lo = (uint16_t)lo;
	r->hi = (uint16_t)hi;
	return 0;
}

/* Builds "kind.N", the name of a numbered section. */
static const char *
section_name(char buf[CFG_NAME_LEN], enum section_kind kind, unsigned int idx)
{
	snprintf(buf, CFG_NAME_LEN, "%s.%u", schemas[kind].name, idx);
	return buf;
}

static bool
seen_test(const struct loader *ld, enum section_kind kind, unsigned int idx)
{
	return (ld->seen[kind][idx / 64] >> (idx % 64)) & 1;
}

static void
seen_set(struct loader *ld, enum section_kind kind, unsigned int idx)
{
	ld->seen[kind][idx / 64] |= UINT64_C(1) << (idx % 64);
}

/*
 * Which schema a section name belongs to. Numbered names must be canonical
 * ("line.7", never "line.07"). Returns 0, -ENOENT for an unknown name, or
 * -ERANGE for a number at or above the kind's limit.
 */
static int
classify_section(const char *name, enum section_kind *kind, unsigned int *idx)
{
	const struct section_schema *sc;
	const char *rest;
	uint64_t n = 0;
	int k, rc = 0;

	for (k = 0; k < SEC_KINDS; k++) {
		sc = &schemas[k];
		if (strncmp(name, sc->name, strlen(sc->name)) != 0)
			continue;
		rest = name + strlen(sc->name);
		if (!sc->numbered && *rest != '\0')
			continue;
		if (sc->numbered) {
			if (*rest != '.')
				continue;
			rc = parse_dec(rest + 1, strlen(rest + 1), 0, sc->limit - 1, &n);
			if (rc == -EINVAL)
				continue;
		}
		*kind = (enum section_kind)k;
		*idx = (unsigned int)n;
		return rc;
	}
	return -ENOENT;
}

/* Keys of one section: all known, none twice, none missing. */
static int
check_section_keys(struct loader *ld, int index, const struct section_schema *sc)
{
	char name[CFG_NAME_LEN];
	uint32_t have = 0;
	int n, i, k;

	n = rte_cfgfile_section_num_entries_by_index(ld->file, name, index);
	if (n < 0 || n > INI_MAX_KEYS)
		return fail(ld, "%s: more than %d keys", name, INI_MAX_KEYS);
	n = rte_cfgfile_section_entries_by_index(ld->file, index, name, ld->entries, INI_MAX_KEYS);
	for (i = 0; i < n; i++) {
		const char *key = ld->entries[i].name;

		for (k = 0; sc->keys[k] != NULL; k++)
			if (strcmp(key, sc->keys[k]) == 0)
				break;
		if (sc->keys[k] == NULL)
			return fail(ld, "%s: unknown key '%s'", name, key);
		if (have & (UINT32_C(1) << k))
			return fail(ld, "%s: key '%s' appears twice", name, key);
		have |= UINT32_C(1) << k;
	}
	for (k = 0; sc->keys[k] != NULL; k++)
		if (!(have & (UINT32_C(1) << k)) && !(sc->optional & (UINT32_C(1) << k)))
			return fail(ld, "%s: missing key '%s'", name, sc->keys[k]);
	return 0;
}

/* Step 4a: every section known and unique, every key known, unique, present. */
static int
walk_sections(struct loader *ld)
{
	char name[CFG_NAME_LEN];
	enum section_kind kind;
	unsigned int idx;
	int n, i, rc;

	n = rte_cfgfile_num_sections(ld->file, NULL, 0);
	for (i = 0; i < n; i++) {
		if (rte_cfgfile_section_num_entries_by_index(ld->file, name, i) < 0)
			return fail(ld, "section %d vanished", i);
		rc = classify_section(name, &kind, &idx);
		if (rc == -ENOENT)
			return fail(ld, "section [%s] is not part of the DP instance format", name);
		if (rc != 0)
			return fail(ld, "section [%s]: at most %u [%s.N] sections are supported",
				    name, schemas[kind].limit, schemas[kind].name);
		if (seen_test(ld, kind, idx))
			return fail(ld, "section [%s] appears twice", name);
		seen_set(ld, kind, idx);
		rc = check_section_keys(ld, i, &schemas[kind]);
		if (rc != 0)
			return rc;
	}
	if (!seen_test(ld, SEC_INSTANCE, 0))
		return fail(ld, "missing section [instance]");
	if (!seen_test(ld, SEC_CORE, 0))
		return fail(ld, "missing section [core]");
	return 0;
}

/* Step 4b: [instance] counts match the numbered sections actually present. */
static int
check_counts(struct loader *ld)
{
	const struct dp_config *cfg = ld->cfg;
	const uint16_t count[SEC_KINDS] = {
		[SEC_ACCESS_PORT] = cfg->n_access_ports,
		[SEC_LINE_GROUP] = cfg->n_line_groups,
		[SEC_LINE] = cfg->n_lines,
		[SEC_QOS_PROFILE] = cfg->n_qos_profiles,
		[SEC_ACL] = cfg->n_acl_rules,
		[SEC_ROUTE] = cfg->n_routes,
	};
	const struct section_schema *sc;
	unsigned int idx;
	int k;

	for (k = 0; k < SEC_KINDS; k++) {
		sc = &schemas[k];
		if (!sc->numbered)
			continue;
		for (idx = 0; idx < sc->limit; idx++) {
			bool want = idx < count[k], have = seen_test(ld, (enum section_kind)k, idx);

			if (want && !have)
				return fail(ld, "%s.%u: missing section ([instance] %s = %u)",
					    sc->name, idx, sc->count_key, count[k]);
			if (have && !want)
				return fail(ld, "%s.%u: section present but [instance] %s = %u",
					    sc->name, idx, sc->count_key, count[k]);
		}
	}
	return 0;
}

static int
parse_worker_cores(struct loader *ld, struct dp_instance *inst)
{
	bool used[RTE_MAX_LCORE] = {false};
	const char *v, *p, *tok;
	size_t len;
	uint64_t id;
	int rc;

	rc = get_value(ld, "instance", "worker_cores", &v);
	if (rc != 0)
		return rc;
	for (p = v; next_token(&p, &tok, &len);) {
		rc = parse_dec(tok, len, 0, RTE_MAX_LCORE - 1, &id);
		if (rc == -ERANGE)
			return fail(ld, "instance: worker_cores: lcore '%.*s' is not below %d",
				    (int)len, tok, RTE_MAX_LCORE);
		if (rc != 0)
			return fail(ld, "instance: worker_cores: '%.*s' is not an lcore id",
				    (int)len, tok);
		if (used[id])
			return fail(ld, "instance: worker_cores: lcore %" PRIu64 " listed twice",
				    id);
		if (inst->n_worker_cores == DP_MAX_WORKER_CORES)
			return fail(ld, "instance: worker_cores: more than %d cores",
				    DP_MAX_WORKER_CORES);
		used[id] = true;
		inst->worker_cores[inst->n_worker_cores++] = (uint16_t)id;
	}
	if (inst->n_worker_cores == 0)
		return fail(ld, "instance: worker_cores is empty");
	return 0;
}

/*
 * The address must lie in the prefix and, when the prefix has room for
 * them, be neither its network nor its broadcast address.
 */
static int
check_in_subnet(struct loader *ld, const char *sec, const char *key, uint32_t addr,
		const struct dp_ipv4_prefix *net, const char *netname)
{
	uint32_t mask = prefix_mask(net->len);
	char a[16], n[16];

	format_ipv4(addr, a, sizeof(a));
	format_ipv4(net->addr, n, sizeof(n));
	if ((addr & mask) != net->addr)
		return fail(ld, "%s: %s %s is outside %s %s/%u", sec, key, a, netname, n, net->len);
	if (net->len <= 30 && ((addr & ~mask) == 0 || (addr & ~mask) == ~mask))
		return fail(ld, "%s: %s %s is the network or broadcast address of %s/%u", sec, key,
			    a, n, net->len);
	return 0;
}

static int
parse_instance(struct loader *ld)
{
	static const char sec[] = "instance";
	struct dp_instance *inst = &ld->cfg->instance;
	struct dp_config *cfg = ld->cfg;
	struct dp_ipv4_prefix control;
	uint64_t id, prefix_len;
	int rc;

	rc = get_uint(ld, sec, "id", DP_INSTANCE_ID_MIN, DP_INSTANCE_ID_MAX, &id);
	if (rc == 0)
		rc = get_name(ld, sec, "name", inst->name);
	if (rc == 0)
		rc = get_name(ld, sec, "pod", inst->pod);
	if (rc == 0)
		rc = get_mac(ld, sec, "data_mac", inst->data_mac);
	if (rc == 0)
		rc = parse_worker_cores(ld, inst);
	if (rc == 0)
		rc = get_rate(ld, sec, "port_rate", &inst->port_rate);
	if (rc == 0)
		rc = get_host_address(ld, sec, "control_address", &inst->control_address);
	if (rc == 0)
		rc = get_uint(ld, sec, "control_prefix_len", 1, 32, &prefix_len);
	if (rc != 0)
		return rc;
	inst->id = (uint32_t)id;
	inst->control_prefix_len = (uint8_t)prefix_len;
	control.len = inst->control_prefix_len;
	control.addr = inst->control_address & prefix_mask(control.len);
	rc = check_in_subnet(ld, sec, "control_address", inst->control_address, &control,
			     "its own subnet");
	if (rc == 0)
		rc = get_host_address(ld, sec, "cp_address", &inst->cp_address);
	if (rc != 0)
		return rc;
	if (inst->cp_address == inst->control_address)
		return fail(ld, "instance: cp_address equals control_address");

	rc = get_u16(ld, sec, "pfcp_port", 1, UINT16_MAX, &inst->pfcp_port);
	if (rc == 0)
		rc = get_u16(ld, sec, "vxlan_port", 1, UINT16_MAX, &inst->vxlan_port);
	if (rc != 0)
		return rc;
	if (inst->pfcp_port == inst->vxlan_port)
		return fail(ld, "instance: pfcp_port and vxlan_port are both %u", inst->pfcp_port);

	rc = get_u16(ld, sec, "access_ports", 0, DP_MAX_ACCESS_PORTS, &cfg->n_access_ports);
	if (rc == 0)
		rc = get_u16(ld, sec, "line_groups", 0, DP_MAX_LINE_GROUPS, &cfg->n_line_groups);
	if (rc == 0)
		rc = get_u16(ld, sec, "lines", 0, DP_MAX_LINES, &cfg->n_lines);
	if (rc == 0)
		rc = get_u16(ld, sec, "qos_profiles", 0, DP_MAX_QOS_PROFILES, &cfg->n_qos_profiles);
	if (rc == 0)
		rc = get_u16(ld, sec, "acl_rules", 0, DP_MAX_ACL_RULES, &cfg->n_acl_rules);
	if (rc == 0)
		rc = get_u16(ld, sec, "routes", 0, DP_MAX_ROUTES, &cfg->n_routes);
	return rc;
}

static int
parse_core(struct loader *ld)
{
	static const char sec[] = "core";
	struct dp_core *core = &ld->cfg->core;
	const char *v;
	int rc;

	rc = get_value(ld, sec, "subnet", &v);
	if (rc == 0)
		rc = parse_prefix(ld, sec, "subnet", v, strlen(v), &core->subnet);
	if (rc == 0)
		rc = get_host_address(ld, sec, "router_address", &core->router_address);
	if (rc == 0)
		rc = check_in_subnet(ld, sec, "router_address", core->router_address, &core->subnet,
				     "[core] subnet");
	if (rc == 0)
		rc = get_u16(ld, sec, "vlan", 0, DP_VLAN_ID_MAX, &core->vlan);
	if (rc == 0)
		rc = parse_core6(ld);
	return rc;
}

/*
 * Index of the object called name among n objects of stride bytes, each
 * starting with its name (asserted below), or -1.
 */
static int
find_name(const void *objs, size_t stride, unsigned int n, const char *name)
{
	const char *p = objs;
	unsigned int i;

	for (i = 0; i < n; i++, p += stride)
		if (strcmp(p, name) == 0)
			return (int)i;
	return -1;
}

static_assert(offsetof(struct dp_access_port, name) == 0, "find_name");
static_assert(offsetof(struct dp_line_group, name) == 0, "find_name");
static_assert(offsetof(struct dp_qos_profile, name) == 0, "find_name");

/* Name of object idx, unique among the first idx objects of its kind. */
static int
get_unique_name(struct loader *ld, const char *sec, enum section_kind kind, const void *objs,
		size_t stride, unsigned int idx, char out[DP_NAME_SIZE])
{
	char other[CFG_NAME_LEN];
	int rc, dup;

	rc = get_name(ld, sec, "name", out);
	if (rc != 0)
		return rc;
	dup = find_name(objs, stride, idx, out);
	if (dup >= 0)
		return fail(ld, "%s: name '%s' is already used by %s", sec, out,
			    section_name(other, kind, (unsigned int)dup));
	return 0;
}

static int
parse_access_port(struct loader *ld, unsigned int idx)
{
	struct dp_access_port *port = &ld->cfg->access_ports[idx];
	char sec[CFG_NAME_LEN];
	const char *v;
	int rc;

	section_name(sec, SEC_ACCESS_PORT, idx);
	rc = get_unique_name(ld, sec, SEC_ACCESS_PORT, ld->cfg->access_ports, sizeof(*port), idx,
			     port->name);
	if (rc == 0)
		rc = get_value(ld, sec, "tpid", &v);
	if (rc != 0)
		return rc;
	/* Spelled as in the contract; 33024 or 0X8100 is someone else's format. */
	if (strcmp(v, "0x8100") == 0)
		port->tpid = DP_TPID_8021Q;
	else if (strcmp(v, "0x88a8") == 0)
		port->tpid = DP_TPID_8021AD;
	else
		return fail(ld, "%s: tpid '%s' is neither 0x8100 nor 0x88a8", sec, v);
	return get_rate(ld, sec, "rate", &port->rate);
}

/* "dscp:tc ...", strictly ascending dscp; unlisted DSCPs get default_tc. */
static int
parse_dscp_map(struct loader *ld, const char *sec, struct dp_qos_profile *qp)
{
	const char *v, *p, *tok, *b;
	size_t len, alen, blen;
	uint64_t dscp, tc;
	int last = -1, rc;

	rc = get_value(ld, sec, "dscp_map", &v);
	if (rc != 0)
		return rc;
	memset(qp->dscp_tc, qp->default_tc, sizeof(qp->dscp_tc));
	for (p = v; next_token(&p, &tok, &len);) {
		if (!split_pair(tok, len, &alen, &b, &blen))
			return fail(ld, "%s: dscp_map: '%.*s' is not a dscp:tc pair", sec, (int)len,
				    tok);
		if (parse_dec(tok, alen, 0, DP_NUM_DSCPS - 1, &dscp) != 0)
			return fail(ld, "%s: dscp_map: '%.*s': dscp must be 0..%d", sec, (int)len,
				    tok, DP_NUM_DSCPS - 1);
		if (parse_dec(b, blen, 0, DP_NUM_TCS - 1, &tc) != 0)
			return fail(ld, "%s: dscp_map: '%.*s': tc must be 0..%d", sec, (int)len,
				    tok, DP_NUM_TCS - 1);
		if ((int)dscp <= last)
			return fail(ld,
				    "%s: dscp_map: dscp %" PRIu64 " after %d (sorted by dscp, "
				    "each once)",
				    sec, dscp, last);
		last = (int)dscp;
		qp->dscp_tc[dscp] = (uint8_t)tc;
		qp->dscp_listed |= UINT64_C(1) << dscp;
	}
	return 0;
}

/* "tc:rate ...", each class once, rate 1..down_rate; others get down_rate. */
static int
parse_tc_rates(struct loader *ld, const char *sec, struct dp_qos_profile *qp)
{
	const char *v, *p, *tok, *b;
	size_t len, alen, blen;
	uint64_t tc, rate;
	int i, rc;

	rc = get_value(ld, sec, "tc_rates", &v);
	if (rc != 0)
		return rc;
	for (i = 0; i < DP_NUM_TCS; i++)
		qp->tc_rate[i] = qp->down_rate;
	for (p = v; next_token(&p, &tok, &len);) {
		if (!split_pair(tok, len, &alen, &b, &blen))
			return fail(ld, "%s: tc_rates: '%.*s' is not a tc:rate pair", sec, (int)len,
				    tok);
		if (parse_dec(tok, alen, 0, DP_NUM_TCS - 1, &tc) != 0)
			return fail(ld, "%s: tc_rates: '%.*s': tc must be 0..%d", sec, (int)len,
				    tok, DP_NUM_TCS - 1);
		if (qp->tc_rate_listed & (1u << tc))
			return fail(ld, "%s: tc_rates: tc %" PRIu64 " listed twice", sec, tc);
		/* rte_sched refuses a class rate above its pipe rate. */
		if (parse_dec(b, blen, 1, qp->down_rate, &rate) != 0)
			return fail(ld,
				    "%s: tc_rates: '%.*s': rate must be 1..down_rate (%" PRIu64 ")",
				    sec, (int)len, tok, qp->down_rate);
		qp->tc_rate[tc] = rate;
		qp->tc_rate_listed |= (uint16_t)(1u << tc);
	}
	return 0;
}

static int
parse_be_weights(struct loader *ld, const char *sec, struct dp_qos_profile *qp)
{
	const char *v, *p, *tok;
	unsigned int n = 0;
	uint64_t w;
	size_t len;
	int rc;

	rc = get_value(ld, sec, "be_weights", &v);
	if (rc != 0)
		return rc;
	for (p = v; next_token(&p, &tok, &len); n++) {
		if (n == DP_NUM_BE_QUEUES)
			return fail(ld, "%s: be_weights '%s': exactly %d weights expected", sec, v,
				    DP_NUM_BE_QUEUES);
		if (parse_dec(tok, len, 1, UINT8_MAX, &w) != 0)
			return fail(ld, "%s: be_weights: '%.*s' is not a weight 1..255", sec,
				    (int)len, tok);
		qp->be_weights[n] = (uint8_t)w;
	}
	if (n != DP_NUM_BE_QUEUES)
		return fail(ld, "%s: be_weights '%s': exactly %d weights expected", sec, v,
			    DP_NUM_BE_QUEUES);
	return 0;
}

/* "keep" (DP_DSCP_KEEP) or a DSCP 0..63, spelled as parse_dec() wants it. */
static int
get_up_dscp(struct loader *ld, const char *sec, uint8_t *out)
{
	const char *v;
	uint64_t dscp;
	int rc;

	rc = get_value(ld, sec, "up_dscp", &v);
	if (rc != 0)
		return rc;
	if (strcmp(v, "keep") == 0) {
		*out = DP_DSCP_KEEP;
		return 0;
	}
	if (parse_dec(v, strlen(v), 0, DP_NUM_DSCPS - 1, &dscp) != 0)
		return fail(ld, "%s: up_dscp '%s' is neither 'keep' nor a DSCP 0..%d", sec, v,
			    DP_NUM_DSCPS - 1);
	*out = (uint8_t)dscp;
	return 0;
}

static int
parse_qos_profile(struct loader *ld, unsigned int idx)
{
	struct dp_qos_profile *qp = &ld->cfg->qos_profiles[idx];
	uint64_t port_rate = ld->cfg->instance.port_rate;
	char sec[CFG_NAME_LEN];
	uint64_t default_tc;
	int rc;

	section_name(sec, SEC_QOS_PROFILE, idx);
	rc = get_unique_name(ld, sec, SEC_QOS_PROFILE, ld->cfg->qos_profiles, sizeof(*qp), idx,
			     qp->name);
	if (rc == 0)
		rc = get_rate(ld, sec, "down_rate", &qp->down_rate);
	if (rc != 0)
		return rc;
	/* rte_sched refuses a pipe faster than its port. */
	if (qp->down_rate > port_rate)
		return fail(ld, "%s: down_rate %" PRIu64 " exceeds [instance] port_rate %" PRIu64,
			    sec, qp->down_rate, port_rate);

	rc = get_rate(ld, sec, "up_pir", &qp->up_pir);
	if (rc == 0)
		rc = get_rate(ld, sec, "up_cir", &qp->up_cir);
	if (rc != 0)
		return rc;
	if (qp->up_cir > qp->up_pir)
		return fail(ld, "%s: up_cir %" PRIu64 " exceeds up_pir %" PRIu64 " (trTCM)", sec,
			    qp->up_cir, qp->up_pir);
	rc = get_up_dscp(ld, sec, &qp->up_dscp);
	if (rc != 0)
		return rc;

	rc = get_uint(ld, sec, "default_tc", 0, DP_NUM_TCS - 1, &default_tc);
	if (rc != 0)
		return rc;
	qp->default_tc = (uint8_t)default_tc;
	rc = parse_dscp_map(ld, sec, qp);
	if (rc == 0)
		rc = parse_tc_rates(ld, sec, qp);
	if (rc == 0)
		rc = parse_be_weights(ld, sec, qp);
	return rc;
}

/*
 * Pool prefixes of a line group. Downstream traffic is steered by
 * destination address, so no prefix may overlap another one of this instance
 * (earlier groups or this one) or the core subnet.
 */
static int
parse_group_prefixes(struct loader *ld, const char *sec, unsigned int idx)
{
	static const struct dp_ipv4_prefix martians[DP_N_MARTIANS] = DP_MARTIANS;
	struct dp_line_group *lg = &ld->cfg->line_groups[idx];
	const struct dp_ipv4_prefix *other;
	struct dp_ipv4_prefix *pfx;
	const char *v, *p, *tok;
	char o[16], other_sec[CFG_NAME_LEN];
	unsigned int g, i;
	size_t len;
	int rc;

	rc = get_value(ld, sec, "prefixes", &v);
	if (rc != 0)
		return rc;
	for (p = v; next_token(&p, &tok, &len);) {
		if (lg->n_prefixes == DP_MAX_GROUP_PREFIXES)
			return fail(ld, "%s: prefixes: more than %d prefixes", sec,
				    DP_MAX_GROUP_PREFIXES);
		pfx = &lg->prefixes[lg->n_prefixes];
		rc = parse_prefix(ld, sec, "prefixes:", tok, len, pfx);
		if (rc != 0)
			return rc;
		for (i = 0; i < DP_N_MARTIANS; i++) {
			if (!prefix_within(pfx, &martians[i]))
				continue;
			format_ipv4(martians[i].addr, o, sizeof(o));
			return fail(
				ld,
				"%s: prefixes: '%.*s' is inside %s/%u, which is never forwarded",
				sec, (int)len, tok, o, martians[i].len);
		}
		if (prefixes_overlap(pfx, &ld->cfg->core.subnet))
			return fail(ld, "%s: prefixes: '%.*s' overlaps the [core] subnet", sec,
				    (int)len, tok);
		for (g = 0; g <= idx; g++) {
			const struct dp_line_group *og = &ld->cfg->line_groups[g];
			unsigned int n = g == idx ? lg->n_prefixes : og->n_prefixes;

			for (i = 0; i < n; i++) {
				other = &og->prefixes[i];
				if (!prefixes_overlap(pfx, other))
					continue;
				format_ipv4(other->addr, o, sizeof(o));
				return fail(ld, "%s: prefixes: '%.*s' overlaps %s/%u of %s", sec,
					    (int)len, tok, o, other->len,
					    section_name(other_sec, SEC_LINE_GROUP, g));
			}
		}
		lg->n_prefixes++;
	}
	if (lg->n_prefixes == 0)
		return fail(ld, "%s: prefixes is empty", sec);
	return 0;
}

/* session_types: "pppoe", "ipoe" or both, each once. */
static int
parse_session_types(struct loader *ld, const char *sec, struct dp_line_group *lg)
{
	const char *v, *p, *tok;
	uint8_t bit;
	size_t len;

	v = rte_cfgfile_get_entry(ld->file, sec, "session_types");
	if (v == NULL) {
		lg->session_types = DP_SESSION_TYPE_PPPOE;
		return 0;
	}
	lg->session_types = 0;
	for (p = v; next_token(&p, &tok, &len);) {
		if (len == 5 && memcmp(tok, "pppoe", 5) == 0)
			bit = DP_SESSION_TYPE_PPPOE;
		else if (len == 4 && memcmp(tok, "ipoe", 4) == 0)
			bit = DP_SESSION_TYPE_IPOE;
		else
			return fail(ld, "%s: session_types: '%.*s' is not pppoe or ipoe", sec,
				    (int)len, tok);
		if (lg->session_types & bit)
			return fail(ld, "%s: session_types: '%.*s' given twice", sec, (int)len,
				    tok);
		lg->session_types |= bit;
	}
	if (lg->session_types == 0)
		return fail(ld, "%s: session_types is empty", sec);
	return 0;
}

/* One "gateway/len" of ipoe_gateways: a host of one of the group's pools. */
static int
parse_ipoe_gateway(struct loader *ld, const char *sec, struct dp_line_group *lg, const char *tok,
		   size_t n)
{
	struct dp_ipoe_gateway *gw = &lg->ipoe_gateways[lg->n_ipoe_gateways];
	const char *slash = memchr(tok, '/', n);
	uint32_t addr, mask;
	uint64_t len;
	unsigned int i;

	if (slash == NULL || !parse_ipv4(tok, (size_t)(slash - tok), &addr) ||
	    parse_dec(slash + 1, n - (size_t)(slash - tok) - 1, 1, 32, &len) != 0)
		return fail(ld, "%s: ipoe_gateways: '%.*s' is not gateway/length (a.b.c.d/1..32)",
			    sec, (int)n, tok);
	mask = prefix_mask((uint8_t)len);
	for (i = 0; i < lg->n_prefixes; i++)
		if (lg->prefixes[i].len == len && lg->prefixes[i].addr == (addr & mask))
			break;
	if (i == lg->n_prefixes)
		return fail(ld, "%s: ipoe_gateways: '%.*s' is not inside a pool of the group", sec,
			    (int)n, tok);
	if (len < 31 && ((addr & ~mask) == 0 || (addr & ~mask) == ~mask))
		return fail(ld,
			    "%s: ipoe_gateways: '%.*s' is the network or broadcast address of "
			    "its pool",
			    sec, (int)n, tok);
	for (unsigned int j = 0; j < lg->n_ipoe_gateways; j++)
		if (lg->ipoe_gateways[j].pool == i)
			return fail(ld, "%s: ipoe_gateways: '%.*s': its pool has a gateway already",
				    sec, (int)n, tok);
	gw->addr = addr;
	gw->len = (uint8_t)len;
	gw->pool = (uint8_t)i;
	lg->n_ipoe_gateways++;
	return 0;
}

/*
 * session_types, ipoe_gateways and ipoe_proxy_arp. Every key may be absent
 * (files written before IPoE): PPPoE only, no gateways.
 */
static int
parse_line_group_ipoe(struct loader *ld, const char *sec, unsigned int idx)
{
	struct dp_line_group *lg = &ld->cfg->line_groups[idx];
	const char *v, *p, *tok;
	size_t len;
	int rc;

	rc = parse_session_types(ld, sec, lg);
	if (rc != 0)
		return rc;
	lg->n_ipoe_gateways = 0;
	v = rte_cfgfile_get_entry(ld->file, sec, "ipoe_gateways");
	if (v != NULL && strcmp(v, "none") != 0) {
		for (p = v; next_token(&p, &tok, &len);) {
			if (lg->n_ipoe_gateways == DP_MAX_IPOE_GATEWAYS)
				return fail(ld, "%s: ipoe_gateways: more than %d gateways", sec,
					    DP_MAX_IPOE_GATEWAYS);
			rc = parse_ipoe_gateway(ld, sec, lg, tok, len);
			if (rc != 0)
				return rc;
		}
		if (lg->n_ipoe_gateways == 0)
			return fail(ld, "%s: ipoe_gateways is empty (write none)", sec);
	}
	if ((lg->session_types & DP_SESSION_TYPE_IPOE) && lg->n_ipoe_gateways == 0)
		return fail(ld, "%s: session_types has ipoe but ipoe_gateways is none", sec);
	if (!(lg->session_types & DP_SESSION_TYPE_IPOE) && lg->n_ipoe_gateways > 0)
		return fail(ld, "%s: ipoe_gateways without ipoe in session_types", sec);
	v = rte_cfgfile_get_entry(ld->file, sec, "ipoe_proxy_arp");
	if (v == NULL || strcmp(v, "yes") == 0)
		lg->ipoe_proxy_arp = true;
	else if (strcmp(v, "no") == 0)
		lg->ipoe_proxy_arp = false;
	else
		return fail(ld, "%s: ipoe_proxy_arp '%s' is not yes or no", sec, v);
	return 0;
}

static int
parse_line_group(struct loader *ld, unsigned int idx)
{
	struct dp_line_group *lg = &ld->cfg->line_groups[idx];
	const struct dp_config *cfg = ld->cfg;
	char sec[CFG_NAME_LEN], other[CFG_NAME_LEN];
	const char *v;
	unsigned int g;
	int rc, ref;

	section_name(sec, SEC_LINE_GROUP, idx);
	rc = get_unique_name(ld, sec, SEC_LINE_GROUP, cfg->line_groups, sizeof(*lg), idx, lg->name);
	if (rc == 0)
		rc = get_mac(ld, sec, "ac_mac", lg->ac_mac);
	if (rc == 0)
		rc = get_host_address(ld, sec, "core_address", &lg->core_address);
	if (rc == 0)
		rc = check_in_subnet(ld, sec, "core_address", lg->core_address, &cfg->core.subnet,
				     "[core] subnet");
	if (rc != 0)
		return rc;
	if (lg->core_address == cfg->core.router_address)
		return fail(ld, "%s: core_address equals [core] router_address", sec);
	for (g = 0; g < idx; g++)
		if (cfg->line_groups[g].core_address == lg->core_address)
			return fail(ld, "%s: core_address is already used by %s", sec,
				    section_name(other, SEC_LINE_GROUP, g));

	rc = get_mac(ld, sec, "core_mac", lg->core_mac);
	if (rc == 0)
		rc = parse_group_prefixes(ld, sec, idx);
	if (rc == 0)
		rc = get_value(ld, sec, "qos_profile", &v);
	if (rc != 0)
		return rc;
	ref = find_name(cfg->qos_profiles, sizeof(cfg->qos_profiles[0]), cfg->n_qos_profiles, v);
	if (ref < 0)
		return fail(ld, "%s: qos_profile '%s' is not a [qos_profile.N] name", sec, v);
	lg->qos_profile = (uint16_t)ref;
	v = rte_cfgfile_get_entry(ld->file, sec, "standby");
	if (v == NULL || strcmp(v, "no") == 0)
		lg->standby = false;
	else if (strcmp(v, "yes") == 0)
		lg->standby = true;
	else
		return fail(ld, "%s: standby '%s' is not yes or no", sec, v);
	rc = parse_line_group_ipoe(ld, sec, idx);
	if (rc != 0)
		return rc;
	return parse_line_group6(ld, sec, idx);
}

/*
 * A frame's line is found from (S-tag, C-tag) alone, and its access port
 * from the S-tag: so no two lines of one access port may share an (S-tag,
 * C-tag), and lines of served groups on different access ports may not share
 * an S-tag. Standby groups are the pod's other lines: they may share S-tags
 * with served ones on other ports (adoption checks them again).
 */
static int
check_line_overlaps(struct loader *ld, const char *sec, unsigned int idx)
{
	const struct dp_config *cfg = ld->cfg;
	const struct dp_line *line = &cfg->lines[idx], *o;
	char other[CFG_NAME_LEN];
	unsigned int i;

	for (i = 0; i < idx; i++) {
		o = &cfg->lines[i];
		if (!ranges_overlap(&line->stag, &o->stag))
			continue;
		section_name(other, SEC_LINE, i);
		if (line->access_port != o->access_port &&
		    (cfg->line_groups[line->group].standby || cfg->line_groups[o->group].standby))
			continue;
		if (line->access_port != o->access_port)
			return fail(ld,
				    "%s: stag %u-%u overlaps %s on access port '%s' (an S-tag "
				    "belongs to one access port)",
				    sec, line->stag.lo, line->stag.hi, other,
				    cfg->access_ports[o->access_port].name);
		if (ranges_overlap(&line->ctag, &o->ctag))
			return fail(ld,
				    "%s: stag %u-%u ctag %u-%u overlaps %s (stag %u-%u ctag %u-%u)",
				    sec, line->stag.lo, line->stag.hi, line->ctag.lo, line->ctag.hi,
				    other, o->stag.lo, o->stag.hi, o->ctag.lo, o->ctag.hi);
	}
	return 0;
}

static int
parse_line(struct loader *ld, unsigned int idx)
{
	struct dp_line *line = &ld->cfg->lines[idx];
	const struct dp_config *cfg = ld->cfg;
	char sec[CFG_NAME_LEN];
	const char *v;
	int rc, ref;

	section_name(sec, SEC_LINE, idx);
	rc = get_value(ld, sec, "group", &v);
	if (rc != 0)
		return rc;
	ref = find_name(cfg->line_groups, sizeof(cfg->line_groups[0]), cfg->n_line_groups, v);
	if (ref < 0)
		return fail(ld, "%s: group '%s' is not a [line_group.N] name", sec, v);
	line->group = (uint16_t)ref;

	rc = get_value(ld, sec, "access_port", &v);
	if (rc != 0)
		return rc;
	ref = find_name(cfg->access_ports, sizeof(cfg->access_ports[0]), cfg->n_access_ports, v);
	if (ref < 0)
		return fail(ld, "%s: access_port '%s' is not an [access_port.N] name", sec, v);
	line->access_port = (uint16_t)ref;

	rc = get_tag_range(ld, sec, "stag", &line->stag, NULL);
	if (rc == 0)
		rc = get_tag_range(ld, sec, "ctag", &line->ctag, &line->ctag_any);
	if (rc == 0)
		rc = check_line_overlaps(ld, sec, idx);
	return rc;
}

/* "any" (0-65535), or "lo-hi" of ports 1..65535: port 0 is the key of packets without ports. */
static int
get_port_range(struct loader *ld, const char *sec, const char *key, struct dp_port_range *r)
{
	const char *v, *dash;
	uint64_t lo, hi;
	size_t n;
	int rc;

	rc = get_value(ld, sec, key, &v);
	if (rc != 0)
		return rc;
	if (strcmp(v, "any") == 0) {
		r->lo = 0;
		r->hi = UINT16_MAX;
		return 0;
	}
	n = strlen(v);
	dash = memchr(v, '-', n);
	if (dash == NULL || parse_dec(v, (size_t)(dash - v), 1, UINT16_MAX, &lo) != 0 ||
	    parse_dec(dash + 1, n - (size_t)(dash - v) - 1, 1, UINT16_MAX, &hi) != 0)
		return fail(ld, "%s: %s '%s' is neither 'any' nor a port range lo-hi of 1..65535",
			    sec, key, v);
	if (lo > hi)
		return fail(ld, "%s: %s '%s': range starts above its end", sec, key, v);
	r->lo = (uint16_t)lo;
	r->hi = (uint16_t)hi;
	return 0;
}

static bool
port_range_any(const struct dp_port_range *r)
{
	return r->lo == 0 && r->hi == UINT16_MAX;
}

static int
get_acl_prefix(struct loader *ld, const char *sec, const char *key, struct dp_ipv4_prefix *pfx)
{
	const char *v;
	int rc;

	rc = get_value(ld, sec, key, &v);
	if (rc == 0)
		rc = parse_prefix_min(ld, sec, key, v, strlen(v), 0, pfx);
	return rc;
}

static int
get_acl_prefix6(struct loader *ld, const char *sec, const char *key, struct dp_ipv6_prefix *pfx)
{
	const char *v;
	int rc;

	rc = get_value(ld, sec, key, &v);
	if (rc == 0)
		rc = parse_prefix6(ld, sec, key, v, strlen(v), 0, 128, pfx);
	return rc;
}

/* [acl.N]: one rule; the first matching rule in N order decides. */
static int
parse_acl_rule(struct loader *ld, unsigned int idx)
{
	struct dp_acl_rule *rule = &ld->cfg->acl_rules[idx];
	char sec[CFG_NAME_LEN];
	const char *v, *ports_key;
	uint64_t proto;
	int rc;

	section_name(sec, SEC_ACL, idx);
	v = rte_cfgfile_get_entry(ld->file, sec, "family");
	if (v == NULL || strcmp(v, "ipv4") == 0)
		rule->family = DP_ACL_IPV4;
	else if (strcmp(v, "ipv6") == 0)
		rule->family = DP_ACL_IPV6;
	else
		return fail(ld, "%s: family '%s' is neither ipv4 nor ipv6", sec, v);
	rc = get_value(ld, sec, "action", &v);
	if (rc != 0)
		return rc;
	if (strcmp(v, "permit") == 0)
		rule->action = DP_ACL_PERMIT;
	else if (strcmp(v, "deny") == 0)
		rule->action = DP_ACL_DENY;
	else
		return fail(ld, "%s: action '%s' is neither permit nor deny", sec, v);

	rc = get_value(ld, sec, "direction", &v);
	if (rc != 0)
		return rc;
	if (strcmp(v, "up") == 0)
		rule->dirs = DP_ACL_DIR_UP;
	else if (strcmp(v, "down") == 0)
		rule->dirs = DP_ACL_DIR_DOWN;
	else if (strcmp(v, "both") == 0)
		rule->dirs = DP_ACL_DIR_UP | DP_ACL_DIR_DOWN;
	else
		return fail(ld, "%s: direction '%s' is not up, down or both", sec, v);

	rc = get_value(ld, sec, "protocol", &v);
	if (rc != 0)
		return rc;
	if (strcmp(v, "any") == 0)
		rule->protocol = DP_ACL_PROTO_ANY;
	else if (strcmp(v, "tcp") == 0)
		rule->protocol = DP_IPPROTO_TCP;
	else if (strcmp(v, "udp") == 0)
		rule->protocol = DP_IPPROTO_UDP;
	else if (strcmp(v, "icmp") == 0)
		rule->protocol = rule->family == DP_ACL_IPV6 ? DP_IPPROTO_ICMPV6 : DP_IPPROTO_ICMP;
	else if (parse_dec(v, strlen(v), 0, UINT8_MAX, &proto) == 0)
		rule->protocol = (uint16_t)proto;
	else
		return fail(ld, "%s: protocol '%s' is not any, tcp, udp, icmp or a number 0..255",
			    sec, v);

	if (rule->family == DP_ACL_IPV6) {
		rc = get_acl_prefix6(ld, sec, "source", &rule->src6);
		if (rc == 0)
			rc = get_acl_prefix6(ld, sec, "destination", &rule->dst6);
	} else {
		rc = get_acl_prefix(ld, sec, "source", &rule->src);
		if (rc == 0)
			rc = get_acl_prefix(ld, sec, "destination", &rule->dst);
	}
	if (rc == 0)
		rc = get_port_range(ld, sec, "source_ports", &rule->sport);
	if (rc == 0)
		rc = get_port_range(ld, sec, "destination_ports", &rule->dport);
	if (rc != 0)
		return rc;

	/* Only TCP and UDP have ports: a port rule on another protocol never matches. */
	ports_key = !port_range_any(&rule->sport)   ? "source_ports"
		    : !port_range_any(&rule->dport) ? "destination_ports"
						    : NULL;
	if (ports_key != NULL && rule->protocol != DP_IPPROTO_TCP &&
	    rule->protocol != DP_IPPROTO_UDP) {
		get_value(ld, sec, ports_key, &v);
		return fail(ld, "%s: %s '%s' needs protocol tcp or udp", sec, ports_key, v);
	}
	return 0;
}

/*
 * [route.N]. A route inside a prefix the datapath routes by itself (martians,
 * the connected core subnet, this instance's pools) would be more specific and
 * take that traffic away, so it is refused; a route around them is fine.
 */
static int
parse_route(struct loader *ld, unsigned int idx)
{
	static const struct dp_ipv4_prefix martians[DP_N_MARTIANS] = DP_MARTIANS;
	const struct dp_config *cfg = ld->cfg;
	struct dp_route *route = &ld->cfg->routes[idx];
	const struct dp_ipv4_prefix *pfx = &route->prefix;
	char sec[CFG_NAME_LEN], other[CFG_NAME_LEN], o[16];
	unsigned int g, i;
	const char *v;
	int rc;

	section_name(sec, SEC_ROUTE, idx);
	rc = get_value(ld, sec, "prefix", &v);
	if (rc != 0)
		return rc;
	if (strcmp(v, "0.0.0.0/0") == 0)
		return fail(ld, "%s: prefix '%s': the default route is [core] router_address", sec,
			    v);
	rc = parse_prefix(ld, sec, "prefix", v, strlen(v), &route->prefix);
	if (rc != 0)
		return rc;
	for (i = 0; i < DP_N_MARTIANS; i++) {
		if (!prefix_within(pfx, &martians[i]))
			continue;
		format_ipv4(martians[i].addr, o, sizeof(o));
		return fail(ld, "%s: prefix '%s' is inside %s/%u, which is never forwarded", sec, v,
			    o, martians[i].len);
	}
	if (prefix_within(pfx, &cfg->core.subnet)) {
		format_ipv4(cfg->core.subnet.addr, o, sizeof(o));
		return fail(ld, "%s: prefix '%s' is inside the [core] subnet %s/%u", sec, v, o,
			    cfg->core.subnet.len);
	}
	for (g = 0; g < cfg->n_line_groups; g++) {
		const struct dp_line_group *lg = &cfg->line_groups[g];

		for (i = 0; i < lg->n_prefixes; i++) {
			if (!prefix_within(pfx, &lg->prefixes[i]))
				continue;
			format_ipv4(lg->prefixes[i].addr, o, sizeof(o));
			return fail(ld, "%s: prefix '%s' is inside pool prefix %s/%u of %s", sec, v,
				    o, lg->prefixes[i].len, section_name(other, SEC_LINE_GROUP, g));
		}
	}
	for (i = 0; i < idx; i++)
		if (cfg->routes[i].prefix.addr == pfx->addr &&
		    cfg->routes[i].prefix.len == pfx->len)
			return fail(ld, "%s: prefix '%s' is already routed by %s", sec, v,
				    section_name(other, SEC_ROUTE, i));

	rc = get_value(ld, sec, "via", &v);
	if (rc != 0)
		return rc;
	if (strcmp(v, "drop") == 0) {
		route->drop = true;
		return 0;
	}
	rc = get_host_address(ld, sec, "via", &route->via);
	if (rc == 0)
		rc = check_in_subnet(ld, sec, "via", route->via, &cfg->core.subnet,
				     "[core] subnet");
	if (rc != 0)
		return rc;
	for (g = 0; g < cfg->n_line_groups; g++)
		if (cfg->line_groups[g].core_address == route->via)
			return fail(ld, "%s: via %s is the core_address of %s", sec, v,
				    section_name(other, SEC_LINE_GROUP, g));
	return 0;
}

/* One [punt] key, <class>_<field>, into *out when present (1..max). */
static int
get_punt_key(struct loader *ld, enum dp_punt_class c, const char *field, uint32_t max,
	     uint32_t *out)
{
	char key[CFG_NAME_LEN];
	uint64_t v;
	int rc;

	snprintf(key, sizeof(key), "%s_%s", dp_punt_class_names[c], field);
	if (!rte_cfgfile_has_entry(ld->file, "punt", key))
		return 0;
	rc = get_uint(ld, "punt", key, 1, max, &v);
	if (rc == 0)
		*out = (uint32_t)v;
	return rc;
}

/* [punt]: optional, and so is each key; what is absent keeps DP_PUNT_DEFAULTS. */
static int
parse_punt(struct loader *ld)
{
	static const struct dp_punt defaults = DP_PUNT_DEFAULTS;
	struct dp_punt *p = &ld->cfg->punt;
	int rc = 0;

	*p = defaults;
	if (!seen_test(ld, SEC_PUNT, 0))
		return 0;
	for (int c = 0; rc == 0 && c < DP_PUNT_CLASSES; c++) {
		struct dp_punt_class_cfg *k = &p->cls[c];
		uint32_t pct = k->ring_percent;

		rc = get_punt_key(ld, c, "client_rate", DP_PUNT_MAX_RATE, &k->client.rate);
		if (rc == 0)
			rc = get_punt_key(ld, c, "client_burst", DP_PUNT_MAX_BURST,
					  &k->client.burst);
		if (rc == 0)
			rc = get_punt_key(ld, c, "line_rate", DP_PUNT_MAX_RATE, &k->line.rate);
		if (rc == 0)
			rc = get_punt_key(ld, c, "line_burst", DP_PUNT_MAX_BURST, &k->line.burst);
		if (rc == 0)
			rc = get_punt_key(ld, c, "ring_percent", 100, &pct);
		k->ring_percent = (uint8_t)pct;
	}
	return rc;
}

/* Step 4: structure, then objects in reference order (targets first). */
static int
parse_config(struct loader *ld)
{
	const struct dp_config *cfg = ld->cfg;
	unsigned int i;
	int rc;

	rc = walk_sections(ld);
	if (rc == 0)
		rc = parse_instance(ld);
	if (rc == 0)
		rc = check_counts(ld);
	if (rc == 0)
		rc = parse_core(ld);
	for (i = 0; rc == 0 && i < cfg->n_access_ports; i++)
		rc = parse_access_port(ld, i);
	for (i = 0; rc == 0 && i < cfg->n_qos_profiles; i++)
		rc = parse_qos_profile(ld, i);
	for (i = 0; rc == 0 && i < cfg->n_line_groups; i++)
		rc = parse_line_group(ld, i);
	if (rc == 0)
		rc = check_v6_lengths(ld);
	for (i = 0; rc == 0 && i < cfg->n_lines; i++)
		rc = parse_line(ld, i);
	for (i = 0; rc == 0 && i < cfg->n_acl_rules; i++)
		rc = parse_acl_rule(ld, i);
	for (i = 0; rc == 0 && i < cfg->n_routes; i++)
		rc = parse_route(ld, i);
	if (rc == 0)
		rc = parse_punt(ld);
	return rc;
}

int
dp_config_load(const char *path, struct dp_config *cfg, char *err, size_t errlen)
{
	struct loader ld = {.cfg = cfg, .err = err, .errlen = errlen};
	char *buf = NULL;
	size_t len = 0;
	int rc;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (path == NULL || cfg == NULL)
		return fail(&ld, "dp_config_load: path and cfg are required");
	memset(cfg, 0, sizeof(*cfg));

	ld.entries = calloc(INI_MAX_KEYS, sizeof(*ld.entries));
	if (ld.entries == NULL)
		return fail_sys(&ld, -ENOMEM, "dp_config_load");

	rc = read_file(&ld, path, &buf, &len);
	if (rc == 0)
		rc = screen_file(&ld, buf, len);
	if (rc == 0)
		rc = parse_snapshot(&ld, buf, len);
	free(buf);
	if (rc == 0)
		rc = parse_config(&ld);

	if (ld.file != NULL)
		rte_cfgfile_close(ld.file);
	free(ld.entries);
	if (rc != 0)
		memset(cfg, 0, sizeof(*cfg));
	return rc;
}

/* A clash between the lines of group g and those of the served groups, or 0. */
static int
served_line_clash(const struct dp_config *cfg, uint16_t g, char *err, size_t errlen)
{
	for (unsigned int i = 0; i < cfg->n_lines; i++) {
		const struct dp_line *a = &cfg->lines[i];

		if (a->group != g)
			continue;
		for (unsigned int j = 0; j < cfg->n_lines; j++) {
			const struct dp_line *b = &cfg->lines[j];

			if (b->group == g || cfg->line_groups[b->group].standby ||
			    !ranges_overlap(&a->stag, &b->stag))
				continue;
			if (a->access_port != b->access_port) {
				snprintf(err, errlen,
					 "line.%u: stag %u-%u on access port '%s' is served on "
					 "access port '%s' by group '%s' (line.%u)",
					 i, a->stag.lo, a->stag.hi,
					 cfg->access_ports[a->access_port].name,
					 cfg->access_ports[b->access_port].name,
					 cfg->line_groups[b->group].name, j);
				return -EEXIST;
			}
			if (ranges_overlap(&a->ctag, &b->ctag)) {
				snprintf(err, errlen,
					 "line.%u: stag %u-%u ctag %u-%u overlaps line.%u of group "
					 "'%s'",
					 i, a->stag.lo, a->stag.hi, a->ctag.lo, a->ctag.hi, j,
					 cfg->line_groups[b->group].name);
				return -EEXIST;
			}
		}
	}
	return 0;
}

int
dp_config_adopt_check6(const struct dp_config *cfg, uint16_t g, const uint8_t *core_address6,
		       char *err, size_t errlen)
{
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (g >= cfg->n_line_groups) {
		snprintf(err, errlen, "no line group %u", g);
		return -ENOENT;
	}
	if (core_address6 == NULL)
		return 0;
	if (!cfg->core.has_subnet6 || !ipv6_host_of(core_address6, &cfg->core.subnet6)) {
		snprintf(err, errlen, "core IPv6 address is not a host of [core] subnet6");
		return -EINVAL;
	}
	if (cfg->core.has_router6 &&
	    memcmp(core_address6, cfg->core.router_address6, DP_IPV6_ADDR_LEN) == 0) {
		snprintf(err, errlen, "core IPv6 address is the core router's");
		return -EINVAL;
	}
	for (unsigned int o = 0; o < cfg->n_line_groups; o++) {
		const struct dp_line_group *og = &cfg->line_groups[o];

		if (o != g && !og->standby && og->has_core6 &&
		    memcmp(og->core_address6, core_address6, DP_IPV6_ADDR_LEN) == 0) {
			snprintf(err, errlen, "core IPv6 address is served by group '%s'",
				 og->name);
			return -EEXIST;
		}
	}
	return 0;
}

int
dp_config_adopt_check(const struct dp_config *cfg, uint16_t g, uint32_t core_address, char *err,
		      size_t errlen)
{
	const struct dp_ipv4_prefix *sn = &cfg->core.subnet;
	uint32_t mask = sn->len == 0 ? 0 : ~UINT32_C(0) << (32 - sn->len);
	uint32_t host = ~mask;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (g >= cfg->n_line_groups) {
		snprintf(err, errlen, "no line group %u", g);
		return -ENOENT;
	}
	if ((core_address & mask) != sn->addr || (core_address & host) == 0 ||
	    (core_address & host) == host) {
		snprintf(err, errlen, "core address is not a host of the [core] subnet");
		return -EINVAL;
	}
	if (core_address == cfg->core.router_address) {
		snprintf(err, errlen, "core address is the core router's");
		return -EINVAL;
	}
	for (unsigned int i = 0; i < cfg->n_routes; i++) {
		if (!cfg->routes[i].drop && cfg->routes[i].via == core_address) {
			snprintf(err, errlen, "core address is the next hop of route.%u", i);
			return -EINVAL;
		}
	}
	for (unsigned int o = 0; o < cfg->n_line_groups; o++) {
		if (o != g && !cfg->line_groups[o].standby &&
		    cfg->line_groups[o].core_address == core_address) {
			snprintf(err, errlen, "core address is served by group '%s'",
				 cfg->line_groups[o].name);
			return -EEXIST;
		}
	}
	return served_line_clash(cfg, g, err, errlen);
}

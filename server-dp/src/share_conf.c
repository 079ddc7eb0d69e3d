/*
 * The --qos-share file: one [qos_share] section per sharing group (share_conf.h).
 */
#include "share_conf.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
cerr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int
num(const char *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long x;

	if (*v < '0' || *v > '9')
		return -1;
	errno = 0;
	x = strtoull(v, &end, 10);
	if (errno != 0 || (*end != '\0' && *end != ' ' && *end != '\t') || x < lo || x > hi)
		return -1;
	*out = x;
	return 0;
}

static int
parse_peers(struct share_conf *c, char *v)
{
	char *save = NULL, *tok;

	c->n_peers = 0;
	for (tok = strtok_r(v, " \t", &save); tok != NULL; tok = strtok_r(NULL, " \t", &save)) {
		char *colon = strchr(tok, ':');
		struct in_addr ia;
		uint64_t port;

		if (c->n_peers >= SHARE_MAX_PEERS || colon == NULL)
			return -1;
		*colon = '\0';
		if (inet_pton(AF_INET, tok, &ia) != 1 || num(colon + 1, 1, 65535, &port) != 0)
			return -1;
		c->peer_addr[c->n_peers] = ntohl(ia.s_addr);
		c->peer_port[c->n_peers] = (uint16_t)port;
		c->n_peers++;
	}
	return c->n_peers >= 2 ? 0 : -1;
}

static int
parse_shares(struct share_conf *c, char *v, uint32_t *n)
{
	char *save = NULL, *tok;
	uint64_t x;

	*n = 0;
	for (tok = strtok_r(v, " \t", &save); tok != NULL; tok = strtok_r(NULL, " \t", &save)) {
		if (*n >= SHARE_MAX_PEERS || num(tok, 1, UINT64_C(1) << 50, &x) != 0)
			return -1;
		c->stat[(*n)++] = x;
	}
	return 0;
}

enum {
	K_ACCESS_PORT,
	K_SHARE_ID,
	K_PORT_RATE,
	K_SELF,
	K_PEERS,
	K_STATIC,
	K_INTERVAL,
	K_SILENT,
	K_WEIGHT,
	K_TRACE,
	K_EXCHANGE,
	K_SERVER_PORT,
	K_GBR_DEFAULT,
	K_N
};
static const char *const keys[K_N] = {
	"access_port",	 "share_id",	"port_rate",	    "self",   "peers",
	"static_shares", "interval_ms", "silent_intervals", "weight", "trace",
	"exchange",	 "server_port", "gbr_default"};
#define K_MANDATORY (1u << K_SHARE_ID | 1u << K_PORT_RATE | 1u << K_SELF | 1u << K_PEERS)

#define LABEL_MAX 32

/* "[qos_share]" (label "") or "[qos_share.LABEL]", LABEL 1..32 of
 * [A-Za-z0-9_.-], not one of the n before: 0 and the label kept in
 * labels[n], or -1. */
static int
section_name(const char *s, char labels[][LABEL_MAX + 1], uint32_t n)
{
	static const char head[] = "[qos_share";
	size_t len = strlen(s), l;
	const char *lab;
	uint32_t i;

	if (n >= SHARE_MAX_GROUPS || strncmp(s, head, sizeof(head) - 1) != 0 || s[len - 1] != ']')
		return -1;
	lab = s + sizeof(head) - 1;
	if (*lab == '.')
		lab++;
	else if (*lab != ']')
		return -1;
	l = (size_t)(s + len - 1 - lab);
	if (l > LABEL_MAX || (lab[-1] == '.' && l == 0))
		return -1;
	for (i = 0; i < l; i++)
		if (!isalnum((unsigned char)lab[i]) && lab[i] != '_' && lab[i] != '.' &&
		    lab[i] != '-')
			return -1;
	memcpy(labels[n], lab, l);
	labels[n][l] = '\0';
	for (i = 0; i < n; i++)
		if (strcmp(labels[i], labels[n]) == 0 && l > 0)
			return -1;
	return 0;
}

static void
section_start(struct share_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->interval_ms = 10;
	c->silent_intervals = 3;
	c->exchange = 1;
	c->gbr_default = SHARE_DEFAULT_GBR;
}

/* The checks of a whole section (no: its ordinal, from 1). */
static int
section_end(const char *path, uint32_t no, struct share_conf *c, uint32_t seen, uint32_t n_static,
	    char *err, size_t errlen)
{
	uint64_t sum = 0;
	uint32_t k;

	if ((seen & K_MANDATORY) != K_MANDATORY) {
		for (k = 0; k < K_N; k++)
			if ((K_MANDATORY >> k & 1) && !(seen >> k & 1))
				break;
		return cerr(err, errlen, "%s: [qos_share] %u: %s is missing", path, no, keys[k]);
	}
	if (!(seen >> K_ACCESS_PORT & 1) == !(seen >> K_SERVER_PORT & 1))
		return cerr(err, errlen,
			    "%s: [qos_share] %u: give one of access_port and server_port", path,
			    no);
	c->kind = seen >> K_SERVER_PORT & 1 ? SHARE_KIND_SERVER : SHARE_KIND_ACCESS;
	if (c->self >= c->n_peers)
		return cerr(err, errlen,
			    "%s: [qos_share] %u: self %u is not an index of the %u peers", path, no,
			    c->self, c->n_peers);
	if (n_static == 0) {
		for (k = 0; k < c->n_peers; k++)
			c->stat[k] = c->port_rate / c->n_peers;
	} else if (n_static != c->n_peers) {
		return cerr(err, errlen,
			    "%s: [qos_share] %u: static_shares has %u values for %u peers", path,
			    no, n_static, c->n_peers);
	}
	for (k = 0; k < c->n_peers; k++)
		sum += c->stat[k];
	if (sum > c->port_rate)
		return cerr(err, errlen,
			    "%s: [qos_share] %u: static_shares sum to %" PRIu64
			    " bit/s, above port_rate %" PRIu64,
			    path, no, sum, c->port_rate);
	return 0;
}

/* The checks across sections: section i against the ones before it. */
static int
section_fits(const char *path, const struct share_file *f, uint32_t i, char *err, size_t errlen)
{
	const struct share_conf *c = &f->g[i];
	uint32_t j;

	for (j = 0; j < i; j++) {
		const struct share_conf *o = &f->g[j];

		if (o->kind == c->kind && o->share_id == c->share_id)
			return cerr(err, errlen,
				    "%s: [qos_share] %u: share_id %u is section %u's too", path,
				    i + 1, c->share_id, j + 1);
		if (o->kind == c->kind && c->kind == SHARE_KIND_SERVER)
			return cerr(err, errlen,
				    "%s: [qos_share] %u: a second server_port section (the first: "
				    "%u)",
				    path, i + 1, j + 1);
		if (o->kind == c->kind && o->access_port == c->access_port)
			return cerr(err, errlen,
				    "%s: [qos_share] %u: access_port %u is section %u's too", path,
				    i + 1, c->access_port, j + 1);
		if (o->peer_addr[o->self] != c->peer_addr[c->self] ||
		    o->peer_port[o->self] != c->peer_port[c->self])
			return cerr(err, errlen,
				    "%s: [qos_share] %u: self's address:port differs from section "
				    "%u's (one socket serves every group)",
				    path, i + 1, j + 1);
	}
	return 0;
}

int
share_conf_load(const char *path, uint16_t n_access_ports, struct share_file *sf, char *err,
		size_t errlen)
{
	char line[1024];
	uint32_t seen = 0, lineno = 0, n_static = 0, k;
	char labels[SHARE_MAX_GROUPS][LABEL_MAX + 1];
	struct share_conf *c = NULL;
	uint64_t x;
	FILE *f = fopen(path, "r");

	memset(sf, 0, sizeof(*sf));
	if (f == NULL)
		return cerr(err, errlen, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f) != NULL) {
		char *s = line, *eq, *key, *v, *e;

		lineno++;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			fclose(f);
			return cerr(err, errlen, "%s line %u: longer than %zu characters", path,
				    lineno, sizeof(line) - 2);
		}
		while (*s == ' ' || *s == '\t')
			s++;
		for (e = s + strlen(s);
		     e > s && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t');)
			*--e = '\0';
		if (*s == '\0' || *s == ';' || *s == '#')
			continue;
		if (*s == '[') {
			if (section_name(s, labels, sf->n) != 0 || sf->n >= SHARE_MAX_GROUPS) {
				fclose(f);
				return cerr(
					err, errlen,
					"%s line %u: '%s': the file holds up to %u sections "
					"[qos_share] or [qos_share.LABEL] (distinct labels) and "
					"nothing else",
					path, lineno, s, SHARE_MAX_GROUPS);
			}
			if (c != NULL &&
			    (section_end(path, sf->n, c, seen, n_static, err, errlen) != 0 ||
			     section_fits(path, sf, sf->n - 1, err, errlen) != 0)) {
				fclose(f);
				return -1;
			}
			c = &sf->g[sf->n++];
			section_start(c);
			seen = 0;
			n_static = 0;
			continue;
		}
		eq = strchr(s, '=');
		if (c == NULL || eq == NULL) {
			fclose(f);
			return cerr(err, errlen, "%s line %u: neither [qos_share] nor key = value",
				    path, lineno);
		}
		key = s;
		for (e = eq; e > key && (e[-1] == ' ' || e[-1] == '\t');)
			e--;
		*e = '\0';
		v = eq + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		for (k = 0; k < K_N; k++)
			if (strcmp(key, keys[k]) == 0)
				break;
		if (k == K_N || (seen >> k & 1)) {
			fclose(f);
			return cerr(err, errlen, "%s line %u: %s key '%s'", path, lineno,
				    k == K_N ? "unknown" : "duplicate", key);
		}
		seen |= 1u << k;
		int bad = 0;
		switch (k) {
		case K_ACCESS_PORT:
			bad = num(v, 0, n_access_ports ? n_access_ports - 1u : 0, &x) != 0 ||
			      n_access_ports == 0;
			c->access_port = (uint16_t)x;
			break;
		case K_SERVER_PORT:
			bad = strcmp(v, "on") != 0;
			break;
		case K_SHARE_ID:
			bad = num(v, 0, 65535, &x) != 0;
			c->share_id = (uint16_t)x;
			break;
		case K_PORT_RATE:
			bad = num(v, 100000, UINT64_C(1) << 50, &c->port_rate) != 0;
			break;
		case K_SELF:
			bad = num(v, 0, SHARE_MAX_PEERS - 1, &x) != 0;
			c->self = (uint32_t)x;
			break;
		case K_PEERS:
			bad = parse_peers(c, v) != 0;
			break;
		case K_STATIC:
			bad = parse_shares(c, v, &n_static) != 0;
			break;
		case K_INTERVAL:
			bad = num(v, 1, 1000, &x) != 0;
			c->interval_ms = (uint32_t)x;
			break;
		case K_SILENT:
			bad = num(v, 2, 100, &x) != 0;
			c->silent_intervals = (uint32_t)x;
			break;
		case K_WEIGHT:
			if (strcmp(v, "sessions") == 0)
				c->weight_mode = SHARE_WEIGHT_SESSIONS;
			else if (strcmp(v, "guaranteed") == 0)
				c->weight_mode = SHARE_WEIGHT_GUARANTEED;
			else if (num(v, 1, UINT64_C(1) << 50, &c->weight) == 0)
				c->weight_mode = SHARE_WEIGHT_FIXED;
			else
				bad = 1;
			break;
		case K_GBR_DEFAULT:
			bad = num(v, 1000, UINT64_C(1) << 40, &c->gbr_default) != 0;
			break;
		case K_EXCHANGE:
			bad = strcmp(v, "on") != 0 && strcmp(v, "off") != 0;
			c->exchange = strcmp(v, "on") == 0;
			break;
		case K_TRACE:
			bad = *v == '\0' || strlen(v) >= sizeof(c->trace);
			if (!bad)
				snprintf(c->trace, sizeof(c->trace), "%s", v);
			break;
		}
		if (bad) {
			fclose(f);
			return cerr(err, errlen, "%s line %u: %s: bad value '%s'", path, lineno,
				    keys[k], v);
		}
	}
	fclose(f);
	if (c == NULL)
		return cerr(err, errlen, "%s: no [qos_share] section", path);
	if (section_end(path, sf->n, c, seen, n_static, err, errlen) != 0 ||
	    section_fits(path, sf, sf->n - 1, err, errlen) != 0)
		return -1;
	return 0;
}

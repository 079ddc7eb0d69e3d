/*
 * libFuzzer target for the PFCP codec and user-plane function.
 *
 * Each input is a script for one fresh UP function (capacity 8, already
 * associated with the CP, fake data path). The script is a list of records
 *   [op] [length, 2 octets big-endian] [payload]
 * where op & 3 says what to do and op >> 2 advances the fake clock by that
 * many 250 ms steps first:
 *   0  hand the payload to pfcp_up_input() as a datagram from the CP;
 *   1  pfcp_up_tick();
 *   2  pfcp_up_report_lcp_dead() for handle payload[0];
 *   3  the data path refuses installs and modifications from now on with
 *      -errno, errno = payload[0] (0: accepts again).
 * A trailing record shorter than its length gets what is left.
 *
 * Invariants, checked after every record (and on every install: the shape of
 * a PPPoE or an IPoE description, docs/dp/pfcp.md):
 *   - the fake data path's live sessions == the UP function's subscriber
 *     sessions, and every session count adds up (nothing half-installed);
 *   - ops are only ever called for live handles (no double remove, no
 *     modify or usage of a removed session);
 *   - every datagram the UP function sends decodes cleanly with the codec;
 *   - codec round trip: a datagram that decodes re-encodes, and decoding
 *     that gives back the same message.
 * The seeds (fuzz/corpus_pfcp) are scripts built from the messages of
 * tests/pfcp-encode-samples, and (lg-*) Association Updates with the bngpod
 * Line Group IE: adopt and release around an establishment, and malformed
 * IEs; (ipoe-*, msg-cp_ipoe_*, msg-cp_default_session_dhcp_*) an IPoE
 * session and the default session's dhcp class. The fake data path has two
 * line groups, lg1 (S-tags < 200, served) and lg2 (standby); after a release
 * none of the group's sessions may stay. (report_usage_dropped) A Session Report
 * Request with the bngpod Dropped Packets IE in its 16-octet form (packets), and
 * (report_usage_dropped_octets) in its 32-octet form (packets and octets); the
 * codec decodes them; the UP function answers no request of that type.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfcp.h"
#include "pfcp_up.h"

#define CHECK(cond)                                                       \
	do {                                                              \
		if (!(cond)) {                                            \
			fprintf(stderr, "invariant failed: %s\n", #cond); \
			abort();                                          \
		}                                                         \
	} while (0)

#define CAP 8
#define HANDLES 64
#define CP_IP 0x0ac80001u

/*
 * Fake line groups: "lg1" (S-tags below 200, served at start) and "lg2"
 * (200 and up, standby at start). An install on a standby group's line is
 * refused; a release must leave no session of the group behind.
 */
static struct {
	uint32_t live;
	int fail;
	uint32_t next;
	uint8_t used[HANDLES];
	uint8_t group[HANDLES];
	uint8_t kind[HANDLES]; /* UP_SUB_* at install: a modification never changes it */
	bool standby[2];
} F;

static struct pfcp_msg m1, m2;
static uint8_t enc[70000];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
f_install(void *ctx, const struct up_sub *s, uint32_t *h)
{
	(void)ctx;
	CHECK(s->stag >= 1 && s->stag <= 4094 && s->ctag >= 1 && s->ctag <= 4094);
	CHECK(s->ipv4 != 0);
	/* PPPoE: a session id; IPoE: none, IPv4 only, no LCP; the ARP ping only on IPoE */
	if (s->kind == UP_SUB_IPOE)
		CHECK(s->pppoe_sid == 0 && !s->has_ipv6 && s->n_prefix6 == 0 && !s->lcp_offload &&
		      !s->ra.on);
	else
		CHECK(s->kind == UP_SUB_PPPOE && s->pppoe_sid != 0 && s->pppoe_sid != 0xffff &&
		      !s->arp_ping.on);
	CHECK(!s->arp_ping.on || (s->arp_ping.interval_s >= 1 && s->arp_ping.count >= 1));
	CHECK(s->logical_port[UP_NAME_SIZE - 1] == 0 && s->qos_profile[UP_NAME_SIZE - 1] == 0);
	if (F.fail)
		return -F.fail;
	if (F.standby[s->stag < 200 ? 0 : 1])
		return -EINVAL;
	for (uint32_t i = 0; i < HANDLES; i++) {
		uint32_t k = (F.next + i) % HANDLES;

		if (!F.used[k]) {
			F.used[k] = 1;
			F.group[k] = s->stag < 200 ? 0 : 1;
			F.kind[k] = s->kind;
			F.next = k + 1;
			F.live++;
			*h = k;
			return 0;
		}
	}
	return -ENOSPC;
}

static int
f_modify(void *ctx, uint32_t *h, const struct up_sub *s, uint32_t changed)
{
	(void)ctx;
	CHECK(*h < HANDLES && F.used[*h]);
	CHECK(changed != 0 && s->kind == F.kind[*h]);
	if (F.fail)
		return -F.fail;
	if (changed & UP_CHG_KEYS) { /* re-add under a new handle, like a data path might */
		if (F.standby[s->stag < 200 ? 0 : 1])
			return -EINVAL;
		for (uint32_t k = 0; k < HANDLES; k++) {
			if (!F.used[k]) {
				F.used[*h] = 0;
				F.used[k] = 1;
				F.group[k] = s->stag < 200 ? 0 : 1;
				F.kind[k] = s->kind;
				*h = k;
				break;
			}
		}
	}
	return 0;
}

static void
f_remove(void *ctx, uint32_t h)
{
	(void)ctx;
	CHECK(h < HANDLES && F.used[h]);
	F.used[h] = 0;
	F.live--;
}

static void
f_usage(void *ctx, uint32_t h, struct up_usage *out)
{
	(void)ctx;
	CHECK(h < HANDLES && F.used[h]);
	out->ul_pkts = h * 3u;
	out->ul_bytes = h * 300u;
	out->dl_pkts = h * 7u;
	out->dl_bytes = h * 700u;
	out->ul_drops = h; /* the reports' bngpod Dropped Packets IE round-trips too */
	out->dl_drops = h * 2u;
	out->ul_drop_bytes = h * 100u; /* and its octets (the IE's 32-octet form) */
	out->dl_drop_bytes = h * 2000u;
}

static void
f_redirect(void *ctx, const struct up_redirect *r)
{
	(void)ctx;
	CHECK(r->fallback || (r->cp_ip != 0 && r->cp_port != 0 && r->classes != 0));
}

static int
f_line_group(void *ctx, const struct pfcp_line_group *lg)
{
	int g;

	(void)ctx;
	CHECK(lg->action == PFCP_LG_ADOPT || lg->action == PFCP_LG_RELEASE);
	CHECK(lg->name_len >= 1 && lg->name_len <= PFCP_LG_NAME_MAX &&
	      strlen(lg->name) == lg->name_len);
	if (strcmp(lg->name, "lg1") == 0)
		g = 0;
	else if (strcmp(lg->name, "lg2") == 0)
		g = 1;
	else
		return -ENOENT;
	F.standby[g] = lg->action == PFCP_LG_RELEASE;
	return 0;
}

static bool
f_served(void *ctx, uint32_t h)
{
	(void)ctx;
	CHECK(h < HANDLES && F.used[h]);
	return !F.standby[F.group[h]];
}

static int
f_send(void *arg, const uint8_t *b, size_t len, uint32_t ip, uint16_t port)
{
	struct pfcp_derr e;

	(void)arg;
	(void)port;
	CHECK(ip == CP_IP && len >= 8 && len <= UP_MAX_MSG);
	CHECK(pfcp_msg_decode(b, len, &m2, &e) == PFCP_OK ||
	      b[1] == PFCP_VERSION_NOT_SUPPORTED_RSP);
	return 0;
}

/* decode(encode(decode(x))) == decode(x) for what the encoder can write. */
static void
round_trip(const uint8_t *b, size_t len)
{
	struct pfcp_derr e;
	int n;

	if (pfcp_msg_decode(b, len, &m1, &e) != PFCP_OK)
		return;
	n = pfcp_msg_encode(&m1, enc, sizeof(enc));
	if (n < 0)
		return; /* e.g. an FQDN text with an empty label cannot be written back */
	CHECK(pfcp_msg_decode(enc, (size_t)n, &m2, &e) == PFCP_OK);
	m2.h = m1.h;
	m2.n_ies = m1.n_ies;
	m2.n_skipped = m1.n_skipped;
	m2.n_dup = m1.n_dup;
	m2.n_line_group = m1.n_line_group; /* a count, like n_dup: the encoder writes one */
	CHECK(memcmp(&m1, &m2, sizeof(m1)) == 0);
}

static void
consistent(const struct pfcp_up *u)
{
	struct pfcp_up_stats st;
	uint32_t cur = 0, n = 0, subs = 0;
	struct up_session_info info[CAP];

	pfcp_up_stats_get(u, &st);
	CHECK(st.sub_sessions == F.live);
	CHECK(st.sessions == st.sub_sessions + (st.default_session ? 1u : 0u));
	CHECK(st.sessions <= CAP && st.pending <= UP_MAX_PENDING);
	n = pfcp_up_sessions(u, &cur, info, CAP);
	CHECK(n == st.sessions);
	for (uint32_t i = 0; i < n; i++)
		if (info[i].kind == UP_KIND_SUBSCRIBER) {
			subs++;
			CHECK(info[i].handle < HANDLES && F.used[info[i].handle]);
		}
	CHECK(subs == F.live);
	for (uint32_t h = 0; h < HANDLES; h++) /* a release leaves none of its sessions */
		CHECK(!F.used[h] || !F.standby[F.group[h]]);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct pfcp_up_ops ops = {
		.install = f_install,
		.modify = f_modify,
		.remove = f_remove,
		.usage = f_usage,
		.redirect = f_redirect,
		.line_group = f_line_group,
		.served = f_served,
	};
	/* Association Setup Request: Node ID 10.200.0.1, Recovery Time Stamp */
	static const uint8_t assoc[] = {0x20, 0x05, 0x00, 0x15, 0x00, 0x00, 0x01, 0x00, 0x00,
					0x3c, 0x00, 0x05, 0x00, 0x0a, 0xc8, 0x00, 0x01, 0x00,
					0x60, 0x00, 0x04, 0xe8, 0x00, 0x00, 0x00};
	struct pfcp_up_conf c = {
		.node_ipv4 = 0x0ac8000b,
		.cp_ip = CP_IP,
		.recovery_unix_s = 1700000000,
		.wall_offset_ms = 1700000000000ll,
		.capacity = CAP,
		.heartbeat_ms = 5000,
		.t1_ms = 1000,
		.n1 = 3,
		.scan_per_tick = 4,
		.reports_per_tick = 2,
		.fallback = {.cp_ip = CP_IP, .cp_port = 4789, .classes = UP_REDIRECT_ALL},
	};
	struct pfcp_up *u;
	uint64_t now = 0;
	size_t off = 0;

	memset(&F, 0, sizeof(F));
	u = pfcp_up_create(&c, &ops, NULL);
	CHECK(u != NULL);
	pfcp_up_input(u, assoc, sizeof(assoc), CP_IP, PFCP_PORT, now, f_send, NULL);
	while (off + 3 <= size) {
		uint8_t op = data[off];
		size_t len = (size_t)data[off + 1] << 8 | data[off + 2];
		uint8_t *p;

		off += 3;
		if (len > size - off)
			len = size - off;
		/* an exact-size copy, so ASan sees any read past len */
		p = malloc(len ? len : 1);
		CHECK(p != NULL);
		memcpy(p, data + off, len);
		off += len;
		now += (uint64_t)(op >> 2) * 250;
		switch (op & 3) {
		case 0:
			round_trip(p, len);
			pfcp_up_input(u, p, len, CP_IP, PFCP_PORT, now, f_send, NULL);
			break;
		case 1:
			pfcp_up_tick(u, now, f_send, NULL);
			break;
		case 2:
			if (len > 0)
				pfcp_up_report_lcp_dead(u, p[0], now, f_send, NULL);
			break;
		default:
			F.fail = len > 0 ? p[0] : 0;
			break;
		}
		free(p);
		consistent(u);
	}
	pfcp_up_free(u);
	return 0;
}

/*
 * PFCP codec and user-plane function tests.
 *
 * The byte-exact reference is tests/pfcp_vectors.h: messages written out
 * field by field from the 29.244 / TR-459 layouts (not by pfcp.c), which
 * tshark decodes cleanly. Decoding them must give the intended fields, and
 * what the UP function sends must equal them byte for byte. Around that:
 * round trips of every field, malformed and truncated input, every cause
 * path with its Offending IE / Failed Rule ID, the response cache,
 * heartbeats and usage reports on a fake clock, CP restart, association
 * release, the default session, and 65536 sessions with bounded tick work.
 * The ops table is a fake that records calls; after every request the
 * fake's live sessions must equal the UP function's subscriber sessions.
 * No EAL: the code under test is plain C.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "pfcp.h"
#include "pfcp_build.h"
#include "pfcp_up.h"
#include "pfcp_vectors.h"

#define CP_PORT 8805
#define RECOVERY_UNIX 1700000000u
#define NTP0 (RECOVERY_UNIX + PFCP_NTP_UNIX_OFFSET) /* NTP at now_ms = 0 */
#define UP_SEID_V 0x0000abcd00000001ull		    /* the UP SEID of the vectors */

static struct pfcp_msg M, M2;
static uint8_t buf[UP_MAX_MSG];
static char name[160];

#define CHECK(cond, ...)                                   \
	do {                                               \
		snprintf(name, sizeof(name), __VA_ARGS__); \
		check((cond), name, #cond);                \
	} while (0)

/* ---- captured datagrams ------------------------------------------------------------------ */

#define SENT_RING 64
static struct sent {
	uint8_t b[UP_MAX_MSG];
	size_t len;
	uint32_t ip;
	uint16_t port;
} sent[SENT_RING];
static unsigned n_sent;

static int
cap_send(void *arg, const uint8_t *b, size_t len, uint32_t ip, uint16_t port)
{
	struct sent *s = &sent[n_sent++ % SENT_RING];

	(void)arg;
	memcpy(s->b, b, len);
	s->len = len;
	s->ip = ip;
	s->port = port;
	return 0;
}

static const struct sent *
last(void)
{
	return &sent[(n_sent - 1) % SENT_RING];
}

/* Decode the last datagram sent into M2; its cause (0 if none). */
static int
last_cause(void)
{
	struct pfcp_derr e;

	if (n_sent == 0 || pfcp_msg_decode(last()->b, last()->len, &M2, &e) != PFCP_OK)
		return -1;
	return (M2.present & PFCP_M_CAUSE) ? M2.cause : 0;
}

/* ---- fake data path ------------------------------------------------------------------------ */

#define FAKE_MAX 70000
static struct fake {
	uint32_t live;
	uint32_t next;
	unsigned installs, modifies, removes, redirects, usages, states;
	int fail_install, fail_modify;
	bool change_handle;
	uint32_t last_changed;
	struct up_sub last;
	struct up_redirect redir;
	enum up_cp_state state;
	uint8_t used[FAKE_MAX];
	struct up_usage use[FAKE_MAX];
} F;

static uint32_t
fake_handle(void)
{
	while (F.used[F.next % FAKE_MAX])
		F.next++;
	return F.next++ % FAKE_MAX;
}

static int
f_install(void *ctx, const struct up_sub *s, uint32_t *handle)
{
	(void)ctx;
	if (F.fail_install)
		return F.fail_install;
	*handle = fake_handle();
	F.used[*handle] = 1;
	memset(&F.use[*handle], 0, sizeof(F.use[0]));
	F.live++;
	F.installs++;
	F.last = *s;
	return 0;
}

static int
f_modify(void *ctx, uint32_t *handle, const struct up_sub *s, uint32_t changed)
{
	(void)ctx;
	if (F.fail_modify)
		return F.fail_modify;
	F.modifies++;
	F.last = *s;
	F.last_changed = changed;
	if (F.change_handle) {
		uint32_t h = fake_handle();

		F.used[*handle] = 0;
		F.used[h] = 1;
		memset(&F.use[h], 0, sizeof(F.use[0]));
		*handle = h;
	}
	return 0;
}

static void
f_remove(void *ctx, uint32_t handle)
{
	(void)ctx;
	if (handle < FAKE_MAX && F.used[handle]) {
		F.used[handle] = 0;
		F.live--;
	}
	F.removes++;
}

static void
f_usage(void *ctx, uint32_t handle, struct up_usage *out)
{
	(void)ctx;
	F.usages++;
	if (handle < FAKE_MAX)
		*out = F.use[handle];
}

static void
f_redirect(void *ctx, const struct up_redirect *r)
{
	(void)ctx;
	F.redirects++;
	F.redir = *r;
}

static void
f_state(void *ctx, enum up_cp_state s)
{
	(void)ctx;
	F.states++;
	F.state = s;
}

/*
 * Fake line groups: "lg1" (S-tags below 200) served, "lg2" (200 and up)
 * standby; the group of a session follows from its S-tag; an install on a
 * standby group's line is refused as an unknown line is. f_line_group fails
 * with F.fail_lg when set.
 */
static struct fake_lg {
	bool standby[2];
	uint8_t group[FAKE_MAX];
	unsigned calls;
	int fail;
	struct pfcp_line_group last;
} FL;

static int
fake_group_of(uint16_t stag)
{
	return stag < 200 ? 0 : 1;
}

static int
f_install_lg(void *ctx, const struct up_sub *s, uint32_t *handle)
{
	int g = fake_group_of(s->stag), rc;

	if (FL.standby[g])
		return -EINVAL;
	rc = f_install(ctx, s, handle);
	if (rc == 0)
		FL.group[*handle] = (uint8_t)g;
	return rc;
}

static int
f_line_group(void *ctx, const struct pfcp_line_group *lg)
{
	int g;

	(void)ctx;
	FL.calls++;
	FL.last = *lg;
	if (FL.fail)
		return FL.fail;
	if (strcmp(lg->name, "lg1") == 0)
		g = 0;
	else if (strcmp(lg->name, "lg2") == 0)
		g = 1;
	else
		return -ENOENT;
	FL.standby[g] = lg->action == PFCP_LG_RELEASE;
	return 0;
}

static bool
f_served(void *ctx, uint32_t handle)
{
	(void)ctx;
	return handle < FAKE_MAX && F.used[handle] && !FL.standby[FL.group[handle]];
}

static const struct pfcp_up_ops fake_ops = {
	.install = f_install,
	.modify = f_modify,
	.remove = f_remove,
	.usage = f_usage,
	.redirect = f_redirect,
	.cp_state = f_state,
};

static const struct pfcp_up_ops fake_lg_ops = {
	.install = f_install_lg,
	.modify = f_modify,
	.remove = f_remove,
	.usage = f_usage,
	.redirect = f_redirect,
	.cp_state = f_state,
	.line_group = f_line_group,
	.served = f_served,
};

static struct pfcp_up_conf
conf_default(uint32_t capacity)
{
	struct pfcp_up_conf c = {
		.node_ipv4 = PB_UP_IP,
		.cp_ip = PB_CP_IP,
		.recovery_unix_s = RECOVERY_UNIX,
		.wall_offset_ms = (int64_t)RECOVERY_UNIX * 1000,
		.capacity = capacity,
		.heartbeat_ms = 5000,
		.t1_ms = 3000,
		.n1 = 3,
		.up_features = {0, 0, 0x10},
		.bbf_features = PFCP_BBF_UPF_PPPOE | PFCP_BBF_UPF_LCP_KEEPALIVE_OFFLOAD,
		.fallback = {.cp_ip = PB_CP_IP, .cp_port = 4789, .classes = UP_REDIRECT_ALL},
	};
	return c;
}

static struct pfcp_up *
mk_up(const struct pfcp_up_conf *c)
{
	memset(&F, 0, sizeof(F));
	return pfcp_up_create(c, &fake_ops, NULL);
}

static int
feed(struct pfcp_up *u, const uint8_t *b, size_t len, uint64_t now)
{
	return pfcp_up_input(u, b, len, PB_CP_IP, CP_PORT, now, cap_send, NULL);
}

/* Encode M and feed it; the cause of the answer. */
static int
feed_msg(struct pfcp_up *u, const struct pfcp_msg *m, uint64_t now)
{
	int n = pfcp_msg_encode(m, buf, sizeof(buf));
	unsigned before = n_sent;

	if (n < 0)
		return -2;
	feed(u, buf, (size_t)n, now);
	if (n_sent == before)
		return -1;
	return last_cause();
}

static bool
live_consistent(const struct pfcp_up *u)
{
	struct pfcp_up_stats st;

	pfcp_up_stats_get(u, &st);
	return st.sub_sessions == F.live;
}

/* The UP F-SEID of the last datagram sent (an establishment response), 0 if none. */
static uint64_t
up_seid_of_last(void)
{
	if (last_cause() != PFCP_CAUSE_REQUEST_ACCEPTED)
		return 0;
	return (M2.present & PFCP_M_F_SEID) ? M2.fseid.seid : 0;
}

static void
associate(struct pfcp_up *u, uint64_t now)
{
	feed(u, v_assoc_req, sizeof(v_assoc_req), now);
}

/* Establish the default subscriber with CP SEID seid; returns the UP SEID (0 if refused). */
static uint64_t
establish(struct pfcp_up *u, const struct pb_sub *s, uint64_t seid, uint32_t seq, uint64_t now)
{
	pb_establish(&M, s, seid, seq);
	if (feed_msg(u, &M, now) != PFCP_CAUSE_REQUEST_ACCEPTED)
		return 0;
	return up_seid_of_last();
}

/* Patch the UP SEID of a vector (header or F-SEID at offset off). */
static void
put64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

/* ---- codec: header ----------------------------------------------------------------------------
 */

static void
test_header(void)
{
	struct pfcp_hdr h;
	uint8_t b[32];

	CHECK(pfcp_hdr_decode(v_hb_req, sizeof(v_hb_req), &h) == PFCP_OK, "hdr node ok");
	CHECK(h.type == 1 && h.seq == 0x102 && h.hdr_len == 8 && h.msg_len == 16 && h.flags == 0,
	      "hdr node fields");
	CHECK(pfcp_hdr_decode(v_del_req, sizeof(v_del_req), &h) == PFCP_OK, "hdr sess ok");
	CHECK(h.seid == UP_SEID_V && h.seq == 10 && h.hdr_len == 16 && (h.flags & PFCP_FLAG_S),
	      "hdr sess fields");
	for (size_t l = 0; l < sizeof(v_del_req); l++)
		CHECK(pfcp_hdr_decode(v_del_req, l, &h) == PFCP_EHDR, "hdr truncated to %zu", l);
	memcpy(b, v_hb_req, sizeof(v_hb_req));
	b[0] = 0x40; /* version 2 */
	CHECK(pfcp_hdr_decode(b, sizeof(v_hb_req), &h) == PFCP_EVERSION && h.seq == 0x102,
	      "hdr version 2");
	memcpy(b, v_hb_req, sizeof(v_hb_req));
	b[3] = 3; /* length shorter than the header */
	CHECK(pfcp_hdr_decode(b, sizeof(v_hb_req), &h) == PFCP_EHDR, "hdr length < header");
	b[3] = 200; /* longer than the datagram */
	CHECK(pfcp_hdr_decode(b, sizeof(v_hb_req), &h) == PFCP_EHDR, "hdr length > datagram");
	memcpy(b, v_hb_req, sizeof(v_hb_req));
	b[0] |= PFCP_FLAG_MP;
	b[7] = 0xa0;
	CHECK(pfcp_hdr_decode(b, sizeof(v_hb_req), &h) == PFCP_OK && h.priority == 10, "hdr MP");
	b[0] |= PFCP_FLAG_S; /* S=1 but only 16 octets in all */
	CHECK(pfcp_hdr_decode(b, sizeof(v_hb_req), &h) == PFCP_OK && h.hdr_len == 16,
	      "hdr S, exactly the header");
	CHECK(pfcp_hdr_decode(b, 15, &h) == PFCP_EHDR, "hdr S, short");
}

/* ---- codec: decoding the vectors --------------------------------------------------------------
 */

static void
test_decode_vectors(void)
{
	struct pfcp_derr e;
	const struct pfcp_pdr *up, *dn;
	const struct pfcp_far *fd;

	CHECK(pfcp_msg_decode(v_assoc_req, sizeof(v_assoc_req), &M, &e) == PFCP_OK, "assoc dec");
	CHECK(M.node_id.type == PFCP_NODE_ID_IPV4 && M.node_id.ipv4 == PB_CP_IP &&
		      M.recovery_ts == PB_CP_RECOVERY && (M.present & PFCP_M_CP_FEATURES),
	      "assoc fields");

	CHECK(pfcp_msg_decode(v_est_req, sizeof(v_est_req), &M, &e) == PFCP_OK, "est dec");
	CHECK(M.n_ies == 54 && M.n_skipped == 0 && M.n_dup == 0, "est ie count %u", M.n_ies);
	CHECK(M.fseid.seid == 0x1001 && M.fseid.flags == PFCP_FSEID_V4 && M.fseid.ipv4 == PB_CP_IP,
	      "est f-seid");
	CHECK(M.n_create_pdr == 2 && M.n_create_far == 2 && M.n_create_qer == 1 &&
		      M.n_create_urr == 1,
	      "est counts");
	up = &M.create_pdr[0];
	dn = &M.create_pdr[1];
	CHECK(up->id == 1 && up->precedence == 100 && up->far_id == 1 && up->n_urr == 1 &&
		      up->urr_id[0] == 1 && up->n_qer == 1 && up->qer_id[0] == 1,
	      "est up pdr");
	CHECK(up->bbf_ohr == 3 && (up->present & PFCP_PDR_BBF_OHR), "est up bbf ohr");
	CHECK(up->pdi.src_if == PFCP_IF_ACCESS && up->pdi.pppoe_sid == 0x0107 &&
		      up->pdi.lport.len == 7 && memcmp(up->pdi.lport.v, "access1", 7) == 0,
	      "est up pdi");
	CHECK(up->pdi.ppp.flags == PFCP_BBF_PPP_SPECIFIC && up->pdi.ppp.proto == 0x0021,
	      "est up ppp proto");
	CHECK(up->pdi.eth.stag.vid == 100 && up->pdi.eth.ctag.vid == 7 &&
		      up->pdi.eth.ethertype == 0x8864 && up->pdi.eth.mac.flags == PFCP_MAC_SOUR &&
		      up->pdi.eth.mac.src[5] == 7,
	      "est up eth");
	CHECK(dn->pdi.src_if == PFCP_IF_CORE && dn->pdi.ue_ip.ipv4 == 0x64500007 &&
		      dn->pdi.ue_ip.flags == (PFCP_UEIP_V4 | PFCP_UEIP_SD),
	      "est dn pdi");
	fd = &M.create_far[1];
	CHECK(fd->id == 2 && fd->apply == PFCP_APPLY_FORW && fd->fwd.dst_if == PFCP_IF_ACCESS,
	      "est dn far");
	CHECK(fd->fwd.bbf_ohc.desc == PFCP_BBF_OHC_TRAFFIC_ENDPOINT && fd->fwd.bbf_ohc.has_ids &&
		      fd->fwd.bbf_ohc.session_id == 0x0107 && fd->fwd.bbf_ohc.tunnel_id == 0,
	      "est bbf ohc");
	CHECK(fd->fwd.policy.len == 4 && memcmp(fd->fwd.policy.v, "gold", 4) == 0, "est policy");
	CHECK(M.create_qer[0].mbr_ul == 10000 && M.create_qer[0].mbr_dl == 50000 &&
		      M.create_qer[0].gbr_ul == 2000 && M.create_qer[0].gbr_dl == 0,
	      "est qer");
	CHECK(M.create_urr[0].method == 3 && M.create_urr[0].triggers == PFCP_RT_PERIO &&
		      M.create_urr[0].period == 60,
	      "est urr");
	CHECK(M.bbf_mtu == 1492 && M.lcp.interval == 30 && M.lcp.count == 3 &&
		      M.lcp.magic_tx == 0x11223344 && M.lcp.magic_rx == 0x55667788,
	      "est mtu lcp");

	CHECK(pfcp_msg_decode(v_default_req, sizeof(v_default_req), &M, &e) == PFCP_OK,
	      "default dec");
	CHECK(M.n_create_pdr == 3 && M.create_pdr[1].pdi.ppp.flags == PFCP_BBF_PPP_CONTROL &&
		      M.create_far[0].fwd.ohc.desc == PFCP_OHC_UDP_IPV4 &&
		      M.create_far[0].fwd.ohc.ipv4 == PB_CP_IP &&
		      M.create_far[0].fwd.ohc.port == 4789 &&
		      M.create_far[0].fwd.dst_if == PFCP_IF_CP_FUNCTION,
	      "default fields");

	CHECK(pfcp_msg_decode(v_mod_req, sizeof(v_mod_req), &M, &e) == PFCP_OK, "mod dec");
	CHECK(M.n_update_far == 1 && M.update_far[0].fwd.policy.len == 6 && M.n_update_qer == 1 &&
		      M.update_qer[0].mbr_dl == 100000 && M.n_query_urr == 1 && M.query_urr[0] == 1,
	      "mod fields");

	CHECK(pfcp_msg_decode(v_del_rsp, sizeof(v_del_rsp), &M, &e) == PFCP_OK, "delrsp dec");
	CHECK(M.n_usage == 1 && M.usage[0].ie_type == PFCP_IE_USAGE_REPORT_SDR &&
		      M.usage[0].trigger == PFCP_URT_TERMR && M.usage[0].vol.flags == 0x3f &&
		      M.usage[0].vol.ul == 3000 && M.usage[0].vol.dl_pkts == 90 &&
		      M.usage[0].duration == 30 && M.usage[0].end_time == NTP0 + 130,
	      "delrsp usage");
	CHECK((M.usage[0].present & PFCP_UR_DROPPED) && M.usage[0].dropped_ul == 2 &&
		      M.usage[0].dropped_dl == 5 && M.n_skipped == 0,
	      "delrsp dropped packets");
	CHECK((M.usage[0].present & PFCP_UR_DROPPED_BYTES) && M.usage[0].dropped_ul_bytes == 200 &&
		      M.usage[0].dropped_dl_bytes == 7500,
	      "delrsp dropped octets");

	CHECK(pfcp_msg_decode(v_dead_req, sizeof(v_dead_req), &M, &e) == PFCP_OK, "dead dec");
	CHECK(M.report_type == PFCP_REPORT_UPIR && (M.present & PFCP_M_BBF_LCP) && M.lcp.count == 3,
	      "dead fields");
}

/* The bngpod Dropped Packets IE: the 32-octet form (packets, octets) and the 16-octet one
 * (packets only, as bngpod sent it before) are read; of another length, repeated or outside a
 * Usage Report it is skipped and counted, and the message stands. */
#define DROPPED_IE_N 38 /* the 32-octet form's IE, type to last octet */
static void
test_dropped_ie(void)
{
	static const uint8_t ie_short[] = {0x80, 0x03, 0x00, 0x11, 0x7e, 0xd9, 0, 0, 0, 0, 0,
					   0,	 0,    9,    0,	   0,	 0,    0, 0, 0, 0};
	uint8_t v[sizeof(v_report_req) + 64];
	size_t n = sizeof(v_report_req);
	struct pfcp_derr e;

	/* both forms */
	CHECK(pfcp_msg_decode(v_report_req, sizeof(v_report_req), &M, &e) == PFCP_OK &&
		      M.n_usage == 1 &&
		      (M.usage[0].present & (PFCP_UR_DROPPED | PFCP_UR_DROPPED_BYTES)) ==
			      (PFCP_UR_DROPPED | PFCP_UR_DROPPED_BYTES) &&
		      M.usage[0].dropped_ul == 4 && M.usage[0].dropped_dl == 7 &&
		      M.usage[0].dropped_ul_bytes == 400 && M.usage[0].dropped_dl_bytes == 10500 &&
		      M.n_skipped == 0,
	      "dropped IE, 32 octets: packets and octets");
	CHECK(pfcp_msg_decode(v_report_req_pkts, sizeof(v_report_req_pkts), &M, &e) == PFCP_OK &&
		      M.n_usage == 1 && (M.usage[0].present & PFCP_UR_DROPPED) &&
		      !(M.usage[0].present & PFCP_UR_DROPPED_BYTES) && M.usage[0].dropped_ul == 4 &&
		      M.usage[0].dropped_dl == 7 && M.usage[0].dropped_ul_bytes == 0 &&
		      M.usage[0].dropped_dl_bytes == 0 && M.n_skipped == 0 &&
		      M.usage[0].vol.ul == 1000,
	      "dropped IE, 16 octets: packets only, still read");

	/* the IE's length 34 -> 17 (usage report and header shrink too) */
	memcpy(v, v_report_req, n - DROPPED_IE_N);
	memcpy(v + n - DROPPED_IE_N, ie_short, sizeof(ie_short));
	n = n - DROPPED_IE_N + sizeof(ie_short);
	v[3] = (uint8_t)(n - 4);
	v[24] = (uint8_t)(v[24] - (DROPPED_IE_N - sizeof(ie_short)));
	CHECK(pfcp_msg_decode(v, n, &M, &e) == PFCP_OK && M.n_usage == 1 &&
		      !(M.usage[0].present & PFCP_UR_DROPPED) && M.n_skipped == 1 &&
		      M.usage[0].vol.ul == 1000,
	      "short dropped IE skipped");

	/* 24 octets (packets and half of the octets): neither form, skipped */
	n = sizeof(v_report_req) - 8;
	memcpy(v, v_report_req, n);
	v[n - DROPPED_IE_N + 8 + 3] = 0x1a;
	v[3] = (uint8_t)(n - 4);
	v[24] = (uint8_t)(v[24] - 8);
	CHECK(pfcp_msg_decode(v, n, &M, &e) == PFCP_OK && M.n_usage == 1 &&
		      !(M.usage[0].present & (PFCP_UR_DROPPED | PFCP_UR_DROPPED_BYTES)) &&
		      M.n_skipped == 1 && M.usage[0].vol.ul == 1000,
	      "24-octet dropped IE skipped");

	/* repeated: the first wins, the second is counted */
	n = sizeof(v_report_req);
	memcpy(v, v_report_req, n);
	memcpy(v + n, v_report_req + n - DROPPED_IE_N, DROPPED_IE_N);
	v[n + 13] = 99;
	v[n + 37] = 99;
	n += DROPPED_IE_N;
	v[3] = (uint8_t)(n - 4);
	v[24] = (uint8_t)(v[24] + DROPPED_IE_N);
	CHECK(pfcp_msg_decode(v, n, &M, &e) == PFCP_OK && M.n_usage == 1 &&
		      M.usage[0].dropped_ul == 4 && M.usage[0].dropped_dl_bytes == 10500 &&
		      M.n_skipped == 1,
	      "repeated dropped IE: first wins");

	/* at the message level: skipped */
	n = sizeof(v_report_req);
	memcpy(v, v_report_req, n);
	memcpy(v + n, v_report_req + n - DROPPED_IE_N, DROPPED_IE_N);
	n += DROPPED_IE_N;
	v[3] = (uint8_t)(n - 4);
	CHECK(pfcp_msg_decode(v, n, &M, &e) == PFCP_OK && M.n_usage == 1 &&
		      M.usage[0].dropped_dl == 7 && M.n_skipped == 1,
	      "dropped IE at the top level skipped");

	/* the encoder writes what the decoder read, in either form */
	CHECK(pfcp_msg_decode(v_report_req, sizeof(v_report_req), &M, &e) == PFCP_OK &&
		      pfcp_msg_encode(&M, v, sizeof(v)) == (int)sizeof(v_report_req) &&
		      memcmp(v, v_report_req, sizeof(v_report_req)) == 0,
	      "dropped IE round trip");
	CHECK(pfcp_msg_decode(v_report_req_pkts, sizeof(v_report_req_pkts), &M, &e) == PFCP_OK &&
		      pfcp_msg_encode(&M, v, sizeof(v)) == (int)sizeof(v_report_req_pkts) &&
		      memcmp(v, v_report_req_pkts, sizeof(v_report_req_pkts)) == 0,
	      "16-octet dropped IE round trip");
}

/* ---- codec: what the builders and the encoder write ---------------------------------------- */

static bool
encodes_to(const struct pfcp_msg *m, const uint8_t *want, size_t wlen)
{
	int n = pfcp_msg_encode(m, buf, sizeof(buf));

	if (n != (int)wlen || memcmp(buf, want, wlen) != 0) {
		printf("  encoded %d octets, want %zu\n", n, wlen);
		return false;
	}
	return true;
}

static void
test_encode_vectors(void)
{
	struct pb_sub s = pb_sub_default();

	pb_establish(&M, &s, 0x1001, 7);
	CHECK(encodes_to(&M, v_est_req, sizeof(v_est_req)), "builder est == vector");
	pb_default(&M, 1, 8, PB_CP_IP, 4789);
	CHECK(encodes_to(&M, v_default_req, sizeof(v_default_req)), "builder default == vector");
	pb_modify_coa(&M, UP_SEID_V, 9, "silver", 20000, 100000, 1);
	CHECK(encodes_to(&M, v_mod_req, sizeof(v_mod_req)), "builder mod == vector");
	pb_delete(&M, UP_SEID_V, 10);
	CHECK(encodes_to(&M, v_del_req, sizeof(v_del_req)), "builder del == vector");
	pb_report_rsp(&M, UP_SEID_V, 1, 1);
	CHECK(encodes_to(&M, v_report_rsp, sizeof(v_report_rsp)), "builder report rsp == vector");
	CHECK(pfcp_msg_encode(&M, buf, sizeof(v_report_rsp) - 1) == -ENOSPC, "encode overflow");
	for (size_t cap = 0; cap < sizeof(v_est_req); cap += 7) {
		pb_establish(&M, &s, 0x1001, 7);
		CHECK(pfcp_msg_encode(&M, buf, cap) == -ENOSPC, "encode est into %zu", cap);
	}
}

/* Every field the encoder knows, twice where it can repeat. */
static void
fill_everything(struct pfcp_msg *m)
{
	struct pb_sub s = pb_sub_default();

	pb_establish(m, &s, 0x1122334455667788ull, 0xabcdef);
	m->h.flags |= PFCP_FLAG_MP;
	m->h.priority = 5;
	m->present |= PFCP_M_CAUSE | PFCP_M_OFFENDING_IE | PFCP_M_RECOVERY_TS | PFCP_M_UP_FEATURES |
		      PFCP_M_CP_FEATURES | PFCP_M_BBF_UP_FEATURES | PFCP_M_REPORT_TYPE |
		      PFCP_M_SMREQ_FLAGS | PFCP_M_FAILED_RULE;
	m->node_id.type = PFCP_NODE_ID_FQDN;
	pb_str(&m->node_id.fqdn, "cp1.bngpod.example");
	m->node_id.ipv4 = 0;
	m->cause = 69;
	m->offending_ie = 57;
	m->fseid.flags = PFCP_FSEID_V4 | PFCP_FSEID_V6;
	m->fseid.ipv6[15] = 1;
	m->recovery_ts = 0xdeadbeef;
	m->up_features_len = 3;
	m->up_features[2] = 0x10;
	m->cp_features_len = 1;
	m->cp_features[0] = 1;
	m->bbf_up_features_len = 4;
	m->bbf_up_features[0] = 0x11;
	m->report_type = PFCP_REPORT_USAR | PFCP_REPORT_UPIR;
	m->smreq_flags = PFCP_SMREQ_QAURR;
	m->failed_rule.type = PFCP_RULE_FAR;
	m->failed_rule.id = 0x01020304;
	m->create_pdr[0].present |= PFCP_PDR_OHR;
	m->create_pdr[0].ohr = PFCP_OHR_STAG_CTAG;
	m->create_pdr[0].pdi.present |= PFCP_PDI_NETINST | PFCP_PDI_UE_IP;
	pb_str(&m->create_pdr[0].pdi.netinst, "internet");
	m->create_pdr[0].pdi.ue_ip.flags = PFCP_UEIP_V4 | PFCP_UEIP_V6;
	m->create_pdr[0].pdi.ue_ip.ipv4 = 0x64500007;
	m->create_pdr[0].pdi.ue_ip.ipv6[0] = 0x20;
	m->create_pdr[0].pdi.eth.present |= PFCP_EF_ID | PFCP_EF_PROPS;
	m->create_pdr[0].pdi.eth.filter_id = 77;
	m->create_pdr[0].pdi.eth.props = 1;
	m->create_pdr[0].pdi.eth.mac.flags = 0x0f;
	m->create_pdr[0].pdi.eth.mac.udst[0] = 0xaa;
	m->create_pdr[0].pdi.eth.ctag.flags = 0x07;
	m->create_pdr[0].pdi.eth.ctag.pcp = 5;
	m->create_pdr[0].pdi.eth.ctag.dei = 1;
	m->create_pdr[0].pdi.eth.stag.vid = 4094;
	m->create_pdr[0].urr_id[m->create_pdr[0].n_urr++] = 9;
	m->create_pdr[0].qer_id[m->create_pdr[0].n_qer++] = 8;
	m->create_far[0].fwd.present |= PFCP_FWD_NETINST | PFCP_FWD_OHC;
	pb_str(&m->create_far[0].fwd.netinst, "core");
	m->create_far[0].fwd.ohc.desc =
		PFCP_OHC_GTPU_UDP_IPV4 | PFCP_OHC_UDP_IPV6 | PFCP_OHC_CTAG | PFCP_OHC_STAG;
	m->create_far[0].fwd.ohc.teid = 0x01020304;
	m->create_far[0].fwd.ohc.ipv4 = 0x0a000001;
	m->create_far[0].fwd.ohc.ipv6[3] = 9;
	m->create_far[0].fwd.ohc.port = 2152;
	m->create_far[0].fwd.ohc.ctag = 0x040007;
	m->create_far[0].fwd.ohc.stag = 0x040064;
	m->create_far[0].apply = PFCP_APPLY_FORW | 0x0100;
	m->create_urr[0].present |= PFCP_URR_VOL_THRESH | PFCP_URR_MEAS_INFO;
	m->create_urr[0].triggers = PFCP_RT_PERIO | PFCP_RT_VOLTH | 0x010000;
	m->create_urr[0].vol_thresh.flags = 0x07;
	m->create_urr[0].vol_thresh.total = 1ull << 40;
	m->create_urr[0].vol_thresh.ul = 3;
	m->create_urr[0].vol_thresh.dl = 4;
	m->create_urr[0].meas_info = PFCP_MEASINFO_MNOP;
	m->create_qer[0].gate_ul = 1;
	m->create_qer[0].gate_dl = 1;
	m->create_qer[0].mbr_ul = (1ull << 40) - 1;
	m->update_pdr[m->n_update_pdr++] = m->create_pdr[1];
	m->update_far[m->n_update_far++] = m->create_far[1];
	m->update_qer[m->n_update_qer++] = m->create_qer[0];
	m->update_urr[m->n_update_urr] = m->create_urr[0];
	m->update_urr[m->n_update_urr].present &=
		~(uint32_t)(PFCP_URR_PERIOD | PFCP_URR_VOL_THRESH);
	m->update_urr[m->n_update_urr].present |= PFCP_URR_PERIOD_DEL | PFCP_URR_VOL_THRESH_DEL;
	m->update_urr[m->n_update_urr].period = 0;
	memset(&m->update_urr[m->n_update_urr].vol_thresh, 0, sizeof(struct pfcp_volume));
	m->n_update_urr++;
	m->remove_pdr[m->n_remove_pdr++] = 0xffff;
	m->remove_far[m->n_remove_far++] = 5;
	m->remove_qer[m->n_remove_qer++] = 6;
	m->remove_urr[m->n_remove_urr++] = 7;
	m->query_urr[m->n_query_urr++] = 8;
	m->query_urr[m->n_query_urr++] = 9;
	for (int i = 0; i < 2; i++) {
		struct pfcp_usage_report *r = &m->usage[m->n_usage++];

		r->ie_type = i ? PFCP_IE_USAGE_REPORT_SRR : PFCP_IE_USAGE_REPORT_SMR;
		r->present = 0x1ff;
		r->urr_id = 1;
		r->seqn = 2;
		r->trigger = PFCP_URT_TERMR | PFCP_URT_PERIO | 0x200000;
		r->start_time = 3;
		r->end_time = 4;
		r->duration = 5;
		r->first_pkt = 6;
		r->last_pkt = 7;
		r->vol.flags = 0x3f;
		r->vol.total = 8;
		r->vol.ul = 9;
		r->vol.dl = 10;
		r->vol.total_pkts = 11;
		r->vol.ul_pkts = 12;
		r->vol.dl_pkts = 13;
	}
}

static void
test_round_trip(void)
{
	struct pfcp_derr e;
	int n;

	fill_everything(&M);
	n = pfcp_msg_encode(&M, buf, sizeof(buf));
	CHECK(n > 0, "rt encode %d", n);
	CHECK(pfcp_msg_decode(buf, (size_t)n, &M2, &e) == PFCP_OK, "rt decode cause %u ie %u",
	      e.cause, e.offending_ie);
	/* what the decoder adds */
	M.h = M2.h;
	M.n_ies = M2.n_ies;
	CHECK(M2.n_skipped == 0 && M2.n_dup == 0, "rt nothing skipped");
	CHECK(memcmp(&M, &M2, sizeof(M)) == 0, "rt every field");
	for (size_t off = 0; off < sizeof(M); off++)
		if (((uint8_t *)&M)[off] != ((uint8_t *)&M2)[off]) {
			printf("  first difference at struct offset %zu\n", off);
			break;
		}
}

/* ---- codec: hostile input -----------------------------------------------------------------------
 */

static size_t
ie_put(uint8_t *p, uint16_t type, const void *v, uint16_t len)
{
	p[0] = (uint8_t)(type >> 8);
	p[1] = (uint8_t)type;
	p[2] = (uint8_t)(len >> 8);
	p[3] = (uint8_t)len;
	memcpy(p + 4, v, len);
	return 4u + len;
}

/* A node message of type t with the given IE bytes. */
static size_t
node_msg(uint8_t *b, uint8_t t, const uint8_t *ies, size_t n)
{
	b[0] = 0x20;
	b[1] = t;
	b[2] = (uint8_t)((n + 4) >> 8);
	b[3] = (uint8_t)(n + 4);
	b[4] = 0;
	b[5] = 0;
	b[6] = 1;
	b[7] = 0;
	memcpy(b + 8, ies, n);
	return n + 8;
}

static int
dec_ies(const uint8_t *ies, size_t n, struct pfcp_derr *e)
{
	static uint8_t b[70000];
	size_t l = node_msg(b, PFCP_ASSOC_SETUP_REQ, ies, n);

	return pfcp_msg_decode(b, l, &M, e);
}

static void
test_malformed(void)
{
	static uint8_t t[70000];
	static uint8_t ies[70000];
	struct pfcp_derr e;
	size_t n;
	int rc;

	/* every truncation of the establishment request, with a consistent header */
	for (size_t l = PFCP_HDR_LEN_SESS; l < sizeof(v_est_req); l++) {
		memcpy(t, v_est_req, l);
		t[2] = (uint8_t)((l - 4) >> 8);
		t[3] = (uint8_t)(l - 4);
		rc = pfcp_msg_decode(t, l, &M, &e);
		CHECK(rc == PFCP_OK || (rc == PFCP_EIE && e.cause == PFCP_CAUSE_INVALID_LENGTH),
		      "truncated est at %zu: rc %d cause %u", l, rc, e.cause);
	}
	/* a byte flipped anywhere: never a crash, only OK or a cause */
	for (size_t i = 0; i < sizeof(v_est_req); i++) {
		for (int bit = 0; bit < 8; bit++) {
			memcpy(t, v_est_req, sizeof(v_est_req));
			t[i] ^= (uint8_t)(1u << bit);
			rc = pfcp_msg_decode(t, sizeof(v_est_req), &M, &e);
			if (rc == PFCP_EIE && (e.cause < 64 || e.cause > 76))
				CHECK(false, "bitflip %zu.%d cause %u", i, bit, e.cause);
		}
	}
	/* an IE longer than the message */
	n = ie_put(ies, PFCP_IE_NODE_ID, "\x00\x0a\x00\x00\x01", 5);
	ies[n - 6] = 9;
	rc = dec_ies(ies, n, &e);
	CHECK(rc == PFCP_EIE && e.cause == 68 && e.offending_ie == PFCP_IE_NODE_ID,
	      "ie past message");
	/* a child longer than its grouped IE */
	{
		uint8_t pdi[16], pdr[32];
		size_t k = ie_put(pdi, PFCP_IE_SOURCE_INTERFACE, "\x00", 1);

		pdi[3] = 2; /* the source interface claims 2 octets; the PDI holds 1 */
		k = ie_put(pdr, PFCP_IE_PDI, pdi, (uint16_t)k);
		n = ie_put(ies, PFCP_IE_CREATE_PDR, pdr, (uint16_t)k);
		rc = dec_ies(ies, n, &e);
		CHECK(rc == PFCP_EIE && e.cause == 68 && e.offending_ie == PFCP_IE_SOURCE_INTERFACE,
		      "child past group: cause %u ie %u", e.cause, e.offending_ie);
	}
	/* three octets left over after the last IE */
	n = ie_put(ies, PFCP_IE_RECOVERY_TIME_STAMP, "\x01\x02\x03\x04", 4);
	rc = dec_ies(ies, n + 3, &e);
	CHECK(rc == PFCP_EIE && e.cause == 68, "trailing octets");
	/* too short for its fixed fields */
	n = ie_put(ies, PFCP_IE_F_SEID, "\x02\x00\x00\x00\x00\x00\x00\x00\x01", 9);
	rc = dec_ies(ies, n, &e);
	CHECK(rc == PFCP_EIE && e.cause == 68 && e.offending_ie == PFCP_IE_F_SEID,
	      "f-seid v4 without address");
	n = ie_put(ies, PFCP_IE_F_SEID, "\x00\x00\x00\x00\x00\x00\x00\x00\x01", 9);
	rc = dec_ies(ies, n, &e);
	CHECK(rc == PFCP_EIE && e.cause == 69 && e.offending_ie == PFCP_IE_F_SEID,
	      "f-seid without address");
	n = ie_put(ies, PFCP_IE_NODE_ID, "\x05\x01\x02\x03\x04", 5);
	rc = dec_ies(ies, n, &e);
	CHECK(rc == PFCP_EIE && e.cause == 69, "node id type 5");
	n = ie_put(ies, PFCP_IE_NODE_ID,
		   "\x02\x05"
		   "ab",
		   4);
	rc = dec_ies(ies, n, &e);
	CHECK(rc == PFCP_EIE && e.cause == 69, "fqdn label past the IE");
	n = ie_put(ies, PFCP_IE_NODE_ID,
		   "\x02\x02"
		   "cp\x03"
		   "dp1\x00",
		   9);
	rc = dec_ies(ies, n, &e);
	CHECK(rc == PFCP_OK && M.node_id.fqdn.len == 6 &&
		      memcmp(M.node_id.fqdn.v, "cp.dp1", 6) == 0,
	      "fqdn with root label");
	/* a vendor IE too short for its enterprise id */
	n = ie_put(ies, 0x8005, "\x0d", 1);
	rc = dec_ies(ies, n, &e);
	CHECK(rc == PFCP_EIE && e.cause == 68 && e.offending_ie == 0x8005, "vendor ie 1 octet");
	/* unknown, other-enterprise, unknown BBF: skipped */
	n = ie_put(ies, 999, "xyz", 3);
	n += ie_put(ies + n, 0x8001,
		    "\x00\x01"
		    "abc",
		    5);
	n += ie_put(ies + n, 32799,
		    "\x0d\xe9"
		    "abc",
		    5);
	n += ie_put(ies + n, PFCP_IE_RECOVERY_TIME_STAMP, "\x01\x02\x03\x04", 4);
	rc = dec_ies(ies, n, &e);
	CHECK(rc == PFCP_OK && M.n_skipped == 3 && M.recovery_ts == 0x01020304, "skipped %u",
	      M.n_skipped);
	/* a repeated single-instance IE: the first wins */
	n = ie_put(ies, PFCP_IE_RECOVERY_TIME_STAMP, "\x01\x02\x03\x04", 4);
	n += ie_put(ies + n, PFCP_IE_RECOVERY_TIME_STAMP, "\x09\x09\x09\x09", 4);
	rc = dec_ies(ies, n, &e);
	CHECK(rc == PFCP_OK && M.n_dup == 1 && M.recovery_ts == 0x01020304, "duplicate");
	/* caps */
	n = 0;
	for (int i = 0; i < PFCP_MAX_RULES + 1; i++)
		n += ie_put(ies + n, PFCP_IE_REMOVE_FAR, "\x00\x6c\x00\x04\x00\x00\x00\x01", 8);
	rc = dec_ies(ies, n, &e);
	CHECK(rc == PFCP_EIE && e.cause == 75 && e.offending_ie == PFCP_IE_REMOVE_FAR,
	      "17 remove far");
	n = 0;
	for (int i = 0; i < PFCP_MAX_IES + 1; i++)
		n += ie_put(ies + n, 999, "", 0);
	rc = dec_ies(ies, n, &e);
	CHECK(rc == PFCP_EIE && e.cause == 75, "ie budget");
	{
		uint8_t pdr[64];
		size_t k = 0;

		for (int i = 0; i < PFCP_MAX_PDR_URRS + 1; i++)
			k += ie_put(pdr + k, PFCP_IE_URR_ID, "\x00\x00\x00\x01", 4);
		n = ie_put(ies, PFCP_IE_CREATE_PDR, pdr, (uint16_t)k);
		rc = dec_ies(ies, n, &e);
		CHECK(rc == PFCP_EIE && e.cause == 75 && e.offending_ie == PFCP_IE_URR_ID,
		      "5 urr ids");
	}
	n = ie_put(ies, PFCP_IE_REMOVE_PDR, "\x00\x6c\x00\x04\x00\x00\x00\x01", 8);
	rc = dec_ies(ies, n, &e);
	CHECK(rc == PFCP_EIE && e.cause == 66 && e.offending_ie == PFCP_IE_PDR_ID,
	      "remove pdr without pdr id");
	/* a string IE longer than the cap */
	memset(t, 'a', 300);
	n = ie_put(ies, PFCP_IE_BBF_LOGICAL_PORT, "\x0d\xe9", 2);
	memcpy(ies + 4 + 2, t, 300);
	ies[2] = (uint8_t)(302 >> 8);
	ies[3] = (uint8_t)302;
	{
		uint8_t pdr[400];
		size_t k = ie_put(pdr, PFCP_IE_PDI, ies, 306);

		n = ie_put(t, PFCP_IE_CREATE_PDR, pdr, (uint16_t)k);
		rc = dec_ies(t, n, &e);
		CHECK(rc == PFCP_EIE && e.cause == 75 && e.offending_ie == PFCP_IE_BBF_LOGICAL_PORT,
		      "logical port of 300 octets");
	}
	/* Update URR: null-length Measurement Period removes it */
	{
		uint8_t urr[32];
		size_t k = ie_put(urr, PFCP_IE_URR_ID, "\x00\x00\x00\x01", 4);

		k += ie_put(urr + k, PFCP_IE_MEASUREMENT_PERIOD, "", 0);
		n = ie_put(ies, PFCP_IE_UPDATE_URR, urr, (uint16_t)k);
		rc = dec_ies(ies, n, &e);
		CHECK(rc == PFCP_OK && (M.update_urr[0].present & PFCP_URR_PERIOD_DEL), "urr del");
	}
}

/* ---- UP function
 * ---------------------------------------------------------------------------------- */

static void
test_up_basics(void)
{
	struct pfcp_up_conf c = conf_default(16);
	struct pfcp_up *u = mk_up(&c);
	struct pfcp_up_stats st;
	uint8_t want[sizeof(v_est_rsp)];
	uint8_t b[64];

	CHECK(u != NULL, "create");
	CHECK(pfcp_up_input(u, v_hb_req, sizeof(v_hb_req), 0x0a000099, CP_PORT, 0, cap_send,
			    NULL) == 0 &&
		      n_sent == 0,
	      "not allowed peer dropped");
	/* a session before any association: cause 72, CP SEID in the header (another
	 * sequence number than the vector's, which would be a retransmission) */
	{
		uint8_t e2[sizeof(v_est_req)];

		memcpy(e2, v_est_req, sizeof(e2));
		e2[14] = 0x06;
		CHECK(feed(u, e2, sizeof(e2), 1000) == 1 && last_cause() == 72 &&
			      M2.h.seid == 0x1001 && M2.h.seq == 6 &&
			      M2.h.type == PFCP_SESS_EST_RSP,
		      "est without association");
	}
	/* heartbeat without association, byte for byte */
	feed(u, v_hb_req, sizeof(v_hb_req), 1000);
	CHECK(last()->len == sizeof(v_hb_rsp) && memcmp(last()->b, v_hb_rsp, sizeof(v_hb_rsp)) == 0,
	      "heartbeat response == vector");
	CHECK(last()->ip == PB_CP_IP && last()->port == CP_PORT, "response goes to the requester");
	associate(u, 1000);
	CHECK(last()->len == sizeof(v_assoc_rsp) &&
		      memcmp(last()->b, v_assoc_rsp, sizeof(v_assoc_rsp)) == 0,
	      "association response == vector");
	CHECK(F.state == UP_CP_ASSOCIATED && F.states == 1, "cp state associated");
	/* the subscriber vector */
	feed(u, v_est_req, sizeof(v_est_req), 1000);
	memcpy(want, v_est_rsp, sizeof(want));
	CHECK(last_cause() == 1, "est accepted");
	put64(want + sizeof(want) - 12, up_seid_of_last());
	CHECK(last()->len == sizeof(want) && memcmp(last()->b, want, sizeof(want)) == 0,
	      "est response == vector");
	CHECK((up_seid_of_last() & 0xffffffffu) == 1, "first slot");
	CHECK(F.installs == 1 && F.live == 1 && live_consistent(u), "installed once");
	CHECK(strcmp(F.last.logical_port, "access1") == 0 && F.last.stag == 100 &&
		      F.last.ctag == 7 && F.last.mac[0] == 2 && F.last.mac[5] == 7 &&
		      F.last.pppoe_sid == 0x0107 && F.last.ipv4 == 0x64500007,
	      "sub keys");
	CHECK(F.last.mtu == 1492 && F.last.mbr_ul == 10000000 && F.last.mbr_dl == 50000000 &&
		      F.last.gbr_ul == 2000000 && F.last.gbr_dl == 0 &&
		      strcmp(F.last.qos_profile, "gold") == 0,
	      "sub rates");
	CHECK(F.last.lcp_offload && F.last.lcp_magic == 0x11223344 &&
		      F.last.lcp_peer_magic == 0x55667788 && F.last.echo_interval_s == 30 &&
		      F.last.echo_misses == 3 && F.last.urr_period_s == 60,
	      "sub lcp urr");
	/* the same request again (a retransmission): the cached answer, nothing applied */
	feed(u, v_est_req, sizeof(v_est_req), 1500);
	CHECK(F.installs == 1 && last()->len == sizeof(want) &&
		      memcmp(last()->b, want, sizeof(want)) == 0,
	      "retransmission answered from the cache");
	pfcp_up_stats_get(u, &st);
	CHECK(st.retrans_rx == 1 && st.rx[PFCP_SESS_EST_REQ] == 3 && st.sub_sessions == 1,
	      "retransmission counted");
	/* the same sequence number with other contents is a new request, not a
	 * retransmission (a restarted CP numbers its requests from 1 again) */
	memcpy(b, v_hb_req, sizeof(v_hb_req));
	b[4] = 0x77; /* a sequence number of its own */
	feed(u, b, sizeof(v_hb_req), 1600);
	feed(u, b, sizeof(v_hb_req), 1600);
	b[sizeof(v_hb_req) - 1] ^= 0x5a; /* another recovery time stamp */
	feed(u, b, sizeof(v_hb_req), 1600);
	{
		struct pfcp_up_stats st2;

		pfcp_up_stats_get(u, &st2);
		CHECK(st2.retrans_rx == st.retrans_rx + 1 &&
			      st2.rx[PFCP_HEARTBEAT_REQ] == st.rx[PFCP_HEARTBEAT_REQ] + 3,
		      "same seq, other contents: answered anew");
	}
	/* unknown SEID: cause 65, SEID 0 in the header */
	pb_modify_coa(&M, 0x77, 11, "x", 0, 0, 0);
	feed_msg(u, &M, 2000);
	CHECK(last()->len == sizeof(v_mod_rsp_err) &&
		      memcmp(last()->b, v_mod_rsp_err, sizeof(v_mod_rsp_err)) == 0,
	      "unknown SEID == vector");
	pb_delete(&M, up_seid_of_last() + (1ull << 32), 12); /* right slot, wrong generation */
	CHECK(feed_msg(u, &M, 2000) == 65 && M2.h.seid == 0, "stale generation");
	/* version 2 */
	memcpy(b, v_hb_req, sizeof(v_hb_req));
	b[0] = 0x40;
	feed(u, b, sizeof(v_hb_req), 2000);
	CHECK(last()->len == 8 && last()->b[0] == 0x20 &&
		      last()->b[1] == PFCP_VERSION_NOT_SUPPORTED_RSP && last()->b[6] == 0x02,
	      "version not supported");
	/* unknown message type: dropped */
	memcpy(b, v_hb_req, sizeof(v_hb_req));
	b[1] = 99;
	{
		unsigned before = n_sent;

		feed(u, b, sizeof(v_hb_req), 2000);
		CHECK(n_sent == before, "unknown type not answered");
		b[1] = PFCP_SESS_EST_RSP; /* a response we never asked for */
		feed(u, b, sizeof(v_hb_req), 2000);
		CHECK(n_sent == before, "unexpected response not answered");
		feed(u, b, 3, 2000);
		CHECK(n_sent == before, "runt not answered");
	}
	/* two heartbeats bundled with FO */
	{
		uint8_t two[2 * sizeof(v_hb_req)];
		unsigned before = n_sent;

		memcpy(two, v_hb_req, sizeof(v_hb_req));
		memcpy(two + sizeof(v_hb_req), v_hb_req, sizeof(v_hb_req));
		two[0] |= PFCP_FLAG_FO;
		two[sizeof(v_hb_req) + 6] = 0x03;
		CHECK(feed(u, two, sizeof(two), 2000) == 2 && n_sent == before + 2, "FO bundle");
	}
	pfcp_up_stats_get(u, &st);
	CHECK(st.not_allowed == 1 && st.version_not_supported == 1 && st.unknown_type == 1 &&
		      st.unexpected_response == 1 && st.bad_header == 1 && st.rejected[65] == 2 &&
		      st.rejected[72] == 1,
	      "counters");
	pfcp_up_free(u);
}

/* An establishment that must fail with cause, offending IE (0: none expected) or failed rule. */
static void
expect_est(struct pfcp_up *u, uint32_t *seq, const char *what, uint8_t cause, uint16_t ie,
	   int rule_type, uint32_t rule_id)
{
	unsigned installs = F.installs;
	int got = feed_msg(u, &M, 5000);

	(*seq)++;
	CHECK(got == cause, "%s: cause %d, want %u", what, got, cause);
	if (ie)
		CHECK((M2.present & PFCP_M_OFFENDING_IE) && M2.offending_ie == ie,
		      "%s: offending ie %u, want %u", what, M2.offending_ie, ie);
	if (rule_type >= 0)
		CHECK((M2.present & PFCP_M_FAILED_RULE) && M2.failed_rule.type == rule_type &&
			      M2.failed_rule.id == rule_id,
		      "%s: failed rule %u/%u", what, M2.failed_rule.type, M2.failed_rule.id);
	if (cause != 1 && !F.fail_install)
		CHECK(F.installs == installs, "%s: nothing installed", what);
	CHECK(live_consistent(u), "%s: live", what);
}

static void
test_up_causes(void)
{
	struct pfcp_up_conf c = conf_default(4);
	struct pfcp_up *u = mk_up(&c);
	struct pb_sub s = pb_sub_default();
	uint32_t seq = 100;
	uint64_t seid = 0x2000;

	associate(u, 0);
#define EST() pb_establish(&M, &s, seid++, seq)
	EST();
	M.present &= ~PFCP_M_NODE_ID;
	expect_est(u, &seq, "no node id", 66, PFCP_IE_NODE_ID, -1, 0);
	EST();
	M.present &= ~PFCP_M_F_SEID;
	expect_est(u, &seq, "no f-seid", 66, PFCP_IE_F_SEID, -1, 0);
	EST();
	M.n_create_far = 0;
	expect_est(u, &seq, "no create far", 66, PFCP_IE_CREATE_FAR, -1, 0);
	EST();
	M.create_pdr[0].present &= ~PFCP_PDR_ID;
	expect_est(u, &seq, "no pdr id", 66, PFCP_IE_PDR_ID, -1, 0);
	EST();
	M.create_pdr[1].pdi.present &= ~PFCP_PDI_SRC_IF;
	expect_est(u, &seq, "no source interface", 66, PFCP_IE_SOURCE_INTERFACE, -1, 0);
	EST();
	M.create_urr[0].present &= ~PFCP_URR_METHOD;
	expect_est(u, &seq, "no measurement method", 66, PFCP_IE_MEASUREMENT_METHOD, -1, 0);
	EST();
	M.create_qer[0].present &= ~PFCP_QER_GATE;
	expect_est(u, &seq, "no gate status", 66, PFCP_IE_GATE_STATUS, -1, 0);
	EST();
	M.lcp.present &= ~PFCP_LCP_MAGIC;
	expect_est(u, &seq, "lcp without magic", 66, PFCP_IE_BBF_PPP_LCP_MAGIC_NUMBER, -1, 0);
	EST();
	M.create_pdr[0].pdi.eth.present &= ~PFCP_EF_STAG;
	expect_est(u, &seq, "no s-tag", 67, PFCP_IE_S_TAG, -1, 0);
	EST();
	M.create_pdr[0].pdi.present &= ~PFCP_PDI_PPPOE_SID;
	expect_est(u, &seq, "no pppoe sid", 67, PFCP_IE_BBF_PPPOE_SESSION_ID, -1, 0);
	EST();
	M.create_pdr[0].present &= ~PFCP_PDR_BBF_OHR;
	expect_est(u, &seq, "no bbf ohr", 67, PFCP_IE_BBF_OUTER_HEADER_REMOVAL, -1, 0);
	EST();
	M.create_urr[0].present &= ~PFCP_URR_PERIOD;
	expect_est(u, &seq, "perio without period", 67, PFCP_IE_MEASUREMENT_PERIOD, -1, 0);
	EST();
	M.create_far[1].fwd.present &= ~PFCP_FWD_BBF_OHC;
	expect_est(u, &seq, "no bbf ohc", 67, PFCP_IE_BBF_OUTER_HEADER_CREATION, -1, 0);
	EST();
	M.n_create_pdr = 1;
	expect_est(u, &seq, "one pdr", 67, PFCP_IE_CREATE_PDR, -1, 0);
	EST();
	M.create_pdr[1].present &= ~PFCP_PDR_FAR_ID;
	expect_est(u, &seq, "pdr without far id", 67, PFCP_IE_FAR_ID, -1, 0);
	/* an IE whose length lies */
	EST();
	{
		int n = pfcp_msg_encode(&M, buf, sizeof(buf));

		buf[PFCP_HDR_LEN_SESS + 9 + 2] = 0xff; /* F-SEID length */
		feed(u, buf, (size_t)n, 5000);
		CHECK(last_cause() == 68 && M2.offending_ie == PFCP_IE_F_SEID && M2.h.seid == 0,
		      "length lie");
		seq++;
	}
	EST();
	M.bbf_mtu = 100;
	expect_est(u, &seq, "mtu 100", 69, PFCP_IE_BBF_MTU, -1, 0);
	EST();
	M.create_pdr[0].pdi.eth.stag.vid = 4095;
	expect_est(u, &seq, "s-tag 4095", 69, PFCP_IE_S_TAG, -1, 0);
	EST();
	M.create_pdr[0].pdi.eth.ctag.flags = PFCP_VLAN_PCP;
	expect_est(u, &seq, "c-tag without vid", 69, PFCP_IE_C_TAG, -1, 0);
	EST();
	M.create_pdr[0].pdi.eth.mac.src[0] = 0x01;
	expect_est(u, &seq, "multicast mac", 69, PFCP_IE_MAC_ADDRESS, -1, 0);
	EST();
	M.create_pdr[1].pdi.ue_ip.flags = PFCP_UEIP_V4;
	expect_est(u, &seq, "ue ip as source", 69, PFCP_IE_UE_IP_ADDRESS, -1, 0);
	EST();
	M.create_far[1].fwd.bbf_ohc.session_id = 0x0999;
	expect_est(u, &seq, "bbf ohc session id", 69, PFCP_IE_BBF_OUTER_HEADER_CREATION, -1, 0);
	EST();
	M.create_pdr[0].pdi.eth.ethertype = 0x0800;
	expect_est(u, &seq, "ethertype ipv4", 69, PFCP_IE_ETHERTYPE, -1, 0);
	EST();
	M.create_qer[0].gbr_ul = 20000;
	expect_est(u, &seq, "gbr above mbr", 69, PFCP_IE_GBR, -1, 0);
	EST();
	M.lcp.magic_tx = 0;
	expect_est(u, &seq, "lcp magic 0", 69, PFCP_IE_BBF_PPP_LCP_MAGIC_NUMBER, -1, 0);
	EST();
	M.create_far[1].fwd.policy.len = 2;
	M.create_far[1].fwd.policy.v[1] = 0x07;
	expect_est(u, &seq, "policy not printable", 70, PFCP_IE_FORWARDING_POLICY, -1, 0);
	EST();
	M.create_far[0].fwd.present |= PFCP_FWD_POLICY;
	pb_str(&M.create_far[0].fwd.policy, "silver");
	expect_est(u, &seq, "policies differ", 70, PFCP_IE_FORWARDING_POLICY, -1, 0);
	EST();
	F.fail_install = -ENOENT;
	expect_est(u, &seq, "unknown qos profile", 70, PFCP_IE_FORWARDING_POLICY, -1, 0);
	EST();
	F.fail_install = -EINVAL;
	expect_est(u, &seq, "data path refuses", 73, 0, PFCP_RULE_PDR, 1);
	EST();
	F.fail_install = -ENOSPC;
	expect_est(u, &seq, "data path full", 75, 0, -1, 0);
	F.fail_install = 0;
	EST();
	M.create_pdr[1].id = 1;
	expect_est(u, &seq, "duplicate pdr id", 73, 0, PFCP_RULE_PDR, 1);
	EST();
	M.create_far[1].id = 1;
	expect_est(u, &seq, "duplicate far id", 73, 0, PFCP_RULE_FAR, 1);
	EST();
	M.create_pdr[1].far_id = 9;
	expect_est(u, &seq, "far missing", 73, 0, PFCP_RULE_PDR, 2);
	EST();
	M.create_pdr[1].qer_id[0] = 9;
	expect_est(u, &seq, "qer missing", 73, 0, PFCP_RULE_PDR, 2);
	EST();
	M.create_pdr[1].pdi.src_if = PFCP_IF_ACCESS;
	expect_est(u, &seq, "two upstream pdrs", 73, 0, PFCP_RULE_PDR, 2);
	EST();
	M.create_pdr[1].far_id = 1;
	expect_est(u, &seq, "one far for both", 73, 0, PFCP_RULE_FAR, 1);
	EST();
	M.create_pdr[1].pdi.ue_ip.flags = PFCP_UEIP_V6 | PFCP_UEIP_SD;
	expect_est(u, &seq, "ipv4 upstream, ipv6 downstream only", 67, PFCP_IE_CREATE_PDR, -1, 0);
	EST();
	M.create_qer[0].gate_dl = PFCP_GATE_CLOSED;
	expect_est(u, &seq, "gate closed", 76, PFCP_IE_GATE_STATUS, -1, 0);
	EST();
	M.create_far[1].fwd.bbf_ohc.desc = 0x0300;
	expect_est(u, &seq, "bbf ohc l2tp", 76, PFCP_IE_BBF_OUTER_HEADER_CREATION, -1, 0);
	EST();
	M.create_far[1].apply = PFCP_APPLY_DROP;
	expect_est(u, &seq, "far drop", 76, PFCP_IE_APPLY_ACTION, -1, 0);
	EST();
	M.create_pdr[0].bbf_ohr = PFCP_BBF_OHR_ETHERNET; /* IPoE, with a PPPoE session id */
	expect_est(u, &seq, "bbf ohr ethernet with a session id", 69, PFCP_IE_BBF_PPPOE_SESSION_ID,
		   -1, 0);
	EST();
	M.create_pdr[0].bbf_ohr = PFCP_BBF_OHR_PPPOE_ETHERNET;
	expect_est(u, &seq, "bbf ohr pppoe/ethernet", 76, PFCP_IE_BBF_OUTER_HEADER_REMOVAL, -1, 0);
	EST();
	M.create_pdr[1].pdi.src_if = PFCP_IF_SGI_LAN;
	expect_est(u, &seq, "sgi-lan pdr", 76, PFCP_IE_SOURCE_INTERFACE, -1, 0);
	/* nine PDRs: the session cap */
	EST();
	for (int i = 0; i < 7; i++) {
		M.create_pdr[M.n_create_pdr] = M.create_pdr[1];
		M.create_pdr[M.n_create_pdr++].id = (uint16_t)(10 + i);
	}
	expect_est(u, &seq, "nine pdrs", 75, PFCP_IE_CREATE_PDR, -1, 0);

	/* accepted, then the same CP SEID: identical = idempotent, different = 64 */
	s.ctag = 8;
	pb_establish(&M, &s, 0x3000, seq++);
	CHECK(feed_msg(u, &M, 5000) == 1, "accepted");
	{
		uint64_t first = up_seid_of_last();
		unsigned installs = F.installs;

		pb_establish(&M, &s, 0x3000, seq++);
		CHECK(feed_msg(u, &M, 5000) == 1 && up_seid_of_last() == first &&
			      F.installs == installs,
		      "same cp seid, same session: same answer");
		s.ctag = 9;
		pb_establish(&M, &s, 0x3000, seq++);
		CHECK(feed_msg(u, &M, 5000) == 64 && M2.offending_ie == PFCP_IE_F_SEID &&
			      F.installs == installs,
		      "same cp seid, other session: rejected");
	}
	/* capacity: 4 slots */
	for (int i = 0; i < 3; i++) {
		s.ctag = (uint16_t)(20 + i);
		pb_establish(&M, &s, 0x4000 + (uint64_t)i, seq++);
		CHECK(feed_msg(u, &M, 5000) == 1, "fill %d", i);
	}
	s.ctag = 30;
	pb_establish(&M, &s, 0x5000, seq);
	expect_est(u, &seq, "full", 75, 0, -1, 0);
	CHECK(F.live == 4 && live_consistent(u), "4 live");
#undef EST
	pfcp_up_free(u);
}

static void
test_up_lifecycle(void)
{
	struct pfcp_up_conf c = conf_default(16);
	struct pfcp_up *u;
	uint8_t v[512];
	uint64_t up_seid;
	uint32_t handle;

	c.heartbeat_ms = 1000000000; /* no heartbeats in the way of the sequence numbers */
	u = mk_up(&c);
	associate(u, 100000);
	feed(u, v_est_req, sizeof(v_est_req), 100000);
	up_seid = up_seid_of_last();
	handle = 0;
	F.use[handle] = (struct up_usage){.ul_pkts = 10,
					  .ul_bytes = 1000,
					  .dl_pkts = 50,
					  .dl_bytes = 5000,
					  .ul_drops = 4,
					  .dl_drops = 7,
					  .ul_drop_bytes = 400,
					  .dl_drop_bytes = 10500};
	/* period 60 s: nothing before, one report at 160 s, byte for byte */
	pfcp_up_tick(u, 159999, cap_send, NULL);
	CHECK(last()->b[1] != PFCP_SESS_REPORT_REQ, "no report before the period");
	pfcp_up_tick(u, 160000, cap_send, NULL);
	CHECK(last()->len == sizeof(v_report_req) &&
		      memcmp(last()->b, v_report_req, sizeof(v_report_req)) == 0,
	      "periodic report == vector");
	CHECK(last()->ip == PB_CP_IP && last()->port == PFCP_PORT, "report to the CP");
	/* LCP dead, byte for byte */
	CHECK(pfcp_up_report_lcp_dead(u, handle, 160000, cap_send, NULL) == 0, "lcp dead");
	CHECK(last()->len == sizeof(v_dead_req) &&
		      memcmp(last()->b, v_dead_req, sizeof(v_dead_req)) == 0,
	      "lcp dead report == vector");
	CHECK(pfcp_up_report_lcp_dead(u, 999, 160000, cap_send, NULL) == -ENOENT, "unknown handle");
	/* both acknowledged */
	memcpy(v, v_report_rsp, sizeof(v_report_rsp));
	put64(v + 4, up_seid);
	feed(u, v, sizeof(v_report_rsp), 160100);
	v[14] = 2;
	feed(u, v, sizeof(v_report_rsp), 160100);
	{
		struct pfcp_up_stats st;
		struct up_session_info info[4];
		uint32_t cur = 0;

		pfcp_up_stats_get(u, &st);
		CHECK(st.pending == 0 && st.reports_sent == 1 && st.lcp_dead_sent == 1 &&
			      st.unexpected_response == 0,
		      "reports acknowledged");
		CHECK(pfcp_up_sessions(u, &cur, info, 4) == 1 && info[0].up_seid == up_seid &&
			      info[0].cp_seid == 0x1001 && info[0].kind == UP_KIND_SUBSCRIBER &&
			      !info[0].lcp_dead,
		      "session listing");
	}
	/* the CoA vector: new profile and rates, and a query */
	F.use[handle].ul_bytes = 1500;
	F.use[handle].ul_pkts = 15;
	memcpy(v, v_mod_req, sizeof(v_mod_req));
	put64(v + 4, up_seid);
	feed(u, v, sizeof(v_mod_req), 170000);
	CHECK(last_cause() == 1 && M2.h.seid == 0x1001, "coa accepted");
	CHECK(F.modifies == 1 && F.last_changed == (UP_CHG_RATES | UP_CHG_QOS) &&
		      strcmp(F.last.qos_profile, "silver") == 0 && F.last.mbr_ul == 20000000 &&
		      F.last.mbr_dl == 100000000 && F.last.gbr_ul == 2000000,
	      "coa applied: changed %#x", F.last_changed);
	CHECK(M2.n_usage == 1 && M2.usage[0].ie_type == PFCP_IE_USAGE_REPORT_SMR &&
		      M2.usage[0].trigger == PFCP_URT_IMMER && M2.usage[0].vol.ul == 500 &&
		      M2.usage[0].vol.ul_pkts == 5 && M2.usage[0].vol.dl == 0 &&
		      M2.usage[0].seqn == 1 && M2.usage[0].start_time == NTP0 + 160,
	      "query report");
	/* a modification that changes nothing the data path sees */
	pb_modify_coa(&M, up_seid, 50, NULL, 0, 0, 0);
	CHECK(feed_msg(u, &M, 170000) == 1 && F.modifies == 1, "empty modification");
	/* LCP offload off: the null-length connectivity IE */
	pb_modify_coa(&M, up_seid, 51, NULL, 0, 0, 0);
	M.present |= PFCP_M_BBF_LCP;
	M.lcp.present = PFCP_LCP_EMPTY;
	CHECK(feed_msg(u, &M, 170000) == 1 && F.last_changed == UP_CHG_LCP && !F.last.lcp_offload,
	      "lcp off");
	/* a failing modification leaves everything as it was */
	F.fail_modify = -EINVAL;
	pb_modify_coa(&M, up_seid, 52, "bronze", 0, 0, 0);
	CHECK(feed_msg(u, &M, 170000) == 73 && M2.failed_rule.type == PFCP_RULE_PDR, "mod fails");
	F.fail_modify = 0;
	pb_modify_coa(&M, up_seid, 53, "silver", 0, 0, 0);
	CHECK(feed_msg(u, &M, 170000) == 1 && F.modifies == 2, "still silver: no change");
	/* remove the URR: its final usage, TERMR */
	F.use[handle].dl_bytes = 6000;
	pb_modify_coa(&M, up_seid, 54, NULL, 0, 0, 0);
	M.remove_urr[M.n_remove_urr++] = 1;
	M.update_pdr[0].present = PFCP_PDR_ID;
	M.update_pdr[0].id = 1;
	M.update_pdr[1].present = PFCP_PDR_ID;
	M.update_pdr[1].id = 2;
	M.n_update_pdr = 2;
	CHECK(feed_msg(u, &M, 175000) == 73 && M2.failed_rule.type == PFCP_RULE_PDR,
	      "remove a urr still referenced");
	/* dissociate first (29.244: Update PDR replaces the lists; an empty list is a remove of the
	 * URR rule here) */
	pb_modify_coa(&M, up_seid, 55, NULL, 0, 0, 0);
	M.remove_urr[M.n_remove_urr++] = 1;
	M.remove_pdr[M.n_remove_pdr++] = 1;
	M.remove_pdr[M.n_remove_pdr++] = 2;
	M.create_pdr[0] = (struct pfcp_pdr){0};
	{
		struct pb_sub s = pb_sub_default();

		pb_establish(&M2, &s, 0x1001, 0);
		M.create_pdr[0] = M2.create_pdr[0];
		M.create_pdr[1] = M2.create_pdr[1];
		M.create_pdr[0].n_urr = 0;
		M.create_pdr[1].n_urr = 0;
		M.n_create_pdr = 2;
	}
	CHECK(feed_msg(u, &M, 175000) == 1 && M2.n_usage == 1 &&
		      M2.usage[0].trigger == PFCP_URT_TERMR && M2.usage[0].vol.dl == 1000,
	      "removed urr reported");
	CHECK(F.modifies == 3 && F.last_changed == UP_CHG_URR && F.last.urr_period_s == 0,
	      "urr gone from the sub");
	/* the session is dead-flag clean and deletable; deletion vector in its own instance */
	pb_delete(&M, up_seid, 56);
	CHECK(feed_msg(u, &M, 180000) == 1 && M2.n_usage == 0 && F.removes == 1 && F.live == 0,
	      "deleted");
	CHECK(live_consistent(u), "live after delete");
	pfcp_up_free(u);

	/* deletion: final usage, byte for byte */
	u = mk_up(&c);
	associate(u, 100000);
	feed(u, v_est_req, sizeof(v_est_req), 100000);
	up_seid = up_seid_of_last();
	F.use[0] = (struct up_usage){.ul_pkts = 30,
				     .ul_bytes = 3000,
				     .dl_pkts = 90,
				     .dl_bytes = 9000,
				     .ul_drops = 2,
				     .dl_drops = 5,
				     .ul_drop_bytes = 200,
				     .dl_drop_bytes = 7500};
	memcpy(v, v_del_req, sizeof(v_del_req));
	put64(v + 4, up_seid);
	feed(u, v, sizeof(v_del_req), 130000);
	CHECK(last()->len == sizeof(v_del_rsp) &&
		      memcmp(last()->b, v_del_rsp, sizeof(v_del_rsp)) == 0,
	      "deletion response == vector");
	CHECK(F.removes == 1 && F.live == 0 && live_consistent(u), "removed");
	/* the UP SEID of the deleted session is not reused by the next one */
	{
		uint8_t e2[sizeof(v_est_req)];

		memcpy(e2, v_est_req, sizeof(e2));
		e2[14] = 0x77;
		feed(u, e2, sizeof(e2), 140000);
		CHECK(last_cause() == 1 && up_seid_of_last() != up_seid, "seid not reused");
	}
	pfcp_up_free(u);
}

static void
test_up_default_session(void)
{
	struct pfcp_up_conf c = conf_default(8);
	struct pfcp_up *u = mk_up(&c);
	struct pb_sub s = pb_sub_default();
	uint64_t dseid;

	associate(u, 0);
	feed(u, v_default_req, sizeof(v_default_req), 0);
	CHECK(last_cause() == 1 && F.redirects == 1 && F.installs == 0, "default accepted");
	dseid = up_seid_of_last();
	CHECK(F.redir.cp_ip == PB_CP_IP && F.redir.cp_port == 4789 &&
		      F.redir.classes ==
			      (UP_REDIRECT_ALL & ~(UP_REDIRECT_DHCP | UP_REDIRECT_DHCP6)) &&
		      !F.redir.fallback,
	      "redirect to the CP's VXLAN endpoint");
	pb_default(&M, 2, 20, PB_CP_IP, 4789);
	CHECK(feed_msg(u, &M, 0) == 64, "a second default session");
	/* modify: drop the unknown-session class */
	pb_hdr(&M, PFCP_SESS_MOD_REQ, 1, dseid, 21);
	M.remove_pdr[M.n_remove_pdr++] = 3;
	CHECK(feed_msg(u, &M, 0) == 1 && F.redirects == 2 &&
		      F.redir.classes == (UP_REDIRECT_DISCOVERY | UP_REDIRECT_PPP_CONTROL),
	      "default modified");
	/* modify: another VXLAN port */
	pb_hdr(&M, PFCP_SESS_MOD_REQ, 1, dseid, 22);
	M.update_far[0].present = PFCP_FAR_ID | PFCP_FAR_FWD;
	M.update_far[0].id = 1;
	M.update_far[0].fwd.present = PFCP_FWD_OHC;
	M.update_far[0].fwd.ohc.desc = PFCP_OHC_UDP_IPV4;
	M.update_far[0].fwd.ohc.ipv4 = 0x0ac80002;
	M.update_far[0].fwd.ohc.port = 4790;
	M.n_update_far = 1;
	CHECK(feed_msg(u, &M, 0) == 1 && F.redirects == 3 && F.redir.cp_ip == 0x0ac80002 &&
		      F.redir.cp_port == 4790,
	      "redirect moved");
	/* a default session cannot turn into a subscriber */
	pb_hdr(&M, PFCP_SESS_MOD_REQ, 1, dseid, 23);
	M.update_far[0].present = PFCP_FAR_ID | PFCP_FAR_FWD;
	M.update_far[0].id = 1;
	M.update_far[0].fwd.present = PFCP_FWD_DST_IF;
	M.update_far[0].fwd.dst_if = PFCP_IF_CORE;
	M.n_update_far = 1;
	CHECK(feed_msg(u, &M, 0) != 1 && F.redirects == 3, "kind change refused");
	/* bad default sessions */
	pb_default(&M, 3, 24, PB_CP_IP, 4789);
	M.create_far[0].fwd.ohc.desc = PFCP_OHC_GTPU_UDP_IPV4;
	CHECK(feed_msg(u, &M, 0) == 76 && M2.offending_ie == PFCP_IE_OUTER_HEADER_CREATION,
	      "gtp-u cpr not supported");
	pb_default(&M, 3, 25, PB_CP_IP, 4789);
	M.create_pdr[0].pdi.eth.ethertype = 0x0800;
	CHECK(feed_msg(u, &M, 0) == 67 && M2.offending_ie == PFCP_IE_SDF_FILTER,
	      "ipv4 class without the dhcp sdf filter");
	pb_default(&M, 3, 25, PB_CP_IP, 4789);
	M.create_pdr[0].pdi.eth.ethertype = 0x86dd;
	CHECK(feed_msg(u, &M, 0) == 67 && M2.offending_ie == PFCP_IE_SDF_FILTER,
	      "ipv6 class without the dhcpv6 sdf filter");
	pb_default(&M, 3, 25, PB_CP_IP, 4789);
	M.create_pdr[0].pdi.eth.ethertype = 0x88cc;
	CHECK(feed_msg(u, &M, 0) == 76 && M2.offending_ie == PFCP_IE_ETHERTYPE, "lldp class");
	pb_default(&M, 3, 26, PB_CP_IP, 4789);
	M.create_far[0].fwd.present &= ~PFCP_FWD_OHC;
	CHECK(feed_msg(u, &M, 0) == 67 && M2.offending_ie == PFCP_IE_OUTER_HEADER_CREATION,
	      "no ohc");
	/* a subscriber next to it, then an association release deletes all */
	pb_establish(&M, &s, 0x99, 27);
	CHECK(feed_msg(u, &M, 0) == 1 && F.live == 1, "subscriber next to the default");
	pb_hdr(&M, PFCP_SESS_DEL_REQ, 1, dseid, 28);
	CHECK(feed_msg(u, &M, 0) == 1 && F.redirects == 4 && F.redir.fallback &&
		      F.redir.classes == UP_REDIRECT_ALL && F.redir.cp_port == 4789,
	      "deleting the default: fallback");
	pb_default(&M, 5, 35, PB_CP_IP, 4789);
	CHECK(feed_msg(u, &M, 0) == 1 && F.redirects == 5 && !F.redir.fallback, "default again");
	pb_hdr(&M, PFCP_ASSOC_RELEASE_REQ, 0, 0, 29);
	pb_node_cp(&M);
	CHECK(feed_msg(u, &M, 0) == 1 && F.live == 0 && F.removes == 1 && F.redirects == 6 &&
		      F.redir.fallback && F.state == UP_CP_NONE,
	      "association release deletes all");
	{
		struct pfcp_up_stats st;

		pfcp_up_stats_get(u, &st);
		CHECK(st.sessions == 0 && st.sub_sessions == 0 && !st.default_session, "all gone");
	}
	pb_establish(&M, &s, 0x100, 30);
	CHECK(feed_msg(u, &M, 0) == 72, "after release: no association");
	pb_hdr(&M, PFCP_ASSOC_UPDATE_REQ, 0, 0, 31);
	pb_node_cp(&M);
	CHECK(feed_msg(u, &M, 0) == 72, "update without association");
	pb_assoc_setup(&M, 40, PB_CP_RECOVERY);
	CHECK(feed_msg(u, &M, 0) == 1, "associated again");
	pb_hdr(&M, PFCP_ASSOC_UPDATE_REQ, 0, 0, 32);
	pb_node_cp(&M);
	CHECK(feed_msg(u, &M, 0) == 66 && M2.offending_ie == PFCP_IE_BNGPOD_LINE_GROUP,
	      "update without a Line Group IE: mandatory IE missing");
	pb_hdr(&M, PFCP_ASSOC_SETUP_REQ, 0, 0, 33);
	pb_node_cp(&M);
	CHECK(feed_msg(u, &M, 0) == 66 && M2.offending_ie == PFCP_IE_RECOVERY_TIME_STAMP &&
		      (M2.present & PFCP_M_RECOVERY_TS),
	      "setup without recovery time stamp");
	pb_hdr(&M, PFCP_PFD_MGMT_REQ, 0, 0, 34);
	CHECK(feed_msg(u, &M, 0) == 76 && M2.h.type == PFCP_PFD_MGMT_RSP, "pfd management");
	pfcp_up_free(u);
}

/* The last datagram of message type t sent since index from, or NULL. */
static const struct sent *
sent_since(unsigned from, uint8_t t)
{
	const struct sent *r = NULL;

	for (unsigned i = from; i < n_sent; i++)
		if (sent[i % SENT_RING].b[1] == t)
			r = &sent[i % SENT_RING];
	return r;
}

static unsigned
count_since(unsigned from, uint8_t t)
{
	unsigned c = 0;

	for (unsigned i = from; i < n_sent; i++)
		c += sent[i % SENT_RING].b[1] == t;
	return c;
}

static int
decode_sent(const struct sent *x)
{
	struct pfcp_derr e;

	return x != NULL && pfcp_msg_decode(x->b, x->len, &M2, &e) == PFCP_OK;
}

/* Heartbeats on a fake clock; the CP unreachable, back, restarted. */
static void
test_up_heartbeat(void)
{
	struct pfcp_up_conf c = conf_default(8);
	struct pfcp_up *u = mk_up(&c);
	struct pfcp_up_stats st;
	struct pb_sub s = pb_sub_default();
	uint64_t up_seid;
	uint32_t hb_seq;
	unsigned n;

	associate(u, 0);
	up_seid = establish(u, &s, 0x1001, 2, 0);
	CHECK(up_seid != 0, "hb: session");
	n = n_sent;
	pfcp_up_tick(u, 4999, cap_send, NULL);
	CHECK(n_sent == n, "no heartbeat before the interval");
	pfcp_up_tick(u, 5000, cap_send, NULL);
	CHECK(n_sent == n + 1 && last()->b[1] == PFCP_HEARTBEAT_REQ && last()->ip == PB_CP_IP &&
		      last()->port == PFCP_PORT,
	      "heartbeat sent");
	CHECK(last_cause() == 0 && M2.recovery_ts == NTP0, "heartbeat carries our recovery");
	hb_seq = M2.h.seq;
	pfcp_up_tick(u, 7999, cap_send, NULL);
	CHECK(n_sent == n + 1, "no retransmission before t1");
	pfcp_up_tick(u, 8000, cap_send, NULL);
	CHECK(n_sent == n + 2 && last()->b[1] == PFCP_HEARTBEAT_REQ && last_cause() == 0 &&
		      M2.h.seq == hb_seq,
	      "retransmission, same seq");
	pfcp_up_tick(u, 11000, cap_send, NULL);
	pfcp_up_stats_get(u, &st);
	CHECK(st.hb_missed == 2 && st.cp_state == UP_CP_ASSOCIATED, "two missed");
	n = n_sent;
	pfcp_up_tick(u, 14000, cap_send, NULL);
	pfcp_up_stats_get(u, &st);
	CHECK(st.cp_state == UP_CP_UNREACHABLE && st.hb_failures == 1 &&
		      F.state == UP_CP_UNREACHABLE,
	      "unreachable after n1");
	CHECK(st.sub_sessions == 1 && F.live == 1 && F.removes == 0, "sessions kept");
	CHECK(decode_sent(sent_since(n, PFCP_HEARTBEAT_REQ)) && M2.h.seq != hb_seq,
	      "heartbeats go on while unreachable");
	hb_seq = M2.h.seq;
	/* the DP keeps answering */
	feed(u, v_hb_req, sizeof(v_hb_req), 14500);
	CHECK(last()->b[1] == PFCP_HEARTBEAT_RSP, "still answers heartbeats");
	/* LCP dead while unreachable: deferred */
	n = n_sent;
	CHECK(pfcp_up_report_lcp_dead(u, 0, 14500, cap_send, NULL) == 0 && n_sent == n,
	      "dead report deferred");
	pb_heartbeat_rsp(&M, hb_seq, PB_CP_RECOVERY);
	feed_msg(u, &M, 14700);
	pfcp_up_stats_get(u, &st);
	CHECK(st.cp_state == UP_CP_ASSOCIATED && F.state == UP_CP_ASSOCIATED && st.hb_missed == 0,
	      "reachable again");
	n = n_sent;
	pfcp_up_tick(u, 14800, cap_send, NULL);
	CHECK(decode_sent(sent_since(n, PFCP_SESS_REPORT_REQ)) &&
		      M2.report_type == PFCP_REPORT_UPIR,
	      "deferred dead report sent");
	pb_report_rsp(&M, up_seid, M2.h.seq, 1);
	feed_msg(u, &M, 14900);
	/* a heartbeat response with another recovery time stamp: counted, sessions kept */
	n = n_sent;
	pfcp_up_tick(u, 19000, cap_send, NULL);
	CHECK(decode_sent(sent_since(n, PFCP_HEARTBEAT_REQ)), "next heartbeat");
	pb_heartbeat_rsp(&M, M2.h.seq, PB_CP_RECOVERY + 2000);
	feed_msg(u, &M, 19001);
	pfcp_up_stats_get(u, &st);
	CHECK(st.cp_restarts == 1 && st.sub_sessions == 1, "restart seen in a heartbeat");
	pfcp_up_free(u);

	/* an LCP dead report is repeated until acknowledged; a CP restart keeps sessions */
	c.heartbeat_ms = 1000000000;
	u = mk_up(&c);
	associate(u, 0);
	up_seid = establish(u, &s, 0x1001, 2, 0);
	n = n_sent;
	CHECK(pfcp_up_report_lcp_dead(u, 0, 0, cap_send, NULL) == 0 &&
		      count_since(n, PFCP_SESS_REPORT_REQ) == 1,
	      "dead report sent");
	pfcp_up_tick(u, 3000, cap_send, NULL);
	pfcp_up_tick(u, 6000, cap_send, NULL);
	CHECK(count_since(n, PFCP_SESS_REPORT_REQ) == 3, "retransmitted twice");
	pfcp_up_tick(u, 9000, cap_send, NULL); /* n1 reached: given up, then sent anew */
	CHECK(count_since(n, PFCP_SESS_REPORT_REQ) == 4 &&
		      decode_sent(sent_since(n, PFCP_SESS_REPORT_REQ)) &&
		      M2.report_type == PFCP_REPORT_UPIR,
	      "dead report repeated after a timeout");
	{
		struct up_session_info info;
		uint32_t cur = 0;

		pfcp_up_sessions(u, &cur, &info, 1);
		CHECK(info.lcp_dead, "dead report outstanding");
		pb_report_rsp(&M, up_seid, M2.h.seq, 1);
		feed_msg(u, &M, 9100);
		cur = 0;
		pfcp_up_sessions(u, &cur, &info, 1);
		CHECK(!info.lcp_dead, "dead report acknowledged");
	}
	{
		struct pfcp_msg a;

		pb_assoc_setup(&a, 90, PB_CP_RECOVERY + 1000);
		CHECK(feed_msg(u, &a, 30000) == 1, "re-association accepted");
	}
	pfcp_up_stats_get(u, &st);
	CHECK(st.cp_restarts == 1 && st.sub_sessions == 1 && F.live == 1 && F.removes == 0,
	      "cp restart keeps sessions");
	pb_modify_coa(&M, up_seid, 91, "silver", 0, 0, 0);
	CHECK(feed_msg(u, &M, 30000) == 1, "old UP SEID still valid after the CP restart");
	/* the CP moves the session to another CP SEID; not to one in use */
	{
		uint64_t other;

		s.ctag = 99;
		other = establish(u, &s, 0x2002, 92, 30000);
		CHECK(other != 0, "second session");
		pb_modify_coa(&M, up_seid, 93, NULL, 0, 0, 0);
		pb_fseid(&M, 0x2002);
		CHECK(feed_msg(u, &M, 30000) == 64 && M2.offending_ie == PFCP_IE_F_SEID,
		      "f-seid of another session");
		pb_modify_coa(&M, up_seid, 94, NULL, 0, 0, 0);
		pb_fseid(&M, 0x3003);
		CHECK(feed_msg(u, &M, 30000) == 1 && M2.h.seid == 0x3003, "f-seid moved");
		pb_delete(&M, up_seid, 95);
		CHECK(feed_msg(u, &M, 30000) == 1 && M2.h.seid == 0x3003,
		      "answers to the new seid");
		pb_delete(&M, other, 96);
		CHECK(feed_msg(u, &M, 30000) == 1 && F.live == 0, "both gone");
	}
	pfcp_up_free(u);
}

/* A usage report never acknowledged is not lost: the next one carries it. */
static void
test_up_report_carry(void)
{
	struct pfcp_up_conf c = conf_default(8);
	struct pfcp_up *u;
	struct pb_sub s = pb_sub_default();
	uint64_t up_seid;

	c.heartbeat_ms = 1000000000;
	u = mk_up(&c);
	associate(u, 0);
	s.urr_period = 10;
	up_seid = establish(u, &s, 0x1001, 2, 0);
	F.use[0].ul_bytes = 1000;
	F.use[0].dl_drops = 3;
	F.use[0].dl_drop_bytes = 3000;
	pfcp_up_tick(u, 10000, cap_send, NULL);
	CHECK(last_cause() == 0 && M2.n_usage == 1 && M2.usage[0].vol.ul == 1000 &&
		      (M2.usage[0].present & PFCP_UR_DROPPED) && M2.usage[0].dropped_dl == 3,
	      "first report");
	pfcp_up_tick(u, 13000, cap_send, NULL);
	pfcp_up_tick(u, 16000, cap_send, NULL);
	pfcp_up_tick(u, 19000, cap_send, NULL); /* third retransmission expires */
	F.use[0].ul_bytes = 1500;
	F.use[0].ul_drops = 1;
	F.use[0].dl_drops = 4;
	F.use[0].ul_drop_bytes = 64;
	F.use[0].dl_drop_bytes = 4200;
	pfcp_up_tick(u, 20000, cap_send, NULL);
	CHECK(last_cause() == 0 && M2.n_usage == 1 && M2.usage[0].vol.ul == 1500 &&
		      M2.usage[0].start_time == NTP0 && M2.usage[0].seqn == 1,
	      "lost usage carried: ul %" PRIu64, M2.usage[0].vol.ul);
	CHECK(M2.usage[0].dropped_ul == 1 && M2.usage[0].dropped_dl == 4,
	      "lost drops carried: ul %" PRIu64 " dl %" PRIu64, M2.usage[0].dropped_ul,
	      M2.usage[0].dropped_dl);
	CHECK((M2.usage[0].present & PFCP_UR_DROPPED_BYTES) && M2.usage[0].dropped_ul_bytes == 64 &&
		      M2.usage[0].dropped_dl_bytes == 4200,
	      "lost dropped octets carried: ul %" PRIu64 " dl %" PRIu64,
	      M2.usage[0].dropped_ul_bytes, M2.usage[0].dropped_dl_bytes);
	pb_report_rsp(&M, up_seid, M2.h.seq, 1);
	feed_msg(u, &M, 20001);
	F.use[0].ul_bytes = 1600;
	F.use[0].dl_drops = 6;
	F.use[0].dl_drop_bytes = 6200;
	pfcp_up_tick(u, 30000, cap_send, NULL);
	CHECK(last_cause() == 0 && M2.usage[0].vol.ul == 100 &&
		      M2.usage[0].start_time == NTP0 + 20 && M2.usage[0].dropped_ul == 0 &&
		      M2.usage[0].dropped_dl == 2 && M2.usage[0].dropped_ul_bytes == 0 &&
		      M2.usage[0].dropped_dl_bytes == 2000,
	      "then only the new usage");
	/* a volume threshold */
	pfcp_up_free(u);
	u = mk_up(&c);
	associate(u, 0);
	s.urr_period = 3600;
	pb_establish(&M, &s, 0x1001, 3);
	M.create_urr[0].present |= PFCP_URR_VOL_THRESH;
	M.create_urr[0].triggers |= PFCP_RT_VOLTH;
	M.create_urr[0].vol_thresh.flags = PFCP_VOL_TOVOL;
	M.create_urr[0].vol_thresh.total = 1000;
	CHECK(feed_msg(u, &M, 0) == 1, "volth session");
	F.use[0].ul_bytes = 400;
	F.use[0].dl_bytes = 599;
	{
		unsigned n = n_sent;

		pfcp_up_tick(u, 1000, cap_send, NULL);
		CHECK(n_sent == n, "below the threshold");
	}
	F.use[0].dl_bytes = 600;
	pfcp_up_tick(u, 2000, cap_send, NULL);
	CHECK(last_cause() == 0 && M2.usage[0].trigger == PFCP_URT_VOLTH &&
		      M2.usage[0].vol.total == 1000,
	      "threshold reached");
	pfcp_up_free(u);
}

/* The data path re-adds the session on a key change: counters restart, usage is kept. */
static void
test_up_handle_change(void)
{
	struct pfcp_up_conf c = conf_default(8);
	struct pfcp_up *u = mk_up(&c);
	struct pb_sub s = pb_sub_default();
	uint64_t up_seid;

	associate(u, 0);
	up_seid = establish(u, &s, 0x1001, 2, 0);
	F.use[0].ul_bytes = 700;
	F.change_handle = true;
	pb_modify_coa(&M, up_seid, 3, NULL, 0, 0, 0);
	M.update_pdr[0].present = PFCP_PDR_ID | PFCP_PDR_PDI;
	M.update_pdr[0].id = 1;
	{
		struct pfcp_msg e;

		s.sid = 0x0200;
		pb_establish(&e, &s, 0x1001, 0);
		M.update_pdr[0].pdi = e.create_pdr[0].pdi;
		M.update_far[0] = e.create_far[1];
		M.update_far[0].present = PFCP_FAR_ID | PFCP_FAR_FWD;
		M.update_far[0].fwd.present = PFCP_FWD_BBF_OHC;
		M.n_update_far = 1;
	}
	M.n_update_pdr = 1;
	CHECK(feed_msg(u, &M, 1000) == 1 && F.last_changed == UP_CHG_KEYS &&
		      F.last.pppoe_sid == 0x0200,
	      "keys changed");
	CHECK(pfcp_up_report_lcp_dead(u, 0, 1000, cap_send, NULL) == -ENOENT &&
		      pfcp_up_report_lcp_dead(u, 1, 1000, cap_send, NULL) == 0,
	      "new handle");
	F.use[1].ul_bytes = 50;
	F.change_handle = false;
	pb_delete(&M, up_seid, 4);
	CHECK(feed_msg(u, &M, 2000) == 1 && M2.usage[0].vol.ul == 750, "usage across the re-add");
	pfcp_up_free(u);
}

/* 65536 subscriber sessions: established, bounded ticks, deleted. */
static void
test_up_scale(void)
{
	const uint32_t N = 65536;
	struct pfcp_up_conf c = conf_default(N);
	struct pfcp_up *u;
	struct pb_sub s = pb_sub_default();
	struct pfcp_up_stats st;
	uint64_t *seids = calloc(N, sizeof(*seids));
	unsigned ok = 0, max_sent = 0, max_usage = 0;

	c.heartbeat_ms = 1000000000;
	u = mk_up(&c);
	associate(u, 0);
	for (uint32_t i = 0; i < N; i++) {
		s.stag = (uint16_t)(1 + i / 4000);
		s.ctag = (uint16_t)(1 + i % 4000);
		s.mac[4] = (uint8_t)(i >> 8);
		s.mac[5] = (uint8_t)i;
		s.ipv4 = 0x64000000 + i + 1;
		s.urr_period = 60;
		seids[i] = establish(u, &s, 0x100000 + i, i + 10, 0);
		ok += seids[i] != 0;
	}
	CHECK(ok == N && F.installs == N && F.live == N && live_consistent(u), "65536 established");
	s.ctag = 4000;
	pb_establish(&M, &s, 0x1, 1);
	CHECK(feed_msg(u, &M, 0) == 75, "65537th: no resources");
	/* all 65536 URRs are due at 60 s: every tick stays within its budget */
	for (int t = 0; t < 200; t++) {
		unsigned n = n_sent, us = F.usages;

		pfcp_up_tick(u, 60000 + (uint64_t)t, cap_send, NULL);
		if (n_sent - n > max_sent)
			max_sent = n_sent - n;
		if (F.usages - us > max_usage)
			max_usage = F.usages - us;
	}
	pfcp_up_stats_get(u, &st);
	CHECK(max_sent <= 64 && max_usage <= 512, "bounded tick: %u sent, %u usage calls", max_sent,
	      max_usage);
	CHECK(st.pending <= UP_MAX_PENDING && st.reports_sent > 0, "reports limited by pending: %u",
	      st.pending);
	for (uint32_t i = 0; i < N; i++) {
		pb_delete(&M, seids[i], 200000 + i);
		if (feed_msg(u, &M, 70000) != 1)
			ok--;
	}
	pfcp_up_stats_get(u, &st);
	CHECK(ok == N && F.removes == N && F.live == 0 && st.sessions == 0 && st.pending == 0,
	      "65536 deleted (%u)", ok);
	free(seids);
	pfcp_up_free(u);
}

static void
test_up_create_refuses(void)
{
	struct pfcp_up_conf c = conf_default(0);
	struct pfcp_up_ops o = fake_ops;

	CHECK(pfcp_up_create(&c, &fake_ops, NULL) == NULL, "capacity 0");
	c = conf_default(8);
	c.cp_ip = 0;
	CHECK(pfcp_up_create(&c, &fake_ops, NULL) == NULL, "no cp");
	c = conf_default(8);
	o.install = NULL;
	CHECK(pfcp_up_create(&c, &o, NULL) == NULL, "no install op");
	CHECK(strcmp(pfcp_cause_name(73), "rule_creation_modification_failure") == 0 &&
		      strcmp(pfcp_msg_type_name(56), "session_report_req") == 0,
	      "names");
}

/* ---- bngpod Line Group IE ---------------------------------------------------------------- */

/* A good adoption value of lg2: AC 02:bb:..:02, core 02:cc:..:22, 100.64.0.22. */
static size_t
lg_value(uint8_t *v, uint8_t action, const char *nm)
{
	static const uint8_t ac[6] = {0x02, 0xbb, 0, 0, 0, 0x02};
	static const uint8_t core[6] = {0x02, 0xcc, 0, 0, 0, 0x22};
	size_t n = strlen(nm);

	v[0] = action;
	memcpy(v + 1, ac, 6);
	memcpy(v + 7, core, 6);
	v[13] = 100;
	v[14] = 64;
	v[15] = 0;
	v[16] = 22;
	v[17] = (uint8_t)n;
	memcpy(v + 18, nm, n);
	return 18 + n;
}

/* An Association Update Request with one raw bngpod IE (value v of vlen octets). */
static size_t
lg_request(uint8_t *b, uint32_t seq, const uint8_t *v, size_t vlen, bool node_id)
{
	size_t off = 8, body;

	b[0] = 0x20;
	b[1] = PFCP_ASSOC_UPDATE_REQ;
	b[4] = (uint8_t)(seq >> 16);
	b[5] = (uint8_t)(seq >> 8);
	b[6] = (uint8_t)seq;
	b[7] = 0;
	if (node_id) {
		static const uint8_t nid[] = {0x00, 0x3c, 0x00, 0x05, 0x00, 10, 200, 0, 1};

		memcpy(b + off, nid, sizeof(nid));
		off += sizeof(nid);
	}
	if (v != NULL) {
		b[off] = 0x80;
		b[off + 1] = 0x00;
		b[off + 2] = (uint8_t)((vlen + 2) >> 8);
		b[off + 3] = (uint8_t)(vlen + 2);
		b[off + 4] = 0x7e;
		b[off + 5] = 0xd9;
		memcpy(b + off + 6, v, vlen);
		off += 6 + vlen;
	}
	body = off - 4;
	b[2] = (uint8_t)(body >> 8);
	b[3] = (uint8_t)body;
	return off;
}

static void
test_line_group_decode(void)
{
	struct pfcp_line_group lg, back;
	struct pfcp_derr e;
	uint8_t v[128], w[128], b[256];
	size_t n = lg_value(v, PFCP_LG_ADOPT, "lg2"), bl;
	char nm[80];

	CHECK(pfcp_line_group_decode(v, n, &lg) == 0 && lg.action == PFCP_LG_ADOPT &&
		      lg.ac_mac[5] == 0x02 && lg.core_mac[5] == 0x22 &&
		      lg.core_ipv4 == 0x64400016 && lg.name_len == 3 && strcmp(lg.name, "lg2") == 0,
	      "line group: good adoption decodes");
	CHECK(pfcp_line_group_encode(&lg, w, sizeof(w)) == (int)n && memcmp(v, w, n) == 0,
	      "line group: encode gives the same octets");
	n = lg_value(v, PFCP_LG_RELEASE, "a");
	CHECK(pfcp_line_group_decode(v, n, &lg) == 0 && lg.action == PFCP_LG_RELEASE &&
		      strcmp(lg.name, "a") == 0,
	      "line group: one-character name, release");
	memset(nm, 'x', 63);
	nm[0] = 'Z';
	nm[5] = '_';
	nm[6] = '.';
	nm[7] = '-';
	nm[63] = '\0';
	n = lg_value(v, PFCP_LG_ADOPT, nm);
	CHECK(n == 81 && pfcp_line_group_decode(v, n, &lg) == 0 && lg.name_len == 63,
	      "line group: 63-character name with _ . -");
	/* a release need not carry usable addresses */
	n = lg_value(v, PFCP_LG_RELEASE, "lg2");
	memset(v + 1, 0, 16);
	CHECK(pfcp_line_group_decode(v, n, &lg) == 0, "line group: release with zero addresses");

	/* every malformed variant */
	n = lg_value(v, PFCP_LG_ADOPT, "lg2");
	for (size_t cut = 0; cut < n; cut++)
		CHECK(pfcp_line_group_decode(v, cut, &lg) == -EINVAL, "line group: cut to %zu",
		      cut);
	CHECK(pfcp_line_group_decode(NULL, 0, &lg) == -EINVAL, "line group: NULL");
	v[n] = 0;
	CHECK(pfcp_line_group_decode(v, n + 1, &lg) == -EINVAL, "line group: trailing octet");
	for (unsigned act = 0; act < 256; act++) {
		if (act == PFCP_LG_ADOPT || act == PFCP_LG_RELEASE)
			continue;
		v[0] = (uint8_t)act;
		CHECK(pfcp_line_group_decode(v, n, &lg) == -EINVAL, "line group: action %u", act);
	}
	v[0] = PFCP_LG_ADOPT;
	v[17] = 0;
	CHECK(pfcp_line_group_decode(v, 18, &lg) == -EINVAL, "line group: name length 0");
	v[17] = 4;
	CHECK(pfcp_line_group_decode(v, n, &lg) == -EINVAL, "line group: name length past the IE");
	v[17] = 2;
	CHECK(pfcp_line_group_decode(v, n, &lg) == -EINVAL, "line group: name length short");
	memset(nm, 'y', 64);
	nm[64] = '\0';
	{
		uint8_t big[128];
		size_t bn = lg_value(big, PFCP_LG_ADOPT, nm);

		CHECK(pfcp_line_group_decode(big, bn, &lg) == -EINVAL, "line group: 64-char name");
	}
	{
		static const char bad_first[] = "_.-";
		static const uint8_t bad_any[] = {' ', '/', '\\', 0, 0x7f, 0x80, 0xff, ':', '@'};

		for (size_t i = 0; i < sizeof(bad_first) - 1; i++) {
			n = lg_value(v, PFCP_LG_ADOPT, "lg2");
			v[18] = (uint8_t)bad_first[i];
			CHECK(pfcp_line_group_decode(v, n, &lg) == -EINVAL,
			      "line group: name starts with '%c'", bad_first[i]);
		}
		for (size_t i = 0; i < sizeof(bad_any); i++) {
			n = lg_value(v, PFCP_LG_ADOPT, "lg2");
			v[19] = bad_any[i];
			CHECK(pfcp_line_group_decode(v, n, &lg) == -EINVAL,
			      "line group: name octet 0x%02x", bad_any[i]);
		}
	}
	n = lg_value(v, PFCP_LG_ADOPT, "lg2");
	v[1] |= 0x01;
	CHECK(pfcp_line_group_decode(v, n, &lg) == -EINVAL, "line group: multicast AC MAC");
	n = lg_value(v, PFCP_LG_ADOPT, "lg2");
	memset(v + 1, 0, 6);
	CHECK(pfcp_line_group_decode(v, n, &lg) == -EINVAL, "line group: zero AC MAC");
	n = lg_value(v, PFCP_LG_ADOPT, "lg2");
	v[7] = 0x01;
	CHECK(pfcp_line_group_decode(v, n, &lg) == -EINVAL, "line group: multicast core MAC");
	n = lg_value(v, PFCP_LG_ADOPT, "lg2");
	memset(v + 7, 0, 6);
	CHECK(pfcp_line_group_decode(v, n, &lg) == -EINVAL, "line group: zero core MAC");
	{
		static const uint8_t bad_ip[][4] = {{0, 0, 0, 0},
						    {0, 1, 2, 3},
						    {127, 0, 0, 1},
						    {224, 0, 0, 1},
						    {255, 255, 255, 255}};

		for (size_t i = 0; i < sizeof(bad_ip) / sizeof(bad_ip[0]); i++) {
			n = lg_value(v, PFCP_LG_ADOPT, "lg2");
			memcpy(v + 13, bad_ip[i], 4);
			CHECK(pfcp_line_group_decode(v, n, &lg) == -EINVAL,
			      "line group: core address %u.%u.%u.%u", bad_ip[i][0], bad_ip[i][1],
			      bad_ip[i][2], bad_ip[i][3]);
		}
	}

	/* inside a message: decoded at the top level, cause 69 when malformed */
	n = lg_value(v, PFCP_LG_ADOPT, "lg2");
	bl = lg_request(b, 9, v, n, true);
	CHECK(pfcp_msg_decode(b, bl, &M, &e) == PFCP_OK && (M.present & PFCP_M_BNGPOD_LINE_GROUP) &&
		      M.n_line_group == 1 && strcmp(M.line_group.name, "lg2") == 0,
	      "line group: in a message");
	CHECK(pfcp_msg_encode(&M, w, sizeof(w)) == (int)bl && memcmp(w, b, bl) == 0,
	      "line group: message round trip byte for byte");
	back = M.line_group;
	bl = lg_request(b, 9, v, n - 1, true);
	CHECK(pfcp_msg_decode(b, bl, &M, &e) == PFCP_EIE && e.cause == 69 &&
		      e.offending_ie == PFCP_IE_BNGPOD_LINE_GROUP,
	      "line group: short in a message is 69");
	(void)back;
	/* a BBF IE of the same type number is not ours */
	bl = lg_request(b, 9, v, n, true);
	b[8 + 9 + 4] = 0x0d;
	b[8 + 9 + 5] = 0xe9;
	CHECK(pfcp_msg_decode(b, bl, &M, &e) == PFCP_OK && !(M.present & PFCP_M_BNGPOD_LINE_GROUP),
	      "line group: type 32768 of BBF is the UP Function Features IE");
}

static int
lg_feed(struct pfcp_up *u, uint32_t seq, const uint8_t *v, size_t vlen, bool node_id)
{
	uint8_t b[512];
	size_t bl = lg_request(b, seq, v, vlen, node_id);
	unsigned before = n_sent;

	feed(u, b, bl, 0);
	if (n_sent == before)
		return -1;
	if (last_cause() < 0 || M2.h.type != PFCP_ASSOC_UPDATE_RSP ||
	    !(M2.present & PFCP_M_NODE_ID))
		return -1;
	return M2.cause;
}

/* Dual stack: the IPv6 PDRs, per-family URRs, the RA offload IE (docs/dp/pfcp.md). */
static void
test_up_dual_stack(void)
{
	struct pfcp_up_conf c = conf_default(8);
	struct pfcp_up *u;
	struct pb_sub s = pb_sub_default();
	uint32_t seq = 500;
	uint64_t seid = 0x6000, up_seid;

	c.heartbeat_ms = 1000000000;
	u = mk_up(&c);
	associate(u, 0);
	s.urr_period = 10;

	/* dual stack, three URRs */
	pb_establish(&M, &s, seid++, seq++);
	pb_add_ipv6(&M, false);
	pb_ra(&M);
	CHECK(feed_msg(u, &M, 0) == 1, "dual stack accepted: cause %d", last_cause());
	up_seid = up_seid_of_last();
	CHECK(F.last.has_ipv4 && F.last.has_ipv6 && F.last.ipv4 == 0x64500007 &&
		      F.last.n_prefix6 == 2 && F.last.prefix6_len[0] == 64 &&
		      F.last.prefix6_len[1] == 56 &&
		      memcmp(F.last.prefix6[0], PB_V6_WAN, 16) == 0 &&
		      memcmp(F.last.prefix6[1], PB_V6_PD, 16) == 0,
	      "dual stack: up_sub prefixes");
	CHECK(F.last.stag == 100 && F.last.ctag == 7 && F.last.pppoe_sid == 0x0107 &&
		      F.last.mbr_ul == 10000000 && F.last.mbr_dl == 50000000,
	      "dual stack: line and rates");
	CHECK(F.last.ra.on && F.last.ra.interval_s == 200 && F.last.ra.lifetime_s == 1800 &&
		      F.last.ra.n_dns == 1 && F.last.ra.mtu == 1492 &&
		      memcmp(F.last.ra.prefix, PB_V6_WAN, 8) == 0,
	      "dual stack: RA offload parameters");

	/* per-family usage: URR 1 total, URR 2 IPv4, URR 3 IPv6, exact */
	F.use[0] = (struct up_usage){.ul_pkts = 10,
				     .ul_bytes = 1000,
				     .dl_pkts = 20,
				     .dl_bytes = 5000,
				     .ul_pkts6 = 4,
				     .ul_bytes6 = 600,
				     .dl_pkts6 = 5,
				     .dl_bytes6 = 2500,
				     .ul_drops = 8,
				     .dl_drops = 9,
				     .ul_drop_bytes = 800,
				     .dl_drop_bytes = 900};
	pfcp_up_tick(u, 10000, cap_send, NULL);
	CHECK(last_cause() == 0 && M2.n_usage == 3, "three usage reports: %u", M2.n_usage);
	for (int i = 0; i < M2.n_usage && i < 3; i++) {
		const struct pfcp_usage_report *r = &M2.usage[i];
		static const uint64_t want[4][4] = {
			{0}, {1000, 5000, 10, 20}, {400, 2500, 6, 15}, {600, 2500, 4, 5}};

		CHECK(r->urr_id >= 1 && r->urr_id <= 3 && r->vol.ul == want[r->urr_id][0] &&
			      r->vol.dl == want[r->urr_id][1] &&
			      r->vol.ul_pkts == want[r->urr_id][2] &&
			      r->vol.dl_pkts == want[r->urr_id][3],
		      "urr %u: ul %" PRIu64 " dl %" PRIu64 " ulp %" PRIu64 " dlp %" PRIu64,
		      r->urr_id, r->vol.ul, r->vol.dl, r->vol.ul_pkts, r->vol.dl_pkts);
		/* the session's drops ride with URR 1 only (every PDR names it) */
		CHECK(r->urr_id == 1
			      ? ((r->present & PFCP_UR_DROPPED) && r->dropped_ul == 8 &&
				 r->dropped_dl == 9 && (r->present & PFCP_UR_DROPPED_BYTES) &&
				 r->dropped_ul_bytes == 800 && r->dropped_dl_bytes == 900)
			      : !(r->present & (PFCP_UR_DROPPED | PFCP_UR_DROPPED_BYTES)),
		      "urr %u: dropped packets", r->urr_id);
	}
	pb_report_rsp(&M, up_seid, M2.h.seq, 1);
	feed_msg(u, &M, 10001);

	/* removing IPv6 while the RA offload stays on: 69; with an empty RA IE: accepted */
	pb_hdr(&M, PFCP_SESS_MOD_REQ, 1, up_seid, seq++);
	M.remove_pdr[M.n_remove_pdr++] = 3;
	M.remove_pdr[M.n_remove_pdr++] = 4;
	M.remove_pdr[M.n_remove_pdr++] = 5;
	M.create_pdr[0].id = 0;
	CHECK(feed_msg(u, &M, 11000) == 69 && M2.offending_ie == PFCP_IE_BNGPOD_RA_OFFLOAD,
	      "ipv6 removed, RA left on: 69");
	pb_hdr(&M, PFCP_SESS_MOD_REQ, 1, up_seid, seq++);
	M.remove_pdr[M.n_remove_pdr++] = 3;
	M.remove_pdr[M.n_remove_pdr++] = 4;
	M.remove_pdr[M.n_remove_pdr++] = 5;
	M.present |= PFCP_M_BNGPOD_RA;
	memset(&M.ra, 0, sizeof(M.ra));
	CHECK(feed_msg(u, &M, 11000) == 1 && (F.last_changed & UP_CHG_KEYS) &&
		      (F.last_changed & UP_CHG_RA) && !F.last.has_ipv6 && !F.last.ra.on &&
		      F.last.n_prefix6 == 0,
	      "ipv6 removed: cause %d changed %#x", last_cause(), F.last_changed);

	/* IPv6-only */
	pb_establish(&M, &s, seid++, seq++);
	pb_add_ipv6(&M, true);
	CHECK(feed_msg(u, &M, 12000) == 1 && !F.last.has_ipv4 && F.last.ipv4 == 0 &&
		      F.last.has_ipv6 && F.last.n_prefix6 == 2 && F.last.stag == 100 &&
		      F.last.mbr_ul == 10000000,
	      "ipv6-only accepted: cause %d", last_cause());
	pfcp_up_free(u);
}

/*
 * IPv6 joining a session by modification (IPv6CP, or DHCPv6 of an IPoE
 * session, seconds after IPv4): its URR takes the period schedule of the URR
 * the session already has, so the periodic reports of both leave in one
 * Session Report Request and the CP's Interim carries the IPv6 share at once.
 */
static void
test_up_urr_joins_the_period(void)
{
	static struct pfcp_msg T;
	struct pfcp_up_conf c = conf_default(8);
	struct pfcp_up *u;
	struct pb_sub s = pb_sub_default();
	uint32_t seq = 700;
	uint64_t up_seid;
	int n = 0;

	c.heartbeat_ms = 1000000000;
	u = mk_up(&c);
	associate(u, 0);
	s.urr_period = 10;
	pb_establish(&M, &s, 0x7000, seq++);
	CHECK(feed_msg(u, &M, 0) == 1 && M.n_create_urr == 1, "ipv4 session, URR 1");
	up_seid = up_seid_of_last();
	/* 3 s later IPv6 joins: PDRs 3-5 naming URRs 1 and 3, Create URR 3 */
	pb_establish(&T, &s, 1, 1);
	pb_add_ipv6(&T, false);
	pb_hdr(&M, PFCP_SESS_MOD_REQ, 1, up_seid, seq++);
	for (int i = 2; i < 5; i++)
		M.create_pdr[M.n_create_pdr++] = T.create_pdr[i];
	M.create_urr[M.n_create_urr++] = T.create_urr[2];
	pb_ra(&M);
	CHECK(feed_msg(u, &M, 3000) == 1 && F.last.has_ipv6, "ipv6 joined (cause %u ie %u)",
	      M2.cause, M2.offending_ie);
	pfcp_up_tick(u, 9999, cap_send, NULL);
	CHECK(last()->b[1] != PFCP_SESS_REPORT_REQ, "no report before the period");
	pfcp_up_tick(u, 10000, cap_send, NULL);
	CHECK(last()->b[1] == PFCP_SESS_REPORT_REQ && last_cause() == 0, "periodic report");
	for (int i = 0; i < M2.n_usage; i++)
		n += M2.usage[i].urr_id == 1 || M2.usage[i].urr_id == 3;
	CHECK(M2.n_usage == 2 && n == 2, "URRs 1 and 3 in one report: %u reports", M2.n_usage);
	pfcp_up_free(u);
}

/* Refusals of the IPv6 PDRs and the RA offload IE. */
static void
test_up_dual_stack_causes(void)
{
	struct pfcp_up_conf c = conf_default(4);
	struct pfcp_up *u = mk_up(&c);
	struct pb_sub s = pb_sub_default();
	uint32_t seq = 700;
	uint64_t seid = 0x7000;

	associate(u, 0);
#define EST6() (pb_establish(&M, &s, seid++, seq), pb_add_ipv6(&M, false))
	EST6();
	M.n_create_pdr = 3; /* no IPv6 downstream PDR */
	expect_est(u, &seq, "ipv6 upstream without downstream", 67, PFCP_IE_CREATE_PDR, -1, 0);
	EST6();
	M.create_pdr[2] = M.create_pdr[4];
	M.n_create_pdr = 3; /* no IPv6 upstream PDR */
	expect_est(u, &seq, "ipv6 downstream without upstream", 67, PFCP_IE_CREATE_PDR, -1, 0);
	EST6();
	M.create_pdr[M.n_create_pdr] = M.create_pdr[2];
	M.create_pdr[M.n_create_pdr++].id = 9;
	expect_est(u, &seq, "two ipv6 upstream pdrs", 73, 0, PFCP_RULE_PDR, 9);
	EST6();
	M.create_pdr[M.n_create_pdr] = M.create_pdr[3];
	M.create_pdr[M.n_create_pdr++].id = 9;
	expect_est(u, &seq, "three ipv6 downstream pdrs", 73, 0, PFCP_RULE_PDR, 9);
	EST6();
	M.create_pdr[2].pdi.eth.ctag.vid = 8;
	expect_est(u, &seq, "ipv6 upstream on another line", 73, 0, PFCP_RULE_PDR, 3);
	EST6();
	M.create_pdr[2].pdi.pppoe_sid = 9;
	expect_est(u, &seq, "ipv6 upstream, other session id", 73, 0, PFCP_RULE_PDR, 3);
	EST6();
	M.create_pdr[2].n_qer = 0;
	expect_est(u, &seq, "ipv6 upstream without the qer", 73, 0, PFCP_RULE_PDR, 3);
	EST6();
	M.create_pdr[3].pdi.ue_ip.flags &= (uint8_t)~PFCP_UEIP_IP6PL;
	expect_est(u, &seq, "prefix without IP6PL", 69, PFCP_IE_UE_IP_ADDRESS, -1, 0);
	EST6();
	M.create_pdr[3].pdi.ue_ip.v6_plen = 65;
	expect_est(u, &seq, "prefix /65", 69, PFCP_IE_UE_IP_ADDRESS, -1, 0);
	EST6();
	M.create_pdr[4].pdi.ue_ip.v6_plen = 31;
	expect_est(u, &seq, "prefix /31", 69, PFCP_IE_UE_IP_ADDRESS, -1, 0);
	EST6();
	M.create_pdr[3].pdi.ue_ip.ipv6[15] = 1;
	expect_est(u, &seq, "prefix host bits", 69, PFCP_IE_UE_IP_ADDRESS, -1, 0);
	EST6();
	M.create_pdr[3].pdi.ue_ip.ipv6[0] = 0xfe;
	M.create_pdr[3].pdi.ue_ip.ipv6[1] = 0x80;
	memset(M.create_pdr[3].pdi.ue_ip.ipv6 + 2, 0, 14);
	expect_est(u, &seq, "prefix link-local", 69, PFCP_IE_UE_IP_ADDRESS, -1, 0);
	EST6();
	M.create_pdr[3].pdi.ue_ip.flags &= (uint8_t)~PFCP_UEIP_SD;
	expect_est(u, &seq, "prefix not destination", 69, PFCP_IE_UE_IP_ADDRESS, -1, 0);
	EST6();
	M.create_pdr[3].pdi.ue_ip.flags |= PFCP_UEIP_IPV6D;
	expect_est(u, &seq, "prefix with IPv6D", 76, PFCP_IE_UE_IP_ADDRESS, -1, 0);
	EST6();
	M.create_pdr[3].pdi.ue_ip.flags |= PFCP_UEIP_V4;
	expect_est(u, &seq, "v4 and v6 in one", 76, PFCP_IE_UE_IP_ADDRESS, -1, 0);
	EST6();
	memcpy(M.create_pdr[4].pdi.ue_ip.ipv6, PB_V6_WAN, 16);
	M.create_pdr[4].pdi.ue_ip.ipv6[7] = 0;
	expect_est(u, &seq, "prefixes overlap", 69, PFCP_IE_UE_IP_ADDRESS, -1, 0);
	EST6();
	M.create_pdr[4].far_id = 1;
	expect_est(u, &seq, "ipv6 downstream on another far", 73, 0, PFCP_RULE_PDR, 5);
	EST6();
	M.create_pdr[2].pdi.present |= PFCP_PDI_UE_IP;
	M.create_pdr[2].pdi.ue_ip = M.create_pdr[3].pdi.ue_ip;
	M.create_pdr[2].pdi.ue_ip.flags &= (uint8_t)~PFCP_UEIP_SD;
	M.create_pdr[2].pdi.ue_ip.v6_plen = 60;
	expect_est(u, &seq, "upstream ue ip not a prefix", 69, PFCP_IE_UE_IP_ADDRESS, -1, 0);
	EST6();
	M.create_pdr[2].pdi.present |= PFCP_PDI_UE_IP;
	M.create_pdr[2].pdi.ue_ip = M.create_pdr[4].pdi.ue_ip;
	M.create_pdr[2].pdi.ue_ip.flags &= (uint8_t)~PFCP_UEIP_SD;
	s.ctag = 30;
	expect_est(u, &seq, "upstream ue ip = the /56: accepted", 1, 0, -1, 0);
	s.ctag = 7;
	/* the RA offload IE against the session */
	EST6();
	pb_ra(&M);
	M.ra.prefix[7] = 8;
	expect_est(u, &seq, "ra: not the session's /64", 69, PFCP_IE_BNGPOD_RA_OFFLOAD, -1, 0);
	EST6();
	pb_ra(&M);
	memcpy(M.ra.prefix, PB_V6_PD, 8);
	expect_est(u, &seq, "ra: the /56", 69, PFCP_IE_BNGPOD_RA_OFFLOAD, -1, 0);
	EST6();
	pb_ra(&M);
	M.ra.mtu = 1500;
	expect_est(u, &seq, "ra: mtu above the session's", 69, PFCP_IE_BNGPOD_RA_OFFLOAD, -1, 0);
	pb_establish(&M, &s, seid++, seq);
	pb_ra(&M);
	expect_est(u, &seq, "ra: ipv4-only session", 69, PFCP_IE_BNGPOD_RA_OFFLOAD, -1, 0);
	/* malformed values: the decoder's 69 */
	{
		static const struct {
			const char *what;
			int field;
			uint32_t v;
		} bad[] = {{"ra: interval 3", 0, 3},
			   {"ra: interval 1801", 0, 1801},
			   {"ra: lifetime below interval", 1, 100},
			   {"ra: lifetime 9001", 1, 9001},
			   {"ra: flags 0x20", 2, 0x20},
			   {"ra: mtu 1279", 3, 1279},
			   {"ra: preferred > valid", 4, 90000},
			   {"ra: iid 0", 5, 0},
			   {"ra: dns multicast", 6, 0xff}};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			EST6();
			pb_ra(&M);
			switch (bad[i].field) {
			case 0:
				M.ra.interval_s = (uint16_t)bad[i].v;
				break;
			case 1:
				M.ra.lifetime_s = (uint16_t)bad[i].v;
				break;
			case 2:
				M.ra.flags = (uint8_t)bad[i].v;
				break;
			case 3:
				M.ra.mtu = (uint16_t)bad[i].v;
				break;
			case 4:
				M.ra.preferred_s = bad[i].v;
				break;
			case 5:
				memset(M.ra.iid, 0, 8);
				break;
			default:
				M.ra.dns[0][0] = (uint8_t)bad[i].v;
			}
			expect_est(u, &seq, bad[i].what, 69, PFCP_IE_BNGPOD_RA_OFFLOAD, -1, 0);
		}
	}
	EST6();
	pb_ra(&M);
	M.ra.lifetime_s = 0;
	M.ra.mtu = 0;
	M.ra.n_dns = 0;
	s.ctag = 31;
	expect_est(u, &seq, "ra: lifetime 0, no mtu, no dns: accepted", 1, 0, -1, 0);
#undef EST6
	pfcp_up_free(u);
}

/* The RA offload IE and the Line Group IE's IPv6 trailer, byte for byte. */
static void
test_v6_ie_codec(void)
{
	static const uint8_t ra_v[] = {
		0x00, 0xc8, 0x07, 0x08, 0x40, 0x05, 0xd4,	      /* 200, 1800, O, 1492 */
		0x20, 0x01, 0x0d, 0xb8, 0x01, 0x00, 0x00, 0x07,	      /* the /64 */
		0x00, 0x01, 0x51, 0x80, 0x00, 0x00, 0x38, 0x40,	      /* 86400, 14400 */
		0x00, 0xbb, 0x00, 0xff, 0xfe, 0x00, 0x00, 0x01, 0x01, /* IID, 1 DNS */
		0x20, 0x01, 0x0d, 0xb8, 0,    0,    0,	  0,	0,    0, 0, 0, 0, 0, 0, 0x53};
	struct pfcp_msg m;
	struct pfcp_ra_offload ra;
	struct pfcp_line_group lg;
	uint8_t out[128];
	uint8_t lgv[18 + 3 + 16] = {1,	 2,    0xbb, 0,	   0,	 0, 1,	  2,	      0xcc, 0,
				    0,	 0,    1,    100,  64,	 0, 11,	  3,	      'l',  'g',
				    '1', 0x20, 0x01, 0x0d, 0xb8, 0, 0x64, [36] = 0x11};

	pb_establish(&m, &(struct pb_sub){0}, 1, 1);
	pb_ra(&m);
	CHECK(pfcp_ra_offload_encode(&m.ra, out, sizeof(out)) == (int)sizeof(ra_v) &&
		      memcmp(out, ra_v, sizeof(ra_v)) == 0,
	      "ra offload encodes as documented");
	CHECK(pfcp_ra_offload_decode(ra_v, sizeof(ra_v), &ra) == 0 && ra.on &&
		      ra.interval_s == 200 && ra.lifetime_s == 1800 && ra.flags == 0x40 &&
		      ra.mtu == 1492 && ra.valid_s == 86400 && ra.preferred_s == 14400 &&
		      ra.n_dns == 1 && ra.dns[0][15] == 0x53,
	      "ra offload decodes");
	CHECK(pfcp_ra_offload_decode(ra_v, 0, &ra) == 0 && !ra.on, "empty ra offload: off");
	CHECK(pfcp_ra_offload_decode(ra_v, sizeof(ra_v) - 1, &ra) == -EINVAL, "ra: short dns");
	CHECK(pfcp_ra_offload_decode(ra_v, 32, &ra) == -EINVAL, "ra: dns count without dns");
	CHECK(pfcp_ra_offload_decode(ra_v, 31, &ra) == -EINVAL, "ra: 31 octets");
	CHECK(pfcp_line_group_decode(lgv, sizeof(lgv), &lg) == 0 && lg.has_core_ipv6 &&
		      lg.core_ipv6[0] == 0x20 && lg.core_ipv6[15] == 0x11,
	      "line group ipv6 trailer decodes");
	CHECK(pfcp_line_group_encode(&lg, out, sizeof(out)) == (int)sizeof(lgv) &&
		      memcmp(out, lgv, sizeof(lgv)) == 0,
	      "line group ipv6 trailer encodes");
	CHECK(pfcp_line_group_decode(lgv, sizeof(lgv) - 18 - 3 - 0, &lg) == -EINVAL ||
		      pfcp_line_group_decode(lgv, sizeof(lgv) - 1, &lg) == -EINVAL,
	      "line group trailer of 15 octets refused");
	CHECK(pfcp_line_group_decode(lgv, sizeof(lgv) - 1, &lg) == -EINVAL,
	      "line group trailer of 15 octets refused");
	CHECK(pfcp_line_group_decode(lgv, 21, &lg) == 0 && !lg.has_core_ipv6,
	      "line group without trailer");
	lgv[21] = 0xff;
	CHECK(pfcp_line_group_decode(lgv, sizeof(lgv), &lg) == -EINVAL,
	      "line group multicast core ipv6 refused");
}

static void
test_up_line_group(void)
{
	struct pfcp_up_conf c = conf_default(16);
	struct pfcp_up *u;
	struct pb_sub s1 = pb_sub_default(), s2 = pb_sub_default();
	struct pfcp_up_stats st;
	uint8_t v[128], b[512];
	size_t n, bl;
	uint32_t seq = 500;

	memset(&F, 0, sizeof(F));
	memset(&FL, 0, sizeof(FL));
	FL.standby[1] = true;
	u = pfcp_up_create(&c, &fake_lg_ops, NULL);
	n = lg_value(v, PFCP_LG_ADOPT, "lg2");
	CHECK(lg_feed(u, seq++, v, n, true) == 72 && FL.calls == 0,
	      "line group: before association, 72");
	associate(u, 0);
	s2.stag = 200;
	s2.ipv4 = 0x64500407;
	s2.mac[5] = 0x08;
	s2.sid = 0x0108;
	pb_establish(&M, &s1, 0x7001, seq++);
	CHECK(feed_msg(u, &M, 0) == 1 && F.live == 1, "line group: lg1 session established");
	pb_establish(&M, &s2, 0x7002, seq++);
	CHECK(feed_msg(u, &M, 0) == 73 && F.live == 1, "line group: lg2 (standby) refused");
	CHECK(lg_feed(u, seq++, v, n, true) == 1 && FL.calls == 1 && !FL.standby[1] &&
		      FL.last.core_ipv4 == 0x64400016,
	      "line group: adopt accepted");
	CHECK(lg_feed(u, seq++, v, n, true) == 1 && FL.calls == 2, "line group: adopt again");
	pb_establish(&M, &s2, 0x7003, seq++);
	CHECK(feed_msg(u, &M, 0) == 1 && F.live == 2, "line group: lg2 session after adoption");
	/* retransmission: answered from the cache, not applied twice */
	bl = lg_request(b, seq, v, n, true);
	feed(u, b, bl, 0);
	feed(u, b, bl, 0);
	seq++;
	CHECK(FL.calls == 3 && last_cause() == 1, "line group: retransmission from the cache");
	/* refusals by the data path: 64, nothing removed */
	FL.fail = -EEXIST;
	CHECK(lg_feed(u, seq++, v, n, true) == 64 && M2.offending_ie == PFCP_IE_BNGPOD_LINE_GROUP &&
		      F.live == 2,
	      "line group: conflict, 64");
	FL.fail = 0;
	n = lg_value(v, PFCP_LG_ADOPT, "lg9");
	CHECK(lg_feed(u, seq++, v, n, true) == 64, "line group: unknown group, 64");
	/* malformed: 69, nothing called */
	n = lg_value(v, PFCP_LG_ADOPT, "lg2");
	{
		unsigned calls = FL.calls;

		CHECK(lg_feed(u, seq++, v, n + 1, true) == 69 && FL.calls == calls,
		      "line group: trailing octet, 69");
		CHECK(lg_feed(u, seq++, v, 5, true) == 69 && FL.calls == calls,
		      "line group: short, 69");
		v[0] = 3;
		CHECK(lg_feed(u, seq++, v, n, true) == 69 && FL.calls == calls,
		      "line group: action 3, 69");
		v[0] = PFCP_LG_ADOPT;
		CHECK(lg_feed(u, seq++, v, 0, true) == 69 && FL.calls == calls,
		      "line group: empty value refused");
		CHECK(lg_feed(u, seq++, v, n, false) == 66 && M2.offending_ie == PFCP_IE_NODE_ID &&
			      FL.calls == calls,
		      "line group: no node id, 66");
		CHECK(lg_feed(u, seq++, NULL, 0, true) == 66 &&
			      M2.offending_ie == PFCP_IE_BNGPOD_LINE_GROUP && FL.calls == calls,
		      "line group: no IE, 66");
		/* two IEs */
		bl = lg_request(b, seq++, v, n, true);
		memcpy(b + bl, b + 17, 6 + n);
		bl += 6 + n;
		b[2] = (uint8_t)((bl - 4) >> 8);
		b[3] = (uint8_t)(bl - 4);
		feed(u, b, bl, 0);
		CHECK(last_cause() == 69 && FL.calls == calls, "line group: two IEs, 69");
	}
	/* release: lg2's session goes, lg1's stays */
	n = lg_value(v, PFCP_LG_RELEASE, "lg2");
	CHECK(lg_feed(u, seq++, v, n, true) == 1 && FL.standby[1] && F.live == 1 &&
		      live_consistent(u),
	      "line group: release removes lg2's session");
	CHECK(lg_feed(u, seq++, v, n, true) == 1 && F.live == 1, "line group: release again");
	pfcp_up_stats_get(u, &st);
	CHECK(st.lg_adopts == 3 && st.lg_releases == 2 && st.lg_sessions_deleted == 1 &&
		      st.lg_refused == 10 && st.sub_sessions == 1,
	      "line group: counters (%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 ")",
	      st.lg_adopts, st.lg_releases, st.lg_refused, st.lg_sessions_deleted);
	/* the lg2 session's SEID is gone: a deletion finds no context */
	pb_hdr(&M, PFCP_SESS_DEL_REQ, 1, 0, seq++);
	CHECK(feed_msg(u, &M, 0) == 65, "line group: released session unknown");
	pfcp_up_free(u);

	/* without the op: 64 */
	memset(&F, 0, sizeof(F));
	u = pfcp_up_create(&c, &fake_ops, NULL);
	associate(u, 0);
	n = lg_value(v, PFCP_LG_ADOPT, "lg2");
	CHECK(lg_feed(u, seq++, v, n, true) == 64, "line group: no op, 64");
	pfcp_up_free(u);
}

/* ---- IPoE (issue 19): the session shape, the DHCP class, the ARP ping IE ------------------- */

static struct pb_sub
pb_sub_ipoe(void)
{
	struct pb_sub s = pb_sub_default();

	s.mtu = 1500;
	s.echo_interval = 30;
	s.echo_count = 3;
	return s;
}

/* Whether the n bytes of v occur in the len bytes of buf. */
static bool
bytes_in(const uint8_t *buf, size_t len, const uint8_t *v, size_t n)
{
	for (size_t i = 0; i + n <= len; i++)
		if (memcmp(buf + i, v, n) == 0)
			return true;
	return false;
}

static void
test_ipoe_vectors(void)
{
	struct pb_sub s = pb_sub_ipoe();
	uint8_t want[sizeof(v_default_req) + sizeof(v_default_dhcp_pdr)];
	const size_t far_len = 38; /* the Create FAR at the end of v_default_req */
	const size_t head = sizeof(v_default_req) - far_len;
	struct pfcp_derr e;
	const struct pfcp_pdr *up;

	pb_establish_ipoe(&M, &s, 0x1002, 9);
	CHECK(encodes_to(&M, v_est_ipoe_req, sizeof(v_est_ipoe_req)), "builder ipoe est == vector");
	CHECK(pfcp_msg_decode(v_est_ipoe_req, sizeof(v_est_ipoe_req), &M, &e) == PFCP_OK,
	      "ipoe est dec");
	up = &M.create_pdr[0];
	CHECK(up->bbf_ohr == PFCP_BBF_OHR_ETHERNET && !(up->pdi.present & PFCP_PDI_PPPOE_SID) &&
		      !(up->pdi.present & PFCP_PDI_PPP_PROTO) && up->pdi.eth.ethertype == 0x0800 &&
		      up->pdi.ue_ip.flags == PFCP_UEIP_V4 && up->pdi.ue_ip.ipv4 == 0x64500007,
	      "ipoe est up pdr");
	CHECK(M.create_far[1].fwd.bbf_ohc.has_ids && M.create_far[1].fwd.bbf_ohc.session_id == 0,
	      "ipoe est ohc session 0");
	CHECK((M.present & PFCP_M_BNGPOD_ARP_PING) && M.arp_ping.on &&
		      M.arp_ping.interval_s == 30 && M.arp_ping.count == 3 &&
		      !(M.present & PFCP_M_BBF_LCP) && M.bbf_mtu == 1500,
	      "ipoe est arp ping, mtu");

	/* the default session with the DHCP class */
	memcpy(want, v_default_req, head);
	memcpy(want + head, v_default_dhcp_pdr, sizeof(v_default_dhcp_pdr));
	memcpy(want + head + sizeof(v_default_dhcp_pdr), v_default_req + head, far_len);
	want[2] = (uint8_t)((sizeof(want) - 4) >> 8);
	want[3] = (uint8_t)(sizeof(want) - 4);
	pb_default(&M, 1, 8, PB_CP_IP, 4789);
	pb_default_dhcp(&M);
	CHECK(encodes_to(&M, want, sizeof(want)), "builder default+dhcp == vector");
	CHECK(pfcp_msg_decode(want, sizeof(want), &M, &e) == PFCP_OK && M.n_create_pdr == 4 &&
		      (M.create_pdr[3].pdi.present & PFCP_PDI_SDF) &&
		      M.create_pdr[3].pdi.sdf.flags == PFCP_SDF_FD &&
		      M.create_pdr[3].pdi.sdf.fd_len == 35 &&
		      memcmp(M.create_pdr[3].pdi.sdf.fd, PFCP_SDF_DHCP_FD, 35) == 0,
	      "default+dhcp decodes");

	/* dual stack over IPoE: PDR 3 and the dhcp class's IPv6 PDR, inside what the builders
	 * encode */
	{
		static uint8_t buf[2048];
		int n;

		pb_establish_ipoe(&M, &s, 0x1003, 10);
		pb_add_ipoe6(&M, false);
		n = pfcp_msg_encode(&M, buf, sizeof(buf));
		CHECK(n > 0 && bytes_in(buf, (size_t)n, v_ipoe6_up_pdr, sizeof(v_ipoe6_up_pdr)),
		      "ipoe6: pdr 3 == vector");
		CHECK(pfcp_msg_decode(buf, (size_t)n, &M, &e) == PFCP_OK && M.n_create_pdr == 5 &&
			      M.create_pdr[2].id == 3 &&
			      M.create_pdr[2].bbf_ohr == PFCP_BBF_OHR_ETHERNET &&
			      M.create_pdr[2].pdi.eth.ethertype == 0x86dd &&
			      !(M.create_pdr[2].pdi.present &
				(PFCP_PDI_UE_IP | PFCP_PDI_PPPOE_SID | PFCP_PDI_PPP_PROTO)),
		      "ipoe6: pdr 3 decodes");
		pb_default(&M, 1, 8, PB_CP_IP, 4789);
		pb_default_dhcp(&M);
		pb_default_dhcp6(&M);
		n = pfcp_msg_encode(&M, buf, sizeof(buf));
		CHECK(n > 0 &&
			      bytes_in(buf, (size_t)n, v_default_dhcp6_pdr,
				       sizeof(v_default_dhcp6_pdr)) &&
			      bytes_in(buf, (size_t)n, v_default_dhcp_pdr,
				       sizeof(v_default_dhcp_pdr)),
		      "default+dhcp+dhcp6: both dhcp pdrs == vectors");
		CHECK(pfcp_msg_decode(buf, (size_t)n, &M, &e) == PFCP_OK && M.n_create_pdr == 5 &&
			      M.create_pdr[4].pdi.eth.ethertype == 0x86dd &&
			      M.create_pdr[4].pdi.sdf.flags == PFCP_SDF_FD &&
			      M.create_pdr[4].pdi.sdf.fd_len == 37 &&
			      memcmp(M.create_pdr[4].pdi.sdf.fd, PFCP_SDF_DHCP6_FD, 37) == 0,
		      "dhcp6 pdr decodes");
	}
}

static void
test_ipoe_ie_codec(void)
{
	static const uint8_t ping[] = {0x00, 0x1e, 0x03};
	/* an establishment with one Create PDR holding a PDI with an SDF Filter of FD 65 octets */
	static const uint8_t sdf_long[] = {
		0x21, 0x32, 0x00, 0x5d, 0,    0,    0,	  0,
		0,    0,    0,	  0,	0,    0,    0x01, 0x00, /* header, 93 */
		0x00, 0x01, 0x00, 0x4d,				/* Create PDR, 77 */
		0x00, 0x02, 0x00, 0x49,				/* PDI, 73 */
		0x00, 0x17, 0x00, 0x45, 0x01, 0x00, 0x00, 0x41, /* SDF Filter, 69: FD, 65 */
	};
	uint8_t msg[256], out[8];
	struct pfcp_arp_ping ap;
	struct pfcp_derr e;
	size_t n;

	CHECK(pfcp_arp_ping_decode(ping, 3, &ap) == 0 && ap.on && ap.interval_s == 30 &&
		      ap.count == 3,
	      "arp ping decodes");
	CHECK(pfcp_arp_ping_encode(&ap, out, sizeof(out)) == 3 && memcmp(out, ping, 3) == 0,
	      "arp ping encodes");
	CHECK(pfcp_arp_ping_decode(ping, 0, &ap) == 0 && !ap.on, "empty arp ping: off");
	CHECK(pfcp_arp_ping_encode(&ap, out, sizeof(out)) == 0, "arp ping off encodes empty");
	CHECK(pfcp_arp_ping_decode(ping, 2, &ap) == -EINVAL, "arp ping: 2 octets");
	CHECK(pfcp_arp_ping_decode(ping, 4, &ap) == -EINVAL, "arp ping: 4 octets");
	CHECK(pfcp_arp_ping_decode((const uint8_t[]){0, 0, 3}, 3, &ap) == -EINVAL,
	      "arp ping: interval 0");
	CHECK(pfcp_arp_ping_decode((const uint8_t[]){0, 1, 0}, 3, &ap) == -EINVAL,
	      "arp ping: count 0");
	/* a malformed ARP ping IE in a message: 69 */
	pb_establish_ipoe(&M, &(struct pb_sub){.echo_count = 1, .echo_interval = 1}, 1, 1);
	n = (size_t)pfcp_msg_encode(&M, msg, sizeof(msg));
	CHECK(n > 51 && msg[42] == 0x80 && msg[43] == 0x02 && msg[49] == 1 && msg[50] == 1,
	      "arp ping after the f-seid");
	msg[50] = 0;
	CHECK(pfcp_msg_decode(msg, n, &M, &e) == PFCP_EIE && e.cause == 69 &&
		      e.offending_ie == PFCP_IE_BNGPOD_ARP_PING,
	      "arp ping count 0 in a message: 69");
	/* a Flow Description longer than the DP keeps: decoded as fd_long */
	memset(msg, 'a', sizeof(msg));
	memcpy(msg, sdf_long, sizeof(sdf_long));
	n = sizeof(sdf_long) + 65;
	CHECK(pfcp_msg_decode(msg, n, &M, &e) == PFCP_OK && M.n_create_pdr == 1 &&
		      M.create_pdr[0].pdi.sdf.fd_long && M.create_pdr[0].pdi.sdf.fd_len == 0,
	      "sdf filter with a long flow description: fd_long (cause %u ie %u)", e.cause,
	      e.offending_ie);
	msg[sizeof(sdf_long) - 1] = 66; /* FD length past the IE */
	CHECK(pfcp_msg_decode(msg, n, &M, &e) == PFCP_EIE && e.cause == 68 &&
		      e.offending_ie == PFCP_IE_SDF_FILTER,
	      "sdf filter fd length past the ie: 68");
}

static void
test_up_ipoe(void)
{
	struct pfcp_up_conf c = conf_default(8);
	struct pfcp_up *u = mk_up(&c);
	struct pb_sub s = pb_sub_ipoe(), p = pb_sub_default();
	uint32_t seq = 900;
	uint64_t seid = 0x9000, useid;

	associate(u, 0);
	/* accepted: the flat description says IPoE, PPPoE session id 0 */
	pb_establish_ipoe(&M, &s, seid++, seq++);
	CHECK(feed_msg(u, &M, 0) == 1 && F.live == 1, "ipoe accepted");
	useid = up_seid_of_last();
	CHECK(F.last.kind == UP_SUB_IPOE && F.last.pppoe_sid == 0 && F.last.ipv4 == 0x64500007 &&
		      F.last.stag == 100 && F.last.ctag == 7 && F.last.mac[5] == 7 &&
		      F.last.mtu == 1500 && !F.last.lcp_offload && F.last.arp_ping.on &&
		      F.last.arp_ping.interval_s == 30 && F.last.arp_ping.count == 3 &&
		      F.last.mbr_ul == 10000000 && strcmp(F.last.qos_profile, "gold") == 0,
	      "ipoe description");
	/* the ARP ping's dead report: UPIR with the ARP ping IE, no LCP IE */
	CHECK(pfcp_up_report_lcp_dead(u, (F.next - 1) % FAKE_MAX, 0, cap_send, NULL) == 0 &&
		      last_cause() == 0 && M2.h.type == PFCP_SESS_REPORT_REQ &&
		      M2.h.seid == 0x9000 && M2.report_type == PFCP_REPORT_UPIR &&
		      (M2.present & PFCP_M_BNGPOD_ARP_PING) && M2.arp_ping.on &&
		      M2.arp_ping.interval_s == 30 && M2.arp_ping.count == 3 &&
		      !(M2.present & PFCP_M_BBF_LCP),
	      "ipoe dead report");
	/* a PPPoE session says PPPoE */
	pb_establish(&M, &p, seid++, seq++);
	CHECK(feed_msg(u, &M, 0) == 1 && F.last.kind == UP_SUB_PPPOE &&
		      F.last.pppoe_sid == 0x0107 && !F.last.arp_ping.on,
	      "pppoe description");
	/* modification: ARP ping off is a change of the ARP ping only */
	pb_hdr(&M, PFCP_SESS_MOD_REQ, 1, useid, seq++);
	M.present |= PFCP_M_BNGPOD_ARP_PING;
	CHECK(feed_msg(u, &M, 0) == 1 && F.last_changed == UP_CHG_ARP_PING && !F.last.arp_ping.on,
	      "ipoe: arp ping off (changed %#x)", F.last_changed);
	/* modification: IPoE -> PPPoE (OHR 3): 76 */
	pb_hdr(&M, PFCP_SESS_MOD_REQ, 1, useid, seq++);
	M.update_pdr[0].present = PFCP_PDR_ID | PFCP_PDR_BBF_OHR;
	M.update_pdr[0].id = 1;
	M.update_pdr[0].bbf_ohr = PFCP_BBF_OHR_PPP_PPPOE_ETHERNET;
	M.n_update_pdr = 1;
	CHECK(feed_msg(u, &M, 0) == 67 && M2.offending_ie == PFCP_IE_BBF_PPPOE_SESSION_ID,
	      "ipoe -> pppoe without a session id: 67");
	pb_hdr(&M, PFCP_SESS_MOD_REQ, 1, useid, seq++);
	M.update_pdr[0].present = PFCP_PDR_ID | PFCP_PDR_BBF_OHR | PFCP_PDR_PDI;
	M.update_pdr[0].id = 1;
	M.update_pdr[0].bbf_ohr = PFCP_BBF_OHR_PPP_PPPOE_ETHERNET;
	pb_establish(&M2, &p, 1, 1);
	M.update_pdr[0].pdi = M2.create_pdr[0].pdi;
	M.n_update_pdr = 1;
	M.update_far[0].present = PFCP_FAR_ID | PFCP_FAR_FWD;
	M.update_far[0].id = 2;
	M.update_far[0].fwd.present = PFCP_FWD_BBF_OHC;
	M.update_far[0].fwd.bbf_ohc = M2.create_far[1].fwd.bbf_ohc;
	M.n_update_far = 1;
	CHECK(feed_msg(u, &M, 0) == 76 && M2.offending_ie == PFCP_IE_BBF_OUTER_HEADER_REMOVAL,
	      "ipoe -> pppoe: 76");
	CHECK(F.live == 2, "both sessions still there");

#define ESTI() pb_establish_ipoe(&M, &s, seid++, seq)
	ESTI();
	M.create_pdr[0].pdi.present &= ~(uint32_t)PFCP_PDI_UE_IP;
	expect_est(u, &seq, "ipoe without upstream ue ip", 67, PFCP_IE_UE_IP_ADDRESS, -1, 0);
	ESTI();
	M.create_pdr[0].pdi.ue_ip.ipv4 = 0x64500008;
	expect_est(u, &seq, "ipoe upstream ue ip differs", 69, PFCP_IE_UE_IP_ADDRESS, -1, 0);
	ESTI();
	M.create_pdr[0].pdi.ue_ip.flags |= PFCP_UEIP_SD;
	expect_est(u, &seq, "ipoe upstream ue ip S/D 1", 69, PFCP_IE_UE_IP_ADDRESS, -1, 0);
	ESTI();
	M.create_pdr[0].pdi.present |= PFCP_PDI_PPPOE_SID;
	M.create_pdr[0].pdi.pppoe_sid = 7;
	expect_est(u, &seq, "ipoe with a pppoe session id", 69, PFCP_IE_BBF_PPPOE_SESSION_ID, -1,
		   0);
	ESTI();
	M.create_pdr[0].pdi.present |= PFCP_PDI_PPP_PROTO;
	M.create_pdr[0].pdi.ppp.flags = PFCP_BBF_PPP_DATA;
	expect_est(u, &seq, "ipoe with a ppp protocol", 69, PFCP_IE_BBF_PPP_PROTOCOL, -1, 0);
	ESTI();
	M.create_far[1].fwd.bbf_ohc.session_id = 7;
	expect_est(u, &seq, "ipoe ohc session id 7", 69, PFCP_IE_BBF_OUTER_HEADER_CREATION, -1, 0);
	ESTI();
	M.create_pdr[0].pdi.eth.ethertype = 0x8864;
	expect_est(u, &seq, "ipoe ethertype 0x8864", 69, PFCP_IE_ETHERTYPE, -1, 0);
	ESTI();
	pb_lcp(&M, &p);
	expect_est(u, &seq, "ipoe with lcp connectivity", 69, PFCP_IE_BBF_PPP_LCP_CONNECTIVITY, -1,
		   0);
	ESTI();
	pb_add_ipv6(&M, false);
	M.create_pdr[2].pdi.present &= ~(uint32_t)PFCP_PDI_PPP_PROTO;
	expect_est(u, &seq, "ipoe with ipv6 pdrs (upstream twice)", 73, 0, PFCP_RULE_PDR, 3);
	ESTI();
	pb_add_ipv6(&M, false);
	M.n_create_pdr = 2;
	M.create_pdr[M.n_create_pdr++] = M.create_pdr[3 + 0];
	M.create_pdr[2] = M.create_pdr[1];
	M.create_pdr[2].id = 4;
	M.create_pdr[2].pdi.ue_ip.flags = PFCP_UEIP_V6 | PFCP_UEIP_SD | PFCP_UEIP_IP6PL;
	memcpy(M.create_pdr[2].pdi.ue_ip.ipv6, PB_V6_WAN, 16);
	M.create_pdr[2].pdi.ue_ip.v6_plen = 64;
	expect_est(u, &seq, "ipoe with an ipv6 downstream pdr, no upstream", 67, PFCP_IE_CREATE_PDR,
		   -1, 0);
	ESTI();
	M.create_pdr[0].pdi.ue_ip.flags = PFCP_UEIP_V6 | PFCP_UEIP_IP6PL;
	expect_est(u, &seq, "ipoe upstream ipv4 pdr with an ipv6 ue ip", 69, PFCP_IE_UE_IP_ADDRESS,
		   -1, 0);
	ESTI();
	M.create_pdr[0].pdi.present |= PFCP_PDI_SDF;
	M.create_pdr[0].pdi.sdf.flags = PFCP_SDF_FD;
	expect_est(u, &seq, "sdf filter on a subscriber", 76, PFCP_IE_SDF_FILTER, -1, 0);
	pb_establish(&M, &p, seid++, seq);
	M.present |= PFCP_M_BNGPOD_ARP_PING;
	M.arp_ping = (struct pfcp_arp_ping){.on = true, .interval_s = 5, .count = 2};
	expect_est(u, &seq, "arp ping on a pppoe session", 69, PFCP_IE_BNGPOD_ARP_PING, -1, 0);
	/* the data path refuses (group without IPoE, same line and MAC): 73, upstream PDR */
	ESTI();
	F.fail_install = -EINVAL;
	expect_est(u, &seq, "ipoe refused by the data path", 73, 0, PFCP_RULE_PDR, 1);
	F.fail_install = 0;
#undef ESTI
	pfcp_up_free(u);
}

/* Dual stack over IPoE (issue 19): PDR 3 with Ethertype 0x86DD and BBF OHR 1, PDRs 4/5. */
static void
test_up_ipoe6(void)
{
	static struct pfcp_msg T;
	struct pfcp_up_conf c = conf_default(8);
	struct pfcp_up *u = mk_up(&c);
	struct pb_sub s = pb_sub_ipoe(), p = pb_sub_default();
	uint32_t seq = 1200;
	uint64_t seid = 0xa000, useid;

	associate(u, 0);
	/* dual stack in one establishment, with the RA offload */
	pb_establish_ipoe(&M, &s, seid++, seq++);
	pb_add_ipoe6(&M, false);
	pb_ra(&M);
	CHECK(feed_msg(u, &M, 0) == 1 && F.live == 1, "ipoe dual stack accepted (cause %u)",
	      M2.cause);
	CHECK(F.last.kind == UP_SUB_IPOE && F.last.pppoe_sid == 0 && F.last.has_ipv4 &&
		      F.last.ipv4 == 0x64500007 && F.last.has_ipv6 && F.last.n_prefix6 == 2 &&
		      F.last.prefix6_len[0] == 64 && F.last.prefix6_len[1] == 56 &&
		      memcmp(F.last.prefix6[0], PB_V6_WAN, 16) == 0 && F.last.ra.on &&
		      F.last.stag == 100 && F.last.ctag == 7 && F.last.mac[5] == 7,
	      "ipoe dual stack description");
	/* the RA's MTU option up to the IPoE default MTU, 1500, without a BBF MTU IE */
	pb_establish_ipoe(&M, &s, seid++, seq);
	M.present &= ~(uint32_t)PFCP_M_BBF_MTU;
	M.create_pdr[0].pdi.eth.ctag.vid = 8;
	M.create_pdr[0].pdi.eth.mac.src[5] = 8;
	pb_add_ipoe6(&M, false);
	memcpy(M.create_pdr[3].pdi.ue_ip.ipv6 + 6, "\x99", 1);
	memcpy(M.create_pdr[4].pdi.ue_ip.ipv6 + 5, "\x99", 1);
	M.create_pdr[1].pdi.ue_ip.ipv4 = M.create_pdr[0].pdi.ue_ip.ipv4 = 0x64500009;
	pb_ra(&M);
	memcpy(M.ra.prefix, M.create_pdr[3].pdi.ue_ip.ipv6, 8);
	M.ra.mtu = 1500;
	expect_est(u, &seq, "ipoe ra mtu 1500 with the default mtu", 1, 0, -1, 0);
	pb_establish_ipoe(&M, &s, seid++, seq);
	pb_add_ipoe6(&M, false);
	pb_ra(&M);
	M.ra.mtu = 1501;
	expect_est(u, &seq, "ipoe ra mtu above the session's", 69, PFCP_IE_BNGPOD_RA_OFFLOAD, -1,
		   0);
	/* IPv6 only: the (line, MAC) key from PDR 3 */
	pb_establish_ipoe(&M, &s, seid++, seq++);
	pb_add_ipoe6(&M, true);
	CHECK(feed_msg(u, &M, 0) == 1 && F.live == 3, "ipoe ipv6-only accepted (cause %u ie %u)",
	      M2.cause, M2.offending_ie);
	useid = up_seid_of_last();
	CHECK(F.last.kind == UP_SUB_IPOE && !F.last.has_ipv4 && F.last.ipv4 == 0 &&
		      F.last.has_ipv6 && F.last.n_prefix6 == 2 && F.last.stag == 100 &&
		      F.last.ctag == 7 && F.last.mac[5] == 7 && F.last.pppoe_sid == 0,
	      "ipoe ipv6-only description");
	/* IPv4 added to it: Create PDR 1/2 */
	pb_establish_ipoe(&T, &s, 1, 1);
	pb_hdr(&M, PFCP_SESS_MOD_REQ, 1, useid, seq++);
	M.create_pdr[0] = T.create_pdr[0];
	M.create_pdr[1] = T.create_pdr[1];
	M.n_create_pdr = 2;
	CHECK(feed_msg(u, &M, 0) == 1 && (F.last_changed & UP_CHG_KEYS) && F.last.has_ipv4 &&
		      F.last.ipv4 == 0x64500007 && F.last.has_ipv6,
	      "ipv4 added to an ipv6-only ipoe session (cause %u)", M2.cause);
	/* IPv6 removed (DHCPv6 Release): Remove PDR 3/4/5 */
	pb_hdr(&M, PFCP_SESS_MOD_REQ, 1, useid, seq++);
	M.remove_pdr[M.n_remove_pdr++] = 3;
	M.remove_pdr[M.n_remove_pdr++] = 4;
	M.remove_pdr[M.n_remove_pdr++] = 5;
	CHECK(feed_msg(u, &M, 0) == 1 && (F.last_changed & UP_CHG_KEYS) && F.last.has_ipv4 &&
		      !F.last.has_ipv6 && F.last.n_prefix6 == 0,
	      "ipv6 removed from a dual-stack ipoe session (cause %u)", M2.cause);
	/* IPv6 added back, with the RA offload */
	pb_establish_ipoe(&T, &s, 1, 1);
	pb_add_ipoe6(&T, false);
	pb_hdr(&M, PFCP_SESS_MOD_REQ, 1, useid, seq++);
	for (int i = 2; i < 5; i++) {
		M.create_pdr[M.n_create_pdr] = T.create_pdr[i];
		M.create_pdr[M.n_create_pdr].n_urr = 1; /* URR 1 only: no new URR */
		M.n_create_pdr++;
	}
	pb_ra(&M);
	CHECK(feed_msg(u, &M, 0) == 1 && F.last.has_ipv4 && F.last.has_ipv6 && F.last.ra.on,
	      "ipv6 added to an ipoe session by modification (cause %u ie %u)", M2.cause,
	      M2.offending_ie);
	/* the last upstream PDRs removed: 69, the CP deletes the session instead */
	pb_hdr(&M, PFCP_SESS_MOD_REQ, 1, useid, seq++);
	M.remove_pdr[M.n_remove_pdr++] = 1;
	M.remove_pdr[M.n_remove_pdr++] = 3;
	CHECK(feed_msg(u, &M, 0) == 69 && M2.offending_ie == PFCP_IE_REMOVE_PDR,
	      "every upstream pdr removed: 69");

#define ESTI6() (pb_establish_ipoe(&M, &s, seid++, seq), pb_add_ipoe6(&M, false))
	ESTI6();
	M.create_pdr[2].pdi.eth.mac.src[5] = 8;
	expect_est(u, &seq, "ipoe pdr 3 with another mac", 69, PFCP_IE_MAC_ADDRESS, -1, 0);
	ESTI6();
	M.create_pdr[2].pdi.eth.stag.vid = 101;
	expect_est(u, &seq, "ipoe pdr 3 with another s-tag", 69, PFCP_IE_S_TAG, -1, 0);
	ESTI6();
	M.create_pdr[2].pdi.eth.ctag.vid = 8;
	expect_est(u, &seq, "ipoe pdr 3 with another c-tag", 69, PFCP_IE_C_TAG, -1, 0);
	ESTI6();
	M.create_pdr[2].pdi.present |= PFCP_PDI_PPPOE_SID;
	M.create_pdr[2].pdi.pppoe_sid = 7;
	expect_est(u, &seq, "ipoe pdr 3 with a pppoe session id", 69, PFCP_IE_BBF_PPPOE_SESSION_ID,
		   -1, 0);
	ESTI6();
	M.create_pdr[2].pdi.present |= PFCP_PDI_PPP_PROTO;
	M.create_pdr[2].pdi.ppp.flags = PFCP_BBF_PPP_SPECIFIC;
	M.create_pdr[2].pdi.ppp.proto = 0x0057;
	expect_est(u, &seq, "ipoe pdr 3 with a ppp protocol", 69, PFCP_IE_BBF_PPP_PROTOCOL, -1, 0);
	/* mixed kinds: an IPoE PDR 1 and a PPPoE PDR 3 (and the reverse) */
	pb_establish_ipoe(&M, &s, seid++, seq);
	pb_establish(&T, &p, 1, 1);
	pb_add_ipv6(&T, false);
	M.create_pdr[M.n_create_pdr++] = T.create_pdr[2];
	M.create_pdr[M.n_create_pdr++] = T.create_pdr[3];
	M.create_pdr[M.n_create_pdr - 2].n_urr = M.create_pdr[M.n_create_pdr - 1].n_urr = 1;
	expect_est(u, &seq, "ipoe pdr 1 with a pppoe pdr 3", 69, PFCP_IE_BBF_PPPOE_SESSION_ID, -1,
		   0);
	pb_establish(&M, &p, seid++, seq);
	pb_establish_ipoe(&T, &s, 1, 1);
	pb_add_ipoe6(&T, false);
	M.create_pdr[M.n_create_pdr++] = T.create_pdr[2];
	M.create_pdr[M.n_create_pdr++] = T.create_pdr[3];
	M.create_pdr[M.n_create_pdr - 2].n_urr = M.create_pdr[M.n_create_pdr - 1].n_urr = 1;
	expect_est(u, &seq, "pppoe pdr 1 with an ipoe pdr 3", 69, PFCP_IE_BBF_PPPOE_SESSION_ID, -1,
		   0);
	/* PDR 3 without its Ethertype is a second IPv4 upstream PDR */
	ESTI6();
	M.create_pdr[2].pdi.eth.present &= ~(uint32_t)PFCP_EF_ETHERTYPE;
	expect_est(u, &seq, "ipoe pdr 3 without the ethertype", 73, 0, PFCP_RULE_PDR, 3);
	/* the upstream IPv6 UE IP, when given, is one of the session's prefixes */
	ESTI6();
	M.create_pdr[2].pdi.present |= PFCP_PDI_UE_IP;
	M.create_pdr[2].pdi.ue_ip.flags = PFCP_UEIP_V6 | PFCP_UEIP_IP6PL;
	memcpy(M.create_pdr[2].pdi.ue_ip.ipv6, PB_V6_WAN, 16);
	M.create_pdr[2].pdi.ue_ip.v6_plen = 64;
	expect_est(u, &seq, "ipoe pdr 3 with the /64 as ue ip", 1, 0, -1, 0);
	ESTI6();
	M.create_pdr[2].pdi.present |= PFCP_PDI_UE_IP;
	M.create_pdr[2].pdi.ue_ip.flags = PFCP_UEIP_V6 | PFCP_UEIP_IP6PL;
	memcpy(M.create_pdr[2].pdi.ue_ip.ipv6, PB_V6_WAN, 16);
	M.create_pdr[2].pdi.ue_ip.ipv6[7] ^= 1;
	M.create_pdr[2].pdi.ue_ip.v6_plen = 64;
	expect_est(u, &seq, "ipoe pdr 3 with a foreign ue ip", 69, PFCP_IE_UE_IP_ADDRESS, -1, 0);
	/* IPv6-only IPoE with LCP: 69 as any IPoE */
	pb_establish_ipoe(&M, &s, seid++, seq);
	pb_add_ipoe6(&M, true);
	pb_lcp(&M, &p);
	expect_est(u, &seq, "ipoe ipv6-only with lcp connectivity", 69,
		   PFCP_IE_BBF_PPP_LCP_CONNECTIVITY, -1, 0);
#undef ESTI6
	pfcp_up_free(u);
}

static void
test_up_default_dhcp(void)
{
	struct pfcp_up_conf c = conf_default(8);
	struct pfcp_up *u = mk_up(&c);
	uint32_t seq = 950;
	uint64_t dseid;

	associate(u, 0);
	pb_default(&M, 1, seq++, PB_CP_IP, 4789);
	pb_default_dhcp(&M);
	CHECK(feed_msg(u, &M, 0) == 1 && F.redir.classes == (UP_REDIRECT_ALL & ~UP_REDIRECT_DHCP6),
	      "default with dhcp: every class but dhcp6");
	CHECK(c.fallback.classes & UP_REDIRECT_DHCP, "the static fallback includes dhcp");
	CHECK(c.fallback.classes & UP_REDIRECT_DHCP6, "the static fallback includes dhcp6");
	dseid = up_seid_of_last();
	pb_default(&M, 3, seq++, PB_CP_IP, 4789);
	pb_default_dhcp(&M);
	pb_default_dhcp6(&M);
	CHECK(feed_msg(u, &M, 0) == 64, "a second default session with dhcp6: 64");
	pb_hdr(&M, PFCP_SESS_MOD_REQ, 1, dseid, seq++);
	M.n_create_pdr = 0;
	pb_default_dhcp6(&M);
	CHECK(feed_msg(u, &M, 0) == 1 && F.redir.classes == UP_REDIRECT_ALL,
	      "dhcp6 pdr added by modification: every class");
	pb_hdr(&M, PFCP_SESS_MOD_REQ, 1, dseid, seq++);
	M.remove_pdr[M.n_remove_pdr++] = 5;
	CHECK(feed_msg(u, &M, 0) == 1 && F.redir.classes == (UP_REDIRECT_ALL & ~UP_REDIRECT_DHCP6),
	      "dhcp6 pdr removed");
#define DEF() (pb_default(&M, 2, seq, PB_CP_IP, 4789), pb_default_dhcp(&M))
	DEF();
	memcpy(M.create_pdr[3].pdi.sdf.fd, "permit out 17 from any 67 to any 68", 35);
	expect_est(u, &seq, "dhcp: another flow description", 76, PFCP_IE_SDF_FILTER, -1, 0);
	DEF();
	M.create_pdr[3].pdi.sdf.fd_len = 34;
	expect_est(u, &seq, "dhcp: flow description cut short", 76, PFCP_IE_SDF_FILTER, -1, 0);
	DEF();
	M.create_pdr[3].pdi.sdf.flags = PFCP_SDF_FD | PFCP_SDF_BID;
	expect_est(u, &seq, "dhcp: sdf with more than FD", 76, PFCP_IE_SDF_FILTER, -1, 0);
	DEF();
	M.create_pdr[3].pdi.eth.ethertype = 0x8863;
	expect_est(u, &seq, "dhcp sdf on the discovery ethertype", 76, PFCP_IE_SDF_FILTER, -1, 0);
	DEF();
	M.create_pdr[3].pdi.present |= PFCP_PDI_PPP_PROTO;
	M.create_pdr[3].pdi.ppp.flags = PFCP_BBF_PPP_CONTROL;
	expect_est(u, &seq, "dhcp with a ppp protocol", 69, PFCP_IE_BBF_PPP_PROTOCOL, -1, 0);
#undef DEF
	/* the dhcp class's IPv6 PDR: exactly its flow description, on 0x86DD only */
#define DEF6() (pb_default(&M, 2, seq, PB_CP_IP, 4789), pb_default_dhcp6(&M))
	DEF6();
	memcpy(M.create_pdr[3].pdi.sdf.fd, PFCP_SDF_DHCP_FD, 35);
	M.create_pdr[3].pdi.sdf.fd_len = 35;
	expect_est(u, &seq, "dhcp6: the dhcpv4 flow description on 0x86dd", 76, PFCP_IE_SDF_FILTER,
		   -1, 0);
	DEF6();
	M.create_pdr[3].pdi.eth.ethertype = 0x0800;
	expect_est(u, &seq, "dhcp6: its flow description on 0x0800", 76, PFCP_IE_SDF_FILTER, -1, 0);
	DEF6();
	M.create_pdr[3].pdi.sdf.fd[36] = '6';
	expect_est(u, &seq, "dhcp6: another port", 76, PFCP_IE_SDF_FILTER, -1, 0);
	DEF6();
	M.create_pdr[3].pdi.sdf.flags = PFCP_SDF_FD | PFCP_SDF_BID;
	expect_est(u, &seq, "dhcp6: sdf with more than FD", 76, PFCP_IE_SDF_FILTER, -1, 0);
	DEF6();
	M.create_pdr[3].pdi.present &= ~(uint32_t)PFCP_PDI_SDF;
	expect_est(u, &seq, "dhcp6: no sdf", 67, PFCP_IE_SDF_FILTER, -1, 0);
	DEF6();
	M.create_pdr[3].pdi.present |= PFCP_PDI_PPP_PROTO;
	M.create_pdr[3].pdi.ppp.flags = PFCP_BBF_PPP_CONTROL;
	expect_est(u, &seq, "dhcp6 with a ppp protocol", 69, PFCP_IE_BBF_PPP_PROTOCOL, -1, 0);
#undef DEF6
	pfcp_up_free(u);
}

int
main(void)
{
	test_header();
	test_decode_vectors();
	test_encode_vectors();
	test_dropped_ie();
	test_round_trip();
	test_malformed();
	test_up_create_refuses();
	test_up_basics();
	test_up_causes();
	test_up_lifecycle();
	test_up_default_session();
	test_up_heartbeat();
	test_up_report_carry();
	test_up_handle_change();
	test_up_scale();
	test_line_group_decode();
	test_up_line_group();
	test_up_dual_stack();
	test_up_urr_joins_the_period();
	test_up_dual_stack_causes();
	test_v6_ie_codec();
	test_ipoe_vectors();
	test_ipoe_ie_codec();
	test_up_ipoe();
	test_up_ipoe6();
	test_up_default_dhcp();
	return harness_report();
}

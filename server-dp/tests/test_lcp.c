/*
 * Tests of the LCP keepalive offload (lcp.h).
 *
 * usage: test_lcp FIXTURE_DIR [SEED_DIR]
 *
 * SEED_DIR, when given, receives every upstream LCP frame of the worker
 * cases as a seed of fuzz/fuzz_ctl.c (layout in tests/ctl_frames.h).
 *
 * EAL as in test_rewrite (--no-huge, in memory), mbufs from a small pool.
 * Upstream frames are written byte by byte (tests/ctl_frames.h) on the lines
 * of the lab fixture and classified by the real classifier before
 * lcp_input(); expected replies and requests are written out independently.
 * Covers: byte-exact Echo-Replies on both access ports (downstream TPID
 * 0x8100 and 0x88a8, each answered from the other upstream TPID), identifier
 * and data echoed, our magic, PPPoE and Ethernet padding, a chained mbuf;
 * loopback drops; liveness; punts (other codes, other protocols, sessions
 * without the offload, after disable); malformed LCP; the Echo-Request
 * builder; timers with a fake clock (request spacing, dead after N misses,
 * replies, every other reply, send failures, vanished sessions, disable,
 * catch-up after a pause); 65536 sessions with bounded work per tick.
 * The last line of output is "N passed, M failed".
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "ctl_frames.h"
#include "lcp.h"
#define HARNESS_EAL
#include "harness.h"

static struct rte_mempool *pool;
static struct dp_config *cfg;
static struct line_map *lmap;
static const char *seed_dir;
static unsigned int n_seeds;

static const uint8_t SUB_MAC[6] = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};
#define OUR_MAGIC 0x11223344u
#define PEER_MAGIC 0xa5a5a5a5u
#define SID 0x1234
#define T0_MS 1000000ull

/* Line l of the lab fixture: tags and the access port's downstream TPID. */
static const struct {
	unsigned int stag, ctag, tpid;
} LINES[2] = {{LAB_LINE0_STAG, LAB_LINE0_CTAG, 0x8100}, {LAB_LINE1_STAG, LAB_LINE1_CTAG, 0x88a8}};

static void
make_session(struct dp_session *s, int line, uint16_t sid)
{
	memset(s, 0, sizeof(*s));
	s->line = (uint16_t)line;
	s->stag = (uint16_t)LINES[line].stag;
	s->ctag = (uint16_t)LINES[line].ctag;
	s->sid = sid;
	memcpy(s->mac, SUB_MAC, 6);
	if (rw_encap_tmpl_init(&s->encap, SUB_MAC, LAB_AC_MAC, (uint16_t)LINES[line].tpid, s->stag,
			       s->ctag, sid) != 0)
		abort();
}

/* LCP packet: code, id, length field, magic, data. Returns its size. */
static size_t
lcp_pkt(uint8_t *p, unsigned int code, unsigned int id, unsigned int len_field, uint32_t magic,
	const uint8_t *data, size_t dlen)
{
	p[0] = (uint8_t)code;
	p[1] = (uint8_t)id;
	ctl_put16(p + 2, len_field);
	ctl_put32(p + 4, magic);
	memcpy(p + 8, data, dlen);
	return 8 + dlen;
}

static struct rte_mbuf *
mbuf_of(const uint8_t *f, size_t n)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	char *d;

	if (m == NULL)
		abort();
	d = rte_pktmbuf_append(m, (uint16_t)n);
	if (d == NULL)
		abort();
	memcpy(d, f, n);
	return m;
}

static enum cls_kind
classify_m(struct rte_mbuf *m, struct cls_result *r)
{
	struct cls_counters cc = {0};

	return classify_frame(lmap, rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m),
			      r, &cc);
}

/* The Echo-Reply or -Request the DP must send, written out field by field. */
static size_t
expect_frame(uint8_t *e, int line, unsigned int pcp, unsigned int code, unsigned int ident,
	     uint32_t magic, const uint8_t *data, size_t dlen)
{
	size_t n = ctl_qinq(e, SUB_MAC, LAB_AC_MAC, LINES[line].tpid, pcp, LINES[line].stag,
			    LINES[line].ctag, 0x8864);

	n += ctl_pppoe(e + n, 0, SID, (unsigned int)(2 + 8 + dlen));
	ctl_put16(e + n, 0xc021);
	n += 2;
	n += lcp_pkt(e + n, code, ident, (unsigned int)(8 + dlen), magic, data, dlen);
	if (n < 60) {
		memset(e + n, 0, 60 - n);
		n = 60;
	}
	return n;
}

static bool
mbuf_equals(const struct rte_mbuf *m, const uint8_t *e, size_t n)
{
	return m->nb_segs == 1 && rte_pktmbuf_pkt_len(m) == n && rte_pktmbuf_data_len(m) == n &&
	       memcmp(rte_pktmbuf_mtod(m, const uint8_t *), e, n) == 0;
}

/* --- worker: replies ---------------------------------------------------------- */

static void
test_replies(void)
{
	static const struct {
		const char *name;
		int line;
		unsigned int up_tpid;
		size_t dlen, extra, pad_to;
	} rows[] = {
		{"port 0x8100 from 0x88a8, no data", 0, 0x88a8, 0, 0, 60},
		{"port 0x88a8 from 0x8100, 4 data", 1, 0x8100, 4, 0, 60},
		{"port 0x8100, 100 data", 0, 0x8100, 100, 0, 0},
		{"port 0x88a8, PPPoE padding", 1, 0x88a8, 2, 6, 60},
		{"port 0x8100, 1400 data", 0, 0x88a8, 1400, 0, 0},
		{"port 0x88a8, unpadded 38-byte frame", 1, 0x88a8, 0, 0, 0},
		{"port 0x8100, padded to 64", 0, 0x8100, 10, 3, 64},
	};
	uint8_t data[1500], body[1600], f[1700], e[1700];
	struct lcp *l = lcp_create(16, NULL, SOCKET_ID_ANY);
	struct dp_session s[2];
	struct cls_result r;
	size_t i, n, en;

	check(l != NULL, "replies", "lcp_create");
	if (l == NULL)
		return;
	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 3);
	make_session(&s[0], 0, SID);
	make_session(&s[1], 1, SID);
	check(lcp_enable(l, 3, OUR_MAGIC, 30, 3, T0_MS) == 0, "replies", "enable");
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int line = rows[i].line;
		uint8_t ident = (uint8_t)(0x40 + i);
		struct rte_mbuf *m;
		enum lcp_verdict v;

		n = lcp_pkt(body, 9, ident, (unsigned int)(8 + rows[i].dlen), PEER_MAGIC, data,
			    rows[i].dlen);
		n = ctl_session_frame(f, LAB_AC_MAC, SUB_MAC, rows[i].up_tpid, LINES[line].stag,
				      LINES[line].ctag, SID, 0xc021, body, n, rows[i].extra,
				      rows[i].pad_to);
		ctl_write_seed(seed_dir, "lcp", n_seeds++, (uint8_t)(i & 1), OUR_MAGIC, LAB_VNI, f,
			       n);
		m = mbuf_of(f, n);
		check(classify_m(m, &r) == CLS_PPPOE_SESS_CTRL, rows[i].name, "classified as ctrl");
		v = lcp_input(l, m, &r, 3, &s[line], 99);
		check(v == LCP_TX, rows[i].name, "verdict LCP_TX");
		en = expect_frame(e, line, LCP_DEFAULT_PCP, 10, ident, OUR_MAGIC, data,
				  rows[i].dlen);
		check(mbuf_equals(m, e, en), rows[i].name, "reply byte-exact");
		rte_pktmbuf_free(m);
	}
	check(l->wcount[LCP_W_ECHO_ANSWERED] == i, "replies", "counted");

	/* A chained mbuf: the second segment holds only Ethernet padding. */
	{
		struct rte_mbuf *m1, *m2;

		n = lcp_pkt(body, 9, 0x77, 8 + 8, PEER_MAGIC, data, 8);
		n = ctl_session_frame(f, LAB_AC_MAC, SUB_MAC, 0x8100, LINES[0].stag, LINES[0].ctag,
				      SID, 0xc021, body, n, 0, 60);
		m1 = mbuf_of(f, 46);
		m2 = mbuf_of(f + 46, n - 46);
		check(rte_pktmbuf_chain(m1, m2) == 0, "chained", "chain");
		check(classify_m(m1, &r) == CLS_PPPOE_SESS_CTRL, "chained", "classified");
		check(lcp_input(l, m1, &r, 3, &s[0], 99) == LCP_TX, "chained", "LCP_TX");
		en = expect_frame(e, 0, LCP_DEFAULT_PCP, 10, 0x77, OUR_MAGIC, data, 8);
		check(mbuf_equals(m1, e, en), "chained", "one segment, byte-exact");
		rte_pktmbuf_free(m1);
	}

	/* PCP 0 by parameter; magic 0 (none negotiated) answers a peer's 0. */
	{
		struct lcp_params prm;
		struct lcp *l0;
		struct rte_mbuf *m;

		lcp_params_default(&prm);
		prm.pcp = 0;
		l0 = lcp_create(4, &prm, SOCKET_ID_ANY);
		check(l0 != NULL && lcp_enable(l0, 1, 0, 10, 3, T0_MS) == 0, "magic 0", "enable");
		n = lcp_pkt(body, 9, 0x01, 8, 0, NULL, 0);
		n = ctl_session_frame(f, LAB_AC_MAC, SUB_MAC, 0x88a8, LINES[1].stag, LINES[1].ctag,
				      SID, 0xc021, body, n, 0, 60);
		m = mbuf_of(f, n);
		classify_m(m, &r);
		check(lcp_input(l0, m, &r, 1, &s[1], 1) == LCP_TX, "magic 0", "answered");
		en = expect_frame(e, 1, 0, 10, 0x01, 0, NULL, 0);
		check(mbuf_equals(m, e, en), "magic 0", "byte-exact, PCP 0, magic 0");
		rte_pktmbuf_free(m);
		lcp_free(l0);
	}
	lcp_free(l);
}

/* --- worker: loopback, liveness, punts, malformed ------------------------------ */

/* Build, classify and feed one LCP frame on line 0; returns the verdict. */
static enum lcp_verdict
feed(struct lcp *l, uint32_t id, const struct dp_session *s, const uint8_t *body, size_t blen,
     unsigned int proto, uint64_t tsc, bool *unchanged)
{
	uint8_t f[256];
	struct cls_result r;
	struct rte_mbuf *m;
	enum lcp_verdict v;
	size_t n;

	n = ctl_session_frame(f, LAB_AC_MAC, SUB_MAC, 0x8100, LINES[0].stag, LINES[0].ctag, SID,
			      proto, body, blen, 0, 60);
	ctl_write_seed(seed_dir, "lcp", n_seeds++, CTL_FUZZ_TAILROOM, OUR_MAGIC, LAB_VNI, f, n);
	m = mbuf_of(f, n);
	if (classify_m(m, &r) != CLS_PPPOE_SESS_CTRL)
		abort();
	v = lcp_input(l, m, &r, id, s, tsc);
	if (unchanged != NULL)
		*unchanged = rte_pktmbuf_pkt_len(m) == n &&
			     memcmp(rte_pktmbuf_mtod(m, const uint8_t *), f, n) == 0;
	rte_pktmbuf_free(m);
	return v;
}

static void
test_worker_cases(void)
{
	static const unsigned int other_codes[] = {1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 14, 0, 255};
	struct lcp *l = lcp_create(16, NULL, SOCKET_ID_ANY);
	uint8_t body[64];
	struct dp_session s;
	struct lcp_info info;
	struct cls_result r;
	bool same;
	size_t n, i;

	make_session(&s, 0, SID);
	lcp_enable(l, 2, OUR_MAGIC, 30, 3, T0_MS);

	/* Loopback: our own magic in a request or a reply. */
	n = lcp_pkt(body, 9, 1, 8, OUR_MAGIC, NULL, 0);
	check(feed(l, 2, &s, body, n, 0xc021, 0, &same) == LCP_DROP && same, "loopback request",
	      "dropped, untouched");
	n = lcp_pkt(body, 10, 1, 8, OUR_MAGIC, NULL, 0);
	check(feed(l, 2, &s, body, n, 0xc021, 0, &same) == LCP_DROP && same, "loopback reply",
	      "dropped, untouched");
	check(l->wcount[LCP_W_DROP_LOOPBACK] == 2, "loopback", "counted twice");
	lcp_get(l, 2, &info);
	check(info.replies == 0, "loopback reply", "no liveness");

	/* Liveness: a reply is consumed and recorded with the worker's TSC. */
	n = lcp_pkt(body, 10, 9, 12, PEER_MAGIC, (const uint8_t *)"abcd", 4);
	check(feed(l, 2, &s, body, n, 0xc021, 123456789, NULL) == LCP_CONSUMED, "reply",
	      "consumed");
	lcp_get(l, 2, &info);
	check(info.replies == 1 && info.last_reply_tsc == 123456789, "reply", "recorded");
	check(l->wcount[LCP_W_REPLY_HEARD] == 1, "reply", "counted");

	/* Other codes go to the CP untouched. */
	for (i = 0; i < sizeof(other_codes) / sizeof(other_codes[0]); i++) {
		n = lcp_pkt(body, other_codes[i], 1, 12, PEER_MAGIC, (const uint8_t *)"wxyz", 4);
		check(feed(l, 2, &s, body, n, 0xc021, 0, &same) == LCP_PUNT && same, "other code",
		      "punted untouched");
	}
	check(l->wcount[LCP_W_PUNT_OTHER_CODE] == i, "other code", "counted");
	/* Other protocols, even with echo-like bytes. */
	n = lcp_pkt(body, 9, 1, 8, PEER_MAGIC, NULL, 0);
	check(feed(l, 2, &s, body, n, 0xc023, 0, &same) == LCP_PUNT && same, "pap", "punted");
	check(feed(l, 2, &s, body, n, 0x8021, 0, &same) == LCP_PUNT && same, "ipcp", "punted");
	check(l->wcount[LCP_W_PUNT_NOT_LCP] == 2, "not lcp", "counted");
	/* Sessions without the offload; ids out of range. */
	check(feed(l, 3, &s, body, n, 0xc021, 0, &same) == LCP_PUNT && same, "not offloaded",
	      "punted");
	check(feed(l, 16, &s, body, n, 0xc021, 0, &same) == LCP_PUNT, "id >= capacity", "punted");
	check(feed(l, UINT32_MAX, &s, body, n, 0xc021, 0, &same) == LCP_PUNT, "id none", "punted");
	check(l->wcount[LCP_W_PUNT_NOT_OFFLOADED] == 3, "not offloaded", "counted");

	/* Malformed. */
	n = lcp_pkt(body, 9, 1, 3, PEER_MAGIC, NULL, 0);
	check(feed(l, 2, &s, body, n, 0xc021, 0, &same) == LCP_DROP && same, "length 3", "drop");
	n = lcp_pkt(body, 9, 1, 9, PEER_MAGIC, NULL, 0);
	check(feed(l, 2, &s, body, n, 0xc021, 0, &same) == LCP_DROP && same,
	      "length beyond payload", "drop");
	n = lcp_pkt(body, 1, 1, 200, PEER_MAGIC, NULL, 0);
	check(feed(l, 2, &s, body, n, 0xc021, 0, &same) == LCP_DROP && same,
	      "configure length beyond payload", "drop");
	check(feed(l, 2, &s, body, 2, 0xc021, 0, &same) == LCP_DROP && same, "2-byte LCP", "drop");
	check(feed(l, 2, &s, body, 0, 0xc021, 0, &same) == LCP_DROP && same, "empty LCP", "drop");
	check(l->wcount[LCP_W_DROP_MALFORMED] == 5, "malformed", "counted");
	n = lcp_pkt(body, 9, 1, 7, PEER_MAGIC, NULL, 0);
	check(feed(l, 2, &s, body, n, 0xc021, 0, &same) == LCP_DROP && same, "echo length 7",
	      "drop");
	n = lcp_pkt(body, 10, 1, 4, PEER_MAGIC, NULL, 0);
	check(feed(l, 2, &s, body, 4, 0xc021, 0, &same) == LCP_DROP && same, "reply length 4",
	      "drop");
	check(l->wcount[LCP_W_DROP_SHORT_ECHO] == 2, "short echo", "counted");
	/* A result whose window is not a QinQ PPPoE payload. */
	{
		uint8_t f[64];
		struct rte_mbuf *m;

		n = lcp_pkt(body, 9, 1, 8, PEER_MAGIC, NULL, 0);
		n = ctl_session_frame(f, LAB_AC_MAC, SUB_MAC, 0x8100, LINES[0].stag, LINES[0].ctag,
				      SID, 0xc021, body, n, 0, 0);
		m = mbuf_of(f, n);
		classify_m(m, &r);
		r.l3_off = 22;
		check(lcp_input(l, m, &r, 2, &s, 0) == LCP_DROP, "bad window", "offset 22 dropped");
		classify_m(m, &r);
		r.l3_len = 200;
		check(lcp_input(l, m, &r, 2, &s, 0) == LCP_DROP, "bad window", "past the data");
		classify_m(m, &r);
		r.kind = CLS_PPPOE_SESS_IPV4;
		check(lcp_input(l, m, &r, 2, &s, 0) == LCP_PUNT, "bad window", "other kind punted");
		rte_pktmbuf_free(m);
	}

	/* Disable: the CP takes the echoes back. */
	lcp_disable(l, 2);
	n = lcp_pkt(body, 9, 1, 8, PEER_MAGIC, NULL, 0);
	check(feed(l, 2, &s, body, n, 0xc021, 0, &same) == LCP_PUNT && same, "disabled", "punted");
	lcp_get(l, 2, &info);
	check(!info.enabled && lcp_scheduled(l) == 0, "disabled", "off the wheel");

	/* Re-enable with another magic: the reply carries it. */
	lcp_enable(l, 2, 0xcafef00d, 30, 3, T0_MS);
	n = lcp_pkt(body, 9, 1, 8, 0xcafef00d, NULL, 0);
	check(feed(l, 2, &s, body, n, 0xc021, 0, &same) == LCP_DROP, "new magic", "loop detected");
	{
		uint8_t f[64], e[64];
		struct rte_mbuf *m;

		n = lcp_pkt(body, 9, 5, 8, PEER_MAGIC, NULL, 0);
		n = ctl_session_frame(f, LAB_AC_MAC, SUB_MAC, 0x8100, LINES[0].stag, LINES[0].ctag,
				      SID, 0xc021, body, n, 0, 60);
		m = mbuf_of(f, n);
		classify_m(m, &r);
		check(lcp_input(l, m, &r, 2, &s, 0) == LCP_TX, "new magic", "answered");
		n = expect_frame(e, 0, LCP_DEFAULT_PCP, 10, 5, 0xcafef00d, NULL, 0);
		check(mbuf_equals(m, e, n), "new magic", "reply carries it");
		rte_pktmbuf_free(m);
	}
	lcp_free(l);
}

/* --- the Echo-Request builder ---------------------------------------------- */

static void
test_builder(void)
{
	uint8_t buf[128], e[128];
	struct dp_session s;
	int line, n;
	size_t en;

	for (line = 0; line < 2; line++) {
		make_session(&s, line, SID);
		memset(buf, 0x5a, sizeof(buf));
		n = lcp_echo_request_build(buf, sizeof(buf), &s.encap, 5, 0x9c, 0xdeadbeef);
		en = expect_frame(e, line, 5, 9, 0x9c, 0xdeadbeef, NULL, 0);
		check(n == 60 && en == 60 && memcmp(buf, e, en) == 0, "builder",
		      line ? "TPID 0x88a8 byte-exact" : "TPID 0x8100 byte-exact");
		check(buf[60] == 0x5a, "builder", "nothing written past 60");
	}
	check(lcp_echo_request_build(buf, 59, &s.encap, 0, 1, 1) == -ENOSPC, "builder",
	      "-ENOSPC below 60");
}

/* --- timers ------------------------------------------------------------------- */

struct fake {
	struct lcp *l;
	struct dp_session *sess; /* by id */
	uint32_t n;
	uint32_t cur; /* id of the last ops->session() call */
	uint32_t *sent;
	uint32_t *dead;
	uint64_t *last_send_ms;
	uint16_t *ident; /* identifier of the last request, 0xffff before the first */
	uint64_t sends, deads;
	uint64_t now_ms;
	uint64_t dead_at_ms;
	int fail;     /* send returns -1 */
	int answer;   /* 0: none; 1: every request; 2: every other request */
	int no_sess;  /* session() returns NULL */
	uint32_t bad; /* frames that are not our Echo-Request for cur */
	uint32_t spacing_bad;
	uint64_t spacing_ms; /* expected spacing of consecutive requests, 0 = unchecked */
	struct rte_mbuf *m;
};

static const struct dp_session *
fake_session(void *arg, uint32_t id)
{
	struct fake *f = arg;

	f->cur = id;
	return f->no_sess || id >= f->n ? NULL : &f->sess[id];
}

/* The subscriber's Echo-Reply to the request in frame, through lcp_input(). */
static void
fake_answer(struct fake *f, const uint8_t *frame)
{
	uint8_t body[8], up[64];
	struct cls_result r = {.kind = CLS_PPPOE_SESS_CTRL,
			       .line = 0,
			       .proto = CLS_PPP_LCP,
			       .l3_off = 30,
			       .l3_len = 8};
	const struct dp_session *s = &f->sess[f->cur];
	size_t n;
	char *d;

	lcp_pkt(body, 10, frame[31], 8, PEER_MAGIC, NULL, 0);
	n = ctl_session_frame(up, LAB_AC_MAC, s->mac, 0x8100, s->stag, s->ctag, s->sid, 0xc021,
			      body, 8, 0, 60);
	rte_pktmbuf_reset(f->m);
	d = rte_pktmbuf_append(f->m, (uint16_t)n);
	memcpy(d, up, n);
	r.stag = s->stag;
	r.ctag = s->ctag;
	r.sid = s->sid;
	if (lcp_input(f->l, f->m, &r, f->cur, s, f->now_ms) != LCP_CONSUMED)
		f->bad++;
}

static int
fake_send(void *arg, const uint8_t *frame, uint16_t len)
{
	struct fake *f = arg;
	const struct dp_session *s = &f->sess[f->cur];
	uint32_t id = f->cur;

	if (f->fail)
		return -1;
	if (len != 60 || memcmp(frame, s->encap.hdr, 12) != 0 || ctl_get16(frame + 24) != s->sid ||
	    ctl_get16(frame + 28) != 0xc021 || frame[30] != 9 ||
	    ctl_get32(frame + 34) != OUR_MAGIC ||
	    (f->ident[id] != 0xffff && frame[31] != (uint8_t)(f->ident[id] + 1)))
		f->bad++;
	f->ident[id] = frame[31];
	if (f->spacing_ms && f->sent[id] > 0 && f->now_ms - f->last_send_ms[id] != f->spacing_ms)
		f->spacing_bad++;
	f->sent[id]++;
	f->sends++;
	f->last_send_ms[id] = f->now_ms;
	if (f->answer == 1 || (f->answer == 2 && f->sent[id] % 2 == 0))
		fake_answer(f, frame);
	return 0;
}

static void
fake_dead(void *arg, uint32_t id)
{
	struct fake *f = arg;

	f->dead[id]++;
	f->deads++;
	f->dead_at_ms = f->now_ms;
}

static const struct lcp_tick_ops FAKE_OPS = {fake_session, fake_send, fake_dead};

static void
fake_init(struct fake *f, struct lcp *l, uint32_t n)
{
	memset(f, 0, sizeof(*f));
	f->l = l;
	f->n = n;
	f->sess = calloc(n, sizeof(*f->sess));
	f->sent = calloc(n, sizeof(*f->sent));
	f->dead = calloc(n, sizeof(*f->dead));
	f->last_send_ms = calloc(n, sizeof(*f->last_send_ms));
	f->ident = malloc(n * sizeof(*f->ident));
	f->m = rte_pktmbuf_alloc(pool);
	if (f->sess == NULL || f->sent == NULL || f->dead == NULL || f->last_send_ms == NULL ||
	    f->ident == NULL || f->m == NULL)
		abort();
	memset(f->ident, 0xff, n * sizeof(*f->ident));
	for (uint32_t i = 0; i < n; i++) {
		make_session(&f->sess[i], (int)(i & 1), (uint16_t)(1 + i % 0xfffe));
		f->sess[i].mac[5] = (uint8_t)i;
	}
}

static void
fake_fini(struct fake *f)
{
	free(f->sess);
	free(f->sent);
	free(f->dead);
	free(f->last_send_ms);
	free(f->ident);
	rte_pktmbuf_free(f->m);
}

/* Tick every millisecond from f->now_ms + 1 to until_ms. */
static void
run_until(struct fake *f, uint64_t until_ms, uint32_t *max_actions, uint32_t *max_visits)
{
	while (f->now_ms < until_ms) {
		f->now_ms++;
		lcp_tick(f->l, f->now_ms, &FAKE_OPS, f);
		if (max_actions != NULL && f->l->tick_actions > *max_actions)
			*max_actions = f->l->tick_actions;
		if (max_visits != NULL && f->l->tick_visits > *max_visits)
			*max_visits = f->l->tick_visits;
	}
}

static void
test_timers(void)
{
	struct lcp *l = lcp_create(64, NULL, SOCKET_ID_ANY);
	struct lcp_info info;
	struct fake f;
	uint64_t first;

	fake_init(&f, l, 64);
	f.now_ms = T0_MS;
	f.spacing_ms = 1000;
	check(lcp_enable(l, 64, 1, 1, 3, T0_MS) == -EINVAL, "enable", "id out of range");
	check(lcp_enable(l, 5, 1, 0, 3, T0_MS) == -EINVAL, "enable", "interval 0");
	check(lcp_enable(l, 5, 1, 1, 0, T0_MS) == -EINVAL, "enable", "misses 0");

	/* Silent subscriber: 3 requests 1 s apart, then dead once, 3 s after the first. */
	check(lcp_enable(l, 5, OUR_MAGIC, 1, 3, T0_MS) == 0, "silent", "enable");
	lcp_tick(l, T0_MS, &FAKE_OPS, &f);
	run_until(&f, T0_MS + 499, NULL, NULL);
	check(f.sent[5] == 0, "silent", "nothing before interval/2");
	run_until(&f, T0_MS + 1000, NULL, NULL);
	check(f.sent[5] == 1, "silent", "first request within [interval/2, interval]");
	first = f.last_send_ms[5];
	run_until(&f, T0_MS + 10000, NULL, NULL);
	check(f.sent[5] == 3 && f.dead[5] == 1, "silent", "3 requests, then dead once");
	check(f.dead_at_ms == first + 3000, "silent", "dead 3 intervals after the first request");
	check(f.bad == 0 && f.spacing_bad == 0, "silent", "requests well-formed, 1 s apart");
	lcp_get(l, 5, &info);
	check(!info.enabled && info.dead && lcp_scheduled(l) == 0, "silent", "offload off");
	check(l->ccount[LCP_C_DEAD] == 1 && l->ccount[LCP_C_MISSED] == 3, "silent", "counted");

	/* A subscriber that answers: never dead; stop answering: dead after 3. */
	f.answer = 1;
	check(lcp_enable(l, 5, OUR_MAGIC, 1, 3, f.now_ms) == 0, "answering", "re-enable");
	lcp_get(l, 5, &info);
	check(info.enabled && !info.dead, "answering", "revived");
	f.sent[5] = 0;
	f.dead[5] = 0;
	run_until(&f, f.now_ms + 30000, NULL, NULL);
	lcp_get(l, 5, &info);
	check(f.sent[5] >= 29 && f.sent[5] <= 30 && f.dead[5] == 0, "answering",
	      "a request a second, alive");
	check(info.missed == 0 && info.replies == f.sent[5] && f.bad == 0, "answering",
	      "every reply heard");
	f.answer = 0;
	f.sent[5] = 0;
	run_until(&f, f.now_ms + 10000, NULL, NULL);
	check(f.sent[5] == 3 && f.dead[5] == 1, "answering", "silent again: dead after 3 more");

	/* Every other request answered: 1 miss at a time; dead only if 1 is allowed. */
	f.answer = 2;
	memset(f.sent, 0, 64 * sizeof(*f.sent));
	memset(f.dead, 0, 64 * sizeof(*f.dead));
	lcp_enable(l, 6, OUR_MAGIC, 2, 2, f.now_ms);
	lcp_enable(l, 7, OUR_MAGIC, 2, 1, f.now_ms);
	f.spacing_ms = 2000;
	run_until(&f, f.now_ms + 40000, NULL, NULL);
	check(f.dead[6] == 0 && f.sent[6] >= 19, "every other", "misses 2: alive");
	check(f.dead[7] == 1 && f.sent[7] == 1, "every other", "misses 1: dead at the first miss");
	lcp_disable(l, 6);

	/* Send failures are not misses. */
	f.answer = 0;
	f.fail = 1;
	f.spacing_ms = 0;
	memset(f.sent, 0, 64 * sizeof(*f.sent));
	lcp_enable(l, 8, OUR_MAGIC, 1, 2, f.now_ms);
	run_until(&f, f.now_ms + 10000, NULL, NULL);
	check(f.dead[8] == 0 && l->ccount[LCP_C_SEND_FAILED] >= 9, "send failed", "not dead");
	f.fail = 0;
	run_until(&f, f.now_ms + 5000, NULL, NULL);
	check(f.dead[8] == 1 && f.sent[8] == 2, "send failed", "dead after 2 real misses");

	/* A session gone from the tables: offload stops, no death reported. */
	f.no_sess = 1;
	lcp_enable(l, 9, OUR_MAGIC, 1, 2, f.now_ms);
	run_until(&f, f.now_ms + 3000, NULL, NULL);
	lcp_get(l, 9, &info);
	check(!info.enabled && f.dead[9] == 0 && l->ccount[LCP_C_NO_SESSION] == 1, "no session",
	      "stopped, counted");
	f.no_sess = 0;
	check(lcp_scheduled(l) == 0, "timers", "wheel empty");
	fake_fini(&f);
	lcp_free(l);
}

/* Disable while entries sit in the half-processed slot; catch-up after a pause. */
static void
test_wheel_edges(void)
{
	struct lcp_params prm;
	struct lcp *l;
	struct fake f;
	uint32_t i, bad = 0, ma = 0;

	lcp_params_default(&prm);
	prm.max_actions = 1;
	l = lcp_create(1000, &prm, SOCKET_ID_ANY);
	fake_init(&f, l, 1000);
	f.now_ms = T0_MS;
	f.answer = 1;
	for (i = 0; i < 1000; i++)
		lcp_enable(l, i, OUR_MAGIC, 1, 3, T0_MS);
	/* One call at T0 + 1000 with a budget of 1: stops inside a slot. */
	f.now_ms = T0_MS + 1000;
	lcp_tick(l, f.now_ms, &FAKE_OPS, &f);
	check(f.sends == 1 && l->tick_actions == 1, "budget 1", "one action");
	check(l->cur_loaded, "budget 1", "stopped with a slot half done");
	for (i = 0; i < 1000; i++)
		lcp_disable(l, i);
	check(lcp_scheduled(l) == 0, "disable", "all off the wheel");
	run_until(&f, f.now_ms + 10000, NULL, NULL);
	check(f.sends == 1, "disable", "nothing sent after disable");
	lcp_free(l);
	fake_fini(&f);

	/* Catch-up: 1000 sessions, then a 20 s pause; each fires once, bounded. */
	l = lcp_create(1000, NULL, SOCKET_ID_ANY);
	fake_init(&f, l, 1000);
	f.answer = 1;
	f.now_ms = T0_MS;
	lcp_tick(l, T0_MS, &FAKE_OPS, &f);
	for (i = 0; i < 1000; i++)
		lcp_enable(l, i, OUR_MAGIC, 1, 3, T0_MS);
	f.now_ms = T0_MS + 20000;
	lcp_tick(l, f.now_ms, &FAKE_OPS, &f);
	check(l->tick_actions <= LCP_DEFAULT_MAX_ACTIONS, "catch-up", "first call bounded");
	run_until(&f, f.now_ms + 20, &ma, NULL);
	for (i = 0; i < 1000; i++)
		bad += f.sent[i] != 1;
	check(bad == 0 && ma <= LCP_DEFAULT_MAX_ACTIONS, "catch-up", "each once, bounded");
	run_until(&f, f.now_ms + 3000, NULL, NULL);
	for (i = 0, bad = 0; i < 1000; i++)
		bad += f.sent[i] < 3 || f.sent[i] > 4 || f.dead[i] != 0;
	check(bad == 0 && f.bad == 0, "catch-up", "back to a request a second");
	lcp_free(l);
	fake_fini(&f);
}

/* 65536 sessions: bounded work per tick, every session served, every death once. */
static void
test_scale(void)
{
	const uint32_t n = 65536;
	struct lcp *l = lcp_create(n, NULL, SOCKET_ID_ANY);
	uint32_t i, ma = 0, mv = 0, lo = UINT32_MAX, hi = 0, bad = 0;
	uint64_t t, worst = 0, start;
	struct fake f;

	check(l != NULL, "scale", "create 65536");
	if (l == NULL)
		return;
	fake_init(&f, l, n);
	f.answer = 1;
	f.now_ms = T0_MS;
	for (i = 0; i < n; i++)
		lcp_enable(l, i, OUR_MAGIC, 1, 3, T0_MS);
	start = rte_rdtsc();
	while (f.now_ms < T0_MS + 6000) {
		f.now_ms++;
		t = rte_rdtsc();
		lcp_tick(l, f.now_ms, &FAKE_OPS, &f);
		t = rte_rdtsc() - t;
		worst = t > worst ? t : worst;
		ma = l->tick_actions > ma ? l->tick_actions : ma;
		mv = l->tick_visits > mv ? l->tick_visits : mv;
	}
	for (i = 0; i < n; i++) {
		lo = f.sent[i] < lo ? f.sent[i] : lo;
		hi = f.sent[i] > hi ? f.sent[i] : hi;
	}
	check(ma <= LCP_DEFAULT_MAX_ACTIONS && mv <= LCP_DEFAULT_MAX_VISITS, "scale",
	      "actions and visits per tick within budget");
	check(lo >= 5 && hi <= 6 && f.deads == 0 && f.bad == 0, "scale",
	      "5-6 requests each in 6 s, all answered, none dead");
	printf("scale: 65536 sessions, 1 s interval: %lu requests in 6 s, per tick max %u actions, "
	       "%u visits, %.1f us (incl. test callbacks); %.2f s\n",
	       (unsigned long)f.sends, ma, mv, (double)worst * 1e6 / (double)rte_get_tsc_hz(),
	       (double)(rte_rdtsc() - start) / (double)rte_get_tsc_hz());
	f.answer = 0;
	run_until(&f, f.now_ms + 6000, &ma, &mv);
	for (i = 0; i < n; i++)
		bad += f.dead[i] != 1;
	check(bad == 0 && f.deads == n && lcp_scheduled(l) == 0, "scale",
	      "silent: every session dead exactly once");
	check(ma <= LCP_DEFAULT_MAX_ACTIONS && mv <= LCP_DEFAULT_MAX_VISITS, "scale",
	      "bounded while dying");

	/* Hour-long intervals: entries are skipped once per 4.096 s revolution. */
	f.deads = f.sends = 0;
	ma = mv = 0;
	for (i = 0; i < n; i++)
		lcp_enable(l, i, OUR_MAGIC, 3600, 3, f.now_ms);
	{
		uint64_t visits = 0, ticks = 0;

		while (ticks < 10000) {
			f.now_ms++;
			lcp_tick(l, f.now_ms, &FAKE_OPS, &f);
			visits += l->tick_visits;
			mv = l->tick_visits > mv ? l->tick_visits : mv;
			ticks++;
		}
		check(f.sends == 0 && mv <= LCP_DEFAULT_MAX_VISITS, "scale 3600 s",
		      "no request, bounded visits");
		check(visits <= 3 * (uint64_t)n, "scale 3600 s",
		      "about one visit per session per revolution");
		printf("scale: 65536 sessions, 3600 s interval: %.1f visits per tick on average, "
		       "max %u\n",
		       (double)visits / (double)ticks, mv);
	}
	lcp_free(l);
	fake_fini(&f);
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		printf("usage: test_lcp FIXTURE_DIR\n0 passed, 1 failed\n");
		return 1;
	}
	if (harness_eal_init(argv[0]) != 0)
		return 1;
	pool = rte_pktmbuf_pool_create("lcp_test", 255, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (pool == NULL) {
		printf("FAIL mempool: %s\n0 passed, 1 failed\n", rte_strerror(rte_errno));
		return 1;
	}
	ctl_load_map(argv[1], "lab_dp4.ini", &cfg, &lmap);
	seed_dir = argc > 2 ? argv[2] : NULL;
	{
		struct lcp_params prm;

		lcp_params_default(&prm);
		prm.pcp = 8;
		check(lcp_create(16, &prm, SOCKET_ID_ANY) == NULL && rte_errno == EINVAL, "create",
		      "PCP 8 refused");
	}
	test_replies();
	test_worker_cases();
	test_builder();
	test_timers();
	test_wheel_edges();
	test_scale();
	check(rte_mempool_avail_count(pool) == 255, "pool", "every mbuf freed");
	rte_mempool_free(pool);
	free(cfg);
	free(lmap);
	rte_eal_cleanup();
	return harness_report();
}

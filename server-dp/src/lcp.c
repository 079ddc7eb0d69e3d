/*
 * LCP keepalive offload (lcp.h): the worker's answer to Echo-Requests and the
 * control thread's timer wheel of our own Echo-Requests.
 */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "lcp.h"

const char *const lcp_wcount_names[LCP_W_MAX] = {
#define LCP_WCOUNT_DEF(sym, name) [LCP_W_##sym] = name,
#include "lcp.def"
#undef LCP_WCOUNT_DEF
};

const char *const lcp_ccount_names[LCP_C_MAX] = {
#define LCP_CCOUNT_DEF(sym, name) [LCP_C_##sym] = name,
#include "lcp.def"
#undef LCP_CCOUNT_DEF
};

#define LCP_NIL UINT32_MAX
#define LCP_MAX_CAPACITY (1u << 24)
#define LCP_STATE_ON 1ull

/* --- frames ------------------------------------------------------------------ */

static inline uint32_t
be32_load(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void
be32_store(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void
be16_store(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/*
 * The 30-byte access header of a session's LCP frame: the downstream template
 * with PCP pcp in both tags, PPPoE length lcp_len + 2 and PPP protocol LCP
 * (the template carries IPv4).
 */
static inline void
lcp_access_hdr(uint8_t *h, const struct rw_encap_tmpl *t, uint8_t pcp, uint16_t lcp_len)
{
	memcpy(h, t->hdr, RW_ENCAP_LEN);
	h[RW_STAG_TCI_OFF] = (uint8_t)((h[RW_STAG_TCI_OFF] & 0x1f) | (pcp & 7) << 5);
	h[RW_CTAG_TCI_OFF] = (uint8_t)((h[RW_CTAG_TCI_OFF] & 0x1f) | (pcp & 7) << 5);
	be16_store(h + RW_PPPOE_LEN_OFF, (uint16_t)(lcp_len + 2));
	be16_store(h + RW_ENCAP_LEN - 2, CLS_PPP_LCP);
}

int
lcp_echo_request_build(uint8_t *buf, size_t cap, const struct rw_encap_tmpl *t, uint8_t pcp,
		       uint8_t ident, uint32_t magic)
{
	uint8_t *p = buf + RW_ENCAP_LEN;

	if (cap < LCP_FRAME_MIN_LEN)
		return -ENOSPC;
	memset(buf, 0, LCP_FRAME_MIN_LEN);
	lcp_access_hdr(buf, t, pcp, LCP_ECHO_MIN_LEN);
	p[0] = LCP_CODE_ECHO_REQUEST;
	p[1] = ident;
	be16_store(p + 2, LCP_ECHO_MIN_LEN);
	be32_store(p + 4, magic);
	return LCP_FRAME_MIN_LEN;
}

/* --- worker ------------------------------------------------------------------ */

static inline enum lcp_verdict
lcp_count(struct lcp *l, enum lcp_wcount c, enum lcp_verdict v)
{
	l->wcount[c]++;
	return v;
}

enum lcp_verdict
lcp_input(struct lcp *l, struct rte_mbuf *m, const struct cls_result *r, uint32_t id,
	  const struct dp_session *s, uint64_t now_tsc)
{
	uint32_t magic, len, want, target, dlen;
	uint8_t *f, *p;
	uint64_t st;

	if (r->kind != CLS_PPPOE_SESS_CTRL || r->proto != CLS_PPP_LCP)
		return lcp_count(l, LCP_W_PUNT_NOT_LCP, LCP_PUNT);
	if (id >= l->capacity || s == NULL)
		return lcp_count(l, LCP_W_PUNT_NOT_OFFLOADED, LCP_PUNT);
	st = __atomic_load_n(&l->state[id], __ATOMIC_ACQUIRE);
	if (!(st & LCP_STATE_ON))
		return lcp_count(l, LCP_W_PUNT_NOT_OFFLOADED, LCP_PUNT);
	magic = (uint32_t)(st >> 32);

	/* The classifier's window must be the PPP payload of a QinQ PPPoE frame. */
	dlen = rte_pktmbuf_data_len(m);
	if (r->l3_off != RW_ENCAP_LEN || (uint32_t)r->l3_off + r->l3_len > dlen ||
	    r->l3_len < LCP_HDR_LEN)
		return lcp_count(l, LCP_W_DROP_MALFORMED, LCP_DROP);
	f = rte_pktmbuf_mtod(m, uint8_t *);
	p = f + r->l3_off;
	len = cls_be16(p + 2);
	/* RFC 1661: octets past Length are padding; a Length past the data is an error. */
	if (len < LCP_HDR_LEN || len > r->l3_len)
		return lcp_count(l, LCP_W_DROP_MALFORMED, LCP_DROP);
	if (p[0] != LCP_CODE_ECHO_REQUEST && p[0] != LCP_CODE_ECHO_REPLY)
		return lcp_count(l, LCP_W_PUNT_OTHER_CODE, LCP_PUNT);
	if (len < LCP_ECHO_MIN_LEN)
		return lcp_count(l, LCP_W_DROP_SHORT_ECHO, LCP_DROP);
	/* Our own magic number coming back: the line is looped (RFC 1661 5.8). */
	if (magic != 0 && be32_load(p + 4) == magic)
		return lcp_count(l, LCP_W_DROP_LOOPBACK, LCP_DROP);

	if (p[0] == LCP_CODE_ECHO_REPLY) {
		__atomic_fetch_add(&l->live[id].replies, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&l->live[id].last_tsc, now_tsc, __ATOMIC_RELAXED);
		return lcp_count(l, LCP_W_REPLY_HEARD, LCP_CONSUMED);
	}

	/*
	 * Echo-Request -> Echo-Reply in place. The frame becomes exactly the
	 * header and the LCP packet, zero-padded to the Ethernet minimum when the
	 * segment has room. Segments after the first hold only padding (the
	 * classifier's window is inside the first one): they are released.
	 */
	want = RW_ENCAP_LEN + len;
	target = want < LCP_FRAME_MIN_LEN ? LCP_FRAME_MIN_LEN : want;
	if (target > dlen && rte_pktmbuf_tailroom(m) < target - dlen)
		target = want; /* no room to pad (want <= dlen): send it short */
	if (m->next != NULL) {
		rte_pktmbuf_free(m->next);
		m->next = NULL;
		m->nb_segs = 1;
		m->pkt_len = dlen;
	}
	if (dlen > target)
		rte_pktmbuf_trim(m, (uint16_t)(dlen - target));
	else if (dlen < target)
		rte_pktmbuf_append(m, (uint16_t)(target - dlen));
	if (target > want)
		memset(f + want, 0, target - want);
	lcp_access_hdr(f, &s->encap, l->pcp, (uint16_t)len);
	p[0] = LCP_CODE_ECHO_REPLY; /* identifier and data stay */
	be32_store(p + 4, magic);
	return lcp_count(l, LCP_W_ECHO_ANSWERED, LCP_TX);
}

/* --- timer wheel lists (control thread) ------------------------------------- */

static inline uint32_t
lk_slot(const struct lcp *l, uint64_t ms)
{
	return l->capacity + (uint32_t)(ms & (LCP_WHEEL_SLOTS - 1));
}

static inline uint32_t
lk_cur(const struct lcp *l)
{
	return l->capacity + LCP_WHEEL_SLOTS;
}

static inline int
lk_linked(const struct lcp *l, uint32_t n)
{
	return l->lk[n].next != LCP_NIL;
}

static inline int
lk_empty(const struct lcp *l, uint32_t head)
{
	return l->lk[head].next == head;
}

static void
lk_insert_tail(struct lcp *l, uint32_t head, uint32_t n)
{
	uint32_t last = l->lk[head].prev;

	l->lk[n].prev = last;
	l->lk[n].next = head;
	l->lk[last].next = n;
	l->lk[head].prev = n;
}

static void
lk_unlink(struct lcp *l, uint32_t n)
{
	struct lcp_link *e = &l->lk[n];

	l->lk[e->prev].next = e->next;
	l->lk[e->next].prev = e->prev;
	e->prev = e->next = LCP_NIL;
}

/* Move every node of from (non-empty or not) to the empty list to. */
static void
lk_move_all(struct lcp *l, uint32_t from, uint32_t to)
{
	uint32_t first = l->lk[from].next, last = l->lk[from].prev;

	if (first == from)
		return;
	l->lk[to].next = first;
	l->lk[to].prev = last;
	l->lk[first].prev = to;
	l->lk[last].next = to;
	l->lk[from].next = l->lk[from].prev = from;
}

/*
 * Put id in the slot of due. A slot already passed (or the one being
 * processed) would be seen only a revolution later, so an earlier due time
 * goes to the next slot the wheel will load; the entry keeps its due time.
 */
static void
lcp_schedule(struct lcp *l, uint32_t id, uint64_t due_ms)
{
	uint64_t min = l->wheel_ms + (l->cur_loaded ? 1 : 0);

	l->tm[id].due_ms = due_ms;
	lk_insert_tail(l, lk_slot(l, due_ms < min ? min : due_ms), id);
}

/* --- control thread ---------------------------------------------------------- */

void
lcp_params_default(struct lcp_params *p)
{
	p->pcp = LCP_DEFAULT_PCP;
	p->max_actions = LCP_DEFAULT_MAX_ACTIONS;
	p->max_visits = LCP_DEFAULT_MAX_VISITS;
}

struct lcp *
lcp_create(uint32_t capacity, const struct lcp_params *prm, int socket)
{
	struct lcp_params def;
	struct lcp *l;
	uint32_t i, nodes;

	if (prm == NULL) {
		lcp_params_default(&def);
		prm = &def;
	}
	if (capacity == 0)
		capacity = SESSION_DEFAULT_CAPACITY;
	if (capacity > LCP_MAX_CAPACITY || prm->pcp > 7 || prm->max_actions == 0 ||
	    prm->max_visits == 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	nodes = capacity + LCP_WHEEL_SLOTS + 1;
	l = rte_zmalloc_socket("lcp", sizeof(*l), RTE_CACHE_LINE_SIZE, socket);
	if (l == NULL)
		goto nomem;
	l->capacity = capacity;
	l->pcp = prm->pcp;
	l->max_actions = prm->max_actions;
	l->max_visits = prm->max_visits;
	l->state = rte_zmalloc_socket("lcp_state", sizeof(*l->state) * capacity,
				      RTE_CACHE_LINE_SIZE, socket);
	l->live = rte_zmalloc_socket("lcp_live", sizeof(*l->live) * capacity, RTE_CACHE_LINE_SIZE,
				     socket);
	l->tm = rte_zmalloc_socket("lcp_tm", sizeof(*l->tm) * capacity, RTE_CACHE_LINE_SIZE,
				   socket);
	l->lk = rte_malloc_socket("lcp_lk", sizeof(*l->lk) * nodes, RTE_CACHE_LINE_SIZE, socket);
	if (l->state == NULL || l->live == NULL || l->tm == NULL || l->lk == NULL)
		goto nomem;
	for (i = 0; i < capacity; i++)
		l->lk[i].prev = l->lk[i].next = LCP_NIL;
	for (; i < nodes; i++)
		l->lk[i].prev = l->lk[i].next = i;
	return l;
nomem:
	lcp_free(l);
	rte_errno = ENOMEM;
	return NULL;
}

void
lcp_free(struct lcp *l)
{
	if (l == NULL)
		return;
	rte_free(l->state);
	rte_free(l->live);
	rte_free(l->tm);
	rte_free(l->lk);
	rte_free(l);
}

/* Spread of the first request over [interval/2, interval], fixed per id. */
static uint64_t
lcp_first_delay(uint32_t id, uint64_t iv_ms)
{
	uint64_t half = iv_ms / 2;

	return half + (uint32_t)(id * 2654435761u) % (iv_ms - half + 1);
}

int
lcp_enable(struct lcp *l, uint32_t id, uint32_t magic, uint16_t interval_s, uint8_t misses,
	   uint64_t now_ms)
{
	struct lcp_timer *t;

	if (id >= l->capacity || interval_s == 0 || misses == 0)
		return -EINVAL;
	if (!l->started) {
		l->started = 1;
		l->wheel_ms = now_ms;
	}
	if (lk_linked(l, id)) {
		lk_unlink(l, id);
		l->scheduled--;
	}
	t = &l->tm[id];
	t->interval_s = interval_s;
	t->misses_allowed = misses;
	t->missed = 0;
	t->pending = 0;
	t->dead = 0;
	t->seen_replies = __atomic_load_n(&l->live[id].replies, __ATOMIC_RELAXED);
	__atomic_store_n(&l->state[id], (uint64_t)magic << 32 | LCP_STATE_ON, __ATOMIC_RELEASE);
	lcp_schedule(l, id, now_ms + lcp_first_delay(id, (uint64_t)interval_s * 1000));
	l->scheduled++;
	return 0;
}

void
lcp_disable(struct lcp *l, uint32_t id)
{
	if (id >= l->capacity)
		return;
	__atomic_store_n(&l->state[id], 0, __ATOMIC_RELEASE);
	if (lk_linked(l, id)) {
		lk_unlink(l, id);
		l->scheduled--;
	}
	l->tm[id].pending = 0;
	l->tm[id].missed = 0;
}

/* One due session (already off the wheel): count, report dead, or echo. */
static void
lcp_fire(struct lcp *l, uint32_t id, uint64_t now_ms, const struct lcp_tick_ops *ops, void *arg)
{
	struct lcp_timer *t = &l->tm[id];
	uint8_t frame[LCP_FRAME_MIN_LEN];
	const struct dp_session *s;
	uint32_t replies;
	int n;

	replies = __atomic_load_n(&l->live[id].replies, __ATOMIC_RELAXED);
	if (replies != t->seen_replies) {
		t->seen_replies = replies;
		t->missed = 0;
		l->ccount[LCP_C_HEARD]++;
	} else if (t->pending) {
		t->missed++;
		l->ccount[LCP_C_MISSED]++;
	}
	t->pending = 0;
	l->scheduled--;
	if (t->missed >= t->misses_allowed) {
		t->dead = 1;
		__atomic_store_n(&l->state[id], 0, __ATOMIC_RELEASE);
		l->ccount[LCP_C_DEAD]++;
		ops->dead(arg, id);
		return;
	}
	s = ops->session(arg, id);
	if (s == NULL) {
		__atomic_store_n(&l->state[id], 0, __ATOMIC_RELEASE);
		l->ccount[LCP_C_NO_SESSION]++;
		return;
	}
	t->last_id++;
	n = lcp_echo_request_build(frame, sizeof(frame), &s->encap, l->pcp, t->last_id,
				   (uint32_t)(l->state[id] >> 32));
	if (ops->send(arg, frame, (uint16_t)n) == 0) {
		t->pending = 1;
		l->ccount[LCP_C_REQUEST_SENT]++;
	} else {
		l->ccount[LCP_C_SEND_FAILED]++;
	}
	lcp_schedule(l, id, now_ms + (uint64_t)t->interval_s * 1000);
	l->scheduled++;
}

void
lcp_tick(struct lcp *l, uint64_t now_ms, const struct lcp_tick_ops *ops, void *arg)
{
	uint32_t cur = lk_cur(l), visits = 0, actions = 0, steps = 0, id;

	if (!l->started) {
		l->started = 1;
		l->wheel_ms = now_ms;
	}
	/* After a long pause one revolution visits every slot: skip the rest. */
	if (!l->cur_loaded && now_ms > l->wheel_ms && now_ms - l->wheel_ms >= LCP_WHEEL_SLOTS)
		l->wheel_ms = now_ms - LCP_WHEEL_SLOTS + 1;
	for (;;) {
		if (!l->cur_loaded) {
			if (l->wheel_ms > now_ms || steps == LCP_WHEEL_SLOTS)
				break;
			lk_move_all(l, lk_slot(l, l->wheel_ms), cur);
			l->cur_loaded = 1;
			steps++;
		}
		if (lk_empty(l, cur)) {
			l->cur_loaded = 0;
			l->wheel_ms++;
			continue;
		}
		if (visits == l->max_visits)
			break;
		id = l->lk[cur].next;
		if (l->tm[id].due_ms > now_ms) {
			/* A later revolution: back to its slot, which is not cur. */
			lk_unlink(l, id);
			lcp_schedule(l, id, l->tm[id].due_ms);
			visits++;
			continue;
		}
		if (actions == l->max_actions)
			break;
		lk_unlink(l, id);
		visits++;
		actions++;
		lcp_fire(l, id, now_ms, ops, arg);
	}
	l->tick_visits = visits;
	l->tick_actions = actions;
}

int
lcp_get(const struct lcp *l, uint32_t id, struct lcp_info *out)
{
	const struct lcp_timer *t;
	uint64_t st;

	if (id >= l->capacity)
		return -EINVAL;
	t = &l->tm[id];
	st = __atomic_load_n(&l->state[id], __ATOMIC_ACQUIRE);
	memset(out, 0, sizeof(*out));
	out->enabled = (int)(st & LCP_STATE_ON);
	out->dead = t->dead;
	out->magic = (uint32_t)(st >> 32);
	out->interval_s = t->interval_s;
	out->misses_allowed = t->misses_allowed;
	out->missed = t->missed;
	out->last_id = t->last_id;
	out->pending = t->pending;
	out->replies = __atomic_load_n(&l->live[id].replies, __ATOMIC_RELAXED);
	out->last_reply_tsc = __atomic_load_n(&l->live[id].last_tsc, __ATOMIC_RELAXED);
	out->due_ms = t->due_ms;
	return 0;
}

uint32_t
lcp_scheduled(const struct lcp *l)
{
	return l->scheduled;
}

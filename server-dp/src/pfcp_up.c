/*
 * PFCP user-plane function (pfcp_up.h).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pfcp_up.h"

/* ---- compact rules of one session ------------------------------------------ */

#define UPR_FAR 0x0001
#define UPR_QER 0x0002
#define UPR_UE_IP 0x0004
#define UPR_STAG 0x0008
#define UPR_CTAG 0x0010
#define UPR_MAC 0x0020
#define UPR_SID 0x0040
#define UPR_ETHERTYPE 0x0080
#define UPR_PPP 0x0100
#define UPR_BBF_OHR 0x0200
#define UPR_OHR 0x0400
#define UPR_MAC_OTHER 0x0800 /* a MAC address IE with more than the source MAC */
#define UPR_LPORT 0x1000

struct up_pdr {
	uint32_t precedence;
	uint32_t far_id;
	uint32_t qer_id;
	uint32_t urr_id[UP_PDR_MAX_URR];
	uint32_t ue_ip;
	uint16_t id;
	uint16_t stag;
	uint16_t ctag;
	uint16_t sid;
	uint16_t ethertype;
	uint16_t ppp_proto;
	uint16_t lport; /* name index, 0 = none */
	uint16_t netinst;
	uint16_t has; /* UPR_* */
	uint8_t mac[6];
	uint8_t src_if;
	uint8_t ue_flags;
	uint8_t ppp_flags;
	uint8_t bbf_ohr;
	uint8_t ohr;
	uint8_t n_urr;
};

#define UPF_FWD 0x01
#define UPF_DST_IF 0x02
#define UPF_OHC 0x04
#define UPF_BBF_OHC 0x08
#define UPF_BBF_OHC_IDS 0x10
#define UPF_POLICY 0x20
#define UPF_APPLY 0x40

struct up_far {
	uint32_t id;
	uint32_t ohc_ip;
	uint16_t ohc_desc;
	uint16_t ohc_port;
	uint16_t bbf_ohc_desc;
	uint16_t bbf_ohc_tunnel;
	uint16_t bbf_ohc_sid;
	uint16_t policy; /* name index */
	uint16_t netinst;
	uint16_t apply;
	uint8_t dst_if;
	uint8_t has; /* UPF_* */
};

#define UPQ_MBR 0x01
#define UPQ_GBR 0x02
#define UPQ_GATE 0x04

struct up_qer {
	uint32_t id;
	uint8_t gate_ul;
	uint8_t gate_dl;
	uint8_t has;				 /* UPQ_* */
	uint64_t mbr_ul, mbr_dl, gbr_ul, gbr_dl; /* kbit/s */
};

#define UPU_PERIOD 0x01
#define UPU_VOLTH 0x02

struct up_urr {
	uint32_t id;
	uint32_t period;
	uint32_t triggers;
	uint8_t method;
	uint8_t meas_info;
	uint8_t has; /* UPU_* */
	uint8_t vol_flags;
	uint64_t vol_thresh[3]; /* total, ul, dl */
};

struct up_rules {
	uint8_t n_pdr, n_far, n_qer, n_urr;
	struct up_pdr pdr[UP_SESS_MAX_PDR];
	struct up_far far[UP_SESS_MAX_FAR];
	struct up_qer qer[UP_SESS_MAX_QER];
	struct up_urr urr[UP_SESS_MAX_URR];
};

/* Session-level attributes (message-level IEs). */
struct up_attr {
	uint16_t mtu; /* 0 = default */
	uint8_t lcp_on;
	uint8_t lcp_count;
	uint16_t lcp_interval;
	uint32_t magic_tx;
	uint32_t magic_rx;
};

/* Measurement state of one URR, parallel to up_rules.urr[]. */
#define C_UL_PKTS 0
#define C_UL_BYTES 1
#define C_DL_PKTS 2
#define C_DL_BYTES 3
struct up_meas {
	uint32_t seqn;
	uint32_t start_ntp;
	uint64_t next_ms;
	uint64_t base[4];  /* counters at the last report */
	uint64_t carry[4]; /* usage of reports never acknowledged */
	uint8_t dirs;	   /* DIR_UL / DIR_DL: PDRs that reference it */
};
#define DIR_UL 0x01
#define DIR_DL 0x02

#define SF_DEAD 0x01	       /* an LCP dead report must reach the CP */
#define SF_DEAD_INFLIGHT 0x02  /* ... and one is pending */
#define SF_USAGE_INFLIGHT 0x04 /* a usage report is pending */

struct up_sess {
	uint64_t up_seid; /* 0: free slot */
	uint64_t cp_seid;
	uint32_t handle;
	uint32_t next_free;
	uint8_t kind;
	uint8_t flags;
	uint16_t gen;
	struct up_attr a;
	struct up_rules r;
	struct up_meas meas[UP_SESS_MAX_URR];
};

/* ---- indexes, names, caches ----------------------------------------------------- */

#define H_EMPTY UINT32_MAX

struct hidx {
	uint64_t *keys;
	uint32_t *vals;
	uint32_t mask;
};

#define NAMES_HASH 2048
struct names {
	uint16_t n; /* index 0 is "" */
	uint16_t hash[NAMES_HASH];
	char s[UP_MAX_NAMES][UP_NAME_SIZE];
};

struct rc_hdr {
	uint64_t t_ms;
	uint64_t digest; /* of the request: a restarted CP reuses sequence numbers */
	uint32_t ip;
	uint32_t seq;
	uint32_t len;
	uint16_t port;
	uint8_t type;
	uint8_t pad;
};

#define PK_FREE 0
#define PK_HB 1
#define PK_USAGE 2
#define PK_DEAD 3
#define UP_PEND_MAX 640

struct pend {
	uint8_t kind;
	uint8_t tries;
	uint8_t n_ur;
	uint16_t len;
	uint32_t seq;
	uint32_t ip;
	uint64_t sent_ms;
	uint64_t up_seid;
	struct {
		uint32_t urr_id;
		uint32_t start_ntp;
		uint64_t d[4];
	} ur[UP_SESS_MAX_URR];
	uint8_t buf[UP_PEND_MAX];
};

struct up_err {
	uint8_t cause;
	uint16_t offending; /* 0 = none */
	bool has_rule;
	struct pfcp_failed_rule rule;
};

struct up_derived {
	uint8_t kind;
	struct up_sub sub;
	struct up_redirect redir;
	uint8_t dirs[UP_SESS_MAX_URR];
};

struct pfcp_up {
	struct pfcp_up_conf conf;
	struct pfcp_up_ops ops;
	void *ctx;
	struct pfcp_up_stats st;

	/* association */
	bool assoc;
	struct pfcp_node_id cp_node;
	uint32_t cp_recovery_ts;
	uint64_t hb_next_ms;
	uint32_t hb_seq; /* pending heartbeat's seq, valid when hb_pending */
	bool hb_pending;
	bool hb_started; /* the heartbeat announcing our Recovery Time Stamp went out */

	/* sessions */
	struct up_sess *sess;
	uint32_t free_head, free_tail, n_free; /* FIFO through next_free */
	struct hidx by_cp_seid;
	struct hidx by_handle;
	uint32_t default_slot; /* H_EMPTY if none */
	uint32_t scan_cursor;
	struct names names;

	/* our requests */
	uint32_t seq_next;
	struct pend *pend;
	uint32_t n_pend;

	/* response cache */
	uint8_t *rc_arena;
	uint64_t rc_head;
	uint64_t req_digest; /* of the request being answered */
	uint64_t *rc_slot;   /* arena position + 1, 0 = empty */

	/* work buffers */
	struct pfcp_msg rx;
	struct pfcp_msg tx;
	uint8_t txbuf[UP_MAX_MSG];
	struct up_rules tmp_rules;
};

static uint32_t
mix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	k ^= k >> 33;
	return (uint32_t)k;
}

static int
hidx_init(struct hidx *h, uint32_t capacity)
{
	uint32_t n = 16;

	while (n < capacity * 2u)
		n <<= 1;
	h->keys = calloc(n, sizeof(*h->keys));
	h->vals = malloc(n * sizeof(*h->vals));
	if (h->keys == NULL || h->vals == NULL)
		return -ENOMEM;
	memset(h->vals, 0xff, n * sizeof(*h->vals));
	h->mask = n - 1;
	return 0;
}

static void
hidx_free(struct hidx *h)
{
	free(h->keys);
	free(h->vals);
}

static uint32_t
hidx_find(const struct hidx *h, uint64_t k)
{
	uint32_t i = mix64(k) & h->mask;

	while (h->vals[i] != H_EMPTY) {
		if (h->keys[i] == k)
			return h->vals[i];
		i = (i + 1) & h->mask;
	}
	return H_EMPTY;
}

static void
hidx_put(struct hidx *h, uint64_t k, uint32_t v)
{
	uint32_t i = mix64(k) & h->mask;

	while (h->vals[i] != H_EMPTY && h->keys[i] != k)
		i = (i + 1) & h->mask;
	h->keys[i] = k;
	h->vals[i] = v;
}

/* Delete k if it maps to v (backward-shift deletion: no tombstones). */
static void
hidx_del(struct hidx *h, uint64_t k, uint32_t v)
{
	uint32_t i = mix64(k) & h->mask, j;

	while (h->vals[i] != H_EMPTY && h->keys[i] != k)
		i = (i + 1) & h->mask;
	if (h->vals[i] == H_EMPTY || h->vals[i] != v)
		return;
	h->vals[i] = H_EMPTY;
	j = i;
	for (;;) {
		uint32_t home;

		j = (j + 1) & h->mask;
		if (h->vals[j] == H_EMPTY)
			return;
		home = mix64(h->keys[j]) & h->mask;
		/* move j to the hole at i unless its home lies cyclically in (i, j] */
		if (i <= j ? (home <= i || home > j) : (home <= i && home > j)) {
			h->keys[i] = h->keys[j];
			h->vals[i] = h->vals[j];
			h->vals[j] = H_EMPTY;
			i = j;
		}
	}
}

/* Intern a name: 1..UP_NAME_SIZE-1 printable ASCII octets. Returns the index,
 * or -EINVAL (not a name), -ENOSPC (table full). */
static int
name_intern(struct names *t, const struct pfcp_str *s)
{
	uint32_t h = 2166136261u, i;

	if (s->len == 0 || s->len >= UP_NAME_SIZE)
		return -EINVAL;
	for (i = 0; i < s->len; i++) {
		if (s->v[i] < 0x20 || s->v[i] > 0x7e)
			return -EINVAL;
		h = (h ^ s->v[i]) * 16777619u;
	}
	for (i = h & (NAMES_HASH - 1); t->hash[i] != 0; i = (i + 1) & (NAMES_HASH - 1)) {
		const char *n = t->s[t->hash[i]];

		if (strlen(n) == s->len && memcmp(n, s->v, s->len) == 0)
			return t->hash[i];
	}
	if (t->n + 1u >= UP_MAX_NAMES)
		return -ENOSPC;
	t->n++;
	memcpy(t->s[t->n], s->v, s->len);
	t->s[t->n][s->len] = '\0';
	t->hash[i] = t->n;
	return t->n;
}

/* ---- time, small helpers ---------------------------------------------------------- */

static uint32_t
ntp_now(const struct pfcp_up *u, uint64_t now_ms)
{
	int64_t wall = (int64_t)now_ms + u->conf.wall_offset_ms;

	if (wall < 0)
		wall = 0;
	return (uint32_t)((uint64_t)wall / 1000 + PFCP_NTP_UNIX_OFFSET);
}

static uint32_t
recovery_ntp(const struct pfcp_up *u)
{
	return (uint32_t)((uint64_t)u->conf.recovery_unix_s + PFCP_NTP_UNIX_OFFSET);
}

static void
set_err(struct up_err *e, uint8_t cause, uint16_t ie)
{
	e->cause = cause;
	e->offending = ie;
	e->has_rule = false;
}

static int
err_ie(struct up_err *e, uint8_t cause, uint16_t ie)
{
	set_err(e, cause, ie);
	return -1;
}

static int
err_rule(struct up_err *e, uint8_t type, uint32_t id)
{
	e->cause = PFCP_CAUSE_RULE_CREATION_MODIFICATION_FAILURE;
	e->offending = 0;
	e->has_rule = true;
	e->rule.type = type;
	e->rule.id = id;
	return -1;
}

static void
do_send(struct pfcp_up *u, pfcp_send_fn send, void *arg, const uint8_t *b, size_t len, uint32_t ip,
	uint16_t port)
{
	uint8_t type = b[1];

	u->st.tx[type < PFCP_MSG_TYPE_MAX ? type : 0]++;
	if (send(arg, b, len, ip, port) != 0)
		u->st.tx_errors++;
}

static void
cp_state_set(struct pfcp_up *u, enum up_cp_state s)
{
	if (u->st.cp_state == s)
		return;
	u->st.cp_state = s;
	if (u->ops.cp_state != NULL)
		u->ops.cp_state(u->ctx, s);
}

/* ---- response cache ---------------------------------------------------------------- */

static uint32_t
rc_hash(uint32_t ip, uint16_t port, uint32_t seq, uint8_t type)
{
	return mix64((uint64_t)ip << 32 ^ (uint64_t)port << 24 ^ seq ^ (uint64_t)type << 56) &
	       (UP_RCACHE_SLOTS - 1);
}

static uint32_t
rc_ttl(const struct pfcp_up *u)
{
	return u->conf.rcache_ttl_ms ? u->conf.rcache_ttl_ms
				     : 2u * u->conf.t1_ms * (uint32_t)u->conf.n1;
}

/* FNV-1a, 64-bit, of a request's bytes. */
static uint64_t
digest(const uint8_t *b, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

static void
rc_put(struct pfcp_up *u, uint32_t ip, uint16_t port, uint32_t seq, uint8_t req_type,
       const uint8_t *b, size_t len, uint64_t now_ms)
{
	size_t need = (sizeof(struct rc_hdr) + len + 7) & ~(size_t)7;
	struct rc_hdr hdr = {.t_ms = now_ms,
			     .digest = u->req_digest,
			     .ip = ip,
			     .seq = seq,
			     .len = (uint32_t)len,
			     .port = port,
			     .type = req_type};
	uint64_t off = u->rc_head % UP_RCACHE_BYTES;

	if (need > UP_RCACHE_BYTES / 8)
		return;
	if (off + need > UP_RCACHE_BYTES) {
		u->rc_head += UP_RCACHE_BYTES - off;
		off = 0;
	}
	memcpy(u->rc_arena + off, &hdr, sizeof(hdr));
	memcpy(u->rc_arena + off + sizeof(hdr), b, len);
	u->rc_slot[rc_hash(ip, port, seq, req_type)] = u->rc_head + 1;
	u->rc_head += need;
}

/* The cached response to this request, or NULL. */
static const uint8_t *
rc_get(struct pfcp_up *u, uint32_t ip, uint16_t port, uint32_t seq, uint8_t req_type,
       uint64_t now_ms, size_t *len)
{
	uint64_t pos = u->rc_slot[rc_hash(ip, port, seq, req_type)];
	struct rc_hdr hdr;

	if (pos == 0)
		return NULL;
	pos--;
	if (u->rc_head > pos + UP_RCACHE_BYTES) /* overwritten since */
		return NULL;
	memcpy(&hdr, u->rc_arena + pos % UP_RCACHE_BYTES, sizeof(hdr));
	if (hdr.ip != ip || hdr.port != port || hdr.seq != seq || hdr.type != req_type ||
	    hdr.digest != u->req_digest)
		return NULL;
	if (now_ms - hdr.t_ms > rc_ttl(u))
		return NULL;
	*len = hdr.len;
	return u->rc_arena + pos % UP_RCACHE_BYTES + sizeof(hdr);
}

/* ---- create / free -------------------------------------------------------------------- */

struct pfcp_up *
pfcp_up_create(const struct pfcp_up_conf *conf, const struct pfcp_up_ops *ops, void *ctx)
{
	struct pfcp_up *u;

	if (conf == NULL || ops == NULL || conf->capacity == 0 ||
	    conf->capacity > UP_MAX_CAPACITY || conf->node_ipv4 == 0 || conf->cp_ip == 0 ||
	    ops->install == NULL || ops->modify == NULL || ops->remove == NULL ||
	    ops->usage == NULL || ops->redirect == NULL)
		return NULL;
	u = calloc(1, sizeof(*u));
	if (u == NULL)
		return NULL;
	u->conf = *conf;
	if (u->conf.cp_port == 0)
		u->conf.cp_port = PFCP_PORT;
	if (u->conf.heartbeat_ms == 0)
		u->conf.heartbeat_ms = 5000;
	if (u->conf.t1_ms == 0)
		u->conf.t1_ms = 3000;
	if (u->conf.n1 == 0)
		u->conf.n1 = 3;
	if (u->conf.scan_per_tick == 0)
		u->conf.scan_per_tick = 512;
	if (u->conf.reports_per_tick == 0)
		u->conf.reports_per_tick = 64;
	u->ops = *ops;
	u->ctx = ctx;
	u->default_slot = H_EMPTY;
	u->seq_next = 1;
	u->sess = calloc(conf->capacity, sizeof(*u->sess));
	u->pend = calloc(UP_MAX_PENDING, sizeof(*u->pend));
	u->rc_arena = malloc(UP_RCACHE_BYTES);
	u->rc_slot = calloc(UP_RCACHE_SLOTS, sizeof(*u->rc_slot));
	if (u->sess == NULL || u->pend == NULL || u->rc_arena == NULL || u->rc_slot == NULL ||
	    hidx_init(&u->by_cp_seid, conf->capacity) != 0 ||
	    hidx_init(&u->by_handle, conf->capacity) != 0) {
		pfcp_up_free(u);
		return NULL;
	}
	for (uint32_t i = 0; i < conf->capacity; i++) {
		u->sess[i].next_free = i + 1 < conf->capacity ? i + 1 : H_EMPTY;
		/* start the generations apart across restarts of the process */
		u->sess[i].gen = (uint16_t)(conf->recovery_unix_s * 7919u);
	}
	u->free_head = 0;
	u->free_tail = conf->capacity - 1;
	u->n_free = conf->capacity;
	u->st.cp_state = UP_CP_NONE;
	return u;
}

void
pfcp_up_free(struct pfcp_up *u)
{
	if (u == NULL)
		return;
	hidx_free(&u->by_cp_seid);
	hidx_free(&u->by_handle);
	free(u->sess);
	free(u->pend);
	free(u->rc_arena);
	free(u->rc_slot);
	free(u);
}

/* ---- slots ------------------------------------------------------------------------------- */

static uint32_t
slot_alloc(struct pfcp_up *u)
{
	uint32_t i = u->free_head;

	if (i == H_EMPTY)
		return H_EMPTY;
	u->free_head = u->sess[i].next_free;
	if (u->free_head == H_EMPTY)
		u->free_tail = H_EMPTY;
	u->n_free--;
	return i;
}

static void
slot_release(struct pfcp_up *u, uint32_t i)
{
	struct up_sess *s = &u->sess[i];
	uint16_t gen = (uint16_t)(s->gen + 1);

	memset(s, 0, sizeof(*s));
	s->gen = gen;
	s->next_free = H_EMPTY;
	if (u->free_tail == H_EMPTY)
		u->free_head = i;
	else
		u->sess[u->free_tail].next_free = i;
	u->free_tail = i;
	u->n_free++;
}

/* UP SEID: generation in bits 32-47, slot + 1 in bits 0-31; never 0. */
static uint64_t
seid_of(const struct up_sess *s, uint32_t slot)
{
	return (uint64_t)s->gen << 32 | ((uint64_t)slot + 1);
}

static struct up_sess *
sess_by_seid(struct pfcp_up *u, uint64_t seid, uint32_t *slot)
{
	uint64_t lo = seid & 0xffffffffu;

	if (lo == 0 || lo > u->conf.capacity)
		return NULL;
	if (u->sess[lo - 1].up_seid != seid)
		return NULL;
	*slot = (uint32_t)(lo - 1);
	return &u->sess[lo - 1];
}

/* ---- rules: lookup, build from the message ---------------------------------------------- */

static int
find_pdr(const struct up_rules *r, uint16_t id)
{
	for (int i = 0; i < r->n_pdr; i++)
		if (r->pdr[i].id == id)
			return i;
	return -1;
}

static int
find_far(const struct up_rules *r, uint32_t id)
{
	for (int i = 0; i < r->n_far; i++)
		if (r->far[i].id == id)
			return i;
	return -1;
}

static int
find_qer(const struct up_rules *r, uint32_t id)
{
	for (int i = 0; i < r->n_qer; i++)
		if (r->qer[i].id == id)
			return i;
	return -1;
}

static int
find_urr(const struct up_rules *r, uint32_t id)
{
	for (int i = 0; i < r->n_urr; i++)
		if (r->urr[i].id == id)
			return i;
	return -1;
}

/* A string IE -> name index; cause on failure. */
static int
intern(struct pfcp_up *u, const struct pfcp_str *s, uint8_t bad_cause, uint16_t ie, uint16_t *idx,
       struct up_err *e)
{
	int rc = name_intern(&u->names, s);

	if (rc == -ENOSPC)
		return err_ie(e, PFCP_CAUSE_NO_RESOURCES_AVAILABLE, ie);
	if (rc < 0)
		return err_ie(e, bad_cause, ie);
	*idx = (uint16_t)rc;
	return 0;
}

/* Fill the PDI fields of d from a decoded PDI (replacing them). */
static int
pdi_apply(struct pfcp_up *u, struct up_pdr *d, const struct pfcp_pdi *p, struct up_err *e)
{
	const struct pfcp_eth_filter *f = &p->eth;

	if (!(p->present & PFCP_PDI_SRC_IF))
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_SOURCE_INTERFACE);
	d->has &= (uint16_t) ~(UPR_UE_IP | UPR_STAG | UPR_CTAG | UPR_MAC | UPR_SID | UPR_ETHERTYPE |
			       UPR_PPP | UPR_MAC_OTHER | UPR_LPORT);
	d->src_if = p->src_if;
	d->ue_ip = 0;
	d->ue_flags = 0;
	d->stag = d->ctag = d->sid = d->ethertype = d->ppp_proto = 0;
	d->ppp_flags = 0;
	d->lport = d->netinst = 0;
	memset(d->mac, 0, sizeof(d->mac));
	if (p->present & PFCP_PDI_NETINST &&
	    intern(u, &p->netinst, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_NETWORK_INSTANCE,
		   &d->netinst, e) != 0)
		return -1;
	if (p->present & PFCP_PDI_LPORT) {
		if (intern(u, &p->lport, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
			   PFCP_IE_BBF_LOGICAL_PORT, &d->lport, e) != 0)
			return -1;
		d->has |= UPR_LPORT;
	}
	if (p->present & PFCP_PDI_UE_IP) {
		d->has |= UPR_UE_IP;
		d->ue_flags = p->ue_ip.flags;
		d->ue_ip = p->ue_ip.ipv4;
	}
	if (p->present & PFCP_PDI_PPPOE_SID) {
		d->has |= UPR_SID;
		d->sid = p->pppoe_sid;
	}
	if (p->present & PFCP_PDI_PPP_PROTO) {
		d->has |= UPR_PPP;
		d->ppp_flags = p->ppp.flags;
		d->ppp_proto = p->ppp.proto;
	}
	if (p->present & PFCP_PDI_ETH) {
		if (f->present & PFCP_EF_ETHERTYPE) {
			d->has |= UPR_ETHERTYPE;
			d->ethertype = f->ethertype;
		}
		if (f->present & PFCP_EF_STAG) {
			if (!(f->stag.flags & PFCP_VLAN_VID))
				return err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_S_TAG);
			d->has |= UPR_STAG;
			d->stag = f->stag.vid;
		}
		if (f->present & PFCP_EF_CTAG) {
			if (!(f->ctag.flags & PFCP_VLAN_VID))
				return err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_C_TAG);
			d->has |= UPR_CTAG;
			d->ctag = f->ctag.vid;
		}
		if (f->present & PFCP_EF_MAC) {
			if (f->mac.flags & PFCP_MAC_SOUR) {
				d->has |= UPR_MAC;
				memcpy(d->mac, f->mac.src, 6);
			}
			if (f->mac.flags & ~PFCP_MAC_SOUR)
				d->has |= UPR_MAC_OTHER;
		}
	}
	return 0;
}

/* Create PDR -> r. */
static int
pdr_create(struct pfcp_up *u, struct up_rules *r, const struct pfcp_pdr *p, struct up_err *e)
{
	struct up_pdr *d;

	if (!(p->present & PFCP_PDR_ID))
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_PDR_ID);
	if (!(p->present & PFCP_PDR_PRECEDENCE))
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_PRECEDENCE);
	if (!(p->present & PFCP_PDR_PDI))
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_PDI);
	if (find_pdr(r, p->id) >= 0)
		return err_rule(e, PFCP_RULE_PDR, p->id);
	if (r->n_pdr >= UP_SESS_MAX_PDR)
		return err_ie(e, PFCP_CAUSE_NO_RESOURCES_AVAILABLE, PFCP_IE_CREATE_PDR);
	if (p->n_urr > UP_PDR_MAX_URR)
		return err_rule(e, PFCP_RULE_PDR, p->id);
	if (p->n_qer > 1)
		return err_rule(e, PFCP_RULE_PDR, p->id);
	d = &r->pdr[r->n_pdr];
	memset(d, 0, sizeof(*d));
	d->id = p->id;
	d->precedence = p->precedence;
	if (pdi_apply(u, d, &p->pdi, e) != 0)
		return -1;
	if (p->present & PFCP_PDR_FAR_ID) {
		d->has |= UPR_FAR;
		d->far_id = p->far_id;
	}
	if (p->present & PFCP_PDR_OHR) {
		d->has |= UPR_OHR;
		d->ohr = p->ohr;
	}
	if (p->present & PFCP_PDR_BBF_OHR) {
		d->has |= UPR_BBF_OHR;
		d->bbf_ohr = p->bbf_ohr;
	}
	if (p->n_qer) {
		d->has |= UPR_QER;
		d->qer_id = p->qer_id[0];
	}
	d->n_urr = p->n_urr;
	for (int i = 0; i < p->n_urr; i++)
		d->urr_id[i] = p->urr_id[i];
	r->n_pdr++;
	return 0;
}

/* Update PDR: the fields present replace the rule's. */
static int
pdr_update(struct pfcp_up *u, struct up_rules *r, const struct pfcp_pdr *p, struct up_err *e)
{
	struct up_pdr *d;
	int i;

	if (!(p->present & PFCP_PDR_ID))
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_PDR_ID);
	i = find_pdr(r, p->id);
	if (i < 0 || p->n_urr > UP_PDR_MAX_URR || p->n_qer > 1)
		return err_rule(e, PFCP_RULE_PDR, p->id);
	d = &r->pdr[i];
	if (p->present & PFCP_PDR_PRECEDENCE)
		d->precedence = p->precedence;
	if ((p->present & PFCP_PDR_PDI) && pdi_apply(u, d, &p->pdi, e) != 0)
		return -1;
	if (p->present & PFCP_PDR_FAR_ID) {
		d->has |= UPR_FAR;
		d->far_id = p->far_id;
	}
	if (p->present & PFCP_PDR_OHR) {
		d->has |= UPR_OHR;
		d->ohr = p->ohr;
	}
	if (p->present & PFCP_PDR_BBF_OHR) {
		d->has |= UPR_BBF_OHR;
		d->bbf_ohr = p->bbf_ohr;
	}
	if (p->n_qer) {
		d->has |= UPR_QER;
		d->qer_id = p->qer_id[0];
	}
	if (p->n_urr) {
		memset(d->urr_id, 0, sizeof(d->urr_id));
		d->n_urr = p->n_urr;
		for (int k = 0; k < p->n_urr; k++)
			d->urr_id[k] = p->urr_id[k];
	}
	return 0;
}

static int
fwd_apply(struct pfcp_up *u, struct up_far *d, const struct pfcp_fwd *f, bool create,
	  struct up_err *e)
{
	if (create && !(f->present & PFCP_FWD_DST_IF))
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_DESTINATION_INTERFACE);
	d->has |= UPF_FWD;
	if (f->present & PFCP_FWD_DST_IF) {
		d->has |= UPF_DST_IF;
		d->dst_if = f->dst_if;
	}
	if ((f->present & PFCP_FWD_NETINST) &&
	    intern(u, &f->netinst, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_NETWORK_INSTANCE,
		   &d->netinst, e) != 0)
		return -1;
	if (f->present & PFCP_FWD_OHC) {
		d->has |= UPF_OHC;
		d->ohc_desc = f->ohc.desc;
		d->ohc_ip = f->ohc.ipv4;
		d->ohc_port = f->ohc.port;
	}
	if (f->present & PFCP_FWD_BBF_OHC) {
		d->has |= UPF_BBF_OHC;
		d->has &= (uint8_t)~UPF_BBF_OHC_IDS;
		d->bbf_ohc_desc = f->bbf_ohc.desc;
		d->bbf_ohc_tunnel = f->bbf_ohc.tunnel_id;
		d->bbf_ohc_sid = f->bbf_ohc.session_id;
		if (f->bbf_ohc.has_ids)
			d->has |= UPF_BBF_OHC_IDS;
	}
	if (f->present & PFCP_FWD_POLICY) {
		if (intern(u, &f->policy, PFCP_CAUSE_INVALID_FORWARDING_POLICY,
			   PFCP_IE_FORWARDING_POLICY, &d->policy, e) != 0)
			return -1;
		d->has |= UPF_POLICY;
	}
	return 0;
}

static int
far_create(struct pfcp_up *u, struct up_rules *r, const struct pfcp_far *f, struct up_err *e)
{
	struct up_far *d;

	if (!(f->present & PFCP_FAR_ID))
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_FAR_ID);
	if (!(f->present & PFCP_FAR_APPLY))
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_APPLY_ACTION);
	if (find_far(r, f->id) >= 0)
		return err_rule(e, PFCP_RULE_FAR, f->id);
	if (r->n_far >= UP_SESS_MAX_FAR)
		return err_ie(e, PFCP_CAUSE_NO_RESOURCES_AVAILABLE, PFCP_IE_CREATE_FAR);
	d = &r->far[r->n_far];
	memset(d, 0, sizeof(*d));
	d->id = f->id;
	d->apply = f->apply;
	d->has = UPF_APPLY;
	if ((f->present & PFCP_FAR_FWD) && fwd_apply(u, d, &f->fwd, true, e) != 0)
		return -1;
	r->n_far++;
	return 0;
}

static int
far_update(struct pfcp_up *u, struct up_rules *r, const struct pfcp_far *f, struct up_err *e)
{
	struct up_far *d;
	int i;

	if (!(f->present & PFCP_FAR_ID))
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_FAR_ID);
	i = find_far(r, f->id);
	if (i < 0)
		return err_rule(e, PFCP_RULE_FAR, f->id);
	d = &r->far[i];
	if (f->present & PFCP_FAR_APPLY)
		d->apply = f->apply;
	if ((f->present & PFCP_FAR_FWD) && fwd_apply(u, d, &f->fwd, false, e) != 0)
		return -1;
	return 0;
}

static void
qer_apply(struct up_qer *d, const struct pfcp_qer *q)
{
	if (q->present & PFCP_QER_GATE) {
		d->has |= UPQ_GATE;
		d->gate_ul = q->gate_ul;
		d->gate_dl = q->gate_dl;
	}
	if (q->present & PFCP_QER_MBR) {
		d->has |= UPQ_MBR;
		d->mbr_ul = q->mbr_ul;
		d->mbr_dl = q->mbr_dl;
	}
	if (q->present & PFCP_QER_GBR) {
		d->has |= UPQ_GBR;
		d->gbr_ul = q->gbr_ul;
		d->gbr_dl = q->gbr_dl;
	}
}

static int
qer_create(struct up_rules *r, const struct pfcp_qer *q, struct up_err *e)
{
	struct up_qer *d;

	if (!(q->present & PFCP_QER_ID))
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_QER_ID);
	if (!(q->present & PFCP_QER_GATE))
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_GATE_STATUS);
	if (find_qer(r, q->id) >= 0)
		return err_rule(e, PFCP_RULE_QER, q->id);
	if (r->n_qer >= UP_SESS_MAX_QER)
		return err_ie(e, PFCP_CAUSE_NO_RESOURCES_AVAILABLE, PFCP_IE_CREATE_QER);
	d = &r->qer[r->n_qer];
	memset(d, 0, sizeof(*d));
	d->id = q->id;
	qer_apply(d, q);
	r->n_qer++;
	return 0;
}

static int
qer_update(struct up_rules *r, const struct pfcp_qer *q, struct up_err *e)
{
	int i;

	if (!(q->present & PFCP_QER_ID))
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_QER_ID);
	i = find_qer(r, q->id);
	if (i < 0)
		return err_rule(e, PFCP_RULE_QER, q->id);
	qer_apply(&r->qer[i], q);
	return 0;
}

static void
urr_apply(struct up_urr *d, const struct pfcp_urr *q)
{
	if (q->present & PFCP_URR_METHOD)
		d->method = q->method;
	if (q->present & PFCP_URR_TRIGGERS)
		d->triggers = q->triggers;
	if (q->present & PFCP_URR_PERIOD) {
		d->has |= UPU_PERIOD;
		d->period = q->period;
	} else if (q->present & PFCP_URR_PERIOD_DEL) {
		d->has &= (uint8_t)~UPU_PERIOD;
		d->period = 0;
	}
	if (q->present & PFCP_URR_VOL_THRESH) {
		d->has |= UPU_VOLTH;
		d->vol_flags = q->vol_thresh.flags;
		d->vol_thresh[0] = q->vol_thresh.total;
		d->vol_thresh[1] = q->vol_thresh.ul;
		d->vol_thresh[2] = q->vol_thresh.dl;
	} else if (q->present & PFCP_URR_VOL_THRESH_DEL) {
		d->has &= (uint8_t)~UPU_VOLTH;
		d->vol_flags = 0;
		memset(d->vol_thresh, 0, sizeof(d->vol_thresh));
	}
	if (q->present & PFCP_URR_MEAS_INFO)
		d->meas_info = q->meas_info;
}

static int
urr_create(struct up_rules *r, const struct pfcp_urr *q, struct up_err *e)
{
	struct up_urr *d;

	if (!(q->present & PFCP_URR_ID))
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_URR_ID);
	if (!(q->present & PFCP_URR_METHOD))
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_MEASUREMENT_METHOD);
	if (!(q->present & PFCP_URR_TRIGGERS))
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_REPORTING_TRIGGERS);
	if (find_urr(r, q->id) >= 0)
		return err_rule(e, PFCP_RULE_URR, q->id);
	if (r->n_urr >= UP_SESS_MAX_URR)
		return err_ie(e, PFCP_CAUSE_NO_RESOURCES_AVAILABLE, PFCP_IE_CREATE_URR);
	d = &r->urr[r->n_urr];
	memset(d, 0, sizeof(*d));
	d->id = q->id;
	urr_apply(d, q);
	r->n_urr++;
	return 0;
}

static int
urr_update(struct up_rules *r, const struct pfcp_urr *q, struct up_err *e)
{
	int i;

	if (!(q->present & PFCP_URR_ID))
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_URR_ID);
	i = find_urr(r, q->id);
	if (i < 0)
		return err_rule(e, PFCP_RULE_URR, q->id);
	urr_apply(&r->urr[i], q);
	return 0;
}

/* Remove rule i of an array of n elements of size sz (keeps the order). */
static void
remove_at(void *arr, uint8_t *n, int i, size_t sz)
{
	uint8_t *a = arr;

	memmove(a + (size_t)i * sz, a + (size_t)(i + 1) * sz, (size_t)(*n - i - 1) * sz);
	(*n)--;
	memset(a + (size_t)*n * sz, 0, sz);
}

/* Message-level attributes: BBF MTU, BBF PPP LCP Connectivity. */
static int
attr_apply(struct up_attr *a, const struct pfcp_msg *m, struct up_err *e)
{
	if (m->present & PFCP_M_BBF_MTU) {
		if (m->bbf_mtu < UP_MIN_MTU || m->bbf_mtu > UP_MAX_MTU)
			return err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_BBF_MTU);
		a->mtu = m->bbf_mtu;
	}
	if (m->present & PFCP_M_BBF_LCP) {
		const struct pfcp_lcp_conn *l = &m->lcp;

		if (l->present & PFCP_LCP_EMPTY) {
			a->lcp_on = 0;
			a->lcp_interval = 0;
			a->lcp_count = 0;
			a->magic_tx = a->magic_rx = 0;
			return 0;
		}
		if (!(l->present & PFCP_LCP_TIMERS))
			return err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING,
				      PFCP_IE_BBF_VERIFICATION_TIMERS);
		if (!(l->present & PFCP_LCP_MAGIC))
			return err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING,
				      PFCP_IE_BBF_PPP_LCP_MAGIC_NUMBER);
		if (l->interval == 0 || l->count == 0)
			return err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
				      PFCP_IE_BBF_VERIFICATION_TIMERS);
		if (l->magic_tx == 0)
			return err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
				      PFCP_IE_BBF_PPP_LCP_MAGIC_NUMBER);
		a->lcp_on = 1;
		a->lcp_interval = l->interval;
		a->lcp_count = l->count;
		a->magic_tx = l->magic_tx;
		a->magic_rx = l->magic_rx;
	}
	return 0;
}

/* ---- validation: rules -> subscriber or default session -------------------------------- */

static bool
unicast_ipv4(uint32_t a)
{
	uint8_t hi = (uint8_t)(a >> 24);

	return a != 0 && hi != 0 && hi != 127 && hi < 224;
}

static int
validate_default(struct pfcp_up *u, const struct up_rules *r, struct up_derived *d,
		 struct up_err *e)
{
	bool have_target = false;

	(void)u;
	if (r->n_qer)
		return err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_CREATE_QER);
	if (r->n_urr)
		return err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_CREATE_URR);
	d->kind = UP_KIND_DEFAULT;
	for (int i = 0; i < r->n_pdr; i++) {
		const struct up_pdr *p = &r->pdr[i];
		const struct up_far *f = &r->far[find_far(r, p->far_id)];

		if (p->src_if != PFCP_IF_ACCESS)
			return err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
				      PFCP_IE_SOURCE_INTERFACE);
		if (p->has & UPR_UE_IP)
			return err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_UE_IP_ADDRESS);
		if (p->has & UPR_SID)
			return err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
				      PFCP_IE_BBF_PPPOE_SESSION_ID);
		if (p->has & UPR_LPORT)
			return err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
				      PFCP_IE_BBF_LOGICAL_PORT);
		if (p->has & (UPR_MAC | UPR_MAC_OTHER))
			return err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_MAC_ADDRESS);
		if (p->has & UPR_STAG)
			return err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_S_TAG);
		if (p->has & UPR_CTAG)
			return err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_C_TAG);
		if (p->has & UPR_OHR)
			return err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
				      PFCP_IE_OUTER_HEADER_REMOVAL);
		if (p->has & UPR_BBF_OHR)
			return err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
				      PFCP_IE_BBF_OUTER_HEADER_REMOVAL);
		if (!(p->has & UPR_ETHERTYPE))
			return err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_ETHERTYPE);
		if (p->ethertype == 0x8863) {
			if (p->has & UPR_PPP)
				return err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
					      PFCP_IE_BBF_PPP_PROTOCOL);
			d->redir.classes |= UP_REDIRECT_DISCOVERY;
		} else if (p->ethertype == 0x8864) {
			if (!(p->has & UPR_PPP))
				d->redir.classes |= UP_REDIRECT_UNKNOWN_SESSION;
			else if (p->ppp_flags == PFCP_BBF_PPP_CONTROL)
				d->redir.classes |= UP_REDIRECT_PPP_CONTROL;
			else
				return err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
					      PFCP_IE_BBF_PPP_PROTOCOL);
		} else {
			return err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_ETHERTYPE);
		}
		if (f->apply != PFCP_APPLY_FORW)
			return err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_APPLY_ACTION);
		if (!(f->has & UPF_FWD))
			return err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING,
				      PFCP_IE_FORWARDING_PARAMETERS);
		if (f->dst_if != PFCP_IF_CP_FUNCTION)
			return err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
				      PFCP_IE_DESTINATION_INTERFACE);
		if (!(f->has & UPF_OHC))
			return err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING,
				      PFCP_IE_OUTER_HEADER_CREATION);
		if (f->ohc_desc != PFCP_OHC_UDP_IPV4)
			return err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
				      PFCP_IE_OUTER_HEADER_CREATION);
		if (!unicast_ipv4(f->ohc_ip) || f->ohc_port == 0)
			return err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
				      PFCP_IE_OUTER_HEADER_CREATION);
		if (f->has & UPF_BBF_OHC)
			return err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
				      PFCP_IE_BBF_OUTER_HEADER_CREATION);
		if (have_target && (f->ohc_ip != d->redir.cp_ip || f->ohc_port != d->redir.cp_port))
			return err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
				      PFCP_IE_OUTER_HEADER_CREATION);
		have_target = true;
		d->redir.cp_ip = f->ohc_ip;
		d->redir.cp_port = f->ohc_port;
	}
	d->redir.fallback = false;
	return 0;
}

/* The FAR of a subscriber PDR: forward, with Forwarding Parameters to dst_if. */
static int
check_sub_far(const struct up_far *f, uint8_t dst_if, struct up_err *e)
{
	if (!(f->apply & PFCP_APPLY_FORW) ||
	    (f->apply & (PFCP_APPLY_DROP | PFCP_APPLY_BUFF | PFCP_APPLY_DUPL)))
		return err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_APPLY_ACTION);
	if (!(f->has & UPF_FWD))
		return err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_FORWARDING_PARAMETERS);
	if (!(f->has & UPF_DST_IF) || f->dst_if != dst_if)
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_DESTINATION_INTERFACE);
	if (f->has & UPF_OHC)
		return err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_OUTER_HEADER_CREATION);
	return 0;
}

static int
validate_sub(struct pfcp_up *u, const struct up_rules *r, const struct up_attr *a,
	     struct up_derived *d, struct up_err *e)
{
	const struct up_pdr *up = NULL, *dn = NULL;
	const struct up_far *fu, *fd;
	const struct up_qer *qu = NULL, *qd = NULL;
	struct up_sub *s = &d->sub;
	uint16_t policy = 0;

	d->kind = UP_KIND_SUBSCRIBER;
	for (int i = 0; i < r->n_pdr; i++) {
		const struct up_pdr *p = &r->pdr[i];

		if (p->src_if == PFCP_IF_ACCESS) {
			if (up != NULL)
				return err_rule(e, PFCP_RULE_PDR, p->id);
			up = p;
		} else if (p->src_if == PFCP_IF_CORE) {
			if (dn != NULL)
				return err_rule(e, PFCP_RULE_PDR, p->id);
			dn = p;
		} else {
			return err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
				      PFCP_IE_SOURCE_INTERFACE);
		}
	}
	if (up == NULL || dn == NULL)
		return err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_CREATE_PDR);

	/* upstream PDR: the line and PPPoE identity */
	if (!(up->has & UPR_STAG))
		return err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_S_TAG);
	if (!(up->has & UPR_CTAG))
		return err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_C_TAG);
	if (!(up->has & UPR_MAC))
		return err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_MAC_ADDRESS);
	if (!(up->has & UPR_SID))
		return err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_BBF_PPPOE_SESSION_ID);
	if (!(up->has & UPR_BBF_OHR))
		return err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING,
			      PFCP_IE_BBF_OUTER_HEADER_REMOVAL);
	if (up->has & UPR_MAC_OTHER)
		return err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_MAC_ADDRESS);
	if (up->stag < 1 || up->stag > 4094)
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_S_TAG);
	if (up->ctag < 1 || up->ctag > 4094)
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_C_TAG);
	if ((up->mac[0] & 1) ||
	    (up->mac[0] | up->mac[1] | up->mac[2] | up->mac[3] | up->mac[4] | up->mac[5]) == 0)
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_MAC_ADDRESS);
	if (up->sid == 0 || up->sid == 0xffff)
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_BBF_PPPOE_SESSION_ID);
	if ((up->has & UPR_ETHERTYPE) && up->ethertype != 0x8864)
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_ETHERTYPE);
	if ((up->has & UPR_PPP) &&
	    !(up->ppp_flags == PFCP_BBF_PPP_DATA ||
	      ((up->ppp_flags & ~PFCP_BBF_PPP_DATA) == PFCP_BBF_PPP_SPECIFIC &&
	       up->ppp_proto == 0x0021)))
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_BBF_PPP_PROTOCOL);
	if (up->bbf_ohr != PFCP_BBF_OHR_PPP_PPPOE_ETHERNET)
		return err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
			      PFCP_IE_BBF_OUTER_HEADER_REMOVAL);
	if ((up->has & UPR_OHR) && up->ohr != PFCP_OHR_STAG_CTAG)
		return err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_OUTER_HEADER_REMOVAL);

	/* downstream PDR: the UE address */
	if (!(dn->has & UPR_UE_IP))
		return err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_UE_IP_ADDRESS);
	if (!(dn->ue_flags & PFCP_UEIP_V4) || (dn->ue_flags & (PFCP_UEIP_CHV4 | PFCP_UEIP_CHV6)))
		return err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_UE_IP_ADDRESS);
	if (!(dn->ue_flags & PFCP_UEIP_SD) || !unicast_ipv4(dn->ue_ip))
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_UE_IP_ADDRESS);
	if ((up->has & UPR_UE_IP) && (!(up->ue_flags & PFCP_UEIP_V4) ||
				      (up->ue_flags & PFCP_UEIP_SD) || up->ue_ip != dn->ue_ip))
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_UE_IP_ADDRESS);
	if (dn->has & (UPR_STAG | UPR_CTAG | UPR_MAC | UPR_MAC_OTHER | UPR_SID | UPR_PPP |
		       UPR_ETHERTYPE | UPR_LPORT))
		return err_rule(e, PFCP_RULE_PDR, dn->id);
	if (dn->has & (UPR_OHR | UPR_BBF_OHR))
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
			      (dn->has & UPR_OHR) ? PFCP_IE_OUTER_HEADER_REMOVAL
						  : PFCP_IE_BBF_OUTER_HEADER_REMOVAL);

	/* FARs */
	fu = &r->far[find_far(r, up->far_id)];
	fd = &r->far[find_far(r, dn->far_id)];
	if (fu == fd)
		return err_rule(e, PFCP_RULE_FAR, fu->id);
	if (check_sub_far(fu, PFCP_IF_CORE, e) != 0 || check_sub_far(fd, PFCP_IF_ACCESS, e) != 0)
		return -1;
	if (fu->has & UPF_BBF_OHC)
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
			      PFCP_IE_BBF_OUTER_HEADER_CREATION);
	if (!(fd->has & UPF_BBF_OHC))
		return err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING,
			      PFCP_IE_BBF_OUTER_HEADER_CREATION);
	if (fd->bbf_ohc_desc != PFCP_BBF_OHC_TRAFFIC_ENDPOINT)
		return err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
			      PFCP_IE_BBF_OUTER_HEADER_CREATION);
	if ((fd->has & UPF_BBF_OHC_IDS) && (fd->bbf_ohc_tunnel != 0 || fd->bbf_ohc_sid != up->sid))
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
			      PFCP_IE_BBF_OUTER_HEADER_CREATION);
	if (fd->has & UPF_POLICY)
		policy = fd->policy;
	if (fu->has & UPF_POLICY) {
		if (policy != 0 && policy != fu->policy)
			return err_ie(e, PFCP_CAUSE_INVALID_FORWARDING_POLICY,
				      PFCP_IE_FORWARDING_POLICY);
		policy = fu->policy;
	}

	/* QERs: uplink rates from the upstream PDR's, downlink from the downstream's */
	if (up->has & UPR_QER)
		qu = &r->qer[find_qer(r, up->qer_id)];
	if (dn->has & UPR_QER)
		qd = &r->qer[find_qer(r, dn->qer_id)];
	if (qu != NULL && qu->gate_ul != PFCP_GATE_OPEN)
		return err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_GATE_STATUS);
	if (qd != NULL && qd->gate_dl != PFCP_GATE_OPEN)
		return err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, PFCP_IE_GATE_STATUS);
	if (qu != NULL) {
		s->mbr_ul = (qu->has & UPQ_MBR) ? qu->mbr_ul * 1000 : 0;
		s->gbr_ul = (qu->has & UPQ_GBR) ? qu->gbr_ul * 1000 : 0;
	}
	if (qd != NULL) {
		s->mbr_dl = (qd->has & UPQ_MBR) ? qd->mbr_dl * 1000 : 0;
		s->gbr_dl = (qd->has & UPQ_GBR) ? qd->gbr_dl * 1000 : 0;
	}
	if ((s->mbr_ul && s->gbr_ul > s->mbr_ul) || (s->mbr_dl && s->gbr_dl > s->mbr_dl))
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_GBR);

	/* URRs */
	for (int i = 0; i < r->n_urr; i++) {
		const struct up_urr *q = &r->urr[i];

		if (!(q->method & (PFCP_METHOD_VOLUM | PFCP_METHOD_DURAT)))
			return err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
				      PFCP_IE_MEASUREMENT_METHOD);
		if ((q->triggers & PFCP_RT_PERIO) && (!(q->has & UPU_PERIOD) || q->period == 0))
			return err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING,
				      PFCP_IE_MEASUREMENT_PERIOD);
		if ((q->triggers & PFCP_RT_VOLTH) && (!(q->has & UPU_VOLTH) || q->vol_flags == 0))
			return err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING,
				      PFCP_IE_VOLUME_THRESHOLD);
		for (int k = 0; k < up->n_urr; k++)
			if (up->urr_id[k] == q->id)
				d->dirs[i] |= DIR_UL;
		for (int k = 0; k < dn->n_urr; k++)
			if (dn->urr_id[k] == q->id)
				d->dirs[i] |= DIR_DL;
		if (d->dirs[i] && (q->triggers & PFCP_RT_PERIO) &&
		    (s->urr_period_s == 0 || q->period < s->urr_period_s))
			s->urr_period_s = q->period;
	}

	/* the flat description */
	if (up->lport)
		memcpy(s->logical_port, u->names.s[up->lport], UP_NAME_SIZE);
	if (policy)
		memcpy(s->qos_profile, u->names.s[policy], UP_NAME_SIZE);
	s->stag = up->stag;
	s->ctag = up->ctag;
	memcpy(s->mac, up->mac, 6);
	s->pppoe_sid = up->sid;
	s->ipv4 = dn->ue_ip;
	s->mtu = a->mtu;
	s->lcp_offload = a->lcp_on != 0;
	s->lcp_magic = a->magic_tx;
	s->lcp_peer_magic = a->magic_rx;
	s->echo_interval_s = a->lcp_interval;
	s->echo_misses = a->lcp_count;
	return 0;
}

static int
validate(struct pfcp_up *u, const struct up_rules *r, const struct up_attr *a, struct up_derived *d,
	 struct up_err *e)
{
	bool to_cp = false;

	memset(d, 0, sizeof(*d));
	if (r->n_pdr == 0)
		return err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_CREATE_PDR);
	for (int i = 0; i < r->n_pdr; i++) {
		const struct up_pdr *p = &r->pdr[i];

		if (!(p->has & UPR_FAR))
			return err_ie(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_FAR_ID);
		if (find_far(r, p->far_id) < 0)
			return err_rule(e, PFCP_RULE_PDR, p->id);
		if ((p->has & UPR_QER) && find_qer(r, p->qer_id) < 0)
			return err_rule(e, PFCP_RULE_PDR, p->id);
		for (int k = 0; k < p->n_urr; k++)
			if (find_urr(r, p->urr_id[k]) < 0)
				return err_rule(e, PFCP_RULE_PDR, p->id);
	}
	for (int i = 0; i < r->n_far; i++)
		if ((r->far[i].has & UPF_DST_IF) && r->far[i].dst_if == PFCP_IF_CP_FUNCTION)
			to_cp = true;
	if (to_cp)
		return validate_default(u, r, d, e);
	return validate_sub(u, r, a, d, e);
}

static uint32_t
sub_changes(const struct up_sub *o, const struct up_sub *n)
{
	uint32_t c = 0;

	if (strcmp(o->logical_port, n->logical_port) != 0 || o->stag != n->stag ||
	    o->ctag != n->ctag || memcmp(o->mac, n->mac, 6) != 0 || o->pppoe_sid != n->pppoe_sid ||
	    o->ipv4 != n->ipv4)
		c |= UP_CHG_KEYS;
	if (o->mtu != n->mtu)
		c |= UP_CHG_MTU;
	if (o->mbr_ul != n->mbr_ul || o->mbr_dl != n->mbr_dl || o->gbr_ul != n->gbr_ul ||
	    o->gbr_dl != n->gbr_dl)
		c |= UP_CHG_RATES;
	if (strcmp(o->qos_profile, n->qos_profile) != 0)
		c |= UP_CHG_QOS;
	if (o->lcp_offload != n->lcp_offload || o->lcp_magic != n->lcp_magic ||
	    o->lcp_peer_magic != n->lcp_peer_magic || o->echo_interval_s != n->echo_interval_s ||
	    o->echo_misses != n->echo_misses)
		c |= UP_CHG_LCP;
	if (o->urr_period_s != n->urr_period_s)
		c |= UP_CHG_URR;
	return c;
}

static uint8_t
errno_cause(int rc)
{
	switch (rc) {
	case -ENOSPC:
	case -ENOMEM:
		return PFCP_CAUSE_NO_RESOURCES_AVAILABLE;
	case -ENOENT:
		return PFCP_CAUSE_INVALID_FORWARDING_POLICY;
	default:
		return PFCP_CAUSE_RULE_CREATION_MODIFICATION_FAILURE;
	}
}

static void
ops_error(const struct up_rules *r, int rc, struct up_err *e)
{
	uint8_t cause = errno_cause(rc);

	if (cause == PFCP_CAUSE_RULE_CREATION_MODIFICATION_FAILURE) {
		uint16_t id = 0;

		for (int i = 0; i < r->n_pdr; i++)
			if (r->pdr[i].src_if == PFCP_IF_ACCESS)
				id = r->pdr[i].id;
		err_rule(e, PFCP_RULE_PDR, id);
	} else {
		set_err(e, cause,
			cause == PFCP_CAUSE_INVALID_FORWARDING_POLICY ? PFCP_IE_FORWARDING_POLICY
								      : 0);
	}
}

/* ---- usage measurement ------------------------------------------------------------------ */

static void
usage_get(struct pfcp_up *u, uint32_t handle, uint64_t c[4])
{
	struct up_usage us;

	memset(&us, 0, sizeof(us));
	u->ops.usage(u->ctx, handle, &us);
	c[C_UL_PKTS] = us.ul_pkts;
	c[C_UL_BYTES] = us.ul_bytes;
	c[C_DL_PKTS] = us.dl_pkts;
	c[C_DL_BYTES] = us.dl_bytes;
}

/* Usage of URR i since its last report (carry included), by counter. */
static void
urr_delta(const struct up_meas *ms, const uint64_t cur[4], uint64_t d[4])
{
	for (int k = 0; k < 4; k++) {
		bool on = (k < 2) ? (ms->dirs & DIR_UL) : (ms->dirs & DIR_DL);
		/* a counter below its base restarted (the data path re-added the session) */
		uint64_t v = cur[k] >= ms->base[k] ? cur[k] - ms->base[k] : cur[k];

		d[k] = (on ? v : 0) + ms->carry[k];
	}
}

/*
 * Fill report r for URR i of s with its usage since the last report, then
 * start a new measurement interval.
 */
static void
urr_report(const struct pfcp_up *u, struct up_sess *s, int i, const uint64_t cur[4],
	   uint32_t trigger, uint16_t ie_type, uint64_t now_ms, struct pfcp_usage_report *r,
	   uint64_t d_out[4])
{
	struct up_meas *ms = &s->meas[i];
	const struct up_urr *q = &s->r.urr[i];
	uint32_t now = ntp_now(u, now_ms);
	uint64_t d[4];

	urr_delta(ms, cur, d);
	memset(r, 0, sizeof(*r));
	r->ie_type = ie_type;
	r->present = PFCP_UR_URR_ID | PFCP_UR_SEQN | PFCP_UR_TRIGGER | PFCP_UR_START | PFCP_UR_END;
	r->urr_id = q->id;
	r->seqn = ms->seqn++;
	r->trigger = trigger;
	r->start_time = ms->start_ntp;
	r->end_time = now;
	if (q->method & PFCP_METHOD_VOLUM) {
		r->present |= PFCP_UR_VOLUME;
		r->vol.flags = 0x3f;
		r->vol.ul = d[C_UL_BYTES];
		r->vol.dl = d[C_DL_BYTES];
		r->vol.total = d[C_UL_BYTES] + d[C_DL_BYTES];
		r->vol.ul_pkts = d[C_UL_PKTS];
		r->vol.dl_pkts = d[C_DL_PKTS];
		r->vol.total_pkts = d[C_UL_PKTS] + d[C_DL_PKTS];
	}
	if (q->method & PFCP_METHOD_DURAT) {
		r->present |= PFCP_UR_DURATION;
		r->duration = now >= ms->start_ntp ? now - ms->start_ntp : 0;
	}
	if (d_out != NULL)
		memcpy(d_out, d, sizeof(d));
	for (int k = 0; k < 4; k++) {
		ms->base[k] = cur[k];
		ms->carry[k] = 0;
	}
	ms->start_ntp = now;
}

static void
meas_init(struct up_meas *ms, const struct up_urr *q, const uint64_t cur[4], uint32_t now_ntp,
	  uint64_t now_ms)
{
	memset(ms, 0, sizeof(*ms));
	memcpy(ms->base, cur, sizeof(ms->base));
	ms->start_ntp = now_ntp;
	if ((q->triggers & PFCP_RT_PERIO) && q->period)
		ms->next_ms = now_ms + (uint64_t)q->period * 1000;
}

/* ---- responses ------------------------------------------------------------------------------- */

static void
tx_init(struct pfcp_up *u, uint8_t type, const struct pfcp_hdr *req, bool sess, uint64_t seid)
{
	struct pfcp_msg *m = &u->tx;

	memset(&m->h, 0, sizeof(m->h));
	m->present = 0;
	m->n_usage = 0;
	m->n_create_pdr = m->n_create_far = m->n_create_qer = m->n_create_urr = 0;
	m->n_update_pdr = m->n_update_far = m->n_update_qer = m->n_update_urr = 0;
	m->n_remove_pdr = m->n_remove_far = m->n_remove_qer = m->n_remove_urr = 0;
	m->n_query_urr = 0;
	m->h.type = type;
	m->h.seq = req ? req->seq : 0;
	if (sess) {
		m->h.flags = PFCP_FLAG_S;
		m->h.seid = seid;
	}
}

static void
tx_node_id(struct pfcp_up *u)
{
	u->tx.present |= PFCP_M_NODE_ID;
	u->tx.node_id.type = PFCP_NODE_ID_IPV4;
	u->tx.node_id.ipv4 = u->conf.node_ipv4;
}

static void
tx_cause(struct pfcp_up *u, const struct up_err *e)
{
	u->tx.present |= PFCP_M_CAUSE;
	u->tx.cause = e->cause;
	if (e->cause != PFCP_CAUSE_REQUEST_ACCEPTED && e->offending != 0) {
		u->tx.present |= PFCP_M_OFFENDING_IE;
		u->tx.offending_ie = e->offending;
	}
	if (e->has_rule) {
		u->tx.present |= PFCP_M_FAILED_RULE;
		u->tx.failed_rule = e->rule;
	}
}

/* Encode u->tx, send it to the requester, cache it. */
static void
respond(struct pfcp_up *u, const struct pfcp_hdr *req, uint32_t ip, uint16_t port, uint64_t now_ms,
	pfcp_send_fn send, void *arg)
{
	int n = pfcp_msg_encode(&u->tx, u->txbuf, sizeof(u->txbuf));

	if (n < 0) { /* cannot happen with the caps; answer the cause alone */
		u->tx.n_usage = 0;
		n = pfcp_msg_encode(&u->tx, u->txbuf, sizeof(u->txbuf));
		if (n < 0)
			return;
	}
	if ((u->tx.present & PFCP_M_CAUSE) && u->tx.cause != PFCP_CAUSE_REQUEST_ACCEPTED)
		u->st.rejected[u->tx.cause < PFCP_CAUSE_MAX ? u->tx.cause : 0]++;
	do_send(u, send, arg, u->txbuf, (size_t)n, ip, port);
	rc_put(u, ip, port, req->seq, req->type, u->txbuf, (size_t)n, now_ms);
}

/* ---- our requests -----------------------------------------------------------------------------
 */

/* A free pending entry and a fresh sequence number for it, or NULL. */
static struct pend *
pend_alloc(struct pfcp_up *u, uint32_t *seq)
{
	for (uint32_t tries = 0; tries < UP_MAX_PENDING; tries++) {
		uint32_t s = u->seq_next;
		struct pend *p;

		u->seq_next = (u->seq_next + 1) & PFCP_SEQ_MASK;
		if (u->seq_next == 0)
			u->seq_next = 1;
		p = &u->pend[s % UP_MAX_PENDING];
		if (p->kind == PK_FREE) {
			*seq = s;
			return p;
		}
	}
	return NULL;
}

static void
pend_free(struct pfcp_up *u, struct pend *p)
{
	p->kind = PK_FREE;
	u->n_pend--;
	u->st.pending = u->n_pend;
}

/* Encode u->tx as request seq into p, send it. */
static int
pend_send(struct pfcp_up *u, struct pend *p, uint8_t kind, uint32_t seq, uint32_t ip,
	  uint64_t seid_ctx, uint64_t now_ms, pfcp_send_fn send, void *arg)
{
	int n;

	u->tx.h.seq = seq;
	n = pfcp_msg_encode(&u->tx, p->buf, sizeof(p->buf));
	if (n < 0)
		return -ENOSPC;
	p->kind = kind;
	p->seq = seq;
	p->len = (uint16_t)n;
	p->ip = ip;
	p->tries = 1;
	p->sent_ms = now_ms;
	p->up_seid = seid_ctx;
	u->n_pend++;
	u->st.pending = u->n_pend;
	do_send(u, send, arg, p->buf, (size_t)n, ip, u->conf.cp_port);
	return 0;
}

/*
 * Where a session's reports go: the allow-listed CP, whatever address its
 * F-SEID names (bngpod has one CP per DP; the DP never sends to an address
 * a message gave it).
 */
static uint32_t
sess_cp_ip(const struct pfcp_up *u, const struct up_sess *s)
{
	(void)s;
	return u->conf.cp_ip;
}

/* Session Report Request with usage reports for the URRs in mask. */
static int
send_usage_report(struct pfcp_up *u, struct up_sess *s, uint32_t mask,
		  const uint32_t trig[UP_SESS_MAX_URR], const uint64_t cur[4], uint64_t now_ms,
		  pfcp_send_fn send, void *arg)
{
	struct pend *p;
	uint32_t seq;

	p = pend_alloc(u, &seq);
	if (p == NULL)
		return -ENOBUFS;
	tx_init(u, PFCP_SESS_REPORT_REQ, NULL, true, s->cp_seid);
	u->tx.present |= PFCP_M_REPORT_TYPE;
	u->tx.report_type = PFCP_REPORT_USAR;
	p->n_ur = 0;
	for (int i = 0; i < s->r.n_urr; i++) {
		if (!(mask & (1u << i)))
			continue;
		p->ur[p->n_ur].urr_id = s->r.urr[i].id;
		p->ur[p->n_ur].start_ntp = s->meas[i].start_ntp;
		urr_report(u, s, i, cur, trig[i], PFCP_IE_USAGE_REPORT_SRR, now_ms,
			   &u->tx.usage[u->tx.n_usage++], p->ur[p->n_ur].d);
		p->n_ur++;
	}
	if (pend_send(u, p, PK_USAGE, seq, sess_cp_ip(u, s), s->up_seid, now_ms, send, arg) != 0) {
		/* not sent: the usage goes into the next report */
		for (int k = 0; k < p->n_ur; k++) {
			int i = find_urr(&s->r, p->ur[k].urr_id);

			for (int c = 0; c < 4; c++)
				s->meas[i].carry[c] += p->ur[k].d[c];
			s->meas[i].start_ntp = p->ur[k].start_ntp;
		}
		return -ENOSPC;
	}
	s->flags |= SF_USAGE_INFLIGHT;
	u->st.reports_sent++;
	return 0;
}

static int
send_dead_report(struct pfcp_up *u, struct up_sess *s, uint64_t now_ms, pfcp_send_fn send,
		 void *arg)
{
	struct pend *p;
	uint32_t seq;

	p = pend_alloc(u, &seq);
	if (p == NULL)
		return -ENOBUFS;
	tx_init(u, PFCP_SESS_REPORT_REQ, NULL, true, s->cp_seid);
	u->tx.present |= PFCP_M_REPORT_TYPE | PFCP_M_BBF_LCP;
	u->tx.report_type = PFCP_REPORT_UPIR;
	memset(&u->tx.lcp, 0, sizeof(u->tx.lcp));
	u->tx.lcp.present = PFCP_LCP_TIMERS | PFCP_LCP_MAGIC;
	u->tx.lcp.interval = s->a.lcp_interval;
	u->tx.lcp.count = s->a.lcp_count;
	u->tx.lcp.magic_tx = s->a.magic_tx;
	u->tx.lcp.magic_rx = s->a.magic_rx;
	p->n_ur = 0;
	if (pend_send(u, p, PK_DEAD, seq, sess_cp_ip(u, s), s->up_seid, now_ms, send, arg) != 0)
		return -ENOSPC;
	s->flags |= SF_DEAD_INFLIGHT;
	u->st.lcp_dead_sent++;
	return 0;
}

static void
send_heartbeat(struct pfcp_up *u, uint64_t now_ms, pfcp_send_fn send, void *arg)
{
	struct pend *p;
	uint32_t seq;

	p = pend_alloc(u, &seq);
	if (p == NULL)
		return;
	tx_init(u, PFCP_HEARTBEAT_REQ, NULL, false, 0);
	u->tx.present |= PFCP_M_RECOVERY_TS;
	u->tx.recovery_ts = recovery_ntp(u);
	if (pend_send(u, p, PK_HB, seq, u->conf.cp_ip, 0, now_ms, send, arg) != 0)
		return;
	u->hb_pending = true;
	u->hb_seq = seq;
	u->st.hb_sent++;
}

/* A request of ours got its answer (ok) or ran out of tries (!ok). */
static void
pend_done(struct pfcp_up *u, struct pend *p, bool ok, uint8_t cause)
{
	uint32_t slot;
	struct up_sess *s = NULL;

	if (p->kind == PK_USAGE || p->kind == PK_DEAD)
		s = sess_by_seid(u, p->up_seid, &slot);
	switch (p->kind) {
	case PK_HB:
		u->hb_pending = false;
		if (ok) {
			u->st.hb_missed = 0;
			if (u->assoc)
				cp_state_set(u, UP_CP_ASSOCIATED);
		} else {
			u->st.hb_failures++;
			if (u->assoc)
				cp_state_set(u, UP_CP_UNREACHABLE);
		}
		break;
	case PK_USAGE:
		if (s == NULL)
			break;
		s->flags &= (uint8_t)~SF_USAGE_INFLIGHT;
		if (ok)
			break;
		/* never acknowledged: its usage goes into the next report */
		for (int k = 0; k < p->n_ur; k++) {
			int i = find_urr(&s->r, p->ur[k].urr_id);

			if (i < 0)
				continue;
			for (int c = 0; c < 4; c++)
				s->meas[i].carry[c] += p->ur[k].d[c];
			if (p->ur[k].start_ntp < s->meas[i].start_ntp)
				s->meas[i].start_ntp = p->ur[k].start_ntp;
		}
		break;
	case PK_DEAD:
		if (s == NULL)
			break;
		s->flags &= (uint8_t)~SF_DEAD_INFLIGHT;
		if (ok)
			s->flags &= (uint8_t)~SF_DEAD;
		break;
	default:
		break;
	}
	if (ok && cause != PFCP_CAUSE_REQUEST_ACCEPTED && p->kind != PK_HB)
		u->st.report_rejected++;
	pend_free(u, p);
}

/* ---- session removal helpers ---------------------------------------------------------------- */

static void
sess_drop_pending(struct pfcp_up *u, uint64_t up_seid)
{
	if (u->n_pend == 0)
		return;
	for (uint32_t i = 0; i < UP_MAX_PENDING; i++) {
		struct pend *p = &u->pend[i];

		if ((p->kind == PK_USAGE || p->kind == PK_DEAD) && p->up_seid == up_seid)
			pend_free(u, p);
	}
}

/* Forget session slot i (after the data path was told). */
static void
sess_forget(struct pfcp_up *u, uint32_t i)
{
	struct up_sess *s = &u->sess[i];

	if (s->flags & (SF_USAGE_INFLIGHT | SF_DEAD_INFLIGHT))
		sess_drop_pending(u, s->up_seid);
	hidx_del(&u->by_cp_seid, s->cp_seid, i);
	if (s->kind == UP_KIND_SUBSCRIBER) {
		hidx_del(&u->by_handle, s->handle, i);
		u->st.sub_sessions--;
	} else if (u->default_slot == i) {
		u->default_slot = H_EMPTY;
		u->st.default_session = false;
	}
	u->st.sessions--;
	u->st.sessions_deleted++;
	slot_release(u, i);
}

static void
redirect_fallback(struct pfcp_up *u)
{
	struct up_redirect r = u->conf.fallback;

	r.fallback = true;
	u->ops.redirect(u->ctx, &r);
}

/* Delete every session (Association Release). */
static void
delete_all(struct pfcp_up *u)
{
	bool had_default = u->default_slot != H_EMPTY;

	for (uint32_t i = 0; i < u->conf.capacity; i++) {
		struct up_sess *s = &u->sess[i];

		if (s->up_seid == 0)
			continue;
		if (s->kind == UP_KIND_SUBSCRIBER)
			u->ops.remove(u->ctx, s->handle);
		sess_forget(u, i);
	}
	if (had_default)
		redirect_fallback(u);
}

/* ---- session requests ---------------------------------------------------------------------- */

/* Rules from the Create IEs of an establishment request. */
static int
rules_from_msg(struct pfcp_up *u, struct up_rules *r, const struct pfcp_msg *m, struct up_err *e)
{
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < m->n_create_pdr; i++)
		if (pdr_create(u, r, &m->create_pdr[i], e) != 0)
			return -1;
	for (int i = 0; i < m->n_create_far; i++)
		if (far_create(u, r, &m->create_far[i], e) != 0)
			return -1;
	for (int i = 0; i < m->n_create_qer; i++)
		if (qer_create(r, &m->create_qer[i], e) != 0)
			return -1;
	for (int i = 0; i < m->n_create_urr; i++)
		if (urr_create(r, &m->create_urr[i], e) != 0)
			return -1;
	return 0;
}

static void
sess_establish(struct pfcp_up *u, const struct pfcp_msg *m, uint64_t now_ms, struct up_err *e,
	       uint64_t *up_seid)
{
	struct up_rules *r = &u->tmp_rules;
	struct up_attr a;
	struct up_derived d;
	struct up_sess *s;
	uint32_t slot, old, handle = 0;
	uint64_t zero[4] = {0, 0, 0, 0};
	int rc;

	if (!(m->present & PFCP_M_NODE_ID)) {
		err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_NODE_ID);
		return;
	}
	if (!(m->present & PFCP_M_F_SEID)) {
		err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_F_SEID);
		return;
	}
	if (m->n_create_pdr == 0) {
		err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_CREATE_PDR);
		return;
	}
	if (m->n_create_far == 0) {
		err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_CREATE_FAR);
		return;
	}
	memset(&a, 0, sizeof(a));
	if (rules_from_msg(u, r, m, e) != 0 || attr_apply(&a, m, e) != 0 ||
	    validate(u, r, &a, &d, e) != 0)
		return;

	/* the same CP SEID again: idempotent if it asks for the same session */
	old = hidx_find(&u->by_cp_seid, m->fseid.seid);
	if (old != H_EMPTY) {
		s = &u->sess[old];
		if (memcmp(&s->r, r, sizeof(*r)) == 0 && memcmp(&s->a, &a, sizeof(a)) == 0) {
			*up_seid = s->up_seid;
			set_err(e, PFCP_CAUSE_REQUEST_ACCEPTED, 0);
		} else {
			err_ie(e, PFCP_CAUSE_REQUEST_REJECTED, PFCP_IE_F_SEID);
		}
		return;
	}
	if (d.kind == UP_KIND_DEFAULT && u->default_slot != H_EMPTY) {
		err_ie(e, PFCP_CAUSE_REQUEST_REJECTED, 0);
		return;
	}
	if (u->n_free == 0) {
		err_ie(e, PFCP_CAUSE_NO_RESOURCES_AVAILABLE, 0);
		return;
	}
	if (d.kind == UP_KIND_SUBSCRIBER) {
		rc = u->ops.install(u->ctx, &d.sub, &handle);
		if (rc != 0) {
			u->st.install_failed++;
			ops_error(r, rc, e);
			return;
		}
	} else {
		u->ops.redirect(u->ctx, &d.redir);
	}

	/* commit: nothing below can fail */
	slot = slot_alloc(u);
	s = &u->sess[slot];
	s->up_seid = seid_of(s, slot);
	s->cp_seid = m->fseid.seid;
	s->kind = d.kind;
	s->handle = handle;
	s->a = a;
	s->r = *r;
	for (int i = 0; i < r->n_urr; i++) {
		meas_init(&s->meas[i], &r->urr[i], zero, ntp_now(u, now_ms), now_ms);
		s->meas[i].dirs = d.dirs[i];
	}
	hidx_put(&u->by_cp_seid, s->cp_seid, slot);
	if (d.kind == UP_KIND_SUBSCRIBER) {
		hidx_put(&u->by_handle, handle, slot);
		u->st.sub_sessions++;
	} else {
		u->default_slot = slot;
		u->st.default_session = true;
	}
	u->st.sessions++;
	u->st.sessions_established++;
	*up_seid = s->up_seid;
	set_err(e, PFCP_CAUSE_REQUEST_ACCEPTED, 0);
}

static void
on_sess_establish(struct pfcp_up *u, const struct pfcp_msg *m, int drc, const struct pfcp_derr *de,
		  uint32_t ip, uint16_t port, uint64_t now_ms, pfcp_send_fn send, void *arg)
{
	struct up_err e = {.cause = PFCP_CAUSE_REQUEST_ACCEPTED};
	uint64_t up_seid = 0;
	uint64_t cp_seid = (m->present & PFCP_M_F_SEID) ? m->fseid.seid : 0;

	if (!u->assoc)
		set_err(&e, PFCP_CAUSE_NO_ESTABLISHED_ASSOCIATION, 0);
	else if (drc != PFCP_OK)
		set_err(&e, de->cause, de->offending_ie);
	else
		sess_establish(u, m, now_ms, &e, &up_seid);
	tx_init(u, PFCP_SESS_EST_RSP, &m->h, true, cp_seid);
	tx_node_id(u);
	tx_cause(u, &e);
	if (e.cause == PFCP_CAUSE_REQUEST_ACCEPTED) {
		u->tx.present |= PFCP_M_F_SEID;
		u->tx.fseid.flags = PFCP_FSEID_V4;
		u->tx.fseid.seid = up_seid;
		u->tx.fseid.ipv4 = u->conf.node_ipv4;
	}
	respond(u, &m->h, ip, port, now_ms, send, arg);
}

/* Apply a modification request to a copy of s's rules, validate, commit. */
static void
sess_modify(struct pfcp_up *u, uint32_t slot, const struct pfcp_msg *m, uint64_t now_ms,
	    struct up_err *e)
{
	struct up_sess *s = &u->sess[slot];
	struct up_rules *r = &u->tmp_rules;
	struct up_attr a = s->a;
	struct up_derived od, nd;
	struct up_meas meas[UP_SESS_MAX_URR];
	uint64_t cur[4] = {0, 0, 0, 0};
	uint32_t handle = s->handle;
	bool query_all = (m->present & PFCP_M_SMREQ_FLAGS) && (m->smreq_flags & PFCP_SMREQ_QAURR);
	uint32_t now_ntp = ntp_now(u, now_ms);

	*r = s->r;
	for (int i = 0; i < m->n_remove_pdr; i++) {
		int k = m->remove_pdr[i] > 0xffff ? -1 : find_pdr(r, (uint16_t)m->remove_pdr[i]);

		if (k < 0) {
			err_rule(e, PFCP_RULE_PDR, m->remove_pdr[i]);
			return;
		}
		remove_at(r->pdr, &r->n_pdr, k, sizeof(r->pdr[0]));
	}
	for (int i = 0; i < m->n_remove_far; i++) {
		int k = find_far(r, m->remove_far[i]);

		if (k < 0) {
			err_rule(e, PFCP_RULE_FAR, m->remove_far[i]);
			return;
		}
		remove_at(r->far, &r->n_far, k, sizeof(r->far[0]));
	}
	for (int i = 0; i < m->n_remove_qer; i++) {
		int k = find_qer(r, m->remove_qer[i]);

		if (k < 0) {
			err_rule(e, PFCP_RULE_QER, m->remove_qer[i]);
			return;
		}
		remove_at(r->qer, &r->n_qer, k, sizeof(r->qer[0]));
	}
	for (int i = 0; i < m->n_remove_urr; i++) {
		int k = find_urr(r, m->remove_urr[i]);

		if (k < 0) {
			err_rule(e, PFCP_RULE_URR, m->remove_urr[i]);
			return;
		}
		remove_at(r->urr, &r->n_urr, k, sizeof(r->urr[0]));
	}
	for (int i = 0; i < m->n_update_pdr; i++)
		if (pdr_update(u, r, &m->update_pdr[i], e) != 0)
			return;
	for (int i = 0; i < m->n_update_far; i++)
		if (far_update(u, r, &m->update_far[i], e) != 0)
			return;
	for (int i = 0; i < m->n_update_qer; i++)
		if (qer_update(r, &m->update_qer[i], e) != 0)
			return;
	for (int i = 0; i < m->n_update_urr; i++)
		if (urr_update(r, &m->update_urr[i], e) != 0)
			return;
	for (int i = 0; i < m->n_create_pdr; i++)
		if (pdr_create(u, r, &m->create_pdr[i], e) != 0)
			return;
	for (int i = 0; i < m->n_create_far; i++)
		if (far_create(u, r, &m->create_far[i], e) != 0)
			return;
	for (int i = 0; i < m->n_create_qer; i++)
		if (qer_create(r, &m->create_qer[i], e) != 0)
			return;
	for (int i = 0; i < m->n_create_urr; i++)
		if (urr_create(r, &m->create_urr[i], e) != 0)
			return;
	for (int i = 0; i < m->n_query_urr; i++)
		if (find_urr(r, m->query_urr[i]) < 0) {
			err_rule(e, PFCP_RULE_URR, m->query_urr[i]);
			return;
		}
	if (attr_apply(&a, m, e) != 0 || validate(u, r, &a, &nd, e) != 0)
		return;
	if (nd.kind != s->kind) {
		err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, 0);
		return;
	}
	if ((m->present & PFCP_M_F_SEID) && m->fseid.seid != s->cp_seid &&
	    hidx_find(&u->by_cp_seid, m->fseid.seid) != H_EMPTY) {
		err_ie(e, PFCP_CAUSE_REQUEST_REJECTED, PFCP_IE_F_SEID);
		return;
	}

	if (s->kind == UP_KIND_SUBSCRIBER) {
		struct up_err ign;
		uint32_t changed;

		/* the committed view (it validated when it was committed) */
		validate(u, &s->r, &s->a, &od, &ign);
		changed = sub_changes(&od.sub, &nd.sub);
		if (s->r.n_urr || r->n_urr)
			usage_get(u, s->handle, cur);
		if (changed) {
			int rc = u->ops.modify(u->ctx, &handle, &nd.sub, changed);

			if (rc != 0) {
				u->st.install_failed++;
				ops_error(r, rc, e);
				return;
			}
		}
	} else {
		struct up_err ign;

		validate(u, &s->r, &s->a, &od, &ign);
		if (memcmp(&od.redir, &nd.redir, sizeof(nd.redir)) != 0)
			u->ops.redirect(u->ctx, &nd.redir);
	}

	/* commit: usage reports of removed and queried URRs, new measurement state */
	tx_init(u, PFCP_SESS_MOD_RSP, &m->h, true, s->cp_seid);
	for (int i = 0; i < s->r.n_urr; i++) {
		bool gone = true;

		for (int k = 0; k < r->n_urr; k++)
			if (r->urr[k].id == s->r.urr[i].id)
				gone = false;
		if (gone && u->tx.n_usage < PFCP_MAX_RULES)
			urr_report(u, s, i, cur, PFCP_URT_TERMR, PFCP_IE_USAGE_REPORT_SMR, now_ms,
				   &u->tx.usage[u->tx.n_usage++], NULL);
	}
	for (int k = 0; k < r->n_urr; k++) {
		int i = find_urr(&s->r, r->urr[k].id);

		if (i >= 0) {
			meas[k] = s->meas[i];
			if ((r->urr[k].triggers & PFCP_RT_PERIO) && r->urr[k].period &&
			    (!(s->r.urr[i].triggers & PFCP_RT_PERIO) ||
			     s->r.urr[i].period != r->urr[k].period))
				meas[k].next_ms = now_ms + (uint64_t)r->urr[k].period * 1000;
		} else {
			meas_init(&meas[k], &r->urr[k], cur, now_ntp, now_ms);
		}
		meas[k].dirs = nd.dirs[k];
	}
	s->r = *r;
	s->a = a;
	memcpy(s->meas, meas, sizeof(meas[0]) * r->n_urr);
	memset(&s->meas[r->n_urr], 0, sizeof(meas[0]) * (UP_SESS_MAX_URR - r->n_urr));
	for (int k = 0; k < r->n_urr; k++) {
		bool q = query_all;

		for (int i = 0; i < m->n_query_urr; i++)
			if (m->query_urr[i] == r->urr[k].id)
				q = true;
		if (q && u->tx.n_usage < PFCP_MAX_RULES)
			urr_report(u, s, k, cur, PFCP_URT_IMMER, PFCP_IE_USAGE_REPORT_SMR, now_ms,
				   &u->tx.usage[u->tx.n_usage++], NULL);
	}
	if (handle != s->handle) {
		/* the data path re-added the session: its counters start again */
		hidx_del(&u->by_handle, s->handle, slot);
		s->handle = handle;
		hidx_put(&u->by_handle, handle, slot);
		for (int k = 0; k < r->n_urr; k++) {
			uint64_t d[4];

			urr_delta(&s->meas[k], cur, d);
			memcpy(s->meas[k].carry, d, sizeof(d));
			memset(s->meas[k].base, 0, sizeof(s->meas[k].base));
		}
	}
	if (m->present & PFCP_M_F_SEID && m->fseid.seid != s->cp_seid) {
		hidx_del(&u->by_cp_seid, s->cp_seid, slot);
		s->cp_seid = m->fseid.seid;
		hidx_put(&u->by_cp_seid, s->cp_seid, slot);
		u->tx.h.seid = s->cp_seid; /* the answer goes to the CP's new SEID */
	}
	u->st.sessions_modified++;
	set_err(e, PFCP_CAUSE_REQUEST_ACCEPTED, 0);
}

static void
on_sess_modify(struct pfcp_up *u, const struct pfcp_msg *m, int drc, const struct pfcp_derr *de,
	       uint32_t ip, uint16_t port, uint64_t now_ms, pfcp_send_fn send, void *arg)
{
	struct up_err e = {.cause = PFCP_CAUSE_REQUEST_ACCEPTED};
	struct up_sess *s = NULL;
	uint32_t slot = 0;

	if (!u->assoc)
		set_err(&e, PFCP_CAUSE_NO_ESTABLISHED_ASSOCIATION, 0);
	else if (!(m->h.flags & PFCP_FLAG_S) || (s = sess_by_seid(u, m->h.seid, &slot)) == NULL)
		set_err(&e, PFCP_CAUSE_SESSION_CONTEXT_NOT_FOUND, 0);
	else if (drc != PFCP_OK)
		set_err(&e, de->cause, de->offending_ie);
	if (e.cause == PFCP_CAUSE_REQUEST_ACCEPTED) {
		sess_modify(u, slot, m, now_ms, &e);
		if (e.cause == PFCP_CAUSE_REQUEST_ACCEPTED) {
			/* sess_modify built the response (with its usage reports) */
			tx_cause(u, &e);
			respond(u, &m->h, ip, port, now_ms, send, arg);
			return;
		}
	}
	tx_init(u, PFCP_SESS_MOD_RSP, &m->h, true, s ? s->cp_seid : 0);
	tx_cause(u, &e);
	respond(u, &m->h, ip, port, now_ms, send, arg);
}

static void
on_sess_delete(struct pfcp_up *u, const struct pfcp_msg *m, int drc, const struct pfcp_derr *de,
	       uint32_t ip, uint16_t port, uint64_t now_ms, pfcp_send_fn send, void *arg)
{
	struct up_err e = {.cause = PFCP_CAUSE_REQUEST_ACCEPTED};
	struct up_sess *s = NULL;
	uint32_t slot = 0;

	if (!u->assoc)
		set_err(&e, PFCP_CAUSE_NO_ESTABLISHED_ASSOCIATION, 0);
	else if (!(m->h.flags & PFCP_FLAG_S) || (s = sess_by_seid(u, m->h.seid, &slot)) == NULL)
		set_err(&e, PFCP_CAUSE_SESSION_CONTEXT_NOT_FOUND, 0);
	else if (drc != PFCP_OK)
		set_err(&e, de->cause, de->offending_ie);
	tx_init(u, PFCP_SESS_DEL_RSP, &m->h, true, s ? s->cp_seid : 0);
	if (e.cause == PFCP_CAUSE_REQUEST_ACCEPTED) {
		if (s->kind == UP_KIND_SUBSCRIBER) {
			uint64_t cur[4] = {0, 0, 0, 0};

			if (s->r.n_urr)
				usage_get(u, s->handle, cur);
			for (int i = 0; i < s->r.n_urr; i++)
				urr_report(u, s, i, cur, PFCP_URT_TERMR, PFCP_IE_USAGE_REPORT_SDR,
					   now_ms, &u->tx.usage[u->tx.n_usage++], NULL);
			u->ops.remove(u->ctx, s->handle);
			sess_forget(u, slot);
		} else {
			sess_forget(u, slot);
			redirect_fallback(u);
		}
	}
	tx_cause(u, &e);
	respond(u, &m->h, ip, port, now_ms, send, arg);
}

/* ---- node requests ------------------------------------------------------------------------ */

static void
tx_features(struct pfcp_up *u)
{
	u->tx.present |= PFCP_M_RECOVERY_TS | PFCP_M_UP_FEATURES | PFCP_M_BBF_UP_FEATURES;
	u->tx.recovery_ts = recovery_ntp(u);
	u->tx.up_features_len = 3;
	memcpy(u->tx.up_features, u->conf.up_features, 3);
	u->tx.bbf_up_features_len = 4;
	memset(u->tx.bbf_up_features, 0, 4);
	u->tx.bbf_up_features[0] = u->conf.bbf_features;
}

static void
on_assoc_setup(struct pfcp_up *u, const struct pfcp_msg *m, int drc, const struct pfcp_derr *de,
	       uint32_t ip, uint16_t port, uint64_t now_ms, pfcp_send_fn send, void *arg)
{
	struct up_err e = {.cause = PFCP_CAUSE_REQUEST_ACCEPTED};

	if (drc != PFCP_OK)
		set_err(&e, de->cause, de->offending_ie);
	else if (!(m->present & PFCP_M_NODE_ID))
		set_err(&e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_NODE_ID);
	else if (!(m->present & PFCP_M_RECOVERY_TS))
		set_err(&e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_RECOVERY_TIME_STAMP);
	if (e.cause == PFCP_CAUSE_REQUEST_ACCEPTED) {
		/*
		 * A CP that restarted (new recovery time stamp) keeps its
		 * sessions in bngpod (it persists them): unlike 29.244's
		 * default, the sessions and their SEIDs are kept.
		 */
		if (u->assoc && m->recovery_ts != u->cp_recovery_ts)
			u->st.cp_restarts++;
		u->assoc = true;
		u->cp_node = m->node_id;
		u->cp_recovery_ts = m->recovery_ts;
		u->st.hb_missed = 0;
		u->hb_next_ms = now_ms + u->conf.heartbeat_ms;
		u->st.assoc_setups++;
		cp_state_set(u, UP_CP_ASSOCIATED);
	}
	tx_init(u, PFCP_ASSOC_SETUP_RSP, &m->h, false, 0);
	tx_node_id(u);
	tx_cause(u, &e);
	tx_features(u);
	respond(u, &m->h, ip, port, now_ms, send, arg);
}

/* After a release: remove the subscriber sessions whose line is no longer served. */
static void
release_sweep(struct pfcp_up *u)
{
	if (u->ops.served == NULL)
		return;
	for (uint32_t i = 0; i < u->conf.capacity; i++) {
		struct up_sess *s = &u->sess[i];

		if (s->up_seid == 0 || s->kind != UP_KIND_SUBSCRIBER ||
		    u->ops.served(u->ctx, s->handle))
			continue;
		u->ops.remove(u->ctx, s->handle);
		sess_forget(u, i);
		u->st.lg_sessions_deleted++;
	}
}

static void
on_assoc_update(struct pfcp_up *u, const struct pfcp_msg *m, int drc, const struct pfcp_derr *de,
		uint32_t ip, uint16_t port, uint64_t now_ms, pfcp_send_fn send, void *arg)
{
	struct up_err e = {.cause = PFCP_CAUSE_REQUEST_ACCEPTED};

	if (drc != PFCP_OK)
		set_err(&e, de->cause, de->offending_ie);
	else if (!(m->present & PFCP_M_NODE_ID))
		set_err(&e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_NODE_ID);
	else if (!u->assoc)
		set_err(&e, PFCP_CAUSE_NO_ESTABLISHED_ASSOCIATION, 0);
	else if (!(m->present & PFCP_M_BNGPOD_LINE_GROUP))
		set_err(&e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_BNGPOD_LINE_GROUP);
	else if (m->n_line_group != 1)
		set_err(&e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_BNGPOD_LINE_GROUP);
	else if (u->ops.line_group == NULL || u->ops.line_group(u->ctx, &m->line_group) != 0)
		set_err(&e, PFCP_CAUSE_REQUEST_REJECTED, PFCP_IE_BNGPOD_LINE_GROUP);
	if (e.cause == PFCP_CAUSE_REQUEST_ACCEPTED) {
		if (m->line_group.action == PFCP_LG_ADOPT) {
			u->st.lg_adopts++;
		} else {
			u->st.lg_releases++;
			release_sweep(u);
		}
	} else {
		u->st.lg_refused++;
	}
	tx_init(u, PFCP_ASSOC_UPDATE_RSP, &m->h, false, 0);
	tx_node_id(u);
	tx_cause(u, &e);
	respond(u, &m->h, ip, port, now_ms, send, arg);
}

static void
on_assoc_release(struct pfcp_up *u, const struct pfcp_msg *m, int drc, const struct pfcp_derr *de,
		 uint32_t ip, uint16_t port, uint64_t now_ms, pfcp_send_fn send, void *arg)
{
	struct up_err e = {.cause = PFCP_CAUSE_REQUEST_ACCEPTED};

	if (drc != PFCP_OK)
		set_err(&e, de->cause, de->offending_ie);
	else if (!(m->present & PFCP_M_NODE_ID))
		set_err(&e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_NODE_ID);
	else if (!u->assoc)
		set_err(&e, PFCP_CAUSE_NO_ESTABLISHED_ASSOCIATION, 0);
	if (e.cause == PFCP_CAUSE_REQUEST_ACCEPTED) {
		delete_all(u);
		u->assoc = false;
		if (u->hb_pending) {
			u->hb_pending = false;
			pend_free(u, &u->pend[u->hb_seq % UP_MAX_PENDING]);
		}
		u->st.hb_missed = 0;
		u->st.assoc_releases++;
		cp_state_set(u, UP_CP_NONE);
	}
	tx_init(u, PFCP_ASSOC_RELEASE_RSP, &m->h, false, 0);
	tx_node_id(u);
	tx_cause(u, &e);
	respond(u, &m->h, ip, port, now_ms, send, arg);
}

static void
on_heartbeat(struct pfcp_up *u, const struct pfcp_msg *m, uint32_t ip, uint16_t port,
	     uint64_t now_ms, pfcp_send_fn send, void *arg)
{
	tx_init(u, PFCP_HEARTBEAT_RSP, &m->h, false, 0);
	u->tx.present |= PFCP_M_RECOVERY_TS;
	u->tx.recovery_ts = recovery_ntp(u);
	respond(u, &m->h, ip, port, now_ms, send, arg);
}

/* A request type we do not serve but must answer (PFD management, set deletion). */
static void
on_unsupported(struct pfcp_up *u, const struct pfcp_msg *m, uint8_t rsp_type, uint32_t ip,
	       uint16_t port, uint64_t now_ms, pfcp_send_fn send, void *arg)
{
	struct up_err e;

	set_err(&e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, 0);
	tx_init(u, rsp_type, &m->h, false, 0);
	if (rsp_type == PFCP_SESS_SET_DELETION_RSP)
		tx_node_id(u);
	tx_cause(u, &e);
	respond(u, &m->h, ip, port, now_ms, send, arg);
}

/* A response to one of our requests. */
static void
on_response(struct pfcp_up *u, const struct pfcp_msg *m, int drc, uint64_t now_ms)
{
	struct pend *p = &u->pend[m->h.seq % UP_MAX_PENDING];
	uint8_t want;

	(void)now_ms;
	if (p->kind == PK_FREE || p->seq != m->h.seq) {
		u->st.unexpected_response++;
		return;
	}
	want = p->kind == PK_HB ? PFCP_HEARTBEAT_RSP : PFCP_SESS_REPORT_RSP;
	if (m->h.type != want) {
		u->st.unexpected_response++;
		return;
	}
	if (p->kind == PK_HB && drc == PFCP_OK && (m->present & PFCP_M_RECOVERY_TS) && u->assoc &&
	    m->recovery_ts != u->cp_recovery_ts) {
		/* the CP restarted without releasing: keep the sessions, wait for its setup */
		u->st.cp_restarts++;
		u->cp_recovery_ts = m->recovery_ts;
	}
	pend_done(u, p, true,
		  (drc == PFCP_OK && (m->present & PFCP_M_CAUSE)) ? m->cause
								  : PFCP_CAUSE_REQUEST_ACCEPTED);
}

/* ---- input --------------------------------------------------------------------------------- */

static void
version_not_supported(struct pfcp_up *u, const struct pfcp_hdr *h, uint32_t ip, uint16_t port,
		      pfcp_send_fn send, void *arg)
{
	uint8_t b[PFCP_HDR_LEN_NODE];

	b[0] = PFCP_VERSION << 5;
	b[1] = PFCP_VERSION_NOT_SUPPORTED_RSP;
	b[2] = 0;
	b[3] = 4;
	b[4] = (uint8_t)(h->seq >> 16);
	b[5] = (uint8_t)(h->seq >> 8);
	b[6] = (uint8_t)h->seq;
	b[7] = 0;
	u->st.version_not_supported++;
	do_send(u, send, arg, b, sizeof(b), ip, port);
}

/* One message at buf; returns its length, or 0 when the rest of the datagram is unusable. */
static size_t
input_one(struct pfcp_up *u, const uint8_t *buf, size_t len, uint32_t ip, uint16_t port,
	  uint64_t now_ms, pfcp_send_fn send, void *arg)
{
	struct pfcp_msg *m = &u->rx;
	struct pfcp_derr de;
	const uint8_t *cached;
	size_t clen;
	int drc;

	drc = pfcp_hdr_decode(buf, len, &m->h);
	if (drc == PFCP_EVERSION) {
		version_not_supported(u, &m->h, ip, port, send, arg);
		return 0;
	}
	if (drc != PFCP_OK) {
		u->st.bad_header++;
		return 0;
	}
	u->st.rx[m->h.type < PFCP_MSG_TYPE_MAX ? m->h.type : 0]++;
	if (pfcp_msg_is_request(m->h.type)) {
		/*
		 * A retransmission is the same message byte for byte; the same
		 * sequence number with other contents is a new request (a CP that
		 * restarted numbers its requests from the start again).
		 */
		u->req_digest = digest(buf, len < m->h.msg_len ? len : m->h.msg_len);
		cached = rc_get(u, ip, port, m->h.seq, m->h.type, now_ms, &clen);
		if (cached != NULL) {
			u->st.retrans_rx++;
			do_send(u, send, arg, cached, clen, ip, port);
			return m->h.msg_len;
		}
	}
	drc = pfcp_msg_decode(buf, len, m, &de);
	if (drc == PFCP_EIE)
		u->st.decode_error[de.cause < PFCP_CAUSE_MAX ? de.cause : 0]++;
	u->st.ies_skipped += m->n_skipped;
	u->st.ies_duplicate += m->n_dup;
	switch (m->h.type) {
	case PFCP_HEARTBEAT_REQ:
		on_heartbeat(u, m, ip, port, now_ms, send, arg);
		break;
	case PFCP_ASSOC_SETUP_REQ:
		on_assoc_setup(u, m, drc, &de, ip, port, now_ms, send, arg);
		break;
	case PFCP_ASSOC_UPDATE_REQ:
		on_assoc_update(u, m, drc, &de, ip, port, now_ms, send, arg);
		break;
	case PFCP_ASSOC_RELEASE_REQ:
		on_assoc_release(u, m, drc, &de, ip, port, now_ms, send, arg);
		break;
	case PFCP_SESS_EST_REQ:
		on_sess_establish(u, m, drc, &de, ip, port, now_ms, send, arg);
		break;
	case PFCP_SESS_MOD_REQ:
		on_sess_modify(u, m, drc, &de, ip, port, now_ms, send, arg);
		break;
	case PFCP_SESS_DEL_REQ:
		on_sess_delete(u, m, drc, &de, ip, port, now_ms, send, arg);
		break;
	case PFCP_PFD_MGMT_REQ:
		on_unsupported(u, m, PFCP_PFD_MGMT_RSP, ip, port, now_ms, send, arg);
		break;
	case PFCP_SESS_SET_DELETION_REQ:
		on_unsupported(u, m, PFCP_SESS_SET_DELETION_RSP, ip, port, now_ms, send, arg);
		break;
	case PFCP_HEARTBEAT_RSP:
	case PFCP_SESS_REPORT_RSP:
		on_response(u, m, drc, now_ms);
		break;
	case PFCP_NODE_REPORT_REQ:
	case PFCP_SESS_REPORT_REQ:
	case PFCP_PFD_MGMT_RSP:
	case PFCP_ASSOC_SETUP_RSP:
	case PFCP_ASSOC_UPDATE_RSP:
	case PFCP_ASSOC_RELEASE_RSP:
	case PFCP_VERSION_NOT_SUPPORTED_RSP:
	case PFCP_NODE_REPORT_RSP:
	case PFCP_SESS_SET_DELETION_RSP:
	case PFCP_SESS_EST_RSP:
	case PFCP_SESS_MOD_RSP:
	case PFCP_SESS_DEL_RSP:
		/* the CP's role never sends these, or we never asked */
		u->st.unexpected_response++;
		break;
	default:
		u->st.unknown_type++;
		break;
	}
	return m->h.msg_len;
}

#define UP_MAX_BUNDLE 16

int
pfcp_up_input(struct pfcp_up *u, const uint8_t *msg, size_t len, uint32_t from_ip,
	      uint16_t from_port, uint64_t now_ms, pfcp_send_fn send, void *arg)
{
	size_t off = 0;
	int n = 0;

	if (from_ip != u->conf.cp_ip) {
		u->st.not_allowed++;
		return 0;
	}
	if (len == 0) {
		u->st.bad_header++;
		return 0;
	}
	while (off < len && n < UP_MAX_BUNDLE) {
		bool fo = (msg[off] & PFCP_FLAG_FO) != 0;
		size_t l =
			input_one(u, msg + off, len - off, from_ip, from_port, now_ms, send, arg);

		if (l == 0)
			break;
		n++;
		off += l;
		if (!fo)
			break;
	}
	return n;
}

/* ---- timers --------------------------------------------------------------------------------- */

static void
tick_pending(struct pfcp_up *u, uint64_t now_ms, pfcp_send_fn send, void *arg)
{
	if (u->n_pend == 0)
		return;
	for (uint32_t i = 0; i < UP_MAX_PENDING; i++) {
		struct pend *p = &u->pend[i];

		if (p->kind == PK_FREE || now_ms - p->sent_ms < u->conf.t1_ms)
			continue;
		if (p->kind == PK_HB)
			u->st.hb_missed = p->tries;
		if (p->tries >= u->conf.n1) {
			u->st.req_timeouts++;
			pend_done(u, p, false, 0);
			continue;
		}
		p->tries++;
		p->sent_ms = now_ms;
		u->st.retrans_tx++;
		do_send(u, send, arg, p->buf, p->len, p->ip, u->conf.cp_port);
	}
}

/* Periodic, volume-threshold and LCP dead reports of a bounded slice of sessions. */
static void
tick_scan(struct pfcp_up *u, uint64_t now_ms, pfcp_send_fn send, void *arg)
{
	uint32_t n =
		u->conf.scan_per_tick < u->conf.capacity ? u->conf.scan_per_tick : u->conf.capacity;
	uint32_t budget = u->conf.reports_per_tick;
	bool can_send = u->assoc && u->st.cp_state == UP_CP_ASSOCIATED;

	for (uint32_t k = 0; k < n; k++) {
		struct up_sess *s;
		uint32_t mask = 0, trig[UP_SESS_MAX_URR] = {0, 0};
		uint64_t cur[4];
		bool have_cur = false;

		s = &u->sess[u->scan_cursor];
		u->scan_cursor = u->scan_cursor + 1 < u->conf.capacity ? u->scan_cursor + 1 : 0;
		if (s->up_seid == 0 || s->kind != UP_KIND_SUBSCRIBER)
			continue;
		if ((s->flags & SF_DEAD) && !(s->flags & SF_DEAD_INFLIGHT)) {
			if (can_send && budget > 0 &&
			    send_dead_report(u, s, now_ms, send, arg) == 0)
				budget--;
		}
		if (s->r.n_urr == 0 || (s->flags & SF_USAGE_INFLIGHT))
			continue;
		for (int i = 0; i < s->r.n_urr; i++) {
			const struct up_urr *q = &s->r.urr[i];
			struct up_meas *ms = &s->meas[i];

			if ((q->triggers & PFCP_RT_PERIO) && ms->next_ms && now_ms >= ms->next_ms) {
				mask |= 1u << i;
				trig[i] |= PFCP_URT_PERIO;
			}
			if ((q->triggers & PFCP_RT_VOLTH) && (q->has & UPU_VOLTH)) {
				uint64_t d[4];

				if (!have_cur) {
					usage_get(u, s->handle, cur);
					have_cur = true;
				}
				urr_delta(ms, cur, d);
				if (((q->vol_flags & PFCP_VOL_TOVOL) &&
				     d[C_UL_BYTES] + d[C_DL_BYTES] >= q->vol_thresh[0]) ||
				    ((q->vol_flags & PFCP_VOL_ULVOL) &&
				     d[C_UL_BYTES] >= q->vol_thresh[1]) ||
				    ((q->vol_flags & PFCP_VOL_DLVOL) &&
				     d[C_DL_BYTES] >= q->vol_thresh[2])) {
					mask |= 1u << i;
					trig[i] |= PFCP_URT_VOLTH;
				}
			}
		}
		if (mask == 0)
			continue;
		if (!can_send || budget == 0) {
			u->st.reports_deferred++;
			continue;
		}
		if (!have_cur)
			usage_get(u, s->handle, cur);
		if (send_usage_report(u, s, mask, trig, cur, now_ms, send, arg) != 0) {
			u->st.reports_deferred++;
			continue;
		}
		budget--;
		for (int i = 0; i < s->r.n_urr; i++) {
			struct up_meas *ms = &s->meas[i];
			uint64_t per = (uint64_t)s->r.urr[i].period * 1000;

			if (!(trig[i] & PFCP_URT_PERIO) || per == 0)
				continue;
			ms->next_ms += per;
			if (ms->next_ms <= now_ms)
				ms->next_ms = now_ms + per;
		}
	}
}

void
pfcp_up_tick(struct pfcp_up *u, uint64_t now_ms, pfcp_send_fn send, void *arg)
{
	tick_pending(u, now_ms, send, arg);
	/*
	 * One heartbeat to the CP at start, associated or not (29.244 6.2.2: a node
	 * answers heartbeats from any peer): its Recovery Time Stamp tells a CP that
	 * knew this instance that it restarted, so the CP re-associates and re-pushes
	 * the sessions at once instead of at its next heartbeat.
	 */
	if (!u->hb_started && !u->assoc && !u->hb_pending) {
		u->hb_started = true;
		send_heartbeat(u, now_ms, send, arg);
	}
	if (u->assoc && !u->hb_pending && now_ms >= u->hb_next_ms) {
		u->hb_next_ms = now_ms + u->conf.heartbeat_ms;
		send_heartbeat(u, now_ms, send, arg);
	}
	tick_scan(u, now_ms, send, arg);
}

int
pfcp_up_report_lcp_dead(struct pfcp_up *u, uint32_t handle, uint64_t now_ms, pfcp_send_fn send,
			void *arg)
{
	uint32_t slot = hidx_find(&u->by_handle, handle);
	struct up_sess *s;

	if (slot == H_EMPTY)
		return -ENOENT;
	s = &u->sess[slot];
	s->flags |= SF_DEAD;
	if (!(s->flags & SF_DEAD_INFLIGHT) && u->assoc && u->st.cp_state == UP_CP_ASSOCIATED)
		send_dead_report(u, s, now_ms, send, arg);
	return 0;
}

void
pfcp_up_stats_get(const struct pfcp_up *u, struct pfcp_up_stats *st)
{
	*st = u->st;
}

uint32_t
pfcp_up_sessions(const struct pfcp_up *u, uint32_t *cursor, struct up_session_info *out,
		 uint32_t max)
{
	uint32_t n = 0;

	while (*cursor < u->conf.capacity && n < max) {
		const struct up_sess *s = &u->sess[(*cursor)++];

		if (s->up_seid == 0)
			continue;
		out[n].up_seid = s->up_seid;
		out[n].cp_seid = s->cp_seid;
		out[n].handle = s->kind == UP_KIND_SUBSCRIBER ? s->handle : 0;
		out[n].kind = s->kind;
		out[n].lcp_dead = (s->flags & SF_DEAD) != 0;
		n++;
	}
	return n;
}

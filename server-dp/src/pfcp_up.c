/*
 * PFCP user-plane function (pfcp_up.h): create/free, input, answers,
 * read-outs. pfcp_up_int.h says which file does the rest.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pfcp_up_int.h"

/* ---- small helpers --------------------------------------------------------------------------- */

uint32_t
up_ntp_now(const struct pfcp_up *u, uint64_t now_ms)
{
	int64_t wall = (int64_t)now_ms + u->conf.wall_offset_ms;

	if (wall < 0)
		wall = 0;
	return (uint32_t)((uint64_t)wall / 1000 + PFCP_NTP_UNIX_OFFSET);
}

uint32_t
up_recovery_ntp(const struct pfcp_up *u)
{
	return (uint32_t)((uint64_t)u->conf.recovery_unix_s + PFCP_NTP_UNIX_OFFSET);
}

void
up_send(struct pfcp_up *u, pfcp_send_fn send, void *arg, const uint8_t *b, size_t len, uint32_t ip,
	uint16_t port)
{
	uint8_t type = b[1];

	u->st.tx[type < PFCP_MSG_TYPE_MAX ? type : 0]++;
	if (send(arg, b, len, ip, port) != 0)
		u->st.tx_errors++;
}

void
up_cp_state_set(struct pfcp_up *u, enum up_cp_state s)
{
	if (u->st.cp_state == s)
		return;
	u->st.cp_state = s;
	if (u->ops.cp_state != NULL)
		u->ops.cp_state(u->ctx, s);
}

void
up_usage_get(struct pfcp_up *u, uint32_t handle, uint64_t c[UP_NC])
{
	struct up_usage us;

	memset(&us, 0, sizeof(us));
	u->ops.usage(u->ctx, handle, &us);
	/* the data path counts totals and IPv6; IPv4 is the difference */
	c[UP_C_V6 + UP_C_UL_PKTS] = us.ul_pkts6 <= us.ul_pkts ? us.ul_pkts6 : us.ul_pkts;
	c[UP_C_V6 + UP_C_UL_BYTES] = us.ul_bytes6 <= us.ul_bytes ? us.ul_bytes6 : us.ul_bytes;
	c[UP_C_V6 + UP_C_DL_PKTS] = us.dl_pkts6 <= us.dl_pkts ? us.dl_pkts6 : us.dl_pkts;
	c[UP_C_V6 + UP_C_DL_BYTES] = us.dl_bytes6 <= us.dl_bytes ? us.dl_bytes6 : us.dl_bytes;
	c[UP_C_UL_PKTS] = us.ul_pkts - c[UP_C_V6 + UP_C_UL_PKTS];
	c[UP_C_UL_BYTES] = us.ul_bytes - c[UP_C_V6 + UP_C_UL_BYTES];
	c[UP_C_DL_PKTS] = us.dl_pkts - c[UP_C_V6 + UP_C_DL_PKTS];
	c[UP_C_DL_BYTES] = us.dl_bytes - c[UP_C_V6 + UP_C_DL_BYTES];
	c[UP_C_DROPS] = us.ul_drops;
	c[UP_C_DROPS + 1] = us.dl_drops;
	c[UP_C_DROP_BYTES] = us.ul_drop_bytes;
	c[UP_C_DROP_BYTES + 1] = us.dl_drop_bytes;
}

/* ---- create / free --------------------------------------------------------------------------- */

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
	u->seq_next = 1;
	u->pend = calloc(UP_MAX_PENDING, sizeof(*u->pend));
	if (u->pend == NULL ||
	    up_rcache_init(&u->rc, u->conf.rcache_ttl_ms
					   ? u->conf.rcache_ttl_ms
					   : 2u * u->conf.t1_ms * (uint32_t)u->conf.n1) != 0 ||
	    up_sess_init(u) != 0) {
		pfcp_up_free(u);
		return NULL;
	}
	u->st.cp_state = UP_CP_NONE;
	return u;
}

void
pfcp_up_free(struct pfcp_up *u)
{
	if (u == NULL)
		return;
	up_sess_free(u);
	free(u->pend);
	up_rcache_free(&u->rc);
	free(u);
}

/* ---- answers --------------------------------------------------------------------------------- */

void
up_tx_init(struct pfcp_up *u, uint8_t type, const struct pfcp_hdr *req, bool sess, uint64_t seid)
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

void
up_tx_node_id(struct pfcp_up *u)
{
	u->tx.present |= PFCP_M_NODE_ID;
	u->tx.node_id.type = PFCP_NODE_ID_IPV4;
	u->tx.node_id.ipv4 = u->conf.node_ipv4;
}

void
up_tx_cause(struct pfcp_up *u, const struct up_err *e)
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

void
up_respond(struct pfcp_up *u, const struct pfcp_hdr *req, const struct up_io *io)
{
	struct up_rc_key k = {.digest = u->req_digest,
			      .ip = io->ip,
			      .seq = req->seq,
			      .port = io->port,
			      .type = req->type};
	int n = pfcp_msg_encode(&u->tx, u->txbuf, sizeof(u->txbuf));

	if (n < 0) { /* cannot happen with the caps; answer the cause alone */
		u->tx.n_usage = 0;
		n = pfcp_msg_encode(&u->tx, u->txbuf, sizeof(u->txbuf));
		if (n < 0)
			return;
	}
	if ((u->tx.present & PFCP_M_CAUSE) && u->tx.cause != PFCP_CAUSE_REQUEST_ACCEPTED)
		u->st.rejected[u->tx.cause < PFCP_CAUSE_MAX ? u->tx.cause : 0]++;
	up_send(u, io->send, io->arg, u->txbuf, (size_t)n, io->ip, io->port);
	up_rcache_put(&u->rc, &k, u->txbuf, (size_t)n, io->now_ms);
}

/* ---- input ----------------------------------------------------------------------------------- */

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
	up_send(u, send, arg, b, sizeof(b), ip, port);
}

/* One message at buf; returns its length, or 0 when the rest of the datagram is unusable. */
static size_t
input_one(struct pfcp_up *u, const uint8_t *buf, size_t len, uint32_t ip, uint16_t port,
	  uint64_t now_ms, pfcp_send_fn send, void *arg)
{
	struct pfcp_msg *m = &u->rx;
	struct up_io io = {.ip = ip, .port = port, .now_ms = now_ms, .send = send, .arg = arg};
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
		struct up_rc_key k = {.ip = ip, .seq = m->h.seq, .port = port, .type = m->h.type};

		u->req_digest = up_rcache_digest(buf, len < m->h.msg_len ? len : m->h.msg_len);
		k.digest = u->req_digest;
		cached = up_rcache_get(&u->rc, &k, now_ms, &clen);
		if (cached != NULL) {
			u->st.retrans_rx++;
			up_send(u, send, arg, cached, clen, ip, port);
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
		up_on_heartbeat(u, m, &io);
		break;
	case PFCP_ASSOC_SETUP_REQ:
		up_on_assoc_setup(u, m, drc, &de, &io);
		break;
	case PFCP_ASSOC_UPDATE_REQ:
		up_on_assoc_update(u, m, drc, &de, &io);
		break;
	case PFCP_ASSOC_RELEASE_REQ:
		up_on_assoc_release(u, m, drc, &de, &io);
		break;
	case PFCP_SESS_EST_REQ:
		up_on_sess_establish(u, m, drc, &de, &io);
		break;
	case PFCP_SESS_MOD_REQ:
		up_on_sess_modify(u, m, drc, &de, &io);
		break;
	case PFCP_SESS_DEL_REQ:
		up_on_sess_delete(u, m, drc, &de, &io);
		break;
	case PFCP_PFD_MGMT_REQ:
		up_on_unsupported(u, m, PFCP_PFD_MGMT_RSP, &io);
		break;
	case PFCP_SESS_SET_DELETION_REQ:
		up_on_unsupported(u, m, PFCP_SESS_SET_DELETION_RSP, &io);
		break;
	case PFCP_HEARTBEAT_RSP:
	case PFCP_SESS_REPORT_RSP:
		up_on_response(u, m, drc, now_ms);
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

void
pfcp_up_stats_get(const struct pfcp_up *u, struct pfcp_up_stats *st)
{
	*st = u->st;
}

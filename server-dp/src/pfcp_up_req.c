/*
 * PFCP user-plane function: our requests (heartbeats, session reports) and
 * the timers that send them (pfcp_up_int.h).
 */

#include <errno.h>
#include <string.h>

#include "pfcp_up_int.h"

/* ---- sending and answers --------------------------------------------------------------------- */

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

void
up_pend_free(struct pfcp_up *u, struct pend *p)
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
	up_send(u, send, arg, p->buf, (size_t)n, ip, u->conf.cp_port);
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

/* A pending entry, with u->tx started as a Session Report Request of s; NULL when full. */
static struct pend *
report_start(struct pfcp_up *u, const struct up_sess *s, uint8_t report_type, uint32_t *seq)
{
	struct pend *p = pend_alloc(u, seq);

	if (p == NULL)
		return NULL;
	up_tx_init(u, PFCP_SESS_REPORT_REQ, NULL, true, s->cp_seid);
	u->tx.present |= PFCP_M_REPORT_TYPE;
	u->tx.report_type = report_type;
	p->n_ur = 0;
	return p;
}

/* Session Report Request with usage reports for the URRs in mask. */
static int
send_usage_report(struct pfcp_up *u, struct up_sess *s, uint32_t mask,
		  const uint32_t trig[UP_SESS_MAX_URR], const uint64_t cur[UP_NC], uint64_t now_ms,
		  pfcp_send_fn send, void *arg)
{
	uint32_t seq;
	struct pend *p = report_start(u, s, PFCP_REPORT_USAR, &seq);

	if (p == NULL)
		return -ENOBUFS;
	for (int i = 0; i < s->r.n_urr; i++) {
		if (!(mask & (1u << i)))
			continue;
		p->ur[p->n_ur].urr_id = s->r.urr[i].id;
		p->ur[p->n_ur].start_ntp = s->meas[i].start_ntp;
		up_urr_report(&s->meas[i], &s->r.urr[i], cur, trig[i], PFCP_IE_USAGE_REPORT_SRR,
			      up_ntp_now(u, now_ms), &u->tx.usage[u->tx.n_usage++],
			      p->ur[p->n_ur].d);
		p->n_ur++;
	}
	if (pend_send(u, p, PK_USAGE, seq, sess_cp_ip(u, s), s->up_seid, now_ms, send, arg) != 0) {
		/* not sent: the usage goes into the next report */
		for (int k = 0; k < p->n_ur; k++) {
			int i = up_rule_find(&s->r, UP_RULE_URR, p->ur[k].urr_id);

			for (int c = 0; c < UP_ND; c++)
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
	uint32_t seq;
	struct pend *p = report_start(u, s, PFCP_REPORT_UPIR, &seq);

	if (p == NULL)
		return -ENOBUFS;
	if (s->a.arp_ping.on) {
		/* IPoE: the ARP ping IE as the session has it (arpping.h) */
		u->tx.present |= PFCP_M_BNGPOD_ARP_PING;
		u->tx.arp_ping = s->a.arp_ping;
	} else {
		u->tx.present |= PFCP_M_BBF_LCP;
		memset(&u->tx.lcp, 0, sizeof(u->tx.lcp));
		u->tx.lcp.present = PFCP_LCP_TIMERS | PFCP_LCP_MAGIC;
		u->tx.lcp.interval = s->a.lcp_interval;
		u->tx.lcp.count = s->a.lcp_count;
		u->tx.lcp.magic_tx = s->a.magic_tx;
		u->tx.lcp.magic_rx = s->a.magic_rx;
	}
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
	up_tx_init(u, PFCP_HEARTBEAT_REQ, NULL, false, 0);
	u->tx.present |= PFCP_M_RECOVERY_TS;
	u->tx.recovery_ts = up_recovery_ntp(u);
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
		s = up_sess_by_seid(u, p->up_seid, &slot);
	switch (p->kind) {
	case PK_HB:
		u->hb_pending = false;
		if (ok) {
			u->st.hb_missed = 0;
			if (u->assoc)
				up_cp_state_set(u, UP_CP_ASSOCIATED);
		} else {
			u->st.hb_failures++;
			if (u->assoc)
				up_cp_state_set(u, UP_CP_UNREACHABLE);
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
			int i = up_rule_find(&s->r, UP_RULE_URR, p->ur[k].urr_id);

			if (i < 0)
				continue;
			for (int c = 0; c < UP_ND; c++)
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
	up_pend_free(u, p);
}

void
up_sess_drop_pending(struct pfcp_up *u, uint64_t up_seid)
{
	if (u->n_pend == 0)
		return;
	for (uint32_t i = 0; i < UP_MAX_PENDING; i++) {
		struct pend *p = &u->pend[i];

		if ((p->kind == PK_USAGE || p->kind == PK_DEAD) && p->up_seid == up_seid)
			up_pend_free(u, p);
	}
}

void
up_on_response(struct pfcp_up *u, const struct pfcp_msg *m, int drc, uint64_t now_ms)
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

/* ---- timers ---------------------------------------------------------------------------------- */

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
		up_send(u, send, arg, p->buf, p->len, p->ip, u->conf.cp_port);
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
		uint64_t cur[UP_NC];
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
				uint64_t d[UP_ND];

				if (!have_cur) {
					up_usage_get(u, s->handle, cur);
					have_cur = true;
				}
				up_urr_delta(ms, cur, d);
				if (up_urr_volume_due(q, d)) {
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
			up_usage_get(u, s->handle, cur);
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
	uint32_t slot = up_index_find(&u->by_handle, handle);
	struct up_sess *s;

	if (slot == UP_NONE)
		return -ENOENT;
	s = &u->sess[slot];
	s->flags |= SF_DEAD;
	if (!(s->flags & SF_DEAD_INFLIGHT) && u->assoc && u->st.cp_state == UP_CP_ASSOCIATED)
		send_dead_report(u, s, now_ms, send, arg);
	return 0;
}

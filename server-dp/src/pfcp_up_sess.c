/*
 * PFCP user-plane function: sessions (pfcp_up_int.h).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pfcp_up_int.h"

/* ---- slots and indexes ----------------------------------------------------------------------- */

int
up_sess_init(struct pfcp_up *u)
{
	uint32_t cap = u->conf.capacity;

	u->default_slot = UP_NONE;
	u->sess = calloc(cap, sizeof(*u->sess));
	if (u->sess == NULL || up_index_init(&u->by_cp_seid, cap) != 0 ||
	    up_index_init(&u->by_handle, cap) != 0)
		return -ENOMEM;
	for (uint32_t i = 0; i < cap; i++) {
		u->sess[i].next_free = i + 1 < cap ? i + 1 : UP_NONE;
		/* start the generations apart across restarts of the process */
		u->sess[i].gen = (uint16_t)(u->conf.recovery_unix_s * 7919u);
	}
	u->free_head = 0;
	u->free_tail = cap - 1;
	u->n_free = cap;
	return 0;
}

void
up_sess_free(struct pfcp_up *u)
{
	up_index_free(&u->by_cp_seid);
	up_index_free(&u->by_handle);
	free(u->sess);
}

static uint32_t
slot_alloc(struct pfcp_up *u)
{
	uint32_t i = u->free_head;

	if (i == UP_NONE)
		return UP_NONE;
	u->free_head = u->sess[i].next_free;
	if (u->free_head == UP_NONE)
		u->free_tail = UP_NONE;
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
	s->next_free = UP_NONE;
	if (u->free_tail == UP_NONE)
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

struct up_sess *
up_sess_by_seid(struct pfcp_up *u, uint64_t seid, uint32_t *slot)
{
	uint64_t lo = seid & 0xffffffffu;

	if (lo == 0 || lo > u->conf.capacity)
		return NULL;
	if (u->sess[lo - 1].up_seid != seid)
		return NULL;
	*slot = (uint32_t)(lo - 1);
	return &u->sess[lo - 1];
}

/* ---- removal --------------------------------------------------------------------------------- */

void
up_sess_forget(struct pfcp_up *u, uint32_t i)
{
	struct up_sess *s = &u->sess[i];

	if (s->flags & (SF_USAGE_INFLIGHT | SF_DEAD_INFLIGHT))
		up_sess_drop_pending(u, s->up_seid);
	up_index_del(&u->by_cp_seid, s->cp_seid, i);
	if (s->kind == UP_KIND_SUBSCRIBER) {
		up_index_del(&u->by_handle, s->handle, i);
		u->st.sub_sessions--;
	} else if (u->default_slot == i) {
		u->default_slot = UP_NONE;
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

void
up_sess_delete_all(struct pfcp_up *u)
{
	bool had_default = u->default_slot != UP_NONE;

	for (uint32_t i = 0; i < u->conf.capacity; i++) {
		struct up_sess *s = &u->sess[i];

		if (s->up_seid == 0)
			continue;
		if (s->kind == UP_KIND_SUBSCRIBER)
			u->ops.remove(u->ctx, s->handle);
		up_sess_forget(u, i);
	}
	if (had_default)
		redirect_fallback(u);
}

void
up_sess_release_sweep(struct pfcp_up *u)
{
	if (u->ops.served == NULL)
		return;
	for (uint32_t i = 0; i < u->conf.capacity; i++) {
		struct up_sess *s = &u->sess[i];

		if (s->up_seid == 0 || s->kind != UP_KIND_SUBSCRIBER ||
		    u->ops.served(u->ctx, s->handle))
			continue;
		u->ops.remove(u->ctx, s->handle);
		up_sess_forget(u, i);
		u->st.lg_sessions_deleted++;
	}
}

/* ---- session requests ------------------------------------------------------------------------ */

static void
sess_establish(struct pfcp_up *u, const struct pfcp_msg *m, uint64_t now_ms, struct up_err *e,
	       uint64_t *up_seid)
{
	struct up_rules *r = &u->tmp_rules;
	struct up_attr a;
	struct up_derived d;
	struct up_sess *s;
	uint32_t slot, old, handle = 0;
	uint64_t zero[UP_NC] = {0};
	int rc;

	if (!(m->present & PFCP_M_NODE_ID)) {
		up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_NODE_ID);
		return;
	}
	if (!(m->present & PFCP_M_F_SEID)) {
		up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_F_SEID);
		return;
	}
	if (m->n_create_pdr == 0) {
		up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_CREATE_PDR);
		return;
	}
	if (m->n_create_far == 0) {
		up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_CREATE_FAR);
		return;
	}
	memset(&a, 0, sizeof(a));
	memset(r, 0, sizeof(*r));
	if (up_rules_create(r, &u->names, m, e) != 0 || up_attr_apply(&a, m, e) != 0 ||
	    up_validate(&u->names, r, &a, &d, e) != 0)
		return;

	/* the same CP SEID again: idempotent if it asks for the same session */
	old = up_index_find(&u->by_cp_seid, m->fseid.seid);
	if (old != UP_NONE) {
		s = &u->sess[old];
		if (memcmp(&s->r, r, sizeof(*r)) == 0 && memcmp(&s->a, &a, sizeof(a)) == 0) {
			*up_seid = s->up_seid;
			up_set_err(e, PFCP_CAUSE_REQUEST_ACCEPTED, 0);
		} else {
			up_err_ie(e, PFCP_CAUSE_REQUEST_REJECTED, PFCP_IE_F_SEID);
		}
		return;
	}
	if (d.kind == UP_KIND_DEFAULT && u->default_slot != UP_NONE) {
		up_err_ie(e, PFCP_CAUSE_REQUEST_REJECTED, 0);
		return;
	}
	if (u->n_free == 0) {
		up_err_ie(e, PFCP_CAUSE_NO_RESOURCES_AVAILABLE, 0);
		return;
	}
	if (d.kind == UP_KIND_SUBSCRIBER) {
		rc = u->ops.install(u->ctx, &d.sub, &handle);
		if (rc != 0) {
			u->st.install_failed++;
			up_ops_error(r, rc, e);
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
		up_meas_init(&s->meas[i], &r->urr[i], zero, up_ntp_now(u, now_ms), now_ms);
		s->meas[i].dirs = d.dirs[i];
	}
	up_index_put(&u->by_cp_seid, s->cp_seid, slot);
	if (d.kind == UP_KIND_SUBSCRIBER) {
		up_index_put(&u->by_handle, handle, slot);
		u->st.sub_sessions++;
	} else {
		u->default_slot = slot;
		u->st.default_session = true;
	}
	u->st.sessions++;
	u->st.sessions_established++;
	*up_seid = s->up_seid;
	up_set_err(e, PFCP_CAUSE_REQUEST_ACCEPTED, 0);
}

void
up_on_sess_establish(struct pfcp_up *u, const struct pfcp_msg *m, int drc,
		     const struct pfcp_derr *de, const struct up_io *io)
{
	struct up_err e = {.cause = PFCP_CAUSE_REQUEST_ACCEPTED};
	uint64_t up_seid = 0;
	uint64_t cp_seid = (m->present & PFCP_M_F_SEID) ? m->fseid.seid : 0;

	if (!u->assoc)
		up_set_err(&e, PFCP_CAUSE_NO_ESTABLISHED_ASSOCIATION, 0);
	else if (drc != PFCP_OK)
		up_set_err(&e, de->cause, de->offending_ie);
	else
		sess_establish(u, m, io->now_ms, &e, &up_seid);
	up_tx_init(u, PFCP_SESS_EST_RSP, &m->h, true, cp_seid);
	up_tx_node_id(u);
	up_tx_cause(u, &e);
	if (e.cause == PFCP_CAUSE_REQUEST_ACCEPTED) {
		u->tx.present |= PFCP_M_F_SEID;
		u->tx.fseid.flags = PFCP_FSEID_V4;
		u->tx.fseid.seid = up_seid;
		u->tx.fseid.ipv4 = u->conf.node_ipv4;
	}
	up_respond(u, &m->h, io);
}

/*
 * A URR created by a modification with the period of a URR the session
 * already has takes that URR's schedule: the session's periodic reports then
 * leave in one Session Report Request (its first report covers less than a
 * period). The CP's Interim carries every URR of the period; with its own
 * phase, e.g. the IPv6 URR of a family that joined seconds later, the
 * Interim would miss that URR's share until the next one.
 */
static void
align_period(struct up_meas *ms, const struct up_urr *q, const struct up_sess *s)
{
	if (!(q->triggers & PFCP_RT_PERIO) || q->period == 0)
		return;
	for (int i = 0; i < s->r.n_urr; i++)
		if ((s->r.urr[i].triggers & PFCP_RT_PERIO) && s->r.urr[i].period == q->period &&
		    s->meas[i].next_ms != 0) {
			ms->next_ms = s->meas[i].next_ms;
			return;
		}
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
	uint64_t cur[UP_NC] = {0};
	uint32_t handle = s->handle;
	bool query_all = (m->present & PFCP_M_SMREQ_FLAGS) && (m->smreq_flags & PFCP_SMREQ_QAURR);
	uint32_t now_ntp = up_ntp_now(u, now_ms);

	*r = s->r;
	if (up_rules_remove(r, m, e) != 0 || up_rules_update(r, &u->names, m, e) != 0 ||
	    up_rules_create(r, &u->names, m, e) != 0)
		return;
	for (int i = 0; i < m->n_query_urr; i++)
		if (up_rule_find(r, UP_RULE_URR, m->query_urr[i]) < 0) {
			up_err_rule(e, PFCP_RULE_URR, m->query_urr[i]);
			return;
		}
	if (s->kind == UP_KIND_SUBSCRIBER && m->n_remove_pdr > 0) {
		bool upstream = false;

		/* the session's last upstream PDR removed: the CP deletes the session instead */
		for (int i = 0; i < r->n_pdr; i++)
			upstream |= r->pdr[i].src_if == PFCP_IF_ACCESS;
		if (!upstream) {
			up_err_ie(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_REMOVE_PDR);
			return;
		}
	}
	if (up_attr_apply(&a, m, e) != 0 || up_validate(&u->names, r, &a, &nd, e) != 0)
		return;
	if (nd.kind != s->kind) {
		up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, 0);
		return;
	}
	if ((m->present & PFCP_M_F_SEID) && m->fseid.seid != s->cp_seid &&
	    up_index_find(&u->by_cp_seid, m->fseid.seid) != UP_NONE) {
		up_err_ie(e, PFCP_CAUSE_REQUEST_REJECTED, PFCP_IE_F_SEID);
		return;
	}

	if (s->kind == UP_KIND_SUBSCRIBER) {
		struct up_err ign;
		uint32_t changed;

		/* the committed view (it validated when it was committed) */
		up_validate(&u->names, &s->r, &s->a, &od, &ign);
		if (od.sub.kind != nd.sub.kind) { /* PPPoE <-> IPoE: a new session */
			up_err_ie(e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED,
				  PFCP_IE_BBF_OUTER_HEADER_REMOVAL);
			return;
		}
		changed = up_sub_changes(&od.sub, &nd.sub);
		if (s->r.n_urr || r->n_urr)
			up_usage_get(u, s->handle, cur);
		if (changed) {
			int rc = u->ops.modify(u->ctx, &handle, &nd.sub, changed);

			if (rc != 0) {
				u->st.install_failed++;
				up_ops_error(r, rc, e);
				return;
			}
		}
	} else {
		struct up_err ign;

		up_validate(&u->names, &s->r, &s->a, &od, &ign);
		if (memcmp(&od.redir, &nd.redir, sizeof(nd.redir)) != 0)
			u->ops.redirect(u->ctx, &nd.redir);
	}

	/* commit: usage reports of removed and queried URRs, new measurement state */
	up_tx_init(u, PFCP_SESS_MOD_RSP, &m->h, true, s->cp_seid);
	for (int i = 0; i < s->r.n_urr; i++) {
		bool gone = true;

		for (int k = 0; k < r->n_urr; k++)
			if (r->urr[k].id == s->r.urr[i].id)
				gone = false;
		if (gone && u->tx.n_usage < PFCP_MAX_RULES)
			up_urr_report(&s->meas[i], &s->r.urr[i], cur, PFCP_URT_TERMR,
				      PFCP_IE_USAGE_REPORT_SMR, now_ntp,
				      &u->tx.usage[u->tx.n_usage++], NULL);
	}
	for (int k = 0; k < r->n_urr; k++) {
		int i = up_rule_find(&s->r, UP_RULE_URR, r->urr[k].id);

		if (i >= 0) {
			meas[k] = s->meas[i];
			if ((r->urr[k].triggers & PFCP_RT_PERIO) && r->urr[k].period &&
			    (!(s->r.urr[i].triggers & PFCP_RT_PERIO) ||
			     s->r.urr[i].period != r->urr[k].period))
				meas[k].next_ms = now_ms + (uint64_t)r->urr[k].period * 1000;
		} else {
			up_meas_init(&meas[k], &r->urr[k], cur, now_ntp, now_ms);
			align_period(&meas[k], &r->urr[k], s);
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
			up_urr_report(&s->meas[k], &s->r.urr[k], cur, PFCP_URT_IMMER,
				      PFCP_IE_USAGE_REPORT_SMR, now_ntp,
				      &u->tx.usage[u->tx.n_usage++], NULL);
	}
	if (handle != s->handle) {
		/* the data path re-added the session: its counters start again */
		up_index_del(&u->by_handle, s->handle, slot);
		s->handle = handle;
		up_index_put(&u->by_handle, handle, slot);
		for (int k = 0; k < r->n_urr; k++) {
			uint64_t d[UP_ND];

			up_urr_delta(&s->meas[k], cur, d);
			memcpy(s->meas[k].carry, d, sizeof(d));
			memset(s->meas[k].base, 0, sizeof(s->meas[k].base));
		}
	}
	if (m->present & PFCP_M_F_SEID && m->fseid.seid != s->cp_seid) {
		up_index_del(&u->by_cp_seid, s->cp_seid, slot);
		s->cp_seid = m->fseid.seid;
		up_index_put(&u->by_cp_seid, s->cp_seid, slot);
		u->tx.h.seid = s->cp_seid; /* the answer goes to the CP's new SEID */
	}
	u->st.sessions_modified++;
	up_set_err(e, PFCP_CAUSE_REQUEST_ACCEPTED, 0);
}

/*
 * The session a modification or deletion request names, after the checks
 * both pass first (association, session, decoding); *e says when one fails.
 * NULL when there is no such session.
 */
static struct up_sess *
sess_of_request(struct pfcp_up *u, const struct pfcp_msg *m, int drc, const struct pfcp_derr *de,
		struct up_err *e, uint32_t *slot)
{
	struct up_sess *s = NULL;

	if (!u->assoc)
		up_set_err(e, PFCP_CAUSE_NO_ESTABLISHED_ASSOCIATION, 0);
	else if (!(m->h.flags & PFCP_FLAG_S) || (s = up_sess_by_seid(u, m->h.seid, slot)) == NULL)
		up_set_err(e, PFCP_CAUSE_SESSION_CONTEXT_NOT_FOUND, 0);
	else if (drc != PFCP_OK)
		up_set_err(e, de->cause, de->offending_ie);
	return s;
}

void
up_on_sess_modify(struct pfcp_up *u, const struct pfcp_msg *m, int drc, const struct pfcp_derr *de,
		  const struct up_io *io)
{
	struct up_err e = {.cause = PFCP_CAUSE_REQUEST_ACCEPTED};
	uint32_t slot = 0;
	struct up_sess *s = sess_of_request(u, m, drc, de, &e, &slot);

	if (e.cause == PFCP_CAUSE_REQUEST_ACCEPTED) {
		sess_modify(u, slot, m, io->now_ms, &e);
		if (e.cause == PFCP_CAUSE_REQUEST_ACCEPTED) {
			/* sess_modify built the response (with its usage reports) */
			up_tx_cause(u, &e);
			up_respond(u, &m->h, io);
			return;
		}
	}
	up_tx_init(u, PFCP_SESS_MOD_RSP, &m->h, true, s ? s->cp_seid : 0);
	up_tx_cause(u, &e);
	up_respond(u, &m->h, io);
}

void
up_on_sess_delete(struct pfcp_up *u, const struct pfcp_msg *m, int drc, const struct pfcp_derr *de,
		  const struct up_io *io)
{
	struct up_err e = {.cause = PFCP_CAUSE_REQUEST_ACCEPTED};
	uint32_t slot = 0;
	struct up_sess *s = sess_of_request(u, m, drc, de, &e, &slot);

	up_tx_init(u, PFCP_SESS_DEL_RSP, &m->h, true, s ? s->cp_seid : 0);
	if (e.cause == PFCP_CAUSE_REQUEST_ACCEPTED) {
		if (s->kind == UP_KIND_SUBSCRIBER) {
			uint64_t cur[UP_NC] = {0};

			if (s->r.n_urr)
				up_usage_get(u, s->handle, cur);
			for (int i = 0; i < s->r.n_urr; i++)
				up_urr_report(&s->meas[i], &s->r.urr[i], cur, PFCP_URT_TERMR,
					      PFCP_IE_USAGE_REPORT_SDR, up_ntp_now(u, io->now_ms),
					      &u->tx.usage[u->tx.n_usage++], NULL);
			u->ops.remove(u->ctx, s->handle);
			up_sess_forget(u, slot);
		} else {
			up_sess_forget(u, slot);
			redirect_fallback(u);
		}
	}
	up_tx_cause(u, &e);
	up_respond(u, &m->h, io);
}

/* ---- listing --------------------------------------------------------------------------------- */

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

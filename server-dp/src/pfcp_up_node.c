/*
 * PFCP user-plane function: association and the other node requests
 * (pfcp_up_int.h).
 */

#include <string.h>

#include "pfcp_up_int.h"

static void
tx_features(struct pfcp_up *u)
{
	u->tx.present |= PFCP_M_RECOVERY_TS | PFCP_M_UP_FEATURES | PFCP_M_BBF_UP_FEATURES;
	u->tx.recovery_ts = up_recovery_ntp(u);
	u->tx.up_features_len = 3;
	memcpy(u->tx.up_features, u->conf.up_features, 3);
	u->tx.bbf_up_features_len = 4;
	memset(u->tx.bbf_up_features, 0, 4);
	u->tx.bbf_up_features[0] = u->conf.bbf_features;
}

/* The checks every association request passes first: false with *e set when one fails. */
static bool
node_request_ok(const struct pfcp_msg *m, int drc, const struct pfcp_derr *de, struct up_err *e)
{
	if (drc != PFCP_OK)
		up_set_err(e, de->cause, de->offending_ie);
	else if (!(m->present & PFCP_M_NODE_ID))
		up_set_err(e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_NODE_ID);
	else
		return true;
	return false;
}

/* Answer an association request: Node ID, Cause, and for a setup our features. */
static void
node_answer(struct pfcp_up *u, const struct pfcp_msg *m, uint8_t rsp_type, const struct up_err *e,
	    const struct up_io *io)
{
	up_tx_init(u, rsp_type, &m->h, false, 0);
	up_tx_node_id(u);
	up_tx_cause(u, e);
	if (rsp_type == PFCP_ASSOC_SETUP_RSP)
		tx_features(u);
	up_respond(u, &m->h, io);
}

void
up_on_assoc_setup(struct pfcp_up *u, const struct pfcp_msg *m, int drc, const struct pfcp_derr *de,
		  const struct up_io *io)
{
	struct up_err e = {.cause = PFCP_CAUSE_REQUEST_ACCEPTED};

	if (node_request_ok(m, drc, de, &e) && !(m->present & PFCP_M_RECOVERY_TS))
		up_set_err(&e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_RECOVERY_TIME_STAMP);
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
		u->hb_next_ms = io->now_ms + u->conf.heartbeat_ms;
		u->st.assoc_setups++;
		up_cp_state_set(u, UP_CP_ASSOCIATED);
	}
	node_answer(u, m, PFCP_ASSOC_SETUP_RSP, &e, io);
}

void
up_on_assoc_update(struct pfcp_up *u, const struct pfcp_msg *m, int drc, const struct pfcp_derr *de,
		   const struct up_io *io)
{
	struct up_err e = {.cause = PFCP_CAUSE_REQUEST_ACCEPTED};

	if (!node_request_ok(m, drc, de, &e)) {
		/* e says why */
	} else if (!u->assoc) {
		up_set_err(&e, PFCP_CAUSE_NO_ESTABLISHED_ASSOCIATION, 0);
	} else if (!(m->present & PFCP_M_BNGPOD_LINE_GROUP)) {
		up_set_err(&e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_BNGPOD_LINE_GROUP);
	} else if (m->n_line_group != 1) {
		up_set_err(&e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_BNGPOD_LINE_GROUP);
	} else if (u->ops.line_group == NULL || u->ops.line_group(u->ctx, &m->line_group) != 0) {
		up_set_err(&e, PFCP_CAUSE_REQUEST_REJECTED, PFCP_IE_BNGPOD_LINE_GROUP);
	}
	if (e.cause == PFCP_CAUSE_REQUEST_ACCEPTED) {
		if (m->line_group.action == PFCP_LG_ADOPT) {
			u->st.lg_adopts++;
		} else {
			u->st.lg_releases++;
			up_sess_release_sweep(u);
		}
	} else {
		u->st.lg_refused++;
	}
	node_answer(u, m, PFCP_ASSOC_UPDATE_RSP, &e, io);
}

void
up_on_assoc_release(struct pfcp_up *u, const struct pfcp_msg *m, int drc,
		    const struct pfcp_derr *de, const struct up_io *io)
{
	struct up_err e = {.cause = PFCP_CAUSE_REQUEST_ACCEPTED};

	if (node_request_ok(m, drc, de, &e) && !u->assoc)
		up_set_err(&e, PFCP_CAUSE_NO_ESTABLISHED_ASSOCIATION, 0);
	if (e.cause == PFCP_CAUSE_REQUEST_ACCEPTED) {
		up_sess_delete_all(u);
		u->assoc = false;
		if (u->hb_pending) {
			u->hb_pending = false;
			up_pend_free(u, &u->pend[u->hb_seq % UP_MAX_PENDING]);
		}
		u->st.hb_missed = 0;
		u->st.assoc_releases++;
		up_cp_state_set(u, UP_CP_NONE);
	}
	node_answer(u, m, PFCP_ASSOC_RELEASE_RSP, &e, io);
}

void
up_on_heartbeat(struct pfcp_up *u, const struct pfcp_msg *m, const struct up_io *io)
{
	up_tx_init(u, PFCP_HEARTBEAT_RSP, &m->h, false, 0);
	u->tx.present |= PFCP_M_RECOVERY_TS;
	u->tx.recovery_ts = up_recovery_ntp(u);
	up_respond(u, &m->h, io);
}

void
up_on_unsupported(struct pfcp_up *u, const struct pfcp_msg *m, uint8_t rsp_type,
		  const struct up_io *io)
{
	struct up_err e;

	up_set_err(&e, PFCP_CAUSE_SERVICE_NOT_SUPPORTED, 0);
	up_tx_init(u, rsp_type, &m->h, false, 0);
	if (rsp_type == PFCP_SESS_SET_DELETION_RSP)
		up_tx_node_id(u);
	up_tx_cause(u, &e);
	up_respond(u, &m->h, io);
}

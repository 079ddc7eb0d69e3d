/*
 * Inside the PFCP user-plane function (pfcp_up.h is its contract with the
 * caller): its state, and the calls between the files that handle it.
 *
 *   pfcp_up.c         create/free, input (datagram -> messages -> handlers),
 *                     the answer helpers, the read-outs (stats, sessions);
 *   pfcp_up_node.c    association and the other node requests;
 *   pfcp_up_sess.c    sessions: slots, indexes, establishment, modification,
 *                     deletion, removal, the listing (pfcp_up_sessions());
 *   pfcp_up_req.c     our requests (heartbeats, session reports): pending
 *                     table, answers, retransmission, and the timers that
 *                     send them (pfcp_up_tick(), pfcp_up_report_lcp_dead()).
 * What a session is comes from pfcp_rules.h (its rules), pfcp_validate.h
 * (what they install), pfcp_usage.h (its URRs' measurement); answers to
 * retransmitted requests from pfcp_rcache.h.
 *
 * One thread calls everything (pfcp_up.h): nothing here locks.
 */

#ifndef BNG_PFCP_UP_INT_H
#define BNG_PFCP_UP_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "pfcp.h"
#include "pfcp_index.h"
#include "pfcp_rcache.h"
#include "pfcp_rules.h"
#include "pfcp_up.h"
#include "pfcp_usage.h"
#include "pfcp_validate.h"

/* ---- state ----------------------------------------------------------------------------------- */

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

/* A request of ours awaiting its answer. */
#define PK_FREE 0
#define PK_HB 1
#define PK_USAGE 2
#define PK_DEAD 3
#define UP_PEND_MAX 640

struct pend {
	uint8_t kind; /* PK_* */
	uint8_t tries;
	uint8_t n_ur;
	uint16_t len;
	uint32_t seq;
	uint32_t ip;
	uint64_t sent_ms;
	uint64_t up_seid;
	struct { /* what a usage report carried, put back when it is lost */
		uint32_t urr_id;
		uint32_t start_ntp;
		uint64_t d[UP_ND];
	} ur[UP_SESS_MAX_URR];
	uint8_t buf[UP_PEND_MAX];
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
	struct up_index by_cp_seid;
	struct up_index by_handle;
	uint32_t default_slot; /* UP_NONE if none */
	uint32_t scan_cursor;
	struct up_names names;

	/* our requests */
	uint32_t seq_next;
	struct pend *pend;
	uint32_t n_pend;

	/* answers */
	struct up_rcache rc;
	uint64_t req_digest; /* of the request being answered */

	/* work buffers */
	struct pfcp_msg rx;
	struct pfcp_msg tx;
	uint8_t txbuf[UP_MAX_MSG];
	struct up_rules tmp_rules;
};

/* The arguments every handler of a request gets: where it came from, when, how to answer. */
struct up_io {
	uint32_t ip;
	uint16_t port;
	uint64_t now_ms;
	pfcp_send_fn send;
	void *arg;
};

/* ---- pfcp_up.c: shared helpers --------------------------------------------------------------- */

/* Wall clock at now_ms and our Recovery Time Stamp, as NTP seconds. */
uint32_t up_ntp_now(const struct pfcp_up *u, uint64_t now_ms);
uint32_t up_recovery_ntp(const struct pfcp_up *u);

/* Send one datagram, counting it (tx by type, tx_errors). */
void up_send(struct pfcp_up *u, pfcp_send_fn send, void *arg, const uint8_t *b, size_t len,
	     uint32_t ip, uint16_t port);

/* Change the association state, telling ops->cp_state. */
void up_cp_state_set(struct pfcp_up *u, enum up_cp_state s);

/* The data path's cumulative counters of a session, indexed by UP_C_*. */
void up_usage_get(struct pfcp_up *u, uint32_t handle, uint64_t c[UP_NC]);

/*
 * Answers: up_tx_init() starts u->tx (type, the request's sequence number,
 * a SEID when sess), the others add Node ID and Cause (with Offending IE and
 * Failed Rule ID); up_respond() encodes u->tx, sends it to where the request
 * came from and caches it (pfcp_rcache.h).
 */
void up_tx_init(struct pfcp_up *u, uint8_t type, const struct pfcp_hdr *req, bool sess,
		uint64_t seid);
void up_tx_node_id(struct pfcp_up *u);
void up_tx_cause(struct pfcp_up *u, const struct up_err *e);
void up_respond(struct pfcp_up *u, const struct pfcp_hdr *req, const struct up_io *io);

/* ---- pfcp_up_node.c: node requests ----------------------------------------------------------- */

/*
 * Every handler of a request (up_on_*() here and in pfcp_up_sess.c) gets
 * the decoder's result (drc, de: a request that failed to decode is
 * answered with de's cause) and answers exactly once with up_respond().
 */

void up_on_assoc_setup(struct pfcp_up *u, const struct pfcp_msg *m, int drc,
		       const struct pfcp_derr *de, const struct up_io *io);
void up_on_assoc_update(struct pfcp_up *u, const struct pfcp_msg *m, int drc,
			const struct pfcp_derr *de, const struct up_io *io);
void up_on_assoc_release(struct pfcp_up *u, const struct pfcp_msg *m, int drc,
			 const struct pfcp_derr *de, const struct up_io *io);
void up_on_heartbeat(struct pfcp_up *u, const struct pfcp_msg *m, const struct up_io *io);
/* A request type we do not serve but must answer (PFD management, set deletion): cause 76. */
void up_on_unsupported(struct pfcp_up *u, const struct pfcp_msg *m, uint8_t rsp_type,
		       const struct up_io *io);

/* ---- pfcp_up_sess.c: sessions ---------------------------------------------------------------- */

/* Session slots and indexes for conf.capacity sessions. 0 or -ENOMEM. */
int up_sess_init(struct pfcp_up *u);
void up_sess_free(struct pfcp_up *u);

/* The session of a UP SEID (its slot in *slot), or NULL. */
struct up_sess *up_sess_by_seid(struct pfcp_up *u, uint64_t seid, uint32_t *slot);

/* Forget slot i after the data path was told; drops its pending reports. */
void up_sess_forget(struct pfcp_up *u, uint32_t i);

/* Delete every session (Association Release); back to the fallback redirect. */
void up_sess_delete_all(struct pfcp_up *u);

/* After a line group release: remove the sessions whose line is no longer served. */
void up_sess_release_sweep(struct pfcp_up *u);

void up_on_sess_establish(struct pfcp_up *u, const struct pfcp_msg *m, int drc,
			  const struct pfcp_derr *de, const struct up_io *io);
void up_on_sess_modify(struct pfcp_up *u, const struct pfcp_msg *m, int drc,
		       const struct pfcp_derr *de, const struct up_io *io);
void up_on_sess_delete(struct pfcp_up *u, const struct pfcp_msg *m, int drc,
		       const struct pfcp_derr *de, const struct up_io *io);

/* ---- pfcp_up_req.c: our requests and their timers -------------------------------------------- */

/* Free a pending entry. */
void up_pend_free(struct pfcp_up *u, struct pend *p);

/* Forget the pending reports of a session that goes away. */
void up_sess_drop_pending(struct pfcp_up *u, uint64_t up_seid);

/* An answer (Heartbeat or Session Report Response) to one of our requests. */
void up_on_response(struct pfcp_up *u, const struct pfcp_msg *m, int drc, uint64_t now_ms);

#endif /* BNG_PFCP_UP_INT_H */

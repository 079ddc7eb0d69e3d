/*
 * bng-dp LCP keepalive offload (BBF TR-459 "PPP LCP Connectivity").
 *
 * When the CP hands a session's keepalives over (PFCP: LCP magic number,
 * Verification Timers interval and count), the DP answers the subscriber's
 * LCP Echo-Requests itself and sends its own Echo-Requests every interval.
 * After `misses` consecutive requests without any Echo-Reply it reports the
 * session dead to the CP once (PFCP Session Report) and stops echoing. So
 * keepalives never load the CP, and sessions survive a CP restart.
 *
 * Data layout (allocated once by lcp_create(), indexed by session id):
 *   state[capacity]  uint64_t, written by the control thread only, read by
 *                    the worker: bit 0 = offload on, bits 32..63 = our magic
 *                    number. One naturally aligned word written with a single
 *                    atomic store, so the worker sees the old or the new
 *                    (flag, magic) pair, never a mix.
 *   live[capacity]   struct lcp_live, 16 bytes, written by the worker only,
 *                    read by the control thread: a count of Echo-Replies
 *                    received (atomic add) and the TSC of the last one. The
 *                    control thread never compares clocks: "heard since the
 *                    last request" is "the reply count changed since then".
 *   tm[capacity]     struct lcp_timer, control thread only: timer wheel
 *                    links, due time, interval, misses, request identifier.
 *   A hashed timer wheel of LCP_WHEEL_SLOTS slots of 1 ms (a 4.096 s
 *   revolution): a session waits in the slot of its due time (mod the
 *   revolution); longer intervals are skipped over once per revolution.
 *   Lists are circular and doubly linked through sentinel nodes, so enable,
 *   disable and moving a whole slot are O(1).
 *
 * Threads: lcp_input() runs on the worker for CLS_PPPOE_SESS_CTRL frames of
 * known sessions; it allocates nothing, locks nothing, makes no system call.
 * Everything else runs on the control thread. The worker's counters live in
 * struct lcp (one worker writes them; with several workers, one lcp each or
 * one worker per session).
 *
 * Work per lcp_tick() is bounded: at most max_visits timer entries looked at
 * and max_actions entries acted on (an Echo-Request sent or a session
 * reported dead); the rest waits for the next tick. New sessions get their
 * first request after a spread delay in [interval/2, interval], so 64K
 * sessions enabled at once do not all fire in the same millisecond.
 */

#ifndef BNG_LCP_H
#define BNG_LCP_H

#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "classify.h"
#include "rewrite.h"
#include "session.h"

/* LCP codes (RFC 1661 section 5). */
#define LCP_CODE_ECHO_REQUEST 9
#define LCP_CODE_ECHO_REPLY 10

#define LCP_HDR_LEN 4	      /* code, identifier, length */
#define LCP_ECHO_MIN_LEN 8    /* header + magic number */
#define LCP_FRAME_MIN_LEN 60  /* Ethernet minimum without FCS; zero padding */
#define LCP_DEFAULT_PCP 7     /* 802.1p of the frames the DP sends: network control */
#define LCP_WHEEL_SLOTS 4096u /* 1 ms slots */
#define LCP_DEFAULT_MAX_ACTIONS 128
#define LCP_DEFAULT_MAX_VISITS 1024

/* What the worker does with the frame after lcp_input(). */
enum lcp_verdict {
	LCP_TX,	      /* rewritten in place into an Echo-Reply: transmit it on the access side */
	LCP_CONSUMED, /* an Echo-Reply to us, recorded: free it */
	LCP_PUNT,     /* not ours: send it to the CP (punt.h) */
	LCP_DROP,     /* malformed or looped back, counted: free it */
};

/* Worker counters, one per outcome of lcp_input(); names in lcp.def. */
enum lcp_wcount {
#define LCP_WCOUNT_DEF(sym, name) LCP_W_##sym,
#include "lcp.def"
#undef LCP_WCOUNT_DEF
	LCP_W_MAX
};

/* Control-thread counters; names in lcp.def. */
enum lcp_ccount {
#define LCP_CCOUNT_DEF(sym, name) LCP_C_##sym,
#include "lcp.def"
#undef LCP_CCOUNT_DEF
	LCP_C_MAX
};

extern const char *const lcp_wcount_names[LCP_W_MAX];
extern const char *const lcp_ccount_names[LCP_C_MAX];

struct lcp_params {
	uint8_t pcp;	      /* 802.1p of replies and requests, both tags (0..7) */
	uint32_t max_actions; /* per lcp_tick(): requests sent + sessions reported dead */
	uint32_t max_visits;  /* per lcp_tick(): timer entries looked at */
};

/* Worker-written per-session liveness. */
struct lcp_live {
	uint32_t replies; /* Echo-Replies heard, wraps */
	uint32_t pad;
	uint64_t last_tsc; /* TSC of the last one */
};

/* Control-thread per-session timer state. */
struct lcp_timer {
	uint64_t due_ms;
	uint32_t seen_replies; /* live.replies when the last request was sent */
	uint16_t interval_s;
	uint8_t misses_allowed;
	uint8_t missed; /* consecutive intervals without a reply */
	uint8_t last_id;
	uint8_t pending; /* the last request was sent and is unanswered so far */
	uint8_t dead;	 /* reported dead; offload off */
	uint8_t pad;
};

struct lcp_link {
	uint32_t prev;
	uint32_t next;
};

struct lcp {
	/* read by the worker */
	uint64_t *state;
	struct lcp_live *live;
	uint32_t capacity;
	uint8_t pcp;
	/* control thread */
	struct lcp_timer *tm;
	struct lcp_link *lk; /* capacity entries, then LCP_WHEEL_SLOTS + 1 sentinels */
	uint64_t wheel_ms;   /* time of the slot being (or next to be) processed */
	int started;
	int cur_loaded; /* the slot at wheel_ms has been moved to the current list */
	uint32_t max_actions;
	uint32_t max_visits;
	uint32_t scheduled;    /* sessions on the wheel */
	uint32_t tick_visits;  /* entries looked at by the last lcp_tick() */
	uint32_t tick_actions; /* requests sent + deaths reported by the last lcp_tick() */
	uint64_t ccount[LCP_C_MAX];
	/* written by the worker only, on its own line */
	uint64_t wcount[LCP_W_MAX] __rte_cache_aligned;
};

/* What lcp_tick() needs from its caller (the control thread). */
struct lcp_tick_ops {
	/* The session of id (for its encap template), or NULL when it is gone. */
	const struct dp_session *(*session)(void *arg, uint32_t id);
	/* Send frame[0..len) on the access side (inject ring); 0 or negative. */
	int (*send)(void *arg, const uint8_t *frame, uint16_t len);
	/* Report id dead to the CP (PFCP Session Report); called once per death. */
	void (*dead)(void *arg, uint32_t id);
};

/* Per-session view for telemetry and tests. */
struct lcp_info {
	int enabled;
	int dead;
	uint32_t magic;
	uint16_t interval_s;
	uint8_t misses_allowed;
	uint8_t missed;
	uint8_t last_id;
	uint8_t pending;
	uint32_t replies;
	uint64_t last_reply_tsc;
	uint64_t due_ms;
};

/* --- control thread -------------------------------------------------------- */

void lcp_params_default(struct lcp_params *p);

/*
 * Room for capacity session ids (0: SESSION_DEFAULT_CAPACITY); prm NULL =
 * defaults. NULL with rte_errno set on failure (EINVAL: pcp > 7 or a zero
 * budget; ENOMEM).
 */
struct lcp *lcp_create(uint32_t capacity, const struct lcp_params *prm, int socket);
void lcp_free(struct lcp *l);

/*
 * Turn the offload on for session id, or update it (then the miss count is
 * reset): our magic number (0 when none was negotiated: loop detection is then
 * off), Echo-Request interval in seconds (>= 1) and the number of consecutive
 * unanswered requests after which the session is dead (>= 1). The first
 * request goes out between interval/2 and interval after now_ms. Returns 0 or
 * -EINVAL (id out of range, interval or misses 0).
 */
int lcp_enable(struct lcp *l, uint32_t id, uint32_t magic, uint16_t interval_s, uint8_t misses,
	       uint64_t now_ms);

/* Turn the offload off (session deleted, or the CP takes keepalives back). */
void lcp_disable(struct lcp *l, uint32_t id);

/*
 * Run the timers due at now_ms (milliseconds, monotonic). For each session
 * whose interval has passed: a reply heard since the last request resets the
 * miss count; else an unanswered request counts as a miss. When the misses
 * reach the allowed number, ops->dead(arg, id) is called once and the offload
 * stops; otherwise an Echo-Request is built and passed to ops->send(). Bounded
 * work per call (struct lcp_params).
 */
void lcp_tick(struct lcp *l, uint64_t now_ms, const struct lcp_tick_ops *ops, void *arg);

/* The state of id; -EINVAL when out of range. */
int lcp_get(const struct lcp *l, uint32_t id, struct lcp_info *out);

/* Sessions on the timer wheel. */
uint32_t lcp_scheduled(const struct lcp *l);

/*
 * Build our Echo-Request for the session of template t into buf: the access
 * header of t (subscriber as destination, AC MAC as source, the access port's
 * TPID, S-tag and C-tag with PCP pcp), PPPoE length 10, PPP LCP, then code 9,
 * identifier ident, length 8, magic number magic; zero padding to 60 bytes.
 * Returns the frame length (LCP_FRAME_MIN_LEN) or -ENOSPC.
 */
int lcp_echo_request_build(uint8_t *buf, size_t cap, const struct rw_encap_tmpl *t, uint8_t pcp,
			   uint8_t ident, uint32_t magic);

/* --- worker ---------------------------------------------------------------- */

/*
 * A CLS_PPPOE_SESS_CTRL frame (r from classify_frame() on m) of session id
 * (s = its session). For an offloaded session: a well-formed Echo-Request is
 * rewritten in place into our Echo-Reply (same identifier and data, our magic
 * number, the session's downstream header, PPPoE length = LCP length + 2,
 * padding past the LCP length zeroed up to 60 bytes) -> LCP_TX; an Echo-Reply
 * is recorded as liveness -> LCP_CONSUMED; a request or reply carrying our
 * own magic number is a loop -> LCP_DROP. Any other LCP code, any other
 * protocol, or a session without the offload -> LCP_PUNT (untouched).
 * Malformed LCP of an offloaded session -> LCP_DROP. Every outcome is counted
 * in l->wcount. On anything but LCP_TX the mbuf is unchanged.
 */
enum lcp_verdict lcp_input(struct lcp *l, struct rte_mbuf *m, const struct cls_result *r,
			   uint32_t id, const struct dp_session *s, uint64_t now_tsc);

/* The offload flag of id, as the worker sees it. */
static inline int
lcp_offloaded(const struct lcp *l, uint32_t id)
{
	return id < l->capacity && (__atomic_load_n(&l->state[id], __ATOMIC_ACQUIRE) & 1);
}

#endif /* BNG_LCP_H */

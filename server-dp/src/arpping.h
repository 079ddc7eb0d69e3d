/*
 * bng-dp IPoE liveness: ARP ping of idle subscribers (bngpod PFCP IE
 * 32770/32473 "IPoE ARP ping": interval seconds, count).
 *
 * A session with ARP ping that has received no upstream frame for `interval`
 * seconds gets an ARP request from the group's AC MAC and the gateway of the
 * subscriber's pool, to the subscriber's MAC and address, QinQ on its line
 * (sent by the control thread through the inject ring). Any upstream frame of
 * the session (its upstream packet counter moved) or an ARP reply from the
 * subscriber's MAC and address counts as heard. After `count` consecutive
 * unanswered pings the session is reported dead once (PFCP Session Report,
 * Report Type UPIR with the ARP ping IE) and pinging stops.
 *
 * Data layout (allocated once by arpping_create(), indexed by session id):
 *   heard[capacity]  uint32_t, written by the worker only (atomic add) when
 *                    an ARP reply of the session arrives; the control thread
 *                    compares it with the value it saw last.
 *   ent[capacity]    control thread only: due time, interval, count, misses,
 *                    the heard and upstream packet counts seen last.
 *   on[]             the ids with ARP ping, dense (swap-remove); pos[id] is
 *                    the index of id in on[] (ARPPING_NIL: off).
 * arpping_tick() visits at most max_visits entries of on[] round robin, so
 * its work is bounded whatever the number of sessions; a due entry is acted
 * on when the cursor reaches it (at most a few ticks late).
 *
 * Threads: arpping_reply() runs on the worker (no allocation, lock or
 * system call); everything else on the control thread.
 */

#ifndef BNG_ARPPING_H
#define BNG_ARPPING_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>

#include "session.h"

#define ARPPING_NIL UINT32_MAX
#define ARPPING_FRAME_LEN 64 /* QinQ 22 + ARP 28, zero padded to 60 (+4 spare) */
#define ARPPING_MIN_FRAME 60
#define ARPPING_DEFAULT_PCP 7
#define ARPPING_DEFAULT_MAX_VISITS 1024
#define ARPPING_DEFAULT_MAX_ACTIONS 128

/* Control-thread counters. */
struct arpping_stats {
	uint64_t request_sent; /* ARP requests handed to ops->send */
	uint64_t send_failed;  /* ops->send refused (no miss is counted for it) */
	uint64_t heard;	       /* due checks that found the session heard */
	uint64_t missed;       /* due checks that found the last ping unanswered */
	uint64_t dead;	       /* sessions reported dead */
	uint64_t no_session;   /* ops->session gave NULL: ping stopped */
};

struct arpping_ent {
	uint64_t due_ms;
	uint64_t seen_pkts; /* the session's pkts_up at the last check */
	uint32_t seen_heard;
	uint16_t interval_s;
	uint8_t count;
	uint8_t missed;
	uint8_t pending; /* a ping was sent and is unanswered so far */
	uint8_t dead;
	uint8_t pad[6];
};

struct arpping {
	uint32_t *heard; /* worker */
	uint32_t capacity;
	uint8_t pcp;
	/* control thread */
	struct arpping_ent *ent;
	uint32_t *on;
	uint32_t *pos;
	uint32_t n_on;
	uint32_t cursor;
	uint32_t max_visits;
	uint32_t max_actions;
	struct arpping_stats st;
	/* written by the worker only, on its own line */
	uint64_t replies_heard __rte_cache_aligned; /* ARP replies counted as liveness */
};

/* What arpping_tick() needs from the control thread. */
struct arpping_ops {
	/* The live session of id, or NULL when it is gone. */
	const struct dp_session *(*session)(void *arg, uint32_t id);
	/* The address (network order) the ping comes from: the gateway of s's pool. */
	uint32_t (*gateway)(void *arg, const struct dp_session *s);
	/* Send frame[0..len) on the access side (inject ring); 0 or negative. */
	int (*send)(void *arg, const uint8_t *frame, uint16_t len);
	/* Report id dead to the CP; called once per death. */
	void (*dead)(void *arg, uint32_t id);
};

/* Per-session view for telemetry and tests. */
struct arpping_info {
	int enabled;
	int dead;
	uint16_t interval_s;
	uint8_t count;
	uint8_t missed;
	uint8_t pending;
	uint32_t heard;
	uint64_t due_ms;
};

/* --- control thread -------------------------------------------------------- */

/* capacity 0: SESSION_DEFAULT_CAPACITY. NULL with rte_errno set (EINVAL, ENOMEM). */
struct arpping *arpping_create(uint32_t capacity, int socket);
void arpping_free(struct arpping *p);

/*
 * Turn ARP ping on for id, or update it (the miss count is reset): ping after
 * interval_s (>= 1) seconds without an upstream frame, dead after count (>= 1)
 * unanswered pings. pkts_up: the session's upstream packet count now. 0 or
 * -EINVAL.
 */
int arpping_enable(struct arpping *p, uint32_t id, uint16_t interval_s, uint8_t count,
		   uint64_t pkts_up, uint64_t now_ms);

/* Turn it off (session removed, or the CP switched it off). */
void arpping_disable(struct arpping *p, uint32_t id);

/*
 * The due entries at now_ms, at most max_visits looked at and max_actions
 * acted on: heard since the last check -> misses reset; idle with a ping
 * pending -> a miss; misses == count -> ops->dead() once and off; else a
 * ping is sent. Each check schedules the next one interval later.
 */
void arpping_tick(struct arpping *p, uint64_t now_ms, const struct arpping_ops *ops, void *arg);

int arpping_get(const struct arpping *p, uint32_t id, struct arpping_info *out);

/* Sessions with ARP ping on. */
static inline uint32_t
arpping_count(const struct arpping *p)
{
	return p->n_on;
}

/*
 * The ARP request for session s into buf: s's IPoE access header (client MAC
 * as destination, AC MAC as source, TPID, S-tag and C-tag with PCP pcp), ARP
 * request (Ethernet/IPv4) from the AC MAC and gw (network order) for s's
 * address, target hardware address s's MAC (RFC 5227 style unicast
 * check), zero padded to 60 bytes. Returns 60, or -EINVAL when s is not IPoE,
 * -ENOSPC when cap is too small.
 */
int arpping_request_build(uint8_t *buf, size_t cap, const struct dp_session *s, uint8_t pcp,
			  uint32_t gw);

/* --- worker ---------------------------------------------------------------- */

/*
 * An ARP frame arp (28 bytes at least, checked by the caller) from the MAC of
 * session id s: an ARP reply (operation 2) whose sender is s's MAC and
 * address counts as heard; returns 1 (the caller frees the frame). Anything
 * else: 0, nothing changed.
 */
static inline int
arpping_reply(struct arpping *p, uint32_t id, const struct dp_session *s, const uint8_t *arp)
{
	if (arp[6] != 0 || arp[7] != 2 || id >= p->capacity || memcmp(arp + 8, s->mac, 6) != 0 ||
	    memcmp(arp + 14, &s->ipv4, 4) != 0)
		return 0;
	__atomic_fetch_add(&p->heard[id], 1, __ATOMIC_RELAXED);
	p->replies_heard++;
	return 1;
}

#endif /* BNG_ARPPING_H */

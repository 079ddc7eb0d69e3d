/*
 * bng-dp upstream policer: one two-rate three-colour marker (trTCM, RFC 2698,
 * colour-blind, DPDK rte_meter) per subscriber session.
 *
 * Rates. CIR comes from the session's PFCP QER GBR uplink (else its QoS
 * profile's up_cir), PIR from the QER MBR uplink (else up_pir). Like every
 * profile rate they are Ethernet frame rates on the access line with the FCS
 * (docs: DESIGN Decisions, "Rates"): the worker passes the length of the frame
 * as received, without FCS, and police_color() adds POLICE_FCS_LEN. GREEN and
 * YELLOW frames pass (in-profile and excess within PIR), RED ones are dropped.
 *
 * Burst sizes. CBS = max(CIR x POLICE_BURST_US, POLICE_BURST_MIN) and
 * PBS = max(PIR x POLICE_BURST_US, POLICE_BURST_MIN) (bytes): 20 ms of traffic,
 * so a TCP flow keeps most of its window through the policer, but at least
 * 32 KiB, so three jumbo frames of the largest PPP MTU (9000) or 21 frames of
 * 1526 bytes fit even at a few Mbit/s (a frame above PBS would always be RED).
 *
 * Accuracy. rte_meter_trtcm_profile_config() derives token-bucket periods of at
 * least 100 TSC cycles, truncated, which can make a rate up to 1 % fast.
 * police_profile() keeps its burst sizes and re-derives each bucket so that a
 * period is at least POLICE_TB_PERIOD_MIN cycles (bytes per period rounded up,
 * period rounded to nearest): the rate error is then below 0.01 %.
 *
 * Data layout: slots[capacity], struct police_slot, 128 bytes, cache-line
 * aligned, indexed by session id; 8 MiB for 65536 sessions. A packet touches
 * its slot's first line and nothing else.
 *   line 0: the worker's own copy of the profile (rte_meter's trTCM profile
 *           with the bucket sizes and bytes per period narrowed to 32 bits,
 *           which police_profile()'s values always fit) and the buckets,
 *           with the same arithmetic as rte_meter_trtcm_color_blind_check();
 *           seen, the generation they were built from (pbs 0: no policing);
 *           gen, an rte_seqcount written by the control thread only when it
 *           changes the rates.
 *   line 1: cir/pir (bytes/s), written by the control thread, read by the
 *           worker only when gen changes.
 * Concurrency: the control thread changes the rates of a live session while
 * the worker meters it, without a lock. police_set() publishes (cir, pir) inside
 * an rte_seqcount write section, which bumps gen by 2. The worker compares gen
 * with seen on every packet (one acquire load on a line it owns anyway). When
 * they differ it copies (cir, pir) inside a seqcount read section and, only if
 * no write overlapped, builds its own profile from them, re-initialises the
 * buckets (full, at the packet's time) and sets seen; otherwise it keeps the
 * old rates for this packet and tries again on the next. So the worker never
 * meters with a torn profile, and the control thread never waits.
 *
 * A slot never set is "no policing" (GREEN). The control thread must call
 * police_set() for a session id before publishing the session (a reused id
 * still carries the rates of its previous session until then).
 */

#ifndef BNG_POLICE_H
#define BNG_POLICE_H

#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_meter.h>
#include <rte_prefetch.h>
#include <rte_seqcount.h>

#define POLICE_FCS_LEN 4u
#define POLICE_BURST_US 20000u		 /* CBS/PBS: this much time at CIR/PIR ... */
#define POLICE_BURST_MIN 32768u		 /* ... but at least this many bytes */
#define POLICE_TB_PERIOD_MIN 10000u	 /* TSC cycles per token-bucket refill, at least */
#define POLICE_MAX_RATE 1000000000000ULL /* bit/s, = DP_MAX_RATE */

struct police_slot {
	/* line 0: the worker's meter (worker only) and gen (control thread) */
	uint64_t time_tc;    /* TSC of the last C bucket update */
	uint64_t time_tp;    /* TSC of the last P bucket update */
	uint64_t cir_period; /* TSC cycles per C refill */
	uint64_t pir_period; /* TSC cycles per P refill */
	uint32_t cir_bytes_per_period;
	uint32_t pir_bytes_per_period;
	uint32_t tc;   /* bytes in the C bucket, <= cbs */
	uint32_t tp;   /* bytes in the P bucket, <= pbs */
	uint32_t cbs;  /* bytes */
	uint32_t pbs;  /* bytes; 0: no policing, every frame GREEN */
	uint32_t seen; /* gen the meter was built from */
	rte_seqcount_t gen;
	/* line 1: the published rates (control thread) */
	uint64_t cir __rte_cache_aligned; /* bytes/s, <= pir */
	uint64_t pir;			  /* bytes/s, 0 = no policing */
} __rte_cache_aligned;

struct police {
	struct police_slot *slots;
	uint32_t capacity;
	uint64_t hz; /* rte_get_tsc_hz() */
};

/* --- control thread -------------------------------------------------------- */

/*
 * Slots for capacity (>= 1) sessions on socket, every one "no policing".
 * Needs the EAL (TSC frequency, rte_malloc). NULL with rte_errno set on failure.
 */
struct police *police_create(uint32_t capacity, int socket);

/* Free everything; no worker may use it any more. NULL is ignored. */
void police_free(struct police *p);

/*
 * Set the rates of session id, in bit/s of access-line frames with FCS.
 * pir_bps 0: no policing (every frame GREEN). cir_bps 0 means CIR = PIR, and a
 * CIR above PIR is lowered to PIR (a peak rate caps what can be committed).
 * Setting the rates a slot already has changes nothing (the buckets keep
 * their level); new rates restart the buckets full when the worker adopts them.
 * Returns 0, or -EINVAL for id >= capacity or pir_bps > POLICE_MAX_RATE.
 */
int police_set(struct police *p, uint32_t id, uint64_t cir_bps, uint64_t pir_bps);

/* Burst size in bytes for a rate in bytes/s (see the header comment). */
uint64_t police_burst(uint64_t rate_bytes_per_s);

/*
 * The worker's profile for rates in bytes/s (pir >= cir >= 1) at TSC frequency
 * hz: rte_meter_trtcm_profile_config() with police_burst() sizes, buckets
 * re-derived for accuracy. Returns 0 or its negative errno.
 */
int police_profile(uint64_t hz, uint64_t cir, uint64_t pir, struct rte_meter_trtcm_profile *prof);

/* --- worker ---------------------------------------------------------------- */

/* Adopt newly published rates (police_color's slow path). */
void police_adopt(const struct police *p, struct police_slot *s, uint32_t gen, uint64_t now);

/* Session id's slot into the cache (before police_color()). */
static inline void
police_prefetch(const struct police *p, uint32_t id)
{
	if (likely(id < p->capacity))
		rte_prefetch0(&p->slots[id]);
}

/* Whether the slot meters (its adopted PIR is not 0). */
static inline int
police_slot_on(const struct police_slot *s)
{
	return s->pbs != 0;
}

/*
 * Colour of one frame of session id at TSC time now (non-decreasing per
 * session); frame_len is the frame as received, without FCS. RED: drop.
 * An id out of range is RED. The trTCM of RFC 2698 (colour-blind) as
 * rte_meter_trtcm_color_blind_check() computes it, on the slot's one line.
 */
static inline enum rte_color
police_color(struct police *p, uint32_t id, uint64_t now, uint32_t frame_len)
{
	struct police_slot *s;
	uint64_t n_tc, n_tp, tc, tp;
	uint32_t gen, len;

	if (unlikely(id >= p->capacity))
		return RTE_COLOR_RED;
	s = &p->slots[id];
	gen = rte_seqcount_read_begin(&s->gen);
	if (unlikely(gen != s->seen))
		police_adopt(p, s, gen, now);
	if (s->pbs == 0)
		return RTE_COLOR_GREEN;
	len = frame_len + POLICE_FCS_LEN;
	n_tc = (now - s->time_tc) / s->cir_period;
	n_tp = (now - s->time_tp) / s->pir_period;
	s->time_tc += n_tc * s->cir_period;
	s->time_tp += n_tp * s->pir_period;
	tc = RTE_MIN(s->tc + n_tc * s->cir_bytes_per_period, (uint64_t)s->cbs);
	tp = RTE_MIN(s->tp + n_tp * s->pir_bytes_per_period, (uint64_t)s->pbs);
	if (tp < len) {
		s->tc = (uint32_t)tc;
		s->tp = (uint32_t)tp;
		return RTE_COLOR_RED;
	}
	if (tc < len) {
		s->tc = (uint32_t)tc;
		s->tp = (uint32_t)(tp - len);
		return RTE_COLOR_YELLOW;
	}
	s->tc = (uint32_t)(tc - len);
	s->tp = (uint32_t)(tp - len);
	return RTE_COLOR_GREEN;
}

#endif /* BNG_POLICE_H */

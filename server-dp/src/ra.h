/*
 * Router Advertisement offload (docs/dp/pfcp.md "bngpod RA offload IE"):
 * bng-dp sends the periodic unsolicited RAs of its sessions, so that they go
 * on when the CP is down, as it answers LCP echoes.
 *
 * Per session with the offload on, the control thread keeps the RA's
 * parameters and its next time on a timer wheel (RA_WHEEL_SLOTS slots of
 * RA_SLOT_MS, an entry farther away than one turn counts the turns it must
 * wait). ra_tick() visits the slots whose time has come and builds and sends
 * the due RAs through a callback (the inject ring towards the worker); it
 * sends at most max_sends per call and leaves the rest in place for the next
 * call, so 64K sessions enabled at once never make a burst, and no RA costs
 * a system call. Timing per session: an RA at once when the offload is set
 * (or its parameters change), two more 4 s apart (RFC 4861 6.2.4's initial
 * RAs, at the interval when it is 4 s), then one every interval with a
 * uniform jitter of +-10%.
 *
 * Data layout (allocated once, ra_create()): entries[capacity] of about 150
 * bytes (parameters, wheel links, times), heads[RA_WHEEL_SLOTS]. Control
 * thread only; no allocation after ra_create().
 */

#ifndef BNG_RA_H
#define BNG_RA_H

#include <stddef.h>
#include <stdint.h>

#include "pfcp.h"

#define RA_WHEEL_SLOTS 1024
#define RA_SLOT_MS 50
#define RA_INITIAL 3 /* RAs sent at the start, RA_INITIAL_GAP_S apart */
#define RA_INITIAL_GAP_S 4
#define RA_FRAME_MAX 190 /* access header + IPv6 + RA with prefix, MTU and 2 DNS options */
#define RA_DEFAULT_MAX_SENDS 256

struct ra_table;

struct ra_counters {
	uint64_t sent;	    /* RAs handed to the send callback and accepted */
	uint64_t send_fail; /* refused by the callback (ring full): retried next turn */
	uint64_t deferred;  /* ticks that stopped at max_sends */
	uint32_t active;    /* gauge: sessions with the offload on */
};

/*
 * Build an RA for ra inside a PPPoE session frame: hdr is the session's
 * 30-byte access header (rewrite.h template; PCP 0), whose PPPoE length and
 * PPP protocol are set here. Returns the frame length, or 0 when cap is small.
 */
size_t ra_build(uint8_t *frame, size_t cap, const uint8_t *hdr30, const struct pfcp_ra_offload *ra);

/*
 * The same RA for an IPoE session: hdr22 is its 22-byte QinQ + Ethernet
 * header (rewrite.h IPoE template: client MAC, AC MAC, tags), whose
 * Ethertype becomes 0x86DD; the RA carries a Source Link-Layer Address
 * option with the AC MAC before the Prefix Information.
 */
size_t ra_build_ipoe(uint8_t *frame, size_t cap, const uint8_t *hdr22,
		     const struct pfcp_ra_offload *ra);

/* Per-session table for capacity sessions; NULL on no memory. */
struct ra_table *ra_create(uint32_t capacity, uint32_t max_sends, uint64_t seed);
void ra_free(struct ra_table *t);

/* Turn the offload of session id on with ra (ra->on) or off (!ra->on), at now_ms. */
void ra_set(struct ra_table *t, uint32_t id, const struct pfcp_ra_offload *ra, uint64_t now_ms);

/* Sends one RA frame of session id; 0 when taken. */
typedef int (*ra_send_fn)(void *arg, uint32_t id, const struct pfcp_ra_offload *ra);

/* Send what is due at now_ms (at most max_sends); returns how many were sent. */
uint32_t ra_tick(struct ra_table *t, uint64_t now_ms, ra_send_fn send, void *arg);

void ra_counters_get(const struct ra_table *t, struct ra_counters *c);

/* The next RA time of session id (ms), 0 when off: for tests and telemetry. */
uint64_t ra_next_ms(const struct ra_table *t, uint32_t id);

#endif /* BNG_RA_H */

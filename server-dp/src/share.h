/*
 * Work-conserving sharing of one access port's rate between the bng-dp
 * instances that shape traffic to it (docs/dp/hqos.md, "Sharing an access
 * port across instances"): the peer report's wire format and the division.
 * Plain C, no I/O and no clock: share_ctl.c (control thread) owns the socket,
 * the counters and the subport rate.
 *
 * Rates are bytes/s of access-line frames (FCS included), weights are plain
 * numbers (>= 1 once used).
 */
#ifndef BNG_SHARE_H
#define BNG_SHARE_H

#include <stddef.h>
#include <stdint.h>

#define SHARE_MAX_PEERS 16u
#define SHARE_MSG_LEN 64u
#define SHARE_MAGIC 0x42515331u /* "BQS1" */
#define SHARE_VERSION 2u	/* 1: no kind byte (an access port's report, still accepted) */
#define SHARE_MAX_GROUPS 8u	/* sharing groups of one instance ([qos_share] sections) */
#define SHARE_FLOOR_DIV 100u	/* a present peer keeps 1% of its static share */

/* What a group shares: an access port's rate (the instance's subports of
 * it) or a server port's (the instance's port pacer: its VF's share of the
 * NIC). A group is (kind, share_id). */
enum share_kind { SHARE_KIND_ACCESS = 0, SHARE_KIND_SERVER = 1, SHARE_KIND_MAX };

/* One peer's report (the datagram, decoded). */
struct share_report {
	uint8_t index; /* sender's index in the peer list */
	uint8_t kind;  /* enum share_kind */
	uint16_t share_id;
	uint32_t seq;
	uint32_t heard; /* bit i: the sender hears peer i (itself included) */
	uint64_t weight;
	uint64_t demand;  /* offered, bytes/s */
	uint64_t served;  /* dequeued, bytes/s */
	uint64_t applied; /* subport rate it runs now, bytes/s */
	uint64_t stat;	  /* its static share, bytes/s */
};

/* Why share_decode() refused a datagram (telemetry names: share_err_name()). */
enum share_err {
	SHARE_OK = 0,
	SHARE_ERR_LEN = 1,
	SHARE_ERR_MAGIC,
	SHARE_ERR_VERSION,
	SHARE_ERR_ID,	 /* no group of the receiver has this (kind, share id) */
	SHARE_ERR_INDEX, /* out of range, or the receiver's own */
	SHARE_ERR_KIND,	 /* a kind this version does not know */
	SHARE_ERR_MAX
};
const char *share_err_name(enum share_err e);

void share_encode(const struct share_report *r, uint8_t out[SHARE_MSG_LEN]);
/* The group a datagram is for: SHARE_OK with *kind and *share_id when its
 * length, magic, version and kind are right (then look the group up and call
 * share_decode()), or the reason. */
enum share_err share_peek(const uint8_t *buf, size_t len, uint8_t *kind, uint16_t *share_id);
/* SHARE_OK and *r when the datagram is a report to the group (kind,
 * share_id) of n_peers whose own index is self, or the reason; the padding
 * is ignored. */
enum share_err share_decode(const uint8_t *buf, size_t len, uint8_t kind, uint16_t share_id,
			    uint32_t n_peers, uint32_t self, struct share_report *r);

/* Input of the division, one per peer. */
struct share_peer {
	uint64_t weight; /* 0 counts as 1 */
	uint64_t demand; /* bytes/s */
	uint64_t stat;	 /* static share, bytes/s */
	uint8_t present; /* heard within silent_intervals (the caller is always present) */
};

/*
 * Weighted max-min division of rate (bytes/s) among the present peers after
 * the absent ones' static shares are reserved: out[i] = the static share of
 * an absent peer; for the present ones 1% of their static share, then water
 * filling by weight up to their demand, then what nobody demands by weight.
 * The present peers' out[] sum to at most rate - the absent ones' static
 * shares (rounded down), so all of out[] sums to at most rate when the static
 * shares do. n <= SHARE_MAX_PEERS.
 */
void share_divide(uint64_t rate, const struct share_peer *p, uint32_t n, uint64_t *out);

/*
 * The next applied rate of peer self, from every peer's target and last
 * applied rate (reports; self's own exact): a decrease at once; an increase
 * out of the headroom rate - sum(applied of present, static of absent),
 * shared with the other present peers that need an increase in proportion to
 * their increases. With the same inputs in every peer, the applied rates
 * never sum above rate.
 */
uint64_t share_step(uint64_t rate, const struct share_peer *p, uint32_t n, uint32_t self,
		    const uint64_t *target, const uint64_t *applied);

/* A view is consistent when every present peer's heard bitmap equals the
 * set of present peers (self included). */
int share_view_consistent(uint32_t present_mask, const uint32_t *heard, uint32_t n);

#endif /* BNG_SHARE_H */

/* Receive-side analysis: per-stream sequence tracking (loss, reordering, duplicates) and
 * latency (per-stream min/max/sum, one log-linear histogram per group for percentiles).
 * Everything is allocated once at start; recording a frame touches one stream record and one
 * histogram bucket.
 *
 * Definitions (RFC 4737's, applied per stream):
 * - reordered: a frame whose sequence number is below the highest already seen of its
 *   stream and that is not a duplicate;
 * - duplicate: a sequence number seen before, within the last LR_SEQ_WINDOW numbers below
 *   the highest (older ones count as reordered: the window cannot tell);
 * - lost: frames the sender sent minus distinct frames received. */
#ifndef LRGEN_RXSTATS_H
#define LRGEN_RXSTATS_H

#include <stdint.h>

#include "streams.h"

#define LR_SEQ_WINDOW 1024u
#define LR_HIST_SUB_BITS 6u /* 64 buckets per power of two: <= 1.6% error */
#define LR_HIST_BUCKETS ((64u - LR_HIST_SUB_BITS + 1u) << LR_HIST_SUB_BITS)

struct lr_rx_stream {
	uint64_t rx;
	uint64_t dup;
	uint64_t reordered;
	uint64_t lat_min, lat_max, lat_sum; /* nanoseconds */
	uint32_t next;			    /* highest seq seen + 1; 0: none yet */
	uint64_t window[LR_SEQ_WINDOW / 64];
};

struct lr_hist {
	uint64_t count;
	uint64_t b[LR_HIST_BUCKETS];
};

struct lr_rx {
	struct lr_rx_stream *st;
	uint32_t n;
	struct lr_hist hist[LR_GROUPS];
	uint64_t other; /* frames without a valid signature: not ours, or not for a stream */
	uint64_t bad_stream;
};

int lr_rx_init(struct lr_rx *rx, uint32_t n_streams);
void lr_rx_reset(struct lr_rx *rx);
void lr_rx_free(struct lr_rx *rx);

/* Records one received frame of stream id (< n) with its latency in ns. */
void lr_rx_record(struct lr_rx *rx, uint8_t group, uint16_t id, uint32_t seq, uint64_t lat_ns);

/* Finds the signature of a received frame: Ethernet, up to two VLAN tags, optionally
 * PPPoE session + PPP IPv4 (0x0021) or IPv6 (0x0057), IPv4 or IPv6 (no extension
 * headers), UDP. Returns 0 and the signature, or -1. */
int lr_rx_parse(const uint8_t *frame, uint32_t len, struct lr_sig *sig);

uint64_t lr_hist_bucket_value(uint32_t idx);
uint32_t lr_hist_index(uint64_t v);
/* The value at quantile q (0..1) of h: the middle of the bucket holding it; 0 if empty. */
uint64_t lr_hist_quantile(const struct lr_hist *h, double q);

/* If frame f (len bytes) is a PPPoE session frame (up to two VLAN tags) carrying an LCP
 * Echo-Request (RFC 1661 5.8) whose lengths hold together, turns it into the Echo-Reply in
 * place (MACs swapped, code 10, magic number `magic`; identifier, tags, session id and data
 * kept) and returns 1; else 0 and f is untouched. Reads and writes only within f. */
int lr_lcp_echo_reply(uint8_t *f, uint32_t len, uint32_t magic);

/* If frame f (len bytes, room for cap) is an ICMPv6 Neighbor Solicitation (untagged or one
 * 802.1Q tag, hop limit 255, code 0, right checksum, options of non-zero length inside it)
 * for target ip6, turns it into the Neighbor Advertisement in place (from mac and ip6 to the
 * solicitor, or to all nodes when it came from ::; flags router, solicited, override; the
 * target link-layer option mac) and returns its length; else 0. Reads and writes only
 * within f and cap. */
uint32_t lr_nd_na_reply(uint8_t *f, uint32_t len, uint32_t cap, const uint8_t ip6[16],
			const uint8_t mac[6]);

#endif

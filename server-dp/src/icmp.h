/*
 * bng-dp ICMP errors generated in the data path (worker).
 *
 * Two errors are sent by the DP itself:
 *   ICMP_TIME_EXCEEDED  type 11 code 0, TTL expired in transit: an upstream
 *                       or downstream packet whose TTL was 0 or 1 on arrival
 *                       (rw_ipv4_ttl_dec() returned 1);
 *   ICMP_FRAG_NEEDED    type 3 code 4 with the next-hop MTU (RFC 1191): a
 *                       downstream packet larger than the session's PPP MTU
 *                       with DF set.
 *
 * icmp_error() rewrites the offending packet in place into the error, so
 * the worker needs no allocation: the mbuf that carried the packet carries
 * the answer. Layout before and after (first segment):
 *
 *   before  [l3_off bytes: L2] [IPv4 header + options] [data ...]
 *   after   [l3_off bytes: L2] [IPv4 20] [ICMP 8] [quote]
 *
 * The quote is the original IPv4 header and data as they were at l3_off
 * (RFC 1812 4.3.2.3: fields the router had already changed need not be
 * undone), as much as keeps the whole ICMP datagram within 576 bytes, and
 * at least the header plus 8 data bytes (RFC 792), or the whole packet when
 * it is shorter. The L2 bytes are kept as they were; the caller rewrites
 * them for the way back. Two ways to make the 28 bytes of room:
 *   headroom (normal)  prepend 28 bytes and move the l3_off L2 bytes to the
 *                      new start: the quote stays where it is, at most 60
 *                      bytes move;
 *   tailroom (fallback, headroom < 28)  move the quote 28 bytes forward.
 * Neither fits: -ENOSPC. Only the first segment is quoted; further segments
 * are freed. The mbuf is then exactly l3_off + 28 + quote bytes long.
 *
 * New IPv4 header: version 4, IHL 5, TOS 0xc0 (precedence 6, internetwork
 * control, RFC 1812 4.3.2.5), total length, a fresh id (a counter of the
 * state), DF clear, TTL 64, protocol 1, src = src_be (the line group's core
 * address), dst = the original source. Both checksums are computed in full;
 * offload flags are not used.
 *
 * Never answered (RFC 1812 4.3.2.7, RFC 1122 3.2.2): ICMP error messages
 * (types 3, 4, 5, 11, 12 and every type not known as a query; echo, timestamp,
 * address mask and router discovery are answered), non-initial fragments,
 * sources that do not name one host (0/8, 127/8, 224/4 multicast, 240/4
 * including 255.255.255.255) and destinations that are multicast or
 * 255.255.255.255. The caller never forwards link-layer broadcasts, which
 * 4.3.2.7 also excludes.
 *
 * Rate limit: one token bucket per struct icmp_state (one per worker: it is
 * not shared between threads), refilled at `rate` tokens per second up to
 * `burst`, in TSC ticks. A packet that passes the never-answer rules takes a
 * token; with none left the answer is -EBUSY. The rules run first, so
 * packets that are never answered do not use tokens.
 *
 * Returns 0 when m holds the ICMP message, otherwise a negative errno and m
 * is untouched (the caller drops it):
 *   -EINVAL  no valid IPv4 header at l3_off in the first segment (version,
 *            IHL, total length), or less of the packet in the first segment
 *            than the minimum quote, or an unknown kind;
 *   -EPERM   a never-answer rule;
 *   -EBUSY   rate limited;
 *   -ENOSPC  neither 28 bytes of headroom nor enough tailroom.
 * Every return is counted in *c (sent per kind, refused per reason).
 */

#ifndef BNG_ICMP_H
#define BNG_ICMP_H

#include <stdint.h>

#include <rte_mbuf.h>

#define ICMP_HDR_LEN 8
#define ICMP_IP_HDR_LEN 20
#define ICMP_ROOM (ICMP_IP_HDR_LEN + ICMP_HDR_LEN) /* 28 bytes in front of the quote */
#define ICMP_MAX_DATAGRAM 576			   /* RFC 1812 4.3.2.3 */
#define ICMP_MAX_QUOTE (ICMP_MAX_DATAGRAM - ICMP_ROOM)
#define ICMP_MIN_DATA 8 /* data bytes quoted after the header, at least (RFC 792) */
#define ICMP_TTL 64
#define ICMP_TOS 0xc0 /* precedence 6 */

#define ICMP_DEFAULT_RATE 100 /* errors per second, per state */
#define ICMP_DEFAULT_BURST 20

/* ICMP types and codes used or recognised here. */
#define ICMP_TYPE_ECHO_REPLY 0
#define ICMP_TYPE_DEST_UNREACH 3
#define ICMP_CODE_FRAG_NEEDED 4
#define ICMP_TYPE_TIME_EXCEEDED 11
#define ICMP_CODE_TTL_EXCEEDED 0

/* The ICMP errors built here, with their names: icmp.def. */
enum icmp_kind {
#define ICMP_KIND_DEF(sym, name) ICMP_##sym,
#include "icmp.def"
#undef ICMP_KIND_DEF
	ICMP_KIND_MAX
};

/* Why a packet got no ICMP error, one counter each (icmp.def). */
enum icmp_refuse {
#define ICMP_REFUSE_DEF(sym, name) ICMP_REFUSE_##sym,
#include "icmp.def"
#undef ICMP_REFUSE_DEF
	ICMP_REFUSE_MAX
};

extern const char *const icmp_kind_names[ICMP_KIND_MAX];
extern const char *const icmp_refuse_names[ICMP_REFUSE_MAX];

/* Per worker, plain increments. */
struct icmp_counters {
	uint64_t sent[ICMP_KIND_MAX];
	uint64_t refused[ICMP_REFUSE_MAX];
};

/* Token bucket and id counter of one worker. */
struct icmp_state {
	uint64_t last_tsc;	/* time of the last refill */
	uint64_t tsc_per_token; /* 0: no token is ever added (rate 0) */
	uint32_t tokens;
	uint32_t burst;
	uint16_t next_id; /* IPv4 id of the next message */
	uint16_t pad[3];
};

/*
 * Set up a state: rate tokens per second (0 = never send an ICMP error),
 * burst tokens at most (0 is taken as 1), tsc_hz from rte_get_tsc_hz(). The
 * bucket starts full. id_seed seeds the IPv4 id counter. Returns 0, or
 * -EINVAL when tsc_hz is 0.
 */
int icmp_state_init(struct icmp_state *s, uint32_t rate, uint32_t burst, uint64_t tsc_hz,
		    uint16_t id_seed);

/*
 * Turn the IPv4 packet at l3_off of m into the ICMP error kind towards its
 * source, in place (see the header comment). mtu is the next-hop MTU written
 * into ICMP_FRAG_NEEDED (ignored for ICMP_TIME_EXCEEDED); src_be the source
 * address of the error, network order; now_tsc the worker's rte_rdtsc().
 */
int icmp_error(struct icmp_state *s, struct rte_mbuf *m, uint16_t l3_off, enum icmp_kind kind,
	       uint16_t mtu, uint32_t src_be, uint64_t now_tsc, struct icmp_counters *c);

/* Take one token of s's rate limit at now_tsc (refilled first): 1 when there was one. */
int icmp_take_token(struct icmp_state *s, uint64_t now_tsc);

#endif /* BNG_ICMP_H */

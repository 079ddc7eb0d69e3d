/*
 * ICMPv6 errors bng-dp originates (RFC 4443) and the IPv6 helpers of the data
 * path: Time Exceeded (hop limit) towards a subscriber, Packet Too Big (the
 * PPPoE MTU) towards the core. The error replaces the packet in place: the
 * offending packet, cut to fit the IPv6 minimum MTU (1280 bytes in all), is
 * quoted after a new IPv6 header (source: the line group's core IPv6
 * address, hop limit 64) and the ICMPv6 header; the checksum covers the
 * pseudo-header. Rate-limited by the worker's ICMP token bucket (icmp.h),
 * shared with IPv4's errors.
 *
 * Never answered (RFC 4443 2.4 e): an ICMPv6 error or a redirect, a packet
 * to a multicast address, a source that is not a global unicast address.
 * Plain C on the packet's first segment; no allocation, lock or system call.
 */

#ifndef BNG_ICMP6_H
#define BNG_ICMP6_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_mbuf.h>

#include "icmp.h"

#define ICMP6_ROOM 48	     /* IPv6 40 + ICMPv6 8 in front of the quote */
#define ICMP6_MAX_DGRAM 1280 /* RFC 4443 2.4 c */
#define ICMP6_TYPE_PTB 2
#define ICMP6_TYPE_TIME_EXCEEDED 3
#define ICMP6_NH 58
#define ICMP6_HOP_LIMIT 64

/* Counters of one worker's ICMPv6 errors. */
struct icmp6_counters {
	uint64_t time_exceeded;
	uint64_t packet_too_big;
	uint64_t rate_limited;
	uint64_t not_allowed; /* an error, a multicast destination, a non-global source */
	uint64_t no_room;     /* not enough headroom or a chained mbuf */
};

/* Address scopes, on 16 bytes at a. */
static inline bool
ip6_is_link_local(const uint8_t *a)
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

static inline bool
ip6_is_multicast(const uint8_t *a)
{
	return a[0] == 0xff;
}

static inline bool
ip6_is_unspecified(const uint8_t *a)
{
	static const uint8_t z[16];

	return memcmp(a, z, 16) == 0;
}

/* Not ::/8, link-local, site-local or multicast. */
static inline bool
ip6_is_global(const uint8_t *a)
{
	return a[0] != 0 && a[0] != 0xff && !(a[0] == 0xfe && (a[1] & 0x80) == 0x80);
}

/* The 16-bit one's complement sum of len bytes (folded, not inverted). */
uint32_t ip6_csum_add(uint32_t sum, const uint8_t *p, uint32_t len);

/* The ICMPv6/UDP/TCP checksum of the upper-layer payload l4 (len bytes) of the IPv6 header ip. */
uint16_t ip6_l4_csum(const uint8_t *ip, const uint8_t *l4, uint32_t len, uint8_t nh);

/*
 * Turn the IPv6 packet at l3_off of m (l3_len bytes) into ICMPv6 error type
 * (ICMP6_TYPE_TIME_EXCEEDED, code 0; or ICMP6_TYPE_PTB with mtu) from src16
 * to the packet's source. On success m holds [l3_off bytes before][the
 * error] exactly (the bytes before l3_off are left as they were) and 0 is
 * returned; otherwise -1 and m is unchanged. Counted in *c.
 */
int icmp6_error(struct icmp_state *s, struct rte_mbuf *m, uint16_t l3_off, uint16_t l3_len,
		uint8_t type, uint32_t mtu, const uint8_t *src16, uint64_t now_tsc,
		struct icmp6_counters *c);

#endif /* BNG_ICMP6_H */

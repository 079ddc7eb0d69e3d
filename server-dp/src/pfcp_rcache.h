/*
 * The user-plane function's response cache (pfcp_up.h): the answers it
 * sent, replayed byte for byte when a request is retransmitted (29.244
 * 6.4: a retransmitted request is not applied twice).
 *
 * A request is the same one when its peer address and port, sequence
 * number, message type and a 64-bit FNV-1a digest of its bytes match: a CP
 * that restarted numbers its requests from the start again, and a request
 * with a known sequence number but other contents is a new request.
 *
 * Layout (allocated once by up_rcache_init()): an UP_RCACHE_BYTES ring of
 * (header, answer) records, 8-byte aligned, written in order and
 * overwritten when the ring wraps; an UP_RCACHE_SLOTS hash index of ring
 * positions (a colliding request replaces the older entry). An answer is
 * replayed for ttl_ms after it was sent, if it was not overwritten since.
 * Answers longer than an eighth of the ring are not cached.
 *
 * Plain C, control thread.
 */

#ifndef BNG_PFCP_RCACHE_H
#define BNG_PFCP_RCACHE_H

#include <stddef.h>
#include <stdint.h>

struct up_rcache {
	uint8_t *arena; /* UP_RCACHE_BYTES */
	uint64_t head;	/* bytes written since the start; arena position = head % size */
	uint64_t *slot; /* [UP_RCACHE_SLOTS] arena position + 1, 0 = empty */
	uint32_t ttl_ms;
};

/* The key of a request. */
struct up_rc_key {
	uint64_t digest; /* up_rcache_digest() of the request's bytes */
	uint32_t ip;
	uint32_t seq;
	uint16_t port;
	uint8_t type;
};

/* 0, or -ENOMEM (then up_rcache_free() releases what was allocated). */
int up_rcache_init(struct up_rcache *c, uint32_t ttl_ms);
void up_rcache_free(struct up_rcache *c);

/* FNV-1a, 64-bit, of a request's bytes. */
uint64_t up_rcache_digest(const uint8_t *b, size_t len);

/* Remember answer b (len octets) to request k, sent at now_ms. */
void up_rcache_put(struct up_rcache *c, const struct up_rc_key *k, const uint8_t *b, size_t len,
		   uint64_t now_ms);

/* The answer to request k still in the cache at now_ms (*len set), or NULL. */
const uint8_t *up_rcache_get(const struct up_rcache *c, const struct up_rc_key *k, uint64_t now_ms,
			     size_t *len);

#endif /* BNG_PFCP_RCACHE_H */

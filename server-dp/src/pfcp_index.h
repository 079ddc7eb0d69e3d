/*
 * The user-plane function's session indexes (pfcp_up.h): 64-bit key ->
 * 32-bit value (a session slot), open addressing with linear probing at
 * most half full, backward-shift deletion (no tombstones, so lookups never
 * slow down with churn). Sized once by up_index_init(); nothing allocates
 * afterwards. Also the hash the response cache (pfcp_rcache.h) uses.
 *
 * Plain C, control thread.
 */

#ifndef BNG_PFCP_INDEX_H
#define BNG_PFCP_INDEX_H

#include <stdint.h>

#define UP_NONE UINT32_MAX /* no value: an empty entry, no slot */

struct up_index {
	uint64_t *keys;
	uint32_t *vals; /* UP_NONE = empty */
	uint32_t mask;
};

/* A 64-bit finalizer (MurmurHash3's fmix64), folded to 32 bits. */
static inline uint32_t
up_mix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	k ^= k >> 33;
	return (uint32_t)k;
}

/* Room for capacity keys (2 x capacity entries, a power of two). 0 or -ENOMEM. */
int up_index_init(struct up_index *h, uint32_t capacity);
void up_index_free(struct up_index *h);

/* The value of k, or UP_NONE. */
uint32_t up_index_find(const struct up_index *h, uint64_t k);

/* Set k -> v (replacing k's value). */
void up_index_put(struct up_index *h, uint64_t k, uint32_t v);

/* Delete k if it maps to v. */
void up_index_del(struct up_index *h, uint64_t k, uint32_t v);

#endif /* BNG_PFCP_INDEX_H */

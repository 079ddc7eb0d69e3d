/* Helpers shared by the benchmarks: a fixed-seed xorshift generator (so every
 * run builds the same frames) and big-endian byte writers for building
 * headers. Each benchmark is one translation unit, so the state is static.
 */
#ifndef BNG_BENCH_COMMON_H
#define BNG_BENCH_COMMON_H

#include <stdint.h>
#include <string.h>

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static inline uint32_t
rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)((rng >> 16) % n);
}

static inline void
put16(uint8_t *p, unsigned int v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* IPv4 header of a tot-byte packet (zeroed past it) from 100.80.0-3.x to
 * 8.8.8.8, TTL 64, protocol proto; the header checksum is left 0. */
static inline void
put_ipv4_hdr(uint8_t *p, unsigned int tot, unsigned int proto)
{
	memset(p, 0, tot);
	p[0] = 0x45;
	put16(p + 2, tot);
	p[8] = 64;
	p[9] = (uint8_t)proto;
	put16(p + 12, 0x6450); /* 100.80.x.y */
	p[14] = (uint8_t)rnd(4);
	p[15] = (uint8_t)rnd(256);
	p[16] = 8;
	p[17] = 8;
	p[18] = 8;
	p[19] = 8;
}

#endif /* BNG_BENCH_COMMON_H */

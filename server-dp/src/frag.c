/*
 * bng-dp IPv4 fragmentation of downstream packets (frag.h).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_ip_frag.h>
#include <rte_malloc.h>

#include "frag.h"

/* A fragment header (at most 60 bytes) behind the headroom, in FRAG_CHAIN mode. */
#define FRAG_HDR_ROOM 64
#define FRAG_POOL_CACHE 32

_Static_assert(RTE_PKTMBUF_HEADROOM >= FRAG_HEADROOM_NEEDED,
	       "fragments need room for the QinQ + PPPoE header in front");

const char *const frag_result_names[FRAG_R_MAX] = {
#define FRAG_RESULT_DEF(sym, name) [FRAG_R_##sym] = name,
#include "frag.def"
#undef FRAG_RESULT_DEF
};

static unsigned int
frag_pool_cache(unsigned int n)
{
	/* rte_mempool wants the cache well below the pool size. */
	return n >= 4 * FRAG_POOL_CACHE ? FRAG_POOL_CACHE : 0;
}

struct frag_pools *
frag_pools_create(int socket, unsigned int n, enum frag_mode mode)
{
	static unsigned int seq;
	unsigned int id = __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED);
	struct frag_pools *p;
	char name[RTE_MEMPOOL_NAMESIZE];
	uint16_t room;

	if (mode != FRAG_COPY && mode != FRAG_CHAIN) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (n == 0)
		n = FRAG_DEFAULT_MBUFS;
	p = rte_zmalloc_socket("frag_pools", sizeof(*p), 0, socket);
	if (p == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	p->mode = mode;
	room = mode == FRAG_COPY ? RTE_MBUF_DEFAULT_BUF_SIZE : RTE_PKTMBUF_HEADROOM + FRAG_HDR_ROOM;
	snprintf(name, sizeof(name), "frag_d%u", id);
	p->direct = rte_pktmbuf_pool_create(name, n, frag_pool_cache(n), 0, room, socket);
	if (p->direct == NULL)
		goto fail;
	if (mode == FRAG_CHAIN) {
		snprintf(name, sizeof(name), "frag_i%u", id);
		p->indirect = rte_pktmbuf_pool_create(name, n, frag_pool_cache(n), 0, 0, socket);
		if (p->indirect == NULL)
			goto fail;
	}
	p->max_frag_len = (uint16_t)(room - RTE_PKTMBUF_HEADROOM);
	return p;
fail:
	frag_pools_free(p);
	rte_errno = ENOMEM;
	return NULL;
}

void
frag_pools_free(struct frag_pools *p)
{
	if (p == NULL)
		return;
	rte_mempool_free(p->indirect);
	rte_mempool_free(p->direct);
	rte_free(p);
}

static int
frag_count(struct frag_counters *c, enum frag_result r, int ret)
{
	c->result[r]++;
	return ret;
}

int
frag_ipv4(struct rte_mbuf *m, uint16_t mtu, struct rte_mbuf **out, uint16_t max,
	  const struct frag_pools *p, struct frag_counters *c)
{
	const uint8_t *ip;
	uint32_t ihl, tot, eff, step, k, i;
	int32_t n;

	if (rte_pktmbuf_data_len(m) < 20 || max == 0 || mtu < FRAG_MIN_MTU)
		return frag_count(c, FRAG_R_INVALID, -EINVAL);
	ip = rte_pktmbuf_mtod(m, const uint8_t *);
	ihl = (uint32_t)(ip[0] & 0x0f) * 4;
	tot = (uint32_t)ip[2] << 8 | ip[3];
	if ((ip[0] >> 4) != 4 || ihl < 20 || rte_pktmbuf_data_len(m) < ihl || tot < ihl ||
	    tot != rte_pktmbuf_pkt_len(m))
		return frag_count(c, FRAG_R_INVALID, -EINVAL);
	if (tot <= mtu) {
		out[0] = m;
		return frag_count(c, FRAG_R_FITS, 1);
	}
	if (ip[6] & 0x40)
		return frag_count(c, FRAG_R_DF, -EMSGSIZE);
	eff = p->mode == FRAG_COPY ? RTE_MIN((uint32_t)mtu, (uint32_t)p->max_frag_len) : mtu;
	if (eff < ihl + 8)
		return frag_count(c, FRAG_R_INVALID, -EINVAL);
	/* Payload per fragment, a multiple of 8; options only shrink later headers. */
	step = (eff - ihl) & ~7u;
	k = (tot - ihl + step - 1) / step;
	if (k > max)
		return frag_count(c, FRAG_R_TOO_MANY, -E2BIG);
	if (p->mode == FRAG_COPY)
		n = rte_ipv4_fragment_copy_nonseg_packet(m, out, max, (uint16_t)eff, p->direct);
	else
		n = rte_ipv4_fragment_packet(m, out, max, (uint16_t)eff, p->direct, p->indirect);
	if (n < 0)
		return frag_count(c, n == -ENOMEM ? FRAG_R_NO_MBUF : FRAG_R_INVALID, n);
	for (i = 0; i < (uint32_t)n; i++) {
		struct rte_ipv4_hdr *h = rte_pktmbuf_mtod(out[i], struct rte_ipv4_hdr *);

		h->hdr_checksum = 0;
		h->hdr_checksum = rte_ipv4_cksum(h);
	}
	rte_pktmbuf_free(m);
	c->fragments += (uint64_t)n;
	return frag_count(c, FRAG_R_FRAGMENTED, n);
}

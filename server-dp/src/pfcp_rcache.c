/*
 * The user-plane function's response cache (pfcp_rcache.h).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pfcp_index.h"
#include "pfcp_rcache.h"
#include "pfcp_up.h"

struct rc_hdr {
	uint64_t t_ms;
	uint64_t digest; /* of the request: a restarted CP reuses sequence numbers */
	uint32_t ip;
	uint32_t seq;
	uint32_t len;
	uint16_t port;
	uint8_t type;
	uint8_t pad;
};

int
up_rcache_init(struct up_rcache *c, uint32_t ttl_ms)
{
	memset(c, 0, sizeof(*c));
	c->ttl_ms = ttl_ms;
	c->arena = malloc(UP_RCACHE_BYTES);
	c->slot = calloc(UP_RCACHE_SLOTS, sizeof(*c->slot));
	return c->arena == NULL || c->slot == NULL ? -ENOMEM : 0;
}

void
up_rcache_free(struct up_rcache *c)
{
	free(c->arena);
	free(c->slot);
}

static uint32_t
rc_hash(uint32_t ip, uint16_t port, uint32_t seq, uint8_t type)
{
	return up_mix64((uint64_t)ip << 32 ^ (uint64_t)port << 24 ^ seq ^ (uint64_t)type << 56) &
	       (UP_RCACHE_SLOTS - 1);
}

uint64_t
up_rcache_digest(const uint8_t *b, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

void
up_rcache_put(struct up_rcache *c, const struct up_rc_key *k, const uint8_t *b, size_t len,
	      uint64_t now_ms)
{
	size_t need = (sizeof(struct rc_hdr) + len + 7) & ~(size_t)7;
	struct rc_hdr hdr = {.t_ms = now_ms,
			     .digest = k->digest,
			     .ip = k->ip,
			     .seq = k->seq,
			     .len = (uint32_t)len,
			     .port = k->port,
			     .type = k->type};
	uint64_t off = c->head % UP_RCACHE_BYTES;

	if (need > UP_RCACHE_BYTES / 8)
		return;
	if (off + need > UP_RCACHE_BYTES) {
		c->head += UP_RCACHE_BYTES - off;
		off = 0;
	}
	memcpy(c->arena + off, &hdr, sizeof(hdr));
	memcpy(c->arena + off + sizeof(hdr), b, len);
	c->slot[rc_hash(k->ip, k->port, k->seq, k->type)] = c->head + 1;
	c->head += need;
}

const uint8_t *
up_rcache_get(const struct up_rcache *c, const struct up_rc_key *k, uint64_t now_ms, size_t *len)
{
	uint64_t pos = c->slot[rc_hash(k->ip, k->port, k->seq, k->type)];
	struct rc_hdr hdr;

	if (pos == 0)
		return NULL;
	pos--;
	if (c->head > pos + UP_RCACHE_BYTES) /* overwritten since */
		return NULL;
	memcpy(&hdr, c->arena + pos % UP_RCACHE_BYTES, sizeof(hdr));
	if (hdr.ip != k->ip || hdr.port != k->port || hdr.seq != k->seq || hdr.type != k->type ||
	    hdr.digest != k->digest)
		return NULL;
	if (now_ms - hdr.t_ms > c->ttl_ms)
		return NULL;
	*len = hdr.len;
	return c->arena + pos % UP_RCACHE_BYTES + sizeof(hdr);
}

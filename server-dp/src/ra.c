/*
 * Router Advertisement offload (ra.h).
 */

#include <stdlib.h>
#include <string.h>

#include "icmp6.h"
#include "ra.h"

#define RA_NONE UINT32_MAX

struct ra_entry {
	struct pfcp_ra_offload ra;
	uint64_t due_ms; /* when the next RA is due */
	uint32_t prev;	 /* wheel links */
	uint32_t next;
	uint16_t slot;
	uint8_t initial; /* initial RAs still to send after the next one */
	uint8_t on;
};

struct ra_table {
	struct ra_entry *e;
	uint32_t *heads;
	uint32_t capacity;
	uint32_t max_sends;
	uint64_t cursor_ms; /* the slots before this time have been visited */
	uint64_t rng;
	struct ra_counters c;
};

static uint32_t
rnd(struct ra_table *t)
{
	t->rng ^= t->rng << 13;
	t->rng ^= t->rng >> 7;
	t->rng ^= t->rng << 17;
	return (uint32_t)(t->rng >> 16);
}

static void
unlink_entry(struct ra_table *t, uint32_t id)
{
	struct ra_entry *x = &t->e[id];

	if (x->prev != RA_NONE)
		t->e[x->prev].next = x->next;
	else
		t->heads[x->slot] = x->next;
	if (x->next != RA_NONE)
		t->e[x->next].prev = x->prev;
	x->prev = x->next = RA_NONE;
}

static void
schedule(struct ra_table *t, uint32_t id, uint64_t due_ms)
{
	struct ra_entry *x = &t->e[id];
	uint16_t slot;

	/* never into a slot already visited: at least the cursor's */
	if (due_ms < t->cursor_ms)
		due_ms = t->cursor_ms;
	slot = (uint16_t)((due_ms / RA_SLOT_MS) % RA_WHEEL_SLOTS);
	x->due_ms = due_ms;
	x->slot = slot;
	x->prev = RA_NONE;
	x->next = t->heads[slot];
	if (x->next != RA_NONE)
		t->e[x->next].prev = id;
	t->heads[slot] = id;
}

struct ra_table *
ra_create(uint32_t capacity, uint32_t max_sends, uint64_t seed)
{
	struct ra_table *t = calloc(1, sizeof(*t));

	if (t == NULL || capacity == 0)
		goto fail;
	t->e = calloc(capacity, sizeof(*t->e));
	t->heads = malloc(RA_WHEEL_SLOTS * sizeof(*t->heads));
	if (t->e == NULL || t->heads == NULL)
		goto fail;
	memset(t->heads, 0xff, RA_WHEEL_SLOTS * sizeof(*t->heads));
	t->capacity = capacity;
	t->max_sends = max_sends ? max_sends : RA_DEFAULT_MAX_SENDS;
	t->rng = seed | 1;
	return t;
fail:
	ra_free(t);
	return NULL;
}

void
ra_free(struct ra_table *t)
{
	if (t == NULL)
		return;
	free(t->e);
	free(t->heads);
	free(t);
}

void
ra_set(struct ra_table *t, uint32_t id, const struct pfcp_ra_offload *ra, uint64_t now_ms)
{
	struct ra_entry *x;

	if (id >= t->capacity)
		return;
	x = &t->e[id];
	if (x->on) {
		unlink_entry(t, id);
		x->on = 0;
		t->c.active--;
	}
	if (ra == NULL || !ra->on)
		return;
	if (t->cursor_ms == 0)
		t->cursor_ms = now_ms;
	x->ra = *ra;
	x->on = 1;
	x->initial = RA_INITIAL - 1;
	t->c.active++;
	schedule(t, id, now_ms);
}

uint64_t
ra_next_ms(const struct ra_table *t, uint32_t id)
{
	return id < t->capacity && t->e[id].on ? t->e[id].due_ms : 0;
}

void
ra_counters_get(const struct ra_table *t, struct ra_counters *c)
{
	*c = t->c;
}

/* The delay after an RA: the initial gap, or the interval +-10%. */
static uint64_t
next_delay(struct ra_table *t, struct ra_entry *x)
{
	uint64_t iv = (uint64_t)x->ra.interval_s * 1000;

	if (x->initial > 0) {
		x->initial--;
		return iv < RA_INITIAL_GAP_S * 1000 ? iv : RA_INITIAL_GAP_S * 1000;
	}
	return iv - iv / 10 + rnd(t) % (iv / 5 + 1);
}

uint32_t
ra_tick(struct ra_table *t, uint64_t now_ms, ra_send_fn send, void *arg)
{
	uint32_t sent = 0;

	if (t->cursor_ms == 0)
		t->cursor_ms = now_ms;
	/* visit every slot from the cursor's up to now's, at most one turn */
	for (unsigned int n = 0; t->cursor_ms <= now_ms && n < RA_WHEEL_SLOTS; n++) {
		uint16_t slot = (uint16_t)((t->cursor_ms / RA_SLOT_MS) % RA_WHEEL_SLOTS);
		uint32_t id = t->heads[slot];

		while (id != RA_NONE) {
			struct ra_entry *x = &t->e[id];
			uint32_t nx = x->next;

			if (x->due_ms <= now_ms) {
				if (sent == t->max_sends) {
					t->c.deferred++;
					return sent;
				}
				unlink_entry(t, id);
				if (send(arg, id, &x->ra) == 0) {
					t->c.sent++;
					sent++;
					schedule(t, id, now_ms + next_delay(t, x));
				} else {
					t->c.send_fail++;
					schedule(t, id, now_ms + 1000);
				}
			}
			id = nx;
		}
		if ((t->cursor_ms / RA_SLOT_MS + 1) * RA_SLOT_MS > now_ms)
			break; /* the current slot: visited again next tick */
		t->cursor_ms = (t->cursor_ms / RA_SLOT_MS + 1) * RA_SLOT_MS;
	}
	return sent;
}

/*
 * The IPv6 header and RA at ip (zeroed here); slla: the Source Link-Layer
 * Address option's MAC, NULL for none (PPP). Returns the IPv6 packet's
 * length, or 0 when it does not fit in cap.
 */
static size_t
ra_fill(uint8_t *ip, size_t cap, const uint8_t *slla, const struct pfcp_ra_offload *ra)
{
	static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 1};
	size_t n_dns = ra->n_dns > PFCP_RA_MAX_DNS ? PFCP_RA_MAX_DNS : ra->n_dns;
	size_t plen = 16 + (slla ? 8 : 0) + 32 + (ra->mtu ? 8 : 0) + (n_dns ? 8 + 16 * n_dns : 0);
	uint8_t *r = ip + 40;
	uint16_t ck;
	size_t o;

	if (cap < 40 + plen)
		return 0;
	memset(ip, 0, 40 + plen);
	ip[0] = 0x60;
	ip[4] = (uint8_t)(plen >> 8);
	ip[5] = (uint8_t)plen;
	ip[6] = ICMP6_NH;
	ip[7] = 255;
	ip[8] = 0xfe;
	ip[9] = 0x80;
	memcpy(ip + 16, ra->iid, 8);
	memcpy(ip + 24, all_nodes, 16);
	r[0] = 134;
	r[4] = 64; /* Cur Hop Limit */
	r[5] = ra->flags & (PFCP_RA_FLAG_M | PFCP_RA_FLAG_O);
	r[6] = (uint8_t)(ra->lifetime_s >> 8);
	r[7] = (uint8_t)ra->lifetime_s;
	/* Reachable Time, Retrans Timer: 0 (unspecified) */
	o = 16;
	if (slla) {
		r[o] = 1; /* Source Link-Layer Address */
		r[o + 1] = 1;
		memcpy(r + o + 2, slla, 6);
		o += 8;
	}
	r[o] = 3; /* Prefix Information */
	r[o + 1] = 4;
	r[o + 2] = 64;
	r[o + 3] = 0xc0; /* L, A */
	for (int i = 0; i < 4; i++) {
		r[o + 4 + i] = (uint8_t)(ra->valid_s >> (24 - 8 * i));
		r[o + 8 + i] = (uint8_t)(ra->preferred_s >> (24 - 8 * i));
	}
	memcpy(r + o + 16, ra->prefix, 8);
	o += 32;
	if (ra->mtu) {
		r[o] = 5;
		r[o + 1] = 1;
		r[o + 6] = (uint8_t)(ra->mtu >> 8);
		r[o + 7] = (uint8_t)ra->mtu;
		o += 8;
	}
	if (n_dns) {
		r[o] = 25; /* RDNSS, RFC 8106 */
		r[o + 1] = (uint8_t)(1 + 2 * n_dns);
		r[o + 6] = (uint8_t)(ra->lifetime_s >> 8);
		r[o + 7] = (uint8_t)ra->lifetime_s;
		for (size_t i = 0; i < n_dns; i++)
			memcpy(r + o + 8 + 16 * i, ra->dns[i], 16);
	}
	ck = ip6_l4_csum(ip, r, (uint32_t)plen, ICMP6_NH);
	r[2] = (uint8_t)(ck >> 8);
	r[3] = (uint8_t)ck;
	return 40 + plen;
}

size_t
ra_build(uint8_t *f, size_t cap, const uint8_t *hdr30, const struct pfcp_ra_offload *ra)
{
	size_t l3;

	if (cap < 30)
		return 0;
	l3 = ra_fill(f + 30, cap - 30, NULL, ra);
	if (l3 == 0)
		return 0;
	memcpy(f, hdr30, 30);
	f[26] = (uint8_t)((l3 + 2) >> 8); /* PPPoE length */
	f[27] = (uint8_t)(l3 + 2);
	f[28] = 0x00;
	f[29] = 0x57;
	return 30 + l3;
}

size_t
ra_build_ipoe(uint8_t *f, size_t cap, const uint8_t *hdr22, const struct pfcp_ra_offload *ra)
{
	size_t l3;

	if (cap < 22)
		return 0;
	/* the SLLA option: the frame's source, the AC MAC */
	l3 = ra_fill(f + 22, cap - 22, hdr22 + 6, ra);
	if (l3 == 0)
		return 0;
	memcpy(f, hdr22, 22);
	f[20] = 0x86;
	f[21] = 0xdd;
	return 22 + l3;
}

/*
 * The division of a shared access port's rate and the peer report codec
 * (share.h; docs/dp/hqos.md, "Sharing an access port across instances").
 */
#include "share.h"

#include <string.h>

__extension__ typedef unsigned __int128 u128;

static const char *const err_names[SHARE_ERR_MAX] = {
	[SHARE_OK] = "ok",
	[SHARE_ERR_LEN] = "bad_length",
	[SHARE_ERR_MAGIC] = "bad_magic",
	[SHARE_ERR_VERSION] = "bad_version",
	[SHARE_ERR_ID] = "other_share_id",
	[SHARE_ERR_INDEX] = "bad_index",
	[SHARE_ERR_KIND] = "bad_kind",
};

const char *
share_err_name(enum share_err e)
{
	return (unsigned int)e < SHARE_ERR_MAX ? err_names[e] : "?";
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static void
put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

static uint64_t
get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

/* magic 4 | version 1 | index 1 | share_id 2 | seq 4 | heard 4 | weight 8 |
 * demand 8 | served 8 | applied 8 | static 8 | kind 1 | zero 7. Version 1 had
 * zero in the kind byte and is read as kind access. */
void
share_encode(const struct share_report *r, uint8_t out[SHARE_MSG_LEN])
{
	memset(out, 0, SHARE_MSG_LEN);
	put32(out, SHARE_MAGIC);
	out[4] = SHARE_VERSION;
	out[5] = r->index;
	put16(out + 6, r->share_id);
	put32(out + 8, r->seq);
	put32(out + 12, r->heard);
	put64(out + 16, r->weight);
	put64(out + 24, r->demand);
	put64(out + 32, r->served);
	put64(out + 40, r->applied);
	put64(out + 48, r->stat);
	out[56] = r->kind;
}

enum share_err
share_peek(const uint8_t *buf, size_t len, uint8_t *kind, uint16_t *share_id)
{
	if (len != SHARE_MSG_LEN)
		return SHARE_ERR_LEN;
	if (get32(buf) != SHARE_MAGIC)
		return SHARE_ERR_MAGIC;
	if (buf[4] != SHARE_VERSION && buf[4] != 1u)
		return SHARE_ERR_VERSION;
	*kind = buf[4] == 1u ? (uint8_t)SHARE_KIND_ACCESS : buf[56];
	if (*kind >= SHARE_KIND_MAX)
		return SHARE_ERR_KIND;
	*share_id = get16(buf + 6);
	return SHARE_OK;
}

enum share_err
share_decode(const uint8_t *buf, size_t len, uint8_t kind, uint16_t share_id, uint32_t n_peers,
	     uint32_t self, struct share_report *r)
{
	uint16_t id;
	uint8_t k;
	enum share_err e = share_peek(buf, len, &k, &id);

	if (e != SHARE_OK)
		return e;
	if (k != kind || id != share_id)
		return SHARE_ERR_ID;
	if (buf[5] >= n_peers || buf[5] == self || n_peers > SHARE_MAX_PEERS)
		return SHARE_ERR_INDEX;
	r->kind = k;
	r->index = buf[5];
	r->share_id = share_id;
	r->seq = get32(buf + 8);
	r->heard = get32(buf + 12);
	r->weight = get64(buf + 16);
	r->demand = get64(buf + 24);
	r->served = get64(buf + 32);
	r->applied = get64(buf + 40);
	r->stat = get64(buf + 48);
	return SHARE_OK;
}

static uint64_t
weight_of(const struct share_peer *p)
{
	return p->weight == 0 ? 1 : p->weight;
}

/* a * b / c rounded down, without overflow for 64-bit a, b (c > 0). */
static uint64_t
muldiv(uint64_t a, uint64_t b, u128 c)
{
	u128 q = (u128)a * b / c;

	return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

void
share_divide(uint64_t rate, const struct share_peer *p, uint32_t n, uint64_t *out)
{
	uint32_t order[SHARE_MAX_PEERS], np = 0, i, j, k;
	uint64_t reserved = 0, floors = 0, cap, rem, stat_p = 0, d[SHARE_MAX_PEERS];
	u128 w_left = 0, w_all;

	if (n > SHARE_MAX_PEERS)
		n = SHARE_MAX_PEERS;
	for (i = 0; i < n; i++) {
		out[i] = 0;
		if (!p[i].present) {
			out[i] = p[i].stat;
			reserved += p[i].stat;
		}
	}
	cap = reserved >= rate ? 0 : rate - reserved;
	for (i = 0; i < n; i++) {
		if (!p[i].present)
			continue;
		floors += p[i].stat / SHARE_FLOOR_DIV;
		stat_p += p[i].stat;
		order[np++] = i;
	}
	if (np == 0)
		return;
	if (floors >= cap) {
		/* Not even the floors fit: split what there is by static share. */
		for (k = 0; k < np; k++)
			out[order[k]] = stat_p ? muldiv(cap, p[order[k]].stat, stat_p) : cap / np;
		return;
	}
	rem = cap - floors;
	/* Insertion sort by demand / weight (beyond the floor), ascending. */
	for (k = 0; k < np; k++) {
		i = order[k];
		out[i] = p[i].stat / SHARE_FLOOR_DIV;
		d[i] = p[i].demand > out[i] ? p[i].demand - out[i] : 0;
		w_left += weight_of(&p[i]);
	}
	for (k = 1; k < np; k++) {
		i = order[k];
		for (j = k; j > 0; j--) {
			uint32_t o = order[j - 1];

			if ((u128)d[o] * weight_of(&p[i]) <= (u128)d[i] * weight_of(&p[o]))
				break;
			order[j] = o;
		}
		order[j] = i;
	}
	w_all = w_left;
	/* Water filling: the least demanding (per weight) first. */
	for (k = 0; k < np; k++) {
		i = order[k];
		if ((u128)d[i] * w_left <= (u128)rem * weight_of(&p[i])) {
			out[i] += d[i];
			rem -= d[i];
			w_left -= weight_of(&p[i]);
			continue;
		}
		/* Every peer from here on wants more than its weighted part. */
		{
			uint64_t level_rem = rem;

			for (j = k; j < np; j++)
				out[order[j]] += muldiv(level_rem, weight_of(&p[order[j]]), w_left);
		}
		return;
	}
	/* Every demand met: what is left, by weight (work-conserving on paper). */
	for (k = 0; k < np; k++)
		out[order[k]] += muldiv(rem, weight_of(&p[order[k]]), w_all);
}

uint64_t
share_step(uint64_t rate, const struct share_peer *p, uint32_t n, uint32_t self,
	   const uint64_t *target, const uint64_t *applied)
{
	uint64_t used = 0, need = 0, inc, head, give;
	uint32_t i;

	if (target[self] <= applied[self])
		return target[self];
	for (i = 0; i < n; i++) {
		if (i != self && !p[i].present) {
			used += p[i].stat;
			continue;
		}
		used += applied[i];
		if (target[i] > applied[i])
			need += target[i] - applied[i];
	}
	if (used >= rate)
		return applied[self];
	head = rate - used;
	inc = target[self] - applied[self];
	give = head >= need ? inc : muldiv(head, inc, need);
	return applied[self] + (give < inc ? give : inc);
}

int
share_view_consistent(uint32_t present_mask, const uint32_t *heard, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n && i < SHARE_MAX_PEERS; i++)
		if ((present_mask >> i & 1) && heard[i] != present_mask)
			return 0;
	return 1;
}

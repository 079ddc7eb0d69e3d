/*
 * IPoE ARP ping (arpping.h): the control thread's checks of idle subscribers
 * and the ARP request it sends them.
 */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "arpping.h"
#include "rewrite.h"

#define ARPPING_MAX_CAPACITY (1u << 24)

int
arpping_request_build(uint8_t *buf, size_t cap, const struct dp_session *s, uint8_t pcp,
		      uint32_t gw)
{
	uint8_t *arp = buf + RW_IPOE_LEN;

	if (!s->encap.ipoe)
		return -EINVAL;
	if (cap < ARPPING_MIN_FRAME)
		return -ENOSPC;
	memset(buf, 0, ARPPING_MIN_FRAME);
	memcpy(buf, s->encap.hdr, RW_IPOE_LEN);
	buf[RW_STAG_TCI_OFF] = (uint8_t)((buf[RW_STAG_TCI_OFF] & 0x1f) | (pcp & 7) << 5);
	buf[RW_CTAG_TCI_OFF] = (uint8_t)((buf[RW_CTAG_TCI_OFF] & 0x1f) | (pcp & 7) << 5);
	buf[RW_IPOE_LEN - 2] = 0x08; /* Ethertype ARP */
	buf[RW_IPOE_LEN - 1] = 0x06;
	arp[1] = 1;    /* hardware Ethernet */
	arp[2] = 0x08; /* protocol IPv4 */
	arp[4] = 6;
	arp[5] = 4;
	arp[7] = 1;			      /* request */
	memcpy(arp + 8, s->encap.hdr + 6, 6); /* sender: the AC MAC */
	memcpy(arp + 14, &gw, 4);
	memcpy(arp + 18, s->mac, 6);
	memcpy(arp + 24, &s->ipv4, 4);
	return ARPPING_MIN_FRAME;
}

struct arpping *
arpping_create(uint32_t capacity, int socket)
{
	struct arpping *p;
	uint32_t i;

	if (capacity == 0)
		capacity = SESSION_DEFAULT_CAPACITY;
	if (capacity > ARPPING_MAX_CAPACITY) {
		rte_errno = EINVAL;
		return NULL;
	}
	p = rte_zmalloc_socket("arpping", sizeof(*p), RTE_CACHE_LINE_SIZE, socket);
	if (p == NULL)
		goto nomem;
	p->capacity = capacity;
	p->pcp = ARPPING_DEFAULT_PCP;
	p->max_visits = ARPPING_DEFAULT_MAX_VISITS;
	p->max_actions = ARPPING_DEFAULT_MAX_ACTIONS;
	p->heard = rte_zmalloc_socket("arpping_heard", sizeof(*p->heard) * capacity,
				      RTE_CACHE_LINE_SIZE, socket);
	p->ent = rte_zmalloc_socket("arpping_ent", sizeof(*p->ent) * capacity, RTE_CACHE_LINE_SIZE,
				    socket);
	p->on = rte_malloc_socket("arpping_on", sizeof(*p->on) * capacity, RTE_CACHE_LINE_SIZE,
				  socket);
	p->pos = rte_malloc_socket("arpping_pos", sizeof(*p->pos) * capacity, RTE_CACHE_LINE_SIZE,
				   socket);
	if (p->heard == NULL || p->ent == NULL || p->on == NULL || p->pos == NULL)
		goto nomem;
	for (i = 0; i < capacity; i++)
		p->pos[i] = ARPPING_NIL;
	return p;
nomem:
	arpping_free(p);
	rte_errno = ENOMEM;
	return NULL;
}

void
arpping_free(struct arpping *p)
{
	if (p == NULL)
		return;
	rte_free(p->heard);
	rte_free(p->ent);
	rte_free(p->on);
	rte_free(p->pos);
	rte_free(p);
}

int
arpping_enable(struct arpping *p, uint32_t id, uint16_t interval_s, uint8_t count, uint64_t pkts_up,
	       uint64_t now_ms)
{
	struct arpping_ent *e;

	if (id >= p->capacity || interval_s == 0 || count == 0)
		return -EINVAL;
	e = &p->ent[id];
	memset(e, 0, sizeof(*e));
	e->interval_s = interval_s;
	e->count = count;
	e->seen_pkts = pkts_up;
	e->seen_heard = __atomic_load_n(&p->heard[id], __ATOMIC_RELAXED);
	e->due_ms = now_ms + (uint64_t)interval_s * 1000;
	if (p->pos[id] == ARPPING_NIL) {
		p->pos[id] = p->n_on;
		p->on[p->n_on++] = id;
	}
	return 0;
}

/* Off the dense list (swap-remove); the cursor keeps its place. */
static void
arpping_unlist(struct arpping *p, uint32_t id)
{
	uint32_t i = p->pos[id], last;

	if (i == ARPPING_NIL)
		return;
	last = p->on[--p->n_on];
	p->on[i] = last;
	p->pos[last] = i;
	p->pos[id] = ARPPING_NIL;
}

void
arpping_disable(struct arpping *p, uint32_t id)
{
	if (id >= p->capacity)
		return;
	arpping_unlist(p, id);
	p->ent[id].pending = 0;
	p->ent[id].missed = 0;
}

/* One due entry: 1 when it left the list (dead or gone). */
static int
arpping_fire(struct arpping *p, uint32_t id, uint64_t now_ms, const struct arpping_ops *ops,
	     void *arg)
{
	struct arpping_ent *e = &p->ent[id];
	const struct dp_session *s = ops->session(arg, id);
	uint8_t frame[ARPPING_FRAME_LEN];
	uint64_t pkts;
	uint32_t heard;
	int n;

	if (s == NULL) {
		p->st.no_session++;
		arpping_unlist(p, id);
		return 1;
	}
	pkts = __atomic_load_n(&s->pkts_up, __ATOMIC_RELAXED);
	heard = __atomic_load_n(&p->heard[id], __ATOMIC_RELAXED);
	e->due_ms = now_ms + (uint64_t)e->interval_s * 1000;
	if (pkts != e->seen_pkts || heard != e->seen_heard) {
		e->seen_pkts = pkts;
		e->seen_heard = heard;
		e->missed = 0;
		e->pending = 0;
		p->st.heard++;
		return 0; /* not idle: no ping, next check an interval later */
	}
	if (e->pending) {
		e->missed++;
		p->st.missed++;
	}
	e->pending = 0;
	if (e->missed >= e->count) {
		e->dead = 1;
		arpping_unlist(p, id);
		p->st.dead++;
		ops->dead(arg, id);
		return 1;
	}
	n = arpping_request_build(frame, sizeof(frame), s, p->pcp, ops->gateway(arg, s));
	if (n > 0 && ops->send(arg, frame, (uint16_t)n) == 0) {
		e->pending = 1;
		p->st.request_sent++;
	} else {
		p->st.send_failed++;
	}
	return 0;
}

void
arpping_tick(struct arpping *p, uint64_t now_ms, const struct arpping_ops *ops, void *arg)
{
	uint32_t visits = 0, actions = 0, id;
	uint32_t limit = p->n_on < p->max_visits ? p->n_on : p->max_visits;

	while (p->n_on > 0 && visits < limit && actions < p->max_actions) {
		if (p->cursor >= p->n_on)
			p->cursor = 0;
		id = p->on[p->cursor];
		visits++;
		if (p->ent[id].due_ms > now_ms) {
			p->cursor++;
			continue;
		}
		actions++;
		/* an entry that left the list was replaced by the last one: same index */
		if (arpping_fire(p, id, now_ms, ops, arg) == 0)
			p->cursor++;
	}
}

int
arpping_get(const struct arpping *p, uint32_t id, struct arpping_info *out)
{
	const struct arpping_ent *e;

	if (id >= p->capacity)
		return -EINVAL;
	e = &p->ent[id];
	memset(out, 0, sizeof(*out));
	out->enabled = p->pos[id] != ARPPING_NIL;
	out->dead = e->dead;
	out->interval_s = e->interval_s;
	out->count = e->count;
	out->missed = e->missed;
	out->pending = e->pending;
	out->heard = __atomic_load_n(&p->heard[id], __ATOMIC_RELAXED);
	out->due_ms = e->due_ms;
	return 0;
}

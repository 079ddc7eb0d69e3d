/*
 * bng-dp ICMP errors generated in the data path (icmp.h).
 */

#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

#include "icmp.h"

const char *const icmp_kind_names[ICMP_KIND_MAX] = {
#define ICMP_KIND_DEF(sym, name) [ICMP_##sym] = name,
#include "icmp.def"
#undef ICMP_KIND_DEF
};

const char *const icmp_refuse_names[ICMP_REFUSE_MAX] = {
#define ICMP_REFUSE_DEF(sym, name) [ICMP_REFUSE_##sym] = name,
#include "icmp.def"
#undef ICMP_REFUSE_DEF
};

int
icmp_state_init(struct icmp_state *s, uint32_t rate, uint32_t burst, uint64_t tsc_hz,
		uint16_t id_seed)
{
	if (tsc_hz == 0)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->burst = burst > 0 ? burst : 1;
	s->tsc_per_token = rate > 0 ? tsc_hz / rate : 0;
	if (rate > 0 && s->tsc_per_token == 0)
		s->tsc_per_token = 1;
	s->tokens = rate > 0 ? s->burst : 0;
	s->next_id = id_seed;
	return 0;
}

/* Take one token, refilling first; 1 when there was one. */
int
icmp_take_token(struct icmp_state *s, uint64_t now)
{
	uint64_t add;

	if (s->tsc_per_token == 0)
		return 0;
	if (now > s->last_tsc) {
		add = (now - s->last_tsc) / s->tsc_per_token;
		if (add >= (uint64_t)(s->burst - s->tokens)) {
			s->tokens = s->burst;
			s->last_tsc = now;
		} else if (add > 0) {
			s->tokens += (uint32_t)add;
			s->last_tsc += add * s->tsc_per_token;
		}
	}
	if (s->tokens == 0)
		return 0;
	s->tokens--;
	return 1;
}

/*
 * RFC 1071 one's complement sum of n bytes, folded to 16 bits, in the byte
 * order of the data (store it with memcpy). Eight bytes per step with the
 * end-around carry in 64 bits: DPDK 22.11's rte_raw_cksum() adds 16 bits per
 * step, which made it two thirds of an ICMP error's instructions.
 */
static uint16_t
icmp_sum(const uint8_t *p, uint32_t n)
{
	uint64_t s = 0, v;
	uint32_t w;
	uint16_t h;

	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&v, p, sizeof(v));
		s += v;
		s += s < v;
	}
	if (n >= 4) {
		memcpy(&w, p, sizeof(w));
		s += w;
		s += s < w;
		p += 4;
		n -= 4;
	}
	if (n >= 2) {
		memcpy(&h, p, sizeof(h));
		s += h;
		s += s < h;
		p += 2;
		n -= 2;
	}
	if (n > 0) {
		h = 0;
		memcpy(&h, p, 1); /* the odd byte is the high half of a zero-padded word */
		s += h;
		s += s < h;
	}
	s = (s & 0xffffffffu) + (s >> 32);
	s = (s & 0xffffffffu) + (s >> 32);
	s = (s & 0xffffu) + (s >> 16);
	s = (s & 0xffffu) + (s >> 16);
	return (uint16_t)s;
}

/* ICMP types that are queries (answered); everything else counts as an error. */
static int
icmp_type_is_query(uint8_t type)
{
	switch (type) {
	case 0:	 /* echo reply */
	case 8:	 /* echo request */
	case 9:	 /* router advertisement */
	case 10: /* router solicitation */
	case 13: /* timestamp */
	case 14: /* timestamp reply */
	case 15: /* information request */
	case 16: /* information reply */
	case 17: /* address mask request */
	case 18: /* address mask reply */
		return 1;
	default:
		return 0;
	}
}

/* A source that names one host: not 0/8, 127/8, 224/4 or 240/4 (host order). */
static int
icmp_src_ok(uint32_t a)
{
	uint8_t top = (uint8_t)(a >> 24);

	return top != 0 && top != 127 && top < 224;
}

static enum icmp_refuse
icmp_refuse(struct icmp_counters *c, enum icmp_refuse why)
{
	c->refused[why]++;
	return why;
}

int
icmp_error(struct icmp_state *s, struct rte_mbuf *m, uint16_t l3_off, enum icmp_kind kind,
	   uint16_t mtu, uint32_t src_be, uint64_t now_tsc, struct icmp_counters *c)
{
	uint32_t data_len = rte_pktmbuf_data_len(m), avail, need, q, ihl, tot, src, dst;
	uint8_t *ip, *base, *icmp;
	uint16_t v16;

	if (kind >= ICMP_KIND_MAX || data_len < (uint32_t)l3_off + ICMP_IP_HDR_LEN) {
		icmp_refuse(c, ICMP_REFUSE_MALFORMED);
		return -EINVAL;
	}
	ip = rte_pktmbuf_mtod_offset(m, uint8_t *, l3_off);
	ihl = (uint32_t)(ip[0] & 0x0f) * 4;
	tot = (uint32_t)ip[2] << 8 | ip[3];
	if ((ip[0] >> 4) != 4 || ihl < ICMP_IP_HDR_LEN || tot < ihl ||
	    tot > rte_pktmbuf_pkt_len(m) - l3_off) {
		icmp_refuse(c, ICMP_REFUSE_MALFORMED);
		return -EINVAL;
	}
	/* The quote: header + 8 data bytes at least, 548 at most, first segment only. */
	need = RTE_MIN(tot, ihl + ICMP_MIN_DATA);
	avail = RTE_MIN(tot, data_len - l3_off);
	if (avail < need) {
		icmp_refuse(c, ICMP_REFUSE_MALFORMED);
		return -EINVAL;
	}
	/* Fragment offset (13 bits) not zero: a later fragment. */
	if (((ip[6] & 0x1f) | ip[7]) != 0) {
		icmp_refuse(c, ICMP_REFUSE_FRAGMENT);
		return -EPERM;
	}
	if (ip[9] == IPPROTO_ICMP && (tot == ihl || !icmp_type_is_query(ip[ihl]))) {
		icmp_refuse(c, ICMP_REFUSE_ICMP_ERROR);
		return -EPERM;
	}
	src = (uint32_t)ip[12] << 24 | (uint32_t)ip[13] << 16 | (uint32_t)ip[14] << 8 | ip[15];
	dst = (uint32_t)ip[16] << 24 | (uint32_t)ip[17] << 16 | (uint32_t)ip[18] << 8 | ip[19];
	if (!icmp_src_ok(src)) {
		icmp_refuse(c, ICMP_REFUSE_SOURCE);
		return -EPERM;
	}
	if ((dst >> 28) == 0xe || dst == 0xffffffffu) {
		icmp_refuse(c, ICMP_REFUSE_DEST);
		return -EPERM;
	}
	q = RTE_MIN(avail, (uint32_t)ICMP_MAX_QUOTE);
	/* Room: a shared or indirect buffer is not ours to write. */
	if (!RTE_MBUF_DIRECT(m) || rte_mbuf_refcnt_read(m) != 1) {
		icmp_refuse(c, ICMP_REFUSE_NO_ROOM);
		return -ENOSPC;
	}
	if (rte_pktmbuf_headroom(m) < ICMP_ROOM) {
		uint32_t room = data_len + rte_pktmbuf_tailroom(m) - l3_off - ICMP_ROOM;

		if (data_len + rte_pktmbuf_tailroom(m) < (uint32_t)l3_off + ICMP_ROOM + need) {
			icmp_refuse(c, ICMP_REFUSE_NO_ROOM);
			return -ENOSPC;
		}
		q = RTE_MIN(q, room);
	}
	if (!icmp_take_token(s, now_tsc)) {
		icmp_refuse(c, ICMP_REFUSE_RATE);
		return -EBUSY;
	}

	/* From here on the packet changes and nothing fails. */
	if (rte_pktmbuf_headroom(m) >= ICMP_ROOM) {
		base = (uint8_t *)rte_pktmbuf_prepend(m, ICMP_ROOM);
		memmove(base, base + ICMP_ROOM, l3_off);
		ip = base + l3_off;
	} else {
		base = rte_pktmbuf_mtod(m, uint8_t *);
		ip = base + l3_off;
		memmove(ip + ICMP_ROOM, ip, q);
	}
	if (m->next != NULL) {
		rte_pktmbuf_free(m->next);
		m->next = NULL;
		m->nb_segs = 1;
	}
	m->data_len = (uint16_t)(l3_off + ICMP_ROOM + q);
	m->pkt_len = m->data_len;

	/* ICMP header and checksum over header + quote. */
	icmp = ip + ICMP_IP_HDR_LEN;
	memset(icmp, 0, ICMP_HDR_LEN);
	if (kind == ICMP_TIME_EXCEEDED) {
		icmp[0] = ICMP_TYPE_TIME_EXCEEDED;
		icmp[1] = ICMP_CODE_TTL_EXCEEDED;
	} else {
		icmp[0] = ICMP_TYPE_DEST_UNREACH;
		icmp[1] = ICMP_CODE_FRAG_NEEDED;
		icmp[6] = (uint8_t)(mtu >> 8);
		icmp[7] = (uint8_t)mtu;
	}
	v16 = (uint16_t)~icmp_sum(icmp, ICMP_HDR_LEN + q);
	memcpy(icmp + 2, &v16, sizeof(v16));

	/* IPv4 header: to the original source, from src_be. */
	ip[0] = 0x45;
	ip[1] = ICMP_TOS;
	ip[2] = (uint8_t)((ICMP_ROOM + q) >> 8);
	ip[3] = (uint8_t)(ICMP_ROOM + q);
	ip[4] = (uint8_t)(s->next_id >> 8);
	ip[5] = (uint8_t)s->next_id;
	s->next_id++;
	ip[6] = 0;
	ip[7] = 0;
	ip[8] = ICMP_TTL;
	ip[9] = IPPROTO_ICMP;
	ip[10] = 0;
	ip[11] = 0;
	ip[16] = (uint8_t)(src >> 24);
	ip[17] = (uint8_t)(src >> 16);
	ip[18] = (uint8_t)(src >> 8);
	ip[19] = (uint8_t)src;
	memcpy(ip + 12, &src_be, sizeof(src_be));
	v16 = (uint16_t)~icmp_sum(ip, ICMP_IP_HDR_LEN);
	memcpy(ip + 10, &v16, sizeof(v16));
	c->sent[kind]++;
	return 0;
}

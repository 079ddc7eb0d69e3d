/* Receive-side analysis (rxstats.h). Runs on the main lcore; no allocation after init. */
#include "rxstats.h"

#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

int
lr_rx_init(struct lr_rx *rx, uint32_t n_streams)
{
	memset(rx, 0, sizeof(*rx));
	rx->st = calloc(n_streams, sizeof(*rx->st));
	if (!rx->st)
		return -1;
	rx->n = n_streams;
	lr_rx_reset(rx);
	return 0;
}

void
lr_rx_reset(struct lr_rx *rx)
{
	memset(rx->st, 0, (size_t)rx->n * sizeof(*rx->st));
	for (uint32_t i = 0; i < rx->n; i++)
		rx->st[i].lat_min = UINT64_MAX;
	memset(rx->hist, 0, sizeof(rx->hist));
	rx->other = rx->bad_stream = 0;
}

void
lr_rx_free(struct lr_rx *rx)
{
	free(rx->st);
	rx->st = NULL;
}

static inline int
win_test_set(struct lr_rx_stream *s, uint32_t seq)
{
	uint32_t bit = seq % LR_SEQ_WINDOW;
	uint64_t m = 1ull << (bit & 63);
	int was = (s->window[bit >> 6] & m) != 0;
	s->window[bit >> 6] |= m;
	return was;
}

static inline void
win_clear(struct lr_rx_stream *s, uint32_t seq)
{
	uint32_t bit = seq % LR_SEQ_WINDOW;
	s->window[bit >> 6] &= ~(1ull << (bit & 63));
}

void
lr_rx_record(struct lr_rx *rx, uint8_t group, uint16_t id, uint32_t seq, uint64_t lat_ns)
{
	if (id >= rx->n || group >= LR_GROUPS) {
		rx->bad_stream++;
		return;
	}
	struct lr_rx_stream *s = &rx->st[id];
	if (seq >= s->next) {
		/* a new highest: forget the window slots the step passes over */
		uint32_t gap = seq - s->next;
		if (gap >= LR_SEQ_WINDOW)
			memset(s->window, 0, sizeof(s->window));
		else
			for (uint32_t q = s->next; q < seq; q++)
				win_clear(s, q);
		win_clear(s, seq);
		win_test_set(s, seq);
		s->next = seq + 1;
	} else if (s->next - seq > LR_SEQ_WINDOW) {
		s->reordered++; /* too old to tell a duplicate */
	} else if (win_test_set(s, seq)) {
		s->dup++;
		return; /* a duplicate's latency is not the stream's */
	} else {
		s->reordered++;
	}
	s->rx++;
	if (lat_ns < s->lat_min)
		s->lat_min = lat_ns;
	if (lat_ns > s->lat_max)
		s->lat_max = lat_ns;
	s->lat_sum += lat_ns;
	struct lr_hist *h = &rx->hist[group];
	h->b[lr_hist_index(lat_ns)]++;
	h->count++;
}

uint32_t
lr_hist_index(uint64_t v)
{
	if (v < (1ull << LR_HIST_SUB_BITS))
		return (uint32_t)v;
	unsigned msb = 63u - (unsigned)__builtin_clzll(v);
	unsigned shift = msb - LR_HIST_SUB_BITS;
	uint32_t sub = (uint32_t)(v >> shift) & ((1u << LR_HIST_SUB_BITS) - 1u);
	return ((shift + 1u) << LR_HIST_SUB_BITS) + sub;
}

uint64_t
lr_hist_bucket_value(uint32_t idx)
{
	uint32_t block = idx >> LR_HIST_SUB_BITS, sub = idx & ((1u << LR_HIST_SUB_BITS) - 1u);
	if (block == 0)
		return sub;
	unsigned shift = block - 1u;
	uint64_t lo = ((uint64_t)(sub | (1u << LR_HIST_SUB_BITS))) << shift;
	return lo + ((1ull << shift) >> 1); /* the middle of the bucket */
}

uint64_t
lr_hist_quantile(const struct lr_hist *h, double q)
{
	if (h->count == 0)
		return 0;
	uint64_t rank = (uint64_t)(q * (double)h->count);
	if (rank >= h->count)
		rank = h->count - 1;
	uint64_t acc = 0;
	for (uint32_t i = 0; i < LR_HIST_BUCKETS; i++) {
		acc += h->b[i];
		if (acc > rank)
			return lr_hist_bucket_value(i);
	}
	return 0;
}

int
lr_rx_parse(const uint8_t *f, uint32_t len, struct lr_sig *sig)
{
	uint32_t off = 12;
	if (len < 14)
		return -1;
	uint16_t et = (uint16_t)(f[off] << 8 | f[off + 1]);
	for (int tags = 0; tags < 2 && (et == 0x8100 || et == 0x88a8); tags++) {
		off += 4;
		if (off + 2 > len)
			return -1;
		et = (uint16_t)(f[off] << 8 | f[off + 1]);
	}
	off += 2;
	if (et == 0x8864) {
		/* PPPoE session: ver/type, code 0, id, length, then PPP protocol IPv4 or IPv6 */
		if (off + 8 > len || f[off] != 0x11 || f[off + 1] != 0 || f[off + 6] != 0 ||
		    (f[off + 7] != 0x21 && f[off + 7] != 0x57))
			return -1;
		et = f[off + 7] == 0x21 ? 0x0800 : 0x86dd;
		off += 8;
	}
	if (et == 0x86dd) {
		/* IPv6 without extension headers, UDP */
		if (off + 40 > len || (f[off] >> 4) != 6 || f[off + 6] != 17)
			return -1;
		off += 40 + 8;
	} else if (et == 0x0800) {
		if (off + 20 > len || (f[off] >> 4) != 4 || f[off + 9] != 17)
			return -1;
		uint32_t ihl = (uint32_t)(f[off] & 0xf) * 4;
		if (ihl < 20)
			return -1;
		off += ihl + 8;
	} else {
		return -1;
	}
	if (off + sizeof(*sig) > len)
		return -1;
	memcpy(sig, f + off, sizeof(*sig));
	if (rte_be_to_cpu_16(sig->magic) != LR_MAGIC)
		return -1;
	sig->stream = rte_be_to_cpu_16(sig->stream);
	sig->seq = rte_be_to_cpu_32(sig->seq);
	return 0;
}

int
lr_lcp_echo_reply(uint8_t *f, uint32_t len, uint32_t magic)
{
	uint32_t off = 12;
	/* up to two VLAN tags (802.1ad or 802.1Q outer, 802.1Q inner) */
	for (int tags = 0; tags < 2 && off + 4 <= len; tags++) {
		uint16_t tpid = (uint16_t)(f[off] << 8 | f[off + 1]);
		if (tpid != 0x8100 && tpid != 0x88a8)
			break;
		off += 4;
	}
	/* EtherType 2, PPPoE 6, PPP protocol 2, LCP code/id/length 4, magic 4 */
	if (off + 2 + 6 + 2 + 8 > len || f[off] != 0x88 || f[off + 1] != 0x64)
		return 0;
	uint8_t *pppoe = f + off + 2, *ppp = pppoe + 6, *lcp = ppp + 2;
	uint32_t plen = (uint32_t)(pppoe[4] << 8 | pppoe[5]);
	uint32_t llen = (uint32_t)(lcp[2] << 8 | lcp[3]);
	if (pppoe[0] != 0x11 || pppoe[1] != 0 || ppp[0] != 0xc0 || ppp[1] != 0x21 || lcp[0] != 9 ||
	    llen < 8 || plen < 2 + llen || (uint32_t)(lcp - f) + llen > len)
		return 0;
	uint8_t mac[6];
	memcpy(mac, f, 6);
	memcpy(f, f + 6, 6);
	memcpy(f + 6, mac, 6);
	lcp[0] = 10;
	lcp[4] = (uint8_t)(magic >> 24);
	lcp[5] = (uint8_t)(magic >> 16);
	lcp[6] = (uint8_t)(magic >> 8);
	lcp[7] = (uint8_t)magic;
	return 1;
}

/* sum of the ICMPv6 message at ip + 40 (plen bytes) with the pseudo-header, not inverted */
static uint16_t
icmp6_sum(const uint8_t *ip, uint32_t plen)
{
	uint32_t sum = __rte_raw_cksum(ip + 8, 32, 0); /* source and destination */
	sum += rte_cpu_to_be_16((uint16_t)plen);       /* upper-layer length (< 64K) */
	sum += rte_cpu_to_be_16(58);		       /* next header */
	sum = __rte_raw_cksum(ip + 40, plen, sum);
	return __rte_raw_cksum_reduce(sum);
}

uint32_t
lr_nd_na_reply(uint8_t *f, uint32_t len, uint32_t cap, const uint8_t ip6[16], const uint8_t mac[6])
{
	uint32_t off = 12;
	if (len < 14)
		return 0;
	if (f[12] == 0x81 && f[13] == 0x00) /* one 802.1Q tag (a core VLAN) */
		off += 4;
	/* EtherType 2, IPv6 40, NS 24 (type, code, checksum, reserved, target) */
	if (off + 2 + 40 + 24 > len || f[off] != 0x86 || f[off + 1] != 0xdd)
		return 0;
	uint8_t *ip = f + off + 2, *ns = ip + 40;
	uint32_t plen = (uint32_t)(ip[4] << 8 | ip[5]);
	if ((ip[0] >> 4) != 6 || ip[6] != 58 || ip[7] != 255 || plen < 24 ||
	    (uint32_t)(ns - f) + plen > len || ns[0] != 135 || ns[1] != 0 ||
	    memcmp(ns + 8, ip6, 16) != 0 || icmp6_sum(ip, plen) != 0xffff)
		return 0;
	/* options: each of a non-zero length within the message (RFC 4861 4.3) */
	for (uint32_t o = 24; o < plen;) {
		if (o + 2 > plen || ns[o + 1] == 0 || o + ns[o + 1] * 8u > plen)
			return 0;
		o += ns[o + 1] * 8u;
	}
	static const uint8_t unspec[16];
	int dad = memcmp(ip + 8, unspec, 16) == 0;
	/* the Neighbor Advertisement, written over the solicitation: 14 (+4) + 40 + 32 bytes */
	uint32_t n = (uint32_t)(ns - f) + 32;
	if (n > cap)
		return 0;
	memcpy(f, f + 6, 6); /* to the solicitor's MAC */
	memcpy(f + 6, mac, 6);
	if (dad) { /* to all nodes */
		static const uint8_t all[16] = {0xff, 2, [15] = 1};
		memcpy(ip + 24, all, 16);
		f[0] = 0x33, f[1] = 0x33, f[2] = 0, f[3] = 0, f[4] = 0, f[5] = 1;
	} else {
		memcpy(ip + 24, ip + 8, 16);
	}
	memcpy(ip + 8, ip6, 16);
	ip[4] = 0, ip[5] = 32;
	ns[0] = 136, ns[1] = 0, ns[2] = ns[3] = 0;
	ns[4] = dad ? 0xa0 : 0xe0; /* router, solicited (not for DAD), override */
	ns[5] = ns[6] = ns[7] = 0;
	/* target (ns + 8) kept: it is ip6 */
	ns[24] = 2, ns[25] = 1; /* target link-layer address */
	memcpy(ns + 26, mac, 6);
	uint16_t ck = (uint16_t)~icmp6_sum(ip, 32);
	memcpy(ns + 2, &ck, 2);
	return n;
}

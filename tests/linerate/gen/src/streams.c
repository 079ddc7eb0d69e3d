/* Stream file loading and frame building (streams.h). Runs on the main lcore: loading at
 * start, building per frame (no allocation, no system call). */
#include "streams.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static int
parse_line(char *line, struct lr_stream *s, uint32_t *id, char *why, size_t whylen)
{
	long v[6];
	char *p = line, *end;
	for (int i = 0; i < 6; i++) {
		errno = 0;
		v[i] = strtol(p, &end, 10);
		if (end == p || errno) {
			snprintf(why, whylen, "field %d is not a number", i + 1);
			return -1;
		}
		p = end;
	}
	if (v[0] < 0 || v[0] >= (long)LR_MAX_STREAMS || v[1] < 0 || v[1] >= RTE_MAX_ETHPORTS ||
	    v[2] < 0 || v[2] >= (long)LR_GROUPS || v[3] < -64 || v[3] > 64 || v[4] < -1 ||
	    v[4] > 80 || v[5] < 14 || v[5] > 80) {
		snprintf(why, whylen, "a field is out of range");
		return -1;
	}
	while (isspace((unsigned char)*p))
		p++;
	size_t n = 0;
	while (p[0] && !isspace((unsigned char)p[0])) {
		int hi = hexval(p[0]), lo = p[1] ? hexval(p[1]) : -1;
		if (hi < 0 || lo < 0 || n >= LR_MAX_HDR) {
			snprintf(why, whylen, "bad or too long header hex");
			return -1;
		}
		s->hdr[n++] = (uint8_t)(hi << 4 | lo);
		p += 2;
	}
	*id = (uint32_t)v[0];
	s->tx_port = (uint16_t)v[1];
	s->group = (uint8_t)v[2];
	s->size_adjust = (int16_t)v[3];
	s->pppoe_off = (int16_t)v[4];
	s->l3_off = (uint16_t)v[5];
	s->v6 = n > s->l3_off && (s->hdr[s->l3_off] >> 4) == 6;
	s->hdr_len = (uint16_t)(s->l3_off + (s->v6 ? 48 : 28));
	if (n != s->hdr_len) {
		snprintf(why, whylen, "header is %zu bytes, l3_off + IP %u + UDP 8 is %u", n,
			 s->v6 ? 40u : 20u, s->hdr_len);
		return -1;
	}
	if (s->pppoe_off >= 0 && s->pppoe_off + 8 > s->l3_off) {
		snprintf(why, whylen, "PPPoE header overlaps IP");
		return -1;
	}
	if (s->v6) {
		if (s->hdr[s->l3_off + 6] != IPPROTO_UDP) {
			snprintf(why, whylen, "not an IPv6 header carrying UDP");
			return -1;
		}
	} else if ((s->hdr[s->l3_off] >> 4) != 4 || (s->hdr[s->l3_off] & 0xf) != 5 ||
		   s->hdr[s->l3_off + 9] != IPPROTO_UDP) {
		snprintf(why, whylen, "not an IPv4 header without options carrying UDP");
		return -1;
	}
	return 0;
}

int
lr_streams_load(const char *path, struct lr_stream_table *t, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	t->s = calloc(LR_MAX_STREAMS, sizeof(*t->s));
	for (unsigned g = 0; g < LR_GROUPS; g++)
		t->by_group[g] = calloc(LR_MAX_STREAMS, sizeof(uint32_t));
	int nomem = !t->s;
	for (unsigned g = 0; g < LR_GROUPS; g++)
		nomem |= !t->by_group[g];
	if (nomem) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	char line[512], why[128];
	unsigned lineno = 0;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		char *p = line;
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '#' || *p == 0)
			continue;
		if (!strchr(line, '\n') && !feof(f)) {
			snprintf(err, errlen, "%s:%u: line too long", path, lineno);
			goto fail;
		}
		struct lr_stream s = {0};
		uint32_t id;
		if (parse_line(p, &s, &id, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "%s:%u: %s", path, lineno, why);
			goto fail;
		}
		if (id != t->n) {
			snprintf(err, errlen, "%s:%u: stream id %u, expected %u (dense, in order)",
				 path, lineno, id, t->n);
			goto fail;
		}
		t->s[t->n++] = s;
		t->by_group[s.group][t->n_group[s.group]++] = id;
	}
	fclose(f);
	if (t->n == 0) {
		snprintf(err, errlen, "%s: no streams", path);
		lr_streams_free(t);
		return -1;
	}
	return 0;
fail:
	fclose(f);
	lr_streams_free(t);
	return -1;
}

void
lr_streams_free(struct lr_stream_table *t)
{
	free(t->s);
	for (unsigned g = 0; g < LR_GROUPS; g++)
		free(t->by_group[g]);
	memset(t, 0, sizeof(*t));
}

uint16_t
lr_stream_frame_len(const struct lr_stream *s, uint32_t size)
{
	int len = (int)size + s->size_adjust - (int)LR_FCS;
	int min = s->hdr_len + (int)sizeof(struct lr_sig);
	if (min < (int)(LR_MIN_FRAME - LR_FCS))
		min = LR_MIN_FRAME - LR_FCS;
	if (len < min)
		len = min;
	if (len > (int)(LR_MAX_FRAME - LR_FCS) + (s->pppoe_off >= 0 ? 16 : 0))
		len = (int)(LR_MAX_FRAME - LR_FCS) + (s->pppoe_off >= 0 ? 16 : 0);
	return (uint16_t)len;
}

void
lr_stream_build(const struct lr_stream *s, uint16_t id, uint8_t *buf, uint16_t len, uint32_t seq,
		uint64_t tsc)
{
	memcpy(buf, s->hdr, s->hdr_len);
	uint16_t ip_len = (uint16_t)(len - s->l3_off);
	if (s->pppoe_off >= 0) {
		/* the PPPoE payload: PPP protocol (2) + IPv4 */
		uint16_t pl = (uint16_t)(ip_len + 2);
		buf[s->pppoe_off + 4] = (uint8_t)(pl >> 8);
		buf[s->pppoe_off + 5] = (uint8_t)pl;
	}
	uint8_t *udp;
	uint16_t udp_len;
	if (s->v6) {
		struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)(buf + s->l3_off);
		udp_len = (uint16_t)(ip_len - 40);
		ip6->payload_len = rte_cpu_to_be_16(udp_len);
		udp = buf + s->l3_off + 40;
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(buf + s->l3_off);
		ip->total_length = rte_cpu_to_be_16(ip_len);
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		udp = buf + s->l3_off + 20;
		udp_len = (uint16_t)(ip_len - 20);
	}
	udp[4] = (uint8_t)(udp_len >> 8);
	udp[5] = (uint8_t)udp_len;
	udp[6] = udp[7] = 0; /* IPv4: no UDP checksum */
	struct lr_sig sig = {
		.magic = rte_cpu_to_be_16(LR_MAGIC),
		.stream = rte_cpu_to_be_16(id),
		.seq = rte_cpu_to_be_32(seq),
		.tsc = tsc,
	};
	memcpy(buf + s->hdr_len, &sig, sizeof(sig));
	memset(buf + s->hdr_len + sizeof(sig), 0, (size_t)(len - s->hdr_len - sizeof(sig)));
	if (s->v6) {
		/* the padding is zeros: the sum over the pseudo-header, the UDP header and the
		 * signature is the sum over the whole datagram */
		uint32_t sum =
			rte_ipv6_phdr_cksum((const struct rte_ipv6_hdr *)(buf + s->l3_off), 0);
		sum = __rte_raw_cksum(udp, 8 + sizeof(sig), sum);
		uint16_t ck = (uint16_t)~__rte_raw_cksum_reduce(sum);
		if (ck == 0)
			ck = 0xffff;
		memcpy(udp + 6, &ck, 2);
	}
}

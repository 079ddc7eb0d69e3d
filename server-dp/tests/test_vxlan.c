/*
 * Tests of the VXLAN control redirect codec and the inject guard (vxlan.h).
 *
 * usage: test_vxlan FIXTURE_DIR [SEED_DIR]
 *
 * SEED_DIR, when given, receives every frame of the inject table inside a
 * VXLAN datagram as a seed of fuzz/fuzz_ctl.c (layout in tests/ctl_frames.h).
 *
 * No EAL. Frames the CP would send are written byte by byte on the lines of
 * the lab fixture (line 0: S 300, C 2000-4094; line 1: S 400-449, any C;
 * AC MAC 02:bb:00:00:00:04), then mutated one field at a time. Covers: the
 * header byte for byte, round trips, encapsulation in place, every encap
 * error, every decap refusal and the reserved-bits counter, every inject
 * refusal (one row each, counted by reason) and the accepted frames.
 * The last line of output is "N passed, M failed".
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_frames.h"
#include "harness.h"
#include "vxlan.h"

static struct dp_config *cfg;
static struct line_map *lmap;
static const char *seed_dir;

static const uint8_t SUB_MAC[6] = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};

/* --- codec ------------------------------------------------------------------- */

static void
test_codec(void)
{
	static uint8_t dgram[VXLAN_HLEN + VXLAN_MAX_INNER + 8], frame[VXLAN_MAX_INNER + 8];
	static const uint8_t hdr4[8] = {0x08, 0, 0, 0, 0, 0, 4, 0};
	struct vxlan_counters c = {0};
	const uint8_t *in;
	uint16_t flen;
	size_t n, i;
	int len;

	for (i = 0; i < sizeof(frame); i++)
		frame[i] = (uint8_t)(i * 13 + 1);
	n = ctl_disc_frame(frame, SUB_MAC, LAB_AC_MAC, 0x8100, 300, 2000, VXLAN_PADO, 0, 20);

	len = vxlan_encap(dgram, sizeof(dgram), LAB_VNI, frame, (uint16_t)n);
	check(len == (int)(8 + n) && memcmp(dgram, hdr4, 8) == 0 &&
		      memcmp(dgram + 8, frame, n) == 0,
	      "encap", "header 08 000000 000004 00, frame after it");
	check(vxlan_decap(dgram, (size_t)len, LAB_VNI, &in, &flen, &c) == 0 && in == dgram + 8 &&
		      flen == n && c.c[VXLAN_DECAP_OK] == 1,
	      "round trip", "decap gives the frame back");

	/* VNI edges, in-place encapsulation. */
	len = vxlan_encap(dgram, sizeof(dgram), VXLAN_MAX_VNI, frame, VXLAN_MAX_INNER);
	check(len == 8 + VXLAN_MAX_INNER && dgram[4] == 0xff && dgram[5] == 0xff &&
		      dgram[6] == 0xff,
	      "encap", "VNI 2^24-1, largest frame");
	check(vxlan_decap(dgram, (size_t)len, VXLAN_MAX_VNI, &in, &flen, &c) == 0 &&
		      flen == VXLAN_MAX_INNER,
	      "round trip", "largest frame");
	memcpy(dgram + 8, frame, n);
	len = vxlan_encap(dgram, sizeof(dgram), 1, dgram + 8, (uint16_t)n);
	check(len == (int)(8 + n) && memcmp(dgram + 8, frame, n) == 0 && dgram[6] == 1, "encap",
	      "in place after 8 bytes of headroom");
	memcpy(dgram + 4, frame, n);
	len = vxlan_encap(dgram, sizeof(dgram), 1, dgram + 4, (uint16_t)n);
	check(len == (int)(8 + n) && memcmp(dgram + 8, frame, n) == 0, "encap", "overlapping");

	check(vxlan_encap(dgram, sizeof(dgram), 0, frame, (uint16_t)n) == -EINVAL, "encap",
	      "VNI 0");
	check(vxlan_encap(dgram, sizeof(dgram), VXLAN_MAX_VNI + 1, frame, (uint16_t)n) == -EINVAL,
	      "encap", "VNI 2^24");
	check(vxlan_encap(dgram, sizeof(dgram), 4, frame, VXLAN_MIN_INNER - 1) == -EINVAL, "encap",
	      "frame of 21 bytes");
	check(vxlan_encap(dgram, sizeof(dgram), 4, frame, VXLAN_MAX_INNER + 1) == -EINVAL, "encap",
	      "frame above the maximum");
	check(vxlan_encap(dgram, 8 + n - 1, 4, frame, (uint16_t)n) == -ENOSPC, "encap",
	      "no room: -ENOSPC");
	check(vxlan_encap(dgram, 8 + n, 4, frame, (uint16_t)n) == (int)(8 + n), "encap",
	      "exact room");

	/* Decap refusals, each counted. */
	memset(&c, 0, sizeof(c));
	len = vxlan_encap(dgram, sizeof(dgram), 4, frame, (uint16_t)n);
	for (i = 0; i < 8; i++)
		check(vxlan_decap(dgram, i, 4, &in, &flen, &c) == -EINVAL, "decap", "short header");
	check(c.c[VXLAN_DECAP_SHORT] == 8, "decap", "short counted");
	check(vxlan_decap(dgram, (size_t)len, 5, &in, &flen, &c) == -EINVAL &&
		      vxlan_decap(dgram, (size_t)len, 4 | 1u << 24, &in, &flen, &c) == -EINVAL &&
		      c.c[VXLAN_DECAP_WRONG_VNI] == 2,
	      "decap", "wrong VNI");
	check(vxlan_decap(dgram, 8 + VXLAN_MIN_INNER - 1, 4, &in, &flen, &c) == -EINVAL &&
		      c.c[VXLAN_DECAP_INNER_SHORT] == 1,
	      "decap", "inner frame of 21 bytes");
	check(vxlan_decap(dgram, 8 + VXLAN_MIN_INNER, 4, &in, &flen, &c) == 0 &&
		      flen == VXLAN_MIN_INNER,
	      "decap", "inner frame of 22 bytes");
	check(vxlan_decap(dgram, 8 + VXLAN_MAX_INNER + 1, 4, &in, &flen, &c) == -EINVAL &&
		      c.c[VXLAN_DECAP_INNER_LONG] == 1,
	      "decap", "inner frame above the maximum");
	dgram[0] = 0x00;
	check(vxlan_decap(dgram, (size_t)len, 4, &in, &flen, &c) == -EINVAL &&
		      c.c[VXLAN_DECAP_NO_I_FLAG] == 1,
	      "decap", "I flag clear");
	dgram[0] = 0xf7; /* every bit but I */
	check(vxlan_decap(dgram, (size_t)len, 4, &in, &flen, &c) == -EINVAL &&
		      c.c[VXLAN_DECAP_NO_I_FLAG] == 2,
	      "decap", "other flags without I");
	check(c.c[VXLAN_DECAP_RESERVED_SET] == 0, "decap", "no reserved count yet");
	{
		static const struct {
			int at;
			uint8_t v;
		} res[] = {{0, 0x88}, {0, 0x0c}, {1, 1}, {2, 0x80}, {3, 0xff}, {7, 1}};

		for (i = 0; i < sizeof(res) / sizeof(res[0]); i++) {
			len = vxlan_encap(dgram, sizeof(dgram), 4, frame, (uint16_t)n);
			dgram[res[i].at] = res[i].v;
			check(vxlan_decap(dgram, (size_t)len, 4, &in, &flen, &c) == 0 && flen == n,
			      "decap", "reserved bit set: accepted (RFC 7348)");
		}
		check(c.c[VXLAN_DECAP_RESERVED_SET] == i, "decap", "reserved bits counted");
	}
	check(vxlan_decap(dgram, (size_t)len, 4, &in, &flen, NULL) == 0, "decap",
	      "counters optional");
}

/* --- inject guard ----------------------------------------------------------- */

enum base {
	B_PADO,
	B_PADS,
	B_PADT,
	B_LCP,
	B_PAP,
	B_CHAP,
	B_IPCP,
	B_IPV6CP,
	B_IPV4,
	B_IPV6,
	/* IPv6 of the CP (PPP 0x0057): its answers on the session */
	B_RA,	      /* ICMPv6 134 from fe80::1, hop limit 255 */
	B_NA,	      /* ICMPv6 136 from fe80::1, hop limit 255 */
	B_DHCP6,      /* UDP 547 -> 546 from fe80::1 */
	B_RA_GLOBAL,  /* the RA from a global source */
	B_RA_HOP64,   /* the RA with hop limit 64 */
	B_ECHO6,      /* ICMPv6 echo request from fe80::1 */
	B_UDP6_OTHER, /* UDP 547 -> 53 from fe80::1 */
	B_TCP6,	      /* TCP from fe80::1 */
	B_IPV6_SHORT, /* 39 bytes of IPv6 header */
	B_IPV6_PLEN,  /* payload length past the PPP payload */
};

/* The IPv6 packet of base b (B_RA..B_IPV6_PLEN) into p: its length. */
static size_t
cp_ipv6(uint8_t *p, enum base b)
{
	static const uint8_t ll[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
	static const uint8_t global[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
					   0,	 0,    0,    0,	   0, 0, 0, 1};
	size_t l4 = 16;

	memset(p, 0, 40 + l4);
	p[0] = 0x60;
	ctl_put16(p + 4, (unsigned int)l4);
	p[6] = 58;
	p[7] = 255;
	memcpy(p + 8, b == B_RA_GLOBAL ? global : ll, 16);
	p[24] = 0xff;
	p[25] = 0x02;
	p[39] = 1;
	p[40] = 134;
	switch (b) {
	case B_NA:
		p[40] = 136;
		break;
	case B_RA_HOP64:
		p[7] = 64;
		break;
	case B_ECHO6:
		p[40] = 128;
		break;
	case B_DHCP6:
	case B_UDP6_OTHER:
		p[6] = 17;
		ctl_put16(p + 40, 547);
		ctl_put16(p + 42, b == B_DHCP6 ? 546 : 53);
		ctl_put16(p + 44, (unsigned int)l4);
		break;
	case B_TCP6:
		p[6] = 6;
		break;
	case B_IPV6_SHORT:
		return 39;
	case B_IPV6_PLEN:
		ctl_put16(p + 4, (unsigned int)l4 + 1);
		break;
	default:
		break;
	}
	return 40 + l4;
}

/* A frame the CP sends as the AC: to the subscriber, tags of line 0 by default. */
static size_t
cp_frame(uint8_t *f, enum base b, unsigned int tpid, unsigned int stag, unsigned int ctag)
{
	static const uint8_t lcp[] = {9, 1, 0, 8, 1, 2, 3, 4};
	static const unsigned int protos[] = {0xc021, 0xc023, 0xc223, 0x8021,
					      0x8057, 0x0021, 0x0057};

	switch (b) {
	case B_PADO:
		return ctl_disc_frame(f, SUB_MAC, LAB_AC_MAC, tpid, stag, ctag, VXLAN_PADO, 0, 12);
	case B_PADS:
		return ctl_disc_frame(f, SUB_MAC, LAB_AC_MAC, tpid, stag, ctag, VXLAN_PADS, 5, 12);
	case B_PADT:
		return ctl_disc_frame(f, SUB_MAC, LAB_AC_MAC, tpid, stag, ctag, CLS_PADT, 5, 0);
	case B_LCP:
	case B_PAP:
	case B_CHAP:
	case B_IPCP:
	case B_IPV6CP:
	case B_IPV4:
	case B_IPV6:
		return ctl_session_frame(f, SUB_MAC, LAB_AC_MAC, tpid, stag, ctag, 5,
					 protos[b - B_LCP], lcp, sizeof(lcp), 0, 0);
	default: {
		uint8_t p[64];
		size_t n = cp_ipv6(p, b);

		return ctl_session_frame(f, SUB_MAC, LAB_AC_MAC, tpid, stag, ctag, 5, 0x0057, p, n,
					 0, 0);
	}
	}
}

enum mut {
	M_NONE,
	M_TRUNC27,
	M_SINGLE_TAG,
	M_OUTER_9100,
	M_INNER_88A8,
	M_ETHERTYPE_IPV4,
	M_ETHERTYPE_IPV6,
	M_ETHERTYPE_ARP,
	M_SRC_SUB,
	M_SRC_OTHER_AC,
	M_DST_BCAST,
	M_DST_MCAST,
	M_DST_ZERO,
	M_VERTYPE,
	M_PPPOE_LEN,
	M_CODE,
	M_SID,
	M_PLEN1,
};

static void
mutate(uint8_t *f, size_t *n, enum mut m, unsigned int arg)
{
	static const uint8_t other_ac[6] = {0x02, 0xbb, 0x00, 0x00, 0x00, 0x05};
	static const uint8_t mcast[6] = {0x01, 0x00, 0x5e, 0x00, 0x00, 0x01};

	switch (m) {
	case M_NONE:
		break;
	case M_TRUNC27:
		*n = 27;
		break;
	case M_SINGLE_TAG: /* 0x8100 tag then PPPoE: drop the C-tag */
		memmove(f + 16, f + 20, *n - 20);
		*n -= 4;
		break;
	case M_OUTER_9100:
		ctl_put16(f + 12, 0x9100);
		break;
	case M_INNER_88A8:
		ctl_put16(f + 16, 0x88a8);
		break;
	case M_ETHERTYPE_IPV4:
		ctl_put16(f + 20, 0x0800);
		break;
	case M_ETHERTYPE_IPV6:
		ctl_put16(f + 20, 0x86dd);
		break;
	case M_ETHERTYPE_ARP:
		ctl_put16(f + 20, 0x0806);
		break;
	case M_SRC_SUB:
		memcpy(f + 6, SUB_MAC, 6);
		break;
	case M_SRC_OTHER_AC:
		memcpy(f + 6, other_ac, 6);
		break;
	case M_DST_BCAST:
		memset(f, 0xff, 6);
		break;
	case M_DST_MCAST:
		memcpy(f, mcast, 6);
		break;
	case M_DST_ZERO:
		memset(f, 0, 6);
		break;
	case M_VERTYPE:
		f[22] = 0x12;
		break;
	case M_PPPOE_LEN:
		ctl_put16(f + 26, (unsigned int)(*n - 28 + 1));
		break;
	case M_CODE:
		f[23] = (uint8_t)arg;
		break;
	case M_SID:
		ctl_put16(f + 24, arg);
		break;
	case M_PLEN1:
		ctl_put16(f + 26, 1);
		break;
	}
}

static void
test_inject(void)
{
	static const struct {
		const char *name;
		enum base b;
		unsigned int tpid, stag, ctag;
		enum mut m;
		unsigned int arg;
		int want; /* line index, or -(1 + enum vxlan_count) */
	} rows[] = {
#define REFUSE(c) (-(1 + (c)))
		{"PADO", B_PADO, 0x8100, 300, 2000, M_NONE, 0, 0},
		{"PADO 0x88a8", B_PADO, 0x88a8, 300, 4094, M_NONE, 0, 0},
		{"PADS", B_PADS, 0x8100, 400, 1, M_NONE, 0, 1},
		{"PADT", B_PADT, 0x88a8, 449, 4094, M_NONE, 0, 1},
		{"LCP", B_LCP, 0x88a8, 400, 7, M_NONE, 0, 1},
		{"PAP", B_PAP, 0x8100, 300, 3000, M_NONE, 0, 0},
		{"CHAP", B_CHAP, 0x8100, 300, 3000, M_NONE, 0, 0},
		{"IPCP", B_IPCP, 0x8100, 300, 3000, M_NONE, 0, 0},
		{"IPV6CP", B_IPV6CP, 0x8100, 300, 3000, M_NONE, 0, 0},
		{"27 bytes", B_PADT, 0x8100, 300, 2000, M_TRUNC27, 0, REFUSE(VXLAN_INJECT_SHORT)},
		{"single tag", B_LCP, 0x8100, 300, 2000, M_SINGLE_TAG, 0,
		 REFUSE(VXLAN_INJECT_NOT_QINQ)},
		{"outer 0x9100", B_LCP, 0x8100, 300, 2000, M_OUTER_9100, 0,
		 REFUSE(VXLAN_INJECT_NOT_QINQ)},
		{"inner 0x88a8", B_LCP, 0x8100, 300, 2000, M_INNER_88A8, 0,
		 REFUSE(VXLAN_INJECT_NOT_QINQ)},
		{"S 301", B_PADO, 0x8100, 301, 2000, M_NONE, 0, REFUSE(VXLAN_INJECT_FOREIGN_LINE)},
		{"S 300 C 1999", B_PADO, 0x8100, 300, 1999, M_NONE, 0,
		 REFUSE(VXLAN_INJECT_FOREIGN_LINE)},
		{"S 450", B_PADO, 0x8100, 450, 7, M_NONE, 0, REFUSE(VXLAN_INJECT_FOREIGN_LINE)},
		{"C 0", B_PADO, 0x8100, 400, 0, M_NONE, 0, REFUSE(VXLAN_INJECT_FOREIGN_LINE)},
		{"IPv4 ethertype (no IPoE on the line)", B_LCP, 0x8100, 300, 2000, M_ETHERTYPE_IPV4,
		 0, REFUSE(VXLAN_INJECT_IPOE)},
		{"IPv6 ethertype (no IPoE on the line)", B_LCP, 0x8100, 300, 2000, M_ETHERTYPE_IPV6,
		 0, REFUSE(VXLAN_INJECT_IPOE)},
		{"ARP ethertype", B_LCP, 0x8100, 300, 2000, M_ETHERTYPE_ARP, 0,
		 REFUSE(VXLAN_INJECT_ETHERTYPE)},
		{"src subscriber", B_PADO, 0x8100, 300, 2000, M_SRC_SUB, 0,
		 REFUSE(VXLAN_INJECT_SRC_MAC)},
		{"src another AC", B_LCP, 0x8100, 300, 2000, M_SRC_OTHER_AC, 0,
		 REFUSE(VXLAN_INJECT_SRC_MAC)},
		{"dst broadcast", B_PADO, 0x8100, 300, 2000, M_DST_BCAST, 0,
		 REFUSE(VXLAN_INJECT_DST_MAC)},
		{"dst multicast", B_PADT, 0x8100, 300, 2000, M_DST_MCAST, 0,
		 REFUSE(VXLAN_INJECT_DST_MAC)},
		{"dst zero", B_LCP, 0x8100, 300, 2000, M_DST_ZERO, 0, REFUSE(VXLAN_INJECT_DST_MAC)},
		{"ver/type 0x12", B_PADO, 0x8100, 300, 2000, M_VERTYPE, 0,
		 REFUSE(VXLAN_INJECT_PPPOE_HDR)},
		{"PPPoE length past the frame", B_LCP, 0x8100, 300, 2000, M_PPPOE_LEN, 0,
		 REFUSE(VXLAN_INJECT_PPPOE_HDR)},
		{"PADI from the CP", B_PADO, 0x8100, 300, 2000, M_CODE, CLS_PADI,
		 REFUSE(VXLAN_INJECT_PPPOE_CODE)},
		{"PADR from the CP", B_PADO, 0x8100, 300, 2000, M_CODE, CLS_PADR,
		 REFUSE(VXLAN_INJECT_PPPOE_CODE)},
		{"discovery code 0", B_PADO, 0x8100, 300, 2000, M_CODE, 0,
		 REFUSE(VXLAN_INJECT_PPPOE_CODE)},
		{"session code 9", B_LCP, 0x8100, 300, 2000, M_CODE, 9,
		 REFUSE(VXLAN_INJECT_PPPOE_CODE)},
		{"PADO with a session id", B_PADO, 0x8100, 300, 2000, M_SID, 5,
		 REFUSE(VXLAN_INJECT_PPPOE_SID)},
		{"PADS without", B_PADS, 0x8100, 300, 2000, M_SID, 0,
		 REFUSE(VXLAN_INJECT_PPPOE_SID)},
		{"PADT without", B_PADT, 0x8100, 300, 2000, M_SID, 0,
		 REFUSE(VXLAN_INJECT_PPPOE_SID)},
		{"PADT 0xffff", B_PADT, 0x8100, 300, 2000, M_SID, 0xffff,
		 REFUSE(VXLAN_INJECT_PPPOE_SID)},
		{"session id 0", B_LCP, 0x8100, 300, 2000, M_SID, 0,
		 REFUSE(VXLAN_INJECT_PPPOE_SID)},
		{"session id 0xffff", B_LCP, 0x8100, 300, 2000, M_SID, 0xffff,
		 REFUSE(VXLAN_INJECT_PPPOE_SID)},
		{"IPv4 in session", B_IPV4, 0x8100, 300, 2000, M_NONE, 0,
		 REFUSE(VXLAN_INJECT_PPP_PROTO)},
		{"IPv6 in session", B_IPV6, 0x8100, 300, 2000, M_NONE, 0,
		 REFUSE(VXLAN_INJECT_PPP_PROTO)},
		{"PPPoE length 1", B_LCP, 0x8100, 300, 2000, M_PLEN1, 0,
		 REFUSE(VXLAN_INJECT_PPP_PROTO)},
		{"RA", B_RA, 0x8100, 300, 2000, M_NONE, 0, 0},
		{"NA", B_NA, 0x88a8, 400, 7, M_NONE, 0, 1},
		{"DHCPv6 reply", B_DHCP6, 0x8100, 300, 2000, M_NONE, 0, 0},
		{"RA from a global address", B_RA_GLOBAL, 0x8100, 300, 2000, M_NONE, 0,
		 REFUSE(VXLAN_INJECT_PPP_PROTO)},
		{"RA with hop limit 64", B_RA_HOP64, 0x8100, 300, 2000, M_NONE, 0,
		 REFUSE(VXLAN_INJECT_PPP_PROTO)},
		{"ICMPv6 echo", B_ECHO6, 0x8100, 300, 2000, M_NONE, 0,
		 REFUSE(VXLAN_INJECT_PPP_PROTO)},
		{"UDP 547 -> 53", B_UDP6_OTHER, 0x8100, 300, 2000, M_NONE, 0,
		 REFUSE(VXLAN_INJECT_PPP_PROTO)},
		{"TCP over IPv6", B_TCP6, 0x8100, 300, 2000, M_NONE, 0,
		 REFUSE(VXLAN_INJECT_PPP_PROTO)},
		{"IPv6 header cut", B_IPV6_SHORT, 0x8100, 300, 2000, M_NONE, 0,
		 REFUSE(VXLAN_INJECT_PPP_PROTO)},
		{"IPv6 payload past the frame", B_IPV6_PLEN, 0x8100, 300, 2000, M_NONE, 0,
		 REFUSE(VXLAN_INJECT_PPP_PROTO)},
#undef REFUSE
	};
	struct vxlan_counters c = {0}, want = {0};
	uint8_t f[128], dgram[256];
	size_t i, n;
	int rc, len;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const uint8_t *in;
		uint16_t flen;

		n = cp_frame(f, rows[i].b, rows[i].tpid, rows[i].stag, rows[i].ctag);
		mutate(f, &n, rows[i].m, rows[i].arg);
		rc = vxlan_inject_check(lmap, f, (uint16_t)n, &c);
		if (rc >= 0) {
			check(rc == rows[i].want, rows[i].name, "accepted, on its line");
			want.c[VXLAN_INJECT_OK]++;
		} else {
			check(rc == -EPERM && rows[i].want < 0, rows[i].name,
			      "refused with -EPERM");
			want.c[-(rows[i].want + 1)]++;
		}
		/* The same through the socket path: decap then check. */
		len = vxlan_encap(dgram, sizeof(dgram), LAB_VNI, f, (uint16_t)n);
		if (len > 0)
			ctl_write_seed(seed_dir, "vxlan", (unsigned int)i, CTL_FUZZ_VXLAN, 0,
				       LAB_VNI, dgram, (size_t)len);
		if (len > 0 && vxlan_decap(dgram, (size_t)len, LAB_VNI, &in, &flen, NULL) == 0)
			check(vxlan_inject_check(lmap, in, flen, NULL) == rc, rows[i].name,
			      "same verdict after a round trip");
	}
	for (i = VXLAN_INJECT_OK; i < VXLAN_COUNT_MAX; i++)
		check(c.c[i] == want.c[i], vxlan_count_names[i], "counted once per row");
	for (i = VXLAN_INJECT_OK + 1; i < VXLAN_COUNT_MAX; i++)
		check(want.c[i] > 0 || i == VXLAN_INJECT_IPOE6, vxlan_count_names[i],
		      "refusal exercised (inject_ipoe6: test_inject_ipoe6)");

	/* Every prefix of a valid frame: refused below 28 bytes, never read past n. */
	n = cp_frame(f, B_PADT, 0x8100, 300, 2000);
	for (i = 0; i < 28; i++)
		check(vxlan_inject_check(lmap, f, (uint16_t)i, NULL) == -EPERM, "prefix",
		      "refused below 28 bytes");
	check(n == 28 && vxlan_inject_check(lmap, f, (uint16_t)n, NULL) == 0, "prefix",
	      "PADT of 28 bytes accepted");
}

/* A DHCP answer of the CP: QinQ + IPv4 UDP 67 -> 68 from the AC MAC (the gateway's). */
static size_t
dhcp_reply(uint8_t *f, const uint8_t *dst, uint16_t stag, uint16_t ctag)
{
	static const uint8_t ip[20] = {0x45, 0, 0,   36, 0,  0, 0,   0,	 64, 17,
				       0,    0, 100, 80, 12, 1, 100, 80, 12, 9};

	memcpy(f, dst, 6);
	memcpy(f + 6, LAB_AC_MAC, 6);
	ctl_put16(f + 12, 0x8100);
	ctl_put16(f + 14, stag);
	ctl_put16(f + 16, 0x8100);
	ctl_put16(f + 18, ctag);
	ctl_put16(f + 20, 0x0800);
	memcpy(f + 22, ip, sizeof(ip));
	memset(f + 42, 0, 16);
	ctl_put16(f + 42, 67);
	ctl_put16(f + 44, 68);
	ctl_put16(f + 46, 16);
	return 58;
}

/* IPoE (issue 19): the CP's DHCP answers pass on a line of a group with IPoE, nothing else. */
static void
test_inject_ipoe(void)
{
	static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	static const uint8_t mcast[6] = {0x01, 0x00, 0x5e, 0x00, 0x00, 0x01};
	struct line_map *m = calloc(1, sizeof(*m));
	struct vxlan_counters c = {0};
	char err[128];
	uint8_t f[64];
	size_t n;

	cfg->line_groups[0].session_types |= DP_SESSION_TYPE_IPOE;
	if (m == NULL || line_map_build(m, cfg, err, sizeof(err)) != 0) {
		check(false, "inject ipoe", "line map");
		free(m);
		return;
	}
	n = dhcp_reply(f, SUB_MAC, 300, 2000);
	check(vxlan_inject_check(m, f, (uint16_t)n, &c) == 0, "inject ipoe",
	      "unicast offer passes");
	check(vxlan_inject_check(lmap, f, (uint16_t)n, &c) == -EPERM, "inject ipoe",
	      "refused where the group has no IPoE");
	n = dhcp_reply(f, bcast, 300, 2000);
	check(vxlan_inject_check(m, f, (uint16_t)n, &c) == 0, "inject ipoe",
	      "broadcast offer passes (broadcast flag)");
	n = dhcp_reply(f, mcast, 300, 2000);
	check(vxlan_inject_check(m, f, (uint16_t)n, &c) == -EPERM && c.c[VXLAN_INJECT_DST_MAC] == 1,
	      "inject ipoe", "multicast refused");
	n = dhcp_reply(f, SUB_MAC, 300, 2000);
	memcpy(f + 6, SUB_MAC, 6);
	check(vxlan_inject_check(m, f, (uint16_t)n, &c) == -EPERM && c.c[VXLAN_INJECT_SRC_MAC] == 1,
	      "inject ipoe", "another source MAC refused");
	n = dhcp_reply(f, SUB_MAC, 300, 2000);
	ctl_put16(f + 42, 68);
	ctl_put16(f + 44, 67);
	check(vxlan_inject_check(m, f, (uint16_t)n, &c) == -EPERM, "inject ipoe",
	      "client -> server refused");
	n = dhcp_reply(f, SUB_MAC, 300, 2000);
	f[22 + 9] = 6;
	check(vxlan_inject_check(m, f, (uint16_t)n, &c) == -EPERM, "inject ipoe", "TCP refused");
	n = dhcp_reply(f, SUB_MAC, 300, 2000);
	f[22 + 6] = 0x20; /* MF */
	check(vxlan_inject_check(m, f, (uint16_t)n, &c) == -EPERM, "inject ipoe",
	      "fragment refused");
	n = dhcp_reply(f, SUB_MAC, 300, 2000);
	ctl_put16(f + 22 + 2, 37);
	check(vxlan_inject_check(m, f, (uint16_t)n, &c) == -EPERM, "inject ipoe",
	      "total length past the frame refused");
	n = dhcp_reply(f, SUB_MAC, 300, 2000);
	check(vxlan_inject_check(m, f, 22 + 27, &c) == -EPERM, "inject ipoe", "short refused");
	check(c.c[VXLAN_INJECT_IPOE] == 6 && c.c[VXLAN_INJECT_OK] == 2, "inject ipoe",
	      "counted as inject_ipoe");
	cfg->line_groups[0].session_types &= (uint8_t)~DP_SESSION_TYPE_IPOE;
	free(m);
}

/*
 * An IPv6 answer of the CP on an IPoE line: QinQ + IPv6 from the AC MAC and the
 * BNG's link-local (fe80::bb:ff:fe00:4 of 02:bb:00:00:00:04) to the client's
 * link-local: an RA (type 134, hop limit 255) or a DHCPv6 reply (UDP 547 -> 546).
 */
static size_t
ipoe6_answer(uint8_t *f, int udp)
{
	static const uint8_t ll[16] = {0xfe, 0x80, [8] = 0x00, 0xbb, 0x00,
				       0xff, 0xfe, 0x00,       0x00, 0x04};
	static const uint8_t cl[16] = {0xfe, 0x80, [8] = 0x00, 0x11, 0x22,
				       0xff, 0xfe, 0x33,       0x44, 0x55};
	uint8_t *ip = f + 22;

	memcpy(f, SUB_MAC, 6);
	memcpy(f + 6, LAB_AC_MAC, 6);
	ctl_put16(f + 12, 0x8100);
	ctl_put16(f + 14, 300);
	ctl_put16(f + 16, 0x8100);
	ctl_put16(f + 18, 2000);
	ctl_put16(f + 20, 0x86dd);
	memset(ip, 0, 40 + 16);
	ip[0] = 0x60;
	ip[5] = 16;
	ip[6] = udp ? 17 : 58;
	ip[7] = udp ? 64 : 255;
	memcpy(ip + 8, ll, 16);
	memcpy(ip + 24, cl, 16);
	if (udp) {
		ctl_put16(ip + 40, 547);
		ctl_put16(ip + 42, 546);
		ctl_put16(ip + 44, 16);
	} else {
		ip[40] = 134;
	}
	return 22 + 40 + 16;
}

/* IPoE IPv6 (issue 19, dual stack): RA / NA / DHCPv6 replies from the BNG's link-local only. */
static void
test_inject_ipoe6(void)
{
	static const uint8_t mcast6[6] = {0x33, 0x33, 0x00, 0x00, 0x00, 0x01};
	struct line_map *m = calloc(1, sizeof(*m));
	struct vxlan_counters c = {0};
	char err[128];
	uint8_t f[128];
	size_t n;

	cfg->line_groups[0].session_types |= DP_SESSION_TYPE_IPOE;
	if (m == NULL || line_map_build(m, cfg, err, sizeof(err)) != 0) {
		check(false, "inject ipoe6", "line map");
		free(m);
		return;
	}
	n = ipoe6_answer(f, 0);
	check(vxlan_inject_check(m, f, (uint16_t)n, &c) == 0, "inject ipoe6", "RA passes");
	check(vxlan_inject_check(lmap, f, (uint16_t)n, NULL) == -EPERM, "inject ipoe6",
	      "refused where the group has no IPoE");
	f[22 + 40] = 136;
	check(vxlan_inject_check(m, f, (uint16_t)n, &c) == 0, "inject ipoe6", "NA passes");
	n = ipoe6_answer(f, 1);
	check(vxlan_inject_check(m, f, (uint16_t)n, &c) == 0, "inject ipoe6",
	      "DHCPv6 547 -> 546 passes");
	n = ipoe6_answer(f, 0);
	f[22 + 40] = 135;
	check(vxlan_inject_check(m, f, (uint16_t)n, &c) == -EPERM, "inject ipoe6", "NS refused");
	n = ipoe6_answer(f, 0);
	f[22 + 40] = 128;
	check(vxlan_inject_check(m, f, (uint16_t)n, &c) == -EPERM, "inject ipoe6",
	      "echo request refused");
	n = ipoe6_answer(f, 0);
	f[22 + 7] = 64;
	check(vxlan_inject_check(m, f, (uint16_t)n, &c) == -EPERM, "inject ipoe6",
	      "RA with hop limit 64 refused");
	n = ipoe6_answer(f, 0);
	f[22 + 23] ^= 1; /* another link-local */
	check(vxlan_inject_check(m, f, (uint16_t)n, &c) == -EPERM, "inject ipoe6",
	      "source other than the BNG's link-local refused");
	n = ipoe6_answer(f, 1);
	ctl_put16(f + 22 + 40, 546);
	ctl_put16(f + 22 + 42, 547);
	check(vxlan_inject_check(m, f, (uint16_t)n, &c) == -EPERM, "inject ipoe6",
	      "DHCPv6 client -> server refused");
	n = ipoe6_answer(f, 1);
	f[22 + 6] = 6;
	check(vxlan_inject_check(m, f, (uint16_t)n, &c) == -EPERM, "inject ipoe6", "TCP refused");
	n = ipoe6_answer(f, 0);
	f[22 + 5] = 17; /* payload past the frame */
	check(vxlan_inject_check(m, f, (uint16_t)n, &c) == -EPERM, "inject ipoe6",
	      "payload length past the frame refused");
	n = ipoe6_answer(f, 0);
	check(vxlan_inject_check(m, f, 22 + 40 + 7, &c) == -EPERM, "inject ipoe6", "short refused");
	check(c.c[VXLAN_INJECT_IPOE6] == 8 && c.c[VXLAN_INJECT_OK] == 3, "inject ipoe6",
	      "counted as inject_ipoe6");
	n = ipoe6_answer(f, 0);
	memcpy(f, mcast6, 6);
	check(vxlan_inject_check(m, f, (uint16_t)n, &c) == -EPERM && c.c[VXLAN_INJECT_DST_MAC] == 1,
	      "inject ipoe6", "multicast destination MAC refused");
	n = ipoe6_answer(f, 0);
	memcpy(f + 6, SUB_MAC, 6);
	check(vxlan_inject_check(m, f, (uint16_t)n, &c) == -EPERM && c.c[VXLAN_INJECT_SRC_MAC] == 1,
	      "inject ipoe6", "another source MAC refused");
	cfg->line_groups[0].session_types &= (uint8_t)~DP_SESSION_TYPE_IPOE;
	free(m);
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		printf("usage: test_vxlan FIXTURE_DIR\n0 passed, 1 failed\n");
		return 1;
	}
	ctl_load_map(argv[1], "lab_dp4.ini", &cfg, &lmap);
	seed_dir = argc > 2 ? argv[2] : NULL;
	test_codec();
	test_inject();
	test_inject_ipoe();
	test_inject_ipoe6();
	for (int i = 0; i < VXLAN_COUNT_MAX; i++)
		check(vxlan_count_names[i] != NULL, "names", "every counter named");
	free(cfg);
	free(lmap);
	return harness_report();
}

/*
 * libFuzzer target for the control-frame code: lcp_input(), vxlan_decap()
 * and vxlan_inject_check() on arbitrary bytes.
 *
 * Input layout (tests/ctl_frames.h): an 8-byte prefix (flags, our LCP magic
 * number, the VNI), then the bytes. The line map is the lab fixture
 * (CLS_FIXTURE_DIR, set by meson). The EAL is started once in memory
 * (--no-huge) because struct lcp lives in rte_malloc memory; the frame itself
 * sits in an exact-size heap buffer behind a hand-made single-segment mbuf
 * (no tailroom unless the flag asks for 64 bytes), so ASan sees any access
 * past the frame.
 *
 * Frame mode: the frame is classified; a CLS_PPPOE_SESS_CTRL frame is given
 * to lcp_input() for a session built from the frame (its line's template,
 * the access port's TPID) with the offload on. Invariants:
 *   - exactly one worker counter moves, and it matches the verdict;
 *   - anything but LCP_TX leaves the frame and its length untouched;
 *   - LCP_TX: the input was an Echo-Request of at least 8 bytes; the output
 *     is the session's header (PCP 7, PPPoE length = LCP length + 2, LCP
 *     protocol), code 10, the same identifier, length and data, our magic,
 *     zero padding, of length max(30 + LCP length, 60) when there is room;
 *   - LCP_CONSUMED: the input was an Echo-Reply; the reply count moved.
 * Both modes: vxlan_inject_check() on the bytes; a frame it accepts is QinQ
 * on the line it returns, from that line's AC MAC to a unicast MAC, PPPoE;
 * or (the lab group is given IPoE here) a DHCP answer: IPv4 UDP 67 -> 68 to a
 * unicast or the broadcast MAC; or an IPv6 RA / NA (hop limit 255) or DHCPv6
 * reply (UDP 547 -> 546) from the BNG's link-local (EUI-64 of the AC MAC) to a
 * unicast MAC.
 * VXLAN mode: vxlan_decap() of the bytes; an accepted inner frame lies inside
 * the datagram within the length limits, goes through inject_check, and
 * encapsulating it again gives the same datagram up to the reserved bits.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_mbuf.h>

#include "../tests/classify_ref.h"
#include "../tests/ctl_frames.h"
#include "lcp.h"
#include "vxlan.h"

#define CHECK(cond)                                                       \
	do {                                                              \
		if (!(cond)) {                                            \
			fprintf(stderr, "invariant failed: %s\n", #cond); \
			abort();                                          \
		}                                                         \
	} while (0)

static struct dp_config *cfg;
static struct line_map *lmap;
static struct lcp *lcp;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char *eal_argv[] = {
		(*argv)[0],	  "--no-huge",	       "-m", "64", "--no-pci", "--no-shconf",
		"--no-telemetry", "--log-level=error", NULL};

	(void)argc;
	if (rte_eal_init(8, eal_argv) < 0) {
		fprintf(stderr, "EAL init failed\n");
		abort();
	}
	ctl_load_map(CLS_FIXTURE_DIR, "lab_dp4.ini", &cfg, &lmap);
	/* lg4 allows IPoE too, so the inject guard's IPoE branch is reachable */
	cfg->line_groups[0].session_types |= DP_SESSION_TYPE_IPOE;
	if (line_map_build(lmap, cfg, NULL, 0) != 0)
		abort();
	lcp = lcp_create(4, NULL, SOCKET_ID_ANY);
	if (lcp == NULL)
		abort();
	return 0;
}

static uint64_t
wsum(void)
{
	uint64_t s = 0;

	for (int i = 0; i < LCP_W_MAX; i++)
		s += lcp->wcount[i];
	return s;
}

static void
fuzz_lcp(const uint8_t *in, uint32_t len, uint8_t flags, uint32_t magic)
{
	struct cls_counters cc = {0};
	struct rte_mbuf m;
	struct dp_session s;
	struct cls_result r;
	struct lcp_info info;
	const struct dp_line *ln;
	uint32_t room = flags & CTL_FUZZ_TAILROOM ? 64 : 0, llen, want, olen, replies;
	uint64_t before[LCP_W_MAX];
	enum lcp_verdict v;
	uint8_t *buf, hdr[RW_ENCAP_LEN];
	const uint8_t *out;

	if (classify_frame(lmap, in, len, &r, &cc) != CLS_PPPOE_SESS_CTRL)
		return;
	ln = &cfg->lines[r.line];
	memset(&s, 0, sizeof(s));
	CHECK(rw_encap_tmpl_init(&s.encap, in + 6, cfg->line_groups[ln->group].ac_mac,
				 cfg->access_ports[ln->access_port].tpid, r.stag, r.ctag,
				 r.sid) == 0);
	CHECK(lcp_enable(lcp, 1, magic, 30, 3, 0) == 0);
	lcp_get(lcp, 1, &info);
	replies = info.replies;

	buf = malloc(len + room);
	memcpy(buf, in, len);
	memset(&m, 0, sizeof(m));
	m.buf_addr = buf;
	m.buf_len = (uint16_t)(len + room);
	m.data_off = 0;
	m.data_len = (uint16_t)len;
	m.pkt_len = len;
	m.nb_segs = 1;
	rte_mbuf_refcnt_set(&m, 1);

	memcpy(before, lcp->wcount, sizeof(before));
	v = lcp_input(lcp, &m, &r, 1, &s, 42);
	{
		uint64_t sum = 0;

		for (int i = 0; i < LCP_W_MAX; i++)
			sum += before[i];
		CHECK(wsum() == sum + 1);
	}
	out = buf;
	olen = m.data_len;
	CHECK(m.pkt_len == olen && m.nb_segs == 1 && m.data_off == 0);
	if (v != LCP_TX)
		CHECK(olen == len && memcmp(out, in, len) == 0);
	switch (v) {
	case LCP_TX:
		CHECK(lcp->wcount[LCP_W_ECHO_ANSWERED] == before[LCP_W_ECHO_ANSWERED] + 1);
		CHECK(r.proto == CLS_PPP_LCP && in[30] == LCP_CODE_ECHO_REQUEST);
		llen = cls_be16(in + 32);
		CHECK(llen >= 8 && llen <= r.l3_len);
		want = RW_ENCAP_LEN + llen;
		{
			uint32_t t = want < LCP_FRAME_MIN_LEN ? LCP_FRAME_MIN_LEN : want;

			if (t > len && room < t - len)
				t = want;
			CHECK(olen == t);
		}
		memcpy(hdr, s.encap.hdr, RW_ENCAP_LEN);
		hdr[RW_STAG_TCI_OFF] |= LCP_DEFAULT_PCP << 5;
		hdr[RW_CTAG_TCI_OFF] |= LCP_DEFAULT_PCP << 5;
		hdr[26] = (uint8_t)((llen + 2) >> 8);
		hdr[27] = (uint8_t)(llen + 2);
		hdr[28] = 0xc0;
		hdr[29] = 0x21;
		CHECK(memcmp(out, hdr, RW_ENCAP_LEN) == 0);
		CHECK(out[30] == LCP_CODE_ECHO_REPLY && out[31] == in[31] &&
		      cls_be16(out + 32) == llen && ctl_get32(out + 34) == magic);
		CHECK(memcmp(out + 38, in + 38, llen - 8) == 0);
		for (uint32_t i = want; i < olen; i++)
			CHECK(out[i] == 0);
		break;
	case LCP_CONSUMED:
		CHECK(lcp->wcount[LCP_W_REPLY_HEARD] == before[LCP_W_REPLY_HEARD] + 1);
		CHECK(in[30] == LCP_CODE_ECHO_REPLY);
		lcp_get(lcp, 1, &info);
		CHECK(info.replies == replies + 1 && info.last_reply_tsc == 42);
		break;
	case LCP_PUNT:
		CHECK(r.proto != CLS_PPP_LCP ||
		      lcp->wcount[LCP_W_PUNT_OTHER_CODE] == before[LCP_W_PUNT_OTHER_CODE] + 1);
		break;
	case LCP_DROP:
		break;
	default:
		CHECK(0);
	}
	free(buf);
}

static void
fuzz_inject(const uint8_t *f, uint16_t len)
{
	struct vxlan_counters c = {0};
	int line = vxlan_inject_check(lmap, f, len, &c);
	uint64_t n = 0;

	for (int i = 0; i < VXLAN_COUNT_MAX; i++)
		n += c.c[i];
	CHECK(n == 1);
	if (line < 0) {
		CHECK(line == -EPERM && c.c[VXLAN_INJECT_OK] == 0);
		return;
	}
	CHECK(c.c[VXLAN_INJECT_OK] == 1 && len >= 28);
	CHECK(line == ref_lookup(cfg, cls_be16(f + 14) & 0xfff, cls_be16(f + 18) & 0xfff));
	CHECK(memcmp(f + 6, cfg->line_groups[cfg->lines[line].group].ac_mac, 6) == 0);
	CHECK(cls_be16(f + 16) == CLS_ETH_VLAN);
	if (cls_be16(f + 20) == CLS_ETH_IPV4) {
		/* IPoE: the CP's DHCP answer on a line of a group with IPoE */
		const uint8_t *ip = f + 22;
		uint32_t ihl = (uint32_t)(ip[0] & 0x0f) * 4;

		CHECK(cfg->line_groups[cfg->lines[line].group].session_types &
		      DP_SESSION_TYPE_IPOE);
		CHECK(mac_key(f) != 0 && (!(f[0] & 1) || mac_key(f) == CLS_MAC_BCAST));
		CHECK(len >= 22 + 28 && (ip[0] >> 4) == 4 && ihl >= 20 && ip[9] == 17);
		CHECK(cls_be16(ip + 2) >= ihl + 8 && cls_be16(ip + 2) <= len - 22u);
		CHECK(cls_be16(ip + ihl) == 67 && cls_be16(ip + ihl + 2) == 68);
		return;
	}
	if (cls_be16(f + 20) == CLS_ETH_IPV6) {
		/* IPoE IPv6: RA / NA (hop limit 255) or DHCPv6 547 -> 546 from the BNG's link-local
		 */
		const uint8_t *ip = f + 22, *ac = cfg->line_groups[cfg->lines[line].group].ac_mac;

		CHECK(cfg->line_groups[cfg->lines[line].group].session_types &
		      DP_SESSION_TYPE_IPOE);
		CHECK(mac_key(f) != 0 && !(f[0] & 1));
		CHECK(len >= 22 + 48 && (ip[0] >> 4) == 6 && cls_be16(ip + 4) <= len - 62u);
		CHECK(ip[8] == 0xfe && ip[9] == 0x80 && ip[16] == (ac[0] ^ 2) && ip[17] == ac[1] &&
		      ip[18] == ac[2] && ip[19] == 0xff && ip[20] == 0xfe &&
		      memcmp(ip + 21, ac + 3, 3) == 0);
		CHECK((ip[6] == 58 && ip[7] == 255 && (ip[40] == 134 || ip[40] == 136)) ||
		      (ip[6] == 17 && cls_be16(ip + 40) == 547 && cls_be16(ip + 42) == 546));
		return;
	}
	CHECK(!(f[0] & 1) && mac_key(f) != 0);
	CHECK(f[22] == 0x11);
	CHECK(cls_be16(f + 20) == CLS_ETH_PPPOE_DISC || cls_be16(f + 20) == CLS_ETH_PPPOE_SESS);
	CHECK(cls_be16(f + 26) <= len - 28u);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *inner;
	uint32_t magic, vni;
	uint8_t flags, *b;
	uint16_t flen;
	size_t len;

	if (size < CTL_FUZZ_PREFIX || size > CTL_FUZZ_PREFIX + 16384)
		return 0;
	flags = data[0];
	magic = flags & CTL_FUZZ_MAGIC0 ? 0 : ctl_get32(data + 1);
	vni = (uint32_t)data[5] << 16 | (uint32_t)data[6] << 8 | data[7];
	len = size - CTL_FUZZ_PREFIX;
	b = malloc(len ? len : 1);
	memcpy(b, data + CTL_FUZZ_PREFIX, len);

	fuzz_inject(b, (uint16_t)len);
	if (!(flags & CTL_FUZZ_VXLAN)) {
		fuzz_lcp(b, (uint32_t)len, flags, magic);
	} else {
		struct vxlan_counters c = {0};
		uint8_t *again;

		if (vxlan_decap(b, len, vni, &inner, &flen, &c) == 0) {
			CHECK(inner == b + VXLAN_HLEN && flen == len - VXLAN_HLEN);
			CHECK(flen >= VXLAN_MIN_INNER && flen <= VXLAN_MAX_INNER);
			CHECK((b[0] & VXLAN_FLAG_I) && cls_be16(b + 4) == (vni >> 8) &&
			      b[6] == (uint8_t)vni);
			fuzz_inject(inner, flen);
			if (vni != 0) {
				again = malloc(len);
				CHECK(vxlan_encap(again, len, vni, inner, flen) == (int)len);
				CHECK(memcmp(again + 4, b + 4, 3) == 0 &&
				      memcmp(again + 8, inner, flen) == 0);
				free(again);
			}
		} else {
			CHECK(c.c[VXLAN_DECAP_OK] == 0);
		}
	}
	free(b);
	return 0;
}

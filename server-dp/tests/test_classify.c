/*
 * Tests of the frame classifier (classify.h) and line_map_build(), table-driven.
 *
 * usage: test_classify FIXTURE_DIR [SEED_DIR]
 *   FIXTURE_DIR  tests/fixtures: lab_dp4.ini (S 300 C 2000-4094 on a 0x8100
 *                port, S 400-449 any on a 0x88a8 port, core untagged) and
 *                multi_group.ini (S 300 split C 1-1999 / 2000-4094 between two
 *                groups, S 10-19 any, core VLAN 42).
 *
 * SEED_DIR, when given, receives each case frame as a fuzz seed (one map
 * byte, then the frame) for fuzz/fuzz_classify.
 *
 * Frames are built in test code from a case row: tags, ethertype,
 * destination, PPPoE header, PPP protocol, L3 header, then optional edits
 * (truncate, pad). Every kind and every drop reason must be hit by a row.
 * Each valid row is also classified at every length from 0 to its full
 * length, from an exact-size heap copy, so AddressSanitizer catches any read
 * past len. The last line of output is "N passed, M failed"; the exit status
 * is 1 when M > 0.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "classify_ref.h"
#include "harness.h"

/* Maps: 0 = lab_dp4.ini, 1 = multi_group.ini. */
enum { LAB, MULTI, N_MAPS };

static struct dp_config *cfgs[N_MAPS];
static struct line_map *maps[N_MAPS];

/* Destination selectors (real MACs are 48-bit, these are above). */
#define D_AC (1ULL << 60)   /* AC MAC of the expected line's group */
#define D_CORE (2ULL << 60) /* core MAC of group 0 */
#define D_BCAST CLS_MAC_BCAST

enum l3 { L3_NONE, L3_PPPOE, L3_IPV4, L3_IPV6, L3_ARP, L3_RAW, L3_ND };

#define ANY -1
#define DEF -1

struct fcase {
	const char *name;
	int map;
	uint64_t dst;
	uint16_t t1, v1, t2, v2; /* t1 = 0: untagged; t2 = 0: one tag */
	uint16_t et;
	enum l3 l3;
	/* PPPoE: ver/type, code, session id, length delta, PPP protocol */
	uint8_t vt, code;
	uint16_t sid;
	int plen_delta;
	uint16_t proto;
	/* IP inside: first byte (0 = default), total/payload length delta */
	uint8_t ip0;
	int ip_len_delta;
	int raw_len; /* L3_RAW bytes; ARP: 0 = 28 */
	int trunc;   /* bytes cut off the end */
	int pad_to;  /* Ethernet padding with zeros up to this length */
	/* expected */
	enum cls_kind kind;
	enum cls_drop drop;
	int line;   /* ANY = do not check */
	int l3_off; /* ANY = do not check */
	int l3_len;
};

#define LAB_AC 0x02bb00000004ULL
#define LAB_CORE 0x02cc00000004ULL
#define MG_AC_A 0x02bb0000000aULL
#define MG_AC_B 0x02bb0000000bULL
#define MG_CORE_B 0x02cc0000000bULL

#define Q1 CLS_ETH_VLAN
#define QA CLS_ETH_QINQ
#define DISC CLS_ETH_PPPOE_DISC
#define SESS CLS_ETH_PPPOE_SESS

/* Session IPv4 (84-byte IPv4 packet) on the lab map. */
#define SESS4(nm, tp, s, c, ln)                                                            \
	{                                                                                  \
		.name = nm, .map = LAB, .dst = D_AC, .t1 = tp, .v1 = s, .t2 = Q1, .v2 = c, \
		.et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 7, .proto = CLS_PPP_IPV4,   \
		.kind = CLS_PPPOE_SESS_IPV4, .line = ln, .l3_off = 30, .l3_len = 84        \
	}
#define SESS4_DROP(nm, tp, s, c, why)                                                      \
	{                                                                                  \
		.name = nm, .map = LAB, .dst = D_AC, .t1 = tp, .v1 = s, .t2 = Q1, .v2 = c, \
		.et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 7, .proto = CLS_PPP_IPV4,   \
		.kind = CLS_DROP, .drop = why, .line = ANY, .l3_off = 0, .l3_len = 0       \
	}
#define CTRL(nm, pr)                                                                          \
	{                                                                                     \
		.name = nm, .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 400, .t2 = Q1, .v2 = 1,  \
		.et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 9, .proto = pr, .raw_len = 14, \
		.kind = CLS_PPPOE_SESS_CTRL, .line = 1, .l3_off = 30, .l3_len = 14            \
	}

/* One case per few lines; clang-format would put every field on its own line. */
/* clang-format off */
static const struct fcase cases[] = {
	/* Session IPv4, both outer TPIDs, range edges of a C-range S-tag and a whole range. */
	SESS4("sess4 S300 C2000 8100", Q1, 300, 2000, 0),
	SESS4("sess4 S300 C4094 8100", Q1, 300, 4094, 0),
	SESS4("sess4 S300 C2000 88a8", QA, 300, 2000, 0),
	SESS4("sess4 S400 C1 88a8", QA, 400, 1, 1),
	SESS4("sess4 S449 C4094 88a8", QA, 449, 4094, 1),
	SESS4("sess4 S449 C4094 8100", Q1, 449, 4094, 1),
	SESS4("sess4 S420 C2000 88a8", QA, 420, 2000, 1),
	SESS4_DROP("foreign S300 C1999 (dp3)", Q1, 300, 1999, CLS_DROP_UNSERVED_LINE),
	SESS4_DROP("foreign S300 C1 (dp3)", QA, 300, 1, CLS_DROP_UNSERVED_LINE),
	SESS4_DROP("unserved S299", QA, 299, 2000, CLS_DROP_UNSERVED_LINE),
	SESS4_DROP("unserved S301", QA, 301, 2000, CLS_DROP_UNSERVED_LINE),
	SESS4_DROP("unserved S399", QA, 399, 5, CLS_DROP_UNSERVED_LINE),
	SESS4_DROP("unserved S450", QA, 450, 5, CLS_DROP_UNSERVED_LINE),
	SESS4_DROP("unserved S0", QA, 0, 5, CLS_DROP_UNSERVED_LINE),
	SESS4_DROP("unserved S4095", QA, 4095, 5, CLS_DROP_UNSERVED_LINE),
	SESS4_DROP("unserved S400 C0", QA, 400, 0, CLS_DROP_UNSERVED_LINE),
	SESS4_DROP("unserved S400 C4095", QA, 400, 4095, CLS_DROP_UNSERVED_LINE),
	SESS4_DROP("unserved S300 C4095", Q1, 300, 4095, CLS_DROP_UNSERVED_LINE),
	/* Multi-group map: S 300 split between two lines / groups, S 10-19 any. */
	{.name = "mg S300 C1 line0", .map = MULTI, .dst = D_AC, .t1 = Q1, .v1 = 300, .t2 = Q1,
	 .v2 = 1, .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 1, .proto = CLS_PPP_IPV4,
	 .kind = CLS_PPPOE_SESS_IPV4, .line = 0, .l3_off = 30, .l3_len = 84},
	{.name = "mg S300 C1999 line0", .map = MULTI, .dst = D_AC, .t1 = Q1, .v1 = 300,
	 .t2 = Q1, .v2 = 1999, .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 1,
	 .proto = CLS_PPP_IPV4, .kind = CLS_PPPOE_SESS_IPV4, .line = 0, .l3_off = 30,
	 .l3_len = 84},
	{.name = "mg S300 C2000 line1", .map = MULTI, .dst = D_AC, .t1 = Q1, .v1 = 300,
	 .t2 = Q1, .v2 = 2000, .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 1,
	 .proto = CLS_PPP_IPV4, .kind = CLS_PPPOE_SESS_IPV4, .line = 1, .l3_off = 30,
	 .l3_len = 84},
	{.name = "mg S300 C4094 line1", .map = MULTI, .dst = D_AC, .t1 = QA, .v1 = 300,
	 .t2 = Q1, .v2 = 4094, .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 1,
	 .proto = CLS_PPP_IPV4, .kind = CLS_PPPOE_SESS_IPV4, .line = 1, .l3_off = 30,
	 .l3_len = 84},
	{.name = "mg S300 C0 unserved", .map = MULTI, .dst = D_AC, .t1 = QA, .v1 = 300,
	 .t2 = Q1, .v2 = 0, .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 1,
	 .proto = CLS_PPP_IPV4, .kind = CLS_DROP, .drop = CLS_DROP_UNSERVED_LINE, .line = ANY},
	{.name = "mg S10 C5 line2", .map = MULTI, .dst = D_AC, .t1 = QA, .v1 = 10, .t2 = Q1,
	 .v2 = 5, .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 1, .proto = CLS_PPP_IPV4,
	 .kind = CLS_PPPOE_SESS_IPV4, .line = 2, .l3_off = 30, .l3_len = 84},
	{.name = "mg S300 C1 to group b AC MAC", .map = MULTI, .dst = MG_AC_B, .t1 = Q1,
	 .v1 = 300, .t2 = Q1, .v2 = 1, .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 1,
	 .proto = CLS_PPP_IPV4, .kind = CLS_DROP, .drop = CLS_DROP_DST_MAC, .line = 0},
	{.name = "mg core vlan 42 ipv4", .map = MULTI, .dst = MG_CORE_B, .t1 = Q1, .v1 = 42,
	 .et = CLS_ETH_IPV4, .l3 = L3_IPV4, .kind = CLS_CORE_IPV4, .line = CLS_NO_LINE,
	 .l3_off = 18, .l3_len = 84},
	{.name = "mg core vlan 42 arp", .map = MULTI, .dst = D_BCAST, .t1 = Q1, .v1 = 42,
	 .et = CLS_ETH_ARP, .l3 = L3_ARP, .kind = CLS_CORE_ARP, .line = CLS_NO_LINE,
	 .l3_off = 18, .l3_len = 28},
	{.name = "mg core vlan 43", .map = MULTI, .dst = MG_CORE_B, .t1 = Q1, .v1 = 43,
	 .et = CLS_ETH_IPV4, .l3 = L3_IPV4, .kind = CLS_DROP, .drop = CLS_DROP_CORE_VLAN,
	 .line = CLS_NO_LINE},
	{.name = "mg core untagged", .map = MULTI, .dst = MG_CORE_B, .et = CLS_ETH_IPV4,
	 .l3 = L3_IPV4, .kind = CLS_DROP, .drop = CLS_DROP_CORE_VLAN, .line = CLS_NO_LINE},
	{.name = "mg single tag 42 ipv6", .map = MULTI, .dst = MG_CORE_B, .t1 = Q1, .v1 = 42,
	 .et = CLS_ETH_IPV6, .l3 = L3_IPV6, .kind = CLS_CORE_IPV6, .line = CLS_NO_LINE,
	 .l3_off = 18, .l3_len = 104},
	{.name = "mg single tag 42 nd ns multicast", .map = MULTI, .dst = 0x3333ff000011ULL,
	 .t1 = Q1, .v1 = 42, .et = CLS_ETH_IPV6, .l3 = L3_ND, .code = 135, .kind = CLS_CORE_ND,
	 .line = CLS_NO_LINE, .l3_off = 18, .l3_len = 72},
	{.name = "mg single tag 43 ipv6", .map = MULTI, .dst = MG_CORE_B, .t1 = Q1, .v1 = 43,
	 .et = CLS_ETH_IPV6, .l3 = L3_IPV6, .kind = CLS_DROP, .drop = CLS_DROP_CORE_VLAN,
	 .line = CLS_NO_LINE},
	/* Session IPv6 and control protocols. */
	{.name = "sess6", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 400, .t2 = Q1, .v2 = 100,
	 .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 3, .proto = CLS_PPP_IPV6,
	 .kind = CLS_PPPOE_SESS_IPV6, .line = 1, .l3_off = 30, .l3_len = 104},
	CTRL("lcp", CLS_PPP_LCP),
	CTRL("pap", CLS_PPP_PAP),
	CTRL("chap", CLS_PPP_CHAP),
	CTRL("ipcp", CLS_PPP_IPCP),
	CTRL("ipv6cp", CLS_PPP_IPV6CP),
	{.name = "lcp padded to 60", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 400, .t2 = Q1,
	 .v2 = 1, .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 9, .proto = CLS_PPP_LCP,
	 .raw_len = 4, .pad_to = 60, .kind = CLS_PPPOE_SESS_CTRL, .line = 1, .l3_off = 30,
	 .l3_len = 4},
	/* Discovery. */
	{.name = "padi broadcast", .map = LAB, .dst = D_BCAST, .t1 = QA, .v1 = 401, .t2 = Q1,
	 .v2 = 7, .et = DISC, .l3 = L3_PPPOE, .vt = 0x11, .code = CLS_PADI, .raw_len = 12,
	 .kind = CLS_PPPOE_DISC, .line = 1, .l3_off = 22, .l3_len = 18},
	{.name = "padi broadcast padded", .map = LAB, .dst = D_BCAST, .t1 = Q1, .v1 = 300,
	 .t2 = Q1, .v2 = 3000, .et = DISC, .l3 = L3_PPPOE, .vt = 0x11, .code = CLS_PADI,
	 .raw_len = 4, .pad_to = 64, .kind = CLS_PPPOE_DISC, .line = 0, .l3_off = 22,
	 .l3_len = 10},
	{.name = "padr unicast", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 401, .t2 = Q1,
	 .v2 = 7, .et = DISC, .l3 = L3_PPPOE, .vt = 0x11, .code = CLS_PADR, .raw_len = 20,
	 .kind = CLS_PPPOE_DISC, .line = 1, .l3_off = 22, .l3_len = 26},
	{.name = "padt unicast", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 401, .t2 = Q1,
	 .v2 = 7, .et = DISC, .l3 = L3_PPPOE, .vt = 0x11, .code = CLS_PADT, .sid = 5,
	 .kind = CLS_PPPOE_DISC, .line = 1, .l3_off = 22, .l3_len = 6},
	{.name = "pado from access", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 401, .t2 = Q1,
	 .v2 = 7, .et = DISC, .l3 = L3_PPPOE, .vt = 0x11, .code = 0x07, .kind = CLS_DROP,
	 .drop = CLS_DROP_PPPOE_CODE, .line = 1},
	{.name = "disc code 0", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 401, .t2 = Q1, .v2 = 7,
	 .et = DISC, .l3 = L3_PPPOE, .vt = 0x11, .code = 0, .kind = CLS_DROP,
	 .drop = CLS_DROP_PPPOE_CODE, .line = 1},
	{.name = "padi with session id", .map = LAB, .dst = D_BCAST, .t1 = QA, .v1 = 401,
	 .t2 = Q1, .v2 = 7, .et = DISC, .l3 = L3_PPPOE, .vt = 0x11, .code = CLS_PADI, .sid = 1,
	 .kind = CLS_DROP, .drop = CLS_DROP_PPPOE_DISC_SID, .line = 1},
	{.name = "padt without session id", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 401,
	 .t2 = Q1, .v2 = 7, .et = DISC, .l3 = L3_PPPOE, .vt = 0x11, .code = CLS_PADT,
	 .kind = CLS_DROP, .drop = CLS_DROP_PPPOE_DISC_SID, .line = 1},
	{.name = "padi length beyond frame", .map = LAB, .dst = D_BCAST, .t1 = QA, .v1 = 401,
	 .t2 = Q1, .v2 = 7, .et = DISC, .l3 = L3_PPPOE, .vt = 0x11, .code = CLS_PADI,
	 .raw_len = 12, .plen_delta = 1, .kind = CLS_DROP, .drop = CLS_DROP_PPPOE_LENGTH,
	 .line = 1},
	{.name = "disc ver/type 0x12", .map = LAB, .dst = D_BCAST, .t1 = QA, .v1 = 401,
	 .t2 = Q1, .v2 = 7, .et = DISC, .l3 = L3_PPPOE, .vt = 0x12, .code = CLS_PADI,
	 .kind = CLS_DROP, .drop = CLS_DROP_PPPOE_VER_TYPE, .line = 1},
	/* Session errors. */
	{.name = "sess ver/type 0x21", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 400, .t2 = Q1,
	 .v2 = 1, .et = SESS, .l3 = L3_PPPOE, .vt = 0x21, .sid = 9, .proto = CLS_PPP_IPV4,
	 .kind = CLS_DROP, .drop = CLS_DROP_PPPOE_VER_TYPE, .line = 1},
	{.name = "sess code PADT", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 400, .t2 = Q1,
	 .v2 = 1, .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .code = CLS_PADT, .sid = 9,
	 .proto = CLS_PPP_IPV4, .kind = CLS_DROP, .drop = CLS_DROP_PPPOE_CODE, .line = 1},
	{.name = "sess id 0", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 400, .t2 = Q1, .v2 = 1,
	 .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 0, .proto = CLS_PPP_IPV4,
	 .kind = CLS_DROP, .drop = CLS_DROP_PPPOE_SESS_SID, .line = 1},
	{.name = "sess id 0xffff", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 400, .t2 = Q1,
	 .v2 = 1, .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 0xffff, .proto = CLS_PPP_IPV4,
	 .kind = CLS_DROP, .drop = CLS_DROP_PPPOE_SESS_SID, .line = 1},
	{.name = "sess length beyond frame", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 400,
	 .t2 = Q1, .v2 = 1, .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 9,
	 .proto = CLS_PPP_IPV4, .plen_delta = 1, .kind = CLS_DROP,
	 .drop = CLS_DROP_PPPOE_LENGTH, .line = 1},
	{.name = "sess length 1", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 400, .t2 = Q1,
	 .v2 = 1, .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 9, .proto = CLS_PPP_LCP,
	 .raw_len = 4, .plen_delta = -5, .kind = CLS_DROP, .drop = CLS_DROP_PPPOE_LENGTH,
	 .line = 1},
	{.name = "sess length shorter than IPv4", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 400,
	 .t2 = Q1, .v2 = 1, .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 9,
	 .proto = CLS_PPP_IPV4, .plen_delta = -1, .kind = CLS_DROP,
	 .drop = CLS_DROP_IPV4_TOTAL_LEN, .line = 1},
	{.name = "ppp proto unknown 0x0281", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 400,
	 .t2 = Q1, .v2 = 1, .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 9, .proto = 0x0281,
	 .raw_len = 8, .kind = CLS_DROP, .drop = CLS_DROP_PPP_PROTO, .line = 1},
	{.name = "sess broadcast", .map = LAB, .dst = D_BCAST, .t1 = QA, .v1 = 400, .t2 = Q1,
	 .v2 = 1, .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 9, .proto = CLS_PPP_IPV4,
	 .kind = CLS_DROP, .drop = CLS_DROP_DST_MAC, .line = 1},
	{.name = "sess to core MAC", .map = LAB, .dst = LAB_CORE, .t1 = QA, .v1 = 400, .t2 = Q1,
	 .v2 = 1, .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 9, .proto = CLS_PPP_IPV4,
	 .kind = CLS_DROP, .drop = CLS_DROP_DST_MAC, .line = 1},
	{.name = "disc to multicast", .map = LAB, .dst = 0x01005e000001ULL, .t1 = QA, .v1 = 400,
	 .t2 = Q1, .v2 = 1, .et = DISC, .l3 = L3_PPPOE, .vt = 0x11, .code = CLS_PADI,
	 .kind = CLS_DROP, .drop = CLS_DROP_DST_MAC, .line = 1},
	/* IPv4 / IPv6 header checks, in a session and on the core. */
	{.name = "sess ipv4 version 6", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 400, .t2 = Q1,
	 .v2 = 1, .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 9, .proto = CLS_PPP_IPV4,
	 .ip0 = 0x65, .kind = CLS_DROP, .drop = CLS_DROP_IPV4_VERSION, .line = 1},
	{.name = "sess ipv4 ihl 4", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 400, .t2 = Q1,
	 .v2 = 1, .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 9, .proto = CLS_PPP_IPV4,
	 .ip0 = 0x44, .kind = CLS_DROP, .drop = CLS_DROP_IPV4_IHL, .line = 1},
	{.name = "sess ipv4 ihl 15 > total", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 400,
	 .t2 = Q1, .v2 = 1, .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 9,
	 .proto = CLS_PPP_IPV4, .ip0 = 0x4f, .ip_len_delta = -40, .kind = CLS_DROP,
	 .drop = CLS_DROP_IPV4_TOTAL_LEN, .line = 1},
	{.name = "sess ipv4 total length +1", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 400,
	 .t2 = Q1, .v2 = 1, .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 9,
	 .proto = CLS_PPP_IPV4, .ip_len_delta = 1, .kind = CLS_DROP,
	 .drop = CLS_DROP_IPV4_TOTAL_LEN, .line = 1},
	{.name = "sess ipv4 total length -4 (PPPoE longer)", .map = LAB, .dst = D_AC, .t1 = QA,
	 .v1 = 400, .t2 = Q1, .v2 = 1, .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 9,
	 .proto = CLS_PPP_IPV4, .ip_len_delta = -4, .kind = CLS_PPPOE_SESS_IPV4, .line = 1,
	 .l3_off = 30, .l3_len = 80},
	{.name = "sess ipv6 version 4", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 400, .t2 = Q1,
	 .v2 = 1, .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 9, .proto = CLS_PPP_IPV6,
	 .ip0 = 0x40, .kind = CLS_DROP, .drop = CLS_DROP_IPV6_VERSION, .line = 1},
	{.name = "sess ipv6 payload +1", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 400, .t2 = Q1,
	 .v2 = 1, .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 9, .proto = CLS_PPP_IPV6,
	 .ip_len_delta = 1, .kind = CLS_DROP, .drop = CLS_DROP_IPV6_PAYLOAD_LEN, .line = 1},
	/* IPoE in QinQ. */
	{.name = "ipoe ipv4", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 400, .t2 = Q1, .v2 = 1,
	 .et = CLS_ETH_IPV4, .l3 = L3_IPV4, .kind = CLS_IPOE_IPV4, .line = 1, .l3_off = 22,
	 .l3_len = 84},
	{.name = "ipoe ipv4 broadcast, padded", .map = LAB, .dst = D_BCAST, .t1 = QA, .v1 = 400,
	 .t2 = Q1, .v2 = 1, .et = CLS_ETH_IPV4, .l3 = L3_IPV4, .pad_to = 200,
	 .kind = CLS_IPOE_IPV4, .line = 1, .l3_off = 22, .l3_len = 84},
	{.name = "ipoe ipv6", .map = LAB, .dst = D_AC, .t1 = Q1, .v1 = 300, .t2 = Q1,
	 .v2 = 2500, .et = CLS_ETH_IPV6, .l3 = L3_IPV6, .kind = CLS_IPOE_IPV6, .line = 0,
	 .l3_off = 22, .l3_len = 104},
	{.name = "ipoe ipv6 to 33:33:00:00:00:02 (RS)", .map = LAB, .dst = 0x333300000002ULL,
	 .t1 = Q1, .v1 = 300, .t2 = Q1, .v2 = 2500, .et = CLS_ETH_IPV6, .l3 = L3_IPV6,
	 .kind = CLS_IPOE_IPV6, .line = 0, .l3_off = 22, .l3_len = 104},
	{.name = "ipoe ipv6 to broadcast", .map = LAB, .dst = D_BCAST, .t1 = Q1, .v1 = 300,
	 .t2 = Q1, .v2 = 2500, .et = CLS_ETH_IPV6, .l3 = L3_IPV6, .kind = CLS_DROP,
	 .drop = CLS_DROP_DST_MAC, .line = 0},
	{.name = "ipoe ipv6 to 01:00:5e:00:00:01", .map = LAB, .dst = 0x01005e000001ULL, .t1 = Q1,
	 .v1 = 300, .t2 = Q1, .v2 = 2500, .et = CLS_ETH_IPV6, .l3 = L3_IPV6, .kind = CLS_DROP,
	 .drop = CLS_DROP_DST_MAC, .line = 0},
	{.name = "ipoe ipv4 to 33:33:00:00:00:01", .map = LAB, .dst = 0x333300000001ULL, .t1 = QA,
	 .v1 = 400, .t2 = Q1, .v2 = 1, .et = CLS_ETH_IPV4, .l3 = L3_IPV4, .kind = CLS_DROP,
	 .drop = CLS_DROP_DST_MAC, .line = 1},
	{.name = "qinq arp", .map = LAB, .dst = D_BCAST, .t1 = QA, .v1 = 400, .t2 = Q1, .v2 = 1,
	 .et = CLS_ETH_ARP, .l3 = L3_ARP, .kind = CLS_IPOE_ARP, .line = 1, .l3_off = 22,
	 .l3_len = 28},
	{.name = "qinq arp to the ac mac", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 400, .t2 = Q1,
	 .v2 = 1, .et = CLS_ETH_ARP, .l3 = L3_ARP, .kind = CLS_IPOE_ARP, .line = 1, .l3_off = 22,
	 .l3_len = 28},
	/* Core side, untagged on the lab map. */
	{.name = "core ipv4", .map = LAB, .dst = D_CORE, .et = CLS_ETH_IPV4, .l3 = L3_IPV4,
	 .kind = CLS_CORE_IPV4, .line = CLS_NO_LINE, .l3_off = 14, .l3_len = 84},
	{.name = "core ipv4 small padded", .map = LAB, .dst = D_CORE, .et = CLS_ETH_IPV4,
	 .l3 = L3_IPV4, .ip_len_delta = -56, .pad_to = 60, .kind = CLS_CORE_IPV4,
	 .line = CLS_NO_LINE, .l3_off = 14, .l3_len = 28},
	{.name = "core arp broadcast", .map = LAB, .dst = D_BCAST, .et = CLS_ETH_ARP,
	 .l3 = L3_ARP, .pad_to = 60, .kind = CLS_CORE_ARP, .line = CLS_NO_LINE, .l3_off = 14,
	 .l3_len = 28},
	{.name = "core arp unicast", .map = LAB, .dst = D_CORE, .et = CLS_ETH_ARP, .l3 = L3_ARP,
	 .kind = CLS_CORE_ARP, .line = CLS_NO_LINE, .l3_off = 14, .l3_len = 28},
	{.name = "core arp short", .map = LAB, .dst = D_BCAST, .et = CLS_ETH_ARP, .l3 = L3_ARP,
	 .trunc = 1, .kind = CLS_DROP, .drop = CLS_DROP_ARP_BAD, .line = CLS_NO_LINE},
	{.name = "core arp not ethernet/ipv4", .map = LAB, .dst = D_BCAST, .et = CLS_ETH_ARP,
	 .l3 = L3_ARP, .ip0 = 0x06, .kind = CLS_DROP, .drop = CLS_DROP_ARP_BAD,
	 .line = CLS_NO_LINE},
	{.name = "core arp to AC MAC", .map = LAB, .dst = LAB_AC, .et = CLS_ETH_ARP,
	 .l3 = L3_ARP, .kind = CLS_DROP, .drop = CLS_DROP_DST_MAC, .line = CLS_NO_LINE},
	{.name = "core ipv4 broadcast", .map = LAB, .dst = D_BCAST, .et = CLS_ETH_IPV4,
	 .l3 = L3_IPV4, .kind = CLS_DROP, .drop = CLS_DROP_DST_MAC, .line = CLS_NO_LINE},
	{.name = "core ipv4 other unicast", .map = LAB, .dst = 0x02cc00000005ULL,
	 .et = CLS_ETH_IPV4, .l3 = L3_IPV4, .kind = CLS_DROP, .drop = CLS_DROP_DST_MAC,
	 .line = CLS_NO_LINE},
	{.name = "core ipv4 bad version", .map = LAB, .dst = D_CORE, .et = CLS_ETH_IPV4,
	 .l3 = L3_IPV4, .ip0 = 0x55, .kind = CLS_DROP, .drop = CLS_DROP_IPV4_VERSION,
	 .line = CLS_NO_LINE},
	{.name = "core ipv4 total length +1", .map = LAB, .dst = D_CORE, .et = CLS_ETH_IPV4,
	 .l3 = L3_IPV4, .ip_len_delta = 1, .kind = CLS_DROP, .drop = CLS_DROP_IPV4_TOTAL_LEN,
	 .line = CLS_NO_LINE},
	{.name = "core ipv4 tagged 7 on untagged core", .map = LAB, .dst = D_CORE, .t1 = Q1,
	 .v1 = 7, .et = CLS_ETH_IPV4, .l3 = L3_IPV4, .kind = CLS_DROP,
	 .drop = CLS_DROP_CORE_VLAN, .line = CLS_NO_LINE},
	{.name = "core ipv6 untagged", .map = LAB, .dst = D_CORE, .et = CLS_ETH_IPV6,
	 .l3 = L3_IPV6, .kind = CLS_CORE_IPV6, .line = CLS_NO_LINE, .l3_off = 14, .l3_len = 104},
	{.name = "core ipv6 to another MAC", .map = LAB, .dst = 0x02cc00000099ULL,
	 .et = CLS_ETH_IPV6, .l3 = L3_IPV6, .kind = CLS_DROP, .drop = CLS_DROP_DST_MAC,
	 .line = CLS_NO_LINE},
	{.name = "core ipv6 to multicast, not nd", .map = LAB, .dst = 0x333300000001ULL,
	 .et = CLS_ETH_IPV6, .l3 = L3_IPV6, .kind = CLS_DROP, .drop = CLS_DROP_DST_MAC,
	 .line = CLS_NO_LINE},
	{.name = "core nd ns to solicited-node multicast", .map = LAB, .dst = 0x3333ff000014ULL,
	 .et = CLS_ETH_IPV6, .l3 = L3_ND, .code = 135, .kind = CLS_CORE_ND, .line = CLS_NO_LINE,
	 .l3_off = 14, .l3_len = 72},
	{.name = "core nd na unicast", .map = LAB, .dst = D_CORE, .et = CLS_ETH_IPV6, .l3 = L3_ND,
	 .code = 136, .kind = CLS_CORE_ND, .line = CLS_NO_LINE, .l3_off = 14, .l3_len = 72},
	{.name = "core nd ns to another unicast MAC", .map = LAB, .dst = 0x02cc00000099ULL,
	 .et = CLS_ETH_IPV6, .l3 = L3_ND, .code = 135, .kind = CLS_DROP, .drop = CLS_DROP_DST_MAC,
	 .line = CLS_NO_LINE},
	{.name = "core nd hop limit 64", .map = LAB, .dst = 0x3333ff000014ULL, .et = CLS_ETH_IPV6,
	 .l3 = L3_ND, .code = 135, .vt = 64, .kind = CLS_DROP, .drop = CLS_DROP_ND_BAD,
	 .line = CLS_NO_LINE},
	/* the payload runs past the frame: not ND, and multicast is no core MAC */
	{.name = "core nd truncated", .map = LAB, .dst = 0x3333ff000014ULL, .et = CLS_ETH_IPV6,
	 .l3 = L3_ND, .code = 135, .trunc = 20, .kind = CLS_DROP, .drop = CLS_DROP_DST_MAC,
	 .line = CLS_NO_LINE},
	/* a payload shorter than an NS: counted as bad ND */
	{.name = "core nd payload 8", .map = LAB, .dst = 0x3333ff000014ULL, .et = CLS_ETH_IPV6,
	 .l3 = L3_ND, .code = 135, .ip_len_delta = -24, .kind = CLS_DROP, .drop = CLS_DROP_ND_BAD,
	 .line = CLS_NO_LINE},
	{.name = "lldp", .map = LAB, .dst = 0x0180c200000eULL, .et = 0x88cc, .l3 = L3_RAW,
	 .raw_len = 40, .kind = CLS_DROP, .drop = CLS_DROP_UNKNOWN_ETHERTYPE,
	 .line = CLS_NO_LINE},
	{.name = "untagged pppoe session", .map = LAB, .dst = D_CORE, .et = SESS,
	 .l3 = L3_PPPOE, .vt = 0x11, .sid = 9, .proto = CLS_PPP_IPV4, .kind = CLS_DROP,
	 .drop = CLS_DROP_UNKNOWN_ETHERTYPE, .line = CLS_NO_LINE},
	/* Tag structure. */
	{.name = "single 8100 tag pppoe", .map = LAB, .dst = D_AC, .t1 = Q1, .v1 = 300,
	 .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 9, .proto = CLS_PPP_IPV4,
	 .kind = CLS_DROP, .drop = CLS_DROP_SINGLE_TAG, .line = CLS_NO_LINE},
	{.name = "88a8 then pppoe (no C-tag)", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 400,
	 .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 9, .proto = CLS_PPP_IPV4,
	 .kind = CLS_DROP, .drop = CLS_DROP_BAD_INNER_TPID, .line = CLS_NO_LINE},
	{.name = "88a8 then 88a8", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 400, .t2 = QA,
	 .v2 = 1, .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 9, .proto = CLS_PPP_IPV4,
	 .kind = CLS_DROP, .drop = CLS_DROP_BAD_INNER_TPID, .line = CLS_NO_LINE},
	{.name = "8100 then 88a8", .map = LAB, .dst = D_AC, .t1 = Q1, .v1 = 300, .t2 = QA,
	 .v2 = 2000, .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 9, .proto = CLS_PPP_IPV4,
	 .kind = CLS_DROP, .drop = CLS_DROP_BAD_INNER_TPID, .line = CLS_NO_LINE},
	{.name = "9100 outer", .map = LAB, .dst = D_AC, .t1 = CLS_ETH_QINQ_OLD, .v1 = 400,
	 .t2 = Q1, .v2 = 1, .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 9,
	 .proto = CLS_PPP_IPV4, .kind = CLS_DROP, .drop = CLS_DROP_UNKNOWN_ETHERTYPE,
	 .line = CLS_NO_LINE},
	{.name = "qinq unknown ethertype", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 400,
	 .t2 = Q1, .v2 = 1, .et = 0x1234, .l3 = L3_RAW, .raw_len = 46, .kind = CLS_DROP,
	 .drop = CLS_DROP_UNKNOWN_ETHERTYPE, .line = 1},
	/* Runts. */
	{.name = "runt 13", .map = LAB, .dst = D_CORE, .et = CLS_ETH_IPV4, .l3 = L3_NONE,
	 .trunc = 1, .kind = CLS_DROP, .drop = CLS_DROP_RUNT, .line = CLS_NO_LINE},
	{.name = "runt 17 (one tag cut)", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 400,
	 .t2 = Q1, .v2 = 1, .et = SESS, .l3 = L3_NONE, .trunc = 5, .kind = CLS_DROP,
	 .drop = CLS_DROP_RUNT, .line = CLS_NO_LINE},
	{.name = "runt 21 (C-tag cut)", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 400, .t2 = Q1,
	 .v2 = 1, .et = SESS, .l3 = L3_NONE, .trunc = 1, .kind = CLS_DROP,
	 .drop = CLS_DROP_RUNT, .line = CLS_NO_LINE},
	{.name = "runt pppoe header cut", .map = LAB, .dst = D_AC, .t1 = QA, .v1 = 400,
	 .t2 = Q1, .v2 = 1, .et = SESS, .l3 = L3_PPPOE, .vt = 0x11, .sid = 9,
	 .proto = CLS_PPP_LCP, .raw_len = 0, .trunc = 3, .kind = CLS_DROP,
	 .drop = CLS_DROP_RUNT, .line = 1},
};
/* clang-format on */

#define N_CASES (sizeof(cases) / sizeof(cases[0]))
#define FRAME_MAX 512

static void
put16(uint8_t *p, unsigned int v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
put_mac(uint8_t *p, uint64_t k)
{
	for (int i = 0; i < 6; i++)
		p[i] = (uint8_t)(k >> (40 - 8 * i));
}

/* IPv4 packet of 84 bytes (+ delta in total length field). */
static size_t
put_ipv4(uint8_t *p, const struct fcase *c)
{
	size_t n = (size_t)(84 + (c->ip_len_delta < 0 ? c->ip_len_delta : 0));

	memset(p, 0, n);
	p[0] = c->ip0 ? c->ip0 : 0x45;
	put16(p + 2, (unsigned int)(84 + c->ip_len_delta));
	p[8] = 64;
	p[9] = 17;
	for (size_t i = 20; i < n; i++)
		p[i] = (uint8_t)i;
	return n;
}

static size_t
put_ipv6(uint8_t *p, const struct fcase *c)
{
	memset(p, 0, 104);
	p[0] = c->ip0 ? c->ip0 : 0x60;
	put16(p + 4, (unsigned int)(64 + c->ip_len_delta));
	p[6] = 17;
	p[7] = 64;
	return 104;
}

/* IPv6 + ICMPv6 type c->code (NS 135, NA 136), hop limit c->vt (0: 255), 32 bytes of ND. */
static size_t
put_nd(uint8_t *p, const struct fcase *c)
{
	memset(p, 0, 72);
	p[0] = 0x60;
	put16(p + 4, (unsigned int)(32 + c->ip_len_delta));
	p[6] = 58;
	p[7] = c->vt ? c->vt : 255;
	p[40] = c->code;
	return 72;
}

static size_t
put_arp(uint8_t *p, const struct fcase *c)
{
	memset(p, 0, 28);
	put16(p, c->ip0 ? c->ip0 : 1);
	put16(p + 2, CLS_ETH_IPV4);
	p[4] = 6;
	p[5] = 4;
	put16(p + 6, 1);
	return 28;
}

/* Build the frame of a case; returns its length. */
static size_t
build(const struct fcase *c, uint8_t *f)
{
	const struct dp_config *cfg = cfgs[c->map];
	uint64_t dst = c->dst;
	size_t off, l3;
	uint8_t *pp;

	memset(f, 0, FRAME_MAX);
	if (dst == D_AC && c->line >= 0 && c->line < cfg->n_lines)
		dst = mac_key(cfg->line_groups[cfg->lines[c->line].group].ac_mac);
	else if (dst == D_AC)
		dst = mac_key(cfg->line_groups[0].ac_mac);
	else if (dst == D_CORE)
		dst = mac_key(cfg->line_groups[0].core_mac);
	put_mac(f, dst);
	put_mac(f + 6, 0x020000aabbccULL);
	off = 12;
	if (c->t1) {
		put16(f + off, c->t1);
		put16(f + off + 2, c->v1);
		off += 4;
		if (c->t2) {
			put16(f + off, c->t2);
			put16(f + off + 2, c->v2);
			off += 4;
		}
	}
	put16(f + off, c->et);
	off += 2;
	switch (c->l3) {
	case L3_NONE:
		break;
	case L3_PPPOE:
		pp = f + off;
		pp[0] = c->vt;
		pp[1] = c->code;
		put16(pp + 2, c->sid);
		off += 6;
		if (c->et == CLS_ETH_PPPOE_SESS) {
			put16(f + off, c->proto);
			off += 2;
			if (c->proto == CLS_PPP_IPV4)
				l3 = put_ipv4(f + off, c);
			else if (c->proto == CLS_PPP_IPV6)
				l3 = put_ipv6(f + off, c);
			else
				l3 = (size_t)c->raw_len;
			off += l3;
			put16(pp + 4, (unsigned int)((int)(l3 + 2) + c->plen_delta));
		} else {
			off += (size_t)c->raw_len;
			put16(pp + 4, (unsigned int)(c->raw_len + c->plen_delta));
		}
		break;
	case L3_IPV4:
		off += put_ipv4(f + off, c);
		break;
	case L3_IPV6:
		off += put_ipv6(f + off, c);
		break;
	case L3_ARP:
		off += put_arp(f + off, c);
		break;
	case L3_ND:
		off += put_nd(f + off, c);
		break;
	case L3_RAW:
		off += (size_t)c->raw_len;
		break;
	}
	if (c->pad_to > 0 && off < (size_t)c->pad_to)
		off = (size_t)c->pad_to;
	return off - (size_t)c->trunc;
}

static struct cls_counters total;
static uint64_t frames;

/* Classify from an exact-size heap copy so ASan sees reads past len. */
static enum cls_kind
run(const struct line_map *m, const uint8_t *f, size_t len, struct cls_result *r)
{
	uint8_t *copy = malloc(len ? len : 1);
	enum cls_kind k;

	memcpy(copy, f, len);
	frames++;
	k = classify_frame(m, copy, (uint32_t)len, r, &total);
	free(copy);
	return k;
}

static const char *seed_dir;

static void
write_seed(unsigned int i, int map, const uint8_t *f, size_t len)
{
	char path[4096];
	uint8_t sel = (uint8_t)map;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/case-%03u", seed_dir, i);
	fp = fopen(path, "wb");
	if (fp == NULL)
		return;
	fwrite(&sel, 1, 1, fp);
	fwrite(f, 1, len, fp);
	fclose(fp);
}

static bool
result_sane(const struct cls_result *r, size_t len)
{
	if (r->kind >= CLS_KIND_MAX || r->drop >= CLS_DROP_MAX)
		return false;
	if ((r->kind == CLS_DROP) != (r->drop != CLS_DROP_NONE))
		return false;
	if (r->kind == CLS_DROP)
		return r->l3_off == 0 && r->l3_len == 0;
	return (size_t)r->l3_off + r->l3_len <= len;
}

static void
test_cases(void)
{
	bool kind_hit[CLS_KIND_MAX] = {0}, drop_hit[CLS_DROP_MAX] = {0};
	static uint8_t f[FRAME_MAX];
	struct cls_result r;
	char what[160];
	size_t len, l;
	unsigned int i;

	for (i = 0; i < N_CASES; i++) {
		const struct fcase *c = &cases[i];
		struct cls_counters before = total;
		enum cls_kind k;

		len = build(c, f);
		if (seed_dir != NULL)
			write_seed(i, c->map, f, len);
		k = run(maps[c->map], f, len, &r);
		snprintf(what, sizeof(what), "kind %s drop %s line %u l3 %u+%u (len %zu)",
			 cls_kind_names[r.kind], cls_drop_names[r.drop], r.line, r.l3_off, r.l3_len,
			 len);
		check(k == c->kind && r.kind == c->kind && r.drop == c->drop, c->name, what);
		check(c->line == ANY || r.line == c->line, c->name, what);
		if (c->kind != CLS_DROP) {
			check(r.l3_off == c->l3_off && r.l3_len == c->l3_len, c->name, what);
			check(r.stag == (c->t1 ? c->v1 : 0) && r.ctag == (c->t2 ? c->v2 : 0),
			      c->name, "stag/ctag");
		}
		if (c->et == CLS_ETH_PPPOE_SESS && c->kind != CLS_DROP)
			check(r.sid == c->sid && r.proto == c->proto, c->name, "sid/proto");
		check(result_sane(&r, len), c->name, "result invariants");
		check(total.kind[c->kind] == before.kind[c->kind] + 1 &&
			      total.drop[c->drop] ==
				      before.drop[c->drop] + (c->kind == CLS_DROP ? 1 : 0),
		      c->name, "counters");
		kind_hit[r.kind] = true;
		drop_hit[r.drop] = true;

		/* Every shorter length: sane, and a drop unless padding was cut. */
		for (l = 0; l < len; l++) {
			k = run(maps[c->map], f, l, &r);
			if (!result_sane(&r, l)) {
				snprintf(what, sizeof(what), "truncated to %zu: bad result", l);
				check(false, c->name, what);
				break;
			}
			if (c->kind != CLS_DROP && c->pad_to == 0 && k != CLS_DROP) {
				snprintf(what, sizeof(what), "truncated to %zu: not dropped", l);
				check(false, c->name, what);
				break;
			}
		}
		check(l == len, c->name, "every truncation");
	}
	for (i = 0; i < CLS_KIND_MAX; i++) {
		snprintf(what, sizeof(what), "kind %s hit by a case", cls_kind_names[i]);
		check(kind_hit[i], "coverage", what);
	}
	for (i = 1; i < CLS_DROP_MAX; i++) {
		snprintf(what, sizeof(what), "drop %s hit by a case", cls_drop_names[i]);
		check(drop_hit[i], "coverage", what);
	}
}

static void
mark(bool *set, int v)
{
	if (v >= 0 && v < LM_NUM_STAGS)
		set[v] = true;
}

/*
 * Lookup against the linear scan for every (S, C) where S and C are each a
 * range edge (lo - 1, lo, hi, hi + 1 of some line), 0, 4095 or a multiple of
 * step.
 */
static void
test_lookup_all(const char *name, const struct dp_config *cfg, const struct line_map *m,
		unsigned int step)
{
	static bool sv[LM_NUM_STAGS], cv[LM_NUM_STAGS];
	unsigned int s, c, i, bad = 0;

	for (i = 0; i < LM_NUM_STAGS; i++)
		sv[i] = cv[i] = i % step == 0 || i == LM_NUM_STAGS - 1;
	for (i = 0; i < cfg->n_lines; i++) {
		const struct dp_line *l = &cfg->lines[i];

		for (int d = -1; d <= 0; d++) {
			mark(sv, l->stag.lo + d);
			mark(sv, l->stag.hi - d);
			mark(cv, l->ctag.lo + d);
			mark(cv, l->ctag.hi - d);
		}
	}
	for (s = 0; s < LM_NUM_STAGS; s++)
		for (c = 0; sv[s] && c < LM_NUM_STAGS; c++)
			if (cv[c] &&
			    line_map_lookup(m, (uint16_t)s, (uint16_t)c) != ref_lookup(cfg, s, c))
				bad++;
	check(bad == 0, name, "lookup equals the linear scan");
}

/* A synthetic map at the limits: 1024 lines, 32 per S-tag, in 128-wide C blocks. */
static void
test_synthetic(void)
{
	struct dp_config *cfg = calloc(1, sizeof(*cfg));
	struct line_map *m = malloc(sizeof(*m));
	char err[256];
	unsigned int i;
	int rc;

	cfg->n_line_groups = 1;
	memcpy(cfg->line_groups[0].ac_mac, "\x02\xbb\0\0\0\x01", 6);
	memcpy(cfg->line_groups[0].core_mac, "\x02\xcc\0\0\0\x01", 6);
	cfg->n_access_ports = 1;
	cfg->n_lines = DP_MAX_LINES;
	for (i = 0; i < DP_MAX_LINES; i++) {
		struct dp_line *l = &cfg->lines[i];

		l->stag.lo = (uint16_t)(1 + (i % 32) * 128);
		l->stag.hi = (uint16_t)(l->stag.lo + 127 - i % 3);
		if (l->stag.hi > DP_VLAN_ID_MAX)
			l->stag.hi = DP_VLAN_ID_MAX;
		l->ctag.lo = (uint16_t)(1 + (i / 32) * 128);
		l->ctag.hi = (uint16_t)(l->ctag.lo + 100);
	}
	rc = line_map_build(m, cfg, err, sizeof(err));
	check(rc == 0, "synthetic 1024 lines", err);
	if (rc == 0)
		test_lookup_all("synthetic 1024 lines", cfg, m, 97);

	/* Overlap is refused even though the loader would have caught it. */
	cfg->lines[32].ctag.lo = 50;
	rc = line_map_build(m, cfg, err, sizeof(err));
	check(rc == -EINVAL && strstr(err, "overlap") != NULL && m->stag[1] == LM_NONE,
	      "synthetic overlap", err);
	cfg->lines[32].ctag.lo = 129;

	cfg->lines[5].group = 1;
	rc = line_map_build(m, cfg, err, sizeof(err));
	check(rc == -EINVAL && strstr(err, "line.5") != NULL, "synthetic bad group", err);
	cfg->lines[5].group = 0;

	/* 512 lines on every S-tag plus one per S-tag 1..512: 512 distinct runs of 513. */
	for (i = 0; i < DP_MAX_LINES; i++) {
		struct dp_line *l = &cfg->lines[i];

		if (i < 512) {
			l->stag.lo = 1;
			l->stag.hi = DP_VLAN_ID_MAX;
			l->ctag.lo = l->ctag.hi = (uint16_t)(i + 1);
		} else {
			l->stag.lo = l->stag.hi = (uint16_t)(i - 511);
			l->ctag.lo = l->ctag.hi = 2000;
		}
	}
	rc = line_map_build(m, cfg, err, sizeof(err));
	check(rc == -ENOSPC, "synthetic too many runs", err);
	free(m);
	free(cfg);
}

static void
test_burst(void)
{
	static uint8_t bufs[8][FRAME_MAX];
	struct rte_mbuf mb[8], *pkts[8];
	struct cls_result res[8], one;
	struct cls_counters c1 = {0}, c2 = {0};
	uint16_t kept, want = 0;
	unsigned int i;

	memset(mb, 0, sizeof(mb));
	for (i = 0; i < 8; i++) {
		const struct fcase *c = &cases[i * 7 % N_CASES];
		size_t len;

		/* All on the lab map: pick lab cases only. */
		while (c->map != LAB)
			c++;
		len = build(c, bufs[i]);
		mb[i].buf_addr = bufs[i];
		mb[i].data_off = 0;
		mb[i].data_len = (uint16_t)len;
		mb[i].pkt_len = (uint32_t)len;
		mb[i].nb_segs = 1;
		pkts[i] = &mb[i];
		want += classify_frame(maps[LAB], bufs[i], (uint32_t)len, &one, &c1) != CLS_DROP;
	}
	kept = classify_burst(maps[LAB], pkts, 8, res, &c2);
	check(kept == want && memcmp(&c1, &c2, sizeof(c1)) == 0, "burst", "same as one by one");
	for (i = 0; i < 8; i++) {
		classify_frame(maps[LAB], bufs[i], mb[i].data_len, &one, &c1);
		check(memcmp(&one, &res[i], sizeof(one)) == 0, "burst", "result per frame");
	}
	check(classify_burst(maps[LAB], pkts, 0, res, &c2) == 0, "burst", "empty burst");
}

static void
test_counters(void)
{
	uint64_t sum = 0, drops = 0;
	unsigned int i;

	for (i = 0; i < CLS_KIND_MAX; i++)
		sum += total.kind[i];
	for (i = 0; i < CLS_DROP_MAX; i++)
		drops += total.drop[i];
	check(sum == frames, "counters", "sum of kinds == frames classified");
	check(drops == total.kind[CLS_DROP] && total.drop[CLS_DROP_NONE] == 0, "counters",
	      "sum of drop reasons == drops");
}

static void
test_names(void)
{
	unsigned int i;

	for (i = 0; i < CLS_KIND_MAX; i++)
		check(cls_kind_names[i] != NULL, "names", "every kind has a name");
	for (i = 0; i < CLS_DROP_MAX; i++)
		check(cls_drop_names[i] != NULL, "names", "every drop reason has a name");
}

/* A PPPoE session IPv4 frame (20-byte packet) to dst on (S, C), or an untagged core one. */
static size_t
standby_frame(uint8_t *f, uint64_t dst, uint16_t stag, uint16_t ctag)
{
	size_t off = 12;

	memset(f, 0, 128);
	put_mac(f, dst);
	put_mac(f + 6, 0x020000aabbccULL);
	if (stag != 0) {
		put16(f + 12, CLS_ETH_QINQ);
		put16(f + 14, stag);
		put16(f + 16, CLS_ETH_VLAN);
		put16(f + 18, ctag);
		put16(f + 20, CLS_ETH_PPPOE_SESS);
		f[22] = 0x11;
		put16(f + 24, 7);
		put16(f + 26, 22);
		put16(f + 28, CLS_PPP_IPV4);
		off = 30;
	} else {
		put16(f + 12, CLS_ETH_IPV4);
		off = 14;
	}
	f[off] = 0x45;
	put16(f + off + 2, 20);
	f[off + 8] = 64;
	return off + 20 < 60 ? 60 : off + 20;
}

/*
 * Standby groups: the lab pod as dp1 sees it (lg1 served, lg2..lg4
 * standby). Their lines and core MACs are not in the map until adopted;
 * dp_config_adopt_check() guards adoption against the served groups.
 */
static void
test_standby(const char *dir)
{
	struct dp_config *cfg = calloc(1, sizeof(*cfg));
	struct line_map *m = calloc(1, sizeof(*m));
	struct cls_result r;
	char path[4096], err[256];
	uint8_t f[128];
	size_t n;
	int rc;

	snprintf(path, sizeof(path), "%s/lab_dp1_pod.ini", dir);
	rc = dp_config_load(path, cfg, err, sizeof(err));
	if (rc == 0)
		rc = line_map_build(m, cfg, err, sizeof(err));
	check(rc == 0, "standby: lab_dp1_pod loads", err);
	if (rc != 0)
		goto out;
	check(cfg->n_line_groups == 4 && !cfg->line_groups[0].standby &&
		      cfg->line_groups[1].standby && cfg->line_groups[2].standby &&
		      cfg->line_groups[3].standby,
	      "standby: flags from the file", "lg1 served, others standby");
	check(line_map_lookup(m, 100, 7) == 0 && line_map_lookup(m, 200, 7) == CLS_NO_LINE &&
		      line_map_lookup(m, 155, 7) == CLS_NO_LINE &&
		      line_map_lookup(m, 300, 5) == CLS_NO_LINE &&
		      line_map_lookup(m, 420, 5) == CLS_NO_LINE,
	      "standby: lines not in the map", "only lg1's");
	check(m->n_core_macs == 1 && m->core_macs[0] == mac_key(cfg->line_groups[0].core_mac),
	      "standby: core MACs", "only lg1's");
	n = standby_frame(f, mac_key(cfg->line_groups[1].ac_mac), 200, 7);
	check(run(m, f, n, &r) == CLS_DROP && r.drop == CLS_DROP_UNSERVED_LINE,
	      "standby: lg2 frame", "unserved_line");
	n = standby_frame(f, mac_key(cfg->line_groups[1].core_mac), 0, 0);
	check(run(m, f, n, &r) == CLS_DROP && r.drop == CLS_DROP_DST_MAC, "standby: lg2 core MAC",
	      "dst_mac");

	/* adoption checks */
	check(dp_config_adopt_check(cfg, 1, 0x6440000c, err, sizeof(err)) == 0, "adopt: lg2", err);
	check(dp_config_adopt_check(cfg, 1, 0x6440000d, err, sizeof(err)) == 0,
	      "adopt: a standby group's core address", err);
	check(dp_config_adopt_check(cfg, 4, 0x6440000c, err, sizeof(err)) == -ENOENT,
	      "adopt: no group 4", err);
	check(dp_config_adopt_check(cfg, 1, 0x6440000b, err, sizeof(err)) == -EEXIST &&
		      strstr(err, "'lg1'") != NULL,
	      "adopt: lg1's core address", err);
	check(dp_config_adopt_check(cfg, 1, 0x64400001, err, sizeof(err)) == -EINVAL,
	      "adopt: the router's address", err);
	check(dp_config_adopt_check(cfg, 1, 0x64400002, err, sizeof(err)) == -EINVAL &&
		      strstr(err, "route.0") != NULL,
	      "adopt: a route's next hop", err);
	check(dp_config_adopt_check(cfg, 1, 0x64400000, err, sizeof(err)) == -EINVAL,
	      "adopt: subnet address", err);
	check(dp_config_adopt_check(cfg, 1, 0x644000ff, err, sizeof(err)) == -EINVAL,
	      "adopt: broadcast address", err);
	check(dp_config_adopt_check(cfg, 1, 0x64410001, err, sizeof(err)) == -EINVAL,
	      "adopt: outside the core subnet", err);
	/* lg3's line moved onto S 120 of another port: lg1 serves S 100-149 on access1 */
	cfg->lines[3].stag.lo = cfg->lines[3].stag.hi = 120;
	check(dp_config_adopt_check(cfg, 2, 0x6440000d, err, sizeof(err)) == -EEXIST &&
		      strstr(err, "'lg1'") != NULL && strstr(err, "access1") != NULL,
	      "adopt: S-tag served on another port", err);
	/* the same on lg1's port: C-ranges overlap (lg1 takes any) */
	cfg->lines[3].access_port = 0;
	check(dp_config_adopt_check(cfg, 2, 0x6440000d, err, sizeof(err)) == -EEXIST,
	      "adopt: (S, C) overlap on the same port", err);
	cfg->lines[3].access_port = 2;
	cfg->lines[3].stag.lo = cfg->lines[3].stag.hi = 300;
	/* lg3 and lg4 split S 300 by C-tag on access3: both may be served */
	check(dp_config_adopt_check(cfg, 2, 0x6440000d, err, sizeof(err)) == 0, "adopt: lg3", err);
	cfg->line_groups[2].standby = false;
	check(dp_config_adopt_check(cfg, 3, 0x6440000e, err, sizeof(err)) == 0,
	      "adopt: lg4 next to lg3", err);

	/* lg2 adopted: its lines and core MAC appear */
	cfg->line_groups[2].standby = true;
	cfg->line_groups[1].standby = false;
	rc = line_map_build(m, cfg, err, sizeof(err));
	check(rc == 0 && line_map_lookup(m, 200, 7) == 1 && line_map_lookup(m, 155, 7) == 2 &&
		      line_map_lookup(m, 100, 7) == 0 &&
		      line_map_lookup(m, 300, 5) == CLS_NO_LINE && m->n_core_macs == 2,
	      "adopted: lg2's lines in the map", err);
	n = standby_frame(f, mac_key(cfg->line_groups[1].ac_mac), 200, 7);
	check(run(m, f, n, &r) == CLS_PPPOE_SESS_IPV4 && r.line == 1, "adopted: lg2 frame",
	      "session IPv4 on line 1");
	n = standby_frame(f, mac_key(cfg->line_groups[1].core_mac), 0, 0);
	check(run(m, f, n, &r) == CLS_CORE_IPV4, "adopted: lg2 core MAC", "core IPv4");
	/* released again */
	cfg->line_groups[1].standby = true;
	rc = line_map_build(m, cfg, err, sizeof(err));
	check(rc == 0 && line_map_lookup(m, 200, 7) == CLS_NO_LINE && m->n_core_macs == 1,
	      "released: lg2 gone", err);
out:
	free(m);
	free(cfg);
}

int
main(int argc, char **argv)
{
	static const char *const files[N_MAPS] = {"lab_dp4.ini", "multi_group.ini"};
	char path[4096], err[256];
	int i, rc;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: %s FIXTURE_DIR [SEED_DIR]\n", argv[0]);
		return 2;
	}
	seed_dir = argc == 3 ? argv[2] : NULL;
	for (i = 0; i < N_MAPS; i++) {
		cfgs[i] = calloc(1, sizeof(*cfgs[i]));
		maps[i] = calloc(1, sizeof(*maps[i]));
		snprintf(path, sizeof(path), "%s/%s", argv[1], files[i]);
		rc = dp_config_load(path, cfgs[i], err, sizeof(err));
		if (rc == 0)
			rc = line_map_build(maps[i], cfgs[i], err, sizeof(err));
		if (rc != 0) {
			printf("FAIL %s: %s\n0 passed, 1 failed\n", files[i], err);
			return 1;
		}
		test_lookup_all(files[i], cfgs[i], maps[i], 1);
	}
	check(maps[LAB]->n_lists == 0 && maps[MULTI]->n_lists == 1 && maps[MULTI]->n_cranges == 2,
	      "map layout", "S 300 of multi_group is the only list");
	test_names();
	test_standby(argv[1]);
	test_cases();
	test_burst();
	test_synthetic();
	test_counters();
	for (i = 0; i < N_MAPS; i++) {
		free(maps[i]);
		free(cfgs[i]);
	}
	printf("%zu frame cases, %llu frames classified\n", N_CASES, (unsigned long long)frames);
	return harness_report();
}

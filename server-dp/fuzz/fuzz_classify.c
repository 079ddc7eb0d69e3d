/*
 * libFuzzer target for classify_frame().
 *
 * The line maps are built once from two fixtures (CLS_FIXTURE_DIR, set by
 * meson): lab_dp4.ini (untagged core, S 300 with a C-range, S 400-449 any)
 * and multi_group.ini (core VLAN 42, S 300 split between two groups, lg-b
 * IPoE only). The
 * first input byte picks the map, the rest is one frame, copied to an
 * exact-size heap buffer so ASan sees any read past len. Invariants:
 *   - kind and drop in range; drop != NONE exactly when kind == CLS_DROP;
 *   - a kept frame's L3 window lies inside the frame;
 *   - access kinds: the line is the one a linear scan of the configuration
 *     finds for (stag, ctag), and the destination is the line group's AC MAC
 *     (or broadcast, but never for a session frame);
 *   - core kinds: no line, destination one of the core MACs (or broadcast
 *     for ARP, an IPv6 multicast MAC for ND), tag matches the core VLAN; ND
 *     is ICMPv6 NS/NA with hop limit 255;
 *   - session kinds: session id not 0 / 0xffff; PPP protocol matches kind;
 *   - counters: exactly one kind counted, and the drop reason when dropped;
 *   - classifying the same bytes again gives the same result.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/classify_ref.h"
#include "classify.h"

#define CHECK(cond)                                                       \
	do {                                                              \
		if (!(cond)) {                                            \
			fprintf(stderr, "invariant failed: %s\n", #cond); \
			abort();                                          \
		}                                                         \
	} while (0)

static struct dp_config *cfgs[2];
static struct line_map *maps[2];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const files[2] = {"lab_dp4.ini", "multi_group.ini"};
	char path[4096], err[256];

	(void)argc;
	(void)argv;
	for (int i = 0; i < 2; i++) {
		cfgs[i] = calloc(1, sizeof(*cfgs[i]));
		maps[i] = calloc(1, sizeof(*maps[i]));
		snprintf(path, sizeof(path), "%s/%s", CLS_FIXTURE_DIR, files[i]);
		if (dp_config_load(path, cfgs[i], err, sizeof(err)) != 0 ||
		    line_map_build(maps[i], cfgs[i], err, sizeof(err)) != 0) {
			fprintf(stderr, "%s: %s\n", path, err);
			abort();
		}
	}
	return 0;
}

static int
is_core_mac(const struct dp_config *cfg, uint64_t dst)
{
	for (unsigned int i = 0; i < cfg->n_line_groups; i++)
		if (mac_key(cfg->line_groups[i].core_mac) == dst)
			return 1;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cls_counters c = {0};
	struct cls_result r, r2;
	const struct dp_config *cfg;
	const struct line_map *m;
	uint8_t *f;
	uint32_t len;
	uint64_t dst;
	unsigned int i, nk = 0, nd = 0;
	enum cls_kind k;

	if (size < 1 || size > 65536)
		return 0;
	cfg = cfgs[data[0] & 1];
	m = maps[data[0] & 1];
	len = (uint32_t)(size - 1);
	f = malloc(len ? len : 1);
	memcpy(f, data + 1, len);

	k = classify_frame(m, f, len, &r, &c);
	CHECK(k == r.kind && r.kind < CLS_KIND_MAX && r.drop < CLS_DROP_MAX);
	CHECK((r.kind == CLS_DROP) == (r.drop != CLS_DROP_NONE));
	for (i = 0; i < CLS_KIND_MAX; i++)
		nk += (unsigned int)c.kind[i];
	for (i = 0; i < CLS_DROP_MAX; i++)
		nd += (unsigned int)c.drop[i];
	CHECK(nk == 1 && c.kind[k] == 1);
	CHECK(nd == (k == CLS_DROP) && (k != CLS_DROP || c.drop[r.drop] == 1));

	if (k == CLS_DROP) {
		CHECK(r.l3_off == 0 && r.l3_len == 0);
		CHECK(r.line == CLS_NO_LINE || r.line == ref_lookup(cfg, r.stag, r.ctag));
	} else {
		CHECK((uint32_t)r.l3_off + r.l3_len <= len && r.l3_off >= 14);
		dst = mac_key(f);
		if (k == CLS_CORE_IPV4 || k == CLS_CORE_ARP || k == CLS_CORE_IPV6 ||
		    k == CLS_CORE_ND) {
			CHECK(r.line == CLS_NO_LINE && r.ctag == 0);
			CHECK(r.stag == cfg->core.vlan);
			CHECK(r.l3_off == (cfg->core.vlan ? 18 : 14));
			CHECK(is_core_mac(cfg, dst) ||
			      (k == CLS_CORE_ARP && dst == CLS_MAC_BCAST) ||
			      (k == CLS_CORE_ND && (dst >> 32) == 0x3333));
			if (k == CLS_CORE_ND)
				CHECK(r.l3_len >= 64 && f[r.l3_off + 6] == 58 &&
				      f[r.l3_off + 7] == 255 &&
				      (f[r.l3_off + 40] == 135 || f[r.l3_off + 40] == 136));
		} else {
			CHECK(len >= 22 && r.l3_off >= 22);
			CHECK(r.line != CLS_NO_LINE && r.line == ref_lookup(cfg, r.stag, r.ctag));
			CHECK(r.stag == (cls_be16(f + 14) & 0xfff) &&
			      r.ctag == (cls_be16(f + 18) & 0xfff));
			CHECK(dst == mac_key(cfg->line_groups[cfg->lines[r.line].group].ac_mac) ||
			      (dst == CLS_MAC_BCAST && k != CLS_PPPOE_SESS_IPV4 &&
			       k != CLS_PPPOE_SESS_IPV6 && k != CLS_PPPOE_SESS_CTRL));
		}
		if (k == CLS_PPPOE_SESS_IPV4 || k == CLS_PPPOE_SESS_IPV6 ||
		    k == CLS_PPPOE_SESS_CTRL) {
			CHECK(r.sid != 0 && r.sid != 0xffff && r.l3_off == 30);
			CHECK((k == CLS_PPPOE_SESS_IPV4) == (r.proto == CLS_PPP_IPV4));
			CHECK((k == CLS_PPPOE_SESS_IPV6) == (r.proto == CLS_PPP_IPV6));
		}
		if (k == CLS_PPPOE_SESS_IPV4 || k == CLS_IPOE_IPV4 || k == CLS_CORE_IPV4)
			CHECK((f[r.l3_off] >> 4) == 4 && r.l3_len >= 20 &&
			      r.l3_len == cls_be16(f + r.l3_off + 2));
		if (k == CLS_PPPOE_SESS_IPV6 || k == CLS_IPOE_IPV6 || k == CLS_CORE_IPV6 ||
		    k == CLS_CORE_ND)
			CHECK((f[r.l3_off] >> 4) == 6 &&
			      r.l3_len == 40 + cls_be16(f + r.l3_off + 4));
		if (k == CLS_PPPOE_DISC)
			CHECK(r.l3_off == 22 && f[22] == 0x11 && r.l3_len == 6 + cls_be16(f + 26));
		if (k == CLS_IPOE_ARP)
			CHECK(r.l3_off == 22 && r.l3_len == 28 && cls_be16(f + 20) == CLS_ETH_ARP &&
			      cls_be16(f + 22) == 1 && cls_be16(f + 24) == CLS_ETH_IPV4 &&
			      f[26] == 6 && f[27] == 4 && r.sid == 0);
		if (k == CLS_IPOE_IPV4 || k == CLS_IPOE_IPV6)
			CHECK(r.l3_off == 22 && r.sid == 0); /* IPoE keys carry PPPoE id 0 */
		if (r.line != CLS_NO_LINE)
			CHECK(!(m->lines[r.line].flags & LM_LINE_IPOE) ==
			      !(cfg->line_groups[cfg->lines[r.line].group].session_types &
				DP_SESSION_TYPE_IPOE));
	}

	classify_frame(m, f, len, &r2, &c);
	CHECK(memcmp(&r, &r2, sizeof(r)) == 0);
	free(f);
	return 0;
}

/*
 * bng-dp control redirect codec: whole access-side Ethernet frames (tags
 * kept) inside VXLAN (RFC 7348), between the DP and the CP.
 *
 * The UDP/IPv4 part is an ordinary kernel UDP socket of the control thread
 * ([instance] vxlan_port, 4789), which also drops every datagram that does not
 * come from the allow-listed CP address before it gets here. This module only
 * builds and checks the 8-byte VXLAN header, and checks what the CP asks the
 * DP to put on the access port:
 *
 *   VXLAN header  flags (8 bits, I = 0x08), reserved (24), VNI (24), reserved (8)
 *   VNI           the instance's numeric id ([instance] id, 1..2^24-1); the CP
 *                 derives the access port from (instance, S-tag)
 *
 * vxlan_decap() on receive (RFC 7348 5: the I flag must be set; other flag
 * and reserved bits are ignored on receipt, here also counted), the VNI, and
 * the inner length: at least Ethernet + two tags (22 bytes), at most
 * VXLAN_MAX_INNER (a PPPoE session frame of the largest session MTU).
 *
 * vxlan_inject_check() is the guard in front of the access port: the inner
 * frame must be a frame an access concentrator may send on one of this
 * instance's lines. So a compromised CP, or a datagram with a spoofed CP source
 * address, cannot put arbitrary frames on the access port:
 *   - QinQ: outer TPID 0x8100 or 0x88a8, inner 0x8100;
 *   - (S-tag, C-tag) a line of this instance (line_map_lookup());
 *   - ethertype PPPoE discovery or session, or IPv4 (below);
 *   - source MAC = the AC MAC of the line's group (the CP answers as the AC);
 *   - destination unicast and not zero (PADO, PADS, PADT and session frames
 *     are unicast; the AC never broadcasts in PPPoE);
 *   - PPPoE ver/type 0x11, PPPoE length inside the frame;
 *   - discovery: only the AC's codes, PADO (session id 0), PADS and PADT
 *     (session id not 0 / 0xffff);
 *   - session: code 0, session id not 0 / 0xffff, PPP protocol one of LCP,
 *     PAP, CHAP, IPCP, IPV6CP (the CP never sends subscriber data);
 *   - or IPv4 (IPoE): only on a line of a group that allows IPoE, from the
 *     AC MAC, to a unicast client MAC or broadcast, an unfragmented UDP
 *     datagram from port 67 to port 68 (the CP's DHCP answers).
 * Every refusal is counted by reason; nothing is logged, nothing allocated.
 */

#ifndef BNG_VXLAN_H
#define BNG_VXLAN_H

#include <stddef.h>
#include <stdint.h>

#include "classify.h"

#define VXLAN_HLEN 8
#define VXLAN_FLAG_I 0x08
#define VXLAN_MAX_VNI 0xffffffu
#define VXLAN_MIN_INNER 22   /* Ethernet + S-tag + C-tag */
#define VXLAN_MAX_INNER 9030 /* 30-byte access header + a 9000-byte PPP MTU */

#define VXLAN_PADO 0x07
#define VXLAN_PADS 0x65

/* Decap and inject outcomes, with their telemetry names: vxlan.def. */
enum vxlan_count {
#define VXLAN_COUNT_DEF(sym, name) VXLAN_##sym,
#include "vxlan.def"
#undef VXLAN_COUNT_DEF
	VXLAN_COUNT_MAX
};

extern const char *const vxlan_count_names[VXLAN_COUNT_MAX];

/* Plain increments by the control thread; c may be NULL in every call. */
struct vxlan_counters {
	uint64_t c[VXLAN_COUNT_MAX];
};

/*
 * Write the VXLAN header for vni and the frame into dgram (cap bytes). Returns
 * the datagram length (8 + len), -EINVAL (vni 0 or above 2^24 - 1, len outside
 * VXLAN_MIN_INNER..VXLAN_MAX_INNER) or -ENOSPC. frame may overlap dgram (it is
 * moved before the header is written), e.g. already sit at dgram + 8.
 */
int vxlan_encap(uint8_t *dgram, size_t cap, uint32_t vni, const uint8_t *frame, uint16_t len);

/*
 * Check a received datagram (the UDP payload) for vni. Returns 0 with *frame
 * pointing into dgram and *flen its length, or -EINVAL (counted by reason).
 */
int vxlan_decap(const uint8_t *dgram, size_t len, uint32_t vni, const uint8_t **frame,
		uint16_t *flen, struct vxlan_counters *c);

/*
 * Check a frame from the CP before it goes out on the access port (see the
 * header comment). Returns the line index (>= 0), or -EPERM (counted by
 * reason).
 */
int vxlan_inject_check(const struct line_map *lm, const uint8_t *frame, uint16_t len,
		       struct vxlan_counters *c);

#endif /* BNG_VXLAN_H */

/*
 * IPv6 Neighbor Discovery on the core side (RFC 4861): parsing of Neighbor
 * Solicitations and Advertisements, and the frames bng-dp sends: the
 * Neighbor Advertisement of a line group's core IPv6 address (solicited, or
 * unsolicited to all nodes like gratuitous ARP) and the Neighbor
 * Solicitation that resolves the core router's IPv6 address.
 *
 * Every input is hostile: nd_parse() checks version, next header, hop limit
 * 255, ICMPv6 code 0, the ICMPv6 checksum, lengths and every option's
 * length before it reports anything. Plain C, no allocation, bounded work.
 */

#ifndef BNG_ND_H
#define BNG_ND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ND_TYPE_NS 135
#define ND_TYPE_NA 136
#define ND_OPT_SLLA 1
#define ND_OPT_TLLA 2
#define ND_NA_R 0x80	/* router */
#define ND_NA_S 0x40	/* solicited */
#define ND_NA_O 0x20	/* override */
#define ND_FRAME_MAX 90 /* Ethernet + VLAN + IPv6 + NS/NA with a link-layer option */

struct nd_msg {
	uint8_t type;  /* ND_TYPE_NS or ND_TYPE_NA */
	uint8_t flags; /* NA: R, S, O */
	bool has_lla;  /* source (NS) or target (NA) link-layer address option */
	uint8_t lla[6];
	uint8_t src[16];
	uint8_t dst[16];
	uint8_t target[16];
};

/* Why nd_parse() refused a packet. */
enum nd_err {
	ND_OK = 0,
	ND_ERR_SHORT = -1,  /* shorter than IPv6 + the message, or payload length beyond */
	ND_ERR_HEADER = -2, /* not IPv6, not ICMPv6, hop limit != 255, not NS/NA, code != 0 */
	ND_ERR_CSUM = -3,   /* ICMPv6 checksum wrong */
	ND_ERR_OPTION = -4, /* an option of length 0 or past the end */
	ND_ERR_TARGET = -5, /* multicast target, NS from :: to a non-solicited-node address */
};

/* Parse the IPv6 packet ip of len bytes into *m: 0 or an enum nd_err. */
int nd_parse(const uint8_t *ip, size_t len, struct nd_msg *m);

/* The solicited-node multicast address (ff02::1:ffXX:XXXX) and MAC (33:33:ff:XX:XX:XX) of a. */
void nd_solicited_node(const uint8_t *a, uint8_t ip[16], uint8_t mac[6]);

/*
 * A Neighbor Advertisement frame from (src_mac, target) to (dst_mac, dst_ip),
 * flags ND_NA_*, with the target link-layer address option src_mac; vlan 0
 * = untagged. Returns its length, or 0 when cap is too small.
 */
size_t nd_build_na(uint8_t *frame, size_t cap, const uint8_t *dst_mac, const uint8_t *src_mac,
		   uint16_t vlan, const uint8_t *dst_ip, const uint8_t *target, uint8_t flags);

/*
 * A Neighbor Solicitation for target from (src_mac, src_ip) to target's
 * solicited-node multicast address, with the source link-layer option.
 * Returns its length, or 0 when cap is too small.
 */
size_t nd_build_ns(uint8_t *frame, size_t cap, const uint8_t *src_mac, uint16_t vlan,
		   const uint8_t *src_ip, const uint8_t *target);

#endif /* BNG_ND_H */

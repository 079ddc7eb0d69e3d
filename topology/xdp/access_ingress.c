// SPDX-License-Identifier: GPL-2.0
/*
 * Ingress check of the emulated whitebox's access ports (an XDP program on the
 * switch side of each access veth, before Open vSwitch reads the frame).
 *
 * An access port carries subscriber lines, and a line is an (S-tag, C-tag)
 * pair: a frame with one VLAN tag belongs to no line. This program drops such
 * frames (counted by the kernel as the veth's rx_queue_N_xdp_drops, see
 * `ethtool -S`) and passes every other frame unchanged.
 *
 * Why not leave them to the OpenFlow fold: a split S-tag (several line groups
 * on one S-tag, told apart by C-tag) is steered by popping the S-tag and
 * matching the C-tag in a second table. Open vSwitch 3.1's userspace datapath
 * cannot express "there was no second tag" in the megaflow it caches for a
 * single-tagged frame (pop_vlan un-wildcards the inner tag only when there is
 * one), so the cached drop of one single-tagged frame on S-tag S matches every
 * double-tagged frame on S with the same EtherType until it idles out (about
 * 10 s): one malformed frame a second blocks discovery on every line of S.
 * A hardware switch has no such cache; filtering here keeps the emulation
 * faithful to it.
 */
#include <linux/bpf.h>

#define SEC(name) __attribute__((section(name), used))

#define ETH_HLEN 14
#define VLAN_HLEN 4
#define TPID_8021Q 0x8100
#define TPID_8021AD 0x88a8

static inline int
is_vlan_tpid(const unsigned char *p)
{
	unsigned int t = ((unsigned int)p[0] << 8) | p[1];

	return t == TPID_8021Q || t == TPID_8021AD;
}

SEC("xdp")
int
access_ingress(struct xdp_md *ctx)
{
	const unsigned char *data = (const void *)(long)ctx->data;
	const unsigned char *end = (const void *)(long)ctx->data_end;

	/* Untagged or too short to carry a tag: Open vSwitch drops these by a
	 * megaflow that is exact about "no tag", nothing to guard. */
	if (data + ETH_HLEN + VLAN_HLEN > end || !is_vlan_tpid(data + 12))
		return XDP_PASS;
	/* One tag and then a payload EtherType (or a truncated frame): no line. */
	if (!is_vlan_tpid(data + ETH_HLEN + 2))
		return XDP_DROP;
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";

/*
 * PFCP codec (3GPP TS 29.244, with the BBF TR-459 vendor IEs): sans-IO, no
 * allocation, no global state.
 *
 * Data layout. A message is decoded into one struct pfcp_msg: the header,
 * a bit per single-instance top-level IE that was present (PFCP_M_*), and
 * fixed-size arrays with counts for the multi-instance IEs (Create/Update/
 * Remove PDR, FAR, QER, URR, Query URR, Usage Report). Grouped IEs become
 * nested structs with their own presence bits. The decoder does not look at
 * the message type: every IE it knows is decoded wherever 29.244 allows it
 * at the top level, and the caller checks which IEs a message type needs
 * (pfcp_up.c does). struct pfcp_msg is about 45 KiB: keep it static or on
 * the heap, never on a worker's stack.
 *
 * Strings (Network Instance, Logical Port, Forwarding Policy, FQDN) are kept
 * as raw octets with a length (struct pfcp_str), never NUL-terminated.
 *
 * Decoding contract (pfcp_msg_decode):
 *   - every length is checked against its container before anything is
 *     read: the header against the datagram, each IE against the message or
 *     the grouped IE that holds it;
 *   - an IE the decoder knows must be at least as long as its fixed fields
 *     and the fields its flags announce; extra trailing octets are ignored
 *     (29.244 IEs are extendable);
 *   - unknown IEs, vendor IEs of other enterprises, unknown BBF IEs and known
 *     IEs in a place 29.244 does not put them are skipped and counted
 *     (m->n_skipped); 29.244 clause 7.6: unknown optional IEs are ignored;
 *   - a single-instance IE repeated inside the same container: the first
 *     one is used, the others are skipped and counted (m->n_dup);
 *   - grouped IEs nest at most PFCP_MAX_DEPTH deep (Create PDR > PDI >
 *     Ethernet Packet Filter is the deepest the profile uses) and a message
 *     holds at most PFCP_MAX_IES IEs, nested ones included;
 *   - multi-instance IEs beyond their cap (PFCP_MAX_RULES and friends) and
 *     the IE budget give cause 75 (No resources available);
 *   - the first error stops decoding and is returned in struct pfcp_derr:
 *       68 Invalid length        an IE header or value runs past its
 *                                container, or is shorter than its fixed
 *                                fields;
 *       69 Mandatory IE incorrect a value 29.244 does not allow (Node ID type,
 *                                FQDN labels, F-SEID without address);
 *       75 No resources available a cap was exceeded;
 *     with the type of the offending IE.
 *
 * Encoding (pfcp_msg_encode) writes every present field into a caller buffer,
 * checks every write against the buffer size and returns the length, or
 * -ENOSPC. IEs are written in the order of the 29.244 message tables.
 * decode(encode(m)) gives back m for every field the encoder writes.
 *
 * Caps (per message): PFCP_MAX_RULES Create, Update and Remove of each of
 * PDR, FAR, QER, URR; PFCP_MAX_RULES Query URR and Usage Reports;
 * PFCP_MAX_PDR_URRS URR IDs and PFCP_MAX_PDR_QERS QER IDs in one PDR; one
 * Ethernet Packet Filter per PDI with one MAC address IE; strings up to
 * PFCP_STR_MAX octets.
 */

#ifndef BNG_PFCP_H
#define BNG_PFCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PFCP_PORT 8805
#define PFCP_VERSION 1
#define PFCP_ENTERPRISE_BBF 3561u
/* bngpod's vendor IEs: IANA's documentation PEN (RFC 5612) until bngpod has its own. */
#define PFCP_ENTERPRISE_BNGPOD 32473u
#define PFCP_NTP_UNIX_OFFSET 2208988800u /* seconds from 1900-01-01 to 1970-01-01 */

/* Header: flags, type, length (octets after the first 4), [SEID], seq, spare/priority. */
#define PFCP_HDR_LEN_NODE 8
#define PFCP_HDR_LEN_SESS 16
#define PFCP_FLAG_S 0x01
#define PFCP_FLAG_MP 0x02
#define PFCP_FLAG_FO 0x04
#define PFCP_MAX_MSG_LEN (65535u + 4u)
#define PFCP_SEQ_MASK 0xffffffu

/* Caps (see the header comment). */
#define PFCP_MAX_RULES 16
#define PFCP_MAX_PDR_URRS 4
#define PFCP_MAX_PDR_QERS 2
#define PFCP_MAX_IES 1024
#define PFCP_MAX_DEPTH 3
#define PFCP_STR_MAX 255

/* Message types (29.244 Table 7.3-1), with names: pfcp.def. */
enum pfcp_msg_type {
#define PFCP_MSG_DEF(sym, value, name, is_request) PFCP_##sym = value,
#include "pfcp.def"
#undef PFCP_MSG_DEF
};
#define PFCP_MSG_TYPE_MAX 64 /* counters are indexed by type; higher types count in slot 0 */

/* IE types (29.244 Table 8.1.2-1) the codec decodes. */
enum pfcp_ie_type {
	PFCP_IE_CREATE_PDR = 1,
	PFCP_IE_PDI = 2,
	PFCP_IE_SDF_FILTER = 23,
	PFCP_IE_CREATE_FAR = 3,
	PFCP_IE_FORWARDING_PARAMETERS = 4,
	PFCP_IE_CREATE_URR = 6,
	PFCP_IE_CREATE_QER = 7,
	PFCP_IE_UPDATE_PDR = 9,
	PFCP_IE_UPDATE_FAR = 10,
	PFCP_IE_UPDATE_FORWARDING_PARAMETERS = 11,
	PFCP_IE_UPDATE_URR = 13,
	PFCP_IE_UPDATE_QER = 14,
	PFCP_IE_REMOVE_PDR = 15,
	PFCP_IE_REMOVE_FAR = 16,
	PFCP_IE_REMOVE_URR = 17,
	PFCP_IE_REMOVE_QER = 18,
	PFCP_IE_CAUSE = 19,
	PFCP_IE_SOURCE_INTERFACE = 20,
	PFCP_IE_NETWORK_INSTANCE = 22,
	PFCP_IE_GATE_STATUS = 25,
	PFCP_IE_MBR = 26,
	PFCP_IE_GBR = 27,
	PFCP_IE_PRECEDENCE = 29,
	PFCP_IE_VOLUME_THRESHOLD = 31,
	PFCP_IE_REPORTING_TRIGGERS = 37,
	PFCP_IE_REPORT_TYPE = 39,
	PFCP_IE_OFFENDING_IE = 40,
	PFCP_IE_FORWARDING_POLICY = 41,
	PFCP_IE_DESTINATION_INTERFACE = 42,
	PFCP_IE_UP_FUNCTION_FEATURES = 43,
	PFCP_IE_APPLY_ACTION = 44,
	PFCP_IE_PFCPSMREQ_FLAGS = 49,
	PFCP_IE_PDR_ID = 56,
	PFCP_IE_F_SEID = 57,
	PFCP_IE_NODE_ID = 60,
	PFCP_IE_MEASUREMENT_METHOD = 62,
	PFCP_IE_USAGE_REPORT_TRIGGER = 63,
	PFCP_IE_MEASUREMENT_PERIOD = 64,
	PFCP_IE_VOLUME_MEASUREMENT = 66,
	PFCP_IE_DURATION_MEASUREMENT = 67,
	PFCP_IE_TIME_OF_FIRST_PACKET = 69,
	PFCP_IE_TIME_OF_LAST_PACKET = 70,
	PFCP_IE_START_TIME = 75,
	PFCP_IE_END_TIME = 76,
	PFCP_IE_QUERY_URR = 77,
	PFCP_IE_USAGE_REPORT_SMR = 78, /* in Session Modification Response */
	PFCP_IE_USAGE_REPORT_SDR = 79, /* in Session Deletion Response */
	PFCP_IE_USAGE_REPORT_SRR = 80, /* in Session Report Request */
	PFCP_IE_URR_ID = 81,
	PFCP_IE_OUTER_HEADER_CREATION = 84,
	PFCP_IE_CP_FUNCTION_FEATURES = 89,
	PFCP_IE_UE_IP_ADDRESS = 93,
	PFCP_IE_OUTER_HEADER_REMOVAL = 95,
	PFCP_IE_RECOVERY_TIME_STAMP = 96,
	PFCP_IE_MEASUREMENT_INFORMATION = 100,
	PFCP_IE_UR_SEQN = 104,
	PFCP_IE_FAR_ID = 108,
	PFCP_IE_QER_ID = 109,
	PFCP_IE_FAILED_RULE_ID = 114,
	PFCP_IE_ETHERNET_PACKET_FILTER = 132,
	PFCP_IE_MAC_ADDRESS = 133,
	PFCP_IE_C_TAG = 134,
	PFCP_IE_S_TAG = 135,
	PFCP_IE_ETHERTYPE = 136,
	PFCP_IE_ETHERNET_FILTER_ID = 138,
	PFCP_IE_ETHERNET_FILTER_PROPERTIES = 139,
};

/* BBF TR-459 IEs: type bit 15 set, enterprise id 3561 after the length. */
enum pfcp_bbf_ie_type {
	PFCP_IE_BBF_UP_FUNCTION_FEATURES = 32768,
	PFCP_IE_BBF_LOGICAL_PORT = 32769,
	PFCP_IE_BBF_OUTER_HEADER_CREATION = 32770,
	PFCP_IE_BBF_OUTER_HEADER_REMOVAL = 32771,
	PFCP_IE_BBF_PPPOE_SESSION_ID = 32772,
	PFCP_IE_BBF_PPP_PROTOCOL = 32773,
	PFCP_IE_BBF_VERIFICATION_TIMERS = 32774,
	PFCP_IE_BBF_PPP_LCP_MAGIC_NUMBER = 32775,
	PFCP_IE_BBF_MTU = 32776,
	PFCP_IE_BBF_PPP_LCP_CONNECTIVITY = 32780,
};

/*
 * bngpod IEs: type bit 15 set, enterprise id 32473 after the length
 * (docs/dp/pfcp.md, "bngpod Line Group IE"). Only at the top level of an
 * Association Update Request; elsewhere skipped like any unknown IE.
 */
#define PFCP_IE_BNGPOD_LINE_GROUP 32768u

/*
 * The bngpod Line Group IE value (after the enterprise id):
 *   octet 0        action: PFCP_LG_ADOPT or PFCP_LG_RELEASE
 *   octets 1-6     AC MAC
 *   octets 7-12    core MAC
 *   octets 13-16   core IPv4 address
 *   octet 17       name length n, 1..PFCP_LG_NAME_MAX
 *   octets 18..    the line group's name, [A-Za-z0-9][A-Za-z0-9_.-]*
 *   octets 18+n..  optional, 16 octets: the group's core IPv6 address
 * and nothing after. For an adoption both MACs are unicast and not zero, the
 * address is a unicast host address (not 0/8, 127/8, 224/4, 240/4) and the
 * IPv6 address not in ::/8, fe80::/10 or ff00::/8; a release carries them
 * too, unchecked.
 */
#define PFCP_LG_ADOPT 1
#define PFCP_LG_RELEASE 2
#define PFCP_LG_FIXED_LEN 18
#define PFCP_LG_NAME_MAX 63

struct pfcp_line_group {
	uint8_t action; /* PFCP_LG_* */
	uint8_t ac_mac[6];
	uint8_t core_mac[6];
	uint32_t core_ipv4; /* host order */
	bool has_core_ipv6; /* the IPv6 trailer was present */
	uint8_t core_ipv6[16];
	uint8_t name_len;		 /* 1..PFCP_LG_NAME_MAX */
	char name[PFCP_LG_NAME_MAX + 1]; /* NUL-terminated */
};

/*
 * Decode a bngpod Line Group IE value of len octets (the enterprise id
 * already stripped). Returns 0, or -EINVAL for anything but the layout above
 * (short, trailing octets, unknown action, bad name, bad MAC or address of
 * an adoption): the caller answers cause 69. lg is zeroed first. Pure.
 */
int pfcp_line_group_decode(const uint8_t *v, size_t len, struct pfcp_line_group *lg);

/*
 * Encode lg's value (no IE header) into buf; returns its length
 * (PFCP_LG_FIXED_LEN + name_len) or -ENOSPC. Does not validate lg beyond
 * name_len <= PFCP_LG_NAME_MAX.
 */
int pfcp_line_group_encode(const struct pfcp_line_group *lg, uint8_t *buf, size_t cap);

/*
 * bngpod RA offload IE (docs/dp/pfcp.md, "bngpod RA offload IE"): at the top
 * level of a Session Establishment or Modification Request. Value after the
 * enterprise id: empty (offload off), or
 *   octets 0-1 interval s (4..1800), 2-3 router lifetime s (0 or
 *   interval..9000), 4 flags (M 0x80, O 0x40, nothing else), 5-6 MTU option
 *   (0 or 1280..9000), 7-14 the /64, 15-18 valid and 19-22 preferred
 *   lifetime (preferred <= valid), 23-30 the BNG's interface id (not 0),
 *   31 n DNS servers (0..2), then n x 16 octets
 * and nothing after. The /64 and the DNS servers are global unicast (not
 * ::/8, fe80::/10, fec0::/10, ff00::/8).
 */
#define PFCP_IE_BNGPOD_RA_OFFLOAD 32769u
#define PFCP_RA_FIXED_LEN 32
#define PFCP_RA_MAX_DNS 2
#define PFCP_RA_FLAG_M 0x80
#define PFCP_RA_FLAG_O 0x40
#define PFCP_RA_MIN_INTERVAL 4
#define PFCP_RA_MAX_INTERVAL 1800
#define PFCP_RA_MAX_LIFETIME 9000
#define PFCP_RA_MIN_MTU 1280

/*
 * The bngpod IPoE ARP ping IE (session level, Establishment / Modification,
 * and with Report Type UPIR in a Session Report Request): value after the
 * enterprise id:
 *   octets 0-1  interval, seconds (>= 1): ping a session idle this long
 *   octet 2     count (>= 1): unanswered pings before the session is dead
 * and nothing after; the empty value (length 2, the enterprise id only)
 * turns the ping off.
 */
#define PFCP_IE_BNGPOD_ARP_PING 32770u
#define PFCP_ARP_PING_LEN 3

struct pfcp_arp_ping {
	bool on; /* false: the empty IE (ping off) */
	uint16_t interval_s;
	uint8_t count;
};

/* Decode / encode the value (after the enterprise id); -EINVAL / -ENOSPC. */
int pfcp_arp_ping_decode(const uint8_t *v, size_t len, struct pfcp_arp_ping *ap);
int pfcp_arp_ping_encode(const struct pfcp_arp_ping *ap, uint8_t *buf, size_t cap);

/*
 * The bngpod Dropped Packets IE (inside a Usage Report only; docs/dp/pfcp.md
 * "bngpod Dropped Packets IE"): value after the enterprise id:
 *   octets 0-7    upstream packets of the session the DP dropped
 *   octets 8-15   downstream packets of the session the DP dropped
 *   octets 16-23  upstream octets of those packets (IP packets, header included)
 *   octets 24-31  downstream octets of those packets
 * all since the URR's previous report. The DP sends the 32-octet form; the
 * 16-octet form (packets only, bngpod before dropped octets) is decoded too,
 * without PFCP_UR_DROPPED_BYTES. Elsewhere, or of another length, it is
 * skipped (counted in n_skipped) like an unknown IE.
 */
#define PFCP_IE_BNGPOD_DROPPED 32771u
#define PFCP_DROPPED_LEN 16	  /* packets only */
#define PFCP_DROPPED_BYTES_LEN 32 /* packets, then octets */

struct pfcp_ra_offload {
	bool on; /* false: the empty IE (offload off) */
	uint8_t flags;
	uint8_t n_dns;
	uint16_t interval_s;
	uint16_t lifetime_s;
	uint16_t mtu;
	uint32_t valid_s;
	uint32_t preferred_s;
	uint8_t prefix[8];
	uint8_t iid[8];
	uint8_t dns[PFCP_RA_MAX_DNS][16];
};

/* Decode (enterprise id stripped): 0, or -EINVAL for anything but the above. */
int pfcp_ra_offload_decode(const uint8_t *v, size_t len, struct pfcp_ra_offload *ra);

/* Encode ra's value (no IE header): its length, or -ENOSPC. */
int pfcp_ra_offload_encode(const struct pfcp_ra_offload *ra, uint8_t *buf, size_t cap);

/* Not in ::/8, fe80::/10, fec0::/10 or ff00::/8. */
bool pfcp_ipv6_global(const uint8_t *a);

/* Cause values (29.244 Table 8.2.1-1), with names: pfcp.def. */
enum pfcp_cause {
#define PFCP_CAUSE_DEF(sym, value, name) PFCP_CAUSE_##sym = value,
#include "pfcp.def"
#undef PFCP_CAUSE_DEF
};
#define PFCP_CAUSE_MAX 128 /* counters are indexed by cause */

/* Field values and flag bits. */
enum pfcp_interface {
	PFCP_IF_ACCESS = 0,
	PFCP_IF_CORE = 1,
	PFCP_IF_SGI_LAN = 2,
	PFCP_IF_CP_FUNCTION = 3,
};
#define PFCP_NODE_ID_IPV4 0
#define PFCP_NODE_ID_IPV6 1
#define PFCP_NODE_ID_FQDN 2
#define PFCP_FSEID_V6 0x01
#define PFCP_FSEID_V4 0x02
#define PFCP_UEIP_V6 0x01
#define PFCP_UEIP_V4 0x02
#define PFCP_UEIP_SD 0x04 /* 1: destination address (downstream PDR) */
#define PFCP_UEIP_IPV6D 0x08
#define PFCP_UEIP_CHV4 0x10
#define PFCP_UEIP_CHV6 0x20
#define PFCP_UEIP_IP6PL 0x40
#define PFCP_APPLY_DROP 0x0001
#define PFCP_APPLY_FORW 0x0002
#define PFCP_APPLY_BUFF 0x0004
#define PFCP_APPLY_NOCP 0x0008
#define PFCP_APPLY_DUPL 0x0010
#define PFCP_GATE_OPEN 0
#define PFCP_GATE_CLOSED 1
#define PFCP_METHOD_DURAT 0x01
#define PFCP_METHOD_VOLUM 0x02
#define PFCP_METHOD_EVENT 0x04
/* Reporting Triggers and Usage Report Trigger: octet 5 in bits 0-7, octet 6
 * in bits 8-15, octet 7 in bits 16-23. */
#define PFCP_RT_PERIO 0x000001
#define PFCP_RT_VOLTH 0x000002
#define PFCP_RT_TIMTH 0x000004
#define PFCP_URT_PERIO 0x000001
#define PFCP_URT_VOLTH 0x000002
#define PFCP_URT_IMMER 0x000080
#define PFCP_URT_TERMR 0x000800
#define PFCP_REPORT_DLDR 0x01
#define PFCP_REPORT_USAR 0x02
#define PFCP_REPORT_ERIR 0x04
#define PFCP_REPORT_UPIR 0x08
#define PFCP_VOL_TOVOL 0x01
#define PFCP_VOL_ULVOL 0x02
#define PFCP_VOL_DLVOL 0x04
#define PFCP_VOL_TONOP 0x08
#define PFCP_VOL_ULNOP 0x10
#define PFCP_VOL_DLNOP 0x20
#define PFCP_MEASINFO_MNOP 0x10
#define PFCP_SMREQ_QAURR 0x04
#define PFCP_MAC_SOUR 0x01
#define PFCP_MAC_DEST 0x02
#define PFCP_MAC_USOU 0x04
#define PFCP_MAC_UDES 0x08
#define PFCP_VLAN_PCP 0x01
#define PFCP_VLAN_DEI 0x02
#define PFCP_VLAN_VID 0x04
/* Outer Header Creation Description, octet 5 in the high byte. */
#define PFCP_OHC_GTPU_UDP_IPV4 0x0100
#define PFCP_OHC_GTPU_UDP_IPV6 0x0200
#define PFCP_OHC_UDP_IPV4 0x0400
#define PFCP_OHC_UDP_IPV6 0x0800
#define PFCP_OHC_IPV4 0x1000
#define PFCP_OHC_IPV6 0x2000
#define PFCP_OHC_CTAG 0x4000
#define PFCP_OHC_STAG 0x8000
/* Outer Header Removal Description. */
#define PFCP_OHR_STAG_CTAG 8
/* BBF Outer Header Creation Description (2 octets; octet 7 in the high byte). */
#define PFCP_BBF_OHC_CPR_NSH 0x0100
#define PFCP_BBF_OHC_TRAFFIC_ENDPOINT 0x0200
/* BBF Outer Header Removal Description. */
#define PFCP_BBF_OHR_ETHERNET 1
#define PFCP_BBF_OHR_PPPOE_ETHERNET 2
#define PFCP_BBF_OHR_PPP_PPPOE_ETHERNET 3
/* BBF PPP Protocol flags. */
#define PFCP_BBF_PPP_SPECIFIC 0x01
#define PFCP_BBF_PPP_DATA 0x02
#define PFCP_BBF_PPP_CONTROL 0x04
/* BBF UP Function Features, octet 7. */
#define PFCP_BBF_UPF_PPPOE 0x01
#define PFCP_BBF_UPF_IPOE 0x02
#define PFCP_BBF_UPF_LAC 0x04
#define PFCP_BBF_UPF_LNS 0x08
#define PFCP_BBF_UPF_LCP_KEEPALIVE_OFFLOAD 0x10
/* Failed Rule ID types. */
#define PFCP_RULE_PDR 0
#define PFCP_RULE_FAR 1
#define PFCP_RULE_QER 2
#define PFCP_RULE_URR 3
#define PFCP_RULE_BAR 4

struct pfcp_str {
	uint16_t len;
	uint8_t v[PFCP_STR_MAX];
};

struct pfcp_hdr {
	uint8_t version;
	uint8_t flags; /* PFCP_FLAG_* as received */
	uint8_t type;
	uint8_t priority; /* when PFCP_FLAG_MP */
	uint16_t length;  /* the header's length field */
	uint32_t seq;	  /* 24 bits */
	uint64_t seid;	  /* when PFCP_FLAG_S */
	uint32_t hdr_len; /* 8 or 16 */
	uint32_t msg_len; /* length + 4: octets of this message in the datagram */
};

struct pfcp_node_id {
	uint8_t type; /* PFCP_NODE_ID_* */
	uint32_t ipv4;
	uint8_t ipv6[16];
	struct pfcp_str fqdn; /* dotted text ("cp.bngpod"); encoded as DNS labels */
};

struct pfcp_fseid {
	uint8_t flags; /* PFCP_FSEID_V4 / V6 */
	uint64_t seid;
	uint32_t ipv4;
	uint8_t ipv6[16];
};

struct pfcp_ue_ip {
	uint8_t flags; /* PFCP_UEIP_* */
	uint32_t ipv4;
	uint8_t ipv6[16];
	uint8_t v6_pd_bits; /* IPv6 Prefix Delegation Bits, with PFCP_UEIP_IPV6D */
	uint8_t v6_plen;    /* IPv6 Prefix Length, with PFCP_UEIP_IP6PL */
};

struct pfcp_vlan {
	uint8_t flags; /* PFCP_VLAN_* */
	uint8_t pcp;
	uint8_t dei;
	uint16_t vid;
};

struct pfcp_mac {
	uint8_t flags; /* PFCP_MAC_* */
	uint8_t src[6];
	uint8_t dst[6];
	uint8_t usrc[6];
	uint8_t udst[6];
};

#define PFCP_EF_ID 0x01
#define PFCP_EF_PROPS 0x02
#define PFCP_EF_MAC 0x04
#define PFCP_EF_ETHERTYPE 0x08
#define PFCP_EF_CTAG 0x10
#define PFCP_EF_STAG 0x20
struct pfcp_eth_filter {
	uint32_t present; /* PFCP_EF_* */
	uint32_t filter_id;
	uint8_t props;
	uint16_t ethertype;
	struct pfcp_mac mac;
	struct pfcp_vlan ctag;
	struct pfcp_vlan stag;
};

struct pfcp_ppp_proto {
	uint8_t flags; /* PFCP_BBF_PPP_* */
	uint16_t proto;
};

#define PFCP_PDI_SRC_IF 0x01
#define PFCP_PDI_NETINST 0x02
#define PFCP_PDI_UE_IP 0x04
#define PFCP_PDI_ETH 0x08
#define PFCP_PDI_LPORT 0x10
#define PFCP_PDI_PPPOE_SID 0x20
#define PFCP_PDI_PPP_PROTO 0x40
#define PFCP_PDI_SDF 0x80

/* SDF Filter (29.244 8.2.5): flags, spare, then the flagged fields. */
#define PFCP_SDF_FD 0x01   /* Flow Description */
#define PFCP_SDF_TTC 0x02  /* ToS Traffic Class */
#define PFCP_SDF_SPI 0x04  /* Security Parameter Index */
#define PFCP_SDF_FL 0x08   /* Flow Label */
#define PFCP_SDF_BID 0x10  /* SDF Filter ID */
#define PFCP_SDF_MAX_FD 64 /* longer flow descriptions: fd_long, never accepted */
struct pfcp_sdf {
	uint8_t flags; /* PFCP_SDF_*, as received (octet 5) */
	bool fd_long;  /* the Flow Description was longer than PFCP_SDF_MAX_FD */
	uint8_t fd_len;
	char fd[PFCP_SDF_MAX_FD];
};

/* The only Flow Description bngpod's DP accepts: the DHCP class of the default session. */
#define PFCP_SDF_DHCP_FD "permit out 17 from any 68 to any 67"
/* the dhcp class's IPv6 PDR (Ethertype 0x86DD): DHCPv6 client -> server, and RS */
#define PFCP_SDF_DHCP6_FD "permit out 17 from any 546 to any 547"
struct pfcp_pdi {
	uint32_t present; /* PFCP_PDI_* */
	uint8_t src_if;
	uint16_t pppoe_sid;
	struct pfcp_ue_ip ue_ip;
	struct pfcp_ppp_proto ppp;
	struct pfcp_eth_filter eth;
	struct pfcp_str netinst;
	struct pfcp_str lport; /* BBF Logical Port */
	struct pfcp_sdf sdf;   /* the first SDF Filter (a second one: cause 75) */
};

#define PFCP_PDR_ID 0x01
#define PFCP_PDR_PRECEDENCE 0x02
#define PFCP_PDR_PDI 0x04
#define PFCP_PDR_OHR 0x08
#define PFCP_PDR_BBF_OHR 0x10
#define PFCP_PDR_FAR_ID 0x20
struct pfcp_pdr {	  /* Create PDR, Update PDR, Remove PDR (id only) */
	uint32_t present; /* PFCP_PDR_* */
	uint16_t id;
	uint32_t precedence;
	uint8_t ohr;	 /* 3GPP Outer Header Removal description */
	uint8_t bbf_ohr; /* BBF Outer Header Removal description */
	uint32_t far_id;
	uint8_t n_urr;
	uint8_t n_qer;
	uint32_t urr_id[PFCP_MAX_PDR_URRS];
	uint32_t qer_id[PFCP_MAX_PDR_QERS];
	struct pfcp_pdi pdi;
};

struct pfcp_ohc {      /* Outer Header Creation */
	uint16_t desc; /* PFCP_OHC_* */
	uint32_t teid;
	uint32_t ipv4;
	uint8_t ipv6[16];
	uint16_t port;
	uint32_t ctag; /* 3 octets as received */
	uint32_t stag;
};

struct pfcp_bbf_ohc {
	uint16_t desc;	     /* PFCP_BBF_OHC_* */
	uint8_t has_ids;     /* tunnel and session id present (IE of 6 or more octets) */
	uint16_t tunnel_id;  /* L2TP; 0 in bngpod's profile */
	uint16_t session_id; /* bngpod: the PPPoE session id */
};

#define PFCP_FWD_DST_IF 0x01
#define PFCP_FWD_NETINST 0x02
#define PFCP_FWD_OHC 0x04
#define PFCP_FWD_BBF_OHC 0x08
#define PFCP_FWD_POLICY 0x10
struct pfcp_fwd {	  /* Forwarding Parameters, Update Forwarding Parameters */
	uint32_t present; /* PFCP_FWD_* */
	uint8_t dst_if;
	struct pfcp_ohc ohc;
	struct pfcp_bbf_ohc bbf_ohc;
	struct pfcp_str netinst;
	struct pfcp_str policy; /* Forwarding Policy identifier */
};

#define PFCP_FAR_ID 0x01
#define PFCP_FAR_APPLY 0x02
#define PFCP_FAR_FWD 0x04
struct pfcp_far {	  /* Create FAR, Update FAR, Remove FAR (id only) */
	uint32_t present; /* PFCP_FAR_* */
	uint32_t id;
	uint16_t apply; /* PFCP_APPLY_*, octets 5 and 6 */
	struct pfcp_fwd fwd;
};

#define PFCP_QER_ID 0x01
#define PFCP_QER_GATE 0x02
#define PFCP_QER_MBR 0x04
#define PFCP_QER_GBR 0x08
struct pfcp_qer {	  /* Create QER, Update QER, Remove QER (id only) */
	uint32_t present; /* PFCP_QER_* */
	uint32_t id;
	uint8_t gate_ul; /* PFCP_GATE_* */
	uint8_t gate_dl;
	uint64_t mbr_ul; /* kbit/s, 40 bits */
	uint64_t mbr_dl;
	uint64_t gbr_ul;
	uint64_t gbr_dl;
};

struct pfcp_volume {	/* Volume Threshold, Volume Measurement */
	uint8_t flags;	/* PFCP_VOL_* */
	uint64_t total; /* octets */
	uint64_t ul;
	uint64_t dl;
	uint64_t total_pkts; /* Volume Measurement only */
	uint64_t ul_pkts;
	uint64_t dl_pkts;
};

#define PFCP_URR_ID 0x01
#define PFCP_URR_METHOD 0x02
#define PFCP_URR_TRIGGERS 0x04
#define PFCP_URR_PERIOD 0x08
#define PFCP_URR_VOL_THRESH 0x10
#define PFCP_URR_MEAS_INFO 0x20
#define PFCP_URR_PERIOD_DEL 0x40     /* Update URR: Measurement Period of length 0 */
#define PFCP_URR_VOL_THRESH_DEL 0x80 /* Update URR: Volume Threshold of length 0 */
struct pfcp_urr {	  /* Create URR, Update URR, Remove URR and Query URR (id only) */
	uint32_t present; /* PFCP_URR_* */
	uint32_t id;
	uint8_t method;	   /* PFCP_METHOD_* */
	uint8_t meas_info; /* PFCP_MEASINFO_* */
	uint32_t triggers; /* PFCP_RT_* */
	uint32_t period;   /* seconds */
	struct pfcp_volume vol_thresh;
};

#define PFCP_UR_URR_ID 0x01
#define PFCP_UR_SEQN 0x02
#define PFCP_UR_TRIGGER 0x04
#define PFCP_UR_START 0x08
#define PFCP_UR_END 0x10
#define PFCP_UR_VOLUME 0x20
#define PFCP_UR_DURATION 0x40
#define PFCP_UR_FIRST_PKT 0x80
#define PFCP_UR_LAST_PKT 0x100
#define PFCP_UR_DROPPED 0x200	    /* bngpod Dropped Packets IE */
#define PFCP_UR_DROPPED_BYTES 0x400 /* with the octets: its 32-octet form */
struct pfcp_usage_report {
	uint32_t present; /* PFCP_UR_* */
	uint16_t ie_type; /* PFCP_IE_USAGE_REPORT_SMR / SDR / SRR */
	uint32_t urr_id;
	uint32_t seqn;
	uint32_t trigger;    /* PFCP_URT_* */
	uint32_t start_time; /* NTP seconds */
	uint32_t end_time;
	uint32_t duration; /* seconds */
	uint32_t first_pkt;
	uint32_t last_pkt;
	struct pfcp_volume vol;
	uint64_t dropped_ul; /* bngpod Dropped Packets: packets */
	uint64_t dropped_dl;
	uint64_t dropped_ul_bytes; /* ... and their octets (PFCP_UR_DROPPED_BYTES) */
	uint64_t dropped_dl_bytes;
};

#define PFCP_LCP_TIMERS 0x01
#define PFCP_LCP_MAGIC 0x02
#define PFCP_LCP_EMPTY 0x04 /* the grouped IE had length 0: "remove" (29.244 5.6.3 style) */
struct pfcp_lcp_conn {	    /* BBF PPP LCP Connectivity */
	uint32_t present;   /* PFCP_LCP_* */
	uint16_t interval;  /* Verification Timers: seconds between echoes */
	uint8_t count;	    /* Verification Timers: echoes without reply before dead */
	uint32_t magic_tx;  /* PPP LCP Magic Number: ours (the BNG's) */
	uint32_t magic_rx;  /* PPP LCP Magic Number: the peer's */
};

struct pfcp_failed_rule {
	uint8_t type; /* PFCP_RULE_* */
	uint32_t id;
};

/* Single-instance top-level IEs. */
#define PFCP_M_NODE_ID (1ull << 0)
#define PFCP_M_CAUSE (1ull << 1)
#define PFCP_M_OFFENDING_IE (1ull << 2)
#define PFCP_M_F_SEID (1ull << 3)
#define PFCP_M_RECOVERY_TS (1ull << 4)
#define PFCP_M_UP_FEATURES (1ull << 5)
#define PFCP_M_CP_FEATURES (1ull << 6)
#define PFCP_M_BBF_UP_FEATURES (1ull << 7)
#define PFCP_M_REPORT_TYPE (1ull << 8)
#define PFCP_M_SMREQ_FLAGS (1ull << 9)
#define PFCP_M_FAILED_RULE (1ull << 10)
#define PFCP_M_BBF_MTU (1ull << 11)
#define PFCP_M_BBF_LCP (1ull << 12)
#define PFCP_M_BNGPOD_LINE_GROUP (1ull << 13)
#define PFCP_M_BNGPOD_RA (1ull << 14)
#define PFCP_M_BNGPOD_ARP_PING (1ull << 15)

struct pfcp_msg {
	struct pfcp_hdr h;
	uint64_t present; /* PFCP_M_* */
	uint32_t n_ies;	  /* IEs decoded, nested ones included */
	uint32_t n_skipped;
	uint32_t n_dup;
	struct pfcp_node_id node_id;
	uint8_t cause;
	uint16_t offending_ie;
	struct pfcp_fseid fseid;
	uint32_t recovery_ts; /* NTP seconds */
	uint8_t up_features_len;
	uint8_t cp_features_len;
	uint8_t bbf_up_features_len;
	uint8_t up_features[8];
	uint8_t cp_features[8];
	uint8_t bbf_up_features[4];
	uint8_t report_type;
	uint8_t smreq_flags;
	uint16_t bbf_mtu;
	struct pfcp_failed_rule failed_rule;
	struct pfcp_lcp_conn lcp;
	struct pfcp_line_group line_group; /* the first bngpod Line Group IE */
	uint8_t n_line_group;		   /* how many there were (a repeat is counted in n_dup) */
	struct pfcp_ra_offload ra;	   /* bngpod RA offload IE (PFCP_M_BNGPOD_RA) */
	struct pfcp_arp_ping arp_ping;	   /* bngpod IPoE ARP ping IE (PFCP_M_BNGPOD_ARP_PING) */
	uint8_t n_create_pdr, n_create_far, n_create_qer, n_create_urr;
	uint8_t n_update_pdr, n_update_far, n_update_qer, n_update_urr;
	uint8_t n_remove_pdr, n_remove_far, n_remove_qer, n_remove_urr;
	uint8_t n_query_urr;
	uint8_t n_usage;
	uint32_t remove_pdr[PFCP_MAX_RULES];
	uint32_t remove_far[PFCP_MAX_RULES];
	uint32_t remove_qer[PFCP_MAX_RULES];
	uint32_t remove_urr[PFCP_MAX_RULES];
	uint32_t query_urr[PFCP_MAX_RULES];
	struct pfcp_pdr create_pdr[PFCP_MAX_RULES];
	struct pfcp_far create_far[PFCP_MAX_RULES];
	struct pfcp_qer create_qer[PFCP_MAX_RULES];
	struct pfcp_urr create_urr[PFCP_MAX_RULES];
	struct pfcp_pdr update_pdr[PFCP_MAX_RULES];
	struct pfcp_far update_far[PFCP_MAX_RULES];
	struct pfcp_qer update_qer[PFCP_MAX_RULES];
	struct pfcp_urr update_urr[PFCP_MAX_RULES];
	struct pfcp_usage_report usage[PFCP_MAX_RULES];
};

/* Why decoding stopped. */
struct pfcp_derr {
	uint8_t cause;	       /* PFCP_CAUSE_* */
	uint16_t offending_ie; /* IE type, 0 when none can be named */
};

/* pfcp_hdr_decode() / pfcp_msg_decode() results. */
#define PFCP_OK 0
#define PFCP_EHDR (-1)	   /* no usable header: drop the datagram */
#define PFCP_EVERSION (-2) /* version is not 1: h.seq and h.flags are set */
#define PFCP_EIE (-3)	   /* header fine, an IE is not: see struct pfcp_derr */

/*
 * Decode the header at buf (len octets of datagram from there). Checks the
 * version, that len holds the fixed header and the whole message (length
 * field + 4), that a message with S=1 has room for the SEID, and that the
 * length field covers the header. On PFCP_EVERSION, h->flags, h->type and
 * h->seq are filled when len allows, so a Version Not Supported Response can
 * echo the sequence number.
 */
int pfcp_hdr_decode(const uint8_t *buf, size_t len, struct pfcp_hdr *h);

/*
 * Decode one message (header and IEs) at buf; len is what the datagram holds
 * from buf on (a datagram may bundle several messages, FO flag). m is zeroed
 * first. Returns PFCP_OK, PFCP_EHDR, PFCP_EVERSION or PFCP_EIE (then e says
 * why and m->h is valid; m's other fields are partially filled and must not
 * be used).
 */
int pfcp_msg_decode(const uint8_t *buf, size_t len, struct pfcp_msg *m, struct pfcp_derr *e);

/*
 * Encode m into buf. The header comes from m->h: type, seq, the S flag (and
 * seid) and the MP flag (and priority); version is always 1, the length is
 * computed. Returns the message length, or -ENOSPC when cap is too small (buf
 * contents are then undefined) or a field cannot be encoded (a string longer
 * than PFCP_STR_MAX, an IE longer than 65535 octets, a PPP LCP Connectivity with
 * neither children nor PFCP_LCP_EMPTY).
 */
int pfcp_msg_encode(const struct pfcp_msg *m, uint8_t *buf, size_t cap);

/* Name of a message type or cause, for logs and telemetry ("?" if unknown). */
const char *pfcp_msg_type_name(uint8_t type);
const char *pfcp_cause_name(uint8_t cause);

/* True for the message types this codec knows as requests. */
bool pfcp_msg_is_request(uint8_t type);

#endif /* BNG_PFCP_H */

/*
 * bng-dp instance configuration: the in-memory form of dp/<name>.ini.
 *
 * The file format is the contract in docs/config-formats.md, section
 * "DP instance configuration (dp/<name>.ini)". This header is its C side:
 * every object of the file has a struct here, with fixed-size arrays so the
 * datapath can size its tables once at start-up and never allocate while
 * forwarding. References between objects (by name in the file) are resolved
 * to array indices by the loader.
 *
 * Numbered sections keep their number: [line.N] is lines[N], and so on.
 */

#ifndef DP_CONFIG_H
#define DP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Per-instance limits. A file that exceeds one of them is rejected. */
#define DP_MAX_ACCESS_PORTS 64
#define DP_MAX_LINE_GROUPS 256
#define DP_MAX_LINES 1024
#define DP_MAX_QOS_PROFILES 256
#define DP_MAX_GROUP_PREFIXES 16 /* pool prefixes of one line group */
#define DP_MAX_WORKER_CORES 64	 /* ids themselves must be < RTE_MAX_LCORE */
#define DP_MAX_ACL_RULES 1024	 /* operator ACL rules, both directions together */
#define DP_MAX_ROUTES 256	 /* operator static routes */
#define DP_MAX_GROUP_PREFIXES6 8 /* IPv6 pools (prefixes6 pairs) of one line group */
#define DP_MAX_V6_LENGTHS 8	 /* distinct assigned IPv6 prefix lengths of an instance */
#define DP_MAX_IPOE_GATEWAYS 8	 /* IPoE gateways (one per pool) of one line group */
#define DP_IPV6_ADDR_LEN 16

/* Names: 1..31 characters of [A-Za-z0-9_.-], starting with a letter or digit. */
#define DP_NAME_SIZE 32

#define DP_ETHER_ADDR_LEN 6

/* VLAN ids of S-tags and C-tags (inclusive ranges). */
#define DP_VLAN_ID_MIN 1
#define DP_VLAN_ID_MAX 4094

/* The only outer TPIDs an access port may use. */
#define DP_TPID_8021Q 0x8100
#define DP_TPID_8021AD 0x88a8

/* [instance] id doubles as the 24-bit VXLAN VNI of the control redirect. */
#define DP_INSTANCE_ID_MIN 1
#define DP_INSTANCE_ID_MAX 0xffffff

/*
 * Upper bound of every rate (bit/s). Far above any real port, low enough that
 * converting to bytes/s and multiplying by a token-bucket period of seconds
 * cannot overflow 64 bits.
 */
#define DP_MAX_RATE 1000000000000ULL /* 1 Tbit/s */

/* HQoS shape, equal to DPDK rte_sched (checked at build time in dp_config.c). */
#define DP_NUM_TCS 13
#define DP_TC_BEST_EFFORT 12 /* the class served by the 4 WRR queues */
#define DP_NUM_BE_QUEUES 4
#define DP_NUM_DSCPS 64

/* [qos_profile.N] up_dscp = keep: upstream packets leave with their own DSCP. */
#define DP_DSCP_KEEP 0xff

/*
 * Files larger than this are refused before parsing. A file at every limit
 * above is well below 1 MiB.
 */
#define DP_CONFIG_MAX_FILE_SIZE (4u << 20)

/*
 * IPv4 address with prefix length; addr is host byte order, host bits zero.
 * len is 1..32, except in ACL rules, where 0 (0.0.0.0/0) means any address.
 */
struct dp_ipv4_prefix {
	uint32_t addr;
	uint8_t len;
};

/* IPv6 prefix: addr in network byte order, host bits zero, len 0..128. */
struct dp_ipv6_prefix {
	uint8_t addr[DP_IPV6_ADDR_LEN];
	uint8_t len;
};

/*
 * [line_group.N] prefixes6 pair "prefix/len:assigned": an IPv6 pool from
 * which each session gets prefixes of length assigned (len..64).
 */
struct dp_ipv6_pool {
	struct dp_ipv6_prefix prefix; /* len 32..64 */
	uint8_t assigned;	      /* prefix.len..64 */
};

/* Inclusive VLAN id range, DP_VLAN_ID_MIN <= lo <= hi <= DP_VLAN_ID_MAX. */
struct dp_tag_range {
	uint16_t lo;
	uint16_t hi;
};

/* [instance] */
struct dp_instance {
	uint32_t id; /* DP_INSTANCE_ID_MIN..DP_INSTANCE_ID_MAX, the VNI */
	char name[DP_NAME_SIZE];
	char pod[DP_NAME_SIZE];
	uint8_t data_mac[DP_ETHER_ADDR_LEN];	    /* the VF's MAC, unicast */
	uint16_t n_worker_cores;		    /* 1..DP_MAX_WORKER_CORES */
	uint16_t worker_cores[DP_MAX_WORKER_CORES]; /* lcore ids, unique, file order */
	uint64_t port_rate;			    /* HQoS port rate, bit/s */
	uint32_t control_address;		    /* host order */
	uint8_t control_prefix_len;		    /* 1..32 */
	uint32_t cp_address;			    /* only peer allowed to send PFCP / VXLAN */
	uint16_t pfcp_port;			    /* UDP, 1..65535 */
	uint16_t vxlan_port;			    /* UDP, 1..65535, differs from pfcp_port */
};

/* [core] */
struct dp_core {
	struct dp_ipv4_prefix subnet;
	uint32_t router_address;       /* next hop, inside subnet; MAC learnt by ARP */
	uint16_t vlan;		       /* 0 = untagged, else 1..4094 */
	bool has_subnet6;	       /* subnet6 given (not "none") */
	bool has_router6;	       /* router_address6 given: the IPv6 default route */
	struct dp_ipv6_prefix subnet6; /* len 48..127 */
	uint8_t router_address6[DP_IPV6_ADDR_LEN];
};

/* [access_port.N] */
struct dp_access_port {
	char name[DP_NAME_SIZE];
	uint16_t tpid; /* DP_TPID_8021Q or DP_TPID_8021AD: downstream outer TPID */
	uint64_t rate; /* bit/s */
};

/* [line_group.N] session_types: a bit per session type the group allows. */
#define DP_SESSION_TYPE_PPPOE 0x01
#define DP_SESSION_TYPE_IPOE 0x02

/*
 * [line_group.N] ipoe_gateways "gateway/len": the gateway of one IPoE pool.
 * The pool is the group prefix addr/len contains (prefixes[pool]); the gateway
 * is neither its network nor (len < 31) its broadcast address.
 */
struct dp_ipoe_gateway {
	uint32_t addr; /* host order */
	uint8_t len;   /* the pool prefix's length */
	uint8_t pool;  /* index into dp_line_group.prefixes */
};

/* [line_group.N] */
struct dp_line_group {
	char name[DP_NAME_SIZE];
	uint8_t ac_mac[DP_ETHER_ADDR_LEN];		       /* PPPoE AC MAC, unicast */
	uint8_t core_mac[DP_ETHER_ADDR_LEN];		       /* MAC on the core side, unicast */
	uint32_t core_address;				       /* inside [core] subnet, unique */
	uint16_t n_prefixes;				       /* 1..DP_MAX_GROUP_PREFIXES */
	struct dp_ipv4_prefix prefixes[DP_MAX_GROUP_PREFIXES]; /* pools, disjoint */
	uint16_t qos_profile;			 /* index into dp_config.qos_profiles */
	bool has_core6;				 /* core_address6 given */
	uint8_t core_address6[DP_IPV6_ADDR_LEN]; /* inside [core] subnet6, unique */
	uint16_t n_prefixes6;			 /* 0..DP_MAX_GROUP_PREFIXES6 */
	struct dp_ipv6_pool prefixes6[DP_MAX_GROUP_PREFIXES6]; /* disjoint */
	/*
	 * Known but not served (file: standby = yes): its lines are left out of
	 * the line map, its core address is not answered. The control thread
	 * flips it when the CP adopts or releases the group (PFCP Association
	 * Update, bngpod Line Group IE); the worker never reads it.
	 */
	bool standby;
	/*
	 * IPoE (all optional in the file: an older file is PPPoE only). A group
	 * whose session_types include IPoE has at least one gateway; one without
	 * has none. ipoe_proxy_arp (default yes): answer ARP for every address of
	 * a pool but the asker's own, else for the gateway only.
	 */
	uint8_t session_types; /* DP_SESSION_TYPE_* bits, never 0 */
	bool ipoe_proxy_arp;
	uint8_t n_ipoe_gateways; /* 0..DP_MAX_IPOE_GATEWAYS */
	struct dp_ipoe_gateway ipoe_gateways[DP_MAX_IPOE_GATEWAYS];
};

/*
 * [line.N]: the (S-tag, C-tag) space a line group serves on one access port.
 * No two lines of an access port overlap in (stag, ctag), and among the
 * served groups an S-tag is on one access port only, so (stag, ctag) alone
 * identifies a served line (standby groups may reuse S-tags of other ports).
 */
struct dp_line {
	uint16_t group;	      /* index into dp_config.line_groups */
	uint16_t access_port; /* index into dp_config.access_ports */
	struct dp_tag_range stag;
	struct dp_tag_range ctag; /* 1..4094 when ctag_any */
	bool ctag_any;		  /* file said "any": every C-tag of the S-tags */
};

/* [qos_profile.N] */
struct dp_qos_profile {
	char name[DP_NAME_SIZE];
	uint64_t down_rate; /* pipe rate, bit/s, <= [instance] port_rate */
	uint64_t up_pir;    /* upstream trTCM, bit/s */
	uint64_t up_cir;    /* <= up_pir */
	/* DSCP written into every upstream packet (0..63; ECN kept), or DP_DSCP_KEEP. */
	uint8_t up_dscp;
	/* Per-class rate: tc_rates entry, else down_rate. Each <= down_rate. */
	uint64_t tc_rate[DP_NUM_TCS];
	uint16_t tc_rate_listed;	      /* bit tc set: tc_rates named this class */
	uint8_t default_tc;		      /* 0..DP_NUM_TCS-1 */
	uint8_t be_weights[DP_NUM_BE_QUEUES]; /* WRR weights, 1..255 */
	/* Class of every DSCP: dscp_map entry, else default_tc. */
	uint8_t dscp_tc[DP_NUM_DSCPS];
	uint64_t dscp_listed; /* bit d set: dscp_map named DSCP d */
};

/* [acl.N] action */
enum dp_acl_action {
	DP_ACL_PERMIT = 0,
	DP_ACL_DENY = 1,
};

/* [acl.N] direction, a bit set: "both" is DP_ACL_DIR_UP | DP_ACL_DIR_DOWN. */
#define DP_ACL_DIR_UP 0x1   /* from subscribers towards the core */
#define DP_ACL_DIR_DOWN 0x2 /* from the core towards subscribers */

/* [acl.N] family */
#define DP_ACL_IPV4 4
#define DP_ACL_IPV6 6

/* [acl.N] protocol: an IP protocol number 0..255, or this for any. */
#define DP_ACL_PROTO_ANY 0x100
#define DP_IPPROTO_ICMP 1
#define DP_IPPROTO_TCP 6
#define DP_IPPROTO_UDP 17
#define DP_IPPROTO_ICMPV6 58

/*
 * Inclusive TCP/UDP port range. 0-65535 is "any" (it also matches packets
 * without ports, which are classified with port 0); otherwise
 * 1 <= lo <= hi <= 65535, so a rule with ports never matches a packet
 * without them (a non-first fragment, another protocol).
 */
struct dp_port_range {
	uint16_t lo;
	uint16_t hi;
};

/*
 * [acl.N]: one operator ACL rule. Rules are matched in N order; the first
 * that matches decides, and a packet no rule matches is permitted. Port
 * ranges other than any only with protocol tcp (6) or udp (17).
 */
struct dp_acl_rule {
	struct dp_ipv4_prefix src;  /* len 0..32; 0 = any (family ipv4) */
	struct dp_ipv4_prefix dst;  /* len 0..32; 0 = any */
	struct dp_ipv6_prefix src6; /* len 0..128; 0 = any (family ipv6) */
	struct dp_ipv6_prefix dst6;
	uint8_t family; /* DP_ACL_IPV4 or DP_ACL_IPV6 */
	struct dp_port_range sport;
	struct dp_port_range dport;
	uint16_t protocol; /* 0..255 or DP_ACL_PROTO_ANY */
	uint8_t action;	   /* enum dp_acl_action */
	uint8_t dirs;	   /* DP_ACL_DIR_* bits, at least one */
};

/*
 * Destinations bng-dp never forwards (RFC 1122 "this network" and loopback,
 * multicast, class E with the limited broadcast): {addr, len} initialisers.
 */
#define DP_N_MARTIANS 4
#define DP_MARTIANS                                                   \
	{                                                             \
		{0x00000000u, 8}, {0x7f000000u, 8}, {0xe0000000u, 4}, \
		{                                                     \
			0xf0000000u, 4                                \
		}                                                     \
	}

/*
 * [route.N]: an operator static route on the core side. prefix is 1..32
 * long, not inside a martian range (0/8, 127/8, 224/4, 240/4), the core
 * subnet or a pool prefix of this instance, and unique among the routes.
 */
struct dp_route {
	struct dp_ipv4_prefix prefix;
	uint32_t via; /* next hop, host order: inside [core] subnet, not a group's
		       * core address; 0 when drop */
	bool drop;    /* blackhole: packets to prefix are dropped */
};

/*
 * [punt]: the policing of control frames on their way to the CP (punt.h),
 * per class. Every key is optional; an absent key, or an absent section,
 * keeps the default below.
 */
enum dp_punt_class {
	DP_PUNT_HIGH, /* session control: LCP, PAP, CHAP, IPCP, IPV6CP; PADT */
	DP_PUNT_MID,  /* PADR */
	DP_PUNT_LOW,  /* PADI; session frames of unknown sessions */
	DP_PUNT_CLASSES,
};

/* "high", "mid", "low": the <class> of the [punt] keys <class>_<field>. */
extern const char *const dp_punt_class_names[DP_PUNT_CLASSES];

/*
 * Upper bounds of a bucket. A control thread forwards far fewer frames than
 * this to the CP, so the bound is "no limit" in practice, yet it keeps the
 * GCRA tolerance (TSC ticks per frame x burst) far from 64-bit overflow.
 */
#define DP_PUNT_MAX_RATE 1000000u  /* frames per second */
#define DP_PUNT_MAX_BURST 1000000u /* frames */

/* A token bucket: rate frames per second (1..DP_PUNT_MAX_RATE), burst frames. */
struct dp_punt_rate {
	uint32_t rate;
	uint32_t burst; /* 1..DP_PUNT_MAX_BURST */
};

struct dp_punt_class_cfg {
	struct dp_punt_rate client; /* each client: (S-tag, C-tag, source MAC) */
	struct dp_punt_rate line;   /* each [line.N] */
	uint8_t ring_percent;	    /* admitted while the punt ring is below this % full, 1..100 */
};

struct dp_punt {
	struct dp_punt_class_cfg cls[DP_PUNT_CLASSES]; /* by enum dp_punt_class */
};

/*
 * The defaults, by class (docs/dp/control-frames.md, "Defaults, and why"):
 * {client rate, burst}, {line rate, burst}, ring percent. punt.c's
 * punt_params_default() is built from the same initialiser.
 */
#define DP_PUNT_DEFAULTS                                                    \
	{                                                                   \
		.cls = { [DP_PUNT_HIGH] = {{100, 200}, {5000, 10000}, 100}, \
			 [DP_PUNT_MID] = {{5, 10}, {200, 400}, 75},         \
			 [DP_PUNT_LOW] = {{5, 10}, {200, 400}, 50},         \
		}                                                           \
	}

struct dp_config {
	struct dp_instance instance;
	struct dp_core core;
	uint16_t n_access_ports;
	uint16_t n_line_groups;
	uint16_t n_lines;
	uint16_t n_qos_profiles;
	uint16_t n_acl_rules;
	uint16_t n_routes;
	struct dp_access_port access_ports[DP_MAX_ACCESS_PORTS];
	struct dp_line_group line_groups[DP_MAX_LINE_GROUPS];
	struct dp_line lines[DP_MAX_LINES];
	struct dp_qos_profile qos_profiles[DP_MAX_QOS_PROFILES];
	struct dp_acl_rule acl_rules[DP_MAX_ACL_RULES];
	struct dp_route routes[DP_MAX_ROUTES];
	struct dp_punt punt; /* [punt], defaults filled in */
};

/*
 * Load and validate one DP instance configuration file.
 *
 * The file is treated as hostile: it is size-limited, screened line by line
 * before DPDK's rte_cfgfile parses it, and every value is checked against
 * the contract. Does not need (or touch) the EAL. Thread-safe; allocates
 * only while loading and frees everything before returning.
 *
 * cfg is about 165 KiB; allocate it on the heap.
 *
 * Returns 0 on success. On failure returns a negative errno value (-EINVAL
 * for content errors, the I/O or allocation errno otherwise), zeroes cfg and,
 * if err is not NULL, writes a one-line message naming the offending section
 * and key (e.g. "line.1: group 'lg9' is not a [line_group.N] name") into err,
 * truncated to errlen bytes including the terminating NUL.
 */
int dp_config_load(const char *path, struct dp_config *cfg, char *err, size_t errlen);

/*
 * May line group g become served, with core_address (host order) as its core
 * address, next to the groups served now? Checks that the address is a host
 * of the [core] subnet, not the router, not a route's next hop and not the
 * core address of another served group, and that no line of g shares an
 * S-tag with a served line on another access port or overlaps a served line.
 * Returns 0, or -ENOENT / -EINVAL / -EEXIST with a one-line reason in err.
 * Control thread; reads cfg only.
 */
int dp_config_adopt_check(const struct dp_config *cfg, uint16_t g, uint32_t core_address, char *err,
			  size_t errlen);

/*
 * May line group g become served with core_address6 (NULL: none) as its
 * core IPv6 address? It must be a host of [core] subnet6 (not its first
 * address), not router_address6 and not the core IPv6 address of another
 * served group. Returns 0, or -EINVAL / -EEXIST with a reason in err.
 */
int dp_config_adopt_check6(const struct dp_config *cfg, uint16_t g, const uint8_t *core_address6,
			   char *err, size_t errlen);

/* Is a (network order) inside p? */
bool dp_ipv6_in_prefix(const uint8_t a[DP_IPV6_ADDR_LEN], const struct dp_ipv6_prefix *p);

#endif /* DP_CONFIG_H */

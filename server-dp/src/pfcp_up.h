/*
 * PFCP user-plane function of bng-dp (BBF TR-459 SCi, bngpod profile):
 * sans-IO, for the control thread. docs/dp/pfcp.md is the wire contract.
 *
 * The caller owns the UDP socket and the clock. It hands each datagram from
 * the PFCP socket to pfcp_up_input() and calls pfcp_up_tick() every few
 * milliseconds; both send what they have to send through the send callback
 * and change the data path only through the ops table. Nothing here blocks,
 * sleeps, reads a clock or allocates after pfcp_up_create().
 *
 * What a PFCP session becomes: either
 *   - a subscriber session (one PPPoE subscriber, TR-459 shapes): one
 *     upstream PDR (Source Interface Access, the line and PPPoE identity),
 *     one downstream PDR (Source Interface Core, the UE IPv4 address), their
 *     FARs, QERs and URRs. It is flattened into one struct up_sub and
 *     installed with one ops->install() call; or
 *   - the default session (TR-459 control packet redirect, bngpod's VXLAN
 *     profile): PDRs matching control traffic whose FARs send it to the CP
 *     function. It becomes one ops->redirect() call.
 * Every request is decoded and validated whole before the ops table is
 * called once: a session is installed, modified or removed completely or
 * not at all.
 *
 * Data layout (allocated once by pfcp_up_create()):
 *   sessions[capacity]  struct up_sess, about 1.5 KB: SEIDs, handle, the
 *                       session's rules in compact form (at most
 *                       UP_SESS_MAX_PDR PDRs, UP_SESS_MAX_FAR FARs,
 *                       UP_SESS_MAX_QER QERs, UP_SESS_MAX_URR URRs), URR
 *                       measurement state;
 *   two hash indexes    CP SEID -> slot and handle -> slot (open addressing,
 *                       2 x capacity entries each);
 *   free slots          FIFO, so a freed UP SEID is not reused soon; the UP
 *                       SEID also carries a per-slot generation;
 *   response cache      UP_RCACHE_BYTES arena + UP_RCACHE_SLOTS index of the
 *                       responses sent, replayed for retransmitted requests;
 *   pending requests    UP_MAX_PENDING requests the UP function sent
 *                       (heartbeats, session reports) awaiting a response;
 *   names               interned strings (logical ports, network instances,
 *                       forwarding policies), at most UP_MAX_NAMES.
 * For 65536 sessions this is about 100 MB of ordinary heap. How the
 * implementation is cut into files: pfcp_up_int.h.
 *
 * Threading: one thread (the control thread) calls everything, including
 * pfcp_up_stats_get() and pfcp_up_sessions(); the ops are called from inside
 * pfcp_up_input() / pfcp_up_tick() / pfcp_up_report_lcp_dead() on that
 * thread. A telemetry thread must read copies the control thread publishes.
 */

#ifndef BNG_PFCP_UP_H
#define BNG_PFCP_UP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pfcp.h"

#define UP_NAME_SIZE 64 /* names in struct up_sub, NUL included */
#define UP_MAX_NAMES 1024
#define UP_SESS_MAX_PDR 8
#define UP_SESS_MAX_FAR 4
#define UP_SESS_MAX_QER 2
#define UP_SESS_MAX_URR 4
#define UP_PDR_MAX_URR 2 /* URR IDs one PDR of a session may reference */
#define UP_MAX_PENDING 1024
#define UP_RCACHE_SLOTS 8192
#define UP_RCACHE_BYTES (1u << 20)
#define UP_MAX_MSG 8192 /* largest message the UP function builds */

/* Default MTU and the range a BBF MTU IE may ask for. */
#define UP_DEFAULT_MTU 1492
#define UP_DEFAULT_MTU_IPOE 1500 /* an IPoE session's (no PPPoE header) */
#define UP_MIN_MTU 576
#define UP_MAX_MTU 9000

#define UP_SUB_MAX_PREFIX6 2 /* the /64 and the delegated prefix */

/* struct up_sub kind: what the access side carries (BBF Outer Header Removal). */
#define UP_SUB_PPPOE 0 /* QinQ + PPPoE + PPP (OHR 3) */
#define UP_SUB_IPOE 1  /* QinQ + Ethernet + IPv4/IPv6 (OHR 1), keyed by (line, MAC) */

/* One subscriber session, flat. IPv4 addresses in host byte order. */
struct up_sub {
	uint8_t kind;			 /* UP_SUB_PPPOE or UP_SUB_IPOE */
	char logical_port[UP_NAME_SIZE]; /* BBF Logical Port; "" = not given */
	uint16_t stag;			 /* S-tag VLAN id, 1..4094 */
	uint16_t ctag;			 /* C-tag VLAN id, 1..4094 */
	uint8_t mac[6];			 /* client MAC */
	uint16_t pppoe_sid;		 /* 1..0xfffe; 0 for IPoE */
	uint32_t ipv4;			 /* UE address */
	uint16_t mtu;			 /* BBF MTU; 0 = default (UP_DEFAULT_MTU) */
	uint64_t mbr_ul;		 /* bit/s (QER kbit/s x 1000); 0 = not given */
	uint64_t mbr_dl;
	uint64_t gbr_ul;
	uint64_t gbr_dl;
	char qos_profile[UP_NAME_SIZE]; /* FAR Forwarding Policy; "" = the line group's */
	bool lcp_offload;		/* BBF PPP LCP Connectivity present */
	uint32_t lcp_magic;		/* our magic number (PPP LCP Magic Number Tx) */
	uint32_t lcp_peer_magic;	/* the CPE's (PPP LCP Magic Number Rx) */
	uint16_t echo_interval_s;	/* Verification Timers interval */
	uint8_t echo_misses;		/* Verification Timers count */
	uint32_t urr_period_s;		/* shortest Measurement Period of its URRs; 0 = none */
	bool has_ipv4;			/* IPv4 PDRs present (else ipv4 is 0) */
	bool has_ipv6;			/* IPv6 PDRs present */
	uint8_t n_prefix6;		/* IPv6 downstream prefixes, 0..UP_SUB_MAX_PREFIX6 */
	uint8_t prefix6_len[UP_SUB_MAX_PREFIX6];
	uint8_t prefix6[UP_SUB_MAX_PREFIX6][16]; /* network order, host bits zero */
	struct pfcp_ra_offload ra;		 /* RA offload; ra.on false: none */
	struct pfcp_arp_ping arp_ping;		 /* IPoE ARP ping; arp_ping.on false: none */
};

/* Bits of the changed mask given to ops->modify(). */
#define UP_CHG_KEYS 0x01     /* logical port, tags, MAC, PPPoE session id or address */
#define UP_CHG_MTU 0x02	     /* mtu */
#define UP_CHG_RATES 0x04    /* mbr_*, gbr_* */
#define UP_CHG_QOS 0x08	     /* qos_profile */
#define UP_CHG_LCP 0x10	     /* lcp_* / echo_* */
#define UP_CHG_URR 0x20	     /* urr_period_s */
#define UP_CHG_RA 0x40	     /* ra */
#define UP_CHG_ARP_PING 0x80 /* arp_ping */

/* Cumulative counters of one installed session since install: totals of both
 * families, and the IPv6 share (IPv4 is the difference). */
struct up_usage {
	uint64_t ul_pkts;
	uint64_t ul_bytes;
	uint64_t dl_pkts;
	uint64_t dl_bytes;
	uint64_t ul_pkts6;
	uint64_t ul_bytes6;
	uint64_t dl_pkts6;
	uint64_t dl_bytes6;
	uint64_t ul_drops; /* packets of the session dropped, both families */
	uint64_t dl_drops;
	uint64_t ul_drop_bytes; /* their octets (IP packets, header included) */
	uint64_t dl_drop_bytes;
};

/* Control classes the redirect sends to the CP. */
#define UP_REDIRECT_DISCOVERY 0x01   /* PPPoE discovery, ethertype 0x8863 */
#define UP_REDIRECT_PPP_CONTROL 0x02 /* LCP (except offloaded echoes), PAP, CHAP, IPCP, IPv6CP */
#define UP_REDIRECT_UNKNOWN_SESSION 0x04 /* PPPoE session frames of no installed session */
#define UP_REDIRECT_DHCP 0x08		 /* IPoE DHCPv4 client -> server (UDP 68 -> 67) */
#define UP_REDIRECT_DHCP6 0x10 /* IPoE IPv6: RS and DHCPv6 client -> server (546 -> 547) */
#define UP_REDIRECT_ALL 0x1f

struct up_redirect {
	uint32_t cp_ip;	  /* VXLAN endpoint of the CP, host order */
	uint16_t cp_port; /* UDP port, 4789 in bngpod */
	uint8_t classes;  /* UP_REDIRECT_* */
	bool fallback;	  /* true: the static fallback (no default session) */
};

enum up_cp_state {
	UP_CP_NONE,	   /* no association */
	UP_CP_ASSOCIATED,  /* associated, heartbeats answered */
	UP_CP_UNREACHABLE, /* associated, N1 heartbeats unanswered; sessions kept */
};

/*
 * The data path seen from PFCP. Every callback runs on the caller's thread,
 * inside pfcp_up_input() or pfcp_up_tick().
 *
 * install  create the session whole or return an error and leave nothing
 *          behind. On success set *handle (any value; it names the session
 *          in later calls and in pfcp_up_report_lcp_dead()). Errors map to
 *          PFCP causes: -ENOSPC/-ENOMEM -> 75 No resources available;
 *          -ENOENT -> 70 Invalid Forwarding Policy (qos_profile unknown);
 *          any other -> 73 Rule creation/modification failure (Failed Rule
 *          ID: the upstream PDR).
 * modify   apply the new description s; changed says what differs from the
 *          last one installed (UP_CHG_*). All or nothing, like install;
 *          same error mapping. May replace *handle (e.g. when the keys
 *          change and the data path re-adds the session).
 * remove   delete the session; cannot fail.
 * usage    fill *out (zeroed before the call) with the cumulative counters.
 * redirect the control redirect changed: a default session was installed,
 *          modified or removed (then r->fallback is set and r carries the
 *          fallback from struct pfcp_up_conf).
 * cp_state optional (may be NULL): the association state changed.
 * line_group optional (NULL: every Association Update with a Line Group IE
 *          is refused with cause 64): adopt or release the line group lg
 *          names (bngpod Line Group IE, docs/dp/pfcp.md). Idempotent: an
 *          adoption of a served group with the same addresses, a release
 *          of a standby group, return 0. Returns 0, or a negative errno
 *          (the request is answered with cause 64; the data path logs why).
 * served   optional (with line_group): is the session still on a served
 *          line? After an accepted release, every subscriber session for
 *          which it answers false is removed (ops->remove, no usage report).
 */
struct pfcp_up_ops {
	int (*install)(void *ctx, const struct up_sub *s, uint32_t *handle);
	int (*modify)(void *ctx, uint32_t *handle, const struct up_sub *s, uint32_t changed);
	void (*remove)(void *ctx, uint32_t handle);
	void (*usage)(void *ctx, uint32_t handle, struct up_usage *out);
	void (*redirect)(void *ctx, const struct up_redirect *r);
	void (*cp_state)(void *ctx, enum up_cp_state state);
	int (*line_group)(void *ctx, const struct pfcp_line_group *lg);
	bool (*served)(void *ctx, uint32_t handle);
};

/* Sends one datagram; returns 0 or a negative errno (counted, not retried). */
typedef int (*pfcp_send_fn)(void *arg, const uint8_t *buf, size_t len, uint32_t ip, uint16_t port);

struct pfcp_up_conf {
	uint32_t node_ipv4;	  /* our Node ID and F-SEID address (control address), host order */
	uint32_t cp_ip;		  /* the only peer accepted, host order */
	uint16_t cp_port;	  /* where our requests go; 0 = 8805 */
	uint32_t recovery_unix_s; /* process start, Unix seconds (sent as NTP) */
	int64_t wall_offset_ms;	  /* wall clock = now_ms + wall_offset_ms (Unix ms) */
	uint32_t capacity;	  /* sessions, default session included; 1..UP_MAX_CAPACITY */
	uint32_t heartbeat_ms;	  /* heartbeat interval; 0 = 5000 */
	uint32_t t1_ms;		  /* request retransmission timer; 0 = 3000 */
	uint8_t n1;		  /* transmissions of a request before giving up; 0 = 3 */
	uint32_t scan_per_tick;	  /* sessions examined per tick for reports; 0 = 512 */
	uint32_t reports_per_tick;   /* session reports sent per tick at most; 0 = 64 */
	uint32_t rcache_ttl_ms;	     /* how long a response is replayed; 0 = 2 x t1 x n1 */
	uint8_t up_features[3];	     /* UP Function Features octets 5-7 */
	uint8_t bbf_features;	     /* BBF UP Function Features octet 7 (PFCP_BBF_UPF_*) */
	struct up_redirect fallback; /* redirect when no default session exists */
};
#define UP_MAX_CAPACITY (1u << 22)

/* Counters; all monotonic except the gauges marked so. */
struct pfcp_up_stats {
	uint64_t rx[PFCP_MSG_TYPE_MAX]; /* by message type (0: unknown types) */
	uint64_t tx[PFCP_MSG_TYPE_MAX];
	uint64_t tx_errors;		       /* send callback failures */
	uint64_t not_allowed;		       /* datagrams from other peers */
	uint64_t bad_header;		       /* no usable PFCP header: dropped */
	uint64_t version_not_supported;	       /* answered with message type 11 */
	uint64_t unknown_type;		       /* dropped */
	uint64_t unexpected_response;	       /* responses matching no request */
	uint64_t decode_error[PFCP_CAUSE_MAX]; /* requests whose IEs failed to decode, by cause */
	uint64_t rejected[PFCP_CAUSE_MAX];     /* responses sent with cause != 1, by cause */
	uint64_t ies_skipped;		       /* unknown / misplaced IEs ignored */
	uint64_t ies_duplicate;		       /* repeated single-instance IEs ignored */
	uint64_t retrans_rx;		       /* retransmitted requests answered from the cache */
	uint64_t retrans_tx;		       /* our requests retransmitted */
	uint64_t req_timeouts;		       /* our requests unanswered after n1 tries */
	uint64_t hb_sent;
	uint64_t hb_failures;	       /* times the CP was declared unreachable */
	uint64_t cp_restarts;	       /* recovery time stamp changes seen */
	uint64_t assoc_setups;	       /* accepted */
	uint64_t assoc_releases;       /* accepted (sessions deleted) */
	uint64_t sessions_established; /* subscriber and default */
	uint64_t sessions_modified;
	uint64_t sessions_deleted;
	uint64_t reports_sent;	      /* usage Session Report Requests (first transmissions) */
	uint64_t reports_deferred;    /* due but not sent (no association, CP unreachable, full) */
	uint64_t lcp_dead_sent;	      /* LCP dead Session Report Requests (first transmissions) */
	uint64_t report_rejected;     /* Session Report Responses with cause != 1 */
	uint64_t install_failed;      /* ops->install / modify refused */
	uint64_t lg_adopts;	      /* Line Group adoptions accepted (repeats included) */
	uint64_t lg_releases;	      /* Line Group releases accepted (repeats included) */
	uint64_t lg_refused;	      /* Association Updates answered with cause != 1 */
	uint64_t lg_sessions_deleted; /* sessions removed because their group was released */
	uint32_t sessions;	      /* gauge: all sessions */
	uint32_t sub_sessions;	   /* gauge: subscriber sessions (== installed in the data path) */
	uint32_t pending;	   /* gauge: requests awaiting a response */
	enum up_cp_state cp_state; /* gauge */
	uint8_t hb_missed;	   /* gauge: consecutive unanswered heartbeats */
	bool default_session;	   /* gauge */
};

struct pfcp_up;

/*
 * Create the UP function. Returns NULL if conf is invalid (capacity 0 or
 * above UP_MAX_CAPACITY, no node address, no CP address) or memory is short.
 * Does not call any op: the caller installs conf->fallback itself at start.
 */
struct pfcp_up *pfcp_up_create(const struct pfcp_up_conf *conf, const struct pfcp_up_ops *ops,
			       void *ctx);

/* Free everything; does not call ops->remove (the data path goes away too). */
void pfcp_up_free(struct pfcp_up *u);

/*
 * Process one datagram received on the PFCP socket. from_ip/from_port: its
 * source (host order). Datagrams from any address but conf->cp_ip are
 * dropped and counted. Answers (and the replay of cached answers) go to
 * from_ip:from_port through send. A datagram may bundle several messages
 * (FO flag). Returns the number of messages processed (0 when dropped).
 */
int pfcp_up_input(struct pfcp_up *u, const uint8_t *msg, size_t len, uint32_t from_ip,
		  uint16_t from_port, uint64_t now_ms, pfcp_send_fn send, void *arg);

/*
 * Timers: retransmissions of our requests (t1, n1), heartbeats, periodic and
 * volume-threshold usage reports, LCP dead reports not yet acknowledged.
 * Work per call is bounded: at most UP_MAX_PENDING pending entries,
 * conf->scan_per_tick sessions (one ops->usage each at most) and
 * conf->reports_per_tick reports, whatever the number of sessions.
 */
void pfcp_up_tick(struct pfcp_up *u, uint64_t now_ms, pfcp_send_fn send, void *arg);

/*
 * The data path saw the subscriber's LCP keepalive fail (no echo reply after
 * the configured misses): send a Session Report Request (bngpod encoding:
 * Report Type UPIR + BBF PPP LCP Connectivity, see docs/dp/pfcp.md). If it
 * cannot go now (no association, CP unreachable, pending table full) or is
 * not acknowledged after n1 tries, it is sent again from pfcp_up_tick()
 * until the CP acknowledges it. The session is not removed: the CP decides.
 * Returns 0, or -ENOENT if no session has this handle.
 */
int pfcp_up_report_lcp_dead(struct pfcp_up *u, uint32_t handle, uint64_t now_ms, pfcp_send_fn send,
			    void *arg);

/* Counters (a copy). */
void pfcp_up_stats_get(const struct pfcp_up *u, struct pfcp_up_stats *st);

/* Session listing for telemetry. */
#define UP_KIND_SUBSCRIBER 1
#define UP_KIND_DEFAULT 2
struct up_session_info {
	uint64_t up_seid;
	uint64_t cp_seid;
	uint32_t handle; /* subscriber sessions only */
	uint8_t kind;	 /* UP_KIND_* */
	bool lcp_dead;	 /* an LCP dead report is not yet acknowledged */
};

/*
 * Copy up to max sessions, starting at *cursor (0 for the first call), into
 * out; advances *cursor. Returns how many were copied; 0 at the end.
 */
uint32_t pfcp_up_sessions(const struct pfcp_up *u, uint32_t *cursor, struct up_session_info *out,
			  uint32_t max);

#endif /* BNG_PFCP_UP_H */

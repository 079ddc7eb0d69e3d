/*
 * bng-dp punt: policing of the control frames the worker sends to the CP.
 *
 * What goes to the CP (as whole frames, tags kept, over VXLAN, vxlan.h):
 * PPPoE discovery, PPP control protocols (LCP other than the echoes lcp.h
 * answers, PAP, CHAP, IPCP, IPV6CP), PPPoE session frames of unknown
 * sessions (so the CP can answer them with PADT) and IPoE DHCPv4 client
 * frames (class dhcp: UDP 68 -> 67 to broadcast or a gateway of the line's
 * group, whether or not the client has a session), and IPoE IPv6 Router
 * Solicitations and DHCPv6 client frames (class dhcp too, redirect bit
 * PUNT_REDIRECT_DHCP6: UDP 546 -> 547 to ff02::1:2 or the BNG's link-local). The worker puts them
 * on an SP/SC rte_ring (the punt ring) that the control thread drains.
 *
 * Priority classes, so that one flooding CPE cannot starve discovery or
 * keepalives of its neighbours on the same OLT port:
 *   PUNT_HIGH  session control: LCP, PAP, CHAP, IPCP, IPV6CP; and PADT
 *   PUNT_MID   PADR
 *   PUNT_LOW   PADI; session frames (IPv4/IPv6) of unknown sessions; DHCP, RS, DHCPv6
 * Which frames are redirected at all is a mask of PUNT_REDIRECT_* bits set by
 * the control thread (the CP's PFCP default session; a static fallback of
 * PUNT_REDIRECT_ALL until a CP associates). Discovery = PADI/PADR/PADT.
 *
 * A frame is admitted when, in this order (the first failure names the drop):
 *   1. its kind is one the CP handles (else "invalid": IPoE, core, drops);
 *   2. its redirect bit is set ("not_redirected");
 *   3. the token bucket of its client and class conforms ("policed_mac"); the
 *      client is (S-tag, C-tag, source MAC);
 *   4. the token bucket of its line and class conforms ("policed_line");
 *   5. the ring holds fewer frames than its class's threshold, then the
 *      enqueue succeeds ("ring_full"): LOW is refused first (default 50%
 *      occupancy), then MID (75%); HIGH may fill the ring.
 * Tokens are taken only from an admitted frame, so a client's excess does not
 * drain its line's bucket, and a frame refused by its line or the ring does
 * not drain its client's.
 *
 * Token buckets are GCRA (virtual scheduling): one uint64_t "theoretical
 * arrival time" in TSC ticks per bucket, emission interval T = hz / rate,
 * tolerance (burst - 1) * T. No division per frame, no system call; time is
 * the TSC value the caller passes.
 *
 * Data layout (allocated once by punt_create()):
 *   line_tat[DP_MAX_LINES][3]  per line index (cls_result.line) and class;
 *   mac_tat[mac_buckets][3]    per client and class, a fixed-size table
 *                              indexed by a keyed hash of (S-tag, C-tag, MAC):
 *                              clients that collide share their buckets. With
 *                              the default 65536 entries (1.5 MiB) and 4096
 *                              clients on an instance, a given client shares
 *                              with another with probability ~6%; the key is
 *                              random per process, so a CPE cannot pick MACs
 *                              that collide with a chosen neighbour.
 *   counters                   per class and reason, plus "invalid".
 * Worker-only writes (plain stores, one worker per struct punt); the control
 * thread writes only the redirect mask (one atomic 32-bit store) and reads
 * the counters.
 */

#ifndef BNG_PUNT_H
#define BNG_PUNT_H

#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "classify.h"

/* Punt classes and outcomes, with their telemetry names: punt.def. */
enum punt_class {
#define PUNT_CLASS_DEF(sym, name) PUNT_##sym,
#include "punt.def"
#undef PUNT_CLASS_DEF
	PUNT_NUM_CLASSES
};

#define PUNT_REDIRECT_DISCOVERY (1u << 0)	/* PADI, PADR, PADT */
#define PUNT_REDIRECT_PPP_CTRL (1u << 1)	/* LCP, PAP, CHAP, IPCP, IPV6CP */
#define PUNT_REDIRECT_UNKNOWN_SESSION (1u << 2) /* session frames of no session */
#define PUNT_REDIRECT_DHCP (1u << 3)		/* IPoE DHCPv4 client -> server */
#define PUNT_REDIRECT_DHCP6 (1u << 4)		/* IPoE IPv6: RS, DHCPv6 client -> server */
#define PUNT_REDIRECT_ALL 31u

enum punt_reason {
#define PUNT_REASON_DEF(sym, name) PUNT_##sym,
#include "punt.def"
#undef PUNT_REASON_DEF
	PUNT_REASON_MAX
};

extern const char *const punt_class_names[PUNT_NUM_CLASSES];
extern const char *const punt_reason_names[PUNT_REASON_MAX];

/* A token bucket: rate in frames per second (0 = no limit), burst in frames. */
struct punt_rate {
	uint32_t rate;
	uint32_t burst;
};

struct punt_params {
	struct punt_rate mac[PUNT_NUM_CLASSES];	 /* per client */
	struct punt_rate line[PUNT_NUM_CLASSES]; /* per line */
	uint8_t ring_pct[PUNT_NUM_CLASSES];	 /* admitted while occupancy < pct% (1..100) */
	uint32_t mac_buckets;			 /* power of two, 1..2^24 */
	uint32_t redirect;			 /* initial PUNT_REDIRECT_* mask */
	uint64_t tsc_hz;			 /* 0: rte_get_tsc_hz() */
	uint64_t hash_seed;			 /* 0: random (rte_rand()) */
};

#define PUNT_DEFAULT_MAC_BUCKETS 65536u

struct punt_counters {
	uint64_t c[PUNT_NUM_CLASSES][PUNT_REASON_MAX];
	uint64_t invalid; /* frames of a kind that is never punted */
};

struct punt {
	struct rte_ring *ring;
	uint32_t redirect; /* atomic: written by the control thread */
	uint32_t mac_mask;
	uint64_t seed;
	uint32_t ring_thr[PUNT_NUM_CLASSES];
	uint64_t mac_t[PUNT_NUM_CLASSES]; /* emission interval, TSC ticks; 0 = no limit */
	uint64_t mac_tau[PUNT_NUM_CLASSES];
	uint64_t line_t[PUNT_NUM_CLASSES];
	uint64_t line_tau[PUNT_NUM_CLASSES];
	uint64_t (*mac_tat)[PUNT_NUM_CLASSES]; /* [mac_buckets] */
	struct punt_counters cnt __rte_cache_aligned;
	uint64_t line_tat[DP_MAX_LINES][PUNT_NUM_CLASSES];
};

/* --- control thread -------------------------------------------------------- */

/*
 * Defaults: the buckets and ring thresholds of DP_PUNT_DEFAULTS (dp_config.h:
 * per client HIGH 100/s burst 200, MID (PADR) 5/s burst 10, LOW (PADI,
 * unknown session) 5/s burst 10; per line HIGH 5000/s burst 10000, MID 200/s
 * burst 400, LOW 200/s burst 400; ring thresholds HIGH 100%, MID 75%, LOW
 * 50%); 65536 client buckets; redirect all; TSC rate and seed from DPDK.
 */
void punt_params_default(struct punt_params *p);

/*
 * The buckets and ring thresholds of a [punt] section (struct dp_punt, the
 * configuration's classes mapped to PUNT_HIGH/MID/LOW) into p; the other
 * fields of p are left as they are.
 */
void punt_params_apply(struct punt_params *p, const struct dp_punt *c);

/*
 * A punt stage feeding ring (the worker is its only producer). prm NULL =
 * defaults. NULL with rte_errno set: EINVAL (mac_buckets not a power of two,
 * a ring_pct outside 1..100, a rate above the TSC rate, no ring), ENOMEM.
 */
struct punt *punt_create(const struct punt_params *prm, struct rte_ring *ring, int socket);
void punt_free(struct punt *p);

/* Which classes of frames go to the CP: PUNT_REDIRECT_* bits (others ignored). */
void punt_set_classes(struct punt *p, uint32_t mask);
uint32_t punt_get_classes(const struct punt *p);

/* A copy of the counters (another thread may read while the worker writes). */
void punt_counters_get(const struct punt *p, struct punt_counters *out);

/* The client bucket index of (stag, ctag, mac): for tests and telemetry. */
uint32_t punt_client_slot(const struct punt *p, uint16_t stag, uint16_t ctag, const uint8_t *mac);

/* --- worker ---------------------------------------------------------------- */

/*
 * Class of a frame the worker would punt (r from classify_frame() on frame),
 * and its redirect bit in *bit; -1 for a kind that is never punted.
 * CLS_PPPOE_SESS_IPV4/IPV6 are classed as unknown-session frames: the worker
 * punts them only when the session lookup missed.
 */
static inline int
punt_class_of(const struct cls_result *r, const uint8_t *frame, uint32_t *bit)
{
	switch (r->kind) {
	case CLS_PPPOE_DISC:
		*bit = PUNT_REDIRECT_DISCOVERY;
		switch (frame[r->l3_off + 1]) {
		case CLS_PADR:
			return PUNT_MID;
		case CLS_PADT:
			return PUNT_HIGH;
		default:
			return PUNT_LOW; /* PADI */
		}
	case CLS_PPPOE_SESS_CTRL:
		*bit = PUNT_REDIRECT_PPP_CTRL;
		return PUNT_HIGH;
	case CLS_PPPOE_SESS_IPV4:
	case CLS_PPPOE_SESS_IPV6:
		*bit = PUNT_REDIRECT_UNKNOWN_SESSION;
		return PUNT_LOW;
	case CLS_IPOE_IPV4: /* the worker offers only DHCP (worker_ipoe_is_dhcp()) */
		*bit = PUNT_REDIRECT_DHCP;
		return PUNT_LOW;
	case CLS_IPOE_IPV6: /* the worker offers only RS and DHCPv6 (class dhcp too) */
		*bit = PUNT_REDIRECT_DHCP6;
		return PUNT_LOW;
	default:
		*bit = 0;
		return -1;
	}
}

/*
 * Offer m (classified as r) to the CP at TSC time now_tsc. 0: enqueued, the
 * ring owns m. Negative: refused, the caller frees m; the reason is counted:
 * -EINVAL invalid (kind never punted, no line, frame shorter than its QinQ
 * header or than the result's window), -EPERM not_redirected,
 * -EBUSY policed_mac / policed_line, -ENOBUFS ring_full.
 */
int punt_enqueue(struct punt *p, struct rte_mbuf *m, const struct cls_result *r, uint64_t now_tsc);

#endif /* BNG_PUNT_H */

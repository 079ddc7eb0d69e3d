/*
 * bng-dp neighbour table: ARP on the core side.
 *
 * There is no kernel stack on the DPDK data port, so the DP answers ARP for
 * each of its line groups' core addresses (from that group's core MAC, so a
 * group that moves to another instance takes its address and MAC along) and
 * resolves the MACs of its next hops itself. Core frames are untagged or
 * carry the core VLAN ([core] vlan); the classifier hands ARP frames over as
 * CLS_CORE_ARP with l3_off at the ARP packet.
 *
 * Ownership: the CONTROL thread owns the table and does all ARP protocol
 * work (neigh_arp_input, neigh_tick, neigh_announce). The worker only reads
 * MACs (neigh_lookup / neigh_resolve) and asks for addresses (neigh_want).
 *
 * Data layout (one allocation, neigh_create()):
 *   buckets[256]   read by the worker, written by the control thread. A
 *                  bucket is one cache line of 4 slots {key, word}; an address
 *                  lives in bucket (ip & 255), so the addresses of a /22 or
 *                  smaller core subnet never compete for a slot. word is the
 *                  MAC as a 48-bit key (classify.h mac_key()), 0 while
 *                  unresolved, plus NEIGH_WORD_CHECK when the control thread
 *                  wants to know whether the entry is still used.
 *   epoch, ring    read-mostly: the want ring (SP/SC rte_ring of uint32
 *                  addresses, NEIGH_WANT_RING_SIZE) and a counter the control
 *                  thread advances every NEIGH_WANT_EPOCH_MS.
 *   filter[64]     worker only: the last address wanted per (ip & 63) and the
 *                  epoch it was wanted in, so one address is queued at most
 *                  once per epoch however many packets ask for it.
 *   entries[1024]  control only (telemetry reads it): state, timers, probes.
 *
 * Why the worker can read without locks: both slot fields are naturally
 * aligned 64-bit words, each written with one atomic store. key holds the
 * address and a generation that the control thread increments every time
 * it gives the slot to an address. It publishes key (release) while word is
 * 0, and stores a MAC into word (release) only after that; freeing a slot
 * clears word first, then the address. A reader loads key (acquire), word
 * (acquire), then key again, and takes the word only if key has not changed
 * at all. A MAC stored for a later owner of the slot is only visible after
 * that owner's key, so the second load sees a different generation; a MAC
 * of an earlier owner was cleared before the key the reader saw first. The
 * generation closes the A-B-A case (a reader delayed while the slot goes to
 * another address and back): the key never comes back the same. A reader
 * therefore gets a MAC of the address it asked for (possibly its previous
 * MAC) or 0, never another address's MAC, and no RCU grace period is needed
 * to recycle a slot (tests/test_neigh.c checks this with a reader thread
 * racing a million recycles).
 *
 * State machine of an entry (timers in struct neigh_params, defaults):
 *   INCOMPLETE  resolving, MAC 0: broadcast requests at 0, 1, 2 s, then
 *               doubling (4, 8 s ...) up to retry_max (8 s). An unpinned
 *               address gives up after max_probes (3) unanswered requests
 *               -> FAILED. The router ([core] router_address) is pinned: it
 *               is wanted from the start and retried forever. A pinned
 *               address the worker wants (a packet waits for it), or any
 *               pinned address after neigh_announce(), whose next retry is
 *               not due yet is asked for at once, the schedule starting
 *               over: an instance that adopts a line group (a
 *               standby after a failover, whose backoff reached 8 s) resolves
 *               the router as soon as the switch steers the group to it.
 *   REACHABLE   MAC known, confirmed by an ARP reply or request from it less
 *               than reachable - refresh_lead ago (300 - 30 s).
 *   STALE       (unpinned) the MAC is still used by the worker, the word
 *               carries NEIGH_WORD_CHECK: the next worker lookup wants the
 *               address again, which moves it to PROBE. Unused until the
 *               reachable time ends: the entry is freed (expired_unused).
 *   PROBE       the MAC is kept and used while unicast requests go to it
 *               (same retry schedule); an answer -> REACHABLE. No answer by
 *               confirmed + reachable: aged out, MAC 0, -> INCOMPLETE when
 *               pinned, else FAILED. Pinned entries go REACHABLE -> PROBE.
 *   FAILED      MAC 0; wants are ignored for failed_hold (10 s), then the
 *               entry is freed and a later want starts over.
 * Any ARP request or reply whose sender has an entry updates its MAC and
 * makes it REACHABLE (RFC 826). An entry is created by a want, by an ARP
 * request for one of our addresses (RFC 826: the requester will talk to
 * us), or at start (the router). A full bucket takes the oldest FAILED,
 * then the oldest STALE slot; otherwise the new address is refused
 * (table_full).
 *
 * ARP input rules (neigh_arp_input): only Ethernet/IPv4 ARP (1, 0x0800, 6,
 * 4), operation request or reply; the sender MAC must be unicast, not zero,
 * equal to the Ethernet source and not one of our core MACs; the sender
 * address must be a host of [core] subnet (not its network or broadcast
 * address) and not one of our core addresses. A request for one of our core
 * addresses is answered from that group's core MAC. "Our" core addresses and
 * MACs are those of the served line groups: a standby group's are not ours. A request with sender
 * address 0.0.0.0 (RFC 5227 probe) for one of our addresses is answered,
 * nothing is learnt. Replies only update entries that exist (unsolicited
 * replies create nothing). Every ignored frame is counted by reason.
 *
 * Frames sent (neigh_tick through the send callback, and the replies):
 * Ethernet (+ 802.1Q core VLAN when configured) + ARP, padded to 60 bytes.
 * Requests come from the first line group's core MAC and address, with
 * target MAC 0: broadcast to resolve, unicast to the known MAC to refresh.
 * Gratuitous ARP (RFC 5227 announcement: a request with sender = target =
 * the core address) for every line group, garp_count (2) times garp_interval
 * (2 s) apart, from the first tick and after neigh_announce().
 */

#ifndef BNG_NEIGH_H
#define BNG_NEIGH_H

#include <stdint.h>

#include <rte_common.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "classify.h"
#include "dp_config.h"

#define NEIGH_BUCKETS 256
#define NEIGH_WAYS 4
#define NEIGH_CAPACITY (NEIGH_BUCKETS * NEIGH_WAYS)
#define NEIGH_WANT_RING_SIZE 1024
#define NEIGH_WANT_FILTER 64
#define NEIGH_WANT_EPOCH_MS 1000
#define NEIGH_MAC_MASK 0xffffffffffffULL
#define NEIGH_WORD_CHECK (1ULL << 48)
#define NEIGH_FRAME_LEN 60 /* every frame built here, padded (no FCS) */
#define NEIGH_ARP_LEN 28

/* Default timers (struct neigh_params). */
#define NEIGH_DEFAULT_REACHABLE_MS 300000u
#define NEIGH_DEFAULT_REFRESH_LEAD_MS 30000u
#define NEIGH_DEFAULT_RETRY_MS 1000u
#define NEIGH_DEFAULT_RETRY_MAX_MS 8000u
#define NEIGH_DEFAULT_MAX_PROBES 3u
#define NEIGH_DEFAULT_FAILED_HOLD_MS 10000u
#define NEIGH_DEFAULT_GARP_COUNT 2u
#define NEIGH_DEFAULT_GARP_INTERVAL_MS 2000u
/* Retries at retry_ms for the first NEIGH_FAST_PROBES requests, then doubling. */
#define NEIGH_FAST_PROBES 3u

/* Entry states, with their telemetry names: neigh.def. */
enum neigh_state {
#define NEIGH_STATE_DEF(sym, name) NEIGH_##sym,
#include "neigh.def"
#undef NEIGH_STATE_DEF
	NEIGH_STATE_MAX
};

/* What neigh_arp_input() did with a frame. */
enum neigh_arp_action {
	NEIGH_ARP_IGNORED, /* counted in ignored[reason] */
	NEIGH_ARP_LEARNT,  /* an entry was created or updated, nothing to send */
	NEIGH_ARP_REPLY,   /* reply[0..*reply_len) is to be sent */
};

/* Why neigh_arp_input() ignored a frame, one counter each (neigh.def). */
enum neigh_ignore {
#define NEIGH_IGNORE_DEF(sym, name) NEIGH_IGN_##sym,
#include "neigh.def"
#undef NEIGH_IGNORE_DEF
	NEIGH_IGN_MAX
};

extern const char *const neigh_state_names[NEIGH_STATE_MAX];
extern const char *const neigh_ignore_names[NEIGH_IGN_MAX];

/* Timers; neigh_create() sets the defaults above. */
struct neigh_params {
	uint32_t reachable_ms;	   /* a confirmation is good for this long */
	uint32_t refresh_lead_ms;  /* refresh / usage check starts this long before */
	uint32_t retry_ms;	   /* first retries */
	uint32_t retry_max_ms;	   /* backoff cap */
	uint32_t max_probes;	   /* unanswered broadcast requests before FAILED */
	uint32_t failed_hold_ms;   /* FAILED: wants ignored, then freed */
	uint32_t garp_count;	   /* gratuitous ARP rounds per announcement */
	uint32_t garp_interval_ms; /* between rounds */
};

/*
 * Counters. Control-thread fields are plain increments by the control
 * thread; wants_dropped is the worker's. Read with neigh_counters_get().
 */
struct neigh_counters {
	uint64_t arp_in;	     /* frames given to neigh_arp_input() */
	uint64_t requests_answered;  /* replies built for our addresses */
	uint64_t probes_answered;    /* of which to RFC 5227 probes (sender 0.0.0.0) */
	uint64_t learnt_replies;     /* entries confirmed by a reply */
	uint64_t learnt_requests;    /* entries created or confirmed by a request */
	uint64_t mac_changes;	     /* a known MAC replaced by another */
	uint64_t requests_sent;	     /* ARP requests sent (broadcast and unicast) */
	uint64_t retries;	     /* of which repeated an unanswered one */
	uint64_t refreshes_sent;     /* of which unicast to a known MAC */
	uint64_t gratuitous_sent;    /* announcements, one per group and round */
	uint64_t send_failed;	     /* the send callback refused a frame */
	uint64_t resolutions_failed; /* INCOMPLETE -> FAILED */
	uint64_t aged_out;	     /* a known MAC that stopped answering */
	uint64_t expired_unused;     /* entries freed because nobody used them */
	uint64_t wants;		     /* addresses received from the worker */
	uint64_t wants_invalid;	     /* outside the subnet, ours, network/broadcast */
	uint64_t wants_dropped;	     /* worker: the want ring was full */
	uint64_t table_full;	     /* no slot for a new address */
	uint64_t evictions;	     /* FAILED or STALE slots taken for a new address */
	uint64_t ignored[NEIGH_IGN_MAX];
};

/* One slot as the worker sees it. */
struct neigh_slot {
	uint64_t key;  /* generation << 32 | address (host order); address 0 = free */
	uint64_t word; /* MAC key | NEIGH_WORD_CHECK, 0 = unresolved */
};

struct neigh_bucket {
	struct neigh_slot s[NEIGH_WAYS];
} __rte_cache_aligned;

/* Control-side state of slot i (bucket i / NEIGH_WAYS, way i % NEIGH_WAYS). */
struct neigh_entry {
	uint64_t next_ms;      /* next timer action */
	uint64_t confirmed_ms; /* last ARP from it; valid when the MAC is known */
	uint64_t since_ms;     /* when the entry entered its state */
	uint64_t wanted_ms;    /* last want from the worker, 0 never */
	uint8_t state;	       /* enum neigh_state */
	uint8_t pinned;	       /* the router: always wanted, never FAILED or freed */
	uint8_t probes;	       /* requests sent in the current round */
	uint8_t pad[5];
};

/* Our addresses, sorted by address: the group that owns each. */
struct neigh_own {
	uint32_t ip;
	uint16_t group;
	uint16_t pad;
};

typedef int (*neigh_send_fn)(void *arg, const uint8_t *frame, uint16_t len);

struct neigh_table {
	/* worker reads, control writes */
	struct neigh_bucket buckets[NEIGH_BUCKETS];
	/* read-mostly */
	struct rte_ring *want_ring __rte_cache_aligned;
	uint32_t epoch;
	/* worker only */
	struct {
		uint32_t ip;
		uint32_t epoch;
	} filter[NEIGH_WANT_FILTER] __rte_cache_aligned;
	uint64_t wants_dropped;
	/* control only (telemetry reads) */
	struct neigh_entry entries[NEIGH_CAPACITY] __rte_cache_aligned;
	struct neigh_params params;
	struct neigh_counters st;
	uint64_t next_due_ms; /* earliest entries[].next_ms of a used entry */
	uint64_t epoch_next_ms;
	uint64_t garp_next_ms;
	uint32_t garp_left;
	uint32_t subnet;    /* network address, host order */
	uint32_t mask;	    /* subnet mask, host order */
	uint8_t plen;	    /* prefix length */
	uint16_t vlan;	    /* core VLAN, 0 = untagged */
	uint32_t router;    /* [core] router_address */
	uint16_t n_own;	    /* served line groups (own[]) */
	uint16_t first_own; /* the first served group: source of our requests */
	struct neigh_own own[DP_MAX_LINE_GROUPS];
	uint8_t core_mac[DP_MAX_LINE_GROUPS][6]; /* by group index */
	uint32_t core_addr[DP_MAX_LINE_GROUPS];	 /* by group index */
};

/* --- control thread -------------------------------------------------------- */

/*
 * Create the table of a loaded configuration on socket: default timers,
 * the router pinned and INCOMPLETE, gratuitous ARP due at the first tick.
 * NULL with rte_errno set on failure (ENOMEM, or EINVAL for a config whose
 * router is not a host of its subnet).
 */
struct neigh_table *neigh_create(const struct dp_config *cfg, int socket);

/* Free the table and its ring. No worker may use it any more. NULL is ignored. */
void neigh_free(struct neigh_table *t);

/* Default timers. */
void neigh_params_default(struct neigh_params *p);

/*
 * Replace the timers. -EINVAL (nothing changed) when reachable_ms, retry_ms,
 * retry_max_ms < retry_ms or max_probes is 0, or refresh_lead_ms >=
 * reachable_ms. Takes effect as timers next fire.
 */
int neigh_set_params(struct neigh_table *t, const struct neigh_params *p);

/*
 * Process one CLS_CORE_ARP frame of len bytes (r from the classifier):
 * learn, answer. reply must hold NEIGH_FRAME_LEN bytes; *reply_len is set
 * (0 unless the result is NEIGH_ARP_REPLY). Returns enum neigh_arp_action.
 */
int neigh_arp_input(struct neigh_table *t, const uint8_t *frame, uint16_t len,
		    const struct cls_result *r, uint64_t now_ms, uint8_t *reply,
		    uint16_t *reply_len);

/*
 * Run the table at now_ms (monotonic milliseconds; call every tick): take
 * the worker's wants, send requests, retries, refreshes and gratuitous ARP
 * through send(arg, frame, len) (0 = taken), age entries out.
 */
void neigh_tick(struct neigh_table *t, uint64_t now_ms, neigh_send_fn send, void *arg);

/*
 * Announce every line group address again (gratuitous ARP from the next
 * tick), and ask for every unresolved pinned address again (the instance may
 * have a new group to ask from, and a new path to the router).
 */
void neigh_announce(struct neigh_table *t);

/*
 * Take the line groups' core addresses and MACs from cfg again: only the
 * served groups (not dp_line_group.standby) are answered, announced and
 * used as the source of requests. Control thread; neigh_create() calls it,
 * the adoption and release of a group call it again (then neigh_announce()).
 */
void neigh_set_own(struct neigh_table *t, const struct dp_config *cfg);

/* --- any thread (telemetry): each field is read whole, an entry may be mid-update */

struct neigh_info {
	uint32_t ip;   /* host order */
	uint8_t state; /* enum neigh_state */
	uint8_t pinned;
	uint8_t probes;
	uint8_t pad;
	uint64_t mac;	 /* MAC key, 0 when unresolved */
	uint64_t age_ms; /* since the last confirmation; UINT64_MAX if never */
};

/*
 * The used entries, at most max of them into out[], in slot order. Returns
 * how many entries are in use (more than max means the list was cut).
 */
unsigned int neigh_list(const struct neigh_table *t, uint64_t now_ms, struct neigh_info *out,
			unsigned int max);

/* A copy of the counters, the worker's included. */
void neigh_counters_get(const struct neigh_table *t, struct neigh_counters *out);

#define NEIGH_TEL_MAX_LIST 128

struct rte_tel_data;

/*
 * Body of the /bng/arp telemetry command. Without params: the counters,
 * "entries" (in use), "capacity" and "table", an array of at most
 * NEIGH_TEL_MAX_LIST strings "address mac state age[ pinned]" (age in ms since
 * the last confirmation, "-" when there is no MAC). With params an IPv4
 * address "a.b.c.d": that entry's ip, mac, state, pinned, probes and age_ms,
 * or state "none". -EINVAL for any other params.
 */
int neigh_telemetry(const struct neigh_table *t, uint64_t now_ms, const char *params,
		    struct rte_tel_data *d);

/* --- worker ---------------------------------------------------------------- */

/* The 6 bytes of a MAC key. */
static inline void
neigh_mac_bytes(uint64_t key, uint8_t out[6])
{
	for (int i = 5; i >= 0; i--) {
		out[i] = (uint8_t)key;
		key >>= 8;
	}
}

/* The raw word of ip (MAC key | flags) or 0; see "Why the worker can read". */
static inline uint64_t
neigh_word(const struct neigh_table *t, uint32_t ip_host)
{
	const struct neigh_bucket *b = &t->buckets[ip_host & (NEIGH_BUCKETS - 1)];
	uint64_t k, w;

	for (unsigned int i = 0; i < NEIGH_WAYS; i++) {
		k = __atomic_load_n(&b->s[i].key, __ATOMIC_ACQUIRE);
		if ((uint32_t)k != ip_host)
			continue;
		w = __atomic_load_n(&b->s[i].word, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&b->s[i].key, __ATOMIC_RELAXED) != k)
			return 0;
		return w;
	}
	return 0;
}

/* MAC key of ip_host (host order), or 0 when unresolved. Read only. */
static inline uint64_t
neigh_lookup(const struct neigh_table *t, uint32_t ip_host)
{
	return neigh_word(t, ip_host) & NEIGH_MAC_MASK;
}

/*
 * Ask the control thread to resolve ip_host (or confirm it is used). Never
 * blocks: suppressed when the same address was asked for in this epoch,
 * dropped and counted when the ring is full. Single producer: one worker.
 */
static inline void
neigh_want(struct neigh_table *t, uint32_t ip_host)
{
	unsigned int h = ip_host & (NEIGH_WANT_FILTER - 1);
	uint32_t epoch = __atomic_load_n(&t->epoch, __ATOMIC_RELAXED);

	if (t->filter[h].ip == ip_host && t->filter[h].epoch == epoch)
		return;
	t->filter[h].ip = ip_host;
	t->filter[h].epoch = epoch;
	if (rte_ring_sp_enqueue_elem(t->want_ring, &ip_host, sizeof(ip_host)) != 0)
		t->wants_dropped++;
}

/*
 * The worker's lookup: MAC key of ip_host or 0, and a want when the address
 * is unresolved or its entry asks whether it is still used.
 */
static inline uint64_t
neigh_resolve(struct neigh_table *t, uint32_t ip_host)
{
	uint64_t w = neigh_word(t, ip_host);

	if (unlikely(w == 0 || (w & NEIGH_WORD_CHECK)))
		neigh_want(t, ip_host);
	return w & NEIGH_MAC_MASK;
}

#endif /* BNG_NEIGH_H */

/*
 * Tests of the core-side neighbour table (neigh.h).
 *
 * usage: test_neigh
 *
 * A configuration with two line groups (100.64.0.10 and .11, core MACs
 * 02:cc:00:00:00:0a/0b), router 100.64.0.1, untagged or on core VLAN 42,
 * is built in code. The control thread's clock is a fake millisecond
 * counter; frames the table sends are captured by the send callback and
 * compared byte for byte with frames written out here. Covered: answers for
 * every core address (tagged and untagged core, through the real
 * classifier too), requests for other addresses ignored, learning, the
 * want -> request -> reply -> lookup flow, retry and backoff schedules
 * (unpinned and the pinned router), refresh by unicast, age-out while the
 * old MAC stays in use, usage checks of unpinned entries, gratuitous ARP at
 * start and on neigh_announce(), RFC 5227 probes, hostile inputs (each
 * reason, then 20,000 random frames), the want filter and ring limit,
 * bucket eviction, telemetry, and a reader thread looking up while the
 * control thread recycles slots (no MAC of another address ever returned).
 */

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_telemetry.h>

#include "neigh.h"
#define HARNESS_EAL
#include "harness.h"

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))
#define ROUTER IP(100, 64, 0, 1)
#define G0 IP(100, 64, 0, 10)
#define G1 IP(100, 64, 0, 11)
#define R_MAC 0x02bb000000feULL
#define G0_MAC 0x02cc0000000aULL
#define G1_MAC 0x02cc0000000bULL
#define BCAST 0xffffffffffffULL

static struct dp_config cfg;

static void
cfg_init(uint16_t vlan, uint8_t plen)
{
	static const uint8_t m0[6] = {0x02, 0xcc, 0, 0, 0, 0x0a},
			     m1[6] = {0x02, 0xcc, 0, 0, 0, 0x0b};

	memset(&cfg, 0, sizeof(cfg));
	cfg.core.subnet.addr = IP(100, 64, 0, 0);
	cfg.core.subnet.len = plen;
	cfg.core.router_address = ROUTER;
	cfg.core.vlan = vlan;
	cfg.n_line_groups = 2;
	cfg.line_groups[0].core_address = G0;
	memcpy(cfg.line_groups[0].core_mac, m0, 6);
	cfg.line_groups[1].core_address = G1;
	memcpy(cfg.line_groups[1].core_mac, m1, 6);
}

/* --- captured frames -------------------------------------------------------- */

#define CAP_MAX 4096

static struct {
	uint8_t f[CAP_MAX][NEIGH_FRAME_LEN];
	uint16_t len[CAP_MAX];
	uint64_t at[CAP_MAX];
	unsigned int n;
	uint64_t now;
	int fail;
} cap;

static int
cap_send(void *arg, const uint8_t *f, uint16_t len)
{
	(void)arg;
	if (cap.n < CAP_MAX) {
		memcpy(cap.f[cap.n], f, len < NEIGH_FRAME_LEN ? len : NEIGH_FRAME_LEN);
		cap.len[cap.n] = len;
		cap.at[cap.n] = cap.now;
	}
	cap.n++;
	return cap.fail ? -1 : 0;
}

static void
tick(struct neigh_table *t, uint64_t now)
{
	cap.now = now;
	neigh_tick(t, now, cap_send, NULL);
}

/* Tick every step ms over [from, to). */
static void
run(struct neigh_table *t, uint64_t from, uint64_t to, uint64_t step)
{
	for (uint64_t now = from; now < to; now += step)
		tick(t, now);
}

/* --- frames written out here ------------------------------------------------- */

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

static void
put_ip(uint8_t *p, uint32_t a)
{
	put16(p, a >> 16);
	put16(p + 2, a & 0xffff);
}

/* Ethernet (+ tag) + ARP, zero-padded to 60; returns the ARP offset. */
static uint16_t
arp_frame(uint8_t *f, uint16_t vlan, uint64_t dst, uint64_t src, unsigned int op, uint64_t sha,
	  uint32_t spa, uint64_t tha, uint32_t tpa)
{
	uint8_t *a;

	memset(f, 0, 60);
	put_mac(f, dst);
	put_mac(f + 6, src);
	if (vlan) {
		put16(f + 12, 0x8100);
		put16(f + 14, vlan);
		put16(f + 16, 0x0806);
		a = f + 18;
	} else {
		put16(f + 12, 0x0806);
		a = f + 14;
	}
	put16(a, 1);
	put16(a + 2, 0x0800);
	a[4] = 6;
	a[5] = 4;
	put16(a + 6, op);
	put_mac(a + 8, sha);
	put_ip(a + 14, spa);
	put_mac(a + 18, tha);
	put_ip(a + 24, tpa);
	return vlan ? 18 : 14;
}

static struct cls_result
arp_res(uint16_t vlan)
{
	struct cls_result r = {0};

	r.kind = CLS_CORE_ARP;
	r.line = CLS_NO_LINE;
	r.stag = vlan;
	r.l3_off = vlan ? 18 : 14;
	r.l3_len = 28;
	return r;
}

/* Feed an ARP frame (sender MAC also the Ethernet source). */
static int
feed(struct neigh_table *t, uint16_t vlan, uint64_t now, uint64_t dst, unsigned int op,
     uint64_t sha, uint32_t spa, uint64_t tha, uint32_t tpa, uint8_t *reply, uint16_t *rlen)
{
	uint8_t f[60];
	struct cls_result r = arp_res(vlan);

	arp_frame(f, vlan, dst, sha, op, sha, spa, tha, tpa);
	return neigh_arp_input(t, f, 60, &r, now, reply, rlen);
}

static uint32_t
frame_tpa(const uint8_t *f)
{
	const uint8_t *a = f + (f[12] == 0x81 ? 18 : 14);

	return (uint32_t)a[24] << 24 | (uint32_t)a[25] << 16 | (uint32_t)a[26] << 8 | a[27];
}

/* Indices of captured requests for tpa from index from on. */
static unsigned int
requests_for(uint32_t tpa, unsigned int from, uint64_t *times, unsigned int max)
{
	unsigned int n = 0;

	for (unsigned int i = from; i < cap.n && i < CAP_MAX; i++) {
		const uint8_t *f = cap.f[i];
		const uint8_t *a = f + (f[12] == 0x81 ? 18 : 14);

		if (a[7] == 1 && frame_tpa(f) == tpa && memcmp(a + 14, a + 24, 4) != 0) {
			if (n < max)
				times[n] = cap.at[i];
			n++;
		}
	}
	return n;
}

static const struct neigh_info *
find_info(struct neigh_table *t, uint32_t ip, uint64_t now)
{
	static struct neigh_info info[NEIGH_CAPACITY];
	unsigned int n = neigh_list(t, now, info, NEIGH_CAPACITY);

	for (unsigned int i = 0; i < n && i < NEIGH_CAPACITY; i++)
		if (info[i].ip == ip)
			return &info[i];
	return NULL;
}

static int
state_of(struct neigh_table *t, uint32_t ip, uint64_t now)
{
	const struct neigh_info *i = find_info(t, ip, now);

	return i == NULL ? NEIGH_FREE : i->state;
}

/* --- answering ----------------------------------------------------------------- */

static void
test_answer(uint16_t vlan)
{
	uint8_t reply[NEIGH_FRAME_LEN], exp[60];
	struct neigh_counters c;
	struct neigh_table *t;
	uint16_t rlen;
	char name[64];
	int ret;

	cfg_init(vlan, 24);
	t = neigh_create(&cfg, SOCKET_ID_ANY);
	snprintf(name, sizeof(name), "answer vlan %u", vlan);
	check(t != NULL, name, "created");
	if (t == NULL)
		return;
	/* The router asks for each of our addresses. */
	ret = feed(t, vlan, 10, BCAST, 1, R_MAC, ROUTER, 0, G0, reply, &rlen);
	arp_frame(exp, vlan, R_MAC, G0_MAC, 2, G0_MAC, G0, R_MAC, ROUTER);
	check(ret == NEIGH_ARP_REPLY && rlen == 60 && memcmp(reply, exp, 60) == 0, name,
	      "reply for group 0 from its core MAC, byte for byte");
	ret = feed(t, vlan, 11, G1_MAC, 1, R_MAC, ROUTER, 0, G1, reply, &rlen);
	arp_frame(exp, vlan, R_MAC, G1_MAC, 2, G1_MAC, G1, R_MAC, ROUTER);
	check(ret == NEIGH_ARP_REPLY && rlen == 60 && memcmp(reply, exp, 60) == 0, name,
	      "reply for group 1 (unicast request) from its core MAC");
	check(neigh_lookup(t, ROUTER) == R_MAC, name, "router learnt from its request");
	check(state_of(t, ROUTER, 11) == NEIGH_REACHABLE, name, "router reachable");
	/* Another host asks for our address: answered and learnt. */
	ret = feed(t, vlan, 12, BCAST, 1, 0x02dd00000020ULL, IP(100, 64, 0, 20), 0, G1, reply,
		   &rlen);
	arp_frame(exp, vlan, 0x02dd00000020ULL, G1_MAC, 2, G1_MAC, G1, 0x02dd00000020ULL,
		  IP(100, 64, 0, 20));
	check(ret == NEIGH_ARP_REPLY && memcmp(reply, exp, 60) == 0, name, "any host answered");
	check(neigh_lookup(t, IP(100, 64, 0, 20)) == 0x02dd00000020ULL, name,
	      "requester learnt (RFC 826)");
	/* Requests for other addresses. */
	ret = feed(t, vlan, 13, BCAST, 1, 0x02dd00000030ULL, IP(100, 64, 0, 30), 0,
		   IP(100, 64, 0, 99), reply, &rlen);
	check(ret == NEIGH_ARP_IGNORED && rlen == 0, name, "request for another address ignored");
	check(neigh_lookup(t, IP(100, 64, 0, 30)) == 0 &&
		      state_of(t, IP(100, 64, 0, 30), 13) == NEIGH_FREE,
	      name, "unknown sender of a request for others not learnt");
	ret = feed(t, vlan, 14, BCAST, 1, 0x02bb000000aaULL, ROUTER, 0, IP(100, 64, 0, 99), reply,
		   &rlen);
	check(ret == NEIGH_ARP_LEARNT && rlen == 0, name,
	      "known sender of a request for others: updated, not answered");
	check(neigh_lookup(t, ROUTER) == 0x02bb000000aaULL, name, "router's new MAC used");
	ret = feed(t, vlan, 15, BCAST, 1, R_MAC, ROUTER, 0, ROUTER, reply, &rlen);
	check(ret == NEIGH_ARP_LEARNT && neigh_lookup(t, ROUTER) == R_MAC, name,
	      "gratuitous ARP of the router updates it");
	/* RFC 5227 probe for our address: answered to the prober, nothing learnt. */
	ret = feed(t, vlan, 16, BCAST, 1, 0x02dd00000040ULL, 0, 0, G0, reply, &rlen);
	arp_frame(exp, vlan, 0x02dd00000040ULL, G0_MAC, 2, G0_MAC, G0, 0x02dd00000040ULL, 0);
	check(ret == NEIGH_ARP_REPLY && memcmp(reply, exp, 60) == 0, name,
	      "RFC 5227 probe answered with target 0.0.0.0");
	ret = feed(t, vlan, 17, BCAST, 1, 0x02dd00000040ULL, 0, 0, IP(100, 64, 0, 41), reply,
		   &rlen);
	check(ret == NEIGH_ARP_IGNORED, name, "probe for another address ignored");
	neigh_counters_get(t, &c);
	check(c.requests_answered == 4 && c.probes_answered == 1, name, "answers counted");
	check(c.learnt_requests == 5, name, "learning from requests counted");
	check(c.ignored[NEIGH_IGN_NOT_FOR_US] == 1 && c.ignored[NEIGH_IGN_SENDER_ADDRESS] == 1 &&
		      c.arp_in == 8,
	      name, "ignored counted");
	neigh_free(t);
}

/* The same request through the real classifier. */
static void
test_classified(void)
{
	static struct line_map lm;
	uint8_t f[60], reply[NEIGH_FRAME_LEN], exp[60];
	struct cls_counters cc = {0};
	struct cls_result r;
	struct neigh_table *t;
	uint16_t rlen;
	char err[128];

	for (uint16_t vlan = 0; vlan <= 42; vlan += 42) {
		cfg_init(vlan, 24);
		check(line_map_build(&lm, &cfg, err, sizeof(err)) == 0, "classified", "line map");
		t = neigh_create(&cfg, SOCKET_ID_ANY);
		arp_frame(f, vlan, BCAST, R_MAC, 1, R_MAC, ROUTER, 0, G1);
		check(classify_frame(&lm, f, 60, &r, &cc) == CLS_CORE_ARP, "classified",
		      "CLS_CORE_ARP");
		check(neigh_arp_input(t, f, 60, &r, 5, reply, &rlen) == NEIGH_ARP_REPLY,
		      "classified", "answered");
		arp_frame(exp, vlan, R_MAC, G1_MAC, 2, G1_MAC, G1, R_MAC, ROUTER);
		check(rlen == 60 && memcmp(reply, exp, 60) == 0, "classified", "reply bytes");
		/* Our own gratuitous ARP looped back: classified, then ignored. */
		arp_frame(f, vlan, BCAST, G1_MAC, 1, G1_MAC, G1, 0, G1);
		check(classify_frame(&lm, f, 60, &r, &cc) == CLS_CORE_ARP &&
			      neigh_arp_input(t, f, 60, &r, 6, reply, &rlen) == NEIGH_ARP_IGNORED,
		      "classified", "our own gratuitous ARP looped back is ignored");
		neigh_free(t);
	}
}

/* --- start-up, gratuitous ARP -------------------------------------------------- */

static void
test_start(uint16_t vlan)
{
	uint8_t exp[60];
	struct neigh_counters c;
	struct neigh_table *t;
	char name[64];

	cfg_init(vlan, 24);
	t = neigh_create(&cfg, SOCKET_ID_ANY);
	snprintf(name, sizeof(name), "start vlan %u", vlan);
	cap.n = 0;
	tick(t, 1000);
	check(cap.n == 3, name, "first tick: 2 gratuitous ARPs and the router request");
	arp_frame(exp, vlan, BCAST, G0_MAC, 1, G0_MAC, G0, 0, G0);
	check(cap.len[0] == 60 && memcmp(cap.f[0], exp, 60) == 0, name, "gratuitous ARP group 0");
	arp_frame(exp, vlan, BCAST, G1_MAC, 1, G1_MAC, G1, 0, G1);
	check(cap.len[1] == 60 && memcmp(cap.f[1], exp, 60) == 0, name, "gratuitous ARP group 1");
	arp_frame(exp, vlan, BCAST, G0_MAC, 1, G0_MAC, G0, 0, ROUTER);
	check(cap.len[2] == 60 && memcmp(cap.f[2], exp, 60) == 0, name,
	      "router request: broadcast from group 0's MAC and address");
	run(t, 1001, 2999, 1);
	check(cap.n == 4, name, "one retry for the router, no gratuitous ARP before 2 s");
	tick(t, 3000);
	check(cap.n == 7, name, "second gratuitous round at 3 s (+ router retry)");
	run(t, 3001, 20000, 10);
	neigh_counters_get(t, &c);
	check(c.gratuitous_sent == 4, name, "2 rounds x 2 groups, then none");
	neigh_announce(t);
	tick(t, 20000);
	tick(t, 21999);
	tick(t, 22000);
	run(t, 22001, 30000, 10);
	neigh_counters_get(t, &c);
	check(c.gratuitous_sent == 8, name, "neigh_announce: 2 more rounds");
	neigh_free(t);
}

/* --- resolution ----------------------------------------------------------------- */

static void
test_resolve(void)
{
	const uint32_t h = IP(100, 64, 0, 20);
	uint8_t reply[NEIGH_FRAME_LEN], exp[60];
	struct neigh_table *t;
	uint16_t rlen;
	uint64_t times[8];
	unsigned int from;

	cfg_init(0, 24);
	t = neigh_create(&cfg, SOCKET_ID_ANY);
	tick(t, 0);
	check(neigh_lookup(t, h) == 0, "resolve", "unknown address: 0");
	check(neigh_resolve(t, h) == 0, "resolve", "neigh_resolve: 0 and a want");
	from = cap.n;
	tick(t, 100);
	check(requests_for(h, from, times, 8) == 1 && times[0] == 100, "resolve",
	      "the next tick sends a broadcast request");
	arp_frame(exp, 0, BCAST, G0_MAC, 1, G0_MAC, G0, 0, h);
	check(memcmp(cap.f[from], exp, 60) == 0, "resolve", "request bytes");
	check(state_of(t, h, 100) == NEIGH_INCOMPLETE, "resolve", "incomplete");
	check(feed(t, 0, 150, G0_MAC, 2, 0x02dd00000020ULL, h, G0_MAC, G0, reply, &rlen) ==
		      NEIGH_ARP_LEARNT,
	      "resolve", "reply learnt");
	check(neigh_lookup(t, h) == 0x02dd00000020ULL && neigh_resolve(t, h) == 0x02dd00000020ULL,
	      "resolve", "lookup returns the MAC");
	check(state_of(t, h, 150) == NEIGH_REACHABLE, "resolve", "reachable");
	/* Unsolicited reply from an unknown address: nothing. */
	check(feed(t, 0, 160, G0_MAC, 2, 0x02dd00000077ULL, IP(100, 64, 0, 77), G0_MAC, G0, reply,
		   &rlen) == NEIGH_ARP_IGNORED &&
		      neigh_lookup(t, IP(100, 64, 0, 77)) == 0,
	      "resolve", "unsolicited reply creates nothing");
	/* Wants that are not core hosts. */
	neigh_want(t, IP(8, 8, 8, 8));
	neigh_want(t, G0);
	neigh_want(t, IP(100, 64, 0, 0));
	neigh_want(t, IP(100, 64, 0, 255));
	from = cap.n;
	tick(t, 200);
	{
		struct neigh_counters c;

		neigh_counters_get(t, &c);
		check(c.wants_invalid == 4 && cap.n == from, "resolve",
		      "outside, own, network and broadcast addresses never requested");
	}
	neigh_free(t);
}

static void
test_backoff(void)
{
	const uint32_t h = IP(100, 64, 0, 30);
	static const uint64_t router_at[] = {0,	    1000,  2000,  4000,	 8000, 16000,
					     24000, 32000, 40000, 48000, 56000};
	struct neigh_counters c;
	struct neigh_table *t;
	uint64_t times[32];
	unsigned int n;
	bool same = true;

	/* The pinned router, never answering: 1 s, 1 s, then doubling to 8 s, forever. */
	cfg_init(0, 24);
	t = neigh_create(&cfg, SOCKET_ID_ANY);
	cap.n = 0;
	run(t, 0, 60000, 100);
	n = requests_for(ROUTER, 0, times, 32);
	check(n == RTE_DIM(router_at), "backoff router", "request count over 60 s");
	for (unsigned int i = 0; i < n && i < RTE_DIM(router_at); i++)
		same &= times[i] == router_at[i];
	check(same, "backoff router", "at 0, 1, 2, 4, 8, 16, 24 ... s");
	check(state_of(t, ROUTER, 60000) == NEIGH_INCOMPLETE && neigh_lookup(t, ROUTER) == 0,
	      "backoff router", "still incomplete, never failed");
	neigh_counters_get(t, &c);
	check(c.requests_sent == n && c.retries == n - 1 && c.resolutions_failed == 0,
	      "backoff router", "requests and retries counted");

	/* An unpinned address: 3 requests 1 s apart, FAILED at 4 s, held 10 s. */
	cap.n = 0;
	neigh_want(t, h);
	run(t, 100000, 104000, 100);
	n = requests_for(h, 0, times, 32);
	check(n == 3 && times[0] == 100000 && times[1] == 101000 && times[2] == 102000,
	      "backoff host", "requests at 0, 1, 2 s");
	check(state_of(t, h, 103999) == NEIGH_INCOMPLETE, "backoff host", "incomplete until 4 s");
	tick(t, 104000);
	check(state_of(t, h, 104000) == NEIGH_FAILED, "backoff host", "failed at 4 s");
	neigh_counters_get(t, &c);
	check(c.resolutions_failed == 1, "backoff host", "counted");
	neigh_want(t, h);
	run(t, 104100, 114000, 100);
	check(requests_for(h, 0, times, 32) == 3 && state_of(t, h, 113900) == NEIGH_FAILED,
	      "backoff host", "wants ignored while failed");
	tick(t, 114000);
	check(state_of(t, h, 114000) == NEIGH_FREE, "backoff host", "freed after the hold");
	neigh_want(t, h);
	tick(t, 114100);
	check(requests_for(h, 0, times, 32) == 4 && times[3] == 114100, "backoff host",
	      "a later want starts over");
	/* A failing send callback is counted, the timers go on. */
	cap.fail = 1;
	tick(t, 115100);
	cap.fail = 0;
	neigh_counters_get(t, &c);
	check(c.send_failed >= 1 && requests_for(h, 0, times, 32) == 5, "backoff host",
	      "send failure counted, retried on schedule");
	neigh_free(t);
}

/*
 * The router unresolved and backed off (retries 8 s apart): a packet wanting it
 * has it asked for at once, the schedule starting over (1 s, 1 s, then
 * doubling), and again whenever the next retry is not due yet (an instance
 * that adopted a group asks once more when the group's traffic arrives, the
 * request at adoption lost while the switch steered elsewhere); so does an
 * announcement (a line group adopted).
 */
static void
test_reprobe(void)
{
	uint64_t times[32];
	unsigned int n;
	struct neigh_table *t;

	cfg_init(0, 24);
	t = neigh_create(&cfg, SOCKET_ID_ANY);
	cap.n = 0;
	run(t, 0, 26000, 100); /* requests at 0, 1, 2, 4, 8, 16, 24 s; the next due at 32 s */
	check(requests_for(ROUTER, 0, times, 32) == 7, "reprobe", "backed off before the want");
	neigh_want(t, ROUTER);
	tick(t, 26000);
	n = requests_for(ROUTER, 0, times, 32);
	check(n == 8 && times[7] == 26000, "reprobe", "a wanted router is asked for at once");
	run(t, 26100, 28500, 100);
	n = requests_for(ROUTER, 0, times, 32);
	check(n == 10 && times[8] == 27000 && times[9] == 28000, "reprobe", "then 1 s, 1 s again");
	neigh_want(t, ROUTER); /* the next retry is due at 29 s */
	tick(t, 28500);
	check(requests_for(ROUTER, 0, times, 32) == 11 && times[10] == 28500, "reprobe",
	      "wanted again before the next retry: asked at once");
	tick(t, 28600);
	check(requests_for(ROUTER, 0, times, 32) == 11, "reprobe", "one request per want");
	run(t, 30100, 90000, 100);
	n = requests_for(ROUTER, 0, times, 32);
	neigh_announce(t);
	tick(t, 90000);
	check(requests_for(ROUTER, 0, times, 32) == n + 1 && times[n] == 90000, "reprobe",
	      "an announcement asks for the router at once");
	neigh_free(t);
}

/* Router learnt at 1000 ms: unicast refresh at 271 s, age-out at 301 s. */
static void
test_refresh_age(void)
{
	const uint64_t t0 = 1000, R = 300000, lead = 30000;
	uint8_t reply[NEIGH_FRAME_LEN], exp[60];
	static const uint64_t probe_at[] = {0, 1000, 2000, 4000, 8000, 16000, 24000};
	struct neigh_counters c;
	struct neigh_table *t;
	uint64_t times[32];
	uint16_t rlen;
	unsigned int n, from;
	bool same = true, used = true;

	cfg_init(0, 24);
	t = neigh_create(&cfg, SOCKET_ID_ANY);
	tick(t, 0);
	feed(t, 0, t0, BCAST, 1, R_MAC, ROUTER, 0, G0, reply, &rlen);
	from = cap.n;
	run(t, t0, t0 + R - lead, 500);
	check(requests_for(ROUTER, from, times, 32) == 0, "refresh", "no request while reachable");
	from = cap.n;
	tick(t, t0 + R - lead);
	check(requests_for(ROUTER, from, times, 32) == 1 && times[0] == t0 + R - lead, "refresh",
	      "unicast request 30 s before expiry");
	arp_frame(exp, 0, R_MAC, G0_MAC, 1, G0_MAC, G0, 0, ROUTER);
	check(memcmp(cap.f[from], exp, 60) == 0, "refresh", "sent to the known MAC, target MAC 0");
	check(state_of(t, ROUTER, t0 + R - lead) == NEIGH_PROBE && neigh_lookup(t, ROUTER) == R_MAC,
	      "refresh", "probe state keeps the MAC");
	feed(t, 0, t0 + R - lead + 500, G0_MAC, 2, R_MAC, ROUTER, G0_MAC, G0, reply, &rlen);
	check(state_of(t, ROUTER, t0 + R) == NEIGH_REACHABLE, "refresh", "reply: reachable");
	neigh_counters_get(t, &c);
	check(c.refreshes_sent == 1 && c.learnt_replies == 1, "refresh", "counted");

	/* Now no answer: the next refresh round, then age-out. */
	{
		uint64_t t1 = t0 + R - lead + 500, start = t1 + R - lead;

		from = cap.n;
		for (uint64_t now = t1; now < t1 + R; now += 500) {
			tick(t, now);
			used &= neigh_lookup(t, ROUTER) == R_MAC;
		}
		check(used, "age-out", "old MAC used until the reachable time is over");
		n = requests_for(ROUTER, from, times, 32);
		check(n == RTE_DIM(probe_at), "age-out", "7 unicast requests in the last 30 s");
		for (unsigned int i = 0; i < n && i < RTE_DIM(probe_at); i++)
			same &= times[i] == start + probe_at[i];
		check(same, "age-out", "at +0, 1, 2, 4, 8, 16, 24 s");
		from = cap.n;
		tick(t, t1 + R);
		check(neigh_lookup(t, ROUTER) == 0, "age-out", "MAC dropped at expiry");
		neigh_counters_get(t, &c);
		check(c.aged_out == 1, "age-out", "counted");
		check(requests_for(ROUTER, from, times, 32) == 1 && times[0] == t1 + R &&
			      cap.f[from][0] == 0xff &&
			      state_of(t, ROUTER, t1 + R) == NEIGH_INCOMPLETE,
		      "age-out", "the pinned router is resolved again by broadcast, at once");
	}
	neigh_free(t);
}

/* Unpinned entries: used ones are refreshed, unused ones expire. */
static void
test_usage(void)
{
	const uint64_t t0 = 1000, R = 300000, lead = 30000;
	const uint32_t a = IP(100, 64, 0, 20), b = IP(100, 64, 0, 21), d = IP(100, 64, 0, 22);
	uint8_t reply[NEIGH_FRAME_LEN];
	struct neigh_counters c;
	struct neigh_table *t;
	uint64_t times[32];
	uint16_t rlen;
	unsigned int from;

	cfg_init(0, 24);
	t = neigh_create(&cfg, SOCKET_ID_ANY);
	feed(t, 0, t0, BCAST, 1, R_MAC, ROUTER, 0, G0, reply, &rlen);
	feed(t, 0, t0, BCAST, 1, 0xa0ULL << 40 | a, a, 0, G0, reply, &rlen);
	feed(t, 0, t0, BCAST, 1, 0xa0ULL << 40 | b, b, 0, G0, reply, &rlen);
	feed(t, 0, t0, BCAST, 1, 0xa0ULL << 40 | d, d, 0, G1, reply, &rlen);
	from = cap.n;
	run(t, t0, t0 + R - lead + 1, 500);
	check(state_of(t, a, t0 + R - lead) == NEIGH_STALE && state_of(t, b, t0) == NEIGH_STALE,
	      "usage", "unpinned entries stale 30 s before expiry");
	check(state_of(t, ROUTER, t0 + R - lead) == NEIGH_PROBE, "usage",
	      "router (pinned) probed regardless of use");
	check(neigh_lookup(t, a) == (0xa0ULL << 40 | a) &&
		      (neigh_word(t, a) & NEIGH_WORD_CHECK) != 0,
	      "usage", "MAC still returned, word asks for a usage check");
	check(requests_for(a, from, times, 32) == 0, "usage", "no request for a stale entry");
	/* b and d are used by the worker. */
	check(neigh_resolve(t, b) == (0xa0ULL << 40 | b) && neigh_resolve(t, d) != 0, "usage",
	      "resolve returns the MAC and wants");
	tick(t, t0 + R - lead + 600);
	check(state_of(t, b, t0) == NEIGH_PROBE && (neigh_word(t, b) & NEIGH_WORD_CHECK) == 0,
	      "usage", "used: probe, check flag cleared");
	check(requests_for(b, from, times, 32) == 1 && cap.f[cap.n - 1][0] == 0xa0, "usage",
	      "unicast request to the known MAC");
	feed(t, 0, t0 + R - lead + 700, G0_MAC, 2, 0xa0ULL << 40 | b, b, G0_MAC, G0, reply, &rlen);
	run(t, t0 + R - lead + 700, t0 + R + 1000, 500);
	check(state_of(t, a, t0 + R) == NEIGH_FREE && neigh_lookup(t, a) == 0, "usage",
	      "unused entry freed at expiry");
	check(state_of(t, b, t0 + R) == NEIGH_REACHABLE && neigh_lookup(t, b) != 0, "usage",
	      "used and answering: reachable");
	check(state_of(t, d, t0 + R) == NEIGH_FAILED && neigh_lookup(t, d) == 0, "usage",
	      "used but silent: aged out, failed");
	check(state_of(t, ROUTER, t0 + R) == NEIGH_INCOMPLETE, "usage",
	      "router (pinned) silent: resolved again");
	neigh_counters_get(t, &c);
	check(c.expired_unused == 1 && c.aged_out == 2, "usage", "expired / aged out counted");
	neigh_free(t);
}

/* --- hostile input ----------------------------------------------------------------- */

static void
test_hostile(void)
{
	uint8_t f[80], reply[NEIGH_FRAME_LEN];
	struct neigh_counters c, c0;
	struct neigh_table *t;
	struct cls_result r;
	uint16_t rlen;
	struct {
		const char *name;
		int field; /* what to change */
		unsigned int v;
		enum neigh_ignore why;
	} rows[] = {
		{"27 bytes", 1, 0, NEIGH_IGN_SHORT},
		{"not CLS_CORE_ARP", 2, 0, NEIGH_IGN_SHORT},
		{"l3_off 0", 3, 0, NEIGH_IGN_SHORT},
		{"htype 6", 10, 6, NEIGH_IGN_FORMAT},
		{"ptype 0x86dd", 11, 0x86dd, NEIGH_IGN_FORMAT},
		{"hlen 8", 12, 8, NEIGH_IGN_FORMAT},
		{"plen 16", 13, 16, NEIGH_IGN_FORMAT},
		{"op 0", 14, 0, NEIGH_IGN_OP},
		{"op 3 (RARP)", 14, 3, NEIGH_IGN_OP},
		{"sender broadcast MAC", 20, 0, NEIGH_IGN_SENDER_MAC},
		{"sender multicast MAC", 21, 0, NEIGH_IGN_SENDER_MAC},
		{"sender zero MAC", 22, 0, NEIGH_IGN_SENDER_MAC},
		{"sender MAC not the source", 23, 0, NEIGH_IGN_SHA_MISMATCH},
		{"sender MAC is our core MAC", 24, 0, NEIGH_IGN_OWN_MAC},
		{"sender is our address", 30, G1, NEIGH_IGN_OWN_ADDRESS},
		{"sender is our address, gratuitous", 31, G0, NEIGH_IGN_OWN_ADDRESS},
		{"sender outside the subnet", 30, IP(10, 0, 0, 1), NEIGH_IGN_SENDER_ADDRESS},
		{"sender the subnet's network", 30, IP(100, 64, 0, 0), NEIGH_IGN_SENDER_ADDRESS},
		{"sender the subnet's broadcast", 30, IP(100, 64, 0, 255),
		 NEIGH_IGN_SENDER_ADDRESS},
		{"sender 255.255.255.255", 30, 0xffffffffu, NEIGH_IGN_SENDER_ADDRESS},
		{"unsolicited reply", 40, 0, NEIGH_IGN_UNSOLICITED},
	};
	const uint32_t s = IP(100, 64, 0, 50);
	const uint64_t smac = 0x02dd00000050ULL;

	cfg_init(0, 24);
	t = neigh_create(&cfg, SOCKET_ID_ANY);
	for (size_t i = 0; i < RTE_DIM(rows); i++) {
		uint16_t len = 60;
		uint8_t *a = f + 14;
		int ret;

		memset(f, 0, sizeof(f));
		arp_frame(f, 0, BCAST, smac, 1, smac, s, 0, G0);
		r = arp_res(0);
		switch (rows[i].field) {
		case 1:
			len = 14 + 27;
			break;
		case 2:
			r.kind = CLS_CORE_IPV4;
			break;
		case 3:
			r.l3_off = 0;
			break;
		case 10:
			put16(a, rows[i].v);
			break;
		case 11:
			put16(a + 2, rows[i].v);
			break;
		case 12:
			a[4] = (uint8_t)rows[i].v;
			break;
		case 13:
			a[5] = (uint8_t)rows[i].v;
			break;
		case 14:
			put16(a + 6, rows[i].v);
			break;
		case 20:
			put_mac(a + 8, BCAST);
			put_mac(f + 6, BCAST);
			break;
		case 21:
			put_mac(a + 8, 0x01005e000001ULL);
			put_mac(f + 6, 0x01005e000001ULL);
			break;
		case 22:
			put_mac(a + 8, 0);
			put_mac(f + 6, 0);
			break;
		case 23:
			put_mac(f + 6, 0x02dd00000051ULL);
			break;
		case 24:
			put_mac(a + 8, G1_MAC);
			put_mac(f + 6, G1_MAC);
			break;
		case 30:
			put_ip(a + 14, rows[i].v);
			break;
		case 31:
			put_ip(a + 14, rows[i].v);
			put_ip(a + 24, rows[i].v);
			break;
		case 40:
			put16(a + 6, 2);
			break;
		}
		neigh_counters_get(t, &c0);
		rlen = 99;
		ret = neigh_arp_input(t, f, len, &r, 100, reply, &rlen);
		neigh_counters_get(t, &c);
		check(ret == NEIGH_ARP_IGNORED && rlen == 0, rows[i].name, "ignored, no reply");
		check(c.ignored[rows[i].why] == c0.ignored[rows[i].why] + 1, rows[i].name,
		      "counted under its reason");
		check(find_info(t, s, 100) == NULL && neigh_lookup(t, s) == 0, rows[i].name,
		      "nothing learnt");
	}
	/* Random frames: no crash, every frame accounted for. */
	{
		uint64_t x = 0x9e3779b97f4a7c15ULL;
		unsigned int ign = 0, frames = 20000, sum = 0;

		neigh_counters_get(t, &c0);
		for (unsigned int i = 0; i < frames; i++) {
			uint8_t *fr = malloc(80);
			uint16_t len;
			int ret;

			for (int k = 0; k < 80; k++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				fr[k] = (uint8_t)x;
			}
			len = (uint16_t)(x % 81);
			r = arp_res((x >> 8) & 1 ? 42 : 0);
			if ((x >> 9) & 1) { /* mostly valid header, random rest */
				put16(fr + r.l3_off, 1);
				put16(fr + r.l3_off + 2, 0x0800);
				fr[r.l3_off + 4] = 6;
				fr[r.l3_off + 5] = 4;
				fr[r.l3_off + 7] = (uint8_t)(1 + ((x >> 10) & 1));
				fr[r.l3_off + 8] &= 0xfe;
				memcpy(fr + 6, fr + r.l3_off + 8, 6);
				fr[r.l3_off + 14] = 100;
				fr[r.l3_off + 15] = 64;
				fr[r.l3_off + 16] = 0;
				if ((x >> 11) & 1)
					put_ip(fr + r.l3_off + 24, (x >> 12) & 1 ? G0 : G1);
			}
			/* an exact-size heap copy, so reads past len are caught by ASan */
			{
				uint8_t *exact = malloc(len > 0 ? len : 1);

				memcpy(exact, fr, len);
				ret = neigh_arp_input(t, exact, len, &r, 200 + i, reply, &rlen);
				free(exact);
			}
			ign += ret == NEIGH_ARP_IGNORED;
			free(fr);
		}
		neigh_counters_get(t, &c);
		for (int k = 0; k < NEIGH_IGN_MAX; k++)
			sum += (unsigned int)(c.ignored[k] - c0.ignored[k]);
		check(c.arp_in - c0.arp_in == frames, "random frames", "all counted in arp_in");
		check(sum == ign, "random frames", "every ignored frame has a reason");
		check(ign < frames, "random frames", "some were valid");
	}
	neigh_free(t);
}

/* --- want filter, ring, eviction --------------------------------------------------- */

static void
test_wants(void)
{
	struct neigh_counters c;
	struct neigh_table *t;
	uint64_t times[4];
	unsigned int from;

	cfg_init(0, 16);
	t = neigh_create(&cfg, SOCKET_ID_ANY);
	tick(t, 0);
	for (int i = 0; i < 100; i++)
		neigh_want(t, IP(100, 64, 0, 40));
	tick(t, 10);
	neigh_counters_get(t, &c);
	check(c.wants == 1, "want filter", "100 wants in one epoch: 1 queued");
	for (int i = 0; i < 100; i++)
		neigh_want(t, IP(100, 64, 0, 40));
	tick(t, 20);
	neigh_counters_get(t, &c);
	check(c.wants == 1, "want filter", "still suppressed in the same epoch");
	tick(t, 1000);
	neigh_want(t, IP(100, 64, 0, 40));
	tick(t, 1010);
	neigh_counters_get(t, &c);
	check(c.wants == 2, "want filter", "next epoch: queued again");

	/* 2000 distinct addresses before the control thread looks: the ring holds 1023. */
	for (uint32_t i = 0; i < 2000; i++)
		neigh_want(t, IP(100, 64, 4, 0) + i);
	neigh_counters_get(t, &c);
	check(c.wants_dropped == 2000 - (NEIGH_WANT_RING_SIZE - 1), "want ring",
	      "full ring: dropped and counted by the worker");
	from = cap.n;
	tick(t, 1020);
	neigh_counters_get(t, &c);
	check(c.wants == 2 + NEIGH_WANT_RING_SIZE - 1, "want ring", "all queued wants taken");
	check(c.table_full == 2, "want ring",
	      "1023 new addresses, 1022 free slots (router and .40 hold two): 2 refused");
	check(cap.n - from == NEIGH_WANT_RING_SIZE - 1 - 2, "want ring",
	      "a request for each new entry");
	neigh_free(t);

	/* Eviction: one bucket of 4, a fifth address. */
	cfg_init(0, 16);
	t = neigh_create(&cfg, SOCKET_ID_ANY);
	tick(t, 0);
	for (uint32_t k = 1; k <= 4; k++)
		neigh_want(t, IP(100, 64, k, 5));
	tick(t, 10);
	neigh_want(t, IP(100, 64, 5, 5));
	tick(t, 20);
	neigh_counters_get(t, &c);
	check(c.table_full == 1 && state_of(t, IP(100, 64, 5, 5), 20) == NEIGH_FREE, "eviction",
	      "busy bucket: refused");
	run(t, 30, 5000, 10);
	check(state_of(t, IP(100, 64, 1, 5), 5000) == NEIGH_FAILED, "eviction", "the four failed");
	from = cap.n;
	neigh_want(t, IP(100, 64, 5, 5));
	tick(t, 5000);
	check(state_of(t, IP(100, 64, 5, 5), 5000) == NEIGH_INCOMPLETE &&
		      requests_for(IP(100, 64, 5, 5), from, times, 4) == 1,
	      "eviction", "a failed slot is taken");
	check(state_of(t, IP(100, 64, 1, 5), 5000) == NEIGH_FREE, "eviction",
	      "the oldest failed one went");
	neigh_free(t);
}

/* --- telemetry, create, params ---------------------------------------------------- */

static void
test_misc(void)
{
	uint8_t reply[NEIGH_FRAME_LEN];
	struct neigh_params p;
	struct neigh_info info[4];
	struct rte_tel_data *d;
	struct neigh_table *t;
	uint16_t rlen;

	cfg_init(42, 24);
	t = neigh_create(&cfg, SOCKET_ID_ANY);
	feed(t, 42, 1000, BCAST, 1, R_MAC, ROUTER, 0, G0, reply, &rlen);
	neigh_want(t, IP(100, 64, 0, 99));
	tick(t, 1000);
	check(neigh_list(t, 3500, info, 4) == 2, "list", "two entries");
	check(info[0].ip == ROUTER && info[0].state == NEIGH_REACHABLE && info[0].pinned &&
		      info[0].mac == R_MAC && info[0].age_ms == 2500,
	      "list", "router: reachable, pinned, MAC, age");
	check(info[1].ip == IP(100, 64, 0, 99) && info[1].state == NEIGH_INCOMPLETE &&
		      info[1].mac == 0 && info[1].age_ms == UINT64_MAX && info[1].probes == 1,
	      "list", "wanted address: incomplete, no MAC");
	check(neigh_list(t, 3500, info, 1) == 2, "list", "count beyond max");
	check(strcmp(neigh_state_names[NEIGH_PROBE], "probe") == 0 &&
		      strcmp(neigh_ignore_names[NEIGH_IGN_OWN_MAC], "own_mac") == 0,
	      "names", "state and reason names");
	d = rte_tel_data_alloc();
	check(neigh_telemetry(t, 3500, NULL, d) == 0, "telemetry", "table");
	rte_tel_data_free(d);
	d = rte_tel_data_alloc();
	check(neigh_telemetry(t, 3500, "100.64.0.1", d) == 0, "telemetry", "one entry");
	rte_tel_data_free(d);
	d = rte_tel_data_alloc();
	check(neigh_telemetry(t, 3500, "100.64.0.2", d) == 0, "telemetry", "absent entry");
	rte_tel_data_free(d);
	static const char *const bad[] = {"x",	       "1.2.3",	   "1.2.3.4.5", "01.2.3.4",
					  "256.1.1.1", "1.2.3.4 ", "-1.2.3.4"};
	for (size_t i = 0; i < RTE_DIM(bad); i++) {
		d = rte_tel_data_alloc();
		check(neigh_telemetry(t, 3500, bad[i], d) == -EINVAL, "telemetry", bad[i]);
		rte_tel_data_free(d);
	}
	neigh_params_default(&p);
	p.refresh_lead_ms = p.reachable_ms;
	check(neigh_set_params(t, &p) == -EINVAL, "params", "lead >= reachable refused");
	neigh_params_default(&p);
	p.retry_max_ms = p.retry_ms - 1;
	check(neigh_set_params(t, &p) == -EINVAL, "params", "retry_max < retry refused");
	neigh_params_default(&p);
	p.max_probes = 0;
	check(neigh_set_params(t, &p) == -EINVAL, "params", "max_probes 0 refused");
	neigh_params_default(&p);
	check(neigh_set_params(t, &p) == 0, "params", "defaults accepted");
	neigh_free(t);

	cfg_init(0, 24);
	cfg.core.router_address = IP(10, 0, 0, 1);
	check(neigh_create(&cfg, SOCKET_ID_ANY) == NULL && rte_errno == EINVAL, "create",
	      "router outside the subnet refused");
	cfg_init(0, 24);
	cfg.n_line_groups = 0;
	t = neigh_create(&cfg, SOCKET_ID_ANY);
	cap.n = 0;
	tick(t, 0);
	check(t != NULL && cap.n == 0, "create", "no line group: nothing to send from");
	neigh_free(t);
	neigh_free(NULL);
	{
		uint8_t b[6];

		neigh_mac_bytes(0x0123456789abULL, b);
		check(b[0] == 0x01 && b[5] == 0xab && mac_key(b) == 0x0123456789abULL, "mac",
		      "key <-> bytes");
	}
}

/* --- a reader thread while slots are recycled ---------------------------------------- */

struct conc {
	struct neigh_table *t;
	volatile int stop;
	uint64_t lookups, hits, wrong;
};

#define CONC_ADDRS 8

static uint32_t
conc_addr(unsigned int k)
{
	return IP(100, 64, 1 + k, 7); /* all in bucket 7 */
}

static uint64_t
conc_mac(uint32_t a)
{
	return 0x020000000000ULL | a;
}

static void *
reader(void *arg)
{
	struct conc *c = arg;
	long cpu, n_cpu = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	CPU_ZERO(&set);
	for (cpu = 0; cpu < n_cpu && cpu < CPU_SETSIZE; cpu++)
		CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	while (!c->stop) {
		for (unsigned int k = 0; k < CONC_ADDRS; k++) {
			uint32_t a = conc_addr(k);
			uint64_t m = neigh_lookup(c->t, a);

			c->lookups++;
			if (m != 0) {
				c->hits++;
				c->wrong += m != conc_mac(a);
			}
		}
	}
	return NULL;
}

static void
test_concurrent(void)
{
	uint8_t f[60], reply[NEIGH_FRAME_LEN];
	struct neigh_params p;
	struct neigh_counters nc;
	struct conc c = {0};
	struct cls_result r = arp_res(0);
	pthread_t th;
	uint16_t rlen;
	uint64_t now = 0, end;
	struct timespec ts;

	cfg_init(0, 16);
	c.t = neigh_create(&cfg, SOCKET_ID_ANY);
	neigh_params_default(&p);
	p.reachable_ms = 6;
	p.refresh_lead_ms = 3;
	neigh_set_params(c.t, &p);
	if (pthread_create(&th, NULL, reader, &c) != 0) {
		check(false, "concurrent", "reader thread");
		neigh_free(c.t);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000 + 1000;
	for (unsigned int i = 0;; i++) {
		uint32_t a = conc_addr(i % CONC_ADDRS);

		if ((i & 255) == 0) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			if ((uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000 >= end)
				break;
		}
		arp_frame(f, 0, BCAST, conc_mac(a), 1, conc_mac(a), a, 0, G0);
		neigh_arp_input(c.t, f, 60, &r, now, reply, &rlen);
		cap.n = 0;
		tick(c.t, now);
		now++;
	}
	c.stop = 1;
	pthread_join(th, NULL);
	neigh_counters_get(c.t, &nc);
	printf("concurrent: %llu lookups, %llu hits, %llu slots freed, %llu evicted, "
	       "%llu refused\n",
	       (unsigned long long)c.lookups, (unsigned long long)c.hits,
	       (unsigned long long)nc.expired_unused, (unsigned long long)nc.evictions,
	       (unsigned long long)nc.table_full);
	check(c.lookups > 100000 && c.hits > 0, "concurrent", "the reader ran and found MACs");
	check(nc.expired_unused + nc.evictions > 1000, "concurrent",
	      "slots were recycled many times");
	check(c.wrong == 0, "concurrent", "never the MAC of another address");
	neigh_free(c.t);
}

int
main(int argc, char **argv)
{
	if (harness_eal_init(argc > 0 ? argv[0] : "test_neigh") != 0)
		return 1;
	test_answer(0);
	test_answer(42);
	test_classified();
	test_start(0);
	test_start(4094);
	test_resolve();
	test_backoff();
	test_reprobe();
	test_refresh_age();
	test_usage();
	test_hostile();
	test_wants();
	test_misc();
	test_concurrent();
	rte_eal_cleanup();
	return harness_report();
}

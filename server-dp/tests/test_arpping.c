/*
 * Tests of the IPoE ARP ping (arpping.h).
 *
 * usage: test_arpping
 *
 * EAL as in test_lcp (--no-huge, in memory). Sessions are built by hand with
 * the real IPoE header template (rw_encap_tmpl_init_ipoe); the expected ARP
 * request is written out byte by byte. Covers: the request bytes (both TPIDs,
 * PCP), refusal for PPPoE sessions; timers with a fake clock (no ping while
 * the subscriber sends, a ping after an idle interval, dead after `count`
 * unanswered pings and reported once, replies and upstream frames reset the
 * misses), the worker's reply check (operation, sender MAC and address),
 * send failures, vanished sessions, disable and re-enable, 65536 sessions
 * with bounded work per tick. The last line of output is "N passed, M failed".
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "arpping.h"
#include "rewrite.h"
#define HARNESS_EAL
#include "harness.h"

#define N_SESS 8
#define SCALE 65536u

static const uint8_t AC_MAC[6] = {0x02, 0x00, 0x00, 0x00, 0xac, 0x01};
static const uint8_t GW[4] = {100, 65, 0, 1};

static struct dp_session *sess;
static bool gone[SCALE];
static unsigned int n_sent, n_dead, fail_send;
static uint32_t dead_ids[16];
static uint8_t last_frame[ARPPING_FRAME_LEN];
static uint16_t last_len;

static void
mk_session(struct dp_session *s, uint32_t id, uint16_t tpid)
{
	uint8_t mac[6] = {0x02, 0x49, 0x01, (uint8_t)(id >> 16), (uint8_t)(id >> 8), (uint8_t)id};

	memset(s, 0, sizeof(*s));
	memcpy(s->mac, mac, 6);
	s->line = 1;
	s->stag = 100;
	s->ctag = (uint16_t)(1 + id % 4000);
	s->ipv4 = htonl(0x64410000u | ((id + 2) & 0xffff));
	s->mtu = 1500;
	if (rw_encap_tmpl_init_ipoe(&s->encap, mac, AC_MAC, tpid, s->stag, s->ctag) != 0)
		abort();
}

static const struct dp_session *
op_session(void *arg, uint32_t id)
{
	(void)arg;
	return gone[id] ? NULL : &sess[id];
}

static uint32_t
op_gateway(void *arg, const struct dp_session *s)
{
	uint32_t gw;

	(void)arg;
	(void)s;
	memcpy(&gw, GW, 4);
	return gw;
}

static int
op_send(void *arg, const uint8_t *frame, uint16_t len)
{
	(void)arg;
	if (fail_send)
		return -1;
	n_sent++;
	memcpy(last_frame, frame, len < sizeof(last_frame) ? len : sizeof(last_frame));
	last_len = len;
	return 0;
}

static void
op_dead(void *arg, uint32_t id)
{
	(void)arg;
	if (n_dead < 16)
		dead_ids[n_dead] = id;
	n_dead++;
}

static const struct arpping_ops ops = {
	.session = op_session,
	.gateway = op_gateway,
	.send = op_send,
	.dead = op_dead,
};

static void
reset_counts(void)
{
	n_sent = n_dead = fail_send = 0;
	last_len = 0;
}

/* The reply a subscriber sends to our request (or something like it). */
static void
mk_reply(uint8_t arp[28], const struct dp_session *s, uint8_t op)
{
	memset(arp, 0, 28);
	arp[1] = 1;
	arp[2] = 0x08;
	arp[4] = 6;
	arp[5] = 4;
	arp[7] = op;
	memcpy(arp + 8, s->mac, 6);
	memcpy(arp + 14, &s->ipv4, 4);
	memcpy(arp + 18, AC_MAC, 6);
	memcpy(arp + 24, GW, 4);
}

static void
test_builder(void)
{
	struct dp_session s;
	uint8_t buf[ARPPING_FRAME_LEN];
	uint32_t gw;
	/* 802.1ad outer tag, S-tag 100 and C-tag 8 with PCP 7, ARP request */
	static const uint8_t want[60] = {
		0x02, 0x49, 0x01, 0x00, 0x00, 0x07,		/* client MAC */
		0x02, 0x00, 0x00, 0x00, 0xac, 0x01,		/* AC MAC */
		0x88, 0xa8, 0xe0, 0x64, 0x81, 0x00, 0xe0, 0x08, /* S 100, C 8, PCP 7 */
		0x08, 0x06,					/* ARP */
		0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x01, /* Ethernet/IPv4 request */
		0x02, 0x00, 0x00, 0x00, 0xac, 0x01, 100,  65,	/* sender AC MAC, */
		0,    1,					/* gateway */
		0x02, 0x49, 0x01, 0x00, 0x00, 0x07, 100,  65,	/* target client, */
		0,    9,					/* its address */
	};

	mk_session(&s, 7, 0x88a8);
	memcpy(&gw, GW, 4);
	CHECKF(arpping_request_build(buf, sizeof(buf), &s, 7, gw) == 60 &&
		       memcmp(buf, want, 60) == 0,
	       "builder: byte-exact request (0x88a8, PCP 7)");
	mk_session(&s, 7, 0x8100);
	CHECKF(arpping_request_build(buf, sizeof(buf), &s, 0, gw) == 60 && buf[12] == 0x81 &&
		       buf[13] == 0x00 && buf[14] == 0x00 && buf[18] == 0x00 &&
		       memcmp(buf + 20, want + 20, 40) == 0,
	       "builder: 0x8100, PCP 0");
	CHECKF(arpping_request_build(buf, 59, &s, 0, gw) == -ENOSPC, "builder: short buffer");
	rw_encap_tmpl_init(&s.encap, s.mac, AC_MAC, 0x8100, 100, 8, 0x0107);
	CHECKF(arpping_request_build(buf, sizeof(buf), &s, 0, gw) == -EINVAL,
	       "builder: a PPPoE session is refused");
}

static void
test_timers(void)
{
	struct arpping *p = arpping_create(N_SESS, SOCKET_ID_ANY);
	struct arpping_info in;
	uint8_t arp[28];
	uint64_t t = 1000000;

	for (uint32_t i = 0; i < N_SESS; i++)
		mk_session(&sess[i], i, 0x8100);
	CHECKF(p != NULL, "create");
	CHECKF(arpping_enable(p, 9, 1, 1, 0, t) == -EINVAL, "enable: id out of range");
	CHECKF(arpping_enable(p, 1, 0, 1, 0, t) == -EINVAL, "enable: interval 0");
	CHECKF(arpping_enable(p, 1, 1, 0, 0, t) == -EINVAL, "enable: count 0");
	CHECKF(arpping_count(p) == 0, "nothing enabled by refusals");

	/* session 1: interval 2 s, count 3, silent */
	reset_counts();
	CHECKF(arpping_enable(p, 1, 2, 3, 0, t) == 0 && arpping_count(p) == 1, "enable 1");
	arpping_tick(p, t + 1999, &ops, NULL);
	CHECKF(n_sent == 0, "no ping before the interval");
	arpping_tick(p, t + 2000, &ops, NULL);
	CHECKF(n_sent == 1 && last_len == 60 && memcmp(last_frame, sess[1].mac, 6) == 0 &&
		       memcmp(last_frame + 22 + 24, &sess[1].ipv4, 4) == 0,
	       "a ping after an idle interval, to the subscriber");
	arpping_tick(p, t + 2500, &ops, NULL);
	CHECKF(n_sent == 1, "one ping per interval");
	arpping_tick(p, t + 4000, &ops, NULL);
	arpping_get(p, 1, &in);
	CHECKF(n_sent == 2 && in.missed == 1 && in.pending, "unanswered: a miss, ping 2");
	arpping_tick(p, t + 6000, &ops, NULL);
	CHECKF(n_sent == 3 && n_dead == 0, "miss 2, ping 3");
	arpping_tick(p, t + 8000, &ops, NULL);
	arpping_get(p, 1, &in);
	CHECKF(n_dead == 1 && dead_ids[0] == 1 && n_sent == 3 && in.dead && !in.enabled &&
		       arpping_count(p) == 0 && p->st.dead == 1 && p->st.missed == 3,
	       "dead after count unanswered pings, reported once");
	arpping_tick(p, t + 20000, &ops, NULL);
	CHECKF(n_dead == 1 && n_sent == 3, "no more pings or reports after death");

	/* session 2: answers every ping */
	t += 100000;
	reset_counts();
	arpping_enable(p, 2, 1, 2, 0, t);
	for (int k = 1; k <= 10; k++) {
		arpping_tick(p, t + (uint64_t)k * 1000, &ops, NULL);
		mk_reply(arp, &sess[2], 2);
		CHECKF(arpping_reply(p, 2, &sess[2], arp) == 1, "reply %d counted", k);
	}
	arpping_get(p, 2, &in);
	CHECKF(n_dead == 0 && in.missed == 0 && in.heard == 10, "answered: never dead");

	/* the worker's check: only replies from the session's MAC and address */
	mk_reply(arp, &sess[2], 1);
	CHECKF(arpping_reply(p, 2, &sess[2], arp) == 0, "a request is not a reply");
	mk_reply(arp, &sess[2], 2);
	arp[13] ^= 1;
	CHECKF(arpping_reply(p, 2, &sess[2], arp) == 0, "reply from another MAC");
	mk_reply(arp, &sess[2], 2);
	arp[17] ^= 1;
	CHECKF(arpping_reply(p, 2, &sess[2], arp) == 0, "reply from another address");
	mk_reply(arp, &sess[2], 2);
	arp[6] = 1;
	CHECKF(arpping_reply(p, 2, &sess[2], arp) == 0, "operation 0x0102");
	CHECKF(arpping_reply(p, N_SESS, &sess[2], arp) == 0, "id out of range");
	arpping_disable(p, 2);

	/* session 3: sends upstream traffic: never pinged */
	t += 100000;
	reset_counts();
	arpping_enable(p, 3, 1, 1, 0, t);
	for (int k = 1; k <= 5; k++) {
		sess[3].pkts_up += 3;
		arpping_tick(p, t + (uint64_t)k * 1000, &ops, NULL);
	}
	CHECKF(n_sent == 0 && n_dead == 0, "upstream frames keep it quiet");
	arpping_tick(p, t + 6000, &ops, NULL);
	CHECKF(n_sent == 1, "then idle: pinged");
	sess[3].pkts_up++;
	arpping_tick(p, t + 7000, &ops, NULL);
	arpping_get(p, 3, &in);
	CHECKF(n_dead == 0 && n_sent == 1 && in.missed == 0 && !in.pending,
	       "a frame after the ping counts as the answer");
	arpping_tick(p, t + 8000, &ops, NULL);
	arpping_tick(p, t + 9000, &ops, NULL);
	CHECKF(n_dead == 1 && dead_ids[0] == 3, "count 1: dead one interval after the ping");

	/* send failures do not count as misses */
	t += 100000;
	reset_counts();
	arpping_enable(p, 4, 1, 1, 0, t);
	fail_send = 1;
	for (int k = 1; k <= 4; k++)
		arpping_tick(p, t + (uint64_t)k * 1000, &ops, NULL);
	CHECKF(n_dead == 0 && p->st.send_failed == 4, "send failures: no miss");
	fail_send = 0;
	arpping_tick(p, t + 5000, &ops, NULL);
	arpping_tick(p, t + 6000, &ops, NULL);
	CHECKF(n_dead == 1, "then the first unanswered ping kills it");

	/* a vanished session leaves the list; disable; re-enable after death */
	t += 100000;
	reset_counts();
	arpping_enable(p, 5, 1, 1, 0, t);
	arpping_enable(p, 6, 1, 1, 0, t);
	gone[5] = true;
	arpping_tick(p, t + 1000, &ops, NULL);
	CHECKF(arpping_count(p) == 1 && p->st.no_session == 1 && n_sent == 1,
	       "vanished session dropped, the other pinged");
	gone[5] = false;
	arpping_disable(p, 6);
	arpping_disable(p, 6);
	arpping_tick(p, t + 5000, &ops, NULL);
	CHECKF(arpping_count(p) == 0 && n_dead == 0 && n_sent == 1, "disabled: silent");
	CHECKF(arpping_enable(p, 1, 1, 1, 0, t + 5000) == 0, "re-enable a dead session");
	arpping_get(p, 1, &in);
	CHECKF(in.enabled && !in.dead && in.missed == 0, "re-enabled: fresh");
	arpping_disable(p, 1);
	arpping_free(p);
}

static void
test_scale(void)
{
	struct arpping *p = arpping_create(SCALE, SOCKET_ID_ANY);
	uint64_t t = 5000000;
	unsigned int ticks = 0;
	bool bounded = true;

	for (uint32_t i = 0; i < SCALE; i++) {
		mk_session(&sess[i], i, 0x8100);
		arpping_enable(p, i, 1, 1, 0, t);
	}
	reset_counts();
	CHECKF(arpping_count(p) == SCALE, "scale: all enabled");
	/* 1 ms ticks: at most 128 actions each, every session pinged within the second */
	for (uint64_t ms = 1000; ms < 2000; ms++) {
		unsigned int before = n_sent;

		arpping_tick(p, t + ms, &ops, NULL);
		ticks++;
		if (n_sent - before > ARPPING_DEFAULT_MAX_ACTIONS)
			bounded = false;
	}
	CHECKF(bounded, "scale: bounded actions per tick");
	CHECKF(n_sent == SCALE, "scale: every session pinged within a second (%u)", n_sent);
	for (uint64_t ms = 2000; ms < 3500; ms++)
		arpping_tick(p, t + ms, &ops, NULL);
	CHECKF(n_dead == SCALE && arpping_count(p) == 0, "scale: all dead once (%u)", n_dead);
	arpping_free(p);
}

int
main(int argc, char **argv)
{
	(void)argc;
	if (harness_eal_init(argv[0]) != 0)
		return 1;
	sess = calloc(SCALE, sizeof(*sess));
	if (sess == NULL)
		return 1;
	CHECKF(arpping_create(1u << 25, SOCKET_ID_ANY) == NULL && rte_errno == EINVAL,
	       "create: capacity too large");
	test_builder();
	test_timers();
	test_scale();
	free(sess);
	rte_eal_cleanup();
	return harness_report();
}

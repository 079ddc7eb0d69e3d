/*
 * pfcp-up-pipe: the PFCP user-plane function on stdin/stdout with a fake
 * data path, so a CP written in another language (tests/dp/pfcp_cp.py) can
 * be tested against the real pfcp_up.c without sockets or namespaces.
 *
 * One command per input line; every datagram the UP function sends is
 * printed as "tx <ip> <port> <hex>", then "ok" ends the answer:
 *   rx <now_ms> <hex>        a datagram from the CP (10.200.0.1:8805)
 *   tick <now_ms>            pfcp_up_tick()
 *   dead <handle> <now_ms>   pfcp_up_report_lcp_dead()
 *   usage <handle> <ul_pkts> <ul_bytes> <dl_pkts> <dl_bytes> [<ul_pkts6> <ul_bytes6> <dl_pkts6>
 * <dl_bytes6> [<ul_drops> <dl_drops> [<ul_drop_bytes> <dl_drop_bytes>]]] what the fake data path
 * counts for a session fail <errno>
 * the next installs fail with -errno (0: succeed) state                    one line "state {json}"
 * with the fake's view: live sessions, calls, the last up_sub, the redirect, the UP function's
 * counters The UP function: node 10.200.0.11, CP 10.200.0.1, recovery time stamp Unix 1700000000,
 * wall clock = now_ms + 1700000000000, capacity 1024, heartbeat 5000 ms, t1 1000 ms, n1 3.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfcp.h"
#include "pfcp_up.h"

#define MAX_HANDLES 1024

static struct {
	uint32_t live;
	unsigned installs, modifies, removes, redirects;
	int fail;
	uint32_t last_changed;
	struct up_sub last;
	struct up_redirect redir;
	uint8_t used[MAX_HANDLES];
	struct up_usage use[MAX_HANDLES];
	uint32_t last_handle; /* the handle of the last install */
} F;

static int
f_install(void *ctx, const struct up_sub *s, uint32_t *h)
{
	(void)ctx;
	if (F.fail)
		return -F.fail;
	for (uint32_t i = 0; i < MAX_HANDLES; i++) {
		if (!F.used[i]) {
			F.used[i] = 1;
			F.live++;
			F.installs++;
			F.last = *s;
			F.last_handle = i;
			*h = i;
			return 0;
		}
	}
	return -ENOSPC;
}

static int
f_modify(void *ctx, uint32_t *h, const struct up_sub *s, uint32_t changed)
{
	(void)ctx;
	(void)h;
	F.modifies++;
	F.last = *s;
	F.last_changed = changed;
	return 0;
}

static void
f_remove(void *ctx, uint32_t h)
{
	(void)ctx;
	if (h < MAX_HANDLES && F.used[h]) {
		F.used[h] = 0;
		F.live--;
		memset(&F.use[h], 0, sizeof(F.use[h]));
	}
	F.removes++;
}

static void
f_usage(void *ctx, uint32_t h, struct up_usage *out)
{
	(void)ctx;
	if (h < MAX_HANDLES)
		*out = F.use[h];
}

static void
f_redirect(void *ctx, const struct up_redirect *r)
{
	(void)ctx;
	F.redirects++;
	F.redir = *r;
}

static int
out_send(void *arg, const uint8_t *b, size_t len, uint32_t ip, uint16_t port)
{
	(void)arg;
	printf("tx %u.%u.%u.%u %u ", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255, port);
	for (size_t i = 0; i < len; i++)
		printf("%02x", b[i]);
	printf("\n");
	return 0;
}

static size_t
unhex(const char *h, uint8_t *b, size_t cap)
{
	size_t n = 0;

	while (h[0] && h[1] && n < cap) {
		unsigned v;

		if (sscanf(h, "%2x", &v) != 1)
			break;
		b[n++] = (uint8_t)v;
		h += 2;
	}
	return n;
}

static void
print_state(const struct pfcp_up *u)
{
	struct pfcp_up_stats st;
	const struct up_sub *s = &F.last;

	pfcp_up_stats_get(u, &st);
	printf("state {\"live\": %u, \"installs\": %u, \"modifies\": %u, \"removes\": %u, "
	       "\"redirects\": %u, \"last_changed\": %u, \"last_handle\": %u, ",
	       F.live, F.installs, F.modifies, F.removes, F.redirects, F.last_changed,
	       F.last_handle);
	printf("\"sub\": {\"logical_port\": \"%s\", \"stag\": %u, \"ctag\": %u, "
	       "\"mac\": \"%02x:%02x:%02x:%02x:%02x:%02x\", \"sid\": %u, \"ipv4\": "
	       "\"%u.%u.%u.%u\", "
	       "\"mtu\": %u, \"mbr_ul\": %" PRIu64 ", \"mbr_dl\": %" PRIu64 ", \"gbr_ul\": %" PRIu64
	       ", \"gbr_dl\": %" PRIu64
	       ", \"qos\": \"%s\", \"lcp_offload\": %s, \"lcp_magic\": %u, "
	       "\"lcp_peer_magic\": %u, \"echo_interval\": %u, \"echo_misses\": %u, "
	       "\"urr_period\": %u, \"arp_ping_interval\": %u, \"arp_ping_count\": %u, ",
	       s->logical_port, s->stag, s->ctag, s->mac[0], s->mac[1], s->mac[2], s->mac[3],
	       s->mac[4], s->mac[5], s->pppoe_sid, s->ipv4 >> 24, (s->ipv4 >> 16) & 255,
	       (s->ipv4 >> 8) & 255, s->ipv4 & 255, s->mtu, s->mbr_ul, s->mbr_dl, s->gbr_ul,
	       s->gbr_dl, s->qos_profile, s->lcp_offload ? "true" : "false", s->lcp_magic,
	       s->lcp_peer_magic, s->echo_interval_s, s->echo_misses, s->urr_period_s,
	       s->arp_ping.on ? s->arp_ping.interval_s : 0, s->arp_ping.on ? s->arp_ping.count : 0);
	/* dual stack: the families, the IPv6 prefixes and the RA offload */
	printf("\"has_ipv4\": %s, \"has_ipv6\": %s, \"prefixes6\": [",
	       s->has_ipv4 ? "true" : "false", s->has_ipv6 ? "true" : "false");
	for (unsigned int k = 0; k < s->n_prefix6 && k < UP_SUB_MAX_PREFIX6; k++) {
		char t[INET6_ADDRSTRLEN];

		inet_ntop(AF_INET6, s->prefix6[k], t, sizeof(t));
		printf("%s\"%s/%u\"", k ? ", " : "", t, s->prefix6_len[k]);
	}
	printf("], \"ra\": {\"on\": %s, \"interval\": %u, \"lifetime\": %u, \"flags\": %u, "
	       "\"mtu\": %u, \"dns\": %u}}, ",
	       s->ra.on ? "true" : "false", s->ra.interval_s, s->ra.lifetime_s, s->ra.flags,
	       s->ra.mtu, s->ra.n_dns);
	printf("\"redirect\": {\"cp_ip\": \"%u.%u.%u.%u\", \"port\": %u, \"classes\": %u, "
	       "\"fallback\": %s}, ",
	       F.redir.cp_ip >> 24, (F.redir.cp_ip >> 16) & 255, (F.redir.cp_ip >> 8) & 255,
	       F.redir.cp_ip & 255, F.redir.cp_port, F.redir.classes,
	       F.redir.fallback ? "true" : "false");
	printf("\"sessions\": %u, \"sub_sessions\": %u, \"cp_state\": %d, \"retrans_rx\": %" PRIu64
	       ", \"pending\": %u, \"cp_restarts\": %" PRIu64 "}\n",
	       st.sessions, st.sub_sessions, (int)st.cp_state, st.retrans_rx, st.pending,
	       st.cp_restarts);
}

int
main(void)
{
	static const struct pfcp_up_ops ops = {
		.install = f_install,
		.modify = f_modify,
		.remove = f_remove,
		.usage = f_usage,
		.redirect = f_redirect,
	};
	struct pfcp_up_conf c = {
		.node_ipv4 = 0x0ac8000b,
		.cp_ip = 0x0ac80001,
		.recovery_unix_s = 1700000000,
		.wall_offset_ms = 1700000000000ll,
		.capacity = MAX_HANDLES,
		.heartbeat_ms = 5000,
		.t1_ms = 1000,
		.n1 = 3,
		.up_features = {0, 0, 0x10},
		.bbf_features =
			PFCP_BBF_UPF_PPPOE | PFCP_BBF_UPF_IPOE | PFCP_BBF_UPF_LCP_KEEPALIVE_OFFLOAD,
		.fallback = {.cp_ip = 0x0ac80001, .cp_port = 4789, .classes = UP_REDIRECT_ALL},
	};
	static char line[2 * UP_MAX_MSG + 128];
	static uint8_t b[UP_MAX_MSG];
	struct pfcp_up *u = pfcp_up_create(&c, &ops, NULL);

	if (u == NULL)
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), stdin) != NULL) {
		unsigned long long now = 0;
		unsigned h = 0;
		int pos = 0;
		unsigned long long a, bb, cc, d;
		int e;

		if (sscanf(line, "rx %llu %n", &now, &pos) == 1 && pos > 0) {
			size_t n = unhex(line + pos, b, sizeof(b));

			pfcp_up_input(u, b, n, c.cp_ip, PFCP_PORT, now, out_send, NULL);
		} else if (sscanf(line, "tick %llu", &now) == 1) {
			pfcp_up_tick(u, now, out_send, NULL);
		} else if (sscanf(line, "dead %u %llu", &h, &now) == 2) {
			if (pfcp_up_report_lcp_dead(u, h, now, out_send, NULL) != 0)
				printf("error no such handle\n");
		} else if (sscanf(line, "usage %u %llu %llu %llu %llu", &h, &a, &bb, &cc, &d) ==
			   5) {
			/* optionally followed by the IPv6 share: ul_pkts6 ul_bytes6 dl_pkts6
			 * dl_bytes6 */
			unsigned long long a6 = 0, b6 = 0, c6 = 0, d6 = 0, du = 0, dd = 0, dbu = 0,
					   dbd = 0;

			sscanf(line,
			       "usage %*u %*u %*u %*u %*u %llu %llu %llu %llu %llu %llu %llu %llu",
			       &a6, &b6, &c6, &d6, &du, &dd, &dbu, &dbd);
			if (h < MAX_HANDLES)
				F.use[h] = (struct up_usage){a,	 bb, cc, d,  a6,  b6,
							     c6, d6, du, dd, dbu, dbd};
		} else if (sscanf(line, "fail %d", &e) == 1) {
			F.fail = e;
		} else if (strncmp(line, "state", 5) == 0) {
			print_state(u);
		} else {
			printf("error unknown command\n");
		}
		printf("ok\n");
	}
	pfcp_up_free(u);
	return 0;
}

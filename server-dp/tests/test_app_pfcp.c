/*
 * The instance's PFCP set-up (app_pfcp_conf() in app_init.h), from its INI.
 *
 * usage: test_app_pfcp FIXTURE_DIR BUILD_DIR
 *
 * The lab fixture is loaded as written (pfcp_port 8805) and with pfcp_port
 * 18805 (a copy written to BUILD_DIR), the configuration app_pfcp_conf()
 * derives is checked field by field, and a user-plane function built from
 * it runs a CP's exchange on a fake clock: every request of the DP's own
 * (the start heartbeat, an LCP dead report, a periodic usage report, the
 * association's heartbeat) must go to cp_address:pfcp_port, answers to the
 * port the request came from. No EAL: only plain C runs.
 * The last line of output is "N passed, M failed".
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_init.h"
#include "harness.h"
#include "pfcp_accept_dp.h"
#include "pfcp_build.h"

#define RECOVERY_UNIX 1700000000u
#define ALT_PORT 18805

/* ---- captured datagrams ---------------------------------------------------------------------- */

static struct sent {
	uint8_t type;
	uint32_t ip;
	uint16_t port;
} sent[64];
static unsigned int n_sent;

static int
cap_send(void *arg, const uint8_t *b, size_t len, uint32_t ip, uint16_t port)
{
	(void)arg;
	if (len >= 2 && n_sent < 64)
		sent[n_sent++] = (struct sent){.type = b[1], .ip = ip, .port = port};
	return 0;
}

/* The index of the first datagram of this type sent since `from`, or -1. */
static int
find_sent(unsigned int from, uint8_t type)
{
	for (unsigned int i = from; i < n_sent; i++)
		if (sent[i].type == type)
			return (int)i;
	return -1;
}

/* The first datagram of this type since mark must go to ip:port. */
static void
expect_sent(unsigned int mark, uint8_t type, uint32_t ip, uint16_t port, const char *what,
	    const char *which)
{
	int i = find_sent(mark, type);

	CHECKF(i >= 0 && sent[i].ip == ip && sent[i].port == port, "%s: %s to %u (got %d)", what,
	       which, port, i >= 0 ? sent[i].port : -1);
}

/* ---- the cases ------------------------------------------------------------------------------- */

/* The lab fixture with "pfcp_port = 8805" made "pfcp_port = <port>", written to path. */
static int
write_variant(const char *fixture, const char *path, unsigned int port)
{
	static char text[1 << 16];
	char repl[32];
	const char *key = "pfcp_port = 8805";
	FILE *f = fopen(fixture, "r");
	size_t n;
	char *at;

	if (f == NULL)
		return -1;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	at = strstr(text, key);
	if (at == NULL)
		return -1;
	f = fopen(path, "w");
	if (f == NULL)
		return -1;
	snprintf(repl, sizeof(repl), "pfcp_port = %u", port);
	fwrite(text, 1, (size_t)(at - text), f);
	fputs(repl, f);
	fputs(at + strlen(key), f);
	return fclose(f);
}

static void
check_conf(const char *what, const struct dp_config *cfg, uint16_t want_port)
{
	struct pfcp_up_conf uc;

	memset(&uc, 0xa5, sizeof(uc));
	app_pfcp_conf(cfg, 4096, RECOVERY_UNIX, -5, &uc);
	CHECKF(uc.cp_port == want_port, "%s: requests go to the CP's pfcp_port %u (got %u)", what,
	       want_port, uc.cp_port);
	CHECKF(uc.node_ipv4 == cfg->instance.control_address &&
		       uc.cp_ip == cfg->instance.cp_address,
	       "%s: node and CP addresses", what);
	CHECKF(uc.capacity == 4097, "%s: sessions plus the default session", what);
	CHECKF(uc.recovery_unix_s == RECOVERY_UNIX && uc.wall_offset_ms == -5, "%s: clocks", what);
	CHECKF(uc.fallback.fallback && uc.fallback.classes == UP_REDIRECT_ALL &&
		       uc.fallback.cp_ip == cfg->instance.cp_address &&
		       uc.fallback.cp_port == cfg->instance.vxlan_port,
	       "%s: the static redirect fallback to the CP's VXLAN port", what);
	CHECKF(uc.up_features[0] == 0 && uc.up_features[1] == 0 && uc.up_features[2] == 0x10 &&
		       uc.bbf_features == (PFCP_BBF_UPF_PPPOE | PFCP_BBF_UPF_IPOE |
					   PFCP_BBF_UPF_LCP_KEEPALIVE_OFFLOAD),
	       "%s: announced features", what);
	CHECKF(uc.heartbeat_ms == 0 && uc.t1_ms == 0 && uc.n1 == 0 && uc.rcache_ttl_ms == 0,
	       "%s: timers at the UP function's defaults", what);
}

static void
feed(struct pfcp_up *u, struct pfcp_msg *m, uint16_t from_port, uint64_t now)
{
	static uint8_t b[UP_MAX_MSG];
	int n = pfcp_msg_encode(m, b, sizeof(b));

	CHECKF(n > 0, "encode request type %u", m->h.type);
	if (n > 0)
		pfcp_up_input(u, b, (size_t)n, PB_CP_IP, from_port, now, cap_send, NULL);
}

/* A CP at cp_address:port: every request of the DP's own must reach it there. */
static void
check_requests_reach(const char *what, const struct dp_config *cfg, uint16_t port)
{
	static struct pfcp_msg m;
	struct pfcp_up_conf uc;
	struct pb_sub s = pb_sub_default();
	struct pfcp_up *u;
	uint32_t cp = cfg->instance.cp_address;
	unsigned int mark;

	app_pfcp_conf(cfg, 16, RECOVERY_UNIX, 0, &uc);
	uc.node_ipv4 = PB_UP_IP; /* the builders' addresses */
	uc.cp_ip = cp = PB_CP_IP;
	u = pfcp_up_create(&uc, &accept_dp_ops, NULL);
	CHECKF(u != NULL, "%s: UP function created", what);
	if (u == NULL)
		return;
	n_sent = 0;

	/* the heartbeat announcing our Recovery Time Stamp, before any association */
	pfcp_up_tick(u, 0, cap_send, NULL);
	expect_sent(0, PFCP_HEARTBEAT_REQ, cp, port, what, "start heartbeat");

	/* answers go where the request came from, whatever the configured port */
	mark = n_sent;
	pb_assoc_setup(&m, 1, PB_CP_RECOVERY);
	feed(u, &m, 40000, 10);
	expect_sent(mark, PFCP_ASSOC_SETUP_RSP, cp, 40000, what, "association answer");
	pb_heartbeat_rsp(&m, 1, PB_CP_RECOVERY); /* the start heartbeat was the DP's request 1 */
	feed(u, &m, port, 15);

	/* a subscriber with LCP offload and a 1 s periodic URR */
	s.urr_period = 1;
	mark = n_sent;
	pb_establish(&m, &s, 0x77, 2);
	feed(u, &m, port, 20);
	expect_sent(mark, PFCP_SESS_EST_RSP, cp, port, what, "establishment answer");

	mark = n_sent;
	CHECKF(pfcp_up_report_lcp_dead(u, 0, 30, cap_send, NULL) == 0, "%s: LCP dead taken", what);
	expect_sent(mark, PFCP_SESS_REPORT_REQ, cp, port, what, "LCP dead report");

	mark = n_sent;
	pfcp_up_tick(u, 1100, cap_send, NULL);
	expect_sent(mark, PFCP_SESS_REPORT_REQ, cp, port, what, "periodic usage report");

	/* the association's heartbeat (every 5 s) and retransmissions (T1 = 3 s) */
	mark = n_sent;
	pfcp_up_tick(u, 5100, cap_send, NULL);
	expect_sent(mark, PFCP_HEARTBEAT_REQ, cp, port, what, "association heartbeat");
	for (unsigned int k = mark; k < n_sent; k++)
		CHECKF(sent[k].port == port, "%s: datagram %u (type %u) to port %u", what, k,
		       sent[k].type, port);
	pfcp_up_free(u);
}

int
main(int argc, char **argv)
{
	static struct dp_config cfg;
	char fixture[512], alt[512], err[256];

	if (argc < 3) {
		fprintf(stderr, "usage: %s FIXTURE_DIR BUILD_DIR\n", argv[0]);
		return 2;
	}
	snprintf(fixture, sizeof(fixture), "%s/lab_dp4.ini", argv[1]);
	snprintf(alt, sizeof(alt), "%s/app_pfcp_port.ini", argv[2]);

	if (dp_config_load(fixture, &cfg, err, sizeof(err)) != 0) {
		printf("FAIL load %s: %s\n", fixture, err);
		return harness_report() | 1;
	}
	CHECKF(cfg.instance.pfcp_port == PFCP_PORT, "the fixture names port 8805");
	check_conf("pfcp_port 8805", &cfg, PFCP_PORT);
	check_requests_reach("pfcp_port 8805", &cfg, PFCP_PORT);

	if (write_variant(fixture, alt, ALT_PORT) != 0 ||
	    dp_config_load(alt, &cfg, err, sizeof(err)) != 0) {
		printf("FAIL load %s: %s\n", alt, err);
		return harness_report() | 1;
	}
	CHECKF(cfg.instance.pfcp_port == ALT_PORT, "the variant names port %u", ALT_PORT);
	check_conf("pfcp_port 18805", &cfg, ALT_PORT);
	check_requests_reach("pfcp_port 18805", &cfg, ALT_PORT);
	return harness_report();
}

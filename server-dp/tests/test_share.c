/*
 * The division of a shared access port (share.c): weighted max-min fairness,
 * the sum never above the port rate, silent peers' static shares reserved,
 * the step rule's convergence and its bound, the report codec against
 * hostile datagrams. No EAL, no clock.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "share.h"
#include "share_conf.h"

#define CHECK_TRUE(c) check((c), #c, "does not hold")

#define R 25000000u /* 200 Mbit/s in bytes/s */

static uint64_t
sum(const uint64_t *v, uint32_t n)
{
	uint64_t s = 0;

	for (uint32_t i = 0; i < n; i++)
		s += v[i];
	return s;
}

static void
peers(struct share_peer *p, uint32_t n, const uint64_t *demand, const uint64_t *weight)
{
	for (uint32_t i = 0; i < n; i++) {
		p[i].weight = weight ? weight[i] : 1;
		p[i].demand = demand[i];
		p[i].stat = R / n;
		p[i].present = 1;
	}
}

static int
near(uint64_t a, uint64_t b, uint64_t tol)
{
	return a > b ? a - b <= tol : b - a <= tol;
}

static void
test_two_of_four(void)
{
	struct share_peer p[4];
	uint64_t d[4] = {UINT64_MAX / 4, R, 0, 0}, out[4];

	peers(p, 4, d, NULL);
	share_divide(R, p, 4, out);
	CHECKF(sum(out, 4) <= R, "2 of 4: sum %" PRIu64, sum(out, 4));
	CHECKF(out[0] + out[1] >= R * 98 / 100, "2 of 4 loaded get >= 98%% of R: %" PRIu64,
	       out[0] + out[1]);
	CHECKF(near(out[0], out[1], 2), "2 of 4 loaded: equal %" PRIu64 " %" PRIu64, out[0],
	       out[1]);
	CHECKF(out[2] == R / 4 / SHARE_FLOOR_DIV, "idle peer keeps its floor: %" PRIu64, out[2]);
}

static void
test_max_min(void)
{
	struct share_peer p[3];
	uint64_t d[3] = {R / 10, R, R}, out[3], fl = R / 3 / SHARE_FLOOR_DIV;

	peers(p, 3, d, NULL);
	share_divide(R, p, 3, out);
	CHECKF(out[0] == R / 10, "small demand met exactly: %" PRIu64, out[0]);
	CHECKF(near(out[1], (R - R / 10) / 2, 2) && near(out[2], out[1], 1),
	       "the others split the rest: %" PRIu64 " %" PRIu64, out[1], out[2]);
	CHECKF(sum(out, 3) <= R && sum(out, 3) >= R - 3, "filled: %" PRIu64, sum(out, 3));
	(void)fl;
	/* All below their parts: each gets its demand plus the rest by weight. */
	d[0] = d[1] = d[2] = R / 10;
	peers(p, 3, d, NULL);
	share_divide(R, p, 3, out);
	CHECKF(near(out[0], R / 3, 2) && near(out[1], R / 3, 2),
	       "idle port split by weight %" PRIu64, out[0]);
}

static void
test_weighted(void)
{
	struct share_peer p[2];
	uint64_t d[2] = {R, R}, w[2] = {1, 3}, out[2];

	peers(p, 2, d, w);
	share_divide(R, p, 2, out);
	/* floors 1% of R/2 each, the rest 1:3 */
	uint64_t fl = R / 2 / SHARE_FLOOR_DIV, rest = R - 2 * fl;
	CHECKF(near(out[0], fl + rest / 4, 2) && near(out[1], fl + rest * 3 / 4, 2),
	       "weights 1:3: %" PRIu64 " %" PRIu64, out[0], out[1]);
	/* Weighted max-min: the heavy one wants less than its part. */
	d[1] = R / 2;
	peers(p, 2, d, w);
	share_divide(R, p, 2, out);
	CHECKF(out[1] == R / 2 && near(out[0], R / 2, 2),
	       "heavy peer below its part: %" PRIu64 " %" PRIu64, out[0], out[1]);
	/* A zero weight counts as 1. */
	w[0] = 0;
	d[1] = R;
	peers(p, 2, d, w);
	share_divide(R, p, 2, out);
	CHECKF(out[0] > 0 && sum(out, 2) <= R, "zero weight");
}

static void
test_silent_peer(void)
{
	struct share_peer p[4];
	uint64_t d[4] = {R, R, R, R}, out[4];

	peers(p, 4, d, NULL);
	p[3].present = 0;
	share_divide(R, p, 4, out);
	CHECKF(out[3] == R / 4, "silent peer: its static share reserved (%" PRIu64 ")", out[3]);
	CHECKF(sum(out, 3) <= R - R / 4 && sum(out, 3) >= R - R / 4 - 3,
	       "the others divide the rest %" PRIu64, sum(out, 3));
	/* Unequal static shares: the reservation is the silent one's. */
	p[0].stat = R / 2;
	p[1].stat = p[2].stat = p[3].stat = R / 6;
	p[0].present = 0;
	p[3].present = 1;
	share_divide(R, p, 4, out);
	CHECKF(out[0] == R / 2 && sum(out, 4) <= R, "reserve R/2: %" PRIu64, sum(out, 4));
	/* Everyone else silent: a lone instance runs what is not reserved. */
	for (int i = 0; i < 4; i++)
		p[i].present = i == 1;
	share_divide(R, p, 4, out);
	CHECKF(out[1] == R - R / 2 - 2 * (R / 6), "lone instance: its own static share %" PRIu64,
	       out[1]);
}

/* Random cases: the sum never exceeds the rate, no present peer gets more
 * than max(demand, its weighted part) beyond the leftover, absent ones their
 * static share. */
static void
test_random(void)
{
	struct share_peer p[SHARE_MAX_PEERS];
	uint64_t out[SHARE_MAX_PEERS];
	uint32_t bad = 0, cases = 200000;

	srand(7);
	for (uint32_t c = 0; c < cases; c++) {
		uint32_t n = 1 + (uint32_t)rand() % SHARE_MAX_PEERS, i;
		uint64_t rate =
			1 + ((uint64_t)rand() << 20 | (uint64_t)rand()) % (UINT64_C(1) << 40);
		uint64_t st = 0;

		for (i = 0; i < n; i++) {
			p[i].weight = (uint64_t)rand() % 4 == 0 ? 0 : (uint64_t)rand() * rand();
			p[i].demand = (uint64_t)rand() % 3 == 0
					      ? 0
					      : ((uint64_t)rand() << 16) * rand() % (2 * rate);
			p[i].stat = rate / n;
			p[i].present = rand() % 5 != 0;
			st += p[i].stat;
		}
		share_divide(rate, p, n, out);
		if (sum(out, n) > rate)
			bad++;
		for (i = 0; i < n; i++)
			if (!p[i].present && out[i] != p[i].stat)
				bad++;
		(void)st;
	}
	CHECKF(bad == 0, "200,000 random divisions: %u above the rate or a silent peer changed",
	       bad);
}

/*
 * Rounds of the exchange. The peers act one after another (in a rotating
 * order) from the reports of the previous round, their own rate exact, and
 * the actual rates are summed after every single change: they never exceed R,
 * and reach the targets within 2 rounds of a change of load.
 */
static uint32_t
rounds_to_converge(const uint64_t *d, uint64_t *act, int *over)
{
	struct share_peer p[4];
	uint64_t tgt[4], rep[4], mine[4];
	uint32_t r, k;

	peers(p, 4, d, NULL);
	share_divide(R, p, 4, tgt);
	for (r = 0; r < 10; r++) {
		memcpy(rep, act, sizeof(rep));
		for (k = 0; k < 4; k++) {
			uint32_t i = (k + r) % 4;

			memcpy(mine, rep, sizeof(mine));
			mine[i] = act[i];
			act[i] = share_step(R, p, 4, i, tgt, mine);
			if (sum(act, 4) > R)
				*over = 1;
		}
		if (memcmp(act, tgt, sizeof(tgt)) == 0)
			return r + 1;
	}
	return 0;
}

static void
test_convergence(void)
{
	struct share_peer p[4];
	uint64_t d[4] = {R, R, 0, 0}, act[4], tgt[4], next[4];
	uint32_t rounds, i;
	int over = 0;

	for (i = 0; i < 4; i++)
		act[i] = R / 4; /* start at the static shares */
	rounds = rounds_to_converge(d, act, &over);
	CHECKF(!over, "applied rates never above R");
	CHECKF(rounds > 0 && rounds <= 2, "2 of 4 loaded: converged in %u rounds", rounds);
	CHECKF(act[0] + act[1] >= R * 98 / 100, "converged to >= 98%%: %" PRIu64, act[0] + act[1]);
	d[0] = d[1] = 0;
	d[2] = d[3] = R;
	rounds = rounds_to_converge(d, act, &over);
	CHECKF(!over, "after a load change: never above R");
	CHECKF(rounds > 0 && rounds <= 2, "load moved: converged in %u rounds", rounds);
	d[0] = d[1] = R;
	rounds = rounds_to_converge(d, act, &over);
	CHECKF(!over && rounds > 0 && rounds <= 2, "all loaded: converged in %u rounds", rounds);
	CHECKF(near(act[0], R / 4, 2) && near(act[3], R / 4, 2),
	       "all loaded: equal shares %" PRIu64, act[0]);
	/* Peer 3 falls silent: the others reserve its static share; peer 3
	 * itself falls back to its static share (it hears nobody). */
	peers(p, 4, d, NULL);
	p[3].present = 0;
	share_divide(R, p, 4, tgt);
	for (i = 0; i < 3; i++)
		next[i] = share_step(R, p, 4, i, tgt, act);
	next[3] = R / 4;
	CHECKF(sum(next, 4) <= R, "silent peer at its static share: sum %" PRIu64, sum(next, 4));
}

/* Increases share the headroom: from a state with free room, every raise of
 * the same round together stays within it. */
static void
test_step_headroom(void)
{
	struct share_peer p[3];
	uint64_t d[3] = {R, R, R}, tgt[3] = {R / 3, R / 3, R / 3}, app[3] = {R / 10, R / 10, R / 2},
		 next[3];

	peers(p, 3, d, NULL);
	for (int i = 0; i < 3; i++)
		next[i] = share_step(R, p, 3, (uint32_t)i, tgt, app);
	CHECKF(next[2] == R / 3, "decrease at once");
	CHECKF(sum(next, 3) <= R, "raises share the headroom: %" PRIu64, sum(next, 3));
	CHECKF(next[0] == next[1] && next[0] > R / 10, "equal raises %" PRIu64, next[0]);
}

static void
test_view(void)
{
	uint32_t heard[3] = {7, 7, 7};

	CHECK_TRUE(share_view_consistent(7, heard, 3));
	heard[1] = 3;
	CHECK_TRUE(!share_view_consistent(7, heard, 3));
	/* Peer 2 absent: only 0 and 1 must agree. */
	heard[0] = heard[1] = 3;
	CHECK_TRUE(share_view_consistent(3, heard, 3));
}

static void
test_codec(void)
{
	struct share_report r = {.index = 2,
				 .share_id = 77,
				 .seq = 0xdeadbeef,
				 .heard = 0xf,
				 .weight = 12,
				 .demand = UINT64_MAX - 1,
				 .served = 5,
				 .applied = 6,
				 .stat = 7},
			    o;
	uint8_t b[SHARE_MSG_LEN + 1];

	share_encode(&r, b);
	CHECK_TRUE(share_decode(b, SHARE_MSG_LEN, SHARE_KIND_ACCESS, 77, 4, 0, &o) == SHARE_OK);
	CHECK_TRUE(o.index == 2 && o.seq == 0xdeadbeef && o.heard == 0xf && o.weight == 12 &&
		   o.demand == UINT64_MAX - 1 && o.served == 5 && o.applied == 6 && o.stat == 7 &&
		   o.kind == SHARE_KIND_ACCESS);
	CHECK_TRUE(share_decode(b, SHARE_MSG_LEN - 1, 0, 77, 4, 0, &o) == SHARE_ERR_LEN);
	CHECK_TRUE(share_decode(b, SHARE_MSG_LEN + 1, 0, 77, 4, 0, &o) == SHARE_ERR_LEN);
	CHECK_TRUE(share_decode(b, SHARE_MSG_LEN, 0, 78, 4, 0, &o) == SHARE_ERR_ID);
	CHECK_TRUE(share_decode(b, SHARE_MSG_LEN, 0, 77, 2, 0, &o) == SHARE_ERR_INDEX);
	CHECK_TRUE(share_decode(b, SHARE_MSG_LEN, 0, 77, 4, 2, &o) == SHARE_ERR_INDEX);
	/* A server port group's report: the kind is part of the group's key. */
	r.kind = SHARE_KIND_SERVER;
	share_encode(&r, b);
	CHECK_TRUE(share_decode(b, SHARE_MSG_LEN, SHARE_KIND_ACCESS, 77, 4, 0, &o) == SHARE_ERR_ID);
	CHECK_TRUE(share_decode(b, SHARE_MSG_LEN, SHARE_KIND_SERVER, 77, 4, 0, &o) == SHARE_OK &&
		   o.kind == SHARE_KIND_SERVER);
	{
		uint16_t id = 0;
		uint8_t kind = 9;

		CHECK_TRUE(share_peek(b, SHARE_MSG_LEN, &kind, &id) == SHARE_OK && id == 77 &&
			   kind == SHARE_KIND_SERVER);
	}
	b[56] = SHARE_KIND_MAX;
	CHECK_TRUE(share_decode(b, SHARE_MSG_LEN, SHARE_KIND_SERVER, 77, 4, 0, &o) ==
		   SHARE_ERR_KIND);
	/* Version 1 (no kind byte, zero there): an access port's report. */
	b[4] = 1;
	b[56] = 0;
	CHECK_TRUE(share_decode(b, SHARE_MSG_LEN, SHARE_KIND_ACCESS, 77, 4, 0, &o) == SHARE_OK);
	b[56] = SHARE_KIND_SERVER; /* ignored in version 1 */
	CHECK_TRUE(share_decode(b, SHARE_MSG_LEN, SHARE_KIND_ACCESS, 77, 4, 0, &o) == SHARE_OK);
	b[4] = 3;
	CHECK_TRUE(share_decode(b, SHARE_MSG_LEN, 0, 77, 4, 0, &o) == SHARE_ERR_VERSION);
	b[0] ^= 1;
	CHECK_TRUE(share_decode(b, SHARE_MSG_LEN, 0, 77, 4, 0, &o) == SHARE_ERR_MAGIC);
	/* Random bytes: refused or decoded, never more. */
	uint32_t ok = 0;
	for (int k = 0; k < 100000; k++) {
		size_t len = (size_t)rand() % (SHARE_MSG_LEN + 1);
		for (size_t i = 0; i < len; i++)
			b[i] = (uint8_t)rand();
		if (len == SHARE_MSG_LEN && k % 2 == 0) {
			b[0] = 0x42, b[1] = 0x51, b[2] = 0x53, b[3] = 0x31, b[4] = 1 + (k & 4) / 4,
			b[6] = 0, b[7] = 77, b[56] = (uint8_t)(k & 8 ? b[56] : 0);
		}
		if (share_decode(b, len, 0, 77, 4, 0, &o) == SHARE_OK)
			ok += o.index < 4 && o.index != 0;
	}
	CHECKF(ok > 0, "random datagrams with a good header decode (%u)", ok);
}

/* The --qos-share file: a good one, and one error per kind, each naming the key. */
static int
conf_try_n(const char *text, uint16_t n_access_ports, struct share_file *c, char *err,
	   size_t errlen)
{
	char path[] = "/tmp/test_share_XXXXXX";
	int fd = mkstemp(path), rc;
	FILE *f = fdopen(fd, "w");

	fputs(text, f);
	fclose(f);
	rc = share_conf_load(path, n_access_ports, c, err, errlen);
	unlink(path);
	return rc;
}

static int
conf_try(const char *text, struct share_file *c, char *err, size_t errlen)
{
	return conf_try_n(text, 2, c, err, errlen);
}

static void
test_conf(void)
{
	static const char good[] = "; comment\n[qos_share]\naccess_port = 1\nshare_id = 7\n"
				   "port_rate = 200000000\nself = 1\n"
				   "peers = 10.0.0.1:9100 10.0.0.2:9100 10.0.0.3:9101\n"
				   "interval_ms = 5\nweight = sessions\nexchange = on\n";
	static const struct {
		const char *text, *want;
	} bad[] = {
		{"[qos_share]\naccess_port = 0\nshare_id = 1\nport_rate = 200000000\nself = 0\n",
		 "peers is missing"},
		{"[qos_share]\nbogus = 1\n", "unknown key 'bogus'"},
		{"[qos_share]\naccess_port = 2\n", "access_port: bad value"},
		{"[qos_share]\nself = 0\nself = 1\n", "duplicate key 'self'"},
		{"[other]\n", "[qos_share.LABEL] (distinct labels)"},
		{"[qos_share]\npeers = 10.0.0.1:9100\n", "peers: bad value"},
		{"[qos_share]\npeers = 10.0.0.1:0 10.0.0.2:1\n", "peers: bad value"},
		{"[qos_share]\npeers = 10.0.0.300:1 10.0.0.2:1\n", "peers: bad value"},
		{"[qos_share]\naccess_port = 0\nshare_id = 1\nport_rate = 200000000\nself = 2\n"
		 "peers = 10.0.0.1:1 10.0.0.2:1\n",
		 "self 2 is not an index"},
		{"[qos_share]\naccess_port = 0\nshare_id = 1\nport_rate = 200000000\nself = 0\n"
		 "peers = 10.0.0.1:1 10.0.0.2:1\nstatic_shares = 150000000 60000000\n",
		 "above port_rate"},
		{"[qos_share]\naccess_port = 0\nshare_id = 1\nport_rate = 200000000\nself = 0\n"
		 "peers = 10.0.0.1:1 10.0.0.2:1\nstatic_shares = 100000000\n",
		 "1 values for 2 peers"},
		{"[qos_share]\ninterval_ms = 0\n", "interval_ms: bad value"},
		{"[qos_share]\nsilent_intervals = 1\n", "silent_intervals: bad value"},
		{"[qos_share]\nweight = -3\n", "weight: bad value"},
		{"[qos_share]\nexchange = maybe\n", "exchange: bad value"},
		{"[qos_share]\ngbr_default = 999\n", "gbr_default: bad value"},
		{"key = 1\n", "neither"},
	};
	struct share_file f;
	const struct share_conf *c = &f.g[0];
	char err[512];

	CHECKF(conf_try(good, &f, err, sizeof(err)) == 0, "good file: %s", err);
	CHECK_TRUE(f.n == 1 && c->kind == SHARE_KIND_ACCESS && c->access_port == 1 &&
		   c->share_id == 7 && c->self == 1 && c->n_peers == 3 && c->peer_port[2] == 9101 &&
		   c->peer_addr[1] == 0x0a000002 && c->interval_ms == 5 &&
		   c->silent_intervals == 3 && c->weight_mode == SHARE_WEIGHT_SESSIONS &&
		   c->exchange == 1 && c->gbr_default == SHARE_DEFAULT_GBR &&
		   c->stat[0] == 200000000 / 3);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		int rc = conf_try(bad[i].text, &f, err, sizeof(err));
		CHECKF(rc != 0 && strstr(err, bad[i].want) != NULL,
		       "bad file %zu: want '%s', got '%s'", i, bad[i].want, err);
	}
}

/* Several groups in one file: two access ports and the server port. */
#define SEC_A(ap, id, self_peer)                                                        \
	"[qos_share]\naccess_port = " ap "\nshare_id = " id "\nport_rate = 200000000\n" \
	"self = 0\npeers = " self_peer " 10.0.0.2:9100\n"
#define SEC_S(id, self_peer)                                                                   \
	"[qos_share]\nserver_port = on\nshare_id = " id "\nport_rate = 1000000000\nself = 0\n" \
	"peers = " self_peer " 10.0.0.3:9100\nstatic_shares = 250000000 750000000\n"

static void
test_conf_groups(void)
{
	static const char good[] = SEC_A(
		"0", "1",
		"10.0.0.1:9100") "[qos_share.access1]\n"
				 "access_port = 1\nshare_id = 2\nport_rate = 200000000\nself = 0\n"
				 "peers = 10.0.0.1:9100 "
				 "10.0.0.2:9100\n[qos_share.srv-1]\nserver_port = on\n"
				 "share_id = 1\nport_rate = 1000000000\nself = 0\n"
				 "peers = 10.0.0.1:9100 10.0.0.3:9100\nstatic_shares = 250000000 "
				 "750000000\n";
	static const struct {
		const char *text, *want;
	} bad[] = {
		{SEC_A("0", "1", "10.0.0.1:9100") SEC_A("1", "1", "10.0.0.1:9100"),
		 "[qos_share] 2: share_id 1 is section 1's too"},
		{SEC_A("0", "1", "10.0.0.1:9100") SEC_A("0", "2", "10.0.0.1:9100"),
		 "access_port 0 is section 1's too"},
		{SEC_S("1", "10.0.0.1:9100") SEC_S("2", "10.0.0.1:9100"), "a second server_port"},
		{SEC_A("0", "1", "10.0.0.1:9100") SEC_A("1", "2", "10.0.0.1:9101"),
		 "self's address:port differs from section 1's"},
		{"[qos_share]\naccess_port = 0\nserver_port = on\nshare_id = 1\n"
		 "port_rate = 200000000\nself = 0\npeers = 10.0.0.1:1 10.0.0.2:1\n",
		 "give one of access_port and server_port"},
		{"[qos_share]\nshare_id = 1\nport_rate = 200000000\nself = 0\n"
		 "peers = 10.0.0.1:1 10.0.0.2:1\n",
		 "give one of access_port and server_port"},
		{"[qos_share]\nserver_port = yes\n", "server_port: bad value"},
		{"", "no [qos_share] section"},
		{"[qos_share.a b]\n", "(distinct labels)"},
		{"[qos_share.]\n", "(distinct labels)"},
		{"[qos_share.x]\n"
		 "access_port = 0\nshare_id = 1\nport_rate = 200000000\nself = 0\n"
		 "peers = 10.0.0.1:1 10.0.0.2:1\n[qos_share.x]\n",
		 "(distinct labels)"},
		{SEC_A("0", "1", "10.0.0.1:1") SEC_A("1", "2", "10.0.0.1:1")
			 SEC_A("2", "3", "10.0.0.1:1") SEC_A("3", "4", "10.0.0.1:1")
				 SEC_A("4", "5", "10.0.0.1:1") SEC_A("5", "6", "10.0.0.1:1")
					 SEC_A("6", "7", "10.0.0.1:1") SEC_A("7", "8", "10.0.0.1:1")
						 SEC_A("8", "9", "10.0.0.1:1"),
		 "holds up to 8 sections"},
	};
	struct share_file f;
	char err[512];

	CHECKF(conf_try(good, &f, err, sizeof(err)) == 0, "three groups: %s", err);
	CHECK_TRUE(f.g[0].weight_mode == SHARE_WEIGHT_GUARANTEED &&
		   f.g[0].gbr_default == SHARE_DEFAULT_GBR);
	CHECK_TRUE(f.n == 3 && f.g[0].access_port == 0 && f.g[1].access_port == 1 &&
		   f.g[1].share_id == 2 && f.g[2].kind == SHARE_KIND_SERVER &&
		   f.g[2].share_id == 1 && f.g[2].stat[1] == 750000000 &&
		   f.g[2].port_rate == 1000000000);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		int rc = conf_try_n(bad[i].text, 16, &f, err, sizeof(err));
		CHECKF(rc != 0 && strstr(err, bad[i].want) != NULL,
		       "bad groups %zu: want '%s', got '%s'", i, bad[i].want, err);
	}
}

int
main(void)
{
	test_two_of_four();
	test_max_min();
	test_weighted();
	test_silent_peer();
	test_random();
	test_convergence();
	test_step_headroom();
	test_view();
	test_codec();
	test_conf();
	test_conf_groups();
	return harness_report();
}

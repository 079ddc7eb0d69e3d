/*
 * Benchmark of the session lookups (session.h).
 *
 * usage: bench_session ITERATIONS [SESSIONS] [--no-tsc]
 *
 * For SESSIONS sessions (default: 4096, then 65536): the tables are filled
 * (EAL --no-huge), then ITERATIONS passes of 65536 lookups each direction, in
 * bursts of 32, each lookup choosing a session at random among all of them
 * (fixed seed; the keys are prepared before the measured calls, so at 65536
 * sessions a pass touches about 41,000 different sessions). Prints one JSON
 * line per size: lookups per direction, misses (must be 0) and, unless
 * --no-tsc (under valgrind), TSC ticks per lookup, read around each burst
 * call. bench_up() and bench_down() are not inlined so that callgrind's
 * --toggle-collect measures exactly the lookups (bench/callgrind_session.sh).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include "bench_common.h"
#include "session.h"

#define N_LOOKUPS 65536
#define BURST 32

static void
params_of(uint32_t k, struct dp_session_params *p)
{
	static const uint8_t ac[6] = {0x02, 0xaa, 0, 0, 0, 1};

	memset(p, 0, sizeof(*p));
	p->line = (uint16_t)(k % 7);
	p->stag = (uint16_t)(1 + (k >> 12) % 4094);
	p->ctag = (uint16_t)(1 + k % 4094);
	p->sid = (uint16_t)(1 + k % 0xfffe);
	p->mac[0] = 0x02;
	p->mac[3] = (uint8_t)(k >> 16);
	p->mac[4] = (uint8_t)(k >> 8);
	p->mac[5] = (uint8_t)k;
	memcpy(p->ac_mac, ac, 6);
	p->tpid = 0x8100;
	p->ipv4 = rte_cpu_to_be_32(0x64400000u + k + 1);
}

__attribute__((noinline)) static uint32_t
bench_up(const struct session_tables *t, const struct cls_result *res, const uint8_t *const *macs,
	 uint32_t *ids)
{
	return session_lookup_up_burst(t, res, macs, BURST, ids);
}

__attribute__((noinline)) static uint32_t
bench_down(const struct session_tables *t, const uint32_t *ipv4, uint32_t *ids)
{
	return session_lookup_down_burst(t, ipv4, BURST, ids);
}

static int
run(uint32_t n_sessions, unsigned long iters, int no_tsc)
{
	static struct cls_result res[N_LOOKUPS];
	static struct dp_session_params ps[N_LOOKUPS];
	static const uint8_t *macs[N_LOOKUPS];
	static uint32_t ipv4[N_LOOKUPS], ids[BURST];
	struct session_tables *t = session_tables_create("bench", n_sessions, 1, SOCKET_ID_ANY);
	struct session_table_stats st;
	struct dp_session_params p;
	uint64_t t_up = 0, t_down = 0, t0, hits_up = 0, hits_down = 0, n;
	unsigned long it;
	uint32_t k, id;
	int i;

	if (t == NULL)
		return -1;
	for (k = 0; k < n_sessions; k++) {
		params_of(k, &p);
		if (session_add(t, &p, &id) != 0)
			return -1;
	}
	for (i = 0; i < N_LOOKUPS; i++) {
		params_of(rnd(n_sessions), &ps[i]);
		res[i].kind = CLS_PPPOE_SESS_IPV4;
		res[i].line = ps[i].line;
		res[i].stag = ps[i].stag;
		res[i].ctag = ps[i].ctag;
		res[i].sid = ps[i].sid;
		macs[i] = ps[i].mac;
		ipv4[i] = ps[i].ipv4;
	}
	for (it = 0; it < iters; it++) {
		for (i = 0; i < N_LOOKUPS; i += BURST) {
			t0 = no_tsc ? 0 : rte_rdtsc();
			hits_up += bench_up(t, &res[i], &macs[i], ids);
			if (!no_tsc)
				t_up += rte_rdtsc() - t0;
		}
		for (i = 0; i < N_LOOKUPS; i += BURST) {
			t0 = no_tsc ? 0 : rte_rdtsc();
			hits_down += bench_down(t, &ipv4[i], ids);
			if (!no_tsc)
				t_down += rte_rdtsc() - t0;
		}
	}
	n = (uint64_t)iters * N_LOOKUPS;
	printf("{\"sessions\":%u,\"burst\":%d,\"up_lookups\":%" PRIu64 ",\"down_lookups\":%" PRIu64
	       ",\"misses\":%" PRIu64,
	       n_sessions, BURST, n, n, 2 * n - hits_up - hits_down);
	if (!no_tsc && n > 0)
		printf(",\"up_tsc_per_lookup\":%.2f,\"down_tsc_per_lookup\":%.2f",
		       (double)t_up / (double)n, (double)t_down / (double)n);
	session_table_stats(t, &st);
	printf(",\"up_mean_links\":%.3f,\"up_max_chain\":%u,\"down_mean_probes\":%.3f,"
	       "\"down_max_probe\":%u}\n",
	       (double)st.up_links / n_sessions, st.up_max_chain,
	       (double)st.down_probes / n_sessions, st.down_max_probe);
	session_tables_free(t);
	return 0;
}

int
main(int argc, char **argv)
{
	char *eal_argv[] = {argv[0],	   "--no-huge",		"-m", "512", "--no-pci",
			    "--no-shconf", "--log-level=error", NULL};
	unsigned long iters, sessions = 0;
	int no_tsc = 0, rc;

	if (argc > 2 && strcmp(argv[argc - 1], "--no-tsc") == 0) {
		no_tsc = 1;
		argc--;
	}
	if (argc == 3)
		sessions = strtoul(argv[2], NULL, 10);
	if (argc < 2 || argc > 3 || (argc == 3 && (sessions == 0 || sessions > 1u << 20))) {
		fprintf(stderr, "usage: %s ITERATIONS [SESSIONS] [--no-tsc]\n", argv[0]);
		return 2;
	}
	iters = strtoul(argv[1], NULL, 10);
	if (rte_eal_init(7, eal_argv) < 0) {
		fprintf(stderr, "EAL init: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	if (sessions != 0)
		rc = run((uint32_t)sessions, iters, no_tsc);
	else
		rc = run(4096, iters, no_tsc) != 0 || run(65536, iters, no_tsc) != 0;
	if (rc != 0) {
		fprintf(stderr, "set-up failed\n");
		return 1;
	}
	rte_eal_cleanup();
	return 0;
}

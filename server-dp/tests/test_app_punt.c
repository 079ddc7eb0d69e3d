/*
 * The instance's punt policer from its INI (app_punt_params() in app_init.h).
 *
 * usage: test_app_punt FIXTURE_DIR BUILD_DIR
 * env DP_GOLDEN_ROOT: the generator's golden files (<pod>/dp/<name>.ini);
 *   lab/dp/dp1.ini is checked too. Skipped, with a message, when absent.
 *
 * The lab fixture states the defaults. The parameters app_punt_params()
 * derives are checked field by field, class by class (client ->
 * punt_params.mac, line -> .line; the loader's side is test_dp_config's),
 * and a punt stage built from the fixture and from variants of it (its
 * [punt] section replaced, written to BUILD_DIR) must police as they say: on
 * a synthetic 1 GHz TSC, PADIs from distinct clients of one line at one
 * instant get exactly the line's LOW burst through. The golden lab file, generated from a pod file
 * without a control_policing section, must give punt_params_default(): the defaults of topology/
 * and of bng-dp are the same numbers. EAL as in test_punt (--no-huge, in memory). The last line of
 * output is "N passed, M failed".
 */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "app_init.h"
#include "ctl_frames.h"
#define HARNESS_EAL
#include "harness.h"

#define HZ 1000000000ull /* synthetic TSC: 1 tick = 1 ns */
#define T0 (1000ull * HZ)

static const uint8_t BCAST[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

static struct rte_mempool *pool;
static struct rte_ring *ring;

/* Every field of the two parameter sets the same (no memcmp: padding). */
static bool
params_equal(const struct punt_params *a, const struct punt_params *b)
{
	for (int c = 0; c < PUNT_NUM_CLASSES; c++)
		if (a->mac[c].rate != b->mac[c].rate || a->mac[c].burst != b->mac[c].burst ||
		    a->line[c].rate != b->line[c].rate || a->line[c].burst != b->line[c].burst ||
		    a->ring_pct[c] != b->ring_pct[c])
			return false;
	return a->mac_buckets == b->mac_buckets && a->redirect == b->redirect &&
	       a->tsc_hz == b->tsc_hz && a->hash_seed == b->hash_seed;
}

static bool
class_is(const struct punt_params *p, int c, uint32_t mrate, uint32_t mburst, uint32_t lrate,
	 uint32_t lburst, uint8_t pct)
{
	return p->mac[c].rate == mrate && p->mac[c].burst == mburst && p->line[c].rate == lrate &&
	       p->line[c].burst == lburst && p->ring_pct[c] == pct;
}

/* The fixture at dir/lab_dp4.ini with its [punt] section replaced by punt, written to path. */
static int
write_variant(const char *dir, const char *path, const char *punt)
{
	static char text[1 << 16];
	char fixture[4096];
	const char *at, *end;
	size_t n;
	FILE *f;

	snprintf(fixture, sizeof(fixture), "%s/lab_dp4.ini", dir);
	f = fopen(fixture, "r");
	if (f == NULL)
		return -1;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	at = strstr(text, "\n[punt]\n");
	if (at == NULL)
		return -1;
	end = strstr(at + 1, "\n[");
	if (end == NULL)
		return -1;
	f = fopen(path, "w");
	if (f == NULL)
		return -1;
	fwrite(text, 1, (size_t)(at + 1 - text), f);
	fputs(punt, f);
	fputs(end + 1, f);
	return fclose(f);
}

static bool
load(const char *what, const char *path, struct dp_config *cfg)
{
	char err[256];

	if (dp_config_load(path, cfg, err, sizeof(err)) != 0) {
		printf("FAIL %s: %s: %s\n", what, path, err);
		n_failed++;
		return false;
	}
	return true;
}

/*
 * A punt stage from cfg's parameters: how many of n PADIs, each from its own
 * client on the fixture's line 0, offered at one instant, it admits.
 */
static unsigned int
padis_admitted(const char *what, const struct dp_config *cfg, unsigned int n)
{
	struct cls_counters cc = {0};
	struct line_map *lmap = calloc(1, sizeof(*lmap));
	struct punt_params prm;
	struct punt_counters pc;
	unsigned int admitted = 0;
	char err[256] = "out of memory";
	struct punt *p;

	if (lmap == NULL || line_map_build(lmap, cfg, err, sizeof(err)) != 0) {
		CHECKF(false, "%s: line map: %s", what, err);
		free(lmap);
		return 0;
	}
	app_punt_params(cfg, &prm);
	prm.tsc_hz = HZ;
	p = punt_create(&prm, ring, SOCKET_ID_ANY);
	CHECKF(p != NULL, "%s: punt stage created", what);
	for (unsigned int i = 0; p != NULL && i < n; i++) {
		uint8_t f[128], mac[6] = {0x02, 0x42, 0, 0, (uint8_t)(i >> 8), (uint8_t)i};
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		struct cls_result r;
		size_t len;

		len = ctl_disc_frame(f, BCAST, mac, 0x88a8, LAB_LINE0_STAG, LAB_LINE0_CTAG,
				     CLS_PADI, 0, 8);
		if (m == NULL || classify_frame(lmap, f, (uint32_t)len, &r, &cc) == CLS_DROP) {
			CHECKF(false, "%s: PADI %u classified", what, i);
			rte_pktmbuf_free(m);
			break;
		}
		memcpy(rte_pktmbuf_append(m, (uint16_t)len), f, len);
		if (punt_enqueue(p, m, &r, T0) != 0) {
			rte_pktmbuf_free(m);
			continue;
		}
		/* The control thread's part: the ring never fills, only the buckets count. */
		admitted++;
		if (rte_ring_sc_dequeue(ring, (void **)&m) == 0)
			rte_pktmbuf_free(m);
	}
	if (p != NULL) {
		punt_counters_get(p, &pc);
		CHECKF(pc.c[PUNT_LOW][PUNT_ADMITTED] == admitted &&
			       pc.c[PUNT_LOW][PUNT_POLICED_LINE] == n - admitted,
		       "%s: the refused PADIs are counted low_policed_line", what);
	}
	punt_free(p);
	free(lmap);
	return admitted;
}

static void
test_fixture_defaults(const char *dir, struct dp_config *cfg)
{
	struct punt_params got, def;
	char path[4096];

	snprintf(path, sizeof(path), "%s/lab_dp4.ini", dir);
	if (!load("fixture", path, cfg))
		return;
	punt_params_default(&def);
	app_punt_params(cfg, &got);
	CHECKF(params_equal(&got, &def), "lab fixture ([punt] at the defaults): the defaults");
}

/* Each [punt] value of cfg its own number: each must land in its class and bucket. */
static void
test_every_value(struct dp_config *cfg)
{
	static const int cls[DP_PUNT_CLASSES] = {
		[DP_PUNT_HIGH] = PUNT_HIGH,
		[DP_PUNT_MID] = PUNT_MID,
		[DP_PUNT_LOW] = PUNT_LOW,
	};
	struct punt_params got, def;

	for (uint32_t c = 0; c < DP_PUNT_CLASSES; c++) {
		uint32_t v = 10 * (c + 1);

		cfg->punt.cls[c] =
			(struct dp_punt_class_cfg){{v + 1, v + 2}, {v + 3, v + 4}, v + 5};
	}
	app_punt_params(cfg, &got);
	for (uint32_t c = 0; c < DP_PUNT_CLASSES; c++) {
		uint32_t v = 10 * (c + 1);

		CHECKF(class_is(&got, cls[c], v + 1, v + 2, v + 3, v + 4, (uint8_t)(v + 5)),
		       "every value: %s", dp_punt_class_names[c]);
	}
	punt_params_default(&def);
	CHECKF(got.mac_buckets == def.mac_buckets && got.redirect == PUNT_REDIRECT_ALL &&
		       got.tsc_hz == 0 && got.hash_seed == 0,
	       "every value: the rest as punt_params_default()");
}

/* A [punt] section (NULL: the fixture's, the defaults) and what a stage built from it admits. */
struct burst_case {
	const char *name;
	const char *punt;
	unsigned int offered;
	unsigned int admitted;
};

static const struct burst_case burst_cases[] = {
	{"defaults: LOW line burst 400", NULL, 500, 400},
	{"LOW line burst 3", "[punt]\nlow_line_rate = 1\nlow_line_burst = 3\n", 20, 3},
	/* bench.yaml (topology/examples): one line's 2,500 subscribers at once */
	{"LOW line burst 5000", "[punt]\nlow_line_rate = 2500\nlow_line_burst = 5000\n", 2500,
	 2500},
};

static void
test_bursts(const char *build, struct dp_config *cfg, const char *dir)
{
	char path[4096];

	for (size_t i = 0; i < RTE_DIM(burst_cases); i++) {
		const struct burst_case *c = &burst_cases[i];

		if (c->punt == NULL)
			snprintf(path, sizeof(path), "%s/lab_dp4.ini", dir);
		else
			snprintf(path, sizeof(path), "%s/app_punt_%zu.ini", build, i);
		if ((c->punt != NULL && write_variant(dir, path, c->punt) != 0) ||
		    !load(c->name, path, cfg)) {
			CHECKF(false, "%s: variant written and loaded", c->name);
			continue;
		}
		CHECKF(padis_admitted(c->name, cfg, c->offered) == c->admitted,
		       "%s: %u of %u PADIs of one line at one instant", c->name, c->admitted,
		       c->offered);
	}
}

static void
test_golden(struct dp_config *cfg)
{
	const char *root = getenv("DP_GOLDEN_ROOT");
	struct punt_params got, def;
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/lab/dp/dp1.ini", root ? root : "");
	if (root == NULL || root[0] == '\0' || (f = fopen(path, "r")) == NULL) {
		printf("skip golden: no %s\n", path);
		return;
	}
	fclose(f);
	if (!load("golden", path, cfg))
		return;
	punt_params_default(&def);
	app_punt_params(cfg, &got);
	CHECKF(params_equal(&got, &def),
	       "golden lab dp1.ini (pod defaults) = punt_params_default()");
}

int
main(int argc, char **argv)
{
	struct dp_config *cfg;

	if (argc < 3) {
		fprintf(stderr, "usage: %s FIXTURE_DIR BUILD_DIR\n", argv[0]);
		return 2;
	}
	if (harness_eal_init(argv[0]) != 0)
		return 1;
	cfg = calloc(1, sizeof(*cfg));
	pool = rte_pktmbuf_pool_create("app_punt", 8191, 0, 0, 256, SOCKET_ID_ANY);
	ring = rte_ring_create("app_punt", 4096, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (cfg == NULL || pool == NULL || ring == NULL) {
		printf("FAIL set-up: no memory\n0 passed, 1 failed\n");
		return 1;
	}
	test_fixture_defaults(argv[1], cfg);
	test_every_value(cfg);
	test_bursts(argv[2], cfg, argv[1]);
	test_golden(cfg);
	rte_ring_free(ring);
	rte_mempool_free(pool);
	free(cfg);
	rte_eal_cleanup();
	return harness_report();
}

/*
 * bng-dp worker loop (worker.h).
 */

#include <time.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "worker.h"

const char *const app_drop_names[APP_DROP_MAX] = {
	[APP_DROP_NO_SESSION_DOWN] = "no_session_down",
	[APP_DROP_SPOOF] = "spoofed_source",
	[APP_DROP_REWRITE] = "rewrite",
	[APP_DROP_TX] = "tx_full",
	[APP_DROP_IPOE] = "ipoe_not_forwarded",
	[APP_DROP_IPV6] = "ipv6_not_forwarded",
	[APP_DROP_PUNT] = "punt",
	[APP_DROP_NO_ROUTE] = "no_route",
	[APP_DROP_TTL] = "ttl_expired",
};

static void
idle_sleep(uint32_t us)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)us * 1000};

	nanosleep(&ts, NULL);
}

static uint16_t
tx_burst(struct app *a, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t sent = rte_eth_tx_burst(a->port_id, 0, pkts, n);

	a->wstats.tx_pkts += sent;
	if (sent < n) {
		a->wstats.drop[APP_DROP_TX] += n - sent;
		rte_pktmbuf_free_bulk(&pkts[sent], n - sent);
	}
	return sent;
}

static void
process_burst(struct app *a, struct rte_mbuf **pkts, uint16_t n)
{
	struct cls_result res[APP_BURST];
	struct app_worker_stats *w = &a->wstats;

	classify_burst(a->lmap, pkts, n, res, &w->cls);
	rte_pktmbuf_free_bulk(pkts, n);
}

int
worker_main(void *arg)
{
	struct app *a = arg;
	struct rte_mbuf *pkts[APP_BURST];
	uint16_t n, k;

	session_worker_register(a->sessions, 0);
	while (!a->stop) {
		n = rte_eth_rx_burst(a->port_id, 0, pkts, APP_BURST);
		if (n > 0) {
			a->wstats.rx_pkts += n;
			a->wstats.rx_bursts++;
			process_burst(a, pkts, n);
		}
		k = (uint16_t)rte_ring_sc_dequeue_burst(a->inject_ring, (void **)pkts, APP_BURST,
							NULL);
		if (k > 0)
			tx_burst(a, pkts, k);
		session_worker_quiescent(a->sessions, 0);
		if (n == 0 && k == 0 && a->opts.idle_sleep_us > 0) {
			a->wstats.idle_sleeps++;
			idle_sleep(a->opts.idle_sleep_us);
		}
	}
	session_worker_unregister(a->sessions, 0);
	return 0;
}

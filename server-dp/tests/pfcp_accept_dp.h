/*
 * A data path for the PFCP user-plane function (pfcp_up.h) that accepts
 * everything: every install gets handle 0, modifications and removals
 * succeed, every session's counters are accept_dp_usage, redirects are
 * taken. For the programs that look at what the UP function sends, not at
 * what it installs (pfcp-encode-samples, test_app_pfcp).
 */
#ifndef BNG_TESTS_PFCP_ACCEPT_DP_H
#define BNG_TESTS_PFCP_ACCEPT_DP_H

#include <stdint.h>

#include "pfcp_up.h"

static struct up_usage accept_dp_usage = {
	.ul_pkts = 10, .ul_bytes = 1000, .dl_pkts = 50, .dl_bytes = 5000};

static int
accept_dp_install(void *ctx, const struct up_sub *s, uint32_t *h)
{
	(void)ctx;
	(void)s;
	*h = 0;
	return 0;
}

static int
accept_dp_modify(void *ctx, uint32_t *h, const struct up_sub *s, uint32_t changed)
{
	(void)ctx;
	(void)h;
	(void)s;
	(void)changed;
	return 0;
}

static void
accept_dp_remove(void *ctx, uint32_t h)
{
	(void)ctx;
	(void)h;
}

static void
accept_dp_usage_get(void *ctx, uint32_t h, struct up_usage *out)
{
	(void)ctx;
	(void)h;
	*out = accept_dp_usage;
}

static void
accept_dp_redirect(void *ctx, const struct up_redirect *r)
{
	(void)ctx;
	(void)r;
}

static const struct pfcp_up_ops accept_dp_ops = {
	.install = accept_dp_install,
	.modify = accept_dp_modify,
	.remove = accept_dp_remove,
	.usage = accept_dp_usage_get,
	.redirect = accept_dp_redirect,
};

#endif /* BNG_TESTS_PFCP_ACCEPT_DP_H */

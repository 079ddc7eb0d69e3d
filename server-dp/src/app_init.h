/*
 * bng-dp: building and releasing one instance's tables, shared by the process
 * (main.c) and the benchmark (bench/bench_dp.c).
 *
 * app_init() loads a->opts.config_path (refused as a whole on any error),
 * builds the line map, the session tables, the packet pool, the punt, ARP and
 * inject rings and every stage (HQoS, policers, ARP table, routes, ACL, punt
 * policer as [punt] says, LCP offload, fragmentation pools, ICMP state, worker
 * state) and the PFCP user-plane function. It needs the EAL, not a port. app_fini()
 * releases all of it, frames left in rings included; the worker must be
 * stopped.
 */
#ifndef BNG_APP_INIT_H
#define BNG_APP_INIT_H

#include <stddef.h>

#include "app.h"

/* 0, or -1 with a one-line message in err. */
int app_init(struct app *a, char *err, size_t errlen);
void app_fini(struct app *a);

/*
 * The PFCP user-plane function's configuration for an instance loaded in
 * cfg: node and CP addresses, the CP's PFCP port (our requests go there:
 * heartbeats, usage and LCP dead reports), the features bngpod announces,
 * capacity for sessions plus the default session, and the static redirect
 * fallback to the CP's VXLAN port. start_time is the Recovery Time Stamp
 * (Unix seconds), wall_offset_ms the wall clock minus control_now_ms().
 */
void app_pfcp_conf(const struct dp_config *cfg, uint32_t sessions, uint64_t start_time,
		   int64_t wall_offset_ms, struct pfcp_up_conf *uc);

/*
 * The punt policer's parameters for an instance loaded in cfg: the buckets
 * and ring thresholds of its [punt] section (the loader has filled in the
 * defaults of absent keys), the rest as punt_params_default().
 */
void app_punt_params(const struct dp_config *cfg, struct punt_params *p);

#endif /* BNG_APP_INIT_H */

/*
 * bng-dp: building and releasing one instance's tables, shared by the process
 * (main.c) and the benchmark (bench/bench_dp.c).
 *
 * app_init() loads a->opts.config_path (refused as a whole on any error),
 * builds the line map, the session tables, the packet pool, the punt, ARP and
 * inject rings and every stage (HQoS, policers, ARP table, routes, ACL, punt
 * policer, LCP offload, fragmentation pools, ICMP state, worker state) and
 * the PFCP user-plane function. It needs the EAL, not a port. app_fini()
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

#endif /* BNG_APP_INIT_H */

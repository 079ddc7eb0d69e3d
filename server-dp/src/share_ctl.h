/*
 * bng-dp control thread: the exchange that shares one access port's rate with
 * the other instances shaping it (docs/dp/hqos.md, "Sharing an access port
 * across instances"). Configured by `--qos-share FILE`; without it every
 * function here does nothing.
 *
 * Every interval_ms: measure this instance's demand and served rate from
 * counters the worker keeps anyway (HQoS access port counters, dequeued wire
 * bytes), send a report to each peer over UDP from the control address, divide
 * the port's rate from the reports held (share.h) and apply this instance's
 * rate with hqos_access_port_rate_set(). Nothing here runs on the worker.
 * Telemetry: /bng/qos_share.
 */
#ifndef BNG_SHARE_CTL_H
#define BNG_SHARE_CTL_H

#include <stddef.h>
#include <stdint.h>

#include "share_conf.h"

struct app;

/* Control thread. init: load a->opts.qos_share_path (if any), open the socket,
 * set the static share, register /bng/qos_share; 0 or -1 with a message on
 * stderr. tick: every control loop turn. fini: write the trace, close. */
int share_ctl_init(struct app *a);
void share_ctl_tick(struct app *a);
void share_ctl_fini(struct app *a);

#endif /* BNG_SHARE_CTL_H */

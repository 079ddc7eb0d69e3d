/*
 * bng-dp control thread: the exchanges that share port rates with the other
 * instances (docs/dp/hqos.md, "Sharing an access port across instances" and
 * "Sharing a server port"). Configured by `--qos-share FILE`, one [qos_share]
 * section per group: an access port this instance shapes (its subports), or
 * the server port its VF sits on (its port pacer). Without the option every
 * function here does nothing.
 *
 * Per group, every interval_ms: measure this instance's demand and served
 * rate from counters the worker keeps anyway (HQoS access port or total
 * counters, dequeued wire bytes), send a report to each peer over UDP from the
 * control address (one socket for all groups), divide the port's rate from
 * the reports held (share.h) and apply this instance's rate with
 * hqos_access_port_rate_set() or hqos_port_rate_set(). Nothing here runs on
 * the worker. Telemetry: /bng/qos_share,GROUP.
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

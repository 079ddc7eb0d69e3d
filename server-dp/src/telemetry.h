/*
 * bng-dp telemetry: /bng/... commands on the DPDK telemetry socket
 * (dpdk-telemetry.py, or any client of <runtime dir>/dpdk_telemetry.v2).
 *
 *   /bng/stats     worker counters: rx/tx, forwarded each way, drops by reason
 *                  (classifier and later stages), routes, ACL, ICMP, fragments
 *   /bng/sessions  session counts, install refusals by reason and the ids of
 *                  live sessions; with a session id or ipv4=A.B.C.D: that
 *                  session's keys, QoS, HQoS pipe, LCP offload and counters
 *   /bng/hqos      HQoS memory, packets and drops by traffic class for the
 *                  port, totals per access port, worker counters
 *   /bng/arp       the core-side ARP table and its counters (neigh.h)
 *   /bng/punt      control frames: redirect target, punt policer by class and
 *                  reason, VXLAN both ways, CP frames refused, LCP offload
 *   /bng/pfcp      the PFCP user-plane function: association state, messages,
 *                  sessions, rejections by cause
 *
 * Callbacks run on DPDK's telemetry thread. They read counters the worker
 * writes with plain aligned 64-bit stores, which x86-64 never tears, and the
 * session slots, which the control thread changes only under RCU (session.h),
 * and control-thread counters the same way; a reading can therefore be a few
 * packets old, never garbage.
 */
#ifndef BNG_TELEMETRY_H
#define BNG_TELEMETRY_H

#include "app.h"

/* Register every /bng/ command for a; 0, or -1 with a message on stderr. */
#include <rte_telemetry.h>

int telemetry_register(struct app *a);

/* A telemetry command's body; telemetry_call() runs it only while the app is open. */
typedef int (*telemetry_cmd_fn)(const char *cmd, const char *params, struct rte_tel_data *d);
int telemetry_call(telemetry_cmd_fn fn, const char *cmd, const char *params,
		   struct rte_tel_data *d);

/* Before the app is torn down: commands asked from then on answer an error. */
void telemetry_close(void);

#endif /* BNG_TELEMETRY_H */

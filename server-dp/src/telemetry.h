/*
 * bng-dp telemetry: /bng/... commands on the DPDK telemetry socket
 * (dpdk-telemetry.py, or any client of <runtime dir>/dpdk_telemetry.v2).
 *
 *   /bng/stats     worker counters: rx/tx, forwarded each way, drops by reason
 *                  (classifier and later stages), idle sleeps
 *   /bng/sessions  session count and capacity; with a parameter (session id)
 *                  that session's keys and counters
 *
 * Callbacks run on DPDK's telemetry thread. They read counters the worker
 * writes with plain aligned 64-bit stores, which x86-64 never tears, and the
 * session slots, which the control thread changes only under RCU (session.h);
 * a reading can therefore be a few packets old, never garbage.
 */
#ifndef BNG_TELEMETRY_H
#define BNG_TELEMETRY_H

#include "app.h"

/* Register every /bng/ command for a; 0, or -1 with a message on stderr. */
int telemetry_register(struct app *a);

#endif /* BNG_TELEMETRY_H */

/*
 * bng-dp control thread (EAL main lcore).
 *
 * Owns the management-side sockets, bound to the instance's control address
 * on the kernel management interface (never the DPDK data port):
 *   PFCP   UDP [instance] pfcp_port (8805): the user-plane function;
 *   VXLAN  UDP [instance] vxlan_port (4789): control frames to and from the CP.
 * Datagrams from any address other than [instance] cp_address are dropped and
 * counted before any parsing.
 *
 * The loop waits in epoll for at most CONTROL_TICK_MS, then drains the punt
 * ring towards the CP and runs the timers (PFCP heartbeats and usage reports,
 * ARP retries and age-out, LCP echoes). It is the only writer of every table
 * the worker reads.
 */
#ifndef BNG_CONTROL_H
#define BNG_CONTROL_H

#include "app.h"

#define CONTROL_TICK_MS 1

/* Open and bind the sockets; 0, or -1 with a message on stderr. */
int control_init(struct app *a);
/* Serve until a->stop; then return. */
void control_run(struct app *a);
/* Close the sockets and release what control_init() took. */
void control_fini(struct app *a);

#endif /* BNG_CONTROL_H */

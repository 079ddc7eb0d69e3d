/*
 * bng-dp worker: the run-to-completion loop of one lcore.
 *
 * Each iteration: receive a burst on the data port, classify it
 * (classify.h), run the stages of each kind, transmit; then transmit what
 * the control thread queued on the inject ring. When an iteration finds
 * nothing to do and --idle-sleep-us is set, the worker sleeps that long (the
 * only system call it makes, and only when idle). At the end of every
 * iteration it reports a quiescent state to the session tables' RCU.
 */
#ifndef BNG_WORKER_H
#define BNG_WORKER_H

#include "app.h"

/* lcore entry point (rte_eal_remote_launch); arg is the struct app. */
int worker_main(void *arg);

#endif /* BNG_WORKER_H */

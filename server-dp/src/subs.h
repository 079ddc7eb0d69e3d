/*
 * bng-dp subscriber manager: what a PFCP session becomes in the data path.
 *
 * The PFCP user-plane function (pfcp_up.h) decodes and validates the CP's
 * messages into a flat struct up_sub; this module, on the control thread,
 * turns one into the worker's state and back (the struct pfcp_up_ops):
 *   line        (S-tag, C-tag) must be a line of this instance, on the access
 *               port named by the BBF Logical Port when one is given;
 *   address     inside one of the line group's pool prefixes;
 *   QoS profile the FAR's Forwarding Policy names it, else the line group's;
 *   HQoS pipe   allocated first, at the QER's MBR downlink (else the
 *               profile's rate), on the line's access port (hqos.h);
 *   policer     PIR = MBR uplink, CIR = GBR uplink (else the profile's),
 *               written for the id the session will get, before it exists;
 *   session     session_add() publishes it to the worker with its pipe and
 *               MTU (session.h);
 *   LCP         echo offload when the session carries PPP LCP Connectivity.
 * Any failure undoes the steps before it: a session is installed whole or not
 * at all. The PFCP handle of a session is its session id.
 *
 * Line groups (bngpod Line Group IE): an adoption checks the group against
 * the served ones (dp_config_adopt_check()), waits for a grace period so no
 * worker still uses the group's old values, takes the IE's AC MAC, core MAC
 * and core address, marks the group served and publishes a new line map and
 * the ARP table's addresses; a release marks it standby and publishes the
 * same way, then pfcp_up removes its sessions (ops->served says which).
 *
 * Modification: rates, QoS profile and LCP settings change in place (HQoS
 * pipe profile through the worker's command ring, the policer through its
 * sequence count, the profile index with one atomic store). A change of the
 * keys or the MTU, which the worker reads without synchronisation, installs a
 * new session and removes the old one: the handle changes, and the usage
 * counters start again from zero.
 */
#ifndef BNG_SUBS_H
#define BNG_SUBS_H

#include "app.h"
#include "pfcp_up.h"

/* The operations table handed to pfcp_up_create(); ctx is the struct app. */
extern const struct pfcp_up_ops subs_ops;

/* Installs refused, by reason; control thread writes, telemetry reads. */
struct subs_stats {
	uint64_t installed;
	uint64_t removed;
	uint64_t modified;
	uint64_t readded;	  /* modifications that changed keys or MTU */
	uint64_t refused_line;	  /* no line of ours, or another access port */
	uint64_t refused_address; /* outside the line group's pools */
	uint64_t refused_qos;	  /* unknown Forwarding Policy */
	uint64_t refused_mtu;
	uint64_t refused_type; /* the line group does not allow the session's type (PPPoE/IPoE) */
	uint64_t refused_pipe; /* no HQoS pipe, or a rate HQoS cannot give */
	uint64_t refused_session; /* session tables refused (duplicate key or address, full);
				   * for IPoE a second session of one (line, MAC) */
	uint64_t lg_adopted;	  /* line groups that became served */
	uint64_t lg_released;	  /* line groups that became standby */
	uint64_t lg_refused;	  /* adoptions / releases refused (unknown group, conflict) */
};

extern struct subs_stats subs_stats;

#endif /* BNG_SUBS_H */

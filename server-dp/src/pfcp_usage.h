/*
 * Usage measurement of a PFCP session's URRs (part of the user-plane
 * function, pfcp_up.h; docs/dp/pfcp.md "Usage reporting").
 *
 * The data path keeps cumulative counters per session (struct up_usage,
 * ops->usage()); a URR measures differences of them. struct up_meas is the
 * state of one URR between two reports: the counters at the last report
 * (base), the usage of reports the CP never acknowledged (carry, added to
 * the next one), the report sequence number, the interval's start and the
 * next periodic report. The data path's counters are arrays of UP_NC (IPv4
 * then IPv6, UP_C_* each); a URR's usage is an array of 4 indexed by UP_C_*,
 * the sum of the families and directions it measures.
 *
 * Plain C, control thread, no allocation, no I/O.
 */

#ifndef BNG_PFCP_USAGE_H
#define BNG_PFCP_USAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "pfcp.h"
#include "pfcp_rules.h"

#define UP_C_UL_PKTS 0
#define UP_C_UL_BYTES 1
#define UP_C_DL_PKTS 2
#define UP_C_DL_BYTES 3
/* The data path's counters are per family: UP_C_* of IPv4, then UP_C_V6 + UP_C_* of IPv6,
 * then the session's dropped packets (both families), upstream and downstream, then their
 * octets, upstream and downstream. */
#define UP_C_V6 4
#define UP_C_DROPS 8
#define UP_C_DROP_BYTES 10
#define UP_NC 12
/* A URR's usage (d[UP_ND]): UP_C_* (0-3), then the dropped packets, then their octets. */
#define UP_D_UL_DROPS 4
#define UP_D_DL_DROPS 5
#define UP_D_UL_DROP_BYTES 6
#define UP_D_DL_DROP_BYTES 7
#define UP_ND 8

/* Measurement state of one URR, parallel to up_rules.urr[]. */
struct up_meas {
	uint32_t seqn;
	uint32_t start_ntp;
	uint64_t next_ms;
	uint64_t base[UP_NC];  /* counters at the last report */
	uint64_t carry[UP_ND]; /* usage of reports never acknowledged */
	uint8_t dirs;	       /* UP_DIR_*: families and directions of the PDRs that name it,
				* UP_DIR_ALL when every PDR of the session names it */
};

/* A new measurement of URR q from counters cur, at now (NTP seconds and ms). */
void up_meas_init(struct up_meas *ms, const struct up_urr *q, const uint64_t cur[UP_NC],
		  uint32_t now_ntp, uint64_t now_ms);

/*
 * Usage since the last report (carry included), by counter, of the
 * directions the URR measures; the session's dropped packets and octets only for a URR
 * every PDR names (UP_DIR_ALL), else 0. A counter below its base restarted
 * (the data path re-added the session): it counts from 0.
 */
void up_urr_delta(const struct up_meas *ms, const uint64_t cur[UP_NC], uint64_t d[UP_ND]);

/* Has usage d reached one of q's volume thresholds? */
bool up_urr_volume_due(const struct up_urr *q, const uint64_t d[UP_ND]);

/*
 * Fill Usage Report r (IE type ie_type, trigger PFCP_URT_*) for URR q with
 * its usage since the last report (a volume-measuring URR that every PDR
 * names also carries the session's dropped packets and their octets, the
 * bngpod Dropped Packets IE), then start a new interval at now_ntp. d_out (may be NULL)
 * gets the usage reported, by counter.
 */
void up_urr_report(struct up_meas *ms, const struct up_urr *q, const uint64_t cur[UP_NC],
		   uint32_t trigger, uint16_t ie_type, uint32_t now_ntp,
		   struct pfcp_usage_report *r, uint64_t d_out[UP_ND]);

#endif /* BNG_PFCP_USAGE_H */

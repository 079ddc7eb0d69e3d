/*
 * Usage measurement of a PFCP session's URRs (pfcp_usage.h).
 */

#include <string.h>

#include "pfcp_usage.h"

void
up_meas_init(struct up_meas *ms, const struct up_urr *q, const uint64_t cur[UP_NC],
	     uint32_t now_ntp, uint64_t now_ms)
{
	memset(ms, 0, sizeof(*ms));
	memcpy(ms->base, cur, sizeof(ms->base));
	ms->start_ntp = now_ntp;
	if ((q->triggers & PFCP_RT_PERIO) && q->period)
		ms->next_ms = now_ms + (uint64_t)q->period * 1000;
}

static uint64_t
since(const uint64_t cur[UP_NC], const uint64_t base[UP_NC], int c)
{
	/* a counter below its base restarted (the data path re-added the session) */
	return cur[c] >= base[c] ? cur[c] - base[c] : cur[c];
}

void
up_urr_delta(const struct up_meas *ms, const uint64_t cur[UP_NC], uint64_t d[UP_ND])
{
	for (int k = 0; k < 4; k++) {
		d[k] = ms->carry[k];
		for (int f = 0; f < 2; f++) {
			uint8_t bit = (k < 2) ? (f ? UP_DIR_UL6 : UP_DIR_UL)
					      : (f ? UP_DIR_DL6 : UP_DIR_DL);
			if (ms->dirs & bit)
				d[k] += since(cur, ms->base, k + f * UP_C_V6);
		}
	}
	d[UP_D_UL_DROPS] = ms->carry[UP_D_UL_DROPS];
	d[UP_D_DL_DROPS] = ms->carry[UP_D_DL_DROPS];
	d[UP_D_UL_DROP_BYTES] = ms->carry[UP_D_UL_DROP_BYTES];
	d[UP_D_DL_DROP_BYTES] = ms->carry[UP_D_DL_DROP_BYTES];
	if (ms->dirs & UP_DIR_ALL) {
		d[UP_D_UL_DROPS] += since(cur, ms->base, UP_C_DROPS);
		d[UP_D_DL_DROPS] += since(cur, ms->base, UP_C_DROPS + 1);
		d[UP_D_UL_DROP_BYTES] += since(cur, ms->base, UP_C_DROP_BYTES);
		d[UP_D_DL_DROP_BYTES] += since(cur, ms->base, UP_C_DROP_BYTES + 1);
	}
}

bool
up_urr_volume_due(const struct up_urr *q, const uint64_t d[UP_ND])
{
	return ((q->vol_flags & PFCP_VOL_TOVOL) &&
		d[UP_C_UL_BYTES] + d[UP_C_DL_BYTES] >= q->vol_thresh[0]) ||
	       ((q->vol_flags & PFCP_VOL_ULVOL) && d[UP_C_UL_BYTES] >= q->vol_thresh[1]) ||
	       ((q->vol_flags & PFCP_VOL_DLVOL) && d[UP_C_DL_BYTES] >= q->vol_thresh[2]);
}

void
up_urr_report(struct up_meas *ms, const struct up_urr *q, const uint64_t cur[UP_NC],
	      uint32_t trigger, uint16_t ie_type, uint32_t now_ntp, struct pfcp_usage_report *r,
	      uint64_t d_out[UP_ND])
{
	uint64_t d[UP_ND];

	up_urr_delta(ms, cur, d);
	memset(r, 0, sizeof(*r));
	r->ie_type = ie_type;
	r->present = PFCP_UR_URR_ID | PFCP_UR_SEQN | PFCP_UR_TRIGGER | PFCP_UR_START | PFCP_UR_END;
	r->urr_id = q->id;
	r->seqn = ms->seqn++;
	r->trigger = trigger;
	r->start_time = ms->start_ntp;
	r->end_time = now_ntp;
	if (q->method & PFCP_METHOD_VOLUM) {
		r->present |= PFCP_UR_VOLUME;
		r->vol.flags = 0x3f;
		r->vol.ul = d[UP_C_UL_BYTES];
		r->vol.dl = d[UP_C_DL_BYTES];
		r->vol.total = d[UP_C_UL_BYTES] + d[UP_C_DL_BYTES];
		r->vol.ul_pkts = d[UP_C_UL_PKTS];
		r->vol.dl_pkts = d[UP_C_DL_PKTS];
		r->vol.total_pkts = d[UP_C_UL_PKTS] + d[UP_C_DL_PKTS];
		if (ms->dirs & UP_DIR_ALL) {
			r->present |= PFCP_UR_DROPPED | PFCP_UR_DROPPED_BYTES;
			r->dropped_ul = d[UP_D_UL_DROPS];
			r->dropped_dl = d[UP_D_DL_DROPS];
			r->dropped_ul_bytes = d[UP_D_UL_DROP_BYTES];
			r->dropped_dl_bytes = d[UP_D_DL_DROP_BYTES];
		}
	}
	if (q->method & PFCP_METHOD_DURAT) {
		r->present |= PFCP_UR_DURATION;
		r->duration = now_ntp >= ms->start_ntp ? now_ntp - ms->start_ntp : 0;
	}
	if (d_out != NULL)
		memcpy(d_out, d, sizeof(d));
	memcpy(ms->base, cur, sizeof(ms->base));
	memset(ms->carry, 0, sizeof(ms->carry));
	ms->start_ntp = now_ntp;
}

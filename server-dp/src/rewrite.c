/*
 * Header templates of the rewrite stage (rewrite.h), built on the control
 * thread when a session comes up or a next hop is resolved.
 */

#include <errno.h>
#include <string.h>

#include "rewrite.h"

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

int
rw_encap_tmpl_init(struct rw_encap_tmpl *t, const uint8_t sub_mac[6], const uint8_t ac_mac[6],
		   uint16_t tpid, uint16_t stag, uint16_t ctag, uint16_t sid)
{
	uint8_t *h = t->hdr;

	memset(t, 0, sizeof(*t));
	if ((tpid != CLS_ETH_VLAN && tpid != CLS_ETH_QINQ) || stag < 1 || stag > 4094 || ctag < 1 ||
	    ctag > 4094 || sid == 0 || sid == 0xffff)
		return -EINVAL;
	memcpy(h, sub_mac, 6);
	memcpy(h + 6, ac_mac, 6);
	put16(h + 12, tpid);
	put16(h + RW_STAG_TCI_OFF, stag); /* PCP 0: patched per packet */
	put16(h + 16, CLS_ETH_VLAN);
	put16(h + RW_CTAG_TCI_OFF, ctag);
	put16(h + 20, CLS_ETH_PPPOE_SESS);
	h[22] = 0x11; /* version 1, type 1 */
	h[23] = 0;    /* code: session data */
	put16(h + 24, sid);
	put16(h + RW_PPPOE_LEN_OFF, 0); /* patched per packet */
	put16(h + 28, CLS_PPP_IPV4);
	return 0;
}

int
rw_encap_tmpl_init_ipoe(struct rw_encap_tmpl *t, const uint8_t sub_mac[6], const uint8_t ac_mac[6],
			uint16_t tpid, uint16_t stag, uint16_t ctag)
{
	uint8_t *h = t->hdr;

	memset(t, 0, sizeof(*t));
	if ((tpid != CLS_ETH_VLAN && tpid != CLS_ETH_QINQ) || stag < 1 || stag > 4094 || ctag < 1 ||
	    ctag > 4094)
		return -EINVAL;
	memcpy(h, sub_mac, 6);
	memcpy(h + 6, ac_mac, 6);
	put16(h + 12, tpid);
	put16(h + RW_STAG_TCI_OFF, stag);
	put16(h + 16, CLS_ETH_VLAN);
	put16(h + RW_CTAG_TCI_OFF, ctag);
	put16(h + 20, CLS_ETH_IPV4);
	t->ipoe = 1;
	return 0;
}

int
rw_core_tmpl_init(struct rw_core_tmpl *t, const uint8_t nh_mac[6], const uint8_t core_mac[6],
		  uint16_t vlan)
{
	uint8_t *h = t->hdr;

	memset(t, 0, sizeof(*t));
	if (vlan > 4094)
		return -EINVAL;
	memcpy(h, nh_mac, 6);
	memcpy(h + 6, core_mac, 6);
	if (vlan == 0) {
		put16(h + 12, CLS_ETH_IPV4);
		t->len = 14;
		return 0;
	}
	put16(h + 12, CLS_ETH_VLAN);
	put16(h + 14, vlan);
	put16(h + 16, CLS_ETH_IPV4);
	t->len = 18;
	return 0;
}

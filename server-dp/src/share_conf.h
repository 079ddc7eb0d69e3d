/*
 * The [qos_share] file of `bng-dp --qos-share FILE` (docs/dp/hqos.md,
 * "Sharing an access port across instances"). Plain C and stdio, no EAL.
 */
#ifndef BNG_SHARE_CONF_H
#define BNG_SHARE_CONF_H

#include <stddef.h>
#include <stdint.h>

#include "share.h"

/* The parsed file. */
struct share_conf {
	uint16_t access_port;
	uint16_t share_id;
	uint64_t port_rate; /* bit/s */
	uint32_t self;
	uint32_t n_peers;
	uint32_t peer_addr[SHARE_MAX_PEERS]; /* host order */
	uint16_t peer_port[SHARE_MAX_PEERS];
	uint64_t stat[SHARE_MAX_PEERS]; /* bit/s */
	uint32_t interval_ms;
	uint32_t silent_intervals;
	uint64_t weight;  /* 0: the session count */
	char trace[256];  /* "" : none */
	uint8_t exchange; /* 0: run the static share, send no reports (trace only) */
};

/* Parse a [qos_share] file (plain C, no EAL): 0, or -1 with one line in err
 * naming the line and key. n_access_ports: of the instance, to check
 * access_port. */
int share_conf_load(const char *path, uint16_t n_access_ports, struct share_conf *c, char *err,
		    size_t errlen);

#endif /* BNG_SHARE_CONF_H */

/*
 * The [qos_share] file of `bng-dp --qos-share FILE` (docs/dp/hqos.md,
 * "Sharing an access port across instances"). Plain C and stdio, no EAL.
 */
#ifndef BNG_SHARE_CONF_H
#define BNG_SHARE_CONF_H

#include <stddef.h>
#include <stdint.h>

#include "share.h"

/* What the weight a group reports is. */
enum share_weight {
	SHARE_WEIGHT_GUARANTEED = 0, /* the sessions' GBR DL in kbit/s (default) */
	SHARE_WEIGHT_SESSIONS,	     /* the session count */
	SHARE_WEIGHT_FIXED,	     /* the file's number */
};
#define SHARE_DEFAULT_GBR 1000000u /* bit/s: a session without a GBR DL counts 1 Mbit/s */

/* One [qos_share] section: one sharing group. */
struct share_conf {
	uint8_t kind;	      /* enum share_kind: access_port = N, or server_port = on */
	uint16_t access_port; /* SHARE_KIND_ACCESS */
	uint16_t share_id;
	uint64_t port_rate; /* bit/s */
	uint32_t self;
	uint32_t n_peers;
	uint32_t peer_addr[SHARE_MAX_PEERS]; /* host order */
	uint16_t peer_port[SHARE_MAX_PEERS];
	uint64_t stat[SHARE_MAX_PEERS]; /* bit/s */
	uint32_t interval_ms;
	uint32_t silent_intervals;
	uint8_t weight_mode;  /* enum share_weight */
	uint64_t weight;      /* SHARE_WEIGHT_FIXED */
	uint64_t gbr_default; /* bit/s a session without a GBR DL counts (guaranteed) */
	char trace[256];      /* "" : none */
	uint8_t exchange;     /* 0: run the static share, send no reports (trace only) */
};

/* The parsed file: one section per group. Every section names the same
 * address:port for self (the instance has one socket for all its groups), no
 * two the same access port, at most one server_port, no two the same
 * (kind, share_id). */
struct share_file {
	uint32_t n;
	struct share_conf g[SHARE_MAX_GROUPS];
};

/* Parse a --qos-share file (plain C, no EAL): 0, or -1 with one line in err
 * naming the line and key (or the section). n_access_ports: of the instance,
 * to check access_port. */
int share_conf_load(const char *path, uint16_t n_access_ports, struct share_file *f, char *err,
		    size_t errlen);

#endif /* BNG_SHARE_CONF_H */

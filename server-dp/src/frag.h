/*
 * bng-dp IPv4 fragmentation of downstream packets (worker).
 *
 * A downstream packet longer than the session's PPP MTU (1492 by default,
 * more when the CP sent a BBF MTU IE) is fragmented when DF is clear; with
 * DF set the worker answers ICMP frag-needed instead (icmp.h) and
 * frag_ipv4() refuses it with -EMSGSIZE. The work is DPDK's librte_ip_frag;
 * this module adds the checks, the header checksums (the library leaves
 * them 0 for an offload the DP does not use), the counters and the choice
 * of buffer layout:
 *
 *   FRAG_COPY   rte_ipv4_fragment_copy_nonseg_packet(): every fragment is one
 *               direct mbuf from the direct pool, header and payload copied.
 *               Valid for every PMD. The direct mbufs have RTE_MBUF_DEFAULT_
 *               BUF_SIZE (2048 bytes after the headroom), so a fragment is at
 *               most 2048 bytes: an MTU above that (jumbo access links) gives
 *               more, smaller fragments, still valid on the wire.
 *   FRAG_CHAIN  rte_ipv4_fragment_packet(): a small direct mbuf holds each
 *               fragment's header and indirect mbufs point into the original
 *               payload (no payload copy, two allocations per fragment). Use
 *               it only for a port whose PMD transmits chains, i.e. advertises
 *               RTE_ETH_TX_OFFLOAD_MULTI_SEGS: DPDK 22.11 net_af_packet does
 *               (its TX copies segment by segment into the ring frame) and so
 *               do the SR-IOV VF PMDs, but net_af_xdp does not (its copy-mode
 *               TX copies pkt_len bytes from the first segment only).
 *
 * In both layouts the IPv4 header of each fragment is in its first segment,
 * which has RTE_PKTMBUF_HEADROOM (128) bytes of headroom, more than the 30
 * bytes of QinQ + PPPoE the caller prepends with rte_pktmbuf_prepend().
 *
 * Fragments (RFC 791): payload of every fragment but the last a multiple of
 * 8 bytes, as many bytes as the MTU allows (floor((mtu - IHL * 4) / 8) * 8);
 * offset and MF set from the original (a fragment of a fragment keeps its
 * offset base and its MF in the last piece); id, TOS, TTL, protocol and
 * addresses copied; the first fragment keeps every option, later ones only
 * the options whose copied flag (bit 7 of the type) is set, padded with EOL
 * to a multiple of 4; header checksum recomputed for each fragment.
 *
 * Contract of frag_ipv4(): m holds exactly one IPv4 packet from its first
 * byte (no L2 header), pkt_len equal to the total length, the whole header
 * in the first segment. On success m is consumed (freed, or passed through)
 * and out[0..k) hold k >= 1 packets; a packet that already fits is returned
 * as out[0] = m, k = 1, untouched. On failure m is untouched and still the
 * caller's, out[] holds nothing to free:
 *   -EINVAL    not an IPv4 packet as above, or mtu below 68 (RFC 791) or
 *              below the header length + 8;
 *   -EMSGSIZE  longer than mtu and DF set (send ICMP frag-needed);
 *   -E2BIG     would need more than max fragments;
 *   -ENOMEM    a pool ran out (whatever the library had allocated is freed).
 * Each call is counted in *c.
 */

#ifndef BNG_FRAG_H
#define BNG_FRAG_H

#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#define FRAG_MIN_MTU 68		 /* RFC 791: every module forwards 68 bytes unfragmented */
#define FRAG_HEADROOM_NEEDED 30	 /* QinQ + PPPoE, rw_encap_pppoe() */
#define FRAG_MAX_FRAGMENTS 64	 /* a sensible bound for out[] */
#define FRAG_DEFAULT_MBUFS 1024u /* frag_pools_create() n = 0 */

enum frag_mode {
	FRAG_COPY,  /* single-segment fragments, payload copied */
	FRAG_CHAIN, /* header mbuf + indirect payload mbufs */
};

/* What frag_ipv4() did, with telemetry names: frag.def. */
enum frag_result {
#define FRAG_RESULT_DEF(sym, name) FRAG_R_##sym,
#include "frag.def"
#undef FRAG_RESULT_DEF
	FRAG_R_MAX
};

extern const char *const frag_result_names[FRAG_R_MAX];

/* Per worker, plain increments: result[] per call, fragments produced. */
struct frag_counters {
	uint64_t result[FRAG_R_MAX];
	uint64_t fragments;
};

struct frag_pools {
	struct rte_mempool *direct;
	struct rte_mempool *indirect; /* FRAG_CHAIN only, else NULL */
	enum frag_mode mode;
	uint16_t max_frag_len; /* FRAG_COPY: largest fragment a direct mbuf holds */
};

/*
 * Create the pools of one worker on socket: n mbufs each (0 =
 * FRAG_DEFAULT_MBUFS), with a per-lcore cache. Names are unique per process.
 * NULL with rte_errno set on failure. Control thread, at start.
 */
struct frag_pools *frag_pools_create(int socket, unsigned int n, enum frag_mode mode);

/* Free the pools; every fragment must have been freed or sent. NULL is ignored. */
void frag_pools_free(struct frag_pools *p);

/* Fragment m for mtu (the IPv4 packet size limit); see the header comment. */
int frag_ipv4(struct rte_mbuf *m, uint16_t mtu, struct rte_mbuf **out, uint16_t max,
	      const struct frag_pools *p, struct frag_counters *c);

#endif /* BNG_FRAG_H */

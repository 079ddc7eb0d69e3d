/* Streams of the generator: one per (session, direction), read from a text file that the
 * harness writes (tests/linerate/streams.py). A stream is a header template (Ethernet up to
 * the end of the UDP header, QinQ and PPPoE included for upstream) and the port it leaves
 * by; the generator fills in lengths, the IPv4 checksum and the test signature per frame.
 *
 * File format, one stream per line ('#' starts a comment):
 *   <id> <tx_port> <group> <size_adjust> <pppoe_off|-1> <l3_off> <header hex>
 * id: 0..65534, the index of the line (ids are dense, in order); group: 0..3, each with
 * its own rate and frame size in a trial (e.g. upstream, downstream, and a probe each way);
 * size_adjust: added to the requested (access-side) frame size, e.g. -16 for a
 * core-side frame; pppoe_off: offset of the PPPoE header (its length field is set);
 * l3_off: offset of the IP header (IPv4 without options, or IPv6 without extension headers:
 * the version nibble tells), followed by a UDP header. IPv6 frames get a UDP checksum (it
 * is mandatory there); IPv4 frames none. */
#ifndef LRGEN_STREAMS_H
#define LRGEN_STREAMS_H

#include <stdint.h>
#include <stdio.h>

#define LR_MAX_STREAMS 65535u
#define LR_MAX_HDR 128u
#define LR_GROUPS 4u
#define LR_FCS 4u
#define LR_MIN_FRAME 64u
#define LR_MAX_FRAME 1518u

/* The test signature, first bytes of the UDP payload, all big endian but the TSC. */
#define LR_MAGIC 0xb7a5u
struct lr_sig {
	uint16_t magic;	 /* LR_MAGIC, network order */
	uint16_t stream; /* network order */
	uint32_t seq;	 /* network order */
	uint64_t tsc;	 /* host order: the same process reads it back */
} __attribute__((packed));

struct lr_stream {
	uint8_t hdr[LR_MAX_HDR];
	uint16_t hdr_len; /* l3_off + 20 (IPv4) or 40 (IPv6) + 8 */
	int16_t pppoe_off;
	uint16_t l3_off;
	int16_t size_adjust;
	uint16_t tx_port;
	uint8_t group;
	uint8_t v6;	   /* the IP header is IPv6 */
	uint32_t next_seq; /* sender side */
};

struct lr_stream_table {
	struct lr_stream *s;
	uint32_t n;
	uint32_t n_group[LR_GROUPS];
	uint32_t *by_group[LR_GROUPS]; /* stream ids of each group, for the round robin */
};

/* Reads the file; on error returns -1 with a message in err naming the line. */
int lr_streams_load(const char *path, struct lr_stream_table *t, char *err, size_t errlen);
void lr_streams_free(struct lr_stream_table *t);

/* Length of the frame without FCS for a requested access-side frame size (with FCS). */
uint16_t lr_stream_frame_len(const struct lr_stream *s, uint32_t size);

/* Writes stream s's frame of len bytes (no FCS) into buf: header, lengths, IPv4 header
 * checksum or IPv6 UDP checksum, signature (stream id, seq, tsc), zero padding. */
void lr_stream_build(const struct lr_stream *s, uint16_t id, uint8_t *buf, uint16_t len,
		     uint32_t seq, uint64_t tsc);

#endif

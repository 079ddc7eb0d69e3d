/*
 * Frame builders and fixture loading shared by the control-frame tests
 * (test_lcp, test_punt, test_vxlan) and their fuzz target. Frames are written
 * byte by byte here, independently of the code under test.
 */
#ifndef BNG_TESTS_CTL_FRAMES_H
#define BNG_TESTS_CTL_FRAMES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "dp_config.h"

/* The lab fixture (tests/fixtures/lab_dp4.ini): one group, two lines. */
static const uint8_t LAB_AC_MAC[6] = {0x02, 0xbb, 0x00, 0x00, 0x00, 0x04};
#define LAB_LINE0_STAG 300 /* C 2000-4094, access3, downstream TPID 0x8100 */
#define LAB_LINE0_CTAG 2000
#define LAB_LINE1_STAG 400 /* S 400-449, C any, access4, downstream TPID 0x88a8 */
#define LAB_LINE1_CTAG 7
#define LAB_VNI 4

static inline void
ctl_put16(uint8_t *p, unsigned int v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
ctl_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline unsigned int
ctl_get16(const uint8_t *p)
{
	return (unsigned int)p[0] << 8 | p[1];
}

static inline uint32_t
ctl_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Ethernet + outer tag (tpid, pcp, stag) + C-tag (0x8100, pcp, ctag) + ethertype: 22 bytes. */
static inline size_t
ctl_qinq(uint8_t *f, const uint8_t dst[6], const uint8_t src[6], unsigned int tpid,
	 unsigned int pcp, unsigned int stag, unsigned int ctag, unsigned int et)
{
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	ctl_put16(f + 12, tpid);
	ctl_put16(f + 14, pcp << 13 | stag);
	ctl_put16(f + 16, 0x8100);
	ctl_put16(f + 18, pcp << 13 | ctag);
	ctl_put16(f + 20, et);
	return 22;
}

/* PPPoE header at f: ver/type 0x11, code, session id, length. 6 bytes. */
static inline size_t
ctl_pppoe(uint8_t *f, unsigned int code, unsigned int sid, unsigned int len)
{
	f[0] = 0x11;
	f[1] = (uint8_t)code;
	ctl_put16(f + 2, sid);
	ctl_put16(f + 4, len);
	return 6;
}

/*
 * A PPPoE session frame from a subscriber: QinQ, PPPoE (length 2 + plen +
 * extra), PPP protocol, payload, extra bytes 0xdd inside the PPPoE payload,
 * then Ethernet padding 0xee up to pad_to. Returns the frame length.
 */
static inline size_t
ctl_session_frame(uint8_t *f, const uint8_t dst[6], const uint8_t src[6], unsigned int tpid,
		  unsigned int stag, unsigned int ctag, unsigned int sid, unsigned int proto,
		  const uint8_t *payload, size_t plen, size_t extra, size_t pad_to)
{
	size_t n = ctl_qinq(f, dst, src, tpid, 0, stag, ctag, 0x8864);

	n += ctl_pppoe(f + n, 0, sid, (unsigned int)(2 + plen + extra));
	ctl_put16(f + n, proto);
	n += 2;
	memcpy(f + n, payload, plen);
	n += plen;
	memset(f + n, 0xdd, extra);
	n += extra;
	if (n < pad_to) {
		memset(f + n, 0xee, pad_to - n);
		n = pad_to;
	}
	return n;
}

/* A discovery frame (PADI/PADR/PADT...) with tags_len bytes of tags 0x00. */
static inline size_t
ctl_disc_frame(uint8_t *f, const uint8_t dst[6], const uint8_t src[6], unsigned int tpid,
	       unsigned int stag, unsigned int ctag, unsigned int code, unsigned int sid,
	       size_t tags_len)
{
	size_t n = ctl_qinq(f, dst, src, tpid, 0, stag, ctag, 0x8863);

	n += ctl_pppoe(f + n, code, sid, (unsigned int)tags_len);
	memset(f + n, 0, tags_len);
	return n + tags_len;
}

/*
 * Input of fuzz/fuzz_ctl.c: an 8-byte prefix, then the bytes under test.
 *   [0]     flags: CTL_FUZZ_TAILROOM (the mbuf has room to pad), CTL_FUZZ_MAGIC0
 *           (our magic number is 0), CTL_FUZZ_VXLAN (the bytes are a VXLAN
 *           datagram from the CP; else an access frame from a subscriber)
 *   [1..4]  our LCP magic number, big-endian
 *   [5..7]  the VNI the datagram is checked against
 */
#define CTL_FUZZ_PREFIX 8
#define CTL_FUZZ_TAILROOM 0x01
#define CTL_FUZZ_MAGIC0 0x02
#define CTL_FUZZ_VXLAN 0x80

/* Write one fuzz seed dir/name-NNN in that layout; silently skipped on error. */
static inline void
ctl_write_seed(const char *dir, const char *name, unsigned int i, uint8_t flags, uint32_t magic,
	       uint32_t vni, const uint8_t *b, size_t n)
{
	uint8_t pre[CTL_FUZZ_PREFIX];
	char path[4096];
	FILE *fp;

	if (dir == NULL)
		return;
	pre[0] = flags;
	ctl_put32(pre + 1, magic);
	pre[5] = (uint8_t)(vni >> 16);
	pre[6] = (uint8_t)(vni >> 8);
	pre[7] = (uint8_t)vni;
	snprintf(path, sizeof(path), "%s/%s-%03u", dir, name, i);
	fp = fopen(path, "wb");
	if (fp == NULL)
		return;
	fwrite(pre, 1, sizeof(pre), fp);
	fwrite(b, 1, n, fp);
	fclose(fp);
}

/* Load dir/file and build its line map; exits on failure (a broken fixture). */
static inline void
ctl_load_map(const char *dir, const char *file, struct dp_config **cfg, struct line_map **m)
{
	char path[4096], err[256] = "out of memory";

	*cfg = calloc(1, sizeof(**cfg));
	*m = calloc(1, sizeof(**m));
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (*cfg == NULL || *m == NULL || dp_config_load(path, *cfg, err, sizeof(err)) != 0 ||
	    line_map_build(*m, *cfg, err, sizeof(err)) != 0) {
		printf("FAIL fixture %s: %s\n0 passed, 1 failed\n", path, err);
		exit(1);
	}
}

#endif /* BNG_TESTS_CTL_FRAMES_H */

/* libFuzzer target of bng-lrgen's parsers. Input byte 0 picks:
 * - even: the rest is a stream file. After a successful load every stream is consistent
 *   (header length, offsets, group), and every frame built from it at sizes 64..1518 parses
 *   back to its own stream id, sequence number and TSC (lr_rx_parse on lr_stream_build's
 *   output); after a failed load there is a message and nothing held.
 * - odd: the rest is a received frame. lr_rx_parse reads only within it; what it accepts
 *   is recorded (a stream of a 4-stream table) and the counters stay consistent. The LCP
 *   echo responder reads and writes only within it, changes nothing but the MACs, the code
 *   and the magic number when it answers, and nothing at all when it does not. The Neighbor
 *   Solicitation responder writes only within the frame's room and answers only an NS for
 *   its address, with a Neighbor Advertisement that carries the address and the MAC. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../src/rxstats.h"
#include "../src/streams.h"

static void
check(int ok)
{
	if (!ok)
		abort();
}

static void
fuzz_streams(const uint8_t *data, size_t size)
{
	int fd = memfd_create("streams", 0);
	if (fd < 0)
		return;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return;
	}
	char path[64], err[512] = "";
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	struct lr_stream_table t;
	int rc = lr_streams_load(path, &t, err, sizeof(err));
	close(fd);
	if (rc < 0) {
		check(err[0] != 0 && t.s == NULL && t.n == 0);
		return;
	}
	static uint8_t frame[LR_MAX_FRAME + 64];
	uint32_t per_group = 0;
	for (uint32_t g = 0; g < LR_GROUPS; g++)
		per_group += t.n_group[g];
	check(per_group == t.n && t.n > 0);
	for (uint32_t i = 0; i < t.n && i < 8; i++) {
		const struct lr_stream *s = &t.s[i];
		check(s->hdr_len == s->l3_off + (s->v6 ? 48 : 28) && s->group < LR_GROUPS);
		for (uint32_t size = LR_MIN_FRAME; size <= LR_MAX_FRAME; size += 227) {
			uint16_t len = lr_stream_frame_len(s, size);
			check(len >= s->hdr_len + sizeof(struct lr_sig) && len <= sizeof(frame));
			lr_stream_build(s, (uint16_t)i, frame, len, 77 + i, 123456789);
			struct lr_sig sig;
			/* a header whose own tags or EtherType say otherwise need not parse; one
			 * that parses must give back what was written */
			if (lr_rx_parse(frame, len, &sig) == 0 && s->pppoe_off < 0 &&
			    s->l3_off == 14)
				check(sig.stream == i && sig.seq == 77 + i && sig.tsc == 123456789);
		}
	}
	lr_streams_free(&t);
}

static void
fuzz_rx(const uint8_t *data, size_t size)
{
	/* an exact-size heap copy: ASan sees a read past the frame */
	uint8_t *f = malloc(size ? size : 1);
	if (!f)
		return;
	memcpy(f, data, size);
	static struct lr_rx rx;
	static int init;
	if (!init) {
		check(lr_rx_init(&rx, 4) == 0);
		init = 1;
	}
	struct lr_sig sig;
	if (lr_rx_parse(f, (uint32_t)size, &sig) == 0) {
		lr_rx_record(&rx, (uint8_t)(sig.stream & 3), sig.stream & 3, sig.seq,
			     sig.tsc >> 40);
		for (uint32_t i = 0; i < 4; i++)
			check(rx.st[i].reordered <= rx.st[i].rx);
		uint64_t n = 0;
		for (uint32_t g = 0; g < LR_GROUPS; g++)
			n += rx.hist[g].count;
		uint64_t s = 0;
		for (uint32_t i = 0; i < 4; i++)
			s += rx.st[i].rx;
		check(n == s);
		check(lr_hist_quantile(&rx.hist[0], 0.99) <= (rx.hist[0].count ? UINT64_MAX : 0));
	}
	/* the LCP echo responder on the same frame */
	memcpy(f, data, size);
	if (lr_lcp_echo_reply(f, (uint32_t)size, 0x4c52474e)) {
		check(size >= 34 && memcmp(f, data + 6, 6) == 0 && memcmp(f + 6, data, 6) == 0);
		size_t diff = 0;
		for (size_t i = 12; i < size; i++)
			diff += f[i] != data[i];
		check(diff <= 5); /* code and magic number */
	} else {
		check(memcmp(f, data, size) == 0);
	}
	free(f);
	/* the Neighbor Solicitation responder, with 32 bytes of room beyond the frame */
	static const uint8_t ip6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0x64, [15] = 1};
	static const uint8_t mac[6] = {2, 0x4c, 0x52, 0, 0, 1};
	f = malloc(size + 32);
	if (!f)
		return;
	memcpy(f, data, size);
	uint32_t n = lr_nd_na_reply(f, (uint32_t)size, (uint32_t)size + 32, ip6, mac);
	if (n) {
		check(n <= size + 32 && n >= 14 + 40 + 32 && memcmp(f + 6, mac, 6) == 0);
		check(memcmp(f + n - 32 + 8, ip6, 16) == 0 && memcmp(f + n - 6, mac, 6) == 0);
		check(f[n - 32] == 136);
	} else {
		check(memcmp(f, data, size) == 0);
	}
	free(f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		fuzz_rx(data + 1, size - 1);
	else
		fuzz_streams(data + 1, size - 1);
	return 0;
}

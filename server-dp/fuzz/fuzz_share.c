/*
 * libFuzzer target: sharing an access port (share.c, share_conf.c).
 * Input byte 0 selects:
 *   even: a peer datagram (the rest) through share_peek() and share_decode()
 *         (for the group it names when bit 1 is set, else access port 0, so
 *         both kinds decode); a decoded report's
 *         numbers then feed share_divide() and share_step() as 4 peers, which
 *         must keep the sum of the division at or below the rate, an absent
 *         peer at its static share, and a step at or below max(target, applied);
 *   odd:  a --qos-share file (the rest, [qos_share] sections) through
 *         share_conf_load().
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "share.h"
#include "share_conf.h"

static void
divide_checks(const struct share_report *r, uint8_t sel)
{
	struct share_peer p[4];
	uint64_t out[4], applied[4], rate = r->stat ? r->stat : 1, sum = 0;
	uint32_t i;

	for (i = 0; i < 4; i++) {
		p[i].weight = i & 1 ? r->weight : r->seq;
		p[i].demand = i & 2 ? r->demand : r->served;
		p[i].stat = rate / 4;
		p[i].present = (uint8_t)(i == 0 || (r->heard >> i & 1));
		applied[i] = (i == 0 ? r->applied : r->served) % rate;
	}
	share_divide(rate, p, 4, out);
	for (i = 0; i < 4; i++) {
		sum += out[i];
		if (!p[i].present && out[i] != p[i].stat)
			abort();
	}
	if (sum > rate)
		abort();
	uint64_t s = share_step(rate, p, 4, sel % 4, out, applied);
	uint64_t hi = out[sel % 4] > applied[sel % 4] ? out[sel % 4] : applied[sel % 4];
	if (s > hi)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if ((data[0] & 1) == 0) {
		struct share_report r;
		uint16_t id = 0;
		uint8_t kind = SHARE_KIND_ACCESS;

		if (share_peek(data + 1, size - 1, &kind, &id) == SHARE_OK &&
		    (kind >= SHARE_KIND_MAX || size - 1 != SHARE_MSG_LEN))
			abort();
		if (!(data[0] & 2))
			kind = SHARE_KIND_ACCESS, id = 0;
		if (share_decode(data + 1, size - 1, kind, id, 4, 0, &r) == SHARE_OK) {
			if (r.kind != kind || r.index == 0 || r.index >= 4)
				abort();
			divide_checks(&r, data[0] >> 2);
		}
		return 0;
	}
	char path[] = "/tmp/fuzz_share_XXXXXX";
	int fd = mkstemp(path);
	struct share_file c;
	char err[256];

	if (fd < 0)
		return 0;
	if (write(fd, data + 1, size - 1) == (ssize_t)(size - 1))
		(void)share_conf_load(path, 4, &c, err, sizeof(err));
	close(fd);
	unlink(path);
	return 0;
}

/*
 * libFuzzer target for the IPv6 parsers of bng-dp: the first byte selects
 *   0  nd_parse() of an IPv6 packet (core-side Neighbor Discovery);
 *   1  pfcp_ra_offload_decode() of an RA offload IE value;
 *   2  pfcp_line_group_decode() of a Line Group IE value (IPv6 trailer).
 * The rest is given from an exact-size heap copy (ASan sees reads past it).
 * Invariants: what decodes re-encodes to the same bytes (1, 2); a parsed NS
 * or NA has a non-multicast target, and an NA built from it parses again (0).
 */

#include <stdlib.h>
#include <string.h>

#include "nd.h"
#include "pfcp.h"

#define CHECK(cond)              \
	do {                     \
		if (!(cond))     \
			abort(); \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *b, out[512];
	size_t n;

	if (size < 1)
		return 0;
	n = size - 1;
	b = malloc(n ? n : 1);
	if (b == NULL)
		return 0;
	memcpy(b, data + 1, n);
	switch (data[0] % 3) {
	case 0: {
		struct nd_msg m, m2;
		static const uint8_t mac[6] = {2, 0, 0, 0, 0, 1};

		if (nd_parse(b, n, &m) == ND_OK) {
			size_t k;

			CHECK(m.type == ND_TYPE_NS || m.type == ND_TYPE_NA);
			CHECK(m.target[0] != 0xff);
			k = nd_build_na(out, sizeof(out), mac, mac, 0, m.src, m.target, ND_NA_S);
			CHECK(k == 86);
			CHECK(nd_parse(out + 14, k - 14, &m2) == ND_OK && m2.type == ND_TYPE_NA);
		}
		break;
	}
	case 1: {
		struct pfcp_ra_offload ra;

		if (pfcp_ra_offload_decode(b, n, &ra) == 0) {
			int k = pfcp_ra_offload_encode(&ra, out, sizeof(out));

			CHECK(k == (int)n && memcmp(out, b, n) == 0);
		}
		break;
	}
	default: {
		struct pfcp_line_group lg;

		if (pfcp_line_group_decode(b, n, &lg) == 0) {
			int k = pfcp_line_group_encode(&lg, out, sizeof(out));

			CHECK(k == (int)n && memcmp(out, b, n) == 0);
		}
		break;
	}
	}
	free(b);
	return 0;
}

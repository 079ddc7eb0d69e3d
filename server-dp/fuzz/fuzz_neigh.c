/*
 * libFuzzer target for the neighbour table (neigh.h): ARP input, worker
 * wants and lookups, and timers, driven as a sequence of operations.
 *
 * The EAL starts once (--no-huge, in memory). Each input gets a fresh table
 * for a /23 core subnet 100.64.0.0 with the router .1 and two line groups
 * (.10, .11); the first byte picks an untagged core or VLAN 42. Then, until
 * the input ends, one operation per record (the first byte selects):
 *   0  an ARP frame: a length byte (0..80) and the bytes, given to
 *      neigh_arp_input() from an exact-size heap copy (ASan sees reads past
 *      len); the ARP header bytes are forced valid when the length byte's
 *      top bit is set, so the fuzzer reaches learning and answering;
 *   1  neigh_want() of an address of the subnet (2 bytes);
 *   2  neigh_tick() after 0..65535 x 16 ms (2 bytes), so every timer fires;
 *   3  neigh_resolve() of an address of the subnet (2 bytes).
 * Invariants, after every operation:
 *   - a reply is 60 bytes, an ARP reply from one of our MACs and addresses
 *     to the requester; every frame sent is a 60-byte ARP request from one
 *     of our MACs and addresses;
 *   - each used slot holds a host of the subnet, in its own bucket, once in
 *     the table, in a used state; a free slot has no MAC;
 *   - a MAC only in REACHABLE, STALE or PROBE, unicast and not zero; the
 *     check flag only in STALE; only the router pinned, and it is always
 *     there;
 *   - neigh_lookup() of a slot's address returns its MAC.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>

#include "neigh.h"

#define CHECK(cond)                                                       \
	do {                                                              \
		if (!(cond)) {                                            \
			fprintf(stderr, "invariant failed: %s\n", #cond); \
			abort();                                          \
		}                                                         \
	} while (0)

#define NET 0x64400000u	   /* 100.64.0.0/23 */
#define ROUTER 0x64400001u /* .1 */
#define G0 0x6440000au
#define G1 0x6440000bu
#define G0_MAC 0x02cc0000000aULL
#define MAX_OPS 256 /* per input: the whole-table check after each one is not cheap */
#define G1_MAC 0x02cc0000000bULL

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct dp_config cfg;
static uint16_t vlan;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char *eal_argv[] = {
		(*argv)[0],	  "--no-huge",	       "-m", "128", "--no-pci", "--no-shconf",
		"--no-telemetry", "--log-level=error", NULL};

	(void)argc;
	if (rte_eal_init(8, eal_argv) < 0) {
		fprintf(stderr, "EAL init failed\n");
		abort();
	}
	cfg.core.subnet.addr = NET;
	cfg.core.subnet.len = 23;
	cfg.core.router_address = ROUTER;
	cfg.n_line_groups = 2;
	cfg.line_groups[0].core_address = G0;
	cfg.line_groups[1].core_address = G1;
	neigh_mac_bytes(G0_MAC, cfg.line_groups[0].core_mac);
	neigh_mac_bytes(G1_MAC, cfg.line_groups[1].core_mac);
	return 0;
}

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int
is_ours(uint64_t mac, uint32_t ip)
{
	return (mac == G0_MAC && ip == G0) || (mac == G1_MAC && ip == G1);
}

/* A frame the table built: 60 bytes, our VLAN, ARP op, sender ours. */
static const uint8_t *
check_frame(const uint8_t *f, uint16_t len, unsigned int op)
{
	const uint8_t *a = f + (vlan ? 18 : 14);

	CHECK(len == NEIGH_FRAME_LEN);
	if (vlan) {
		CHECK(f[12] == 0x81 && f[13] == 0x00 && (((f[14] & 0x0f) << 8) | f[15]) == vlan);
		CHECK(f[16] == 0x08 && f[17] == 0x06);
	} else {
		CHECK(f[12] == 0x08 && f[13] == 0x06);
	}
	CHECK(a[0] == 0 && a[1] == 1 && a[2] == 0x08 && a[3] == 0 && a[4] == 6 && a[5] == 4);
	CHECK(a[6] == 0 && a[7] == op);
	CHECK(mac_key(f + 6) == mac_key(a + 8));
	CHECK(is_ours(mac_key(a + 8), be32(a + 14)));
	return a;
}

static int
on_send(void *arg, const uint8_t *f, uint16_t len)
{
	(void)arg;
	check_frame(f, len, 1);
	return 0;
}

static void
check_table(const struct neigh_table *t)
{
	int router = 0;

	for (unsigned int i = 0; i < NEIGH_CAPACITY; i++) {
		const struct neigh_slot *s = &t->buckets[i / NEIGH_WAYS].s[i % NEIGH_WAYS];
		const struct neigh_entry *e = &t->entries[i];
		uint32_t ip = (uint32_t)s->key;
		uint64_t mac = s->word & NEIGH_MAC_MASK;

		CHECK(e->state < NEIGH_STATE_MAX);
		CHECK((s->word & ~(NEIGH_MAC_MASK | NEIGH_WORD_CHECK)) == 0);
		if (ip == 0) {
			CHECK(e->state == NEIGH_FREE && s->word == 0);
			continue;
		}
		CHECK(e->state != NEIGH_FREE);
		CHECK((ip & 0xfffffe00u) == NET && ip != NET && ip != (NET | 0x1ff));
		CHECK(ip != G0 && ip != G1);
		CHECK(i / NEIGH_WAYS == (ip & (NEIGH_BUCKETS - 1)));
		for (unsigned int w = i % NEIGH_WAYS + 1; w < NEIGH_WAYS; w++)
			CHECK((uint32_t)t->buckets[i / NEIGH_WAYS].s[w].key != ip);
		if (mac != 0) {
			CHECK(e->state == NEIGH_REACHABLE || e->state == NEIGH_STALE ||
			      e->state == NEIGH_PROBE);
			CHECK(!(mac >> 40 & 1));
		} else {
			CHECK(e->state == NEIGH_INCOMPLETE || e->state == NEIGH_FAILED);
		}
		CHECK(!(s->word & NEIGH_WORD_CHECK) || e->state == NEIGH_STALE);
		CHECK(e->pinned == (ip == ROUTER));
		CHECK(e->state != NEIGH_FAILED || !e->pinned);
		CHECK(neigh_lookup(t, ip) == mac);
		router += ip == ROUTER;
	}
	CHECK(router == 1);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t reply[NEIGH_FRAME_LEN];
	struct neigh_table *t;
	uint64_t now = 0;
	unsigned int ops = 0;
	size_t i = 1;

	if (size < 1)
		return 0;
	vlan = data[0] & 1 ? 42 : 0;
	cfg.core.vlan = vlan;
	t = neigh_create(&cfg, SOCKET_ID_ANY);
	CHECK(t != NULL);
	while (i < size && ops++ < MAX_OPS) {
		uint8_t op = data[i++] % 4;
		uint32_t arg = 0;

		if (op == 0) {
			struct cls_result r = {.kind = CLS_CORE_ARP, .l3_off = vlan ? 18 : 14};
			uint16_t len, rlen = 0xffff;
			uint8_t *f;
			int ret;

			if (i >= size)
				break;
			len = data[i] & 0x7f;
			if (len > 80)
				len = 80;
			f = malloc(len > 0 ? len : 1);
			memset(f, 0, len);
			memcpy(f, data + i + 1, RTE_MIN((size_t)len, size - i - 1));
			if ((data[i] & 0x80) && len >= r.l3_off + 28) {
				uint8_t *a = f + r.l3_off;

				a[0] = 0;
				a[1] = 1;
				a[2] = 0x08;
				a[3] = 0;
				a[4] = 6;
				a[5] = 4;
				a[6] = 0;
				a[14] = 100; /* sender in 100.64.0.0/23 or near */
				a[15] = 64;
				a[16] &= 1;
				memcpy(f + 6, a + 8, 6);
			}
			i += 1 + RTE_MIN((size_t)len, size - i - 1);
			ret = neigh_arp_input(t, f, len, &r, now, reply, &rlen);
			CHECK(ret == NEIGH_ARP_IGNORED || ret == NEIGH_ARP_LEARNT ||
			      ret == NEIGH_ARP_REPLY);
			if (ret == NEIGH_ARP_REPLY) {
				const uint8_t *a = check_frame(reply, rlen, 2);
				const uint8_t *q = f + r.l3_off;

				CHECK(mac_key(reply) == mac_key(q + 8)); /* to the requester */
				CHECK(memcmp(a + 18, q + 8, 10) == 0);	 /* tha, tpa = sha, spa */
				CHECK(memcmp(a + 14, q + 24, 4) == 0);	 /* the address asked for */
			} else {
				CHECK(rlen == 0);
			}
			free(f);
		} else {
			if (i + 2 > size)
				break;
			arg = (uint32_t)data[i] << 8 | data[i + 1];
			i += 2;
			if (op == 1) {
				neigh_want(t, NET | (arg & 0x1ff));
			} else if (op == 2) {
				now += (uint64_t)arg * 16;
				neigh_tick(t, now, on_send, NULL);
			} else {
				(void)neigh_resolve(t, NET | (arg & 0x1ff));
			}
		}
		check_table(t);
	}
	neigh_free(t);
	return 0;
}

/*
 * pfcp-encode-samples: prints PFCP messages bng-dp's code produces, one per
 * line as "<name> <hex>", for tests/dp/test_pfcp_wire.py (which writes them
 * into a pcap and checks tshark's dissection).
 *
 * Two sources: the CP-side builders (tests/pfcp_build.h, the messages a
 * bngpod CP sends), and the UP function itself (pfcp_up.c) driven through
 * a scripted exchange with a data path that accepts everything
 * (tests/pfcp_accept_dp.h): its responses, heartbeats,
 * usage reports, LCP dead report, error answers.
 *
 * With a directory argument, also writes each message as a file there (the
 * seed corpus of fuzz/fuzz_pfcp.c).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfcp.h"
#include "pfcp_accept_dp.h"
#include "pfcp_build.h"
#include "pfcp_up.h"

static struct pfcp_msg M;
static uint8_t buf[UP_MAX_MSG];
static const char *outdir;
static const char *cur_name;
static int n_out;

static void
emit(const char *name, const uint8_t *b, size_t len)
{
	if (strcmp(name, "unused") == 0)
		return;
	printf("%s ", name);
	for (size_t i = 0; i < len; i++)
		printf("%02x", b[i]);
	printf("\n");
	if (outdir != NULL && strcmp(name, "unused") != 0) {
		char path[512];
		FILE *f;

		snprintf(path, sizeof(path), "%s/%02d-%s", outdir, n_out, name);
		f = fopen(path, "wb");
		if (f != NULL) {
			fwrite(b, 1, len, f);
			fclose(f);
		}
	}
	n_out++;
}

static void
emit_msg(const char *name, const struct pfcp_msg *m)
{
	int n = pfcp_msg_encode(m, buf, sizeof(buf));

	if (n < 0) {
		fprintf(stderr, "pfcp-encode-samples: cannot encode %s\n", name);
		exit(1);
	}
	emit(name, buf, (size_t)n);
}

/* Every datagram the UP function sends is printed under the current name. */
static int
up_send(void *arg, const uint8_t *b, size_t len, uint32_t ip, uint16_t port)
{
	(void)arg;
	(void)ip;
	(void)port;
	emit(cur_name, b, len);
	return 0;
}

static void
up_feed(struct pfcp_up *u, const char *name, const struct pfcp_msg *m, uint64_t now)
{
	int n = pfcp_msg_encode(m, buf, sizeof(buf));

	cur_name = name;
	pfcp_up_input(u, buf, (size_t)n, PB_CP_IP, PFCP_PORT, now, up_send, NULL);
}

int
main(int argc, char **argv)
{
	struct pfcp_up_conf c = {
		.node_ipv4 = PB_UP_IP,
		.cp_ip = PB_CP_IP,
		.recovery_unix_s = 1700000000,
		.wall_offset_ms = 1700000000000ll,
		.capacity = 16,
		.heartbeat_ms = 5000,
		.up_features = {0, 0, 0x10},
		.bbf_features = PFCP_BBF_UPF_PPPOE | PFCP_BBF_UPF_LCP_KEEPALIVE_OFFLOAD,
		.fallback = {.cp_ip = PB_CP_IP, .cp_port = 4789, .classes = UP_REDIRECT_ALL},
	};
	struct pb_sub s = pb_sub_default();
	struct pfcp_up *u;
	uint64_t up_seid, dseid;

	if (argc > 1)
		outdir = argv[1];

	/* what a CP sends */
	pb_assoc_setup(&M, 1, PB_CP_RECOVERY);
	emit_msg("cp_assoc_setup_req", &M);
	pb_heartbeat(&M, 2);
	emit_msg("cp_heartbeat_req", &M);
	pb_establish(&M, &s, 0x1001, 3);
	emit_msg("cp_session_establishment_req", &M);
	pb_default(&M, 0x1, 4, PB_CP_IP, 4789);
	emit_msg("cp_default_session_req", &M);
	pb_modify_coa(&M, 0x0000abcd00000001ull, 5, "silver", 20000, 100000, 1);
	emit_msg("cp_session_modification_req", &M);
	pb_hdr(&M, PFCP_SESS_MOD_REQ, 1, 0x0000abcd00000001ull, 6);
	M.present |= PFCP_M_BBF_LCP;
	M.lcp.present = PFCP_LCP_EMPTY;
	emit_msg("cp_lcp_off_req", &M);
	pb_delete(&M, 0x0000abcd00000001ull, 7);
	emit_msg("cp_session_deletion_req", &M);
	{
		struct pb_sub si = s;

		si.mtu = 1500;
		pb_establish_ipoe(&M, &si, 0x1002, 8);
		emit_msg("cp_ipoe_session_establishment_req", &M);
	}
	pb_default(&M, 0x1, 9, PB_CP_IP, 4789);
	pb_default_dhcp(&M);
	emit_msg("cp_default_session_dhcp_req", &M);

	/* what the UP function answers and sends; heartbeats from their own instance */
	u = pfcp_up_create(&c, &accept_dp_ops, NULL);
	if (u == NULL)
		return 1;
	pb_assoc_setup(&M, 1, PB_CP_RECOVERY);
	up_feed(u, "unused", &M, 0);
	cur_name = "up_heartbeat_req";
	pfcp_up_tick(u, 5000, up_send, NULL);
	pfcp_up_free(u);
	c.heartbeat_ms = 1000000000;
	u = pfcp_up_create(&c, &accept_dp_ops, NULL);
	if (u == NULL)
		return 1;
	pb_establish(&M, &s, 0x1001, 10);
	up_feed(u, "up_session_establishment_rsp_72", &M, 0);
	pb_assoc_setup(&M, 11, PB_CP_RECOVERY);
	up_feed(u, "up_assoc_setup_rsp", &M, 0);
	pb_heartbeat(&M, 12);
	up_feed(u, "up_heartbeat_rsp", &M, 0);
	pb_establish(&M, &s, 0x1001, 13);
	up_feed(u, "up_session_establishment_rsp", &M, 0);
	pb_establish(&M, &s, 0x2002, 14);
	M.create_pdr[0].pdi.eth.present &= ~(uint32_t)PFCP_EF_STAG;
	up_feed(u, "up_session_establishment_rsp_67", &M, 0);
	pb_establish(&M, &s, 0x3003, 15);
	M.create_pdr[1].id = 1;
	up_feed(u, "up_session_establishment_rsp_73", &M, 0);
	pb_default(&M, 0x1, 16, PB_CP_IP, 4789);
	up_feed(u, "up_default_session_rsp", &M, 0);
	/* the UP SEIDs: slot 0 then slot 1, generation from the recovery time stamp */
	up_seid = (uint64_t)(uint16_t)(1700000000u * 7919u) << 32 | 1;
	dseid = (uint64_t)(uint16_t)(1700000000u * 7919u) << 32 | 2;
	cur_name = "up_session_report_req_usage";
	pfcp_up_tick(u, 60000, up_send, NULL);
	cur_name = "up_session_report_req_lcp_dead";
	pfcp_up_report_lcp_dead(u, 0, 60000, up_send, NULL);
	pb_modify_coa(&M, up_seid, 17, "silver", 20000, 100000, 1);
	up_feed(u, "up_session_modification_rsp", &M, 61000);
	pb_modify_coa(&M, 0x77, 18, "silver", 0, 0, 0);
	up_feed(u, "up_session_modification_rsp_65", &M, 61000);
	pb_delete(&M, up_seid, 19);
	up_feed(u, "up_session_deletion_rsp", &M, 62000);
	pb_delete(&M, dseid, 20);
	up_feed(u, "up_default_session_deletion_rsp", &M, 62000);
	pb_hdr(&M, PFCP_ASSOC_RELEASE_REQ, 0, 0, 21);
	pb_node_cp(&M);
	up_feed(u, "up_assoc_release_rsp", &M, 63000);
	{
		uint8_t v2[8] = {0x40, PFCP_HEARTBEAT_REQ, 0, 4, 0, 0, 22, 0};

		cur_name = "up_version_not_supported_rsp";
		pfcp_up_input(u, v2, sizeof(v2), PB_CP_IP, PFCP_PORT, 63000, up_send, NULL);
	}
	pfcp_up_free(u);
	return 0;
}

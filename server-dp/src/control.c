/*
 * bng-dp control thread (control.h).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "control.h"
#include "nd.h"
#include "share_ctl.h"
#include "subs.h"

#define CTL_MAX_DGRAM 9216
#define CTL_RECLAIM_MS 100 /* session ids whose grace period is over, this often */

struct control_stats control_stats;

static struct {
	int epfd;
	int pfcp_fd;
	int vxlan_fd;
	uint64_t last_reclaim_ms;
	struct control_redirect redirect;
	uint8_t rx[CONTROL_RX_BATCH][CTL_MAX_DGRAM];
	uint8_t tx[CTL_MAX_DGRAM];
	/* core router's IPv6 address: resolution by Neighbor Discovery */
	uint64_t nd_next_ms;	  /* next NS for the router */
	uint64_t nd_heard_ms;	  /* last NA / NS from the router */
	unsigned int nd_announce; /* unsolicited NAs still to send (each 1 s apart) */
} ctl = {.epfd = -1, .pfcp_fd = -1, .vxlan_fd = -1};

#define ND_PROBE_MS 1000    /* NS for an unresolved router this often */
#define ND_REFRESH_MS 30000 /* and for a resolved one */
#define ND_STALE_MS 95000   /* a router unheard this long is unresolved again */
#define ND_ANNOUNCE_COUNT 3

uint64_t
control_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int
udp_open(uint32_t addr, uint16_t port, const char *what)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(addr),
	};
	int fd, one = 1, buf = 4 << 20;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		char s[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &sa.sin_addr, s, sizeof(s));
		fprintf(stderr, "bng-dp: %s socket %s:%u: %s\n", what, s, port, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* A CP re-pushing thousands of sessions at once must not overrun us. */
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	return fd;
}

/* --- redirect target, inject ------------------------------------------------- */

void
control_redirect_set(struct app *a, const struct control_redirect *r)
{
	ctl.redirect = *r;
	punt_set_classes(a->punt, r->classes);
}

void
control_redirect_get(struct control_redirect *r)
{
	*r = ctl.redirect;
}

int
control_inject(struct app *a, const uint8_t *frame, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(a->pool);
	char *p;

	if (m == NULL) {
		control_stats.inject_full++;
		return -1;
	}
	p = rte_pktmbuf_append(m, len);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		control_stats.inject_full++;
		return -1;
	}
	memcpy(p, frame, len);
	if (rte_ring_sp_enqueue(a->inject_ring, m) != 0) {
		rte_pktmbuf_free(m);
		control_stats.inject_full++;
		return -1;
	}
	return 0;
}

/* --- PFCP ---------------------------------------------------------------------- */

static int
pfcp_send(void *arg, const uint8_t *buf, size_t len, uint32_t ip, uint16_t port)
{
	struct sockaddr_in to = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(ip),
	};

	(void)arg;
	if (sendto(ctl.pfcp_fd, buf, len, 0, (struct sockaddr *)&to, sizeof(to)) == (ssize_t)len) {
		control_stats.pfcp_tx++;
		return 0;
	}
	control_stats.pfcp_tx_errors++;
	return -errno;
}

/* Read what is waiting on fd, up to CONTROL_RX_BATCH datagrams in one call. */
static int
recv_batch(int fd, struct mmsghdr *mm, struct iovec *iov, struct sockaddr_in *from)
{
	int i;

	for (i = 0; i < CONTROL_RX_BATCH; i++) {
		iov[i].iov_base = ctl.rx[i];
		iov[i].iov_len = sizeof(ctl.rx[i]);
		mm[i].msg_hdr = (struct msghdr){
			.msg_name = &from[i],
			.msg_namelen = sizeof(from[i]),
			.msg_iov = &iov[i],
			.msg_iovlen = 1,
		};
	}
	return recvmmsg(fd, mm, CONTROL_RX_BATCH, MSG_DONTWAIT, NULL);
}

static void
pfcp_readable(struct app *a)
{
	static struct mmsghdr mm[CONTROL_RX_BATCH];
	static struct iovec iov[CONTROL_RX_BATCH];
	static struct sockaddr_in from[CONTROL_RX_BATCH];
	int n, i, rounds = 0;

	/* Bounded: a flood cannot keep the timers from running. */
	while (rounds++ < 16 && (n = recv_batch(ctl.pfcp_fd, mm, iov, from)) > 0) {
		uint64_t now = control_now_ms();

		for (i = 0; i < n; i++) {
			uint32_t ip = ntohl(from[i].sin_addr.s_addr);

			if (ip != a->cfg->instance.cp_address) {
				control_stats.pfcp_not_allowed++;
				continue;
			}
			control_stats.pfcp_rx++;
			pfcp_up_input(a->pfcp, ctl.rx[i], mm[i].msg_len, ip,
				      ntohs(from[i].sin_port), now, pfcp_send, a);
		}
	}
}

static void
lcp_dead(void *arg, uint32_t id)
{
	struct app *a = arg;

	control_stats.lcp_dead++;
	pfcp_up_report_lcp_dead(a->pfcp, id, control_now_ms(), pfcp_send, a);
}

static const struct dp_session *
lcp_session(void *arg, uint32_t id)
{
	struct app *a = arg;
	const struct dp_session *s;

	if (id >= a->sessions->capacity)
		return NULL;
	s = session_get(a->sessions, id);
	return session_live(s) ? s : NULL;
}

static int
lcp_send(void *arg, const uint8_t *frame, uint16_t len)
{
	if (control_inject(arg, frame, len) != 0)
		return -1;
	control_stats.lcp_tx++;
	return 0;
}

static const struct lcp_tick_ops lcp_ops = {
	.session = lcp_session,
	.send = lcp_send,
	.dead = lcp_dead,
};

/* --- IPoE ARP ping (arpping.h) ---------------------------------------------------- */

static void
arpping_dead(void *arg, uint32_t id)
{
	struct app *a = arg;

	control_stats.arpping_dead++;
	pfcp_up_report_lcp_dead(a->pfcp, id, control_now_ms(), pfcp_send, a);
}

/* The gateway of the pool holding s's address (else the group's first), network order. */
static uint32_t
arpping_gateway(void *arg, const struct dp_session *s)
{
	const struct app *a = arg;
	const struct dp_line_group *g = &a->cfg->line_groups[s->group];
	uint32_t ip = ntohl(s->ipv4);

	for (unsigned int k = 0; k < g->n_ipoe_gateways; k++) {
		const struct dp_ipoe_gateway *gw = &g->ipoe_gateways[k];
		uint32_t mask = gw->len == 0 ? 0 : ~UINT32_C(0) << (32 - gw->len);

		if (((ip ^ gw->addr) & mask) == 0)
			return htonl(gw->addr);
	}
	return g->n_ipoe_gateways > 0 ? htonl(g->ipoe_gateways[0].addr) : 0;
}

static int
arpping_send(void *arg, const uint8_t *frame, uint16_t len)
{
	if (control_inject(arg, frame, len) != 0)
		return -1;
	control_stats.arpping_tx++;
	return 0;
}

static const struct arpping_ops arpping_ops = {
	.session = lcp_session,
	.gateway = arpping_gateway,
	.send = arpping_send,
	.dead = arpping_dead,
};

/* --- VXLAN: frames from the CP ---------------------------------------------- */

static void
vxlan_readable(struct app *a)
{
	static struct mmsghdr mm[CONTROL_RX_BATCH];
	static struct iovec iov[CONTROL_RX_BATCH];
	static struct sockaddr_in from[CONTROL_RX_BATCH];
	const uint8_t *frame;
	uint16_t flen;
	int n, i, rounds = 0;

	while (rounds++ < 16 && (n = recv_batch(ctl.vxlan_fd, mm, iov, from)) > 0) {
		for (i = 0; i < n; i++) {
			if (ntohl(from[i].sin_addr.s_addr) != a->cfg->instance.cp_address) {
				control_stats.vxlan_not_allowed++;
				continue;
			}
			control_stats.vxlan_rx++;
			if (vxlan_decap(ctl.rx[i], mm[i].msg_len, a->cfg->instance.id, &frame,
					&flen, &control_stats.vxlan) != 0) {
				control_stats.vxlan_bad++;
				continue;
			}
			if (vxlan_inject_check(a->lmap, frame, flen, &control_stats.vxlan) < 0) {
				control_stats.inject_refused++;
				continue;
			}
			if (control_inject(a, frame, flen) == 0)
				control_stats.injected_cp++;
		}
	}
}

/* --- punted frames to the CP --------------------------------------------------- */

static void
punt_drain(struct app *a)
{
	struct rte_mbuf *m[APP_BURST];
	struct sockaddr_in to = {.sin_family = AF_INET};
	unsigned int n, i;
	int len;

	to.sin_addr.s_addr = htonl(ctl.redirect.cp_ip);
	to.sin_port = htons(ctl.redirect.cp_port);
	while ((n = rte_ring_sc_dequeue_burst(a->punt_ring, (void **)m, APP_BURST, NULL)) > 0) {
		for (i = 0; i < n; i++) {
			uint32_t plen = rte_pktmbuf_pkt_len(m[i]);
			const void *p;

			len = -1;
			if (plen <= VXLAN_MAX_INNER) {
				p = rte_pktmbuf_read(m[i], 0, plen, ctl.tx + VXLAN_HLEN);
				if (p != NULL)
					len = vxlan_encap(ctl.tx, sizeof(ctl.tx),
							  a->cfg->instance.id, p, (uint16_t)plen);
			}
			rte_pktmbuf_free(m[i]);
			if (len < 0 || sendto(ctl.vxlan_fd, ctl.tx, (size_t)len, 0,
					      (struct sockaddr *)&to, sizeof(to)) != len) {
				control_stats.punt_tx_errors++;
				continue;
			}
			control_stats.punt_tx++;
		}
	}
}

static void nd_input(struct app *a, const uint8_t *f, uint32_t len, const struct cls_result *r,
		     uint64_t now);

/* --- ARP ------------------------------------------------------------------------ */

static int
arp_send(void *arg, const uint8_t *frame, uint16_t len)
{
	if (control_inject(arg, frame, len) != 0)
		return -1;
	control_stats.arp_tx++;
	return 0;
}

static void
arp_drain(struct app *a, uint64_t now)
{
	struct rte_mbuf *m[APP_BURST];
	uint8_t frame[CTL_MAX_DGRAM], reply[NEIGH_FRAME_LEN];
	static struct cls_counters arp_cls; /* the worker counted these frames already */
	struct cls_result r;
	unsigned int n, i;
	uint16_t rlen;

	while ((n = rte_ring_sc_dequeue_burst(a->arp_ring, (void **)m, APP_BURST, NULL)) > 0) {
		for (i = 0; i < n; i++) {
			uint32_t len = RTE_MIN(rte_pktmbuf_pkt_len(m[i]), (uint32_t)sizeof(frame));
			const uint8_t *f = rte_pktmbuf_read(m[i], 0, len, frame);

			control_stats.arp_rx++;
			/* Classify again here rather than carry the result through the ring. */
			if (f != NULL) {
				classify_frame(a->lmap, f, len, &r, &arp_cls);
				if (r.kind == CLS_CORE_ND)
					nd_input(a, f, len, &r, now);
				else if (r.kind == CLS_CORE_ARP &&
					 neigh_arp_input(a->neigh, f, (uint16_t)len, &r, now, reply,
							 &rlen) == NEIGH_ARP_REPLY)
					arp_send(a, reply, rlen);
			}
			rte_pktmbuf_free(m[i]);
		}
	}
}

/* --- IPv6 Neighbor Discovery (core side) ---------------------------------------- */

static void
nd_send(struct app *a, const uint8_t *f, size_t len)
{
	if (len > 0 && control_inject(a, f, (uint16_t)len) == 0)
		control_stats.nd_tx++;
}

/* The served group whose core IPv6 address is target, or -1. */
static int
nd_group_of(const struct app *a, const uint8_t *target)
{
	for (unsigned int g = 0; g < a->cfg->n_line_groups; g++) {
		const struct dp_line_group *lg = &a->cfg->line_groups[g];

		if (!lg->standby && lg->has_core6 && memcmp(lg->core_address6, target, 16) == 0)
			return (int)g;
	}
	return -1;
}

static void
nd_router_heard(struct app *a, const uint8_t *mac, uint64_t now)
{
	uint64_t k = mac_key(mac);

	if ((mac[0] & 1) || k == 0)
		return;
	if (__atomic_load_n(&a->router6_mac, __ATOMIC_RELAXED) != k) {
		__atomic_store_n(&a->router6_mac, k, __ATOMIC_RELAXED);
		control_stats.nd_router_resolved++;
	}
	ctl.nd_heard_ms = now;
}

/* An NS or NA from the core (classified CLS_CORE_ND as r). */
static void
nd_input(struct app *a, const uint8_t *f, uint32_t len, const struct cls_result *r, uint64_t now)
{
	const struct dp_core *core = &a->cfg->core;
	uint8_t out[ND_FRAME_MAX];
	struct nd_msg m;
	int g;

	control_stats.nd_rx++;
	if ((uint32_t)r->l3_off + r->l3_len > len ||
	    nd_parse(f + r->l3_off, r->l3_len, &m) != ND_OK) {
		control_stats.nd_bad++;
		return;
	}
	if (core->has_router6 && m.type == ND_TYPE_NA &&
	    memcmp(m.target, core->router_address6, 16) == 0) {
		nd_router_heard(a, m.has_lla ? m.lla : f + 6, now);
		return;
	}
	if (m.type != ND_TYPE_NS)
		return;
	if (core->has_router6 && m.has_lla && memcmp(m.src, core->router_address6, 16) == 0)
		nd_router_heard(a, m.lla, now);
	g = nd_group_of(a, m.target);
	if (g < 0)
		return;
	if (ip6_is_unspecified(m.src)) {
		/* duplicate address detection of our address: defend it to all nodes */
		static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 1};
		static const uint8_t all_mac[6] = {0x33, 0x33, 0, 0, 0, 1};

		nd_send(a, out,
			nd_build_na(out, sizeof(out), all_mac, a->cfg->line_groups[g].core_mac,
				    core->vlan, all_nodes, m.target, ND_NA_R | ND_NA_O));
		return;
	}
	nd_send(a, out,
		nd_build_na(out, sizeof(out), m.has_lla ? m.lla : f + 6,
			    a->cfg->line_groups[g].core_mac, core->vlan, m.src, m.target,
			    ND_NA_R | ND_NA_S | ND_NA_O));
}

void
control_nd_announce(struct app *a)
{
	(void)a;
	ctl.nd_announce = ND_ANNOUNCE_COUNT;
	ctl.nd_next_ms = 0;
}

/* The first served group with a core IPv6 address: the source of our NS. */
static int
nd_source_group(const struct app *a)
{
	for (unsigned int g = 0; g < a->cfg->n_line_groups; g++)
		if (!a->cfg->line_groups[g].standby && a->cfg->line_groups[g].has_core6)
			return (int)g;
	return -1;
}

static void
nd_tick(struct app *a, uint64_t now)
{
	static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 1};
	static const uint8_t all_mac[6] = {0x33, 0x33, 0, 0, 0, 1};
	const struct dp_core *core = &a->cfg->core;
	uint8_t out[ND_FRAME_MAX];
	int src = nd_source_group(a);

	if (src < 0 || now < ctl.nd_next_ms)
		return;
	if (ctl.nd_announce > 0) {
		ctl.nd_announce--;
		for (unsigned int g = 0; g < a->cfg->n_line_groups; g++) {
			const struct dp_line_group *lg = &a->cfg->line_groups[g];

			if (!lg->standby && lg->has_core6)
				nd_send(a, out,
					nd_build_na(out, sizeof(out), all_mac, lg->core_mac,
						    core->vlan, all_nodes, lg->core_address6,
						    ND_NA_R | ND_NA_O));
		}
	}
	if (core->has_router6) {
		uint64_t resolved = __atomic_load_n(&a->router6_mac, __ATOMIC_RELAXED);

		if (resolved != 0 && now - ctl.nd_heard_ms > ND_STALE_MS)
			__atomic_store_n(&a->router6_mac, 0, __ATOMIC_RELAXED);
		nd_send(a, out,
			nd_build_ns(out, sizeof(out), a->cfg->line_groups[src].core_mac, core->vlan,
				    a->cfg->line_groups[src].core_address6, core->router_address6));
	}
	ctl.nd_next_ms = now + (ctl.nd_announce > 0 || __atomic_load_n(&a->router6_mac,
								       __ATOMIC_RELAXED) == 0
					? ND_PROBE_MS
					: ND_REFRESH_MS);
}

/* --- RA offload ------------------------------------------------------------------ */

static int
ra_send(void *arg, uint32_t id, const struct pfcp_ra_offload *ra)
{
	struct app *a = arg;
	const struct dp_session *s = session_get(a->sessions, id);
	uint8_t f[RA_FRAME_MAX];
	size_t n;

	if (!session_live(s))
		return 0; /* gone: the entry is switched off by the session's removal */
	n = s->encap.ipoe ? ra_build_ipoe(f, sizeof(f), s->encap.hdr, ra)
			  : ra_build(f, sizeof(f), s->encap.hdr, ra);
	return n > 0 ? control_inject(a, f, (uint16_t)n) : -1;
}

/* --- the loop ------------------------------------------------------------------- */

static void
timers(struct app *a)
{
	uint64_t now = control_now_ms();

	neigh_tick(a->neigh, now, arp_send, a);
	nd_tick(a, now);
	ra_tick(a->ra, now, ra_send, a);
	lcp_tick(a->lcp, now, &lcp_ops, a);
	arpping_tick(a->arpping, now, &arpping_ops, a);
	pfcp_up_tick(a->pfcp, now, pfcp_send, a);
	share_ctl_tick(a);
	if (now - ctl.last_reclaim_ms >= CTL_RECLAIM_MS) {
		ctl.last_reclaim_ms = now;
		session_reclaim(a->sessions);
	}
}

int
control_init(struct app *a)
{
	const struct dp_instance *in = &a->cfg->instance;
	struct epoll_event ev = {.events = EPOLLIN};
	struct control_redirect fallback = {
		.cp_ip = in->cp_address,
		.cp_port = in->vxlan_port,
		.classes = PUNT_REDIRECT_ALL,
	};

	ctl.pfcp_fd = udp_open(in->control_address, in->pfcp_port, "PFCP");
	if (ctl.pfcp_fd < 0)
		return -1;
	ctl.vxlan_fd = udp_open(in->control_address, in->vxlan_port, "VXLAN");
	if (ctl.vxlan_fd < 0)
		return -1;
	ctl.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (ctl.epfd < 0)
		return -1;
	ev.data.fd = ctl.pfcp_fd;
	if (epoll_ctl(ctl.epfd, EPOLL_CTL_ADD, ctl.pfcp_fd, &ev) != 0)
		return -1;
	ev.data.fd = ctl.vxlan_fd;
	if (epoll_ctl(ctl.epfd, EPOLL_CTL_ADD, ctl.vxlan_fd, &ev) != 0)
		return -1;
	/* Static fallback until a CP installs its default session. */
	control_redirect_set(a, &fallback);
	neigh_announce(a->neigh);
	control_nd_announce(a);
	return share_ctl_init(a);
}

void
control_run(struct app *a)
{
	struct epoll_event ev[4];
	int n, i;

	while (!a->stop) {
		n = epoll_wait(ctl.epfd, ev, 4, CONTROL_TICK_MS);
		for (i = 0; i < n; i++) {
			if (ev[i].data.fd == ctl.pfcp_fd)
				pfcp_readable(a);
			else if (ev[i].data.fd == ctl.vxlan_fd)
				vxlan_readable(a);
		}
		punt_drain(a);
		arp_drain(a, control_now_ms());
		timers(a);
	}
}

void
control_fini(struct app *a)
{
	share_ctl_fini(a);
	if (ctl.epfd >= 0)
		close(ctl.epfd);
	if (ctl.pfcp_fd >= 0)
		close(ctl.pfcp_fd);
	if (ctl.vxlan_fd >= 0)
		close(ctl.vxlan_fd);
	ctl.epfd = ctl.pfcp_fd = ctl.vxlan_fd = -1;
}

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

#include <rte_mbuf.h>

#include "control.h"

#define CTL_MAX_DGRAM 9216

struct control_stats {
	uint64_t pfcp_rx;
	uint64_t pfcp_tx;
	uint64_t pfcp_not_allowed;
	uint64_t vxlan_rx;
	uint64_t vxlan_not_allowed;
	uint64_t punt_dropped;
};

static struct {
	int epfd;
	int pfcp_fd;
	int vxlan_fd;
	struct control_stats st;
	uint8_t rx[CTL_MAX_DGRAM];
	uint8_t tx[CTL_MAX_DGRAM];
} ctl = {.epfd = -1, .pfcp_fd = -1, .vxlan_fd = -1};

static uint64_t
now_ms(void)
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
	int fd, one = 1;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		char a[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &sa.sin_addr, a, sizeof(a));
		fprintf(stderr, "bng-dp: %s socket %s:%u: %s\n", what, a, port, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int
control_init(struct app *a)
{
	const struct dp_instance *in = &a->cfg->instance;
	struct epoll_event ev = {.events = EPOLLIN};

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
	return 0;
}

/* Receive one datagram; its length, or -1 when none is waiting. Sets *from. */
static ssize_t
dgram_recv(int fd, struct sockaddr_in *from)
{
	socklen_t fl = sizeof(*from);

	return recvfrom(fd, ctl.rx, sizeof(ctl.rx), 0, (struct sockaddr *)from, &fl);
}

static void
pfcp_readable(struct app *a)
{
	struct sockaddr_in from;
	ssize_t n;

	while ((n = dgram_recv(ctl.pfcp_fd, &from)) >= 0) {
		if (ntohl(from.sin_addr.s_addr) != a->cfg->instance.cp_address) {
			ctl.st.pfcp_not_allowed++;
			continue;
		}
		ctl.st.pfcp_rx++;
	}
}

static void
vxlan_readable(struct app *a)
{
	struct sockaddr_in from;
	ssize_t n;

	while ((n = dgram_recv(ctl.vxlan_fd, &from)) >= 0) {
		if (ntohl(from.sin_addr.s_addr) != a->cfg->instance.cp_address) {
			ctl.st.vxlan_not_allowed++;
			continue;
		}
		ctl.st.vxlan_rx++;
	}
}

static void
punt_drain(struct app *a)
{
	struct rte_mbuf *m[APP_BURST];
	unsigned int n, i;

	while ((n = rte_ring_sc_dequeue_burst(a->punt_ring, (void **)m, APP_BURST, NULL)) > 0) {
		for (i = 0; i < n; i++) {
			ctl.st.punt_dropped++;
			rte_pktmbuf_free(m[i]);
		}
	}
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
		(void)now_ms();
	}
}

void
control_fini(struct app *a)
{
	(void)a;
	if (ctl.epfd >= 0)
		close(ctl.epfd);
	if (ctl.pfcp_fd >= 0)
		close(ctl.pfcp_fd);
	if (ctl.vxlan_fd >= 0)
		close(ctl.vxlan_fd);
	ctl.epfd = ctl.pfcp_fd = ctl.vxlan_fd = -1;
}

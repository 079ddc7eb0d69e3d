package core

import (
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/aaa"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the control plane's Prometheus collectors. Names follow the
// Prometheus conventions (bngcp_ prefix, _total for counters, base units).
type metrics struct {
	reg *prometheus.Registry

	sessions        *prometheus.GaugeVec   // by state
	setups          prometheus.Counter     // sessions that reached established
	setupSeconds    prometheus.Histogram   // PADR to PFCP-acknowledged establishment
	teardowns       *prometheus.CounterVec // by Acct-Terminate-Cause name
	frames          *prometheus.CounterVec // control frames received, by kind
	drops           *prometheus.CounterVec // frames dropped, by reason
	sent            *prometheus.CounterVec // frames sent, by kind
	authResults     *prometheus.CounterVec // accept, reject, error (no server)
	radiusLatency   *prometheus.HistogramVec
	radiusErrors    *prometheus.CounterVec // by server and kind
	acctRequests    *prometheus.CounterVec // by status and result
	pfcpRequests    *prometheus.CounterVec // by type and result
	pfcpErrors      *prometheus.CounterVec // by type and cause
	coaRequests     *prometheus.CounterVec // by kind and result
	poolSize        *prometheus.GaugeVec
	poolUsed        *prometheus.GaugeVec
	instanceUp      *prometheus.GaugeVec
	instanceRestart *prometheus.CounterVec
	repushed        prometheus.Counter
	groupMoves      *prometheus.CounterVec // line-group moves by result
	groupCalls      *prometheus.CounterVec // adopt/release by result
	sessionMoves    *prometheus.CounterVec // sessions installed on a group's new instance, by result
	groupInstance   *prometheus.GaugeVec   // serving instance id per line group
	ncpUp           *prometheus.CounterVec // IPv6CP opened (ipv6.go)
	ncpFailed       *prometheus.CounterVec // IPCP or IPv6CP failed alone, by protocol
	v6Sent          *prometheus.CounterVec // IPv6 control answers (ra, na, advertise, reply)
	v6Drops         *prometheus.CounterVec // IPv6 control packets dropped, by reason
	usageOctets     *prometheus.CounterVec // usage reported by the DPs: family (total, ipv6), direction
	usagePackets    *prometheus.CounterVec
}

func newMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	f := func(c prometheus.Collector) { m.reg.MustRegister(c) }
	m.sessions = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "bngcp_sessions", Help: "Subscriber sessions by state.",
	}, []string{"state"})
	m.setups = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "bngcp_session_setups_total", Help: "Sessions that reached the established state (PFCP acknowledged).",
	})
	m.setupSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "bngcp_session_setup_seconds", Help: "Time from PADR to the DP's acknowledged Session Establishment.",
		Buckets: prometheus.ExponentialBuckets(0.001, 2, 14),
	})
	m.teardowns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bngcp_session_teardowns_total", Help: "Sessions ended, by Acct-Terminate-Cause.",
	}, []string{"cause"})
	m.frames = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bngcp_frames_received_total", Help: "Control frames received from DP instances, by kind.",
	}, []string{"kind"})
	m.drops = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bngcp_frames_dropped_total", Help: "Control frames and datagrams dropped, by reason.",
	}, []string{"reason"})
	m.sent = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bngcp_frames_sent_total", Help: "Control frames sent to DP instances, by kind.",
	}, []string{"kind"})
	m.authResults = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bngcp_auth_results_total", Help: "Authentication outcomes.",
	}, []string{"result"})
	m.radiusLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "bngcp_radius_latency_seconds", Help: "RADIUS request latency by server.",
		Buckets: prometheus.ExponentialBuckets(0.0002, 2, 15),
	}, []string{"server"})
	m.radiusErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bngcp_radius_errors_total", Help: "RADIUS errors (timeouts, bad authenticators, all servers down).",
	}, []string{"kind"})
	m.acctRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bngcp_accounting_requests_total", Help: "Accounting-Requests by status type and result.",
	}, []string{"status", "result"})
	m.pfcpRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bngcp_pfcp_requests_total", Help: "PFCP session requests to DP instances by type and result.",
	}, []string{"type", "result"})
	m.pfcpErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bngcp_pfcp_errors_total", Help: "PFCP refusals and timeouts by request type and cause.",
	}, []string{"type", "cause"})
	m.coaRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bngcp_dynauth_requests_total", Help: "RFC 5176 requests by kind and result.",
	}, []string{"kind", "result"})
	m.poolSize = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "bngcp_pool_addresses", Help: "Assignable addresses per line group.",
	}, []string{"line_group"})
	m.poolUsed = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "bngcp_pool_addresses_used", Help: "Addresses in use per line group.",
	}, []string{"line_group"})
	m.instanceUp = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "bngcp_instance_up", Help: "1 when the DP instance's PFCP association is up.",
	}, []string{"instance"})
	m.instanceRestart = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bngcp_instance_restarts_total", Help: "DP instance restarts seen (new Recovery Time Stamp).",
	}, []string{"instance"})
	m.repushed = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "bngcp_sessions_repushed_total", Help: "Sessions installed again into a restarted DP instance.",
	})
	m.groupMoves = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bngcp_line_group_moves_total", Help: "Line-group moves to another DP instance (ONOS placement), by result: ok, failed (retried).",
	}, []string{"result"})
	m.groupCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bngcp_line_group_updates_total", Help: "Association Updates with the bngpod Line Group IE, by action (adopt, release) and result.",
	}, []string{"action", "result"})
	m.sessionMoves = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bngcp_sessions_moved_total", Help: "Sessions installed on their line group's new instance, by result.",
	}, []string{"result"})
	m.groupInstance = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "bngcp_line_group_instance", Help: "Id of the DP instance serving the line group.",
	}, []string{"line_group"})
	m.ncpUp = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bngcp_ncp_up_total", Help: "Network control protocols opened besides IPCP (ipv6cp).",
	}, []string{"protocol"})
	m.ncpFailed = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bngcp_ncp_failed_total", Help: "IPCP or IPv6CP that failed while the other ran on (the session stayed up).",
	}, []string{"protocol"})
	m.v6Sent = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bngcp_ipv6_control_sent_total", Help: "IPv6 control answers sent: ra, na, advertise, reply.",
	}, []string{"kind"})
	m.v6Drops = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bngcp_ipv6_control_dropped_total", Help: "IPv6 control packets (RS, NS, DHCPv6) of sessions dropped, by reason.",
	}, []string{"reason"})
	m.usageOctets = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bngcp_usage_octets_total", Help: "Octets the DPs reported for the sessions: family total (both) or ipv6, direction up or down.",
	}, []string{"family", "direction"})
	m.usagePackets = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bngcp_usage_packets_total", Help: "Packets the DPs reported for the sessions: family total (both) or ipv6, direction up or down.",
	}, []string{"family", "direction"})
	for _, c := range []prometheus.Collector{m.groupMoves, m.groupCalls, m.sessionMoves, m.groupInstance,
		m.ncpUp, m.ncpFailed, m.v6Sent, m.v6Drops, m.usageOctets, m.usagePackets} {
		f(c)
	}
	for _, c := range []prometheus.Collector{m.sessions, m.setups, m.setupSeconds, m.teardowns, m.frames,
		m.drops, m.sent, m.authResults, m.radiusLatency, m.radiusErrors, m.acctRequests, m.pfcpRequests,
		m.pfcpErrors, m.coaRequests, m.poolSize, m.poolUsed, m.instanceUp, m.instanceRestart, m.repushed} {
		f(c)
	}
	f(collectors.NewGoCollector())
	f(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// radiusCollector exports the RADIUS client's own counters per server.
type radiusCollector struct {
	stats                              func() aaa.Stats
	requests, responses, retransmits   *prometheus.Desc
	timeouts, dropped, alive, failover *prometheus.Desc
}

func newRadiusCollector(stats func() aaa.Stats) *radiusCollector {
	l := []string{"server", "kind", "address"}
	return &radiusCollector{
		stats:       stats,
		requests:    prometheus.NewDesc("bngcp_radius_requests_total", "RADIUS requests sent (without retransmissions).", l, nil),
		responses:   prometheus.NewDesc("bngcp_radius_responses_total", "Valid RADIUS replies.", l, nil),
		retransmits: prometheus.NewDesc("bngcp_radius_retransmissions_total", "RADIUS retransmissions.", l, nil),
		timeouts:    prometheus.NewDesc("bngcp_radius_timeouts_total", "RADIUS transmissions without a valid reply in time.", l, nil),
		dropped: prometheus.NewDesc("bngcp_radius_replies_dropped_total",
			"RADIUS replies dropped, by reason (bad or missing authenticators, malformed, unmatched).", append(l, "reason"), nil),
		alive:    prometheus.NewDesc("bngcp_radius_server_up", "0 while the server is marked dead.", l, nil),
		failover: prometheus.NewDesc("bngcp_radius_failovers_total", "Moves to the next RADIUS server within one request.", nil, nil),
	}
}

func (c *radiusCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.requests, c.responses, c.retransmits, c.timeouts, c.dropped, c.alive, c.failover} {
		ch <- d
	}
}

func (c *radiusCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.stats()
	ch <- prometheus.MustNewConstMetric(c.failover, prometheus.CounterValue, float64(st.Failovers))
	for _, s := range st.Servers {
		l := []string{s.Name, s.Kind, s.Addr}
		ch <- prometheus.MustNewConstMetric(c.requests, prometheus.CounterValue, float64(s.Requests), l...)
		ch <- prometheus.MustNewConstMetric(c.responses, prometheus.CounterValue, float64(s.Responses), l...)
		ch <- prometheus.MustNewConstMetric(c.retransmits, prometheus.CounterValue, float64(s.Retransmits), l...)
		ch <- prometheus.MustNewConstMetric(c.timeouts, prometheus.CounterValue, float64(s.Timeouts), l...)
		for reason, v := range map[string]uint64{
			"bad_authenticator": s.BadAuthenticator, "missing_message_authenticator": s.MissingMessageAuthenticator,
			"bad_message_authenticator": s.BadMessageAuthenticator, "malformed": s.Malformed,
			"unmatched": s.Unmatched, "unexpected_code": s.UnexpectedCode,
		} {
			ch <- prometheus.MustNewConstMetric(c.dropped, prometheus.CounterValue, float64(v), append(l, reason)...)
		}
		up := 1.0
		if !s.DeadUntil.IsZero() {
			up = 0
		}
		ch <- prometheus.MustNewConstMetric(c.alive, prometheus.GaugeValue, up, l...)
	}
}

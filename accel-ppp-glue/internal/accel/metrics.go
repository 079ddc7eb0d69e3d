package accel

import (
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// collector exposes the glue's counters to Prometheus at scrape time: one
// counter family by name (events by source and kind, refusals by reason,
// installs, removals, re-syncs, accounting) and the sessions held.
type collector struct {
	g        *Glue
	counts   *prometheus.Desc
	sessions *prometheus.Desc
}

func newCollector(g *Glue) *collector {
	return &collector{g: g,
		counts: prometheus.NewDesc("bngpod_accel_glue_total",
			"bng-accel-glue's counters: events by source and kind, refused_<reason>, installed, removed, resyncs, accounting_<status>, ...",
			[]string{"name"}, nil),
		sessions: prometheus.NewDesc("bngpod_accel_glue_sessions", "sessions held by bng-accel-glue", nil, nil)}
}

func (c *collector) Describe(ch chan<- *prometheus.Desc) { ch <- c.counts; ch <- c.sessions }

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	for name, v := range c.g.Counts() {
		ch <- prometheus.MustNewConstMetric(c.counts, prometheus.CounterValue, float64(v), name)
	}
	c.g.mu.Lock()
	n := len(c.g.bySID)
	c.g.mu.Unlock()
	ch <- prometheus.MustNewConstMetric(c.sessions, prometheus.GaugeValue, float64(n))
}

// metricsServer serves GET /metrics on addr.
func metricsServer(addr string, g *Glue) (*http.Server, error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(newCollector(g))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return srv, nil
}

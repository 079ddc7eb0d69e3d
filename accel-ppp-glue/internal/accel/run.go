package accel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"sync"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/aaa"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/config"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pfcpcp"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/store"
)

// RunConfig is the daemon's configuration (bng-accel-glue's flags).
type RunConfig struct {
	Config        *config.Config
	StatePath     string        // the session store (bbolt)
	HookSocket    string        // pppd-compat hooks' socket ("" = no pppd-compat events)
	RedisAddr     string        // the fork's redis ("" = no redis events)
	RedisChannel  string        // its pubchan
	CLI           *CLI          // accel-ppp's CLI (nil = none: no re-sync, no terminate)
	ProcPPPoE     string        // /proc/net/pppoe ("" = not read)
	RadattrPrefix string        // pppd-compat's radattr-prefix ("" = none)
	Interim       time.Duration // usage report period of the sessions (Interim-Updates)
	Resync        time.Duration // re-sync with accel-ppp's CLI this often (0 = at start and after redis reconnects only)
	Accounting    bool          // send RADIUS accounting from the DP's usage
	StatusSocket  string        // HTTP on a unix socket: GET /v1/sessions, /v1/counters ("" = none)
	MetricsAddr   string        // Prometheus listener, GET /metrics ("" = none)
	Logger        *slog.Logger
}

// CheckSources refuses a configuration without an event source, or with
// pppd-compat events where the PPPoE session ids cannot be read.
func CheckSources(rc *RunConfig) error {
	if rc.HookSocket == "" && rc.RedisAddr == "" {
		return errors.New("no event source: give -hook-socket (upstream accel-ppp, pppd-compat) or -redis (the fork's events)")
	}
	if rc.HookSocket != "" {
		f, err := os.Open(rc.ProcPPPoE)
		if err != nil {
			return fmt.Errorf("pppd-compat events carry no PPPoE session id and %s cannot be read (%v): "+
				"run bng-accel-glue on the control server beside accel-ppp (kernel PPPoE), or use the fork's redis events", rc.ProcPPPoE, err)
		}
		_, err = ParseProcPPPoE(f)
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// handlerSlot hands the PFCP function's events to the glue made after it.
type handlerSlot struct{ g *Glue }

func (h *handlerSlot) PeerUp(i uint32, t time.Time, f pfcpcp.Features) { h.g.PeerUp(i, t, f) }
func (h *handlerSlot) PeerDown(i uint32)                               { h.g.PeerDown(i) }
func (h *handlerSlot) Usage(i uint32, cp uint64, u pfcpcp.Usage)       { h.g.Usage(i, cp, u) }
func (h *handlerSlot) LCPDead(i uint32, cp uint64)                     { h.g.LCPDead(i, cp) }

// Run serves until ctx ends.
func Run(ctx context.Context, rc RunConfig) error {
	if err := CheckSources(&rc); err != nil {
		return err
	}
	log := rc.Logger
	if log == nil {
		log = slog.Default()
	}
	if rc.RedisChannel == "" {
		rc.RedisChannel = "accel-ppp"
	}
	cfg := rc.Config
	cp := cfg.ControlPlane
	db, err := store.Open(rc.StatePath)
	if err != nil {
		return err
	}
	defer db.Close()
	var peers []pfcpcp.Peer
	for _, in := range cfg.Instances {
		peers = append(peers, pfcpcp.Peer{Instance: in.ID, Addr: netip.AddrPortFrom(in.ControlAddress, cp.PFCPPort)})
	}
	slot := &handlerSlot{}
	f, err := pfcpcp.New(pfcpcp.Config{
		Local: netip.AddrPortFrom(cp.Address, cp.PFCPPort), NodeID: cp.Address,
		// the default session redirects to the control server's VXLAN interfaces
		Redirect:     netip.AddrPortFrom(cp.Address, cp.VXLANPort),
		RecoveryTime: time.Now(), URRPeriod: rc.Interim,
		Heartbeat: cp.Heartbeat, HeartbeatT1: cp.HeartbeatTimeout, HeartbeatN1: cp.HeartbeatTries,
	}, peers, slot)
	if err != nil {
		return fmt.Errorf("PFCP: %w", err)
	}
	var acct Accountant
	if rc.Accounting {
		var servers []aaa.Server
		for _, s := range cfg.Radius.Servers {
			servers = append(servers, aaa.Server{Name: s.Name, Auth: netip.AddrPortFrom(s.Address, s.AuthPort),
				Acct: netip.AddrPortFrom(s.Address, s.AcctPort), Secret: []byte(string(s.Secret))})
		}
		rcl, err := aaa.NewClient(aaa.ClientConfig{Servers: servers, Timeout: cfg.Radius.Timeout, Retries: cfg.Radius.Retries,
			NASIdentifier: cfg.Radius.NASIdentifier, NASIPAddress: cp.Address, LocalAddr: cp.Address})
		if err != nil {
			return fmt.Errorf("RADIUS: %w", err)
		}
		defer rcl.Close()
		acct = rcl
	}
	var ctl Controller
	if rc.CLI != nil {
		ctl = rc.CLI
	}
	proc := ""
	if rc.ProcPPPoE != "" {
		if _, err := os.Stat(rc.ProcPPPoE); err == nil {
			proc = rc.ProcPPPoE
		}
	}
	g, err := New(Options{Config: cfg, ProcPPPoE: proc, RadattrPrefix: rc.RadattrPrefix, Logger: log}, f, acct, ctl, db)
	if err != nil {
		return err
	}
	slot.g = g

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	spawn := func(fn func()) { wg.Add(1); go func() { defer wg.Done(); fn() }() }
	spawn(func() { _ = f.Run(ctx) })
	if acct != nil {
		spawn(func() { g.RunAccounting(ctx) })
	}
	resync := make(chan struct{}, 1)
	kick := func() {
		select {
		case resync <- struct{}{}:
		default:
		}
	}
	if ctl != nil {
		kick()
		spawn(func() { resyncLoop(ctx, g, log, resync, rc.Resync) })
	}
	if rc.HookSocket != "" {
		hs, err := ListenHook(rc.HookSocket, g.Hook, g.Refused)
		if err != nil {
			return fmt.Errorf("hook socket: %w", err)
		}
		spawn(func() { hs.Serve(ctx) })
	}
	if rc.RedisAddr != "" {
		spawn(func() {
			backoff := time.Second
			for ctx.Err() == nil {
				err := Subscribe(ctx, rc.RedisAddr, rc.RedisChannel, func() {
					backoff = time.Second
					log.Info("subscribed to accel-ppp's events", "redis", rc.RedisAddr, "channel", rc.RedisChannel)
					kick() // what was published while away is lost: ask accel-ppp
				}, func(p []byte) { g.Redis(ctx, p) })
				if ctx.Err() != nil {
					return
				}
				g.count("redis_reconnects")
				log.Warn("redis", "err", err, "retry_in", backoff)
				select {
				case <-ctx.Done():
				case <-time.After(backoff):
				}
				backoff = min(2*backoff, 10*time.Second)
			}
		})
	}
	if rc.StatusSocket != "" {
		srv, err := statusServer(rc.StatusSocket, g)
		if err != nil {
			return fmt.Errorf("status socket: %w", err)
		}
		spawn(func() { <-ctx.Done(); _ = srv.Close() })
	}
	if rc.MetricsAddr != "" {
		srv, err := metricsServer(rc.MetricsAddr, g)
		if err != nil {
			return fmt.Errorf("metrics: %w", err)
		}
		spawn(func() { <-ctx.Done(); _ = srv.Close() })
	}
	log.Info("bng-accel-glue running", "pod", cfg.Pod, "sessions", len(g.Sessions()),
		"hook", rc.HookSocket, "redis", rc.RedisAddr)
	<-ctx.Done()
	wg.Wait()
	return nil
}

func resyncLoop(ctx context.Context, g *Glue, log *slog.Logger, kick <-chan struct{}, every time.Duration) {
	var tick <-chan time.Time
	if every > 0 {
		t := time.NewTicker(every)
		defer t.Stop()
		tick = t.C
	}
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-kick:
		case <-tick:
		case <-retry.C:
		}
		if err := g.Resync(ctx); err != nil {
			g.count("resync_failed")
			log.Warn("re-sync with accel-ppp's CLI failed, retried in 5 s", "err", err)
			retry.Reset(5 * time.Second)
		}
	}
}

func statusServer(path string, g *Glue) (*http.Server, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSocket != 0 {
		_ = os.Remove(path)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	_ = os.Chmod(path, 0o600)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/sessions", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(g.Sessions())
	})
	mux.HandleFunc("GET /v1/counters", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(g.Counts())
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return srv, nil
}

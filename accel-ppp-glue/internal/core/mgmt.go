package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// The management API (HTTP and JSON on a unix socket, for bngcpctl) and the
// Prometheus endpoint.

type sessionView struct {
	ID             string `json:"id"`
	State          string `json:"state"`
	User           string `json:"user"`
	Instance       uint32 `json:"instance"`
	AccessPort     string `json:"access_port"`
	STag           uint16 `json:"stag"`
	CTag           uint16 `json:"ctag"`
	MAC            string `json:"mac"`
	PPPoESessionID uint16 `json:"pppoe_session_id"`
	IPv4           string `json:"ipv4"`
	QosProfile     string `json:"qos_profile"`
	RateDown       uint64 `json:"rate_down"`
	RateUp         uint64 `json:"rate_up"`
	AcctSessionID  string `json:"acct_session_id"`
	Started        string `json:"started"`
	UpOctets       uint64 `json:"up_octets"`
	DownOctets     uint64 `json:"down_octets"`
	UpPackets      uint64 `json:"up_packets"`
	DownPackets    uint64 `json:"down_packets"`
	CPSEID         uint64 `json:"cp_seid"`
	UPSEID         uint64 `json:"up_seid"`
	CircuitID      string `json:"circuit_id"`
	RemoteID       string `json:"remote_id"`
}

type poolView struct {
	Name      string   `json:"name"`
	LineGroup string   `json:"line_group"`
	Prefixes  []string `json:"prefixes"`
	Size      int      `json:"size"`
	Used      int      `json:"used"`
}

type instanceView struct {
	ID           uint32 `json:"id"`
	Name         string `json:"name"`
	Address      string `json:"address"`
	State        string `json:"state"`
	RecoveryTime string `json:"recovery_time"`
	Since        string `json:"since"`
	Sessions     int    `json:"sessions"`
	LCPOffload   bool   `json:"lcp_offload"`
}

func (s *session) view() sessionView {
	r := &s.rec
	v := sessionView{
		ID: r.ID, State: s.state.String(), User: r.User, Instance: r.Instance, AccessPort: r.AccessPort,
		STag: r.STag, CTag: r.CTag, MAC: macString(r.MAC), PPPoESessionID: r.PPPoESID,
		QosProfile: r.QosProfile, RateDown: r.RateDown, RateUp: r.RateUp, AcctSessionID: r.ID,
		UpOctets: r.UpOctets, DownOctets: r.DownOctets, UpPackets: r.UpPackets, DownPackets: r.DownPackets,
		CPSEID: r.CPSEID, UPSEID: r.UPSEID, CircuitID: r.CircuitID, RemoteID: r.RemoteID,
	}
	if r.IPv4.IsValid() {
		v.IPv4 = r.IPv4.String()
	}
	if !r.Started.IsZero() {
		v.Started = r.Started.Format(time.RFC3339)
	}
	return v
}

// snapshot collects every shard's sessions.
func (d *Daemon) snapshot(ctx context.Context) ([]sessionView, error) {
	out := make(chan []sessionView, len(d.shards))
	for _, sh := range d.shards {
		sh := sh
		sh.post(func() {
			vs := make([]sessionView, 0, len(sh.sessions))
			for _, s := range sh.sessions {
				vs = append(vs, s.view())
			}
			out <- vs
		})
	}
	var all []sessionView
	for range d.shards {
		select {
		case vs := <-out:
			all = append(all, vs...)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	return all, nil
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

func writeErr(w http.ResponseWriter, code int, format string, args ...any) {
	writeJSON(w, code, map[string]string{"error": fmt.Sprintf(format, args...)})
}

func (d *Daemon) mgmtHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/sessions", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		var inst uint64
		if v := q.Get("instance"); v != "" {
			n, err := strconv.ParseUint(v, 10, 32)
			if err != nil {
				writeErr(w, http.StatusBadRequest, "instance: not a number: %q", v)
				return
			}
			inst = n
		}
		all, err := d.snapshot(r.Context())
		if err != nil {
			writeErr(w, http.StatusServiceUnavailable, "%v", err)
			return
		}
		out := all[:0]
		for _, v := range all {
			if (inst != 0 && uint64(v.Instance) != inst) || (q.Get("user") != "" && v.User != q.Get("user")) ||
				(q.Get("state") != "" && v.State != q.Get("state")) {
				continue
			}
			out = append(out, v)
		}
		writeJSON(w, http.StatusOK, out)
	})
	mux.HandleFunc("GET /v1/sessions/{id}", func(w http.ResponseWriter, r *http.Request) {
		s := d.findByID(r.PathValue("id"))
		if s == nil {
			writeErr(w, http.StatusNotFound, "no session %q", r.PathValue("id"))
			return
		}
		v, err := onShard(r.Context(), s, s.view)
		if err != nil {
			writeErr(w, http.StatusServiceUnavailable, "%v", err)
			return
		}
		writeJSON(w, http.StatusOK, v)
	})
	mux.HandleFunc("DELETE /v1/sessions/{id}", func(w http.ResponseWriter, r *http.Request) {
		s := d.findByID(r.PathValue("id"))
		if s == nil {
			writeErr(w, http.StatusNotFound, "no session %q", r.PathValue("id"))
			return
		}
		ok, err := onShard(r.Context(), s, func() bool {
			if s.dead {
				return false
			}
			s.sh.teardown(s, causeAdminReset, true, "terminated by the operator")
			return true
		})
		if err != nil || !ok {
			writeErr(w, http.StatusNotFound, "session %q is already ending", r.PathValue("id"))
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"terminated": r.PathValue("id")})
	})
	mux.HandleFunc("GET /v1/pools", func(w http.ResponseWriter, r *http.Request) {
		var out []poolView
		for _, g := range d.cfg.LineGroups {
			size, used := d.pools[g.Name].Usage()
			v := poolView{Name: g.Name, LineGroup: g.Name, Size: size, Used: used}
			for _, p := range g.Pools {
				v.Prefixes = append(v.Prefixes, p.Prefix.String())
				if v.Name == g.Name {
					v.Name = p.Name
				} else {
					v.Name += "," + p.Name
				}
			}
			out = append(out, v)
		}
		writeJSON(w, http.StatusOK, out)
	})
	mux.HandleFunc("GET /v1/instances", func(w http.ResponseWriter, r *http.Request) {
		counts := map[uint32]int{}
		d.idxMu.RLock()
		for _, s := range d.bySEID {
			counts[s.rec.Instance]++
		}
		d.idxMu.RUnlock()
		var out []instanceView
		d.peerMu.Lock()
		for _, in := range d.cfg.Instances {
			p := d.peers[in.ID]
			v := instanceView{ID: in.ID, Name: in.Name, Address: in.ControlAddress.String(), State: "down",
				Sessions: counts[in.ID], LCPOffload: p.features.LCPOffload}
			if p.up {
				v.State = "up"
			}
			if !p.rts.IsZero() {
				v.RecoveryTime = p.rts.UTC().Format(time.RFC3339)
			}
			if !p.since.IsZero() {
				v.Since = p.since.UTC().Format(time.RFC3339)
			}
			out = append(out, v)
		}
		d.peerMu.Unlock()
		writeJSON(w, http.StatusOK, out)
	})
	mux.HandleFunc("GET /v1/stats", func(w http.ResponseWriter, r *http.Request) {
		all, err := d.snapshot(r.Context())
		if err != nil {
			writeErr(w, http.StatusServiceUnavailable, "%v", err)
			return
		}
		byState := map[string]int{}
		for _, v := range all {
			byState[v.State]++
		}
		writeJSON(w, http.StatusOK, map[string]any{"sessions": len(all), "by_state": byState, "boot": d.boot})
	})
	return mux
}

func (d *Daemon) findByID(id string) *session {
	d.idxMu.RLock()
	defer d.idxMu.RUnlock()
	if s := d.byID[id]; s != nil {
		return s
	}
	return nil
}

// startHTTP starts the management socket and the metrics listener; the
// returned function stops both.
func (d *Daemon) startHTTP(errc chan<- error) (func(), error) {
	var servers []*http.Server
	serve := func(srv *http.Server, ln net.Listener, what string) {
		servers = append(servers, srv)
		go func() {
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("%s: %w", what, err)
			}
		}()
	}
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		for _, s := range servers {
			_ = s.Shutdown(ctx)
		}
		if d.opt.CtlSocket != "" {
			_ = os.Remove(d.opt.CtlSocket)
		}
	}
	if d.opt.CtlSocket != "" {
		if err := os.MkdirAll(filepath.Dir(d.opt.CtlSocket), 0o755); err != nil {
			return nil, fmt.Errorf("management socket: %w", err)
		}
		_ = os.Remove(d.opt.CtlSocket) // a stale socket of a previous run
		ln, err := net.Listen("unix", d.opt.CtlSocket)
		if err != nil {
			return nil, fmt.Errorf("management socket: %w", err)
		}
		_ = os.Chmod(d.opt.CtlSocket, 0o660)
		serve(&http.Server{Handler: d.mgmtHandler(), ReadHeaderTimeout: 5 * time.Second}, ln, "management API")
	}
	if d.opt.MetricsAddr != "" {
		ln, err := net.Listen("tcp", d.opt.MetricsAddr)
		if err != nil {
			stop()
			return nil, fmt.Errorf("metrics listener: %w", err)
		}
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.HandlerFor(d.m.reg, promhttp.HandlerOpts{}))
		serve(&http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}, ln, "metrics")
	}
	return stop, nil
}

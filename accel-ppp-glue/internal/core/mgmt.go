package core

import (
	"net/netip"

	"context"
	"errors"
	"fmt"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/api"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// The management API (HTTP and JSON on a unix socket, for bngcpctl) and the
// Prometheus endpoint.

func (s *session) view() api.SessionView {
	r := &s.rec
	v := api.SessionView{
		ID: r.ID, State: s.state.String(), Kind: r.kind(), LeaseEnd: timePtr(r.LeaseEnd), LeaseEnd6: timePtr(r.LeaseEnd6), User: r.User, Instance: r.Instance, AccessPort: r.AccessPort,
		STag: r.STag, CTag: r.CTag, MAC: macString(r.MAC), PPPoESessionID: r.PPPoESID, IPv4: r.IPv4,
		QosProfile: r.QosProfile, RateDown: r.RateDown, RateUp: r.RateUp, AcctSessionID: r.ID,
		Started: r.Started, UpOctets: r.UpOctets, DownOctets: r.DownOctets, UpPackets: r.UpPackets,
		DownPackets: r.DownPackets, CPSEID: r.CPSEID, UPSEID: r.UPSEID, CircuitID: r.CircuitID,
		RemoteID:   r.RemoteID,
		IPv6Prefix: prefixPtr(r.IPv6Prefix), DelegatedPrefix: prefixPtr(r.DelegatedPrefix), IPv6Address: addrPtr(r.IPv6Address),
		IPv6Up: r.IIDLocal != 0, PrefixBound: r.DHCP6.PDBound, V6UpOctets: r.V6UpOctets,
		V6DownOctets: r.V6DownOctets, V6UpPackets: r.V6UpPackets, V6DownPackets: r.V6DownPackets,
	}
	if s.group != nil {
		v.LineGroup, v.ACMAC = s.group.Name, s.group.ACMAC.String()
	}
	if s.line != nil && s.line.AccessPort != nil {
		v.TPID = s.line.AccessPort.TPID
	}
	return v
}

// snapshot collects every shard's sessions.
func (d *Daemon) snapshot(ctx context.Context) ([]api.SessionView, error) {
	out := make(chan []api.SessionView, len(d.shards))
	for _, sh := range d.shards {
		sh := sh
		sh.post(func() {
			vs := make([]api.SessionView, 0, len(sh.sessions))
			for _, s := range sh.sessions {
				vs = append(vs, s.view())
			}
			out <- vs
		})
	}
	var all []api.SessionView
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

func writeErr(w http.ResponseWriter, code int, format string, args ...any) {
	api.WriteError(w, code, fmt.Sprintf(format, args...))
}

func (d *Daemon) mgmtHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+api.PathSessions, func(w http.ResponseWriter, r *http.Request) {
		f, err := api.ParseSessionFilter(r.URL.Query())
		if err != nil {
			writeErr(w, http.StatusBadRequest, "%v", err)
			return
		}
		all, err := d.snapshot(r.Context())
		if err != nil {
			writeErr(w, http.StatusServiceUnavailable, "%v", err)
			return
		}
		out := make([]api.SessionView, 0, len(all))
		for i := range all {
			if f.Match(&all[i]) {
				out = append(out, all[i])
			}
		}
		api.WriteJSON(w, http.StatusOK, out)
	})
	mux.HandleFunc("GET "+api.PathSessions+"/{id}", func(w http.ResponseWriter, r *http.Request) {
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
		api.WriteJSON(w, http.StatusOK, v)
	})
	mux.HandleFunc("DELETE "+api.PathSessions+"/{id}", func(w http.ResponseWriter, r *http.Request) {
		s := d.findByID(r.PathValue("id"))
		if s == nil {
			writeErr(w, http.StatusNotFound, "no session %q", r.PathValue("id"))
			return
		}
		type res struct {
			v  api.SessionView
			ok bool
		}
		out, err := onShard(r.Context(), s, func() res {
			if s.dead {
				return res{}
			}
			s.sh.teardown(s, causeAdminReset, padtSend, "terminated by the operator")
			return res{s.view(), true}
		})
		if err != nil || !out.ok {
			writeErr(w, http.StatusNotFound, "session %q is already ending", r.PathValue("id"))
			return
		}
		api.WriteJSON(w, http.StatusOK, out.v)
	})
	mux.HandleFunc("GET "+api.PathPools, func(w http.ResponseWriter, r *http.Request) {
		var out []api.PoolView
		for _, g := range d.cfg.LineGroups {
			for _, p := range g.Pools {
				psize, pused, _ := d.pools[g.Name].PrefixUsage(p.Prefix)
				out = append(out, api.PoolView{Name: p.Name, LineGroup: g.Name,
					Prefixes: []netip.Prefix{p.Prefix}, Size: psize, Used: pused})
			}
		}
		api.WriteJSON(w, http.StatusOK, out)
	})
	mux.HandleFunc("GET "+api.PathInstances, func(w http.ResponseWriter, r *http.Request) {
		counts := map[uint32]int{}
		d.idxMu.RLock()
		for _, s := range d.bySEID {
			counts[s.rec.Instance]++
		}
		d.idxMu.RUnlock()
		var out []api.InstanceView
		d.peerMu.Lock()
		for _, in := range d.cfg.Instances {
			p := d.peers[in.ID]
			v := api.InstanceView{ID: in.ID, Name: in.Name, Address: in.ControlAddress.String(), State: "down",
				Sessions: counts[in.ID], LCPOffload: p.features.LCPOffload, IPoE: p.features.IPoE, IPoE6: p.features.IPoE6,
				RecoveryTime: p.rts.UTC(),
				Since:        p.since.UTC()}
			if p.up {
				v.State = "associated"
			}
			out = append(out, v)
		}
		d.peerMu.Unlock()
		api.WriteJSON(w, http.StatusOK, out)
	})
	mux.HandleFunc("GET "+api.PathGroups, func(w http.ResponseWriter, r *http.Request) {
		out := []api.GroupView{}
		for _, g := range d.groupViews() {
			out = append(out, api.GroupView{Name: g.name, StatedInstance: g.stated, Instance: g.serving,
				InstanceName: d.instanceName(g.serving), Moved: g.stated != g.serving, Sessions: g.sessions})
		}
		api.WriteJSON(w, http.StatusOK, out)
	})
	mux.HandleFunc("GET "+api.PathStats, func(w http.ResponseWriter, r *http.Request) {
		all, err := d.snapshot(r.Context())
		if err != nil {
			writeErr(w, http.StatusServiceUnavailable, "%v", err)
			return
		}
		byState := map[string]int{}
		for _, v := range all {
			byState[v.State]++
		}
		api.WriteJSON(w, http.StatusOK, api.Stats{"sessions": len(all), "by_state": byState, "boot": d.boot,
			"pfcp": d.plane.Stats(), "radius": d.radius.Stats()})
	})
	return mux
}

func (d *Daemon) findByID(id string) *session {
	d.idxMu.RLock()
	defer d.idxMu.RUnlock()
	return d.byID[id]
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

func prefixPtr(p netip.Prefix) *netip.Prefix {
	if !p.IsValid() {
		return nil
	}
	return &p
}

func addrPtr(a netip.Addr) *netip.Addr {
	if !a.IsValid() {
		return nil
	}
	return &a
}

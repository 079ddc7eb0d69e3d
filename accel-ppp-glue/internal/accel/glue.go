package accel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/aaa"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/config"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pfcpcp"
)

// The glue's seams, each the small interface it uses: the real parts are
// pfcpcp.Function (PFCP to the DP instances, the function bng-cp uses),
// aaa.Client (RADIUS accounting), *CLI (accel-ppp's CLI) and store.DB.

// UserPlane installs sessions into the DP instances.
type UserPlane interface {
	Establish(ctx context.Context, inst uint32, s *pfcpcp.Session) (upSEID uint64, err error)
	Modify(ctx context.Context, inst uint32, upSEID, cpSEID uint64, m *pfcpcp.Mod) ([]pfcpcp.Usage, error)
	Delete(ctx context.Context, inst uint32, upSEID uint64) ([]pfcpcp.Usage, error)
	Restore(inst uint32, cpSEID, upSEID uint64)
	Forget(inst uint32, cpSEID uint64)
}

// Accountant sends Accounting-Requests.
type Accountant interface {
	Account(ctx context.Context, r *aaa.AcctRequest) error
}

// Controller is accel-ppp's CLI.
type Controller interface {
	Sessions(ctx context.Context, cols []string) ([]Row, error)
	Terminate(ctx context.Context, sid string) error
}

// Store keeps the sessions across restarts.
type Store interface {
	Put(bucket, key string, val []byte) error
	Delete(bucket, key string) error
	ForEach(bucket string, fn func(key string, val []byte) error) error
	NextCounter(name string) (uint64, error)
}

var (
	_ UserPlane  = (*pfcpcp.Function)(nil)
	_ Accountant = (*aaa.Client)(nil)
	_ Controller = (*CLI)(nil)
)

const (
	bucketSessions = "accel-sessions"
	bucketPeers    = "accel-peers"
	counterCPSEID  = "accel-cp-seid"
)

// Record is one session as the glue keeps it (JSON in the store).
type Record struct {
	SID      string    `json:"sid"`    // accel-ppp's session id (Acct-Session-Id)
	PPPIf    string    `json:"ppp_if"` // its PPP unit, when known
	CtrlIf   string    `json:"ctrl_if"`
	Instance uint32    `json:"instance"`
	Group    string    `json:"group"`
	Port     string    `json:"port"`
	STag     uint16    `json:"stag"`
	CTag     uint16    `json:"ctag"`
	MAC      [6]byte   `json:"mac"`
	PPPoESID uint16    `json:"pppoe_sid"`
	IPv4     string    `json:"ipv4"`
	Username string    `json:"username"`
	Profile  string    `json:"profile,omitempty"` // "" = the line group's
	UpBPS    uint32    `json:"up_bps,omitempty"`
	DownBPS  uint32    `json:"down_bps,omitempty"`
	Class    [][]byte  `json:"class,omitempty"`
	CPSEID   uint64    `json:"cp_seid"`
	UPSEID   uint64    `json:"up_seid"` // 0 while being installed
	Ending   bool      `json:"ending,omitempty"`
	Start    time.Time `json:"start"`
	// usage from the DP's reports: In = from the subscriber (UL), Out = to it (DL)
	InOctets, OutOctets, InPackets, OutPackets uint64
}

// Options configure a Glue.
type Options struct {
	Config        *config.Config
	ProcPPPoE     string // /proc/net/pppoe ("" = not readable here)
	RadattrPrefix string // pppd-compat's radattr-prefix ("" = none)
	Logger        *slog.Logger
	OpTimeout     time.Duration // per PFCP call and per CLI command (default 10 s)
}

// Glue turns accel-ppp's session events into PFCP calls to the DP instances.
type Glue struct {
	opt  Options
	cfg  *config.Config
	log  *slog.Logger
	up   UserPlane
	acct Accountant
	ctl  Controller
	st   Store

	mu      sync.Mutex // held through each event's handling (PFCP calls included): events are applied in order
	bySID   map[string]*Record
	byPPPIf map[string]string // PPP unit -> sid
	bySEID  map[uint64]string // CP SEID -> sid
	rts     map[uint32]time.Time
	ended   map[string]time.Time // sessions removed lately, for the re-sync's snapshot

	acctQ chan *aaa.AcctRequest

	cmu     sync.Mutex
	counts  map[string]uint64 // events handled, by kind; refusals, by reason
	reasons map[string]bool   // reasons logged once
}

// New loads the stored sessions. Call Restore on the user plane's side by
// running RestoreAll before the user plane runs.
func New(opt Options, up UserPlane, acct Accountant, ctl Controller, st Store) (*Glue, error) {
	if opt.Config == nil {
		return nil, errors.New("accel: a configuration is required")
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.OpTimeout <= 0 {
		opt.OpTimeout = 10 * time.Second
	}
	g := &Glue{opt: opt, cfg: opt.Config, log: opt.Logger, up: up, acct: acct, ctl: ctl, st: st,
		bySID: map[string]*Record{}, byPPPIf: map[string]string{}, bySEID: map[uint64]string{},
		rts: map[uint32]time.Time{}, ended: map[string]time.Time{}, acctQ: make(chan *aaa.AcctRequest, 1<<16),
		counts: map[string]uint64{}, reasons: map[string]bool{}}
	err := st.ForEach(bucketSessions, func(key string, val []byte) error {
		var r Record
		if err := json.Unmarshal(val, &r); err != nil || !r.valid(key) {
			g.log.Warn("stored session unreadable, dropped", "key", key, "err", err)
			g.count("stored_session_dropped")
			return nil
		}
		g.index(&r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("accel: loading the sessions: %w", err)
	}
	err = st.ForEach(bucketPeers, func(key string, val []byte) error {
		var p struct {
			Instance uint32    `json:"instance"`
			RTS      time.Time `json:"rts"`
		}
		if json.Unmarshal(val, &p) == nil {
			g.rts[p.Instance] = p.RTS
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("accel: loading the instances: %w", err)
	}
	for _, r := range g.bySID {
		if r.UPSEID != 0 {
			up.Restore(r.Instance, r.CPSEID, r.UPSEID)
		}
	}
	return g, nil
}

// valid checks a record read back from the store (a damaged file is input too).
func (r *Record) valid(key string) bool {
	a, err := netip.ParseAddr(r.IPv4)
	return err == nil && a.Is4() && r.SID == key && validSID(r.SID) && r.CPSEID != 0 && r.CPSEID&(1<<63) == 0 &&
		r.STag >= 1 && r.STag <= 4094 && r.CTag >= 1 && r.CTag <= 4094 && r.PPPoESID != 0 && r.PPPoESID != 0xffff
}

func (g *Glue) index(r *Record) {
	g.bySID[r.SID] = r
	if r.PPPIf != "" {
		g.byPPPIf[r.PPPIf] = r.SID
	}
	g.bySEID[r.CPSEID] = r.SID
}

func (g *Glue) unindex(r *Record) {
	delete(g.bySID, r.SID)
	if g.byPPPIf[r.PPPIf] == r.SID {
		delete(g.byPPPIf, r.PPPIf)
	}
	delete(g.bySEID, r.CPSEID)
}

func (g *Glue) save(r *Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return g.st.Put(bucketSessions, r.SID, b)
}

func (g *Glue) count(name string) {
	g.cmu.Lock()
	g.counts[name]++
	g.cmu.Unlock()
}

// Refused counts a refused event by reason and logs the first of each reason.
func (g *Glue) Refused(err error) {
	reason := "refused_" + Reason(err)
	g.cmu.Lock()
	g.counts[reason]++
	first := !g.reasons[reason]
	g.reasons[reason] = true
	g.cmu.Unlock()
	if first {
		g.log.Warn("event refused (further refusals of this reason are only counted)", "reason", reason, "err", err)
	}
}

// Counts returns the counters: events by source and kind, refusals by reason,
// installs, failures.
func (g *Glue) Counts() map[string]uint64 {
	g.cmu.Lock()
	defer g.cmu.Unlock()
	out := make(map[string]uint64, len(g.counts))
	for k, v := range g.counts {
		out[k] = v
	}
	return out
}

// Sessions returns a copy of every session record, by accel-ppp session id.
func (g *Glue) Sessions() []Record {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]Record, 0, len(g.bySID))
	for _, r := range g.bySID {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SID < out[j].SID })
	return out
}

// Redis handles one message of the fork's redis channel.
func (g *Glue) Redis(ctx context.Context, payload []byte) {
	ev, err := ParseRedis(payload)
	if err != nil {
		g.Refused(err)
		return
	}
	g.count("redis_" + ev.Kind.String())
	if err := g.Handle(ctx, ev); err != nil {
		g.Refused(err)
		if ev.Kind == Up && ev.SID != "" {
			// the fork does not wait for its subscribers: end the session it brought up
			g.terminate(ctx, ev.SID, "not installed")
		}
	}
}

// Hook handles a pppd-compat call (the hook server's handler).
func (g *Glue) Hook(ctx context.Context, ev Event) error {
	g.count("hook_" + ev.Kind.String())
	err := g.Handle(ctx, ev)
	if err != nil {
		g.Refused(err)
	}
	return err
}

// Handle applies one event.
func (g *Glue) Handle(ctx context.Context, ev Event) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch ev.Kind {
	case Up:
		return g.up1(ctx, ev)
	case Down:
		return g.down(ctx, ev)
	case Change:
		return g.change(ctx, ev)
	}
	return nil
}

func (g *Glue) find(ev Event) *Record {
	if ev.SID != "" {
		return g.bySID[ev.SID]
	}
	if sid, ok := g.byPPPIf[ev.PPPIf]; ok && ev.PPPIf != "" {
		return g.bySID[sid]
	}
	return nil
}

func (g *Glue) opCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, g.opt.OpTimeout)
}

// sidOf asks accel-ppp's CLI for the session id of a PPP unit (pppd-compat
// does not pass it).
func (g *Glue) sidOf(ctx context.Context, pppIf string) (string, error) {
	if g.ctl == nil {
		return "", bad("no_cli", "no accel-ppp CLI to ask the session id of %s", pppIf)
	}
	cctx, cancel := g.opCtx(ctx)
	defer cancel()
	rows, err := g.ctl.Sessions(cctx, SessionColumns)
	if err != nil {
		return "", bad("cli", "%v", err)
	}
	for _, r := range rows {
		if r["ifname"] == pppIf && validSID(r["sid"]) {
			return r["sid"], nil
		}
	}
	return "", bad("cli_no_session", "accel-ppp's CLI lists no session on %s", pppIf)
}

// pppIfOf asks accel-ppp's CLI for the PPP unit of a session (the fork's
// events do not name it; its radattr file is named after it).
func (g *Glue) pppIfOf(ctx context.Context, sid string) string {
	if g.ctl == nil || g.opt.RadattrPrefix == "" {
		return ""
	}
	cctx, cancel := g.opCtx(ctx)
	defer cancel()
	rows, err := g.ctl.Sessions(cctx, SessionColumns)
	if err != nil {
		g.count("cli_failed")
		return ""
	}
	for _, r := range rows {
		if r["sid"] == sid && validIfname(r["ifname"]) {
			return r["ifname"]
		}
	}
	return ""
}

func (g *Glue) pppoeSID(mac [6]byte, dev string) (uint16, error) {
	if g.opt.ProcPPPoE == "" {
		return 0, bad("no_pppoe_sid", "the event has no PPPoE session id and /proc/net/pppoe is not read here")
	}
	f, err := os.Open(g.opt.ProcPPPoE)
	if err != nil {
		return 0, bad("proc_pppoe", "%v", err)
	}
	defer f.Close()
	socks, err := ParseProcPPPoE(f)
	if err != nil {
		return 0, bad("proc_pppoe", "%v", err)
	}
	sid, err := FindPPPoESID(socks, mac, dev)
	if err != nil {
		return 0, bad("no_pppoe_sid", "%v", err)
	}
	return sid, nil
}

func (g *Glue) attrs(pppIf string) (Attrs, error) {
	if g.opt.RadattrPrefix == "" || pppIf == "" {
		return Attrs{}, nil
	}
	f, err := os.Open(g.opt.RadattrPrefix + "." + pppIf)
	if errors.Is(err, os.ErrNotExist) {
		return Attrs{}, nil // no RADIUS attributes (chap-secrets, or none sent)
	}
	if err != nil {
		return Attrs{}, bad("radattr", "%v", err)
	}
	defer f.Close()
	a, err := ParseRadattr(f)
	if err != nil {
		return a, bad("radattr", "%v", err)
	}
	if a.FilterID != "" {
		if _, ok := g.cfg.QosProfile(a.FilterID); !ok {
			return a, bad("unknown_profile", "Filter-Id %q is no QoS profile of the pod", clip(a.FilterID))
		}
	}
	return a, nil
}

func inGroup(grp *config.LineGroup, a netip.Addr) bool {
	for _, p := range grp.Pools {
		if p.Prefix.Contains(a) {
			return true
		}
	}
	return false
}

func (r *Record) session() *pfcpcp.Session {
	return &pfcpcp.Session{
		CPSEID: r.CPSEID, LogicalPort: r.Port, STag: r.STag, CTag: r.CTag, MAC: r.MAC,
		PPPoESessionID: r.PPPoESID, IPv4: netip.MustParseAddr(r.IPv4), QosProfile: r.Profile,
		UpMBR: uint64(r.UpBPS), UpGBR: uint64(r.UpBPS), DownMBR: uint64(r.DownBPS),
		// the MRU accel-ppp.conf sets; no LCP offload in this mode (docs/cp/accel-ppp.md)
		MTU: 1492,
	}
}

func (g *Glue) up1(ctx context.Context, ev Event) error {
	if ev.SID == "" {
		sid, err := g.sidOf(ctx, ev.PPPIf)
		if err != nil {
			return err
		}
		ev.SID = sid
	}
	w, err := Resolve(g.cfg, ev.CtrlIf)
	if err != nil {
		return err
	}
	if ev.PPPIf == "" {
		ev.PPPIf = g.pppIfOf(ctx, ev.SID)
	}
	if !inGroup(w.Line.Group, ev.IPv4) {
		return bad("address_outside_group", "%s of %s is in no pool of line group %s", ev.IPv4, ev.SID, w.Line.Group.Name)
	}
	if ev.PPPoESID == 0 {
		if ev.PPPoESID, err = g.pppoeSID(ev.MAC, ev.CtrlIf); err != nil {
			return err
		}
	}
	a, err := g.attrs(ev.PPPIf)
	if err != nil {
		return err
	}
	r := &Record{SID: ev.SID, PPPIf: ev.PPPIf, CtrlIf: ev.CtrlIf, Instance: w.Instance, Group: w.Line.Group.Name,
		Port: w.Port.Name, STag: w.STag, CTag: w.CTag, MAC: ev.MAC, PPPoESID: ev.PPPoESID,
		IPv4: ev.IPv4.String(), Username: ev.Username, Profile: a.FilterID, UpBPS: a.UpBPS, DownBPS: a.DownBPS,
		Class: a.Class, Start: time.Now().UTC()}
	if old := g.bySID[ev.SID]; old != nil {
		if old.sameSession(r) {
			g.count("duplicate_up")
			return nil
		}
		return bad("session_id_reused", "%s is installed with other attributes", ev.SID)
	}
	if sid, ok := g.byPPPIf[ev.PPPIf]; ok && ev.PPPIf != "" {
		// a PPP unit is reused only after its session's ip-down: this one was missed
		g.log.Warn("PPP unit reused without an end of its previous session: ending it", "ppp_if", ev.PPPIf, "sid", sid)
		g.end(ctx, g.bySID[sid], 0)
	}
	cp, err := g.st.NextCounter(counterCPSEID)
	if err != nil {
		return fmt.Errorf("accel: store: %w", err)
	}
	r.CPSEID = cp & (1<<63 - 1)
	if r.CPSEID == 0 {
		r.CPSEID = 1
	}
	// stored before the DP has it: a crash in between leaves a record the re-sync resolves,
	// never a DP session nobody knows
	if err := g.save(r); err != nil {
		return fmt.Errorf("accel: store: %w", err)
	}
	g.index(r)
	octx, cancel := g.opCtx(ctx)
	upSEID, err := g.up.Establish(octx, r.Instance, r.session())
	cancel()
	if err != nil {
		g.unindex(r)
		_ = g.st.Delete(bucketSessions, r.SID)
		g.count("install_failed")
		return fmt.Errorf("accel: session %s on instance %d: %w", r.SID, r.Instance, err)
	}
	r.UPSEID = upSEID
	if err := g.save(r); err != nil {
		g.log.Error("store", "err", err)
	}
	g.count("installed")
	g.log.Info("session installed", "sid", r.SID, "user", r.Username, "instance", r.Instance, "line", r.CtrlIf,
		"pppoe_sid", r.PPPoESID, "ipv4", r.IPv4)
	g.account(aaa.AcctStart, r, 0)
	return nil
}

func (r *Record) sameSession(o *Record) bool {
	return r.CtrlIf == o.CtrlIf && r.MAC == o.MAC && r.PPPoESID == o.PPPoESID && r.IPv4 == o.IPv4
}

func (g *Glue) down(ctx context.Context, ev Event) error {
	r := g.find(ev)
	if r == nil {
		g.count("down_unknown")
		return nil // accel-ppp ends sessions the glue never installed (auth failures, refused installs)
	}
	g.end(ctx, r, 1) // User-Request unless told otherwise: accel-ppp's events do not say
	return nil
}

// end removes a session from its DP and from the store, and sends its
// Accounting-Stop. A DP that cannot be reached keeps the record as ending:
// the deletion is retried when the DP associates again.
func (g *Glue) end(ctx context.Context, r *Record, cause int) {
	if r.UPSEID != 0 {
		octx, cancel := g.opCtx(ctx)
		us, err := g.up.Delete(octx, r.Instance, r.UPSEID)
		cancel()
		var ce *pfcpcp.CauseError
		switch {
		case err == nil:
			for _, u := range us {
				r.add(u)
			}
		case errors.As(err, &ce) && ce.Cause == 65: // the DP no longer has it
		default:
			if !r.Ending {
				r.Ending = true
				if err := g.save(r); err != nil {
					g.log.Error("store", "err", err)
				}
				g.account(aaa.AcctStop, r, cause) // the session is over for the subscriber
			}
			g.count("delete_deferred")
			g.log.Warn("session not deleted from its DP, retried when it associates", "sid", r.SID, "err", err)
			return
		}
	}
	g.unindex(r)
	g.ended[r.SID] = time.Now()
	if err := g.st.Delete(bucketSessions, r.SID); err != nil {
		g.log.Error("store", "err", err)
	}
	g.count("removed")
	if !r.Ending {
		g.account(aaa.AcctStop, r, cause)
	}
}

func (r *Record) add(u pfcpcp.Usage) {
	r.InOctets += u.ULOctets
	r.OutOctets += u.DLOctets
	r.InPackets += u.ULPackets
	r.OutPackets += u.DLPackets
}

func (g *Glue) change(ctx context.Context, ev Event) error {
	r := g.find(ev)
	if r == nil {
		g.count("change_unknown")
		return nil
	}
	if r.PPPIf == "" {
		r.PPPIf = g.pppIfOf(ctx, r.SID)
		if r.PPPIf != "" {
			g.byPPPIf[r.PPPIf] = r.SID
		}
	}
	if r.PPPIf == "" || g.opt.RadattrPrefix == "" {
		g.count("change_without_attributes") // no radattr file to read
		return nil
	}
	a, err := g.attrs(r.PPPIf)
	if err != nil {
		return err
	}
	if a.FilterID == r.Profile && a.UpBPS == r.UpBPS && a.DownBPS == r.DownBPS {
		return nil
	}
	m := &pfcpcp.Mod{}
	if a.FilterID != r.Profile {
		p := a.FilterID
		if p == "" {
			p = g.groupProfile(r)
		}
		m.QosProfile = &p
	}
	up, down := uint64(a.UpBPS), uint64(a.DownBPS)
	m.UpMBR, m.UpGBR, m.DownMBR = &up, &up, &down
	octx, cancel := g.opCtx(ctx)
	_, err = g.up.Modify(octx, r.Instance, r.UPSEID, r.CPSEID, m)
	cancel()
	if err != nil {
		return fmt.Errorf("accel: modify %s: %w", r.SID, err)
	}
	r.Profile, r.UpBPS, r.DownBPS = a.FilterID, a.UpBPS, a.DownBPS
	if err := g.save(r); err != nil {
		g.log.Error("store", "err", err)
	}
	g.count("modified")
	return nil
}

func (g *Glue) groupProfile(r *Record) string {
	if grp, ok := g.cfg.LineGroup(r.Group); ok && grp.QosProfile != nil {
		return grp.QosProfile.Name
	}
	return ""
}

func (g *Glue) terminate(ctx context.Context, sid, why string) {
	if g.ctl == nil {
		return
	}
	cctx, cancel := g.opCtx(ctx)
	defer cancel()
	if err := g.ctl.Terminate(cctx, sid); err != nil {
		g.count("terminate_failed")
		g.log.Warn("accel-ppp did not terminate the session", "sid", sid, "why", why, "err", err)
		return
	}
	g.count("terminated")
	g.log.Info("session terminated through accel-ppp's CLI", "sid", sid, "why", why)
}

// ---- accounting ---------------------------------------------------------------------------

func nasPortID(port string, stag, ctag uint16) string {
	return fmt.Sprintf("%s:%d.%d", port, stag, ctag)
}

func (g *Glue) account(st aaa.AcctStatus, r *Record, cause int) {
	if g.acct == nil {
		return
	}
	req := &aaa.AcctRequest{Status: st, SessionID: r.SID, UserName: r.Username,
		NASPortID: nasPortID(r.Port, r.STag, r.CTag), CallingStationID: net.HardwareAddr(r.MAC[:]).String(),
		FramedIP: netip.MustParseAddr(r.IPv4), Class: r.Class, EventTime: time.Now(),
		InOctets: r.InOctets, OutOctets: r.OutOctets, InPackets: r.InPackets, OutPackets: r.OutPackets}
	if st != aaa.AcctStart {
		req.SessionTime = time.Since(r.Start)
	}
	if st == aaa.AcctStop {
		req.TerminateCause = cause
	}
	select {
	case g.acctQ <- req:
	default:
		g.count("accounting_dropped")
	}
}

// RunAccounting sends the queued Accounting-Requests in order until ctx
// ends; then what is still queued gets up to 5 s more (a stop must not drop
// the Accounting-Stops of the sessions that just ended).
func (g *Glue) RunAccounting(ctx context.Context) {
	send := func(ctx context.Context, req *aaa.AcctRequest) {
		if err := g.acct.Account(ctx, req); err != nil {
			g.count("accounting_failed")
			g.log.Warn("accounting", "sid", req.SessionID, "status", req.Status, "err", err)
		} else {
			g.count(fmt.Sprintf("accounting_%d", req.Status))
		}
	}
	for {
		select {
		case <-ctx.Done():
			dctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			for dctx.Err() == nil {
				select {
				case req := <-g.acctQ:
					send(dctx, req)
				default:
					return
				}
			}
			return
		case req := <-g.acctQ:
			send(ctx, req)
		}
	}
}

// ---- the user plane's events (pfcpcp.Handler) -------------------------------------------------

// PeerUp: a DP (re)associated. A new recovery time stamp means it lost its
// sessions: they are installed again (same CP SEIDs), as bng-cp does.
func (g *Glue) PeerUp(inst uint32, rts time.Time, f pfcpcp.Features) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.count("peer_up")
	old, known := g.rts[inst]
	restarted := !known || !old.Equal(rts)
	g.rts[inst] = rts
	if b, err := json.Marshal(map[string]any{"instance": inst, "rts": rts}); err == nil {
		if err := g.st.Put(bucketPeers, fmt.Sprint(inst), b); err != nil {
			g.log.Error("store", "err", err)
		}
	}
	ctx := context.Background()
	var sids []string
	for sid, r := range g.bySID {
		if r.Instance == inst {
			sids = append(sids, sid)
		}
	}
	sort.Strings(sids)
	n := 0
	for _, sid := range sids {
		r := g.bySID[sid]
		if r.Ending {
			if restarted {
				r.UPSEID = 0 // gone with the DP's restart
			}
			g.end(ctx, r, 0)
			continue
		}
		if !restarted && r.UPSEID != 0 {
			continue
		}
		octx, cancel := g.opCtx(ctx)
		up, err := g.up.Establish(octx, inst, r.session())
		cancel()
		if err != nil {
			g.count("reinstall_failed")
			g.log.Warn("session not installed again", "sid", sid, "instance", inst, "err", err)
			continue
		}
		r.UPSEID = up
		if err := g.save(r); err != nil {
			g.log.Error("store", "err", err)
		}
		n++
	}
	if n > 0 {
		g.count("reinstalled")
	}
	g.log.Info("DP instance up", "instance", inst, "restarted", restarted, "sessions_reinstalled", n)
}

// PeerDown: a DP is unreachable or restarted.
func (g *Glue) PeerDown(inst uint32) {
	g.log.Warn("DP instance down", "instance", inst)
}

// Usage adds a usage report to its session; a periodic one is sent as an
// Interim-Update.
func (g *Glue) Usage(inst uint32, cpSEID uint64, u pfcpcp.Usage) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.bySID[g.bySEID[cpSEID]]
	if r == nil || r.Instance != inst {
		return // a deleted session's final report (already counted by end)
	}
	r.add(u)
	if err := g.save(r); err != nil {
		g.log.Error("store", "err", err)
	}
	if u.Trigger&pfcpcp.TriggerPERIO != 0 {
		g.account(aaa.AcctInterim, r, 0)
	}
}

// LCPDead: the DP found the subscriber's link dead (only with the LCP
// offload, which this mode does not install; kept for a DP that reports it
// anyway): accel-ppp is told to end the session.
func (g *Glue) LCPDead(inst uint32, cpSEID uint64) {
	g.mu.Lock()
	r := g.bySID[g.bySEID[cpSEID]]
	g.mu.Unlock()
	if r == nil {
		return
	}
	g.terminate(context.Background(), r.SID, "LCP echoes unanswered")
}

var _ pfcpcp.Handler = (*Glue)(nil)

// ---- re-sync ----------------------------------------------------------------------------------

// Resync compares the glue's sessions with accel-ppp's (`show sessions`):
// a stored session accel-ppp no longer has ended while the glue was away
// (or its event was lost) and is removed; an active session of accel-ppp the
// glue does not have is installed, its PPPoE session id from
// /proc/net/pppoe. Nothing accel-ppp still has is torn down.
func (g *Glue) Resync(ctx context.Context) error {
	if g.ctl == nil {
		return errors.New("accel: no CLI")
	}
	at := time.Now()
	cctx, cancel := g.opCtx(ctx)
	rows, err := g.ctl.Sessions(cctx, SessionColumns)
	cancel()
	if err != nil {
		return err
	}
	g.resync(ctx, rows, at)
	return nil
}

// resync applies a `show sessions` snapshot taken at time at. Events keep
// coming while the CLI answers: a session installed after the snapshot is not
// "gone", one removed after it is not "missing".
func (g *Glue) resync(ctx context.Context, rows []Row, at time.Time) {
	live := map[string]Row{}
	for _, r := range rows {
		if validSID(r["sid"]) {
			live[r["sid"]] = r
		}
	}
	g.mu.Lock()
	for sid, t := range g.ended {
		if time.Since(t) > 10*time.Minute {
			delete(g.ended, sid)
		}
	}
	var gone []*Record
	for sid, r := range g.bySID {
		if _, ok := live[sid]; !ok && r.Start.Before(at) {
			gone = append(gone, r)
		}
	}
	sort.Slice(gone, func(i, j int) bool { return gone[i].SID < gone[j].SID })
	for _, r := range gone {
		g.log.Info("session ended while the glue was away", "sid", r.SID)
		g.end(ctx, r, 0)
	}
	var missing []Row
	for sid, row := range live {
		if t, ok := g.ended[sid]; ok && !t.Before(at) {
			continue
		}
		if g.bySID[sid] == nil && row["state"] == "active" {
			missing = append(missing, row)
		}
	}
	g.mu.Unlock()
	sort.Slice(missing, func(i, j int) bool { return missing[i]["sid"] < missing[j]["sid"] })
	for _, row := range missing {
		ev := Event{Kind: Up, Name: "resync", SID: row["sid"], PPPIf: row["ifname"], CtrlIf: row["called-sid"],
			Username: row["username"]}
		if mac, err := parseMAC(row["calling-sid"]); err == nil {
			ev.MAC, ev.HasMAC = mac, true
		}
		if a, err := netip.ParseAddr(row["ip"]); err == nil && a.Is4() {
			ev.IPv4 = a
		}
		if !ev.HasMAC || !ev.IPv4.IsValid() {
			g.Refused(bad("resync_row", "session %s: calling-sid %q ip %q", row["sid"], clip(row["calling-sid"]), clip(row["ip"])))
			continue
		}
		if err := g.Handle(ctx, ev); err != nil {
			g.Refused(err)
			continue
		}
		g.count("resync_installed")
	}
	g.count("resyncs")
}

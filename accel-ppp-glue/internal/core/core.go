package core

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/aaa"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/config"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/onos"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pfcpcp"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pool"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pool6"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/ppp"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pppoe"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/store"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/v6ctl"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/vxlan"
)

// Options are the daemon's settings beyond cp.yaml.
type Options struct {
	Config       *config.Config
	StateDir     string        // the session store lives here (sessions.db)
	UsersFile    string        // local users instead of RADIUS authentication (labs)
	MetricsAddr  string        // Prometheus listener, "" = none
	CtlSocket    string        // management API (unix socket), "" = none
	EchoInterval time.Duration // LCP echo interval (DP offload, or the CP's own)
	EchoFailures int           // unanswered echoes before the session is dead
	Interim      time.Duration // Acct-Interim-Interval when RADIUS gives none
	Auth         []ppp.AuthMethod
	ACName       string
	ServiceNames []string // accepted Service-Names; empty = any
	MaxPayload   uint16   // largest PPP-Max-Payload granted (RFC 4638)
	Shards       int      // session shards (goroutines); 0 = 4
	// DHCP relay ports (tests; 0 = 67): where bng-cp listens on its
	// management address, and the servers' port
	RelayPort, RelayServerPort uint16
	Logger                     *slog.Logger

	// PADI admission per client MAC and line: a token bucket.
	PADIRate  float64 // tokens per second
	PADIBurst float64

	// The order of a session's first and last frames (closing.go, and
	// docs/cp/sessions.md). A zero value takes the default noted; a negative
	// one turns the feature off.
	LCPStartDelay time.Duration // after the PADS, wait this long for the client's first LCP frame before LCP speaks (100 ms; off: at once)
	Restart       time.Duration // PPP restart timer (RFC 1661 4.6; 3 s)
	RestartFirst  time.Duration // restart timer after a first Configure-Request, doubling up to Restart (500 ms; off: Restart throughout)
	TerminateWait time.Duration // how long the PADT waits for the subscriber's PADT or Terminate-Ack (1 s; off: at once)
}

func (o *Options) defaults() {
	if o.EchoInterval == 0 {
		o.EchoInterval = 10 * time.Second
	}
	if o.EchoFailures == 0 {
		o.EchoFailures = 3
	}
	if o.Interim == 0 {
		o.Interim = 300 * time.Second
	}
	if len(o.Auth) == 0 {
		o.Auth = []ppp.AuthMethod{ppp.AuthCHAP, ppp.AuthPAP}
	}
	if o.ACName == "" {
		o.ACName = "bngpod-" + o.Config.Pod
	}
	if o.MaxPayload == 0 {
		o.MaxPayload = 1500
	}
	if o.Shards <= 0 {
		o.Shards = 4
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.PADIRate == 0 {
		o.PADIRate = 2
	}
	if o.PADIBurst == 0 {
		o.PADIBurst = 8
	}
	o.LCPStartDelay = durationDefault(o.LCPStartDelay, 100*time.Millisecond)
	o.Restart = durationDefault(o.Restart, 3*time.Second)
	o.RestartFirst = durationDefault(o.RestartFirst, 500*time.Millisecond)
	o.TerminateWait = durationDefault(o.TerminateWait, time.Second)
}

// durationDefault: 0 is def, a negative duration is 0 (off).
func durationDefault(v, def time.Duration) time.Duration {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// Daemon is the session control plane: it owns the VXLAN endpoint the DP
// instances redirect control frames to, the sessions (in shards), the
// address pools, the session store, the RADIUS client and the PFCP
// control-plane function.
type Daemon struct {
	opt  Options
	cfg  *config.Config
	log  *slog.Logger
	blog *burstLog
	m    *metrics

	db       sessionStore
	pools    map[string]*pool.Group  // by line group name
	pools6   map[string]*pool6.Group // by line group name; groups with IPv6 pools only
	v6srv    *v6ctl.Server           // RS, NS and DHCPv6 of the sessions (ipv6.go)
	auth     authenticator           // RADIUS, or the users file
	radius   accountant              // accounting (RADIUS)
	newPlane newUserPlane            // Run makes the user plane with it
	plane    userPlane               // PFCP to the DP instances, from Run on
	cookies  *pppoe.CookieJar
	sids     *sidAllocator

	vx         *vxlan.Conn             // the control-frame redirect of every instance
	vxAddr     map[uint32]*net.UDPAddr // each instance's VTEP
	instByAddr map[netip.Addr]*config.Instance
	shards     []*shard
	acct       []chan acctJob

	boot uint64
	seq  atomic.Uint64

	ipoe         ipoeLines           // IPoE sessions per line (ipoe.go)
	relayConn    *net.UDPConn        // DHCP relay: the management address's port 67 (relay.go)
	relayServers map[netip.Addr]bool // the relay servers of every group

	bindingsPersisted atomic.Uint64 // DHCPv6 binding changes written to the store (tests wait for it)

	idxMu  sync.RWMutex
	bySEID map[uint64]*session
	byID   map[string]*session
	byIP   map[netip.Addr]*session

	peerMu sync.Mutex
	peers  map[uint32]*peerInfo

	place  placement    // which instance serves each line group
	moveMu sync.Mutex   // one line-group move at a time
	onos   *onos.Client // nil without an onos section

	ctx context.Context
	wg  sync.WaitGroup
}

// peerInfo is what the CP knows of a DP instance's PFCP association.
type peerInfo struct {
	up       bool
	features pfcpcp.Features
	rts      time.Time
	since    time.Time
}

const (
	bucketSessions = "sessions"
	bucketPeers    = "peers"
)

// New opens the store, restores the persisted sessions and prepares every
// component; Run starts them.
func New(opt Options) (*Daemon, error) {
	if opt.Config == nil {
		return nil, errors.New("no configuration")
	}
	opt.defaults()
	cfg := opt.Config
	d := &Daemon{
		opt: opt, cfg: cfg, log: opt.Logger, m: newMetrics(),
		pools: make(map[string]*pool.Group), instByAddr: make(map[netip.Addr]*config.Instance),
		bySEID: make(map[uint64]*session), byID: make(map[string]*session),
		byIP: make(map[netip.Addr]*session), peers: make(map[uint32]*peerInfo),
		sids: newSIDAllocator(),
	}
	d.blog = newBurstLog(d.log, 10*time.Second)
	for _, in := range cfg.Instances {
		d.instByAddr[in.ControlAddress] = in
		d.peers[in.ID] = &peerInfo{}
		d.m.instanceUp.WithLabelValues(in.Name).Set(0)
	}
	for _, g := range cfg.LineGroups {
		var prefixes []netip.Prefix
		for _, p := range g.Pools {
			prefixes = append(prefixes, p.Prefix)
		}
		var exclude []netip.Addr // the group's core address, should a pool hold it
		for _, p := range prefixes {
			if p.Contains(g.CoreAddress) {
				exclude = append(exclude, g.CoreAddress)
			}
		}
		for _, p := range g.Pools { // the IPoE gateways
			if p.Gateway.IsValid() && p.Gateway != g.CoreAddress {
				exclude = append(exclude, p.Gateway)
			}
		}
		pg, err := pool.NewGroup(g.Name, prefixes, exclude)
		if err != nil {
			return nil, fmt.Errorf("line group %s: %w", g.Name, err)
		}
		d.pools[g.Name] = pg
	}
	if opt.UsersFile != "" {
		u, err := aaa.LoadUsers(opt.UsersFile)
		if err != nil {
			return nil, fmt.Errorf("users file: %w", err)
		}
		d.auth = u
	}
	var servers []aaa.Server
	for _, s := range cfg.Radius.Servers {
		servers = append(servers, aaa.Server{
			Name:   s.Name,
			Auth:   netip.AddrPortFrom(s.Address, s.AuthPort),
			Acct:   netip.AddrPortFrom(s.Address, s.AcctPort),
			Secret: []byte(string(s.Secret)),
		})
	}
	rc, err := aaa.NewClient(aaa.ClientConfig{
		Servers: servers, Timeout: cfg.Radius.Timeout, Retries: cfg.Radius.Retries,
		NASIdentifier: cfg.Radius.NASIdentifier, NASIPAddress: cfg.ControlPlane.Address,
		LocalAddr: cfg.ControlPlane.Address,
		OnLatency: func(server string, took time.Duration) {
			d.m.radiusLatency.WithLabelValues(server).Observe(took.Seconds())
		},
	})
	if err != nil {
		return nil, fmt.Errorf("RADIUS client: %w", err)
	}
	d.radius = rc
	if d.auth == nil {
		d.auth = rc
	}
	d.newPlane = newPFCP
	d.m.reg.MustRegister(newRadiusCollector(rc.Stats))
	secret := make([]byte, 32)
	if _, err := randRead(secret); err != nil {
		return nil, err
	}
	d.cookies = pppoe.NewCookieJar(secret, 30*time.Second)

	if err := os.MkdirAll(opt.StateDir, 0o750); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	db, err := store.Open(filepath.Join(opt.StateDir, "sessions.db"))
	if err != nil {
		return nil, err
	}
	d.db = db
	boot, err := db.NextCounter("boot")
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("session store: %w", err)
	}
	d.boot = boot & 0xffffffff
	if err := d.initIPv6(); err != nil {
		db.Close()
		return nil, fmt.Errorf("IPv6: %w", err)
	}
	if err := d.initPlacement(); err != nil {
		db.Close()
		return nil, fmt.Errorf("session store: %w", err)
	}
	for _, g := range cfg.LineGroups {
		d.m.groupInstance.WithLabelValues(g.Name).Set(float64(d.servingOf(g.Name)))
	}
	if err := d.startONOS(); err != nil {
		db.Close()
		return nil, fmt.Errorf("ONOS client: %w", err)
	}
	return d, nil
}

// newSEID returns a CP SEID and the Acct-Session-Id made of the same
// numbers: the boot number (persisted, incremented at every start) and a
// sequence number, so both are unique across restarts.
func (d *Daemon) newSEID() (uint64, string) {
	seq := d.seq.Add(1) & 0xffffffff
	return d.boot<<32 | seq, fmt.Sprintf("%08X%08X", d.boot, seq)
}

// Run serves until ctx ends. Sessions stay in the store and in the DPs.
func (d *Daemon) Run(ctx context.Context) error {
	d.ctx = ctx
	cp := d.cfg.ControlPlane
	vx, err := vxlan.Listen(netip.AddrPortFrom(cp.Address, cp.VXLANPort))
	if err != nil {
		return fmt.Errorf("VXLAN endpoint: %w", err)
	}
	d.vx = vx
	d.vxAddr = make(map[uint32]*net.UDPAddr)
	for _, in := range d.cfg.Instances {
		d.vxAddr[in.ID] = net.UDPAddrFromAddrPort(netip.AddrPortFrom(in.ControlAddress, cp.VXLANPort))
	}

	var peers []pfcpcp.Peer
	for _, in := range d.cfg.Instances {
		peers = append(peers, pfcpcp.Peer{Instance: in.ID, Addr: netip.AddrPortFrom(in.ControlAddress, cp.PFCPPort)})
	}
	plane, err := d.newPlane(pfcpcp.Config{
		Local:        netip.AddrPortFrom(cp.Address, cp.PFCPPort),
		NodeID:       cp.Address,
		Redirect:     netip.AddrPortFrom(cp.Address, cp.VXLANPort),
		RecoveryTime: time.Now(),
		URRPeriod:    d.opt.Interim,
		Heartbeat:    cp.Heartbeat,
		HeartbeatT1:  cp.HeartbeatTimeout,
		HeartbeatN1:  cp.HeartbeatTries,
	}, peers, d)
	if err != nil {
		vx.Close()
		return fmt.Errorf("PFCP: %w", err)
	}
	d.plane = plane

	d.shards = make([]*shard, d.opt.Shards)
	for i := range d.shards {
		d.shards[i] = newShard(d, i)
	}
	if err := d.restore(); err != nil {
		vx.Close()
		return err
	}
	for _, sh := range d.shards {
		d.wg.Add(1)
		go func(sh *shard) { defer d.wg.Done(); sh.run(ctx) }(sh)
	}
	d.acct = make([]chan acctJob, 16)
	var acctWG sync.WaitGroup
	for i := range d.acct {
		d.acct[i] = make(chan acctJob, 4096)
		acctWG.Add(1)
		go func(ch chan acctJob) { defer acctWG.Done(); d.acctWorker(ch) }(d.acct[i])
	}

	errc := make(chan error, 4)
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		if err := plane.Run(ctx); err != nil && ctx.Err() == nil {
			errc <- fmt.Errorf("PFCP: %w", err)
		}
	}()
	if err := d.startDynAuth(ctx, errc); err != nil {
		vx.Close()
		return err
	}
	if err := d.startRelay(ctx, errc); err != nil {
		vx.Close()
		return err
	}
	stopHTTP, err := d.startHTTP(errc)
	if err != nil {
		vx.Close()
		return err
	}
	d.wg.Add(1)
	go func() { defer d.wg.Done(); d.readVXLAN() }()
	if d.onos != nil {
		d.wg.Add(1)
		go func() { defer d.wg.Done(); d.onos.Run(ctx) }()
	}
	d.updatePoolMetrics()
	d.log.Info("control plane running", "pod", d.cfg.Pod, "vxlan", vx.LocalAddr().String(),
		"instances", len(d.cfg.Instances), "boot", d.boot, "restored", d.sessionCount())

	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-errc:
	}
	vx.Close()
	stopHTTP()
	d.wg.Wait()
	for _, ch := range d.acct {
		close(ch)
	}
	done := make(chan struct{})
	go func() { acctWG.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		d.log.Warn("accounting queue not drained at shutdown")
	}
	if err := d.db.Close(); err != nil && runErr == nil {
		runErr = err
	}
	d.log.Info("control plane stopped", "sessions_kept", d.sessionCount())
	return runErr
}

func (d *Daemon) sessionCount() int {
	d.idxMu.RLock()
	defer d.idxMu.RUnlock()
	return len(d.bySEID)
}

// shardFor picks the shard of a client MAC: every frame of one subscriber
// device is handled by the same goroutine.
func (d *Daemon) shardFor(mac [6]byte) *shard {
	h := binary.BigEndian.Uint32(mac[2:6]) * 2654435761
	return d.shards[h%uint32(len(d.shards))]
}

// index adds or removes a session from the daemon-wide indexes used by PFCP
// reports, RADIUS dynamic authorization and the management API.
func (d *Daemon) index(s *session, add bool) {
	d.idxMu.Lock()
	defer d.idxMu.Unlock()
	if add {
		d.bySEID[s.rec.CPSEID] = s
		d.byID[s.rec.ID] = s
		if s.rec.IPv4.IsValid() {
			d.byIP[s.rec.IPv4] = s
		}
		return
	}
	if d.bySEID[s.rec.CPSEID] == s {
		delete(d.bySEID, s.rec.CPSEID)
	}
	if d.byID[s.rec.ID] == s {
		delete(d.byID, s.rec.ID)
	}
	if s.rec.IPv4.IsValid() && d.byIP[s.rec.IPv4] == s {
		delete(d.byIP, s.rec.IPv4)
	}
}

func (d *Daemon) lookupSEID(seid uint64) *session {
	d.idxMu.RLock()
	defer d.idxMu.RUnlock()
	return d.bySEID[seid]
}

func (d *Daemon) updatePoolMetrics() {
	for name, g := range d.pools {
		size, used := g.Usage()
		d.m.poolSize.WithLabelValues(name).Set(float64(size))
		d.m.poolUsed.WithLabelValues(name).Set(float64(used))
	}
}

// persist writes a session record durably (group commit).
func (d *Daemon) persist(r *record) error {
	return d.db.Put(bucketSessions, r.ID, r.marshal())
}

func (d *Daemon) unpersist(id string) {
	if err := d.db.Delete(bucketSessions, id); err != nil {
		d.log.Error("session store delete failed", "session", id, "err", err)
	}
}

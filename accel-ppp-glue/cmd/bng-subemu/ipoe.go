package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/dhcp4"
)

// --ipoe: IPoE subscribers (issue 19). Each line of users.json (its S-tag and
// C-tag) gets --macs DHCP clients, MAC 02:5b:ee + a 24-bit number
// ((index-1) * macs + k + 1), that run DISCOVER, OFFER, REQUEST, ACK, renew
// unicast to the server identifier at T1 (REBIND broadcast when that goes
// unanswered until T2), start over on a NAK or a lost lease, and RELEASE at
// the stop. With --option82 each DISCOVER/REQUEST carries option 82 as an
// access node would add it: circuit id = the users.json user, remote id =
// the MAC (bng-cp's ipoe.username: circuit_id then authorizes the users of
// users.json). A bound client answers ARP requests for its address (the
// DP's ARP ping, ipoe.arp_ping) as a CPE's IP stack does. One goroutine owns
// every client; with --rate, bound clients send UDP datagrams to --target.

// IPoEConfig configures the IPoE emulator.
type IPoEConfig struct {
	MACs         int // clients per line
	Concurrency  int // clients between DISCOVER and ACK at once
	Retransmit   time.Duration
	PhaseTimeout time.Duration // a DISCOVER or REQUEST phase gives up after this long
	Backoff      time.Duration
	Option82     bool
	TPID         uint16
	Release      bool // RELEASE every lease at the stop
	// traffic of bound clients: Rate UDP datagrams per second each to
	// Target (payload Size bytes), to the gateway's MAC; 0: none
	Rate   float64
	Target netip.AddrPort
	Size   int
	// DualStack: RS and DHCPv6 (IA_NA + IA_PD) beside DHCPv4 (ipoe6.go);
	// Target6 the IPv6 traffic's target with Rate
	DualStack bool
	Target6   netip.AddrPort
}

type ipoeState uint8

const (
	ipInit ipoeState = iota
	ipSelecting
	ipRequesting
	ipBound
	ipRenewing
	ipRebinding
)

type ipoeClient struct {
	sub        *Subscriber
	mac        [6]byte
	state      ipoeState
	xid        uint32
	addr       netip.Addr
	server     netip.Addr
	t1, t2     time.Time // renewing, rebinding from
	leaseEnd   time.Time
	next       time.Time // retransmission or retry
	phaseStart time.Time
	attempt    int
	upAt       time.Time
	everUp     bool
	serverMAC  [6]byte // where unicast renewals go: the MAC the server's replies came from
	setupMs    float64
	nextTx     time.Time
	seq        uint32
	txPkts     uint64
	rxPkts     uint64
	v6         ipoe6 // --dual-stack (ipoe6.go)
}

// IPoEStats are the emulator's totals.
type IPoEStats struct {
	Type     string `json:"type"`
	Clients  int    `json:"subscribers"`
	Bound    int    `json:"up"`      // clients holding a lease now
	EverUp   int    `json:"ever_up"` // clients that got a lease at least once
	Discover uint64 `json:"discover"`
	Request  uint64 `json:"request"`
	Offer    uint64 `json:"offer"`
	Ack      uint64 `json:"ack"`
	Nak      uint64 `json:"nak"`
	Renewed  uint64 `json:"renewed"`
	Released uint64 `json:"released"`
	Timeouts uint64 `json:"timeouts"`
	Expired  uint64 `json:"expired"`
	Bad      uint64 `json:"bad"`          // frames that did not decode or fit no client
	SetupMS  uint64 `json:"setup_ms_sum"` // DISCOVER to ACK, summed over the first leases
	TxPkts   uint64 `json:"tx_pkts"`      // UDP datagrams to --target
	RxPkts   uint64 `json:"rx_pkts"`      // their echoes
	Lost     uint64 `json:"lost"`         // tx_pkts - rx_pkts (0 when more came back)
	ARPAsked uint64 `json:"arp_requests"` // ARP requests for a bound client's address (the DP's ARP ping)
	// IPv6 (--dual-stack): as PPPoE's (bound: clients that bound IA_NA/IA_PD)
	IPv6 *IPv6Stats `json:"ipv6,omitempty"`
}

// IPoEEmu is the IPoE client population on one transport.
type IPoEEmu struct {
	cfg     IPoEConfig
	tr      Transport
	clients []*ipoeClient
	byMAC   map[[6]byte]*ipoeClient
	out     [][]byte
	mu      sync.Mutex
	st      IPoEStats
	v6      IPv6Stats // --dual-stack
	active  int       // clients between DISCOVER and ACK
}

// NewIPoEEmu makes cfg.MACs clients for every subscriber's line.
func NewIPoEEmu(cfg IPoEConfig, tr Transport, subs []Subscriber) *IPoEEmu {
	if cfg.MACs < 1 {
		cfg.MACs = 1
	}
	e := &IPoEEmu{cfg: cfg, tr: tr, byMAC: make(map[[6]byte]*ipoeClient)}
	e.v6 = IPv6Stats{Sent: map[string]uint64{}, Received: map[string]uint64{}, Failed: map[string]uint64{}}
	for i := range subs {
		s := &subs[i]
		for k := 0; k < cfg.MACs; k++ {
			n := (int(s.Index)-1)*cfg.MACs + k + 1
			c := &ipoeClient{sub: s, mac: [6]byte{0x02, 0x5b, 0xee, byte(n >> 16), byte(n >> 8), byte(n)}}
			if s.HasMAC && k == 0 {
				c.mac = s.ClientMAC // users.json's (bngpod users: 02:49:..)
			}
			if e.byMAC[c.mac] != nil {
				continue // the same MAC twice in users.json: one client
			}
			e.clients = append(e.clients, c)
			e.byMAC[c.mac] = c
		}
	}
	e.st.Clients = len(e.clients)
	return e
}

// Stats returns the totals now.
func (e *IPoEEmu) Stats() IPoEStats {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.st
	if s.Type == "" {
		s.Type = "stats"
	}
	if s.TxPkts > s.RxPkts {
		s.Lost = s.TxPkts - s.RxPkts
	}
	if e.cfg.DualStack {
		v := e.v6
		v.Sent, v.Received, v.Failed = copyMap(v.Sent), copyMap(v.Received), copyMap(v.Failed)
		s.IPv6 = &v
	}
	return s
}

// Run drives the clients until ctx ends, then releases the leases.
func (e *IPoEEmu) Run(ctx context.Context) error {
	rx := NewRxBatch()
	for {
		now := time.Now()
		if ctx.Err() != nil {
			e.mu.Lock()
			defer e.mu.Unlock()
			if e.cfg.Release {
				for _, c := range e.clients {
					if c.state == ipBound || c.state == ipRenewing || c.state == ipRebinding {
						e.send(c, dhcp4.Release, now)
						e.count(func(s *IPoEStats) { s.Released++ })
					}
					if c.v6.stage == v6Bound {
						e.sendDHCP6(c, 8, now)
					}
				}
				e.flush()
			}
			e.st.Type = "final"
			return nil
		}
		e.mu.Lock()
		e.tick(now)
		e.mu.Unlock()
		e.flush()
		if err := e.tr.Recv(rx); err != nil {
			return err
		}
		now = time.Now()
		e.mu.Lock()
		for i := 0; i < rx.N; i++ {
			e.input(rx.Frames[i], now)
		}
		e.mu.Unlock()
		e.flush()
	}
}

// count updates the totals (e.mu held: the Run goroutine's sections).
func (e *IPoEEmu) count(f func(*IPoEStats)) { f(&e.st) }

// tick starts clients (up to the concurrency), retransmits, gives up phases
// and moves bound clients to renewing, rebinding or the end of their lease.
func (e *IPoEEmu) tick(now time.Time) {
	for _, c := range e.clients {
		switch c.state {
		case ipInit:
			if e.active < e.cfg.Concurrency && !now.Before(c.next) {
				e.active++
				c.state, c.phaseStart, c.xid = ipSelecting, now, rand.Uint32()
				e.send(c, dhcp4.Discover, now)
			}
		case ipSelecting, ipRequesting:
			if now.Sub(c.phaseStart) >= e.cfg.PhaseTimeout {
				e.count(func(s *IPoEStats) { s.Timeouts++ })
				e.restart(c, now)
			} else if !now.Before(c.next) {
				typ := dhcp4.Discover
				if c.state == ipRequesting {
					typ = dhcp4.Request
				}
				e.send(c, typ, now)
			}
		case ipBound, ipRenewing, ipRebinding:
			switch {
			case !now.Before(c.leaseEnd):
				e.count(func(s *IPoEStats) { s.Expired++; s.Bound-- })
				e.restart(c, now)
			case c.state == ipBound && !now.Before(c.t1):
				c.state, c.xid = ipRenewing, rand.Uint32()
				e.send(c, dhcp4.Request, now)
			case c.state == ipRenewing && !now.Before(c.t2):
				c.state = ipRebinding
				e.send(c, dhcp4.Request, now)
			case c.state != ipBound && !now.Before(c.next):
				e.send(c, dhcp4.Request, now)
			}
			if e.cfg.Rate > 0 && e.cfg.Target.IsValid() && c.state != ipInit && !now.Before(c.nextTx) {
				e.sendData(c, now)
			}
		}
		if e.cfg.DualStack {
			e.tick6(c, now)
		}
	}
}

// restart sends a client back to INIT after a backoff that doubles per attempt.
func (e *IPoEEmu) restart(c *ipoeClient, now time.Time) {
	if c.state == ipSelecting || c.state == ipRequesting {
		e.active--
	}
	c.attempt++
	d := e.cfg.Backoff << min(c.attempt-1, 5)
	c.state, c.addr, c.next = ipInit, netip.Addr{}, now.Add(d/2+time.Duration(rand.Int64N(int64(d))))
}

// send queues the client's message for its state.
func (e *IPoEEmu) send(c *ipoeClient, typ uint8, now time.Time) {
	m := &dhcp4.Message{Op: dhcp4.OpRequest, XID: c.xid, CHAddr: c.mac[:], Type: typ}
	bcast := true
	switch {
	case typ == dhcp4.Request && c.state == ipRequesting:
		m.Set(dhcp4.OptServerID, dhcp4.A4(c.server))
		m.Set(dhcp4.OptRequestedIP, dhcp4.A4(c.addr))
	case typ == dhcp4.Request || typ == dhcp4.Release: // renewing, rebinding, release
		m.CIAddr = c.addr
		bcast = c.state == ipRebinding
		if typ == dhcp4.Release {
			m.Set(dhcp4.OptServerID, dhcp4.A4(c.server))
			bcast = false
		}
	}
	if e.cfg.Option82 && typ != dhcp4.Release {
		ai := dhcp4.AgentInfo{CircuitID: []byte(c.sub.User), RemoteID: []byte(macText(c.mac))}
		m.Set(dhcp4.OptRelayAgentInfo, ai.Encode())
	}
	tpid := c.sub.TPID
	if tpid == 0 {
		tpid = e.cfg.TPID
	}
	f := dhcp4.Frame{Dst: [6]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, Src: c.mac, OuterTPID: tpid,
		STag: c.sub.STag, CTag: c.sub.CTag, SrcIP: netip.IPv4Unspecified(),
		DstIP: netip.AddrFrom4([4]byte{255, 255, 255, 255}), SrcPort: dhcp4.ClientPort, DstPort: dhcp4.ServerPort,
		Payload: m.Encode()}
	if !bcast {
		f.SrcIP, f.DstIP = c.addr, c.server
		f.Dst = c.serverMAC
	}
	e.out = append(e.out, dhcp4.AppendFrame(nil, &f))
	c.next = now.Add(e.cfg.Retransmit)
	switch typ {
	case dhcp4.Discover:
		e.count(func(s *IPoEStats) { s.Discover++ })
	case dhcp4.Request:
		e.count(func(s *IPoEStats) { s.Request++ })
	}
}

func macText(m [6]byte) string {
	const hex = "0123456789abcdef"
	b := make([]byte, 0, 17)
	for i, x := range m {
		if i > 0 {
			b = append(b, ':')
		}
		b = append(b, hex[x>>4], hex[x&15])
	}
	return string(b)
}

func (e *IPoEEmu) flush() {
	if len(e.out) == 0 {
		return
	}
	_, _ = e.tr.Send(e.out)
	e.out = e.out[:0]
}

// ARP in a QinQ frame: the offset of the ARP packet and its length.
const (
	qinqARPOff = 22
	arpLen     = 28
)

// arp answers an ARP request (QinQ, Ethernet/IPv4) for the address of a bound
// client on its line; true when b was ARP (answered or not: never DHCP).
func (e *IPoEEmu) arp(b []byte) bool {
	if len(b) < qinqARPOff+arpLen || b[20] != 0x08 || b[21] != 0x06 {
		return false
	}
	a := b[qinqARPOff:]
	var dst [6]byte
	copy(dst[:], b[:6])
	c := e.byMAC[dst]
	if c == nil || a[0] != 0 || a[1] != 1 || a[2] != 0x08 || a[3] != 0 || a[4] != 6 || a[5] != 4 || a[6] != 0 || a[7] != 1 ||
		c.state < ipBound || netip.AddrFrom4([4]byte(a[24:28])) != c.addr ||
		binary.BigEndian.Uint16(b[14:16])&0xfff != c.sub.STag || binary.BigEndian.Uint16(b[18:20])&0xfff != c.sub.CTag {
		e.count(func(s *IPoEStats) { s.Bad++ })
		return true
	}
	e.count(func(s *IPoEStats) { s.ARPAsked++ })
	r := make([]byte, 60)
	copy(r[0:6], b[6:12]) // to the asker
	copy(r[6:12], c.mac[:])
	copy(r[12:22], b[12:22]) // its tags (TPIDs, tag values)
	r[14] &= 0x0f            // PCP 0
	r[18] &= 0x0f
	ra := r[qinqARPOff:]
	copy(ra[0:6], a[0:6])
	ra[7] = 2 // reply
	copy(ra[8:14], c.mac[:])
	copy(ra[14:18], a[24:28]) // our address
	copy(ra[18:24], a[8:14])  // the asker's MAC and address
	copy(ra[24:28], a[14:18])
	e.out = append(e.out, r)
	return true
}

// input handles a received frame: a DHCP reply to one of our clients, or an
// ARP request for one's address.
func (e *IPoEEmu) input(b []byte, now time.Time) {
	if e.arp(b) || e.input6(b, now) {
		return
	}
	f, err := dhcp4.DecodeFrame(b)
	if err == nil && e.cfg.Rate > 0 && f.SrcIP == e.cfg.Target.Addr() && f.SrcPort == e.cfg.Target.Port() {
		if c := e.byMAC[f.Dst]; c != nil && f.DstPort == ipoeDataPort {
			if f.DstIP == c.addr {
				c.rxPkts++
				e.st.RxPkts++
			}
			return // else an echo to a lease given up meanwhile
		}
	}
	if err != nil || f.SrcPort != dhcp4.ServerPort || f.DstPort != dhcp4.ClientPort {
		e.count(func(s *IPoEStats) { s.Bad++ })
		return
	}
	m, err := dhcp4.Decode(f.Payload)
	if err != nil || m.Op != dhcp4.OpReply {
		e.count(func(s *IPoEStats) { s.Bad++ })
		return
	}
	var mac [6]byte
	copy(mac[:], m.CHAddr)
	c := e.byMAC[mac]
	if c == nil || m.XID != c.xid || f.STag != c.sub.STag || f.CTag != c.sub.CTag ||
		(f.Dst != mac && f.Dst != [6]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}) || !bytes.Equal(m.CHAddr[:6], mac[:]) {
		e.count(func(s *IPoEStats) { s.Bad++ })
		return
	}
	sid, _ := m.Addr(dhcp4.OptServerID)
	switch m.Type {
	case dhcp4.Offer:
		if c.state != ipSelecting || !m.YIAddr.Is4() || !sid.IsValid() {
			return
		}
		e.count(func(s *IPoEStats) { s.Offer++ })
		c.addr, c.server, c.state = m.YIAddr, sid, ipRequesting
		e.send(c, dhcp4.Request, now)
	case dhcp4.Ack:
		if c.state == ipInit || c.state == ipSelecting || m.YIAddr != c.addr {
			return
		}
		lease, ok := m.Uint32(dhcp4.OptLeaseTime)
		if !ok {
			lease = 3600
		}
		t1, ok := m.Uint32(dhcp4.OptRenewalTime)
		if !ok {
			t1 = lease / 2
		}
		t2, ok := m.Uint32(dhcp4.OptRebindingTime)
		if !ok {
			t2 = lease / 8 * 7
		}
		first := c.state == ipRequesting
		firstEver := first && !c.everUp
		if first {
			e.active--
			c.everUp = true
			c.attempt = 0
			c.upAt = now
			c.setupMs = float64(now.Sub(c.phaseStart).Microseconds()) / 1000
		}
		e.count(func(s *IPoEStats) {
			s.Ack++
			if firstEver {
				s.EverUp++
			}
			if first {
				s.Bound++
				s.SetupMS += uint64(now.Sub(c.phaseStart).Milliseconds())
			} else {
				s.Renewed++
			}
		})
		c.serverMAC = f.Src
		c.server = sid
		c.state = ipBound
		sec := func(v uint32) time.Time { return now.Add(time.Duration(v) * time.Second) }
		c.t1, c.t2, c.leaseEnd = sec(t1), sec(t2), sec(lease)
	case dhcp4.Nak:
		e.count(func(s *IPoEStats) {
			s.Nak++
			if c.state >= ipBound {
				s.Bound--
			}
		})
		e.restart(c, now)
	}
}

// ipoeDataPort is the UDP source port of the clients' datagrams.
const ipoeDataPort = 40000

// sendData sends one UDP datagram of a client with a lease to the target,
// through the gateway (the MAC its DHCP replies came from).
func (e *IPoEEmu) sendData(c *ipoeClient, now time.Time) {
	c.seq++
	payload := make([]byte, max(e.cfg.Size, 8))
	payload[0], payload[1], payload[2], payload[3] = byte(c.seq>>24), byte(c.seq>>16), byte(c.seq>>8), byte(c.seq)
	tpid := c.sub.TPID
	if tpid == 0 {
		tpid = e.cfg.TPID
	}
	f := dhcp4.Frame{Dst: c.serverMAC, Src: c.mac, OuterTPID: tpid, STag: c.sub.STag, CTag: c.sub.CTag,
		SrcIP: c.addr, DstIP: e.cfg.Target.Addr(), SrcPort: ipoeDataPort, DstPort: e.cfg.Target.Port(), Payload: payload}
	e.out = append(e.out, dhcp4.AppendFrame(nil, &f))
	c.txPkts++
	e.st.TxPkts++
	c.nextTx = now.Add(time.Duration(float64(time.Second) / e.cfg.Rate))
}

// IPoESession is a client in GET /v1/sessions.
type IPoESession struct {
	User     string  `json:"user"`
	MAC      string  `json:"mac"`
	Port     string  `json:"port"`
	STag     uint16  `json:"stag"`
	CTag     uint16  `json:"ctag"`
	State    string  `json:"state"` // init, selecting, requesting, up (bound, renewing, rebinding)
	Address  string  `json:"address,omitempty"`
	Server   string  `json:"server,omitempty"`
	LeaseEnd string  `json:"lease_end,omitempty"`
	SetupMs  float64 `json:"setup_ms,omitempty"`
	Attempts int     `json:"attempts"`
	TxPkts   uint64  `json:"tx_pkts"`
	RxPkts   uint64  `json:"rx_pkts"`
	// IPv6 (--dual-stack, once bound): the address its datagrams come from
	// (IA_NA, else SLAAC), the delegated prefix, the IA_NA address
	IPv6Address     string `json:"ipv6_address,omitempty"`
	DelegatedPrefix string `json:"delegated_prefix,omitempty"`
	IANAAddress     string `json:"ia_na_address,omitempty"`
	V6TxPkts        uint64 `json:"v6_tx_pkts,omitempty"`
	V6RxPkts        uint64 `json:"v6_rx_pkts,omitempty"`
}

var ipoeStateNames = [...]string{"init", "selecting", "requesting", "up", "up", "up"}

// Sessions lists the clients.
func (e *IPoEEmu) Sessions() []IPoESession {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]IPoESession, 0, len(e.clients))
	for _, c := range e.clients {
		s := IPoESession{User: c.sub.User, MAC: macText(c.mac), Port: c.sub.Port, STag: c.sub.STag, CTag: c.sub.CTag,
			State: ipoeStateNames[c.state], SetupMs: c.setupMs, Attempts: c.attempt, TxPkts: c.txPkts, RxPkts: c.rxPkts}
		if c.state >= ipBound {
			s.Address, s.Server = c.addr.String(), c.server.String()
			s.LeaseEnd = c.leaseEnd.UTC().Format(time.RFC3339)
		}
		if v := &c.v6; v.stage == v6Bound {
			if a := c.src6(); a.IsValid() {
				s.IPv6Address = a.String()
			}
			if v.pd.IsValid() {
				s.DelegatedPrefix = v.pd.String()
			}
			if v.na.IsValid() {
				s.IANAAddress = v.na.String()
			}
			s.V6TxPkts, s.V6RxPkts = v.txPkts, v.rxPkts
		}
		out = append(out, s)
	}
	return out
}

// handler is the status API of --ipoe: GET /v1/stats, GET /v1/sessions[?state=up].
func (e *IPoEEmu) handler() http.Handler {
	mux := http.NewServeMux()
	write := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		_ = enc.Encode(v)
	}
	mux.HandleFunc("GET /v1/stats", func(w http.ResponseWriter, r *http.Request) { write(w, e.Stats()) })
	mux.HandleFunc("GET /v1/sessions", func(w http.ResponseWriter, r *http.Request) {
		ss := e.Sessions()
		if want := r.URL.Query().Get("state"); want != "" {
			f := ss[:0:0]
			for _, s := range ss {
				if s.State == want {
					f = append(f, s)
				}
			}
			ss = f
		}
		write(w, ss)
	})
	return mux
}

package main

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/ppp"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pppoe"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/v6ctl"
)

// testServer is an access concentrator in the test process, on the other
// end of a Pipe: the CP's own codecs (internal/pppoe, the AC-Cookie) and its
// PPP engine (internal/ppp) per session, a users map, an address counter,
// and a UDP echo for the traffic.
type testServer struct {
	tr    Transport
	acMAC [6]byte
	jar   *pppoe.CookieJar
	cfg   serverConfig

	mu       sync.Mutex
	sessions map[[6]byte]*srvSess
	nextSID  uint16
	nextAddr uint32
	padtIn   map[[6]byte]int // PADTs received per client MAC
	ups      int
	downs    map[string]int
	tpids    map[uint16]int
	kill     [][6]byte
	hangups  map[[6]byte][]string // the client's Terminate-Requests ("termreq") and PADTs ("padt"), in order

	dropPct atomic.Int32 // drop this percentage of client frames (loss)
	mute    atomic.Bool  // send nothing (a dead access concentrator)
	frames  atomic.Int64
	done    chan struct{}
}

type serverConfig struct {
	Auth    []ppp.AuthMethod
	Users   map[string]string
	Silent  bool          // never answer anything
	Echo    time.Duration // the server's own LCP echoes
	NoDNS   bool
	UDPEcho bool
	Restart time.Duration // the PPP restart timer (0: 200 ms; bng-cp runs ppp's default, 3 s)
	// LCPBeforePADS sends the first LCP Configure-Request ahead of the PADS, as
	// the pod's switch (OVS) does: the PADS hits a cached flow and waits for its
	// batch, the first session frame to the MAC misses and goes out at once
	LCPBeforePADS bool
	RestartFirst  time.Duration // ppp.LinkConfig.RestartFirst (bng-cp: 500 ms)
	// PADTBeforeTermAck sends the PADT that follows the Terminate-Ack of a
	// client's Terminate-Request ahead of it, as the pod's switch delivered
	// them before bng-cp waited for the client's PADT
	PADTBeforeTermAck bool
	// NoTermAck ignores the clients' LCP Terminate-Requests
	NoTermAck bool
	// IPv6 runs IPv6CP and answers RS and DHCPv6 as bng-cp does (internal/v6ctl):
	// /64 2001:db8:100:<n>::, delegated prefix 2001:db8:200:<n>00::/56; IANA
	// offers IA_NA. IPv6 datagrams are echoed with UDPEcho.
	IPv6, IANA bool
}

type srvSess struct {
	mac        [6]byte
	sid        uint16
	stag, ctag uint16
	tpid       uint16
	link       *ppp.Link
	peer       netip.Addr
	up         bool
	v6         *v6ctl.Session
}

var srv6 = &v6ctl.Server{DUID: v6ctl.NewDUID([8]byte{1})}

func eui64Of(mac [6]byte) uint64 {
	return uint64(mac[0]^0x02)<<56 | uint64(mac[1])<<48 | uint64(mac[2])<<40 | 0xfffe<<24 |
		uint64(mac[3])<<16 | uint64(mac[4])<<8 | uint64(mac[5])
}

var (
	srvLocal = netip.MustParseAddr("100.64.0.1")
	srvDNS1  = netip.MustParseAddr("192.0.2.53")
	srvDNS2  = netip.MustParseAddr("192.0.2.54")
)

func newTestServer(tr Transport, cfg serverConfig) *testServer {
	if cfg.Auth == nil {
		cfg.Auth = []ppp.AuthMethod{ppp.AuthCHAP, ppp.AuthPAP}
	}
	s := &testServer{tr: tr, acMAC: [6]byte{0x02, 0xac, 0, 0, 0, 1}, cfg: cfg,
		jar:      pppoe.NewCookieJar([]byte("test"), 30*time.Second),
		sessions: map[[6]byte]*srvSess{}, padtIn: map[[6]byte]int{}, downs: map[string]int{},
		tpids: map[uint16]int{}, hangups: map[[6]byte][]string{}, nextSID: 1, nextAddr: 0x64400002, done: make(chan struct{})}
	go s.run()
	return s
}

func (s *testServer) run() {
	defer close(s.done)
	b := NewRxBatch()
	var out [][]byte
	lastTick := time.Now()
	for {
		if err := s.tr.Recv(b); err != nil {
			return
		}
		now := time.Now()
		s.mu.Lock()
		for i := 0; i < b.N; i++ {
			s.frames.Add(1)
			if p := s.dropPct.Load(); p > 0 && int32(s.frames.Load()%100) < p {
				continue
			}
			out = s.input(out, b.Frames[i], now)
		}
		for _, mac := range s.kill {
			if ss := s.sessions[mac]; ss != nil {
				out = s.frame(out, ss.mac, ss.tpid, ss.stag, ss.ctag, pppoe.CodePADT, ss.sid, nil)
				delete(s.sessions, mac)
			}
		}
		s.kill = nil
		if now.Sub(lastTick) >= 20*time.Millisecond {
			lastTick = now
			for _, ss := range s.sessions {
				if d := ss.link.NextDeadline(); !d.IsZero() && !now.Before(d) {
					ss.link.Tick(now)
					out = s.drain(out, ss, now)
				}
			}
		}
		s.mu.Unlock()
		if s.mute.Load() {
			out = out[:0]
		}
		if len(out) > 0 {
			s.tr.Send(out)
			out = out[:0]
		}
	}
}

func (s *testServer) frame(out [][]byte, dst [6]byte, tpid, stag, ctag uint16, code uint8, sid uint16, payload []byte) [][]byte {
	f := pppoe.Frame{Dst: dst, Src: s.acMAC, OuterTPID: tpid, STag: stag, CTag: ctag, Code: code, SessionID: sid, Payload: payload}
	return append(out, pppoe.AppendFrame(nil, &f))
}

func (s *testServer) input(out [][]byte, b []byte, now time.Time) [][]byte {
	if s.cfg.Silent {
		return out
	}
	f, err := pppoe.DecodeFrame(b)
	if err != nil {
		return out
	}
	s.tpids[f.OuterTPID]++
	if f.EtherType == pppoe.EtherTypeDiscovery {
		t, err := pppoe.ParseTags(f.Payload)
		if err != nil {
			return out
		}
		echo := func(p []byte) []byte {
			p = pppoe.AppendTag(p, pppoe.TagServiceName, t.ServiceName)
			if t.HasHostUniq {
				p = pppoe.AppendTag(p, pppoe.TagHostUniq, t.HostUniq)
			}
			return p
		}
		switch f.Code {
		case pppoe.CodePADI:
			p := pppoe.AppendTag(nil, pppoe.TagACName, []byte("test-ac"))
			p = echo(p)
			p = pppoe.AppendTag(p, pppoe.TagACCookie, s.jar.Make(f.Src, f.STag, f.CTag, now))
			return s.frame(out, f.Src, f.OuterTPID, f.STag, f.CTag, pppoe.CodePADO, 0, p)
		case pppoe.CodePADR:
			if f.Dst != s.acMAC || !s.jar.Check(t.ACCookie, f.Src, f.STag, f.CTag, now) {
				return out
			}
			if old := s.sessions[f.Src]; old != nil {
				delete(s.sessions, f.Src)
			}
			s.nextSID++
			if s.nextSID == 0xffff {
				s.nextSID = 1
			}
			restart := s.cfg.Restart
			if restart == 0 {
				restart = 200 * time.Millisecond
			}
			ss := &srvSess{mac: f.Src, sid: s.nextSID, stag: f.STag, ctag: f.CTag, tpid: f.OuterTPID,
				link: ppp.NewLink(ppp.LinkConfig{Auth: s.cfg.Auth, EchoInterval: s.cfg.Echo, Restart: restart,
					RestartFirst: s.cfg.RestartFirst})}
			s.sessions[f.Src] = ss
			out = s.frame(out, f.Src, f.OuterTPID, f.STag, f.CTag, pppoe.CodePADS, ss.sid, echo(nil))
			n := len(out)
			ss.link.Start(now)
			out = s.drain(out, ss, now)
			if s.cfg.LCPBeforePADS && len(out) > n {
				out[n-1], out[n] = out[n], out[n-1]
			}
			return out
		case pppoe.CodePADT:
			s.padtIn[f.Src]++
			s.hangups[f.Src] = append(s.hangups[f.Src], "padt")
			if ss := s.sessions[f.Src]; ss != nil && ss.sid == f.SessionID {
				delete(s.sessions, f.Src)
			}
		}
		return out
	}
	ss := s.sessions[f.Src]
	if ss == nil || ss.sid != f.SessionID {
		return out
	}
	proto, data, err := ppp.SplitProto(f.Payload)
	if err != nil {
		return out
	}
	if proto == ppp.ProtoIPv4 && ss.up && s.cfg.UDPEcho {
		return s.udpEcho(out, ss, data)
	}
	if proto == ppp.ProtoIPv6 && ss.v6 != nil && ss.v6.OurIID != 0 {
		if len(data) > 47 && data[6] == 17 && binary.BigEndian.Uint16(data[42:]) != 547 {
			if s.cfg.UDPEcho {
				return s.udpEcho6(out, ss, data)
			}
			return out
		}
		r := srv6.Handle(ss.v6, data, now)
		if r.Reply != nil {
			out = s.frame(out, ss.mac, ss.tpid, ss.stag, ss.ctag, pppoe.CodeSession, ss.sid,
				ppp.AppendProto(nil, ppp.Packet{Proto: ppp.ProtoIPv6, Data: r.Reply}))
		}
		return out
	}
	if proto == ppp.ProtoLCP && len(data) > 0 && data[0] == ppp.CodeTermReq {
		s.hangups[f.Src] = append(s.hangups[f.Src], "termreq")
		if s.cfg.NoTermAck {
			return out
		}
	}
	ss.link.Input(now, proto, data)
	return s.drain(out, ss, now)
}

// udpEcho6 sends an IPv6/UDP datagram back with addresses and ports
// swapped (the checksum stays right: the sum is the same).
func (s *testServer) udpEcho6(out [][]byte, ss *srvSess, ip []byte) [][]byte {
	r := append([]byte(nil), ip...)
	copy(r[8:24], ip[24:40])
	copy(r[24:40], ip[8:24])
	copy(r[40:42], ip[42:44])
	copy(r[42:44], ip[40:42])
	return s.frame(out, ss.mac, ss.tpid, ss.stag, ss.ctag, pppoe.CodeSession, ss.sid,
		ppp.AppendProto(nil, ppp.Packet{Proto: ppp.ProtoIPv6, Data: r}))
}

// udpEcho sends an IPv4/UDP datagram back with the addresses and ports swapped.
func (s *testServer) udpEcho(out [][]byte, ss *srvSess, ip []byte) [][]byte {
	if len(ip) < 28 || ip[9] != 17 {
		return out
	}
	r := append([]byte(nil), ip...)
	copy(r[12:16], ip[16:20])
	copy(r[16:20], ip[12:16])
	ihl := int(r[0]&15) * 4
	copy(r[ihl:ihl+2], ip[ihl+2:ihl+4])
	copy(r[ihl+2:ihl+4], ip[ihl:ihl+2])
	payload := binary.BigEndian.AppendUint16(nil, ppp.ProtoIPv4)
	payload = append(payload, r...)
	return s.frame(out, ss.mac, ss.tpid, ss.stag, ss.ctag, pppoe.CodeSession, ss.sid, payload)
}

func (s *testServer) drain(out [][]byte, ss *srvSess, now time.Time) [][]byte {
	for {
		pkts, evs := ss.link.Drain()
		if len(pkts) == 0 && len(evs) == 0 {
			return out
		}
		for _, p := range pkts {
			out = s.frame(out, ss.mac, ss.tpid, ss.stag, ss.ctag, pppoe.CodeSession, ss.sid, ppp.AppendProto(nil, p))
		}
		for _, ev := range evs {
			switch ev := ev.(type) {
			case ppp.EvAuth:
				pw, ok := s.cfg.Users[ev.User]
				if ok && ev.Method == ppp.AuthPAP {
					ok = string(ev.Password) == pw
				} else if ok {
					h := md5.New()
					h.Write([]byte{ev.CHAPID})
					h.Write([]byte(pw))
					h.Write(ev.Challenge)
					ok = bytes.Equal(h.Sum(nil), ev.Response)
				}
				if ok {
					peer := netip.AddrFrom4([4]byte{byte(s.nextAddr >> 24), byte(s.nextAddr >> 16), byte(s.nextAddr >> 8), byte(s.nextAddr)})
					s.nextAddr++
					ss.peer = peer
					d1, d2 := srvDNS1, srvDNS2
					if s.cfg.NoDNS {
						d1, d2 = netip.Addr{}, netip.Addr{}
					}
					ss.link.SetIPv4(srvLocal, peer, d1, d2)
					if s.cfg.IPv6 {
						n := uint16(s.nextAddr)
						ss.v6 = &v6ctl.Session{
							WAN: netip.PrefixFrom(netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 0x01, 0x00, byte(n >> 8), byte(n)}), 64),
							PD:  netip.PrefixFrom(netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 0x02, 0x00, byte(n), 0}), 56),
							DNS: []netip.Addr{netip.MustParseAddr("2001:db8::53")}, MTU: 1492, RouterLifetime: 1800,
						}
						if s.cfg.IANA {
							a := ss.v6.WAN.Addr().As16()
							a[15] = 1
							ss.v6.IANA = netip.AddrFrom16(a)
						}
						ss.link.SetIPv6(eui64Of(s.acMAC), eui64Of(ss.mac))
					}
				}
				ss.link.AuthResult(now, ok, "")
			case ppp.EvUp:
				ss.up = true
				s.ups++
			case ppp.EvUp6:
				ss.v6.OurIID = ev.Local
			case ppp.EvDown:
				s.downs[ev.Reason.String()]++
				out = s.frame(out, ss.mac, ss.tpid, ss.stag, ss.ctag, pppoe.CodePADT, ss.sid, nil)
				if n := len(out) - 1; ev.Acked && s.cfg.PADTBeforeTermAck && n > 0 {
					out[n-1], out[n] = out[n], out[n-1]
				}
				delete(s.sessions, ss.mac)
			}
		}
	}
}

// terminate makes the server send a PADT for the client's session.
func (s *testServer) terminate(mac [6]byte) {
	s.mu.Lock()
	s.kill = append(s.kill, mac)
	s.mu.Unlock()
}

func (s *testServer) with(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f()
}

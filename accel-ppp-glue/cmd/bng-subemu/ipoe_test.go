package main

import (
	"context"
	"encoding/binary"
	"net/netip"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/dhcp4"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/v6ctl"
)

// ipoeServer is an in-process DHCP server on the far end of a Pipe (the
// DP's redirect and bng-cp in one): it checks what the clients send (QinQ of
// their line, chaddr their MAC, ports, server id and requested address) and
// answers with short leases so that renewals happen in the test.
type ipoeServer struct {
	t        *testing.T
	mu       sync.Mutex
	addrs    map[[6]byte]netip.Addr
	released map[[6]byte]bool
	renewals int
	echoes   int
	bad      int
	nakOnce  map[[6]byte]bool // NAK the first renewal of these
	// after each ACK the server asks the client for its address (the DP's ARP
	// ping) and for another address (never answered)
	arpOut     [][]byte
	arpReplies int
}

// arpRequest is the DP's ARP ping: QinQ from the AC MAC and the gateway to mac for addr.
func arpRequest(mac [6]byte, tpid, stag, ctag uint16, addr netip.Addr) []byte {
	b := make([]byte, 60)
	copy(b[0:6], mac[:])
	copy(b[6:12], ipoeAC[:])
	binary.BigEndian.PutUint16(b[12:], tpid)
	binary.BigEndian.PutUint16(b[14:], 7<<13|stag)
	binary.BigEndian.PutUint16(b[16:], 0x8100)
	binary.BigEndian.PutUint16(b[18:], 7<<13|ctag)
	binary.BigEndian.PutUint16(b[20:], 0x0806)
	a := b[22:]
	copy(a, []byte{0, 1, 8, 0, 6, 4, 0, 1})
	copy(a[8:14], ipoeAC[:])
	gw := ipoeGW.As4()
	copy(a[14:18], gw[:])
	copy(a[18:24], mac[:])
	t := addr.As4()
	copy(a[24:28], t[:])
	return b
}

var ipoeGW = netip.MustParseAddr("10.9.0.1")
var ipoeTarget = netip.MustParseAddrPort("198.51.100.10:7")
var users49 = [6]byte{0x02, 0x49, 0x01, 0, 0, 9} // a users.json MAC
var ipoeAC = [6]byte{0x02, 0xac, 0, 0, 0, 1}

func (s *ipoeServer) serve(tr Transport) {
	rx := NewRxBatch()
	for {
		if err := tr.Recv(rx); err != nil {
			return
		}
		var out [][]byte
		for i := 0; i < rx.N; i++ {
			if r := s.handle(rx.Frames[i]); r != nil {
				out = append(out, r)
			}
		}
		s.mu.Lock()
		out = append(out, s.arpOut...)
		s.arpOut = nil
		s.mu.Unlock()
		if len(out) > 0 {
			tr.Send(out)
		}
	}
}

func (s *ipoeServer) handle(b []byte) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(b) >= 50 && b[20] == 0x08 && b[21] == 0x06 {
		// an ARP reply to our ping: from the client's MAC and address to the gateway, on its line
		var src [6]byte
		copy(src[:], b[6:12])
		a := b[22:]
		addr, ok := s.addrs[src]
		if !ok || a[7] != 2 || string(a[8:14]) != string(src[:]) || netip.AddrFrom4([4]byte(a[14:18])) != addr ||
			string(a[18:24]) != string(ipoeAC[:]) || netip.AddrFrom4([4]byte(a[24:28])) != ipoeGW ||
			string(b[0:6]) != string(ipoeAC[:]) || b[14]>>5 != 0 {
			s.bad++
			return nil
		}
		s.arpReplies++
		return nil
	}
	f, err := dhcp4.DecodeFrame(b)
	if err == nil && f.DstIP == ipoeTarget.Addr() && f.DstPort == ipoeTarget.Port() {
		// the echo target, behind the gateway: from a leased address, to the AC MAC
		if a, ok := s.addrs[f.Src]; !ok || f.SrcIP != a || f.Dst != ipoeAC {
			s.bad++
			return nil
		}
		s.echoes++
		e := dhcp4.Frame{Dst: f.Src, Src: ipoeAC, OuterTPID: f.OuterTPID, STag: f.STag, CTag: f.CTag,
			SrcIP: f.DstIP, DstIP: f.SrcIP, SrcPort: f.DstPort, DstPort: f.SrcPort, Payload: f.Payload}
		return dhcp4.AppendFrame(nil, &e)
	}
	if err != nil || f.SrcPort != 68 || f.DstPort != 67 || f.CTag == 0 {
		s.bad++
		return nil
	}
	m, err := dhcp4.Decode(f.Payload)
	if err != nil || string(m.CHAddr) != string(f.Src[:]) || f.Src[0] != 0x02 || (f.Src[1] != 0x5b || f.Src[2] != 0xee) && f.Src != users49 {
		s.bad++
		return nil
	}
	if ai, ok := m.AgentInfo(); m.Type != dhcp4.Release && (!ok || len(ai.CircuitID) == 0) {
		s.bad++ // the test runs with --option82
	}
	a, ok := s.addrs[f.Src]
	if !ok {
		a = netip.AddrFrom4([4]byte{10, 9, byte(len(s.addrs) >> 8), byte(10 + len(s.addrs))})
		s.addrs[f.Src] = a
	}
	r := &dhcp4.Message{Op: dhcp4.OpReply, XID: m.XID, CHAddr: m.CHAddr, CIAddr: m.CIAddr, YIAddr: a}
	switch m.Type {
	case dhcp4.Discover:
		r.Type = dhcp4.Offer
	case dhcp4.Request:
		sid, hasSID := m.Addr(dhcp4.OptServerID)
		req, _ := m.Addr(dhcp4.OptRequestedIP)
		switch {
		case hasSID && (sid != ipoeGW || req != a):
			s.bad++
			return nil
		case !hasSID && m.CIAddr != a:
			s.bad++
			return nil
		case !hasSID && (f.DstIP != ipoeGW || f.Dst != ipoeAC || f.SrcIP != a):
			s.bad++ // a renewal is unicast to the server identifier
			return nil
		}
		r.Type = dhcp4.Ack
		s.arpOut = append(s.arpOut, arpRequest(f.Src, f.OuterTPID, f.STag, f.CTag, a),
			arpRequest(f.Src, f.OuterTPID, f.STag, f.CTag, netip.MustParseAddr("10.9.255.1")))
		if !hasSID {
			if s.nakOnce[f.Src] {
				delete(s.nakOnce, f.Src)
				r.Type, r.YIAddr = dhcp4.Nak, netip.Addr{}
			} else {
				s.renewals++
			}
		}
	case dhcp4.Release:
		if m.CIAddr != a {
			s.bad++
		}
		s.released[f.Src] = true
		return nil
	default:
		s.bad++
		return nil
	}
	r.Set(dhcp4.OptServerID, dhcp4.A4(ipoeGW))
	if r.Type != dhcp4.Nak {
		r.Set(dhcp4.OptLeaseTime, dhcp4.U32(4))
		r.Set(dhcp4.OptRenewalTime, dhcp4.U32(1))
		r.Set(dhcp4.OptRebindingTime, dhcp4.U32(3))
	}
	o := dhcp4.Frame{Dst: f.Src, Src: ipoeAC, OuterTPID: f.OuterTPID, STag: f.STag, CTag: f.CTag,
		SrcIP: ipoeGW, DstIP: a, SrcPort: 67, DstPort: 68, Payload: r.Encode()}
	if r.Type == dhcp4.Nak {
		o.Dst, o.DstIP = [6]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, netip.AddrFrom4([4]byte{255, 255, 255, 255})
	}
	return dhcp4.AppendFrame(nil, &o)
}

func TestIPoEEmulator(t *testing.T) {
	cli, srvEnd := NewPipe(64)
	subs := []Subscriber{
		{Index: 1, User: "u1", STag: 100, CTag: 1},
		{Index: 2, User: "u2", STag: 100, CTag: 2},
		{Index: 3, User: "u3", STag: 101, CTag: 3, TPID: 0x88a8},
		{Index: 4, User: "02:49:01:00:00:09", STag: 102, CTag: 4, ClientMAC: users49, HasMAC: true},
	}
	srv := &ipoeServer{t: t, addrs: map[[6]byte]netip.Addr{}, released: map[[6]byte]bool{},
		nakOnce: map[[6]byte]bool{{0x02, 0x5b, 0xee, 0, 0, 1}: true}}
	go srv.serve(srvEnd)
	defer cli.Close()
	emu := NewIPoEEmu(IPoEConfig{MACs: 2, Concurrency: 4, Retransmit: 200 * time.Millisecond,
		PhaseTimeout: 2 * time.Second, Backoff: 50 * time.Millisecond, Option82: true, TPID: 0x8100, Release: true,
		Rate: 10, Target: ipoeTarget, Size: 64}, cli, subs)
	ctx, cancel := context.WithTimeout(context.Background(), 2600*time.Millisecond)
	defer cancel()
	if err := emu.Run(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the releases cross the pipe
	st := emu.Stats()
	srv.mu.Lock()
	defer srv.mu.Unlock()
	// 3 lines x 2 MACs, and the users.json entry with its own MAC (MACs beyond the first of it: generated)
	if st.Clients != 8 || st.Bound != 8 || st.EverUp != 8 || st.Nak != 1 || st.Renewed < 8 || st.Type != "final" ||
		st.TxPkts < 100 || st.RxPkts == 0 || st.RxPkts > st.TxPkts || st.Lost != st.TxPkts-st.RxPkts {
		t.Fatalf("stats %+v", st)
	}
	// ARP: every ping for a client's address answered (the first ACK's may cross
	// the request: answered once bound), pings for other addresses counted bad
	if st.ARPAsked < 8 || srv.arpReplies != int(st.ARPAsked) || st.Bad == 0 || st.Bad > st.Ack*2 {
		t.Fatalf("ARP: asked %d, replies at the server %d, bad %d", st.ARPAsked, srv.arpReplies, st.Bad)
	}
	if srv.bad != 0 || srv.renewals < 8 || len(srv.released) != 8 || len(srv.addrs) != 8 || srv.echoes == 0 {
		t.Fatalf("server: bad %d renewals %d released %d clients %d echoes %d", srv.bad, srv.renewals, len(srv.released), len(srv.addrs), srv.echoes)
	}
	if _, ok := srv.addrs[users49]; !ok {
		t.Fatal("the users.json MAC did not dial")
	}
	ss := emu.Sessions()
	if len(ss) != 8 || ss[6].MAC != "02:49:01:00:00:09" || ss[6].State != "up" || ss[6].Address == "" || ss[6].RxPkts == 0 {
		t.Fatalf("sessions %+v", ss)
	}
}

// users.json with both kinds: --ipoe takes the ipoe entries (with their
// MAC), PPPoE mode the others.
func TestLoadKinds(t *testing.T) {
	path := t.TempDir() + "/users.json"
	if err := os.WriteFile(path, []byte(`[
 {"user": "p1", "password": "x", "port": "access1", "stag": 100, "ctag": 1},
 {"user": "02:49:01:00:00:02", "password": "ipoe", "port": "access1", "stag": 100, "ctag": 2, "kind": "ipoe", "mac": "02:49:01:00:00:02"},
 {"user": "p3", "password": "x", "port": "access1", "stag": 100, "ctag": 3}
]`), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := loadKind(path, "access1", 0, 0, false)
	if err != nil || len(p) != 2 || p[0].User != "p1" || p[1].User != "p3" || p[1].Index != 3 {
		t.Fatalf("PPPoE %+v %v", p, err)
	}
	i, err := loadKind(path, "access1", 0, 0, true)
	if err != nil || len(i) != 1 || !i[0].HasMAC || i[0].ClientMAC != [6]byte{2, 0x49, 1, 0, 0, 2} || i[0].CTag != 2 {
		t.Fatalf("IPoE %+v %v", i, err)
	}
	if err := os.WriteFile(path, []byte(`[{"user": "u", "port": "a", "stag": 1, "ctag": 1, "kind": "ipoe", "mac": "03:00:00:00:00:01"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := loadKind(path, "a", 0, 0, true); err == nil {
		t.Fatal("a multicast MAC accepted")
	}
}

// FuzzIPoEInput feeds hostile frames to --ipoe's receive path (ARP, DHCP,
// echoes) with one client bound and one selecting: counted, never a panic, and
// anything queued in answer is an ARP reply of 60 bytes from the bound client.
func FuzzIPoEInput(f *testing.F) {
	subs := []Subscriber{{Index: 1, User: "u1", STag: 100, CTag: 1}, {Index: 2, User: "u2", STag: 100, CTag: 2}}
	mk := func() (*IPoEEmu, *ipoeClient) {
		e := NewIPoEEmu(IPoEConfig{MACs: 1, Concurrency: 1, Retransmit: time.Second, PhaseTimeout: time.Second,
			Backoff: time.Second, TPID: 0x8100, DualStack: true, Target6: ipoeTarget6, Rate: 1}, &discard{}, subs)
		c := e.clients[0]
		c.state, c.addr, c.server, c.xid = ipBound, netip.MustParseAddr("10.9.0.10"), ipoeGW, 7
		e.clients[1].state, e.clients[1].xid = ipSelecting, 8
		e.clients[1].v6 = ipoe6{stage: v6Soliciting, xid: 9}
		c.v6 = ipoe6{stage: v6Bound, xid: 10, serverID: []byte{0, 2, 0, 0, 0x7e, 0xd9, 1, 2}, prefix: 0x20010db801000001,
			pd: netip.MustParsePrefix("2001:db8:200:100::/56"), na: netip.MustParseAddr("2001:db8:100:1::1")}
		return e, c
	}
	e0, c := mk()
	f.Add(arpRequest(c.mac, 0x8100, 100, 1, c.addr))
	f.Add(arpRequest(c.mac, 0x88a8, 100, 1, c.addr))
	f.Add(arpRequest(c.mac, 0x8100, 100, 2, c.addr))
	f.Add(arpRequest(c.mac, 0x8100, 100, 1, ipoeGW)[:49])
	r := &dhcp4.Message{Op: dhcp4.OpReply, XID: 8, CHAddr: e0.clients[1].mac[:], YIAddr: netip.MustParseAddr("10.9.0.11"), Type: dhcp4.Offer}
	r.Set(dhcp4.OptServerID, dhcp4.A4(ipoeGW))
	f.Add(dhcp4.AppendFrame(nil, &dhcp4.Frame{Dst: [6]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, Src: ipoeAC, OuterTPID: 0x8100,
		STag: 100, CTag: 2, SrcIP: ipoeGW, DstIP: netip.AddrFrom4([4]byte{255, 255, 255, 255}), SrcPort: 67, DstPort: 68, Payload: r.Encode()}))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, c := mk()
		e.input(b, time.Now())
		for _, o := range e.out {
			if len(o) > 22 && o[20] == 0x86 && o[21] == 0xdd {
				// IPv6: only a DHCPv6 Request after an Advertise, from a client
				if _, err := v6ctl.DecodeFrame(o); err != nil || o[6] != 0x02 {
					t.Fatalf("sent %x", o)
				}
				continue
			}
			if len(o) != 60 || o[20] != 0x08 || o[21] != 0x06 || o[29] != 2 || string(o[6:12]) != string(c.mac[:]) {
				// a DHCP REQUEST after an OFFER is the other legitimate answer
				if _, err := dhcp4.DecodeFrame(o); err != nil {
					t.Fatalf("sent %x", o)
				}
			}
		}
	})
}

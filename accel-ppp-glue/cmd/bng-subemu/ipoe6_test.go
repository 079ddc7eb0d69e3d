package main

import (
	"context"
	"encoding/binary"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/v6ctl"
)

var ipoeTarget6 = netip.MustParseAddrPort("[2001:db8:ffff::10]:7")

// v6Server answers the clients' RS and DHCPv6 with bng-cp's own handler
// (internal/v6ctl) on Ethernet, as bng-cp does on an IPoE line (from the AC
// MAC and fe80::EUI-64 of it, a /64 and delegated prefix per MAC, IA_NA),
// and echoes the datagrams to --target6 back from the target.
type v6Server struct {
	t      *testing.T
	mu     sync.Mutex
	srv    v6ctl.Server
	sess   map[[6]byte]*v6ctl.Session
	echoes int
	bad    int
	kinds  map[string]int
}

func (s *v6Server) handle(b []byte) []byte {
	f, err := v6ctl.DecodeFrame(b)
	if err != nil {
		return nil // DHCPv4: not answered here
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := f.Packet
	if len(p) >= 48 && p[6] == 17 && netip.AddrFrom16([16]byte(p[24:40])) == ipoeTarget6.Addr() {
		if f.Dst != ipoeAC {
			s.bad++
			return nil
		}
		s.echoes++
		e := append([]byte(nil), p...)
		copy(e[8:24], p[24:40])
		copy(e[24:40], p[8:24])
		copy(e[40:42], p[42:44])
		copy(e[42:44], p[40:42])
		e[46], e[47] = 0, 0
		binary.BigEndian.PutUint16(e[46:], csum6(e))
		return v6ctl.AppendFrame(nil, &v6ctl.Frame{Dst: f.Src, Src: ipoeAC, OuterTPID: f.OuterTPID, STag: f.STag, CTag: f.CTag, Packet: e})
	}
	if f.Dst[0] != 0x33 || f.Dst[1] != 0x33 {
		s.bad++
		return nil
	}
	vs := s.sess[f.Src]
	if vs == nil {
		n := byte(len(s.sess) + 1)
		vs = &v6ctl.Session{OurIID: eui64(ipoeAC), SLLA: ipoeAC[:], MTU: 1500, RouterLifetime: 1800,
			WAN:  netip.PrefixFrom(netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 1, 0, 0, n}), 64),
			PD:   netip.PrefixFrom(netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 2, 0, n}), 56),
			IANA: netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 1, 0, 0, n, 15: 1}),
			DNS:  []netip.Addr{netip.MustParseAddr("2001:db8::53")}}
		s.sess[f.Src] = vs
	}
	r := s.srv.Handle(vs, p, time.Now())
	s.kinds[r.Kind]++
	if r.Drop {
		s.bad++
		return nil
	}
	return v6ctl.AppendFrame(nil, &v6ctl.Frame{Dst: f.Src, Src: ipoeAC, OuterTPID: f.OuterTPID, STag: f.STag, CTag: f.CTag, Packet: r.Reply})
}

// --ipoe --dual-stack against bng-cp's IPv6 handler: every client gets an
// RA, runs Solicit/Advertise/Request/Reply with IA_NA + IA_PD, sends to
// --target6 from its IA_NA address and from its delegated prefix and gets
// the echoes; the stop releases the bindings.
func TestIPoEDualStackEmulator(t *testing.T) {
	cli, srvEnd := NewPipe(64)
	subs := []Subscriber{{Index: 1, User: "u1", STag: 100, CTag: 1}, {Index: 2, User: "u2", STag: 100, CTag: 2, TPID: 0x88a8}}
	srv := &v6Server{t: t, srv: v6ctl.Server{DUID: v6ctl.NewDUID([8]byte{1})}, sess: map[[6]byte]*v6ctl.Session{}, kinds: map[string]int{}}
	go func() {
		rx := NewRxBatch()
		for {
			if err := srvEnd.Recv(rx); err != nil {
				return
			}
			var out [][]byte
			for i := 0; i < rx.N; i++ {
				if r := srv.handle(rx.Frames[i]); r != nil {
					out = append(out, r)
				}
			}
			if len(out) > 0 {
				srvEnd.Send(out)
			}
		}
	}()
	defer cli.Close()
	emu := NewIPoEEmu(IPoEConfig{MACs: 1, Concurrency: 4, Retransmit: 200 * time.Millisecond, PhaseTimeout: 5 * time.Second,
		Backoff: 50 * time.Millisecond, TPID: 0x8100, Release: true, Rate: 20, Size: 64,
		DualStack: true, Target6: ipoeTarget6}, cli, subs)
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	if err := emu.Run(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the releases cross the pipe
	st := emu.Stats()
	v := st.IPv6
	if v == nil || v.Bound != 2 || v.Received["ra"] < 2 || v.Received["advertise"] != 2 || v.Sent["release"] != 2 ||
		v.TxPkts < 20 || v.RxPkts == 0 || v.TxPD == 0 || v.RxPD == 0 || v.Bad != 0 || v.RxBad != 0 {
		t.Fatalf("IPv6 stats %+v", v)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.bad != 0 || srv.kinds["ra"] < 2 || srv.kinds["reply"] < 4 || srv.echoes == 0 {
		t.Fatalf("server: bad %d kinds %v echoes %d", srv.bad, srv.kinds, srv.echoes)
	}
	for mac, vs := range srv.sess {
		if vs.Binding.PDBound || vs.Binding.NABound {
			t.Errorf("%x still bound after the stop's Release", mac)
		}
	}
	ss := emu.Sessions()
	if len(ss) != 2 || ss[0].IANAAddress != "2001:db8:100:1::1" || ss[0].IPv6Address != ss[0].IANAAddress ||
		ss[0].DelegatedPrefix != "2001:db8:200:100::/56" || ss[1].V6RxPkts == 0 {
		t.Fatalf("sessions %+v", ss)
	}
}

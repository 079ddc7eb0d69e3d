package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeCP is a tiny access concentrator + PFCP control-plane function written
// in the test: it answers the loader's CPEs the way bng-cp should and
// establishes each session in the loader's emulated DP.
type fakeCP struct {
	t        *testing.T
	vx, pf   *net.UDPConn
	dps      map[uint32]netip.AddrPort // instance -> the DP's VXLAN address
	pfcp     map[uint32]netip.AddrPort // instance -> the DP's PFCP address
	acMAC    [6]byte
	dropPADI int // drop this many PADIs per client before answering
	nakUser  string
	garbage  bool // send malformed frames and datagrams along
	badTx    bool // name another BNG magic number in the establishment

	mu       sync.Mutex
	clients  map[[6]byte]*fakeClient
	nextSID  uint16
	seq      uint32
	estOK    int
	estBad   []string
	answered map[uint32]bool // PFCP sequence numbers answered
}

type fakeClient struct {
	vni        uint32
	stag, ctag uint16
	padis      int
	sid        uint16
	peerAcked  bool
	addr       [4]byte
	user       string
	magic      []byte // the CPE's LCP magic number
}

func newFakeCP(t *testing.T) *fakeCP {
	c := &fakeCP{t: t, acMAC: [6]byte{0x02, 0xbb, 0, 0, 0, 1}, clients: make(map[[6]byte]*fakeClient),
		dps: make(map[uint32]netip.AddrPort), pfcp: make(map[uint32]netip.AddrPort), answered: make(map[uint32]bool)}
	var err error
	if c.vx, err = net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)}); err != nil {
		t.Fatal(err)
	}
	if c.pf, err = net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.vx.Close(); c.pf.Close() })
	return c
}

func (c *fakeCP) vxPort() uint16 { return uint16(c.vx.LocalAddr().(*net.UDPAddr).Port) }

func (c *fakeCP) nextSeq() uint32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	return c.seq
}

// run associates with every DP, installs a default session and serves frames.
func (c *fakeCP) run() {
	go c.readPFCP()
	for _, a := range c.pfcp {
		req := newPFCP(pfcpAssocSetupReq, false, 0, c.nextSeq()).nodeID(netip.MustParseAddr("127.0.0.1")).rts(1).bytes()
		c.pf.WriteToUDPAddrPort(req, a)
		def := newPFCP(pfcpSessEstReq, true, 0, c.nextSeq()).nodeID(netip.MustParseAddr("127.0.0.1")).
			fseid(1, netip.MustParseAddr("127.0.0.1")).
			ie(ieCreateFAR, farToCP()...).bytes()
		c.pf.WriteToUDPAddrPort(def, a)
		if c.garbage {
			c.pf.WriteToUDPAddrPort([]byte{0x20, 50, 0xff, 0xff}, a)
			c.pf.WriteToUDPAddrPort(newPFCP(pfcpSessEstReq, true, 0, c.nextSeq()).ie(ieCreatePDR, 0, 2, 0, 9).bytes(), a)
		}
	}
	go c.readVXLAN()
}

func farToCP() []byte {
	far := append(tlv(108, 0, 0, 0, 1), tlv(44, 2)...)
	return append(far, tlv(ieForwardingParams, tlv(ieDestInterface, 3)...)...)
}

func tlv(t uint16, v ...byte) []byte {
	b := binary.BigEndian.AppendUint16(nil, t)
	b = binary.BigEndian.AppendUint16(b, uint16(len(v)))
	return append(b, v...)
}

func (c *fakeCP) readPFCP() {
	buf := make([]byte, 65536)
	for {
		n, _, err := c.pf.ReadFromUDPAddrPort(buf)
		if err != nil {
			return
		}
		ms, err := splitPFCP(buf[:n])
		if err != nil || len(ms) != 1 {
			c.t.Errorf("DP answer %x: %v", buf[:n], err)
			continue
		}
		m := ms[0]
		cause := -1
		var fseid bool
		_ = forEachIE(m.body, func(t uint16, v []byte) error {
			if t == ieCause && len(v) == 1 {
				cause = int(v[0])
			}
			if t == ieFSEID && len(v) == 13 && v[0] == 0x02 {
				fseid = true
			}
			return nil
		})
		c.mu.Lock()
		c.answered[m.seq] = true
		if m.typ == pfcpSessEstResp && m.seid >= 0x1000 {
			if cause == causeAccepted && fseid {
				c.estOK++
			} else {
				c.estBad = append(c.estBad, fmt.Sprintf("%x", buf[:n]))
			}
		}
		c.mu.Unlock()
	}
}

func (c *fakeCP) send(vni uint32, to netip.AddrPort, f *frame) {
	c.vx.WriteToUDPAddrPort(vxlanEncap(nil, vni, appendFrame(nil, f)), to)
}

func (c *fakeCP) readVXLAN() {
	buf := make([]byte, 65536)
	for {
		n, from, err := c.vx.ReadFromUDPAddrPort(buf)
		if err != nil {
			return
		}
		vni, inner, err := vxlanDecap(buf[:n])
		if err != nil {
			c.t.Errorf("VXLAN from the loader: %v", err)
			continue
		}
		f, err := decodeFrame(inner)
		if err != nil {
			c.t.Errorf("frame from the loader: %v", err)
			continue
		}
		c.onFrame(vni, from, &f)
	}
}

func (c *fakeCP) onFrame(vni uint32, from netip.AddrPort, f *frame) {
	c.mu.Lock()
	cl := c.clients[f.src]
	if cl == nil {
		cl = &fakeClient{vni: vni, stag: f.stag, ctag: f.ctag}
		c.clients[f.src] = cl
	}
	c.mu.Unlock()
	reply := frame{dst: f.src, src: c.acMAC, outerTPID: f.outerTPID, stag: f.stag, ctag: f.ctag,
		etherType: f.etherType, sessionID: f.sessionID}
	if c.garbage {
		c.vx.WriteToUDPAddrPort([]byte{0x08, 0, 0, 0, 0, 0, byte(vni), 0, 1, 2, 3}, from)
		g := reply
		g.payload = []byte{0xc0, 0x21, 1, 1, 0xff, 0xff}
		g.etherType, g.code, g.sessionID = etherTypeSession, codeSession, cl.sid
		c.send(vni, from, &g)
	}
	if f.etherType == etherTypeDiscovery {
		tg, err := parseTags(f.payload)
		if err != nil {
			c.t.Errorf("tags: %v", err)
			return
		}
		switch f.code {
		case codePADI:
			cl.padis++
			if cl.padis <= c.dropPADI {
				return
			}
			reply.code = codePADO
			p := appendTag(nil, tagACName, []byte("fake"))
			p = appendTag(p, tagServiceName, nil)
			p = appendTag(p, tagHostUniq, tg.hostUniq)
			p = appendTag(p, tagACCookie, append([]byte("ck"), f.src[:]...))
			p = appendTag(p, tagRelaySessionID, []byte{9, 9})
			reply.payload = p
			c.send(vni, from, &reply)
		case codePADR:
			if !bytes.Equal(tg.acCookie, append([]byte("ck"), f.src[:]...)) || !bytes.Equal(tg.relaySID, []byte{9, 9}) {
				c.t.Errorf("PADR without our cookie/relay id: %x", f.payload)
				return
			}
			c.mu.Lock()
			c.nextSID++
			cl.sid = c.nextSID
			c.mu.Unlock()
			reply.code, reply.sessionID = codePADS, cl.sid
			reply.payload = appendTag(appendTag(nil, tagServiceName, nil), tagHostUniq, tg.hostUniq)
			c.send(vni, from, &reply)
			reply.etherType, reply.code = etherTypeSession, codeSession
			o := appendOption(nil, lcpOptMRU, []byte{0x05, 0xd4})
			o = appendOption(o, lcpOptAuth, []byte{0xc0, 0x23})
			o = appendOption(o, lcpOptMagic, []byte{0xca, 0xfe, 0xba, 0xbe})
			reply.payload = appendPPP(nil, protoLCP, cpConfReq, 1, o)
			c.send(vni, from, &reply)
			// An echo before the link is up must be answered with the CPE's magic.
			reply.payload = appendPPP(nil, protoLCP, cpEchoReq, 7, []byte{0xca, 0xfe, 0xba, 0xbe})
			c.send(vni, from, &reply)
		}
		return
	}
	if f.sessionID != cl.sid {
		c.t.Errorf("session frame with id %#x, PADS gave %#x", f.sessionID, cl.sid)
		return
	}
	reply.code = codeSession
	proto, pkt, err := splitPPP(f.payload)
	if err != nil {
		c.t.Error(err)
		return
	}
	p, err := parseCP(pkt)
	if err != nil {
		c.t.Error(err)
		return
	}
	switch proto {
	case protoLCP:
		switch p.code {
		case cpConfReq:
			if !bytes.Contains(p.data, []byte{1, 4, 0x05, 0xd4}) || !bytes.Contains(p.data, []byte{5, 6}) {
				c.t.Errorf("LCP request without MRU 1492 and magic: %x", p.data)
			}
			if opts, err := parseOptions(p.data); err == nil {
				for _, o := range opts {
					if o.typ == lcpOptMagic {
						cl.magic = append([]byte(nil), o.data...)
					}
				}
			}
			reply.payload = appendPPP(nil, protoLCP, cpConfAck, p.id, p.data)
			c.send(vni, from, &reply)
		case cpConfAck:
			cl.peerAcked = true
		case cpEchoReply:
			if len(p.data) < 4 || bytes.Equal(p.data[:4], []byte{0xca, 0xfe, 0xba, 0xbe}) {
				c.t.Errorf("echo reply with our magic: %x", p.data)
			}
		}
	case protoPAP:
		if p.code != papAuthReq || len(p.data) < 1 || int(p.data[0])+1 >= len(p.data) {
			c.t.Errorf("PAP %x", pkt)
			return
		}
		user := string(p.data[1 : 1+p.data[0]])
		pw := string(p.data[2+p.data[0]:])
		cl.user = user
		code := uint8(papAuthAck)
		if user == c.nakUser || "p"+strings.TrimPrefix(user, "u") != pw {
			code = papAuthNak
		}
		reply.payload = appendPPP(nil, protoPAP, code, p.id, []byte{0})
		c.send(vni, from, &reply)
		if code == papAuthAck {
			reply.payload = appendPPP(nil, protoIPCP, cpConfReq, 1, appendOption(nil, ipcpOptAddr, []byte{10, 0, 0, 1}))
			c.send(vni, from, &reply)
		}
	case protoIPCP:
		switch p.code {
		case cpConfReq:
			opts, _ := parseOptions(p.data)
			var addr []byte
			for _, o := range opts {
				if o.typ == ipcpOptAddr {
					addr = o.data
				}
			}
			if bytes.Equal(addr, []byte{0, 0, 0, 0}) {
				cl.addr = [4]byte{100, 64, byte(cl.sid >> 8), byte(cl.sid)}
				nak := appendOption(nil, ipcpOptAddr, cl.addr[:])
				nak = appendOption(nak, ipcpOptDNS1, []byte{198, 51, 100, 53})
				reply.payload = appendPPP(nil, protoIPCP, cpConfNak, p.id, nak)
				c.send(vni, from, &reply)
				return
			}
			if !bytes.Equal(addr, cl.addr[:]) {
				c.t.Errorf("IPCP request for %v, offered %v", addr, cl.addr)
				return
			}
			if bytes.Contains(p.data, []byte{129, 6, 0, 0, 0, 0}) {
				c.t.Errorf("DNS1 not taken from the Nak: %x", p.data)
			}
			reply.payload = appendPPP(nil, protoIPCP, cpConfAck, p.id, p.data)
			c.send(vni, from, &reply)
			c.establish(cl, f.src)
		}
	}
}

// establish sends the Session Establishment Request of docs/dp/pfcp.md 6
// (upstream PDR with MAC, tags, PPPoE session id; downstream with the address).
func (c *fakeCP) establish(cl *fakeClient, mac [6]byte) {
	up := tlv(ieSourceInterface, 0)
	efilter := tlv(ieMACAddress, append([]byte{1}, mac[:]...)...)
	efilter = append(efilter, tlv(ieCTag, 4, byte(cl.ctag>>8), byte(cl.ctag))...)
	efilter = append(efilter, tlv(ieSTag, 4, byte(cl.stag>>8), byte(cl.stag))...)
	up = append(up, tlv(ieEthPacketFilter, efilter...)...)
	up = append(up, tlv(ieBBFPPPoESessionID, 0x0d, 0xe9, byte(cl.sid>>8), byte(cl.sid))...)
	pdr1 := append(tlv(56, 0, 1), tlv(iePDI, up...)...)
	down := append(tlv(ieSourceInterface, 1), tlv(ieUEIPAddress, 6, cl.addr[0], cl.addr[1], cl.addr[2], cl.addr[3])...)
	pdr2 := append(tlv(56, 0, 2), tlv(iePDI, down...)...)
	seid := 0x1000 + uint64(cl.sid)
	lcp := []byte{0x0d, 0xe9}
	lcp = append(lcp, tlv(ieBBFVerifTimers, 0x0d, 0xe9, 0, 10, 3)...)
	tx := byte(0xbe)
	if c.badTx {
		tx = 0xbf
	}
	lcp = append(lcp, tlv(ieBBFLCPMagic, append([]byte{0x0d, 0xe9, 0xca, 0xfe, 0xba, tx}, cl.magic...)...)...)
	req := newPFCP(pfcpSessEstReq, true, 0, c.nextSeq()).nodeID(netip.MustParseAddr("127.0.0.1")).
		fseid(seid, netip.MustParseAddr("127.0.0.1")).ie(ieCreatePDR, pdr1...).ie(ieCreatePDR, pdr2...).
		ie(ieBBFMTU, 0x0d, 0xe9, 0x05, 0xd4).ie(ieBBFLCPConnectivity, lcp...).bytes()
	c.pf.WriteToUDPAddrPort(req, c.pfcp[cl.vni])
}

func loaderFor(t *testing.T, cp *fakeCP, n int, mod func(*Config)) *Loader {
	cfg := Config{
		CP: netip.MustParseAddr("127.0.0.1"), CPVXLAN: cp.vxPort(),
		DPs: []DPSpec{
			{ID: 1, Addr: netip.MustParseAddr("127.0.0.2"), STag: Range{100, 101}, CTag: Range{1, 4000}},
			{ID: 7, Addr: netip.MustParseAddr("127.0.0.3"), STag: Range{200, 200}},
		},
		Sessions: n, Window: 16, OuterTPID: tpid8021Q, Auth: "pap", UserFmt: "u%d", PassFmt: "p%d",
		MRU: 1492, DNS: true, AccessLine: true, Timeout: 5 * time.Second, Resend: 100 * time.Millisecond,
		AssocWait: 5 * time.Second,
	}
	if mod != nil {
		mod(&cfg)
	}
	l, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	vx, pf := l.Addrs()
	for i, d := range l.dps {
		cp.dps[d.id] = vx[i]
		cp.pfcp[d.id] = pf[i]
	}
	return l
}

func TestDialAgainstFakeCP(t *testing.T) {
	cp := newFakeCP(t)
	cp.dropPADI = 1 // the loader must resend
	cp.garbage = true
	l := loaderFor(t, cp, 40, nil)
	l.Serve()
	cp.run()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := l.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Sessions != 40 || res.Completed != 40 || res.Failed != 0 || res.SessionsPerSecond <= 0 || res.P99MS < res.P50MS {
		t.Fatalf("%+v failures %v counters %v", res, l.Failures(), l.Counters())
	}
	time.Sleep(50 * time.Millisecond)
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.estOK != 40 || len(cp.estBad) != 0 {
		t.Fatalf("establishments acknowledged %d, bad %v", cp.estOK, cp.estBad)
	}
	// Sessions alternate between the instances; lines follow the ranges.
	for i := 0; i < 40; i++ {
		cl := cp.clients[sessionMAC(i)]
		wantVNI, wantS, wantC := uint32(1), uint16(100), uint16(i/2+1)
		if i%2 == 1 {
			wantVNI, wantS, wantC = 7, 200, 0
		}
		if cl == nil || cl.vni != wantVNI || cl.stag != wantS || cl.ctag != wantC || cl.user != fmt.Sprintf("u%d", i+1) {
			t.Fatalf("session %d: %+v", i, cl)
		}
		if cl.padis < 2 {
			t.Fatalf("session %d: PADI not resent", i)
		}
	}
	c := l.Counters()
	if c["resent"] < 40 || c["malformed_frames"] == 0 || c["echoes_answered"] != 40 || c["pfcp_malformed"] == 0 {
		t.Fatalf("counters %v", c)
	}
}

func TestPAPNakFails(t *testing.T) {
	cp := newFakeCP(t)
	cp.nakUser = "u3"
	l := loaderFor(t, cp, 6, nil)
	l.Serve()
	cp.run()
	res, err := l.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Completed != 5 || res.Failed != 1 {
		t.Fatalf("%+v", res)
	}
	if f := l.Failures(); f["PAP Authenticate-Nak in auth"] != 1 {
		t.Fatalf("%v", f)
	}
}

func TestEstablishmentChecked(t *testing.T) {
	cp := newFakeCP(t)
	cp.badTx = true
	l := loaderFor(t, cp, 4, nil)
	l.Serve()
	cp.run()
	res, err := l.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Completed != 0 || res.Failed != 4 {
		t.Fatalf("%+v", res)
	}
	// The establishment may overtake the IPCP Ack (two sockets): step ipcp or pfcp.
	n := 0
	for k, v := range l.Failures() {
		if (k != "establishment LCP magic numbers in pfcp" && k != "establishment LCP magic numbers in ipcp") ||
			!strings.HasPrefix(l.FailureExample(k), "establishment LCP magic numbers: tx 0xcafebabf") {
			t.Fatalf("%q x %d (%s)", k, v, l.FailureExample(k))
		}
		n += v
	}
	if n != 4 {
		t.Fatalf("%d failures", n)
	}
}

func TestNoAssociation(t *testing.T) {
	cp := newFakeCP(t)
	l := loaderFor(t, cp, 2, func(c *Config) { c.AssocWait = 100 * time.Millisecond })
	l.Serve()
	if _, err := l.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "no PFCP association") {
		t.Fatalf("%v", err)
	}
}

func TestTimeout(t *testing.T) {
	cp := newFakeCP(t)
	cp.dropPADI = 1000
	l := loaderFor(t, cp, 3, func(c *Config) { c.Timeout = 300 * time.Millisecond })
	l.Serve()
	cp.run()
	res, err := l.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Completed != 0 || res.Failed != 3 || l.Failures()["timeout in padi"] != 3 {
		t.Fatalf("%+v %v", res, l.Failures())
	}
}

func TestLinesShared(t *testing.T) {
	l, err := New(Config{CP: netip.MustParseAddr("127.0.0.1"), DPs: []DPSpec{{ID: 1,
		Addr: netip.MustParseAddr("127.0.0.2"), STag: Range{100, 101}, CTag: Range{1, 2}}},
		Sessions: 5, Window: 1, UserFmt: "u%d", PassFmt: "p%d"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	want := [][2]uint16{{100, 1}, {100, 2}, {101, 1}, {101, 2}, {100, 1}}
	for i, s := range l.sessions {
		if [2]uint16{s.stag, s.ctag} != want[i] || s.mac != sessionMAC(i) || string(s.password) != fmt.Sprintf("p%d", i+1) {
			t.Fatalf("session %d: %d/%d %x", i, s.stag, s.ctag, s.mac)
		}
	}
}

func TestDPFlag(t *testing.T) {
	var d dpFlags
	for _, ok := range []string{"1=127.0.0.2", "2=127.0.0.3/100-149", "3=127.0.0.4/7/none", "4=127.0.0.5/5-6/1-2"} {
		if err := d.Set(ok); err != nil {
			t.Fatalf("%s: %v", ok, err)
		}
	}
	if d[1].STag != (Range{100, 149}) || !d[1].sSet || d[1].cSet || d[2].CTag != (Range{}) || !d[2].cSet ||
		d[3].CTag != (Range{1, 2}) {
		t.Fatalf("%+v", d)
	}
	for _, bad := range []string{"127.0.0.2", "0=127.0.0.2", "1=::1", "1=127.0.0.2/0-3", "1=127.0.0.2/5-4",
		"1=127.0.0.2/1/2/3", "16777216=127.0.0.1", "1=127.0.0.2/4095"} {
		if err := d.Set(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// FuzzSession feeds datagrams "from the CP" to a CPE that has sent its PADI:
// whatever arrives, nothing panics, and the session ends at most once.
func FuzzSession(f *testing.F) {
	ac := [6]byte{0x02, 0xbb, 0, 0, 0, 1}
	mac := sessionMAC(0)
	fr := func(et uint16, code uint8, sid uint16, p []byte) []byte {
		return vxlanEncap(nil, 1, appendFrame(nil, &frame{dst: mac, src: ac, outerTPID: tpid8021Q, stag: 100,
			ctag: 1, etherType: et, code: code, sessionID: sid, payload: p}))
	}
	hu := []byte{0, 0, 0, 0}
	pado := fr(etherTypeDiscovery, codePADO, 0, appendTag(appendTag(nil, tagHostUniq, hu), tagACCookie, []byte{1}))
	pads := fr(etherTypeDiscovery, codePADS, 5, appendTag(nil, tagHostUniq, hu))
	lcp := fr(etherTypeSession, codeSession, 5, appendPPP(nil, protoLCP, cpConfReq, 1,
		appendOption(appendOption(nil, lcpOptAuth, []byte{0xc0, 0x23}), lcpOptMagic, []byte{1, 2, 3, 4})))
	lcpAck := fr(etherTypeSession, codeSession, 5, appendPPP(nil, protoLCP, cpConfAck, 1,
		appendOption(appendOption(nil, lcpOptMRU, []byte{5, 0xd4}), lcpOptMagic, []byte{0x5e, 0xed, 0, 1})))
	papAck := fr(etherTypeSession, codeSession, 5, appendPPP(nil, protoPAP, papAuthAck, 1, []byte{0}))
	nak := fr(etherTypeSession, codeSession, 5, appendPPP(nil, protoIPCP, cpConfNak, 1,
		appendOption(nil, ipcpOptAddr, []byte{100, 64, 0, 1})))
	join := func(ds ...[]byte) []byte {
		var b []byte
		for _, d := range ds {
			b = binary.BigEndian.AppendUint16(b, uint16(len(d)))
			b = append(b, d...)
		}
		return b
	}
	f.Add(join(pado, pads, lcp, lcpAck, papAck, nak))
	f.Add(join(pado, pads, fr(etherTypeDiscovery, codePADT, 5, nil)))
	f.Add(join(pado, pads, lcp, fr(etherTypeSession, codeSession, 5, appendPPP(nil, protoLCP, cpTermReq, 3, nil))))
	l, err := New(Config{CP: netip.MustParseAddr("127.0.0.1"), CPVXLAN: 9, DPs: []DPSpec{{ID: 1,
		Addr: netip.MustParseAddr("127.0.0.1"), STag: Range{100, 100}, CTag: Range{1, 1}}},
		Sessions: 1, Window: 1, OuterTPID: tpid8021Q, Auth: "pap", UserFmt: "u%d", PassFmt: "p%d", MRU: 1492,
		DNS: true, Timeout: time.Hour, Resend: time.Hour})
	if err != nil {
		f.Fatal(err)
	}
	defer l.Close()
	from := netip.MustParseAddrPort("127.0.0.1:4789")
	f.Fuzz(func(t *testing.T, b []byte) {
		old := l.sessions[0]
		s := &session{l: l, dp: old.dp, idx: 0, mac: old.mac, stag: old.stag, ctag: old.ctag,
			user: old.user, password: old.password}
		l.sessions[0] = s
		l.window = make(chan struct{}, 1)
		l.window <- struct{}{}
		l.wg.Add(1)
		now := time.Now()
		s.begin(now)
		for len(b) >= 2 {
			n := int(binary.BigEndian.Uint16(b))
			b = b[2:]
			if n > len(b) {
				n = len(b)
			}
			l.dps[0].onVXLAN(b[:n], from, now)
			b = b[n:]
		}
		s.mu.Lock()
		ended := s.ph == phDone || s.ph == phFailed
		s.mu.Unlock()
		if got := len(l.window); (got == 0) != ended {
			t.Fatalf("phase %v with %d window tokens", s.ph, got)
		}
		if !ended {
			l.finish(s, false, "fuzz", 0) // release for the next input
		}
	})
}

// A CPE walked step by step: Acks must repeat our options (RFC 1661 5.2), the
// Nak'd address is taken, and an establishment must name what was negotiated.
func TestSessionSteps(t *testing.T) {
	l, err := New(Config{CP: netip.MustParseAddr("127.0.0.1"), CPVXLAN: 9, DPs: []DPSpec{{ID: 1,
		Addr: netip.MustParseAddr("127.0.0.1"), STag: Range{100, 100}, CTag: Range{1, 1}}},
		Sessions: 1, Window: 1, OuterTPID: tpid8021Q, Auth: "pap", UserFmt: "u%d", PassFmt: "p%d", MRU: 1492,
		Timeout: time.Hour, Resend: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.window = make(chan struct{}, 1)
	l.window <- struct{}{}
	l.wg.Add(1)
	ac, mac := [6]byte{0x02, 0xbb, 0, 0, 0, 1}, sessionMAC(0)
	from := netip.MustParseAddrPort("127.0.0.1:4789")
	in := func(et uint16, code uint8, sid uint16, p []byte) {
		l.dps[0].onVXLAN(vxlanEncap(nil, 1, appendFrame(nil, &frame{dst: mac, src: ac, outerTPID: tpid8021Q,
			stag: 100, ctag: 1, etherType: et, code: code, sessionID: sid, payload: p})), from, time.Now())
	}
	s := l.sessions[0]
	s.begin(time.Now())
	hu := []byte{0, 0, 0, 0}
	in(etherTypeDiscovery, codePADO, 0, appendTag(nil, tagHostUniq, []byte{0, 0, 0, 1})) // not ours
	if s.ph != phPADI || l.st.badHostUniq.Load() != 1 {
		t.Fatalf("foreign Host-Uniq taken: %v", s.ph)
	}
	in(etherTypeDiscovery, codePADO, 0, appendTag(nil, tagHostUniq, hu))
	in(etherTypeDiscovery, codePADS, 5, appendTag(nil, tagHostUniq, hu))
	if s.ph != phPPP || s.sid != 5 {
		t.Fatalf("after PADS: %v %d", s.ph, s.sid)
	}
	in(etherTypeSession, codeSession, 5, appendPPP(nil, protoLCP, cpConfReq, 1,
		appendOption(nil, lcpOptAuth, []byte{0xc0, 0x23})))
	wrong := appendOption(appendOption(nil, lcpOptMRU, []byte{5, 0xdc}), lcpOptMagic, []byte{0x5e, 0xed, 0, 1})
	in(etherTypeSession, codeSession, 5, appendPPP(nil, protoLCP, cpConfAck, 1, wrong))
	if s.ourLCPAcked || l.st.badAck.Load() != 1 {
		t.Fatal("an Ack with other options was taken")
	}
	in(etherTypeSession, codeSession, 5, appendPPP(nil, protoLCP, cpConfAck, 1, s.lcpReq))
	if !s.lcpOpen || !s.authSent || s.authProto != protoPAP {
		t.Fatalf("LCP not open / PAP not sent: %+v", s)
	}
	in(etherTypeSession, codeSession, 5, appendPPP(nil, protoPAP, papAuthAck, s.papID, []byte{0}))
	in(etherTypeSession, codeSession, 5, appendPPP(nil, protoIPCP, cpConfNak, s.ipcpID,
		appendOption(nil, ipcpOptAddr, []byte{100, 64, 0, 9})))
	if s.addr != [4]byte{100, 64, 0, 9} || s.ipcpID != 2 {
		t.Fatalf("Nak'd address not requested: %v %d", s.addr, s.ipcpID)
	}
	// An establishment for another PPPoE session id fails the session.
	e := &establishment{hasUp: true, mac: mac, stag: 100, ctag: 1, pppoeSID: 6, ueIP: netip.MustParseAddr("100.64.0.9")}
	s.onEstablished(l.dps[0], e, time.Now())
	if s.ph != phFailed || l.Failures()["establishment PPPoE session id in ipcp"] != 1 {
		t.Fatalf("%v %v", s.ph, l.Failures())
	}
}

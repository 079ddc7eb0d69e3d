package pfcpcp

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wmnsk/go-pfcp/ie"
)

// fakeDP is a UDP socket on loopback that the test drives by hand.
type fakeDP struct {
	t    testing.TB
	conn *net.UDPConn
	cp   netip.AddrPort
}

func newFakeDP(t testing.TB) *fakeDP {
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return &fakeDP{t: t, conn: c}
}

func (d *fakeDP) addr() netip.AddrPort { return d.conn.LocalAddr().(*net.UDPAddr).AddrPort() }

// recv returns the next datagram from the CP (fails after `within`).
func (d *fakeDP) recv(within time.Duration) ([]byte, *msg) {
	d.t.Helper()
	b, m, ok := d.tryRecv(within)
	if !ok {
		d.t.Fatalf("nothing from the CP within %v", within)
	}
	return b, m
}

func (d *fakeDP) tryRecv(within time.Duration) ([]byte, *msg, bool) {
	buf := make([]byte, 65536)
	_ = d.conn.SetReadDeadline(time.Now().Add(within))
	n, from, err := d.conn.ReadFromUDPAddrPort(buf)
	if err != nil {
		return nil, nil, false
	}
	d.cp = from
	b := buf[:n]
	m, _, err := decodeMessage(b)
	if err != nil {
		d.t.Fatalf("CP sent something undecodable: %x: %v", b, err)
	}
	return b, m, true
}

// recvType skips datagrams until one of type typ (heartbeats come any time).
func (d *fakeDP) recvType(typ uint8, within time.Duration) ([]byte, *msg) {
	d.t.Helper()
	end := time.Now().Add(within)
	for time.Now().Before(end) {
		b, m, ok := d.tryRecv(time.Until(end))
		if !ok {
			break
		}
		if m.h.typ == typ {
			return b, m
		}
		if m.h.typ == msgHeartbeatReq {
			d.answer(m, msgHeartbeatRsp, false, 0, ie.New(ieRecoveryTS, u32(dpRTS)))
		}
	}
	d.t.Fatalf("no message of type %d within %v", typ, within)
	return nil, nil
}

func (d *fakeDP) send(b []byte) {
	if _, err := d.conn.WriteToUDPAddrPort(b, d.cp); err != nil {
		d.t.Fatal(err)
	}
}

func (d *fakeDP) answer(req *msg, typ uint8, sess bool, seid uint64, ies ...*ie.IE) []byte {
	b := marshalMsg(typ, sess, seid, req.h.seq, ies)
	d.send(b)
	return b
}

var dpRTS = toNTP(time.Unix(1700000000, 0))

func (d *fakeDP) assocAnswer(req *msg, rts uint32) {
	d.answer(req, msgAssocSetupRsp, false, 0,
		ie.New(ieNodeID, []byte{0, 10, 200, 0, 11}), ie.New(ieCause, []byte{1}), ie.New(ieRecoveryTS, u32(rts)),
		ie.New(ieUPFeatures, []byte{0, 0, 0x10}), bbf(ieBBFUPFeatures, []byte{0x01, 0, 0, 0}))
}

func estAnswer(d *fakeDP, req *msg, cause uint8, up uint64) {
	cp := binary.BigEndian.Uint64(mustIE(d.t, req, ieFSEID).val[1:9])
	ies := []*ie.IE{ie.New(ieNodeID, []byte{0, 10, 200, 0, 11}), ie.New(ieCause, []byte{cause})}
	if cause == 1 {
		ies = append(ies, fseidIE(up, netip.MustParseAddr("10.200.0.11")))
	}
	d.answer(req, msgSessEstRsp, true, cp, ies...)
}

func mustIE(t testing.TB, m *msg, typ uint16) rawIE {
	i, ok := m.ies.first(typ)
	if !ok {
		t.Fatalf("message %d has no IE %d", m.h.typ, typ)
	}
	return i
}

// associate answers association, default session and heartbeat requests
// until the function reports the DP up.
func (d *fakeDP) associate(rec *recorder) { d.t.Helper(); d.associateRTS(rec, dpRTS) }

func (d *fakeDP) associateRTS(rec *recorder, rts uint32) {
	d.t.Helper()
	end := time.Now().Add(5 * time.Second)
	for time.Now().Before(end) {
		select {
		case e := <-rec.ch:
			if e.kind == "up" {
				if !e.rts.Equal(fromNTP(rts)) {
					d.t.Fatalf("PeerUp with %v, the DP said %v", e.rts, fromNTP(rts))
				}
				return
			}
			continue
		default:
		}
		_, m, ok := d.tryRecv(50 * time.Millisecond)
		if !ok {
			continue
		}
		switch m.h.typ {
		case msgAssocSetupReq:
			d.assocAnswer(m, rts)
		case msgSessEstReq:
			estAnswer(d, m, 1, 0x99)
		case msgHeartbeatReq:
			d.answer(m, msgHeartbeatRsp, false, 0, ie.New(ieRecoveryTS, u32(rts)))
		}
	}
	d.t.Fatal("the function did not report the DP up")
}

func fastConfig() Config {
	c := pipeConfig()
	c.T1 = 100 * time.Millisecond
	c.Heartbeat = time.Hour // the tests send heartbeats themselves
	c.URRPeriod = 0
	return c
}

func TestRetransmissionSameBytesAndDuplicateAnswers(t *testing.T) {
	dp := newFakeDP(t)
	rec := newRecorder()
	f, _ := startFunction(t, fastConfig(), []Peer{{Instance: 1, Addr: dp.addr()}}, rec)

	first, m := dp.recv(time.Second)
	if m.h.typ != msgAssocSetupReq {
		t.Fatalf("first message type %d", m.h.typ)
	}
	first = append([]byte(nil), first...)
	for i := 0; i < 2; i++ { // N1 = 3 transmissions in all
		again, _ := dp.recv(time.Second)
		if !bytes.Equal(again, first) {
			t.Fatalf("retransmission %d differs:\n%x\n%x", i, again, first)
		}
	}
	dp.assocAnswer(m, dpRTS)
	dp.assocAnswer(m, dpRTS) // a duplicate answer: ignored
	_, est := dp.recvType(msgSessEstReq, time.Second)
	if est.h.seid != 0 || binary.BigEndian.Uint64(mustIE(t, est, ieFSEID).val[1:9]) != DefaultSessionSEID(1) {
		t.Fatalf("default session request %+v", est.h)
	}
	estAnswer(dp, est, 1, 0x55)
	rec.wait(t, "up", time.Second)
	waitFor(t, func() bool { return f.Stats().Unexpected == 1 }, "the duplicate answer counted")
	if st := f.Stats(); st.Retransmissions != 2 || st.Requests["association_setup"] != 1 || st.Pending != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestAssociationRetriedAndPeerDownOnce(t *testing.T) {
	dp := newFakeDP(t)
	rec := newRecorder()
	f, _ := startFunction(t, fastConfig(), []Peer{{Instance: 1, Addr: dp.addr()}}, rec)
	var seqs []uint32
	for i := 0; i < 6; i++ { // two rounds of N1 transmissions
		_, m := dp.recv(time.Second)
		seqs = append(seqs, m.h.seq)
	}
	rec.wait(t, "down", time.Second)
	if seqs[0] != seqs[2] || seqs[3] == seqs[0] || seqs[3] != seqs[5] {
		t.Fatalf("sequence numbers %v", seqs)
	}
	time.Sleep(400 * time.Millisecond) // a third round fails too: no second PeerDown
	select {
	case e := <-rec.ch:
		t.Fatalf("unexpected event %+v", e)
	default:
	}
	if st := f.Stats(); st.Timeouts < 2 {
		t.Fatalf("stats %+v", st)
	}
	// it answers at last
	dp.associate(rec)
}

func TestOnlyConfiguredPeers(t *testing.T) {
	dp := newFakeDP(t)
	rec := newRecorder()
	f, _ := startFunction(t, fastConfig(), []Peer{{Instance: 1, Addr: dp.addr()}}, rec)
	dp.associate(rec)

	stranger := newFakeDP(t)
	stranger.cp = f.LocalAddr()
	stranger.send(marshalMsg(msgHeartbeatReq, false, 0, 7, []*ie.IE{ie.New(ieRecoveryTS, u32(1))}))
	if _, _, ok := stranger.tryRecv(300 * time.Millisecond); ok {
		t.Fatal("a stranger got an answer")
	}
	if st := f.Stats(); st.NotAllowed != 1 || st.Received["heartbeat"] != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestDPHeartbeatAndReports(t *testing.T) {
	dp := newFakeDP(t)
	rec := newRecorder()
	f, _ := startFunction(t, fastConfig(), []Peer{{Instance: 1, Addr: dp.addr()}}, rec)
	dp.associate(rec)

	// the DP's heartbeat: answered with our recovery time stamp and its sequence number
	dp.send(marshalMsg(msgHeartbeatReq, false, 0, 0x123456, []*ie.IE{ie.New(ieRecoveryTS, u32(dpRTS))}))
	b, _ := dp.recvType(msgHeartbeatRsp, time.Second)
	if want := unhex(t, "2002000c"+"123456"+"00"+"00600004"+hexU32(toNTP(time.Unix(1600000000, 0)))); !bytes.Equal(b, want) {
		t.Fatalf("heartbeat answer %x, want %x", b, want)
	}

	// a usage report for a session restored from a previous run
	f.Restore(1, 0x1001, 0xabcd00000001)
	usage := group(ieUsageRepReport,
		ie.New(ieURRID, u32(1)), ie.New(ieURSEQN, u32(4)), ie.New(ieUsageRepTrigger, []byte{1, 0, 0}),
		ie.New(ieStartTime, u32(dpRTS)), ie.New(ieEndTime, u32(dpRTS+60)),
		ie.New(ieVolumeMeas, unhex(t, "3f"+"0000000000001770"+"00000000000003e8"+"0000000000001388"+"000000000000003c"+"000000000000000a"+"0000000000000032")))
	rep := marshalMsg(msgSessReportReq, true, 0x1001, 77, []*ie.IE{ie.New(ieReportType, []byte{reportTypeUSAR}), usage})
	dp.send(rep)
	b, _ = dp.recvType(msgSessReportRsp, time.Second)
	want := unhex(t, "21390011"+"0000abcd00000001"+"00004d"+"00"+"0013000101")
	if !bytes.Equal(b, want) {
		t.Fatalf("report answer %x, want %x", b, want)
	}
	e := rec.wait(t, "usage", time.Second)
	if e.seid != 0x1001 || e.u.Seq != 4 || e.u.ULOctets != 1000 || e.u.DLPackets != 50 || e.u.End.Sub(e.u.Start) != time.Minute {
		t.Fatalf("usage %+v", e)
	}
	// the DP did not get our answer and sends the same report again: same answer, no second event
	dp.send(rep)
	b2, _ := dp.recvType(msgSessReportRsp, time.Second)
	if !bytes.Equal(b2, want) {
		t.Fatalf("answer to the retransmission %x", b2)
	}
	// LCP dead
	lcp := lcpConnIE(&LCPConnectivity{Interval: 30, Count: 3, TxMagic: 1, RxMagic: 2})
	dp.send(marshalMsg(msgSessReportReq, true, 0x1001, 78, []*ie.IE{ie.New(ieReportType, []byte{reportTypeUPIR}), lcp}))
	dp.recvType(msgSessReportRsp, time.Second)
	if e := rec.wait(t, "dead", time.Second); e.seid != 0x1001 || e.inst != 1 {
		t.Fatalf("dead %+v", e)
	}
	// an unknown CP SEID: cause 65, SEID 0
	dp.send(marshalMsg(msgSessReportReq, true, 0x4444, 79, []*ie.IE{ie.New(ieReportType, []byte{reportTypeUPIR}), lcp}))
	b, _ = dp.recvType(msgSessReportRsp, time.Second)
	if want := unhex(t, "21390011"+"0000000000000000"+"00004f"+"00"+"0013000141"); !bytes.Equal(b, want) {
		t.Fatalf("unknown SEID answer %x, want %x", b, want)
	}
	select {
	case e := <-rec.ch:
		t.Fatalf("unexpected event %+v", e)
	case <-time.After(100 * time.Millisecond):
	}
	if st := f.Stats(); st.Duplicates != 1 || st.UnknownSEID != 1 || st.Received["session_report"] != 4 || st.Received["heartbeat"] != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func hexU32(v uint32) string { return hex.EncodeToString(binary.BigEndian.AppendUint32(nil, v)) }

func TestRestartSeenInDPHeartbeat(t *testing.T) {
	dp := newFakeDP(t)
	rec := newRecorder()
	f, _ := startFunction(t, fastConfig(), []Peer{{Instance: 1, Addr: dp.addr()}}, rec)
	dp.associate(rec)
	f.Restore(1, 0x1001, 0x2)
	dp.send(marshalMsg(msgHeartbeatReq, false, 0, 5, []*ie.IE{ie.New(ieRecoveryTS, u32(dpRTS+100))}))
	rec.wait(t, "down", time.Second)
	dp.associateRTS(rec, dpRTS+100)
	// the sessions of the old DP are forgotten: their reports are unknown
	f.mu.Lock()
	_, known := f.sessions[sessKey{1, 0x1001}]
	f.mu.Unlock()
	if known || f.Peers()[0].Restarts != 1 {
		t.Fatalf("after restart: known %v, peers %+v", known, f.Peers())
	}
}

func TestEstablishCancelledAndTimeout(t *testing.T) {
	dp := newFakeDP(t)
	rec := newRecorder()
	f, _ := startFunction(t, fastConfig(), []Peer{{Instance: 1, Addr: dp.addr()}}, rec)
	dp.associate(rec)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := f.Establish(ctx, 1, sampleSession()); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v", err)
	}
	if st := f.Stats(); st.Pending != 0 {
		t.Fatalf("pending %d after cancel", st.Pending)
	}
	if _, err := f.Establish(context.Background(), 1, sampleSession()); !errors.Is(err, ErrTimeout) {
		t.Fatalf("err %v", err)
	}
	if _, err := f.Establish(context.Background(), 2, sampleSession()); !errors.Is(err, ErrUnknownPeer) {
		t.Fatalf("err %v", err)
	}
	bad := sampleSession()
	bad.CPSEID = DefaultSessionSEID(1)
	if _, err := f.Establish(context.Background(), 1, bad); !errors.Is(err, ErrInvalidSession) {
		t.Fatalf("err %v", err)
	}
}

// Many concurrent establishments: one reader, one timer loop, a map of
// pending sequence numbers.
func TestConcurrentEstablish(t *testing.T) {
	dp := newFakeDP(t)
	rec := newRecorder()
	cfg := fastConfig()
	cfg.T1, cfg.N1 = 2*time.Second, 4 // a loaded CI machine, the race detector
	f, _ := startFunction(t, cfg, []Peer{{Instance: 1, Addr: dp.addr()}}, rec)
	_ = dp.conn.SetReadBuffer(4 << 20)
	dp.associate(rec)
	const n = 4000
	var lossy atomic.Bool
	// the DP answers everything at once, UP SEID = CP SEID | 1<<40
	go func() {
		buf := make([]byte, 65536)
		seen := map[uint32]bool{}
		_ = dp.conn.SetReadDeadline(time.Time{}) // associate() left one
		for {
			k, _, err := dp.conn.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			m, _, err := decodeMessage(buf[:k])
			if err != nil || m.h.typ != msgSessEstReq {
				continue
			}
			i, _ := m.ies.first(ieFSEID)
			cp := binary.BigEndian.Uint64(i.val[1:9])
			if lossy.Load() && m.h.seq%10 == 0 && !seen[m.h.seq] { // some first answers lost: retransmission
				seen[m.h.seq] = true
				continue
			}
			dp.send(marshalMsg(msgSessEstRsp, true, cp, m.h.seq, []*ie.IE{ie.New(ieCause, []byte{1}),
				fseidIE(cp|1<<40, netip.MustParseAddr("10.200.0.11"))}))
		}
	}()
	run := func(base int) {
		start := time.Now()
		var wg sync.WaitGroup
		errs := make(chan error, n)
		sem := make(chan struct{}, 500) // calls in flight
		for i := 0; i < n; i++ {
			wg.Add(1)
			sem <- struct{}{}
			go func(i int) {
				defer wg.Done()
				defer func() { <-sem }()
				s := sampleSession()
				s.CPSEID = uint64(base + i + 1)
				up, err := f.Establish(context.Background(), 1, s)
				if err == nil && up != s.CPSEID|1<<40 {
					err = errors.New("wrong UP SEID")
				}
				if err != nil {
					errs <- err
				}
			}(i)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		el := time.Since(start)
		t.Logf("%d establishments in %v (%.0f/s), lossy DP %v, %d retransmissions in all", n, el, n/el.Seconds(), lossy.Load(), f.Stats().Retransmissions)
	}
	run(0)
	lossy.Store(true)
	run(n)
	if st := f.Stats(); st.Pending != 0 || st.Answers[1] < 2*n {
		t.Fatalf("stats %+v", st)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	good := fastConfig()
	peers := []Peer{{Instance: 1, Addr: netip.MustParseAddrPort("127.0.0.1:8805")}}
	for name, c := range map[string]func(*Config, *[]Peer){
		"no node id":      func(c *Config, _ *[]Peer) { c.NodeID = netip.Addr{} },
		"ipv6 node id":    func(c *Config, _ *[]Peer) { c.NodeID = netip.MustParseAddr("2001:db8::1") },
		"no redirect":     func(c *Config, _ *[]Peer) { c.Redirect = netip.AddrPort{} },
		"redirect port 0": func(c *Config, _ *[]Peer) { c.Redirect = netip.MustParseAddrPort("10.0.0.1:0") },
		"duplicate inst": func(_ *Config, p *[]Peer) {
			*p = append(*p, Peer{Instance: 1, Addr: netip.MustParseAddrPort("127.0.0.2:8805")})
		},
		"duplicate addr": func(_ *Config, p *[]Peer) {
			*p = append(*p, Peer{Instance: 2, Addr: netip.MustParseAddrPort("127.0.0.1:8805")})
		},
		"peer without port": func(_ *Config, p *[]Peer) {
			*p = []Peer{{Instance: 1, Addr: netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), 0)}}
		},
	} {
		cfg := good
		ps := append([]Peer(nil), peers...)
		c(&cfg, &ps)
		if f, err := New(cfg, ps, nopHandler{}); err == nil {
			_ = f.conn.Close()
			t.Errorf("%s: accepted", name)
		}
	}
	f, err := New(good, peers, nopHandler{})
	if err != nil {
		t.Fatal(err)
	}
	_ = f.conn.Close()
}

// A DP that answers Version Not Supported is retried once per heartbeat
// interval, not in a busy loop.
func TestVersionNotSupportedNoBusyLoop(t *testing.T) {
	dp := newFakeDP(t)
	rec := newRecorder()
	cfg := fastConfig()
	cfg.Heartbeat = 300 * time.Millisecond
	startFunction(t, cfg, []Peer{{Instance: 1, Addr: dp.addr()}}, rec)
	n := 0
	end := time.Now().Add(time.Second)
	for time.Now().Before(end) {
		_, m, ok := dp.tryRecv(time.Until(end))
		if !ok {
			break
		}
		n++
		b := []byte{0x20, msgVersionNotSupp, 0, 4, 0, 0, 0, 0}
		setSeq(b, m.h.seq)
		dp.send(b)
	}
	if n < 2 || n > 6 {
		t.Fatalf("%d association requests in 1 s with a 300 ms retry", n)
	}
	rec.wait(t, "down", time.Second)
}

// TestHeartbeatTimersDetectADeadDPFast: heartbeats have their own T1 and N1
// (the emulated failover pod runs 250 ms x 3): a DP that stops answering is
// down after HeartbeatN1 x HeartbeatT1, while a session request keeps the
// general T1 (here 1 s), so a DP busy with a burst of sessions has time.
func TestHeartbeatTimersDetectADeadDPFast(t *testing.T) {
	dp := newFakeDP(t)
	rec := newRecorder()
	cfg := fastConfig()
	cfg.T1 = time.Second
	cfg.Heartbeat = 200 * time.Millisecond
	cfg.HeartbeatT1 = 100 * time.Millisecond
	cfg.HeartbeatN1 = 3
	startFunction(t, cfg, []Peer{{Instance: 1, Addr: dp.addr()}}, rec)
	dp.associate(rec)

	// the DP dies: the next heartbeat is sent 3 times, 100 ms apart, then the DP is down
	_, hb := dp.recvType(msgHeartbeatReq, time.Second)
	start := time.Now()
	for i := 0; i < 2; i++ {
		_, again, ok := dp.tryRecv(time.Second)
		if !ok || again.h.typ != msgHeartbeatReq || again.h.seq != hb.h.seq {
			t.Fatalf("retransmission %d of the heartbeat: %+v", i, again)
		}
	}
	rec.wait(t, "down", time.Second)
	if took := time.Since(start); took < 250*time.Millisecond || took > 700*time.Millisecond {
		t.Errorf("down %v after the first heartbeat went unanswered, want about 300 ms", took)
	}
}

func TestHeartbeatTimersDefaultToT1AndN1(t *testing.T) {
	cfg := pipeConfig()
	cfg.T1, cfg.N1 = 2*time.Second, 4
	f, _ := startFunction(t, cfg, nil, newRecorder())
	if f.cfg.HeartbeatT1 != 2*time.Second || f.cfg.HeartbeatN1 != 4 {
		t.Errorf("heartbeat timers %v x %d, want T1 and N1", f.cfg.HeartbeatT1, f.cfg.HeartbeatN1)
	}
}

package pfcpcp

import (
	"encoding/hex"
	"net/netip"
	"os/exec"
	"strings"
	"testing"
	"time"
)

type nopHandler struct{}

func (nopHandler) PeerUp(uint32, time.Time, Features) {}
func (nopHandler) PeerDown(uint32)                    {}
func (nopHandler) Usage(uint32, uint64, Usage)        {}
func (nopHandler) LCPDead(uint32, uint64)             {}

// FuzzInput feeds hostile datagrams from a configured DP to the whole input
// path (decoding, dispatch, answers to pending requests of every kind, the
// DP's requests) and to every decoder the API uses: no panic, and every
// answer the function sends decodes.
func FuzzInput(f *testing.F) {
	seeds := []string{
		"2002000c0000010000600004e8fe6f80",
		"2006002b00000100003c0005000ac8000b001300010100600004e8fe6f80002b0003000010800000060de911000000",
		"2133002b000000000000100100000200003c0005000ac8000b00130001010039000d020000ff00000000010ac8000b",
		"21330021000000000000300300000200003c0005000ac8000b001300014900720003000001",
		"2138002e0000000000001001000002000027000108800c00190de9800600050de9001e038007000a0de91122334455667788",
		"2001000c0000050000600004e8000000",
		"2137001100000000000010010000040000130001010",
		"200b000400000300",
		dpReportWithDrops, dpReportWithDropPackets, // the Dropped Packets IE, both forms
	}
	if out, err := exec.Command(dpBuildPath("pfcp-encode-samples")).Output(); err == nil {
		for _, l := range strings.Split(string(out), "\n") {
			if name, hx, ok := strings.Cut(l, " "); ok && strings.HasPrefix(name, "up_") {
				seeds = append(seeds, hx)
			}
		}
	}
	for _, s := range seeds {
		if b, err := hex.DecodeString(s); err == nil {
			f.Add(b)
		}
	}
	peerAddr := netip.MustParseAddrPort("127.0.0.1:9") // discard: what we send goes nowhere
	fn, err := New(Config{
		Local:    netip.MustParseAddrPort("127.0.0.1:0"),
		NodeID:   netip.MustParseAddr("10.200.0.1"),
		Redirect: netip.MustParseAddrPort("10.200.0.1:4789"),
	}, []Peer{{Instance: 1, Addr: peerAddr}}, nopHandler{})
	if err != nil {
		f.Fatal(err)
	}
	go fn.ev.run(nopHandler{})
	f.Cleanup(func() { fn.ev.stop(); _ = fn.conn.Close() })
	p := fn.byInst[1]
	now := time.Now()
	f.Fuzz(func(t *testing.T, data []byte) {
		// every decoder
		if m, _, err := decodeMessage(data); err == nil {
			_, _ = m.cause()
			_, _ = m.rts()
			_ = m.features()
			_, _ = m.fseid()
			_ = m.causeError(73)
			for _, typ := range []uint16{ieUsageRepMod, ieUsageRepDel, ieUsageRepReport} {
				_, _ = m.usage(typ)
			}
			_, _ = m.report()
		}
		// the dispatch path with one pending request of each kind at sequence numbers 1..5
		fn.mu.Lock()
		fn.pending = map[uint32]*request{}
		fn.timers = nil
		fn.seq = 0
		p.state, p.hasRTS, p.rts, p.busy = stUp, true, 1, false
		gen := p.gen
		fn.sessions[sessKey{1, 0x1001}] = 2
		cbs := []struct {
			typ uint8
			cb  func(*msg, error)
		}{
			{msgAssocSetupReq, func(m *msg, err error) {
				fn.mu.Lock()
				fn.assocAnswerLocked(p, gen, m, err, now)
				fn.mu.Unlock()
			}},
			{msgSessEstReq, func(m *msg, err error) { fn.onDefaultAnswer(p, gen, m, err) }},
			{msgHeartbeatReq, func(m *msg, err error) { fn.onHeartbeatAnswer(p, gen, m, err) }},
			{msgSessModReq, func(m *msg, err error) {
				if m != nil {
					_, _ = m.usage(ieUsageRepMod)
				}
			}},
			{msgSessDelReq, func(m *msg, err error) {
				if m != nil {
					_, _ = m.usage(ieUsageRepDel)
				}
			}},
		}
		for _, c := range cbs {
			b := fn.encHeartbeat(msgHeartbeatReq, 0)
			if _, err := fn.enqueueLocked(p, c.typ, b, now, c.cb); err != nil {
				t.Fatal(err)
			}
		}
		fn.mu.Unlock()
		fn.input(data, peerAddr, now)
	})
}

func dpBuildPath(name string) string { return dpBuild + "/tests/" + name }

// The answers the function builds for any report decode.
func TestReportAnswerDecodes(t *testing.T) {
	for _, c := range []uint8{1, 65, 69} {
		b := encReportRsp(0x10203, 0xffffffffffffffff, c)
		m, n, err := decodeMessage(b)
		if err != nil || n != len(b) || m.h.seq != 0x10203 || m.h.seid != 0xffffffffffffffff {
			t.Fatalf("%x: %v", b, err)
		}
		if got, _ := m.cause(); got != c {
			t.Fatalf("cause %d", got)
		}
	}
}

package pfcpcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"testing"
	"time"
)

// Hand-built per the IPoE contract of issue 19 (docs/cp/ipoe.md, the DP's
// docs/dp/pfcp.md): the sample subscriber as an IPoE session (no PPPoE
// session id, no LCP, MTU 1500), CP SEID 0x1001, sequence number 3.
const wantIPoEEstablishHex = "" +
	"21320172" + "0000000000000000" + "000003" + "00" +
	"003c0005" + "000ac80001" + // Node ID 10.200.0.1
	"0039000d" + "02" + "0000000000001001" + "0ac80001" + // F-SEID
	"0001006f" + // Create PDR (upstream)
	/**/ "00380002" + "0001" + "001d0004" + "00000064" +
	/**/ "0002003e" + // PDI
	/*  */ "00140001" + "00" + // Source Interface Access
	/*  */ "0084001f" + "00850007" + "01021100000007" + "00880002" + "0800" + "00860003" + "040007" + "00870003" + "040064" +
	/*  */ "80010009" + "0de9" + "61636365737331" + // logical port "access1"
	/*  */ "005d0005" + "02" + "64500007" + // UE IP Address V4, S/D 0: the source
	/**/ "80030003" + "0de9" + "01" + // BBF OHR 1: Ethernet (IPoE)
	/**/ "006c0004" + "00000001" + "00510004" + "00000001" + "006d0004" + "00000001" +
	"00010038" + // Create PDR (downstream): as PPPoE
	/**/ "00380002" + "0002" + "001d0004" + "00000064" +
	/**/ "0002000e" + "00140001" + "01" + "005d0005" + "06" + "64500007" +
	/**/ "006c0004" + "00000002" + "00510004" + "00000001" + "006d0004" + "00000001" +
	"00030016" + "006c0004" + "00000001" + "002c0001" + "02" + "00040005" + "002a0001" + "01" +
	"0003002b" + "006c0004" + "00000002" + "002c0001" + "02" +
	/**/ "0004001a" + "002a0001" + "00" + "80020008" + "0de9" + "020000000000" + "00290005" + "04" + "676f6c64" +
	"0006001b" + "00510004" + "00000001" + "003e0001" + "03" + "00250002" + "0100" + "00400004" + "0000003c" +
	"00070029" + "006d0004" + "00000001" + "00190001" + "00" +
	/**/ "001a000a" + "0000002710" + "000000c350" + "001b000a" + "00000007d0" + "0000000000" +
	"80080004" + "0de9" + "05dc"

// The default session with the dhcp class (PDR 4, precedence 30), for a DP
// that announced IPoE.
const wantDefaultIPoEHex = "" +
	"21320132" + "0000000000000000" + "000004" + "00" +
	"003c0005" + "000ac80001" + "0039000d" + "02" + "0000000000000001" + "0ac80001" +
	"00010029" + "00380002" + "0001" + "001d0004" + "0000000a" +
	/**/ "0002000f" + "00140001" + "00" + "00840006" + "00880002" + "8863" + "006c0004" + "00000001" +
	"00010030" + "00380002" + "0002" + "001d0004" + "00000014" +
	/**/ "00020016" + "00140001" + "00" + "00840006" + "00880002" + "8864" + "80050003" + "0de9" + "04" + "006c0004" + "00000001" +
	"00010029" + "00380002" + "0003" + "001d0004" + "0000fde8" +
	/**/ "0002000f" + "00140001" + "00" + "00840006" + "00880002" + "8864" + "006c0004" + "00000001" +
	"00010054" + "00380002" + "0004" + "001d0004" + "0000001e" +
	/**/ "0002003a" + "00140001" + "00" + "00840006" + "00880002" + "0800" +
	/*  */ "00170027" + "01" + "00" + "0023" + "7065726d6974206f75742031372066726f6d20616e7920363820746f20616e79203637" +
	/**/ "006c0004" + "00000001" +
	"00030022" + "006c0004" + "00000001" + "002c0001" + "02" +
	/**/ "00040011" + "002a0001" + "03" + "00540008" + "0400" + "0ac80001" + "12b5"

func sampleIPoE() *Session {
	s := sampleSession()
	s.PPPoESessionID, s.LCP, s.MTU, s.IPoE = 0, nil, 1500, true
	return s
}

func TestEncodeIPoEEstablishment(t *testing.T) {
	got := encoder(60*time.Second).encEstablish(0, sampleIPoE())
	setSeq(got, 3)
	if want := unhex(t, wantIPoEEstablishHex); !bytes.Equal(got, want) {
		t.Fatalf("IPoE establishment:\n got %x\nwant %x", got, want)
	}
	// the PPPoE establishment is unchanged by the IPoE code
	got = encoder(60*time.Second).encEstablish(0, sampleSession())
	setSeq(got, 3)
	if want := unhex(t, wantEstablishHex); !bytes.Equal(got, want) {
		t.Fatalf("PPPoE establishment changed:\n got %x\nwant %x", got, want)
	}
}

func TestEncodeDefaultSessionIPoE(t *testing.T) {
	got := encoder(0).encDefault(0, 1, true, false)
	setSeq(got, 4)
	if want := unhex(t, wantDefaultIPoEHex); !bytes.Equal(got, want) {
		t.Fatalf("default session with dhcp:\n got %x\nwant %x", got, want)
	}
	if len(defaultClasses) != 3 {
		t.Fatalf("the dhcp class leaked into the PPPoE-only classes: %d", len(defaultClasses))
	}
}

func TestValidIPoESession(t *testing.T) {
	if err := validSession(sampleIPoE()); err != nil {
		t.Fatalf("IPoE sample: %v", err)
	}
	for name, mod := range map[string]func(s *Session){
		"PPPoE session id": func(s *Session) { s.PPPoESessionID = 7 },
		"no family":        func(s *Session) { s.IPv4 = netip.Addr{} },
		"LCP":              func(s *Session) { s.LCP = &LCPConnectivity{Interval: 1, Count: 1} },
	} {
		s := sampleIPoE()
		mod(s)
		if err := validSession(s); !errors.Is(err, ErrInvalidSession) {
			t.Errorf("%s: %v", name, err)
		}
	}
	s := sampleSession()
	s.PPPoESessionID = 0
	if err := validSession(s); !errors.Is(err, ErrInvalidSession) {
		t.Errorf("PPPoE without session id: %v", err)
	}
}

func TestFeaturesIPoE(t *testing.T) {
	for _, c := range []struct {
		octet           byte
		pppoe, ipoe, lo bool
	}{{0x13, true, true, true}, {0x11, true, false, true}, {0x02, false, true, false}} {
		m := &msg{ies: ies{{typ: ieBBFUPFeatures, eid: enterpriseBBF, val: []byte{c.octet, 0, 0, 0}}}}
		f := m.features()
		if f.PPPoE != c.pppoe || f.IPoE != c.ipoe || f.LCPOffload != c.lo {
			t.Errorf("%#x: %+v", c.octet, f)
		}
	}
}

func TestEstablishIPoERefusedWithoutFeature(t *testing.T) {
	f := &Function{byInst: map[uint32]*peer{1: {Peer: Peer{Instance: 1}, state: stUp}}}
	if _, err := f.Establish(context.Background(), 1, sampleIPoE()); !errors.Is(err, ErrIPoENotSupported) {
		t.Fatalf("IPoE to a DP without the IPoE feature: %v", err)
	}
}

// The IPoE session against the DP's PFCP user-plane function (pfcp-up-pipe:
// the real pfcp_up.c with a fake data path). A DP that does not announce
// IPoE gets the PPPoE default session only and no IPoE session (refused
// here, before a byte is sent); one that does (issue 19's DP) gets the dhcp
// class and installs the session with sid 0. BNGPOD_DP_BUILD points the
// test at a DP branch's build before the branches merge.
func TestIPoEAgainstDPUserPlaneFunction(t *testing.T) {
	dp := newPipeDP(t)
	rec := newRecorder()
	f, _ := startFunction(t, pipeConfig(), []Peer{{Instance: 11, Addr: dp.addr()}}, rec)
	ctx := context.Background()
	e := rec.wait(t, "up", 5*time.Second)
	st := dp.state()
	if !e.feat.IPoE {
		if st.Redirect.Classes != 7 {
			t.Fatalf("default session of a DP without IPoE: classes %#x", st.Redirect.Classes)
		}
		if _, err := f.Establish(ctx, 11, sampleIPoE()); !errors.Is(err, ErrIPoENotSupported) {
			t.Fatalf("IPoE to a DP without IPoE: %v", err)
		}
		if st := dp.state(); st.Installs != 0 {
			t.Fatalf("installed %+v", st)
		}
		t.Skip("this DP does not announce IPoE (before issue 19's DP work): the refusal is checked, the installation is not")
	}
	// a DP with dual stack over IPoE takes the IPv6 dhcp PDR too (0x10);
	// one without refused it and got the default session without it
	if want := map[bool]int{false: 15, true: 31}[e.feat.IPoE6]; st.Redirect.Classes != want {
		t.Fatalf("default session of an IPoE DP: classes %#x, want %#x (pppoe-discovery|ppp-control|unknown|dhcp[|dhcp6])",
			st.Redirect.Classes, want)
	}
	s := sampleIPoE()
	up, err := f.Establish(ctx, 11, s)
	if err != nil {
		t.Fatal(err)
	}
	st = dp.state()
	sub := st.Sub
	if st.Installs != 1 || sub.SID != 0 || sub.IPv4 != "100.80.0.7" || sub.MAC != "02:11:00:00:00:07" || sub.STag != 100 ||
		sub.CTag != 7 || sub.MTU != 1500 || sub.QoS != "gold" || sub.LCPOffload || sub.MbrDL != 50_000_000 {
		t.Fatalf("data path got %+v", st)
	}
	if sub.ARPPingIv != 0 || sub.ARPPingCount != 0 {
		t.Fatalf("ARP ping without the IE: %+v", sub)
	}
	// (a second session of the same line and MAC is the data path's refusal, 73:
	// the pipe's fake data path takes it; tests/dp has the real one)
	// CoA and the end as for PPPoE
	if _, err := f.Modify(ctx, 11, up, s.CPSEID, &Mod{DownMBR: ptr[uint64](80_000_000), UpMBR: ptr[uint64](10_000_000)}); err != nil {
		t.Fatal(err)
	}
	if st := dp.state(); st.Sub.MbrDL != 80_000_000 {
		t.Fatalf("after CoA %+v", st.Sub)
	}
	if _, err := f.Delete(ctx, 11, up); err != nil {
		t.Fatal(err)
	}
	if st := dp.state(); st.Live != 0 {
		t.Fatalf("after deletion %+v", st)
	}

	// with ARP ping: the DP gets the IE; its dead report (UPIR + the ARP ping
	// IE, no LCP IE) reaches the handler as LCPDead
	s = sampleIPoE()
	s.CPSEID = 0x2002
	s.ARPPing = &ARPPing{Interval: 30, Count: 3}
	if up, err = f.Establish(ctx, 11, s); err != nil {
		t.Fatal(err)
	}
	st = dp.state()
	if st.Sub.ARPPingIv != 30 || st.Sub.ARPPingCount != 3 {
		t.Fatalf("ARP ping at the DP: %+v", st.Sub)
	}
	dp.do(fmt.Sprintf("dead %d %d", st.LastHandle, dp.now()))
	if e := rec.wait(t, "dead", 3*time.Second); e.seid != 0x2002 || e.inst != 11 {
		t.Fatalf("ARP ping dead event %+v", e)
	}
	if _, err := f.Delete(ctx, 11, up); err != nil {
		t.Fatal(err)
	}
}

func TestARPPingIE(t *testing.T) {
	s := sampleIPoE()
	s.ARPPing = &ARPPing{Interval: 0x0102, Count: 3}
	if err := validSession(s); err != nil {
		t.Fatal(err)
	}
	b := encoder(60*time.Second).encEstablish(0, s)
	// the sample establishment + the IE at the end
	want := append(unhex(t, wantIPoEEstablishHex), unhex(t, "80020005"+"7ed9"+"010203")...)
	setSeq(b, 3)
	want[2], want[3] = byte((len(want)-4)>>8), byte(len(want)-4)
	if !bytes.Equal(b, want) {
		t.Fatalf("establishment with ARP ping:\n got %x\nwant %x", b, want)
	}
	for name, a := range map[string]ARPPing{"interval 0": {0, 3}, "count 0": {30, 0}} {
		s.ARPPing = &a
		if err := validSession(s); !errors.Is(err, ErrInvalidSession) {
			t.Errorf("%s: %v", name, err)
		}
	}
	p := sampleSession()
	p.ARPPing = &ARPPing{Interval: 30, Count: 3}
	if err := validSession(p); !errors.Is(err, ErrInvalidSession) {
		t.Errorf("ARP ping on PPPoE: %v", err)
	}
	// the dead report: UPIR + the IE of enterprise bngpod; the same type of another enterprise is not it
	for _, c := range []struct {
		eid  uint16
		dead bool
	}{{enterpriseBngpod, true}, {enterpriseBBF, false}, {1, false}} {
		m := &msg{ies: ies{{typ: ieReportType, val: []byte{reportTypeUPIR}},
			{typ: ieBngpodARPPing, eid: c.eid, val: []byte{0, 30, 3}}}}
		if r, err := m.report(); err != nil || r.lcpDead != c.dead {
			t.Errorf("enterprise %d: %+v %v", c.eid, r, err)
		}
	}
}

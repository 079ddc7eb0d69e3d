package pfcpcp

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/prereq"
)

// The C build of the DP, relative to this package (make test builds it first).
// BNGPOD_DP_BUILD names another build (e.g. a DP branch's, to check the
// CP's messages against it before the branches merge).
var dpBuild = func() string {
	if d := os.Getenv("BNGPOD_DP_BUILD"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "server-dp", "build")
}()

func needBuild(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(dpBuild, "tests", name)
	if _, err := os.Stat(p); err != nil {
		prereq.Skip(t, p+" missing: build server-dp first (ninja -C server-dp/build)")
	}
	return p
}

// Hand-built per docs/dp/pfcp.md section 6, the sample subscriber of
// server-dp/tests/pfcp_build.h (CP SEID 0x1001, sequence number 3).
const wantEstablishHex = "" +
	"21320197" + "0000000000000000" + "000003" + "00" +
	"003c0005" + "000ac80001" + // Node ID 10.200.0.1
	"0039000d" + "02" + "0000000000001001" + "0ac80001" + // F-SEID
	"00010077" + // Create PDR (upstream)
	/**/ "00380002" + "0001" + "001d0004" + "00000064" +
	/**/ "00020046" + // PDI
	/*  */ "00140001" + "00" +
	/*  */ "0084001f" + "00850007" + "01021100000007" + "00880002" + "8864" + "00860003" + "040007" + "00870003" + "040064" +
	/*  */ "80010009" + "0de9" + "61636365737331" + // logical port "access1"
	/*  */ "80040004" + "0de9" + "0107" + // PPPoE session id
	/*  */ "80050005" + "0de9" + "010021" + // PPP protocol: specific, IPv4
	/**/ "80030003" + "0de9" + "03" + // BBF OHR
	/**/ "006c0004" + "00000001" + "00510004" + "00000001" + "006d0004" + "00000001" +
	"00010038" + // Create PDR (downstream)
	/**/ "00380002" + "0002" + "001d0004" + "00000064" +
	/**/ "0002000e" + "00140001" + "01" + "005d0005" + "06" + "64500007" +
	/**/ "006c0004" + "00000002" + "00510004" + "00000001" + "006d0004" + "00000001" +
	"00030016" + "006c0004" + "00000001" + "002c0001" + "02" + "00040005" + "002a0001" + "01" +
	"0003002b" + "006c0004" + "00000002" + "002c0001" + "02" +
	/**/ "0004001a" + "002a0001" + "00" + "80020008" + "0de9" + "020000000107" + "00290005" + "04" + "676f6c64" +
	"0006001b" + "00510004" + "00000001" + "003e0001" + "03" + "00250002" + "0100" + "00400004" + "0000003c" +
	"00070029" + "006d0004" + "00000001" + "00190001" + "00" +
	/**/ "001a000a" + "0000002710" + "000000c350" + "001b000a" + "00000007d0" + "0000000000" +
	"80080004" + "0de9" + "05d4" +
	"800c0019" + "0de9" + "80060005" + "0de9" + "001e03" + "8007000a" + "0de9" + "1122334455667788"

// The default session (section 7) for 10.200.0.1:4789, CP SEID 1, sequence number 4.
const wantDefaultHex = "" +
	"213200da" + "0000000000000000" + "000004" + "00" +
	"003c0005" + "000ac80001" + "0039000d" + "02" + "0000000000000001" + "0ac80001" +
	"00010029" + "00380002" + "0001" + "001d0004" + "0000000a" +
	/**/ "0002000f" + "00140001" + "00" + "00840006" + "00880002" + "8863" + "006c0004" + "00000001" +
	"00010030" + "00380002" + "0002" + "001d0004" + "00000014" +
	/**/ "00020016" + "00140001" + "00" + "00840006" + "00880002" + "8864" + "80050003" + "0de9" + "04" + "006c0004" + "00000001" +
	"00010029" + "00380002" + "0003" + "001d0004" + "0000fde8" +
	/**/ "0002000f" + "00140001" + "00" + "00840006" + "00880002" + "8864" + "006c0004" + "00000001" +
	"00030022" + "006c0004" + "00000001" + "002c0001" + "02" +
	/**/ "00040011" + "002a0001" + "03" + "00540008" + "0400" + "0ac80001" + "12b5"

func sampleSession() *Session {
	return &Session{
		CPSEID: 0x1001, LogicalPort: "access1", STag: 100, CTag: 7,
		MAC: [6]byte{0x02, 0x11, 0, 0, 0, 7}, PPPoESessionID: 0x0107,
		IPv4: netip.MustParseAddr("100.80.0.7"), QosProfile: "gold",
		UpMBR: 10_000_000, DownMBR: 50_000_000, UpGBR: 2_000_000, MTU: 1492,
		LCP: &LCPConnectivity{Interval: 30, Count: 3, TxMagic: 0x11223344, RxMagic: 0x55667788},
	}
}

// encoder is a Function without a socket, for the byte layouts.
func encoder(urr time.Duration) *Function {
	return &Function{cfg: Config{
		NodeID:       netip.MustParseAddr("10.200.0.1"),
		Redirect:     netip.MustParseAddrPort("10.200.0.1:4789"),
		RecoveryTime: fromNTP(0xe8000000),
		URRPeriod:    urr,
	}}
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestEncodeEstablishment(t *testing.T) {
	got := encoder(60*time.Second).encEstablish(0, sampleSession())
	setSeq(got, 3)
	if want := unhex(t, wantEstablishHex); !bytes.Equal(got, want) {
		t.Fatalf("establishment:\n got %x\nwant %x", got, want)
	}
}

func TestEncodeEstablishmentMinimal(t *testing.T) {
	// no rates, no URR, no MTU, no LCP, no logical port, no profile: no QER/URR IEs
	s := &Session{CPSEID: 7, STag: 1, CTag: 4094, MAC: [6]byte{2, 0, 0, 0, 0, 1}, PPPoESessionID: 1,
		IPv4: netip.MustParseAddr("10.0.0.1")}
	b := encoder(0).encEstablish(0, s)
	m, _, err := decodeMessage(b)
	if err != nil {
		t.Fatal(err)
	}
	var types []uint16
	for _, i := range m.ies {
		types = append(types, i.typ)
	}
	if want := []uint16{ieNodeID, ieFSEID, ieCreatePDR, ieCreatePDR, ieCreateFAR, ieCreateFAR}; !equalU16(types, want) {
		t.Fatalf("top-level IEs %v, want %v", types, want)
	}
	// C-TAG 4094 = VID bits 11-8 (0xf) in the high nibble of octet 6
	if !bytes.Contains(b, unhex(t, "00860003"+"04f0fe")) {
		t.Fatalf("C-TAG 4094 not encoded as 04 f0 fe: %x", b)
	}
}

func equalU16(a, b []uint16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestEncodeDefaultSession(t *testing.T) {
	got := encoder(0).encDefault(0, 1, false, false)
	setSeq(got, 4)
	if want := unhex(t, wantDefaultHex); !bytes.Equal(got, want) {
		t.Fatalf("default session:\n got %x\nwant %x", got, want)
	}
	// the real CP SEID of instance 3
	got = encoder(0).encDefault(0, DefaultSessionSEID(3), false, false)
	if !bytes.Equal(got[30:38], unhex(t, "8000000000000003")) {
		t.Fatalf("default CP SEID: %x", got[30:38])
	}
}

func TestEncodeNodeAndOtherMessages(t *testing.T) {
	f := encoder(0)
	cases := []struct {
		name string
		got  []byte
		seq  uint32
		want string
	}{
		{"assoc setup", f.encAssocSetup(0), 1, "2005001a" + "000001" + "00" + "003c0005000ac80001" + "00600004e8000000" + "0059000100"},
		{"heartbeat", f.encHeartbeat(msgHeartbeatReq, 0), 2, "2001000c" + "000002" + "00" + "00600004e8000000"},
		{"heartbeat rsp", f.encHeartbeat(msgHeartbeatRsp, 0), 9, "2002000c" + "000009" + "00" + "00600004e8000000"},
		{"delete", encDelete(0, 0xabcd00000001), 7, "2136000c" + "0000abcd00000001" + "000007" + "00"},
		{"lcp off", f.encModify(0, 0xabcd00000001, &Mod{LCPOff: true}, false), 6, "21340012" + "0000abcd00000001" + "000006" + "00" + "800c0002" + "0de9"},
		{"report rsp", encReportRsp(0, 0x77, 1), 0x123456, "21390011" + "0000000000000077" + "123456" + "00" + "0013000101"},
		{"coa", f.encModify(0, 0xabcd00000001, &Mod{QosProfile: ptr("silver"), UpMBR: ptr[uint64](20_000_000), DownMBR: ptr[uint64](100_000_000), QueryUsage: true}, false), 5,
			"21340054" + "0000abcd00000001" + "000005" + "00" +
				"000a0017" + "006c0004" + "00000002" + "000b000b" + "00290007" + "06" + "73696c766572" +
				"000e0024" + "006d0004" + "00000001" + "001a000a" + "0000004e20" + "00000186a0" + "001b000a" + "0000000000" + "0000000000" +
				"00310001" + "04"},
		{"coa new qer", f.encModify(0, 0x10, &Mod{UpMBR: ptr[uint64](1000)}, true), 8,
			"2134005d" + "0000000000000010" + "000008" + "00" +
				"0009000e" + "00380002" + "0001" + "006d0004" + "00000001" +
				"0009000e" + "00380002" + "0002" + "006d0004" + "00000001" +
				"00070029" + "006d0004" + "00000001" + "00190001" + "00" + "001a000a" + "0000000001" + "0000000000" + "001b000a" + "0000000000" + "0000000000"},
		{"lcp on", f.encModify(0, 0x10, &Mod{LCP: &LCPConnectivity{Interval: 10, Count: 5, TxMagic: 1, RxMagic: 2}}, false), 9,
			"21340029" + "0000000000000010" + "000009" + "00" +
				"800c0019" + "0de9" + "80060005" + "0de9" + "000a05" + "8007000a" + "0de9" + "00000001" + "00000002"},
	}
	for _, c := range cases {
		setSeq(c.got, c.seq)
		if want := unhex(t, c.want); !bytes.Equal(c.got, want) {
			t.Errorf("%s:\n got %x\nwant %x", c.name, c.got, want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestKbpsRoundsUp(t *testing.T) {
	for _, c := range [][2]uint64{{0, 0}, {1, 1}, {999, 1}, {1000, 1}, {1001, 2}, {10_000_000, 10000}} {
		if got := kbps(c[0]); got != c[1] {
			t.Errorf("kbps(%d) = %d, want %d", c[0], got, c[1])
		}
	}
}

// samples runs pfcp-encode-samples: name -> message.
func samples(t *testing.T) map[string][]byte {
	bin := needBuild(t, "pfcp-encode-samples")
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]byte{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		name, hx, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		if _, dup := got[name]; !dup {
			got[name] = unhex(t, hx)
		}
	}
	return got
}

// The C encoder of the DP's tests and ours agree byte for byte, apart from
// the sequence number and the CP SEID.
func TestEncodeEqualsDPSamples(t *testing.T) {
	s := samples(t)
	f := encoder(60 * time.Second)

	sess := sampleSession()
	sess.CPSEID = 0x4242
	got := f.encEstablish(0, sess)
	want := append([]byte(nil), s["cp_session_establishment_req"]...)
	if len(want) == 0 {
		t.Fatal("no cp_session_establishment_req sample")
	}
	copy(want[12:15], got[12:15])
	copy(want[30:38], got[30:38])
	if !bytes.Equal(got, want) {
		t.Fatalf("establishment differs from the C sample:\n got %x\nwant %x", got, want)
	}

	got = f.encDefault(0, DefaultSessionSEID(1), false, false)
	want = append([]byte(nil), s["cp_default_session_req"]...)
	copy(want[12:15], got[12:15])
	copy(want[30:38], got[30:38])
	if !bytes.Equal(got, want) {
		t.Fatalf("default session differs from the C sample:\n got %x\nwant %x", got, want)
	}

	for name, got := range map[string][]byte{
		"cp_assoc_setup_req":      f.encAssocSetup(0),
		"cp_heartbeat_req":        f.encHeartbeat(msgHeartbeatReq, 0),
		"cp_lcp_off_req":          f.encModify(0, 0x0000abcd00000001, &Mod{LCPOff: true}, false),
		"cp_session_deletion_req": encDelete(0, 0x0000abcd00000001),
	} {
		want := s[name]
		if len(want) < 8 {
			t.Fatalf("no sample %s", name)
		}
		off := 4
		if want[0]&1 != 0 {
			off = 12
		}
		copy(got[off:off+3], want[off:off+3])
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %x\nwant %x", name, got, want)
		}
	}
}

// What the DP sends decodes as intended.
func TestDecodeDPSamples(t *testing.T) {
	s := samples(t)
	m, _, err := decodeMessage(s["up_assoc_setup_rsp"])
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := m.cause(); c != 1 {
		t.Fatalf("cause %d", c)
	}
	if rts, ok := m.rts(); !ok || fromNTP(rts) != time.Unix(1700000000, 0).UTC() {
		t.Fatalf("rts %d %v", rts, ok)
	}
	if f := m.features(); f != (Features{LCPOffload: true, PPPoE: true, MNOP: true}) {
		t.Fatalf("features %+v", f)
	}

	m, _, _ = decodeMessage(s["up_session_establishment_rsp"])
	if up, err := m.fseid(); err != nil || up != 0x0000ff0000000001 {
		t.Fatalf("UP SEID %#x %v", up, err)
	}
	m, _, _ = decodeMessage(s["up_session_establishment_rsp_67"])
	if e := m.causeError(67); e.OffendingIE != 135 {
		t.Fatalf("%+v", e)
	}
	m, _, _ = decodeMessage(s["up_session_establishment_rsp_73"])
	if e := m.causeError(73); !e.HasFailedRule || e.FailedRuleType != 0 || e.FailedRule != 1 {
		t.Fatalf("%+v", e)
	}

	m, _, _ = decodeMessage(s["up_session_report_req_usage"])
	r, err := m.report()
	if err != nil || !r.usar || r.lcpDead || len(r.usage) != 1 {
		t.Fatalf("%+v %v", r, err)
	}
	u := r.usage[0]
	want := Usage{URRID: 1, Seq: 0, Trigger: TriggerPERIO,
		Start: time.Unix(1700000000, 0).UTC(), End: time.Unix(1700000060, 0).UTC(),
		ULOctets: 1000, DLOctets: 5000, ULPackets: 10, DLPackets: 50}
	if u != want {
		t.Fatalf("usage %+v\nwant %+v", u, want)
	}
	m, _, _ = decodeMessage(s["up_session_report_req_lcp_dead"])
	if r, err := m.report(); err != nil || !r.lcpDead || r.usar {
		t.Fatalf("%+v %v", r, err)
	}
	m, _, _ = decodeMessage(s["up_session_deletion_rsp"])
	us, err := m.usage(ieUsageRepDel)
	if err != nil || len(us) != 1 || us[0].Trigger != TriggerTERMR || us[0].Seq != 2 {
		t.Fatalf("%+v %v", us, err)
	}
	m, _, _ = decodeMessage(s["up_session_modification_rsp"])
	us, err = m.usage(ieUsageRepMod)
	if err != nil || len(us) != 1 || us[0].Trigger != TriggerIMMER {
		t.Fatalf("%+v %v", us, err)
	}
}

func TestDecodeRejects(t *testing.T) {
	for name, hx := range map[string]string{
		"short":          "2001",
		"version 2":      "4001000c0000020000600004e8000000",
		"length past":    "2001000d0000020000600004e8000000",
		"length short":   "20010002000002000060",
		"IE past":        "2001000c0000020000600005e8000000",
		"IE stub":        "2001000a000002000060000400",
		"vendor no eid":  "2001000800000200" + "80000000",
		"seid too short": "21010008" + "0000000000000000",
	} {
		if _, _, err := decodeMessage(unhex(t, hx)); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

// The DP's periodic usage report with bngpod's Dropped Packets IE (4 up, 7
// down; 400 and 10,500 octets), byte for byte server-dp/tests/pfcp_vectors.h's
// v_report_req.
const dpReportWithDrops = "2138009f00000000000010010000010000270001020050008a" +
	"00510004000000010068000400000000003f0003010000004b0004e8fe6fe4004c0004e8fe7020" +
	"004200313f000000000000177000000000000003e80000000000001388000000000000003c" +
	"000000000000000a0000000000000032004300040000003c" +
	"800300227ed900000000000000040000000000000007" + "00000000000001900000000000002904"

// The same report as a bng-dp before dropped octets sent it (v_report_req_pkts):
// the IE's 16-octet form, packets only.
const dpReportWithDropPackets = "2138008f00000000000010010000010000270001020050007a" +
	"00510004000000010068000400000000003f0003010000004b0004e8fe6fe4004c0004e8fe7020" +
	"004200313f000000000000177000000000000003e80000000000001388000000000000003c" +
	"000000000000000a0000000000000032004300040000003c" +
	"800300127ed900000000000000040000000000000007"

func reportUsage(t *testing.T, raw []byte) Usage {
	t.Helper()
	m, _, err := decodeMessage(raw)
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.report()
	if err != nil || len(r.usage) != 1 {
		t.Fatalf("%+v %v", r, err)
	}
	return r.usage[0]
}

func TestDecodeDroppedPackets(t *testing.T) {
	raw := unhex(t, dpReportWithDrops)
	if u := reportUsage(t, raw); u.ULDropped != 4 || u.DLDropped != 7 || u.ULDroppedOctets != 400 ||
		u.DLDroppedOctets != 10500 || u.ULOctets != 1000 || u.DLPackets != 50 {
		t.Fatalf("usage %+v", u)
	}
	// the 16-octet form: packets, no octets
	if u := reportUsage(t, unhex(t, dpReportWithDropPackets)); u.ULDropped != 4 || u.DLDropped != 7 ||
		u.ULDroppedOctets != 0 || u.DLDroppedOctets != 0 || u.ULOctets != 1000 {
		t.Fatalf("16-octet Dropped Packets IE: usage %+v", u)
	}
	// shorter by one octet, and by 8 (24 octets: neither form): skipped, the report stands
	for _, cut := range []int{1, 8} {
		short := append([]byte(nil), raw[:len(raw)-cut]...)
		short[3] -= byte(cut)
		short[24] -= byte(cut)
		short[len(raw)-35] -= byte(cut) // the IE's length 34 -> 34-cut
		if u := reportUsage(t, short); u.ULDropped != 0 || u.DLDropped != 0 || u.ULDroppedOctets != 0 ||
			u.DLDroppedOctets != 0 || u.ULOctets != 1000 {
			t.Fatalf("Dropped Packets IE %d octets short: usage %+v", cut, u)
		}
	}
}

// The contracted downstream rate rides in the QER's GBR DL (kbit/s), on the
// establishment and on a modification's rates; without one it is 0.
func TestEncodeGBRDownlink(t *testing.T) {
	s := sampleSession()
	gbr := func(ul, dl string) string { return "001b000a" + ul + dl } // GBR IE, 5-octet UL and DL
	est := hex.EncodeToString(encoder(0).encEstablish(0, s))
	if !strings.Contains(est, gbr("00000007d0", "0000000000")) {
		t.Errorf("no GBR DL: want GBR UL 2000, DL 0 kbit/s in %s", est)
	}
	s.DownGBR = 30_000_000
	est = hex.EncodeToString(encoder(0).encEstablish(0, s))
	if !strings.Contains(est, gbr("00000007d0", "0000007530")) {
		t.Errorf("GBR DL 30 Mbit/s: want DL 30000 kbit/s in %s", est)
	}
	down := uint64(10_000_000)
	for _, create := range []bool{false, true} {
		mod := hex.EncodeToString(encoder(0).encModify(0, 1, &Mod{DownGBR: &down}, create))
		if !strings.Contains(mod, gbr("0000000000", "0000002710")) {
			t.Errorf("modification (create QER %v): want GBR DL 10000 kbit/s in %s", create, mod)
		}
	}
}

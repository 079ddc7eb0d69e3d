package pfcpcp

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"net/netip"
	"sort"
	"strings"
	"testing"
	"time"
)

func dualSession() *Session {
	s := sampleSession()
	s.IPv6 = &IPv6Rules{WAN: netip.MustParsePrefix("2001:db8:100:7::/64"), PD: netip.MustParsePrefix("2001:db8:200:700::/56")}
	s.RA = &RAOffload{Interval: 200, RouterLifetime: 1800, Flags: 0x40, MTU: 1492,
		Prefix: s.IPv6.WAN, Valid: 86400, Preferred: 14400, IID: 0x00bbfffe00000001,
		DNS: []netip.Addr{netip.MustParseAddr("2001:db8::53")}}
	return s
}

// pdrSummary describes each Create/Update PDR of a message: id, its PPP
// protocol or UE IP Address (hex), its URR ids and QER.
func pdrSummary(t *testing.T, b []byte, typ uint16) map[uint16]string {
	t.Helper()
	m, _, err := decodeMessage(b)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[uint16]string)
	for _, p := range m.ies.all(typ) {
		g, err := m.group(p)
		if err != nil {
			t.Fatal(err)
		}
		id, _ := g.first(iePDRID)
		var parts []string
		if pdi, ok := g.first(iePDI); ok {
			pg, _ := m.group(pdi)
			if pp, ok := pg.first(ieBBFPPPProtocol); ok {
				parts = append(parts, "ppp="+hex.EncodeToString(pp.val))
			}
			if ue, ok := pg.first(ieUEIPAddress); ok {
				parts = append(parts, "ue="+hex.EncodeToString(ue.val))
			}
		}
		var urrs []string
		for _, u := range g.all(ieURRID) {
			urrs = append(urrs, fmt.Sprint(u.val[3]))
		}
		parts = append(parts, "urr="+strings.Join(urrs, ","))
		if _, ok := g.first(ieQERID); ok {
			parts = append(parts, "qer")
		}
		if far, ok := g.first(ieFARID); ok {
			parts = append(parts, fmt.Sprint("far=", far.val[3]))
		}
		out[uint16(id.val[0])<<8|uint16(id.val[1])] = strings.Join(parts, " ")
	}
	return out
}

func urrIDs(t *testing.T, b []byte) []int {
	m, _, _ := decodeMessage(b)
	var ids []int
	for _, u := range m.ies.all(ieCreateURR) {
		g, _ := m.group(u)
		id, _ := g.first(ieURRID)
		ids = append(ids, int(id.val[3]))
	}
	sort.Ints(ids)
	return ids
}

func raIE(t *testing.T, b []byte) ([]byte, bool) {
	m, _, _ := decodeMessage(b)
	for _, i := range m.ies {
		if i.typ == ieBngpodRAOffload && i.eid == enterpriseBngpod {
			return i.val, true
		}
	}
	return nil, false
}

func TestEncodeDualStackEstablishment(t *testing.T) {
	b := encoder(60*time.Second).encEstablish(0, dualSession())
	got := pdrSummary(t, b, ieCreatePDR)
	want := map[uint16]string{
		1: "ppp=010021 urr=1,2 qer far=1",
		2: "ue=0664500007 urr=1,2 qer far=2",
		3: "ppp=010057 urr=1,3 qer far=1",
		4: "ue=4520010db801000007000000000000000040 urr=1,3 qer far=2",
		5: "ue=4520010db802000700000000000000000038 urr=1,3 qer far=2",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("PDRs\n got %v\nwant %v", got, want)
	}
	if ids := urrIDs(t, b); fmt.Sprint(ids) != "[1 2 3]" {
		t.Fatalf("URRs %v", ids)
	}
	ra, ok := raIE(t, b)
	wantRA := "00c8" + "0708" + "40" + "05d4" + "20010db801000007" + "00015180" + "00003840" +
		"00bbfffe00000001" + "01" + "20010db8000000000000000000000053"
	if !ok || hex.EncodeToString(ra) != wantRA {
		t.Fatalf("RA offload IE\n got %x\nwant %s", ra, wantRA)
	}
	// the same PDI as PDR 1, but PPP protocol 0x0057
	if n := bytes.Count(b, []byte{0x80, 0x04, 0x00, 0x04, 0x0d, 0xe9, 0x01, 0x07}); n != 2 {
		t.Fatalf("PPPoE session id in %d PDRs, want 2 (PDRs 1 and 3)", n)
	}
}

func TestEncodeIPv4OnlyUnchanged(t *testing.T) {
	// an IPv4-only session is exactly today's message (docs/dp/pfcp.md)
	got := encoder(60*time.Second).encEstablish(0, sampleSession())
	setSeq(got, 3)
	if want := unhex(t, wantEstablishHex); !bytes.Equal(got, want) {
		t.Fatalf("IPv4-only establishment changed:\n got %x\nwant %x", got, want)
	}
}

func TestEncodeIPv6Only(t *testing.T) {
	s := dualSession()
	s.IPv4 = netip.Addr{}
	s.IPv6.PD = netip.Prefix{}
	s.UpMBR, s.DownMBR, s.UpGBR = 0, 0, 0
	if err := validSession(s); err != nil {
		t.Fatal(err)
	}
	b := encoder(60*time.Second).encEstablish(0, s)
	got := pdrSummary(t, b, ieCreatePDR)
	want := map[uint16]string{
		3: "ppp=010057 urr=1,3 far=1",
		4: "ue=4520010db801000007000000000000000040 urr=1,3 far=2",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("PDRs\n got %v\nwant %v", got, want)
	}
	if ids := urrIDs(t, b); fmt.Sprint(ids) != "[1 3]" {
		t.Fatalf("URRs %v", ids)
	}
	s.IPv6 = nil
	if err := validSession(s); err == nil {
		t.Fatal("a session with no family accepted")
	}
	s.IPv6 = &IPv6Rules{WAN: netip.MustParsePrefix("2001:db8::/56")}
	if err := validSession(s); err == nil {
		t.Fatal("a WAN prefix other than /64 accepted")
	}
}

func TestEncodeAddIPv6Modification(t *testing.T) {
	s := dualSession()
	b := encoder(60*time.Second).encModify(0, 0x99, &Mod{AddIPv6: s, RA: s.RA}, false)
	upd := pdrSummary(t, b, ieUpdatePDR)
	if fmt.Sprint(upd) != fmt.Sprint(map[uint16]string{1: "urr=1,2", 2: "urr=1,2"}) {
		t.Fatalf("Update PDRs %v", upd)
	}
	cr := pdrSummary(t, b, ieCreatePDR)
	if len(cr) != 3 || cr[3] != "ppp=010057 urr=1,3 qer far=1" || !strings.HasPrefix(cr[5], "ue=4520010db8020007") {
		t.Fatalf("Create PDRs %v", cr)
	}
	if ids := urrIDs(t, b); fmt.Sprint(ids) != "[2 3]" {
		t.Fatalf("URRs %v", ids)
	}
	if _, ok := raIE(t, b); !ok {
		t.Fatal("no RA offload IE")
	}
	// RA off: the IE with the enterprise id only
	b = encoder(0).encModify(0, 0x99, &Mod{RAOff: true}, false)
	if v, ok := raIE(t, b); !ok || len(v) != 0 {
		t.Fatalf("RA off: %x %v", v, ok)
	}
	// a QER created later is named by every PDR of the session
	rate := uint64(1000)
	b = encoder(0).encModify(0, 0x99, &Mod{UpMBR: &rate, IPv6PDRs: true, HasPD: true}, true)
	if upd := pdrSummary(t, b, ieUpdatePDR); len(upd) != 5 {
		t.Fatalf("Update PDRs for the QER %v", upd)
	}
}

package v6ctl

import (
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/prereq"
)

// tsharkFields writes IPv6 packets as a raw-IPv6 pcap (link type 101 takes
// IPv6 too) and returns tshark's fields per packet, name -> values.
func tsharkFields(t *testing.T, pkts ...[]byte) []map[string][]string {
	t.Helper()
	if _, err := exec.LookPath("tshark"); err != nil {
		prereq.Skip(t, "tshark is not installed")
	}
	var out bytes.Buffer
	hdr := make([]byte, 24)
	binary.LittleEndian.PutUint32(hdr[0:], 0xa1b2c3d4)
	binary.LittleEndian.PutUint16(hdr[4:], 2)
	binary.LittleEndian.PutUint16(hdr[6:], 4)
	binary.LittleEndian.PutUint32(hdr[16:], 65535)
	binary.LittleEndian.PutUint32(hdr[20:], 101)
	out.Write(hdr)
	for i, p := range pkts {
		rec := make([]byte, 16)
		binary.LittleEndian.PutUint32(rec[0:], uint32(i))
		binary.LittleEndian.PutUint32(rec[8:], uint32(len(p)))
		binary.LittleEndian.PutUint32(rec[12:], uint32(len(p)))
		out.Write(rec)
		out.Write(p)
	}
	path := filepath.Join(t.TempDir(), "v6.pcap")
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	x, err := exec.Command("tshark", "-r", path, "-T", "pdml", "-o", "udp.check_checksum:TRUE").Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	var res []map[string][]string
	dec := xml.NewDecoder(bytes.NewReader(x))
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if se.Name.Local == "packet" {
			res = append(res, map[string][]string{})
			continue
		}
		if se.Name.Local != "field" || len(res) == 0 {
			continue
		}
		var name, show string
		for _, a := range se.Attr {
			switch a.Name.Local {
			case "name":
				name = a.Value
			case "show":
				show = a.Value
			}
		}
		res[len(res)-1][name] = append(res[len(res)-1][name], show)
	}
	if len(res) != len(pkts) {
		t.Fatalf("tshark saw %d packets of %d", len(res), len(pkts))
	}
	return res
}

// The RA and the DHCPv6 Advertise/Reply the CP sends, as tshark decodes
// them: nothing malformed, checksums right, the options with our values.
func TestTsharkDecodesRAAndDHCPv6(t *testing.T) {
	s := newSession()
	s.IANA = netip6("2001:db8:100:7::1")
	ra := RA(s)
	adv := srv.Handle(s, dhcp(msgSolicit, opt(optClientID, duidC), iaPD(7), iaNA(9), oroDNS), time.Now()).Reply
	rep := srv.Handle(s, dhcp(msgSolicit, opt(optClientID, duidC), opt(optRapidCommit, nil), iaPD(7)), time.Now()).Reply
	f := tsharkFields(t, ra, adv, rep)
	for i, p := range f {
		for name, v := range p {
			if strings.HasPrefix(name, "_ws.malformed") || (strings.HasPrefix(name, "_ws.expert") && strings.Contains(strings.Join(v, " "), "rror")) {
				t.Fatalf("packet %d: %s %v", i, name, v)
			}
		}
	}
	want := func(i int, name, val string) {
		t.Helper()
		for _, v := range f[i][name] {
			if v == val {
				return
			}
		}
		t.Errorf("packet %d: %s = %v, want %s", i, name, f[i][name], val)
	}
	want(0, "icmpv6.type", "134")
	want(0, "icmpv6.checksum.status", "1")
	want(0, "icmpv6.nd.ra.flag.m", "1")
	want(0, "icmpv6.nd.ra.flag.o", "1")
	want(0, "icmpv6.nd.ra.router_lifetime", "1800")
	want(0, "icmpv6.opt.prefix", "2001:db8:100:7::")
	want(0, "icmpv6.opt.mtu", "1492")
	want(0, "icmpv6.opt.rdnss", "2001:db8::53")
	want(1, "dhcpv6.msgtype", "2")
	want(1, "dhcpv6.iaprefix.pref_addr", "2001:db8:200:700::")
	want(1, "dhcpv6.iaprefix.pref_len", "56")
	want(1, "dhcpv6.iaaddr.ip", "2001:db8:100:7::1")
	want(1, "dhcpv6.dns_server", "2001:db8::53")
	want(1, "udp.checksum.status", "1")
	want(2, "dhcpv6.msgtype", "7")
	want(2, "dhcpv6.option.type", "14")
}

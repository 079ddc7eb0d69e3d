package pfcpcp

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/prereq"
)

// writePcap writes PFCP messages as UDP 8805 datagrams in raw-IPv4 frames
// (link type 101), the CP at 10.200.0.1, the DP at 10.200.0.11.
func writePcap(path string, msgs []logged) error {
	var out bytes.Buffer
	hdr := make([]byte, 24)
	binary.LittleEndian.PutUint32(hdr[0:], 0xa1b2c3d4)
	binary.LittleEndian.PutUint16(hdr[4:], 2)
	binary.LittleEndian.PutUint16(hdr[6:], 4)
	binary.LittleEndian.PutUint32(hdr[16:], 65535)
	binary.LittleEndian.PutUint32(hdr[20:], 101)
	out.Write(hdr)
	cp, dp := []byte{10, 200, 0, 1}, []byte{10, 200, 0, 11}
	for i, m := range msgs {
		src, dst := dp, cp
		if m.fromCP {
			src, dst = cp, dp
		}
		udp := binary.BigEndian.AppendUint16(nil, 8805)
		udp = binary.BigEndian.AppendUint16(udp, 8805)
		udp = binary.BigEndian.AppendUint16(udp, uint16(8+len(m.b)))
		udp = append(udp, 0, 0)
		udp = append(udp, m.b...)
		ip := []byte{0x45, 0}
		ip = binary.BigEndian.AppendUint16(ip, uint16(20+len(udp)))
		ip = binary.BigEndian.AppendUint16(ip, uint16(i))
		ip = append(ip, 0, 0, 64, 17, 0, 0)
		ip = append(ip, src...)
		ip = append(ip, dst...)
		ip = append(ip, udp...)
		rec := make([]byte, 16)
		binary.LittleEndian.PutUint32(rec[0:], uint32(i))
		binary.LittleEndian.PutUint32(rec[8:], uint32(len(ip)))
		binary.LittleEndian.PutUint32(rec[12:], uint32(len(ip)))
		out.Write(rec)
		out.Write(ip)
	}
	return os.WriteFile(path, out.Bytes(), 0o644)
}

type field struct{ name, show string }

// dissect returns tshark's PFCP fields (and malformed/expert markers) per packet.
func dissect(t *testing.T, msgs []logged) [][]field {
	t.Helper()
	pcap := filepath.Join(t.TempDir(), "pfcp.pcap")
	if err := writePcap(pcap, msgs); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("tshark", "-r", pcap, "-T", "pdml", "-o", "pfcp.port_pfcp:8805").Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	var pkts [][]field
	dec := xml.NewDecoder(bytes.NewReader(out))
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "packet":
			pkts = append(pkts, nil)
		case "field":
			var name, show string
			for _, a := range se.Attr {
				switch a.Name.Local {
				case "name":
					name = a.Value
				case "show":
					show = a.Value
				}
			}
			if len(pkts) > 0 && (strings.HasPrefix(name, "pfcp") || strings.HasPrefix(name, "_ws.malformed") || strings.HasPrefix(name, "_ws.expert")) {
				pkts[len(pkts)-1] = append(pkts[len(pkts)-1], field{name, show})
			}
		}
	}
	if len(pkts) != len(msgs) {
		t.Fatalf("tshark saw %d packets, wrote %d", len(pkts), len(msgs))
	}
	return pkts
}

func vals(fs []field, name string) []string {
	var out []string
	for _, f := range fs {
		if f.name == name {
			out = append(out, f.show)
		}
	}
	return out
}

// What the function sends, dissected by tshark: nothing malformed, and the
// BBF IEs decode with the intended values (as tests/dp/test_pfcp_wire.py checks).
func TestTsharkDissection(t *testing.T) {
	if _, err := exec.LookPath("tshark"); err != nil {
		prereq.Skip(t, "tshark is not installed")
	}
	dp := newPipeDP(t)
	rec := newRecorder()
	f, _ := startFunction(t, pipeConfig(), []Peer{{Instance: 11, Addr: dp.addr()}}, rec)
	rec.wait(t, "up", 5*time.Second)
	ctx := context.Background()
	s := sampleSession()
	up, err := f.Establish(ctx, 11, s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Modify(ctx, 11, up, s.CPSEID, &Mod{QosProfile: ptr("silver"), UpMBR: ptr[uint64](20_000_000), DownMBR: ptr[uint64](100_000_000), QueryUsage: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Modify(ctx, 11, up, s.CPSEID, &Mod{LCPOff: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Delete(ctx, 11, up); err != nil {
		t.Fatal(err)
	}
	log := dp.datagrams()
	pkts := dissect(t, log)

	var est, def, mod, lcpOff []field
	for i, fs := range pkts {
		for _, x := range fs {
			if strings.HasPrefix(x.name, "_ws.malformed") || strings.HasPrefix(x.name, "_ws.expert") {
				t.Errorf("packet %d (%x): %s %s", i, log[i].b, x.name, x.show)
			}
		}
		if !log[i].fromCP {
			continue
		}
		switch log[i].b[1] {
		case msgSessEstReq:
			if strings.Contains(strings.Join(vals(fs, "pfcp.dst_interface"), ","), "3") {
				def = fs
			} else {
				est = fs
			}
		case msgSessModReq:
			if mod == nil {
				mod = fs
			} else {
				lcpOff = fs
			}
		}
	}
	if est == nil || def == nil || mod == nil || lcpOff == nil {
		t.Fatal("missing messages in the capture")
	}
	one := func(fs []field, name, want string) {
		t.Helper()
		if got := vals(fs, name); len(got) != 1 || got[0] != want {
			t.Errorf("%s = %q, want [%q]", name, got, want)
		}
	}
	one(est, "pfcp.msg_type", "50")
	one(est, "pfcp.bbf.logical_port_id_str", "access1")
	one(est, "pfcp.bbf.pppoe_session_id", "0x0107")
	one(est, "pfcp.bbf.protocol_flags.specific", "1")
	one(est, "pfcp.bbf.protocol_flags.data", "0")
	one(est, "pfcp.bbf.protocol_flags.control", "0")
	one(est, "pfcp.bbf.protocol_flags.protocol", "0x0021")
	one(est, "pfcp.bbf.out_hdr_desc", "3")
	one(est, "pfcp.bbf.outer_hdr_desc", "512")
	one(est, "pfcp.bbf.outer_hdr_creation.tunnel_id", "0x0000")
	one(est, "pfcp.bbf.outer_hdr_creation.session_id", "0x0107")
	one(est, "pfcp.s_tag.svid", "0x0064")
	one(est, "pfcp.c_tag.cvid", "0x0007")
	one(est, "pfcp.mac_address.sour", "02:11:00:00:00:07")
	one(est, "pfcp.ethertype", "0x8864")
	one(est, "pfcp.ue_ip_addr_ipv4", "100.80.0.7")
	one(est, "pfcp.forwarding_policy_id", "67:6f:6c:64")
	one(est, "pfcp.ul_mbr", "10000")
	one(est, "pfcp.dl_mbr", "50000")
	one(est, "pfcp.ul_gbr", "2000")
	one(est, "pfcp.measurement_period", "60")
	one(est, "pfcp.bbf.mtu", "1492")
	one(est, "pfcp.bbf.verification_timer.interval", "30")
	one(est, "pfcp.bbf.verification_timer.count", "3")
	one(est, "pfcp.bbf.lcp_magic_number.tx", "0x11223344")
	one(est, "pfcp.bbf.lcp_magic_number.rx", "0x55667788")
	if got := vals(est, "pfcp.source_interface"); fmt.Sprint(got) != "[0 1]" {
		t.Errorf("source interfaces %v", got)
	}
	if got := vals(est, "pfcp.dst_interface"); fmt.Sprint(got) != "[1 0]" {
		t.Errorf("destination interfaces %v", got)
	}
	if got := vals(est, "pfcp.enterprise_id"); len(got) != 9 || got[0] != "3561" {
		t.Errorf("enterprise ids %v", got)
	}

	// The DP (pfcp-up-pipe, like bng-dp) announces IPoE and takes IPoE IPv6: the default
	// session has the dhcp class for DHCPv4 and for DHCPv6 (PDR 5).
	if got := vals(def, "pfcp.ethertype"); fmt.Sprint(got) != "[0x8863 0x8864 0x8864 0x0800 0x86dd]" {
		t.Errorf("default session ethertypes %v", got)
	}
	if got := vals(def, "pfcp.flow_desc"); fmt.Sprint(got) != "[permit out 17 from any 68 to any 67 permit out 17 from any 546 to any 547]" {
		t.Errorf("default session flow descriptions %v", got)
	}
	one(def, "pfcp.bbf.protocol_flags.control", "1")
	one(def, "pfcp.dst_interface", "3")
	one(def, "pfcp.outer_hdr_creation.ipv4", "10.200.0.1")
	one(def, "pfcp.outer_hdr_creation.port", "4789")
	one(def, "pfcp.f_seid.ipv4", "10.200.0.1")

	one(mod, "pfcp.forwarding_policy_id", "73:69:6c:76:65:72")
	one(mod, "pfcp.ul_mbr", "20000")
	one(mod, "pfcp.dl_mbr", "100000")
	one(lcpOff, "pfcp.enterprise_ie", "32780")
}

package pfcpcp

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/prereq"
)

// The dual-stack establishment and the IPv6 modification as tshark
// dissects them: nothing malformed, the IPv6 UE IP Addresses with their
// prefix lengths, PPP protocol 0x0057, URRs 1-3.
func TestTsharkDissectionDualStack(t *testing.T) {
	if _, err := exec.LookPath("tshark"); err != nil {
		prereq.Skip(t, "tshark is not installed")
	}
	f := encoder(60 * time.Second)
	s := dualSession()
	est := f.encEstablish(1, s)
	mod := f.encModify(2, 0x99, &Mod{AddIPv6: s, RA: s.RA}, false)
	pkts := dissect(t, []logged{{b: est, fromCP: true}, {b: mod, fromCP: true}})
	for i, p := range pkts {
		for _, fl := range p {
			if strings.HasPrefix(fl.name, "_ws.malformed") || (strings.HasPrefix(fl.name, "_ws.expert") && strings.Contains(fl.show, "rror")) {
				t.Fatalf("packet %d: tshark: %s %q", i, fl.name, fl.show)
			}
		}
	}
	for i, p := range pkts {
		v6 := strings.Join(vals(p, "pfcp.ue_ip_addr_ipv6"), " ")
		if !strings.Contains(v6, "2001:db8:100:7::") || !strings.Contains(v6, "2001:db8:200:700::") {
			t.Fatalf("packet %d: UE IPv6 addresses %q\n%v", i, v6, p)
		}
		if pl := strings.Join(vals(p, "pfcp.ue_ip_addr_ipv6_prefix_length"), " "); pl != "64 56" {
			t.Fatalf("packet %d: IPv6 prefix lengths %q", i, pl)
		}
	}
	if p := strings.Join(vals(pkts[0], "pfcp.bbf.protocol_flags.protocol"), " "); p != "0x0021 0x0057" {
		t.Fatalf("PPP protocols %q", p)
	}
	urrs := strings.Join(vals(pkts[0], "pfcp.urr_id"), " ")
	for _, u := range []string{"1", "2", "3"} {
		if !strings.Contains(" "+urrs+" ", " "+u+" ") {
			t.Fatalf("URR ids %q lack %s", urrs, u)
		}
	}
}

package pfcpcp

import (
	"context"
	"net/netip"
	"os"
	"testing"
	"time"
)

func init() {
	// Another build of server-dp (e.g. a branch's) for the tests against the
	// real user-plane function.
	if v := os.Getenv("BNGPOD_DP_BUILD"); v != "" {
		dpBuild = v
	}
}

// Dual-stack sessions against the DP's real PFCP user-plane function: the
// IPv6 PDRs, the per-family URRs and the RA offload IE are accepted as
// docs/dp/pfcp.md says, IPv6-only too, and IPv6 added by a modification.
func TestDualStackAgainstDPUserPlaneFunction(t *testing.T) {
	dp := newPipeDP(t)
	rec := newRecorder()
	f, _ := startFunction(t, pipeConfig(), []Peer{{Instance: 11, Addr: dp.addr()}}, rec)
	ctx := context.Background()
	rec.wait(t, "up", 5*time.Second)

	// IPv6 only: a DP from before dual stack refuses it with 76
	v6only := dualSession()
	v6only.CPSEID, v6only.CTag, v6only.PPPoESessionID = 0x2001, 9, 0x109
	v6only.IPv4 = netip.Addr{}
	v6only.IPv6 = &IPv6Rules{WAN: netip.MustParsePrefix("2001:db8:100:9::/64"), PD: netip.MustParsePrefix("2001:db8:200:900::/56")}
	v6only.RA.Prefix = v6only.IPv6.WAN
	var ce *CauseError
	if _, err := f.Establish(ctx, 11, v6only); asCause(err, &ce) && ce.Cause == 76 {
		t.Skip("the DP build predates dual stack (IPv6-only refused with 76): set BNGPOD_DP_BUILD to a dual-stack build")
	} else if err != nil {
		t.Fatalf("IPv6-only session: %v", err)
	}
	if st := dp.state(); st.Sub.IPv4 != "0.0.0.0" || st.Installs != 1 {
		t.Fatalf("IPv6-only in the data path: %+v", st)
	}

	// dual stack at once: PDRs 1-5, URRs 1-3, QER, RA offload
	ds := dualSession()
	if _, err := f.Establish(ctx, 11, ds); err != nil {
		t.Fatalf("dual-stack session: %v", err)
	}
	if st := dp.state(); st.Sub.IPv4 != "100.80.0.7" || st.Installs != 2 {
		t.Fatalf("dual stack in the data path: %+v", st)
	}

	// IPv4 first, IPv6 added by a modification (as bng-cp does when IPv6CP
	// opens after the establishment), then the RA offload off and on
	v4 := sampleSession()
	v4.CPSEID, v4.CTag, v4.PPPoESessionID, v4.IPv4 = 0x3001, 10, 0x10a, netip.MustParseAddr("100.80.0.10")
	up, err := f.Establish(ctx, 11, v4)
	if err != nil {
		t.Fatal(err)
	}
	add := *v4
	add.IPv6 = &IPv6Rules{WAN: netip.MustParsePrefix("2001:db8:100:a::/64"), PD: netip.MustParsePrefix("2001:db8:200:a00::/56")}
	ra := *ds.RA
	ra.Prefix = add.IPv6.WAN
	if _, err := f.Modify(ctx, 11, up, v4.CPSEID, &Mod{AddIPv6: &add, RA: &ra}); err != nil {
		t.Fatalf("adding IPv6: %v", err)
	}
	if _, err := f.Modify(ctx, 11, up, v4.CPSEID, &Mod{RAOff: true}); err != nil {
		t.Fatalf("RA offload off: %v", err)
	}
	if _, err := f.Modify(ctx, 11, up, v4.CPSEID, &Mod{RA: &ra}); err != nil {
		t.Fatalf("RA offload on again: %v", err)
	}
	// an RA offload naming no /64 of the session is refused (69, the IE)
	bad := ra
	bad.Prefix = netip.MustParsePrefix("2001:db8:100:b::/64")
	if _, err := f.Modify(ctx, 11, up, v4.CPSEID, &Mod{RA: &bad}); !asCause(err, &ce) || ce.Cause != 69 {
		t.Fatalf("RA offload for a foreign /64: %v", err)
	}
	// a CoA with rates on a dual-stack session without a QER: the QER is
	// created and named by all five PDRs
	norate := dualSession()
	norate.CPSEID, norate.CTag, norate.PPPoESessionID, norate.IPv4 = 0x5001, 12, 0x10c, netip.MustParseAddr("100.80.0.12")
	norate.IPv6 = &IPv6Rules{WAN: netip.MustParsePrefix("2001:db8:100:d::/64"), PD: netip.MustParsePrefix("2001:db8:200:d00::/56")}
	norate.RA.Prefix = norate.IPv6.WAN
	norate.UpMBR, norate.UpGBR, norate.DownMBR = 0, 0, 0
	up5, err := f.Establish(ctx, 11, norate)
	if err != nil {
		t.Fatal(err)
	}
	rate := uint64(30_000_000)
	if _, err := f.Modify(ctx, 11, up5, norate.CPSEID, &Mod{UpMBR: &rate, DownMBR: &rate, UpGBR: &rate,
		IPv6PDRs: true, HasPD: true}); err != nil {
		t.Fatalf("CoA rates on a dual-stack session without a QER: %v", err)
	}
	if st := dp.state(); st.Sub.MbrDL != 30_000_000 {
		t.Fatalf("rates not in the data path: %+v", st.Sub)
	}
	if st := dp.state(); st.Modifies < 3 {
		t.Fatalf("modifications did not reach the data path: %+v", st)
	}
}

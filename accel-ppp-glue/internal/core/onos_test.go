package core

import (
	"context"
	"encoding/binary"
	"net/netip"
	"testing"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pfcpcp"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/ppp"
)

// A session without an address is reported without "ipv4": ONOS refuses
// the zero address's "invalid IP" and with it the whole batch.
func TestONOSSessionAddress(t *testing.T) {
	d := &Daemon{}
	r := record{ID: "s1", LineGroup: "lg1", Instance: 1, AccessPort: "access1", STag: 100, CTag: 7,
		MAC: [6]byte{2, 0x10, 0, 0, 0, 1}, QosProfile: "gold"}
	if s := d.onosSession(&r); s.IPv4 != "" {
		t.Errorf("no address: ipv4 %q", s.IPv4)
	}
	r.IPv4 = netip.MustParseAddr("100.80.4.9")
	if s := d.onosSession(&r); s.IPv4 != "100.80.4.9" || s.MAC != "02:10:00:00:00:01" {
		t.Errorf("got %+v", s)
	}
}

// ONOS gets the session's own rates (RADIUS/CoA; none: the profile's, left
// out) and when its totals were measured (left out before any reading).
func TestONOSSessionRatesAndReading(t *testing.T) {
	d := &Daemon{}
	r := record{ID: "s1", LineGroup: "lg1", Instance: 1, AccessPort: "access1", STag: 100, CTag: 7,
		MAC: [6]byte{2, 0x10, 0, 0, 0, 1}, QosProfile: "gold", UpOctets: 10, DownOctets: 20}
	s := d.onosSession(&r)
	if s.DownRate != 0 || s.UpRate != 0 || s.Usage.At != nil {
		t.Fatalf("no rates, no reading: got %+v", s)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.FixedZone("x", 3600))
	r.RateDown, r.RateUp, r.UsageAt = 40_000_000, 8_000_000, at
	s = d.onosSession(&r)
	if s.DownRate != 40_000_000 || s.UpRate != 8_000_000 {
		t.Errorf("rates: got %d/%d", s.DownRate, s.UpRate)
	}
	if s.Usage.At == nil || !s.Usage.At.Equal(at) || s.Usage.At.Location() != time.UTC {
		t.Errorf("reading: got %v, want %v in UTC", s.Usage.At, at)
	}
	if s.Usage.UpBytes != 10 || s.Usage.DownBytes != 20 {
		t.Errorf("totals: got %+v", s.Usage)
	}
}

// A usage report moves the totals' time to its End Time (its arrival when
// it has none), never back: a late report of an instance the session left
// adds its octets but not an older time.
func TestAddUsageReading(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	r := record{UsageAt: t0}
	addUsage(&r, pfcpcp.Usage{ULOctets: 100, DLOctets: 1000, ULPackets: 1, DLPackets: 2, End: t0.Add(time.Minute)})
	if !r.UsageAt.Equal(t0.Add(time.Minute)) || r.UpOctets != 100 || r.DownOctets != 1000 {
		t.Fatalf("after a report: %+v", r)
	}
	addUsage(&r, pfcpcp.Usage{DLOctets: 5, End: t0.Add(30 * time.Second)})
	if !r.UsageAt.Equal(t0.Add(time.Minute)) || r.DownOctets != 1005 {
		t.Fatalf("a late report set the time back or lost its octets: %+v", r)
	}
	before := time.Now()
	addUsage(&r, pfcpcp.Usage{DLOctets: 1})
	if r.UsageAt.Before(before) {
		t.Fatalf("a report without End Time: reading %v, want its arrival (>= %v)", r.UsageAt, before)
	}
}

// ONOS gets the session's drops (the DP's usage reports) and its control
// frames (what the CP received and sent for it, from its PADR on).
func TestONOSSessionDropsAndControlPackets(t *testing.T) {
	r := record{}
	addUsage(&r, pfcpcp.Usage{URRID: pfcpcp.URRTotal, ULPackets: 5, ULDropped: 3, DLDropped: 1,
		ULDroppedOctets: 180, DLDroppedOctets: 1500})
	addUsage(&r, pfcpcp.Usage{URRID: pfcpcp.URRIPv4, ULDropped: 9, ULDroppedOctets: 900}) // per-family URRs carry none
	addUsage(&r, pfcpcp.Usage{URRID: pfcpcp.URRTotal, DLDropped: 2, DLDroppedOctets: 2000})
	if r.UpDropped != 3 || r.DownDropped != 3 || r.UpDroppedOctets != 180 || r.DownDroppedOctets != 3500 {
		t.Fatalf("drops %d/%d, octets %d/%d, want 3/3, 180/3500", r.UpDropped, r.DownDropped,
			r.UpDroppedOctets, r.DownDroppedOctets)
	}
	// as ONOS gets them (contract B's usage)
	u := (&Daemon{}).onosSession(&r).Usage
	if u.UpDropPackets != 3 || u.DownDropPackets != 3 || u.UpDropBytes != 180 || u.DownDropBytes != 3500 {
		t.Fatalf("ONOS usage %+v", u)
	}

	p := newTestPod(t, nil, nil)
	c := p.client(1)
	c.dial()
	control := func() uint64 {
		ss, err := p.d.onosSnapshot(context.Background())
		if err != nil || len(ss) != 1 {
			t.Fatalf("snapshot %+v %v", ss, err)
		}
		return ss[0].Usage.ControlPackets
	}
	// PADR, PADS, LCP (two Configure-Requests, two Acks), PAP, IPCP: 10 at least
	n := control()
	if n < 10 {
		t.Fatalf("control packets after dialling: %d", n)
	}
	c.id++
	p.send(c.cpFrame(ppp.ProtoLCP, ppp.CodeEchoReq, c.id, binary.BigEndian.AppendUint32(nil, c.magic)))
	p.expect("LCP Echo-Reply", 2*time.Second, func(r rxFrame) bool {
		return r.proto == ppp.ProtoLCP && r.code == ppp.CodeEchoRep
	})
	p.waitFor("the echo counted", time.Second, func() bool { return control() == n+2 })
}

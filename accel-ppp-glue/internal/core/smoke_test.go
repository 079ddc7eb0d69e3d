package core

import (
	"testing"
	"time"
)

// A subscriber dials through the daemon and hangs up with LCP
// Terminate-Request and PADT: the session is installed in the DP, then
// deleted there, accounted for and its address returned.
func TestDialAndHangUp(t *testing.T) {
	p := newTestPod(t, nil, nil)
	c := p.client(1)
	v := c.dial()
	if !v.IPv4.IsValid() || v.User != podUser+"-1" || v.UPSEID == 0 || p.poolUsed() != 1 {
		t.Fatalf("session %+v, %d addresses used", v, p.poolUsed())
	}
	c.id++
	p.send(c.cpFrame(0xc021, 5, c.id, nil), c.padt())
	p.waitFor("Accounting-Stop", 3*time.Second, func() bool { return p.acct.stops.Load() == 1 })
	p.waitFor("the address back", time.Second, func() bool { return p.poolUsed() == 0 })
	if p.plane.deletes.Load() != 1 {
		t.Fatalf("deletions %d", p.plane.deletes.Load())
	}
	if n := len(p.sessions()); n != 0 {
		t.Fatalf("%d sessions left", n)
	}
}

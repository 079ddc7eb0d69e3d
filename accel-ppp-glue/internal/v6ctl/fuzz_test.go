package v6ctl

import (
	"testing"
	"time"
)

// FuzzHandle feeds hostile IPv6 packets to the handler: no panic, a reply
// only with a valid header, a dropped packet never answered.
func FuzzHandle(f *testing.F) {
	f.Add(rs(clientLL, 255, nil))
	f.Add(dhcp(msgSolicit, opt(optClientID, duidC), iaPD(7), iaNA(9), oroDNS, opt(optRapidCommit, nil)))
	f.Add(dhcp(msgRenew, opt(optClientID, duidC), opt(optServerID, srv.DUID), iaPD(7, opt(optIAPrefix, make([]byte, 25)))))
	f.Add(dhcp(msgInfoReq))
	f.Fuzz(func(t *testing.T, b []byte) {
		s := newSession()
		r := srv.Handle(s, b, time.Time{})
		if r.Drop != (r.Reply == nil) || r.Kind == "" {
			t.Fatalf("inconsistent result %+v", r)
		}
		if r.Reply != nil {
			if _, bad := parseIPv6(r.Reply); bad != "" {
				t.Fatalf("reply not IPv6: %s", bad)
			}
			if len(r.Reply) > 1280 {
				t.Fatalf("reply of %d bytes", len(r.Reply))
			}
		}
		// the same input again (the binding now set) must not panic either
		srv.Handle(s, b, time.Time{})
	})
}

package aaa

import (
	"bytes"
	"context"
	"net"
	"net/netip"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"layeh.com/radius"
	"layeh.com/radius/rfc2865"
	"layeh.com/radius/rfc2866"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/prereq"
)

type dynRecorder struct {
	mu   sync.Mutex
	reqs []DynRequest
}

func (d *dynRecorder) handle(_ context.Context, r *DynRequest) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.reqs = append(d.reqs, *r)
	if r.AcctSessionID == "unknown" {
		return CauseSessionNotFound
	}
	return 0
}

func (d *dynRecorder) all() []DynRequest {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]DynRequest(nil), d.reqs...)
}

var dynSecret = []byte("coa-secret")

// startDyn runs a DynServer on 127.0.0.1 accepting the given clients.
func startDyn(t *testing.T, clients []Server) (*DynServer, *dynRecorder, netip.AddrPort) {
	t.Helper()
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rec := &dynRecorder{}
	s := NewDynServer(clients, rec.handle)
	s.NASIdentifier = "bng-1"
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- s.Serve(ctx, conn) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		conn.Close()
	})
	return s, rec, conn.LocalAddr().(*net.UDPAddr).AddrPort()
}

var localRADIUS = []Server{{Name: "r", Auth: netip.MustParseAddrPort("127.0.0.1:1812"), Secret: dynSecret}}

func radclient(t *testing.T, to netip.AddrPort, kind, secret, attrs string) string {
	t.Helper()
	bin, err := exec.LookPath("radclient")
	if err != nil {
		prereq.Skip(t, "radclient not installed (freeradius-utils)")
	}
	cmd := exec.Command(bin, "-x", "-t", "1", "-r", "1", to.String(), kind, secret)
	cmd.Stdin = strings.NewReader(attrs + "\n")
	out, _ := cmd.CombinedOutput()
	return string(out)
}

func TestDynamicWithRadclient(t *testing.T) {
	s, rec, addr := startDyn(t, localRADIUS)

	out := radclient(t, addr, "disconnect", string(dynSecret), `Acct-Session-Id = "sess-1", User-Name = "alice", Message-Authenticator = 0x00`)
	if !strings.Contains(out, "Received Disconnect-ACK") {
		t.Fatalf("no Disconnect-ACK:\n%s", out)
	}
	out = radclient(t, addr, "coa", string(dynSecret), `Acct-Session-Id = "sess-1", Filter-Id = "silver", WISPr-Bandwidth-Max-Down = 50000000, WISPr-Bandwidth-Max-Up = 10000000, NAS-Identifier = "bng-1"`)
	if !strings.Contains(out, "Received CoA-ACK") {
		t.Fatalf("no CoA-ACK:\n%s", out)
	}
	out = radclient(t, addr, "disconnect", string(dynSecret), `Acct-Session-Id = "unknown", Message-Authenticator = 0x00`)
	if !strings.Contains(out, "Received Disconnect-NAK") || !strings.Contains(out, "Error-Cause = Session-Context-Not-Found") {
		t.Fatalf("no Disconnect-NAK 503:\n%s", out)
	}
	out = radclient(t, addr, "coa", string(dynSecret), `Acct-Session-Id = "sess-1", Filter-Id = "x", NAS-Identifier = "other-bng"`)
	if !strings.Contains(out, "Received CoA-NAK") || !strings.Contains(out, "Error-Cause = NAS-Identification-Mismatch") {
		t.Fatalf("no CoA-NAK 403:\n%s", out)
	}
	out = radclient(t, addr, "coa", string(dynSecret), `Acct-Session-Id = "sess-1", Session-Timeout = 10`)
	if !strings.Contains(out, "Received CoA-NAK") || !strings.Contains(out, "Error-Cause = Unsupported-Attribute") {
		t.Fatalf("no CoA-NAK 401:\n%s", out)
	}
	// Wrong secret: no answer at all.
	out = radclient(t, addr, "disconnect", "wrong", `Acct-Session-Id = "sess-1"`)
	if strings.Contains(out, "Received") {
		t.Fatalf("answered a request with the wrong secret:\n%s", out)
	}

	got := rec.all()
	if len(got) != 3 {
		t.Fatalf("handler calls: %+v", got)
	}
	if d := got[0]; !d.Disconnect || d.AcctSessionID != "sess-1" || d.UserName != "alice" || d.Source.Addr() != netip.MustParseAddr("127.0.0.1") {
		t.Fatalf("disconnect: %+v", d)
	}
	if c := got[1]; c.Disconnect || c.FilterID != "silver" || c.RateDown != 50000000 || c.RateUp != 10000000 {
		t.Fatalf("coa: %+v", c)
	}
	st := s.Stats()
	if st.Disconnects != 2 || st.CoAs != 3 || st.ACKs != 2 || st.NAKs != 3 || st.BadAuthenticator < 1 {
		t.Fatalf("stats %+v", st)
	}
}

// dynPacket builds a signed request with layeh's encoder (independent of ours).
func dynPacket(t *testing.T, code radius.Code, secret []byte, id byte, ma []byte, attrs ...*radius.AVP) []byte {
	t.Helper()
	p := &radius.Packet{Code: code, Identifier: id, Secret: secret}
	if ma != nil {
		p.Add(attrMessageAuthenticator, ma)
	}
	p.Attributes = append(p.Attributes, attrs...)
	b, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func exchangeUDP(t *testing.T, c net.Conn, b []byte, wait time.Duration) []byte {
	t.Helper()
	if _, err := c.Write(b); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(wait))
	buf := make([]byte, 4096)
	n, err := c.Read(buf)
	if err != nil {
		return nil
	}
	return buf[:n]
}

func TestDynamicRaw(t *testing.T) {
	s, rec, addr := startDyn(t, localRADIUS)
	c, err := net.Dial("udp", addr.String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sid := &radius.AVP{Type: rfc2866.AcctSessionID_Type, Attribute: radius.Attribute("s-9")}
	proxy := &radius.AVP{Type: rfc2865.ProxyState_Type, Attribute: radius.Attribute("ps1")}

	// Valid, no Message-Authenticator: ACK with ours, Proxy-State echoed.
	req := dynPacket(t, radius.CodeDisconnectRequest, dynSecret, 1, nil, sid, proxy)
	resp := exchangeUDP(t, c, req, time.Second)
	if resp == nil || radius.Code(resp[0]) != radius.CodeDisconnectACK {
		t.Fatalf("no ACK: %x", resp)
	}
	if !radius.IsAuthenticResponse(resp, req, dynSecret) {
		t.Fatal("ACK's Response Authenticator rejected by layeh")
	}
	if err := verifyReply(resp, (*[16]byte)(req[4:20]), dynSecret, true); err != nil {
		t.Fatalf("ACK: %v", err)
	}
	if p, _ := radius.Parse(resp, dynSecret); string(p.Get(rfc2865.ProxyState_Type)) != "ps1" {
		t.Fatal("Proxy-State not echoed")
	}

	// Retransmission: same answer, handler not run again.
	resp2 := exchangeUDP(t, c, req, time.Second)
	if !bytes.Equal(resp, resp2) || len(rec.all()) != 1 || s.Stats().Duplicates != 1 {
		t.Fatalf("duplicate: %x vs %x, %d calls, %+v", resp2, resp, len(rec.all()), s.Stats())
	}

	// Wrong Message-Authenticator (authenticator right): dropped.
	bad := dynPacket(t, radius.CodeCoARequest, dynSecret, 2, []byte("0123456789abcdef"), sid,
		&radius.AVP{Type: rfc2865.FilterID_Type, Attribute: radius.Attribute("x")})
	if r := exchangeUDP(t, c, bad, 300*time.Millisecond); r != nil {
		t.Fatalf("answered a wrong Message-Authenticator: %x", r)
	}
	if s.Stats().BadMessageAuth != 1 {
		t.Fatalf("%+v", s.Stats())
	}
	// Valid Message-Authenticator (our encoder) accepted: CoA with the rate pair only.
	down, _ := vsa(vendorWISPr, wisprBandwidthMaxDown, u32(7000000))
	p := &radius.Packet{Code: radius.CodeCoARequest, Identifier: 3, Secret: dynSecret}
	p.Add(rfc2866.AcctSessionID_Type, radius.Attribute("s-9"))
	p.Add(rfc2865.VendorSpecific_Type, down)
	good, err := encodeRequest(p)
	if err != nil {
		t.Fatal(err)
	}
	if !radius.IsAuthenticRequest(good, dynSecret) {
		t.Fatal("our CoA-Request authenticator rejected by layeh")
	}
	if r := exchangeUDP(t, c, good, time.Second); r == nil || radius.Code(r[0]) != radius.CodeCoAACK {
		t.Fatalf("CoA not ACKed: %x", r)
	}
	if got := rec.all(); len(got) != 2 || got[1].RateDown != 7000000 || got[1].RateUp != 0 || got[1].FilterID != "" {
		t.Fatalf("%+v", got)
	}
	// Not a request code: dropped.
	if r := exchangeUDP(t, c, dynPacket(t, radius.CodeAccessAccept, dynSecret, 4, nil, sid), 200*time.Millisecond); r != nil {
		t.Fatal("answered an Access-Accept")
	}
	if s.Stats().Malformed != 1 {
		t.Fatalf("%+v", s.Stats())
	}
}

func TestDynamicUnknownSource(t *testing.T) {
	s, rec, addr := startDyn(t, []Server{{Name: "far", Auth: netip.MustParseAddrPort("127.0.0.2:1812"), Acct: netip.MustParseAddrPort("127.0.0.3:1813"), Secret: dynSecret}})
	c, err := net.Dial("udp", addr.String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := dynPacket(t, radius.CodeDisconnectRequest, dynSecret, 1, nil, &radius.AVP{Type: rfc2866.AcctSessionID_Type, Attribute: radius.Attribute("s")})
	if r := exchangeUDP(t, c, req, 300*time.Millisecond); r != nil {
		t.Fatal("answered an unknown source")
	}
	if st := s.Stats(); st.UnknownSource != 1 || len(rec.all()) != 0 {
		t.Fatalf("%+v", st)
	}
}

func TestDecodeDyn(t *testing.T) {
	avp := func(typ radius.Type, v []byte) *radius.AVP { return &radius.AVP{Type: typ, Attribute: v} }
	sid := avp(rfc2866.AcctSessionID_Type, []byte("s"))
	wispr := func(typ byte, v uint32) *radius.AVP {
		a, _ := vsa(vendorWISPr, typ, u32(v))
		return avp(rfc2865.VendorSpecific_Type, a)
	}
	cases := []struct {
		name  string
		code  radius.Code
		attrs []*radius.AVP
		cause int
	}{
		{"disconnect by session", radius.CodeDisconnectRequest, []*radius.AVP{sid}, 0},
		{"disconnect by framed ip", radius.CodeDisconnectRequest, []*radius.AVP{avp(rfc2865.FramedIPAddress_Type, []byte{10, 0, 0, 1})}, 0},
		{"no identification", radius.CodeDisconnectRequest, []*radius.AVP{avp(rfc2865.NASIdentifier_Type, []byte("bng-1"))}, CauseMissingAttribute},
		{"nas id mismatch", radius.CodeDisconnectRequest, []*radius.AVP{sid, avp(rfc2865.NASIdentifier_Type, []byte("bng-2"))}, CauseNASIdentMismatch},
		{"nas ip mismatch", radius.CodeDisconnectRequest, []*radius.AVP{sid, avp(rfc2865.NASIPAddress_Type, []byte{10, 9, 9, 9})}, CauseNASIdentMismatch},
		{"filter in disconnect", radius.CodeDisconnectRequest, []*radius.AVP{sid, avp(rfc2865.FilterID_Type, []byte("x"))}, CauseUnsupportedAttribute},
		{"coa without change", radius.CodeCoARequest, []*radius.AVP{sid}, CauseMissingAttribute},
		{"coa filter", radius.CodeCoARequest, []*radius.AVP{sid, avp(rfc2865.FilterID_Type, []byte("x"))}, 0},
		{"coa rates", radius.CodeCoARequest, []*radius.AVP{sid, wispr(7, 1), wispr(8, 2)}, 0},
		{"coa zero rate", radius.CodeCoARequest, []*radius.AVP{sid, wispr(8, 0)}, CauseInvalidAttributeValue},
		{"coa other wispr", radius.CodeCoARequest, []*radius.AVP{sid, wispr(9, 5)}, CauseUnsupportedAttribute},
		{"coa unknown attribute", radius.CodeCoARequest, []*radius.AVP{sid, avp(rfc2865.SessionTimeout_Type, u32(5))}, CauseUnsupportedAttribute},
		{"authorize only", radius.CodeCoARequest, []*radius.AVP{sid, avp(rfc2865.ServiceType_Type, u32(serviceTypeAuthorizeOnly))}, CauseUnsupportedService},
		{"bad framed ip", radius.CodeDisconnectRequest, []*radius.AVP{sid, avp(rfc2865.FramedIPAddress_Type, []byte{1, 2})}, CauseInvalidAttributeValue},
		{"empty session id", radius.CodeDisconnectRequest, []*radius.AVP{avp(rfc2866.AcctSessionID_Type, nil)}, CauseInvalidAttributeValue},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &radius.Packet{Code: tc.code, Identifier: 1, Secret: dynSecret, Attributes: tc.attrs}
			b, err := p.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			r, cause := decodeDyn(b, "bng-1", netip.MustParseAddr("10.1.1.1"))
			if cause != tc.cause || (cause == 0) != (r != nil) {
				t.Fatalf("cause %d (want %d), %+v", cause, tc.cause, r)
			}
		})
	}
}

package aaa

import (
	"bytes"
	"crypto/hmac"
	"crypto/md5"
	"encoding/binary"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"layeh.com/radius"
	"layeh.com/radius/rfc2865"
	"layeh.com/radius/rfc2866"
)

// independentMA recomputes a Message-Authenticator the slow, obvious way.
func independentMA(pkt []byte, auth []byte, secret []byte) (got, want []byte) {
	p, err := radius.Parse(pkt, secret)
	if err != nil {
		panic(err)
	}
	got = append([]byte(nil), p.Get(attrMessageAuthenticator)...)
	q := *p
	q.Attributes = nil
	for _, a := range p.Attributes {
		v := a.Attribute
		if a.Type == attrMessageAuthenticator {
			v = make([]byte, 16)
		}
		q.Attributes = append(q.Attributes, &radius.AVP{Type: a.Type, Attribute: v})
	}
	copy(q.Authenticator[:], auth)
	raw, _ := q.MarshalBinary()
	h := hmac.New(md5.New, secret)
	h.Write(raw)
	return got, h.Sum(nil)
}

func TestAccessRequestEncoding(t *testing.T) {
	c, err := NewClient(ClientConfig{Servers: []Server{{Auth: netip.MustParseAddrPort("127.0.0.1:1"), Secret: []byte("s3cr3t")}},
		NASIdentifier: "bng", NASIPAddress: netip.MustParseAddr("192.0.2.1")})
	if err != nil {
		t.Fatal(err)
	}
	secret := []byte("s3cr3t")
	b, auth, err := c.buildAccess(&AccessRequest{UserName: "u", PAPPassword: []byte("a password longer than 16"),
		CircuitID: "c1", RemoteID: "r1", ActualRateUp: 5000000, ActualRateDown: 1}, 42, secret)
	if err != nil {
		t.Fatal(err)
	}
	if b[0] != 1 || b[1] != 42 || !bytes.Equal(b[4:20], auth[:]) {
		t.Fatalf("header %x", b[:20])
	}
	if b[20] != byte(attrMessageAuthenticator) || b[21] != 18 {
		t.Fatal("Message-Authenticator not first")
	}
	got, want := independentMA(b, auth[:], secret)
	if !bytes.Equal(got, want) {
		t.Fatal("Message-Authenticator wrong")
	}
	p, _ := radius.Parse(b, secret)
	if pw, err := radius.UserPassword(p.Get(rfc2865.UserPassword_Type), secret, auth[:]); err != nil || string(pw) != "a password longer than 16" {
		t.Fatalf("User-Password: %q %v", pw, err)
	}
	if v := p.Get(rfc2865.NASPortType_Type); !bytes.Equal(v, []byte{0, 0, 0, 15}) {
		t.Fatalf("NAS-Port-Type %x", v)
	}
	if v := p.Get(rfc2865.NASIPAddress_Type); !bytes.Equal(v, []byte{192, 0, 2, 1}) {
		t.Fatalf("NAS-IP-Address %x", v)
	}
	var vsas [][]byte
	for _, a := range p.Attributes {
		if a.Type == rfc2865.VendorSpecific_Type {
			vsas = append(vsas, a.Attribute)
		}
	}
	wantVSA := [][]byte{
		{0, 0, 0x0d, 0xe9, 1, 4, 'c', '1'},
		{0, 0, 0x0d, 0xe9, 2, 4, 'r', '1'},
		{0, 0, 0x0d, 0xe9, 129, 6, 0xff, 0xff, 0xff, 0xff}, // 5e9 bit/s saturates
		{0, 0, 0x0d, 0xe9, 130, 6, 0, 0, 0x03, 0xe8},       // 1 kbit/s = 1000 bit/s
	}
	if len(vsas) != len(wantVSA) {
		t.Fatalf("VSAs %x", vsas)
	}
	for i := range wantVSA {
		if !bytes.Equal(vsas[i], wantVSA[i]) {
			t.Fatalf("VSA %d: %x want %x", i, vsas[i], wantVSA[i])
		}
	}

	// CHAP
	b, auth, err = c.buildAccess(&AccessRequest{UserName: "u", CHAPID: 9, CHAPChallenge: []byte("cccccccc"), CHAPResponse: bytes.Repeat([]byte{7}, 16)}, 1, secret)
	if err != nil {
		t.Fatal(err)
	}
	p, _ = radius.Parse(b, secret)
	if v := p.Get(rfc2865.CHAPPassword_Type); len(v) != 17 || v[0] != 9 || v[1] != 7 {
		t.Fatalf("CHAP-Password %x", v)
	}
	if string(p.Get(rfc2865.CHAPChallenge_Type)) != "cccccccc" || p.Get(rfc2865.UserPassword_Type) != nil {
		t.Fatal("CHAP attributes")
	}
	_ = auth

	for _, bad := range []*AccessRequest{
		{UserName: "", PAPPassword: []byte("x")},
		{UserName: "u"},
		{UserName: "u", PAPPassword: []byte("x"), CHAPResponse: make([]byte, 16)},
		{UserName: "u", CHAPResponse: make([]byte, 15), CHAPChallenge: []byte("c")},
		{UserName: "u", PAPPassword: make([]byte, 129)},
	} {
		if bad.validate() == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
}

func TestAccountingEncoding(t *testing.T) {
	c, _ := NewClient(ClientConfig{Servers: []Server{{Acct: netip.MustParseAddrPort("127.0.0.1:1"), Secret: []byte("k")}}})
	ev := time.Now().Add(-10 * time.Second)
	b, auth, err := c.buildAcct(&AcctRequest{Status: AcctStop, SessionID: "s", InOctets: 7<<32 | 9, OutOctets: 1, TerminateCause: 6,
		Class: [][]byte{{1}, {2}}}, ev, 5, []byte("k"))
	if err != nil {
		t.Fatal(err)
	}
	if !radius.IsAuthenticRequest(b, []byte("k")) || !bytes.Equal(auth[:], b[4:20]) {
		t.Fatal("Request Authenticator")
	}
	got, want := independentMA(b, make([]byte, 16), []byte("k"))
	if !bytes.Equal(got, want) {
		t.Fatal("Message-Authenticator of an Accounting-Request is over a zero authenticator")
	}
	p, _ := radius.Parse(b, []byte("k"))
	i32 := func(typ radius.Type) uint32 { return binary.BigEndian.Uint32(p.Get(typ)) }
	if i32(rfc2866.AcctInputOctets_Type) != 9 || i32(52) != 7 || i32(rfc2866.AcctOutputOctets_Type) != 1 || i32(53) != 0 ||
		i32(rfc2866.AcctTerminateCause_Type) != 6 || i32(rfc2866.AcctStatusType_Type) != 2 {
		t.Fatal("counters")
	}
	if d := i32(rfc2866.AcctDelayTime_Type); d < 9 || d > 11 {
		t.Fatalf("Acct-Delay-Time %d", d)
	}
	if i32(55) != uint32(ev.Unix()) {
		t.Fatal("Event-Timestamp")
	}
	n := 0
	for _, a := range p.Attributes {
		if a.Type == rfc2865.Class_Type {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("Class echoed %d times", n)
	}
}

func TestDecodeAccess(t *testing.T) {
	vs := func(vendor uint32, sub ...[]byte) []byte {
		v := binary.BigEndian.AppendUint32(nil, vendor)
		for _, s := range sub {
			v = append(v, s...)
		}
		return v
	}
	p := &radius.Packet{Code: radius.CodeAccessAccept, Identifier: 1}
	p.Add(rfc2865.FramedIPAddress_Type, []byte{255, 255, 255, 254})
	p.Add(rfc2865.SessionTimeout_Type, []byte{1, 2}) // wrong length: ignored
	p.Add(rfc2865.ReplyMessage_Type, []byte("a"))
	p.Add(rfc2865.ReplyMessage_Type, []byte("b"))
	p.Add(rfc2865.FilterID_Type, []byte("first"))
	p.Add(rfc2865.FilterID_Type, []byte("second"))
	// Two WISPr sub-attributes in one VSA; a broken VSA after it is ignored.
	p.Add(rfc2865.VendorSpecific_Type, vs(vendorWISPr, []byte{8, 6, 0, 0, 0, 100}, []byte{7, 6, 0, 0, 0, 50}))
	p.Add(rfc2865.VendorSpecific_Type, vs(vendorWISPr, []byte{8, 9, 0}))
	p.Add(rfc2865.VendorSpecific_Type, vs(9, []byte{8, 6, 0, 0, 0, 1})) // other vendor, same number
	b, _ := p.MarshalBinary()
	r, err := decodeAccess(b)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Accept || r.FramedIP.IsValid() || r.SessionTimeout != 0 || r.ReplyMessage != "a\nb" || r.FilterID != "first" || r.RateDown != 100 || r.RateUp != 50 {
		t.Fatalf("%+v", r)
	}
}

func TestUsersFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "users")
	os.WriteFile(path, []byte(`# lab users
alice	Cleartext-Password := "pw a"
	Framed-IP-Address = 100.64.0.7,
	Filter-Id = "gold",
	WISPr-Bandwidth-Max-Down = 100000000,
	WISPr-Bandwidth-Max-Up = 20000000,
	Session-Timeout = 3600,
	Class = "c1"

"bob@isp"  Cleartext-Password := "x\"y"
`), 0o644)
	u, err := LoadUsers(path)
	if err != nil {
		t.Fatal(err)
	}
	if u.Len() != 2 {
		t.Fatal(u.Len())
	}
	r := u.check(&AccessRequest{UserName: "alice", PAPPassword: []byte("pw a")})
	if !r.Accept || r.FramedIP != netip.MustParseAddr("100.64.0.7") || r.FilterID != "gold" || r.RateDown != 100000000 ||
		r.RateUp != 20000000 || r.SessionTimeout != time.Hour || len(r.Class) != 1 || r.Server != "local" {
		t.Fatalf("%+v", r)
	}
	r.Class[0][0] = 'X' // callers may scribble: the table is unchanged
	if r := u.check(&AccessRequest{UserName: "alice", PAPPassword: []byte("pw a")}); string(r.Class[0]) != "c1" {
		t.Fatal("table shared with result")
	}
	if u.check(&AccessRequest{UserName: "alice", PAPPassword: []byte("pw b")}).Accept {
		t.Fatal("wrong password accepted")
	}
	if u.check(&AccessRequest{UserName: "carol", PAPPassword: []byte("pw a")}).Accept {
		t.Fatal("unknown user accepted")
	}
	chal := []byte("challenge")
	h := md5.New()
	h.Write([]byte{3})
	h.Write([]byte(`x"y`))
	h.Write(chal)
	resp := h.Sum(nil)
	if !u.check(&AccessRequest{UserName: "bob@isp", CHAPID: 3, CHAPChallenge: chal, CHAPResponse: resp}).Accept {
		t.Fatal("CHAP rejected")
	}
	if u.check(&AccessRequest{UserName: "bob@isp", CHAPID: 4, CHAPChallenge: chal, CHAPResponse: resp}).Accept {
		t.Fatal("CHAP with wrong id accepted")
	}

	for content, want := range map[string]string{
		"a Cleartext-Password := \"x\"\n\tFramed-IP-Adress = 1.2.3.4\n":  ":2: Framed-IP-Adress: unsupported",
		"a Cleartext-Password := \"x\"\na Cleartext-Password := \"y\"\n": ":2: user \"a\" defined twice",
		"\tFilter-Id = \"x\"\n":                                   ":1: reply item before any user",
		"a Auth-Type := Accept\n":                                 ":1: check item must be",
		"a Cleartext-Password := \"x\"\n\tSession-Timeout = -1\n": ":2: Session-Timeout",
		"a Cleartext-Password := \"x\n":                           ":1: unterminated quote",
	} {
		os.WriteFile(path, []byte(content), 0o644)
		if _, err := LoadUsers(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", content, err, want)
		}
	}
}

// An IPoE subscriber's requests carry Service-Type Framed and no
// Framed-Protocol (there is no PPP); a PPPoE one's Framed-Protocol PPP.
func TestIPoENoFramedProtocol(t *testing.T) {
	c, err := NewClient(ClientConfig{Servers: []Server{{Auth: netip.MustParseAddrPort("127.0.0.1:1"),
		Acct: netip.MustParseAddrPort("127.0.0.1:2"), Secret: []byte("k")}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, ipoe := range []bool{false, true} {
		b, _, err := c.buildAccess(&AccessRequest{UserName: "02:00:00:00:00:01", PAPPassword: []byte("ipoe"), IPoE: ipoe}, 1, []byte("k"))
		if err != nil {
			t.Fatal(err)
		}
		a, _, err := c.buildAcct(&AcctRequest{Status: AcctStart, SessionID: "s", IPoE: ipoe}, time.Now(), 2, []byte("k"))
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range [][]byte{b, a} {
			p, err := radius.Parse(raw, []byte("k"))
			if err != nil {
				t.Fatal(err)
			}
			fp := p.Get(rfc2865.FramedProtocol_Type)
			if ipoe != (fp == nil) || !bytes.Equal(p.Get(rfc2865.ServiceType_Type), []byte{0, 0, 0, 2}) {
				t.Errorf("IPoE %v: Framed-Protocol %x Service-Type %x", ipoe, fp, p.Get(rfc2865.ServiceType_Type))
			}
		}
	}
}

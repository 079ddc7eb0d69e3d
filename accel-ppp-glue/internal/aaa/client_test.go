package aaa

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"layeh.com/radius"
	"layeh.com/radius/rfc2865"
)

// fakeServer is a RADIUS server in the test that answers through a
// behaviour function (nil reply = silence).
type fakeServer struct {
	conn  net.PacketConn
	addr  netip.AddrPort
	got   atomic.Int64
	async atomic.Bool // answer each request in its own goroutine
	reply func(req []byte) []byte
}

func newFake(t *testing.T, reply func(req []byte) []byte) *fakeServer {
	t.Helper()
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c.(*net.UDPConn).SetReadBuffer(4 << 20)
	f := &fakeServer{conn: c, addr: c.LocalAddr().(*net.UDPAddr).AddrPort(), reply: reply}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, from, err := c.ReadFrom(buf)
			if err != nil {
				return
			}
			f.got.Add(1)
			req := append([]byte(nil), buf[:n]...)
			answer := func() {
				if r := f.reply(req); r != nil {
					c.WriteTo(r, from)
				}
			}
			if f.async.Load() {
				go answer()
			} else {
				answer()
			}
		}
	}()
	t.Cleanup(func() { c.Close(); <-done })
	return f
}

var fakeSecret = []byte("fake-secret")

// acceptFor builds a valid Access-Accept (Message-Authenticator first) to req.
func acceptFor(req []byte, secret []byte, filter string) []byte {
	p := &radius.Packet{Code: radius.CodeAccessAccept, Identifier: req[1], Secret: secret}
	p.Add(rfc2865.FilterID_Type, radius.Attribute(filter))
	b, err := encodeResponse(p, [16]byte(req[4:20]))
	if err != nil {
		panic(err)
	}
	return b
}

// layehReply encodes a reply with layeh's own encoder: correct Response
// Authenticator, and no Message-Authenticator unless ma is given (then it is
// sent as is, i.e. wrong).
func layehReply(req []byte, code radius.Code, ma []byte) []byte {
	p := &radius.Packet{Code: code, Identifier: req[1], Secret: fakeSecret}
	copy(p.Authenticator[:], req[4:20])
	if ma != nil {
		p.Add(attrMessageAuthenticator, ma)
	}
	p.Add(rfc2865.FilterID_Type, radius.Attribute("evil"))
	b, err := p.Encode()
	if err != nil {
		panic(err)
	}
	return b
}

func papReq() *AccessRequest {
	return &AccessRequest{UserName: "u", PAPPassword: []byte("p"), AcctSessionID: "s1"}
}

func serverStats(c *Client, name, kind string) ServerStats {
	for _, s := range c.Stats().Servers {
		if s.Name == name && s.Kind == kind {
			return s
		}
	}
	return ServerStats{}
}

func TestFailoverOnBadReplies(t *testing.T) {
	cases := []struct {
		name  string
		reply func(req []byte) []byte
		check func(s ServerStats) bool
	}{
		{"no Message-Authenticator", func(req []byte) []byte { return layehReply(req, radius.CodeAccessAccept, nil) },
			func(s ServerStats) bool { return s.MissingMessageAuthenticator == 2 }},
		{"no Message-Authenticator in Reject", func(req []byte) []byte { return layehReply(req, radius.CodeAccessReject, nil) },
			func(s ServerStats) bool { return s.MissingMessageAuthenticator == 2 }},
		{"wrong Message-Authenticator", func(req []byte) []byte {
			return layehReply(req, radius.CodeAccessAccept, []byte("0123456789abcdef"))
		}, func(s ServerStats) bool { return s.BadMessageAuthenticator == 2 }},
		{"Message-Authenticator signed with another secret", func(req []byte) []byte {
			b := acceptFor(req, []byte("other"), "evil")
			// Fix the Response Authenticator with the right secret: only the HMAC is wrong.
			var ra [16]byte
			copy(ra[:], req[4:20])
			h := authHash(b, &ra, fakeSecret)
			copy(b[4:20], h[:])
			return b
		}, func(s ServerStats) bool { return s.BadMessageAuthenticator == 2 }},
		{"wrong Response Authenticator", func(req []byte) []byte {
			b := acceptFor(req, fakeSecret, "evil")
			b[4] ^= 0xff
			return b
		}, func(s ServerStats) bool { return s.BadAuthenticator == 2 }},
		{"garbage", func(req []byte) []byte { return []byte{2, req[1], 0, 200, 1, 2, 3} },
			func(s ServerStats) bool { return s.Malformed == 2 }},
		{"bad attribute", func(req []byte) []byte {
			b := acceptFor(req, fakeSecret, "evil")
			b = append(b, 11, 40) // attribute running past the end
			b[2], b[3] = byte(len(b)>>8), byte(len(b))
			return b
		}, func(s ServerStats) bool { return s.Malformed == 2 }},
		{"wrong identifier", func(req []byte) []byte {
			b := acceptFor(req, fakeSecret, "evil")
			b[1]++
			return b
		}, func(s ServerStats) bool { return s.Unmatched == 2 }},
		{"Accounting-Response to an Access-Request", func(req []byte) []byte {
			return layehReply(req, radius.CodeAccountingResponse, nil)
		}, func(s ServerStats) bool { return s.UnexpectedCode == 2 }},
		{"silence", func(req []byte) []byte { return nil },
			func(s ServerStats) bool { return s.Timeouts == 2 && s.Responses == 0 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bad := newFake(t, tc.reply)
			good := newFake(t, func(req []byte) []byte { return acceptFor(req, fakeSecret, "good") })
			c, err := NewClient(ClientConfig{
				Servers: []Server{
					{Name: "bad", Auth: bad.addr, Secret: fakeSecret},
					{Name: "good", Auth: good.addr, Secret: fakeSecret},
				},
				Timeout: 60 * time.Millisecond, Retries: 1, DeadTime: 250 * time.Millisecond,
			})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			t0 := time.Now()
			res, err := c.Authenticate(context.Background(), papReq())
			if err != nil {
				t.Fatal(err)
			}
			if !res.Accept || res.FilterID != "good" || res.Server != "good" {
				t.Fatalf("want the good server's accept, got %+v", res)
			}
			if d := time.Since(t0); d < 120*time.Millisecond {
				t.Fatalf("answered after %v: the bad server's reply was not treated as lost", d)
			}
			s := serverStats(c, "bad", "auth")
			if bad.got.Load() != 2 || s.Requests != 1 || s.Retransmits != 1 || s.Timeouts != 2 || s.Responses != 0 || !tc.check(s) {
				t.Fatalf("bad server: got %d datagrams, stats %+v", bad.got.Load(), s)
			}
			if s.DeadUntil.IsZero() || s.DeadMarks != 1 {
				t.Fatalf("bad server not marked dead: %+v", s)
			}
			if c.Stats().Failovers != 1 {
				t.Fatalf("failovers %d", c.Stats().Failovers)
			}

			// Dead time respected: straight to the good server.
			if res, err := c.Authenticate(context.Background(), papReq()); err != nil || res.Server != "good" {
				t.Fatalf("%+v %v", res, err)
			}
			if bad.got.Load() != 2 {
				t.Fatalf("dead server tried again (%d datagrams)", bad.got.Load())
			}
			// After the dead time it is tried again.
			time.Sleep(300 * time.Millisecond)
			if res, err := c.Authenticate(context.Background(), papReq()); err != nil || res.Server != "good" {
				t.Fatalf("%+v %v", res, err)
			}
			if bad.got.Load() != 4 {
				t.Fatalf("server not retried after its dead time: %d datagrams", bad.got.Load())
			}
		})
	}
}

func TestAllServersSilent(t *testing.T) {
	a := newFake(t, func([]byte) []byte { return nil })
	b := newFake(t, func([]byte) []byte { return nil })
	c, err := NewClient(ClientConfig{
		Servers: []Server{{Name: "a", Auth: a.addr, Acct: a.addr, Secret: fakeSecret}, {Name: "b", Auth: b.addr, Acct: b.addr, Secret: fakeSecret}},
		Timeout: 50 * time.Millisecond, Retries: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Authenticate(context.Background(), papReq())
	if !errors.Is(err, ErrNoServer) {
		t.Fatalf("want ErrNoServer, got %v", err)
	}
	if a.got.Load() != 3 || b.got.Load() != 3 {
		t.Fatalf("transmissions %d %d, want 3 each", a.got.Load(), b.got.Load())
	}
	// Both dead: both are still tried (in order) rather than failing at once.
	_, err = c.Authenticate(context.Background(), papReq())
	if !errors.Is(err, ErrNoServer) || a.got.Load() != 6 || b.got.Load() != 6 {
		t.Fatalf("all dead: %v, %d %d", err, a.got.Load(), b.got.Load())
	}
	if err := c.Account(context.Background(), &AcctRequest{Status: AcctStart, SessionID: "x"}); !errors.Is(err, ErrNoServer) {
		t.Fatalf("accounting: %v", err)
	}
	if st := c.Stats(); st.AuthFailures != 2 || st.AcctFailures != 1 {
		t.Fatalf("%+v", st)
	}
	// A cancelled context returns promptly with its error.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := c.Authenticate(ctx, papReq()); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want deadline exceeded, got %v", err)
	}
}

// A server that answers other requests is not declared dead because one
// request's replies were lost.
func TestNoDeadMarkWhileServerAnswers(t *testing.T) {
	s := newFake(t, func(req []byte) []byte {
		p, err := radius.Parse(req, fakeSecret)
		if err != nil || rfc2865.UserName_GetString(p) == "lost" {
			return nil
		}
		return acceptFor(req, fakeSecret, "ok")
	})
	c, _ := NewClient(ClientConfig{Servers: []Server{{Name: "s", Auth: s.addr, Secret: fakeSecret}}, Timeout: 100 * time.Millisecond, Retries: 1})
	defer c.Close()
	done := make(chan error)
	go func() {
		_, err := c.Authenticate(context.Background(), &AccessRequest{UserName: "lost", PAPPassword: []byte("x")})
		done <- err
	}()
	time.Sleep(30 * time.Millisecond)
	if _, err := c.Authenticate(context.Background(), papReq()); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, ErrNoServer) {
		t.Fatalf("lost request: %v", err)
	}
	if st := serverStats(c, "s", "auth"); st.DeadMarks != 0 || !st.DeadUntil.IsZero() {
		t.Fatalf("server marked dead although it answered: %+v", st)
	}
}

func TestAccountingResponseChecks(t *testing.T) {
	var mode atomic.Int64
	s := newFake(t, func(req []byte) []byte {
		if !radius.IsAuthenticRequest(req, fakeSecret) {
			t.Errorf("Accounting-Request authenticator rejected by layeh")
		}
		if pos, err := findMA(req); err != nil || pos != headerLen+2 {
			t.Errorf("Message-Authenticator not first (%d, %v)", pos, err)
		}
		p := &radius.Packet{Code: radius.CodeAccountingResponse, Identifier: req[1], Secret: fakeSecret}
		copy(p.Authenticator[:], req[4:20])
		switch mode.Load() {
		case 0: // plain RFC 2866 answer without Message-Authenticator: fine
			b, _ := p.Encode()
			return b
		case 1: // with a valid one
			b, _ := encodeResponse(p, [16]byte(req[4:20]))
			return b
		default: // with a wrong one
			p.Add(attrMessageAuthenticator, make([]byte, 16))
			b, _ := p.Encode()
			return b
		}
	})
	c, _ := NewClient(ClientConfig{Servers: []Server{{Name: "s", Acct: s.addr, Secret: fakeSecret}}, Timeout: 80 * time.Millisecond, Retries: -1})
	defer c.Close()
	r := &AcctRequest{Status: AcctInterim, SessionID: "x", InOctets: 1}
	for m, wantErr := range []bool{false, false, true} {
		mode.Store(int64(m))
		err := c.Account(context.Background(), r)
		if (err != nil) != wantErr {
			t.Fatalf("mode %d: err %v", m, err)
		}
	}
	if st := serverStats(c, "s", "acct"); st.BadMessageAuthenticator != 1 || st.Responses != 2 {
		t.Fatalf("%+v", st)
	}
}

// Thousands of requests in flight through a small pool: more source sockets
// are opened when 256 identifiers per socket are not enough.
func TestManyInFlight(t *testing.T) {
	// The server holds every request until N are waiting, then answers
	// all: proves that N were in flight at once.
	const N = 2000
	var n atomic.Int64
	release := make(chan struct{})
	var once sync.Once
	s := newFake(t, func(req []byte) []byte {
		if n.Add(1) >= N {
			once.Do(func() { close(release) })
		}
		<-release
		return acceptFor(req, fakeSecret, "ok")
	})
	s.async.Store(true)
	c, err := NewClient(ClientConfig{Servers: []Server{{Name: "s", Auth: s.addr, Secret: fakeSecret}}, Timeout: 10 * time.Second, Retries: -1, Sockets: 2, MaxSockets: 16})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var wg sync.WaitGroup
	var fails atomic.Int64
	for i := 0; i < N; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := c.Authenticate(context.Background(), papReq())
			if err != nil || !res.Accept {
				fails.Add(1)
			}
		}()
	}
	wg.Wait()
	st := serverStats(c, "s", "auth")
	if fails.Load() != 0 || st.Responses != N || st.Retransmits != 0 {
		t.Fatalf("%d failed; %+v", fails.Load(), st)
	}
	if st.Sockets < N/256+1 || st.Sockets > 16 {
		t.Fatalf("sockets %d, want between %d and 16", st.Sockets, N/256+1)
	}
	if st.InFlight != 0 {
		t.Fatalf("in flight after the end: %d", st.InFlight)
	}
}

// When MaxSockets*256 identifiers are busy, callers wait for one instead of failing.
func TestPoolExhaustionWaits(t *testing.T) {
	s := newFake(t, func(req []byte) []byte {
		time.Sleep(time.Millisecond)
		return acceptFor(req, fakeSecret, "ok")
	})
	s.async.Store(true)
	c, _ := NewClient(ClientConfig{Servers: []Server{{Name: "s", Auth: s.addr, Secret: fakeSecret}}, Timeout: 5 * time.Second, Retries: -1, Sockets: 1, MaxSockets: 1})
	defer c.Close()
	var wg sync.WaitGroup
	var fails atomic.Int64
	for i := 0; i < 600; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Authenticate(context.Background(), papReq()); err != nil {
				fails.Add(1)
			}
		}()
	}
	wg.Wait()
	if st := serverStats(c, "s", "auth"); fails.Load() != 0 || st.Sockets != 1 || st.Responses != 600 {
		t.Fatalf("%d failed, %+v", fails.Load(), st)
	}
}

// A reply arriving after the request was given up is dropped and counted,
// never handed to a later request that reuses the identifier.
func TestLateReply(t *testing.T) {
	var n atomic.Int64
	s := newFake(t, func(req []byte) []byte {
		if n.Add(1) == 1 {
			time.Sleep(150 * time.Millisecond)
			return acceptFor(req, fakeSecret, "late")
		}
		return acceptFor(req, fakeSecret, "fresh")
	})
	s.async.Store(true)
	c, _ := NewClient(ClientConfig{Servers: []Server{{Name: "s", Auth: s.addr, Secret: fakeSecret}}, Timeout: 50 * time.Millisecond, Retries: -1, Sockets: 1, MaxSockets: 1})
	defer c.Close()
	if _, err := c.Authenticate(context.Background(), papReq()); !errors.Is(err, ErrNoServer) {
		t.Fatalf("want no answer, got %v", err)
	}
	time.Sleep(200 * time.Millisecond)
	if st := serverStats(c, "s", "auth"); st.Unmatched != 1 {
		t.Fatalf("late reply not counted: %+v", st)
	}
	res, err := c.Authenticate(context.Background(), papReq())
	if err != nil || res.FilterID != "fresh" {
		t.Fatalf("%+v %v", res, err)
	}
	c.Close()
	if _, err := c.Authenticate(context.Background(), papReq()); err == nil {
		t.Fatal("closed client still works")
	}
}

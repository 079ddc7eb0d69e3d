package aaa

import (
	"context"
	"crypto/md5"
	"fmt"
	"net/netip"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const frUsers = `alice	Cleartext-Password := "pw-alice"
	Framed-IP-Address = 100.64.0.10,
	Filter-Id = "gold",
	WISPr-Bandwidth-Max-Down = 100000000,
	WISPr-Bandwidth-Max-Up = 20000000,
	Class = "cls-alice",
	Class = 0x00ff01,
	Session-Timeout = 86400,
	Acct-Interim-Interval = 300,
	Idle-Timeout = 600,
	Reply-Message = "hello alice"
bob	Cleartext-Password := "pw-bob"
	Filter-Id = "bronze"
`

func frClient(t *testing.T, f *freeRADIUS) *Client {
	t.Helper()
	c, err := NewClient(ClientConfig{
		Servers:       []Server{f.server()},
		Timeout:       2 * time.Second,
		Retries:       1,
		NASIdentifier: "bng-test-1",
		NASIPAddress:  netip.MustParseAddr("127.0.0.1"),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestFreeRADIUSAccess(t *testing.T) {
	f := startFreeRADIUS(t, frUsers)
	c := frClient(t, f)
	ctx := context.Background()

	t.Run("PAP accept with reply attributes", func(t *testing.T) {
		res, err := c.Authenticate(ctx, &AccessRequest{
			UserName: "alice", PAPPassword: []byte("pw-alice"),
			NASPortID: "eth1/100/200", CallingStationID: "02:00:00:00:00:01",
			AcctSessionID: "sess-pap-1", CircuitID: "olt1 eth 1/1/1:100.200", RemoteID: "cpe-alice",
			ActualRateUp: 1000, ActualRateDown: 50000, FramedMTU: 1492,
		})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Accept || res.Server != "fr" {
			t.Fatalf("want accept from fr, got %+v", res)
		}
		if res.FramedIP != netip.MustParseAddr("100.64.0.10") || res.FilterID != "gold" ||
			res.RateDown != 100000000 || res.RateUp != 20000000 ||
			res.SessionTimeout != 86400*time.Second || res.InterimInterval != 300*time.Second ||
			res.IdleTimeout != 600*time.Second || res.ReplyMessage != "hello alice" {
			t.Fatalf("reply attributes: %+v", res)
		}
		if len(res.Class) != 2 || string(res.Class[0]) != "cls-alice" || string(res.Class[1]) != "\x00\xff\x01" {
			t.Fatalf("Class: %q", res.Class)
		}
		// What the server saw (its debug log prints the request).
		for _, want := range []string{
			`NAS-Port-Type = Ethernet`, `Service-Type = Framed-User`, `Framed-Protocol = PPP`,
			`NAS-Identifier = "bng-test-1"`, `NAS-IP-Address = 127.0.0.1`, `NAS-Port-Id = "eth1/100/200"`,
			`Calling-Station-Id = "02:00:00:00:00:01"`, `Acct-Session-Id = "sess-pap-1"`,
			`Framed-MTU = 1492`, `Actual-Data-Rate-Upstream = 1000000`, `Actual-Data-Rate-Downstream = 50000000`,
			`ADSL-Agent-Remote-Id = 0x6370652d616c696365`, `pap: User authenticated successfully`,
		} {
			if !f.logHas(want) {
				t.Errorf("server log lacks %q", want)
			}
		}
		if strings.Contains(f.Log(), "Insecure packet") {
			t.Error("server complained about a missing Message-Authenticator")
		}
	})

	t.Run("CHAP accept", func(t *testing.T) {
		chal := []byte("0123456789abcdef")
		id := uint8(7)
		h := md5.New()
		h.Write([]byte{id})
		h.Write([]byte("pw-bob"))
		h.Write(chal)
		res, err := c.Authenticate(ctx, &AccessRequest{UserName: "bob", CHAPID: id, CHAPChallenge: chal, CHAPResponse: h.Sum(nil)})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Accept || res.FilterID != "bronze" {
			t.Fatalf("want CHAP accept with Filter-Id bronze, got %+v", res)
		}
		if !f.logHas(`chap: CHAP user "bob" authenticated successfully`) {
			t.Error("server log does not show a CHAP authentication")
		}
		// Wrong CHAP response.
		bad := h.Sum(nil)
		bad[0] ^= 1
		res, err = c.Authenticate(ctx, &AccessRequest{UserName: "bob", CHAPID: id, CHAPChallenge: chal, CHAPResponse: bad})
		if err != nil || res.Accept {
			t.Fatalf("wrong CHAP response: %+v %v", res, err)
		}
	})

	t.Run("wrong password reject", func(t *testing.T) {
		before := c.Stats().Rejects
		res, err := c.Authenticate(ctx, &AccessRequest{UserName: "alice", PAPPassword: []byte("nope")})
		if err != nil {
			t.Fatal(err)
		}
		if res.Accept {
			t.Fatal("accepted a wrong password")
		}
		// attr_filter.access_reject strips the user's reply items.
		if res.FilterID != "" || res.FramedIP.IsValid() {
			t.Fatalf("reject carries accept items: %+v", res)
		}
		if c.Stats().Rejects != before+1 {
			t.Fatal("reject not counted")
		}
		res, err = c.Authenticate(ctx, &AccessRequest{UserName: "nobody", PAPPassword: []byte("x")})
		if err != nil || res.Accept {
			t.Fatalf("unknown user: %+v %v", res, err)
		}
	})

	st := c.Stats()
	for _, s := range st.Servers {
		if s.Kind == "auth" && (s.MissingMessageAuthenticator != 0 || s.BadMessageAuthenticator != 0 || s.BadAuthenticator != 0 || s.Timeouts != 0) {
			t.Fatalf("FreeRADIUS replies were dropped: %+v", s)
		}
	}
}

func TestFreeRADIUSAccounting(t *testing.T) {
	f := startFreeRADIUS(t, frUsers)
	c := frClient(t, f)
	ctx := context.Background()
	ip := netip.MustParseAddr("100.64.0.10")
	class := [][]byte{[]byte("cls-alice")}
	base := AcctRequest{SessionID: "acct-1", UserName: "alice", NASPortID: "eth1/100/200",
		CallingStationID: "02:00:00:00:00:01", FramedIP: ip, Class: class, CircuitID: "circ-1", RemoteID: "rem-1"}

	start := base
	start.Status = AcctStart
	start.EventTime = time.Now().Add(-3 * time.Second)
	if err := c.Account(ctx, &start); err != nil {
		t.Fatal(err)
	}
	interim := base
	interim.Status = AcctInterim
	interim.SessionTime = 300 * time.Second
	interim.InOctets, interim.OutOctets = 1<<32+5, 3<<32+7
	interim.InPackets, interim.OutPackets = 1000, 2000
	if err := c.Account(ctx, &interim); err != nil {
		t.Fatal(err)
	}
	stop := base
	stop.Status = AcctStop
	stop.SessionTime = 601 * time.Second
	stop.InOctets, stop.OutOctets = 12345, 5<<32
	stop.InPackets, stop.OutPackets = 1<<40, 3
	stop.TerminateCause = 1 // User-Request
	if err := c.Account(ctx, &stop); err != nil {
		t.Fatal(err)
	}

	recs := f.detailRecords(t)
	if len(recs) != 3 {
		t.Fatalf("want 3 detail records, got %d:\n%s", len(recs), strings.Join(recs, "\n---\n"))
	}
	has := func(rec string, lines ...string) {
		t.Helper()
		for _, l := range lines {
			if !regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(l) + `$`).MatchString(rec) {
				t.Errorf("record lacks %q:\n%s", l, rec)
			}
		}
	}
	common := []string{`Acct-Session-Id = "acct-1"`, `User-Name = "alice"`, `NAS-Port-Id = "eth1/100/200"`,
		`Calling-Station-Id = "02:00:00:00:00:01"`, `Framed-IP-Address = 100.64.0.10`, `Class = 0x636c732d616c696365`,
		`NAS-Identifier = "bng-test-1"`, `NAS-Port-Type = Ethernet`, `ADSL-Agent-Circuit-Id = 0x636972632d31`}
	has(recs[0], append(common, `Acct-Status-Type = Start`, `Acct-Delay-Time = 3`)...)
	has(recs[1], append(common, `Acct-Status-Type = Interim-Update`, `Acct-Session-Time = 300`,
		`Acct-Input-Octets = 5`, `Acct-Input-Gigawords = 1`, `Acct-Output-Octets = 7`, `Acct-Output-Gigawords = 3`,
		`Acct-Input-Packets = 1000`, `Acct-Output-Packets = 2000`)...)
	has(recs[2], append(common, `Acct-Status-Type = Stop`, `Acct-Session-Time = 601`, `Acct-Input-Octets = 12345`,
		`Acct-Input-Gigawords = 0`, `Acct-Output-Octets = 0`, `Acct-Output-Gigawords = 5`,
		`Acct-Input-Packets = 4294967295`, `Acct-Output-Packets = 3`, `Acct-Terminate-Cause = User-Request`)...)
	if strings.Contains(recs[0], "Acct-Terminate-Cause") || strings.Contains(recs[0], "Acct-Input-Octets") {
		t.Errorf("Start carries counters or a cause:\n%s", recs[0])
	}
	// Event-Timestamp of the Start is its event time.
	has(recs[0], `Event-Timestamp = "`+start.EventTime.UTC().Format("Jan _2 2006 15:04:05 UTC")+`"`)
}

// Many requests at once through a few sockets, and failover from a silent
// first server to FreeRADIUS.
func TestFreeRADIUSLoadAndFailover(t *testing.T) {
	f := startFreeRADIUS(t, frUsers)
	silent := newFake(t, func([]byte) []byte { return nil })
	c, err := NewClient(ClientConfig{
		Servers:  []Server{{Name: "silent", Auth: silent.addr, Acct: silent.addr, Secret: f.secret}, f.server()},
		Timeout:  200 * time.Millisecond,
		Retries:  1,
		Sockets:  2,
		DeadTime: time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	res, err := c.Authenticate(ctx, &AccessRequest{UserName: "bob", PAPPassword: []byte("pw-bob")})
	if err != nil || !res.Accept || res.Server != "fr" {
		t.Fatalf("failover: %+v %v", res, err)
	}
	if err := c.Account(ctx, &AcctRequest{Status: AcctStart, SessionID: "fo-1", UserName: "bob"}); err != nil {
		t.Fatal(err)
	}
	if silent.got.Load() != 4 {
		t.Fatalf("silent server got %d datagrams, want 2 auth + 2 acct", silent.got.Load())
	}

	// Load: a fresh client (the silent server is dead in c now anyway).
	c, err = NewClient(ClientConfig{Servers: []Server{f.server()}, Timeout: 2 * time.Second, Retries: 2, Sockets: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const N = 1500
	var wg sync.WaitGroup
	var fails atomic.Int64
	t0 := time.Now()
	for i := 0; i < N; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			u, pw := "alice", "pw-alice"
			if i%2 == 1 {
				u, pw = "bob", "pw-bob"
			}
			res, err := c.Authenticate(ctx, &AccessRequest{UserName: u, PAPPassword: []byte(pw), AcctSessionID: fmt.Sprint("load-", i)})
			if err != nil || !res.Accept {
				fails.Add(1)
			}
		}(i)
	}
	wg.Wait()
	d := time.Since(t0)
	st := serverStats(c, "fr", "auth")
	t.Logf("%d Access-Requests in %v (%.0f/s) through %d sockets; retransmits %d", N, d, N/d.Seconds(), st.Sockets, st.Retransmits)
	if fails.Load() != 0 || st.Sockets <= 2 || silent.got.Load() != 4 {
		t.Fatalf("%d failed; %+v; silent got %d", fails.Load(), st, silent.got.Load())
	}
}

package accel

import (
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// A message as the fork's redis module writes it: json-c's
// json_object_to_json_string() (spaced object), fields in the order of
// ap_redis_dequeue, pppoe_sessionid an integer.
const acctStart = `{ "event": "session-acct-start", "ctrl_type": "pppoe", "channel_name": "02:5b:00:00:00:07", ` +
	`"session_id": "4f1a2b3c4d5e6f70", "called_station_id": "vx1.100.7", "calling_station_id": "02:5b:00:00:00:07", ` +
	`"name": "pppoe", "username": "sub7@lab", "ip_addr": "100.80.0.7", "pppoe_sessionid": 263, ` +
	`"ctrl_ifname": "vx1.100.7", "nas_identifier": "bngpod-lab" }`

func TestParseRedis(t *testing.T) {
	ev, err := ParseRedis([]byte(acctStart))
	if err != nil {
		t.Fatal(err)
	}
	want := Event{Kind: Up, Name: "session-acct-start", SID: "4f1a2b3c4d5e6f70", CtrlIf: "vx1.100.7",
		MAC: [6]byte{2, 0x5b, 0, 0, 0, 7}, HasMAC: true, IPv4: netip.MustParseAddr("100.80.0.7"), PPPoESID: 263,
		Username: "sub7@lab"}
	if ev.Kind != want.Kind || ev.SID != want.SID || ev.CtrlIf != want.CtrlIf || ev.MAC != want.MAC ||
		ev.IPv4 != want.IPv4 || ev.PPPoESID != want.PPPoESID || ev.Username != want.Username {
		t.Fatalf("got %+v", ev)
	}
	// the end: the fork sends what it has; session_id is what matters
	ev, err = ParseRedis([]byte(`{ "event": "session-pre-finished", "ctrl_type": "pppoe", "session_id": "4f1a2b3c4d5e6f70", "ip_addr": "" }`))
	if err != nil || ev.Kind != Down || ev.SID != "4f1a2b3c4d5e6f70" {
		t.Fatalf("%+v %v", ev, err)
	}
	ev, err = ParseRedis([]byte(`{ "event": "session-authorized", "ctrl_type": "pppoe" }`))
	if err != nil || ev.Kind != Ignore {
		t.Fatalf("%+v %v", ev, err)
	}
	for _, c := range []struct{ msg, reason string }{
		{`not json`, "json"},
		{`{ "event": "session-acct-start" } {}`, "json"},
		{`{ "ctrl_type": "pppoe" }`, "no_event"},
		{`{ "event": "session-exploded" }`, "unknown_event"},
		{`{ "event": 7 }`, "json"},
		{strings.Replace(acctStart, `"ctrl_type": "pppoe"`, `"ctrl_type": "ipoe"`, 1), "not_pppoe"},
		{strings.Replace(acctStart, `"session_id": "4f1a2b3c4d5e6f70"`, `"session_id": "../x"`, 1), "session_id"},
		{strings.Replace(acctStart, `"calling_station_id": "02:5b:00:00:00:07"`, `"calling_station_id": "vx1.100.7:02:5b:00:00:00:07"`, 1), "calling_station_id"},
		{strings.Replace(acctStart, `"ip_addr": "100.80.0.7"`, `"ip_addr": ""`, 1), "ip_addr"},
		{strings.Replace(acctStart, `"ip_addr": "100.80.0.7"`, `"ip_addr": "2001:db8::7"`, 1), "ip_addr"},
		{strings.Replace(acctStart, `"pppoe_sessionid": 263`, `"pppoe_sessionid": 65535`, 1), "pppoe_sessionid"},
		{strings.Replace(acctStart, `"pppoe_sessionid": 263`, `"pppoe_sessionid": 2.5`, 1), "json"},
		{strings.Replace(acctStart, `, "pppoe_sessionid": 263`, ``, 1), "pppoe_sessionid"},
		{strings.Replace(acctStart, `"ctrl_ifname": "vx1.100.7", `, ``, 1), "ctrl_ifname"},
		{`{ "event": "session-acct-start", "x": "` + strings.Repeat("a", MaxEventSize) + `" }`, "too_long"},
	} {
		_, err := ParseRedis([]byte(c.msg))
		if !errors.Is(err, ErrEvent) || Reason(err) != c.reason {
			t.Errorf("%.80s: got %v (reason %s), want reason %s", c.msg, err, Reason(err), c.reason)
		}
	}
}

func TestParseHook(t *testing.T) {
	// pppd_compat.c fill_argv / fill_env, with called-sid=ifname
	args := []string{"ppp3", "none", "0", "10.200.0.1", "100.80.0.7", "02:5b:00:00:00:07"}
	env := map[string]string{"PEERNAME": "sub7@lab", "CALLING_SID": "02:5b:00:00:00:07", "CALLED_SID": "vx1.100.7"}
	ev, err := ParseHook("ip-pre-up", args, env)
	if err != nil || ev.Kind != Up || ev.PPPIf != "ppp3" || ev.CtrlIf != "vx1.100.7" || ev.IPv4 != netip.MustParseAddr("100.80.0.7") ||
		ev.MAC != [6]byte{2, 0x5b, 0, 0, 0, 7} || ev.Username != "sub7@lab" || ev.SID != "" || ev.PPPoESID != 0 {
		t.Fatalf("%+v %v", ev, err)
	}
	end := map[string]string{"CONNECT_TIME": "61", "BYTES_SENT": "1000", "BYTES_RCVD": "2000", "PACKETS_SENT": "10", "PACKETS_RCVD": "20"}
	for k, v := range env {
		end[k] = v
	}
	ev, err = ParseHook("ip-down", args, end)
	if err != nil || ev.Kind != Down || ev.Final == nil || ev.Final.BytesRcvd != 2000 || ev.Final.ConnectTime != 61 {
		t.Fatalf("%+v %v", ev, err)
	}
	for _, c := range []struct {
		script string
		args   []string
		env    map[string]string
		reason string
	}{
		{"ip-sideways", args, env, "unknown_script"},
		{"ip-pre-up", args[:5], env, "args"},
		{"ip-pre-up", []string{"ppp/3", "none", "0", "a", "b", "c"}, env, "ifname"},
		{"ip-pre-up", args, map[string]string{"CALLED_SID": "02:bb:00:00:00:01", "CALLING_SID": args[5]}, "called_sid"},
		{"ip-pre-up", args, map[string]string{"CALLED_SID": "vx1.100.7", "CALLING_SID": "02:5b:00:00:00:08"}, "calling_sid"},
		{"ip-pre-up", []string{"ppp3", "none", "0", "10.200.0.1", "0.0.0.0", "02:5b:00:00:00:07"}, env, "ip_addr"},
		{"ip-down", args, map[string]string{"CONNECT_TIME": "x"}, "counters"},
	} {
		_, err := ParseHook(c.script, c.args, c.env)
		if Reason(err) != c.reason {
			t.Errorf("%s %v %v: got %v, want %s", c.script, c.args, c.env, err, c.reason)
		}
	}
}

func TestParseIfname(t *testing.T) {
	i, s, c, err := ParseIfname("vx12.4094.1")
	if err != nil || i != 12 || s != 4094 || c != 1 {
		t.Fatal(i, s, c, err)
	}
	for _, bad := range []string{"vx1.100", "vx1.100.7.8", "eth0.100.7", "vx0.100.7", "vx1000.1.1", "vx1.4095.1",
		"vx1.0.1", "vx1.01.1", "vx1.-1.1", "vx.1.1", "vx1.100.7 "} {
		if _, _, _, err := ParseIfname(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	cfg := labConfig(t)
	w, err := Resolve(cfg, "vx2.210.33")
	if err != nil || w.Line.Group.Name != "lg2" || w.Port.Name != "access2" {
		t.Fatalf("%+v %v", w, err)
	}
	// an S-tag of another instance's line: unknown on this one
	if _, err := Resolve(cfg, "vx1.210.33"); Reason(err) != "unknown_line" {
		t.Fatal(err)
	}
	// the C-tag split of S-tag 300: instance 3 takes 1-1999 only
	if _, err := Resolve(cfg, "vx3.300.2000"); Reason(err) != "unknown_line" {
		t.Fatal(err)
	}
}

func TestParseSessions(t *testing.T) {
	rows := []Row{
		{"sid": "4f1a2b3c4d5e6f70", "ifname": "ppp0", "username": "a|b", "ip": "100.80.0.7",
			"calling-sid": "02:5b:00:00:00:07", "called-sid": "vx1.100.7", "state": "active"},
		{"sid": "0000000000000001", "ifname": "ppp12", "username": "", "ip": "", "calling-sid": "02:5b:00:00:00:08",
			"called-sid": "vx1.101.8", "state": "start"},
	}
	out := renderSessions(SessionColumns, rows)
	got, err := ParseSessions(out, SessionColumns)
	if err != nil || len(got) != 2 {
		t.Fatalf("%v\n%s", err, out)
	}
	for i := range rows {
		for k, v := range rows[i] {
			if got[i][k] != v {
				t.Errorf("row %d %s: %q, want %q", i, k, got[i][k], v)
			}
		}
	}
	// the empty table, and a hand-written one of accel-ppp's exact layout
	if got, err := ParseSessions(renderSessions(SessionColumns, nil), SessionColumns); err != nil || len(got) != 0 {
		t.Fatal(got, err)
	}
	exact := " sid | ifname \r\n-----+--------\r\n 1   | ppp0   \r\n"
	if got, err := ParseSessions(exact, []string{"sid", "ifname"}); err != nil || got[0]["sid"] != "1" || got[0]["ifname"] != "ppp0" {
		t.Fatal(got, err)
	}
	for _, bad := range []string{
		"", "unknown column sid\r\n", " sid | ifname \r\n", " sid | ifname\r\n-----+--------\r\n",
		" sid | ifname \n-----+--------\n", " sid | ifnam  \r\n-----+--------\r\n",
		" sid | ifname \r\n-----+--------\r\n 1   | ppp0\r\n", " sid | ifname \r\n-----+--------\r\n 1   x ppp0   \r\n",
		" sid | ifname \r\n-----+--------\r\n 1   | ppp0   ",
	} {
		if _, err := ParseSessions(bad, []string{"sid", "ifname"}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestCLIAgainstFake(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := newFakeAccel(t, ln)
	a.setPassword("pw")
	a.set(Row{"sid": "00000000000000aa", "ifname": "ppp0", "username": "u", "ip": "100.80.0.9",
		"calling-sid": "02:5b:00:00:00:09", "called-sid": "vx1.100.9", "state": "active"})
	c := &CLI{Addr: a.addr(), Password: "pw"}
	ctx := context.Background()
	rows, err := c.Sessions(ctx, SessionColumns)
	if err != nil || len(rows) != 1 || rows[0]["called-sid"] != "vx1.100.9" {
		t.Fatal(rows, err)
	}
	if _, err := c.Sessions(ctx, []string{"sid", "no-such"}); !errors.Is(err, ErrTable) {
		t.Fatal(err)
	}
	if err := c.Terminate(ctx, "00000000000000aa"); err != nil || len(a.terms()) != 1 {
		t.Fatal(err, a.terms())
	}
	if err := c.Terminate(ctx, "x y"); err == nil {
		t.Fatal("a session id with a space was sent")
	}
	// a wrong password: accel-ppp closes the connection without a word
	if out, err := (&CLI{Addr: a.addr(), Password: "nope"}).Do(ctx, "show sessions sid"); err != nil || out != "" {
		t.Fatal(out, err)
	}
	if _, err := (&CLI{Addr: a.addr(), Password: "nope"}).Sessions(ctx, SessionColumns); !errors.Is(err, ErrTable) {
		t.Fatal(err)
	}
}

func TestProcPPPoE(t *testing.T) {
	// pppoe_seq_show: "%08X %pM %8s\n" of the __be16 id: on a little-endian host
	// session id 0x0107 prints as 00000701
	in := "Id       Address              Device\n00000701 02:5b:00:00:00:07 vx1.100.7\n00000100 02:5b:00:00:00:08 vx1.100.8\n"
	socks, err := ParseProcPPPoE(strings.NewReader(in))
	if err != nil || len(socks) != 2 {
		t.Fatal(socks, err)
	}
	sid, err := FindPPPoESID(socks, [6]byte{2, 0x5b, 0, 0, 0, 7}, "vx1.100.7")
	if err != nil || sid != 0x0107 {
		t.Fatalf("%#x %v (little-endian host assumed by this table)", sid, err)
	}
	if _, err := FindPPPoESID(socks, [6]byte{2, 0x5b, 0, 0, 0, 7}, "vx1.100.8"); err == nil {
		t.Fatal("found on another device")
	}
	for _, bad := range []string{"", "Id Address\n", "Id       Address              Device\n0701 02:5b:00:00:00:07 vx1\n",
		"Id       Address              Device\n00010000 02:5b:00:00:00:07 vx1\n",
		"Id       Address              Device\n00000701 02:5b:00:00:00 vx1\n"} {
		if _, err := ParseProcPPPoE(strings.NewReader(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestRadattr(t *testing.T) {
	// write_radattr: dictionary names; %i for integers (a value above 2^31-1 prints negative)
	in := "User-Name sub7@lab\nFramed-IP-Address 100.80.0.7\nFilter-Id gold\nWISPr-Bandwidth-Max-Up 20000000\n" +
		"WISPr-Bandwidth-Max-Down -294967296\nClass 0A0B\nSession-Timeout 3600\n"
	a, err := ParseRadattr(strings.NewReader(in))
	if err != nil || a.FilterID != "gold" || a.UpBPS != 20_000_000 || a.DownBPS != 4_000_000_000 || len(a.Class) != 1 || a.Class[0][1] != 0x0b {
		t.Fatalf("%+v %v", a, err)
	}
	for _, bad := range []string{"WISPr-Bandwidth-Max-Up fast\n", "Class 0G\n", "Filter-Id \n", "WISPr-Bandwidth-Max-Down 4294967296\n"} {
		if _, err := ParseRadattr(strings.NewReader(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestHookSocketHostile(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "hook.sock")
	var mu sync.Mutex
	var refused []string
	handled := 0
	hs, err := ListenHook(sock, func(ctx context.Context, ev Event) error {
		mu.Lock()
		handled++
		mu.Unlock()
		return nil
	}, func(err error) {
		mu.Lock()
		refused = append(refused, Reason(err))
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { hs.Serve(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v %v", fi, err)
	}
	for _, req := range []string{"not json\n", strings.Repeat("x", MaxEventSize+10) + "\n", "{\"script\": 5}\n",
		"{\"script\": \"ip-down\", \"args\": [\"ppp0\"]}\n", "no newline"} {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = c.Write([]byte(req))
		if req == "no newline" {
			c.(*net.UnixConn).CloseWrite()
		}
		b, _ := io.ReadAll(c)
		c.Close()
		if !strings.HasPrefix(string(b), "error: ") {
			t.Errorf("%.30q: answered %q", req, b)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if handled != 0 || strings.Join(refused, ",") != "hook_request,hook_request,hook_request,args,hook_request" {
		t.Fatalf("handled %d, refused %v", handled, refused)
	}
}

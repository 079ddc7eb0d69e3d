package accel

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// FuzzEvent feeds random messages to the redis path of a glue (parser, line
// resolution, store, user plane): never a panic, every refusal counted.
func FuzzEvent(f *testing.F) {
	f.Add([]byte(acctStart))
	f.Add([]byte(`{ "event": "session-pre-finished", "session_id": "4f1a2b3c4d5e6f70" }`))
	f.Add([]byte(`{ "event": "coa", "session_id": "4f1a2b3c4d5e6f70", "ip_addr": "" }`))
	f.Add([]byte(`{"event":"session-acct-start","ctrl_type":"pppoe","session_id":"1","calling_station_id":"02:00:00:00:00:01","ip_addr":"100.80.0.1","pppoe_sessionid":1,"ctrl_ifname":"vx1.100.1"}`))
	cfg := labConfig(f)
	f.Fuzz(func(t *testing.T, msg []byte) {
		db := newMemStore()
		g, err := New(Options{Config: cfg, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, newFakePlane(), nil, nil, db)
		if err != nil {
			t.Fatal(err)
		}
		before := len(g.Counts())
		g.Redis(context.Background(), msg)
		g.Redis(context.Background(), msg)
		if _, err := ParseRedis(msg); err != nil && len(g.Counts()) == before {
			t.Fatalf("refused but not counted: %v", err)
		}
	})
}

// FuzzHook: random script calls through the hook parser.
func FuzzHook(f *testing.F) {
	f.Add("ip-pre-up", "ppp3\x00none\x000\x0010.200.0.1\x00100.80.0.7\x0002:5b:00:00:00:07", "CALLED_SID=vx1.100.7\x00CALLING_SID=02:5b:00:00:00:07")
	f.Add("ip-down", "ppp3\x00none\x000\x000.0.0.0\x000.0.0.0\x00", "CONNECT_TIME=1\x00BYTES_SENT=-1")
	f.Fuzz(func(t *testing.T, script, args, env string) {
		m := map[string]string{}
		for _, kv := range strings.Split(env, "\x00") {
			k, v, _ := strings.Cut(kv, "=")
			m[k] = v
		}
		ev, err := ParseHook(script, strings.Split(args, "\x00"), m)
		if err == nil && ev.Kind == Up && (!ev.HasMAC || !ev.IPv4.Is4() || !validIfname(ev.CtrlIf)) {
			t.Fatalf("accepted an incomplete up: %+v", ev)
		}
	})
}

// FuzzCLI: random answers to `show sessions`.
func FuzzCLI(f *testing.F) {
	f.Add(renderSessions(SessionColumns, []Row{{"sid": "1", "ifname": "ppp0", "state": "active"}}))
	f.Add(" sid | ifname \r\n-----+--------\r\n 1   | ppp0   \r\n")
	f.Add("unknown column x\r\n")
	f.Fuzz(func(t *testing.T, out string) {
		rows, err := ParseSessions(out, SessionColumns)
		if err == nil {
			for _, r := range rows {
				if len(r) != len(SessionColumns) {
					t.Fatalf("row %v", r)
				}
			}
		}
		_, _ = ParseSessions(out, []string{"sid", "ifname"})
	})
}

// FuzzRESP: random bytes from "redis".
func FuzzRESP(f *testing.F) {
	f.Add([]byte("*3\r\n$7\r\nmessage\r\n$9\r\naccel-ppp\r\n$2\r\n{}\r\n"))
	f.Add([]byte("*3\r\n$9\r\nsubscribe\r\n$9\r\naccel-ppp\r\n:1\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bufio.NewReader(bytes.NewReader(b))
		for i := 0; i < 64; i++ {
			if _, err := readRESP(r, 0); err != nil {
				return
			}
		}
	})
}

// FuzzProcAndRadattr: the two files the glue reads.
func FuzzProcAndRadattr(f *testing.F) {
	f.Add("Id       Address              Device\n00000701 02:5b:00:00:00:07 vx1.100.7\n")
	f.Add("Filter-Id gold\nWISPr-Bandwidth-Max-Up -1\nClass 0A\n")
	f.Fuzz(func(t *testing.T, s string) {
		if socks, err := ParseProcPPPoE(strings.NewReader(s)); err == nil {
			for _, k := range socks {
				if !validIfname(k.Device) {
					t.Fatalf("%+v", k)
				}
			}
		}
		_, _ = ParseRadattr(strings.NewReader(s))
	})
}

// memStore is the Store seam in memory (for the fuzzer: no file per input).
type memStore struct {
	b map[string]map[string][]byte
	n uint64
}

func newMemStore() *memStore { return &memStore{b: map[string]map[string][]byte{}} }

func (m *memStore) Put(bucket, key string, val []byte) error {
	if m.b[bucket] == nil {
		m.b[bucket] = map[string][]byte{}
	}
	m.b[bucket][key] = append([]byte(nil), val...)
	return nil
}
func (m *memStore) Delete(bucket, key string) error { delete(m.b[bucket], key); return nil }
func (m *memStore) ForEach(bucket string, fn func(key string, val []byte) error) error {
	for k, v := range m.b[bucket] {
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return nil
}
func (m *memStore) NextCounter(name string) (uint64, error) { m.n++; return m.n, nil }

package core

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/aaa"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/config"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/onos"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/ppp"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pppoe"
)

// sebaDaemon is a Daemon whose ONOS client read the Java app's subscribers
// table (tests/contract/onos/seba-subscribers.json).
func sebaDaemon(t *testing.T) (*Daemon, *prometheus.Registry) {
	t.Helper()
	raw, err := os.ReadFile("../../../tests/contract/onos/seba-subscribers.json")
	if err != nil {
		t.Fatal(err)
	}
	var ex struct {
		Body json.RawMessage `json:"body"`
	}
	if err := json.Unmarshal(raw, &ex); err != nil {
		t.Fatal(err)
	}
	return sebaDaemonWith(t, ex.Body)
}

// sebaDaemonWith is a Daemon whose ONOS client read body as the subscribers table.
func sebaDaemonWith(t *testing.T, body []byte) (*Daemon, *prometheus.Registry) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/onos/bngpod-seba/subscribers" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	base, _ := url.Parse(srv.URL + "/onos/bngpod")
	c, err := onos.New(onos.Config{URL: base, CPName: "cp1",
		Snapshot: func(context.Context) ([]onos.Session, error) { return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	if err := c.NewSubscribers(0, reg).Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	return &Daemon{onos: c, log: slog.Default(), blog: newBurstLog(slog.Default(), time.Second)}, reg
}

// SADIS's identity goes into the record; a TR-101 tag that disagrees loses
// (counted), one that fills a field SADIS leaves empty is kept; NAS-Port-Id
// is SADIS's, else the line's own name.
func TestSubscriberIdentityPrecedence(t *testing.T) {
	d, reg := sebaDaemon(t)
	conflicts := func() float64 {
		mfs, _ := reg.Gather()
		n := 0.0
		for _, mf := range mfs {
			if mf.GetName() == "bngcp_onos_subscriber_conflicts_total" {
				for _, m := range mf.GetMetric() {
					n += m.GetCounter().GetValue()
				}
			}
		}
		return n
	}

	r := record{AccessPort: "access1", STag: 100, CTag: 900}
	d.applySubscriber(&r)
	if r.CircuitID != "olt1 eth 0/1:1.1" || r.RemoteID != "cpe-1" || r.nasPort() != "BBSM00000001-1" {
		t.Fatalf("no tag: %+v", r)
	}

	r = record{AccessPort: "access1", STag: 100, CTag: 900, CircuitID: "forged", RemoteID: "cpe-1"}
	d.applySubscriber(&r)
	if r.CircuitID != "olt1 eth 0/1:1.1" || r.RemoteID != "cpe-1" || conflicts() != 1 {
		t.Fatalf("tag disagreeing on the circuit id: %+v, %v conflicts", r, conflicts())
	}

	// access1/100/901: SADIS has a remote id only, no nasPortId.
	r = record{AccessPort: "access1", STag: 100, CTag: 901, CircuitID: "from-tag"}
	d.applySubscriber(&r)
	if r.CircuitID != "from-tag" || r.RemoteID != "Zürich-2" || r.nasPort() != "access1:100.901" {
		t.Fatalf("SADIS without circuit id and nasPortId: %+v %q", r, r.nasPort())
	}

	r = record{AccessPort: "access1", STag: 100, CTag: 999, CircuitID: "tag", RemoteID: "tag-r"}
	d.applySubscriber(&r)
	if r.CircuitID != "tag" || r.RemoteID != "tag-r" || r.nasPort() != "access1:100.999" || conflicts() != 1 {
		t.Fatalf("a line SEBA does not map: %+v", r)
	}

	// The identity survives the store (accounting after a CP restart).
	r = record{AccessPort: "access1", STag: 100, CTag: 900}
	d.applySubscriber(&r)
	var back record
	if err := json.Unmarshal(r.marshal(), &back); err != nil || back.nasPort() != "BBSM00000001-1" ||
		back.CircuitID != r.CircuitID || back.RemoteID != r.RemoteID {
		t.Fatalf("round trip: %+v %v", back, err)
	}
}

// SADIS's peak rates become the session's unless the Access-Accept names a
// QoS profile (Filter-Id) or gives a rate itself.
func TestSubscriberRates(t *testing.T) {
	d, _ := sebaDaemon(t)
	for _, c := range []struct {
		name                 string
		ctag                 uint16
		res                  aaa.AccessResult
		wantDown, wantUp     uint64
		radiusDown, radiusUp uint64
	}{
		{name: "both profiles", ctag: 900, wantDown: 300_000_000, wantUp: 230_000_000},
		{name: "RADIUS down rate", ctag: 900, radiusDown: 50_000_000, wantDown: 50_000_000, wantUp: 230_000_000},
		{name: "Filter-Id", ctag: 900, res: aaa.AccessResult{FilterID: "gold"}},
		{name: "upstream profile only", ctag: 901, wantUp: 32_000_000},
		{name: "no profiles", ctag: 7},
		{name: "unmapped line", ctag: 999},
	} {
		port, stag := "access1", uint16(100)
		if c.ctag == 7 {
			port, stag = "access3", 300
		}
		r := record{AccessPort: port, STag: stag, CTag: c.ctag, RateDown: c.radiusDown, RateUp: c.radiusUp}
		res := c.res
		d.subscriberRates(&r, &res)
		if r.RateDown != c.wantDown || r.RateUp != c.wantUp {
			t.Errorf("%s: rates %d/%d, want %d/%d", c.name, r.RateDown, r.RateUp, c.wantDown, c.wantUp)
		}
	}
	// Without ONOS nothing changes.
	r := record{AccessPort: "access1", STag: 100, CTag: 900}
	(&Daemon{}).subscriberRates(&r, &aaa.AccessResult{})
	(&Daemon{}).applySubscriber(&r)
	if r.RateDown != 0 || r.CircuitID != "" || r.nasPort() != "access1:100.900" {
		t.Fatalf("no ONOS: %+v", r)
	}
}

// A subscriber dials on a line SEBA maps: its Accounting-Start carries
// SADIS's NAS-Port-Id and circuit id (the PADR's TR-101 tag disagreeing is
// overruled) and the tag's remote id where SADIS has none; its rates are the
// SADIS profiles'. A line SEBA does not map keeps the line's own name.
func TestDialWithSebaIdentity(t *testing.T) {
	table := `{"subscribers":[{"accessPort":"access1","stag":100,"ctag":2,"lineGroup":"lg1",
	  "uni":{"deviceId":"of:00000000000000a1","port":"256","name":"BBSM00000001-1"},"onuSerial":"BBSM00000001",
	  "serviceName":"hsia","circuitId":"olt1 eth 0/1:1.1","remoteId":"","nasPortId":"BBSM00000001-1",
	  "down":{"profile":"User_Bandwidth2","rate":30000000,"guaranteed":10000000,"peakBurst":1,"committedBurst":1},
	  "up":{"profile":"User_Bandwidth1","rate":5000000,"guaranteed":1000000,"peakBurst":1,"committedBurst":1}}],
	  "problems":[]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/onos/bngpod-seba/subscribers" {
			_, _ = w.Write([]byte(table))
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	p := newTestPod(t, func(o *Options) {
		u, _ := url.Parse(srv.URL + "/onos/bngpod")
		o.Config.ONOS = &config.ONOS{URL: u, CPName: "cp1", PollInterval: time.Second, Timeout: 2 * time.Second}
	}, nil)
	p.waitFor("the subscribers table", 5*time.Second, func() bool { return p.d.onos.Subscribers().Len() == 1 })

	start := func(n int64) *aaa.AcctRequest {
		t.Helper()
		var r *aaa.AcctRequest
		p.waitFor("Accounting-Start", 3*time.Second, func() bool {
			v, ok := p.acct.reqs.Load(aaa.AcctStart)
			if ok {
				r = v.(*aaa.AcctRequest)
			}
			return ok && r.SessionID != "" && n == int64(len(p.sessions()))
		})
		return r
	}
	c := p.client(1) // S-tag 100, C-tag 2
	c.padTags = pppoe.AppendTag(nil, pppoe.TagVendorSpecific,
		pppoe.AppendAccessLine(nil, &pppoe.AccessLine{CircuitID: "forged", RemoteID: "cpe-from-tag"}))
	v := c.dial()
	if v.RateDown != 30_000_000 || v.RateUp != 5_000_000 || v.CircuitID != "olt1 eth 0/1:1.1" ||
		v.RemoteID != "cpe-from-tag" {
		t.Fatalf("session %+v", v)
	}
	r := start(1)
	if r.NASPortID != "BBSM00000001-1" || r.CircuitID != "olt1 eth 0/1:1.1" || r.RemoteID != "cpe-from-tag" {
		t.Fatalf("Accounting-Start %+v", r)
	}

	c2 := p.client(5) // C-tag 6: not in the table
	v2 := c2.dial()
	if v2.RateDown != 0 || v2.RateUp != 0 || v2.CircuitID != "" {
		t.Fatalf("unmapped line: %+v", v2)
	}
	p.waitFor("the second Accounting-Start", 3*time.Second, func() bool {
		v, ok := p.acct.reqs.Load(aaa.AcctStart)
		return ok && v.(*aaa.AcctRequest).SessionID == v2.AcctSessionID
	})
	last, _ := p.acct.reqs.Load(aaa.AcctStart)
	if r := last.(*aaa.AcctRequest); r.NASPortID != "access1:100.6" {
		t.Fatalf("unmapped line's NAS-Port-Id %q", r.NASPortID)
	}
}

// The SEBA app's teardown requests end the line's sessions: Lost-Carrier
// and Admin-Reset as the Accounting-Stop's cause, a PADT to the subscriber
// (after an LCP Terminate-Request for Admin-Reset),
// the DP's session deleted; a request older than a session leaves it up,
// and another line's session stays.
func TestSebaTeardownRequests(t *testing.T) {
	var teardowns atomic.Value
	teardowns.Store(`{"version":0,"teardowns":[]}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/onos/bngpod-seba/teardowns" {
			_, _ = w.Write([]byte(teardowns.Load().(string)))
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	p := newTestPod(t, func(o *Options) {
		u, _ := url.Parse(srv.URL + "/onos/bngpod")
		o.Config.ONOS = &config.ONOS{URL: u, CPName: "cp1", PollInterval: 100 * time.Millisecond, Timeout: 2 * time.Second}
	}, nil)
	before := time.Now().UTC()
	c1, c2, c3 := p.client(1), p.client(2), p.client(3) // C-tags 2, 3, 4
	for _, c := range []*client{c1, c2, c3} {
		c.dial()
	}
	req := func(v int, ctag uint16, cause string, at time.Time) string {
		return fmt.Sprintf(`{"version":%d,"accessPort":"access1","stag":100,"ctag":%d,"uni":"BBSM0000000%d-1",`+
			`"cause":%q,"at":%q}`, v, ctag, v, cause, at.Format(time.RFC3339Nano))
	}
	// Version 1 is older than every session (the UNI went down before they dialled): nothing ends.
	teardowns.Store(`{"version":1,"teardowns":[` + req(1, 2, onos.CauseLostCarrier, before.Add(-time.Second)) + `]}`)
	time.Sleep(500 * time.Millisecond)
	if n := len(p.sessions()); n != 3 {
		t.Fatalf("a request older than the sessions ended some: %d left", n)
	}
	now := time.Now().UTC()
	teardowns.Store(`{"version":3,"teardowns":[` + req(1, 2, onos.CauseLostCarrier, before.Add(-time.Second)) + `,` +
		req(2, 2, onos.CauseLostCarrier, now) + `,` + req(3, 3, onos.CauseAdminReset, now) + `]}`)
	p.waitFor("two Accounting-Stops", 5*time.Second, func() bool { return p.acct.stops.Load() == 2 })
	log := strings.Join(p.log.snapshot(), "\n")
	for _, want := range []string{fmt.Sprintf("cause %d", causeLostCarrier), fmt.Sprintf("cause %d", causeAdminReset)} {
		if !strings.Contains(log, want) {
			t.Errorf("no Stop with %s:\n%s", want, log)
		}
	}
	p.waitFor("the DP's sessions deleted", 3*time.Second, func() bool { return p.plane.deletes.Load() == 2 })
	left := p.sessions()
	if len(left) != 1 || left[0].CTag != 4 {
		t.Fatalf("sessions left %+v, want c3's (C-tag 4)", left)
	}
	// Both ended sessions got a PADT; the Admin-Reset one an LCP
	// Terminate-Request before it (a lost carrier's subscriber is gone:
	// closing.go sends it no Terminate); c3 got neither.
	termReq, padt := map[uint16]bool{}, map[uint16]bool{}
	deadline := time.Now().Add(15 * time.Second)
	for (len(padt) < 2) && time.Now().Before(deadline) {
		r, ok := p.recv(time.Until(deadline))
		if !ok {
			break
		}
		switch {
		case r.is(ppp.ProtoLCP, ppp.CodeTermReq):
			termReq[r.f.CTag] = true
		case r.isPADT():
			padt[r.f.CTag] = true
		}
	}
	if termReq[c1.ctag] || !termReq[c2.ctag] || !padt[c1.ctag] || !padt[c2.ctag] || termReq[c3.ctag] || padt[c3.ctag] {
		t.Fatalf("Terminate-Requests on C-tags %v, PADTs on %v; want a Terminate on %d, PADTs on %d and %d only",
			termReq, padt, c2.ctag, c1.ctag, c2.ctag)
	}
}

// SADIS's guaranteed rates reach the DP where its QER can carry them: the
// upstream guaranteed rate (cir+gir) as GBR UL (the policer's CIR) beside the
// peak rate as MBR UL; downstream the peak rate only. The Java app's
// profiles of both styles (MEF User_Bandwidth1, IETF Default: the contract
// file), a profile without a guaranteed rate, a hostile guaranteed rate above
// the peak, and rates RADIUS gives.
func TestSubscriberGuaranteedRates(t *testing.T) {
	cfgText, err := os.ReadFile("../config/testdata/valid.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse(cfgText)
	if err != nil {
		t.Fatal(err)
	}
	gold, _ := cfg.QosProfile("gold") // up_pir 50 Mbit/s, up_cir 20 Mbit/s
	line := func(ctag int, up string) string {
		return fmt.Sprintf(`{"accessPort":"access1","stag":100,"ctag":%d,"lineGroup":"lg1",`+
			`"uni":{"deviceId":"of:1","port":"1","name":"BBSM00000001-1"},"onuSerial":"BBSM00000001",`+
			`"serviceName":"hsia","circuitId":"","remoteId":"","nasPortId":"","up":%s}`, ctag, up)
	}
	raw, err := os.ReadFile("../../../tests/contract/onos/seba-subscribers.json")
	if err != nil {
		t.Fatal(err)
	}
	var contract struct {
		Body struct {
			Subscribers []json.RawMessage `json:"subscribers"`
		} `json:"body"`
	}
	if err := json.Unmarshal(raw, &contract); err != nil {
		t.Fatal(err)
	}
	lines := []string{string(contract.Body.Subscribers[0]), string(contract.Body.Subscribers[1]),
		// MEF with eir only (cir 0, gir 0): no guaranteed rate
		line(902, `{"profile":"eir-only","rate":100000000,"guaranteed":0,"peakBurst":12500,"committedBurst":0}`),
		// not what the app sends: a guaranteed rate above the peak
		line(903, `{"profile":"bad","rate":10000000,"guaranteed":40000000,"peakBurst":1,"committedBurst":1}`)}
	d, _ := sebaDaemonWith(t, []byte(`{"subscribers":[`+strings.Join(lines, ",")+`],"problems":[]}`))
	d.cfg = cfg
	for _, c := range []struct {
		name              string
		ctag              uint16
		radiusUp          uint64
		filterID          string
		upMBR, upGBR, dMB uint64
		dGBR              uint64
	}{
		{name: "MEF User_Bandwidth1 up, User_Bandwidth2 down", ctag: 900, upMBR: 230_000_000, upGBR: 30_000_000, dMB: 300_000_000,
			dGBR: 100_000_000},
		{name: "IETF Default up, no down profile", ctag: 901, upMBR: 32_000_000, upGBR: 600_000},
		{name: "no guaranteed rate: the QoS profile's CIR", ctag: 902, upMBR: 100_000_000, upGBR: gold.UpCIR},
		{name: "guaranteed above the peak: ignored", ctag: 903, upMBR: 10_000_000, upGBR: 10_000_000},
		{name: "RADIUS upstream rate: no SADIS guarantee up, SADIS's down", ctag: 900, radiusUp: 40_000_000,
			upMBR: 40_000_000, upGBR: gold.UpCIR, dMB: 300_000_000, dGBR: 100_000_000},
		{name: "Filter-Id: the profile's", ctag: 900, filterID: "gold"},
		{name: "unmapped line", ctag: 999},
	} {
		r := record{AccessPort: "access1", STag: 100, CTag: c.ctag, QosProfile: "gold", RateUp: c.radiusUp}
		d.subscriberRates(&r, &aaa.AccessResult{FilterID: c.filterID})
		ps := d.pfcpSession(&r)
		if ps.UpMBR != c.upMBR || ps.UpGBR != c.upGBR || ps.DownMBR != c.dMB || ps.DownGBR != c.dGBR {
			t.Errorf("%s: QER MBR UL %d GBR UL %d MBR DL %d GBR DL %d, want %d %d %d %d", c.name,
				ps.UpMBR, ps.UpGBR, ps.DownMBR, ps.DownGBR, c.upMBR, c.upGBR, c.dMB, c.dGBR)
		}
		// the guarantee survives the store (a CP restart re-establishes with it)
		var back record
		if err := json.Unmarshal(r.marshal(), &back); err != nil || d.pfcpSession(&back).UpGBR != ps.UpGBR ||
			d.pfcpSession(&back).DownGBR != ps.DownGBR {
			t.Errorf("%s: round trip %+v %v", c.name, back, err)
		}
	}
}

// Strict admission (onos.seba_strict): before any table is read no PADI is
// answered; then only lines the table maps dial; a PADI flood from lines it
// does not map (many MACs) is dropped and counted, answered with nothing and
// leaves no state in the shards; a subscriber gone from the table between
// PADO and PADR gets no session.
func TestSebaStrictAdmission(t *testing.T) {
	line := func(ctag int) string {
		return fmt.Sprintf(`{"accessPort":"access1","stag":100,"ctag":%d,"lineGroup":"lg1",`+
			`"uni":{"deviceId":"of:00000000000000a1","port":"%d","name":"BBSM0000000%d-1"},"onuSerial":"BBSM0000000%d",`+
			`"serviceName":"hsia","circuitId":"","remoteId":"","nasPortId":""}`, ctag, 255+ctag, ctag, ctag)
	}
	var table atomic.Value
	table.Store("") // 503 until set
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/onos/bngpod-seba/subscribers" {
			if v := table.Load().(string); v != "" {
				_, _ = w.Write([]byte(v))
				return
			}
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	p := newTestPod(t, func(o *Options) {
		u, _ := url.Parse(srv.URL + "/onos/bngpod")
		o.Config.ONOS = &config.ONOS{URL: u, CPName: "cp1", PollInterval: time.Second, Timeout: 2 * time.Second,
			SebaStrict: true}
	}, nil)
	subs := p.d.onos.Subscribers()
	noTable := p.d.m.drops.WithLabelValues("seba_no_table")
	notProv := p.d.m.drops.WithLabelValues("seba_not_provisioned")
	padi := func(c *client) {
		tags := pppoe.AppendTag(nil, pppoe.TagServiceName, nil)
		p.send(c.discovery(pppoe.CodePADI, pppoe.AppendTag(tags, pppoe.TagHostUniq, c.hostUniq)))
	}
	// shardState counts the admission buckets and sessions of every shard, read on the shards' goroutines.
	shardState := func() (buckets, sessions int) {
		for _, sh := range p.d.shards {
			done := make(chan [2]int)
			sh.post(func() { done <- [2]int{len(sh.padi) + len(sh.padiLine), len(sh.sessions)} })
			v := <-done
			buckets += v[0]
			sessions += v[1]
		}
		return
	}

	c1, c2 := p.client(1), p.client(2) // C-tags 2 and 3
	padi(c1)
	p.waitFor("the drop before any table", 3*time.Second, func() bool { return counterValue(noTable) == 1 })
	p.quiet("PADI before the table", 200*time.Millisecond)

	table.Store(`{"subscribers":[` + line(2) + `,` + line(3) + `],"problems":[]}`)
	if err := subs.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	c1.dial()

	// A flood from 2,000 MACs on 500 lines the table does not map.
	const flood = 2000
	for i := 0; i < flood; i++ {
		c := p.client(100 + i)
		c.ctag = uint16(100 + i%500)
		c.mac[3] = byte(i >> 8)
		padi(c)
	}
	p.waitFor("the flood counted", 10*time.Second, func() bool { return counterValue(notProv) == flood })
	p.quiet("PADIs from lines SEBA does not map", 200*time.Millisecond)
	if b, s := shardState(); b != 2 || s != 1 { // c1's MAC bucket and line bucket, its session
		t.Fatalf("after the flood: %d admission buckets, %d sessions; want 2 and 1", b, s)
	}

	// c2 gets its PADO, then leaves SADIS before its PADR.
	tags := pppoe.AppendTag(nil, pppoe.TagServiceName, nil)
	tags = pppoe.AppendTag(tags, pppoe.TagHostUniq, c2.hostUniq)
	p.send(c2.discovery(pppoe.CodePADI, tags))
	pado := p.expect("PADO", 2*time.Second, func(r rxFrame) bool {
		return r.f.EtherType == pppoe.EtherTypeDiscovery && r.f.Code == pppoe.CodePADO && r.f.CTag == c2.ctag
	})
	pt, err := pppoe.ParseTags(pado.f.Payload)
	if err != nil {
		t.Fatal(err)
	}
	table.Store(`{"subscribers":[` + line(2) + `],"problems":[]}`)
	if err := subs.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	p.send(c2.discovery(pppoe.CodePADR, pppoe.AppendTag(tags, pppoe.TagACCookie, pt.ACCookie)))
	p.waitFor("the PADR dropped", 3*time.Second, func() bool { return counterValue(notProv) == flood+1 })
	p.quiet("PADR from a line that left SADIS", 200*time.Millisecond)
	if _, s := shardState(); s != 1 || len(p.sessions()) != 1 {
		t.Fatalf("%d sessions after the refused PADR, want c1's only", s)
	}
	// A failed pull keeps the last table: c1's line still dials (a new PADI is answered).
	table.Store("")
	_ = subs.Pull(context.Background())
	padi(p.client(1))
	p.expect("PADO after a failed pull", 2*time.Second, func(r rxFrame) bool {
		return r.f.EtherType == pppoe.EtherTypeDiscovery && r.f.Code == pppoe.CodePADO && r.f.CTag == c1.ctag
	})
}

// Without strict mode a line SEBA does not map dials as before (the table
// gives identities only).
func TestSebaAdmissionNotStrict(t *testing.T) {
	d := &Daemon{}
	if ok, why := d.provisioned(lineKey{port: "access1", stag: 100, ctag: 5}); !ok || why != "" {
		t.Fatalf("no ONOS: %v %q", ok, why)
	}
	d, _ = sebaDaemon(t)
	d.cfg = &config.Config{ONOS: &config.ONOS{}}
	if ok, _ := d.provisioned(lineKey{port: "access1", stag: 100, ctag: 999}); !ok {
		t.Fatal("strict off: an unmapped line refused")
	}
	d.cfg.ONOS.SebaStrict = true
	if ok, why := d.provisioned(lineKey{port: "access1", stag: 100, ctag: 999}); ok || why != "seba_not_provisioned" {
		t.Fatalf("strict: unmapped line %v %q", ok, why)
	}
	if ok, _ := d.provisioned(lineKey{port: "access1", stag: 100, ctag: 900}); !ok {
		t.Fatal("strict: a mapped line refused")
	}
}

// The PPPoE steps SEBA's bng.pppoe shows and session reports do not carry
// reach the SEBA app: SESSION_INIT at the PADO (session id 0), AUTH_SUCCESS
// at the PAP Ack and AUTH_FAILURE at the PAP Nak (with the session id), each
// with the line and the subscriber's MAC; nothing for a line the table does
// not map.
func TestSebaPppoeEvents(t *testing.T) {
	table := `{"subscribers":[` +
		`{"accessPort":"access1","stag":100,"ctag":2,"lineGroup":"lg1","uni":{"deviceId":"of:1","port":"256","name":"BBSM00000001-1"},` +
		`"onuSerial":"BBSM00000001","serviceName":"hsia","circuitId":"","remoteId":"","nasPortId":""},` +
		`{"accessPort":"access1","stag":100,"ctag":3,"lineGroup":"lg1","uni":{"deviceId":"of:1","port":"257","name":"BBSM00000002-1"},` +
		`"onuSerial":"BBSM00000002","serviceName":"hsia","circuitId":"","remoteId":"","nasPortId":""}],"problems":[]}`
	var mu sync.Mutex
	var events []onos.PppoeEvent
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/onos/bngpod-seba/subscribers":
			_, _ = w.Write([]byte(table))
		case r.Method == http.MethodPost && r.URL.Path == "/onos/bngpod-seba/pppoe-events":
			var body struct{ Events []onos.PppoeEvent }
			if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			mu.Lock()
			events = append(events, body.Events...)
			mu.Unlock()
			_, _ = fmt.Fprintf(w, `{"posted":%d,"unmapped":0,"refused":[]}`, len(body.Events))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	p := newTestPod(t, func(o *Options) {
		u, _ := url.Parse(srv.URL + "/onos/bngpod")
		o.Config.ONOS = &config.ONOS{URL: u, CPName: "cp1", PollInterval: time.Second, Timeout: 2 * time.Second}
	}, nil)
	p.waitFor("the subscribers table", 5*time.Second, func() bool { return p.d.onos.Subscribers().Len() == 2 })
	got := func() []onos.PppoeEvent {
		mu.Lock()
		defer mu.Unlock()
		return append([]onos.PppoeEvent(nil), events...)
	}

	c1 := p.client(1) // C-tag 2: dials
	c1.dial()
	p.client(5).dial() // C-tag 6: not in the table
	// c2 (C-tag 3) gives a wrong password: PAP Nak
	c2 := p.client(2)
	c2.discover()
	p.send(c2.lcpRequest())
	c2.configure(ppp.ProtoLCP, c2.lcpAcked, nil)
	pap := append([]byte{byte(len(c2.user))}, c2.user...)
	pap = append(pap, 5, 'w', 'r', 'o', 'n', 'g')
	p.send(c2.cpFrame(ppp.ProtoPAP, ppp.PAPRequest, 1, pap))
	p.expect("PAP Nak", 5*time.Second, func(r rxFrame) bool { return r.is(ppp.ProtoPAP, ppp.PAPNak) })
	p.waitFor("four events", 5*time.Second, func() bool { return len(got()) >= 4 })
	time.Sleep(300 * time.Millisecond) // a batch is posted within 100 ms: nothing more may come
	want := []onos.PppoeEvent{
		{Type: onos.EventSessionInit, AccessPort: "access1", STag: 100, CTag: 2, MAC: macString(c1.mac)},
		{Type: onos.EventAuthSuccess, AccessPort: "access1", STag: 100, CTag: 2, MAC: macString(c1.mac), PPPoEID: c1.sid},
		{Type: onos.EventSessionInit, AccessPort: "access1", STag: 100, CTag: 3, MAC: macString(c2.mac)},
		{Type: onos.EventAuthFailure, AccessPort: "access1", STag: 100, CTag: 3, MAC: macString(c2.mac), PPPoEID: c2.sid},
	}
	if g := got(); !reflect.DeepEqual(g, want) {
		t.Fatalf("events\n got %+v\nwant %+v", g, want)
	}
}

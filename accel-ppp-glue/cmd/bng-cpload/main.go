package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"os/signal"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type dualDPFlags []uint32

func (d *dualDPFlags) String() string { return fmt.Sprint(*d) }

func (d *dualDPFlags) Set(v string) error {
	n, err := strconv.ParseUint(v, 10, 32)
	if err != nil || n == 0 || n >= 1<<24 {
		return fmt.Errorf("instance id %q: want 1..16777215", v)
	}
	*d = append(*d, uint32(n))
	return nil
}

type dpFlags []DPSpec

func (d *dpFlags) String() string { return fmt.Sprint(*d) }

// Set parses ID=ADDR[/STAGS[/CTAGS]], e.g. 1=127.201.0.11/100-149/1-4000.
func (d *dpFlags) Set(v string) error {
	id, rest, ok := strings.Cut(v, "=")
	if !ok {
		return errors.New("want ID=ADDR[/STAGS[/CTAGS]]")
	}
	n, err := strconv.ParseUint(id, 10, 32)
	if err != nil || n == 0 || n >= 1<<24 {
		return fmt.Errorf("instance id %q: want 1..16777215", id)
	}
	parts := strings.Split(rest, "/")
	if len(parts) > 3 {
		return errors.New("want ID=ADDR[/STAGS[/CTAGS]]")
	}
	a, err := netip.ParseAddr(parts[0])
	if err != nil || !a.Is4() {
		return fmt.Errorf("address %q: want IPv4", parts[0])
	}
	spec := DPSpec{ID: uint32(n), Addr: a}
	if len(parts) > 1 {
		if spec.STag, err = parseRange(parts[1], false); err != nil {
			return err
		}
		spec.sSet = true
	}
	if len(parts) > 2 {
		if spec.CTag, err = parseRange(parts[2], true); err != nil {
			return err
		}
		spec.cSet = true
	}
	*d = append(*d, spec)
	return nil
}

// parseRange reads "A-B" or "A" (VIDs 1..4094); "none" is no C-tag.
func parseRange(s string, allowNone bool) (Range, error) {
	if allowNone && s == "none" {
		return Range{}, nil
	}
	a, b, found := strings.Cut(s, "-")
	if !found {
		b = a
	}
	lo, err1 := strconv.ParseUint(a, 10, 16)
	hi, err2 := strconv.ParseUint(b, 10, 16)
	if err1 != nil || err2 != nil || lo < 1 || hi > 4094 || lo > hi {
		return Range{}, fmt.Errorf("VLAN range %q: want A-B within 1..4094", s)
	}
	return Range{uint16(lo), uint16(hi)}, nil
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("bng-cpload", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `bng-cpload: dial PPPoE sessions against bng-cp as one or more emulated DPs
(VXLAN-redirected access frames + a PFCP user-plane peer) and print one JSON line
{"sessions":N,"sessions_per_second":X,"completed":C,"failed":F,"p50_ms":..,"p99_ms":..,"duration_s":..}.
A session is timed from its PADI to the moment its PFCP Session Establishment was answered.

`)
		fs.PrintDefaults()
	}
	var dps dpFlags
	cp := fs.String("cp", "127.201.0.1", "the CP's address (its VXLAN endpoint and PFCP peer)")
	cpVX := fs.Uint("cp-vxlan-port", 4789, "the CP's VXLAN port")
	vxPort := fs.Uint("vxlan-port", 4789, "our VXLAN port on each DP address")
	pfPort := fs.Uint("pfcp-port", 8805, "our PFCP port on each DP address")
	fs.Var(&dps, "dp", "an emulated DP instance ID=ADDR[/STAGS[/CTAGS]] (repeat); tags default to -stag/-ctag")
	stag := fs.String("stag", "100-149", "default S-tag range of each DP")
	ctag := fs.String("ctag", "1-4000", "default C-tag range of each DP (none: single-tagged)")
	tpid := fs.String("tpid", "0x8100", "outer TPID (0x8100 or 0x88a8)")
	n := fs.Int("sessions", 1000, "number of sessions")
	window := fs.Int("window", 2000, "sessions in flight at most")
	auth := fs.String("auth", "pap", "authentication the CPE accepts: pap or chap")
	userFmt := fs.String("user", "user%d", "user name pattern (session number 1..N)")
	passFmt := fs.String("password", "pw%d", "password pattern (session number 1..N)")
	mru := fs.Uint("mru", 1492, "MRU the CPE asks for (0: no MRU option)")
	dns := fs.Bool("dns", true, "ask for DNS servers in IPCP")
	accessLine := fs.Bool("access-line", true, "add the TR-101 access-line tag (circuit-id, remote-id) like an access node")
	timeout := fs.Duration("timeout", 30*time.Second, "a session that is not complete after this fails")
	resend := fs.Duration("resend", time.Second, "resend an unanswered request after this (doubling on each resend, up to 8x)")
	assoc := fs.Duration("assoc-timeout", 30*time.Second, "wait this long for the CP's PFCP association")
	var dualDPs dualDPFlags
	fs.Var(&dualDPs, "dual-stack-dp", "every session of this DP instance (id, repeat) dials dual stack")
	var ipoeDPs dualDPFlags
	fs.Var(&ipoeDPs, "ipoe-dp", "every session of this DP instance (id, repeat) is an IPoE CPE: DHCP DORA with option 82 (the instance announces IPoE)")
	ipoeUser := fs.String("ipoe-user", "ipoe%d", "option 82 circuit id pattern of IPoE CPEs (session number 1..N): bng-cp's ipoe.username circuit_id")
	dualEvery := fs.Int("dual-stack-every", 0, "every this many sessions one dials dual stack (IPv6CP, RS/RA, DHCPv6 PD with Rapid Commit), interleaved (0: none, 1: all)")
	verbose := fs.Bool("v", false, "print counters, failure reasons, per-step mean latencies and CPU time to stderr")
	cpuProfile := fs.String("cpuprofile", "", "write the loader's CPU profile to this file (go tool pprof)")
	hold := fs.Bool("hold", false, "after the result line, keep the DPs up (PFCP answered, CPEs answering) until SIGTERM, "+
		"then print one line {\"node_events\":[...]}: Association Updates and Session Deletions per DP (make bench-move)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "bng-cpload: "+format+"\n", a...)
		return 2
	}
	cpAddr, err := netip.ParseAddr(*cp)
	if err != nil || !cpAddr.Is4() {
		return fail("-cp %q: want an IPv4 address", *cp)
	}
	for _, p := range []*uint{cpVX, vxPort, pfPort} {
		if *p > 65535 {
			return fail("port %d out of range", *p)
		}
	}
	sr, err := parseRange(*stag, false)
	if err != nil {
		return fail("-stag: %v", err)
	}
	cr, err := parseRange(*ctag, true)
	if err != nil {
		return fail("-ctag: %v", err)
	}
	if len(dps) == 0 {
		return fail("at least one -dp ID=ADDR is required")
	}
	for i := range dps {
		if !dps[i].sSet {
			dps[i].STag = sr
		}
		if !dps[i].cSet {
			dps[i].CTag = cr
		}
	}
	var outer uint16
	switch strings.ToLower(*tpid) {
	case "0x8100", "33024":
		outer = tpid8021Q
	case "0x88a8", "34984":
		outer = tpid8021AD
	default:
		return fail("-tpid %q: want 0x8100 or 0x88a8", *tpid)
	}
	if *auth != "pap" && *auth != "chap" {
		return fail("-auth %q: want pap or chap", *auth)
	}
	if *mru > 65535 {
		return fail("-mru %d out of range", *mru)
	}
	cfg := Config{
		CP: cpAddr, CPVXLAN: uint16(*cpVX), LocalVXLAN: uint16(*vxPort), LocalPFCP: uint16(*pfPort),
		DPs: dps, Sessions: *n, Window: *window, OuterTPID: outer, Auth: *auth,
		UserFmt: *userFmt, PassFmt: *passFmt, MRU: uint16(*mru), DNS: *dns, AccessLine: *accessLine,
		Timeout: *timeout, Resend: *resend, AssocWait: *assoc, DualStackEvery: *dualEvery, DualStackDPs: dualDPs,
		IPoEDPs: ipoeDPs, IPoEUserFmt: *ipoeUser,
	}
	l, err := New(cfg)
	if err != nil {
		return fail("%v", err)
	}
	defer l.Close()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return fail("%v", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fail("%v", err)
		}
		defer pprof.StopCPUProfile()
	}
	l.Serve()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := l.Run(ctx)
	if err != nil && res.Sessions == 0 {
		return fail("%v", err)
	}
	out, _ := json.Marshal(res)
	fmt.Println(string(out))
	if *verbose || res.Failed > 0 || err != nil {
		printDiag(l)
	}
	if *hold && err == nil {
		<-ctx.Done() // the DPs' sockets stay served by Serve's goroutines meanwhile
		ev, _ := json.Marshal(map[string]any{"node_events": l.NodeEvents()})
		fmt.Println(string(ev))
	}
	if err != nil || res.Completed != res.Sessions {
		return 1
	}
	return 0
}

func printDiag(l *Loader) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		fmt.Fprintf(os.Stderr, "bng-cpload: cpu_s=%.2f\n", cpu.Seconds())
	}
	if pm := l.PhaseMeans(); len(pm) > 0 {
		var b strings.Builder
		for _, k := range markNames {
			fmt.Fprintf(&b, " %s=%.1f", k, pm[k])
		}
		fmt.Fprintf(os.Stderr, "bng-cpload: mean_ms%s\n", b.String())
	}
	f := l.Failures()
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if ex := l.FailureExample(k); ex != "" {
			fmt.Fprintf(os.Stderr, "bng-cpload: failed: %d x %s (first: %s)\n", f[k], k, ex)
		} else {
			fmt.Fprintf(os.Stderr, "bng-cpload: failed: %d x %s\n", f[k], k)
		}
	}
	c := l.Counters()
	keys = keys[:0]
	for k, v := range c {
		if v != 0 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(os.Stderr, "bng-cpload: %s=%d\n", k, c[k])
	}
}

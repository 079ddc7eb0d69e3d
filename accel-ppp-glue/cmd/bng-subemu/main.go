// Command bng-subemu is the subscriber emulator of the emulated pod: a
// population of PPPoE clients in userspace on one access port. It runs in an
// access namespace (ip netns exec bngpod-acc-access1 bng-subemu ...), reads
// the subscribers of users.json whose "port" matches, and dials each with its
// own MAC (02:5b + the subscriber's index in users.json, from 1) on its QinQ
// line, through one AF_PACKET socket: PPPoE discovery, LCP (MRU 1492, magic),
// PAP or CHAP-MD5, IPCP (address, DNS), LCP echoes both ways, then UDP
// datagrams to --target at --rate per session, counting what comes back.
//
// Output: a JSON line of totals every --json-every on stdout (type "stats",
// the last one "final"), and the status API on --status (GET /v1/stats,
// GET /v1/sessions). SIGTERM, SIGINT or the end of --duration hang every
// session up (LCP Terminate-Request and PADT) and exit. --strict behaves as
// common CPEs do: session frames before their PADS are dropped, and a hang-up
// sends its PADT only once the Terminate-Request is acknowledged.
//
// Exit status: 0 after a stop (whatever the sessions did: the JSON says),
// 1 when the socket fails, 2 on bad flags or a bad users file.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// userEntry is one line of users.json (bngpod up writes it; see
// docs/emulated-pod.md). tpid is optional: a number or "0x88a8".
type userEntry struct {
	User      string          `json:"user"`
	Password  string          `json:"password"`
	LineGroup string          `json:"line_group"`
	Port      string          `json:"port"`
	STag      int             `json:"stag"`
	CTag      int             `json:"ctag"`
	TPID      json.RawMessage `json:"tpid"`
	Kind      string          `json:"kind"` // "ipoe": an IPoE subscriber (bng-subemu --ipoe); absent: PPPoE
	MAC       string          `json:"mac"`  // IPoE: the client MAC
}

func parseTPID(s string) (uint16, error) {
	v, err := strconv.ParseUint(strings.TrimSpace(s), 0, 16)
	if err != nil || (v != 0x8100 && v != 0x88a8) {
		return 0, fmt.Errorf("tpid %q: must be 0x8100 or 0x88a8", s)
	}
	return uint16(v), nil
}

// loadSubscribers reads users.json and keeps the port's subscribers after
// the first skip of them, count of them (0 = all). A subscriber's MAC comes
// from its index in the file, so emulators given different skips on one
// port dial different MACs.
func loadSubscribers(path, port string, skip, count int) ([]Subscriber, error) {
	return loadKind(path, port, skip, count, false)
}

// loadKind is loadSubscribers for PPPoE entries (ipoe false: entries of
// kind "ipoe" are left out) or IPoE ones (ipoe true: only those).
func loadKind(path, port string, skip, count int, ipoe bool) ([]Subscriber, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var users []userEntry
	if err := json.Unmarshal(raw, &users); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []Subscriber
	for i, u := range users {
		if (port != "" && u.Port != port) || (u.Kind == "ipoe") != ipoe {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		where := fmt.Sprintf("%s: entry %d (%q)", path, i+1, u.User)
		if u.User == "" {
			return nil, fmt.Errorf("%s: no user", where)
		}
		if u.STag < 1 || u.STag > 4094 || u.CTag < 0 || u.CTag > 4094 {
			return nil, fmt.Errorf("%s: stag %d / ctag %d out of range", where, u.STag, u.CTag)
		}
		sub := Subscriber{Index: uint32(i + 1), User: u.User, Password: u.Password, LineGroup: u.LineGroup,
			Port: u.Port, STag: uint16(u.STag), CTag: uint16(u.CTag)}
		if u.MAC != "" {
			hw, err := net.ParseMAC(u.MAC)
			if err != nil || len(hw) != 6 || hw[0]&1 != 0 {
				return nil, fmt.Errorf("%s: mac %q: want a unicast aa:bb:cc:dd:ee:ff", where, u.MAC)
			}
			copy(sub.ClientMAC[:], hw)
			sub.HasMAC = true
		}
		if len(u.TPID) > 0 && string(u.TPID) != "null" {
			s := strings.Trim(string(u.TPID), `"`)
			if sub.TPID, err = parseTPID(s); err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
		}
		out = append(out, sub)
		if count > 0 && len(out) == count {
			break
		}
	}
	if len(out) == 0 {
		kind := "PPPoE"
		if ipoe {
			kind = "IPoE"
		}
		return nil, fmt.Errorf("%s: no subscriber (%s) on port %q", path, kind, port)
	}
	return out, nil
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("bng-subemu", flag.ContinueOnError)
	iface := fs.String("iface", "", "access interface (required)")
	users := fs.String("subscribers", "", "users.json of bngpod up (required)")
	port := fs.String("port", "", "dial only the subscribers of this access port (empty: all)")
	count := fs.Int("count", 0, "dial the first N of them (0: all)")
	skip := fs.Int("skip", 0, "leave out the first N of them (another emulator on the port dials those)")
	tpidS := fs.String("tpid", "", "outer TPID, 0x8100 or 0x88a8 (default: users.json's, else 0x8100); overrides users.json")
	auth := fs.String("auth", "pap", "pap or chap")
	service := fs.String("service-name", "", "Service-Name of PADI/PADR (empty: any)")
	conc := fs.Int("concurrency", 256, "sessions dialling at once")
	dialRate := fs.Float64("dial-rate", 0, "dials started per second at most (0: as --concurrency allows)")
	retries := fs.Int("retries", 3, "new attempts after a failed one (0: none)")
	retx := fs.Duration("retransmit", time.Second, "restart timer of requests (discovery doubles up to 8x)")
	phaseTO := fs.Duration("phase-timeout", 10*time.Second, "time limit of each phase (padi, padr, lcp, auth, ipcp)")
	backoff := fs.Duration("backoff", time.Second, "first retry delay (doubles per attempt, with jitter)")
	noRedial := fs.Bool("no-redial", false, "a session that goes down stays down")
	echoIv := fs.Duration("echo-interval", 10*time.Second, "our LCP Echo-Request interval (0: none)")
	echoFail := fs.Int("echo-failures", 3, "unanswered echoes before a session counts as dead")
	rate := fs.Float64("rate", 0, "UDP datagrams per second per session to --target (0: none)")
	target := fs.String("target", "", "UDP echo target ip:port, e.g. 198.51.100.10:7")
	size := fs.Int("size", 64, "UDP payload bytes (24..1400)")
	status := fs.String("status", "", "unix socket of the status API (empty: none)")
	every := fs.Duration("json-every", time.Second, "interval of the JSON lines on stdout (0: only the final one)")
	duration := fs.Duration("duration", 0, "stop after this long (0: until SIGTERM/SIGINT)")
	hangupRate := fs.Float64("hangup-rate", 250, "sessions hung up per second at stop (LCP Terminate-Request + PADT; 0: all at once)")
	hangupMax := fs.Duration("hangup-max", 10*time.Second, "the stop's hangups take at most this long (the rate rises to fit)")
	dual := fs.Bool("dual-stack", false, "run IPv6CP, RS and DHCPv6 (IA_PD, IA_NA when the RA's M flag is set) beside IPCP; a session is up once IPv6 is bound or refused. With --ipoe: RS and DHCPv6 (IA_NA + IA_PD) beside DHCPv4")
	target6 := fs.String("target6", "", "UDP echo target [ipv6]:port for --rate (needs --dual-stack): datagrams from the SLAAC address and from the delegated prefix in turn")
	ipoe := fs.Bool("ipoe", false, "IPoE subscribers instead of PPPoE: DHCP DORA, renewal at T1, RELEASE at the stop (--macs per line)")
	macs := fs.Int("macs", 1, "with --ipoe: DHCP clients (MACs) per line")
	opt82 := fs.Bool("option82", false, "with --ipoe: add option 82 as an access node does (circuit id = the users.json user, remote id = the MAC)")
	strict := fs.Bool("strict", false, "behave as common CPEs: drop session frames that come before their PADS; hang up with Terminate-Request, then the PADT once acked")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "bng-subemu: "+format+"\n", a...)
		return 2
	}
	if fs.NArg() > 0 {
		return usage("unexpected arguments %q", fs.Args())
	}
	if *iface == "" || *users == "" {
		return usage("--iface and --subscribers are required")
	}
	if *auth != "pap" && *auth != "chap" {
		return usage("--auth must be pap or chap")
	}
	if *count < 0 || *skip < 0 || *conc < 1 || *retries < 0 || *rate < 0 || *echoFail < 1 || *size < payloadMin || *size > 1400 ||
		*retx <= 0 || *phaseTO <= 0 || *backoff <= 0 || *echoIv < 0 || *every < 0 || *duration < 0 ||
		*hangupRate < 0 || *hangupMax <= 0 || *dialRate < 0 {
		return usage("a numeric flag is out of range")
	}
	cfg := Config{Auth: *auth, ServiceName: *service, Concurrency: *conc, DialRate: *dialRate, Retries: *retries, Retransmit: *retx,
		PhaseTimeout: *phaseTO, Backoff: *backoff, Redial: !*noRedial, EchoInterval: *echoIv,
		EchoFailures: *echoFail, Rate: *rate, Size: *size, HangupRate: *hangupRate, HangupMax: *hangupMax, Strict: *strict}
	if cfg.HangupRate == 0 {
		cfg.HangupRate = -1
	}
	if cfg.Retries == 0 {
		cfg.Retries = -1
	}
	cfg.DualStack = *dual
	if *target6 != "" {
		ap, err := netip.ParseAddrPort(*target6)
		if err != nil || !ap.Addr().Is6() || ap.Addr().Is4In6() || ap.Port() == 0 || !*dual {
			return usage("--target6 %q: want an IPv6 [ip]:port, with --dual-stack", *target6)
		}
		cfg.Target6 = ap
	}
	if *rate > 0 {
		if *target == "" && *target6 == "" {
			return usage("--rate needs --target or --target6")
		}
		if *target != "" {
			ap, err := netip.ParseAddrPort(*target)
			if err != nil || !ap.Addr().Is4() || ap.Port() == 0 {
				return usage("--target %q: want an IPv4 ip:port", *target)
			}
			cfg.Target = ap
		}
	}
	subs, err := loadKind(*users, *port, *skip, *count, *ipoe)
	if err != nil {
		return usage("%v", err)
	}
	if *tpidS != "" {
		t, err := parseTPID(*tpidS)
		if err != nil {
			return usage("--%v", err)
		}
		cfg.TPID = t
		for i := range subs {
			subs[i].TPID = t
		}
	}
	if *ipoe {
		if *macs < 1 || *macs > 64 {
			return usage("--macs must be 1..64")
		}
		return runIPoE(*iface, IPoEConfig{MACs: *macs, Concurrency: *conc, Retransmit: *retx, PhaseTimeout: *phaseTO,
			Backoff: *backoff, Option82: *opt82, TPID: cfg.TPID, Release: true, Rate: *rate, Target: cfg.Target,
			Size: *size, DualStack: *dual, Target6: cfg.Target6}, subs, *every, *duration, *status)
	}
	sock, err := OpenRawSocket(*iface)
	if err != nil {
		fmt.Fprintf(os.Stderr, "bng-subemu: %v\n", err)
		return 1
	}
	defer sock.Close()
	emu, err := NewEmu(cfg, sock, subs)
	if err != nil {
		return usage("%v", err)
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	if *duration > 0 {
		var c2 context.CancelFunc
		ctx, c2 = context.WithTimeout(ctx, *duration)
		defer c2()
	}
	if *status != "" {
		stop, err := emu.ServeStatus(ctx, *status)
		if err != nil {
			fmt.Fprintf(os.Stderr, "bng-subemu: status socket %s: %v\n", *status, err)
			return 1
		}
		defer stop()
	}
	return runAndReport(ctx, *every, func() any { return emu.Stats() }, emu.Run)
}

// runIPoE is main for --ipoe.
func runIPoE(iface string, cfg IPoEConfig, subs []Subscriber, every, duration time.Duration, status string) int {
	if cfg.TPID == 0 {
		cfg.TPID = 0x8100
	}
	sock, err := OpenRawSocketIPoE(iface)
	if err != nil {
		fmt.Fprintf(os.Stderr, "bng-subemu: %v\n", err)
		return 1
	}
	defer sock.Close()
	emu := NewIPoEEmu(cfg, sock, subs)
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	if duration > 0 {
		var c2 context.CancelFunc
		ctx, c2 = context.WithTimeout(ctx, duration)
		defer c2()
	}
	if status != "" {
		stop, err := serveStatus(ctx, status, emu.handler())
		if err != nil {
			fmt.Fprintf(os.Stderr, "bng-subemu: status socket %s: %v\n", status, err)
			return 1
		}
		defer stop()
	}
	return runAndReport(ctx, every, func() any { return emu.Stats() }, emu.Run)
}

// runAndReport runs an emulator until ctx ends, printing its statistics as a JSON line
// every `every` (0: never) and once at the end; the exit status of main.
func runAndReport(ctx context.Context, every time.Duration, stats func() any,
	run func(context.Context) error) int {
	if every > 0 {
		go func() {
			t := time.NewTicker(every)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					emitJSON(os.Stdout, stats())
				}
			}
		}()
	}
	runErr := run(ctx)
	emitJSON(os.Stdout, stats())
	if runErr != nil && !errors.Is(runErr, ErrClosed) {
		fmt.Fprintf(os.Stderr, "bng-subemu: %v\n", runErr)
		return 1
	}
	return 0
}

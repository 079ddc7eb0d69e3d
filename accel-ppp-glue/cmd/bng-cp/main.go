// Command bng-cp is bngpod's session control plane: the PPPoE server, RADIUS
// client, address pools and PFCP control-plane function in front of the DP
// instances of a pod. See accel-ppp-glue/README.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/config"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/core"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/ppp"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

func run(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("bng-cp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		cfgPath   = fs.String("config", "/etc/bngpod/cp.yaml", "control-plane configuration (cp.yaml from `bngpod generate`)")
		stateDir  = fs.String("state", "/var/lib/bngpod/cp", "directory of the session store")
		users     = fs.String("users", "", "local users file: authenticate here instead of RADIUS (labs)")
		metrics   = fs.String("metrics", "", "Prometheus listener, e.g. 127.0.0.1:9464 (empty: none)")
		ctl       = fs.String("ctl", "/run/bngpod/cp.sock", "management API socket for bngcpctl (empty: none)")
		echoIv    = fs.Duration("lcp-echo-interval", 10*time.Second, "LCP echo interval (DP offload, or the CP's own echoes)")
		echoFail  = fs.Int("lcp-echo-failures", 3, "unanswered LCP echoes before a session is dead")
		interim   = fs.Duration("interim", 300*time.Second, "accounting interim interval when RADIUS gives none; also the DP's usage report period")
		auth      = fs.String("auth", "chap,pap", "authentication protocols in order of preference: chap, pap")
		acName    = fs.String("ac-name", "", "AC-Name tag (default bngpod-<pod>)")
		services  = fs.String("service-names", "", "comma-separated Service-Names offered (empty: any)")
		maxPay    = fs.Uint("max-payload", 1500, "largest PPP-Max-Payload granted (RFC 4638), 1492..9000")
		shards    = fs.Int("shards", 4, "session shards (goroutines)")
		lcpStart  = fs.Duration("lcp-start-delay", 100*time.Millisecond, "after the PADS, wait this long for the client's first LCP frame before sending our Configure-Request (0: at once)")
		restart   = fs.Duration("ppp-restart", 3*time.Second, "PPP restart timer (RFC 1661): retransmission of Configure- and Terminate-Requests")
		restart1  = fs.Duration("ppp-restart-first", 500*time.Millisecond, "restart timer after a first Configure-Request, doubled per retransmission up to --ppp-restart (0: --ppp-restart throughout)")
		termWait  = fs.Duration("terminate-wait", time.Second, "how long the PADT waits for the subscriber's own PADT (after its LCP Terminate-Request) or its Terminate-Ack (after ours) (0: no wait)")
		logFormat = fs.String("log-format", "json", "log format: json or text")
		logLevel  = fs.String("log-level", "info", "log level: debug, info, warn, error")
		cpuProf   = fs.String("cpuprofile", "", "write a Go CPU profile to this file until exit (benchmarks)")
	)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "bng-cp: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "bng-cp: "+format+"\n", a...)
		return 2
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return usage("-log-level: %v", err)
	}
	hopts := &slog.HandlerOptions{Level: level}
	var h slog.Handler
	switch *logFormat {
	case "json":
		h = slog.NewJSONHandler(stderr, hopts)
	case "text":
		h = slog.NewTextHandler(stderr, hopts)
	default:
		return usage("-log-format: %q is neither json nor text", *logFormat)
	}
	log := slog.New(h)
	var methods []ppp.AuthMethod
	for _, m := range strings.Split(*auth, ",") {
		switch strings.TrimSpace(strings.ToLower(m)) {
		case "pap":
			methods = append(methods, ppp.AuthPAP)
		case "chap":
			methods = append(methods, ppp.AuthCHAP)
		default:
			return usage("-auth: unknown method %q (chap, pap)", m)
		}
	}
	if *maxPay < 1492 || *maxPay > 9000 {
		return usage("-max-payload: %d is outside 1492..9000", *maxPay)
	}
	if *echoIv < time.Second || *echoIv > 65535*time.Second {
		return usage("-lcp-echo-interval: %v is outside 1s..65535s", *echoIv)
	}
	if *echoFail < 1 || *echoFail > 255 {
		return usage("-lcp-echo-failures: %d is outside 1..255", *echoFail)
	}
	if *interim < time.Second {
		return usage("-interim: %v is below 1s", *interim)
	}
	if *shards < 1 || *shards > 256 {
		return usage("-shards: %d is outside 1..256", *shards)
	}
	if *lcpStart < 0 || *lcpStart > 3*time.Second {
		return usage("-lcp-start-delay: %v is outside 0..3s", *lcpStart)
	}
	if *restart < 100*time.Millisecond || *restart > 60*time.Second {
		return usage("-ppp-restart: %v is outside 100ms..60s", *restart)
	}
	if *restart1 < 0 || *restart1 > *restart {
		return usage("-ppp-restart-first: %v is outside 0..%v (-ppp-restart)", *restart1, *restart)
	}
	if *termWait < 0 || *termWait > 10*time.Second {
		return usage("-terminate-wait: %v is outside 0..10s", *termWait)
	}
	// core.Options: 0 takes the default, a negative duration turns it off.
	off := func(d time.Duration) time.Duration {
		if d == 0 {
			return -1
		}
		return d
	}
	var names []string
	if *services != "" {
		for _, s := range strings.Split(*services, ",") {
			names = append(names, strings.TrimSpace(s))
		}
	}
	cfg, err := config.Load(*cfgPath)
	if err != nil {
		fmt.Fprintf(stderr, "bng-cp: %s: %v\n", *cfgPath, err)
		return 1
	}
	d, err := core.New(core.Options{
		Config: cfg, StateDir: *stateDir, UsersFile: *users, MetricsAddr: *metrics, CtlSocket: *ctl,
		EchoInterval: *echoIv, EchoFailures: *echoFail, Interim: *interim, Auth: methods,
		ACName: *acName, ServiceNames: names, MaxPayload: uint16(*maxPay), Shards: *shards, Logger: log,
		LCPStartDelay: off(*lcpStart), Restart: *restart, RestartFirst: off(*restart1), TerminateWait: off(*termWait),
	})
	if err != nil {
		log.Error("cannot start", "err", err)
		return 1
	}
	if *cpuProf != "" {
		f, err := os.Create(*cpuProf)
		if err != nil {
			log.Error("cannot write the CPU profile", "err", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Error("cannot start the CPU profile", "err", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := d.Run(ctx); err != nil {
		log.Error("stopped on error", "err", err)
		return 1
	}
	return 0
}

// Command bng-accel-glue runs accel-ppp as the pod's PPPoE control plane: it
// turns accel-ppp's session events (pppd-compat scripts of upstream
// accel-ppp, or the redis events of the BISDN/Altran fork) into the PFCP
// installs bng-cp makes, sends accounting from the DP's usage reports, and
// re-syncs with accel-ppp's CLI after a restart. See docs/cp/accel-ppp.md.
//
//	bng-accel-glue -config cp.yaml [-hook-socket S] [-redis ADDR] ...   the daemon
//	bng-accel-glue hook [-socket S] ip-pre-up|ip-up|ip-down|ip-change ARGS...   what accel-ppp runs
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
	"syscall"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/accel"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/config"
)

const defaultSocket = "/run/bngpod/accel-glue.sock"

func main() {
	if len(os.Args) > 1 && os.Args[1] == "hook" {
		os.Exit(hook(os.Args[2:], os.Environ(), os.Stderr))
	}
	os.Exit(run(os.Args[1:], os.Stderr))
}

// hook is the pppd-compat script: its exit status is the daemon's verdict
// (accel-ppp terminates a session whose ip-pre-up fails).
func hook(args, environ []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("bng-accel-glue hook", flag.ContinueOnError)
	fs.SetOutput(stderr)
	socket := fs.String("socket", defaultSocket, "bng-accel-glue's hook socket")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() < 1 {
		fmt.Fprintln(stderr, "bng-accel-glue hook: usage: hook [-socket S] ip-pre-up|ip-up|ip-down|ip-change ARGS...")
		return 2
	}
	if err := accel.RunHook(*socket, fs.Arg(0), fs.Args()[1:], environ); err != nil {
		fmt.Fprintf(stderr, "bng-accel-glue hook %s: %v\n", fs.Arg(0), err)
		return 1
	}
	return 0
}

func run(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("bng-accel-glue", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		cfgPath   = fs.String("config", "/etc/bngpod/cp.yaml", "the pod's control-plane configuration (cp.yaml from `bngpod generate`)")
		state     = fs.String("state", "/var/lib/bngpod/accel-glue.db", "the session store")
		hookSock  = fs.String("hook-socket", "", "socket of the pppd-compat hooks (upstream accel-ppp), e.g. "+defaultSocket)
		redis     = fs.String("redis", "", "redis of the accel-ppp fork's events, e.g. 127.0.0.1:6379")
		channel   = fs.String("redis-channel", "accel-ppp", "the fork's [redis] pubchan")
		cli       = fs.String("cli", "127.0.0.1:2001", "accel-ppp's CLI ([cli] tcp); empty: none (no re-sync, no terminate)")
		cliPass   = fs.String("cli-password", "", "accel-ppp's [cli] password")
		proc      = fs.String("proc-pppoe", "/proc/net/pppoe", "the kernel's PPPoE sockets (session ids of upstream accel-ppp)")
		radattr   = fs.String("radattr-prefix", "", "pppd-compat's radattr-prefix (rates and profile from RADIUS); empty: none")
		interim   = fs.Duration("interim", 300*time.Second, "usage report period of each session (Interim-Updates)")
		resync    = fs.Duration("resync", time.Minute, "re-sync with accel-ppp's CLI this often (0: at start and after redis reconnects)")
		noAcct    = fs.Bool("no-accounting", false, "send no RADIUS accounting")
		status    = fs.String("status", "", "status socket (HTTP: GET /v1/sessions, /v1/counters); empty: none")
		metrics   = fs.String("metrics", "", "Prometheus listener, e.g. 127.0.0.1:9465 (empty: none)")
		logFormat = fs.String("log-format", "json", "log format: json or text")
		logLevel  = fs.String("log-level", "info", "log level: debug, info, warn, error")
	)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "bng-accel-glue: "+format+"\n", a...)
		return 2
	}
	if fs.NArg() != 0 {
		return usage("unexpected argument %q", fs.Arg(0))
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return usage("-log-level: %v", err)
	}
	var h slog.Handler
	switch *logFormat {
	case "json":
		h = slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: level})
	case "text":
		h = slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})
	default:
		return usage("-log-format: %q is neither json nor text", *logFormat)
	}
	if *interim < time.Second {
		return usage("-interim: %v is below 1s", *interim)
	}
	if *resync < 0 {
		return usage("-resync: %v is negative", *resync)
	}
	cfg, err := config.Load(*cfgPath)
	if err != nil {
		fmt.Fprintf(stderr, "bng-accel-glue: %s: %v\n", *cfgPath, err)
		return 1
	}
	rc := accel.RunConfig{Config: cfg, StatePath: *state, HookSocket: *hookSock, RedisAddr: *redis,
		RedisChannel: *channel, ProcPPPoE: *proc, RadattrPrefix: *radattr, Interim: *interim, Resync: *resync,
		Accounting: !*noAcct, StatusSocket: *status, MetricsAddr: *metrics, Logger: slog.New(h)}
	if *cli != "" {
		rc.CLI = &accel.CLI{Addr: *cli, Password: *cliPass}
	}
	if err := accel.CheckSources(&rc); err != nil {
		fmt.Fprintf(stderr, "bng-accel-glue: %v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := accel.Run(ctx, rc); err != nil {
		fmt.Fprintf(stderr, "bng-accel-glue: %v\n", err)
		return 1
	}
	return 0
}

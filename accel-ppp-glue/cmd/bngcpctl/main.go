// Command bngcpctl shows and manages the sessions of a running bng-cp over its
// management socket (HTTP+JSON on a unix socket, see internal/api).
//
//	bngcpctl [--socket PATH] [-o table|json] COMMAND [ARGS]
//
//	sessions [--instance N] [--user U] [--state S]   list sessions
//	sessions --export json|csv [filters]            the established sessions (the
//	                                                state filter may widen it) as
//	                                                the line-rate tools take them
//	session show ID                                 one session in detail
//	session terminate ID                            end a session (PADT, RADIUS Stop)
//	pools                                           address pools and their use
//	instances                                       DP instances and their PFCP state
//	groups                                          line groups and the instance serving each
//	stats                                           counters
//
// The socket is --socket, else $BNGCP_SOCKET, else /run/bngpod/cp.sock.
// Exit status: 0 done, 1 the request failed (daemon not running, unknown
// session, ...), 2 bad arguments.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/api"
)

const usageText = `usage: bngcpctl [--socket PATH] [-o table|json] COMMAND [ARGS]

commands:
  sessions [--instance N] [--user U] [--state S]   list sessions
  sessions --export json|csv [filters]            established sessions for the line-rate
                                                  tools (docs/linerate.md)
  session show ID                                 one session in detail
  session terminate ID                            end a session
  pools                                           address pools and their use
  instances                                       DP instances and their PFCP state
  groups                                          line groups and the instance serving each
  stats                                           counters

options (before or after the command):
  --socket PATH   management socket (default $BNGCP_SOCKET, else /run/bngpod/cp.sock)
  -o FORMAT       table (default) or json
  --timeout D     give up after D (default 30s)
`

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// usageError is a bad command line: usage and exit 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func badUsage(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// cli is one invocation.
type cli struct {
	socket  string
	output  string
	timeout time.Duration
	stdout  io.Writer
	now     func() time.Time
}

// run is main without the process: it returns the exit status.
func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	return runWith(args, getenv, stdout, stderr, time.Now)
}

// runWith is run with a clock (for uptimes).
func runWith(args []string, getenv func(string) string, stdout, stderr io.Writer, now func() time.Time) int {
	c := &cli{stdout: stdout, now: now}
	err := c.dispatch(args, getenv)
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, usageText)
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "bngcpctl: %s\n\n%s", ue.msg, usageText)
		return 2
	default:
		fmt.Fprintf(stderr, "bngcpctl: %s\n", err)
		return 1
	}
}

// flags returns a flag set with the common options bound to c.
func (c *cli) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported once, by run
	fs.StringVar(&c.socket, "socket", c.socket, "management socket")
	fs.StringVar(&c.output, "o", c.output, "output format: table or json")
	fs.DurationVar(&c.timeout, "timeout", c.timeout, "request timeout")
	return fs
}

// parse parses args with fs, allowing flags between positional arguments
// (`session show 7 -o json`), and returns the positional ones.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, badUsage("%s", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func (c *cli) dispatch(args []string, getenv func(string) string) error {
	c.socket = getenv("BNGCP_SOCKET")
	if c.socket == "" {
		c.socket = api.DefaultSocket
	}
	c.output = "table"
	c.timeout = 30 * time.Second

	// Global options, up to the command.
	g := c.flags("bngcpctl")
	if err := g.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return badUsage("%s", err)
	}
	rest := g.Args()
	if len(rest) == 0 {
		return badUsage("no command")
	}
	cmd, rest := rest[0], rest[1:]

	fs := c.flags(cmd)
	var instance, user, state, export string
	if cmd == "sessions" {
		fs.StringVar(&instance, "instance", "", "DP instance id")
		fs.StringVar(&user, "user", "", "user name")
		fs.StringVar(&state, "state", "", "session state")
		fs.StringVar(&export, "export", "", "export format: json or csv")
	}
	pos, err := parse(fs, rest)
	if err != nil {
		return err
	}
	if c.output != "table" && c.output != "json" {
		return badUsage("-o %q: want table or json", c.output)
	}
	if c.timeout <= 0 {
		return badUsage("--timeout must be positive")
	}
	if c.socket == "" {
		return badUsage("--socket is empty")
	}
	client := api.NewClient(c.socket, c.timeout)
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()

	switch cmd {
	case "help":
		return flag.ErrHelp
	case "sessions":
		if len(pos) != 0 {
			return badUsage("sessions: unexpected argument %q", pos[0])
		}
		if export != "" && export != "json" && export != "csv" {
			return badUsage("--export %q: want json or csv", export)
		}
		if export != "" && state == "" {
			state = "established" // what carries traffic
		}
		f := api.SessionFilter{User: user, State: state}
		if instance != "" {
			n, err := strconv.ParseUint(instance, 10, 32)
			if err != nil {
				return badUsage("--instance %q: want a number", instance)
			}
			f.Instance, f.HasInstance = uint32(n), true
		}
		list, err := client.Sessions(ctx, f)
		if err != nil {
			return err
		}
		if export != "" {
			return api.WriteExport(c.stdout, export, api.Export(list))
		}
		return c.sessions(list)
	case "session":
		if len(pos) == 0 {
			return badUsage("session: want show ID or terminate ID")
		}
		sub := pos[0]
		if sub != "show" && sub != "terminate" {
			return badUsage("session: unknown subcommand %q (want show or terminate)", sub)
		}
		if len(pos) != 2 || pos[1] == "" {
			return badUsage("session %s: want exactly one session ID", sub)
		}
		id := pos[1]
		if sub == "show" {
			s, err := client.Session(ctx, id)
			if err != nil {
				return err
			}
			return c.session(s)
		}
		s, err := client.Terminate(ctx, id)
		if err != nil {
			return err
		}
		if c.output == "json" {
			if s == nil {
				s = &api.SessionView{ID: id, State: "terminating"}
			}
			return c.json(s)
		}
		fmt.Fprintf(c.stdout, "session %s: termination requested\n", id)
		return nil
	case "pools", "instances", "groups", "stats":
		if len(pos) != 0 {
			return badUsage("%s: unexpected argument %q", cmd, pos[0])
		}
		switch cmd {
		case "pools":
			list, err := client.Pools(ctx)
			if err != nil {
				return err
			}
			return c.pools(list)
		case "instances":
			list, err := client.Instances(ctx)
			if err != nil {
				return err
			}
			return c.instances(list)
		case "groups":
			list, err := client.Groups(ctx)
			if err != nil {
				return err
			}
			return c.groups(list)
		default:
			st, err := client.Stats(ctx)
			if err != nil {
				return err
			}
			return c.stats(st)
		}
	}
	return badUsage("unknown command %q", cmd)
}

func (c *cli) json(v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = c.stdout.Write(append(b, '\n'))
	return err
}

// table writes rows aligned in columns, two spaces apart.
func (c *cli) table(header []string, rows [][]string) error {
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		for i := range r {
			r[i] = clean(r[i])
		}
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

// clean keeps a daemon-supplied string (a user name from a CPE, a circuit
// id) from breaking the table or the terminal.
func clean(s string) string {
	if s == "" {
		return "-"
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\t' {
			return '?'
		}
		return r
	}, s)
}

func (c *cli) sessions(list []api.SessionView) error {
	if c.output == "json" {
		if list == nil {
			list = []api.SessionView{}
		}
		return c.json(list)
	}
	rows := make([][]string, 0, len(list))
	for _, s := range list {
		rows = append(rows, []string{
			s.ID, s.State, kind(&s), s.User, strconv.FormatUint(uint64(s.Instance), 10), s.AccessPort,
			vlans(s.STag, s.CTag), s.MAC, addr(s.IPv4.String(), s.IPv4.IsValid()), s.QosProfile,
			c.uptime(s.Started),
		})
	}
	return c.table([]string{"ID", "STATE", "KIND", "USER", "INSTANCE", "PORT", "VLAN", "MAC", "IPV4", "QOS", "UPTIME"}, rows)
}

// kind is the session's kind: pppoe (also from a bng-cp that does not say)
// or ipoe.
func kind(s *api.SessionView) string {
	if s.Kind == "" {
		return "pppoe"
	}
	return s.Kind
}

func (c *cli) session(s *api.SessionView) error {
	if c.output == "json" {
		return c.json(s)
	}
	u64 := func(v uint64) string { return strconv.FormatUint(v, 10) }
	rows := [][]string{
		{"id:", s.ID},
		{"state:", s.State},
		{"kind:", kind(s)},
		{"user:", s.User},
		{"instance:", u64(uint64(s.Instance))},
		{"access port:", s.AccessPort},
		{"vlan (s/c):", vlans(s.STag, s.CTag)},
		{"mac:", s.MAC},
		{"pppoe session:", u64(uint64(s.PPPoESessionID))},
		{"ipv4:", addr(s.IPv4.String(), s.IPv4.IsValid())},
		{"qos profile:", s.QosProfile},
		{"rate down:", rate(s.RateDown)},
		{"rate up:", rate(s.RateUp)},
		{"acct session id:", s.AcctSessionID},
		{"started:", stamp(s.Started)},
		{"uptime:", c.uptime(s.Started)},
		{"up octets:", u64(s.UpOctets)},
		{"down octets:", u64(s.DownOctets)},
		{"up packets:", u64(s.UpPackets)},
		{"down packets:", u64(s.DownPackets)},
		{"cp seid:", fmt.Sprintf("0x%016x", s.CPSEID)},
		{"up seid:", fmt.Sprintf("0x%016x", s.UPSEID)},
		{"circuit id:", s.CircuitID},
		{"remote id:", s.RemoteID},
	}
	if s.LeaseEnd != nil {
		rows = append(rows, []string{"lease end:", stamp(*s.LeaseEnd)})
	}
	if s.IPv6Prefix != nil {
		// dual stack: the /64, the delegated prefix (bound or not), the IA_NA
		// address and the IPv6 share of the counters
		pd := "-"
		if s.DelegatedPrefix != nil {
			pd = s.DelegatedPrefix.String()
			if !s.PrefixBound {
				pd += " (not bound)"
			}
		}
		na := "-"
		if s.IPv6Address != nil {
			na = s.IPv6Address.String()
		}
		rows = append(rows, [][]string{
			{"ipv6 prefix:", s.IPv6Prefix.String()}, {"delegated prefix:", pd}, {"ipv6 address:", na},
			{"ipv6 up octets:", u64(s.V6UpOctets)}, {"ipv6 down octets:", u64(s.V6DownOctets)},
			{"ipv6 up packets:", u64(s.V6UpPackets)}, {"ipv6 down packets:", u64(s.V6DownPackets)},
		}...)
		if s.LeaseEnd6 != nil {
			rows = append(rows, []string{"ipv6 lease end:", stamp(*s.LeaseEnd6)}) // IPoE: the DHCPv6 binding
		}
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 1, ' ', 0)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\n", r[0], clean(r[1]))
	}
	return tw.Flush()
}

func (c *cli) pools(list []api.PoolView) error {
	if c.output == "json" {
		if list == nil {
			list = []api.PoolView{}
		}
		return c.json(list)
	}
	rows := make([][]string, 0, len(list))
	for _, p := range list {
		pf := make([]string, len(p.Prefixes))
		for i, x := range p.Prefixes {
			pf[i] = x.String()
		}
		pct := "-"
		if p.Size > 0 {
			pct = fmt.Sprintf("%.1f%%", 100*float64(p.Used)/float64(p.Size))
		}
		rows = append(rows, []string{p.Name, p.LineGroup, strings.Join(pf, ","),
			strconv.Itoa(p.Size), strconv.Itoa(p.Used), strconv.Itoa(p.Size - p.Used), pct})
	}
	return c.table([]string{"NAME", "LINE-GROUP", "PREFIXES", "SIZE", "USED", "FREE", "USE"}, rows)
}

func (c *cli) instances(list []api.InstanceView) error {
	if c.output == "json" {
		if list == nil {
			list = []api.InstanceView{}
		}
		return c.json(list)
	}
	rows := make([][]string, 0, len(list))
	for _, in := range list {
		lcp := "no"
		if in.LCPOffload {
			lcp = "yes"
		}
		rows = append(rows, []string{strconv.FormatUint(uint64(in.ID), 10), in.Name, in.Address, in.State,
			strconv.Itoa(in.Sessions), lcp, stamp(in.Since), stamp(in.RecoveryTime)})
	}
	return c.table([]string{"ID", "NAME", "ADDRESS", "STATE", "SESSIONS", "LCP-OFFLOAD", "SINCE", "RECOVERY-TIME"}, rows)
}

func (c *cli) groups(list []api.GroupView) error {
	if c.output == "json" {
		if list == nil {
			list = []api.GroupView{}
		}
		return c.json(list)
	}
	rows := make([][]string, 0, len(list))
	for _, g := range list {
		moved := "no"
		if g.Moved {
			moved = "yes"
		}
		rows = append(rows, []string{g.Name, strconv.FormatUint(uint64(g.Instance), 10), g.InstanceName,
			strconv.FormatUint(uint64(g.StatedInstance), 10), moved, strconv.Itoa(g.Sessions)})
	}
	return c.table([]string{"LINE-GROUP", "INSTANCE", "NAME", "STATED", "MOVED", "SESSIONS"}, rows)
}

func (c *cli) stats(st api.Stats) error {
	if c.output == "json" {
		if st == nil {
			st = api.Stats{}
		}
		return c.json(st)
	}
	var rows [][]string
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				name := k
				if prefix != "" {
					name = prefix + "." + k
				}
				walk(name, x[k])
			}
		case float64:
			rows = append(rows, []string{prefix, strconv.FormatFloat(x, 'f', -1, 64)})
		case nil:
			rows = append(rows, []string{prefix, "-"})
		case string, bool:
			rows = append(rows, []string{prefix, fmt.Sprint(x)})
		default: // arrays: as JSON
			b, _ := json.Marshal(x)
			rows = append(rows, []string{prefix, string(b)})
		}
	}
	walk("", map[string]any(st))
	return c.table([]string{"COUNTER", "VALUE"}, rows)
}

func vlans(s, c uint16) string {
	if c == 0 {
		return strconv.Itoa(int(s))
	}
	return fmt.Sprintf("%d/%d", s, c)
}

func addr(s string, ok bool) string {
	if !ok {
		return "-"
	}
	return s
}

// rate prints bit/s with an SI unit.
func rate(v uint64) string {
	switch {
	case v == 0:
		return "-"
	case v%1e9 == 0:
		return fmt.Sprintf("%d Gbit/s", v/1e9)
	case v%1e6 == 0:
		return fmt.Sprintf("%d Mbit/s", v/1e6)
	case v%1e3 == 0:
		return fmt.Sprintf("%d kbit/s", v/1e3)
	}
	return fmt.Sprintf("%d bit/s", v)
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

// uptime prints the time since t as 3d04h05m, 4h05m06s or 5m06s.
func (c *cli) uptime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := c.now().Sub(t).Truncate(time.Second)
	if d < 0 {
		return "0s"
	}
	days := d / (24 * time.Hour)
	d -= days * 24 * time.Hour
	h, m, s := d/time.Hour, (d%time.Hour)/time.Minute, (d%time.Minute)/time.Second
	switch {
	case days > 0:
		return fmt.Sprintf("%dd%02dh%02dm", days, h, m)
	case h > 0:
		return fmt.Sprintf("%dh%02dm%02ds", h, m, s)
	}
	return fmt.Sprintf("%dm%02ds", m, s)
}

package accel

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
)

// fakeAccel plays accel-ppp's TCP CLI as accel-pppd/cli/tcp.c and
// cli/show_sessions.c do it, as strictly as they are: a password line first
// when one is set (else the connection is closed), one command per line,
// `show sessions <columns>` rendered with show_sessions.c's layout (an
// unknown column answers "unknown column X"), `terminate sid <sid>
// [soft|hard]`, anything else "invalid syntax"; the connection closes once
// the client has shut its side and the answer is out.
type fakeAccel struct {
	t        *testing.T
	ln       net.Listener
	password string

	mu         sync.Mutex
	sessions   []Row // in accel-ppp's list order
	terminated []string
	commands   []string
}

// columns show_sessions.c registers (a subset is enough: the others are not asked)
var fakeColumns = map[string]bool{"netns": true, "vrf": true, "ifname": true, "username": true, "ip": true,
	"ip6": true, "ip6-dp": true, "type": true, "state": true, "uptime": true, "uptime-raw": true,
	"calling-sid": true, "called-sid": true, "sid": true, "comp": true, "rx-bytes": true, "tx-bytes": true,
	"rx-bytes-raw": true, "tx-bytes-raw": true, "rx-pkts": true, "tx-pkts": true, "inbound-if": true}

func newFakeAccel(t *testing.T, ln net.Listener) *fakeAccel {
	a := &fakeAccel{t: t, ln: ln}
	go a.serve()
	t.Cleanup(func() { ln.Close() })
	return a
}

func (a *fakeAccel) addr() string { return a.ln.Addr().String() }

func (a *fakeAccel) set(rows ...Row) {
	a.mu.Lock()
	a.sessions = rows
	a.mu.Unlock()
}

func (a *fakeAccel) setPassword(p string) {
	a.mu.Lock()
	a.password = p
	a.mu.Unlock()
}

func (a *fakeAccel) terms() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.terminated...)
}

func (a *fakeAccel) serve() {
	for {
		c, err := a.ln.Accept()
		if err != nil {
			return
		}
		go a.conn(c)
	}
}

func (a *fakeAccel) conn(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	a.mu.Lock()
	password := a.password
	a.mu.Unlock()
	auth := password == ""
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return // EOF: the client shut its side; everything was written synchronously
		}
		line = strings.TrimSuffix(line, "\n")
		if !auth {
			if line != password {
				return
			}
			auth = true
			continue
		}
		a.mu.Lock()
		a.commands = append(a.commands, line)
		a.mu.Unlock()
		_, _ = c.Write([]byte(a.exec(line)))
	}
}

func (a *fakeAccel) exec(line string) string {
	f := strings.Fields(line)
	switch {
	case len(f) >= 2 && f[0] == "show" && f[1] == "sessions":
		if len(f) != 3 {
			return "invalid syntax\r\n"
		}
		cols := strings.Split(f[2], ",")
		for _, c := range cols {
			if !fakeColumns[c] {
				return "unknown column " + c + "\r\n"
			}
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		return renderSessions(cols, a.sessions)
	case len(f) >= 3 && f[0] == "terminate" && f[1] == "sid":
		if len(f) == 4 && f[3] != "soft" && f[3] != "hard" || len(f) > 4 {
			return "invalid syntax\r\n"
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		for i, s := range a.sessions {
			if s["sid"] == f[2] {
				a.sessions = append(a.sessions[:i], a.sessions[i+1:]...)
				a.terminated = append(a.terminated, f[2])
				break
			}
		}
		return ""
	}
	return "invalid syntax\r\n"
}

// renderSessions lays the table out as show_ses_exec does: each column as
// wide as its longest cell or name; the header centred (width/2 - n/2 + 1
// spaces before the name when the column is wider than name + 1, " name  |"
// when one wider, " name |" else); the separator of '-' with '+'; rows of
// " value" padded to width + 2 and '|'; the last '|' or '+' of each line
// replaced by CRLF.
func renderSessions(cols []string, rows []Row) string {
	width := make([]int, len(cols))
	for i, c := range cols {
		width[i] = len(c)
		for _, r := range rows {
			if len(r[c]) > width[i] {
				width[i] = len(r[c])
			}
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		s := strings.Join(cells, "")
		b.WriteString(s[:len(s)-1] + "\r\n")
	}
	var head, sep []string
	for i, c := range cols {
		n, w := len(c), width[i]
		switch {
		case w > n+1:
			pre := w/2 - n/2 + 1
			cell := strings.Repeat(" ", pre) + c
			head = append(head, cell+strings.Repeat(" ", w+2-len(cell))+"|")
		case w > n:
			head = append(head, " "+c+"  |")
		default:
			head = append(head, " "+c+" |")
		}
		sep = append(sep, strings.Repeat("-", w+2)+"+")
	}
	line(head)
	line(sep)
	for _, r := range rows {
		var cells []string
		for i, c := range cols {
			cells = append(cells, fmt.Sprintf(" %-*s |", width[i], r[c]))
		}
		line(cells)
	}
	return b.String()
}

package accel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// accel-ppp's CLI on TCP ([cli] tcp=host:port; accel-pppd/cli/tcp.c): one
// command per line; with [cli] password set, the first line must be the
// password (else the connection is closed). There is no end-of-answer
// marker: accel-cmd, like this client, sends the command, shuts its sending
// side, and reads until accel-ppp closes the connection once the answer is
// out. Lines of the answer end in CRLF.

// CLI is a client of accel-ppp's TCP CLI.
type CLI struct {
	Addr     string        // host:port, e.g. 127.0.0.1:2001
	Password string        // [cli] password; "" = none
	Timeout  time.Duration // per command (default 5 s)
}

// maxAnswer bounds what one command may return (about 64 octets per
// session row: a million sessions).
const maxAnswer = 64 << 20

// Do runs one command and returns the answer.
func (c *CLI) Do(ctx context.Context, cmd string) (string, error) {
	if strings.ContainsAny(cmd, "\r\n") || len(cmd) > 1000 {
		return "", fmt.Errorf("accel cli: command %q", clip(cmd))
	}
	to := c.Timeout
	if to <= 0 {
		to = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, to)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", c.Addr)
	if err != nil {
		return "", fmt.Errorf("accel cli: %w", err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	req := cmd + "\n"
	if c.Password != "" {
		req = c.Password + "\n" + req
	}
	if _, err := io.WriteString(conn, req); err != nil {
		return "", fmt.Errorf("accel cli: %w", err)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
	b, err := io.ReadAll(io.LimitReader(conn, maxAnswer+1))
	if err != nil {
		return "", fmt.Errorf("accel cli: %s: %w", cmd, err)
	}
	if len(b) > maxAnswer {
		return "", fmt.Errorf("accel cli: %s: answer above %d octets", cmd, maxAnswer)
	}
	return string(b), nil
}

// Row is one session of `show sessions`, by column name.
type Row map[string]string

// SessionColumns are the columns the glue asks for (all in accel-ppp since
// 1.x: cli/show_sessions.c).
var SessionColumns = []string{"sid", "ifname", "username", "ip", "calling-sid", "called-sid", "state"}

// Sessions runs `show sessions <columns>` and parses the table.
func (c *CLI) Sessions(ctx context.Context, cols []string) ([]Row, error) {
	out, err := c.Do(ctx, "show sessions "+strings.Join(cols, ","))
	if err != nil {
		return nil, err
	}
	return ParseSessions(out, cols)
}

// Terminate ends a session: `terminate sid <sid> hard` (no LCP
// Terminate-Request first: the glue terminates sessions whose peer is gone).
// accel-ppp answers nothing when it found the session.
func (c *CLI) Terminate(ctx context.Context, sid string) error {
	if !validSID(sid) {
		return fmt.Errorf("accel cli: session id %q", clip(sid))
	}
	out, err := c.Do(ctx, "terminate sid "+sid+" hard")
	if err != nil {
		return err
	}
	if strings.TrimSpace(out) != "" {
		return fmt.Errorf("accel cli: terminate sid %s: %s", sid, clip(strings.TrimSpace(out)))
	}
	return nil
}

// ErrTable is an answer to `show sessions` that is not its table.
var ErrTable = errors.New("accel cli: not a session table")

// ParseSessions parses show_sessions.c's table: a header line of the column
// names, centred in cells separated by '|'; a line of '-' with '+' at the
// cell borders; one line per session, each cell " value" padded to the
// column's width + 2. Cells are cut at the separator line's '+' positions,
// so a value holding '|' stays whole. With no session, accel-ppp prints the
// header and the separator only.
func ParseSessions(out string, cols []string) ([]Row, error) {
	if strings.HasPrefix(out, "unknown column") {
		return nil, fmt.Errorf("%w: %s", ErrTable, clip(strings.TrimSpace(out)))
	}
	lines := strings.Split(out, "\r\n")
	if len(lines) < 3 || lines[len(lines)-1] != "" {
		return nil, fmt.Errorf("%w: %d lines, or not CRLF-terminated", ErrTable, len(lines)-1)
	}
	lines = lines[:len(lines)-1]
	head, sep := lines[0], lines[1]
	var cuts []int // index of each '+' of the separator line
	for i := 0; i < len(sep); i++ {
		switch sep[i] {
		case '+':
			cuts = append(cuts, i)
		case '-':
		default:
			return nil, fmt.Errorf("%w: separator line %q", ErrTable, clip(sep))
		}
	}
	if len(cuts) != len(cols)-1 || len(head) != len(sep) {
		return nil, fmt.Errorf("%w: %d columns for %d asked", ErrTable, len(cuts)+1, len(cols))
	}
	split := func(line string) ([]string, bool) {
		if len(line) != len(sep) {
			return nil, false
		}
		cells := make([]string, 0, len(cols))
		start := 0
		for _, c := range cuts {
			if line[c] != '|' {
				return nil, false
			}
			cells = append(cells, line[start:c])
			start = c + 1
		}
		return append(cells, line[start:]), true
	}
	names, ok := split(head)
	if !ok {
		return nil, fmt.Errorf("%w: header %q", ErrTable, clip(head))
	}
	for i, n := range names {
		if strings.TrimSpace(n) != cols[i] {
			return nil, fmt.Errorf("%w: column %d is %q, asked %q", ErrTable, i, clip(strings.TrimSpace(n)), cols[i])
		}
	}
	rows := make([]Row, 0, len(lines)-2)
	for i, line := range lines[2:] {
		cells, ok := split(line)
		if !ok {
			return nil, fmt.Errorf("%w: row %d %q", ErrTable, i+1, clip(line))
		}
		r := make(Row, len(cols))
		for j, c := range cells {
			if len(c) < 2 || c[0] != ' ' {
				return nil, fmt.Errorf("%w: row %d cell %d", ErrTable, i+1, j)
			}
			r[cols[j]] = strings.TrimRight(c[1:], " ")
		}
		rows = append(rows, r)
	}
	return rows, nil
}

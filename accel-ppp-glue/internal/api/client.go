package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// MaxBody bounds what the client reads of an answer (a session list of a
// few hundred thousand sessions fits).
const MaxBody = 512 << 20

// ErrNotRunning: nothing answers on the socket.
var ErrNotRunning = errors.New("control plane not running")

// Error is a 4xx/5xx answer of the daemon.
type Error struct {
	Status  int    // HTTP status code
	Message string // the answer's "error", or a summary of a body without one
}

func (e *Error) Error() string { return e.Message }

// Client talks to bng-cp's management socket.
type Client struct {
	Socket string
	hc     *http.Client
}

// NewClient returns a client for the unix socket at path; each request
// gives up after timeout (0: 30 s).
func NewClient(path string, timeout time.Duration) *Client {
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		},
		DisableCompression: true,
		MaxIdleConns:       1,
	}
	return &Client{Socket: path, hc: &http.Client{Transport: tr, Timeout: timeout}}
}

// Get fetches path (with query q, may be nil) and decodes the JSON answer
// into out.
func (c *Client) Get(ctx context.Context, path string, q url.Values, out any) error {
	return c.do(ctx, http.MethodGet, path, q, out)
}

// Delete sends DELETE path and decodes a JSON answer, if any, into out
// (out may be nil).
func (c *Client) Delete(ctx context.Context, path string, out any) error {
	return c.do(ctx, http.MethodDelete, path, nil, out)
}

func (c *Client) do(ctx context.Context, method, path string, q url.Values, out any) (err error) {
	// path is escaped (sessionPath): keep the escaping, e.g. of a "/" in an ID.
	u := url.URL{Scheme: "http", Host: "bng-cp", RawPath: path}
	if u.Path, err = url.PathUnescape(path); err != nil {
		return fmt.Errorf("bad path %q: %w", path, err)
	}
	if len(q) > 0 {
		u.RawQuery = q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
				return fmt.Errorf("%w: nothing listens on %s (is bng-cp running? --socket or BNGCP_SOCKET choose another socket)",
					ErrNotRunning, c.Socket)
			}
			return fmt.Errorf("cannot connect to %s: %v", c.Socket, op.Err)
		}
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
	if err != nil {
		return fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	if len(body) > MaxBody {
		return fmt.Errorf("%s %s: answer larger than %d bytes", method, path, MaxBody)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		var eb ErrorBody
		if json.Unmarshal(body, &eb) == nil && eb.Error != "" {
			return &Error{Status: resp.StatusCode, Message: eb.Error}
		}
		msg := strings.TrimSpace(string(body))
		if len(msg) > 200 {
			msg = msg[:200] + "..."
		}
		if msg == "" {
			msg = http.StatusText(resp.StatusCode)
		}
		return &Error{Status: resp.StatusCode, Message: fmt.Sprintf("%s %s: %s (HTTP %d)", method, path, msg, resp.StatusCode)}
	}
	if out == nil || len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("%s %s: bad answer: %w", method, path, err)
	}
	return nil
}

// Sessions lists the sessions that pass f.
func (c *Client) Sessions(ctx context.Context, f SessionFilter) ([]SessionView, error) {
	var out []SessionView
	err := c.Get(ctx, PathSessions, f.Query(), &out)
	return out, err
}

// Session returns one session.
func (c *Client) Session(ctx context.Context, id string) (*SessionView, error) {
	var out SessionView
	if err := c.Get(ctx, sessionPath(id), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Terminate asks the daemon to end a session. The returned view is nil when
// the daemon answered without a body.
func (c *Client) Terminate(ctx context.Context, id string) (*SessionView, error) {
	var out *SessionView
	if err := c.Delete(ctx, sessionPath(id), &out); err != nil {
		return nil, err
	}
	return out, nil
}

// Pools lists the address pools.
func (c *Client) Pools(ctx context.Context) ([]PoolView, error) {
	var out []PoolView
	err := c.Get(ctx, PathPools, nil, &out)
	return out, err
}

// Instances lists the DP instances.
func (c *Client) Instances(ctx context.Context) ([]InstanceView, error) {
	var out []InstanceView
	err := c.Get(ctx, PathInstances, nil, &out)
	return out, err
}

// Groups lists the line groups and their serving instances.
func (c *Client) Groups(ctx context.Context) ([]GroupView, error) {
	var out []GroupView
	err := c.Get(ctx, PathGroups, nil, &out)
	return out, err
}

// Stats returns the daemon's counters.
func (c *Client) Stats(ctx context.Context) (Stats, error) {
	var out Stats
	err := c.Get(ctx, PathStats, nil, &out)
	return out, err
}

func sessionPath(id string) string {
	return PathSessions + "/" + url.PathEscape(id)
}

package accel

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"time"
)

// The pppd-compat scripts accel-ppp runs are `bng-accel-glue hook <script>`
// (the generated ip-pre-up, ip-down, ip-change wrappers). The hook passes
// its arguments and pppd-compat's environment to the daemon over a unix
// socket, one JSON request per connection, and exits with the daemon's
// verdict: 0, or 1 with the reason on stderr. accel-ppp waits for ip-pre-up
// and terminates the session when it fails, so a session the DP refused
// never comes up.

// HookEnv are the environment variables pppd-compat sets (fill_env); the
// hook passes these only.
var HookEnv = []string{"PEERNAME", "CALLING_SID", "CALLED_SID", "IPV6_PREFIX", "IPV6_DELEGATED_PREFIX",
	"CONNECT_TIME", "BYTES_SENT", "BYTES_RCVD", "PACKETS_SENT", "PACKETS_RCVD"}

type hookRequest struct {
	Script string            `json:"script"`
	Args   []string          `json:"args"`
	Env    map[string]string `json:"env"`
}

// HookTimeout is how long the hook waits for the daemon's verdict.
const HookTimeout = 20 * time.Second

// RunHook is the hook's side: send the call, wait for the verdict.
func RunHook(socket, script string, args []string, environ []string) error {
	env := map[string]string{}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		for _, want := range HookEnv {
			if k == want {
				env[k] = v
			}
		}
	}
	b, err := json.Marshal(hookRequest{Script: script, Args: args, Env: env})
	if err != nil {
		return err
	}
	if len(b) > MaxEventSize {
		return fmt.Errorf("hook: request of %d octets", len(b))
	}
	c, err := net.DialTimeout("unix", socket, 2*time.Second)
	if err != nil {
		return fmt.Errorf("hook: bng-accel-glue not reachable: %w", err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(HookTimeout))
	if _, err := c.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("hook: %w", err)
	}
	line, err := bufio.NewReader(io.LimitReader(c, 4096)).ReadString('\n')
	if err != nil {
		return fmt.Errorf("hook: no verdict: %w", err)
	}
	line = strings.TrimSuffix(line, "\n")
	if line == "ok" {
		return nil
	}
	return errors.New(strings.TrimPrefix(line, "error: "))
}

// HookServer serves the hooks' calls on a unix socket.
type HookServer struct {
	ln     net.Listener
	handle func(ctx context.Context, ev Event) error
	bad    func(err error)
	wg     sync.WaitGroup
}

// ListenHook binds the socket (an old one left by a killed daemon is
// replaced; mode 0600: only root's accel-ppp may call). handle gets each
// well-formed event; bad each refused call.
func ListenHook(path string, handle func(ctx context.Context, ev Event) error, bad func(err error)) (*HookServer, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSocket != 0 {
		_ = os.Remove(path)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return &HookServer{ln: ln, handle: handle, bad: bad}, nil
}

// Serve accepts calls until ctx ends.
func (s *HookServer) Serve(ctx context.Context) {
	stop := context.AfterFunc(ctx, func() { _ = s.ln.Close() })
	defer stop()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.serveConn(ctx, c)
		}()
	}
	s.wg.Wait()
}

func (s *HookServer) serveConn(ctx context.Context, c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(HookTimeout))
	line, err := bufio.NewReaderSize(io.LimitReader(c, MaxEventSize+1), MaxEventSize+1).ReadSlice('\n')
	verdict := func(err error) {
		msg := "ok\n"
		if err != nil {
			msg = "error: " + strings.ReplaceAll(err.Error(), "\n", " ") + "\n"
		}
		_, _ = io.WriteString(c, msg)
	}
	if err != nil {
		err = bad("hook_request", "unreadable or longer than %d octets", MaxEventSize)
		s.bad(err)
		verdict(err)
		return
	}
	var req hookRequest
	if err := json.Unmarshal(line, &req); err != nil {
		err = bad("hook_request", "%v", err)
		s.bad(err)
		verdict(err)
		return
	}
	ev, err := ParseHook(req.Script, req.Args, req.Env)
	if err != nil {
		s.bad(err)
		verdict(err)
		return
	}
	hctx, cancel := context.WithTimeout(ctx, HookTimeout-time.Second)
	defer cancel()
	verdict(s.handle(hctx, ev))
}

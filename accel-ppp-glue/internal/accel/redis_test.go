package accel

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/prereq"
)

// redisServer is a private redis-server (Debian's) on a free loopback port,
// no persistence, stopped at the end of the test.
type redisServer struct {
	addr string
	cmd  *exec.Cmd
}

func startRedis(t *testing.T, bind string, inNS []string) *redisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		prereq.Skip(t, "redis-server is not installed (Debian: redis-server; scripts/setup.sh installs it)")
	}
	port := 0
	if bind == "127.0.0.1" && inNS == nil {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port = ln.Addr().(*net.TCPAddr).Port
		ln.Close()
	} else {
		port = 6379
	}
	dir := t.TempDir()
	args := append(append([]string(nil), inNS...), bin, "--bind", bind, "--port", fmt.Sprint(port), "--save", "",
		"--appendonly", "no", "--dir", dir, "--daemonize", "no", "--protected-mode", "no", "--loglevel", "warning")
	cmd := exec.Command(args[0], args[1:]...)
	logf, _ := os.Create(filepath.Join(dir, "redis.log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	rs := &redisServer{addr: net.JoinHostPort(bind, fmt.Sprint(port)), cmd: cmd}
	t.Cleanup(rs.stop)
	return rs
}

func (rs *redisServer) stop() {
	if rs.cmd.Process == nil || rs.cmd.ProcessState != nil {
		return
	}
	_ = rs.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = rs.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = rs.cmd.Process.Kill()
		<-done
	}
}

// publish sends PUBLISH over a connection of its own and returns the count
// of subscribers that got it (redis's answer).
func publish(t *testing.T, addr, channel, payload string) int64 {
	t.Helper()
	var c net.Conn
	var err error
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err = net.Dial("tcp", addr); err == nil || time.Now().After(end) {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write(respCommand("PUBLISH", channel, payload)); err != nil {
		t.Fatal(err)
	}
	v, err := readRESP(bufio.NewReader(c), 0)
	if err != nil || v.kind != ':' {
		t.Fatalf("PUBLISH: %+v %v", v, err)
	}
	return v.num
}

func TestSubscribeRealRedis(t *testing.T) {
	rs := startRedis(t, "127.0.0.1", nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var got []string
	subscribed := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		var err error
		for i := 0; i < 100; i++ { // redis-server may not listen yet
			err = Subscribe(ctx, rs.addr, "accel-ppp", func() { close(subscribed) }, func(p []byte) {
				mu.Lock()
				got = append(got, string(p))
				mu.Unlock()
			})
			var ne *net.OpError
			if !errors.As(err, &ne) || ne.Op != "dial" {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		errc <- err
	}()
	select {
	case <-subscribed:
	case err := <-errc:
		t.Fatal(err)
	case <-time.After(10 * time.Second):
		t.Fatal("not subscribed")
	}
	big := strings.Repeat("x", MaxEventSize+10) // delivered; the event parser refuses it
	for _, p := range []string{acctStart, "not json", big} {
		if n := publish(t, rs.addr, "accel-ppp", p); n != 1 {
			t.Fatalf("PUBLISH reached %d subscribers", n)
		}
	}
	if n := publish(t, rs.addr, "other", "x"); n != 0 {
		t.Fatal(n)
	}
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n == 3 || time.Now().After(end) {
			break
		}
	}
	mu.Lock()
	if len(got) != 3 || got[0] != acctStart || got[2] != big {
		t.Fatalf("%d messages", len(got))
	}
	mu.Unlock()
	// a bulk string above the bound: a protocol error, the connection dropped
	publish(t, rs.addr, "accel-ppp", strings.Repeat("y", maxBulk+1))
	select {
	case err := <-errc:
		if !errors.Is(err, ErrRESP) {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("an oversized message was accepted")
	}
}

func TestRESPHostile(t *testing.T) {
	for _, in := range []string{"", "*3\r\n", "$5\r\nab\r\n", "$-2\r\n", "*99\r\n", "?x\r\n", ":x\r\n", "+ok\n",
		"$3\r\nabcde", "*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n", "$" + fmt.Sprint(maxBulk+1) + "\r\n"} {
		if _, err := readRESP(bufio.NewReader(strings.NewReader(in)), 0); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

package accel

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// A SUBSCRIBE client of redis's RESP2 protocol: just what reading the fork's
// PUBLISHed events takes. Pub/sub delivers only to connected subscribers: a
// message published while the glue was away is lost, so the caller re-syncs
// from accel-ppp's CLI after every (re)subscription.

// maxBulk bounds one RESP bulk string: a longer one is a protocol error (the
// connection is dropped), not an allocation of the peer's choosing.
const maxBulk = 1 << 20

// ErrRESP is a reply that does not follow RESP2.
var ErrRESP = errors.New("accel: redis protocol error")

type respValue struct {
	kind  byte // '+', '-', ':', '$', '*'
	str   []byte
	num   int64
	null  bool
	elems []respValue
}

func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("%w: line too long", ErrRESP)
		}
		return nil, err
	}
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return nil, fmt.Errorf("%w: line without CRLF", ErrRESP)
	}
	return line[:len(line)-2], nil
}

func readRESP(r *bufio.Reader, depth int) (respValue, error) {
	if depth > 4 {
		return respValue{}, fmt.Errorf("%w: nested too deep", ErrRESP)
	}
	line, err := readLine(r)
	if err != nil {
		return respValue{}, err
	}
	if len(line) == 0 {
		return respValue{}, fmt.Errorf("%w: empty line", ErrRESP)
	}
	v := respValue{kind: line[0]}
	switch v.kind {
	case '+', '-':
		v.str = append([]byte(nil), line[1:]...)
		return v, nil
	case ':':
		v.num, err = strconv.ParseInt(string(line[1:]), 10, 64)
		if err != nil {
			return v, fmt.Errorf("%w: integer %q", ErrRESP, line[1:])
		}
		return v, nil
	case '$', '*':
		n, err := strconv.ParseInt(string(line[1:]), 10, 64)
		if err != nil || n < -1 {
			return v, fmt.Errorf("%w: length %q", ErrRESP, line[1:])
		}
		if n == -1 {
			v.null = true
			return v, nil
		}
		if v.kind == '$' {
			if n > maxBulk {
				return v, fmt.Errorf("%w: bulk string of %d octets", ErrRESP, n)
			}
			buf := make([]byte, n+2)
			if _, err := io.ReadFull(r, buf); err != nil {
				return v, err
			}
			if buf[n] != '\r' || buf[n+1] != '\n' {
				return v, fmt.Errorf("%w: bulk string without CRLF", ErrRESP)
			}
			v.str = buf[:n]
			return v, nil
		}
		if n > 16 {
			return v, fmt.Errorf("%w: array of %d", ErrRESP, n)
		}
		for i := int64(0); i < n; i++ {
			e, err := readRESP(r, depth+1)
			if err != nil {
				return v, err
			}
			v.elems = append(v.elems, e)
		}
		return v, nil
	}
	return v, fmt.Errorf("%w: type %q", ErrRESP, v.kind)
}

func respCommand(args ...string) []byte {
	b := []byte("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, "\r\n"...)
		b = append(b, a...)
		b = append(b, "\r\n"...)
	}
	return b
}

// Subscribe connects to redis at addr, subscribes to channel, calls
// subscribed once the server confirmed, then fn with each message's payload,
// until ctx ends (nil) or the connection fails (the error).
func Subscribe(ctx context.Context, addr, channel string, subscribed func(), fn func(payload []byte)) error {
	d := net.Dialer{Timeout: 5 * time.Second}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { _ = c.Close() })
	defer stop()
	defer c.Close()
	if _, err := c.Write(respCommand("SUBSCRIBE", channel)); err != nil {
		return err
	}
	r := bufio.NewReaderSize(c, 4096)
	confirmed := false
	for {
		v, err := readRESP(r, 0)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if v.kind == '-' {
			return fmt.Errorf("redis: %s", clip(string(v.str)))
		}
		if v.kind != '*' || len(v.elems) != 3 || v.elems[0].kind != '$' {
			return fmt.Errorf("%w: not a pub/sub message", ErrRESP)
		}
		switch string(v.elems[0].str) {
		case "subscribe":
			if !confirmed {
				confirmed = true
				if subscribed != nil {
					subscribed()
				}
			}
		case "message":
			if v.elems[1].kind != '$' || string(v.elems[1].str) != channel || v.elems[2].kind != '$' || v.elems[2].null {
				return fmt.Errorf("%w: message of another channel or without payload", ErrRESP)
			}
			fn(v.elems[2].str)
		default:
			return fmt.Errorf("%w: pub/sub kind %q", ErrRESP, clip(string(v.elems[0].str)))
		}
	}
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"time"
)

// The status API: HTTP on a unix socket.
//
//	GET /v1/stats     the totals (the same object as a JSON line)
//	GET /v1/sessions  every session: state, address, PPPoE id, counters
//	                  (?state=up filters by state)
func (e *Emu) handler() http.Handler {
	mux := http.NewServeMux()
	write := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		_ = enc.Encode(v)
	}
	mux.HandleFunc("GET /v1/stats", func(w http.ResponseWriter, r *http.Request) {
		write(w, e.Stats())
	})
	mux.HandleFunc("GET /v1/sessions", func(w http.ResponseWriter, r *http.Request) {
		ss := e.Sessions()
		if want := r.URL.Query().Get("state"); want != "" {
			f := ss[:0:0]
			for _, s := range ss {
				if s.State == want {
					f = append(f, s)
				}
			}
			ss = f
		}
		if ss == nil {
			ss = []SessionStatus{}
		}
		write(w, ss)
	})
	return mux
}

// ServeStatus listens on the unix socket path (a stale socket file is
// replaced) until ctx ends; the socket file is removed at the end.
func (e *Emu) ServeStatus(ctx context.Context, path string) (func(), error) {
	return serveStatus(ctx, path, e.handler())
}

// serveStatus serves h on the unix socket path.
func serveStatus(ctx context.Context, path string, h http.Handler) (func(), error) {
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, errors.New(path + " exists and is not a socket")
		}
		os.Remove(path)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	stop := func() {
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		<-done
		os.Remove(path)
	}
	return stop, nil
}

// emitJSON writes one JSON line.
func emitJSON(w io.Writer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	b = append(b, '\n')
	_, _ = w.Write(b)
}

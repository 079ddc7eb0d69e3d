package onos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"time"
)

// Teardown requests of the SEBA app (docs/seba.md, docs/cp/onos.md): GET
// /onos/bngpod-seba/teardowns?after=N, polled every PollInterval. Each asks
// to end the sessions of one line that started before At, with Cause.

// Acct-Terminate-Cause names a teardown request may carry.
const (
	CauseLostCarrier = "Lost-Carrier" // the UNI was removed for longer than the hold-down
	CauseAdminReset  = "Admin-Reset"  // the subscriber was removed from provisioning
)

// MaxTeardownsBody bounds one answer.
const MaxTeardownsBody = 16 << 20

// Teardown is one request.
type Teardown struct {
	Version    int64     `json:"version"`
	AccessPort string    `json:"accessPort"`
	STag       uint16    `json:"stag"`
	CTag       uint16    `json:"ctag"`
	UNI        string    `json:"uni"`
	Cause      string    `json:"cause"`
	At         time.Time `json:"at"`
}

type teardownsBody struct {
	Version   *int64            `json:"version"`
	Teardowns []json.RawMessage `json:"teardowns"`
}

// DecodeTeardowns reads an answer of GET /teardowns: the app's version and
// the valid requests above after, oldest first. A body that is not an
// answer is an error; a request that is not valid (unknown field or cause,
// a tag outside 1..4094, no time, a version not above after or above the
// answer's) is left out with its reason in bad.
func DecodeTeardowns(b []byte, after int64) (int64, []Teardown, []string, error) {
	var body teardownsBody
	if err := json.Unmarshal(b, &body); err != nil {
		return 0, nil, nil, fmt.Errorf("onos: teardowns: %w", err)
	}
	if body.Version == nil || *body.Version < 0 || body.Teardowns == nil {
		return 0, nil, nil, errors.New(`onos: teardowns: no "version" (0 or above) or no "teardowns" list`)
	}
	var out []Teardown
	var bad []string
	for i, raw := range body.Teardowns {
		var t Teardown
		if err := strictJSON(raw, &t); err != nil {
			bad = append(bad, fmt.Sprintf("request %d: %v", i, err))
			continue
		}
		switch {
		case t.AccessPort == "" || t.STag < 1 || t.STag > 4094 || t.CTag < 1 || t.CTag > 4094:
			bad = append(bad, fmt.Sprintf("request %d: line %q/%d/%d", i, t.AccessPort, t.STag, t.CTag))
		case t.Cause != CauseLostCarrier && t.Cause != CauseAdminReset:
			bad = append(bad, fmt.Sprintf("request %d: unknown cause %q", i, t.Cause))
		case t.At.IsZero():
			bad = append(bad, fmt.Sprintf("request %d: no time", i))
		case t.Version <= after || t.Version > *body.Version:
			bad = append(bad, fmt.Sprintf("request %d: version %d outside %d..%d", i, t.Version, after+1, *body.Version))
		default:
			out = append(out, t)
		}
	}
	return *body.Version, out, bad, nil
}

// TeardownsURL is where the requests are read.
func (s *Subscribers) TeardownsURL(after int64) string {
	u := *s.c.cfg.URL
	u.Path = path.Join(path.Dir(u.Path), "bngpod-seba", "teardowns")
	u.RawQuery = url.Values{"after": {strconv.FormatInt(after, 10)}}.Encode()
	return u.String()
}

// pollTeardowns reads the requests every PollInterval until ctx ends,
// handing each to OnTeardown once. The app numbers them from 1 again when
// it restarts: a version below the last seen reads from the start again
// (a request only ends sessions older than it, so reading one twice is
// harmless).
func (s *Subscribers) pollTeardowns(ctx context.Context) {
	t := time.NewTicker(s.c.cfg.PollInterval)
	defer t.Stop()
	var after int64
	for {
		after = s.PollTeardowns(ctx, after)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// PollTeardowns reads the requests above after once and hands them to
// OnTeardown; it returns the version to ask after next time.
func (s *Subscribers) PollTeardowns(ctx context.Context, after int64) int64 {
	timeout := s.c.cfg.Timeout
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.TeardownsURL(after), nil)
	if err != nil {
		return after
	}
	req.SetBasicAuth(s.c.cfg.Username, s.c.cfg.Password)
	req.Header.Set("Accept", "application/json")
	resp, err := s.c.http.Do(req)
	if err != nil {
		s.teardownPolls.WithLabelValues("unreachable").Inc()
		return after
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		s.teardownPolls.WithLabelValues("absent").Inc()
		return after
	}
	b, err := readLimited(resp.Body, MaxTeardownsBody)
	st := status{code: resp.StatusCode, err: err}
	if err == nil && !st.ok() {
		st.err = fmt.Errorf("HTTP %d: %s", resp.StatusCode, errorText(b))
	}
	if st.err != nil {
		s.teardownPolls.WithLabelValues(st.label()).Inc()
		s.log.Warn("teardown requests not read", "err", st.err)
		return after
	}
	version, ts, bad, err := DecodeTeardowns(b, after)
	if err != nil {
		s.teardownPolls.WithLabelValues("bad").Inc()
		s.log.Warn("teardown requests refused", "err", err)
		return after
	}
	s.teardownPolls.WithLabelValues("ok").Inc()
	for _, why := range bad {
		s.log.Warn("teardown request left out", "reason", why)
	}
	if version < after {
		s.log.Info("the SEBA app's teardown log started again: reading it from the start", "version", version, "last", after)
		return 0
	}
	for _, t := range ts {
		s.teardowns.WithLabelValues(t.Cause).Inc()
		if s.OnTeardown != nil {
			s.OnTeardown(t)
		}
	}
	return version
}

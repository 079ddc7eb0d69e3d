package onos

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// PPPoE steps for SEBA's bng.pppoe (docs/seba.md, "SEBA's BNG events"): the
// ones Contract B's session reports do not carry (a PADI answered, the
// authentication's result) are posted to the SEBA app, POST
// /onos/bngpod-seba/pppoe-events, which turns each into a bng-api PppoeEvent.
// Best effort as SEBA's own relay is: a bounded queue, batches, no retry; a
// full queue or a failed POST drops events, counted, and never delays a
// session.

// PPPoE event types bng-cp reports (bng-api's PppoeEvent.EventType names).
const (
	EventSessionInit = "SESSION_INIT" // a PADI answered with a PADO
	EventAuthSuccess = "AUTH_SUCCESS" // the PAP Ack / CHAP Success sent
	EventAuthFailure = "AUTH_FAILURE" // the PAP Nak / CHAP Failure sent
)

// Bounds of the event stream.
const (
	PppoeEventQueue = 8192                   // events waiting to be posted
	maxPppoeBatch   = 1000                   // events per POST (the app's limit)
	pppoeEventDelay = 100 * time.Millisecond // how long an event may wait for its batch
)

// PppoeEvent is one step of a subscriber's session on a line.
type PppoeEvent struct {
	Type       string `json:"type"`
	AccessPort string `json:"accessPort"`
	STag       uint16 `json:"stag"`
	CTag       uint16 `json:"ctag"`
	MAC        string `json:"mac"`     // aa:bb:cc:dd:ee:ff
	PPPoEID    uint16 `json:"pppoeId"` // 0 before the PADS
}

type pppoeEventsBody struct {
	Events []PppoeEvent `json:"events"`
}

// pppoeEventsAnswer is the app's answer to a POST.
type pppoeEventsAnswer struct {
	Posted   int      `json:"posted"`
	Unmapped int      `json:"unmapped"`
	Refused  []string `json:"refused"`
}

func (s *Subscribers) initPppoeEvents() {
	s.events = make(chan PppoeEvent, PppoeEventQueue)
	s.flushes = make(chan chan struct{})
	s.eventResults = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bngcp_onos_pppoe_events_total",
		Help: "PPPoE steps for SEBA's bng.pppoe by result (posted, unmapped, refused, queue_full, failed).",
	}, []string{"result"})
}

// EventsURL is where the events are posted.
func (s *Subscribers) EventsURL() string {
	u := *s.c.cfg.URL
	u.Path = path.Join(path.Dir(u.Path), "bngpod-seba", "pppoe-events")
	u.RawQuery = ""
	return u.String()
}

// Report queues a step of a line's session, without waiting. Only lines the
// table maps are reported (the app posts no event without the line's OLT
// UNI); with no SEBA app the table is empty and nothing is queued.
func (s *Subscribers) Report(e PppoeEvent) {
	if _, ok := s.Lookup(e.AccessPort, e.STag, e.CTag); !ok {
		return
	}
	s.eventsOwed.Add(1)
	select {
	case s.events <- e:
	default:
		s.eventsOwed.Add(-1)
		s.eventResults.WithLabelValues("queue_full").Inc()
	}
}

// Flush returns once every step queued before it was posted (or dropped as
// failed), or after wait. The ONOS client calls it before each batch of
// session reports, so that the app sees a session's SESSION_INIT and
// AUTH_SUCCESS before its SESSION_CONFIRMATION (bng.pppoe in protocol
// order). With nothing queued (no SEBA app, or every step posted) it returns
// at once. It reports whether the queued steps were handed over in time.
func (s *Subscribers) Flush(ctx context.Context, wait time.Duration) bool {
	if s.eventsOwed.Load() == 0 {
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	done := make(chan struct{})
	select {
	case s.flushes <- done:
	case <-ctx.Done():
		return false
	}
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}

// postEvents posts the queued events in batches until ctx ends: a batch
// waits at most pppoeEventDelay for more events, unless a Flush asks for
// everything queued now.
func (s *Subscribers) postEvents(ctx context.Context) {
	batch := make([]PppoeEvent, 0, maxPppoeBatch)
	for {
		var flushed chan struct{}
		batch = batch[:0]
		select {
		case <-ctx.Done():
			return
		case e := <-s.events:
			batch = append(batch, e)
		case flushed = <-s.flushes:
		}
		if flushed == nil {
			deadline := time.NewTimer(pppoeEventDelay)
		fill:
			for len(batch) < maxPppoeBatch {
				select {
				case e := <-s.events:
					batch = append(batch, e)
				case <-deadline.C:
					break fill
				case flushed = <-s.flushes:
					break fill
				case <-ctx.Done():
					break fill
				}
			}
			deadline.Stop()
		}
		if flushed == nil {
			s.post(ctx, batch)
			continue
		}
		// a Flush: this batch and everything in the queue now, in batches
		for {
		drain:
			for len(batch) < maxPppoeBatch {
				select {
				case e := <-s.events:
					batch = append(batch, e)
				default:
					break drain
				}
			}
			full := len(batch) == maxPppoeBatch
			s.post(ctx, batch)
			batch = batch[:0]
			if !full || ctx.Err() != nil {
				break
			}
		}
		close(flushed)
	}
}

// post posts a batch (none when empty); its steps are no longer owed.
func (s *Subscribers) post(ctx context.Context, batch []PppoeEvent) {
	if len(batch) == 0 {
		return
	}
	s.postBatch(ctx, batch)
	s.eventsOwed.Add(-int64(len(batch)))
}

func (s *Subscribers) postBatch(ctx context.Context, batch []PppoeEvent) {
	fail := func(err error) {
		s.eventResults.WithLabelValues("failed").Add(float64(len(batch)))
		s.log.Warn("PPPoE events for SEBA not posted (dropped)", "events", len(batch), "url", s.EventsURL(), "err", err)
	}
	body, err := json.Marshal(pppoeEventsBody{Events: batch})
	if err != nil {
		fail(err)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, s.c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.EventsURL(), bytes.NewReader(body))
	if err != nil {
		fail(err)
		return
	}
	req.SetBasicAuth(s.c.cfg.Username, s.c.cfg.Password)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := s.c.http.Do(req)
	if err != nil {
		fail(err)
		return
	}
	defer resp.Body.Close()
	b, err := readLimited(resp.Body, 1<<20)
	if err == nil && (resp.StatusCode < 200 || resp.StatusCode > 299) {
		err = fmt.Errorf("HTTP %d: %s", resp.StatusCode, errorText(b))
	}
	var a pppoeEventsAnswer
	if err == nil {
		err = json.Unmarshal(b, &a)
	}
	if err != nil {
		fail(err)
		return
	}
	s.eventResults.WithLabelValues("posted").Add(float64(a.Posted))
	s.eventResults.WithLabelValues("unmapped").Add(float64(a.Unmapped))
	s.eventResults.WithLabelValues("refused").Add(float64(len(a.Refused)))
	for _, why := range a.Refused {
		s.log.Warn("PPPoE event refused by the SEBA app", "reason", why)
	}
}

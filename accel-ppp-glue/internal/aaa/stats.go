package aaa

import "time"

// ServerStats are the counters of one server address (auth or acct port).
// All counters are monotonic; InFlight, Sockets and DeadUntil are gauges.
type ServerStats struct {
	Name, Kind, Addr string // Kind "auth" or "acct"
	Requests         uint64 // requests sent (not counting retransmissions)
	Responses        uint64 // valid replies
	Retransmits      uint64
	Timeouts         uint64 // transmissions without a valid reply in time
	// Replies dropped: wrong Response Authenticator, no Message-Authenticator
	// on an Access reply (Blast-RADIUS, CVE-2024-3596), wrong
	// Message-Authenticator, malformed, no request waiting for that
	// identifier (late or spoofed), a code that does not answer the request.
	BadAuthenticator, MissingMessageAuthenticator, BadMessageAuthenticator uint64
	Malformed, Unmatched, UnexpectedCode                                   uint64
	SendErrors                                                             uint64
	DeadMarks                                                              uint64 // times the server was declared dead
	LatencySum                                                             time.Duration
	InFlight                                                               int64
	Sockets                                                                int
	DeadUntil                                                              time.Time // zero = alive
}

// Stats is a snapshot of a Client's counters.
type Stats struct {
	Accepts, Rejects, Challenges uint64 // Access replies by code (a Challenge is handled as Reject)
	AuthFailures                 uint64 // Authenticate calls no server answered
	AcctFailures                 uint64 // Account calls no server answered
	Failovers                    uint64 // moves to the next server within one call
	Servers                      []ServerStats
}

// Stats returns a snapshot of the counters (cheap; safe to call often).
func (c *Client) Stats() Stats {
	s := Stats{
		Accepts:      c.accepts.Load(),
		Rejects:      c.rejects.Load(),
		Challenges:   c.challenges.Load(),
		AuthFailures: c.authFailures.Load(),
		AcctFailures: c.acctFailures.Load(),
		Failovers:    c.failovers.Load(),
	}
	for _, list := range [][]*endpoint{c.auth, c.acct} {
		for _, e := range list {
			s.Servers = append(s.Servers, e.stats())
		}
	}
	return s
}

func (e *endpoint) stats() ServerStats {
	e.mu.Lock()
	n := len(e.socks)
	e.mu.Unlock()
	st := ServerStats{
		Name: e.name, Kind: e.kind, Addr: e.addr.String(),
		Requests:                    e.st.requests.Load(),
		Responses:                   e.st.responses.Load(),
		Retransmits:                 e.st.retransmits.Load(),
		Timeouts:                    e.st.timeouts.Load(),
		BadAuthenticator:            e.st.badAuthenticator.Load(),
		MissingMessageAuthenticator: e.st.missingMA.Load(),
		BadMessageAuthenticator:     e.st.badMA.Load(),
		Malformed:                   e.st.malformed.Load(),
		Unmatched:                   e.st.unmatched.Load(),
		UnexpectedCode:              e.st.unexpectedCode.Load(),
		SendErrors:                  e.st.sendErrors.Load(),
		DeadMarks:                   e.st.deadMarks.Load(),
		LatencySum:                  time.Duration(e.st.latencyNs.Load()),
		InFlight:                    e.st.inflight.Load(),
		Sockets:                     n,
	}
	if d := e.deadUntil.Load(); d != 0 && time.Now().UnixNano() < d {
		st.DeadUntil = time.Unix(0, d)
	}
	return st
}

package core

import (
	"context"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/aaa"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pfcpcp"
)

// The daemon's seams: what it needs of the AAA back end, the user plane and
// the session store, each as the small interface it uses. The real parts are
// aaa.Client (RADIUS) and aaa.Users (a users file), pfcpcp.Function (PFCP to
// the DP instances) and store.DB (bbolt); the daemon's own tests put theirs in.

// authenticator checks a subscriber's credentials: RADIUS (aaa.Client) or
// the users file of a lab (aaa.Users).
type authenticator interface {
	Authenticate(ctx context.Context, r *aaa.AccessRequest) (*aaa.AccessResult, error)
}

// accountant sends the sessions' Accounting-Requests (aaa.Client) and counts
// its exchanges with the servers for the management API.
type accountant interface {
	Account(ctx context.Context, r *aaa.AcctRequest) error
	Stats() aaa.Stats
}

// userPlane installs sessions into the DP instances: the PFCP control-plane
// function (pfcpcp.Function), which calls the daemon back (pfcpcp.Handler)
// with associations, usage and LCP reports.
type userPlane interface {
	Run(ctx context.Context) error
	Establish(ctx context.Context, inst uint32, s *pfcpcp.Session) (upSEID uint64, err error)
	Modify(ctx context.Context, inst uint32, upSEID, cpSEID uint64, m *pfcpcp.Mod) ([]pfcpcp.Usage, error)
	Delete(ctx context.Context, inst uint32, upSEID uint64) ([]pfcpcp.Usage, error)
	UpdateLineGroup(ctx context.Context, inst uint32, g *pfcpcp.LineGroup) error
	// Restore tells the user plane of a session it did not establish in this
	// process (restored from the store); Forget of one it no longer serves
	// (its line group moved away).
	Restore(inst uint32, cpSEID, upSEID uint64)
	Forget(inst uint32, cpSEID uint64)
	Stats() pfcpcp.Stats
}

// newUserPlane makes the user plane when the daemon starts running.
type newUserPlane func(cfg pfcpcp.Config, peers []pfcpcp.Peer, h pfcpcp.Handler) (userPlane, error)

func newPFCP(cfg pfcpcp.Config, peers []pfcpcp.Peer, h pfcpcp.Handler) (userPlane, error) {
	f, err := pfcpcp.New(cfg, peers, h)
	if err != nil {
		return nil, err // not a typed nil inside the interface
	}
	return f, nil
}

// sessionStore keeps what survives a restart: the sessions, the DP
// instances' recovery time stamps, the line groups' placement and the boot
// counter (store.DB: bbolt, fsync, group commit).
type sessionStore interface {
	Put(bucket, key string, val []byte) error
	Get(bucket, key string) ([]byte, bool, error)
	Delete(bucket, key string) error
	ForEach(bucket string, fn func(key string, val []byte) error) error
	NextCounter(name string) (uint64, error)
	Close() error
}

// The real parts fit their seams.
var (
	_ authenticator = (*aaa.Client)(nil)
	_ authenticator = (*aaa.Users)(nil)
	_ accountant    = (*aaa.Client)(nil)
	_ userPlane     = (*pfcpcp.Function)(nil)
)

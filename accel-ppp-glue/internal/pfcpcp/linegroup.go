package pfcpcp

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/netip"
	"regexp"

	"github.com/wmnsk/go-pfcp/ie"
)

// The bngpod Line Group IE (docs/dp/pfcp.md, "bngpod Line Group IE"): a
// vendor-specific IE under bngpod's enterprise id, carried alone in an
// Association Update Request to make a DP instance adopt or release a line
// group (its AC MAC, core MAC and core address move with it).
const (
	msgAssocUpdateReq = 7
	msgAssocUpdateRsp = 8

	// EnterpriseBngpod is IANA's documentation PEN (RFC 5612), to be
	// replaced by a PEN of bngpod's own.
	EnterpriseBngpod uint16 = 32473
	// IELineGroup is the bngpod Line Group IE type.
	IELineGroup uint16 = 32768

	lineGroupFixed = 18 // action, AC MAC, core MAC, core IPv4, name length
)

// GroupAction is what a DP is asked to do with a line group.
type GroupAction uint8

// Line group actions.
const (
	GroupAdopt   GroupAction = 1
	GroupRelease GroupAction = 2
)

func (a GroupAction) String() string {
	switch a {
	case GroupAdopt:
		return "adopt"
	case GroupRelease:
		return "release"
	}
	return fmt.Sprintf("action-%d", uint8(a))
}

// LineGroup is the value of a bngpod Line Group IE.
type LineGroup struct {
	Action      GroupAction
	ACMAC       [6]byte
	CoreMAC     [6]byte
	CoreAddress netip.Addr // IPv4
	Name        string     // the pod's line-group name
	// CoreAddress6 is the group's core IPv6 address (the IE's optional
	// trailer); invalid: none.
	CoreAddress6 netip.Addr
}

var reGroupName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$`)

func (g *LineGroup) check() error {
	switch {
	case g.Action != GroupAdopt && g.Action != GroupRelease:
		return fmt.Errorf("pfcpcp: line group action %d", g.Action)
	case !g.CoreAddress.Unmap().Is4():
		return fmt.Errorf("pfcpcp: line group core address %v is not IPv4", g.CoreAddress)
	case !reGroupName.MatchString(g.Name):
		return fmt.Errorf("pfcpcp: line group name %q", g.Name)
	case g.CoreAddress6.IsValid() && (!g.CoreAddress6.Is6() || g.CoreAddress6.Is4In6()):
		return fmt.Errorf("pfcpcp: line group core IPv6 address %v", g.CoreAddress6)
	}
	return nil
}

// lineGroupValue is the IE's value after the enterprise id.
func lineGroupValue(g *LineGroup) []byte {
	v := make([]byte, 0, lineGroupFixed+len(g.Name))
	v = append(v, byte(g.Action))
	v = append(v, g.ACMAC[:]...)
	v = append(v, g.CoreMAC[:]...)
	a := g.CoreAddress.Unmap().As4()
	v = append(v, a[:]...)
	v = append(v, byte(len(g.Name)))
	v = append(v, g.Name...)
	if g.CoreAddress6.IsValid() {
		a6 := g.CoreAddress6.As16()
		v = append(v, a6[:]...)
	}
	return v
}

// EncodeLineGroupIE returns the whole IE: Type 0x8000, Length, Enterprise
// ID 32473, value.
func EncodeLineGroupIE(g *LineGroup) ([]byte, error) {
	if err := g.check(); err != nil {
		return nil, err
	}
	return raw(ie.NewVendorSpecificIE(IELineGroup, EnterpriseBngpod, lineGroupValue(g))), nil
}

// DecodeLineGroupIE decodes a whole bngpod Line Group IE (header included);
// anything but exactly one well-formed IE is an error (the DP answers
// cause 69 for it).
func DecodeLineGroupIE(b []byte) (*LineGroup, error) {
	if len(b) < 6 {
		return nil, fmt.Errorf("%w: line group IE shorter than its header", ErrMalformed)
	}
	t, l, eid := binary.BigEndian.Uint16(b), int(binary.BigEndian.Uint16(b[2:])), binary.BigEndian.Uint16(b[4:])
	if t != IELineGroup || eid != EnterpriseBngpod {
		return nil, fmt.Errorf("%w: IE %d enterprise %d is not the bngpod Line Group IE", ErrMalformed, t, eid)
	}
	if 4+l != len(b) {
		return nil, fmt.Errorf("%w: line group IE length %d, %d octets follow", ErrMalformed, l, len(b)-4)
	}
	return decodeLineGroupValue(b[6:])
}

func decodeLineGroupValue(v []byte) (*LineGroup, error) {
	if len(v) < lineGroupFixed+1 {
		return nil, fmt.Errorf("%w: line group IE value of %d octets", ErrMalformed, len(v))
	}
	n := int(v[17])
	if n < 1 || n > 63 || (len(v) != lineGroupFixed+n && len(v) != lineGroupFixed+n+16) {
		return nil, fmt.Errorf("%w: line group name length %d in a value of %d octets", ErrMalformed, n, len(v))
	}
	g := &LineGroup{Action: GroupAction(v[0]), CoreAddress: netip.AddrFrom4([4]byte(v[13:17])),
		Name: string(v[18 : 18+n])}
	if len(v) == lineGroupFixed+n+16 {
		g.CoreAddress6 = netip.AddrFrom16([16]byte(v[18+n:]))
	}
	copy(g.ACMAC[:], v[1:7])
	copy(g.CoreMAC[:], v[7:13])
	if err := g.check(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return g, nil
}

// UpdateLineGroup sends DP inst an Association Update Request carrying the
// bngpod Line Group IE and waits for the answer; a refusal is a
// *CauseError.
func (f *Function) UpdateLineGroup(ctx context.Context, inst uint32, g *LineGroup) error {
	if err := g.check(); err != nil {
		return err
	}
	p, err := f.upPeer(inst)
	if err != nil {
		return err
	}
	b := marshalMsg(msgAssocUpdateReq, false, 0, 0, []*ie.IE{
		nodeIDIE(f.cfg.NodeID),
		ie.NewVendorSpecificIE(IELineGroup, EnterpriseBngpod, lineGroupValue(g)),
	})
	m, err := f.call(ctx, p, msgAssocUpdateReq, b)
	if err != nil {
		return err
	}
	c, err := m.cause()
	if err != nil {
		return err
	}
	if c != CauseAccepted {
		return m.causeError(c)
	}
	return nil
}

// Forget drops the function's record of a session on DP inst (it was
// removed there by other means, e.g. with its line group's release), so
// that late reports for it are answered "session not found".
func (f *Function) Forget(inst uint32, cpSEID uint64) {
	f.mu.Lock()
	if up, ok := f.sessions[sessKey{inst, cpSEID}]; ok {
		delete(f.sessions, sessKey{inst, cpSEID})
		delete(f.bySEID, sessKey{inst, up})
	}
	f.mu.Unlock()
}

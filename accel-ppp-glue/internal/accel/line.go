package accel

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/config"
)

// Where maps a control interface to the pod: the instance (its VXLAN
// interface, VNI = instance id) and the line (S-tag, C-tag).
type Where struct {
	Instance   uint32
	STag, CTag uint16
	Line       *config.Line
	Port       *config.AccessPort
}

// ParseIfname splits vx<instance>.<S-tag>.<C-tag>, the names the control
// server's interfaces have (topology/bngpod/accel.py: the set-up script
// makes vx<id> and vx<id>.<S>, accel-ppp's vlan-mon vx<id>.<S>.<C> with
// vlan-name=%I.%N).
func ParseIfname(name string) (inst uint32, stag, ctag uint16, err error) {
	parts := strings.Split(name, ".")
	if len(parts) != 3 || !strings.HasPrefix(parts[0], "vx") {
		return 0, 0, 0, fmt.Errorf("%q is not vx<instance>.<S-tag>.<C-tag>", clip(name))
	}
	num := func(s string, max uint64) (uint64, bool) {
		if s == "" || len(s) > 1 && s[0] == '0' {
			return 0, false
		}
		v, err := strconv.ParseUint(s, 10, 32)
		return v, err == nil && v >= 1 && v <= max
	}
	i, ok1 := num(parts[0][2:], 999)
	s, ok2 := num(parts[1], 4094)
	c, ok3 := num(parts[2], 4094)
	if !ok1 || !ok2 || !ok3 {
		return 0, 0, 0, fmt.Errorf("%q: instance 1..999, tags 1..4094", clip(name))
	}
	return uint32(i), uint16(s), uint16(c), nil
}

// Resolve finds the line of a control interface in the configuration.
func Resolve(cfg *config.Config, ifname string) (Where, error) {
	inst, stag, ctag, err := ParseIfname(ifname)
	if err != nil {
		return Where{}, bad("ctrl_ifname", "%v", err)
	}
	ln, port, ok := cfg.LineFor(inst, stag, ctag)
	if !ok {
		return Where{}, bad("unknown_line", "%s: no line of instance %d has S-tag %d C-tag %d", ifname, inst, stag, ctag)
	}
	return Where{Instance: inst, STag: stag, CTag: ctag, Line: ln, Port: port}, nil
}

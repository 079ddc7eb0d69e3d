package accel

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// /proc/net/pppoe lists the kernel's connected PPPoE sockets (Linux
// drivers/net/ppp/pppoe.c, pppoe_seq_show): a header line
// "Id       Address              Device", then "%08X %pM %8s" per socket: the
// session id as the kernel keeps it (network byte order, printed as a host
// integer), the peer's MAC, the device. Upstream accel-ppp connects one such
// socket per session on the interface the PADR came in on, so (MAC, device)
// finds a session's id, which its events do not carry.

// PPPoESocket is one line of /proc/net/pppoe.
type PPPoESocket struct {
	SID    uint16
	MAC    [6]byte
	Device string
}

// ParseProcPPPoE reads /proc/net/pppoe. Lines that do not parse are an error
// (the file's format is the kernel's, not a peer's: a surprise is a bug).
func ParseProcPPPoE(r io.Reader) ([]PPPoESocket, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 4096)
	var out []PPPoESocket
	first := true
	for sc.Scan() {
		line := sc.Text()
		if first {
			first = false
			if f := strings.Fields(line); len(f) != 3 || f[0] != "Id" || f[1] != "Address" || f[2] != "Device" {
				return nil, fmt.Errorf("/proc/net/pppoe: header %q", clip(line))
			}
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 || len(f[0]) != 8 {
			return nil, fmt.Errorf("/proc/net/pppoe: line %q", clip(line))
		}
		v, err := strconv.ParseUint(f[0], 16, 32)
		if err != nil || v > 0xffff {
			return nil, fmt.Errorf("/proc/net/pppoe: id %q", clip(f[0]))
		}
		mac, err := parseMAC(f[1])
		if err != nil || !validIfname(f[2]) {
			return nil, fmt.Errorf("/proc/net/pppoe: line %q", clip(line))
		}
		// the id is a __be16 printed as a host integer: its host-order bytes are the wire's
		var b [2]byte
		binary.NativeEndian.PutUint16(b[:], uint16(v))
		out = append(out, PPPoESocket{SID: binary.BigEndian.Uint16(b[:]), MAC: mac, Device: f[2]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("/proc/net/pppoe: %w", err)
	}
	if first {
		return nil, fmt.Errorf("/proc/net/pppoe: empty (no header)")
	}
	return out, nil
}

// FindPPPoESID returns the session id of the socket to mac on device; an
// error when there is none or more than one (a stale socket: the caller asks
// again later rather than guess).
func FindPPPoESID(socks []PPPoESocket, mac [6]byte, device string) (uint16, error) {
	var found []uint16
	for _, s := range socks {
		if s.MAC == mac && s.Device == device && s.SID != 0 && s.SID != 0xffff {
			found = append(found, s.SID)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return 0, fmt.Errorf("no PPPoE socket to %x on %s", mac, device)
	}
	return 0, fmt.Errorf("%d PPPoE sockets to %x on %s", len(found), mac, device)
}

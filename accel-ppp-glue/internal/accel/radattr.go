package accel

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// pppd-compat's radattr file (radattr-prefix=P: P.<ppp unit>, rewritten at
// each CoA; pppd_compat.c write_radattr): one attribute per line, its
// dictionary name, a space, the value: integers as their dictionary value
// name or in decimal (printed with %i: a value above 2^31-1 shows
// negative), strings as they are, octets in upper-case hex, addresses dotted.

// Attrs are the Access-Accept attributes the glue uses, as bng-cp does
// (docs/cp/radius.md): Filter-Id names the QoS profile; WISPr-Bandwidth-Max-Up
// and -Down (bit/s) are explicit rates; Class is echoed in accounting.
type Attrs struct {
	FilterID       string
	UpBPS, DownBPS uint32 // 0 = not given
	Class          [][]byte
}

// ParseRadattr reads a radattr file. Lines of other attributes are skipped;
// a malformed line of a used attribute is an error.
func ParseRadattr(r io.Reader) (Attrs, error) {
	var a Attrs
	sc := bufio.NewScanner(io.LimitReader(r, 64<<10))
	sc.Buffer(make([]byte, 4096), 4096)
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		switch name {
		case "Filter-Id":
			if val == "" || len(val) > 63 {
				return a, fmt.Errorf("radattr: Filter-Id %q", clip(val))
			}
			a.FilterID = val
		case "WISPr-Bandwidth-Max-Up", "WISPr-Bandwidth-Max-Down":
			v, err := strconv.ParseInt(val, 10, 64)
			if err != nil || v < -(1<<31) || v > 1<<32-1 {
				return a, fmt.Errorf("radattr: %s %q", name, clip(val))
			}
			u := uint32(v) // %i of a uint32 above 2^31-1 printed it negative
			if name == "WISPr-Bandwidth-Max-Up" {
				a.UpBPS = u
			} else {
				a.DownBPS = u
			}
		case "Class":
			b, err := hex.DecodeString(val)
			if err != nil || len(b) == 0 || len(b) > 253 {
				return a, fmt.Errorf("radattr: Class %q", clip(val))
			}
			a.Class = append(a.Class, b)
		}
	}
	if err := sc.Err(); err != nil {
		return a, fmt.Errorf("radattr: %w", err)
	}
	return a, nil
}

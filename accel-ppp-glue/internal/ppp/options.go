package ppp

// forOptions calls fn for every option (type, value) of a Configure-*
// option list and reports false, without calling fn further, when the list
// is malformed (an option shorter than 2 bytes or running past the end).
func validOptions(opts []byte) bool {
	for len(opts) > 0 {
		if len(opts) < 2 || opts[1] < 2 || int(opts[1]) > len(opts) {
			return false
		}
		opts = opts[opts[1]:]
	}
	return true
}

// nextOption splits the first option off a list checked by validOptions.
func nextOption(opts []byte) (typ uint8, val, whole, rest []byte) {
	n := int(opts[1])
	return opts[0], opts[2:n], opts[:n], opts[n:]
}

// verdict of one option of a peer's Configure-Request.
type verdict uint8

const (
	vAck verdict = iota
	vNak
	vRej
)

// judge runs the two passes of RFC 1661 5.2-5.4 over a checked option list:
// any option to reject makes a Configure-Reject of exactly those options;
// otherwise any option to Nak makes a Configure-Nak of the Nak'd options with
// the values we want (appendNak); otherwise a Configure-Ack of the list.
func judge(opts, dst []byte, rejectOnly bool,
	classify func(typ uint8, val []byte) verdict,
	appendNak func(dst []byte, typ uint8, val []byte) []byte) (uint8, []byte) {
	cls := func(typ uint8, val []byte) verdict {
		v := classify(typ, val)
		if v == vNak && rejectOnly {
			return vRej
		}
		return v
	}
	start := len(dst)
	for o := opts; len(o) > 0; {
		typ, val, whole, rest := nextOption(o)
		o = rest
		if cls(typ, val) == vRej {
			dst = append(dst, whole...)
		}
	}
	if len(dst) > start {
		return CodeConfRej, dst
	}
	for o := opts; len(o) > 0; {
		typ, val, _, rest := nextOption(o)
		o = rest
		if cls(typ, val) == vNak {
			dst = appendNak(dst, typ, val)
		}
	}
	if len(dst) > start {
		return CodeConfNak, dst
	}
	return CodeConfAck, append(dst, opts...)
}

// xorshift32 derives a new non-zero magic number from an old one.
func xorshift32(x uint32) uint32 {
	if x == 0 {
		x = 0x9e3779b9
	}
	x ^= x << 13
	x ^= x >> 17
	x ^= x << 5
	return x
}

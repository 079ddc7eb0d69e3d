package aaa

import (
	"bufio"
	"context"
	"crypto/md5"
	"crypto/subtle"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"
)

// Users is a local user table for labs, loaded from a file in the style of
// FreeRADIUS's users file:
//
//	# comment
//	alice   Cleartext-Password := "secret"
//	        Framed-IP-Address = 100.64.0.10,
//	        Filter-Id = "gold",
//	        WISPr-Bandwidth-Max-Down = 100000000,
//	        WISPr-Bandwidth-Max-Up = 20000000
//	bob     Cleartext-Password := "pw2"
//
// An entry starts at column 0 with the user name (quoted or bare) and its
// check item, which must be Cleartext-Password. Reply items follow on
// indented lines, one per line, a trailing comma optional. Known reply
// items: Framed-IP-Address, Filter-Id, WISPr-Bandwidth-Max-Down,
// WISPr-Bandwidth-Max-Up, Session-Timeout, Acct-Interim-Interval,
// Idle-Timeout, Reply-Message, Class. Anything else is an error, so a typo
// does not silently give a user no shaping.
type Users struct {
	m map[string]*userEntry
}

type userEntry struct {
	password []byte
	reply    AccessResult
}

// LoadUsers reads a users file.
func LoadUsers(path string) (*Users, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	u := &Users{m: make(map[string]*userEntry)}
	var cur *userEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	ln := 0
	for sc.Scan() {
		ln++
		line := sc.Text()
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		fail := func(format string, a ...any) error {
			return fmt.Errorf("%s:%d: %s", path, ln, fmt.Sprintf(format, a...))
		}
		if line[0] != ' ' && line[0] != '\t' {
			name, rest, err := splitToken(t)
			if err != nil || name == "" {
				return nil, fail("bad user name")
			}
			if _, dup := u.m[name]; dup {
				return nil, fail("user %q defined twice", name)
			}
			attr, op, val, err := splitItem(strings.TrimSuffix(strings.TrimSpace(rest), ","))
			if err != nil {
				return nil, fail("%v", err)
			}
			if attr != "Cleartext-Password" || (op != ":=" && op != "==") {
				return nil, fail("check item must be Cleartext-Password := \"...\"")
			}
			cur = &userEntry{password: []byte(val)}
			cur.reply.Accept = true
			cur.reply.Server = "local"
			u.m[name] = cur
			continue
		}
		if cur == nil {
			return nil, fail("reply item before any user")
		}
		attr, _, val, err := splitItem(strings.TrimSuffix(t, ","))
		if err != nil {
			return nil, fail("%v", err)
		}
		if err := cur.reply.setItem(attr, val); err != nil {
			return nil, fail("%s: %v", attr, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return u, nil
}

// splitToken takes one bare or double-quoted token off s.
func splitToken(s string) (tok, rest string, err error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, `"`) {
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case '"':
				v, err := strconv.Unquote(s[:i+1])
				return v, s[i+1:], err
			}
		}
		return "", "", fmt.Errorf("unterminated quote")
	}
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, "", nil
	}
	return s[:i], s[i:], nil
}

// splitItem parses `Attr op value` with op one of = := == +=.
func splitItem(s string) (attr, op, val string, err error) {
	attr, rest, err := splitToken(s)
	if err != nil {
		return "", "", "", err
	}
	rest = strings.TrimSpace(rest)
	for _, o := range []string{":=", "==", "+=", "="} {
		if strings.HasPrefix(rest, o) {
			op = o
			break
		}
	}
	if op == "" {
		return "", "", "", fmt.Errorf("expected `Attribute = value`, got %q", s)
	}
	val, tail, err := splitToken(strings.TrimSpace(rest[len(op):]))
	if err != nil {
		return "", "", "", err
	}
	if strings.TrimSpace(tail) != "" {
		return "", "", "", fmt.Errorf("trailing text %q", strings.TrimSpace(tail))
	}
	return attr, op, val, nil
}

func (r *AccessResult) setItem(attr, val string) error {
	secs := func(dst *time.Duration) error {
		n, err := strconv.ParseUint(val, 10, 32)
		if err != nil {
			return err
		}
		*dst = time.Duration(n) * time.Second
		return nil
	}
	rate := func(dst *uint64) error {
		n, err := strconv.ParseUint(val, 10, 32)
		if err != nil {
			return err
		}
		*dst = n
		return nil
	}
	switch attr {
	case "Framed-IP-Address":
		a, err := netip.ParseAddr(val)
		if err != nil || !a.Is4() {
			return fmt.Errorf("not an IPv4 address: %q", val)
		}
		r.FramedIP = a
	case "Filter-Id":
		r.FilterID = val
	case "WISPr-Bandwidth-Max-Down":
		return rate(&r.RateDown)
	case "WISPr-Bandwidth-Max-Up":
		return rate(&r.RateUp)
	case "Session-Timeout":
		return secs(&r.SessionTimeout)
	case "Acct-Interim-Interval":
		return secs(&r.InterimInterval)
	case "Idle-Timeout":
		return secs(&r.IdleTimeout)
	case "Reply-Message":
		r.ReplyMessage = val
	case "Class":
		r.Class = append(r.Class, []byte(val))
	default:
		return fmt.Errorf("unsupported reply attribute")
	}
	return nil
}

// Len returns the number of users.
func (u *Users) Len() int { return len(u.m) }

// Authenticate checks a PAP password or a CHAP-MD5 response (RFC 1994:
// MD5(ID || secret || challenge)) and returns an Accept with the user's reply
// items, or a Reject (never nil, never an error: the file is in memory; the
// signature is the RADIUS client's, so either can authenticate sessions).
func (u *Users) Authenticate(_ context.Context, r *AccessRequest) (*AccessResult, error) {
	return u.check(r), nil
}

func (u *Users) check(r *AccessRequest) *AccessResult {
	reject := &AccessResult{Server: "local"}
	e, ok := u.m[r.UserName]
	if !ok {
		return reject
	}
	switch {
	case r.PAPPassword != nil && r.CHAPResponse == nil:
		if subtle.ConstantTimeCompare(r.PAPPassword, e.password) != 1 {
			return reject
		}
	case r.CHAPResponse != nil && r.PAPPassword == nil:
		h := md5.New()
		h.Write([]byte{r.CHAPID})
		h.Write(e.password)
		h.Write(r.CHAPChallenge)
		if subtle.ConstantTimeCompare(h.Sum(nil), r.CHAPResponse) != 1 {
			return reject
		}
	default:
		return reject
	}
	res := e.reply
	res.Class = make([][]byte, len(e.reply.Class))
	for i, c := range e.reply.Class {
		res.Class[i] = append([]byte(nil), c...)
	}
	return &res
}

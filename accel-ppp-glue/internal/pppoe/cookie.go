package pppoe

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"sync"
	"time"
)

// CookieLen is the length of the AC-Cookie values a CookieJar makes: the
// first 16 bytes of the HMAC-SHA256 (128 bits are plenty against guessing
// within a cookie's lifetime).
const CookieLen = 16

// CookieJar makes stateless AC-Cookies: HMAC-SHA256 keyed with a secret over
// the client MAC, the S-tag, the C-tag and the number of the time bucket
// (now / lifetime). A cookie is accepted in the bucket it was made in and the
// next one, so it lives between lifetime and twice the lifetime. A cookie
// copied to another line or MAC does not verify. Safe for concurrent use.
type CookieJar struct {
	lifetime int64 // nanoseconds per bucket
	pool     sync.Pool
}

// macState is a pooled HMAC with its buffers (so that nothing escapes per call).
type macState struct {
	h   hash.Hash
	msg [6 + 2 + 2 + 8]byte
	out [sha256.Size]byte
}

// NewCookieJar returns a jar keyed with secret; lifetime <= 0 means 30 s.
func NewCookieJar(secret []byte, lifetime time.Duration) *CookieJar {
	if lifetime <= 0 {
		lifetime = 30 * time.Second
	}
	key := append([]byte(nil), secret...)
	j := &CookieJar{lifetime: int64(lifetime)}
	j.pool.New = func() any { return &macState{h: hmac.New(sha256.New, key)} }
	return j
}

func (j *CookieJar) bucket(now time.Time) uint64 {
	return uint64(now.UnixNano() / j.lifetime)
}

// sum computes the MAC for (mac, stag, ctag, bucket) into m.out.
func (m *macState) sum(mac [6]byte, stag, ctag uint16, bucket uint64) []byte {
	copy(m.msg[:6], mac[:])
	binary.BigEndian.PutUint16(m.msg[6:], stag)
	binary.BigEndian.PutUint16(m.msg[8:], ctag)
	binary.BigEndian.PutUint64(m.msg[10:], bucket)
	m.h.Reset()
	m.h.Write(m.msg[:])
	return m.h.Sum(m.out[:0])[:CookieLen]
}

// Make returns a new cookie (CookieLen bytes) for the client.
func (j *CookieJar) Make(mac [6]byte, stag, ctag uint16, now time.Time) []byte {
	return j.AppendCookie(make([]byte, 0, CookieLen), mac, stag, ctag, now)
}

// AppendCookie appends the cookie Make would return to dst.
func (j *CookieJar) AppendCookie(dst []byte, mac [6]byte, stag, ctag uint16, now time.Time) []byte {
	m := j.pool.Get().(*macState)
	dst = append(dst, m.sum(mac, stag, ctag, j.bucket(now))...)
	j.pool.Put(m)
	return dst
}

// Check reports whether cookie was made by this jar for the client in the
// current or the previous time bucket. The comparison is constant-time.
func (j *CookieJar) Check(cookie []byte, mac [6]byte, stag, ctag uint16, now time.Time) bool {
	if len(cookie) != CookieLen {
		return false
	}
	m := j.pool.Get().(*macState)
	defer j.pool.Put(m)
	b := j.bucket(now)
	if hmac.Equal(cookie, m.sum(mac, stag, ctag, b)) {
		return true
	}
	return b > 0 && hmac.Equal(cookie, m.sum(mac, stag, ctag, b-1))
}

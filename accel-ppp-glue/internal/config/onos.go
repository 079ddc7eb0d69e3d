package config

import (
	"net/url"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Bounds and defaults of the optional onos section.
const (
	DefaultONOSPollInterval  = time.Second
	DefaultONOSPlacementWait = 30 * time.Second
	DefaultONOSTimeout       = 2 * time.Second
	maxONOSPlacementWait     = 60 * time.Second // the app's GET /placement?wait= limit
	minONOSDuration          = 100 * time.Millisecond
	maxONOSPollInterval      = time.Hour
	maxONOSTimeout           = time.Minute
	maxONOSURLLen            = 2048
	maxONOSCredentialLen     = 255
)

// onos reads the optional onos section; absent or null leaves Config.ONOS nil.
func (b *builder) onos(r *rawONOS) {
	if r == nil {
		return
	}
	o := &ONOS{PollInterval: DefaultONOSPollInterval, PlacementWait: DefaultONOSPlacementWait, Timeout: DefaultONOSTimeout}
	ok := true
	if v, vok := b.str(&r.URL, "onos.url"); vok {
		if u, msg := parseONOSURL(v); msg != "" {
			b.errorf("onos.url", r.URL.Line, "%s", msg)
			ok = false
		} else {
			o.URL = u
		}
	} else {
		ok = false
	}
	cred := func(n *yaml.Node, path string) (string, bool) {
		v, vok := b.str(n, path)
		if !vok {
			return "", false
		}
		if v == "" || len(v) > maxONOSCredentialLen {
			b.errorf(path, n.Line, "must be 1 to %d bytes long", maxONOSCredentialLen)
			return "", false
		}
		if strings.ContainsAny(v, "\x00\r\n") {
			b.errorf(path, n.Line, "must not contain NUL, CR or LF")
			return "", false
		}
		return v, true
	}
	if v, vok := cred(&r.Username, "onos.username"); vok {
		if strings.Contains(v, ":") {
			b.errorf("onos.username", r.Username.Line, "must not contain ':' (HTTP Basic authentication)")
			ok = false
		}
		o.Username = v
	} else {
		ok = false
	}
	if v, vok := cred(&r.Password, "onos.password"); vok {
		o.Password = Secret(v)
	} else {
		ok = false
	}
	if present(&r.CPName) {
		if v, vok := b.name(&r.CPName, "onos.cp_name"); vok {
			o.CPName = v
		} else {
			ok = false
		}
	} else {
		o.CPName = b.cfg.Radius.NASIdentifier
	}
	if present(&r.PollInterval) {
		if v, vok := b.duration(&r.PollInterval, "onos.poll_interval", minONOSDuration, maxONOSPollInterval); vok {
			o.PollInterval = v
		} else {
			ok = false
		}
	}
	if present(&r.PlacementWait) {
		if v, vok := b.duration(&r.PlacementWait, "onos.placement_wait", 0, maxONOSPlacementWait); vok {
			if v%time.Second != 0 {
				b.errorf("onos.placement_wait", r.PlacementWait.Line, "%v: must be whole seconds (ONOS waits in seconds)", v)
				ok = false
			} else {
				o.PlacementWait = v
			}
		} else {
			ok = false
		}
	}
	if present(&r.Timeout) {
		if v, vok := b.duration(&r.Timeout, "onos.timeout", minONOSDuration, maxONOSTimeout); vok {
			o.Timeout = v
		} else {
			ok = false
		}
	}
	if present(&r.SebaStrict) {
		if s, sok := b.scalar(&r.SebaStrict, "onos.seba_strict"); sok {
			if s.ShortTag() != "!!bool" {
				b.errorf("onos.seba_strict", s.Line, "expected true or false, found %s", describe(s))
				ok = false
			} else {
				o.SebaStrict = s.Value == "true"
			}
		} else {
			ok = false
		}
	}
	if ok {
		b.cfg.ONOS = o
	}
}

// parseONOSURL checks the base URL of the ONOS application's REST API; it
// returns a message when it is not usable.
func parseONOSURL(v string) (*url.URL, string) {
	if len(v) > maxONOSURLLen {
		return nil, "URL longer than 2048 bytes"
	}
	u, err := url.Parse(v)
	switch {
	case err != nil:
		return nil, "invalid URL " + quoteShort(v)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, "URL " + quoteShort(v) + " must start with http:// or https://"
	case u.Host == "" || u.Hostname() == "":
		return nil, "URL " + quoteShort(v) + " has no host"
	case u.User != nil:
		return nil, "URL must not carry credentials: use onos.username and onos.password"
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return nil, "URL " + quoteShort(v) + " must not have a query or a fragment"
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, ""
}

func quoteShort(v string) string {
	if len(v) > 60 {
		v = v[:57] + "..."
	}
	return "\"" + strings.ReplaceAll(v, "\"", "\\\"") + "\""
}

// duration reads a Go duration string such as "1s" or "500ms" in [lo, hi].
func (b *builder) duration(n *yaml.Node, path string, lo, hi time.Duration) (time.Duration, bool) {
	v, ok := b.str(n, path)
	if !ok {
		return 0, false
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		b.errorf(path, n.Line, "invalid duration %s: write e.g. 1s or 500ms", quoteShort(v))
		return 0, false
	}
	if d < lo || d > hi {
		b.errorf(path, n.Line, "%s is out of range %s..%s", v, lo, hi)
		return 0, false
	}
	return d, true
}

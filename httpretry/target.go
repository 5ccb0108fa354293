package httpretry

import (
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
)

// target returns the key of u's breaker and budget: scheme://host:port,
// with the scheme's default port filled in and the host in lower case,
// so that "http://Example.com" and "http://example.com:80/x" share one.
// It allocates once, for the result.
func target(u *url.URL) string {
	host, port := u.Hostname(), u.Port()
	if hasUpper(host) {
		host = strings.ToLower(host)
	}
	if port == "" {
		switch u.Scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	if strings.IndexByte(host, ':') >= 0 { // IPv6
		return u.Scheme + "://[" + host + "]:" + port
	}
	return u.Scheme + "://" + host + ":" + port
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// maxTargets is how many targets a Transport keeps the key of (see
// targetCache): as many as budget.Shared keeps budgets for. Past it, the
// key of a new host is built for each request, as without the cache.
const maxTargets = 256

// targetCache keeps each host's target key, so that a request to a host
// seen before costs no allocation for it. Reading is one atomic load and
// one map lookup, without a lock: the map is a snapshot, never written
// once stored, and a new host replaces it with a copy one entry longer
// (at most maxTargets copies, of at most maxTargets entries, per
// Transport). The key is the URL's scheme and its Host field as they
// are, so "Example.com" and "example.com:80" are two entries with one
// target.
type targetCache struct {
	read atomic.Pointer[map[hostKey]string]
	mu   sync.Mutex // held to replace read
}

type hostKey struct{ scheme, host string }

// get returns target(u), from the cache when u's host is in it.
func (c *targetCache) get(u *url.URL) string {
	k := hostKey{u.Scheme, u.Host}
	p := c.read.Load()
	if p != nil {
		if t, ok := (*p)[k]; ok {
			return t
		}
	}
	t := target(u)
	if p == nil || len(*p) < maxTargets {
		c.add(k, t)
	}
	return t
}

func (c *targetCache) add(k hostKey, t string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var old map[hostKey]string
	if p := c.read.Load(); p != nil {
		old = *p
	}
	if _, ok := old[k]; ok || len(old) >= maxTargets {
		return
	}
	m := make(map[hostKey]string, len(old)+1)
	for k, v := range old {
		m[k] = v
	}
	// Clone the key's strings: they are parts of the request's URL,
	// whose path and query the cache should not keep alive.
	m[hostKey{strings.Clone(k.scheme), strings.Clone(k.host)}] = t
	c.read.Store(&m)
}

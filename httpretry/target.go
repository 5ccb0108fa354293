package httpretry

import (
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
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

// maxTargets is how many targets a Transport keeps (see targetCache): as
// many as budget.Shared keeps budgets for. Past it, a new host's target
// is resolved for each request, as without the cache.
const maxTargets = 256

// guards is what a request's target gives the runner: its key, and its
// breaker and budget, as the Transport's registries (or, for the budget,
// budget.Shared) hold them; nil for a registry the Transport has not.
type guards struct {
	target  string
	breaker *breaker.Breaker
	budget  budget.Budget
}

// targetCache keeps each host's guards, so that a request to a host seen
// before costs no allocation and no registry lookup for them. Reading is
// one atomic load and one map lookup, without a lock: each map is a
// snapshot, never written once stored, and a new host replaces it with a
// copy one entry longer (at most maxTargets copies, of at most maxTargets
// entries, per Transport). The key is the URL's Host field as it is, in
// one map per scheme (http and https; other schemes are not kept), so
// "Example.com" and "example.com:80" are two entries with one target.
//
// A registry's answer is kept only when it is the target's own breaker
// or budget, which the registry keeps for good; the shared overflow
// entry of a full registry is asked for again on every request, so that
// the registry's Spills still counts each one.
type targetCache struct {
	http, https atomic.Pointer[map[string]guards]
	mu          sync.Mutex // held to replace a map
}

// guardsOf returns the guards of u's target.
func (c *config) guardsOf(u *url.URL) guards {
	var m *atomic.Pointer[map[string]guards]
	switch u.Scheme {
	case "https":
		m = &c.targets.https
	case "http":
		m = &c.targets.http
	}
	var p *map[string]guards
	if m != nil {
		if p = m.Load(); p != nil {
			if g, ok := (*p)[u.Host]; ok {
				return g
			}
		}
	}
	g, own := c.resolveGuards(target(u))
	if m != nil && own && (p == nil || len(*p) < maxTargets) {
		c.targets.add(m, u.Host, g)
	}
	return g
}

// resolveGuards asks the registries for target's breaker and budget; own
// reports that each answer is the target's own, not a full registry's
// overflow entry (whose Get counts a spill).
func (c *config) resolveGuards(target string) (g guards, own bool) {
	g.target, own = target, true
	if c.breakers != nil {
		n := c.breakers.Spills()
		g.breaker = c.breakers.Get(target)
		own = c.breakers.Spills() == n
	}
	budgets := c.budgets
	if budgets == nil && !c.opts.Unthrottled {
		budgets = budget.Shared() // as the runner would: the target's default budget
	}
	if budgets != nil {
		n := budgets.Spills()
		g.budget = budgets.Get(target)
		own = own && budgets.Spills() == n
	}
	return g, own
}

func (c *targetCache) add(m *atomic.Pointer[map[string]guards], host string, g guards) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var old map[string]guards
	if p := m.Load(); p != nil {
		old = *p
	}
	if _, ok := old[host]; ok || len(old) >= maxTargets {
		return
	}
	next := make(map[string]guards, len(old)+1)
	for k, v := range old {
		next[k] = v
	}
	// Clone the host: it is part of the request's URL, whose path and
	// query the cache should not keep alive.
	next[strings.Clone(host)] = g
	m.Store(&next)
}

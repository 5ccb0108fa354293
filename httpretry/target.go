package httpretry

import (
	"net/url"
	"strings"
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

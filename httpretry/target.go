package httpretry

import (
	"net"
	"net/url"
	"strings"
)

// target returns the key of u's breaker and budget: scheme://host:port,
// with the scheme's default port filled in and the host in lower case,
// so that "http://Example.com" and "http://example.com:80/x" share one.
func target(u *url.URL) string {
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		switch u.Scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return u.Scheme + "://" + net.JoinHostPort(host, port)
}

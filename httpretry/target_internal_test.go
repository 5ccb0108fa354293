package httpretry

import (
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTarget(t *testing.T) {
	for in, want := range map[string]string{
		"http://example.com/x?y":        "http://example.com:80",
		"https://Example.COM":           "https://example.com:443",
		"http://example.com:8080/":      "http://example.com:8080",
		"http://EXAMPLE.com:8080/":      "http://example.com:8080",
		"https://[::1]/":                "https://[::1]:443",
		"https://[::1]:8443/":           "https://[::1]:8443",
		"http://user:pw@127.0.0.1:9/p":  "http://127.0.0.1:9",
		"ftp://files.example.com/a.txt": "ftp://files.example.com:",
	} {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, target(u)); diff != "" {
			t.Errorf("target(%q) (-want +got):\n%s", in, diff)
		}
	}
}

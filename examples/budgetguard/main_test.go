package main

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/internal/leakcheck"
	"github.com/recur-go/recur/randcap"
)

func TestMain(m *testing.M) { leakcheck.VerifyTestMain(m) }

// TestGatewaySheds: against a backend that refuses everything, the gateway
// soon sheds most requests locally, and the backend sees only the others.
func TestGatewaySheds(t *testing.T) {
	var seen atomic.Int64
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		seen.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer backend.Close()
	defer backend.Client().CloseIdleConnections()
	b, err := budget.NewAdaptive(budget.AdaptiveConfig{Clock: clockcap.Virtual(time.Now()), Random: randcap.Seeded(1)})
	if err != nil {
		t.Fatal(err)
	}
	sent, shed := run(b, backend.Client(), backend.URL, 200)
	if int64(sent) != seen.Load() {
		t.Errorf("gateway sent %d, backend saw %d", sent, seen.Load())
	}
	// With no request accepted, the client's refusal probability climbs
	// towards 1 (the SRE book's formula, with a padding term that lets it
	// recover): most requests are shed.
	if shed < 150 || sent < 2 {
		t.Errorf("sent %d, shed %d; want most of 200 shed, a few sent", sent, shed)
	}
	if st := b.Stats(); st.Refused != uint64(shed) {
		t.Errorf("budget refused %d, gateway shed %d", st.Refused, shed)
	}
}

// TestGatewayPassesAHealthyBackend: nothing is shed while the backend
// answers.
func TestGatewayPassesAHealthyBackend(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer backend.Close()
	defer backend.Client().CloseIdleConnections()
	b, err := budget.NewAdaptive(budget.AdaptiveConfig{Clock: clockcap.Virtual(time.Now()), Random: randcap.Seeded(1)})
	if err != nil {
		t.Fatal(err)
	}
	if sent, shed := run(b, backend.Client(), backend.URL, 50); sent != 50 || shed != 0 {
		t.Errorf("sent %d, shed %d; want 50, 0", sent, shed)
	}
}

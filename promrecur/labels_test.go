package promrecur_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/promrecur"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
)

// rawScrape fetches /metrics in the text format and returns its status
// and size in bytes.
func (x *exporter) rawScrape() (int, int) {
	x.t.Helper()
	req, err := http.NewRequest("GET", x.srv.URL+"/metrics", nil)
	if err != nil {
		x.t.Fatal(err)
	}
	req.Header.Set("Accept", "text/plain; version=0.0.4")
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := x.client.Do(req)
	if err != nil {
		x.t.Fatal(err)
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		x.t.Fatal(err)
	}
	return resp.StatusCode, int(n)
}

// call runs one call through retry.Do toward target, failing once with
// reason, with the target's breaker and budget from the registries.
func call(m *promrecur.Metrics, breakers *breaker.Registry, budgets *budget.Registry, target, reason string) {
	clock := clockcap.Virtual(epoch)
	o := retry.Options{Caps: retry.Caps{Clock: clock}, Target: target, Observer: m,
		Breaker: breakers.Get(target), Budget: budgets.Get(target)}
	tries := 0
	judge := func(_ int, err error) retry.Judgement {
		if err != nil {
			return retry.Judgement{Verdict: verdict.Transient, Reason: reason}
		}
		return retry.Judgement{Verdict: verdict.Success}
	}
	retry.Do(context.Background(), o, schedule.Times{N: 2}, judge, nil, func(context.Context) (int, error) {
		if tries++; tries == 1 {
			return 0, errors.New("busy")
		}
		return 0, nil
	})
}

// letters returns n pseudo-random lowercase letters, the same every run.
func letters(n int) string {
	b := make([]byte, n)
	seed := uint32(1)
	for i := range b {
		seed = seed*1664525 + 1013904223
		b[i] = 'a' + byte(seed>>24)%26
	}
	return string(b)
}

// longScrape makes n calls, to n targets of size bytes each (target i
// starts at byte i of one string, so that the test holds size bytes, not
// n·size): each succeeds at once; or, when retried, it fails once with
// the target as the reason, with a breaker and a budget of its own that
// the metrics read. It returns the scrape's status, its size and the
// exporter.
func longScrape(t *testing.T, n, size int, retried bool) (int, int, *exporter) {
	big := letters(size + n)
	breakers, err := breaker.NewRegistry(breaker.Config{}, 2*n)
	if err != nil {
		t.Fatal(err)
	}
	budgets, err := budget.NewRegistry(budget.TokenBucketConfig{}, 2*n)
	if err != nil {
		t.Fatal(err)
	}
	c := promrecur.Config{Client: "webhooks", Registerer: prometheus.NewRegistry()}
	if retried {
		c.Breaker, c.Budget = breakers, budgets
	}
	m, err := promrecur.New(c)
	if err != nil {
		t.Fatal(err)
	}
	x := newExporter(t, c.Registerer.(*prometheus.Registry))
	for i := range n {
		target := big[i : i+size]
		if retried {
			call(m, breakers, budgets, target, target)
			continue
		}
		o := retry.Options{Target: target, Observer: m, Unthrottled: true}
		retry.Do(context.Background(), o, schedule.Times{N: 2}, nil, nil, func(context.Context) (int, error) { return 0, nil })
	}
	status, bytes := x.rawScrape()
	return status, bytes, x
}

// TestLongTargets: 300 targets of 1 MiB each (a webhook caller picks the
// host), each called once, make a scrape under 1 MB. Retried with a 1 MiB
// reason, each with a breaker and a budget, they make a scrape no larger
// than targets of 128 bytes do, whose every label value is at most 128
// bytes.
func TestLongTargets(t *testing.T) {
	const n, size = 300, 1 << 20
	status, bytes, x := longScrape(t, n, size, false)
	t.Logf("%d targets of %d bytes, one call each: /metrics is %d bytes", n, size, bytes)
	if status != http.StatusOK || bytes >= 1_000_000 {
		t.Errorf("GET /metrics: status %d, %d bytes; want 200 and under 1 MB", status, bytes)
	}
	fams := x.families()
	if got := len(labelValues(fams, "recur_calls_total", "target")); got != promrecur.DefaultMaxTargets+1 {
		t.Errorf("recur_calls_total: %d targets, want %d", got, promrecur.DefaultMaxTargets+1)
	}

	status, long, x := longScrape(t, n, size, true)
	_, short, _ := longScrape(t, n, 128, true)
	t.Logf("retried once, budgets too: /metrics is %d bytes with targets and reasons of %d bytes, %d with 128", long, size, short)
	if status != http.StatusOK || long > short {
		t.Errorf("GET /metrics: status %d, %d bytes; want 200 and at most the %d bytes of 128-byte targets", status, long, short)
	}
	fams = x.families()
	for _, label := range []string{"target", "reason"} {
		var over []int
		for name := range fams {
			for _, v := range labelValues(fams, name, label) {
				if len(v) > 128 {
					over = append(over, len(v))
				}
			}
		}
		if diff := cmp.Diff([]int(nil), over); diff != "" {
			t.Errorf("%s values over 128 bytes (-want +got):\n%s", label, diff)
		}
	}
}

// TestTargetsThatFoldTogether: targets, breakers and budgets whose names
// differ only in invalid UTF-8 become one label value each, and /metrics
// answers 200 with one series per label, the counts of both summed.
func TestTargetsThatFoldTogether(t *testing.T) {
	breakers, err := breaker.NewRegistry(breaker.Config{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	budgets, err := budget.NewRegistry(budget.TokenBucketConfig{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	m, err := promrecur.New(promrecur.Config{Client: "c", Registerer: reg, Breaker: breakers, Budget: budgets})
	if err != nil {
		t.Fatal(err)
	}
	x := newExporter(t, reg)
	names := []string{"pay\xff", "pay\xfe", "pay\xc3"}
	for _, name := range names {
		call(m, breakers, budgets, name, "r\xff"+name)
	}
	// A breaker and a budget of their own under a third spelling.
	lone, err := breaker.New(breaker.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.AddBreaker("pay\xfd", lone); err != nil {
		t.Fatal(err)
	}
	tb, err := budget.TokenBucketConfig{}.New()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.AddBudget("pay\xfd", tb); err != nil {
		t.Fatal(err)
	}
	if status, _ := x.rawScrape(); status != http.StatusOK {
		t.Fatalf("GET /metrics: status %d, want 200", status)
	}
	got := x.scrape("c")
	key := func(k string) string { return strings.ReplaceAll(k, "X", "\uFFFD") }
	want := map[string]float64{
		key(`recur_calls_total{target="payX"}`):                        3,
		key(`recur_attempts_total{target="payX",verdict="success"}`):   3,
		key(`recur_attempts_total{target="payX",verdict="transient"}`): 3,
		key(`recur_retries_total{reason="rXpayX",target="payX"}`):      3,
		key(`recur_retries_throttled_total{target="payX"}`):            0,
		key(`recur_recoveries_total{target="payX"}`):                   3,
		key(`recur_attempt_duration_seconds_count{target="payX"}`):     6,
		key(`recur_attempt_duration_seconds_sum{target="payX"}`):       0,
		key(`recur_breaker_state{target="payX"}`):                      0,
		key(`recur_breaker_opened_total{target="payX"}`):               0,
		key(`recur_breaker_rejected_total{target="payX"}`):             0,
		// The fewest tokens of the four buckets: the budget added alone
		// is full, the registry's paid for three retries.
		key(`recur_budget_tokens{target="payX"}`): got[key(`recur_budget_tokens{target="payX"}`)],
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("series (-want +got):\n%s", diff)
	}
}

// TestLongClient: New refuses a client label longer than 128 bytes.
func TestLongClient(t *testing.T) {
	_, err := promrecur.New(promrecur.Config{Client: strings.Repeat("c", 129), Registerer: prometheus.NewRegistry()})
	if err == nil || !strings.Contains(err.Error(), "129 bytes") {
		t.Errorf("got %v, want an error about the 129 bytes", err)
	}
}

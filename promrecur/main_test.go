package promrecur_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.uber.org/goleak"
)

// TestMain fails the run if any test leaves a goroutine behind: a
// server, a connection's read or write loop.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// epoch starts the virtual clocks.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// exporter serves reg's metrics over promhttp on 127.0.0.1 and scrapes
// them over HTTP, as Prometheus would.
type exporter struct {
	t      *testing.T
	srv    *httptest.Server
	client *http.Client
}

func newExporter(t *testing.T, reg *prometheus.Registry) *exporter {
	t.Helper()
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}))
	tr := &http.Transport{}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		srv.Close()
	})
	return &exporter{t: t, srv: srv, client: &http.Client{Transport: tr}}
}

// families scrapes /metrics in the text format and parses it with
// expfmt.
func (x *exporter) families() map[string]*dto.MetricFamily {
	x.t.Helper()
	req, err := http.NewRequest("GET", x.srv.URL+"/metrics", nil)
	if err != nil {
		x.t.Fatal(err)
	}
	req.Header.Set("Accept", "text/plain; version=0.0.4")
	resp, err := x.client.Do(req)
	if err != nil {
		x.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		x.t.Fatalf("GET /metrics: %s: %s", resp.Status, b)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		x.t.Fatalf("GET /metrics: Content-Type %q, want the text format", ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		x.t.Fatalf("parsing /metrics: %v", err)
	}
	return fams
}

// scrape returns the samples of the recur_ series, keyed by name and
// labels (client left out, after checking it is want), such as
// `recur_retries_total{reason="http-503",target="http://127.0.0.1:1234"}`;
// a histogram gives its _count and _sum.
func (x *exporter) scrape(client string) map[string]float64 {
	x.t.Helper()
	out := map[string]float64{}
	for name, f := range x.families() {
		if !strings.HasPrefix(name, "recur_") {
			continue
		}
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				if l.GetName() == "client" {
					if l.GetValue() != client {
						x.t.Errorf("%s: client=%q, want %q", name, l.GetValue(), client)
					}
					continue
				}
				labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			sort.Strings(labels)
			key := "{" + strings.Join(labels, ",") + "}"
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				out[name+key] = m.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				out[name+key] = m.GetGauge().GetValue()
			case dto.MetricType_HISTOGRAM:
				out[name+"_count"+key] = float64(m.GetHistogram().GetSampleCount())
				out[name+"_sum"+key] = m.GetHistogram().GetSampleSum()
			default:
				x.t.Errorf("%s: unexpected type %v", name, f.GetType())
			}
		}
	}
	return out
}

// labelValues returns the distinct values of label among the series of
// the families whose names start with prefix.
func labelValues(fams map[string]*dto.MetricFamily, prefix, label string) []string {
	seen := map[string]bool{}
	for name, f := range fams {
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label {
					seen[l.GetValue()] = true
				}
			}
		}
	}
	vs := make([]string, 0, len(seen))
	for v := range seen {
		vs = append(vs, v)
	}
	slices.Sort(vs)
	return vs
}

// get fetches url through c and reads the body; the error is the
// transport's.
func get(ctx context.Context, c *http.Client, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

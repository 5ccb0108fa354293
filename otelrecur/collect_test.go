package otelrecur_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/recur-go/recur/otelrecur"
)

// collected is one collection of a ManualReader: by instrument name, the
// data points by their attributes other than recur.client, spelled
// "key=value,..." in sorted order ("" for none). A histogram's point is
// its count.
type collected map[string]map[string]float64

// collect reads r once and checks that every data point is the client's.
func collect(t testing.TB, r *sdkmetric.ManualReader, client string) collected {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := collected{}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != otelrecur.ScopeName {
			t.Errorf("scope %q; want %q", sm.Scope.Name, otelrecur.ScopeName)
		}
		for _, m := range sm.Metrics {
			points := map[string]float64{}
			key := func(set attribute.Set) string {
				if v, _ := set.Value(otelrecur.ClientKey); v.AsString() != client {
					t.Errorf("%s: a point of client %q; want %q", m.Name, v.AsString(), client)
				}
				var kv []string
				for _, a := range set.ToSlice() {
					if a.Key != otelrecur.ClientKey {
						kv = append(kv, string(a.Key)+"="+a.Value.String())
					}
				}
				slices.Sort(kv)
				return strings.Join(kv, ",")
			}
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					points[key(p.Attributes)] = float64(p.Value)
				}
			case metricdata.Gauge[int64]:
				for _, p := range d.DataPoints {
					points[key(p.Attributes)] = float64(p.Value)
				}
			case metricdata.Gauge[float64]:
				for _, p := range d.DataPoints {
					points[key(p.Attributes)] = p.Value
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					points[key(p.Attributes)] = float64(p.Count)
				}
			default:
				t.Fatalf("%s: unexpected data %T", m.Name, m.Data)
			}
			if len(points) > 0 {
				out[m.Name] = points
			}
		}
	}
	return out
}

// newMetrics returns the metrics of c on a MeterProvider with a manual
// reader, both closed when the test ends.
func newMetrics(t testing.TB, c otelrecur.Config) (*otelrecur.Metrics, *sdkmetric.ManualReader) {
	t.Helper()
	r := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r))
	t.Cleanup(func() {
		if err := mp.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	})
	c.MeterProvider = mp
	m, err := otelrecur.New(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Error(err)
		}
	})
	return m, r
}

// on is the attributes key of target, with more "key=value" pairs.
func on(target string, more ...string) string {
	kv := append([]string{"recur.target=" + target}, more...)
	slices.Sort(kv)
	return strings.Join(kv, ",")
}

// one is a point map of one point.
func one(key string, v float64) map[string]float64 { return map[string]float64{key: v} }

func describe(c collected) string { return fmt.Sprint(map[string]map[string]float64(c)) }

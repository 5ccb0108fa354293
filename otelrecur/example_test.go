package otelrecur_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/otelrecur"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// A runner reports to OpenTelemetry through the Metrics as its Observer.
// Here a manual reader stands for the exporter a program would set up
// (OTLP, Prometheus), and the operation fails twice before it succeeds.
func Example() {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())

	m, err := otelrecur.New(otelrecur.Config{Client: "payments", MeterProvider: mp})
	if err != nil {
		panic(err)
	}
	defer m.Close()

	calls := 0
	_, err = retry.Retry(context.Background(),
		retry.Options{Observer: m, Target: "ledger"},
		schedule.Times{N: 5},
		func(context.Context) (string, error) {
			if calls++; calls < 3 {
				return "", errors.New("unavailable")
			}
			return "ok", nil
		})
	fmt.Println("error:", err)

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		panic(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, mt := range sm.Metrics {
			if sum, ok := mt.Data.(metricdata.Sum[int64]); ok && (mt.Name == "recur.retries" || mt.Name == "recur.recoveries") {
				for _, p := range sum.DataPoints {
					target, _ := p.Attributes.Value(otelrecur.TargetKey)
					fmt.Printf("%s{recur.target=%s} %d\n", mt.Name, target.AsString(), p.Value)
				}
			}
		}
	}
	// Output:
	// error: <nil>
	// recur.retries{recur.target=ledger} 2
	// recur.recoveries{recur.target=ledger} 1
}

// An HTTP client whose retries, breakers and budgets are reported: the
// registries are shared by the Transport, which uses them, and the
// Metrics, which reads them at each collection. The server fails twice.
func Example_httpretry() {
	var seen atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if seen.Add(1) <= 2 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()

	reader := sdkmetric.NewManualReader() // a program sets up an exporter instead
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())

	breakers, err := breaker.NewRegistry(breaker.Config{}, 0)
	if err != nil {
		panic(err)
	}
	budgets, err := budget.NewRegistry(budget.TokenBucketConfig{}, 0)
	if err != nil {
		panic(err)
	}
	m, err := otelrecur.New(otelrecur.Config{Client: "payments", MeterProvider: mp, Breaker: breakers, Budget: budgets})
	if err != nil {
		panic(err)
	}
	defer m.Close()
	transport, err := httpretry.New(&http.Transport{}, "fulljitter(10ms, 100ms) & times(3)")
	if err != nil {
		panic(err)
	}
	transport.Breaker, transport.Budget, transport.Options.Observer = breakers, budgets, m
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport}

	resp, err := client.Get(srv.URL)
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.Status)

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		panic(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, mt := range sm.Metrics {
			switch d := mt.Data.(type) {
			case metricdata.Sum[int64]:
				if mt.Name == "recur.retries" {
					reason, _ := d.DataPoints[0].Attributes.Value(otelrecur.ReasonKey)
					fmt.Printf("%s{recur.reason=%s} %d\n", mt.Name, reason.AsString(), d.DataPoints[0].Value)
				}
			case metricdata.Gauge[int64]:
				fmt.Println(mt.Name, d.DataPoints[0].Value)
			case metricdata.Gauge[float64]:
				fmt.Println(mt.Name, d.DataPoints[0].Value)
			}
		}
	}
	// Output:
	// 200 OK
	// recur.retries{recur.reason=http-503} 2
	// recur.breaker.state 0
	// recur.budget.tokens 8.1
}

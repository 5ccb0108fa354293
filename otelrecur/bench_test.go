package otelrecur_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/recur-go/recur/otelrecur"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
)

// BenchmarkObserve is the cost of one event: on the SDK with a manual
// reader (its aggregation included), and on the API's no-op provider
// (the package's own work alone).
func BenchmarkObserve(b *testing.B) {
	events := []struct {
		name string
		e    retry.Event
	}{
		{"attempted", retry.Event{Kind: retry.Attempted, Target: "http://10.0.0.1:80", Attempt: 1, Verdict: verdict.Success, Elapsed: 3 * time.Millisecond}},
		{"retrying", retry.Event{Kind: retry.Retrying, Target: "http://10.0.0.1:80", Attempt: 1, Delay: 100 * time.Millisecond, Label: "http-503"}},
	}
	for _, p := range []struct {
		name string
		c    func(b *testing.B) otelrecur.Config
	}{
		{"sdk", func(b *testing.B) otelrecur.Config {
			mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
			b.Cleanup(func() { mp.Shutdown(context.Background()) })
			return otelrecur.Config{Client: "c", MeterProvider: mp}
		}},
		{"noop", func(*testing.B) otelrecur.Config {
			return otelrecur.Config{Client: "c", MeterProvider: noop.NewMeterProvider()}
		}},
	} {
		for _, ev := range events {
			b.Run(p.name+"/"+ev.name, func(b *testing.B) {
				m, err := otelrecur.New(p.c(b))
				if err != nil {
					b.Fatal(err)
				}
				defer m.Close()
				ctx := context.Background()
				m.Observe(ctx, ev.e) // the target's attribute sets are built once
				b.ReportAllocs()
				for b.Loop() {
					m.Observe(ctx, ev.e)
				}
			})
		}
	}
	// The SDK's own floor: one counter Add with a prebuilt attribute set,
	// what a retrying event costs the SDK.
	b.Run("sdk/bare-counter-add", func(b *testing.B) {
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		defer mp.Shutdown(context.Background())
		c, err := mp.Meter("bench").Int64Counter("c")
		if err != nil {
			b.Fatal(err)
		}
		opts := []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(
			attribute.String("recur.client", "c"), attribute.String("recur.target", "http://10.0.0.1:80"), attribute.String("recur.reason", "http-503")))}
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			c.Add(ctx, 1, opts...)
		}
	})
	// 256 targets in turn: the map lookup on a full map.
	b.Run("sdk/attempted-256-targets", func(b *testing.B) {
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		defer mp.Shutdown(context.Background())
		m, err := otelrecur.New(otelrecur.Config{Client: "c", MeterProvider: mp})
		if err != nil {
			b.Fatal(err)
		}
		defer m.Close()
		evs := make([]retry.Event, otelrecur.DefaultMaxTargets)
		for i := range evs {
			evs[i] = retry.Event{Kind: retry.Attempted, Target: "http://10.0.0.1:" + strconv.Itoa(i), Attempt: 1, Verdict: verdict.Success}
			m.Observe(context.Background(), evs[i])
		}
		ctx := context.Background()
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			m.Observe(ctx, evs[i%len(evs)])
			i++
		}
	})
	// A retry on a recording span: the span event is the cost.
	b.Run("sdk/retrying-span", func(b *testing.B) {
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		defer mp.Shutdown(context.Background())
		// The span keeps its first 128 events (the SDK's default limit) and
		// counts the rest as dropped.
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tracetest.NewSpanRecorder()))
		defer tp.Shutdown(context.Background())
		m, err := otelrecur.New(otelrecur.Config{Client: "c", MeterProvider: mp})
		if err != nil {
			b.Fatal(err)
		}
		defer m.Close()
		ctx, span := tp.Tracer("bench").Start(context.Background(), "call")
		defer span.End()
		e := events[1].e
		m.Observe(ctx, e)
		b.ReportAllocs()
		for b.Loop() {
			m.Observe(ctx, e)
		}
	})
}

// BenchmarkCall is a call whose first attempt succeeds, through
// retry.Retry: without an Observer, and with a Metrics on the SDK.
func BenchmarkCall(b *testing.B) {
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	defer mp.Shutdown(context.Background())
	m, err := otelrecur.New(otelrecur.Config{Client: "c", MeterProvider: mp})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	op := func(context.Context) (int, error) { return 1, nil }
	s := schedule.Times{N: 3}
	for _, tc := range []struct {
		name string
		o    retry.Options
	}{
		{"no-observer", retry.Options{Target: "t"}},
		{"otel-sdk", retry.Options{Target: "t", Observer: m}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := retry.Retry(ctx, tc.o, s, op); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package bench

import (
	"errors"
	"testing"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/verdict"
	"github.com/sony/gobreaker/v2"
)

// The breakers' work: admit a call and record its success, on a closed
// breaker that opens on 5 failures in a row or on half of at least 20 calls
// in the last 10 s failing, and stays open 5 s. Every breaker here uses the
// real clock.

// closedPath admits one call and records its success; it reports a refusal.
type closedPath func() error

type breakerLib struct {
	lib    string
	config string // as written in docs/benchmarks.md
	new    func() closedPath
	// tripper returns a breaker configured the same way as new's, as a
	// function that makes one call with the given outcome and reports
	// whether the breaker refused it.
	tripper func() func(fail bool) (refused bool)
}

// gobreakerSettings is recur's default breaker in gobreaker's terms: a
// rolling window of 10 buckets of 1 s, open for 5 s, one probe.
func gobreakerSettings() gobreaker.Settings {
	return gobreaker.Settings{
		Interval:     10 * time.Second,
		BucketPeriod: time.Second,
		Timeout:      5 * time.Second,
		ReadyToTrip: func(c gobreaker.Counts) bool {
			return c.ConsecutiveFailures >= 5 || c.Requests >= 20 && 2*c.TotalFailures >= c.Requests
		},
	}
}

// failsafeBreaker is the closest failsafe-go comes: its failure-rate rule
// (50% of at least 20 executions in 10 s, time-based) and its
// consecutive-failure rule are alternatives, one per breaker; this takes
// the rate rule.
func failsafeBreaker() circuitbreaker.CircuitBreaker[int] {
	return circuitbreaker.NewBuilder[int]().
		WithFailureRateThreshold(0.5, 20, 10*time.Second).
		WithDelay(5 * time.Second).
		Build()
}

func succeedNow() (int, error) { return 1, nil }

var errDown = errors.New("down")

func failNow() (int, error) { return 0, errDown }

var breakerLibs = []breakerLib{
	{
		lib:    "recur",
		config: "breaker.New(breaker.Config{}) (the defaults: 5 in a row, or 50% of ≥ 20 calls in 10 s; open 5 s); p, err := Allow(); Record(p, verdict.Success)",
		new: func() closedPath {
			b, err := breaker.New(breaker.Config{})
			if err != nil {
				panic(err)
			}
			return func() error {
				p, err := b.Allow()
				if err != nil {
					return err
				}
				b.Record(&p, verdict.Success)
				return nil
			}
		},
		tripper: func() func(bool) bool {
			b, _ := breaker.New(breaker.Config{})
			return func(fail bool) bool {
				p, err := b.Allow()
				if err != nil {
					return true
				}
				v := verdict.Success
				if fail {
					v = verdict.Failure
				}
				b.Record(&p, v)
				return false
			}
		},
	},
	{
		lib:    "gobreaker",
		config: "gobreaker.NewCircuitBreaker[int](Settings{Interval: 10s, BucketPeriod: 1s, Timeout: 5s, ReadyToTrip: ConsecutiveFailures ≥ 5 || Requests ≥ 20 && 2·TotalFailures ≥ Requests}); Execute(op)",
		new: func() closedPath {
			cb := gobreaker.NewCircuitBreaker[int](gobreakerSettings())
			return func() error {
				_, err := cb.Execute(succeedNow)
				return err
			}
		},
		tripper: func() func(bool) bool {
			cb := gobreaker.NewCircuitBreaker[int](gobreakerSettings())
			return func(fail bool) bool {
				op := succeedNow
				if fail {
					op = failNow
				}
				_, err := cb.Execute(op)
				return errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests)
			}
		},
	},
	{
		lib:    "gobreaker-twostep",
		config: "gobreaker.NewTwoStepCircuitBreaker[int](the same Settings); done, err := Allow(); done(nil)",
		new: func() closedPath {
			cb := gobreaker.NewTwoStepCircuitBreaker[int](gobreakerSettings())
			return func() error {
				done, err := cb.Allow()
				if err != nil {
					return err
				}
				done(nil)
				return nil
			}
		},
		tripper: func() func(bool) bool {
			cb := gobreaker.NewTwoStepCircuitBreaker[int](gobreakerSettings())
			return func(fail bool) bool {
				done, err := cb.Allow()
				if err != nil {
					return true
				}
				if fail {
					done(errDown)
				} else {
					done(nil)
				}
				return false
			}
		},
	},
	{
		lib:    "failsafe",
		config: "circuitbreaker.NewBuilder[int]().WithFailureRateThreshold(0.5, 20, 10s).WithDelay(5s).Build() (no consecutive-failure rule alongside: failsafe-go takes one or the other); TryAcquirePermit(); RecordSuccess()",
		new: func() closedPath {
			cb := failsafeBreaker()
			return func() error {
				if !cb.TryAcquirePermit() {
					return circuitbreaker.ErrOpen
				}
				cb.RecordSuccess()
				return nil
			}
		},
		tripper: func() func(bool) bool {
			cb := failsafeBreaker()
			return func(fail bool) bool {
				if !cb.TryAcquirePermit() {
					return true
				}
				if fail {
					cb.RecordFailure()
				} else {
					cb.RecordSuccess()
				}
				return false
			}
		},
	},
	{
		lib:    "failsafe-executor",
		config: "failsafe.With[int](the same breaker).Get(op), executor made once",
		new: func() closedPath {
			ex := failsafe.With[int](failsafeBreaker())
			return func() error {
				_, err := ex.Get(succeedNow)
				return err
			}
		},
		tripper: func() func(bool) bool {
			ex := failsafe.With[int](failsafeBreaker())
			return func(fail bool) bool {
				op := succeedNow
				if fail {
					op = failNow
				}
				_, err := ex.Get(op)
				return errors.Is(err, circuitbreaker.ErrOpen)
			}
		},
	},
}

// BenchmarkBreakerClosed is one goroutine admitting calls and recording
// their success.
func BenchmarkBreakerClosed(b *testing.B) {
	for _, l := range breakerLibs {
		b.Run("lib="+l.lib, func(b *testing.B) {
			call := l.new()
			b.ReportAllocs()
			for b.Loop() {
				if err := call(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBreakerClosedParallel is the same from GOMAXPROCS goroutines
// sharing one breaker (b.RunParallel).
func BenchmarkBreakerClosedParallel(b *testing.B) {
	for _, l := range breakerLibs {
		b.Run("lib="+l.lib, func(b *testing.B) {
			call := l.new()
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := call(); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// since is what timing a call costs at the least without a coarse clock:
// two reads of the monotonic clock.
var since = time.Now()

// BenchmarkBreakerSlowCall is the closed path with slow-call detection
// on: recur's breaker timing every call (SlowCall set, an hour, so that
// nothing is slow), against failsafe-go's time-based breaker, which reads
// the clock on every record, and against the floor: recur's default
// closed path plus the two monotonic clock reads that timing a call takes.
func BenchmarkBreakerSlowCall(b *testing.B) {
	recur := mustBreaker(breaker.Config{SlowCall: time.Hour})
	floor := mustBreaker(breaker.Config{})
	fs := failsafeBreaker()
	var sink time.Duration
	libs := []struct {
		lib  string
		call func() error
	}{
		{"recur", func() error {
			p, err := recur.Allow()
			if err != nil {
				return err
			}
			recur.Record(&p, verdict.Success)
			return nil
		}},
		{"recur-floor", func() error {
			start := time.Since(since)
			p, err := floor.Allow()
			if err != nil {
				return err
			}
			sink += time.Since(since) - start
			floor.Record(&p, verdict.Success)
			return nil
		}},
		{"failsafe", func() error {
			if !fs.TryAcquirePermit() {
				return circuitbreaker.ErrOpen
			}
			fs.RecordSuccess()
			return nil
		}},
	}
	for _, l := range libs {
		b.Run("lib="+l.lib, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := l.call(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	_ = sink
}

func mustBreaker(c breaker.Config) *breaker.Breaker {
	b, err := breaker.New(c)
	if err != nil {
		panic(err)
	}
	return b
}

// TestBreakerConfigs checks what each breaker in the benchmarks is
// configured to do: after 5 failures in a row, recur and gobreaker refuse
// the next call and failsafe-go (whose rate rule needs 20 calls) does not;
// after 20 calls of which half failed, the last one included, all refuse
// the next call.
func TestBreakerConfigs(t *testing.T) {
	for _, l := range breakerLibs {
		t.Run(l.lib, func(t *testing.T) {
			call := l.tripper()
			for i := range 5 {
				if call(true) {
					t.Fatalf("refused failure %d of 5", i+1)
				}
			}
			wantOpen := l.lib != "failsafe" && l.lib != "failsafe-executor"
			if got := call(false); got != wantOpen {
				t.Errorf("after 5 failures in a row: refused = %v, want %v", got, wantOpen)
			}

			call = l.tripper()
			for i := range 20 {
				if call(i%2 == 1) { // the 20th fails: gobreaker judges only on a failure
					t.Fatalf("refused call %d of 20 (half failing)", i+1)
				}
			}
			if !call(false) {
				t.Errorf("after 10 failures in 20 calls: admitted the next call, want it refused")
			}
		})
	}
}

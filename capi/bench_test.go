package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/verdict"
)

// The benchmarks compare each operation three ways, as sub-benchmarks of
// one benchmark, so that one run of the test binary interleaves them:
//
//   - impl=go: the library from Go, as a Go program calls it;
//   - impl=shim: the capi code behind the exported function, called from
//     Go: the handle lookup, the recover, the out-parameters, with no
//     crossing between C and Go;
//   - impl=abi: the exported function called from C (test/bench.c, run
//     for b.N iterations), crossing into the Go runtime and back on each
//     call, as a C caller pays it. Its ns/op, B/op and allocs/op are the
//     harness's own figures, which time only the loop.
//
// docs/benchmarks.md has the figures and the commands.

var (
	harnessOnce sync.Once
	harnessBin  string
	harnessOK   bool
)

// benchABI runs the C harness's benchmark name for b.N iterations and
// reports its figures as this benchmark's.
func benchABI(b *testing.B, name string) {
	b.ReportAllocs()
	b.StopTimer() // building is not the benchmark: b.N follows the run alone
	lib := sharedLibrary(b)
	harnessOnce.Do(func() {
		harnessBin = filepath.Join(buildDir, "bench")
		cc(b, harnessBin, []string{"test/bench.c"}, append([]string{"-O2"}, linkShared(lib)...)...)
		harnessOK = true
	})
	if !harnessOK {
		b.Fatal("the harness did not build")
	}
	b.StartTimer()
	out, err := exec.Command(harnessBin, "-bench", name, "-n", strconv.Itoa(b.N)).CombinedOutput()
	if err != nil {
		b.Fatalf("bench: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`([\d.]+) ns/op\s+([\d.]+) B/op\s+([\d.]+) allocs/op`).FindSubmatch(out)
	if m == nil {
		b.Fatalf("bench printed no figures:\n%s", out)
	}
	for i, unit := range []string{"ns/op", "B/op", "allocs/op"} {
		v, _ := strconv.ParseFloat(string(m[i+1]), 64)
		b.ReportMetric(v, unit)
	}
}

// BenchmarkDelay is recur_policy_delay: the wait after the third attempt
// of fulljitter(100ms, 2s) & times(5), a new seed each call.
func BenchmarkDelay(b *testing.B) {
	const src = "fulljitter(100ms, 2s) & times(5)"
	b.Run("impl=go", func(b *testing.B) {
		b.ReportAllocs()
		r := interp.Start(parse.MustParse(src), 0)
		var sink time.Duration
		for i := range b.N {
			r.Reset(uint64(i))
			var t, d time.Duration
			for range 3 {
				d, _ = r.Next(t, t)
				t += d
			}
			sink += d
		}
		_ = sink
	})
	b.Run("impl=shim", func(b *testing.B) {
		b.ReportAllocs()
		p := shimPolicy(b, src)
		defer recur_close(p)
		var d cInt64
		for i := range b.N {
			if recur_policy_delay(p, 3, cUint64(i), &d) != rcOK {
				b.Fatal("delay")
			}
		}
	})
	b.Run("impl=abi", func(b *testing.B) { benchABI(b, "delay") })
}

// BenchmarkRunNext is recur_run_next: one decision of a run of
// fulljitter(100ms, 2s), which never stops.
func BenchmarkRunNext(b *testing.B) {
	const src = "fulljitter(100ms, 2s)"
	b.Run("impl=go", func(b *testing.B) {
		b.ReportAllocs()
		r := interp.Start(parse.MustParse(src), 1)
		var sink time.Duration
		for range b.N {
			d, _ := r.Next(0, 0)
			sink += d
		}
		_ = sink
	})
	b.Run("impl=shim", func(b *testing.B) {
		b.ReportAllocs()
		p := shimPolicy(b, src)
		defer recur_close(p)
		var r cHandle
		if recur_run_start(p, 1, &r) != rcOK {
			b.Fatal("start")
		}
		defer recur_close(r)
		var d cInt64
		for range b.N {
			if recur_run_next(r, 0, 0, &d) != rcOK {
				b.Fatal("next")
			}
		}
	})
	b.Run("impl=abi", func(b *testing.B) { benchABI(b, "runnext") })
}

// BenchmarkAllowRecord is a call that succeeds at once through a guard
// with the default breaker and token bucket: recur_guard_allow,
// recur_call_record and recur_close; in Go, the breaker's Allow and
// Record and the budget's Request and Record.
func BenchmarkAllowRecord(b *testing.B) {
	const config = `{"breaker": {}, "budget": {"kind": "token_bucket"}}`
	b.Run("impl=go", func(b *testing.B) {
		b.ReportAllocs()
		br, err := breaker.New(breaker.Config{})
		if err != nil {
			b.Fatal(err)
		}
		bu, err := budget.NewTokenBucket(budget.TokenBucketConfig{})
		if err != nil {
			b.Fatal(err)
		}
		for range b.N {
			p, err := br.Allow()
			if err != nil || !bu.Request() {
				b.Fatal("refused")
			}
			br.Record(&p, verdict.Success)
			bu.Record(verdict.Success)
		}
	})
	b.Run("impl=shim", func(b *testing.B) {
		b.ReportAllocs()
		text := newCString(config)
		defer freeCString(text)
		var g cHandle
		if recur_guard_new(text, &g, nil) != rcOK {
			b.Fatal("guard")
		}
		defer recur_close(g)
		var c cHandle
		var d cInt64
		for range b.N {
			if recur_guard_allow(g, 0, &c) != rcOK || recur_call_record(c, 0, &d, nil) != rcOK || recur_close(c) != rcOK {
				b.Fatal("call")
			}
		}
	})
	b.Run("impl=abi", func(b *testing.B) { benchABI(b, "allowrecord") })
}

// shimPolicy parses src through the exported function.
func shimPolicy(b *testing.B, src string) cHandle {
	text := newCString(src)
	defer freeCString(text)
	var p cHandle
	if recur_policy_parse(text, &p, nil) != rcOK {
		b.Fatal("parse")
	}
	return p
}

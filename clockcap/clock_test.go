package clockcap_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/internal/leakcheck"
)

func TestMain(m *testing.M) { leakcheck.VerifyTestMain(m) }

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestVirtualRecordsSleeps(t *testing.T) {
	c := clockcap.Virtual(epoch)
	ctx := context.Background()
	for _, d := range []time.Duration{time.Second, 0, -time.Second, 30 * time.Second} {
		if err := c.Sleep(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	c.Advance(time.Minute)
	if diff := cmp.Diff([]time.Duration{time.Second, 30 * time.Second}, c.Sleeps()); diff != "" {
		t.Errorf("Sleeps (-want +got):\n%s", diff)
	}
	if got, want := c.Now(), epoch.Add(91*time.Second); !got.Equal(want) {
		t.Errorf("Now = %v; want %v", got, want)
	}
	if got := c.Elapsed(); got != 91*time.Second {
		t.Errorf("Elapsed = %v; want 1m31s", got)
	}
}

func TestVirtualHonoursContext(t *testing.T) {
	c := clockcap.Virtual(epoch)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Sleep(ctx, time.Second); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep on a cancelled context = %v; want context.Canceled", err)
	}
	if c.Elapsed() != 0 {
		t.Errorf("a cancelled sleep moved the clock")
	}
	// Deadlines are wall-clock times, so this clock starts now.
	now := time.Now()
	c = clockcap.Virtual(now)
	dctx, dcancel := context.WithDeadline(context.Background(), now.Add(5*time.Second))
	defer dcancel()
	if err := c.Sleep(dctx, 3*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := c.Sleep(dctx, 3*time.Second); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Sleep past the deadline = %v; want context.DeadlineExceeded", err)
	}
	if got := c.Elapsed(); got != 5*time.Second {
		t.Errorf("after sleeping into the deadline Elapsed = %v; want 5s", got)
	}
}

func TestManual(t *testing.T) {
	c := clockcap.Manual(epoch)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	woke := make(chan time.Duration, 2)
	for _, d := range []time.Duration{time.Second, 3 * time.Second} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Sleep(ctx, d); err != nil {
				t.Error(err)
			}
			woke <- d
		}()
	}
	if err := c.WaitSleepers(ctx, 2); err != nil {
		t.Fatal(err)
	}
	c.Advance(2 * time.Second)
	if got := <-woke; got != time.Second {
		t.Errorf("first to wake slept %v; want 1s", got)
	}
	if n := c.Sleepers(); n != 1 {
		t.Errorf("Sleepers = %d after the first woke; want 1", n)
	}
	c.Set(epoch.Add(3 * time.Second))
	if got := <-woke; got != 3*time.Second {
		t.Errorf("second to wake slept %v; want 3s", got)
	}
	wg.Wait()
	if got := c.Now(); !got.Equal(epoch.Add(3 * time.Second)) {
		t.Errorf("Now = %v", got)
	}
}

func TestManualSleepCancelled(t *testing.T) {
	c := clockcap.Manual(epoch)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- c.Sleep(ctx, time.Hour) }()
	if err := c.WaitSleepers(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep = %v; want context.Canceled", err)
	}
	if n := c.Sleepers(); n != 0 {
		t.Errorf("a cancelled sleeper is still registered: %d", n)
	}
}

func TestRealUnderSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := clockcap.Real()
		start := c.Now()
		if err := c.Sleep(context.Background(), time.Hour); err != nil {
			t.Fatal(err)
		}
		if got := c.Now().Sub(start); got != time.Hour {
			t.Errorf("slept %v of fake time; want 1h", got)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.Sleep(ctx, time.Hour); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Sleep past a timeout = %v; want context.DeadlineExceeded", err)
		}
		if got := c.Now().Sub(start); got != time.Hour+time.Minute {
			t.Errorf("woke at +%v; want +1h1m", got)
		}
	})
}

func TestRealZeroSleep(t *testing.T) {
	c := clockcap.Real()
	if err := c.Sleep(context.Background(), 0); err != nil {
		t.Errorf("Sleep(0) = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Sleep(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep(0) on a cancelled context = %v; want context.Canceled", err)
	}
	if n := testing.AllocsPerRun(100, func() { c.Sleep(context.Background(), 0) }); n != 0 {
		t.Errorf("Sleep(0) allocates %v times", n)
	}
}

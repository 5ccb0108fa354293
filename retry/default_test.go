package retry_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/verdict"
)

// The default policy is the one the docs spell.
func TestDefaultSchedule(t *testing.T) {
	want := parse.MustParse("fulljitter(100ms, 2s) & times(3)")
	if diff := cmp.Diff(want, retry.DefaultSchedule()); diff != "" {
		t.Errorf("DefaultSchedule (-want +got):\n%s", diff)
	}
}

// deadAddr returns a loopback address where nothing listens: a port that
// was just free.
func deadAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// dialer dials addr and counts the attempts.
type dialer struct {
	addr     string
	attempts int
}

func (d *dialer) dial(ctx context.Context) (net.Conn, error) {
	d.attempts++
	var nd net.Dialer
	return nd.DialContext(ctx, "tcp", d.addr)
}

// A hundred calls of the default policy against a dead server make about
// one attempt each once the target's default budget is drained: 100
// first attempts plus the three retries that the A6 bucket's 10 tokens
// allow (two on the first call, one on the second), where the policy alone
// would make 300. Unthrottled is the named way back to 300.
func TestDeadTargetThrottledByDefault(t *testing.T) {
	for _, tc := range []struct {
		name        string
		unthrottled bool
		want        int
	}{
		{"default", false, 103},
		{"unthrottled", true, 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &dialer{addr: deadAddr(t)}
			o := retry.Options{
				Caps:        retry.Caps{Clock: clockcap.Virtual(epoch), Random: randcap.Seeded(1)},
				Target:      "tcp://" + d.addr + "/" + t.Name(), // a bucket of this test's own
				Unthrottled: tc.unthrottled,
			}
			for range 100 {
				if c, err := retry.Retry(context.Background(), o, retry.DefaultSchedule(), d.dial); err == nil {
					c.Close()
					t.Fatal("dial to a closed port succeeded")
				}
			}
			t.Logf("100 calls, %d attempts", d.attempts)
			if d.attempts != tc.want {
				t.Errorf("100 calls made %d attempts; want %d", d.attempts, tc.want)
			}
		})
	}
}

// Every call to one target shares its default budget, and the last
// give-up says the budget refused the retry.
func TestDefaultBudgetShared(t *testing.T) {
	target := "shared/" + t.Name()
	o := retry.Options{Caps: retry.Caps{Clock: clockcap.Virtual(epoch)}, Target: target}
	fails := func(context.Context) (int, error) { return 0, errDown }
	var err error
	for range 5 {
		_, err = retry.Retry(context.Background(), o, retry.DefaultSchedule(), fails)
	}
	var re *retry.Error
	if !errors.As(err, &re) || re.Reason != retry.Budget || !errors.Is(err, budget.ErrThrottled) {
		t.Fatalf("fifth call: %v; want a give-up for the budget", err)
	}
	if got := budget.Shared().Get(target).Stats().Throttled; got < 3 {
		t.Errorf("shared budget of %q throttled %d retries; want at least 3", target, got)
	}
}

// Unthrottled with a Budget is a contradiction, reported before op runs.
func TestUnthrottledWithBudget(t *testing.T) {
	b, _ := budget.NewTokenBucket(budget.TokenBucketConfig{})
	calls := 0
	_, err := retry.Retry(context.Background(), retry.Options{Budget: b, Unthrottled: true}, retry.DefaultSchedule(),
		func(context.Context) (int, error) { calls++; return 0, nil })
	if err == nil || calls != 0 {
		t.Errorf("Budget and Unthrottled: err %v after %d calls; want an error and no call", err, calls)
	}
}

// A call whose context is already done never reaches op, in every runner:
// it returns an *Error with no attempts, the context's reason and error.
func TestDoneContextNeverReachesOp(t *testing.T) {
	expired, cancel1 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel1()
	canceled, cancel2 := context.WithCancel(context.Background())
	cancel2()
	type run func(ctx context.Context, o retry.Options, op func(context.Context) (int, error)) (int, error)
	runners := map[string]run{
		"Retry": func(ctx context.Context, o retry.Options, op func(context.Context) (int, error)) (int, error) {
			return retry.Retry(ctx, o, retry.DefaultSchedule(), op)
		},
		"RetryWhile": func(ctx context.Context, o retry.Options, op func(context.Context) (int, error)) (int, error) {
			return retry.RetryWhile(ctx, o, retry.DefaultSchedule(), nil, op)
		},
		"RetryIf": func(ctx context.Context, o retry.Options, op func(context.Context) (int, error)) (int, error) {
			return retry.RetryIf(ctx, o, retry.DefaultSchedule(), nil, op)
		},
		"Do": func(ctx context.Context, o retry.Options, op func(context.Context) (int, error)) (int, error) {
			return retry.Do(ctx, o, retry.DefaultSchedule(), func(int, error) retry.Judgement {
				return retry.Judgement{Verdict: verdict.Success}
			}, nil, op)
		},
	}
	options := map[string]retry.Options{
		"plain":  {},
		"target": {Target: "done/" + t.Name()},
		"timed":  {AttemptTimeout: time.Second},
	}
	for rname, r := range runners {
		for oname, o := range options {
			for cname, tc := range map[string]struct {
				ctx    context.Context
				reason retry.Reason
				is     error
			}{
				"expired":  {expired, retry.Deadline, context.DeadlineExceeded},
				"canceled": {canceled, retry.Canceled, context.Canceled},
			} {
				calls := 0
				_, err := r(tc.ctx, o, func(context.Context) (int, error) { calls++; return 1, nil })
				var re *retry.Error
				if calls != 0 || !errors.As(err, &re) || re.Reason != tc.reason || re.Attempts != 0 || !errors.Is(err, tc.is) {
					t.Errorf("%s/%s/%s: %d calls, err %v; want no call and a %v give-up after 0 attempts", rname, oname, cname, calls, err, tc.reason)
				}
			}
		}
	}
}

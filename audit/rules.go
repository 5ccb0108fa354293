package audit

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/recur-go/recur/internal/sat"
	"github.com/recur-go/recur/lint"
	"github.com/recur-go/recur/schedule"
)

// Rule is one check Run makes. Rules are the package's data: see Rules.
type Rule struct {
	ID       string
	Severity Severity
	Summary  string // one line, for listings
	check    func(p Plan, ls []facts, report reportFunc)
}

// reportFunc records a finding of the rule being checked: the layer (nil
// for the whole plan), the message and how to fix it.
type reportFunc func(l *facts, msg, fix string)

// Rules returns the rules Run applies, in the order it applies them.
// docs/audit.md explains each.
func Rules() []Rule {
	return []Rule{
		{"retry-amplification", Error, "more than one layer retries: attempts multiply", retryAmplification},
		{"unbounded-policy", Error, "a retry policy without a bound on its attempts", unboundedPolicy},
		{"too-many-attempts", Warning, "a retry policy allows more than 5 attempts", tooManyAttempts},
		{"no-jitter", Warning, "retries wait the same for every client", noJitter},
		{"equal-jitter", Info, "equal jitter where full jitter would do", equalJitter},
		{"no-breaker", Error, "a layer retries without a circuit breaker", noBreaker},
		{"no-slow-call", Warning, "a breaker without working slow-call detection", noSlowCall},
		{"breaker-tunnel", Error, "the retry loop retries breaker rejections for as long as the breaker stays open", breakerTunnel},
		{"retry-on-open", Warning, "the retry loop retries breaker rejections, for less than the open time", retryOnOpen},
		{"no-budget", Error, "a layer retries without a per-client retry budget", noBudget},
		{"budget-too-high", Warning, "a retry budget above 10%", budgetTooHigh},
		{"no-deadline", Error, "no deadline is set at the edge", noDeadline},
		{"fresh-timeout", Error, "a layer sets a fresh timeout per hop instead of propagating the deadline", freshTimeout},
		{"retry-exceeds-deadline", Warning, "a layer's worst-case retry time exceeds the deadline it has", retryExceedsDeadline},
		{"non-idempotent-retry", Error, "a layer retries an operation that is not idempotent and has no idempotency key", nonIdempotentRetry},
		{"non-idempotent-hedge", Error, "a layer hedges an operation that is not idempotent and has no idempotency key", nonIdempotentHedge},
		{"hedge-policy", Warning, "a hedging policy lint finds fault with: copies at once, unbounded or more than 5", hedgePolicy},
		{"retries-4xx", Error, "a layer retries HTTP client errors", retries4xx},
		{"eol-library", Error, "a layer uses an end-of-life library", eolLibrary},
	}
}

// retrying calls f for every layer that retries.
func retrying(ls []facts, f func(l *facts)) {
	for i := range ls {
		if ls[i].retries() {
			f(&ls[i])
		}
	}
}

func attemptsText(n int) string {
	if n == math.MaxInt {
		return "unbounded"
	}
	return strconv.Itoa(n)
}

// allAttempts says how many attempts a request makes: "all 4 attempts".
func allAttempts(n int) string {
	if n == math.MaxInt {
		return "attempts without bound"
	}
	return "all " + strconv.Itoa(n) + " attempts"
}

// timesLoad says how much load n attempts per call make: "4× its load".
func timesLoad(n int) string {
	if n == math.MaxInt {
		return "no bound at all"
	}
	return strconv.Itoa(n) + "× its normal load"
}

func retryAmplification(p Plan, ls []facts, report reportFunc) {
	var parts []string
	retryingAt := 0
	retrying(ls, func(l *facts) {
		parts = append(parts, l.Name+" "+attemptsText(l.attempts))
		retryingAt++
	})
	if retryingAt < 2 {
		return
	}
	n := 1
	for _, l := range ls {
		n = mulAttempts(n, l.attempts)
	}
	total := "an unbounded number of"
	if n != math.MaxInt {
		total = strconv.Itoa(n)
	}
	last := ls[len(ls)-1].Name
	report(nil,
		fmt.Sprintf("%d layers retry (attempts: %s): one request can make %s attempts on %s, the product of every layer's attempts",
			retryingAt, strings.Join(parts, " × "), total, dependency(p)),
		fmt.Sprintf("retry only at %s, the layer right above %s; let the others answer \"overloaded; don't retry\" (503 with Retry-After) and set their retry to times(1)",
			last, dependency(p)))
}

func unboundedPolicy(_ Plan, ls []facts, report reportFunc) {
	for i := range ls {
		l := &ls[i]
		switch {
		case l.s == nil || l.attempts < math.MaxInt:
		case !l.limits.Stops:
			report(l, fmt.Sprintf("%v never stops: it retries for as long as %s fails, and keeps it overloaded through the whole outage", l.s, l.next),
				"bound the attempts: & times(3)")
		case l.MinAttemptTime == 0:
			report(l, fmt.Sprintf("%v is bounded only by time, and its waits can be as short as zero: attempts that fail at once (connection refused, an open breaker) repeat without limit within it", l.s),
				"cap the attempts (& times(3)), or set min_attempt_time to the least time one attempt takes")
		default:
			report(l, fmt.Sprintf("%v allows more than %d attempts of %v each", l.s, MaxCounted, l.MinAttemptTime),
				"bound the attempts: & times(3)")
		}
	}
}

func tooManyAttempts(_ Plan, ls []facts, report reportFunc) {
	retrying(ls, func(l *facts) {
		if l.attempts <= lint.MaxAttempts || l.attempts == math.MaxInt {
			return
		}
		each := ""
		if l.MinAttemptTime > 0 {
			each = fmt.Sprintf(" of at least %v each", l.MinAttemptTime)
		}
		report(l, fmt.Sprintf("%v allows %d attempts%s: more than %d, and by attempt 10 the upstream is gone", l.s, l.attempts, each, lint.MaxAttempts),
			"cap the attempts at 3 (5 for very transient faults): & times(3)")
	})
}

// lintFindings returns lint's findings of rule id for s.
func lintFindings(fs []lint.Finding, id string) []lint.Finding {
	var out []lint.Finding
	for _, f := range fs {
		if f.ID == id {
			out = append(out, f)
		}
	}
	return out
}

func noJitter(_ Plan, ls []facts, report reportFunc) {
	retrying(ls, func(l *facts) {
		found := lintFindings(lint.Check(l.s), "no-jitter")
		for _, f := range found {
			report(l, f.Message, "use "+f.Fix) // lint's fix is a whole policy
		}
		if len(found) > 0 || random(l.s) {
			return
		}
		how := "waits the same for every client"
		if l.limits.MaxTotal == 0 {
			how = "retries at once, without waiting"
		}
		report(l, fmt.Sprintf("%v %s: clients that failed together retry together, in lockstep", l.s, how),
			"back off with full jitter: fulljitter(100ms, 30s) & times(3)")
	})
}

// equalJitter notes equal jitter, which lint accepts as a documented
// choice (the backoff helper is equal jitter): a plan review suggests the
// better one.
func equalJitter(_ Plan, ls []facts, report reportFunc) {
	retrying(ls, func(l *facts) {
		walkSchedule(l.s, func(n schedule.Schedule) {
			j, ok := n.(schedule.Jittered)
			if !ok || j.LowPct < 50 || j.LowPct >= j.HighPct {
				return
			}
			if e, ok := j.Inner.(schedule.Exponential); ok && e.FactorPct > 100 {
				report(l, fmt.Sprintf("%v keeps at least %d%% of each delay: Brooker measured that equal jitter does more work and takes longer than full jitter", n, j.LowPct),
					fmt.Sprintf("use full jitter: fulljitter(%v, %v)", e.Base, e.Cap))
			}
		})
	})
}

// walkSchedule calls f for every node of s, parents first.
func walkSchedule(s schedule.Schedule, f func(schedule.Schedule)) {
	if s == nil {
		return
	}
	f(s)
	a, b := schedule.Children(s)
	walkSchedule(a, f)
	walkSchedule(b, f)
}

func noBreaker(_ Plan, ls []facts, report reportFunc) {
	retrying(ls, func(l *facts) {
		if l.Breaker == nil {
			report(l, fmt.Sprintf("retries calls to %s without a circuit breaker: while %s is down, every request still makes %s", l.next, l.next, allAttempts(l.attempts)),
				"put a circuit breaker on the calls (package breaker, Resilience4j CircuitBreaker) and do not retry its rejections")
		}
	})
}

func noSlowCall(_ Plan, ls []facts, report reportFunc) {
	for i := range ls {
		l := &ls[i]
		b := l.Breaker
		if b == nil {
			continue
		}
		fix := "set slow_call below attempt_timeout and slow_rate to 50 or so, so the breaker opens while the dependency slows down, before it fails"
		switch {
		case b.SlowCall == 0:
			report(l, fmt.Sprintf("the breaker on calls to %s has no slow-call detection: it opens only once calls fail, when %s is already over the cliff", l.next, l.next), fix)
		case b.SlowRate == 100:
			report(l, "the breaker's slow_rate is 100%: it opens on slowness only when every call is slow, which is Resilience4j's default and amounts to off", fix)
		case l.AttemptTimeout > 0 && b.SlowCall > l.AttemptTimeout:
			report(l, fmt.Sprintf("the breaker's slow_call %v is above attempt_timeout %v: an attempt is cut off before it counts as slow, so slow-call detection never fires", b.SlowCall, l.AttemptTimeout), fix)
		}
	}
}

const tunnelFix = "make the retry loop return at once on the breaker's rejection (errors.Is(err, breaker.ErrOpen); in Resilience4j, list CallNotPermittedException in the retry's ignoreExceptions) and set retry_on_open to false"

// rejectionRetries calls f for every retrying layer whose loop retries
// its breaker's rejections, with the breaker's shortest open time.
func rejectionRetries(ls []facts, f func(l *facts, open time.Duration)) {
	retrying(ls, func(l *facts) {
		if l.Breaker != nil && l.Breaker.RetryOnOpen {
			f(l, openTime(l.Breaker))
		}
	})
}

func breakerTunnel(_ Plan, ls []facts, report reportFunc) {
	rejectionRetries(ls, func(l *facts, open time.Duration) {
		if l.worst >= open {
			report(l, fmt.Sprintf("the retry loop retries the breaker's rejections and can run for %s, at least the breaker's shortest open time of %s: a request that meets the open breaker retries until it half-opens and takes a probe's place, so it tunnels through the breaker",
				dur(l.worst), dur(open)), tunnelFix)
		}
	})
}

func retryOnOpen(_ Plan, ls []facts, report reportFunc) {
	rejectionRetries(ls, func(l *facts, open time.Duration) {
		if l.worst < open {
			report(l, fmt.Sprintf("the retry loop retries the breaker's rejections, spending its attempts for nothing; at %s it cannot outlast the breaker's %s open time, but a longer policy or a shorter open time would tunnel through",
				dur(l.worst), dur(open)), tunnelFix)
		}
	})
}

const budgetFix = "add a per-client retry budget: a token bucket (gRFC A6, token_ratio 0.1) or a ratio of at most 10% (SRE book ch. 21)"

func noBudget(_ Plan, ls []facts, report reportFunc) {
	retrying(ls, func(l *facts) {
		switch {
		case l.Budget == nil:
			report(l, fmt.Sprintf("retries without a per-client retry budget: while %s fails, only the retry policy limits the load this layer sends it, to %s", l.next, timesLoad(l.attempts)), budgetFix)
		case l.Budget.Kind == Adaptive:
			report(l, "adaptive throttling sheds calls but does not cap retries: it is not a retry budget", budgetFix+"; keep the throttling beside it")
		}
	})
}

func budgetTooHigh(_ Plan, ls []facts, report reportFunc) {
	retrying(ls, func(l *facts) {
		b := l.Budget
		if b == nil {
			return
		}
		switch {
		case b.Kind == Ratio && b.Percent > 10:
			report(l, fmt.Sprintf("the retry budget allows retries of %d%% of calls, above the SRE book's 10%%", b.Percent),
				"lower the retry budget to 10% (percent: 10)")
		case b.Kind == TokenBucket && b.TokenRatio > 0.1:
			report(l, fmt.Sprintf("the token bucket's token_ratio %g lets retries add about %g%% to the load, above the SRE book's 10%%", b.TokenRatio, b.TokenRatio*100),
				"lower token_ratio to 0.1, gRFC A6's default")
		}
	})
}

func noDeadline(p Plan, _ []facts, report reportFunc) {
	if p.Deadline == 0 {
		report(nil, "no deadline is set at the edge: nothing bounds how long a request, and every retry under it, may run",
			"set a deadline at the edge (deadline: 10s, say) and propagate it: each hop passes min(its attempt timeout, the time left)")
	}
}

func freshTimeout(_ Plan, ls []facts, report reportFunc) {
	for i := range ls {
		l := &ls[i]
		if l.PropagatesDeadline {
			continue
		}
		t := time.Duration(l.AttemptTimeout)
		fix := fmt.Sprintf("propagate the deadline to %s: pass min(attempt timeout, time left), as gRPC deadlines and a context.Context do, not a fresh timeout", l.next)
		switch {
		case t == 0:
			report(l, fmt.Sprintf("does not propagate the deadline and sets no timeout on calls to %s: a call can run long after the caller has given up", l.next), fix)
		case l.received < none && t > l.received:
			report(l, fmt.Sprintf("sets a fresh %s timeout on calls to %s though it has at most %s: %s can work %s after the caller has given up",
				dur(t), l.next, dur(l.received), l.next, dur(t-l.received)), fix)
		default:
			report(l, fmt.Sprintf("sets a fresh %s timeout on each call to %s instead of passing the time left: however late the call, %s gets a full %s, and its work past the caller's deadline is wasted",
				dur(t), l.next, l.next, dur(t)), fix)
		}
	}
}

func retryExceedsDeadline(_ Plan, ls []facts, report reportFunc) {
	retrying(ls, func(l *facts) {
		if l.received == none || l.worst <= l.received {
			return
		}
		if l.AttemptTimeout == 0 {
			report(l, fmt.Sprintf("retries with no attempt timeout: one slow attempt can use all %s it has and leave no time to retry", dur(l.received)),
				fmt.Sprintf("set attempt_timeout so that the attempts and the waits fit in %s", dur(l.received)))
			return
		}
		how := fmt.Sprintf("%s attempts of up to %s and up to %s of waiting", attemptsText(l.attempts), dur(l.perAttempt), dur(maxWait(l.s, l.attempts)))
		if lim, ok := timeLimit(l.s); ok && sat.AddDur(lim, l.perAttempt) == l.worst {
			how = fmt.Sprintf("its upto budget of %s and one more attempt of up to %s", dur(lim), dur(l.perAttempt))
		}
		report(l, fmt.Sprintf("its retries can take %s (%s), more than the %s it has: the last ones work for a caller that has gone, or are cut short by the deadline",
			dur(l.worst), how, dur(l.received)),
			fmt.Sprintf("fit the retries in %s: fewer attempts, a shorter attempt_timeout, or a bound such as upto %s", dur(l.received), dur(l.received/2)))
	})
}

// unsafeOperations returns the quoted names of l's operations that are
// neither idempotent nor keyed.
func unsafeOperations(l *facts) []string {
	var unsafe []string
	for _, o := range l.Operations {
		if !o.Idempotent && !o.IdempotencyKey {
			unsafe = append(unsafe, strconv.Quote(o.Name))
		}
	}
	return unsafe
}

func nonIdempotentRetry(_ Plan, ls []facts, report reportFunc) {
	retrying(ls, func(l *facts) {
		unsafe := unsafeOperations(l)
		if len(unsafe) == 0 {
			return
		}
		report(l, fmt.Sprintf("retries %s, not idempotent and without an idempotency key: a retry after a lost reply does it twice", strings.Join(unsafe, ", ")),
			"send an idempotency key with each non-idempotent call, or do not retry it")
	})
}

func nonIdempotentHedge(_ Plan, ls []facts, report reportFunc) {
	for i := range ls {
		l := &ls[i]
		if l.copies < 2 {
			continue
		}
		if unsafe := unsafeOperations(l); len(unsafe) > 0 {
			report(l, fmt.Sprintf("hedges %s, not idempotent and without an idempotency key: every hedged call that is slow runs it up to %d times", strings.Join(unsafe, ", "), l.copies),
				"hedge only idempotent operations (httpretry does so by itself), or send an idempotency key with each call")
		}
	}
}

// hedgePolicy reports the findings of lint's hedge rules on a layer's
// hedging policy.
func hedgePolicy(_ Plan, ls []facts, report reportFunc) {
	for i := range ls {
		l := &ls[i]
		if l.Hedge.Schedule == nil {
			continue
		}
		for _, f := range (lint.Options{For: lint.Hedge}).Check(l.Hedge.Schedule) {
			if strings.HasPrefix(f.ID, "hedge-") {
				report(l, fmt.Sprintf("its hedge %v: %s", l.Hedge.Schedule, f.Message), "hedge: "+f.Fix)
			}
		}
	}
}

// retriable4xx are the client errors worth retrying: 408 Request Timeout
// and 429 Too Many Requests (honoring Retry-After).
var retriable4xx = []int{408, 429}

func retries4xx(_ Plan, ls []facts, report reportFunc) {
	retrying(ls, func(l *facts) {
		var bad []string
		for _, c := range l.RetryOn {
			if c >= 400 && c < 500 && !slices.Contains(retriable4xx, c) {
				bad = append(bad, strconv.Itoa(c))
			}
		}
		if len(bad) > 0 {
			report(l, fmt.Sprintf("retries HTTP %s: a client error comes back the same however often it is sent", strings.Join(bad, ", ")),
				"retry only 502, 503, 504, 408 and 429 (honoring Retry-After); 500 with care")
		}
	})
}

// endOfLife lists libraries that no longer get fixes, by a lower-case
// substring of the name, with what happened to them.
var endOfLife = []struct{ match, why string }{
	{"hystrix", "Netflix put Hystrix in maintenance mode in 2018"},
}

func eolLibrary(_ Plan, ls []facts, report reportFunc) {
	for i := range ls {
		l := &ls[i]
		for _, e := range endOfLife {
			if strings.Contains(strings.ToLower(l.Library), e.match) {
				report(l, fmt.Sprintf("uses %s: %s, and it gets no fixes", l.Library, e.why),
					"move to a maintained library: Resilience4j (JVM), Polly (.NET), recur (Go)")
			}
		}
	}
}

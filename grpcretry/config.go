package grpcretry

import (
	"errors"
	"fmt"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/grpcconfig"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
	"google.golang.org/grpc/codes"
)

// Config says which unary calls to retry, when, and what guards them.
// Set at most one of Policy and ServiceConfig; with neither, every method
// retries UNAVAILABLE on retry.DefaultSchedule(). Every other field has a
// usable zero value. A Config is a plain value, checked once by
// UnaryClientInterceptor.
type Config struct {
	// Policy is the retry policy of every unary method, such as
	// Intersect(FullJitter(100ms, 2s), Times(4)): at most 4 attempts,
	// full-jitter waits between them. A policy read from a file or a flag
	// is parse.Parse's result or a parse.Policy's Schedule. Nil means
	// retry.DefaultSchedule(), unless ServiceConfig is set.
	Policy schedule.Schedule

	// Codes are the status codes retried under Policy; nil means
	// UNAVAILABLE only, the one code that says the server did not handle
	// the call. Add a code only if every method the interceptor sees may
	// run twice. With ServiceConfig it must be nil: each retryPolicy names
	// its own retryableStatusCodes.
	Codes []codes.Code

	// ServiceConfig, if not nil, says per method how to retry, as gRPC
	// reads a service config: the method config that names the method,
	// else the one that names its service, else the default one. Its
	// retryPolicy becomes a schedule (see grpcconfig); a method it gives
	// no retryPolicy is called once. Its retryThrottling, if any,
	// configures the token buckets when Budget is nil.
	ServiceConfig *grpcconfig.ServiceConfig

	// Jitter is the backoff formula ServiceConfig's policies follow: the
	// zero value is A6's full jitter, grpcconfig.PlusMinus20 its 2024
	// revision. It is ignored without ServiceConfig.
	Jitter grpcconfig.Jitter

	// Hedge makes Policy time hedged copies of each call (retry.Hedge)
	// instead of retries: a copy starts at each delay while no answer has
	// come, the first OK answer wins and the others are canceled, a code
	// in Codes (by default UNAVAILABLE) starts the next copy at once, any
	// other ends the call. Every method the interceptor sees must then be
	// idempotent. A ServiceConfig's hedgingPolicy does the same per
	// method; Hedge with a ServiceConfig is an error.
	Hedge bool

	// Breaker, if not nil, gives each target (the ClientConn's Target())
	// a circuit breaker that guards every attempt. An open breaker fails
	// the call at once with status UNAVAILABLE "circuit open", without
	// touching the network. Nil means no breaker: like retries, a
	// breaker is opt-in.
	Breaker *breaker.Registry

	// Budget gives each target its retry budget. Nil means the target's
	// shared default budget, budget.Shared().Get(target): gRFC A6's token
	// bucket (10 tokens, 0.1 back per success, retries only while more
	// than half are left), shared by every call to the target in the
	// process; or, when ServiceConfig has a retryThrottling, a bucket per
	// target made from it: a failing target sees about 10% extra load,
	// never a storm. Options.Unthrottled turns the default off; it is an
	// error together with Budget.
	Budget *budget.Registry

	// Options are the runner's options for every call, as package retry
	// documents them. The interceptor sets Target (the ClientConn's
	// Target()), Breaker and Budget (the target's, from Breaker and
	// Budget above) for each call; an Options that sets any of the three
	// is an error. MaxPushback caps the server's grpc-retry-pushback-ms,
	// and zero means DefaultMaxPushback, not no cap.
	//
	// The Observer's events carry the target as Target and the call's
	// context, so a value the caller put on the context reaches it. The
	// Label of a failed attempt (also retry.Error.Label) is one of a
	// bounded set: the status code in lower-case kebab form
	// ("unavailable", "deadline-exceeded", "resource-exhausted", ... one
	// for each of gRPC's 17 codes; a code outside them is "unknown"),
	// "attempt-timeout" for an attempt that AttemptTimeout cut short, and
	// "canceled" for one the caller's context ended. A successful attempt
	// has no label.
	Options retry.Options
}

// policy is how one method is retried, or hedged.
type policy struct {
	s     schedule.Schedule
	retry uint32 // bit c set: code c is retried, or for a hedge non-fatal
	hedge bool   // s times hedged copies (retry.Hedge), not retries
}

// once is the policy of a method that is not retried.
var once = &policy{s: schedule.Times{N: 1}}

// retries reports whether code c is retried.
func (p *policy) retries(c codes.Code) bool { return c < 32 && p.retry&(1<<c) != 0 }

// interceptor is a checked Config.
type interceptor struct {
	all      *policy            // for every method, or nil with a service config
	methods  map[string]*policy // by grpcconfig.Name.Path(), with a service config
	opts     retry.Options
	breakers *breaker.Registry
	budgets  *budget.Registry
}

// build checks c and turns it into an interceptor.
func build(c Config) (*interceptor, error) {
	if err := c.Options.CheckAdapter(); err != nil {
		return nil, fmt.Errorf("grpcretry: Config.Options: %w", err)
	}
	switch {
	case c.Policy != nil && c.ServiceConfig != nil:
		return nil, errors.New("grpcretry: Config sets both Policy and ServiceConfig")
	case c.Budget != nil && c.Options.Unthrottled:
		return nil, errors.New("grpcretry: Config sets both Budget and Options.Unthrottled")
	case c.ServiceConfig != nil && c.Hedge:
		return nil, errors.New("grpcretry: Config sets both Hedge and ServiceConfig, whose hedgingPolicy says which methods are hedged")
	case c.ServiceConfig != nil && c.Codes != nil:
		return nil, errors.New("grpcretry: Config sets both Codes and ServiceConfig, whose retry policies name their own codes")
	}
	ic := &interceptor{opts: c.Options, breakers: c.Breaker, budgets: c.Budget}
	if c.ServiceConfig != nil {
		if err := ic.fromServiceConfig(c.ServiceConfig, c.Jitter); err != nil {
			return nil, err
		}
	} else {
		s := c.Policy
		if s == nil {
			s = retry.DefaultSchedule()
		}
		if err := schedule.Validate(s); err != nil {
			return nil, fmt.Errorf("grpcretry: Config.Policy: %w", err)
		}
		mask, err := codeMask(c.Codes)
		if err != nil {
			return nil, err
		}
		ic.all = &policy{s: s, retry: mask, hedge: c.Hedge}
	}
	if ic.budgets == nil && !c.Options.Unthrottled {
		ic.budgets = budget.Shared()
		if c.ServiceConfig != nil && c.ServiceConfig.Throttling != nil {
			r, err := budget.NewRegistry(*c.ServiceConfig.Throttling, 0)
			if err != nil {
				return nil, fmt.Errorf("grpcretry: ServiceConfig.Throttling: %w", err)
			}
			ic.budgets = r
		}
	}
	return ic, nil
}

// codeMask turns a list of codes into a bit set; nil means UNAVAILABLE.
func codeMask(cs []codes.Code) (uint32, error) {
	if cs == nil {
		return 1 << codes.Unavailable, nil
	}
	var mask uint32
	for _, c := range cs {
		if int(c) >= grpcconfig.NumCodes {
			return 0, fmt.Errorf("grpcretry: Config.Codes holds %v, which gRPC does not define", c)
		}
		mask |= 1 << c
	}
	return mask, nil
}

// fromServiceConfig converts every method config of sc.
func (ic *interceptor) fromServiceConfig(sc *grpcconfig.ServiceConfig, j grpcconfig.Jitter) error {
	ic.methods = make(map[string]*policy)
	for i, mc := range sc.Methods {
		p := once
		if hp := mc.HedgingPolicy; hp != nil {
			s, err := hp.Schedule()
			if err != nil {
				return fmt.Errorf("grpcretry: ServiceConfig.Methods[%d]: %w", i, err)
			}
			var mask uint32
			for _, c := range hp.NonFatalStatusCodes {
				mask |= 1 << c // Schedule validated the codes
			}
			p = &policy{s: s, retry: mask, hedge: true}
		}
		if rp := mc.RetryPolicy; rp != nil {
			s, err := rp.Schedule(j)
			if err != nil {
				return fmt.Errorf("grpcretry: ServiceConfig.Methods[%d]: %w", i, err)
			}
			var mask uint32
			for _, c := range rp.RetryableStatusCodes {
				mask |= 1 << c // Schedule validated the codes
			}
			p = &policy{s: s, retry: mask}
		}
		for _, n := range mc.Names {
			if _, dup := ic.methods[n.Path()]; !dup { // the first entry wins, as in a parsed config
				ic.methods[n.Path()] = p
			}
		}
	}
	return nil
}

// policy returns the policy of a full method name such as "/pkg.Svc/M".
func (ic *interceptor) policy(method string) *policy {
	if ic.all != nil {
		return ic.all
	}
	if p, ok := ic.methods[method]; ok {
		return p
	}
	for i := len(method) - 1; i >= 0; i-- {
		if method[i] == '/' {
			if p, ok := ic.methods[method[:i+1]]; ok {
				return p
			}
			break
		}
	}
	if p, ok := ic.methods[""]; ok {
		return p
	}
	return once
}

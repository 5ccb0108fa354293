package budget

import "sync"

// DefaultConfig returns the budget every recur runner and adapter gives a target
// that has no budget of its own: gRFC A6's retry throttling with A6's
// numbers, a bucket of 10 tokens that each failed attempt drains by one
// and each success refills by 0.1, with retries made only while more than
// half of the tokens are left. A target that fails every call therefore
// sees about 10% extra load from retries, never a multiple of its load
// (the SRE book, chapter 21, "Handling Overload").
//
// It is the zero TokenBucketConfig, spelled out.
func DefaultConfig() TokenBucketConfig {
	return TokenBucketConfig{MaxTokens: DefaultMaxTokens, TokenRatio: DefaultTokenRatio}
}

// Shared returns the process's registry of default budgets: one DefaultConfig
// budget per target name, made on first use and shared by every call to
// that target in the process, whichever runner or adapter makes it. It
// holds at most DefaultMaxTargets targets; past that, the new ones share
// the Overflow budget, so a target name that carries an ID cannot eat
// memory.
//
// It is what a runner throttles with when it is told the call's target
// (retry.Options.Target, or an adapter's own target such as an HTTP
// origin) and given neither a budget nor the explicit switch that turns
// throttling off (retry.Options.Unthrottled). A metrics exporter reads
// its budgets with All.
func Shared() *Registry { return shared() }

var shared = sync.OnceValue(func() *Registry {
	r, _ := NewRegistry(DefaultConfig(), DefaultMaxTargets) // the defaults are valid
	return r
})

package pgretry

import (
	"errors"
	"fmt"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// SQLTarget is the target an SQLDB's calls are counted under, since a
// *sql.DB does not say where it connects: the name of its breaker in
// Config.Breaker and of its budget in Config.Budget. Its Observer events
// carry no Target.
const SQLTarget = "database/sql"

// Config configures a DB or an SQLDB. The zero value is the default set
// of rules: a circuit breaker with breaker.Config's defaults, recur's
// default policy (retry.DefaultSchedule: at most 3 attempts, full jitter
// from 100ms doubling to 2s) for marked statements and for transactions,
// and the target's shared default budget (see Budget).
//
// A DB's target is the host:port of its pool's connection configuration;
// an SQLDB's is SQLTarget.
type Config struct {
	// Policy is when to try a statement again: marked ones after a
	// Transient or Retryable error, all of them after a Transient or
	// Retryable error of an attempt that sent no byte of the statement
	// (see Instrument). Nil means retry.DefaultSchedule(). A policy read
	// from text is parse.Parse's result or a parse.Policy's Schedule.
	Policy schedule.Schedule

	// TxPolicy is when DB.Tx and SQLDB.Tx rerun a transaction after a
	// serialization failure or a deadlock, or after a run of which no
	// byte was sent. Nil means Policy.
	TxPolicy schedule.Schedule

	// Breaker is the registry of circuit breakers: every attempt is
	// guarded by the breaker of the target (Breaker.Get of the pool's
	// host:port, or of SQLTarget), and an open breaker fails a call at
	// once with an error that matches breaker.ErrOpen (Code
	// "circuit_open"), without waiting for a connection. Pass a registry
	// to choose the breakers' rules or to share them between DBs. Nil
	// means a breaker of the DB's own, the one a registry of its own made
	// from breaker.Config{} gives the target: it opens after 5 failures
	// in a row, or half of at least 20 calls in 10 s. DB.Breaker and
	// SQLDB.Breaker return the breaker in use, to read its Stats.
	Breaker *breaker.Registry

	// NoBreaker turns the breaker off. Without one, an outage holds every
	// call for the connect timeout. It is an error together with Breaker.
	NoBreaker bool

	// Budget is the registry of retry budgets that bound the retries (see
	// package budget), one per target, as for Breaker. Nil means the
	// default budget that every call to the same target in the process
	// shares, budget.Shared().Get of the pool's host:port, unless
	// Options.Unthrottled is set; under an SQLDB, which has no address to
	// share a budget with, nil means no budget. It is an error together
	// with Options.Unthrottled.
	Budget *budget.Registry

	// Options are the runner's options, as package retry documents them,
	// with Target, Breaker and Budget unset: the DB sets them for each
	// call, from its target, Breaker and Budget above
	// (retry.Options.CheckAdapter). Options.AttemptTimeout bounds each
	// attempt of Exec, QueryRow's Scan and each run of a transaction, not
	// Query, whose rows outlive the attempt.
	//
	// Options.Observer receives the runner's events. Under a DB their
	// Target is the pool's host:port; under an SQLDB it is empty. The
	// Label of a failed attempt (also retry.Error.Label) is Code of its
	// error, one of the bounded set in Classify's table:
	// "serialization_failure", "deadlock", "not_sent", "unreachable",
	// "shutdown", "commit_unknown", "attempt_timeout", "database_error",
	// ... A successful attempt has no label.
	Options retry.Options
}

// core is what DB and SQLDB share: the checked configuration.
type core struct {
	sched, txSched schedule.Schedule
	opts           retry.Options // with the target's breaker and budget
	queryOpts      retry.Options // opts without AttemptTimeout
}

// build checks c and returns the runner's configuration for calls to
// target; an SQLDB's is SQLTarget, and its runner's Target stays empty,
// so that a nil Budget means no budget.
func (c Config) build(target string) (core, error) {
	if err := c.Options.CheckAdapter(); err != nil {
		return core{}, fmt.Errorf("pgretry: %w", err)
	}
	switch {
	case c.Breaker != nil && c.NoBreaker:
		return core{}, errors.New("pgretry: Config sets both Breaker and NoBreaker")
	case c.Budget != nil && c.Options.Unthrottled:
		return core{}, errors.New("pgretry: Config sets both Budget and Options.Unthrottled")
	}
	k := core{sched: c.Policy, txSched: c.TxPolicy, opts: c.Options}
	if k.sched == nil {
		k.sched = retry.DefaultSchedule()
	}
	if k.txSched == nil {
		k.txSched = k.sched
	}
	if err := schedule.Validate(k.sched); err != nil {
		return core{}, fmt.Errorf("pgretry: invalid Config.Policy: %w", err)
	}
	if err := schedule.Validate(k.txSched); err != nil {
		return core{}, fmt.Errorf("pgretry: invalid Config.TxPolicy: %w", err)
	}
	switch {
	case c.Breaker != nil:
		k.opts.Breaker = c.Breaker.Get(target)
	case !c.NoBreaker:
		b, err := breaker.New(breaker.Config{Name: target})
		if err != nil {
			return core{}, err
		}
		k.opts.Breaker = b
	}
	if c.Budget != nil {
		k.opts.Budget = c.Budget.Get(target)
	}
	if target != SQLTarget {
		k.opts.Target = target
	}
	k.queryOpts = k.opts
	k.queryOpts.AttemptTimeout = 0
	return k, nil
}

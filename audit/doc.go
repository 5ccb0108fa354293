// Package audit checks a whole resilience plan — every layer a request
// passes through, with its retry policy, timeouts, circuit breaker and
// retry budget — against fixed rules drawn from the Google SRE book's
// chapters on overload and cascading failures, Marc Brooker's "Exponential
// Backoff and Jitter", Resilience4j's breaker and Azure's Circuit Breaker
// pattern.
//
// The rules reason about the policies themselves, not about their names:
// each retry policy is parsed and bounded (schedule.Bounds, MaxAttempts),
// so "4 attempts at each of 3 layers" is a product the audit computes —
// 64 attempts on the database — and a policy that looks bounded but is
// bounded only by time is found out.
//
// A plan is written in YAML or JSON (docs/audit-plan.schema.json), read
// with Decode and judged with Run:
//
//	p, err := audit.Decode(data)
//	if err != nil {
//		return err // a *PolicyError names the policy's line
//	}
//	r := audit.Run(p)
//	fmt.Print(r) // PASS: score 100/100, no findings
//
// A Report has a verdict (Pass: no error-level finding), a score (100,
// less 20 per error, 10 per warning and 5 per info finding, at least 0),
// the findings, most severe first, and one recommendation per distinct
// fix. It marshals to this JSON:
// {"pass", "score", "findings": [{"id", "severity", "layer", "message"}],
// "recommendations"}. Rules lists the rules; docs/audit.md explains each,
// with its source and its fix. "schedcheck audit PLAN" is the command-line
// front end.
package audit

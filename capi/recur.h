/*
 * recur.h: recur's retry policies, circuit breakers and retry budgets
 * from C, and from anything with a C foreign-function interface (Python's
 * ctypes, Rust's extern "C", ...).
 *
 * The library is built from Go (the capi module of
 * github.com/recur-go/recur) as a shared or a static library:
 *
 *     go build -buildmode=c-shared  -o librecur.so .
 *     go build -buildmode=c-archive -o librecur.a  .
 *
 * and linked with -lrecur (the static one also needs -lpthread). This
 * header is written by hand: it is the contract, and docs/c.md says the
 * same at more length.
 *
 * THE RULES
 *
 * Errors. Every function returns an int error code, RECUR_OK (0) or one
 * of the RECUR_E_ codes below, except recur_free and recur_strerror,
 * which cannot fail. No function aborts the process or lets a Go panic
 * out: each entry point recovers, and an unexpected failure inside is
 * RECUR_E_INTERNAL (a bug; please report it). recur_strerror names a
 * code. The functions that read text or a saved state take an optional
 * char **err: when it is not NULL and the call fails, *err receives a
 * message that says what is wrong and where (a policy's line, column and
 * a caret under the spot); it is NULL when the call succeeds.
 *
 * Out-parameters. On entry, every non-NULL out-parameter is set to its
 * empty value before anything else happens: 0 for a handle, a count or a
 * struct, NULL for a pointer, RECUR_STOP for a delay, RECUR_STATE_NONE
 * for a state and RECUR_WHY_DONE for a why. So after an error it holds
 * that value, never garbage, and a loop that ignores an error code still
 * stops. A required out-parameter that is NULL is RECUR_E_NULL; err and
 * why are optional.
 *
 * Memory. Every char * and uint8_t * that the library returns through an
 * out-parameter was allocated with malloc and belongs to the caller, who
 * releases it with recur_free (free works too, with the same C library).
 * The library keeps no pointer into memory the caller passes: input is
 * copied before the function returns, so it may be freed right after.
 * Nothing else is allocated on the caller's side: the objects behind
 * handles live inside the library until recur_close.
 *
 * Handles. Policies, runs, guards and calls are opaque 64-bit handles,
 * never pointers. 0 is never a handle. A handle stays valid until
 * recur_close, from any thread; after that it is stale, and every
 * function given a stale handle, 0, a number it never issued or a handle
 * of another kind returns RECUR_E_HANDLE: it cannot crash, and it cannot
 * reach an object made since (each handle carries a generation count of
 * its slot). At most RECUR_MAX_HANDLES are open at once (RECUR_E_LIMIT).
 *
 * Threads. Every function may be called from any thread, and any handle
 * may be used by several threads at once. Policies and guards are shared
 * without a lock on their hot paths; a run or a call serialises its own
 * functions. A handle closed while another thread uses it either finishes
 * that use on the old object or is reported stale.
 *
 * Text. Input strings are NUL-terminated UTF-8, bounded: at most
 * RECUR_MAX_POLICY bytes for a policy (after a UTF-8 byte order mark, if
 * any) and RECUR_MAX_CONFIG for a JSON config. The library reads no
 * further than the bound plus four bytes for a policy (the mark's three
 * and one) and plus one for a config, so a longer input costs no more
 * than a bound's worth of reading and copying, and is refused with
 * RECUR_E_TOO_LONG. Invalid UTF-8 is RECUR_E_UTF8. Output strings are
 * NUL-terminated UTF-8.
 *
 * Times. Durations and times are int64_t nanoseconds.
 */
#ifndef RECUR_H
#define RECUR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this interface; recur_abi_version returns the library's. */
#define RECUR_ABI_VERSION 1

/* An opaque handle: a policy, a run, a guard or a call. 0 is none. */
typedef uint64_t recur_handle;

/* Error codes. */
#define RECUR_OK 0          /* success */
#define RECUR_E_NULL 1      /* a required pointer argument is NULL */
#define RECUR_E_HANDLE 2    /* the handle is 0, closed, never issued, or of another kind */
#define RECUR_E_UTF8 3      /* input text is not valid UTF-8 */
#define RECUR_E_TOO_LONG 4  /* input is longer than its RECUR_MAX_ bound */
#define RECUR_E_PARSE 5     /* the policy does not parse or is invalid; *err says where */
#define RECUR_E_CONFIG 6    /* the JSON config is malformed or out of range; *err says which key */
#define RECUR_E_STATE 7     /* a saved run is corrupt, invalid, or of another policy */
#define RECUR_E_RANGE 8     /* an integer argument is out of its range (a verdict, a flag, a time) */
#define RECUR_E_OPEN 9      /* the circuit breaker refused the attempt: fail it at once, do not retry */
#define RECUR_E_THROTTLED 10 /* the budget refused the call (adaptive throttling): fail it at once */
#define RECUR_E_IN_TX 11    /* RECUR_F_RETRY on a guard that is inside a transaction */
#define RECUR_E_ORDER 12    /* a call's functions out of order (record before allow, ...) */
#define RECUR_E_LIMIT 13    /* RECUR_MAX_HANDLES handles are open already */
#define RECUR_E_NOMEM 14    /* malloc failed for an output */
#define RECUR_E_INTERNAL 15 /* a bug inside the library, caught at the boundary */

/* Bounds on the input. */
#define RECUR_MAX_POLICY 65536           /* bytes of a policy's text (Go: parse.MaxLen) */
#define RECUR_MAX_CONFIG 262144          /* bytes of a guard's JSON config */
#define RECUR_MAX_STATE 1048576          /* bytes of a saved run */
#define RECUR_MAX_DELAY_ATTEMPT 1048576  /* the largest attempt recur_policy_delay takes */
#define RECUR_MAX_HANDLES 4194304        /* handles open at once */

/* The delay that means "stop: make no further attempt". */
#define RECUR_STOP (-1)

/* Verdicts: what one attempt's outcome means (Go: package verdict). */
#define RECUR_SUCCESS 0   /* it worked; counts for the target */
#define RECUR_TRANSIENT 1 /* failed in a way that may pass: retry if the call may be repeated; counts against the target */
#define RECUR_RETRYABLE 2 /* busy or provably not processed (HTTP 429): retry; counts nothing in a breaker */
#define RECUR_FAILURE 3   /* failed, and retrying will not help; counts against the target */
#define RECUR_NEUTRAL 4   /* return the error and count nothing (a bad request, the caller's own cancel) */

/* Breaker states (Go: breaker.State); RECUR_STATE_NONE for a guard without a breaker. */
#define RECUR_STATE_NONE (-1)
#define RECUR_STATE_CLOSED 0
#define RECUR_STATE_HALF_OPEN 1
#define RECUR_STATE_OPEN 2
#define RECUR_STATE_FORCED_OPEN 3
#define RECUR_STATE_DISABLED 4
#define RECUR_STATE_METRICS_ONLY 5

/* Flags of recur_guard_allow. */
#define RECUR_F_RETRY 1u /* this call may be repeated: retry it after RECUR_TRANSIENT too */

/* Styles of recur_policy_print (Go: parse.Style). */
#define RECUR_CANONICAL 0 /* Intersect(Jittered(Exponential(100ms, 200%, 2s), 0%, 100%), Times(3)) */
#define RECUR_INFIX 1     /* fulljitter(100ms, 2s) & times(3) */

/* Why recur_call_record said stop (RECUR_WHY_RETRY when it did not). */
#define RECUR_WHY_RETRY 0      /* retry after the delay */
#define RECUR_WHY_DONE 1       /* the verdict is not retried: success, failure or neutral */
#define RECUR_WHY_NOT_MARKED 2 /* transient, but the call was not marked RECUR_F_RETRY */
#define RECUR_WHY_EXHAUSTED 3  /* the guard's retry policy said stop, or it has none */
#define RECUR_WHY_BUDGET 4     /* the retry budget refused the retry */
#define RECUR_WHY_IN_TX 5      /* the guard is inside a transaction: no call retries there */

/* What a policy allows, without running it (Go: schedule.Bounds). The
 * totals are for a run whose attempts take no time: waiting only. */
typedef struct recur_bounds {
    int64_t max_attempts; /* the most attempts of a run, the first included; -1: no bound */
    int64_t min_total_ns; /* the least total wait of a run that ends; -1: no run ends */
    int64_t max_total_ns; /* the most total wait of a run; -1: no bound */
    int64_t max_delay_ns; /* the longest single wait; -1: no bound; 0: never waits */
    int32_t stops;        /* 1 when every run stops on its own, 0 when some never does */
    int32_t reserved;     /* 0 */
} recur_bounds;

#ifndef RECUR_BUILDING /* the library's own Go code declares these itself */

/* ---- The library ------------------------------------------------------ */

/* recur_abi_version sets *version to the library's RECUR_ABI_VERSION. */
int recur_abi_version(int32_t *version);

/* recur_strerror returns a static, NUL-terminated name of an error code,
 * such as "handle is 0, closed or of another kind"; never NULL, never to
 * be freed. It cannot fail. */
const char *recur_strerror(int code);

/* recur_free releases a string or a buffer the library returned. NULL
 * is a no-op. It cannot fail. */
void recur_free(void *p);

/* recur_allocs sets *count and *bytes to the Go heap allocations the
 * library has made since it was loaded (Go's runtime.MemStats Mallocs and
 * TotalAlloc), for benchmarks: the difference around N calls, divided by
 * N, is their allocations per call. It pauses the library's goroutines
 * briefly; either pointer may be NULL. */
int recur_allocs(uint64_t *count, uint64_t *bytes);

/* recur_close closes any handle: a policy, a run, a guard or a call. The
 * handle is stale afterwards; closing it again is RECUR_E_HANDLE. Runs,
 * guards and calls made from a policy or a guard keep what they need, so
 * the order of closing does not matter. Closing a call whose attempt was
 * allowed and not recorded records it as RECUR_NEUTRAL. */
int recur_close(recur_handle h);

/* ---- Policies --------------------------------------------------------- */

/* recur_policy_parse reads a policy such as "fulljitter(100ms, 2s) &
 * times(3)" (docs/language.md has the language) and sets *policy to a new
 * handle. On RECUR_E_PARSE, *err (when err is not NULL) is the position,
 * the message and the source line with a caret under the spot:
 *
 *     1:1: unknown name "fulljiter"; did you mean "fulljitter"?
 *     fulljiter(100ms, 2s)
 *     ^
 *
 * Also RECUR_E_NULL, RECUR_E_UTF8, RECUR_E_TOO_LONG (more than
 * RECUR_MAX_POLICY bytes; the parser's token and depth limits are
 * RECUR_E_PARSE), RECUR_E_LIMIT. */
int recur_policy_parse(const char *src, recur_handle *policy, char **err);

/* recur_policy_print sets *out to the policy in a style: RECUR_CANONICAL,
 * the constructor form that parses back to the same policy, or
 * RECUR_INFIX, the form for people. Free *out with recur_free. */
int recur_policy_print(recur_handle policy, int style, char **out);

/* recur_policy_explain sets *out to the policy in plain words with its
 * bounds, as schedcheck explain prints it. Free *out with recur_free. */
int recur_policy_explain(recur_handle policy, char **out);

/* recur_policy_bounds fills *out with what the policy allows. */
int recur_policy_bounds(recur_handle policy, recur_bounds *out);

/* recur_policy_delay is the pure delay function, for retries scheduled
 * elsewhere (a job queue that stores the attempt number):
 *
 * attempt is the number of the attempt that just failed, counted from 1
 * for the first attempt; *delay_ns is the wait before attempt + 1, or
 * RECUR_STOP when the policy makes no attempt + 1.
 *
 * random is the seed of the run, any 64-bit value: keep the same one for
 * every attempt of one job (a hash of its ID, say) and give each job its
 * own, which is what decorrelates their jitter. The answer is the
 * attempt-th wait of the run of the policy from that seed whose attempts
 * take no time (Go: the attempt-th value of interp.Delays(policy,
 * random)), so it is deterministic: the same policy text, attempt and
 * random give the same nanoseconds on every call, thread, process and
 * machine, and interp's pinned-delay tests keep them so across versions.
 * A policy that measures time (spaced, upto) sees the attempts as taking
 * no time; use a run (recur_run_start) to give real times.
 *
 * The cost grows with attempt (the run is stepped attempt times, a few
 * nanoseconds each); attempt must be 1 to RECUR_MAX_DELAY_ATTEMPT, else
 * RECUR_E_RANGE. A job queue that retries without end can keep a saved
 * run per job instead (recur_run_marshal). */
int recur_policy_delay(recur_handle policy, int64_t attempt, uint64_t random, int64_t *delay_ns);

/* ---- Runs: stepping a policy, one decision per failed attempt ---------- */

/* recur_run_start begins a run of a policy whose random draws derive from
 * seed, and sets *run to a new handle. */
int recur_run_start(recur_handle policy, uint64_t seed, recur_handle *run);

/* recur_run_next decides after an attempt that started at start_ns and
 * ended at end_ns, both measured from the beginning of the run by the
 * caller's clock (0 <= start_ns <= end_ns, else RECUR_E_RANGE): *delay_ns
 * is how long after end_ns the next attempt should start, or RECUR_STOP.
 * Once a run has said stop it keeps saying so. The run reads no clock:
 * with the same seed and times it makes the same decisions. */
int recur_run_next(recur_handle run, int64_t start_ns, int64_t end_ns, int64_t *delay_ns);

/* recur_run_marshal saves the run's state (its seed, decision count and
 * every node's state, with a fingerprint of the policy, not the policy
 * itself: store the policy's text beside it) into a new buffer: *buf,
 * *len bytes. Free *buf with recur_free. */
int recur_run_marshal(recur_handle run, uint8_t **buf, size_t *len);

/* recur_run_resume makes a new run of policy from a state that
 * recur_run_marshal saved, and sets *run to its handle. A state is input
 * like any other: one that the policy's runs cannot have produced, or
 * that was saved from another policy, is RECUR_E_STATE, with the field in
 * *err; more than RECUR_MAX_STATE bytes is RECUR_E_TOO_LONG. Give the
 * resumed run times measured from the same beginning as before. */
int recur_run_resume(recur_handle policy, const uint8_t *buf, size_t len, recur_handle *run, char **err);

/* ---- Guards: a breaker, a budget and a retry policy for one target ----- */

/* recur_guard_new makes a guard from a JSON config and sets *guard to its
 * handle. The config is an object, decoded strictly: an unknown key, a
 * repeated key, a value of the wrong type or out of range is
 * RECUR_E_CONFIG with the key named in *err. Every key may be left out:
 *
 *   "name":    the target's name, in the breaker's errors; default "".
 *   "retry":   the retry policy, a string in the policy language; null or
 *              left out: no retries.
 *   "breaker": an object of breaker settings, {} for the defaults (open
 *              after 5 failures in a row or half of 20 calls in 10 s,
 *              for 5 s doubling to 60 s); null or left out: no breaker.
 *              Keys: consecutive_failures, failure_rate, slow_call,
 *              slow_rate, min_calls, count_window, window, open_for (a
 *              policy), half_open_probes (Go: breaker.Config).
 *   "budget":  an object with "kind": "token_bucket" (max_tokens,
 *              token_ratio), "ratio" (percent, min_per_second, window) or
 *              "adaptive" (k, window); null: no budget; left out: gRPC's
 *              token bucket of 10 tokens, as every recur runner gives a
 *              target by default (Go: budget.DefaultConfig).
 *
 * Durations are strings in Go's syntax ("250ms", "1m30s"); zero means
 * the default, as in Go. For example:
 *
 *   {"name": "payments", "retry": "fulljitter(100ms, 2s) & times(3)",
 *    "breaker": {"consecutive_failures": 3, "open_for": "spaced(10s)"},
 *    "budget": {"kind": "ratio", "percent": 20}}
 */
int recur_guard_new(const char *config_json, recur_handle *guard, char **err);

/* recur_guard_tx sets *tx to a new guard handle for the statements of one
 * transaction: it shares the guard's breaker, budget and name, but is
 * marked as inside a transaction, so a call made on it never retries, and
 * one marked RECUR_F_RETRY is refused with RECUR_E_IN_TX (retry the whole
 * transaction, on the outer guard, instead: the statements before the
 * failed one are gone with it). Close it when the transaction ends. */
int recur_guard_tx(recur_handle guard, recur_handle *tx);

/* recur_guard_state sets *state to the breaker's state, a RECUR_STATE_
 * code, or RECUR_STATE_NONE for a guard without a breaker. */
int recur_guard_state(recur_handle guard, int *state);

/* recur_guard_stats sets *json to the guard's counters as a JSON object,
 * {"name": ..., "breaker": {...} or null, "budget": {...} or null}, with
 * the breaker's state, opened, rejected, successes, failures, slow,
 * window_calls, window_failures and duplicates, and the budget's kind,
 * requests, refused, retries, throttled and tokens. Free it with
 * recur_free. */
int recur_guard_stats(recur_handle guard, char **json);

/* recur_guard_allow asks to make a call's first attempt: the breaker is
 * asked first, then the budget. RECUR_E_OPEN or RECUR_E_THROTTLED: the
 * call is refused, and must fail at once; *call stays 0. RECUR_OK: make
 * the attempt, then pass its verdict to recur_call_record; *call is a new
 * handle for the call and all its attempts, to close when it is done.
 * flags is 0 or RECUR_F_RETRY (anything else is RECUR_E_RANGE);
 * RECUR_F_RETRY on a transaction's guard is RECUR_E_IN_TX. */
int recur_guard_allow(recur_handle guard, uint32_t flags, recur_handle *call);

/* recur_call_record records the verdict of the attempt just allowed (a
 * RECUR_ verdict; another value is RECUR_E_RANGE and records nothing)
 * with the breaker and the budget, and decides: *delay_ns is the wait
 * before the next attempt, or RECUR_STOP. *why (when why is not NULL)
 * says why: RECUR_WHY_RETRY, or the reason to stop. A call retries after
 * RECUR_RETRYABLE, and after RECUR_TRANSIENT only when marked
 * RECUR_F_RETRY; then while the guard's retry policy goes on (its times
 * are the library's monotonic clock, from the first allow) and the
 * budget allows. Recording without an allowed attempt is RECUR_E_ORDER. */
int recur_call_record(recur_handle call, int verdict, int64_t *delay_ns, int *why);

/* recur_call_allow asks to make the call's next attempt, after the wait
 * that recur_call_record gave: RECUR_OK, or RECUR_E_OPEN when the breaker
 * refuses it (the call is then over: fail it). Allowing a call that
 * recur_call_record stopped, or twice without a record between, is
 * RECUR_E_ORDER. */
int recur_call_allow(recur_handle call);

#endif /* RECUR_BUILDING */

#ifdef __cplusplus
}
#endif

#endif /* RECUR_H */

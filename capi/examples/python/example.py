"""recur from Python: a job queue's retry times, a guarded call, a
breaker that opens. Run with RECUR_LIB set to librecur.so's path."""

import zlib

import recur

# A job queue stores each job's attempt count and asks when to run it
# again: the pure delay function, seeded by the job's ID so that each
# job has its own jitter and the answer never changes.
policy = recur.Policy("fulljitter(1s, 1m) & times(5)")
print("policy:", policy.infix())
print("explained:", policy.explain())
for job in ["job-17", "job-18"]:
    seed = zlib.crc32(job.encode())
    waits = [policy.delay(attempt, seed) for attempt in range(1, 6)]
    print(job, "waits (ms):", [None if w is None else w // 1_000_000 for w in waits])
policy.close()

# A mistake in a policy says where it is.
try:
    recur.Policy("fulljitter(1s, 1m) & tmes(5)")
except recur.RecurError as e:
    print("error:\n" + e.message)

# A guard: retries, a breaker and a budget for one target. The call is
# marked as one that may be repeated (retry=True).
guard = recur.Guard({
    "name": "inventory",
    "retry": "fulljitter(10ms, 100ms) & times(4)",
    "breaker": {"consecutive_failures": 3, "open_for": "spaced(30s)"},
    "budget": {"kind": "token_bucket", "max_tokens": 10},
})
answers = iter([TimeoutError("slow"), TimeoutError("slow"), "42 in stock"])


def fetch():
    a = next(answers)
    if isinstance(a, Exception):
        raise a
    return a


def judge(result, exc):
    return recur.SUCCESS if exc is None else recur.TRANSIENT


print("fetched:", guard.call(fetch, judge, retry=True, sleep=lambda s: None))
print("stats:", guard.stats()["breaker"])

# Three failures in a row open the breaker: the next call is refused at
# once, without an attempt.
for _ in range(3):
    with guard.allow() as c:
        c.record(recur.FAILURE)
print("state:", guard.state())
try:
    guard.allow()
except recur.RecurError as e:
    print("refused:", e.message, "(code %d)" % e.code)
guard.close()

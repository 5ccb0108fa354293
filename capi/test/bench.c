/*
 * bench.c: the cost of recur's C ABI, timed from C, as a C caller pays
 * it: each call crosses from C into the Go runtime and back.
 *
 *     bench [-bench NAME] [-n N] [-benchtime SECONDS]
 *
 * runs each benchmark (delay, runnext, allowrecord; or only NAME) for N
 * iterations, or, without -n, doubling N until one run takes the
 * benchtime (1 s), as go test does. It prints Go's benchmark format, with
 * allocations per call counted by recur_allocs:
 *
 *     BenchmarkDelay/impl=abi-2   9000000   132.0 ns/op   0 B/op   0 allocs/op
 *
 * The Go benchmarks of the capi module run it, as the impl=abi rows of
 * the same benchmarks (bench_test.go); docs/benchmarks.md has the figures.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "recur.h"

static recur_handle policy, forever, guard, run;

static void die(const char *what, int rc) {
    fprintf(stderr, "bench: %s: %s\n", what, recur_strerror(rc));
    exit(1);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The work of one iteration of each benchmark. */
static volatile int64_t sink;

static void delay(long i) {
    int64_t d;
    int rc = recur_policy_delay(policy, 3, (uint64_t)i, &d);
    if (rc != RECUR_OK) {
        die("recur_policy_delay", rc);
    }
    sink += d;
}

static void runnext(long i) {
    int64_t d;
    int rc = recur_run_next(run, 0, 0, &d);
    (void)i;
    if (rc != RECUR_OK) {
        die("recur_run_next", rc);
    }
    sink += d;
}

static void allowrecord(long i) {
    recur_handle c;
    int64_t d;
    int rc = recur_guard_allow(guard, 0, &c);
    (void)i;
    if (rc != RECUR_OK) {
        die("recur_guard_allow", rc);
    }
    if ((rc = recur_call_record(c, RECUR_SUCCESS, &d, NULL)) != RECUR_OK) {
        die("recur_call_record", rc);
    }
    if ((rc = recur_close(c)) != RECUR_OK) {
        die("recur_close", rc);
    }
}

struct bench {
    const char *name, *title;
    void (*op)(long);
};

static const struct bench benches[] = {
    {"delay", "BenchmarkDelay", delay},
    {"runnext", "BenchmarkRunNext", runnext},
    {"allowrecord", "BenchmarkAllowRecord", allowrecord},
};

/* measure runs op n times and returns the nanoseconds it took, with the
 * allocations made meanwhile. */
static double measure(const struct bench *b, long n, uint64_t *allocs, uint64_t *bytes) {
    uint64_t a0, b0, a1, b1;
    recur_allocs(&a0, &b0);
    double t0 = now();
    for (long i = 0; i < n; i++) {
        b->op(i);
    }
    double t = now() - t0;
    recur_allocs(&a1, &b1);
    *allocs = a1 - a0;
    *bytes = b1 - b0;
    return t;
}

int main(int argc, char **argv) {
    const char *only = NULL;
    long fixed = 0;
    double benchtime = 1e9;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-bench") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
            fixed = atol(argv[++i]);
        } else if (strcmp(argv[i], "-benchtime") == 0 && i + 1 < argc) {
            benchtime = atof(argv[++i]) * 1e9;
        } else {
            fprintf(stderr, "usage: bench [-bench delay|runnext|allowrecord] [-n N] [-benchtime SECONDS]\n");
            return 2;
        }
    }
    int rc;
    if ((rc = recur_policy_parse("fulljitter(100ms, 2s) & times(5)", &policy, NULL)) != RECUR_OK ||
        (rc = recur_policy_parse("fulljitter(100ms, 2s)", &forever, NULL)) != RECUR_OK ||
        (rc = recur_run_start(forever, 1, &run)) != RECUR_OK ||
        (rc = recur_guard_new("{\"breaker\": {}, \"budget\": {\"kind\": \"token_bucket\"}}", &guard, NULL)) != RECUR_OK) {
        die("setup", rc);
    }
    long procs = sysconf(_SC_NPROCESSORS_ONLN);
    char suffix[24] = "";
    if (procs > 1) {
        snprintf(suffix, sizeof suffix, "-%ld", procs);
    }
    for (size_t k = 0; k < sizeof benches / sizeof benches[0]; k++) {
        const struct bench *b = &benches[k];
        if (only != NULL && strcmp(only, b->name) != 0) {
            continue;
        }
        uint64_t allocs = 0, bytes = 0;
        long n = fixed > 0 ? fixed : 1;
        double t = measure(b, n, &allocs, &bytes);
        while (fixed == 0 && t < benchtime && n < 1000000000L) {
            /* Aim 20% past the benchtime, at most 100× more, as go test does. */
            double per = t / (double)n;
            long next = per > 0 ? (long)(benchtime * 1.2 / per) : n * 100;
            if (next > n * 100) {
                next = n * 100;
            }
            if (next <= n) {
                next = n + 1;
            }
            n = next;
            t = measure(b, n, &allocs, &bytes);
        }
        printf("%s/impl=abi%s\t%10ld\t%12.1f ns/op\t%8.0f B/op\t%8.2f allocs/op\n", b->title, suffix, n,
               t / (double)n, (double)bytes / (double)n, (double)allocs / (double)n);
        fflush(stdout);
    }
    recur_close(guard);
    recur_close(run);
    recur_close(forever);
    recur_close(policy);
    return 0;
}

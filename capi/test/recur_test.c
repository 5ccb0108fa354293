/*
 * recur_test.c: every function of recur.h, from C, with good and bad
 * input. TestC in the capi module builds the library, compiles this file
 * with the system cc under AddressSanitizer and runs it; it prints
 * "N passed, N failed" and exits non-zero on a failure. Every string and
 * buffer the library returns is freed, so the leak checker at exit finds
 * nothing of ours.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recur.h"

static int passed, failed;

#define CHECK(cond)                                                        \
    do {                                                                   \
        if (cond) {                                                        \
            passed++;                                                      \
        } else {                                                           \
            failed++;                                                      \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                  \
    } while (0)

#define EQ(got, want)                                                            \
    do {                                                                         \
        long long g_ = (long long)(got), w_ = (long long)(want);                 \
        if (g_ == w_) {                                                          \
            passed++;                                                            \
        } else {                                                                 \
            failed++;                                                            \
            fprintf(stderr, "FAIL %s:%d: %s = %lld, want %lld\n", __FILE__,      \
                    __LINE__, #got, g_, w_);                                     \
        }                                                                        \
    } while (0)

/* CONTAINS checks that s (a string the library returned) holds sub. */
#define CONTAINS(s, sub)                                                          \
    do {                                                                          \
        const char *s_ = (s);                                                     \
        if (s_ != NULL && strstr(s_, (sub)) != NULL) {                            \
            passed++;                                                             \
        } else {                                                                  \
            failed++;                                                             \
            fprintf(stderr, "FAIL %s:%d: %s = \"%s\" does not contain \"%s\"\n", \
                    __FILE__, __LINE__, #s, s_ ? s_ : "(null)", (sub));           \
        }                                                                         \
    } while (0)

static const char *POLICY = "fulljitter(100ms, 2s) & times(3)";

static recur_handle parse_ok(const char *src) {
    recur_handle p = 0;
    char *err = NULL;
    int rc = recur_policy_parse(src, &p, &err);
    if (rc != RECUR_OK) {
        fprintf(stderr, "parse %s: %d %s\n", src, rc, err ? err : "");
    }
    EQ(rc, RECUR_OK);
    CHECK(err == NULL);
    CHECK(p != 0);
    return p;
}

static recur_handle guard_ok(const char *json) {
    recur_handle g = 0;
    char *err = NULL;
    int rc = recur_guard_new(json, &g, &err);
    if (rc != RECUR_OK) {
        fprintf(stderr, "guard %s: %d %s\n", json, rc, err ? err : "");
    }
    EQ(rc, RECUR_OK);
    CHECK(err == NULL);
    recur_free(err);
    return g;
}

/* config_err checks that a config is refused with RECUR_E_CONFIG (or
 * want) and a message holding sub. */
static void config_err(const char *json, int want, const char *sub) {
    recur_handle g = 77;
    char *err = NULL;
    int rc = recur_guard_new(json, &g, &err);
    if (rc != want) {
        fprintf(stderr, "config %s: got %d (%s), want %d\n", json, rc, err ? err : "", want);
    }
    EQ(rc, want);
    EQ(g, 0);
    CONTAINS(err, sub);
    recur_free(err);
}

static void test_library(void) {
    int32_t v = 0;
    EQ(recur_abi_version(&v), RECUR_OK);
    EQ(v, RECUR_ABI_VERSION);
    EQ(recur_abi_version(NULL), RECUR_E_NULL);
    for (int c = RECUR_OK; c <= RECUR_E_INTERNAL; c++) {
        const char *s = recur_strerror(c);
        CHECK(s != NULL && strcmp(s, "unknown error code") != 0);
    }
    CONTAINS(recur_strerror(RECUR_E_HANDLE), "handle");
    EQ(strcmp(recur_strerror(-5), "unknown error code"), 0);
    EQ(strcmp(recur_strerror(RECUR_E_INTERNAL + 1), "unknown error code"), 0);
    recur_free(NULL); /* a no-op */
}

static void test_policy(void) {
    recur_handle p = parse_ok(POLICY);
    char *s = NULL;

    EQ(recur_policy_print(p, RECUR_CANONICAL, &s), RECUR_OK);
    EQ(strcmp(s, "Intersect(Jittered(Exponential(100ms, 200%, 2s), 0%, 100%), Times(3))"), 0);
    recur_free(s);
    EQ(recur_policy_print(p, RECUR_INFIX, &s), RECUR_OK);
    EQ(strcmp(s, POLICY), 0);
    recur_free(s);
    s = (char *)1;
    EQ(recur_policy_print(p, 7, &s), RECUR_E_RANGE);
    CHECK(s == NULL);
    EQ(recur_policy_print(p, RECUR_INFIX, NULL), RECUR_E_NULL);

    EQ(recur_policy_explain(p, &s), RECUR_OK);
    CONTAINS(s, "up to 3 attempts");
    CONTAINS(s, "0s to 300ms of waiting in all");
    recur_free(s);
    EQ(recur_policy_explain(p, NULL), RECUR_E_NULL);

    recur_bounds b;
    memset(&b, 0xff, sizeof b);
    EQ(recur_policy_bounds(p, &b), RECUR_OK);
    EQ(b.max_attempts, 3);
    EQ(b.min_total_ns, 0);
    EQ(b.max_total_ns, 300000000);
    EQ(b.max_delay_ns, 200000000);
    EQ(b.stops, 1);
    EQ(b.reserved, 0);
    EQ(recur_policy_bounds(p, NULL), RECUR_E_NULL);

    recur_handle forever = parse_ok("spaced(1s)");
    EQ(recur_policy_bounds(forever, &b), RECUR_OK);
    EQ(b.max_attempts, -1);
    EQ(b.min_total_ns, -1);
    EQ(b.max_total_ns, -1);
    EQ(b.max_delay_ns, 1000000000);
    EQ(b.stops, 0);

    /* The pure delay function: the values are pinned (TestDelayPinned in
     * Go checks them against interp.Delays), the same on every call. */
    int64_t d = 0;
    EQ(recur_policy_delay(p, 1, 42, &d), RECUR_OK);
    EQ(d, 39175395);
    EQ(recur_policy_delay(p, 2, 42, &d), RECUR_OK);
    EQ(d, 16518473);
    EQ(recur_policy_delay(p, 3, 42, &d), RECUR_OK);
    EQ(d, RECUR_STOP); /* times(3): no fourth attempt */
    EQ(recur_policy_delay(p, 1000, 42, &d), RECUR_OK);
    EQ(d, RECUR_STOP);
    for (int i = 0; i < 100; i++) {
        int64_t again = 0;
        EQ(recur_policy_delay(p, 1, 42, &again), RECUR_OK);
        if (again != 39175395) {
            EQ(again, 39175395);
            break;
        }
    }
    /* Different seeds, different jitter, within the policy's bounds. */
    int64_t other = 0;
    EQ(recur_policy_delay(p, 1, 43, &other), RECUR_OK);
    CHECK(other != 39175395 && other >= 0 && other <= 100000000);
    d = 5;
    EQ(recur_policy_delay(p, 0, 42, &d), RECUR_E_RANGE);
    EQ(d, RECUR_STOP);
    EQ(recur_policy_delay(p, -1, 42, &d), RECUR_E_RANGE);
    EQ(recur_policy_delay(p, RECUR_MAX_DELAY_ATTEMPT + 1, 42, &d), RECUR_E_RANGE);
    EQ(recur_policy_delay(forever, RECUR_MAX_DELAY_ATTEMPT, 42, &d), RECUR_OK);
    EQ(d, 1000000000);
    EQ(recur_policy_delay(p, 1, 42, NULL), RECUR_E_NULL);

    EQ(recur_close(forever), RECUR_OK);
    EQ(recur_close(p), RECUR_OK);
}

static void test_parse_errors(void) {
    recur_handle p = 99;
    char *err = NULL;

    EQ(recur_policy_parse("fulljiter(100ms, 2s)", &p, &err), RECUR_E_PARSE);
    EQ(p, 0);
    EQ(strcmp(err, "1:1: unknown name \"fulljiter\"; did you mean \"fulljitter\"?\n"
                   "fulljiter(100ms, 2s)\n"
                   "^"), 0);
    recur_free(err);

    EQ(recur_policy_parse("times(3) &\n  times(0)", &p, &err), RECUR_E_PARSE);
    CONTAINS(err, "2:9: Times: n 0 is below 1\n  times(0)\n        ^");
    recur_free(err);

    /* No message wanted: err may be NULL. */
    EQ(recur_policy_parse("nope(", &p, NULL), RECUR_E_PARSE);
    EQ(recur_policy_parse(NULL, &p, &err), RECUR_E_NULL);
    CONTAINS(err, "NULL");
    recur_free(err);
    EQ(recur_policy_parse(POLICY, NULL, &err), RECUR_E_NULL);
    recur_free(err);

    /* Invalid UTF-8: a lone continuation byte, and a truncated sequence. */
    EQ(recur_policy_parse("times(3) # \x80", &p, &err), RECUR_E_UTF8);
    CONTAINS(err, "at byte 11");
    recur_free(err);
    EQ(recur_policy_parse("times(\xe2\x82)", &p, &err), RECUR_E_UTF8);
    recur_free(err);

    /* A 1 MB policy is refused: read no further than the bound. */
    size_t big = 1 << 20;
    char *huge = malloc(big + 1);
    for (size_t i = 0; i < big; i++) {
        huge[i] = "times(3) & "[i % 11];
    }
    huge[big] = 0;
    EQ(recur_policy_parse(huge, &p, &err), RECUR_E_TOO_LONG);
    CONTAINS(err, "policy is longer than 65536 bytes");
    recur_free(err);
    /* ... and so is one over the bound by one byte. */
    huge[RECUR_MAX_POLICY + 1] = 0;
    EQ(recur_policy_parse(huge, &p, &err), RECUR_E_TOO_LONG);
    CONTAINS(err, "the limit is 65536");
    recur_free(err);
    free(huge);
    /* An unterminated buffer of the bound plus four bytes is read no
     * further than its end (AddressSanitizer would see an overread). */
    char *unterminated = malloc(RECUR_MAX_POLICY + 4);
    memset(unterminated, ' ', RECUR_MAX_POLICY + 4);
    EQ(recur_policy_parse(unterminated, &p, NULL), RECUR_E_TOO_LONG);
    free(unterminated);

    /* Within the byte bound, the parser's own limits: tokens and depth. */
    char *many = malloc(20000);
    strcpy(many, "times(1)");
    for (int i = 0; i < 1000; i++) {
        strcat(many, " & times(1)");
    }
    EQ(recur_policy_parse(many, &p, &err), RECUR_E_PARSE);
    CONTAINS(err, "tokens");
    recur_free(err);
    many[0] = 0;
    for (int i = 0; i < 100; i++) {
        strcat(many, "(");
    }
    strcat(many, "times(1)");
    for (int i = 0; i < 100; i++) {
        strcat(many, ")");
    }
    EQ(recur_policy_parse(many, &p, &err), RECUR_E_PARSE);
    CONTAINS(err, "deep");
    recur_free(err);
    free(many);

    /* A byte order mark is skipped, as editors write one. */
    p = parse_ok("\xef\xbb\xbftimes(2)");
    EQ(recur_close(p), RECUR_OK);
}

static void test_run(void) {
    recur_handle p = parse_ok("backoff(100ms, 1s) & times(6)");
    recur_handle r = 0, again = 0, resumed = 0;
    int64_t d = 0, want[8];
    int n = 0;

    EQ(recur_run_start(p, 7, &r), RECUR_OK);
    EQ(recur_run_start(p, 7, &again), RECUR_OK);
    /* A run reads no clock: the caller's times decide. */
    int64_t t = 0;
    for (;;) {
        EQ(recur_run_next(r, t, t + 1000, &d), RECUR_OK);
        if (d == RECUR_STOP) {
            break;
        }
        want[n++] = d;
        t += 1000 + d;
    }
    EQ(n, 5); /* six attempts, five waits */
    EQ(recur_run_next(r, t, t, &d), RECUR_OK);
    EQ(d, RECUR_STOP); /* and stop it stays */

    /* Step the second run twice, save it, resume it, and go on: the same
     * decisions as the first run. */
    t = 0;
    for (int i = 0; i < 2; i++) {
        EQ(recur_run_next(again, t, t + 1000, &d), RECUR_OK);
        EQ(d, want[i]);
        t += 1000 + d;
    }
    uint8_t *buf = NULL;
    size_t len = 0;
    EQ(recur_run_marshal(again, &buf, &len), RECUR_OK);
    CHECK(buf != NULL && len > 0);
    EQ(recur_close(again), RECUR_OK);
    char *err = NULL;
    EQ(recur_run_resume(p, buf, len, &resumed, &err), RECUR_OK);
    CHECK(err == NULL);
    for (int i = 2; i < n; i++) {
        EQ(recur_run_next(resumed, t, t + 1000, &d), RECUR_OK);
        EQ(d, want[i]);
        t += 1000 + d;
    }
    EQ(recur_run_next(resumed, t, t + 1000, &d), RECUR_OK);
    EQ(d, RECUR_STOP);
    EQ(recur_close(resumed), RECUR_OK);

    /* A saved run is input like any other. */
    recur_handle other = parse_ok("spaced(1s)");
    EQ(recur_run_resume(other, buf, len, &resumed, &err), RECUR_E_STATE);
    EQ(resumed, 0);
    CONTAINS(err, "another schedule");
    recur_free(err);
    uint8_t *bad = malloc(len);
    memcpy(bad, buf, len);
    bad[len - 1] ^= 0x5a;
    int rc = recur_run_resume(p, bad, len, &resumed, &err);
    EQ(rc, RECUR_E_STATE);
    CHECK(err != NULL);
    recur_free(err);
    EQ(recur_run_resume(p, bad, 3, &resumed, &err), RECUR_E_STATE);
    recur_free(err);
    EQ(recur_run_resume(p, bad, 0, &resumed, &err), RECUR_E_STATE);
    recur_free(err);
    free(bad);
    EQ(recur_run_resume(p, NULL, len, &resumed, &err), RECUR_E_NULL);
    recur_free(err);
    EQ(recur_run_resume(p, buf, len, NULL, &err), RECUR_E_NULL);
    recur_free(err);
    EQ(recur_run_resume(p, buf, (size_t)RECUR_MAX_STATE + 1, &resumed, &err), RECUR_E_TOO_LONG);
    recur_free(err);
    recur_free(buf);

    /* Times: 0 <= start <= end. */
    EQ(recur_run_start(p, 1, &r), RECUR_OK);
    d = 0;
    EQ(recur_run_next(r, -1, 0, &d), RECUR_E_RANGE);
    EQ(d, RECUR_STOP);
    EQ(recur_run_next(r, 10, 9, &d), RECUR_E_RANGE);
    EQ(recur_run_next(r, 0, 0, NULL), RECUR_E_NULL);
    EQ(recur_run_marshal(r, NULL, &len), RECUR_E_NULL);
    EQ(recur_run_marshal(r, &buf, NULL), RECUR_E_NULL);
    CHECK(buf == NULL);
    EQ(recur_run_start(p, 1, NULL), RECUR_E_NULL);

    /* Closing the policy first leaves its runs working. */
    EQ(recur_close(p), RECUR_OK);
    EQ(recur_run_next(r, 0, 0, &d), RECUR_OK);
    CHECK(d >= 50000000 && d <= 100000000);
    EQ(recur_close(r), RECUR_OK);
    EQ(recur_close(other), RECUR_OK);
}

static void test_config(void) {
    recur_handle g = guard_ok("{}");
    EQ(recur_close(g), RECUR_OK);
    g = guard_ok("{\"name\": \"payments\", \"retry\": \"fulljitter(100ms, 2s) & times(3)\","
                 " \"breaker\": {\"consecutive_failures\": 3, \"failure_rate\": 40, \"slow_call\": \"2s\","
                 " \"slow_rate\": 80, \"min_calls\": 10, \"window\": \"30s\", \"open_for\": \"spaced(10s)\","
                 " \"half_open_probes\": 2},"
                 " \"budget\": {\"kind\": \"ratio\", \"percent\": 20, \"min_per_second\": 2, \"window\": \"1m\"}}");
    EQ(recur_close(g), RECUR_OK);
    g = guard_ok("{\"breaker\": {\"count_window\": 50}, \"budget\": {\"kind\": \"token_bucket\", \"max_tokens\": 20, \"token_ratio\": 0.5}}");
    EQ(recur_close(g), RECUR_OK);
    g = guard_ok("{\"retry\": null, \"breaker\": null, \"budget\": {\"kind\": \"adaptive\", \"k\": 1.5, \"window\": \"1m\"}}");
    EQ(recur_close(g), RECUR_OK);

    config_err("{\"retyr\": \"times(3)\"}", RECUR_E_CONFIG, "unknown key \"retyr\"; did you mean \"retry\"?");
    config_err("{\"breaker\": {\"windw\": \"10s\"}}", RECUR_E_CONFIG, "unknown key \"breaker.windw\"; did you mean \"window\"?");
    config_err("{\"budget\": {\"kind\": \"ratio\", \"k\": 2}}", RECUR_E_CONFIG, "budget.k does not apply to kind \"ratio\"");
    config_err("{\"budget\": {\"kind\": \"ratio\", \"bogus\": 2}}", RECUR_E_CONFIG, "unknown key \"budget.bogus\"");
    config_err("{\"budget\": {\"percent\": 20}}", RECUR_E_CONFIG, "budget.kind is required");
    config_err("{\"budget\": {\"kind\": \"tokenbucket\"}}", RECUR_E_CONFIG, "did you mean \"token_bucket\"?");
    config_err("{\"retry\": \"times(3)\", \"retry\": \"times(4)\"}", RECUR_E_CONFIG, "key \"retry\" is repeated");
    config_err("{\"breaker\": {\"window\": \"1s\", \"window\": \"2s\"}}", RECUR_E_CONFIG, "key \"breaker.window\" is repeated");
    config_err("{\"retry\": 3}", RECUR_E_CONFIG, "retry is a number, not a string");
    config_err("{\"breaker\": {\"min_calls\": \"ten\"}}", RECUR_E_CONFIG, "breaker.min_calls is a string, not an integer");
    config_err("{\"breaker\": {\"min_calls\": 2.5}}", RECUR_E_CONFIG, "breaker.min_calls is 2.5, not an integer");
    config_err("{\"breaker\": {\"window\": 10}}", RECUR_E_CONFIG, "breaker.window is a number, not a duration string");
    config_err("{\"breaker\": {\"window\": \"10 seconds\"}}", RECUR_E_CONFIG, "breaker.window is \"10 seconds\", not a duration");
    config_err("{\"breaker\": {\"slow_call\": \"-1s\"}}", RECUR_E_CONFIG, "breaker.slow_call is \"-1s\", a negative duration");
    config_err("{\"breaker\": {\"failure_rate\": 150}}", RECUR_E_CONFIG, "breaker.failure_rate = 150");
    config_err("{\"breaker\": {\"open_for\": \"times(1)\"}}", RECUR_E_CONFIG, "breaker.open_for");
    config_err("{\"budget\": {\"kind\": \"token_bucket\", \"max_tokens\": 5000}}", RECUR_E_CONFIG, "budget.max_tokens = 5000");
    config_err("{\"budget\": {\"kind\": \"adaptive\", \"k\": 0.5}}", RECUR_E_CONFIG, "budget.k = 0.5");
    config_err("{\"retry\": \"times(3) & fulljiter(1s, 2s)\"}", RECUR_E_CONFIG,
               "retry: 1:12: unknown name \"fulljiter\"; did you mean \"fulljitter\"?\ntimes(3) & fulljiter(1s, 2s)\n           ^");
    config_err("{\"breaker\": {\"open_for\": \"spaced(0s)\"}}", RECUR_E_CONFIG, "breaker.open_for: 1:8:");
    config_err("[1, 2]", RECUR_E_CONFIG, "config is an array, not an object");
    config_err("{\"breaker\": []}", RECUR_E_CONFIG, "breaker is an array, not an object");
    config_err("{} {}", RECUR_E_CONFIG, "more after its object");
    config_err("{\"retry\": ", RECUR_E_CONFIG, "config");
    config_err("{\"retry\" \"x\"}", RECUR_E_CONFIG, "not valid JSON");
    config_err("", RECUR_E_CONFIG, "config");
    config_err("{\"name\": \"caf\xc3\"}", RECUR_E_UTF8, "not valid UTF-8");
    config_err(NULL, RECUR_E_NULL, "config is NULL");

    size_t big = 1 << 20;
    char *huge = malloc(big + 1);
    memset(huge, ' ', big);
    huge[0] = '{';
    huge[big - 1] = '}';
    huge[big] = 0;
    config_err(huge, RECUR_E_TOO_LONG, "longer than 262144 bytes");
    free(huge);

    char *err = NULL;
    EQ(recur_guard_new("{}", NULL, &err), RECUR_E_NULL);
    recur_free(err);
}

static void test_guard(void) {
    recur_handle g = guard_ok("{\"name\": \"db\", \"retry\": \"fulljitter(100ms, 2s) & times(3)\","
                              " \"breaker\": {\"consecutive_failures\": 5}, \"budget\": null}");
    recur_handle c = 0;
    int64_t d = 0;
    int why = -1, state = -9;

    /* A first-try success. */
    EQ(recur_guard_allow(g, 0, &c), RECUR_OK);
    CHECK(c != 0);
    EQ(recur_call_record(c, RECUR_SUCCESS, &d, &why), RECUR_OK);
    EQ(d, RECUR_STOP);
    EQ(why, RECUR_WHY_DONE);
    EQ(recur_call_record(c, RECUR_SUCCESS, &d, &why), RECUR_E_ORDER);
    EQ(recur_call_allow(c), RECUR_E_ORDER);
    EQ(recur_close(c), RECUR_OK);

    /* Transient, not marked: the call may have run, so no retry. */
    EQ(recur_guard_allow(g, 0, &c), RECUR_OK);
    EQ(recur_call_record(c, RECUR_TRANSIENT, &d, &why), RECUR_OK);
    EQ(d, RECUR_STOP);
    EQ(why, RECUR_WHY_NOT_MARKED);
    EQ(recur_close(c), RECUR_OK);

    /* Retryable, not marked: provably not processed, so it retries. */
    EQ(recur_guard_allow(g, 0, &c), RECUR_OK);
    EQ(recur_call_record(c, RECUR_RETRYABLE, &d, NULL), RECUR_OK);
    CHECK(d >= 0 && d <= 100000000);
    EQ(recur_call_allow(c), RECUR_OK);
    EQ(recur_call_record(c, RECUR_SUCCESS, &d, &why), RECUR_OK);
    EQ(why, RECUR_WHY_DONE);
    EQ(recur_close(c), RECUR_OK);

    /* Marked: retried until the policy's three attempts are spent. */
    EQ(recur_guard_allow(g, RECUR_F_RETRY, &c), RECUR_OK);
    int attempts = 1;
    for (;;) {
        EQ(recur_call_record(c, RECUR_TRANSIENT, &d, &why), RECUR_OK);
        if (d == RECUR_STOP) {
            break;
        }
        EQ(why, RECUR_WHY_RETRY);
        CHECK(d >= 0 && d <= 200000000);
        EQ(recur_call_allow(c), RECUR_OK);
        EQ(recur_call_allow(c), RECUR_E_ORDER); /* twice without a record */
        attempts++;
    }
    EQ(attempts, 3);
    EQ(why, RECUR_WHY_EXHAUSTED);
    EQ(recur_close(c), RECUR_OK);

    /* Out-of-range arguments. */
    c = 5;
    EQ(recur_guard_allow(g, 2, &c), RECUR_E_RANGE);
    EQ(c, 0);
    EQ(recur_guard_allow(g, 0, NULL), RECUR_E_NULL);
    EQ(recur_guard_allow(g, 0, &c), RECUR_OK);
    EQ(recur_call_record(c, 5, &d, &why), RECUR_E_RANGE);
    EQ(recur_call_record(c, -1, &d, &why), RECUR_E_RANGE);
    EQ(recur_call_record(c, RECUR_SUCCESS, NULL, &why), RECUR_E_NULL);
    EQ(recur_call_record(c, RECUR_FAILURE, &d, &why), RECUR_OK); /* still allowed: the bad calls recorded nothing */
    EQ(why, RECUR_WHY_DONE);
    EQ(recur_close(c), RECUR_OK);

    EQ(recur_guard_state(g, &state), RECUR_OK);
    EQ(state, RECUR_STATE_CLOSED);
    EQ(recur_guard_state(g, NULL), RECUR_E_NULL);

    char *js = NULL;
    EQ(recur_guard_stats(g, &js), RECUR_OK);
    CONTAINS(js, "\"name\":\"db\"");
    CONTAINS(js, "\"state\":\"closed\"");
    CONTAINS(js, "\"successes\":2");
    CONTAINS(js, "\"failures\":5");
    CONTAINS(js, "\"budget\":null");
    recur_free(js);
    EQ(recur_guard_stats(g, NULL), RECUR_E_NULL);

    /* Closing a call with an attempt allowed records it as neutral. */
    EQ(recur_guard_allow(g, 0, &c), RECUR_OK);
    EQ(recur_close(c), RECUR_OK);
    /* The guard closes before its call: the call still works. */
    EQ(recur_guard_allow(g, 0, &c), RECUR_OK);
    EQ(recur_close(g), RECUR_OK);
    EQ(recur_call_record(c, RECUR_SUCCESS, &d, &why), RECUR_OK);
    EQ(recur_close(c), RECUR_OK);
}

static void test_breaker_opens(void) {
    recur_handle g = guard_ok("{\"breaker\": {\"consecutive_failures\": 2, \"open_for\": \"spaced(1h)\"}}");
    recur_handle c = 0;
    int64_t d = 0;
    int state = -9;
    for (int i = 0; i < 2; i++) {
        EQ(recur_guard_allow(g, RECUR_F_RETRY, &c), RECUR_OK);
        EQ(recur_call_record(c, RECUR_FAILURE, &d, NULL), RECUR_OK);
        EQ(recur_close(c), RECUR_OK);
    }
    EQ(recur_guard_state(g, &state), RECUR_OK);
    EQ(state, RECUR_STATE_OPEN);
    c = 123;
    EQ(recur_guard_allow(g, 0, &c), RECUR_E_OPEN);
    EQ(c, 0);
    char *js = NULL;
    EQ(recur_guard_stats(g, &js), RECUR_OK);
    CONTAINS(js, "\"state\":\"open\"");
    CONTAINS(js, "\"opened\":1");
    CONTAINS(js, "\"rejected\":1");
    CONTAINS(js, "\"kind\":\"token_bucket\""); /* the default budget */
    recur_free(js);
    EQ(recur_close(g), RECUR_OK);

    /* A retry refused by the breaker ends the call. */
    g = guard_ok("{\"retry\": \"spaced(1ms) & times(5)\", \"breaker\": {\"consecutive_failures\": 1, \"open_for\": \"spaced(1h)\"}, \"budget\": null}");
    EQ(recur_guard_allow(g, RECUR_F_RETRY, &c), RECUR_OK);
    EQ(recur_call_record(c, RECUR_TRANSIENT, &d, NULL), RECUR_OK);
    CHECK(d >= 0);
    EQ(recur_call_allow(c), RECUR_E_OPEN);
    EQ(recur_call_allow(c), RECUR_E_ORDER);
    EQ(recur_close(c), RECUR_OK);

    /* No breaker: RECUR_STATE_NONE. */
    recur_handle none = guard_ok("{\"breaker\": null}");
    EQ(recur_guard_state(none, &state), RECUR_OK);
    EQ(state, RECUR_STATE_NONE);
    EQ(recur_close(none), RECUR_OK);
    EQ(recur_close(g), RECUR_OK);
}

static void test_budget(void) {
    /* A bucket of 4 tokens: retries only while more than 2 are left. */
    recur_handle g = guard_ok("{\"retry\": \"spaced(1ms) & times(10)\", \"budget\": {\"kind\": \"token_bucket\", \"max_tokens\": 4}}");
    recur_handle c = 0;
    int64_t d = 0;
    int why = -1;
    EQ(recur_guard_allow(g, RECUR_F_RETRY, &c), RECUR_OK);
    EQ(recur_call_record(c, RECUR_TRANSIENT, &d, &why), RECUR_OK); /* 3 left */
    EQ(why, RECUR_WHY_RETRY);
    EQ(recur_call_allow(c), RECUR_OK);
    EQ(recur_call_record(c, RECUR_TRANSIENT, &d, &why), RECUR_OK); /* 2 left */
    EQ(d, RECUR_STOP);
    EQ(why, RECUR_WHY_BUDGET);
    EQ(recur_close(c), RECUR_OK);
    char *js = NULL;
    EQ(recur_guard_stats(g, &js), RECUR_OK);
    CONTAINS(js, "\"retries\":1");
    CONTAINS(js, "\"throttled\":1");
    CONTAINS(js, "\"tokens\":2");
    recur_free(js);
    EQ(recur_close(g), RECUR_OK);

    /* Adaptive throttling refuses calls to a target that accepts none. */
    g = guard_ok("{\"budget\": {\"kind\": \"adaptive\", \"k\": 1}}");
    int throttled = 0, errors = 0;
    for (int i = 0; i < 1000 && !throttled; i++) {
        int rc = recur_guard_allow(g, 0, &c);
        if (rc == RECUR_E_THROTTLED) {
            throttled = 1;
            EQ(c, 0);
            break;
        }
        errors += rc != RECUR_OK;
        errors += recur_call_record(c, RECUR_FAILURE, &d, NULL) != RECUR_OK;
        errors += recur_close(c) != RECUR_OK;
    }
    EQ(errors, 0);
    CHECK(throttled);
    EQ(recur_close(g), RECUR_OK);
}

static void test_tx(void) {
    recur_handle g = guard_ok("{\"retry\": \"spaced(1ms) & times(5)\", \"breaker\": {}}");
    recur_handle tx = 0, c = 0;
    int64_t d = 0;
    int why = -1;
    EQ(recur_guard_tx(g, &tx), RECUR_OK);
    CHECK(tx != 0 && tx != g);
    c = 9;
    EQ(recur_guard_allow(tx, RECUR_F_RETRY, &c), RECUR_E_IN_TX);
    EQ(c, 0);
    EQ(recur_guard_allow(tx, 0, &c), RECUR_OK);
    EQ(recur_call_record(c, RECUR_RETRYABLE, &d, &why), RECUR_OK);
    EQ(d, RECUR_STOP);
    EQ(why, RECUR_WHY_IN_TX);
    EQ(recur_close(c), RECUR_OK);
    EQ(recur_guard_tx(g, NULL), RECUR_E_NULL);
    /* A transaction's guard shares the breaker. */
    char *js = NULL;
    EQ(recur_guard_stats(g, &js), RECUR_OK);
    CONTAINS(js, "\"successes\":0,\"failures\":0");
    recur_free(js);
    EQ(recur_close(tx), RECUR_OK);
    /* The outer guard retries the whole transaction. */
    EQ(recur_guard_allow(g, RECUR_F_RETRY, &c), RECUR_OK);
    EQ(recur_call_record(c, RECUR_TRANSIENT, &d, &why), RECUR_OK);
    EQ(why, RECUR_WHY_RETRY);
    EQ(recur_close(c), RECUR_OK); /* given up while waiting: fine */
    EQ(recur_close(g), RECUR_OK);
}

/* STALE calls one function with a handle that must be refused: each
 * function that takes a handle is listed once per kind of bad handle.
 * TestStaleCoversAll in Go checks that the list names every function of
 * recur.h that takes a recur_handle. */
static int stale_calls;
#define STALE(fn, call)                                                                 \
    do {                                                                                \
        int rc_ = (call);                                                               \
        stale_calls++;                                                                  \
        if (rc_ != RECUR_E_HANDLE) {                                                    \
            fprintf(stderr, "FAIL %s:%d: %s with a bad handle: %d\n", __FILE__, __LINE__, \
                    #fn, rc_);                                                          \
            failed++;                                                                   \
        } else {                                                                        \
            passed++;                                                                   \
        }                                                                               \
    } while (0)

static void stale_all(recur_handle bad) {
    char *s = NULL;
    recur_bounds b;
    int64_t d = 0;
    int i = 0;
    recur_handle h = 0;
    uint8_t *buf = NULL;
    size_t n = 0;
    uint8_t state[4] = {0};
    STALE(recur_close, recur_close(bad));
    STALE(recur_policy_print, recur_policy_print(bad, RECUR_CANONICAL, &s));
    STALE(recur_policy_explain, recur_policy_explain(bad, &s));
    STALE(recur_policy_bounds, recur_policy_bounds(bad, &b));
    STALE(recur_policy_delay, recur_policy_delay(bad, 1, 1, &d));
    STALE(recur_run_start, recur_run_start(bad, 1, &h));
    STALE(recur_run_next, recur_run_next(bad, 0, 0, &d));
    STALE(recur_run_marshal, recur_run_marshal(bad, &buf, &n));
    STALE(recur_run_resume, recur_run_resume(bad, state, sizeof state, &h, NULL));
    STALE(recur_guard_tx, recur_guard_tx(bad, &h));
    STALE(recur_guard_state, recur_guard_state(bad, &i));
    STALE(recur_guard_stats, recur_guard_stats(bad, &s));
    STALE(recur_guard_allow, recur_guard_allow(bad, 0, &h));
    STALE(recur_call_record, recur_call_record(bad, RECUR_SUCCESS, &d, &i));
    STALE(recur_call_allow, recur_call_allow(bad));
    CHECK(s == NULL && buf == NULL && h == 0);
}

static void test_stale(void) {
    recur_handle p = parse_ok("times(3)");
    recur_handle r = 0, g = 0, c = 0;
    EQ(recur_run_start(p, 1, &r), RECUR_OK);
    g = guard_ok("{}");
    EQ(recur_guard_allow(g, 0, &c), RECUR_OK);

    /* 0, a number never issued, and handles closed: each kind. */
    recur_handle closed[4];
    recur_handle cp = parse_ok("times(2)"), cr = 0, cg = guard_ok("{}"), cc = 0;
    EQ(recur_run_start(cp, 1, &cr), RECUR_OK);
    EQ(recur_guard_allow(cg, 0, &cc), RECUR_OK);
    closed[0] = cp, closed[1] = cr, closed[2] = cg, closed[3] = cc;
    for (int i = 0; i < 4; i++) {
        EQ(recur_close(closed[i]), RECUR_OK);
    }
    stale_all(0);
    stale_all(0xdeadbeefcafef00dULL);
    stale_all((recur_handle)1 << 62);
    for (int i = 0; i < 4; i++) {
        stale_all(closed[i]);
    }
    /* A slot reused after a close: the old handle does not reach the
     * new object. */
    recur_handle reused = parse_ok("times(4)");
    stale_all(closed[3]);
    CHECK(reused != closed[3]);
    EQ(recur_close(reused), RECUR_OK);

    /* A handle of another kind is refused too (recur_close takes all). */
    char *s = NULL;
    recur_bounds b;
    int64_t d = 0;
    int i = 0;
    recur_handle h = 0;
    uint8_t *buf = NULL;
    size_t n = 0;
    uint8_t state[4] = {0};
    STALE(recur_policy_print, recur_policy_print(g, RECUR_CANONICAL, &s));
    STALE(recur_policy_explain, recur_policy_explain(r, &s));
    STALE(recur_policy_bounds, recur_policy_bounds(c, &b));
    STALE(recur_policy_delay, recur_policy_delay(r, 1, 1, &d));
    STALE(recur_run_start, recur_run_start(g, 1, &h));
    STALE(recur_run_next, recur_run_next(p, 0, 0, &d));
    STALE(recur_run_marshal, recur_run_marshal(c, &buf, &n));
    STALE(recur_run_resume, recur_run_resume(r, state, sizeof state, &h, NULL));
    STALE(recur_guard_tx, recur_guard_tx(c, &h));
    STALE(recur_guard_state, recur_guard_state(p, &i));
    STALE(recur_guard_stats, recur_guard_stats(r, &s));
    STALE(recur_guard_allow, recur_guard_allow(c, 0, &h));
    STALE(recur_call_record, recur_call_record(g, RECUR_SUCCESS, &d, &i));
    STALE(recur_call_allow, recur_call_allow(p));

    /* Closing twice. */
    EQ(recur_close(c), RECUR_OK);
    EQ(recur_close(c), RECUR_E_HANDLE);
    EQ(recur_close(g), RECUR_OK);
    EQ(recur_close(r), RECUR_OK);
    EQ(recur_close(p), RECUR_OK);
    EQ(recur_close(p), RECUR_E_HANDLE);
}

/* Threads: one policy and one guard shared by four threads, each making
 * its own runs and calls, while a fifth parses and closes policies. */
enum { THREADS = 4, ROUNDS = 2000 };
static recur_handle shared_policy, shared_guard;

static void *worker(void *arg) {
    long errors = 0;
    uint64_t seed = (uint64_t)(uintptr_t)arg;
    for (int i = 0; i < ROUNDS; i++) {
        int64_t d = 0;
        errors += recur_policy_delay(shared_policy, 1 + i % 3, seed + (uint64_t)i, &d) != RECUR_OK;
        recur_handle c = 0;
        int rc = recur_guard_allow(shared_guard, RECUR_F_RETRY, &c);
        if (rc == RECUR_OK) {
            errors += recur_call_record(c, i % 10 == 0 ? RECUR_RETRYABLE : RECUR_SUCCESS, &d, NULL) != RECUR_OK;
            errors += recur_close(c) != RECUR_OK;
        } else {
            errors++;
        }
        recur_handle r = 0;
        errors += recur_run_start(shared_policy, seed, &r) != RECUR_OK;
        errors += recur_run_next(r, 0, 0, &d) != RECUR_OK;
        errors += recur_close(r) != RECUR_OK;
    }
    return (void *)errors;
}

static void *churn(void *arg) {
    long errors = 0;
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        recur_handle p = 0;
        errors += recur_policy_parse("backoff(1ms, 1s) & times(4)", &p, NULL) != RECUR_OK;
        char *s = NULL;
        errors += recur_policy_print(p, RECUR_INFIX, &s) != RECUR_OK;
        recur_free(s);
        errors += recur_close(p) != RECUR_OK;
        errors += recur_close(p) != RECUR_E_HANDLE;
    }
    return (void *)errors;
}

static void test_threads(void) {
    shared_policy = parse_ok(POLICY);
    shared_guard = guard_ok("{\"retry\": \"times(2)\", \"breaker\": {}, \"budget\": {\"kind\": \"token_bucket\"}}");
    pthread_t t[THREADS + 1];
    for (long i = 0; i < THREADS; i++) {
        EQ(pthread_create(&t[i], NULL, worker, (void *)(i + 1)), 0);
    }
    EQ(pthread_create(&t[THREADS], NULL, churn, NULL), 0);
    for (int i = 0; i <= THREADS; i++) {
        void *errors = NULL;
        EQ(pthread_join(t[i], &errors), 0);
        EQ((long)errors, 0);
    }
    char *js = NULL;
    EQ(recur_guard_stats(shared_guard, &js), RECUR_OK);
    char want[64];
    snprintf(want, sizeof want, "\"successes\":%d", THREADS * ROUNDS * 9 / 10);
    CONTAINS(js, want);
    recur_free(js);
    EQ(recur_close(shared_guard), RECUR_OK);
    EQ(recur_close(shared_policy), RECUR_OK);
}

int main(void) {
    test_library();
    test_policy();
    test_parse_errors();
    test_run();
    test_config();
    test_guard();
    test_breaker_opens();
    test_budget();
    test_tx();
    test_stale();
    test_threads();
    printf("stale-handle calls: %d\n", stale_calls);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}

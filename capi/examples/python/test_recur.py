"""Tests of the ctypes binding against librecur.so (RECUR_LIB)."""

import unittest

import recur


class PolicyTest(unittest.TestCase):
    def test_print_explain_bounds(self):
        with recur.Policy("fulljitter(100ms, 2s) & times(3)") as p:
            self.assertEqual(str(p), "Intersect(Jittered(Exponential(100ms, 200%, 2s), 0%, 100%), Times(3))")
            self.assertEqual(p.infix(), "fulljitter(100ms, 2s) & times(3)")
            self.assertIn("up to 3 attempts", p.explain())
            self.assertEqual(
                p.bounds(),
                {"max_attempts": 3, "min_total_ns": 0, "max_total_ns": 300_000_000, "max_delay_ns": 200_000_000, "stops": True},
            )
        with recur.Policy("spaced(1s)") as p:
            self.assertEqual(p.bounds()["max_attempts"], None)

    def test_delay_is_pinned(self):
        # The same values as the C test and Go's TestDelayPinned.
        with recur.Policy("fulljitter(100ms, 2s) & times(3)") as p:
            self.assertEqual([p.delay(a, 42) for a in (1, 2, 3)], [39175395, 16518473, None])
            with self.assertRaises(recur.RecurError) as cm:
                p.delay(0, 42)
            self.assertEqual(cm.exception.code, recur.E_RANGE)

    def test_parse_error_has_caret(self):
        with self.assertRaises(recur.RecurError) as cm:
            recur.Policy("times(3) & fulljiter(1s, 2s)")
        self.assertEqual(cm.exception.code, recur.E_PARSE)
        self.assertEqual(
            cm.exception.message,
            '1:12: unknown name "fulljiter"; did you mean "fulljitter"?\ntimes(3) & fulljiter(1s, 2s)\n           ^',
        )

    def test_bad_text(self):
        with self.assertRaises(recur.RecurError) as cm:
            recur.Policy("times(3) & " * 100_000)
        self.assertEqual(cm.exception.code, recur.E_TOO_LONG)
        h, err = recur._handle(), recur.ctypes.c_void_p()
        code = recur.lib().recur_policy_parse(b"times(\xff)", recur.ctypes.byref(h), recur.ctypes.byref(err))
        self.assertEqual(code, recur.E_UTF8)
        self.assertIn("not valid UTF-8", recur._take(err))

    def test_stale_handle(self):
        p = recur.Policy("times(2)")
        h = p.handle
        p.close()
        self.assertEqual(recur.lib().recur_close(h), recur.E_HANDLE)
        d = recur._i64()
        self.assertEqual(recur.lib().recur_policy_delay(h, 1, 1, recur.ctypes.byref(d)), recur.E_HANDLE)
        self.assertEqual(recur.lib().recur_policy_delay(0, 1, 1, recur.ctypes.byref(d)), recur.E_HANDLE)
        self.assertEqual(recur.lib().recur_policy_delay(h, 1, 1, None), recur.E_NULL)


class RunTest(unittest.TestCase):
    def test_marshal_resume(self):
        with recur.Policy("backoff(100ms, 1s) & times(6)") as p:
            with recur.Run(p, seed=7) as r:
                first = [r.next(0, 0) for _ in range(5)]
            self.assertIsNotNone(first[-1])
            with recur.Run(p, seed=7) as r:
                self.assertEqual(r.next(0, 0), first[0])
                state = r.marshal()
            with recur.Run(p, state=state) as r:
                self.assertEqual([r.next(0, 0) for _ in range(4)], first[1:])
                self.assertIsNone(r.next(0, 0))
            with recur.Policy("spaced(1s)") as other:
                with self.assertRaises(recur.RecurError) as cm:
                    recur.Run(other, state=state)
                self.assertEqual(cm.exception.code, recur.E_STATE)


class GuardTest(unittest.TestCase):
    def test_retries_marked_calls(self):
        with recur.Guard({"retry": "spaced(1ms) & times(3)", "budget": None}) as g:
            answers = iter([OSError("reset"), OSError("reset"), "ok"])

            def fn():
                a = next(answers)
                if isinstance(a, Exception):
                    raise a
                return a

            judge = lambda r, e: recur.SUCCESS if e is None else recur.TRANSIENT  # noqa: E731
            self.assertEqual(g.call(fn, judge, retry=True, sleep=lambda s: None), "ok")
            # Unmarked, a transient failure is not retried.
            with g.allow() as c:
                self.assertEqual(c.record(recur.TRANSIENT), (None, "not-marked"))

    def test_config_errors_name_the_key(self):
        for config, want in [
            ({"breaker": {"windw": "10s"}}, 'unknown key "breaker.windw"; did you mean "window"?'),
            ({"retry": 3}, "retry is a number, not a string"),
            ('{"retry": "times(1)", "retry": "times(2)"}', 'key "retry" is repeated'),
        ]:
            with self.assertRaises(recur.RecurError) as cm:
                recur.Guard(config)
            self.assertEqual(cm.exception.code, recur.E_CONFIG)
            self.assertIn(want, cm.exception.message)

    def test_breaker_and_tx(self):
        with recur.Guard({"breaker": {"consecutive_failures": 1, "open_for": "spaced(1h)"}}) as g:
            self.assertEqual(g.state(), "closed")
            with g.tx() as tx:
                with self.assertRaises(recur.RecurError) as cm:
                    tx.allow(retry=True)
                self.assertEqual(cm.exception.code, recur.E_IN_TX)
                with tx.allow() as c:
                    self.assertEqual(c.record(recur.FAILURE), (None, "done"))
            self.assertEqual(g.state(), "open")
            with self.assertRaises(recur.RecurError) as cm:
                g.allow()
            self.assertEqual(cm.exception.code, recur.E_OPEN)
            stats = g.stats()
            self.assertEqual(stats["breaker"]["rejected"], 1)
            self.assertEqual(stats["budget"]["kind"], "token_bucket")
        self.assertIsNone(recur.Guard({}).state())

    def test_version(self):
        self.assertEqual(recur.abi_version(), 1)


if __name__ == "__main__":
    unittest.main()

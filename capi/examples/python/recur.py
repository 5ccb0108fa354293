"""recur from Python, through librecur.so and ctypes.

A thin binding of recur.h (see docs/c.md): each class owns one handle and
closes it in close(), on leaving a with block, or when it is collected.
Every error code of the library is raised as RecurError, with the
library's message where it gives one.

The library is found at $RECUR_LIB, else by ctypes.util.find_library:

    RECUR_LIB=/path/to/librecur.so python3 example.py
"""

import ctypes
import ctypes.util
import json
import os

# Error codes (recur.h).
OK = 0
E_NULL = 1
E_HANDLE = 2
E_UTF8 = 3
E_TOO_LONG = 4
E_PARSE = 5
E_CONFIG = 6
E_STATE = 7
E_RANGE = 8
E_OPEN = 9
E_THROTTLED = 10
E_IN_TX = 11
E_ORDER = 12
E_LIMIT = 13
E_NOMEM = 14
E_INTERNAL = 15

# Verdicts: what one attempt's outcome means.
SUCCESS, TRANSIENT, RETRYABLE, FAILURE, NEUTRAL = range(5)

# Breaker states; STATE_NONE for a guard without a breaker.
STATE_NONE = -1
STATES = ["closed", "half-open", "open", "forced-open", "disabled", "metrics-only"]

F_RETRY = 1
STOP = -1
CANONICAL, INFIX = 0, 1
WHY = ["retry", "done", "not-marked", "exhausted", "budget", "in-tx"]

_handle = ctypes.c_uint64
_int = ctypes.c_int
_i64 = ctypes.c_int64
_u64 = ctypes.c_uint64
_u32 = ctypes.c_uint32
_str_out = ctypes.POINTER(ctypes.c_void_p)  # char **: freed with recur_free


class Bounds(ctypes.Structure):
    """recur_bounds: -1 for no bound."""

    _fields_ = [
        ("max_attempts", _i64),
        ("min_total_ns", _i64),
        ("max_total_ns", _i64),
        ("max_delay_ns", _i64),
        ("stops", ctypes.c_int32),
        ("reserved", ctypes.c_int32),
    ]


def _load(path=None):
    path = path or os.environ.get("RECUR_LIB") or ctypes.util.find_library("recur")
    if not path:
        raise OSError("librecur not found: set RECUR_LIB to the path of librecur.so")
    lib = ctypes.CDLL(path)
    sigs = {
        "recur_abi_version": [ctypes.POINTER(ctypes.c_int32)],
        "recur_allocs": [ctypes.POINTER(_u64), ctypes.POINTER(_u64)],
        "recur_close": [_handle],
        "recur_policy_parse": [ctypes.c_char_p, ctypes.POINTER(_handle), _str_out],
        "recur_policy_print": [_handle, _int, _str_out],
        "recur_policy_explain": [_handle, _str_out],
        "recur_policy_bounds": [_handle, ctypes.POINTER(Bounds)],
        "recur_policy_delay": [_handle, _i64, _u64, ctypes.POINTER(_i64)],
        "recur_run_start": [_handle, _u64, ctypes.POINTER(_handle)],
        "recur_run_next": [_handle, _i64, _i64, ctypes.POINTER(_i64)],
        "recur_run_marshal": [_handle, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t)],
        "recur_run_resume": [_handle, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(_handle), _str_out],
        "recur_guard_new": [ctypes.c_char_p, ctypes.POINTER(_handle), _str_out],
        "recur_guard_tx": [_handle, ctypes.POINTER(_handle)],
        "recur_guard_state": [_handle, ctypes.POINTER(_int)],
        "recur_guard_stats": [_handle, _str_out],
        "recur_guard_allow": [_handle, _u32, ctypes.POINTER(_handle)],
        "recur_call_record": [_handle, _int, ctypes.POINTER(_i64), ctypes.POINTER(_int)],
        "recur_call_allow": [_handle],
    }
    for name, args in sigs.items():
        fn = getattr(lib, name)
        fn.argtypes = args
        fn.restype = _int
    lib.recur_strerror.argtypes = [_int]
    lib.recur_strerror.restype = ctypes.c_char_p
    lib.recur_free.argtypes = [ctypes.c_void_p]
    lib.recur_free.restype = None
    return lib


_lib = None


def lib():
    """The loaded library, loaded on first use."""
    global _lib
    if _lib is None:
        _lib = _load()
    return _lib


def abi_version():
    v = ctypes.c_int32()
    _check(lib().recur_abi_version(ctypes.byref(v)))
    return v.value


class RecurError(Exception):
    """An error code of the library, with its message."""

    def __init__(self, code, message=None):
        self.code = code
        self.message = message or lib().recur_strerror(code).decode()
        super().__init__(self.message)


def _take(p):
    """The string at a char * the library returned, freed."""
    if not p.value:
        return None
    try:
        return ctypes.string_at(p.value).decode()
    finally:
        lib().recur_free(p.value)


def _check(code, err=None):
    if code != OK:
        raise RecurError(code, _take(err) if err is not None else None)
    if err is not None:
        _take(err)  # NULL on success; nothing to free


class _Handle:
    """One handle, closed once."""

    def __init__(self, h):
        self.handle = h

    def close(self):
        if self.handle:
            h, self.handle = self.handle, 0
            _check(lib().recur_close(h))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


class Policy(_Handle):
    """A parsed policy: Policy("fulljitter(100ms, 2s) & times(3)")."""

    def __init__(self, src):
        h, err = _handle(), ctypes.c_void_p()
        _check(lib().recur_policy_parse(src.encode(), ctypes.byref(h), ctypes.byref(err)), err)
        super().__init__(h.value)

    def _text(self, fn, *args):
        out = ctypes.c_void_p()
        _check(fn(self.handle, *args, ctypes.byref(out)))
        return _take(out)

    def __str__(self):
        return self._text(lib().recur_policy_print, CANONICAL)

    def infix(self):
        return self._text(lib().recur_policy_print, INFIX)

    def explain(self):
        return self._text(lib().recur_policy_explain)

    def bounds(self):
        """A dict of the bounds, None where there is none."""
        b = Bounds()
        _check(lib().recur_policy_bounds(self.handle, ctypes.byref(b)))

        def opt(v):
            return None if v < 0 else v

        return {
            "max_attempts": opt(b.max_attempts),
            "min_total_ns": opt(b.min_total_ns),
            "max_total_ns": opt(b.max_total_ns),
            "max_delay_ns": opt(b.max_delay_ns),
            "stops": bool(b.stops),
        }

    def delay(self, attempt, seed):
        """The wait in ns after attempt (from 1) of the run from seed, or None to stop."""
        d = _i64()
        _check(lib().recur_policy_delay(self.handle, attempt, seed, ctypes.byref(d)))
        return None if d.value == STOP else d.value


class Run(_Handle):
    """A run of a policy, stepped by the caller's times."""

    def __init__(self, policy, seed=0, state=None):
        h = _handle()
        if state is None:
            _check(lib().recur_run_start(policy.handle, seed, ctypes.byref(h)))
        else:
            err = ctypes.c_void_p()
            _check(lib().recur_run_resume(policy.handle, state, len(state), ctypes.byref(h), ctypes.byref(err)), err)
        super().__init__(h.value)

    def next(self, start_ns, end_ns):
        """The wait in ns before the next attempt, or None to stop."""
        d = _i64()
        _check(lib().recur_run_next(self.handle, start_ns, end_ns, ctypes.byref(d)))
        return None if d.value == STOP else d.value

    def marshal(self):
        buf, n = ctypes.c_void_p(), ctypes.c_size_t()
        _check(lib().recur_run_marshal(self.handle, ctypes.byref(buf), ctypes.byref(n)))
        try:
            return ctypes.string_at(buf.value, n.value)
        finally:
            lib().recur_free(buf.value)


class Guard(_Handle):
    """A breaker, a budget and a retry policy for one target, from a JSON
    config (a dict or a string)."""

    def __init__(self, config=None, _tx=None):
        if _tx is not None:
            super().__init__(_tx)
            return
        if not isinstance(config, str):
            config = json.dumps(config or {})
        h, err = _handle(), ctypes.c_void_p()
        _check(lib().recur_guard_new(config.encode(), ctypes.byref(h), ctypes.byref(err)), err)
        super().__init__(h.value)

    def tx(self):
        """A guard for the statements of one transaction."""
        h = _handle()
        _check(lib().recur_guard_tx(self.handle, ctypes.byref(h)))
        return Guard(_tx=h.value)

    def state(self):
        s = _int()
        _check(lib().recur_guard_state(self.handle, ctypes.byref(s)))
        return None if s.value == STATE_NONE else STATES[s.value]

    def stats(self):
        out = ctypes.c_void_p()
        _check(lib().recur_guard_stats(self.handle, ctypes.byref(out)))
        return json.loads(_take(out))

    def allow(self, retry=False):
        """The call's first attempt: a Call, or RecurError E_OPEN or E_THROTTLED."""
        h = _handle()
        _check(lib().recur_guard_allow(self.handle, F_RETRY if retry else 0, ctypes.byref(h)))
        return Call(h.value)

    def call(self, fn, judge, retry=False, sleep=None):
        """Calls fn() through the guard until it succeeds or the guard says
        stop; judge(result, exc) gives each attempt's verdict. Returns fn's
        result or raises its last exception, or RecurError when the breaker
        or the budget refuses."""
        import time

        sleep = sleep or time.sleep
        with self.allow(retry) as c:
            while True:
                try:
                    result, exc = fn(), None
                except Exception as e:  # noqa: BLE001: judged, then raised
                    result, exc = None, e
                delay, _ = c.record(judge(result, exc))
                if delay is None:
                    if exc is not None:
                        raise exc
                    return result
                sleep(delay / 1e9)
                c.allow()


class Call(_Handle):
    """One call and its attempts through a guard."""

    def record(self, verdict):
        """Records the attempt's verdict: (delay in ns, why), delay None to stop."""
        d, why = _i64(), _int()
        _check(lib().recur_call_record(self.handle, verdict, ctypes.byref(d), ctypes.byref(why)))
        return (None if d.value == STOP else d.value), WHY[why.value]

    def allow(self):
        """The next attempt, after the wait: RecurError E_OPEN if the breaker refuses."""
        _check(lib().recur_call_allow(self.handle))

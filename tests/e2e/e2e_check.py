"""Shared by the end-to-end programs of tests/e2e/: one PASS/FAIL line per
check on stdout (read by run.py), and float comparisons in units in the
last place. Uses only NumPy."""
import sys
import traceback

import numpy as np

_failed = []


def check(name, fn):
    """Runs fn(), which returns a one-line detail or raises; prints PASS or FAIL."""
    try:
        detail = fn()
    except Exception as e:  # report the check and go on with the next one
        _failed.append(name)
        lines = str(e).strip().splitlines()
        print(f"FAIL {name}: {type(e).__name__}: {lines[0] if lines else ''}"[:400], flush=True)
        traceback.print_exc(file=sys.stderr)
        return
    print(f"PASS {name}: {detail}", flush=True)


def finish():
    sys.exit(1 if _failed else 0)


def ulp_distance(a, b):
    """How many representable values lie between a and b (float32 or float64
    arrays of the same dtype), counting across zero; NaN never matches."""
    a = np.asarray(a)
    b = np.asarray(b)
    assert a.dtype == b.dtype and a.dtype in (np.float32, np.float64), (a.dtype, b.dtype)
    itype = np.int32 if a.dtype == np.float32 else np.int64
    ia = a.view(itype).astype(np.int64)
    ib = b.view(itype).astype(np.int64)
    # Map the sign-magnitude bit patterns onto a line of integers.
    top = np.int64(np.iinfo(itype).min)
    ia = np.where(ia < 0, top - ia, ia)
    ib = np.where(ib < 0, top - ib, ib)
    d = np.abs(ia - ib)
    return np.where(np.isnan(a) | np.isnan(b), np.iinfo(np.int64).max, d)


def assert_equal(got, want, what):
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape:
        raise AssertionError(f"{what}: shape {got.shape} != {want.shape}")
    bad = np.flatnonzero(got.ravel() != want.ravel())
    if bad.size:
        i = bad[0]
        raise AssertionError(f"{what}: {bad.size} of {got.size} elements differ; first at {i}: {got.ravel()[i]} != {want.ravel()[i]}")


def assert_close(got, want, atol, rtol, what):
    """|got - want| <= atol + rtol * |want| everywhere; returns the largest |got - want|."""
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        raise AssertionError(f"{what}: shape {got.shape} != {want.shape}")
    err = np.abs(got - want)
    bad = np.flatnonzero(~(err <= atol + rtol * np.abs(want)))
    if bad.size:
        i = bad[0]
        raise AssertionError(f"{what}: {bad.size} of {got.size} elements out of tolerance (atol {atol}, rtol {rtol}); "
                             f"first at {i}: {got.ravel()[i]} vs {want.ravel()[i]}")
    return float(err.max()) if err.size else 0.0

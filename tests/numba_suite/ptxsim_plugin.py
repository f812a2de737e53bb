"""pytest plugin for running numba-cuda's test suite (numba.cuda.tests)
against ptxsim's driver library (scripts/numba_suite.sh loads it with
`-p ptxsim_plugin`).

- Defines the `initialize_from_pytest_config` fixture that the suite's
  tests request (numba-cuda's own conftest.py, which defines it, is not in
  the wheel).
- Records, for every test case, its outcome and whether it launched a
  kernel: the library's `ptxsim_launch_count()` (launches that reached the
  engine) is read through ctypes before and after the case. One JSON object
  per line goes to $PTXSIM_SUITE_OUT as each case ends, so a run that dies
  midway still leaves the cases before it.
"""

import ctypes
import json
import os

import pytest

_OUT = os.environ.get("PTXSIM_SUITE_OUT")
_count = None


def _launch_count():
    """The library's launch counter, or None when libcuda.so.1 is not
    ptxsim's (then "launched" is unknown)."""
    global _count
    if _count is None:
        try:
            lib = ctypes.CDLL("libcuda.so.1")
            f = lib.ptxsim_launch_count
            f.restype = ctypes.c_uint64
            f.argtypes = []
            _count = f
        except (OSError, AttributeError):
            _count = False
    return _count() if _count else None


@pytest.fixture
def initialize_from_pytest_config():
    yield


def _short(report):
    """The last line of a failure's text that names an exception, bounded."""
    text = str(report.longrepr) if report.longrepr is not None else ""
    if report.skipped and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])[:300]
    lines = [l for l in text.splitlines() if l.startswith("E ")]
    pick = lines[0] if lines else (text.strip().splitlines() or [""])[-1]
    return pick[:400]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    before = _launch_count()
    item._ptxsim_phases = []
    yield
    after = _launch_count()
    outcome = "passed"
    detail = ""
    for when, rep in item._ptxsim_phases:
        if hasattr(rep, "wasxfail"):
            outcome = "xfailed" if rep.skipped else "xpassed"
            detail = str(rep.wasxfail)[:300]
            continue
        if rep.failed:
            outcome = "failed" if when == "call" else "error"
            detail = f"{when}: {_short(rep)}"
            break
        if rep.skipped:
            outcome = "skipped"
            detail = _short(rep)
            break
    launched = None if before is None or after is None else after - before
    if _OUT:
        rec = {"nodeid": item.nodeid, "outcome": outcome, "launches": launched, "detail": detail}
        with open(_OUT, "a") as f:
            f.write(json.dumps(rec) + "\n")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    out = yield
    rep = out.get_result()
    phases = getattr(item, "_ptxsim_phases", None)
    if phases is not None:
        phases.append((call.when, rep))

"""Streams and events: a kernel on stream 1, an event recorded after it,
stream 2 made to wait on that event before a kernel that reads the first
one's output, then timing events. The result must be (2a) + 1 exactly."""
import numpy as np
from numba import cuda

from e2e_check import assert_equal, check, finish


@cuda.jit
def scale(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] * 2.0


@cuda.jit
def inc(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] + 1.0


def run():
    n = 100000
    a = np.random.default_rng(4).standard_normal(n).astype(np.float32)
    s1 = cuda.stream()
    s2 = cuda.stream()
    start, done1, end = cuda.event(timing=True), cuda.event(), cuda.event(timing=True)
    start.record(stream=s1)
    da = cuda.to_device(a, stream=s1)
    mid = cuda.device_array_like(a, stream=s1)
    scale[(n + 255) // 256, 256, s1](da, mid)
    done1.record(stream=s1)
    done1.wait(stream=s2)
    out = cuda.device_array_like(a, stream=s2)
    inc[(n + 255) // 256, 256, s2](mid, out)
    end.record(stream=s2)
    host = out.copy_to_host(stream=s2)
    s2.synchronize()
    end.synchronize()
    assert done1.query() and end.query(), "recorded events not complete after synchronize"
    ms = cuda.event_elapsed_time(start, end)
    assert ms >= 0.0, f"elapsed time {ms} ms"
    assert_equal(host, (a * np.float32(2)) + np.float32(1), "2a + 1")
    return f"{n} float32 through two streams ordered by an event equal NumPy's 2a + 1; elapsed {ms:.3f} ms"


check("streams and events", run)
finish()

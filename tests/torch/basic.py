"""A small PyTorch CUDA program for `ptxsim exec` (manual; see README.md
beside this file): device query, tensor creation on the device, an
elementwise op, a reduction, a copy back, each checked against NumPy in
float64. Prints one line per step (PASS/FAIL and what happened) so that a
run shows how far it got; exits 1 at the first failing step.

    ptxsim exec -- $(scripts/e2e-venv torch)/bin/python tests/torch/basic.py
"""
import sys
import traceback

import numpy as np


def step(name, fn):
    try:
        what = fn()
    except Exception as e:  # report how far it got, with the cause
        last = traceback.format_exception_only(type(e), e)[-1].strip()
        print(f"FAIL {name}: {last}", flush=True)
        sys.exit(1)
    print(f"PASS {name}: {what}", flush=True)


import torch  # noqa: E402

state = {}


def device():
    assert torch.cuda.is_available(), "torch.cuda.is_available() is False"
    p = torch.cuda.get_device_properties(0)
    return f"torch {torch.__version__} (CUDA {torch.version.cuda}), {p.name}, cc {p.major}.{p.minor}"


def create():
    x = np.arange(1000, dtype=np.float32) / 7.0
    state["x"] = x
    state["dx"] = torch.from_numpy(x).to("cuda")
    state["dones"] = torch.ones(1000, device="cuda")
    return f"from_numpy().to('cuda') of {x.size} float32, torch.ones on the device"


def copy_back():
    got = state["dx"].cpu().numpy()
    assert np.array_equal(got, state["x"]), "round trip changed the values"
    return "host -> device -> host unchanged"


def elementwise():
    d = state["dx"] * 2.0 + state["dones"]
    got = d.cpu().numpy()
    want = state["x"].astype(np.float64) * 2.0 + 1.0
    err = float(np.max(np.abs(got - want)))
    assert err <= 1e-4, f"max error {err}"
    return f"x * 2 + 1 (max error {err:.2e})"


def reduction():
    got = float(state["dx"].sum())
    want = float(state["x"].astype(np.float64).sum())
    assert abs(got - want) <= 1e-5 * abs(want), (got, want)
    return f"sum = {got} (NumPy float64 {want})"


for name, fn in [("device", device), ("create", create), ("copy back", copy_back),
                 ("elementwise", elementwise), ("reduction", reduction)]:
    step(name, fn)

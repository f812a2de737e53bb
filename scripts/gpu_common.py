"""Helpers shared by the scripts that run PTX on a real GPU (CuPy and the
CUDA driver's PTX JIT): loading a kernel, lowering a `.version` the
driver does not take, recording the device, and running one of the
single-instruction probes of tests/isa.
"""
import os, re, tempfile
import numpy as np
import cupy as cp

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

# The newest PTX ISA the driver of the recording machine (CUDA 13.0) JITs.
LOWERED = "9.0"


def load_function(path, kernel):
    """The kernel from the module at `path`, JIT-compiled by the driver, and
    a note: "" or how its `.version` was lowered (CuPy loads a module
    lazily, at the first `get_function`)."""
    try:
        return cp.RawModule(path=path).get_function(kernel), ""
    except cp.cuda.driver.CUDADriverError as e:
        if "UNSUPPORTED_PTX_VERSION" not in str(e):
            raise
        low = re.sub(r"^\.version .*$", f".version {LOWERED}", open(path).read(), flags=re.M)
        # One file per module: CuPy caches loaded modules by path.
        tmp = os.path.join(tempfile.gettempdir(), "lowered_" + path.replace("/", "_"))
        open(tmp, "w").write(low)
        return cp.RawModule(path=tmp).get_function(kernel), f" lowered to .version {LOWERED}"


def write_device(out_dir):
    """OUT_DIR/device.txt: the GPU, its driver and the CuPy version."""
    props = cp.cuda.runtime.getDeviceProperties(0)
    with open(os.path.join(out_dir, "device.txt"), "w") as d:
        d.write(f"gpu {props['name'].decode()} sm_{props['major']}{props['minor']} driver {cp.cuda.runtime.driverGetVersion()}\n")


def run_probe(probe, kernel, threads, inputs, out_dtype, per_thread, out_dir):
    """Runs `kernel` of tests/isa/<probe>.ptx on one CTA of `threads`
    threads: each input array (name -> array, in parameter order) becomes a
    buffer argument, then an output buffer of `per_thread` out_dtype
    elements per thread. Writes <name>.bin per input, out.bin and
    device.txt to out_dir."""
    path = os.path.join(ROOT, "tests", "isa", f"{probe}.ptx")
    names = list(inputs)
    os.makedirs(out_dir, exist_ok=True)
    dev = [cp.asarray(inputs[k]) for k in names]
    out = cp.zeros(threads * per_thread, out_dtype)
    fn, _ = load_function(path, kernel)
    fn((1,), (threads,), (*dev, out))
    cp.cuda.runtime.deviceSynchronize()
    for k in names:
        np.ascontiguousarray(inputs[k]).tofile(os.path.join(out_dir, f"{k}.bin"))
    cp.asnumpy(out).tofile(os.path.join(out_dir, "out.bin"))
    write_device(out_dir)
    print(probe, "ok", threads, "threads x", per_thread)

"""Replays the corpus launches written by the `export_corpus_launches`
example on a real GPU, through CuPy and the CUDA driver's PTX JIT, and
writes what each launch left in its buffers (and what it printed):

    python scripts/gpu_record.py LAUNCH_DIR OUT_DIR

`OUT_DIR/<id>.out<K>.bin` is buffer argument K after the launch,
`OUT_DIR/<id>.stdout` what the kernel printed (when it printed),
`OUT_DIR/record.txt` one line per launch: `ID ok|error MESSAGE`, and
`OUT_DIR/device.txt` the GPU, driver and CuPy versions. A module whose
`.version` is newer than the driver accepts is retried with `.version`
lowered to the driver's newest (recorded in record.txt).
"""
import os, sys
import numpy as np
import cupy as cp
from gpu_common import load_function, write_device


def run(corpus, ldir, out, line):
    f = line.split()
    lid, ptx, kernel = f[0], f[1], f[2]
    grid = tuple(int(v) for v in f[3].split(","))
    block = tuple(int(v) for v in f[4].split(","))
    shared = int(f[5])
    args, bufs = [], []
    for i, a in enumerate(f[6:]):
        if a.startswith("buf:"):
            host = np.fromfile(os.path.join(ldir, a[4:].split("#")[0]), np.uint8)
            dev = cp.asarray(host) if host.size else cp.zeros(1, np.uint8)
            bufs.append((i, dev, host.size))
            args.append(dev)
        else:
            n, hexv = a[1:].split(":")
            b = bytes.fromhex(hexv)
            ty = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[int(n)]
            args.append(np.frombuffer(b, ty)[0])
    fn, note = load_function(os.path.join(corpus, ptx), kernel)
    # Capture what the kernel prints (device printf goes to fd 1 at sync).
    sys.stdout.flush()
    saved = os.dup(1)
    cap = os.path.join(out, f"{lid}.stdout")
    fd = os.open(cap, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(fd, 1)
    try:
        fn(grid, block, tuple(args), shared_mem=shared)
        cp.cuda.runtime.deviceSynchronize()
    finally:
        os.dup2(saved, 1)
        os.close(fd)
        os.close(saved)
    if os.path.getsize(cap) == 0:
        os.remove(cap)
    for i, dev, n in bufs:
        cp.asnumpy(dev)[:n].tofile(os.path.join(out, f"{lid}.out{i}.bin"))
    return note


def worker(ldir, out, start):
    """Runs launches from index `start`; returns at the first launch that
    leaves the CUDA context unusable (exit status 3, the next index in
    OUT/next.txt), so that a fresh process goes on after it."""
    corpus = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "corpus")
    lines = [l for l in open(os.path.join(ldir, "launches.txt")) if l.strip()]
    with open(os.path.join(out, "record.txt"), "a") as rec:
        for n in range(start, len(lines)):
            lid = lines[n].split()[0]
            open(os.path.join(out, "running.txt"), "w").write(str(n))
            try:
                note = run(corpus, ldir, out, lines[n])
                rec.write(f"{lid} ok{note}\n")
            except Exception as e:
                msg = " ".join(str(e).split())[:300]
                rec.write(f"{lid} error {type(e).__name__}: {msg}\n")
                rec.flush()
                if "CUDA_ERROR" in msg or "cudaError" in msg:
                    open(os.path.join(out, "next.txt"), "w").write(str(n + 1))
                    sys.exit(3)
    open(os.path.join(out, "next.txt"), "w").write(str(len(lines)))


def main():
    import subprocess
    ldir, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    write_device(out)
    open(os.path.join(out, "record.txt"), "w").close()
    total = sum(1 for l in open(os.path.join(ldir, "launches.txt")) if l.strip())
    start = 0
    while start < total:
        for f in ("next.txt", "running.txt"):
            if os.path.exists(os.path.join(out, f)):
                os.remove(os.path.join(out, f))
        try:
            subprocess.run([sys.executable, __file__, "--worker", ldir, out, str(start)], timeout=120)
        except subprocess.TimeoutExpired:
            pass
        if os.path.exists(os.path.join(out, "next.txt")):
            start = int(open(os.path.join(out, "next.txt")).read())
        else:  # the worker hung or died in a launch: record it, go on after it
            hung = int(open(os.path.join(out, "running.txt")).read()) if os.path.exists(os.path.join(out, "running.txt")) else start
            lines = [l for l in open(os.path.join(ldir, "launches.txt")) if l.strip()]
            with open(os.path.join(out, "record.txt"), "a") as rec:
                rec.write(f"{lines[hung].split()[0]} error the launch did not finish within 120 s\n")
            start = hung + 1
    for f in ("next.txt", "running.txt"):
        if os.path.exists(os.path.join(out, f)):
            os.remove(os.path.join(out, f))
    rec = open(os.path.join(out, "record.txt")).read().splitlines()
    print(f"{len(rec)} launches, {sum(r.split()[1] == 'ok' for r in rec)} ok")


if __name__ == "__main__":
    if sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        main()

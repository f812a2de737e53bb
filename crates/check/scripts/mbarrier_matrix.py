#!/usr/bin/env python3
"""Compares `ptxsim check` with ptxas 12.9 on every mbarrier operation
(init, inval, arrive, arrive_drop, their .expect_tx and .noComplete forms,
expect_tx, complete_tx, test_wait, try_wait, their .parity forms) with every
memory-ordering semantics (none, .release, .acquire, .relaxed), scope (none,
.cta, .cluster) and state space (none, .shared, .shared::cta,
.shared::cluster), at four version/target pairs (rule check/tensor-operands).
The state of arrive/arrive_drop is `_` on .shared::cluster and a register
elsewhere, as ptxas requires.

    cargo build --release
    crates/check/scripts/mbarrier_matrix.py [WORKDIR]

Prints each combination where the accept/reject verdicts differ and a
total. Needs ptxas (see tests/check/README.md; PTXAS12 overrides the path).
"""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import record_ptxas_verdicts as rec  # noqa: E402

PTXSIM = os.path.join(ROOT, "target", "release", "ptxsim")
OPS = {
    "arrive": "{D}, [sm]", "arrive_drop": "{D}, [sm]",
    "arrive.expect_tx": "{D}, [sm], 16", "arrive_drop.expect_tx": "{D}, [sm], 16",
    "arrive.noComplete": "{D}, [sm], 1", "arrive_drop.noComplete": "{D}, [sm], 1",
    "expect_tx": "[sm], 16", "complete_tx": "[sm], 16",
    "test_wait": "%p1, [sm], %rd1", "test_wait.parity": "%p1, [sm], %r1",
    "try_wait": "%p1, [sm], %rd1", "try_wait.parity": "%p1, [sm], %r1",
    "init": "[sm], 1", "inval": "[sm]",
}
TARGETS = [("8.6", "sm_90"), ("8.5", "sm_90"), ("8.0", "sm_90"), ("8.0", "sm_80")]


def cases():
    for op, operands in OPS.items():
        for sem in ["", "release", "acquire", "relaxed"]:
            for scope in ["", "cta", "cluster"]:
                for space in ["", "shared", "shared::cta", "shared::cluster"]:
                    mods = "".join("." + m for m in [op, sem, scope, space] if m)
                    d = "_" if space == "shared::cluster" else "%rd1"
                    yield f"mbarrier{mods}.b64 {operands.format(D=d)};"


def module(line, version, sm):
    return (f".version {version}\n.target {sm}\n.address_size 64\n.visible .entry k()\n{{\n"
            " .shared .align 16 .b8 sm[1024];\n .reg .b32 %r<4>;\n .reg .b64 %rd<4>;\n .reg .pred %p<3>;\n"
            f" mov.u32 %r1, 16;\n {line}\n ret;\n}}\n")


def main():
    work = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="ptxsim-mbarrier-")
    os.makedirs(work, exist_ok=True)
    diff = total = 0
    for version, sm in TARGETS:
        for k, line in enumerate(cases()):
            path = os.path.join(work, f"c{k}.ptx")
            with open(path, "w") as f:
                f.write(module(line, version, sm))
            rc, msgs, _ = rec.run(rec.PTXAS12, path, sm)
            ours = subprocess.run([PTXSIM, "check", "--color", "never", path], capture_output=True, text=True)
            total += 1
            if (rc == 0) != (ours.returncode == 0):
                diff += 1
                first = "%s: %s" % msgs[0] if msgs else ""
                print(f"{version} {sm} {line}  ptxas {rc} {first!r} | ptxsim {ours.returncode}")
    print(f"{total - diff}/{total} agree")


if __name__ == "__main__":
    main()

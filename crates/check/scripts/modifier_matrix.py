#!/usr/bin/env python3
"""Compares `ptxsim check` with ptxas 12.9 on every combination of 19
arithmetic opcodes, 6 operand types and 28 modifier lists (rule
check/modifiers), at one target.

    cargo build --release
    crates/check/scripts/modifier_matrix.py [sm_70|sm_90] [WORKDIR]

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
REG = {"u32": "%r", "s32": "%r", "u64": "%rd", "s64": "%rd", "u16": "%h", "f32": "%f", "f64": "%fd"}
ARITY = {"add": 2, "sub": 2, "mul": 2, "mad": 3, "fma": 3, "div": 2, "rem": 2, "abs": 1, "neg": 1, "min": 2,
         "max": 2, "sqrt": 1, "rcp": 1, "rsqrt": 1, "sin": 1, "cos": 1, "lg2": 1, "ex2": 1, "tanh": 1}
MODS = ["", ".rn", ".rz", ".rm", ".rp", ".approx", ".full", ".ftz", ".sat", ".lo", ".hi", ".wide", ".cc",
        ".rn.ftz", ".approx.ftz", ".rn.sat", ".ftz.sat", ".rn.ftz.sat", ".lo.sat", ".hi.sat", ".rn.rz",
        ".approx.rn", ".NaN", ".ftz.NaN", ".relu", ".lo.cc", ".full.ftz", ".rz.ftz"]


def cases():
    for op, ar in ARITY.items():
        for ty in ["u32", "s32", "s64", "u16", "f32", "f64"]:
            for m in MODS:
                d = REG[ty]
                wide = ".wide" in m and op in ("mul", "mad")
                dd = {"u32": "%rd", "s32": "%rd", "u16": "%r"}.get(ty, d) if wide else d
                srcs = ", ".join([d + "1"] * ar)
                if op == "mad" and wide:
                    srcs = f"{d}1, {d}1, {dd}2"
                yield f"{op}{m}.{ty} {dd}2, {srcs};"


def module(line, sm):
    version = "8.0" if sm == "sm_90" else "7.8"
    return (f".version {version}\n.target {sm}\n.address_size 64\n.visible .entry k()\n{{\n"
            " .reg .b16 %h<3>;\n .reg .b32 %r<3>;\n .reg .b64 %rd<3>;\n .reg .f32 %f<3>;\n .reg .f64 %fd<3>;\n"
            f" {line}\n ret;\n}}\n")


def main():
    sm = sys.argv[1] if len(sys.argv) > 1 else "sm_70"
    work = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="ptxsim-modifiers-")
    os.makedirs(work, exist_ok=True)
    diff = total = 0
    for k, line in enumerate(cases()):
        path = os.path.join(work, f"c{k}.ptx")
        with open(path, "w") as f:
            f.write(module(line, sm))
        rc, msgs, _ = rec.run(rec.PTXAS12, path, sm)
        ours = subprocess.run([PTXSIM, "check", "--color", "never", path], capture_output=True, text=True)
        total += 1
        if (rc == 0) != (ours.returncode == 0):
            diff += 1
            first = "%s: %s" % msgs[0] if msgs else ""
            print(f"{line}  ptxas {rc} {first!r} | ptxsim {ours.returncode}")
    print(f"{total - diff}/{total} agree at {sm}")


if __name__ == "__main__":
    main()

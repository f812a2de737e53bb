"""Golden references for corpus kernels whose results need a math library or
exact integer arithmetic to check: computes each case's inputs and expected
outputs here, independently of ptxsim, and writes them to
tests/corpus/golden/<case>/ (case.txt, argN.bin, wantN.bin, tolN.bin,
maskN.bin), which crates/exec/tests/all/corpus_golden.rs launches and compares.

    python golden.py OUT_DIR                 # write the golden files
    python golden.py --run PTXSIM CORPUS     # compare a ptxsim build (development aid)

Needs numpy only (the Numba tools environment has it)."""
import sys
from golden_lib import write, run_ptxsim
import golden_mathf, golden_mathd, golden_int, golden_half, golden_warp, golden_simd, golden_numba, golden_triton, golden_fp8, golden_wmma

CASES = golden_mathf.CASES + golden_mathd.CASES + golden_int.CASES + golden_half.CASES + golden_warp.CASES + golden_simd.CASES + golden_numba.CASES + golden_triton.CASES + golden_fp8.CASES + golden_wmma.CASES

if __name__ == "__main__":
    only = None
    if sys.argv[1] == "--run":
        ok = True
        sel = sys.argv[4:]
        for make in CASES:
            c = make()
            if sel and c.name not in sel:
                continue
            ok &= run_ptxsim(c, sys.argv[2], sys.argv[3])
        sys.exit(0 if ok else 1)
    for make in CASES:
        write(make(), sys.argv[1])

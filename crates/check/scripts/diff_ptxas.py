#!/usr/bin/env python3
"""Differential check of ptxsim's checker against ptxas 12.9 on random mutants.

    PTXSIM_MUTANTS_DIR=/tmp/mut PTXSIM_MUTANTS=400 \\
        cargo test -p ptxsim-check --release --test fuzz -- --ignored write_mutants_for_ptxas
    crates/check/scripts/diff_ptxas.py /tmp/mut

Runs ptxas on every mutant with the command line of
scripts/record_ptxas_verdicts.py and prints each file where the verdicts
differ, with both first messages. Needs ptxas (see tests/check/README.md).
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import record_ptxas_verdicts as rec  # noqa: E402


def main(d):
    ours = {}
    for line in open(os.path.join(d, "verdicts.tsv")):
        name, rc, msg = line.rstrip("\n").split("\t")
        ours[name] = (int(rc), msg)
    diff = 0
    for name in sorted(ours):
        path = os.path.join(d, name)
        src = open(path).read()
        v = rec.version_of(src)
        if v is not None and tuple(v) > (8, 8):
            continue  # ptxas 12.9 stops at 8.8 (a documented difference)
        rc, msgs, _ = rec.run(rec.PTXAS12, path, rec.arch_for(src))
        if rc not in (0, 255):
            print(f"{name}: ptxas crashed ({rc})")
            continue
        if rc != ours[name][0]:
            diff += 1
            first = "%s: %s" % msgs[0] if msgs else ""
            print(f"{name}: ptxas {rc} {first!r} | ptxsim {ours[name][0]} {ours[name][1]}")
    print(f"{len(ours) - diff}/{len(ours)} agree")


if __name__ == "__main__":
    main(sys.argv[1])

#!/usr/bin/env python3
"""Record ptxas 12.9 and 11.8 verdicts for tests/check/{accept,reject}/*.ptx.

Usage:
    scripts/record_ptxas_verdicts.py            # rewrite tests/check/verdicts.tsv
    scripts/record_ptxas_verdicts.py --check    # also fail if a file sits in the
                                                # wrong directory (accept/ vs reject/)
    scripts/record_ptxas_verdicts.py FILE...    # print the rows for FILEs only

The ptxas binaries come from two virtual environments under
${PTXSIM_TOOLS:-$HOME/.cache/ptxsim-tools}:
    cu12/ : pip install nvidia-cuda-nvcc-cu12==12.9.86
    cu11/ : pip install nvidia-cuda-nvcc-cu11==11.8.89
(or set PTXAS12 / PTXAS11 to the binaries directly).

Command line per file (see tests/check/README.md):
    ptxas -arch=sm_XX FILE -o TMP.cubin
where sm_XX is the file's `.target` (the first sm_NN[a|f] token), or sm_50 when
the target is below sm_50 or absent (ptxas 11.8/12.9 know no older GPU; the
`.target` directive itself still drives the feature-gating diagnostics), or
when ptxas refuses -arch=sm_XX itself ("Value 'sm_XX' is not defined for option
'gpu-name'"), so that the .target directive gets diagnosed instead.
ptxas 11.8 is not run ("n/a") when the file's .version is above 7.8 or its
target is above sm_90 or has an a/f suffix.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHECK = os.path.join(ROOT, "tests", "check")
TOOLS = os.environ.get("PTXSIM_TOOLS", os.path.expanduser("~/.cache/ptxsim-tools"))


def find_ptxas(env, venv):
    if os.environ.get(env):
        return os.environ[env]
    hits = glob.glob(os.path.join(TOOLS, venv, "lib", "python3*", "site-packages",
                                  "nvidia", "cuda_nvcc", "bin", "ptxas"))
    if not hits:
        sys.exit(f"ptxas not found for {venv}: install it under {TOOLS}/{venv} or set {env}")
    return hits[0]


PTXAS12 = find_ptxas("PTXAS12", "cu12")
PTXAS11 = find_ptxas("PTXAS11", "cu11")

MSG = re.compile(r"^ptxas (?:(?P<file>.*?), line (?P<line>\d+); )?(?P<kind>error|warning|fatal) *: (?P<text>.*)$")


def strip_comments(src):
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    return re.sub(r"//[^\n]*", "", src)


def target_of(src):
    m = re.search(r"\.target\s+([^\n;]*)", strip_comments(src))
    if not m:
        return None
    t = re.search(r"\bsm_(\d+)([af]?)\b", m.group(1))
    return (int(t.group(1)), t.group(2)) if t else None


def version_of(src):
    m = re.search(r"\.version\s+(\d+)\.(\d+)", strip_comments(src))
    return (int(m.group(1)), int(m.group(2))) if m else None


def arch_for(src):
    t = target_of(src)
    if t is None or t[0] < 50:
        return "sm_50"
    return f"sm_{t[0]}{t[1]}"


def run(ptxas, path, arch):
    """Run one ptxas; return (exit code, errors, warnings).

    errors/warnings are lists of (line or None, text).  `fatal` messages count
    as errors and keep a "fatal: " prefix; the closing
    "Ptx assembly aborted due to errors" line is dropped.
    """
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run([ptxas, f"-arch={arch}", path, "-o", os.path.join(d, "out.cubin")],
                           capture_output=True, text=True)
    if arch != "sm_50" and "is not defined for option 'gpu-name'" in p.stderr:
        # .target names an SM this ptxas does not know: let ptxas diagnose the
        # .target directive itself instead of failing on the command line.
        return run(ptxas, path, "sm_50")
    errors, warnings = [], []
    for line in (p.stdout + p.stderr).splitlines():
        m = MSG.match(line.strip())
        if not m:
            continue
        text = m.group("text").strip()
        ln = int(m.group("line")) if m.group("line") else None
        if m.group("kind") == "warning":
            warnings.append((ln, text))
        elif m.group("kind") == "fatal":
            if text != "Ptx assembly aborted due to errors":
                errors.append((ln, "fatal: " + text))
        else:
            errors.append((ln, text))
    return p.returncode, errors, warnings


def fmt(msgs):
    return " | ".join(t for _, t in msgs)


def record(path):
    with open(path) as f:
        src = f.read()
    arch = arch_for(src)
    rc12, err, warn = run(PTXAS12, path, arch)
    v, t = version_of(src), target_of(src)
    if (v and v > (7, 8)) or (t and (t[0] > 90 or t[1])):
        rc11 = "n/a"
    else:
        rc11 = str(run(PTXAS11, path, arch)[0])
    line = str(err[0][0]) if err and err[0][0] is not None else ""
    msg = fmt(err)
    wmsg = " | ".join(f"{l}: {t}" if l is not None else t for l, t in warn)
    rel = os.path.relpath(path, CHECK)
    return [rel, str(rc12), rc11, line, msg, wmsg]


def main(argv):
    check = "--check" in argv
    files = [a for a in argv if not a.startswith("--")]
    if files:
        for f in files:
            print("\t".join(record(f)))
        return 0
    paths = sorted(glob.glob(os.path.join(CHECK, "accept", "*.ptx"))) + \
        sorted(glob.glob(os.path.join(CHECK, "reject", "*.ptx")))
    rows = [["path", "rc12", "rc11", "line", "message", "warnings"]]
    bad = []
    for p in paths:
        row = record(p)
        rows.append(row)
        accepted = row[1] == "0"
        if row[1] not in ("0", "255"):
            bad.append(row[0] + f" (ptxas 12.9 exit code {row[1]}: crash?)")
        elif accepted != row[0].startswith("accept/"):
            bad.append(row[0])
    with open(os.path.join(CHECK, "verdicts.tsv"), "w") as f:
        for r in rows:
            f.write("\t".join(r) + "\n")
    print(f"{len(rows) - 1} files recorded")
    for b in bad:
        print(f"misfiled (ptxas 12.9 verdict disagrees with directory): {b}", file=sys.stderr)
    return 1 if (check and bad) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Sweep the sink operand `_` over every operand position of every
instruction form ptxsim knows, and compare `ptxsim check` with ptxas.

Usage:
    scripts/sweep_sink.py [--ptxsim target/release/ptxsim] [--jobs 2]
                          [--out tests/check/sink_sweep.tsv] [--limit N]

Instruction forms come from every module that ptxas 12.9 and `ptxsim check`
both accept: tests/check/accept/, tests/isa/, tests/run/, tests/corpus/,
tests/corpus_pending/{numba,triton}/, and the module of extra forms below
(instructions that no committed file holds yet). A form is the instruction as
written without operands (`setp.lt.u32`, `shfl.sync.idx.b32`), taken from the
smallest file that holds it. For each form and each operand position (each
top-level operand; each half of `p|q`; each element of a `{...}` vector or a
`(...)` call list) one module is generated: the base module with that one
operand replaced by `_`. Each module is assembled by ptxas 12.9, 12.4 and
11.8 (`-arch` from the `.target` as in record_ptxas_verdicts.py; 11.8 only
for `.version` <= 7.8 and targets up to sm_90) and checked by ptxsim.

Writes one row per module to the TSV (form, position, whether the position
is a destination, the verdicts, ptxas 12.9's first message, the ptxsim
codes) and prints the agreement counts. The ptxas binaries are found under
${PTXSIM_TOOLS:-$HOME/.cache/ptxsim-tools}/{cu12,cu11}, or PTXAS12 /
PTXAS124 / PTXAS11 (PTXAS124 is optional: Triton's bundled ptxas).
"""
import argparse
import concurrent.futures as cf
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.environ.get("PTXSIM_TOOLS", os.path.expanduser("~/.cache/ptxsim-tools"))


def find(env, pattern):
    if os.environ.get(env):
        return os.environ[env]
    hits = glob.glob(os.path.join(TOOLS, pattern))
    return hits[0] if hits else None


PTXAS = {
    "12.9": find("PTXAS12", "cu12/lib/python3*/site-packages/nvidia/cuda_nvcc/bin/ptxas"),
    "12.4": find("PTXAS124", "triton/lib/python3*/site-packages/triton/backends/nvidia/bin/ptxas"),
    "11.8": find("PTXAS11", "cu11/lib/python3*/site-packages/nvidia/cuda_nvcc/bin/ptxas"),
}

# Forms no committed file holds; each line is one instruction, in a module
# with the registers below (sm_90, PTX 8.0).
EXTRA_HEADER = """.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b16 %h<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<8>;
  .reg .f64 %fd<4>;
  .shared .align 16 .b8 sh[1024];
  ld.param.u64 %rd1, [out];
"""
EXTRA = [
    "isspacep.global %p1, %rd1;",
    "isspacep.shared %p1, %rd1;",
    "isspacep.shared::cluster %p1, %rd1;",
    "mapa.shared::cluster.u32 %r1, %r2, %r3;",
    "mapa.u64 %rd2, %rd1, %r3;",
    "getctarank.shared::cluster.u32 %r1, %r2;",
    "getctarank.u64 %r1, %rd1;",
    "elect.sync %r1|%p1, -1;",
    "match.any.sync.b32 %r1, %r2, -1;",
    "match.all.sync.b32 %r1|%p1, %r2, -1;",
    "redux.sync.add.u32 %r1, %r2, -1;",
    "activemask.b32 %r1;",
    "mbarrier.init.shared.b64 [sh], %r1;",
    "mbarrier.arrive.shared.b64 %rd2, [sh];",
    "mbarrier.arrive.expect_tx.shared.b64 %rd2, [sh], 16;",
    "mbarrier.test_wait.shared.b64 %p1, [sh], %rd2;",
    "mbarrier.try_wait.parity.shared.b64 %p1, [sh], %r1;",
    "cp.async.ca.shared.global [sh], [%rd1], 4;",
    "cp.async.commit_group;",
    "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [sh];",
    "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f1, %f2, %f3, %f4};",
    "max.NaN.f32 %f1, %f2, %f3;",
    "min.xorsign.abs.f32 %f1, %f2, %f3;",
    "lop3.b32 %r1, %r2, %r3, %r4, 0xe8;",
    "shf.l.wrap.b32 %r1, %r2, %r3, %r4;",
    "add.cc.u32 %r1, %r2, %r3;",
    "testp.finite.f32 %p1, %f1;",
    "set.lt.u32.f32 %r1, %f1, %f2;",
    "slct.u32.s32 %r1, %r2, %r3, %r4;",
    "cvt.rn.f16x2.f32 %r1, %f1, %f2;",
    "mov.b64 {%r1, %r2}, %rd1;",
    "mov.b32 {%h1, %h2}, %r1;",
    "fns.b32 %r1, %r2, %r3, %r4;",
    "createpolicy.fractional.L2::evict_last.b64 %rd2, 1.0;",
    "atom.global.cas.b32 %r1, [%rd1], %r2, %r3;",
    "atom.global.exch.b32 %r1, [%rd1], %r2;",
    "bar.red.popc.u32 %r1, 0, %p1;",
    "vote.sync.any.pred %p1, %p2, -1;",
    "vote.sync.ballot.b32 %r1, %p2, -1;",
    "shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, -1;",
    "stacksave.u64 %rd2;",
    "clz.b32 %r1, %r2;",
    "prmt.b32 %r1, %r2, %r3, %r4;",
    "dp4a.u32.u32 %r1, %r2, %r3, %r4;",
]
EXTRA_FOOTER = "  ret;\n}\n"

MSG = re.compile(r"^ptxas (?:(?P<file>.*?), line (?P<line>\d+); )?(?P<kind>error|warning|fatal) *: (?P<text>.*)$")


def strip_comments(src):
    src = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), src, flags=re.S)
    return re.sub(r"//[^\n]*", "", src)


def arch_for(src, ptxas_version):
    m = re.search(r"\.target\s+([^\n;]*)", strip_comments(src))
    t = re.search(r"\bsm_(\d+)([af]?)\b", m.group(1)) if m else None
    if not t or int(t.group(1)) < 50:
        return "sm_50"
    return f"sm_{t.group(1)}{t.group(2)}"


def applies(src, version):
    """Whether a ptxas version knows the module's .version and .target."""
    if version == "12.9":
        return True
    v = re.search(r"\.version\s+(\d+)\.(\d+)", src)
    t = re.search(r"\bsm_(\d+)([af]?)\b", src)
    vv = (int(v.group(1)), int(v.group(2))) if v else (0, 0)
    tt = (int(t.group(1)), t.group(2)) if t else (0, "")
    top = {"12.4": ((8, 4), 90), "11.8": ((7, 8), 90)}[version]
    return vv <= top[0] and tt[0] <= top[1] and not (tt[1] and version == "11.8")


def ptxas_verdict(version, path, src):
    exe = PTXAS.get(version)
    if not exe or not applies(src, version):
        return "n/a", ""
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run([exe, f"-arch={arch_for(src, version)}", path, "-o", os.path.join(d, "o.cubin")],
                           capture_output=True, text=True)
    first = ""
    for line in (p.stdout + p.stderr).splitlines():
        m = MSG.match(line.strip())
        if m and m.group("kind") != "warning" and m.group("text") != "Ptx assembly aborted due to errors":
            first = m.group("text").strip()
            break
    if p.returncode not in (0, 255):
        return f"crash({p.returncode})", first
    return ("accept" if p.returncode == 0 else "reject"), first


# --- instruction and operand splitting ------------------------------------

INSTR = re.compile(r"^(?P<pre>\s*(?:[A-Za-z_$%][\w$%]*:\s*)?(?:@!?%?[\w$]+\s+)?)(?P<op>[a-z][\w]*(?:\.[\w:]+)*)(?P<rest>\s.*)?;\s*$")


def split_top(s, sep=","):
    """Split at `sep` outside brackets."""
    out, depth, cur = [], 0, ""
    for c in s:
        if c in "[{(":
            depth += 1
        elif c in "]})":
            depth -= 1
        if c == sep and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += c
    out.append(cur)
    return [x.strip() for x in out]


def positions(ops):
    """Every (position name, operands with `_` there)."""
    res = []
    for i, o in enumerate(ops):
        if o == "_":
            continue
        if o.startswith("{") and o.endswith("}"):
            el = split_top(o[1:-1])
            for j, e in enumerate(el):
                if e != "_":
                    new = el[:j] + ["_"] + el[j + 1:]
                    res.append((f"{i}.{j}", ops[:i] + ["{" + ", ".join(new) + "}"] + ops[i + 1:]))
        elif o.startswith("(") and o.endswith(")"):
            el = split_top(o[1:-1])
            for j, e in enumerate(el):
                if e and e != "_":
                    new = el[:j] + ["_"] + el[j + 1:]
                    res.append((f"{i}.{j}", ops[:i] + ["(" + ", ".join(new) + ")"] + ops[i + 1:]))
        elif "|" in o and not o.startswith("["):
            el = [x.strip() for x in o.split("|")]
            for j, e in enumerate(el):
                if e != "_":
                    new = el[:j] + ["_"] + el[j + 1:]
                    res.append((f"{i}.{j}", ops[:i] + ["|".join(new)] + ops[i + 1:]))
        res.append((str(i), ops[:i] + ["_"] + ops[i + 1:]))
    return res


def forms_of(path, src):
    """(form, line index, prefix, opcode text, operands) of each instruction line."""
    lines = strip_comments(src).split("\n")
    out = []
    for n, line in enumerate(lines):
        if ";" not in line or line.count(";") != 1:
            continue
        m = INSTR.match(line)
        if not m or m.group("op").split(".")[0] in ("ret", "exit", "bra", "trap"):
            continue
        rest = (m.group("rest") or "").strip()
        ops = split_top(rest) if rest else []
        out.append((m.group("op"), n, m.group("pre"), ops))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptxsim", default=os.path.join(ROOT, "target", "release", "ptxsim"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "check", "sink_sweep.tsv"))
    ap.add_argument("--limit", type=int, default=0)
    a = ap.parse_args()
    if not PTXAS["12.9"]:
        sys.exit("ptxas 12.9 not found: set PTXAS12 or install it under $PTXSIM_TOOLS/cu12")

    tmp = tempfile.mkdtemp(prefix="sink_sweep.")
    bases = []
    for pat in ["tests/check/accept/*.ptx", "tests/isa/*.ptx", "tests/run/*.ptx", "tests/corpus/*/*.ptx",
                "tests/corpus_pending/numba/*.ptx", "tests/corpus_pending/triton/*.ptx"]:
        bases += glob.glob(os.path.join(ROOT, pat))
    extra = os.path.join(tmp, "extra_forms.ptx")
    with open(extra, "w") as f:
        f.write(EXTRA_HEADER + "".join(f"  {x}\n" for x in EXTRA) + EXTRA_FOOTER)
    bases.sort(key=os.path.getsize)
    # The extra forms come one per module (a base ptxas rejects is dropped).
    extra_bases = []
    for k, x in enumerate(EXTRA):
        p = os.path.join(tmp, f"extra_{k}.ptx")
        with open(p, "w") as f:
            f.write(EXTRA_HEADER + f"  {x}\n" + EXTRA_FOOTER)
        extra_bases.append(p)
    bases = extra_bases + bases

    # ptxsim's verdict on the bases: only clean ones are used.
    def ptxsim_check(paths):
        res = {}
        for c in range(0, len(paths), 200):
            chunk = paths[c:c + 200]
            p = subprocess.run([a.ptxsim, "check", "--format", "json", "--max-errors", "5"] + chunk,
                               capture_output=True, text=True)
            try:
                diags = json.loads(p.stdout).get("diagnostics", [])
            except json.JSONDecodeError:
                sys.exit(f"ptxsim check gave no JSON: {p.stderr[:500]}")
            for q in chunk:
                res[q] = []
            for d in diags:
                if d.get("severity") == "error":
                    res.setdefault(d["file"], []).append(d["code"])
        return res

    base_ok = ptxsim_check(bases)
    with cf.ThreadPoolExecutor(a.jobs) as ex:
        srcs = {b: open(b).read() for b in bases}
        v12 = dict(zip(bases, ex.map(lambda b: ptxas_verdict("12.9", b, srcs[b])[0], bases)))
    usable = [b for b in bases if v12[b] == "accept" and not base_ok.get(b)]
    print(f"{len(usable)} of {len(bases)} base modules accepted by both", file=sys.stderr)

    seen, cases = set(), []
    for b in usable:
        src = srcs[b]
        raw = src.split("\n")
        for form, n, pre, ops in forms_of(b, src):
            for pos, new in positions(ops):
                key = (form, pos)
                if key in seen:
                    continue
                seen.add(key)
                opcode = form
                line = pre + opcode + (" " + ", ".join(new) if new else "") + ";"
                mod = "\n".join(raw[:n] + [line] + raw[n + 1:])
                name = f"c{len(cases):05d}.ptx"
                path = os.path.join(tmp, name)
                with open(path, "w") as f:
                    f.write(mod)
                cases.append((form, pos, os.path.relpath(b, ROOT) if b.startswith(ROOT) else "extra", path, mod))
    if a.limit:
        cases = cases[:a.limit]
    print(f"{len(cases)} modules", file=sys.stderr)

    sim = ptxsim_check([c[3] for c in cases])

    def run_all(c):
        return {v: ptxas_verdict(v, c[3], c[4]) for v in ("12.9", "12.4", "11.8")}

    with cf.ThreadPoolExecutor(a.jobs) as ex:
        px = list(ex.map(run_all, cases))

    rows = [["form", "position", "base", "ptxas12.9", "ptxas12.4", "ptxas11.8", "ptxsim", "ptxas12.9_message", "ptxsim_codes"]]
    for c, p in zip(cases, px):
        codes = sim.get(c[3], [])
        rows.append([c[0], c[1], c[2], p["12.9"][0], p["12.4"][0], p["11.8"][0], "reject" if codes else "accept",
                     p["12.9"][1], ",".join(sorted(set(codes)))])
    with open(a.out, "w") as f:
        for r in rows:
            f.write("\t".join(r) + "\n")
    body = rows[1:]
    verdict = [r for r in body if r[3] in ("accept", "reject")]
    crashed = [r for r in body if r not in verdict]
    acc = sum(1 for r in verdict if r[3] == "accept")
    agree = [r for r in verdict if r[3] == r[6]]
    differ = [r for r in body if len({r[k] for k in (3, 4, 5)} - {"n/a"}) > 1]
    print(f"{len(body)} modules; ptxas 12.9 gives a verdict on {len(verdict)} (accepts {acc}, rejects {len(verdict) - acc}) "
          f"and crashes on {len(crashed)}; ptxsim agrees with ptxas 12.9 on {len(agree)} of {len(verdict)}; "
          f"ptxas 12.9, 12.4 and 11.8 differ on {len(differ)} (where each applies)")
    for r in verdict:
        if r[3] != r[6]:
            print("DIFF", r[0], r[1], "ptxas", r[3], "ptxsim", r[6], r[7][:80], r[8])
    for r in crashed:
        print("CRASH", r[0], r[1], "ptxas 12.9", r[3], "ptxsim", r[6])
    return 1 if len(agree) != len(verdict) else 0


if __name__ == "__main__":
    sys.exit(main())

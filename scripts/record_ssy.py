#!/usr/bin/env python3
"""Record where ptxas (sm_50) places SSY/PBK reconvergence targets, as data
for ptxsim's reconvergence tests (tests/ssy/*.tsv). CI reads only the data.

Method (mapping SASS back to PTX):
  1. Copy the PTX, rewriting `.target` to sm_50 and `.version` to 8.8 (ptxas
     12.9 reads up to 8.8), dropping existing `.file`/`.loc` and debug
     sections, and putting `.loc 1 <original line> 1` before every
     instruction, with one `.file 1`. Line numbers therefore name lines of the
     ORIGINAL corpus file.
  2. `ptxas -arch=sm_50 -lineinfo`, then `nvdisasm -c -g -novliw` prints each
     SASS instruction after a `//## File "...", line N` comment.
  3. For every SSY or PBK: its target label's address, and the PTX lines of the
     first SASS instructions at the target (ptxas schedules, so we keep the
     first three distinct lines). Its owning PTX branch is the first later
     predicated control instruction (BRA/SYNC/BRK/BRX) in the same function
     whose line is a PTX conditional `bra`/`brx.idx` line, before the SSY's
     target address; none (line 0) means ptxas made the SSY for code of its
     own (an inlined division or sqrt slow path), not for a PTX branch.
  4. Every PTX conditional branch of a recorded function that got no SSY/PBK is
     recorded too, with kind `none` (ptxas proved it uniform, if-converted it,
     or used a plain branch).

Output: tests/ssy/<corpus-dir>__<file>.tsv with columns
  function  branch_line  kind  target_lines(comma)  sass(ssy addr->target addr)
Usage: scripts/record_ssy.py [corpus files...]   (default: see DEFAULT below)
Environment: PTXAS (12.9) and NVDISASM (the 12.8 one from the triton 3.3.1 wheel).
"""
import os, re, subprocess, sys, tempfile

HOME = os.path.expanduser("~")
PTXAS = os.environ.get("PTXAS", HOME + "/.cache/ptxsim-tools/cu12/lib/python3.11/site-packages/nvidia/cuda_nvcc/bin/ptxas")
NVDISASM = os.environ.get("NVDISASM", HOME + "/.cache/ptxsim-tools/triton-nvdisasm/bin/nvdisasm")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "ssy")

INSTR = re.compile(r"^\s*(@!?[%\w$]+\s+)?[a-z][\w.:]*(\s|;)")
COND_BRANCH = re.compile(r"^\s*@!?[%\w$]+\s+(bra|brx)\b")


def sm50_copy(lines):
    out, skip_depth = [], 0
    for i, l in enumerate(lines, 1):
        s = l.strip()
        if skip_depth:
            skip_depth += s.count("{") - s.count("}")
            out.append("")
            continue
        if s.startswith(".section"):
            skip_depth = max(1, s.count("{") - s.count("}")) if "{" in s else 1
            out.append("")
            continue
        if s.startswith(".target"):
            out.append(".target sm_50")
        elif s.startswith(".version"):
            out.append(".version 8.8")
        elif s.startswith(".address_size"):
            out.append(l + ' .file 1 "orig.ptx"')
        elif s.startswith(".file") or s.startswith(".loc"):
            out.append("")
        elif INSTR.match(l) and not s.startswith(".") and not s.endswith(":"):
            out.append(".loc 1 %d 1 %s" % (i, l))
        else:
            out.append(l)
    return out


def disasm(path):
    with tempfile.TemporaryDirectory() as d:
        cubin = os.path.join(d, "k.cubin")
        r = subprocess.run([PTXAS, "-arch=sm_50", "-lineinfo", path, "-o", cubin], capture_output=True, text=True)
        if r.returncode != 0:
            return None, r.stderr.strip().splitlines()[:2]
        r = subprocess.run([NVDISASM, "-c", "-g", "-novliw", cubin], capture_output=True, text=True)
        return r.stdout, None


def parse_sass(text):
    """functions: name -> list of (addr, line, opcode-text); labels: name -> addr."""
    funcs, labels = {}, {}
    cur, line, pending = None, None, []
    for l in text.splitlines():
        m = re.match(r"^//-+ \.text\.(\S+)", l)
        if m:
            cur = m.group(1)
            funcs[cur] = []
            continue
        m = re.match(r'^\s*//## File ".*", line (\d+)', l)
        if m:
            line = int(m.group(1))
            continue
        m = re.match(r"^(\.L_x_\d+):", l)
        if m and cur:
            pending.append(m.group(1))
            continue
        m = re.match(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;?\s*(\(\*.*\*\))?\s*$", l)
        if m and cur:
            addr = int(m.group(1), 16)
            for p in pending:
                labels[(cur, p)] = addr
            pending = []
            funcs[cur].append((addr, line, m.group(2).strip().rstrip(";").strip()))
    return funcs, labels


def record(path):
    lines = open(path).read().split("\n")
    cond = {i for i, l in enumerate(lines, 1) if COND_BRANCH.match(l)}
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write("\n".join(sm50_copy(lines)))
        tmp = f.name
    try:
        text, err = disasm(tmp)
    finally:
        os.unlink(tmp)
    if text is None:
        return None, err
    funcs, labels = parse_sass(text)
    rows = []
    for fn, ins in funcs.items():
        seen = set()
        for idx, (addr, line, op) in enumerate(ins):
            m = re.match(r"^(SSY|PBK)\s+`\((\.L_x_\d+)\)", op)
            if not m:
                continue
            kind, lab = m.group(1), m.group(2)
            taddr = labels.get((fn, lab))
            owner = None
            for a2, l2, op2 in ins[idx + 1:]:
                if taddr is not None and a2 >= taddr:
                    break
                if re.match(r"^@!?U?P\w+\s+(BRA|SYNC|BRK|BRX|JMX)\b", op2) or re.match(r"^BRX\b", op2):
                    if l2 in cond:
                        owner = l2
                        break
            tl = []
            for a2, l2, op2 in ins:
                if taddr is not None and a2 >= taddr and l2 is not None and l2 not in tl:
                    tl.append(l2)
                if len(tl) >= 3:
                    break
            if owner is not None:
                seen.add(owner)
            rows.append((fn, owner if owner else 0, kind, ",".join(map(str, tl)), "%04x->%04x" % (addr, taddr or 0)))
        # PTX conditional branches of this function without an SSY/PBK.
        flines = {l for (_, l, _) in ins if l}
        for c in sorted(cond):
            if c in flines and c not in seen:
                rows.append((fn, c, "none", "", ""))
    return rows, None


DEFAULT = [
    "nvcc/reduce.ptx", "nvcc/scan.ptx", "nvcc/collatz.ptx", "nvcc/histogram.ptx", "nvcc/sort.ptx",
    "nvcc/matmul.ptx", "nvcc/intmath.ptx", "nvcc/vector_ops.ptx", "nvcc/fpmath.ptx", "nvcc/switch_vm.ptx",
    "nvcc/recursion.ptx", "nvcc/funcptr.ptx", "clang/collatz.ptx", "clang/reduce.ptx", "clang/scan.ptx",
    "clang/sort.ptx", "clang/switch_vm.ptx", "clang/histogram.ptx", "clang/matmul.ptx", "clang/intmath.ptx",
    "llvmlite/lt_switch_dfa.ptx", "llvmlite/lt_switch_interp.ptx", "llvmlite/lt_switch_nested.ptx",
    "llvmlite/ll_switch_loop.ptx", "llvmlite/lt_compare.ptx", "llvmlite/lt_reduce_shared.ptx",
    "seeds/brx_idx.ptx", "seeds/divergence_uni.ptx", "seeds/bra_uni.ptx",
]


def main():
    files = sys.argv[1:] or [os.path.join(ROOT, "tests", "corpus", f) for f in DEFAULT]
    os.makedirs(OUT, exist_ok=True)
    for p in files:
        rel = os.path.relpath(p, os.path.join(ROOT, "tests", "corpus"))
        rows, err = record(p)
        if rows is None:
            print("skip %s: %s" % (rel, " | ".join(err or [])), file=sys.stderr)
            continue
        name = rel.replace("/", "__").replace(".ptx", ".tsv")
        with open(os.path.join(OUT, name), "w") as f:
            f.write("# recorded by scripts/record_ssy.py from tests/corpus/%s with ptxas -arch=sm_50 -lineinfo (12.9), nvdisasm 12.8\n" % rel)
            f.write("# function\tbranch_line\tkind\ttarget_lines\tsass\n")
            for r in rows:
                f.write("\t".join(map(str, r)) + "\n")
        print("ok %s: %d rows" % (rel, len(rows)), file=sys.stderr)


if __name__ == "__main__":
    main()

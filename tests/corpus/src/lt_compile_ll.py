"""Compile a hand-written .ll file (argv[1]) to PTX (argv[2]) with the LLVM
bundled in llvmlite, codegen only (the same as `llc -O2`)."""
import sys

import llvmlite.binding as llvm

llvm.initialize_all_targets()
llvm.initialize_all_asmprinters()
src, out = sys.argv[1], sys.argv[2]
cpu = sys.argv[3] if len(sys.argv) > 3 else "sm_70"
with open(src) as fh:
    mod = llvm.parse_assembly(fh.read())
mod.verify()
tm = llvm.Target.from_triple("nvptx64-nvidia-cuda").create_target_machine(cpu=cpu, features="+ptx64", opt=2)
with open(out, "w") as fh:
    fh.write(tm.emit_assembly(mod))

"""Helpers shared by the llvmlite PTX generators (lt_*.py).

Every generator builds an llvmlite.ir.Module and calls emit(), which prints
the LLVM IR through LLVM's NVPTX back end (the LLVM bundled in llvmlite).
Only code generation runs, no IR optimisation pipeline, so a `switch` reaches
instruction selection intact and dense ones become brx.idx jump tables.
"""
import sys

import llvmlite.binding as llvm
import llvmlite.ir as ir

TRIPLE = "nvptx64-nvidia-cuda"
DATALAYOUT = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"

i1 = ir.IntType(1)
i8 = ir.IntType(8)
i16 = ir.IntType(16)
i32 = ir.IntType(32)
i64 = ir.IntType(64)
f32 = ir.FloatType()
f64 = ir.DoubleType()
void = ir.VoidType()


def gptr(ty=None):
    """Pointer in the global address space (1)."""
    return ir.PointerType(ty or i8, addrspace=1)


def new_module(name):
    m = ir.Module(name)
    m.triple = TRIPLE
    m.data_layout = DATALAYOUT
    return m


def kernel(m, name, argtys):
    fn = ir.Function(m, ir.FunctionType(void, argtys), name)
    fn.calling_convention = "ptx_kernel"
    return fn


def device(m, name, ret, argtys, noinline=True):
    fn = ir.Function(m, ir.FunctionType(ret, argtys), name)
    fn.linkage = "internal"
    if noinline:
        fn.attributes.add("noinline")
    return fn


def intrinsic(m, name, ret, argtys):
    try:
        return m.get_global(name)
    except KeyError:
        return ir.Function(m, ir.FunctionType(ret, argtys), name)


def sreg(b, m, reg):
    """Read a special register such as tid.x / ctaid.x / ntid.x."""
    f = intrinsic(m, "llvm.nvvm.read.ptx.sreg." + reg, i32, [])
    return b.call(f, [], name=reg.replace(".", "_"))


def global_tid(b, m):
    tid = sreg(b, m, "tid.x")
    ctaid = sreg(b, m, "ctaid.x")
    ntid = sreg(b, m, "ntid.x")
    return b.add(b.mul(ctaid, ntid), tid, name="gtid")


def barrier(b, m):
    f = intrinsic(m, "llvm.nvvm.barrier0", void, [])
    b.call(f, [])


def c32(v):
    return ir.Constant(i32, v)


def c64(v):
    return ir.Constant(i64, v)


def emit(m, cpu="sm_70", features="+ptx64"):
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    mod = llvm.parse_assembly(str(m))
    mod.verify()
    target = llvm.Target.from_triple(TRIPLE)
    tm = target.create_target_machine(cpu=cpu, features=features, opt=2)
    ptx = tm.emit_assembly(mod)
    out = sys.argv[1] if len(sys.argv) > 1 else None
    if out:
        with open(out, "w") as fh:
            fh.write(ptx)
    else:
        sys.stdout.write(ptx)

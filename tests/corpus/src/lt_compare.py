"""Every icmp and fcmp predicate, select, 32/64-bit division and remainder
and bit-counting intrinsics, generated from LLVM IR; the PTX has setp with
all signed/unsigned/ordered/unordered/num/nan comparisons and selp."""
from ltcommon import *

m = new_module("compare")
k = kernel(m, "compare_kernel", [gptr(i32), gptr(i32), gptr(f32), gptr(f32), gptr(i32), gptr(i64), i32])
ia, ib, fa, fb, out, out64, n = k.args
for a, nm in zip(k.args, ["ia", "ib", "fa", "fb", "out", "out64", "n"]):
    a.name = nm
e = k.append_basic_block("entry")
work = k.append_basic_block("work")
ex = k.append_basic_block("exit")
b = ir.IRBuilder(e)
gid = global_tid(b, m)
b.cbranch(b.icmp_signed(">=", gid, n), ex, work)
b.position_at_end(work)
x = b.load(b.gep(ia, [gid]), name="x")
y = b.load(b.gep(ib, [gid]), name="y")
fx = b.load(b.gep(fa, [gid]), name="fx")
fy = b.load(b.gep(fb, [gid]), name="fy")
base = b.mul(gid, c32(40))
slot = [0]


def put(v):
    if v.type != i32:
        v = b.zext(v, i32)
    b.store(v, b.gep(out, [b.add(base, c32(slot[0]))]))
    slot[0] += 1


for op in ["==", "!=", "<", "<=", ">", ">="]:
    put(b.icmp_signed(op, x, y))
for op in ["<", "<=", ">", ">="]:
    put(b.icmp_unsigned(op, x, y))
for op in ["==", "!=", "<", "<=", ">", ">=", "ord", "uno"]:
    put(b.fcmp_ordered(op, fx, fy))
for op in ["==", "!=", "<", "<=", ">", ">="]:
    put(b.fcmp_unordered(op, fx, fy))
# select chains and predicate logic
p = b.icmp_signed("<", x, y)
q = b.fcmp_ordered("<", fx, fy)
put(b.select(b.and_(p, q), x, y))
put(b.select(b.or_(p, q), c32(7), c32(9)))
put(b.select(b.xor(p, q), b.add(x, y), b.sub(x, y)))
put(b.select(b.not_(p), x, c32(-1)))
# division and remainder, guarded against zero
nz = b.icmp_unsigned("!=", y, c32(0))
ysafe = b.select(nz, y, c32(1))
put(b.sdiv(x, ysafe))
put(b.srem(x, ysafe))
put(b.udiv(x, ysafe))
put(b.urem(x, ysafe))
# bit intrinsics
ctpop = intrinsic(m, "llvm.ctpop.i32", i32, [i32])
ctlz = intrinsic(m, "llvm.ctlz.i32", i32, [i32, i1])
cttz = intrinsic(m, "llvm.cttz.i32", i32, [i32, i1])
brev = intrinsic(m, "llvm.bitreverse.i32", i32, [i32])
bswap = intrinsic(m, "llvm.bswap.i32", i32, [i32])
fshl = intrinsic(m, "llvm.fshl.i32", i32, [i32, i32, i32])
put(b.call(ctpop, [x]))
put(b.call(ctlz, [x, ir.Constant(i1, 0)]))
put(b.call(cttz, [x, ir.Constant(i1, 0)]))
put(b.call(brev, [x]))
put(b.call(bswap, [x]))
put(b.call(fshl, [x, y, b.and_(y, c32(31))]))
# float to int conversions and min/max
put(b.fptosi(fx, i32))
put(b.fptoui(b.call(intrinsic(m, "llvm.fabs.f32", f32, [f32]), [fy]), i32))
put(b.bitcast(b.call(intrinsic(m, "llvm.minnum.f32", f32, [f32, f32]), [fx, fy]), i32))
put(b.bitcast(b.call(intrinsic(m, "llvm.maxnum.f32", f32, [f32, f32]), [fx, fy]), i32))
# 64-bit arithmetic
X = b.sext(x, i64)
Y = b.zext(y, i64)
Ys = b.select(nz, Y, c64(1))
o64 = b.gep(out64, [b.mul(b.sext(gid, i64), c64(4))])
b.store(b.sdiv(b.mul(X, c64(0x100000001)), Ys), o64)
b.store(b.urem(b.shl(X, c64(17)), Ys), b.gep(o64, [c64(1)]))
b.store(b.call(intrinsic(m, "llvm.ctpop.i64", i64, [i64]), [b.xor(X, Y)]), b.gep(o64, [c64(2)]))
b.store(b.ashr(b.mul(X, Y), b.and_(Y, c64(63))), b.gep(o64, [c64(3)]))
b.branch(ex)
ir.IRBuilder(ex).ret_void()

emit(m)

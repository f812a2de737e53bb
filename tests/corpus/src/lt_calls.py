"""Calls generated from LLVM IR: a recursive device function, a callee with
several return points, and indirect calls through a function pointer chosen
at run time (lowered to call ... with a .callprototype)."""
from ltcommon import *

m = new_module("calls")

# int fact_mod(int n): recursive.
fact = device(m, "fact_mod", i32, [i32])
(nn,) = fact.args
nn.name = "n"
e = fact.append_basic_block("entry")
base = fact.append_basic_block("base")
rec = fact.append_basic_block("rec")
b = ir.IRBuilder(e)
b.cbranch(b.icmp_signed("<=", nn, c32(1)), base, rec)
ir.IRBuilder(base).ret(c32(1))
b.position_at_end(rec)
sub = b.call(fact, [b.sub(nn, c32(1))], name="sub")
b.ret(b.urem(b.mul(sub, nn), c32(1000003)))

# Unary ops used through a function pointer.
ops = []
for name, fn in [("twice", lambda bb, a: bb.shl(a, c32(1))),
                 ("inc", lambda bb, a: bb.add(a, c32(1))),
                 ("negate", lambda bb, a: bb.neg(a)),
                 ("square", lambda bb, a: bb.mul(a, a))]:
    f = device(m, name, i32, [i32])
    bb = ir.IRBuilder(f.append_basic_block("entry"))
    bb.ret(fn(bb, f.args[0]))
    ops.append(f)

# int clamp_step(int x): several early returns.
cs = device(m, "clamp_step", i32, [i32, i32])
x, lim = cs.args
x.name, lim.name = "x", "lim"
e = cs.append_basic_block("entry")
neg = cs.append_basic_block("neg")
chk = cs.append_basic_block("chk")
big = cs.append_basic_block("big")
mid = cs.append_basic_block("mid")
b = ir.IRBuilder(e)
b.cbranch(b.icmp_signed("<", x, c32(0)), neg, chk)
ir.IRBuilder(neg).ret(c32(0))
b.position_at_end(chk)
b.cbranch(b.icmp_signed(">", x, lim), big, mid)
ir.IRBuilder(big).ret(lim)
bm = ir.IRBuilder(mid)
bm.ret(bm.add(x, c32(1)))

fty = ir.FunctionType(i32, [i32])
k = kernel(m, "calls_kernel", [gptr(i32), gptr(i32), gptr(i32), i32])
inp, sel, out, n = k.args
inp.name, sel.name, out.name, n.name = "inp", "sel", "out", "n"
e = k.append_basic_block("entry")
work = k.append_basic_block("work")
ex = k.append_basic_block("exit")
b = ir.IRBuilder(e)
gid = global_tid(b, m)
b.cbranch(b.icmp_signed(">=", gid, n), ex, work)
b.position_at_end(work)
v = b.load(b.gep(inp, [gid]), name="v")
s = b.and_(b.load(b.gep(sel, [gid])), c32(3), name="s")
p = ops[3]
for idx in (2, 1, 0):
    p = b.select(b.icmp_unsigned("==", s, c32(idx)), ops[idx], p)
r1 = b.call(p, [v], name="r1")
# second indirect call with a different selector
q = b.select(b.icmp_signed("<", v, c32(0)), ops[2], ops[1])
r2 = b.call(q, [r1], name="r2")
r3 = b.call(fact, [b.and_(v, c32(15))], name="r3")
r4 = b.call(cs, [b.add(r2, r3), c32(1 << 20)], name="r4")
b.store(r4, b.gep(out, [gid]))
b.branch(ex)
ir.IRBuilder(ex).ret_void()

emit(m)

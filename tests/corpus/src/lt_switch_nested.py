"""Nested dense switches inside a device function called from a kernel.

`classify` (a .func) switches on the low 3 bits and, in two arms, switches
again on the next bits; the kernel also switches on blockIdx.x % 6 to pick
an output slot, so brx.idx appears in both .func and .entry bodies.
"""
from ltcommon import *

m = new_module("switch_nested")
cls = device(m, "classify", i32, [i32])
(v,) = cls.args
v.name = "v"

entry = cls.append_basic_block("entry")
b = ir.IRBuilder(entry)
lo = b.and_(v, c32(7), name="lo")
mid = b.and_(b.lshr(v, c32(3)), c32(7), name="mid")
dflt = cls.append_basic_block("dflt")
sw = b.switch(lo, dflt)
ir.IRBuilder(dflt).ret(c32(-1))
for k in range(7):
    blk = cls.append_basic_block("lo%d" % k)
    sw.add_case(c32(k), blk)
    bb = ir.IRBuilder(blk)
    if k in (2, 5):
        inner_dflt = cls.append_basic_block("lo%d_dflt" % k)
        isw = bb.switch(mid, inner_dflt)
        db = ir.IRBuilder(inner_dflt)
        db.ret(db.add(v, c32(1000 * k)))
        for j in range(6):
            iblk = cls.append_basic_block("lo%d_mid%d" % (k, j))
            isw.add_case(c32(j), iblk)
            ib = ir.IRBuilder(iblk)
            if j % 2:
                ib.ret(ib.mul(v, c32(j + k)))
            else:
                ib.ret(ib.xor(v, c32((j + 1) * 0x111 + k)))
    elif k == 6:
        # a loop inside one arm
        loopb = cls.append_basic_block("lo6_loop")
        endb = cls.append_basic_block("lo6_end")
        bb.branch(loopb)
        lb = ir.IRBuilder(loopb)
        it = lb.phi(i32, name="it")
        acc = lb.phi(i32, name="acc6")
        nacc = lb.add(lb.mul(acc, c32(3)), it)
        nit = lb.add(it, c32(1))
        lb.cbranch(lb.icmp_unsigned("<", nit, mid), loopb, endb)
        it.add_incoming(c32(0), blk)
        it.add_incoming(nit, loopb)
        acc.add_incoming(v, blk)
        acc.add_incoming(nacc, loopb)
        ir.IRBuilder(endb).ret(nacc)
    else:
        bb.ret(bb.add(bb.shl(v, c32(k)), c32(k)))

kern = kernel(m, "nested_switch_kernel", [gptr(i32), gptr(i32), i32])
inp, out, n = kern.args
inp.name, out.name, n.name = "inp", "out", "n"
e = kern.append_basic_block("entry")
work = kern.append_basic_block("work")
store = kern.append_basic_block("store")
ex = kern.append_basic_block("exit")
b = ir.IRBuilder(e)
gid = global_tid(b, m)
b.cbranch(b.icmp_signed(">=", gid, n), ex, work)
b.position_at_end(work)
r = b.call(cls, [b.load(b.gep(inp, [gid]))], name="r")
sel = b.urem(sreg(b, m, "ctaid.x"), c32(6), name="sel")
sw = b.switch(sel, store)
phi_vals = []
for k in range(6):
    blk = kern.append_basic_block("slot%d" % k)
    sw.add_case(c32(k), blk)
    bb = ir.IRBuilder(blk)
    phi_vals.append((bb.add(r, c32(k * 17 + 1)) if k % 2 else bb.sub(r, c32(k * 5 + 2)), blk))
    bb.branch(store)
b.position_at_end(store)
val = b.phi(i32, name="val")
val.add_incoming(r, work)
for vv, blk in phi_vals:
    val.add_incoming(vv, blk)
b.store(val, b.gep(out, [gid]))
b.branch(ex)
b.position_at_end(ex)
b.ret_void()

emit(m)

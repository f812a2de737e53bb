"""Bytecode interpreter kernel: a loop around a dense 12-way switch.

Each arm updates the accumulator differently, so the switch cannot become a
lookup table; the NVPTX back end lowers it to .branchtargets + brx.idx.
"""
from ltcommon import *

m = new_module("switch_interp")
k = kernel(m, "interp_kernel", [gptr(i32), gptr(i32), gptr(i32), i32, i32])
code, inputs, outputs, ncode, n = k.args
for a, nm in zip(k.args, ["code", "inputs", "outputs", "ncode", "n"]):
    a.name = nm

entry = k.append_basic_block("entry")
body = k.append_basic_block("body")
loop = k.append_basic_block("loop")
dispatch = k.append_basic_block("dispatch")
latch = k.append_basic_block("latch")
done = k.append_basic_block("done")
exit_ = k.append_basic_block("exit")

b = ir.IRBuilder(entry)
gid = global_tid(b, m)
b.cbranch(b.icmp_signed(">=", gid, n), exit_, body)

b.position_at_end(body)
x0 = b.load(b.gep(inputs, [gid]), name="x0")
b.branch(loop)

b.position_at_end(loop)
pc = b.phi(i32, name="pc")
acc = b.phi(i32, name="acc")
b.cbranch(b.icmp_signed("<", pc, ncode), dispatch, done)

b.position_at_end(dispatch)
ins = b.load(b.gep(code, [pc]), name="ins")
op = b.and_(ins, c32(0xF), name="op")
imm = b.ashr(ins, c32(4), name="imm")
default = k.append_basic_block("op_default")
sw = b.switch(op, default)

results = []
ops = [
    ("add", lambda bb: bb.add(acc, imm)),
    ("sub", lambda bb: bb.sub(acc, imm)),
    ("mul", lambda bb: bb.mul(acc, imm)),
    ("xor", lambda bb: bb.xor(acc, imm)),
    ("and", lambda bb: bb.and_(acc, imm)),
    ("or", lambda bb: bb.or_(acc, imm)),
    ("shl", lambda bb: bb.shl(acc, bb.and_(imm, c32(31)))),
    ("lshr", lambda bb: bb.lshr(acc, bb.and_(imm, c32(31)))),
    ("ashr", lambda bb: bb.ashr(acc, bb.and_(imm, c32(31)))),
    ("neg", lambda bb: bb.neg(acc)),
    ("addx", lambda bb: bb.add(acc, x0)),
    ("sq", lambda bb: bb.mul(acc, acc)),
]
for idx, (nm, fn) in enumerate(ops):
    blk = k.append_basic_block("op_" + nm)
    sw.add_case(c32(idx), blk)
    bb = ir.IRBuilder(blk)
    results.append((fn(bb), blk))
    bb.branch(latch)

bb = ir.IRBuilder(default)
# unknown opcode: stop interpreting
bb.branch(done)

b.position_at_end(latch)
nacc = b.phi(i32, name="nacc")
for v, blk in results:
    nacc.add_incoming(v, blk)
npc = b.add(pc, c32(1), name="npc")
b.branch(loop)

pc.add_incoming(c32(0), body)
pc.add_incoming(npc, latch)
acc.add_incoming(x0, body)
acc.add_incoming(nacc, latch)

b.position_at_end(done)
fin = b.phi(i32, name="fin")
fin.add_incoming(acc, loop)
fin.add_incoming(acc, default)
b.store(fin, b.gep(outputs, [gid]))
b.branch(exit_)

b.position_at_end(exit_)
b.ret_void()

emit(m)

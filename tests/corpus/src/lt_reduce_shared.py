"""Shared-memory tree reduction with barriers and atomics, written directly
in LLVM IR: a __shared__ array in addrspace(3), llvm.nvvm.barrier0 inside a
loop, atomicrmw on shared and global memory, and a grid-stride phi loop.
"""
from ltcommon import *

BLOCK = 256
m = new_module("reduce_shared")
sdata = ir.GlobalVariable(m, ir.ArrayType(f32, BLOCK), "sdata", addrspace=3)
sdata.linkage = "internal"
sdata.initializer = ir.Constant(ir.ArrayType(f32, BLOCK), None)
sdata.align = 4
scount = ir.GlobalVariable(m, i32, "nonzero_count", addrspace=3)
scount.linkage = "internal"
scount.initializer = ir.Constant(i32, None)

k = kernel(m, "block_reduce", [gptr(f32), gptr(f32), gptr(i32), i32])
inp, total, nz, n = k.args
inp.name, total.name, nz.name, n.name = "inp", "total", "nonzero", "n"

entry = k.append_basic_block("entry")
gloop = k.append_basic_block("grid_loop")
gbody = k.append_basic_block("grid_body")
gdone = k.append_basic_block("grid_done")
tloop = k.append_basic_block("tree_loop")
tadd = k.append_basic_block("tree_add")
tsync = k.append_basic_block("tree_sync")
tdone = k.append_basic_block("tree_done")
leader = k.append_basic_block("leader")
exit_ = k.append_basic_block("exit")

b = ir.IRBuilder(entry)
tid = sreg(b, m, "tid.x")
gid = global_tid(b, m)
stride = b.mul(sreg(b, m, "ntid.x"), sreg(b, m, "nctaid.x"), name="stride")
zero_first = b.icmp_unsigned("==", tid, c32(0))
with b.if_then(zero_first):
    b.store(c32(0), scount)
barrier(b, m)
pre = b.block
b.branch(gloop)

b.position_at_end(gloop)
i = b.phi(i32, name="i")
acc = b.phi(f32, name="acc")
b.cbranch(b.icmp_signed("<", i, n), gbody, gdone)

b.position_at_end(gbody)
x = b.load(b.gep(inp, [i]), name="x")
isnz = b.fcmp_unordered("!=", x, ir.Constant(f32, 0.0), name="isnz")
with b.if_then(isnz):
    b.atomic_rmw("add", scount, c32(1), "monotonic")
nacc = b.fadd(acc, x, name="nacc")
ni = b.add(i, stride, name="ni")
latch = b.block
b.branch(gloop)
i.add_incoming(gid, pre)
i.add_incoming(ni, latch)
acc.add_incoming(ir.Constant(f32, 0.0), pre)
acc.add_incoming(nacc, latch)

b.position_at_end(gdone)
slot = b.gep(sdata, [c32(0), tid], name="slot")
b.store(acc, slot)
barrier(b, m)
b.branch(tloop)

b.position_at_end(tloop)
s_ = b.phi(i32, name="s")
s_.add_incoming(c32(BLOCK // 2), gdone)
b.cbranch(b.icmp_unsigned(">", s_, c32(0)), tadd, tdone)

b.position_at_end(tadd)
active = b.icmp_unsigned("<", tid, s_)
with b.if_then(active):
    other = b.load(b.gep(sdata, [c32(0), b.add(tid, s_)]))
    mine = b.load(slot)
    b.store(b.fadd(mine, other), slot)
b.branch(tsync)

b.position_at_end(tsync)
barrier(b, m)
ns = b.lshr(s_, c32(1), name="ns")
s_.add_incoming(ns, tsync)
b.branch(tloop)

b.position_at_end(tdone)
b.cbranch(zero_first, leader, exit_)

b.position_at_end(leader)
blocksum = b.load(b.gep(sdata, [c32(0), c32(0)]), name="blocksum")
b.atomic_rmw("fadd", total, blocksum, "monotonic")
b.atomic_rmw("add", nz, b.load(scount), "monotonic")
b.branch(exit_)

b.position_at_end(exit_)
b.ret_void()

emit(m)

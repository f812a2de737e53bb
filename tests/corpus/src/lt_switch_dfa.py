"""Finite-state machine kernel: an 8-state DFA over a byte string.

The state transition is a dense switch on the current state inside a loop;
each state inspects the next byte differently (nested compares), giving
brx.idx with divergent successors.
"""
from ltcommon import *

m = new_module("switch_dfa")
k = kernel(m, "dfa_kernel", [gptr(i8), gptr(i32), gptr(i32), i32, i32])
text, starts, out, seglen, n = k.args
for a, nm in zip(k.args, ["text", "starts", "out", "seglen", "n"]):
    a.name = nm

entry = k.append_basic_block("entry")
body = k.append_basic_block("body")
loop = k.append_basic_block("loop")
step = k.append_basic_block("step")
nextb = k.append_basic_block("next")
done = k.append_basic_block("done")
exit_ = k.append_basic_block("exit")

b = ir.IRBuilder(entry)
gid = global_tid(b, m)
b.cbranch(b.icmp_signed(">=", gid, n), exit_, body)

b.position_at_end(body)
start = b.load(b.gep(starts, [gid]), name="start")
b.branch(loop)

b.position_at_end(loop)
i = b.phi(i32, name="i")
state = b.phi(i32, name="state")
count = b.phi(i32, name="count")
b.cbranch(b.icmp_signed("<", i, seglen), step, done)

b.position_at_end(step)
ch8 = b.load(b.gep(text, [b.add(start, i)]), name="ch8")
ch = b.zext(ch8, i32, name="ch")
reject = k.append_basic_block("reject")
sw = b.switch(state, reject)

incoming = []  # (new_state, new_count, block)


def arm(idx, fn):
    blk = k.append_basic_block("s%d" % idx)
    sw.add_case(c32(idx), blk)
    bb = ir.IRBuilder(blk)
    ns, nc = fn(bb)
    incoming.append((ns, nc, bb.block))
    bb.branch(nextb)


def is_digit(bb):
    return bb.and_(bb.icmp_unsigned(">=", ch, c32(48)), bb.icmp_unsigned("<=", ch, c32(57)))


def is_alpha(bb):
    lo = bb.or_(ch, c32(32))
    return bb.and_(bb.icmp_unsigned(">=", lo, c32(97)), bb.icmp_unsigned("<=", lo, c32(122)))


# 0: start, 1: in number, 2: in identifier, 3: after '-', 4: float fraction,
# 5: in string, 6: escape in string, 7: comment
def start_state(bb):
    s = bb.select(bb.icmp_unsigned("==", ch, c32(35)), c32(7), c32(0))
    s = bb.select(bb.icmp_unsigned("==", ch, c32(34)), c32(5), s)
    s = bb.select(bb.icmp_unsigned("==", ch, c32(45)), c32(3), s)
    s = bb.select(is_alpha(bb), c32(2), s)
    s = bb.select(is_digit(bb), c32(1), s)
    return s, count


arm(0, start_state)
arm(1, lambda bb: (bb.select(is_digit(bb), c32(1), bb.select(bb.icmp_unsigned("==", ch, c32(46)), c32(4), c32(0))),
                   bb.add(count, bb.zext(bb.not_(is_digit(bb)), i32))))
arm(2, lambda bb: (bb.select(bb.or_(is_alpha(bb), is_digit(bb)), c32(2), c32(0)),
                   bb.add(count, bb.zext(bb.not_(bb.or_(is_alpha(bb), is_digit(bb))), i32))))
arm(3, lambda bb: (bb.select(is_digit(bb), c32(1), c32(0)), bb.add(count, c32(1))))
arm(4, lambda bb: (bb.select(is_digit(bb), c32(4), c32(0)), bb.add(count, bb.zext(bb.not_(is_digit(bb)), i32))))
arm(5, lambda bb: (bb.select(bb.icmp_unsigned("==", ch, c32(92)), c32(6),
                   bb.select(bb.icmp_unsigned("==", ch, c32(34)), c32(0), c32(5))),
                   bb.add(count, bb.zext(bb.icmp_unsigned("==", ch, c32(34)), i32))))
arm(6, lambda bb: (c32(5), count))
arm(7, lambda bb: (bb.select(bb.icmp_unsigned("==", ch, c32(10)), c32(0), c32(7)), count))

bb = ir.IRBuilder(reject)
bb.branch(done)

b.position_at_end(nextb)
ns = b.phi(i32, name="ns")
nc = b.phi(i32, name="nc")
for s, c, blk in incoming:
    ns.add_incoming(s, blk)
    nc.add_incoming(c, blk)
ni = b.add(i, c32(1), name="ni")
b.branch(loop)

i.add_incoming(c32(0), body)
i.add_incoming(ni, nextb)
state.add_incoming(c32(0), body)
state.add_incoming(ns, nextb)
count.add_incoming(c32(0), body)
count.add_incoming(nc, nextb)

b.position_at_end(done)
res = b.phi(i32, name="res")
res.add_incoming(count, loop)
res.add_incoming(c32(-1), reject)
b.store(res, b.gep(out, [gid]))
b.branch(exit_)

b.position_at_end(exit_)
b.ret_void()

emit(m)

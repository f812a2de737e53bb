//! The registers a kernel's warps need not zero when they enter it: those
//! its entry code writes before anything reads them, and those no path
//! reads before writing them.
//!
//! A kernel frame's registers start at zero. The straight run of
//! unguarded lane-wise instructions at the start of a kernel (up to the
//! first branch, call, barrier, cross-lane or unlisted instruction) is the
//! first thing every lane executes; a register it writes before reading
//! holds the written value in every lane by the time anything can read it,
//! so zeroing it first is wasted work. In a kernel whose instructions are
//! all plain ones (lane-wise data flow, loads, stores, atomics, branches
//! and loops, barriers, `shfl`; no calls), a backward liveness pass, to a
//! fixpoint, finds every register that each lane writes before it reads
//! it on every path (`dead_at_entry`); a value `shfl` reads from other
//! lanes is zeroed anyway (a lane that does not execute the `shfl` is
//! read too).
//! Only used for a whole warp (all 32 lanes threads) in stack mode, where
//! the warp runs that code together; every other register starts at zero.

use crate::program::{AddrBase, Dst, Function, Op, Src};

/// `keep[r]`: register `r` is written by the entry code before any read.
pub(crate) fn written_first(f: &Function) -> Vec<bool> {
    let n = f.num_regs as usize;
    let mut keep = vec![false; n];
    let mut read = vec![false; n];
    for ins in &f.code {
        if ins.guard.is_some() {
            break;
        }
        let (srcs, dst): (Vec<&Src>, Option<u32>) = match &ins.op {
            Op::Mov { d, a, .. } | Op::IUn { d, a, .. } | Op::FUn { d, a, .. } | Op::Cvt { d, a, .. } | Op::Cvta { d, a, .. } => (vec![a], Some(*d)),
            Op::IBin { d, a, b, .. } | Op::FBin { d, a, b, .. } => (vec![a, b], Some(*d)),
            Op::Mad { d, a, b, c, .. } | Op::Fma { d, a, b, c, .. } | Op::Bfe { d, a, b, c, .. } | Op::Prmt { d, a, b, c } | Op::Slct { d, a, b, c, .. } => {
                (vec![a, b, c], Some(*d))
            }
            Op::Setp { a, b, .. } => (vec![a, b], None),
            Op::Ld { ds, addr, .. } if ds.len() == 1 => {
                if let AddrBase::Reg(r) = addr.base {
                    note_read(r, &keep, &mut read);
                }
                (vec![], ds[0])
            }
            _ => break,
        };
        for s in srcs {
            if let Src::Reg(r) = s {
                note_read(*r, &keep, &mut read);
            }
        }
        if let Some(d) = dst {
            let d = d as usize;
            if d < n && !read[d] {
                keep[d] = true;
            }
        }
    }
    keep
}

/// Register `r` is read: before any write unless `keep` says it was written.
fn note_read(r: u32, keep: &[bool], read: &mut [bool]) {
    if let (Some(x), Some(k)) = (read.get_mut(r as usize), keep.get(r as usize)) {
        *x |= !*k;
    }
}

/// `keep[r]`: register `r` of kernel `f` needs no zeroing when a whole
/// warp enters `f` in stack mode: the entry code writes it first
/// ([`written_first`]), or no path through `f` reads it before writing it
/// ([`dead_at_entry`]).
pub(crate) fn entry_keep(f: &Function) -> Vec<bool> {
    let mut keep = written_first(f);
    if let Some(dead) = dead_at_entry(f) {
        for (k, d) in keep.iter_mut().zip(dead) {
            *k |= d;
        }
    }
    keep
}

/// Where control goes after an instruction.
enum Flow {
    Next,
    Jump(u32),
    End,
}

/// The registers `op` reads (`reads`) and writes whole (`writes`, every
/// lane it runs for), and where control goes after it; `None` for an
/// instruction outside this list (calls, barriers, cross-lane operations,
/// partial writes, ...).
fn regs_of(op: &Op, reads: &mut Vec<u32>, writes: &mut Vec<u32>) -> Option<Flow> {
    let mut src = |s: &Src| {
        if let Src::Reg(r) = s {
            reads.push(*r);
        }
    };
    match op {
        Op::Nop | Op::Fence => {}
        Op::Mov { d, a, .. } | Op::IUn { d, a, .. } | Op::FUn { d, a, .. } | Op::Cvt { d, a, .. } | Op::Cvta { d, a, .. } => {
            src(a);
            writes.push(*d);
        }
        Op::IBin { d, a, b, .. } | Op::FBin { d, a, b, .. } | Op::Selp { d, a, b, .. } => {
            src(a);
            src(b);
            writes.push(*d);
        }
        Op::Mad { d, a, b, c, .. } | Op::Fma { d, a, b, c, .. } | Op::Bfe { d, a, b, c, .. } | Op::Prmt { d, a, b, c } | Op::Slct { d, a, b, c, .. } => {
            src(a);
            src(b);
            src(c);
            writes.push(*d);
        }
        Op::Setp { a, b, .. } => {
            src(a);
            src(b);
        }
        Op::Ld { ds, addr, .. } => {
            if let AddrBase::Reg(r) = addr.base {
                src(&Src::Reg(r));
            }
            writes.extend(ds.iter().flatten());
        }
        Op::St { srcs, addr, .. } => {
            if let AddrBase::Reg(r) = addr.base {
                src(&Src::Reg(r));
            }
            for s in srcs {
                src(s);
            }
        }
        // A barrier's operands, and `bar.red`'s result in every lane of
        // the group.
        Op::Bar { id, count, d, .. } => {
            src(id);
            if let Some(c) = count {
                src(c);
            }
            if let Some(Dst::Reg(r)) = d {
                writes.push(*r);
            }
        }
        // The value read from another lane (`a`) is a read in this lane
        // too (the other lane executes the same `shfl`); a lane that does
        // not (exited, or outside the group) is read anyway, so
        // `dead_at_entry` zeroes every `a` (deterministic bits where the
        // manual leaves them undefined).
        Op::Shfl { d, a, b, c, membermask, .. } => {
            src(a);
            src(b);
            src(c);
            src(membermask);
            writes.push(*d);
        }
        Op::Atom { d, addr, b, c, .. } => {
            if let AddrBase::Reg(r) = addr.base {
                src(&Src::Reg(r));
            }
            src(b);
            src(c);
            writes.extend(d);
        }
        Op::Activemask { d } => writes.push(*d),
        Op::PredLogic { .. } => {}
        Op::Testp { a, .. } => src(a),
        Op::Set { d, a, b, .. } | Op::Bits { d, a, b, .. } => {
            src(a);
            src(b);
            if let Op::Bits { c, .. } = op {
                src(c);
            }
            writes.push(*d);
        }
        Op::Bfi { d, f, b, c, e, .. } => {
            for s in [f, b, c, e] {
                src(s);
            }
            writes.push(*d);
        }
        Op::Pack { d, parts, .. } => {
            parts.iter().for_each(&mut src);
            writes.push(*d);
        }
        Op::Unpack { ds, a, .. } => {
            src(a);
            writes.extend(ds.iter().flatten());
        }
        Op::Bra { target, .. } => return Some(Flow::Jump(*target)),
        Op::Ret { .. } | Op::Exit => return Some(Flow::End),
        _ => return None,
    }
    Some(Flow::Next)
}

/// The registers `op` reads and those it writes in every lane it runs
/// for, for the instructions [`regs_of`] lists (`None` for the others:
/// calls, partial writes, ...). A `shfl`'s source counts as read by the
/// lane (it also reads other lanes' copies).
pub fn op_registers(op: &Op) -> Option<(Vec<u32>, Vec<u32>)> {
    let (mut reads, mut writes) = (Vec::new(), Vec::new());
    regs_of(op, &mut reads, &mut writes)?;
    Some((reads, writes))
}

/// `dead[r]`: no path from the entry of `f` reads register `r` before an
/// unguarded instruction writes it (backward liveness to a fixpoint: `r`
/// is not live at the entry), and no `shfl` reads it from another lane.
/// Computed only for a function whose instructions are all in
/// [`regs_of`]'s list, and whose liveness settles within [`MAX_PASSES`]
/// backward passes; `None` otherwise.
///
/// Each lane runs its own path through such a function, reading its own
/// registers only, so a lane never sees a register it did not write
/// first, whatever the register held before.
pub(crate) fn dead_at_entry(f: &Function) -> Option<Vec<bool>> {
    let n = f.num_regs as usize;
    let words = n.div_ceil(64).max(1);
    let len = f.code.len();
    // The live sets before each instruction (and past the end: none).
    if len.saturating_mul(words) > 1 << 22 {
        return None;
    }
    // Each instruction's reads and whole writes, and where it goes.
    let mut effects = Vec::with_capacity(len);
    let mut cross = vec![false; n];
    for ins in &f.code {
        let (mut reads, mut writes) = (Vec::new(), Vec::new());
        let flow = regs_of(&ins.op, &mut reads, &mut writes)?;
        if let Op::Shfl { a: Src::Reg(r), .. } = ins.op {
            *cross.get_mut(r as usize)? = true;
        }
        if reads.iter().any(|&r| r as usize >= n) {
            return None;
        }
        let guarded = ins.guard.is_some();
        let (next, target) = match flow {
            Flow::Next => (true, None),
            Flow::Jump(t) => (guarded, Some(t as usize)),
            Flow::End => (guarded, None),
        };
        if target.is_some_and(|t| t > len) {
            return None;
        }
        effects.push((reads, if guarded { Vec::new() } else { writes }, next, target));
    }
    let mut live = vec![0u64; (len + 1) * words];
    let mut out = vec![0u64; words];
    let mut settled = false;
    for _ in 0..MAX_PASSES {
        let mut changed = false;
        for i in (0..len).rev() {
            let (reads, writes, next, target) = &effects[i];
            out.fill(0);
            if let Some(t) = *target {
                for (o, l) in out.iter_mut().zip(&live[t * words..(t + 1) * words]) {
                    *o |= l;
                }
            }
            if *next {
                for (o, l) in out.iter_mut().zip(&live[(i + 1) * words..(i + 2) * words]) {
                    *o |= l;
                }
            }
            for &d in writes {
                let d = d as usize;
                if d < n {
                    out[d / 64] &= !(1 << (d % 64));
                }
            }
            for &r in reads {
                let r = r as usize;
                out[r / 64] |= 1 << (r % 64);
            }
            let cur = &mut live[i * words..(i + 1) * words];
            if cur != &out[..] {
                cur.copy_from_slice(&out);
                changed = true;
            }
        }
        if !changed {
            settled = true;
            break;
        }
    }
    if !settled {
        return None;
    }
    Some((0..n).map(|r| live[r / 64] >> (r % 64) & 1 == 0 && !cross[r]).collect())
}

/// The most backward passes [`dead_at_entry`] makes (each pass settles
/// one more level of loop nesting, in practice).
const MAX_PASSES: usize = 16;

#[cfg(test)]
mod tests {
    use super::dead_at_entry;
    use crate::program::{Function, Op};
    use crate::{Device, KernelArg, LaunchConfig};

    /// A kernel in which lane `t` of CTA `c` writes `%r3 = c + 100` only
    /// when `(t ^ c) & 1 == 1` (behind a branch, or a guard), then stores
    /// `%r3` for every lane: a lane that skipped the write must store 0,
    /// though the warp that ran the previous CTA on the same worker wrote
    /// `%r3` in exactly those lanes.
    fn one_sided(guarded: bool) -> String {
        let write = if guarded { "@!%p1 add.u32 %r3, %r2, 100;" } else { "@%p1 bra SKIP;\n    add.u32 %r3, %r2, 100;\nSKIP:" };
        format!(
            r#".version 7.0
.target sm_70
.address_size 64
.visible .entry k(.param .u64 out)
{{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    xor.b32 %r5, %r1, %r2;
    and.b32 %r5, %r5, 1;
    setp.eq.u32 %p1, %r5, 0;
    {write}
    add.u32 %r4, %r3, 0;
    mov.u32 %r6, %ntid.x;
    mad.lo.u32 %r7, %r2, %r6, %r1;
    mul.wide.u32 %rd2, %r7, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r4;
    ret;
}}"#
        )
    }

    /// The destination register of the instruction on the source line
    /// holding `text`.
    fn dst_of(src: &str, f: &Function, text: &str) -> usize {
        let line = src.lines().position(|l| l.contains(text)).expect("line") as u32 + 1;
        let ins = f.code.iter().find(|i| i.line == line).expect("instruction");
        match &ins.op {
            Op::IBin { d, .. } | Op::Mov { d, .. } | Op::Shfl { d, .. } => *d as usize,
            op => panic!("unexpected {op:?}"),
        }
    }

    #[test]
    fn registers_written_on_one_path_only_are_zero_on_the_other() {
        for guarded in [false, true] {
            let src = one_sided(guarded);
            let mut dev = Device::new();
            let m = dev.load(&src).expect("load");
            let f = &m.program.functions[m.program.function_by_name("k").expect("k") as usize];
            // The kernel is one the liveness pass covers: %r3 must be
            // zeroed (read before any write on one path), %r4 need not.
            let dead = dead_at_entry(f).expect("no loop, only plain instructions");
            assert!(!dead[dst_of(&src, f, "add.u32 %r3")], "guarded {guarded}: %r3 is read before written");
            assert!(dead[dst_of(&src, f, "add.u32 %r4")], "guarded {guarded}: %r4 is written first on every path");
            let (ctas, block) = (16u32, 64u32);
            let out = dev.alloc((ctas * block * 4) as u64).expect("alloc");
            for threads in [Some(1), Some(2)] {
                let mut cfg = LaunchConfig::new(ctas, block);
                cfg.threads = threads;
                dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(out)]).expect("launch");
                let bytes = dev.read(out, (ctas * block * 4) as u64).expect("read");
                for (i, w) in bytes.chunks(4).enumerate() {
                    let (c, t) = (i as u32 / block, i as u32 % block);
                    let want = if (t ^ c) & 1 == 1 { c + 100 } else { 0 };
                    assert_eq!(u32::from_le_bytes([w[0], w[1], w[2], w[3]]), want, "guarded {guarded}, threads {threads:?}, CTA {c} thread {t}");
                }
            }
        }
    }

    #[test]
    fn liveness_follows_loops_and_zeroes_shuffled_values() {
        let head = ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k(.param .u64 out)\n{\n.reg .pred %p<2>;\n.reg .b32 %r<8>;\n";
        // `dead_at_entry` of kernel `k` of `src`, for the registers the
        // instructions `dsts` write.
        let dead = |src: &str, dsts: &[&str]| {
            let mut dev = Device::new();
            let m = dev.load(src).expect("load");
            let f = &m.program.functions[m.program.function_by_name("k").expect("k") as usize];
            dead_at_entry(f).map(|d| dsts.iter().map(|t| d[dst_of(src, f, t)]).collect::<Vec<bool>>())
        };
        // %r1 is written before the loop; %r2 is read in the first
        // iteration before the loop writes it; %r3 is read first.
        let loop_k = format!("{head}mov.u32 %r1, 0;\nL:\nadd.u32 %r3, %r3, %r2;\nmov.u32 %r2, 5;\nadd.u32 %r1, %r1, 1;\nsetp.lt.u32 %p1, %r1, 4;\n@%p1 bra L;\nret;\n}}");
        let d = dead(&loop_k, &["mov.u32 %r1, 0", "mov.u32 %r2, 5", "add.u32 %r3"]).expect("a loop of listed instructions is analysed");
        assert_eq!(d, [true, false, false], "{loop_k}");
        // The shuffled value is read from other lanes too: zeroed; the
        // result is written first.
        let shfl_k = format!("{head}mov.u32 %r1, %tid.x;\nshfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;\nret;\n}}");
        let d = dead(&shfl_k, &["mov.u32 %r1", "shfl.sync"]).expect("shfl is listed");
        assert_eq!(d, [false, true], "{shfl_k}");
        // An instruction outside the list: no answer.
        let vote_k = format!("{head}mov.u32 %r1, %tid.x;\nsetp.eq.u32 %p1, %r1, 0;\nvote.sync.ballot.b32 %r2, %p1, -1;\nret;\n}}");
        assert!(dead(&vote_k, &[]).is_none(), "{vote_k}");
    }

    /// Registers read before they are written read zero in every CTA, also
    /// when a worker's warps ran another CTA before (with other values).
    #[test]
    fn registers_read_first_are_zero_in_every_cta() {
        let src = r#".version 7.0
.target sm_70
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %ctaid.x;
    add.u32 %r2, %r2, %r1;
    mov.u32 %r3, %tid.x;
    mad.lo.u32 %r4, %r1, 32, %r3;
    add.u32 %r5, %r5, 7;
    add.u32 %r6, %r2, %r5;
    add.u32 %r6, %r6, %r7;
    mul.wide.u32 %rd2, %r4, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r6;
    mov.u32 %r7, 1000;
    mov.u32 %r5, 1000;
    ret;
}"#;
        let mut dev = Device::new();
        let m = dev.load(src).expect("load");
        let out = dev.alloc(64 * 32 * 4).expect("alloc");
        for threads in [Some(1), Some(2)] {
            let mut cfg = LaunchConfig::new(64, 32);
            cfg.threads = threads;
            dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(out)]).expect("launch");
            let bytes = dev.read(out, 64 * 32 * 4).expect("read");
            for (i, w) in bytes.chunks(4).enumerate() {
                let v = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                assert_eq!(v, (i / 32) as u32 + 7, "thread {i}");
            }
        }
    }
}

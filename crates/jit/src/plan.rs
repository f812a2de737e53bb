//! What of a function the tier compiles: for each instruction of the
//! decoded program whether it is compiled (and if not, why, by name), the
//! register classes (a slot read and written only as 32-bit values is
//! `Narrow`, kept as eight i32x4 vectors; one only as 64-bit values is
//! `Wide`, sixteen i64x2 vectors; a slot used both ways makes the
//! instructions that touch it fall back; an unsigned load of up to 4 bytes
//! or a store of up to 4 bytes fits either, and takes the class the slot's
//! other uses give it), the special registers read, and the compiled basic
//! blocks with their entry pcs. Pure analysis of [`ptxsim_exec::program`]
//! data.

use ptxsim_exec::program::{AddrBase, CvtTy, Function, ITyOrF, Op, PSrc, Space, Sreg, Src};
use ptxsim_sem::alu::{FBinOp, FTy, FUnOp, IBinOp, ITy, Rounding};
use std::collections::BTreeMap;

/// The fewest data instructions of a block outside loops that is an entry.
const MIN_ENTRY_BLOCK: usize = 8;

/// The fewest instructions from a side of a branch that can diverge to
/// its reconvergence point for that side to be an entry (outside loops).
const MIN_DIVERGED_RUN: usize = 32;

/// How a register slot lives in compiled code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// 32-bit values (zero-extended in their 64-bit slots): 8 × i32x4.
    Narrow,
    /// 64-bit values: 16 × i64x2.
    Wide,
}

/// A compiled basic block: data instructions `start..term_or_end`, then
/// optionally a compiled `bra` at `term`, then the fall-through pc `next`.
#[derive(Clone, Debug)]
pub struct Block {
    pub start: u32,
    /// One past the last data instruction.
    pub data_end: u32,
    /// The pc of a terminating `bra`.
    pub term: Option<u32>,
    /// Where the block falls through to.
    pub next: u32,
}

/// The compilation plan of a function.
#[derive(Debug, Default)]
pub struct Plan {
    /// Per pc: compiled (a data instruction or a `bra`).
    pub ok: Vec<bool>,
    /// Per pc not compiled: why (the operation's name and what is missing).
    pub skipped: Vec<(u32, String)>,
    pub regs: BTreeMap<u32, Class>,
    pub preds: Vec<u32>,
    /// The special registers compiled code reads.
    pub sregs: Vec<Sreg>,
    pub blocks: Vec<Block>,
    /// Per pc: a block starts there (an entry of the code).
    pub entries: Vec<bool>,
    /// Whether the plan uses `fma` (needs the CPU's FMA).
    pub uses_fma: bool,
    /// Per entry pc: the register slots the code may read there before it
    /// writes them in every lane (the only ones copied in at that entry).
    pub live_in: BTreeMap<u32, Vec<u32>>,
    /// Which registers a thread may still read after each point (`None`:
    /// not analysed, all of them).
    pub live: Option<crate::live::Live>,
    /// The loops run lane by lane in stack mode ([`crate::region`]).
    pub regions: Vec<crate::region::Region>,
    /// The compiled `bra`s whose divergence compiled code runs itself in
    /// stack mode (both sides, in the interpreter's order, each under its
    /// lanes, to the reconvergence point): their pcs; the index of one is
    /// its divergence counter's.
    pub sides: Vec<u32>,
}

/// The class an operand needs: exactly one, or either (the slot's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Want {
    Is(Class),
    Either,
}

/// The register operands of a compiled instruction, with their class and
/// whether they are written, the predicate slots it reads or writes, and
/// the special registers it reads.
pub(crate) struct Uses {
    pub regs: Vec<(u32, Want, bool)>,
    pub preds: Vec<u32>,
    sregs: Vec<Sreg>,
}

impl Uses {
    fn reg(&mut self, r: u32, c: Class, written: bool) {
        self.regs.push((r, Want::Is(c), written));
    }
}

/// The special registers compiled code reads (warp-uniform launch values
/// and `%tid`, `%laneid`): each is a 32-bit value.
pub fn sreg_supported(s: Sreg) -> bool {
    match s {
        Sreg::Tid(d) | Sreg::Ntid(d) | Sreg::Ctaid(d) | Sreg::Nctaid(d) => d < 3,
        Sreg::LaneId => true,
        _ => false,
    }
}

fn src(u: &mut Uses, s: &Src, c: Class) -> Result<(), String> {
    match s {
        Src::Reg(r) => {
            u.reg(*r, c, false);
            Ok(())
        }
        Src::Imm(_) => Ok(()),
        Src::Sreg(sr) if sreg_supported(*sr) => {
            u.sregs.push(*sr);
            Ok(())
        }
        Src::Sreg(sr) => Err(format!("the special register {sr:?}")),
        Src::LocalAddr(_) => Err("a frame-address operand".into()),
    }
}

/// The address operand of a compiled load or store: a 64-bit register
/// (a 32- or 64-bit one for a shared-memory offset) or an absolute address.
fn addr(u: &mut Uses, space: Space, base: AddrBase) -> Result<(), String> {
    match base {
        AddrBase::Reg(r) if matches!(space, Space::Shared | Space::SharedCta) => {
            u.regs.push((r, Want::Either, false));
            Ok(())
        }
        AddrBase::Reg(r) => {
            u.reg(r, Class::Wide, false);
            Ok(())
        }
        AddrBase::None => Ok(()),
        AddrBase::Frame => Err("a frame-relative address".into()),
    }
}

/// Whether the tier compiles a load or store in `space` (the global
/// memory, generic addresses, the CTA's shared memory, the kernel's
/// parameters and the constant bank for loads).
fn mem_space(space: Space, load: bool) -> Result<(), String> {
    match space {
        Space::Global | Space::Generic | Space::Shared | Space::SharedCta => Ok(()),
        Space::KernelParam | Space::Const if load => Ok(()),
        s => Err(format!("{} in the {s:?} space", if load { "loads" } else { "stores" })),
    }
}

fn psrc(u: &mut Uses, p: &PSrc) {
    if let PSrc::Reg { slot, .. } = p {
        u.preds.push(*slot);
    }
}

fn class_of(bits: u32) -> Result<Class, String> {
    match bits {
        32 => Ok(Class::Narrow),
        64 => Ok(Class::Wide),
        b => Err(format!("{b}-bit operands")),
    }
}

fn int_class(ty: ITy) -> Result<Class, String> {
    class_of(ty.bits)
}

/// The operands of `op` if the tier compiles it, else why not.
fn uses(op: &Op, have_fma: bool) -> Result<Uses, String> {
    let mut u = Uses { regs: vec![], preds: vec![], sregs: vec![] };
    let rn = |r: &Option<Rounding>| matches!(r, None | Some(Rounding::Rn));
    match op {
        Op::Mov { d, a, bits } => {
            let c = class_of(*bits)?;
            src(&mut u, a, c)?;
            u.reg(*d, c, true);
        }
        Op::IBin { op, ty, d, a, b, .. } => {
            let c = int_class(*ty)?;
            match op {
                IBinOp::Add | IBinOp::Sub | IBinOp::MulLo | IBinOp::And | IBinOp::Or | IBinOp::Xor => {
                    src(&mut u, a, c)?;
                    src(&mut u, b, c)?;
                    u.reg(*d, c, true);
                }
                IBinOp::Min | IBinOp::Max if c == Class::Narrow => {
                    src(&mut u, a, c)?;
                    src(&mut u, b, c)?;
                    u.reg(*d, c, true);
                }
                IBinOp::Shl | IBinOp::Shr => {
                    if !matches!(b, Src::Imm(_)) {
                        return Err(format!("{op:?} by a register amount"));
                    }
                    src(&mut u, a, c)?;
                    u.reg(*d, c, true);
                }
                IBinOp::MulWide if c == Class::Narrow => {
                    src(&mut u, a, Class::Narrow)?;
                    src(&mut u, b, Class::Narrow)?;
                    u.reg(*d, Class::Wide, true);
                }
                other => return Err(format!("integer {other:?}.{}{}", if ty.signed { "s" } else { "u" }, ty.bits)),
            }
        }
        Op::Mad { hi: false, wide: false, sat: false, ty, d, a, b, c, .. } if ty.bits == 32 => {
            for s in [a, b, c] {
                src(&mut u, s, Class::Narrow)?;
            }
            u.reg(*d, Class::Narrow, true);
        }
        Op::FBin { op, ty: FTy::F32, rnd, d, a, b, .. } if rn(rnd) && matches!(op, FBinOp::Add | FBinOp::Sub | FBinOp::Mul | FBinOp::Min | FBinOp::Max) => {
            src(&mut u, a, Class::Narrow)?;
            src(&mut u, b, Class::Narrow)?;
            u.reg(*d, Class::Narrow, true);
        }
        Op::FUn { op: FUnOp::Neg | FUnOp::Abs, ty: FTy::F32, d, a, .. } => {
            src(&mut u, a, Class::Narrow)?;
            u.reg(*d, Class::Narrow, true);
        }
        // The others run by the helper, lane by lane (`mem::alu`).
        Op::FUn { ty: ty @ (FTy::F32 | FTy::F64), d, a, .. } => helper_fun(&mut u, *ty, *d, a)?,
        Op::Fma { ty: FTy::F32, rnd, d, a, b, c, .. } if rn(rnd) => {
            if !have_fma {
                return Err("fma.f32 without the CPU's FMA".into());
            }
            for s in [a, b, c] {
                src(&mut u, s, Class::Narrow)?;
            }
            u.reg(*d, Class::Narrow, true);
        }
        Op::Setp { ty, p, q, a, b, comb, .. } => {
            if !crate::emit::cmp_supported(op) {
                return Err(format!("setp.{:?}", ty));
            }
            let c = match ty {
                ITyOrF::F(FTy::F32) => Class::Narrow,
                ITyOrF::I(it) => int_class(*it)?,
                ITyOrF::F(f) => return Err(format!("setp.{f:?}")),
            };
            src(&mut u, a, c)?;
            src(&mut u, b, c)?;
            if let Some((_, pc)) = comb {
                psrc(&mut u, pc);
            }
            u.preds.extend(p.iter().chain(q.iter()).copied());
        }
        Op::Selp { bits, d, a, b, c } => {
            let cl = class_of(*bits)?;
            src(&mut u, a, cl)?;
            src(&mut u, b, cl)?;
            psrc(&mut u, c);
            u.reg(*d, cl, true);
        }
        Op::PredLogic { d, a, b, .. } => {
            psrc(&mut u, a);
            psrc(&mut u, b);
            u.preds.push(*d);
        }
        Op::Cvt { dst: CvtTy::I(dt), src: CvtTy::I(st), sat: false, d, a, .. } => {
            // Integer to integer: extended by the source type, cut to the
            // destination.
            let (dc, sc) = (int_class(*dt)?, int_class(*st)?);
            src(&mut u, a, sc)?;
            u.reg(*d, dc, true);
        }
        Op::Cvta { space, bits: 64, d, a, .. } => {
            if !matches!(space, Space::Global | Space::Shared | Space::Local | Space::Const | Space::KernelParam) {
                return Err(format!("cvta of the {space:?} space"));
            }
            src(&mut u, a, Class::Wide)?;
            u.reg(*d, Class::Wide, true);
        }
        Op::Ld { .. } | Op::St { .. } => mem_uses(op, &mut u)?,
        Op::Cvt { dst, src: s, rnd, sat: false, d, a, .. } => {
            let i32ty = |t: &CvtTy| matches!(t, CvtTy::I(ITy { bits: 32, .. }));
            let ok = match (dst, s) {
                (CvtTy::F(FTy::F32), st) if i32ty(st) => rn(rnd),
                (dt, CvtTy::F(FTy::F32)) if i32ty(dt) => matches!(rnd, None | Some(Rounding::Rzi)),
                _ => false,
            };
            if !ok {
                return Err(format!("cvt{}.{dst:?}.{s:?}", rnd.map(|r| format!(".{r:?}")).unwrap_or_default()));
            }
            src(&mut u, a, Class::Narrow)?;
            u.reg(*d, Class::Narrow, true);
        }
        Op::Bra { .. } => {}
        Op::Shfl { .. } => mem_uses(op, &mut u)?,
        other => return Err(op_name(other)),
    }
    Ok(u)
}

/// The operands of a load, store or `shfl` the helper runs.
fn mem_uses(op: &Op, u: &mut Uses) -> Result<(), String> {
    match op {
        Op::Ld { space, size, signed, ds, addr: ad } => {
            mem_space(*space, true)?;
            let [Some(d)] = ds[..] else {
                return Err("a vector ld".into());
            };
            addr(u, *space, ad.base)?;
            // An unsigned value of up to 4 bytes is the same zero-extended
            // in either class; a signed one is sign-extended to 64 bits in
            // its slot, which only a `Wide` register keeps.
            let w = if *size == 8 || *signed { Want::Is(Class::Wide) } else { Want::Either };
            u.regs.push((d, w, true));
        }
        Op::St { space, size, srcs, addr: ad } => {
            mem_space(*space, false)?;
            let [s0] = &srcs[..] else {
                return Err("a vector st".into());
            };
            addr(u, *space, ad.base)?;
            match s0 {
                Src::Reg(r) => u.regs.push((*r, if *size == 8 { Want::Is(Class::Wide) } else { Want::Either }, false)),
                Src::Imm(_) => {}
                _ => return Err("st of a special register or frame address".into()),
            }
        }
        Op::Shfl { d, p, a, b, c, .. } => {
            // By the helper (`mem::shfl`), with the whole warp in the group.
            for s in [a, b, c] {
                match s {
                    Src::Reg(r) => u.reg(*r, Class::Narrow, false),
                    Src::Imm(_) => {}
                    _ => return Err("shfl of a special register".into()),
                }
            }
            u.reg(*d, Class::Narrow, true);
            u.preds.extend(*p);
        }
        _ => return Err(op_name(op)),
    }
    Ok(())
}

/// The registers of a unary float operation the helper runs.
fn helper_fun(u: &mut Uses, ty: FTy, d: u32, a: &Src) -> Result<(), String> {
    let c = if ty == FTy::F32 { Class::Narrow } else { Class::Wide };
    match a {
        Src::Reg(r) => u.reg(*r, c, false),
        Src::Imm(_) => {}
        _ => return Err("a float operation of a special register".into()),
    }
    u.reg(d, c, true);
    Ok(())
}

/// Whether compiled code runs `op` by a call into the helper
/// (`mem::exec`), for the whole warp, outside the chunk loops: loads,
/// stores, `shfl` (whose lanes read each other's registers) and the float
/// operations it does not compile natively.
pub fn by_helper(op: &Op) -> bool {
    match op {
        Op::Ld { .. } | Op::St { .. } | Op::Shfl { .. } => true,
        Op::FUn { op, ty, .. } => !(matches!(op, FUnOp::Neg | FUnOp::Abs) && *ty == FTy::F32),
        _ => false,
    }
}

/// The name of an operation, for what the tier does not compile.
pub fn op_name(op: &Op) -> String {
    let s = format!("{op:?}");
    let end = s.find([' ', '{', '(']).unwrap_or(s.len());
    s[..end].to_string()
}

/// Plans function `f` (`have_fma`: the CPU has FMA).
pub fn plan(f: &Function, have_fma: bool) -> Plan {
    let n = f.code.len();
    let mut p = Plan { ok: vec![false; n], entries: vec![false; n], ..Plan::default() };
    let mut all: Vec<Option<Uses>> = Vec::with_capacity(n);
    // Per slot: the class its exact uses give it (`None`: both), or no
    // entry when only flexible uses touch it (then `Narrow`).
    let mut class: BTreeMap<u32, Option<Class>> = BTreeMap::new();
    for (pc, ins) in f.code.iter().enumerate() {
        match uses(&ins.op, have_fma) {
            Ok(mut u) => {
                if let Some(g) = ins.guard {
                    u.preds.push(g.slot);
                }
                for &(r, w, _) in &u.regs {
                    if let Want::Is(c) = w {
                        let e = class.entry(r).or_insert(Some(c));
                        if *e != Some(c) {
                            *e = None;
                        }
                    }
                }
                p.uses_fma |= matches!(ins.op, Op::Fma { .. });
                all.push(Some(u));
            }
            Err(why) => {
                p.skipped.push((pc as u32, why));
                all.push(None);
            }
        }
    }
    let mut preds = std::collections::BTreeSet::new();
    for (pc, u) in all.iter().enumerate() {
        let Some(u) = u else { continue };
        if let Some(&(r, _, _)) = u.regs.iter().find(|(r, _, _)| class.get(r) == Some(&None)) {
            p.skipped.push((pc as u32, format!("register slot {r} used both as 32-bit and as 64-bit values")));
            continue;
        }
        p.ok[pc] = true;
        for &(r, _, _) in &u.regs {
            p.regs.insert(r, class.get(&r).copied().flatten().unwrap_or(Class::Narrow));
        }
        preds.extend(u.preds.iter().copied());
        for s in &u.sregs {
            if !p.sregs.contains(s) {
                p.sregs.push(*s);
            }
        }
    }
    p.preds = preds.into_iter().collect();
    p.skipped.sort_by_key(|s| s.0);
    blocks(f, &mut p);
    sides(f, &mut p);
    entries(f, &mut p);
    live_in(f, &mut p, &all);
    let effects: Vec<Option<crate::live::Effect>> = all
        .iter()
        .enumerate()
        .map(|(pc, u)| {
            let guarded = f.code[pc].guard.is_some();
            let Some(u) = u.as_ref().filter(|_| p.ok[pc]) else {
                // An instruction the interpreter runs: the registers it
                // reads and writes, where the data path says (else every
                // register is live before it).
                let (reads, writes) = ptxsim_exec::op_registers(&f.code[pc].op)?;
                return Some(crate::live::Effect { reads, kills: if guarded { vec![] } else { writes } });
            };
            Some(crate::live::Effect {
                reads: u.regs.iter().filter(|x| !x.2).map(|x| x.0).collect(),
                kills: if guarded { vec![] } else { u.regs.iter().filter(|x| x.2).map(|x| x.0).collect() },
            })
        })
        .collect();
    // A register `shfl` reads from other lanes is never dead where code
    // leaves: a lane at another pc (independent scheduling) may read it
    // there, so liveness leaves it out (always stored and copied back).
    let cross: std::collections::BTreeSet<u32> = f.code.iter().filter_map(|i| match i.op {
        Op::Shfl { a: Src::Reg(r), .. } => Some(r),
        _ => None,
    }).collect();
    let regs: Vec<u32> = p.regs.keys().copied().filter(|r| !cross.contains(r)).collect();
    p.live = crate::live::Live::new((&f.code, f.is_kernel), &regs, &effects);
    p.regions = crate::region::find(f, &p, &all);
    // A loop's registers other than its temporaries are stored back in
    // every lane of the group, so every entry copies them in.
    for r in &mut p.regions {
        if let Some(live) = &p.live {
            r.temps = r.written.iter().copied().filter(|&x| !live.before(r.head, x) && !live.before(r.exit, x)).collect();
        }
        for l in p.live_in.values_mut() {
            for &x in r.written.iter().filter(|x| !r.temps.contains(x)) {
                if !l.contains(&x) {
                    l.push(x);
                }
            }
        }
    }
    p
}

/// The registers each entry block may read before writing them in every
/// lane, over the compiled blocks (a backward fixpoint): an unguarded
/// write covers every lane of the group; a guarded one covers none.
fn live_in(f: &Function, p: &mut Plan, all: &[Option<Uses>]) {
    use std::collections::BTreeSet;
    let at: BTreeMap<u32, usize> = p.blocks.iter().enumerate().map(|(i, b)| (b.start, i)).collect();
    let mut gen = Vec::new();
    let mut kill = Vec::new();
    let mut succ = Vec::new();
    for b in &p.blocks {
        let (mut g, mut k) = (BTreeSet::new(), BTreeSet::new());
        for pc in b.start..b.data_end {
            let Some(u) = &all[pc as usize] else { continue };
            for &(r, _, w) in &u.regs {
                if !w && !k.contains(&r) {
                    g.insert(r);
                }
            }
            if f.code[pc as usize].guard.is_none() {
                k.extend(u.regs.iter().filter(|x| x.2).map(|x| x.0));
            }
        }
        let mut s: Vec<usize> = at.get(&b.next).copied().into_iter().collect();
        if let Some(t) = b.term {
            if let Op::Bra { target, .. } = f.code[t as usize].op {
                s.extend(at.get(&target).copied());
            }
        }
        gen.push(g);
        kill.push(k);
        succ.push(s);
    }
    let mut live: Vec<BTreeSet<u32>> = gen.clone();
    loop {
        let mut changed = false;
        for i in (0..p.blocks.len()).rev() {
            let mut out = BTreeSet::new();
            for &j in &succ[i] {
                out.extend(live[j].iter().copied());
            }
            for r in out {
                if !kill[i].contains(&r) && live[i].insert(r) {
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    for (b, l) in p.blocks.iter().zip(live) {
        if p.entries[b.start as usize] {
            p.live_in.insert(b.start, l.into_iter().collect());
        }
    }
}

/// The instructions of a function its divergent sides may copy, beyond
/// the function's own: each side is emitted once more, under its lanes,
/// so the code grows by the sides' sizes.
const SIDE_BUDGET: usize = 256;

/// Chooses the branches whose divergence compiled code runs
/// ([`Plan::sides`]): a compiled guarded `bra` (not `.uni`) with a
/// reconvergence point in the function, whose sides reach no loop before
/// that point, while the blocks they reach fit in the budget (twice the
/// function's size plus [`SIDE_BUDGET`]).
fn sides(f: &Function, p: &mut Plan) {
    let at: BTreeMap<u32, usize> = p.blocks.iter().enumerate().map(|(i, b)| (b.start, i)).collect();
    let mut budget = 2 * f.code.len() + SIDE_BUDGET;
    for b in &p.blocks {
        let Some(t) = b.term else { continue };
        let ins = &f.code[t as usize];
        let Op::Bra { target, uni: false } = ins.op else {
            continue;
        };
        let r = f.reconv.get(t as usize).copied().unwrap_or(ptxsim_exec::program::PC_EXIT);
        if ins.guard.is_none() || r as usize >= f.code.len() {
            continue;
        }
        // The blocks the sides reach before `r` (a compiled side ends
        // where it leaves the compiled blocks).
        let mut seen = std::collections::BTreeSet::new();
        let mut todo: Vec<u32> = [target, t + 1].into_iter().filter(|&s| s != r).collect();
        let (mut size, mut cyclic) = (0usize, false);
        while let Some(s) = todo.pop() {
            let Some(&i) = at.get(&s) else { continue };
            if !seen.insert(s) {
                continue;
            }
            let blk = &p.blocks[i];
            size += (blk.next - blk.start) as usize;
            let mut succ = vec![blk.next];
            if let Some(bt) = blk.term {
                if let Op::Bra { target, .. } = f.code[bt as usize].op {
                    succ.push(target);
                    cyclic |= target <= bt;
                }
            }
            cyclic |= s <= t && t < blk.next;
            todo.extend(succ.into_iter().filter(|&x| x != r));
        }
        // Only acyclic sides: a side that loops (back to the branch, or
        // around a loop of its own) diverges again inside, where the code
        // hands back with the side to rebuild, which cost more than it
        // saved (`cargo bench -p ptxsim-jit --bench corpus`).
        if !cyclic && size <= budget {
            budget -= size;
            p.sides.push(t);
        }
    }
}

/// Splits the compiled instructions into basic blocks.
fn blocks(f: &Function, p: &mut Plan) {
    let n = f.code.len();
    let mut leader = vec![false; n + 1];
    leader[0] = true;
    for (pc, ins) in f.code.iter().enumerate() {
        match &ins.op {
            Op::Bra { target, .. } => {
                if let Some(l) = leader.get_mut(*target as usize) {
                    *l = true;
                }
                leader[pc + 1] = true;
            }
            Op::Brx { targets, .. } => {
                for t in targets {
                    if let Some(l) = leader.get_mut(*t as usize) {
                        *l = true;
                    }
                }
                leader[pc + 1] = true;
            }
            _ if !p.ok[pc] => leader[pc + 1] = true,
            _ => {}
        }
    }
    for &r in &f.reconv {
        if let Some(l) = leader.get_mut(r as usize) {
            *l = true;
        }
    }
    for pc in 0..n {
        if p.ok[pc] && (pc == 0 || !p.ok[pc - 1]) {
            leader[pc] = true;
        }
    }
    let is_bra = |pc: usize| matches!(f.code[pc].op, Op::Bra { .. });
    for s in 0..n {
        if !leader[s] || !p.ok[s] {
            continue;
        }
        let mut pc = s;
        while pc < n && p.ok[pc] && !is_bra(pc) && (pc == s || !leader[pc]) {
            pc += 1;
        }
        let data_end = pc as u32;
        let term = if pc < n && p.ok[pc] && is_bra(pc) && (pc == s || !leader[pc]) {
            pc += 1;
            Some(pc as u32 - 1)
        } else {
            None
        };
        p.blocks.push(Block { start: s as u32, data_end, term, next: pc as u32 });
    }
}

/// Marks the blocks that are entries of the code (after [`sides`]).
fn entries(f: &Function, p: &mut Plan) {
    let n = f.code.len();
    // A guarded branch not marked `.uni`.
    let can_diverge = |pc: usize| f.code[pc].guard.is_some() && matches!(f.code[pc].op, Op::Bra { uni: false, .. });
    // The pcs between a backward branch's target and the branch.
    let mut in_loop = vec![false; n];
    for (pc, ins) in f.code.iter().enumerate() {
        if let Op::Bra { target, .. } = ins.op {
            if (target as usize) <= pc {
                in_loop[target as usize..=pc].iter_mut().for_each(|x| *x = true);
            }
        }
    }
    for &Block { start, data_end, term, .. } in &p.blocks {
        let s = start as usize;
        // An entry where compiled code can run long: inside a loop, or a
        // long block of lane-wise code (a short run does not pay for the
        // copy in and out; outside loops, a block with loads and stores ran
        // slower compiled than interpreted: BENCHMARKS.md, vector add).
        // (Loads and stores the code runs inline on dense warps do not
        // count, `emit::inline_mem`, nor those of shared memory, which
        // the helper runs without looking for an allocation.)
        let cheap = |op: &Op| match op {
            Op::Ld { space: Space::KernelParam, addr, .. } => matches!(addr.base, AddrBase::None),
            Op::Ld { space: Space::Shared | Space::SharedCta | Space::Const, .. } | Op::St { space: Space::Shared | Space::SharedCta, .. } => true,
            _ => crate::emit::inline_mem(op, p),
        };
        let mem = (s..data_end as usize).any(|q| matches!(f.code[q].op, Op::Ld { .. } | Op::St { .. }) && !cheap(&f.code[q].op));
        // Nor, outside loops, a block that soon ends at a branch that can
        // diverge: the interpreter reaches it after a divergence has
        // reconverged, and the same data diverges the warp again there.
        // (In stack mode compiled code runs the divergence of a branch in
        // `Plan::sides` itself, so such a block is an entry.)
        let soon_diverges = term.is_some_and(|t| can_diverge(t as usize) && (t as usize - s) < MIN_DIVERGED_RUN && !p.sides.contains(&t));
        p.entries[s] = in_loop[s] || (!mem && !soon_diverges && data_end as usize - s >= MIN_ENTRY_BLOCK);
    }
    // Outside loops, the interpreter reaches a side of a branch that can
    // diverge with part of the warp, which stops at the branch's
    // reconvergence point: a side shorter than `MIN_DIVERGED_RUN` is no
    // entry (copying the registers in and out cost more than it saved:
    // BENCHMARKS.md, Triton's gelu).
    for b in (0..n).filter(|&b| can_diverge(b)) {
        let (Op::Bra { target, .. }, Some(&r)) = (&f.code[b].op, f.reconv.get(b)) else {
            continue;
        };
        for s in [*target as usize, b + 1] {
            if s > b && s < r as usize && (r as usize - s) < MIN_DIVERGED_RUN && !in_loop[s] {
                p.entries[s] = false;
            }
        }
    }
}

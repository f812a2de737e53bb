//! What of a function the tier compiles: for each instruction of the
//! decoded program whether it is compiled (and if not, why, by name), the
//! register classes (a slot read and written only as 32-bit values is
//! `Narrow`, kept as eight i32x4 vectors; one only as 64-bit values is
//! `Wide`, sixteen i64x2 vectors; a slot used both ways makes the
//! instructions that touch it fall back), and the compiled basic blocks
//! with their entry pcs. Pure analysis of [`ptxsim_exec::program`] data.

use ptxsim_exec::program::{CvtTy, Function, ITyOrF, Op, PSrc, Src};
use ptxsim_sem::alu::{FBinOp, FTy, FUnOp, IBinOp, ITy, Rounding};
use std::collections::BTreeMap;

/// The fewest data instructions of a block outside loops that is an entry.
const MIN_ENTRY_BLOCK: usize = 8;

/// How a register slot lives in compiled code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    pub blocks: Vec<Block>,
    /// Per pc: a block starts there (an entry of the code).
    pub entries: Vec<bool>,
    /// Whether the plan uses `fma` (needs the CPU's FMA).
    pub uses_fma: bool,
}

/// The register operands of a compiled instruction, with their class and
/// whether they are written, and the predicate slots it reads or writes.
struct Uses {
    regs: Vec<(u32, Class, bool)>,
    preds: Vec<u32>,
}

fn src(u: &mut Uses, s: &Src, c: Class) -> Result<(), String> {
    match s {
        Src::Reg(r) => {
            u.regs.push((*r, c, false));
            Ok(())
        }
        Src::Imm(_) => Ok(()),
        Src::Sreg(_) => Err("a special-register operand".into()),
        Src::LocalAddr(_) => Err("a frame-address operand".into()),
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
    let mut u = Uses { regs: vec![], preds: vec![] };
    let rn = |r: &Option<Rounding>| matches!(r, None | Some(Rounding::Rn));
    match op {
        Op::Mov { d, a, bits } => {
            let c = class_of(*bits)?;
            src(&mut u, a, c)?;
            u.regs.push((*d, c, true));
        }
        Op::IBin { op, ty, d, a, b, .. } => {
            let c = int_class(*ty)?;
            match op {
                IBinOp::Add | IBinOp::Sub | IBinOp::MulLo | IBinOp::And | IBinOp::Or | IBinOp::Xor => {
                    src(&mut u, a, c)?;
                    src(&mut u, b, c)?;
                    u.regs.push((*d, c, true));
                }
                IBinOp::Min | IBinOp::Max if c == Class::Narrow => {
                    src(&mut u, a, c)?;
                    src(&mut u, b, c)?;
                    u.regs.push((*d, c, true));
                }
                IBinOp::Shl | IBinOp::Shr => {
                    if !matches!(b, Src::Imm(_)) {
                        return Err(format!("{op:?} by a register amount"));
                    }
                    src(&mut u, a, c)?;
                    u.regs.push((*d, c, true));
                }
                IBinOp::MulWide if c == Class::Narrow => {
                    src(&mut u, a, Class::Narrow)?;
                    src(&mut u, b, Class::Narrow)?;
                    u.regs.push((*d, Class::Wide, true));
                }
                other => return Err(format!("integer {other:?}.{}{}", if ty.signed { "s" } else { "u" }, ty.bits)),
            }
        }
        Op::Mad { hi: false, wide: false, sat: false, ty, d, a, b, c, .. } if ty.bits == 32 => {
            for s in [a, b, c] {
                src(&mut u, s, Class::Narrow)?;
            }
            u.regs.push((*d, Class::Narrow, true));
        }
        Op::FBin { op, ty: FTy::F32, rnd, d, a, b, .. } if rn(rnd) && matches!(op, FBinOp::Add | FBinOp::Sub | FBinOp::Mul | FBinOp::Min | FBinOp::Max) => {
            src(&mut u, a, Class::Narrow)?;
            src(&mut u, b, Class::Narrow)?;
            u.regs.push((*d, Class::Narrow, true));
        }
        Op::FUn { op: FUnOp::Neg | FUnOp::Abs, ty: FTy::F32, d, a, .. } => {
            src(&mut u, a, Class::Narrow)?;
            u.regs.push((*d, Class::Narrow, true));
        }
        Op::Fma { ty: FTy::F32, rnd, d, a, b, c, .. } if rn(rnd) => {
            if !have_fma {
                return Err("fma.f32 without the CPU's FMA".into());
            }
            for s in [a, b, c] {
                src(&mut u, s, Class::Narrow)?;
            }
            u.regs.push((*d, Class::Narrow, true));
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
            u.regs.push((*d, cl, true));
        }
        Op::PredLogic { d, a, b, .. } => {
            psrc(&mut u, a);
            psrc(&mut u, b);
            u.preds.push(*d);
        }
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
            u.regs.push((*d, Class::Narrow, true));
        }
        Op::Bra { .. } => {}
        other => return Err(op_name(other)),
    }
    Ok(u)
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
    let mut class: BTreeMap<u32, Option<Class>> = BTreeMap::new();
    for (pc, ins) in f.code.iter().enumerate() {
        match uses(&ins.op, have_fma) {
            Ok(mut u) => {
                if let Some(g) = ins.guard {
                    u.preds.push(g.slot);
                }
                for &(r, c, _) in &u.regs {
                    let e = class.entry(r).or_insert(Some(c));
                    if *e != Some(c) {
                        *e = None;
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
        if let Some(&(r, _, _)) = u.regs.iter().find(|(r, _, _)| class[r].is_none()) {
            p.skipped.push((pc as u32, format!("register slot {r} used both as 32-bit and as 64-bit values")));
            continue;
        }
        p.ok[pc] = true;
        for &(r, c, _) in &u.regs {
            p.regs.insert(r, c);
        }
        preds.extend(u.preds.iter().copied());
    }
    p.preds = preds.into_iter().collect();
    p.skipped.sort_by_key(|s| s.0);
    blocks(f, &mut p);
    p
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
    // The pcs between a backward branch's target and the branch.
    let mut in_loop = vec![false; n];
    for (pc, ins) in f.code.iter().enumerate() {
        if let Op::Bra { target, .. } = ins.op {
            if (target as usize) <= pc {
                in_loop[target as usize..=pc].iter_mut().for_each(|x| *x = true);
            }
        }
    }
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
        // An entry where compiled code can run long: inside a loop, or a
        // long block (a short run does not pay for the copy in and out).
        p.entries[s] = in_loop[s] || data_end as usize - s >= MIN_ENTRY_BLOCK;
    }
}

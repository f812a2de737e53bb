//! The row `multimem` (PTX ISA 9.7.9.27 multimem.ld_reduce, multimem.st,
//! multimem.red; 9.7.9.26 multimem.cp.async.bulk and
//! multimem.cp.reduce.async.bulk): its modifier choices, the operation its
//! fields spell ([`Insn::multimem`]) with the combinations its grammar
//! cannot say, as ptxas 13.5 judges them (`-arch=sm_90a`, and `sm_100a`
//! for the FP8 forms), and their decode tests. The engine does not model
//! multimem addresses (its row says so). The manual's syntax:
//!
//! ```text
//! multimem.ld_reduce{.ldsem}{.scope}{.ss}.op.type            d, [a];    (integer)
//! multimem.ld_reduce{.ldsem}{.scope}{.ss}.op{.acc_prec}{.vec}.type d, [a]; (floating point)
//! multimem.ld_reduce.weak{.ss}.op{.acc_prec}{.vec}.type      d, [a];
//! multimem.st{.stsem}{.scope}{.ss}{.vec}.type                [a], b;
//! multimem.st.weak{.ss}{.vec}.type                           [a], b;
//! multimem.red{.redsem}{.scope}{.ss}.redop{.vec}.redtype     [a], b;
//! multimem.cp.async.bulk.global.shared::cta.bulk_group{.cp_mask} [dst], [src], size{, byteMask};
//! multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.redOp{.noftz}.type [dst], [src], size;
//! .ss     = { .global }
//! .ldsem  = { .weak, .relaxed, .acquire }   .stsem = .redsem = { .relaxed, .release } (+ .weak for st)
//! .scope  = { .cta, .cluster, .gpu, .sys }
//! .op     = { .min, .max, .add, .and, .or, .xor }    .redop = { .add } (floating point)
//! .acc_prec = { .acc::f32, .acc::f16 }     .vec = { .v2, .v4, .v8 }
//! .type   = { .b32, .b64, .u32, .u64, .s32, .s64, .f16, .f16x2, .bf16, .bf16x2, .f32, .f64,
//!             .e5m2, .e5m2x2, .e5m2x4, .e4m3, .e4m3x2, .e4m3x4 }
//! ```
//!
//! What ptxas 13.5 adds to the manual, and [`Insn::multimem`] follows:
//! the operation is the first modifier (`.cp{.reduce}.async.bulk` in that
//! order); each operation takes the type and operation pairs listed at
//! [`Multimem::op_fits`]; a floating-point vector is 32, 64 or 128 bits
//! wide (`.f16`/`.bf16` and the FP8 types need a vector; `.f64` and the
//! integer types take none); `.acc::f32` goes with the 16-bit types and
//! `.acc::f16` with FP8 on `ld_reduce`, while `st`, `red` and the copies
//! accept (and ignore) either; `red` takes no FP8 type.

use super::{field_spans, Insn, Misfit};
use ptxsim_syntax::ast::{Instruction, ScalarType};
use ptxsim_syntax::Span;

crate::choices! {
    /// The operation of a `multimem` (its first modifier).
    pub enum MultimemOp "multimem operation" { LdReduce = ".ld_reduce", St = ".st", Red = ".red", Cp = ".cp" }
    /// The memory ordering of `multimem.ld_reduce`, `st` and `red`.
    pub enum MultimemSem "memory ordering" { Weak = ".weak", Relaxed = ".relaxed", Acquire = ".acquire", Release = ".release" }
    /// The scope of a `multimem`'s ordering.
    pub enum MultimemScope "scope" { Cta = ".cta", Cluster = ".cluster", Gpu = ".gpu", Sys = ".sys" }
    /// The state spaces a `multimem` may name (`.global` for the data
    /// operations; `.global.shared::cta` for the copies; `.shared` is
    /// decoded so that the rule can say it is not one).
    pub enum MultimemSpace "state space" { Global = ".global", SharedCta = ".shared::cta", Shared = ".shared" }
    /// The reduction operation (`.op`, `.redop`, `.redOp`).
    pub enum MultimemRedOp "reduction operation" { Add = ".add", Min = ".min", Max = ".max", And = ".and", Or = ".or", Xor = ".xor", Inc = ".inc", Dec = ".dec" }
    /// `ld_reduce`'s accumulation precision.
    pub enum MultimemAcc "accumulation precision" { F32 = ".acc::f32", F16 = ".acc::f16" }
    /// The vector of a floating-point `multimem`.
    pub enum MultimemVec "vector" { V2 = ".v2", V4 = ".v4", V8 = ".v8" }
    /// The four-element FP8 types, which are no scalar type of their own.
    pub enum MultimemFp8x4 "packed FP8 type" { E4m3x4 = ".e4m3x4", E5m2x4 = ".e5m2x4" }
}

/// The spellings of the flag modifiers of the copy forms (a rule that
/// points at one finds it by these).
pub mod multimem_spelling {
    pub const REDUCE: &str = ".reduce";
    pub const ASYNC: &str = ".async";
    pub const BULK: &str = ".bulk";
    pub const BULK_GROUP: &str = ".bulk_group";
    pub const CP_MASK: &str = ".cp_mask";
    pub const NOFTZ: &str = ".noftz";
}
use multimem_spelling::*;

impl MultimemVec {
    /// The number of elements.
    pub fn count(self) -> u32 {
        match self {
            MultimemVec::V2 => 2,
            MultimemVec::V4 => 4,
            MultimemVec::V8 => 8,
        }
    }
}

/// The element type of a `multimem`: a scalar type, or a four-element FP8
/// one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MultimemType {
    Scalar(ScalarType),
    Fp8x4(MultimemFp8x4),
}

impl MultimemType {
    /// Its width in bits.
    pub fn bits(self) -> u32 {
        match self {
            MultimemType::Scalar(t) => t.bits(),
            MultimemType::Fp8x4(_) => 32,
        }
    }
    /// As written.
    pub fn as_str(self) -> &'static str {
        match self {
            MultimemType::Scalar(t) => t.as_str(),
            MultimemType::Fp8x4(t) => t.as_str(),
        }
    }
    /// An integer or bit-size type (no vector, no accumulation precision).
    pub fn integer(self) -> bool {
        use ScalarType::*;
        matches!(self, MultimemType::Scalar(B32 | B64 | U32 | U64 | S32 | S64))
    }
    /// An FP8 type (`.e4m3`, `.e5m2` and their x2 and x4 forms): sm_100's
    /// arch- or family-specific targets, PTX 8.6.
    pub fn fp8(self) -> bool {
        use ScalarType::*;
        matches!(self, MultimemType::Fp8x4(_) | MultimemType::Scalar(E4m3 | E5m2 | E4m3x2 | E5m2x2))
    }
    /// A 16-bit floating-point type, alone or in pairs (`.acc::f32`'s).
    pub fn half(self) -> bool {
        use ScalarType::*;
        matches!(self, MultimemType::Scalar(F16 | Bf16 | F16x2 | Bf16x2))
    }
    /// The register type an operand element of this type is checked
    /// against: the type itself, or the bit-size type of its width for FP8.
    pub fn register(self) -> ScalarType {
        use ScalarType::*;
        match self {
            MultimemType::Scalar(E4m3 | E5m2) => B8,
            MultimemType::Scalar(E4m3x2 | E5m2x2) => B16,
            MultimemType::Scalar(t) => t,
            MultimemType::Fp8x4(_) => B32,
        }
    }
}

/// Which `multimem` operation, with what the rule needs of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MultimemKind {
    /// `multimem.ld_reduce`: `d, [a]`.
    LdReduce,
    /// `multimem.st`: `[a], b`.
    St,
    /// `multimem.red`: `[a], b`.
    Red,
    /// `multimem.cp.async.bulk`: `[dst], [src], size{, byteMask}`.
    CpBulk,
    /// `multimem.cp.reduce.async.bulk`: `[dst], [src], size`.
    CpReduceBulk,
}

impl MultimemKind {
    /// The instruction's name, as ptxas writes it in messages.
    pub fn name(self) -> &'static str {
        match self {
            MultimemKind::LdReduce => "multimem.ld_reduce",
            MultimemKind::St => "multimem.st",
            MultimemKind::Red => "multimem.red",
            MultimemKind::CpBulk => "multimem.cp.async.bulk",
            MultimemKind::CpReduceBulk => "multimem.cp.reduce.async.bulk",
        }
    }
}

/// A `multimem` as its fields spell it, once the combinations are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Multimem {
    pub kind: MultimemKind,
    pub sem: Option<MultimemSem>,
    pub scope: Option<MultimemScope>,
    /// `.global` written (else generic addressing; the copies always have it).
    pub global: bool,
    pub op: Option<MultimemRedOp>,
    pub acc: Option<MultimemAcc>,
    pub vec: Option<MultimemVec>,
    /// `None` for `multimem.cp.async.bulk` only.
    pub ty: Option<MultimemType>,
    pub cp_mask: bool,
    pub noftz: bool,
}

impl Multimem {
    /// The number of elements of the data operand (1 without a vector).
    pub fn count(&self) -> usize {
        self.vec.map_or(1, |v| v.count() as usize)
    }

    /// Whether operation `op` takes type `t` in `kind` (ptxas 13.5:
    /// "Incorrect type '.b32' for operation '.min' in instruction
    /// 'multimem.ld_reduce'"): `.and`/`.or`/`.xor` the bit-size types;
    /// `.min`/`.max` the signed and unsigned types and the 16-bit and FP8
    /// floating-point ones (`red` takes `.f16x2`/`.bf16x2` only in a
    /// vector, as ptxas 13.5 does); `.add` `.u32`, `.s32`, `.u64`
    /// and every floating-point type; `.inc`/`.dec` `.u32` (the copy only).
    pub fn op_fits(kind: MultimemKind, op: MultimemRedOp, t: MultimemType, vector: bool) -> bool {
        use MultimemRedOp::*;
        use ScalarType::*;
        let MultimemType::Scalar(s) = t else { return kind == MultimemKind::LdReduce && matches!(op, Add | Min | Max) };
        let cp = kind == MultimemKind::CpReduceBulk;
        let ld = kind == MultimemKind::LdReduce;
        match op {
            And | Or | Xor => matches!(s, B32 | B64),
            Min | Max => matches!(s, U32 | S32 | U64 | S64 | F16 | Bf16) || (ld && t.fp8()) || (matches!(s, F16x2 | Bf16x2) && (ld || (kind == MultimemKind::Red && vector))),
            Add => matches!(s, U32 | S32 | U64 | F32 | F64 | F16 | Bf16) || (!cp && matches!(s, F16x2 | Bf16x2)) || (ld && t.fp8()),
            Inc | Dec => cp && s == U32,
        }
    }
}

impl Insn {
    /// The `multimem` this instruction is, or the rule of PTX ISA 9.7.9.26
    /// and 9.7.9.27 it breaks, as ptxas 13.5 judges it (each case below is
    /// one of its verdicts, its message quoted); `None` for another row.
    pub fn multimem(&self) -> Option<Result<Multimem, Misfit>> {
        let Insn::Multimem { op, reduce, is_async, bulk, sem, scope, space, group, cp_mask, redop, noftz, acc, vec, x4, ty } = *self else { return None };
        let no = |modifier: &'static str, why: String| Some(Err(Misfit { modifier, why }));
        let kind = match op {
            MultimemOp::Cp if !(is_async && bulk) => {
                // ptxas: "Not a name of any known instruction: 'multimem'".
                return no(op.as_str(), "`multimem.cp` is `multimem.cp.async.bulk` or `multimem.cp.reduce.async.bulk`".into());
            }
            MultimemOp::Cp if reduce => MultimemKind::CpReduceBulk,
            MultimemOp::Cp => MultimemKind::CpBulk,
            MultimemOp::LdReduce => MultimemKind::LdReduce,
            MultimemOp::St => MultimemKind::St,
            MultimemOp::Red => MultimemKind::Red,
        };
        let name = kind.name();
        let cp = matches!(kind, MultimemKind::CpBulk | MultimemKind::CpReduceBulk);
        // ptxas: "Illegal modifier '.async' for instruction 'multimem.ld_reduce'".
        if !cp {
            for (on, m) in [(reduce, REDUCE), (is_async, ASYNC), (bulk, BULK), (group, BULK_GROUP), (cp_mask, CP_MASK), (noftz, NOFTZ)] {
                if on {
                    return no(m, format!("`{m}` is not a modifier of `{name}`"));
                }
            }
        }
        let ty = match (ty, x4) {
            (Some(_), Some(x)) => return no(x.as_str(), format!("`{name}` takes one type")),
            (Some(t), None) => Some(MultimemType::Scalar(t)),
            (None, Some(x)) => Some(MultimemType::Fp8x4(x)),
            (None, None) => None,
        };
        if cp {
            if let Some(s) = sem.map(|s| s.as_str()).or(scope.map(|s| s.as_str())) {
                // ptxas 13.5: "Feature 'multimem.cp.async.bulk.gpu' requires PTX ISA .version 9.3".
                return no(s, format!("`{s}` on `{name}` is a PTX ISA 9.3 form ptxsim does not check yet (the manual's 9.1 form has no ordering)"));
            }
            if space != [Some(MultimemSpace::Global), Some(MultimemSpace::SharedCta)] {
                let m = match space {
                    [Some(s), _] if s != MultimemSpace::Global => s.as_str(),
                    [_, Some(s)] => s.as_str(),
                    _ => "",
                };
                return no(m, format!("`{name}` copies `.global.shared::cta`: the destination in global memory, the source in the CTA's shared memory"));
            }
            if !group {
                return no("", format!("`{name}` completes by bulk async-group: `.bulk_group` is required"));
            }
            // `.acc::f32`/`.acc::f16` are accepted (and ignored) by ptxas 13.5, as on `st` and `red`.
            if let Some(v) = vec {
                // ptxas: "Vector qualifier is not allowed for instruction".
                return no(v.as_str(), format!("`{name}` takes no vector"));
            }
            if kind == MultimemKind::CpBulk {
                if let Some(o) = redop {
                    return no(o.as_str(), format!("`{}` is not a modifier of `{name}`", o.as_str()));
                }
                if noftz {
                    return no(NOFTZ, format!("`.noftz` is not a modifier of `{name}`"));
                }
                if let Some(t) = ty {
                    return no(t.as_str(), format!("`{name}` takes no type"));
                }
                return Some(Ok(Multimem { kind, sem: None, scope: None, global: true, op: None, acc: None, vec: None, ty: None, cp_mask, noftz: false }));
            }
            if cp_mask {
                return no(CP_MASK, format!("`.cp_mask` is not a modifier of `{name}`"));
            }
        } else if let Some(m) = access_misfit(name, kind, space, (sem, scope)) {
            return Some(Err(m));
        }
        let Some(t) = ty else {
            // ptxas: "Unexpected instruction types specified for 'multimem.ld_reduce'".
            return no("", format!("`{name}` needs a type"));
        };
        match (kind, redop) {
            // ptxas: "Illegal modifier '.add' for instruction 'multimem.st'".
            (MultimemKind::St, Some(o)) => return no(o.as_str(), format!("`{name}` takes no reduction operation; `{}` is one", o.as_str())),
            (MultimemKind::St, None) => {}
            // ptxas: "Reduction operation is required for instruction 'multimem.red'".
            (_, None) => return no("", format!("`{name}` needs a reduction operation")),
            // ptxas: "Illegal reduction operation for instruction 'multimem.ld_reduce'".
            (MultimemKind::LdReduce | MultimemKind::Red, Some(o @ (MultimemRedOp::Inc | MultimemRedOp::Dec))) => {
                return no(o.as_str(), format!("`{}` is not a reduction operation of `{name}`", o.as_str()));
            }
            _ => {}
        }
        use ScalarType::*;
        // The types of each operation (ptxas: "Unexpected instruction types specified").
        let type_ok = match (kind, t) {
            (_, MultimemType::Scalar(F16x2 | Bf16x2)) if kind == MultimemKind::CpReduceBulk => false,
            (MultimemKind::CpReduceBulk, MultimemType::Scalar(s)) => matches!(s, B32 | B64 | U32 | S32 | U64 | S64 | F16 | Bf16 | F32 | F64),
            (MultimemKind::Red, _) if t.fp8() => false,
            (_, MultimemType::Scalar(s)) => matches!(s, B32 | B64 | U32 | S32 | U64 | S64 | F16 | Bf16 | F16x2 | Bf16x2 | F32 | F64 | E4m3 | E5m2 | E4m3x2 | E5m2x2),
            (_, MultimemType::Fp8x4(_)) => kind != MultimemKind::CpReduceBulk,
        };
        if !type_ok {
            return no(t.as_str(), format!("`{name}` does not take `{}`", t.as_str()));
        }
        if let Some(o) = redop {
            if !Multimem::op_fits(kind, o, t, vec.is_some()) {
                return no(t.as_str(), format!("`{name}`: `{}` does not take the type `{}`", o.as_str(), t.as_str()));
            }
        }
        if kind == MultimemKind::CpReduceBulk {
            let half = matches!(t, MultimemType::Scalar(F16 | Bf16));
            if half && redop == Some(MultimemRedOp::Add) && !noftz {
                // ptxas: "Modifier '.noftz' required for instruction 'multimem.cp.reduce.async.bulk' with type '.f16' and operation '.add'".
                return no("", format!("`{name}.add` on `{}` needs `.noftz`", t.as_str()));
            }
            if noftz && !(half && redop == Some(MultimemRedOp::Add)) {
                // `.noftz` with `.f32` is a PTX ISA 9.4 form (ptxas 13.5).
                return no(NOFTZ, format!("`.noftz` on `{name}` goes with `.add` on `.f16` or `.bf16` (ptxsim does not check PTX ISA 9.4's `.f32` form yet)"));
            }
            return Some(Ok(Multimem { kind, sem: None, scope: None, global: true, op: redop, acc: None, vec: None, ty: Some(t), cp_mask: false, noftz }));
        }
        if let Some(m) = data_misfit(name, kind, t, (vec, acc)) {
            return Some(Err(m));
        }
        let global = space[0].is_some();
        Some(Ok(Multimem { kind, sem, scope, global, op: redop, acc, vec, ty: Some(t), cp_mask: false, noftz: false }))
    }
}

/// The state spaces and memory ordering of `multimem.ld_reduce`, `.st` and
/// `.red` (PTX ISA 9.7.9.26), as ptxas 13.5 judges them.
fn access_misfit(name: &'static str, kind: MultimemKind, space: [Option<MultimemSpace>; 2], (sem, scope): (Option<MultimemSem>, Option<MultimemScope>)) -> Option<Misfit> {
    let bad = |modifier: &'static str, why: String| Some(Misfit { modifier, why });
    if let Some(s) = space[1] {
        // ptxas: "Unexpected number of state spaces specified in instruction".
        return bad(s.as_str(), format!("`{name}` takes one state space; `{}` is a second one", s.as_str()));
    }
    if let Some(s) = space[0].filter(|s| *s != MultimemSpace::Global) {
        // ptxas: "State space incorrect for instruction 'multimem.ld_reduce'".
        return bad(s.as_str(), format!("`{name}` addresses `.global` memory (or generic memory without a state space), not `{}`", s.as_str()));
    }
    use MultimemSem::*;
    if let Some(s) = sem {
        let ok = match kind {
            MultimemKind::LdReduce => matches!(s, Weak | Relaxed | Acquire),
            MultimemKind::St => matches!(s, Weak | Relaxed | Release),
            _ => matches!(s, Relaxed | Release),
        };
        if !ok {
            // ptxas: "Illegal modifier '.release' for instruction 'multimem.ld_reduce'".
            return bad(s.as_str(), format!("`{}` is not a memory ordering of `{name}`", s.as_str()));
        }
    }
    match (sem, scope) {
        // ptxas: "Modifier '.weak' cannot be combined with modifier '.gpu'".
        (Some(Weak), Some(sc)) => return bad(sc.as_str(), format!("`.weak` cannot be combined with the scope `{}`", sc.as_str())),
        // ptxas: "Modifier '.relaxed' requires scope with 'multimem.ld_reduce' instruction".
        (Some(s), None) if s != Weak => return bad(s.as_str(), format!("`{}` on `{name}` needs a scope (`.cta`, `.cluster`, `.gpu` or `.sys`)", s.as_str())),
        // ptxas: "Modifier '.gpu' requires order with 'multimem.ld_reduce' instruction".
        (None, Some(sc)) => return bad(sc.as_str(), format!("the scope `{}` on `{name}` needs a memory ordering", sc.as_str())),
        _ => {}
    }
    None
}

/// The data width and accumulator of `multimem.ld_reduce`, `.st` and
/// `.red` of type `t` (PTX ISA 9.7.9.26), as ptxas 13.5 judges them.
fn data_misfit(name: &'static str, kind: MultimemKind, t: MultimemType, (vec, acc): (Option<MultimemVec>, Option<MultimemAcc>)) -> Option<Misfit> {
    use ScalarType::*;
    let bad = |modifier: &'static str, why: String| Some(Misfit { modifier, why });
    if let Some(v) = vec {
        if t.integer() {
            // ptxas: "Vector qualifier is not allowed for instruction 'multimem.ld_reduce'".
            return bad(v.as_str(), format!("`{name}` on an integer type takes no vector"));
        }
    }
    let width = t.bits() * vec.map_or(1, |v| v.count());
    let f64_vec = t == MultimemType::Scalar(F64) && vec.is_some();
    if !t.integer() && (f64_vec || !matches!(width, 32 | 64 | 128)) {
        // ptxas: "Inconsistent type '.f32' with vector .v8", or
        // "Unexpected instruction types" for a lone `.f16`.
        let at = vec.map_or(t.as_str(), |v| v.as_str());
        return bad(at, format!("`{name}`: a floating-point `{}`{} is {width} bits; the data must be 32, 64 or 128 bits wide (`.f64` without a vector)", t.as_str(), vec.map_or(String::new(), |v| format!(" `{}`", v.as_str()))));
    }
    if let (MultimemKind::LdReduce, Some(a)) = (kind, acc) {
        let fits = match a {
            MultimemAcc::F32 => t.half(),
            MultimemAcc::F16 => t.fp8(),
        };
        if !fits {
            // ptxas: "Illegal modifier '.acc::f32' for instruction 'multimem.ld_reduce' with type '.f32'".
            return bad(a.as_str(), format!("`{}` does not go with `{}` on `{name}` (`.acc::f32` with the 16-bit types, `.acc::f16` with FP8)", a.as_str(), t.as_str()));
        }
    }
    None
}

/// What a written `multimem` breaks that its fields cannot show: the
/// operation (`.ld_reduce`, `.st`, `.red`, `.cp{.reduce}.async.bulk`) is
/// not first, in order (ptxas 13.5: "Unknown modifier '.ld_reduce'" for
/// `multimem.global.ld_reduce`, "Unknown modifier '.reduce'" for
/// `multimem.cp.async.reduce.bulk`), or a modifier is written twice
/// ("Duplicate .relaxed modifier", "Multiple scope modifiers specified",
/// "Multiple vector modifiers specified", "Multiple instruction
/// post-operation flags set"); the span of the modifier at fault and why.
/// `None` when `i` is fine or is not a `multimem` whose modifiers decode.
pub fn multimem_layout(i: &Instruction<'_>) -> Option<(Span, String)> {
    let Ok(Insn::Multimem { op, reduce, .. }) = super::decode(i) else { return None };
    let spans = field_spans(i);
    let lead: &[&str] = match op {
        MultimemOp::Cp if reduce => &[".cp", REDUCE, ASYNC, BULK],
        MultimemOp::Cp => &[".cp", ASYNC, BULK],
        _ => &[""],
    };
    for (k, want) in lead.iter().enumerate() {
        let m = i.modifiers.get(k)?;
        let fits = if k == 0 { m.text == op.as_str() } else { m.text == *want };
        if !fits {
            let what = if k == 0 { op.as_str() } else { want };
            return Some((m.span, format!("the operation comes first in `multimem`, in order: `{what}` is expected where `{}` stands", m.text)));
        }
    }
    for (k, (f, s)) in spans.iter().enumerate() {
        if *f != "space" && *f != "ty" && spans[..k].iter().any(|(g, _)| g == f) {
            let m = i.modifiers.iter().find(|m| m.span.same_as(*s)).map_or("", |m| m.text);
            return Some((*s, format!("`multimem` takes `{m}` once (its {f})")));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::insn::tests::{dec, first_instruction};
    use crate::DecodeErrorKind as K;

    fn mm(t: &str) -> Result<Multimem, Misfit> {
        dec(t).unwrap_or_else(|e| panic!("{t}: {e:?}")).multimem().expect("a multimem")
    }
    fn misfit(t: &str) -> Option<&'static str> {
        mm(t).err().map(|m| m.modifier)
    }
    fn layout(t: &str) -> Option<String> {
        let src = format!(".version 8.0\n.target sm_80\n.entry k() {{ {t}; }}");
        let parsed = ptxsim_syntax::parse(&src);
        multimem_layout(first_instruction(&parsed.module)).map(|(s, _)| src[s.start as usize..s.end as usize].to_string())
    }

    #[test]
    fn every_operation_decodes() {
        let m = mm("multimem.ld_reduce.relaxed.sys.global.add.acc::f32.v4.f16x2 {%r1, %r2, %r3, %r4}, [%rd1]").unwrap();
        assert_eq!((m.kind, m.sem, m.scope, m.global, m.op, m.acc, m.vec), (MultimemKind::LdReduce, Some(MultimemSem::Relaxed), Some(MultimemScope::Sys), true, Some(MultimemRedOp::Add), Some(MultimemAcc::F32), Some(MultimemVec::V4)));
        assert_eq!(m.ty, Some(MultimemType::Scalar(ScalarType::F16x2)));
        assert_eq!(mm("multimem.st.weak.v2.f32 [%rd1], {%f1, %f2}").map(|m| (m.kind, m.global, m.count())), Ok((MultimemKind::St, false, 2)));
        assert_eq!(mm("multimem.red.release.gpu.global.add.u64 [%rd1], %rd2").map(|m| m.kind), Ok(MultimemKind::Red));
        assert_eq!(mm("multimem.ld_reduce.global.min.e4m3x4 %r1, [%rd1]").map(|m| m.ty), Ok(Some(MultimemType::Fp8x4(MultimemFp8x4::E4m3x4))));
        assert_eq!(mm("multimem.cp.async.bulk.global.shared::cta.bulk_group.cp_mask [%rd1], [%rd2], 16, %rs1").map(|m| (m.kind, m.cp_mask)), Ok((MultimemKind::CpBulk, true)));
        assert_eq!(mm("multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.bf16 [%rd1], [%rd2], 16").map(|m| (m.kind, m.noftz)), Ok((MultimemKind::CpReduceBulk, true)));
    }

    /// ptxas 13.5 (`-arch=sm_90a`, `sm_100a` for FP8) verdicts.
    #[test]
    fn misfits_are_the_forms_ptxas_refuses() {
        for ok in [
            "multimem.ld_reduce.add.u32 %r1, [%rd1]",
            "multimem.ld_reduce.weak.global.min.s64 %rd1, [%rd2]",
            "multimem.ld_reduce.acquire.cta.global.max.v8.bf16 {%rs1, %rs2, %rs3, %rs4, %rs5, %rs6, %rs7, %rs8}, [%rd1]",
            "multimem.ld_reduce.global.add.acc::f16.v2.e5m2x2 {%rs1, %rs2}, [%rd1]",
            "multimem.st.relaxed.cluster.global.e4m3x4 [%rd1], %r1",
            "multimem.st.global.acc::f32.f32 [%rd1], %f1",
            "multimem.red.global.min.v2.f16 [%rd1], {%rs1, %rs2}",
            "multimem.red.global.xor.b64 [%rd1], %rd2",
            "multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.inc.u32 [%rd1], [%rd2], 16",
        ] {
            assert_eq!(misfit(ok), None, "{ok}");
        }
        let refused = [
            // "Incorrect type '.b32' for operation '.min'".
            ("multimem.ld_reduce.global.min.b32 %r1, [%rd1]", ".b32"),
            ("multimem.ld_reduce.global.add.s64 %rd1, [%rd2]", ".s64"),
            ("multimem.ld_reduce.global.min.f32 %f1, [%rd1]", ".f32"),
            ("multimem.red.global.max.bf16x2 [%rd1], %r1", ".bf16x2"),
            // "Unexpected instruction types specified for 'multimem.ld_reduce'".
            ("multimem.ld_reduce.global.add.f16 %rs1, [%rd1]", ".f16"),
            ("multimem.red.global.add.e4m3x4 [%rd1], %r1", ".e4m3x4"),
            ("multimem.st.global [%rd1], %r1", ""),
            // "Inconsistent type '.f32' with vector .v8".
            ("multimem.st.global.v8.f32 [%rd1], {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}", ".v8"),
            ("multimem.st.global.v2.f64 [%rd1], {%fd1, %fd2}", ".v2"),
            // "Vector qualifier is not allowed for instruction 'multimem.st'".
            ("multimem.st.global.v2.u32 [%rd1], {%r1, %r2}", ".v2"),
            // "Modifier '.relaxed' requires scope", "'.gpu' requires order", "'.weak' cannot be combined with modifier '.gpu'".
            ("multimem.ld_reduce.relaxed.global.add.f32 %f1, [%rd1]", ".relaxed"),
            ("multimem.ld_reduce.gpu.global.add.f32 %f1, [%rd1]", ".gpu"),
            ("multimem.ld_reduce.weak.gpu.global.add.f32 %f1, [%rd1]", ".gpu"),
            // "Illegal modifier '.release' for instruction 'multimem.ld_reduce'", "'.weak' for 'multimem.red'".
            ("multimem.ld_reduce.release.gpu.global.add.f32 %f1, [%rd1]", ".release"),
            ("multimem.red.weak.global.add.f32 [%rd1], %f1", ".weak"),
            // "Illegal modifier '.add' for instruction 'multimem.st'"; "Reduction operation is required".
            ("multimem.st.global.add.f32 [%rd1], %f1", ".add"),
            ("multimem.red.global.f32 [%rd1], %f1", ""),
            ("multimem.ld_reduce.global.inc.u32 %r1, [%rd1]", ".inc"),
            // "Illegal modifier '.acc::f32' ... with type '.f32'".
            ("multimem.ld_reduce.global.add.acc::f32.f32 %f1, [%rd1]", ".acc::f32"),
            ("multimem.ld_reduce.global.add.acc::f16.f16x2 %r1, [%rd1]", ".acc::f16"),
            // "State space incorrect for instruction 'multimem.ld_reduce'".
            ("multimem.ld_reduce.shared.add.f32 %f1, [%rd1]", ".shared"),
            ("multimem.ld_reduce.async.global.add.u32 %r1, [%rd1]", ".async"),
            // ".bulk_group modifier required", "State space incorrect for instruction 'multimem.cp.async.bulk'".
            ("multimem.cp.async.bulk.global.shared::cta [%rd1], [%rd2], 16", ""),
            ("multimem.cp.async.bulk.shared::cta.global.bulk_group [%rd1], [%rd2], 16", ".shared::cta"),
            // "Modifier '.noftz' required ... with type '.f16' and operation '.add'".
            ("multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f16 [%rd1], [%rd2], 16", ""),
            ("multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f16x2 [%rd1], [%rd2], 16", ".f16x2"),
            ("multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.cp_mask.add.u32 [%rd1], [%rd2], 16, %rs1", ".cp_mask"),
        ];
        for (t, at) in refused {
            assert_eq!(misfit(t), Some(at), "{t}");
        }
    }

    #[test]
    fn layout_and_grammar_errors() {
        assert_eq!(layout("multimem.ld_reduce.f32.global.add %f1, [%rd1]"), None);
        assert_eq!(layout("multimem.global.ld_reduce.add.f32 %f1, [%rd1]").as_deref(), Some(".global"));
        assert_eq!(layout("multimem.cp.async.reduce.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%rd2], 16").as_deref(), Some(".async"));
        assert_eq!(layout("multimem.ld_reduce.relaxed.gpu.relaxed.global.add.f32 %f1, [%rd1]").as_deref(), Some(".relaxed"));
        assert_eq!(layout("multimem.ld_reduce.global.add.v4.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1]").as_deref(), Some(".v4"));
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("multimem.ld_reduce.relaxed.gpu.cta.global.add.f32 %f1, [%rd1]"), (K::Conflict { .. }, s) if s == ".cta"));
        assert!(matches!(e("multimem.ld_reduce.global.add.f32.f32 %f1, [%rd1]"), (K::UnexpectedModifier { .. }, s) if s == ".f32"));
        assert!(matches!(e("multimem.ld_reduce.global.L2::cache_hint.add.f32 %f1, [%rd1]"), (K::UnexpectedModifier { .. }, s) if s == ".L2::cache_hint"));
        assert!(matches!(e("multimem.ld_reduce.global.add.u16 %rs1, [%rd1]"), (K::TypeNotAllowed { .. }, s) if s == ".u16"));
        assert!(matches!(e("multimem.global.add.f32 %f1, [%rd1]"), (K::Missing { .. }, _)));
    }
}

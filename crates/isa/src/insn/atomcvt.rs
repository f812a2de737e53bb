//! The modifier choices and combination rules of the data-movement and
//! atomic rows of [`crate::for_each_op!`]: `mov` (PTX ISA 9.7.9.1-2),
//! `cvt` (9.7.9.21), `cvt.pack` (9.7.9.22), `atom` (9.7.13.5), `red`
//! (9.7.13.6) and `red.async` (9.7.13.7): the enums their grammars name,
//! with the manual's spellings, and the part of [`crate::Insn::misfit`]
//! that judges them.

use crate::Misfit;
use ptxsim_syntax::ast::ScalarType;

crate::choices! {
    /// `cvt`'s rounding (PTX ISA 9.7.9.21): the float roundings `.rn .rz
    /// .rm .rp`, `.rna` (to `.tf32`), `.rs` (stochastic, with random bits),
    /// and the integer roundings `.rni .rzi .rmi .rpi`.
    pub enum CvtRnd "rounding" {
        Rn = ".rn", Rz = ".rz", Rm = ".rm", Rp = ".rp", Rna = ".rna", Rs = ".rs",
        Rni = ".rni", Rzi = ".rzi", Rmi = ".rmi", Rpi = ".rpi",
    }
    /// A type `cvt` converts to or from (PTX ISA 9.7.9.21): the scalar
    /// types and the packed narrow float formats (`.f8x2type` `.e4m3x2
    /// .e5m2x2`, `.f6x2type` `.e2m3x2 .e3m2x2`, `.f4x2type` `.e2m1x2`,
    /// `.ue8m0x2`, and the four-element `x4` forms of `cvt.rs`).
    pub enum CvtType "type" {
        U8 = ".u8", U16 = ".u16", U32 = ".u32", U64 = ".u64",
        S8 = ".s8", S16 = ".s16", S32 = ".s32", S64 = ".s64",
        F16 = ".f16", F16x2 = ".f16x2", Bf16 = ".bf16", Bf16x2 = ".bf16x2",
        F32 = ".f32", F64 = ".f64", Tf32 = ".tf32",
        E4m3x2 = ".e4m3x2", E5m2x2 = ".e5m2x2", E2m3x2 = ".e2m3x2", E3m2x2 = ".e3m2x2", E2m1x2 = ".e2m1x2", Ue8m0x2 = ".ue8m0x2",
        E4m3x4 = ".e4m3x4", E5m2x4 = ".e5m2x4", E2m3x4 = ".e2m3x4", E3m2x4 = ".e3m2x4", E2m1x4 = ".e2m1x4",
    }
    /// `cvt.pack`'s converted type (PTX ISA 9.7.9.22): `.u16 .s16`
    /// (`.convertType.s32`) or `.u8 .s8 .u4 .s4 .u2 .s2`
    /// (`.convertType.s32.b32`, merging into `c`).
    pub enum PackType "converted type" { U16 = ".u16", S16 = ".s16", U8 = ".u8", S8 = ".s8", U4 = ".u4", S4 = ".s4", U2 = ".u2", S2 = ".s2" }
    /// The operation of `atom`, `red` and `red.async` (PTX ISA 9.7.13.5-7).
    pub enum AtomOp "operation" {
        And = ".and", Or = ".or", Xor = ".xor", Cas = ".cas", Exch = ".exch",
        Add = ".add", Inc = ".inc", Dec = ".dec", Min = ".min", Max = ".max",
    }
    /// The memory-ordering semantics of an atomic (PTX ISA 8.4, 9.7.13.5).
    pub enum AtomSem "memory order" { Relaxed = ".relaxed", Acquire = ".acquire", Release = ".release", AcqRel = ".acq_rel" }
    /// The scope of an atomic (PTX ISA 8.5).
    pub enum AtomScope "scope" { Cta = ".cta", Cluster = ".cluster", Gpu = ".gpu", Sys = ".sys" }
    /// The state space an atomic names. The manual's are `.global`,
    /// `.shared{::cta, ::cluster}`; the others are decoded so that the
    /// rule names them ("cannot operate on the `.const` state space").
    pub enum AtomSpace "state space" {
        Global = ".global", Shared = ".shared", SharedCta = ".shared::cta", SharedCluster = ".shared::cluster",
        Local = ".local", Const = ".const", Param = ".param",
    }
    /// The vector width of an atomic (PTX ISA 9.7.13.5, sm_90).
    pub enum AtomVec "vector width" { V2 = ".v2", V4 = ".v4", V8 = ".v8" }
}

impl CvtType {
    /// The scalar type this spells, when it is one (the narrow float
    /// formats `.e2m1x2` ... are not).
    pub fn scalar(self) -> Option<ScalarType> {
        ScalarType::from_str(self.as_str())
    }

    /// Whether it is an integer type.
    pub fn is_int(self) -> bool {
        use CvtType::*;
        matches!(self, U8 | U16 | U32 | U64 | S8 | S16 | S32 | S64)
    }

    /// The range of an integer type: (signed, bits).
    pub fn int_range(self) -> Option<(bool, u32)> {
        let t = self.scalar().filter(|_| self.is_int())?;
        Some((matches!(self, CvtType::S8 | CvtType::S16 | CvtType::S32 | CvtType::S64), t.bits()))
    }

    /// Whether it is a scalar float type (`.f16 .bf16 .f32 .f64`).
    pub fn is_float(self) -> bool {
        matches!(self, CvtType::F16 | CvtType::Bf16 | CvtType::F32 | CvtType::F64)
    }

    /// The narrow packed formats (two or four elements below 16 bits).
    pub fn is_narrow(self) -> bool {
        use CvtType::*;
        matches!(self, E4m3x2 | E5m2x2 | E2m3x2 | E3m2x2 | E2m1x2 | Ue8m0x2 | E4m3x4 | E5m2x4 | E2m3x4 | E3m2x4 | E2m1x4)
    }
}

impl Cvt {
    /// How many operands the form takes: `d, a` for the conversions of
    /// one value, `d, a, b` for the packing of two `.f32` (or of a vector
    /// of four, `d, {a, b, e, f}, rbits`), and `d, a, b, rbits` for the
    /// stochastic rounding of two (PTX ISA 9.7.9.21).
    pub fn operands(&self) -> usize {
        use CvtType::*;
        match (self.dtype, self.atype) {
            (F16x2 | Bf16x2, F32) if self.rnd == Some(CvtRnd::Rs) => 4,
            (F16x2 | Bf16x2 | Ue8m0x2, F32) => 3,
            (d, F32) if d.is_narrow() => 3,
            _ => 2,
        }
    }
}

impl CvtRnd {
    /// Whether it is an integer rounding (`.rni .rzi .rmi .rpi`).
    pub fn is_int(self) -> bool {
        matches!(self, CvtRnd::Rni | CvtRnd::Rzi | CvtRnd::Rmi | CvtRnd::Rpi)
    }
}

impl PackType {
    /// Bits per converted value, and whether it is signed.
    pub fn bits_signed(self) -> (u32, bool) {
        use PackType::*;
        match self {
            U16 => (16, false),
            S16 => (16, true),
            U8 => (8, false),
            S8 => (8, true),
            U4 => (4, false),
            S4 => (4, true),
            U2 => (2, false),
            S2 => (2, true),
        }
    }
}

/// The fields of a `cvt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cvt {
    pub rnd: Option<CvtRnd>,
    pub ftz: bool,
    pub sat: bool,
    pub relu: bool,
    pub satfinite: bool,
    /// The result type (`.dtype`).
    pub dtype: CvtType,
    /// The source type (`.atype`).
    pub atype: CvtType,
}

/// The fields of an `atom`, `red` or `red.async`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Atomic {
    /// `red` or `red.async` (no destination).
    pub red: bool,
    /// `red.async`.
    pub is_async: bool,
    pub sem: Option<AtomSem>,
    pub scope: Option<AtomScope>,
    pub space: Option<AtomSpace>,
    pub op: Option<AtomOp>,
    pub vec: Option<AtomVec>,
    pub noftz: bool,
    pub hint: bool,
    /// `red.async`'s `.mbarrier::complete_tx::bytes`.
    pub mbar: bool,
    pub ty: Option<ScalarType>,
}

impl AtomVec {
    /// The number of elements.
    pub fn len(self) -> usize {
        match self {
            AtomVec::V2 => 2,
            AtomVec::V4 => 4,
            AtomVec::V8 => 8,
        }
    }
}

impl crate::Insn {
    /// The fields of a `cvt` whose two types are written; `None` for
    /// another row, or a `cvt` missing a type.
    pub fn cvt(&self) -> Option<Cvt> {
        match *self {
            crate::Insn::Cvt { rnd, ftz, sat, relu, satfinite, types: [Some(dtype), Some(atype)] } => Some(Cvt { rnd, ftz, sat, relu, satfinite, dtype, atype }),
            _ => None,
        }
    }

    /// The fields of an `atom`, `red` or `red.async`; `None` for another row.
    pub fn atomic(&self) -> Option<Atomic> {
        use crate::Insn;
        let none = Atomic { red: false, is_async: false, sem: None, scope: None, space: None, op: None, vec: None, noftz: false, hint: false, mbar: false, ty: None };
        Some(match *self {
            Insn::Atom { sem, scope, space, op, vec, noftz, hint, ty } => Atomic { sem, scope, space, op, vec, noftz, hint, ty, ..none },
            Insn::Red { sem, scope, space, op, vec, noftz, hint, ty } => Atomic { red: true, sem, scope, space, op, vec, noftz, hint, ty, ..none },
            Insn::RedAsync { sem, scope, space, mbar, op, ty, .. } => Atomic { red: true, is_async: true, sem, scope, space, op, mbar, ty, ..none },
            _ => return None,
        })
    }

    /// The combination rule a row of this file breaks, if any (`None`
    /// for every other row); part of [`crate::Insn::misfit`].
    pub(crate) fn atomcvt_misfit(&self) -> Option<Misfit> {
        match *self {
            crate::Insn::Cvt { types: [d, a], .. } => match (d, a, self.cvt()) {
                (Some(_), Some(_), Some(x)) => cvt_misfit(x),
                (None, ..) => Some(Misfit { modifier: "", why: "`cvt` needs a result type and a source type (`cvt.dtype.atype`)".into() }),
                (Some(_), ..) => Some(Misfit { modifier: "", why: "`cvt` needs a source type after the result type (`cvt.dtype.atype`)".into() }),
            },
            crate::Insn::Atom { .. } | crate::Insn::Red { .. } | crate::Insn::RedAsync { .. } => self.atomic().and_then(atomic_misfit),
            crate::Insn::CvtPack { ctype, btype, .. } => {
                // PTX ISA 9.7.9.22: `.u16`/`.s16` take `.s32` sources alone,
                // the narrower types `.s32.b32` (merging into `c`).
                let wide = ctype.bits_signed().0 == 16;
                match (wide, btype) {
                    (true, Some(_)) => Some(Misfit { modifier: ".b32", why: format!("`cvt.pack.sat{}.s32` takes no `.b32`: only the types below 16 bits merge into `c`", ctype.as_str()) }),
                    (false, None) => Some(Misfit { modifier: "", why: format!("`cvt.pack.sat{}` converts `.s32.b32` (`d, a, b, c`): the types below 16 bits merge into `c`", ctype.as_str()) }),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// The rule a `cvt` breaks (PTX ISA 9.7.9.21), as ptxas judges it (12.9
/// for the integer conversions, 13.5 for the rest: `tests/check` and the
/// unit tests below).
fn cvt_misfit(x: Cvt) -> Option<Misfit> {
    use CvtRnd::*;
    use CvtType::*;
    let no = |modifier: &'static str, why: String| Some(Misfit { modifier, why });
    let what = || format!("cvt{}{}", x.dtype.as_str(), x.atype.as_str());
    let scalar = |t: CvtType| t.is_int() || t.is_float();
    if !scalar(x.dtype) || !scalar(x.atype) {
        return packed_misfit(x);
    }
    if x.rnd == Some(Rs) {
        return no(Rs.as_str(), format!("`.rs` (stochastic rounding) is not a rounding of `{}`: it converts `.f32` pairs to `.f16x2`/`.bf16x2` and fours to the 8-bit formats", what()));
    }
    if x.relu || x.satfinite {
        let m = if x.relu { ".relu" } else { ".satfinite" };
        if !(matches!(x.dtype, F16 | Bf16) && x.atype == F32) {
            return no(m, format!("`{m}` applies to `cvt.frnd2.f16.f32` and `cvt.frnd2.bf16.f32` (and the packed forms), not `{}`", what()));
        }
        if x.ftz {
            return no(".ftz", format!("`.ftz` does not combine with `{m}`"));
        }
        if let Some(r) = x.rnd.filter(|r| !matches!(r, Rn | Rz)) {
            return no(r.as_str(), format!("`{}` takes `.rn` or `.rz` with `{m}`", what()));
        }
    }
    // ptxas 13.5 "Arguments mismatch": no conversion between bfloat16 and
    // the 8-bit integers.
    if let Some(t) = [x.dtype, x.atype].into_iter().find(|t| matches!(t, U8 | S8)).filter(|_| x.dtype == Bf16 || x.atype == Bf16) {
        return no(t.as_str(), format!("`{}`: bfloat16 does not convert to or from 8-bit integers", what()));
    }
    let bf16 = x.dtype == Bf16 || x.atype == Bf16;
    if x.sat && bf16 {
        return no(".sat", format!("`.sat` is not a modifier of `{}`", what()));
    }
    if x.ftz && x.dtype != F32 && x.atype != F32 {
        return no(".ftz", format!("`.ftz` applies to conversions from or to `.f32`, not `{}`", what()));
    }
    // Between integer types (ptxas 12.9): no rounding, no `.ftz`, and
    // `.sat` only where a source value can lie outside the result's range.
    if let (Some((ds, db)), Some((ss, sb))) = (x.dtype.int_range(), x.atype.int_range()) {
        if let Some(r) = x.rnd {
            return no(r.as_str(), format!("`{}`: a conversion between integer types has no rounding modifier", r.as_str()));
        }
        if x.ftz {
            return no(".ftz", "`.ftz` does not apply to a conversion between integer types".into());
        }
        let fits = (ss == ds && sb <= db) || (!ss && ds && sb < db);
        if x.sat && fits {
            return no(".sat", format!("`.sat` cannot apply: every `{}` value fits in `{}`", x.atype.as_str(), x.dtype.as_str()));
        }
        return None;
    }
    // PTX ISA 9.7.9.21 "Rounding modifiers": an integer rounding is
    // required from a float to an integer and allowed between floats of
    // one type; a float rounding is required from an integer to a float
    // and from a float to a narrower one (and allowed between `.f16` and
    // `.bf16`); any other rounding is illegal.
    let bits = |t: CvtType| t.scalar().map_or(0, |s| s.bits());
    let (int_rnd, float_rnd) = match (x.dtype.is_int(), x.atype.is_int()) {
        (true, _) => (Need::Required, Need::Illegal),
        (_, true) => (Need::Illegal, Need::Required),
        _ if x.dtype == x.atype => (Need::Allowed, Need::Illegal),
        _ if bits(x.dtype) == bits(x.atype) => (Need::Illegal, Need::Allowed),
        _ if bits(x.dtype) < bits(x.atype) => (Need::Illegal, Need::Required),
        // ptxas 13.5 takes a float rounding from `.bf16` to a wider float.
        _ if x.atype == Bf16 => (Need::Illegal, Need::Allowed),
        _ => (Need::Illegal, Need::Illegal),
    };
    match x.rnd {
        Some(r) if r == Rna || r.is_int() && int_rnd == Need::Illegal || !r.is_int() && float_rnd == Need::Illegal => {
            no(r.as_str(), format!("`{}` is not a rounding of `{}`", r.as_str(), what()))
        }
        None if int_rnd == Need::Required => no("", format!("`{}` needs an integer rounding (`.rni`, `.rzi`, `.rmi`, `.rpi`)", what())),
        None if float_rnd == Need::Required => no("", format!("`{}` needs a rounding (`.rn`, `.rz`, `.rm`, `.rp`)", what())),
        _ => None,
    }
}

/// The rule an `atom`, `red` or `red.async` breaks beyond its operation's
/// types (those are the checker's, `rules/atomic.rs`): PTX ISA
/// 9.7.13.5-7, as ptxas 13.5 judges them.
fn atomic_misfit(x: Atomic) -> Option<Misfit> {
    use ScalarType::*;
    let no = |modifier: &'static str, why: String| Some(Misfit { modifier, why });
    let name = if x.is_async { "red.async" } else if x.red { "red" } else { "atom" };
    let (Some(op), Some(ty)) = (x.op, x.ty) else { return None };
    if x.is_async {
        // `.relaxed.cluster`, `.shared::cluster` or none, and the mbarrier
        // completion, all required.
        if x.sem != Some(AtomSem::Relaxed) {
            return no(x.sem.map_or("", AtomSem::as_str), "`red.async` takes `.relaxed` (with `.cluster` and `.mbarrier::complete_tx::bytes`)".into());
        }
        if x.scope != Some(AtomScope::Cluster) {
            return no(x.scope.map_or("", AtomScope::as_str), "`red.async.relaxed` takes the `.cluster` scope".into());
        }
        if x.space.is_some_and(|s| s != AtomSpace::SharedCluster) {
            return no(x.space.map_or("", AtomSpace::as_str), "`red.async` operates on `.shared::cluster` memory".into());
        }
        if !x.mbar {
            return no("", "`red.async.relaxed.cluster` needs its completion mechanism `.mbarrier::complete_tx::bytes`".into());
        }
        let ok = match op {
            AtomOp::Inc | AtomOp::Dec => ty == U32,
            AtomOp::Min | AtomOp::Max => matches!(ty, U32 | S32),
            AtomOp::Add => matches!(ty, U32 | S32 | U64),
            AtomOp::And | AtomOp::Or | AtomOp::Xor => ty == B32,
            AtomOp::Cas | AtomOp::Exch => false,
        };
        if !ok {
            return no(ty.as_str(), format!("`red.async{}` does not take type `{}`", op.as_str(), ty.as_str()));
        }
        return None;
    }
    // `red` orders as `.relaxed` or `.release` (PTX ISA 9.7.13.6).
    if let Some(s @ (AtomSem::Acquire | AtomSem::AcqRel)) = x.sem.filter(|_| x.red) {
        return no(s.as_str(), format!("`red` takes `.relaxed` or `.release`, not `{}`", s.as_str()));
    }
    let shared = matches!(x.space, Some(AtomSpace::Shared | AtomSpace::SharedCta | AtomSpace::SharedCluster));
    // ptxas 13.5: "Illegal modifier '.L2::cache_hint'" on `.cas`.
    if x.hint && op == AtomOp::Cas {
        return no(".L2::cache_hint", format!("`.L2::cache_hint` is not a modifier of `{name}.cas`"));
    }
    if x.hint && shared {
        return no(".L2::cache_hint", format!("`.L2::cache_hint` applies to `.global` (or generic) addresses, not `{}`", x.space.map_or("", AtomSpace::as_str)));
    }
    // `.noftz` is the half types' `.add`, `.min`, `.max`, and required there.
    let half = matches!(ty, F16 | F16x2 | Bf16 | Bf16x2);
    if x.noftz && !half {
        return no(".noftz", format!("`.noftz` applies to the `.f16` and `.bf16` types, not `{}`", ty.as_str()));
    }
    if half && !x.noftz && matches!(op, AtomOp::Add | AtomOp::Min | AtomOp::Max) {
        return no("", format!("`{name}{}{}` needs `.noftz`", op.as_str(), ty.as_str()));
    }
    match x.vec {
        None if half && matches!(op, AtomOp::Min | AtomOp::Max) => no("", format!("`{name}{}{}` exists in the vector forms only (`.v2`, `.v4`, `.v8`)", op.as_str(), ty.as_str())),
        None => None,
        Some(v) => {
            let m = v.as_str();
            if x.space.is_some_and(|s| s != AtomSpace::Global) {
                return no(x.space.map_or("", AtomSpace::as_str), format!("the vector `{name}` operates on `.global` (or generic) addresses"));
            }
            let ok = match (op, ty) {
                (AtomOp::Add, F32) => v != AtomVec::V8,
                (AtomOp::Add | AtomOp::Min | AtomOp::Max, F16 | Bf16) => true,
                (AtomOp::Add | AtomOp::Min | AtomOp::Max, F16x2 | Bf16x2) => v != AtomVec::V8,
                _ => false,
            };
            if !ok {
                return no(m, format!("`{name}{m}` takes `.add.f32` (`.v2`, `.v4`), and `.add`/`.min`/`.max` on `.f16`/`.bf16` (up to `.v8`) and `.f16x2`/`.bf16x2` (`.v2`, `.v4`)"));
            }
            None
        }
    }
}

/// Whether a kind of rounding is required, allowed or illegal.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Need {
    Required,
    Allowed,
    Illegal,
}

/// The rule a packing or narrow-format `cvt` breaks: the manual's forms
/// (PTX ISA 9.7.9.21), as ptxas 13.5 accepts them on sm_100a.
fn packed_misfit(x: Cvt) -> Option<Misfit> {
    use CvtRnd::*;
    use CvtType::*;
    let no = |modifier: &'static str, why: String| Some(Misfit { modifier, why });
    let what = format!("cvt{}{}", x.dtype.as_str(), x.atype.as_str());
    // (roundings, `.relu` allowed, `.satfinite`: None optional, Some(b) required/forbidden)
    let (rnds, relu, satfinite): (&[CvtRnd], bool, Option<bool>) = match (x.dtype, x.atype) {
        (F16x2 | Bf16x2, F32) => (&[Rn, Rz, Rs], true, None),
        (Tf32, F32) if x.rnd == Some(Rna) => (&[Rna], false, None),
        (Tf32, F32) => (&[Rn, Rz, Rna], true, None),
        (E4m3x2 | E5m2x2 | E2m3x2 | E3m2x2 | E2m1x2, F32) | (E4m3x2 | E5m2x2, F16x2) => (&[Rn], true, Some(true)),
        (F16x2, E4m3x2 | E5m2x2 | E2m3x2 | E3m2x2 | E2m1x2) => (&[Rn], true, Some(false)),
        (Ue8m0x2, F32 | Bf16x2) => (&[Rz, Rp], false, None),
        (Bf16x2, Ue8m0x2) => (&[Rn], false, Some(false)),
        (E4m3x4 | E5m2x4 | E2m3x4 | E3m2x4 | E2m1x4, F32) => (&[Rs], true, Some(true)),
        _ => {
            let t = if x.dtype.is_int() || x.dtype.is_float() { x.atype } else { x.dtype };
            return no(t.as_str(), format!("`{what}` is not a conversion of PTX ISA 9.7.9.21"));
        }
    };
    for (on, m) in [(x.ftz, ".ftz"), (x.sat, ".sat"), (x.relu && !relu, ".relu"), (x.satfinite && satfinite == Some(false), ".satfinite")] {
        if on {
            return no(m, format!("`{m}` is not a modifier of `{what}`"));
        }
    }
    match x.rnd {
        Some(r) if !rnds.contains(&r) => no(r.as_str(), format!("`{}` is not a rounding of `{what}`", r.as_str())),
        None => no("", format!("`{what}` needs a rounding ({})", rnds.iter().map(|r| format!("`{}`", r.as_str())).collect::<Vec<_>>().join(", "))),
        _ if satfinite == Some(true) && !x.satfinite => no("", format!("`{what}` needs `.satfinite`")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::insn::tests::dec;
    use crate::{DecodeErrorKind as K, Insn};

    fn misfit(t: &str) -> Option<&'static str> {
        dec(t).ok().and_then(|x| x.misfit()).map(|m| m.modifier)
    }

    /// `mov.type d, a` (PTX ISA 9.7.9.1-2).
    #[test]
    fn mov_row() {
        assert_eq!(dec("mov.b64 %rd1, %rd2"), Ok(Insn::Mov { ty: ScalarType::B64 }));
        assert_eq!(dec("mov.pred %p1, %p2"), Ok(Insn::Mov { ty: ScalarType::Pred }));
        assert!(matches!(dec("mov.ftz.f32 %f1, %f2"), Err((K::UnexpectedModifier { .. }, s)) if s == ".ftz"));
        assert!(matches!(dec("mov.u8 %r1, %r2"), Err((K::TypeNotAllowed { .. }, s)) if s == ".u8"));
        // PTX ISA 9.7.9.1 lists no half type (ptxas 13.5: "Unexpected instruction types").
        assert!(matches!(dec("mov.f16 %h1, %h2"), Err((K::TypeNotAllowed { .. }, s)) if s == ".f16"));
        assert!(matches!(dec("mov.bf16x2 %r1, %r2"), Err((K::TypeNotAllowed { .. }, s)) if s == ".bf16x2"));
        assert!(matches!(dec("mov %r1, %r2"), Err((K::Missing { .. }, _))));
    }

    /// `cvt{.rnd}{.ftz}{.sat}{.relu}{.satfinite}.dtype.atype` (PTX ISA 9.7.9.21).
    #[test]
    fn cvt_row() {
        let x = dec("cvt.rzi.sat.s32.f64 %r1, %fd1").unwrap().cvt().unwrap();
        assert_eq!((x.rnd, x.sat, x.dtype, x.atype), (Some(CvtRnd::Rzi), true, CvtType::S32, CvtType::F64));
        let x = dec("cvt.rn.satfinite.relu.e2m1x2.f32 %h1, %f1, %f2").unwrap().cvt().unwrap();
        assert_eq!((x.relu, x.satfinite, x.dtype, x.atype), (true, true, CvtType::E2m1x2, CvtType::F32));
        let x = dec("cvt.rn.f16x2.e4m3x2 %r1, %h1").unwrap().cvt().unwrap();
        assert_eq!((x.dtype, x.atype), (CvtType::F16x2, CvtType::E4m3x2));
        assert!(matches!(dec("cvt.rn.rz.f32.f64 %f1, %fd1"), Err((K::Conflict { .. }, s)) if s == ".rz"));
        assert!(matches!(dec("cvt.u32.pred %r1, %p1"), Err((K::UnexpectedModifier { .. }, s)) if s == ".pred"));
        assert!(matches!(dec("cvt.f32.f16.f16 %f1, %h1"), Err((K::UnexpectedModifier { .. }, s)) if s == ".f16"));
        // Between integers (ptxas 12.9, `tests/check/reject/cvt-modifiers--*`).
        assert_eq!(misfit("cvt.rni.s32.u32 %r1, %r2"), Some(".rni"));
        assert_eq!(misfit("cvt.sat.u32.u16 %r1, %rs1"), Some(".sat"));
        assert_eq!(misfit("cvt.sat.u16.u32 %rs1, %r1"), None);
        assert_eq!(misfit("cvt.f32 %f1, %f2"), Some(""));
    }
}

//! The modifier choices of the arithmetic, bit and SIMD-video rows of
//! [`crate::for_each_op!`] (PTX ISA 9.7.1 integer arithmetic, 9.7.3
//! floating point, 9.7.8 logic and shift, 9.7.9 `prmt`, 9.7.16.2 SIMD
//! video): the enums their grammars name, with the manual's spellings.

use ptxsim_syntax::ast::ScalarType;

crate::choices! {
    /// `prmt`'s permute mode (PTX ISA 9.7.9.7): none is the general
    /// byte-select form.
    pub enum PrmtMode "mode" { F4e = ".f4e", B4e = ".b4e", Rc8 = ".rc8", Ecl = ".ecl", Ecr = ".ecr", Rc16 = ".rc16" }
    /// `testp`'s test (PTX ISA 9.7.3.5; ptxas 12.9 accepts none).
    pub enum TestpOp "test" {
        Finite = ".finite",
        Infinite = ".infinite",
        Number = ".number",
        NotANumber = ".notanumber",
        Normal = ".normal",
        Subnormal = ".subnormal",
    }
    /// Which half of a product or a pair `mul24`, `mad24` (PTX ISA
    /// 9.7.1.5-6) and `dp2a` (9.7.1.24) take.
    pub enum Half "half" { Lo = ".lo", Hi = ".hi" }
    /// The rounding of float `add`, `sub`, `mul` (PTX ISA 9.7.3.1-3;
    /// the half types take `.rn` only, 9.7.4.1-3).
    /// Which part of an integer product `mul` keeps (PTX ISA 9.7.1.3).
    pub enum MulMode "mode" { Lo = ".lo", Hi = ".hi", Wide = ".wide" }
    pub enum FRnd "rounding" { Rn = ".rn", Rz = ".rz", Rm = ".rm", Rp = ".rp" }
    /// The packed types that are not scalar types: `.u16x2`, `.s16x2`
    /// (PTX ISA 9.7.1.1 add, 9.7.1.10-11 min/max) and `.f32x2` (9.7.3.1-3,
    /// sm_100).
    pub enum PackedTy "packed type" { U16x2 = ".u16x2", S16x2 = ".s16x2", F32x2 = ".f32x2" }
}

/// A combination of modifiers that each fit the row's grammar but not
/// together (`mad24.lo.sat.s32`): the modifier at fault and why, as ptxas
/// 12.9 judges it. The checker reports it at that modifier
/// ([`crate::grammar::modifier_span`]); the engine's decoder refuses it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Misfit {
    /// The modifier at fault, as written.
    pub modifier: &'static str,
    pub why: String,
}

pub(super) const SAT: &str = ".sat";
pub(super) const FTZ: &str = ".ftz";
pub(super) const CC: &str = ".cc";

/// The fields `add` and `sub` share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddSub {
    /// `sub`, else `add`.
    pub sub: bool,
    pub rnd: Option<FRnd>,
    pub ftz: bool,
    pub sat: bool,
    pub cc: bool,
    pub packed: Option<PackedTy>,
    pub ty: Option<ScalarType>,
}

/// The combination rule an `add`/`sub` breaks (PTX ISA 9.7.1.1-2,
/// 9.7.2.1-2, 9.7.3.1-2, 9.7.4.1-2; messages as ptxas 12.9 judges them).
fn add_sub_misfit(x: AddSub) -> Option<Misfit> {
    use ScalarType::*;
    let op = if x.sub { "sub" } else { "add" };
    let no = |modifier: &'static str, why: String| Some(Misfit { modifier, why });
    let rnd = x.rnd.map(FRnd::as_str);
    let ty = match (x.ty, x.packed) {
        (None, None) => return no("", format!("`{op}` needs an instruction type")),
        (Some(_), Some(p)) => return no(p.as_str(), format!("`{op}` takes one instruction type; `{}` is a second one", p.as_str())),
        (None, Some(p)) => {
            // Packed 16-bit integers: `add.{u16x2,s16x2}`, nothing else.
            let int = p != PackedTy::F32x2;
            if int && x.sub {
                return no(p.as_str(), format!("`sub` does not take type `{}`", p.as_str()));
            }
            let bad = match (int, rnd, x.ftz, x.sat, x.cc) {
                (true, Some(r), ..) => Some(r),
                (true, _, true, ..) => Some(FTZ),
                (_, _, _, true, _) => Some(SAT),
                (_, _, _, _, true) => Some(CC),
                _ => None,
            };
            return bad.and_then(|m| no(m, format!("`{m}` does not apply to `{op}{}`", p.as_str())));
        }
        (Some(t), None) => t,
    };
    let int = matches!(ty, U16 | U32 | U64 | S16 | S32 | S64);
    let what = || format!("{op}{}", ty.as_str());
    if int {
        if let Some(r) = rnd {
            return no(r, format!("`{r}` is not a modifier of `{}`: integer arithmetic takes no rounding modifier", what()));
        }
        if x.ftz {
            return no(FTZ, format!("`.ftz` is not a modifier of `{}`", what()));
        }
        if x.cc && x.sat {
            return no(SAT, "`.cc` cannot be combined with `.sat`".into());
        }
        if x.sat && ty != S32 {
            return no(SAT, format!("`.sat` applies to `{op}.s32` only"));
        }
        if x.cc && ty.bits() < 32 {
            return no(CC, format!("`.cc` applies to 32- and 64-bit `{op}` only"));
        }
        return None;
    }
    if x.cc {
        return no(CC, format!("`.cc` is not a modifier of `{}`: the carry chain is integer only", what()));
    }
    float_misfit(op, ty, x.rnd, x.ftz, x.sat)
}

/// The rule a float `add`, `sub` or `mul` breaks (PTX ISA 9.7.3.1-3,
/// 9.7.4.1-3): the half types round `.rn` only, `.ftz` on `.f32` and the
/// f16 types, `.sat` not on `.f64` nor bfloat16.
fn float_misfit(op: &str, ty: ScalarType, rnd: Option<FRnd>, ftz: bool, sat: bool) -> Option<Misfit> {
    use ScalarType::*;
    let no = |modifier: &'static str, why: String| Some(Misfit { modifier, why });
    let what = || format!("{op}{}", ty.as_str());
    let half = matches!(ty, F16 | F16x2 | Bf16 | Bf16x2);
    if let Some(r) = rnd.filter(|r| half && *r != FRnd::Rn) {
        return no(r.as_str(), format!("`{}` takes `.rn` only", what()));
    }
    if ftz && !ftz_applies(ty) {
        let why = if matches!(ty, Bf16 | Bf16x2) { "bfloat16 arithmetic has no flush-to-zero mode".to_string() } else { format!("`{}` does not take `.ftz`", what()) };
        return no(FTZ, format!("`.ftz` is not a modifier of `{}`: {why}", what()));
    }
    if sat && matches!(ty, F64 | Bf16 | Bf16x2) {
        return no(SAT, format!("`.sat` is not a modifier of `{}`", what()));
    }
    None
}

/// The fields `min` and `max` share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MinMax {
    /// `max`, else `min`.
    pub max: bool,
    pub relu: bool,
    pub ftz: bool,
    pub nan: bool,
    pub xorsign: bool,
    pub abs: bool,
    pub packed: Option<PackedTy>,
    pub ty: Option<ScalarType>,
}

/// The combination rule a `min`/`max` breaks (PTX ISA 9.7.1.10-11,
/// 9.7.3.10-11, 9.7.4.9-10; as ptxas 12.9 judges them: `.xorsign` and
/// `.abs` only together).
fn min_max_misfit(x: MinMax) -> Option<Misfit> {
    use ScalarType::*;
    let op = if x.max { "max" } else { "min" };
    let no = |modifier: &'static str, why: String| Some(Misfit { modifier, why });
    let float_flag = [(x.ftz, FTZ), (x.nan, ".NaN"), (x.xorsign, ".xorsign"), (x.abs, ".abs")].into_iter().find(|f| f.0).map(|f| f.1);
    let ty = match (x.ty, x.packed) {
        (None, None) => return no("", format!("`{op}` needs an instruction type")),
        (Some(_), Some(p)) => return no(p.as_str(), format!("`{op}` takes one instruction type; `{}` is a second one", p.as_str())),
        (None, Some(PackedTy::F32x2)) => return no(PackedTy::F32x2.as_str(), format!("`{op}` does not take type `.f32x2`")),
        (None, Some(p)) => {
            if x.relu && p != PackedTy::S16x2 {
                return no(".relu", format!("`.relu` applies to `{op}.s16x2` only"));
            }
            return float_flag.and_then(|m| no(m, format!("`{m}` does not apply to `{op}{}`", p.as_str())));
        }
        (Some(t), None) => t,
    };
    let what = || format!("{op}{}", ty.as_str());
    if matches!(ty, U16 | U32 | U64 | S16 | S32 | S64) {
        if let Some(m) = float_flag {
            return no(m, format!("`{m}` is not a modifier of `{}`", what()));
        }
        if x.relu && ty != S32 {
            return no(".relu", format!("`.relu` applies to `{op}.s32` only"));
        }
        return None;
    }
    if x.relu {
        return no(".relu", format!("`.relu` is not a modifier of `{}`", what()));
    }
    if ty == F64 {
        return float_flag.and_then(|m| no(m, format!("`{m}` is not a modifier of `{}`", what())));
    }
    if x.ftz && matches!(ty, Bf16 | Bf16x2) {
        return no(FTZ, format!("`.ftz` is not a modifier of `{}`: bfloat16 arithmetic has no flush-to-zero mode", what()));
    }
    // `.abs` alone is the three-source `.f32` form's (`min{.ftz}{.NaN}{.abs}.f32
    // d, a, b, c`, PTX ISA 9.7.3.10): the checker, which sees the operands,
    // refuses it on two sources.
    if x.xorsign && !x.abs || x.abs && !x.xorsign && ty != F32 {
        return no(if x.abs { ".abs" } else { ".xorsign" }, "`.xorsign` and `.abs` go together".into());
    }
    None
}

impl MinMax {
    /// The rule a `min`/`max` with `n` operands breaks that its modifiers
    /// alone do not say: `.abs` without `.xorsign` is the three-source
    /// `.f32` form's, `.xorsign` the two-source form's (PTX ISA
    /// 9.7.3.10-11; ptxas 13.5: "Modifier '.abs' requires modifier
    /// '.xorsign'", "Illegal modifier '.xorsign' for instruction 'max'").
    pub fn operands_misfit(&self, n: usize) -> Option<Misfit> {
        let op = if self.max { "max" } else { "min" };
        match (n, self.xorsign, self.abs) {
            (3, false, true) => Some(Misfit { modifier: ".abs", why: format!("`.abs` without `.xorsign` is the three-source `{op}.f32`'s") }),
            (4, true, _) => Some(Misfit { modifier: ".xorsign", why: format!("the three-source `{op}.f32` takes no `.xorsign`") }),
            _ => None,
        }
    }
}

/// The fields of a `mul`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MulFields {
    pub mode: Option<MulMode>,
    pub rnd: Option<FRnd>,
    pub ftz: bool,
    pub sat: bool,
    pub packed: Option<PackedTy>,
    pub ty: Option<ScalarType>,
}

/// The combination rule a `mul` breaks (PTX ISA 9.7.1.3, 9.7.3.3, 9.7.4.3).
fn mul_misfit(x: MulFields) -> Option<Misfit> {
    use ScalarType::*;
    let no = |modifier: &'static str, why: String| Some(Misfit { modifier, why });
    let mode = x.mode.map(MulMode::as_str);
    let ty = match (x.ty, x.packed) {
        (None, None) => return no("", "`mul` needs an instruction type".into()),
        (Some(_), Some(p)) => return no(p.as_str(), format!("`mul` takes one instruction type; `{}` is a second one", p.as_str())),
        (None, Some(p)) if p != PackedTy::F32x2 => return no(p.as_str(), format!("`mul` does not take type `{}`", p.as_str())),
        (None, Some(p)) => {
            let bad = mode.or(x.sat.then_some(SAT));
            return bad.and_then(|m| no(m, format!("`{m}` does not apply to `mul{}`", p.as_str())));
        }
        (Some(t), None) => t,
    };
    let what = || format!("mul{}", ty.as_str());
    if matches!(ty, U16 | U32 | U64 | S16 | S32 | S64) {
        if let Some(r) = x.rnd.map(FRnd::as_str) {
            return no(r, format!("`{r}` is not a modifier of `{}`: integer arithmetic takes no rounding modifier", what()));
        }
        if x.ftz {
            return no(FTZ, format!("`.ftz` is not a modifier of `{}`", what()));
        }
        if x.sat {
            return no(SAT, format!("`.sat` is not a modifier of `{}`", what()));
        }
        return match x.mode {
            None => no("", format!("`{}` needs one of .lo .hi .wide", what())),
            Some(MulMode::Wide) if ty.bits() == 64 => no(".wide", "`mul.wide` takes 16- and 32-bit sources only".into()),
            Some(_) => None,
        };
    }
    if let Some(m) = mode {
        return no(m, format!("`{m}` is not a modifier of `{}`: it applies to integer products", what()));
    }
    float_misfit("mul", ty, x.rnd, x.ftz, x.sat)
}

/// Whether `.ftz` applies to float arithmetic on `ty`: `.f32` and the f16
/// types (PTX ISA 9.7.3, 9.7.4); not `.f64`, the integers, or bfloat16
/// (ptxas 12.9: "Illegal modifier '.ftz'").
pub(super) fn ftz_applies(ty: ScalarType) -> bool {
    matches!(ty, ScalarType::F32 | ScalarType::F16 | ScalarType::F16x2)
}

/// The primary operation of a SIMD video instruction (PTX ISA 9.7.16.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VideoOp {
    Add,
    Sub,
    Avrg,
    Absdiff,
    Min,
    Max,
    /// `vset2`/`vset4`: 1 where the comparison holds, else 0.
    Set(crate::VideoCmp),
}

/// The element digits of a SIMD video instruction's operand selector or
/// destination mask (PTX ISA 9.7.16.2), written as the operand's component:
/// the text after `.b` for the four 8-bit elements of a `vop4` (`.b7654`,
/// `d.b320`), after `.h` for the two 16-bit ones of a `vop2` (`.h10`);
/// `None` for a component with the other letter or none.
pub fn simd_selector_digits(component: &str, four: bool) -> Option<&str> {
    component.strip_prefix(if four { ".b" } else { ".h" })
}

/// The fields of a SIMD video instruction (`vadd2` ... `vset4`), whatever
/// its row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Simd {
    pub op: VideoOp,
    /// Four 8-bit elements (`vop4`), else two 16-bit ones (`vop2`).
    pub four: bool,
    /// `vset` has no destination type: its results are unsigned.
    pub d_signed: bool,
    pub a_signed: bool,
    pub b_signed: bool,
    pub sat: bool,
    /// `.add`: the secondary accumulate; else the SIMD merge with `c`.
    pub add: bool,
}

impl crate::Insn {
    /// The fields of a SIMD video instruction; `None` for another row.
    pub fn simd(&self) -> Option<Simd> {
        use crate::Insn::*;
        let s = |t: ScalarType| t == ScalarType::S32;
        let (op, four, dtype, atype, btype, sat, add) = match *self {
            Vadd2 { dtype, atype, btype, sat, add } => (VideoOp::Add, false, dtype, atype, btype, sat, add),
            Vsub2 { dtype, atype, btype, sat, add } => (VideoOp::Sub, false, dtype, atype, btype, sat, add),
            Vavrg2 { dtype, atype, btype, sat, add } => (VideoOp::Avrg, false, dtype, atype, btype, sat, add),
            Vabsdiff2 { dtype, atype, btype, sat, add } => (VideoOp::Absdiff, false, dtype, atype, btype, sat, add),
            Vmin2 { dtype, atype, btype, sat, add } => (VideoOp::Min, false, dtype, atype, btype, sat, add),
            Vmax2 { dtype, atype, btype, sat, add } => (VideoOp::Max, false, dtype, atype, btype, sat, add),
            Vset2 { atype, btype, cmp, add } => (VideoOp::Set(cmp), false, ScalarType::U32, atype, btype, false, add),
            Vadd4 { dtype, atype, btype, sat, add } => (VideoOp::Add, true, dtype, atype, btype, sat, add),
            Vsub4 { dtype, atype, btype, sat, add } => (VideoOp::Sub, true, dtype, atype, btype, sat, add),
            Vavrg4 { dtype, atype, btype, sat, add } => (VideoOp::Avrg, true, dtype, atype, btype, sat, add),
            Vabsdiff4 { dtype, atype, btype, sat, add } => (VideoOp::Absdiff, true, dtype, atype, btype, sat, add),
            Vmin4 { dtype, atype, btype, sat, add } => (VideoOp::Min, true, dtype, atype, btype, sat, add),
            Vmax4 { dtype, atype, btype, sat, add } => (VideoOp::Max, true, dtype, atype, btype, sat, add),
            Vset4 { atype, btype, cmp, add } => (VideoOp::Set(cmp), true, ScalarType::U32, atype, btype, false, add),
            _ => return None,
        };
        Some(Simd { op, four, d_signed: s(dtype), a_signed: s(atype), b_signed: s(btype), sat, add })
    }

    /// The fields of an `add` or `sub`; `None` for another row.
    pub fn add_sub(&self) -> Option<AddSub> {
        match *self {
            crate::Insn::Add { rnd, ftz, sat, cc, packed, ty } => Some(AddSub { sub: false, rnd, ftz, sat, cc, packed, ty }),
            crate::Insn::Sub { rnd, ftz, sat, cc, packed, ty } => Some(AddSub { sub: true, rnd, ftz, sat, cc, packed, ty }),
            _ => None,
        }
    }

    /// The fields of a `min` or `max`; `None` for another row.
    pub fn min_max(&self) -> Option<MinMax> {
        match *self {
            crate::Insn::Min { relu, ftz, nan, xorsign, abs, packed, ty } => Some(MinMax { max: false, relu, ftz, nan, xorsign, abs, packed, ty }),
            crate::Insn::Max { relu, ftz, nan, xorsign, abs, packed, ty } => Some(MinMax { max: true, relu, ftz, nan, xorsign, abs, packed, ty }),
            _ => None,
        }
    }

    /// The fields of a `mul`; `None` for another row.
    pub fn mul(&self) -> Option<MulFields> {
        match *self {
            crate::Insn::Mul { mode, rnd, ftz, sat, packed, ty } => Some(MulFields { mode, rnd, ftz, sat, packed, ty }),
            _ => None,
        }
    }

    /// The combination rule this instruction breaks, if any (rows of this
    /// file only; `None` for every other row).
    pub fn misfit(&self) -> Option<Misfit> {
        use crate::Insn;
        use ptxsim_syntax::ast::ScalarType::S32;
        if self.is_mem_row() {
            return self.mem_misfit();
        }
        if let Some(m) = self.atomcvt_misfit() {
            return Some(m);
        }
        if let Some(Simd { sat: true, add: true, .. }) = self.simd() {
            // ptxas 12.9: "Illegal combination of .sat and .add modifiers".
            return Some(Misfit { modifier: SAT, why: "`.sat` does not combine with the secondary accumulate `.add`".into() });
        }
        if let Some(x) = self.add_sub() {
            return add_sub_misfit(x);
        }
        if let Some(x) = self.mul() {
            return mul_misfit(x);
        }
        if let Some(x) = self.min_max() {
            return min_max_misfit(x);
        }
        if let Some(m) = self.fma_misfit().or_else(|| self.math_misfit()) {
            return m;
        }
        match *self {
            Insn::Neg { ftz: true, ty } | Insn::Abs { ftz: true, ty } if !ftz_applies(ty) => {
                let why = match ty {
                    ScalarType::Bf16 | ScalarType::Bf16x2 => "bfloat16 arithmetic has no flush-to-zero mode".to_string(),
                    _ => format!("`.ftz` applies to `.f32` and the f16 types, not `{}`", ty.as_str()),
                };
                Some(Misfit { modifier: FTZ, why })
            }
            // PTX ISA 9.7.1.6: `.sat` exists only as `mad24.hi.sat.s32`.
            Insn::Mad24 { mode, sat: true, ty } if !(mode == Half::Hi && ty == S32) => {
                Some(Misfit { modifier: SAT, why: "`.sat` applies to `mad24.hi.s32` only".into() })
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::dec;
    use super::*;
    use crate::{ClampMode, DecodeErrorKind as K, Insn};
    use ptxsim_syntax::ast::ScalarType::*;

    /// The bit and integer rows decode to the manual's fields (PTX ISA
    /// 9.7.1, 9.7.3.5, 9.7.8, 9.7.9.7).
    #[test]
    fn bit_rows_decode_typed_fields() {
        assert_eq!(dec("popc.b64 %r1, %rd1"), Ok(Insn::Popc { ty: B64 }));
        assert_eq!(dec("clz.b32 %r1, %r2"), Ok(Insn::Clz { ty: B32 }));
        assert_eq!(dec("bfind.shiftamt.s64 %r1, %rd1"), Ok(Insn::Bfind { shiftamt: true, ty: S64 }));
        assert_eq!(dec("bfind.u32 %r1, %r2"), Ok(Insn::Bfind { shiftamt: false, ty: U32 }));
        assert_eq!(dec("brev.b32 %r1, %r2"), Ok(Insn::Brev { ty: B32 }));
        assert_eq!(dec("cnot.b16 %h1, %h2"), Ok(Insn::Cnot { ty: B16 }));
        assert_eq!(dec("prmt.b32 %r1, %r2, %r3, %r4"), Ok(Insn::Prmt { ty: B32, mode: None }));
        assert_eq!(dec("prmt.b32.rc16 %r1, %r2, %r3, %r4"), Ok(Insn::Prmt { ty: B32, mode: Some(PrmtMode::Rc16) }));
        assert_eq!(dec("bfe.s64 %rd1, %rd2, %r3, %r4"), Ok(Insn::Bfe { ty: S64 }));
        assert_eq!(dec("bfi.b32 %r1, %r2, %r3, %r4, %r5"), Ok(Insn::Bfi { ty: B32 }));
        assert_eq!(dec("bmsk.wrap.b32 %r1, %r2, %r3"), Ok(Insn::Bmsk { mode: ClampMode::Wrap, ty: B32 }));
        assert_eq!(dec("szext.clamp.s32 %r1, %r2, %r3"), Ok(Insn::Szext { mode: ClampMode::Clamp, ty: S32 }));
        assert_eq!(dec("fns.b32 %r1, %r2, %r3, %r4"), Ok(Insn::Fns { ty: B32 }));
        assert_eq!(dec("dp4a.u32.s32 %r1, %r2, %r3, %r4"), Ok(Insn::Dp4a { atype: U32, btype: S32 }));
        assert_eq!(dec("dp2a.hi.s32.u32 %r1, %r2, %r3, %r4"), Ok(Insn::Dp2a { mode: Half::Hi, atype: S32, btype: U32 }));
        assert_eq!(dec("testp.notanumber.f64 %p1, %fd1"), Ok(Insn::Testp { op: Some(TestpOp::NotANumber), ty: F64 }));
        // ptxas 12.9 accepts `testp` without a test (tests/check/accept).
        assert_eq!(dec("testp.f32 %p1, %f1"), Ok(Insn::Testp { op: None, ty: F32 }));
        assert_eq!(dec("mul24.lo.u32 %r1, %r2, %r3"), Ok(Insn::Mul24 { mode: Half::Lo, ty: U32 }));
        assert_eq!(dec("mad24.hi.sat.s32 %r1, %r2, %r3, %r4"), Ok(Insn::Mad24 { mode: Half::Hi, sat: true, ty: S32 }));
        assert_eq!(dec("sad.u16 %h1, %h2, %h3, %h4"), Ok(Insn::Sad { ty: U16 }));
    }

    #[test]
    fn bit_rows_report_the_modifier_at_fault() {
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("popc.u32 %r1, %r2"), (K::TypeNotAllowed { ty: ".u32", .. }, s) if s == ".u32"));
        assert!(matches!(e("bfe.b32 %r1, %r2, %r3, %r4"), (K::TypeNotAllowed { ty: ".b32", .. }, s) if s == ".b32"));
        assert!(matches!(e("prmt.b32.f4e.b4e %r1, %r2, %r3, %r4"), (K::Conflict { first: ".f4e", .. }, s) if s == ".b4e"));
        assert!(matches!(e("bmsk.b32 %r1, %r2, %r3"), (K::Missing { slot: "mode", .. }, s) if s == "bmsk.b32"));
        assert!(matches!(e("dp2a.u32.u32 %r1, %r2, %r3, %r4"), (K::Missing { slot: "half", .. }, s) if s == "dp2a.u32.u32"));
        assert!(matches!(e("dp4a.u32 %r1, %r2, %r3, %r4"), (K::Missing { slot: "btype", .. }, _)));
        assert!(matches!(e("testp.finite.normal.f32 %p1, %f1"), (K::Conflict { .. }, s) if s == ".normal"));
        assert!(matches!(e("mul24.lo.sat.s32 %r1, %r2, %r3"), (K::UnexpectedModifier { .. }, s) if s == ".sat"));
        assert!(matches!(e("mul24.lo.u64 %rd1, %rd2, %rd3"), (K::TypeNotAllowed { .. }, s) if s == ".u64"));
        assert!(matches!(e("fns.b32.clamp %r1, %r2, %r3, %r4"), (K::UnexpectedModifier { .. }, s) if s == ".clamp"));
        assert!(matches!(e("sad.f32 %f1, %f2, %f3, %f4"), (K::TypeNotAllowed { .. }, s) if s == ".f32"));
    }

    /// `.sat` exists only as `mad24.hi.sat.s32` (PTX ISA 9.7.1.6).
    #[test]
    fn mad24_sat_needs_hi_s32() {
        let misfit = |t: &str| dec(t).unwrap().misfit().map(|m| m.modifier);
        assert_eq!(misfit("mad24.hi.sat.s32 %r1, %r2, %r3, %r4"), None);
        assert_eq!(misfit("mad24.lo.sat.s32 %r1, %r2, %r3, %r4"), Some(".sat"));
        assert_eq!(misfit("mad24.hi.sat.u32 %r1, %r2, %r3, %r4"), Some(".sat"));
        assert_eq!(misfit("mad24.lo.u32 %r1, %r2, %r3, %r4"), None);
    }

    /// `neg`/`abs` (PTX ISA 9.7.1.13-14, 9.7.3.7-8, 9.7.4.5-6): signed
    /// integers, `{.ftz}.f32`, `.f64`, `{.ftz}.f16{x2}`, `.bf16{x2}`.
    #[test]
    fn neg_abs_rows() {
        assert_eq!(dec("neg.s16 %h1, %h2"), Ok(Insn::Neg { ftz: false, ty: S16 }));
        assert_eq!(dec("abs.ftz.f32 %f1, %f2"), Ok(Insn::Abs { ftz: true, ty: F32 }));
        assert_eq!(dec("neg.ftz.f16x2 %r1, %r2"), Ok(Insn::Neg { ftz: true, ty: F16x2 }));
        assert_eq!(dec("abs.bf16 %h1, %h2"), Ok(Insn::Abs { ftz: false, ty: Bf16 }));
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("neg.u32 %r1, %r2"), (K::TypeNotAllowed { ty: ".u32", .. }, s) if s == ".u32"));
        assert!(matches!(e("abs.sat.f32 %f1, %f2"), (K::UnexpectedModifier { .. }, s) if s == ".sat"));
        assert!(matches!(e("abs.rn.f32 %f1, %f2"), (K::UnexpectedModifier { .. }, s) if s == ".rn"));
        let misfit = |t: &str| dec(t).unwrap().misfit().map(|m| m.modifier);
        assert_eq!(misfit("abs.ftz.s32 %r1, %r2"), Some(".ftz"));
        assert_eq!(misfit("neg.ftz.f64 %fd1, %fd2"), Some(".ftz"));
        assert_eq!(misfit("neg.ftz.bf16x2 %r1, %r2"), Some(".ftz"));
        assert_eq!(misfit("neg.ftz.f16 %h1, %h2"), None);
    }

    /// `add`/`sub` (PTX ISA 9.7.1.1-2, 9.7.2.1-2, 9.7.3.1-2, 9.7.4.1-2).
    #[test]
    fn add_sub_rows() {
        let f = |rnd, ftz, sat, cc, packed, ty| Insn::Add { rnd, ftz, sat, cc, packed, ty };
        assert_eq!(dec("add.s32 %r1, %r2, %r3"), Ok(f(None, false, false, false, None, Some(S32))));
        assert_eq!(dec("add.rz.ftz.sat.f32 %f1, %f2, %f3"), Ok(f(Some(FRnd::Rz), true, true, false, None, Some(F32))));
        assert_eq!(dec("add.cc.u64 %rd1, %rd2, %rd3"), Ok(f(None, false, false, true, None, Some(U64))));
        assert_eq!(dec("add.s16x2 %r1, %r2, %r3"), Ok(f(None, false, false, false, Some(PackedTy::S16x2), None)));
        let x = dec("sub.rn.bf16x2 %r1, %r2, %r3").unwrap();
        assert_eq!(x.add_sub().map(|x| (x.sub, x.rnd, x.ty)), Some((true, Some(FRnd::Rn), Some(Bf16x2))));
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("add.rn.rz.f32 %f1, %f2, %f3"), (K::Conflict { first: ".rn", .. }, s) if s == ".rz"));
        assert!(matches!(e("add.relu.s32 %r1, %r2, %r3"), (K::UnexpectedModifier { .. }, s) if s == ".relu"));
        assert!(matches!(e("sub.b32 %r1, %r2, %r3"), (K::TypeNotAllowed { .. }, s) if s == ".b32"));
        assert!(matches!(e("add.f32.f16 %f1, %f2, %f3"), (K::UnexpectedModifier { .. }, s) if s == ".f16"));
        let misfit = |t: &str| dec(t).unwrap().misfit().map(|m| m.modifier);
        for ok in ["add.sat.s32 %r1, %r2, %r3", "sub.cc.s32 %r1, %r2, %r3", "add.rn.ftz.sat.f16x2 %r1, %r2, %r3", "sub.rm.f64 %fd1, %fd2, %fd3", "add.rn.bf16 %h1, %h2, %h3"] {
            assert_eq!(misfit(ok), None, "{ok}");
        }
        assert_eq!(misfit("add.sat.u32 %r1, %r2, %r3"), Some(".sat"));
        assert_eq!(misfit("add.cc.sat.s32 %r1, %r2, %r3"), Some(".sat"));
        assert_eq!(misfit("sub.cc.u16 %h1, %h2, %h3"), Some(".cc"));
        assert_eq!(misfit("add.rn.u32 %r1, %r2, %r3"), Some(".rn"));
        assert_eq!(misfit("add.ftz.s32 %r1, %r2, %r3"), Some(".ftz"));
        assert_eq!(misfit("add.cc.f32 %f1, %f2, %f3"), Some(".cc"));
        assert_eq!(misfit("add.ftz.f64 %fd1, %fd2, %fd3"), Some(".ftz"));
        assert_eq!(misfit("add.sat.f64 %fd1, %fd2, %fd3"), Some(".sat"));
        assert_eq!(misfit("add.rz.f16 %h1, %h2, %h3"), Some(".rz"));
        assert_eq!(misfit("add.ftz.bf16 %h1, %h2, %h3"), Some(".ftz"));
        assert_eq!(misfit("add.sat.bf16x2 %r1, %r2, %r3"), Some(".sat"));
        assert_eq!(misfit("sub.u16x2 %r1, %r2, %r3"), Some(".u16x2"));
        assert_eq!(misfit("add.sat.s16x2 %r1, %r2, %r3"), Some(".sat"));
        assert_eq!(misfit("add.s16x2.s32 %r1, %r2, %r3"), Some(".s16x2"));
        assert_eq!(misfit("add %r1, %r2, %r3"), Some(""));
    }

    /// `mul` (PTX ISA 9.7.1.3, 9.7.3.3, 9.7.4.3).
    #[test]
    fn mul_row() {
        let x = dec("mul.wide.s32 %rd1, %r2, %r3").unwrap();
        assert_eq!(x.mul().map(|m| (m.mode, m.ty)), Some((Some(MulMode::Wide), Some(S32))));
        assert_eq!(dec("mul.rp.ftz.sat.f32 %f1, %f2, %f3").unwrap().mul().map(|m| (m.rnd, m.ftz, m.sat)), Some((Some(FRnd::Rp), true, true)));
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("mul.lo.hi.u32 %r1, %r2, %r3"), (K::Conflict { first: ".lo", .. }, s) if s == ".hi"));
        assert!(matches!(e("mul.cc.lo.u32 %r1, %r2, %r3"), (K::UnexpectedModifier { .. }, s) if s == ".cc"));
        let misfit = |t: &str| dec(t).unwrap().misfit().map(|m| m.modifier);
        for ok in ["mul.lo.s16 %h1, %h2, %h3", "mul.hi.u64 %rd1, %rd2, %rd3", "mul.rn.f64 %fd1, %fd2, %fd3", "mul.rn.ftz.sat.f16x2 %r1, %r2, %r3", "mul.bf16 %h1, %h2, %h3"] {
            assert_eq!(misfit(ok), None, "{ok}");
        }
        assert_eq!(misfit("mul.u32 %r1, %r2, %r3"), Some(""));
        assert_eq!(misfit("mul.wide.u64 %rd1, %rd2, %rd3"), Some(".wide"));
        assert_eq!(misfit("mul.lo.sat.s32 %r1, %r2, %r3"), Some(".sat"));
        assert_eq!(misfit("mul.rn.lo.s32 %r1, %r2, %r3"), Some(".rn"));
        assert_eq!(misfit("mul.lo.f32 %f1, %f2, %f3"), Some(".lo"));
        assert_eq!(misfit("mul.sat.f64 %fd1, %fd2, %fd3"), Some(".sat"));
        assert_eq!(misfit("mul.rz.bf16x2 %r1, %r2, %r3"), Some(".rz"));
        assert_eq!(misfit("mul.ftz.bf16 %h1, %h2, %h3"), Some(".ftz"));
        assert_eq!(misfit("mul.lo.u16x2 %r1, %r2, %r3"), Some(".u16x2"));
    }

    /// `min`/`max` (PTX ISA 9.7.1.10-11, 9.7.3.10-11, 9.7.4.9-10).
    #[test]
    fn min_max_rows() {
        let x = dec("max.relu.s16x2 %r1, %r2, %r3").unwrap().min_max().unwrap();
        assert_eq!((x.max, x.relu, x.packed, x.ty), (true, true, Some(PackedTy::S16x2), None));
        let x = dec("min.ftz.NaN.xorsign.abs.f16x2 %r1, %r2, %r3").unwrap().min_max().unwrap();
        assert_eq!((x.max, x.ftz, x.nan, x.xorsign, x.abs, x.ty), (false, true, true, true, true, Some(F16x2)));
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("min.rn.f32 %f1, %f2, %f3"), (K::UnexpectedModifier { .. }, s) if s == ".rn"));
        assert!(matches!(e("max.sat.s32 %r1, %r2, %r3"), (K::UnexpectedModifier { .. }, s) if s == ".sat"));
        let misfit = |t: &str| dec(t).unwrap().misfit().map(|m| m.modifier);
        for ok in ["min.u16x2 %r1, %r2, %r3", "max.relu.s32 %r1, %r2, %r3", "min.NaN.bf16 %h1, %h2, %h3", "max.f64 %fd1, %fd2, %fd3", "max.ftz.NaN.f32 %f1, %f2, %f3, %f4"] {
            assert_eq!(misfit(ok), None, "{ok}");
        }
        assert_eq!(misfit("max.relu.u32 %r1, %r2, %r3"), Some(".relu"));
        assert_eq!(misfit("max.relu.u16x2 %r1, %r2, %r3"), Some(".relu"));
        assert_eq!(misfit("min.relu.f32 %f1, %f2, %f3"), Some(".relu"));
        assert_eq!(misfit("min.ftz.s32 %r1, %r2, %r3"), Some(".ftz"));
        assert_eq!(misfit("min.NaN.f64 %fd1, %fd2, %fd3"), Some(".NaN"));
        assert_eq!(misfit("min.ftz.bf16x2 %r1, %r2, %r3"), Some(".ftz"));
        assert_eq!(misfit("max.xorsign.f32 %f1, %f2, %f3"), Some(".xorsign"));
        assert_eq!(misfit("max.abs.f16 %h1, %h2, %h3"), Some(".abs"));
        assert_eq!(misfit("max.NaN.s16x2 %r1, %r2, %r3"), Some(".NaN"));
        assert_eq!(misfit("max.f32x2 %rd1, %rd2, %rd3"), Some(".f32x2"));
    }
}

#[cfg(test)]
mod simd_tests {
    use super::super::tests::dec;
    use super::*;
    use crate::{DecodeErrorKind as K, Insn, VideoCmp};
    use ptxsim_syntax::ast::ScalarType::*;

    /// `vop2`/`vop4.dtype.atype.btype{.sat}` / `.add`, and
    /// `vset2`/`vset4.atype.btype.cmp{.add}` (PTX ISA 9.7.16.2).
    #[test]
    fn simd_rows_decode_typed_fields() {
        assert_eq!(
            dec("vabsdiff2.u32.u32.u32.add %r1, %r2, %r3, %r4"),
            Ok(Insn::Vabsdiff2 { dtype: U32, atype: U32, btype: U32, sat: false, add: true })
        );
        // ptxas 12.9 accepts `.sat` before the types (tests/check/accept/video-simd--sat-first.ptx).
        let v = dec("vadd4.sat.s32.u32.s32 %r1, %r2, %r3, %r4").unwrap();
        assert_eq!(v, Insn::Vadd4 { dtype: S32, atype: U32, btype: S32, sat: true, add: false });
        assert_eq!(v.simd(), Some(Simd { op: VideoOp::Add, four: true, d_signed: true, a_signed: false, b_signed: true, sat: true, add: false }));
        let v = dec("vset2.s32.u32.ge.add %r1, %r2, %r3, %r4").unwrap();
        assert_eq!(v, Insn::Vset2 { atype: S32, btype: U32, cmp: VideoCmp::Ge, add: true });
        assert_eq!(v.simd().map(|s| (s.op, s.d_signed, s.four)), Some((VideoOp::Set(VideoCmp::Ge), false, false)));
        assert_eq!(dec("vavrg4.u32.u32.u32 %r1, %r2, %r3, %r4").unwrap().simd().map(|s| s.op), Some(VideoOp::Avrg));
        assert_eq!(dec("popc.b32 %r1, %r2").unwrap().simd(), None);
    }

    /// The manual's selectors (PTX ISA 9.7.16.2): `.b` digits on a `vop4`,
    /// `.h` digits on a `vop2`.
    #[test]
    fn simd_selector_digits_take_the_elements_letter() {
        assert_eq!(simd_selector_digits(".b7654", true), Some("7654"));
        assert_eq!(simd_selector_digits(".h10", false), Some("10"));
        assert_eq!(simd_selector_digits(".h10", true), None);
        assert_eq!(simd_selector_digits(".b32", false), None);
        assert_eq!(simd_selector_digits(".x", false), None);
    }

    /// What ptxas 12.9 refuses (tests/check/reject/video-simd--*.ptx).
    #[test]
    fn simd_rows_refuse_what_ptxas_refuses() {
        let e = |t: &str| dec(t).unwrap_err();
        // "Illegal modifier '.sat' for instruction 'vset2'"
        assert!(matches!(e("vset2.u32.u32.lt.sat %r1, %r2, %r3, %r4"), (K::UnexpectedModifier { .. }, s) if s == ".sat"));
        // "Illegal secondary operation for video instruction 'vadd2'"
        assert!(matches!(e("vadd2.u32.u32.u32.min %r1, %r2, %r3, %r4"), (K::UnexpectedModifier { .. }, s) if s == ".min"));
        // "Unexpected instruction types specified for 'vadd2'"
        assert!(matches!(e("vadd2.u32.u32 %r1, %r2, %r3, %r4"), (K::Missing { slot: "btype", .. }, _)));
        assert!(matches!(e("vadd2.b32.u32.u32 %r1, %r2, %r3, %r4"), (K::TypeNotAllowed { slot: "dtype", .. }, s) if s == ".b32"));
        // "Multiple comparisons set"
        assert!(matches!(e("vset4.u32.u32.lt.gt %r1, %r2, %r3, %r4"), (K::Conflict { first: ".lt", .. }, s) if s == ".gt"));
        // "Illegal combination of .sat and .add modifiers"
        let m = dec("vmax2.u32.u32.u32.sat.add %r1, %r2, %r3, %r4").unwrap().misfit();
        assert_eq!(m.map(|m| m.modifier), Some(".sat"));
    }
}

#[cfg(test)]
mod logic_tests {
    use super::super::tests::dec;
    use crate::{DecodeErrorKind as K, Insn};
    use ptxsim_syntax::ast::ScalarType::*;

    /// PTX ISA 9.7.8.1-2 (`and`, `or`, `xor`, `not` on `.pred` and
    /// `.b16`-`.b64`), 9.7.8.7-8 (`shl` on bit types, `shr` also on
    /// integers), 9.7.1.9 (`rem`), 9.7.3.3 (`copysign`).
    #[test]
    fn logic_rows_decode_typed_fields() {
        assert_eq!(dec("and.pred %p1, %p2, %p3"), Ok(Insn::And { ty: Pred }));
        assert_eq!(dec("or.b64 %rd1, %rd2, %rd3"), Ok(Insn::Or { ty: B64 }));
        assert_eq!(dec("xor.b16 %h1, %h2, %h3"), Ok(Insn::Xor { ty: B16 }));
        assert_eq!(dec("not.pred %p1, %p2"), Ok(Insn::Not { ty: Pred }));
        assert_eq!(dec("shl.b32 %r1, %r2, 3"), Ok(Insn::Shl { ty: B32 }));
        assert_eq!(dec("shr.s64 %rd1, %rd2, %r3"), Ok(Insn::Shr { ty: S64 }));
        assert_eq!(dec("rem.u16 %h1, %h2, %h3"), Ok(Insn::Rem { ty: U16 }));
        assert_eq!(dec("copysign.f64 %fd1, %fd2, %fd3"), Ok(Insn::Copysign { ty: F64 }));
    }

    #[test]
    fn logic_rows_refuse_other_types_and_modifiers() {
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("and.u32 %r1, %r2, %r3"), (K::TypeNotAllowed { ty: ".u32", .. }, s) if s == ".u32"));
        assert!(matches!(e("shl.u32 %r1, %r2, %r3"), (K::TypeNotAllowed { ty: ".u32", .. }, _)));
        assert!(matches!(e("shr.f32 %f1, %f2, %r3"), (K::TypeNotAllowed { .. }, _)));
        assert!(matches!(e("rem.b32 %r1, %r2, %r3"), (K::TypeNotAllowed { .. }, _)));
        assert!(matches!(e("rem.sat.s32 %r1, %r2, %r3"), (K::UnexpectedModifier { .. }, s) if s == ".sat"));
        assert!(matches!(e("copysign.ftz.f32 %f1, %f2, %f3"), (K::UnexpectedModifier { .. }, s) if s == ".ftz"));
        assert!(matches!(e("copysign.f16 %h1, %h2, %h3"), (K::TypeNotAllowed { .. }, _)));
        // A second type is a modifier no slot takes.
        assert!(matches!(e("and.b32.b32 %r1, %r2, %r3"), (K::UnexpectedModifier { .. }, s) if s == ".b32"));
        assert!(matches!(e("not %r1, %r2"), (K::Missing { slot: "ty", .. }, s) if s == "not"));
    }
}

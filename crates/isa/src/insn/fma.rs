//! The multiply-add and carry rows of [`crate::for_each_op!`]: `mad`,
//! `madc`, `addc`, `subc` (PTX ISA 9.7.1.4, 9.7.2) and `fma` (9.7.3.4,
//! 9.7.4.4): their fields, and the combinations of modifiers the manual
//! and ptxas refuse although each fits the row's grammar
//! ([`crate::Insn::misfit`]).

use super::arith::{ftz_applies, Misfit, CC, FTZ, SAT};
use crate::{FRnd, Half, MulMode, PackedTy};
use ptxsim_syntax::ast::ScalarType;

fn no(modifier: &'static str, why: String) -> Option<Misfit> {
    Some(Misfit { modifier, why })
}

fn int(ty: ScalarType) -> bool {
    use ScalarType::*;
    matches!(ty, U16 | U32 | U64 | S16 | S32 | S64)
}

/// The fields of a `mad`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MadFields {
    pub mode: Option<MulMode>,
    pub rnd: Option<FRnd>,
    pub ftz: bool,
    pub sat: bool,
    pub cc: bool,
    pub ty: ScalarType,
}

/// The combination rule a `mad` breaks (PTX ISA 9.7.1.4 `mad.mode.type`,
/// `mad.hi.sat.s32`; 9.7.2.5 `mad{.hi,.lo}.cc` on 32 and 64 bits; 9.7.3.4
/// `mad.rnd{.ftz}{.sat}.f32`, `mad.rnd.f64`: ptxas 12.9 requires the
/// rounding on every target it has).
pub(super) fn mad_misfit(x: MadFields) -> Option<Misfit> {
    let what = || format!("mad{}", x.ty.as_str());
    if int(x.ty) {
        if let Some(r) = x.rnd.map(FRnd::as_str) {
            return no(r, format!("`{r}` is not a modifier of `{}`: integer arithmetic takes no rounding modifier", what()));
        }
        if x.ftz {
            return no(FTZ, format!("`.ftz` is not a modifier of `{}`", what()));
        }
        let Some(mode) = x.mode else { return no("", format!("`{}` needs one of .lo .hi .wide", what())) };
        if x.cc && x.sat {
            return no(SAT, "`.cc` cannot be combined with `.sat`".into());
        }
        if x.sat && !(mode == MulMode::Hi && x.ty == ScalarType::S32) {
            return no(SAT, "`.sat` applies to `mad.hi.s32` only".into());
        }
        if x.cc && (mode == MulMode::Wide || x.ty.bits() < 32) {
            return no(CC, "`.cc` applies to 32- and 64-bit `mad.lo` and `mad.hi` only".into());
        }
        if mode == MulMode::Wide && x.ty.bits() == 64 {
            return no(".wide", "`mad.wide` takes 16- and 32-bit sources only".into());
        }
        return None;
    }
    if let Some(m) = x.mode.map(MulMode::as_str) {
        return no(m, format!("`{m}` is not a modifier of `{}`: it applies to integer products", what()));
    }
    if x.cc {
        return no(CC, format!("`.cc` is not a modifier of `{}`: the carry chain is integer only", what()));
    }
    if x.rnd.is_none() {
        return no("", format!("`{}` needs one of .rn .rz .rm .rp", what()));
    }
    if x.ty == ScalarType::F64 {
        if x.ftz {
            return no(FTZ, format!("`.ftz` is not a modifier of `{}`", what()));
        }
        if x.sat {
            return no(SAT, format!("`.sat` is not a modifier of `{}`", what()));
        }
    }
    None
}

/// The fields of `addc`, `subc` and `madc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CarryFields {
    pub op: CarryOp,
    pub cc: bool,
    pub sat: bool,
    pub ty: ScalarType,
}

/// Which carry-in instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CarryOp {
    Addc,
    Subc,
    /// `madc.lo` or `madc.hi`.
    Madc(Half),
}

impl CarryOp {
    /// The opcode.
    pub fn name(self) -> &'static str {
        match self {
            CarryOp::Addc => "addc",
            CarryOp::Subc => "subc",
            CarryOp::Madc(_) => "madc",
        }
    }
}

/// The combination rule an `addc`, `subc` or `madc` breaks (PTX ISA
/// 9.7.2.2, 9.7.2.4, 9.7.2.6: `.cc` on 32 and 64 bits; as ptxas 12.9
/// judges them, `.sat` on `.s32` (`madc.hi.s32`) without `.cc`, and the
/// 16-bit types without `.cc`).
pub(super) fn carry_misfit(x: CarryFields) -> Option<Misfit> {
    let op = x.op.name();
    if x.cc && x.sat {
        return no(SAT, "`.cc` cannot be combined with `.sat`".into());
    }
    match x.op {
        CarryOp::Madc(mode) if x.sat && !(mode == Half::Hi && x.ty == ScalarType::S32) => return no(SAT, "`.sat` applies to `madc.hi.s32` only".into()),
        CarryOp::Addc | CarryOp::Subc if x.sat && x.ty != ScalarType::S32 => return no(SAT, format!("`.sat` applies to `{op}.s32` only")),
        _ => {}
    }
    if x.cc && x.ty.bits() < 32 {
        let what = if matches!(x.op, CarryOp::Madc(_)) { "`madc.lo` and `madc.hi`".to_string() } else { format!("`{op}`") };
        return no(CC, format!("`.cc` applies to 32- and 64-bit {what} only"));
    }
    None
}

/// The fields of an `fma`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FmaFields {
    pub rnd: Option<FRnd>,
    pub ftz: bool,
    pub sat: bool,
    pub relu: bool,
    pub oob: bool,
    /// `.f32x2` (sm_100); the packed integers are misfits.
    pub packed: Option<PackedTy>,
    pub ty: Option<ScalarType>,
}

/// The combination rule an `fma` breaks (PTX ISA 9.7.3.4:
/// `fma.rnd{.ftz}{.sat}.f32`, `fma.rnd{.ftz}.f32x2`, `fma.rnd.f64`;
/// 9.7.4.4: `fma.rn{.ftz}{.sat}.f16{x2}`, `fma.rn{.ftz}.relu.f16{x2}`,
/// `fma.rn{.relu}.bf16{x2}`, `fma.rn.oob{.relu}.type`). As ptxas 13.5
/// judges them: every type requires a rounding ("Rounding modifier
/// required for instruction 'fma'"), the f16 types take `.rn` only
/// ("Illegal rounding modifier"; bfloat16 takes all four), bfloat16 takes
/// no `.sat` ("Illegal modifier '.sat' for instruction 'fma'"), `.relu`
/// and `.oob` no `.sat` and `.oob` no `.ftz` ("Modifier '.ftz' cannot be
/// combined with modifier '.oob'").
pub(super) fn fma_misfit(x: FmaFields) -> Option<Misfit> {
    use ScalarType::*;
    let ty = match (x.ty, x.packed) {
        (None, None) => return no("", "`fma` needs an instruction type".into()),
        (Some(_), Some(p)) => return no(p.as_str(), format!("`fma` takes one instruction type; `{}` is a second one", p.as_str())),
        (None, Some(p)) if p != PackedTy::F32x2 => return no(p.as_str(), format!("`fma` does not take type `{}`", p.as_str())),
        (None, Some(p)) => {
            let bad = [(x.sat, SAT), (x.relu, ".relu"), (x.oob, ".oob")].into_iter().find(|f| f.0).map(|f| f.1);
            if let Some(m) = bad {
                return no(m, format!("`{m}` does not apply to `fma{}`", p.as_str()));
            }
            return x.rnd.is_none().then(|| Misfit { modifier: "", why: "`fma.f32x2` needs one of .rn .rz .rm .rp".into() });
        }
        (Some(t), None) => t,
    };
    let what = || format!("fma{}", ty.as_str());
    let f16 = matches!(ty, F16 | F16x2);
    let bf16 = matches!(ty, Bf16 | Bf16x2);
    let half = f16 || bf16;
    if !half {
        if let Some(m) = [(x.relu, ".relu"), (x.oob, ".oob")].into_iter().find(|f| f.0).map(|f| f.1) {
            return no(m, format!("`{m}` is not a modifier of `{}`: it applies to the half types", what()));
        }
    }
    match x.rnd {
        None if f16 => return no("", format!("`{}` needs `.rn`", what())),
        None => return no("", format!("`{}` needs one of .rn .rz .rm .rp", what())),
        Some(r) if f16 && r != FRnd::Rn => return no(r.as_str(), format!("`{}` takes `.rn` only", what())),
        Some(_) => {}
    }
    if x.ftz && (!ftz_applies(ty) || x.oob) {
        let why = if bf16 { "bfloat16 arithmetic has no flush-to-zero mode".to_string() } else { format!("`{}` does not take `.ftz`", what()) };
        return no(FTZ, format!("`.ftz` is not a modifier of `{}`{}: {why}", what(), if x.oob { " with `.oob`" } else { "" }));
    }
    if x.sat && (ty == F64 || bf16 || x.relu || x.oob) {
        let with = if x.relu { " with `.relu`" } else if x.oob { " with `.oob`" } else { "" };
        return no(SAT, format!("`.sat` is not a modifier of `{}`{with}", what()));
    }
    None
}

/// The carry flag `CC.CF` of instruction `i` (PTX ISA 9.7.2): whether it
/// writes it (`.cc`) and whether it reads it (`addc`, `subc`, `madc`),
/// from the instruction's spelling, so also for one that does not decode
/// (which the checker reports).
pub fn carry_flag(i: &ptxsim_syntax::ast::Instruction<'_>) -> (bool, bool) {
    (i.has_modifier(CC), matches!(i.opcode.text, "addc" | "subc" | "madc"))
}

impl crate::Insn {
    /// The fields of a `mad`; `None` for another row.
    pub fn mad(&self) -> Option<MadFields> {
        match *self {
            crate::Insn::Mad { mode, rnd, ftz, sat, cc, ty } => Some(MadFields { mode, rnd, ftz, sat, cc, ty }),
            _ => None,
        }
    }

    /// The fields of an `addc`, `subc` or `madc`; `None` for another row.
    pub fn carry(&self) -> Option<CarryFields> {
        match *self {
            crate::Insn::Addc { cc, sat, ty } => Some(CarryFields { op: CarryOp::Addc, cc, sat, ty }),
            crate::Insn::Subc { cc, sat, ty } => Some(CarryFields { op: CarryOp::Subc, cc, sat, ty }),
            crate::Insn::Madc { mode, sat, cc, ty } => Some(CarryFields { op: CarryOp::Madc(mode), cc, sat, ty }),
            _ => None,
        }
    }

    /// The fields of an `fma`; `None` for another row.
    pub fn fma(&self) -> Option<FmaFields> {
        match *self {
            crate::Insn::Fma { rnd, ftz, sat, relu, oob, packed, ty } => Some(FmaFields { rnd, ftz, sat, relu, oob, packed, ty }),
            _ => None,
        }
    }

    /// The combination rule a row of this file breaks (`None` for other rows).
    pub(super) fn fma_misfit(&self) -> Option<Option<Misfit>> {
        if let Some(x) = self.mad() {
            return Some(mad_misfit(x));
        }
        if let Some(x) = self.carry() {
            return Some(carry_misfit(x));
        }
        self.fma().map(fma_misfit)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::dec;
    use super::*;
    use crate::DecodeErrorKind as K;
    use ptxsim_syntax::ast::ScalarType::*;

    fn misfit(t: &str) -> Option<&'static str> {
        dec(t).unwrap().misfit().map(|m| m.modifier)
    }

    /// `mad` (PTX ISA 9.7.1.4, 9.7.2.5, 9.7.3.4).
    #[test]
    fn mad_row() {
        let x = dec("mad.wide.s16 %r1, %h2, %h3, %r4").unwrap().mad().unwrap();
        assert_eq!((x.mode, x.ty), (Some(MulMode::Wide), S16));
        let x = dec("mad.hi.cc.u64 %rd1, %rd2, %rd3, %rd4").unwrap().mad().unwrap();
        assert_eq!((x.mode, x.cc, x.ty), (Some(MulMode::Hi), true, U64));
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("mad.lo.hi.u32 %r1, %r2, %r3, %r4"), (K::Conflict { .. }, s) if s == ".hi"));
        assert!(matches!(e("mad.rn.relu.f32 %f1, %f2, %f3, %f4"), (K::UnexpectedModifier { .. }, s) if s == ".relu"));
        assert!(matches!(e("mad.rn.f16 %h1, %h2, %h3, %h4"), (K::TypeNotAllowed { .. }, s) if s == ".f16"));
        for ok in ["mad.hi.sat.s32 %r1, %r2, %r3, %r4", "mad.lo.cc.s64 %rd1, %rd2, %rd3, %rd4", "mad.wide.u32 %rd1, %r2, %r3, %rd4", "mad.rz.ftz.sat.f32 %f1, %f2, %f3, %f4", "mad.rm.f64 %fd1, %fd2, %fd3, %fd4"] {
            assert_eq!(misfit(ok), None, "{ok}");
        }
        assert_eq!(misfit("mad.u32 %r1, %r2, %r3, %r4"), Some(""));
        assert_eq!(misfit("mad.lo.sat.s32 %r1, %r2, %r3, %r4"), Some(".sat"));
        assert_eq!(misfit("mad.hi.cc.sat.s32 %r1, %r2, %r3, %r4"), Some(".sat"));
        assert_eq!(misfit("mad.wide.cc.u32 %rd1, %r2, %r3, %rd4"), Some(".cc"));
        assert_eq!(misfit("mad.lo.cc.u16 %h1, %h2, %h3, %h4"), Some(".cc"));
        assert_eq!(misfit("mad.wide.s64 %rd1, %rd2, %rd3, %rd4"), Some(".wide"));
        assert_eq!(misfit("mad.rn.lo.s32 %r1, %r2, %r3, %r4"), Some(".rn"));
        assert_eq!(misfit("mad.f32 %f1, %f2, %f3, %f4"), Some(""));
        assert_eq!(misfit("mad.rn.lo.f32 %f1, %f2, %f3, %f4"), Some(".lo"));
        assert_eq!(misfit("mad.rn.ftz.f64 %fd1, %fd2, %fd3, %fd4"), Some(".ftz"));
    }

    /// `addc`, `subc`, `madc` (PTX ISA 9.7.2.2, 9.7.2.4, 9.7.2.6).
    #[test]
    fn carry_flag_reads_the_spelling() {
        // PTX ISA 9.7.2: `.cc` writes CC.CF; addc, subc and madc read it.
        let f = |t: &str| {
            let src = format!(".version 8.0\n.target sm_80\n.entry k() {{ {t}; }}");
            let parsed = ptxsim_syntax::parse(&src);
            carry_flag(super::super::tests::first_instruction(&parsed.module))
        };
        assert_eq!(f("add.cc.u32 %r1, %r2, %r3"), (true, false));
        assert_eq!(f("addc.u32 %r1, %r2, %r3"), (false, true));
        assert_eq!(f("madc.hi.cc.u32 %r1, %r2, %r3, %r4"), (true, true));
        assert_eq!(f("subc.cc.u32 %r1, %r2, %r3"), (true, true));
        assert_eq!(f("mul.lo.u32 %r1, %r2, %r3"), (false, false));
    }

    #[test]
    fn carry_rows() {
        assert_eq!(dec("addc.cc.s64 %rd1, %rd2, %rd3").unwrap().carry().map(|x| (x.op, x.cc, x.ty)), Some((CarryOp::Addc, true, S64)));
        assert_eq!(dec("madc.hi.u32 %r1, %r2, %r3, %r4").unwrap().carry().map(|x| (x.op, x.cc)), Some((CarryOp::Madc(Half::Hi), false)));
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("madc.u32 %r1, %r2, %r3, %r4"), (K::Missing { .. }, _)));
        assert!(matches!(e("madc.wide.u32 %rd1, %r2, %r3, %rd4"), (K::UnexpectedModifier { .. }, s) if s == ".wide"));
        assert!(matches!(e("addc.b32 %r1, %r2, %r3"), (K::TypeNotAllowed { .. }, s) if s == ".b32"));
        assert!(matches!(e("subc.rn.u32 %r1, %r2, %r3"), (K::UnexpectedModifier { .. }, s) if s == ".rn"));
        // ptxas 12.9 accepts these (tests/check/accept).
        for ok in ["addc.u16 %h1, %h2, %h3", "subc.sat.s32 %r1, %r2, %r3", "madc.hi.sat.s32 %r1, %r2, %r3, %r4", "madc.lo.cc.u64 %rd1, %rd2, %rd3, %rd4"] {
            assert_eq!(misfit(ok), None, "{ok}");
        }
        assert_eq!(misfit("addc.cc.sat.s32 %r1, %r2, %r3"), Some(".sat"));
        assert_eq!(misfit("subc.sat.u32 %r1, %r2, %r3"), Some(".sat"));
        assert_eq!(misfit("addc.cc.u16 %h1, %h2, %h3"), Some(".cc"));
        assert_eq!(misfit("madc.lo.sat.s32 %r1, %r2, %r3, %r4"), Some(".sat"));
        assert_eq!(misfit("madc.hi.cc.s16 %h1, %h2, %h3, %h4"), Some(".cc"));
    }

    /// `fma` (PTX ISA 9.7.3.4, 9.7.4.4; ptxas 13.5 on the half types).
    #[test]
    fn fma_row() {
        let x = dec("fma.rn.ftz.relu.f16x2 %r1, %r2, %r3, %r4").unwrap().fma().unwrap();
        assert_eq!((x.rnd, x.ftz, x.relu, x.ty), (Some(FRnd::Rn), true, true, Some(F16x2)));
        assert_eq!(dec("fma.rp.f32x2 %rd1, %rd2, %rd3, %rd4").unwrap().fma().map(|x| x.packed), Some(Some(PackedTy::F32x2)));
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("fma.rn.s32 %r1, %r2, %r3, %r4"), (K::TypeNotAllowed { .. }, s) if s == ".s32"));
        assert!(matches!(e("fma.rn.lo.f32 %f1, %f2, %f3, %f4"), (K::UnexpectedModifier { .. }, s) if s == ".lo"));
        for ok in [
            "fma.rz.ftz.sat.f32 %f1, %f2, %f3, %f4",
            "fma.rm.f64 %fd1, %fd2, %fd3, %fd4",
            "fma.rn.ftz.sat.f16 %h1, %h2, %h3, %h4",
            "fma.rn.relu.bf16x2 %r1, %r2, %r3, %r4",
            "fma.rn.oob.relu.f16 %h1, %h2, %h3, %h4",
            "fma.rz.ftz.f32x2 %rd1, %rd2, %rd3, %rd4",
            // ptxas 13.5 takes every rounding on bfloat16.
            "fma.rm.bf16 %h1, %h2, %h3, %h4",
            "fma.rz.relu.bf16x2 %r1, %r2, %r3, %r4",
        ] {
            assert_eq!(misfit(ok), None, "{ok}");
        }
        assert_eq!(misfit("fma.f32 %f1, %f2, %f3, %f4"), Some(""));
        assert_eq!(misfit("fma.f16 %h1, %h2, %h3, %h4"), Some(""));
        assert_eq!(misfit("fma.rz.f16x2 %r1, %r2, %r3, %r4"), Some(".rz"));
        assert_eq!(misfit("fma.rm.f16 %h1, %h2, %h3, %h4"), Some(".rm"));
        assert_eq!(misfit("fma.bf16x2 %r1, %r2, %r3, %r4"), Some(""));
        assert_eq!(misfit("fma.rn.ftz.oob.f16 %h1, %h2, %h3, %h4"), Some(".ftz"));
        assert_eq!(misfit("fma.rn.sat.bf16 %h1, %h2, %h3, %h4"), Some(".sat"));
        assert_eq!(misfit("fma.rn.ftz.bf16x2 %r1, %r2, %r3, %r4"), Some(".ftz"));
        assert_eq!(misfit("fma.rn.relu.sat.f16 %h1, %h2, %h3, %h4"), Some(".sat"));
        assert_eq!(misfit("fma.rn.relu.f32 %f1, %f2, %f3, %f4"), Some(".relu"));
        assert_eq!(misfit("fma.rn.sat.f64 %fd1, %fd2, %fd3, %fd4"), Some(".sat"));
        assert_eq!(misfit("fma.rn.sat.f32x2 %rd1, %rd2, %rd3, %rd4"), Some(".sat"));
        assert_eq!(misfit("fma.rn.u16x2 %r1, %r2, %r3, %r4"), Some(".u16x2"));
    }
}

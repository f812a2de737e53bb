//! The division and special-function rows of [`crate::for_each_op!`]:
//! `div` (PTX ISA 9.7.1.8, 9.7.3.6), `rcp`, `sqrt`, `rsqrt`, `sin`, `cos`,
//! `lg2`, `ex2`, `tanh` (9.7.3.13-23, 9.7.4.10-11): the choice their
//! grammars name, their fields, and the combinations of modifiers the
//! manual and ptxas refuse although each fits the row's grammar
//! ([`crate::Insn::misfit`]).

use super::arith::{Misfit, FTZ};
use crate::FRnd;
use ptxsim_syntax::ast::ScalarType;

crate::choices! {
    /// The approximate forms of `div.f32` (PTX ISA 9.7.3.6): `.approx`
    /// (2 ulp, no divisor above 2^126) and `.full` (2 ulp over the whole
    /// range).
    pub enum DivMode "mode" { Approx = ".approx", Full = ".full" }
}

fn no(modifier: &'static str, why: String) -> Option<Misfit> {
    Some(Misfit { modifier, why })
}

/// A one-source special function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MathOp {
    Rcp,
    Sqrt,
    Rsqrt,
    Sin,
    Cos,
    Lg2,
    Ex2,
    Tanh,
}

impl MathOp {
    /// The opcode.
    pub fn name(self) -> &'static str {
        match self {
            MathOp::Rcp => "rcp",
            MathOp::Sqrt => "sqrt",
            MathOp::Rsqrt => "rsqrt",
            MathOp::Sin => "sin",
            MathOp::Cos => "cos",
            MathOp::Lg2 => "lg2",
            MathOp::Ex2 => "ex2",
            MathOp::Tanh => "tanh",
        }
    }
}

/// The fields of `rcp` ... `tanh`: `.approx` (required where the row says
/// so), a rounding (`rcp`, `sqrt`), `.ftz` (not `tanh`), the type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MathFields {
    pub op: MathOp,
    pub approx: bool,
    pub rnd: Option<FRnd>,
    pub ftz: bool,
    pub ty: ScalarType,
}

/// The fields of a `div`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DivFields {
    pub mode: Option<DivMode>,
    pub rnd: Option<FRnd>,
    pub ftz: bool,
    pub ty: ScalarType,
}

/// The combination rule a `div` breaks (PTX ISA 9.7.1.8 `div.type`,
/// 9.7.3.6 `div.approx{.ftz}.f32`, `div.full{.ftz}.f32`,
/// `div.rnd{.ftz}.f32`, `div.rnd.f64`).
fn div_misfit(x: DivFields) -> Option<Misfit> {
    use ScalarType::*;
    let what = || format!("div{}", x.ty.as_str());
    let mode = x.mode.map(DivMode::as_str);
    let rnd = x.rnd.map(FRnd::as_str);
    match x.ty {
        F32 => match (mode, rnd) {
            (None, None) => no("", "`div.f32` needs one of .approx .full .rn .rz .rm .rp".into()),
            (Some(m), Some(r)) => no(r, format!("`div.f32` takes one of .approx .full .rn .rz .rm .rp; `{r}` is a second one after `{m}`")),
            _ => None,
        },
        F64 => {
            if let Some(m) = mode {
                return no(m, format!("`{m}` is not a modifier of `{}`", what()));
            }
            if rnd.is_none() {
                return no("", "`div.f64` needs one of .rn .rz .rm .rp".into());
            }
            x.ftz.then(|| Misfit { modifier: FTZ, why: format!("`.ftz` is not a modifier of `{}`", what()) })
        }
        _ => {
            let bad = mode.or(rnd).or(x.ftz.then_some(FTZ));
            bad.and_then(|m| no(m, format!("`{m}` is not a modifier of `{}`: integer division takes no modifier", what())))
        }
    }
}

/// The combination rule an `rcp` ... `tanh` breaks (PTX ISA 9.7.3.13-23,
/// 9.7.4.10-11): `rcp`/`sqrt` `.f32` need `.approx` or a rounding, not
/// both; `rcp.f64` a rounding or `.approx.ftz` (ptxas 12.9 takes
/// `rcp.rnd.ftz.f64` too), `sqrt.f64` a rounding without `.ftz`; `ex2` on
/// the f16 types takes no `.ftz`, on bfloat16 requires it (ptxas 13.5:
/// "Illegal modifier '.ftz' for instruction 'ex2'", ".ftz modifier
/// required for instruction 'ex2.bf16'").
fn math_misfit(x: MathFields) -> Option<Misfit> {
    use ScalarType::*;
    let op = x.op.name();
    let what = || format!("{op}{}", x.ty.as_str());
    match x.op {
        MathOp::Rcp | MathOp::Sqrt => {
            if let (true, Some(r)) = (x.approx, x.rnd) {
                return no(r.as_str(), format!("`{}` takes `.approx` or a rounding; `{}` is a second one", what(), r.as_str()));
            }
            if !x.approx && x.rnd.is_none() {
                return no("", format!("`{}` needs one of .approx .rn .rz .rm .rp", what()));
            }
            if x.ty != F64 {
                return None;
            }
            match (x.op, x.approx, x.ftz) {
                (MathOp::Rcp, true, false) => no(".approx", "`rcp.approx.f64` exists only as `rcp.approx.ftz.f64`".into()),
                (MathOp::Sqrt, true, _) => no(".approx", "`sqrt.f64` takes a rounding, not `.approx`".into()),
                (MathOp::Sqrt, _, true) => no(FTZ, "`.ftz` is not a modifier of `sqrt.f64`".into()),
                _ => None,
            }
        }
        MathOp::Ex2 if matches!(x.ty, F16 | F16x2) && x.ftz => no(FTZ, format!("`.ftz` is not a modifier of `{}`", what())),
        MathOp::Ex2 if matches!(x.ty, Bf16 | Bf16x2) && !x.ftz => no("", format!("`{}` exists only as `ex2.approx.ftz{}`", what(), x.ty.as_str())),
        _ => None,
    }
}

impl crate::Insn {
    /// The fields of a `div`; `None` for another row.
    pub fn div(&self) -> Option<DivFields> {
        match *self {
            crate::Insn::Div { mode, rnd, ftz, ty } => Some(DivFields { mode, rnd, ftz, ty }),
            _ => None,
        }
    }

    /// The fields of `rcp` ... `tanh`; `None` for another row.
    pub fn math(&self) -> Option<MathFields> {
        use crate::Insn::*;
        let f = |op, approx, rnd, ftz, ty| Some(MathFields { op, approx, rnd, ftz, ty });
        match *self {
            Rcp { approx, rnd, ftz, ty } => f(MathOp::Rcp, approx, rnd, ftz, ty),
            Sqrt { approx, rnd, ftz, ty } => f(MathOp::Sqrt, approx, rnd, ftz, ty),
            Rsqrt { approx: (), ftz, ty } => f(MathOp::Rsqrt, true, None, ftz, ty),
            Sin { approx: (), ftz, ty } => f(MathOp::Sin, true, None, ftz, ty),
            Cos { approx: (), ftz, ty } => f(MathOp::Cos, true, None, ftz, ty),
            Lg2 { approx: (), ftz, ty } => f(MathOp::Lg2, true, None, ftz, ty),
            Ex2 { approx: (), ftz, ty } => f(MathOp::Ex2, true, None, ftz, ty),
            Tanh { approx: (), ty } => f(MathOp::Tanh, true, None, false, ty),
            _ => None,
        }
    }

    /// The combination rule a row of this file breaks (`None` for other rows).
    pub(super) fn math_misfit(&self) -> Option<Option<Misfit>> {
        if let Some(x) = self.div() {
            return Some(div_misfit(x));
        }
        self.math().map(math_misfit)
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

    /// `div` (PTX ISA 9.7.1.8, 9.7.3.6).
    #[test]
    fn div_row() {
        assert_eq!(dec("div.full.ftz.f32 %f1, %f2, %f3").unwrap().div(), Some(DivFields { mode: Some(DivMode::Full), rnd: None, ftz: true, ty: F32 }));
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("div.approx.full.f32 %f1, %f2, %f3"), (K::Conflict { .. }, s) if s == ".full"));
        assert!(matches!(e("div.rn.sat.f32 %f1, %f2, %f3"), (K::UnexpectedModifier { .. }, s) if s == ".sat"));
        assert!(matches!(e("div.rn.f16 %h1, %h2, %h3"), (K::TypeNotAllowed { .. }, s) if s == ".f16"));
        for ok in ["div.s32 %r1, %r2, %r3", "div.approx.f32 %f1, %f2, %f3", "div.rz.ftz.f32 %f1, %f2, %f3", "div.rm.f64 %fd1, %fd2, %fd3"] {
            assert_eq!(misfit(ok), None, "{ok}");
        }
        assert_eq!(misfit("div.f32 %f1, %f2, %f3"), Some(""));
        assert_eq!(misfit("div.approx.rn.f32 %f1, %f2, %f3"), Some(".rn"));
        assert_eq!(misfit("div.f64 %fd1, %fd2, %fd3"), Some(""));
        assert_eq!(misfit("div.full.f64 %fd1, %fd2, %fd3"), Some(".full"));
        assert_eq!(misfit("div.rn.ftz.f64 %fd1, %fd2, %fd3"), Some(".ftz"));
        assert_eq!(misfit("div.rn.u32 %r1, %r2, %r3"), Some(".rn"));
        assert_eq!(misfit("div.ftz.s64 %rd1, %rd2, %rd3"), Some(".ftz"));
    }

    /// `rcp` ... `tanh` (PTX ISA 9.7.3.13-23, 9.7.4.10-11).
    #[test]
    fn math_rows() {
        let x = dec("rcp.approx.ftz.f64 %fd1, %fd2").unwrap().math().unwrap();
        assert_eq!((x.op, x.approx, x.ftz, x.ty), (MathOp::Rcp, true, true, F64));
        assert_eq!(dec("tanh.approx.bf16x2 %r1, %r2").unwrap().math().map(|x| (x.op, x.ty)), Some((MathOp::Tanh, Bf16x2)));
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("sin.f32 %f1, %f2"), (K::Missing { .. }, _)));
        assert!(matches!(e("sin.approx.f64 %fd1, %fd2"), (K::TypeNotAllowed { .. }, s) if s == ".f64"));
        assert!(matches!(e("rcp.approx.f16 %h1, %h2"), (K::TypeNotAllowed { .. }, s) if s == ".f16"));
        assert!(matches!(e("tanh.approx.ftz.f32 %f1, %f2"), (K::UnexpectedModifier { .. }, s) if s == ".ftz"));
        assert!(matches!(e("ex2.rn.f32 %f1, %f2"), (K::UnexpectedModifier { .. }, s) if s == ".rn"));
        assert!(matches!(e("rsqrt.approx.sat.f32 %f1, %f2"), (K::UnexpectedModifier { .. }, s) if s == ".sat"));
        for ok in [
            "rcp.rn.ftz.f64 %fd1, %fd2",
            "sqrt.approx.ftz.f32 %f1, %f2",
            "sqrt.rz.f64 %fd1, %fd2",
            "rsqrt.approx.ftz.f64 %fd1, %fd2",
            "ex2.approx.f16x2 %r1, %r2",
            "ex2.approx.ftz.bf16 %h1, %h2",
            "ex2.approx.ftz.f32 %f1, %f2",
            "tanh.approx.f16 %h1, %h2",
        ] {
            assert_eq!(misfit(ok), None, "{ok}");
        }
        assert_eq!(misfit("rcp.f32 %f1, %f2"), Some(""));
        assert_eq!(misfit("sqrt.approx.rn.f32 %f1, %f2"), Some(".rn"));
        assert_eq!(misfit("rcp.approx.f64 %fd1, %fd2"), Some(".approx"));
        assert_eq!(misfit("sqrt.approx.f64 %fd1, %fd2"), Some(".approx"));
        assert_eq!(misfit("sqrt.rn.ftz.f64 %fd1, %fd2"), Some(".ftz"));
        // ptxas 13.5: "Illegal modifier '.ftz' for instruction 'ex2'",
        // ".ftz modifier required for instruction 'ex2.bf16'".
        assert_eq!(misfit("ex2.approx.ftz.f16 %h1, %h2"), Some(".ftz"));
        assert_eq!(misfit("ex2.approx.ftz.f16x2 %r1, %r2"), Some(".ftz"));
        assert_eq!(misfit("ex2.approx.bf16 %h1, %h2"), Some(""));
        assert_eq!(misfit("ex2.approx.bf16x2 %r1, %r2"), Some(""));
    }
}

//! The modifier enums of the control-flow, comparison, move and
//! conversion, memory and warp rows of [`crate::for_each_op!`] (PTX ISA
//! 9.7.12 control flow, 9.7.3/9.7.8 comparison and selection, 9.7.9 data
//! movement and conversion, 9.7.13 synchronisation and communication), and
//! the decode tests of those rows against the manual's syntax sections.

use super::{decode, Insn};
use ptxsim_syntax::ast::Instruction;

crate::choices! {
    /// `brx`'s one form, `brx.idx` (PTX ISA 9.7.12.4).
    pub enum BrxMode "form" { Idx = ".idx" }
    /// The comparison of `setp` and `set` (PTX ISA 9.7.8.1, 9.7.3.x;
    /// 9.7.4.x for the half-precision forms).
    pub enum CmpOp "comparison" {
        Eq = ".eq", Ne = ".ne", Lt = ".lt", Le = ".le", Gt = ".gt", Ge = ".ge",
        Lo = ".lo", Ls = ".ls", Hi = ".hi", Hs = ".hs",
        Equ = ".equ", Neu = ".neu", Ltu = ".ltu", Leu = ".leu", Gtu = ".gtu", Geu = ".geu",
        Num = ".num", Nan = ".nan",
    }
    /// The operation `setp` and `set` combine their comparison with `c` by.
    pub enum BoolOp "boolean operation" { And = ".and", Or = ".or", Xor = ".xor" }
}

impl CmpOp {
    /// Whether the manual allows this operator on signed and unsigned
    /// integer types (PTX ISA 9.7.8.1 setp: eq, ne, lt, le, gt, ge, lo, ls,
    /// hi, hs).
    pub fn valid_int(self) -> bool {
        use CmpOp::*;
        matches!(self, Eq | Ne | Lt | Le | Gt | Ge | Lo | Ls | Hi | Hs)
    }

    /// Whether the manual allows it on bit-size types (eq, ne).
    pub fn valid_bits(self) -> bool {
        matches!(self, CmpOp::Eq | CmpOp::Ne)
    }

    /// Whether the manual allows it on floating-point types (all but the
    /// unsigned lo, ls, hi, hs).
    pub fn valid_float(self) -> bool {
        !matches!(self, CmpOp::Lo | CmpOp::Ls | CmpOp::Hi | CmpOp::Hs)
    }
}

impl Insn {
    /// Whether the instruction is marked `.uni` (PTX ISA 9.7.12: `bra`,
    /// `brx.idx`, `call` and `ret` take it): the threads of the warp are
    /// known to take it together.
    pub fn uni(&self) -> bool {
        matches!(self, Insn::Bra { uni: true } | Insn::Brx { uni: true, .. } | Insn::Call { uni: true } | Insn::Ret { uni: true })
    }
}

/// Whether `i` decodes by its row to an instruction marked `.uni`
/// ([`Insn::uni`]); `false` for one that does not decode.
pub fn is_uni(i: &Instruction<'_>) -> bool {
    // Only a `.uni` modifier sets the field: most instructions need no decoding.
    i.modifiers.iter().any(|m| crate::modifiers::is_uni(m.text)) && decode(i).is_ok_and(|x| x.uni())
}

#[cfg(test)]
mod tests {
    use super::super::tests::dec;
    use super::*;
    use crate::DecodeErrorKind as K;

    #[test]
    fn control_rows_decode_typed_fields() {
        // PTX ISA 9.7.12.3 `bra{.uni} tgt`, 9.7.12.4 `brx.idx{.uni} index, tlist`,
        // 9.7.12.5 `call{.uni}`, 9.7.12.6 `ret{.uni}`, 9.7.12.7 `exit`,
        // 9.7.12.8 `trap`, 9.7.12.9 `brkpt`.
        assert_eq!(dec("bra.uni L"), Ok(Insn::Bra { uni: true }));
        assert_eq!(dec("bra L"), Ok(Insn::Bra { uni: false }));
        assert_eq!(dec("brx.idx %r1, T"), Ok(Insn::Brx { idx: BrxMode::Idx, uni: false }));
        assert_eq!(dec("brx.idx.uni %r1, T"), Ok(Insn::Brx { idx: BrxMode::Idx, uni: true }));
        assert_eq!(dec("call.uni f"), Ok(Insn::Call { uni: true }));
        assert_eq!(dec("call (%r1), f, (%r2)"), Ok(Insn::Call { uni: false }));
        assert_eq!(dec("ret.uni"), Ok(Insn::Ret { uni: true }));
        assert_eq!(dec("exit"), Ok(Insn::Exit {}));
        assert_eq!(dec("trap"), Ok(Insn::Trap {}));
        assert_eq!(dec("brkpt"), Ok(Insn::Brkpt {}));
        assert!(dec("call.uni f").unwrap().uni() && !dec("bra L").unwrap().uni());
    }

    #[test]
    fn comparison_rows_decode_typed_fields() {
        use ptxsim_syntax::ast::ScalarType::*;
        // PTX ISA 9.7.8.1 `setp.CmpOp{.ftz}.type p[|q], a, b` and
        // `setp.CmpOp.BoolOp{.ftz}.type p[|q], a, b, {!}c`.
        assert_eq!(dec("setp.lt.s32 %p1, %r1, %r2"), Ok(Insn::Setp { cmp: CmpOp::Lt, boolop: None, ftz: false, ty: S32 }));
        assert_eq!(
            dec("setp.geu.or.ftz.f32 %p1|%p2, %f1, %f2, !%p3"),
            Ok(Insn::Setp { cmp: CmpOp::Geu, boolop: Some(BoolOp::Or), ftz: true, ty: F32 })
        );
        assert_eq!(dec("setp.nan.bf16x2 %p1|%p2, %r1, %r2"), Ok(Insn::Setp { cmp: CmpOp::Nan, boolop: None, ftz: false, ty: Bf16x2 }));
        // 9.7.8.2 `set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b{, {!}c}`.
        assert_eq!(
            dec("set.lt.xor.u32.s32 %r1, %r2, %r3, %p1"),
            Ok(Insn::Set { cmp: CmpOp::Lt, boolop: Some(BoolOp::Xor), ftz: false, dtype: U32, stype: S32 })
        );
        assert_eq!(dec("set.eq.f16x2.f16x2 %r1, %r2, %r3"), Ok(Insn::Set { cmp: CmpOp::Eq, boolop: None, ftz: false, dtype: F16x2, stype: F16x2 }));
        // 9.7.8.3 `selp.type d, a, b, c`; 9.7.8.4 `slct{.ftz}.dtype.{s32,f32} d, a, b, c`.
        assert_eq!(dec("selp.b64 %rd1, %rd2, %rd3, %p1"), Ok(Insn::Selp { ty: B64 }));
        assert_eq!(dec("slct.ftz.u32.f32 %r1, %r2, %r3, %f1"), Ok(Insn::Slct { ftz: true, dtype: U32, ctype: F32 }));
        assert!(CmpOp::Hs.valid_int() && !CmpOp::Hs.valid_float() && !CmpOp::Lt.valid_bits() && CmpOp::Ne.valid_bits());
    }

    #[test]
    fn comparison_rows_refuse_what_the_manual_does_not_list() {
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("setp.eq.pred %p1, %p2, %p3"), (K::TypeNotAllowed { slot: "ty", ty: ".pred", .. }, s) if s == ".pred"));
        assert!(matches!(e("setp.u32 %p1, %r1, %r2"), (K::Missing { slot: "comparison", .. }, s) if s == "setp.u32"));
        assert!(matches!(e("setp.lt.gt.u32 %p1, %r1, %r2"), (K::Conflict { first: ".lt", .. }, s) if s == ".gt"));
        assert!(matches!(e("setp.lt.nand.u32 %p1, %r1, %r2"), (K::UnexpectedModifier { .. }, s) if s == ".nand"));
        assert!(matches!(e("set.lt.b32.u32 %r1, %r2, %r3"), (K::TypeNotAllowed { slot: "dtype", .. }, s) if s == ".b32"));
        assert!(matches!(e("set.lt.u32 %r1, %r2, %r3"), (K::Missing { slot: "stype", .. }, _)));
        assert!(matches!(e("selp.pred %p1, %p2, %p3, %p4"), (K::TypeNotAllowed { .. }, s) if s == ".pred"));
        assert!(matches!(e("selp.local.u32 %r1, %r2, %r3, %p1"), (K::UnexpectedModifier { .. }, s) if s == ".local"));
        assert!(matches!(e("slct.u32.u64 %r1, %r2, %r3, %rd1"), (K::TypeNotAllowed { slot: "ctype", .. }, s) if s == ".u64"));
        assert!(matches!(e("slct.f16.s32 %h1, %h2, %h3, %r1"), (K::TypeNotAllowed { slot: "dtype", .. }, s) if s == ".f16"));
    }

    #[test]
    fn field_spans_name_the_modifier_each_field_took() {
        let src = ".version 8.0\n.target sm_80\n.entry k() { setp.lt.ftz.f32 %p1, %f1, %f2; }";
        let parsed = ptxsim_syntax::parse(src);
        let i = crate::insn::tests::first_instruction(&parsed.module);
        let text = |f: &str| crate::field_span(i, f).map(|s| &src[s.start as usize..s.end as usize]);
        assert_eq!((text("cmp"), text("ftz"), text("ty"), text("boolop")), (Some(".lt"), Some(".ftz"), Some(".f32"), None));
    }

    #[test]
    fn control_rows_refuse_what_the_manual_does_not_list() {
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("brx.uni %r1, T"), (K::Missing { slot: "form", .. }, s) if s == "brx.uni"));
        assert!(matches!(e("bra.u32 L"), (K::UnexpectedModifier { .. }, s) if s == ".u32"));
        assert!(matches!(e("exit.uni"), (K::UnexpectedModifier { .. }, s) if s == ".uni"));
        assert!(matches!(e("trap.b32"), (K::UnexpectedModifier { .. }, s) if s == ".b32"));
        assert!(matches!(e("ret.sync"), (K::UnexpectedModifier { .. }, s) if s == ".sync"));
        // `call` has operand lists: no fixed count; the others have one.
        assert_eq!(crate::lookup("call").unwrap().operand_count(), None);
        assert_eq!(crate::lookup("bra").unwrap().operand_count(), Some((1, 1)));
        assert_eq!(crate::lookup("exit").unwrap().operand_count(), Some((0, 0)));
    }
}

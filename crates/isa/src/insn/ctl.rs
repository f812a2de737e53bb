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
    decode(i).is_ok_and(|x| x.uni())
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

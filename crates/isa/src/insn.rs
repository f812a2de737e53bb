//! The typed instruction [`Insn`] and [`decode`], generated from the rows
//! of [`crate::for_each_op!`]: one variant per row, one field per modifier
//! slot of the row's grammar ([`crate::grammar`]), and the modifier enums
//! ([`crate::choices!`]) the grammars name.

use crate::grammar::{walk, Cx, DecodeError, DecodeErrorKind, Slot};

mod tensor;
pub use tensor::*;
use ptxsim_syntax::ast::Instruction;
use ptxsim_syntax::Span;

mod ctl;
pub use ctl::*;

mod arith;
pub use arith::*;

mod fma;
pub use fma::*;

mod math;
pub use math::*;

mod warp;
pub use warp::*;

mod mem;
pub use mem::*;
mod atomcvt;
pub use atomcvt::*;

mod mbar;
pub use mbar::*;

mod wmma;
pub use wmma::*;

mod clc;
pub use clc::*;
mod acopy;
pub use acopy::*;

mod tex;
pub use tex::*;

mod multimem;
pub use multimem::*;

mod tcgen05;
pub use tcgen05::*;

crate::choices! {
    /// The secondary operation of a scalar video instruction (PTX ISA 9.7.16.1).
    pub enum VideoOp2 "secondary operation" { Add = ".add", Min = ".min", Max = ".max" }
    /// How a shift amount above the width is treated: `shf`'s (PTX ISA
    /// 9.7.8.8) and `vshl`/`vshr`'s (9.7.16.1.2) mode.
    pub enum ClampMode "mode" { Clamp = ".clamp", Wrap = ".wrap" }
    /// `shf`'s direction.
    pub enum ShfDir "direction" { L = ".l", R = ".r" }
    /// `lop3`'s predicate-output operator (PTX ISA 9.7.8.6; ptxas 12.9
    /// refuses `.xor`).
    pub enum Lop3BoolOp "boolean operation" { And = ".and", Or = ".or" }
    /// The final right shift of `vmad` (PTX ISA 9.7.16.1.3).
    pub enum VmadScale "scale" { Shr7 = ".shr7", Shr15 = ".shr15" }
    /// The comparison of `vset` (PTX ISA 9.7.16.1.4).
    pub enum VideoCmp "comparison" { Eq = ".eq", Ne = ".ne", Lt = ".lt", Le = ".le", Gt = ".gt", Ge = ".ge" }
    /// A scalar video instruction's operand selector (`a.b2`, `b.h1`) or
    /// destination selector (`d.b0`: merge into `c`), written as the
    /// operand's component (PTX ISA 9.7.16.1).
    pub enum VideoSel "selector" { B0 = ".b0", B1 = ".b1", B2 = ".b2", B3 = ".b3", H0 = ".h0", H1 = ".h1" }
}

impl VideoSel {
    /// The selected part: (bit offset, width in bits).
    pub fn field(self) -> (u32, u32) {
        match self {
            VideoSel::B0 => (0, 8),
            VideoSel::B1 => (8, 8),
            VideoSel::B2 => (16, 8),
            VideoSel::B3 => (24, 8),
            VideoSel::H0 => (0, 16),
            VideoSel::H1 => (16, 16),
        }
    }
}

macro_rules! insns {
    ($($op:literal $gate:tt $effect:ident $lanes:ident $flow:ident $engine:tt
        => $v:ident { $($f:ident : $k:ident $(($($ka:tt)*))?),* $(,)? } [$($rn:ident : $rr:ident),* $(,)?];)*) => {
        /// An instruction with its modifiers decoded by its row's grammar:
        /// one variant per row of [`crate::for_each_op!`]. A row whose
        /// grammar is not written yet has one field, `mods`, of type
        /// [`crate::grammar::Untyped`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Insn {
            $($v { $($f: $crate::__slot_ty!($k $(($($ka)*))?)),* },)*
        }

        impl Insn {
            /// Its row.
            pub fn row(&self) -> &'static $crate::OpInfo {
                let op = match self { $(Insn::$v { .. } => $op,)* };
                // Every variant is a row's.
                $crate::lookup(op).unwrap_or(&$crate::OPS[0])
            }
        }

        /// Decodes the modifiers of `i` by its row's grammar. Errors point
        /// at the modifier at fault (or at the opcode and its modifiers,
        /// for a missing one).
        pub fn decode(i: &Instruction<'_>) -> Result<Insn, DecodeError> {
            match $crate::compound_row(i).map_or(i.opcode.text, |r| r.op) {
                $($op => {
                    let cx = Cx { opcode: $op, insn: i };
                    $(let mut $f = $crate::__slot_new!($f $k $(($($ka)*))?);)*
                    walk(cx, |_m, _t| {
                        $(if Slot::offer(&mut $f, cx, _m, _t)? { return Ok(true); })*
                        Ok(false)
                    })?;
                    Ok(Insn::$v { $($f: Slot::finish($f, cx)?),* })
                })*
                other => Err(DecodeError { kind: DecodeErrorKind::UnknownOpcode(other.to_string()), span: i.opcode.span }),
            }
        }

        /// The span of the modifier each field of `i`'s row took, in the
        /// order written (`("cmp", span)`, `("ftz", span)`); empty when `i`
        /// does not decode. Rules that judge a field (a comparison against
        /// the type) point at its modifier with it.
        pub fn field_spans(i: &Instruction<'_>) -> Vec<(&'static str, Span)> {
            let mut out = Vec::new();
            match $crate::compound_row(i).map_or(i.opcode.text, |r| r.op) {
                $($op => {
                    let cx = Cx { opcode: $op, insn: i };
                    $(let mut $f = $crate::__slot_new!($f $k $(($($ka)*))?);)*
                    let walked = walk(cx, |_m, _t| {
                        $(if Slot::offer(&mut $f, cx, _m, _t)? {
                            out.push((stringify!($f), _m.span));
                            return Ok(true);
                        })*
                        Ok(false)
                    });
                    if walked.is_err() {
                        out.clear();
                    }
                })*
                _ => {}
            }
            out
        }
    };
}

crate::for_each_op!(insns);

/// The span of the modifier field `field` of `i`'s row took (its first,
/// when repeated), if any ([`field_spans`]).
pub fn field_span(i: &Instruction<'_>, field: &str) -> Option<Span> {
    field_spans(i).into_iter().find(|(f, _)| *f == field).map(|(_, s)| s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DecodeErrorKind as K, Role, OPS};
    use ptxsim_syntax::ast::{Item, Module, ScalarType::*, Statement};

    /// Decodes the one instruction `text` (opcode, modifiers, operands),
    /// with the source text of the error's span.
    pub(crate) fn dec(text: &str) -> Result<Insn, (K, String)> {
        let src = format!(".version 8.0\n.target sm_80\n.entry k() {{ {text}; }}");
        let parsed = ptxsim_syntax::parse(&src);
        assert!(!parsed.has_errors(), "{text}: {:?}", parsed.diagnostics);
        decode(first_instruction(&parsed.module)).map_err(|e| (e.kind, src[e.span.start as usize..e.span.end as usize].to_string()))
    }

    /// The first instruction of the first function of `m`.
    pub(crate) fn first_instruction<'m, 'a>(m: &'m Module<'a>) -> &'m Instruction<'a> {
        let f = m.items.iter().find_map(|i| match i {
            Item::Function(f) => Some(f),
            _ => None,
        });
        let i = f.and_then(|f| f.body.as_ref()).and_then(|b| b.stmts.iter().find_map(|s| match s {
            Statement::Instr(i) => Some(i),
            _ => None,
        }));
        i.expect("an instruction")
    }

    #[test]
    fn video_rows_decode_typed_fields() {
        assert_eq!(
            dec("vadd.s32.u32.s32.sat %r1, %r2.b0, %r3.h0"),
            Ok(Insn::Vadd { dtype: S32, atype: U32, btype: S32, sat: true, op2: None })
        );
        // Other modifiers may stand among the types, and repeat (ptxas 12.9 accepts both).
        assert_eq!(
            dec("vmin.sat.u32.s32.max.s32.sat %r1, %r2, %r3, %r4"),
            Ok(Insn::Vmin { dtype: U32, atype: S32, btype: S32, sat: true, op2: Some(VideoOp2::Max) })
        );
        assert_eq!(
            dec("vshr.s32.s32.u32.wrap.add %r1, %r2, %r3, %r4"),
            Ok(Insn::Vshr { dtype: S32, atype: S32, btype: U32, sat: false, mode: ClampMode::Wrap, op2: Some(VideoOp2::Add) })
        );
        assert_eq!(
            dec("vmad.s32.u32.u32.po.sat.shr15 %r1, %r2, %r3, %r4"),
            Ok(Insn::Vmad { dtype: S32, atype: U32, btype: U32, po: true, sat: true, scale: Some(VmadScale::Shr15) })
        );
        assert_eq!(dec("vset.u32.s32.ge %r1, %r2, %r3"), Ok(Insn::Vset { atype: U32, btype: S32, cmp: VideoCmp::Ge, op2: None }));
    }

    #[test]
    fn errors_name_the_modifier_at_fault() {
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("vadd.u32.u32.u32.ftz %r1, %r2, %r3"), (K::UnexpectedModifier { modifier, .. }, s) if modifier == ".ftz" && s == ".ftz"));
        assert!(matches!(e("vadd.u32.u32.u32.add.min %r1, %r2, %r3, %r4"), (K::Conflict { first: ".add", .. }, s) if s == ".min"));
        assert!(matches!(e("vshl.u32.u32.u32.clamp.wrap %r1, %r2, %r3"), (K::Conflict { .. }, s) if s == ".wrap"));
        assert!(matches!(e("vshl.u32.u32.s32.clamp %r1, %r2, %r3"), (K::TypeNotAllowed { slot: "btype", ty: ".s32", .. }, s) if s == ".s32"));
        assert!(matches!(e("vadd.b32.u32.u32 %r1, %r2, %r3"), (K::TypeNotAllowed { slot: "dtype", .. }, s) if s == ".b32"));
        // A fourth type is a modifier no slot takes.
        assert!(matches!(e("vadd.s32.s32.s32.s32 %r1, %r2, %r3"), (K::UnexpectedModifier { .. }, s) if s == ".s32"));
        // Missing ones point at the opcode and its modifiers.
        assert!(matches!(e("vadd.s32.s32 %r1, %r2, %r3"), (K::Missing { slot: "btype", .. }, s) if s == "vadd.s32.s32"));
        assert!(matches!(e("vshl.u32.u32.u32 %r1, %r2, %r3"), (K::Missing { slot: "mode", .. }, s) if s == "vshl.u32.u32.u32"));
        assert!(matches!(e("vset.u32.u32 %r1, %r2, %r3"), (K::Missing { slot: "comparison", .. }, _)));
        assert!(matches!(e("vset.u32.u32.lt.sat %r1, %r2, %r3"), (K::UnexpectedModifier { .. }, s) if s == ".sat"));
        assert!(matches!(e("frob.u32 %r1"), (K::UnknownOpcode(o), s) if o == "frob" && s == "frob"));
    }

    #[test]
    fn every_variant_knows_its_row_and_typed_rows_have_roles() {
        assert_eq!(Insn::Vadd { dtype: U32, atype: U32, btype: U32, sat: false, op2: None }.row().op, "vadd");
        assert_eq!(Insn::Trap {}.row().op, "trap");
        for o in OPS {
            // Every row's grammar is written (a new row may start untyped).
            assert!(o.typed, "`{}` has no written grammar", o.op);
            assert!(!o.per_operation() || (o.typed && o.roles.len() == 1), "`{}`: PerOperation is a typed row's only role", o.op);
            if let Some(k) = o.roles.iter().position(|r| r.role == Role::OptSrc) {
                assert!(o.roles[k..].iter().all(|r| r.role == Role::OptSrc), "`{}`: optional operands come last", o.op);
            }
        }
        let vadd = crate::lookup("vadd").unwrap();
        assert_eq!(vadd.operand_count(), Some((3, 4)));
        assert!(vadd.roles[0].role.defines() && !vadd.roles[1].role.defines());
    }
}

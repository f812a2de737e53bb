//! [`Opcode`]: the rows of [`crate::for_each_op!`] as a plain enum, named
//! like their [`crate::Insn`] variants, so that a stage above the syntax
//! tells one opcode from another without decoding the instruction's
//! modifiers and without spelling the opcode itself.

macro_rules! opcodes {
    ($($op:literal $gate:tt $effect:ident $lanes:ident $flow:ident $engine:tt
        => $v:ident { $($f:ident : $k:ident $(($($ka:tt)*))?),* $(,)? } [$($rn:ident : $rr:ident),* $(,)?];)*) => {
        /// A row's opcode: one variant per row, named like its
        /// [`crate::Insn`] variant (`"cvt.pack"` is `CvtPack`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Opcode {
            $($v,)*
        }

        impl Opcode {
            /// The opcode of a row's name (`"mov"`, `"cvt.pack"`); `None`
            /// for a name no row has.
            pub fn of(op: &str) -> Option<Opcode> {
                match op {
                    $($op => Some(Opcode::$v),)*
                    _ => None,
                }
            }

            /// The row's name, as the manual spells it.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Opcode::$v => $op,)*
                }
            }
        }
    };
}

crate::for_each_op!(opcodes);

impl Opcode {
    /// The opcode of instruction `i`: the opcode as written (`cvt` for
    /// `cvt.pack`, whose row [`crate::row_of`] gives).
    pub fn of_insn(i: &ptxsim_syntax::ast::Instruction<'_>) -> Option<Opcode> {
        Opcode::of(i.opcode.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::OPS;

    #[test]
    fn every_row_has_its_opcode_and_back() {
        for o in OPS {
            let k = Opcode::of(o.op).unwrap_or_else(|| panic!("`{}` has no opcode", o.op));
            assert_eq!(k.as_str(), o.op);
        }
        assert_eq!(Opcode::of("mov"), Some(Opcode::Mov));
        assert_eq!(Opcode::of("cvt.pack"), Some(Opcode::CvtPack));
        assert_eq!(Opcode::of("frobnicate"), None);
    }
}

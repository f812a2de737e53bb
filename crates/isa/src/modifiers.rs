//! What the checker reads of an instruction's modifiers before its row's
//! grammar does: the state spaces it names ([`spaces`], reported under
//! rule `check/state-space`), whether a modifier is `.uni` ([`is_uni`],
//! rule `check/uni-modifier`) and its instruction types ([`types`]); and
//! the instruction's name as written ([`opname`]).

use ptxsim_syntax::ast::{Instruction, ScalarType, StateSpace};
use ptxsim_syntax::Span;
use smallvec::SmallVec;

pub use crate::insn::{BoolOp, CmpOp};

impl CmpOp {
    /// The operator of a modifier (`.lt`), if it is one.
    pub fn from_str(s: &str) -> Option<CmpOp> {
        <CmpOp as crate::grammar::Choice>::from_modifier(s)
    }
}

/// The modifier that marks a branch, call or return non-divergent.
const UNI: &str = ".uni";

/// Whether a modifier is `.uni`.
pub fn is_uni(m: &str) -> bool {
    m == UNI
}

/// The first and the second state-space modifier of `i` (a space with a
/// `::` qualifier, `.shared::cta`, is a modifier of the row's grammar, not
/// one of these).
pub fn spaces(i: &Instruction<'_>) -> [Option<(StateSpace, Span)>; 2] {
    let mut it = i.modifiers.iter().filter_map(|m| StateSpace::from_str(m.text).map(|s| (s, m.span)));
    [it.next(), it.next()]
}

/// The instruction types written, in order.
pub fn types(i: &Instruction<'_>) -> SmallVec<[ScalarType; 2]> {
    i.modifiers.iter().filter_map(|m| ScalarType::from_str(m.text)).collect()
}

/// The instruction as written, without operands (`setp.lt.u32`).
pub fn opname(i: &Instruction<'_>) -> String {
    let mut s = i.opcode.text.to_string();
    for m in &i.modifiers {
        s.push_str(m.text);
    }
    s
}

//! Decoding an instruction's modifier strings once: types, state spaces,
//! comparison and boolean operators, `.ftz`, `.sat`, rounding, vector width,
//! `.uni`, and the rest as written. The checker's rules and the engine's
//! decoder both read [`Decoded`].

use ptxsim_syntax::ast::{Instruction, Name, ScalarType, StateSpace};
use crate::grammar::Choice;
use ptxsim_syntax::Span;
use smallvec::SmallVec;

pub use crate::insn::{BoolOp, CmpOp};

impl CmpOp {
    /// The operator of a modifier (`.lt`), if it is one.
    pub fn from_str(s: &str) -> Option<CmpOp> {
        <CmpOp as crate::grammar::Choice>::from_modifier(s)
    }
}

/// A rounding modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rnd {
    /// `.rn`, `.rni`
    N,
    /// `.rz`, `.rzi`
    Z,
    /// `.rm`, `.rmi`
    M,
    /// `.rp`, `.rpi`
    P,
    /// `.rna`
    Na,
    /// `.rs`
    S,
}

impl Rnd {
    pub fn from_str(s: &str) -> Option<(Rnd, bool)> {
        Some(match s {
            ".rn" => (Rnd::N, false),
            ".rz" => (Rnd::Z, false),
            ".rm" => (Rnd::M, false),
            ".rp" => (Rnd::P, false),
            ".rni" => (Rnd::N, true),
            ".rzi" => (Rnd::Z, true),
            ".rmi" => (Rnd::M, true),
            ".rpi" => (Rnd::P, true),
            ".rna" => (Rnd::Na, false),
            ".rs" => (Rnd::S, false),
            _ => return None,
        })
    }
}

/// An instruction's modifiers, decoded.
#[derive(Default)]
pub struct Decoded<'a> {
    pub types: SmallVec<[(ScalarType, Span); 2]>,
    pub space: Option<(StateSpace, Span)>,
    /// A second state-space modifier (`st.global.shared`), if any.
    pub second_space: Option<(StateSpace, Span)>,
    /// A state-space modifier written with a `::` qualifier ptxsim does not decode.
    pub space_other: bool,
    pub cmp: Option<(CmpOp, Span)>,
    /// The combining operator of `setp`/`set`/`lop3` (`.and`, `.or`, `.xor`).
    pub boolop: Option<(BoolOp, Span)>,
    pub ftz: Option<Span>,
    pub vector: Option<(u8, Span)>,
    pub uni: SmallVec<[Span; 1]>,
    /// Every other modifier, as written (`.sat`, rounding, `.wide`, ...).
    pub other: SmallVec<[Name<'a>; 4]>,
}

impl Decoded<'_> {
    /// The types, in order.
    pub fn type_list(&self) -> SmallVec<[ScalarType; 2]> {
        self.types.iter().map(|t| t.0).collect()
    }

    /// The last type written (an instruction's type, or a conversion's source).
    pub fn last_type(&self) -> Option<ScalarType> {
        self.types.last().map(|t| t.0)
    }

    /// Whether one of the other modifiers is `m`.
    pub fn has(&self, m: &str) -> bool {
        self.other.iter().any(|n| n.text == m)
    }

    /// `.relu` (clamp a negative result to zero).
    pub fn relu(&self) -> bool {
        self.has(".relu")
    }

    /// The rounding modifiers among the other modifiers, in order.
    pub fn rounding(&self) -> SmallVec<[(Rnd, bool); 1]> {
        self.other.iter().filter_map(|n| Rnd::from_str(n.text)).collect()
    }
}

/// Decodes the modifiers of `i`.
pub fn decode_modifiers<'a>(i: &Instruction<'a>) -> Decoded<'a> {
    let mut d = Decoded::default();
    let combines = matches!(i.opcode.text, "setp" | "set" | "lop3");
    for m in &i.modifiers {
        let t = m.text;
        if let Some(s) = ScalarType::from_str(t) {
            d.types.push((s, m.span));
        } else if let Some(s) = StateSpace::from_str(t) {
            if d.space.is_some() && d.second_space.is_none() {
                d.second_space = Some((s, m.span));
            }
            d.space = d.space.or(Some((s, m.span)));
        } else if t.contains("::") && StateSpace::from_str(t.split("::").next().unwrap_or("")).is_some() {
            d.space_other = true;
        } else if let Some(c) = CmpOp::from_str(t) {
            d.cmp = Some((c, m.span));
        } else if let Some(op) = BoolOp::from_modifier(t).filter(|_| combines) {
            d.boolop = Some((op, m.span));
        } else if t == ".ftz" {
            d.ftz = Some(m.span);
        } else if t == ".uni" {
            d.uni.push(m.span);
        } else if let Some(n) = t.strip_prefix(".v").and_then(|n| n.parse::<u8>().ok()) {
            d.vector = Some((n, m.span));
        } else {
            d.other.push(*m);
        }
    }
    d
}

/// The instruction as written, without operands (`setp.lt.u32`).
pub fn opname(i: &Instruction<'_>) -> String {
    let mut s = i.opcode.text.to_string();
    for m in &i.modifiers {
        s.push_str(m.text);
    }
    s
}

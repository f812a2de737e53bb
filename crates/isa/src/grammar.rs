//! The modifier grammar of a row and the typed decoding it drives.
//!
//! A row of [`crate::for_each_op!`] names its typed instruction
//! (`Vadd { dtype: ty(U32 S32), sat: flag(".sat"), op2: opt(VideoOp2) }`):
//! each field is one modifier slot, of one of the kinds below. Decoding an
//! instruction ([`crate::decode`]) offers each modifier to the slots in
//! field order; the first slot that takes it keeps it. Types fill the type
//! slots in the order written (PTX's `.dtype.atype.btype`); other modifiers
//! may stand anywhere among them, as ptxas accepts (`vadd.sat.s32.s32.s32`),
//! and repeating the same one is accepted (ptxas does), while two different
//! values of one slot (`.add.min`, `.clamp.wrap`) are an error. Every error
//! carries the span of the modifier at fault, or of the whole opcode and
//! modifiers when one is missing.
//!
//! The kinds: [`ty`] (one type from a set, required), [`flag`] (a modifier
//! that is there or not), [`one`] (a required choice among a [`Choice`]
//! enum's modifiers), [`opt`] (an optional one), and [`untyped`]: the row's
//! grammar is not written yet and every modifier is accepted as it stands
//! (no row is so today; the checker then only resolves its operands).
//!
//! The modifier strings of the choices live in the enums [`choices!`]
//! declares, so no other crate spells one.

use ptxsim_syntax::ast::{Instruction, Name, ScalarType};
use ptxsim_syntax::Span;

/// Why an instruction's modifiers do not fit its row's grammar.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeErrorKind {
    /// The opcode has no row.
    #[error("unknown instruction `{0}`")]
    UnknownOpcode(String),
    /// A modifier no slot of the row takes.
    #[error("`{modifier}` is not a modifier of `{opcode}`")]
    UnexpectedModifier { opcode: &'static str, modifier: String },
    /// A second, different value for a slot that takes one.
    #[error("`{modifier}` conflicts with `{first}` (`{opcode}` takes one {slot})")]
    Conflict { opcode: &'static str, slot: &'static str, first: &'static str, modifier: String },
    /// A required slot left empty.
    #[error("`{opcode}` needs {slot} ({allowed})")]
    Missing { opcode: &'static str, slot: &'static str, allowed: String },
    /// A type in a type slot that does not allow it.
    #[error("`{opcode}` does not take `{ty}` as its {slot} ({allowed})")]
    TypeNotAllowed { opcode: &'static str, slot: &'static str, ty: &'static str, allowed: String },
}

/// A decoding error and the span it points at.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind}")]
pub struct DecodeError {
    pub kind: DecodeErrorKind,
    pub span: Span,
}

/// A modifier enum of a grammar: its values and their spellings.
pub trait Choice: Copy + Sized + 'static {
    /// Every value with its modifier, in declaration order.
    const ALL: &'static [(Self, &'static str)];
    /// What the slot is called in messages (`a secondary operation`).
    const WHAT: &'static str;

    /// The value a modifier spells, if any.
    fn from_modifier(m: &str) -> Option<Self> {
        Self::ALL.iter().find(|(_, s)| *s == m).map(|(v, _)| *v)
    }
}

/// Declares [`Choice`] enums: `pub enum VideoOp2 "a secondary operation" { Add = ".add", ... }`.
#[macro_export]
macro_rules! choices {
    ($($(#[$meta:meta])* pub enum $name:ident $what:literal { $($(#[$vmeta:meta])* $v:ident = $s:literal),* $(,)? })*) => {$(
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name { $($(#[$vmeta])* $v),* }

        impl $crate::grammar::Choice for $name {
            const ALL: &'static [(Self, &'static str)] = &[$(($name::$v, $s)),*];
            const WHAT: &'static str = $what;
        }

        impl $name {
            /// The modifier as written.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$v => $s),* }
            }
        }
    )*};
}

/// The context a slot reports errors in.
#[derive(Clone, Copy)]
pub struct Cx<'i, 'a> {
    pub opcode: &'static str,
    pub insn: &'i Instruction<'a>,
}

impl Cx<'_, '_> {
    fn whole(&self) -> Span {
        let i = self.insn;
        i.opcode.span.to(i.modifiers.last().map(|m| m.span).unwrap_or(i.opcode.span))
    }

    fn err(&self, kind: DecodeErrorKind, span: Span) -> DecodeError {
        DecodeError { kind, span }
    }
}

/// One modifier slot while an instruction is decoded.
pub trait Slot {
    type Out;
    /// Offers modifier `m` (its type, when it is one): `Ok(true)` when the
    /// slot takes it.
    fn offer(&mut self, cx: Cx<'_, '_>, m: &Name<'_>, ty: Option<ScalarType>) -> Result<bool, DecodeError>;
    /// The slot's value once every modifier was offered.
    fn finish(self, cx: Cx<'_, '_>) -> Result<Self::Out, DecodeError>;
}

/// A required type from `allowed`.
pub struct Ty {
    name: &'static str,
    allowed: &'static [ScalarType],
    got: Option<ScalarType>,
}

/// A type slot called `name` (its field) allowing `allowed`.
pub fn ty(name: &'static str, allowed: &'static [ScalarType]) -> Ty {
    Ty { name, allowed, got: None }
}

fn type_list(allowed: &[ScalarType]) -> String {
    allowed.iter().map(|t| format!("`{}`", t.as_str())).collect::<Vec<_>>().join(", ")
}

impl Slot for Ty {
    type Out = ScalarType;
    fn offer(&mut self, cx: Cx<'_, '_>, m: &Name<'_>, ty: Option<ScalarType>) -> Result<bool, DecodeError> {
        let (Some(t), None) = (ty, self.got) else { return Ok(false) };
        if !self.allowed.contains(&t) {
            let kind = DecodeErrorKind::TypeNotAllowed { opcode: cx.opcode, slot: self.name, ty: t.as_str(), allowed: type_list(self.allowed) };
            return Err(cx.err(kind, m.span));
        }
        self.got = Some(t);
        Ok(true)
    }
    fn finish(self, cx: Cx<'_, '_>) -> Result<ScalarType, DecodeError> {
        self.got.ok_or_else(|| {
            let kind = DecodeErrorKind::Missing { opcode: cx.opcode, slot: self.name, allowed: type_list(self.allowed) };
            cx.err(kind, cx.whole())
        })
    }
}

/// A modifier that is there or not.
pub struct Flag {
    text: &'static str,
    got: bool,
}

/// A flag slot for modifier `text`.
pub fn flag(_name: &'static str, text: &'static str) -> Flag {
    Flag { text, got: false }
}

impl Slot for Flag {
    type Out = bool;
    fn offer(&mut self, _: Cx<'_, '_>, m: &Name<'_>, _: Option<ScalarType>) -> Result<bool, DecodeError> {
        let hit = m.text == self.text;
        self.got |= hit;
        Ok(hit)
    }
    fn finish(self, _: Cx<'_, '_>) -> Result<bool, DecodeError> {
        Ok(self.got)
    }
}

/// An optional choice among `C`'s modifiers.
pub struct Opt<C: Choice> {
    got: Option<(C, &'static str)>,
}

/// An optional slot of choice `C`.
pub fn opt<C: Choice>(_name: &'static str) -> Opt<C> {
    Opt { got: None }
}

impl<C: Choice + PartialEq> Slot for Opt<C> {
    type Out = Option<C>;
    fn offer(&mut self, cx: Cx<'_, '_>, m: &Name<'_>, _: Option<ScalarType>) -> Result<bool, DecodeError> {
        let Some(&(v, s)) = C::ALL.iter().find(|(_, s)| *s == m.text) else { return Ok(false) };
        match self.got {
            Some((w, _)) if w == v => {}
            Some((_, first)) => {
                let kind = DecodeErrorKind::Conflict { opcode: cx.opcode, slot: C::WHAT, first, modifier: m.text.to_string() };
                return Err(cx.err(kind, m.span));
            }
            None => self.got = Some((v, s)),
        }
        Ok(true)
    }
    fn finish(self, _: Cx<'_, '_>) -> Result<Option<C>, DecodeError> {
        Ok(self.got.map(|g| g.0))
    }
}

/// A required choice among `C`'s modifiers.
pub struct One<C: Choice>(Opt<C>);

/// A required slot of choice `C`.
pub fn one<C: Choice>(name: &'static str) -> One<C> {
    One(opt(name))
}

impl<C: Choice + PartialEq> Slot for One<C> {
    type Out = C;
    fn offer(&mut self, cx: Cx<'_, '_>, m: &Name<'_>, ty: Option<ScalarType>) -> Result<bool, DecodeError> {
        self.0.offer(cx, m, ty)
    }
    fn finish(self, cx: Cx<'_, '_>) -> Result<C, DecodeError> {
        self.0.got.map(|g| g.0).ok_or_else(|| {
            let allowed = C::ALL.iter().map(|(_, s)| format!("`{s}`")).collect::<Vec<_>>().join(", ");
            cx.err(DecodeErrorKind::Missing { opcode: cx.opcode, slot: C::WHAT, allowed }, cx.whole())
        })
    }
}

/// The grammar of a row that has none written yet: every modifier is
/// accepted (the checker then only resolves the operands' names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Untyped;

/// The slot of a row without a grammar.
pub fn untyped(_name: &'static str) -> Untyped {
    Untyped
}

impl Slot for Untyped {
    type Out = Untyped;
    fn offer(&mut self, _: Cx<'_, '_>, _: &Name<'_>, _: Option<ScalarType>) -> Result<bool, DecodeError> {
        Ok(true)
    }
    fn finish(self, _: Cx<'_, '_>) -> Result<Untyped, DecodeError> {
        Ok(Untyped)
    }
}

/// The field type of a slot kind (used by the generated `Insn`).
#[doc(hidden)]
#[macro_export]
macro_rules! __slot_ty {
    (ty $($a:tt)*) => { $crate::__private::ScalarType };
    (flag $($a:tt)*) => { bool };
    (one ($c:ident)) => { $crate::$c };
    (opt ($c:ident)) => { ::core::option::Option<$crate::$c> };
    (untyped) => { $crate::grammar::Untyped };
    (req $($a:tt)*) => { () };
    (oty $($a:tt)*) => { ::core::option::Option<$crate::__private::ScalarType> };
    (shape) => { ::core::option::Option<$crate::grammar::MatShape> };
    (pair ($c:ident)) => { [::core::option::Option<$crate::$c>; 2] };
}

/// The slot value of a field (used by the generated `decode`).
#[doc(hidden)]
#[macro_export]
macro_rules! __slot_new {
    ($f:ident ty ($($t:ident)*)) => { $crate::grammar::ty(stringify!($f), &[$($crate::__private::ScalarType::$t),*]) };
    ($f:ident flag ($s:literal)) => { $crate::grammar::flag(stringify!($f), $s) };
    ($f:ident one ($c:ident)) => { $crate::grammar::one::<$crate::$c>(stringify!($f)) };
    ($f:ident opt ($c:ident)) => { $crate::grammar::opt::<$crate::$c>(stringify!($f)) };
    ($f:ident untyped) => { $crate::grammar::untyped(stringify!($f)) };
    ($f:ident req ($s:literal)) => { $crate::grammar::req(stringify!($f), $s) };
    ($f:ident oty ($($t:ident)*)) => { $crate::grammar::oty(stringify!($f), &[$($crate::__private::ScalarType::$t),*]) };
    ($f:ident shape) => { $crate::grammar::shape(stringify!($f)) };
    ($f:ident pair ($c:ident)) => { $crate::grammar::pair::<$crate::$c>(stringify!($f)) };
}

/// Offers every modifier of `i` to `offer` (which tries the slots in
/// order) and fails on one no slot takes.
pub fn walk<'i, 'a>(
    cx: Cx<'i, 'a>,
    mut offer: impl FnMut(&Name<'a>, Option<ScalarType>) -> Result<bool, DecodeError>,
) -> Result<(), DecodeError> {
    for m in &cx.insn.modifiers {
        if !offer(m, ScalarType::from_str(m.text))? {
            let kind = DecodeErrorKind::UnexpectedModifier { opcode: cx.opcode, modifier: m.text.to_string() };
            return Err(cx.err(kind, m.span));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------
// Slot kinds of the tensor rows (`cp`..`setmaxnreg`, issue 22 part 1):
// [`req`] (a modifier that must be there, `.sync`), [`oty`] (a type that
// only some operations of the opcode have), [`shape`] (a matrix shape
// `.mMnNkK` or `.mMnN`, parsed, not listed: wgmma alone has 128) and
// [`pair`] (up to two values of one choice, in order: `.row.col`).

/// A modifier that must be there (`.sync`, `.aligned`).
pub struct Req {
    name: &'static str,
    text: &'static str,
    got: bool,
}

/// A required-modifier slot called `name` for modifier `text`.
pub fn req(name: &'static str, text: &'static str) -> Req {
    Req { name, text, got: false }
}

impl Slot for Req {
    type Out = ();
    fn offer(&mut self, _: Cx<'_, '_>, m: &Name<'_>, _: Option<ScalarType>) -> Result<bool, DecodeError> {
        let hit = m.text == self.text;
        self.got |= hit;
        Ok(hit)
    }
    fn finish(self, cx: Cx<'_, '_>) -> Result<(), DecodeError> {
        if self.got {
            return Ok(());
        }
        let kind = DecodeErrorKind::Missing { opcode: cx.opcode, slot: self.name, allowed: format!("`{}`", self.text) };
        Err(cx.err(kind, cx.whole()))
    }
}

/// A type from `allowed` that may be left out (the rule says which
/// operations need it).
pub struct OTy(Ty);

/// An optional type slot called `name` allowing `allowed`.
pub fn oty(name: &'static str, allowed: &'static [ScalarType]) -> OTy {
    OTy(ty(name, allowed))
}

impl Slot for OTy {
    type Out = Option<ScalarType>;
    fn offer(&mut self, cx: Cx<'_, '_>, m: &Name<'_>, t: Option<ScalarType>) -> Result<bool, DecodeError> {
        self.0.offer(cx, m, t)
    }
    fn finish(self, _: Cx<'_, '_>) -> Result<Option<ScalarType>, DecodeError> {
        Ok(self.0.got)
    }
}

/// A matrix shape modifier: `.m16n8k16` (`k: Some(16)`) or `.m8n8`
/// (`k: None`). Which shapes an opcode takes is its rule's business.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MatShape {
    pub m: u32,
    pub n: u32,
    pub k: Option<u32>,
}

impl MatShape {
    /// The shape a modifier spells, if it is one.
    pub fn parse(s: &str) -> Option<MatShape> {
        fn num(s: &str) -> Option<u32> {
            (!s.is_empty() && s.len() <= 4 && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok()).flatten()
        }
        let rest = s.strip_prefix(".m")?;
        let (m, rest) = rest.split_once('n')?;
        let (n, k) = match rest.split_once('k') {
            Some((n, k)) => (n, Some(num(k)?)),
            None => (rest, None),
        };
        Some(MatShape { m: num(m)?, n: num(n)?, k })
    }
}

impl std::fmt::Display for MatShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, ".m{}n{}", self.m, self.n)?;
        match self.k {
            Some(k) => write!(f, "k{k}"),
            None => Ok(()),
        }
    }
}

/// An optional shape slot; a second shape is a modifier no slot takes.
pub struct ShapeSlot {
    got: Option<MatShape>,
}

/// A shape slot (its field name is not needed: errors name the modifier).
pub fn shape(_name: &'static str) -> ShapeSlot {
    ShapeSlot { got: None }
}

impl Slot for ShapeSlot {
    type Out = Option<MatShape>;
    fn offer(&mut self, _: Cx<'_, '_>, m: &Name<'_>, _: Option<ScalarType>) -> Result<bool, DecodeError> {
        match (MatShape::parse(m.text), self.got) {
            (Some(s), None) => {
                self.got = Some(s);
                Ok(true)
            }
            (Some(s), Some(g)) => Ok(s == g),
            (None, _) => Ok(false),
        }
    }
    fn finish(self, _: Cx<'_, '_>) -> Result<Option<MatShape>, DecodeError> {
        Ok(self.got)
    }
}

/// Up to two values of choice `C`, in the order written (`.row.col`,
/// `.global.shared::cta`); a third is a modifier no slot takes.
pub struct Pair<C: Choice> {
    got: [Option<C>; 2],
}

/// A pair slot of choice `C`.
pub fn pair<C: Choice>(_name: &'static str) -> Pair<C> {
    Pair { got: [None, None] }
}

impl<C: Choice> Slot for Pair<C> {
    type Out = [Option<C>; 2];
    fn offer(&mut self, _: Cx<'_, '_>, m: &Name<'_>, _: Option<ScalarType>) -> Result<bool, DecodeError> {
        let Some(v) = C::from_modifier(m.text) else { return Ok(false) };
        match self.got.iter_mut().find(|g| g.is_none()) {
            Some(g) => {
                *g = Some(v);
                Ok(true)
            }
            None => Ok(false),
        }
    }
    fn finish(self, _: Cx<'_, '_>) -> Result<[Option<C>; 2], DecodeError> {
        Ok(self.got)
    }
}

// ---- Added for the arithmetic rows (issue 22, arith) ----

/// The span of modifier `text` of `i` (a value the rows spell, e.g. a
/// [`Choice`]'s `as_str()` or a [`crate::Misfit`]'s modifier), or of the
/// opcode and all its modifiers when it is not written.
pub fn modifier_span(i: &Instruction<'_>, text: &str) -> Span {
    match i.modifiers.iter().find(|m| m.text == text) {
        Some(m) => m.span,
        None => Cx { opcode: "", insn: i }.whole(),
    }
}

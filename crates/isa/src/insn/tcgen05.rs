//! The row `tcgen05` (PTX ISA 9.7.16 TensorCore 5th Generation Family
//! Instructions, PTX 8.6, sm_100a/sm_100f and the later `a`/`f` targets
//! of the family): its modifier choices, which modifiers each operation
//! takes ([`Insn::tcgen05`], as ptxas 13.5 judges them at
//! `-arch=sm_100a`), and their decode tests. The engine does not model
//! the tensor memory (its row says so). The manual's syntax:
//!
//! ```text
//! tcgen05.alloc.cta_group.sync.aligned{.shared::cta}.b32 [dst], nCols;
//! tcgen05.dealloc.cta_group.sync.aligned.b32 taddr, nCols;
//! tcgen05.relinquish_alloc_permit.cta_group.sync.aligned;
//! tcgen05.ld.sync.aligned.shape1.num{.pack::16b}.b32 r, [taddr];
//! tcgen05.ld.sync.aligned.shape2.num{.pack::16b}.b32 r, [taddr], immHalfSplitoff;
//! tcgen05.st.sync.aligned.shape1.num{.unpack::16b}.b32 [taddr], r;
//! tcgen05.st.sync.aligned.shape2.num{.unpack::16b}.b32 [taddr], immHalfSplitoff, r;
//! tcgen05.wait::{ld,st}.sync.aligned;
//! tcgen05.cp.cta_group.shape{.multicast}{.dst_fmt.src_fmt} [taddr], s-desc;
//! tcgen05.shift.cta_group.down [taddr];
//! tcgen05.commit.cta_group.mbarrier::arrive::one{.shared::cluster}{.multicast::cluster}.b64 [mbar]{, ctaMask};
//! tcgen05.fence::{before,after}_thread_sync;
//! tcgen05.mma{.sp,.ws}.cta_group.kind{.block_scale{.scale_vectorsize}}{.ashift}{.collector_usage} ...;
//! .cta_group = { .cta_group::1, .cta_group::2 }
//! .shape1 = { .16x64b, .16x128b, .16x256b, .32x32b }   .shape2 = { .16x32bx2 }
//! .num    = { .x1, .x2, .x4, .x8, .x16, .x32, .x64, .x128 }
//! cp's .shape = { .128x256b, .4x256b, .128x128b, .64x128b, .32x128b }
//! .multicast = { .warpx2::02_13, .warpx2::01_23, .warpx4 }
//! .dst_fmt = { .b8x16 }   .src_fmt = { .b6x16_p32, .b4x16_p64 }
//! ```
//!
//! `tcgen05.mma`'s modifiers are decoded here too; which go with which
//! kind, and its operand lists, are the checker's (`rules/tcgen05.rs`),
//! which refuses by name the forms it does not type yet.

use super::{field_spans, CtaGroup, Insn, Misfit};
use ptxsim_syntax::ast::{Instruction, ScalarType};
use ptxsim_syntax::Span;

crate::choices! {
    /// The operation of a `tcgen05` (its first modifier).
    pub enum Tcgen05Op "tcgen05 operation" {
        Alloc = ".alloc", Dealloc = ".dealloc", Relinquish = ".relinquish_alloc_permit", Ld = ".ld", St = ".st",
        WaitLd = ".wait::ld", WaitSt = ".wait::st", Cp = ".cp", Shift = ".shift", Mma = ".mma", Commit = ".commit",
        FenceBefore = ".fence::before_thread_sync", FenceAfter = ".fence::after_thread_sync",
    }
    /// A state space a `tcgen05` may name (`alloc`'s `.shared::cta`,
    /// `commit`'s `.shared::cluster`; the others are decoded so that the
    /// rule can say they are not one).
    pub enum Tcgen05Space "state space" { SharedCta = ".shared::cta", SharedCluster = ".shared::cluster", Shared = ".shared", Global = ".global" }
    /// The shape of `tcgen05.ld`/`st` (the first five) and `tcgen05.cp` (the others).
    pub enum Tcgen05Shape "shape" {
        S16x64b = ".16x64b", S16x128b = ".16x128b", S16x256b = ".16x256b", S32x32b = ".32x32b", S16x32bx2 = ".16x32bx2",
        S128x256b = ".128x256b", S4x256b = ".4x256b", S128x128b = ".128x128b", S64x128b = ".64x128b", S32x128b = ".32x128b",
    }
    /// The repeat count of `tcgen05.ld`/`st`.
    pub enum Tcgen05Num "repeat count" { X1 = ".x1", X2 = ".x2", X4 = ".x4", X8 = ".x8", X16 = ".x16", X32 = ".x32", X64 = ".x64", X128 = ".x128" }
    /// `tcgen05.ld`'s `.pack::16b` and `tcgen05.st`'s `.unpack::16b`.
    pub enum Tcgen05Pack "packing" { Pack = ".pack::16b", Unpack = ".unpack::16b" }
    /// `tcgen05.cp`'s warp multicast.
    pub enum Tcgen05Warps "warp multicast" { X2_02_13 = ".warpx2::02_13", X2_01_23 = ".warpx2::01_23", X4 = ".warpx4" }
    /// `tcgen05.cp`'s destination and source formats (in that order).
    pub enum Tcgen05Fmt "format conversion" { B8x16 = ".b8x16", B6x16P32 = ".b6x16_p32", B4x16P64 = ".b4x16_p64" }
    /// `tcgen05.mma`'s kind.
    pub enum Tcgen05Kind "kind" {
        F16 = ".kind::f16", Tf32 = ".kind::tf32", F8f6f4 = ".kind::f8f6f4", I8 = ".kind::i8",
        Mxf8f6f4 = ".kind::mxf8f6f4", Mxf4 = ".kind::mxf4", Mxf4nvf4 = ".kind::mxf4nvf4",
    }
    /// `tcgen05.mma`'s scale vector size.
    pub enum Tcgen05ScaleVec "scale vector size" { X1 = ".scale_vec::1X", X2 = ".scale_vec::2X", X4 = ".scale_vec::4X", Block16 = ".block16", Block32 = ".block32" }
    /// `tcgen05.mma`'s collector buffer usage.
    pub enum Tcgen05Collector "collector usage" {
        AFill = ".collector::a::fill", AUse = ".collector::a::use", ALastuse = ".collector::a::lastuse", ADiscard = ".collector::a::discard",
        B0Fill = ".collector::b0::fill", B0Use = ".collector::b0::use", B0Lastuse = ".collector::b0::lastuse", B0Discard = ".collector::b0::discard",
        B1Fill = ".collector::b1::fill", B1Use = ".collector::b1::use", B1Lastuse = ".collector::b1::lastuse", B1Discard = ".collector::b1::discard",
        B2Fill = ".collector::b2::fill", B2Use = ".collector::b2::use", B2Lastuse = ".collector::b2::lastuse", B2Discard = ".collector::b2::discard",
        B3Fill = ".collector::b3::fill", B3Use = ".collector::b3::use", B3Lastuse = ".collector::b3::lastuse", B3Discard = ".collector::b3::discard",
    }
}

/// The spelling of `tcgen05.mma`'s `.ashift` flag (a rule that points at
/// it finds it by this).
pub const TCGEN05_ASHIFT: &str = ".ashift";

impl Tcgen05Shape {
    /// Registers per repeat of a `tcgen05.ld`/`st` shape (`None` for `cp`'s).
    pub fn regs_per_repeat(self) -> Option<usize> {
        match self {
            Tcgen05Shape::S16x64b | Tcgen05Shape::S32x32b | Tcgen05Shape::S16x32bx2 => Some(1),
            Tcgen05Shape::S16x128b => Some(2),
            Tcgen05Shape::S16x256b => Some(4),
            _ => None,
        }
    }
}

impl Tcgen05Num {
    /// The repeat count.
    pub fn count(self) -> usize {
        match self {
            Tcgen05Num::X1 => 1,
            Tcgen05Num::X2 => 2,
            Tcgen05Num::X4 => 4,
            Tcgen05Num::X8 => 8,
            Tcgen05Num::X16 => 16,
            Tcgen05Num::X32 => 32,
            Tcgen05Num::X64 => 64,
            Tcgen05Num::X128 => 128,
        }
    }
}

/// A `tcgen05` as its fields spell it, once the operation's modifiers are
/// checked ([`Insn::tcgen05`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tcgen05 {
    pub op: Tcgen05Op,
    pub cta_group: Option<CtaGroup>,
    pub space: Option<Tcgen05Space>,
    pub shape: Option<Tcgen05Shape>,
    pub num: Option<Tcgen05Num>,
    pub pack: Option<Tcgen05Pack>,
    pub multicast: bool,
}

impl Tcgen05 {
    /// The number of 32-bit registers of a `tcgen05.ld`/`st` (at most 128).
    pub fn regs(&self) -> usize {
        self.shape.and_then(|s| s.regs_per_repeat()).unwrap_or(1) * self.num.map_or(1, |n| n.count())
    }
    /// Whether a `tcgen05.ld`/`st` takes the half-split offset (`.16x32bx2`).
    pub fn split(&self) -> bool {
        self.shape == Some(Tcgen05Shape::S16x32bx2)
    }
}

/// The fields each operation takes (the rest are not its modifiers).
fn fields_of(op: Tcgen05Op) -> &'static [&'static str] {
    use Tcgen05Op::*;
    match op {
        Alloc => &["op", "cta_group", "sync", "aligned", "space", "ty"],
        Dealloc => &["op", "cta_group", "sync", "aligned", "ty"],
        Relinquish => &["op", "cta_group", "sync", "aligned"],
        Ld | St => &["op", "sync", "aligned", "shape", "num", "pack", "ty"],
        WaitLd | WaitSt => &["op", "sync", "aligned"],
        FenceBefore | FenceAfter => &["op"],
        Shift => &["op", "cta_group", "down"],
        Cp => &["op", "cta_group", "shape", "warps", "fmt"],
        Commit => &["op", "cta_group", "completion", "space", "multicast", "ty"],
        Mma => &["op", "sp", "ws", "cta_group", "kind", "block_scale", "scale_vec", "ashift", "collector"],
    }
}

impl Insn {
    /// The `tcgen05` this instruction is, or the rule of PTX ISA 9.7.16 it
    /// breaks, as ptxas 13.5 judges it (its messages quoted); `None` for
    /// another row. For `tcgen05.mma` only the CTA group is checked here
    /// (its kinds and operands are the checker's rule).
    pub fn tcgen05(&self) -> Option<Result<Tcgen05, Misfit>> {
        let Insn::Tcgen05 { op, cta_group, sync, aligned, space, shape, num, pack, warps, fmt, completion, multicast, ty, .. } = *self else { return None };
        let no = |modifier: &'static str, why: String| Some(Err(Misfit { modifier, why }));
        let name = op.as_str();
        use Tcgen05Op::*;
        let wants_group = matches!(op, Alloc | Dealloc | Relinquish | Shift | Cp | Commit | Mma);
        if wants_group && cta_group.is_none() {
            // ptxas: ".cta_group modifier required for instruction 'tcgen05.alloc'".
            return no("", format!("`tcgen05{name}` needs `.cta_group::1` or `.cta_group::2`"));
        }
        if matches!(op, Alloc | Dealloc | Relinquish | Ld | St | WaitLd | WaitSt) && !(sync && aligned) {
            // ptxas: ".sync modifier required", ".aligned modifier required".
            return no("", format!("`tcgen05{name}` is `.sync.aligned`"));
        }
        let want_ty = match op {
            Alloc | Dealloc | Ld | St => Some(ScalarType::B32),
            Commit => Some(ScalarType::B64),
            _ => None,
        };
        if ty != want_ty {
            // ptxas: "Unexpected instruction types specified for 'tcgen05.alloc'".
            let at = ty.map_or("", |t| t.as_str());
            return no(at, format!("`tcgen05{name}` takes {}", want_ty.map_or("no type".to_string(), |t| format!("the type `{}`", t.as_str()))));
        }
        if let Some(s) = space {
            let ok = matches!((op, s), (Alloc, Tcgen05Space::SharedCta) | (Commit, Tcgen05Space::SharedCluster));
            if !ok {
                // ptxas: "State space incorrect for instruction 'tcgen05.alloc', expected '.shared::cta'".
                return no(s.as_str(), format!("`{}` is not a state space of `tcgen05{name}`", s.as_str()));
            }
        }
        match op {
            Ld | St => {
                let Some(sh) = shape.filter(|s| s.regs_per_repeat().is_some()) else {
                    // ptxas: "Shape modifier required for instruction 'tcgen05.ld'".
                    return no(shape.map_or("", |s| s.as_str()), format!("`tcgen05{name}` needs a shape: `.16x64b`, `.16x128b`, `.16x256b`, `.32x32b` or `.16x32bx2`"));
                };
                let Some(n) = num else { return no("", format!("`tcgen05{name}` needs a repeat count (`.x1` ... `.x128`)")) };
                let want_pack = if op == Ld { Tcgen05Pack::Pack } else { Tcgen05Pack::Unpack };
                if let Some(p) = pack.filter(|p| *p != want_pack) {
                    // ptxas: "Illegal modifier '.pack::16b' for instruction 'tcgen05.st'".
                    return no(p.as_str(), format!("`{}` is not a modifier of `tcgen05{name}`", p.as_str()));
                }
                let regs = sh.regs_per_repeat().unwrap_or(1) * n.count();
                if regs > 128 {
                    // ptxas: "Illegal vector size: 256".
                    return no(n.as_str(), format!("`tcgen05{name}{}{}` moves {regs} registers; at most 128", sh.as_str(), n.as_str()));
                }
            }
            Cp => {
                let Some(sh) = shape.filter(|s| s.regs_per_repeat().is_none()) else {
                    return no(shape.map_or("", |s| s.as_str()), "`tcgen05.cp` needs a shape: `.128x256b`, `.4x256b`, `.128x128b`, `.64x128b` or `.32x128b`".into());
                };
                let ok = match (sh, warps) {
                    (Tcgen05Shape::S64x128b, Some(Tcgen05Warps::X2_01_23 | Tcgen05Warps::X2_02_13)) | (Tcgen05Shape::S32x128b, Some(Tcgen05Warps::X4)) => true,
                    (Tcgen05Shape::S64x128b | Tcgen05Shape::S32x128b, _) => false,
                    (_, w) => w.is_none(),
                };
                if !ok {
                    // ptxas: "Modifier '.warptype' require for instruction tcgen05.cp with shape '.64x128b'".
                    let at = warps.map_or(sh.as_str(), |w| w.as_str());
                    return no(at, format!("`tcgen05.cp{}` takes {}", sh.as_str(), match sh {
                        Tcgen05Shape::S64x128b => "`.warpx2::02_13` or `.warpx2::01_23`",
                        Tcgen05Shape::S32x128b => "`.warpx4`",
                        _ => "no warp multicast",
                    }));
                }
                match fmt {
                    [None, None] | [Some(Tcgen05Fmt::B8x16), Some(Tcgen05Fmt::B6x16P32 | Tcgen05Fmt::B4x16P64)] => {}
                    // ptxas: "Unexpected number of 'format conversion' modifiers specified".
                    [Some(f), None] => return no(f.as_str(), "`tcgen05.cp`'s format conversion is `.b8x16` then `.b6x16_p32` or `.b4x16_p64`".into()),
                    [Some(_), Some(f)] | [None, Some(f)] => return no(f.as_str(), "`tcgen05.cp`'s format conversion is `.b8x16` then `.b6x16_p32` or `.b4x16_p64`".into()),
                }
            }
            Shift if !matches!(self, Insn::Tcgen05 { down: true, .. }) => {
                // ptxas: ".down modifier required for instruction 'tcgen05.shift'".
                return no("", "`tcgen05.shift` needs `.down`".into());
            }
            Commit if !completion => {
                // ptxas: ".completion_mechanism modifier required for instruction 'tcgen05.commit'".
                return no("", "`tcgen05.commit` needs its completion mechanism `.mbarrier::arrive::one`".into());
            }
            _ => {}
        }
        Some(Ok(Tcgen05 { op, cta_group, space, shape, num, pack, multicast }))
    }
}

/// What a written `tcgen05` breaks that its fields cannot show: the
/// operation is not first (ptxas 13.5: "Not a name of any known
/// instruction: 'tcgen05'" for `tcgen05.sync.aligned.alloc`), a modifier
/// is not one of the operation's
/// ("Illegal modifier '.sync' for instruction 'tcgen05.fence'"), or one is
/// written twice ("Multiple .num modifiers specified"); the span of the
/// modifier at fault and why. `None` when `i` is fine or is not a
/// `tcgen05` whose modifiers decode.
pub fn tcgen05_layout(i: &Instruction<'_>) -> Option<(Span, String)> {
    let Ok(Insn::Tcgen05 { op, .. }) = super::decode(i) else { return None };
    let spans = field_spans(i);
    let text = |s: Span| i.modifiers.iter().find(|m| m.span.same_as(s)).map_or("", |m| m.text);
    let (first, fspan) = *spans.first()?;
    if first != "op" {
        return Some((fspan, format!("the operation comes first in `tcgen05`: `{}` stands before it", text(fspan))));
    }
    let allowed = fields_of(op);
    for (k, (f, s)) in spans.iter().enumerate() {
        if *f == "op" && k > 0 {
            return Some((*s, format!("`tcgen05` takes one operation; `{}` is a second one", text(*s))));
        }
        if !allowed.contains(f) {
            return Some((*s, format!("`{}` is not a modifier of `tcgen05{}`", text(*s), op.as_str())));
        }
        // ptxas 13.5 takes `.sync` and `.aligned` twice, nothing else ("Multiple .num modifiers specified").
        if !matches!(*f, "fmt" | "sync" | "aligned") && spans[..k].iter().any(|(g, _)| g == f) {
            return Some((*s, format!("`tcgen05` takes `{}` once (its {f})", text(*s))));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::insn::tests::{dec, first_instruction};
    use crate::DecodeErrorKind as K;

    fn tc(t: &str) -> Result<Tcgen05, Misfit> {
        dec(t).unwrap_or_else(|e| panic!("{t}: {e:?}")).tcgen05().expect("a tcgen05")
    }
    fn misfit(t: &str) -> Option<&'static str> {
        tc(t).err().map(|m| m.modifier)
    }
    fn layout(t: &str) -> Option<String> {
        let src = format!(".version 8.0\n.target sm_80\n.entry k() {{ {t}; }}");
        let parsed = ptxsim_syntax::parse(&src);
        tcgen05_layout(first_instruction(&parsed.module)).map(|(s, _)| src[s.start as usize..s.end as usize].to_string())
    }

    #[test]
    fn operations_decode() {
        let a = tc("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r1], 32").unwrap();
        assert_eq!((a.op, a.cta_group, a.space), (Tcgen05Op::Alloc, Some(CtaGroup::Two), Some(Tcgen05Space::SharedCta)));
        let l = tc("tcgen05.ld.sync.aligned.16x256b.x8.pack::16b.b32 {%r1}, [%r2]").unwrap();
        assert_eq!((l.regs(), l.split(), l.pack), (32, false, Some(Tcgen05Pack::Pack)));
        assert!(tc("tcgen05.st.sync.aligned.16x32bx2.x4.b32 [%r1], 2, {%r1, %r2, %r3, %r4}").unwrap().split());
        assert_eq!(tc("tcgen05.cp.cta_group::1.64x128b.warpx2::01_23.b8x16.b4x16_p64 [%r1], %rd1").map(|c| c.op), Ok(Tcgen05Op::Cp));
        assert_eq!(tc("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%rd1], %rs1").map(|c| c.multicast), Ok(true));
        assert_eq!(tc("tcgen05.fence::after_thread_sync").map(|c| c.op), Ok(Tcgen05Op::FenceAfter));
    }

    /// ptxas 13.5 (`-arch=sm_100a`) verdicts, its message quoted.
    #[test]
    fn misfits_are_the_forms_ptxas_refuses() {
        // ".cta_group modifier required for instruction 'tcgen05.alloc'".
        assert_eq!(misfit("tcgen05.alloc.sync.aligned.shared::cta.b32 [%rd1], 32"), Some(""));
        // ".aligned modifier required for instruction 'tcgen05.wait'".
        assert_eq!(misfit("tcgen05.wait::ld.sync"), Some(""));
        // "Unexpected instruction types specified for 'tcgen05.alloc'".
        assert_eq!(misfit("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b64 [%rd1], 32"), Some(".b64"));
        // "State space incorrect for instruction 'tcgen05.alloc', expected '.shared::cta'".
        assert_eq!(misfit("tcgen05.alloc.cta_group::1.sync.aligned.shared.b32 [%rd1], 32"), Some(".shared"));
        assert_eq!(misfit("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cta.b64 [%rd1]"), Some(".shared::cta"));
        // ".num modifier required for instruction 'tcgen05.ld'".
        assert_eq!(misfit("tcgen05.ld.sync.aligned.32x32b.b32 {%r1, %r2}, [%r3]"), Some(""));
        // "Illegal modifier '.unpack::16b' for instruction 'tcgen05.ld'".
        assert_eq!(misfit("tcgen05.ld.sync.aligned.32x32b.x2.unpack::16b.b32 {%r1, %r2}, [%r1]"), Some(".unpack::16b"));
        // "Illegal vector size: 256".
        assert_eq!(misfit("tcgen05.ld.sync.aligned.16x256b.x64.b32 {%r1}, [%r1]"), Some(".x64"));
        // "Modifier '.warptype' require for instruction tcgen05.cp with shape '.64x128b'"; "not allowed ... '.128x256b'".
        assert_eq!(misfit("tcgen05.cp.cta_group::1.64x128b [%r1], %rd2"), Some(".64x128b"));
        assert_eq!(misfit("tcgen05.cp.cta_group::1.128x256b.warpx4 [%r1], %rd2"), Some(".warpx4"));
        // "Unexpected number of 'format conversion' modifiers specified"; "Illegal modifier '.b6x16_p32.b8x16'".
        assert_eq!(misfit("tcgen05.cp.cta_group::1.128x256b.b8x16 [%r1], %rd2"), Some(".b8x16"));
        assert_eq!(misfit("tcgen05.cp.cta_group::1.128x256b.b6x16_p32.b8x16 [%r1], %rd2"), Some(".b8x16"));
        // ".down modifier required", ".completion_mechanism modifier required".
        assert_eq!(misfit("tcgen05.shift.cta_group::1 [%r1]"), Some(""));
        assert_eq!(misfit("tcgen05.commit.cta_group::1.b64 [%rd1]"), Some(""));
        assert_eq!(misfit("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned"), None);
    }

    #[test]
    fn layout_and_grammar_errors() {
        assert_eq!(layout("tcgen05.alloc.sync.aligned.cta_group::1.shared::cta.b32 [%rd1], 32"), None);
        assert_eq!(layout("tcgen05.sync.aligned.alloc.cta_group::1.shared::cta.b32 [%rd1], 32").as_deref(), Some(".sync"));
        assert_eq!(layout("tcgen05.fence::after_thread_sync.sync.aligned").as_deref(), Some(".sync"));
        assert_eq!(layout("tcgen05.wait::ld.cta_group::1.sync.aligned").as_deref(), Some(".cta_group::1"));
        assert_eq!(layout("tcgen05.ld.sync.sync.aligned.32x32b.x2.b32 {%r1, %r2}, [%r3]"), None);
        assert_eq!(layout("tcgen05.shift.cta_group::1.down.down [%r1]").as_deref(), Some(".down"));
        let e = |t: &str| dec(t).unwrap_err();
        // "Unknown modifier '.wait::st'".
        assert!(matches!(e("tcgen05.wait::ld.wait::st.sync.aligned"), (K::Conflict { .. }, s) if s == ".wait::st"));
        // "Multiple .num modifiers specified", "Multiple matrix shape modifiers specified".
        assert!(matches!(e("tcgen05.ld.sync.aligned.32x32b.x2.x4.b32 {%r1, %r2}, [%r3]"), (K::Conflict { .. }, s) if s == ".x4"));
        assert!(matches!(e("tcgen05.ld.sync.aligned.32x32b.16x64b.x2.b32 {%r1, %r2}, [%r3]"), (K::Conflict { .. }, s) if s == ".16x64b"));
        assert!(matches!(e("tcgen05.shift.cta_group::1.up [%r1]"), (K::UnexpectedModifier { .. }, s) if s == ".up"));
        assert!(matches!(e("tcgen05.ld.sync.aligned.32x32b.x2.u32 {%r1, %r2}, [%r3]"), (K::TypeNotAllowed { .. }, s) if s == ".u32"));
    }
}

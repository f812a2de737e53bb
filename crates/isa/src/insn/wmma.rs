//! The warp matrix functions' row, `wmma` (PTX ISA 9.7.14.4): its modifier
//! choices, the form a decoded `wmma` is ([`WmmaForm`]: its operation,
//! fragment, layouts, shape, state space and element types, in the roles
//! the manual gives them), which combinations the manual allows
//! ([`WmmaForm::misfit`], as ptxas 13.5 judges them) and how many
//! registers of which width each fragment is ([`WmmaForm::regs`]); and
//! their decode tests. The syntax (9.7.14.4.3-4.5):
//!
//! ```text
//! wmma.load.{a,b,c}.sync.aligned.layout.shape{.ss}.type r, [p]{, stride};
//! wmma.store.d.sync.aligned.layout.shape{.ss}.type [p], r{, stride};
//! wmma.mma.sync.aligned.alayout.blayout.shape.dtype.ctype d, a, b, c;             // .f16
//! wmma.mma.sync.aligned.alayout.blayout.shape.s32.atype.btype.s32{.satfinite} ...; // .s8/.u8, .s4/.u4
//! wmma.mma.sync.aligned.alayout.blayout.shape.f32.atype.btype.f32 ...;            // .bf16, .tf32
//! wmma.mma.sync.aligned.alayout.blayout.shape{.rnd}.f64.f64.f64.f64 ...;
//! wmma.mma.op.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 ...;               // .op = .xor, .and
//! .ss = {.global, .shared{::cta}}
//! ```
//!
//! The shapes and types: m16n16k16, m8n32k16 and m32n8k16 on `.f16`,
//! `.bf16`, `.s8`, `.u8` (accumulators `.f16`, `.f32`, `.s32`);
//! m16n16k8 on `.tf32` (`.f32`); m8n8k4 on `.f64`; m8n8k32 on `.s4`/`.u4`
//! and m8n8k128 on `.b1` (`.s32`, A row-major and B column-major only).

use super::{Insn, Misfit, MmaLayout, MmaRnd};
use crate::grammar::MatShape;
use crate::Feature;
use ptxsim_syntax::ast::ScalarType;

crate::choices! {
    /// The operation of a `wmma`, written right after the opcode.
    pub enum WmmaOp "wmma operation" { Load = ".load", Store = ".store", Mma = ".mma" }
    /// The fragment `wmma.load` (`.a`, `.b`, `.c`) or `wmma.store` (`.d`) moves.
    pub enum WmmaFrag "matrix" { A = ".a", B = ".b", C = ".c", D = ".d" }
    /// The state space of `wmma.load`/`wmma.store` (none: generic).
    pub enum WmmaSpace "state space" { Global = ".global", Shared = ".shared", SharedCta = ".shared::cta" }
    /// The sub-byte element types (`.s4`, `.u4`: m8n8k32; `.b1`: m8n8k128),
    /// which are no [`ScalarType`].
    pub enum WmmaSub "sub-byte type" { S4 = ".s4", U4 = ".u4", B1 = ".b1" }
    /// The bit operation of a `.b1` `wmma.mma` (with `.popc`).
    pub enum WmmaBitOp "bit operation" { Xor = ".xor", And = ".and" }
}

/// An element type of a `wmma` fragment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WmmaElem {
    Ty(ScalarType),
    Sub(WmmaSub),
}

impl WmmaElem {
    /// The type as written.
    pub fn as_str(self) -> &'static str {
        match self {
            WmmaElem::Ty(t) => t.as_str(),
            WmmaElem::Sub(s) => s.as_str(),
        }
    }
}

/// The three shapes of the 16-bit and 8-bit multiplicands.
const SHAPES16: [(u32, u32, u32); 3] = [(16, 16, 16), (8, 32, 16), (32, 8, 16)];

/// A decoded `wmma`: its fields, and its types in the manual's roles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WmmaForm {
    pub op: WmmaOp,
    pub frag: Option<WmmaFrag>,
    pub bitop: Option<WmmaBitOp>,
    pub popc: bool,
    /// `.aligned`: required from PTX ISA 6.3 on, refused before (ptxas
    /// 12.9: "Feature '.aligned modifier for wmma' requires PTX ISA
    /// .version 6.3 or later"), which the checker judges with the module's
    /// version.
    pub aligned: bool,
    pub layout: [Option<MmaLayout>; 2],
    pub shape: Option<MatShape>,
    pub space: Option<WmmaSpace>,
    pub rnd: Option<MmaRnd>,
    pub satfinite: bool,
    /// Every type written, in order (the sub-byte ones of an `mma` stand
    /// between its `.s32`s, as the manual writes them).
    pub types: [Option<WmmaElem>; 4],
}

/// The modifiers the form refers to by their spelling.
const POPC: &str = ".popc";
const SATFINITE: &str = ".satfinite";

impl Insn {
    /// The form of a `wmma`; `None` for every other row.
    pub fn wmma(&self) -> Option<WmmaForm> {
        let Insn::Wmma { op, frag, bitop, popc, aligned, layout, shape, space, rnd, satfinite, type1, type2, type3, type4, sub, .. } = *self else { return None };
        let tys = [type1, type2, type3, type4].map(|t| t.map(WmmaElem::Ty));
        let subs = sub.map(|s| s.map(WmmaElem::Sub));
        let types = match (op, subs) {
            // `.s32.s4.s4.s32`: the sub-byte multiplicands between the
            // accumulators.
            (WmmaOp::Mma, [Some(a), b]) => [tys[0], Some(a), b, tys[1]],
            (_, [Some(a), b]) => [Some(a), b, tys[0], tys[1]],
            _ => tys,
        };
        Some(WmmaForm { op, frag, bitop, popc, aligned, layout, shape, space, rnd, satfinite, types })
    }
}

impl WmmaForm {
    /// A floating-point `wmma.mma` with `.satfinite`: ptxas 12.9 takes it
    /// before PTX ISA 6.5 (with a warning: "may produce unexpected results
    /// on sm_70 and later architectures") and refuses it from 6.5 on; the
    /// manual no longer says what it computes.
    pub fn float_satfinite(&self) -> bool {
        self.op == WmmaOp::Mma && self.satfinite && self.mma_types().is_some_and(|t| !matches!(t[1], WmmaElem::Ty(ScalarType::S8 | ScalarType::U8) | WmmaElem::Sub(_)))
    }

    /// The shape as `(m, n, k)`, if one is written with its `k`.
    pub fn mnk(&self) -> Option<(u32, u32, u32)> {
        self.shape.and_then(|s| Some((s.m, s.n, s.k?)))
    }

    /// How many types are written.
    pub fn type_count(&self) -> usize {
        self.types.iter().flatten().count()
    }

    /// The types of an `mma` as (D, A, B, C): `.dtype.ctype` is the
    /// `.f16` form (A and B `.f16`), four types the others.
    pub fn mma_types(&self) -> Option<[WmmaElem; 4]> {
        match self.types {
            [Some(d), Some(c), None, None] => Some([d, WmmaElem::Ty(ScalarType::F16), WmmaElem::Ty(ScalarType::F16), c]),
            [Some(d), Some(a), Some(b), Some(c)] => Some([d, a, b, c]),
            _ => None,
        }
    }

    /// The fragment of a load or store: `b'a'`, `b'b'`, or `b'c'` (`.c`, `.d`).
    pub fn which(&self) -> Option<u8> {
        Some(match self.frag? {
            WmmaFrag::A => b'a',
            WmmaFrag::B => b'b',
            WmmaFrag::C | WmmaFrag::D => b'c',
        })
    }

    /// Why the form is not one the manual allows (the modifier at fault,
    /// `""` for the whole instruction), as ptxas 13.5 judges it; `None`
    /// when it is one. Also what the fragments' registers are then:
    /// [`WmmaForm::regs`].
    pub fn misfit(&self) -> Option<Misfit> {
        use ScalarType::*;
        use WmmaElem::{Sub, Ty};
        let no = |modifier: &'static str, why: String| Some(Misfit { modifier, why });
        let Some((m, n, k)) = self.mnk() else { return no("", "`wmma` needs a shape (`.m16n16k16`, `.m8n32k16`, `.m32n8k16`, `.m16n16k8`, `.m8n8k4`, `.m8n8k32`, `.m8n8k128`)".into()) };
        let big = SHAPES16.contains(&(m, n, k));
        let known = big || matches!((m, n, k), (16, 16, 8) | (8, 8, 4) | (8, 8, 32) | (8, 8, 128));
        if !known {
            return no("", format!("`{}` is not a shape of `wmma`", self.shape.map(|s| s.to_string()).unwrap_or_default()));
        }
        if self.rnd.is_some() && !(self.op == WmmaOp::Mma && self.types[0] == Some(Ty(F64))) {
            return no(self.rnd.map_or("", |r| r.as_str()), "a rounding modifier applies to the `.f64` `wmma.mma` only".into());
        }
        match self.op {
            WmmaOp::Load | WmmaOp::Store => {
                let Some(frag) = self.frag else { return no("", "`wmma.load` names its matrix (`.a`, `.b`, `.c`), `wmma.store` `.d`".into()) };
                if (self.op == WmmaOp::Load) == (frag == WmmaFrag::D) {
                    return no(frag.as_str(), format!("`wmma{}` does not move matrix `{}`", self.op.as_str(), frag.as_str()));
                }
                if self.bitop.is_some() || self.popc || self.satfinite {
                    let m = self.bitop.map_or(if self.popc { POPC } else { SATFINITE }, |b| b.as_str());
                    return no(m, format!("`{m}` is a modifier of `wmma.mma` only"));
                }
                let [Some(l), None] = self.layout else { return no("", "`wmma.load`/`wmma.store` take one layout, `.row` or `.col`".into()) };
                let [Some(t), None, None, None] = self.types else { return no("", "`wmma.load`/`wmma.store` take one type".into()) };
                let a_b = frag != WmmaFrag::C && frag != WmmaFrag::D;
                let ok = match (a_b, t) {
                    (true, Ty(F16 | Bf16 | S8 | U8)) => big,
                    (true, Ty(Tf32)) | (false, Ty(F32)) if (m, n, k) == (16, 16, 8) => true,
                    // ptxas 13.5 also takes `.f32` accumulators of the
                    // sub-byte shapes (two registers), which the manual
                    // does not list.
                    (false, Ty(F32)) => big || matches!((m, n, k), (8, 8, 32) | (8, 8, 128)),
                    (false, Ty(F16)) => big,
                    (_, Ty(F64)) => (m, n, k) == (8, 8, 4),
                    (true, Sub(WmmaSub::S4 | WmmaSub::U4)) => (m, n, k) == (8, 8, 32),
                    (true, Sub(WmmaSub::B1)) => (m, n, k) == (8, 8, 128),
                    (false, Ty(S32)) => big || matches!((m, n, k), (8, 8, 32) | (8, 8, 128)),
                    _ => false,
                };
                if !ok {
                    return no(t.as_str(), format!("`{}` is not a type of matrix {} in shape `{}`", t.as_str(), frag.as_str(), self.shape.map(|s| s.to_string()).unwrap_or_default()));
                }
                // The sub-byte A is row-major, B column-major.
                if matches!(t, Sub(_)) && (frag == WmmaFrag::A) != (l == MmaLayout::Row) {
                    return no(l.as_str(), format!("the sub-byte matrix {} is `{}` only", frag.as_str(), if frag == WmmaFrag::A { ".row" } else { ".col" }));
                }
                None
            }
            WmmaOp::Mma => {
                if let Some(f) = self.frag {
                    return no(f.as_str(), format!("`{}` is a matrix of `wmma.load`/`wmma.store`, not of `wmma.mma`", f.as_str()));
                }
                if self.space.is_some() {
                    return no(self.space.map_or("", |s| s.as_str()), "`wmma.mma` takes no state space".into());
                }
                let [Some(la), Some(lb)] = self.layout else { return no("", "`wmma.mma` takes two layouts (`.alayout.blayout`)".into()) };
                let Some([d, a, b, c]) = self.mma_types() else { return no("", "`wmma.mma` takes `.dtype.ctype` (`.f16` multiplicands) or `.dtype.atype.btype.ctype`".into()) };
                let ok = a == b
                    && match (d, a, c) {
                        (Ty(F16 | F32), Ty(F16), Ty(F16 | F32)) => big && self.type_count() == 2,
                        (Ty(F32), Ty(Bf16), Ty(F32)) => big,
                        (Ty(F32), Ty(Tf32), Ty(F32)) => (m, n, k) == (16, 16, 8),
                        // ptxas 13.5 also takes the `.f64` `mma` in shapes
                        // m16n16k16 and m16n16k8 (fragments of their
                        // elements / 32 registers), which the manual does
                        // not list (and whose loads it cannot assemble).
                        (Ty(F64), Ty(F64), Ty(F64)) => matches!((m, n, k), (8, 8, 4) | (16, 16, 16) | (16, 16, 8)),
                        (Ty(S32), Ty(S8 | U8), Ty(S32)) => big,
                        (Ty(S32), Sub(WmmaSub::S4 | WmmaSub::U4), Ty(S32)) => (m, n, k) == (8, 8, 32),
                        (Ty(S32), Sub(WmmaSub::B1), Ty(S32)) => (m, n, k) == (8, 8, 128),
                        _ => false,
                    };
                if !ok {
                    let at = self.types.iter().flatten().nth(1).map_or("", |t| t.as_str());
                    return no(at, format!("`wmma.mma` has no form of shape `{}` with these types", self.shape.map(|s| s.to_string()).unwrap_or_default()));
                }
                // (`.satfinite` on the floating-point forms: PTX ISA 6.4
                // deprecated it and 6.5 removed it; the checker judges it
                // with the module's version, [`WmmaForm::float_satfinite`].)
                let b1 = a == Sub(WmmaSub::B1);
                if b1 {
                    if self.satfinite {
                        return no(SATFINITE, "the `.b1` `wmma.mma` takes no `.satfinite`".into());
                    }
                    if self.bitop.is_none() || !self.popc {
                        return no("", "the `.b1` `wmma.mma` needs its operation: `.xor.popc` or `.and.popc`".into());
                    }
                } else if self.bitop.is_some() || self.popc {
                    let m = self.bitop.map_or(POPC, |b| b.as_str());
                    return no(m, format!("`{m}` applies to the `.b1` `wmma.mma` only"));
                }
                if matches!(a, Sub(_)) && (la, lb) != (MmaLayout::Row, MmaLayout::Col) {
                    let l = if la != MmaLayout::Row { la } else { lb };
                    return no(l.as_str(), "the sub-byte `wmma.mma` is `.row.col` only".into());
                }
                None
            }
        }
    }

    /// The feature gates of the form beyond the row's: [`Feature::Wmma`]
    /// always, then those of its shape, types and operation.
    pub fn gates(&self) -> Vec<Feature> {
        use ScalarType::*;
        let mut g = vec![Feature::Wmma];
        let big = self.mnk().is_some_and(|s| SHAPES16.contains(&s));
        let mut add = |f: Feature| {
            if !g.contains(&f) {
                g.push(f)
            }
        };
        if self.aligned {
            add(Feature::WmmaAligned);
        }
        match self.mnk() {
            Some((8, 32, 16) | (32, 8, 16)) => add(Feature::WmmaShapes61),
            Some((8, 8, 32) | (8, 8, 128)) => add(Feature::WmmaSubByte),
            Some((16, 16, 8) | (8, 8, 4)) => add(Feature::WmmaSm80),
            _ => {}
        }
        for t in self.types.iter().flatten() {
            match t {
                WmmaElem::Ty(S8 | U8) => add(Feature::WmmaInt),
                WmmaElem::Ty(S32) if big => add(Feature::WmmaInt),
                WmmaElem::Ty(Bf16 | Tf32 | F64) => add(Feature::WmmaSm80),
                WmmaElem::Sub(_) => add(Feature::WmmaSubByte),
                _ => {}
            }
        }
        if self.bitop == Some(WmmaBitOp::And) {
            add(Feature::WmmaAndPopc);
        }
        if self.space == Some(WmmaSpace::SharedCta) {
            add(Feature::SharedCta);
        }
        g
    }

    /// The registers per thread of fragment `which` (`b'a'`, `b'b'`,
    /// `b'c'` for C and D) of type `t` in this form's shape, and their
    /// width in bits (PTX ISA 9.7.14.4.1-2, the fragments).
    pub fn regs(&self, which: u8, t: WmmaElem) -> (usize, u32) {
        use ScalarType::*;
        let (m, n, k) = self.mnk().unwrap_or((16, 16, 16));
        let elems = match which {
            b'a' => m * k,
            b'b' => k * n,
            _ => m * n,
        } as usize;
        match (which, t) {
            (_, WmmaElem::Ty(F64)) => (elems / 32, 64),
            (b'a' | b'b', WmmaElem::Ty(F16)) => (8, 32),
            (_, WmmaElem::Ty(F16)) => (4, 32),
            (_, WmmaElem::Ty(Bf16)) => (elems / 64, 32),
            (_, WmmaElem::Ty(S8 | U8)) => (elems / 128, 32),
            (_, WmmaElem::Sub(_)) => (1, 32),
            _ => (elems / 32, 32),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::dec;
    use crate::grammar::MatShape;
    use crate::{DecodeErrorKind as K, Insn, MmaLayout, MmaRnd, WmmaBitOp, WmmaElem, WmmaFrag, WmmaOp, WmmaSpace, WmmaSub};
    use ptxsim_syntax::ast::ScalarType::*;

    fn form(t: &str) -> super::WmmaForm {
        dec(t).unwrap_or_else(|e| panic!("{t}: {e:?}")).wmma().expect("a wmma")
    }

    const V8: &str = "{%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}";

    #[test]
    fn loads_and_stores_decode() {
        let f = form(&format!("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {V8}, [%rd1], %r9"));
        assert_eq!((f.op, f.frag, f.layout, f.space), (WmmaOp::Load, Some(WmmaFrag::A), [Some(MmaLayout::Row), None], Some(WmmaSpace::Global)));
        assert_eq!((f.shape, f.types), (Some(MatShape { m: 16, n: 16, k: Some(16) }), [Some(WmmaElem::Ty(F16)), None, None, None]));
        assert_eq!(f.misfit(), None);
        assert_eq!(f.regs(b'a', WmmaElem::Ty(F16)), (8, 32));
        // ptxas 13.5 takes the qualifiers in any order after `.load.a`.
        let g = form(&format!("wmma.load.a.row.sync.aligned.m16n16k16.f16 {V8}, [%rd1]"));
        assert_eq!((g.layout, g.space), ([Some(MmaLayout::Row), None], None));
        let s = form("wmma.store.d.sync.aligned.col.m8n8k4.shared::cta.f64 [%rd1], {%fd0, %fd1}");
        assert_eq!((s.op, s.frag, s.space, s.misfit()), (WmmaOp::Store, Some(WmmaFrag::D), Some(WmmaSpace::SharedCta), None));
        assert_eq!(s.regs(b'c', WmmaElem::Ty(F64)), (2, 64));
        let b = form("wmma.load.b.sync.aligned.col.m8n8k128.b1 {%r0}, [%rd1]");
        assert_eq!((b.types[0], b.misfit()), (Some(WmmaElem::Sub(WmmaSub::B1)), None));
    }

    #[test]
    fn mma_types_take_their_roles() {
        let f = form(&format!("wmma.mma.sync.aligned.row.col.m16n16k16.f16.f32 {{%r0}}, {V8}, {V8}, {V8}"));
        assert_eq!(f.mma_types(), Some([WmmaElem::Ty(F16), WmmaElem::Ty(F16), WmmaElem::Ty(F16), WmmaElem::Ty(F32)]));
        assert_eq!(f.misfit(), None);
        let s = form("wmma.mma.sync.aligned.row.col.m8n8k32.s32.u4.u4.s32.satfinite {%r0, %r1}, {%r2}, {%r3}, {%r4, %r5}");
        let u4 = WmmaElem::Sub(WmmaSub::U4);
        assert_eq!((s.mma_types(), s.satfinite, s.misfit()), (Some([WmmaElem::Ty(S32), u4, u4, WmmaElem::Ty(S32)]), true, None));
        let b = form("wmma.mma.xor.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%r0, %r1}, {%r2}, {%r3}, {%r4, %r5}");
        assert_eq!((b.bitop, b.popc, b.misfit()), (Some(WmmaBitOp::Xor), true, None));
        let d = form("wmma.mma.sync.aligned.col.row.m8n8k4.rz.f64.f64.f64.f64 {%fd0, %fd1}, {%fd2}, {%fd3}, {%fd4, %fd5}");
        assert_eq!((d.rnd, d.misfit()), (Some(MmaRnd::Rz), None));
    }

    /// The gates, as ptxas 13.5 (and 12.9 below sm_75) reports them.
    #[test]
    fn gates_follow_shape_types_and_operation() {
        use crate::Feature::*;
        let g = |t: &str| form(t).gates();
        assert_eq!(g(&format!("wmma.load.a.sync.row.m16n16k16.f16 {V8}, [%rd1]")), vec![Wmma]);
        assert_eq!(g(&format!("wmma.load.a.sync.aligned.row.m16n16k16.f16 {V8}, [%rd1]")), vec![Wmma, WmmaAligned]);
        assert_eq!(g(&format!("wmma.load.a.sync.row.m32n8k16.f16 {V8}, [%rd1]")), vec![Wmma, WmmaShapes61]);
        assert_eq!(g("wmma.load.c.sync.aligned.row.m16n16k16.s32 {%r0}, [%rd1]"), vec![Wmma, WmmaAligned, WmmaInt]);
        assert_eq!(g("wmma.load.c.sync.aligned.row.m8n8k128.s32 {%r0}, [%rd1]"), vec![Wmma, WmmaAligned, WmmaSubByte]);
        assert_eq!(g("wmma.mma.and.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%r0}, {%r1}, {%r2}, {%r3}"), vec![Wmma, WmmaAligned, WmmaSubByte, WmmaAndPopc]);
        assert_eq!(g("wmma.load.a.sync.aligned.row.m16n16k16.shared::cta.bf16 {%r0}, [%rd1]"), vec![Wmma, WmmaAligned, WmmaSm80, SharedCta]);
        assert_eq!(g("wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64 {%fd0}, {%fd1}, {%fd2}, {%fd3}"), vec![Wmma, WmmaAligned, WmmaSm80]);
    }

    /// Forms outside the manual's lists that ptxas 13.5 (`-arch=sm_90a`) accepts.
    #[test]
    fn ptxas_laxities_are_accepted() {
        let f = form("wmma.load.c.sync.aligned.row.m8n8k32.f32 {%f0, %f1}, [%rd1]");
        assert_eq!((f.misfit(), f.regs(b'c', WmmaElem::Ty(F32))), (None, (2, 32)));
        assert_eq!(form("wmma.store.d.sync.aligned.col.m8n8k128.f32 [%rd1], {%f0, %f1}").misfit(), None);
        let d = form("wmma.mma.sync.aligned.row.row.m16n16k8.rm.f64.f64.f64.f64 {%fd0}, {%fd1}, {%fd2}, {%fd3}");
        assert_eq!((d.misfit(), d.regs(b'a', WmmaElem::Ty(F64)), d.regs(b'c', WmmaElem::Ty(F64))), (None, (4, 64), (8, 64)));
        // "Incorrect instruction type specified for wmma.load.c with shape '.m8n8k4'".
        assert!(form("wmma.load.c.sync.aligned.row.m8n8k4.f32 {%f0, %f1}, [%rd1]").misfit().is_some());
        // "Unexpected instruction types specified for 'wmma.mma'".
        assert!(form("wmma.mma.sync.aligned.row.col.m8n8k32.f32.s4.s4.f32 {%f0}, {%r2}, {%r3}, {%f4}").misfit().is_some());
    }

    /// Forms ptxas 13.5 refuses (`-arch=sm_90a`), with its message.
    #[test]
    fn misfits_are_the_forms_ptxas_refuses() {
        let bad = |t: &str, at: &str| {
            let m = form(t).misfit().unwrap_or_else(|| panic!("{t} fits"));
            assert_eq!(m.modifier, at, "{t}: {}", m.why);
        };
        // "Unexpected instruction types specified for 'wmma.mma'" (A and B differ).
        bad("wmma.mma.sync.aligned.row.col.m16n16k16.s32.s8.u8.s32 {%r0}, {%r1}, {%r2}, {%r3}", ".s8");
        bad("wmma.mma.sync.aligned.row.col.m8n8k32.s32.s4.u4.s32 {%r0}, {%r1}, {%r2}, {%r3}", ".s4");
        // "... for 'wmma.mma'": bf16 accumulates in f32 only; f16 needs its two-type form.
        bad("wmma.mma.sync.aligned.row.col.m16n16k16.f16.bf16.bf16.f16 {%r0}, {%r1}, {%r2}, {%r3}", ".bf16");
        bad("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f16.f16.f32 {%r0}, {%r1}, {%r2}, {%r3}", ".f16");
        // "Incorrect instruction type specified for wmma.mma with shape '.m16n16k8'".
        bad("wmma.mma.sync.aligned.row.col.m16n16k8.f32.f32 {%r0}, {%r1}, {%r2}, {%r3}", ".f32");
        // (`.satfinite` on a floating-point `wmma.mma` depends on the
        // version: `float_satfinite`, judged by the checker.)
        assert!(form("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32.satfinite {%r0}, {%r1}, {%r2}, {%r3}").float_satfinite());
        assert!(!form("wmma.mma.sync.aligned.row.col.m16n16k16.s32.s8.s8.s32.satfinite {%r0}, {%r1}, {%r2}, {%r3}").float_satfinite());
        // "Illegal rounding modifier for instruction 'wmma.mma'".
        bad("wmma.mma.sync.aligned.row.col.m16n16k16.rn.f32.f32 {%r0}, {%r1}, {%r2}, {%r3}", ".rn");
        // "Boolean operation is required for instruction 'wmma.mma'".
        bad("wmma.mma.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%r0}, {%r1}, {%r2}, {%r3}", "");
        bad("wmma.mma.xor.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%r0}, {%r1}, {%r2}, {%r3}", "");
        // "Illegal alayout '.col' for instruction 'wmma.mma'" / "... 'wmma.load.a'".
        bad("wmma.mma.sync.aligned.col.col.m8n8k32.s32.s4.s4.s32 {%r0}, {%r1}, {%r2}, {%r3}", ".col");
        bad("wmma.load.a.sync.aligned.col.m8n8k32.s4 {%r0}, [%rd1]", ".col");
        bad("wmma.load.b.sync.aligned.row.m8n8k32.s4 {%r0}, [%rd1]", ".row");
        // "layout modifier required for instruction 'wmma.load.a'" (none, or two).
        bad("wmma.load.a.sync.aligned.row.col.m16n16k16.f16 {%r0}, [%rd1]", "");
        // "Unexpected instruction types specified for 'wmma.store.d'", "Illegal type for wmma.load.a".
        bad("wmma.store.d.sync.aligned.row.m16n16k16.bf16 [%rd1], {%r0}", ".bf16");
        bad("wmma.load.a.sync.aligned.row.m16n16k16.f32 {%r0}, [%rd1]", ".f32");
        // "Unknown modifier '.d'" (`wmma.load.d`), "Unknown modifier '.c'" (`wmma.store.c`).
        bad("wmma.load.d.sync.aligned.row.m16n16k16.f32 {%r0}, [%rd1]", ".d");
        bad("wmma.store.c.sync.aligned.row.m16n16k16.f32 [%rd1], {%r0}", ".c");
    }

    #[test]
    fn grammar_errors_name_the_modifier() {
        let e = |t: &str| dec(t).unwrap_err();
        // ".sync modifier required for instruction 'wmma.load.a'" (ptxas 13.5).
        assert!(matches!(e("wmma.load.a.aligned.row.m16n16k16.f16 {%r0}, [%rd1]"), (K::Missing { slot: "sync", .. }, _)));
        // (`.aligned` is optional to the grammar: required from PTX ISA 6.3
        // on, refused before; the checker judges it with the version.)
        assert!(!form("wmma.load.a.sync.row.m16n16k16.f16 {%r0}, [%rd1]").aligned);
        // "State space incorrect for instruction 'wmma.load.a'".
        assert!(matches!(e("wmma.load.a.sync.aligned.row.m16n16k16.local.f16 {%r0}, [%rd1]"), (K::UnexpectedModifier { .. }, s) if s == ".local"));
        assert!(matches!(e("wmma.load.a.sync.aligned.row.m16n16k16.shared::cluster.f16 {%r0}, [%rd1]"), (K::UnexpectedModifier { .. }, s) if s == ".shared::cluster"));
        assert!(matches!(e("wmma.load.a.b.sync.aligned.row.m16n16k16.f16 {%r0}, [%rd1]"), (K::Conflict { first: ".a", .. }, s) if s == ".b"));
        assert!(matches!(e("wmma.mma.sync.aligned.row.col.m16n16k16.f32.u16 {%r0}, {%r1}, {%r2}, {%r3}"), (K::TypeNotAllowed { .. }, s) if s == ".u16"));
        assert!(matches!(dec("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%r0}, {%r1}, {%r2}, {%r3}"), Ok(Insn::Wmma { .. })));
    }
}

//! The texture and surface rows of [`crate::for_each_op!`] (PTX ISA
//! 9.7.10 `tex`, `tld4`, `txq`; 9.7.11 `suld`, `sust`, `sured`, `suq`):
//! their modifier choices, what each geometry asks of the coordinate
//! operands ([`TexGeom`]), which combinations the manual (and ptxas 13.5
//! at `-arch=sm_90a`) refuses ([`Insn::tex_misfit`]), and their decode
//! tests. The engine does not model textures or surfaces (the rows say
//! so); the operands are the checker's (`rules/tex.rs`). The syntax:
//!
//! ```text
//! tex{.base,.level,.grad}.geom.v4.dtype.ctype  d, [a, {b,} c] {, lod | , dPdx, dPdy} {, e} {, f};
//! tex{.base,.level,.grad}.geom.v2.f16x2.ctype  d, [a, {b,} c] ...;
//!     .geom  = { .1d, .2d, .3d, .a1d, .a2d, .cube, .acube, .2dms, .a2dms };
//!     .dtype = { .u32, .s32, .f16, .f32 };  .ctype = { .s32, .f32 }
//!     (.cube, .acube need .f32; .2dms, .a2dms need .s32 and take no .level/.grad)
//! tld4.comp.geom.v4.dtype.f32  d, [a, {b,} c] {, e} {, f};
//!     .comp = { .r, .g, .b, .a };  .geom = { .2d, .a2d, .cube, .acube };  .dtype = { .u32, .s32, .f32 }
//! txq.tquery.b32 d, [a];  txq.level.tlquery.b32 d, [a], lod;  txq.squery.b32 d, [a];
//!     .tquery  = { .width, .height, .depth, .channel_data_type, .channel_order,
//!                  .normalized_coords, .array_size, .num_mipmap_levels, .num_samples }
//!     .tlquery = { .width, .height, .depth }
//!     .squery  = { .force_unnormalized_coords, .filter_mode, .addr_mode_0, .addr_mode_1, .addr_mode_2 }
//!     (ptxas 13.5 also takes `suq`'s `.memory_layout`)
//! suld.b.geom{.cop}.vec.dtype.clamp  d, [a, b];
//!     .geom = { .1d, .2d, .3d, .a1d, .a2d };  .cop = { .ca, .cg, .cs, .cv }
//!     .vec = { none, .v2, .v4 };  .dtype = { .b8, .b16, .b32, .b64 };  .clamp = { .trap, .clamp, .zero }
//! sust.b.geom{.cop}.vec.ctype.clamp  [a, b], c;   sust.p.geom{.cop}.vec.b32.clamp [a, b], c;
//!     .cop = { .wb, .cg, .cs, .wt }
//! sured.b.op.geom.ctype.clamp [a, b], c;   sured.p.op.geom.ctype.clamp [a, b], c;
//!     .op = { .add, .min, .max, .and, .or };  .geom = { .1d, .2d, .3d }
//!     .b: .add { .u32, .u64, .s32 }, .min/.max { .u32, .s32, .u64, .s64 }, .and/.or { .b32 }
//!     .p: .b32 for every operation, .b64 for .min/.max
//! suq.query.b32 d, [a];
//!     .query = { .width, .height, .depth, .channel_data_type, .channel_order, .array_size, .memory_layout }
//! ```
//!
//! The `.v4` (`.v2` for `.f16x2`) of `tex`/`tld4` and the clamp mode of
//! the surface instructions are required (ptxas 13.5: "Instruction
//! 'tex.f32' requires .v4 type", "Clamp modifier required").

use super::Insn;
use ptxsim_syntax::ast::ScalarType;

crate::choices! {
    /// The geometry of a texture or surface access (PTX ISA 9.7.10.3).
    pub enum TexGeom "geometry" {
        D1 = ".1d", D2 = ".2d", D3 = ".3d", A1d = ".a1d", A2d = ".a2d", Cube = ".cube", Acube = ".acube", D2ms = ".2dms", A2dms = ".a2dms"
    }
    /// The vector of a texture or surface access.
    pub enum TexVec "vector" { V2 = ".v2", V4 = ".v4" }
    /// How `tex` picks the mipmap level: the base level, an explicit level
    /// of detail (`lod`) or gradients (`dPdx`, `dPdy`).
    pub enum TexMip "mipmap mode" { Base = ".base", Level = ".level", Grad = ".grad" }
    /// The component `tld4` gathers.
    pub enum Tld4Comp "component" { R = ".r", G = ".g", B = ".b", A = ".a" }
    /// What `txq` asks of a texture or a sampler.
    pub enum TxqQuery "query" {
        Width = ".width", Height = ".height", Depth = ".depth", ChannelDataType = ".channel_data_type", ChannelOrder = ".channel_order",
        NormalizedCoords = ".normalized_coords", ArraySize = ".array_size", NumMipmapLevels = ".num_mipmap_levels", NumSamples = ".num_samples",
        ForceUnnormalizedCoords = ".force_unnormalized_coords", FilterMode = ".filter_mode", AddrMode0 = ".addr_mode_0", AddrMode1 = ".addr_mode_1",
        AddrMode2 = ".addr_mode_2", MemoryLayout = ".memory_layout"
    }
    /// What `suq` asks of a surface.
    pub enum SuqQuery "query" {
        Width = ".width", Height = ".height", Depth = ".depth", ChannelDataType = ".channel_data_type", ChannelOrder = ".channel_order",
        ArraySize = ".array_size", MemoryLayout = ".memory_layout"
    }
    /// How a surface instruction addresses its data: `.b` unformatted
    /// (byte addressing of `x`), `.p` formatted.
    pub enum SurfAccess "surface addressing" { B = ".b", P = ".p" }
    /// What a surface access out of range does.
    pub enum SurfClamp "clamp mode" { Trap = ".trap", Clamp = ".clamp", Zero = ".zero" }
    /// The cache operation of `suld` (`.ca`, `.cg`, `.cs`, `.cv`) or `sust` (`.wb`, `.cg`, `.cs`, `.wt`).
    pub enum SurfCop "cache operation" { Ca = ".ca", Cg = ".cg", Cs = ".cs", Cv = ".cv", Wb = ".wb", Wt = ".wt" }
    /// The operation of `sured`.
    pub enum SuredOp "reduction operation" { Add = ".add", Min = ".min", Max = ".max", And = ".and", Or = ".or" }
}

impl TexGeom {
    /// Whether an array index leads the coordinates (`.a1d`, `.a2d`, `.acube`, `.a2dms`).
    pub fn arrayed(self) -> bool {
        matches!(self, TexGeom::A1d | TexGeom::A2d | TexGeom::Acube | TexGeom::A2dms)
    }
    /// Whether it is a multi-sample geometry (`.2dms`, `.a2dms`).
    pub fn multisample(self) -> bool {
        matches!(self, TexGeom::D2ms | TexGeom::A2dms)
    }
    /// Whether a surface instruction takes it (`.1d` ... `.a2d`).
    pub fn surface(self) -> bool {
        matches!(self, TexGeom::D1 | TexGeom::D2 | TexGeom::D3 | TexGeom::A1d | TexGeom::A2d)
    }
    /// The elements of the coordinate vector `c`: the array index (and for
    /// the multi-sample geometries the sample index) and the coordinates,
    /// padded to a vector size (`.3d`'s fourth element is ignored).
    pub fn coords(self) -> usize {
        match self {
            TexGeom::D1 => 1,
            TexGeom::D2 | TexGeom::A1d => 2,
            _ => 4,
        }
    }
    /// The elements of a gradient (`dPdx`, `dPdy`) or offset (`e`) vector:
    /// one per dimension, padded to a vector size.
    pub fn dims(self) -> usize {
        match self {
            TexGeom::D1 | TexGeom::A1d => 1,
            TexGeom::D2 | TexGeom::A2d | TexGeom::D2ms | TexGeom::A2dms => 2,
            _ => 4,
        }
    }
}

impl SuredOp {
    /// Whether `sured.b` (`p == false`) or `sured.p` takes type `t` with this operation.
    pub fn takes(self, p: bool, t: ScalarType) -> bool {
        use ScalarType::*;
        match (p, self) {
            (false, SuredOp::Add) => matches!(t, U32 | U64 | S32),
            (false, SuredOp::Min | SuredOp::Max) => matches!(t, U32 | S32 | U64 | S64),
            (false, SuredOp::And | SuredOp::Or) => t == B32,
            (true, SuredOp::Min | SuredOp::Max) => matches!(t, B32 | B64),
            (true, _) => t == B32,
        }
    }
}

impl TxqQuery {
    /// Whether it asks about the sampler (`.force_unnormalized_coords`,
    /// `.filter_mode`, `.addr_mode_i`) rather than the texture.
    pub fn sampler(self) -> bool {
        matches!(self, TxqQuery::ForceUnnormalizedCoords | TxqQuery::FilterMode | TxqQuery::AddrMode0 | TxqQuery::AddrMode1 | TxqQuery::AddrMode2)
    }
    /// Whether `txq.level` takes it (`.width`, `.height`, `.depth`).
    pub fn per_level(self) -> bool {
        matches!(self, TxqQuery::Width | TxqQuery::Height | TxqQuery::Depth)
    }
}

/// Why a texture or surface instruction is not a form the manual has: the
/// row field at fault (its modifier: [`crate::field_span`]; `""` for the
/// whole instruction) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TexMisfit {
    pub field: &'static str,
    pub why: String,
}

impl Insn {
    /// Why a `tex`, `tld4`, `txq`, `suld`, `sust`, `sured` or `suq` is not
    /// a form the manual has (as ptxas 13.5 judges them, its message in
    /// each arm); `None` when it is one, and for every other row.
    pub fn tex_misfit(&self) -> Option<TexMisfit> {
        use ScalarType::*;
        let no = |field: &'static str, why: String| Some(TexMisfit { field, why });
        match *self {
            Insn::Tex { mip, geom, vec, dtype, ctype } => {
                // "Instruction 'tex.f32' requires .v4 type".
                let want = if dtype == F16x2 { TexVec::V2 } else { TexVec::V4 };
                if vec != Some(want) {
                    return no(if vec.is_some() { "vec" } else { "" }, format!("`tex` with `{}` returns a `{}` vector", dtype.as_str(), want.as_str()));
                }
                // "Illegal modifier 'Multi-sample geometry' for instruction 'tex.level'".
                if let Some(m @ (TexMip::Level | TexMip::Grad)) = mip {
                    if geom.multisample() {
                        return no("geom", format!("`tex{}` does not take the multi-sample geometry `{}`", m.as_str(), geom.as_str()));
                    }
                }
                // "Floating-point coordinates required"; "Integer coordinates require .s32 instruction type".
                if matches!(geom, TexGeom::Cube | TexGeom::Acube) && ctype != F32 {
                    return no("ctype", format!("`tex{}` takes `.f32` coordinates", geom.as_str()));
                }
                if geom.multisample() && ctype != S32 {
                    return no("ctype", format!("`tex{}` takes `.s32` coordinates", geom.as_str()));
                }
                None
            }
            Insn::Tld4 { geom, vec, .. } => {
                // "Illegal modifier '.1d' for instruction 'tld4'".
                if !matches!(geom, TexGeom::D2 | TexGeom::A2d | TexGeom::Cube | TexGeom::Acube) {
                    return no("geom", format!("`tld4` does not take the geometry `{}` (`.2d`, `.a2d`, `.cube`, `.acube`)", geom.as_str()));
                }
                // "Instruction 'tld4.f32' requires .v4 type".
                if vec != Some(TexVec::V4) {
                    return no(if vec.is_some() { "vec" } else { "" }, "`tld4` returns a `.v4` vector".into());
                }
                None
            }
            Insn::Txq { level, query, .. } => {
                // "Illegal query modifier for instruction 'txq.level'".
                if level && !query.per_level() {
                    return no("query", format!("`txq.level` asks `.width`, `.height` or `.depth`, not `{}`", query.as_str()));
                }
                None
            }
            Insn::Suld { access, geom, cop, vec, dtype, .. } => {
                // "Not a name of any known instruction: 'suld.p'".
                if access == SurfAccess::P {
                    return no("access", "`suld` reads unformatted data only: `suld.b`".into());
                }
                surface_misfit(geom, vec, dtype).or_else(|| match cop {
                    // "Illegal modifier '.wb' for instruction 'suld.b'".
                    Some(c @ (SurfCop::Wb | SurfCop::Wt)) => no("cop", format!("`{}` is a store cache operation; `suld` takes `.ca`, `.cg`, `.cs`, `.cv`", c.as_str())),
                    _ => None,
                })
            }
            Insn::Sust { access, geom, cop, vec, ctype, .. } => {
                // "Unexpected instruction types specified for 'sust.p'".
                if access == SurfAccess::P && ctype != B32 {
                    return no("ctype", format!("`sust.p` stores `.b32` components, not `{}`", ctype.as_str()));
                }
                surface_misfit(geom, vec, ctype).or_else(|| match cop {
                    // "Illegal modifier '.ca' for instruction 'sust.b'".
                    Some(c @ (SurfCop::Ca | SurfCop::Cv)) => no("cop", format!("`{}` is a load cache operation; `sust` takes `.wb`, `.cg`, `.cs`, `.wt`", c.as_str())),
                    _ => None,
                })
            }
            Insn::Sured { access, op, geom, ctype, .. } => {
                // "Illegal modifier '.a1d' for instruction 'sured.b'".
                if !matches!(geom, TexGeom::D1 | TexGeom::D2 | TexGeom::D3) {
                    return no("geom", format!("`sured` does not take the geometry `{}` (`.1d`, `.2d`, `.3d`)", geom.as_str()));
                }
                // "Incorrect type '.b32' for operation '.add' in instruction 'sured.b'".
                let p = access == SurfAccess::P;
                if !op.takes(p, ctype) {
                    return no("ctype", format!("`sured{}{}` does not take `{}`", access.as_str(), op.as_str(), ctype.as_str()));
                }
                None
            }
            _ => None,
        }
    }
}

/// The geometry and vector rules `suld` and `sust` share.
fn surface_misfit(geom: TexGeom, vec: Option<TexVec>, ty: ScalarType) -> Option<TexMisfit> {
    // "Illegal modifier '.cube' for instruction 'suld.b'".
    if !geom.surface() {
        return Some(TexMisfit { field: "geom", why: format!("a surface access does not take the geometry `{}` (`.1d`, `.2d`, `.3d`, `.a1d`, `.a2d`)", geom.as_str()) });
    }
    // "Vector type too large, exceeds 128 bit limit".
    if vec == Some(TexVec::V4) && ty == ScalarType::B64 {
        return Some(TexMisfit { field: "vec", why: "`.v4.b64` is 256 bits; a surface access moves at most 128".into() });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::tests::dec;
    use super::*;
    use crate::DecodeErrorKind as K;
    use ptxsim_syntax::ast::ScalarType::*;

    fn misfit(t: &str) -> Option<&'static str> {
        dec(t).unwrap_or_else(|e| panic!("{t}: {e:?}")).tex_misfit().map(|m| m.field)
    }

    #[test]
    fn rows_decode_the_manual_syntax() {
        assert_eq!(
            dec("tex.level.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [t, {%f5, %f6}], %f7"),
            Ok(Insn::Tex { mip: Some(TexMip::Level), geom: TexGeom::D2, vec: Some(TexVec::V4), dtype: F32, ctype: F32 })
        );
        assert_eq!(
            dec("tld4.g.a2d.v4.s32.f32 {%r1, %r2, %r3, %r4}, [t, s, {%r5, %f6, %f7, %f8}]"),
            Ok(Insn::Tld4 { comp: Tld4Comp::G, geom: TexGeom::A2d, vec: Some(TexVec::V4), dtype: S32, ctype: F32 })
        );
        assert_eq!(dec("txq.level.width.b32 %r1, [t], %r2"), Ok(Insn::Txq { level: true, query: TxqQuery::Width, ty: B32 }));
        assert_eq!(
            dec("suld.b.2d.cg.v2.b32.clamp {%r1, %r2}, [s, {%r3, %r4}]"),
            Ok(Insn::Suld { access: SurfAccess::B, geom: TexGeom::D2, cop: Some(SurfCop::Cg), vec: Some(TexVec::V2), dtype: B32, clamp: SurfClamp::Clamp })
        );
        assert_eq!(
            dec("sured.b.min.3d.s64.zero [s, {%r1, %r2, %r3, %r4}], %rd1"),
            Ok(Insn::Sured { access: SurfAccess::B, op: SuredOp::Min, geom: TexGeom::D3, ctype: S64, clamp: SurfClamp::Zero })
        );
        assert_eq!(dec("suq.memory_layout.b32 %r1, [s]"), Ok(Insn::Suq { query: SuqQuery::MemoryLayout, ty: B32 }));
        let e = |t: &str| dec(t).unwrap_err();
        // ptxas 13.5: "Geometry modifier required for instruction 'tex'".
        assert!(matches!(e("tex.v4.f32.f32 {%f1, %f2, %f3, %f4}, [t, {%f5, %f6}]"), (K::Missing { slot: "geometry", .. }, _)));
        // "Multiple dimension modifiers specified".
        assert!(matches!(e("tex.2d.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [t, {%f5, %f6}]"), (K::Conflict { .. }, s) if s == ".3d"));
        // "Unknown modifier '.grad'" (after `.level`).
        assert!(matches!(e("tex.level.grad.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [t, {%f5, %f6}], %f7"), (K::Conflict { .. }, s) if s == ".grad"));
        // "Clamp modifier required for instruction 'suld.b'"; "Multiple clamp modifiers specified".
        assert!(matches!(e("suld.b.1d.b32 %r1, [s, {%r2}]"), (K::Missing { slot: "clamp mode", .. }, _)));
        assert!(matches!(e("suld.b.1d.b32.trap.clamp %r1, [s, {%r2}]"), (K::Conflict { .. }, s) if s == ".clamp"));
        // "Unexpected instruction types specified for 'txq'".
        assert!(matches!(e("txq.width.u32 %r1, [t]"), (K::TypeNotAllowed { .. }, s) if s == ".u32"));
        // "Component modifier required for instruction 'tld4'".
        assert!(matches!(e("tld4.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [t, {%f5, %f6}]"), (K::Missing { slot: "component", .. }, _)));
        // "Illegal operation '(null)' for instruction 'sured.b'".
        assert!(matches!(e("sured.b.1d.u32.trap [s, {%r1}], %r2"), (K::Missing { slot: "reduction operation", .. }, _)));
        // "Unknown modifier '.samp_pos'"; "Illegal query modifier for instruction 'suq'".
        assert!(matches!(e("txq.samp_pos.b32 %r1, [t]"), (K::UnexpectedModifier { .. }, s) if s == ".samp_pos"));
        assert!(matches!(e("suq.num_samples.b32 %r1, [s]"), (K::UnexpectedModifier { .. }, s) if s == ".num_samples"));
        for op in ["tex", "tld4", "txq", "suld", "sust", "sured", "suq"] {
            assert!(crate::lookup(op).is_some_and(|r| r.typed), "{op}");
        }
    }

    /// The combinations ptxas 13.5 (`-arch=sm_90a`) refuses, with its messages.
    #[test]
    fn misfits_are_the_forms_ptxas_refuses() {
        assert_eq!(misfit("tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [t, {%f5, %f6}]"), None);
        assert_eq!(misfit("tex.2d.v2.f16x2.f32 {%r1, %r2}, [t, {%f5, %f6}]"), None);
        assert_eq!(misfit("tex.base.2dms.v4.f32.s32 {%f1, %f2, %f3, %f4}, [t, {%r5, %r6, %r7, %r8}]"), None);
        // "Instruction 'tex.f32' requires .v4 type"; "Instruction 'tex.f16x2' requires .v2 type".
        assert_eq!(misfit("tex.2d.f32.f32 %f1, [t, {%f5, %f6}]"), Some(""));
        assert_eq!(misfit("tex.2d.v4.f16x2.f32 {%r1, %r2, %r3, %r4}, [t, {%f5, %f6}]"), Some("vec"));
        // "Illegal modifier 'Multi-sample geometry' for instruction 'tex.level'".
        assert_eq!(misfit("tex.level.2dms.v4.f32.s32 {%f1, %f2, %f3, %f4}, [t, {%r5, %r6, %r7, %r8}], %r1"), Some("geom"));
        // "Floating-point coordinates required".
        assert_eq!(misfit("tex.cube.v4.f32.s32 {%f1, %f2, %f3, %f4}, [t, {%r5, %r6, %r7, %r8}]"), Some("ctype"));
        // "Integer coordinates require .s32 instruction type".
        assert_eq!(misfit("tex.a2dms.v4.f32.f32 {%f1, %f2, %f3, %f4}, [t, {%r5, %r6, %r7, %r8}]"), Some("ctype"));
        // "Illegal modifier '.3d' for instruction 'tld4'".
        assert_eq!(misfit("tld4.r.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [t, {%f5, %f6, %f7, %f8}]"), Some("geom"));
        // "Illegal query modifier for instruction 'txq.level'".
        assert_eq!(misfit("txq.level.array_size.b32 %r1, [t], %r2"), Some("query"));
        // "Not a name of any known instruction: 'suld.p'".
        assert_eq!(misfit("suld.p.1d.b32.trap %r1, [s, {%r2}]"), Some("access"));
        // "Illegal modifier '.wb' for instruction 'suld.b'"; "... '.ca' for instruction 'sust.b'".
        assert_eq!(misfit("suld.b.1d.wb.b32.trap %r1, [s, {%r2}]"), Some("cop"));
        assert_eq!(misfit("sust.b.1d.ca.b32.trap [s, {%r2}], %r1"), Some("cop"));
        assert_eq!(misfit("sust.p.1d.cg.b32.trap [s, {%r2}], %r1"), None);
        // "Vector type too large, exceeds 128 bit limit".
        assert_eq!(misfit("suld.b.1d.v4.b64.zero {%rd1, %rd2, %rd3, %rd4}, [s, {%r2}]"), Some("vec"));
        // "Illegal modifier '.cube' for instruction 'suld.b'"; "... '.a1d' for instruction 'sured.b'".
        assert_eq!(misfit("suld.b.cube.b32.trap %r1, [s, {%r1, %r2, %r3, %r4}]"), Some("geom"));
        assert_eq!(misfit("sured.b.add.a1d.u32.trap [s, {%r1, %r2}], %r3"), Some("geom"));
        // "Unexpected instruction types specified for 'sust.p'".
        assert_eq!(misfit("sust.p.1d.b64.trap [s, {%r1}], %rd1"), Some("ctype"));
        // "Incorrect type '.b32' for operation '.add' in instruction 'sured.b'", and what each takes.
        assert_eq!(misfit("sured.b.add.1d.b32.trap [s, {%r1}], %r2"), Some("ctype"));
        assert_eq!(misfit("sured.b.add.1d.s64.trap [s, {%r1}], %rd2"), Some("ctype"));
        assert_eq!(misfit("sured.b.max.1d.s64.trap [s, {%r1}], %rd2"), None);
        assert_eq!(misfit("sured.b.and.1d.u32.trap [s, {%r1}], %r2"), Some("ctype"));
        assert_eq!(misfit("sured.p.add.1d.b32.trap [s, {%r1}], %r2"), None);
        assert_eq!(misfit("sured.p.min.1d.b64.trap [s, {%r1}], %rd2"), None);
        assert_eq!(misfit("sured.p.or.1d.b64.trap [s, {%r1}], %rd2"), Some("ctype"));
    }
}

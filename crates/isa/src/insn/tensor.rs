//! The modifier choices of the tensor rows (`ldmatrix`, `stmatrix`,
//! `movmatrix`, `mma`, `wgmma`, `tensormap`, `setmaxnreg`), as the PTX ISA
//! manual's syntax sections spell them (9.7.14.5 warp-level matrix
//! instructions, 9.7.15 wgmma, 9.7.9.28 tensormap, 9.7.17.1 setmaxnreg),
//! and their decode tests. The rows themselves are in [`crate::for_each_op!`];
//! which combinations an opcode allows is its checker rule's business
//! (`ptxsim-check`'s `rules/tensor.rs`), as ptxas 12.9 judges them.

crate::choices! {
    /// `setmaxnreg`'s action (PTX ISA 9.7.17.1).
    pub enum RegAction "action" { Inc = ".inc", Dec = ".dec" }
    /// The operation of a `wgmma` (PTX ISA 9.7.15.5-9.7.15.7).
    pub enum WgmmaOp "wgmma operation" { Fence = ".fence", CommitGroup = ".commit_group", WaitGroup = ".wait_group", MmaAsync = ".mma_async" }
    /// The single-bit element type of a `.b1` `wgmma` (A and B).
    pub enum WgmmaBit "single-bit type" { B1 = ".b1" }
    /// The bit operation of a `.b1` `wgmma` (`.and.popc`).
    pub enum WgmmaBitOp "bit operation" { And = ".and" }
    /// How many 8x8 matrices `ldmatrix`/`stmatrix` move (9.7.14.5.15).
    pub enum MatrixNum "matrix count" { X1 = ".x1", X2 = ".x2", X4 = ".x4" }
    /// The state space of `ldmatrix`/`stmatrix`.
    pub enum MatrixSpace "state space" { Shared = ".shared", SharedCta = ".shared::cta" }
    /// The layout of an `mma` multiplicand (9.7.14.5.14).
    pub enum MmaLayout "layout" { Row = ".row", Col = ".col" }
    /// The rounding of an `.f64` `mma`.
    pub enum MmaRnd "rounding" { Rn = ".rn", Rz = ".rz", Rm = ".rm", Rp = ".rp" }
    /// The operation of a `tensormap` (9.7.9.28, 9.7.9.29).
    pub enum TensormapOp "tensormap operation" { Replace = ".replace", CpFenceproxy = ".cp_fenceproxy" }
    /// The mode of `tensormap.replace`.
    pub enum TensormapMode "mode" { Tile = ".tile" }
    /// The field `tensormap.replace` writes.
    pub enum TensormapField "field" {
        GlobalAddress = ".global_address",
        Rank = ".rank",
        BoxDim = ".box_dim",
        GlobalDim = ".global_dim",
        GlobalStride = ".global_stride",
        ElementStride = ".element_stride",
        Elemtype = ".elemtype",
        InterleaveLayout = ".interleave_layout",
        SwizzleMode = ".swizzle_mode",
        SwizzleAtomicity = ".swizzle_atomicity",
        FillMode = ".fill_mode",
    }
    /// The state spaces of a `tensormap` (the map's, and
    /// `cp_fenceproxy`'s destination and source).
    pub enum TensormapSpace "state space" { Global = ".global", SharedCta = ".shared::cta" }
    /// The load mode of `cp.async.bulk.tensor` and
    /// `cp.reduce.async.bulk.tensor` (9.7.9.25.5): a box of the tensor, or
    /// the im2col traversal (with offsets, global to shared; without, the
    /// shared-to-global direction). sm_100's `.tile::gather4`,
    /// `.tile::scatter4` and `.im2col::w` modes are not among them.
    pub enum TensorLoadMode "load mode" { Tile = ".tile", Im2col = ".im2col", Im2colNoOffs = ".im2col_no_offs" }
    /// The scope of `tensormap.cp_fenceproxy`'s release.
    pub enum ProxyScope "scope" { Cta = ".cta", Cluster = ".cluster", Gpu = ".gpu", Sys = ".sys" }
}

/// The spellings of flag modifiers the rules point at (a flag's text is in
/// its row; a rule that needs its span finds it by this).
pub mod spelling {
    /// `mma`'s and `wgmma`'s saturation.
    pub const SATFINITE: &str = ".satfinite";
    /// The cache-policy flag of ld, st, atom and red.
    pub const L2_CACHE_HINT: &str = ".L2::cache_hint";
    /// ld's and st's memory-mapped I/O flag.
    pub const MMIO: &str = ".mmio";
}

impl MatrixNum {
    /// The number of matrices (and of registers per thread).
    pub fn count(self) -> usize {
        match self {
            MatrixNum::X1 => 1,
            MatrixNum::X2 => 2,
            MatrixNum::X4 => 4,
        }
    }
}

impl TensormapField {
    /// Whether the field is indexed by a dimension (`ord` operand).
    pub fn ordinal(self) -> bool {
        matches!(self, TensormapField::BoxDim | TensormapField::GlobalDim | TensormapField::GlobalStride | TensormapField::ElementStride)
    }

    /// The largest value of an enumerated field on sm_90a (ptxas 12.9:
    /// "value 'N' expected to be in range [0..M] when .elemtype modifier is
    /// used"); such a value must be an integer constant. `None` for the
    /// fields that take any value of their type.
    pub fn max_value(self) -> Option<u32> {
        Some(match self {
            TensormapField::Elemtype => 12,
            TensormapField::InterleaveLayout => 2,
            TensormapField::SwizzleMode => 3,
            TensormapField::FillMode => 1,
            _ => return None,
        })
    }

    /// The width of the new value the manual gives the field (`.b64` for the
    /// address and the strides, `.b32` for the others).
    pub fn bits(self) -> u32 {
        match self {
            TensormapField::GlobalAddress | TensormapField::GlobalStride => 64,
            _ => 32,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::grammar::MatShape;
    use crate::{decode, DecodeErrorKind as K, Insn};
    use crate::{MatrixNum, MatrixSpace, MmaLayout, MmaRnd, ProxyScope, RegAction, TensormapField, TensormapMode, TensormapOp, TensormapSpace, WgmmaBit, WgmmaBitOp, WgmmaOp};
    use ptxsim_syntax::ast::{Item, ScalarType::*, Statement};

    /// Decodes the one instruction `text`, with the source text of the error's span.
    fn dec(text: &str) -> Result<Insn, (K, String)> {
        let src = format!(".version 8.5\n.target sm_90a\n.entry k() {{ {text}; }}");
        let parsed = ptxsim_syntax::parse(&src);
        assert!(!parsed.has_errors(), "{text}: {:?}", parsed.diagnostics);
        let f = parsed.module.items.iter().find_map(|i| match i {
            Item::Function(f) => Some(f),
            _ => None,
        });
        let i = f.and_then(|f| f.body.as_ref()).and_then(|b| b.stmts.iter().find_map(|s| match s {
            Statement::Instr(i) => Some(i),
            _ => None,
        }));
        decode(i.expect("an instruction")).map_err(|e| (e.kind, src[e.span.start as usize..e.span.end as usize].to_string()))
    }

    fn sh(m: u32, n: u32, k: Option<u32>) -> Option<MatShape> {
        Some(MatShape { m, n, k })
    }

    #[test]
    fn shapes_parse_as_the_manual_spells_them() {
        assert_eq!(MatShape::parse(".m64n256k16"), sh(64, 256, Some(16)));
        assert_eq!(MatShape::parse(".m8n8"), sh(8, 8, None));
        assert_eq!(MatShape::parse(".m16n8k4"), sh(16, 8, Some(4)));
        for no in [".m", ".mn8", ".m8n", ".m8n8k", ".m8x8", ".row", ".m8n8k4x", ".m+8n8"] {
            assert_eq!(MatShape::parse(no), None, "{no}");
        }
        assert_eq!(MatShape { m: 64, n: 8, k: Some(32) }.to_string(), ".m64n8k32");
    }

    #[test]
    fn setmaxnreg_decodes() {
        // PTX ISA 9.7.17.1: setmaxnreg.action.sync.aligned.u32 imm-reg-count.
        assert_eq!(dec("setmaxnreg.dec.sync.aligned.u32 40"), Ok(Insn::Setmaxnreg { action: RegAction::Dec, sync: (), aligned: (), ty: U32 }));
        // ptxas 12.9 takes the qualifiers in any order.
        assert_eq!(dec("setmaxnreg.inc.aligned.sync.u32 240"), Ok(Insn::Setmaxnreg { action: RegAction::Inc, sync: (), aligned: (), ty: U32 }));
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("setmaxnreg.inc.sync.u32 32"), (K::Missing { slot: "aligned", .. }, s) if s == "setmaxnreg.inc.sync.u32"));
        assert!(matches!(e("setmaxnreg.sync.aligned.u32 32"), (K::Missing { slot: "action", .. }, _)));
        assert!(matches!(e("setmaxnreg.inc.dec.sync.aligned.u32 32"), (K::Conflict { first: ".inc", .. }, s) if s == ".dec"));
        assert!(matches!(e("setmaxnreg.inc.sync.aligned.f32 32"), (K::TypeNotAllowed { ty: ".f32", .. }, s) if s == ".f32"));
    }

    #[test]
    fn wgmma_decodes_each_operation() {
        let w = |op, shape, satfinite, dtype, atype, btype| Insn::Wgmma { op, sp: false, sync: (), aligned: (), shape, satfinite, dtype, atype, btype, b1: [None, None], bitop: None, popc: false };
        assert_eq!(dec("wgmma.fence.sync.aligned"), Ok(w(WgmmaOp::Fence, None, false, None, None, None)));
        assert_eq!(dec("wgmma.wait_group.sync.aligned 1"), Ok(w(WgmmaOp::WaitGroup, None, false, None, None, None)));
        assert_eq!(
            dec("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%f0}, %rd1, %rd2, 1, 1, 1, 0, 0"),
            Ok(w(WgmmaOp::MmaAsync, sh(64, 128, Some(16)), false, Some(F32), Some(Bf16), Some(Bf16)))
        );
        assert_eq!(
            dec("wgmma.mma_async.sync.aligned.m64n8k32.s32.u8.s8.satfinite {%r0}, %rd1, %rd2, 1"),
            Ok(w(WgmmaOp::MmaAsync, sh(64, 8, Some(32)), true, Some(S32), Some(U8), Some(S8)))
        );
        assert_eq!(
            dec("wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.and.popc {%r0}, %rd1, %rd2, 1"),
            Ok(Insn::Wgmma { op: WgmmaOp::MmaAsync, sp: false, sync: (), aligned: (), shape: sh(64, 8, Some(256)), satfinite: false, dtype: Some(S32), atype: None, btype: None, b1: [Some(WgmmaBit::B1), Some(WgmmaBit::B1)], bitop: Some(WgmmaBitOp::And), popc: true })
        );
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("wgmma.fence.aligned"), (K::Missing { slot: "sync", .. }, s) if s == "wgmma.fence.aligned"));
        assert!(matches!(e("wgmma.fence.commit_group.sync.aligned"), (K::Conflict { first: ".fence", .. }, s) if s == ".commit_group"));
        assert!(matches!(e("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16.f16 {%f0}, %rd1, %rd2, 1"), (K::UnexpectedModifier { .. }, s) if s == ".f16"));
        assert!(matches!(e("wgmma.mma_async.sync.aligned.m64n8k16.u32.f16.f16 {%f0}, %rd1, %rd2, 1"), (K::TypeNotAllowed { slot: "dtype", .. }, s) if s == ".u32"));
        assert!(matches!(e("wgmma.mma_async.sync.aligned.m64n8k16.m64n16k16.f32.f16.f16 {%f0}, %rd1, %rd2, 1"), (K::UnexpectedModifier { .. }, s) if s == ".m64n16k16"));
        assert!(matches!(e("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16.rn {%f0}, %rd1, %rd2, 1"), (K::UnexpectedModifier { .. }, s) if s == ".rn"));
    }

    #[test]
    fn matrix_rows_decode() {
        assert_eq!(
            dec("ldmatrix.sync.aligned.m8n8.x4.trans.shared::cta.b16 {%r0, %r1, %r2, %r3}, [%r4]"),
            Ok(Insn::Ldmatrix { sync: (), aligned: (), shape: sh(8, 8, None), num: MatrixNum::X4, trans: true, space: Some(MatrixSpace::SharedCta), ty: B16 })
        );
        assert_eq!(
            dec("stmatrix.sync.aligned.m8n8.x1.b16 [%rd1], {%r0}"),
            Ok(Insn::Stmatrix { sync: (), aligned: (), shape: sh(8, 8, None), num: MatrixNum::X1, trans: false, space: None, ty: B16 })
        );
        assert_eq!(dec("movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r2"), Ok(Insn::Movmatrix { sync: (), aligned: (), shape: sh(8, 8, None), trans: true, ty: B16 }));
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("ldmatrix.sync.aligned.m8n8.b16 {%r0}, [%r4]"), (K::Missing { slot: "matrix count", .. }, _)));
        assert!(matches!(e("ldmatrix.sync.aligned.m8n8.x1.x2.b16 {%r0}, [%r4]"), (K::Conflict { first: ".x1", .. }, s) if s == ".x2"));
        assert!(matches!(e("ldmatrix.sync.aligned.m8n8.x1.global.b16 {%r0}, [%r4]"), (K::UnexpectedModifier { .. }, s) if s == ".global"));
        assert!(matches!(e("ldmatrix.sync.aligned.m8n8.x1.b32 {%r0}, [%r4]"), (K::TypeNotAllowed { ty: ".b32", .. }, s) if s == ".b32"));
        assert!(matches!(e("movmatrix.sync.m8n8.trans.b16 %r1, %r2"), (K::Missing { slot: "aligned", .. }, _)));
    }

    #[test]
    fn mma_decodes_layouts_and_four_types() {
        assert_eq!(
            dec("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f0}, {%r0}, {%r1}, {%f1}"),
            Ok(Insn::Mma { sync: (), aligned: (), shape: sh(16, 8, Some(16)), layout: [Some(MmaLayout::Row), Some(MmaLayout::Col)], rnd: None, satfinite: false, dtype: F32, atype: Bf16, btype: Bf16, ctype: F32 })
        );
        assert_eq!(
            dec("mma.sync.aligned.m8n8k4.row.col.rz.f64.f64.f64.f64 {%fd0}, {%fd1}, {%fd2}, {%fd3}"),
            Ok(Insn::Mma { sync: (), aligned: (), shape: sh(8, 8, Some(4)), layout: [Some(MmaLayout::Row), Some(MmaLayout::Col)], rnd: Some(MmaRnd::Rz), satfinite: false, dtype: F64, atype: F64, btype: F64, ctype: F64 })
        );
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("mma.sync.aligned.m16n8k16.row.col.row.f32.f16.f16.f32 {%f0}, {%r0}, {%r1}, {%f1}"), (K::UnexpectedModifier { .. }, s) if s == ".row"));
        assert!(matches!(e("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16 {%f0}, {%r0}, {%r1}, {%f1}"), (K::Missing { slot: "ctype", .. }, _)));
        assert!(matches!(e("mma.sync.aligned.m16n8k16.row.col.rn.rz.f64.f64.f64.f64 {%f0}, {%r0}, {%r1}, {%f1}"), (K::Conflict { first: ".rn", .. }, s) if s == ".rz"));
    }

    #[test]
    fn tensormap_decodes_both_operations() {
        assert_eq!(
            dec("tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%rd1], 1, %r2"),
            Ok(Insn::Tensormap { op: TensormapOp::Replace, mode: Some(TensormapMode::Tile), field: Some(TensormapField::BoxDim), spaces: [Some(TensormapSpace::SharedCta), None], b1024: true, ty: Some(B32), proxy: false, release: false, scope: None, sync: false, aligned: false })
        );
        assert_eq!(
            dec("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [%rd2], 128"),
            Ok(Insn::Tensormap { op: TensormapOp::CpFenceproxy, mode: None, field: None, spaces: [Some(TensormapSpace::Global), Some(TensormapSpace::SharedCta)], b1024: false, ty: None, proxy: true, release: true, scope: Some(ProxyScope::Gpu), sync: true, aligned: true })
        );
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("tensormap.replace.tile.rank.box_dim.global.b1024.b32 [%rd1], %r2"), (K::Conflict { first: ".rank", .. }, s) if s == ".box_dim"));
        assert!(matches!(e("tensormap.replace.tile.rank.global.b1024.u32 [%rd1], %r2"), (K::TypeNotAllowed { ty: ".u32", .. }, s) if s == ".u32"));
        assert!(matches!(e("tensormap.tile.rank.global.b1024.b32 [%rd1], %r2"), (K::Missing { slot: "tensormap operation", .. }, _)));
        assert_eq!(TensormapField::GlobalStride.bits(), 64);
        assert!(TensormapField::ElementStride.ordinal() && !TensormapField::Rank.ordinal());
        assert_eq!((TensormapField::SwizzleMode.max_value(), TensormapField::Rank.max_value()), (Some(3), None));
    }
}

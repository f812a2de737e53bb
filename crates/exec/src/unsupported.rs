//! The one list of what the checker accepts and the engine does not run yet.
//!
//! An entry is one of:
//! - an opcode of the checker's instruction table (as the table writes it,
//!   `cp.async` included) that has no decoder ([`crate::decodes_opcode`] is
//!   false);
//! - an instruction form (opcode, modifiers and types as written) of an
//!   opcode that has a decoder, which refuses that form;
//! - the decoder's message for an operand form, or a declaration, it cannot
//!   use yet.
//!
//! An unsupported instruction loads as [`crate::program::Op::Unsupported`]
//! naming its form, and running it traps with that name and its line; an
//! unsupported declaration (predicate parameters) fails the load. The workspace's agreement test keeps this
//! list, the checker's table, the decoder and README.md's "Not supported
//! yet" section in step.

/// What the checker accepts and the engine does not run yet, sorted.
pub const NOT_SUPPORTED_YET: &[&str] = &[
    "`%r1` is not a constant",
    "`_` is not a predicate register",
    "`ltbl` is not a .calltargets list, call table or .callprototype",
    "addc.sat.s32",
    "addc.u16",
    "alloca",
    "atom.global.cas.b16",
    "brkpt",
    "clusterlaunchcontrol",
    "cp",
    "cp.async",
    "cvt.rna.tf32.f32",
    "fma.rn.relu.f16",
    "frc",
    "getctarank",
    "griddepcontrol",
    "isspacep",
    "istypep",
    "ldmatrix",
    "madc.hi.sat.s32",
    "madc.lo.u16",
    "mapa",
    "max.xorsign.abs.f32",
    "mbarrier",
    "min.NaN.f32",
    "mma",
    "movmatrix",
    "multimem",
    "nop",
    "pmevent",
    "predicate parameters are not supported yet",
    "prmt.b32.f4e",
    "set.nan.f16.f16",
    "setmaxnreg",
    "setp.lt.bf16x2",
    "setp.lt.f16x2",
    "stackrestore",
    "stacksave",
    "stmatrix",
    "subc.s16",
    "subc.sat.s32",
    "suld",
    "suq",
    "sured",
    "sust",
    "tcgen05",
    "tensormap",
    "tex",
    "tld4",
    "txq",
    "unknown address base `ltbl`",
    "vabsdiff",
    "vabsdiff2",
    "vabsdiff4",
    "vadd",
    "vadd2",
    "vadd4",
    "vavrg2",
    "vavrg4",
    "vmad",
    "vmax",
    "vmax2",
    "vmax4",
    "vmin",
    "vmin2",
    "vmin4",
    "vset",
    "vset2",
    "vset4",
    "vshl",
    "vshr",
    "vsub",
    "vsub2",
    "vsub4",
    "wgmma",
    "wmma",
];

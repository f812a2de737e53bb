//! The one list of what the checker accepts and the engine does not run yet.
//!
//! An entry is one of:
//! - an opcode of the instruction description (as its row writes it,
//!   `cp.async` included) marked not supported yet, so that it has no
//!   decoder ([`crate::decodes_opcode`] is false): generated from those rows
//!   ([`ptxsim_isa::not_supported_yet`], which also gives the reason);
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

/// The instruction forms, operand forms and declarations the engine's
/// decoders refuse (the opcodes' rows say they have a decoder).
const FORMS: &[&str] = &[
    "`%r1` is not a constant",
    "`ltbl` is not a .calltargets list, call table or .callprototype",
    "addc.sat.s32",
    "addc.u16",
    "madc.hi.sat.s32",
    // Volta's `mma.m8n8k4` on `.f16` (quad-pair fragments): not decoded yet.
    "mma.sync.aligned.m8n8k4.col.col.f16",
    "mma.sync.aligned.m8n8k4.row.col.f16",
    "mma.sync.aligned.m8n8k4.row.col.f32",
    "mma.sync.aligned.m8n8k4.row.row.f16",
    "madc.lo.u16",
    "predicate parameters are not supported yet",
    "rcp.rn.ftz.f64",
    "subc.s16",
    "subc.sat.s32",
    "unknown address base `ltbl`",
    // `.satfinite` on a floating-point `wmma.mma` (PTX ISA < 6.5): the
    // manual no longer defines it (ptxas warns of "unexpected results").
    "wmma.mma.sync.aligned.row.col.m16n16k16.f16.f16.satfinite",
];

/// What the checker accepts and the engine does not run yet, sorted: the
/// opcodes the instruction description marks not supported yet, and
/// [`FORMS`].
pub static NOT_SUPPORTED_YET: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
    let mut v: Vec<&'static str> = ptxsim_isa::not_supported_yet().map(|(op, _)| op).chain(FORMS.iter().copied()).collect();
    v.sort_unstable();
    v.dedup();
    v
});

/// Why an entry of [`NOT_SUPPORTED_YET`] is not supported yet: the reason
/// of an opcode's row, or for a form of an opcode that runs, that the
/// decoder does not read that form yet.
pub fn reason(entry: &str) -> &'static str {
    ptxsim_isa::not_supported_yet().find(|(op, _)| *op == entry).map(|(_, why)| why).unwrap_or("this form is not decoded yet")
}

//! The `cvt`, `cvt.pack`, `atom` and `red` rules of the typed rows
//! (`ptxsim_isa`'s grammars and `Insn::misfit`, `rules/convert.rs`,
//! `rules/atomic.rs`): one instruction per kernel, each verdict as ptxas
//! 13.5 gives it (`-arch=sm_90a` or `sm_100a`, `.version 9.0`) and the PTX
//! ISA manual states it (9.7.9.21 cvt, 9.7.9.22 cvt.pack, 9.7.13.5 atom,
//! 9.7.13.6 red).

use ptxsim_syntax::Diagnostic;

const DECL: &str = ".reg .s16 %hs<5>;\n.reg .u16 %hu<5>;\n.reg .s32 %s<5>;\n.reg .u32 %u<5>;\n.reg .s64 %sd<5>;\n.reg .u64 %ud<5>;\n.reg .f32 %f<9>;\n.reg .f64 %fd<5>;\n.reg .b16 %h<5>;\n.reg .b32 %r<9>;\n.reg .b64 %rd<5>;\n.reg .b128 %q<5>;\n.reg .pred %p<3>;";

/// The first error `ptxsim check` reports on a kernel made of `ins`, on
/// `target`.
fn first_error(target: &str, ins: &str) -> Option<String> {
    let src = format!(".version 9.0\n.target {target}\n.address_size 64\n.visible .entry k()\n{{\n{DECL}\n {ins}\n ret;\n}}\n");
    let parsed = ptxsim_syntax::parse(&src);
    let mut diags = parsed.diagnostics;
    if !diags.iter().any(Diagnostic::is_error) {
        diags.extend(ptxsim_check::check_module(&parsed.module));
    }
    diags.into_iter().find(Diagnostic::is_error).map(|d| format!("{}: {}", d.code, d.message))
}

#[track_caller]
fn accepted(target: &str, ins: &[&str]) {
    for i in ins {
        assert_eq!(first_error(target, i), None, "{i}");
    }
}

#[track_caller]
fn rejected(target: &str, ins: &[&str]) {
    for i in ins {
        assert!(first_error(target, i).is_some(), "{i} should be rejected");
    }
}

/// PTX ISA 9.7.9.21 "Rounding modifiers": an integer rounding is required
/// from a float to an integer, a float rounding from an integer to a float
/// and into a narrower float; other roundings are illegal (ptxas 13.5:
/// "Rounding modifier required", "Illegal rounding modifier").
#[test]
fn cvt_rounding_is_required_or_illegal_by_direction() {
    accepted("sm_90a", &[
        "cvt.rzi.s32.f32 %s1, %f2;",
        "cvt.rn.f32.u32 %f1, %u2;",
        "cvt.rn.f32.f64 %f1, %fd2;",
        "cvt.f64.f32 %fd1, %f2;",
        "cvt.rni.f32.f32 %f1, %f2;",
        "cvt.f32.f32 %f1, %f2;",
        "cvt.rn.f16.f32 %h1, %f2;",
        "cvt.f32.f16 %f1, %h2;",
        "cvt.rn.bf16.f16 %h1, %h2;",
        "cvt.f16.bf16 %h1, %h2;",
        // ptxas 13.5 takes a float rounding from `.bf16` to a wider float.
        "cvt.rn.f32.bf16 %f1, %h2;",
    ]);
    rejected("sm_90a", &[
        "cvt.s32.f32 %s1, %f2;",
        "cvt.rn.s32.f32 %s1, %f2;",
        "cvt.f32.u32 %f1, %u2;",
        "cvt.rni.f32.u32 %f1, %u2;",
        "cvt.f32.f64 %f1, %fd2;",
        "cvt.rni.f32.f64 %f1, %fd2;",
        "cvt.rn.f64.f32 %fd1, %f2;",
        "cvt.rni.f64.f32 %fd1, %f2;",
        "cvt.rn.f32.f32 %f1, %f2;",
        "cvt.f16.f32 %h1, %f2;",
        "cvt.rn.f32.f16 %f1, %h2;",
        "cvt.rni.bf16.f16 %h1, %h2;",
        "cvt.rna.f32.f64 %f1, %fd2;",
        "cvt.rs.f16.f32 %h1, %f2;",
    ]);
}

/// `.ftz` applies where `.f32` is the source or the result; bfloat16
/// takes no `.sat`; bfloat16 does not convert to or from the 8-bit
/// integers (ptxas 13.5: "Modifier '.ftz' does not apply to this type of
/// convert operation", "Illegal modifier '.sat'", "Arguments mismatch").
#[test]
fn cvt_ftz_sat_and_bfloat16() {
    accepted("sm_90a", &["cvt.rni.ftz.s32.f32 %s1, %f2;", "cvt.ftz.f64.f32 %fd1, %f2;", "cvt.rn.ftz.bf16.f32 %h1, %f2;", "cvt.rni.sat.u32.f32 %u1, %f2;", "cvt.rni.u16.bf16 %hu1, %h2;"]);
    rejected("sm_90a", &[
        "cvt.rni.ftz.s32.f64 %s1, %fd2;",
        "cvt.ftz.f32.f32.f32 %f1, %f2;",
        "cvt.rn.ftz.f16.f64 %h1, %fd2;",
        "cvt.sat.f32.bf16 %f1, %h2;",
        "cvt.rni.sat.s32.bf16 %s1, %h2;",
        "cvt.rni.u8.bf16 %hu1, %h2;",
        "cvt.rn.bf16.s8 %h1, %hs2;",
    ]);
}

/// `.relu` and `.satfinite` belong to `cvt.frnd2{.relu}{.satfinite}.{f16,bf16}.f32`
/// (`.rn` or `.rz`, no `.ftz`) and the packed forms (ptxas 13.5:
/// "Unexpected instruction types", "Illegal rounding modifier",
/// "Illegal modifier '.ftz'").
#[test]
fn cvt_relu_and_satfinite() {
    accepted("sm_90a", &["cvt.rz.relu.f16.f32 %h1, %f2;", "cvt.rn.relu.satfinite.bf16.f32 %h1, %f2;", "cvt.rz.satfinite.f16.f32 %h1, %f2;"]);
    rejected("sm_90a", &["cvt.rni.relu.s32.f32 %s1, %f2;", "cvt.rn.relu.f32.f64 %f1, %fd2;", "cvt.rm.relu.f16.f32 %h1, %f2;", "cvt.rn.ftz.relu.f16.f32 %h1, %f2;", "cvt.rn.satfinite.f16.f16 %h1, %h2;"]);
}

/// The packing and narrow-format forms as the manual lists them and
/// ptxas 13.5 accepts them on sm_100a; their operand counts.
#[test]
fn cvt_packed_forms() {
    accepted("sm_100a", &[
        "cvt.rn.relu.f16x2.f32 %r1, %f2, %f3;",
        "cvt.rs.relu.satfinite.bf16x2.f32 %r1, %f2, %f3, %r4;",
        "cvt.rna.satfinite.tf32.f32 %r1, %f2;",
        "cvt.rz.relu.tf32.f32 %r1, %f2;",
        "cvt.rn.satfinite.e4m3x2.f32 %h1, %f2, %f3;",
        "cvt.rn.relu.satfinite.e5m2x2.f16x2 %h1, %r2;",
        "cvt.rn.relu.f16x2.e3m2x2 %r1, %h2;",
        "cvt.rp.satfinite.ue8m0x2.bf16x2 %h1, %r2;",
        "cvt.rn.bf16x2.ue8m0x2 %r1, %h2;",
        "cvt.rs.satfinite.e4m3x4.f32 %r1, {%f1, %f2, %f3, %f4}, %r5;",
    ]);
    rejected("sm_100a", &[
        "cvt.rm.f16x2.f32 %r1, %f2, %f3;",
        "cvt.rn.f16x2.f32 %r1, %f2, %f3, %r4;",
        "cvt.rs.f16x2.f32 %r1, %f2, %f3;",
        "cvt.rn.ftz.bf16x2.f32 %r1, %f2, %f3;",
        "cvt.rna.relu.tf32.f32 %r1, %f2;",
        "cvt.rn.e4m3x2.f32 %h1, %f2, %f3;",
        "cvt.rz.satfinite.e4m3x2.f32 %h1, %f2, %f3;",
        "cvt.rn.satfinite.e4m3x2.bf16x2 %h1, %r2;",
        "cvt.rn.satfinite.f16x2.e4m3x2 %r1, %h2;",
        "cvt.rn.ue8m0x2.f32 %h1, %f2, %f3;",
        "cvt.rz.relu.ue8m0x2.f32 %h1, %f2, %f3;",
        "cvt.rn.relu.bf16x2.ue8m0x2 %r1, %h2;",
        "cvt.rn.satfinite.e4m3x4.f32 %r1, {%f1, %f2, %f3, %f4}, %r5;",
        "cvt.rn.f16x2.u32 %r1, %u2;",
    ]);
}

/// `cvt.pack.sat.{u16,s16}.s32 d, a, b` and `.{u8,s8,u4,s4,u2,s2}.s32.b32
/// d, a, b, c` (PTX ISA 9.7.9.22).
#[test]
fn cvt_pack_forms() {
    accepted("sm_90a", &["cvt.pack.sat.s16.s32 %r1, %r2, %r3;", "cvt.pack.sat.u4.s32.b32 %r1, %r2, %r3, %r4;"]);
    rejected("sm_90a", &["cvt.pack.s16.s32 %r1, %r2, %r3;", "cvt.pack.sat.s16.s32.b32 %r1, %r2, %r3, %r4;", "cvt.pack.sat.u8.s32 %r1, %r2, %r3;", "cvt.pack.sat.u8.u32.b32 %r1, %r2, %r3, %r4;"]);
}

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

/// `mov.type` takes `.pred .b16 .b32 .b64 .u16 .u32 .u64 .s16 .s32 .s64
/// .f32 .f64` (PTX ISA 9.7.9.1) and `.b128` (9.7.9.2), no half type and
/// no `.ftz` (ptxas 13.5: "Unexpected instruction types", "Illegal
/// modifier '.ftz'").
#[test]
fn mov_types_and_modifiers() {
    accepted("sm_90a", &["mov.b16 %h1, %h2;", "mov.f32 %f1, %f2;", "mov.b128 %q1, %q2;", "mov.b64 %rd1, {%r1, %r2};"]);
    rejected("sm_90a", &["mov.f16 %h1, %h2;", "mov.bf16x2 %r1, %r2;", "mov.ftz.f32 %f1, %f2;"]);
}

/// `.noftz` belongs to `.add` (and the vector `.min`/`.max`) on the half
/// types and is required there; the half `.min`/`.max` exist in vector
/// forms only (PTX ISA 9.7.13.5; ptxas 13.5: "'.noftz' modifier required",
/// "Illegal modifier '.noftz'", "Vector modifier required").
#[test]
fn atom_noftz_and_half_types() {
    accepted("sm_90a", &[
        "atom.global.add.noftz.f16 %h1, [%rd1], %h2;",
        "red.global.add.noftz.bf16x2 [%rd1], %r2;",
        "atom.global.v8.max.noftz.bf16 {%h1, %h2, %h3, %h4, %h1, %h2, %h3, %h4}, [%rd1], {%h1, %h2, %h3, %h4, %h1, %h2, %h3, %h4};",
        "atom.global.add.f32 %f1, [%rd1], %f2;",
    ]);
    rejected("sm_90a", &[
        "atom.global.add.f16 %h1, [%rd1], %h2;",
        "red.global.add.f16x2 [%rd1], %r2;",
        "atom.global.add.noftz.u32 %u1, [%rd1], %u2;",
        "atom.global.cas.noftz.b32 %r1, [%rd1], %r2, %r3;",
        "atom.global.max.noftz.bf16 %h1, [%rd1], %h2;",
    ]);
}

/// The vector atomics (PTX ISA 9.7.13.5, sm_90): `.global` (or generic)
/// addresses, `.add.f32` in `.v2`/`.v4`, `.add`/`.min`/`.max` on
/// `.f16`/`.bf16` up to `.v8` and on `.f16x2`/`.bf16x2` in `.v2`/`.v4`
/// (ptxas 13.5: "State space incorrect", "Vector qualifier is not
/// allowed", "Only .v2 or .v4 vector modifier supported").
#[test]
fn atom_vector_forms() {
    accepted("sm_90a", &["atom.global.v4.add.f32 {%f1, %f2, %f3, %f4}, [%rd1], {%f5, %f6, %f7, %f8};", "red.v2.add.noftz.f16x2 [%rd1], {%r1, %r2};"]);
    rejected("sm_90a", &[
        "atom.shared.v2.add.f32 {%f1, %f2}, [%rd1], {%f3, %f4};",
        "atom.global.v2.exch.b32 {%r1, %r2}, [%rd1], {%r3, %r4};",
        "atom.global.v8.add.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd1], {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8};",
        "red.global.v8.add.noftz.f16x2 [%rd1], {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8};",
    ]);
}

/// The orders, the cache hint and the operations' modifiers: `red` orders
/// as `.relaxed` or `.release` (PTX ISA 9.7.13.6); `.sc`, `.volatile` and
/// `.mmio` are no atomic orders; `.L2::cache_hint` takes its policy
/// operand, and not on shared memory or `.cas` (ptxas 13.5).
#[test]
fn atom_orders_and_cache_hint() {
    accepted("sm_90a", &[
        "atom.acq_rel.gpu.global.add.u32 %u1, [%rd1], %u2;",
        "red.release.cluster.shared::cluster.add.u32 [%rd1], %u2;",
        "atom.global.add.L2::cache_hint.u32 %u1, [%rd1], %u2, %rd3;",
        "atom.exch.L2::cache_hint.b128 %q1, [%rd1], %q2, %rd3;",
        "atom.global.cas.b128 %q1, [%rd1], %q2, %q3;",
    ]);
    rejected("sm_90a", &[
        "red.acquire.gpu.global.add.u32 [%rd1], %u2;",
        "red.acq_rel.global.add.u32 [%rd1], %u2;",
        "atom.sc.gpu.global.add.u32 %u1, [%rd1], %u2;",
        "atom.volatile.global.add.u32 %u1, [%rd1], %u2;",
        "atom.mmio.relaxed.sys.global.add.u32 %u1, [%rd1], %u2;",
        "atom.global.add.L2::cache_hint.u32 %u1, [%rd1], %u2;",
        "atom.shared.add.L2::cache_hint.u32 %u1, [%rd1], %u2, %rd3;",
        "atom.global.cas.L2::cache_hint.b32 %r1, [%rd1], %r2, %r4, %rd3;",
    ]);
}

/// `red.async.relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes.op.type
/// [a], b, [mbar]` with `.inc`/`.dec` `.u32`, `.min`/`.max` `.u32 .s32`,
/// `.add` `.u32 .s32 .u64`, `.and`/`.or`/`.xor` `.b32` (PTX ISA 9.7.13.7;
/// ptxas 13.5 on sm_90a).
#[test]
fn red_async_forms() {
    accepted("sm_90a", &[
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u64 [%rd1], %ud2, [%rd2];",
        "red.async.relaxed.cluster.mbarrier::complete_tx::bytes.xor.b32 [%rd1], %r2, [%rd2];",
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.dec.u32 [%rd1], %u2, [%rd2];",
    ]);
    rejected("sm_90a", &[
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.min.s64 [%rd1], %sd2, [%rd2];",
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.f32 [%rd1], %f2, [%rd2];",
        "red.async.relaxed.cluster.add.u32 [%rd1], %u2;",
        "red.async.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%rd1], %u2, [%rd2];",
        "red.async.relaxed.gpu.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%rd1], %u2, [%rd2];",
    ]);
}

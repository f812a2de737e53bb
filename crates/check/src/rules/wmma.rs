//! The warp matrix functions, rule `check/wmma` (PTX ISA 9.7.14.4), on the
//! typed row `wmma` ([`Insn::wmma`]) as ptxas 13.5 judges it
//! (`-arch=sm_90a`):
//!
//! - the operation comes first, `wmma.load.{a,b,c}`, `wmma.store.d`,
//!   `wmma.mma`, the other qualifiers in any order after it (ptxas:
//!   "Unknown modifier '.load'" otherwise);
//! - the shape, layouts and types are a combination the manual lists
//!   ([`ptxsim_isa::WmmaForm::misfit`]);
//! - `wmma.load` takes `d, [p]{, stride}`, `wmma.store` `[p], d{, stride}`,
//!   `wmma.mma` `d, a, b, c`; each fragment is a vector of exactly the
//!   registers it needs ("Argument vector size mismatch"), each 32-bit
//!   (64-bit for `.f64`), the first of a type that fits the fragment
//!   ("Arguments mismatch"); the stride a `.u32` value.

use super::memory::address;
use super::operand::{value, Role};
use super::opname;
use super::operand::{resolve_operand, special};
use super::tensor::vector;
use crate::ctx::{Ctx, Sym};
use crate::types::Size;
use ptxsim_isa::grammar::modifier_span;
use ptxsim_isa::{Insn, WmmaElem, WmmaForm, WmmaOp, WmmaSpace};
use ptxsim_syntax::ast::{Instruction, Operand, OperandKind, ScalarType, StateSpace};
use ptxsim_syntax::{Diagnostic, Span};

const NOTE: &str = "rule check/wmma (PTX ISA 9.7.14.4): `wmma.load.{a,b,c}.sync.aligned.layout.shape{.global,.shared{::cta}}.type r, [p]{, stride}`, `wmma.store.d.sync.aligned.layout.shape{.ss}.type [p], r{, stride}`, `wmma.mma{.xor.popc,.and.popc}.sync.aligned.alayout.blayout.shape{.rnd}.dtype{.atype.btype}.ctype{.satfinite} d, a, b, c`, in the shapes and types the manual lists, each fragment a vector of its registers";

fn err(cx: &mut Ctx<'_, '_>, span: Span, msg: String, label: &str) {
    cx.emit(Diagnostic::error("check/wmma", span, msg).with_label(label.to_string()).with_note(NOTE));
}

fn count(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, n: &str) {
    cx.emit(
        Diagnostic::error("check/operand-count", i.span, format!("`{}` takes {n} operands; {} given", opname(i), i.operands.len()))
            .with_note("rule check/operand-count (PTX ISA 9.7.14.4): `wmma.load` takes `r, [p]{, stride}`, `wmma.store` `[p], r{, stride}`, `wmma.mma` `d, a, b, c`"),
    );
}

/// The register types the first element of a fragment of `t` may have
/// (ptxas 13.5 infers the vector's type from it: "Arguments mismatch"
/// otherwise); `None` for any of the fragment's width (the sub-byte ones).
fn reg_types(t: WmmaElem) -> Option<&'static [ScalarType]> {
    use ScalarType::*;
    match t {
        WmmaElem::Ty(F16) => Some(&[B32, F16x2]),
        WmmaElem::Ty(Bf16 | Tf32) => Some(&[B32]),
        WmmaElem::Ty(S8 | U8 | S32) => Some(&[B32, U32, S32]),
        WmmaElem::Ty(F32) => Some(&[B32, F32]),
        WmmaElem::Ty(F64) => Some(&[B64, F64]),
        _ => None,
    }
}

/// The elements of a fragment vector, as ptxas 13.5 checks them: each a
/// register of `bits` bits; the first of a type [`reg_types`] allows; a
/// destination's others may be the sink `_`; a source's may be immediates
/// of the first one's kind (an integer for bit-size and integer registers,
/// a floating-point literal for floating-point ones: "Vector with elements
/// of different types are not allowed").
fn elements<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, elems: &[Operand<'a>], t: WmmaElem, bits: u32, role: Role) -> bool {
    // The first element's kind: a floating-point register or literal.
    let float = elems.first().is_some_and(|e| match &e.kind {
        OperandKind::Float(_) => true,
        OperandKind::Name { name, component: None } => matches!(cx.lookup(name.text), Some(Sym::Var(v)) if v.space() == StateSpace::Reg && matches!(v.ty(), Some(ScalarType::F32 | ScalarType::F64))),
        _ => false,
    });
    for (k, e) in elems.iter().enumerate() {
        match &e.kind {
            OperandKind::Sink if role == Role::Dest && k > 0 => {}
            OperandKind::Int(_) | OperandKind::Float(_) if role == Role::Src => {
                if float != matches!(e.kind, OperandKind::Float(_)) {
                    err(cx, e.span, format!("`{}`: the elements of a fragment have one type; this immediate is not of the first element's", opname(i)), "immediate of another type");
                    return false;
                }
            }
            OperandKind::Name { name, component: None } if special(name.text).is_none() => {
                let Some(sym) = cx.lookup(name.text) else {
                    resolve_operand(cx, e);
                    return false;
                };
                let ty = match sym {
                    Sym::Var(v) if v.space() == StateSpace::Reg => v.ty(),
                    _ => None,
                };
                let Some(ty) = ty else {
                    err(cx, e.span, format!("`{}`: a fragment element must be a register", opname(i)), "register expected");
                    return false;
                };
                if ty.bits() != bits {
                    err(cx, e.span, format!("`{}`: the elements of this fragment are {bits}-bit registers; `{}` is a `{}` register", opname(i), name.text, ty.as_str()), "incompatible vector element");
                    return false;
                }
                if k == 0 && reg_types(t).is_some_and(|ok| !ok.contains(&ty)) {
                    let want = reg_types(t).unwrap_or(&[]).iter().map(|t| format!("`{}`", t.as_str())).collect::<Vec<_>>().join(" or ");
                    err(cx, e.span, format!("`{}`: a `{}` fragment is held in {want} registers; `{}` is a `{}` register", opname(i), t.as_str(), name.text, ty.as_str()), "register of another type");
                    return false;
                }
            }
            _ => {
                let what = if role == Role::Dest { "a destination fragment element must be a register" } else { "a fragment element must be a register or an immediate" };
                err(cx, e.span, format!("`{}`: {what}", opname(i)), "register expected");
                return false;
            }
        }
    }
    true
}

/// Checks a `wmma`.
pub fn check<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, insn: &Insn) {
    let Some(f) = insn.wmma() else { return super::operand::resolve_all(cx, i) };
    // The operation (and a load's or store's matrix) leads.
    let lead = i.modifiers.first().map(|m| m.text) == Some(f.op.as_str())
        && (f.op == WmmaOp::Mma || i.modifiers.get(1).map(|m| m.text) == f.frag.map(|x| x.as_str()));
    if !lead {
        let s = modifier_span(i, f.op.as_str());
        err(cx, s, format!("`{}`: the operation comes first: `wmma.load.a`, `wmma.load.b`, `wmma.load.c`, `wmma.store.d` or `wmma.mma`", opname(i)), "unknown modifier here");
        return super::operand::resolve_all(cx, i);
    }
    if let Some(m) = f.misfit() {
        err(cx, modifier_span(i, m.modifier), format!("`{}`: {}", opname(i), m.why), "not a form of `wmma`");
        return super::operand::resolve_all(cx, i);
    }
    let head = i.opcode.span.to(i.modifiers.last().map(|m| m.span).unwrap_or(i.opcode.span));
    for g in f.gates() {
        cx.require(g, head);
    }
    if !aligned_and_satfinite(cx, i, &f, head) {
        return super::operand::resolve_all(cx, i);
    }
    match f.op {
        WmmaOp::Load | WmmaOp::Store => load_store(cx, i, &f),
        WmmaOp::Mma => mma(cx, i, &f),
    }
}

/// `.aligned`, required from PTX ISA 6.3 on, and
/// `.satfinite` on a floating-point `wmma.mma`, taken with a warning before
/// PTX ISA 6.5 and refused from it on (the manual deprecated it in 6.4 and
/// removed it in 6.5; what ptxas 12.9 says is quoted). False when the
/// instruction is refused.
fn aligned_and_satfinite(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, f: &WmmaForm, head: Span) -> bool {
    use crate::isa::PtxVersion;
    // (`.aligned` before 6.3 is refused by its gate, `Feature::WmmaAligned`.)
    let v63 = cx.version_at_least(PtxVersion::new(6, 3));
    if !f.aligned && v63 {
        err(cx, head, format!("`{}`: `wmma` needs `.aligned` from PTX ISA 6.3 on (ptxas: \".aligned modifier required\")", opname(i)), "`.aligned` missing");
        return false;
    }
    if f.float_satfinite() {
        let span = modifier_span(i, ptxsim_isa::spelling::SATFINITE);
        if cx.version_at_least(PtxVersion::new(6, 5)) {
            err(cx, span, format!("`{}`: `.satfinite` applies to the integer `wmma.mma` forms only (PTX ISA 6.5 removed it from the floating-point ones; ptxas: \"not supported starting from PTX ISA version 6.5\")", opname(i)), "not a form of `wmma`");
            return false;
        }
        cx.emit(
            Diagnostic::warning("check/wmma", span, format!("`{}`: `.satfinite` on a floating-point `wmma.mma` is deprecated since PTX ISA 6.4, and its results on sm_70 and later are unspecified (ptxas warns \"may produce unexpected results\"); ptxsim does not run it", opname(i)))
                .with_label("deprecated".to_string())
                .with_note(NOTE),
        );
    }
    true
}

fn load_store<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, f: &WmmaForm) {
    let (Some(which), Some(t)) = (f.which(), f.types[0]) else { return };
    let load = f.op == WmmaOp::Load;
    let (frag, addr, stride) = match (load, i.operands.as_slice()) {
        (true, [d, p]) => (d, p, None),
        (true, [d, p, s]) => (d, p, Some(s)),
        (false, [p, d]) => (d, p, None),
        (false, [p, d, s]) => (d, p, Some(s)),
        _ => return count(cx, i, "2 or 3"),
    };
    let space = f.space.map(|s| match s {
        WmmaSpace::Global => StateSpace::Global,
        WmmaSpace::Shared | WmmaSpace::SharedCta => StateSpace::Shared,
    });
    // A 32-bit generic address is taken (ptxas 13.5).
    address(cx, i, addr, space, !load, true);
    let (n, bits) = f.regs(which, t);
    let what = format!("the {} fragment", which as char);
    if let Some(elems) = vector(cx, i, frag, n, &what) {
        elements(cx, i, elems, t, bits, if load { Role::Dest } else { Role::Src });
    }
    // (A special register is refused for every instruction by
    // `operand::special_operands`.)
    if let Some(s) = stride.filter(|s| !matches!(&s.kind, OperandKind::Name { name, .. } if special(name.text).is_some())) {
        value(cx, s, ScalarType::U32, Role::Src, Size::Exact, i);
    }
}

fn mma<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, f: &WmmaForm) {
    let Some([dt, at, bt, ct]) = f.mma_types() else { return };
    let [d, a, b, c] = i.operands.as_slice() else { return count(cx, i, "four") };
    let parts: [(&Operand<'a>, u8, WmmaElem, &str, Role); 4] = [(d, b'c', dt, "D", Role::Dest), (a, b'a', at, "A", Role::Src), (b, b'b', bt, "B", Role::Src), (c, b'c', ct, "C", Role::Src)];
    for (o, which, t, what, role) in parts {
        let (n, bits) = f.regs(which, t);
        let Some(elems) = vector(cx, i, o, n, what) else { return };
        if !elements(cx, i, elems, t, bits, role) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    /// The error code of the first error of `body` in a kernel on sm_90a,
    /// or `None` where it checks clean.
    fn first_error(body: &str) -> Option<String> {
        first_error_at("8.8", "sm_90a", body)
    }

    fn first_error_at(version: &str, target: &str, body: &str) -> Option<String> {
        const DECLS: &str = ".reg .b32 %r<8>;\n.reg .f32 %f<8>;\n.reg .f64 %fd<4>;\n.reg .b64 %rd<4>;\n.reg .u32 %u<4>;\n.reg .s32 %s<8>;\n.reg .f16x2 %hx<8>;\n.reg .b16 %h<4>;\n.shared .b8 sm[4096];";
        crate::testing::first_error(&crate::testing::kernel(version, target, ".global .b8 gm[4096];", &format!("{DECLS}\n{body}")))
    }

    const R8: &str = "{%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}";
    const F8: &str = "{%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}";

    fn is(body: &str, want: Option<&str>) {
        assert_eq!(first_error(body).as_deref(), want, "{body}");
    }

    /// Every verdict here is ptxas 13.5's (`-arch=sm_90a`); its message
    /// for each refusal is quoted.
    #[test]
    fn forms_and_modifiers() {
        is(&format!("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {R8}, [%rd1], %u1;"), None);
        is(&format!("wmma.load.a.row.sync.aligned.m16n16k16.shared::cta.f16 {R8}, [%rd1];"), None);
        is(&format!("wmma.mma.sync.aligned.col.row.m16n16k16.f16.f32 {{%r0, %r1, %r2, %r3}}, {R8}, {R8}, {F8};"), None);
        is("wmma.mma.sync.aligned.xor.popc.row.col.m8n8k128.s32.b1.b1.s32 {%s0, %s1}, {%r0}, {%r1}, {%s2, %s3};", None);
        is("wmma.mma.sync.aligned.row.col.m8n8k4.rp.f64.f64.f64.f64 {%fd0, %fd1}, {%fd2}, {%fd3}, {%fd0, %fd1};", None);
        // "Unknown modifier '.load'": the operation leads.
        is(&format!("wmma.sync.aligned.load.a.row.m16n16k16.f16 {R8}, [%rd1];"), Some("check/wmma"));
        // ".sync modifier required for instruction 'wmma.load.a'".
        is(&format!("wmma.load.a.aligned.row.m16n16k16.f16 {R8}, [%rd1];"), Some("check/modifiers"));
        // "State space incorrect for instruction 'wmma.load.a'".
        is(&format!("wmma.load.a.sync.aligned.row.m16n16k16.local.f16 {R8}, [%rd1];"), Some("check/state-space"));
        // "layout modifier required for instruction 'wmma.load.a'".
        is(&format!("wmma.load.a.sync.aligned.m16n16k16.f16 {R8}, [%rd1];"), Some("check/wmma"));
        // "Illegal type for wmma.load.a".
        is(&format!("wmma.load.a.sync.aligned.row.m16n16k16.f32 {F8}, [%rd1];"), Some("check/wmma"));
        // "Instruction ''wmma.mma' with floating point type' with '.satfinite' is not supported starting from PTX ISA version 6.5".
        is(&format!("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32.satfinite {F8}, {R8}, {R8}, {F8};"), Some("check/wmma"));
        // "Boolean operation is required for instruction 'wmma.mma'".
        is("wmma.mma.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%s0, %s1}, {%r0}, {%r1}, {%s2, %s3};", Some("check/wmma"));
    }

    #[test]
    fn operands() {
        // "Argument vector size mismatch for instruction 'wmma.load.a'".
        is("wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r0, %r1, %r2, %r3}, [%rd1];", Some("check/tensor-operands"));
        // "Vector expected for argument 0".
        is("wmma.load.a.sync.aligned.row.m8n8k4.f64 %fd0, [%rd1];", Some("check/tensor-operands"));
        // "Arguments mismatch for instruction 'wmma.load.a'": a missing address, one operand too many, a 64-bit stride.
        is("wmma.load.a.sync.aligned.row.m8n8k4.f64 {%fd0};", Some("check/operand-count"));
        is("wmma.load.a.sync.aligned.row.m8n8k4.f64 {%fd0}, [%rd1], %r1, %r2;", Some("check/operand-count"));
        is("wmma.load.a.sync.aligned.row.m8n8k4.f64 {%fd0}, [%rd1], %rd2;", Some("check/operand-type"));
        is("wmma.load.a.sync.aligned.row.m8n8k4.f64 {%fd0}, [%rd1], %s1;", None);
        is("wmma.load.a.sync.aligned.row.m8n8k4.f64 {%fd0}, [%rd1], -1;", None);
        is("wmma.load.a.sync.aligned.row.m8n8k4.f64 {%fd0}, %rd1;", Some("check/state-space"));
        // "Special register argument not allowed for instruction 'wmma.load.a'".
        is("wmma.load.a.sync.aligned.row.m8n8k32.u4 {%r0}, [%rd1], %tid.x;", Some("check/special-register"));
        // "State space mismatch between instruction and address in instruction 'wmma.load.a'".
        is("wmma.load.a.sync.aligned.row.m8n8k4.shared.f64 {%fd0}, [gm];", Some("check/state-space"));
        is("wmma.load.a.sync.aligned.row.m8n8k4.shared.f64 {%fd0}, [sm];", None);
        // A 32-bit generic address is taken.
        is("wmma.load.a.sync.aligned.row.m8n8k4.f64 {%fd0}, [%u1];", None);
        // "Arguments mismatch for instruction 'wmma.store.d'": the address comes first.
        is("wmma.store.d.sync.aligned.row.m8n8k4.f64 {%fd0, %fd1}, [%rd1];", Some("check/state-space"));
        // "Arguments mismatch for instruction 'wmma.mma'".
        is(&format!("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {F8}, {R8}, {R8};"), Some("check/operand-count"));
    }

    #[test]
    fn fragment_registers() {
        // ".f16" fragments are `.b32` or `.f16x2` registers; "Arguments mismatch" for `.u32`, `.f32`.
        is("wmma.load.a.sync.aligned.row.m16n16k16.f16 {%hx0, %hx1, %hx2, %hx3, %hx4, %hx5, %hx6, %hx7}, [%rd1];", None);
        is("wmma.load.a.sync.aligned.row.m16n16k16.f16 {%u0, %u1, %u2, %u3, %u0, %u1, %u2, %u3}, [%rd1];", Some("check/wmma"));
        is(&format!("wmma.load.a.sync.aligned.row.m16n16k16.f16 {F8}, [%rd1];"), Some("check/wmma"));
        // `.s32` accumulators take `.u32`/`.s32`/`.b32`; `.f32` ones `.f32`/`.b32`.
        is("wmma.load.c.sync.aligned.row.m16n16k16.s32 {%u0, %u1, %u2, %u3, %u0, %u1, %u2, %u3}, [%rd1];", None);
        is("wmma.load.c.sync.aligned.row.m16n16k16.f32 {%s0, %s1, %s2, %s3, %s4, %s5, %s6, %s7}, [%rd1];", Some("check/wmma"));
        // Sub-byte fragments take any 32-bit register; `.f64` ones 64-bit registers.
        is("wmma.load.a.sync.aligned.row.m8n8k128.b1 {%f0}, [%rd1];", None);
        is("wmma.load.a.sync.aligned.row.m8n8k4.f64 {%rd0}, [%rd1];", None);
        is("wmma.load.a.sync.aligned.row.m8n8k4.f64 {%r0}, [%rd1];", Some("check/wmma"));
        // Only the first element's type counts; the others' width: "Incompatible elements of vector expression".
        is("wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %f7}, [%rd1];", None);
        is("wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %rd3}, [%rd1];", Some("check/wmma"));
        // "Result register required for instruction 'wmma.load.a'"; a sink after the first is taken.
        is("wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, 1}, [%rd1];", Some("check/wmma"));
        is(&format!("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {{%f0, %f1, %f2, %f3, %f4, %f5, %f6, _}}, {R8}, {R8}, {F8};"), None);
        // Source immediates of the first element's kind ("Vector with elements of different types are not allowed in wmma.store.d instruction").
        is("wmma.store.d.sync.aligned.row.m16n16k16.f32 [%rd1], {%f0, %f1, %f2, %f3, %f4, %f5, %f6, 0f3F800000};", None);
        is("wmma.store.d.sync.aligned.row.m16n16k16.f32 [%rd1], {%f0, %f1, %f2, %f3, %f4, %f5, %f6, 1};", Some("check/wmma"));
        is("wmma.store.d.sync.aligned.row.m8n8k4.f64 [%rd1], {1.0, %fd0};", None);
        is(&format!("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {F8}, {{%r0, %r1, %r2, %r3, %r4, %r5, %r6, 1}}, {R8}, {F8};"), None);
    }

    /// The gates, as ptxas 13.5 reports them ("Feature 'WMMA with fp64
    /// types' requires .target sm_80 or higher", "Modifier '.and' on
    /// 'wmma.mma' requires .target sm_80 or higher", "Feature '.aligned
    /// modifier for wmma' requires PTX ISA .version 6.3 or later").
    #[test]
    fn gates() {
        let f64_load = "wmma.load.a.sync.aligned.row.m8n8k4.f64 {%fd0}, [%rd1];";
        assert_eq!(first_error_at("7.8", "sm_75", f64_load).as_deref(), Some("check/isa-target"));
        assert_eq!(first_error_at("7.0", "sm_80", f64_load), None);
        let and = "wmma.mma.and.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%s0, %s1}, {%r0}, {%r1}, {%s2, %s3};";
        assert_eq!(first_error_at("7.8", "sm_75", and).as_deref(), Some("check/isa-target"));
        assert_eq!(first_error_at("7.0", "sm_80", and).as_deref(), Some("check/isa-version"));
        assert_eq!(first_error_at("7.1", "sm_80", and), None);
        assert_eq!(first_error_at("6.3", "sm_75", &and.replace(".and.", ".xor.")), None);
        let cta = "wmma.load.a.sync.aligned.row.m16n16k16.shared::cta.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd1];";
        assert_eq!(first_error_at("7.7", "sm_80", cta).as_deref(), Some("check/isa-version"));
        assert_eq!(first_error_at("7.8", "sm_80", cta), None);
    }
}

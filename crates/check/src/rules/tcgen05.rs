//! `tcgen05` (PTX ISA 9.7.16 TensorCore 5th Generation) on its typed row,
//! as ptxas 13.5 judges it at `-arch=sm_100a`: the gate (8.6, sm_100) and
//! the family target (`sm_100a`/`f`, `sm_103a`/`f`, `sm_110a`/`f`), rule
//! `check/modifiers` for the operation's place and modifiers
//! ([`tcgen05_layout`], [`Insn::tcgen05`]), rule `check/operand-count`,
//! and the operands of each operation:
//!
//! - `alloc [dst], nCols`: `dst` a `.shared::cta` address (generic without
//!   the state space); `nCols` a `.u32` register or a constant, a power
//!   of 2 in 32..=512. `dealloc taddr, nCols`: `taddr` a 32-bit integer
//!   register or constant. `relinquish_alloc_permit`, `wait::ld`,
//!   `wait::st` and the fences: no operands.
//! - `ld r, [taddr]{, imm}`, `st [taddr]{, imm}, r`: a tensor-memory
//!   address `[reg]`/`[reg+imm]` of a 32-bit integer register; `r` a vector
//!   of `shape × num` 32-bit registers (no sink; `st` also takes
//!   constants); `imm` (only and always with `.16x32bx2`) a constant.
//! - `cp [taddr], s-desc` (a 64-bit integer register or constant),
//!   `shift [taddr]`.
//! - `commit [mbar]{, ctaMask}`: the mask (a 16-bit value) with
//!   `.multicast::cluster` only; `.shared::cluster` makes the address a
//!   shared one.
//!
//! - `tcgen05.mma{.ws}{.sp}` with the kinds `f16`, `tf32`, `f8f6f4`, `i8`
//!   and the block-scaled `tcgen05.mma{.sp}...block_scale` with the `mx`
//!   kinds (see [`mma`], [`mma_ws`], [`mma_block_scale`]); `.ws` with
//!   `.block_scale` and the B collector buffers outside `.ws` (PTX 9.4)
//!   are not typed yet: they are refused by name (`check/unsupported`),
//!   never accepted unchecked.

use super::memory::address;
use super::opname;
use super::operand::{resolve_all, resolve_operand, value, Role};
use crate::ctx::{Ctx, Sym};
use crate::isa::Feature;
use crate::types::Size;
use ptxsim_isa::grammar::modifier_span;
use ptxsim_isa::{tcgen05_layout, CtaGroup, Insn, Tcgen05, Tcgen05Collector, Tcgen05Kind, Tcgen05Op, Tcgen05ScaleVec, Tcgen05Space, TCGEN05_ASHIFT};
use ptxsim_syntax::ast::{Instruction, Operand, OperandKind, ScalarType, StateSpace};
use ptxsim_syntax::{Diagnostic, Span};

const NOTE: &str = "rule check/modifiers (PTX ISA 9.7.16 tcgen05): `tcgen05.alloc.cta_group.sync.aligned{.shared::cta}.b32`, `tcgen05.dealloc.cta_group.sync.aligned.b32`, `tcgen05.relinquish_alloc_permit.cta_group.sync.aligned`, `tcgen05.ld.sync.aligned.shape.num{.pack::16b}.b32`, `tcgen05.st.sync.aligned.shape.num{.unpack::16b}.b32`, `tcgen05.wait::{ld,st}.sync.aligned`, `tcgen05.cp.cta_group.shape{.warpx2::02_13,.warpx2::01_23,.warpx4}{.b8x16.src_fmt}`, `tcgen05.shift.cta_group.down`, `tcgen05.commit.cta_group.mbarrier::arrive::one{.shared::cluster}{.multicast::cluster}.b64`, `tcgen05.fence::{before,after}_thread_sync`; the operation first";

const OPERAND_NOTE: &str = "rule check/operand-type (PTX ISA 9.7.16 tcgen05): a tensor-memory address is `[reg]` or `[reg+imm]` of a 32-bit integer register; `tcgen05.ld`/`st` move a vector of shape × num 32-bit registers; nCols is a power of 2 in 32..=512; a shared-memory descriptor is 64 bits, the multicast mask 16";

fn head(i: &Instruction<'_>) -> Span {
    i.opcode.span.to(i.modifiers.last().map_or(i.opcode.span, |m| m.span))
}

fn error(cx: &mut Ctx<'_, '_>, code: &'static str, span: Span, msg: String, label: &str, note: &str) {
    cx.emit(Diagnostic::error(code, span, msg).with_label(label.to_string()).with_note(note.to_string()));
}

/// Checks a `tcgen05`.
pub fn check<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, insn: &Insn) {
    let Some(fit) = insn.tcgen05() else { return resolve_all(cx, i) };
    cx.require(Feature::Tcgen05, head(i));
    family_target(cx, i);
    if let Some((span, why)) = tcgen05_layout(i) {
        error(cx, "check/modifiers", span, format!("`{}`: {why}", opname(i)), "not a modifier here", NOTE);
        return resolve_all(cx, i);
    }
    let t = match fit {
        Ok(t) => t,
        Err(f) => {
            error(cx, "check/modifiers", modifier_span(i, f.modifier), format!("`{}`: {}", opname(i), f.why), "not a form of `tcgen05`", NOTE);
            return resolve_all(cx, i);
        }
    };
    let ops = i.operands.as_slice();
    use Tcgen05Op::*;
    match t.op {
        Mma => mma(cx, i, insn, t),
        Relinquish | WaitLd | WaitSt | FenceBefore | FenceAfter => {
            if !ops.is_empty() {
                count(cx, i, "no");
            }
        }
        Alloc => {
            let [dst, n] = ops else { return count(cx, i, "2") };
            let space = (t.space == Some(Tcgen05Space::SharedCta)).then_some(StateSpace::Shared);
            address(cx, i, dst, space, true, true);
            ncols(cx, i, n);
        }
        Dealloc => {
            let [taddr, n] = ops else { return count(cx, i, "2") };
            if !matches!(taddr.kind, OperandKind::Int(_)) {
                int32(cx, i, taddr, "the tensor-memory address");
            }
            ncols(cx, i, n);
        }
        Ld | St => ld_st(cx, i, t),
        Cp => {
            let [taddr, desc] = ops else { return count(cx, i, "2") };
            if tmem(cx, i, taddr) && !matches!(desc.kind, OperandKind::Int(_)) {
                int_reg(cx, i, desc, 64, "the shared-memory descriptor");
            }
        }
        Shift => {
            let [taddr] = ops else { return count(cx, i, "1") };
            tmem(cx, i, taddr);
        }
        Commit => {
            let want = 1 + t.multicast as usize;
            if ops.len() != want {
                return count(cx, i, &want.to_string());
            }
            let shared = t.space == Some(Tcgen05Space::SharedCluster);
            address(cx, i, &ops[0], shared.then_some(StateSpace::Shared), false, !shared);
            if let Some(mask) = ops.get(1) {
                value(cx, mask, ScalarType::B16, Role::Src, Size::Exact, i);
            }
        }
    }
}

/// `tcgen05.mma` forms ptxsim does not check yet are refused by name.
fn unsupported(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, what: &str) {
    resolve_all(cx, i);
    error(cx, "check/unsupported", head(i), format!("`{}`: ptxsim does not check {what} yet", opname(i)), "not checked by ptxsim", "rule check/unsupported (PTX ISA 9.7.16.10 tcgen05.mma): an instruction form ptxsim cannot check is refused by name rather than accepted unchecked");
}

/// The dense `tcgen05.mma.cta_group.kind{.ashift}{.collector::a::*}
/// [d-tmem], a-desc|[a-tmem], b-desc, idesc{, disable-output-lane},
/// enable-input-d{, scale-input-d}` with the kinds `f16`, `tf32`,
/// `f8f6f4` and `i8` (PTX ISA 9.7.16.10.9), as ptxas 13.5 judges it: the
/// descriptors 64-bit integer registers or constants, `idesc` a 32-bit
/// one, the lane mask a vector of 4 (`.cta_group::1`) or 8 32-bit
/// registers, `enable-input-d` a predicate or a constant, `scale-input-d`
/// a constant 0..=15 for `f16`/`tf32` (any for `i8`; none for `f8f6f4`);
/// `.ashift` only with A in tensor memory and not with `.collector::a::fill`
/// or `::use`. ptxas 13.5 also takes a seventh operand after
/// scale-input-d (`..., %p, 3, 4`), which the manual does not list;
/// ptxsim refuses it.
/// `.sp` adds the sparsity metadata `[sp-meta-tmem]` before idesc; `.ws` is
/// [`mma_ws`], `.block_scale` [`mma_block_scale`].
fn mma<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, insn: &Insn, t: Tcgen05) {
    let Insn::Tcgen05 { sp, ws, kind, block_scale, scale_vec, ashift, collector, .. } = *insn else { return resolve_all(cx, i) };
    if block_scale && ws {
        return unsupported(cx, i, "`tcgen05.mma.ws` with `.block_scale`");
    }
    let Some(kind) = kind else {
        // ptxas: ".kind modifier required for instruction 'tcgen05.mma'".
        return error(cx, "check/modifiers", head(i), format!("`{}` needs a kind (`.kind::f16`, `.kind::tf32`, `.kind::f8f6f4`, `.kind::i8`, ...)", opname(i)), "missing kind", NOTE);
    };
    if block_scale {
        return mma_block_scale(cx, i, insn, kind, sp);
    }
    if let Some(v) = scale_vec {
        // ptxas: "Modifier '.scale_vec::1X' requires modifier '.block_scale'".
        return error(cx, "check/modifiers", modifier_span(i, v.as_str()), format!("`{}` goes with `.block_scale`", v.as_str()), "needs `.block_scale`", NOTE);
    }
    if matches!(kind, Tcgen05Kind::Mxf8f6f4 | Tcgen05Kind::Mxf4 | Tcgen05Kind::Mxf4nvf4) {
        // ptxas: "Illegal modifier '.block32'" / "requires modifier '.scale_vectorsize'".
        return error(cx, "check/modifiers", modifier_span(i, kind.as_str()), format!("`{}` is a block-scaled kind: it needs `.block_scale`", kind.as_str()), "needs `.block_scale`", NOTE);
    }
    use Tcgen05Collector::*;
    let a_buffer = |c: Tcgen05Collector| matches!(c, AFill | AUse | ALastuse | ADiscard);
    if ws {
        let illegal = if let Some(c) = collector.filter(|c| a_buffer(*c)) {
            Some(c.as_str())
        } else if ashift {
            Some(TCGEN05_ASHIFT)
        } else {
            t.cta_group.filter(|g| *g == CtaGroup::Two).map(|g| g.as_str())
        };
        if let Some(m) = illegal {
            // ptxas: "Illegal modifier '.collector::a::fill' for instruction 'tcgen05.mma.ws'" (also `.ashift`, `.cta_group::2`).
            return error(cx, "check/modifiers", modifier_span(i, m), format!("`{m}` is not a modifier of `tcgen05.mma.ws`"), "illegal modifier", NOTE);
        }
        let at = |f: &str| ptxsim_isa::field_span(i, f).map(|s| s.start);
        if let (true, Some(w), Some(p)) = (sp, at("ws"), at("sp")) {
            if p < w {
                // ptxas: "Unknown modifier '.ws'" (`.mma.sp.ws`).
                return error(cx, "check/modifiers", ptxsim_isa::field_span(i, "ws").unwrap_or(head(i)), format!("`{}`: `.ws` comes before `.sp`", opname(i)), "out of place", NOTE);
            }
        }
    } else if let Some(c) = collector.filter(|c| !a_buffer(*c)) {
        // ptxas 13.5: "Feature 'tcgen05.mma' requires PTX ISA .version 9.4" (the B collector buffers outside `.ws`).
        return unsupported(cx, i, &format!("`{}` outside `tcgen05.mma.ws` (a PTX ISA 9.4 form)", c.as_str()));
    }
    if let (true, Some(c @ (AFill | AUse))) = (ashift, collector) {
        // ptxas: "Modifier '.collector::a::fill' cannot be combined with modifier '.ashift'".
        return error(cx, "check/modifiers", modifier_span(i, c.as_str()), format!("`{}` cannot be combined with `.ashift`", c.as_str()), "conflicting modifiers", NOTE);
    }
    let ops = i.operands.as_slice();
    let nfixed = 4 + sp as usize;
    if ops.len() < nfixed + 1 {
        return count(cx, i, &format!("at least {}", nfixed + 1));
    }
    let (fixed, rest) = ops.split_at(nfixed);
    if ws {
        return mma_ws(cx, i, fixed, rest, sp);
    }
    let lanes = if t.cta_group == Some(CtaGroup::Two) { 8 } else { 4 };
    let (mask, rest) = match rest.split_first() {
        Some((m, r)) if matches!(m.kind, OperandKind::Vector(_)) => (Some(m), r),
        _ => (None, rest),
    };
    let (enable, scale) = match rest {
        [e] => (e, None),
        [e, s] => (e, Some(s)),
        _ => {
            cx.emit(
                Diagnostic::error("check/operand-count", i.span, format!("`{}`: after idesc come `{{disable-output-lane,}} enable-input-d{{, scale-input-d}}`; {} operands follow it", opname(i), rest.len() + mask.is_some() as usize))
                    .with_note("rule check/operand-count (PTX ISA 9.7.16.10.9 tcgen05.mma): `[d-tmem], a-desc|[a-tmem], b-desc, idesc, {disable-output-lane}, enable-input-d {, scale-input-d}`"),
            );
            return resolve_all(cx, i);
        }
    };
    if !tmem(cx, i, &fixed[0]) {
        return;
    }
    let a_tmem = matches!(fixed[1].kind, OperandKind::Address(_));
    if a_tmem {
        if !tmem(cx, i, &fixed[1]) {
            return;
        }
    } else {
        if ashift {
            // ptxas: "Illegal modifier '.ashift' for instruction 'tcgen05.mma'" (A from a descriptor).
            return error(cx, "check/modifiers", modifier_span(i, TCGEN05_ASHIFT), format!("`{}`: `.ashift` needs A in tensor memory (`[a-tmem]`)", opname(i)), "A is a descriptor", NOTE);
        }
        if !desc(cx, i, &fixed[1], 64, "the A descriptor") {
            return;
        }
    }
    if !desc(cx, i, &fixed[2], 64, "the B descriptor") || (sp && !tmem(cx, i, &fixed[3])) || !desc(cx, i, &fixed[nfixed - 1], 32, "the instruction descriptor") {
        return;
    }
    if let Some(m) = mask {
        let OperandKind::Vector(elems) = &m.kind else { return };
        if elems.len() != lanes {
            return error(cx, "check/operand-type", m.span, format!("`{}`: disable-output-lane is a vector of {lanes} registers with this CTA group; {} given", opname(i), elems.len()), "vector size mismatch", OPERAND_NOTE);
        }
        for e in elems.iter() {
            match (&e.kind, reg_type(cx, e)) {
                (OperandKind::Int(_), _) => {}
                (_, Some(rt)) if rt.bits() == 32 && rt != ScalarType::Pred => {}
                _ => {
                    resolve_operand(cx, e);
                    // ptxas: "Incompatible elements of vector expression".
                    return error(cx, "check/operand-type", e.span, format!("`{}`: disable-output-lane holds 32-bit registers or integer constants", opname(i)), "not a 32-bit element", OPERAND_NOTE);
                }
            }
        }
    }
    if !enable_input(cx, i, enable) {
        return;
    }
    if let Some(s) = scale {
        let ok = match (&s.kind, kind) {
            (OperandKind::Int(v), Tcgen05Kind::F16 | Tcgen05Kind::Tf32) => (0..=15).contains(&v.value),
            // ptxas 13.5 takes any constant for `.kind::i8`, except on `.sp` with a lane mask ("Arguments mismatch").
            (OperandKind::Int(_), Tcgen05Kind::I8) => !(sp && mask.is_some()),
            _ => false,
        };
        if !ok {
            // ptxas: "value '16' out of range, expected to be in range [0..15]"; "Illegal modifier '.kind::f8f6f4' ... with 'arg scale-inp-d-imm'".
            return error(cx, "check/operand-type", s.span, format!("`{}`: scale-input-d is a constant 0..=15, for `.kind::f16` and `.kind::tf32`", opname(i)), "illegal scale-input-d", OPERAND_NOTE);
        }
    }
}

/// `tcgen05.mma{.sp}.cta_group.kind.block_scale{.scale_vectorsize}
/// {.collector::a::*} [d-tmem], a-desc|[a-tmem], b-desc, {[sp-meta-tmem],}
/// idesc, [scale-A-tmem], [scale-B-tmem], enable-input-d` (PTX ISA
/// 9.7.16.10.9), as ptxas 13.5 judges it: the kinds `mxf8f6f4` (no scale
/// vector size, `.scale_vec::1X` or `.block32`), `mxf4` (none,
/// `.scale_vec::2X`, `.block32`) and `mxf4nvf4` (one of `.scale_vec::2X`,
/// `.scale_vec::4X`, `.block16`, `.block32`); no `.ashift`, lane mask or
/// scale-input-d.
fn mma_block_scale<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, insn: &Insn, kind: Tcgen05Kind, sp: bool) {
    let Insn::Tcgen05 { scale_vec, ashift, collector, .. } = *insn else { return resolve_all(cx, i) };
    use Tcgen05ScaleVec as V;
    let fits = match kind {
        Tcgen05Kind::Mxf8f6f4 => matches!(scale_vec, None | Some(V::X1 | V::Block32)),
        Tcgen05Kind::Mxf4 => matches!(scale_vec, None | Some(V::X2 | V::Block32)),
        Tcgen05Kind::Mxf4nvf4 => matches!(scale_vec, Some(V::X2 | V::X4 | V::Block16 | V::Block32)),
        // ptxas: "Modifier '.kind::f16' cannot be combined with modifier '.block_scale'".
        _ => return error(cx, "check/modifiers", modifier_span(i, kind.as_str()), format!("`{}` is not a block-scaled kind (`.kind::mxf8f6f4`, `.kind::mxf4`, `.kind::mxf4nvf4`)", kind.as_str()), "not block-scaled", NOTE),
    };
    if !fits {
        // ptxas: "Modifier '.kind::mxf4' cannot be combined with modifier '.scale_vec::1X'", "'.kind::mxf4nvf4' requires modifier '.scale_vectorsize'".
        let at = scale_vec.map_or(kind.as_str(), |v| v.as_str());
        return error(cx, "check/modifiers", modifier_span(i, at), format!("`{}`: `{}` does not take this scale vector size", opname(i), kind.as_str()), "scale vector size", NOTE);
    }
    if ashift {
        // ptxas: "Illegal modifier '.ashift' for instruction 'tcgen05.mma'".
        return error(cx, "check/modifiers", modifier_span(i, TCGEN05_ASHIFT), format!("`{}`: `.ashift` is not a modifier of the block-scaled `tcgen05.mma`", opname(i)), "illegal modifier", NOTE);
    }
    if let Some(c) = collector.filter(|c| !matches!(c, Tcgen05Collector::AFill | Tcgen05Collector::AUse | Tcgen05Collector::ALastuse | Tcgen05Collector::ADiscard)) {
        return unsupported(cx, i, &format!("`{}` outside `tcgen05.mma.ws` (a PTX ISA 9.4 form)", c.as_str()));
    }
    let ops = i.operands.as_slice();
    let want = 7 + sp as usize;
    if ops.len() != want {
        return count(cx, i, &want.to_string());
    }
    let a_ok = if matches!(ops[1].kind, OperandKind::Address(_)) { tmem(cx, i, &ops[1]) } else { desc(cx, i, &ops[1], 64, "the A descriptor") };
    let idesc = want - 4;
    if !tmem(cx, i, &ops[0]) || !a_ok || !desc(cx, i, &ops[2], 64, "the B descriptor") || (sp && !tmem(cx, i, &ops[3])) || !desc(cx, i, &ops[idesc], 32, "the instruction descriptor") {
        return;
    }
    if tmem(cx, i, &ops[idesc + 1]) && tmem(cx, i, &ops[idesc + 2]) {
        enable_input(cx, i, &ops[idesc + 3]);
    }
}

/// `tcgen05.mma.ws{.sp}.cta_group::1.kind{.collector::b*::*} [d-tmem],
/// a-desc|[a-tmem], b-desc, {[sp-meta-tmem],} idesc, enable-input-d{,
/// zero-column-mask-desc}` (PTX ISA 9.7.16.10.9): no lane mask, no
/// scale-input-d; the zero-column mask a 64-bit descriptor.
fn mma_ws<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, fixed: &[Operand<'a>], rest: &[Operand<'a>], sp: bool) {
    let (enable, zcm) = match rest {
        [e] => (e, None),
        [e, z] => (e, Some(z)),
        _ => {
            cx.emit(
                Diagnostic::error("check/operand-count", i.span, format!("`{}`: after idesc come `enable-input-d{{, zero-column-mask-desc}}`; {} operands follow it", opname(i), rest.len()))
                    .with_note("rule check/operand-count (PTX ISA 9.7.16.10.9 tcgen05.mma.ws): `[d-tmem], a-desc|[a-tmem], b-desc, {[sp-meta-tmem],} idesc, enable-input-d {, zero-column-mask-desc}`"),
            );
            return resolve_all(cx, i);
        }
    };
    if !tmem(cx, i, &fixed[0]) {
        return;
    }
    let a_ok = if matches!(fixed[1].kind, OperandKind::Address(_)) { tmem(cx, i, &fixed[1]) } else { desc(cx, i, &fixed[1], 64, "the A descriptor") };
    if !a_ok || !desc(cx, i, &fixed[2], 64, "the B descriptor") || (sp && !tmem(cx, i, &fixed[3])) || !desc(cx, i, &fixed[fixed.len() - 1], 32, "the instruction descriptor") {
        return;
    }
    if !enable_input(cx, i, enable) {
        return;
    }
    if let Some(z) = zcm {
        desc(cx, i, z, 64, "the zero-column mask descriptor");
    }
}

/// enable-input-d: a predicate, its negation, or a constant.
fn enable_input<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, enable: &Operand<'a>) -> bool {
    match &enable.kind {
        OperandKind::Int(_) => true,
        OperandKind::Not(n) | OperandKind::Name { name: n, component: None } => super::operand::pred_reg(cx, *n, i),
        _ => {
            error(cx, "check/operand-type", enable.span, format!("`{}`: enable-input-d is a predicate", opname(i)), "predicate expected", OPERAND_NOTE);
            false
        }
    }
}

/// A descriptor: an integer register of `bits` bits or a constant.
fn desc<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, o: &Operand<'a>, bits: u32, what: &str) -> bool {
    matches!(o.kind, OperandKind::Int(_)) || int_reg(cx, i, o, bits, what)
}

/// `tcgen05` needs an sm_100-family target with an `a` or `f` suffix
/// (ptxas 13.5: "Instruction 'tcgen05.fence' not supported on .target
/// 'sm_100'", and on 'sm_120a'); below sm_100 the gate already said so.
fn family_target(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>) {
    let Some((sm, tspan)) = cx.sm else { return };
    if sm.number < 100 || (sm.suffix != 0 && matches!(sm.number, 100 | 101 | 103 | 110)) {
        return;
    }
    cx.emit(
        Diagnostic::error("check/isa-target", head(i), format!("`{}` is not supported on .target {sm}: tcgen05 needs `sm_100a`/`sm_100f`, `sm_103a`/`sm_103f` or `sm_110a`/`sm_110f`", opname(i)))
            .with_label("needs an sm_100-family `a` or `f` target")
            .with_secondary(tspan, "the module's target is declared here")
            .with_note("rule check/isa-target (PTX ISA 9.7.16 tcgen05, target ISA notes): the tcgen05 instructions exist on the sm_100 family's architecture- and family-specific targets"),
    );
}

fn count(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, want: &str) {
    cx.emit(
        Diagnostic::error("check/operand-count", i.span, format!("`{}` takes {want} operands; {} given", opname(i), i.operands.len()))
            .with_note("rule check/operand-count (PTX ISA 9.7.16 tcgen05): `alloc [dst], nCols`, `dealloc taddr, nCols`, `ld r, [taddr]{, imm}`, `st [taddr]{, imm}, r`, `cp [taddr], s-desc`, `shift [taddr]`, `commit [mbar]{, ctaMask}`; the others none"),
    );
    resolve_all(cx, i)
}

/// nCols: a `.u32` register or a constant power of 2 in 32..=512
/// (ptxas 13.5: "value '1024' out of range, expected to be in range
/// [32..512]", "value must be power of 2").
fn ncols<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, n: &Operand<'a>) {
    match &n.kind {
        OperandKind::Int(v) if matches!(v.value, 32 | 64 | 128 | 256 | 512) => {}
        OperandKind::Int(_) => error(cx, "check/operand-type", n.span, format!("`{}`: nCols is a power of 2 in 32..=512", opname(i)), "nCols out of range", OPERAND_NOTE),
        _ => {
            value(cx, n, ScalarType::U32, Role::Src, Size::Exact, i);
        }
    }
}

/// The register type of a name operand, if it is a register.
fn reg_type(cx: &Ctx<'_, '_>, o: &Operand<'_>) -> Option<ScalarType> {
    let OperandKind::Name { name, component: None } = &o.kind else { return None };
    match cx.lookup(name.text) {
        Some(Sym::Var(v)) if v.space() == StateSpace::Reg => v.ty(),
        _ => None,
    }
}

fn integer(t: ScalarType) -> bool {
    use ScalarType::*;
    matches!(t, B8 | B16 | B32 | B64 | U8 | U16 | U32 | U64 | S8 | S16 | S32 | S64)
}

/// An integer register of `bits` bits.
fn int_reg<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, o: &Operand<'a>, bits: u32, what: &str) -> bool {
    match reg_type(cx, o) {
        Some(t) if integer(t) && t.bits() == bits => true,
        Some(t) => {
            error(cx, "check/operand-type", o.span, format!("`{}`: {what} is a {bits}-bit integer register; this one is `{}`", opname(i), t.as_str()), "register type mismatch", OPERAND_NOTE);
            false
        }
        None => {
            if let OperandKind::Name { name, .. } = &o.kind {
                if cx.lookup(name.text).is_none() {
                    cx.unknown(*name, "register");
                    return false;
                }
            }
            resolve_operand(cx, o);
            error(cx, "check/operand-type", o.span, format!("`{}`: {what} is a {bits}-bit integer register", opname(i)), "register expected", OPERAND_NOTE);
            false
        }
    }
}

fn int32<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, o: &Operand<'a>, what: &str) -> bool {
    int_reg(cx, i, o, 32, what)
}

/// A tensor-memory address: `[reg]` or `[reg+imm]` of a 32-bit integer register.
fn tmem<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, o: &Operand<'a>) -> bool {
    let OperandKind::Address(a) = &o.kind else {
        error(cx, "check/operand-type", o.span, format!("`{}`: a tensor-memory address `[taddr]` is expected here", opname(i)), "expected `[taddr]`", OPERAND_NOTE);
        return false;
    };
    let Some(base) = a.base else {
        error(cx, "check/operand-type", o.span, format!("`{}`: a tensor-memory address is a 32-bit register, not a constant", opname(i)), "immediate address", OPERAND_NOTE);
        return false;
    };
    let reg = Operand { span: base.span, kind: OperandKind::Name { name: base, component: None } };
    int32(cx, i, &reg, "a tensor-memory address")
}

/// `tcgen05.ld`/`st`: the vector, the address and the half-split offset.
fn ld_st<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, t: Tcgen05) {
    let ops = i.operands.as_slice();
    let want = 2 + t.split() as usize;
    if ops.len() != want {
        return count(cx, i, &want.to_string());
    }
    let st = t.op == Tcgen05Op::St;
    let (regs, taddr, imm) = if st { (&ops[want - 1], &ops[0], ops.get(1).filter(|_| t.split())) } else { (&ops[0], &ops[1], ops.get(2)) };
    if !tmem(cx, i, taddr) {
        return;
    }
    if let Some(imm) = imm {
        if !matches!(imm.kind, OperandKind::Int(_)) {
            return error(cx, "check/operand-type", imm.span, format!("`{}`: the half-split offset is a constant", opname(i)), "constant expected", OPERAND_NOTE);
        }
    }
    let n = t.regs();
    let OperandKind::Vector(elems) = &regs.kind else {
        return error(cx, "check/operand-type", regs.span, format!("`{}` moves a vector of {n} registers `{{...}}`", opname(i)), "vector expected", OPERAND_NOTE);
    };
    if elems.len() != n {
        return error(cx, "check/operand-type", regs.span, format!("`{}` moves {n} registers; the vector has {}", opname(i), elems.len()), "vector size mismatch", OPERAND_NOTE);
    }
    for e in elems.iter() {
        match &e.kind {
            OperandKind::Int(_) if st => {}
            // ptxas 13.5: "Arguments mismatch for instruction 'st'".
            OperandKind::Float(_) => {
                return error(cx, "check/operand-type", e.span, format!("`{}` takes 32-bit registers or integer constants in its vector", opname(i)), "floating-point constant", OPERAND_NOTE);
            }
            OperandKind::Sink => {
                return error(cx, "check/sink", e.span, format!("`{}` does not take the sink `_` in its vector", opname(i)), "sink here", OPERAND_NOTE);
            }
            _ => match reg_type(cx, e) {
                Some(rt) if rt.bits() == 32 && rt != ScalarType::Pred => {}
                Some(rt) => {
                    return error(cx, "check/operand-type", e.span, format!("`{}`: the vector's elements are 32-bit registers; this one is `{}`", opname(i), rt.as_str()), "not a 32-bit register", OPERAND_NOTE);
                }
                None => {
                    if !value(cx, e, ScalarType::B32, if st { Role::Src } else { Role::Dest }, Size::Exact, i) {
                        return;
                    }
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    /// The code of the first error of `body` in a kernel on `target` (PTX 8.8).
    fn first(target: &str, body: &str) -> Option<String> {
        let src = format!(
            ".version 8.8\n.target {target}\n.address_size 64\n.visible .entry k()\n{{\n.reg .b16 %h<3>;\n.reg .b32 %r<9>;\n.reg .b64 %rd<4>;\n.reg .f32 %f<3>;\n.reg .u32 %u<3>;\n.reg .pred %p<2>;\n.shared .align 16 .b8 sm[64];\n.global .align 16 .b8 gm[64];\n{body}\nret;\n}}\n"
        );
        let parsed = ptxsim_syntax::parse(&src);
        assert!(!parsed.has_errors(), "{body}: {:?}", parsed.diagnostics);
        crate::check_module(&parsed.module).into_iter().find(|d| d.is_error()).map(|d| d.code.to_string())
    }

    /// ptxas 13.5 (`-arch=sm_100a`) verdicts, its message quoted for each refusal.
    #[test]
    fn sm_100a_verdicts() {
        let is = |b: &str, want: Option<&str>| assert_eq!(first("sm_100a", b).as_deref(), want, "{b}");
        is("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [sm], 32;", None);
        is("tcgen05.alloc.sync.aligned.cta_group::2.b32 [%r1], %u1;", None);
        is("tcgen05.dealloc.cta_group::1.sync.aligned.b32 5, 512;", None);
        is("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;", None);
        is("tcgen05.ld.sync.aligned.16x128b.x2.pack::16b.b32 {%r1,%r2,%r3,%r4}, [%r5+8];", None);
        is("tcgen05.st.sync.aligned.16x32bx2.x2.unpack::16b.b32 [%u1], -1, {%f1,7};", None);
        is("tcgen05.wait::st.sync.aligned;", None);
        is("tcgen05.cp.cta_group::2.32x128b.warpx4.b8x16.b6x16_p32 [%r1], %rd2;", None);
        is("tcgen05.shift.cta_group::1.down [%r1];", None);
        is("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%rd1], %h1;", None);
        is("tcgen05.fence::before_thread_sync;", None);
        // "Argument 1 of instruction 'tcgen05.alloc': unexpected value '33', expected to be multiple of 32"; "value must be power of 2".
        is("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%rd1], 33;", Some("check/operand-type"));
        is("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%rd1], 96;", Some("check/operand-type"));
        // "State space mismatch between instruction and address in instruction 'tcgen05.alloc'".
        is("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [gm], 32;", Some("check/state-space"));
        // "Arguments mismatch for instruction 'tcgen05.dealloc'".
        is("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %rd1, 32;", Some("check/operand-type"));
        // "Illegal to use symbol '%rd1' of type .b64 as address operand. Use a 32-bit integer or bit register only."
        is("tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1,%r2}, [%rd1];", Some("check/operand-type"));
        // "Argument 0 of instruction 'tcgen05.ld': Argument vector size mismatch".
        is("tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1}, [%r3];", Some("check/operand-type"));
        // "Illegal to use symbol '%h1' of type .b16 as vector element".
        is("tcgen05.ld.sync.aligned.32x32b.x2.b32 {%h1,%r2}, [%r3];", Some("check/operand-type"));
        // "Unexpected number of arguments specified for tcgen05.ld with shape '.16x32bx2'".
        is("tcgen05.ld.sync.aligned.16x32bx2.x2.b32 {%r1,%r2}, [%r3];", Some("check/operand-count"));
        // "Argument 2 of instruction 'tcgen05.ld': must be constant".
        is("tcgen05.ld.sync.aligned.16x32bx2.x2.b32 {%r1,%r2}, [%r3], %r4;", Some("check/operand-type"));
        // "Illegal modifier '.sync' for instruction 'tcgen05.fence'".
        is("tcgen05.fence::after_thread_sync.sync.aligned;", Some("check/modifiers"));
        // "Modifier '.warptype' require for instruction tcgen05.cp with shape '.64x128b'".
        is("tcgen05.cp.cta_group::1.64x128b [%r1], %rd2;", Some("check/modifiers"));
        // "Arguments mismatch for instruction 'tcgen05.cp'" (a 32-bit descriptor).
        is("tcgen05.cp.cta_group::1.128x256b [%r1], %r2;", Some("check/operand-type"));
        // "Argument 1 of instruction 'tcgen05.commit': must be 16-bit size"; "Arguments mismatch" without the mask.
        is("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%rd1], %r1;", Some("check/operand-type"));
        is("tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [%rd1], %h1;", Some("check/operand-count"));
        // "Multiple .down modifiers specified".
        is("tcgen05.shift.cta_group::1.down.down [%r1];", Some("check/modifiers"));
        // The dense `tcgen05.mma`.
        is("tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r3, %p1;", None);
        is("tcgen05.mma.cta_group::2.kind::tf32.ashift [%r1], [%r2+4], %rd2, 5, {%r1,%r2,%r3,%r4,%r5,%r6,%r7,%f1}, !%p1, 15;", None);
        is("tcgen05.mma.cta_group::1.kind::i8.collector::a::discard [%r1], 7, %rd2, %u1, 1, 16;", None);
        // "Argument 5 of instruction 'tcgen05.mma': value '16' out of range, expected to be in range [0..15]".
        is("tcgen05.mma.cta_group::1.kind::f16 [%r1], [%r2], %rd2, %r3, %p1, 16;", Some("check/operand-type"));
        // "Illegal modifier '.kind::f8f6f4' for instruction 'tcgen05.mma' with 'arg scale-inp-d-imm'".
        is("tcgen05.mma.cta_group::1.kind::f8f6f4 [%r1], %rd1, %rd2, %r3, %p1, 3;", Some("check/operand-type"));
        // "Argument vector size mismatch for instruction 'tcgen05.mma'".
        is("tcgen05.mma.cta_group::2.kind::f16 [%r1], %rd1, %rd2, %r3, {%r1,%r2,%r3,%r4}, %p1;", Some("check/operand-type"));
        // "Illegal modifier '.ashift' for instruction 'tcgen05.mma'"; "'.collector::a::fill' cannot be combined with modifier '.ashift'".
        is("tcgen05.mma.cta_group::1.kind::f16.ashift [%r1], %rd1, %rd2, %r3, %p1;", Some("check/modifiers"));
        is("tcgen05.mma.cta_group::1.kind::f16.collector::a::fill.ashift [%r1], [%r2], %rd2, %r3, %p1;", Some("check/modifiers"));
        // "Arguments mismatch for instruction 'tcgen05.mma'" (a 64-bit idesc, a 32-bit A descriptor, a 32-bit enable).
        is("tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %rd3, %p1;", Some("check/operand-type"));
        is("tcgen05.mma.cta_group::1.kind::f16 [%r1], %r1, %rd2, %r3, %p1;", Some("check/operand-type"));
        is("tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r3, %r4;", Some("check/pred-int"));
        // ".kind modifier required for instruction 'tcgen05.mma'"; "Modifier '.kind::f16' cannot be combined with modifier '.block_scale'" is refused by name with the block-scaled forms.
        is("tcgen05.mma.cta_group::1 [%r1], %rd1, %rd2, %r3, %p1;", Some("check/modifiers"));
        // The sparse and weight-stationary forms.
        is("tcgen05.mma.cta_group::1.sp.kind::f16 [%r1], %rd1, %rd2, [%r6], %r3, %p1;", None);
        is("tcgen05.mma.ws.sp.cta_group::1.kind::i8.collector::b2::lastuse [%r1], [%r2], %rd2, [%r6], %r3, %p1, %rd3;", None);
        // "Arguments mismatch for instruction 'tcgen05.mma'" (the metadata is a tensor-memory address).
        is("tcgen05.mma.sp.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r6, %r3, %p1;", Some("check/operand-type"));
        // "Illegal modifier '.collector::a::fill' for instruction 'tcgen05.mma.ws'", "'.cta_group::2'"; "Unknown modifier '.ws'".
        is("tcgen05.mma.ws.cta_group::1.kind::f16.collector::a::fill [%r1], %rd1, %rd2, %r3, %p1;", Some("check/modifiers"));
        is("tcgen05.mma.ws.cta_group::2.kind::f16 [%r1], %rd1, %rd2, %r3, %p1;", Some("check/modifiers"));
        is("tcgen05.mma.sp.ws.cta_group::1.kind::f16 [%r1], %rd1, %rd2, [%r6], %r3, %p1;", Some("check/modifiers"));
        // "Arguments mismatch for instruction 'tcgen05.mma.ws'" (no lane mask; a 64-bit zero-column mask).
        is("tcgen05.mma.ws.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r3, {%r1,%r2,%r3,%r4}, %p1;", Some("check/operand-type"));
        is("tcgen05.mma.ws.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r3, %p1, %r4;", Some("check/operand-type"));
        // The block-scaled forms.
        is("tcgen05.mma.cta_group::1.kind::mxf4.block_scale [%r1], %rd1, %rd2, %r3, [%r4], [%r5], %p1;", None);
        is("tcgen05.mma.sp.cta_group::2.kind::mxf4nvf4.block_scale.block16.collector::a::use [%r1], [%r2], %rd2, [%r6], %r3, [%r4+4], [%r5], !%p1;", None);
        // "Modifier '.kind::mxf4nvf4' requires modifier '.scale_vectorsize'"; "'.kind::mxf8f6f4' cannot be combined with modifier '.scale_vec::2X'".
        is("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale [%r1], %rd1, %rd2, %r3, [%r4], [%r5], %p1;", Some("check/modifiers"));
        is("tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::2X [%r1], %rd1, %rd2, %r3, [%r4], [%r5], %p1;", Some("check/modifiers"));
        // "Modifier '.kind::f16' cannot be combined with modifier '.block_scale'".
        is("tcgen05.mma.cta_group::1.kind::f16.block_scale [%r1], %rd1, %rd2, %r3, [%r4], [%r5], %p1;", Some("check/modifiers"));
        // "Arguments mismatch for instruction 'tcgen05.mma'" (no scale-input-d; the scale factors in tensor memory).
        is("tcgen05.mma.cta_group::1.kind::mxf4.block_scale [%r1], %rd1, %rd2, %r3, [%r4], [%r5], %p1, 3;", Some("check/operand-count"));
        is("tcgen05.mma.cta_group::1.kind::mxf4.block_scale [%r1], %rd1, %rd2, %r3, %r4, [%r5], %p1;", Some("check/operand-type"));
        // ptxas 13.5 takes the B collector buffers outside `.ws` from PTX 9.4 ("Feature 'tcgen05.mma'
        // requires PTX ISA .version 9.4"); ptxsim refuses them by name at any version.
        is("tcgen05.mma.cta_group::1.kind::f16.collector::b0::fill [%r1], %rd1, %rd2, %r3, %p1;", Some("check/unsupported"));
        // ptxas 13.5 accepts a seventh operand the manual does not list; ptxsim refuses it.
        is("tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r3, %p1, 3, 4;", Some("check/operand-count"));
    }

    /// The targets ptxas 13.5 takes: the sm_100 family's `a` and `f` ones.
    #[test]
    fn family_targets() {
        let fence = "tcgen05.fence::before_thread_sync;";
        assert_eq!(first("sm_100f", fence), None);
        assert_eq!(first("sm_103a", fence), None);
        // "Instruction 'tcgen05.fence' not supported on .target 'sm_100'" (and 'sm_120a', 'sm_90a').
        assert_eq!(first("sm_100", fence).as_deref(), Some("check/isa-target"));
        assert_eq!(first("sm_120a", fence).as_deref(), Some("check/isa-target"));
        assert_eq!(first("sm_90a", fence).as_deref(), Some("check/isa-target"));
    }
}

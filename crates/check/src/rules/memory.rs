//! `ld`, `ldu` and `st` (typed rows): addresses and state spaces; the
//! other typed memory rows: `fence`, `membar` (PTX ISA 9.7.13.4), `cvta`
//! (9.7.9.19), `alloca`, `stacksave`, `stackrestore` (9.7.17.2-4).
//!
//! Rule `check/state-space` (PTX ISA 5.1 state spaces, 9.7.9.8 ld, 9.7.9.10
//! st): a symbol addressed by `ld.ss`/`st.ss` lives in state space `ss` (a
//! generic access may name `.global`, `.shared`, `.const`, `.local` and
//! `.param` symbols); nothing stores to `.const`; kernel parameters and a
//! function's own input parameters are read-only; an address register is an
//! integer register (8 to 64 bits: ptxas warns of an 8- or 16-bit generic
//! or `.global` address under `.address_size 64`), and with `.address_size 64` a 32-bit register
//! cannot address `.global` or generic memory (ptxas 12.9: "32-Bit
//! compilation is no longer supported"). The data operand may be wider than
//! the instruction type (rule `check/operand-type`).

use super::operand::{special, value, Role};
use super::opname;
use ptxsim_isa::grammar::modifier_span;
use crate::isa::Feature;
use ptxsim_isa::{Insn, LdSem, LdSpace};
use crate::ctx::{sym_kind, sym_span, Ctx, Sym, VarRole};
use crate::types::{class, Class, Size};
use ptxsim_syntax::ast::{Instruction, Operand, OperandKind, ScalarType, StateSpace};
use ptxsim_syntax::Diagnostic;

const SPACE_NOTE: &str = "rule check/state-space (PTX ISA 5.1, 9.7.9.8 ld, 9.7.9.10 st): an `ld`/`st` with a state space must address a symbol of that space; a generic access may name any addressable symbol";

/// Checks an instruction of the typed memory rows (`ld` ... `stackrestore`,
/// the cache hints, `isspacep`, `mapa`, `getctarank`); false for another row.
pub fn rows<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, insn: Insn) -> bool {
    match insn {
        Insn::Prefetch { .. } | Insn::Prefetchu { .. } | Insn::Applypriority { .. } | Insn::Discard { .. } | Insn::Createpolicy { .. } => super::scalar::typed(cx, i, insn),
        Insn::Isspacep { .. } | Insn::Mapa { .. } | Insn::Getctarank { .. } => super::space::space(cx, i, insn),
        Insn::Fence { .. } | Insn::Membar { .. } | Insn::Cvta { .. } | Insn::Alloca { .. } | Insn::Stacksave { .. } | Insn::Stackrestore { .. } => typed_other(cx, i, insn),
        Insn::Ld { .. } | Insn::Ldu { .. } | Insn::St { .. } => typed(cx, i, insn),
        _ => return false,
    }
    true
}

/// `ld`, `ldu` and `st` (typed rows): the combination rules of
/// [`ptxsim_isa::Insn::mem_misfit`] at the modifier at fault, one state
/// space, no store to `.const`, the cache-policy operand that
/// `.L2::cache_hint` announces, then the address and the data operand.
pub fn typed<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, insn: Insn) {
    let Some(x) = insn.ld_st() else { return super::operand::resolve_all(cx, i) };
    if let Some(m) = insn.misfit() {
        const NOTE: &str = "rule check/modifiers (PTX ISA 9.7.9.8 ld, 9.7.9.9 ld.global.nc, 9.7.9.10 ldu, 9.7.9.11 st): each syntax line of the instruction lists the modifiers it combines";
        cx.emit(Diagnostic::error("check/modifiers", modifier_span(i, m.modifier), m.why).with_label("modifier does not apply here").with_note(NOTE));
        return super::operand::resolve_all(cx, i);
    }
    if let [Some(first), Some(second)] = x.space {
        cx.emit(
            Diagnostic::error("check/state-space", modifier_span(i, second.as_str()), format!("`{}` takes one state space; `{}` is a second one", i.opcode.text, second.as_str()))
                .with_label("second state space")
                .with_secondary(modifier_span(i, first.as_str()), format!("`{}` given here", first.as_str()))
                .with_note("rule check/state-space (PTX ISA 9.7.9.8 ld, 9.7.9.11 st): one state space, or none for generic addressing"),
        );
        return super::operand::resolve_all(cx, i);
    }
    let store = x.store();
    // ptxas 13.5: "Feature '256 bit wide load/store' requires .target
    // sm_100", "Feature 'ld/st with .local.volatile' requires PTX ISA
    // .version 9.1".
    if x.vec.is_some_and(|v| x.ty.bits() * u32::from(v.len()) == 256) {
        cx.require(Feature::LdSt256, modifier_span(i, x.vec.map_or("", |v| v.as_str())));
    }
    gates(cx, i, &x);
    if x.sem == Some(LdSem::Volatile) && x.space() == Some(LdSpace::Local) {
        cx.require(Feature::LocalVolatile, modifier_span(i, LdSem::Volatile.as_str()));
    }
    if store && x.space() == Some(LdSpace::Const) {
        cx.emit(
            Diagnostic::error("check/state-space", modifier_span(i, LdSpace::Const.as_str()), "`st` cannot write to the `.const` state space")
                .with_label("constant memory is read-only for kernels")
                .with_note("rule check/state-space (PTX ISA 5.1.3 constant state space, 9.7.9.11 st): `.const` is initialised by the host; st takes .global, .local, .shared, .param or a generic address"),
        );
    }
    let (data, addr) = if store { (&i.operands[1], &i.operands[0]) } else { (&i.operands[0], &i.operands[1]) };
    // A qualified space (`.shared::cta`, `.param::entry`) is checked as a
    // generic access that may name it.
    let (space, qualified) = match x.space() {
        Some(s) if s.as_str() == s.base().as_str() => (Some(s.base()), false),
        Some(_) => (None, true),
        None => (None, false),
    };
    address(cx, i, addr, space, store, qualified);
    generic_symbol(cx, i, addr, &x);
    if x.asynchronous {
        // `st.async [a], b, [mbar]`: the mbarrier that counts the bytes.
        match i.operands.get(2) {
            Some(m) => address(cx, i, m, None, false, true),
            None => cx.emit(
                Diagnostic::error("check/operand-count", i.span, format!("`{}` takes the mbarrier after the data operand", opname(i)))
                    .with_label("mbarrier operand missing")
                    .with_note("rule check/operand-count (PTX ISA 9.7.9.12 st.async): `st.async... [a], b, [mbar]`"),
            ),
        }
    } else {
        cache_policy(cx, i, x.hint);
    }
    let (ty, ty_span) = (x.ty, modifier_span(i, x.ty.as_str()));
    if ty == ScalarType::Pred {
        // ptxas 12.9: "Unexpected instruction types specified for 'st'".
        cx.emit(
            Diagnostic::error("check/instruction-type", ty_span, format!("`{}` has no `.pred` form: predicates are not loaded or stored", opname(i)))
                .with_label("not a type of ld/st")
                .with_note("rule check/instruction-type (PTX ISA 9.7.9.8 ld, 9.7.9.11 st: `.type = { .b8, .b16, .b32, .b64, .b128, .u8, ..., .f64 }`, no `.pred`): materialise a predicate with `selp` before storing it, and test a loaded value with `setp`"),
        );
        return;
    }
    // (A one-element `{%r1}` is a scalar: Triton writes it.)
    if x.vec.is_none() && matches!(&data.kind, OperandKind::Vector(v) if v.len() > 1) {
        cx.emit(
            Diagnostic::error("check/operand-type", data.span, format!("`{}` moves one value; a vector data operand needs `.v2`, `.v4` or `.v8`", opname(i)))
                .with_note("rule check/operand-type (PTX ISA 9.7.9.8 ld, 9.7.9.11 st): a brace-enclosed vector goes with a `.vN` instruction (ptxas: \"Argument vector size mismatch\")"),
        );
        return;
    }
    if !super::operand::same_size_elements(cx, data, i) {
        return;
    }
    if let Some(v) = x.vec {
        let n = v.len();
        match &data.kind {
            OperandKind::Vector(v) if v.len() == n as usize => {}
            _ => {
                cx.emit(
                    Diagnostic::error("check/operand-type", data.span, format!("`{}` moves a vector of {n}; the data operand must be `{{...}}` with {n} elements", opname(i)))
                        .with_note("rule check/operand-type (PTX ISA 9.7.9.8 ld): `.vN` loads and stores take a brace-enclosed vector of N registers"),
                );
                return;
            }
        }
    }
    let role = if store { Role::Src } else { Role::Dest };
    value(cx, data, ty, role, Size::AtLeast, i);
}

/// Rule `check/state-space`, as ptxas 12.9 judges `ld`/`st`: a generic
/// access names a `.global`, `.shared` or `.local` symbol, not a `.const`
/// or `.param` one ("State space mismatch between instruction and
/// address"); a function's return parameter is written, never read ("Illegal
/// to read function return parameter").
fn generic_symbol<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, addr: &Operand<'a>, x: &ptxsim_isa::LdSt) {
    let OperandKind::Address(a) = &addr.kind else { return };
    let Some(base) = a.base else { return };
    let Some(Sym::Var(v)) = cx.lookup(base.text) else { return };
    let (vs, role, decl) = (v.space(), v.role, v.name.span);
    if x.space().is_none() && x.kind != ptxsim_isa::LdStKind::Ldu && matches!(vs, StateSpace::Const | StateSpace::Param) {
        cx.emit(
            Diagnostic::error("check/state-space", base.span, format!("generic `{}` names `{}`, a `{}` variable", opname(i), base.text, vs.as_str()))
                .with_label(format!("write `{}{}` to access it", i.opcode.text, vs.as_str()))
                .with_secondary(decl, format!("declared in `{}` here", vs.as_str()))
                .with_note("rule check/state-space (PTX ISA 5.1, 9.7.9.8 ld, 9.7.9.11 st): a generic access may name .global, .shared and .local symbols; .const and .param symbols are accessed with their state space (ptxas 12.9: \"State space mismatch between instruction and address\")"),
        );
    } else if !x.store() && role == VarRole::FuncReturn {
        cx.emit(
            Diagnostic::error("check/state-space", base.span, format!("`{}` reads `{}`, a return parameter of this function", opname(i), base.text))
                .with_label("return parameters are written, not read")
                .with_note("rule check/state-space (PTX ISA 5.1.6.4): a function writes its return parameters with `st.param` (ptxas 12.9: \"Illegal to read function return parameter\")"),
        );
    }
}

/// The version and target gates of ld/st's qualifiers (ptxas 12.9 names
/// each: "Feature '.relaxed' requires .target sm_70 or higher", "Feature
/// '::cta' requires PTX ISA .version 7.8 or later", "Modifier
/// '.L2::cache_hint' requires .target sm_80 or higher", ...).
fn gates<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, x: &ptxsim_isa::LdSt) {
    if let Some(s) = x.sem.filter(|s| matches!(s, LdSem::Relaxed | LdSem::Acquire | LdSem::Release)) {
        cx.require(Feature::MemSem, modifier_span(i, s.as_str()));
    }
    if let Some(s) = x.scope.filter(|s| *s == ptxsim_isa::ProxyScope::Cluster) {
        cx.require(Feature::ClusterScope, modifier_span(i, s.as_str()));
    }
    let space = match x.space() {
        Some(LdSpace::SharedCta) => Some(Feature::SharedCta),
        Some(LdSpace::SharedCluster) => Some(Feature::SpaceCluster),
        Some(LdSpace::ParamEntry) => Some(Feature::SpaceParamEntry),
        Some(LdSpace::ParamFunc) => Some(Feature::SpaceParamFunc),
        _ => None,
    };
    if let (Some(f), Some(s)) = (space, x.space()) {
        cx.require(f, modifier_span(i, s.as_str()));
    }
    if let Some(m) = x.l1.map(|l| l.as_str()).or(x.l2.map(|l| l.as_str())) {
        cx.require(Feature::LdEviction, modifier_span(i, m));
    }
    if let Some(p) = x.prefetch {
        cx.require(if p == ptxsim_isa::PrefetchSize::B256 { Feature::LdPrefetch256 } else { Feature::LdPrefetchSize }, modifier_span(i, p.as_str()));
    }
    if x.hint {
        cx.require(Feature::CacheHint, modifier_span(i, ptxsim_isa::spelling::L2_CACHE_HINT));
    }
    if x.mmio {
        cx.require(Feature::Mmio, modifier_span(i, ptxsim_isa::spelling::MMIO));
    }
    if x.asynchronous {
        cx.require(Feature::StAsync, i.opcode.span);
    }
}

/// The cache-policy operand: there with `.L2::cache_hint`, and only then.
fn cache_policy<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, hint: bool) {
    match (hint, i.operands.get(2)) {
        (true, None) => {
            cx.emit(
                Diagnostic::error("check/operand-count", i.span, format!("`{}` takes a cache policy after the address", opname(i)))
                    .with_label("cache-policy operand missing")
                    .with_note(POLICY_NOTE),
            );
        }
        (false, Some(p)) => {
            cx.emit(
                Diagnostic::error("check/operand-count", p.span, format!("`{}` takes a cache policy only with `.L2::cache_hint`", opname(i)))
                    .with_label("unexpected operand")
                    .with_note(POLICY_NOTE),
            );
        }
        (true, Some(p)) => {
            value(cx, p, ScalarType::B64, Role::Src, Size::Exact, i);
        }
        (false, None) => {}
    }
}

const POLICY_NOTE: &str = "rule check/operand-count (PTX ISA 9.7.9.8 ld, 9.7.9.11 st): `.L2::cache_hint` takes a 64-bit cache-policy operand after the address (`createpolicy` makes one), and only it";

pub(crate) fn address<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, op: &Operand<'a>, space: Option<StateSpace>, store: bool, space_other: bool) {
    let OperandKind::Address(a) = &op.kind else {
        cx.emit(
            Diagnostic::error("check/state-space", op.span, format!("`{}` needs an address in brackets", opname(i)))
                .with_label("expected `[address]`")
                .with_note(SPACE_NOTE),
        );
        return;
    };
    let Some(base) = a.base else { return };
    if special(base.text).is_some() {
        return;
    }
    let Some(sym) = cx.lookup(base.text).cloned() else {
        cx.unknown(base, "register or variable");
        return;
    };
    let decl = sym_span(&sym, &cx.funcs);
    match &sym {
        Sym::Var(v) if v.space() == StateSpace::Reg => {
            // Any integer register addresses (ptxas 12.9 and 13.5 take 8-
            // and 16-bit ones too, warning when one makes a generic or
            // `.global` address under `.address_size 64`); a float or
            // predicate register does not ("Illegal to use symbol ... as
            // address operand").
            let ok = v.ty().is_some_and(|t| matches!(class(t), Class::Bits | Class::Unsigned | Class::Signed) && matches!(t.bits(), 8 | 16 | 32 | 64));
            let narrow = v.ty().map_or(0, |t| t.bits()) < 32;
            if ok && narrow && cx.addr64 && matches!(space, None | Some(StateSpace::Global)) && !space_other {
                let bits = v.ty().map_or(0, |t| t.bits());
                cx.emit(
                    Diagnostic::warning("check/state-space", base.span, format!("{bits}-bit register `{}` used as a {} address with `.address_size 64`", base.text, space.map(|s| s.as_str()).unwrap_or("generic")))
                        .with_label("zero-extended to a 64-bit address")
                        .with_secondary(decl, format!("declared {bits}-bit here"))
                        .with_note("rule check/state-space (PTX ISA 11.1.3 .address_size): ptxas 12.9 and 13.5 accept it with a warning (\"Program uses 16-bit address ... which is conflicting with .address_size 64\")"),
                );
            } else if !ok {
                cx.emit(
                    Diagnostic::error("check/state-space", base.span, format!("address register `{}` must be an integer register", base.text))
                        .with_label(format!("`{}` register", v.ty().map(|t| t.as_str()).unwrap_or("?")))
                        .with_secondary(decl, "declared here")
                        .with_note(SPACE_NOTE),
                );
            } else if cx.addr64 && v.ty().is_some_and(|t| t.bits() == 32) && matches!(space, None | Some(StateSpace::Global)) && !space_other {
                cx.emit(
                    Diagnostic::error("check/state-space", base.span, format!("32-bit register `{}` used as a {} address with `.address_size 64`", base.text, space.map(|s| s.as_str()).unwrap_or("generic")))
                        .with_label("a 64-bit address is needed here")
                        .with_secondary(decl, "declared 32-bit here")
                        .with_note("rule check/state-space (PTX ISA 11.1.3 .address_size): generic and .global addresses are 64-bit under `.address_size 64`; ptxas 12.9 rejects 32-bit ones (\"32-Bit compilation is no longer supported\")"),
                );
            }
        }
        Sym::Var(v) => {
            let vs = v.space();
            let ok = match space {
                None => space_other || !matches!(vs, StateSpace::Reg | StateSpace::Sreg),
                Some(s) => s == vs,
            };
            if !ok {
                cx.emit(
                    Diagnostic::error("check/state-space", base.span, format!("`{}` addresses `{}`, a `{}` variable", opname(i), base.text, vs.as_str()))
                        .with_label(format!("state space mismatch: the instruction accesses `{}`", space.map(|s| s.as_str()).unwrap_or("generic memory")))
                        .with_secondary(decl, format!("declared in `{}` here", vs.as_str()))
                        .with_note(SPACE_NOTE),
                );
            } else if store && vs == StateSpace::Param && matches!(v.role, VarRole::KernelParam | VarRole::FuncParam) {
                let whose = if v.role == VarRole::KernelParam { "a kernel parameter" } else { "an input parameter of this function" };
                cx.emit(
                    Diagnostic::error("check/state-space", base.span, format!("`{}` writes `{}`, which is {whose} and read-only", opname(i), base.text))
                        .with_label("illegal write to an input parameter")
                        .with_secondary(decl, "declared here")
                        .with_note("rule check/state-space (PTX ISA 5.1.6 parameter state space): kernel parameters and a function's input parameters are read-only; copy the value to a register or a local variable"),
                );
            }
        }
        other => {
            cx.emit(
                Diagnostic::error("check/state-space", base.span, format!("`{}` cannot be addressed: it is {}", base.text, sym_kind(other)))
                    .with_label("not a variable or an address register")
                    .with_secondary(decl, "declared here")
                    .with_note(SPACE_NOTE),
            );
        }
    }
}

/// The opcode and all its modifiers: where a gate is reported.
fn whole(i: &Instruction<'_>) -> ptxsim_syntax::Span {
    i.opcode.span.to(i.modifiers.last().map(|m| m.span).unwrap_or(i.opcode.span))
}

/// `fence`, `membar`, `cvta`, `alloca`, `stacksave`, `stackrestore`:
/// the combination rules of [`Insn::mem_misfit`] at the modifier at
/// fault, the gates, then the operands.
pub fn typed_other<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, insn: Insn) {
    if let Some(m) = insn.misfit() {
        const NOTE: &str = "rule check/modifiers (PTX ISA 9.7.13.4 membar/fence): `fence{.sem}.scope`, `fence.op_restrict.release.cluster`, `fence.{acquire,release}.sync_restrict::shared::{cluster,cta}.cluster`, `fence.proxy.proxykind`, `fence.proxy.tensormap::generic.{release,acquire}.scope`, `membar.level`, `membar.proxy.proxykind`";
        cx.emit(Diagnostic::error("check/modifiers", modifier_span(i, m.modifier), m.why).with_label("modifier does not apply here").with_note(NOTE));
        return super::operand::resolve_all(cx, i);
    }
    match insn {
        Insn::Fence { proxy, kind, sem, scope, .. } => {
            // PTX ISA 9.7.13.4: fence 6.0 and sm_70, fence.proxy 7.5.
            cx.require(if proxy { Feature::FenceProxy } else { Feature::Fence }, whole(i));
            if let Some(s) = scope.filter(|s| *s == ptxsim_isa::ProxyScope::Cluster) {
                cx.require(Feature::ClusterScope, modifier_span(i, s.as_str()));
            }
            let operands = kind == Some(ptxsim_isa::ProxyKind::TensormapGeneric) && sem == Some(ptxsim_isa::FenceSem::Acquire);
            let n = i.operands.len();
            if operands && n != 2 || !operands && n != 0 {
                let want = if operands { "an address and a size" } else { "no operands" };
                cx.emit(
                    Diagnostic::error("check/operand-count", i.span, format!("`{}` takes {want}; {n} given", opname(i)))
                        .with_note("rule check/operand-count (PTX ISA 9.7.13.4): only `fence.proxy.tensormap::generic.acquire.scope [addr], size` has operands"),
                );
                return super::operand::resolve_all(cx, i);
            }
            if operands {
                address(cx, i, &i.operands[0], None, false, false);
                // ptxas 12.9: "unexpected value '64', expected to be 128"
                // (the size of a tensor map).
                match &i.operands[1].kind {
                    OperandKind::Int(v) if v.value != 128 => cx.emit(
                        Diagnostic::error("check/operand-type", i.operands[1].span, format!("`{}` takes the size 128, the bytes of a tensor map; {} given", opname(i), v.value))
                            .with_note("rule check/operand-type (PTX ISA 9.7.13.4 fence.proxy.tensormap::generic): the size operand is 128"),
                    ),
                    _ => {
                        value(cx, &i.operands[1], ScalarType::U32, Role::Src, Size::Exact, i);
                    }
                }
            }
        }
        Insn::Cvta { ty, space, .. } => {
            use ptxsim_isa::CvtaSpace;
            let gate = match space {
                CvtaSpace::Param | CvtaSpace::ParamEntry => Some(Feature::CvtaParam),
                CvtaSpace::SharedCluster => Some(Feature::SpaceCluster),
                CvtaSpace::SharedCta => Some(Feature::SharedCta),
                _ => None,
            };
            if let Some(f) = gate {
                cx.require(f, modifier_span(i, space.as_str()));
            }
            if space == CvtaSpace::ParamEntry {
                cx.require(Feature::SpaceParamEntry, modifier_span(i, space.as_str()));
            }
            // ptxas 13.5 (and 12.9 for ld/st): "Program uses 32-bit address
            // ... which is conflicting with .address_size 64".
            if cx.addr64 && ty == ScalarType::U32 {
                cx.emit(
                    Diagnostic::error("check/state-space", modifier_span(i, ty.as_str()), format!("`{}` makes a 32-bit address with `.address_size 64`", opname(i)))
                        .with_label("a 64-bit address is needed here")
                        .with_note("rule check/state-space (PTX ISA 11.1.3 .address_size, 9.7.9.19 cvta): generic addresses are 64-bit under `.address_size 64`; ptxas 13.5 rejects `cvta.*.u32` there"),
                );
                return super::operand::resolve_all(cx, i);
            }
            value(cx, &i.operands[0], ty, Role::Dest, Size::Exact, i);
            value(cx, &i.operands[1], ty, Role::Src, Size::Exact, i);
        }
        Insn::Alloca { ty } => {
            value(cx, &i.operands[0], ty, Role::Dest, Size::Exact, i);
            value(cx, &i.operands[1], ty, Role::Src, Size::Exact, i);
            for o in &i.operands[2..] {
                super::operand::resolve_operand(cx, o);
            }
        }
        Insn::Stacksave { ty } => {
            value(cx, &i.operands[0], ty, Role::Dest, Size::Exact, i);
        }
        Insn::Stackrestore { ty } => {
            value(cx, &i.operands[0], ty, Role::Src, Size::Exact, i);
        }
        _ => super::operand::resolve_all(cx, i),
    }
}

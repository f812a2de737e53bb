//! Resolving and typing single operands, shared by every rule.
//!
//! [`value`] checks a data operand against the type the instruction expects,
//! following [`crate::types`]: registers by their declared type, special
//! registers by their fixed type (PTX ISA 10, special registers), immediates
//! (never range-checked, as ptxas does not; a float immediate is not an
//! integer), and variable or function names, which stand for their address.

use crate::ctx::{sym_kind, sym_span, Ctx, Sym};
use crate::types::{class, reg_fits, Class, Size};
use ptxsim_syntax::ast::{Expr, Instruction, Name, Operand, OperandKind, ScalarType, StateSpace};
use ptxsim_syntax::Diagnostic;
use ptxsim_isa::Opcode;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Dest,
    Src,
}

/// Special registers of thread-block clusters (PTX ISA 7.8, sm_90).
pub const CLUSTER_REGS: &[&str] = &["%clusterid", "%nclusterid", "%cluster_ctaid", "%cluster_nctaid", "%cluster_ctarank", "%cluster_nctarank", "%is_explicit_cluster"];

/// A special register: whether it has `.x/.y/.z` components, and its width
/// (1 for `%is_explicit_cluster`, the one `.pred` special register).
pub fn special(name: &str) -> Option<(bool, u32)> {
    const VEC: &[&str] = &["%tid", "%ntid", "%ctaid", "%nctaid", "%clusterid", "%nclusterid", "%cluster_ctaid", "%cluster_nctaid"];
    const W64: &[&str] = &["%gridid", "%clock64", "%globaltimer", "%current_graph_exec"];
    const W32: &[&str] = &[
        "%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid", "%lanemask_eq", "%lanemask_le", "%lanemask_lt",
        "%lanemask_ge", "%lanemask_gt", "%clock", "%clock_hi", "%globaltimer_lo", "%globaltimer_hi",
        "%total_smem_size", "%aggr_smem_size", "%dynamic_smem_size", "%cluster_ctarank", "%cluster_nctarank",
        "%reserved_smem_offset_begin", "%reserved_smem_offset_end",
        "%reserved_smem_offset_cap", "%reserved_smem_offset_0", "%reserved_smem_offset_1",
    ];
    // Most names are registers (`%r12`, `%rd3`, `%f1`, `%p2`): tell them
    // apart by their second byte before comparing whole names.
    match name.as_bytes().get(1) {
        Some(b't' | b'n' | b'c' | b'l' | b'w' | b's' | b'g' | b'a' | b'd' | b'i' | b'e') => {}
        Some(b'r') if name.starts_with("%reserved") => {}
        Some(b'p') if name.starts_with("%pm") => {}
        _ => return None,
    }
    if VEC.contains(&name) {
        return Some((true, 32));
    }
    if W64.contains(&name) {
        return Some((false, 64));
    }
    if W32.contains(&name) {
        return Some((false, 32));
    }
    if name == "%is_explicit_cluster" {
        return Some((false, 1));
    }
    if let Some(n) = name.strip_prefix("%pm") {
        if let Some(k) = n.strip_suffix("_64") {
            return k.parse::<u8>().ok().filter(|k| *k < 8).map(|_| (false, 64));
        }
        return n.parse::<u8>().ok().filter(|k| *k < 8).map(|_| (false, 32));
    }
    if let Some(n) = name.strip_prefix("%envreg") {
        return n.parse::<u8>().ok().filter(|k| *k < 32).map(|_| (false, 32));
    }
    None
}

/// The gate of a special register introduced after the first PTX ISA
/// versions or targets (the cluster registers have theirs in
/// [`CLUSTER_REGS`]).
fn special_gate(name: &str) -> Option<crate::isa::Feature> {
    use crate::isa::Feature;
    match name {
        "%aggr_smem_size" => Some(Feature::AggrSmemSize),
        "%current_graph_exec" => Some(Feature::CurrentGraphExec),
        n if n.starts_with("%reserved_smem_offset") => Some(Feature::ReservedSmem),
        "%dynamic_smem_size" | "%total_smem_size" => Some(Feature::SmemSizeRegs),
        "%globaltimer" | "%globaltimer_lo" | "%globaltimer_hi" => Some(Feature::Globaltimer),
        n if n.starts_with("%lanemask_") => Some(Feature::Lanemask),
        "%clock64" => Some(Feature::Clock64),
        "%nsmid" => Some(Feature::Nsmid),
        _ => None,
    }
}

fn mismatch(cx: &mut Ctx<'_, '_>, op: &Operand<'_>, i: &Instruction<'_>, code: &'static str, msg: String, label: String, decl: Option<ptxsim_syntax::Span>, note: &str) {
    let mut d = Diagnostic::error(code, op.span, msg).with_label(label);
    if let Some(s) = decl {
        d = d.with_secondary(s, "declared here");
    }
    let _ = i;
    cx.emit(d.with_note(note.to_string()));
}

/// An instruction's opcode and modifiers as written (`super::opname`),
/// formatted only when a message is built.
struct OpName<'x, 'a>(&'x Instruction<'a>);

impl std::fmt::Display for OpName<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.opcode.text)?;
        for m in &self.0.modifiers {
            f.write_str(m.text)?;
        }
        Ok(())
    }
}

const TYPE_NOTE: &str = "rule check/operand-type (PTX ISA 6.4.1 type-checking rules): `.bN` takes any N-bit register, `.uN`/`.sN` take N-bit integer or bit-size registers, `.fN` takes `.fN` or `.bN`; only ld, st and cvt accept a wider register";
const PRED_NOTE: &str = "rule check/pred-int (PTX ISA 9.3): a predicate is never an integer and an integer never a predicate; `setp` makes a predicate from a value and `selp` a value from a predicate";

/// A special register as a data operand of `i` (see [`value`]).
fn special_value<'a>(cx: &mut Ctx<'_, 'a>, op: &Operand<'a>, (name, component): (&Name<'a>, Option<Name<'a>>), (vector, bits): (bool, u32), (want, role, size): (ScalarType, Role, Size), i: &Instruction<'a>) -> bool {
    let ins = OpName(i);
    if CLUSTER_REGS.contains(&name.text) {
        cx.require(crate::isa::Feature::ClusterRegisters, name.span);
    }
    if let Some(f) = special_gate(name.text) {
        cx.require(f, name.span);
    }
    if role == Role::Dest {
        mismatch(cx, op, i, "check/operand-type", format!("special register `{}` cannot be written", name.text), "read-only".into(), None, "rule check/operand-type (PTX ISA 10): special registers are read-only");
        return false;
    }
    if let (false, Some(c)) = (vector, component) {
        mismatch(cx, op, i, "check/operand-type", format!("`{}` is a scalar special register: it has no component `{}`", name.text, c.text), "not a vector".into(), None, "rule check/operand-type (PTX ISA 10): only %tid, %ntid, %ctaid, %nctaid and the cluster vectors have .x/.y/.z components (ptxas 12.9: \"Unknown field\")");
        return false;
    }
    if vector && component.is_none() {
        mismatch(cx, op, i, "check/operand-type", format!("`{}` is a vector special register; `{ins}` needs one component", name.text), format!("write `{}.x`, `{}.y` or `{}.z`", name.text, name.text, name.text), None, "rule check/operand-type (PTX ISA 10.1 %tid): %tid, %ntid, %ctaid and %nctaid are .v4 vectors; a scalar operand takes one component");
        return false;
    }
    let c = class(want);
    if bits == 1 {
        // PTX ISA 10.30: `%is_explicit_cluster` is a `.pred`
        // (ptxas: `mov.pred` takes it, `mov.u32` does not).
        if want == ScalarType::Pred {
            return true;
        }
        mismatch(cx, op, i, "check/pred-int", format!("special register `{}` is a .pred, which does not fit `{ins}`", name.text), format!("a .pred value where `{}` is expected", want.as_str()), None, PRED_NOTE);
        return false;
    }
    // ptxas 13.5 also reads `%gridid` (a .u64 since PTX ISA 3.0)
    // with `mov.u32`, as its first definition had it.
    let gridid32 = name.text == "%gridid" && want.bits() == 32;
    let fits_bits = gridid32 || match size {
        Size::Exact => want.bits() == bits || (vector && want.bits() == 16),
        Size::AtLeast => bits >= want.bits() || (vector && want.bits() == 16),
    };
    if matches!(c, Class::Float | Class::Pred | Class::Opaque) || !fits_bits {
        mismatch(cx, op, i, "check/operand-type", format!("special register `{}` is .u{bits}, which does not fit `{ins}`", name.text), format!("a .u{bits} value where `{}` is expected", want.as_str()), None, TYPE_NOTE);
        return false;
    }
    return true;
}

/// Checks a data operand against the instruction type `want`. Returns false
/// if an error was reported.
pub fn value<'a>(cx: &mut Ctx<'_, 'a>, op: &Operand<'a>, want: ScalarType, role: Role, size: Size, i: &Instruction<'a>) -> bool {
    let ins = OpName(i);
    match &op.kind {
        OperandKind::Name { name, component } => {
            if let Some((vector, bits)) = special(name.text) {
                return special_value(cx, op, (name, *component), (vector, bits), (want, role, size), i);
            }
            // The common case, a register of a type that fits, without
            // copying its symbol.
            if let Some(Sym::Var(v)) = cx.lookup(name.text) {
                if v.space() == StateSpace::Reg {
                    match v.ty() {
                        None => return true,
                        Some(rt) if (v.sig.vector.is_none() || component.is_some()) && reg_fits(want, rt, size) => return true,
                        Some(_) => {}
                    }
                }
            }
            let Some(sym) = cx.lookup(name.text).cloned() else {
                cx.unknown(*name, "register or variable");
                return false;
            };
            let decl = sym_span(&sym, &cx.funcs);
            match &sym {
                Sym::Var(v) if v.space() == StateSpace::Reg => {
                    let Some(rt) = v.ty() else { return true };
                    if v.sig.vector.is_some() && component.is_none() {
                        mismatch(cx, op, i, "check/operand-type", format!("`{}` is a vector register; `{ins}` needs a scalar", name.text), "a vector register".into(), Some(decl), TYPE_NOTE);
                        return false;
                    }
                    if reg_fits(want, rt, size) {
                        return true;
                    }
                    let (code, note) = if (rt == ScalarType::Pred) != (want == ScalarType::Pred) {
                        ("check/pred-int", PRED_NOTE)
                    } else {
                        ("check/operand-type", TYPE_NOTE)
                    };
                    let what = match role {
                        Role::Dest => "destination",
                        Role::Src => "source",
                    };
                    mismatch(cx, op, i, code, format!("{what} `{}` is a `{}` register, which does not fit `{ins}`", name.text, rt.as_str()), format!("`{}` operand expected here", want.as_str()), Some(decl), note);
                    false
                }
                Sym::Label { .. } => {
                    mismatch(cx, op, i, "check/operand-type", format!("`{}` is a label, not a value", name.text), "labels are only branch targets".into(), Some(decl), TYPE_NOTE);
                    false
                }
                Sym::Var(_) | Sym::Func(_) => {
                    // A variable or function name stands for its address.
                    let c = class(want);
                    if role == Role::Src && matches!(c, Class::Bits | Class::Unsigned | Class::Signed) && want.bits() >= 32 {
                        return true;
                    }
                    mismatch(
                        cx, op, i, "check/operand-type",
                        format!("`{}` is {}; its name stands for its address, which does not fit here", name.text, sym_kind(&sym)),
                        if role == Role::Dest { "a destination must be a register".to_string() } else { format!("`{}` operand expected here", want.as_str()) },
                        Some(decl), TYPE_NOTE,
                    );
                    false
                }
            }
        }
        OperandKind::Neg { name, .. } => {
            let msg = format!("`-{}`: `{ins}` does not take a negated operand", name.text);
            mismatch(cx, op, i, "check/operand-type", msg, "operand negation".into(), None, "rule check/operand-type (PTX ISA 9.7.16.1.3 vmad): only vmad's sources may be negated");
            false
        }
        OperandKind::Not(n) => {
            if want != ScalarType::Pred || role == Role::Dest {
                mismatch(cx, op, i, "check/pred-int", format!("`!{}` negates a predicate, but `{ins}` expects `{}` here", n.text, want.as_str()), "negation only applies to predicate sources".into(), None, PRED_NOTE);
                return false;
            }
            pred_reg(cx, *n, i)
        }
        OperandKind::Int(_) => {
            if role == Role::Dest {
                mismatch(cx, op, i, "check/operand-type", "a destination must be a register, not an immediate".into(), "immediate here".into(), None, TYPE_NOTE);
                return false;
            }
            if class(want) == Class::Opaque {
                return false;
            }
            // ptxas 13.5: "Arguments mismatch" for an integer constant where
            // `.f32`/`.f64` is expected (write `0f3F800000` or `1.0`).
            if matches!(want, ScalarType::F32 | ScalarType::F64) {
                mismatch(cx, op, i, "check/operand-type", format!("integer immediate in `{ins}`, which expects `{}` here", want.as_str()), "write a floating-point constant (`1.0`, `0f3F800000`)".into(), None, "rule check/operand-type (PTX ISA 4.5.1 constants, 6.4.1): an integer constant is not a floating-point operand; `.f32`/`.f64` operands take floating-point constants (ptxas: \"Arguments mismatch\")");
                return false;
            }
            true
        }
        OperandKind::Float(f) => {
            if role == Role::Dest {
                mismatch(cx, op, i, "check/operand-type", "a destination must be a register, not an immediate".into(), "immediate here".into(), None, TYPE_NOTE);
                return false;
            }
            // ptxas 12.9 ("Arguments mismatch"): a bit-size operand takes a
            // float constant of its own size (`0f` 32 bits, `0d` and
            // decimal 64), a float operand any of 32 or 64 bits; 16-bit
            // operands take none.
            let bits = match f {
                ptxsim_syntax::ast::FloatLit::F32Bits(_) => 32,
                _ => 64,
            };
            let fits = match class(want) {
                Class::Float => matches!(want, ScalarType::F32 | ScalarType::F64),
                Class::Bits => want.bits() == bits,
                _ => false,
            };
            if fits {
                return true;
            }
            if matches!(class(want), Class::Float | Class::Bits) {
                mismatch(cx, op, i, "check/operand-type", format!("a {bits}-bit floating-point constant in `{ins}`, whose operand is `{}`", want.as_str()), format!("a `{}` operand expected here", want.as_str()), None, "rule check/operand-type (PTX ISA 4.5.1 constants): `0f` constants are 32 bits, `0d` and decimal ones 64; a bit-size operand takes one of its own size, a .f32/.f64 operand either, a 16-bit operand none (ptxas: \"Arguments mismatch\")");
                return false;
            }
            mismatch(cx, op, i, "check/operand-type", format!("floating-point immediate in `{ins}`"), format!("`{}` expects an integer", want.as_str()), None, "rule check/operand-type (PTX ISA 4.5.1 constants): floating-point constants are only valid with float and bit-size instruction types");
            false
        }
        OperandKind::Expr(e) => {
            let ok = resolve_expr(cx, e);
            if role == Role::Dest {
                mismatch(cx, op, i, "check/operand-type", "a destination must be a register, not an expression".into(), "expression here".into(), None, TYPE_NOTE);
                return false;
            }
            ok
        }
        OperandKind::Sink => true,
        OperandKind::Vector(elems) => {
            let mut ok = true;
            for e in elems {
                ok &= value(cx, e, want, role, size, i);
            }
            ok
        }
        OperandKind::PredPair(..) | OperandKind::VectorPred(..) | OperandKind::Address(_) | OperandKind::List(_) | OperandKind::Bracket(_) => {
            mismatch(cx, op, i, "check/operand-shape", format!("unexpected operand shape in `{ins}`"), format!("a `{}` value is expected here", want.as_str()), None, "rule check/operand-shape: each instruction has a fixed operand form");
            false
        }
    }
}

/// The register size of a name operand, if it is a register (`None` for
/// an immediate, a sink, or anything else).
pub fn reg_bits(cx: &Ctx<'_, '_>, op: &Operand<'_>) -> Option<u32> {
    let OperandKind::Name { name, component: None } = &op.kind else { return None };
    match cx.lookup(name.text) {
        Some(Sym::Var(v)) if v.space() == StateSpace::Reg => v.ty().map(|t| t.bits()),
        _ => None,
    }
}

/// Rule `check/operand-type`: the registers of a brace-enclosed vector
/// operand all have one size (ptxas 12.9: "Incompatible elements of vector
/// expression"); false after reporting one that does not.
pub fn same_size_elements(cx: &mut Ctx<'_, '_>, op: &Operand<'_>, i: &Instruction<'_>) -> bool {
    let OperandKind::Vector(elems) = &op.kind else { return true };
    let mut first: Option<(u32, &Operand<'_>)> = None;
    for e in elems {
        let Some(b) = reg_bits(cx, e) else { continue };
        match first {
            None => first = Some((b, e)),
            Some((b0, _)) if b0 != b => {
                mismatch(cx, e, i, "check/operand-type", format!("the elements of the vector operand of `{}` are registers of {b0} and {b} bits", OpName(i)), format!("a {b0}-bit register expected here"), None, "rule check/operand-type (PTX ISA 5.4.2 vectors, 6.4.1): the registers of a vector operand have one size (ptxas: \"Incompatible elements of vector expression\")");
                return false;
            }
            Some(_) => {}
        }
    }
    true
}

/// Checks that a name is a `.pred` register.
pub fn pred_reg(cx: &mut Ctx<'_, '_>, n: Name<'_>, i: &Instruction<'_>) -> bool {
    match cx.lookup(n.text) {
        Some(Sym::Var(v)) if v.space() == StateSpace::Reg && v.ty() == Some(ScalarType::Pred) => true,
        Some(s) => {
            let decl = sym_span(s, &cx.funcs);
            let what = match s {
                Sym::Var(v) => format!("a `{}` register", v.ty().map(|t| t.as_str()).unwrap_or("?")),
                other => sym_kind(other),
            };
            cx.emit(
                Diagnostic::error("check/pred-int", n.span, format!("`{}` in `{}` must be a predicate, but it is {what}", n.text, super::opname(i)))
                    .with_label("predicate expected")
                    .with_secondary(decl, "declared here")
                    .with_note(PRED_NOTE),
            );
            false
        }
        None => {
            cx.unknown(n, "predicate register");
            false
        }
    }
}

/// Rule `check/register-minus` (PTX ISA 4.6 operand forms; ptxas 12.9's
/// grammar): a register followed by `-` is a syntax error to ptxas (it takes
/// `%r1+4` in some operand positions, but never `%r1-4`). The usual cause is
/// a missing comma: `..., %p1 -1;` for `..., %p1, -1;`.
fn register_minus(cx: &mut Ctx<'_, '_>, e: &Expr<'_>) -> bool {
    let Expr::Binary(ptxsim_syntax::ast::BinOp::Sub, a, _, span) = e else { return true };
    let Expr::Name(n) = a.as_ref() else { return true };
    let is_reg = special(n.text).is_some() || matches!(cx.lookup(n.text), Some(Sym::Var(v)) if v.space() == StateSpace::Reg);
    if !is_reg {
        return true;
    }
    cx.emit(
        Diagnostic::error("check/register-minus", *span, format!("`{}` is a register: it cannot be followed by `-` in an operand", n.text))
            .with_label("read as one operand: a register minus a constant")
            .with_note("rule check/register-minus: ptxas rejects a register followed by `-` (\"Parsing error near '-'\"); if these are two operands, a `,` is missing"),
    );
    false
}

/// Resolves the names in a constant expression.
pub fn resolve_expr(cx: &mut Ctx<'_, '_>, e: &Expr<'_>) -> bool {
    if !register_minus(cx, e) {
        return false;
    }
    match e {
        Expr::Name(n) | Expr::Generic(n, _) => {
            if cx.lookup(n.text).is_none() && special(n.text).is_none() {
                cx.unknown(*n, "symbol");
                return false;
            }
            true
        }
        Expr::Unary(_, a, _) => resolve_expr(cx, a),
        Expr::Binary(_, a, b, _) => resolve_expr(cx, a) & resolve_expr(cx, b),
        Expr::Cond(c, a, b, _) => resolve_expr(cx, c) & resolve_expr(cx, a) & resolve_expr(cx, b),
        Expr::Int(..) | Expr::Float(..) => true,
        Expr::Mask(_, _, span) => {
            cx.emit(
                Diagnostic::error("check/initializer", *span, "the mask operator (`0xFF00(...)`) belongs to variable initialisers")
                    .with_label("not an initialiser")
                    .with_note("rule check/initializer (PTX ISA 5.4.4): a mask selects one byte of an address in a variable's initialiser"),
            );
            false
        }
    }
}

/// Resolves every name in an operand, without typing it.
pub fn resolve_operand(cx: &mut Ctx<'_, '_>, op: &Operand<'_>) {
    match &op.kind {
        OperandKind::Name { name, .. } | OperandKind::Not(name) | OperandKind::Neg { name, .. } => {
            if special(name.text).is_none() && cx.lookup(name.text).is_none() {
                cx.unknown(*name, "symbol");
            }
        }
        OperandKind::PredPair(a, b) => {
            for n in [a, b] {
                if n.text != "_" && cx.lookup(n.text).is_none() {
                    cx.unknown(*n, "predicate register");
                }
            }
        }
        OperandKind::Expr(e) => {
            resolve_expr(cx, e);
        }
        OperandKind::Address(a) => {
            if let Some(b) = a.base {
                if special(b.text).is_none() && cx.lookup(b.text).is_none() {
                    cx.unknown(b, "register or variable");
                }
            }
        }
        OperandKind::Vector(v) | OperandKind::List(v) | OperandKind::Bracket(v) => {
            for o in v {
                resolve_operand(cx, o);
            }
        }
        OperandKind::VectorPred(v, p) => {
            for o in v {
                resolve_operand(cx, o);
            }
            if p.text != "_" && cx.lookup(p.text).is_none() {
                cx.unknown(*p, "predicate register");
            }
        }
        OperandKind::Sink | OperandKind::Int(_) | OperandKind::Float(_) => {}
    }
}

/// The `Loose` form: resolve names only.
pub fn resolve_all(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>) {
    for op in &i.operands {
        resolve_operand(cx, op);
    }
}

/// Rule `check/special-register` (as ptxas 12.9 applies it under every
/// `.version` measured, 1.4 to 8.6): special registers are read with `mov`
/// (PTX ISA 10: "special registers ... are read-only", moved into ordinary
/// registers) and with integer-to-integer `cvt`; any other instruction
/// naming one as an operand is refused ("Special register argument not
/// allowed for instruction 'bar'"): `add.u32 %r, %tid.x, 1`,
/// `bar.sync 1, %ntid.x`, `cvt.rn.f32.u32 %f, %tid.x`. Elements of a vector
/// operand (`st.v2.u32 [a], {%tid.x, %r}`) are not concerned.
pub fn special_operands(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>) {
    let allowed = match Opcode::of_insn(i) {
        Some(Opcode::Mov) => true,
        Some(Opcode::Cvt) => {
            let ts = ptxsim_isa::modifiers::types(i);
            ts.len() == 2 && ts.iter().all(|t| matches!(class(*t), Class::Unsigned | Class::Signed | Class::Bits))
        }
        _ => false,
    };
    if allowed {
        return;
    }
    for o in &i.operands {
        if let OperandKind::Name { name, .. } = &o.kind {
            if special(name.text).is_some() {
                cx.emit(
                    Diagnostic::error("check/special-register", o.span, format!("special register `{}` cannot be an operand of `{}`", name.text, OpName(i)))
                        .with_label("copy it into a register with `mov` first")
                        .with_note("rule check/special-register (PTX ISA 10 special registers; ptxas 12.9 \"Special register argument not allowed for instruction\"): a special register is read by `mov` or an integer `cvt` into an ordinary register, which other instructions then use"),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    /// The code of the first error of `body` in a kernel on sm_90a, or
    /// `None` where it checks clean.
    fn first(body: &str) -> Option<String> {
        crate::testing::first_error(&crate::testing::kernel("8.0", "sm_90a", "", &format!(".reg .b32 %r<4>;\n.reg .f32 %f<4>;\n.reg .f64 %fd<4>;\n.reg .b64 %rd<4>;\n.reg .pred %p<3>;\n{body}")))
    }

    /// ptxas 13.5: an integer constant where `.f32`/`.f64` is expected is
    /// "Arguments mismatch"; a float constant, or an integer in a `.b32`
    /// or integer position of the same instruction, is fine.
    #[test]
    fn an_integer_immediate_is_not_a_float_operand() {
        let e = Some("check/operand-type".to_string());
        for bad in ["mov.f32 %f1, 1;", "mov.f64 %fd1, 0;", "add.f32 %f1, %f2, 1;", "setp.eq.f32 %p1, %f1, 0;", "selp.f32 %f1, %f2, 0, %p1;", "st.global.f32 [%rd1], 0;", "cvt.rn.f32.f64 %f1, 1;"] {
            assert_eq!(first(bad), e, "{bad}");
        }
        for good in ["mov.f32 %f1, 1.0;", "mov.f32 %f1, 0f3F800000;", "mov.b32 %f1, 1;", "cvt.rn.f32.s32 %f1, 1;", "ld.global.f32 %f1, [%rd1+4];"] {
            assert_eq!(first(good), None, "{good}");
        }
    }

    /// ptxas 13.5: "Immediate addresses allowed only for .local state
    /// space".
    #[test]
    fn an_immediate_address_is_a_local_one() {
        let e = Some("check/state-space".to_string());
        for bad in ["ld.u32 %r1, [4];", "ld.global.u32 %r1, [4];", "ldu.global.u32 %r1, [4];", "atom.global.add.u32 %r1, [4], 1;", "prefetch.global.L2 [4];"] {
            assert_eq!(first(bad), e, "{bad}");
        }
        for good in ["ld.local.u32 %r1, [0];", "st.local.u32 [4], %r1;", "ld.global.u32 %r1, [%rd1];"] {
            assert_eq!(first(good), None, "{good}");
        }
    }
}

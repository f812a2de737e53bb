//! `call`: direct calls, and indirect calls through `flist` (a call table or
//! a `.calltargets` label) or `fproto` (a `.callprototype` label).
//!
//! Rules (PTX ISA 9.7.12.5, seed 003):
//! - `check/call-target`: a direct callee is a `.func` declared before the
//!   call (not a kernel, label or variable); in a whole-program module
//!   (as ptxas compiles it) a called function must have a body, except the
//!   CUDA system calls (`vprintf`, `malloc`, ...).
//! - `check/call-args`: argument and return counts match, and each argument
//!   matches its formal parameter by type class and size (a `.b32` formal
//!   takes `.u32/.s32/.f32`; a `.u32` formal takes `.s32/.b32`, not `.f32`
//!   or `.u16`), arrays by element type, count and alignment; arguments are
//!   registers, immediates or local `.param` variables.
//! - `check/call-indirect`: an indirect call names an `flist` or `fproto`
//!   declared before it; every function the list names matches the call; the
//!   call matches the prototype. Gated at 2.1 / sm_20.

use crate::ctx::{sym_kind, sym_span, Ctx, LabelKind, ParamSig, Sym};
use crate::isa::Feature;
use crate::types::{arg_fits, class, Class};
use ptxsim_syntax::ast::{Expr, FunctionKind, Init, Instruction, Name, Operand, OperandKind, ScalarType, StateSpace};
use ptxsim_syntax::{Diagnostic, Span};

/// CUDA system calls that ptxas resolves without a body in the module.
pub const SYSCALLS: &[&str] = &[
    "vprintf", "malloc", "free", "__assertfail", "__assert_fail", "cudaGetParameterBuffer",
    "cudaGetParameterBufferV2", "cudaLaunchDevice", "cudaLaunchDeviceV2", "cudaDeviceSynchronize",
    "cudaGetDevice", "cudaDeviceGetAttribute", "cudaStreamCreateWithFlags", "cudaStreamDestroy",
    "cudaEventCreateWithFlags", "cudaEventRecord", "cudaEventDestroy", "cudaFuncGetAttributes",
    "cudaOccupancyMaxActiveBlocksPerMultiprocessor", "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
    "cudaMalloc", "cudaFree", "cudaGetLastError", "cudaPeekAtLastError", "cudaCGGetIntrinsicHandle",
    "cudaCGSynchronize", "cudaCGSynchronizeGrid", "cudaCGGetSize", "cudaCGGetRank",
];

const ARGS_NOTE: &str = "rule check/call-args (PTX ISA 9.7.12.5 call): arguments match the callee's formal parameters in number, type and alignment; ptxas lets a `.u32`, `.s32` or `.f32` argument stand for a `.b32` formal, and an integer one for an integer formal of the same size";

/// A callee signature to match a call against.
struct Callee<'s, 'a> {
    what: String,
    span: Span,
    returns: &'s [ParamSig<'a>],
    params: &'s [ParamSig<'a>],
}

/// Rules `check/call-target` and `check/call-args` (PTX ISA 9.7.12.5):
/// `call{.uni} (ret-param), func, (param-list){, flist}` (the `Call` row's
/// grammar takes `.uni` and nothing else).
pub fn call<'f, 'a>(cx: &mut Ctx<'f, 'a>, i: &'f Instruction<'a>) {
    let ops = &i.operands;
    let mut k = 0;
    let rets: Option<&[Operand<'a>]> = match ops.first().map(|o| &o.kind) {
        Some(OperandKind::List(l)) => {
            k = 1;
            Some(l)
        }
        _ => None,
    };
    let Some(target) = ops.get(k) else {
        cx.emit(Diagnostic::error("check/call-target", i.span, "`call` needs a callee").with_note("rule check/call-target (PTX ISA 9.7.12.5)"));
        return;
    };
    let mut args: &[Operand<'a>] = &[];
    let mut next = k + 1;
    if let Some(Operand { kind: OperandKind::List(l), .. }) = ops.get(next) {
        args = l;
        next += 1;
    }
    let flist = ops.get(next);
    if let Some(extra) = ops.get(next + 1) {
        cx.emit(Diagnostic::error("check/call-target", extra.span, "unexpected operand after the call's target list").with_note("rule check/call-target (PTX ISA 9.7.12.5): `call (ret), f, (args), flist;`"));
        return;
    }
    let OperandKind::Name { name, component: None } = &target.kind else {
        cx.emit(Diagnostic::error("check/call-target", target.span, "the callee must be a function name or a register holding a function address").with_note("rule check/call-target (PTX ISA 9.7.12.5)"));
        return;
    };
    match cx.lookup(name.text).cloned() {
        Some(Sym::Func(fi)) => {
            if let Some(fl) = flist {
                cx.emit(
                    Diagnostic::error("check/call-target", fl.span, format!("a direct call of `{}` takes no call-target list", name.text))
                        .with_label("unexpected `flist`/`fproto` operand")
                        .with_note("rule check/call-target (PTX ISA 9.7.12.5): only indirect calls through a register name a `flist` or `fproto`"),
                );
            }
            let Some(f) = cx.funcs.get(fi) else { return };
            let fspan = f.name.span;
            if f.kind == FunctionKind::Entry {
                cx.emit(
                    Diagnostic::error("check/call-target", target.span, format!("`{}` is a kernel (`.entry`); only device functions (`.func`) can be called", name.text))
                        .with_label("illegal call target")
                        .with_secondary(fspan, "declared as `.entry` here")
                        .with_note("rule check/call-target (PTX ISA 9.7.12.5): \"func is a symbol\" naming a `.func`; kernels are launched from the host"),
                );
                return;
            }
            if !cx.bodies.contains_key(name.text) && !SYSCALLS.contains(&name.text) {
                let is_extern = cx.externs.contains(name.text);
                if is_extern && cx.mode == crate::Mode::Relocatable {
                    if !cx.unresolved.iter().any(|u| u.0 == name.text) {
                        cx.unresolved.push((name.text, target.span));
                    }
                } else if is_extern {
                    cx.emit(
                        Diagnostic::error("check/call-target", target.span, format!("`{}` is called but never defined in this module", name.text))
                            .with_label("unresolved function")
                            .with_secondary(fspan, "declared `.extern` without a body here")
                            .with_note("rule check/call-target: a whole program (ptxas without `-c`) needs a definition of every called `.extern` function (ptxas: \"Unresolved extern function\"); only CUDA system calls such as `vprintf` are resolved without one. Relocatable code (`ptxas -c`, the default of `ptxsim check`) leaves it to the linker"),
                    );
                }
                // (Without `.extern`: reported at its declaration, called or not.)
            }
            let returns = cx.funcs[fi].returns.clone();
            let params = cx.funcs[fi].params.clone();
            let callee = Callee { what: format!("`{}`", name.text), span: fspan, returns: &returns, params: &params };
            match_call(cx, i, rets, args, &callee);
        }
        Some(Sym::Var(v)) if v.space() == StateSpace::Reg => {
            cx.require(Feature::IndirectCall, i.opcode.span);
            let ok = v.ty().is_some_and(|t| matches!(class(t), Class::Bits | Class::Unsigned | Class::Signed) && matches!(t.bits(), 32 | 64));
            if !ok {
                cx.emit(
                    Diagnostic::error("check/call-indirect", target.span, format!("function pointer `{}` must be a 32- or 64-bit integer register", name.text))
                        .with_secondary(v.name.span, "declared here")
                        .with_note("rule check/call-indirect (PTX ISA 9.7.12.5): \"fptr must be an address of a function held in a register\""),
                );
            }
            indirect(cx, i, rets, args, flist);
        }
        Some(s) => {
            let decl = sym_span(&s, &cx.funcs);
            cx.emit(
                Diagnostic::error("check/call-target", target.span, format!("the callee `{}` is {}, not a function", name.text, sym_kind(&s)))
                    .with_label("not a function")
                    .with_secondary(decl, "declared here")
                    .with_note("rule check/call-target (PTX ISA 9.7.12.5): a direct call names a `.func` declared before it; an indirect call goes through a register"),
            );
        }
        None => {
            if let Some(later) = cx.all_funcs.get(name.text).copied() {
                cx.emit(
                    Diagnostic::error("check/call-target", target.span, format!("`{}` is called before it is declared", name.text))
                        .with_label("no declaration or prototype of this function before this call")
                        .with_secondary(later, "the function is declared only here, later")
                        .with_note("rule check/call-target (PTX ISA 9.7.12.5): a callee must be declared before use; add a prototype (`.func f(...);`) above the caller"),
                );
            } else {
                cx.unknown(*name, "function");
            }
        }
    }
}

fn indirect<'f, 'a>(cx: &mut Ctx<'f, 'a>, i: &'f Instruction<'a>, rets: Option<&[Operand<'a>]>, args: &[Operand<'a>], flist: Option<&Operand<'a>>) {
    const NOTE: &str = "rule check/call-indirect (PTX ISA 9.7.12.5): an indirect call ends with `flist` (a call table in .global/.const initialised with function names, or a `.calltargets` label) or `fproto` (a `.callprototype` label), declared before the call";
    let Some(fl) = flist else {
        cx.emit(
            Diagnostic::error("check/call-indirect", i.span, "an indirect call needs a list of targets (`flist`) or a prototype (`fproto`) as its last operand")
                .with_label("missing `flist` or `fproto`")
                .with_note(NOTE),
        );
        return;
    };
    let OperandKind::Name { name, component: None } = &fl.kind else {
        cx.emit(Diagnostic::error("check/call-indirect", fl.span, "`flist`/`fproto` must be a name").with_note(NOTE));
        return;
    };
    match cx.lookup(name.text).cloned() {
        Some(Sym::Label { name: decl, kind }) => {
            let declared_later = decl.span.start > fl.span.start;
            match kind {
                LabelKind::CallTargets(_) | LabelKind::CallPrototype { .. } if declared_later => {
                    cx.emit(
                        Diagnostic::error("check/call-indirect", fl.span, format!("`{}` is used before it is declared", name.text))
                            .with_label("used here")
                            .with_secondary(decl.span, "declared here, after the call")
                            .with_note(NOTE),
                    );
                }
                LabelKind::CallTargets(list) => {
                    for t in list {
                        if let Some(Sym::Func(fi)) = cx.lookup(t.text).cloned() {
                            let (returns, params, span) = (cx.funcs[fi].returns.clone(), cx.funcs[fi].params.clone(), cx.funcs[fi].name.span);
                            let callee = Callee { what: format!("`{}` (listed in `.calltargets` `{}`)", t.text, name.text), span, returns: &returns, params: &params };
                            match_call(cx, i, rets, args, &callee);
                        }
                    }
                }
                LabelKind::CallPrototype { returns, params } => {
                    cx.require(Feature::CallPrototype, fl.span);
                    let returns: Vec<ParamSig<'a>> = returns.unwrap_or(&[]).iter().map(ParamSig::from_param).collect();
                    let params: Vec<ParamSig<'a>> = params.iter().map(ParamSig::from_param).collect();
                    let callee = Callee { what: format!("prototype `{}`", name.text), span: decl.span, returns: &returns, params: &params };
                    if match_call(cx, i, rets, args, &callee) {
                        crate::ub::prototype_unmatched(cx, fl.span, decl.span, &returns, &params);
                    }
                }
                other => {
                    cx.emit(
                        Diagnostic::error("check/call-indirect", fl.span, format!("`{}` is {}; an indirect call needs a `.calltargets` or `.callprototype` label or a call table", name.text, other.describe()))
                            .with_label("not a call-target list or prototype")
                            .with_secondary(decl.span, "declared here")
                            .with_note(NOTE),
                    );
                }
            }
        }
        Some(Sym::Var(v)) if v.space() != StateSpace::Reg => {
            let funcs = table_functions(&v);
            let ok_space = matches!(v.space(), StateSpace::Global | StateSpace::Const);
            if v.sig.elems.is_none() || funcs.is_empty() || !ok_space {
                let why = if !ok_space {
                    format!("it is in `{}`, and call tables live in `.global` or `.const`", v.space().as_str())
                } else if v.sig.elems.is_none() {
                    "it is a scalar, not an array".to_string()
                } else {
                    "it is not initialised with function names".to_string()
                };
                cx.emit(
                    Diagnostic::error("check/call-indirect", fl.span, format!("`{}` is not a call table: {why}", name.text))
                        .with_label("expected a call table, `.calltargets` or `.callprototype` label")
                        .with_secondary(v.name.span, "declared here")
                        .with_note(NOTE),
                );
                return;
            }
            for f in funcs {
                if let Some(Sym::Func(fi)) = cx.lookup(f.text).cloned() {
                    let (returns, params, span) = (cx.funcs[fi].returns.clone(), cx.funcs[fi].params.clone(), cx.funcs[fi].name.span);
                    let callee = Callee { what: format!("`{}` (in call table `{}`)", f.text, name.text), span, returns: &returns, params: &params };
                    match_call(cx, i, rets, args, &callee);
                }
            }
        }
        Some(s) => {
            let decl = sym_span(&s, &cx.funcs);
            let hint = if matches!(s, Sym::Func(_)) { "; list it in a `.calltargets` directive instead" } else { "" };
            cx.emit(
                Diagnostic::error("check/call-indirect", fl.span, format!("`{}` is {}, not a call-target list or prototype{hint}", name.text, sym_kind(&s)))
                    .with_label("not a `flist` or `fproto`")
                    .with_secondary(decl, "declared here")
                    .with_note(NOTE),
            );
        }
        None => cx.unknown(*name, "call table, `.calltargets` or `.callprototype` label"),
    }
}

/// The function names a call table's initialiser lists.
fn table_functions<'a>(v: &crate::ctx::VarSym<'_, 'a>) -> Vec<Name<'a>> {
    let mut out = Vec::new();
    let Some(decl) = v.decl else { return out };
    let Some(d) = decl.declarators.get(v.declarator) else { return out };
    fn walk<'a>(i: &Init<'a>, out: &mut Vec<Name<'a>>) {
        match i {
            Init::List(l, _) => l.iter().for_each(|x| walk(x, out)),
            Init::Expr(Expr::Name(n)) => out.push(*n),
            Init::Expr(_) => {}
        }
    }
    if let Some(init) = &d.init {
        walk(init, &mut out);
    }
    out
}

/// Matches a call's returns and arguments against a signature; true if they match.
fn match_call<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, rets: Option<&[Operand<'a>]>, args: &[Operand<'a>], callee: &Callee<'_, 'a>) -> bool {
    // ptxas compiles calls with the ABI, which passes no predicate and no
    // 8- or 16-bit scalar: "In ABI compilation, passing predicate, 8-bit and
    // 16-bit parameters to device functions is not supported".
    for f in callee.returns.iter().chain(callee.params) {
        let narrow = f.elems.is_none() && f.vector.is_none() && f.ty.is_some_and(|t| t == ScalarType::Pred || t.bits() < 32);
        if narrow {
            let t = f.ty.map(|t| t.as_str()).unwrap_or("");
            cx.emit(
                Diagnostic::error("check/call-args", i.span, format!("{} has the `{t}` parameter `{}`, which a call cannot pass", callee.what, f.name.text))
                    .with_label("call through the ABI")
                    .with_secondary(f.span, format!("`{t}` parameter declared here"))
                    .with_note("rule check/call-args (ptxas ABI): predicates and 8- and 16-bit scalars are not passed to device functions; declare the parameter `.b32` (or `.u32`/`.s32`) and convert, as nvcc does"),
            );
            return false;
        }
    }
    let nrets = rets.map(|r| r.len()).unwrap_or(0);
    if nrets != callee.returns.len() || args.len() != callee.params.len() {
        let msg = if nrets != callee.returns.len() {
            format!(
                "the call has {nrets} return operand{}, but {} returns {}",
                if nrets == 1 { "" } else { "s" },
                callee.what,
                callee.returns.len()
            )
        } else {
            format!("the call passes {} argument{}, but {} takes {}", args.len(), if args.len() == 1 { "" } else { "s" }, callee.what, callee.params.len())
        };
        cx.emit(
            Diagnostic::error("check/call-args", i.span, format!("wrong number of call operands: {msg}"))
                .with_label("call has wrong number of parameters")
                .with_secondary(callee.span, "the callee's signature is declared here")
                .with_note(ARGS_NOTE),
        );
        return false;
    }
    let mut ok = true;
    for (op, f) in rets.unwrap_or(&[]).iter().zip(callee.returns) {
        ok &= arg(cx, op, f, callee, true);
    }
    for (op, f) in args.iter().zip(callee.params) {
        ok &= arg(cx, op, f, callee, false);
    }
    ok
}

fn arg<'a>(cx: &mut Ctx<'_, 'a>, op: &Operand<'a>, formal: &ParamSig<'a>, callee: &Callee<'_, 'a>, is_ret: bool) -> bool {
    let which = if is_ret { "return parameter" } else { "formal parameter" };
    let err = |cx: &mut Ctx<'_, 'a>, msg: String, label: String, decl: Option<Span>| {
        let mut d = Diagnostic::error("check/call-args", op.span, msg).with_label(label);
        if let Some(s) = decl {
            d = d.with_secondary(s, "the argument is declared here");
        }
        d = d.with_secondary(formal.span, format!("{which} `{}` of {} is declared here", formal.name.text, callee.what));
        cx.emit(d.with_note(ARGS_NOTE));
        false
    };
    match &op.kind {
        OperandKind::Name { name, component: None } => match cx.lookup(name.text).cloned() {
            Some(Sym::Var(v)) => {
                let a = &v.sig;
                match v.space() {
                    StateSpace::Reg | StateSpace::Param => {}
                    s => {
                        return err(cx, format!("call argument `{}` is a `{}` variable; arguments are registers, immediates or `.param` variables", name.text, s.as_str()), "illegal state space for a call argument".into(), Some(v.name.span));
                    }
                }
                let (Some(ft), Some(at)) = (formal.ty, a.ty) else { return true };
                let type_ok = a.elems == formal.elems && a.vector == formal.vector && arg_fits(ft, at);
                if !type_ok {
                    return err(
                        cx,
                        format!("the type of `{}` (`{}`) does not match {which} `{}` (`{}`)", name.text, a.describe(), formal.name.text, formal.describe()),
                        "type mismatch".into(),
                        Some(v.name.span),
                    );
                }
                if v.space() == StateSpace::Param && a.effective_align() != formal.effective_align() {
                    return err(
                        cx,
                        format!("the alignment of `{}` ({} bytes) does not match {which} `{}` ({} bytes)", name.text, a.effective_align(), formal.name.text, formal.effective_align()),
                        "alignment mismatch".into(),
                        Some(v.name.span),
                    );
                }
                true
            }
            Some(s) => {
                let decl = sym_span(&s, &cx.funcs);
                err(cx, format!("call argument `{}` is {}, not a value", name.text, sym_kind(&s)), "not a register, immediate or `.param` variable".into(), Some(decl))
            }
            None => {
                cx.unknown(*name, "register or `.param` variable");
                false
            }
        },
        // `call (_), f, ...` discards the return value (ptxas 12.9 accepts
        // it; rule check/sink rejects `_` as an argument).
        OperandKind::Sink if is_ret => true,
        OperandKind::Int(_) | OperandKind::Float(_) if is_ret => err(cx, "a return value must be received in a register or a `.param` variable".into(), "immediate".into(), None),
        OperandKind::Int(_) => {
            if formal.elems.is_some() {
                return err(cx, format!("an immediate cannot be passed for the array {which} `{}`", formal.name.text), "type mismatch".into(), None);
            }
            true
        }
        OperandKind::Float(_) => {
            let ok = formal.elems.is_none() && formal.ty.is_some_and(|t| matches!(class(t), Class::Float | Class::Bits));
            if !ok {
                return err(cx, format!("a floating-point immediate does not match {which} `{}` (`{}`)", formal.name.text, formal.describe()), "type mismatch".into(), None);
            }
            true
        }
        _ => err(cx, "call arguments are registers, immediates or `.param` variables".into(), "unexpected operand".into(), None),
    }
}

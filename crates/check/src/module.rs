//! The module-level pass: `.version`, `.target` and `.address_size`
//! (rule `check/version-target`), module-scope variables and their
//! initialisers (call tables, rule `check/call-table`), function declarations
//! and definitions (rule `check/duplicate-definition`,
//! `check/inconsistent-prototype`). It leaves each function body to a
//! [`Job`], checked afterwards against the module-level state it built
//! (`crate::stream`).

use crate::ctx::{Ctx, FuncInfo, ParamSig, Sym, VarRole, VarSym};
use crate::isa::{self, Feature, PtxVersion};
use ptxsim_syntax::ast::{Spanned, Expr, Function, FunctionKind, Init, Item, Linkage, Module, Name, StateSpace, VarDecl};
use ptxsim_syntax::{Diagnostic, Span};

/// A function body for the body pass: where it stands and what the module
/// pass reported before it.
#[derive(Clone, Copy, Debug)]
pub struct Job {
    /// The function's index in the module's items.
    pub item: usize,
    /// Its index in the function table.
    pub func: usize,
    /// Where its body starts: module-scope names declared from here on are
    /// not visible in it.
    pub before: u32,
    /// How many of the module pass's kept diagnostics come before the body's.
    pub diags_before: usize,
}

/// The module pass: the header, the module-scope declarations and every
/// function's declaration, in order, into `cx`; the bodies are returned as
/// [`Job`]s, in order. The diagnostics `cx.deferred` holds come after all others.
pub fn pass<'f, 'a>(cx: &mut Ctx<'f, 'a>, m: &'f Module<'a>) -> Vec<Job> {
    header(cx, m);
    for item in &m.items {
        if let Item::Function(f) = item {
            let g = cx.gm();
            g.all_funcs.entry(f.name.text).or_insert(f.name.span);
            if matches!(f.linkage.map(|l| l.value), Some(ptxsim_syntax::ast::Linkage::Extern)) {
                g.externs.insert(f.name.text);
            }
            let i = g.headers.len();
            g.first_header.entry(f.name.text).or_insert(i);
            g.headers.push(f);
            if f.body.is_some() {
                g.bodies.entry(f.name.text).or_insert(f.name.span);
            }
        }
    }
    // A function declared without `.extern` and defined nowhere in the
    // module: ptxas 12.9, with `-c` too, "Unresolved extern function".
    let mut reported: Vec<&str> = Vec::new();
    for item in &m.items {
        if let Item::Function(f) = item {
            let name = f.name.text;
            let aliased = || m.items.iter().any(|i| matches!(i, Item::Alias { alias, .. } if alias.text == name));
            // (A declaration with performance directives is a syntax error
            // to ptxas, reported by `header_rules`.)
            let perf = f.directives.iter().any(|d| matches!(d, ptxsim_syntax::ast::FuncDirective::Perf { .. }));
            if f.body.is_none() && !perf && !cx.bodies.contains_key(name) && !cx.externs.contains(name) && !crate::rules::call::SYSCALLS.contains(&name) && !reported.contains(&name) && !aliased() {
                reported.push(name);
                cx.emit(
                    Diagnostic::error("check/call-target", f.name.span, format!("`{name}` is declared but never defined in this module"))
                        .with_label("no body anywhere in the module")
                        .with_note("rule check/call-target: a function declared without `.extern` must be defined in the same module, called or not, even in relocatable code (ptxas 12.9 and ptxas -c: \"Unresolved extern function\"); a function that another module defines is declared `.extern`"),
                );
            }
        }
    }
    for item in &m.items {
        if let Item::Function(f) = item {
            if let Some(l) = f.linkage.filter(|l| l.value == Linkage::Common) {
                cx.emit(
                    Diagnostic::error("check/state-space", l.span, format!("`.common` applies to `.global` variables, not to the function `{}`", f.name.text))
                        .with_label("not a linkage of functions")
                        .with_note("rule check/state-space (PTX ISA 11.6.4 .common): a function is `.extern`, `.visible` or `.weak` (ptxas 12.9: a syntax error)"),
                );
            }
        }
    }
    for item in &m.items {
        if let Item::Alias { alias, aliasee, span } = item {
            alias_directive(cx, alias, aliasee, *span);
        }
    }
    let mut jobs = Vec::new();
    for (k, item) in m.items.iter().enumerate() {
        match item {
            Item::Var(v) => {
                if v.space.value == StateSpace::Param {
                    cx.emit(
                        Diagnostic::error("check/state-space", v.space.span, "`.param` variables cannot be declared at module scope")
                            .with_label("parameters belong to a function's parameter list or body")
                            .with_note("rule check/state-space (PTX ISA 5.1.6 parameter state space): `.param` variables are kernel or function parameters, or call arguments declared inside a body"),
                    );
                }
                if v.space.value == StateSpace::Reg {
                    cx.emit(
                        Diagnostic::error("check/state-space", v.space.span, "module-scope `.reg` variables are not allowed")
                            .with_label("registers are declared inside function bodies")
                            .with_note("rule check/state-space (PTX ISA 5.1.1 register state space): ptxas rejects module-scoped `.reg` variables under the ABI (\"not allowed with ABI\")"),
                    );
                }
                declare_var(cx, v, VarRole::Module)
            }
            Item::Function(f) => {
                if let (Some(func), Some(body)) = (function(cx, f), &f.body) {
                    jobs.push(Job { item: k, func, before: body.span.start, diags_before: cx.diags.len() });
                }
            }
            _ => {}
        }
    }
    jobs
}

/// How `f`'s linkage conflicts with the first declaration of its name, as
/// ptxas 13.5 judges it: `.extern` on one and not the other, or a linkage
/// that differs from the first one's (none after `.visible` is fine, not
/// `.visible` after none).
fn linkage_conflict(cx: &Ctx<'_, '_>, f: &Function<'_>) -> Option<String> {
    use ptxsim_syntax::ast::Linkage;
    // The headers are in source order: the name's first one is the
    // earliest (one map lookup, not a scan per redeclaration).
    let first = cx.headers.get(*cx.first_header.get(f.name.text)?).filter(|h| h.name.span.start < f.name.span.start)?;
    let (l1, l2) = (first.linkage.map(|l| l.value), f.linkage.map(|l| l.value));
    let name = |l: Option<Linkage>| l.map(|l| format!("`{}`", l.as_str())).unwrap_or_else(|| "no linkage".to_string());
    let ext = |l| l == Some(Linkage::Extern);
    if ext(l1) != ext(l2) || (l2.is_some() && l2 != l1) {
        return Some(format!("{} here, {} first", name(l2), name(l1)));
    }
    None
}

/// An `.extern` function with a body (ptxas: "Function definition
/// conflicts with '.extern' declaration").
fn extern_with_body(cx: &mut Ctx<'_, '_>, f: &Function<'_>) {
    if let (Some(l), Some(b)) = (f.linkage, &f.body) {
        if l.value == ptxsim_syntax::ast::Linkage::Extern {
            cx.emit(
                Diagnostic::error("check/inconsistent-prototype", b.span, format!("`.extern` function `{}` has a body", f.name.text))
                    .with_secondary(l.span, "declared `.extern` here")
                    .with_note("rule check/inconsistent-prototype (PTX ISA 11.6.1 .extern): an .extern function is defined in another module; define it here with .visible or .weak"),
            );
        }
    }
}

/// Rule `check/version-target`: the module starts with a `.version` ptxsim
/// knows, names a known `.target` that this version supports, and uses
/// `.address_size` only from 2.3 on (PTX ISA 11.1, module directives).
/// `.alias fAlias, fAliasee;` (PTX ISA 11.6.1; PTX 6.3, sm_30): both name
/// functions of the module, the aliasee with a body, and a call of the
/// alias runs the aliasee's body (so the alias counts as defined). ptxas
/// 12.9: "Unknown symbol" for a name no function has, and "Feature
/// '.alias' requires PTX ISA .version 6.3 or later".
fn alias_directive<'a>(cx: &mut Ctx<'_, 'a>, alias: &ptxsim_syntax::ast::Name<'a>, aliasee: &ptxsim_syntax::ast::Name<'a>, span: ptxsim_syntax::Span) {
    cx.require(isa::Feature::Alias, span);
    const NOTE: &str = "rule check/alias (PTX ISA 11.6.1 .alias): `.alias fAlias, fAliasee;` names a function declared without a body and one the module defines";
    for n in [alias, aliasee] {
        if !cx.all_funcs.contains_key(n.text) {
            cx.emit(Diagnostic::error("check/alias", n.span, format!("`{}` is not a function of this module", n.text)).with_label("unknown symbol").with_note(NOTE));
            return;
        }
    }
    match cx.bodies.get(aliasee.text).copied() {
        Some(_) => {
            if cx.bodies.contains_key(alias.text) {
                cx.emit(Diagnostic::error("check/alias", alias.span, format!("`{}` has a body; an alias is declared without one", alias.text)).with_label("defined function").with_note(NOTE));
                return;
            }
            let at = alias.span;
            cx.gm().bodies.entry(alias.text).or_insert(at);
        }
        None => cx.emit(Diagnostic::error("check/alias", aliasee.span, format!("the aliasee `{}` has no body in this module", aliasee.text)).with_label("not defined here").with_note(NOTE)),
    }
}

fn header(cx: &mut Ctx<'_, '_>, m: &Module<'_>) {
    let mut first_span = None;
    for item in &m.items {
        match item {
            Item::Version(v) => {
                let ver = PtxVersion::new(v.major, v.minor);
                if cx.version.is_some() {
                    cx.emit(Diagnostic::error("check/version-target", v.span, "a second `.version` directive").with_label("the module already has a `.version`").with_note("rule check/version-target: a module has exactly one `.version`, first"));
                    continue;
                }
                if !isa::known_version(ver) {
                    cx.emit(
                        Diagnostic::error("check/version-target", v.span, format!("unsupported PTX ISA version {ver}"))
                            .with_label(format!("ptxsim knows PTX ISA versions 1.0 to {}", isa::newest_version()))
                            .with_note("rule check/version-target (PTX ISA 11.1.1 .version): the version must be one NVIDIA has defined"),
                    );
                }
                cx.gm().version = Some((ver, v.span));
            }
            Item::Target(t) => {
                target_options(cx, t);
                for n in &t.targets {
                    if isa::TARGET_OPTIONS.contains(&n.text) {
                        continue;
                    }
                    match isa::parse_sm(n.text) {
                        Some(sm) => match isa::target_version(sm) {
                            None => cx.emit(
                                Diagnostic::error("check/version-target", n.span, format!("unsupported target `{}`", n.text))
                                    .with_label("not a GPU architecture that PTX defines")
                                    .with_note("rule check/version-target (PTX ISA 11.1.2 .target): known targets are sm_10 .. sm_121 with their `a`/`f` variants"),
                            ),
                            Some(need) => {
                                // Of several, the last one gates (ptxas 12.9).
                                cx.gm().sm = Some((sm, n.span));
                                if let Some((ver, vspan)) = cx.version {
                                    if ver < need {
                                        // ptxas reports this after the module's other errors; so does ptxsim.
                                        cx.deferred.push(
                                            Diagnostic::error("check/version-target", n.span, format!("PTX ISA version {ver} does not support target {sm}"))
                                                .with_label(format!("{sm} needs .version {need} or later"))
                                                .with_secondary(vspan, "the version is declared here")
                                                .with_note("rule check/version-target (PTX ISA 11.1.2 .target, release notes): each target was introduced by a PTX ISA version"),
                                        );
                                    }
                                }
                            }
                        },
                        None => cx.emit(
                            Diagnostic::error("check/version-target", n.span, format!("unknown target option `{}`", n.text))
                                .with_label("expected sm_NN, texmode_unified, texmode_independent, debug or map_f64_to_f32")
                                .with_note("rule check/version-target (PTX ISA 11.1.2 .target)"),
                        ),
                    }
                }
            }
            Item::AddressSize(a) => {
                if a.value != 32 && a.value != 64 {
                    cx.emit(Diagnostic::error("check/version-target", a.span, format!("`.address_size {}` is not 32 or 64", a.value)).with_note("rule check/version-target (PTX ISA 11.1.3 .address_size)"));
                }
                cx.gm().addr64 = a.value == 64;
                cx.require(Feature::AddressSize, a.span);
            }
            Item::Function(f) => {
                first_span.get_or_insert(f.name.span);
            }
            Item::Var(v) => {
                first_span.get_or_insert(v.span);
            }
            _ => {}
        }
    }
    // `.version` opens the module and `.target` follows it (ptxas: "Missing
    // .version directive at start of file"); `.address_size` is given once.
    let first_two: Vec<&Item<'_>> = m.items.iter().take(2).collect();
    if cx.version.is_some() && !matches!(first_two.first(), Some(Item::Version(_))) {
        if let Some((_, vspan)) = cx.version {
            cx.emit(
                Diagnostic::error("check/version-target", vspan, "`.version` must be the first directive of the module")
                    .with_label("something comes before it")
                    .with_note("rule check/version-target (PTX ISA 11.1.1): \"Each PTX module must begin with a .version directive\""),
            );
        }
    }
    if let (Some(Item::Version(_)), Some(second)) = (first_two.first(), first_two.get(1)) {
        if !matches!(second, Item::Target(_)) {
            let span = match m.items.iter().find_map(|i| if let Item::Target(t) = i { Some(t.span) } else { None }) {
                Some(s) => s,
                None => first_span.unwrap_or(Span::DUMMY),
            };
            cx.emit(
                Diagnostic::error("check/version-target", span, "`.target` must directly follow `.version`")
                    .with_label("expected right after `.version`")
                    .with_note("rule check/version-target (PTX ISA 11.1.2): the `.target` directive follows the `.version` directive at the start of the module"),
            );
        }
    }
    // Header order: `.version`, `.target` (possibly repeated), `.address_size`, then the rest.
    let mut seen_body = false;
    let mut seen_size = false;
    for item in &m.items {
        match item {
            Item::Version(_) => {}
            Item::Target(t) if seen_body || seen_size => cx.emit(
                Diagnostic::error("check/version-target", t.span, "`.target` must come before `.address_size` and every declaration")
                    .with_label("misplaced module directive")
                    .with_note("rule check/version-target (PTX ISA 11.1): a module starts with `.version`, `.target`, then `.address_size`"),
            ),
            Item::Target(_) => {}
            Item::AddressSize(a) if seen_body => cx.emit(
                Diagnostic::error("check/version-target", a.span, "`.address_size` must come before every declaration")
                    .with_label("misplaced module directive")
                    .with_note("rule check/version-target (PTX ISA 11.1.3): `.address_size` follows `.target` at the start of the module"),
            ),
            Item::AddressSize(_) => seen_size = true,
            _ => seen_body = true,
        }
    }
    let sizes: Vec<Span> = m.items.iter().filter_map(|i| if let Item::AddressSize(a) = i { Some(a.span) } else { None }).collect();
    let targets: Vec<Span> = m.items.iter().filter_map(|i| if let Item::Target(t) = i { Some(t.span) } else { None }).collect();
    // A repeated `.target` is accepted by ptxas 12.9; a repeated `.address_size` is a syntax error.
    let _ = &targets;
    for (list, what) in [(&sizes, "`.address_size`")] {
        if let [first, rest @ ..] = list.as_slice() {
            for s in rest {
                cx.emit(
                    Diagnostic::error("check/version-target", *s, format!("a second {what} directive"))
                        .with_secondary(*first, "first given here")
                        .with_note("rule check/version-target (PTX ISA 11.1): module directives are given once"),
                );
            }
        }
    }
    if cx.version.is_none() {
        cx.emit(
            Diagnostic::error("check/version-target", first_span.unwrap_or(Span::DUMMY), "the module has no `.version` directive")
                .with_note("rule check/version-target (PTX ISA 11.1.1): every module begins with `.version`"),
        );
    }
    pragmas_and_debug(cx, m);
    if cx.sm.is_none() && !m.items.iter().any(|i| matches!(i, Item::Target(_))) {
        cx.emit(
            Diagnostic::error("check/version-target", first_span.unwrap_or(Span::DUMMY), "the module has no `.target` directive")
                .with_note("rule check/version-target (PTX ISA 11.1.2): every module names its target after `.version`"),
        );
    }
}

/// Module-wide rules of ptxas 12.9: `.pragma "enable_smem_spilling"` only
/// inside a body; `.target debug` only with a `.section`.
fn pragmas_and_debug(cx: &mut Ctx<'_, '_>, m: &Module<'_>) {
    // ptxas 12.9: "Pragma 'enable_smem_spilling' is allowed only within
    // function scope" (at module scope or in a function's header).
    let header_pragmas = m.items.iter().flat_map(|i| match i {
        Item::Pragma(p) => vec![p],
        Item::Function(f) => f.directives.iter().filter_map(|d| if let ptxsim_syntax::ast::FuncDirective::Pragma(p) = d { Some(p) } else { None }).collect(),
        _ => Vec::new(),
    });
    for p in header_pragmas {
        if p.strings.iter().any(|s| s.trim_matches('"') == "enable_smem_spilling") {
            cx.emit(
                Diagnostic::error("check/directive", p.span, "`.pragma \"enable_smem_spilling\"` outside a function body")
                    .with_label("allowed only within function scope")
                    .with_note("rule check/directive (PTX ISA 11.3.1 pragma strings): enable_smem_spilling is given inside the kernel's body (ptxas 12.9: \"Pragma 'enable_smem_spilling' is allowed only within function scope\")"),
            );
        }
    }
    // ptxas 12.9: "Debug information not found in presence of .target
    // debug" unless a `.section .debug_*` is there.
    let debug = m.items.iter().find_map(|i| match i {
        Item::Target(t) => t.targets.iter().find(|n| n.text == isa::TARGET_OPTIONS[2]),
        _ => None,
    });
    if let Some(d) = debug {
        if !m.items.iter().any(|i| matches!(i, Item::Section(_))) {
            cx.emit(
                Diagnostic::error("check/version-target", d.span, "`.target debug` without debug information")
                    .with_label("no `.section` in the module")
                    .with_note("rule check/version-target (PTX ISA 11.1.2 .target): `debug` announces DWARF sections (ptxas 12.9: \"Debug information not found in presence of .target debug\")"),
            );
        }
    }
}

/// The options of a `.target` (PTX ISA 11.1.2): `texmode_unified` and
/// `texmode_independent` exclude each other (ptxas: "Conflicting .target
/// option"), and `map_f64_to_f32` only applies below sm_13 (ptxas:
/// "Directive map_f64_to_f32 is not supported with SM 1.3 or higher").
fn target_options(cx: &mut Ctx<'_, '_>, t: &ptxsim_syntax::ast::Target<'_>) {
    let [unified, independent, map] = [isa::TARGET_OPTIONS[0], isa::TARGET_OPTIONS[1], isa::TARGET_OPTIONS[3]];
    let find = |o: &str| t.targets.iter().find(|n| n.text == o).map(|n| n.span);
    if let (Some(_), Some(second)) = (find(unified), find(independent)) {
        cx.emit(
            Diagnostic::error("check/version-target", second, "`texmode_unified` and `texmode_independent` both given")
                .with_note("rule check/version-target (PTX ISA 11.1.2 .target): one texturing mode per module (ptxas: \"Conflicting .target option\")"),
        );
    }
    cx.gm().texmode_independent = find(independent).is_some();
    let sm = t.targets.iter().find_map(|n| isa::parse_sm(n.text));
    if let (Some(at), Some(sm)) = (find(map), sm) {
        if sm.number >= 13 {
            cx.emit(
                Diagnostic::error("check/version-target", at, format!("`map_f64_to_f32` does not apply to {sm}, which has double precision"))
                    .with_note("rule check/version-target (PTX ISA 11.1.2 .target): map_f64_to_f32 is for targets below sm_13 (ptxas: \"Directive map_f64_to_f32 is not supported with SM 1.3 or higher\")"),
            );
        }
    }
}

/// Declares the declarators of a variable declaration in the innermost frame
/// and checks their initialisers (rule `check/call-table`: "All functions must
/// be declared prior to being referenced in a call table initializer", PTX ISA
/// 9.7.12.5; labels are not initial values).
pub fn declare_var<'f, 'a>(cx: &mut Ctx<'f, 'a>, v: &'f VarDecl<'a>, role: VarRole) {
    crate::decl::alignment(cx, v.align);
    if let Some(a) = v.align.filter(|a| a.span.start > v.ty.span.start) {
        cx.emit(
            Diagnostic::error("check/alignment", a.span, "`.align` comes before the type of the variable")
                .with_label("after the type")
                .with_note("rule check/alignment (PTX ISA 5.4.5): `.ss .align n .type name` (ptxas 12.9: a syntax error)"),
        );
    }
    let scope = if role == VarRole::Module { crate::decl::Scope::Module } else { crate::decl::Scope::Body };
    for (k, d) in v.declarators.iter().enumerate() {
        crate::decl::register_count(cx, d.count);
        let decl = crate::decl::Decl { space: v.space, linkage: v.linkage.map(|l| l.value), vector: v.vector, ty: v.ty, name: d.name, dims: &d.dims, init: d.init.as_ref() };
        crate::decl::declaration(cx, &decl, scope);
        if let Some(init) = &d.init {
            crate::decl::initializer(cx, d);
            check_init(cx, init);
            if let Some(t) = v.ty.value.scalar() {
                init_types(cx, init, t);
            }
        }
        let sig = ParamSig {
            name: d.name,
            space: v.space.value,
            ty: v.ty.value.scalar(),
            align: v.align.map(|a| a.value),
            vector: v.vector.map(|x| x.value),
            elems: if d.dims.is_empty() {
                None
            } else {
                Some(d.dims.iter().fold(1u64, |n, x| n.saturating_mul(x.map(|x| x.value).unwrap_or(0))))
            },
            span: d.span,
        };
        let sym = Sym::Var(VarSym { name: d.name, sig, role, decl: Some(v), declarator: k });
        match d.count {
            Some(c) => cx.declare_range(d.name, c.value, sym),
            None => cx.declare(d.name, sym, "variable"),
        }
    }
}

fn check_init<'f, 'a>(cx: &mut Ctx<'f, 'a>, init: &'f Init<'a>) {
    match init {
        Init::List(items, _) => {
            for i in items {
                check_init(cx, i);
            }
        }
        Init::Expr(e) => check_init_expr(cx, e),
    }
}

fn check_init_expr<'f, 'a>(cx: &mut Ctx<'f, 'a>, e: &'f Expr<'a>) {
    match e {
        Expr::Name(n) | Expr::Generic(n, _) => init_name(cx, *n),
        Expr::Unary(_, a, _) => check_init_expr(cx, a),
        Expr::Binary(_, a, b, _) => {
            check_init_expr(cx, a);
            check_init_expr(cx, b);
        }
        Expr::Cond(c, a, b, _) => {
            check_init_expr(cx, c);
            check_init_expr(cx, a);
            check_init_expr(cx, b);
        }
        Expr::Int(..) | Expr::Float(..) => {}
        // `0xFF00(expr)` (PTX ISA 5.4.4, 7.1): ptxas 12.9 "Feature 'mask
        // operator in initializer' requires PTX ISA .version 7.1 or
        // later", "Invalid mask value '0xf0' used in initializer".
        Expr::Mask(m, a, span) => {
            cx.require(isa::Feature::MaskInit, *span);
            if !ptxsim_syntax::cexpr::valid_mask(*m) {
                cx.emit(
                    Diagnostic::error("check/initializer", *span, format!("invalid mask value `{m:#x}`: the mask operator takes one byte, `0xff`, `0xff00`, ... `0xff00000000000000`"))
                        .with_label("not a one-byte mask")
                        .with_note("rule check/initializer (PTX ISA 5.4.4): a mask selects one byte of an address"),
                );
            }
            check_init_expr(cx, a);
        }
    }
}

/// What a constant expression of an initialiser computes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Value {
    Int,
    Float,
    /// The address of a symbol (plus an offset).
    Addr,
    /// One byte of an address (the mask operator).
    Byte,
}

const INIT_TYPE_NOTE: &str = "rule check/initializer (PTX ISA 5.4.4): integer constants initialise integer and bit-size variables, floating-point constants float and bit-size ones; an address (`sym`, `generic(sym)`, `sym + offset`) initialises `.u32`/`.u64` variables, one byte of it (`0xFF00(sym)`) `.u8`/`.u32`/`.u64` ones (ptxas 12.9: \"Initial value type mismatch\", \"Constant expression type mismatch\", \"Integer constant expression expected\")";

/// Rule `check/initializer`: each element of `init` has a value that a
/// variable of type `t` takes, as ptxas 12.9 judges it.
fn init_types(cx: &mut Ctx<'_, '_>, init: &Init<'_>, t: ptxsim_syntax::ast::ScalarType) {
    use ptxsim_syntax::ast::ScalarType as T;
    let mut stack = vec![init];
    while let Some(i) = stack.pop() {
        let e = match i {
            Init::List(items, _) => {
                stack.extend(items.iter());
                continue;
            }
            Init::Expr(e) => e,
        };
        let v = match value_of(e) {
            Ok(v) => v,
            Err((span, msg)) => {
                cx.emit(Diagnostic::error("check/initializer", span, msg).with_label("not a constant of one kind").with_note(INIT_TYPE_NOTE));
                continue;
            }
        };
        let fits = match v {
            Value::Addr => matches!(t, T::U32 | T::U64),
            Value::Byte => matches!(t, T::U8 | T::U32 | T::U64),
            Value::Int => !matches!(t, T::F32 | T::F64),
            Value::Float => matches!(t, T::F32 | T::F64 | T::B8 | T::B16 | T::B32 | T::B64),
        };
        if !fits {
            let what = match v {
                Value::Addr => "an address",
                Value::Byte => "a byte of an address",
                Value::Int => "an integer constant",
                Value::Float => "a floating-point constant",
            };
            cx.emit(
                Diagnostic::error("check/initializer", e.span(), format!("{what} cannot initialise a `{}` variable", t.as_str()))
                    .with_label("initial value type mismatch")
                    .with_note(INIT_TYPE_NOTE),
            );
        }
    }
}

/// The kind of value `e` computes, or where it mixes kinds.
fn value_of(e: &Expr<'_>) -> Result<Value, (Span, String)> {
    use ptxsim_syntax::ast::BinOp;
    Ok(match e {
        Expr::Int(..) => Value::Int,
        Expr::Float(..) => Value::Float,
        Expr::Name(_) | Expr::Generic(..) => Value::Addr,
        Expr::Mask(..) => Value::Byte,
        Expr::Unary(_, a, _) => match value_of(a)? {
            Value::Addr | Value::Byte => return Err((e.span(), "an address can only be offset: `sym + constant`".to_string())),
            v => v,
        },
        Expr::Binary(op, a, b, span) => {
            let (x, y) = (value_of(a)?, value_of(b)?);
            match (x, y) {
                (Value::Addr, Value::Int) if *op == BinOp::Add || *op == BinOp::Sub && matches!(**a, Expr::Binary(..)) => Value::Addr,
                (Value::Addr, Value::Float) => return Err((b.span(), "an address offset is an integer constant expression".to_string())),
                (Value::Addr | Value::Byte, _) | (_, Value::Addr | Value::Byte) => {
                    return Err((*span, "an address initialiser is `sym`, `generic(sym)` or `sym + constant`".to_string()))
                }
                (x, y) if x != y => return Err((*span, "an integer and a floating-point constant in one expression".to_string())),
                (x, _) => x,
            }
        }
        Expr::Cond(c, a, b, span) => {
            for v in [value_of(c)?, value_of(a)?, value_of(b)?] {
                if v != Value::Int {
                    return Err((*span, "the conditional operator takes integer constant expressions".to_string()));
                }
            }
            Value::Int
        }
    })
}

fn init_name<'a>(cx: &mut Ctx<'_, 'a>, n: Name<'a>) {
    match cx.lookup(n.text) {
        Some(Sym::Func(_)) => cx.require(Feature::FunctionInitialisers, n.span),
        Some(Sym::Var(v)) => {
            if !matches!(v.sig.space, StateSpace::Global | StateSpace::Const) {
                cx.emit(
                    Diagnostic::error("check/initializer", n.span, format!("`{}` is a `{}` variable: only `.global` and `.const` variables have an address an initialiser can take", n.text, v.sig.space.as_str()))
                        .with_label("not in .global or .const")
                        .with_note("rule check/initializer (PTX ISA 5.4.4): \"Variable used as initial value not in .global or .const state space\" (ptxas 12.9)"),
                );
            }
        }
        Some(Sym::Label { name, .. }) => {
            let decl = name.span;
            cx.emit(
                Diagnostic::error("check/call-table", n.span, format!("invalid initial value `{}`: a label is not a value", n.text))
                    .with_label("labels cannot initialise variables")
                    .with_secondary(decl, "the label is declared here")
                    .with_note("rule check/call-table (PTX ISA 9.7.12.5): call tables are initialised with function names; use `.branchtargets` for lists of labels"),
            );
        }
        None => {
            if let Some(later) = cx.all_funcs.get(n.text).copied() {
                cx.emit(
                    Diagnostic::error("check/call-table", n.span, format!("function `{}` is used in an initialiser before it is declared", n.text))
                        .with_label("not declared yet at this point")
                        .with_secondary(later, "the function is declared only here, later")
                        .with_note("rule check/call-table (PTX ISA 9.7.12.5): \"All functions must be declared prior to being referenced in a call table initializer\"; add a prototype before the table"),
                );
            } else {
                cx.unknown(n, "variable or function");
            }
        }
    }
}

/// How two parameter lists differ: the reason, and the span of the first
/// differing parameter of `b` (if any).
fn same_sig(a: &[ParamSig<'_>], b: &[ParamSig<'_>]) -> Option<(&'static str, Option<Span>)> {
    if a.len() != b.len() {
        return Some(("parameter counts differ", None));
    }
    for (x, y) in a.iter().zip(b) {
        if x.ty != y.ty || x.elems != y.elems || x.vector != y.vector || x.space != y.space {
            return Some(("parameter types differ", Some(y.span)));
        }
        if x.effective_align() != y.effective_align() {
            return Some(("parameter alignments differ", Some(y.span)));
        }
    }
    None
}

/// Rules of a function header, as ptxas 12.9 judges them: `.ptr`
/// attributes belong to kernel parameters ("Illegal placement of kernel
/// parameter attribute"); several return parameters are `.reg` ("Multiple
/// return parameters require .register state space"); performance-tuning
/// and cluster directives go with a body (a syntax error on a declaration).
fn header_rules(cx: &mut Ctx<'_, '_>, f: &Function<'_>) {
    if f.kind == FunctionKind::Func {
        for p in f.params.iter().flatten() {
            if let Some(ptr) = p.ptr {
                cx.emit(
                    Diagnostic::error("check/state-space", ptr.span, format!("`.ptr` on parameter `{}` of the `.func` `{}`", p.name.text, f.name.text))
                        .with_label("a kernel parameter attribute")
                        .with_note("rule check/state-space (PTX ISA 5.1.6.1 kernel parameter attributes): `.ptr` qualifies kernel parameters only (ptxas 12.9: \"Illegal placement of kernel parameter attribute\")"),
                );
            }
        }
        let rets: Vec<_> = f.returns.iter().flatten().collect();
        if rets.len() > 1 {
            if let Some(p) = rets.iter().find(|p| p.space.value != StateSpace::Reg) {
                cx.emit(
                    Diagnostic::error("check/state-space", p.space.span, format!("`{}` has {} return parameters; `{}` is not a `.reg`", f.name.text, rets.len(), p.name.text))
                        .with_label("several return values are registers")
                        .with_note("rule check/state-space (PTX ISA 5.1.6.4): ptxas 12.9 takes several return parameters only in .reg (\"Multiple return parameters require .register state space\")"),
                );
            }
        }
    }
    if f.body.is_none() {
        use ptxsim_syntax::ast::FuncDirective;
        if let Some(name) = f.directives.iter().find_map(|d| match d {
            FuncDirective::Perf { name, .. } if ptxsim_syntax::ast::PerfDirective::from_str(name.text).is_some_and(|p| p != ptxsim_syntax::ast::PerfDirective::Noreturn) => Some(name),
            _ => None,
        }) {
            // (At the `;` that ends the declaration, where ptxas's parser stops.)
            let end = Span { start: f.span.end.saturating_sub(1), end: f.span.end };
            cx.emit(
                Diagnostic::error("check/directive", end, format!("`{}` on a declaration of `{}`: it goes with the body", name.text, f.name.text))
                    .with_secondary(name.span, "the directive")
                    .with_note("rule check/directive (PTX ISA 11.4): performance-tuning directives are given where the function is defined (ptxas 12.9: a syntax error)"),
            );
        }
    }
}

/// A function's declaration; its index in the function table, unless its
/// name is taken by a module variable.
fn function<'f, 'a>(cx: &mut Ctx<'f, 'a>, f: &'f Function<'a>) -> Option<usize> {
    let info = FuncInfo {
        name: f.name,
        kind: f.kind,
        returns: f.returns.iter().flatten().map(ParamSig::from_param).collect(),
        params: f.params.iter().flatten().map(ParamSig::from_param).collect(),
        decl_span: f.name.span,
    };
    for p in f.returns.iter().flatten().chain(f.params.iter().flatten()) {
        crate::decl::alignment(cx, p.align);
        if let Some(ptr) = p.ptr {
            crate::decl::alignment(cx, ptr.align.map(|a| Spanned { value: a, span: ptr.span }));
        }
        let scope = if f.kind == FunctionKind::Entry { crate::decl::Scope::KernelParams } else { crate::decl::Scope::FuncParams };
        let decl = crate::decl::Decl { space: p.space, linkage: None, vector: p.vector, ty: p.ty, name: p.name, dims: &p.dims, init: None };
        crate::decl::declaration(cx, &decl, scope);
    }
    crate::decl::directives(cx, f);
    extern_with_body(cx, f);
    header_rules(cx, f);
    if f.kind == FunctionKind::Entry {
        for p in f.params.iter().flatten() {
            if p.space.value != StateSpace::Param {
                cx.emit(
                    Diagnostic::error("check/state-space", p.space.span, format!("kernel parameter `{}` must be in the `.param` state space", p.name.text))
                        .with_label(format!("`{}` is not allowed here", p.space.value.as_str()))
                        .with_note("rule check/state-space (PTX ISA 5.1.6.1 kernel function parameters): `.entry` parameters are `.param` variables"),
                );
            }
        }
    }
    // A predicate lives in a register: a `.pred` parameter in any other state
    // space is an error (ptxas: "Predicate variable must be in register state space").
    for p in f.returns.iter().flatten().chain(f.params.iter().flatten()) {
        if p.space.value != StateSpace::Reg && p.ty.value == ptxsim_syntax::ast::Type::Scalar(ptxsim_syntax::ast::ScalarType::Pred) {
            cx.emit(
                Diagnostic::error("check/state-space", p.ty.span, format!("parameter `{}` is a `.pred`, which must be in the `.reg` state space", p.name.text))
                    .with_label(format!("`.pred` in `{}`", p.space.value.as_str()))
                    .with_note("rule check/state-space (PTX ISA 5.1.1, 5.2.3): predicates are registers; pass a predicate as an integer (`selp.u32`, then `setp` in the callee)"),
            );
        }
    }
    // `.param` formals of a `.func` need sm_20 (ptxas: "Function parameter has illegal state space").
    if f.kind == FunctionKind::Func {
        for p in f.returns.iter().flatten().chain(f.params.iter().flatten()) {
            if p.space.value == StateSpace::Param {
                cx.require(Feature::ParamFormals, p.span);
            }
        }
    }
    let idx = match cx.scope.get(f.name.text).cloned() {
        Some(Sym::Func(i)) => {
            let prev = &cx.funcs[i];
            let prev_span = prev.decl_span;
            let had_body = cx.bodies.get(f.name.text).is_some_and(|s| s.start < f.name.span.start);
            if f.body.is_none() && had_body {
                // ptxas 13.5: a prototype after the definition is a second definition.
                cx.emit(
                    Diagnostic::error("check/duplicate-definition", f.name.span, format!("duplicate definition of function `{}`: it is declared again after its body", f.name.text))
                        .with_secondary(prev_span, "first declared here")
                        .with_note("rule check/duplicate-definition: a function's prototypes come before its body (ptxas: \"Duplicate definition of function\")"),
                );
            } else if let Some(why) = linkage_conflict(cx, f) {
                cx.emit(
                    Diagnostic::error("check/inconsistent-prototype", f.name.span, format!("inconsistent redeclaration of `{}`: {why}", f.name.text))
                        .with_secondary(prev_span, "first declared here")
                        .with_note("rule check/inconsistent-prototype (PTX ISA 11.6 linking directives): an .extern function is declared .extern everywhere and defined in another module; otherwise a later declaration repeats the first one's linkage or gives none (ptxas: \"Inconsistent redefinition\")"),
                );
            } else if f.body.is_some() && had_body {
                // Where ptxas reports it: a kernel at its name, a device function at its body.
                let body = match (f.kind, f.body.as_ref()) {
                    (FunctionKind::Func, Some(b)) => Span { start: b.span.start, end: b.span.start.saturating_add(1) },
                    _ => f.name.span,
                };
                cx.emit(
                    Diagnostic::error("check/duplicate-definition", body, format!("duplicate definition of function `{}`", f.name.text))
                        .with_label(format!("a second body for `{}`", f.name.text))
                        .with_secondary(f.name.span, "redefined here")
                        .with_secondary(prev_span, "first defined here")
                        .with_note("rule check/duplicate-definition: a function has at most one body per module"),
                );
            } else if prev.kind != f.kind {
                cx.emit(
                    Diagnostic::error("check/inconsistent-prototype", f.name.span, format!("`{}` is declared both as `.entry` and as `.func`", f.name.text))
                        .with_secondary(prev_span, "first declared here")
                        .with_note("rule check/inconsistent-prototype: every declaration of a function must agree"),
                );
            } else if let Some((why, at)) = same_sig(&prev.returns, &info.returns).or_else(|| same_sig(&prev.params, &info.params)) {
                cx.emit(
                    Diagnostic::error("check/inconsistent-prototype", at.unwrap_or(f.name.span), format!("inconsistent prototypes of `{}`: {why}", f.name.text))
                        .with_label("this declaration disagrees with the earlier one")
                        .with_secondary(prev_span, "first declared here")
                        .with_note("rule check/inconsistent-prototype: a prototype and the definition must have the same parameters"),
                );
            }
            i
        }
        Some(other) => {
            let prev = crate::ctx::sym_span(&other, &cx.funcs);
            cx.emit(
                Diagnostic::error("check/duplicate-definition", f.name.span, format!("duplicate definition: `{}` is already a module-scope variable", f.name.text))
                    .with_secondary(prev, "declared here")
                    .with_note("rule check/duplicate-definition: functions and module variables share one namespace"),
            );
            return None;
        }
        None => {
            let g = cx.gm();
            g.funcs.push(info);
            let i = g.funcs.len() - 1;
            g.scope.names.insert(f.name.text, Sym::Func(i));
            i
        }
    };
    Some(idx)
}

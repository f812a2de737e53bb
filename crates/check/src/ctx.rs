//! The checker's state: diagnostics, the module header (version, target,
//! address size), the function table, and the scope stack used for name
//! resolution.
//!
//! The module-level part ([`Globals`]) is built by the module pass and then
//! only read by the function bodies, which are checked each in a [`Ctx`] of
//! its own that borrows it (so bodies can be checked one at a time, in any
//! order or in parallel, and their diagnostics merged in source order).
//!
//! Scopes follow PTX ISA 9.7.12.1 (`{}`) as ptxas applies it: the module
//! scope ([`Globals::scope`]) holds module-scope functions and variables; a
//! body sees only those declared before it ([`Ctx::before`]: a name's
//! declaration position answers "declared before use"); the first function
//! frame holds a function's parameters; each `{}` block pushes a frame. Variables enter their frame
//! when declared (use before declaration is an error), labels and
//! `.branchtargets`/`.calltargets`/`.callprototype` labels enter their block's
//! frame when the block is entered (branches may go forward; the directives
//! carry their position so "declared before use" can be checked). An inner
//! declaration shadows an outer one; a name declared twice in one frame is a
//! duplicate, except a module variable's `.extern` declaration, which may be
//! repeated and may meet one `.visible`/`.weak` definition of the same type.
//! Labels share the namespace of variables, as in ptxas.

use crate::isa::{gate, Feature, PtxVersion, Sm};
use ptxsim_syntax::ast::{Function, FunctionKind, Linkage, Name, Param, ScalarType, StateSpace, Type, VarDecl};
use ptxsim_syntax::{Diagnostic, Span};
use ptxsim_syntax::hash::NameMap;

/// What a parameter or `.param` variable looks like to call matching.
#[derive(Clone, Debug)]
pub struct ParamSig<'a> {
    pub name: Name<'a>,
    pub space: StateSpace,
    pub ty: Option<ScalarType>,
    /// Explicit `.align`.
    pub align: Option<u64>,
    pub vector: Option<u8>,
    /// Number of array elements (product of the dimensions); `None` for a scalar.
    pub elems: Option<u64>,
    pub span: Span,
}

impl<'a> ParamSig<'a> {
    pub fn from_param(p: &Param<'a>) -> ParamSig<'a> {
        ParamSig {
            name: p.name,
            space: p.space.value,
            ty: p.ty.value.scalar(),
            align: p.align.map(|a| a.value),
            vector: p.vector.map(|v| v.value),
            elems: elems(&p.dims),
            span: p.span,
        }
    }

    /// The alignment in bytes: the explicit one, or the element size.
    pub fn effective_align(&self) -> u64 {
        self.align.unwrap_or_else(|| self.elem_bytes())
    }

    pub fn elem_bytes(&self) -> u64 {
        let b = self.ty.map(|t| (t.bits() as u64).div_ceil(8)).unwrap_or(0);
        b * self.vector.unwrap_or(1) as u64
    }

    /// A short description, e.g. `.param .align 8 .b8 [16]`.
    pub fn describe(&self) -> String {
        let mut s = self.space.as_str().to_string();
        if let Some(a) = self.align {
            s.push_str(&format!(" .align {a}"));
        }
        if let Some(v) = self.vector {
            s.push_str(&format!(" .v{v}"));
        }
        s.push(' ');
        s.push_str(self.ty.map(|t| t.as_str()).unwrap_or("?"));
        if let Some(n) = self.elems {
            s.push_str(&format!("[{n}]"));
        }
        s
    }
}

fn elems(dims: &[Option<ptxsim_syntax::ast::Spanned<u64>>]) -> Option<u64> {
    if dims.is_empty() {
        return None;
    }
    let mut n: u64 = 1;
    for d in dims {
        n = n.saturating_mul(d.map(|d| d.value).unwrap_or(0));
    }
    Some(n)
}

/// A function of the module.
#[derive(Clone, Debug)]
pub struct FuncInfo<'a> {
    pub name: Name<'a>,
    pub kind: FunctionKind,
    pub returns: Vec<ParamSig<'a>>,
    pub params: Vec<ParamSig<'a>>,
    /// Where its first declaration or definition is.
    pub decl_span: Span,
}

/// What a variable is to the function using it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarRole {
    Module,
    Local,
    /// A parameter of the kernel being checked.
    KernelParam,
    /// An input parameter of the `.func` being checked.
    FuncParam,
    /// A return parameter of the `.func` being checked.
    FuncReturn,
}

/// A variable in scope.
#[derive(Clone, Debug)]
pub struct VarSym<'f, 'a> {
    pub name: Name<'a>,
    pub sig: ParamSig<'a>,
    pub role: VarRole,
    /// The declaration, for initialisers (call tables).
    pub decl: Option<&'f VarDecl<'a>>,
    /// The declarator index within `decl`.
    pub declarator: usize,
}

impl<'f, 'a> VarSym<'f, 'a> {
    pub fn space(&self) -> StateSpace {
        self.sig.space
    }
    pub fn ty(&self) -> Option<ScalarType> {
        self.sig.ty
    }
}

/// What kind of label.
#[derive(Clone, Copy, Debug)]
pub enum LabelKind<'f, 'a> {
    Plain,
    BranchTargets(&'f [Name<'a>]),
    CallTargets(&'f [Name<'a>]),
    CallPrototype { returns: Option<&'f [Param<'a>]>, params: &'f [Param<'a>] },
}

impl LabelKind<'_, '_> {
    pub fn describe(&self) -> &'static str {
        match self {
            LabelKind::Plain => "a plain label",
            LabelKind::BranchTargets(_) => "a `.branchtargets` label",
            LabelKind::CallTargets(_) => "a `.calltargets` label",
            LabelKind::CallPrototype { .. } => "a `.callprototype` label",
        }
    }
}

#[derive(Clone, Debug)]
pub enum Sym<'f, 'a> {
    Var(VarSym<'f, 'a>),
    Label { name: Name<'a>, kind: LabelKind<'f, 'a> },
    Func(usize),
}

#[derive(Clone, Default, Debug)]
pub struct Frame<'f, 'a> {
    pub names: NameMap<&'a str, Sym<'f, 'a>>,
    /// `%r<N>` ranges: prefix, count, symbol.
    pub ranges: Vec<(&'a str, u64, Sym<'f, 'a>)>,
    /// The prefix of each range packed by [`pack`], in the same order.
    pub range_keys: Vec<u64>,
}

/// A name of up to seven bytes as one word (its bytes and its length), so
/// that `%r` and `%rd` compare in one instruction; `u64::MAX` for a longer
/// name, which is compared as a string.
pub fn pack(s: &str) -> u64 {
    let b = s.as_bytes();
    if b.len() > 7 {
        return u64::MAX;
    }
    ptxsim_syntax::hash::short_word(b) | (b.len() as u64) << 56
}

/// Splits `%r12` into `("%r", 12)`.
pub fn split_index(name: &str) -> Option<(&str, u64)> {
    let digits = name.bytes().rev().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits == name.len() || digits > 19 {
        return None;
    }
    let (p, d) = name.split_at(name.len() - digits);
    if d.len() > 1 && d.starts_with('0') {
        return None;
    }
    // At most 19 digits: the value fits a u64.
    Some((p, d.bytes().fold(0u64, |v, b| v * 10 + (b - b'0') as u64)))
}

impl<'f, 'a> Frame<'f, 'a> {
    /// An empty frame with room for `names` names in its table.
    pub fn with_capacity(names: usize) -> Frame<'f, 'a> {
        Frame { names: NameMap::with_capacity_and_hasher(names, Default::default()), ranges: Vec::new(), range_keys: Vec::new() }
    }

    /// [`Frame::get`] for a function's frame, looking in the ranges first:
    /// `%r12`-style registers, most of the names looked up, are found there
    /// without hashing. In a function's frame a name is declared once
    /// (`Ctx::declare` and `declare_range` look in both), so at most one of
    /// the two holds it and the order does not matter.
    pub fn get_local(&self, name: &str) -> Option<&Sym<'f, 'a>> {
        if !self.ranges.is_empty() {
            if let Some((p, i)) = split_index(name) {
                let key = pack(p);
                for (k, (rp, n, s)) in self.range_keys.iter().zip(&self.ranges) {
                    if *k == key && i < *n && (key != u64::MAX || *rp == p) {
                        return Some(s);
                    }
                }
            }
        }
        if self.names.is_empty() {
            return None;
        }
        self.names.get(name)
    }

    pub fn get(&self, name: &str) -> Option<&Sym<'f, 'a>> {
        if let Some(s) = self.names.get(name) {
            return Some(s);
        }
        self.range_of(name)
    }

    /// The symbol of the `%r<N>` range of this frame that `name` is one of.
    pub fn range_of(&self, name: &str) -> Option<&Sym<'f, 'a>> {
        if self.ranges.is_empty() {
            return None;
        }
        let (p, i) = split_index(name)?;
        self.ranges.iter().find(|(rp, n, _)| *rp == p && i < *n).map(|(_, _, s)| s)
    }
}

pub fn sym_span(s: &Sym<'_, '_>, funcs: &[FuncInfo<'_>]) -> Span {
    match s {
        Sym::Var(v) => v.name.span,
        Sym::Label { name, .. } => name.span,
        Sym::Func(i) => funcs.get(*i).map(|f| f.name.span).unwrap_or(Span::DUMMY),
    }
}

/// What the module pass learns and every function body reads: the header,
/// the function table, the names declared anywhere in the module, and the
/// module scope.
#[derive(Clone, Debug, Default)]
pub struct Globals<'f, 'a> {
    pub version: Option<(PtxVersion, Span)>,
    pub sm: Option<(Sm, Span)>,
    pub addr64: bool,
    /// `.target texmode_independent`: samplers are separate objects.
    pub texmode_independent: bool,
    pub funcs: Vec<FuncInfo<'a>>,
    /// Every function name with a body in the module, and where.
    pub bodies: NameMap<&'a str, Span>,
    /// Every function name declared anywhere in the module, and where first.
    pub all_funcs: NameMap<&'a str, Span>,
    /// Function names declared `.extern` somewhere in the module.
    pub externs: std::collections::HashSet<&'a str, ptxsim_syntax::hash::NameHash>,
    /// How calls to `.extern` functions without a body are judged.
    pub mode: crate::Mode,
    /// Every function declaration and definition of the module, in order
    /// (their kinds and signatures, for the prototype warning).
    pub headers: Vec<&'f Function<'a>>,
    /// Each function name's first entry in `headers`.
    pub first_header: NameMap<&'a str, usize>,
    /// The module scope: the latest declaration of every module-scope name.
    pub scope: Frame<'f, 'a>,
    /// Module-scope declarations that a later one replaced (an `.extern`
    /// variable and then its definition), oldest first: what a body between
    /// the two sees.
    pub replaced: NameMap<&'a str, Vec<Sym<'f, 'a>>>,
}

impl<'f, 'a> Globals<'f, 'a> {
    /// The module-scope symbol `name` as a body starting at byte `before`
    /// sees it: the latest declaration made before that point.
    pub fn module_lookup(&self, name: &str, before: u32) -> Option<&Sym<'f, 'a>> {
        let s = self.scope.get(name)?;
        if before == u32::MAX || sym_span(s, &self.funcs).start < before {
            return Some(s);
        }
        self.replaced.get(name)?.iter().rev().find(|s| sym_span(s, &self.funcs).start < before)
    }
}

/// The module-level state a [`Ctx`] works with: its own (the module pass)
/// or borrowed (a function body).
#[derive(Debug)]
pub enum Shared<'f, 'a> {
    Own(Box<Globals<'f, 'a>>),
    Borrowed(&'f Globals<'f, 'a>),
}

/// The checker's state: the module-level part (read through `Deref`), the
/// function's scopes, and the diagnostics found.
pub struct Ctx<'f, 'a> {
    pub g: Shared<'f, 'a>,
    /// Module-scope names declared at or after this byte offset are not
    /// visible: the start of the body being checked (`u32::MAX` in the
    /// module pass).
    pub before: u32,
    pub diags: Vec<Diagnostic>,
    /// Most errors, and separately most warnings, kept in `diags`.
    pub limit: usize,
    /// Errors and warnings found past `limit`: counted, not kept.
    pub errors_not_shown: usize,
    pub warnings_not_shown: usize,
    kept_errors: usize,
    kept_warnings: usize,
    /// `.extern` functions called without a definition in the module (first
    /// call site), in the order first called: left to the linker.
    pub unresolved: Vec<(&'a str, Span)>,
    /// The function's scopes: its parameters, then one per `{}` block.
    pub frames: Vec<Frame<'f, 'a>>,
    /// Diagnostics reported after all others (as ptxas orders them).
    pub deferred: Vec<Diagnostic>,
    /// The function being checked (index into `funcs`), with its kind.
    pub current: Option<(usize, FunctionKind)>,
    /// Where the statement being checked starts (`u32::MAX` outside a
    /// body): labels written after it are forward references ([`Ctx::lookup`]).
    pub at: u32,
}

impl<'f, 'a> std::ops::Deref for Ctx<'f, 'a> {
    type Target = Globals<'f, 'a>;
    fn deref(&self) -> &Globals<'f, 'a> {
        match &self.g {
            Shared::Own(g) => g,
            Shared::Borrowed(g) => g,
        }
    }
}

impl<'f, 'a> Ctx<'f, 'a> {
    pub fn new() -> Ctx<'f, 'a> {
        Ctx::with(Shared::Own(Box::default()), u32::MAX)
    }

    /// The context of a function body starting at byte `before`, reading
    /// the module-level state `g`.
    pub fn for_body(g: &'f Globals<'f, 'a>, before: u32) -> Ctx<'f, 'a> {
        Ctx::with(Shared::Borrowed(g), before)
    }

    fn with(g: Shared<'f, 'a>, before: u32) -> Ctx<'f, 'a> {
        Ctx {
            g,
            before,
            diags: Vec::new(),
            limit: usize::MAX,
            errors_not_shown: 0,
            warnings_not_shown: 0,
            kept_errors: 0,
            kept_warnings: 0,
            unresolved: Vec::new(),
            frames: Vec::new(),
            deferred: Vec::new(),
            current: None,
            at: u32::MAX,
        }
    }

    /// The module-level state, to change it (the module pass; a body's
    /// context never changes it, and would change a copy of its own).
    pub fn gm(&mut self) -> &mut Globals<'f, 'a> {
        if let Shared::Borrowed(g) = self.g {
            self.g = Shared::Own(Box::new(g.clone()));
        }
        match &mut self.g {
            Shared::Own(g) => g,
            Shared::Borrowed(_) => unreachable!("made its own just above"),
        }
    }

    /// The innermost scope: the current block's, or the module scope.
    fn top(&self) -> &Frame<'f, 'a> {
        match self.frames.last() {
            Some(f) => f,
            None => &self.scope,
        }
    }

    fn top_mut(&mut self) -> &mut Frame<'f, 'a> {
        if self.frames.is_empty() {
            return &mut self.gm().scope;
        }
        let n = self.frames.len() - 1;
        &mut self.frames[n]
    }

    /// Records a diagnostic; past `limit` errors (or warnings) it is only counted.
    pub fn emit(&mut self, d: Diagnostic) {
        let (kept, dropped) = if d.is_error() {
            (&mut self.kept_errors, &mut self.errors_not_shown)
        } else {
            (&mut self.kept_warnings, &mut self.warnings_not_shown)
        };
        if *kept >= self.limit {
            *dropped += 1;
            return;
        }
        *kept += 1;
        self.diags.push(d);
    }

    /// Looks a name up from the innermost frame outwards, then in the
    /// module scope as it stood before the body.
    ///
    /// A label written after the statement being checked ([`Ctx::at`]) is a
    /// forward reference, which names the label only if nothing else of that
    /// name is visible: as ptxas 12.9 resolves names, a function, variable or
    /// register of an enclosing scope wins (`bra f; f:` after `.func f` is a
    /// branch to the function, "Label expected for argument 0 of instruction
    /// 'bra'"; `call f; f:` calls it), while a label written before the use
    /// shadows them.
    pub fn lookup(&self, name: &str) -> Option<&Sym<'f, 'a>> {
        let mut forward = None;
        for f in self.frames.iter().rev() {
            if let Some(s) = f.get_local(name) {
                match s {
                    Sym::Label { name: l, .. } if l.span.start > self.at => {
                        forward = forward.or(Some(s));
                    }
                    _ => return Some(s),
                }
            }
        }
        self.module_lookup(name, self.before).or(forward)
    }

    /// The label `name` written after the statement being checked, when
    /// [`Ctx::lookup`] resolved the name to something else (for messages).
    pub fn shadowed_forward_label(&self, name: &str) -> Option<Span> {
        self.frames.iter().rev().find_map(|f| match f.get_local(name) {
            Some(Sym::Label { name: l, .. }) if l.span.start > self.at => Some(l.span),
            _ => None,
        })
    }

    /// Declares a name in the innermost frame, reporting a duplicate.
    pub fn declare(&mut self, name: Name<'a>, sym: Sym<'f, 'a>, what: &str) {
        // The common case, a name new to a function's frame: one probe of
        // its table (a name in one of the frame's `%r<N>` ranges is not new).
        if let Some(top) = self.frames.last_mut() {
            if top.range_of(name.text).is_none() {
                if let std::collections::hash_map::Entry::Vacant(v) = top.names.entry(name.text) {
                    v.insert(sym);
                    return;
                }
            }
        }
        match self.top().get(name.text).and_then(|prev| extern_redeclaration(prev, &sym)) {
            Some(Redeclaration::Consistent { keep_new }) => {
                if keep_new {
                    // Only module variables are `.extern`: this is the module scope.
                    if let Some(old) = self.top_mut().names.insert(name.text, sym) {
                        self.gm().replaced.entry(name.text).or_default().push(old);
                    }
                }
                return;
            }
            Some(Redeclaration::Inconsistent { prev }) => {
                self.emit(
                    Diagnostic::error("check/duplicate-definition", name.span, format!("inconsistent redefinition of variable `{}`", name.text))
                        .with_label("declared here with another type than before")
                        .with_secondary(prev, "first declared here")
                        .with_note("rule check/duplicate-definition (PTX ISA 5.4.1 linkage): an `.extern` variable may be declared again, and defined once with `.visible` or `.weak`, but always with the same type and vector size"),
                );
                return;
            }
            None => {}
        }
        let dup = self.top().get(name.text).map(|s| (sym_span(s, &self.funcs), sym_kind(s)));
        if let Some((prev, prev_kind)) = dup {
            let (later, earlier) = if prev.start > name.span.start { (prev, name.span) } else { (name.span, prev) };
            self.emit(
                Diagnostic::error(
                    "check/duplicate-definition",
                    later,
                    format!("duplicate definition of `{}` in this scope", name.text),
                )
                .with_label(format!("`{}` is already declared as {prev_kind} in the same scope", name.text))
                .with_secondary(earlier, "first declared here")
                .with_note(format!(
                    "rule check/duplicate-definition (PTX ISA 9.7.12.1): a name is declared once per scope; this {what} needs another name, or an inner `{{ }}` block to shadow the first"
                )),
            );
            // A variable declared beside a same-named label keeps meaning the
            // variable, so its uses are not reported a second time.
            let label_first = matches!(self.top().names.get(name.text), Some(Sym::Label { .. }));
            if label_first && matches!(sym, Sym::Var(_)) {
                self.top_mut().names.insert(name.text, sym);
            }
            return;
        }
        self.top_mut().names.insert(name.text, sym);
    }

    /// Declares a `%r<N>` range in the innermost frame.
    pub fn declare_range(&mut self, name: Name<'a>, count: u64, sym: Sym<'f, 'a>) {
        let f = self.top();
        let clash = {
            f.names
                .iter()
                .find(|(n, _)| split_index(n).is_some_and(|(p, i)| p == name.text && i < count))
                .map(|(_, s)| sym_span(s, &self.funcs))
                .or_else(|| f.ranges.iter().find(|(p, _, _)| *p == name.text).map(|(_, _, s)| sym_span(s, &self.funcs)))
        };
        if let Some(prev) = clash {
            self.emit(
                Diagnostic::error(
                    "check/duplicate-definition",
                    name.span,
                    format!("duplicate definition: `{}<{}>` declares a register that is already declared in this scope", name.text, count),
                )
                .with_label("this range overlaps an earlier declaration")
                .with_secondary(prev, "already declared here")
                .with_note("rule check/duplicate-definition (PTX ISA 9.7.12.1): a name is declared once per scope"),
            );
            return;
        }
        let top = self.top_mut();
        top.ranges.push((name.text, count, sym));
        top.range_keys.push(pack(name.text));
    }

    /// Requires a gated feature; reports the version and the target shortfall.
    pub fn require(&mut self, feature: Feature, span: Span) {
        self.require_gate(gate(feature), span);
    }

    /// Requires the minimum version and target of a gate row.
    fn require_gate(&mut self, g: &crate::isa::Gate, span: Span) {
        if let Some((v, vspan)) = self.version {
            if v < g.min_version {
                self.emit(
                    Diagnostic::error(
                        "check/isa-version",
                        span,
                        format!("{} requires PTX ISA version {} or later, but the module declares .version {}", g.name, g.min_version, v),
                    )
                    .with_label(format!("needs .version {}", g.min_version))
                    .with_secondary(vspan, "the module's version is declared here")
                    .with_note(format!("rule check/isa-version: {}", g.source)),
                );
            }
        }
        if let Some((sm, tspan)) = self.sm {
            if sm.number < g.min_sm {
                self.emit(
                    Diagnostic::error(
                        "check/isa-target",
                        span,
                        format!("{} requires .target sm_{} or higher, but the module targets {}", g.name, g.min_sm, sm),
                    )
                    .with_label(format!("needs sm_{}", g.min_sm))
                    .with_secondary(tspan, "the module's target is declared here")
                    .with_note(format!("rule check/isa-target: {}", g.source)),
                );
            }
        }
    }

    /// Reports an unresolved name.
    pub fn unknown(&mut self, name: Name<'_>, what: &str) {
        let mut d = Diagnostic::error(
            "check/unknown-symbol",
            name.span,
            format!("unknown symbol `{}`: no {what} of this name is visible here", name.text),
        )
        .with_label("not declared in this scope or any enclosing one");
        if let Some(span) = self.all_funcs.get(name.text).copied() {
            d = d.with_secondary(span, "a function of this name is declared only later in the module");
        }
        d = d.with_note("rule check/unknown-symbol (PTX ISA 9.7.12.1): names must be declared before use, and a name declared inside a `{ }` block is not visible outside it");
        self.emit(d);
    }

    pub fn version_at_least(&self, v: PtxVersion) -> bool {
        self.version.map(|(x, _)| x >= v).unwrap_or(true)
    }
}

impl Default for Ctx<'_, '_> {
    fn default() -> Self {
        Ctx::new()
    }
}

pub fn sym_kind(s: &Sym<'_, '_>) -> String {
    match s {
        Sym::Var(v) if v.sig.space == StateSpace::Reg => format!("a `{}` register", v.sig.ty.map(|t| t.as_str()).unwrap_or("?")),
        Sym::Var(v) => format!("a `{}` variable", v.sig.space.as_str()),
        Sym::Label { kind, .. } => kind.describe().to_string(),
        Sym::Func(_) => "a function".to_string(),
    }
}

/// The scalar type of a type keyword, if it is one.
pub fn scalar(t: &Type<'_>) -> Option<ScalarType> {
    t.scalar()
}

/// How a module variable declared again relates to its earlier declaration,
/// when one of the two is `.extern`.
enum Redeclaration {
    /// Same type and vector size: accepted; `keep_new` when the new one is the
    /// definition (the name then refers to it).
    Consistent { keep_new: bool },
    /// Another type or vector size (ptxas: `Inconsistent redefinition of variable`).
    Inconsistent { prev: Span },
}

/// ptxas 12.9 accepts a module variable declared `.extern` several times, and
/// an `.extern` declaration before or after one `.visible` or `.weak`
/// definition, as long as the element type and vector size agree (array
/// sizes and state spaces may differ). `None` when this is no such pair (two
/// definitions, a static one, or anything not at module scope): an ordinary
/// duplicate.
fn extern_redeclaration(prev: &Sym<'_, '_>, new: &Sym<'_, '_>) -> Option<Redeclaration> {
    let (Sym::Var(p), Sym::Var(n)) = (prev, new) else { return None };
    if p.role != VarRole::Module || n.role != VarRole::Module {
        return None;
    }
    let linkage = |v: &VarSym<'_, '_>| v.decl.and_then(|d| d.linkage.map(|l| l.value));
    let (lp, ln) = (linkage(p), linkage(n));
    let external = |l: Option<Linkage>| matches!(l, Some(Linkage::Extern | Linkage::Visible | Linkage::Weak));
    // A definition without linkage may be followed by an `.extern`
    // declaration of it (ptxas 13.5 accepts it; not the other order).
    let internal_then_extern = lp.is_none() && ln == Some(Linkage::Extern);
    if !internal_then_extern && (!(lp == Some(Linkage::Extern) || ln == Some(Linkage::Extern)) || !external(lp) || !external(ln)) {
        return None;
    }
    if p.sig.ty != n.sig.ty || p.sig.vector != n.sig.vector {
        return Some(Redeclaration::Inconsistent { prev: p.sig.span });
    }
    Some(Redeclaration::Consistent { keep_new: lp == Some(Linkage::Extern) && ln != Some(Linkage::Extern) })
}

#[cfg(test)]
mod tests {
    use super::{pack, split_index};

    /// A packed name is its bytes, zero-padded, with its length in the last
    /// byte; names longer than seven bytes are all `u64::MAX`.
    #[test]
    fn pack_is_bytes_and_length() {
        for s in ["", "%", "%r", "%rd", "%fd1", "%rs_x", "abcdef", "abcdefg"] {
            let mut w = [0u8; 8];
            w[..s.len()].copy_from_slice(s.as_bytes());
            w[7] = s.len() as u8;
            assert_eq!(pack(s), u64::from_le_bytes(w), "{s:?}");
        }
        assert_eq!(pack("abcdefgh"), u64::MAX);
    }

    /// The digit fold gives what `str::parse` gives, up to 19 digits.
    #[test]
    fn split_index_reads_the_trailing_number() {
        assert_eq!(split_index("%r12"), Some(("%r", 12)));
        assert_eq!(split_index("%rd0"), Some(("%rd", 0)));
        assert_eq!(split_index("%r012"), None);
        assert_eq!(split_index("%r"), None);
        assert_eq!(split_index("123"), None);
        assert_eq!(split_index("%p9999999999999999999"), Some(("%p", 9_999_999_999_999_999_999)));
        assert_eq!(split_index("%p12345678901234567890"), None);
        for n in [1u64, 7, 10, 99, 100, 65535, 4_294_967_296, 1 << 62] {
            let name = format!("%f{n}");
            assert_eq!(split_index(&name), Some(("%f", n)), "{name}");
        }
    }
}

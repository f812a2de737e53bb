//! Declaration rules that need no symbol table: `check/alignment` (an
//! `.align` value is a power of two), `check/initializer` (an array
//! initialiser has no more elements than the array has at each dimension;
//! initial values only where the manual allows them, in their shape),
//! `check/register-count` (a `%r<N>` count fits in 32 bits), and the
//! rules of [`declaration`]: which types, vectors, arrays and state spaces
//! a variable or parameter may have where it is declared
//! (`check/variable-type`, `check/state-space`, `check/incomplete-array`).

use crate::ctx::Ctx;
use crate::isa::Feature;
use ptxsim_syntax::ast::{Declarator, Init, Linkage, Name, ScalarType, Spanned, StateSpace, Type};
use ptxsim_syntax::{Diagnostic, Span};

/// Rule `check/alignment` (PTX ISA 5.4.5, `.align`): "the alignment value
/// must be a power of two" (ptxas: "Alignment must be a power of two"; 0 is
/// rejected too). Applies to variables and to parameters.
pub fn alignment(cx: &mut Ctx<'_, '_>, align: Option<Spanned<u64>>) {
    let Some(a) = align else { return };
    if !a.value.is_power_of_two() {
        cx.emit(
            Diagnostic::error("check/alignment", a.span, format!("alignment {} is not a power of two", a.value))
                .with_label("`.align` takes 1, 2, 4, 8, 16, ...")
                .with_note("rule check/alignment (PTX ISA 5.4.5 .align): the alignment must be a power of two (ptxas: \"Alignment must be a power of two\")"),
        );
    }
}

/// Rule `check/register-count` (PTX ISA 5.4.7, parameterized variable
/// names `%r<N>`): ptxas 12.9 reads N as a 32-bit constant: a count of
/// 2^32 or more is "Constant overflow" at the declaration. (Up to 2^32 - 1
/// it reserves 8 bytes per declared register: `%r<2147483648>` assembles
/// with 16 GiB, `%r<4294967295>` fails with "Memory allocation failure" on
/// a host with less than 32 GiB; ptxsim accepts both, and none of its
/// passes sizes anything by the declared count. A count from 2^63 on is
/// wrapped to 32 bits by ptxas, `%r<9223372036854775813>` being `%r<5>`;
/// ptxsim reports it as too large.)
pub fn register_count(cx: &mut Ctx<'_, '_>, count: Option<Spanned<u64>>) {
    let Some(c) = count else { return };
    if c.value > u64::from(u32::MAX) {
        cx.emit(
            Diagnostic::error("check/register-count", c.span, format!("register count {} does not fit in 32 bits", c.value))
                .with_label("at most 4294967295")
                .with_note("rule check/register-count (PTX ISA 5.4.7 `%r<N>`): the count is a 32-bit constant (ptxas: \"Constant overflow\")"),
        );
    }
}

/// Rule `check/initializer` (PTX ISA 5.4.4, variable initialisers): at each
/// dimension, a brace list has at most as many entries as that dimension
/// (ptxas: "Greater number of elements in array initializer"). A flat list
/// for a multi-dimensional array counts against the first dimension, as ptxas
/// does. Fewer entries are allowed (the rest is zero). Reported once per
/// declarator, at the first list that is too long.
pub fn initializer(cx: &mut Ctx<'_, '_>, d: &Declarator<'_>) {
    let Some(init) = &d.init else { return };
    if d.dims.is_empty() {
        return;
    }
    if let Some((len, dim, span)) = too_long(init, &d.dims) {
        cx.emit(
            Diagnostic::error("check/initializer", span, format!("{len} elements in the initializer of `{}`, which has {dim} at this dimension", d.name.text))
                .with_label(format!("more than {dim} elements"))
                .with_secondary(d.name.span, "the array is declared here")
                .with_note("rule check/initializer (PTX ISA 5.4.4): an array initializer may not have more elements than the array (ptxas: \"Greater number of elements in array initializer\")"),
        );
    }
}

/// The first list, in source order, longer than its dimension: (its length,
/// the dimension, its span). Iterative, so a deeply nested initialiser cannot
/// exhaust the stack.
fn too_long(init: &Init<'_>, dims: &[Option<Spanned<u64>>]) -> Option<(usize, u64, ptxsim_syntax::Span)> {
    let mut stack: Vec<(&Init<'_>, usize)> = vec![(init, 0)];
    while let Some((i, level)) = stack.pop() {
        let Init::List(items, span) = i else { continue };
        let Some(dim) = dims.get(level) else { continue };
        if let Some(n) = dim {
            if items.len() as u64 > n.value {
                return Some((items.len(), n.value, *span));
            }
        }
        for it in items.iter().rev() {
            stack.push((it, level + 1));
        }
    }
    None
}

/// Where a declaration is: module scope, a function body, or a function's
/// parameter list (a kernel's, or a `.func`'s parameters and returns).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Module,
    Body,
    KernelParams,
    FuncParams,
}

/// The parts of a declaration the rules below read: a variable's, or a
/// parameter's (which has no linkage and no initialiser).
pub struct Decl<'d, 'a> {
    pub space: Spanned<StateSpace>,
    pub linkage: Option<Linkage>,
    pub vector: Option<Spanned<u8>>,
    pub ty: Spanned<Type<'a>>,
    pub name: Name<'a>,
    pub dims: &'d [Option<Spanned<u64>>],
    pub init: Option<&'d Init<'a>>,
}

fn decl_err(cx: &mut Ctx<'_, '_>, code: &'static str, span: Span, msg: String, note: &str) {
    cx.emit(Diagnostic::error(code, span, msg).with_note(note.to_string()));
}

/// Rules of one declared name (ptxas 13.5's messages quoted):
/// - `check/variable-type` (PTX ISA 5.2, 5.4.2): the instruction-only types
///   (`.bf16`, `.bf16x2`, `.tf32` and the fp8 types) declare no variables
///   (ptxas: a syntax error, or "may only be used as an instruction type");
///   `.pred` only as a scalar `.reg` ("Predicate type can only be used to
///   define scalar register variables", "Predicate variable must be in
///   register state space"); vectors are `.v2` or `.v4` of at most 128 bits
///   ("Vector type too large, exceeds 128 bit limit"); a `.reg` is not an
///   array ("cannot be allocated into a register"); the texture, sampler and
///   surface types only at module scope or as kernel parameters, and a
///   kernel's `.samplerref` only under `texmode_independent`; `.b128` from
///   PTX 8.3; a name is not `_`.
/// - `check/state-space`: no module-scope `.local` ("not allowed with
///   ABI"), no `.extern` inside a body, no vector, texture or surface
///   parameter ("cannot be allocated in .param state space"), no `.tex`
///   variables (removed in PTX 1.5).
/// - `check/initializer` (PTX ISA 5.4.4): only `.global` and `.const`
///   variables take an initial value ("No initial value is allowed ... in
///   this state space"), `.f16` and `.f16x2` ones none ("No initial value
///   is allowed for .f16 type"), and its shape matches the declaration
///   ("Initial value type mismatch", "Incorrect number of elements in
///   vector initializer").
/// - `check/incomplete-array`: an array whose size is neither given nor
///   taken from an initialiser is `.extern` ("Non-external variable has
///   incomplete type", "Parameter to entry function cannot be an
///   incomplete array"); only the first dimension may be left out.
pub fn declaration(cx: &mut Ctx<'_, '_>, d: &Decl<'_, '_>, scope: Scope) {
    use ScalarType as T;
    let name = d.name.text;
    let sp = d.space.value;
    let scalar = d.ty.value.scalar();
    let param = matches!(scope, Scope::KernelParams | Scope::FuncParams);
    if name == "_" {
        decl_err(cx, "check/variable-type", d.name.span, "`_` is the sink, not a variable name".to_string(), "rule check/variable-type (PTX ISA 4.4): `_` names no variable (ptxas: syntax error)");
    }
    if let Some(t @ (T::Bf16 | T::Bf16x2 | T::Tf32 | T::E4m3 | T::E5m2 | T::E4m3x2 | T::E5m2x2)) = scalar {
        decl_err(
            cx,
            "check/variable-type",
            d.ty.span,
            format!("`{}` is an instruction type: variable `{name}` cannot have it (declare a `.b16`, `.b32` or `.b8` of its size)", t.as_str()),
            "rule check/variable-type (PTX ISA 5.2.3, 5.4): .bf16, .bf16x2, .tf32 and the fp8 types only qualify instructions (ptxas: \"Type may only be used as an instruction type\", or a syntax error)",
        );
        return;
    }
    if scalar == Some(T::B128) {
        cx.require(Feature::TypeB128, d.ty.span);
    }
    if scalar == Some(T::F16x2) {
        cx.require(Feature::F16x2Type, d.ty.span);
    }
    if scalar == Some(T::Pred) {
        if sp != StateSpace::Reg {
            if !param {
                decl_err(cx, "check/variable-type", d.ty.span, format!("predicate variable `{name}` must be in the `.reg` state space, not `{}`", sp.as_str()), "rule check/variable-type (PTX ISA 5.2.3): predicates are registers (ptxas: \"Predicate variable must be in register state space\")");
            }
            return;
        }
        if d.vector.is_some() || !d.dims.is_empty() {
            decl_err(cx, "check/variable-type", d.ty.span, format!("`.pred` declares scalar registers only, and `{name}` is a vector or an array"), "rule check/variable-type (PTX ISA 5.2.3): \"Predicate type can only be used to define scalar register variables\" (ptxas)");
            return;
        }
    }
    if let Some(v) = d.vector {
        if !matches!(v.value, 2 | 4) {
            decl_err(cx, "check/variable-type", v.span, format!("`.v{}` is not a vector size of a variable: `.v2` or `.v4`", v.value), "rule check/variable-type (PTX ISA 5.4.2 vectors): variables are .v2 or .v4 vectors (ptxas: syntax error)");
        } else if let Some(t) = scalar {
            let bits = u32::from(v.value) * t.bits();
            if bits > 128 {
                decl_err(cx, "check/variable-type", v.span, format!("`.v{} {}` is {bits} bits: a vector has at most 128", v.value, t.as_str()), "rule check/variable-type (PTX ISA 5.4.2 vectors): the total vector size is at most 128 bits (ptxas: \"Vector type too large, exceeds 128 bit limit\")");
            }
        }
        if param && sp == StateSpace::Param {
            decl_err(cx, "check/state-space", v.span, format!("`.param` parameter `{name}` cannot be a vector"), "rule check/state-space (PTX ISA 5.1.6): a vector is not a parameter (ptxas: \"cannot be allocated in .param state space\"); pass it as an aligned .b8 array");
        }
    }
    let opaque = matches!(scalar, Some(T::Texref | T::Samplerref | T::Surfref));
    if sp == StateSpace::Tex {
        decl_err(cx, "check/state-space", d.space.span, format!("`.tex` variables were removed in PTX ISA 1.5: declare `{name}` as a `.global .texref`"), "rule check/state-space (PTX ISA 5.1.8): the .tex state space is deprecated; ptxas refuses it");
    } else if opaque && matches!(scope, Scope::Body | Scope::FuncParams) {
        let msg = if scope == Scope::Body { format!("texture, sampler and surface variables are declared at module scope or as kernel parameters, not in a body: `{name}`") } else { format!("parameter `{name}` of a `.func` cannot be a texture, sampler or surface reference") };
        decl_err(cx, "check/state-space", d.ty.span, msg, "rule check/state-space (PTX ISA 5.3): .texref, .samplerref and .surfref variables live at module scope or are kernel parameters (ptxas: \"must be at module or entry parameter scope\", \"cannot be allocated in .param state space\")");
    } else if opaque && scope == Scope::Module && sp != StateSpace::Global {
        decl_err(cx, "check/state-space", d.space.span, format!("texture, sampler and surface variables are `.global`: `{name}` is `{}`", sp.as_str()), "rule check/state-space (PTX ISA 5.3): .texref, .samplerref and .surfref variables are declared in .global (ptxas 12.9: \"Texture and surface variables must be declared in .global space\")");
    } else if scalar == Some(T::Samplerref) && scope == Scope::Module && !cx.texmode_independent {
        decl_err(cx, "check/variable-type", d.ty.span, format!("`{name}` is a `.samplerref`, which needs `.target texmode_independent`"), "rule check/variable-type (PTX ISA 5.3): in the unified texture mode (the default) samplers are not separate objects (ptxas 12.9: \"Instruction or declaration violates .target texmode_unified setting\")");
    } else if scalar == Some(T::Samplerref) && scope == Scope::KernelParams && !cx.texmode_independent {
        decl_err(cx, "check/variable-type", d.ty.span, format!("kernel parameter `{name}` is a `.samplerref`, which needs `.target texmode_independent`"), "rule check/variable-type (PTX ISA 5.3): in the unified texture mode (the default) samplers are not separate objects (ptxas: \"violates .target texmode_unified setting\")");
    }
    if d.linkage == Some(Linkage::Common) && sp != StateSpace::Global {
        decl_err(cx, "check/state-space", d.space.span, format!("`.common` variable `{name}` is in `{}`", sp.as_str()), "rule check/state-space (PTX ISA 11.6.4 .common): \".common variables must be declared in .global space\" (ptxas 12.9)");
    }
    if scope == Scope::Module && sp == StateSpace::Local {
        decl_err(cx, "check/state-space", d.space.span, format!("`.local` variable `{name}` at module scope"), "rule check/state-space (PTX ISA 5.1.5): ptxas refuses module-scope .local variables under the ABI (\"Module-scoped variables in .local state space are not allowed with ABI\"); declare it in the function");
    }
    if let (Scope::Body, Some(l)) = (scope, d.linkage) {
        decl_err(cx, "check/state-space", d.space.span, format!("`{}` variable `{name}` inside a function body", l.as_str()), "rule check/state-space (PTX ISA 5.4.1, 11.6): linkage directives (.extern, .visible, .weak, .common) declare module-scope variables only (ptxas: syntax error)");
    }
    if sp == StateSpace::Reg && !d.dims.is_empty() {
        decl_err(cx, "check/variable-type", d.name.span, format!("register `{name}` cannot be an array"), "rule check/variable-type (PTX ISA 5.1.1): registers are scalars or vectors (ptxas: \"cannot be allocated into a register\")");
        return;
    }
    incomplete(cx, d, scope);
    if let Some(init) = d.init {
        init_rules(cx, d, init);
    }
}

/// `check/incomplete-array`: see [`declaration`].
fn incomplete(cx: &mut Ctx<'_, '_>, d: &Decl<'_, '_>, scope: Scope) {
    let name = d.name.text;
    if let Some(k) = d.dims.iter().skip(1).position(Option::is_none) {
        decl_err(cx, "check/incomplete-array", d.name.span, format!("dimension {} of `{name}` has no size: only the first may be left out", k + 2), "rule check/incomplete-array (PTX ISA 5.4.3): `[]` only as the first dimension (ptxas: syntax error)");
        return;
    }
    let first = match d.dims.first() {
        None => return,
        Some(x) => *x,
    };
    let empty_init = matches!(d.init, Some(Init::List(items, _)) if items.is_empty());
    let no_size = match first {
        None => d.init.is_none() || empty_init,
        Some(n) => n.value == 0,
    };
    let external = d.linkage == Some(Linkage::Extern);
    if !no_size || external || scope == Scope::FuncParams {
        return;
    }
    let msg = if scope == Scope::KernelParams { format!("kernel parameter `{name}` is an array without a size") } else { format!("array `{name}` has no size: give one, an initialiser, or declare it `.extern`") };
    decl_err(cx, "check/incomplete-array", d.name.span, msg, "rule check/incomplete-array (PTX ISA 5.4.3): an array without a size (or of size 0) must be .extern, as dynamically sized shared memory is (ptxas: \"Non-external variable has incomplete type\", \"Parameter to entry function cannot be an incomplete array\")");
}

/// `check/initializer`: see [`declaration`].
fn init_rules(cx: &mut Ctx<'_, '_>, d: &Decl<'_, '_>, init: &Init<'_>) {
    let name = d.name.text;
    let sp = d.space.value;
    if d.linkage == Some(Linkage::Extern) {
        decl_err(cx, "check/initializer", d.name.span, format!("`{name}` is `.extern`: its definition, elsewhere, gives its initial value"), "rule check/initializer (PTX ISA 11.6.2 .extern): an external declaration has no initial value (ptxas 12.9: \"No initial value is allowed for external symbol\")");
        return;
    }
    if !matches!(sp, StateSpace::Global | StateSpace::Const) {
        decl_err(cx, "check/initializer", d.name.span, format!("`{name}` is a `{}` variable: only `.global` and `.const` variables take an initial value", sp.as_str()), "rule check/initializer (PTX ISA 5.4.4): \"Variables in .const and .global state spaces may be initialized\" (ptxas: \"No initial value is allowed ... in this state space\")");
        return;
    }
    if let Some(t @ (ScalarType::F16 | ScalarType::F16x2)) = d.ty.value.scalar() {
        decl_err(cx, "check/initializer", d.ty.span, format!("`{}` variables take no initial value: declare `{name}` as `.b16`/`.b32` to initialise it", t.as_str()), "rule check/initializer (PTX ISA 5.4.4): ptxas 13.5 refuses initial values of the .f16 types (\"No initial value is allowed for .f16 type\")");
        return;
    }
    if matches!(d.ty.value.scalar(), Some(ScalarType::Texref | ScalarType::Surfref)) {
        return;
    }
    // The shape: one level of braces per array dimension, one more for a
    // vector, none for a scalar.
    let levels = d.dims.len() + d.vector.is_some() as usize;
    if let Some(span) = shape_mismatch(init, levels) {
        decl_err(cx, "check/initializer", span, format!("the initial value of `{name}` does not have its shape: {} level(s) of braces expected", levels), "rule check/initializer (PTX ISA 5.4.4): a scalar takes a value, an array or vector a brace list per dimension (ptxas: \"Initial value type mismatch\")");
        return;
    }
    if let Some(v) = d.vector {
        if let Some((n, span)) = vector_count(init, d.dims.len(), u64::from(v.value)) {
            decl_err(cx, "check/initializer", span, format!("{n} elements in a vector initialiser of `.v{}` `{name}`", v.value), "rule check/initializer (PTX ISA 5.4.4): a vector's initialiser lists exactly its elements (ptxas: \"Incorrect number of elements in vector initializer\")");
        }
    }
}

/// The span of the first part of `init` whose brace depth is not `levels`
/// (a list where a value belongs, or a value where a list does).
fn shape_mismatch(init: &Init<'_>, levels: usize) -> Option<Span> {
    let mut stack = vec![(init, levels)];
    while let Some((i, l)) = stack.pop() {
        match (i, l) {
            (Init::Expr(_), 0) => {}
            (Init::Expr(e), _) => return Some(e.span()),
            (Init::List(_, s), 0) => return Some(*s),
            (Init::List(items, _), l) => stack.extend(items.iter().map(|x| (x, l - 1))),
        }
    }
    None
}

/// A vector's list (at depth `depth`) that does not have `n` elements.
fn vector_count(init: &Init<'_>, depth: usize, n: u64) -> Option<(usize, Span)> {
    let mut stack = vec![(init, depth)];
    while let Some((i, d)) = stack.pop() {
        let Init::List(items, s) = i else { continue };
        if d == 0 {
            if items.len() as u64 != n {
                return Some((items.len(), *s));
            }
        } else {
            stack.extend(items.iter().map(|x| (x, d - 1)));
        }
    }
    None
}

/// Rule `check/directive` (PTX ISA 11.4 performance-tuning directives, 11.7
/// cluster directives), as ptxas 13.5 judges a function header:
/// `.maxntid`, `.reqntid`, `.minnctapersm`, `.maxnreg` and the cluster
/// directives belong to kernels (a syntax error on a `.func`), `.noreturn`
/// to `.func`s; their values are positive ("Positive non-zero value
/// expected"); `.maxntid` with `.reqntid`, and `.reqnctapercluster` with
/// `.maxclusterrank`, conflict; `.maxnctapersm` was removed in PTX ISA 2.1.
pub fn directives(cx: &mut Ctx<'_, '_>, f: &ptxsim_syntax::ast::Function<'_>) {
    use ptxsim_syntax::ast::{FuncDirective, FunctionKind, PerfDirective as P};
    const NOTE: &str = "rule check/directive (PTX ISA 11.4, 11.7): performance-tuning and cluster directives on kernels, .noreturn on .func, positive values, no conflicting pairs (ptxas 13.5)";
    let entry = f.kind == FunctionKind::Entry;
    let mut seen: Vec<(P, Span)> = Vec::new();
    for d in &f.directives {
        let FuncDirective::Perf { name, values, .. } = d else { continue };
        let Some(p) = P::from_str(name.text) else { continue };
        let kernel_only = matches!(p, P::Maxntid | P::Reqntid | P::Minnctapersm | P::Maxnreg | P::Explicitcluster | P::Reqnctapercluster | P::Maxclusterrank);
        if kernel_only && !entry {
            decl_err(cx, "check/directive", name.span, format!("`{}` applies to kernels, not to the `.func` `{}`", name.text, f.name.text), NOTE);
            continue;
        }
        if matches!(p, P::Explicitcluster | P::Reqnctapercluster | P::Maxclusterrank) {
            cx.require(crate::isa::Feature::ClusterDirectives, name.span);
        }
        if p == P::Noreturn && entry {
            decl_err(cx, "check/directive", name.span, format!("`.noreturn` applies to `.func`s, not to the kernel `{}`", f.name.text), NOTE);
            continue;
        }
        if p == P::Maxnctapersm {
            decl_err(cx, "check/directive", name.span, "`.maxnctapersm` was removed in PTX ISA 2.1: use `.minnctapersm`".to_string(), NOTE);
            continue;
        }
        if matches!(p, P::Maxntid | P::Reqntid | P::Reqnctapercluster) && values.len() > 3 {
            decl_err(cx, "check/directive", values[3].span, format!("`{}` takes at most three values (x, y, z)", name.text), NOTE);
            continue;
        }
        if let Some(big) = values.iter().find(|v| v.value > u64::from(u32::MAX)) {
            decl_err(cx, "check/directive", big.span, format!("`{}` value {} does not fit in 32 bits", name.text, big.value), NOTE);
            continue;
        }
        if matches!(p, P::Maxntid | P::Reqntid | P::Minnctapersm | P::Maxnreg) {
            if let Some(z) = values.iter().find(|v| v.value == 0) {
                decl_err(cx, "check/directive", z.span, format!("`{}` takes positive values", name.text), NOTE);
            }
        }
        for (a, b) in [(P::Maxntid, P::Reqntid), (P::Reqnctapercluster, P::Maxclusterrank)] {
            let other = if p == a { b } else if p == b { a } else { continue };
            if let Some(&(_, at)) = seen.iter().find(|(q, _)| *q == other) {
                cx.emit(
                    Diagnostic::error("check/directive", name.span, format!("`{}` and `{}` cannot both be given", other.as_str(), p.as_str()))
                        .with_secondary(at, "the other one is here")
                        .with_note(NOTE),
                );
            }
        }
        seen.push((p, name.span));
    }
}

#[cfg(test)]
mod tests {
    /// The code of the first error of a module with `module` at module
    /// scope and a kernel with parameters `params`, directives `dirs` and
    /// body declarations `body`; `None` where it checks clean.
    fn first(target: &str, module: &str, params: &str, dirs: &str, body: &str) -> Option<String> {
        let src = format!(".version 8.0\n.target {target}\n.address_size 64\n{module}\n.visible .entry k({params}) {dirs}\n{{\n.reg .b32 %r<4>;\n{body}\nret;\n}}\n");
        let parsed = ptxsim_syntax::parse(&src);
        assert!(!parsed.has_errors(), "{src}: {:?}", parsed.diagnostics);
        crate::check_module(&parsed.module).into_iter().find(|d| d.is_error()).map(|d| d.code.to_string())
    }
    fn module(m: &str) -> Option<String> {
        first("sm_90", m, ".param .u64 o", "", "")
    }
    fn body(b: &str) -> Option<String> {
        first("sm_90", "", ".param .u64 o", "", b)
    }
    fn params(p: &str) -> Option<String> {
        first("sm_90", "", p, "", "")
    }
    fn dirs(d: &str) -> Option<String> {
        first("sm_90", "", ".param .u64 o", d, "")
    }

    /// Verdicts of ptxas 13.5 (`-arch=sm_90a`) on each declaration, with its
    /// message where it refuses one.
    #[test]
    fn variables_as_ptxas_judges_them() {
        let e = |c: &str| Some(c.to_string());
        // Initial values: .global and .const only; not of the .f16 types;
        // in the declaration's shape.
        assert_eq!(module(".global .u32 g[4] = {1,2,3};"), None);
        assert_eq!(module(".const .v2 .u32 c = {1,2};"), None);
        assert_eq!(module(".global .v2 .u32 g[2] = {{1,2},{3,4}};"), None);
        assert_eq!(module(".shared .u32 s = 1;"), e("check/initializer")); // No initial value is allowed for 's' in this state space
        assert_eq!(body(".local .b8 a[16] = {1};"), e("check/initializer"));
        assert_eq!(body(".param .u32 p = 1;"), e("check/initializer"));
        assert_eq!(module(".global .f16 g = 0x3c00;"), e("check/initializer")); // No initial value is allowed for .f16 type
        assert_eq!(module(".global .u32 g = {1};"), e("check/initializer")); // Initial value type mismatch
        assert_eq!(module(".global .u32 g[2] = 1;"), e("check/initializer"));
        assert_eq!(module(".global .u32 g[2] = {1, {2}};"), e("check/initializer"));
        assert_eq!(module(".global .v2 .u32 g = {1,2,3};"), e("check/initializer")); // Incorrect number of elements in vector initializer
        // Types: instruction-only types, predicates, vectors.
        assert_eq!(module(".global .f16 g;"), None);
        assert_eq!(module(".global .bf16 g;"), e("check/variable-type")); // syntax error
        assert_eq!(body(".reg .tf32 %x;"), e("check/variable-type"));
        assert_eq!(module(".global .e4m3 g;"), e("check/variable-type")); // may only be used as an instruction type
        assert_eq!(module(".global .pred g;"), e("check/variable-type")); // must be in register state space
        assert_eq!(body(".reg .v2 .pred %q;"), e("check/variable-type")); // only scalar register variables
        assert_eq!(body(".reg .v2 .f64 %x;"), None);
        assert_eq!(body(".reg .v4 .b64 %x;"), e("check/variable-type")); // Vector type too large
        assert_eq!(module(".global .v8 .b32 g;"), e("check/variable-type")); // syntax error
        assert_eq!(body(".reg .b32 %x[2];"), e("check/variable-type")); // cannot be allocated into a register
        assert_eq!(body(".reg .b32 _;"), e("check/variable-type"));
        assert_eq!(body(".reg .b128 %x;"), e("check/isa-version")); // Type .b128 requires 8.3
        // Sizes: an unsized array is .extern.
        assert_eq!(module(".global .u32 g[] = {1,2};"), None);
        assert_eq!(module(".extern .shared .align 16 .b8 s[];"), None);
        assert_eq!(module(".global .u32 g[];"), e("check/incomplete-array")); // Non-external variable has incomplete type
        assert_eq!(body(".shared .b8 s[0];"), e("check/incomplete-array"));
        assert_eq!(module(".global .u32 g[] = {};"), e("check/incomplete-array"));
        // State spaces.
        assert_eq!(module(".local .u32 l;"), e("check/state-space")); // not allowed with ABI
        assert_eq!(body(".extern .shared .b8 s[];"), e("check/state-space")); // syntax error
        assert_eq!(module(".tex .u32 t;"), e("check/state-space")); // deprecated
        assert_eq!(body(".reg .texref t;"), e("check/state-space")); // module or entry parameter scope
        assert_eq!(module(".global .texref t;"), None);
        // A definition may be followed by an .extern declaration of it.
        assert_eq!(module(".global .u32 g;\n.extern .global .u32 g;"), None);
        assert_eq!(module(".global .u32 g;\n.weak .global .u32 g;"), e("check/duplicate-definition"));
    }

    #[test]
    fn parameters_as_ptxas_judges_them() {
        let e = |c: &str| Some(c.to_string());
        assert_eq!(params(".param .align 8 .b8 o[16]"), None);
        assert_eq!(params(".param .b8 o[0]"), e("check/incomplete-array")); // cannot be an incomplete array
        assert_eq!(params(".param .v2 .u32 v"), e("check/state-space")); // cannot be allocated in .param state space
        assert_eq!(params(".param .texref t"), None);
        assert_eq!(params(".param .u64 o, .param .samplerref s"), e("check/variable-type")); // violates texmode_unified
        assert_eq!(first("sm_80, texmode_independent", "", ".param .samplerref s", "", ""), None);
        assert_eq!(params(".param .u64 .ptr .global .align 0 o"), e("check/alignment"));
        assert_eq!(module(".func f(.param .u32 p[]) { ret; }"), None);
        assert_eq!(module(".func f(.reg .v2 .u32 p) { ret; }"), None);
        assert_eq!(module(".func (.param .v2 .u32 r) f() { ret; }"), e("check/state-space"));
        assert_eq!(module(".func f(.param .texref t) { ret; }"), e("check/state-space"));
    }

    #[test]
    fn directives_as_ptxas_judges_them() {
        let e = |c: &str| Some(c.to_string());
        assert_eq!(dirs(".maxntid 128, 1, 1 .minnctapersm 2 .maxnreg 64"), None);
        assert_eq!(dirs(".maxntid 0"), e("check/directive")); // Positive non-zero value expected
        assert_eq!(dirs(".reqntid 1, 0"), e("check/directive"));
        assert_eq!(dirs(".maxnreg 0"), e("check/directive"));
        assert_eq!(dirs(".maxntid 64 .reqntid 64"), e("check/directive")); // Conflicting directives
        assert_eq!(dirs(".reqnctapercluster 2, 2, 2 .maxclusterrank 4"), e("check/directive"));
        assert_eq!(dirs(".maxnctapersm 4"), e("check/directive")); // Deprecated
        assert_eq!(dirs(ptxsim_syntax::ast::PerfDirective::Noreturn.as_str()), e("check/directive")); // syntax error on an entry
        assert_eq!(module(".func f() .noreturn { exit; }"), None);
        assert_eq!(module(".func f() .maxntid 32 { ret; }"), e("check/directive")); // syntax error on a .func
        assert_eq!(module(".func f() .explicitcluster { ret; }"), e("check/directive"));
        // Target options.
        assert_eq!(first("sm_90, map_f64_to_f32", "", ".param .u64 o", "", ""), e("check/version-target"));
        assert_eq!(first("sm_80, texmode_unified, texmode_independent", "", ".param .u64 o", "", ""), e("check/version-target"));
    }

    /// Function declarations in the order ptxas 13.5 takes them: prototypes
    /// before the body, one linkage throughout (none after `.visible` is
    /// fine), `.extern` everywhere or nowhere, no body on an `.extern`.
    #[test]
    fn function_declarations_as_ptxas_judges_them() {
        let e = |c: &str| Some(c.to_string());
        assert_eq!(module(".func f();\n.func f() { ret; }"), None);
        assert_eq!(module(".visible .func f();\n.func f() { ret; }"), None);
        assert_eq!(module(".extern .func f();\n.extern .func f();"), None);
        assert_eq!(module(".func f() { ret; }\n.func f();"), e("check/duplicate-definition")); // Duplicate definition of function
        assert_eq!(module(".visible .func f() { ret; }\n.extern .func f();"), e("check/duplicate-definition"));
        assert_eq!(module(".func f();\n.visible .func f() { ret; }"), e("check/inconsistent-prototype")); // Inconsistent redefinition
        assert_eq!(module(".extern .func f();\n.func f() { ret; }"), e("check/inconsistent-prototype"));
        assert_eq!(module(".extern .func f();\n.weak .func f() { ret; }"), e("check/inconsistent-prototype"));
        assert_eq!(module(".func f();\n.extern .func f();"), e("check/inconsistent-prototype"));
        assert_eq!(module(".extern .func f() { ret; }"), e("check/inconsistent-prototype")); // conflicts with '.extern'
    }

    /// Special registers introduced after PTX ISA 7.0 (ptxas 13.5: "Feature
    /// '%aggr_smem_size' requires PTX ISA .version 8.1 or later", "requires
    /// .target sm_90"); `%gridid` read as 32 bits is accepted.
    #[test]
    fn later_special_registers_are_gated() {
        let e = |c: &str| Some(c.to_string());
        let at = |v: &str, t: &str, b: &str| {
            let src = format!(".version {v}\n.target {t}\n.address_size 64\n.visible .entry k()\n{{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n{b}\nret;\n}}\n");
            let parsed = ptxsim_syntax::parse(&src);
            crate::check_module(&parsed.module).into_iter().find(|d| d.is_error()).map(|d| d.code.to_string())
        };
        assert_eq!(at("8.1", "sm_90", "mov.u32 %r1, %aggr_smem_size;"), None);
        assert_eq!(at("8.0", "sm_90", "mov.u32 %r1, %aggr_smem_size;"), e("check/isa-version"));
        assert_eq!(at("8.1", "sm_80", "mov.u32 %r1, %aggr_smem_size;"), e("check/isa-target"));
        assert_eq!(at("7.6", "sm_80", "mov.u32 %r1, %reserved_smem_offset_1;"), None);
        assert_eq!(at("7.5", "sm_80", "mov.u32 %r1, %reserved_smem_offset_begin;"), e("check/isa-version"));
        assert_eq!(at("8.1", "sm_75", "mov.u32 %r1, %reserved_smem_offset_0;"), e("check/isa-target"));
        assert_ne!(at("8.1", "sm_90", "mov.u32 %r1, %reserved_smem_offset_2;"), None);
        assert_eq!(at("7.8", "sm_90", "mov.u64 %rd1, %current_graph_exec;"), e("check/isa-version"));
        assert_eq!(at("7.0", "sm_80", "mov.u32 %r1, %gridid;"), None);
    }
}

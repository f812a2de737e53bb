//! Declaration rules that need no symbol table: `check/alignment` (an
//! `.align` value is a power of two), `check/initializer` (an array
//! initialiser has no more elements than the array has at each dimension)
//! and `check/register-count` (a `%r<N>` count fits in 32 bits).

use crate::ctx::Ctx;
use ptxsim_syntax::ast::{Declarator, Init, Spanned};
use ptxsim_syntax::Diagnostic;

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

//! ptxsim-check: verifies a parsed PTX module the way ptxas does, and warns
//! about constructs that are legal but undefined at run time.
//!
//! [`check_module`] checks a parsed module: the module pass over its
//! header and declarations, then each function body against what was
//! declared before it, the findings merged in source order ([`stream`]);
//! [`check_text`] does the same from the text, parsing and checking one
//! body at a time on several threads. Every diagnostic
//! names its rule in its code (`check/<rule>`), points at the offending span,
//! and where useful at the related declaration. The rules:
//!
//! **Module** ([`module`])
//! - `check/version-target`: a known `.version` (1.0 to 9.5); known `.target`
//!   entries (sm_10 .. sm_121, `a`/`f` variants, texmode/debug options); the
//!   version supports the target; `.address_size` is 32 or 64 (from 2.3).
//! - `check/duplicate-definition`: functions, module variables, parameters,
//!   local variables, register ranges and labels are declared once per scope.
//! - `check/inconsistent-prototype`: a prototype and the definition agree.
//! - `check/call-table`: call-table initialisers name functions declared
//!   before them, never labels.
//! - `check/alignment`, `check/initializer`, `check/register-count`
//!   ([`decl`]): `.align` is a power of two; an array initialiser is no
//!   longer than the array, in the declaration's shape, and only on
//!   `.global`/`.const` variables of initialisable types; a `%r<N>` count
//!   fits in 32 bits.
//! - `check/variable-type`, `check/incomplete-array` ([`decl`]): the types,
//!   vectors and arrays a variable or parameter may have (no
//!   instruction-only types, scalar `.reg` predicates, vectors of at most
//!   128 bits, sized or `.extern` arrays, opaque types at module or kernel
//!   parameter scope).
//! - `check/directive` ([`decl`]): performance-tuning and cluster directives
//!   on kernels with positive values and no conflicting pair, `.noreturn`
//!   on `.func`s; `.target` options that exclude each other.
//!
//! **Resolution and scopes** ([`ctx`], [`body`])
//! - `check/unknown-symbol`: every name resolves in its `{}` scope; a name
//!   declared inside a block is invisible outside it, an inner declaration
//!   shadows an outer one, variables are declared before use; labels are
//!   block-scoped too (visible in their block and nested blocks, forward
//!   references allowed, but a function, variable or register of that name
//!   visible at the reference wins over a label written after it, as in
//!   ptxas).
//! - `check/unknown-instruction`: the opcode is a PTX instruction.
//!
//! **Instructions** ([`rules`], the instruction table [`rules::TABLE`])
//! - `check/guard-type`: a guard `@p` is a `.pred` register.
//! - `check/uni-modifier`: `.uni` only on `bra`, `brx.idx`, `call`, `ret`.
//! - `check/bra-target`: `bra` targets a label of the same function.
//! - `check/brx-index-type`: the `brx.idx` index is a 32-bit integer register
//!   or an immediate.
//! - `check/brx-tlist`: `tlist` is a `.branchtargets` label visible here and
//!   declared before the `brx.idx`; its entries are labels visible from it.
//! - `check/call-target`: a direct callee is a `.func` declared before the
//!   call and defined in the module, a CUDA system call, or (in
//!   [`Mode::Relocatable`], the default, as `ptxas -c`) declared `.extern`:
//!   such calls are left to the linker and listed in [`Checked::unresolved`].
//! - `check/call-args`: counts, types, sizes and alignments of arguments and
//!   return parameters match the callee (ptxas's relaxations included).
//! - `check/call-indirect`: an indirect call names a call table, a
//!   `.calltargets` or a `.callprototype` declared before it, every listed
//!   function matches, and `.calltargets` lists declared `.func`s.
//! - `check/setp-cmp-type`, `check/setp-form`, `check/setp-boolop`,
//!   `check/setp-ftz`: setp's comparison suits its type class, destinations
//!   are predicates, BoolOp and `c` go together, `.ftz` only on `.f32`.
//! - `check/selp-type`: selp's type and predicate selector.
//! - `check/pred-int`: a predicate is never an integer and vice versa
//!   (`and/or/xor/not/mov.pred` manipulate predicates; `selp`/`setp` bridge).
//! - `check/instruction-type`, `check/operand-type`, `check/operand-count`,
//!   `check/operand-shape`: each operand fits the instruction type by the
//!   manual's type-compatibility rules ([`types`]).
//! - `check/cvt-modifiers`: a conversion between integer types takes no
//!   rounding modifier and no `.ftz`, and `.sat` only where a source value
//!   can lie outside the destination's range.
//! - `check/special-register`: special registers are operands of `mov` and
//!   integer-to-integer `cvt` only (`bar.sync 1, %ntid.x` and
//!   `add.u32 %r, %tid.x, 1` are refused, as by ptxas 12.9).
//! - `check/register-minus`: a register followed by `-` in an operand, which
//!   ptxas rejects (usually a missing comma: `%p1 -1`).
//! - `check/nanosleep-operand`: `nanosleep.u32` with a 32-bit register or immediate.
//! - `check/atom-operands`, `check/red-operands`: one operation, a `.global`,
//!   `.shared` or generic state space, a type the operation defines
//!   (`atom.add.b32` and `atom.and.u32` are rejected), and `d, [a], b{, c}`
//!   (`[a], b` for `red`, which has no destination) typed exactly.
//! - `check/shfl-operands`: `shfl.sync.mode.b32 d[|p], a, b, c, membermask`;
//!   no `shfl` without `.sync` on sm_70+ from `.version` 6.4.
//! - `check/vote-operands`: `vote.sync.{all,any,uni}.pred` and
//!   `vote.sync.ballot.b32` with a predicate source and a `.u32` membermask;
//!   no `vote` without `.sync` on sm_70+ from `.version` 6.4.
//! - `check/bar-operands`: `bar`/`barrier` `.sync`, `.arrive`, `.red` and
//!   `bar.warp.sync`: `.u32` barrier ids (0..15) and thread counts (multiples
//!   of 32), no type except on `.red` (`.popc.u32`, `.and/.or.pred`).
//! - `prmt`, `bfe`, `bfi` are typed by `check/instruction-type` and
//!   `check/operand-type` (`.u32` positions and lengths).
//! - `check/sink` ([`rules::sink`]): the sink `_` only where a result may be
//!   discarded (setp, atom, lop3, match.all, mbarrier.arrive, shfl's and
//!   elect's pair halves, destination vector elements, call returns), as
//!   measured with ptxas 12.9; never as a source.
//! - `check/space-operands` ([`rules::space`]): `isspacep.space p, a`,
//!   `mapa{.shared::cluster}.type d, a, b`, `getctarank{.shared::cluster}.type
//!   d, a`: their state spaces, types, operands and gates, as ptxas 12.9.
//! - `check/ret-exit`: `ret{.uni}` and `exit` take no operands or types.
//! - `check/modifiers`: the modifiers each typed row's grammar takes
//!   (`ptxsim_isa`), in the combinations its `Insn::misfit` allows (the
//!   arithmetic: rounding, approximation, saturation and mode modifiers
//!   per type, as ptxas 12.9 and 13.5 judge them).
//! - `check/tensor-operands` ([`rules::tensor`]): cp.async, ldmatrix,
//!   stmatrix, movmatrix, mma, the bulk copies; ([`rules::mbar`]) every
//!   `mbarrier` operation (its `.sem`/`.scope`, `.shared::cluster` with
//!   the sink `_`, its gates and operands).
//! - `check/state-space`: `ld`/`st` address symbols of their state space, no
//!   `st.const`, input parameters are read-only, address registers are
//!   32/64-bit integers (64-bit for generic/.global with `.address_size 64`).
//!
//! **Gating** ([`isa`]): `check/isa-version` and `check/isa-target`, from
//! one table of minimum versions and targets.
//!
//! **Warnings** ([`ub`]): `check/brx-index-out-of-range`,
//! `check/uni-divergent`, `check/prototype-unmatched`.
//!
//! The library never prints and never panics on input.

#![forbid(unsafe_code)]
#![deny(clippy::print_stdout, clippy::print_stderr, clippy::unwrap_used)]

pub mod body;
pub mod ctx;
pub mod decl;
pub mod isa;
pub mod module;
pub mod rules;
pub mod stream;
pub mod types;
pub mod ub;
#[cfg(test)]
mod testing;

use ptxsim_syntax::ast::Module;
use ptxsim_syntax::Diagnostic;

/// Checks a parsed module; returns every error and warning found, in the
/// order ptxas would report them (source order, except that a `.version`
/// that does not support the `.target` is reported last).
pub fn check_module(module: &Module<'_>) -> Vec<Diagnostic> {
    check_module_limited(module, usize::MAX).diagnostics
}

/// How a module is compiled, which decides whether a call to an `.extern`
/// function that the module does not define is an error.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// Relocatable code (`ptxas -c`, `nvcc -rdc`): a call to an `.extern`
    /// function without a body is left to the linker. A called function
    /// declared without `.extern` must still be defined.
    #[default]
    Relocatable,
    /// A whole program (`ptxas` without `-c`): every called function needs
    /// a definition in the module ("Unresolved extern function"), CUDA
    /// system calls aside.
    WholeProgram,
}

/// What [`check_module_limited`] found: the diagnostics kept, and how many
/// errors and warnings were found beyond the limit.
#[derive(Debug, Default)]
pub struct Checked {
    pub diagnostics: Vec<Diagnostic>,
    pub errors_not_shown: usize,
    pub warnings_not_shown: usize,
    /// `.extern` functions the module calls without defining them (in
    /// [`Mode::Relocatable`]), with the span of the first call: what a linker
    /// must provide.
    pub unresolved: Vec<(String, ptxsim_syntax::Span)>,
}

/// Checks a parsed module, keeping at most `limit` errors and `limit`
/// warnings (the check goes on to the end and counts the rest), so that a
/// module with millions of problems costs memory for `limit` of them.
pub fn check_module_limited(module: &Module<'_>, limit: usize) -> Checked {
    check_module_mode(module, limit, Mode::Relocatable)
}

/// [`check_module_limited`] in the given compilation [`Mode`].
pub fn check_module_mode(module: &Module<'_>, limit: usize, mode: Mode) -> Checked {
    stream::check_module(module, limit, mode)
}

pub use stream::{check_text, TextChecked};

//! The instruction table and the per-instruction rules.
//!
//! [`TABLE`] lists every opcode ptxsim knows, once, with its operand form,
//! the instruction types it allows and the feature gate it needs. Decoding
//! the modifier strings the parser keeps ([`Decoded`]) happens here; each form
//! is checked by one module: [`branch`] (`bra`, `brx.idx`, `ret`, `exit`),
//! [`call`] (direct and indirect calls), [`setp`] (`setp`, `selp`), [`typed`]
//! (arithmetic, logic, `mov`, `cvt`, shifts, `prmt`, `bfe`, `bfi`,
//! `nanosleep`), [`memory`] (`ld`, `st`, addresses and state spaces),
//! [`atomic`] (`atom`, `red`), [`warp`] (`shfl`, `vote`, `bar`/`barrier`),
//! [`collective`] (`match.sync`, `redux.sync`, `elect.sync`), [`scalar`] (`testp`, `dp4a`, `dp2a`, `bmsk`, `szext`, `fns`, `cvt.pack`,
//! the cache hints `prefetch`, `applypriority`, `discard`, `createpolicy`),
//! with [`operand`] resolving and typing
//! single operands for all of them. Opcodes of the `Loose` form are known
//! but only their names are resolved.

pub mod atomic;
pub mod branch;
pub mod call;
pub mod collective;
pub mod memory;
pub mod modifiers;
pub mod operand;
pub mod scalar;
pub mod setp;
pub mod typed;
pub mod warp;

use crate::ctx::{Ctx, Sym};
use crate::isa::Feature;
use ptxsim_syntax::ast::{Instruction, Name, ScalarType, StateSpace};
use ptxsim_syntax::{Diagnostic, Span};
use smallvec::SmallVec;

/// The operand form of an opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    Bra,
    Brx,
    Call,
    Ret,
    Exit,
    Setp,
    Selp,
    Nanosleep,
    Ld,
    St,
    Mov,
    Cvt,
    Cvta,
    /// `d, a, b` of the instruction type (`min`/`max` may take more sources).
    Binary,
    /// `d, a`.
    Unary,
    /// `d, a, b, c`.
    Ternary,
    /// `d, a, b` with `b` a 32-bit shift amount.
    Shift,
    /// `d, a` with `d` a `.u32` count (`popc`, `clz`, `bfind`).
    Count,
    /// `prmt.b32{.mode} d, a, b, c`.
    Prmt,
    /// `bfe.type d, a, b, c` with `b`, `c` 32-bit positions.
    Bfe,
    /// `bfi.type f, a, b, c, d` with `c`, `d` 32-bit positions.
    Bfi,
    /// `atom` ([`atomic`]).
    Atom,
    /// `red` ([`atomic`]).
    Red,
    /// `shfl` ([`warp`]).
    Shfl,
    /// `vote` ([`warp`]).
    Vote,
    /// `bar`, `barrier` ([`warp`]).
    Bar,
    /// `testp`, `dp4a`, `dp2a`, `bmsk`, `szext`, `fns`, `prefetch`,
    /// `prefetchu`, `applypriority`, `discard`, `createpolicy` ([`scalar`]).
    Scalar,
    /// `match.sync`, `redux.sync`, `elect.sync` ([`collective`]).
    Collective,
    /// Known opcode; operands are resolved but not typed.
    Loose,
}

/// Type groups an opcode allows.
pub mod ts {
    /// `.u16`..`.u64`, `.s16`..`.s64`
    pub const I: u32 = 1;
    /// `.s16`..`.s64`
    pub const S: u32 = 2;
    /// `.b16`..`.b64`
    pub const B: u32 = 4;
    /// `.f32`, `.f64`
    pub const F: u32 = 8;
    /// `.f16`, `.f16x2`, `.bf16`, `.bf16x2`
    pub const H: u32 = 16;
    /// `.pred`
    pub const P: u32 = 32;
    /// `.b32`, `.b64`
    pub const B3264: u32 = 64;
    /// `.u32`, `.u64`, `.s32`, `.s64`
    pub const I3264: u32 = 128;
    /// `.b128`
    pub const B128: u32 = 256;
    /// `.b32` only
    pub const B32: u32 = 512;
    /// anything (not checked)
    pub const ANY: u32 = u32::MAX;
}

/// One row of the instruction table.
pub struct Spec {
    pub op: &'static str,
    pub form: Form,
    /// Allowed instruction types (groups from [`ts`]).
    pub types: u32,
}

macro_rules! table {
    ($($op:literal => $form:ident, $types:expr;)*) => {
        /// Every opcode ptxsim knows, with its form and allowed types.
        pub const TABLE: &[Spec] = &[$(Spec { op: $op, form: Form::$form, types: $types },)*];
    };
}

use ts::*;
table! {
    "bra" => Bra, 0; "brx" => Brx, 0; "call" => Call, 0; "ret" => Ret, 0; "exit" => Exit, 0;
    "setp" => Setp, 0; "selp" => Selp, 0; "nanosleep" => Nanosleep, 0;
    "ld" => Ld, ANY; "ldu" => Ld, ANY; "st" => St, ANY;
    "mov" => Mov, I | B | F | H | P | B128; "cvt" => Cvt, ANY; "cvta" => Cvta, I;
    "add" => Binary, I | F | H; "sub" => Binary, I | F | H; "addc" => Binary, I; "subc" => Binary, I;
    "mul" => Binary, I | F | H; "div" => Binary, I | F; "rem" => Binary, I;
    "min" => Binary, I | F | H; "max" => Binary, I | F | H; "mul24" => Binary, I; "copysign" => Binary, F;
    "and" => Binary, B | P; "or" => Binary, B | P; "xor" => Binary, B | P;
    "mad" => Ternary, I | F; "madc" => Ternary, I; "fma" => Ternary, F | H; "mad24" => Ternary, I; "sad" => Ternary, I;
    "not" => Unary, B | P; "cnot" => Unary, B; "neg" => Unary, S | F | H; "abs" => Unary, S | F | H;
    "rcp" => Unary, F | H; "sqrt" => Unary, F | H; "rsqrt" => Unary, F | H; "sin" => Unary, F | H;
    "cos" => Unary, F | H; "lg2" => Unary, F | H; "ex2" => Unary, F | H; "tanh" => Unary, F | H;
    "brev" => Unary, B3264;
    "shl" => Shift, B; "shr" => Shift, B | I;
    "popc" => Count, B3264; "clz" => Count, B3264; "bfind" => Count, I3264;
    "atom" => Atom, ANY; "red" => Red, ANY; "shfl" => Shfl, ANY; "vote" => Vote, ANY;
    "bar" => Bar, ANY; "barrier" => Bar, ANY; "membar" => Loose, ANY; "fence" => Loose, ANY;
    "activemask" => Loose, ANY; "prmt" => Prmt, ts::B32; "bfe" => Bfe, I3264; "bfi" => Bfi, B3264;
    "bmsk" => Scalar, ANY; "szext" => Scalar, ANY; "dp4a" => Scalar, ANY; "dp2a" => Scalar, ANY;
    "lop3" => Loose, ANY; "shf" => Loose, ANY; "slct" => Loose, ANY; "set" => Loose, ANY;
    "testp" => Scalar, ANY; "fns" => Scalar, ANY; "match" => Collective, ANY; "redux" => Collective, ANY;
    "elect" => Collective, ANY; "trap" => Loose, ANY; "brkpt" => Loose, ANY; "pmevent" => Loose, ANY;
    "tex" => Loose, ANY; "tld4" => Loose, ANY; "txq" => Loose, ANY; "suld" => Loose, ANY;
    "sust" => Loose, ANY; "sured" => Loose, ANY; "suq" => Loose, ANY; "isspacep" => Loose, ANY;
    "prefetch" => Scalar, ANY; "prefetchu" => Scalar, ANY; "applypriority" => Scalar, ANY;
    "discard" => Scalar, ANY; "createpolicy" => Scalar, ANY; "cp" => Loose, ANY; "mma" => Loose, ANY;
    "wmma" => Loose, ANY; "ldmatrix" => Loose, ANY; "stmatrix" => Loose, ANY; "movmatrix" => Loose, ANY;
    "mbarrier" => Loose, ANY; "griddepcontrol" => Loose, ANY; "setmaxnreg" => Loose, ANY;
    "tcgen05" => Loose, ANY; "wgmma" => Loose, ANY; "stackrestore" => Loose, ANY; "stacksave" => Loose, ANY;
    "alloca" => Loose, ANY; "getctarank" => Loose, ANY; "mapa" => Loose, ANY; "istypep" => Loose, ANY;
    "clusterlaunchcontrol" => Loose, ANY; "multimem" => Loose, ANY; "tensormap" => Loose, ANY;
    "vabsdiff" => Loose, ANY; "vadd" => Loose, ANY; "vsub" => Loose, ANY; "vmad" => Loose, ANY;
    "vmax" => Loose, ANY; "vmin" => Loose, ANY; "vset" => Loose, ANY; "vshl" => Loose, ANY; "vshr" => Loose, ANY;
    "vabsdiff2" => Loose, ANY; "vadd2" => Loose, ANY; "vsub2" => Loose, ANY; "vavrg2" => Loose, ANY;
    "vmax2" => Loose, ANY; "vmin2" => Loose, ANY; "vset2" => Loose, ANY; "vabsdiff4" => Loose, ANY;
    "vadd4" => Loose, ANY; "vsub4" => Loose, ANY; "vavrg4" => Loose, ANY; "vmax4" => Loose, ANY;
    "vmin4" => Loose, ANY; "vset4" => Loose, ANY; "mul.wide" => Loose, ANY; "ex2.approx" => Loose, ANY;
    "cvt.pack" => Loose, ANY; "frc" => Loose, ANY; "st.async" => Loose, ANY; "red.async" => Loose, ANY;
    "cp.async" => Loose, ANY; "nop" => Loose, ANY;
}

/// The table row of an opcode.
pub fn spec(op: &str) -> Option<&'static Spec> {
    TABLE.iter().find(|s| s.op == op)
}

/// Whether a type is in a set of groups.
pub fn allows(set: u32, t: ScalarType) -> bool {
    use ScalarType::*;
    let g = match t {
        U16 | U32 | U64 => I,
        S16 | S32 | S64 => I | S,
        B16 | B64 | B32 => B | if matches!(t, B32 | B64) { B3264 } else { 0 } | if t == B32 { ts::B32 } else { 0 },
        F32 | F64 => F,
        F16 | F16x2 | Bf16 | Bf16x2 => H,
        Pred => P,
        B128 => ts::B128,
        _ => 0,
    };
    let g = g | if matches!(t, U32 | U64 | S32 | S64) { I3264 } else { 0 };
    set & g != 0
}

/// A `setp` comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan,
}

impl CmpOp {
    pub fn from_str(s: &str) -> Option<CmpOp> {
        use CmpOp::*;
        Some(match s {
            ".eq" => Eq, ".ne" => Ne, ".lt" => Lt, ".le" => Le, ".gt" => Gt, ".ge" => Ge,
            ".lo" => Lo, ".ls" => Ls, ".hi" => Hi, ".hs" => Hs,
            ".equ" => Equ, ".neu" => Neu, ".ltu" => Ltu, ".leu" => Leu, ".gtu" => Gtu, ".geu" => Geu,
            ".num" => Num, ".nan" => Nan,
            _ => return None,
        })
    }
}

/// An instruction's modifiers, decoded.
#[derive(Default)]
pub struct Decoded<'a> {
    pub types: SmallVec<[(ScalarType, Span); 2]>,
    pub space: Option<(StateSpace, Span)>,
    /// A second state-space modifier (`st.global.shared`), if any.
    pub second_space: Option<(StateSpace, Span)>,
    /// A state-space modifier written with a `::` qualifier ptxsim does not decode.
    pub space_other: bool,
    pub cmp: Option<(CmpOp, Span)>,
    pub boolop: Option<Span>,
    pub ftz: Option<Span>,
    pub vector: Option<(u8, Span)>,
    pub uni: SmallVec<[Span; 1]>,
    pub other: SmallVec<[Name<'a>; 4]>,
}

pub fn decode<'a>(i: &Instruction<'a>) -> Decoded<'a> {
    let mut d = Decoded::default();
    for m in &i.modifiers {
        let t = m.text;
        if let Some(s) = ScalarType::from_str(t) {
            d.types.push((s, m.span));
        } else if let Some(s) = StateSpace::from_str(t) {
            if d.space.is_some() && d.second_space.is_none() {
                d.second_space = Some((s, m.span));
            }
            d.space = d.space.or(Some((s, m.span)));
        } else if t.contains("::") && StateSpace::from_str(t.split("::").next().unwrap_or("")).is_some() {
            d.space_other = true;
        } else if let Some(c) = CmpOp::from_str(t) {
            d.cmp = Some((c, m.span));
        } else if matches!(t, ".and" | ".or" | ".xor") && i.opcode.text == "setp" {
            d.boolop = Some(m.span);
        } else if t == ".ftz" {
            d.ftz = Some(m.span);
        } else if t == ".uni" {
            d.uni.push(m.span);
        } else if let Some(n) = t.strip_prefix(".v").and_then(|n| n.parse::<u8>().ok()) {
            d.vector = Some((n, m.span));
        } else {
            d.other.push(*m);
        }
    }
    d
}

/// The instruction as written, without operands (`setp.lt.u32`).
pub fn opname(i: &Instruction<'_>) -> String {
    let mut s = i.opcode.text.to_string();
    for m in &i.modifiers {
        s.push_str(m.text);
    }
    s
}

/// Checks one instruction: the guard, `.uni`, the opcode, then its form's rule.
pub fn instruction<'f, 'a>(cx: &mut Ctx<'f, 'a>, i: &'f Instruction<'a>) {
    guard(cx, i);
    let Some(spec) = spec(i.opcode.text) else {
        cx.emit(
            Diagnostic::error("check/unknown-instruction", i.opcode.span, format!("unknown instruction `{}`", i.opcode.text))
                .with_label("not a PTX opcode that ptxsim knows")
                .with_note("rule check/unknown-instruction: the opcode must be a PTX ISA instruction"),
        );
        return;
    };
    let d = decode(i);
    for m in &i.modifiers {
        if matches!(m.text, ".calltargets" | ".branchtargets" | ".callprototype" | ".target" | ".version" | ".address_size" | ".entry" | ".func" | ".extern" | ".visible" | ".weak" | ".align") {
            cx.emit(
                Diagnostic::error("check/unknown-instruction", m.span, format!("`{}` is a directive, not a modifier of `{}`", m.text, i.opcode.text))
                    .with_label("unexpected directive in an instruction")
                    .with_note("rule check/unknown-instruction: instruction modifiers come from the instruction's own syntax (PTX ISA chapter 9)"),
            );
        }
    }
    // Rule check/state-space: ld, st, atom and red take at most one state space
    // (ptxas: "Unexpected number of state spaces specified in instruction").
    if let (Some((first, fs)), Some((second, ss))) = (d.space, d.second_space) {
        if matches!(spec.form, Form::Ld | Form::St | Form::Atom | Form::Red) {
            cx.emit(
                Diagnostic::error("check/state-space", ss, format!("`{}` takes one state space; `{}` is a second one", i.opcode.text, second.as_str()))
                    .with_label("second state space")
                    .with_secondary(fs, format!("`{}` given here", first.as_str()))
                    .with_note("rule check/state-space (PTX ISA 9.7.9.8 ld, 9.7.9.10 st, 9.7.13.5 atom, 9.7.13.6 red): one state space, or none for generic addressing"),
            );
            return;
        }
    }
    // Only the memory forms name a state space (ptxas: "No state space
    // qualifier expected for instruction"); `Loose` opcodes are not typed.
    if let Some((sp, span)) = d.space {
        if !matches!(spec.form, Form::Ld | Form::St | Form::Atom | Form::Red | Form::Cvta | Form::Scalar | Form::Loose) {
            cx.emit(
                Diagnostic::error("check/state-space", span, format!("`{}` takes no state space, but `{}` is given", i.opcode.text, sp.as_str()))
                    .with_label("unexpected state space")
                    .with_note("rule check/state-space: only memory instructions (ld, st, atom, cvta, ...) name a state space"),
            );
            return;
        }
    }
    // Rule check/uni-modifier (PTX ISA 9.7.12, Thread Divergence): `.uni` exists on bra, brx.idx, call and ret only.
    // (`vote.uni` is a vote mode, not this modifier.)
    if !matches!(spec.form, Form::Bra | Form::Brx | Form::Call | Form::Ret | Form::Vote) {
        if let Some(&s) = d.uni.first() {
            cx.emit(
                Diagnostic::error("check/uni-modifier", s, format!("`.uni` is not a modifier of `{}`", i.opcode.text))
                    .with_label("illegal modifier")
                    .with_note("rule check/uni-modifier (PTX ISA 9.7.12): only `bra`, `brx.idx`, `call` and `ret` take `.uni`"),
            );
        }
    }
    gates(cx, i, &d);
    if !modifiers::check(cx, i) {
        return operand::resolve_all(cx, i);
    }
    match spec.form {
        Form::Bra => branch::bra(cx, i, &d),
        Form::Brx => branch::brx(cx, i, &d),
        Form::Ret => branch::ret(cx, i, &d),
        Form::Exit => branch::exit(cx, i, &d),
        Form::Call => call::call(cx, i, &d),
        Form::Setp => setp::setp(cx, i, &d),
        Form::Selp => setp::selp(cx, i, &d),
        Form::Nanosleep => typed::nanosleep(cx, i, &d),
        Form::Ld | Form::St => memory::ld_st(cx, i, &d, spec.form == Form::St),
        Form::Atom => atomic::atom_red(cx, i, &d, false),
        Form::Red => atomic::atom_red(cx, i, &d, true),
        Form::Shfl => warp::shfl(cx, i, &d),
        Form::Vote => warp::vote(cx, i, &d),
        Form::Bar => warp::bar(cx, i, &d),
        Form::Scalar => scalar::scalar(cx, i, &d),
        Form::Collective => collective::collective(cx, i, &d),
        Form::Cvt if i.has_modifier(".pack") => scalar::cvt_pack(cx, i, &d),
        Form::Loose => operand::resolve_all(cx, i),
        _ => typed::typed(cx, i, &d, spec),
    }
}

/// Feature gates that depend on the opcode, its modifiers and its types.
/// Several can apply to one instruction; each is reported.
fn gates(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, d: &Decoded<'_>) {
    let op = i.opcode.text;
    let has = |m: &str| i.has_modifier(m);
    let ty = |t: ScalarType| d.types.iter().any(|x| x.0 == t);
    let half = ty(ScalarType::F16) || ty(ScalarType::F16x2);
    let bf16 = ty(ScalarType::Bf16) || ty(ScalarType::Bf16x2);
    let mut fs: SmallVec<[Feature; 2]> = SmallVec::new();
    match op {
        "add" | "addc" | "sub" | "subc" | "mad" | "madc" if has(".cc") || op.ends_with('c') => {
            fs.push(match op {
                "add" | "addc" => Feature::CarryAdd,
                "sub" | "subc" => Feature::CarrySub,
                _ => Feature::MadCarry,
            });
            if has(".cc") && d.types.iter().any(|x| x.0.bits() == 64) {
                fs.push(Feature::Carry64);
            }
        }
        "shfl" if has(".sync") => fs.push(Feature::ShflSync),
        "vote" if has(".sync") => fs.push(Feature::VoteSync),
        "bar" if has(".warp") => fs.push(Feature::BarWarpSync),
        "barrier" if has(".cluster") => {
            fs.push(Feature::ClusterBarrier);
            if has(".relaxed") || has(".release") || has(".acquire") {
                fs.push(Feature::ClusterBarrierSem);
            }
        }
        "activemask" => fs.push(Feature::Activemask),
        "match" => fs.push(Feature::MatchSync),
        "redux" => fs.push(Feature::ReduxSync),
        "fence" => fs.push(if has(".proxy") { Feature::FenceProxy } else { Feature::Fence }),
        "szext" | "bmsk" => fs.push(Feature::SzextBmsk),
        "dp4a" | "dp2a" => fs.push(Feature::Dp4a),
        "atom" | "red" if has(".add") && ty(ScalarType::F64) => fs.push(Feature::AtomAddF64),
        "atom" | "red" if bf16 => fs.push(Feature::AtomBf16),
        "atom" | "red" if half || ty(ScalarType::B16) => fs.push(Feature::Atom16),
        "tanh" | "ex2" if bf16 => fs.push(Feature::Bf16Transcendental),
        "tanh" => fs.push(Feature::Tanh),
        "ex2" if half => fs.push(Feature::Ex2Half),
        "min" | "max" => {
            if half || bf16 {
                fs.push(Feature::MinMaxHalf);
            }
            if has(".NaN") {
                fs.push(Feature::MinMaxNaN);
            }
            if has(".xorsign") {
                fs.push(Feature::MinMaxXorsignAbs);
            }
            if has(".relu") && !(half || bf16) {
                fs.push(Feature::MinMaxRelu);
            }
        }
        "add" | "sub" | "mul" if bf16 => fs.push(Feature::Bf16AddSubMul),
        "fma" | "neg" | "abs" if bf16 => fs.push(Feature::Bf16Arith),
        "add" | "sub" | "mul" | "fma" | "neg" | "abs" if half => fs.push(Feature::F16Arith),
        // cvt.DTYPE.ATYPE: the first type is the result.
        "cvt" => {
            if let [(to, _), (from, _), ..] = d.types.as_slice() {
                if matches!(to, ScalarType::Bf16 | ScalarType::Bf16x2 | ScalarType::Tf32) {
                    fs.push(Feature::CvtToBf16);
                }
                if matches!(from, ScalarType::Bf16 | ScalarType::Bf16x2) {
                    fs.push(Feature::CvtFromBf16);
                }
            }
        }
        _ => {}
    }
    if has(".relu") && matches!(op, "fma" | "cvt") {
        fs.push(Feature::Relu);
    }
    let span = i.opcode.span.to(i.modifiers.last().map(|m| m.span).unwrap_or(i.opcode.span));
    for f in fs {
        cx.require(f, span);
    }
}

/// Rule `check/guard-type` (PTX ISA 9.7.12.2 `@`): the guard is a `.pred` register.
fn guard(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>) {
    let Some(g) = i.guard else { return };
    match cx.lookup(g.pred.text) {
        Some(Sym::Var(v)) if v.space() == StateSpace::Reg && v.ty() == Some(ScalarType::Pred) => {}
        Some(s) => {
            let what = crate::ctx::sym_kind(s);
            let decl = crate::ctx::sym_span(s, &cx.funcs);
            cx.emit(
                Diagnostic::error("check/guard-type", g.pred.span, format!("guard `{}` is not a predicate", g.pred.text))
                    .with_label(format!("this is {what}"))
                    .with_secondary(decl, "declared here")
                    .with_note("rule check/guard-type (PTX ISA 9.7.12.2, 9.3): a guard must be a `.pred` register; integers are not predicates (compute one with `setp`)"),
            );
        }
        None => cx.unknown(g.pred, "predicate register"),
    }
}

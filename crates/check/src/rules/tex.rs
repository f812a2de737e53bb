//! The texture and surface instructions (PTX ISA 9.7.10 `tex`, `tld4`,
//! `txq`; 9.7.11 `suld`, `sust`, `sured`, `suq`) on their typed rows, as
//! ptxas 13.5 (`-arch=sm_90a`) judges them: the combinations of modifiers
//! ([`Insn::tex_misfit`], rule `check/modifiers`), the operand count
//! (`check/operand-count`: `tex.level` adds `lod`, `tex.grad` `dPdx, dPdy`,
//! `txq.level` `lod`), and the operands (`check/operand-type`,
//! `check/operand-shape`): the texture, sampler or surface is a
//! `.texref`/`.samplerref`/`.surfref` variable or a 64-bit handle register;
//! under `.target texmode_independent` `tex`/`tld4` name a sampler and the
//! sampler queries of `txq` read one; the coordinate vector has the
//! geometry's elements (an array index first, a `.u32`), of the
//! coordinate type; the destination is the `.v4` (`.v2`) vector of the
//! instruction type; a vector has 1, 2 or 4 elements.

use super::opname;
use super::operand::{resolve_all, resolve_operand, value, Role};
use crate::ctx::{Ctx, Sym};
use crate::types::Size;
use ptxsim_isa::{field_span, grammar::modifier_span, Insn, PtxVersion, SurfAccess, TexGeom, TexMip, TexVec, TxqQuery};
use ptxsim_syntax::ast::{Instruction, Operand, OperandKind, ScalarType, StateSpace};
use ptxsim_syntax::{Diagnostic, Span};

const TEX_NOTE: &str = "PTX ISA 9.7.10.3 tex, 9.7.10.4 tld4: `tex.geom.v4.dtype.ctype d, [a, {b,} c] {, lod | , dPdx, dPdy} {, e} {, f}` (`.v2.f16x2` for `.f16x2`), `tld4.comp.geom.v4.dtype.f32 d, [a, {b,} c] {, e} {, f}`: `a` a `.texref` or a 64-bit handle, `b` a sampler, `c` the coordinates (`.1d` 1, `.2d` and `.a1d` 2, the others 4 elements; an array index `.u32` first), `e` `.s32` offsets, `f` the `.f32` depth to compare";
const TXQ_NOTE: &str = "PTX ISA 9.7.10.5 txq: `txq.query.b32 d, [a]`, `txq.level.query.b32 d, [a], lod`: `a` a `.texref`, or for the sampler queries a `.samplerref`, or a 64-bit handle";
const SURF_NOTE: &str = "PTX ISA 9.7.11.1 suld, 9.7.11.2 sust, 9.7.11.3 sured, 9.7.11.4 suq: `suld.b.geom{.cop}.vec.dtype.clamp d, [a, b]`, `sust.{b,p}.geom{.cop}.vec.ctype.clamp [a, b], c`, `sured.{b,p}.op.geom.ctype.clamp [a, b], c`, `suq.query.b32 d, [a]`: `a` a `.surfref` or a 64-bit handle, `b` the `.s32`/`.u32`/`.b32` coordinates (`.1d` 1, `.2d` and `.a1d` 2, `.3d` and `.a2d` 4 elements)";

/// What an opaque operand must be.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Obj {
    Texture,
    /// A sampler: under the unified mode a `.texref` also names one.
    Sampler { unified: bool },
    /// Only a `.samplerref` (or a handle).
    SamplerOnly,
    /// A `.texref` or a `.samplerref` (or a handle).
    TexOrSampler,
    Surface,
}

impl Obj {
    fn takes(self, t: ScalarType) -> bool {
        match self {
            Obj::Texture => t == ScalarType::Texref,
            Obj::Sampler { unified } => t == ScalarType::Samplerref || (unified && t == ScalarType::Texref),
            Obj::SamplerOnly => t == ScalarType::Samplerref,
            Obj::TexOrSampler => matches!(t, ScalarType::Texref | ScalarType::Samplerref),
            Obj::Surface => t == ScalarType::Surfref,
        }
    }
    fn what(self) -> &'static str {
        match self {
            Obj::Texture => "a `.texref` variable or a `.u64` handle register",
            Obj::Sampler { unified: true } => "a sampler variable or a `.u64` handle register",
            Obj::Sampler { unified: false } | Obj::SamplerOnly => "a `.samplerref` variable or a `.u64` handle register",
            Obj::TexOrSampler => "a `.texref` or `.samplerref` variable or a `.u64` handle register",
            Obj::Surface => "a `.surfref` variable or a `.u64` handle register",
        }
    }
}

fn err(cx: &mut Ctx<'_, '_>, code: &'static str, span: Span, msg: String, label: &str, note: &str) {
    cx.emit(Diagnostic::error(code, span, msg).with_label(label.to_string()).with_note(format!("rule {code} ({note})")));
}

/// Checks an instruction of a texture or surface row; `false` for the others.
pub fn check<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, insn: &Insn) -> bool {
    let note = match insn {
        Insn::Tex { .. } | Insn::Tld4 { .. } => TEX_NOTE,
        Insn::Txq { .. } => TXQ_NOTE,
        Insn::Suld { .. } | Insn::Sust { .. } | Insn::Sured { .. } | Insn::Suq { .. } => SURF_NOTE,
        _ => return false,
    };
    // ptxas 13.5 refuses a repeated modifier of these rows ("Multiple
    // dimension modifiers specified", "Multiple clamp modifiers specified").
    let spans = ptxsim_isa::field_spans(i);
    if let Some(&(f, span)) = spans.iter().enumerate().find(|(k, (f, _))| spans[..*k].iter().any(|(g, _)| g == f)).map(|(_, x)| x) {
        err(cx, "check/modifiers", span, format!("`{}`: its {f} is written twice", opname(i)), "repeated modifier", note);
        resolve_all(cx, i);
        return true;
    }
    if let Some(m) = insn.tex_misfit() {
        let span = if m.field.is_empty() { modifier_span(i, "") } else { field_span(i, m.field).unwrap_or_else(|| modifier_span(i, "")) };
        err(cx, "check/modifiers", span, format!("`{}`: {}", opname(i), m.why), "not a form of the instruction", note);
        resolve_all(cx, i);
        return true;
    }
    // ptxas 13.5: "Feature '.b64 on sured.p' requires PTX ISA .version 8.1 or later"
    // (PTX ISA 9.7.11.3: `sured.p` on `.b64` since PTX 8.1).
    if let Insn::Sured { access: SurfAccess::P, ctype: ScalarType::B64, .. } = insn {
        let need = PtxVersion::new(8, 1);
        if !cx.version_at_least(need) {
            let span = field_span(i, "ctype").unwrap_or(i.opcode.span);
            err(cx, "check/isa-version", span, format!("`{}`: `sured.p` on `.b64` requires PTX ISA version {need} or later", opname(i)), "needs .version 8.1", "PTX ISA 9.7.11.3 sured: `.b64` with `.p` introduced in PTX ISA 8.1");
        }
    }
    // ptxas 12.9: "Feature 'tex.grad with cube geometry' requires PTX ISA
    // .version 4.3 or later" (PTX ISA 9.7.10.3 tex: `.grad` on `.cube` and
    // `.acube` since PTX 4.3).
    if let Insn::Tex { mip: Some(TexMip::Grad), geom: TexGeom::Cube | TexGeom::Acube, .. } = insn {
        let need = PtxVersion::new(4, 3);
        if !cx.version_at_least(need) {
            let span = field_span(i, "geom").unwrap_or(i.opcode.span);
            err(cx, "check/isa-version", span, format!("`{}`: `tex.grad` with a cube geometry requires PTX ISA version {need} or later", opname(i)), "needs .version 4.3", "PTX ISA 9.7.10.3 tex: `.grad` with `.cube`/`.acube` introduced in PTX ISA 4.3");
        }
    }
    let ok = match *insn {
        Insn::Tex { mip, geom, vec, dtype, ctype } => texture(cx, i, Lookup { mip, geom, vec, dtype, ctype }),
        Insn::Tld4 { geom, vec, dtype, ctype, .. } => texture(cx, i, Lookup { mip: None, geom, vec, dtype, ctype }),
        Insn::Txq { level, query, .. } => txq(cx, i, level, query),
        Insn::Suq { .. } => count(cx, i, 2, 2, note) && query_dest(cx, i) && handle_addr(cx, i, &i.operands[1], Obj::Surface, note),
        Insn::Suld { geom, vec, dtype, .. } => {
            count(cx, i, 2, 2, note) && data(cx, i, &i.operands[0], vec, dtype, Role::Dest, true) & surface(cx, i, &i.operands[1], geom)
        }
        Insn::Sust { geom, vec, ctype, .. } => {
            count(cx, i, 2, 2, note) && surface(cx, i, &i.operands[0], geom) & data(cx, i, &i.operands[1], vec, ctype, Role::Src, true)
        }
        Insn::Sured { geom, ctype, .. } => {
            count(cx, i, 2, 2, note) && surface(cx, i, &i.operands[0], geom) & data(cx, i, &i.operands[1], None, ctype, Role::Src, false)
        }
        _ => true,
    };
    if !ok {
        resolve_all(cx, i);
    }
    true
}

/// The operand count: `min..=max`; reports and returns `false` otherwise.
fn count(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, min: usize, max: usize, note: &str) -> bool {
    let n = i.operands.len();
    if (min..=max).contains(&n) {
        return true;
    }
    let want = if min == max { format!("{min}") } else { format!("{min} to {max}") };
    let span = match (i.operands.get(max), i.operands.last()) {
        (Some(first), Some(last)) => first.span.to(last.span),
        _ => i.span,
    };
    err(cx, "check/operand-count", span, format!("`{}` takes {want} operands; {n} given", opname(i)), if n > max { "unexpected operand" } else { "operands missing" }, note);
    false
}

/// The declared type of register operand `o`, if it is a register.
fn reg_ty(cx: &Ctx<'_, '_>, o: &Operand<'_>) -> Option<ScalarType> {
    let OperandKind::Name { name, component: None } = &o.kind else { return None };
    match cx.lookup(name.text) {
        Some(Sym::Var(v)) if v.space() == StateSpace::Reg => v.ty(),
        _ => None,
    }
}

/// A texture, sampler or surface operand: a variable of the opaque type,
/// or a 64-bit integer register holding a handle.
fn handle(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, o: &Operand<'_>, obj: Obj, note: &str) -> bool {
    let OperandKind::Name { name, component: None } = &o.kind else {
        err(cx, "check/operand-type", o.span, format!("`{}` expects {} here", opname(i), obj.what()), "not a texture, sampler or surface", note);
        return false;
    };
    let fits = match cx.lookup(name.text) {
        None => {
            cx.unknown(*name, "register or variable");
            return false;
        }
        Some(Sym::Var(v)) if v.space() == StateSpace::Reg => v.ty().is_some_and(|t| matches!(t, ScalarType::B64 | ScalarType::U64 | ScalarType::S64)),
        // Under the unified mode ptxas 13.5 takes any variable as the sampler.
        Some(Sym::Var(_)) if obj == (Obj::Sampler { unified: true }) => true,
        Some(Sym::Var(v)) => v.ty().is_some_and(|t| obj.takes(t)),
        Some(_) => false,
    };
    if !fits {
        err(cx, "check/operand-type", o.span, format!("`{}`: `{}` is not {}", opname(i), name.text, obj.what()), "wrong kind of operand", note);
    }
    fits
}

/// `[a]`: a handle in brackets (`txq`, `suq`).
fn handle_addr(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, o: &Operand<'_>, obj: Obj, note: &str) -> bool {
    match &o.kind {
        OperandKind::Address(a) if a.offset == 0 => match a.base {
            Some(name) => handle(cx, i, &Operand { span: name.span, kind: OperandKind::Name { name, component: None } }, obj, note),
            None => handle(cx, i, o, obj, note),
        },
        _ => {
            err(cx, "check/operand-shape", o.span, format!("`{}` takes its operand in brackets: `[a]`", opname(i)), "`[a]` expected here", note);
            false
        }
    }
}

/// A vector operand's elements, if it is one with 1, 2 or 4 of them;
/// reports a vector of another size.
fn vector<'o, 'a>(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, o: &'o Operand<'a>, note: &str) -> Result<Option<&'o [Operand<'a>]>, ()> {
    match &o.kind {
        OperandKind::Vector(v) if matches!(v.len(), 1 | 2 | 4) => Ok(Some(v)),
        OperandKind::Vector(v) => {
            err(cx, "check/operand-type", o.span, format!("`{}`: a vector has 1, 2 or 4 elements, not {}", opname(i), v.len()), "illegal vector size", note);
            Err(())
        }
        _ => Ok(None),
    }
}

/// The destination of `txq`/`suq`: a 32-bit register.
fn query_dest<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>) -> bool {
    value(cx, &i.operands[0], ScalarType::B32, Role::Dest, Size::Exact, i)
}

fn txq<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, level: bool, query: TxqQuery) -> bool {
    let n = if level { 3 } else { 2 };
    if !count(cx, i, n, n, TXQ_NOTE) {
        return false;
    }
    let obj = match (query.sampler(), cx.texmode_independent) {
        // ptxas 13.5 reads `.memory_layout` of a texture or a sampler.
        _ if query == TxqQuery::MemoryLayout => Obj::TexOrSampler,
        (false, _) => Obj::Texture,
        // ptxas 13.5 (unified mode): "Argument 1 of instruction 'txq': .samplerref expected".
        (true, _) if query == TxqQuery::ForceUnnormalizedCoords => Obj::SamplerOnly,
        (true, true) => Obj::SamplerOnly,
        (true, false) => Obj::TexOrSampler,
    };
    let mut ok = query_dest(cx, i) & handle_addr(cx, i, &i.operands[1], obj, TXQ_NOTE);
    if level {
        ok &= value(cx, &i.operands[2], ScalarType::S32, Role::Src, Size::Exact, i);
    }
    ok
}

/// The modifiers a `tex`/`tld4` operand check needs.
#[derive(Clone, Copy)]
struct Lookup {
    mip: Option<TexMip>,
    geom: TexGeom,
    vec: Option<TexVec>,
    dtype: ScalarType,
    ctype: ScalarType,
}

fn texture<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, l: Lookup) -> bool {
    let extra = match l.mip {
        Some(TexMip::Level) => 1,
        Some(TexMip::Grad) => 2,
        _ => 0,
    };
    if !count(cx, i, 2 + extra, 4 + extra, TEX_NOTE) {
        return false;
    }
    let ops = &i.operands;
    // d: the `.v4` (`.v2`) vector of the instruction type.
    let want = if l.vec == Some(TexVec::V2) { 2 } else { 4 };
    // `d|p`: `p` is the residency predicate (PTX ISA 9.7.10.3).
    let mut ok = match &ops[0].kind {
        OperandKind::Vector(v) | OperandKind::VectorPred(v, _) if v.len() == want => {
            let mut ok = true;
            for e in v {
                ok &= dest_elem(cx, i, e, l.dtype);
            }
            if let OperandKind::VectorPred(_, p) = &ops[0].kind {
                ok &= super::operand::pred_reg(cx, *p, i);
            }
            ok
        }
        _ => {
            err(cx, "check/operand-type", ops[0].span, format!("`{}` writes a vector of {want} registers", opname(i)), "result vector expected", TEX_NOTE);
            false
        }
    };
    // [a, {b,} c]
    let OperandKind::Bracket(inner) = &ops[1].kind else {
        err(cx, "check/operand-shape", ops[1].span, format!("`{}` takes `[a, c]` or `[a, b, c]`: the texture, an optional sampler and the coordinates", opname(i)), "`[a, {b,} c]` expected here", TEX_NOTE);
        return false;
    };
    if !matches!(inner.len(), 2 | 3) {
        err(cx, "check/operand-shape", ops[1].span, format!("`{}` takes `[a, c]` or `[a, b, c]`: the texture, an optional sampler and the coordinates", opname(i)), "`[a, {b,} c]` expected here", TEX_NOTE);
        return false;
    }
    ok &= handle(cx, i, &inner[0], Obj::Texture, TEX_NOTE);
    if inner.len() == 3 {
        ok &= handle(cx, i, &inner[1], Obj::Sampler { unified: !cx.texmode_independent }, TEX_NOTE);
    } else if cx.texmode_independent {
        // ptxas 13.5: "Argument 2 of instruction 'tex': .samplerref or .u64 register expected".
        err(cx, "check/operand-type", ops[1].span, format!("`{}` names its sampler under `.target texmode_independent`: `[a, b, c]`", opname(i)), "sampler missing", TEX_NOTE);
        ok = false;
    }
    ok &= coords(cx, i, &inner[inner.len() - 1], l);
    let mut k = 2;
    match l.mip {
        Some(TexMip::Level) => {
            ok &= value(cx, &ops[2], l.ctype, Role::Src, Size::Exact, i);
            k = 3;
        }
        Some(TexMip::Grad) => {
            for o in &ops[2..4] {
                // ptxas 13.5 takes gradients of any vector size for the cube geometries.
                let cube = matches!(l.geom, TexGeom::Cube | TexGeom::Acube);
                ok &= match vector(cx, i, o, TEX_NOTE) {
                    Ok(Some(v)) if cube || v.len() == l.geom.dims() => v.iter().fold(true, |ok, e| ok & value(cx, e, ScalarType::F32, Role::Src, Size::Exact, i)),
                    Ok(_) => {
                        // ptxas 13.5: "Vector expected for argument 3", "Operand vector size doesn't match geometry".
                        err(cx, "check/operand-type", o.span, format!("`{}`: a gradient is a vector of {} `.f32`", opname(i), l.geom.dims()), "gradient vector expected", TEX_NOTE);
                        false
                    }
                    Err(()) => false,
                };
            }
            k = 4;
        }
        _ => {}
    }
    // {, e} {, f}
    if let Some(e) = ops.get(k) {
        ok &= offsets(cx, i, e, l.geom);
    }
    if let Some(f) = ops.get(k + 1) {
        // ptxas 13.5: "Arguments mismatch" (a vector, or `.s32` coordinates),
        // "Illegal modifier '.3d'" (a depth compare of a 3d texture).
        let why = if matches!(f.kind, OperandKind::Vector(_)) {
            Some("the depth to compare is a scalar `.f32`".to_string())
        } else if l.ctype != ScalarType::F32 {
            Some(format!("a depth compare needs `.f32` coordinates, not `{}`", l.ctype.as_str()))
        } else if l.geom == TexGeom::D3 {
            Some(format!("`{}` takes no depth compare", l.geom.as_str()))
        } else {
            None
        };
        ok &= match why {
            Some(why) => {
                err(cx, "check/operand-type", f.span, format!("`{}`: {why}", opname(i)), "depth compare not allowed here", TEX_NOTE);
                false
            }
            None => value(cx, f, ScalarType::F32, Role::Src, Size::Exact, i),
        };
    }
    ok
}

/// One element of a `tex`/`tld4` destination: `.f32` takes any 32-bit
/// register (ptxas 13.5 accepts `.s32` ones), the others their type.
fn dest_elem<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, e: &Operand<'a>, dtype: ScalarType) -> bool {
    if dtype == ScalarType::F32 && reg_ty(cx, e) != Some(ScalarType::F32) {
        return value(cx, e, ScalarType::B32, Role::Dest, Size::Exact, i);
    }
    value(cx, e, dtype, Role::Dest, Size::Exact, i)
}

/// What kind of value a coordinate is, for ptxas's rule that the
/// coordinates of a vector are of one type.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Float,
    Int,
    Either,
}

fn kind(cx: &Ctx<'_, '_>, e: &Operand<'_>) -> Kind {
    match &e.kind {
        OperandKind::Float(_) => Kind::Float,
        OperandKind::Int(_) => Kind::Int,
        _ => match reg_ty(cx, e) {
            Some(ScalarType::F32) => Kind::Float,
            Some(ScalarType::S32 | ScalarType::U32) => Kind::Int,
            _ => Kind::Either,
        },
    }
}

/// The elements of a coordinate or offset vector of type `ty` (`.f32` or
/// `.s32`), as ptxas 13.5 types them: a register written last is of the
/// type (any 32-bit register for `.f32`), the others any 32-bit register;
/// an integer constant is not a `.f32`, nor is a vector of floating-point
/// constants alone an `.s32`; and integers and floating-point values do
/// not mix ("Vector with elements of different types are not allowed in
/// tex instruction").
fn elements<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, whole: &Operand<'a>, elems: &[Operand<'a>], ty: ScalarType, note: &str) -> bool {
    let last = elems.len().checked_sub(1).filter(|&k| matches!(elems[k].kind, OperandKind::Name { .. }));
    let regs = elems.iter().any(|e| matches!(e.kind, OperandKind::Name { .. }));
    let mut ok = true;
    for (k, e) in elems.iter().enumerate() {
        let bad_const = match &e.kind {
            OperandKind::Int(_) => ty == ScalarType::F32,
            OperandKind::Float(_) => ty != ScalarType::F32 && !regs,
            _ => false,
        };
        if bad_const {
            err(cx, "check/operand-type", e.span, format!("`{}`: a constant of the wrong kind among `{}` values", opname(i), ty.as_str()), "constant of another type", note);
            ok = false;
            continue;
        }
        let want = if Some(k) == last && ty != ScalarType::F32 { ty } else { ScalarType::B32 };
        ok &= value(cx, e, want, Role::Src, Size::Exact, i);
    }
    let kinds: Vec<Kind> = elems.iter().map(|e| kind(cx, e)).collect();
    if ok && kinds.contains(&Kind::Float) && kinds.contains(&Kind::Int) {
        err(cx, "check/operand-type", whole.span, format!("`{}`: the elements of a vector are all integers or all floating-point values", opname(i)), "elements of different types", note);
        ok = false;
    }
    ok
}

/// `c`: the coordinates of `tex`/`tld4`.
fn coords<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, c: &Operand<'a>, l: Lookup) -> bool {
    let elems = match vector(cx, i, c, TEX_NOTE) {
        Err(()) => return false,
        // A scalar: of the coordinate type (ptxas 13.5 refuses an `.s32` register for `.f32`).
        Ok(None) if !l.geom.arrayed() => return value(cx, c, l.ctype, Role::Src, Size::Exact, i),
        Ok(Some(v)) if v.len() >= l.geom.coords() => v,
        _ => {
            // ptxas 13.5: "Operand vector size doesn't match geometry for instruction 'tex'".
            let msg = format!("`{}`: the coordinates of `{}` are a vector of {} elements", opname(i), l.geom.as_str(), l.geom.coords());
            err(cx, "check/operand-type", c.span, msg, "coordinate vector size does not match the geometry", TEX_NOTE);
            return false;
        }
    };
    if l.geom.arrayed() {
        // ptxas 13.5: "Array index in the 'tex' instruction has unexpected type. Expecting type .u32".
        let index = value(cx, &elems[0], ScalarType::U32, Role::Src, Size::Exact, i);
        return index & elements(cx, i, c, &elems[1..], l.ctype, TEX_NOTE);
    }
    elements(cx, i, c, elems, l.ctype, TEX_NOTE)
}

/// `e`: the offsets, one per dimension: a scalar (any 32-bit value, as
/// ptxas 13.5 takes it), or a vector of at least that many `.s32` (none
/// for the cube geometries).
fn offsets<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, e: &Operand<'a>, geom: TexGeom) -> bool {
    match vector(cx, i, e, TEX_NOTE) {
        Err(()) => false,
        Ok(None) => value(cx, e, ScalarType::B32, Role::Src, Size::Exact, i),
        // ptxas 13.5: "Illegal modifier '.cube' for instruction 'tex'".
        Ok(Some(_)) if matches!(geom, TexGeom::Cube | TexGeom::Acube) => {
            err(cx, "check/operand-type", e.span, format!("`{}`: `{}` takes no offset vector", opname(i), geom.as_str()), "offsets not allowed here", TEX_NOTE);
            false
        }
        Ok(Some(v)) if v.len() >= geom.dims() => elements(cx, i, e, v, ScalarType::S32, TEX_NOTE),
        Ok(Some(_)) => {
            err(cx, "check/operand-type", e.span, format!("`{}`: the offsets of `{}` are a vector of {} `.s32`", opname(i), geom.as_str(), geom.dims()), "offset vector size does not match the geometry", TEX_NOTE);
            false
        }
    }
}

/// `[a, b]`: the surface and its coordinates.
fn surface<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, o: &Operand<'a>, geom: TexGeom) -> bool {
    let inner = match &o.kind {
        OperandKind::Bracket(v) if v.len() == 2 => v,
        _ => {
            err(cx, "check/operand-shape", o.span, format!("`{}` takes `[a, b]`: the surface and the coordinates", opname(i)), "`[a, b]` expected here", SURF_NOTE);
            resolve_operand(cx, o);
            return false;
        }
    };
    let mut ok = handle(cx, i, &inner[0], Obj::Surface, SURF_NOTE);
    ok &= match vector(cx, i, &inner[1], SURF_NOTE) {
        Err(()) => false,
        Ok(None) => value(cx, &inner[1], ScalarType::S32, Role::Src, Size::Exact, i),
        Ok(Some(v)) if v.len() >= geom.coords() => v.iter().fold(true, |ok, x| ok & value(cx, x, ScalarType::S32, Role::Src, Size::Exact, i)),
        Ok(Some(_)) => {
            // ptxas 13.5: "Operand vector size doesn't match geometry for instruction 'sust.b'".
            let msg = format!("`{}`: the coordinates of `{}` are a vector of {} elements", opname(i), geom.as_str(), geom.coords());
            err(cx, "check/operand-type", inner[1].span, msg, "coordinate vector size does not match the geometry", SURF_NOTE);
            false
        }
    };
    ok
}

/// The data of `suld` (written) or `sust`/`sured` (read): a register at
/// least as wide as the type, or with `.v2`/`.v4` a vector of that many
/// (without one ptxas 13.5 also takes a vector of 1, 2 or 4 for `suld`
/// and `sust`); no floating-point constant.
fn data<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, o: &Operand<'a>, vec: Option<TexVec>, ty: ScalarType, role: Role, vectors: bool) -> bool {
    let want = match vec {
        Some(TexVec::V2) => 2,
        Some(TexVec::V4) => 4,
        None => 1,
    };
    let elem = |cx: &mut Ctx<'_, 'a>, x: &Operand<'a>| {
        if matches!(x.kind, OperandKind::Float(_)) {
            err(cx, "check/operand-type", x.span, format!("`{}` takes no floating-point constant", opname(i)), "floating-point constant", SURF_NOTE);
            return false;
        }
        value(cx, x, ty, role, Size::AtLeast, i)
    };
    match &o.kind {
        OperandKind::Vector(v) if (v.len() == want && want > 1) || (want == 1 && vectors && matches!(v.len(), 1 | 2 | 4)) => {
            v.iter().fold(true, |ok, x| ok & elem(cx, x))
        }
        OperandKind::Vector(_) => {
            let msg = if want == 1 { format!("`{}` takes a scalar here", opname(i)) } else { format!("`{}` takes a vector of {want} here", opname(i)) };
            err(cx, "check/operand-type", o.span, msg, "vector size mismatch", SURF_NOTE);
            false
        }
        _ if want > 1 => {
            err(cx, "check/operand-type", o.span, format!("`{}` takes a vector of {want} here", opname(i)), "vector expected", SURF_NOTE);
            false
        }
        _ => elem(cx, o),
    }
}

#[cfg(test)]
mod tests {
    /// The code of the first error `ptxsim check` reports for `body` in a
    /// kernel on sm_90a (`mode`: the texture mode of `.target`), or `None`
    /// where it checks clean.
    fn first_error(mode: &str, body: &str) -> Option<String> {
        let (target, sampler) = if mode.is_empty() { (String::new(), "") } else { (format!(", {mode}"), ".global .samplerref sr;\n") };
        let src = format!(
            ".version 8.8\n.target sm_90a{target}\n.address_size 64\n.global .texref tr;\n.global .surfref su;\n{sampler}.visible .entry k(.param .u64 pt)\n{{\n\
             .reg .s32 %s<9>;\n.reg .u32 %u<9>;\n.reg .f32 %f<9>;\n.reg .b16 %h<9>;\n.reg .b32 %r<9>;\n.reg .b64 %rd<9>;\n.reg .pred %p<3>;\n{body}\nret;\n}}\n"
        );
        crate::testing::first_error(&src)
    }

    fn is(body: &str, want: Option<&str>) {
        assert_eq!(first_error("", body).as_deref(), want, "{body}");
    }

    const MODS: Option<&str> = Some("check/modifiers");
    const TYPE: Option<&str> = Some("check/operand-type");
    const COUNT: Option<&str> = Some("check/operand-count");

    /// ptxas 13.5 (`-arch=sm_90a`, unified texture mode) verdicts on `tex`
    /// and `tld4`, its message quoted for each refusal.
    /// ptxas 13.5 (`-arch=sm_90`) on a residency predicate after the
    /// destination vector (`d|p`, PTX ISA 9.7.10.3-4).
    #[test]
    fn a_residency_predicate_follows_the_destination() {
        is("tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}|%p1, [tr, {%f5, %f6}];", None);
        is("tld4.r.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}|%p1, [tr, {%f5, %f6}];", None);
        is("tex.2d.v4.f32.f32 {%f1, _, %f3, %f4}|%p1, [tr, {%f5, %f6}];", None);
        // "Predicate output expected for instruction 'tex'".
        is("tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}|%r1, [tr, {%f5, %f6}];", Some("check/pred-int"));
        // "Predicate output not allowed for instruction 'add'".
        assert!(first_error("", "add.f32 {%f1, %f2}|%p1, %f3, %f4;").is_some());
    }

    #[test]
    fn texture_lookups_as_ptxas_judges_them() {
        let v4 = "{%f1, %f2, %f3, %f4}";
        is(&format!("tex.2d.v4.f32.f32 {v4}, [tr, {{%f5, %f6}}];"), None);
        is(&format!("tex.1d.v4.f32.s32 {v4}, [tr, %s5];"), None);
        is(&format!("tex.a1d.v4.f32.f32 {v4}, [%rd1, {{%u5, %f6}}];"), None);
        is(&format!("tex.acube.v4.f32.f32 {v4}, [tr, {{%u5, %f6, %f7, %f8}}];"), None);
        is(&format!("tex.a2dms.v4.f32.s32 {v4}, [tr, {{%u5, %s6, %s7, %s8}}];"), None);
        is("tex.2d.v4.s32.f32 {%u1, %u2, %u3, %u4}, [tr, {%f5, %f6}];", None);
        is("tex.2d.v2.f16x2.f32 {%r1, %r2}, [tr, {%f5, %f6}];", None);
        is("tex.2d.v4.f16.f32 {%h1, %h2, %h3, %h4}, [tr, {%f5, %f6}];", None);
        is(&format!("tex.level.2d.v4.f32.f32 {v4}, [tr, {{%f5, %f6}}], %f7, {{%s1, %s2}}, %f8;"), None);
        is(&format!("tex.grad.2d.v4.f32.f32 {v4}, [tr, {{%f5, %f6}}], {{%f1, %f2}}, {{%f3, %f4}};"), None);
        // The sampler of the unified mode: any variable or a 64-bit register.
        is(&format!("tex.2d.v4.f32.f32 {v4}, [tr, %rd2, {{%f5, %f6}}];"), None);
        is(&format!("tld4.r.2d.v4.f32.f32 {v4}, [tr, {{%f5, %f6}}], {{%s1, %s2}}, %f7;"), None);
        is("tld4.a.cube.v4.u32.f32 {%u1, %u2, %u3, %u4}, [tr, {%f5, %f6, %f7, %f8}];", None);
        // "Instruction 'tex.f32' requires .v4 type".
        is("tex.2d.f32.f32 %f1, [tr, {%f5, %f6}];", MODS);
        // "Illegal modifier 'Multi-sample geometry' for instruction 'tex.level'".
        is(&format!("tex.level.2dms.v4.f32.s32 {v4}, [tr, {{%u5, %s6, %s7, %s8}}], %s7;"), MODS);
        // "Floating-point coordinates required".
        is(&format!("tex.cube.v4.f32.s32 {v4}, [tr, {{%s5, %s6, %s7, %s8}}];"), MODS);
        // "Multiple dimension modifiers specified".
        is(&format!("tex.2d.2d.v4.f32.f32 {v4}, [tr, {{%f5, %f6}}];"), MODS);
        // "Illegal modifier '.1d' for instruction 'tld4'"; "Component modifier required".
        is(&format!("tld4.r.1d.v4.f32.f32 {v4}, [tr, {{%f5}}];"), MODS);
        is(&format!("tld4.2d.v4.f32.f32 {v4}, [tr, {{%f5, %f6}}];"), MODS);
        // "Operand vector size doesn't match geometry for instruction 'tex'".
        is(&format!("tex.3d.v4.f32.f32 {v4}, [tr, {{%f5, %f6}}];"), TYPE);
        // "Illegal vector size: 3".
        is(&format!("tex.3d.v4.f32.f32 {v4}, [tr, {{%f5, %f6, %f7}}];"), TYPE);
        // "Array index in the 'tex' instruction has unexpected type. Expecting type .u32".
        is(&format!("tex.a1d.v4.f32.f32 {v4}, [tr, {{%f5, %f6}}];"), TYPE);
        // "Vector with elements of different types are not allowed in tex instruction".
        is(&format!("tex.2d.v4.f32.f32 {v4}, [tr, {{%f5, %s6}}];"), TYPE);
        // "Arguments mismatch for instruction 'tex'" (`.s32` coordinates in `.f32` registers; a 64-bit destination).
        is(&format!("tex.2d.v4.f32.s32 {v4}, [tr, {{%f5, %f6}}];"), TYPE);
        is("tex.2d.v4.f32.f32 {%rd1, %rd2, %rd3, %rd4}, [tr, {%f5, %f6}];", TYPE);
        // "Result vector expected"; "Argument vector size mismatch for instruction 'tex'".
        is("tex.2d.v4.f32.f32 %f1, [tr, {%f5, %f6}];", TYPE);
        is("tex.2d.v4.f32.f32 {%f1, %f2}, [tr, {%f5, %f6}];", TYPE);
        // "Argument 1 of instruction 'tex': .texref or .u64 register expected".
        is(&format!("tex.2d.v4.f32.f32 {v4}, [su, {{%f5, %f6}}];"), TYPE);
        is(&format!("tex.2d.v4.f32.f32 {v4}, [pt, {{%f5, %f6}}];"), TYPE);
        // "Vector expected for argument 3" (a gradient); "Illegal modifier '.cube'" (offsets of a cube).
        is(&format!("tex.grad.1d.v4.f32.f32 {v4}, [tr, {{%f5}}], %f1, %f3;"), TYPE);
        is(&format!("tex.cube.v4.f32.f32 {v4}, [tr, {{%f5, %f6, %f7, %f8}}], {{%s1, %s2, %s3, %s4}};"), TYPE);
        // "Illegal modifier '.3d' for instruction 'tex'" (a depth compare); "Arguments mismatch" (`.s32` coordinates).
        is(&format!("tex.3d.v4.f32.f32 {v4}, [tr, {{%f5, %f6, %f7, %f8}}], %s1, %f7;"), TYPE);
        is(&format!("tex.2d.v4.f32.s32 {v4}, [tr, {{%s5, %s6}}], %s1, %f7;"), TYPE);
        // "Arguments mismatch for instruction 'tex.level'" (no `lod`).
        is(&format!("tex.level.2d.v4.f32.f32 {v4}, [tr, {{%f5, %f6}}];"), COUNT);
    }

    /// The texture mode decides what names a sampler (ptxas 13.5).
    #[test]
    fn independent_mode_needs_a_sampler() {
        let v4 = "{%f1, %f2, %f3, %f4}";
        let ind = |b: &str| first_error("texmode_independent", b);
        assert_eq!(ind(&format!("tex.2d.v4.f32.f32 {v4}, [tr, sr, {{%f5, %f6}}];")), None);
        assert_eq!(ind("txq.filter_mode.b32 %r1, [sr];"), None);
        // "Argument 2 of instruction 'tex': .samplerref or .u64 register expected".
        assert_eq!(ind(&format!("tex.2d.v4.f32.f32 {v4}, [tr, {{%f5, %f6}}];")).as_deref(), TYPE);
        assert_eq!(ind(&format!("tex.2d.v4.f32.f32 {v4}, [tr, tr, {{%f5, %f6}}];")).as_deref(), TYPE);
        // "Argument 1 of instruction 'txq': .samplerref or .u64 register expected".
        assert_eq!(ind("txq.filter_mode.b32 %r1, [tr];").as_deref(), TYPE);
        // "Argument 1 of instruction 'txq': .texref or .u64 register expected".
        assert_eq!(ind("txq.width.b32 %r1, [sr];").as_deref(), TYPE);
        // The unified mode reads a sampler's attributes from the texture, but
        // `.force_unnormalized_coords` only from a sampler: "Argument 1 of
        // instruction 'txq': .samplerref expected".
        is("txq.filter_mode.b32 %r1, [tr];", None);
        is("txq.force_unnormalized_coords.b32 %r1, [tr];", TYPE);
        is("txq.force_unnormalized_coords.b32 %r1, [%rd1];", None);
    }

    /// ptxas 13.5 (`-arch=sm_90a`) verdicts on `txq` and `suq`.
    #[test]
    fn queries_as_ptxas_judges_them() {
        is("txq.width.b32 %r1, [tr];", None);
        is("txq.level.depth.b32 %r1, [tr], %r2;", None);
        is("txq.num_samples.b32 %f1, [%rd1];", None);
        is("suq.memory_layout.b32 %r1, [su];", None);
        // "Illegal query modifier for instruction 'txq.level'"; "Unknown modifier '.samp_pos'".
        is("txq.level.array_size.b32 %r1, [tr], %r2;", MODS);
        is("txq.samp_pos.b32 %r1, [tr];", MODS);
        // "Unexpected instruction types specified for 'txq'"; "Multiple query modifiers specified".
        is("txq.width.u32 %r1, [tr];", MODS);
        is("txq.width.width.b32 %r1, [tr];", MODS);
        // "Arguments mismatch for instruction 'txq'" (a 64-bit destination; a 32-bit handle).
        is("txq.width.b32 %rd1, [tr];", TYPE);
        is("txq.width.b32 %r1, [%r1];", TYPE);
        // "Address expected for argument 1 of instruction 'txq'".
        is("txq.width.b32 %r1, tr;", Some("check/operand-shape"));
        // "Arguments mismatch for instruction 'txq.level'" (no `lod`).
        is("txq.level.width.b32 %r1, [tr];", COUNT);
        // "Illegal query modifier for instruction 'suq'"; "Argument 1 of instruction 'suq': .surfref or .u64 register expected".
        is("suq.num_samples.b32 %r1, [su];", MODS);
        is("suq.width.b32 %r1, [tr];", TYPE);
    }

    /// ptxas 13.5 (`-arch=sm_90a`) verdicts on `suld`, `sust` and `sured`.
    #[test]
    fn surface_accesses_as_ptxas_judges_them() {
        is("suld.b.2d.v2.b32.clamp {%r1, %r2}, [su, {%s1, %s2}];", None);
        is("suld.b.a2d.cv.b8.zero %h1, [%rd1, {%s1, %s2, %s3, %s4}];", None);
        // A wider destination, and a vector without `.v2` (ptxas 13.5 takes both).
        is("suld.b.1d.b32.trap %rd1, [su, {%s1}];", None);
        is("suld.b.1d.b32.trap {%r1, %r2}, [su, %s1];", None);
        is("sust.b.3d.wt.v4.b16.trap [su, {%s1, %s2, %s3, %s4}], {%r1, %r2, %r3, %r4};", None);
        is("sust.p.a1d.b32.clamp [su, {%s1, %s2}], %f1;", None);
        is("sured.b.max.2d.s32.zero [su, {%s1, %s2}], %s3;", None);
        is("sured.p.min.1d.b64.trap [su, {%s1}], %rd1;", None);
        // "Clamp modifier required for instruction 'suld.b'"; "Not a name of any known instruction: 'suld.p'".
        is("suld.b.1d.b32 %r1, [su, {%s1}];", MODS);
        is("suld.p.1d.b32.trap %r1, [su, {%s1}];", MODS);
        // "Illegal modifier '.wb' for instruction 'suld.b'"; "Illegal modifier '.cube' for instruction 'suld.b'".
        is("suld.b.1d.wb.b32.trap %r1, [su, {%s1}];", MODS);
        is("suld.b.cube.b32.trap %r1, [su, {%s1, %s2, %s3, %s4}];", MODS);
        // "Vector type too large, exceeds 128 bit limit".
        is("suld.b.1d.v4.b64.zero {%rd1, %rd2, %rd3, %rd4}, [su, {%s1}];", MODS);
        // "Unexpected instruction types specified for 'sust.p'".
        is("sust.p.1d.b64.trap [su, {%s1}], %rd1;", MODS);
        // "Incorrect type '.b32' for operation '.add' in instruction 'sured.b'"; "... '.a1d' for instruction 'sured.b'".
        is("sured.b.add.1d.b32.trap [su, {%s1}], %r1;", MODS);
        is("sured.b.add.a1d.u32.trap [su, {%s1, %s2}], %u1;", MODS);
        // "Multiple instruction post-operation flags set".
        is("sured.b.add.add.1d.u32.trap [su, {%s1}], %u1;", MODS);
        // "Arguments mismatch for instruction 'suld.b'" (float coordinates; a narrower destination).
        is("suld.b.1d.b32.trap %r1, [su, {%f1}];", TYPE);
        is("suld.b.1d.b32.trap %h1, [su, {%s1}];", TYPE);
        // "Argument 1 of instruction 'suld.b': .surfref or .u64 register expected".
        is("suld.b.1d.b32.trap %r1, [tr, {%s1}];", TYPE);
        // "Operand vector size doesn't match geometry for instruction 'sust.b'".
        is("sust.b.2d.b32.trap [su, {%s1}], %r1;", TYPE);
        // "Arguments mismatch for instruction 'sust.b'" (a narrower source, a floating-point constant).
        is("sust.b.1d.b64.trap [su, {%s1}], %r1;", TYPE);
        is("sust.p.1d.b32.trap [su, {%s1}], 1.0;", TYPE);
        // "Vector operand is not allowed for instruction 'sured.b'".
        is("sured.b.add.1d.u32.trap [su, {%s1}], {%u1};", TYPE);
    }

    /// "Feature '.b64 on sured.p' requires PTX ISA .version 8.1 or later" (ptxas 13.5).
    #[test]
    fn sured_p_on_b64_needs_ptx_8_1() {
        let check = |version: &str| {
            let src = format!(".version {version}\n.target sm_90a\n.address_size 64\n.global .surfref su;\n.visible .entry k()\n{{\n.reg .s32 %s<2>;\n.reg .b64 %rd<2>;\nsured.p.min.1d.b64.trap [su, {{%s1}}], %rd1;\nret;\n}}\n");
            let parsed = ptxsim_syntax::parse(&src);
            crate::check_module(&parsed.module).into_iter().find(|d| d.is_error()).map(|d| d.code.to_string())
        };
        assert_eq!(check("8.0").as_deref(), Some("check/isa-version"));
        assert_eq!(check("8.1"), None);
    }
}

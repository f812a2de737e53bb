//! Decoding one function body: scoped declarations (registers, frame
//! `.local`/`.param` variables, function-scope `.shared`), and every
//! instruction into an [`Op`] with register slots and immediates.
//!
//! An instruction form this engine does not run becomes
//! [`Op::Unsupported`] with a message naming it, so that loading a module
//! never fails because of one kernel's instruction: only running it does.

use super::{fty, ity, type_bytes, var_size, ModuleDecoder, Sym, MAX_FRAME_BYTES, MAX_REGS, MAX_SHARED_BYTES};
use ptxsim_sem::alu::{FBinOp, FTy, FUnOp, IBinOp, Rounding};
use crate::program::{CONST_WINDOW, FUNC_BASE, FUNC_STRIDE, SHARED_WINDOW};
use crate::program::*;
use ptxsim_analysis::FlatFunction;
use ptxsim_syntax::cexpr::{self, CVal};
use ptxsim_syntax::ast::{self, Expr, FloatLit, Operand, OperandKind, ScalarType, StateSpace, Statement};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

mod arith;
mod bits;
mod compare;
mod control;
mod ext;
mod atomic;
mod fp8;
mod hopper;
mod video;
mod wmma;
mod route;
mod scope;
mod tensor;
mod typed;
mod warp;

pub(crate) use route::DecodeError;
pub use route::decodes_opcode;
use route::{route, Ins, Route};
use scope::Scope;

type R<T> = Result<T, DecodeError>;

#[derive(Clone, Copy)]
enum ImmKind {
    Int(u32),
    Float(FTy),
}

pub(crate) struct FuncDecoder<'d, 's, 'f, 'a, 'x> {
    m: &'d ModuleDecoder<'s, 'f, 'a>,
    id: FuncId,
    is_kernel: bool,
    /// Block scopes, innermost last. Interior mutability: a register of a
    /// `%r<N>` range gets its slot when an operand first names it.
    scopes: RefCell<Vec<Scope>>,
    nregs: Cell<u64>,
    npreds: Cell<u64>,
    /// A register named past [`MAX_REGS`] slots (reported by `sizes`).
    overflow: Cell<bool>,
    frame: u64,
    shared_cursor: &'x mut u64,
    code: Vec<Instr>,
    scratch: Option<u32>,
    /// The hidden predicate slot holding CC.CF, once an instruction uses it.
    carry: Option<u32>,
    labels: HashMap<String, u32>,
    branch_targets: HashMap<String, Vec<String>>,
    call_targets: HashMap<String, Vec<String>>,
    prototypes: HashMap<String, Signature>,
    /// The accumulator registers of the function's `wgmma.mma_async`s
    /// decoded so far (`instr/hopper.rs` guards the reads of them).
    acc: Vec<u32>,
}

impl<'d, 's, 'f, 'a, 'x> FuncDecoder<'d, 's, 'f, 'a, 'x> {
    pub fn new(m: &'d ModuleDecoder<'s, 'f, 'a>, id: FuncId, is_kernel: bool, shared_cursor: &'x mut u64) -> Self {
        FuncDecoder {
            m,
            id,
            is_kernel,
            scopes: RefCell::new(vec![Scope::default()]),
            nregs: Cell::new(0),
            npreds: Cell::new(0),
            overflow: Cell::new(false),
            frame: 0,
            shared_cursor,
            code: Vec::new(),
            scratch: None,
            carry: None,
            labels: HashMap::new(),
            branch_targets: HashMap::new(),
            call_targets: HashMap::new(),
            prototypes: HashMap::new(),

            acc: Vec::new(),        }
    }

    pub fn set_flat(&mut self, flat: &FlatFunction<'_, '_>) {
        self.labels = flat.labels.iter().map(|(k, v)| (k.to_string(), *v as u32)).collect();
        self.branch_targets =
            flat.branch_targets.iter().map(|(k, v)| (k.to_string(), v.iter().map(|n| n.text.to_string()).collect())).collect();
        self.call_targets =
            flat.call_targets.iter().map(|(k, v)| (k.to_string(), v.iter().map(|n| n.text.to_string()).collect())).collect();
        for (k, (rets, params)) in &flat.prototypes {
            let sz = |p: &ast::Param<'_>| {
                var_size(&p.ty.value, p.vector.map(|x| x.value), &p.dims, None).unwrap_or(0).max(type_bytes(&p.ty.value)) as u32
            };
            let sig = Signature {
                rets: rets.map(|r| r.iter().map(sz).collect()).unwrap_or_default(),
                params: params.iter().map(sz).collect(),
            };
            self.prototypes.insert(k.to_string(), sig);
        }
    }

    pub fn take_code(&mut self) -> Vec<Instr> {
        std::mem::take(&mut self.code)
    }

    fn new_frame(&mut self, size: u64, align: u64) -> R<u32> {
        let align = align.clamp(1, 256);
        let off = self.frame.div_ceil(align) * align;
        self.frame = off + size;
        if self.frame > MAX_FRAME_BYTES {
            return Err(DecodeError::Limit(format!("more than {MAX_FRAME_BYTES} bytes of local/param storage in one function")));
        }
        Ok(off as u32)
    }

    pub fn declare_formal(&mut self, p: &ast::Param<'_>, size: u32, align: u32) -> R<Formal> {
        match p.space.value {
            StateSpace::Reg => {
                let Some(s) = p.ty.value.scalar() else { return Err("opaque register parameter".into()) };
                if s == ScalarType::Pred {
                    return Err("predicate parameters are not supported yet".into());
                }
                let Sym::Reg { slot, .. } = self.new_reg()? else { unreachable!() };
                self.scope_insert(p.name.text, Sym::Reg { slot });
                Ok(Formal::Reg { slot, size })
            }
            _ => {
                let off = self.new_frame(size as u64, align as u64)?;
                self.scope_insert(p.name.text, Sym::FrameParam(off, size));
                Ok(Formal::Param { offset: off, size })
            }
        }
    }

    pub fn walk_block(&mut self, b: &ast::Block<'_>) -> R<()> {
        for s in &b.stmts {
            match s {
                Statement::Instr(i) => {
                    let line = self.m.line(i.span);
                    let guard = match &i.guard {
                        None => None,
                        Some(g) => match self.lookup(g.pred.text) {
                            Some(Sym::Pred(slot)) => Some(Guard { slot, neg: g.negated }),
                            _ => {
                                self.code.push(Instr {
                                    op: Op::Unsupported(format!("guard `{}` is not a predicate register", g.pred.text)),
                                    guard: None,
                                    line,
                                    span: (i.span.start, i.span.end),
                                });
                                continue;
                            }
                        },
                    };
                    let op = match self.instr(i) {
                        Ok(op) => self.guard_acc(i, op),
                        Err(e) => Op::Unsupported(e.to_string()),
                    };
                    self.code.push(Instr { op, guard, line, span: (i.span.start, i.span.end) });
                }
                Statement::Var(v) => self.declare_var(v)?,
                Statement::Block(inner) => {
                    self.scopes.get_mut().push(Scope::default());
                    let r = self.walk_block(inner);
                    self.scopes.get_mut().pop();
                    r?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn declare_var(&mut self, v: &ast::VarDecl<'_>) -> R<()> {
        let elem = type_bytes(&v.ty.value) * v.vector.map(|x| x.value as u64).unwrap_or(1);
        let align = v.align.map(|a| a.value).unwrap_or(elem.max(1));
        for decl in &v.declarators {
            let line = self.m.line(decl.span);
            match v.space.value {
                StateSpace::Reg => {
                    if v.vector.is_some() {
                        continue; // vector registers: uses decode to `unsupported`
                    }
                    let Some(s) = v.ty.value.scalar() else { continue };
                    let pred = s == ScalarType::Pred;
                    match decl.count {
                        // A range: its registers get slots as the body
                        // names them, so the cost follows the registers
                        // used, never the declared count.
                        Some(c) => {
                            if let Some(sc) = self.scopes.get_mut().last_mut() {
                                sc.ranges.insert(decl.name.text.to_string(), (pred, c.value));
                            }
                        }
                        None => {
                            let sym = self.slot(pred).ok_or_else(|| DecodeError::Limit(format!("line {line}: more than {MAX_REGS} registers in one function")))?;
                            self.scope_insert(decl.name.text, sym);
                        }
                    }
                }
                StateSpace::Local | StateSpace::Param => {
                    let size = var_size(&v.ty.value, v.vector.map(|x| x.value), &decl.dims, None)
                        .map_err(|e| format!("line {line}: {e}"))?;
                    let off = self.new_frame(size, align).map_err(|e| format!("line {line}: {e}"))?;
                    let sym = if v.space.value == StateSpace::Local { Sym::Local(off) } else { Sym::FrameParam(off, size as u32) };
                    self.scope_insert(decl.name.text, sym);
                }
                StateSpace::Shared => {
                    let size = var_size(&v.ty.value, v.vector.map(|x| x.value), &decl.dims, None)
                        .map_err(|e| format!("line {line}: {e}"))?;
                    let align = align.clamp(1, 4096);
                    let off = self.shared_cursor.div_ceil(align) * align;
                    if off + size > MAX_SHARED_BYTES {
                        return Err(DecodeError::Limit(format!("line {line}: .shared space exceeds {MAX_SHARED_BYTES} bytes")));
                    }
                    *self.shared_cursor = off + size;
                    self.scope_insert(decl.name.text, Sym::Shared(off));
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn scratch(&mut self) -> R<u32> {
        if let Some(s) = self.scratch {
            return Ok(s);
        }
        let Sym::Reg { slot, .. } = self.new_reg()? else { unreachable!() };
        self.scratch = Some(slot);
        Ok(slot)
    }

    // ---- operands ----

    fn sreg(name: &str, comp: Option<&str>) -> Option<Sreg> {
        let c = comp.map(|c| c.trim_start_matches('.'));
        let dim = |c: Option<&str>| -> Option<u8> {
            match c {
                Some("x") => Some(0),
                Some("y") => Some(1),
                Some("z") => Some(2),
                _ => None,
            }
        };
        Some(match name {
            "%tid" => Sreg::Tid(dim(c)?),
            "%ntid" => Sreg::Ntid(dim(c)?),
            "%ctaid" => Sreg::Ctaid(dim(c)?),
            "%nctaid" => Sreg::Nctaid(dim(c)?),
            "%clusterid" => Sreg::ClusterId(dim(c)?),
            "%nclusterid" => Sreg::NClusterId(dim(c)?),
            "%cluster_ctaid" => Sreg::ClusterCtaId(dim(c)?),
            "%cluster_nctaid" => Sreg::ClusterNCtaId(dim(c)?),
            _ if c.is_some() => return None,
            "%laneid" => Sreg::LaneId,
            "%warpid" => Sreg::WarpId,
            "%nwarpid" => Sreg::NWarpId,
            "%smid" => Sreg::SmId,
            "%nsmid" => Sreg::NSmId,
            "%gridid" => Sreg::GridId,
            "%clock" => Sreg::Clock,
            "%clock64" => Sreg::Clock64,
            "%globaltimer" => Sreg::GlobalTimer,
            "%lanemask_eq" => Sreg::LaneMaskEq,
            "%lanemask_le" => Sreg::LaneMaskLe,
            "%lanemask_lt" => Sreg::LaneMaskLt,
            "%lanemask_ge" => Sreg::LaneMaskGe,
            "%lanemask_gt" => Sreg::LaneMaskGt,
            "%cluster_ctarank" => Sreg::ClusterCtaRank,
            "%cluster_nctarank" => Sreg::ClusterNCtaRank,
            "%is_explicit_cluster" => Sreg::IsExplicitCluster,
            "%dynamic_smem_size" => Sreg::DynamicSmemSize,
            "%total_smem_size" => Sreg::TotalSmemSize,
            "%envreg1" => Sreg::EnvReg(1),
            "%envreg2" => Sreg::EnvReg(2),
            _ => return None,
        })
    }

    fn sym_src(&self, name: &str, s: Sym) -> R<Src> {
        Ok(match s {
            Sym::Reg { slot, .. } => Src::Reg(slot),
            Sym::Pred(_) => return Err(format!("predicate `{name}` used as a value").into()),
            Sym::Global(a) => Src::Imm(a),
            Sym::Shared(o) | Sym::Const(o) => Src::Imm(o),
            Sym::Func(id) => Src::Imm(FUNC_BASE + FUNC_STRIDE * id as u64),
            Sym::Local(o) | Sym::FrameParam(o, _) => Src::LocalAddr(o),
            Sym::KernelParam(o) => Src::Imm(o as u64),
        })
    }

    fn imm_float(f: FloatLit, k: ImmKind) -> u64 {
        match k {
            ImmKind::Float(t) => match (t, f) {
                (FTy::F32, FloatLit::F32Bits(b)) => b as u64,
                (FTy::F64, FloatLit::F64Bits(b)) => b,
                (t, f) => t.from_f64(f.as_f64()),
            },
            ImmKind::Int(bits) => {
                let v = match f {
                    FloatLit::F32Bits(b) => b as u64,
                    FloatLit::F64Bits(b) => b,
                    FloatLit::Decimal(d) => {
                        if bits == 64 {
                            d.to_bits()
                        } else {
                            (d as f32).to_bits() as u64
                        }
                    }
                };
                mask_bits(v, bits)
            }
        }
    }

    fn src(&mut self, o: &Operand<'_>, k: ImmKind) -> R<Src> {
        match &o.kind {
            OperandKind::Name { name, component } => {
                if let Some(s) = Self::sreg(name.text, component.map(|c| c.text)) {
                    return Ok(Src::Sreg(s));
                }
                if component.is_some() {
                    return Err(format!("vector component of `{}` is not supported yet", name.text).into());
                }
                match self.lookup(name.text) {
                    Some(s) => self.sym_src(name.text, s),
                    None => Err(format!("unknown operand `{}`", name.text).into()),
                }
            }
            OperandKind::Int(i) => Ok(Src::Imm(match k {
                ImmKind::Int(bits) => mask_bits(i.value, bits),
                ImmKind::Float(t) => t.from_f64(if i.unsigned { i.value as f64 } else { i.value as i64 as f64 }),
            })),
            OperandKind::Float(f) => Ok(Src::Imm(Self::imm_float(*f, k))),
            OperandKind::Expr(e) => self.expr_src(e, k),
            _ => Err("unexpected operand form".into()),
        }
    }

    fn expr_src(&self, e: &Expr<'_>, k: ImmKind) -> R<Src> {
        // `sym+k` where sym is frame-local.
        if let Expr::Binary(op @ (ast::BinOp::Add | ast::BinOp::Sub), a, b, _) = e {
            if let Expr::Name(n) = &**a {
                if let Some(Sym::Local(o) | Sym::FrameParam(o, _)) = self.lookup(n.text) {
                    let off = self.m.const_expr(b, false)? as i64;
                    let off = if *op == ast::BinOp::Sub { -off } else { off };
                    let v = o as i64 + off;
                    return u32::try_from(v).map(Src::LocalAddr).map_err(|_| "local offset out of range".into());
                }
            }
        }
        Ok(Src::Imm(match (self.eval(e)?, k) {
            (CVal::Int { value, .. }, ImmKind::Int(bits)) => mask_bits(value, bits),
            (CVal::Int { value, unsigned }, ImmKind::Float(t)) => {
                t.from_f64(if unsigned { value as f64 } else { value as i64 as f64 })
            }
            (CVal::Float(f), k) => Self::imm_float(FloatLit::F64Bits(f.to_bits()), k),
        }))
    }

    /// Constant expression, with function-scope symbols visible, by the rules
    /// of [`ptxsim_syntax::cexpr`].
    fn eval(&self, e: &Expr<'_>) -> R<CVal> {
        let v = cexpr::eval_with(e, &mut |x| {
            let a = match x {
                Expr::Name(n) => match self.lookup(n.text) {
                    Some(Sym::Global(a)) => a,
                    Some(Sym::Shared(o) | Sym::Const(o)) => o,
                    Some(Sym::Func(id)) => FUNC_BASE + FUNC_STRIDE * id as u64,
                    Some(Sym::KernelParam(o)) => o as u64,
                    _ => return Err(format!("`{}` is not a constant", n.text)),
                },
                Expr::Generic(n, _) => match self.lookup(n.text) {
                    Some(Sym::Global(a)) => a,
                    Some(Sym::Shared(o)) => SHARED_WINDOW + o,
                    Some(Sym::Const(o)) => CONST_WINDOW + o,
                    _ => return Err(format!("`generic({})` is not supported", n.text)),
                },
                _ => return Err("not a constant".to_string()),
            };
            Ok(CVal::int(a, false))
        });
        v.map_err(|e| e.message().into())
    }

    fn dst(&mut self, o: &Operand<'_>) -> R<u32> {
        match &o.kind {
            OperandKind::Sink => self.scratch(),
            OperandKind::Name { name, component: None } => match self.lookup(name.text) {
                Some(Sym::Reg { slot, .. }) => Ok(slot),
                _ => Err(format!("destination `{}` is not a register", name.text).into()),
            },
            _ => Err("unexpected destination form".into()),
        }
    }

    fn pdst(&self, o: &Operand<'_>) -> R<Option<u32>> {
        match &o.kind {
            OperandKind::Sink => Ok(None),
            OperandKind::Name { name, component: None } => match self.lookup(name.text) {
                Some(Sym::Pred(s)) => Ok(Some(s)),
                _ => Err(format!("`{}` is not a predicate register", name.text).into()),
            },
            _ => Err("unexpected predicate destination".into()),
        }
    }

    fn psrc(&self, o: &Operand<'_>) -> R<PSrc> {
        match &o.kind {
            OperandKind::Name { name, component: None } => match self.lookup(name.text) {
                Some(Sym::Pred(slot)) => Ok(PSrc::Reg { slot, neg: false }),
                _ => Err(format!("`{}` is not a predicate register", name.text).into()),
            },
            OperandKind::Not(name) => match self.lookup(name.text) {
                Some(Sym::Pred(slot)) => Ok(PSrc::Reg { slot, neg: true }),
                _ => Err(format!("`{}` is not a predicate register", name.text).into()),
            },
            OperandKind::Int(i) => Ok(PSrc::Const(i.value != 0)),
            _ => Err("unexpected predicate operand".into()),
        }
    }

    fn addr(&self, o: &Operand<'_>, space: Space) -> R<(Space, Addr)> {
        let OperandKind::Address(a) = &o.kind else { return Err("expected an address `[...]`".into()) };
        let off = a.offset;
        let Some(base) = a.base else { return Ok((space, Addr { base: AddrBase::None, offset: off })) };
        let sym = self.lookup(base.text).ok_or_else(|| DecodeError::from(format!("unknown address base `{}`", base.text)))?;
        let abs = |v: u64| Addr { base: AddrBase::None, offset: (v as i64).wrapping_add(off) };
        Ok(match (sym, space) {
            (Sym::Reg { slot, .. }, Space::FrameParam) => {
                if self.is_kernel {
                    (Space::KernelParam, Addr { base: AddrBase::Reg(slot), offset: off })
                } else {
                    (Space::Local, Addr { base: AddrBase::Reg(slot), offset: off })
                }
            }
            (Sym::Reg { slot, .. }, sp) => (sp, Addr { base: AddrBase::Reg(slot), offset: off }),
            (Sym::Global(g), Space::Global | Space::Generic) => (space, abs(g)),
            (Sym::Shared(s), Space::Shared | Space::SharedCta) => (space, abs(s)),
            (Sym::Shared(s), Space::Generic) => (space, abs(SHARED_WINDOW + s)),
            (Sym::Const(c), Space::Const) => (space, abs(c)),
            (Sym::Const(c), Space::Generic) => (space, abs(CONST_WINDOW + c)),
            (Sym::Local(l), Space::Local | Space::Generic) => (Space::Local, Addr { base: AddrBase::Frame, offset: l as i64 + off }),
            (Sym::FrameParam(p, _), Space::FrameParam | Space::Generic | Space::Local) => {
                (Space::FrameParam, Addr { base: AddrBase::Frame, offset: p as i64 + off })
            }
            (Sym::KernelParam(p), Space::FrameParam | Space::KernelParam) => (Space::KernelParam, abs(p as u64)),
            _ => return Err(format!("`{}` is not addressable in this state space", base.text).into()),
        })
    }

    fn label(&self, o: &Operand<'_>) -> R<u32> {
        match &o.kind {
            OperandKind::Name { name, component: None } => {
                self.labels.get(name.text).copied().ok_or_else(|| format!("unknown label `{}`", name.text).into())
            }
            _ => Err("expected a label".into()),
        }
    }

    fn func_of(&self, name: &str) -> R<FuncId> {
        match self.lookup(name) {
            Some(Sym::Func(f)) => Ok(f),
            _ => Err(format!("`{name}` is not a function").into()),
        }
    }

    fn call_arg(&mut self, o: &Operand<'_>) -> R<CallArg> {
        match &o.kind {
            OperandKind::Name { name, component: None } => match self.lookup(name.text) {
                Some(Sym::Reg { slot, .. }) => Ok(CallArg::Reg(slot)),
                Some(Sym::FrameParam(offset, size)) => Ok(CallArg::Param { offset, size }),
                Some(s) => match self.sym_src(name.text, s)? {
                    Src::Imm(v) => Ok(CallArg::Imm(v)),
                    _ => Err(format!("call argument `{}` is not supported yet", name.text).into()),
                },
                None => Err(format!("unknown call argument `{}`", name.text).into()),
            },
            OperandKind::Int(i) => Ok(CallArg::Imm(i.value)),
            OperandKind::Float(f) => Ok(CallArg::Imm(match f {
                FloatLit::F32Bits(b) => *b as u64,
                FloatLit::F64Bits(b) => *b,
                FloatLit::Decimal(d) => d.to_bits(),
            })),
            OperandKind::Sink => Ok(CallArg::Reg(self.scratch()?)),
            _ => Err("unexpected call argument form".into()),
        }
    }

    // ---- instructions ----

    fn instr(&mut self, i: &ast::Instruction<'_>) -> R<Op> {
        let x = Ins::new(i);
        let has = |m: &str| x.has(m);
        match route(x.opc, &has).ok_or_else(|| x.no_decoder())? {
            Route::Ext(r) => self.ext_instr(r, i).map_err(DecodeError::from_message),
            Route::Tensor(r) => self.tensor_instr(r, i),
            Route::Mov => self.mov_pack(&x),
            Route::Binary => self.binary(&x),
            Route::Unary => self.unary(&x),
            Route::Ternary => self.ternary(&x),
            Route::SelectConvert => self.select_convert(&x),
            Route::Memory => self.memory(&x),
            Route::Fence => Ok(Op::Fence),
            Route::Typed => self.typed(i),
        }
    }

    /// Decodes moves, packs and unpacks (`mov`).
    fn mov_pack(&mut self, x: &Ins<'_>) -> R<Op> {
        let Ins { opc, ops, last_ty, .. } = *x;
        let unsupported = || x.unsupported();
        let need = |k: usize| x.need(k);
        match opc {
            "mov" => {
                need(2)?;
                let t = last_ty.ok_or_else(unsupported)?;
                if t == ScalarType::Pred {
                    let d = self.pdst(&ops[0])?.ok_or("sink destination")?;
                    if let OperandKind::Name { name, component: None } = &ops[1].kind {
                        if name.text == "%is_explicit_cluster" {
                            // The one `.pred` special register: its value
                            // (1 or 0) compared with 0.
                            let a = self.src(&ops[1], ImmKind::Int(32))?;
                            let ty = ITyOrF::I(ptxsim_sem::alu::ITy { bits: 32, signed: false });
                            return Ok(Op::Setp { cmp: ptxsim_sem::alu::CmpOp::Ne, ty, ftz: false, p: Some(d), q: None, a, b: Src::Imm(0), comb: None, k: Kern::NONE });
                        }
                    }
                    let a = self.psrc(&ops[1])?;
                    return Ok(Op::PredLogic { op: PredOp::Mov, d, a, b: PSrc::Const(false) });
                }
                let bits = t.bits();
                if let OperandKind::Vector(parts) = &ops[1].kind {
                    let d = self.dst(&ops[0])?;
                    let pb = bits / parts.len().max(1) as u32;
                    let mut srcs = Vec::new();
                    for p in parts {
                        srcs.push(self.src(p, ImmKind::Int(pb))?);
                    }
                    return Ok(Op::Pack { d, parts: srcs, part_bits: pb });
                }
                if let OperandKind::Vector(parts) = &ops[0].kind {
                    let pb = bits / parts.len().max(1) as u32;
                    let mut ds = Vec::new();
                    for p in parts {
                        ds.push(if matches!(p.kind, OperandKind::Sink) { None } else { Some(self.dst(p)?) });
                    }
                    let a = self.src(&ops[1], ImmKind::Int(bits))?;
                    return Ok(Op::Unpack { ds, a, part_bits: pb });
                }
                let d = self.dst(&ops[0])?;
                let k = match fty(t) {
                    Some(f) => ImmKind::Float(f),
                    None => ImmKind::Int(bits),
                };
                let a = self.src(&ops[1], k)?;
                Ok(Op::Mov { d, a, bits })
            }
            _ => Err(unsupported()),
        }
    }

    /// Decodes `div` (the other two-source arithmetic rows are typed).
    fn binary(&mut self, x: &Ins<'_>) -> R<Op> {
        let Ins { opc, ops, last_ty, ftz, sat, .. } = *x;
        let rounding = &x.rounding;
        let has = |m: &str| x.has(m);
        let unsupported = || x.unsupported();
        if opc != "div" {
            return Err(unsupported());
        }
        x.need(3)?;
        let t = last_ty.ok_or_else(unsupported)?;
        if x.relu || has(".cc") || has(".NaN") || has(".xorsign") || has(".abs") {
            return Err(unsupported());
        }
        if let Some(f) = fty(t) {
            let directed = rounding.iter().any(|r| *r != Rounding::Rn);
            if directed && !matches!(f, FTy::F32 | FTy::F64) {
                return Err(unsupported());
            }
            // `div.approx.f32` has its own result for huge divisors.
            let op = if x.approx && f == FTy::F32 { FBinOp::DivApprox } else { FBinOp::Div };
            let d = self.dst(&ops[0])?;
            let a = self.src(&ops[1], ImmKind::Float(f))?;
            let b = self.src(&ops[2], ImmKind::Float(f))?;
            return Ok(Op::FBin { op, ty: f, ftz, sat, rnd: rounding.first().copied(), d, a, b, k: Kern::NONE });
        }
        let ty = ity(t).ok_or_else(unsupported)?;
        if x.n != 3 || sat {
            return Err(unsupported());
        }
        let d = self.dst(&ops[0])?;
        let a = self.src(&ops[1], ImmKind::Int(ty.bits))?;
        let b = self.src(&ops[2], ImmKind::Int(ty.bits))?;
        Ok(Op::IBin { op: IBinOp::Div, ty, d, a, b, k: Kern::NONE })
    }

    /// Decodes one-operand float arithmetic (`sqrt` ... `tanh`).
    fn unary(&mut self, x: &Ins<'_>) -> R<Op> {
        let Ins { opc, ops, last_ty, ftz, .. } = *x;
        let rounding = &x.rounding;
        let unsupported = || x.unsupported();
        let need = |k: usize| x.need(k);
        match opc {
            "sqrt" | "rcp" | "rsqrt" | "sin" | "cos" | "lg2" | "ex2" | "tanh" => {
                need(2)?;
                let t = last_ty.ok_or_else(unsupported)?;
                if let Some(f) = fty(t) {
                    let op = match opc {
                        "sqrt" => FUnOp::Sqrt,
                        "rcp" => FUnOp::Rcp,
                        "rsqrt" => FUnOp::Rsqrt,
                        "sin" => FUnOp::Sin,
                        "cos" => FUnOp::Cos,
                        "lg2" => FUnOp::Lg2,
                        "ex2" => FUnOp::Ex2,
                        "tanh" => FUnOp::Tanh,
                        _ => return Err(unsupported()),
                    };
                    // Exactly rounded ops need .rn; approximate ones
                    // are computed exactly rounded, within every bound of the manual.
                    if rounding.iter().any(|r| *r != Rounding::Rn) && (!matches!(op, FUnOp::Sqrt | FUnOp::Rcp) || !matches!(f, FTy::F32 | FTy::F64)) {
                        return Err(unsupported());
                    }
                    // `.ftz` on `.f64` is `rcp.approx.ftz.f64` (and
                    // `rsqrt`); `rcp.rnd.ftz.f64`, which ptxas takes, is not
                    // in the manual: not run as the approximation.
                    if f == FTy::F64 && ftz && !rounding.is_empty() {
                        return Err(unsupported());
                    }
                    if matches!(op, FUnOp::Rsqrt | FUnOp::Sin | FUnOp::Cos | FUnOp::Lg2 | FUnOp::Ex2 | FUnOp::Tanh)
                        && f != FTy::F32
                        && !(op == FUnOp::Rsqrt && f == FTy::F64)
                    {
                        return Err(unsupported());
                    }
                    let d = self.dst(&ops[0])?;
                    let a = self.src(&ops[1], ImmKind::Float(f))?;
                    return Ok(Op::FUn { op, ty: f, ftz, rnd: rounding.first().copied(), d, a, k: Kern::NONE });
                }
                Err(unsupported())
            }
            _ => Err(unsupported()),
        }
    }

    /// Decodes `mad` and `fma`.
    fn ternary(&mut self, x: &Ins<'_>) -> R<Op> {
        let Ins { opc, ops, last_ty, ftz, sat, .. } = *x;
        let rounding = &x.rounding;
        let has = |m: &str| x.has(m);
        let unsupported = || x.unsupported();
        let need = |k: usize| x.need(k);
        match opc {
            "mad" | "fma" => {
                need(4)?;
                let t = last_ty.ok_or_else(unsupported)?;
                if let Some(f) = fty(t) {
                    // `fma.rn{.ftz}.relu.{f16,bf16}` (no `.sat`).
                    // `.oob` (a result of +0 where an operand is the
                    // tensor out-of-bounds NaN) is not run: the manual does
                    // not give that NaN's bits, so it stays unsupported below.
                    if x.relu && opc == "fma" && matches!(f, FTy::F16 | FTy::BF16) && !sat && has(".rn") && !x.oob {
                        let k = ImmKind::Int(16);
                        let d = self.dst(&ops[0])?;
                        let (a, b, c) = (self.src(&ops[1], k)?, self.src(&ops[2], k)?, self.src(&ops[3], k)?);
                        return Ok(Op::FmaRelu { ty: f, ftz, d, a, b, c });
                    }
                    let directed = rounding.iter().any(|r| *r != Rounding::Rn);
                    if directed && !matches!(f, FTy::F32 | FTy::F64) || x.relu || x.oob {
                        return Err(unsupported());
                    }
                    if opc == "mad" && rounding.is_empty() && f == FTy::F64 {
                        return Err(unsupported());
                    }
                    let d = self.dst(&ops[0])?;
                    let a = self.src(&ops[1], ImmKind::Float(f))?;
                    let b = self.src(&ops[2], ImmKind::Float(f))?;
                    let c = self.src(&ops[3], ImmKind::Float(f))?;
                    return Ok(Op::Fma { ty: f, ftz, sat, rnd: rounding.first().copied(), d, a, b, c, k: Kern::NONE });
                }
                let ty = ity(t).ok_or_else(unsupported)?;
                if opc == "fma" || has(".cc") || (sat && !(has(".hi") && ty.signed && ty.bits == 32)) {
                    return Err(unsupported());
                }
                let wide = has(".wide");
                let hi = has(".hi");
                let d = self.dst(&ops[0])?;
                let a = self.src(&ops[1], ImmKind::Int(ty.bits))?;
                let b = self.src(&ops[2], ImmKind::Int(ty.bits))?;
                let c = self.src(&ops[3], ImmKind::Int(if wide { ty.bits * 2 } else { ty.bits }))?;
                Ok(Op::Mad { hi, wide, sat, ty, d, a, b, c, k: Kern::NONE })
            }
            _ => Err(unsupported()),
        }
    }

    /// Decodes `selp`, `slct`, `cvt` and `cvta`.
    fn select_convert(&mut self, x: &Ins<'_>) -> R<Op> {
        let Ins { opc, ops, last_ty, ftz, sat, .. } = *x;
        let (types, rounding) = (&x.types, &x.rounding);
        let has = |m: &str| x.has(m);
        let unsupported = || x.unsupported();
        let need = |k: usize| x.need(k);
        match opc {
            "cvt" => {
                need(2)?;
                // `cvt.rna{.satfinite}.tf32.f32` (sm_80): the other `.tf32`
                // roundings (sm_90, sm_100) are not decoded yet.
                if types.first() == Some(&ScalarType::Tf32) {
                    let forms = [".rna", ".satfinite", ".tf32", ".f32"];
                    if types.len() != 2 || types[1] != ScalarType::F32 || !has(".rna") || !x.mods.iter().all(|m| forms.contains(m)) {
                        return Err(unsupported());
                    }
                    let d = self.dst(&ops[0])?;
                    let a = self.src(&ops[1], ImmKind::Float(FTy::F32))?;
                    return Ok(Op::CvtTf32 { satfinite: has(".satfinite"), d, a });
                }
                if types.len() != 2 || x.relu || has(".satfinite") {
                    return Err(unsupported());
                }
                let conv = |s: ScalarType| -> Option<CvtTy> {
                    if let Some(f) = fty(s) {
                        Some(CvtTy::F(f))
                    } else {
                        ity(s).map(CvtTy::I)
                    }
                };
                let (Some(dt), Some(st)) = (conv(types[0]), conv(types[1])) else { return Err(unsupported()) };
                let rnd = rounding.first().copied();
                // Directed rounding into a float narrower than its source: not yet.
                if let (CvtTy::F(df), Some(r)) = (dt, rnd) {
                    let narrowing = match st {
                        CvtTy::F(sf) => sf.bits() > df.bits(),
                        CvtTy::I(_) => true,
                    };
                    let same = matches!(st, CvtTy::F(sf) if sf == df);
                    let soft = matches!(df, FTy::F32 | FTy::F64)
                        && matches!(r, Rounding::Rz | Rounding::Rm | Rounding::Rp)
                        && match st {
                            CvtTy::I(_) => true,
                            CvtTy::F(sf) => sf == FTy::F64 && df == FTy::F32,
                        }
                        // `cvt.{rz,rm,rp}.{f16,bf16}.*` (ptxsim_sem::cvt).
                        || matches!(df, FTy::F16 | FTy::BF16) && matches!(r, Rounding::Rz | Rounding::Rm | Rounding::Rp);
                    if !same && narrowing && r != Rounding::Rn && !soft {
                        return Err(unsupported());
                    }
                }
                let d = self.dst(&ops[0])?;
                let a = match st {
                    CvtTy::F(f) => self.src(&ops[1], ImmKind::Float(f))?,
                    CvtTy::I(t) => self.src(&ops[1], ImmKind::Int(t.bits))?,
                };
                Ok(Op::Cvt { dst: dt, src: st, rnd, sat, ftz, d, a, k: Kern::NONE })
            }
            "cvta" => {
                need(2)?;
                let to = has(".to");
                let space = if has(".global") {
                    Space::Global
                } else if has(".shared") || has(".shared::cta") || has(".shared::cluster") {
                    // A `.shared::cluster` address is an offset in the
                    // shared window too (`lanemem::RANK_SHIFT`).
                    Space::Shared
                } else if has(".local") {
                    Space::Local
                } else if has(".const") {
                    Space::Const
                } else if has(".param") || has(".param::entry") {
                    Space::KernelParam
                } else {
                    return Err(unsupported());
                };
                let bits = last_ty.map(|t| t.bits()).unwrap_or(64);
                let d = self.dst(&ops[0])?;
                let a = self.src(&ops[1], ImmKind::Int(bits))?;
                Ok(Op::Cvta { to, space, bits, d, a })
            }
            _ => Err(unsupported()),
        }
    }

    /// Decodes loads, stores and atomics.
    fn memory(&mut self, x: &Ins<'_>) -> R<Op> {
        let Ins { opc, ops, last_ty, .. } = *x;
        let mods = &x.mods;
        let has = |m: &str| x.has(m);
        let unsupported = || x.unsupported();
        let need = |k: usize| x.need(k);
        match opc {
            "ld" | "ldu" | "st" => {
                need(2)?;
                let space = ld_space(mods).ok_or_else(unsupported)?;
                let t = last_ty.ok_or_else(unsupported)?;
                let size = (t.bits() / 8).max(1);
                if t.bits() > 64 || t == ScalarType::Pred || has(".v8") {
                    return Err(unsupported());
                }
                let (regs_op, addr_op) = if opc == "st" { (&ops[1], &ops[0]) } else { (&ops[0], &ops[1]) };
                let (space, addr) = self.addr(addr_op, space)?;
                if opc == "st" {
                    let k = match fty(t) {
                        Some(f) => ImmKind::Float(f),
                        None => ImmKind::Int(t.bits()),
                    };
                    let srcs = match &regs_op.kind {
                        OperandKind::Vector(v) => {
                            let mut s = Vec::new();
                            for p in v {
                                s.push(self.src(p, k)?);
                            }
                            s
                        }
                        _ => vec![self.src(regs_op, k)?],
                    };
                    Ok(Op::St { space, size, srcs, addr })
                } else {
                    let ds = match &regs_op.kind {
                        OperandKind::Vector(v) => {
                            let mut s = Vec::new();
                            for p in v {
                                s.push(if matches!(p.kind, OperandKind::Sink) { None } else { Some(self.dst(p)?) });
                            }
                            s
                        }
                        _ => vec![Some(self.dst(regs_op)?)],
                    };
                    let signed = ity(t).map(|x| x.signed).unwrap_or(false);
                    Ok(Op::Ld { space, size, signed, ds, addr })
                }
            }
            "atom" | "red" => self.atom(x),
            _ => Err(unsupported()),
        }
    }

    /// The predicate destinations `p` or `p|q` (`_` for none).
    fn pred_pair(&mut self, o: &Operand<'_>) -> R<(Option<u32>, Option<u32>)> {
        Ok(match &o.kind {
            OperandKind::PredPair(p, q) => {
                let pp = match self.lookup(p.text) {
                    Some(Sym::Pred(s)) => Some(s),
                    _ if p.text == "_" => None,
                    _ => return Err(format!("`{}` is not a predicate register", p.text).into()),
                };
                let qq = match self.lookup(q.text) {
                    Some(Sym::Pred(s)) => Some(s),
                    _ if q.text == "_" => None,
                    _ => return Err(format!("`{}` is not a predicate register", q.text).into()),
                };
                (pp, qq)
            }
            _ => (self.pdst(o)?, None),
        })
    }
}

fn mask_bits(v: u64, bits: u32) -> u64 {
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

fn ld_space(mods: &[&str]) -> Option<Space> {
    for m in mods {
        match *m {
            ".global" => return Some(Space::Global),
            ".shared" | ".shared::cta" => return Some(Space::SharedCta),
            ".local" => return Some(Space::Local),
            ".const" => return Some(Space::Const),
            ".param" | ".param::entry" | ".param::func" => return Some(Space::FrameParam),
            // A `.shared::cluster` address names the CTA it lies in
            // (`lanemem::RANK_SHIFT`); one of this CTA's is its own.
            ".shared::cluster" => return Some(Space::Shared),
            _ => {}
        }
    }
    Some(Space::Generic)
}

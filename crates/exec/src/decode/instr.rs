//! Decoding one function body: scoped declarations (registers, frame
//! `.local`/`.param` variables, function-scope `.shared`), and every
//! instruction into an [`Op`] with register slots and immediates.
//!
//! An instruction form this engine does not run becomes
//! [`Op::Unsupported`] with a message naming it, so that loading a module
//! never fails because of one kernel's instruction: only running it does.

use super::{fty, ity, type_bytes, var_size, ModuleDecoder, Sym, MAX_FRAME_BYTES, MAX_REGS, MAX_SHARED_BYTES};
use ptxsim_sem::alu::FTy;
use crate::program::{CONST_WINDOW, FUNC_BASE, FUNC_STRIDE, SHARED_WINDOW};
use crate::program::*;
use ptxsim_analysis::FlatFunction;
use ptxsim_syntax::cexpr::{self, CVal};
use ptxsim_syntax::ast::{self, Expr, FloatLit, Operand, OperandKind, ScalarType, StateSpace, Statement};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

mod acopy;
mod arith;
mod bits;
mod compare;
mod control;
mod convert;
mod fma;
mod math;
mod atomic;
mod hopper;
mod mem;
mod mbar;
mod video;
mod wmma;
mod route;
mod scope;
mod tensor;
mod typed;
mod warp;

pub(crate) use route::DecodeError;
pub use route::decodes_opcode;
use route::{decodes, Ins};
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
    /// The labels of each `{}` block (its enclosing block, its labels);
    /// block 0 is the body (`FlatFunction::scopes`).
    label_scopes: Vec<(Option<u32>, HashMap<String, u32>)>,
    /// The block of each instruction (`FlatFunction::instr_scope`).
    instr_scope: Vec<u32>,
    branch_targets: HashMap<String, Vec<String>>,
    call_targets: HashMap<String, Vec<String>>,
    prototypes: HashMap<String, Signature>,
    /// The accumulator registers of the function's `wgmma.mma_async`s
    /// decoded so far (`instr/hopper.rs` guards the reads of them).
    acc: Vec<u32>,
    /// The module-scope `.shared` variables (offsets) the body names.
    used_shared: RefCell<Vec<u64>>,
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
            label_scopes: Vec::new(),
            instr_scope: Vec::new(),
            branch_targets: HashMap::new(),
            call_targets: HashMap::new(),
            prototypes: HashMap::new(),

            acc: Vec::new(),
            used_shared: RefCell::new(Vec::new()),
        }
    }

    /// The offsets of the module-scope `.shared` variables the body named.
    pub fn used_shared(&self) -> Vec<u64> {
        let mut v = self.used_shared.take();
        v.sort_unstable();
        v.dedup();
        v
    }

    pub fn set_flat(&mut self, flat: &FlatFunction<'_, '_>) {
        self.label_scopes = flat.scopes.iter().map(|s| (s.parent, s.labels.iter().map(|(k, v)| (k.to_string(), *v as u32)).collect())).collect();
        self.instr_scope = flat.instr_scope.clone();
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
            "%clock_hi" => Sreg::ClockHi,
            "%globaltimer" => Sreg::GlobalTimer,
            "%globaltimer_lo" => Sreg::GlobalTimerLo,
            "%globaltimer_hi" => Sreg::GlobalTimerHi,
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
            "%aggr_smem_size" => Sreg::AggrSmemSize,
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
                // The fourth element of the `.v4 .u32` special registers is
                // unused and always reads zero (PTX ISA 10, `%tid`, `%ntid`,
                // `%ctaid`, `%nctaid` and the cluster ones).
                let v4 = ["%tid", "%ntid", "%ctaid", "%nctaid", "%clusterid", "%nclusterid", "%cluster_ctaid", "%cluster_nctaid"];
                if component.is_some_and(|c| c.text.trim_start_matches('.') == "w") && v4.contains(&name.text) {
                    return Ok(Src::Imm(0));
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
            OperandKind::Expr(e) => match cexpr::check(e) {
                Ok(Some(CVal::Int { value, .. })) => Ok(PSrc::Const(value != 0)),
                _ => Err("unexpected predicate operand".into()),
            },
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

    /// The label `name` as the instruction being decoded (the next one of
    /// `code`) sees it: in its block or the nearest enclosing one that has it
    /// (as `FlatFunction::label_at` resolves it for the analyses).
    fn find_label(&self, name: &str) -> Option<u32> {
        let mut scope = self.instr_scope.get(self.code.len()).copied();
        while let Some(s) = scope {
            let (parent, labels) = self.label_scopes.get(s as usize)?;
            if let Some(&t) = labels.get(name) {
                return Some(t);
            }
            scope = *parent;
        }
        None
    }

    fn label(&self, o: &Operand<'_>) -> R<u32> {
        match &o.kind {
            OperandKind::Name { name, component: None } => {
                self.find_label(name.text).ok_or_else(|| format!("unknown label `{}`", name.text).into())
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
        if !decodes(x.opc, &has) {
            return Err(x.no_decoder());
        }
        self.typed(i)
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

/// The instruction as written, without operands (its name in messages).
fn full(i: &ast::Instruction<'_>) -> String {
    let mut s = i.opcode.text.to_string();
    for m in &i.modifiers {
        s.push_str(m.text);
    }
    s
}

/// The error of a form the decoder does not run, named as written.
fn unsupported(i: &ast::Instruction<'_>) -> DecodeError {
    DecodeError::Unsupported(full(i))
}

/// The operands of a vector operand `{a, b, ...}` (or a single operand).
fn elems<'o>(o: &'o Operand<'o>) -> &'o [Operand<'o>] {
    match &o.kind {
        OperandKind::Vector(v) => v,
        _ => std::slice::from_ref(o),
    }
}

fn mask_bits(v: u64, bits: u32) -> u64 {
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

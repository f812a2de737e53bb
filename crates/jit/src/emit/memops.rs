//! The IR of loads, stores and the other operations the memory helper
//! runs (`mem.rs`): a call per warp instruction, handed back at its pc
//! when the helper refuses it; before the call, the inline paths of a
//! dense warp's global access ([`inline_mem`]) and of a fixed `ld.param`.

use super::*;

/// Whether the global load or store `op` may run inline on a dense warp
/// (see [`Em::mem_insn`]): one 4-byte value per lane in a `Narrow`
/// register or one 8-byte value in a `Wide` one, at a register address.
/// Only on x86-64, whose plain loads and stores are the acquire loads and
/// release stores the data path makes.
pub fn inline_mem(op: &Op, p: &Plan) -> bool {
    if !cfg!(target_arch = "x86_64") {
        return false;
    }
    let fits = |size: u32, r: u32| matches!((size, p.regs.get(&r)), (4, Some(Class::Narrow)) | (8, Some(Class::Wide)));
    let at_reg = |a: &ptxsim_exec::program::Addr| matches!(a.base, AddrBase::Reg(r) if p.regs.get(&r) == Some(&Class::Wide));
    match op {
        Op::Ld { space: Space::Global | Space::Generic, size, signed: false, ds, addr } => at_reg(addr) && matches!(ds[..], [Some(d)] if fits(*size, d)),
        Op::St { space: Space::Global | Space::Generic, size, srcs, addr } => at_reg(addr) && matches!(srcs[..], [Src::Reg(r)] if fits(*size, r)),
        _ => false,
    }
}

impl Em<'_, '_, '_> {
    /// A dense warp's global load or store without the helper: when all
    /// 32 lanes run it (`m`), no `cp.async` copy is pending, lane `l`'s
    /// address is lane 0's plus `l` times the size, naturally aligned,
    /// and the 32 values lie in the allocation cached in the op's slot
    /// (`Layout::mcache`; the helper fills it), the values move between
    /// the allocation's words and the packed register as 16-byte vectors
    /// (what `mem::exec` does for such a warp, word by word), and the code
    /// goes on at `cont`. Otherwise it goes on in a new block, where the
    /// caller emits the helper's call.
    fn dense_inline(&mut self, op: &MemOp, m: Value, cont: ir::Block) {
        let (Some(slot), Some(boff), Some((_, roff, doff))) = (op.slot, op.base, op.reg) else { return };
        let fl = self.vflags;
        let sz = op.size as u64;
        let b0 = self.b.ins().load(I64, fl, self.base, boff as i32);
        let sb = self.b.ins().splat(I64X2, b0);
        let mut acc: Option<Value> = None;
        for k in 0..16u64 {
            let v = self.b.ins().load(I64X2, fl, self.base, (boff + 16 * k as u32) as i32);
            let c = self.i64x2_const([2 * k * sz, (2 * k + 1) * sz]);
            let e = self.b.ins().iadd(sb, c);
            let d = self.b.ins().bxor(v, e);
            acc = Some(match acc {
                Some(a) => self.b.ins().bor(a, d),
                None => d,
            });
        }
        let scattered = self.b.ins().vany_true(acc.expect("16 vectors"));
        let a0 = self.b.ins().iadd_imm_s(b0, op.offset);
        let lo = self.b.ins().load(I64, fl, self.base, slot as i32);
        let n = self.b.ins().load(I64, fl, self.base, slot as i32 + 8);
        let delta = self.b.ins().load(I64, fl, self.base, slot as i32 + 16);
        let t = self.b.ins().isub(a0, lo);
        let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, t, n);
        let mis = self.b.ins().band_imm_u(a0, (sz - 1) as i64);
        let aligned = self.b.ins().icmp_imm_u(IntCC::Equal, mis, 0);
        let all = self.b.ins().icmp_imm_s(IntCC::Equal, m, -1);
        let ready = self.b.ins().load(I32, fl, self.st, ST_MEM_READY);
        let ready = self.b.ins().icmp_imm_u(IntCC::NotEqual, ready, 0);
        let dense = self.b.ins().icmp_imm_u(IntCC::Equal, scattered, 0);
        let ok = self.b.ins().band(inside, aligned);
        let ok = self.b.ins().band(ok, all);
        let ok = self.b.ins().band(ok, ready);
        let ok = self.b.ins().band(ok, dense);
        let (fast, slow) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(ok, fast, &[], slow, &[]);
        self.b.switch_to_block(fast);
        let host = self.b.ins().iadd(a0, delta);
        // The allocation's words (checked above: inside it).
        let hf = MemFlagsData::new().with_endianness(Endianness::Little).with_notrap();
        for j in 0..(2 * sz as u32) {
            if op.store {
                let v = self.b.ins().load(I64X2, fl, self.base, (roff + 16 * j) as i32);
                self.b.ins().store(hf, v, host, (16 * j) as i32);
            } else {
                let v = self.b.ins().load(I64X2, hf, host, (16 * j) as i32);
                self.b.ins().store(fl, v, self.base, (roff + 16 * j) as i32);
            }
        }
        if op.store {
            let n = self.b.ins().load(I64, fl, self.st, ST_STORES);
            let n = self.b.ins().iadd_imm_s(n, 1);
            self.b.ins().store(fl, n, self.st, ST_STORES);
        } else {
            let all = self.iconst32(u32::MAX);
            self.b.ins().store(fl, all, self.base, doff as i32);
        }
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(slow);
    }

    /// A kernel parameter at a fixed address, read in all 32 lanes
    /// without the helper: one read of the parameter buffer
    /// (`St::kp`) when it holds the value, its value in every lane (as
    /// `mem::exec` does); then the code goes on at `cont`. Otherwise it
    /// goes on in a new block, where the caller emits the helper's call.
    fn param_inline(&mut self, op: &MemOp, m: Value, cont: ir::Block) {
        let Some((class, roff, doff)) = op.reg else { return };
        let (size, off) = (op.size as i64, op.offset);
        if off < 0 || off % size != 0 || off > i32::MAX as i64 - 8 || !matches!(size, 1 | 2 | 4 | 8) {
            return;
        }
        let fl = self.vflags;
        let kl = self.b.ins().load(I64, fl, self.st, ST_KP_LEN);
        let holds = self.b.ins().icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, kl, off + size);
        let all = self.b.ins().icmp_imm_s(IntCC::Equal, m, -1);
        let ok = self.b.ins().band(holds, all);
        let (fast, slow) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(ok, fast, &[], slow, &[]);
        self.b.switch_to_block(fast);
        let kp = self.b.ins().load(I64, fl, self.st, ST_KP);
        let hf = MemFlagsData::new().with_endianness(Endianness::Little).with_notrap();
        let ty = match size {
            1 => ir::types::I8,
            2 => ir::types::I16,
            4 => I32,
            _ => I64,
        };
        let v = self.b.ins().load(ty, hf, kp, off as i32);
        let v = match (ty == I64, op.signed) {
            (true, _) => v,
            (false, true) => self.b.ins().sextend(I64, v),
            (false, false) => self.b.ins().uextend(I64, v),
        };
        let w = match class {
            Class::Narrow => {
                let lo = self.b.ins().band_imm_u(v, 0xffff_ffff);
                let hi = self.b.ins().ishl_imm_u(v, 32);
                self.b.ins().bor(lo, hi)
            }
            Class::Wide => v,
        };
        let sw = self.b.ins().splat(I64X2, w);
        let n = if class == Class::Narrow { 8 } else { 16 };
        for j in 0..n {
            self.b.ins().store(fl, sw, self.base, (roff + 16 * j) as i32);
        }
        let all = self.iconst32(u32::MAX);
        self.b.ins().store(fl, all, self.base, doff as i32);
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(slow);
    }

    /// Load or store `pc` (of a block whose data instructions end at
    /// `data_end`), for the whole warp: a call into the memory helper,
    /// and when it hands the instruction back, the exit at `pc` with the
    /// fuel of `pc..data_end` returned.
    pub(super) fn mem_insn(&mut self, f: &Function, pc: u32, data_end: u32) {
        let ins = &f.code[pc as usize];
        let m = match ins.guard {
            None => self.gmask,
            Some(g) => {
                let p = self.pred_val(g.slot);
                if g.neg {
                    self.b.ins().band_not(self.gmask, p)
                } else {
                    self.b.ins().band(self.gmask, p)
                }
            }
        };
        let reg = |e: &Self, r: u32| {
            let (c, off, doff) = e.regs[&r];
            (c, off, doff)
        };
        let base = |a: &ptxsim_exec::program::Addr, e: &Self| match a.base {
            AddrBase::Reg(r) => Some(e.regs[&r].1),
            _ => None,
        };
        let narrow_base = |a: &ptxsim_exec::program::Addr, e: &Self| matches!(a.base, AddrBase::Reg(r) if e.regs[&r].0 == Class::Narrow);
        let op = match &ins.op {
            Op::Ld { space, size, signed, ds, addr } => MemOp {
                store: false,
                space: *space,
                size: *size,
                signed: *signed,
                base: base(addr, self),
                offset: addr.offset,
                reg: ds.first().copied().flatten().map(|d| reg(self, d)),
                imm: 0,
                alu: None,
                slot: None,
                shfl: None,
                narrow_base: narrow_base(addr, self),
                table: None,
            },
            Op::St { space, size, srcs, addr } => {
                let (r, imm) = match srcs.first() {
                    Some(Src::Reg(r)) => (Some(reg(self, *r)), 0),
                    Some(Src::Imm(v)) => (None, *v),
                    _ => unreachable!("the plan compiles stores of registers and immediates"),
                };
                MemOp { store: true, space: *space, size: *size, signed: false, base: base(addr, self), offset: addr.offset, reg: r, imm, alu: None, slot: None, shfl: None, narrow_base: narrow_base(addr, self), table: None }
            }
            Op::FUn { op, ty, ftz, rnd, d, a, .. } => {
                let a = match a {
                    Src::Reg(r) => Ok((self.regs[r].0, self.regs[r].1)),
                    Src::Imm(v) => Err(*v),
                    _ => unreachable!("the plan runs float operations of registers and immediates"),
                };
                let alu = crate::mem::Alu { op: *op, ty: *ty, ftz: *ftz, rnd: *rnd, a };
                MemOp { store: false, space: Space::Global, size: 0, signed: false, base: None, offset: 0, reg: Some(reg(self, *d)), imm: 0, alu: Some(alu), slot: None, shfl: None, narrow_base: false, table: None }
            }
            Op::Shfl { mode, d, p, a, b, c, .. } => {
                let opnd = |x: &Src, e: &Self| match x {
                    Src::Reg(r) => Ok(e.regs[r].1),
                    Src::Imm(v) => Err(*v),
                    _ => unreachable!("the plan compiles shfl of registers and immediates"),
                };
                let s = crate::mem::Shfl { mode: *mode, a: opnd(a, self), b: opnd(b, self), c: opnd(c, self), p: p.map(|q| self.preds[&q]), side: self.side.is_some() };
                let table = s.table();
                MemOp { store: false, space: Space::Global, size: 0, signed: false, base: None, offset: 0, reg: Some(reg(self, *d)), imm: 0, alu: None, slot: None, shfl: Some(s), narrow_base: false, table }
            }
            _ => unreachable!("a planned load, store or helper operation"),
        };
        let mut op = op;
        op.slot = self.slots.get(&pc).copied();
        let cont = self.b.create_block();
        // The common cases inline, the helper for the rest.
        if op.slot.is_some() {
            self.dense_inline(&op, m, cont);
        } else if op.space == Space::KernelParam && op.base.is_none() && !op.store && op.alu.is_none() {
            self.param_inline(&op, m, cont);
        }
        let idx = self.mem.len() as u32;
        self.mem.push(op);
        let ctx = self.b.ins().load(self.ptr, MemFlagsData::new().with_notrap(), self.st, ST_CTX);
        let fptr = self.b.ins().iconst(self.ptr, self.helper as i64);
        let iv = self.iconst32(idx);
        let call = self.b.ins().call_indirect(self.mem_sig, fptr, &[ctx, iv, m]);
        let r = self.b.inst_results(call)[0];
        let back = self.b.create_block();
        self.b.ins().brif(r, back, &[], cont, &[]);
        self.b.switch_to_block(back);
        let left = self.b.use_var(self.left);
        let nl = self.b.ins().iadd_imm_s(left, (data_end - pc) as i64);
        self.b.def_var(self.left, nl);
        self.exit_at(pc);
        self.b.switch_to_block(cont);
        // The helper wrote registers in the packed copy: nothing cached.
        self.cache.clear();
        self.raw.clear();
        self.pcache.clear();
    }
}

//! The IR of a lane-by-lane loop ([`crate::region`]): at the loop's head,
//! in stack mode and with fuel for at least one whole iteration, each
//! chunk of 4 lanes runs the loop until its lanes have left or the cap
//! (the whole iterations the fuel pays for) is reached, with the loop's
//! registers and predicates in SSA variables across iterations (no
//! loads or stores inside the loop). A lane leaving records its exit code
//! (iteration × segments + segment); after the last chunk the loop helper
//! (`code.rs`, [`crate::region::settle`]) turns the codes into the fuel,
//! thread instructions and divergent branches of the warp-wide run, and
//! the code goes on at the exit, or leaves at the head with the lanes
//! still inside handed back as a split. Otherwise the head runs the
//! ordinary warp-wide block.

use super::*;
use crate::region::Region;

/// The loop helper: `(ctx, loop index, cap) -> fuel | still-inside << 63`.
pub fn helper_signature(call_conv: cranelift_codegen::isa::CallConv, ptr: ir::Type) -> ir::Signature {
    let mut s = ir::Signature::new(call_conv);
    s.params.extend([AbiParam::new(ptr), AbiParam::new(I32), AbiParam::new(I64)]);
    s.returns.push(AbiParam::new(I64));
    s
}

/// The SSA variables of a loop's state in one chunk.
struct Vars {
    /// The written registers but the temporaries.
    regs: Vec<(u32, Vec<Variable>)>,
    /// The registers only read, as loaded at the chunk's start (NaN bits
    /// as they are).
    ro: Vec<(u32, Vals)>,
    preds: Vec<(u32, Variable)>,
    /// The lanes still in the loop, as a lane mask and as a vector mask.
    act: Variable,
    actv: Variable,
    iter: Variable,
    codes: Variable,
}

impl Em<'_, '_, '_> {
    /// Emits loop `r` (the `idx`th) at its head's dispatch block.
    pub(super) fn region(&mut self, f: &Function, r: &Region, idx: u32) {
        let body = self.bodies[&r.head];
        self.b.switch_to_block(self.starts[&r.head]);
        // Stack mode, the stop pc outside the loop, fuel for an iteration.
        let stack = self.b.ins().load(I32, self.vflags, self.st, ST_STACK);
        let go = self.b.create_block();
        self.b.ins().brif(stack, go, &[], body, &[]);
        self.b.switch_to_block(go);
        let h = self.iconst32(r.head);
        let off = self.b.ins().isub(self.stop, h);
        let inside = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThanOrEqual, off, (r.last - r.head) as i64);
        let go = self.b.create_block();
        self.b.ins().brif(inside, body, &[], go, &[]);
        self.b.switch_to_block(go);
        let left = self.b.use_var(self.left);
        let cap = self.b.ins().udiv_imm_u(left, r.iteration_len() as i64);
        let most = self.b.ins().iconst(I64, (0x7fff_ffff / r.segs.len()) as i64);
        let cap = self.b.ins().umin(cap, most);
        let go = self.b.create_block();
        self.b.ins().brif(cap, go, &[], body, &[]);
        self.b.switch_to_block(go);

        let (chead, cnext, rend) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
        self.b.append_block_param(chead, I32);
        self.b.append_block_param(cnext, I32);
        let zero = self.iconst32(0);
        self.b.ins().jump(chead, &[zero.into()]);

        // A chunk: skipped when none of its lanes is in the group.
        self.b.switch_to_block(chead);
        let k = self.b.block_params(chead)[0];
        let shift = self.b.ins().ishl_imm_u(k, 2);
        let k64 = self.b.ins().uextend(I64, k);
        let on = self.b.ins().ishl_imm_u(k64, 4);
        let ow = self.b.ins().ishl_imm_u(k64, 5);
        let addr_n = self.b.ins().iadd(self.base, on);
        let addr_w = self.b.ins().iadd(self.base, ow);
        let f4 = self.iconst32(0xf);
        let cmask = self.b.ins().ishl(f4, shift);
        let act0 = self.b.ins().band(self.gmask, cmask);
        let cbody = self.b.create_block();
        self.b.ins().brif(act0, cbody, &[], cnext, &[k.into()]);
        self.b.switch_to_block(cbody);
        self.chunk = Some(Chunk { shift, addr_n, addr_w, cmask });
        let v = self.load_state(r, act0);
        let (lhead, cdone) = (self.b.create_block(), self.b.create_block());
        self.b.ins().jump(lhead, &[]);

        // One iteration.
        self.b.switch_to_block(lhead);
        self.iteration(f, r, &v, (lhead, cdone, cap));
        self.temps = None;
        self.xmemo.clear();
        self.cache.clear();
        self.raw.clear();
        self.pcache.clear();

        // The chunk's state back into the packed copy.
        self.b.switch_to_block(cdone);
        self.store_state(&v);
        let codes = self.b.use_var(v.codes);
        self.b.ins().store(self.vflags, codes, addr_n, self.codes_off as i32);
        self.b.ins().jump(cnext, &[k.into()]);
        self.chunk = None;

        self.b.switch_to_block(cnext);
        let k = self.b.block_params(cnext)[0];
        let k1 = self.b.ins().iadd_imm_s(k, 1);
        let more = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, k1, 8);
        self.b.ins().brif(more, chead, &[k1.into()], rend, &[]);

        // The written registers hold every lane of the group (each entry
        // copied them in); the warp-wide counts; where the group goes on.
        self.b.switch_to_block(rend);
        for x in r.written.iter().filter(|x| !r.temps.contains(x)) {
            let doff = self.regs[x].2 as i32;
            self.b.ins().store(self.vflags, self.gmask, self.base, doff);
        }
        let ctx = self.b.ins().load(self.ptr, MemFlagsData::new().with_notrap(), self.st, ST_CTX);
        let fptr = self.b.ins().iconst(self.ptr, self.region_helper as i64);
        let iv = self.iconst32(idx);
        let call = self.b.ins().call_indirect(self.region_sig, fptr, &[ctx, iv, cap]);
        let res = self.b.inst_results(call)[0];
        let used = self.b.ins().band_imm_u(res, i64::MAX);
        let left = self.b.use_var(self.left);
        let nl = self.b.ins().isub(left, used);
        self.b.def_var(self.left, nl);
        let inside = self.b.ins().ushr_imm_u(res, 63);
        let (back, on) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(inside, back, &[], on, &[]);
        self.b.switch_to_block(back);
        self.exit_at(r.head);
        self.b.switch_to_block(on);
        self.goto(r.exit);
    }

    /// One iteration of loop `r` from its head block `lhead` (current),
    /// on the variables `v`: it jumps back to `lhead`, or to `cdone` when
    /// the chunk's lanes have left or `cap` iterations are done.
    fn iteration(&mut self, f: &Function, r: &Region, v: &Vars, (lhead, cdone, cap): (ir::Block, ir::Block, Value)) {
        self.temps = Some(r.temps.clone());
        self.seed(v);
        let mut act = self.b.use_var(v.act);
        let actv = self.b.use_var(v.actv);
        self.xmemo = vec![(act, Class::Narrow, vec![actv])];
        let iter = self.b.use_var(v.iter);
        let nseg = r.segs.len() as i64;
        let mut seg = 0i64;
        for pc in r.head..=r.last {
            let ins = &f.code[pc as usize];
            let gm = match ins.guard {
                None => act,
                Some(g) => {
                    let p = self.pred_val(g.slot);
                    if g.neg {
                        self.b.ins().band_not(act, p)
                    } else {
                        self.b.ins().band(act, p)
                    }
                }
            };
            if !matches!(ins.op, Op::Bra { .. }) {
                self.data(&ins.op, gm, ins.guard.is_some());
                continue;
            }
            // The lanes leaving here, and those going on.
            let (leave, stay) = if pc < r.last {
                (Some(gm), self.b.ins().band_not(act, gm))
            } else if ins.guard.is_some() {
                (Some(self.b.ins().band_not(act, gm)), gm)
            } else {
                (None, act)
            };
            if let Some(leave) = leave {
                // Rare: lanes leave; their exit codes, and the vector mask.
                let (rec, join) = (self.b.create_block(), self.b.create_block());
                self.b.ins().brif(leave, rec, &[], join, &[]);
                self.b.switch_to_block(rec);
                let i32v = self.b.ins().ireduce(I32, iter);
                let code = self.b.ins().imul_imm_s(i32v, nseg);
                let code = self.b.ins().iadd_imm_s(code, seg);
                let code = self.b.ins().splat(I32X4, code);
                self.xmemo.clear();
                let lm = self.expand(leave, Class::Narrow)[0];
                let old = self.b.use_var(v.codes);
                let new = self.b.ins().bitselect(lm, code, old);
                self.b.def_var(v.codes, new);
                let av = self.b.use_var(v.actv);
                let av = self.b.ins().band_not(av, lm);
                self.b.def_var(v.actv, av);
                self.b.ins().jump(join, &[]);
                self.b.switch_to_block(join);
                let av = self.b.use_var(v.actv);
                self.xmemo = vec![(stay, Class::Narrow, vec![av])];
            }
            act = stay;
            self.b.def_var(v.act, stay);
            seg += 1;
            if pc < r.last {
                self.sync(v);
                let cont = self.b.create_block();
                self.b.ins().brif(stay, cont, &[], cdone, &[]);
                self.b.switch_to_block(cont);
            } else {
                let i1 = self.b.ins().iadd_imm_s(iter, 1);
                self.b.def_var(v.iter, i1);
                self.sync(v);
                let more = self.b.create_block();
                self.b.ins().brif(stay, more, &[], cdone, &[]);
                self.b.switch_to_block(more);
                let full = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, i1, cap);
                self.b.ins().brif(full, cdone, &[], lhead, &[]);
            }
        }
    }

    /// Loads the chunk's lanes of the loop's registers (but the
    /// temporaries) and predicates into fresh variables.
    fn load_state(&mut self, r: &Region, act0: Value) -> Vars {
        self.cache.clear();
        self.raw.clear();
        self.pcache.clear();
        let (mut regs, mut ro) = (Vec::new(), Vec::new());
        for &x in r.regs.iter().filter(|x| !r.temps.contains(x)) {
            let vals = self.reg_raw(x);
            if !r.written.contains(&x) {
                ro.push((x, vals));
                continue;
            }
            let ty = self.b.func.dfg.value_type(vals[0]);
            let vars: Vec<Variable> = vals
                .iter()
                .map(|&val| {
                    let var = self.b.declare_var(ty);
                    self.b.def_var(var, val);
                    var
                })
                .collect();
            regs.push((x, vars));
        }
        let mut preds = Vec::new();
        for &q in &r.preds {
            let val = self.pred_val(q);
            let var = self.b.declare_var(I32);
            self.b.def_var(var, val);
            preds.push((q, var));
        }
        let act = self.b.declare_var(I32);
        self.b.def_var(act, act0);
        let actv = self.b.declare_var(I32X4);
        let av = self.expand(act0, Class::Narrow)[0];
        self.b.def_var(actv, av);
        let iter = self.b.declare_var(I64);
        let z64 = self.b.ins().iconst(I64, 0);
        self.b.def_var(iter, z64);
        let codes = self.b.declare_var(I32X4);
        let none = self.splat32(u32::MAX);
        self.b.def_var(codes, none);
        self.cache.clear();
        self.pcache.clear();
        Vars { regs, ro, preds, act, actv, iter, codes }
    }

    /// The cache of the emitter from the variables (at the loop's head).
    fn seed(&mut self, v: &Vars) {
        self.cache.clear();
        self.raw.clear();
        self.pcache.clear();
        self.written.clear();
        self.pwritten.clear();
        for (x, vars) in &v.regs {
            let vals = vars.iter().map(|&var| self.b.use_var(var)).collect();
            self.cache.insert(*x, vals);
        }
        for (x, vals) in &v.ro {
            self.cache.insert(*x, vals.clone());
        }
        for &(q, var) in &v.preds {
            let val = self.b.use_var(var);
            self.pcache.insert(q, val);
        }
    }

    /// The variables from the emitter's cache (before a branch).
    fn sync(&mut self, v: &Vars) {
        self.written.clear();
        self.pwritten.clear();
        for (x, vars) in &v.regs {
            if let Some(vals) = self.cache.get(x) {
                for (&var, &val) in vars.iter().zip(vals) {
                    self.b.def_var(var, val);
                }
            }
        }
        for &(q, var) in &v.preds {
            if let Some(&val) = self.pcache.get(&q) {
                self.b.def_var(var, val);
            }
        }
    }

    /// Stores the chunk's written registers (but the temporaries) and
    /// the predicates.
    fn store_state(&mut self, v: &Vars) {
        let c = self.ch();
        let fl = self.vflags;
        for (x, vars) in &v.regs {
            let (class, off, _) = self.regs[x];
            let addr = if class == Class::Narrow { c.addr_n } else { c.addr_w };
            for (k, &var) in vars.iter().enumerate() {
                let val = self.b.use_var(var);
                self.b.ins().store(fl, val, addr, (off + 16 * k as u32) as i32);
            }
        }
        for &(q, var) in &v.preds {
            let val = self.b.use_var(var);
            self.b.ins().store(fl, val, self.base, self.preds[&q] as i32);
        }
    }
}

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

/// Chunks of 4 lanes run side by side when a loop's registers are few:
/// one chunk's iteration is a chain of dependent operations, two chains
/// interleaved keep the CPU's pipelines busy. 20 vectors (was 12) pairs
/// the loops with 64-bit counters Numba writes: its mandel kernel 2.3x ->
/// 2.9x the interpreter, the f32 escape loop unchanged (BENCHMARKS.md).
const PAIR_VECTORS: usize = 20;

/// One chunk's part of a loop's state: its lanes, its variables, and the
/// emitter's per-chunk caches while another chunk's code is emitted.
struct Sub {
    chunk: Chunk,
    /// The written registers but the temporaries.
    regs: Vec<(u32, Vec<Variable>)>,
    /// The registers only read, as loaded at the chunk's start (NaN bits
    /// as they are).
    ro: Vec<(u32, Vals)>,
    /// The chunk's lanes still in the loop, as a vector mask.
    actv: Variable,
    codes: Variable,
    cache: HashMap<u32, Vals>,
    raw: Vec<u32>,
    xmemo: Vec<(Value, Class, Vals)>,
}

/// The state shared by the chunks run side by side.
struct Shared {
    preds: Vec<(u32, Variable)>,
    /// Their lanes still in the loop.
    act: Variable,
    iter: Variable,
}

impl Em<'_, '_, '_> {
    /// Swaps the emitter's per-chunk caches with `s`'s.
    fn swap_caches(&mut self, s: &mut Sub) {
        std::mem::swap(&mut self.cache, &mut s.cache);
        std::mem::swap(&mut self.raw, &mut s.raw);
        std::mem::swap(&mut self.xmemo, &mut s.xmemo);
    }

    /// Runs `f` with each of `subs` as the current chunk (its caches the
    /// emitter's meanwhile).
    fn each_sub(&mut self, subs: &mut [Sub], mut f: impl FnMut(&mut Self, &mut Sub)) {
        for s in subs.iter_mut() {
            self.swap_caches(s);
            self.chunk = Some(s.chunk);
            f(self, s);
            self.chunk = None;
            self.swap_caches(s);
        }
    }

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

        let vectors: usize = r.regs.iter().map(|x| if self.regs[x].0 == Class::Wide { 2 } else { 1 }).sum();
        let width: u32 = if vectors <= PAIR_VECTORS { 2 } else { 1 };
        let (ghead, gnext, rend) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
        self.b.append_block_param(ghead, I32);
        self.b.append_block_param(gnext, I32);
        let zero = self.iconst32(0);
        self.b.ins().jump(ghead, &[zero.into()]);

        // A group of `width` chunks: skipped when none of its lanes is in
        // the group.
        self.b.switch_to_block(ghead);
        let g = self.b.block_params(ghead)[0];
        let gshift = self.b.ins().imul_imm_s(g, 4 * width as i64);
        let ones = self.iconst32(((1u64 << (4 * width)) - 1) as u32);
        let gmask = self.b.ins().ishl(ones, gshift);
        let act0 = self.b.ins().band(self.gmask, gmask);
        let gbody = self.b.create_block();
        self.b.ins().brif(act0, gbody, &[], gnext, &[g.into()]);
        self.b.switch_to_block(gbody);
        let mut subs: Vec<Sub> = (0..width).map(|i| self.load_sub(r, g, width, i, act0)).collect();
        let sh = self.load_shared(r, act0);
        let (lhead, gdone) = (self.b.create_block(), self.b.create_block());
        self.b.ins().jump(lhead, &[]);

        // One iteration.
        self.b.switch_to_block(lhead);
        self.iteration(f, r, (&mut subs, &sh), (lhead, gdone, cap));
        self.temps = None;
        self.chunk = None;
        self.xmemo.clear();
        self.cache.clear();
        self.raw.clear();
        self.pcache.clear();

        // The group's state back into the packed copy.
        self.b.switch_to_block(gdone);
        self.each_sub(&mut subs, |e, s| e.store_sub(s));
        for &(q, var) in &sh.preds {
            let val = self.b.use_var(var);
            self.b.ins().store(self.vflags, val, self.base, self.preds[&q] as i32);
        }
        self.b.ins().jump(gnext, &[g.into()]);

        self.b.switch_to_block(gnext);
        let g = self.b.block_params(gnext)[0];
        let g1 = self.b.ins().iadd_imm_s(g, 1);
        let more = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, g1, (8 / width) as i64);
        self.b.ins().brif(more, ghead, &[g1.into()], rend, &[]);

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
    /// for the chunks `subs` side by side: it jumps back to `lhead`, or to
    /// `gdone` when their lanes have left or `cap` iterations are done.
    fn iteration(&mut self, f: &Function, r: &Region, (subs, sh): (&mut [Sub], &Shared), (lhead, gdone, cap): (ir::Block, ir::Block, Value)) {
        self.temps = Some(r.temps.clone());
        self.written.clear();
        self.pwritten.clear();
        self.pcache.clear();
        for &(q, var) in &sh.preds {
            let val = self.b.use_var(var);
            self.pcache.insert(q, val);
        }
        let mut act = self.b.use_var(sh.act);
        self.each_sub(subs, |e, s| {
            e.cache.clear();
            e.raw.clear();
            for (x, vars) in &s.regs {
                let vals = vars.iter().map(|&var| e.b.use_var(var)).collect();
                e.cache.insert(*x, vals);
            }
            for (x, vals) in &s.ro {
                e.cache.insert(*x, vals.clone());
            }
            let av = e.b.use_var(s.actv);
            e.xmemo = vec![(act, Class::Narrow, vec![av])];
        });
        let iter = self.b.use_var(sh.iter);
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
                self.each_sub(subs, |e, _| e.data(&ins.op, gm, ins.guard.is_some()));
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
                // Rare: lanes leave; their exit codes, and the vector masks.
                let (rec, join) = (self.b.create_block(), self.b.create_block());
                self.b.ins().brif(leave, rec, &[], join, &[]);
                self.b.switch_to_block(rec);
                let i32v = self.b.ins().ireduce(I32, iter);
                let code = self.b.ins().imul_imm_s(i32v, nseg);
                let code = self.b.ins().iadd_imm_s(code, seg);
                let code = self.b.ins().splat(I32X4, code);
                self.each_sub(subs, |e, s| {
                    e.xmemo.clear();
                    let lm = e.expand(leave, Class::Narrow)[0];
                    let old = e.b.use_var(s.codes);
                    let new = e.b.ins().bitselect(lm, code, old);
                    e.b.def_var(s.codes, new);
                    let av = e.b.use_var(s.actv);
                    let av = e.b.ins().band_not(av, lm);
                    e.b.def_var(s.actv, av);
                });
                self.b.ins().jump(join, &[]);
                self.b.switch_to_block(join);
                self.each_sub(subs, |e, s| {
                    let av = e.b.use_var(s.actv);
                    e.xmemo = vec![(stay, Class::Narrow, vec![av])];
                });
            }
            act = stay;
            self.b.def_var(sh.act, stay);
            seg += 1;
            if pc < r.last {
                self.sync(subs, sh);
                let cont = self.b.create_block();
                self.b.ins().brif(stay, cont, &[], gdone, &[]);
                self.b.switch_to_block(cont);
            } else {
                let i1 = self.b.ins().iadd_imm_s(iter, 1);
                self.b.def_var(sh.iter, i1);
                self.sync(subs, sh);
                let more = self.b.create_block();
                self.b.ins().brif(stay, more, &[], gdone, &[]);
                self.b.switch_to_block(more);
                let full = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, i1, cap);
                self.b.ins().brif(full, gdone, &[], lhead, &[]);
            }
        }
    }

    /// Chunk `i` of group `g` (of `width` chunks): its lanes of the loop's
    /// registers (but the temporaries) loaded into fresh variables.
    fn load_sub(&mut self, r: &Region, g: Value, width: u32, i: u32, act0: Value) -> Sub {
        let k = self.b.ins().imul_imm_s(g, width as i64);
        let k = self.b.ins().iadd_imm_s(k, i as i64);
        let shift = self.b.ins().ishl_imm_u(k, 2);
        let k64 = self.b.ins().uextend(I64, k);
        let on = self.b.ins().ishl_imm_u(k64, 4);
        let ow = self.b.ins().ishl_imm_u(k64, 5);
        let addr_n = self.b.ins().iadd(self.base, on);
        let addr_w = self.b.ins().iadd(self.base, ow);
        let f4 = self.iconst32(0xf);
        let cmask = self.b.ins().ishl(f4, shift);
        self.chunk = Some(Chunk { shift, addr_n, addr_w, cmask });
        self.cache.clear();
        self.raw.clear();
        self.xmemo.clear();
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
        let actv = self.b.declare_var(I32X4);
        let av = self.expand(act0, Class::Narrow)[0];
        self.b.def_var(actv, av);
        let codes = self.b.declare_var(I32X4);
        let none = self.splat32(u32::MAX);
        self.b.def_var(codes, none);
        self.cache.clear();
        let chunk = self.chunk.take().expect("set above");
        Sub { chunk, regs, ro, actv, codes, cache: HashMap::default(), raw: Vec::new(), xmemo: Vec::new() }
    }

    /// The predicates, the lanes in the loop and the iteration count, in
    /// fresh variables.
    fn load_shared(&mut self, r: &Region, act0: Value) -> Shared {
        self.pcache.clear();
        let mut preds = Vec::new();
        for &q in &r.preds {
            let val = self.pred_val(q);
            let var = self.b.declare_var(I32);
            self.b.def_var(var, val);
            preds.push((q, var));
        }
        self.pcache.clear();
        let act = self.b.declare_var(I32);
        self.b.def_var(act, act0);
        let iter = self.b.declare_var(I64);
        let z64 = self.b.ins().iconst(I64, 0);
        self.b.def_var(iter, z64);
        Shared { preds, act, iter }
    }

    /// The variables from the emitter's caches (before a branch).
    fn sync(&mut self, subs: &mut [Sub], sh: &Shared) {
        self.written.clear();
        self.pwritten.clear();
        self.each_sub(subs, |e, s| {
            for (x, vars) in &s.regs {
                if let Some(vals) = e.cache.get(x) {
                    for (&var, &val) in vars.iter().zip(vals) {
                        e.b.def_var(var, val);
                    }
                }
            }
        });
        for &(q, var) in &sh.preds {
            if let Some(&val) = self.pcache.get(&q) {
                self.b.def_var(var, val);
            }
        }
    }

    /// Stores the current chunk's written registers (but the
    /// temporaries) and its exit codes.
    fn store_sub(&mut self, s: &Sub) {
        let c = self.ch();
        let fl = self.vflags;
        for (x, vars) in &s.regs {
            let (class, off, _) = self.regs[x];
            let addr = if class == Class::Narrow { c.addr_n } else { c.addr_w };
            for (k, &var) in vars.iter().enumerate() {
                let val = self.b.use_var(var);
                self.b.ins().store(fl, val, addr, (off + 16 * k as u32) as i32);
            }
        }
        let codes = self.b.use_var(s.codes);
        self.b.ins().store(fl, codes, c.addr_n, self.codes_off as i32);
    }
}

//! Cranelift IR of a planned function ([`crate::plan::Plan`]): one native
//! function per PTX function, warp-wide. It works on a packed copy of the
//! registers the plan uses ([`Layout`]: a `Narrow` register is 32 u32
//! lanes, read as 8 × i32x4; a `Wide` one 32 u64 lanes, 16 × i64x2; a
//! predicate an i32 lane mask; beside each register the mask of the lanes
//! some instruction wrote), which `code.rs` fills from the frame before
//! the call and writes back after it. Inside a basic block a register's
//! vectors are SSA values, loaded on first use and stored at the block's
//! end, so no vector is live across blocks (register allocation stays
//! local and linear in the function's size). A block's data instructions
//! run as a loop over the warp's 8 chunks of 4 lanes (every compiled
//! operation is lane-wise, so chunk by chunk equals instruction by
//! instruction): each instruction is emitted once, on one i32x4 (or two
//! i64x2), which keeps the IR, the compile time and the live vectors
//! small. Every lane-wise
//! result is the bits `ptxsim_sem::alu` gives: f32 NaN results are the
//! canonical NaN, `.ftz` flushes inputs and outputs, `.sat` clamps, `fma`
//! is one fused operation. The canonical NaN is made where bits are seen,
//! not after every operation: float arithmetic keeps a NaN a NaN and reads
//! nothing else of it, so a chain of float operations is canonicalised
//! once, when its result is stored, used as integer bits, or blended into
//! a guarded write. A register dead where a chunk loop ends
//! ([`crate::live`]) is not stored at all.
//!
//! Loads and stores are not lane-wise (a lane may read what another
//! stores, and a trap must leave every lane untouched): each one splits
//! the chunk loop and is one call, for the whole warp, into `mem::exec`
//! (through `code.rs`), which runs it or hands it back; handed back, the
//! code leaves at its pc with the fuel of the block's rest returned.
//! Special registers are read from lanes `code.rs` fills at entry.
//!
//! In stack mode a divergent `bra` of [`Plan::sides`] does not hand back:
//! the code runs its taken side, then its other side, each as copies of
//! the blocks it reaches before the branch's reconvergence point, under
//! the side's lanes (the group mask of those copies; every write blends,
//! since the group's other lanes keep their bits), and goes on at the
//! reconvergence point with the group's lanes. A divergent branch inside
//! a side runs the same way, [`MAX_SIDE_DEPTH`] deep and within a budget
//! of copied instructions. Leaving inside sides stores them, outermost
//! first, in `St` (`dv_n`, `dv`); the thread instructions the sides'
//! missing lanes did not run are summed in `St::tless`.
//!
//! In stack mode the head of a lane-by-lane loop ([`crate::region`]) goes
//! to that loop's own code instead (`loops`): there a chunk keeps its
//! registers in SSA variables across the loop's blocks and iterations.
//!
//! The native function is `fn(regs: *mut u64, st: *mut St)`: it starts at
//! `st.pc` (an entry), and leaves in `st` the pc where the interpreter goes
//! on and the fuel left (see `ptxsim_exec::tier`).

use crate::mem::MemOp;
use crate::plan::{Block, Class, Plan};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{F32X4, I32, I32X4, I64, I64X2};
use cranelift_codegen::ir::{self, AbiParam, Endianness, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::{FunctionBuilder, Switch, Variable};
use ptxsim_exec::program::{AddrBase, BoolOp, Function, ITyOrF, Op, PSrc, PredOp, Space, Sreg, Src};
use ptxsim_sem::alu::{CmpOp, FBinOp, FTy, FUnOp, IBinOp, ITy};
use rustc_hash::FxHashMap as HashMap;

mod loops;
mod memops;

pub use memops::inline_mem;

/// The group state the native code reads and writes (`#[repr(C)]`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct St {
    pub pc: u32,
    pub mask: u32,
    pub stop: u32,
    pub yield_on_branch: u32,
    pub left: u64,
    /// What the memory helper gets (`code.rs`'s context of the run).
    pub ctx: usize,
    /// The group runs under the reconvergence stack (lane-by-lane loops
    /// and compiled divergence allowed).
    pub stack: u32,
    /// Out: how many nested sides of divergent `bra`s the code left
    /// inside (0: none), and for each, outermost first, the branch's pc,
    /// its taken lanes, and whether the side is the not-taken one
    /// (`ptxsim_exec::tier::Side`).
    pub dv_n: u32,
    pub dv: [[u32; 3]; MAX_SIDE_DEPTH],
    /// Out: thread instructions fewer than warp instructions times the
    /// group's lanes (the sides run with part of the lanes).
    pub tless: u64,
    /// In: no `cp.async` copy of the warp is pending (`Env::mem_ready`;
    /// loads and stores run inline only then).
    pub mem_ready: u32,
    pub _pad: u32,
    /// In: the kernel's parameter buffer (`Env::kparams`), address and length.
    pub kp: u64,
    pub kp_len: u64,
    /// Out: store instructions run inline (the warp's store count).
    pub stores: u64,
}

/// The most registers a block keeps in vectors before it stores them.
const FLUSH_REGS: usize = 16;

const ST_PC: i32 = 0;
const ST_MASK: i32 = 4;
const ST_STOP: i32 = 8;
const ST_YOB: i32 = 12;
const ST_LEFT: i32 = 16;
const ST_CTX: i32 = 24;
const ST_STACK: i32 = 32;
const ST_DV_N: i32 = 36;
const ST_DV: i32 = 40;
const ST_TLESS: i32 = 64;
const ST_MEM_READY: i32 = 72;
const ST_KP: i32 = 80;
const ST_KP_LEN: i32 = 88;
const ST_STORES: i32 = 96;

/// The deepest nesting of divergent sides compiled code runs (a
/// divergence deeper inside is handed back).
pub const MAX_SIDE_DEPTH: usize = 2;

/// Where each register and predicate the plan uses lives in the packed
/// copy (byte offsets), and its size in u64 words.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    /// Register slot → (class, offset of its lanes, offset of its u32 dirty mask).
    pub regs: Vec<(u32, Class, u32, u32)>,
    /// Predicate slot → offset of its u32 lane mask.
    pub preds: Vec<(u32, u32)>,
    /// Special register → offset of its 32 u32 lanes (filled at entry).
    pub sregs: Vec<(Sreg, u32)>,
    /// Offset of the 32 u32 exit codes a lane-by-lane loop leaves
    /// ([`crate::region::settle`]).
    pub codes: u32,
    /// Offset of one u32 counter per compiled divergent branch
    /// ([`Plan::sides`]): the times it diverged.
    pub divs: u32,
    /// Offset of the allocation caches of the dense loads and stores
    /// ([`Layout::slots`]): two spare words, then per slot three words:
    /// the low address, the count of valid first-lane addresses, and the
    /// host address minus the device one. Unlike the rest of the layout
    /// they outlive a run, while the same code runs next on the thread
    /// with the same global memory (`code.rs`'s `CACHE_OWNER`).
    pub mcache: u32,
    /// A load or store that may run inline, pc → byte offset of its slot.
    pub slots: HashMap<u32, u32>,
    pub words: usize,
}

impl Layout {
    pub fn new(p: &Plan, f: &Function) -> Layout {
        let mut off = 0u32;
        let mut regs = Vec::new();
        for (&r, &c) in &p.regs {
            regs.push((r, c, off, 0));
            off += if c == Class::Narrow { 128 } else { 256 };
        }
        let sregs = p.sregs.iter().map(|&s| {
            let o = off;
            off += 128;
            (s, o)
        }).collect();
        // The dirty masks side by side, from an 8-byte boundary (`code.rs`
        // zeroes them as one range).
        for e in &mut regs {
            e.3 = off;
            off += 4;
        }
        let preds = p.preds.iter().map(|&q| {
            let o = off;
            off += 4;
            (q, o)
        }).collect();
        off = off.next_multiple_of(16);
        let codes = off;
        if !p.regions.is_empty() {
            off += 128;
        }
        let divs = off;
        off += 4 * p.sides.len() as u32;
        off = off.next_multiple_of(8);
        let mcache = off;
        off += 16;
        let mut slots = HashMap::default();
        for (pc, ins) in f.code.iter().enumerate() {
            if p.ok.get(pc) == Some(&true) && inline_mem(&ins.op, p) {
                slots.insert(pc as u32, off);
                off += 24;
            }
        }
        Layout { regs, preds, sregs, codes, divs, mcache, slots, words: (off as usize).div_ceil(8) }
    }
}

/// A register's value in the current chunk of 4 lanes: one i32x4 or two
/// i64x2.
type Vals = Vec<Value>;

/// The current chunk of a block's lane loop.
#[derive(Clone, Copy)]
struct Chunk {
    /// 4 × the chunk's index: the lane number of its first lane.
    shift: Value,
    /// The buffer's address plus the chunk's offset in a narrow and in a
    /// wide register.
    addr_n: Value,
    addr_w: Value,
    /// The chunk's lanes as a mask.
    cmask: Value,
}

pub fn signature(call_conv: cranelift_codegen::isa::CallConv, ptr: ir::Type) -> ir::Signature {
    let mut s = ir::Signature::new(call_conv);
    s.params.extend([AbiParam::new(ptr), AbiParam::new(ptr)]);
    s
}

struct Em<'a, 'b, 'c> {
    b: &'b mut FunctionBuilder<'a>,
    base: Value,
    /// Register slot → (class, lanes offset, dirty offset).
    regs: HashMap<u32, (Class, u32, u32)>,
    preds: HashMap<u32, u32>,
    /// The block's cached values: registers, written ones with the lanes
    /// written; predicates, written ones.
    cache: HashMap<u32, Vals>,
    /// Cached registers whose f32 lanes may hold a NaN not yet made the
    /// canonical one: float arithmetic keeps any NaN a NaN and reads
    /// nothing else of it, so the canonical bits are made only where the
    /// bits are seen (a store, an integer use, the end of the chunk).
    raw: Vec<u32>,
    written: Vec<(u32, Value)>,
    /// Registers the chunk loop writes in all lanes of the warp's mask:
    /// their dirty masks take the mask once, after the loop.
    whole: Vec<u32>,
    pcache: HashMap<u32, Value>,
    pwritten: Vec<u32>,
    left: Variable,
    chunk: Option<Chunk>,
    gmask: Value,
    yob: Value,
    stop: Value,
    exit: ir::Block,
    /// Where a jump to a block's pc goes: its code, or at the head of a
    /// lane-by-lane loop the choice between that and its code.
    starts: HashMap<u32, ir::Block>,
    /// Each block's own code.
    bodies: HashMap<u32, ir::Block>,
    /// Inside a lane-by-lane loop: the registers written in it that
    /// need not keep inactive lanes' bits (dead at its head and exit);
    /// every other write there blends.
    temps: Option<Vec<u32>>,
    /// The loop helper's signature and address, and the exit codes' offset.
    /// Lane masks already expanded to vector masks (inside a lane-by-lane
    /// loop, where the emitter stays in blocks the values dominate).
    xmemo: Vec<(Value, Class, Vals)>,
    /// Vector constants and bitcasts made in the current Cranelift block
    /// (reused there: each instruction costs compile time).
    vmemo: VMemo,
    region_sig: ir::SigRef,
    region_helper: usize,
    codes_off: u32,
    vflags: MemFlagsData,
    st: Value,
    sregs: Vec<(Sreg, u32)>,
    /// The loads and stores, in the order of their indices in calls.
    mem: Vec<MemOp>,
    /// The loads and stores that may run inline: pc → their slot
    /// ([`Layout::slots`]).
    slots: HashMap<u32, u32>,
    mem_sig: ir::SigRef,
    helper: usize,
    ptr: ir::Type,
    /// Which registers a thread may still read ([`crate::live`]).
    live: Option<&'c crate::live::Live>,
    /// Where the chunk loop being flushed ends (its registers dead there
    /// are not stored); `None`: store every register.
    end_pc: Option<u32>,
    /// The plan's blocks, and the index of each by its start.
    blocks: &'c [Block],
    block_at: HashMap<u32, usize>,
    /// The compiled divergent branches: pc → counter index.
    sites: HashMap<u32, u32>,
    divs_off: u32,
    /// Whether the group runs under the reconvergence stack (`St::stack`).
    stackf: Value,
    /// Thread instructions fewer than warp instructions × the group's lanes.
    tless: Variable,
    /// The side of a divergent branch being emitted, if any, and how
    /// deep in sides it is (1: a side of a branch outside any side).
    side: Option<SideCx>,
    depth: usize,
    /// Instructions emitted again in sides so far, and the most allowed
    /// (a nested divergence beyond it is handed back).
    copied: usize,
    copy_limit: usize,
}

/// One side of a compiled divergent branch while it is emitted: the code
/// runs under the side's lanes ([`Em::gmask`]) and stops at the branch's
/// reconvergence point `r`; its blocks are copies of the plan's.
struct SideCx {
    r: u32,
    /// Block start → its copy in this side.
    copies: HashMap<u32, ir::Block>,
    todo: Vec<u32>,
    /// Where the side goes when it reaches `r`.
    done: ir::Block,
}

fn le() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

/// What [`Em::vconst`] and [`Em::bc`] made in one block.
#[derive(Default)]
struct VMemo {
    block: Option<ir::Block>,
    consts: HashMap<(ir::Type, u128), Value>,
    casts: HashMap<(Value, ir::Type), Value>,
    /// A guard's mask and the chunk's lanes ([`Em::set_pred`]).
    ands: HashMap<(Value, Value), Value>,
    /// Lane masks expanded to vector masks, by the chunk's shift, the
    /// mask and the lane width ([`Em::expand`]): a block's instructions
    /// under one guard share them.
    masks: HashMap<(Value, Value, Class), Vals>,
}

impl Em<'_, '_, '_> {
    /// The memo of the current block (emptied when the block changed).
    fn vmemo(&mut self) -> &mut VMemo {
        let cur = self.b.current_block();
        if self.vmemo.block != cur {
            self.vmemo.block = cur;
            self.vmemo.consts.clear();
            self.vmemo.casts.clear();
            self.vmemo.ands.clear();
            self.vmemo.masks.clear();
        }
        &mut self.vmemo
    }

    /// A 128-bit vector constant of type `ty` (little-endian `bits`).
    fn vconst(&mut self, ty: ir::Type, bits: u128) -> Value {
        if let Some(&v) = self.vmemo().consts.get(&(ty, bits)) {
            return v;
        }
        let h = self.b.func.dfg.constants.insert(bits.to_le_bytes().to_vec().into());
        let v = self.b.ins().vconst(ty, h);
        self.vmemo().consts.insert((ty, bits), v);
        v
    }

    fn i32x4_const(&mut self, v: [u32; 4]) -> Value {
        self.vconst(I32X4, v.iter().rev().fold(0u128, |acc, &x| acc << 32 | x as u128))
    }

    fn i64x2_const(&mut self, v: [u64; 2]) -> Value {
        self.vconst(I64X2, (v[1] as u128) << 64 | v[0] as u128)
    }

    fn splat32(&mut self, v: u32) -> Value {
        self.i32x4_const([v; 4])
    }

    /// `v` as type `ty`: `v` itself, the value `v` was cast from, a cast
    /// made earlier in this block, or a new one.
    fn bc(&mut self, ty: ir::Type, v: Value) -> Value {
        let dfg = &self.b.func.dfg;
        if dfg.value_type(v) == ty {
            return v;
        }
        if let ir::ValueDef::Result(inst, 0) = dfg.value_def(v) {
            if let ir::InstructionData::LoadNoOffset { opcode: ir::Opcode::Bitcast, arg, .. } = dfg.insts[inst] {
                if dfg.value_type(arg) == ty {
                    return arg;
                }
            }
        }
        if let Some(&c) = self.vmemo().casts.get(&(v, ty)) {
            return c;
        }
        let c = self.b.ins().bitcast(ty, le(), v);
        self.vmemo().casts.insert((v, ty), c);
        c
    }

    fn iconst32(&mut self, v: u32) -> Value {
        self.b.ins().iconst(I32, v as i32 as i64)
    }

    fn ch(&self) -> Chunk {
        self.chunk.expect("lane-wise code runs inside a block's chunk loop")
    }

    /// The current chunk's lanes of mask `m` (i32) as vector masks.
    fn expand(&mut self, m: Value, class: Class) -> Vals {
        if let Some(v) = self.xmemo.iter().find(|x| x.0 == m && x.1 == class) {
            return v.2.clone();
        }
        let c = self.ch();
        if let Some(v) = self.vmemo().masks.get(&(c.shift, m, class)) {
            return v.clone();
        }
        let sm = self.b.ins().ushr(m, c.shift);
        let v: Vals = match class {
            Class::Narrow => {
                let s = self.b.ins().splat(I32X4, sm);
                let bits = self.i32x4_const([1, 2, 4, 8]);
                let zero = self.splat32(0);
                let t = self.b.ins().band(s, bits);
                vec![self.b.ins().icmp(IntCC::NotEqual, t, zero)]
            }
            Class::Wide => {
                let m64 = self.b.ins().uextend(I64, sm);
                let s = self.b.ins().splat(I64X2, m64);
                let zero = self.i64x2_const([0, 0]);
                [[1, 2], [4, 8]]
                    .into_iter()
                    .map(|b| {
                        let bits = self.i64x2_const(b);
                        let t = self.b.ins().band(s, bits);
                        self.b.ins().icmp(IntCC::NotEqual, t, zero)
                    })
                    .collect()
            }
        };
        self.vmemo().masks.insert((c.shift, m, class), v.clone());
        v
    }

    /// The lane mask (i32, at the chunk's lanes) of vector booleans.
    fn to_mask(&mut self, v: &[Value], class: Class) -> Value {
        let c = self.ch();
        let bits = match class {
            Class::Narrow => self.b.ins().vhigh_bits(I32, v[0]),
            Class::Wide => {
                let lo = self.b.ins().vhigh_bits(I32, v[0]);
                let hi = self.b.ins().vhigh_bits(I32, v[1]);
                let hi = self.b.ins().ishl_imm_u(hi, 2);
                self.b.ins().bor(lo, hi)
            }
        };
        self.b.ins().ishl(bits, c.shift)
    }

    /// An operand for float arithmetic: a register's lanes may be a NaN of
    /// any bits ([`Em::raw`]).
    fn src_f(&mut self, s: &Src) -> Vals {
        match s {
            Src::Reg(r) => self.reg_raw(*r),
            _ => self.src(s, Class::Narrow),
        }
    }

    fn src(&mut self, s: &Src, class: Class) -> Vals {
        match s {
            Src::Reg(r) => self.reg(*r),
            Src::Imm(x) => {
                let c = match class {
                    Class::Narrow => self.splat32(*x as u32),
                    Class::Wide => self.i64x2_const([*x; 2]),
                };
                vec![c; if class == Class::Narrow { 1 } else { 2 }]
            }
            Src::Sreg(sr) => {
                let off = self.sregs.iter().find(|x| x.0 == *sr).expect("the plan lists every special register read").1;
                let (fl, c) = (self.vflags, self.ch());
                let v = self.b.ins().load(I32X4, fl, c.addr_n, off as i32);
                match class {
                    Class::Narrow => vec![v],
                    Class::Wide => vec![self.b.ins().uwiden_low(v), self.b.ins().uwiden_high(v)],
                }
            }
            _ => unreachable!("the plan compiles register, immediate and special-register operands only"),
        }
    }

    /// The low 32 bits of each 64-bit lane of `v` (two i64x2) as one i32x4.
    fn truncate(&mut self, v: &[Value]) -> Value {
        let (a, b) = (self.bc(ir::types::I8X16, v[0]), self.bc(ir::types::I8X16, v[1]));
        let idx: Vec<u8> = [0u8, 8, 16, 24].iter().flat_map(|&k| k..k + 4).collect();
        let mask = self.b.func.dfg.immediates.push(idx.into());
        let r = self.b.ins().shuffle(a, b, mask);
        self.bc(I32X4, r)
    }

    fn pred(&mut self, p: &PSrc) -> Value {
        match *p {
            PSrc::Const(c) => self.iconst32(if c { u32::MAX } else { 0 }),
            PSrc::Reg { slot, neg } => {
                let v = self.pred_val(slot);
                if neg {
                    self.b.ins().bnot(v)
                } else {
                    v
                }
            }
        }
    }

    /// Writes `vals` to register `d` in the lanes of `m` (`guarded`: `m`
    /// may be less than the group's lanes, so the other lanes keep theirs).
    fn write(&mut self, d: u32, vals: Vals, m: Value, guarded: bool) {
        self.write_f(d, vals, m, guarded, false)
    }

    /// [`Em::write`] of float results that may be NaNs of any bits (`raw`).
    /// Only an unguarded write stays raw: there every lane of the group is
    /// a result, while a guarded one keeps other lanes' bits, which may be
    /// a NaN loaded from memory that must stay as it is.
    fn write_f(&mut self, d: u32, vals: Vals, m: Value, guarded: bool, raw: bool) {
        let class = self.regs[&d].0;
        // In a side of a divergent branch the group's other lanes keep
        // their bits: every write there blends.
        let guarded = guarded || self.side.is_some() || self.temps.as_ref().is_some_and(|t| !t.contains(&d));
        let (vals, raw) = if guarded && raw { (vals.iter().map(|&x| self.canon(x)).collect(), false) } else { (vals, raw) };
        let vals = if guarded {
            let old = self.reg(d);
            let mv = self.expand(m, class);
            old.iter().zip(vals).zip(mv).map(|((&o, new), mk)| self.b.ins().bitselect(mk, new, o)).collect()
        } else {
            vals
        };
        self.cache.insert(d, vals);
        if raw {
            if !self.raw.contains(&d) {
                self.raw.push(d);
            }
        } else {
            self.raw.retain(|&x| x != d);
        }
        match self.written.iter().position(|w| w.0 == d) {
            Some(i) => {
                let acc = self.written[i].1;
                self.written[i].1 = self.b.ins().bor(acc, m);
            }
            None => self.written.push((d, m)),
        }
    }

    /// Register `r`'s vectors with their canonical NaNs.
    fn reg(&mut self, r: u32) -> Vals {
        let v = self.reg_raw(r);
        if !self.raw.contains(&r) {
            return v;
        }
        let v: Vals = v.iter().map(|&x| self.canon(x)).collect();
        self.raw.retain(|&x| x != r);
        self.cache.insert(r, v.clone());
        v
    }

    /// The canonical NaN in the f32 lanes of `x` that hold a NaN.
    fn canon(&mut self, x: Value) -> Value {
        let x = self.bc(I32X4, x);
        let f = self.bc(F32X4, x);
        let nan = self.b.ins().fcmp(FloatCC::Unordered, f, f);
        let canon = self.splat32(ptxsim_sem::alu::F32_CANON_NAN);
        self.b.ins().bitselect(nan, canon, x)
    }

    /// Register `r`'s vectors: cached in the block (NaNs of any bits if
    /// it is [`Em::raw`]), or loaded.
    fn reg_raw(&mut self, r: u32) -> Vals {
        if let Some(v) = self.cache.get(&r) {
            return v.clone();
        }
        let (class, off, _) = self.regs[&r];
        let (fl, c) = (self.vflags, self.ch());
        let v: Vals = match class {
            Class::Narrow => vec![self.b.ins().load(I32X4, fl, c.addr_n, off as i32)],
            Class::Wide => (0..2).map(|k| self.b.ins().load(I64X2, fl, c.addr_w, (off + 16 * k) as i32)).collect(),
        };
        self.cache.insert(r, v.clone());
        v
    }

    fn pred_val(&mut self, q: u32) -> Value {
        if let Some(v) = self.pcache.get(&q) {
            return *v;
        }
        let off = self.preds[&q];
        let v = self.b.ins().load(I32, self.vflags, self.base, off as i32);
        self.pcache.insert(q, v);
        v
    }

    /// Stores what the block wrote, and forgets the block's values.
    fn flush(&mut self) {
        let fl = self.vflags;
        for (r, m) in std::mem::take(&mut self.written) {
            // Dead where the chunk loop ends: every path writes it first.
            if let (Some(pc), Some(live)) = (self.end_pc, self.live) {
                if !live.before(pc, r) {
                    continue;
                }
            }
            let (class, off, doff) = self.regs[&r];
            let c = self.ch();
            let addr = if class == Class::Narrow { c.addr_n } else { c.addr_w };
            let vals = self.reg(r);
            for (k, v) in vals.into_iter().enumerate() {
                self.b.ins().store(fl, v, addr, (off + 16 * k as u32) as i32);
            }
            if m == self.gmask {
                // The same in every chunk: once, after the loop.
                if !self.whole.contains(&r) {
                    self.whole.push(r);
                }
                continue;
            }
            let m = self.b.ins().band(m, c.cmask);
            let d = self.b.ins().load(I32, fl, self.base, doff as i32);
            let d = self.b.ins().bor(d, m);
            self.b.ins().store(fl, d, self.base, doff as i32);
        }
        for q in std::mem::take(&mut self.pwritten) {
            let v = self.pcache[&q];
            self.b.ins().store(fl, v, self.base, self.preds[&q] as i32);
        }
        self.cache.clear();
        self.raw.clear();
        self.pcache.clear();
    }

    fn set_pred(&mut self, p: u32, v: Value, m: Value) {
        let cm = self.ch().cmask;
        let m = match self.vmemo().ands.get(&(m, cm)) {
            Some(&x) => x,
            None => {
                let x = self.b.ins().band(m, cm);
                self.vmemo().ands.insert((m, cm), x);
                x
            }
        };
        let old = self.pred_val(p);
        let keep = self.b.ins().band_not(old, m);
        let new = self.b.ins().band(v, m);
        let r = self.b.ins().bor(keep, new);
        self.pcache.insert(p, r);
        if !self.pwritten.contains(&p) {
            self.pwritten.push(p);
        }
    }

    fn map2(&mut self, a: &Vals, b: &Vals, f: impl Fn(&mut Self, Value, Value) -> Value) -> Vals {
        a.iter().zip(b).map(|(&x, &y)| f(self, x, y)).collect()
    }

    // --- f32 helpers (on i32x4 bits) ---

    fn ftz(&mut self, x: Value) -> Value {
        let absm = self.splat32(0x7fff_ffff);
        let minn = self.splat32(0x0080_0000);
        let sign = self.splat32(0x8000_0000);
        let a = self.b.ins().band(x, absm);
        let sub = self.b.ins().icmp(IntCC::SignedLessThan, a, minn);
        let z = self.b.ins().band(x, sign);
        self.b.ins().bitselect(sub, z, x)
    }

    /// A float result: ftz, then sat (which makes a NaN zero); otherwise a
    /// NaN stays of whatever bits the CPU gave it ([`Em::raw`]).
    fn f32_out(&mut self, r: Value, ftz: bool, sat: bool) -> Value {
        let mut r = self.bc(I32X4, r);
        if ftz {
            r = self.ftz(r);
        }
        let f = self.bc(F32X4, r);
        if sat {
            let zero = self.splat32(0);
            let one = self.splat32(1.0f32.to_bits());
            let (zf, of) = (self.bc(F32X4, zero), self.bc(F32X4, one));
            let le0 = self.b.ins().fcmp(FloatCC::UnorderedOrLessThanOrEqual, f, zf);
            let gt1 = self.b.ins().fcmp(FloatCC::GreaterThan, f, of);
            let r1 = self.b.ins().bitselect(le0, zero, r);
            return self.b.ins().bitselect(gt1, one, r1);
        }
        r
    }

    fn fin(&mut self, x: Value, ftz: bool) -> Value {
        let x = if ftz { self.ftz(x) } else { x };
        self.bc(F32X4, x)
    }

    fn fbin(&mut self, op: FBinOp, ftz: bool, sat: bool, x: Value, y: Value) -> Value {
        let (fx, fy) = (self.fin(x, ftz), self.fin(y, ftz));
        let r = match op {
            FBinOp::Add => self.b.ins().fadd(fx, fy),
            FBinOp::Sub => self.b.ins().fsub(fx, fy),
            FBinOp::Mul => self.b.ins().fmul(fx, fy),
            FBinOp::Min | FBinOp::Max => {
                let r = if op == FBinOp::Max { self.b.ins().fmax(fx, fy) } else { self.b.ins().fmin(fx, fy) };
                let ri = self.bc(I32X4, r);
                let (ix, iy) = (self.bc(I32X4, fx), self.bc(I32X4, fy));
                let xn = self.b.ins().fcmp(FloatCC::Unordered, fx, fx);
                let yn = self.b.ins().fcmp(FloatCC::Unordered, fy, fy);
                let r1 = self.b.ins().bitselect(xn, iy, ri);
                self.b.ins().bitselect(yn, ix, r1)
            }
            _ => unreachable!("planned f32 operations"),
        };
        self.f32_out(r, ftz, sat)
    }

    /// `x * k` (mod the lane width) for a `k` of at most two set bits
    /// ([`few_bits`]): shifts and an add, where the vector multiply has a
    /// latency of about 10 cycles (15 for 64-bit lanes).
    fn mul_const(&mut self, x: Value, k: u64, c: Class) -> Value {
        if k == 0 {
            return if c == Class::Narrow { self.splat32(0) } else { self.i64x2_const([0, 0]) };
        }
        let lo = k.trailing_zeros() as i64;
        let a = if lo == 0 { x } else { self.b.ins().ishl_imm_u(x, lo) };
        let rest = k & (k - 1);
        if rest == 0 {
            return a;
        }
        let hi = rest.trailing_zeros() as i64;
        let b = self.b.ins().ishl_imm_u(x, hi);
        self.b.ins().iadd(a, b)
    }

    /// Runs data instruction `op` on the lanes of `m`.
    fn data(&mut self, op: &Op, m: Value, guarded: bool) {
        use Class::{Narrow as N, Wide as W};
        match op {
            Op::Mov { d, a, bits } => {
                let c = if *bits == 32 { N } else { W };
                // A copy keeps a NaN's pending canonical bits pending.
                let raw = matches!(a, Src::Reg(r) if self.raw.contains(r));
                let v = if raw { self.src_f(a) } else { self.src(a, c) };
                self.write_f(*d, v, m, guarded, raw);
            }
            Op::IBin { op, ty, d, a, b, .. } => self.ibin((*op, *ty), *d, [a, b], (m, guarded)),
            Op::Mad { d, a, b, c, .. } => {
                let p = match few_bits(a, b, 32) {
                    Some((x, k)) => {
                        let xv = self.src(x, N);
                        xv.iter().map(|&x| self.mul_const(x, k, N)).collect()
                    }
                    None => {
                        let (av, bv) = (self.src(a, N), self.src(b, N));
                        self.map2(&av, &bv, |e, x, y| e.b.ins().imul(x, y))
                    }
                };
                let cv = self.src(c, N);
                let r = self.map2(&p, &cv, |e, x, y| e.b.ins().iadd(x, y));
                self.write(*d, r, m, guarded);
            }
            Op::FBin { op, ftz, sat, d, a, b, .. } => {
                let (av, bv) = (self.src_f(a), self.src_f(b));
                let (op, ftz, sat) = (*op, *ftz, *sat);
                let r = self.map2(&av, &bv, |e, x, y| e.fbin(op, ftz, sat, x, y));
                self.write_f(*d, r, m, guarded, !sat);
            }
            Op::FUn { op, ftz, d, a, .. } => {
                // A NaN stays a NaN (its canonical bits made where seen).
                let av = self.src_f(a);
                let r = av
                    .iter()
                    .map(|&x| {
                        let x = self.bc(I32X4, x);
                        let x = if *ftz { self.ftz(x) } else { x };
                        if *op == FUnOp::Neg {
                            let s = self.splat32(0x8000_0000);
                            self.b.ins().bxor(x, s)
                        } else {
                            let s = self.splat32(0x7fff_ffff);
                            self.b.ins().band(x, s)
                        }
                    })
                    .collect();
                self.write_f(*d, r, m, guarded, true);
            }
            Op::Fma { ftz, sat, d, a, b, c, .. } => {
                let (av, bv, cv) = (self.src_f(a), self.src_f(b), self.src_f(c));
                let r = (0..av.len())
                    .map(|k| {
                        let (x, y, z) = (self.fin(av[k], *ftz), self.fin(bv[k], *ftz), self.fin(cv[k], *ftz));
                        let r = self.b.ins().fma(x, y, z);
                        self.f32_out(r, *ftz, *sat)
                    })
                    .collect();
                self.write_f(*d, r, m, guarded, !*sat);
            }
            op @ Op::Setp { .. } => self.setp(op, m),
            Op::Selp { bits, d, a, b, c } => {
                let cl = if *bits == 32 { N } else { W };
                let (av, bv) = (self.src(a, cl), self.src(b, cl));
                let cv = self.pred(c);
                let mk = self.expand(cv, cl);
                let r = (0..av.len()).map(|k| self.b.ins().bitselect(mk[k], av[k], bv[k])).collect();
                self.write(*d, r, m, guarded);
            }
            Op::PredLogic { op, d, a, b } => {
                let (av, bv) = (self.pred(a), self.pred(b));
                let v = match op {
                    PredOp::And => self.b.ins().band(av, bv),
                    PredOp::Or => self.b.ins().bor(av, bv),
                    PredOp::Xor => self.b.ins().bxor(av, bv),
                    PredOp::Not => self.b.ins().bnot(av),
                    PredOp::Mov => av,
                };
                self.set_pred(*d, v, m);
            }
            Op::Cvt { dst: ptxsim_exec::program::CvtTy::I(dt), src: ptxsim_exec::program::CvtTy::I(st), d, a, .. } => {
                // Extended by the source's type, cut to the destination's.
                let sc = if st.bits == 32 { N } else { W };
                let av = self.src(a, sc);
                let r = match (dt.bits, st.bits) {
                    (64, 32) if st.signed => vec![self.b.ins().swiden_low(av[0]), self.b.ins().swiden_high(av[0])],
                    (64, 32) => vec![self.b.ins().uwiden_low(av[0]), self.b.ins().uwiden_high(av[0])],
                    (32, 64) => vec![self.truncate(&av)],
                    _ => av,
                };
                self.write(*d, r, m, guarded);
            }
            Op::Cvta { to, space, d, a, .. } => {
                use ptxsim_exec::program::{CONST_WINDOW, LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW};
                let win = match space {
                    Space::Shared => SHARED_WINDOW,
                    Space::Local => LOCAL_WINDOW,
                    Space::Const => CONST_WINDOW,
                    Space::KernelParam => PARAM_WINDOW,
                    _ => 0,
                };
                let av = self.src(a, W);
                let r = if win == 0 {
                    av
                } else {
                    let w = self.i64x2_const([win; 2]);
                    if *to {
                        av.iter().map(|&x| self.b.ins().isub(x, w)).collect()
                    } else {
                        av.iter().map(|&x| self.b.ins().iadd(x, w)).collect()
                    }
                };
                self.write(*d, r, m, guarded);
            }
            Op::Cvt { dst, src, d, a, .. } => {
                use ptxsim_exec::program::CvtTy;
                let av = self.src(a, N);
                let r = av
                    .iter()
                    .map(|&x| match (dst, src) {
                        (CvtTy::F(_), CvtTy::I(s)) => {
                            let f = if s.signed { self.b.ins().fcvt_from_sint(F32X4, x) } else { self.b.ins().fcvt_from_uint(F32X4, x) };
                            self.bc(I32X4, f)
                        }
                        (CvtTy::I(dt), _) => {
                            let f = self.bc(F32X4, x);
                            if dt.signed {
                                self.b.ins().fcvt_to_sint_sat(I32X4, f)
                            } else {
                                self.b.ins().fcvt_to_uint_sat(I32X4, f)
                            }
                        }
                        _ => unreachable!("planned conversions"),
                    })
                    .collect();
                self.write(*d, r, m, guarded);
            }
            _ => unreachable!("the plan compiles only the operations above"),
        }
    }

    /// `setp` on the lanes of `m`: the comparison as masks, combined with
    /// `c` when the instruction has a `.bop`, into `p` and `q`.
    fn setp(&mut self, op: &Op, m: Value) {
        use Class::{Narrow as N, Wide as W};
        let Op::Setp { cmp, ty, ftz, p, q, a, b, comb, .. } = op else { unreachable!("called for setp") };
            let c = match ty {
                ITyOrF::I(it) if it.bits == 64 => W,
                _ => N,
            };
            // A float comparison reads only whether a lane is a NaN.
            let (av, bv) = match ty {
                ITyOrF::F(_) => (self.src_f(a), self.src_f(b)),
                ITyOrF::I(_) => (self.src(a, c), self.src(b, c)),
            };
            let t: Vals = match ty {
                ITyOrF::F(_) => {
                    let cc = fcc(*cmp);
                    self.map2(&av, &bv, |e, x, y| {
                        let (fx, fy) = (e.fin(x, *ftz), e.fin(y, *ftz));
                        // x64 has no vector `ueq`/`one`: as `eq | uno` and `ne & ord`.
                        match cc {
                            FloatCC::UnorderedOrEqual => {
                                let (a, b) = (e.b.ins().fcmp(FloatCC::Equal, fx, fy), e.b.ins().fcmp(FloatCC::Unordered, fx, fy));
                                e.b.ins().bor(a, b)
                            }
                            FloatCC::OrderedNotEqual => {
                                let (a, b) = (e.b.ins().fcmp(FloatCC::NotEqual, fx, fy), e.b.ins().fcmp(FloatCC::Ordered, fx, fy));
                                e.b.ins().band(a, b)
                            }
                            _ => e.b.ins().fcmp(cc, fx, fy),
                        }
                    })
                }
                ITyOrF::I(it) => {
                    let cc = icc(*cmp, *it);
                    self.map2(&av, &bv, |e, x, y| e.b.ins().icmp(cc, x, y))
                }
            };
            let t = self.to_mask(&t, c);
            // The complement only where a second predicate takes it.
            let nt = if q.is_some() { self.b.ins().bnot(t) } else { t };
            let (pv, qv) = match comb {
                None => (t, nt),
                Some((op, cs)) => {
                    let cv = self.pred(cs);
                    let f = |e: &mut Self, x| match op {
                        BoolOp::And => e.b.ins().band(x, cv),
                        BoolOp::Or => e.b.ins().bor(x, cv),
                        BoolOp::Xor => e.b.ins().bxor(x, cv),
                    };
                    (f(self, t), f(self, nt))
                }
            };
            if let Some(p) = p {
                self.set_pred(*p, pv, m);
            }
            if let Some(q) = q {
                self.set_pred(*q, qv, m);
            }
    }

    fn ibin(&mut self, (op, ty): (IBinOp, ITy), d: u32, [a, b]: [&Src; 2], (m, guarded): (Value, bool)) {
        let c = if ty.bits == 32 { Class::Narrow } else { Class::Wide };
        if let (IBinOp::MulLo, Some((x, k))) = (op, few_bits(a, b, ty.bits)) {
            let xv = self.src(x, c);
            let r = xv.iter().map(|&x| self.mul_const(x, k, c)).collect();
            return self.write(d, r, m, guarded);
        }
        let r: Vals = match op {
            IBinOp::Shl | IBinOp::Shr => {
                let Src::Imm(s) = b else { unreachable!("planned shifts have immediate amounts") };
                let s = (*s as u32).min(ty.bits);
                let av = self.src(a, c);
                av.iter()
                    .map(|&x| {
                        if op == IBinOp::Shr && ty.signed {
                            self.b.ins().sshr_imm_u(x, s.min(ty.bits - 1) as i64)
                        } else if s >= ty.bits {
                            if c == Class::Narrow {
                                self.splat32(0)
                            } else {
                                self.i64x2_const([0, 0])
                            }
                        } else if op == IBinOp::Shl {
                            self.b.ins().ishl_imm_u(x, s as i64)
                        } else {
                            self.b.ins().ushr_imm_u(x, s as i64)
                        }
                    })
                    .collect()
            }
            IBinOp::MulWide => {
                let (av, bv) = (self.src(a, Class::Narrow), self.src(b, Class::Narrow));
                let mut r = Vec::with_capacity(2);
                for k in 0..1 {
                    for hi in [false, true] {
                        let w = |e: &mut Self, x: Value| match (ty.signed, hi) {
                            (false, false) => e.b.ins().uwiden_low(x),
                            (false, true) => e.b.ins().uwiden_high(x),
                            (true, false) => e.b.ins().swiden_low(x),
                            (true, true) => e.b.ins().swiden_high(x),
                        };
                        let (x, y) = (w(self, av[k]), w(self, bv[k]));
                        r.push(self.b.ins().imul(x, y));
                    }
                }
                r
            }
            _ => {
                let (av, bv) = (self.src(a, c), self.src(b, c));
                self.map2(&av, &bv, |e, x, y| match op {
                    IBinOp::Add => e.b.ins().iadd(x, y),
                    IBinOp::Sub => e.b.ins().isub(x, y),
                    IBinOp::MulLo => e.b.ins().imul(x, y),
                    IBinOp::And => e.b.ins().band(x, y),
                    IBinOp::Or => e.b.ins().bor(x, y),
                    IBinOp::Xor => e.b.ins().bxor(x, y),
                    IBinOp::Min if ty.signed => e.b.ins().smin(x, y),
                    IBinOp::Min => e.b.ins().umin(x, y),
                    IBinOp::Max if ty.signed => e.b.ins().smax(x, y),
                    IBinOp::Max => e.b.ins().umax(x, y),
                    _ => unreachable!("planned integer operations"),
                })
            }
        };
        self.write(d, r, m, guarded);
    }

    /// Jumps to pc `pc`: its block, or the exit there.
    fn goto(&mut self, pc: u32) {
        if let Some(side) = &mut self.side {
            if pc == side.r {
                let done = side.done;
                self.b.ins().jump(done, &[]);
                return;
            }
            if self.block_at.contains_key(&pc) {
                let blk = match side.copies.get(&pc) {
                    Some(&b) => b,
                    None => {
                        let b = self.b.create_block();
                        side.copies.insert(pc, b);
                        side.todo.push(pc);
                        b
                    }
                };
                self.b.ins().jump(blk, &[]);
            } else {
                self.exit_at(pc);
            }
            return;
        }
        match self.starts.get(&pc) {
            Some(&blk) => {
                self.b.ins().jump(blk, &[]);
            }
            None => self.exit_at(pc),
        }
    }

    fn exit_at(&mut self, pc: u32) {
        let v = self.iconst32(pc);
        self.b.ins().jump(self.exit, &[v.into()]);
    }

    /// Continues in a new block when `cond` (i8/i32) is false; exits at `pc` when true.
    fn exit_if(&mut self, cond: Value, pc: u32) {
        let cont = self.b.create_block();
        let v = self.iconst32(pc);
        self.b.ins().brif(cond, self.exit, &[v.into()], cont, &[]);
        self.b.switch_to_block(cont);
    }

    /// Block `blk`'s code, into `start` (its body, or its copy in a side).
    fn block(&mut self, f: &Function, blk: &Block, start: ir::Block) {
        self.b.switch_to_block(start);
        let last = blk.term.unwrap_or(blk.data_end.saturating_sub(1).max(blk.start));
        // The stop pc inside the block: the interpreter runs it. (A side
        // stops only at its reconvergence point, where `goto` ends it.)
        if self.side.is_none() {
            let s = self.iconst32(blk.start);
            let off = self.b.ins().isub(self.stop, s);
            let inside = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThanOrEqual, off, (last - blk.start) as i64);
            self.exit_if(inside, blk.start);
        }
        // Fuel for the whole block, or the interpreter runs it.
        let need = (blk.data_end - blk.start) as i64 + blk.term.is_some() as i64;
        let left = self.b.use_var(self.left);
        let short = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, left, need);
        self.exit_if(short, blk.start);
        let left = self.b.use_var(self.left);
        let nl = self.b.ins().iadd_imm_s(left, -((blk.data_end - blk.start) as i64));
        self.b.def_var(self.left, nl);
        let mut pc = blk.start;
        while pc < blk.data_end {
            if is_mem(&f.code[pc as usize].op) {
                self.mem_insn(f, pc, blk.data_end);
                pc += 1;
            } else {
                let end = (pc..blk.data_end).find(|&q| is_mem(&f.code[q as usize].op)).unwrap_or(blk.data_end);
                self.lanes_loop(f, pc, end);
                pc = end;
            }
        }
        // The terminator's guard.
        let tguard = blk.term.and_then(|t| f.code[t as usize].guard).map(|g| (g, self.pred_val(g.slot)));
        self.cache.clear();
        self.raw.clear();
        self.pcache.clear();
        match blk.term {
            None => self.goto(blk.next),
            Some(t) => {
                let ins = &f.code[t as usize];
                let Op::Bra { target, .. } = ins.op else { unreachable!("a block ends with bra") };
                let taken = match tguard {
                    None => self.gmask,
                    Some((g, p)) => {
                        if g.neg {
                            self.b.ins().band_not(self.gmask, p)
                        } else {
                            self.b.ins().band(self.gmask, p)
                        }
                    }
                };
                let (all_b, none_b, div_b) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
                let all = self.b.ins().icmp(IntCC::Equal, taken, self.gmask);
                let nb = self.b.create_block();
                self.b.ins().brif(all, all_b, &[], nb, &[]);
                self.b.switch_to_block(nb);
                self.b.ins().brif(taken, div_b, &[], none_b, &[]);
                // Taken by every lane.
                self.b.switch_to_block(all_b);
                self.exit_if(self.yob, t);
                let left = self.b.use_var(self.left);
                let nl = self.b.ins().iadd_imm_s(left, -1);
                self.b.def_var(self.left, nl);
                self.goto(target);
                // Taken by none.
                self.b.switch_to_block(none_b);
                let left = self.b.use_var(self.left);
                let nl = self.b.ins().iadd_imm_s(left, -1);
                self.b.def_var(self.left, nl);
                self.goto(blk.next);
                // Divergent: in stack mode the code runs both sides of a
                // planned branch; else (and for a non-uniform .uni) the
                // interpreter runs it.
                self.b.switch_to_block(div_b);
                match self.sites.get(&t).copied() {
                    Some(site) if self.depth < MAX_SIDE_DEPTH && self.copied < self.copy_limit => {
                        let go = self.b.create_block();
                        let v = self.iconst32(t);
                        self.b.ins().brif(self.stackf, go, &[], self.exit, &[v.into()]);
                        self.b.switch_to_block(go);
                        self.diverge(f, t, site, taken, target);
                    }
                    _ => self.exit_at(t),
                }
            }
        }
    }

    /// The divergent `bra` at `t` (counter `site`) with lanes `taken` of
    /// the group: its fuel and count, then the taken side under `taken`
    /// and the other under the rest, each to the reconvergence point, in
    /// the interpreter's order (`push_groups`: the taken side first; a
    /// side starting at the reconvergence point is empty), then the
    /// group goes on there with all its lanes.
    fn diverge(&mut self, f: &Function, t: u32, site: u32, taken: Value, target: u32) {
        let r = f.reconv[t as usize];
        let left = self.b.use_var(self.left);
        let nl = self.b.ins().iadd_imm_s(left, -1);
        self.b.def_var(self.left, nl);
        let off = (self.divs_off + 4 * site) as i32;
        let c = self.b.ins().load(I32, self.vflags, self.base, off);
        let c = self.b.ins().iadd_imm_s(c, 1);
        self.b.ins().store(self.vflags, c, self.base, off);
        let (m, outer_exit) = (self.gmask, self.exit);
        let rest = self.b.ins().band_not(m, taken);
        let tv = self.iconst32(t);
        for (second, start, mask) in [(false, target, taken), (true, t + 1, rest)] {
            if start == r {
                continue;
            }
            let after = self.b.create_block();
            self.side_run(f, start, r, mask, after, (tv, taken, second));
            self.b.switch_to_block(after);
        }
        self.gmask = m;
        self.exit = outer_exit;
        self.goto(r);
    }

    /// One side of a divergent branch: from `start` under `mask` to `r`,
    /// then to `after`; leaving inside it records the side (`info`: the
    /// branch's pc, its taken lanes, whether this is the second side) and
    /// the thread instructions its lanes did not run.
    fn side_run(&mut self, f: &Function, start: u32, r: u32, mask: Value, after: ir::Block, info: (Value, Value, bool)) {
        let (m, outer_exit) = (self.gmask, self.exit);
        let left0 = self.b.use_var(self.left);
        let pm = self.b.ins().popcnt(m);
        let ps = self.b.ins().popcnt(mask);
        let d = self.b.ins().isub(pm, ps);
        let deficit = self.b.ins().uextend(I64, d);
        let (done, sexit) = (self.b.create_block(), self.b.create_block());
        self.b.append_block_param(sexit, I32);
        self.gmask = mask;
        self.exit = sexit;
        let parent = self.side.replace(SideCx { r, copies: HashMap::default(), todo: Vec::new(), done });
        let level = self.depth;
        self.depth += 1;
        self.goto(start);
        let blocks = self.blocks;
        while let Some(pc) = self.side.as_mut().and_then(|s| s.todo.pop()) {
            let into = self.side.as_ref().map(|s| s.copies[&pc]);
            if let (Some(into), Some(&i)) = (into, self.block_at.get(&pc)) {
                let blk = &blocks[i];
                self.copied += (blk.next - blk.start) as usize;
                self.block(f, blk, into);
            }
        }
        self.side = parent;
        self.depth = level;
        self.gmask = m;
        self.exit = outer_exit;
        // The side's thread instructions: its warp instructions times the
        // lanes it lacks.
        let settle = |e: &mut Self| {
            let left = e.b.use_var(e.left);
            let used = e.b.ins().isub(left0, left);
            let less = e.b.ins().imul(used, deficit);
            let tl = e.b.use_var(e.tless);
            let tl = e.b.ins().iadd(tl, less);
            e.b.def_var(e.tless, tl);
        };
        self.b.switch_to_block(done);
        settle(self);
        self.b.ins().jump(after, &[]);
        self.b.switch_to_block(sexit);
        let pc = self.b.block_params(sexit)[0];
        settle(self);
        // This side's record at its level; the count is the deepest
        // level's (an inner side's exit stores first, then comes here).
        let (branch, taken, second) = info;
        let at = ST_DV + 12 * level as i32;
        self.b.ins().store(self.vflags, branch, self.st, at);
        self.b.ins().store(self.vflags, taken, self.st, at + 4);
        let sv = self.iconst32(second as u32);
        self.b.ins().store(self.vflags, sv, self.st, at + 8);
        let n = self.b.ins().load(I32, self.vflags, self.st, ST_DV_N);
        let lv = self.iconst32(level as u32 + 1);
        let n = self.b.ins().umax(n, lv);
        self.b.ins().store(self.vflags, n, self.st, ST_DV_N);
        self.b.ins().jump(outer_exit, &[pc.into()]);
    }

    /// The block's data instructions `lo..hi` (lane-wise ones), as a loop
    /// over the warp's 8 chunks of 4 lanes.
    fn lanes_loop(&mut self, f: &Function, lo: u32, hi: u32) {
        let head = self.b.create_block();
        self.b.append_block_param(head, I32);
        let zero = self.iconst32(0);
        self.b.ins().jump(head, &[zero.into()]);
        self.b.switch_to_block(head);
        let k = self.b.block_params(head)[0];
        let shift = self.b.ins().ishl_imm_u(k, 2);
        let k64 = self.b.ins().uextend(I64, k);
        let on = self.b.ins().ishl_imm_u(k64, 4);
        let ow = self.b.ins().ishl_imm_u(k64, 5);
        let addr_n = self.b.ins().iadd(self.base, on);
        let addr_w = self.b.ins().iadd(self.base, ow);
        let f4 = self.iconst32(0xf);
        let cmask = self.b.ins().ishl(f4, shift);
        self.chunk = Some(Chunk { shift, addr_n, addr_w, cmask });
        for pc in lo..hi {
            let ins = &f.code[pc as usize];
            let (m, guarded) = match ins.guard {
                None => (self.gmask, false),
                Some(g) => {
                    let p = self.pred_val(g.slot);
                    let m = if g.neg { self.b.ins().band_not(self.gmask, p) } else { self.b.ins().band(self.gmask, p) };
                    (m, true)
                }
            };
            self.data(&ins.op, m, guarded);
            // Few vectors live at once: register allocation stays fast.
            if self.cache.len() > FLUSH_REGS {
                self.flush();
            }
        }
        self.end_pc = Some(hi);
        self.flush();
        self.end_pc = None;
        let k1 = self.b.ins().iadd_imm_s(k, 1);
        let more = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, k1, 8);
        let after = self.b.create_block();
        self.b.ins().brif(more, head, &[k1.into()], after, &[]);
        self.b.switch_to_block(after);
        self.chunk = None;
        for r in std::mem::take(&mut self.whole) {
            let doff = self.regs[&r].2 as i32;
            let d = self.b.ins().load(I32, self.vflags, self.base, doff);
            let d = self.b.ins().bor(d, self.gmask);
            self.b.ins().store(self.vflags, d, self.base, doff);
        }
    }
}

/// For a multiplication of `a` by `b` where one is an immediate of at
/// most two set bits in the low `bits`: the other operand and the
/// immediate (so [`Em::mul_const`] runs it as shifts).
fn few_bits<'s>(a: &'s Src, b: &'s Src, bits: u32) -> Option<(&'s Src, u64)> {
    let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let (x, k) = match (a, b) {
        (_, Src::Imm(k)) if !matches!(a, Src::Imm(_)) => (a, k & mask),
        (Src::Imm(k), _) if !matches!(b, Src::Imm(_)) => (b, k & mask),
        _ => return None,
    };
    (k.count_ones() <= 2).then_some((x, k))
}

fn fcc(c: CmpOp) -> FloatCC {
    use CmpOp as C;
    use FloatCC as F;
    match c {
        C::Eq => F::Equal,
        C::Ne => F::OrderedNotEqual,
        C::Lt => F::LessThan,
        C::Le => F::LessThanOrEqual,
        C::Gt => F::GreaterThan,
        C::Ge => F::GreaterThanOrEqual,
        C::Equ => F::UnorderedOrEqual,
        C::Neu => F::NotEqual,
        C::Ltu => F::UnorderedOrLessThan,
        C::Leu => F::UnorderedOrLessThanOrEqual,
        C::Gtu => F::UnorderedOrGreaterThan,
        C::Geu => F::UnorderedOrGreaterThanOrEqual,
        C::Num => F::Ordered,
        C::Nan => F::Unordered,
        // Integer-only operators on floats: the decoder rejects them; false
        // as `alu::fcmp` answers.
        _ => F::Unordered,
    }
}

fn icc(c: CmpOp, ty: ITy) -> IntCC {
    use CmpOp as C;
    use IntCC as I;
    match (c, ty.signed) {
        (C::Eq, _) => I::Equal,
        (C::Ne, _) => I::NotEqual,
        (C::Lt, true) => I::SignedLessThan,
        (C::Le, true) => I::SignedLessThanOrEqual,
        (C::Gt, true) => I::SignedGreaterThan,
        (C::Ge, true) => I::SignedGreaterThanOrEqual,
        (C::Lt, false) | (C::Lo, _) => I::UnsignedLessThan,
        (C::Le, false) | (C::Ls, _) => I::UnsignedLessThanOrEqual,
        (C::Gt, false) | (C::Hi, _) => I::UnsignedGreaterThan,
        (C::Ge, false) | (C::Hs, _) => I::UnsignedGreaterThanOrEqual,
        _ => I::Equal,
    }
}

/// Whether the plan's comparisons are all ones the emitter maps exactly.
pub fn cmp_supported(op: &Op) -> bool {
    match op {
        Op::Setp { cmp, ty: ITyOrF::F(FTy::F32), .. } => !matches!(cmp, CmpOp::Lo | CmpOp::Ls | CmpOp::Hi | CmpOp::Hs),
        Op::Setp { cmp, ty: ITyOrF::I(_), .. } => matches!(
            cmp,
            CmpOp::Eq | CmpOp::Ne | CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge | CmpOp::Lo | CmpOp::Ls | CmpOp::Hi | CmpOp::Hs
        ),
        _ => true,
    }
}

/// Whether `op` is a load or store (a call into the memory helper).
fn is_mem(op: &Op) -> bool {
    crate::plan::by_helper(op)
}

/// The memory helper's signature: `(ctx, index of the MemOp, lane mask) -> 0 ran | 1 handed back`.
pub fn helper_signature(call_conv: cranelift_codegen::isa::CallConv, ptr: ir::Type) -> ir::Signature {
    let mut s = ir::Signature::new(call_conv);
    s.params.extend([AbiParam::new(ptr), AbiParam::new(I32), AbiParam::new(I32)]);
    s.returns.push(AbiParam::new(I32));
    s
}

/// Builds the IR of `f` under plan `p` into `b`'s function; `helper` is
/// the address of the memory helper (of [`helper_signature`] under `cc`).
/// Returns the loads and stores, by the indices the code passes.
pub fn build(b: &mut FunctionBuilder<'_>, f: &Function, p: &Plan, lay: &Layout, (helpers, cc, ptr): ([usize; 2], cranelift_codegen::isa::CallConv, ir::Type)) -> Vec<MemOp> {
    let [helper, region_helper] = helpers;
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let params = b.block_params(entry).to_vec();
    let (base, st) = (params[0], params[1]);
    let fl = MemFlagsData::new().with_notrap();
    let gmask = b.ins().load(I32, fl, st, ST_MASK);
    let stop = b.ins().load(I32, fl, st, ST_STOP);
    let yob = b.ins().load(I32, fl, st, ST_YOB);
    let left0 = b.ins().load(I64, fl, st, ST_LEFT);
    let stackf = b.ins().load(I32, fl, st, ST_STACK);
    let pc0 = b.ins().load(I32, fl, st, ST_PC);
    let exit = b.create_block();
    b.append_block_param(exit, I32);
    let left = b.declare_var(I64);
    b.def_var(left, left0);
    let tless = b.declare_var(I64);
    let z = b.ins().iconst(I64, 0);
    b.def_var(tless, z);
    let mem_sig = b.import_signature(helper_signature(cc, ptr));
    let region_sig = b.import_signature(loops::helper_signature(cc, ptr));
    let mut em = Em {
        b,
        base,
        regs: lay.regs.iter().map(|&(r, c, o, d)| (r, (c, o, d))).collect(),
        preds: lay.preds.iter().copied().collect(),
        cache: HashMap::default(),
        written: Vec::new(),
        whole: Vec::new(),
        pcache: HashMap::default(),
        pwritten: Vec::new(),
        left,
        chunk: None,
        gmask,
        yob,
        stop,
        exit,
        starts: HashMap::default(),
        vflags: fl,
        st,
        sregs: lay.sregs.clone(),
        mem: Vec::new(),
        slots: lay.slots.clone(),
        mem_sig,
        helper,
        ptr,
        raw: Vec::new(),
        live: p.live.as_ref(),
        end_pc: None,
        bodies: HashMap::default(),
        temps: None,
        xmemo: Vec::new(),
        vmemo: VMemo::default(),
        region_sig,
        region_helper,
        codes_off: lay.codes,
        blocks: &p.blocks,
        block_at: p.blocks.iter().enumerate().map(|(i, b)| (b.start, i)).collect(),
        sites: p.sides.iter().enumerate().map(|(i, &t)| (t, i as u32)).collect(),
        divs_off: lay.divs,
        stackf,
        tless,
        side: None,
        depth: 0,
        copied: 0,
        copy_limit: 4 * f.code.len() + 512,
    };
    for blk in &p.blocks {
        let bb = em.b.create_block();
        em.starts.insert(blk.start, bb);
        em.bodies.insert(blk.start, bb);
    }
    for r in &p.regions {
        let d = em.b.create_block();
        em.starts.insert(r.head, d);
    }
    // Dispatch on the entry pc.
    let mut sw = Switch::new();
    for blk in &p.blocks {
        sw.set_entry(blk.start as u128, em.starts[&blk.start]);
    }
    let other = em.b.create_block();
    sw.emit(em.b, pc0, other);
    em.b.switch_to_block(other);
    em.b.ins().jump(exit, &[pc0.into()]);
    for blk in &p.blocks {
        let into = em.bodies[&blk.start];
        em.block(f, blk, into);
    }
    for (i, r) in p.regions.iter().enumerate() {
        em.region(f, r, i as u32);
    }
    em.b.switch_to_block(exit);
    let pc = em.b.block_params(exit)[0];
    let left = em.b.use_var(em.left);
    em.b.ins().store(fl, pc, st, ST_PC);
    em.b.ins().store(fl, left, st, ST_LEFT);
    let tl = em.b.use_var(em.tless);
    em.b.ins().store(fl, tl, st, ST_TLESS);
    em.b.ins().return_(&[]);
    em.b.seal_all_blocks();
    em.mem
}

// The offsets the code uses are those of `St`'s fields.
const _: () = {
    assert!(std::mem::offset_of!(St, pc) == ST_PC as usize);
    assert!(std::mem::offset_of!(St, mask) == ST_MASK as usize);
    assert!(std::mem::offset_of!(St, stop) == ST_STOP as usize);
    assert!(std::mem::offset_of!(St, yield_on_branch) == ST_YOB as usize);
    assert!(std::mem::offset_of!(St, left) == ST_LEFT as usize);
    assert!(std::mem::offset_of!(St, ctx) == ST_CTX as usize);
    assert!(std::mem::offset_of!(St, stack) == ST_STACK as usize);
    assert!(std::mem::offset_of!(St, dv_n) == ST_DV_N as usize);
    assert!(std::mem::offset_of!(St, dv) == ST_DV as usize);
    assert!(std::mem::offset_of!(St, tless) == ST_TLESS as usize);
    assert!(std::mem::offset_of!(St, mem_ready) == ST_MEM_READY as usize);
    assert!(std::mem::offset_of!(St, kp) == ST_KP as usize);
    assert!(std::mem::offset_of!(St, kp_len) == ST_KP_LEN as usize);
    assert!(std::mem::offset_of!(St, stores) == ST_STORES as usize);
};

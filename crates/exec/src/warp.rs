//! Per-warp state: call frames (register files as structures of arrays),
//! per-lane local memory, the SIMT stack (stack mode) and per-lane program
//! counters (ITS mode), and the call/return data movement both modes share.
//!
//! A register is `[u64; 32]`: one value per lane, raw bits in the low part.
//! A predicate register is one `u32` lane mask.

use crate::error::{Trap, TrapKind};
use crate::memory::read_le;
pub use crate::lanes::lanes;
use crate::program::*;

/// Entries of [`Warp::span_cache`].
pub const SPAN_CACHE: usize = 8;
/// Sentinel frame index.
pub const NO_FRAME: u32 = u32::MAX;

/// 0, 1, ..., 31.
const IOTA: [u64; 32] = {
    let mut a = [0u64; 32];
    let mut i = 0;
    while i < 32 {
        a[i] = i as u64;
        i += 1;
    }
    a
};

/// One activation of a function for a set of lanes.
#[derive(Debug, Default)]
pub struct Frame {
    pub func: FuncId,
    pub regs: Vec<[u64; 32]>,
    pub preds: Vec<u32>,
    /// Byte offset of this frame's storage in each member lane's local memory.
    pub local_base: u32,
    pub prev_top: [u32; 32],
    pub caller: u32,
    /// The caller's `call` instruction.
    pub call_pc: u32,
    /// Lanes that entered the call, and those that have returned.
    pub members: u32,
    pub returned: u32,
    pub depth: u32,
    pub alive: bool,
}

/// A SIMT stack entry (stack mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub pc: u32,
    pub mask: u32,
    /// Reconvergence pc (`PC_EXIT`: none, the entry ends when its lanes leave).
    pub rpc: u32,
    pub frame: u32,
}

/// What a lane is doing (ITS mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneState {
    Ready,
    /// Returned from its frame; waits for the frame's other lanes.
    WaitRet,
    /// Waiting at a CTA barrier.
    Barrier,
    /// Waiting at `barrier.cluster.wait` for this phase to complete.
    ClusterWait(u64),
    /// Waiting at the grid-wide barrier for this phase to complete.
    GridWait(u64),
    Exited,
    /// Not a thread of the CTA (a partial last warp).
    Absent,
}

/// Scheduling status of the whole warp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpStatus {
    Runnable,
    /// Blocked on a CTA barrier (stack mode: the whole warp).
    Barrier(u32),
    ClusterWait(u64),
    GridWait(u64),
    Done,
}

#[derive(Debug, Default, Clone)]
pub struct Stats {
    pub warp_instructions: u64,
    pub thread_instructions: u64,
    pub divergent_branches: u64,
    /// (function, pc) → number of divergent executions.
    pub divergence: std::collections::HashMap<(FuncId, u32), u64, std::hash::BuildHasherDefault<PcHasher>>,
}

/// The hasher of the divergence counts' (function, pc) keys: a multiply
/// and a rotate per word. The keys come from the program, not from an
/// adversary, and a divergent kernel counts one per divergent branch
/// (SipHash was 8 % of a divergent Collatz launch).
#[derive(Default)]
pub struct PcHasher(u64);

impl std::hash::Hasher for PcHasher {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u32(*b as u32);
        }
    }

    #[inline]
    fn write_u32(&mut self, x: u32) {
        self.0 = (self.0.rotate_left(26) ^ x as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

impl Stats {
    pub fn merge(&mut self, o: &Stats) {
        self.warp_instructions += o.warp_instructions;
        self.thread_instructions += o.thread_instructions;
        self.divergent_branches += o.divergent_branches;
        for (k, v) in &o.divergence {
            *self.divergence.entry(*k).or_insert(0) += v;
        }
    }
}

pub struct Warp {
    pub id: u32,
    /// Lanes that are threads of the CTA.
    pub valid: u32,
    pub exited: u32,
    pub tid: [[u64; 32]; 3],
    /// The block and first thread `tid` was last filled for by a launch,
    /// which then need not fill it again for the next CTA.
    pub(crate) tid_of: Option<([u32; 3], u32)>,
    pub frames: Vec<Frame>,
    free: Vec<u32>,
    pub local: Vec<Vec<u8>>,
    /// Whether some lane's `local` may hold bytes (a frame with local
    /// storage was pushed since the last reset).
    local_used: bool,
    pub local_top: [u32; 32],
    pub local_limit: u32,
    pub sleep_ns: u64,
    /// Warp instructions this warp executed (its virtual clock, with `sleep_ns`).
    pub instrs: u64,
    /// Stores and changing atomics this warp executed (spin detection).
    pub stores: u64,
    pub status: WarpStatus,
    pub stack: Vec<Entry>,
    pub pc: [u32; 32],
    pub lane_frame: [u32; 32],
    pub lane_state: [LaneState; 32],
    /// ITS: consecutive quanta that ended on a backward branch.
    pub spins: u32,
    pub last_key: Option<(u32, u32)>,
    pub last_mask: u32,
    /// ITS: lanes held at a whole-warp `.sync.aligned` instruction (`mma`,
    /// `wgmma.mma_async`, `ldmatrix`, ...) until the rest of the warp
    /// reaches it ([`Event::Converge`](crate::exec::Event::Converge)).
    pub converge: u32,
    /// `barrier.cluster.arrive` phase each lane arrived in (u64::MAX: not arrived).
    pub cluster_arrived: [u64; 32],
    /// Whether the ITS policy entered the warp (`pc`, `lane_frame`,
    /// `lane_state`, `spins`, `last_key`, `last_mask` may have changed),
    /// and whether a lane arrived at a cluster barrier, since the last
    /// reset: [`Warp::reset`] restores only what may have changed.
    pub(crate) its_used: bool,
    pub(crate) cluster_used: bool,
    /// Spin detection (stack mode): checkpoint hash and counters.
    pub spin_hash: u64,
    pub spin_count: u64,
    pub spin_same: u32,
    pub spin_epoch: u64,
    pub spin_stores: u64,
    /// The global allocation the last whole-warp access at a pc (modulo
    /// [`SPAN_CACHE`]) fell in: a hint, checked on every use, kept across
    /// CTAs.
    pub span_cache: [usize; SPAN_CACHE],
    /// The lanes' `cp.async` copies not yet waited for, and their groups.
    pub copies: crate::copies::AsyncCopies,
}

/// The PTX engine's warp is its own base state (the scheduler reads any
/// engine's warp through `AsRef<Warp>`).
impl AsRef<Warp> for Warp {
    #[inline(always)]
    fn as_ref(&self) -> &Warp {
        self
    }
}

impl AsMut<Warp> for Warp {
    #[inline(always)]
    fn as_mut(&mut self) -> &mut Warp {
        self
    }
}

impl Warp {
    pub fn new(id: u32, valid: u32, tid: [[u64; 32]; 3], local_limit: u32) -> Warp {
        let mut lane_state = [LaneState::Absent; 32];
        for (l, s) in lane_state.iter_mut().enumerate() {
            if valid >> l & 1 == 1 {
                *s = LaneState::Ready;
            }
        }
        Warp {
            id,
            valid,
            exited: 0,
            tid,
            tid_of: None,
            frames: Vec::new(),
            free: Vec::new(),
            local: (0..32).map(|_| Vec::new()).collect(),
            local_used: false,
            local_top: [0; 32],
            local_limit,
            sleep_ns: 0,
            instrs: 0,
            stores: 0,
            status: if valid == 0 { WarpStatus::Done } else { WarpStatus::Runnable },
            stack: Vec::new(),
            pc: [0; 32],
            lane_frame: [NO_FRAME; 32],
            lane_state,
            spins: 0,
            last_key: None,
            last_mask: 0,
            converge: 0,
            cluster_arrived: [u64::MAX; 32],
            its_used: false,
            cluster_used: false,
            spin_hash: 0,
            spin_count: 0,
            spin_same: 0,
            spin_epoch: 0,
            spin_stores: 0,
            span_cache: [usize::MAX; SPAN_CACHE],
            copies: Default::default(),
        }
    }

    /// Sets the thread ids of the warp whose first lane is thread `t0` of a
    /// block of size `block` (x fastest); lanes past the block's end read 0.
    pub fn fill_tid(&mut self, block: [u32; 3], t0: u32) {
        let b = block;
        let threads = b[0] * b[1] * b[2];
        let n = threads.saturating_sub(t0).min(32);
        if n == 32 && t0 % b[0] + 32 <= b[0] {
            // A whole warp inside one row of x (any block whose x extent
            // is a multiple of 32): x counts up, y and z are the first
            // lane's.
            let (x, y, z) = if b[1] == 1 && b[2] == 1 {
                // (A one-dimensional block: no division.)
                (t0 as u64, 0, 0)
            } else {
                ((t0 % b[0]) as u64, ((t0 / b[0]) % b[1]) as u64, (t0 / (b[0] * b[1])) as u64)
            };
            for (t, i) in self.tid[0].iter_mut().zip(IOTA) {
                *t = x + i;
            }
            self.tid[1] = [y; 32];
            self.tid[2] = [z; 32];
            return;
        }
        // The first lane's (x, y, z), then step through the block (no
        // division per lane).
        let (mut x, mut y, mut z) = (t0 % b[0], (t0 / b[0]) % b[1], t0 / (b[0] * b[1]));
        for l in 0..32usize {
            if (l as u32) >= n {
                self.tid[0][l] = 0;
                self.tid[1][l] = 0;
                self.tid[2][l] = 0;
                continue;
            }
            self.tid[0][l] = x as u64;
            self.tid[1][l] = y as u64;
            self.tid[2][l] = z as u64;
            x += 1;
            if x == b[0] {
                x = 0;
                y += 1;
                if y == b[1] {
                    y = 0;
                    z += 1;
                }
            }
        }
    }

    /// Makes this warp what `Warp::new(id, valid, tid, local_limit)` would
    /// return, keeping its buffers (frames, register files, local memory,
    /// stack) for reuse: a launch worker runs CTA after CTA in the same
    /// warps. Frames come back in index order, local memory reads as zeros.
    /// The caller sets `tid` (in place).
    pub fn reset(&mut self, id: u32, valid: u32, local_limit: u32) {
        if valid == u32::MAX {
            self.lane_state = [LaneState::Ready; 32];
        } else if valid != self.valid || self.its_used {
            for (l, s) in self.lane_state.iter_mut().enumerate() {
                *s = if valid >> l & 1 == 1 { LaneState::Ready } else { LaneState::Absent };
            }
        }
        if self.its_used {
            self.pc = [0; 32];
            self.lane_frame = [NO_FRAME; 32];
            self.spins = 0;
            self.last_key = None;
            self.last_mask = 0;
            self.converge = 0;
            self.its_used = false;
        }
        if self.cluster_used {
            self.cluster_arrived = [u64::MAX; 32];
            self.cluster_used = false;
        }
        self.id = id;
        self.valid = valid;
        self.exited = 0;
        for f in &mut self.frames {
            f.alive = false;
        }
        self.free.clear();
        self.free.extend((0..self.frames.len() as u32).rev());
        // (Only a frame with local storage makes a lane's local top
        // nonzero, and it sets `local_used`.)
        if self.local_used {
            for l in &mut self.local {
                l.clear();
            }
            self.local_top = [0; 32];
            self.local_used = false;
        }
        self.local_limit = local_limit;
        self.sleep_ns = 0;
        self.instrs = 0;
        self.stores = 0;
        self.status = if valid == 0 { WarpStatus::Done } else { WarpStatus::Runnable };
        self.stack.clear();
        self.spin_hash = 0;
        self.spin_count = 0;
        self.spin_same = 0;
        self.spin_epoch = 0;
        self.spin_stores = 0;
        self.copies.clear();
    }

    /// Creates a frame for `func` entered by `members`; returns its index.
    pub(crate) fn push_frame(&mut self, prog: &Program, func: FuncId, members: u32, caller: u32, call_pc: u32, depth: u32) -> Result<u32, Trap> {
        self.push_frame_zeroing(prog, (func, members), (caller, call_pc, depth), None)
    }

    /// [`Warp::push_frame`], zeroing only the registers of `zero` when it
    /// is given (see [`crate::prefix`]: the others are written before any
    /// lane reads them); registers the frame did not hold yet start at
    /// zero.
    pub(crate) fn push_frame_zeroing(&mut self, prog: &Program, (func, members): (FuncId, u32), (caller, call_pc, depth): (u32, u32, u32), zero: Option<&[u32]>) -> Result<u32, Trap> {
        let f = &prog.functions[func as usize];
        // (Lane loops over all 32 lanes with the mask as a select: they
        // vectorise.)
        let on = |l: usize| members >> l & 1 != 0;
        // No lane holds a frame in local memory (a kernel's entry, or
        // frames without local storage): base 0, nothing to save.
        let no_local = self.local_top == [0u32; 32];
        let mut base = 0u32;
        if !no_local {
            for l in 0..32 {
                base = base.max(if on(l) { self.local_top[l] } else { 0 });
            }
        }
        let base = base.div_ceil(16) * 16;
        let top = base as u64 + f.frame_bytes as u64;
        if top > self.local_limit as u64 {
            return Err(Trap::new(
                TrapKind::OutOfMemory,
                format!("local memory exceeds its limit of {} bytes per thread: the frame of `{}` ({} bytes, call depth {depth}) does not fit", self.local_limit, f.name, f.frame_bytes),
            ));
        }
        let mut prev_top = [0u32; 32];
        if !no_local || top != 0 {
            for (l, (p, t)) in prev_top.iter_mut().zip(self.local_top.iter_mut()).enumerate() {
                *p = if on(l) { *t } else { 0 };
                *t = if on(l) { top as u32 } else { *t };
            }
        }
        if top > 0 {
            self.local_used = true;
            for l in lanes(members) {
                if self.local[l].len() < top as usize {
                    self.local[l].resize(top as usize, 0);
                }
            }
        }
        let idx = match self.free.pop() {
            Some(i) => i,
            None => {
                self.frames.push(Frame::default());
                (self.frames.len() - 1) as u32
            }
        };
        let fr = &mut self.frames[idx as usize];
        fr.func = func;
        // Registers start zeroed (those the frame held, then new ones).
        fr.regs.truncate(f.num_regs as usize);
        match zero {
            None => fr.regs.fill([0u64; 32]),
            Some(list) => {
                for &r in list {
                    if let Some(x) = fr.regs.get_mut(r as usize) {
                        *x = [0u64; 32];
                    }
                }
            }
        }
        fr.regs.resize(f.num_regs as usize, [0u64; 32]);
        fr.preds.clear();
        fr.preds.resize(f.num_preds as usize, 0);
        fr.local_base = base;
        fr.prev_top = prev_top;
        fr.caller = caller;
        fr.call_pc = call_pc;
        fr.members = members;
        fr.returned = 0;
        fr.depth = depth;
        fr.alive = true;
        Ok(idx)
    }

    pub fn free_frame(&mut self, idx: u32) {
        let fr = &mut self.frames[idx as usize];
        if !fr.alive {
            return;
        }
        fr.alive = false;
        let m = fr.members;
        if m == u32::MAX {
            self.local_top = fr.prev_top;
        } else {
            for l in 0..32 {
                self.local_top[l] = if m >> l & 1 != 0 { fr.prev_top[l] } else { self.local_top[l] };
            }
        }
        self.free.push(idx);
    }

    /// Enters function `f` for lanes `m` calling from instruction `pc` of
    /// frame `caller` with `args` and `nrets` return bindings: checks the
    /// call depth (`max_depth`), that `f` has a body and that the call
    /// matches its parameters, creates the callee's frame and passes the
    /// arguments. Returns the new frame.
    pub(crate) fn call(&mut self, prog: &Program, max_depth: u32, (caller, pc): (u32, u32), (f, m): (FuncId, u32), args: &[CallArg], nrets: usize) -> Result<u32, Trap> {
        let callee = &prog.functions[f as usize];
        let depth = self.frames[caller as usize].depth + 1;
        if depth > max_depth {
            return Err(Trap::lane(TrapKind::CallDepth, m.trailing_zeros(), format!("call depth exceeds the limit of {max_depth} calling `{}`", callee.name)));
        }
        if !callee.defined {
            return Err(Trap::new(TrapKind::Unsupported, format!("call to external function `{}` is not supported yet", callee.name)));
        }
        if args.len() != callee.params.len() || nrets != callee.rets.len() {
            return Err(Trap::lane(
                TrapKind::PrototypeMismatch,
                m.trailing_zeros(),
                format!(
                    "call passes {} arguments and {nrets} return values but `{}` takes {} and returns {}",
                    args.len(),
                    callee.name,
                    callee.params.len(),
                    callee.rets.len()
                ),
            ));
        }
        let nf = self.push_frame(prog, f, m, caller, pc, depth)?;
        self.pass_args(prog, caller, nf, args, m)?;
        Ok(nf)
    }

    /// Copies call arguments from the caller frame into a new callee frame.
    pub(crate) fn pass_args(&mut self, prog: &Program, caller: u32, callee: u32, args: &[CallArg], mask: u32) -> Result<(), Trap> {
        let cf = self.frames[callee as usize].func;
        let formals = &prog.functions[cf as usize].params;
        for (arg, formal) in args.iter().zip(formals.iter()) {
            for l in lanes(mask) {
                self.move_value(caller, *arg, callee, *formal, l)?;
            }
        }
        Ok(())
    }

    /// Copies return values of `callee` into the caller's bindings for lanes `mask`.
    pub(crate) fn pass_rets(&mut self, prog: &Program, callee: u32, mask: u32) -> Result<(), Trap> {
        let fr = &self.frames[callee as usize];
        let (caller, call_pc, cf) = (fr.caller, fr.call_pc, fr.func);
        if caller == NO_FRAME {
            return Ok(());
        }
        let caller_func = self.frames[caller as usize].func;
        let Op::Call { rets, .. } = &prog.functions[caller_func as usize].code[call_pc as usize].op else {
            return Ok(());
        };
        let formals = &prog.functions[cf as usize].rets;
        for (bind, formal) in rets.iter().zip(formals.iter()) {
            for l in lanes(mask) {
                // Reverse direction: formal (callee) → binding (caller).
                let v = self.read_formal(callee, *formal, l)?;
                match *bind {
                    CallArg::Reg(r) => self.frames[caller as usize].regs[r as usize][l] = v.0,
                    CallArg::Param { offset, size } => {
                        let base = self.frames[caller as usize].local_base + offset;
                        self.write_bytes(l, base, size.min(formal.size()), &v.1)?;
                    }
                    CallArg::Imm(_) => {}
                }
            }
        }
        Ok(())
    }

    fn read_formal(&self, fi: u32, f: Formal, l: usize) -> Result<(u64, Vec<u8>), Trap> {
        let fr = &self.frames[fi as usize];
        match f {
            Formal::Reg { slot, size } => {
                let v = fr.regs[slot as usize][l];
                Ok((v, v.to_le_bytes()[..size.min(8) as usize].to_vec()))
            }
            Formal::Param { offset, size } => {
                let a = (fr.local_base + offset) as usize;
                let bytes = self.local[l].get(a..a + size as usize).ok_or_else(|| oob_local(l))?.to_vec();
                let v = read_le(&bytes, 0, size.min(8)).unwrap_or(0);
                Ok((v, bytes))
            }
        }
    }

    fn write_bytes(&mut self, l: usize, at: u32, size: u32, bytes: &[u8]) -> Result<(), Trap> {
        let a = at as usize;
        let n = (size as usize).min(bytes.len());
        let dst = self.local[l].get_mut(a..a + n).ok_or_else(|| oob_local(l))?;
        dst.copy_from_slice(&bytes[..n]);
        Ok(())
    }

    fn move_value(&mut self, from: u32, arg: CallArg, to: u32, formal: Formal, l: usize) -> Result<(), Trap> {
        let src_fr = &self.frames[from as usize];
        let bytes: Vec<u8> = match arg {
            CallArg::Reg(r) => src_fr.regs[r as usize][l].to_le_bytes().to_vec(),
            CallArg::Imm(v) => v.to_le_bytes().to_vec(),
            CallArg::Param { offset, size } => {
                let a = (src_fr.local_base + offset) as usize;
                self.local[l].get(a..a + size as usize).ok_or_else(|| oob_local(l))?.to_vec()
            }
        };
        match formal {
            Formal::Reg { slot, size } => {
                let v = read_le(&bytes, 0, size.min(8).min(bytes.len() as u32)).unwrap_or(0);
                self.frames[to as usize].regs[slot as usize][l] = v;
            }
            Formal::Param { offset, size } => {
                let base = self.frames[to as usize].local_base + offset;
                let mut b = bytes;
                b.resize(size as usize, 0);
                self.write_bytes(l, base, size, &b)?;
            }
        }
        Ok(())
    }
}

fn oob_local(l: usize) -> Trap {
    Trap::lane(TrapKind::OutOfBounds, l as u32, "parameter access outside the frame's local storage")
}

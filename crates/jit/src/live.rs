//! Which of the registers compiled code keeps a thread may still read
//! after a point of its function: a backward liveness over every
//! instruction of the function, compiled or not, for one thread (a
//! register is private to its lane, so a lane's own path decides). A
//! register dead where a chunk loop ends is not stored back from its
//! vectors: on every path the thread writes it before it reads it, by
//! compiled code or by the interpreter.
//!
//! It is conservative where it cannot see: an instruction the tier does
//! not compile (a call, a shuffle, a vote ...) reads every register, a
//! guarded write kills nothing, and a `ret` from a function that is not a
//! kernel reads every register (its return values may be registers).

use ptxsim_exec::program::{Instr, Op};
use rustc_hash::FxHashMap as HashMap;

/// Most bits (instructions × registers) the analysis keeps; a larger
/// function is compiled without it (every register stored).
const MAX_BITS: usize = 1 << 24;

/// What one instruction does to the registers, for [`Live::new`]:
/// `None` when the tier does not know (it reads every register).
pub struct Effect {
    pub reads: Vec<u32>,
    /// Registers written in every lane of the thread's path (unguarded).
    pub kills: Vec<u32>,
}

/// The registers live before each instruction, as bit sets over the
/// compiled registers.
#[derive(Debug)]
pub struct Live {
    idx: HashMap<u32, usize>,
    words: usize,
    bits: Vec<u64>,
}

impl Live {
    /// The liveness of a function's `code` (`kernel`: it is a kernel) over
    /// the registers `regs`, from each instruction's effect; `None` for a
    /// function too large to analyse.
    pub fn new((code, kernel): (&[Instr], bool), regs: &[u32], effects: &[Option<Effect>]) -> Option<Live> {
        let n = code.len();
        let words = regs.len().div_ceil(64).max(1);
        if n.checked_mul(words * 64)? > MAX_BITS {
            return None;
        }
        let idx: HashMap<u32, usize> = regs.iter().enumerate().map(|(i, &r)| (r, i)).collect();
        let set = |v: &mut [u64], r: &u32| {
            if let Some(&i) = idx.get(r) {
                v[i / 64] |= 1 << (i % 64);
            }
        };
        // Per pc: successors, the bits read and the bits killed.
        let mut succ: Vec<Vec<u32>> = Vec::with_capacity(n);
        let mut gen = vec![0u64; n * words];
        let mut kill = vec![0u64; n * words];
        for (pc, ins) in code.iter().enumerate() {
            let next = (pc + 1 < n).then_some(pc as u32 + 1);
            // A guarded exit, trap or return goes on at the next pc in the
            // lanes whose guard is false.
            let on = if ins.guard.is_some() { next } else { None };
            let (s, reads_all): (Vec<u32>, bool) = match &ins.op {
                Op::Bra { target, .. } => (next.into_iter().chain([*target]).collect(), false),
                Op::Brx { targets, .. } => (next.into_iter().chain(targets.iter().copied()).collect(), true),
                Op::Exit | Op::Trap => (on.into_iter().collect(), false),
                Op::Ret { .. } => (on.into_iter().collect(), !kernel),
                _ => (next.into_iter().collect(), false),
            };
            let (g, k) = (&mut gen[pc * words..(pc + 1) * words], &mut kill[pc * words..(pc + 1) * words]);
            match effects.get(pc).and_then(|e| e.as_ref()) {
                _ if reads_all => g.iter_mut().for_each(|w| *w = u64::MAX),
                Some(e) => {
                    e.reads.iter().for_each(|r| set(g, r));
                    e.kills.iter().for_each(|r| set(k, r));
                }
                None if matches!(ins.op, Op::Exit | Op::Trap | Op::Ret { .. } | Op::Bra { .. }) => {}
                None => g.iter_mut().for_each(|w| *w = u64::MAX),
            }
            succ.push(s);
        }
        let mut bits = gen.clone();
        let mut out = vec![0u64; words];
        loop {
            let mut changed = false;
            for pc in (0..n).rev() {
                out.iter_mut().for_each(|w| *w = 0);
                for &s in &succ[pc] {
                    let s = s as usize;
                    if s < n {
                        out.iter_mut().zip(&bits[s * words..(s + 1) * words]).for_each(|(o, b)| *o |= b);
                    }
                }
                for w in 0..words {
                    let v = (out[w] & !kill[pc * words + w]) | gen[pc * words + w];
                    if v != bits[pc * words + w] {
                        bits[pc * words + w] = v;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        Some(Live { idx, words, bits })
    }

    /// The bit of register `r` in [`Live::row`]s (`None`: not analysed,
    /// always live).
    pub fn index(&self, r: u32) -> Option<usize> {
        self.idx.get(&r).copied()
    }

    /// The registers live at `pc`, as bits by [`Live::index`] (`None`:
    /// past the end).
    pub fn row(&self, pc: u32) -> Option<&[u64]> {
        self.bits.get(pc as usize * self.words..(pc as usize + 1) * self.words)
    }

    /// Whether register `r` may be read at or after `pc` before it is
    /// written (`pc` past the end: nothing is).
    pub fn before(&self, pc: u32, r: u32) -> bool {
        let Some(&i) = self.idx.get(&r) else { return true };
        match self.bits.get(pc as usize * self.words + i / 64) {
            Some(w) => w & (1 << (i % 64)) != 0,
            None => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn func(code: Vec<Op>) -> Vec<Instr> {
        code.into_iter().map(|op| Instr { op, guard: None, line: 0, span: (0, 0) }).collect()
    }

    #[test]
    fn a_register_rewritten_on_every_path_is_dead_and_one_read_later_is_live() {
        // 0: r1 = ..., r2 = ...   1: bra 3   2: (skipped)   3: read r1, write r2   4: exit
        let f = func(vec![Op::Nop, Op::Bra { target: 3, uni: false }, Op::Nop, Op::Nop, Op::Exit]);
        let eff = vec![
            Some(Effect { reads: vec![], kills: vec![1, 2] }),
            None,
            Some(Effect { reads: vec![2], kills: vec![] }),
            Some(Effect { reads: vec![1], kills: vec![2] }),
            None,
        ];
        let l = Live::new((&f, true), &[1, 2], &eff).expect("small");
        assert!(l.before(1, 1), "r1 is read at 3");
        // r2 is read at 2, which the branch's fall-through reaches.
        assert!(l.before(1, 2));
        assert!(!l.before(3, 2), "written at 3 before any read");
        assert!(!l.before(4, 1), "nothing is read after exit");
        assert!(l.before(99, 1), "past the end: unknown, live");
    }

    #[test]
    fn a_guarded_exit_falls_through_to_the_next_instruction() {
        // 0: write r1   1: @p exit   2: read r1   3: exit
        let mut f = func(vec![Op::Nop, Op::Exit, Op::Nop, Op::Exit]);
        f[1].guard = Some(ptxsim_exec::program::Guard { slot: 0, neg: false });
        let eff = vec![Some(Effect { reads: vec![], kills: vec![1] }), None, Some(Effect { reads: vec![1], kills: vec![] }), None];
        let l = Live::new((&f, true), &[1], &eff).expect("small");
        assert!(l.before(1, 1), "lanes whose guard is false read r1 at 2");
        f[1].guard = None;
        let l = Live::new((&f, true), &[1], &eff).expect("small");
        assert!(!l.before(1, 1), "an unguarded exit ends every lane");
    }

    #[test]
    fn an_instruction_the_tier_does_not_know_reads_everything() {
        let f = func(vec![Op::Nop, Op::Nop, Op::Exit]);
        let eff = vec![Some(Effect { reads: vec![], kills: vec![7] }), None, None];
        let l = Live::new((&f, true), &[7], &eff).expect("small");
        assert!(l.before(1, 7));
    }
}

//! Reconvergence points: the immediate post-dominator of each potentially
//! divergent branch, as an instruction index; and the SIMT reconvergence
//! point the engine's stack uses, which ignores the paths that leave through
//! `exit` or `trap` (threads that exit never need to be waited for).

use ptxsim_isa::Flow;
use crate::cfg::{Cfg, Terminator};
use crate::dom::{cfg_post_dominators, cfg_post_dominators_to, DomTree};
use crate::flat::FlatFunction;

/// Where the threads of a branch meet again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reconvergence {
    /// At this instruction index.
    At(usize),
    /// Only at the function's virtual exit (the threads leave separately).
    Exit,
}

/// Control-flow facts about one function that the engine and lowering need.
#[derive(Debug)]
pub struct FunctionAnalysis {
    pub cfg: Cfg,
    pub postdom: DomTree,
    /// For each instruction index, its reconvergence point if it is a branch
    /// (`bra`, `brx.idx`) or a guarded `ret`/`exit`; `None` for other instructions.
    pub reconvergence: Vec<Option<Reconvergence>>,
    /// The same, for the SIMT stack: the immediate post-dominator over the
    /// CFG in which only `ret` (and an `exit` that is the function's last
    /// instruction) reaches the virtual exit, so an `exit` or `trap` inside
    /// one arm of a branch does not push the meeting point of the other arms
    /// past their join. As ptxas does with SSY/SYNC: an exiting thread leaves
    /// the warp, and the others still meet at the join. Where a branch
    /// cannot reach such an exit (every path exits), it is `reconvergence`.
    pub simt_reconvergence: Vec<Option<Reconvergence>>,
}

impl FunctionAnalysis {
    pub fn new(f: &FlatFunction<'_, '_>) -> FunctionAnalysis {
        let cfg = Cfg::new(f);
        let postdom = cfg_post_dominators(&cfg);
        let n = f.instrs.len();
        let normal_end = |b: usize| {
            let last = cfg.blocks[b].end.saturating_sub(1);
            match f.instrs.get(last) {
                Some(i) => match ptxsim_isa::flow(i.opcode.text) {
                    Flow::Ret => true,
                    Flow::Exit => i.guard.is_none() && last + 1 == n,
                    _ => false,
                },
                None => false,
            }
        };
        let simt_postdom = cfg_post_dominators_to(&cfg, &normal_end);
        let nb = cfg.blocks.len();
        let mut reconvergence = vec![None; f.instrs.len()];
        let mut simt_reconvergence = vec![None; f.instrs.len()];
        for (k, t) in cfg.terms.iter().enumerate() {
            let branchy = match t {
                Terminator::Branch { .. } | Terminator::IndirectBranch { .. } => true,
                Terminator::Leave { conditional } => *conditional,
                Terminator::None | Terminator::Unresolved => false,
            };
            if !branchy {
                continue;
            }
            let b = cfg.block_of[k];
            let point = |t: &DomTree| match t.idom.get(b).copied().flatten() {
                Some(p) if p != nb => Reconvergence::At(cfg.blocks[p].start),
                _ => Reconvergence::Exit,
            };
            reconvergence[k] = Some(point(&postdom));
            // A branch from which no normal end is reachable has no idom in
            // the SIMT tree (and neither does the virtual exit itself).
            let reaches = simt_postdom.idom.get(b).copied().flatten().is_some();
            simt_reconvergence[k] = Some(if reaches { point(&simt_postdom) } else { point(&postdom) });
        }
        FunctionAnalysis { cfg, postdom, reconvergence, simt_reconvergence }
    }
}

//! Reconvergence points: the immediate post-dominator of each potentially
//! divergent branch, as an instruction index.

use crate::cfg::{Cfg, Terminator};
use crate::dom::{cfg_post_dominators, DomTree};
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
}

impl FunctionAnalysis {
    pub fn new(f: &FlatFunction<'_, '_>) -> FunctionAnalysis {
        let cfg = Cfg::new(f);
        let postdom = cfg_post_dominators(&cfg);
        let nb = cfg.blocks.len();
        let mut reconvergence = vec![None; f.instrs.len()];
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
            reconvergence[k] = Some(match postdom.idom.get(b).copied().flatten() {
                Some(p) if p != nb => Reconvergence::At(cfg.blocks[p].start),
                _ => Reconvergence::Exit,
            });
        }
        FunctionAnalysis { cfg, postdom, reconvergence }
    }
}

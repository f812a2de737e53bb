//! Control-flow graphs of flattened functions: basic blocks and edges from
//! fall-through, `bra`, `brx.idx` (one edge per `.branchtargets` entry), `ret`,
//! `exit` and `trap`. Post-dominators are computed over a virtual exit joined to
//! every block that leaves the function.

use crate::flat::FlatFunction;
use ptxsim_isa::Flow;
use ptxsim_syntax::ast::{Instruction, OperandKind};

/// Index of a basic block.
pub type BlockId = usize;

/// How control leaves an instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Terminator {
    /// Falls through to the next instruction.
    None,
    /// `bra` (guarded or not) to an instruction index.
    Branch { target: usize, conditional: bool, uni: bool },
    /// `brx.idx` over a `.branchtargets` list.
    IndirectBranch { targets: Vec<usize>, conditional: bool, uni: bool },
    /// `ret`, `exit` or `trap` (guarded ones fall through too).
    Leave { conditional: bool },
    /// A branch whose target could not be resolved (reported by the checker).
    Unresolved,
}

/// Classifies an instruction of `f`'s body, resolving labels from its
/// block ([`terminator_at`] for instruction `k`, which callers that have the
/// index use).
pub fn terminator(f: &FlatFunction<'_, '_>, i: &Instruction<'_>) -> Terminator {
    let k = f.instrs.iter().position(|x| std::ptr::eq(*x as *const _ as *const u8, i as *const _ as *const u8)).unwrap_or(0);
    terminator_at(f, k, i)
}

/// Classifies instruction `k` of `f` (`i`), resolving labels from its block.
pub fn terminator_at(f: &FlatFunction<'_, '_>, k: usize, i: &Instruction<'_>) -> Terminator {
    let conditional = i.guard.is_some();
    let uni = ptxsim_isa::is_uni(i);
    // The control-flow kind is the opcode's row of the instruction description.
    let Some(row) = ptxsim_isa::lookup(i.opcode.text) else { return Terminator::None };
    match row.flow {
        Flow::Branch => match i.operands.first().map(|o| &o.kind) {
            Some(OperandKind::Name { name, component: None }) => match f.label_at(name.text, k) {
                Some(target) => Terminator::Branch { target, conditional, uni },
                None => Terminator::Unresolved,
            },
            _ => Terminator::Unresolved,
        },
        Flow::IndirectBranch => match i.operands.get(1).map(|o| &o.kind) {
            Some(OperandKind::Name { name, component: None }) => {
                match f.branch_targets.get(name.text) {
                    Some(list) => {
                        let mut targets = Vec::with_capacity(list.len());
                        for l in list.iter() {
                            match f.label_at(l.text, k) {
                                Some(t) => targets.push(t),
                                None => return Terminator::Unresolved,
                            }
                        }
                        Terminator::IndirectBranch { targets, conditional, uni }
                    }
                    None => Terminator::Unresolved,
                }
            }
            _ => Terminator::Unresolved,
        },
        Flow::Ret | Flow::Exit | Flow::Trap => Terminator::Leave { conditional },
        Flow::Seq | Flow::Call | Flow::Barrier => Terminator::None,
    }
}

#[derive(Clone, Debug)]
pub struct BasicBlock {
    /// Instruction range `[start, end)` in the flat function.
    pub start: usize,
    pub end: usize,
    /// Successor blocks, sorted and without duplicates.
    pub succs: Vec<BlockId>,
    pub preds: Vec<BlockId>,
    /// Whether control can leave the function from this block.
    pub exits: bool,
}

/// The CFG of one function. Block 0 is the entry. An empty body has one empty block.
#[derive(Clone, Debug)]
pub struct Cfg {
    pub blocks: Vec<BasicBlock>,
    /// For each instruction, the block holding it.
    pub block_of: Vec<BlockId>,
    /// Each instruction's control effect.
    pub terms: Vec<Terminator>,
}

impl Cfg {
    pub fn new(f: &FlatFunction<'_, '_>) -> Cfg {
        let n = f.instrs.len();
        let terms: Vec<Terminator> = f.instrs.iter().enumerate().map(|(k, i)| terminator_at(f, k, i)).collect();
        // Leaders: the entry, every label target, every instruction after a terminator.
        let mut leader = vec![false; n + 1];
        leader[0] = true;
        for t in f.label_targets() {
            leader[t.min(n)] = true;
        }
        for (k, t) in terms.iter().enumerate() {
            match t {
                Terminator::None => {}
                Terminator::Branch { target, .. } => {
                    leader[*target] = true;
                    leader[k + 1] = true;
                }
                Terminator::IndirectBranch { targets, .. } => {
                    for &x in targets {
                        leader[x] = true;
                    }
                    leader[k + 1] = true;
                }
                Terminator::Leave { .. } | Terminator::Unresolved => leader[k + 1] = true,
            }
        }
        let mut starts: Vec<usize> = (0..n).filter(|&k| leader[k]).collect();
        if starts.is_empty() {
            starts.push(0);
        }
        let mut block_of = vec![0; n + 1];
        let mut blocks = Vec::with_capacity(starts.len());
        for (b, &s) in starts.iter().enumerate() {
            let e = starts.get(b + 1).copied().unwrap_or(n);
            for slot in &mut block_of[s..e] {
                *slot = b;
            }
            blocks.push(BasicBlock { start: s, end: e, succs: Vec::new(), preds: Vec::new(), exits: false });
        }
        let nb = blocks.len();
        // A target equal to `n` (a label at the end of the body) falls off the end: it exits.
        let block_at = |k: usize| if k < n { Some(block_of[k]) } else { None };
        for b in 0..nb {
            let (s, e) = (blocks[b].start, blocks[b].end);
            let mut succs = Vec::new();
            let mut exits = false;
            let fall = |succs: &mut Vec<BlockId>, exits: &mut bool| match block_at(e) {
                Some(x) => succs.push(x),
                None => *exits = true,
            };
            if e == s {
                exits = true;
            } else {
                match &terms[e - 1] {
                    Terminator::None => fall(&mut succs, &mut exits),
                    Terminator::Branch { target, conditional, .. } => {
                        match block_at(*target) {
                            Some(x) => succs.push(x),
                            None => exits = true,
                        }
                        if *conditional {
                            fall(&mut succs, &mut exits);
                        }
                    }
                    Terminator::IndirectBranch { targets, conditional, .. } => {
                        for &t in targets {
                            match block_at(t) {
                                Some(x) => succs.push(x),
                                None => exits = true,
                            }
                        }
                        if *conditional {
                            fall(&mut succs, &mut exits);
                        }
                    }
                    Terminator::Leave { conditional } => {
                        exits = true;
                        if *conditional {
                            fall(&mut succs, &mut exits);
                        }
                    }
                    Terminator::Unresolved => exits = true,
                }
            }
            succs.sort_unstable();
            succs.dedup();
            blocks[b].succs = succs;
            blocks[b].exits = exits;
        }
        for b in 0..nb {
            for k in 0..blocks[b].succs.len() {
                let s = blocks[b].succs[k];
                blocks[s].preds.push(b);
            }
        }
        block_of.truncate(n);
        Cfg { blocks, block_of, terms }
    }

    /// Blocks reachable from the entry, in reverse post-order.
    pub fn reverse_postorder(&self) -> Vec<BlockId> {
        let nb = self.blocks.len();
        let mut seen = vec![false; nb];
        let mut post = Vec::with_capacity(nb);
        let mut stack: Vec<(BlockId, usize)> = vec![(0, 0)];
        seen[0] = true;
        while let Some(&mut (b, ref mut k)) = stack.last_mut() {
            if let Some(&s) = self.blocks[b].succs.get(*k) {
                *k += 1;
                if !seen[s] {
                    seen[s] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
                stack.pop();
            }
        }
        post.reverse();
        post
    }
}

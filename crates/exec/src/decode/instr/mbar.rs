//! Decoding the typed `mbarrier` row (PTX ISA 9.7.13.15) from its [`Insn`]
//! fields into [`Op::Mbarrier`] (semantics in `datapath/mbarrier.rs`):
//! `init`, `inval`, `arrive`/`arrive_drop` (with `.noComplete` or
//! `.expect_tx`), `expect_tx`, `complete_tx`, `test_wait`/`try_wait`
//! (with `.parity`) and `pending_count`.
//!
//! What the fields mean to this engine: the state space picks the window
//! (a `.shared::cta` object is this CTA's; a `.shared::cluster` one, its
//! address from `mapa`, may be another CTA's of the cluster, whose
//! mbarrier the operation then acts on); none is a generic address. The
//! memory-ordering semantics and their scope need nothing more: the
//! engine performs each operation at once, in program order, which every
//! order and scope allows. `try_wait`'s suspend-time hint bounds how long
//! a thread may wait before the instruction returns; the engine's
//! `try_wait` returns at once, which every hint allows (the operand is
//! still read as a `.u32` source). A combination `Insn::mbarrier` rejects
//! is refused with its reason.

use super::{DecodeError, FuncDecoder, ImmKind, R};
use crate::program::*;
use ptxsim_isa::modifiers::opname;
use ptxsim_isa::{Insn, MbarrierOp, MbarrierSpace};
use ptxsim_syntax::ast::{self, OperandKind};

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// `mbarrier.*`.
    pub(super) fn mbarrier(&mut self, i: &ast::Instruction<'_>, insn: Insn) -> R<Op> {
        let x = match insn.mbarrier() {
            Some(Ok(x)) => x,
            Some(Err(m)) => return Err(DecodeError::Operand(format!("`{}`: {}", opname(i), m.why))),
            None => return Err(DecodeError::Unsupported(opname(i))),
        };
        if let Some((_, why)) = ptxsim_isa::mbarrier_layout(i) {
            return Err(DecodeError::Operand(format!("`{}`: {why}", opname(i))));
        }
        let space = match x.space {
            None => Space::Generic,
            Some(MbarrierSpace::Shared | MbarrierSpace::SharedCta) => Space::SharedCta,
            Some(MbarrierSpace::SharedCluster) => Space::Shared,
        };
        let ops = &i.operands;
        let none = (Space::Shared, Addr { base: AddrBase::None, offset: 0 });
        let arity = |n: std::ops::RangeInclusive<usize>| {
            if n.contains(&ops.len()) {
                Ok(())
            } else {
                Err(DecodeError::Operand(format!("`{}` takes {} to {} operands", opname(i), n.start(), n.end())))
            }
        };
        use MbarrierOp::*;
        let (op, d, addr, a) = match x.op {
            Init => {
                arity(2..=2)?;
                (MbarOp::Init, None, self.addr(&ops[0], space)?, self.src(&ops[1], ImmKind::Int(32))?)
            }
            Inval => {
                arity(1..=1)?;
                (MbarOp::Inval, None, self.addr(&ops[0], space)?, Src::Imm(0))
            }
            Arrive | ArriveDrop => {
                arity(2..=3)?;
                let d = match ops[0].kind {
                    OperandKind::Sink => None,
                    _ => Some(Dst::Reg(self.dst(&ops[0])?)),
                };
                let a = match ops.get(2) {
                    Some(o) => self.src(o, ImmKind::Int(32))?,
                    None if x.expect_tx => return Err(format!("`{}` needs a transaction count", opname(i)).into()),
                    None => Src::Imm(1),
                };
                (MbarOp::Arrive { drop: x.op == ArriveDrop, no_complete: x.no_complete, expect_tx: x.expect_tx }, d, self.addr(&ops[1], space)?, a)
            }
            ExpectTx | CompleteTx => {
                arity(2..=2)?;
                (MbarOp::Tx { complete: x.op == CompleteTx }, None, self.addr(&ops[0], space)?, self.src(&ops[1], ImmKind::Int(32))?)
            }
            TestWait | TryWait => {
                arity(if x.op == TryWait { 3..=4 } else { 3..=3 })?;
                let d = self.pdst(&ops[0])?.map(Dst::Pred);
                let a = self.src(&ops[2], ImmKind::Int(if x.parity { 32 } else { 64 }))?;
                if let Some(hint) = ops.get(3) {
                    self.src(hint, ImmKind::Int(32))?;
                }
                (MbarOp::TestWait { parity: x.parity }, d, self.addr(&ops[1], space)?, a)
            }
            PendingCount => {
                arity(2..=2)?;
                (MbarOp::PendingCount, Some(Dst::Reg(self.dst(&ops[0])?)), none, self.src(&ops[1], ImmKind::Int(64))?)
            }
        };
        Ok(Op::Mbarrier { op, d, space: addr.0, addr: addr.1, a })
    }
}

//! Decoding the sm_80 tensor and asynchronous-copy path into [`Op`]s:
//! `cp.async` with `commit_group`/`wait_group`/`wait_all` (semantics in
//! `datapath/asynccopy.rs`). The main decoder (`instr.rs`) asks
//! [`tensor_route`] first; `None` means the instruction is not one of these.
//! A form outside what the engine runs (`cp.async.bulk`, ...) is refused
//! with its name.

use super::{FuncDecoder, ImmKind, Sym};
use crate::datapath::CopySrcSize;
use crate::program::*;
use ptxsim_syntax::ast::{self, OperandKind};

/// This file's instructions report errors as messages; the main decoder
/// turns them into [`super::DecodeError`]s.
type R<T> = Result<T, String>;

/// Which of this file's decoders reads an instruction.
#[derive(Clone, Copy, Debug)]
pub(super) enum Tensor {
    CpAsync,
}

/// This file's decoder for opcode `opc` with the modifiers `has` reports, if
/// it is one of this file's instructions.
pub(super) fn tensor_route(opc: &str, has: &dyn Fn(&str) -> bool) -> Option<Tensor> {
    Some(match opc {
        "cp" if has(".async") => Tensor::CpAsync,
        _ => return None,
    })
}

/// The instruction as written, without operands.
fn full(i: &ast::Instruction<'_>) -> String {
    let mut s = i.opcode.text.to_string();
    for m in &i.modifiers {
        s.push_str(m.text);
    }
    s
}

fn unsupported(i: &ast::Instruction<'_>) -> String {
    format!("instruction `{}` is not supported yet", full(i))
}

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// The instruction `i` decoded by this file's decoder `r`.
    pub(super) fn tensor_instr(&mut self, r: Tensor, i: &ast::Instruction<'_>) -> R<Op> {
        match r {
            Tensor::CpAsync => self.cp_async(i),
        }
    }

    /// `cp.async.{ca,cg}.shared{::cta}.global{.L2::cache_hint}{.L2::NB}
    /// [dst], [src], cp-size{, src-size | ignore-src}{, cache-policy}`,
    /// `cp.async.commit_group`, `cp.async.wait_group N`, `cp.async.wait_all`.
    fn cp_async(&mut self, i: &ast::Instruction<'_>) -> R<Op> {
        let mods: Vec<&str> = i.modifiers.iter().map(|m| m.text).collect();
        let ops = &i.operands;
        match mods.as_slice() {
            [".async", ".commit_group"] if ops.is_empty() => return Ok(Op::CpAsyncCommit),
            [".async", ".wait_all"] if ops.is_empty() => return Ok(Op::CpAsyncWait { n: 0, all: true }),
            [".async", ".wait_group"] => {
                let [n] = ops.as_slice() else { return Err("`cp.async.wait_group` takes one operand, an integer constant".into()) };
                let n = match &n.kind {
                    OperandKind::Int(v) => u32::try_from(v.value).map_err(|_| "`cp.async.wait_group`'s count is out of range".to_string())?,
                    _ => return Err("`cp.async.wait_group`'s operand must be an integer constant".into()),
                };
                return Ok(Op::CpAsyncWait { n, all: false });
            }
            _ => {}
        }
        let mut level = None;
        let mut dst_shared = false;
        let mut src_global = false;
        let mut hint = false;
        for m in &mods[1..] {
            match *m {
                ".ca" | ".cg" if level.is_none() => level = Some(*m),
                ".shared" | ".shared::cta" if !dst_shared => dst_shared = true,
                ".global" if dst_shared && !src_global => src_global = true,
                ".L2::cache_hint" => hint = true,
                ".L2::64B" | ".L2::128B" | ".L2::256B" => {}
                _ => return Err(unsupported(i)),
            }
        }
        let (Some(level), true, true) = (level, dst_shared, src_global) else { return Err(unsupported(i)) };
        let n_fixed = 3 + hint as usize;
        if ops.len() != n_fixed && ops.len() != n_fixed + 1 {
            return Err(format!("`{}` takes {} or {} operands", full(i), n_fixed, n_fixed + 1));
        }
        let (_, dst) = self.addr(&ops[0], Space::Shared)?;
        let (_, src) = self.addr(&ops[1], Space::Global)?;
        let cp_size = match &ops[2].kind {
            OperandKind::Int(v) if matches!(v.value, 4 | 8 | 16) => v.value as u32,
            _ => return Err(format!("`{}`: cp-size must be 4, 8 or 16", full(i))),
        };
        if level == ".cg" && cp_size != 16 {
            return Err(format!("`{}`: cp-size must be 16 with .cg", full(i)));
        }
        let size = if ops.len() == n_fixed + 1 {
            let o = &ops[3];
            let is_pred = match &o.kind {
                OperandKind::Not(_) => true,
                OperandKind::Name { name, component: None } => matches!(self.lookup(name.text), Some(Sym::Pred(_))),
                _ => false,
            };
            if is_pred {
                CopySrcSize::Ignore(self.psrc(o)?)
            } else {
                CopySrcSize::Size(self.src(o, ImmKind::Int(32))?)
            }
        } else {
            CopySrcSize::Full
        };
        Ok(Op::CpAsync { dst, src, cp_size, size })
    }
}

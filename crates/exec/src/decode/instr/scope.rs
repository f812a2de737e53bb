//! A function's names while it is decoded: block scopes, and the slots of
//! its registers. A register of a `%r<N>` range gets its slot when an
//! operand first names it, so decoding costs what the body uses, never the
//! declared count; [`MAX_REGS`] bounds the registers named.

use super::{DecodeError, FuncDecoder, R};
use crate::decode::{Sym, MAX_REGS};
use std::collections::HashMap;

/// One block scope: its names, and its register ranges (`%r<N>`: the
/// prefix, whether they are predicates, and N).
#[derive(Default)]
pub(super) struct Scope {
    pub(super) names: HashMap<String, Sym>,
    pub(super) ranges: HashMap<String, (bool, u64)>,
}

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// Register slots, predicate slots and frame bytes of the function, or
    /// the limit error when its body names more than [`MAX_REGS`] registers.
    pub fn sizes(&self) -> R<(u32, u32, u32)> {
        if self.overflow.get() {
            return Err(DecodeError::Limit(format!("more than {MAX_REGS} registers named in one function")));
        }
        Ok((self.nregs.get() as u32, self.npreds.get() as u32, self.frame as u32))
    }

    pub fn scope_insert(&mut self, name: &str, s: Sym) {
        if let Some(sc) = self.scopes.get_mut().last_mut() {
            sc.names.insert(name.to_string(), s);
        }
    }

    /// The symbol `name` stands for: the innermost scope's name, or a
    /// register of one of its `%r<N>` ranges (given its slot now, once),
    /// else a module symbol.
    pub(super) fn lookup(&self, name: &str) -> Option<Sym> {
        let mut scopes = self.scopes.borrow_mut();
        let digits = name.len() - name.bytes().rev().take_while(u8::is_ascii_digit).count();
        let (prefix, k) = name.split_at(digits);
        // `%r0`, `%r12`: no leading zero, as the range names them.
        let index = (!k.is_empty() && (k == "0" || !k.starts_with('0'))).then(|| k.parse::<u64>().ok()).flatten();
        for sc in scopes.iter_mut().rev() {
            if let Some(s) = sc.names.get(name) {
                return Some(*s);
            }
            let Some(i) = index else { continue };
            if let Some(&(pred, n)) = sc.ranges.get(prefix) {
                if i < n {
                    let sym = self.slot(pred)?;
                    sc.names.insert(name.to_string(), sym);
                    return Some(sym);
                }
            }
        }
        drop(scopes);
        let s = self.m.syms.get(name).copied();
        if let Some(Sym::Shared(o)) = s {
            self.used_shared.borrow_mut().push(o);
        }
        s
    }

    /// A new register (or, `pred`, predicate) slot; `None` past the limit.
    pub(super) fn slot(&self, pred: bool) -> Option<Sym> {
        if self.nregs.get() + self.npreds.get() >= MAX_REGS {
            self.overflow.set(true);
            return None;
        }
        Some(if pred {
            self.npreds.set(self.npreds.get() + 1);
            Sym::Pred((self.npreds.get() - 1) as u32)
        } else {
            self.nregs.set(self.nregs.get() + 1);
            Sym::Reg { slot: (self.nregs.get() - 1) as u32 }
        })
    }

    pub(super) fn new_reg(&mut self) -> R<Sym> {
        self.slot(false).ok_or_else(|| DecodeError::Limit(format!("more than {MAX_REGS} registers in one function")))
    }

}

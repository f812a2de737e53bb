//! Decoding `wmma.load`, `wmma.store` and `wmma.mma` (semantics and the
//! fragment distribution in `datapath/wmma.rs`): f16 and bf16 inputs, f32
//! and f16 accumulators, shapes m16n16k16, m32n8k16, m8n32k16; other
//! shapes and types are refused by name.

use super::{DecodeError, FuncDecoder, ImmKind};

type R<T> = Result<T, DecodeError>;
use crate::program::*;
use ptxsim_syntax::ast::{self, Operand, OperandKind};

fn shape_of(mods: &[&str]) -> Option<(usize, usize, usize)> {
    mods.iter().find_map(|m| match *m {
        ".m16n16k16" => Some((16, 16, 16)),
        ".m32n8k16" => Some((32, 8, 16)),
        ".m8n32k16" => Some((8, 32, 16)),
        _ => None,
    })
}

fn ty_of(m: &str) -> Option<MmaTy> {
    Some(match m {
        ".f16" => MmaTy::F16,
        ".bf16" => MmaTy::BF16,
        ".f32" => MmaTy::F32,
        _ => return None,
    })
}

/// Registers a fragment of `ty` needs per thread for an `R x C` matrix:
/// as many as nvcc's fragments have (16 f16 or 8 of the other types per
/// thread, except bf16 A/B fragments, which hold their elements once).
fn regs_for(which: u8, ty: MmaTy, shape: (usize, usize, usize)) -> usize {
    let (m, n, k) = shape;
    let elems = match which {
        b'a' => m * k,
        b'b' => k * n,
        _ => m * n,
    };
    match (which, ty) {
        (b'a' | b'b', MmaTy::F16) => 8,
        (_, MmaTy::F16) => 4,
        (_, MmaTy::BF16) => elems / 64,
        _ => elems / 32,
    }
}

impl FuncDecoder<'_, '_, '_, '_, '_> {
    fn reg_list(&mut self, o: &Operand<'_>, k: ImmKind) -> R<Vec<Src>> {
        match &o.kind {
            OperandKind::Vector(items) => items.iter().map(|x| self.src(x, k)).collect(),
            _ => Err("a `wmma` fragment operand must be a vector `{...}` of registers".into()),
        }
    }

    fn dst_list(&mut self, o: &Operand<'_>) -> R<Vec<u32>> {
        match &o.kind {
            OperandKind::Vector(items) => items.iter().map(|x| self.dst(x)).collect(),
            _ => Err("a `wmma` fragment operand must be a vector `{...}` of registers".into()),
        }
    }

    pub(super) fn wmma(&mut self, i: &ast::Instruction<'_>) -> R<Op> {
        let mods: Vec<&str> = i.modifiers.iter().map(|m| m.text).collect();
        let full = format!("wmma{}", mods.concat());
        let unsupported = || DecodeError::Unsupported(full.clone());
        let has = |m: &str| mods.contains(&m);
        let shape = shape_of(&mods).ok_or_else(unsupported)?;
        if !has(".sync") || !has(".aligned") {
            return Err(unsupported());
        }
        let known = [".sync", ".aligned", ".row", ".col", ".load", ".store", ".mma", ".a", ".b", ".c", ".d", ".global", ".shared", ".shared::cta", ".f16", ".bf16", ".f32", ".m16n16k16", ".m32n8k16", ".m8n32k16"];
        if let Some(m) = mods.iter().find(|m| !known.contains(m)) {
            let _ = m;
            return Err(unsupported());
        }
        let types: Vec<MmaTy> = mods.iter().filter_map(|m| ty_of(m)).collect();
        if has(".load") || has(".store") {
            let which = if has(".a") {
                b'a'
            } else if has(".b") {
                b'b'
            } else if has(".c") || has(".d") {
                b'c'
            } else {
                return Err(unsupported());
            };
            let col_major = match (has(".row"), has(".col")) {
                (true, false) => false,
                (false, true) => true,
                _ => return Err(unsupported()),
            };
            let [ty] = types.as_slice() else { return Err(unsupported()) };
            if which != b'c' && *ty == MmaTy::F32 || which == b'c' && *ty == MmaTy::BF16 {
                return Err(unsupported());
            }
            let space = if has(".shared") || has(".shared::cta") {
                Space::Shared
            } else if has(".global") {
                Space::Global
            } else {
                Space::Generic
            };
            let f = WmmaFrag { which, shape, col_major, ty: *ty };
            let n = regs_for(which, *ty, shape);
            let (frag, mem) = if has(".load") { (0, 1) } else { (1, 0) };
            let stride = match i.operands.get(2) {
                Some(o) => self.src(o, ImmKind::Int(32))?,
                None => return Err(format!("`{full}`: the stride operand is not supported absent yet").into()),
            };
            let (space, addr) = self.addr(&i.operands[mem], space)?;
            if has(".load") {
                let ds = self.dst_list(&i.operands[frag])?;
                if ds.len() != n {
                    return Err(format!("`{full}` needs {n} destination registers, not {}", ds.len()).into());
                }
                Ok(Op::WmmaLoad { f, space, ds, addr, stride })
            } else {
                let srcs = self.reg_list(&i.operands[frag], ImmKind::Int(32))?;
                if srcs.len() != n {
                    return Err(format!("`{full}` needs {n} source registers, not {}", srcs.len()).into());
                }
                Ok(Op::WmmaStore { f, space, srcs, addr, stride })
            }
        } else if has(".mma") {
            // .dtype.ctype (f16 inputs) or .dtype.atype.btype.ctype
            let (dty, aty, bty, cty) = match types.as_slice() {
                [d, c] => (*d, MmaTy::F16, MmaTy::F16, *c),
                [d, a, b, c] if a == b && matches!(a, MmaTy::F16 | MmaTy::BF16) => (*d, *a, *b, *c),
                _ => return Err(unsupported()),
            };
            if !matches!(dty, MmaTy::F16 | MmaTy::F32) || !matches!(cty, MmaTy::F16 | MmaTy::F32) || aty == MmaTy::BF16 && (dty, cty) != (MmaTy::F32, MmaTy::F32) {
                return Err(unsupported());
            }
            let lay = |k: usize| mods.iter().filter(|m| **m == ".row" || **m == ".col").nth(k).map(|m| *m == ".col");
            let (Some(acol), Some(bcol)) = (lay(0), lay(1)) else { return Err(unsupported()) };
            if i.operands.len() != 4 {
                return Err(format!("`{full}` needs 4 operands").into());
            }
            let fa = WmmaFrag { which: b'a', shape, col_major: acol, ty: aty };
            let fb = WmmaFrag { which: b'b', shape, col_major: bcol, ty: bty };
            let fc = WmmaFrag { which: b'c', shape, col_major: false, ty: cty };
            let fd = WmmaFrag { which: b'c', shape, col_major: false, ty: dty };
            let k = ImmKind::Int(32);
            let d = self.dst_list(&i.operands[0])?;
            let a = self.reg_list(&i.operands[1], k)?;
            let b = self.reg_list(&i.operands[2], k)?;
            let c = self.reg_list(&i.operands[3], k)?;
            for (f, n) in [(fa, a.len()), (fb, b.len()), (fc, c.len()), (fd, d.len())] {
                let want = regs_for(f.which, f.ty, shape);
                if n != want {
                    return Err(format!("`{full}` needs {want} registers for its {} fragment, not {n}", f.which as char).into());
                }
            }
            Ok(Op::WmmaMma(Box::new(WmmaMma { shape, fa, fb, fc, fd, d, a, b, c })))
        } else {
            Err(unsupported())
        }
    }
}

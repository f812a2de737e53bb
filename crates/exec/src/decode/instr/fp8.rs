//! Decoding the 8-bit float forms of `cvt` (semantics in
//! [`ptxsim_sem::alu::fp8`]): `cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.{f32,f16x2}`
//! and `cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2}`.

use super::{FuncDecoder, ImmKind};
use ptxsim_sem::alu::ext::Lane3Op;
use ptxsim_sem::alu::fp8::{Fp8Cvt, F8};
use crate::program::*;
use ptxsim_syntax::ast::{self, ScalarType};

impl FuncDecoder<'_, '_, '_, '_, '_> {
    pub(super) fn cvt_fp8(&mut self, i: &ast::Instruction<'_>) -> Result<Op, String> {
        let mods: Vec<&str> = i.modifiers.iter().map(|m| m.text).collect();
        let full = format!("cvt{}", mods.concat());
        let unsupported = || format!("instruction `{full}` is not supported yet");
        let types: Vec<ScalarType> = mods.iter().filter_map(|m| ScalarType::from_str(m)).collect();
        let f8 = |t: ScalarType| match t {
            ScalarType::E4m3x2 => Some(F8::E4m3),
            ScalarType::E5m2x2 => Some(F8::E5m2),
            _ => None,
        };
        let has = |m: &str| mods.contains(&m);
        let relu = has(".relu");
        let known = [".rn", ".satfinite", ".relu"];
        if !has(".rn") || mods.iter().any(|m| ScalarType::from_str(m).is_none() && !known.contains(m)) {
            return Err(unsupported());
        }
        let (op, n) = match types.as_slice() {
            [d, ScalarType::F32] if has(".satfinite") => (Fp8Cvt::FromF32x2(f8(*d).ok_or_else(unsupported)?), 3),
            [d, ScalarType::F16x2] if has(".satfinite") => (Fp8Cvt::FromF16x2(f8(*d).ok_or_else(unsupported)?), 2),
            [ScalarType::F16x2, s] if !has(".satfinite") => (Fp8Cvt::ToF16x2(f8(*s).ok_or_else(unsupported)?), 2),
            _ => return Err(unsupported()),
        };
        if i.operands.len() != n {
            return Err(format!("`{full}` needs {n} operands"));
        }
        let k = match op {
            Fp8Cvt::FromF32x2(_) => ImmKind::Float(ptxsim_sem::alu::FTy::F32),
            _ => ImmKind::Int(32),
        };
        let d = self.dst(&i.operands[0])?;
        let a = self.src(&i.operands[1], k)?;
        let b = if n == 3 { self.src(&i.operands[2], k)? } else { Src::Imm(0) };
        Ok(Op::Lane3 { op: Lane3Op::Fp8 { op, relu }, d, a, b, c: Src::Imm(0) })
    }
}

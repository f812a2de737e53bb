//! The CUDA system calls `malloc` and `free` as data-path instructions
//! (`Op::Malloc`, `Op::Free`, decoded from direct calls of the bodiless
//! declarations), over the device heap of [`crate::heap`].
//!
//! Lanes run in ascending order, each its own call, so two lanes of a warp
//! get distinct blocks and a lane's `free` sees the blocks of lower lanes'
//! `malloc` in the same instruction.

use super::sys::{arg, with_lane};
use super::Lanes;
use crate::error::{Trap, TrapKind};
use crate::program::{CallArg, Space};
use crate::warp::{lanes, Frame};

/// `call (ret), malloc, (size)` for the lanes of `m`: each lane's block
/// address, or 0 when the heap has no free range large enough.
pub(super) fn malloc(cx: &mut Lanes<'_>, fr: &mut Frame, m: u32, size: &CallArg, ret: Option<&CallArg>) -> Result<(), Trap> {
    for l in lanes(m) {
        let n = arg(cx, fr, size, l)?;
        let p = cx.mem.global.heap.malloc(n);
        match ret {
            Some(CallArg::Reg(r)) => fr.regs[*r as usize][l] = p,
            Some(&CallArg::Param { offset, size }) => {
                let mut cache = usize::MAX;
                cx.mem.write(Space::FrameParam, l, cx.local_base + offset as u64, size.clamp(1, 8), p, &mut cache).map_err(|t| with_lane(t, l))?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// `call free, (ptr)` for the lanes of `m`: `free(0)` does nothing; a
/// pointer that is not a live block's start traps `bad_free` at its lane.
pub(super) fn free(cx: &mut Lanes<'_>, fr: &mut Frame, m: u32, ptr: &CallArg) -> Result<(), Trap> {
    let heap = &cx.mem.global.heap;
    for l in lanes(m) {
        let p = arg(cx, fr, ptr, l)?;
        if p == 0 {
            continue;
        }
        if let Err(why) = heap.free(p) {
            let res = heap.reservation().unwrap_or((0, 0));
            return Err(Trap::lane(TrapKind::BadFree, l as u32, format!("lane {l}: `free`: {}", why.describe(p, res))));
        }
    }
    Ok(())
}

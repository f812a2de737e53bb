//! The CUDA system calls the engine runs itself: `vprintf` (device
//! `printf`) and `__assertfail` (device `assert`), and in a module linked
//! with libcudadevrt its cooperative-groups functions (`cudaCG*`). The
//! decoder turns a direct call of one (declared `.extern`, no body) into
//! `Op::Printf` / `Op::AssertFail` / `Op::DevRt`, so they are data-path
//! instructions: the PTX loop and the machine-form loop run them alike.
//! `cudaCGSynchronize(Grid)` (`Op::GridSync`) waits for other CTAs, so the
//! PTX loop checks its operands here ([`grid_sync`]) and the scheduler
//! runs the barrier.
//!
//! Lanes run in ascending order; each lane's text goes whole into the
//! launch's [`crate::stdout::Stdout`] under its cluster's index. An
//! assertion writes CUDA's message for each failing lane, then traps at the
//! lowest one.

use super::Lanes;
use crate::error::{Trap, TrapKind};
use crate::printf::{format, read_cstr};
use crate::program::{CallArg, DevRtFn, Space};
use crate::warp::{lanes, Frame};

/// A call argument's value in lane `l` (at most 8 bytes of a `.param`).
pub(super) fn arg(cx: &Lanes<'_>, fr: &Frame, a: &CallArg, l: usize) -> Result<u64, Trap> {
    match *a {
        CallArg::Reg(r) => Ok(fr.regs[r as usize][l]),
        CallArg::Imm(v) => Ok(v),
        CallArg::Param { offset, size } => {
            let mut cache = usize::MAX;
            cx.mem.read(Space::FrameParam, l, cx.local_base + offset as u64, size.clamp(1, 8), &mut cache)
        }
    }
}

/// The launch-wide index of this CTA's cluster (x fastest), the order in
/// which clusters' output is merged.
fn cluster_index(cx: &Lanes<'_>) -> u64 {
    let g = cx.sregs.geom;
    let ncl = [(g.grid[0] / g.cluster[0].max(1)) as u64, (g.grid[1] / g.cluster[1].max(1)) as u64];
    let c = cx.sregs.cta.cluster_id;
    c[0] as u64 + ncl[0] * (c[1] as u64 + ncl[1] * c[2] as u64)
}

/// `call (ret), vprintf, (fmt, args)` for the lanes of `m`.
pub(super) fn printf(cx: &mut Lanes<'_>, fr: &mut Frame, m: u32, fmt: &CallArg, args: &CallArg, ret: Option<&CallArg>) -> Result<(), Trap> {
    let cluster = cluster_index(cx);
    let mut out = Vec::new();
    for l in lanes(m) {
        let f = arg(cx, fr, fmt, l)?;
        let a = arg(cx, fr, args, l)?;
        out.clear();
        let n = if f == 0 {
            -1
        } else {
            let mem = &cx.mem;
            let mut cache = usize::MAX;
            let mut read = |addr: u64, size: u32| mem.read(Space::Generic, l, addr, size, &mut cache);
            let text = read_cstr(&mut read, f, u64::MAX, "the printf format string").map_err(|t| with_lane(t, l))?;
            format(&text, a, &mut read, &mut out).map_err(|t| with_lane(t, l))?
        };
        if !out.is_empty() {
            cx.stdout.push(cluster, &out);
        }
        match ret {
            Some(CallArg::Reg(r)) => fr.regs[*r as usize][l] = n as u32 as u64,
            Some(&CallArg::Param { offset, size }) => {
                let mut cache = usize::MAX;
                cx.mem.write(Space::FrameParam, l, cx.local_base + offset as u64, size.clamp(1, 4), n as u32 as u64, &mut cache)?;
            }
            _ => {}
        }
    }
    Ok(())
}

pub(super) fn with_lane(t: Trap, l: usize) -> Trap {
    Trap { lane: t.lane.or(Some(l as u32)), ..t }
}

/// Longest part of an assertion (message, file, function) quoted in the trap.
const QUOTE: usize = 200;

fn quote(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(b);
    if s.len() <= QUOTE {
        return s.into_owned();
    }
    let mut k = QUOTE;
    while !s.is_char_boundary(k) {
        k -= 1;
    }
    format!("{}…", &s[..k])
}

/// `call __assertfail, (message, file, line, function, charSize)` for the
/// lanes of `m`: CUDA's line for each lane ("FILE:LINE: FUNCTION: block:
/// [x,y,z], thread: [x,y,z] Assertion `MESSAGE` failed."), then a `trap`
/// at the lowest lane naming the assertion, its file, line and function.
pub(super) fn assert_fail(cx: &mut Lanes<'_>, fr: &mut Frame, m: u32, args: &[CallArg]) -> Result<(), Trap> {
    let [msg, file, line, func, ..] = args else {
        return Err(Trap::new(TrapKind::Unsupported, "`__assertfail` takes (message, file, line, function, charSize)"));
    };
    let cluster = cluster_index(cx);
    let mut first: Option<(usize, String)> = None;
    for l in lanes(m) {
        let (pm, pf, ln, pfn) = (arg(cx, fr, msg, l)?, arg(cx, fr, file, l)?, arg(cx, fr, line, l)? as u32, arg(cx, fr, func, l)?);
        let mem = &cx.mem;
        let mut cache = usize::MAX;
        let mut read = |addr: u64, size: u32| mem.read(Space::Generic, l, addr, size, &mut cache);
        let mut s = |p: u64, what: &str| -> Result<Vec<u8>, Trap> { if p == 0 { Ok(Vec::new()) } else { read_cstr(&mut read, p, u64::MAX, what).map_err(|t| with_lane(t, l)) } };
        let (tm, tf, tfn) = (s(pm, "the assertion message")?, s(pf, "the assertion's file name")?, s(pfn, "the assertion's function name")?);
        let b = cx.sregs.cta.ctaid;
        let t = [cx.sregs.tid[0][l], cx.sregs.tid[1][l], cx.sregs.tid[2][l]];
        let mut text = Vec::new();
        text.extend_from_slice(&tf);
        text.extend_from_slice(format!(":{ln}: ").as_bytes());
        text.extend_from_slice(&tfn);
        text.extend_from_slice(format!(": block: [{},{},{}], thread: [{},{},{}] Assertion `", b[0], b[1], b[2], t[0], t[1], t[2]).as_bytes());
        text.extend_from_slice(&tm);
        text.extend_from_slice(b"` failed.\n");
        cx.stdout.push(cluster, &text);
        if first.is_none() {
            first = Some((l, format!("assertion `{}` failed at {}:{ln} in `{}` (thread ({},{},{}))", quote(&tm), quote(&tf), quote(&tfn), t[0], t[1], t[2])));
        }
    }
    match first {
        Some((l, msg)) => Err(Trap::lane(TrapKind::Trap, l as u32, msg)),
        None => Ok(()),
    }
}

/// Writes `v` (`size` bytes, at most 8) to a call's return binding in lane `l`.
fn put_ret(cx: &mut Lanes<'_>, fr: &mut Frame, ret: Option<&CallArg>, l: usize, v: u64, size: u32) -> Result<(), Trap> {
    match ret {
        Some(CallArg::Reg(r)) => fr.regs[*r as usize][l] = v,
        Some(&CallArg::Param { offset, size: s }) => {
            let mut cache = usize::MAX;
            cx.mem.write(Space::FrameParam, l, cx.local_base + offset as u64, s.clamp(1, size), v, &mut cache)?;
        }
        _ => {}
    }
    Ok(())
}

/// cudaCGScope's values (CUDA's device runtime API).
const SCOPE_GRID: u64 = 1;
const SCOPE_MULTI_GRID: u64 = 2;

/// A grid handle argument in lane `l`: it must be this launch's (the grid
/// workspace address of a cooperative launch); 0 means the kernel was not
/// launched cooperatively.
fn check_handle(cx: &Lanes<'_>, fr: &Frame, handle: &CallArg, l: usize, func: &str) -> Result<(), Trap> {
    let h = arg(cx, fr, handle, l)?;
    let ws = cx.sregs.geom.grid_workspace;
    if h == 0 {
        return Err(Trap::lane(
            TrapKind::Trap,
            l as u32,
            format!("`{func}` with grid handle 0 in lane {l}: the grid handle is 0 outside a cooperative launch (cuLaunchCooperativeKernel, or cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_COOPERATIVE)"),
        ));
    }
    if h != ws {
        return Err(Trap::lane(TrapKind::Trap, l as u32, format!("`{func}` with grid handle {h:#x} in lane {l}, which is not this launch's grid handle ({ws:#x})")));
    }
    Ok(())
}

/// `cudaCGSynchronize(Grid)(handle, flags)` for the lanes of `m`, before
/// they wait at the grid barrier: checks each lane's handle and writes
/// cudaSuccess to the return value.
pub(crate) fn grid_sync(cx: &mut Lanes<'_>, fr: &mut Frame, m: u32, handle: &CallArg, ret: Option<&CallArg>) -> Result<(), Trap> {
    for l in lanes(m) {
        check_handle(cx, fr, handle, l, "cudaCGSynchronize")?;
    }
    for l in lanes(m) {
        put_ret(cx, fr, ret, l, 0, 4)?;
    }
    Ok(())
}

/// libcudadevrt's cooperative-groups queries for the lanes of `m`.
pub(super) fn devrt(cx: &mut Lanes<'_>, fr: &mut Frame, m: u32, f: DevRtFn, args: &[CallArg], ret: Option<&CallArg>) -> Result<(), Trap> {
    let g = cx.sregs.geom;
    let per_cta = g.block[0] as u64 * g.block[1] as u64 * g.block[2] as u64;
    let ctas = g.grid[0] as u64 * g.grid[1] as u64 * g.grid[2] as u64;
    for l in lanes(m) {
        match (f, args) {
            (DevRtFn::GetIntrinsicHandle, [scope]) => {
                let h = match arg(cx, fr, scope, l)? & 0xffff_ffff {
                    SCOPE_GRID => g.grid_workspace,
                    SCOPE_MULTI_GRID => {
                        return Err(Trap::lane(TrapKind::Unsupported, l as u32, "`cudaCGGetIntrinsicHandle(cudaCGScopeMultiGrid)`: multi-device cooperative launches are not supported"));
                    }
                    _ => 0,
                };
                put_ret(cx, fr, ret, l, h, 8)?;
            }
            (DevRtFn::GetSize | DevRtFn::GetRank, [p0, p1, handle]) => {
                let name = if f == DevRtFn::GetSize { "cudaCGGetSize" } else { "cudaCGGetRank" };
                check_handle(cx, fr, handle, l, name)?;
                let v0 = if f == DevRtFn::GetSize {
                    ctas * per_cta
                } else {
                    let c = cx.sregs.cta.ctaid;
                    let cta = c[0] as u64 + g.grid[0] as u64 * (c[1] as u64 + g.grid[1] as u64 * c[2] as u64);
                    let t = [cx.sregs.tid[0][l], cx.sregs.tid[1][l], cx.sregs.tid[2][l]];
                    cta * per_cta + t[0] + g.block[0] as u64 * (t[1] + g.block[1] as u64 * t[2])
                };
                // numGrids is 1, gridRank 0: one grid.
                let v1 = if f == DevRtFn::GetSize { 1 } else { 0 };
                for (p, v) in [(p0, v0), (p1, v1)] {
                    let a = arg(cx, fr, p, l)?;
                    if a != 0 {
                        let mut cache = usize::MAX;
                        cx.mem.write(Space::Generic, l, a, 4, v, &mut cache).map_err(|t| with_lane(t, l))?;
                    }
                }
                put_ret(cx, fr, ret, l, 0, 4)?;
            }
            _ => return Err(Trap::lane(TrapKind::Unsupported, l as u32, format!("{f:?}: wrong number of arguments"))),
        }
    }
    Ok(())
}

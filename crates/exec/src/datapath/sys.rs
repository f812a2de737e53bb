//! The CUDA system calls the engine runs itself: `vprintf` (device
//! `printf`) and `__assertfail` (device `assert`). The decoder turns a
//! direct call of either (declared `.extern`, no body) into
//! `Op::Printf` / `Op::AssertFail`, so they are data-path instructions: the
//! PTX loop and the machine-form loop run them alike.
//!
//! Lanes run in ascending order; each lane's text goes whole into the
//! launch's [`crate::printf::Stdout`] under its cluster's index. An
//! assertion writes CUDA's message for each failing lane, then traps at the
//! lowest one.

use super::Lanes;
use crate::error::{Trap, TrapKind};
use crate::printf::{format, read_cstr};
use crate::program::{CallArg, Space};
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

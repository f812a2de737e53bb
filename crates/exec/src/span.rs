//! Whole-warp global accesses: when every active lane's access of a scalar
//! global load or store is naturally aligned and falls inside one
//! allocation, the engine checks that once per warp (on the lowest and
//! highest address) and then reads or writes the lanes with no per-lane
//! address translation. Anything else (a misaligned lane, an address
//! outside every allocation, a generic address in another window) takes
//! the lane-by-lane path, which reports the first failing lane as before.

use crate::memory::{Allocation, GlobalMemory};

/// The allocation holding the `sz`-byte access at `base[l] + off` of every
/// lane `l` of `m` (non-empty), if there is one and every access is
/// aligned to `sz` (a power of two up to 8). `cache` remembers the last
/// allocation found.
///
/// With it comes the word index of the first lane's access when the warp
/// is dense: all 32 lanes active, lane `l` at `first + l * sz` with `first`
/// 8-byte aligned and `sz` 4 or 8, so the access moves as `4 * sz` whole
/// words.
#[inline]
pub(crate) fn warp_span<'g>(g: &'g GlobalMemory, base: &[u64; 32], off: u64, m: u32, sz: u64, cache: &mut usize) -> Option<(&'g Allocation, Option<usize>)> {
    if m == 0 || sz > 8 || !sz.is_power_of_two() {
        return None;
    }
    // Consecutive lanes (the common case) give the bounds without a
    // min/max pass.
    let first = base[0].wrapping_add(off);
    let last = first.wrapping_add(31 * sz);
    let mut consecutive = m == u32::MAX && first <= last;
    if consecutive {
        consecutive = match sz {
            4 => on_line::<4>(base),
            8 => on_line::<8>(base),
            _ => {
                let mut line = [0u64; 32];
                for (l, x) in line.iter_mut().enumerate() {
                    *x = base[0].wrapping_add(l as u64 * sz);
                }
                line == *base
            }
        };
    }
    let (lo, hi, bits) = if consecutive {
        (first, last, first)
    } else {
        let (mut lo, mut hi, mut bits) = (u64::MAX, 0u64, 0u64);
        for (l, b) in base.iter().enumerate() {
            let a = b.wrapping_add(off);
            let on = m >> l & 1 != 0;
            lo = lo.min(if on { a } else { u64::MAX });
            hi = hi.max(if on { a } else { 0 });
            bits |= if on { a } else { 0 };
        }
        (lo, hi, bits)
    };
    if bits & (sz - 1) != 0 {
        return None;
    }
    // `lo <= hi`; the span [lo, hi + sz) must lie inside the allocation.
    let inside = |al: &Allocation| lo >= al.base && hi - al.base < al.size && al.size - (hi - al.base) >= sz;
    let al = match g.allocs.get(*cache) {
        Some(al) if inside(al) => al,
        _ => {
            let i = g.find(lo, 1)?;
            let al = &g.allocs[i];
            if !inside(al) {
                return None;
            }
            *cache = i;
            al
        }
    };
    let o = first.wrapping_sub(al.base);
    let dense = (consecutive && (sz == 4 || sz == 8) && o & 7 == 0).then_some((o >> 3) as usize);
    Some((al, dense))
}

/// The dense case of [`warp_span`] alone, small enough to inline into
/// the loads and stores: all 32 lanes at `first + l * sz` (`sz` 4 or 8,
/// `first` aligned) inside the allocation `cache` names, `first` a whole
/// word into it. Gives that allocation and the word index of `first`;
/// anything else (another allocation included) is `None`, and the caller
/// asks [`warp_span`], which gives the same answer for what this accepts.
#[inline(always)]
pub(crate) fn dense_span<'g>(g: &'g GlobalMemory, base: &[u64; 32], off: u64, m: u32, sz: u64, cache: usize) -> Option<(&'g Allocation, usize)> {
    if m != u32::MAX {
        return None;
    }
    let on = match sz {
        4 => on_line::<4>(base),
        8 => on_line::<8>(base),
        _ => false,
    };
    let first = base[0].wrapping_add(off);
    if !on || first & (sz - 1) != 0 {
        return None;
    }
    let end = first.checked_add(32 * sz)?;
    let al = g.allocs.get(cache)?;
    if first < al.base || end - al.base > al.size || (first - al.base) & 7 != 0 {
        return None;
    }
    Some((al, ((first - al.base) >> 3) as usize))
}

/// Whether lane `l`'s address is `base[0] + l * SZ` for every lane: the
/// differences from the line, or-ed together in straight-line vector
/// code. (`black_box` keeps the compiler from turning the or-ed test back
/// into a compare and branch per lane, which costs twice as much.)
#[inline(always)]
fn on_line<const SZ: u64>(base: &[u64; 32]) -> bool {
    let b0 = base[0];
    let mut acc = [0u64; 4];
    for (c, chunk) in base.chunks_exact(4).enumerate() {
        for (j, b) in chunk.iter().enumerate() {
            acc[j] |= b.wrapping_sub(b0) ^ ((c * 4 + j) as u64 * SZ);
        }
    }
    let acc = std::hint::black_box(acc);
    (acc[0] | acc[1] | acc[2] | acc[3]) == 0
}

#[cfg(test)]
mod tests {
    //! The whole-warp paths against the lane-by-lane semantics: values,
    //! partial warps, and the first failing lane of a trap.
    use crate::error::TrapKind;
    use crate::{Device, KernelArg, LaunchConfig};

    /// Lane `t` loads `src + t*stride + bias` (as `ty`), adds 1 and stores
    /// it at `dst + t*stride + bias`.
    fn kernel(ty: &str) -> String {
        format!(
            r#".version 7.0
.target sm_70
.address_size 64
.visible .entry k(.param .u64 src, .param .u64 dst, .param .u32 stride, .param .u32 bias)
{{
    .reg .b32 %r<6>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [src];
    ld.param.u64 %rd2, [dst];
    ld.param.u32 %r1, [stride];
    ld.param.u32 %r2, [bias];
    mov.u32 %r3, %tid.x;
    mad.lo.u32 %r4, %r3, %r1, %r2;
    cvt.u64.u32 %rd3, %r4;
    add.u64 %rd4, %rd1, %rd3;
    add.u64 %rd5, %rd2, %rd3;
    ld.global.{ty} %rd6, [%rd4];
    add.u64 %rd7, %rd6, 1;
    st.global.{ty} [%rd5], %rd7;
    ret;
}}"#
        )
    }

    struct Run {
        out: Vec<u8>,
        err: Option<(TrapKind, Option<u32>)>,
    }

    fn run(ty: &str, src_bytes: u64, threads: u32, stride: u32, bias: u32) -> Run {
        let mut dev = Device::new();
        let m = dev.load(&kernel(ty)).expect("load");
        let src = dev.alloc(src_bytes).expect("alloc");
        let init: Vec<u8> = (0..src_bytes).map(|i| (i * 7 + 3) as u8).collect();
        dev.write(src, &init).expect("write");
        let dst = dev.alloc(4096).expect("alloc");
        let args = [KernelArg::Ptr(src), KernelArg::Ptr(dst), KernelArg::U32(stride), KernelArg::U32(bias)];
        let r = dev.launch(&m, "k", &LaunchConfig::new(1, threads), &args);
        Run { out: dev.read(dst, 4096).expect("read"), err: r.err().map(|e| (e.kind, e.lane)) }
    }

    /// What the kernel must leave in `dst` (for a run without a trap).
    fn expect(size: u64, src_bytes: u64, threads: u32, stride: u32, bias: u32) -> Vec<u8> {
        let src: Vec<u8> = (0..src_bytes).map(|i| (i * 7 + 3) as u8).collect();
        let mut out = vec![0u8; 4096];
        for t in 0..threads as u64 {
            let a = (t * stride as u64 + bias as u64) as usize;
            let mut b = [0u8; 8];
            b[..size as usize].copy_from_slice(&src[a..a + size as usize]);
            let v = u64::from_le_bytes(b).wrapping_add(1);
            out[a..a + size as usize].copy_from_slice(&v.to_le_bytes()[..size as usize]);
        }
        out
    }

    #[test]
    fn whole_warp_values_match_lane_by_lane() {
        for (ty, size) in [("u32", 4u64), ("u64", 8)] {
            for threads in [32, 20, 64] {
                for (stride, bias) in [(size as u32, 0), (size as u32, size as u32), (2 * size as u32, 8), (0, 16)] {
                    let r = run(ty, 1024, threads, stride, bias);
                    assert!(r.err.is_none(), "{ty} threads {threads} stride {stride} bias {bias}: {:?}", r.err);
                    assert_eq!(r.out, expect(size, 1024, threads, stride, bias), "{ty} threads {threads} stride {stride} bias {bias}");
                }
            }
        }
    }

    /// Lane `t` loads the `ty` value at `src + t * size` into the register
    /// that held its address (`ld.global` or generic `ld`), and stores it
    /// as 64 bits at `dst + t * 8`.
    fn load_into_address_register(ty: &str, space: &str, size: u32) -> String {
        format!(
            r#".version 7.0
.target sm_70
.address_size 64
.visible .entry k(.param .u64 src, .param .u64 dst)
{{
    .reg .b32 %r<2>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [src];
    ld.param.u64 %rd2, [dst];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, {size};
    add.u64 %rd4, %rd1, %rd3;
    ld{space}.{ty} %rd4, [%rd4];
    mul.wide.u32 %rd5, %r1, 8;
    add.u64 %rd6, %rd2, %rd5;
    st.global.u64 [%rd6], %rd4;
    ret;
}}"#
        )
    }

    #[test]
    fn dense_loads_extend_and_may_overwrite_their_address() {
        // Bytes with the high bit set in every other element.
        let init: Vec<u8> = (0..512u32).map(|i| (i * 37 + 200) as u8).collect();
        for (ty, size, signed) in [("s32", 4u32, true), ("u32", 4, false), ("s64", 8, true), ("u64", 8, false)] {
            for space in [ptxsim_syntax::ast::StateSpace::Global.as_str(), ""] {
                for threads in [32u32, 20, 64] {
                    let mut dev = Device::new();
                    let m = dev.load(&load_into_address_register(ty, space, size)).expect("load");
                    let src = dev.alloc(512).expect("alloc");
                    dev.write(src, &init).expect("write");
                    let dst = dev.alloc(64 * 8).expect("alloc");
                    dev.launch(&m, "k", &LaunchConfig::new(1, threads), &[KernelArg::Ptr(src), KernelArg::Ptr(dst)]).expect("launch");
                    let out = dev.read(dst, 64 * 8).expect("read");
                    for t in 0..64usize {
                        let got = u64::from_le_bytes(out[t * 8..t * 8 + 8].try_into().expect("8 bytes"));
                        let want = if t as u32 >= threads {
                            0
                        } else {
                            let at = t * size as usize;
                            let mut b = [0u8; 8];
                            b[..size as usize].copy_from_slice(&init[at..at + size as usize]);
                            let v = u64::from_le_bytes(b);
                            if signed && size == 4 { v as u32 as i32 as i64 as u64 } else { v }
                        };
                        assert_eq!(got, want, "ld{space}.{ty}, {threads} threads, lane {t}");
                    }
                }
            }
        }
    }

    #[test]
    fn whole_warp_traps_name_the_first_failing_lane() {
        // Misaligned from lane 0.
        assert_eq!(run("u32", 1024, 32, 4, 2).err, Some((TrapKind::Misaligned, Some(0))));
        // Lane 31 reads past the end of a 124-byte allocation.
        assert_eq!(run("u32", 124, 32, 4, 0).err, Some((TrapKind::OutOfBounds, Some(31))));
        // Stride 6: lane 1 is the first misaligned lane.
        assert_eq!(run("u32", 1024, 32, 6, 0).err, Some((TrapKind::Misaligned, Some(1))));
        // u64 reads: lane 16 is the first past 128 bytes.
        assert_eq!(run("u64", 128, 32, 8, 0).err, Some((TrapKind::OutOfBounds, Some(16))));
    }
}

//! The registers a kernel's entry code writes before anything reads them.
//!
//! A kernel frame's registers start at zero. The straight run of
//! unguarded lane-wise instructions at the start of a kernel (up to the
//! first branch, call, barrier, cross-lane or unlisted instruction) is the
//! first thing every lane executes; a register it writes before reading
//! holds the written value in every lane by the time anything can read it,
//! so zeroing it first is wasted work. Only used for a whole warp (all 32
//! lanes threads) in stack mode, where the warp runs that code together.

use crate::program::{AddrBase, Function, Op, Src};

/// `keep[r]`: register `r` is written by the entry code before any read.
pub(crate) fn written_first(f: &Function) -> Vec<bool> {
    let n = f.num_regs as usize;
    let mut keep = vec![false; n];
    let mut read = vec![false; n];
    for ins in &f.code {
        if ins.guard.is_some() {
            break;
        }
        let (srcs, dst): (Vec<&Src>, Option<u32>) = match &ins.op {
            Op::Mov { d, a, .. } | Op::IUn { d, a, .. } | Op::FUn { d, a, .. } | Op::Cvt { d, a, .. } | Op::Cvta { d, a, .. } => (vec![a], Some(*d)),
            Op::IBin { d, a, b, .. } | Op::FBin { d, a, b, .. } => (vec![a, b], Some(*d)),
            Op::Mad { d, a, b, c, .. } | Op::Fma { d, a, b, c, .. } | Op::Bfe { d, a, b, c, .. } | Op::Prmt { d, a, b, c } | Op::Slct { d, a, b, c, .. } => {
                (vec![a, b, c], Some(*d))
            }
            Op::Setp { a, b, .. } => (vec![a, b], None),
            Op::Ld { ds, addr, .. } if ds.len() == 1 => {
                if let AddrBase::Reg(r) = addr.base {
                    note_read(r, &keep, &mut read);
                }
                (vec![], ds[0])
            }
            _ => break,
        };
        for s in srcs {
            if let Src::Reg(r) = s {
                note_read(*r, &keep, &mut read);
            }
        }
        if let Some(d) = dst {
            let d = d as usize;
            if d < n && !read[d] {
                keep[d] = true;
            }
        }
    }
    keep
}

/// Register `r` is read: before any write unless `keep` says it was written.
fn note_read(r: u32, keep: &[bool], read: &mut [bool]) {
    if let (Some(x), Some(k)) = (read.get_mut(r as usize), keep.get(r as usize)) {
        *x |= !*k;
    }
}

#[cfg(test)]
mod tests {
    use crate::{Device, KernelArg, LaunchConfig};

    /// Registers read before they are written read zero in every CTA, also
    /// when a worker's warps ran another CTA before (with other values).
    #[test]
    fn registers_read_first_are_zero_in_every_cta() {
        let src = r#".version 7.0
.target sm_70
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %ctaid.x;
    add.u32 %r2, %r2, %r1;
    mov.u32 %r3, %tid.x;
    mad.lo.u32 %r4, %r1, 32, %r3;
    add.u32 %r5, %r5, 7;
    add.u32 %r6, %r2, %r5;
    add.u32 %r6, %r6, %r7;
    mul.wide.u32 %rd2, %r4, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r6;
    mov.u32 %r7, 1000;
    mov.u32 %r5, 1000;
    ret;
}"#;
        let mut dev = Device::new();
        let m = dev.load(src).expect("load");
        let out = dev.alloc(64 * 32 * 4).expect("alloc");
        for threads in [Some(1), Some(2)] {
            let mut cfg = LaunchConfig::new(64, 32);
            cfg.threads = threads;
            dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(out)]).expect("launch");
            let bytes = dev.read(out, 64 * 32 * 4).expect("read");
            for (i, w) in bytes.chunks(4).enumerate() {
                let v = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                assert_eq!(v, (i / 32) as u32 + 7, "thread {i}");
            }
        }
    }
}

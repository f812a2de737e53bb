//! A second executor loop, test-only: runs a straight-line kernel through
//! the public data-path API (`ptxsim_exec::datapath`), with no PTX
//! dispatch loop and no scheduler, and checks that it leaves the same
//! memory as the engine and that its registers hold the values the kernel
//! stored. Some outputs are also checked against values computed here
//! from the kernel's definition.

use ptxsim_exec::datapath::{guard_mask, op_class, step_data, OpClass, Setup};
use ptxsim_exec::program::{AddrBase, Op, Src};
use ptxsim_exec::{Device, KernelArg, LaunchConfig};

/// Straight-line: special registers, integer and float arithmetic, a
/// division, compares and guards, selects, conversions, a parameter load,
/// a shuffle, a vote and a ballot, then one store per result (slot k of
/// thread t at out[(gid * K + k)]).
const SRC: &str = r#"
.version 7.8
.target sm_70
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 s)
{
    .reg .pred %p, %q;
    .reg .b32 %r<16>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [s];
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mad.lo.s32 %r5, %r3, %r4, %r2;
    mul.lo.u32 %r6, %r5, %r1;
    add.u32 %r6, %r6, 7;
    div.u32 %r7, %r6, 3;
    rem.u32 %r8, %r6, 5;
    setp.lt.u32 %p, %r8, 2;
    selp.b32 %r9, %r7, %r8, %p;
@%p add.u32 %r9, %r9, 1000;
    cvt.rn.f32.u32 %f1, %r5;
    mul.f32 %f2, %f1, 0f3FC00000;
    cvt.rzi.u32.f32 %r10, %f2;
    mov.u32 %r11, %laneid;
    shfl.sync.bfly.b32 %r12, %r5, 1, 31, -1;
    setp.ne.u32 %q, %r8, 0;
    vote.sync.ballot.b32 %r13, %q, -1;
    shl.b32 %r14, %r5, 3;
    xor.b32 %r14, %r14, %r6;
    mul.wide.u32 %rd2, %r5, 40;
    cvta.to.global.u64 %rd1, %rd1;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r5;
    st.global.u32 [%rd3+4], %r6;
    st.global.u32 [%rd3+8], %r7;
    st.global.u32 [%rd3+12], %r8;
    st.global.u32 [%rd3+16], %r9;
    st.global.u32 [%rd3+20], %r10;
    st.global.u32 [%rd3+24], %r11;
    st.global.u32 [%rd3+28], %r12;
    st.global.u32 [%rd3+32], %r13;
    st.global.u32 [%rd3+36], %r14;
    ret;
}
"#;

const K: usize = 10;
const GRID: u32 = 3;
/// Not a multiple of 32: the last warp of each CTA is partial.
const BLOCK: u32 = 48;
const S: u32 = 13;

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

#[test]
fn straight_line_kernel_through_the_data_path_matches_the_engine() {
    let mut dev = Device::new();
    let module = dev.load(SRC).expect("loads");
    let n = (GRID * BLOCK) as u64 * K as u64 * 4;
    let (a, b) = (dev.alloc(n).expect("alloc"), dev.alloc(n).expect("alloc"));
    let cfg = LaunchConfig::new(GRID, BLOCK);

    // The engine.
    dev.launch(&module, "k", &cfg, &[KernelArg::Ptr(a), KernelArg::U32(S)]).expect("engine run");

    // The second loop: every CTA, every warp, each instruction in order
    // through `step_data` until the final `ret`.
    let setup = Setup::new(&dev, &module, "k", &cfg, &[KernelArg::Ptr(b), KernelArg::U32(S)]).expect("setup");
    let code = &setup.program.functions[setup.kernel as usize].code;
    let mut checked = 0;
    for cta in setup.ctas() {
        let mut shared = setup.shared();
        for wi in 0..setup.geom.nwarps {
            let mut warp = setup.new_warp(wi).expect("warp");
            let env = setup.env(&dev, &cta);
            let active = warp.valid;
            for ins in code {
                match op_class(&ins.op) {
                    OpClass::Data => step_data(&env, &mut shared, &mut warp, 0, ins, active).expect("data step"),
                    OpClass::Control => {
                        assert!(matches!(ins.op, Op::Ret { .. }), "straight-line code ends in ret, found {:?}", ins.op);
                        assert_eq!(guard_mask(&warp.frames[0], ins.guard, active), active);
                        break;
                    }
                    OpClass::Sync => panic!("no synchronisation in this kernel"),
                }
            }
            assert_eq!(warp.instrs as usize, code.len() - 1, "one clock tick per data instruction");
            // Registers: each stored register holds, in every valid lane,
            // the value the kernel stored for that lane.
            let fr = &warp.frames[0];
            let out = words(&dev.read(b, n).expect("read"));
            for ins in code {
                let Op::St { srcs, addr, .. } = &ins.op else { continue };
                let (Src::Reg(v), AddrBase::Reg(_)) = (srcs[0], addr.base) else { continue };
                let k = addr.offset as usize / 4;
                for l in 0..32 {
                    if active >> l & 1 == 0 {
                        continue;
                    }
                    let gid = (cta.ctaid[0] * BLOCK + wi * 32 + l) as usize;
                    assert_eq!(fr.regs[v as usize][l as usize] as u32, out[gid * K + k], "cta {:?} warp {wi} lane {l} slot {k}", cta.ctaid);
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, (GRID * BLOCK) as usize * K);

    // The same memory as the engine's.
    let (ea, eb) = (words(&dev.read(a, n).expect("read")), words(&dev.read(b, n).expect("read")));
    assert_eq!(ea, eb, "the data-path loop and the engine disagree");

    // And the values the kernel defines, computed here.
    for gid in 0..(GRID * BLOCK) as usize {
        let r = &eb[gid * K..gid * K + K];
        let g = gid as u32;
        let r6 = g * S + 7;
        let (r7, r8) = (r6 / 3, r6 % 5);
        let t = g % BLOCK;
        assert_eq!(r[0], g);
        assert_eq!(r[1], r6);
        assert_eq!(r[2], r7);
        assert_eq!(r[3], r8);
        assert_eq!(r[4], if r8 < 2 { r7 + 1000 } else { r8 });
        assert_eq!(r[5], (g as f32 * 1.5) as u32);
        assert_eq!(r[6], t % 32);
        // The butterfly partner within the warp; a lane whose partner is
        // past the end of a partial warp reads its own value.
        let warp_lanes = (BLOCK - (t / 32) * 32).min(32);
        let partner = (t % 32) ^ 1;
        assert_eq!(r[7], if partner < warp_lanes { g - t % 32 + partner } else { g });
        let ballot = (0..warp_lanes).filter(|l| !((g - t % 32 + l) * S + 7).is_multiple_of(5)).fold(0u32, |m, l| m | 1 << l);
        assert_eq!(r[8], ballot);
        assert_eq!(r[9], (g << 3) ^ r6);
    }
}

#[test]
fn step_data_refuses_control_flow() {
    let mut dev = Device::new();
    let module = dev.load(SRC).expect("loads");
    let p = dev.alloc(4096).expect("alloc");
    let cfg = LaunchConfig::new(1u32, 32u32);
    let setup = Setup::new(&dev, &module, "k", &cfg, &[KernelArg::Ptr(p), KernelArg::U32(1)]).expect("setup");
    let cta = setup.cta([0, 0, 0]);
    let env = setup.env(&dev, &cta);
    let mut shared = setup.shared();
    let mut warp = setup.new_warp(0).expect("warp");
    let ret = setup.program.functions[setup.kernel as usize].code.last().expect("code").clone();
    assert_eq!(op_class(&ret.op), OpClass::Control);
    assert!(step_data(&env, &mut shared, &mut warp, 0, &ret, u32::MAX).is_err());
    assert!(setup.new_warp(1).is_err(), "a 32-thread CTA has one warp");
    // A bad launch is the launch's error.
    assert!(Setup::new(&dev, &module, "k", &cfg, &[KernelArg::Ptr(p)]).is_err());
}

/// The public data path holds one CTA's shared memory: a `.shared::cluster`
/// address of another CTA (mapa to rank 1 in a two-CTA cluster) is
/// reported `unsupported` there, by name, not read from the wrong memory.
#[test]
fn step_data_reports_another_ctas_shared_memory() {
    const DSMEM: &str = r#"
.version 7.8
.target sm_90
.address_size 64
.shared .align 4 .b32 s[4];
.visible .entry k()
{
    .reg .b32 %r<4>;
    mov.u32 %r1, s;
    mapa.shared::cluster.u32 %r2, %r1, 1;
    ld.shared::cluster.u32 %r3, [%r2];
    ret;
}
"#;
    let mut dev = Device::new();
    let module = dev.load(DSMEM).expect("loads");
    let mut cfg = LaunchConfig::new(2u32, 32u32);
    cfg.cluster = Some(ptxsim_exec::Dim3::new(2, 1, 1));
    let setup = Setup::new(&dev, &module, "k", &cfg, &[]).expect("setup");
    let cta = setup.cta([0, 0, 0]);
    let env = setup.env(&dev, &cta);
    let mut shared = setup.shared();
    let mut warp = setup.new_warp(0).expect("warp");
    let code = &setup.program.functions[setup.kernel as usize].code;
    for ins in &code[..2] {
        step_data(&env, &mut shared, &mut warp, 0, ins, u32::MAX).expect("mov and mapa run");
    }
    let e = step_data(&env, &mut shared, &mut warp, 0, &code[2], u32::MAX).expect_err("another CTA's shared memory");
    assert_eq!(e.kind, ptxsim_exec::TrapKind::Unsupported, "{e}");
    assert!(e.message.contains("CTA rank 1"), "{e}");
    // The engine, whose scheduler lends the cluster's memories, runs it.
    dev.launch(&module, "k", &cfg, &[]).expect("engine run");
}

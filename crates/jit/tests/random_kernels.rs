//! Property tests: random straight-line and looping kernels over the
//! instructions the tier compiles (integer, f32 with `.ftz`/`.sat`, the
//! unary float operations its helper runs (ex2, lg2, rcp, sqrt, rsqrt,
//! sin, cos, approximate and directed-rounding forms),
//! comparisons with every ordered and unordered operator, `selp`, moves,
//! conversions, predicate logic, `shfl.sync` in every mode, guards, divergent forward branches and
//! data-dependent loops, special registers, `cvta`, integer `cvt` between
//! 32 and 64 bits, and global and generic loads and stores of 1, 2, 4 and
//! 8 bytes, signed and unsigned: from the thread's input, into its own
//! scratch words and from its neighbour's, which lanes of the same warp
//! store; shared-memory loads and stores at 32- and 64-bit offsets, the
//! thread's own and its neighbour's; constant-bank loads), on inputs full of NaNs, infinities, subnormals and signed zeros,
//! give the same buffers, statistics and fuel-exhaustion point with the
//! tier forced on as interpreted, in both scheduling modes; and the same
//! buffers with budgets up to twice what the launch needs, whose turns'
//! slices end at other points inside the kernel.

use proptest::prelude::*;
use ptxsim_exec::{Device, Dim3, KernelArg, LaunchConfig, Scheduling};
use ptxsim_jit::{attach, Mode};

const NR: usize = 8; // %r0..%r7 (.b32), %f0..%f7 (.f32), %rd0..%rd3 (.b64), %p0..%p3

fn r(i: usize) -> String {
    format!("%r{}", i % NR)
}
fn f(i: usize) -> String {
    format!("%f{}", i % NR)
}
fn rd(i: usize) -> String {
    format!("%rd{}", i % 4)
}
fn p(i: usize) -> String {
    format!("%p{}", i % 4)
}

const SPECIAL: [u32; 12] = [0x7fc0_0000, 0xffc0_0001, 0x7f80_0000, 0xff80_0000, 0x0000_0001, 0x8000_0001, 0x007f_ffff, 0x8000_0000, 0, 0x3f80_0000, 0x4f80_0000, 0xcf00_0001];

/// One instruction from a menu entry `k` with operand picks `o`.
fn insn(k: u8, o: [usize; 5]) -> String {
    let fimm = |x: usize| format!("0f{:08X}", SPECIAL[x % SPECIAL.len()]);
    let ity = ["u32", "s32"][o[4] % 2];
    let ftz = ["", ".ftz"][o[4] % 2];
    let sat = ["", ".sat"][(o[4] / 2) % 2];
    let rb = if o[3] % 3 == 0 { format!("{}", o[2] as u32 as i32 % 1000 - 500) } else { r(o[2]) };
    match k % 31 {
        0 => format!("{}.{ity} {}, {}, {rb};", ["add", "sub", "mul.lo", "min", "max"][o[3] % 5], r(o[0]), r(o[1])),
        1 => format!("{}.b32 {}, {}, {rb};", ["and", "or", "xor"][o[3] % 3], r(o[0]), r(o[1])),
        2 => format!("{}.{} {}, {}, {};", ["shl", "shr", "shr"][o[3] % 3], ["b32", "u32", "s32"][o[3] % 3], r(o[0]), r(o[1]), o[2] % 40),
        3 => format!("mad.lo.{ity} {}, {}, {}, {};", r(o[0]), r(o[1]), r(o[2]), r(o[3])),
        4 => format!("mul.wide.{ity} {}, {}, {};", rd(o[0]), r(o[1]), r(o[2])),
        5 => format!("{} {}, {}, {};", ["add.s64", "sub.u64", "and.b64", "or.b64", "xor.b64", "mul.lo.s64"][o[3] % 6], rd(o[0]), rd(o[1]), rd(o[2])),
        6 => format!("{}.{} {}, {}, {};", ["shl", "shr"][o[3] % 2], ["b64", "s64"][o[3] % 2], rd(o[0]), rd(o[1]), o[2] % 70),
        7 | 8 => format!("{}{ftz}{sat}.f32 {}, {}, {};", ["add", "sub", "mul", "add.rn", "mul.rn"][o[3] % 5], f(o[0]), f(o[1]), f(o[2])),
        9 => format!("{}{ftz}.f32 {}, {}, {};", ["min", "max"][o[3] % 2], f(o[0]), f(o[1]), if o[3] % 4 == 3 { fimm(o[2]) } else { f(o[2]) }),
        10 | 11 => format!("fma.rn{ftz}{sat}.f32 {}, {}, {}, {};", f(o[0]), f(o[1]), f(o[2]), f(o[3])),
        // neg and abs compiled natively; the others run by the helper.
        12 => {
            let op = ["neg", "abs", "ex2.approx", "rcp.rn", "rcp.approx", "sqrt.rn", "sqrt.approx", "lg2.approx", "sin.approx", "cos.approx", "rsqrt.approx", "rcp.rz", "sqrt.rm"][o[3] % 13];
            format!("{op}{ftz}.f32 {}, {};", f(o[0]), f(o[1]))
        }
        13 => {
            let c = ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"][o[3] % 14];
            let comb = match o[2] % 4 {
                0 => String::new(),
                k => format!(".{}", ["and", "or", "xor"][k - 1]),
            };
            let tail = if comb.is_empty() { String::new() } else { format!(", {}{}", if o[4] % 3 == 0 { "!" } else { "" }, p(o[4])) };
            let dst = if o[1] % 2 == 0 { p(o[0]) } else { format!("{}|{}", p(o[0]), p(o[0] + 1)) };
            format!("setp.{c}{comb}{ftz}.f32 {dst}, {}, {}{tail};", f(o[1]), f(o[2]))
        }
        14 => {
            let c = ["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"][o[3] % 10];
            let ty = if o[3] >= 6 { "u32".to_string() } else { ity.to_string() };
            format!("setp.{c}.{ty} {}, {}, {rb};", p(o[0]), r(o[1]))
        }
        15 => format!("setp.{}.s64 {}, {}, {};", ["lt", "ne", "ge"][o[3] % 3], p(o[0]), rd(o[1]), rd(o[2])),
        16 => match o[3] % 3 {
            0 => format!("selp.b32 {}, {}, {}, {};", r(o[0]), r(o[1]), r(o[2]), p(o[4])),
            1 => format!("selp.f32 {}, {}, {}, {};", f(o[0]), f(o[1]), fimm(o[2]), p(o[4])),
            _ => format!("selp.b64 {}, {}, {}, {};", rd(o[0]), rd(o[1]), rd(o[2]), p(o[4])),
        },
        17 => match o[3] % 3 {
            0 => format!("mov.b32 {}, {};", r(o[0]), r(o[1])),
            1 => format!("mov.f32 {}, {};", f(o[0]), fimm(o[1])),
            _ => format!("mov.b64 {}, {};", rd(o[0]), rd(o[1])),
        },
        18 => format!("cvt.rn.f32.{ity} {}, {};", f(o[0]), r(o[1])),
        19 => format!("cvt.rzi.{ity}.f32 {}, {};", r(o[0]), f(o[1])),
        20 => match o[3] % 4 {
            3 => format!("not.pred {}, {};", p(o[0]), p(o[1])),
            k => format!("{}.pred {}, {}, {};", ["and", "or", "xor"][k], p(o[0]), p(o[1]), p(o[2])),
        },
        21 => format!("mov.b32 {}, {};", r(o[0]), rb),
        // Loads from the thread's 128 input bytes (%a0), aligned.
        22 => format!("ld{}.{} {}, [%a0+{}];", ["", ".global"][o[4] % 2], ["u32", "b32", "f32"][o[3] % 3], r(o[0]), 4 * (o[2] % 32)),
        23 => match o[3] % 4 {
            0 => format!("ld.global.u8 {}, [%a0+{}];", r(o[0]), o[2] % 128),
            1 => format!("ld.global.u16 {}, [%a0+{}];", r(o[0]), 2 * (o[2] % 64)),
            2 => format!("ld.global.s8 {}, [%a0+{}];", rd(o[0]), o[2] % 128),
            _ => format!("ld.global.s16 {}, [%a0+{}];", rd(o[0]), 2 * (o[2] % 64)),
        },
        24 => match o[3] % 3 {
            0 => format!("ld{}.u64 {}, [%a0+{}];", ["", ".global"][o[4] % 2], rd(o[0]), 8 * (o[2] % 16)),
            1 => format!("ld.global.s32 {}, [%a0+{}];", rd(o[0]), 4 * (o[2] % 32)),
            _ => format!("ld.global.u32 {}, [%a0+{}];", rd(o[0]), 4 * (o[2] % 32)),
        },
        // Stores into the thread's 16 scratch bytes (%a3).
        25 => match o[3] % 5 {
            0 => format!("st{}.u32 [%a3+{}], {};", ["", ".global"][o[4] % 2], 4 * (o[2] % 4), r(o[1])),
            1 => format!("st.global.u8 [%a3+{}], {};", o[2] % 16, r(o[1])),
            2 => format!("st.global.u16 [%a3+{}], {};", 2 * (o[2] % 8), r(o[1])),
            3 => format!("st.global.u64 [%a3+{}], {};", 8 * (o[2] % 2), rd(o[1])),
            _ => format!("st.global.u32 [%a3+{}], {};", 4 * (o[2] % 4), o[1] as u32 * 7919),
        },
        // Loads of the neighbour's scratch (%a4: thread tid + 1, mod the block).
        26 => match o[3] % 2 {
            0 => format!("ld.global.u32 {}, [%a4+{}];", r(o[0]), 4 * (o[2] % 4)),
            _ => format!("ld.u64 {}, [%a4+{}];", rd(o[0]), 8 * (o[2] % 2)),
        },
        // Shuffles: every mode, lane or offset from a register or an
        // immediate, clamp and segment masks, with and without `p`.
        27 => {
            let b = if o[4] % 2 == 0 { format!("{}", o[2] % 40) } else { r(o[2]) };
            let c = ["31", "0", "0x81f", "0x1c1f", "0x1e00", "0x1f00"][o[2] % 6];
            let c = if o[4] % 5 == 4 { r(o[1] + 3) } else { c.to_string() };
            let dst = if o[4] % 3 == 0 { format!("{}|{}", r(o[0]), p(o[0])) } else { r(o[0]) };
            format!("shfl.sync.{}.b32 {dst}, {}, {b}, {c}, 0xffffffff;", ["up", "down", "bfly", "idx"][o[3] % 4], r(o[1]))
        }
        // The thread's 16 bytes of shared memory (%s1, or %a5 as a 64-bit
        // offset) and its neighbour's (%s2).
        28 => match o[3] % 6 {
            0 => format!("st.shared.u32 [%s1+{}], {};", 4 * (o[2] % 4), r(o[1])),
            1 => format!("st.shared.u8 [%s1+{}], {};", o[2] % 16, r(o[1])),
            2 => format!("st.shared.u64 [%a5+{}], {};", 8 * (o[2] % 2), rd(o[1])),
            3 => format!("ld.shared.u32 {}, [%s2+{}];", r(o[0]), 4 * (o[2] % 4)),
            4 => format!("ld.shared.s16 {}, [%s1+{}];", rd(o[0]), 2 * (o[2] % 8)),
            _ => format!("ld.shared.f32 {}, [%a5+{}];", f(o[0]), 4 * (o[2] % 4)),
        },
        // The constant bank: fixed addresses, and a per-lane one (%a6:
        // ctab + 4 * (tid % 8)).
        29 => match o[3] % 4 {
            0 => format!("ld.const.u32 {}, [ctab+{}];", r(o[0]), 4 * (o[2] % 64)),
            1 => format!("ld.const.u32 {}, [%a6+{}];", r(o[0]), 4 * (o[2] % 8)),
            2 => format!("ld.const.f32 {}, [%a6+{}];", f(o[0]), 4 * (o[2] % 8)),
            _ => format!("ld.const.s16 {}, [%a6+{}];", rd(o[0]), 2 * (o[2] % 16)),
        },
        _ => match o[3] % 8 {
            0 => format!("mov.u32 {}, %tid.x;", r(o[0])),
            1 => format!("mov.u32 {}, %ntid.x;", r(o[0])),
            2 => format!("mov.u32 {}, %ctaid.x;", r(o[0])),
            3 => format!("mov.u32 {}, %laneid;", r(o[0])),
            4 => format!("cvt.u64.u32 {}, {};", rd(o[0]), r(o[1])),
            5 => format!("cvt.s64.s32 {}, {};", rd(o[0]), r(o[1])),
            6 => format!("cvt.u32.u64 {}, {};", r(o[0]), rd(o[1])),
            _ => format!("cvta.{}.u64 {}, {};", ["to.global", "to.shared", "shared", "to.local"][o[4] % 4], rd(o[0]), rd(o[1])),
        },
    }
}

/// A kernel: registers loaded from `in` (32 words per thread), the body,
/// every register and predicate stored to `out` (bytes 0..112 of the
/// thread's 128; bytes 112..128 are its scratch, which the body stores).
fn kernel(body: &[(u8, [usize; 5], u8)], lp: Option<(usize, usize)>) -> String {
    let mut s = prologue();
    // A loop of `1 + tid % m` iterations around instructions lo..hi.
    let (lo, hi, m) = match lp {
        Some((a, b)) => (a.min(b).min(body.len() - 1), (a.max(b) + 1).min(body.len()), 1 + (a + b) % 5),
        None => (usize::MAX, usize::MAX, 1),
    };
    s += &format!("rem.u32 %t1, %t0, {m};\n");
    for (i, (k, o, g)) in body.iter().enumerate() {
        if i == lo {
            s += "LOOP:\n";
        }
        // A divergent forward branch over the next instruction.
        if *g % 11 == 10 {
            s += &format!("@{} bra SKIP{i};\n", p(o[4] + 2));
        }
        let guard = match g % 5 {
            0 => format!("@{} ", p(*g as usize / 5)),
            1 => format!("@!{} ", p(*g as usize / 5)),
            _ => String::new(),
        };
        s += &format!("{guard}{}\n", insn(*k, *o));
        if *g % 11 == 10 {
            s += &format!("SKIP{i}:\n");
        }
        if i + 1 == hi {
            s += "sub.u32 %t1, %t1, 1;\nsetp.ne.u32 %q, %t1, -1;\n@%q bra LOOP;\n";
        }
    }
    s + &epilogue()
}

/// The kernel's start: its registers loaded from `in` (32 words per
/// thread), the output and scratch addresses.
fn prologue() -> String {
    let mut s = String::from(
        ".version 7.0\n.target sm_70\n.address_size 64\n.const .align 8 .b32 ctab[64] = {0, 2654435761, 1013904226, 3668339987, 2027808452, 387276917, 3041712678, 1401181143, 4055616904, 2415085369, 774553834, 3428989595, 1788458060, 147926525, 2802362286, 1161830751, 3816266512, 2175734977, 535203442, 3189639203, 1549107668, 4203543429, 2563011894, 922480359, 3576916120, 1936384585, 295853050, 2950288811, 1309757276, 3964193037, 2323661502, 683129967, 3337565728, 1697034193, 56502658, 2710938419, 1070406884, 3724842645, 2084311110, 443779575, 3098215336, 1457683801, 4112119562, 2471588027, 831056492, 3485492253, 1844960718, 204429183, 2858864944, 1218333409, 3872769170, 2232237635, 591706100, 3246141861, 1605610326, 4260046087, 2619514552, 978983017, 3633418778, 1992887243, 352355708, 3006791469, 1366259934, 4020695695};\n.visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n\
         .reg .pred %p<4>;\n.reg .b32 %r<8>;\n.reg .f32 %f<8>;\n.reg .b64 %rd<4>;\n.reg .b32 %t<4>;\n.reg .b64 %a<8>;\n.reg .pred %q;\n.reg .b32 %s<3>;\n.shared .align 16 .b8 sh[1024];\n\
         ld.param.u64 %a0, [pin];\nld.param.u64 %a1, [pout];\nmov.u32 %t0, %tid.x;\nmul.wide.u32 %a2, %t0, 128;\nadd.s64 %a0, %a0, %a2;\n\
         add.u32 %t3, %t0, 1;\nmov.u32 %t2, %ntid.x;\nrem.u32 %t3, %t3, %t2;\nmul.wide.u32 %a4, %t3, 128;\nadd.s64 %a4, %a1, %a4;\nadd.s64 %a4, %a4, 112;\n\
         add.s64 %a1, %a1, %a2;\nadd.s64 %a3, %a1, 112;\n\
         mov.u32 %s0, sh;\nmad.lo.u32 %s1, %t0, 16, %s0;\nmad.lo.u32 %s2, %t3, 16, %s0;\ncvt.u64.u32 %a5, %s1;\n\
         mov.u64 %a6, ctab;\nand.b32 %t1, %t0, 7;\nmul.wide.u32 %a7, %t1, 4;\nadd.s64 %a6, %a6, %a7;\n\
         st.shared.u32 [%s1], %t0;\nst.shared.u32 [%s1+4], %t3;\nst.shared.u32 [%s1+8], %t0;\nst.shared.u32 [%s1+12], %t3;\n",
    );
    for i in 0..NR {
        s += &format!("ld.global.u32 %r{i}, [%a0+{}];\nld.global.f32 %f{i}, [%a0+{}];\n", 4 * i, 32 + 4 * i);
    }
    for i in 0..4 {
        s += &format!("ld.global.u64 %rd{i}, [%a0+{}];\nsetp.ne.u32 %p{i}, %r{i}, 0;\n", 64 + 8 * i);
    }
    s
}

/// The kernel's end: every register and predicate stored to `out`.
fn epilogue() -> String {
    let mut s = String::new();
    for i in 0..NR {
        s += &format!("st.global.u32 [%a1+{}], %r{i};\nst.global.f32 [%a1+{}], %f{i};\n", 4 * i, 32 + 4 * i);
    }
    for i in 0..4 {
        s += &format!("selp.u32 %t2, 1, 0, %p{i};\nst.global.u32 [%a1+{}], %t2;\nst.global.u64 [%a1+{}], %rd{i};\n", 96 + 4 * i, 64 + 8 * i);
    }
    s + "ret;\n}\n"
}

/// A loop of register-only instructions (menu entries below the loads)
/// that the tier runs lane by lane in stack mode: exits to one label
/// after body instructions `exits` (guard predicate and polarity), a
/// counted exit of `1 + tid % m` iterations, and a back edge that is
/// guarded (falling through to the exit) or unguarded.
fn lane_loop_kernel(body: &[(u8, [usize; 5])], exits: &[(usize, usize, bool)], m: usize, guarded_back: bool) -> String {
    let mut s = prologue();
    s += &format!("rem.u32 %t1, %t0, {m};\nLOOP:\n");
    for (i, &(k, mut o)) in body.iter().enumerate() {
        // A loop runs lane by lane only without helper calls: of the
        // unary float operations, neg and abs.
        if k % 22 == 12 {
            o[3] %= 2;
        }
        s += &format!("{}\n", insn(k % 22, o));
        for &(_, q, neg) in exits.iter().filter(|e| e.0 == i) {
            s += &format!("@{}{} bra EXIT;\n", if neg { "!" } else { "" }, p(q));
        }
    }
    s += "sub.u32 %t1, %t1, 1;\nsetp.ne.u32 %q, %t1, -1;\n";
    if guarded_back {
        s += "@%q bra LOOP;\n";
    } else {
        s += "@!%q bra EXIT;\nbra LOOP;\n";
    }
    s + "EXIT:\n" + &epilogue()
}

fn run(src: &str, input: &[u8], sched: Scheduling, jit: Mode, fuel: u64) -> Result<(Vec<u8>, u64, u64, u64), String> {
    let mut dev = Device::new();
    let mut m = dev.load(src).map_err(|e| format!("load: {e}"))?;
    if let Some(t) = attach(&mut m, jit) {
        // Cranelift must accept what the emitter builds.
        for (name, r) in t.report() {
            if let Some(Err(e @ ptxsim_jit::CompileError::Codegen { .. })) = r {
                return Err(format!("{name}: {e}"));
            }
        }
    }
    let a = dev.alloc(input.len() as u64).unwrap();
    let o = dev.alloc(input.len() as u64).unwrap();
    dev.write(a, input).unwrap();
    let mut cfg = LaunchConfig::new(Dim3::new(1, 1, 1), Dim3::new(input.len() as u32 / 128, 1, 1));
    cfg.scheduling = sched;
    cfg.fuel = fuel;
    cfg.threads = Some(1);
    match dev.launch(&m, "k", &cfg, &[KernelArg::U64(a), KernelArg::U64(o)]) {
        Ok(s) => Ok((dev.read(o, input.len() as u64).unwrap(), s.warp_instructions, s.thread_instructions, s.divergent_branches)),
        Err(e) => Err(format!("{:?} {} line {:?} warp {:?} lane {:?}", e.kind, e.message, e.line, e.warp, e.lane)),
    }
}

fn word() -> impl Strategy<Value = u32> {
    prop_oneof![any::<u32>(), (0..SPECIAL.len()).prop_map(|i| SPECIAL[i]), (0u32..8).prop_map(|x| x.wrapping_sub(3))]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]
    #[test]
    fn random_kernels_same_with_tier_on_and_off(
        body in prop::collection::vec((0u8..31, [0usize..64, 0usize..64, 0usize..1024, 0usize..64, 0usize..64], 0u8..40), 1..40),
        lp in prop::option::of((0usize..40, 0usize..40)),
        words in prop::collection::vec(word(), 32 * 40),
        fuel_frac in 1u64..16,
    ) {
        let src = kernel(&body, lp);
        let input: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        for sched in [Scheduling::Stack, Scheduling::Its] {
            let off = run(&src, &input, sched, Mode::Off, 1_000_000);
            prop_assert!(off.is_ok(), "{off:?}\n{src}");
            let on = run(&src, &input, sched, Mode::On, 1_000_000);
            prop_assert_eq!(&off, &on, "{:?}\n{}", sched, src);
            let w = off.as_ref().unwrap().1;
            let fuel = (w * fuel_frac / 8).max(1);
            let a = run(&src, &input, sched, Mode::Off, fuel);
            let b = run(&src, &input, sched, Mode::On, fuel);
            prop_assert_eq!(a, b, "{:?} fuel {}\n{}", sched, fuel, src);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]
    #[test]
    fn random_lane_loops_same_with_tier_on_and_off(
        body in prop::collection::vec((0u8..22, [0usize..64, 0usize..64, 0usize..1024, 0usize..64, 0usize..64]), 1..16),
        exits in prop::collection::vec((0usize..16, 0usize..4, any::<bool>()), 0..3),
        m in 1usize..9,
        guarded_back in any::<bool>(),
        words in prop::collection::vec(word(), 32 * 40),
        fuel_frac in 1u64..16,
    ) {
        let src = lane_loop_kernel(&body, &exits, m, guarded_back);
        // Every such kernel has the loop the test is about.
        {
            let mut module = Device::new().load(&src).unwrap();
            let t = attach(&mut module, Mode::On).expect("a tier");
            let rep = t.report();
            let n = rep[0].1.as_ref().and_then(|r| r.as_ref().ok()).map_or(0, |c| c.lane_loops);
            prop_assert_eq!(n, 1, "{}", src);
        }
        let input: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        for sched in [Scheduling::Stack, Scheduling::Its] {
            let off = run(&src, &input, sched, Mode::Off, 1_000_000);
            prop_assert!(off.is_ok(), "{off:?}\n{src}");
            let on = run(&src, &input, sched, Mode::On, 1_000_000);
            prop_assert_eq!(&off, &on, "{:?}\n{}", sched, src);
            let w = off.as_ref().unwrap().1;
            let fuel = (w * fuel_frac / 8).max(1);
            let a = run(&src, &input, sched, Mode::Off, fuel);
            let b = run(&src, &input, sched, Mode::On, fuel);
            prop_assert_eq!(a, b, "{:?} fuel {}\n{}", sched, fuel, src);
        }
    }
}

/// The lane-loop kernels qualify: the tier runs their loop lane by lane.
#[test]
fn lane_loop_kernels_have_a_lane_by_lane_loop() {
    let body: Vec<(u8, [usize; 5])> = (0..22u8).map(|k| (k, [k as usize, 1, 7, 2, 1])).collect();
    for guarded_back in [false, true] {
        let src = lane_loop_kernel(&body, &[(3, 1, false), (9, 2, true)], 5, guarded_back);
        let mut m = Device::new().load(&src).unwrap_or_else(|e| panic!("{e}\n{src}"));
        let t = attach(&mut m, Mode::On).expect("a tier");
        let rep = t.report();
        let c = rep[0].1.as_ref().and_then(|r| r.as_ref().ok()).unwrap_or_else(|| panic!("not compiled: {:?}", rep[0].1));
        assert_eq!(c.lane_loops, 1, "{src}");
    }
}

/// A kernel with every menu entry (each several ways) compiles all its
/// loads, stores, special-register moves, `cvt` and `cvta`: what the
/// tier hands back is only what it does not compile by design (`rem`,
/// `ret`), so the property above exercises the compiled memory path.
#[test]
fn every_menu_entry_compiles() {
    let body: Vec<(u8, [usize; 5], u8)> = (0..31u8).flat_map(|k| (0..8usize).map(move |j| (k, [j, j + 1, 3 * j + 1, j, j / 2], 2))).collect();
    let src = kernel(&body, Some((3, 200)));
    let mut dev = Device::new();
    let mut m = dev.load(&src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let t = attach(&mut m, Mode::On).expect("a tier");
    let rep = t.report();
    let c = rep[0].1.as_ref().and_then(|r| r.as_ref().ok()).unwrap_or_else(|| panic!("not compiled: {:?}", rep[0].1));
    let unexpected: Vec<_> = c.skipped.iter().filter(|(_, why)| why != "IBin" && !why.starts_with("integer Rem") && why != "Ret").collect();
    assert!(unexpected.is_empty(), "{unexpected:?}\n{src}");
    let words: Vec<u32> = (0..32 * 40).map(|i| SPECIAL[i % SPECIAL.len()] ^ i as u32).collect();
    let input: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    for sched in [Scheduling::Stack, Scheduling::Its] {
        let off = run(&src, &input, sched, Mode::Off, 1_000_000);
        assert!(off.is_ok(), "{off:?}");
        assert_eq!(off, run(&src, &input, sched, Mode::On, 1_000_000), "{sched:?}");
    }
}

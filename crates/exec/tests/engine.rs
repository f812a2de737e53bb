//! Kernel tests of the SIMT engine through the Rust API: control-flow
//! constructs uniform and divergent in both scheduling modes, traps for the
//! undefined cases, grammar fuzzing (no panic; same results in both modes),
//! and a smoke run of every corpus kernel (runs, or fails with a clean error).
//! Expected values come from Rust transcriptions of the kernels' C
//! semantics, written independently of the engine.

use ptxsim_exec::{Device, KernelArg, LaunchConfig, RunError, Scheduling, TrapKind};

const MODES: [Scheduling; 2] = [Scheduling::Stack, Scheduling::Its];

/// Runs `kernel` with one u32 output buffer of `n` words (arg 0) plus scalars.
fn run(src: &str, kernel: &str, grid: u32, block: u32, n: usize, scalars: &[u32], mode: Scheduling) -> Result<Vec<u32>, RunError> {
    let mut dev = Device::new();
    let m = dev.load(src)?;
    let p = dev.alloc(n as u64 * 4)?;
    let mut args = vec![KernelArg::Ptr(p)];
    args.extend(scalars.iter().map(|v| KernelArg::U32(*v)));
    let mut cfg = LaunchConfig::new(grid, block);
    cfg.scheduling = mode;
    cfg.fuel = 5_000_000;
    dev.launch(&m, kernel, &cfg, &args)?;
    let b = dev.read(p, n as u64 * 4)?;
    Ok(b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

const HEADER: &str = ".version 7.8\n.target sm_70\n.address_size 64\n";

fn kernel(body: &str, funcs: &str) -> String {
    format!(
        "{HEADER}{funcs}\n.visible .entry k(.param .u64 out)\n{{\n.reg .pred %p, %q;\n.reg .u32 %t, %a, %b, %c, %i, %j;\n.reg .u64 %o, %x;\nld.param.u64 %o, [out];\nmov.u32 %t, %tid.x;\nmul.wide.u32 %x, %t, 4;\nadd.u64 %o, %o, %x;\n{body}\nst.global.u32 [%o], %a;\nret;\n}}\n"
    )
}

#[test]
fn nested_divergent_loops_with_break_and_continue() {
    // for i in 0..t%7+3 { if i%3==1 continue; if i*t > 40 break; a += i; for j in 0..(t&3) { if j==2 break; a += 10 } }
    let body = r#"
    mov.u32 %a, 0;
    rem.u32 %c, %t, 7;
    add.u32 %c, %c, 3;
    mov.u32 %i, 0;
OUTER:
    setp.ge.u32 %p, %i, %c;
@%p bra END;
    rem.u32 %b, %i, 3;
    setp.eq.u32 %p, %b, 1;
@%p bra NEXT;
    mul.lo.u32 %b, %i, %t;
    setp.gt.u32 %p, %b, 40;
@%p bra END;
    add.u32 %a, %a, %i;
    and.b32 %b, %t, 3;
    mov.u32 %j, 0;
INNER:
    setp.ge.u32 %q, %j, %b;
@%q bra NEXT;
    setp.eq.u32 %q, %j, 2;
@%q bra NEXT;
    add.u32 %a, %a, 10;
    add.u32 %j, %j, 1;
    bra INNER;
NEXT:
    add.u32 %i, %i, 1;
    bra OUTER;
END:
"#;
    let src = kernel(body, "");
    let expect: Vec<u32> = (0..64u32)
        .map(|t| {
            let mut a = 0;
            for i in 0..t % 7 + 3 {
                if i % 3 == 1 {
                    continue;
                }
                if i * t > 40 {
                    break;
                }
                a += i;
                for j in 0..(t & 3) {
                    if j == 2 {
                        break;
                    }
                    a += 10;
                }
            }
            a
        })
        .collect();
    for mode in MODES {
        assert_eq!(run(&src, "k", 1, 64, 64, &[], mode).unwrap(), expect, "{mode:?}");
    }
}

#[test]
fn early_ret_in_divergent_function_and_recursion() {
    let funcs = r#"
.func (.reg .u32 r) f(.reg .u32 x)
{
    .reg .pred %p;
    setp.lt.u32 %p, x, 5;
@%p mov.u32 r, 100;
@%p ret;
    mul.lo.u32 r, x, 2;
    ret;
}
.func (.reg .u32 r) fib(.reg .u32 n)
{
    .reg .pred %p;
    .reg .u32 %u, %v, %m;
    setp.lt.u32 %p, n, 2;
@%p mov.u32 r, n;
@%p ret;
    sub.u32 %m, n, 1;
    call (%u), fib, (%m);
    sub.u32 %m, n, 2;
    call (%v), fib, (%m);
    add.u32 r, %u, %v;
    ret;
}"#;
    let body = "call (%a), f, (%t);\nrem.u32 %b, %t, 12;\ncall (%c), fib, (%b);\nmul.lo.u32 %c, %c, 1000;\nadd.u32 %a, %a, %c;";
    let src = kernel(body, funcs);
    fn fib(n: u32) -> u32 {
        if n < 2 {
            n
        } else {
            fib(n - 1) + fib(n - 2)
        }
    }
    let expect: Vec<u32> = (0..40u32).map(|t| (if t < 5 { 100 } else { 2 * t }) + 1000 * fib(t % 12)).collect();
    for mode in MODES {
        assert_eq!(run(&src, "k", 1, 40, 40, &[], mode).unwrap(), expect, "{mode:?}");
    }
}

#[test]
fn per_lane_brx_idx_and_indirect_calls() {
    let funcs = ".func (.reg .u32 r) g0(.reg .u32 x) { add.u32 r, x, 1; ret; }\n.func (.reg .u32 r) g1(.reg .u32 x) { mul.lo.u32 r, x, 3; ret; }\n.func (.reg .u32 r) g2(.reg .u32 x) { sub.u32 r, 0, x; ret; }\n.global .u64 tab[3] = { g0, g1, g2 };";
    let body = r#"
    rem.u32 %b, %t, 4;
    ts: .branchtargets L0, L1, L2, L3;
    brx.idx %b, ts;
L0: mov.u32 %a, 10;
    bra J;
L1: mov.u32 %a, 20;
    bra J;
L2: mov.u32 %a, 30;
    bra J;
L3: mov.u32 %a, 40;
J:
    rem.u32 %c, %t, 3;
    mul.wide.u32 %x, %c, 8;
    mov.u64 %o, tab;
    add.u64 %x, %x, %o;
    ld.global.u64 %x, [%x];
    ld.param.u64 %o, [out];
    call (%c), %x, (%t), tab;
    add.u32 %a, %a, %c;
    mul.wide.u32 %x, %t, 4;
    add.u64 %o, %o, %x;
"#;
    let src = kernel(body, funcs);
    let expect: Vec<u32> = (0..48u32)
        .map(|t| {
            let a = [10, 20, 30, 40][(t % 4) as usize];
            let c = match t % 3 {
                0 => t + 1,
                1 => t * 3,
                _ => 0u32.wrapping_sub(t),
            };
            a + c
        })
        .collect();
    for mode in MODES {
        assert_eq!(run(&src, "k", 1, 48, 48, &[], mode).unwrap(), expect, "{mode:?}");
    }
}

#[test]
fn divergent_exit_then_barrier_and_bar_red() {
    // Odd threads exit; even threads meet at bar.sync (released despite the
    // exited threads) and count themselves with bar.red.popc.
    let body = r#"
    and.b32 %b, %t, 1;
    setp.eq.u32 %p, %b, 1;
@%p st.global.u32 [%o], 7;
@%p exit;
    bar.sync 0;
    setp.ne.u32 %q, %t, 1000;
    bar.red.popc.u32 %a, 1, %q;
"#;
    let src = kernel(body, "");
    let expect: Vec<u32> = (0..96u32).map(|t| if t % 2 == 1 { 7 } else { 48 }).collect();
    for mode in MODES {
        assert_eq!(run(&src, "k", 1, 96, 96, &[], mode).unwrap(), expect, "{mode:?}");
    }
}

#[test]
fn nanosleep_advances_the_virtual_clock() {
    let body = "mov.u64 %x, %clock64;\nnanosleep.u32 5000;\nmov.u64 %o, %clock64;\nsub.u64 %x, %o, %x;\nld.param.u64 %o, [out];\nmul.wide.u32 %o, %t, 4;\nld.param.u64 %x, [out];\nadd.u64 %o, %o, %x;\nmov.u64 %x, %clock64;\ncvt.u32.u64 %a, %x;\nsetp.ge.u32 %p, %a, 5000;\nselp.u32 %a, 1, 0, %p;";
    let src = kernel(body, "");
    for mode in MODES {
        assert_eq!(run(&src, "k", 1, 32, 32, &[], mode).unwrap(), vec![1; 32], "{mode:?}");
    }
}

const SPIN: &str = r#"
.version 7.8
.target sm_70
.address_size 64
.visible .entry spin(.param .u64 out)
{
    .reg .pred %p;
    .reg .u32 %r<4>;
    .reg .u64 %o;
    ld.param.u64 %o, [out];
L:
    atom.global.cas.b32 %r1, [%o], 0, 1;
    setp.ne.u32 %p, %r1, 0;
@%p bra L;
    ld.global.u32 %r2, [%o+4];
    add.u32 %r2, %r2, 1;
    st.global.u32 [%o+4], %r2;
    atom.global.exch.b32 %r3, [%o], 0;
    ret;
}
"#;

#[test]
fn spin_lock_completes_under_its_and_deadlocks_under_stack() {
    let r = run(SPIN, "spin", 1, 64, 2, &[], Scheduling::Its).unwrap();
    assert_eq!(r, vec![0, 64]);
    let e = run(SPIN, "spin", 1, 32, 2, &[], Scheduling::Stack).unwrap_err();
    assert_eq!(e.kind, TrapKind::StackDeadlock, "{e}");
}

fn trap(src: &str, n: usize) -> RunError {
    run(src, "k", 1, 32, n, &[], Scheduling::Stack).unwrap_err()
}

#[test]
fn traps_are_located_errors() {
    let e = trap(&kernel("mov.u32 %b, 5;\nts: .branchtargets A, B;\nbrx.idx %b, ts;\nA: mov.u32 %a, 1;\nB: mov.u32 %a, 2;", ""), 32);
    assert_eq!(e.kind, TrapKind::BrxIndexOutOfRange);
    assert!(e.message.contains("ts") && e.message.contains('5'), "{}", e.message);
    assert_eq!(e.line, Some(16)); // the brx.idx line of the generated kernel

    let e = trap(&kernel("setp.lt.u32 %p, %t, 3;\n@%p bra.uni X;\nX: mov.u32 %a, 0;", ""), 32);
    assert_eq!(e.kind, TrapKind::NonUniform);

    let e = trap(&kernel("ld.global.u32 %a, [%o+4096];", ""), 32);
    assert_eq!(e.kind, TrapKind::OutOfBounds);
    assert_eq!(e.lane, Some(0));

    // The kernel stores one u32 per thread: with a 3-word buffer, lane 3 is
    // the first past the end, even though lanes 2 and 3 share an 8-byte word.
    let e = trap(&kernel("mov.u32 %a, %t;", ""), 3);
    assert_eq!((e.kind, e.lane), (TrapKind::OutOfBounds, Some(3)));

    let e = trap(&kernel("ld.global.u32 %a, [%o+2];", ""), 32);
    assert_eq!(e.kind, TrapKind::Misaligned);

    let e = trap(&kernel("div.u32 %a, 1, %t;", ""), 32);
    assert_eq!((e.kind, e.lane), (TrapKind::DivideByZero, Some(0)));

    let e = trap(&kernel("setp.eq.u32 %p, %t, 9;\n@%p trap;", ""), 32);
    assert_eq!((e.kind, e.lane), (TrapKind::Trap, Some(9)));

    let e = trap(&kernel("mov.u64 %x, 12345;\nft: .calltargets g;\ncall (%a), %x, (%t), ft;", ".func (.reg .u32 r) g(.reg .u32 x) { mov.u32 r, x; ret; }"), 32);
    assert_eq!(e.kind, TrapKind::BadCallTarget);

    let e = trap(
        &kernel(
            "mov.u64 %x, h;\npr: .callprototype (.reg .u32 _) _ (.reg .u32 _);\ncall (%a), %x, (%t), pr;",
            ".func (.reg .u64 r) h(.reg .u32 x) { cvt.u64.u32 r, x; ret; }",
        ),
        32,
    );
    assert_eq!(e.kind, TrapKind::PrototypeMismatch);

    let e = trap(&kernel("call (%a), deep, (%t);", ".func (.reg .u32 r) deep(.reg .u32 x) { call (r), deep, (x); ret; }"), 32);
    assert_eq!(e.kind, TrapKind::CallDepth);

    let e = trap(&kernel("L: bra L;", ""), 32);
    assert_eq!(e.kind, TrapKind::FuelExhausted);

    let e = trap(&kernel("setp.lt.u32 %p, %t, 16;\n@%p bar.sync 0;", ""), 32);
    assert_eq!(e.kind, TrapKind::BarrierDeadlock);

    let e = trap(&kernel("mov.u32 %a, 0;\ntex.1d.v4.f32.s32 {%a, %b, %c, %i}, [tx, {%t}];", ".global .texref tx;"), 32);
    assert!(matches!(e.kind, TrapKind::Unsupported | TrapKind::LoadError), "{e}");

    let mut dev = Device::new();
    let m = dev.load(&kernel("", "")).unwrap();
    let e = dev.launch(&m, "k", &LaunchConfig::new(1, 2048), &[KernelArg::Ptr(0)]).unwrap_err();
    assert_eq!(e.kind, TrapKind::InvalidLaunch);
    let e = dev.load("garbage").unwrap_err();
    assert_eq!(e.kind, TrapKind::LoadError);
}

/// A tiny generator of structured random kernels: arithmetic on lane-derived
/// values, divergent if/else, bounded loops, brx.idx, and direct calls.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn reg(&mut self) -> String {
        format!("%v{}", self.pick(6))
    }
    fn stmt(&mut self, depth: u32, label: &mut u32, out: &mut String) {
        let k = if depth > 3 { self.pick(4) } else { self.pick(9) };
        match k {
            0 | 1 => {
                let ops = ["add.u32", "sub.u32", "mul.lo.u32", "xor.b32", "and.b32", "or.b32", "shl.b32", "shr.u32", "min.s32", "max.u32"];
                let op = ops[self.pick(ops.len() as u64) as usize];
                let (d, a) = (self.reg(), self.reg());
                let b = if self.pick(2) == 0 { self.reg() } else { format!("{}", self.pick(40)) };
                out.push_str(&format!("{op} {d}, {a}, {b};\n"));
            }
            2 => {
                let (d, a) = (self.reg(), self.reg());
                out.push_str(&format!("setp.lt.u32 %pp, {a}, {};\nselp.u32 {d}, {a}, {}, %pp;\n", self.pick(50), self.pick(9)));
            }
            3 => {
                let (d, a) = (self.reg(), self.reg());
                out.push_str(&format!("call ({d}), fz, ({a});\n"));
            }
            4 | 5 => {
                *label += 1;
                let l = *label;
                let a = self.reg();
                out.push_str(&format!("and.b32 %tmp, {a}, {};\nsetp.ne.u32 %pp, %tmp, 0;\n@%pp bra ELSE{l};\n", 1 + self.pick(7)));
                for _ in 0..1 + self.pick(3) {
                    self.stmt(depth + 1, label, out);
                }
                out.push_str(&format!("bra JOIN{l};\nELSE{l}:\n"));
                for _ in 0..1 + self.pick(3) {
                    self.stmt(depth + 1, label, out);
                }
                out.push_str(&format!("JOIN{l}:\n"));
            }
            6 | 7 => {
                *label += 1;
                let l = *label;
                let c = format!("%c{depth}");
                let a = self.reg();
                out.push_str(&format!("and.b32 {c}, {a}, 7;\nLOOP{l}:\nsetp.eq.u32 %pp, {c}, 0;\n@%pp bra DONE{l};\nsub.u32 {c}, {c}, 1;\n"));
                for _ in 0..1 + self.pick(3) {
                    self.stmt(depth + 1, label, out);
                }
                out.push_str(&format!("bra LOOP{l};\nDONE{l}:\n"));
            }
            _ => {
                *label += 1;
                let l = *label;
                let a = self.reg();
                out.push_str(&format!("rem.u32 %tmp, {a}, 3;\nbt{l}: .branchtargets C{l}a, C{l}b, C{l}c;\nbrx.idx %tmp, bt{l};\nC{l}a:\n"));
                self.stmt(depth + 1, label, out);
                out.push_str(&format!("bra E{l};\nC{l}b:\n"));
                self.stmt(depth + 1, label, out);
                out.push_str(&format!("bra E{l};\nC{l}c:\n"));
                self.stmt(depth + 1, label, out);
                out.push_str(&format!("E{l}:\n"));
            }
        }
    }
    fn program(&mut self) -> String {
        let mut body = String::new();
        let mut label = 0;
        for i in 0..6 {
            body.push_str(&format!("mul.lo.u32 %v{i}, %t, {};\nadd.u32 %v{i}, %v{i}, {};\n", 1 + self.pick(13), self.pick(100)));
        }
        for _ in 0..3 + self.pick(6) {
            self.stmt(0, &mut label, &mut body);
        }
        body.push_str("add.u32 %a, %v0, %v1;\nxor.b32 %a, %a, %v2;\nadd.u32 %a, %a, %v3;\nxor.b32 %a, %a, %v4;\nadd.u32 %a, %a, %v5;\n");
        let funcs = ".func (.reg .u32 r) fz(.reg .u32 x)\n{\n.reg .pred %q;\nsetp.gt.u32 %q, x, 20;\n@%q mov.u32 r, 3;\n@%q ret;\nmad.lo.u32 r, x, 5, 1;\nret;\n}";
        let decl = ".reg .u32 %v<6>, %tmp, %c0, %c1, %c2, %c3, %c4, %c5;\n.reg .pred %pp;\n";
        kernel(&format!("{decl}{body}"), funcs)
    }
}

#[test]
fn fuzz_random_kernels_same_result_in_both_modes() {
    let mut g = Gen(0x9e37_79b9_7f4a_7c15);
    let mut ran = 0;
    for case in 0..150 {
        let src = g.program();
        let a = run(&src, "k", 2, 48, 96, &[], Scheduling::Stack);
        let b = run(&src, "k", 2, 48, 96, &[], Scheduling::Its);
        match (a, b) {
            (Ok(x), Ok(y)) => {
                assert_eq!(x, y, "case {case}:\n{src}");
                ran += 1;
            }
            (Err(x), Err(y)) => assert_eq!(x.kind, y.kind, "case {case}: {x} vs {y}\n{src}"),
            (x, y) => panic!("case {case}: modes disagree: {x:?} vs {y:?}\n{src}"),
        }
    }
    assert!(ran > 100, "only {ran} random kernels ran");
}

#[test]
fn fuzz_small_fuel_never_panics() {
    let mut g = Gen(12345);
    for _ in 0..60 {
        let src = g.program();
        let mut dev = Device::new();
        let m = dev.load(&src).unwrap();
        let p = dev.alloc(400).unwrap();
        for mode in MODES {
            let mut cfg = LaunchConfig::new(1, 96);
            cfg.fuel = 37;
            cfg.scheduling = mode;
            match dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(p)]) {
                Ok(_) => {}
                Err(e) => assert!(matches!(e.kind, TrapKind::FuelExhausted | TrapKind::OutOfBounds), "{e}"),
            }
        }
    }
}

/// Every corpus kernel, with zero buffers for pointer parameters and small
/// scalars, either runs or fails with a located, typed error (never a panic).
#[test]
fn corpus_kernels_run_or_fail_cleanly() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/corpus");
    let mut files = Vec::new();
    for dir in ["nvcc", "clang", "llvmlite", "seeds"] {
        if let Ok(rd) = std::fs::read_dir(format!("{root}/{dir}")) {
            for e in rd.flatten() {
                if e.path().extension().and_then(|x| x.to_str()) == Some("ptx") {
                    files.push(e.path());
                }
            }
        }
    }
    files.sort();
    let (mut ok, mut total) = (0, 0);
    for f in files {
        let Ok(src) = std::fs::read_to_string(&f) else { continue };
        let mut dev = Device::new();
        let m = match dev.load(&src) {
            Ok(m) => m,
            Err(e) => {
                assert_eq!(e.kind, TrapKind::LoadError);
                continue;
            }
        };
        for k in m.kernels() {
            let params = m.kernel_params(k).unwrap_or_default();
            let mut args = Vec::new();
            for sz in params {
                args.push(match sz {
                    8 => KernelArg::Ptr(dev.alloc(1 << 16).unwrap()),
                    4 => KernelArg::U32(16),
                    2 => KernelArg::U16(16),
                    1 => KernelArg::U8(1),
                    n => KernelArg::Bytes(vec![0; n as usize]),
                });
            }
            let mut cfg = LaunchConfig::new(2, 64);
            cfg.fuel = 2_000_000;
            total += 1;
            match dev.launch(&m, k, &cfg, &args) {
                Ok(_) => ok += 1,
                Err(e) => assert!(e.message.len() > 3, "{}: {k}: {e}", f.display()),
            }
        }
    }
    eprintln!("corpus: {ok}/{total} kernels ran to completion with zero inputs");
}

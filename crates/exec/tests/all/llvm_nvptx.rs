//! Forms that LLVM's NVPTX backend emits (found by compiling LLVM 21's
//! `llvm/test/CodeGen/NVPTX` tests and comparing ptxsim with ptxas 12.9),
//! run on the engine with the values the PTX ISA manual gives them:
//!
//! - the fourth element of the `.v4 .u32` special registers (`%tid.w`,
//!   `%ntid.w`, `%ctaid.w`, `%nctaid.w`) is unused and reads zero (PTX ISA
//!   10, `%tid`: "the fourth element is unused and always returns zero");
//! - a call of a function declared by `.alias b, a;` runs `a`'s body (PTX
//!   ISA 11.6.1), in both engines' modes;
//! - the 256-bit vector loads and stores of sm_100 (`.v8.b32`, `.v8.f32`,
//!   `.v4.b64`) move their elements in order and need the whole vector's
//!   alignment;
//! - the mask operator of initialisers (`0xFF00(p)`, PTX 7.1), which LLVM
//!   uses to lay a pointer into a packed `.u8` aggregate, gives the byte
//!   of the address it selects: the bytes read back are the address the
//!   kernel takes of the same variable;
//! - `add`, `sub`, `mul`, `fma` on `.f32x2` (sm_100) compute each `.f32`
//!   half (the first in the low bits) as the `.f32` instruction with the
//!   same rounding; the expected values here come from Rust's `f32`
//!   arithmetic (round to nearest) and from exact `f64` sums rounded by
//!   hand (`.rz`, `.rp`).

use ptxsim_exec::{Device, KernelArg, LaunchConfig, Scheduling};

fn words(dev: &Device, p: u64, n: usize) -> Vec<u32> {
    let b = dev.read(p, 4 * n as u64).expect("read");
    b.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

const W: &str = r#".version 7.0
.target sm_50
.address_size 64
.visible .entry k(.param .u64 p)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.w;
    mov.u32 %r2, %ntid.w;
    mov.u32 %r3, %ctaid.w;
    mov.u32 %r4, %nctaid.w;
    mov.u32 %r5, %tid.x;
    add.u32 %r1, %r1, %r2;
    add.u32 %r1, %r1, %r3;
    add.u32 %r1, %r1, %r4;
    add.u32 %r1, %r1, %r5;
    mul.wide.u32 %rd2, %r5, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r1;
    ret;
}"#;

#[test]
fn fourth_elements_of_special_registers_read_zero() {
    let mut dev = Device::new();
    let m = dev.load(W).expect("load");
    let out = dev.alloc(4 * 64).expect("alloc");
    let mut cfg = LaunchConfig::new(3, 64);
    cfg.threads = Some(1);
    dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(out)]).expect("launch");
    // tid.w + ntid.w + ctaid.w + nctaid.w + tid.x = tid.x.
    assert_eq!(words(&dev, out, 64), (0..64).collect::<Vec<u32>>());
}

const ALIAS: &str = r#".version 6.4
.target sm_50
.address_size 64
.visible .func (.param .b32 func_retval0) twice(.param .b32 x);
.visible .func (.param .b32 func_retval0) double_it(.param .b32 x)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [x];
    shl.b32 %r2, %r1, 1;
    st.param.b32 [func_retval0], %r2;
    ret;
}
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    add.u32 %r1, %r1, 5;
    {
    .param .b32 a0;
    st.param.b32 [a0], %r1;
    .param .b32 retval0;
    call.uni (retval0), twice, (a0);
    ld.param.b32 %r2, [retval0];
    }
    mov.u32 %r3, %tid.x;
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
.alias twice, double_it;"#;

#[test]
fn a_call_through_an_alias_runs_the_aliasee() {
    for scheduling in [Scheduling::Stack, Scheduling::Its] {
        let mut dev = Device::new();
        let m = dev.load(ALIAS).expect("load");
        let out = dev.alloc(4 * 32).expect("alloc");
        let mut cfg = LaunchConfig::new(1, 32);
        cfg.scheduling = scheduling;
        dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(out)]).expect("launch");
        assert_eq!(words(&dev, out, 32), (0..32).map(|t| 2 * (t + 5)).collect::<Vec<u32>>(), "{scheduling:?}");
    }
}

const V8: &str = r#".version 8.8
.target sm_100
.address_size 64
.visible .entry k(.param .u64 p, .param .u64 q)
{
    .reg .b32 %r<9>;
    .reg .b64 %rd<9>;
    ld.param.u64 %rd1, [p];
    ld.param.u64 %rd2, [q];
    ld.global.v8.b32 {%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r8}, [%rd1];
    st.global.v8.b32 [%rd2], {%r8,%r7,%r6,%r5,%r4,%r3,%r2,%r1};
    ld.global.nc.v4.b64 {%rd3,%rd4,%rd5,%rd6}, [%rd1+32];
    st.global.v4.b64 [%rd2+32], {%rd6,%rd5,%rd4,%rd3};
    ld.global.v8.f32 {%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r8}, [%rd1+64];
    st.global.v8.f32 [%rd2+64], {%r1,%r1,%r2,%r2,%r3,%r3,%r4,%r4};
    ret;
}"#;

#[test]
fn vectors_of_256_bits_move_their_elements_in_order() {
    let mut dev = Device::new();
    let m = dev.load(V8).expect("load");
    let p = dev.alloc(4 * 24).expect("alloc");
    let q = dev.alloc(4 * 24).expect("alloc");
    let iota: Vec<u8> = (0..24u32).flat_map(|x| x.to_le_bytes()).collect();
    dev.write(p, &iota).expect("write");
    dev.launch(&m, "k", &LaunchConfig::new(1, 1), &[KernelArg::Ptr(p), KernelArg::Ptr(q)]).expect("launch");
    let want: Vec<u32> = vec![7, 6, 5, 4, 3, 2, 1, 0, 14, 15, 12, 13, 10, 11, 8, 9, 16, 16, 17, 17, 18, 18, 19, 19];
    assert_eq!(words(&dev, q, 24), want);
    // 16 bytes past a 32-byte boundary: misaligned for a 256-bit vector.
    let bad = V8.replace("[%rd1+32]", "[%rd1+16]");
    let m = dev.load(&bad).expect("load");
    let e = dev.launch(&m, "k", &LaunchConfig::new(1, 1), &[KernelArg::Ptr(p), KernelArg::Ptr(q)]).expect_err("misaligned");
    assert_eq!(e.kind, ptxsim_exec::TrapKind::Misaligned, "{e:?}");
}

const F32X2: &str = r#".version 8.6
.target sm_100
.address_size 64
.visible .entry k(.param .u64 pin, .param .u64 pout)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<20>;
    ld.param.u64 %rd1, [pin];
    ld.param.u64 %rd2, [pout];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 24;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.b64 %rd5, [%rd4];
    ld.global.b64 %rd6, [%rd4+8];
    ld.global.b64 %rd7, [%rd4+16];
    mul.wide.u32 %rd3, %r1, 64;
    add.s64 %rd8, %rd2, %rd3;
    add.rn.f32x2 %rd10, %rd5, %rd6;
    sub.rn.f32x2 %rd11, %rd5, %rd6;
    mul.rn.f32x2 %rd12, %rd5, %rd6;
    fma.rn.f32x2 %rd13, %rd5, %rd6, %rd7;
    add.rz.f32x2 %rd14, %rd5, %rd6;
    mul.rp.f32x2 %rd15, %rd5, %rd6;
    add.f32x2 %rd16, %rd5, %rd6;
    st.global.v2.b64 [%rd8], {%rd10, %rd11};
    st.global.v2.b64 [%rd8+16], {%rd12, %rd13};
    st.global.v2.b64 [%rd8+32], {%rd14, %rd15};
    st.global.b64 [%rd8+48], %rd16;
    ret;
}"#;

/// `x` (exact in `f64`) rounded to `f32` toward zero (`up`: toward +inf).
fn round_dir(x: f64, up: bool) -> f32 {
    let n = x as f32; // nearest
    let nd = n as f64;
    if nd == x {
        return n;
    }
    let toward_zero = !up;
    let step = |f: f32, dir_up: bool| if dir_up { f32::from_bits(if f >= 0.0 { f.to_bits() + 1 } else { f.to_bits() - 1 }) } else { f32::from_bits(if f > 0.0 { f.to_bits() - 1 } else { f.to_bits() + 1 }) };
    if toward_zero {
        if nd.abs() > x.abs() { step(n, n < 0.0) } else { n }
    } else if nd < x {
        step(n, true)
    } else {
        n
    }
}

#[test]
fn f32x2_halves_are_the_f32_instruction() {
    let pack = |lo: f32, hi: f32| lo.to_bits() as u64 | (hi.to_bits() as u64) << 32;
    let unpack = |x: u64| (f32::from_bits(x as u32), f32::from_bits((x >> 32) as u32));
    // (a, b, c) per thread, each a pair: rounding cases (1 + 2^-30 is not
    // an f32), signs, and products that need rounding.
    let tiny = (2.0f64).powi(-30) as f32;
    let cases: Vec<[(f32, f32); 3]> = vec![
        [(1.5, -2.25), (0.25, 8.0), (3.0, -1.0)],
        [(1.0, -1.0), (tiny, -tiny), (0.5, 0.5)],
        [(1.0 / 3.0, 16777215.0), (3.0, 1.000_000_1), (-1.0, 7.0)],
        [(-0.0, 1e-40), (0.0, 1e-40), (0.0, 0.0)],
    ];
    let n = cases.len();
    let mut dev = Device::new();
    let m = dev.load(F32X2).expect("load");
    let input: Vec<u8> = cases.iter().flat_map(|c| c.iter().flat_map(|&(lo, hi)| pack(lo, hi).to_le_bytes())).collect();
    let pin = dev.alloc(input.len() as u64).expect("alloc");
    dev.write(pin, &input).expect("write");
    let pout = dev.alloc(64 * n as u64).expect("alloc");
    dev.launch(&m, "k", &LaunchConfig::new(1, n as u32), &[KernelArg::Ptr(pin), KernelArg::Ptr(pout)]).expect("launch");
    let out = dev.read(pout, 64 * n as u64).expect("read");
    let q = |t: usize, k: usize| unpack(u64::from_le_bytes(out[64 * t + 8 * k..64 * t + 8 * k + 8].try_into().expect("8 bytes")));
    for (t, c) in cases.iter().enumerate() {
        let [a, b, cc] = *c;
        let each = |f: &dyn Fn(f32, f32, f32) -> f32| (f(a.0, b.0, cc.0), f(a.1, b.1, cc.1));
        let same = |got: (f32, f32), want: (f32, f32), what: &str| {
            assert_eq!((got.0.to_bits(), got.1.to_bits()), (want.0.to_bits(), want.1.to_bits()), "thread {t} {what}: {got:?} vs {want:?}");
        };
        same(q(t, 0), each(&|x, y, _| x + y), "add.rn");
        same(q(t, 1), each(&|x, y, _| x - y), "sub.rn");
        same(q(t, 2), each(&|x, y, _| x * y), "mul.rn");
        same(q(t, 3), each(&|x, y, z| x.mul_add(y, z)), "fma.rn");
        same(q(t, 4), each(&|x, y, _| round_dir(x as f64 + y as f64, false)), "add.rz");
        same(q(t, 5), each(&|x, y, _| round_dir(x as f64 * y as f64, true)), "mul.rp");
        same(q(t, 6), each(&|x, y, _| x + y), "add (no rounding modifier: .rn)");
    }
}

const MASK: &str = r#".version 7.1
.target sm_50
.address_size 64
.visible .global .align 8 .u64 p;
.visible .global .align 1 .u8 s1[10] = {12, 0xFF(p), 0xFF00(p), 0xFF0000(p), 0xFF000000(p), 0xFF00000000(p), 0xFF0000000000(p), 0xFF000000000000(p), 0xFF00000000000000(p), 0xFF(generic(p)+3)};
.visible .entry k(.param .u64 out)
{
    .reg .pred %p1;
    .reg .b16 %h<2>;
    .reg .b32 %r<3>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    mov.u64 %rd2, p;
    st.global.u64 [%rd1], %rd2;
    mov.u64 %rd3, s1;
    mov.u32 %r1, 0;
L:
    cvt.u64.u32 %rd4, %r1;
    add.s64 %rd5, %rd3, %rd4;
    ld.global.u8 %h1, [%rd5];
    add.s64 %rd6, %rd1, %rd4;
    st.global.u8 [%rd6+8], %h1;
    add.u32 %r1, %r1, 1;
    setp.lt.u32 %p1, %r1, 10;
    @%p1 bra L;
    ret;
}"#;

#[test]
fn the_mask_operator_lays_out_an_address_byte_by_byte() {
    let mut dev = Device::new();
    let m = dev.load(MASK).expect("load");
    let out = dev.alloc(24).expect("alloc");
    dev.launch(&m, "k", &LaunchConfig::new(1, 1), &[KernelArg::Ptr(out)]).expect("launch");
    let b = dev.read(out, 24).expect("read");
    let addr = u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
    let mut want = vec![12u8];
    want.extend_from_slice(&addr.to_le_bytes());
    want.push((addr.wrapping_add(3) & 0xff) as u8);
    assert_eq!(&b[8..18], &want[..], "address {addr:#x}");
    // A mask in an initialiser of wider elements is refused by name.
    let wide = ".version 7.1\n.target sm_50\n.address_size 64\n.visible .global .align 4 .u32 p;\n.visible .global .align 4 .u32 s1[2] = {0xFF00(p), 5};\n.visible .entry k() { ret; }\n";
    let e = dev.load(wide).expect_err("not modelled");
    assert!(e.message.contains("mask operator"), "{e:?}");
}

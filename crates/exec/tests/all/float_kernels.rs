//! The float lane kernels as the engine runs them: a destination that is
//! also a source (`fma d, d, b, d`, `add d, d, d`), immediate operands in
//! either position, guarded instructions and divergent lanes (each kernel
//! writes only the lanes of its mask, the others keep their values), and a
//! partial last warp. Expected values are computed here in Rust, lane by
//! lane (`f32::mul_add` for the fused multiply-add), independently of the
//! engine.
#![allow(clippy::unwrap_used)]

use ptxsim_exec::{Device, KernelArg, LaunchConfig};

const PTX: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry k(.param .u64 inp, .param .u64 outp)
{
    .reg .pred %p<3>;
    .reg .f32 %f<6>;
    .reg .b32 %r<3>;
    .reg .b64 %rd<7>;
    ld.param.u64 %rd1, [inp];
    ld.param.u64 %rd2, [outp];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 12;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.f32 %f1, [%rd4];
    ld.global.f32 %f2, [%rd4+4];
    ld.global.f32 %f3, [%rd4+8];
    mov.f32 %f4, %f1;
    and.b32 %r2, %r1, 3;
    setp.eq.u32 %p1, %r2, 1;
    @%p1 bra $L_one;
    fma.rn.f32 %f1, %f1, %f2, %f1;
    add.f32 %f2, %f2, %f2;
    mul.f32 %f3, %f3, 0f40400000;
    bra $L_join;
$L_one:
    sub.f32 %f1, 0f3F800000, %f1;
    fma.rn.f32 %f2, %f3, 0fC0000000, %f2;
    neg.f32 %f3, %f3;
$L_join:
    setp.lt.f32 %p2, %f1, %f2;
    @%p2 add.f32 %f4, %f4, %f3;
    max.f32 %f5, %f1, %f4;
    mul.wide.u32 %rd5, %r1, 20;
    add.s64 %rd6, %rd2, %rd5;
    st.global.f32 [%rd6], %f1;
    st.global.f32 [%rd6+4], %f2;
    st.global.f32 [%rd6+8], %f3;
    st.global.f32 [%rd6+12], %f4;
    st.global.f32 [%rd6+16], %f5;
    ret;
}
"#;

/// What thread `t` stores for inputs `a, b, c` (finite, so no NaN rules
/// are involved).
fn expected(t: usize, a: f32, b: f32, c: f32) -> [f32; 5] {
    let (f1, f2, f3) = if t % 4 != 1 { (a.mul_add(b, a), b + b, c * 3.0) } else { (1.0 - a, c.mul_add(-2.0, b), -c) };
    let f4 = if f1 < f2 { a + f3 } else { a };
    [f1, f2, f3, f4, f1.max(f4)]
}

#[test]
fn aliased_immediate_and_masked_operands() {
    // 80 threads: two full warps and a partial third one.
    let n = 80usize;
    let mut s = 0x1234_5678_9abc_def0u64;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        ((s >> 40) as f32 / (1u64 << 24) as f32) * 8.0 - 4.0
    };
    let mut input: Vec<[f32; 3]> = (0..n).map(|_| [next(), next(), next()]).collect();
    // Operands where the fused and the unfused a*b + a differ, and the
    // comparison ties.
    input[0] = [1.0 + f32::EPSILON, 1.0 - f32::EPSILON, 0.5];
    input[2] = [3.0, 0.0, 1.0];
    let mut dev = Device::new();
    let module = dev.load(PTX).unwrap();
    let bytes: Vec<u8> = input.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
    let pin = dev.alloc(bytes.len() as u64).unwrap();
    dev.write(pin, &bytes).unwrap();
    let pout = dev.alloc((n * 20) as u64).unwrap();
    dev.launch(&module, "k", &LaunchConfig::new(1, n as u32), &[KernelArg::Ptr(pin), KernelArg::Ptr(pout)]).unwrap();
    let out = dev.read(pout, (n * 20) as u64).unwrap();
    for (t, [a, b, c]) in input.iter().enumerate() {
        let want = expected(t, *a, *b, *c);
        for (i, w) in want.iter().enumerate() {
            let o = t * 20 + i * 4;
            let got = u32::from_le_bytes([out[o], out[o + 1], out[o + 2], out[o + 3]]);
            assert_eq!(got, w.to_bits(), "thread {t} value {i}: got {}, want {w} (inputs {a}, {b}, {c})", f32::from_bits(got));
        }
    }
}

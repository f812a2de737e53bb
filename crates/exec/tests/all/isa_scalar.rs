//! The scalar instructions beyond the basic integer and float ALU, run
//! through the engine (kernels in `tests/isa/`) and compared with values
//! computed here from the PTX ISA manual's definitions, independently of
//! the engine: Rust's native 128-bit integers for the carry chain.
//!
//! Inputs mix edge cases (all-ones limbs that carry through every word,
//! zero, sign boundaries) with pseudo-random values.
#![allow(clippy::unwrap_used)]

use ptxsim_exec::{Device, KernelArg, LaunchConfig, Scheduling};
use std::path::PathBuf;

fn isa_text(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/isa").join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
}

/// splitmix64
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Launches `kernel` of `tests/isa/<file>` on `threads` threads (one CTA
/// per 64) with a u32 input buffer and a u32 output buffer of `out_words`
/// words (filled with 0xdeadbeef); returns the output.
fn run_u32(file: &str, kernel: &str, threads: u32, input: &[u32], out_words: usize) -> Vec<u32> {
    let mut dev = Device::new();
    let module = dev.load_named(file, &isa_text(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    let bytes = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let pin = dev.alloc((input.len() * 4).max(4) as u64).unwrap();
    dev.write(pin, &bytes(input)).unwrap();
    let pout = dev.alloc((out_words * 4) as u64).unwrap();
    dev.write(pout, &bytes(&vec![0xdead_beef; out_words])).unwrap();
    let block = threads.min(64);
    let cfg = LaunchConfig::new(threads.div_ceil(block), block);
    dev.launch(&module, kernel, &cfg, &[KernelArg::Ptr(pin), KernelArg::Ptr(pout)]).unwrap_or_else(|e| panic!("{file} {kernel}: {e}"));
    dev.read(pout, (out_words * 4) as u64).unwrap().chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn limbs(v: u128) -> [u32; 4] {
    [v as u32, (v >> 32) as u32, (v >> 64) as u32, (v >> 96) as u32]
}

fn words64(v: u64) -> [u32; 2] {
    [v as u32, (v >> 32) as u32]
}

/// Compares `got` with `want` word by word, skipping `None`s; reports the thread and word.
fn compare(what: &str, stride: usize, got: &[u32], want: &[Option<u32>]) {
    let mut bad = Vec::new();
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if let Some(w) = w {
            if g != w {
                bad.push(format!("thread {} word {}: got {g:#010x}, want {w:#010x}", i / stride, i % stride));
            }
        }
    }
    assert!(bad.is_empty(), "{what}: {} mismatches:\n{}", bad.len(), bad.iter().take(20).cloned().collect::<Vec<_>>().join("\n"));
}

// ---------------------------------------------------------------------------
// The carry chain (PTX ISA 9.7.2).

fn carry_inputs(n: usize) -> Vec<(u128, u128)> {
    let m = u128::MAX;
    let mut v = vec![
        (m, 1),
        (1, m),
        (m, m),
        (0, 0),
        (0, 1),
        (1, 0),
        (0xffff_ffff, 1),
        (0xffff_ffff_ffff_ffff, 1),
        (1 << 127, 1 << 127),
        ((1 << 127) - 1, 1),
        (0x8000_0000_8000_0000_8000_0000_8000_0000, 0x8000_0000_8000_0000_8000_0000_8000_0000),
        (0x7fff_ffff_7fff_ffff_7fff_ffff_7fff_ffff, 0xffff_ffff_ffff_ffff_ffff_ffff_ffff_ffff),
        (5, 7),
        (0xffff_ffff_0000_0000_ffff_ffff_0000_0000, 0x0000_0000_ffff_ffff_0000_0000_ffff_ffff),
        (0x1_0000_0000, 1),
        (0x0000_0001_0000_0000_0000_0000_0000_0000, 0x0000_0000_0000_0000_0000_0000_0000_0001),
    ];
    let mut r = Rng(11);
    while v.len() < n {
        let a = ((r.next() as u128) << 64) | r.next() as u128;
        let b = ((r.next() as u128) << 64) | r.next() as u128;
        v.push((a, b));
    }
    v
}

/// The 44 words `tests/isa/carry.ptx` writes for one thread (see its header).
fn carry_reference(lane: usize, x: u128, y: u128) -> Vec<Option<u32>> {
    let mut w: Vec<Option<u32>> = vec![None; 44];
    let mut put = |at: usize, vals: &[u32]| {
        for (k, v) in vals.iter().enumerate() {
            w[at + k] = Some(*v);
        }
    };
    let (xa, xb) = (limbs(x), limbs(y));
    // 32-bit chains: the 128-bit sum and difference with carry / borrow out.
    let (s, c) = x.overflowing_add(y);
    put(0, &limbs(s));
    put(4, &[c as u32]);
    let (dif, b) = x.overflowing_sub(y);
    put(5, &limbs(dif));
    put(9, &[if b { u32::MAX } else { 0 }]);
    // 64x64 -> 128 product of the low halves.
    let (xl, xh, yl, yh) = (x as u64, (x >> 64) as u64, y as u64, (y >> 64) as u64);
    put(10, &limbs(xl as u128 * yl as u128));
    // u64 limbs: same sum and difference, carry / borrow out as u64.
    put(14, &[limbs(s)[0], limbs(s)[1], limbs(s)[2], limbs(s)[3]]);
    put(18, &words64(c as u64));
    put(20, &limbs(dif));
    put(24, &words64(if b { u64::MAX } else { 0 }));
    // mad.lo.cc.u64 + madc.hi.u64
    let p = xl as u128 * yl as u128;
    let (lo, c1) = (p as u64).overflowing_add(xh);
    let hi = ((p >> 64) as u64).wrapping_add(yh).wrapping_add(c1 as u64);
    put(26, &words64(lo));
    put(28, &words64(hi));
    // signed 32-bit high halves: the carry is that of the unsigned 32-bit addition.
    let hi32 = |a: u32, b: u32| ((a as i32 as i64 * b as i32 as i64) >> 32) as u32;
    let t0 = hi32(xa[0], xb[0]) as u64 + xa[1] as u64;
    let t1 = hi32(xa[2], xb[2]) as u64 + xb[3] as u64 + (t0 >> 32);
    put(30, &[t0 as u32, t1 as u32, (t1 >> 32) as u32]);
    // signed 64-bit: mad.hi.cc.s64 then madc.lo.s64.
    let hi64 = ((xl as i64 as i128 * yl as i64 as i128) >> 64) as u64;
    let (q0, c2) = hi64.overflowing_add(xh);
    let q1 = xh.wrapping_mul(yh).wrapping_add(yl).wrapping_add(c2 as u64);
    put(34, &words64(q0));
    put(36, &words64(q1));
    // Guarded carry: only odd lanes set CF.
    let odd = (lane & 1) as u64;
    put(38, &[odd as u32]);
    let t = (xa[0] as u64 * xb[0] as u64 & 0xffff_ffff) + xa[1] as u64 + odd;
    put(39, &[t as u32, (t >> 32) as u32]);
    w
}

#[test]
fn carry_chain() {
    const N: usize = 192;
    let ins = carry_inputs(N);
    let mut input = Vec::new();
    for (x, y) in &ins {
        input.extend(limbs(*x));
        input.extend(limbs(*y));
    }
    let got = run_u32("carry.ptx", "carry", N as u32, &input, N * 44);
    let want: Vec<Option<u32>> = ins.iter().enumerate().flat_map(|(t, (x, y))| carry_reference(t % 32, *x, *y)).collect();
    compare("carry chain", 44, &got, &want);
}

#[test]
fn carry_semantics_edge_cases() {
    use ptxsim_sem::alu::ext::{carry, CarryKind::*};
    use ptxsim_sem::alu::ITy;
    let (u32t, s32, u64t) = (ITy::U32, ITy { bits: 32, signed: true }, ITy::U64);
    // add: carry out of the unsigned sum, the same for signed types.
    assert_eq!(carry(Add, u32t, 0xffff_ffff, 0, 0, true), (0, true));
    assert_eq!(carry(Add, s32, 0x7fff_ffff, 1, 0, false), (0x8000_0000, false));
    assert_eq!(carry(Add, s32, 0xffff_ffff, 1, 0, false), (0, true));
    assert_eq!(carry(Add, u64t, u64::MAX, u64::MAX, 0, true), (u64::MAX, true));
    // sub: d = a - (b + borrow) with borrow = 1 - CF in, CF out = 1 - borrow
    // (the carry of a + !b + CF, as the hardware adds).
    assert_eq!(carry(Sub, u32t, 0, 0, 0, false), (0xffff_ffff, false));
    assert_eq!(carry(Sub, u32t, 0, 0, 0, true), (0, true));
    assert_eq!(carry(Sub, u32t, 5, 5, 0, true), (0, true));
    assert_eq!(carry(Sub, u32t, 5, 0xffff_ffff, 0, false), (5, false));
    assert_eq!(carry(Sub, u64t, 1, u64::MAX, 0, false), (1, false));
    assert_eq!(carry(Sub, u64t, u64::MAX, u64::MAX, 0, true), (0, true));
    // mad.hi on signed types takes the high half of the signed product.
    assert_eq!(carry(MadHi, s32, 0xffff_ffff, 0xffff_ffff, 0, false), (0, false));
    assert_eq!(carry(MadHi, s32, 0xffff_ffff, 1, 1, false), (0, true));
    assert_eq!(carry(MadHi, ITy { bits: 64, signed: true }, u64::MAX, 2, 0, false), (u64::MAX, false));
    // (2^64-1)^2 = 2^128 - 2^65 + 1: high half 2^64 - 2; + 1 + CF = 2^64.
    assert_eq!(carry(MadHi, u64t, u64::MAX, u64::MAX, 1, true), (0, true));
    // 0x10001 * 0xffff = 0xffff_ffff; + 0xffff_ffff + 1 = 0x1_ffff_ffff.
    assert_eq!(carry(MadLo, u32t, 0x1_0001, 0xffff, 0xffff_ffff, true), (0xffff_ffff, true));
}

// ---------------------------------------------------------------------------
// sad, dp4a, dp2a, bmsk, szext, fns, cvt.pack, testp (PTX ISA 9.7.1, 9.7.3, 9.7.9).

fn intops_inputs(n: usize) -> Vec<[u32; 3]> {
    let f32s = [0u32, 0x8000_0000, 1, 0x807f_ffff, 0x0080_0000, 0x3f80_0000, 0x7f7f_ffff, 0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 0xffc0_0001, 0x7f80_0001];
    // (a, b) as f64 bits b:a: zero, -0, smallest subnormal, largest subnormal, smallest normal, 1.0, inf, -inf, qNaN, sNaN
    let f64s: [(u32, u32); 10] = [(0, 0), (0, 0x8000_0000), (1, 0), (0xffff_ffff, 0x000f_ffff), (0, 0x0010_0000), (0, 0x3ff0_0000), (0, 0x7ff0_0000), (0, 0xfff0_0000), (0, 0x7ff8_0000), (1, 0x7ff0_0000)];
    let mut v = Vec::new();
    for (k, a) in f32s.iter().enumerate() {
        v.push([*a, k as u32 * 3, 0xffff_ff00 | k as u32]);
    }
    for (k, (a, b)) in f64s.iter().enumerate() {
        v.push([*a, *b, 40 + k as u32]);
    }
    let edges = [0u32, 1, 2, 15, 16, 31, 32, 33, 63, 64, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fff_ffff, 0x8000_0000, 0xffff_fffe, 0xffff_ffff, 0x8080_8080, 0x7f7f_7f7f, 0x0102_0304, 0xfffe_0002];
    for (k, a) in edges.iter().enumerate() {
        for b in [edges[(k * 7 + 3) % edges.len()], edges[(k * 5 + 11) % edges.len()]] {
            v.push([*a, b, edges[(k * 3 + 1) % edges.len()]]);
        }
    }
    let mut r = Rng(5);
    while v.len() < n {
        let x = r.next();
        let y = r.next();
        v.push([x as u32, (x >> 32) as u32, y as u32]);
    }
    v.truncate(n);
    v
}

/// The 52 words `tests/isa/intops.ptx` writes for one thread (see its header),
/// computed from the manual's definitions with native integers and floats.
fn intops_reference([a, b, c]: [u32; 3]) -> Vec<Option<u32>> {
    let mut w: Vec<Option<u32>> = vec![None; 52];
    let mut put = |at: usize, vals: &[u32]| {
        for (k, v) in vals.iter().enumerate() {
            w[at + k] = Some(*v);
        }
    };
    // sad: c + |a - b|
    put(0, &[a.abs_diff(b).wrapping_add(c), (a as i32).abs_diff(b as i32).wrapping_add(c)]);
    let (ha, hb, hc) = (a as u16, b as u16, c as u16);
    put(2, &[ha.abs_diff(hb).wrapping_add(hc) as u32, (ha as i16).abs_diff(hb as i16).wrapping_add(hc) as u32]);
    let x = (b as u64) << 32 | a as u64;
    let y = (a as u64) << 32 | c as u64;
    let z = (c as u64) << 32 | b as u64;
    put(4, &words64((x as i64).abs_diff(y as i64).wrapping_add(z)));
    put(6, &words64(x.abs_diff(y).wrapping_add(z)));
    // dp4a / dp2a: byte and half-word products, extended per type.
    let byte = |v: u32, i: u32, s: bool| if s { (v >> (8 * i)) as u8 as i8 as i64 } else { (v >> (8 * i)) as u8 as i64 };
    let half = |v: u32, i: u32, s: bool| if s { (v >> (16 * i)) as u16 as i16 as i64 } else { (v >> (16 * i)) as u16 as i64 };
    let combos = [(false, false), (false, true), (true, false), (true, true)];
    for (k, (sa, sb)) in combos.iter().enumerate() {
        let d4: i64 = (0..4).map(|i| byte(a, i, *sa) * byte(b, i, *sb)).sum::<i64>() + c as i64;
        put(8 + k, &[d4 as u32]);
        for (hi, at) in [(false, 12), (true, 16)] {
            let sel = if hi { 2 } else { 0 };
            let d2: i64 = (0..2).map(|i| half(a, i, *sa) * byte(b, sel + i, *sb)).sum::<i64>() + c as i64;
            put(at + k, &[d2 as u32]);
        }
    }
    // bmsk: bits [pos, pos + width) below 32; .wrap takes both modulo 32,
    // .clamp gives no bits for pos >= 32 and lets a width >= 32 reach bit 31.
    let bmsk = |clamp: bool, pos: u32, width: u32| -> u32 {
        let (pos, width) = if clamp { (pos as u64, width as u64) } else { ((pos % 32) as u64, (width % 32) as u64) };
        (0..32u64).filter(|i| *i >= pos && *i < pos + width).fold(0u32, |m, i| m | 1 << i)
    };
    put(20, &[bmsk(true, a & 63, b & 63), bmsk(false, a & 63, b & 63), bmsk(true, a, b), bmsk(false, a, b)]);
    // szext: the low n bits extended; n = 0 gives 0, n >= 32 (.clamp) gives a.
    let szext = |clamp: bool, signed: bool, v: u32, n: u32| -> u32 {
        let n = if clamp { n.min(32) } else { n % 32 };
        match n {
            0 => 0,
            32 => v,
            n if signed => (((v << (32 - n)) as i32) >> (32 - n)) as u32,
            n => v & ((1u32 << n) - 1),
        }
    };
    let c6 = c & 63;
    put(24, &[szext(true, false, a, c6), szext(false, false, a, c6), szext(true, true, a, c6), szext(false, true, a, c6)]);
    // fns: the |offset|-th set bit from base upwards (offset > 0) or downwards.
    let (base, off) = ((b & 31) as i64, c6 as i64 - 32);
    let set = |p: i64| (0..32).contains(&p) && a >> p & 1 == 1;
    let fns = if off == 0 {
        if set(base) { base as u32 } else { u32::MAX }
    } else {
        let step = off.signum();
        let positions: Vec<i64> = (0..64).map(|k| base + step * k).filter(|p| set(*p)).collect();
        positions.get(off.unsigned_abs() as usize - 1).map(|p| *p as u32).unwrap_or(u32::MAX)
    };
    put(28, &[fns]);
    // cvt.pack.sat: clamp a and b to the type; b low, a above it, c's low bits above both.
    let pack = |bits: u32, signed: bool, c: u32| -> u32 {
        let (lo, hi) = if signed { (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1) } else { (0, (1i64 << bits) - 1) };
        let m = (1u64 << bits) - 1;
        let s = |v: u32| ((v as i32 as i64).clamp(lo, hi) as u64 & m) as u64;
        ((s(b) | s(a) << bits | (c as u64) << (2 * bits)) & 0xffff_ffff) as u32
    };
    put(29, &[pack(16, false, 0), pack(16, true, 0), pack(8, false, c), pack(8, true, c), pack(4, false, c), pack(4, true, c), pack(2, false, c), pack(2, true, c)]);
    // testp: +-0 count as normal numbers.
    let f = f32::from_bits(a);
    let t = |v: bool| v as u32;
    put(37, &[t(f.is_finite()), t(f.is_infinite()), t(!f.is_nan()), t(f.is_nan()), t(f.is_normal() || f == 0.0), t(f.is_subnormal())]);
    let g = f64::from_bits(x);
    put(43, &[t(g.is_finite()), t(g.is_infinite()), t(!g.is_nan()), t(g.is_nan()), t(g.is_normal() || g == 0.0), t(g.is_subnormal())]);
    w
}

#[test]
fn integer_helpers_and_testp() {
    const N: usize = 192;
    let ins = intops_inputs(N);
    let input: Vec<u32> = ins.iter().flatten().copied().collect();
    let got = run_u32("intops.ptx", "intops", N as u32, &input, N * 52);
    let want: Vec<Option<u32>> = ins.iter().flat_map(|v| intops_reference(*v)).collect();
    compare("sad/dp4a/dp2a/bmsk/szext/fns/cvt.pack/testp", 52, &got, &want);
}

/// The manual's own examples.
#[test]
fn manual_examples() {
    use ptxsim_sem::alu::ext::{bmsk, fns, szext};
    assert_eq!(bmsk(false, 1, 2), 0x6);
    assert_eq!(szext(false, false, 0xffff_ffff, 0), 0);
    assert_eq!(fns(0xaaaa_aaaa, 3, 1), Some(3));
    assert_eq!(fns(0xaaaa_aaaa, 3, (-1i32) as u32 as u64), Some(3));
    assert_eq!(fns(0xaaaa_aaaa, 2, 1), Some(3));
    assert_eq!(fns(0xaaaa_aaaa, 2, (-1i32) as u32 as u64), Some(1));
}

/// `fns` with a base above 31 is undefined in the manual: a located trap.
#[test]
fn fns_base_above_31_traps() {
    let mut dev = Device::new();
    let module = dev.load_named("intops.ptx", &isa_text("intops.ptx")).unwrap();
    let buf = dev.alloc(64).unwrap();
    let cfg = LaunchConfig::new(1u32, 32u32);
    let e = dev.launch(&module, "fns_bad_base", &cfg, &[KernelArg::Ptr(buf), KernelArg::Ptr(buf)]).unwrap_err();
    assert_eq!(e.kind, ptxsim_exec::TrapKind::Trap, "{e}");
    assert!(e.message.contains("fns.b32") && e.message.contains("32"), "{e}");
    assert_eq!(e.lane, Some(3), "{e}");
}

/// Cache hints change nothing; `createpolicy` gives a policy `ld` accepts.
#[test]
fn cache_hints_are_no_ops() {
    let mut dev = Device::new();
    let module = dev.load_named("intops.ptx", &isa_text("intops.ptx")).unwrap();
    let pin = dev.alloc(128).unwrap();
    dev.write(pin, &21u32.to_le_bytes()).unwrap();
    let pout = dev.alloc(4).unwrap();
    dev.launch(&module, "hints", &LaunchConfig::new(1u32, 1u32), &[KernelArg::Ptr(pin), KernelArg::Ptr(pout)]).unwrap();
    assert_eq!(dev.read(pout, 4).unwrap(), 42u32.to_le_bytes());
    assert_eq!(dev.read(pin, 4).unwrap(), 21u32.to_le_bytes(), "discard leaves the data");
}

// ---------------------------------------------------------------------------
// match.sync, redux.sync, elect.sync (PTX ISA 9.7.13).

/// Launches `kernel` of `tests/isa/<file>` with `args` on one CTA of `block` threads.
fn launch(file: &str, kernel: &str, block: u32, args: &[KernelArg]) -> Result<(), ptxsim_exec::RunError> {
    let mut dev = Device::new();
    let module = dev.load_named(file, &isa_text(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    dev.launch(&module, kernel, &LaunchConfig::new(1u32, block), args).map(|_| ())
}

/// A device with `words` u32 of 0xdeadbeef at the returned address, and a
/// closure-free reader.
struct Buf {
    dev: Device,
    addr: u64,
    words: usize,
}

impl Buf {
    fn new(words: usize) -> Buf {
        let mut dev = Device::new();
        let addr = dev.alloc((words * 4) as u64).unwrap();
        dev.write(addr, &vec![0xefu8, 0xbe, 0xad, 0xde].repeat(words)).unwrap();
        Buf { dev, addr, words }
    }
    fn put(&mut self, data: &[u8]) -> u64 {
        let a = self.dev.alloc(data.len() as u64).unwrap();
        self.dev.write(a, data).unwrap();
        a
    }
    /// Runs the kernel under both scheduling modes; both must write the same words.
    fn run(&mut self, file: &str, kernel: &str, block: u32, args: &[KernelArg]) -> Vec<u32> {
        let module = self.dev.load_named(file, &isa_text(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let mut outs = Vec::new();
        for mode in [Scheduling::Stack, Scheduling::Its] {
            self.dev.write(self.addr, &[0xefu8, 0xbe, 0xad, 0xde].repeat(self.words)).unwrap();
            let mut cfg = LaunchConfig::new(1u32, block);
            cfg.scheduling = mode;
            self.dev.launch(&module, kernel, &cfg, args).unwrap_or_else(|e| panic!("{file} {kernel} ({mode:?}): {e}"));
            outs.push(self.dev.read(self.addr, (self.words * 4) as u64).unwrap().chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect::<Vec<u32>>());
        }
        assert_eq!(outs[0], outs[1], "{file} {kernel}: the stack and ITS schedules differ");
        outs.swap_remove(0)
    }
}

#[test]
fn match_redux_elect_full_warps() {
    let pat = [0u32, 0xffff_ffff, 0x8000_0000, 7, 0x7fff_ffff];
    let a: Vec<u32> = (0..64).map(|t| if t < 32 { pat[t % 5] } else { 0x1234_5678 }).collect();
    // Equal low words; warp 0's high words split the lanes in three groups.
    let b: Vec<u64> = (0..64u64).map(|t| if t < 32 { (t % 3) << 40 | 0x55 } else { 0xdead_0000_0000_0055 }).collect();
    let mut buf = Buf::new(64 * 16);
    let pa = buf.put(&a.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>());
    let pb = buf.put(&b.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>());
    let got = buf.run("warp.ptx", "warp_ops", 64, &[KernelArg::Ptr(pa), KernelArg::Ptr(pb), KernelArg::Ptr(buf.addr)]);
    let mut want = Vec::new();
    for t in 0..64 {
        let w = t / 32 * 32;
        let (wa, wb) = (&a[w..w + 32], &b[w..w + 32]);
        let same32 = |x: u32| (0..32).filter(|&k| wa[k] == x).fold(0u32, |m, k| m | 1 << k);
        let same64 = |x: u64| (0..32).filter(|&k| wb[k] == x).fold(0u32, |m, k| m | 1 << k);
        let all32 = wa.iter().all(|x| *x == wa[0]);
        let all64 = wb.iter().all(|x| *x == wb[0]);
        let full = |b: bool| if b { u32::MAX } else { 0 };
        let sum = wa.iter().fold(0u32, |s, x| s.wrapping_add(*x));
        let lane = t % 32;
        want.extend([
            same32(a[t]),
            same64(b[t]),
            full(all32),
            all32 as u32,
            full(all64),
            all64 as u32,
            sum,
            *wa.iter().min().unwrap(),
            *wa.iter().max().unwrap(),
            wa.iter().map(|x| *x as i32).min().unwrap() as u32,
            wa.iter().map(|x| *x as i32).max().unwrap() as u32,
            wa.iter().fold(u32::MAX, |s, x| s & x),
            wa.iter().fold(0, |s, x| s | x),
            wa.iter().fold(0, |s, x| s ^ x),
            0,
            (lane == 0) as u32,
        ]);
    }
    let want: Vec<Option<u32>> = want.into_iter().map(Some).collect();
    compare("match/redux/elect", 16, &got, &want);
}

#[test]
fn collectives_over_a_partial_membermask_and_exited_lanes() {
    let mut buf = Buf::new(32 * 4);
    let got = buf.run("warp.ptx", "partial", 32, &[KernelArg::Ptr(buf.addr)]);
    let want: Vec<Option<u32>> = (0..32u32)
        .flat_map(|l| if l < 16 { [Some(120), Some(0xf << (4 * (l / 4))), Some(0), Some((l == 0) as u32)] } else { [None; 4] })
        .collect();
    compare("membermask 0x0000ffff", 4, &got, &want);
    assert!(got[16 * 4..].iter().all(|w| *w == 0xdead_beef), "lanes outside the membermask wrote");

    let mut buf = Buf::new(32 * 4);
    let got = buf.run("warp.ptx", "exited", 32, &[KernelArg::Ptr(buf.addr)]);
    // match.all's mask over a membermask with exited lanes is left unchecked
    // (the manual does not say whether it names the exited lanes).
    let want: Vec<Option<u32>> = (0..32u32).flat_map(|l| if l < 20 { [Some(190), Some(0), Some((l == 0) as u32), None] } else { [None; 4] }).collect();
    compare("lanes 20..31 exited", 4, &got, &want);
}

#[test]
fn collectives_with_undefined_membermasks_trap() {
    let e = launch("warp.ptx", "not_member", 32, &[KernelArg::U64(0)]).unwrap_err();
    assert_eq!(e.kind, ptxsim_exec::TrapKind::NonUniform, "{e}");
    assert_eq!(e.lane, Some(16), "{e}");
    assert!(e.message.contains("not in membermask"), "{e}");
    let e = launch("warp.ptx", "absent_member", 32, &[KernelArg::U64(0)]).unwrap_err();
    assert_eq!(e.kind, ptxsim_exec::TrapKind::NonUniform, "{e}");
    assert!(e.message.contains("0xffff0000"), "{e}");
}

/// The reference of `redux.sync.{min,max}{.abs}{.NaN}.f32` over `v`, from
/// the manual's words: -0 orders below +0; `.abs` compares magnitudes;
/// without `.NaN` NaN inputs are skipped (all NaN: the canonical NaN), with
/// it any NaN input gives the canonical NaN 0x7fffffff.
fn redux_f32_ref(v: &[f32], max: bool, abs: bool, nan: bool) -> u32 {
    let v: Vec<f32> = v.iter().map(|x| if abs { x.abs() } else { *x }).collect();
    if nan && v.iter().any(|x| x.is_nan()) {
        return 0x7fff_ffff;
    }
    let less = |x: f32, y: f32| x < y || (x == y && x.is_sign_negative() && !y.is_sign_negative());
    let mut best: Option<f32> = None;
    for x in v.into_iter().filter(|x| !x.is_nan()) {
        best = Some(match best {
            None => x,
            Some(b) => {
                if (max && less(b, x)) || (!max && less(x, b)) {
                    x
                } else {
                    b
                }
            }
        });
    }
    best.map(f32::to_bits).unwrap_or(0x7fff_ffff)
}

#[test]
fn redux_f32_min_max_abs_nan() {
    let mut r = Rng(23);
    let mut input: Vec<f32> = Vec::new();
    let base = [-3.5f32, 2.0, -0.0, 0.0, 1e30, -1e-40, f32::MAX, -f32::MAX, f32::INFINITY, f32::NEG_INFINITY, 1.0, -1.0];
    // warp 0: no NaN; warp 1: NaNs of both signs among numbers; warp 2: all NaN; warp 3: +0 and -0 only.
    for k in 0..32 {
        input.push(if k < base.len() { base[k] } else { f32::from_bits(r.next() as u32 & 0xbfff_ffff) });
    }
    for k in 0..32 {
        input.push(match k % 8 {
            0 => f32::from_bits(0x7fc0_1234),
            5 => f32::from_bits(0xff80_0001),
            _ => base[k % base.len()],
        });
    }
    input.extend((0..32).map(|k| f32::from_bits(0x7f80_0001 + k as u32 * 77 | if k % 2 == 0 { 0x8000_0000 } else { 0 })));
    input.extend((0..32).map(|k| if k % 3 == 0 { -0.0f32 } else { 0.0 }));
    let mut buf = Buf::new(128 * 8);
    let pin = buf.put(&input.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>());
    let got = buf.run("redux_f32.ptx", "redux_f32", 128, &[KernelArg::Ptr(pin), KernelArg::Ptr(buf.addr)]);
    let mut want = Vec::new();
    for t in 0..128 {
        let w = &input[t / 32 * 32..t / 32 * 32 + 32];
        for (max, abs, nan) in [(false, false, false), (true, false, false), (false, true, false), (true, true, false), (false, false, true), (true, false, true), (false, true, true), (true, true, true)] {
            want.push(Some(redux_f32_ref(w, max, abs, nan)));
        }
    }
    compare("redux.sync f32", 8, &got, &want);
}

// ---------------------------------------------------------------------------
// .f16x2 / .bf16x2 arithmetic and cvt (PTX ISA 9.7.4, 9.7.9).

/// A half-precision format: significand bits (without the hidden one) and exponent bits.
#[derive(Clone, Copy)]
struct Half {
    mbits: u32,
    ebits: u32,
}
const F16: Half = Half { mbits: 10, ebits: 5 };
const BF16: Half = Half { mbits: 7, ebits: 8 };

impl Half {
    fn bias(self) -> i32 {
        (1 << (self.ebits - 1)) - 1
    }
    fn exp_all(self) -> u32 {
        (1 << self.ebits) - 1
    }
    fn is_nan(self, v: u32) -> bool {
        (v >> self.mbits) & self.exp_all() == self.exp_all() && v & ((1 << self.mbits) - 1) != 0
    }
    fn is_sub(self, v: u32) -> bool {
        (v >> self.mbits) & self.exp_all() == 0 && v & ((1 << self.mbits) - 1) != 0
    }
    /// The value of 16-bit pattern `v`, decoded field by field.
    fn value(self, v: u32) -> f64 {
        let sign = if v & 0x8000 != 0 { -1.0 } else { 1.0 };
        let e = (v >> self.mbits) & self.exp_all();
        let f = (v & ((1 << self.mbits) - 1)) as f64;
        let emin = 1 - self.bias();
        sign * if e == self.exp_all() {
            if f == 0.0 {
                f64::INFINITY
            } else {
                f64::NAN
            }
        } else if e == 0 {
            f * 2f64.powi(emin - self.mbits as i32)
        } else {
            (f + (1u32 << self.mbits) as f64) * 2f64.powi(e as i32 - self.bias() - self.mbits as i32)
        }
    }
    /// `x` rounded to nearest even into this format (NaN: 0x7fff), by
    /// integer arithmetic on the exact binary expansion of `x`.
    fn round(self, x: f64) -> u32 {
        if x.is_nan() {
            return 0x7fff;
        }
        let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
        let inf = sign | self.exp_all() << self.mbits;
        let a = x.abs();
        if a == 0.0 {
            return sign;
        }
        if a.is_infinite() {
            return inf;
        }
        let bits = a.to_bits();
        let (e64, frac) = ((bits >> 52) as i32, bits & ((1u64 << 52) - 1));
        let (m, e) = if e64 == 0 { (frac, -1074) } else { (frac | 1 << 52, e64 - 1075) };
        let ea = e + 63 - m.leading_zeros() as i32;
        let emin = 1 - self.bias();
        let mut q = ea.max(emin) - self.mbits as i32;
        let shift = e - q;
        let mut n: u128 = if shift >= 0 {
            (m as u128) << shift
        } else if -shift > 60 {
            0
        } else {
            let s = -shift as u32;
            let (t, half) = (m as u128, 1u128 << (s - 1));
            let (q0, rem) = (t >> s, t & ((1 << s) - 1));
            if rem > half || (rem == half && q0 & 1 == 1) {
                q0 + 1
            } else {
                q0
            }
        };
        if n == 0 {
            return sign;
        }
        if n >= 1 << (self.mbits + 1) {
            n >>= 1;
            q += 1;
        }
        let exp = if n < 1 << self.mbits { 0 } else { q + self.mbits as i32 + self.bias() };
        if exp >= self.exp_all() as i32 {
            return inf;
        }
        sign | (exp as u32) << self.mbits | (n as u32 & ((1 << self.mbits) - 1))
    }
    /// The correctly rounded `x + y` (a TwoSum corrects the one f64 rounding
    /// of the sum where it could move a rounding tie).
    fn round_sum(self, x: f64, y: f64) -> u32 {
        let s = x + y;
        if !s.is_finite() {
            return self.round(s);
        }
        let bb = s - x;
        let err = (x - (s - bb)) + (y - bb);
        let s2 = if err == 0.0 {
            s
        } else if s == 0.0 {
            err
        } else {
            let up = (err > 0.0) == (s > 0.0);
            f64::from_bits(if up { s.to_bits() + 1 } else { s.to_bits() - 1 })
        };
        self.round(s2)
    }
    fn flush(self, ftz: bool, v: u32) -> u32 {
        if ftz && self.is_sub(v) {
            v & 0x8000
        } else {
            v
        }
    }
}

fn halves(v: u32) -> [u32; 2] {
    [v & 0xffff, v >> 16]
}

/// The reference of one packed instruction, half by half (None: a half the
/// manual leaves unspecified, a NaN from neg/abs or min/max of +0 and -0).
fn packed(_h: Half, a: u32, b: u32, f: impl Fn(u32, u32) -> Option<u32>) -> Option<u32> {
    let (ha, hb) = (halves(a), halves(b));
    Some(f(ha[0], hb[0])? | f(ha[1], hb[1])? << 16)
}

fn half2_reference(a: u32, b: u32, c: u32) -> Vec<Option<u32>> {
    let mut w = Vec::new();
    for (h, ops) in [(F16, 0), (BF16, 1)] {
        let v = |x: u32| h.value(x);
        let bin = |op: char, ftz: bool| {
            packed(h, a, b, move |x, y| {
                let (x, y) = (h.flush(ftz, x), h.flush(ftz, y));
                let r = match op {
                    '+' => h.round_sum(v(x), v(y)),
                    '-' => h.round_sum(v(x), -v(y)),
                    _ => h.round(v(x) * v(y)),
                };
                Some(if h.is_nan(r) { 0x7fff } else { h.flush(ftz, r) })
            })
        };
        let hc = halves(c);
        let fma = |sat: bool| {
            let (ha, hb) = (halves(a), halves(b));
            let one = |k: usize| {
                let r = h.round_sum(v(ha[k]) * v(hb[k]), v(hc[k]));
                if h.is_nan(r) {
                    if sat {
                        0
                    } else {
                        0x7fff
                    }
                } else if sat && r & 0x8000 != 0 {
                    0
                } else if sat && v(r) > 1.0 {
                    h.round(1.0)
                } else {
                    r
                }
            };
            Some(one(0) | one(1) << 16)
        };
        let minmax = |max: bool| {
            packed(h, a, b, move |x, y| match (h.is_nan(x), h.is_nan(y)) {
                (true, true) => Some(0x7fff),
                (true, false) => Some(y),
                (false, true) => Some(x),
                _ if v(x) == 0.0 && v(y) == 0.0 && x != y => None,
                _ => Some(if (v(x) < v(y)) == max { y } else { x }),
            })
        };
        let un = |neg: bool| packed(h, a, 0, move |x, _| if h.is_nan(x) { None } else { Some(if neg { x ^ 0x8000 } else { x & 0x7fff }) });
        if ops == 0 {
            w.extend([bin('+', false), bin('-', false), bin('*', false), fma(false), minmax(false), minmax(true), un(true), un(false), bin('+', true), fma(true)]);
        } else {
            w.extend([bin('+', false), bin('-', false), bin('*', false), fma(false), minmax(false), minmax(true), un(true), un(false)]);
        }
    }
    // 18, 19: ex2 (checked within the manual's bound separately)
    w.extend([None, None]);
    let cvt = |h: Half, relu: bool, x: u32| {
        let f = f32::from_bits(x) as f64;
        let r = h.round(f);
        if relu && !f.is_nan() && r & 0x8000 != 0 {
            0
        } else {
            r
        }
    };
    for (h, relu) in [(F16, false), (BF16, false), (F16, true), (BF16, true)] {
        w.push(Some(cvt(h, relu, a) << 16 | cvt(h, relu, b)));
    }
    // 24, 25: scalar ex2 (checked separately); 26, 27 not written
    w.extend([None, None, Some(0xdead_beef), Some(0xdead_beef)]);
    w
}

fn half2_inputs(n: usize) -> Vec<[u32; 3]> {
    let f16s = [0x0000u32, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x3555, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0x4000, 0x3800, 0x1400];
    let bf16s = [0x0000u32, 0x8000, 0x0001, 0x807f, 0x0080, 0x3f80, 0xbf80, 0x3eab, 0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0x7f81, 0x4000, 0x3f00, 0x0d00];
    let mut v = Vec::new();
    let mut r = Rng(31);
    let pick = |r: &mut Rng, set: &[u32]| set[(r.next() % set.len() as u64) as usize];
    while v.len() < n {
        let k = v.len();
        let word = |r: &mut Rng| -> u32 {
            match k % 4 {
                0 => pick(r, &f16s) | pick(r, &f16s) << 16,
                1 => pick(r, &bf16s) | pick(r, &bf16s) << 16,
                2 => r.next() as u32,
                _ => {
                    // moderate values: exponent fields near the bias in both formats
                    let x = r.next() as u32;
                    (x & 0x83ff) | 0x3800 | ((x >> 16) & 0x83ff | 0x3800) << 16
                }
            }
        };
        v.push([word(&mut r), word(&mut r), word(&mut r)]);
    }
    v
}

#[test]
fn packed_half_arithmetic_and_cvt() {
    const N: usize = 256;
    let ins = half2_inputs(N);
    let input: Vec<u32> = ins.iter().flatten().copied().collect();
    let got = run_u32("half2.ptx", "half2", N as u32, &input, N * 28);
    let want: Vec<Option<u32>> = ins.iter().flat_map(|[a, b, c]| half2_reference(*a, *b, *c)).collect();
    compare(".f16x2/.bf16x2", 28, &got, &want);
    // ex2.approx: within the manual's relative error (f16 2^-9.9, bf16 2^-7);
    // .ftz on bf16 flushes subnormal inputs and results.
    let mut bad = Vec::new();
    for (t, [a, _, _]) in ins.iter().enumerate() {
        for (word, h, bound, ftz, nk) in [(18, F16, 2f64.powf(-9.9), false, 2), (19, BF16, 2f64.powi(-7), true, 2), (24, F16, 2f64.powf(-9.9), false, 1), (25, BF16, 2f64.powi(-7), true, 1)] {
            let g = got[t * 28 + word];
            for k in 0..nk {
                let (x, y) = (halves(*a)[k], halves(g)[k]);
                let xv = h.value(h.flush(ftz, x));
                let exact = xv.exp2();
                let yv = h.value(y);
                let ok = if xv.is_nan() {
                    h.is_nan(y)
                } else if exact.is_infinite() || h.round(exact) == h.exp_all() << h.mbits {
                    yv == f64::INFINITY || (yv - exact).abs() <= bound * exact
                } else if ftz && h.is_sub(h.round(exact)) {
                    y == 0 || (yv - exact).abs() <= bound * exact
                } else if exact < h.value(1 << h.mbits) {
                    // a subnormal result: within one subnormal step
                    (yv - exact).abs() <= h.value(1)
                } else {
                    (yv - exact).abs() <= bound * exact
                };
                if !ok {
                    bad.push(format!("thread {t} word {word} half {k}: ex2({x:#06x}) = {y:#06x} ({yv}), exact {exact}"));
                }
            }
        }
    }
    assert!(bad.is_empty(), "ex2.approx:\n{}", bad.iter().take(20).cloned().collect::<Vec<_>>().join("\n"));
}

#[test]
fn half_rounding_reference_agrees_with_known_values() {
    // The reference's own rounding, against values from the IEEE 754 binary16
    // and bfloat16 definitions.
    assert_eq!(F16.round(1.0), 0x3c00);
    assert_eq!(F16.round(65504.0), 0x7bff);
    assert_eq!(F16.round(65520.0), 0x7c00); // halfway to 2^16 rounds up to inf
    assert_eq!(F16.round(2f64.powi(-24)), 0x0001);
    assert_eq!(F16.round(2f64.powi(-25)), 0x0000); // tie to even: 0
    assert_eq!(F16.round(3.0 * 2f64.powi(-25)), 0x0002); // tie between 1 and 2: even
    assert_eq!(BF16.round(1.0), 0x3f80);
    assert_eq!(BF16.round(1.0 + 2f64.powi(-8)), 0x3f80); // tie to even
    assert_eq!(BF16.round(1.0 + 3.0 * 2f64.powi(-8)), 0x3f82);
    assert_eq!(F16.round_sum(1.0, 2f64.powi(-11)), 0x3c00);
    assert_eq!(F16.round_sum(1.0, 2f64.powi(-11) + 2f64.powi(-60)), 0x3c01);
}

/// The engine's rounding of an exact value into f16 and bf16 (every half
/// result goes through it) against the reference's, on values just above,
/// at and just below rounding ties, and random doubles.
#[test]
fn engine_half_rounding_matches_the_reference() {
    use ptxsim_sem::alu::FTy;
    let mut r = Rng(77);
    let mut bad = Vec::new();
    for k in 0..20000 {
        let x = match k % 4 {
            0 => f64::from_bits(r.next()),
            1 => f32::from_bits(r.next() as u32) as f64,
            2 => {
                // a tie of bf16 plus or minus a little
                let b = (r.next() as u32) & 0xffff_0000 | 0x8000;
                let d = [0i64, 1, -1][(r.next() % 3) as usize];
                f32::from_bits((b as i64 + d) as u32) as f64
            }
            _ => {
                let h = (r.next() as u32 & 0x7bff) as f64;
                (1.0 + h / 2048.0 + 1.0 / 4096.0) * [1.0, 1.0 + 1e-15, 1.0 - 1e-15][(r.next() % 3) as usize] * 2f64.powi((r.next() % 40) as i32 - 25)
            }
        };
        if x.is_nan() {
            continue;
        }
        for (ty, h) in [(FTy::F16, F16), (FTy::BF16, BF16)] {
            let (got, want) = (ty.from_f64(x) as u32, h.round(x));
            if got != want {
                bad.push(format!("{ty:?} {x:e} ({:#018x}): engine {got:#06x}, reference {want:#06x}", x.to_bits()));
            }
        }
    }
    assert!(bad.is_empty(), "{} differences:\n{}", bad.len(), bad.iter().take(20).cloned().collect::<Vec<_>>().join("\n"));
}

/// `setp` with the sink `_` as either destination of `p|q` (p is the
/// comparison, q its complement; `_` discards one), in a module declaring its
/// dynamic shared array `.extern` twice: the kept halves against Rust's own
/// comparisons.
#[test]
fn setp_sink_destinations() {
    let file = "setp_sink.ptx";
    let mut dev = Device::new();
    let module = dev.load_named(file, &isa_text(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    let pairs: [(u32, u32); 8] = [(0, 0), (0, 1), (1, 0), (2, 2), (3, 2), (0xffff_ffff, 1), (1, 0xffff_ffff), (0x8000_0000, 0x7fff_ffff)];
    let input: Vec<u8> = pairs.iter().flat_map(|&(a, b)| [a, b]).flat_map(|x: u32| x.to_le_bytes()).collect();
    let pin = dev.alloc(input.len() as u64).unwrap();
    dev.write(pin, &input).unwrap();
    let n = pairs.len();
    let pout = dev.alloc((n * 4) as u64).unwrap();
    dev.write(pout, &vec![0xee; n * 4]).unwrap();
    let mut cfg = LaunchConfig::new(1u32, n as u32);
    cfg.dynamic_shared_bytes = (n * 4) as u32;
    dev.launch(&module, "setp_sink", &cfg, &[KernelArg::Ptr(pin), KernelArg::Ptr(pout)]).unwrap_or_else(|e| panic!("{file}: {e}"));
    let got: Vec<u32> = dev.read(pout, (n * 4) as u64).unwrap().chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let want: Vec<u32> = pairs
        .iter()
        .map(|&(a, b)| {
            let q_hi = !(a > b);
            let p_lo = a < b;
            // With a BoolOp, p = BoolOp(t, c) and q = BoolOp(!t, c).
            let q_lt_and = !((a as i32) < (b as i32)) && a != 0;
            u32::from(q_hi) + 10 * u32::from(p_lo) + 100 * u32::from(q_lt_and)
        })
        .collect();
    assert_eq!(got, want);
}

/// `tests/isa/sink.ptx`: the sink `_` in every position ptxas 12.9 accepts
/// (atom, vector elements of ld and mov, shfl/match/elect pair halves,
/// match.all and setp and lop3 as a whole, a call's return) discards that
/// result only: memory effects and the kept results against values
/// computed here from the manual's definitions.
#[test]
fn sink_discards_only_its_result() {
    let file = "sink.ptx";
    let mut dev = Device::new();
    let module = dev.load_named(file, &isa_text(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    let n = 32usize;
    let input: Vec<u32> = (0..4 * n as u32).map(|i| i.wrapping_mul(0x9e37_79b9) ^ 0x5a5a_1234).collect();
    let bytes: Vec<u8> = input.iter().flat_map(|x| x.to_le_bytes()).collect();
    let pin = dev.alloc(bytes.len() as u64).unwrap();
    dev.write(pin, &bytes).unwrap();
    let pout = dev.alloc((n * 64) as u64).unwrap();
    dev.write(pout, &vec![0xee; n * 64]).unwrap();
    let pacc = dev.alloc(16).unwrap();
    dev.write(pacc, &[0; 16]).unwrap();
    let cfg = LaunchConfig::new(1u32, n as u32);
    dev.launch(&module, "sink", &cfg, &[KernelArg::Ptr(pin), KernelArg::Ptr(pout), KernelArg::Ptr(pacc)]).unwrap_or_else(|e| panic!("{file}: {e}"));
    let words = |p, len: usize| -> Vec<u32> { dev.read(p, (len * 4) as u64).unwrap().chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect() };
    let out = words(pout, n * 16);
    for t in 0..n {
        let x = |k: usize| input[4 * t + k];
        let want = [
            x(0),
            x(3),
            x(1),
            x(2),
            x(0) & 0xffff,
            input[4 * (t ^ 1)],
            0,
            1,
            u32::from(t == 0),
            9,
            x(0).wrapping_add(1),
        ];
        assert_eq!(&out[16 * t..16 * t + 11], &want, "thread {t}");
        assert!(out[16 * t + 11..16 * t + 16].iter().all(|&w| w == 0xeeee_eeee), "thread {t}: words 11..16 not written");
    }
    let acc = words(pacc, 3);
    assert_eq!(acc, [(1..=n as u32).sum::<u32>(), 7, 5]);
}

/// The manual's `min`/`max` (PTX ISA 9.7.3, 9.7.4) on one float format
/// given by its width in bits and its exponent mask, on raw bits: NaN
/// handling, -0 < +0 (integer sign-magnitude keys, no float comparison),
/// `.xorsign.abs` (magnitudes compared, the XOR of the sign bits on a
/// non-NaN result), `.ftz` flushing subnormal inputs to signed zero.
#[allow(clippy::too_many_arguments)]
fn min_max_ref(width: u32, exp: u32, max: bool, nan: bool, xs: bool, ftz: bool, a: u32, b: u32) -> u32 {
    let sign_bit = 1u32 << (width - 1);
    let mag = sign_bit - 1;
    let canon = mag; // 0x7fffffff, 0x7fff
    let flush = |x: u32| if ftz && x & exp == 0 { x & sign_bit } else { x };
    let (a, b) = (flush(a), flush(b));
    let sign = (a ^ b) & sign_bit;
    let (a, b) = if xs { (a & mag, b & mag) } else { (a, b) };
    let is_nan = |x: u32| x & mag > exp;
    if (is_nan(a) && is_nan(b)) || (nan && (is_nan(a) || is_nan(b))) {
        return canon;
    }
    let d = if is_nan(a) {
        b
    } else if is_nan(b) {
        a
    } else {
        let key = |x: u32| if x & sign_bit != 0 { -i64::from(x & mag) - 1 } else { i64::from(x) };
        if (key(a) > key(b)) == max { a } else { b }
    };
    if xs { (d & mag) | sign } else { d }
}

/// `tests/isa/minmax.ptx`: `min`/`max` with `.NaN`, `.xorsign.abs` and
/// `.ftz` on `.f32`, `.f16`, `.bf16` and the packed forms, against
/// [`min_max_ref`].
#[test]
fn min_max_nan_xorsign_abs() {
    let f32s = [0u32, 0x8000_0000, 0x3f80_0000, 0xbf80_0000, 0x4000_0000, 0xc040_0000, 0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 0xffc0_0001, 0x7f80_0001, 0x0000_0001, 0x8000_0003, 0x007f_ffff];
    let halves = [0u32, 0x8000, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x7f80, 0xff80, 0x7fc0, 0x0001, 0x8001, 0x3f80, 0xbf80];
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for &a in &f32s {
        for &b in &f32s {
            pairs.push((a, b));
        }
    }
    for &a in &halves {
        for &b in &halves {
            pairs.push((a | (b << 16), b | (a << 16)));
        }
    }
    let mut r = Rng(0x5eed_0042);
    // Pseudo-random patterns, up to a whole number of 64-thread CTAs.
    while pairs.len() < 600 || pairs.len() % 64 != 0 {
        pairs.push((r.next() as u32, r.next() as u32));
    }
    let n = pairs.len();
    let input: Vec<u32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    let got = run_u32("minmax.ptx", "minmax", n as u32, &input, n * 12);
    const F32: (u32, u32) = (32, 0x7f80_0000);
    const F16: (u32, u32) = (16, 0x7c00);
    const BF16: (u32, u32) = (16, 0x7f80);
    let half2 = |(w, e): (u32, u32), max, nan, xs, a: u32, b: u32| min_max_ref(w, e, max, nan, xs, false, a & 0xffff, b & 0xffff) | min_max_ref(w, e, max, nan, xs, false, a >> 16, b >> 16) << 16;
    let mut want = Vec::new();
    for &(a, b) in &pairs {
        let f = |max, nan, xs, ftz| Some(min_max_ref(F32.0, F32.1, max, nan, xs, ftz, a, b));
        want.extend([
            f(true, true, false, false),
            f(false, true, false, false),
            f(true, false, true, false),
            f(false, false, true, false),
            f(true, true, true, false),
            f(false, true, false, true),
            f(true, false, true, true),
            Some(half2(F16, true, true, false, a, b)),
            Some(half2(BF16, false, false, true, a, b)),
            Some(min_max_ref(F16.0, F16.1, true, true, true, false, a & 0xffff, b & 0xffff)),
            Some(min_max_ref(BF16.0, BF16.1, false, true, false, false, a & 0xffff, b & 0xffff)),
            f(true, false, false, false),
        ]);
    }
    compare("minmax", 12, &got, &want);
}

/// `tests/isa/space.ptx`: `isspacep` on the generic address of each state
/// space's window (PTX ISA 9.7.9.16: each address is in exactly the window
/// of its space; `.shared::cta`/`.shared::cluster` are windows of the
/// executing CTA's shared memory, `.param::entry` the kernel parameters),
/// and `mapa`/`getctarank` to the CTA's own rank (9.7.9.17-18: the CTA's
/// shared::cta window is in the cluster window, so the address maps to
/// itself and names the CTA's rank), without a cluster and in two-CTA
/// clusters.
#[test]
fn isspacep_mapa_getctarank() {
    use ptxsim_exec::Dim3;
    let file = "space.ptx";
    for cluster in [None, Some(Dim3::new(2, 1, 1))] {
        let mut dev = Device::new();
        let module = dev.load_named(file, &isa_text(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let (ctas, threads) = (4u32, 64u32);
        let n = (ctas * threads) as usize;
        let pout = dev.alloc((n * 48) as u64).unwrap();
        let mut cfg = LaunchConfig::new(ctas, threads);
        cfg.cluster = cluster;
        dev.launch(&module, "space", &cfg, &[KernelArg::Ptr(pout)]).unwrap_or_else(|e| panic!("{file} {cluster:?}: {e}"));
        let out: Vec<u32> = dev.read(pout, (n * 48) as u64).unwrap().chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        // Bits: .global 0, .shared 1, .shared::cta 2, .shared::cluster 3,
        // .local 4, .const 5, .param 6, .param::entry 7.
        let masks = [1u32, 2 | 4 | 8, 16, 32, 64 | 128];
        let csize = cluster.map_or(1, |c| c.x);
        for t in 0..n {
            let rank = (t as u32 / threads) % csize;
            let w = &out[12 * t..12 * t + 12];
            assert_eq!(&w[..5], &masks, "thread {t} ({cluster:?}): isspacep masks");
            assert_eq!(&w[5..], &[1, 1, rank, rank, rank, 1, 7], "thread {t} ({cluster:?}): mapa/getctarank");
        }
    }
}

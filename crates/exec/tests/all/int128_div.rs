//! nvcc's `unsigned __int128` division (`tests/isa/nvcc_int128_div.ptx`,
//! real nvcc 13.5 output): its long division tests for a borrow by
//! reading, with `addc`, the carry flag a `subc.cc` wrote, which computes
//! correct quotients only when the flag holds the carry of `a + !b + CF`
//! (1 when no borrow), as the hardware's subtraction sets it. Every
//! quotient is checked against Rust's `u128` division.
#![allow(clippy::unwrap_used)]

use ptxsim_exec::{Device, KernelArg, LaunchConfig, Scheduling};

fn pairs() -> Vec<(u128, u128)> {
    let mut s = 0x1234_5678_9abc_def0u64;
    let mut next = || {
        s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let mut v = vec![(1u128 << 64, 3), (1, 100), (1000, 7), (5u128 << 64, 1u128 << 64), (u128::MAX, 1), (u128::MAX, u128::MAX), (u128::MAX - 1, u128::MAX), (1u128 << 127, (1u128 << 64) + 1)];
    while v.len() < 64 {
        let x = (next() as u128) << 64 | next() as u128;
        // Divisors of every size, from one 32-bit limb to four.
        let bits = 1 + (next() % 128) as u32;
        let y = ((next() as u128) << 64 | next() as u128) >> (128 - bits);
        v.push((x, y.max(1)));
    }
    v
}

#[test]
fn nvcc_int128_division_is_exact() {
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/isa/nvcc_int128_div.ptx")).unwrap();
    let v = pairs();
    let input: Vec<u8> = v.iter().flat_map(|(x, y)| [(*x >> 64) as u64, *x as u64, (*y >> 64) as u64, *y as u64]).flat_map(|w| w.to_le_bytes()).collect();
    for sched in [Scheduling::Stack, Scheduling::Its] {
        let mut dev = Device::new();
        let m = dev.load(&src).unwrap();
        let a = dev.alloc(input.len() as u64).unwrap();
        dev.write(a, &input).unwrap();
        let o = dev.alloc(16 * v.len() as u64).unwrap();
        let mut cfg = LaunchConfig::new(1, v.len() as u32);
        cfg.scheduling = sched;
        dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(a), KernelArg::Ptr(o)]).unwrap();
        let out = dev.read(o, 16 * v.len() as u64).unwrap();
        for (i, (x, y)) in v.iter().enumerate() {
            let w = |k: usize| u64::from_le_bytes(out[8 * k..8 * k + 8].try_into().unwrap());
            let q = (w(2 * i + 1) as u128) << 64 | w(2 * i) as u128;
            assert_eq!(q, x / y, "thread {i} ({sched:?}): {x:#x} / {y:#x}");
        }
    }
}

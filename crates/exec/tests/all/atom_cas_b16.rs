//! `atom.cas.b16` (PTX ISA 9.7.13.4, sm_70): 64 threads race on eight
//! 16-bit slots packed in one 16-byte buffer, each compare-and-swapping its
//! slot's initial value for its own id. By the definition (`old = *a;
//! *a = old == b ? c : old`, atomically) exactly one thread per slot finds
//! the initial value and writes its id, every other gets the winner's id
//! back, and the neighbouring halves of each word keep their values.

use ptxsim_exec::{Device, KernelArg, LaunchConfig, Scheduling};

const KERNEL: &str = r#"
.version 6.3
.target sm_70
.address_size 64
.visible .entry k(.param .u64 slots, .param .u64 olds, .param .u64 sh_olds)
{
    .reg .b16 %h<4>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<10>;
    .reg .pred %p0;
    .shared .align 8 .b16 sh[8];
    ld.param.u64 %rd1, [slots];
    ld.param.u64 %rd2, [olds];
    ld.param.u64 %rd8, [sh_olds];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    cvta.to.global.u64 %rd8, %rd8;
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 7;
    setp.ne.u32 %p0, %r1, 0;
    add.u32 %r3, %r2, 0xA0A0;
    cvt.u16.u32 %h1, %r3;
    cvt.u16.u32 %h2, %r1;
    mul.wide.u32 %rd3, %r2, 2;
    add.u64 %rd4, %rd1, %rd3;
    atom.global.cas.b16 %h3, [%rd4], %h1, %h2;
    cvt.u32.u16 %r4, %h3;
    mul.wide.u32 %rd5, %r1, 4;
    add.u64 %rd6, %rd2, %rd5;
    st.global.u32 [%rd6], %r4;
    // The same race on shared memory, after thread 0 fills it.
    mov.u64 %rd7, sh;
    mov.b32 %r4, 0xA0A1A0A0;
    mov.b32 %r5, 0xA0A3A0A2;
    mov.b32 %r6, 0xA0A5A0A4;
    mov.b32 %r7, 0xA0A7A0A6;
    @!%p0 st.shared.v4.u32 [%rd7], {%r4, %r5, %r6, %r7};
    bar.sync 0;
    add.u64 %rd9, %rd7, %rd3;
    atom.shared.cas.b16 %h3, [%rd9], %h1, %h2;
    cvt.u32.u16 %r4, %h3;
    add.u64 %rd6, %rd8, %rd5;
    st.global.u32 [%rd6], %r4;
    bar.sync 0;
    @!%p0 ld.shared.v4.u32 {%r4, %r5, %r6, %r7}, [%rd7];
    @!%p0 st.global.v4.u32 [%rd8+256], {%r4, %r5, %r6, %r7};
    ret;
}
"#;

fn check(what: &str, slots: &[u16], olds: &[u32]) {
    for s in 0..8usize {
        let init = 0xA0A0 + s as u32;
        let v = slots[s] as u32;
        let racers: Vec<usize> = (0..64).filter(|t| t % 8 == s).collect();
        assert!(racers.contains(&(v as usize)), "{what}: slot {s} holds {v:#x}, not a racer's id");
        for &t in &racers {
            let want = if t as u32 == v { init } else { v };
            assert_eq!(olds[t], want, "{what}: thread {t} (slot {s}) got {:#x}, want {want:#x}", olds[t]);
        }
    }
}

#[test]
fn cas_b16_has_one_winner_per_slot_and_keeps_the_neighbours() {
    let mut dev = Device::new();
    let m = dev.load(KERNEL).expect("loads");
    for mode in [Scheduling::Stack, Scheduling::Its] {
        let slots = dev.alloc(16).expect("alloc");
        let init: Vec<u8> = (0..8u16).flat_map(|i| (0xA0A0 + i).to_le_bytes()).collect();
        dev.write(slots, &init).expect("write");
        let olds = dev.alloc(64 * 4).expect("alloc");
        let sh = dev.alloc(64 * 4 + 16).expect("alloc");
        let mut cfg = LaunchConfig::new(1u32, 64u32);
        cfg.scheduling = mode;
        dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(slots), KernelArg::Ptr(olds), KernelArg::Ptr(sh)]).expect("runs");
        let words = |b: Vec<u8>| b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect::<Vec<u32>>();
        let halves = |b: &[u8]| b.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect::<Vec<u16>>();
        let g = halves(&dev.read(slots, 16).expect("read"));
        check(&format!("global ({mode:?})"), &g, &words(dev.read(olds, 256).expect("read")));
        let shb = dev.read(sh, 64 * 4 + 16).expect("read");
        check(&format!("shared ({mode:?})"), &halves(&shb[256..]), &words(shb[..256].to_vec()));
    }
}

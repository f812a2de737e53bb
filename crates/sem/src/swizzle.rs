//! The shared-memory swizzle modes of Hopper's asynchronous data path,
//! shared by the `wgmma` matrix descriptor ([`crate::wgmma`]) and the
//! tensor map of `cp.async.bulk.tensor` ([`crate::tma`]).
//!
//! A swizzle mode of span `S` bytes (32, 64 or 128) permutes the 16-byte
//! chunks inside each `S`-byte row of an 8-row pattern: the chunk index
//! (address bits 4 and up, `log2(S / 16)` of them) is XORed with the same
//! number of address bits starting at bit 7. The pattern so repeats every
//! `8 * 16 * (S / 16)` = 256, 512 or 1024 bytes (CUDA driver API,
//! `CUtensorMapSwizzle`: "swizzle 16B chunks within S span"; PTX ISA 9.7.15.5.1,
//! the matrix descriptor's swizzle modes; CuTe's `Swizzle<B,4,3>` with
//! `B = 1, 2, 3`). With no swizzle the address is unchanged.

/// A swizzle mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Swizzle {
    None,
    B32,
    B64,
    B128,
}

impl Swizzle {
    /// How many address bits are XORed (0 to 3).
    pub fn bits(self) -> u32 {
        match self {
            Swizzle::None => 0,
            Swizzle::B32 => 1,
            Swizzle::B64 => 2,
            Swizzle::B128 => 3,
        }
    }

    /// The span in bytes inside which 16-byte chunks are permuted (16 when
    /// nothing is: a chunk stays where it is).
    pub fn span(self) -> u32 {
        16 << self.bits()
    }

    /// The bytes after which the pattern repeats (the alignment a swizzled
    /// buffer needs for the pattern to start at its first row).
    pub fn repeat(self) -> u32 {
        8 * self.span()
    }

    /// The swizzled form of shared-memory address `addr`, using address
    /// bits 7.. as the row phase.
    pub fn apply(self, addr: u64) -> u64 {
        self.apply_phase(addr, addr >> 7)
    }

    /// `addr` with its chunk index XORed with the low bits of `phase`.
    pub fn apply_phase(self, addr: u64, phase: u64) -> u64 {
        let mask = (1u64 << self.bits()) - 1;
        addr ^ ((phase & mask) << 4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_and_repeats_are_the_documented_ones() {
        assert_eq!([Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128].map(Swizzle::span), [16, 32, 64, 128]);
        assert_eq!([Swizzle::B32, Swizzle::B64, Swizzle::B128].map(Swizzle::repeat), [256, 512, 1024]);
    }

    /// The 128-byte pattern: row r (128 bytes each) has chunk c stored at
    /// chunk c ^ (r % 8); the 64-byte one, rows of 64 bytes, pairs of rows
    /// sharing a phase, chunk c ^ ((r / 2) % 4); the 32-byte one, chunk
    /// c ^ ((r / 4) % 2). Computed here from rows and chunks, not bits.
    #[test]
    fn patterns_match_row_chunk_tables() {
        for r in 0..32u64 {
            for c in 0..8u64 {
                assert_eq!(Swizzle::B128.apply(r * 128 + c * 16 + 3), r * 128 + (c ^ (r % 8)) * 16 + 3);
            }
            for c in 0..4u64 {
                assert_eq!(Swizzle::B64.apply(r * 64 + c * 16 + 5), r * 64 + (c ^ ((r / 2) % 4)) * 16 + 5);
            }
            for c in 0..2u64 {
                assert_eq!(Swizzle::B32.apply(r * 32 + c * 16 + 9), r * 32 + (c ^ ((r / 4) % 2)) * 16 + 9);
            }
            assert_eq!(Swizzle::None.apply(r * 77), r * 77);
        }
    }

    #[test]
    fn swizzle_is_an_involution_within_each_repeat() {
        for sw in [Swizzle::B32, Swizzle::B64, Swizzle::B128] {
            let mut seen = vec![false; sw.repeat() as usize];
            for a in 0..sw.repeat() as u64 {
                let s = sw.apply(a);
                assert_eq!(sw.apply(s), a);
                assert!(s < sw.repeat() as u64);
                assert!(!seen[s as usize]);
                seen[s as usize] = true;
            }
        }
    }
}

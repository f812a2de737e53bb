//! The hasher of the name tables of the later stages (the checker's
//! scopes, the analyses' register tables): keyed by names from the source,
//! looked up once or more per operand, so hashing costs more than the
//! table. It takes eight bytes per multiply, where std's SipHash takes a
//! round per eight bytes and a finalisation of four; each process seeds it
//! from std's random keys, so a module cannot be written to make its names
//! collide.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;

/// A map keyed by names, hashed with [`NameHasher`].
pub type NameMap<K, V> = HashMap<K, V, NameHash>;

/// Builds [`NameHasher`]s with this process's seed.
#[derive(Clone, Copy, Debug)]
pub struct NameHash {
    seed: u64,
}

impl Default for NameHash {
    fn default() -> NameHash {
        static SEED: OnceLock<u64> = OnceLock::new();
        let seed = *SEED.get_or_init(|| std::collections::hash_map::RandomState::new().hash_one(0x5eed_u64) | 1);
        NameHash { seed }
    }
}

impl BuildHasher for NameHash {
    type Hasher = NameHasher;
    #[inline]
    fn build_hasher(&self) -> NameHasher {
        NameHasher(self.seed)
    }
}

/// The bytes of `b` (at most eight) as a little-endian word, zero-padded:
/// what copying them into a zeroed `[u8; 8]` gives, read with at most two
/// loads instead of a call to `memcpy` for the variable length (names are
/// short: most of a name table's keys and lookups end in such a piece).
#[inline(always)]
pub fn short_word(b: &[u8]) -> u64 {
    let n = b.len();
    debug_assert!(n <= 8);
    match n {
        8..=usize::MAX => u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
        // Two four-byte loads that overlap: the bytes they share are equal.
        4..=7 => {
            let lo = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64;
            let hi = u32::from_le_bytes([b[n - 4], b[n - 3], b[n - 2], b[n - 1]]) as u64;
            lo | hi << ((n - 4) * 8)
        }
        1..=3 => b[0] as u64 | (b[n / 2] as u64) << (n / 2 * 8) | (b[n - 1] as u64) << ((n - 1) * 8),
        _ => 0,
    }
}

/// Multiply-rotate hashing of eight-byte words (the scheme of rustc's
/// FxHasher) from a random seed, with a final mix so that the low bits the
/// table indexes by depend on every input bit.
pub struct NameHasher(u64);

const K: u64 = 0xf135_7aea_2e62_a9c5;

impl NameHasher {
    #[inline(always)]
    fn add(&mut self, w: u64) {
        self.0 = (self.0 ^ w).wrapping_mul(K).rotate_left(26);
    }
}

impl Hasher for NameHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]));
        }
        let r = chunks.remainder();
        if !r.is_empty() {
            self.add(short_word(r));
        }
    }

    #[inline]
    fn write_u8(&mut self, x: u8) {
        self.add(x as u64);
    }

    #[inline]
    fn write_u32(&mut self, x: u32) {
        self.add(x as u64);
    }

    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.add(x);
    }

    #[inline]
    fn write_usize(&mut self, x: usize) {
        self.add(x as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        let h = self.0;
        (h ^ (h >> 32)).wrapping_mul(K) ^ (h >> 29)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names that differ in one byte, or only in length (`str` hashing adds
    /// a terminator byte), hash apart; a map with them finds each.
    #[test]
    fn names_hash_apart() {
        let mut m: NameMap<String, usize> = NameMap::default();
        let mut names = Vec::new();
        for p in ["%r", "%rd", "%f", "%p", "$L__BB0_", "_Z3foo", ""] {
            for i in 0..2000 {
                names.push(format!("{p}{i}"));
            }
        }
        names.push("%r1\0".into());
        for (i, n) in names.iter().enumerate() {
            assert!(m.insert(n.clone(), i).is_none(), "{n}");
        }
        for (i, n) in names.iter().enumerate() {
            assert_eq!(m.get(n), Some(&i));
        }
        let h = |s: &str| NameHash::default().hash_one(s);
        assert_ne!(h("%r1"), h("%r2"));
        assert_ne!(h(""), h("\0"));
    }

    /// `short_word` is the bytes copied into a zeroed word, at every length.
    #[test]
    fn short_word_is_the_padded_bytes() {
        let src = [0x11u8, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88];
        for n in 0..=8 {
            let mut w = [0u8; 8];
            w[..n].copy_from_slice(&src[..n]);
            assert_eq!(short_word(&src[..n]), u64::from_le_bytes(w), "{n} bytes");
        }
    }
}

//! The PTX ISA version and target table: which `.version` and `.target`
//! values exist, which `.version` introduced each `sm_` target, and the
//! minimum version and target of every gated instruction and feature.
//!
//! Everything gated lives in [`FEATURES`], one row per feature, so the gating
//! rules are read in one place; it is part of the instruction description
//! (`ptxsim_isa::gates`), whose rows name the gate of each opcode. Sources: the PTX ISA manual's "PTX ISA Notes"
//! and "Target ISA Notes" of each instruction (seeds 000, 003, 004), and the
//! release notes' target table. Where ptxas disagrees with the manual, the
//! table follows ptxas and says so (`nanosleep`: the manual says 6.3, ptxas
//! 12.9 accepts 6.2; see `crates/check/README.md`).

pub use ptxsim_isa::gates::{gate, Feature, Gate, PtxVersion, FEATURES};


/// Every PTX ISA version ptxsim knows, oldest first. The newest is the
/// version nvcc 13.5 emits; ptxas 12.9 stops at 8.8 (a deliberate
/// difference: ptxsim accepts 8.9 to 9.5, see the README).
pub const VERSIONS: &[(u32, u32)] = &[
    (1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (1, 5),
    (2, 0), (2, 1), (2, 2), (2, 3),
    (3, 0), (3, 1), (3, 2),
    (4, 0), (4, 1), (4, 2), (4, 3),
    (5, 0),
    (6, 0), (6, 1), (6, 2), (6, 3), (6, 4), (6, 5),
    (7, 0), (7, 1), (7, 2), (7, 3), (7, 4), (7, 5), (7, 6), (7, 7), (7, 8),
    (8, 0), (8, 1), (8, 2), (8, 3), (8, 4), (8, 5), (8, 6), (8, 7), (8, 8),
    (9, 0), (9, 1), (9, 2), (9, 3), (9, 4), (9, 5),
];

/// Whether ptxsim knows this `.version`.
pub fn known_version(v: PtxVersion) -> bool {
    VERSIONS.iter().any(|&(a, b)| a == v.major && b == v.minor)
}

/// The newest `.version` ptxsim knows.
pub fn newest_version() -> PtxVersion {
    let (a, b) = VERSIONS[VERSIONS.len() - 1];
    PtxVersion::new(a, b)
}

/// A compute target `sm_NN` (with an `a`/`f` suffix for architecture- or
/// family-specific targets), ordered by its number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sm {
    /// `70` for `sm_70`, `120` for `sm_120a`.
    pub number: u32,
    /// `b'a'`, `b'f'` or 0.
    pub suffix: u8,
}

impl std::fmt::Display for Sm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.suffix == 0 {
            write!(f, "sm_{}", self.number)
        } else {
            write!(f, "sm_{}{}", self.number, self.suffix as char)
        }
    }
}

/// Each `sm_` target and the PTX ISA version that introduced it
/// (the `a` and `f` variants have their own rows in [`suffix_version`]).
pub const TARGETS: &[(u32, PtxVersion)] = &[
    (10, PtxVersion::new(1, 0)),
    (11, PtxVersion::new(1, 0)),
    (12, PtxVersion::new(1, 2)),
    (13, PtxVersion::new(1, 2)),
    (20, PtxVersion::new(2, 0)),
    (21, PtxVersion::new(2, 0)),
    (30, PtxVersion::new(3, 0)),
    (32, PtxVersion::new(4, 0)),
    (35, PtxVersion::new(3, 1)),
    (37, PtxVersion::new(4, 1)),
    (50, PtxVersion::new(4, 0)),
    (52, PtxVersion::new(4, 1)),
    (53, PtxVersion::new(4, 2)),
    (60, PtxVersion::new(5, 0)),
    (61, PtxVersion::new(5, 0)),
    (62, PtxVersion::new(5, 0)),
    (70, PtxVersion::new(6, 0)),
    (72, PtxVersion::new(6, 1)),
    (75, PtxVersion::new(6, 3)),
    (80, PtxVersion::new(7, 0)),
    (86, PtxVersion::new(7, 1)),
    (87, PtxVersion::new(7, 4)),
    (88, PtxVersion::new(9, 0)),
    (89, PtxVersion::new(7, 8)),
    (90, PtxVersion::new(7, 8)),
    (100, PtxVersion::new(8, 6)),
    (101, PtxVersion::new(8, 6)),
    (103, PtxVersion::new(8, 8)),
    (110, PtxVersion::new(9, 0)),
    (120, PtxVersion::new(8, 7)),
    (121, PtxVersion::new(8, 8)),
];

/// Parses `sm_70`, `sm_90a`, `sm_100f`, `compute_70`; `None` if it is not
/// of that shape.
pub fn parse_sm(s: &str) -> Option<Sm> {
    let rest = s.strip_prefix("sm_").or_else(|| s.strip_prefix("compute_"))?;
    let (digits, suffix) = match rest.as_bytes().last() {
        Some(&c @ (b'a' | b'f')) => (&rest[..rest.len() - 1], c),
        _ => (rest, 0),
    };
    if digits.is_empty() || digits.len() > 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(Sm { number: digits.parse().ok()?, suffix })
}

/// The version that introduced a target, or `None` for a target ptxsim does not know.
pub fn target_version(sm: Sm) -> Option<PtxVersion> {
    let base = TARGETS.iter().find(|(n, _)| *n == sm.number).map(|(_, v)| *v)?;
    match sm.suffix {
        0 => Some(base),
        s => suffix_version(sm.number, s),
    }
}

/// The version that introduced an `a` (architecture-specific) or `f`
/// (family) target.
fn suffix_version(number: u32, suffix: u8) -> Option<PtxVersion> {
    match (number, suffix) {
        (90, b'a') => Some(PtxVersion::new(8, 0)),
        (100 | 101, b'a') => Some(PtxVersion::new(8, 6)),
        (120, b'a') => Some(PtxVersion::new(8, 7)),
        (103 | 121, b'a') => Some(PtxVersion::new(8, 8)),
        (100 | 101 | 103 | 120 | 121, b'f') => Some(PtxVersion::new(8, 8)),
        (88 | 110, b'a' | b'f') => Some(PtxVersion::new(9, 0)),
        _ => None,
    }
}

/// Target options other than `sm_NN` that `.target` accepts.
pub const TARGET_OPTIONS: &[&str] = &["texmode_unified", "texmode_independent", "debug", "map_f64_to_f32"];


#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const fn v(a: u32, b: u32) -> PtxVersion {
        PtxVersion::new(a, b)
    }

    #[test]
    fn every_feature_has_one_row() {
        use Feature::*;
        for f in [
            BrxIdx, BranchTargets, IndirectCall, CallTargets, CallPrototype, FunctionInitialisers,
            ParamFormals, Nanosleep, SetpF16, SetpBf16, SetpBf16x2, AddressSize, ShflSync, VoteSync,
            BarWarpSync, Activemask, MatchSync, ReduxSync, AtomAddF64, F16Arith, MbarrierRelaxed,
            MbarrierClusterScope, MbarrierSharedCluster,
        ] {
            assert_eq!(FEATURES.iter().filter(|g| g.feature == f).count(), 1, "{f:?}");
        }
    }

    #[test]
    fn seed_requirements() {
        let g = gate(Feature::BrxIdx);
        assert_eq!((g.min_version, g.min_sm), (v(6, 0), 30));
        let g = gate(Feature::BranchTargets);
        assert_eq!((g.min_version, g.min_sm), (v(6, 0), 30));
        let g = gate(Feature::IndirectCall);
        assert_eq!((g.min_version, g.min_sm), (v(2, 1), 20));
        // The manual says 6.3; ptxas 12.9 accepts 6.2 and so does ptxsim.
        let g = gate(Feature::Nanosleep);
        assert_eq!((g.min_version, g.min_sm), (v(6, 2), 70));
    }

    #[test]
    fn versions_are_sorted_and_reach_9_5() {
        for w in VERSIONS.windows(2) {
            assert!(w[0] < w[1]);
        }
        assert!(known_version(v(9, 5)));
        assert!(known_version(v(8, 8)));
        assert!(!known_version(v(9, 9)));
        assert!(!known_version(v(2, 4)));
        assert_eq!(newest_version(), v(9, 5));
    }

    #[test]
    fn targets() {
        assert_eq!(parse_sm("sm_70"), Some(Sm { number: 70, suffix: 0 }));
        assert_eq!(parse_sm("sm_90a"), Some(Sm { number: 90, suffix: b'a' }));
        assert_eq!(parse_sm("sm_x"), None);
        assert_eq!(parse_sm("texmode_unified"), None);
        assert_eq!(target_version(parse_sm("sm_70").unwrap()), Some(v(6, 0)));
        assert_eq!(target_version(parse_sm("sm_52").unwrap()), Some(v(4, 1)));
        assert_eq!(target_version(parse_sm("sm_120").unwrap()), Some(v(8, 7)));
        assert_eq!(target_version(parse_sm("sm_90a").unwrap()), Some(v(8, 0)));
        assert_eq!(target_version(parse_sm("sm_99").unwrap()), None);
        assert_eq!(parse_sm("sm_100a").unwrap().to_string(), "sm_100a");
        // Every target's version is a known version.
        for (_, tv) in TARGETS {
            assert!(known_version(*tv));
        }
    }
}

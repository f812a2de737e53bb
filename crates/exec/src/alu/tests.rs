//! Unit tests of the lane-wise semantics against the manual's tables.
use super::*;

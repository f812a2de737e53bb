//! Code layout: 8-byte instructions in 32-byte bundles whose first slot is a
//! scheduling control word, and the seed's target rules.
//!
//! - Instruction `i` of the program sits at byte `32 * (i / 3) + 8 * (i % 3 + 1)`;
//!   addresses 0x00, 0x20, 0x40, ... are control words.
//! - A relative target is `address + 8 + offset` ("next instruction" is
//!   literally +8, even where those bytes are a control word).
//! - A target on a control word means the first instruction of its bundle.
//! - Every target is computed with unbounded precision (`i128`) and must land
//!   in `0..4 GiB`; otherwise it is [`HwError::PcWrap`]. A target whose low
//!   three bits are not 0 is [`HwError::MisalignedPc`] (the seed requires the
//!   low two bits of an immediate to be 0, and no instruction starts
//!   mid-word). A target past the last instruction is [`HwError::PcOverflow`].

use std::fmt;

/// Bytes per bundle and per instruction slot.
pub const BUNDLE: u64 = 32;
pub const SLOT: u64 = 8;
/// Instructions per bundle.
pub const PER_BUNDLE: usize = 3;
/// The target window: `0..4 GiB` of the 40-bit PROGRAM_BASE.
pub const WINDOW: i128 = 1 << 32;

/// The hardware warp errors of the fact sheet (nouveau `gf100.c` names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HwError {
    /// CRS overflow, or SYNC/BRK/CONT with no matching token.
    StackError,
    /// A call past the hardware call depth (with no ApiCallLimit to stop it).
    ApiStackError,
    /// RET with tokens on the stack but no CAL/PRET token among them.
    RetEmptyStackError,
    /// A target outside `0..4 GiB`.
    PcWrap,
    /// A target not on an 8-byte slot.
    MisalignedPc,
    /// A pc past the end of the code.
    PcOverflow,
}

impl HwError {
    pub fn name(self) -> &'static str {
        match self {
            HwError::StackError => "STACK_ERROR",
            HwError::ApiStackError => "API_STACK_ERROR",
            HwError::RetEmptyStackError => "RET_EMPTY_STACK_ERROR",
            HwError::PcWrap => "PC_WRAP",
            HwError::MisalignedPc => "MISALIGNED_PC",
            HwError::PcOverflow => "PC_OVERFLOW",
        }
    }
}

impl fmt::Display for HwError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Byte address of instruction `i`.
pub fn addr_of(i: usize) -> u64 {
    let i = i as u64;
    BUNDLE * (i / 3) + SLOT * (i % 3 + 1)
}

/// Whether `addr` is a control word (the first slot of a bundle).
pub fn is_control(addr: u64) -> bool {
    addr % BUNDLE == 0
}

/// The instruction at `addr` in a program of `len` instructions: a control
/// word means the first instruction of its bundle.
pub fn index_of(addr: u64, len: usize) -> Result<usize, HwError> {
    if addr % SLOT != 0 {
        return Err(HwError::MisalignedPc);
    }
    let bundle = addr / BUNDLE;
    let slot = (addr % BUNDLE) / SLOT;
    let i = bundle.checked_mul(3).and_then(|b| b.checked_add(slot.saturating_sub(1))).ok_or(HwError::PcOverflow)?;
    if i >= len as u64 {
        return Err(HwError::PcOverflow);
    }
    Ok(i as usize)
}

/// Checks an unbounded target against the `0..4 GiB` window.
pub fn in_window(t: i128) -> Result<u64, HwError> {
    if (0..WINDOW).contains(&t) {
        Ok(t as u64)
    } else {
        Err(HwError::PcWrap)
    }
}

/// A relative target: `pc + 8 + a + b` in unbounded precision.
pub fn relative(pc: u64, a: i64, b: i64) -> Result<u64, HwError> {
    in_window(pc as i128 + SLOT as i128 + a as i128 + b as i128)
}

/// An absolute target: `a + b` in unbounded precision (JMX: Ra unsigned + S32).
pub fn absolute(a: u64, b: i64) -> Result<u64, HwError> {
    in_window(a as i128 + b as i128)
}

/// The relative offset that takes the instruction at `from` to `to`
/// (`to - (from + 8)`).
pub fn offset_to(from: usize, to_addr: u64) -> i64 {
    to_addr as i64 - (addr_of(from) as i64 + SLOT as i64)
}

/// Whether an immediate target field is encodable: low two bits 0 and within
/// the field (S24 relative, or U32 absolute).
pub fn check_imm(v: i64, signed24: bool) -> Result<(), String> {
    if v & 3 != 0 {
        return Err(format!("target immediate {v:#x} has its low two bits set (they must be 0)"));
    }
    if signed24 && !(crate::isa::S24_MIN..=crate::isa::S24_MAX).contains(&v) {
        return Err(format!("relative offset {v} does not fit the signed 24-bit field"));
    }
    if !signed24 && !(0..=u32::MAX as i64).contains(&v) {
        return Err(format!("absolute address {v:#x} does not fit the unsigned 32-bit field"));
    }
    Ok(())
}

/// Whether a signed immediate fits `bits` bits (BRX S24, JMX S32).
pub fn fits_signed(v: i64, bits: u32) -> bool {
    let lim = 1i64 << (bits - 1);
    (-lim..lim).contains(&v)
}

//! The tensor map of the tensor memory accelerator (TMA): the 128-byte
//! object that `cp.async.bulk.tensor`, `cp.reduce.async.bulk.tensor`,
//! `prefetch.tensormap` and `tensormap.replace` read (PTX ISA 5.5,
//! "Tensors"; 9.7.9.25 `cp.async.bulk.tensor`), and that the driver's
//! `cuTensorMapEncodeTiled` / `cuTensorMapEncodeIm2col` write.
//!
//! On a GPU the object is opaque. Here its layout is ptxsim's own, fixed by
//! [`TensorMap::to_bytes`] and [`TensorMap::from_bytes`] (all integers
//! little-endian):
//!
//! | bytes | field |
//! |---|---|
//! | 0-3 | magic `PXTM` |
//! | 4 | layout version (1) |
//! | 5 | mode: 0 tiled, 1 im2col |
//! | 6 | data type (`CUtensorMapDataType` code) |
//! | 7 | rank (1-5) |
//! | 8 | interleave (`CUtensorMapInterleave` code) |
//! | 9 | swizzle (`CUtensorMapSwizzle` code) |
//! | 10 | L2 promotion (`CUtensorMapL2promotion` code) |
//! | 11 | out-of-bounds fill (`CUtensorMapFloatOOBfill` code) |
//! | 12-15 | zero |
//! | 16-23 | global address |
//! | 24-63 | global dimensions 0-4, `u64` each |
//! | 64-95 | global strides of dimensions 1-4 in bytes, `u64` each |
//! | 96-105 | box dimensions 0-4, `u16` each (tiled) |
//! | 106-110 | element strides 0-4, `u8` each |
//! | 111 | zero |
//! | 112-117 | im2col pixel-box lower corner, 3 x `i16` |
//! | 118-123 | im2col pixel-box upper corner, 3 x `i16` |
//! | 124-125 | im2col channels per pixel, `u16` |
//! | 126-127 | im2col pixels per column, `u16` |
//!
//! Every field is wide enough to hold any value `tensormap.replace` can
//! write, so a bad value survives until [`TensorMap::validate`] names it.
//! The rules `validate` checks are those `cuTensorMapEncodeTiled` and
//! `cuTensorMapEncodeIm2col` document (CUDA 13 `cuda.h`).
//!
//! **Tile mode** ([`TensorMap::tile_elems`]): a copy at coordinates `c`
//! traverses `n_i = ceil(box_i / estride_i)` elements along dimension `i`
//! (`n_0 = box_0` without interleave, whose element stride 0 is ignored),
//! element `j` being at tensor coordinate `c_i + j_i * estride_i`; one with
//! a coordinate below 0 or at or beyond `dim_i` is out of bounds and reads
//! as the fill value (zero, or a NaN for `NAN_REQUEST_ZERO_FMA` on a float
//! type). In shared memory the box is dense, dimension 0 fastest; each
//! element's shared address is then swizzled on its address bits
//! ([`crate::swizzle`]), which is why a swizzled destination must be
//! aligned to the pattern's repeat for the pattern to start at row 0.
//!
//! **Im2col mode**: `tma_im2col.rs` ([`TensorMap::im2col_elems`]).
//!
//! Not modelled (reported by name): the packed types `16U4_ALIGN8B`,
//! `16U4_ALIGN16B`, `16U6_ALIGN16B` in copies, the sm_100 swizzle modes
//! `128B_ATOM_*`.

use crate::swizzle::Swizzle;
use std::fmt;

/// Size of a tensor map in bytes.
pub const SIZE: usize = 128;
/// Its first four bytes.
pub const MAGIC: [u8; 4] = *b"PXTM";
/// The layout version this module writes and reads.
pub const VERSION: u8 = 1;

/// `CUtensorMapDataType`, in code order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataType {
    U8,
    U16,
    U32,
    I32,
    U64,
    I64,
    F16,
    F32,
    F64,
    BF16,
    F32Ftz,
    Tf32,
    Tf32Ftz,
    U4x16Align8,
    U4x16Align16,
    U6x16Align16,
}

const TYPES: [DataType; 16] = [
    DataType::U8,
    DataType::U16,
    DataType::U32,
    DataType::I32,
    DataType::U64,
    DataType::I64,
    DataType::F16,
    DataType::F32,
    DataType::F64,
    DataType::BF16,
    DataType::F32Ftz,
    DataType::Tf32,
    DataType::Tf32Ftz,
    DataType::U4x16Align8,
    DataType::U4x16Align16,
    DataType::U6x16Align16,
];

impl DataType {
    pub fn from_code(c: u32) -> Option<DataType> {
        TYPES.get(c as usize).copied()
    }

    pub fn code(self) -> u32 {
        TYPES.iter().position(|&t| t == self).unwrap_or(0) as u32
    }

    /// Bytes per element; `None` for the packed sub-byte types.
    pub fn size(self) -> Option<u32> {
        use DataType::*;
        Some(match self {
            U8 => 1,
            U16 | F16 | BF16 => 2,
            U32 | I32 | F32 | F32Ftz | Tf32 | Tf32Ftz => 4,
            U64 | I64 | F64 => 8,
            U4x16Align8 | U4x16Align16 | U6x16Align16 => return None,
        })
    }

    pub fn is_float(self) -> bool {
        use DataType::*;
        matches!(self, F16 | F32 | F64 | BF16 | F32Ftz | Tf32 | Tf32Ftz)
    }

    fn is_packed16(self) -> bool {
        matches!(self, DataType::U4x16Align16 | DataType::U6x16Align16)
    }

    /// The bits an out-of-bounds element reads as under `fill`.
    pub fn fill_bits(self, fill: OobFill) -> u64 {
        use DataType::*;
        match (fill, self) {
            (OobFill::Nan, F16 | BF16) => 0x7fff,
            (OobFill::Nan, F32 | F32Ftz | Tf32 | Tf32Ftz) => 0x7fff_ffff,
            (OobFill::Nan, F64) => 0x7fff_ffff_ffff_ffff,
            _ => 0,
        }
    }
}

/// `CUtensorMapInterleave`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Interleave {
    None,
    B16,
    B32,
}

/// `CUtensorMapL2promotion`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum L2Promotion {
    None,
    B64,
    B128,
    B256,
}

/// `CUtensorMapFloatOOBfill`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OobFill {
    Zero,
    Nan,
}

/// Tiled (a box of `box_dim`) or im2col.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    Tiled { box_dim: [u32; 5] },
    Im2col { lower: [i32; 3], upper: [i32; 3], channels: u32, pixels: u32 },
}

/// A decoded tensor map. Arrays hold `rank` meaningful entries;
/// `strides[0]` is unused (dimension 0 is dense).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TensorMap {
    pub mode: Mode,
    pub dtype: DataType,
    pub rank: u32,
    pub addr: u64,
    pub dims: [u64; 5],
    pub strides: [u64; 5],
    pub elem_strides: [u32; 5],
    pub interleave: Interleave,
    pub swizzle: Swizzle,
    pub l2: L2Promotion,
    pub oob: OobFill,
}

/// A tensor map that breaks a rule; `field` names the field
/// (`cuTensorMapEncodeTiled`'s parameter name, with the dimension).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapError {
    pub field: String,
    pub msg: String,
}

impl fmt::Display for MapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tensor map field `{}`: {}", self.field, self.msg)
    }
}

impl std::error::Error for MapError {}

fn err<T>(field: impl Into<String>, msg: impl Into<String>) -> Result<T, MapError> {
    Err(MapError { field: field.into(), msg: msg.into() })
}

/// The raw bytes of the enumerations, each checked against its range.
fn code_of<T: Copy + PartialEq>(all: &[T], v: T) -> u8 {
    all.iter().position(|&x| x == v).unwrap_or(0) as u8
}

const INTERLEAVES: [Interleave; 3] = [Interleave::None, Interleave::B16, Interleave::B32];
const SWIZZLES: [Swizzle; 4] = [Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128];
const L2S: [L2Promotion; 4] = [L2Promotion::None, L2Promotion::B64, L2Promotion::B128, L2Promotion::B256];
const FILLS: [OobFill; 2] = [OobFill::Zero, OobFill::Nan];

impl TensorMap {
    /// Bytes per element (`Err` for the packed types, not modelled).
    pub fn elem_size(&self) -> Result<u32, MapError> {
        match self.dtype.size() {
            Some(s) => Ok(s),
            None => err("tensorDataType", format!("the packed type {:?} is not modelled in copies", self.dtype)),
        }
    }

    /// Checks every rule of `cuTensorMapEncodeTiled` / `...Im2col`.
    pub fn validate(&self) -> Result<(), MapError> {
        let r = self.rank as usize;
        let im2col = matches!(self.mode, Mode::Im2col { .. });
        if im2col && !(3..=5).contains(&r) {
            return err("tensorRank", format!("{r}: an im2col tensor map has rank 3, 4 or 5"));
        }
        if !(1..=5).contains(&r) {
            return err("tensorRank", format!("{r}: must be 1 to 5"));
        }
        if self.interleave != Interleave::None && r < 3 {
            return err("tensorRank", format!("{r}: an interleaved layout needs rank 3 or more"));
        }
        let align = if self.interleave == Interleave::B32 || self.dtype.is_packed16() { 32 } else { 16 };
        if self.addr % align != 0 {
            return err("globalAddress", format!("{:#x} is not {align}-byte aligned", self.addr));
        }
        for i in 0..r {
            let d = self.dims[i];
            if d == 0 || d > 1 << 31 {
                return err(format!("globalDim[{i}]"), format!("{d}: must be 1 to 2^31"));
            }
        }
        if self.dtype.is_packed16() && self.dims[0] % 128 != 0 {
            return err("globalDim[0]", format!("{}: a multiple of 128 for {:?}", self.dims[0], self.dtype));
        }
        if self.dtype == DataType::U4x16Align8 && self.dims[0] % 2 != 0 {
            return err("globalDim[0]", format!("{}: a multiple of 2 for {:?}", self.dims[0], self.dtype));
        }
        let salign = if self.interleave == Interleave::B32 || self.dtype.is_packed16() { 32 } else { 16 };
        for i in 1..r {
            let s = self.strides[i];
            if s % salign != 0 || s >= 1 << 40 {
                return err(format!("globalStrides[{}]", i - 1), format!("{s}: must be a multiple of {salign} below 2^40"));
            }
        }
        let esize = self.dtype.size().unwrap_or(16);
        let inner = match self.mode {
            Mode::Tiled { box_dim } => {
                for (i, &b) in box_dim.iter().enumerate().take(r) {
                    if b == 0 || b > 256 {
                        return err(format!("boxDim[{i}]"), format!("{b}: must be 1 to 256"));
                    }
                }
                if self.interleave == Interleave::None && box_dim[0] as u64 * esize as u64 % 16 != 0 {
                    return err("boxDim[0]", format!("{} elements of {esize} bytes is not a multiple of 16 bytes", box_dim[0]));
                }
                if self.dtype.is_packed16() && box_dim[0] != 128 {
                    return err("boxDim[0]", format!("{}: must be 128 for {:?}", box_dim[0], self.dtype));
                }
                box_dim[0] as u64 * esize as u64
            }
            Mode::Im2col { lower, upper, channels, pixels } => {
                let lim = [1 << 15, 1 << 7, 1 << 4][r - 3];
                for (name, v) in [("pixelBoxLowerCorner", lower), ("pixelBoxUpperCorner", upper)] {
                    for (i, &x) in v.iter().enumerate().take(r - 2) {
                        if x < -lim || x >= lim {
                            return err(format!("{name}[{i}]"), format!("{x}: must be in [{}, {}] for rank {r}", -lim, lim - 1));
                        }
                    }
                }
                if channels == 0 || channels > 256 {
                    return err("channelsPerPixel", format!("{channels}: must be 1 to 256"));
                }
                if pixels == 0 || pixels > 1024 {
                    return err("pixelsPerColumn", format!("{pixels}: must be 1 to 1024"));
                }
                channels as u64 * esize as u64
            }
        };
        for i in 0..r {
            let e = self.elem_strides[i];
            if e == 0 || e > 8 {
                return err(format!("elementStrides[{i}]"), format!("{e}: must be 1 to 8"));
            }
        }
        if self.interleave == Interleave::None && self.swizzle != Swizzle::None && inner > self.swizzle.span() as u64 {
            return err("swizzle", format!("the box's inner dimension ({inner} bytes) exceeds the {}-byte swizzle span", self.swizzle.span()));
        }
        if self.interleave == Interleave::B32 && self.swizzle != Swizzle::B32 {
            return err("swizzle", "an interleave of 32 bytes needs the 32-byte swizzle");
        }
        if self.dtype == DataType::U6x16Align16 && self.interleave != Interleave::None {
            return err("interleave", "16U6_ALIGN16B needs no interleave");
        }
        if self.oob == OobFill::Nan && !self.dtype.is_float() {
            return err("oobFill", format!("the NaN fill needs a float type, not {:?}", self.dtype));
        }
        Ok(())
    }

    /// The 128-byte encoding (no validation: any decoded map round-trips).
    pub fn to_bytes(&self) -> [u8; SIZE] {
        let mut b = [0u8; SIZE];
        b[0..4].copy_from_slice(&MAGIC);
        b[4] = VERSION;
        b[5] = matches!(self.mode, Mode::Im2col { .. }) as u8;
        b[6] = self.dtype.code() as u8;
        b[7] = self.rank as u8;
        b[8] = code_of(&INTERLEAVES, self.interleave);
        b[9] = code_of(&SWIZZLES, self.swizzle);
        b[10] = code_of(&L2S, self.l2);
        b[11] = code_of(&FILLS, self.oob);
        b[16..24].copy_from_slice(&self.addr.to_le_bytes());
        for i in 0..5 {
            b[24 + 8 * i..32 + 8 * i].copy_from_slice(&self.dims[i].to_le_bytes());
            b[106 + i] = self.elem_strides[i].min(255) as u8;
        }
        for i in 1..5 {
            b[64 + 8 * (i - 1)..72 + 8 * (i - 1)].copy_from_slice(&self.strides[i].to_le_bytes());
        }
        match self.mode {
            Mode::Tiled { box_dim } => {
                for (i, &x) in box_dim.iter().enumerate() {
                    b[96 + 2 * i..98 + 2 * i].copy_from_slice(&(x.min(0xffff) as u16).to_le_bytes());
                }
            }
            Mode::Im2col { lower, upper, channels, pixels } => {
                for i in 0..3 {
                    b[112 + 2 * i..114 + 2 * i].copy_from_slice(&(lower[i].clamp(-32768, 32767) as i16).to_le_bytes());
                    b[118 + 2 * i..120 + 2 * i].copy_from_slice(&(upper[i].clamp(-32768, 32767) as i16).to_le_bytes());
                }
                b[124..126].copy_from_slice(&(channels.min(0xffff) as u16).to_le_bytes());
                b[126..128].copy_from_slice(&(pixels.min(0xffff) as u16).to_le_bytes());
            }
        }
        b
    }

    /// Decodes the fields without checking the rules; `Err` when the bytes
    /// are not a tensor map of this layout or an enumeration's code is out
    /// of range.
    pub fn from_bytes_raw(b: &[u8; SIZE]) -> Result<TensorMap, MapError> {
        if b[0..4] != MAGIC {
            return err("magic", format!("{:02x?} is not `PXTM`: these 128 bytes were not written by cuTensorMapEncode* (or were overwritten)", &b[0..4]));
        }
        if b[4] != VERSION {
            return err("version", format!("{}: this ptxsim reads version {VERSION}", b[4]));
        }
        let u16at = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
        let u64at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap_or([0; 8]));
        let i16at = |o: usize| i16::from_le_bytes([b[o], b[o + 1]]) as i32;
        let dtype = match DataType::from_code(b[6] as u32) {
            Some(t) => t,
            None => return err("tensorDataType", format!("code {} is not a CUtensorMapDataType", b[6])),
        };
        let interleave = match INTERLEAVES.get(b[8] as usize) {
            Some(&x) => x,
            None => return err("interleave", format!("code {} is not a CUtensorMapInterleave", b[8])),
        };
        let swizzle = match SWIZZLES.get(b[9] as usize) {
            Some(&x) => x,
            None if (4..=6).contains(&b[9]) => return err("swizzle", format!("code {}: the 128B_ATOM swizzle modes are sm_100's, not modelled", b[9])),
            None => return err("swizzle", format!("code {} is not a CUtensorMapSwizzle", b[9])),
        };
        let l2 = match L2S.get(b[10] as usize) {
            Some(&x) => x,
            None => return err("l2Promotion", format!("code {} is not a CUtensorMapL2promotion", b[10])),
        };
        let oob = match FILLS.get(b[11] as usize) {
            Some(&x) => x,
            None => return err("oobFill", format!("code {} is not a CUtensorMapFloatOOBfill", b[11])),
        };
        let mode = match b[5] {
            0 => Mode::Tiled { box_dim: std::array::from_fn(|i| u16at(96 + 2 * i) as u32) },
            1 => Mode::Im2col {
                lower: std::array::from_fn(|i| i16at(112 + 2 * i)),
                upper: std::array::from_fn(|i| i16at(118 + 2 * i)),
                channels: u16at(124) as u32,
                pixels: u16at(126) as u32,
            },
            m => return err("mode", format!("{m} is neither tiled (0) nor im2col (1)")),
        };
        let mut strides = [0u64; 5];
        for (i, s) in strides.iter_mut().enumerate().skip(1) {
            *s = u64at(64 + 8 * (i - 1));
        }
        Ok(TensorMap {
            mode,
            dtype,
            rank: b[7] as u32,
            addr: u64at(16),
            dims: std::array::from_fn(|i| u64at(24 + 8 * i)),
            strides,
            elem_strides: std::array::from_fn(|i| b[106 + i] as u32),
            interleave,
            swizzle,
            l2,
            oob,
        })
    }

    /// Decodes and validates.
    pub fn from_bytes(b: &[u8; SIZE]) -> Result<TensorMap, MapError> {
        let m = TensorMap::from_bytes_raw(b)?;
        m.validate()?;
        Ok(m)
    }

    /// The box's element counts along each dimension (1 past the rank):
    /// `ceil(box_i / estride_i)`, dimension 0's element stride ignored
    /// without interleave. `Err` for an im2col map.
    pub fn box_counts(&self) -> Result<[u32; 5], MapError> {
        let Mode::Tiled { box_dim } = self.mode else {
            return err("mode", "a tile-mode copy needs a tiled tensor map, and this one is im2col");
        };
        let mut n = [1u32; 5];
        for i in 0..self.rank as usize {
            let e = if i == 0 && self.interleave == Interleave::None { 1 } else { self.elem_strides[i].max(1) };
            n[i] = box_dim[i].div_ceil(e);
        }
        Ok(n)
    }

    /// Bytes the box occupies in shared memory (what a copy's mbarrier
    /// transaction count is credited with).
    pub fn box_bytes(&self) -> Result<u64, MapError> {
        if let Mode::Im2col { channels, pixels, .. } = self.mode {
            return Ok(u64::from(channels) * u64::from(pixels) * u64::from(self.elem_size()?));
        }
        let n = self.box_counts()?;
        Ok(n.iter().map(|&x| x as u64).product::<u64>() * self.elem_size()? as u64)
    }

    /// Every element of the box a tile-mode copy at `coords` (one per
    /// dimension) moves, in shared-memory order: `f(smem_offset, global)`
    /// with the dense (unswizzled) offset in the box and the element's
    /// global address, or `None` when it is out of bounds. `Err` for a map
    /// the copy cannot use (im2col, packed types) or a wrong number of
    /// coordinates.
    pub fn tile_elems(&self, coords: &[i32], mut f: impl FnMut(u64, Option<u64>)) -> Result<(), MapError> {
        let r = self.rank as usize;
        if coords.len() != r {
            return err("tensorRank", format!("the copy gives {} coordinates for a rank-{r} tensor map", coords.len()));
        }
        let n = self.box_counts()?;
        let es = self.elem_size()? as u64;
        let total: u64 = n.iter().map(|&x| x as u64).product();
        let mut j = [0u32; 5];
        for lin in 0..total {
            let mut inb = true;
            let mut addr = self.addr;
            for i in 0..r {
                let e = if i == 0 && self.interleave == Interleave::None { 1 } else { self.elem_strides[i].max(1) };
                let x = coords[i] as i64 + j[i] as i64 * e as i64;
                if x < 0 || x >= self.dims[i] as i64 {
                    inb = false;
                    break;
                }
                addr = addr.wrapping_add(x as u64 * if i == 0 { es } else { self.strides[i] });
            }
            f(lin * es, inb.then_some(addr));
            for i in 0..5 {
                j[i] += 1;
                if j[i] < n[i] {
                    break;
                }
                j[i] = 0;
            }
        }
        Ok(())
    }

    /// The elements of a tile-mode copy (`im2col` `None`) or of an im2col
    /// one.
    fn elems(&self, coords: &[i32], im2col: Option<&[u16]>, f: impl FnMut(u64, Option<u64>)) -> Result<(), MapError> {
        match im2col {
            None => self.tile_elems(coords, f),
            Some(offsets) => self.im2col_elems(coords, offsets, f),
        }
    }

    /// The shared-memory address of the box element at dense `offset` in a
    /// box written at `base`.
    pub fn smem_addr(&self, base: u64, offset: u64) -> u64 {
        self.swizzle.apply(base + offset)
    }
}

/// Why a tensor copy stopped: the map (a located trap naming the field) or
/// a memory access (the engine's own error, passed through).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CopyError<E> {
    Map(MapError),
    Mem(E),
}

impl<E> From<MapError> for CopyError<E> {
    fn from(e: MapError) -> Self {
        CopyError::Map(e)
    }
}

impl TensorMap {
    /// A tile-mode `cp.async.bulk.tensor` from global to shared memory:
    /// every box element read from global memory (or the fill value when
    /// out of bounds) and written at its swizzled shared address in the box
    /// at `smem`. `read(addr, size)` and `write(addr, size, value)` are the
    /// engine's accesses. Returns the bytes written (the mbarrier's
    /// transaction count). With `im2col` offsets the copy is an im2col one
    /// ([`TensorMap::im2col_elems`]).
    pub fn copy_to_shared<E>(&self, coords: &[i32], im2col: Option<&[u16]>, smem: u64, read: &mut dyn FnMut(u64, u32) -> Result<u64, E>, write: &mut dyn FnMut(u64, u32, u64) -> Result<(), E>) -> Result<u64, CopyError<E>> {
        let es = self.elem_size()?;
        let fill = self.dtype.fill_bits(self.oob);
        let mut res = Ok(());
        self.elems(coords, im2col, |off, g| {
            if res.is_err() {
                return;
            }
            let v = match g {
                Some(a) => read(a, es),
                None => Ok(fill),
            };
            res = v.and_then(|v| write(self.smem_addr(smem, off), es, v));
        })?;
        res.map_err(CopyError::Mem)?;
        Ok(self.box_bytes()?)
    }

    /// A tile-mode `cp.async.bulk.tensor` from shared to global memory:
    /// every in-bounds box element read at its swizzled shared address and
    /// written to global memory; out-of-bounds ones are not written. (A
    /// `cp.reduce.async.bulk.tensor` is this with a `write` that reduces.)
    /// With `im2col` offsets (zeros for `.im2col_no_offs`) the box is an
    /// im2col one.
    pub fn copy_from_shared<E>(&self, coords: &[i32], im2col: Option<&[u16]>, smem: u64, read: &mut dyn FnMut(u64, u32) -> Result<u64, E>, write: &mut dyn FnMut(u64, u32, u64) -> Result<(), E>) -> Result<u64, CopyError<E>> {
        let es = self.elem_size()?;
        let mut res = Ok(());
        self.elems(coords, im2col, |off, g| {
            if res.is_err() {
                return;
            }
            if let Some(a) = g {
                res = read(self.smem_addr(smem, off), es).and_then(|v| write(a, es, v));
            }
        })?;
        res.map_err(CopyError::Mem)?;
        Ok(self.box_bytes()?)
    }
}

/// The element types of `tensormap.replace.tile.elemtype` in the order of
/// their codes (PTX ISA 9.7.9.28: `.u8`, `.u16`, `.u32`, `.s32`, `.u64`,
/// `.s64`, `.f16`, `.f32`, `.f32.ftz`, `.f64`, `.bf16`, `.tf32`,
/// `.tf32.ftz`, `.b4x16`, `.b4x16_p64`, `.b6x16_p32`), which differ from
/// `CUtensorMapDataType`'s.
const PTX_ELEMTYPES: [DataType; 16] = [
    DataType::U8,
    DataType::U16,
    DataType::U32,
    DataType::I32,
    DataType::U64,
    DataType::I64,
    DataType::F16,
    DataType::F32,
    DataType::F32Ftz,
    DataType::F64,
    DataType::BF16,
    DataType::Tf32,
    DataType::Tf32Ftz,
    DataType::U4x16Align8,
    DataType::U4x16Align16,
    DataType::U6x16Align16,
];

/// `tensormap.replace.tile.field` on the 128 bytes of a tensor map: writes
/// `val` into field `field` (dimension `ord` for the indexed fields) of
/// `b`, in place. The fields and their values as the PTX ISA gives them
/// (9.7.9.28) and Triton and CUTLASS write them: the address; the rank as
/// rank - 1; box and global dimensions and element strides as counts; the
/// global stride `ord` (that of dimension `ord + 1`) in bytes; the element
/// type as [`PTX_ELEMTYPES`]' code; interleave, swizzle and fill as the
/// driver's codes. Nothing is validated here: the copy that uses the map
/// does that, naming the bad field.
///
/// A map is built in place from zeros (Triton's device-side descriptors
/// zero 128 bytes of shared memory, then replace every field): zero bytes
/// are taken as a tiled map with every field zero. Bytes that are neither
/// that nor a map of this layout are an error naming the magic.
pub fn replace(b: &mut [u8; SIZE], field: ptxsim_isa::TensormapField, ord: u32, val: u64) -> Result<(), MapError> {
    use ptxsim_isa::TensormapField as F;
    let blank = b[0..5].iter().all(|&x| x == 0);
    if !blank && (b[0..4] != MAGIC || b[4] != VERSION) {
        return err("magic", format!("{:02x?} is not `PXTM` version {VERSION}: tensormap.replace needs a tensor map (or 128 zero bytes)", &b[0..5]));
    }
    let max_ord = if field == F::GlobalStride { 4 } else { 5 };
    if field.ordinal() && ord >= max_ord {
        return err(format!("{field:?}"), format!("ordinal {ord} is past the last dimension ({})", max_ord - 1));
    }
    let o = ord as usize;
    let put = |b: &mut [u8; SIZE], at: usize, bytes: &[u8]| b[at..at + bytes.len()].copy_from_slice(bytes);
    match field {
        F::GlobalAddress => put(b, 16, &val.to_le_bytes()),
        // Ranks 1-5 are 0-4; a larger value survives as an invalid rank.
        F::Rank => b[7] = (val as u32).saturating_add(1).min(255) as u8,
        F::BoxDim => put(b, 96 + 2 * o, &((val as u32).min(0xffff) as u16).to_le_bytes()),
        F::GlobalDim => put(b, 24 + 8 * o, &u64::from(val as u32).to_le_bytes()),
        F::GlobalStride => put(b, 64 + 8 * o, &val.to_le_bytes()),
        F::ElementStride => b[106 + o] = (val as u32).min(255) as u8,
        F::Elemtype => match PTX_ELEMTYPES.get(val as u32 as usize) {
            Some(t) => b[6] = t.code() as u8,
            None => return err("tensorDataType", format!("elemtype code {} is not one of the manual's 0-15", val as u32)),
        },
        F::InterleaveLayout => b[8] = (val as u32).min(255) as u8,
        F::SwizzleMode => b[9] = (val as u32).min(255) as u8,
        F::FillMode => b[11] = (val as u32).min(255) as u8,
        F::SwizzleAtomicity => return err("swizzle_atomicity", "sm_100's swizzle atomicity is not modelled"),
    }
    b[0..4].copy_from_slice(&MAGIC);
    b[4] = VERSION;
    Ok(())
}

#[path = "tma_im2col.rs"]
mod im2col;

#[cfg(test)]
#[path = "tma_tests.rs"]
mod tests;

//! Fatbins: the containers nvcc puts device code in. Owns reading them
//! (the wrapper a host program registers, the fatbin header, its entries),
//! decompressing an entry (LZ4 or Zstd), and picking the PTX entry that
//! runs on a device of a given compute capability. Pure: no driver state,
//! no printing; the driver maps [`FatbinError`] to its codes (`module.rs`).
//!
//! Layout (little-endian, checked against nvcc 13.2 and 13.5 output with cuobjdump):
//! - Wrapper, 24 bytes: magic [`WRAPPER_MAGIC`] u32, version u32 (1, or 2
//!   for relocatable device code), pointer to the fatbin u64, pointer to a
//!   file name or prelinked fatbins u64 (not read).
//! - Fatbin header, 16 bytes: magic [`FATBIN_MAGIC`] u32, version u16 (1),
//!   header size u16 (16), size of the entries that follow u64.
//! - Entry header (at least 64 bytes): kind u16 (1 PTX, 2 ELF), u16,
//!   header size u32 (the payload follows it), payload size u64 (padded to
//!   8 bytes), compressed size u32 at 16 (0 when not compressed), PTX options
//!   offset u32 at 20, version u16 minor at 24 and u16 major at 26 (the PTX
//!   ISA version of a PTX entry), arch u32 at 28 (80 for sm_80/compute_80),
//!   source name offset u32 at 32 and length u32 at 36, flags u64 at 40,
//!   uncompressed size u64 at 56 (0 when not compressed).
//! - Flags: [`FLAG_64BIT`], [`FLAG_DEBUG`], [`FLAG_LINUX`],
//!   [`FLAG_LZ4`] (an LZ4 block, `--compress-mode=speed`), [`FLAG_ZSTD`]
//!   (a Zstd frame, the default mode and `size`/`balance`),
//!   [`FLAG_ARCH_SPECIFIC`] (`compute_90a`), [`FLAG_FAMILY_SPECIFIC`]
//!   (`compute_100f`).
//!
//! Invariants:
//! - Every read is bounds-checked against the slice it is given; a fatbin
//!   handed over as a bare pointer is first read as its 16-byte header, then
//!   bounded by the header's sizes, which must stay under [`MAX_FATBIN_BYTES`].
//! - A decompressed payload is at most [`MAX_PAYLOAD_BYTES`] and must have
//!   exactly the size its header declares.
//! - Malformed input is an error, never a panic.

use std::borrow::Cow;
use std::io::Read;

/// The magic number of the wrapper (`__fatBinC_Wrapper_t`).
pub const WRAPPER_MAGIC: u32 = 0x466243B1;
/// The magic number of a fatbin header.
pub const FATBIN_MAGIC: u32 = 0xBA55ED50;
/// The first bytes of an ELF file (a cubin).
pub const ELF_MAGIC: [u8; 4] = *b"\x7fELF";

/// Entry kinds.
pub const KIND_PTX: u16 = 1;
pub const KIND_ELF: u16 = 2;

/// Entry flags.
pub const FLAG_64BIT: u64 = 0x1;
pub const FLAG_DEBUG: u64 = 0x2;
pub const FLAG_LINUX: u64 = 0x10;
pub const FLAG_LZ4: u64 = 0x2000;
pub const FLAG_ZSTD: u64 = 0x8000;
pub const FLAG_ARCH_SPECIFIC: u64 = 0x10_0000;
pub const FLAG_FAMILY_SPECIFIC: u64 = 0x20_0000;

/// The largest fatbin (header and entries) read through a bare pointer.
pub const MAX_FATBIN_BYTES: u64 = 1 << 31;
/// The largest header a fatbin or an entry may declare.
pub const MAX_HEADER_BYTES: u64 = 1 << 16;
/// The largest payload after decompression.
pub const MAX_PAYLOAD_BYTES: u64 = 1 << 30;

/// The size of a fatbin header, and the least size of an entry header.
pub const FATBIN_HEADER_BYTES: usize = 16;
pub const ENTRY_HEADER_BYTES: usize = 64;
/// The bytes of a wrapper that are read (magic, version, fatbin pointer).
pub const WRAPPER_BYTES: usize = 16;

/// What can be wrong with a fatbin, or missing from it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FatbinError {
    #[error("fatbin truncated: {what} at byte {offset} needs {need} bytes, {have} are left")]
    Truncated { what: &'static str, offset: usize, need: u64, have: u64 },
    #[error("not a fatbin: magic {0:#010x} (a fatbin starts with {FATBIN_MAGIC:#010x})")]
    BadMagic(u32),
    #[error("fatbin wrapper version {0} (only 1 and 2 are known)")]
    WrapperVersion(u32),
    #[error("fatbin wrapper holds a null fatbin pointer")]
    NullData,
    #[error("fatbin version {0} (only 1 is known)")]
    Version(u16),
    #[error("fatbin {what} of {size} bytes is out of range ({min} to {max})")]
    BadSize { what: &'static str, size: u64, min: u64, max: u64 },
    #[error("fatbin entry {name} at byte {offset}: {message}")]
    Decompress { name: String, offset: usize, message: String },
    #[error("fatbin entry {name} at byte {offset} is compressed with a scheme not supported here (flags {flags:#x}; LZ4 {FLAG_LZ4:#x} and Zstd {FLAG_ZSTD:#x} are)")]
    UnknownCompression { name: String, offset: usize, flags: u64 },
    #[error("fatbin entry {name}: the PTX is not UTF-8 text")]
    NotText { name: String },
}

/// One entry of a fatbin (its payload not yet decompressed).
#[derive(Debug, Clone)]
pub struct Entry<'a> {
    /// [`KIND_PTX`], [`KIND_ELF`] or another kind (kept, never selected).
    pub kind: u16,
    /// The architecture number: 80 for `sm_80`/`compute_80`.
    pub arch: u32,
    /// The version field: (major, minor), the PTX ISA version of PTX.
    pub version: (u16, u16),
    pub flags: u64,
    /// The entry's offset in the fatbin (from its header's first byte).
    pub offset: usize,
    /// The payload as stored (compressed or not, padding included).
    pub stored: &'a [u8],
    /// The compressed length within `stored` (0: not compressed).
    pub compressed_size: u32,
    /// The length after decompression (0: not compressed).
    pub uncompressed_size: u64,
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

/// `need` bytes at `offset` of `bytes`, or a [`FatbinError::Truncated`].
fn take<'a>(bytes: &'a [u8], offset: usize, need: u64, what: &'static str) -> Result<&'a [u8], FatbinError> {
    let have = bytes.len().saturating_sub(offset) as u64;
    if need > have {
        return Err(FatbinError::Truncated { what, offset, need, have });
    }
    Ok(&bytes[offset..offset + need as usize])
}

impl Entry<'_> {
    /// How nvcc names the entry's target: `compute_80` for PTX, `sm_80` for
    /// machine code, with an `a` or `f` suffix when arch- or family-specific.
    pub fn name(&self) -> String {
        let prefix = if self.kind == KIND_PTX { "compute" } else { "sm" };
        let suffix = if self.flags & FLAG_ARCH_SPECIFIC != 0 {
            "a"
        } else if self.flags & FLAG_FAMILY_SPECIFIC != 0 {
            "f"
        } else {
            ""
        };
        format!("{prefix}_{}{suffix}", self.arch)
    }

    /// Whether code for this entry runs on a device of compute capability
    /// `cc`: its arch is no newer; an arch-specific entry (`90a`) needs
    /// exactly its arch, a family-specific one (`100f`) the same major.
    pub fn runs_on(&self, cc: (i32, i32)) -> bool {
        let dev = (cc.0.max(0) as u32) * 10 + cc.1.max(0) as u32;
        if self.flags & FLAG_ARCH_SPECIFIC != 0 {
            self.arch == dev
        } else if self.flags & FLAG_FAMILY_SPECIFIC != 0 {
            self.arch / 10 == dev / 10 && self.arch <= dev
        } else {
            self.arch <= dev
        }
    }

    /// The payload, decompressed when it is compressed.
    pub fn payload(&self) -> Result<Cow<'_, [u8]>, FatbinError> {
        if self.compressed_size == 0 && self.flags & (FLAG_LZ4 | FLAG_ZSTD) == 0 {
            return Ok(Cow::Borrowed(self.stored));
        }
        let fail = |message: String| FatbinError::Decompress { name: self.name(), offset: self.offset, message };
        if self.compressed_size as usize > self.stored.len() {
            return Err(fail(format!("compressed size {} exceeds the stored payload of {} bytes", self.compressed_size, self.stored.len())));
        }
        if self.uncompressed_size == 0 || self.uncompressed_size > MAX_PAYLOAD_BYTES {
            return Err(fail(format!("uncompressed size {} is out of range (1 to {MAX_PAYLOAD_BYTES})", self.uncompressed_size)));
        }
        let input = &self.stored[..self.compressed_size as usize];
        let size = self.uncompressed_size as usize;
        let out = if self.flags & FLAG_LZ4 != 0 {
            lz4_flex::block::decompress(input, size).map_err(|e| fail(format!("LZ4: {e}")))?
        } else if self.flags & FLAG_ZSTD != 0 {
            let mut decoder = ruzstd::decoding::StreamingDecoder::new(input).map_err(|e| fail(format!("Zstd: {e}")))?;
            let mut out = Vec::with_capacity(size);
            // One byte more than declared, to tell a longer stream.
            (&mut decoder).take(size as u64 + 1).read_to_end(&mut out).map_err(|e| fail(format!("Zstd: {e}")))?;
            out
        } else {
            return Err(FatbinError::UnknownCompression { name: self.name(), offset: self.offset, flags: self.flags });
        };
        if out.len() != size {
            return Err(fail(format!("decompressed to {} bytes, the header says {size}", out.len())));
        }
        Ok(Cow::Owned(out))
    }

    /// The PTX text of a PTX entry: its payload up to the first NUL.
    pub fn ptx(&self) -> Result<String, FatbinError> {
        let bytes = self.payload()?;
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        String::from_utf8(bytes[..end].to_vec()).map_err(|_| FatbinError::NotText { name: self.name() })
    }
}

/// The total size (header and entries) a fatbin header declares, checked
/// against the bounds.
pub fn declared_size(header: &[u8]) -> Result<usize, FatbinError> {
    let h = take(header, 0, FATBIN_HEADER_BYTES as u64, "the fatbin header")?;
    let magic = u32_at(h, 0);
    if magic != FATBIN_MAGIC {
        return Err(FatbinError::BadMagic(magic));
    }
    let version = u16_at(h, 4);
    if version != 1 {
        return Err(FatbinError::Version(version));
    }
    let header_size = u16_at(h, 6) as u64;
    if header_size < FATBIN_HEADER_BYTES as u64 {
        return Err(FatbinError::BadSize { what: "header", size: header_size, min: FATBIN_HEADER_BYTES as u64, max: MAX_HEADER_BYTES });
    }
    let entries = u64_at(h, 8);
    let max = MAX_FATBIN_BYTES - header_size;
    if entries > max {
        return Err(FatbinError::BadSize { what: "entries", size: entries, min: 0, max });
    }
    Ok((header_size + entries) as usize)
}

/// The entries of the fatbin at the start of `bytes`, and its total size.
/// Bytes after it are not read.
pub fn parse(bytes: &[u8]) -> Result<(Vec<Entry<'_>>, usize), FatbinError> {
    let total = declared_size(bytes)?;
    let fatbin = take(bytes, 0, total as u64, "the fatbin's entries")?;
    let mut off = u16_at(fatbin, 6) as usize;
    let mut entries = Vec::new();
    while off < total {
        let h = take(fatbin, off, ENTRY_HEADER_BYTES as u64, "an entry header")?;
        let header_size = u32_at(h, 4) as u64;
        if !(ENTRY_HEADER_BYTES as u64..=MAX_HEADER_BYTES).contains(&header_size) {
            return Err(FatbinError::BadSize { what: "entry header", size: header_size, min: ENTRY_HEADER_BYTES as u64, max: MAX_HEADER_BYTES });
        }
        let stored_size = u64_at(h, 8);
        take(fatbin, off, header_size, "an entry header")?;
        let stored = take(fatbin, off + header_size as usize, stored_size, "an entry's payload")?;
        entries.push(Entry {
            kind: u16_at(h, 0),
            arch: u32_at(h, 28),
            version: (u16_at(h, 26), u16_at(h, 24)),
            flags: u64_at(h, 40),
            offset: off,
            stored,
            compressed_size: u32_at(h, 16),
            uncompressed_size: u64_at(h, 56),
        });
        off += header_size as usize + stored_size as usize;
    }
    Ok((entries, total))
}

/// The entries of every fatbin in `bytes` (a file or a section may hold
/// several back to back, each 8-byte aligned; zero padding between them
/// and after the last is skipped).
pub fn parse_all(bytes: &[u8]) -> Result<Vec<Entry<'_>>, FatbinError> {
    let mut entries = Vec::new();
    let mut off = 0;
    loop {
        let (mut e, size) = parse(&bytes[off..])?;
        for x in &mut e {
            x.offset += off;
        }
        entries.append(&mut e);
        off += size;
        while off < bytes.len() && bytes[off] == 0 {
            off += 1;
        }
        if off >= bytes.len() {
            return Ok(entries);
        }
    }
}

/// Why no PTX entry fits a device, with what the fatbin holds instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoPtx {
    /// The device's compute capability.
    pub cc: (i32, i32),
    /// The names of the PTX entries (none fit) and of the machine code.
    pub ptx: Vec<String>,
    pub machine_code: Vec<String>,
}

impl NoPtx {
    /// The explanation, naming the nvcc flags that embed PTX the device runs.
    pub fn message(&self) -> String {
        let (maj, min) = self.cc;
        let embed = format!("rebuild with nvcc -arch=sm_{maj}{min} (which embeds compute_{maj}{min} PTX beside the sm_{maj}{min} code) or add -gencode arch=compute_{maj}{min},code=compute_{maj}{min}");
        if !self.ptx.is_empty() {
            format!(
                "the fatbin's PTX ({}) does not run on the device's compute capability {maj}.{min}: {embed}, or set PTXSIM_CC to a capability it runs on",
                self.ptx.join(", ")
            )
        } else if !self.machine_code.is_empty() {
            format!("the fatbin holds machine code only ({}) and no PTX; ptxsim runs PTX: {embed}", self.machine_code.join(", "))
        } else {
            format!("the fatbin holds no PTX: {embed}")
        }
    }
}

/// The PTX entry to run on a device of compute capability `cc`: the newest
/// arch that runs there; on a tie the most specific one, arch-specific
/// (`90a`) before family-specific (`100f`) before the plain arch. nvcc
/// 13.5's `-arch=sm_90a` embeds compute_90 PTX beside the sm_90a machine
/// code and the compute_90a PTX; a GPU of 9.0 runs the sm_90a code, which
/// is the compute_90a PTX's (compiled with `__CUDA_ARCH_FEAT_SM90_ALL`:
/// CUTLASS's wgmma paths), so that is the PTX to run.
pub fn select_ptx<'e, 'a>(entries: &'e [Entry<'a>], cc: (i32, i32)) -> Result<&'e Entry<'a>, NoPtx> {
    let specificity = |e: &Entry| {
        if e.flags & FLAG_ARCH_SPECIFIC != 0 {
            2
        } else if e.flags & FLAG_FAMILY_SPECIFIC != 0 {
            1
        } else {
            0
        }
    };
    entries.iter().filter(|e| e.kind == KIND_PTX && e.runs_on(cc)).max_by_key(|e| (e.arch, specificity(e))).ok_or_else(|| NoPtx {
        cc,
        ptx: entries.iter().filter(|e| e.kind == KIND_PTX).map(Entry::name).collect(),
        machine_code: entries.iter().filter(|e| e.kind == KIND_ELF).map(Entry::name).collect(),
    })
}

/// What an image handed to the driver is, by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageKind {
    Wrapper,
    Fatbin,
    Elf,
    /// Anything else: PTX text, or garbage the PTX loader refuses.
    Other,
}

/// The kind of an image by its first (up to) four bytes.
pub fn image_kind(head: &[u8]) -> ImageKind {
    if head.len() < 4 {
        return ImageKind::Other;
    }
    let magic = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
    if magic == WRAPPER_MAGIC {
        ImageKind::Wrapper
    } else if magic == FATBIN_MAGIC {
        ImageKind::Fatbin
    } else if head[..4] == ELF_MAGIC {
        ImageKind::Elf
    } else {
        ImageKind::Other
    }
}

/// The fatbin pointer of a wrapper's first [`WRAPPER_BYTES`] bytes.
pub fn wrapper_data(wrapper: &[u8]) -> Result<u64, FatbinError> {
    let w = take(wrapper, 0, WRAPPER_BYTES as u64, "the fatbin wrapper")?;
    let magic = u32_at(w, 0);
    if magic != WRAPPER_MAGIC {
        return Err(FatbinError::BadMagic(magic));
    }
    let version = u32_at(w, 4);
    if !(1..=2).contains(&version) {
        return Err(FatbinError::WrapperVersion(version));
    }
    match u64_at(w, 8) {
        0 => Err(FatbinError::NullData),
        p => Ok(p),
    }
}

/// The bytes of the fatbin at `p`, given as a bare pointer: its header
/// read first, the rest bounded by the header's sizes.
///
/// # Safety
/// `p` is non-null and points to a fatbin header, followed by as many
/// readable bytes as that header declares (when it is well-formed).
pub unsafe fn fatbin_at<'a>(p: *const u8) -> Result<&'a [u8], FatbinError> {
    let header = std::slice::from_raw_parts(p, FATBIN_HEADER_BYTES);
    let total = declared_size(header)?;
    Ok(std::slice::from_raw_parts(p, total))
}

/// The bytes of the fatbin an image pointer names: a fatbin, or a wrapper
/// pointing to one (followed once).
///
/// # Safety
/// `p` is non-null; a wrapper's magic is followed by the rest of a wrapper,
/// and a fatbin's (here or through the wrapper) by the rest of a fatbin.
pub unsafe fn image_fatbin<'a>(p: *const u8) -> Result<&'a [u8], FatbinError> {
    let head = std::slice::from_raw_parts(p, 4);
    match image_kind(head) {
        ImageKind::Wrapper => {
            let data = wrapper_data(std::slice::from_raw_parts(p, WRAPPER_BYTES))?;
            fatbin_at(data as usize as *const u8)
        }
        _ => fatbin_at(p),
    }
}

#[cfg(test)]
mod tests {
    //! Hand-made fatbins for the bounds checks; real nvcc output is read in
    //! `tests/fatbin.rs`.
    use super::*;

    /// An entry: header of `hs` bytes, then `payload` padded to 8.
    fn entry(kind: u16, arch: u32, flags: u64, payload: &[u8], compressed: u32, uncompressed: u64) -> Vec<u8> {
        let padded = payload.len().div_ceil(8) * 8;
        let mut h = vec![0u8; 64];
        h[0..2].copy_from_slice(&kind.to_le_bytes());
        h[2..4].copy_from_slice(&0x0101u16.to_le_bytes());
        h[4..8].copy_from_slice(&64u32.to_le_bytes());
        h[8..16].copy_from_slice(&(padded as u64).to_le_bytes());
        h[16..20].copy_from_slice(&compressed.to_le_bytes());
        h[28..32].copy_from_slice(&arch.to_le_bytes());
        h[40..48].copy_from_slice(&flags.to_le_bytes());
        h[56..64].copy_from_slice(&uncompressed.to_le_bytes());
        h.extend_from_slice(payload);
        h.resize(64 + padded, 0);
        h
    }

    fn fatbin(entries: &[Vec<u8>]) -> Vec<u8> {
        let body: Vec<u8> = entries.concat();
        let mut f = Vec::new();
        f.extend_from_slice(&FATBIN_MAGIC.to_le_bytes());
        f.extend_from_slice(&1u16.to_le_bytes());
        f.extend_from_slice(&16u16.to_le_bytes());
        f.extend_from_slice(&(body.len() as u64).to_le_bytes());
        f.extend_from_slice(&body);
        f
    }

    const PTX: &[u8] = b".version 7.0\n.target sm_80\n.address_size 64\n\0";

    #[test]
    fn picks_the_newest_ptx_that_runs() {
        let f = fatbin(&[
            entry(KIND_PTX, 75, 0x11, PTX, 0, 0),
            entry(KIND_PTX, 86, 0x11, PTX, 0, 0),
            entry(KIND_PTX, 80, 0x11, PTX, 0, 0),
            entry(KIND_ELF, 80, 0x11, b"\x7fELF", 0, 0),
        ]);
        let e = parse_all(&f).unwrap();
        assert_eq!(e.len(), 4);
        assert_eq!(select_ptx(&e, (8, 0)).unwrap().arch, 80);
        assert_eq!(select_ptx(&e, (8, 6)).unwrap().arch, 86);
        assert_eq!(select_ptx(&e, (9, 0)).unwrap().arch, 86);
        assert_eq!(select_ptx(&e, (7, 5)).unwrap().arch, 75);
        let no = select_ptx(&e, (7, 0)).unwrap_err();
        assert_eq!(no.ptx, ["compute_75", "compute_86", "compute_80"]);
        assert!(no.message().contains("-gencode arch=compute_70,code=compute_70"), "{}", no.message());
        assert_eq!(select_ptx(&e, (7, 5)).unwrap().ptx().unwrap(), std::str::from_utf8(&PTX[..PTX.len() - 1]).unwrap());
    }

    #[test]
    fn arch_and_family_specific_entries() {
        let f = fatbin(&[entry(KIND_PTX, 90, 0x11 | FLAG_ARCH_SPECIFIC, PTX, 0, 0), entry(KIND_PTX, 100, 0x11 | FLAG_FAMILY_SPECIFIC, PTX, 0, 0)]);
        let e = parse_all(&f).unwrap();
        assert_eq!(e[0].name(), "compute_90a");
        assert_eq!(e[1].name(), "compute_100f");
        assert!(select_ptx(&e, (8, 0)).is_err());
        assert_eq!(select_ptx(&e, (9, 0)).unwrap().arch, 90);
        assert_eq!(select_ptx(&e, (10, 3)).unwrap().arch, 100);
        assert!(select_ptx(&e, (9, 1)).is_err());
        assert!(select_ptx(&e, (12, 0)).is_err());
    }

    /// Entries of the same arch (nvcc 13.5's `-arch=sm_90a` embeds compute_90
    /// and compute_90a PTX): the arch-specific one where it runs, in either
    /// order; elsewhere the plain one; family-specific before plain.
    #[test]
    fn on_a_tie_the_most_specific_entry() {
        let plain = entry(KIND_PTX, 90, 0x11, PTX, 0, 0);
        let arch = entry(KIND_PTX, 90, 0x11 | FLAG_ARCH_SPECIFIC, PTX, 0, 0);
        for f in [fatbin(&[plain.clone(), arch.clone()]), fatbin(&[arch, plain])] {
            let e = parse_all(&f).unwrap();
            assert_eq!(select_ptx(&e, (9, 0)).unwrap().name(), "compute_90a");
            assert_eq!(select_ptx(&e, (10, 0)).unwrap().name(), "compute_90");
        }
        let f = fatbin(&[entry(KIND_PTX, 100, 0x11, PTX, 0, 0), entry(KIND_PTX, 100, 0x11 | FLAG_FAMILY_SPECIFIC, PTX, 0, 0), entry(KIND_PTX, 100, 0x11 | FLAG_ARCH_SPECIFIC, PTX, 0, 0)]);
        let e = parse_all(&f).unwrap();
        assert_eq!(select_ptx(&e, (10, 0)).unwrap().name(), "compute_100a");
        assert_eq!(select_ptx(&e, (10, 3)).unwrap().name(), "compute_100f");
    }

    #[test]
    fn machine_code_only_names_the_flag() {
        let f = fatbin(&[entry(KIND_ELF, 80, 0x11, b"\x7fELF", 0, 0)]);
        let e = parse_all(&f).unwrap();
        let no = select_ptx(&e, (8, 0)).unwrap_err();
        assert_eq!(no.machine_code, ["sm_80"]);
        let m = no.message();
        assert!(m.contains("machine code only (sm_80)") && m.contains("-arch=sm_80") && m.contains("-gencode arch=compute_80,code=compute_80"), "{m}");
    }

    #[test]
    fn every_truncation_is_an_error() {
        let f = fatbin(&[entry(KIND_PTX, 80, 0x11, PTX, 0, 0)]);
        for n in 0..f.len() {
            assert!(parse_all(&f[..n]).is_err(), "a fatbin cut to {n} bytes parsed");
        }
        assert!(parse_all(&f).is_ok());
    }

    #[test]
    fn bad_headers_and_sizes() {
        let mut f = fatbin(&[entry(KIND_PTX, 80, 0x11, PTX, 0, 0)]);
        f[0] ^= 1;
        assert!(matches!(parse_all(&f), Err(FatbinError::BadMagic(_))));
        f[0] ^= 1;
        let mut g = f.clone();
        g[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(matches!(parse_all(&g), Err(FatbinError::BadSize { what: "entries", .. })));
        let mut g = f.clone();
        g[6] = 4;
        assert!(matches!(parse_all(&g), Err(FatbinError::BadSize { what: "header", .. })));
        let mut g = f.clone();
        g[16 + 4..16 + 8].copy_from_slice(&8u32.to_le_bytes());
        assert!(matches!(parse_all(&g), Err(FatbinError::BadSize { what: "entry header", .. })));
        let mut g = f.clone();
        g[16 + 8..16 + 16].copy_from_slice(&(1u64 << 40).to_le_bytes());
        assert!(matches!(parse_all(&g), Err(FatbinError::Truncated { .. })));
        let mut g = f.clone();
        g[4] = 2;
        assert!(matches!(parse_all(&g), Err(FatbinError::Version(2))));
    }

    #[test]
    fn compressed_payloads_are_checked() {
        let text = b".version 7.0\n.target sm_80\n.address_size 64\n// padding padding padding padding\n\0\0\0";
        let lz = lz4_flex::block::compress(text);
        let good = fatbin(&[entry(KIND_PTX, 80, 0x11 | FLAG_LZ4, &lz, lz.len() as u32, text.len() as u64)]);
        let e = parse_all(&good).unwrap();
        assert_eq!(e[0].payload().unwrap().as_ref(), text);
        // A wrong declared size, a compressed size past the payload, garbage.
        let short = fatbin(&[entry(KIND_PTX, 80, 0x11 | FLAG_LZ4, &lz, lz.len() as u32, text.len() as u64 - 1)]);
        assert!(matches!(parse_all(&short).unwrap()[0].payload(), Err(FatbinError::Decompress { .. })));
        let past = fatbin(&[entry(KIND_PTX, 80, 0x11 | FLAG_LZ4, &lz, 4096, text.len() as u64)]);
        assert!(matches!(parse_all(&past).unwrap()[0].payload(), Err(FatbinError::Decompress { .. })));
        let junk = [0xffu8; 40];
        for flag in [FLAG_LZ4, FLAG_ZSTD] {
            let bad = fatbin(&[entry(KIND_PTX, 80, 0x11 | flag, &junk, 40, 1000)]);
            assert!(matches!(parse_all(&bad).unwrap()[0].payload(), Err(FatbinError::Decompress { .. })));
        }
        let huge = fatbin(&[entry(KIND_PTX, 80, 0x11 | FLAG_ZSTD, &junk, 40, MAX_PAYLOAD_BYTES + 1)]);
        assert!(matches!(parse_all(&huge).unwrap()[0].payload(), Err(FatbinError::Decompress { .. })));
        let unknown = fatbin(&[entry(KIND_PTX, 80, 0x11 | 0x1000, &junk, 40, 1000)]);
        assert!(matches!(parse_all(&unknown).unwrap()[0].payload(), Err(FatbinError::UnknownCompression { .. })));
    }

    #[test]
    fn wrapper_is_followed_once() {
        let f = fatbin(&[entry(KIND_PTX, 80, 0x11, PTX, 0, 0)]);
        let mut w = Vec::new();
        w.extend_from_slice(&WRAPPER_MAGIC.to_le_bytes());
        w.extend_from_slice(&1u32.to_le_bytes());
        w.extend_from_slice(&(f.as_ptr() as u64).to_le_bytes());
        w.extend_from_slice(&0u64.to_le_bytes());
        assert_eq!(image_kind(&w), ImageKind::Wrapper);
        let got = unsafe { image_fatbin(w.as_ptr()) }.unwrap();
        assert_eq!(got, &f[..]);
        w[4] = 7;
        assert_eq!(unsafe { image_fatbin(w.as_ptr()) }.unwrap_err(), FatbinError::WrapperVersion(7));
        w[4] = 1;
        w[8..16].fill(0);
        assert_eq!(unsafe { image_fatbin(w.as_ptr()) }.unwrap_err(), FatbinError::NullData);
    }
}

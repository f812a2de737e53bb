//! Reading and writing NumPy `.npy` files (format versions 1.0 to 3.0) for
//! `ptxsim run`, with every size checked before data is read.
//!
//! Reading: the header is read with a bound (at most [`MAX_HEADER`] bytes),
//! its `descr` must be the buffer's element type, `shape` must hold exactly
//! the buffer's element count, and the file must hold exactly that many
//! bytes after the header: a shorter file is reported as truncated, a longer
//! one as having trailing data, before the data is read. `fortran_order:
//! True` arrays are reordered to C order (the order a kernel indexes).
//! Big-endian data is byte-swapped. Writing: a version 1.0 header and the
//! little-endian bytes, streamed.

use std::io::{Read, Write};
use std::path::Path;

/// Longest header accepted (NumPy writes a few hundred bytes at most).
pub const MAX_HEADER: usize = 1 << 16;

/// The parsed header of a `.npy` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// `descr` as written, for instance `<f4`.
    pub descr: String,
    pub fortran_order: bool,
    pub shape: Vec<u64>,
    /// Bytes before the data (magic, version, length and header text).
    pub data_offset: u64,
}

impl Header {
    /// Elements the shape holds (`None` on overflow).
    pub fn elements(&self) -> Option<u64> {
        self.shape.iter().try_fold(1u64, |n, &d| n.checked_mul(d))
    }
}

/// Reads and parses the header from `r`.
pub fn read_header(r: &mut impl Read) -> Result<Header, String> {
    let mut pre = [0u8; 8];
    r.read_exact(&mut pre).map_err(|_| "truncated: shorter than a .npy header".to_string())?;
    if &pre[..6] != b"\x93NUMPY" {
        return Err("not a .npy file (no \\x93NUMPY magic)".into());
    }
    let (len, lenbytes) = match pre[6] {
        1 => {
            let mut b = [0u8; 2];
            r.read_exact(&mut b).map_err(|_| "truncated in the header".to_string())?;
            (u16::from_le_bytes(b) as usize, 2)
        }
        2 | 3 => {
            let mut b = [0u8; 4];
            r.read_exact(&mut b).map_err(|_| "truncated in the header".to_string())?;
            (u32::from_le_bytes(b) as usize, 4)
        }
        v => return Err(format!(".npy format version {v}.{} is not supported (1.0 to 3.0)", pre[7])),
    };
    if len > MAX_HEADER {
        return Err(format!("the .npy header claims {len} bytes, more than the {MAX_HEADER} accepted"));
    }
    let mut text = vec![0u8; len];
    r.read_exact(&mut text).map_err(|_| "truncated in the header".to_string())?;
    let text = String::from_utf8_lossy(&text);
    let descr = dict_str(&text, "descr").ok_or("the .npy header has no 'descr'")?;
    let fortran_order = match dict_raw(&text, "fortran_order").map(str::trim) {
        Some(v) if v.starts_with("True") => true,
        Some(v) if v.starts_with("False") => false,
        _ => return Err("the .npy header has no valid 'fortran_order'".into()),
    };
    let shape_txt = dict_raw(&text, "shape").ok_or("the .npy header has no 'shape'")?;
    let shape_txt = shape_txt.trim_start();
    let inner = shape_txt.strip_prefix('(').and_then(|s| s.split_once(')')).map(|(a, _)| a).ok_or("the .npy 'shape' is not a tuple")?;
    let mut shape = Vec::new();
    for part in inner.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let d: u64 = part.trim_end_matches('L').parse().map_err(|_| format!("the .npy 'shape' has a bad dimension `{part}`"))?;
        shape.push(d);
    }
    Ok(Header { descr, fortran_order, shape, data_offset: (8 + lenbytes + len) as u64 })
}

/// The text after `'key':` in a Python dict literal.
fn dict_raw<'t>(text: &'t str, key: &str) -> Option<&'t str> {
    for q in ['\'', '"'] {
        let pat = format!("{q}{key}{q}");
        if let Some(i) = text.find(&pat) {
            let rest = &text[i + pat.len()..];
            return rest.trim_start().strip_prefix(':');
        }
    }
    None
}

/// A string value `'key': 'value'` of a Python dict literal.
fn dict_str(text: &str, key: &str) -> Option<String> {
    let v = dict_raw(text, key)?.trim_start();
    let q = v.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let body = &v[1..];
    body.find(q).map(|end| body[..end].to_string())
}

/// The `descr` of an element type: kind `u`, `i`, `f` and size in bytes.
/// `b`-typed (untyped) buffers accept the unsigned kind.
pub fn descr_matches(descr: &str, kind: char, size: usize) -> bool {
    let d = descr.trim_start_matches(['<', '>', '|', '=']);
    let mut c = d.chars();
    let k = c.next();
    let n: Option<usize> = c.as_str().parse().ok();
    n == Some(size) && (k == Some(kind) || (kind == 'u' && k == Some('b') && size == 1))
}

/// Whether the data of `descr` is big-endian (and needs swapping).
pub fn big_endian(descr: &str) -> bool {
    descr.starts_with('>')
}

/// Reads the data of a `.npy` file of `elems` elements of `size` bytes:
/// checks the header against them and the file's length against the header
/// before reading, then reads exactly the data, reordered to C order and
/// made little-endian. `kind` is the NumPy kind the buffer's type needs.
pub fn read(path: &Path, kind: char, size: usize, elems: u64, type_name: &str) -> Result<Vec<u8>, String> {
    let f = std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let file_len = f.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
    let mut r = std::io::BufReader::new(f);
    let h = read_header(&mut r).map_err(|e| format!("{}: {e}", path.display()))?;
    if !descr_matches(&h.descr, kind, size) {
        return Err(format!("{}: the array's dtype is '{}', not {type_name} (expected '<{kind}{size}')", path.display(), h.descr));
    }
    let n = h.elements().ok_or_else(|| format!("{}: the shape {:?} overflows", path.display(), h.shape))?;
    if n != elems {
        return Err(format!("{}: holds {n} elements (shape {:?}), not {elems}", path.display(), h.shape));
    }
    let data = elems * size as u64;
    if let Some(len) = file_len {
        let have = len.saturating_sub(h.data_offset);
        if have < data {
            return Err(format!("{}: truncated: the header says {n} elements ({data} bytes), but only {have} bytes follow it", path.display()));
        }
        if have > data {
            return Err(format!("{}: {} bytes of trailing data after the {n} elements", path.display(), have - data));
        }
    }
    let mut bytes = Vec::with_capacity(data as usize);
    (&mut r).take(data + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if (bytes.len() as u64) < data {
        return Err(format!("{}: truncated: the header says {n} elements ({data} bytes), but only {} bytes follow it", path.display(), bytes.len()));
    }
    if bytes.len() as u64 > data {
        return Err(format!("{}: trailing data after the {n} elements", path.display()));
    }
    if big_endian(&h.descr) && size > 1 {
        for c in bytes.chunks_exact_mut(size) {
            c.reverse();
        }
    }
    if h.fortran_order && h.shape.iter().filter(|&&d| d > 1).count() > 1 {
        bytes = fortran_to_c(&bytes, &h.shape, size);
    }
    Ok(bytes)
}

/// Reorders a column-major (Fortran) array of `shape` to row-major (C).
pub fn fortran_to_c(data: &[u8], shape: &[u64], size: usize) -> Vec<u8> {
    let nd = shape.len();
    // Fortran strides, in elements.
    let mut fstride = vec![1u64; nd];
    for i in 1..nd {
        fstride[i] = fstride[i - 1] * shape[i - 1];
    }
    let n: u64 = shape.iter().product();
    let mut out = Vec::with_capacity(data.len());
    let mut idx = vec![0u64; nd];
    for _ in 0..n {
        let off: u64 = idx.iter().zip(&fstride).map(|(i, s)| i * s).sum();
        let o = off as usize * size;
        out.extend_from_slice(&data[o..o + size]);
        // Next C-order index: the last dimension fastest.
        for d in (0..nd).rev() {
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    out
}

/// Writes a 1-D `.npy` file of little-endian elements.
pub fn write(path: &Path, descr: &str, size: usize, bytes: &[u8]) -> std::io::Result<()> {
    let n = bytes.len() / size.max(1);
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({n},), }}");
    // Magic (6) + version (2) + length (2) + dict + newline, padded to 64.
    let unpadded = 10 + dict.len() + 1;
    dict.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    dict.push('\n');
    let mut w = std::io::BufWriter::new(std::fs::File::create(path)?);
    w.write_all(b"\x93NUMPY\x01\x00")?;
    w.write_all(&(dict.len() as u16).to_le_bytes())?;
    w.write_all(dict.as_bytes())?;
    w.write_all(bytes)?;
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fortran_2x3_reorders_to_c() {
        // C order [[0,1,2],[3,4,5]] stored in Fortran order: 0,3,1,4,2,5.
        let f: Vec<u8> = vec![0, 3, 1, 4, 2, 5];
        assert_eq!(fortran_to_c(&f, &[2, 3], 1), vec![0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn header_fields() {
        let dict = "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }";
        let mut v = b"\x93NUMPY\x01\x00".to_vec();
        v.extend_from_slice(&(dict.len() as u16).to_le_bytes());
        v.extend_from_slice(dict.as_bytes());
        let h = read_header(&mut &v[..]).expect("header");
        assert_eq!(h.descr, "<f4");
        assert!(h.fortran_order);
        assert_eq!(h.shape, vec![2, 3]);
        assert_eq!(h.data_offset, 10 + dict.len() as u64);
        assert!(descr_matches("<f4", 'f', 4));
        assert!(!descr_matches("<u4", 'f', 4));
        assert!(descr_matches("|u1", 'u', 1));
    }
}

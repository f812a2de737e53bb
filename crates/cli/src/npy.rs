//! Reading and writing NumPy `.npy` files (format versions 1.0 to 3.0) for
//! `ptxsim run`, with every size checked before data is read.
//!
//! Reading: the header is read with a bound (at most [`MAX_HEADER`] bytes)
//! and parsed as the Python dict literal the format defines: exactly the
//! keys `descr`, `fortran_order` and `shape`, each once (NumPy rejects a
//! header with other keys; a key given twice, which `ast.literal_eval`
//! would silently take the last of, is an error here), a `descr` string
//! whose size is ASCII digits, a `True`/`False` order and a tuple of
//! whole numbers for the shape. The `descr` must be the buffer's element
//! type, `shape` must hold exactly the buffer's element count, and the file
//! must hold exactly that many bytes after the header: a shorter file is
//! reported as truncated, a longer one as having trailing data, before the
//! data is read. `fortran_order: True` arrays are reordered to C order (the
//! order a kernel indexes) in one pass whose cost is the element count plus
//! the number of dimensions ([`reorder`]). Big-endian data is byte-swapped.
//! Writing: a version 1.0 header and the little-endian bytes, streamed.

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

    /// The shape to reorder a Fortran-order array by, when the data is not
    /// already in C order: the dimensions other than 1 (a dimension of size
    /// 1 changes neither order), when two or more remain.
    pub fn fortran_shape(&self) -> Option<Vec<u64>> {
        let dims: Vec<u64> = self.shape.iter().copied().filter(|&d| d != 1).collect();
        (self.fortran_order && dims.len() > 1 && !dims.contains(&0)).then_some(dims)
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
    let (mut descr, mut fortran_order, mut shape) = (None, None, None);
    for (key, value) in parse_dict(&text)? {
        let slot_taken = match (key.as_str(), value) {
            ("descr", Value::Str(s)) => descr.replace(s).is_some(),
            ("fortran_order", Value::Bool(b)) => fortran_order.replace(b).is_some(),
            ("shape", Value::Tuple(t)) => shape.replace(t).is_some(),
            ("descr", _) => return Err("the .npy 'descr' is not a string (only simple dtypes are read)".into()),
            ("fortran_order", _) => return Err("the .npy header has no valid 'fortran_order' (True or False)".into()),
            ("shape", _) => return Err("the .npy 'shape' is not a tuple".into()),
            (k, _) => return Err(format!("the .npy header has the key '{}', which the format does not define (only 'descr', 'fortran_order' and 'shape')", crate::common::cut(k))),
        };
        if slot_taken {
            return Err(format!("the .npy header gives the key '{key}' twice"));
        }
    }
    let descr = descr.ok_or("the .npy header has no 'descr'")?;
    let fortran_order = fortran_order.ok_or("the .npy header has no valid 'fortran_order'")?;
    let shape = shape.ok_or("the .npy header has no 'shape'")?;
    Ok(Header { descr, fortran_order, shape, data_offset: (8 + lenbytes + len) as u64 })
}

/// A value of the header's dict.
enum Value {
    Str(String),
    Bool(bool),
    Tuple(Vec<u64>),
}

/// Parses the header's Python dict literal: `{'key': value, ...}` with an
/// optional trailing comma, then only whitespace (NumPy pads the header
/// with spaces and ends it with a newline). Keys are strings; values are
/// strings, `True`/`False`, or tuples of whole numbers (a one-element
/// tuple has its comma, as in Python: `(3)` is a number).
fn parse_dict(text: &str) -> Result<Vec<(String, Value)>, String> {
    let bad = || "the .npy header is not a Python dict literal".to_string();
    let mut p = Parser { s: text.as_bytes(), i: 0 };
    p.ws();
    if !p.eat(b'{') {
        return Err(bad());
    }
    let mut out = Vec::new();
    loop {
        p.ws();
        if p.eat(b'}') {
            break;
        }
        let key = p.string().ok_or_else(bad)?;
        p.ws();
        if !p.eat(b':') {
            return Err(bad());
        }
        p.ws();
        let value = if let Some(s) = p.string() {
            Value::Str(s)
        } else if p.word(b"True") {
            Value::Bool(true)
        } else if p.word(b"False") {
            Value::Bool(false)
        } else if p.eat(b'(') {
            Value::Tuple(p.tuple()?)
        } else {
            return Err(format!("the .npy header's value for '{}' is not a string, True, False or a tuple", crate::common::cut(&key)));
        };
        out.push((key, value));
        p.ws();
        if p.eat(b'}') {
            break;
        }
        if !p.eat(b',') {
            return Err(bad());
        }
    }
    p.ws();
    if p.i != p.s.len() {
        return Err("the .npy header has text after its dict".into());
    }
    Ok(out)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.s.get(self.i).is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        let hit = self.s.get(self.i) == Some(&c);
        self.i += hit as usize;
        hit
    }

    /// A keyword not followed by a name character.
    fn word(&mut self, w: &[u8]) -> bool {
        let hit = self.s[self.i..].starts_with(w) && !self.s.get(self.i + w.len()).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_');
        if hit {
            self.i += w.len();
        }
        hit
    }

    /// A quoted string without escapes (a backslash is refused).
    fn string(&mut self) -> Option<String> {
        let q = *self.s.get(self.i).filter(|c| **c == b'\'' || **c == b'"')?;
        let body = &self.s[self.i + 1..];
        let end = body.iter().position(|&c| c == q || c == b'\\' || c == b'\n')?;
        if body[end] != q {
            return None;
        }
        self.i += end + 2;
        Some(String::from_utf8_lossy(&body[..end]).into_owned())
    }

    /// The rest of a tuple of whole numbers after its `(`.
    fn tuple(&mut self) -> Result<Vec<u64>, String> {
        let mut v = Vec::new();
        let mut comma = false;
        loop {
            self.ws();
            if self.eat(b')') {
                break;
            }
            let start = self.i;
            while self.s.get(self.i).is_some_and(u8::is_ascii_digit) {
                self.i += 1;
            }
            let digits = &self.s[start..self.i];
            // Python 2's NumPy wrote long integers as `3L`.
            self.eat(b'L');
            let d = std::str::from_utf8(digits).ok().filter(|d| !d.is_empty()).and_then(|d| d.parse::<u64>().ok());
            let Some(d) = d else {
                let mut end = self.i;
                while self.s.get(end).is_some_and(|c| !matches!(c, b',' | b')')) && end - start < 64 {
                    end += 1;
                }
                return Err(format!("the .npy 'shape' has a bad dimension `{}`", String::from_utf8_lossy(&self.s[start..end]).trim()));
            };
            v.push(d);
            self.ws();
            comma = self.eat(b',');
            if !comma {
                self.ws();
                if self.eat(b')') {
                    break;
                }
                return Err("the .npy 'shape' is not a tuple".into());
            }
        }
        if v.len() == 1 && !comma {
            return Err("the .npy 'shape' is not a tuple (a one-element tuple is written `(N,)`)".into());
        }
        Ok(v)
    }
}

/// The `descr` of an element type: kind `u`, `i`, `f` and size in bytes.
/// `b`-typed (untyped) buffers accept the unsigned kind. The byte-order
/// character (`<`, `>`, `|` or `=`) is optional and single, and the size
/// is ASCII digits only.
pub fn descr_matches(descr: &str, kind: char, size: usize) -> bool {
    let d = descr.strip_prefix(['<', '>', '|', '=']).unwrap_or(descr);
    let mut c = d.chars();
    let k = c.next();
    let digits = c.as_str();
    let n: Option<usize> = if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) { digits.parse().ok() } else { None };
    n == Some(size) && (k == Some(kind) || (kind == 'u' && k == Some('b') && size == 1))
}

/// Whether the data of `descr` is big-endian (and needs swapping).
pub fn big_endian(descr: &str) -> bool {
    descr.starts_with('>')
}

/// A `.npy` file checked against the buffer it fills.
pub enum Opened {
    /// A regular file: its header, and the file to read the data from (at
    /// `header.data_offset`) when the buffer is filled.
    File { file: std::fs::File, header: Header },
    /// A file without a size (a pipe, a device): its data, read at once
    /// with a bound, in C order and little-endian.
    Bytes(Vec<u8>),
}

/// Opens a `.npy` file for a buffer of `elems` elements of `size` bytes:
/// checks the header against them and, for a regular file, the file's
/// length against the header, without reading the data. A file without a
/// size is read at once, at most one byte past the data. `kind` is the
/// NumPy kind the buffer's type needs.
pub fn open(path: &Path, kind: char, size: usize, elems: u64, type_name: &str) -> Result<Opened, String> {
    let shown = crate::common::cut(&path.display().to_string());
    let f = std::fs::File::open(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    let file_len = f.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
    let mut r = std::io::BufReader::new(f);
    let h = read_header(&mut r).map_err(|e| format!("{shown}: {e}"))?;
    if !descr_matches(&h.descr, kind, size) {
        return Err(format!("{shown}: the array's dtype is '{}', not {type_name} (expected '<{kind}{size}')", crate::common::cut(&h.descr)));
    }
    let shape = || crate::common::cut(&format!("{:?}", h.shape));
    let n = h.elements().ok_or_else(|| format!("{shown}: the shape {} overflows", shape()))?;
    if n != elems {
        return Err(format!("{shown}: holds {n} elements (shape {}), not {elems}", shape()));
    }
    let data = elems * size as u64;
    if let Some(len) = file_len {
        let have = len.saturating_sub(h.data_offset);
        if have < data {
            return Err(format!("{shown}: truncated: the header says {n} elements ({data} bytes), but only {have} bytes follow it"));
        }
        if have > data {
            return Err(format!("{shown}: {} bytes of trailing data after the {n} elements", have - data));
        }
        return Ok(Opened::File { file: r.into_inner(), header: h });
    }
    let mut bytes = Vec::with_capacity(data.min(1 << 20) as usize);
    (&mut r).take(data + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read {shown}: {e}"))?;
    if (bytes.len() as u64) < data {
        return Err(format!("{shown}: truncated: the header says {n} elements ({data} bytes), but only {} bytes follow it", bytes.len()));
    }
    if bytes.len() as u64 > data {
        return Err(format!("{shown}: trailing data after the {n} elements"));
    }
    if big_endian(&h.descr) && size > 1 {
        swap(&mut bytes, size);
    }
    if let Some(shape) = h.fortran_shape() {
        bytes = fortran_to_c(&bytes, &shape, size);
    }
    Ok(Opened::Bytes(bytes))
}

/// Reverses the bytes of each `size`-byte element (big- to little-endian).
pub fn swap(bytes: &mut [u8], size: usize) {
    for c in bytes.chunks_exact_mut(size.max(1)) {
        c.reverse();
    }
}

/// Streams a column-major (Fortran) array of `shape` in row-major (C)
/// order to `sink`, in pieces of at most `chunk` bytes (one element at
/// least). One pass that steps the source offset as the C index advances
/// (the last dimension fastest) instead of recomputing it, so the cost is
/// the element count plus the dimensions, whatever the shape; pass the
/// dimensions other than 1 ([`Header::fortran_shape`]) to keep the
/// dimensions few. `data` holds the whole array; elements it lacks are
/// not produced.
pub fn reorder<E>(data: &[u8], shape: &[u64], size: usize, chunk: usize, sink: &mut dyn FnMut(&[u8]) -> Result<(), E>) -> Result<(), E> {
    let nd = shape.len();
    let Some(n) = shape.iter().try_fold(1u64, |n, &d| n.checked_mul(d)) else { return Ok(()) };
    if n == 0 || size == 0 {
        return Ok(());
    }
    // Fortran strides, in elements: the first dimension fastest.
    let mut fstride = Vec::with_capacity(nd);
    let mut acc = 1u64;
    for &d in shape {
        fstride.push(acc);
        acc = acc.saturating_mul(d);
    }
    let per = (chunk / size).max(1) * size;
    let mut buf = Vec::with_capacity(per.min(data.len()));
    let mut idx = vec![0u64; nd];
    let mut off = 0u64;
    for _ in 0..n {
        let Some(e) = usize::try_from(off).ok().and_then(|o| data.get(o * size..o * size + size)) else { break };
        buf.extend_from_slice(e);
        if buf.len() >= per {
            sink(&buf)?;
            buf.clear();
        }
        // The next C-order index and its Fortran offset.
        let mut d = nd;
        while d > 0 {
            d -= 1;
            idx[d] += 1;
            off += fstride[d];
            if idx[d] < shape[d] {
                break;
            }
            off -= shape[d] * fstride[d];
            idx[d] = 0;
        }
    }
    if !buf.is_empty() {
        sink(&buf)?;
    }
    Ok(())
}

/// Reorders a column-major (Fortran) array of `shape` to row-major (C).
pub fn fortran_to_c(data: &[u8], shape: &[u64], size: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let _ = reorder::<std::convert::Infallible>(data, shape, size, 1 << 20, &mut |c| {
        out.extend_from_slice(c);
        Ok(())
    });
    out
}

/// Writes the version 1.0 header of a 1-D array of `n` elements of `descr`;
/// the little-endian data follows it.
pub fn write_header(w: &mut dyn Write, descr: &str, n: u64) -> std::io::Result<()> {
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({n},), }}");
    // Magic (6) + version (2) + length (2) + dict + newline, padded to 64.
    let unpadded = 10 + dict.len() + 1;
    dict.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    dict.push('\n');
    w.write_all(b"\x93NUMPY\x01\x00")?;
    w.write_all(&(dict.len() as u16).to_le_bytes())?;
    w.write_all(dict.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(dict: &str) -> Result<Header, String> {
        let mut v = b"\x93NUMPY\x01\x00".to_vec();
        v.extend_from_slice(&(dict.len() as u16).to_le_bytes());
        v.extend_from_slice(dict.as_bytes());
        read_header(&mut &v[..])
    }

    #[test]
    fn fortran_2x3_reorders_to_c() {
        // C order [[0,1,2],[3,4,5]] stored in Fortran order: 0,3,1,4,2,5.
        let f: Vec<u8> = vec![0, 3, 1, 4, 2, 5];
        assert_eq!(fortran_to_c(&f, &[2, 3], 1), vec![0, 1, 2, 3, 4, 5]);
    }

    /// Element (i, j, k) of a C-order array of shape (2, 3, 4) is at
    /// i*12 + j*4 + k; in Fortran order at i + j*2 + k*6 (the NumPy
    /// reference's definition of the two orders).
    #[test]
    fn fortran_3d_reorders_to_c_in_small_chunks() {
        let (a, b, c) = (2usize, 3usize, 4usize);
        let mut f = vec![0u16; a * b * c];
        for i in 0..a {
            for j in 0..b {
                for k in 0..c {
                    f[i + j * a + k * a * b] = (i * b * c + j * c + k) as u16;
                }
            }
        }
        let bytes: Vec<u8> = f.iter().flat_map(|x| x.to_le_bytes()).collect();
        let mut out = Vec::new();
        let mut pieces = 0;
        reorder::<()>(&bytes, &[2, 3, 4], 2, 6, &mut |p| {
            assert!(p.len() <= 6);
            pieces += 1;
            out.extend_from_slice(p);
            Ok(())
        })
        .expect("reorder");
        let want: Vec<u8> = (0..24u16).flat_map(|x| x.to_le_bytes()).collect();
        assert_eq!(out, want);
        assert_eq!(pieces, 8);
    }

    #[test]
    fn header_fields() {
        let dict = "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }";
        let h = header(dict).expect("header");
        assert_eq!(h.descr, "<f4");
        assert!(h.fortran_order);
        assert_eq!(h.shape, vec![2, 3]);
        assert_eq!(h.data_offset, 10 + dict.len() as u64);
        assert!(descr_matches("<f4", 'f', 4));
        assert!(!descr_matches("<u4", 'f', 4));
        assert!(descr_matches("|u1", 'u', 1));
        assert_eq!(header("{\"descr\":\"<u4\",\"fortran_order\":False,\"shape\":()}  \n").map(|h| h.shape), Ok(vec![]));
        assert_eq!(header("{'descr': '<u4', 'fortran_order': False, 'shape': (7,), }").map(|h| h.shape), Ok(vec![7]));
    }

    /// The format defines the header as a dict literal with exactly the
    /// keys descr, fortran_order and shape; the dtype's size is a number.
    #[test]
    fn header_keys_and_dtype_are_read_strictly() {
        let dup = header("{'descr': '<u4', 'fortran_order': False, 'shape': (6,), 'shape': (2,), }");
        assert!(dup.as_ref().is_err_and(|e| e.contains("gives the key 'shape' twice")), "{dup:?}");
        let dup = header("{'descr': '<u4', 'descr': '<f4', 'fortran_order': False, 'shape': (6,)}");
        assert!(dup.is_err_and(|e| e.contains("'descr' twice")));
        assert!(header("{'descr': '<u4', 'fortran_order': False, 'shape': (6,), 'extra': 1}").is_err());
        assert!(header("{'descr': '<u4', 'fortran_order': False, 'shape': (6)}").is_err_and(|e| e.contains("not a tuple")));
        assert!(header("{'descr': '<u4', 'fortran_order': False, 'shape': (6,)} x").is_err());
        assert!(header("{'descr': '<u4', 'fortran_order': False, 'shape': (-6,)}").is_err_and(|e| e.contains("bad dimension `-6`")));
        for d in ["<u+4", "<u 4", "<u4 ", "<<u4", "<u", "<u-4", "<u٤"] {
            assert!(!descr_matches(d, 'u', 4), "{d}");
        }
        assert!(descr_matches("<u4", 'u', 4) && descr_matches("u4", 'u', 4) && descr_matches(">u4", 'u', 4));
    }
}

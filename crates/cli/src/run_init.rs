//! The initialisers of `ptxsim run` buffers (`--arg TYPE[N]=INIT`): each is
//! described and checked when the spec is parsed (a value list converted,
//! an input file opened and its size or `.npy` header checked) and
//! produced only when the buffer is filled, in pieces of at most [`CHUNK`]
//! bytes that go straight to device memory. So a buffer costs about one
//! copy of itself, whatever its initialiser: `zeros` writes nothing
//! (device memory starts zeroed and is committed lazily), `iota` is
//! generated a piece at a time, and a raw file or a C-order `.npy` is read
//! a piece at a time. A Fortran-order `.npy` is read whole into one host
//! copy first, since C order takes its elements from all over the file.
//! A file without a size (a pipe, `/dev/zero`) is read when the spec is
//! parsed, at most one byte past the buffer. The fill checks a deadline
//! before each piece, so `--timeout` covers argument loading too.

use crate::common::cut;
use crate::npy;
use crate::run_args::Ty;
use ptxsim_exec::RunError;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::time::Instant;

/// Largest piece of a buffer produced at a time (1 MiB, a whole number of
/// elements of every type).
pub const CHUNK: usize = 1 << 20;

/// What fills a buffer.
pub enum Init {
    /// Nothing: device memory starts zeroed.
    Zeros,
    /// Element i is i (as the element type: floats are exact up to 2^24 or
    /// 2^53, integers wrap).
    Iota,
    /// The little-endian bytes of the buffer, in full (a value list, or a
    /// file without a size, already read).
    Bytes(Vec<u8>),
    /// A regular file, checked and open, read when the buffer is filled.
    File(FileInit),
}

/// A regular input file whose size (and `.npy` header) matched the buffer.
pub struct FileInit {
    /// The name as messages show it.
    name: String,
    file: std::fs::File,
    /// Where the data starts (after a `.npy` header).
    offset: u64,
    /// Big-endian `.npy` data: each element's bytes are reversed.
    swap: bool,
    /// A Fortran-order `.npy`: the dimensions other than 1.
    fortran: Option<Vec<u64>>,
}

/// Why a fill stopped.
pub enum FillError {
    /// The deadline passed with `done` bytes of the buffer filled.
    Timeout { done: u64 },
    /// An input file no longer holds what was checked (it changed since),
    /// or cannot be read.
    Input(String),
    /// The destination refused a piece (a device write).
    Sink(Box<RunError>),
}

/// Where a fill puts each piece: `(offset in the buffer, bytes)`.
pub type Sink<'a> = dyn FnMut(u64, &[u8]) -> Result<(), RunError> + 'a;

impl Init {
    /// Describes the initialiser `rhs` of a buffer of `n` elements of `ty`,
    /// checking it: a value list is converted, a file is opened and its
    /// size or header checked (and a file without a size read). Errors
    /// say what is wrong, without the `--arg` prefix.
    pub fn parse(ty: Ty, n: u64, rhs: &str) -> Result<Init, String> {
        match rhs {
            "zeros" => Ok(Init::Zeros),
            "iota" => Ok(Init::Iota),
            r if r.starts_with('@') => open_file(ty, n, Path::new(&r[1..])),
            list => {
                let vals: Vec<&str> = if list.trim().is_empty() { Vec::new() } else { list.split(',').collect() };
                if vals.len() as u64 != n {
                    return Err(format!("{} values given for {n} elements", vals.len()));
                }
                let sz = ty.size();
                let mut bytes = Vec::with_capacity(vals.len() * sz);
                for v in vals {
                    bytes.extend_from_slice(&ty.value(v)?.to_le_bytes()[..sz]);
                }
                Ok(Init::Bytes(bytes))
            }
        }
    }

    /// Produces the `len` bytes of the buffer in order, in pieces of at
    /// most [`CHUNK`] bytes, calling `sink(offset, piece)` for each; the
    /// deadline is checked before each piece. `Zeros` produces nothing.
    pub fn fill(&self, ty: Ty, len: u64, deadline: Option<Instant>, sink: &mut Sink<'_>) -> Result<(), FillError> {
        let mut done = 0u64;
        let late = |done: u64| match deadline {
            Some(d) if Instant::now() >= d => Err(FillError::Timeout { done }),
            _ => Ok(()),
        };
        let mut put = |piece: &[u8]| -> Result<(), FillError> {
            late(done)?;
            sink(done, piece).map_err(|e| FillError::Sink(Box::new(e)))?;
            done += piece.len() as u64;
            Ok(())
        };
        let sz = ty.size();
        match self {
            Init::Zeros => Ok(()),
            Init::Iota => {
                let n = len / sz as u64;
                let per = (CHUNK / sz) as u64;
                let mut buf = Vec::with_capacity((len as usize).min(CHUNK));
                let mut i = 0u64;
                while i < n {
                    let end = n.min(i + per);
                    buf.clear();
                    for k in i..end {
                        let bits = match ty {
                            Ty::F32 => (k as f32).to_bits() as u64,
                            Ty::F64 => (k as f64).to_bits(),
                            _ => k,
                        };
                        buf.extend_from_slice(&bits.to_le_bytes()[..sz]);
                    }
                    put(&buf)?;
                    i = end;
                }
                Ok(())
            }
            Init::Bytes(b) => {
                for piece in b.chunks(CHUNK) {
                    put(piece)?;
                }
                Ok(())
            }
            Init::File(f) => f.fill(sz, len, &late, &mut put),
        }
    }
}

impl FileInit {
    fn fill(&self, sz: usize, len: u64, late: &dyn Fn(u64) -> Result<(), FillError>, put: &mut dyn FnMut(&[u8]) -> Result<(), FillError>) -> Result<(), FillError> {
        let io = |e: std::io::Error| FillError::Input(format!("cannot read {}: {e}", self.name));
        let changed = || FillError::Input(format!("{} changed after it was checked: it no longer holds the buffer's {len} bytes", self.name));
        let mut file = &self.file;
        file.seek(SeekFrom::Start(self.offset)).map_err(io)?;
        let mut read_pieces = |each: &mut dyn FnMut(&mut [u8]) -> Result<(), FillError>| -> Result<(), FillError> {
            let mut buf = vec![0u8; (len as usize).min(CHUNK)];
            let mut at = 0u64;
            while at < len {
                late(at)?;
                let k = (len - at).min(CHUNK as u64) as usize;
                file.read_exact(&mut buf[..k]).map_err(|e| if e.kind() == std::io::ErrorKind::UnexpectedEof { changed() } else { io(e) })?;
                if self.swap {
                    npy::swap(&mut buf[..k], sz);
                }
                each(&mut buf[..k])?;
                at += k as u64;
            }
            Ok(())
        };
        match &self.fortran {
            None => read_pieces(&mut |p| put(p))?,
            Some(shape) => {
                // C order takes elements from all over the file: one host copy.
                let mut data = Vec::with_capacity(len as usize);
                read_pieces(&mut |p| {
                    data.extend_from_slice(p);
                    Ok(())
                })?;
                npy::reorder(&data, shape, sz, CHUNK, put)?;
            }
        }
        // A file that grew since it was checked.
        let mut more = [0u8; 1];
        if file.read(&mut more).map_err(io)? != 0 {
            return Err(changed());
        }
        Ok(())
    }
}

/// Opens `@path` for `n` elements of `ty`: a `.npy` file by its header, any
/// other as raw little-endian elements. The size is checked before the
/// data is read, against the file's length where it has one; a file
/// without one is read now, at most one byte past the buffer, so
/// `/dev/zero` or a file that grows cannot make it read more.
fn open_file(ty: Ty, n: u64, path: &Path) -> Result<Init, String> {
    let want = n * ty.size() as u64;
    let name = cut(&path.display().to_string());
    if path.extension().and_then(|e| e.to_str()) == Some("npy") {
        return Ok(match npy::open(path, ty.npy_kind(), ty.size(), n, &ty.name())? {
            npy::Opened::Bytes(b) => Init::Bytes(b),
            npy::Opened::File { file, header } => Init::File(FileInit {
                name,
                file,
                offset: header.data_offset,
                swap: npy::big_endian(&header.descr) && ty.size() > 1,
                fortran: header.fortran_shape(),
            }),
        });
    }
    let f = std::fs::File::open(path).map_err(|e| format!("cannot read {name}: {e}"))?;
    if let Some(len) = f.metadata().ok().filter(|m| m.is_file()).map(|m| m.len()) {
        if len != want {
            let whole = if len % ty.size() as u64 == 0 { format!("{} elements", len / ty.size() as u64) } else { "not a whole number of elements".into() };
            return Err(format!("{name} is {len} bytes ({whole}), but the buffer is {n} {} elements ({want} bytes)", ty.name()));
        }
        return Ok(Init::File(FileInit { name, file: f, offset: 0, swap: false, fortran: None }));
    }
    let mut bytes = Vec::with_capacity(want.min(CHUNK as u64) as usize);
    f.take(want + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read {name}: {e}"))?;
    if bytes.len() as u64 > want {
        return Err(format!("{name} holds more than the buffer's {want} bytes ({n} {} elements)", ty.name()));
    }
    if (bytes.len() as u64) < want {
        return Err(format!("{name} holds {} bytes, fewer than the buffer's {want} bytes ({n} {} elements)", bytes.len(), ty.name()));
    }
    Ok(Init::Bytes(bytes))
}

//! The outputs of `ptxsim run`, built only in the mode asked for and
//! streamed element by element from the buffers' bytes: the JSON report
//! (`{"ok": true, "buffers": [...], "stats": {...}}`, or on a trap
//! `{"ok": false, "error": {...}, "partial": true, "buffers": [...]}`), the
//! readable summary (the first 16 elements of each buffer) and the `.npy`
//! files of `--out-dir`. The buffers are read from device memory a piece
//! at a time, so no output mode copies a whole buffer, and no value object
//! or string is made per element. An `--out-dir` file is written under a
//! new name and renamed into place, never through what was at its name.

use crate::common::cut;
use crate::npy;
use crate::run_args::Ty;
use crate::run_init::CHUNK;
use ptxsim_exec::{Device, LaunchStats, Printed};
use serde_json::{json, Value};
use std::borrow::Cow;
use std::io::Write;
use std::path::Path;
use std::rc::Rc;

/// One buffer argument after the launch: its index, type and final bytes,
/// read from device memory a piece at a time as the output needs them (so
/// the output costs a piece, not a copy of the buffer).
pub struct Buffer {
    pub arg: usize,
    pub ty: Ty,
    len: u64,
    data: Data,
}

enum Data {
    Host(Vec<u8>),
    /// `len` bytes at this address of the device.
    Device(Rc<Device>, u64),
}

impl Buffer {
    /// A buffer of bytes held here (an empty one, say).
    pub fn host(arg: usize, ty: Ty, bytes: Vec<u8>) -> Buffer {
        Buffer { arg, ty, len: bytes.len() as u64, data: Data::Host(bytes) }
    }

    /// `len` bytes of device memory at `addr`.
    pub fn device(arg: usize, ty: Ty, dev: Rc<Device>, addr: u64, len: u64) -> Buffer {
        Buffer { arg, ty, len, data: Data::Device(dev, addr) }
    }

    pub fn elements(&self) -> usize {
        (self.len / self.ty.size() as u64) as usize
    }

    /// `n` bytes from offset `off`.
    fn read(&self, off: u64, n: u64) -> std::io::Result<Cow<'_, [u8]>> {
        match &self.data {
            Data::Host(b) => Ok(Cow::Borrowed(b.get(off as usize..(off + n) as usize).unwrap_or(&[]))),
            Data::Device(_, _) if n == 0 => Ok(Cow::Borrowed(&[])),
            Data::Device(dev, addr) => dev.read(addr + off, n).map(Cow::Owned).map_err(|e| std::io::Error::other(e.message)),
        }
    }

    /// Calls `f` on the bytes in order, a piece of at most [`CHUNK`] bytes
    /// (whole elements) at a time.
    pub fn for_each_piece(&self, f: &mut dyn FnMut(&[u8]) -> std::io::Result<()>) -> std::io::Result<()> {
        let mut off = 0;
        while off < self.len {
            let n = (self.len - off).min(CHUNK as u64);
            f(&self.read(off, n)?)?;
            off += n;
        }
        Ok(())
    }

    /// Writes each element of `piece` as JSON, with a comma before all but
    /// the buffer's first (`first`: whether `piece` starts the buffer).
    fn write_json_piece(&self, w: &mut impl Write, piece: &[u8], first: bool) -> std::io::Result<()> {
        for (i, e) in piece.chunks_exact(self.ty.size()).enumerate() {
            if i > 0 || !first {
                write!(w, ",")?;
            }
            write_json(w, self.ty, e)?;
        }
        Ok(())
    }

    /// The first `n` elements as the summary shows them.
    fn texts(&self, n: usize) -> Vec<String> {
        let sz = self.ty.size();
        let Ok(bytes) = self.read(0, (n * sz) as u64) else { return vec!["?".into(); n] };
        bytes
            .chunks_exact(sz)
            .map(|e| {
                let mut v = Vec::new();
                let _ = write_json(&mut v, self.ty, e);
                String::from_utf8_lossy(&v).trim_matches('"').to_string()
            })
            .collect()
    }

    /// Each element's bytes as lowercase hex (for the demo's checks).
    pub fn hex(&self) -> Vec<String> {
        let mut out = Vec::with_capacity(self.elements());
        let _ = self.for_each_piece(&mut |p| {
            out.extend(p.chunks_exact(self.ty.size()).map(|c| c.iter().map(|x| format!("{x:02x}")).collect()));
            Ok(())
        });
        out
    }
}

/// Writes one element (its little-endian bytes `e`) as JSON: floats that
/// JSON cannot hold as strings (`"NaN"`, `"Infinity"`, `"-Infinity"`).
fn write_json(w: &mut impl Write, ty: Ty, e: &[u8]) -> std::io::Result<()> {
    let mut b = [0u8; 8];
    b[..e.len().min(8)].copy_from_slice(&e[..e.len().min(8)]);
    let bits = u64::from_le_bytes(b);
    match ty {
        Ty::U(_) | Ty::B(_) => write!(w, "{bits}"),
        Ty::S(b) => {
            let s = 64 - b;
            write!(w, "{}", ((bits << s) as i64) >> s)
        }
        Ty::F32 => write_float(w, f32::from_bits(bits as u32) as f64),
        Ty::F64 => write_float(w, f64::from_bits(bits)),
    }
}

fn write_float(w: &mut impl Write, f: f64) -> std::io::Result<()> {
    if f.is_nan() {
        write!(w, "\"NaN\"")
    } else if f.is_infinite() {
        write!(w, "{}", if f > 0.0 { "\"Infinity\"" } else { "\"-Infinity\"" })
    } else {
        serde_json::to_writer(&mut *w, &f).map_err(std::io::Error::other)
    }
}

pub fn stats_json(s: &LaunchStats) -> Value {
    json!({
        "warp_instructions": s.warp_instructions,
        "thread_instructions": s.thread_instructions,
        "simt_efficiency": s.simt_efficiency(),
        "divergent_branches": s.divergent_branches,
        "branches": s.branches.iter().take(20).map(|b| json!({"function": b.function, "line": b.line, "divergences": b.count})).collect::<Vec<_>>(),
    })
}

/// Streams `"buffers": [...]` (without the key) to `w`.
fn write_buffers(w: &mut impl Write, buffers: &[Buffer]) -> std::io::Result<()> {
    write!(w, "[")?;
    for (k, b) in buffers.iter().enumerate() {
        if k > 0 {
            write!(w, ",")?;
        }
        write!(w, "{{\"arg\":{},\"type\":\"{}\",\"values\":[", b.arg, b.ty.name())?;
        let mut first = true;
        b.for_each_piece(&mut |p| {
            b.write_json_piece(w, p, first)?;
            first = false;
            Ok(())
        })?;
        write!(w, "]}}")?;
    }
    write!(w, "]")
}

/// The JSON report of a finished launch, streamed to standard output.
pub fn print_json_ok(buffers: &[Buffer], stats: &LaunchStats, printed: &Printed) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::new(std::io::stdout().lock());
    write!(w, "{{\"ok\":true,\"buffers\":")?;
    write_buffers(&mut w, buffers)?;
    write!(w, ",\"stats\":{}", stats_json(stats))?;
    write_stdout(&mut w, printed)?;
    writeln!(w, "}}")?;
    w.flush()
}

/// `,"stdout":"...","stdout_dropped":N`: what the kernel printed (invalid
/// UTF-8 replaced), and the bytes lost past the cap.
fn write_stdout(w: &mut impl Write, printed: &Printed) -> std::io::Result<()> {
    write!(w, ",\"stdout\":")?;
    serde_json::to_writer(&mut *w, &String::from_utf8_lossy(&printed.bytes)).map_err(std::io::Error::other)?;
    write!(w, ",\"stdout_dropped\":{}", printed.dropped)
}

/// The JSON report of a failed launch: the error, and the buffers as the
/// trap left them (`"partial": true`) when there are any.
pub fn print_json_error(error: &Value, buffers: Option<&[Buffer]>, printed: &Printed) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::new(std::io::stdout().lock());
    write!(w, "{{\"ok\":false,\"error\":{error}")?;
    write_stdout(&mut w, printed)?;
    if let Some(b) = buffers {
        write!(w, ",\"partial\":true,\"buffers\":")?;
        write_buffers(&mut w, b)?;
    }
    writeln!(w, "}}")?;
    w.flush()
}

/// The readable lines for the buffers: type, count and the first 16 values.
pub fn buffer_lines(buffers: &[Buffer]) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    for b in buffers {
        let n = b.elements();
        let shown = b.texts(n.min(16));
        let more = if n > 16 { format!(", … ({} more)", n - 16) } else { String::new() };
        let _ = writeln!(s, "  arg{} {}[{n}] = [{}{more}]", b.arg, b.ty.name(), shown.join(", "));
    }
    s
}

/// The readable report (also used by the demo).
pub fn summary(file: &str, kernel: &str, buffers: &[Buffer], st: &LaunchStats) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "ran `{}` from {}", cut(kernel), cut(file));
    s.push_str(&buffer_lines(buffers));
    let _ = writeln!(s, "instructions: {} warp, {} thread", st.warp_instructions, st.thread_instructions);
    let _ = writeln!(s, "SIMT efficiency: {:.1}%", st.simt_efficiency() * 100.0);
    let _ = writeln!(s, "divergent branches: {}", st.divergent_branches);
    for b in st.branches.iter().take(5) {
        let _ = writeln!(s, "  {}:{} in `{}`: diverged {} time{}", cut(file), b.line, cut(&b.function), b.count, if b.count == 1 { "" } else { "s" });
    }
    s
}

/// Writes each buffer as `DIR/argN.npy`. Each file is written under a
/// new name in DIR and renamed over `argN.npy`, so what is at that name
/// (a symbolic link to a file elsewhere, say) is replaced, never written
/// through.
pub fn write_npy_files(dir: &Path, buffers: &[Buffer]) -> Result<(), String> {
    for b in buffers {
        let path = dir.join(format!("arg{}.npy", b.arg));
        write_replacing(dir, &path, &mut |w| {
            npy::write_header(w, &b.ty.npy_descr(), b.elements() as u64)?;
            b.for_each_piece(&mut |p| w.write_all(p))
        })
        .map_err(|e| format!("cannot write {}: {e}", cut(&path.display().to_string())))?;
    }
    Ok(())
}

/// Writes a file with `write` under a fresh name in `dir` (created with
/// `O_EXCL`, which neither follows nor reuses anything already there) and
/// renames it to `path`: rename(2) replaces the entry at `path` itself, a
/// symbolic link included (POSIX: "If the link named by the new argument
/// exists, it shall be removed"), so nothing outside `dir` is written.
fn write_replacing(dir: &Path, path: &Path, write: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>) -> std::io::Result<()> {
    let base = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut attempt = 0u32;
    let (tmp, file) = loop {
        let tmp = dir.join(format!(".{base}.{}-{attempt}.tmp", std::process::id()));
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => break (tmp, f),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            Err(e) => return Err(e),
        }
    };
    let mut w = std::io::BufWriter::new(file);
    let done = write(&mut w).and_then(|()| w.flush()).and_then(|()| std::fs::rename(&tmp, path));
    if done.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    done
}

/// Checks, before the run, that `--out-dir` can receive the files: it is
/// created if missing, must be a directory, and a probe file is created
/// (never through an existing entry) and removed in it.
pub fn prepare_out_dir(dir: &Path) -> Result<(), String> {
    let shown = cut(&dir.display().to_string());
    if dir.exists() && !dir.is_dir() {
        return Err(format!("--out-dir {shown}: exists and is not a directory"));
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("--out-dir {shown}: cannot create it: {e}"))?;
    let probe = dir.join(format!(".ptxsim-probe-{}", std::process::id()));
    std::fs::OpenOptions::new().write(true).create_new(true).open(&probe).map_err(|e| format!("--out-dir {shown}: cannot write in it: {e}"))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

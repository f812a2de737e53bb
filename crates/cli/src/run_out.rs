//! The outputs of `ptxsim run`, built only in the mode asked for and
//! streamed element by element from the buffers' bytes: the JSON report
//! (`{"ok": true, "buffers": [...], "stats": {...}}`, or on a trap
//! `{"ok": false, "error": {...}, "partial": true, "buffers": [...]}`), the
//! readable summary (the first 16 elements of each buffer) and the `.npy`
//! files of `--out-dir`. Memory per element is the element's own bytes: no
//! value object or string is made per element.

use crate::npy;
use crate::run_args::Ty;
use ptxsim_exec::{LaunchStats, Printed};
use serde_json::{json, Value};
use std::io::Write;
use std::path::Path;

/// One buffer argument after the launch: its index, type and final bytes.
pub struct Buffer {
    pub arg: usize,
    pub ty: Ty,
    pub bytes: Vec<u8>,
}

impl Buffer {
    pub fn elements(&self) -> usize {
        self.bytes.len() / self.ty.size()
    }

    /// Element `i` as little-endian bits.
    fn bits(&self, i: usize) -> u64 {
        let sz = self.ty.size();
        let mut b = [0u8; 8];
        b[..sz].copy_from_slice(&self.bytes[i * sz..(i + 1) * sz]);
        u64::from_le_bytes(b)
    }

    /// Writes element `i` as JSON (floats that JSON cannot hold as strings:
    /// `"NaN"`, `"Infinity"`, `"-Infinity"`).
    fn write_json(&self, w: &mut impl Write, i: usize) -> std::io::Result<()> {
        let bits = self.bits(i);
        match self.ty {
            Ty::U(_) | Ty::B(_) => write!(w, "{bits}"),
            Ty::S(b) => {
                let s = 64 - b;
                write!(w, "{}", ((bits << s) as i64) >> s)
            }
            Ty::F32 => write_float(w, f32::from_bits(bits as u32) as f64),
            Ty::F64 => write_float(w, f64::from_bits(bits)),
        }
    }

    /// Element `i` as the summary shows it.
    fn text(&self, i: usize) -> String {
        let mut v = Vec::new();
        let _ = self.write_json(&mut v, i);
        String::from_utf8_lossy(&v).trim_matches('"').to_string()
    }

    /// Each element's bytes as lowercase hex (for the demo's checks).
    pub fn hex(&self) -> Vec<String> {
        self.bytes.chunks_exact(self.ty.size()).map(|c| c.iter().map(|x| format!("{x:02x}")).collect()).collect()
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
        for i in 0..b.elements() {
            if i > 0 {
                write!(w, ",")?;
            }
            b.write_json(w, i)?;
        }
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
        let shown: Vec<String> = (0..n.min(16)).map(|i| b.text(i)).collect();
        let more = if n > 16 { format!(", … ({} more)", n - 16) } else { String::new() };
        let _ = writeln!(s, "  arg{} {}[{n}] = [{}{more}]", b.arg, b.ty.name(), shown.join(", "));
    }
    s
}

/// The readable report (also used by the demo).
pub fn summary(file: &str, kernel: &str, buffers: &[Buffer], st: &LaunchStats) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "ran `{kernel}` from {file}");
    s.push_str(&buffer_lines(buffers));
    let _ = writeln!(s, "instructions: {} warp, {} thread", st.warp_instructions, st.thread_instructions);
    let _ = writeln!(s, "SIMT efficiency: {:.1}%", st.simt_efficiency() * 100.0);
    let _ = writeln!(s, "divergent branches: {}", st.divergent_branches);
    for b in st.branches.iter().take(5) {
        let _ = writeln!(s, "  {file}:{} in `{}`: diverged {} time{}", b.line, b.function, b.count, if b.count == 1 { "" } else { "s" });
    }
    s
}

/// Writes each buffer as `DIR/argN.npy`.
pub fn write_npy_files(dir: &Path, buffers: &[Buffer]) -> Result<(), String> {
    for b in buffers {
        let path = dir.join(format!("arg{}.npy", b.arg));
        npy::write(&path, &b.ty.npy_descr(), b.ty.size(), &b.bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

/// Checks, before the run, that `--out-dir` can receive the files: it is
/// created if missing, must be a directory, and a probe file is written and
/// removed in it.
pub fn prepare_out_dir(dir: &Path) -> Result<(), String> {
    if dir.exists() && !dir.is_dir() {
        return Err(format!("--out-dir {}: exists and is not a directory", dir.display()));
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("--out-dir {}: cannot create it: {e}", dir.display()))?;
    let probe = dir.join(format!(".ptxsim-probe-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(|e| format!("--out-dir {}: cannot write in it: {e}", dir.display()))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

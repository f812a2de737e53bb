//! The inputs of `ptxsim run`, checked before anything runs: `--arg` specs
//! (element types, scalar values, buffer initialisers, whose input files
//! `run_init` checks before anything is read), the numeric flags (`--grid`,
//! `--block`, `--cluster`, `--threads`, `--shared`, `--fuel`) with messages
//! that name the flag and the range (and quote input cut to a few dozen
//! bytes), and the module facts a launch is checked against:
//! its kernels' parameters (each argument's class, size and count), its
//! `.target` (the shared-memory limit, whether clusters exist) and its
//! `extern .shared` declarations.

use crate::common::{cut, cut_list};
use crate::run_init::Init;
use ptxsim_exec::Dim3;
use ptxsim_syntax::ast::{FunctionKind, Item, Linkage, Module, Param, ScalarType, StateSpace, Statement};

/// Element types of `--arg`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    U(u32),
    S(u32),
    B(u32),
    F32,
    F64,
}

impl Ty {
    pub fn parse(s: &str) -> Option<Ty> {
        Some(match s {
            "u8" => Ty::U(8),
            "u16" => Ty::U(16),
            "u32" => Ty::U(32),
            "u64" => Ty::U(64),
            "s8" => Ty::S(8),
            "s16" => Ty::S(16),
            "s32" => Ty::S(32),
            "s64" => Ty::S(64),
            "b8" => Ty::B(8),
            "b16" => Ty::B(16),
            "b32" => Ty::B(32),
            "b64" => Ty::B(64),
            "f32" => Ty::F32,
            "f64" => Ty::F64,
            _ => return None,
        })
    }

    pub fn size(self) -> usize {
        match self {
            Ty::U(b) | Ty::S(b) | Ty::B(b) => b as usize / 8,
            Ty::F32 => 4,
            Ty::F64 => 8,
        }
    }

    pub fn name(self) -> String {
        match self {
            Ty::U(b) => format!("u{b}"),
            Ty::S(b) => format!("s{b}"),
            Ty::B(b) => format!("b{b}"),
            Ty::F32 => "f32".into(),
            Ty::F64 => "f64".into(),
        }
    }

    /// The NumPy kind of the type (`b` types read and write as unsigned).
    pub fn npy_kind(self) -> char {
        match self {
            Ty::U(_) | Ty::B(_) => 'u',
            Ty::S(_) => 'i',
            Ty::F32 | Ty::F64 => 'f',
        }
    }

    /// The `.npy` `descr` the type is written with.
    pub fn npy_descr(self) -> String {
        let sz = self.size();
        if sz == 1 {
            format!("|{}1", self.npy_kind())
        } else {
            format!("<{}{sz}", self.npy_kind())
        }
    }

    /// Parses one value into little-endian bits.
    pub fn value(self, s: &str) -> Result<u64, String> {
        let s = s.trim();
        let bad = || format!("`{}` is not a valid {} value", cut(s), self.name());
        match self {
            Ty::F32 => Ok(parse_float(s).ok_or_else(bad)? as f32).map(|f| f.to_bits() as u64),
            Ty::F64 => Ok(parse_float(s).ok_or_else(bad)?.to_bits()),
            Ty::U(b) | Ty::S(b) | Ty::B(b) => {
                let (neg, body) = match s.strip_prefix('-') {
                    Some(r) => (true, r),
                    None => (false, s.strip_prefix('+').unwrap_or(s)),
                };
                let mag = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
                    u64::from_str_radix(h, 16).map_err(|_| bad())?
                } else {
                    body.parse::<u64>().map_err(|_| bad())?
                };
                let mask = if b == 64 { u64::MAX } else { (1u64 << b) - 1 };
                if neg {
                    if matches!(self, Ty::U(_)) || mag > (1u64 << (b - 1)) {
                        return Err(format!("`{}` is out of range for {}", cut(s), self.name()));
                    }
                    Ok(mag.wrapping_neg() & mask)
                } else {
                    let max = if matches!(self, Ty::S(_)) { (1u64 << (b - 1)) - 1 } else { mask };
                    if mag > max {
                        return Err(format!("`{}` is out of range for {}", cut(s), self.name()));
                    }
                    Ok(mag)
                }
            }
        }
    }
}

fn parse_float(s: &str) -> Option<f64> {
    match s.to_ascii_lowercase().as_str() {
        "nan" => Some(f64::NAN),
        "inf" | "infinity" | "+inf" | "+infinity" => Some(f64::INFINITY),
        "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
        _ => s.parse::<f64>().ok(),
    }
}

/// One `--arg`.
pub enum Spec {
    Scalar(Ty, u64),
    /// `TYPE[N]=INIT`: `len` bytes, filled by `init` when the buffer is
    /// allocated.
    Buffer { ty: Ty, len: u64, init: Init },
}

/// Most elements one buffer argument may have (2^28).
pub const MAX_ELEMS: u64 = 1 << 28;

/// Parses one `--arg`; a buffer's initialiser is checked (a file's size or
/// `.npy` header) but not produced. Messages quote the spec cut to a few
/// dozen bytes.
pub fn parse_spec(s: &str) -> Result<Spec, String> {
    let at = || format!("`--arg {}`", cut(s));
    let (lhs, rhs) = s.split_once('=').ok_or_else(|| format!("{}: expected TYPE=VALUE or TYPE[N]=INIT", at()))?;
    if let Some((tname, rest)) = lhs.split_once('[') {
        let ty = Ty::parse(tname).ok_or_else(|| format!("{}: unknown type `{}`", at(), cut(tname)))?;
        let n: u64 = rest
            .strip_suffix(']')
            .and_then(|x| x.trim().parse().ok())
            .ok_or_else(|| format!("{}: expected TYPE[N] with N a count", at()))?;
        if n > MAX_ELEMS {
            return Err(format!("{}: at most {MAX_ELEMS} elements", at()));
        }
        let len = n * ty.size() as u64;
        let init = Init::parse(ty, n, rhs).map_err(|e| format!("{}: {e}", at()))?;
        Ok(Spec::Buffer { ty, len, init })
    } else {
        let ty = Ty::parse(lhs).ok_or_else(|| format!("{}: unknown type `{}`", at(), cut(lhs)))?;
        Ok(Spec::Scalar(ty, ty.value(rhs).map_err(|e| format!("{}: {e}", at()))?))
    }
}

/// Parses `--grid`, `--block` or `--cluster`: X[,Y[,Z]], each from 1 to 2^32-1.
pub fn parse_dim(s: &str, what: &str) -> Result<Dim3, String> {
    let parts: Vec<&str> = s.split(',').map(|p| p.trim()).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("--{what} takes X[,Y[,Z]], not `{}`", cut(s)));
    }
    let mut v = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        v[i] = parse_count(p, &format!("--{what}"), 1, u32::MAX as u64)? as u32;
    }
    Ok(Dim3::new(v[0], v[1], v[2]))
}

/// Parses a whole number for `flag` in `min..=max`, saying which bound failed.
pub fn parse_count(p: &str, flag: &str, min: u64, max: u64) -> Result<u64, String> {
    let p = p.trim();
    let digits = p.strip_prefix('+').unwrap_or(p);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        let neg = p.strip_prefix('-').is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
        return Err(if neg {
            format!("{flag}: `{}` is negative; it must be from {min} to {max}", cut(p))
        } else {
            format!("{flag}: `{}` is not a whole number (from {min} to {max})", cut(p))
        });
    }
    match digits.parse::<u64>() {
        Ok(v) if v >= min && v <= max => Ok(v),
        Ok(v) if v < min => Err(format!("{flag}: {v} is too small; it must be from {min} to {max}")),
        _ => Err(format!("{flag}: `{}` is out of range; it must be from {min} to {max}", cut(p))),
    }
}

/// Worker threads `--threads` accepts at most.
pub const MAX_THREADS: u64 = 256;

/// A kernel parameter, as the launch checks arguments against it.
#[derive(Clone, Debug)]
pub struct ParamInfo {
    pub name: String,
    /// The element type (`None` for opaque types).
    pub ty: Option<ScalarType>,
    /// Total size in bytes (elements times element size for an array).
    pub bytes: u64,
    /// An array (`.b8 s[16]`): a by-value aggregate such as a struct.
    pub array: bool,
}

/// A kernel of the module.
#[derive(Clone, Debug)]
pub struct KernelInfo {
    pub name: String,
    pub params: Vec<ParamInfo>,
    /// `extern .shared` arrays declared in the kernel's body.
    pub extern_shared: Vec<String>,
}

/// What `run` checks a launch against, taken from the module's text.
#[derive(Clone, Debug, Default)]
pub struct ModuleInfo {
    /// The first `.target` `sm_NN`, as NN.
    pub sm: Option<u32>,
    pub kernels: Vec<KernelInfo>,
    /// Module-scope `extern .shared` arrays.
    pub extern_shared: Vec<String>,
    /// `.address_size` (64 when not given).
    pub address_size: Option<u32>,
}

impl ModuleInfo {
    /// Reads the facts from a parsed module (which may have errors: the
    /// loader reports those).
    pub fn new(m: &Module<'_>) -> ModuleInfo {
        let mut info = ModuleInfo::default();
        for item in &m.items {
            match item {
                Item::Target(t) => {
                    if info.sm.is_none() {
                        info.sm = t.targets.iter().find_map(|n| {
                            let d = n.text.strip_prefix("sm_")?;
                            d.trim_end_matches(['a', 'f']).parse().ok()
                        });
                    }
                }
                Item::AddressSize(a) => info.address_size = Some(a.value),
                Item::Var(v) => {
                    if v.space.value == StateSpace::Shared && v.linkage.is_some_and(|l| l.value == Linkage::Extern) {
                        info.extern_shared.extend(v.declarators.iter().map(|d| d.name.text.to_string()));
                    }
                }
                Item::Function(f) if f.kind == FunctionKind::Entry && f.body.is_some() => {
                    let params = f.params.iter().flatten().map(param_info).collect();
                    let mut extern_shared = Vec::new();
                    if let Some(b) = &f.body {
                        let mut stack: Vec<&Statement<'_>> = b.stmts.iter().collect();
                        while let Some(s) = stack.pop() {
                            match s {
                                Statement::Var(v) if v.space.value == StateSpace::Shared && v.linkage.is_some_and(|l| l.value == Linkage::Extern) => {
                                    extern_shared.extend(v.declarators.iter().map(|d| d.name.text.to_string()));
                                }
                                Statement::Block(b) => stack.extend(b.stmts.iter()),
                                _ => {}
                            }
                        }
                    }
                    info.kernels.push(KernelInfo { name: f.name.text.to_string(), params, extern_shared });
                }
                _ => {}
            }
        }
        info
    }

    /// Bytes of a device address.
    pub fn addr_bytes(&self) -> u64 {
        if self.address_size == Some(32) {
            4
        } else {
            8
        }
    }

    pub fn kernel(&self, name: &str) -> Option<&KernelInfo> {
        self.kernels.iter().find(|k| k.name == name)
    }

    pub fn kernel_names(&self) -> String {
        if self.kernels.is_empty() {
            "it has no kernels (`.entry` with a body)".to_string()
        } else {
            format!("its kernels: {}", cut_list(self.kernels.iter().map(|k| cut(&k.name))))
        }
    }

    /// Most shared memory (static plus dynamic) one CTA may use on the
    /// module's target, and the architecture it was taken for.
    pub fn max_shared(&self) -> (u32, String) {
        let sm = self.sm.unwrap_or(90);
        (max_shared_per_block(sm), format!("sm_{sm}"))
    }
}

fn param_info(p: &Param<'_>) -> ParamInfo {
    let ty = p.ty.value.scalar();
    let elem = ty.map_or(8, |t| (t.bits() as u64 / 8).max(1)) * p.vector.map_or(1, |v| v.value as u64);
    let count = p.dims.iter().fold(1u64, |n, d| n.saturating_mul(d.map_or(0, |x| x.value)));
    ParamInfo { name: p.name.text.to_string(), ty, bytes: elem.saturating_mul(count), array: !p.dims.is_empty() }
}

/// The maximum shared memory per thread block, in bytes, of compute
/// capability `sm` (CUDA C++ Programming Guide, "Technical Specifications per
/// Compute Capability": 48 KB up to 6.x, 96 KB for 7.0/7.2, 64 KB for 7.5;
/// from 8.0 the per-SM shared capacity less the 1 KB CUDA reserves per
/// block: 163 KB for 8.0/8.7, 99 KB for 8.6/8.9/12.x, 227 KB for 9.0/10.x).
pub fn max_shared_per_block(sm: u32) -> u32 {
    const KB: u32 = 1024;
    match sm {
        0..=69 => 48 * KB,
        70..=72 => 96 * KB,
        73..=79 => 64 * KB,
        80 | 87 => 163 * KB,
        81..=89 => 99 * KB,
        90..=119 => 227 * KB,
        _ => 99 * KB,
    }
}

/// Checks `--arg` specs against the kernel's parameters: the count, then for
/// each argument its size and class (a float for an integer parameter and the
/// reverse are errors; `.bN` parameters take any N-bit value; a buffer is a
/// pointer for an integer parameter of the address size, or passed by value
/// to an array parameter of its exact size).
pub fn check_args(k: &KernelInfo, specs: &[Spec], addr_bytes: u64) -> Result<(), String> {
    if specs.len() != k.params.len() {
        let list = cut_list(k.params.iter().map(|p| format!("{} ({})", cut(&p.name), describe(p))));
        return Err(format!(
            "kernel `{}` takes {} parameter{}, {} --arg given{}",
            cut(&k.name),
            k.params.len(),
            if k.params.len() == 1 { "" } else { "s" },
            specs.len(),
            if list.is_empty() { String::new() } else { format!(": {list}") }
        ));
    }
    for (i, (p, s)) in k.params.iter().zip(specs).enumerate() {
        let at = || format!("argument {i} (`{}`, {})", cut(&p.name), describe(p));
        match s {
            Spec::Buffer { ty, len, .. } => {
                if p.array {
                    if *len != p.bytes {
                        return Err(format!("{} is passed by value and needs exactly {} bytes; the --arg buffer is {len} bytes ({} {} elements)", at(), p.bytes, len / ty.size() as u64, ty.name()));
                    }
                } else if p.bytes != addr_bytes || p.ty.is_some_and(is_float) {
                    return Err(format!("{} cannot hold a buffer's {addr_bytes}-byte device address; give a scalar TYPE=VALUE", at()));
                }
            }
            Spec::Scalar(ty, _) => {
                if p.array {
                    return Err(format!("{} is an array passed by value; give its bytes as a buffer, for example `--arg 'b8[{}]=@file.bin'`", at(), p.bytes));
                }
                if ty.size() as u64 != p.bytes {
                    return Err(format!("{} is {} bytes, but `{}` is {} bytes", at(), p.bytes, ty.name(), ty.size()));
                }
                let arg_float = matches!(ty, Ty::F32 | Ty::F64);
                let bits = matches!(ty, Ty::B(_));
                if let Some(pt) = p.ty {
                    let param_bits = matches!(pt, ScalarType::B8 | ScalarType::B16 | ScalarType::B32 | ScalarType::B64 | ScalarType::B128);
                    if !bits && !param_bits && arg_float != is_float(pt) {
                        return Err(format!(
                            "{} takes {}, but the --arg is `{}`{}",
                            at(),
                            if is_float(pt) { "a float" } else { "an integer" },
                            ty.name(),
                            if arg_float { " (a float); give an integer, or its bits as b32/b64" } else { " (an integer); give a float, or its bits as b32/b64" }
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

fn is_float(t: ScalarType) -> bool {
    matches!(t, ScalarType::F16 | ScalarType::F16x2 | ScalarType::Bf16 | ScalarType::Bf16x2 | ScalarType::F32 | ScalarType::F64 | ScalarType::Tf32)
}

fn describe(p: &ParamInfo) -> String {
    let t = p.ty.map_or("?", |t| t.as_str());
    if p.array {
        format!("{t} array of {} bytes", p.bytes)
    } else {
        t.to_string()
    }
}

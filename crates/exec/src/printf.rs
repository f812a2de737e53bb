//! CUDA's device `printf` (the `vprintf` system call) and `assert` (the
//! `__assertfail` system call), formatted on the host as the CUDA C++
//! Programming Guide ("Formatted Output") describes:
//!
//! - `vprintf(fmt, args)`: `fmt` is the generic address of a NUL-terminated
//!   format string; `args` the generic address of a buffer in which the
//!   compiler packed the arguments, each aligned to its own size (`float`
//!   promoted to `double`, `char`/`short` to `int`). Conversions
//!   `%[flags][width][.precision][size]type` with the flags `- + space # 0`,
//!   `*` widths and precisions (an `int` argument), the sizes `hh h l ll z j t
//!   L`, and the types `d i u o x X c s p f F e E g G a A %`, as the C library
//!   formats them (glibc's choices where C leaves one: `(null)`, `(nil)`,
//!   `-nan`). At most 32 arguments are read: later conversions are written
//!   as they stand, as the Guide says. `%n` takes its pointer and writes
//!   nothing; an unknown conversion is written as it stands and takes no
//!   argument.
//! - The call returns the number of arguments parsed, `-1` for a NULL format
//!   string (the Guide's rules), not the number of characters.
//! - A format string or `%s` string must end within [`MAX_STRING`] bytes;
//!   reading outside device memory is the located trap of any load.
//!
//! [`Stdout`] (`stdout.rs`) collects what a launch prints, bounded by a
//! byte cap. This module only formats; `datapath::sys` reads the arguments and the lane
//! order, and the launch merges the output of its clusters in order.

use crate::error::{Trap, TrapKind};
pub use crate::stdout::{Printed, Stdout, DEFAULT_STDOUT_BYTES};

/// Most arguments one `printf` reads (the Guide: "at most 32 arguments in
/// addition to the format string").
pub const MAX_ARGS: u32 = 32;
/// Longest format string or `%s` string read, in bytes.
pub const MAX_STRING: u64 = 1 << 20;
/// Reads `size` bytes (1, 2, 4 or 8) of device memory at a generic address
/// for the lane being formatted.
pub(crate) type Read<'r> = dyn FnMut(u64, u32) -> Result<u64, Trap> + 'r;

/// Reads the NUL-terminated string at `addr` (without the NUL), at most
/// `limit` bytes of it; `what` names it in the error when no NUL comes
/// within [`MAX_STRING`] bytes.
pub(crate) fn read_cstr(read: &mut Read<'_>, addr: u64, limit: u64, what: &str) -> Result<Vec<u8>, Trap> {
    let mut s = Vec::new();
    let mut a = addr;
    while (s.len() as u64) < limit {
        if s.len() as u64 >= MAX_STRING {
            return Err(Trap::new(TrapKind::OutOfBounds, format!("{what} at {addr:#x} has no terminating NUL within {MAX_STRING} bytes")));
        }
        // Whole words where they are aligned: fewer lookups.
        if a % 8 == 0 && (limit - s.len() as u64) >= 8 {
            if let Ok(w) = read(a, 8) {
                let b = w.to_le_bytes();
                match b.iter().position(|&x| x == 0) {
                    Some(i) => {
                        s.extend_from_slice(&b[..i]);
                        return Ok(s);
                    }
                    None => {
                        s.extend_from_slice(&b);
                        a += 8;
                        continue;
                    }
                }
            }
        }
        let b = read(a, 1)? as u8;
        if b == 0 {
            break;
        }
        s.push(b);
        a = a.wrapping_add(1);
    }
    Ok(s)
}

/// One conversion specification.
#[derive(Clone, Copy, Debug, Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    prec: Option<usize>,
    /// Argument size for integers: 1 (hh), 2 (h), 4, 8 (l ll z j t).
    isize: u8,
}

/// Widths and precisions above this are cut (C's are `int`; nothing
/// sensible prints a billion spaces, and the output cap would drop them).
const MAX_FIELD: usize = 1 << 20;

/// The argument buffer of one call: each argument aligned to its own size,
/// in order; counts the arguments read.
struct Args {
    base: u64,
    off: u64,
    count: u32,
}

impl Args {
    fn next(&mut self, size: u32, read: &mut Read<'_>) -> Result<u64, Trap> {
        let s = size as u64;
        self.off = self.off.div_ceil(s) * s;
        let v = read(self.base.wrapping_add(self.off), size)?;
        self.off += s;
        self.count += 1;
        Ok(v)
    }
}

/// One conversion specification `%[flags][width][.precision][size]type`
/// as written, before its `*` arguments are read.
struct Directive {
    sp: Spec,
    star_w: bool,
    star_p: bool,
    /// The conversion character; `None` for a `%` at the end of the string.
    conv: Option<u8>,
}

/// Reads the directive whose `%` is at `fmt[*i - 1]`, leaving `*i` after it.
fn directive(fmt: &[u8], i: &mut usize) -> Directive {
    let mut sp = Spec { isize: 4, ..Spec::default() };
    while let Some(&f) = fmt.get(*i) {
        match f {
            b'-' => sp.left = true,
            b'+' => sp.plus = true,
            b' ' => sp.space = true,
            b'#' => sp.alt = true,
            b'0' => sp.zero = true,
            _ => break,
        }
        *i += 1;
    }
    // Width and precision (`*` reads an int argument).
    let star_w = fmt.get(*i) == Some(&b'*');
    if star_w {
        *i += 1;
    } else {
        sp.width = digits(fmt, i);
    }
    let mut star_p = false;
    if fmt.get(*i) == Some(&b'.') {
        *i += 1;
        star_p = fmt.get(*i) == Some(&b'*');
        if star_p {
            *i += 1;
        } else {
            sp.prec = Some(digits(fmt, i));
        }
    }
    // Sizes; `L` (a device `long double` is a `double`) changes nothing.
    loop {
        match fmt.get(*i) {
            Some(b'h') => sp.isize = if fmt.get(*i + 1) == Some(&b'h') { *i += 1; 1 } else { 2 },
            Some(b'l') => {
                if fmt.get(*i + 1) == Some(&b'l') {
                    *i += 1;
                }
                sp.isize = 8
            }
            Some(b'z' | b'j' | b't') => sp.isize = 8,
            Some(b'L') => {}
            _ => break,
        }
        *i += 1;
    }
    let conv = fmt.get(*i).copied();
    if conv.is_some() {
        *i += 1;
    }
    Directive { sp, star_w, star_p, conv }
}

/// Formats one `printf` call: `fmt` is the format string's bytes, `args`
/// the generic address of the argument buffer. Appends the text to `out`
/// and returns the number of arguments parsed.
pub(crate) fn format(fmt: &[u8], args: u64, read: &mut Read<'_>, out: &mut Vec<u8>) -> Result<i32, Trap> {
    let mut args = Args { base: args, off: 0, count: 0 };
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            let j = fmt[i..].iter().position(|&b| b == b'%').map(|p| i + p).unwrap_or(fmt.len());
            out.extend_from_slice(&fmt[i..j]);
            i = j;
            continue;
        }
        let start = i;
        i += 1;
        let Directive { mut sp, star_w, star_p, conv } = directive(fmt, &mut i);
        let Some(conv) = conv else {
            // A lone `%` at the end: written as it stands.
            out.extend_from_slice(&fmt[start..]);
            break;
        };
        if conv == b'%' {
            out.push(b'%');
            continue;
        }
        let takes = b"diuoxXcspfFeEgGaAn".contains(&conv);
        let needed = takes as u32 + star_w as u32 + star_p as u32;
        if !takes || args.count + needed > MAX_ARGS {
            out.extend_from_slice(&fmt[start..i]);
            continue;
        }
        if star_w {
            let w = args.next(4, read)? as u32 as i32;
            if w < 0 {
                sp.left = true;
            }
            sp.width = w.unsigned_abs() as usize;
        }
        if star_p {
            let p = args.next(4, read)? as u32 as i32;
            sp.prec = if p < 0 { None } else { Some(p as usize) };
        }
        sp.width = sp.width.min(MAX_FIELD);
        sp.prec = sp.prec.map(|p| p.min(MAX_FIELD));
        convert(out, &sp, conv, &mut args, read)?;
    }
    Ok(args.count as i32)
}

/// Writes one conversion `conv` (one that takes an argument) with its
/// specification, reading its argument.
fn convert(out: &mut Vec<u8>, sp: &Spec, conv: u8, args: &mut Args, read: &mut Read<'_>) -> Result<(), Trap> {
    match conv {
        b'd' | b'i' => {
            let raw = args.next(sp.isize.max(4) as u32, read)?;
            let v: i64 = match sp.isize {
                1 => raw as i8 as i64,
                2 => raw as i16 as i64,
                4 => raw as u32 as i32 as i64,
                _ => raw as i64,
            };
            let sign = if v < 0 { "-" } else if sp.plus { "+" } else if sp.space { " " } else { "" };
            integer(out, sp, sign, "", v.unsigned_abs().to_string().into_bytes(), v == 0);
        }
        b'u' | b'o' | b'x' | b'X' => {
            let raw = args.next(sp.isize.max(4) as u32, read)?;
            let v: u64 = match sp.isize {
                1 => raw as u8 as u64,
                2 => raw as u16 as u64,
                4 => raw as u32 as u64,
                _ => raw,
            };
            let (digs, prefix) = match conv {
                b'u' => (v.to_string(), ""),
                b'o' => {
                    let d = format!("{v:o}");
                    // `#`: the first digit is a zero (precision raised if needed).
                    if sp.alt && !d.starts_with('0') && sp.prec.is_none_or(|p| p <= d.len()) {
                        (format!("0{d}"), "")
                    } else {
                        (d, "")
                    }
                }
                b'x' => (format!("{v:x}"), if sp.alt && v != 0 { "0x" } else { "" }),
                _ => (format!("{v:X}"), if sp.alt && v != 0 { "0X" } else { "" }),
            };
            let zero = v == 0 && !(conv == b'o' && sp.alt);
            integer(out, sp, "", prefix, digs.into_bytes(), zero);
        }
        b'c' => {
            let v = args.next(4, read)? as u8;
            pad(out, sp, &[v]);
        }
        b's' => {
            let p = args.next(8, read)?;
            if p == 0 {
                // glibc: "(null)", or nothing when the precision is too short for it.
                let t: &[u8] = if sp.prec.is_none_or(|q| q >= 6) { b"(null)" } else { b"" };
                pad(out, sp, t);
            } else {
                let s = read_cstr(read, p, sp.prec.map(|q| q as u64).unwrap_or(u64::MAX), "a `%s` string")?;
                pad(out, sp, &s);
            }
        }
        b'p' => {
            let p = args.next(8, read)?;
            if p == 0 {
                pad(out, sp, b"(nil)");
            } else {
                let sign = if sp.plus { "+" } else if sp.space { " " } else { "" };
                integer(out, sp, sign, "0x", format!("{p:x}").into_bytes(), false);
            }
        }
        b'n' => {
            args.next(8, read)?;
        }
        _ => {
            let v = f64::from_bits(args.next(8, read)?);
            float(out, sp, conv, v);
        }
    }
    Ok(())
}

fn digits(fmt: &[u8], i: &mut usize) -> usize {
    let mut n = 0usize;
    while let Some(&d) = fmt.get(*i) {
        if !d.is_ascii_digit() {
            break;
        }
        n = n.saturating_mul(10).saturating_add((d - b'0') as usize);
        *i += 1;
    }
    n
}

/// Writes `body` in a field of the spec's width (spaces, left or right).
fn pad(out: &mut Vec<u8>, sp: &Spec, body: &[u8]) {
    let fill = sp.width.saturating_sub(body.len());
    if !sp.left {
        out.resize(out.len() + fill, b' ');
    }
    out.extend_from_slice(body);
    if sp.left {
        out.resize(out.len() + fill, b' ');
    }
}

/// An integer conversion: `sign`, `prefix` (`0x`), then the digits raised to
/// the precision (none for a zero value with precision 0), in the field;
/// `0` pads after the sign and prefix unless `-` or a precision is given.
fn integer(out: &mut Vec<u8>, sp: &Spec, sign: &str, prefix: &str, mut digs: Vec<u8>, zero: bool) {
    if let Some(p) = sp.prec {
        if zero && p == 0 {
            digs.clear();
        } else if digs.len() < p {
            let mut d = vec![b'0'; p - digs.len()];
            d.extend_from_slice(&digs);
            digs = d;
        }
    }
    let len = sign.len() + prefix.len() + digs.len();
    let fill = sp.width.saturating_sub(len);
    if sp.zero && !sp.left && sp.prec.is_none() {
        out.extend_from_slice(sign.as_bytes());
        out.extend_from_slice(prefix.as_bytes());
        out.resize(out.len() + fill, b'0');
        out.extend_from_slice(&digs);
        return;
    }
    if !sp.left {
        out.resize(out.len() + fill, b' ');
    }
    out.extend_from_slice(sign.as_bytes());
    out.extend_from_slice(prefix.as_bytes());
    out.extend_from_slice(&digs);
    if sp.left {
        out.resize(out.len() + fill, b' ');
    }
}

/// `%f %F %e %E %g %G %a %A` of a double.
fn float(out: &mut Vec<u8>, sp: &Spec, conv: u8, v: f64) {
    let upper = conv.is_ascii_uppercase();
    let neg = v.is_sign_negative();
    let sign = if neg { "-" } else if sp.plus { "+" } else if sp.space { " " } else { "" };
    if !v.is_finite() {
        let t = if v.is_nan() { "nan" } else { "inf" };
        let t = if upper { t.to_ascii_uppercase() } else { t.to_string() };
        let body = format!("{sign}{t}");
        pad(out, sp, body.as_bytes());
        return;
    }
    let a = v.abs();
    let (prefix, body) = match conv.to_ascii_lowercase() {
        b'f' => ("", fixed(a, sp.prec.unwrap_or(6), sp.alt)),
        b'e' => ("", expo(a, sp.prec.unwrap_or(6), sp.alt, upper)),
        b'g' => ("", general(a, sp.prec.unwrap_or(6), sp.alt, upper)),
        _ => (if upper { "0X" } else { "0x" }, hexf(a, sp.prec, sp.alt, upper)),
    };
    let len = sign.len() + prefix.len() + body.len();
    let fill = sp.width.saturating_sub(len);
    if sp.zero && !sp.left {
        out.extend_from_slice(sign.as_bytes());
        out.extend_from_slice(prefix.as_bytes());
        out.resize(out.len() + fill, b'0');
        out.extend_from_slice(body.as_bytes());
        return;
    }
    if !sp.left {
        out.resize(out.len() + fill, b' ');
    }
    out.extend_from_slice(sign.as_bytes());
    out.extend_from_slice(prefix.as_bytes());
    out.extend_from_slice(body.as_bytes());
    if sp.left {
        out.resize(out.len() + fill, b' ');
    }
}

/// Digits past which a double's decimal expansion is all zeros: it has at
/// most 1,074 digits after the point (2^-1074 is the smallest subnormal)
/// and at most 767 significant digits. Rust's formatting takes precisions
/// below 65,535 only (it panics above), so longer ones are formatted at
/// this precision, which is exact, and the zeros appended.
const EXACT_DIGITS: usize = 1100;

/// `%f` of a non-negative finite value: Rust's formatting is exact and
/// rounds ties to even, as glibc does in the default rounding mode.
fn fixed(a: f64, p: usize, alt: bool) -> String {
    let q = p.min(EXACT_DIGITS);
    let mut s = format!("{a:.q$}");
    s.push_str(&"0".repeat(p - q));
    if p == 0 && alt {
        s.push('.');
    }
    s
}

/// Rust's `{:.pe}` ("1.5e2") with C's exponent ("1.5e+02"), and the
/// decimal exponent.
fn sci(a: f64, p: usize) -> (String, i32) {
    let q = p.min(EXACT_DIGITS);
    let s = format!("{a:.q$e}");
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let mut m = m.to_string();
    m.push_str(&"0".repeat(p - q));
    (m, e.parse().unwrap_or(0))
}

fn exp_text(e: i32, upper: bool) -> String {
    format!("{}{}{:02}", if upper { 'E' } else { 'e' }, if e < 0 { '-' } else { '+' }, e.unsigned_abs())
}

fn expo(a: f64, p: usize, alt: bool, upper: bool) -> String {
    let (mut m, e) = sci(a, p);
    if p == 0 && alt {
        m.push('.');
    }
    m + &exp_text(e, upper)
}

/// `%g`: precision P (0 counts as 1); with X the exponent of the value
/// rounded to P digits, `%f` with precision P-1-X when P > X >= -4, else
/// `%e` with precision P-1; trailing zeros (and a final `.`) removed
/// unless `#`.
fn general(a: f64, p: usize, alt: bool, upper: bool) -> String {
    let p = p.max(1);
    let (_, x) = sci(a, p - 1);
    let mut s = if (x as i64) < p as i64 && x >= -4 {
        fixed(a, (p as i64 - 1 - x as i64) as usize, alt)
    } else {
        let (m, _) = sci(a, p - 1);
        let mut m = m;
        if alt && !m.contains('.') {
            m.push('.');
        }
        m + "\u{0}" // marks where the exponent goes
    };
    let exp = s.find('\u{0}');
    let (mut mant, tail) = match exp {
        Some(k) => (s[..k].to_string(), exp_text(x, upper)),
        None => (std::mem::take(&mut s), String::new()),
    };
    if !alt && mant.contains('.') {
        while mant.ends_with('0') {
            mant.pop();
        }
        if mant.ends_with('.') {
            mant.pop();
        }
    }
    mant + &tail
}

/// `%a` of a non-negative finite value, as glibc writes it: `1.hhhp+e` for
/// a normal value, `0.hhhp-1022` for a subnormal one, `0p+0` for zero;
/// without a precision the shortest exact digits, with one rounded to
/// nearest even (a carry may give a leading `2`).
fn hexf(a: f64, prec: Option<usize>, alt: bool, upper: bool) -> String {
    let bits = a.to_bits();
    let bexp = ((bits >> 52) & 0x7ff) as i32;
    let mut frac = bits & ((1u64 << 52) - 1);
    let (mut lead, e) = if bexp == 0 {
        if frac == 0 {
            (0u64, 0)
        } else {
            (0u64, -1022)
        }
    } else {
        (1u64, bexp - 1023)
    };
    let mut ndig = 13usize;
    if let Some(p) = prec {
        if p < 13 {
            let shift = 4 * (13 - p) as u32;
            let keep = frac >> shift;
            let rem = frac & ((1u64 << shift) - 1);
            let half = 1u64 << (shift - 1);
            let mut k = keep;
            // Ties to even: the last digit kept is the leading one when p = 0.
            let odd = if p == 0 { lead & 1 == 1 } else { keep & 1 == 1 };
            if rem > half || (rem == half && odd) {
                k += 1;
            }
            if p == 0 {
                lead += k;
                frac = 0;
            } else if k >> (4 * p) != 0 {
                lead += 1;
                frac = 0;
            } else {
                frac = k << shift;
            }
        }
        ndig = p;
    } else {
        while ndig > 0 && (frac >> (4 * (13 - ndig))) & 0xf == 0 {
            ndig -= 1;
        }
    }
    let mut digs = String::new();
    for k in 0..ndig {
        let d = if k < 13 { (frac >> (4 * (12 - k))) & 0xf } else { 0 };
        digs.push(std::char::from_digit(d as u32, 16).unwrap_or('0'));
    }
    let mut s = format!("{lead}");
    if !digs.is_empty() || alt {
        s.push('.');
    }
    s.push_str(&digs);
    s.push(if upper { 'P' } else { 'p' });
    s.push(if e < 0 { '-' } else { '+' });
    s.push_str(&e.unsigned_abs().to_string());
    if upper {
        s.to_ascii_uppercase()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Formats `fmt` with arguments packed as nvcc/clang pack them: each
    /// aligned to its own size in a byte buffer at address 0x1000.
    fn fmt_args(fmt: &str, args: &[(u32, u64)]) -> (String, i32) {
        let mut buf = Vec::new();
        for &(size, v) in args {
            let s = size as usize;
            buf.resize(buf.len().div_ceil(s) * s, 0xee);
            buf.extend_from_slice(&v.to_le_bytes()[..s]);
        }
        let strings: Vec<(u64, &[u8])> = vec![(0x2000, b"hello\0"), (0x3000, b"\0")];
        let mut read = |a: u64, size: u32| -> Result<u64, Trap> {
            let mut v = 0u64;
            for k in 0..size as u64 {
                let b = if a + k >= 0x1000 && a + k < 0x1000 + buf.len() as u64 {
                    buf[(a + k - 0x1000) as usize]
                } else if let Some((base, s)) = strings.iter().find(|(b, s)| a + k >= *b && a + k < b + s.len() as u64) {
                    s[(a + k - base) as usize]
                } else {
                    return Err(Trap::new(TrapKind::OutOfBounds, format!("{:#x}", a + k)));
                };
                v |= (b as u64) << (8 * k);
            }
            Ok(v)
        };
        let mut out = Vec::new();
        let n = format(fmt.as_bytes(), 0x1000, &mut read, &mut out).expect("formats");
        (String::from_utf8(out).expect("utf8"), n)
    }

    fn i(v: i32) -> (u32, u64) {
        (4, v as u32 as u64)
    }
    fn l(v: i64) -> (u32, u64) {
        (8, v as u64)
    }
    fn d(v: f64) -> (u32, u64) {
        (8, v.to_bits())
    }

    // Expected strings: what glibc 2.35's printf writes for the same
    // format and values (C's rules), checked by hand against C11 7.21.6.1.

    #[test]
    fn integers() {
        assert_eq!(fmt_args("%d|%5d|%-5d|%05d|%+d|% d|%.3d|%.0d|%i", &[i(42), i(-42), i(7), i(-7), i(3), i(3), i(5), i(0), i(-1)]), ("42|  -42|7    |-0007|+3| 3|005||-1".into(), 9));
        assert_eq!(fmt_args("%u %x %X %o %#x %#o %#X %#x", &[i(-1), i(255), i(255), i(8), i(255), i(8), i(0xab), i(0)]), ("4294967295 ff FF 10 0xff 010 0XAB 0".into(), 8));
        assert_eq!(fmt_args("%ld %lld %lu %lx %hd %hhd %hu %hhx", &[l(-5_000_000_000), l(i64::MIN), l(-1), l(0x1234_5678_9abc), i(70000), i(300), i(-1), i(0x1ff)]), ("-5000000000 -9223372036854775808 18446744073709551615 123456789abc 4464 44 65535 ff".into(), 8));
        assert_eq!(fmt_args("%#.0o %#5x %-#8x| %08.3d|%-08d|", &[i(0), i(1), i(1), i(-5), i(-5)]), ("0   0x1 0x1     |     -005|-5      |".into(), 5));
    }

    #[test]
    fn alignment_of_mixed_arguments() {
        // int, then a double aligned to 8 (4 bytes of padding), then an int,
        // then a 64-bit integer aligned to 8.
        assert_eq!(fmt_args("%d %f %d %lld", &[i(1), d(2.5), i(3), l(4)]), ("1 2.500000 3 4".into(), 4));
    }

    #[test]
    fn floats() {
        assert_eq!(fmt_args("%f %.2f %10.3f %-10.1f| %+f %08.2f %.0f %#.0f", &[d(1.5), d(0.125), d(-3.14159), d(2.25), d(1.0), d(-1.5), d(2.5), d(3.0)]), ("1.500000 0.12     -3.142 2.2       | +1.000000 -0001.50 2 3.".into(), 8));
        assert_eq!(fmt_args("%e %.2E %e %.0e %#.0e %e", &[d(12345.678), d(0.000123), d(0.0), d(5e-300), d(1.0), d(-1e100)]), ("1.234568e+04 1.23E-04 0.000000e+00 5e-300 1.e+00 -1.000000e+100".into(), 6));
        assert_eq!(fmt_args("%g %g %g %g %g %G %.3g %#g %g %g", &[d(100000.0), d(1000000.0), d(0.0001), d(0.00001), d(1.5), d(1e-10), d(3.14159), d(1.0), d(0.0), d(123456789.0)]), ("100000 1e+06 0.0001 1e-05 1.5 1E-10 3.14 1.00000 0 1.23457e+08".into(), 10));
        assert_eq!(fmt_args("%f %F %e %g %5.1f|%-6f|%+f %f", &[d(f64::INFINITY), d(f64::NEG_INFINITY), d(f64::NAN), d(-f64::NAN), d(f64::INFINITY), d(f64::NAN), d(f64::INFINITY), d(-0.0)]), ("inf -INF nan -nan   inf|nan   |+inf -0.000000".into(), 8));
    }

    #[test]
    fn hex_floats() {
        assert_eq!(fmt_args("%a %a %A %a %a %a", &[d(1.0), d(3.0), d(-0.1), d(0.0), d(f64::MIN_POSITIVE / 4.0), d(5e-324)]), ("0x1p+0 0x1.8p+1 -0X1.999999999999AP-4 0x0p+0 0x0.4p-1022 0x0.0000000000001p-1022".into(), 6));
        assert_eq!(fmt_args("%.1a %.0a %.2a %#a %.3a", &[d(1.96875), d(1.5), d(1.0), d(1.0), d(0.1)]), ("0x2.0p+0 0x2p+0 0x1.00p+0 0x1.p+0 0x1.99ap-4".into(), 5));
    }

    #[test]
    fn chars_strings_pointers() {
        assert_eq!(fmt_args("[%c%3c%-3c] [%s] [%.2s] [%8s] [%-7s] [%s] [%s] [%.3s]", &[i(65), i(66), i(67), (8, 0x2000), (8, 0x2000), (8, 0x2000), (8, 0x2000), (8, 0x3000), (8, 0), (8, 0)]), ("[A  BC  ] [hello] [he] [   hello] [hello  ] [] [(null)] []".into(), 10));
        assert_eq!(fmt_args("%p %p %18p", &[(8, 0x7f00_1234), (8, 0), (8, 0xabc)]), ("0x7f001234 (nil)              0xabc".into(), 3));
    }

    #[test]
    fn stars_percent_and_unknown() {
        assert_eq!(fmt_args("%*d|%-*d|%.*f|%*.*f|%%|%5%|%y|%", &[i(5), i(1), i(4), i(2), i(2), d(3.14159), i(-6), i(1), d(2.25)]), ("    1|2   |3.14|2.2   |%|%|%y|%".into(), 9));
    }

    #[test]
    fn no_arguments_and_the_32_argument_limit() {
        assert_eq!(fmt_args("plain text\n", &[]), ("plain text\n".into(), 0));
        let f = "%d ".repeat(34);
        let args: Vec<(u32, u64)> = (0..34).map(i).collect();
        let want = (0..32).map(|k| format!("{k} ")).collect::<String>() + "%d %d ";
        assert_eq!(fmt_args(&f, &args), (want, 32));
    }

    #[test]
    fn a_string_without_nul_stops_at_its_bound() {
        let mut read = |a: u64, size: u32| -> Result<u64, Trap> {
            let b = |x: u64| if x < (1 << 21) { 0x41u64 } else { 0 };
            Ok((0..size as u64).fold(0, |v, k| v | b(a + k) << (8 * k)))
        };
        let e = read_cstr(&mut read, 0, u64::MAX, "a `%s` string").unwrap_err();
        assert!(e.message.contains("no terminating NUL"), "{}", e.message);
    }

    /// glibc's `snprintf` of one double with a `*` width and precision,
    /// the independent reference for the float conversions.
    #[allow(unsafe_code)]
    fn glibc(fmt: &str, width: i32, prec: i32, v: f64) -> Vec<u8> {
        use std::ffi::{c_char, c_int, CString};
        extern "C" {
            fn snprintf(buf: *mut c_char, n: usize, fmt: *const c_char, ...) -> c_int;
        }
        let f = CString::new(fmt).expect("no NUL");
        // SAFETY: a NULL buffer of size 0 only measures; the second call
        // writes at most `n + 1` bytes into a buffer of that size.
        let n = unsafe { snprintf(std::ptr::null_mut(), 0, f.as_ptr(), width as c_int, prec as c_int, v) };
        assert!(n >= 0, "glibc failed on {fmt}");
        let mut buf = vec![0u8; n as usize + 1];
        let m = unsafe { snprintf(buf.as_mut_ptr().cast(), buf.len(), f.as_ptr(), width as c_int, prec as c_int, v) };
        assert_eq!(m, n);
        buf.truncate(n as usize);
        buf
    }

    fn ours(fmt: &str, width: i32, prec: i32, v: f64) -> Vec<u8> {
        let (s, n) = fmt_args(fmt, &[i(width), i(prec), d(v)]);
        assert_eq!(n, 3);
        s.into_bytes()
    }

    /// The precisions, which used to panic inside Rust's float
    /// formatting (65,535 for `%e`, 65,536 for every conversion).
    #[test]
    fn huge_precisions_match_glibc() {
        for conv in ["f", "e", "g", "a", "E", "G"] {
            for prec in [65534, 65535, 65536, 100_000, 1 << 20] {
                for v in [1.5, -0.1, 1e300, 5e-324, 0.0, 123456789.125] {
                    let fmt = format!("%*.*{conv}");
                    assert!(ours(&fmt, 0, prec, v) == glibc(&fmt, 0, prec, v), "{fmt} prec {prec} of {v:e}");
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
        /// Every float conversion with any flags, widths and precisions up
        /// to the 1 MiB field cap (`MAX_FIELD`), on any double's bits,
        /// equals glibc's output.
        #[test]
        fn float_conversions_match_glibc(
            bits in proptest::prelude::any::<u64>(),
            conv in proptest::sample::select(vec!["f", "F", "e", "E", "g", "G", "a", "A"]),
            flags in proptest::sample::subsequence(vec!["-", "+", " ", "#", "0"], 0..=5),
            width in proptest::prop_oneof![0i32..40, 0i32..=(MAX_FIELD as i32)],
            prec in proptest::prop_oneof![-1i32..40, 0i32..1200, 0i32..=(MAX_FIELD as i32)],
        ) {
            let v = f64::from_bits(bits);
            let fmt = format!("%{}*.*{conv}", flags.concat());
            let (a, b) = (ours(&fmt, width, prec, v), glibc(&fmt, width, prec, v));
            proptest::prop_assert!(a == b, "{} width {} prec {} of {:e} ({:#x}): ours {} bytes, glibc {} bytes; first difference at {:?}", fmt, width, prec, v, bits, a.len(), b.len(), a.iter().zip(&b).position(|(x, y)| x != y));
        }
    }

}

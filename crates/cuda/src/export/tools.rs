//! The tables the runtime asks for on behalf of tools (profilers,
//! debuggers, sanitizers): none is attached here, so they hand out the
//! storage the runtime writes into and otherwise refuse.
//!
//! - Tools TLS (`42d85a81-23f6-cb47-8298-f6e78a3aecdc`): only its size is
//!   read; its three function slots are unknown.
//! - Tools runtime callback hooks (`a094798c-2e74-2e74-93f2-0800200c0a66`):
//!   slots 2 and 6 give the runtime a buffer and its size (in 32-bit
//!   words), which it fills and this driver never reads.
//! - The tools context table ([`CONTEXT_UUID`]), asked for by cudart 13.x:
//!   every slot returns CUDA_ERROR_NOT_SUPPORTED, which the runtime takes
//!   as "no tool attached".

use super::{size_of_slots, Named, Table};
use crate::report;
use std::cell::UnsafeCell;
use std::os::raw::c_void;

pub const TLS_NAME: &str = "tools TLS";
pub const CALLBACKS_NAME: &str = "tools runtime callback hooks";
pub const CONTEXT_NAME: &str = "tools context";
pub const CONTEXT_UUID: &str = "21318c60-9714-3248-8ca6-41ff7324c8f2";

pub struct Tls;
impl Named for Tls {
    const NAME: &'static str = TLS_NAME;
}
pub struct Callbacks;
impl Named for Callbacks {
    const NAME: &'static str = CALLBACKS_NAME;
}
pub struct ToolsContext;
impl Named for ToolsContext {
    const NAME: &'static str = CONTEXT_NAME;
}

pub static TLS: Table<4> = Table([size_of_slots(4), crate::unknown!(Tls, 1), crate::unknown!(Tls, 2), crate::unknown!(Tls, 3)]);

pub static CALLBACKS: Table<7> = Table([
    size_of_slots(7),
    crate::unknown!(Callbacks, 1),
    buffer1 as *const c_void,
    crate::unknown!(Callbacks, 3),
    crate::unknown!(Callbacks, 4),
    crate::unknown!(Callbacks, 5),
    buffer2 as *const c_void,
]);

/// Storage handed to the runtime, which writes it (from any thread) and
/// which this driver never reads.
struct Buffer<const S: usize>(UnsafeCell<[u32; S]>);
// SAFETY: only the runtime touches the contents, through the pointer.
unsafe impl<const S: usize> Sync for Buffer<S> {}

static BUFFER1: Buffer<1024> = Buffer(UnsafeCell::new([0; 1024]));
static BUFFER2: Buffer<14> = Buffer(UnsafeCell::new([0; 14]));

unsafe extern "C" fn buffer1(ptr: *mut *mut c_void, size: *mut usize) {
    report::log("tools runtime callback hooks[2]: a buffer of 1024 words");
    if !ptr.is_null() {
        *ptr = BUFFER1.0.get().cast();
    }
    if !size.is_null() {
        *size = 1024;
    }
}

unsafe extern "C" fn buffer2(ptr: *mut *mut c_void, size: *mut usize) {
    report::log("tools runtime callback hooks[6]: a buffer of 14 words");
    if !ptr.is_null() {
        *ptr = BUFFER2.0.get().cast();
    }
    if !size.is_null() {
        *size = 14;
    }
}

macro_rules! context_table {
    ($($i:literal)*) => {
        pub static CONTEXT: Table<{ 1 + [$($i),*].len() }> = Table([size_of_slots(1 + [$($i),*].len()), $(crate::unknown!(ToolsContext, $i)),*]);
    };
}
context_table!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63);

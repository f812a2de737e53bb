//! `cuGetExportTable`: the driver's private function tables, looked up by
//! UUID, that the CUDA runtime (every nvcc program's static cudart, the
//! shared libcudart, CuPy, PyTorch) needs before any runtime call works.
//!
//! Owns: the table registry ([`TABLES`]), the layout every table shares
//! ([`Table`]: slot 0 is usually the table's size in bytes, the other slots
//! are function pointers), the stand-in for slots whose meaning is not
//! known ([`unknown_slot`], one instance per table and index), and the
//! call log of every request and slot call (`PTXSIM_LOG=1`). One file per
//! table:
//! - `runtime`: the runtime interface (`6bd5fb6c-…`): modules from
//!   registered fatbins, the primary context.
//! - `tools`: tools TLS (`42d85a81-…`), tools runtime callback hooks
//!   (`a094798c-…`) and the tools context table (`21318c60-…`).
//! - `context_storage`: context-local storage (`c693336e-…`): values the
//!   runtime keeps per context, with destructor callbacks run when the
//!   context is reset or destroyed.
//! - `integrity`: the integrity check (`d4082055-…`), an HMAC-MD2 over the
//!   versions, process, thread, table addresses, a timestamp and the devices.
//! - `misc`: context checks (`263e8860-…`), the context-creation bypass
//!   (`0ca50b8c-…`), heap access (`195bcbf4-…`) and the extended device
//!   table (`b10541e1-…`).
//!
//! Sources: the facts about each slot come from ZLUDA's public `dark_api`
//! description (github vosen/ZLUDA) and from running nvcc 13.5 programs
//! against this library with `PTXSIM_LOG=1`; the code is this project's.
//!
//! Invariants: a table is a `static`, so its address (which the integrity
//! check hashes and the runtime compares) never changes; a slot whose
//! meaning is unknown is never null: it logs its table and index and
//! returns CUDA_ERROR_NOT_SUPPORTED (the x86-64 C ABI lets a function that
//! reads no arguments stand for one called with any); an unknown UUID is
//! CUDA_ERROR_NOT_SUPPORTED with a NULL table.

pub mod context_storage;
pub mod integrity;
pub mod misc;
pub mod runtime;
pub mod tools;

use crate::report;
use crate::state::{entry, put};
use crate::types::*;
use std::os::raw::c_void;

/// A private table: `N` pointer-sized slots, slot 0 the size in bytes.
#[repr(C)]
pub struct Table<const N: usize>(pub [*const c_void; N]);

// SAFETY: the slots are function addresses and a size, never written.
unsafe impl<const N: usize> Sync for Table<N> {}

impl<const N: usize> Table<N> {
    /// The table's first slot, what `cuGetExportTable` hands out.
    pub fn start(&'static self) -> *const c_void {
        self.0.as_ptr().cast()
    }
}

/// Slot 0 of a table of `n` slots: its size in bytes.
pub const fn size_of_slots(n: usize) -> *const c_void {
    (n * std::mem::size_of::<usize>()) as *const c_void
}

/// A table's name, for the log of its unknown slots.
pub trait Named {
    const NAME: &'static str;
}

/// What a slot whose meaning is not known does when called: says its table
/// and index on stderr (once per slot) and returns CUDA_ERROR_NOT_SUPPORTED (which the runtime
/// reports as an error or tolerates, never a crash). One instance per
/// (table, index), so the log can name both.
pub(crate) unsafe extern "C" fn unknown_slot<T: Named, const I: usize>() -> CUresult {
    report::notice_each(&format!("export table {}: slot {I} is not implemented -> CUDA_ERROR_NOT_SUPPORTED", T::NAME));
    CUDA_ERROR_NOT_SUPPORTED
}

/// `unknown_slot::<T, I> as *const c_void` for one index.
#[macro_export]
#[doc(hidden)]
macro_rules! unknown {
    ($t:ty, $i:literal) => {
        $crate::export::unknown_slot::<$t, $i> as *const std::os::raw::c_void
    };
}

/// A UUID as the runtime writes it: `6bd5fb6c-5bf4-e74a-8987-d93912fd9df9`
/// (the 16 bytes in order, grouped 4-2-2-2-6).
pub fn uuid_text(id: &[u8; 16]) -> String {
    let h: Vec<String> = id.iter().map(|b| format!("{b:02x}")).collect();
    format!("{}-{}-{}-{}-{}", h[0..4].concat(), h[4..6].concat(), h[6..8].concat(), h[8..10].concat(), h[10..16].concat())
}

/// Parses [`uuid_text`]'s form (used to write the registry readably).
const fn uuid(s: &str) -> [u8; 16] {
    let b = s.as_bytes();
    let mut out = [0u8; 16];
    let (mut i, mut n) = (0, 0);
    while i < b.len() {
        if b[i] == b'-' {
            i += 1;
            continue;
        }
        out[n / 2] = (out[n / 2] << 4) | hex(b[i]);
        n += 1;
        i += 1;
    }
    assert!(n == 32, "a UUID has 32 hex digits");
    out
}

const fn hex(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        b'A'..=b'F' => c - b'A' + 10,
        _ => panic!("not a hex digit"),
    }
}

/// Every table: (UUID, name, its first slot).
pub fn tables() -> [([u8; 16], &'static str, *const c_void); 10] {
    [
        (uuid("6bd5fb6c-5bf4-e74a-8987-d93912fd9df9"), runtime::NAME, runtime::TABLE.start()),
        (uuid("42d85a81-23f6-cb47-8298-f6e78a3aecdc"), tools::TLS_NAME, tools::TLS.start()),
        (uuid("a094798c-2e74-2e74-93f2-0800200c0a66"), tools::CALLBACKS_NAME, tools::CALLBACKS.start()),
        (uuid(tools::CONTEXT_UUID), tools::CONTEXT_NAME, tools::CONTEXT.start()),
        (uuid("c693336e-1121-df11-a8c3-68f355d89593"), context_storage::NAME, context_storage::TABLE.start()),
        (uuid("d4082055-bde6-704b-8d34-ba123c66e1f2"), integrity::NAME, integrity::TABLE.start()),
        (uuid("263e8860-7cd2-6143-92f6-bbd5006dfa7e"), misc::CHECKS_NAME, misc::CHECKS.start()),
        (uuid("0ca50b8c-1004-929a-89a7-d0df10e77286"), misc::BYPASS_NAME, misc::BYPASS.start()),
        (uuid("195bcbf4-d67d-024a-acc5-1d29cea631ae"), misc::HEAP_NAME, misc::HEAP.start()),
        (uuid("b10541e1-f7c7-c74a-9f64-f223be99f1e2"), misc::DEVICE_NAME, misc::DEVICE.start()),
    ]
}

/// The table for `id`: (name, first slot).
pub fn lookup(id: &[u8; 16]) -> Option<(&'static str, *const c_void)> {
    tables().into_iter().find(|(u, _, _)| u == id).map(|(_, n, t)| (n, t))
}

/// `cuGetExportTable(ppExportTable, pExportTableId)`: the private table
/// with that UUID, or CUDA_ERROR_NOT_SUPPORTED and NULL for a UUID this
/// driver has no table for; a null argument is CUDA_ERROR_INVALID_VALUE.
/// Every request is logged with its UUID and the table's name.
///
/// # Safety
/// `table` is null or valid for a write; `id` is null or points at 16 bytes.
#[no_mangle]
pub unsafe extern "C" fn cuGetExportTable(table: *mut *const c_void, id: *const [u8; 16]) -> CUresult {
    entry("cuGetExportTable", false, || {
        if table.is_null() || id.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let id = *id;
        match lookup(&id) {
            Some((name, t)) => {
                report::log(&format!("cuGetExportTable: UUID {} is the {name} table", uuid_text(&id)));
                put(table, t)
            }
            None => {
                report::log(&format!("cuGetExportTable: no table for UUID {} (not supported)", uuid_text(&id)));
                put(table, std::ptr::null())?;
                Err(CUDA_ERROR_NOT_SUPPORTED)
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_distinct_and_print_back() {
        let t = tables();
        for (i, (u, _, _)) in t.iter().enumerate() {
            assert!(t[i + 1..].iter().all(|(v, _, _)| v != u));
            assert_eq!(uuid(&uuid_text(u)), *u);
        }
        assert_eq!(uuid_text(&uuid("6bd5fb6c-5bf4-e74a-8987-d93912fd9df9")), "6bd5fb6c-5bf4-e74a-8987-d93912fd9df9");
    }

    #[test]
    fn slot_zero_is_the_size() {
        assert_eq!(runtime::TABLE.0[0] as usize, runtime::TABLE.0.len() * 8);
        assert_eq!(integrity::TABLE.0[0] as usize, integrity::TABLE.0.len() * 8);
    }
}

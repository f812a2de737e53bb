//! The small tables: context checks (`263e8860-7cd2-6143-92f6-bbd5006dfa7e`),
//! the context-creation bypass (`0ca50b8c-1004-929a-89a7-d0df10e77286`),
//! heap access (`195bcbf4-d67d-024a-acc5-1d29cea631ae`) and the extended
//! device table (`b10541e1-f7c7-c74a-9f64-f223be99f1e2`).
//!
//! - Context checks: slot 2 `context_check(ctx, *u32, *ptr)` reports 0 in
//!   its first output (no flag set: the flags it reports on a GPU are
//!   never observably set), slot 3 returns 0.
//! - Bypass: slot 1 is `cuCtxCreate_v2(pctx, flags, dev)`.
//! - Heap access and the extended device table: their slots are unknown
//!   here and return CUDA_ERROR_NOT_SUPPORTED.

use super::{size_of_slots, Named, Table};
use crate::report;
use crate::types::*;
use std::os::raw::{c_uint, c_void};

pub const CHECKS_NAME: &str = "context checks";
pub const BYPASS_NAME: &str = "context-creation bypass";
pub const HEAP_NAME: &str = "heap access";
pub const DEVICE_NAME: &str = "extended device";

pub struct Checks;
impl Named for Checks {
    const NAME: &'static str = CHECKS_NAME;
}
pub struct Heap;
impl Named for Heap {
    const NAME: &'static str = HEAP_NAME;
}
pub struct Dev;
impl Named for Dev {
    const NAME: &'static str = DEVICE_NAME;
}

pub static CHECKS: Table<4> = Table([size_of_slots(4), crate::unknown!(Checks, 1), context_check as *const c_void, check3 as *const c_void]);

pub static BYPASS: Table<2> = Table([size_of_slots(2), ctx_create_bypass as *const c_void]);

pub static HEAP: Table<3> = Table([size_of_slots(3), crate::unknown!(Heap, 1), crate::unknown!(Heap, 2)]);

macro_rules! device_table {
    ($($i:literal)*) => {
        pub static DEVICE: Table<{ 1 + [$($i),*].len() }> = Table([size_of_slots(1 + [$($i),*].len()), $(crate::unknown!(Dev, $i)),*]);
    };
}
device_table!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25);

unsafe extern "C" fn context_check(_ctx: Handle, flags: *mut u32, _out: *mut *const c_void) -> CUresult {
    report::log("context checks[2]: no flag set");
    if !flags.is_null() {
        *flags = 0;
    }
    CUDA_SUCCESS
}

unsafe extern "C" fn check3() -> u32 {
    report::log("context checks[3]: 0");
    0
}

unsafe extern "C" fn ctx_create_bypass(pctx: *mut Handle, flags: c_uint, dev: CUdevice) -> CUresult {
    report::log("context-creation bypass[1]: cuCtxCreate_v2");
    crate::context::cuCtxCreate_v2(pctx, flags, dev)
}

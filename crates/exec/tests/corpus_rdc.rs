//! The separately compiled pair of `tests/corpus_pending/nvcc_rdc`
//! (`nvcc -rdc=true`, sources `tests/corpus/src/rdc/`): `rdc_main.ptx` calls
//! two `.extern .func`s and reads an `.extern .global` that `rdc_lib.ptx`
//! defines. ptxas accepts each module with `-c` and nvlink links them
//! (`verdicts.txt`); ptxsim has no linking yet, so the checker rejects the
//! calls of `rdc_main.ptx` as whole-program ptxas does.
//!
//! This test pins what ptxsim reports today. When `ptxsim check` accepts
//! `.extern` calls or modules can be linked, it fails: the pair then needs a
//! launch of the linked kernel with independently computed expected output.

mod corpus_launch;

use corpus_launch::*;
use ptxsim_exec::{Device, TrapKind};

#[test]
fn rdc_library_module_loads_alone() {
    let mut dev = Device::new();
    let text = tests_text("corpus_pending/nvcc_rdc/rdc_lib.ptx");
    let m = dev.load_named("rdc_lib.ptx", &text).unwrap_or_else(|e| panic!("rdc_lib.ptx should load on its own: {e}"));
    assert!(m.kernels().is_empty(), "rdc_lib.ptx defines device functions only");
}

#[test]
fn rdc_kernel_module_is_rejected_until_modules_can_be_linked() {
    let mut dev = Device::new();
    let text = tests_text("corpus_pending/nvcc_rdc/rdc_main.ptx");
    match dev.load_named("rdc_main.ptx", &text) {
        Ok(_) => panic!(
            "rdc_main.ptx now loads: ptxsim accepts calls to `.extern` functions. Add a launch of the \
             linked pair (rdc_main.ptx + rdc_lib.ptx) with an independently computed expected output, \
             and update tests/corpus_pending/README.md"
        ),
        Err(e) => {
            assert_eq!(e.kind, TrapKind::LoadError, "{e}");
            for f in ["_Z8rdc_polyf", "_Z9rdc_counti"] {
                assert!(
                    e.message.contains(&format!("`{f}` is called but never defined in this module")),
                    "the checker's report should name the unresolved call to {f}: {e}"
                );
            }
            assert_eq!(e.message.matches("error[check/call-target]").count(), 2, "{e}");
        }
    }
}

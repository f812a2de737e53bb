//! Labels are scoped by `{}` blocks: a branch goes to the label of its name
//! in its own block or the nearest enclosing one, so blocks may reuse a
//! name. CUDA's inline assembly relies on it: each expansion of CUTLASS's
//! mbarrier wait is a block with its own `LAB_WAIT:` / `DONE:` spin loop,
//! several in one kernel. Expected values are computed here by formula.

use crate::support::words::{run_words, words_kernel};
use ptxsim_exec::Scheduling;

/// Two blocks with the same labels `L` and `DONE`, and the body's own
/// `DONE` after them: block one adds 1 unless x == 0 (a forward branch to
/// its `DONE`), block two adds 10 once per pass of a loop on its `L` that
/// runs x & 3 times, then a branch to the body's `DONE` skips adding 100
/// unless x == 5. A branch resolved to another block's label runs the
/// wrong additions (or loops forever).
const BODY: &str = r#"    mov.u32 %r2, 0;
    {
    .reg .pred p;
    setp.eq.u32 p, %r1, 0;
    @p bra DONE;
    add.u32 %r2, %r2, 1;
DONE:
    }
    {
    .reg .pred p;
    .reg .b32 n;
    and.b32 n, %r1, 3;
    setp.eq.u32 p, n, 0;
    @p bra DONE;
L:
    add.u32 %r2, %r2, 10;
    sub.u32 n, n, 1;
    setp.ne.u32 p, n, 0;
    @p bra L;
DONE:
    }
    {
    .reg .pred p;
    setp.ne.u32 p, %r1, 5;
    @p bra DONE;
    add.u32 %r2, %r2, 100;
    }
DONE:
    st.global.u32 [%rd5], %r2;
"#;

fn expected(x: u32) -> u32 {
    u32::from(x != 0) + 10 * (x & 3) + if x == 5 { 100 } else { 0 }
}

#[test]
fn each_block_branches_to_its_own_label() {
    let src = words_kernel("7.0", "sm_70", 1, 1, BODY);
    let input: Vec<u32> = (0..32).collect();
    for mode in [Scheduling::Stack, Scheduling::Its] {
        let out = run_words(&src, 32, &input, 1, mode);
        let want: Vec<u32> = input.iter().map(|&x| expected(x)).collect();
        assert_eq!(out, want, "{mode:?}");
    }
}

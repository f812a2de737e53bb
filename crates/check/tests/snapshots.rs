//! Snapshots of the rendered diagnostics for a representative set of the
//! rejected verification files (one or more per rule), and for the
//! undefined-behaviour warnings. Review with `cargo insta review`, or accept
//! with `INSTA_UPDATE=always`.

use ptxsim_syntax::{Diagnostic, SourceFile};
use std::path::PathBuf;

fn render(name: &str, text: &str) -> String {
    let parsed = ptxsim_syntax::parse(text);
    let mut diags = parsed.diagnostics;
    if !diags.iter().any(Diagnostic::is_error) {
        diags.extend(ptxsim_check::check_module_mode(&parsed.module, usize::MAX, ptxsim_check::Mode::WholeProgram).diagnostics);
    }
    SourceFile::new(name, text).render(&diags, false)
}

const REJECTED: &[&str] = &[
    "bra-target--register",
    "bra-target--label-in-other-function",
    "brx-index-type--u64",
    "brx-tlist--declared-after-use",
    "brx-tlist--foreign-label",
    "brx-tlist--plain-label",
    "brx-tlist--table-in-inner-block",
    "brx-gating--target-sm_20",
    "modifiers--fma-no-rounding-f32",
    "modifiers--add-rn-u32",
    "carry-chain--madc-lo-sat",
    "carry-chain--add-cc-u64-4.2",
    "scalar-operands--createpolicy-fraction-1.5",
    "scalar-operands--dp2a-no-half",
    "collective-operands--redux-f32-sm_100",
    "collective-operands--match-any-pred",
    "sink--shfl-value",
    "sink--source-vector",
    "feature-gating--barrier-cluster-sem-version-7.8",
    "feature-gating--clusterid-sm_89",
    "call-args--u32-formal-f32-arg",
    "call-args--align-mismatch",
    "call-args--array-vs-scalar",
    "call-args--too-many",
    "call-args--extern-decl",
    "call-args--param-in-module-scope",
    "call-return--type",
    "call-target--defined-later",
    "call-target--entry",
    "call-indirect--calltargets-sig-mismatch",
    "call-indirect--callprototype-after-call",
    "call-indirect--no-flist",
    "call-indirect--table-before-function-decl",
    "call-indirect--flist-scalar",
    "call-indirect--version-2.0",
    "setp-cmp-type--s32-lo",
    "setp-cmp-type--b32-lt",
    "setp-cmp-type--u32-nan",
    "setp-boolop--c-without-boolop",
    "setp-dest--int-second-dest",
    "setp-ftz--f64",
    "setp-f16--sm_52",
    "selp-type--int-selector",
    "pred-logic--add-pred",
    "pred-logic--guard-u32",
    "pred-logic--mov-u32-from-pred",
    "nanosleep-gating--version-6.1",
    "nanosleep-operand--u64-reg",
    "operand-type--mov-u32-f32",
    "operand-type--tid-no-component",
    "operand-type--ld-u64-into-u32",
    "scope-var--inner-used-outside",
    "scope-var--duplicate-range-overlap",
    "scope-var--prototype-mismatch",
    "label-scope--inner-label-from-sibling-block",
    "label-scope--duplicate-label",
    "state-space--ld-global-shared-symbol",
    "state-space--st-param-entry",
    "state-space--reg-in-brackets",
    "uni-modifier--add-uni",
    "ret-exit--ret-operand",
    "gating--version-target-mismatch",
    "mut-switch--m2",
    "atom-operands--add-u32-u64-dest",
    "atom-operands--add-b32",
    "atom-operands--const-space",
    "red-operands--destination",
    "shfl-operands--pred-source",
    "shfl-operands--legacy-sm_70",
    "vote-operands--ballot-u64-dest",
    "bar-operands--f32-id",
    "bar-operands--symbol-id",
    "bitfield-operands--bfe-u64-pos",
];

#[test]
fn rejected_files() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/check/reject");
    for name in REJECTED {
        let path = format!("{name}.ptx");
        let text = std::fs::read_to_string(root.join(&path)).expect("read");
        let out = render(&path, &text);
        assert!(out.contains("error["), "{name}: no error");
        insta::assert_snapshot!(name.replace('.', "_"), out);
    }
}

const WARNINGS: &[(&str, &str)] = &[
    (
        "warn-brx-index-out-of-range",
        ".version 7.8
.target sm_70
.address_size 64
.visible .entry k()
{
  L0:
  L1:
  ts: .branchtargets L0, L1;
  brx.idx 2, ts;
  ret;
}
",
    ),
    (
        "warn-uni-divergent-branch",
        ".version 7.8
.target sm_70
.address_size 64
.visible .entry k()
{
  .reg .u32 %t;
  .reg .pred %p;
  mov.u32 %t, %tid.x;
  setp.lt.u32 %p, %t, 16;
  @%p bra.uni DONE;
  add.u32 %t, %t, 1;
DONE:
  ret;
}
",
    ),
    (
        "warn-prototype-unmatched",
        ".version 7.8
.target sm_70
.address_size 64
.func (.param .u32 r) inc(.param .u32 a)
{
  .reg .u32 %x;
  ld.param.u32 %x, [a];
  st.param.u32 [r], %x;
  ret;
}
.visible .entry k(.param .u64 fp)
{
  .reg .u64 %f;
  .param .u64 pa;
  .param .u64 pr;
  ld.param.u64 %f, [fp];
  pt: .callprototype (.param .u64 _) _ (.param .u64 _);
  call (pr), %f, (pa), pt;
  ret;
}
",
    ),
];

#[test]
fn warnings() {
    for (name, text) in WARNINGS {
        let out = render(&format!("{name}.ptx"), text);
        assert!(out.contains("warning[") && !out.contains("error["), "{name}:\n{out}");
        insta::assert_snapshot!(*name, out);
    }
}

//! Constant expressions against ptxas 13.5's verdicts: each operator of PTX
//! ISA 4.5.6 is accepted in an instruction operand and an initialiser, and a
//! division by zero or a float mixed into an integer expression is refused
//! (ptxas 13.5: "Constant expression has division by zero", "Constant
//! expression type mismatch"). Each verdict was taken from ptxas 13.5
//! (`-arch=sm_90a`) on the same text.

use ptxsim_syntax::Diagnostic;

const HEADER: &str = ".version 8.5\n.target sm_90a\n.address_size 64\n";

fn kernel(operand: &str) -> String {
    format!("{HEADER}.visible .entry k()\n{{\n.reg .b32 %r<4>;\nadd.u32 %r1, %r2, {operand};\nret;\n}}\n")
}

/// The errors of parsing and then checking `text`.
fn errors(text: &str) -> Vec<Diagnostic> {
    let parsed = ptxsim_syntax::parse(text);
    let mut diags = parsed.diagnostics;
    if !diags.iter().any(Diagnostic::is_error) {
        diags.extend(ptxsim_check::check_module_mode(&parsed.module, usize::MAX, ptxsim_check::Mode::WholeProgram).diagnostics);
    }
    diags.retain(Diagnostic::is_error);
    diags
}

#[test]
fn every_operator_is_accepted_as_ptxas_does() {
    for e in [
        "5 % 3",
        "(1 < 2)",
        "(1 == 1)",
        "(1 != 1)",
        "(2 >= 1)",
        "(1 && 0)",
        "(1 || 0)",
        "1 ? 2 : 3",
        "!0",
        "2 > 1 ? 4 : 5",
        "-5 % 2",
        "1 << 2 >> 1",
        "1 ? 2 : 3 ? 4 : 5",
        "1<2>3",
        "(.u64)-1",
        "+1",
        "1 + +1",
        "1.0 < 2.0",
    ] {
        let errs = errors(&kernel(e));
        assert!(errs.is_empty(), "`{e}`: {errs:?}");
    }
    let init = format!("{HEADER}.global .u32 a[4];\n.global .u64 g[3] = {{1 + 2 * 3 == 7 ? 10 : 20, a + (1 < 2), -5 % 2}};\n");
    assert!(errors(&init).is_empty(), "{:?}", errors(&init));
}

#[test]
fn division_by_zero_is_refused_as_ptxas_does() {
    for e in ["5 / 0", "5 % 0", "0 ? 1/0 : 2", "1 || 1/0", "0 && 1/0"] {
        let errs = errors(&kernel(e));
        assert_eq!(errs.len(), 1, "`{e}`: {errs:?}");
        assert!(errs[0].message.contains("division by zero"), "`{e}`: {}", errs[0].message);
    }
    let init = format!("{HEADER}.global .u32 a[4];\n.global .u64 g = a + 4 / 0;\n");
    assert!(errors(&init)[0].message.contains("division by zero"));
}

#[test]
fn a_float_in_an_integer_expression_is_refused_as_ptxas_does() {
    for e in ["(1.5 + 1)", "!1.0", "1 ? 1.0 : 2.0"] {
        let errs = errors(&kernel(e));
        assert_eq!(errs.len(), 1, "`{e}`: {errs:?}");
        assert_eq!(errs[0].code, "syntax/const-type", "`{e}`");
    }
    let init = format!("{HEADER}.global .u64 g = 1.5 + 1;\n");
    assert_eq!(errors(&init)[0].code, "syntax/const-type");
}

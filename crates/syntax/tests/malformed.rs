//! Malformed input: each `malformed/NAME.ptx` must give located errors whose
//! rendered text (codespan, no colour) matches the reviewed snapshot in
//! `malformed/snapshots/`. Every case also checks that parsing reports at least
//! one error, that all spans lie inside the input, and that the parser did not
//! give up without a diagnostic.
//!
//! To add a case: put the file in `malformed/`, add its name to `cases!` below,
//! run `INSTA_UPDATE=always cargo test -p ptxsim-syntax --test malformed`, then
//! read the new `.snap` file: a message that is wrong or unclear is a bug to fix.

mod common;

use ptxsim_syntax::{parse, SourceFile};
use std::path::Path;

fn dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/malformed")
}

fn render_case(name: &str) -> String {
    let path = dir().join(format!("{name}.ptx"));
    let text = common::read(&path);
    let parsed = parse(&text);
    assert!(parsed.has_errors(), "{name}: no error reported");
    for d in &parsed.diagnostics {
        for s in std::iter::once(d.primary.span).chain(d.secondary.iter().map(|l| l.span)) {
            assert!(s.start <= s.end && s.end as usize <= text.len(), "{name}: span {s:?} out of range");
        }
    }
    let file = format!("{name}.ptx");
    SourceFile::new(&file, &text).render(&parsed.diagnostics, false)
}

macro_rules! cases {
    ($($name:ident,)*) => {
        $(
            #[test]
            fn $name() {
                let out = render_case(stringify!($name));
                insta::with_settings!({
                    snapshot_path => "malformed/snapshots",
                    prepend_module_to_snapshot => false,
                    omit_expression => true,
                }, {
                    insta::assert_snapshot!(stringify!($name), out);
                });
            }
        )*

        /// Every file in `malformed/` has a test.
        #[test]
        fn every_file_is_a_case() {
            let listed = [$(stringify!($name)),*];
            for f in std::fs::read_dir(dir()).unwrap().flatten() {
                let p = f.path();
                if p.extension().is_some_and(|e| e == "ptx") {
                    let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
                    assert!(listed.contains(&stem.as_str()), "{stem}.ptx is not listed in cases!");
                }
            }
            assert!(listed.len() >= 30);
        }
    };
}

cases! {
    address_cut_after_plus,
    address_offset_not_constant,
    address_size_too_large,
    bad_hex_float_short,
    bad_hex_no_digits,
    bad_lowercase_suffix,
    bad_octal,
    callprototype_named,
    deep_operand_nesting,
    empty_statement,
    extra_closing_brace_in_body,
    extra_closing_brace_module,
    float_too_large,
    guard_without_predicate,
    guarded_block,
    instruction_at_module_level,
    int_too_large,
    missing_closing_brace,
    missing_function_name,
    missing_operand,
    missing_semicolon,
    missing_semicolon_no_operands,
    missing_semicolon_recovers,
    number_with_letters,
    param_missing_type,
    pred_pair_cut,
    register_count_missing,
    several_errors_recovered,
    stray_comma,
    stray_hash,
    stray_non_ascii,
    too_deep,
    truncated_after_version,
    truncated_in_initialiser,
    truncated_in_param_list,
    truncated_in_section,
    truncated_mid_instruction,
    truncated_mid_operand,
    unclosed_address,
    unclosed_call_list,
    unclosed_nested_block,
    unclosed_vector_operand,
    unknown_body_directive,
    unknown_header_directive,
    unknown_module_directive,
    unknown_type,
    unlabelled_branchtargets,
    unterminated_comment,
    unterminated_string,
    version_not_decimal,
}

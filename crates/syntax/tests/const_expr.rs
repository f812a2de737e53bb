//! Constant expressions (PTX ISA 4.5.5 "Integer Constant Expression
//! Evaluation", 4.5.6 "Summary of Constant Expression Evaluation Rules"):
//! every operator, C's precedence, the signed/unsigned typing rules, and the
//! errors ptxas reports. Expected values are worked out by hand from the
//! manual's rules; every integer value here was also produced by ptxas 13.5
//! (as the bytes of a `.global .u64` initialiser), and the accept/reject
//! verdicts are ptxas 13.5's. Every accepted expression is also printed and
//! re-parsed, and must come back the same.

use ptxsim_syntax::ast::*;
use ptxsim_syntax::cexpr::{eval_with, CVal};
use ptxsim_syntax::{parse, print_module, SourceFile};

const HEADER: &str = ".version 8.5\n.target sm_90a\n.address_size 64\n";

fn kernel(body: &str) -> String {
    format!("{HEADER}.visible .entry k()\n{{\n.reg .b32 %r<4>;\n.reg .f64 %fd<4>;\n.reg .b64 %rd<4>;\n{body}\n}}\n")
}

/// The Debug form of a module with every span (`START..END`) erased.
fn shape(m: &Module<'_>) -> String {
    let d = format!("{m:?}");
    let b = d.as_bytes();
    let mut out = String::with_capacity(d.len());
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_alphanumeric()) {
            let mut j = i;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            if d[j..].starts_with("..") {
                let mut k = j + 2;
                while k < b.len() && b[k].is_ascii_digit() {
                    k += 1;
                }
                if k > j + 2 {
                    out.push('#');
                    i = k;
                    continue;
                }
            }
        }
        out.push(b[i] as char);
        i += 1;
    }
    out
}

/// Parses `src` with no diagnostics, and checks print-then-parse gives the same AST.
fn ok(src: String) -> Module<'static> {
    let src: &'static str = Box::leak(src.into_boxed_str());
    let p = parse(src);
    if !p.diagnostics.is_empty() {
        panic!("unexpected diagnostics:\n{}", SourceFile::new("t.ptx", src).render(&p.diagnostics, false));
    }
    let printed = print_module(&p.module);
    let re = parse(&printed);
    assert!(!re.has_errors(), "printed text does not parse:\n{printed}");
    assert_eq!(shape(&re.module), shape(&p.module), "print+parse changed the AST; printed:\n{printed}");
    p.module
}

fn last_operand<'m>(m: &'m Module<'static>) -> &'m Operand<'static> {
    let Item::Function(f) = m.items.iter().find(|i| matches!(i, Item::Function(_))).unwrap() else { unreachable!() };
    let body = f.body.as_ref().unwrap();
    let i = body
        .stmts
        .iter()
        .filter_map(|s| match s {
            Statement::Instr(i) => Some(i),
            _ => None,
        })
        .last()
        .unwrap();
    i.operands.last().unwrap()
}

/// The value of `e` written as the last operand of an instruction.
fn value_in(insn: &str, e: &str) -> CVal {
    let m = ok(kernel(&format!("{insn} {e};")));
    match &last_operand(&m).kind {
        OperandKind::Int(l) => CVal::Int { value: l.value, unsigned: l.unsigned },
        OperandKind::Float(f) => CVal::Float(f.as_f64()),
        OperandKind::Expr(x) => eval_with(x, &mut |_| Err("a name".into())).expect("constant"),
        k => panic!("`{e}` parsed as {k:?}"),
    }
}

fn value(e: &str) -> CVal {
    value_in("add.u32 %r1, %r2,", e)
}

fn s(v: i64) -> CVal {
    CVal::Int { value: v as u64, unsigned: false }
}

fn u(v: u64) -> CVal {
    CVal::Int { value: v, unsigned: true }
}

fn check_all(cases: &[(&str, CVal)]) {
    for (e, want) in cases {
        assert_eq!(value(e), *want, "`{e}`");
    }
}

#[test]
fn arithmetic_operators() {
    check_all(&[
        ("5 % 3", u(2)),
        // `%` reads its operands as unsigned: 0xFFFF_FFFF_FFFF_FFFB % 2.
        ("-5 % 2", u(1)),
        ("7 % -2", u(7)),
        ("-7 % -2", u(-7i64 as u64)),
        ("7 / 2", s(3)),
        // Signed division truncates toward zero.
        ("-7 / 2", s(-3)),
        // The usual conversions: one unsigned operand makes both unsigned.
        ("-4 / 2U", u((-4i64 as u64) / 2)),
        ("-1 * 1U", u(u64::MAX)),
        ("3 - 1 - 1", s(1)),
        ("100 / 10 / 5", s(2)),
        ("+5", s(5)),
        ("1 + +1", s(2)),
        ("-(-42)", s(42)),
        ("9223372036854775807 + 1", s(i64::MIN)),
    ]);
}

#[test]
fn shifts_keep_the_left_type_and_count_modulo_64() {
    check_all(&[
        // Right shift of a signed value is arithmetic, of an unsigned one logical.
        ("-1 >> 1", s(-1)),
        ("-1U >> 1", u(i64::MAX as u64)),
        ("-1 << 1U", s(-2)),
        ("1U << 3", u(8)),
        // ptxas 13.5 takes the count modulo 64.
        ("1 << 64", s(1)),
        ("1 << 65", s(2)),
        ("-8 >> 200", s(-1)),
        ("1 << -1", s(i64::MIN)),
    ]);
}

#[test]
fn bitwise_operators() {
    check_all(&[
        ("5 ^ 3", s(6)),
        ("5 | 2", s(7)),
        ("6 & 3", s(2)),
        ("-1 & 1U", u(1)),
        // `~` gives an unsigned result.
        ("~5", u(!5u64)),
        ("~0U", u(u64::MAX)),
        ("~-1", u(0)),
    ]);
}

#[test]
fn comparisons_and_logical_operators_give_signed_0_or_1() {
    check_all(&[
        ("(1 < 2)", s(1)),
        ("2 < 1", s(0)),
        ("(1 == 1)", s(1)),
        ("(1 != 1)", s(0)),
        ("(2 >= 1)", s(1)),
        ("2 >= 3", s(0)),
        ("1 <= 1", s(1)),
        ("1 <= 0", s(0)),
        ("2 > 1", s(1)),
        ("(1 && 0)", s(0)),
        ("1 && 2", s(1)),
        ("(1 || 0)", s(1)),
        ("0 || 0", s(0)),
        ("!0", s(1)),
        ("!5U", s(0)),
        ("!!7", s(1)),
        // Signed compare, then unsigned after the usual conversions.
        ("-1 < 0", s(1)),
        ("-1 < 0U", s(0)),
        ("-1U > 0", s(1)),
        ("5 == 5U", s(1)),
        ("-1 == 0xffffffffffffffff", s(1)),
        // A literal too large for .s64 is unsigned, and `-` keeps it so.
        ("0x8000000000000000 > 0", s(1)),
        ("-0x8000000000000000 > 0", s(1)),
        ("~0 > 0", s(1)),
        ("(1 < 2) - 2 > 0", s(0)),
        ("1.0 < 2.0", s(1)),
        ("1.0 == 1.0", s(1)),
    ]);
}

#[test]
fn casts_change_only_the_type() {
    check_all(&[
        ("(.u64)-1 > 0", s(1)),
        ("(.u64) -1", u(u64::MAX)),
        ("(.s64)0xFFFFFFFFFFFFFFFF > 0", s(0)),
        ("(.s64)-1U >> 1", s(-1)),
        ("( .u64 ) 1", u(1)),
        ("-(.u64)1 > 0", s(1)),
    ]);
}

#[test]
fn conditional_operator() {
    check_all(&[
        ("1 ? 2 : 3", s(2)),
        ("0 ? 2 : 3", s(3)),
        ("2 > 1 ? 4 : 5", s(4)),
        ("1 ? 2 : 3 ? 4 : 5", s(2)),
        ("0 ? 2 : 0 ? 4 : 5", s(5)),
        ("(1 ? 2 : 3) + 1", s(3)),
        ("0 ? 2 : 3 + 1", s(4)),
        ("1 + 1 ? 0 : 5", s(0)),
        // ptxas 13.5 keeps the type of the operand chosen (the manual's
        // table would convert -1 to unsigned here and give 1).
        ("(1 ? -1 : 0U) > 0", s(0)),
        ("(1 ? -1 : 0U) >> 1", s(-1)),
        ("(0 ? -1 : 0U) - 1 > 0", s(1)),
    ]);
}

#[test]
fn precedence_is_c_precedence() {
    check_all(&[
        ("1 + 2 * 3 == 7 ? 10 : 20", s(10)),
        // `&&` binds tighter than `||`: 1 || (0 && 0).
        ("1 || 0 && 0", s(1)),
        // `==` binds tighter than `&`: 1 & (2 == 2).
        ("1 & 2 == 2", s(1)),
        // `^` binds tighter than `|`, `&` tighter than `^`.
        ("1 ^ 1 | 1", s(1)),
        ("1 | 2 ^ 3 & 4", s(3)),
        ("2 + 3 << 1", s(10)),
        ("1 << 2 + 1", s(8)),
        ("1 < 2 < 1", s(0)),
        ("1 < 2 == 1", s(1)),
        // `%` binds like `*`, left to right; its result is unsigned.
        ("4 % 3 * 2", u(2)),
        ("!0 + 1", s(2)),
        ("1<2>3", s(0)),
    ]);
}

#[test]
fn expressions_in_addresses_and_after_names() {
    let m = ok(kernel("ld.global.u32 %r1, [%rd1 + 5 % 3];"));
    let OperandKind::Address(a) = &last_operand(&m).kind else { panic!() };
    assert_eq!(a.offset, 2);
    // ptxas 13.5 reads `[%rd1 + 1 ? 2 : 3]` as %rd1 plus (1 ? 2 : 3).
    let m = ok(kernel("ld.global.u32 %r1, [%rd1 + 1 ? 2 : 3];"));
    let OperandKind::Address(a) = &last_operand(&m).kind else { panic!() };
    assert_eq!(a.offset, 2);
    let m = ok(kernel("ld.global.u32 %r1, [%rd1 + (1 == 1)];"));
    let OperandKind::Address(a) = &last_operand(&m).kind else { panic!() };
    assert_eq!(a.offset, 1);
    // A name operand followed by an operator is an expression.
    let m = ok(format!("{HEADER}.global .u32 arr[4];\n.visible .entry k()\n{{\n.reg .b64 %rd<2>;\nmov.u64 %rd1, arr + (1 < 2) * 4;\n}}\n"));
    assert!(matches!(&last_operand(&m).kind, OperandKind::Expr(Expr::Binary(BinOp::Add, ..))));
}

#[test]
fn initialisers_take_every_operator() {
    let m = ok(format!("{HEADER}.global .u64 g[3] = {{1 + 2 * 3 == 7 ? 10 : 20, -5 % 2, 1 << 2 >> 1}};\n"));
    let Item::Var(v) = &m.items[3] else { panic!("{:?}", m.items[3]) };
    let Some(Init::List(items, _)) = &v.declarators[0].init else { panic!() };
    let vals: Vec<_> = items
        .iter()
        .map(|i| match i {
            Init::Expr(e) => eval_with(e, &mut |_| Err(String::new())).unwrap(),
            _ => panic!(),
        })
        .collect();
    assert_eq!(vals, [s(10), u(1), s(2)]);
}

#[test]
fn floating_point_expressions() {
    assert_eq!(value_in("add.f64 %fd1, %fd2,", "1.5 * 2.0"), CVal::Float(3.0));
    assert_eq!(value_in("add.f64 %fd1, %fd2,", "3.0 / 2.0"), CVal::Float(1.5));
    assert_eq!(value_in("add.f64 %fd1, %fd2,", "-1.5 - 1.0"), CVal::Float(-2.5));
    assert_eq!(value_in("add.f64 %fd1, %fd2,", "1e0 + 0d3FF0000000000000"), CVal::Float(2.0));
}

/// The error codes of `src`, and the text under the first error's span.
fn errors(src: &str) -> (Vec<&'static str>, String, String) {
    let p = parse(src);
    let errs: Vec<_> = p.diagnostics.iter().filter(|d| d.is_error()).collect();
    let first = errs.first().map(|d| (src[d.primary.span.range()].to_string(), d.message.clone())).unwrap_or_default();
    (errs.iter().map(|d| d.code).collect(), first.0, first.1)
}

#[test]
fn division_by_zero_is_refused_where_it_is_written() {
    // ptxas 13.5: "Constant expression has division by zero", also in a branch
    // of `?:` that is not taken and beside a symbol.
    for (e, divisor) in [("5 / 0", "0"), ("5 % 0", "0"), ("0 ? 1/0 : 2", "0"), ("1 || 1/(1-1)", "(1-1)"), ("1.0 / 0.0", "0.0")] {
        let (codes, at, msg) = errors(&kernel(&format!("add.u32 %r1, %r2, {e};")));
        assert_eq!(codes, ["syntax/const-div-zero"], "`{e}`");
        assert_eq!(at, divisor.trim_start_matches('(').trim_end_matches(')'), "`{e}`");
        assert!(msg.contains("division by zero"), "{msg}");
    }
    let (codes, ..) = errors(&format!("{HEADER}.global .u32 a[4];\n.global .u64 g = a + 4 / 0;\n"));
    assert_eq!(codes, ["syntax/const-div-zero"]);
    let (codes, ..) = errors(&kernel("ld.global.u32 %r1, [%rd1 + 4/0];"));
    assert_eq!(codes, ["syntax/const-div-zero"]);
}

#[test]
fn floats_and_integers_do_not_mix() {
    // ptxas 13.5: "Constant expression type mismatch" for a mix, "Integer
    // constant expression expected" for an integer-only operator on a float.
    for e in ["(1.5 + 1)", "2.0 > 1", "1.0 && 1", "!1.0", "~1.0", "1.5 % 2.0", "1 ? 1.0 : 2.0", "1.0 ? 1 : 2", "(.u64)1.5"] {
        let (codes, ..) = errors(&kernel(&format!("add.u32 %r1, %r2, {e};")));
        assert_eq!(codes, ["syntax/const-type"], "`{e}`");
    }
    let (codes, ..) = errors(&format!("{HEADER}.global .u64 g = 1.5 + 1;\n"));
    assert_eq!(codes, ["syntax/const-type"]);
}

#[test]
fn malformed_operators_are_syntax_errors() {
    // ptxas 13.5 refuses each of these with a parsing error: two-character
    // operators are written without a space, `%3` and `%r1` are names, and
    // only `.s64` and `.u64` casts exist.
    for e in ["1 < < 3", "1 < = 3", "1 & & 3", "1 ! = 3", "1 = = 3", "1 ?: 3", "5 %3", "5%3", "5 %r1", "(.s32)1"] {
        let (codes, ..) = errors(&kernel(&format!("add.u32 %r1, %r2, {e};")));
        assert!(!codes.is_empty(), "`{e}` was accepted");
        assert!(codes.iter().all(|c| c.starts_with("syntax/")), "`{e}`: {codes:?}");
    }
}

//! Grammar coverage: one test per construct of the PTX ISA that the front end
//! must accept, checking the AST it builds. Expected values come from the PTX
//! ISA manual's grammar (module directives, state spaces, operand forms,
//! literal syntax), not from the parser's output. Every accepted snippet is
//! also printed and re-parsed, and must come back the same.

use ptxsim_syntax::ast::*;
use ptxsim_syntax::{parse, print_module, SourceFile};

/// The Debug form of a module with every span erased, for comparing ASTs
/// that borrow different texts.
fn shape(m: &Module<'_>) -> String {
    let d = format!("{m:?}");
    let mut out = String::with_capacity(d.len());
    let b = d.as_bytes();
    let mut i = 0;
    while i < b.len() {
        // Spans print as `START..END`.
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

/// Parses `src`, failing with the rendered diagnostics if there is any error,
/// and checks that print-then-parse gives back the same AST. The text is
/// leaked so the returned AST can outlive the caller's temporary.
fn ok<S: AsRef<str>>(src: S) -> Module<'static> {
    let src: &'static str = Box::leak(src.as_ref().to_string().into_boxed_str());
    let p = parse(src);
    if p.has_errors() || !p.diagnostics.is_empty() {
        panic!("unexpected diagnostics:\n{}", SourceFile::new("test.ptx", src).render(&p.diagnostics, false));
    }
    let printed = print_module(&p.module);
    let re = parse(&printed);
    assert!(
        !re.has_errors(),
        "printed text does not parse:\n{printed}\n{}",
        SourceFile::new("printed.ptx", &printed).render(&re.diagnostics, false)
    );
    assert_eq!(shape(&re.module), shape(&p.module), "print+parse changed the AST; printed:\n{printed}");
    p.module
}

/// Parses `src` and returns the error codes it reports.
fn err_codes(src: &str) -> Vec<&'static str> {
    parse(src).diagnostics.iter().filter(|d| d.is_error()).map(|d| d.code).collect()
}

const HEADER: &str = ".version 7.8\n.target sm_70\n.address_size 64\n";

fn kernel(body: &str) -> String {
    format!("{HEADER}.visible .entry k()\n{{\n{body}\n}}\n")
}

fn func<'m, 'a>(m: &'m Module<'a>, i: usize) -> &'m Function<'a> {
    m.items
        .iter()
        .filter_map(|it| match it {
            Item::Function(f) => Some(&**f),
            _ => None,
        })
        .nth(i)
        .expect("no such function")
}

fn body<'m, 'a>(m: &'m Module<'a>) -> &'m [Statement<'a>] {
    &func(m, 0).body.as_ref().expect("no body").stmts
}

fn instrs<'m, 'a>(m: &'m Module<'a>) -> Vec<&'m Instruction<'a>> {
    fn walk<'m, 'a>(ss: &'m [Statement<'a>], out: &mut Vec<&'m Instruction<'a>>) {
        for s in ss {
            match s {
                Statement::Instr(i) => out.push(i),
                Statement::Block(b) => walk(&b.stmts, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(body(m), &mut out);
    out
}

fn vars<'m, 'a>(m: &'m Module<'a>) -> Vec<&'m VarDecl<'a>> {
    m.items
        .iter()
        .filter_map(|it| match it {
            Item::Var(v) => Some(v),
            _ => None,
        })
        .collect()
}

fn one_instr(stmt: &str) -> (String, usize) {
    (kernel(stmt), 0)
}

/// The operands of the only instruction in a kernel body.
fn operands_of<'m, 'a>(m: &'m Module<'a>) -> &'m [Operand<'a>] {
    let is = instrs(m);
    assert_eq!(is.len(), 1);
    &is[0].operands
}

fn int(v: u64) -> OperandKind<'static> {
    OperandKind::Int(IntLit { value: v, unsigned: false })
}

fn name_text<'a>(o: &Operand<'a>) -> &'a str {
    match &o.kind {
        OperandKind::Name { name, component: None } => name.text,
        k => panic!("not a plain name: {k:?}"),
    }
}

// ---------------------------------------------------------------- module directives

#[test]
fn module_directives() {
    let m = ok(".version 8.5\n.target sm_90a, texmode_independent, debug\n.address_size 32\n");
    match &m.items[..] {
        [Item::Version(v), Item::Target(t), Item::AddressSize(a)] => {
            assert_eq!((v.major, v.minor), (8, 5));
            let ts: Vec<_> = t.targets.iter().map(|n| n.text).collect();
            assert_eq!(ts, ["sm_90a", "texmode_independent", "debug"]);
            assert_eq!(a.value, 32);
        }
        items => panic!("{items:?}"),
    }
}

#[test]
fn target_forms() {
    for (src, want) in [
        (".target sm_70", vec!["sm_70"]),
        (".target sm_100f", vec!["sm_100f"]),
        (".target sm_20, map_f64_to_f32", vec!["sm_20", "map_f64_to_f32"]),
        (".target compute_90", vec!["compute_90"]),
        (".target sm_50, texmode_unified", vec!["sm_50", "texmode_unified"]),
    ] {
        let text = format!(".version 9.0\n{src}\n");
        let m = ok(&text);
        let Item::Target(t) = &m.items[1] else { panic!() };
        assert_eq!(t.targets.iter().map(|n| n.text).collect::<Vec<_>>(), want);
    }
}

#[test]
fn version_two_digit_minor() {
    let m = ok(".version 10.12\n");
    let Item::Version(v) = &m.items[0] else { panic!() };
    assert_eq!((v.major, v.minor), (10, 12));
}

#[test]
fn module_level_pragma_and_alias() {
    let m = ok(format!("{HEADER}.pragma \"nounroll\";\n.func f();\n.func g();\n.alias g2, g;\n"));
    assert!(matches!(&m.items[3], Item::Pragma(p) if p.strings == ["\"nounroll\""]));
    assert!(matches!(&m.items[6], Item::Alias { alias, aliasee, .. } if alias.text == "g2" && aliasee.text == "g"));
}

// ---------------------------------------------------------------- functions

#[test]
fn linkage_on_functions() {
    let src = format!(
        "{HEADER}.visible .entry a() {{ ret; }}\n.extern .func b();\n.weak .func c() {{ ret; }}\n.func d() {{ ret; }}\n"
    );
    let m = ok(&src);
    let l: Vec<_> = (0..4).map(|i| func(&m, i).linkage.map(|l| l.value)).collect();
    assert_eq!(l, [Some(Linkage::Visible), Some(Linkage::Extern), Some(Linkage::Weak), None]);
    assert_eq!(func(&m, 0).kind, FunctionKind::Entry);
    assert_eq!(func(&m, 1).kind, FunctionKind::Func);
    assert!(func(&m, 1).body.is_none(), "a declaration has no body");
}

#[test]
fn common_linkage_on_variables() {
    let m = ok(format!("{HEADER}.common .global .align 8 .u64 c;\n"));
    let v = vars(&m)[0];
    assert_eq!(v.linkage.map(|l| l.value), Some(Linkage::Common));
    assert_eq!(v.align.map(|a| a.value), Some(8));
}

#[test]
fn return_and_parameter_lists() {
    let src = format!(
        "{HEADER}.func (.param .b32 rv, .reg .u64 r2) f(.param .b32 a, .reg .u32 b, .param .align 8 .b8 s[16], .param .u64 .ptr .global .align 16 p, .param .u64 .ptr .align 4 q, .param .u64 .ptr .shared r)\n{{\n ret;\n}}\n"
    );
    let m = ok(&src);
    let f = func(&m, 0);
    let rets = f.returns.as_ref().unwrap();
    assert_eq!(rets.len(), 2);
    assert_eq!(rets[0].space.value, StateSpace::Param);
    assert_eq!(rets[1].space.value, StateSpace::Reg);
    assert_eq!(rets[1].ty.value, Type::Scalar(ScalarType::U64));
    let ps = f.params.as_ref().unwrap();
    assert_eq!(ps.iter().map(|p| p.name.text).collect::<Vec<_>>(), ["a", "b", "s", "p", "q", "r"]);
    assert_eq!(ps[2].align.map(|a| a.value), Some(8));
    assert_eq!(ps[2].ty.value, Type::Scalar(ScalarType::B8));
    assert_eq!(ps[2].dims.iter().map(|d| d.map(|d| d.value)).collect::<Vec<_>>(), [Some(16)]);
    let p = ps[3].ptr.unwrap();
    assert_eq!((p.space, p.align), (Some(StateSpace::Global), Some(16)));
    let q = ps[4].ptr.unwrap();
    assert_eq!((q.space, q.align), (None, Some(4)));
    let r = ps[5].ptr.unwrap();
    assert_eq!((r.space, r.align), (Some(StateSpace::Shared), None));
}

#[test]
fn function_without_parameter_list_and_with_empty_list() {
    let m = ok(format!("{HEADER}.func f\n{{\n ret;\n}}\n.func g()\n{{\n ret;\n}}\n"));
    assert!(func(&m, 0).params.is_none());
    assert_eq!(func(&m, 1).params.as_ref().map(|p| p.len()), Some(0));
}

#[test]
fn vector_parameter() {
    let m = ok(format!("{HEADER}.func f(.param .v4 .f32 v, .param .align 16 .v2 .u64 w) {{ ret; }}\n"));
    let ps = func(&m, 0).params.as_ref().unwrap();
    assert_eq!(ps[0].vector.map(|v| v.value), Some(4));
    assert_eq!(ps[1].vector.map(|v| v.value), Some(2));
    assert_eq!(ps[1].align.map(|v| v.value), Some(16));
}

#[test]
fn noreturn_and_performance_directives() {
    let src = format!(
        "{HEADER}.func abort() .noreturn\n{{\n trap;\n}}\n.visible .entry k(.param .u32 n)\n.maxntid 256, 1, 1\n.reqntid 128\n.minnctapersm 4\n.maxnreg 32\n.pragma \"nounroll\";\n{{\n ret;\n}}\n.entry c() .explicitcluster .reqnctapercluster 2, 1, 1 .maxclusterrank 8 {{ ret; }}\n"
    );
    let m = ok(&src);
    let perf = |f: &Function<'_>| -> Vec<(String, Vec<u64>)> {
        f.directives
            .iter()
            .map(|d| match d {
                FuncDirective::Perf { name, values, .. } => {
                    (name.text.to_string(), values.iter().map(|v| v.value).collect())
                }
                FuncDirective::Pragma(p) => (format!(".pragma {}", p.strings.join(",")), vec![]),
            })
            .collect()
    };
    assert_eq!(perf(func(&m, 0)), [(".noreturn".to_string(), vec![])]);
    assert_eq!(
        perf(func(&m, 1)),
        [
            (".maxntid".to_string(), vec![256, 1, 1]),
            (".reqntid".to_string(), vec![128]),
            (".minnctapersm".to_string(), vec![4]),
            (".maxnreg".to_string(), vec![32]),
            (".pragma \"nounroll\"".to_string(), vec![]),
        ]
    );
    assert_eq!(
        perf(func(&m, 2)),
        [
            (".explicitcluster".to_string(), vec![]),
            (".reqnctapercluster".to_string(), vec![2, 1, 1]),
            (".maxclusterrank".to_string(), vec![8]),
        ]
    );
}

#[test]
fn extern_vprintf_declaration() {
    let m = ok(format!(
        "{HEADER}.extern .func (.param .b32 func_retval0) vprintf\n(\n\t.param .b64 vprintf_param_0,\n\t.param .b64 vprintf_param_1\n)\n;\n"
    ));
    let f = func(&m, 0);
    assert_eq!(f.name.text, "vprintf");
    assert_eq!(f.returns.as_ref().unwrap()[0].name.text, "func_retval0");
    assert_eq!(f.params.as_ref().unwrap().len(), 2);
    assert!(f.body.is_none());
}

// ---------------------------------------------------------------- variables

#[test]
fn variables_in_every_state_space() {
    let src = format!(
        "{HEADER}.global .u32 g;\n.const .f32 c;\n.shared .align 4 .b8 s[256];\n.global .texref t;\n.tex .u32 tx;\n.visible .entry k(.param .u32 n)\n{{\n .reg .b32 %r<100>;\n .reg .pred %p;\n .local .u64 l;\n .param .b32 pp;\n .shared .u16 sh;\n ret;\n}}\n"
    );
    let m = ok(&src);
    let spaces: Vec<_> = vars(&m).iter().map(|v| v.space.value).collect();
    assert_eq!(
        spaces,
        [StateSpace::Global, StateSpace::Const, StateSpace::Shared, StateSpace::Global, StateSpace::Tex]
    );
    assert_eq!(vars(&m)[3].ty.value, Type::Scalar(ScalarType::Texref));
    let local: Vec<_> = body(&m)
        .iter()
        .filter_map(|s| match s {
            Statement::Var(v) => Some((v.space.value, v.declarators[0].name.text, v.declarators[0].count.map(|c| c.value))),
            _ => None,
        })
        .collect();
    assert_eq!(
        local,
        [
            (StateSpace::Reg, "%r", Some(100)),
            (StateSpace::Reg, "%p", None),
            (StateSpace::Local, "l", None),
            (StateSpace::Param, "pp", None),
            (StateSpace::Shared, "sh", None),
        ]
    );
}

#[test]
fn vector_types_arrays_and_alignment() {
    let src = format!(
        "{HEADER}.global .align 16 .v4 .f32 v[8];\n.shared .v2 .align 8 .u32 w;\n.global .b8 m[4][8];\n.extern .shared .align 16 .b8 dyn[];\n.global .f16x2 h;\n.global .bf16 b;\n.global .e4m3 e;\n"
    );
    let m = ok(&src);
    let vs = vars(&m);
    assert_eq!(vs[0].vector.map(|v| v.value), Some(4));
    assert_eq!(vs[0].align.map(|v| v.value), Some(16));
    assert_eq!(vs[0].declarators[0].dims.iter().map(|d| d.map(|d| d.value)).collect::<Vec<_>>(), [Some(8)]);
    assert_eq!(vs[1].vector.map(|v| v.value), Some(2));
    assert_eq!(vs[1].align.map(|v| v.value), Some(8));
    assert_eq!(
        vs[2].declarators[0].dims.iter().map(|d| d.map(|d| d.value)).collect::<Vec<_>>(),
        [Some(4), Some(8)]
    );
    assert_eq!(vs[3].linkage.map(|l| l.value), Some(Linkage::Extern));
    assert_eq!(vs[3].declarators[0].dims, vec![None]);
    assert_eq!(vs[4].ty.value, Type::Scalar(ScalarType::F16x2));
    assert_eq!(vs[5].ty.value, Type::Scalar(ScalarType::Bf16));
    assert_eq!(vs[6].ty.value, Type::Scalar(ScalarType::E4m3));
}

#[test]
fn several_declarators_and_register_ranges() {
    let m = ok(kernel(".reg .b32 %r<100>, %s<5>, x;\n.reg .v4 .f32 %v<4>;\nret;"));
    let Statement::Var(v) = &body(&m)[0] else { panic!() };
    let d: Vec<_> = v.declarators.iter().map(|d| (d.name.text, d.count.map(|c| c.value))).collect();
    assert_eq!(d, [("%r", Some(100)), ("%s", Some(5)), ("x", None)]);
    let Statement::Var(v) = &body(&m)[1] else { panic!() };
    assert_eq!(v.vector.map(|v| v.value), Some(4));
}

#[test]
fn initialisers() {
    let src = format!(
        "{HEADER}.func foo() {{ ret; }}\n.func bar() {{ ret; }}\n.func baz() {{ ret; }}\n.global .u32 jmptbl[3] = {{ foo, bar, baz }};\n.const .f32 c[3] = {{1.0, 0f3F800000, -2.5}};\n.global .u8 s[] = {{72, 0x69, 0}};\n.global .s32 n = -7;\n.global .u32 mat[2][2] = {{{{1, 2}}, {{3, 4}}}};\n.global .u64 gp = generic(n);\n.global .u64 ptrs[2] = {{s, s+1}};\n.const .f64 d = 0d3FF0000000000000;\n"
    );
    let m = ok(&src);
    let vs = vars(&m);
    let Some(Init::List(items, _)) = &vs[0].declarators[0].init else { panic!() };
    let names: Vec<_> = items
        .iter()
        .map(|i| match i {
            Init::Expr(Expr::Name(n)) => n.text,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(names, ["foo", "bar", "baz"]);
    let Some(Init::List(items, _)) = &vs[1].declarators[0].init else { panic!() };
    let fl: Vec<_> = items
        .iter()
        .map(|i| match i {
            Init::Expr(Expr::Float(f, _)) => f.as_f64(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(fl, [1.0, 1.0, -2.5]);
    let Some(Init::List(items, _)) = &vs[2].declarators[0].init else { panic!() };
    assert!(matches!(items[1], Init::Expr(Expr::Int(IntLit { value: 0x69, unsigned: false }, _))));
    assert!(matches!(&vs[3].declarators[0].init, Some(Init::Expr(Expr::Int(IntLit { value, .. }, _))) if *value as i64 == -7));
    let Some(Init::List(rows, _)) = &vs[4].declarators[0].init else { panic!() };
    assert!(matches!(&rows[1], Init::List(r, _) if r.len() == 2));
    assert!(matches!(&vs[5].declarators[0].init, Some(Init::Expr(Expr::Generic(n, _))) if n.text == "n"));
    let Some(Init::List(items, _)) = &vs[6].declarators[0].init else { panic!() };
    assert!(matches!(&items[1], Init::Expr(Expr::Binary(BinOp::Add, ..))));
    assert!(matches!(&vs[7].declarators[0].init, Some(Init::Expr(Expr::Float(FloatLit::F64Bits(0x3FF0000000000000), _)))));
}

#[test]
fn jump_table_in_a_function_body() {
    let m = ok(kernel(".global .u32 tbl[2] = {k, k};\nret;"));
    assert!(matches!(&body(&m)[0], Statement::Var(v) if v.space.value == StateSpace::Global));
}

#[test]
fn managed_attribute() {
    let m = ok(format!("{HEADER}.global .attribute(.managed) .align 4 .u32 x;\n"));
    let v = vars(&m)[0];
    assert_eq!(v.attributes.iter().map(|a| a.text).collect::<Vec<_>>(), [".attribute", ".managed"]);
}

// ---------------------------------------------------------------- debug directives

#[test]
fn debug_directives_are_kept() {
    let src = format!(
        "{HEADER}.file 1 \"/tmp/a.cu\"\n.file 2 \"b.h\", 1700000000, 1234\n.visible .entry k()\n{{\n.loc 1 12 5\n ret;\n.loc 2 3 0, function_name $L__info_string0, inlined_at 1 12 5\n exit;\n}}\n.section .debug_info\n{{\n.b32 100\n.b8 2, 0\n.b32 .debug_abbrev\n.b64 $L__func_begin0\n$L__info_string0:\n.b8 95, 90, 0\n}}\n.section .debug_loc {{ }}\n"
    );
    let m = ok(&src);
    let files: Vec<_> = m
        .items
        .iter()
        .filter_map(|i| match i {
            Item::File(f) => Some((f.index, f.path, f.timestamp, f.size)),
            _ => None,
        })
        .collect();
    assert_eq!(files, [(1, "\"/tmp/a.cu\"", None, None), (2, "\"b.h\"", Some(1700000000), Some(1234))]);
    let locs: Vec<_> = body(&m)
        .iter()
        .filter_map(|s| match s {
            Statement::Loc(l) => Some((l.file, l.line, l.column, l.attrs.len())),
            _ => None,
        })
        .collect();
    assert_eq!(locs, [(1, 12, 5, 0), (2, 3, 0, 2)]);
    let Statement::Loc(l) = &body(&m)[2] else { panic!() };
    assert_eq!(l.attrs[0].0.text, "function_name");
    assert_eq!(l.attrs[1].0.text, "inlined_at");
    assert_eq!(l.attrs[1].1.len(), 3);
    let sections: Vec<_> = m
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Section(s) => Some(s),
            _ => None,
        })
        .collect();
    assert_eq!(sections[0].name.text, ".debug_info");
    assert_eq!(sections[0].entries.len(), 6);
    assert!(matches!(&sections[0].entries[2], SectionEntry::Data { ty, values, .. } if ty.text == ".b32" && matches!(&values[0], Expr::Name(n) if n.text == ".debug_abbrev")));
    assert!(matches!(&sections[0].entries[4], SectionEntry::Label(n) if n.text == "$L__info_string0"));
    assert!(sections[1].entries.is_empty());
}

/// Found by the `parse` fuzz target: a `.loc` whose last attribute has no
/// value, ended by `;`, prints without the `;` (`.loc` needs none); the
/// instruction on the next line must not then be read as that attribute's
/// value. A line break ends a `.loc`.
#[test]
fn loc_attribute_without_value_then_instruction() {
    let m = ok(kernel(
        ".reg .b32 %r<30>;\n.loc 1 62 5, function_name $L__info_strr23, %r22, %r70;\n mov.u32 %r24, 2;\n.loc 1 3 4, k\n ret;",
    ));
    let Statement::Loc(l) = &body(&m)[1] else { panic!() };
    let attrs: Vec<_> = l.attrs.iter().map(|(k, v)| (k.text, v.len())).collect();
    assert_eq!(attrs, [("function_name", 1), ("%r22", 0), ("%r70", 0)]);
    assert_eq!(instrs(&m).iter().map(|i| i.opcode.text).collect::<Vec<_>>(), ["mov", "ret"]);
}

// ---------------------------------------------------------------- control-flow directives

#[test]
fn branchtargets_calltargets_callprototype() {
    let src = format!(
        "{HEADER}.func (.reg .u32 rv) foo(.reg .u32 a) {{ ret; }}\n.visible .entry k()\n{{\n .reg .u32 %r<3>;\nts: .branchtargets L0, L1;\n brx.idx %r1, ts;\nL0:\nL1:\nFt: .calltargets foo;\nFp: .callprototype (.param .b32 _) _ (.param .b32 _, .param .u64 _);\nFn: .callprototype _ () .noreturn;\n ret;\n}}\n"
    );
    let m = ok(&src);
    let b = &func(&m, 1).body.as_ref().unwrap().stmts;
    assert!(matches!(&b[1], Statement::BranchTargets { label, targets, .. } if label.text == "ts" && targets.iter().map(|t| t.text).collect::<Vec<_>>() == ["L0", "L1"]));
    assert!(matches!(&b[5], Statement::CallTargets { label, targets, .. } if label.text == "Ft" && targets.len() == 1));
    match &b[6] {
        Statement::CallPrototype { label, returns, params, noreturn, .. } => {
            assert_eq!(label.text, "Fp");
            assert_eq!(returns.as_ref().map(|r| r.len()), Some(1));
            assert_eq!(params.len(), 2);
            assert_eq!(params[1].ty.value, Type::Scalar(ScalarType::U64));
            assert!(!noreturn);
        }
        s => panic!("{s:?}"),
    }
    assert!(matches!(&b[7], Statement::CallPrototype { returns: None, noreturn: true, params, .. } if params.is_empty()));
}

#[test]
fn callprototype_written_without_spaces() {
    // LLVM prints `prototype_0 : .callprototype ()_ (.param .b64 _);`.
    let m = ok(kernel("prototype_0 : .callprototype ()_ (.param .b64 _);\nret;"));
    assert!(matches!(&body(&m)[0], Statement::CallPrototype { returns: Some(r), params, .. } if r.is_empty() && params.len() == 1));
}

// ---------------------------------------------------------------- statements

#[test]
fn labels_and_nested_blocks() {
    let m = ok(kernel("$L__BB0_1:\n{\n .reg .b32 t;\n {\n  inner: add.s32 t, t, 1;\n }\n}\nbra.uni $L__BB0_1;"));
    let b = body(&m);
    assert!(matches!(&b[0], Statement::Label(n) if n.text == "$L__BB0_1"));
    let Statement::Block(outer) = &b[1] else { panic!() };
    assert!(matches!(&outer.stmts[0], Statement::Var(_)));
    let Statement::Block(inner) = &outer.stmts[1] else { panic!() };
    assert!(matches!(&inner.stmts[0], Statement::Label(n) if n.text == "inner"));
    assert!(matches!(&inner.stmts[1], Statement::Instr(i) if i.opcode.text == "add"));
    assert_eq!(instrs(&m).len(), 2);
}

#[test]
fn guards() {
    let m = ok(kernel("@p bra L;\n@!%p1 ret;\n@ %p2 exit;\nL: ret;"));
    let g: Vec<_> = instrs(&m).iter().map(|i| i.guard.map(|g| (g.negated, g.pred.text))).collect();
    assert_eq!(g, [Some((false, "p")), Some((true, "%p1")), Some((false, "%p2")), None]);
}

#[test]
fn dotted_modifiers_in_order() {
    let m = ok(kernel(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f5,%f6,%f7,%f8};\nld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%f1,%f2,%f3,%f4}, [%rd1];\ncp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], %r2, [%r3];\ntex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tex_a, {%f5,%f6}];",
    ));
    let is = instrs(&m);
    let mods = |i: usize| is[i].modifiers.iter().map(|m| m.text).collect::<Vec<_>>();
    assert_eq!(mods(0), [".sync", ".aligned", ".m16n8k16", ".row", ".col", ".f32", ".f16", ".f16", ".f32"]);
    assert_eq!(mods(1), [".global", ".nc", ".L1::no_allocate", ".L2::256B", ".v4", ".f32"]);
    assert_eq!(mods(2), [".async", ".bulk", ".shared::cluster", ".global", ".mbarrier::complete_tx::bytes"]);
    assert_eq!(mods(3), [".2d", ".v4", ".f32", ".f32"]);
    assert!(is[1].has_modifier(".nc"));
}

#[test]
fn unknown_instructions_still_parse() {
    let m = ok(kernel("frobnicate.wide.sat %r1, [%rd2+8], {%r3, _}, 42;\nfoo;\nbar.baz;"));
    let is = instrs(&m);
    assert_eq!(is.iter().map(|i| i.opcode.text).collect::<Vec<_>>(), ["frobnicate", "foo", "bar"]);
    assert_eq!(is[0].operands.len(), 4);
    assert!(is[1].operands.is_empty());
}

#[test]
fn instructions_without_operands() {
    let m = ok(kernel("ret;\nexit;\ntrap;\nmembar.gl;\nbar.sync 0;\nret.uni;"));
    assert_eq!(instrs(&m).len(), 6);
}

#[test]
fn pragma_in_body() {
    let m = ok(kernel(".pragma \"nounroll\";\nret;"));
    assert!(matches!(&body(&m)[0], Statement::Pragma(p) if p.strings == ["\"nounroll\""]));
    assert_eq!(body(&m).len(), 2);
}

#[test]
fn empty_statements_are_errors() {
    // ptxas 12.9 rejects a lone `;` in a body with a syntax error.
    assert_eq!(err_codes(&kernel("ret;;")), ["syntax/empty-statement"]);
    assert_eq!(err_codes(&kernel(";\nret;")), ["syntax/empty-statement"]);
}

// ---------------------------------------------------------------- operands

#[test]
fn register_and_special_register_operands() {
    let m = ok(kernel("mov.u32 %r1, %tid.x;\nmov.u32 %r2, %ctaid.y;\nmov.u32 %r3, %nctaid.z;\nmov.u64 %rd1, %clock64;\nmov.u32 %r4, %laneid;\nmov.f32 %f1, %v.w;"));
    let comps: Vec<_> = instrs(&m)
        .iter()
        .map(|i| match &i.operands[1].kind {
            OperandKind::Name { name, component } => (name.text, component.map(|c| c.text)),
            k => panic!("{k:?}"),
        })
        .collect();
    assert_eq!(
        comps,
        [
            ("%tid", Some(".x")),
            ("%ctaid", Some(".y")),
            ("%nctaid", Some(".z")),
            ("%clock64", None),
            ("%laneid", None),
            ("%v", Some(".w"))
        ]
    );
}

#[test]
fn vector_operands() {
    let m = ok(kernel("ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];\nmov.b64 {%r1, _}, %rd1;"));
    let is = instrs(&m);
    let OperandKind::Vector(v) = &is[0].operands[0].kind else { panic!() };
    assert_eq!(v.iter().map(name_text).collect::<Vec<_>>(), ["%f1", "%f2", "%f3", "%f4"]);
    let OperandKind::Vector(v) = &is[1].operands[0].kind else { panic!() };
    assert_eq!(v[1].kind, OperandKind::Sink);
}

#[test]
fn predicate_pairs_negation_and_sink() {
    let m = ok(kernel(
        "setp.lt.s32 p|q, %r1, %r2;\nshfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, -1;\nand.pred %p3, !%p1, %p2;\nsetp.eq.and.s32 _|%p4, %r1, 0, !%p2;\nselp.b32 %r5, 1, 0, !p;",
    ));
    let is = instrs(&m);
    assert!(matches!(&is[0].operands[0].kind, OperandKind::PredPair(p, q) if p.text == "p" && q.text == "q"));
    assert!(matches!(&is[1].operands[0].kind, OperandKind::PredPair(p, q) if p.text == "%r1" && q.text == "%p1"));
    assert!(matches!(&is[2].operands[1].kind, OperandKind::Not(n) if n.text == "%p1"));
    assert!(matches!(&is[3].operands[0].kind, OperandKind::PredPair(p, q) if p.text == "_" && q.text == "%p4"));
    assert!(matches!(&is[3].operands[3].kind, OperandKind::Not(n) if n.text == "%p2"));
    assert!(matches!(&is[4].operands[3].kind, OperandKind::Not(n) if n.text == "p"));
}

/// `{d...}|p`: a texture fetch's vector destination and its residency
/// predicate (PTX ISA 9.7.10.3); printed back as written.
#[test]
fn a_vector_destination_with_a_predicate() {
    let m = ok(kernel("tex.2d.v4.f32.f32 {%f1, _, %f3, %f4}|%p1, [tr, {%f5, %f6}];"));
    let is = instrs(&m);
    let OperandKind::VectorPred(v, p) = &is[0].operands[0].kind else { panic!("{:?}", is[0].operands[0].kind) };
    assert_eq!((v.len(), p.text), (4, "%p1"));
    assert_eq!(v[1].kind, OperandKind::Sink);
    let printed = print_module(&m);
    assert!(printed.contains("{%f1, _, %f3, %f4}|%p1"), "{printed}");
}

#[test]
fn integer_immediates() {
    // PTX ISA 4.5.1: decimal, 0x hex, leading-0 octal, 0b binary, optional U suffix;
    // a leading `-` negates (keeping the type). Values are 64-bit.
    let (src, _) = one_instr("op %r1, 42, 0x2A, 0X2a, 052, 0b101010, 0B11, 42U, 0x2AU, 0, 0U, -1, 18446744073709551615, 0xFFFFFFFFFFFFFFFF;");
    let m = ok(&src);
    let ks: Vec<_> = operands_of(&m)[1..].iter().map(|o| o.kind.clone()).collect();
    let u = |v| OperandKind::Int(IntLit { value: v, unsigned: true });
    assert_eq!(
        ks,
        [
            int(42),
            int(42),
            int(42),
            int(42),
            int(42),
            int(3),
            u(42),
            u(42),
            int(0),
            u(0),
            int(u64::MAX),
            // PTX ISA 4.5.5: a literal is unsigned when it does not fit in .s64.
            u(u64::MAX),
            u(u64::MAX)
        ]
    );
}

#[test]
fn float_immediates() {
    let (src, _) = one_instr("op %f1, 0f3F800000, 0FBF800000, 0d4000000000000000, 1.5, 1.0e-3, 2E2, -0.5, -0f3F800000, 3.;");
    let m = ok(&src);
    let fs: Vec<_> = operands_of(&m)[1..]
        .iter()
        .map(|o| match &o.kind {
            OperandKind::Float(f) => *f,
            k => panic!("{k:?}"),
        })
        .collect();
    assert_eq!(fs[0], FloatLit::F32Bits(0x3F80_0000));
    assert_eq!(fs[1], FloatLit::F32Bits(0xBF80_0000));
    assert_eq!(fs[2], FloatLit::F64Bits(0x4000_0000_0000_0000));
    assert_eq!(fs[3..].iter().map(|f| f.as_f64()).collect::<Vec<_>>(), [1.5, 1.0e-3, 200.0, -0.5, -1.0, 3.0]);
    assert_eq!(fs[7], FloatLit::F32Bits(0xBF80_0000), "negating a bit pattern flips its sign bit");
}

/// ptxas 13.5 takes an address offset after `+` only: `[%rd1-8]` is
/// "Parsing error near '-'"; the offset itself may be negative (`+-8`).
#[test]
fn an_address_offset_follows_a_plus() {
    for a in ["[%rd1-8]", "[sym-4]"] {
        let (src, _) = one_instr(&format!("op {a};"));
        let p = ptxsim_syntax::parse(&src);
        assert!(p.diagnostics.iter().any(|d| d.code == "syntax/bad-address"), "{a}: {:?}", p.diagnostics);
    }
}

#[test]
fn addresses() {
    let (src, _) = one_instr(
        "op [%rd1], [%rd1+8], [%rd1+(-8)], [%rd1+-4], [sym], [sym+16], [0x100], [%r2+0x10], [buf+(2*4)], [%rd3+-1];",
    );
    let m = ok(&src);
    let addrs: Vec<_> = operands_of(&m)
        .iter()
        .map(|o| match &o.kind {
            OperandKind::Address(a) => (a.base.map(|b| b.text), a.offset),
            k => panic!("{k:?}"),
        })
        .collect();
    assert_eq!(
        addrs,
        [
            (Some("%rd1"), 0),
            (Some("%rd1"), 8),
            (Some("%rd1"), -8),
            (Some("%rd1"), -4),
            (Some("sym"), 0),
            (Some("sym"), 16),
            (None, 256),
            (Some("%r2"), 16),
            (Some("buf"), 8),
            (Some("%rd3"), -1)
        ]
    );
}

#[test]
fn call_argument_lists() {
    let m = ok(kernel(
        "call.uni (retval0), vprintf, (param0, param1);\ncall foo, ();\ncall bar;\ncall (%r1), %rd1, (%r2), Fproto;\ncall.uni (_), baz, (1, %r2);",
    ));
    let is = instrs(&m);
    let OperandKind::List(rets) = &is[0].operands[0].kind else { panic!() };
    assert_eq!(rets.iter().map(name_text).collect::<Vec<_>>(), ["retval0"]);
    assert_eq!(name_text(&is[0].operands[1]), "vprintf");
    let OperandKind::List(args) = &is[0].operands[2].kind else { panic!() };
    assert_eq!(args.iter().map(name_text).collect::<Vec<_>>(), ["param0", "param1"]);
    assert!(matches!(&is[1].operands[1].kind, OperandKind::List(a) if a.is_empty()));
    assert_eq!(is[2].operands.len(), 1);
    assert_eq!(is[3].operands.len(), 4);
    assert_eq!(name_text(&is[3].operands[3]), "Fproto");
    let OperandKind::List(args) = &is[4].operands[2].kind else { panic!() };
    assert_eq!(args[0].kind, int(1));
}

#[test]
fn symbol_and_expression_operands() {
    let m = ok(kernel("mov.u64 %rd1, shared_buf;\nmov.u64 %rd2, generic(shared_buf);\nmov.u64 %rd3, arr+8;\nadd.s32 %r1, %r2, (1+2)*3;\nmov.u32 %r3, foo;"));
    let is = instrs(&m);
    assert_eq!(name_text(&is[0].operands[1]), "shared_buf");
    assert!(matches!(&is[1].operands[1].kind, OperandKind::Expr(Expr::Generic(n, _)) if n.text == "shared_buf"));
    assert!(matches!(&is[2].operands[1].kind, OperandKind::Expr(Expr::Binary(BinOp::Add, ..))));
    let OperandKind::Expr(e) = &is[3].operands[2].kind else { panic!("{:?}", is[3].operands[2]) };
    assert!(matches!(e, Expr::Binary(BinOp::Mul, ..)));
    assert_eq!(ptxsim_syntax::parser::eval_const(e), Some(9));
}

#[test]
fn texture_and_surface_bracket_operands() {
    let m = ok(kernel("tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tex_a, sam, {%f5,%f6}];\nsust.b.2d.v4.b32.trap [surf_a, {%r1, %r2}], {%r3,%r4,%r5,%r6};"));
    let is = instrs(&m);
    let OperandKind::Bracket(b) = &is[0].operands[1].kind else { panic!() };
    assert_eq!(b.len(), 3);
    assert!(matches!(&b[2].kind, OperandKind::Vector(v) if v.len() == 2));
    assert!(matches!(&is[1].operands[0].kind, OperandKind::Bracket(b) if b.len() == 2));
}

#[test]
fn comments_are_skipped() {
    let m = ok(kernel("// line comment\nadd.s32 %r1, /* inline */ %r2, 1; // trailing\n/* multi\n line */ ret;"));
    assert_eq!(instrs(&m).len(), 2);
}

#[test]
fn label_and_instruction_on_one_line() {
    let m = ok(kernel("L1: add.s32 %r1, %r1, 1; @%p1 bra L1;"));
    assert!(matches!(&body(&m)[0], Statement::Label(n) if n.text == "L1"));
    assert_eq!(instrs(&m).len(), 2);
}

#[test]
fn identifiers_with_dollar_and_percent() {
    let m = ok(kernel("$L__BB0_3:\nmov.u32 %r$1, __cuda_local_var_1$x;\nbra $L__BB0_3;"));
    assert_eq!(name_text(&instrs(&m)[0].operands[0]), "%r$1");
    assert_eq!(name_text(&instrs(&m)[0].operands[1]), "__cuda_local_var_1$x");
}

// ---------------------------------------------------------------- things that are errors

#[test]
fn errors_are_reported_not_accepted() {
    assert_eq!(err_codes(&kernel("add.s32 %r1, %r2, 08;")), ["syntax/bad-number"]);
    assert_eq!(err_codes(&kernel("mov.f32 %f1, 0f3F80;")), ["syntax/bad-number"]);
    assert_eq!(err_codes(&kernel("add.s32 %r1, %r2, 1u;")), ["syntax/bad-number"]);
    assert_eq!(err_codes(&kernel(".bogus 1;\nret;")), ["syntax/unknown-directive"]);
    assert_eq!(err_codes(&kernel("add.s32 %r1, %r2, 1\nret;")), ["syntax/missing-semicolon"]);
    assert_eq!(err_codes(&format!("{HEADER}.entry k() {{ ret;")), ["syntax/unclosed-block"]);
}

#[test]
fn negated_register_operands_with_selectors() {
    // vmad's operand negation: `-%r1`, `-%r2.h1`; `-1` and `- 1` stay constants.
    let m = ok(kernel("vmad.s32.s32.s32 %r0, -%r1, -%r2.h1, %r3;\nadd.s32 %r1, %r2, -1;"));
    let is = instrs(&m);
    assert!(matches!(&is[0].operands[1].kind, OperandKind::Neg { name, component: None } if name.text == "%r1"));
    assert!(matches!(&is[0].operands[2].kind, OperandKind::Neg { name, component: Some(c) } if name.text == "%r2" && c.text == ".h1"));
    assert!(matches!(&is[1].operands[2].kind, OperandKind::Int(_)));
    let text = ptxsim_syntax::print_module(&m);
    assert!(text.contains("-%r1, -%r2.h1, %r3"), "{text}");
    assert_eq!(ok(&text), m);
}

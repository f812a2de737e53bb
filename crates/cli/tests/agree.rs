//! The checker and the engine agree: every opcode the checker's table
//! accepts either has a decoder in the engine or is in the one list of what
//! is not supported yet (`ptxsim_exec::unsupported::NOT_SUPPORTED_YET`),
//! every opcode entry of that list really has no decoder, README.md
//! publishes the same list, and loading every accepted module of
//! `tests/check/` and `tests/corpus/` yields no unsupported form, operand or
//! declaration outside it, while every other entry of the list (a form or a
//! message) is met there, so that the list cannot outlive what it names.

use ptxsim_check::rules::TABLE;
use ptxsim_exec::program::Op;
use ptxsim_exec::unsupported::NOT_SUPPORTED_YET;
use ptxsim_exec::{decodes_opcode, Device};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn every_accepted_opcode_decodes_or_is_listed() {
    let mut wrong = Vec::new();
    for spec in TABLE {
        let listed = NOT_SUPPORTED_YET.contains(&spec.op);
        match (decodes_opcode(spec.op), listed) {
            (true, true) => wrong.push(format!("`{}` has a decoder but is listed as not supported yet", spec.op)),
            (false, false) => wrong.push(format!("`{}` is accepted by the checker, has no decoder and is not listed", spec.op)),
            _ => {}
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let mut sorted = NOT_SUPPORTED_YET.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted, *NOT_SUPPORTED_YET, "the list is sorted and has no repeats");
}

/// The instruction description's engine column is what the decoder does:
/// a row marked not supported yet has no decoder and is listed by name;
/// a row with a decoder family is decoded (and is not listed).
#[test]
fn engine_column_matches_the_decoder() {
    for row in ptxsim_isa::OPS {
        let not_yet = matches!(row.engine, ptxsim_isa::Engine::NotYet(_));
        assert_eq!(decodes_opcode(row.op), !not_yet, "`{}`: {:?}", row.op, row.engine);
        assert_eq!(NOT_SUPPORTED_YET.contains(&row.op), not_yet, "`{}`", row.op);
        // Every opcode the checker accepts is one of these rows.
        assert!(ptxsim_check::rules::spec(row.op).is_some() || row.op.contains('.'), "`{}`", row.op);
    }
}

/// The decoder answers for real instructions too: a known opcode with no
/// decoder loads as an unsupported form naming it, one with a decoder does not.
#[test]
fn decodes_opcode_matches_loading() {
    let src = |body: &str| {
        format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{{\n.reg .b32 %r<4>;\n.reg .pred %p<2>;\n{body}\nret;\n}}\n"
        )
    };
    let mut dev = Device::new();
    // `brkpt` is accepted by the checker and has no decoder.
    assert!(!decodes_opcode("brkpt"));
    let m = dev.load(&src("brkpt;")).expect("loads");
    let names = unsupported_names(&m);
    assert_eq!(names, vec!["brkpt".to_string()]);
    // The message gives the reason of `brkpt`'s row.
    let why = ptxsim_exec::unsupported::reason("brkpt");
    let msgs: Vec<&String> = m.program.functions.iter().flat_map(|f| &f.code).filter_map(|i| match &i.op {
        Op::Unsupported(msg) => Some(msg),
        _ => None,
    }).collect();
    assert_eq!(msgs, vec![&format!("instruction `brkpt` is not supported yet ({why})")]);
    // `add.s32` has one.
    assert!(decodes_opcode("add"));
    let m = dev.load(&src("add.s32 %r1, %r2, %r3;")).expect("loads");
    assert!(unsupported_names(&m).is_empty());
}

/// What the module's unsupported instructions name: the form for an
/// unsupported instruction form, else the decoder's message.
fn unsupported_names(m: &ptxsim_exec::Module) -> Vec<String> {
    let mut out = Vec::new();
    for f in &m.program.functions {
        for i in &f.code {
            if let Op::Unsupported(msg) = &i.op {
                // `instruction `X` is not supported yet`, with the row's reason after it
                // for an opcode that has no decoder.
                out.push(msg.strip_prefix("instruction `").and_then(|r| r.split_once("` is not supported yet")).map_or(msg.as_str(), |(n, _)| n).to_string());
            }
        }
    }
    out
}

/// The list entry that covers `name`: the name itself, or for a form
/// (`tex.1d.v4.f32.s32`) an entry that is a dotted prefix of it.
fn entry_of(name: &str) -> Option<&'static str> {
    NOT_SUPPORTED_YET.iter().copied().find(|e| name == *e || name.strip_prefix(e).is_some_and(|r| r.starts_with('.')))
}

fn ptx_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            ptx_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "ptx") {
            out.push(p);
        }
    }
}

#[test]
fn accepted_modules_load_without_unlisted_unsupported_forms() {
    let mut files = Vec::new();
    ptx_files(&root().join("tests/check/accept"), &mut files);
    let n_check = files.len();
    ptx_files(&root().join("tests/corpus"), &mut files);
    assert!(n_check >= 200 && files.len() >= n_check + 100, "found {n_check} accepted check files and {} in all", files.len());
    files.sort();
    let mut wrong = Vec::new();
    let mut met = std::collections::BTreeSet::new();
    // The separately compiled pair of tests/corpus/nvcc_rdc loads linked.
    let rdc: Vec<PathBuf> = files.iter().filter(|p| p.parent().is_some_and(|d| d.ends_with("nvcc_rdc"))).cloned().collect();
    files.retain(|p| !rdc.contains(p));
    assert_eq!(rdc.len(), 2, "the nvcc_rdc pair");
    let texts: Vec<(String, String)> = rdc.iter().map(|p| (p.display().to_string(), std::fs::read_to_string(p).expect("readable"))).collect();
    let refs: Vec<(&str, &str)> = texts.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    match Device::new().load_linked(&refs) {
        Ok(m) => {
            for name in unsupported_names(&m) {
                match entry_of(&name) {
                    Some(e) => {
                        met.insert(e);
                    }
                    None => wrong.push(format!("nvcc_rdc: `{name}` is not in NOT_SUPPORTED_YET")),
                }
            }
        }
        Err(e) => wrong.push(format!("the nvcc_rdc pair does not link: {e}")),
    }
    for p in &files {
        let src = std::fs::read_to_string(p).expect("readable");
        let mut dev = Device::new();
        let path = p.display().to_string();
        let names = match dev.load_named(&path, &src) {
            Ok(m) => unsupported_names(&m),
            Err(e) => vec![e.message.strip_prefix(&format!("{path}: ")).unwrap_or(&e.message).to_string()],
        };
        for name in names {
            match entry_of(&name) {
                Some(e) => {
                    met.insert(e);
                }
                None => wrong.push(format!("{path}: `{name}` is not in NOT_SUPPORTED_YET")),
            }
        }
    }
    for e in NOT_SUPPORTED_YET.iter() {
        if !TABLE.iter().any(|s| s.op == *e) && !met.contains(e) {
            wrong.push(format!("`{e}` is listed, is not an opcode without a decoder, and no accepted module meets it"));
        }
    }
    assert!(wrong.is_empty(), "{} problems:\n{}", wrong.len(), wrong.join("\n"));
}

/// The description's `x|y` destination forms cover every one the accepted
/// modules write: an instruction with a `p|q` or `d|p` destination has a
/// row that says it can have one.
#[test]
fn pair_destinations_are_described() {
    let mut files = Vec::new();
    ptx_files(&root().join("tests/check/accept"), &mut files);
    ptx_files(&root().join("tests/corpus"), &mut files);
    let mut seen = 0;
    let mut wrong = Vec::new();
    for p in &files {
        let src = std::fs::read_to_string(p).expect("readable");
        let parsed = ptxsim_syntax::parse(&src);
        let mut stack: Vec<&ptxsim_syntax::ast::Block<'_>> = parsed.module.items.iter().filter_map(|i| match i {
            ptxsim_syntax::ast::Item::Function(f) => f.body.as_ref(),
            _ => None,
        }).collect();
        while let Some(b) = stack.pop() {
            for st in &b.stmts {
                match st {
                    ptxsim_syntax::ast::Statement::Block(inner) => stack.push(inner),
                    ptxsim_syntax::ast::Statement::Instr(i) => {
                        let Some(first) = i.operands.first() else { continue };
                        if !matches!(first.kind, ptxsim_syntax::ast::OperandKind::PredPair(..)) {
                            continue;
                        }
                        seen += 1;
                        match ptxsim_isa::lookup(i.opcode.text).map(|r| r.pair_dest()) {
                            Some(ptxsim_isa::PairDest::None) | None => wrong.push(format!("{}: `{}` has an x|y destination", p.display(), i.opcode.text)),
                            Some(_) => {}
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    assert!(seen >= 10, "only {seen} x|y destinations found");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn readme_publishes_the_list() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let section = readme.split("\n## Not supported yet\n").nth(1).expect("README.md has a `## Not supported yet` section");
    let section = section.split("\n## ").next().unwrap_or(section);
    // One entry a line, as a code span that may hold backticks: - `` x ``,
    // then for an opcode without a decoder `: ` and the reason of its row.
    let mut published = Vec::new();
    for l in section.lines() {
        let Some(rest) = l.strip_prefix("- `` ") else { continue };
        let (name, why) = match rest.split_once(" ``: ") {
            Some((name, why)) => (name, Some(why)),
            None => (rest.strip_suffix(" ``").unwrap_or(rest), None),
        };
        let row_reason = ptxsim_isa::not_supported_yet().find(|(op, _)| *op == name).map(|(_, why)| why);
        assert_eq!(why, row_reason, "README.md's reason for `{name}` differs from its row's");
        published.push(name);
    }
    assert_eq!(published, *NOT_SUPPORTED_YET, "README.md's `Not supported yet` list differs from NOT_SUPPORTED_YET");
}

//! The gap survey of the Numba and Triton corpora: for every `.ptx` under
//! `tests/corpus/{numba,triton}` and `tests/corpus_pending/{numba,triton}`, whether
//! the checker rejects it (its errors), every instruction the engine
//! decodes as not supported yet (wherever it is in the module, executed by
//! the launch tests or not), with its line, and every call of a function
//! declared without a body that the engine does not run itself. Prints
//! a Markdown report:
//!
//!     cargo test -p ptxsim-exec --release --test all -- corpus_survey:: --ignored --nocapture
//!
//! `tests/corpus_pending/triton/README.md` records its output.


use crate::corpus_launch::*;
use ptxsim_exec::program::Op;
use ptxsim_exec::Device;
use std::collections::BTreeMap;

/// `instruction `X` is not supported yet` becomes `X` (in backquotes);
/// other messages stay whole.
fn short(msg: &str) -> String {
    match msg.strip_prefix("instruction `").and_then(|r| r.split_once('`')) {
        Some((name, rest)) if rest.starts_with(" is not supported yet") => format!("`{name}`"),
        _ => msg.to_string(),
    }
}

#[test]
#[ignore]
fn survey_numba_and_triton() {
    let dirs = ["corpus/numba", "corpus/triton", "corpus_pending/numba", "corpus_pending/triton"];
    // Unsupported message -> files using it.
    let mut by_insn: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut rejected: Vec<(String, String)> = Vec::new();
    println!("| file | ptxsim check | instructions the engine does not support yet (line) |");
    println!("|---|---|---|");
    // A pending directory with no file left is absent (git keeps no empty directory).
    for dir in dirs.into_iter().filter(|d| tests_path(d).exists()) {
        for file in ptx_files(dir) {
            let rel = format!("{dir}/{file}");
            let text = tests_text(&rel);
            let mut dev = Device::new();
            match dev.load_named(&rel, &text) {
                Err(e) => {
                    let first = e.message.lines().next().unwrap_or("").to_string();
                    println!("| `{rel}` | rejected: {first} | (not decoded) |");
                    rejected.push((rel, first));
                }
                Ok(module) => {
                    let mut found: Vec<(String, u32)> = Vec::new();
                    // Calls of functions declared without a body (the engine
                    // stops at them), except `vprintf` and `__assertfail`,
                    // which it runs (`Op::Printf`, `Op::AssertFail`).
                    for f in &module.program.functions {
                        for ins in &f.code {
                            if let Op::Call { callee: ptxsim_exec::program::Callee::Direct(c), .. } = &ins.op {
                                let c = &module.program.functions[*c as usize];
                                if !c.defined {
                                    found.push((format!("call to external `{}`", c.name), ins.line));
                                }
                            }
                        }
                    }
                    for f in &module.program.functions {
                        for ins in &f.code {
                            if let Op::Unsupported(msg) = &ins.op {
                                found.push((short(msg), ins.line));
                            }
                        }
                    }
                    let mut per: BTreeMap<String, Vec<u32>> = BTreeMap::new();
                    for (m, l) in &found {
                        per.entry(m.clone()).or_default().push(*l);
                    }
                    let cell = if per.is_empty() {
                        "none".to_string()
                    } else {
                        per.iter()
                            .map(|(m, ls)| {
                                if ls.iter().all(|&l| l == 0) {
                                    return m.clone();
                                }
                                let lines: Vec<String> = ls.iter().take(4).map(|l| l.to_string()).collect();
                                let more = if ls.len() > 4 { format!(", ... ({} in all)", ls.len()) } else { String::new() };
                                format!("{m} ({}{more})", lines.join(", "))
                            })
                            .collect::<Vec<_>>()
                            .join("; ")
                    };
                    println!("| `{rel}` | clean | {cell} |");
                    for (m, ls) in per {
                        by_insn.entry(m).or_default().push(format!("{file} ({}x)", ls.len()));
                    }
                }
            }
        }
    }
    println!();
    println!("| not supported yet | files (occurrences) |");
    println!("|---|---|");
    for (m, files) in &by_insn {
        println!("| {m} | {} |", files.join(", "));
    }
    println!();
    println!("{} files rejected by the checker", rejected.len());
}

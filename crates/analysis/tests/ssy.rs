//! Reconvergence points against ptxas: for corpus kernels compiled for sm_50,
//! the SSY/PBK targets that ptxas chose (recorded by `scripts/record_ssy.py`
//! into `tests/ssy/*.tsv`, mapped back to PTX lines through `-lineinfo`) must
//! agree with ptxsim's immediate post-dominators. Every known difference is
//! listed in `tests/ssy/README.md` and in `EXPLAINED` below, with its reason.
//!
//! A row agrees when one of the PTX lines of the first SASS instructions at the
//! SSY/PBK target lies in ptxsim's reconvergence block for that branch, or in a
//! block that the reconvergence block dominates and that post-dominates it
//! (ptxas hoists and schedules code from the join's straight-line successors).

use ptxsim_analysis::report::{analyse_module, FunctionReport};
use ptxsim_analysis::Reconvergence;
use ptxsim_syntax::LineIndex;
use std::path::Path;

struct Row {
    func: String,
    line: u32,
    kind: String,
    targets: Vec<u32>,
}

fn rows(tsv: &str) -> Vec<Row> {
    tsv.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            Some(Row {
                func: c.first()?.to_string(),
                line: c.get(1)?.parse().ok()?,
                kind: c.get(2)?.to_string(),
                targets: c.get(3).map(|t| t.split(',').filter_map(|x| x.parse().ok()).collect()).unwrap_or_default(),
            })
        })
        .collect()
}

/// (file, function, branch line): differences explained in tests/ssy/README.md.
const EXPLAINED: &[(&str, &str, u32, &str)] = &[
    (
        "nvcc/collatz.ptx",
        "search_kernel",
        185,
        "the branch sits in a loop whose early exit `@%p7 bra $L__BB2_9` ptxas lowers as a BRK to the loop's PBK; \
         its SSY then only needs to cover the non-break paths, which meet at $L__BB2_8 (line 193). ptxsim's ipdom \
         is the true one, $L__BB2_9, because the break path skips $L__BB2_8",
    ),
    (
        "llvmlite/lt_switch_nested.ptx",
        "nested_switch_kernel",
        89,
        "ptxas unrolled the self-loop $L__BB0_26 by 4; the SSYs wrap the unrolled copy and target the remainder \
         copy of the same PTX loop (lines 85-89), not a PTX reconvergence point",
    ),
];

/// Whether `to` follows `from` through blocks with a single successor and no
/// exit (control reaches it without any further branching). ptxas rotates loops:
/// a join that is a loop latch falls into the header's test, and ptxas's SYNC
/// target is that test with the latch's instructions scheduled around it.
fn straight_line(r: &FunctionReport<'_, '_>, from: usize, to: usize) -> bool {
    let mut b = from;
    for _ in 0..4 {
        let blk = &r.fa.cfg.blocks[b];
        if blk.succs.len() != 1 || blk.exits {
            return false;
        }
        b = blk.succs[0];
        if b == to {
            return true;
        }
    }
    false
}

#[derive(Default, Debug)]
struct Tally {
    kernels: usize,
    ssy_rows: usize,
    agree: usize,
    explained: usize,
    internal: usize,
    none_rows: usize,
    none_uniform: usize,
    none_divergent: usize,
}

fn block_of_line(r: &FunctionReport<'_, '_>, li: &LineIndex, line: u32) -> Option<usize> {
    (0..r.flat.instrs.len()).find(|&k| li.line(r.instr_span(k).start) == line).map(|k| r.fa.cfg.block_of[k])
}

#[test]
fn ssy_targets_agree_with_ipdoms() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = root.join("tests/ssy");
    let mut t = Tally::default();
    let mut failures = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(&dir).expect("tests/ssy").filter_map(|e| e.ok()).collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().to_string();
        let Some(stem) = name.strip_suffix(".tsv") else { continue };
        let rel = stem.replace("__", "/") + ".ptx";
        let src = std::fs::read_to_string(root.join("tests/corpus").join(&rel)).expect("corpus file");
        let tsv = std::fs::read_to_string(e.path()).expect("tsv");
        let parsed = ptxsim_syntax::parse(&src);
        let li = LineIndex::new(&src);
        let reports = analyse_module(&parsed.module);
        let rs = rows(&tsv);
        let mut funcs: Vec<&str> = rs.iter().map(|r| r.func.as_str()).collect();
        funcs.dedup();
        t.kernels += funcs.len();
        for row in rs {
            if row.line == 0 {
                t.internal += 1;
                continue;
            }
            // ptxas inlines `.func`s, so a line may belong to another PTX function
            // than the SASS function that holds it.
            let found = reports.iter().find_map(|r| {
                (0..r.flat.instrs.len())
                    .find(|&k| li.line(r.instr_span(k).start) == row.line && r.fa.reconvergence[k].is_some())
                    .map(|k| (r, k))
            });
            let Some((r, k)) = found else {
                failures.push(format!("{rel}:{}: no branch on that line", row.line));
                continue;
            };
            if row.kind == "none" {
                t.none_rows += 1;
                if r.uni.is_divergent(k) {
                    t.none_divergent += 1;
                } else {
                    t.none_uniform += 1;
                }
                continue;
            }
            t.ssy_rows += 1;
            let ok = match r.fa.reconvergence[k] {
                Some(Reconvergence::At(j)) => {
                    let jb = r.fa.cfg.block_of.get(j).copied();
                    row.targets.iter().any(|&tl| match (block_of_line(r, &li, tl), jb) {
                        (Some(tb), Some(jb)) => {
                            tb == jb
                                || (r.dom.dominates(jb, tb) && r.fa.postdom.dominates(tb, jb))
                                || straight_line(r, jb, tb)
                        }
                        _ => false,
                    })
                }
                _ => false,
            };
            let explained = EXPLAINED.iter().any(|&(f, func, l, _)| f == rel && func == row.func && l == row.line);
            if ok {
                t.agree += 1;
            } else if explained {
                t.explained += 1;
            } else {
                let ip = r.fa.reconvergence[k].map(|x| r.point_name(x, &li));
                failures.push(format!(
                    "{rel}: {} line {} {}: ptxas target lines {:?}, ptxsim ipdom {:?}",
                    row.func, row.line, row.kind, row.targets, ip
                ));
            }
        }
    }
    eprintln!("{t:#?}");
    assert!(t.kernels >= 10, "{t:?}");
    assert!(failures.is_empty(), "unexplained differences:\n{}", failures.join("\n"));
}

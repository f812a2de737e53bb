//! The lowering's SSY/PBK placement against ptxas 12.9 for sm_50, over the
//! nvdisasm data committed in `tests/ssy/` (see its README): for every PTX
//! conditional branch that ptxas gave an SSY or PBK, whether ptxsim's
//! lowering covers that branch with a site of the same kind, and whether the
//! site's meeting point is ptxas's target (the same criteria as
//! `crates/analysis/tests/ssy.rs`). Every difference is counted by reason and
//! listed in `crates/sass/LOWERING.md`.

use ptxsim_analysis::report::analyse_module;
use ptxsim_sass::lower::SiteKind;
use ptxsim_syntax::LineIndex;
use std::collections::BTreeMap;
use std::path::Path;

struct Row {
    #[allow(dead_code)]
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

/// Whether `to` follows `from` through blocks with one successor (ptxas
/// rotates loops: a join that is a loop latch falls into the header's test).
fn straight_line(r: &ptxsim_analysis::report::FunctionReport<'_, '_>, from: usize, to: usize) -> bool {
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

/// Rows where ptxsim's site targets another point than ptxas's SSY, with the
/// reason (see `crates/sass/LOWERING.md`).
const TARGET_DIFFERS: &[(&str, u32, &str)] = &[
    ("nvcc/collatz.ptx", 185, "ptxas lowers the loop's early exit as BRK to a PBK, so its SSY only covers the non-break paths"),
    ("llvmlite/lt_switch_nested.ptx", 89, "ptxas unrolled the self-loop by four; its SSYs target the remainder copy"),
];

#[test]
fn ssy_and_pbk_placement_against_ptxas() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut tally: BTreeMap<String, usize> = BTreeMap::new();
    let mut listing = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(root.join("tests/ssy")).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().to_string();
        let Some(stem) = name.strip_suffix(".tsv") else { continue };
        let rel = stem.replace("__", "/") + ".ptx";
        let src = std::fs::read_to_string(root.join("tests/corpus").join(&rel)).unwrap();
        let tsv = std::fs::read_to_string(e.path()).unwrap();
        let mut dev = ptxsim_exec::Device::new();
        let Ok((_, low)) = ptxsim_sass::load_and_lower(&mut dev, &rel, &src) else {
            *tally.entry("file does not load in the engine".into()).or_default() += 1;
            listing.push(format!("{rel}: does not load"));
            continue;
        };
        let parsed = ptxsim_syntax::parse(&src);
        let li = LineIndex::new(&src);
        let reports = analyse_module(&parsed.module);
        for row in rows(&tsv) {
            if row.line == 0 {
                continue;
            }
            // The PTX branch on that line, in whichever function holds it.
            let Some((r, k)) = reports.iter().find_map(|r| {
                (0..r.flat.instrs.len()).find(|&k| li.line(r.instr_span(k).start) == row.line && r.fa.reconvergence[k].is_some()).map(|k| (r, k))
            }) else {
                continue;
            };
            let fname = r.name().to_string();
            let site = low.sites.iter().find(|s| s.function == fname && s.branches.contains(&k));
            let fb = low.fallbacks.iter().find(|f| f.function == fname && f.branch == k);
            let key = match (row.kind.as_str(), site) {
                ("none", None) => "ptxas none, ptxsim none".to_string(),
                ("none", Some(s)) if s.branches[0] != k => format!("ptxas none, ptxsim none: shares an enclosing {:?}", s.kind),
                ("none", Some(s)) => format!("ptxas none, ptxsim {:?}{}", s.kind, if s.hoisted_to.is_some() { " (hoisted before a loop)" } else { "" }),
                (pk, None) => match fb {
                    Some(f) => format!("ptxas {pk}, ptxsim none: {}", f.reason),
                    None if r.uni.is_divergent(k) => format!("ptxas {pk}, ptxsim none: the SIMT meeting point is the exit"),
                    None => format!("ptxas {pk}, ptxsim none: the analysis proves the branch uniform"),
                },
                (pk, Some(s)) if s.branches[0] != k => format!("ptxas {pk}, ptxsim none: shares an enclosing {:?}", s.kind),
                (pk, Some(s)) => {
                    let jb = r.fa.cfg.block_of.get(s.join).copied();
                    let target_ok = row.targets.iter().any(|&tl| {
                        let tb = (0..r.flat.instrs.len()).find(|&x| li.line(r.instr_span(x).start) == tl).map(|x| r.fa.cfg.block_of[x]);
                        match (tb, jb) {
                            (Some(tb), Some(jb)) => tb == jb || (r.dom.dominates(jb, tb) && r.fa.postdom.dominates(tb, jb)) || straight_line(r, jb, tb),
                            _ => false,
                        }
                    });
                    let kind_ok = matches!((pk, s.kind), ("SSY", SiteKind::Ssy) | ("PBK", SiteKind::Pbk));
                    format!(
                        "ptxas {pk}, ptxsim {:?}{}: target {}",
                        s.kind,
                        if s.hoisted_to.is_some() { " (hoisted before a loop)" } else { "" },
                        if target_ok { "agrees" } else { "differs" }
                    ) + if kind_ok { "" } else { " (kind differs)" }
                }
            };
            if !key.starts_with("ptxas none, ptxsim none") && !key.ends_with("target agrees") {
                listing.push(format!("{rel}: {fname} line {}: {key}", row.line));
            }
            *tally.entry(key).or_default() += 1;
        }
    }
    for (k, v) in &tally {
        eprintln!("{v:4}  {k}");
    }
    eprintln!("{}", listing.join("\n"));
    let count = |f: &dyn Fn(&str) -> bool| tally.iter().filter(|(k, _)| f(k)).map(|(_, v)| *v).sum::<usize>();
    let own = count(&|k| !k.starts_with("ptxas none") && k.contains(": target "));
    let agree = count(&|k| !k.starts_with("ptxas none") && k.contains("target agrees"));
    let kind_agree = count(&|k| !k.starts_with("ptxas none") && k.ends_with("target agrees"));
    eprintln!("ptxas SSY/PBK rows with an own ptxsim site: {own}; target agrees: {agree}; kind agrees too: {kind_agree}");
    let unexplained: Vec<&String> = listing
        .iter()
        .filter(|l| l.contains("target differs"))
        .filter(|l| !TARGET_DIFFERS.iter().any(|(f, line, _)| l.starts_with(&format!("{f}: ")) && l.contains(&format!(" line {line}: "))))
        .collect();
    assert!(unexplained.is_empty(), "target differences without a recorded reason:\n{unexplained:#?}");
    // Figures recorded in LOWERING.md; they may only improve.
    assert!(agree >= 53, "{agree}");
    assert!(kind_agree >= 53, "{kind_agree}");
}

//! `ptxsim cfg`: the control-flow analysis report of a module's functions:
//! blocks with their source lines, edges, dominator and post-dominator trees,
//! reconvergence points, loops, uniformity verdicts with causes; as text,
//! Graphviz DOT or JSON; plus `.uni` warnings (and, with `--notes`, notes on
//! uniform branches that lack `.uni`).

use crate::common::{cut, escape_controls, read_text, render_diags, use_color, Color, EXIT_INPUT, EXIT_USAGE};
use ptxsim_analysis::callgraph::{CallGraph, CallSite, Callees};
use ptxsim_analysis::report::{dot_module_header, FunctionReport, EXIT_NODE};
use ptxsim_analysis::uniformity::CauseStep;
use ptxsim_analysis::Reconvergence;
use ptxsim_syntax::{Diagnostic, LineIndex, SourceFile};
use ptxsim_syntax::ast::{Function, Item};
use serde_json::{json, Value};
use std::io::Write;
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// The PTX file.
    file: PathBuf,
    /// Only this function (default: every function with a body).
    #[arg(long)]
    function: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Also note conditional branches that are provably uniform but lack `.uni`.
    #[arg(long)]
    notes: bool,
    /// Colour the diagnostics (auto: when standard output is a terminal).
    #[arg(long, value_enum, default_value = "auto")]
    color: Color,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Text,
    Dot,
    Json,
}

pub fn run(a: Args) -> ExitCode {
    let text = match read_text(&a.file) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let name = a.file.display().to_string();
    let file = SourceFile::new(&name, &text);
    let parsed = ptxsim_syntax::parse(&text);
    if parsed.has_errors() {
        let _ = std::io::stderr().write_all(&render_diags(&file, &parsed.diagnostics, use_color(a.color)));
        return ExitCode::from(EXIT_INPUT);
    }
    let li = LineIndex::new(&text);
    // The functions to report, in module order; each is analysed, printed
    // and dropped in turn, so memory holds one function's analyses at a time.
    let funcs: Vec<&Function<'_>> = parsed
        .module
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Function(f) if f.body.is_some() && a.function.as_deref().is_none_or(|n| f.name.text == n) => Some(&**f),
            _ => None,
        })
        .collect();
    if let (Some(f), true) = (&a.function, funcs.is_empty()) {
        eprintln!("error: {}", escape_controls(&format!("{}: no function named `{}` with a body", cut(&name), cut(f))));
        return ExitCode::from(EXIT_USAGE);
    }
    let graph = CallGraph::new(&parsed.module);
    // Call sites by function name, looked up once per function (not a scan per lookup).
    let mut by_name: HashMap<&str, &[CallSite]> = HashMap::with_capacity(graph.functions.len());
    for (n, s) in &graph.functions {
        by_name.entry(n.as_str()).or_insert(s.as_slice());
    }
    let sites = |r: &FunctionReport<'_, '_>| -> &[CallSite] { by_name.get(r.name()).copied().unwrap_or(&[]) };
    let mut diags: Vec<Diagnostic> = Vec::new();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let reports = funcs.iter().filter_map(|f| FunctionReport::new(f));
    match a.format {
        Format::Text => {
            for (i, r) in reports.enumerate() {
                if i > 0 {
                    let _ = writeln!(out);
                }
                let _ = write!(out, "{}", r.render_text(&text, &li));
                let calls = sites(&r);
                if !calls.is_empty() {
                    let _ = writeln!(out, "calls:");
                    for c in calls {
                        let _ = writeln!(out, "  line {}: {}", li.line(r.instr_span(c.instr).start), callees_text(&c.callees));
                    }
                }
                diags.extend(r.diagnostics(a.notes));
            }
            if !diags.is_empty() {
                let _ = writeln!(out);
                let _ = out.write_all(&render_diags(&file, &diags, use_color(a.color)));
            }
        }
        Format::Dot => {
            // One graph whatever the number of functions: a cluster per function.
            if funcs.len() == 1 {
                for r in reports {
                    let _ = write!(out, "{}", r.render_dot(&text, &li));
                    diags.extend(r.diagnostics(a.notes));
                }
            } else {
                let _ = write!(out, "{}", dot_module_header(funcs.len()));
                for (i, r) in reports.enumerate() {
                    let _ = write!(out, "{}", r.render_dot_cluster(i, &text, &li));
                    diags.extend(r.diagnostics(a.notes));
                }
                let _ = writeln!(out, "}}");
            }
            let _ = out.flush();
            if !diags.is_empty() {
                let _ = std::io::stderr().write_all(&render_diags(&file, &diags, use_color(a.color)));
            }
        }
        Format::Json => {
            let _ = write!(out, "{{\"file\":{},\"functions\":[", Value::String(name.clone()));
            for (i, r) in reports.enumerate() {
                let mut v = function_json(&r, &text, &li);
                let calls: Vec<Value> = sites(&r).iter().map(|c| call_json(c, li.line(r.instr_span(c.instr).start))).collect();
                if let Value::Object(o) = &mut v {
                    o.insert("calls".into(), Value::Array(calls));
                }
                let _ = write!(out, "{}{v}", if i > 0 { "," } else { "" });
                diags.extend(r.diagnostics(a.notes));
            }
            let _ = writeln!(out, "],\"diagnostics\":{}}}", Value::Array(file.to_json(&diags)));
        }
    }
    let _ = out.flush();
    ExitCode::SUCCESS
}

fn function_json(r: &FunctionReport<'_, '_>, src: &str, li: &LineIndex) -> Value {
    let cfg = &r.fa.cfg;
    let line = |k: usize| li.line(r.instr_span(k).start);
    let blocks: Vec<Value> = cfg
        .blocks
        .iter()
        .enumerate()
        .map(|(b, blk)| {
            let lines = if blk.start < blk.end { json!([line(blk.start), line(blk.end - 1)]) } else { Value::Null };
            json!({
                "id": b,
                "label": r.label_at(blk.start),
                "instrs": [blk.start, blk.end],
                "lines": lines,
                "succs": blk.succs,
                "exits": blk.exits,
                "reachable": !r.unreachable.contains(&b),
                "idom": r.dom.idom[b],
                "ipdom": r.fa.postdom.idom[b].map(|p| if p == cfg.blocks.len() { json!(EXIT_NODE) } else { json!(p) }),
            })
        })
        .collect();
    let mut branches = Vec::new();
    for k in 0..r.flat.instrs.len() {
        let rc = r.fa.reconvergence[k];
        let v = r.uni.verdict(k);
        if rc.is_none() && v.is_none() {
            continue;
        }
        let reconv = match rc {
            Some(Reconvergence::At(t)) => json!({ "instr": t, "line": line(t), "label": r.label_at(t) }),
            Some(Reconvergence::Exit) => json!(EXIT_NODE),
            None => Value::Null,
        };
        branches.push(json!({
            "instr": k,
            "line": line(k),
            "text": r.instr_text(k, src),
            "reconvergence": reconv,
            "divergent": v.map(|v| v.divergent),
            "uni": v.map(|v| v.uni),
            "decided_by": v.and_then(|v| v.decided_by.clone()),
            "cause": v.filter(|v| v.divergent).map(|v| r.cause_text(&v.cause, src, li)),
            "cause_steps": v.map(|v| v.cause.iter().map(step_json).collect::<Vec<_>>()),
        }));
    }
    let loops: Vec<Value> = r
        .loops
        .loops
        .iter()
        .map(|l| json!({ "header": l.header, "blocks": l.blocks, "latches": l.latches, "exits": l.exits, "parent": l.parent, "depth": l.depth }))
        .collect();
    let irr: Vec<Value> = r.loops.irreducible.iter().map(|x| json!({ "blocks": x.blocks, "entries": x.entries })).collect();
    json!({
        "name": r.name(),
        "kind": if matches!(r.flat.func.kind, ptxsim_syntax::ast::FunctionKind::Entry) { "entry" } else { "func" },
        "instructions": r.flat.instrs.len(),
        "blocks": blocks,
        "unreachable": r.unreachable,
        "branches": branches,
        "loops": loops,
        "irreducible": irr,
    })
}

/// One call site's callees, as `ptxsim cfg` prints them.
fn callees_text(c: &Callees) -> String {
    match c {
        Callees::Direct(f) => format!("calls `{f}`"),
        Callees::Targets(l) => format!("calls one of {} (its flist)", l.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ")),
        Callees::Prototype { candidates } if candidates.is_empty() => "calls through a prototype; no function of the module has its address taken".into(),
        Callees::Prototype { candidates } => {
            // At most 16 names per call site: the list is the module's, not the site's.
            let shown: Vec<String> = candidates.iter().take(16).map(|f| format!("`{f}`")).collect();
            let more = if candidates.len() > 16 { format!(" and {} more", candidates.len() - 16) } else { String::new() };
            format!("calls through a prototype; candidates (address taken): {}{more}", shown.join(", "))
        }
        Callees::Unknown => "calls an unresolved target".into(),
    }
}

fn call_json(c: &CallSite, line: u32) -> Value {
    let (kind, callees) = match &c.callees {
        Callees::Direct(f) => ("direct", vec![f.clone()]),
        Callees::Targets(l) => ("flist", l.clone()),
        Callees::Prototype { candidates } => ("prototype", candidates.to_vec()),
        Callees::Unknown => ("unknown", vec![]),
    };
    json!({ "instr": c.instr, "line": line, "kind": kind, "callees": callees })
}

fn step_json(s: &CauseStep) -> Value {
    match s {
        CauseStep::Data { reg, instr, from } => json!({ "kind": "data", "reg": reg, "instr": instr, "from": from }),
        CauseStep::Guard { reg, instr, pred } => json!({ "kind": "guard", "reg": reg, "instr": instr, "pred": pred }),
        CauseStep::Source { reg, instr, what } => json!({ "kind": "source", "reg": reg, "instr": instr, "what": what }),
        CauseStep::Param { reg } => json!({ "kind": "param", "reg": reg }),
        CauseStep::Sync { reg, join, branch } => json!({ "kind": "sync", "reg": reg, "join": join, "branch": branch }),
        CauseStep::Temporal { reg, exit, header, branch } => {
            json!({ "kind": "temporal", "reg": reg, "exit": exit, "header": header, "branch": branch })
        }
        CauseStep::Truncated => json!({ "kind": "truncated" }),
    }
}

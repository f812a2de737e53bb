//! Reports on one function's control flow, for people and tools: everything
//! `ptxsim cfg` shows (blocks with source lines, edges, dominator and
//! post-dominator trees, reconvergence points, loops, irreducible regions,
//! uniformity verdicts with causes), rendered as text or Graphviz DOT, and the
//! diagnostics about `.uni` (a `.uni` branch found divergent: warning; a
//! provably uniform branch without `.uni`: note). Rendering returns strings;
//! nothing here prints.

use ptxsim_isa::Flow;
use crate::cfg::{BlockId, Terminator};
use crate::dom::{cfg_dominators, DomTree};
use crate::flat::FlatFunction;
use crate::loops::LoopForest;
use crate::reconv::{FunctionAnalysis, Reconvergence};
use crate::uniformity::{BranchVerdict, CauseStep, Uniformity};
use ptxsim_syntax::ast::{Function, Item, Module};
use ptxsim_syntax::{Diagnostic, LineIndex, Span};
use std::collections::HashMap;

/// The name the reports give the CFG's virtual exit node (where `ret`,
/// `exit` and `trap` lead), a node name rather than the opcode.
pub const EXIT_NODE: &str = "exit";
use std::fmt::Write;

/// Every analysis of one function.
pub struct FunctionReport<'f, 'a> {
    pub flat: FlatFunction<'f, 'a>,
    pub fa: FunctionAnalysis,
    pub dom: DomTree,
    pub loops: LoopForest,
    pub uni: Uniformity,
    /// Blocks not reachable from the entry.
    pub unreachable: Vec<BlockId>,
    /// The label naming each labelled instruction (the smallest name where
    /// several do), built once so that rendering is linear in the labels.
    label_index: HashMap<usize, &'a str>,
}

/// Analyses every function with a body.
pub fn analyse_module<'f, 'a>(m: &'f Module<'a>) -> Vec<FunctionReport<'f, 'a>> {
    m.items
        .iter()
        .filter_map(|i| match i {
            Item::Function(f) => FunctionReport::new(f),
            _ => None,
        })
        .collect()
}

/// What one step of a divergence cause says, and the instruction it points at.
fn cause_step(c: &CauseStep) -> (Option<usize>, String) {
    match c {
        CauseStep::Data { reg, instr, from } => (Some(*instr), format!("`{reg}` is computed from the thread-dependent `{from}` here")),
        CauseStep::Guard { reg, instr, pred } => (Some(*instr), format!("`{reg}` is written under the thread-dependent guard `{pred}` here")),
        CauseStep::Source { reg, instr, what } => (Some(*instr), format!("`{reg}` reads {what} here")),
        CauseStep::Param { reg } => (None, format!("`{reg}` is a parameter of a device function, which callers may pass per thread")),
        CauseStep::Sync { reg, join, .. } => (Some(*join), format!("`{reg}` merges here after a divergent branch")),
        CauseStep::Temporal { reg, exit, .. } => (Some(*exit), format!("`{reg}` is read after this loop exit, which threads may reach in different iterations")),
        CauseStep::Truncated => (None, "...".into()),
    }
}

/// The one warning for a `.uni` branch, `brx.idx` or call that the
/// uniformity analysis finds divergent (`.uni` promises that it is not):
/// `check/uni-divergent`, pointing at the instruction and at each step of
/// the cause chain. The checker emits it (`ptxsim check`) and so does the
/// report below (`ptxsim cfg`); `None` unless the verdict is `.uni` and
/// divergent.
pub fn uni_divergent_warning(flat: &FlatFunction<'_, '_>, v: &BranchVerdict) -> Option<Diagnostic> {
    if !(v.uni && v.divergent) {
        return None;
    }
    let i = flat.instrs.get(v.instr)?;
    let by = v.decided_by.clone().unwrap_or_else(|| "its operands".into());
    let mut d = Diagnostic::warning("check/uni-divergent", i.span, format!("`{}` is marked `.uni`, but `{by}` may differ between the threads of a warp", ptxsim_isa::modifiers::opname(i)))
        .with_label("`.uni` promises that every active thread takes the same path")
        .with_note("rule check/uni-divergent (PTX ISA 9.7.12.3 bra, 9.7.12 Thread Divergence): a `.uni` instruction whose guard, index or target differs between threads is undefined");
    for c in v.cause.iter().take(6) {
        match cause_step(c) {
            (Some(k), msg) => {
                if let Some(at) = flat.instrs.get(k) {
                    d = d.with_secondary(at.span, msg);
                }
            }
            (None, msg) => d = d.with_note(format!("why: {msg}")),
        }
    }
    Some(d)
}

/// The `.uni` diagnostics of a whole module (warnings; notes too when `notes`).
pub fn uni_diagnostics(m: &Module<'_>, notes: bool) -> Vec<Diagnostic> {
    analyse_module(m).iter().flat_map(|r| r.diagnostics(notes)).collect()
}

impl<'f, 'a> FunctionReport<'f, 'a> {
    pub fn new(func: &'f Function<'a>) -> Option<FunctionReport<'f, 'a>> {
        let flat = FlatFunction::new(func)?;
        let fa = FunctionAnalysis::new(&flat);
        let dom = cfg_dominators(&fa.cfg);
        let loops = LoopForest::new(&fa.cfg, &dom);
        let uni = Uniformity::with(&flat, &fa, &dom, &loops);
        let unreachable = (0..fa.cfg.blocks.len()).filter(|&b| dom.idom[b].is_none()).collect();
        let mut label_index: HashMap<usize, &'a str> = HashMap::with_capacity(flat.labels.len());
        for (&l, &t) in &flat.labels {
            let e = label_index.entry(t).or_insert(l);
            if l < *e {
                *e = l;
            }
        }
        Some(FunctionReport { flat, fa, dom, loops, uni, unreachable, label_index })
    }

    pub fn name(&self) -> &str {
        self.flat.func.name.text
    }

    fn virtual_exit(&self) -> usize {
        self.fa.cfg.blocks.len()
    }

    /// The span of instruction `k`, or the function's closing span past the end.
    pub fn instr_span(&self, k: usize) -> Span {
        match self.flat.instrs.get(k) {
            Some(i) => i.span,
            None => {
                let s = self.flat.func.span;
                Span { start: s.end.saturating_sub(1), end: s.end }
            }
        }
    }

    /// A label naming instruction `k`, if one does (the smallest name where several do).
    pub fn label_at(&self, k: usize) -> Option<&'a str> {
        self.label_index.get(&k).copied()
    }

    /// Whether block `b` is unreachable from the entry.
    pub fn is_unreachable(&self, b: BlockId) -> bool {
        self.dom.idom.get(b).is_none_or(|d| d.is_none())
    }

    /// A name for a reconvergence point: its label, `exit`, or `line N`.
    pub fn point_name(&self, r: Reconvergence, li: &LineIndex) -> String {
        match r {
            Reconvergence::Exit => EXIT_NODE.to_string(),
            Reconvergence::At(k) => match self.label_at(k) {
                Some(l) => l.to_string(),
                None => format!("line {}", li.line(self.instr_span(k).start)),
            },
        }
    }

    fn block_lines(&self, b: BlockId, li: &LineIndex) -> String {
        let blk = &self.fa.cfg.blocks[b];
        if blk.start == blk.end {
            return "(empty)".to_string();
        }
        let a = li.line(self.instr_span(blk.start).start);
        let z = li.line(self.instr_span(blk.end - 1).start);
        if a == z {
            format!("line {a}")
        } else {
            format!("lines {a}-{z}")
        }
    }

    fn block_name(&self, b: usize) -> String {
        if b == self.virtual_exit() {
            EXIT_NODE.into()
        } else {
            format!("B{b}")
        }
    }

    /// The source text of instruction `k`, on one line.
    pub fn instr_text(&self, k: usize, src: &str) -> String {
        let sp = self.instr_span(k);
        let t = src.get(sp.range()).unwrap_or("");
        t.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// A cause chain in words.
    pub fn cause_text(&self, cause: &[CauseStep], src: &str, li: &LineIndex) -> String {
        let line = |k: usize| li.line(self.instr_span(k).start);
        let mut parts = Vec::new();
        for s in cause {
            parts.push(match s {
                CauseStep::Data { reg, instr, from } => {
                    format!("`{reg}` depends on `{from}` at line {} (`{}`)", line(*instr), self.instr_text(*instr, src))
                }
                CauseStep::Guard { reg, instr, pred } => {
                    format!("`{reg}` is written under guard `{pred}` at line {}", line(*instr))
                }
                CauseStep::Source { reg, instr, what } => {
                    format!("`{reg}` = {what} at line {} (`{}`)", line(*instr), self.instr_text(*instr, src))
                }
                CauseStep::Param { reg } => format!("`{reg}` is a parameter of a non-kernel function"),
                CauseStep::Sync { reg, join, branch } => format!(
                    "`{reg}` merges at line {} after the divergent branch at line {}",
                    line(*join),
                    line(*branch)
                ),
                CauseStep::Temporal { reg, exit, header, branch } => format!(
                    "`{reg}` is written in the loop at line {} that threads leave in different iterations (branch at line {}), and is read after its exit at line {}",
                    line(*header),
                    line(*branch),
                    line(*exit)
                ),
                CauseStep::Truncated => "...".to_string(),
            });
        }
        parts.join("; ")
    }

    /// The short annotation used by file tests: `ipdom: X; divergent because S (sync)`.
    pub fn annotation(&self, k: usize, li: &LineIndex) -> Option<String> {
        self.uni.verdict(k)?;
        let mut parts = Vec::new();
        if let Some(r) = self.fa.reconvergence.get(k).copied().flatten() {
            parts.push(format!("ipdom: {}", self.point_name(r, li)));
        }
        if let Some(v) = self.uni.verdict(k) {
            if v.divergent {
                let src = v.cause.iter().rev().find_map(|s| match s {
                    CauseStep::Source { what, .. } => Some(what.replace('`', "")),
                    CauseStep::Param { reg } => Some(format!("param {reg}")),
                    _ => None,
                });
                let mut s = format!("divergent because {}", src.unwrap_or_else(|| "?".into()));
                let sync = v.cause.iter().any(|c| matches!(c, CauseStep::Sync { .. }));
                let temporal = v.cause.iter().any(|c| matches!(c, CauseStep::Temporal { .. }));
                if sync {
                    s.push_str(" (sync)");
                }
                if temporal {
                    s.push_str(" (temporal)");
                }
                parts.push(s);
            } else {
                parts.push("uniform".into());
            }
        }
        if parts.is_empty() {
            None
        } else {
            Some(parts.join("; "))
        }
    }

    /// `.uni` diagnostics: a `.uni` branch or call found divergent (warning), and
    /// with `notes`, a conditional branch proved uniform that lacks `.uni`.
    pub fn diagnostics(&self, notes: bool) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for v in &self.uni.verdicts {
            let Some(i) = self.flat.instrs.get(v.instr) else { continue };
            let what = i.opcode.text;
            if v.uni && v.divergent {
                out.extend(uni_divergent_warning(&self.flat, v));
            } else if notes && !v.uni && !v.divergent && matches!(ptxsim_isa::flow(what), Flow::Branch | Flow::IndirectBranch) {
                out.push(
                    Diagnostic::note(
                        "analysis/uniform-not-uni",
                        i.span,
                        format!("this `{what}` is uniform (its condition is the same in every thread) but is not marked `.uni`"),
                    )
                    .with_label("could be `.uni`"),
                );
            }
        }
        out
    }

    /// The text report.
    pub fn render_text(&self, src: &str, li: &LineIndex) -> String {
        let cfg = &self.fa.cfg;
        let mut o = String::new();
        let kind = self.flat.func.kind.as_str();
        let _ = writeln!(
            o,
            "function {} ({kind}): {} instructions, {} blocks",
            self.name(),
            self.flat.instrs.len(),
            cfg.blocks.len()
        );
        let _ = writeln!(o, "blocks:");
        for (b, blk) in cfg.blocks.iter().enumerate() {
            let mut succs: Vec<String> = blk.succs.iter().map(|&s| self.block_name(s)).collect();
            if blk.exits {
                succs.push(EXIT_NODE.into());
            }
            let label = self.label_at(blk.start).map(|l| format!(" {l}:")).unwrap_or_default();
            let _ = writeln!(
                o,
                "  B{b}{label} {} -> {}{}",
                self.block_lines(b, li),
                if succs.is_empty() { "(none)".to_string() } else { succs.join(", ") },
                if self.is_unreachable(b) { "  [unreachable]" } else { "" }
            );
        }
        if !self.unreachable.is_empty() {
            let names: Vec<String> = self.unreachable.iter().map(|&b| self.block_name(b)).collect();
            let _ = writeln!(o, "unreachable blocks: {}", names.join(", "));
        }
        let tree = |o: &mut String, title: &str, t: &DomTree| {
            let _ = write!(o, "{title}:");
            for (b, p) in t.idom.iter().enumerate() {
                if b == t.root {
                    continue;
                }
                if let Some(p) = p {
                    let _ = write!(o, " {}<-{}", self.block_name(b), self.block_name(*p));
                }
            }
            let _ = writeln!(o);
        };
        tree(&mut o, "dominator tree (block<-idom)", &self.dom);
        tree(&mut o, "post-dominator tree (block<-ipdom)", &self.fa.postdom);
        let _ = writeln!(o, "branches:");
        let mut any = false;
        for k in 0..self.flat.instrs.len() {
            let r = self.fa.reconvergence[k];
            let v = self.uni.verdict(k);
            if r.is_none() && v.is_none() {
                continue;
            }
            any = true;
            let line = li.line(self.instr_span(k).start);
            let mut s = format!("  line {line}: `{}`", self.instr_text(k, src));
            if let Some(r) = r {
                match r {
                    Reconvergence::Exit => s.push_str(" -> reconverges only at the virtual exit"),
                    Reconvergence::At(t) => {
                        let _ = write!(s, " -> reconverges at {} (line {})", self.point_name(r, li), li.line(self.instr_span(t).start));
                    }
                }
                // Where the SIMT stack meets the threads that do not exit.
                if let Some(Reconvergence::At(t)) = self.fa.simt_reconvergence[k].filter(|x| *x != r) {
                    let p = Reconvergence::At(t);
                    let _ = write!(s, "; threads that do not exit meet at {} (line {})", self.point_name(p, li), li.line(self.instr_span(t).start));
                }
            }
            if let Some(v) = v {
                if v.divergent {
                    let _ = write!(s, "\n      divergent: {}", self.cause_text(&v.cause, src, li));
                } else if matches!(cfg.terms[k], Terminator::None) || v.decided_by.is_some() {
                    let _ = write!(s, "\n      uniform{}", v.decided_by.as_ref().map(|d| format!(" (`{d}` is uniform)")).unwrap_or_default());
                } else {
                    s.push_str("\n      uniform");
                }
            }
            let _ = writeln!(o, "{s}");
        }
        if !any {
            let _ = writeln!(o, "  (none)");
        }
        let _ = writeln!(o, "loops:");
        if self.loops.loops.is_empty() {
            let _ = writeln!(o, "  (none)");
        }
        for (i, l) in self.loops.loops.iter().enumerate() {
            let blocks: Vec<String> = l.blocks.iter().map(|&b| self.block_name(b)).collect();
            let exits: Vec<String> = l.exits.iter().map(|&(a, b)| format!("{}->{}", self.block_name(a), self.block_name(b))).collect();
            let _ = writeln!(
                o,
                "  loop {i}: header B{} ({}), depth {}, parent {}, blocks {}, exits {}",
                l.header,
                self.block_lines(l.header, li),
                l.depth,
                l.parent.map_or("none".to_string(), |p| format!("loop {p}")),
                blocks.join(" "),
                if exits.is_empty() { "none".into() } else { exits.join(" ") }
            );
        }
        for r in &self.loops.irreducible {
            let blocks: Vec<String> = r.blocks.iter().map(|&b| self.block_name(b)).collect();
            let entries: Vec<String> = r.entries.iter().map(|&b| self.block_name(b)).collect();
            let _ = writeln!(o, "  irreducible region: blocks {}, entered at {}", blocks.join(" "), entries.join(" "));
        }
        o
    }

    /// Graphviz DOT: divergent branches in red, reconvergence points as
    /// double octagons, uniform conditional branches in blue.
    /// The function's CFG as one Graphviz digraph.
    pub fn render_dot(&self, src: &str, li: &LineIndex) -> String {
        let mut o = String::new();
        let _ = writeln!(o, "digraph \"{}\" {{", dot_escape(self.name()));
        let _ = writeln!(o, "  node [shape=box, fontname=\"monospace\", fontsize=10];");
        let _ = writeln!(o, "  label=\"{} (red: divergent branch; doubleoctagon: reconvergence point)\";", dot_escape(self.name()));
        self.dot_body(src, li, &mut o, "", "  ");
        let _ = writeln!(o, "}}");
        o
    }

    /// The nodes and edges of the function's CFG, node names prefixed with
    /// `prefix`, each line indented by `indent`.
    fn dot_body(&self, src: &str, li: &LineIndex, o: &mut String, prefix: &str, indent: &str) {
        let cfg = &self.fa.cfg;
        let mut reconv_blocks = vec![false; cfg.blocks.len()];
        let mut exit_reconv = false;
        for k in 0..self.flat.instrs.len() {
            if self.uni.is_divergent(k) {
                match self.fa.reconvergence[k] {
                    Some(Reconvergence::At(t)) => {
                        if let Some(&b) = cfg.block_of.get(t) {
                            reconv_blocks[b] = true;
                        }
                    }
                    Some(Reconvergence::Exit) => exit_reconv = true,
                    None => {}
                }
            }
        }
        let esc = dot_escape;
        for (b, blk) in cfg.blocks.iter().enumerate() {
            let mut text = format!("B{b} {}\\l", self.block_lines(b, li));
            for k in blk.start..blk.end.min(blk.start + 12) {
                text.push_str(&esc(&self.instr_text(k, src)));
                text.push_str("\\l");
            }
            if blk.end > blk.start + 12 {
                let _ = write!(text, "... ({} more)\\l", blk.end - blk.start - 12);
            }
            let last = blk.end.checked_sub(1).filter(|&k| k >= blk.start);
            let div = last.is_some_and(|k| self.uni.is_divergent(k));
            let uni_cond = last.is_some_and(|k| self.uni.verdict(k).is_some_and(|v| !v.divergent) && self.fa.reconvergence[k].is_some());
            let mut attrs = Vec::new();
            if div {
                attrs.push("color=red, penwidth=2".to_string());
                if let Some(k) = last {
                    if let Some(v) = self.uni.verdict(k) {
                        let _ = write!(text, "DIVERGENT: {}\\l", esc(&v.decided_by.clone().unwrap_or_default()));
                    }
                }
            } else if uni_cond {
                attrs.push("color=blue".to_string());
            }
            if reconv_blocks[b] {
                attrs.push("shape=doubleoctagon, style=filled, fillcolor=lightyellow".to_string());
            }
            if self.is_unreachable(b) {
                attrs.push("style=dashed".to_string());
            }
            let extra = if attrs.is_empty() { String::new() } else { format!(", {}", attrs.join(", ")) };
            let _ = writeln!(o, "{indent}{prefix}B{b} [label=\"{text}\"{extra}];");
        }
        let _ = writeln!(
            o,
            "{indent}{prefix}exit [label=\"virtual exit\", shape=ellipse{}];",
            if exit_reconv { ", style=filled, fillcolor=lightyellow" } else { "" }
        );
        let order = crate::dom::DomOrder::new(&self.dom);
        for (b, blk) in cfg.blocks.iter().enumerate() {
            let red = blk.end.checked_sub(1).is_some_and(|k| k >= blk.start && self.uni.is_divergent(k));
            let style = if red { " [color=red]" } else { "" };
            for &s in &blk.succs {
                let back = order.dominates(s, b);
                let bs = if back { " [style=dashed, constraint=false]" } else { style };
                let _ = writeln!(o, "{indent}{prefix}B{b} -> {prefix}B{s}{bs};");
            }
            if blk.exits {
                let _ = writeln!(o, "{indent}{prefix}B{b} -> {prefix}exit [style=dotted];");
            }
        }
    }
}

/// Escapes a string for a Graphviz record-free label.
fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"").replace('{', "\\{").replace('}', "\\}").replace('<', "\\<").replace('>', "\\>").replace('|', "\\|")
}

/// The opening of one Graphviz digraph for `n` functions, each then a
/// cluster ([`FunctionReport::render_dot_cluster`]); close it with `}`.
pub fn dot_module_header(n: usize) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "digraph \"module\" {{");
    let _ = writeln!(o, "  node [shape=box, fontname=\"monospace\", fontsize=10];");
    let _ = writeln!(o, "  label=\"{n} functions (red: divergent branch; doubleoctagon: reconvergence point)\";");
    o
}

/// Several functions' CFGs as ONE Graphviz digraph, with a cluster
/// (`subgraph cluster_N`) per function and node names prefixed `fN_`, so that
/// `dot -Tsvg` draws one picture.
pub fn render_dot_module(reports: &[FunctionReport<'_, '_>], src: &str, li: &LineIndex) -> String {
    let mut o = dot_module_header(reports.len());
    for (i, r) in reports.iter().enumerate() {
        o.push_str(&r.render_dot_cluster(i, src, li));
    }
    let _ = writeln!(o, "}}");
    o
}

impl FunctionReport<'_, '_> {
    /// The function's CFG as cluster `i` of a module digraph (see [`dot_module_header`]).
    pub fn render_dot_cluster(&self, i: usize, src: &str, li: &LineIndex) -> String {
        let mut o = String::new();
        let _ = writeln!(o, "  subgraph cluster_{i} {{");
        let _ = writeln!(o, "    label=\"{}\";", dot_escape(self.name()));
        self.dot_body(src, li, &mut o, &format!("f{i}_"), "    ");
        let _ = writeln!(o, "  }}");
        o
    }
}

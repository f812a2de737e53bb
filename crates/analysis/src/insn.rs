//! What each instruction reads and writes, for the register-level analyses
//! (liveness, uniformity): the function's register table (declared `.reg`
//! names, parameterised `%r<N>` ranges, `.reg` parameters), each instruction's
//! defined and used registers, its guard, and how its result relates to
//! divergence: always divergent (a source, with the reason), always uniform
//! across the active threads (warp votes), or following its operands.
//!
//! Invariant: a name that is not a declared register is a symbol, a label or a
//! special register; symbols and labels are uniform. Unknown special registers
//! are treated as divergent (the safe side).

use crate::flat::FlatFunction;
use ptxsim_isa::{CvtaSpace, Effect, Insn, Lanes, Opcode};
use ptxsim_syntax::ast::{Expr, FunctionKind, Instruction, OperandKind, StateSpace};
use ptxsim_syntax::hash::NameMap;

/// Register index within one function.
pub type Reg = u32;

/// The pseudo-register that models the carry flag of `.cc` instructions.
pub const CARRY: &str = "%<carry>";

/// The registers of one function, numbered densely: every plain declared
/// register and `.reg` parameter, and of the `%r<N>` ranges only the
/// registers the body names. The table, and everything the analyses size by
/// [`RegTable::len`], grows with the text of the function, never with a
/// declared count (`.reg .b32 %r<4294967295>;` declares four billion
/// registers at the cost of one line).
#[derive(Debug, Default)]
pub struct RegTable<'a> {
    names: NameMap<&'a str, Reg>,
    /// `%r<N>` declarations: prefix -> count.
    ranges: NameMap<&'a str, u64>,
    /// The name of each register, by index.
    plain: Vec<&'a str>,
}

impl<'a> RegTable<'a> {
    pub fn new(f: &FlatFunction<'_, 'a>) -> RegTable<'a> {
        let mut t = RegTable::default();
        t.add(CARRY);
        if let Some(ps) = &f.func.params {
            for p in ps {
                if p.space.value == StateSpace::Reg {
                    t.add(p.name.text);
                }
            }
        }
        if let Some(rs) = &f.func.returns {
            for p in rs {
                if p.space.value == StateSpace::Reg {
                    t.add(p.name.text);
                }
            }
        }
        for (v, _) in &f.vars {
            if v.space.value != StateSpace::Reg {
                continue;
            }
            for d in &v.declarators {
                match d.count {
                    Some(c) => {
                        t.ranges.entry(d.name.text).or_insert(c.value);
                    }
                    None => t.add(d.name.text),
                }
            }
        }
        // The registers of the ranges that the body names, in order of
        // first appearance.
        if !t.ranges.is_empty() {
            for i in &f.instrs {
                if let Some(g) = i.guard {
                    t.add_ranged(g.pred.text);
                }
                for o in &i.operands {
                    t.add_operand(&o.kind);
                }
            }
        }
        t
    }

    fn add(&mut self, name: &'a str) {
        if !self.names.contains_key(name) {
            self.names.insert(name, self.plain.len() as Reg);
            self.plain.push(name);
        }
    }

    /// Numbers `name` if it is a register of a declared range.
    fn add_ranged(&mut self, name: &'a str) {
        if !self.names.contains_key(name) && self.in_range(name) {
            self.add(name);
        }
    }

    fn add_operand(&mut self, k: &OperandKind<'a>) {
        match k {
            OperandKind::Name { name, .. } | OperandKind::Not(name) | OperandKind::Neg { name, .. } => self.add_ranged(name.text),
            OperandKind::PredPair(a, b) => {
                self.add_ranged(a.text);
                self.add_ranged(b.text);
            }
            OperandKind::Vector(v) | OperandKind::List(v) | OperandKind::Bracket(v) => {
                for x in v {
                    self.add_operand(&x.kind);
                }
            }
            OperandKind::VectorPred(v, p) => {
                for x in v {
                    self.add_operand(&x.kind);
                }
                self.add_ranged(p.text);
            }
            OperandKind::Address(a) => {
                if let Some(b) = a.base {
                    self.add_ranged(b.text);
                }
            }
            OperandKind::Expr(e) => self.add_expr(e),
            OperandKind::Sink | OperandKind::Int(_) | OperandKind::Float(_) => {}
        }
    }

    /// Iterative: a deeply nested expression cannot exhaust the stack.
    fn add_expr(&mut self, e: &Expr<'a>) {
        let mut stack = vec![e];
        while let Some(e) = stack.pop() {
            match e {
                Expr::Name(n) | Expr::Generic(n, _) => self.add_ranged(n.text),
                Expr::Unary(_, a, _) | Expr::Mask(_, a, _) => stack.push(a),
                Expr::Binary(_, a, b, _) => {
                    stack.push(a);
                    stack.push(b);
                }
                Expr::Cond(c, a, b, _) => {
                    stack.push(c);
                    stack.push(a);
                    stack.push(b);
                }
                _ => {}
            }
        }
    }

    /// Whether `name` is `prefix` + index of a declared `%prefix<N>` range.
    fn in_range(&self, name: &str) -> bool {
        let digits = name.bytes().rev().take_while(u8::is_ascii_digit).count();
        if digits == 0 || digits == name.len() {
            return false;
        }
        let (prefix, num) = name.split_at(name.len() - digits);
        if num.len() > 1 && num.starts_with('0') {
            return false;
        }
        let Some(&count) = self.ranges.get(prefix) else { return false };
        num.parse::<u64>().is_ok_and(|k| k < count)
    }

    /// How many register indices exist.
    pub fn len(&self) -> usize {
        self.plain.len()
    }
    pub fn is_empty(&self) -> bool {
        self.plain.is_empty()
    }

    /// The register a name denotes: a plain register or parameter, or a
    /// register of a range that the body names (the only ones the analyses
    /// ask about).
    pub fn get(&self, name: &str) -> Option<Reg> {
        self.names.get(name).copied()
    }

    /// The name of a register, for messages.
    pub fn name(&self, r: Reg) -> String {
        match self.plain.get(r as usize) {
            Some(n) => (*n).to_string(),
            None => format!("%<reg{r}>"),
        }
    }
}

/// How an instruction's results relate to divergence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResultKind {
    /// Divergent whatever the operands: a source of divergence.
    Source(String),
    /// The same for every active thread whatever the operands (votes, CTA reductions).
    Uniform,
    /// Divergent exactly when an operand is.
    Data,
}

/// Register effects of one instruction.
#[derive(Clone, Debug)]
pub struct InsnInfo {
    pub defs: Vec<Reg>,
    pub uses: Vec<Reg>,
    pub guard: Option<Reg>,
    pub kind: ResultKind,
}

const DIVERGENT_SREGS: &[&str] = &["%tid", "%laneid", "%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge", "%lanemask_gt"];
const UNIFORM_SREGS: &[&str] = &[
    "%ntid", "%ctaid", "%nctaid", "%warpid", "%nwarpid", "%smid", "%nsmid", "%gridid", "%clock", "%clock64", "%clock_hi",
    "%globaltimer", "%globaltimer_lo", "%globaltimer_hi", "%total_smem_size", "%aggr_smem_size", "%dynamic_smem_size",
    "%is_explicit_cluster", "%clusterid", "%nclusterid", "%cluster_ctaid", "%cluster_nctaid", "%cluster_ctarank",
    "%cluster_nctarank", "%reserved_smem_offset_begin", "%reserved_smem_offset_end", "%reserved_smem_offset_cap",
    "%reserved_smem_offset_0", "%reserved_smem_offset_1", "%current_graph_exec",
];

/// Whether a name is a special register, and if so whether it is divergent.
pub fn special_register(name: &str) -> Option<bool> {
    if DIVERGENT_SREGS.contains(&name) {
        return Some(true);
    }
    if UNIFORM_SREGS.contains(&name) || name.starts_with("%envreg") || name.starts_with("%pm") {
        return Some(false);
    }
    // `%tid.x` written as one name.
    if let Some((base, _)) = name.split_once('.') {
        return special_register(base);
    }
    None
}

impl InsnInfo {
    /// Register effects of `i` in function `f`.
    pub fn new(f: &FlatFunction<'_, '_>, regs: &RegTable<'_>, i: &Instruction<'_>) -> InsnInfo {
        let op = i.opcode.text;
        let guard = i.guard.and_then(|g| regs.get(g.pred.text));
        let mut defs = Vec::new();
        let mut uses = Vec::new();
        let mut sources: Vec<String> = Vec::new();
        let first_is_mem = matches!(i.operands.first().map(|o| &o.kind), Some(OperandKind::Address(_) | OperandKind::Bracket(_)));
        // What the opcode writes is its row of the instruction description;
        // an opcode no row knows (the checker reports it) is taken to write
        // its first operand.
        let row = ptxsim_isa::lookup(op);
        let effect = row.map_or(Effect::Def, |r| r.effect);
        let has_dest = match effect {
            // `bar.red` is the one barrier form that writes its first operand.
            Effect::Barrier => ptxsim_isa::decode(i).is_ok_and(|x| x.is_bar_red()),
            e => e.defines() && !first_is_mem,
        };
        let mut ops = i.operands.iter();
        if effect == Effect::Call {
            // call (rets), f, (args) [, flist]: `.reg` returns are results.
            for o in i.operands.iter() {
                match &o.kind {
                    OperandKind::List(l) if defs.is_empty() && std::ptr::eq(o, &i.operands[0]) => {
                        for x in l {
                            collect(&x.kind, regs, &mut defs, &mut sources);
                        }
                    }
                    k => collect(k, regs, &mut uses, &mut sources),
                }
            }
            let kind = ResultKind::Source("the result of a call".into());
            return InsnInfo { defs, uses, guard, kind };
        }
        // A typed row names each operand's role: its writes are the
        // operands whose role defines.
        if let Some(r) = row.filter(|r| r.names_operands()) {
            for (k, o) in i.operands.iter().enumerate() {
                let defines = r.roles.get(k).is_some_and(|x| x.role.defines());
                match (&o.kind, defines) {
                    (OperandKind::PredPair(a, b), true) => {
                        defs.extend(regs.get(a.text));
                        defs.extend(regs.get(b.text));
                    }
                    (k, true) => collect(k, regs, &mut defs, &mut Vec::new()),
                    (k, false) => collect(k, regs, &mut uses, &mut sources),
                }
            }
            ops = [].iter();
        } else if has_dest {
            if let Some(d) = ops.next() {
                match &d.kind {
                    OperandKind::PredPair(a, b) => {
                        defs.extend(regs.get(a.text));
                        defs.extend(regs.get(b.text));
                    }
                    k => collect(k, regs, &mut defs, &mut Vec::new()),
                }
            }
        }
        for o in ops {
            collect(&o.kind, regs, &mut uses, &mut sources);
        }
        // The carry flag.
        let carry = regs.get(CARRY);
        if let Some(c) = carry {
            let (writes, reads) = ptxsim_isa::carry_flag(i);
            if writes {
                defs.push(c);
            }
            if reads {
                uses.push(c);
            }
        }
        let space = ["global", "shared", "const", "param", "local"].into_iter().find(|s| {
            i.modifiers.iter().any(|m| m.text.strip_prefix('.').and_then(|t| t.strip_prefix(*s)).is_some_and(|rest| rest.is_empty() || rest.starts_with("::")))
        });
        let kind = match (op, row.map_or(Lanes::Data, |r| r.lanes)) {
            (_, Lanes::Atomic) => ResultKind::Source("an atomic operation".into()),
            (_, Lanes::PerLane) => ResultKind::Source(format!("`{op}` (each lane gets its own value)")),
            (_, Lanes::Uniform) => ResultKind::Uniform,
            _ if Opcode::of_insn(i) == Some(Opcode::Cvta)
                && matches!(ptxsim_isa::decode(i), Ok(Insn::Cvta { to: false, space: CvtaSpace::Local, .. })) =>
            {
                ResultKind::Source("a generic address of local memory".into())
            }
            // A load's value depends on where it reads (the row's effect).
            _ if effect == Effect::Load => match space {
                Some("local") => ResultKind::Source("a load from local memory".into()),
                None => ResultKind::Source("a load from generic memory".into()),
                Some("param") => param_load(f, i),
                _ => ResultKind::Data,
            },
            _ if !sources.is_empty() => ResultKind::Source(sources.join(", ")),
            _ => ResultKind::Data,
        };
        // Sources found among operands win over Data.
        let kind = match (&kind, sources.is_empty()) {
            (ResultKind::Data, false) => ResultKind::Source(sources.join(", ")),
            _ => kind,
        };
        InsnInfo { defs, uses, guard, kind }
    }
}

/// `ld.param`: a kernel's own parameter is uniform; a `.func`'s parameter is
/// divergent; any other `.param` (a call's return value) is divergent.
fn param_load(f: &FlatFunction<'_, '_>, i: &Instruction<'_>) -> ResultKind {
    let base = i.operands.iter().find_map(|o| match &o.kind {
        OperandKind::Address(a) => a.base.map(|n| n.text),
        _ => None,
    });
    let is_own_param = |n: &str| f.func.params.as_ref().is_some_and(|ps| ps.iter().any(|p| p.name.text == n));
    match base {
        Some(n) if is_own_param(n) => match f.func.kind {
            FunctionKind::Entry => ResultKind::Data,
            _ => ResultKind::Source(format!("parameter `{n}` of a non-kernel function")),
        },
        Some(n) if f.func.returns.as_ref().is_some_and(|ps| ps.iter().any(|p| p.name.text == n)) => ResultKind::Data,
        Some(n) => ResultKind::Source(format!("`{n}`, the result of a call")),
        None => ResultKind::Source("a parameter load through a register".into()),
    }
}

fn collect(k: &OperandKind<'_>, regs: &RegTable<'_>, out: &mut Vec<Reg>, sources: &mut Vec<String>) {
    match k {
        OperandKind::Name { name, component } => {
            if let Some(r) = regs.get(name.text) {
                out.push(r);
            } else if let Some(true) = special_register(name.text) {
                let full = match component {
                    Some(c) => format!("{}{}", name.text, if c.text.starts_with('.') { c.text.to_string() } else { format!(".{}", c.text) }),
                    None => name.text.to_string(),
                };
                sources.push(format!("`{full}`"));
            } else if name.text.starts_with('%') && special_register(name.text).is_none() && !name.text.starts_with("%r") {
                // An undeclared %-name that is not a known special register:
                // possibly an unknown special register. Registers are declared, so
                // this is one the checker reports; stay on the safe side only for
                // names that look like special registers.
                if looks_special(name.text) {
                    sources.push(format!("`{}` (an unknown special register)", name.text));
                }
            }
        }
        OperandKind::Not(n) | OperandKind::Neg { name: n, .. } => out.extend(regs.get(n.text)),
        OperandKind::PredPair(a, b) => {
            out.extend(regs.get(a.text));
            out.extend(regs.get(b.text));
        }
        OperandKind::Vector(v) | OperandKind::List(v) | OperandKind::Bracket(v) => {
            for x in v {
                collect(&x.kind, regs, out, sources);
            }
        }
        OperandKind::VectorPred(v, p) => {
            for x in v {
                collect(&x.kind, regs, out, sources);
            }
            out.extend(regs.get(p.text));
        }
        OperandKind::Address(a) => {
            if let Some(b) = a.base {
                if let Some(r) = regs.get(b.text) {
                    out.push(r);
                }
            }
        }
        OperandKind::Expr(e) => expr_names(e, regs, out),
        OperandKind::Sink | OperandKind::Int(_) | OperandKind::Float(_) => {}
    }
}

fn looks_special(n: &str) -> bool {
    n.starts_with("%tid") || n.starts_with("%lane")
}

fn expr_names(e: &Expr<'_>, regs: &RegTable<'_>, out: &mut Vec<Reg>) {
    match e {
        Expr::Name(n) | Expr::Generic(n, _) => out.extend(regs.get(n.text)),
        Expr::Unary(_, a, _) | Expr::Mask(_, a, _) => expr_names(a, regs, out),
        Expr::Binary(_, a, b, _) => {
            expr_names(a, regs, out);
            expr_names(b, regs, out);
        }
        Expr::Cond(c, a, b, _) => {
            expr_names(c, regs, out);
            expr_names(a, regs, out);
            expr_names(b, regs, out);
        }
        _ => {}
    }
}

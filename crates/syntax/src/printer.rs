//! The printer: turns an AST back into PTX text that parses to an equal AST.
//!
//! Layout is normalised (one statement per line, four-space indentation), and
//! literals are printed in a canonical form (integers in decimal, float bit
//! patterns in upper-case hex), so printing is a fixed point after one round.

use crate::ast::*;
use crate::span::Span;
use std::fmt::Write;

/// Prints a whole module.
pub fn print_module(m: &Module<'_>) -> String {
    let mut p = Printer { out: String::new(), indent: 0, notes: None };
    for item in &m.items {
        p.item(item);
    }
    p.out
}

/// Prints a module as [`print_module`] does, keeping the comments of `src`
/// (the text it was parsed from): each comment is printed before the item or
/// statement that follows it, at that statement's indentation, and a comment
/// that shared a line with the end of a statement stays at the end of that
/// statement's line.
pub fn print_module_with_comments(m: &Module<'_>, src: &str) -> String {
    let notes = Comments { src, spans: crate::lexer::comments(src), next: 0, index: crate::span::LineIndex::new(src), last_end: None };
    let mut p = Printer { out: String::with_capacity(src.len()), indent: 0, notes: Some(notes) };
    for item in &m.items {
        p.comments_before(item_start(item));
        p.item(item);
        p.ended(item_end(item));
    }
    p.comments_before(None);
    p.out
}

/// The comments still to print, and where the last printed construct ended.
struct Comments<'s> {
    src: &'s str,
    spans: Vec<Span>,
    next: usize,
    index: crate::span::LineIndex,
    last_end: Option<u32>,
}

fn item_start(item: &Item<'_>) -> Option<u32> {
    item_span(item).map(|s| s.start)
}

fn item_end(item: &Item<'_>) -> Option<u32> {
    item_span(item).map(|s| s.end)
}

fn item_span(item: &Item<'_>) -> Option<Span> {
    Some(match item {
        Item::Version(v) => v.span,
        Item::Target(t) => t.span,
        Item::AddressSize(a) => a.span,
        Item::Function(f) => f.span,
        Item::Var(v) => v.span,
        Item::File(f) => f.span,
        Item::Section(s) => s.span,
        Item::Pragma(p) => p.span,
        Item::Alias { span, .. } => *span,
    })
}

fn stmt_span(s: &Statement<'_>) -> Option<Span> {
    Some(match s {
        Statement::Label(n) => n.span,
        Statement::Instr(i) => i.span,
        Statement::Var(v) => v.span,
        Statement::Block(b) => b.span,
        Statement::BranchTargets { span, .. } | Statement::CallTargets { span, .. } | Statement::CallPrototype { span, .. } => *span,
        Statement::Pragma(p) => p.span,
        Statement::Loc(l) => l.span,
    })
}

/// Prints one instruction without a trailing newline (as in `@p bra $L1;`).
pub fn print_instruction(i: &Instruction<'_>) -> String {
    let mut p = Printer { out: String::new(), indent: 0, notes: None };
    p.instr(i);
    p.out
}

/// Prints an operand.
pub fn print_operand(o: &Operand<'_>) -> String {
    let mut p = Printer { out: String::new(), indent: 0, notes: None };
    p.operand(o);
    p.out
}

struct Printer<'s> {
    out: String,
    indent: usize,
    notes: Option<Comments<'s>>,
}

impl Printer<'_> {
    /// Prints the comments that start before `at` (all that are left for `None`).
    fn comments_before(&mut self, at: Option<u32>) {
        let Some(mut n) = self.notes.take() else { return };
        while let Some(&c) = n.spans.get(n.next) {
            if at.is_some_and(|a| c.start >= a) {
                break;
            }
            n.next += 1;
            let text = n.src.get(c.range()).unwrap_or("").trim_end();
            let trailing = n.last_end.is_some_and(|e| e <= c.start && n.index.line(e.saturating_sub(1)) == n.index.line(c.start)) && self.out.ends_with('\n');
            if trailing {
                self.out.pop();
                self.out.push(' ');
                self.out.push_str(text);
                self.out.push('\n');
            } else {
                if !self.out.is_empty() && !self.out.ends_with('\n') {
                    self.out.push('\n');
                }
                self.line_start();
                self.out.push_str(text);
                self.out.push('\n');
            }
        }
        self.notes = Some(n);
    }

    /// Records where the construct just printed ended in the source.
    fn ended(&mut self, end: Option<u32>) {
        if let (Some(n), Some(e)) = (self.notes.as_mut(), end) {
            n.last_end = Some(e);
        }
    }

    fn line_start(&mut self) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
    }

    fn item(&mut self, item: &Item<'_>) {
        match item {
            Item::Version(v) => {
                let _ = writeln!(self.out, ".version {}.{}", v.major, v.minor);
            }
            Item::Target(t) => {
                self.out.push_str(".target ");
                self.names(&t.targets);
                self.out.push('\n');
            }
            Item::AddressSize(a) => {
                let _ = writeln!(self.out, ".address_size {}", a.value);
            }
            Item::File(f) => {
                let _ = write!(self.out, ".file {} {}", f.index, f.path);
                if let Some(t) = f.timestamp {
                    let _ = write!(self.out, ", {t}");
                    if let Some(s) = f.size {
                        let _ = write!(self.out, ", {s}");
                    }
                }
                self.out.push('\n');
            }
            Item::Section(s) => {
                let _ = writeln!(self.out, ".section {}\n{{", s.name.text);
                for e in &s.entries {
                    match e {
                        SectionEntry::Label(n) => {
                            let _ = writeln!(self.out, "{}:", n.text);
                        }
                        SectionEntry::Data { ty, values, .. } => {
                            let _ = write!(self.out, "{} ", ty.text);
                            for (i, v) in values.iter().enumerate() {
                                if i > 0 {
                                    self.out.push_str(", ");
                                }
                                self.expr(v, 0);
                            }
                            self.out.push('\n');
                        }
                    }
                }
                self.out.push_str("}\n");
            }
            Item::Pragma(p) => {
                self.pragma(p);
                self.out.push('\n');
            }
            Item::Alias { alias, aliasee, .. } => {
                let _ = writeln!(self.out, ".alias {}, {};", alias.text, aliasee.text);
            }
            Item::Var(v) => {
                self.var(v);
                self.out.push('\n');
            }
            Item::Function(f) => self.function(f),
        }
    }

    fn names(&mut self, names: &[Name<'_>]) {
        for (i, n) in names.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.out.push_str(n.text);
        }
    }

    fn pragma(&mut self, p: &Pragma<'_>) {
        self.out.push_str(".pragma ");
        self.out.push_str(&p.strings.join(", "));
        self.out.push(';');
    }

    fn function(&mut self, f: &Function<'_>) {
        self.out.push('\n');
        if let Some(l) = f.linkage {
            self.out.push_str(l.value.as_str());
            self.out.push(' ');
        }
        self.out.push_str(match f.kind {
            FunctionKind::Entry => ".entry ",
            FunctionKind::Func => ".func ",
        });
        if let Some(r) = &f.returns {
            self.params(r);
            self.out.push(' ');
        }
        self.out.push_str(f.name.text);
        if let Some(ps) = &f.params {
            self.params(ps);
        }
        for d in &f.directives {
            self.out.push('\n');
            match d {
                FuncDirective::Perf { name, values, .. } => {
                    self.out.push_str(name.text);
                    for (i, v) in values.iter().enumerate() {
                        self.out.push_str(if i == 0 { " " } else { ", " });
                        let _ = write!(self.out, "{}", v.value);
                    }
                }
                FuncDirective::Pragma(p) => self.pragma(p),
            }
        }
        match &f.body {
            Some(b) => {
                self.out.push('\n');
                self.block(b);
                self.out.push('\n');
            }
            None => self.out.push_str(";\n"),
        }
    }

    fn params(&mut self, ps: &[Param<'_>]) {
        self.out.push('(');
        for (i, p) in ps.iter().enumerate() {
            self.out.push_str(if i == 0 { "\n    " } else { ",\n    " });
            self.param(p);
        }
        if !ps.is_empty() {
            self.out.push('\n');
        }
        self.out.push(')');
    }

    fn param(&mut self, p: &Param<'_>) {
        self.out.push_str(p.space.value.as_str());
        if let Some(a) = p.align {
            let _ = write!(self.out, " .align {}", a.value);
        }
        if let Some(v) = p.vector {
            let _ = write!(self.out, " .v{}", v.value);
        }
        self.out.push(' ');
        self.out.push_str(p.ty.value.as_str());
        if let Some(ptr) = &p.ptr {
            self.out.push_str(" .ptr");
            if let Some(s) = ptr.space {
                self.out.push(' ');
                self.out.push_str(s.as_str());
            }
            if let Some(a) = ptr.align {
                let _ = write!(self.out, " .align {a}");
            }
        }
        self.out.push(' ');
        self.out.push_str(p.name.text);
        self.dims(&p.dims);
    }

    fn dims(&mut self, dims: &[Option<Spanned<u64>>]) {
        for d in dims {
            match d {
                Some(n) => {
                    let _ = write!(self.out, "[{}]", n.value);
                }
                None => self.out.push_str("[]"),
            }
        }
    }

    fn var(&mut self, v: &VarDecl<'_>) {
        if let Some(l) = v.linkage {
            self.out.push_str(l.value.as_str());
            self.out.push(' ');
        }
        self.out.push_str(v.space.value.as_str());
        if let Some((first, rest)) = v.attributes.split_first() {
            let _ = write!(self.out, " {}(", first.text);
            for (i, a) in rest.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.out.push_str(a.text);
            }
            self.out.push(')');
        }
        if let Some(a) = v.align {
            let _ = write!(self.out, " .align {}", a.value);
        }
        if let Some(n) = v.vector {
            let _ = write!(self.out, " .v{}", n.value);
        }
        self.out.push(' ');
        self.out.push_str(v.ty.value.as_str());
        for (i, d) in v.declarators.iter().enumerate() {
            self.out.push_str(if i == 0 { " " } else { ", " });
            self.out.push_str(d.name.text);
            if let Some(c) = d.count {
                let _ = write!(self.out, "<{}>", c.value);
            }
            self.dims(&d.dims);
            if let Some(init) = &d.init {
                self.out.push_str(" = ");
                self.init(init);
            }
        }
        self.out.push(';');
    }

    fn init(&mut self, i: &Init<'_>) {
        match i {
            Init::Expr(e) => self.expr(e, 0),
            Init::List(items, _) => {
                self.out.push('{');
                for (k, it) in items.iter().enumerate() {
                    if k > 0 {
                        self.out.push_str(", ");
                    }
                    self.init(it);
                }
                self.out.push('}');
            }
        }
    }

    fn block(&mut self, b: &Block<'_>) {
        self.line_start();
        self.out.push_str("{\n");
        self.indent += 1;
        for s in &b.stmts {
            let sp = stmt_span(s);
            self.comments_before(sp.map(|x| x.start));
            self.statement(s);
            self.ended(sp.map(|x| x.end));
        }
        // Comments before the closing brace belong inside the block.
        self.comments_before(Some(b.span.end.saturating_sub(1)));
        self.indent -= 1;
        self.line_start();
        self.out.push('}');
    }

    fn statement(&mut self, s: &Statement<'_>) {
        match s {
            Statement::Label(n) => {
                let _ = writeln!(self.out, "{}:", n.text);
                return;
            }
            Statement::Block(b) => {
                self.block(b);
                self.out.push('\n');
                return;
            }
            _ => {}
        }
        self.line_start();
        match s {
            Statement::Label(_) | Statement::Block(_) => {}
            Statement::Instr(i) => self.instr(i),
            Statement::Var(v) => self.var(v),
            Statement::BranchTargets { label, targets, .. } => {
                let _ = write!(self.out, "{}: .branchtargets ", label.text);
                self.names(targets);
                self.out.push(';');
            }
            Statement::CallTargets { label, targets, .. } => {
                let _ = write!(self.out, "{}: .calltargets ", label.text);
                self.names(targets);
                self.out.push(';');
            }
            Statement::CallPrototype { label, returns, params, noreturn, .. } => {
                let _ = write!(self.out, "{}: .callprototype ", label.text);
                if let Some(r) = returns {
                    self.params(r);
                    self.out.push(' ');
                }
                self.out.push('_');
                self.out.push(' ');
                self.params(params);
                if *noreturn {
                    self.out.push_str(" .noreturn");
                }
                self.out.push(';');
            }
            Statement::Pragma(p) => self.pragma(p),
            Statement::Loc(l) => {
                let _ = write!(self.out, ".loc {} {} {}", l.file, l.line, l.column);
                for (k, vals) in &l.attrs {
                    let _ = write!(self.out, ", {}", k.text);
                    for v in vals {
                        self.out.push(' ');
                        self.expr(v, 7);
                    }
                }
            }
        }
        self.out.push('\n');
    }

    fn instr(&mut self, i: &Instruction<'_>) {
        if let Some(g) = &i.guard {
            self.out.push('@');
            if g.negated {
                self.out.push('!');
            }
            self.out.push_str(g.pred.text);
            self.out.push(' ');
        }
        self.out.push_str(i.opcode.text);
        for m in &i.modifiers {
            self.out.push_str(m.text);
        }
        for (k, o) in i.operands.iter().enumerate() {
            self.out.push_str(if k == 0 { " " } else { ", " });
            self.operand(o);
        }
        self.out.push(';');
    }

    fn operand(&mut self, o: &Operand<'_>) {
        match &o.kind {
            OperandKind::Name { name, component } => {
                self.out.push_str(name.text);
                if let Some(c) = component {
                    self.out.push_str(c.text);
                }
            }
            OperandKind::Not(n) => {
                self.out.push('!');
                self.out.push_str(n.text);
            }
            OperandKind::Neg { name, component } => {
                self.out.push('-');
                self.out.push_str(name.text);
                if let Some(c) = component {
                    self.out.push_str(c.text);
                }
            }
            OperandKind::PredPair(p, q) => {
                let _ = write!(self.out, "{}|{}", p.text, q.text);
            }
            OperandKind::Sink => self.out.push('_'),
            OperandKind::Int(l) => self.int(*l),
            OperandKind::Float(f) => self.float(*f),
            OperandKind::Expr(e) => self.expr(e, 0),
            OperandKind::Vector(v) => self.list('{', v, '}'),
            OperandKind::VectorPred(v, p) => {
                self.list('{', v, '}');
                self.out.push('|');
                self.out.push_str(p.text);
            }
            OperandKind::List(v) => self.list('(', v, ')'),
            OperandKind::Bracket(v) => self.list('[', v, ']'),
            OperandKind::Address(a) => {
                self.out.push('[');
                match a.base {
                    Some(b) => {
                        self.out.push_str(b.text);
                        if a.offset > 0 {
                            let _ = write!(self.out, "+{}", a.offset);
                        } else if a.offset < 0 {
                            // ptxas takes `+` then a negative offset, not `-`.
                            let _ = write!(self.out, "+{}", a.offset);
                        }
                    }
                    None => {
                        let _ = write!(self.out, "{}", a.offset);
                    }
                }
                self.out.push(']');
            }
        }
    }

    fn list(&mut self, open: char, v: &[Operand<'_>], close: char) {
        self.out.push(open);
        for (k, o) in v.iter().enumerate() {
            if k > 0 {
                self.out.push_str(", ");
            }
            self.operand(o);
        }
        self.out.push(close);
    }

    fn int(&mut self, l: IntLit) {
        if l.unsigned {
            let _ = write!(self.out, "{}U", l.value);
        } else {
            let _ = write!(self.out, "{}", l.value as i64);
        }
    }

    fn float(&mut self, f: FloatLit) {
        let _ = match f {
            FloatLit::F32Bits(b) => write!(self.out, "0f{b:08X}"),
            FloatLit::F64Bits(b) => write!(self.out, "0d{b:016X}"),
            FloatLit::Decimal(d) => {
                // `{:?}` prints the shortest text that reads back to the same bits,
                // always with a `.` or an exponent.
                write!(self.out, "{d:?}")
            }
        };
    }

    /// Prints an expression; `min_prec` is the binding strength of the context,
    /// so parentheses appear only where the tree needs them.
    fn expr(&mut self, e: &Expr<'_>, min_prec: u8) {
        match e {
            Expr::Int(l, _) => self.int(*l),
            Expr::Float(f, _) => self.float(*f),
            Expr::Name(n) => self.out.push_str(n.text),
            Expr::Generic(n, _) => {
                let _ = write!(self.out, "generic({})", n.text);
            }
            Expr::Mask(m, x, _) => {
                let _ = write!(self.out, "{m:#X}(");
                self.expr(x, 0);
                self.out.push(')');
            }
            Expr::Unary(op, x, _) => {
                self.out.push_str(op.as_str());
                self.expr(x, UNARY_PREC);
            }
            Expr::Binary(op, a, b, _) => {
                let prec = op.prec();
                let paren = prec < min_prec;
                if paren {
                    self.out.push('(');
                }
                self.expr(a, prec);
                // `5%3` would read back as `5` and the register `%3`.
                if *op == BinOp::Rem {
                    self.out.push_str(" % ");
                } else {
                    self.out.push_str(op.as_str());
                }
                self.expr(b, prec + 1);
                if paren {
                    self.out.push(')');
                }
            }
            Expr::Cond(c, a, b, _) => {
                let paren = min_prec > 0;
                if paren {
                    self.out.push('(');
                }
                self.expr(c, 1);
                self.out.push_str(" ? ");
                self.expr(a, 0);
                self.out.push_str(" : ");
                self.expr(b, 0);
                if paren {
                    self.out.push(')');
                }
            }
        }
    }
}

/// Binds tighter than every binary operator (see [`BinOp::prec`]).
const UNARY_PREC: u8 = 11;

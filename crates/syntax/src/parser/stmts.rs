//! Statements inside function bodies: labels, instructions with guards,
//! modifiers and operands, nested blocks, local declarations, `.branchtargets`,
//! `.calltargets`, `.callprototype`, `.loc` and `.pragma`; and constant expressions.

use super::expr::eval_const;
use super::{parse_int, PResult, Parser, Recover};
use crate::ast::*;
use crate::diag::Diagnostic;
use crate::lexer::Tok;
use crate::span::Span;
use smallvec::SmallVec;

pub(crate) const COMPONENTS: &[&str] = &[".x", ".y", ".z", ".w", ".r", ".g", ".b", ".a"];

/// Whether `text` (a `.`-token right after an operand's name) is a
/// component of it: a vector component, or a SIMD video instruction's
/// halfword or byte selector or mask (`%r1.h10`, `%r2.b7654`, `%r3.h0`).
pub(crate) fn is_component(text: &str) -> bool {
    let digits = |rest: &str, max: u8, n: usize| !rest.is_empty() && rest.len() <= n && rest.bytes().all(|c| (b'0'..=max).contains(&c));
    COMPONENTS.contains(&text)
        || text.strip_prefix(".h").is_some_and(|r| digits(r, b'3', 2))
        || text.strip_prefix(".b").is_some_and(|r| digits(r, b'7', 4))
}

impl<'a> Parser<'a> {
    /// `{ statements }`
    pub(crate) fn block(&mut self) -> PResult<Block<'a>> {
        let start = self.expect(Tok::LBrace)?;
        if self.enter().is_err() {
            // Too deep to parse: skip the whole group so that its closing
            // braces do not show up as unbalanced ones.
            self.skip_braced_group();
            return Err(Recover);
        }
        // Statements collect on a stack shared by all blocks and move into an
        // exactly sized vector at the `}`: no growth copies, no spare capacity.
        let base = self.scratch.len();
        loop {
            match self.tok {
                Tok::RBrace => break,
                Tok::Eof => {
                    let d = Diagnostic::error(
                        "syntax/unclosed-block",
                        Span { start: self.span.start, end: self.span.end },
                        "the file ends inside a block",
                    )
                    .with_label("expected `}` before the end of the file")
                    .with_secondary(start, "this `{` is never closed");
                    self.error(d);
                    self.leave();
                    self.scratch.truncate(base);
                    return Err(Recover);
                }
                _ => {}
            }
            let before = self.span.start;
            // Instructions, the common case, go straight onto the stack rather
            // than through `statement`'s `Result<Option<Statement>>`: each
            // move of a statement copies 328 bytes.
            let is_instr = self.tok == Tok::At || (self.tok == Tok::Ident && self.next != Tok::Colon);
            let r = if is_instr {
                self.instruction_onto_stack()
            } else {
                match self.statement() {
                    Ok(Some(s)) => {
                        self.scratch.push(s);
                        Ok(())
                    }
                    Ok(None) => Ok(()),
                    Err(e) => Err(e),
                }
            };
            if r.is_err() {
                self.recover_statement();
            }
            if self.span.start == before && !self.at(Tok::RBrace) && !self.at(Tok::Eof) {
                self.bump();
            }
        }
        self.leave();
        let stmts = if base == 0 && self.reuse_stack {
            std::mem::take(&mut self.scratch)
        } else if base == 0 {
            // An outermost block (a function body) takes the stack itself,
            // trimmed in place, rather than a copy of it; the next body starts
            // on a fresh stack as large as this one was.
            let fresh = Vec::with_capacity(self.scratch.len());
            let mut stmts = std::mem::replace(&mut self.scratch, fresh);
            stmts.shrink_to_fit();
            stmts
        } else {
            // One copy into an exactly sized vector.
            self.scratch.split_off(base)
        };
        self.expect(Tok::RBrace)?;
        Ok(Block { stmts, span: self.since(start) })
    }

    fn statement(&mut self) -> PResult<Option<Statement<'a>>> {
        match self.tok {
            Tok::LBrace => Ok(Some(Statement::Block(self.block()?))),
            Tok::Semi => {
                // ptxas rejects a `;` on its own ("syntax error"), and the AST
                // has no node for it, so the checker could not tell otherwise.
                let s = self.bump();
                let d = Diagnostic::error("syntax/empty-statement", s, "empty statement")
                    .with_label("this `;` ends no statement")
                    .with_note("PTX does not accept a `;` on its own; remove it");
                self.error(d);
                Ok(None)
            }
            Tok::At => Ok(Some(Statement::Instr(self.instruction()?))),
            Tok::Ident if self.next == Tok::Colon => {
                let label = self.name("a label")?;
                self.bump();
                if self.at_dot(".branchtargets") || self.at_dot(".calltargets") {
                    let is_branch = self.at_dot(".branchtargets");
                    self.bump();
                    let mut targets = vec![self.name("a label")?];
                    while self.eat(Tok::Comma).is_some() {
                        targets.push(self.name("a label")?);
                    }
                    self.expect_semi()?;
                    let span = self.since(label.span);
                    return Ok(Some(if is_branch {
                        Statement::BranchTargets { label, targets, span }
                    } else {
                        Statement::CallTargets { label, targets, span }
                    }));
                }
                if self.at_dot(".callprototype") {
                    self.bump();
                    let returns = if self.at(Tok::LParen) { Some(self.param_list()?) } else { None };
                    let us = self.name("`_`")?;
                    if us.text != "_" {
                        self.error(Diagnostic::error(
                            "syntax/callprototype-name",
                            us.span,
                            "a `.callprototype` is written with `_` in place of the function name",
                        ));
                        return Err(Recover);
                    }
                    let params = if self.at(Tok::LParen) { self.param_list()? } else { Vec::new() };
                    let noreturn = self.eat_dot(".noreturn").is_some();
                    self.expect_semi()?;
                    let span = self.since(label.span);
                    return Ok(Some(Statement::CallPrototype { label, returns, params, noreturn, span }));
                }
                Ok(Some(Statement::Label(label)))
            }
            Tok::Ident => Ok(Some(Statement::Instr(self.instruction()?))),
            Tok::Dot => {
                let start = self.span;
                match self.cur_text() {
                    ".pragma" => Ok(Some(Statement::Pragma(self.pragma()?))),
                    ".loc" => Ok(Some(Statement::Loc(self.loc()?))),
                    ".branchtargets" | ".calltargets" | ".callprototype" => {
                        let text = self.cur_text();
                        let d = Diagnostic::error(
                            "syntax/unlabelled-directive",
                            self.span,
                            format!("`{text}` must be labelled, as in `L: {text} ...;`"),
                        );
                        self.error(d);
                        Err(Recover)
                    }
                    _ => {
                        let linkage = self.linkage();
                        if self.tok == Tok::Dot && StateSpace::from_str(self.cur_text()).is_some() {
                            return Ok(Some(Statement::Var(self.var_decl(start, linkage)?)));
                        }
                        self.unknown_directive("inside a function body")
                    }
                }
            }
            _ => {
                if let Some(d) = self.lexical_error() {
                    self.error(d);
                    return Err(Recover);
                }
                let found = self.found();
                let d = Diagnostic::error(
                    "syntax/expected-statement",
                    self.span,
                    format!("expected an instruction, a label, a declaration or `}}`, found {found}"),
                )
                .with_label("expected a statement");
                self.error(d);
                Err(Recover)
            }
        }
    }

    fn loc(&mut self) -> PResult<Loc<'a>> {
        let start = self.bump();
        let file = self.uint32("a file index")?.value;
        let line = self.uint32("a line number")?.value;
        let column = self.uint32("a column number")?.value;
        let mut attrs = Vec::new();
        while self.eat(Tok::Comma).is_some() {
            let key = self.name("a `.loc` attribute such as `function_name` or `inlined_at`")?;
            let mut vals = Vec::new();
            // `.loc` is not terminated by `;`, so a line break ends it: the
            // next line starts an instruction or directive, which must not be
            // read as a value (also when the attribute has none, as in
            // `.loc 1 2 3, k` + newline + `mov.u32 ...`).
            loop {
                let ends = matches!(self.tok, Tok::Comma | Tok::Semi | Tok::Eof | Tok::RBrace | Tok::Dot | Tok::At)
                    || (self.tok == Tok::Ident && self.next == Tok::Colon)
                    || self.line_break_before_current();
                if ends {
                    break;
                }
                vals.push(self.expr()?);
            }
            attrs.push((key, vals));
        }
        self.eat(Tok::Semi);
        Ok(Loc { file, line, column, attrs, span: self.since(start) })
    }

    /// Parses an instruction (not pushed anywhere: the statement stack is
    /// left as it was).
    pub(crate) fn instruction(&mut self) -> PResult<Instruction<'a>> {
        self.instruction_onto_stack()?;
        match self.scratch.pop() {
            Some(Statement::Instr(i)) => Ok(i),
            _ => unreachable!("instruction_onto_stack pushes an instruction"),
        }
    }

    /// Parses an instruction straight into a slot on the statement stack:
    /// building it apart and pushing it would copy its 300-odd bytes two or
    /// three times. On an error the slot is removed again.
    #[inline(always)]
    fn instruction_onto_stack(&mut self) -> PResult<()> {
        let start = self.span;
        let guard = if let Some(at) = self.eat(Tok::At) {
            let negated = self.eat(Tok::Bang).is_some();
            let pred = self.name("a predicate register after `@`")?;
            Some(Guard { negated, pred, span: self.since(at) })
        } else {
            None
        };
        if self.tok == Tok::LBrace {
            let d = Diagnostic::error(
                "syntax/guarded-block",
                self.span,
                "a guard predicate on a `{}` block is not supported; guard each instruction instead",
            );
            self.error(d);
            return Err(Recover);
        }
        // Opcodes are words (`add`, `bra`); `%r1` or `$L1` here means the
        // instruction is missing, e.g. `@ bra $L1;` read as guard `@bra`.
        if self.tok == Tok::Ident && !self.cur_text().starts_with(|c: char| c.is_ascii_alphabetic()) {
            let mut d = Diagnostic::error(
                "syntax/expected-instruction",
                self.span,
                format!("expected an instruction, found `{}`", self.cur_text()),
            )
            .with_label("an instruction name starts with a letter");
            if let Some(g) = guard {
                d = d.with_secondary(g.span, format!("`{}` was read as the guard predicate", g.pred.text));
            }
            self.error(d);
            return Err(Recover);
        }
        let opcode = self.name("an instruction")?;
        self.in_call = opcode.text == "call";
        let at = self.scratch.len();
        self.scratch.resize_with(at + 1, || {
            Statement::Instr(Instruction {
                guard,
                opcode,
                modifiers: SmallVec::new(),
                operands: SmallVec::new(),
                span: start,
            })
        });
        let r = self.instruction_rest(at, start);
        if r.is_err() {
            self.scratch.truncate(at);
        }
        r
    }

    /// The instruction in slot `at` of the statement stack.
    #[inline(always)]
    fn stacked(&mut self, at: usize) -> &mut Instruction<'a> {
        match self.scratch.get_mut(at) {
            Some(Statement::Instr(i)) => i,
            _ => unreachable!("slot {at} holds the instruction being parsed"),
        }
    }

    /// Modifiers, operands and `;` of the instruction in slot `at`.
    #[inline(always)]
    fn instruction_rest(&mut self, at: usize, start: Span) -> PResult<()> {
        while self.tok == Tok::Dot {
            let s = self.bump();
            let m = Name { text: self.text(s), span: s };
            self.stacked(at).modifiers.push(m);
        }
        // An instruction without operands (`ret`, `exit`) whose `;` is missing
        // must not take the next line's label or instruction, or the `}`
        // closing the block, as an operand: `expect_semi` reports the `;`.
        if !self.at(Tok::Semi) && !self.at(Tok::RBrace) && !self.starts_statement_on_new_line(false) {
            loop {
                // The common operand, a lone name (`%r1` in `%r1,` or `%r1;`),
                // goes straight into place; it is what `operand` makes of it.
                if self.tok == Tok::Ident
                    && matches!(self.next, Tok::Comma | Tok::Semi)
                    && self.depth < super::MAX_DEPTH
                {
                    let span = self.bump();
                    let text = self.text(span);
                    let kind = if text == "_" {
                        OperandKind::Sink
                    } else if text == WARP_SZ {
                        OperandKind::Int(IntLit { value: 32, unsigned: false })
                    } else {
                        OperandKind::Name { name: Name { text, span }, component: None }
                    };
                    self.stacked(at).operands.push(Operand { kind, span });
                    if self.eat(Tok::Comma).is_none() {
                        break;
                    }
                    continue;
                }
                // Next most common: an integer literal, and an address.
                if self.tok == Tok::Int
                    && matches!(self.next, Tok::Comma | Tok::Semi)
                    && self.depth < super::MAX_DEPTH
                {
                    if let Some(l) = parse_int(self.cur_text()) {
                        let span = self.bump();
                        self.stacked(at).operands.push(Operand { kind: OperandKind::Int(l), span });
                        if self.eat(Tok::Comma).is_none() {
                            break;
                        }
                        continue;
                    }
                }
                let op = if self.tok == Tok::LBracket && self.depth < super::MAX_DEPTH {
                    let open = self.bump();
                    if self.tok == Tok::Ident && self.next == Tok::RBracket {
                        let span = self.bump();
                        let base = Name { text: self.text(span), span };
                        self.bump();
                        let kind = OperandKind::Address(Address { base: Some(base), offset: 0 });
                        Operand { kind, span: self.since(open) }
                    } else {
                        self.depth += 1;
                        let r = self.address_after(open);
                        self.leave();
                        Operand { kind: r?, span: self.since(open) }
                    }
                } else {
                    self.operand()?
                };
                self.stacked(at).operands.push(op);
                if self.eat(Tok::Comma).is_none() {
                    break;
                }
            }
        }
        self.expect_semi()?;
        let span = self.since(start);
        self.stacked(at).span = span;
        Ok(())
    }

    /// One operand. Operands nest (`[t, {a, b}]`, `(a, (b))`), so each level
    /// counts against [`MAX_DEPTH`](super::MAX_DEPTH).
    pub(crate) fn operand(&mut self) -> PResult<Operand<'a>> {
        self.enter()?;
        let r = self.operand_inner();
        self.leave();
        r
    }

    fn operand_inner(&mut self) -> PResult<Operand<'a>> {
        let start = self.span;
        let kind = match self.tok {
            Tok::Bang if self.next == Tok::Ident => {
                self.bump();
                OperandKind::Not(self.name("a predicate register after `!`")?)
            }
            Tok::Minus if self.next == Tok::Ident && self.next_span.start == self.span.end && self.text(self.next_span).starts_with('%') => {
                self.bump();
                let name = self.name("a register after `-`")?;
                let component = if self.tok == Tok::Dot && self.span.start == name.span.end && is_component(self.cur_text()) {
                    let s = self.bump();
                    Some(Name { text: self.text(s), span: s })
                } else {
                    None
                };
                OperandKind::Neg { name, component }
            }
            Tok::Ident => {
                let name = self.name("an operand")?;
                if self.at(Tok::Pipe) {
                    self.bump();
                    let q = self.name("a second predicate after `|`")?;
                    OperandKind::PredPair(name, q)
                } else if name.text == "_" {
                    OperandKind::Sink
                } else if name.text == WARP_SZ {
                    literal_operand(self.expr_tail(warp_sz(name.span), 0)?)
                } else if name.text == "generic" && self.at(Tok::LParen) {
                    let e = self.expr_from_name(name)?;
                    OperandKind::Expr(self.expr_tail(e, 0)?)
                } else {
                    let component = if self.tok == Tok::Dot
                        && self.span.start == name.span.end
                        && is_component(self.cur_text())
                    {
                        let s = self.bump();
                        Some(Name { text: self.text(s), span: s })
                    } else {
                        None
                    };
                    if component.is_none() && (self.peek_binop().is_some() || self.at(Tok::Question)) {
                        OperandKind::Expr(self.expr_tail(Expr::Name(name), 0)?)
                    } else {
                        OperandKind::Name { name, component }
                    }
                }
            }
            Tok::LBrace => {
                let open = self.bump();
                let mut elems = Vec::new();
                loop {
                    elems.push(self.operand()?);
                    if self.eat(Tok::Comma).is_none() {
                        break;
                    }
                }
                self.expect_close(Tok::RBrace, open, "vector operand")?;
                if self.at(Tok::Pipe) {
                    self.bump();
                    OperandKind::VectorPred(elems, self.name("a predicate after `|`")?)
                } else {
                    OperandKind::Vector(elems)
                }
            }
            Tok::LParen if self.in_call || !self.paren_is_expr() => {
                let open = self.bump();
                let mut elems = Vec::new();
                if !self.at(Tok::RParen) {
                    loop {
                        elems.push(self.operand()?);
                        if self.eat(Tok::Comma).is_none() {
                            break;
                        }
                    }
                }
                self.expect_close(Tok::RParen, open, "operand list")?;
                OperandKind::List(elems)
            }
            Tok::LBracket => self.address()?,
            Tok::Int | Tok::Float | Tok::HexF32 | Tok::HexF64 | Tok::Minus | Tok::Plus | Tok::Tilde | Tok::Bang | Tok::LParen => {
                let e = self.expr()?;
                literal_operand(e)
            }
            _ => return self.unexpected("an operand"),
        };
        Ok(Operand { kind, span: self.since(start) })
    }

    /// Whether a `(` in operand position opens a constant expression rather than
    /// an operand list. In a `call`, parentheses always hold argument or return
    /// lists (`(1, %r2)`); elsewhere a `(` followed by a literal or a unary
    /// operator, a cast (`(.u64)`) or another `(` starts an expression such as
    /// `(1+2)*3`.
    fn paren_is_expr(&self) -> bool {
        matches!(
            self.next,
            Tok::Int | Tok::Float | Tok::HexF32 | Tok::HexF64 | Tok::Minus | Tok::Plus | Tok::Tilde | Tok::Bang | Tok::Dot | Tok::LParen
        )
    }

    fn address(&mut self) -> PResult<OperandKind<'a>> {
        let open = self.bump();
        self.address_after(open)
    }

    /// An address or bracketed list whose `[` (at `open`) was just consumed.
    fn address_after(&mut self, open: Span) -> PResult<OperandKind<'a>> {
        if self.tok == Tok::Ident {
            // `[name]`, `[name+off]`, or a bracket list `[tex, sampler, {..}]`.
            let base = self.name("an address base")?;
            let mut offset: i64 = 0;
            match self.tok {
                Tok::RBracket => {}
                Tok::Plus => {
                    self.bump();
                    let e = self.expr()?;
                    offset = self.const_value(&e)?;
                }
                Tok::Minus => {
                    // ptxas: "Parsing error near '-'": the offset follows `+`.
                    let d = Diagnostic::error("syntax/bad-address", self.span, "an address offset follows `+`: write `[x+-4]`, not `[x-4]`")
                        .with_label("`-` here")
                        .with_secondary(open, "the address starts here");
                    self.error(d);
                    return Err(Recover);
                }
                Tok::Comma => {
                    let mut elems =
                        vec![Operand { span: base.span, kind: OperandKind::Name { name: base, component: None } }];
                    while self.eat(Tok::Comma).is_some() {
                        elems.push(self.operand()?);
                    }
                    self.expect_close(Tok::RBracket, open, "bracketed operand list")?;
                    return Ok(OperandKind::Bracket(elems));
                }
                _ => {}
            }
            if self.eat(Tok::RBracket).is_none() {
                let d = Diagnostic::error(
                    "syntax/bad-address",
                    self.span,
                    format!("expected `]` to close the address, found {}", self.found()),
                )
                .with_label(if offset == 0 && self.prev_end == base.span.end {
                    "expected `]` or `+` here"
                } else {
                    "expected `]` here"
                })
                .with_secondary(open, "the address starts here");
                self.error(d);
                return Err(Recover);
            }
            return Ok(OperandKind::Address(Address { base: Some(base), offset }));
        }
        if self.tok == Tok::LBrace {
            let mut elems = Vec::new();
            loop {
                elems.push(self.operand()?);
                if self.eat(Tok::Comma).is_none() {
                    break;
                }
            }
            self.expect_close(Tok::RBracket, open, "bracketed operand list")?;
            return Ok(OperandKind::Bracket(elems));
        }
        let e = self.expr()?;
        let offset = self.const_value(&e)?;
        self.expect_close(Tok::RBracket, open, "address")?;
        Ok(OperandKind::Address(Address { base: None, offset }))
    }

    /// Folds a constant expression to 64 bits, or reports that it is not constant.
    pub(crate) fn const_value(&mut self, e: &Expr<'a>) -> PResult<i64> {
        match eval_const(e) {
            Some(v) => Ok(v),
            None => {
                self.error(Diagnostic::error(
                    "syntax/not-constant",
                    e.span(),
                    "an address offset must be an integer constant",
                )
                .with_label("not a constant")
                .with_note("addresses are `[reg]`, `[reg+imm]`, `[var+imm]` or `[imm]`; add a register offset with a separate `add`"));
                Err(Recover)
            }
        }
    }
}

/// The predefined identifier `WARP_SZ` (PTX ISA, "Predefined Identifiers"):
/// the number of threads in a warp, a constant usable wherever an integer
/// immediate is (`mov.u32 %r1, WARP_SZ;`, as NVVM emits for
/// `warpSize`). It is 32 on every target, so the parser reads it as the
/// literal 32.
pub(super) const WARP_SZ: &str = "WARP_SZ";

pub(super) fn warp_sz(span: Span) -> Expr<'static> {
    Expr::Int(IntLit { value: 32, unsigned: false }, span)
}

fn literal_operand(e: Expr<'_>) -> OperandKind<'_> {
    match e {
        Expr::Int(l, _) => OperandKind::Int(l),
        Expr::Float(f, _) => OperandKind::Float(f),
        e => OperandKind::Expr(e),
    }
}

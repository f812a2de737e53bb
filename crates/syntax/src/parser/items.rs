//! Module-level items: module directives, functions with their parameters and
//! directives, variable declarations, debug sections.

use super::{PResult, Parser, Recover};
use crate::ast::*;
use crate::diag::Diagnostic;
use crate::lexer::Tok;
use crate::span::Span;

const FUNC_PERF_DIRECTIVES: &[&str] = &[
    ".maxntid",
    ".reqntid",
    ".minnctapersm",
    ".maxnctapersm",
    ".maxnreg",
    ".noreturn",
    ".explicitcluster",
    ".reqnctapercluster",
    ".maxclusterrank",
    ".blocksareclusters",
    ".abi_preserve",
    ".abi_preserve_control",
];

impl<'a> Parser<'a> {
    pub(crate) fn module(&mut self) -> Module<'a> {
        let mut items = Vec::new();
        while !self.at(Tok::Eof) {
            let before = self.span.start;
            match self.item() {
                Ok(Some(item)) => items.push(item),
                Ok(None) => {}
                Err(Recover) => {
                    self.recover_statement();
                    // A stray `}` at module level would stop statement recovery forever.
                    if self.at(Tok::RBrace) {
                        let s = self.bump();
                        self.error(Diagnostic::error(
                            "syntax/unbalanced-brace",
                            s,
                            "this `}` closes no block",
                        ));
                    }
                }
            }
            if self.span.start == before && !self.at(Tok::Eof) {
                self.bump();
            }
        }
        Module { items }
    }

    pub(crate) fn item(&mut self) -> PResult<Option<Item<'a>>> {
        if self.tok != Tok::Dot {
            if self.at(Tok::RBrace) {
                let s = self.bump();
                self.error(Diagnostic::error("syntax/unbalanced-brace", s, "this `}` closes no block"));
                return Ok(None);
            }
            if let Some(d) = self.lexical_error() {
                self.error(d);
                return Err(Recover);
            }
            let found = self.found();
            let mut d = Diagnostic::error(
                "syntax/expected-item",
                self.span,
                format!("expected a directive, a declaration or a function, found {found}"),
            )
            .with_label("expected a module-level directive");
            if self.at(Tok::Ident) || self.at(Tok::At) {
                d = d.with_note("instructions must be inside the body of an `.entry` or `.func`");
            }
            self.error(d);
            return Err(Recover);
        }
        let start = self.span;
        match self.cur_text() {
            ".version" => {
                self.bump();
                let v = self.version()?;
                self.eat(Tok::Semi);
                Ok(Some(Item::Version(Version { span: self.since(start), ..v })))
            }
            ".target" => {
                self.bump();
                let mut targets = vec![self.name("a target name such as `sm_70`")?];
                while self.eat(Tok::Comma).is_some() {
                    targets.push(self.name("a target name or modifier")?);
                }
                self.eat(Tok::Semi);
                Ok(Some(Item::Target(Target { targets, span: self.since(start) })))
            }
            ".address_size" => {
                self.bump();
                let v = self.uint32("an address size (32 or 64)")?;
                self.eat(Tok::Semi);
                Ok(Some(Item::AddressSize(v)))
            }
            ".file" => Ok(Some(Item::File(self.file_directive()?))),
            ".section" => Ok(Some(Item::Section(self.section()?))),
            ".pragma" => Ok(Some(Item::Pragma(self.pragma()?))),
            ".alias" => {
                self.bump();
                let alias = self.name("the alias name")?;
                self.expect(Tok::Comma)?;
                let aliasee = self.name("the aliased function")?;
                self.expect_semi()?;
                Ok(Some(Item::Alias { alias, aliasee, span: self.since(start) }))
            }
            _ => {
                let linkage = self.linkage();
                if self.at_dot(".entry") || self.at_dot(".func") {
                    return Ok(Some(Item::Function(Box::new(self.function(start, linkage)?))));
                }
                if self.tok == Tok::Dot && StateSpace::from_str(self.cur_text()).is_some() {
                    let v = self.var_decl(start, linkage)?;
                    return Ok(Some(Item::Var(v)));
                }
                self.unknown_directive("at module level")
            }
        }
    }

    pub(crate) fn unknown_directive<T>(&mut self, context: &str) -> PResult<T> {
        if self.tok != Tok::Dot {
            return self.unexpected("a directive");
        }
        let text = self.cur_text();
        let d = Diagnostic::error(
            "syntax/unknown-directive",
            self.span,
            format!("unknown directive `{text}` {context}"),
        );
        self.error(d);
        Err(Recover)
    }

    fn version(&mut self) -> PResult<Version> {
        // `.version 7.8` lexes as a float token; `.version 7` is not valid PTX.
        if self.tok != Tok::Float {
            return self.unexpected("a version number such as `7.8`");
        }
        let span = self.bump();
        let text = self.text(span);
        let parsed = text
            .split_once('.')
            .and_then(|(a, b)| Some((a.parse::<u32>().ok()?, b.parse::<u32>().ok()?)));
        match parsed {
            Some((major, minor)) => Ok(Version { major, minor, span }),
            None => {
                self.error(Diagnostic::error(
                    "syntax/bad-number",
                    span,
                    format!("`{text}` is not a version number of the form MAJOR.MINOR"),
                ));
                Err(Recover)
            }
        }
    }

    fn file_directive(&mut self) -> PResult<FileDirective<'a>> {
        let start = self.bump();
        let index = self.uint32("a file index")?.value;
        if self.tok != Tok::Str {
            return self.unexpected("a quoted file name");
        }
        let ps = self.bump();
        let path = self.text(ps);
        let mut timestamp = None;
        let mut size = None;
        if self.eat(Tok::Comma).is_some() {
            timestamp = Some(self.uint("a timestamp")?.value);
            if self.eat(Tok::Comma).is_some() {
                size = Some(self.uint("a file size")?.value);
            }
        }
        self.eat(Tok::Semi);
        Ok(FileDirective { index, path, timestamp, size, span: self.since(start) })
    }

    pub(crate) fn pragma(&mut self) -> PResult<Pragma<'a>> {
        let start = self.bump();
        let mut strings = Vec::new();
        loop {
            if self.tok != Tok::Str {
                return self.unexpected("a quoted pragma string");
            }
            let s = self.bump();
            strings.push(self.text(s));
            if self.eat(Tok::Comma).is_none() {
                break;
            }
        }
        self.expect_semi()?;
        Ok(Pragma { strings, span: self.since(start) })
    }

    fn section(&mut self) -> PResult<Section<'a>> {
        let start = self.bump();
        // Section names are written with a leading dot (`.debug_info`).
        let name = match self.tok {
            Tok::Dot | Tok::Ident => {
                let s = self.bump();
                Name { text: self.text(s), span: s }
            }
            _ => return self.unexpected("a section name"),
        };
        self.expect(Tok::LBrace)?;
        let mut entries = Vec::new();
        loop {
            match self.tok {
                Tok::RBrace => {
                    self.bump();
                    break;
                }
                Tok::Ident if self.next == Tok::Colon => {
                    let n = self.name("a label")?;
                    self.bump();
                    entries.push(SectionEntry::Label(n));
                }
                Tok::Dot => {
                    let ts = self.bump();
                    let ty = Name { text: self.text(ts), span: ts };
                    let mut values = Vec::new();
                    loop {
                        values.push(self.section_value()?);
                        if self.eat(Tok::Comma).is_none() {
                            break;
                        }
                    }
                    self.eat(Tok::Semi);
                    entries.push(SectionEntry::Data { ty, values, span: self.since(ts) });
                }
                _ => return self.unexpected("section data such as `.b8 1` or `}`"),
            }
        }
        Ok(Section { name, entries, span: self.since(start) })
    }

    /// A section value: a constant expression whose names may start with a dot.
    fn section_value(&mut self) -> PResult<Expr<'a>> {
        if self.tok == Tok::Dot {
            let s = self.bump();
            let base = Expr::Name(Name { text: self.text(s), span: s });
            return self.expr_tail(base, 0);
        }
        self.expr()
    }

    pub(crate) fn linkage(&mut self) -> Option<Spanned<Linkage>> {
        let l = match self.cur_text() {
            ".extern" => Linkage::Extern,
            ".visible" => Linkage::Visible,
            ".weak" => Linkage::Weak,
            ".common" => Linkage::Common,
            _ => return None,
        };
        if self.tok != Tok::Dot {
            return None;
        }
        let span = self.bump();
        Some(Spanned { value: l, span })
    }

    fn function(&mut self, start: Span, linkage: Option<Spanned<Linkage>>) -> PResult<Function<'a>> {
        let kind = if self.eat_dot(".entry").is_some() {
            FunctionKind::Entry
        } else {
            self.bump();
            FunctionKind::Func
        };
        let returns = if kind == FunctionKind::Func && self.at(Tok::LParen) {
            Some(self.param_list()?)
        } else {
            None
        };
        let name = self.name("a function name")?;
        let params = if self.at(Tok::LParen) { Some(self.param_list()?) } else { None };
        let mut directives = Vec::new();
        loop {
            if self.tok != Tok::Dot {
                break;
            }
            let text = self.cur_text();
            if text == ".pragma" {
                directives.push(FuncDirective::Pragma(self.pragma()?));
            } else if FUNC_PERF_DIRECTIVES.contains(&text) {
                let ns = self.bump();
                let dname = Name { text, span: ns };
                let mut values = Vec::new();
                if self.at(Tok::Int) {
                    values.push(self.uint("a number")?);
                    while self.eat(Tok::Comma).is_some() {
                        values.push(self.uint("a number")?);
                    }
                }
                directives.push(FuncDirective::Perf { name: dname, values, span: self.since(ns) });
            } else {
                return self.unknown_directive("in a function header");
            }
        }
        let body = if self.at(Tok::LBrace) && self.outline {
            Some(self.skipped_body()?)
        } else if self.at(Tok::LBrace) {
            Some(self.block()?)
        } else if self.eat(Tok::Semi).is_some() {
            None
        } else {
            return self.unexpected("`{` to start the function body, or `;`");
        };
        Ok(Function { linkage, kind, name, returns, params, directives, body, span: self.since(start) })
    }

    /// A function body in an outline ([`super::parse_outline`]): its braces
    /// matched on the raw text (`lexer::skip_braced`), its statements not
    /// read; the parser resumes after its `}`.
    fn skipped_body(&mut self) -> PResult<Block<'a>> {
        let open = self.expect(Tok::LBrace)?;
        let Some(end) = crate::lexer::skip_braced(self.src, open.end as usize) else {
            self.error(Diagnostic::error("syntax/unclosed-block", open, "the file ends inside a block"));
            return Err(Recover);
        };
        self.resume_at(end);
        Ok(Block { stmts: Vec::new(), span: Span::new(open.start as usize, end) })
    }

    /// `( param, param, ... )`
    pub(crate) fn param_list(&mut self) -> PResult<Vec<Param<'a>>> {
        let open = self.expect(Tok::LParen)?;
        let mut params = Vec::new();
        if self.eat(Tok::RParen).is_some() {
            return Ok(params);
        }
        loop {
            params.push(self.param()?);
            if self.eat(Tok::Comma).is_none() {
                break;
            }
        }
        self.expect_close(Tok::RParen, open, "parameter list")?;
        // Growth leaves up to 3 spare slots of ~150 bytes (a lone parameter
        // gets 4): give them back.
        params.shrink_to_fit();
        Ok(params)
    }

    fn param(&mut self) -> PResult<Param<'a>> {
        let start = self.span;
        let space = match StateSpace::from_str(self.cur_text()) {
            Some(s) if self.tok == Tok::Dot => Spanned { value: s, span: self.bump() },
            _ => return self.unexpected("a parameter state space (`.param` or `.reg`)"),
        };
        let mut align = None;
        let mut vector = None;
        self.decl_attrs(&mut align, &mut vector, None)?;
        let ty = self.ty()?;
        let mut ptr = None;
        if let Some(ps) = self.eat_dot(".ptr") {
            let mut pspace = None;
            let mut palign = None;
            loop {
                if self.at_dot(".align") {
                    self.bump();
                    palign = Some(self.uint("an alignment")?.value);
                } else if let (Tok::Dot, Some(s)) = (self.tok, StateSpace::from_str(self.cur_text())) {
                    self.bump();
                    pspace = Some(s);
                } else {
                    break;
                }
            }
            ptr = Some(PtrAttr { space: pspace, align: palign, span: self.since(ps) });
        }
        let name = self.name("a parameter name")?;
        let dims = self.dims()?;
        Ok(Param { space, align, vector, ty, ptr, name, dims, span: self.since(start) })
    }

    /// `.align N`, `.vN` and `.attribute(...)`, in any order, before a type.
    fn decl_attrs(
        &mut self,
        align: &mut Option<Spanned<u64>>,
        vector: &mut Option<Spanned<u8>>,
        mut attrs: Option<&mut Vec<Name<'a>>>,
    ) -> PResult<()> {
        loop {
            if self.tok != Tok::Dot {
                return Ok(());
            }
            let text = self.cur_text();
            if text == ".align" {
                self.bump();
                *align = Some(self.uint("an alignment")?);
            } else if let Some(n) = text.strip_prefix(".v").and_then(|n| n.parse::<u8>().ok()) {
                let span = self.bump();
                *vector = Some(Spanned { value: n, span });
            } else if text == ".attribute" {
                let span = self.bump();
                // `.attribute(.managed)`: keep the attribute names.
                self.expect(Tok::LParen)?;
                let mut names = vec![Name { text, span }];
                while self.tok == Tok::Dot || self.tok == Tok::Comma {
                    let s = self.bump();
                    if self.text(s) != "," {
                        names.push(Name { text: self.text(s), span: s });
                    }
                }
                self.expect(Tok::RParen)?;
                match attrs.as_deref_mut() {
                    Some(a) => a.extend(names),
                    None => {
                        self.error(Diagnostic::error(
                            "syntax/misplaced-attribute",
                            span,
                            "`.attribute` is not allowed on a parameter",
                        ));
                        return Err(Recover);
                    }
                }
            } else {
                return Ok(());
            }
        }
    }

    pub(crate) fn ty(&mut self) -> PResult<Spanned<Type<'a>>> {
        if self.tok == Tok::Dot {
            if let Some(t) = ScalarType::from_str(self.cur_text()) {
                let span = self.bump();
                return Ok(Spanned { value: Type::Scalar(t), span });
            }
            let text = self.cur_text();
            let d = Diagnostic::error("syntax/unknown-type", self.span, format!("unknown type `{text}`"))
                .with_note("PTX types are .b8-.b128, .u8-.u64, .s8-.s64, .f16, .f16x2, .bf16, .bf16x2, .tf32, .f32, .f64, .pred and the opaque .texref/.samplerref/.surfref");
            self.error(d);
            return Err(Recover);
        }
        self.unexpected("a type such as `.u32`")
    }

    /// `[N][M]` / `[]` after a name.
    fn dims(&mut self) -> PResult<Vec<Option<Spanned<u64>>>> {
        let mut dims = Vec::new();
        while self.eat(Tok::LBracket).is_some() {
            if self.eat(Tok::RBracket).is_some() {
                dims.push(None);
                continue;
            }
            dims.push(Some(self.uint("an array size")?));
            self.expect(Tok::RBracket)?;
        }
        Ok(dims)
    }

    /// A variable declaration, from its state space to its `;`.
    pub(crate) fn var_decl(&mut self, start: Span, linkage: Option<Spanned<Linkage>>) -> PResult<VarDecl<'a>> {
        let space_text = self.cur_text();
        let space = match StateSpace::from_str(space_text) {
            Some(s) => Spanned { value: s, span: self.bump() },
            None => return self.unexpected("a state space"),
        };
        let mut align = None;
        let mut vector = None;
        let mut attributes = Vec::new();
        self.decl_attrs(&mut align, &mut vector, Some(&mut attributes))?;
        let ty = self.ty()?;
        // `.ptr` is only meaningful on parameters, but some producers also put alignment after the type.
        self.decl_attrs(&mut align, &mut vector, Some(&mut attributes))?;
        // Most declarations name one variable (`.reg .b32 %r<10>;`): no spare
        // slots for the common case.
        let mut declarators = Vec::with_capacity(1);
        loop {
            declarators.push(self.declarator()?);
            if self.eat(Tok::Comma).is_none() {
                break;
            }
        }
        self.expect_semi()?;
        Ok(VarDecl { linkage, space, attributes, align, vector, ty, declarators, span: self.since(start) })
    }

    fn declarator(&mut self) -> PResult<Declarator<'a>> {
        let name = self.name("a variable name")?;
        let count = if self.eat(Tok::Lt).is_some() {
            let c = self.uint("a register count")?;
            self.expect(Tok::Gt)?;
            Some(c)
        } else {
            None
        };
        let dims = self.dims()?;
        let init = if self.eat(Tok::Eq).is_some() { Some(self.init()?) } else { None };
        Ok(Declarator { name, count, dims, init, span: self.since(name.span) })
    }

    fn init(&mut self) -> PResult<Init<'a>> {
        if let Some(start) = self.eat(Tok::LBrace) {
            self.enter()?;
            let mut items = Vec::new();
            if !self.at(Tok::RBrace) {
                loop {
                    match self.init() {
                        Ok(i) => items.push(i),
                        Err(e) => {
                            self.leave();
                            return Err(e);
                        }
                    }
                    if self.eat(Tok::Comma).is_none() {
                        break;
                    }
                }
            }
            self.leave();
            self.expect_close(Tok::RBrace, start, "initialiser list")?;
            return Ok(Init::List(items, self.since(start)));
        }
        Ok(Init::Expr(self.expr()?))
    }
}

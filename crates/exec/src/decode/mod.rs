//! Decoding a checked AST module into an owned [`Program`].
//!
//! This file owns the module level: the function table (function "addresses"
//! are tagged integers), `.global` variables (allocated in device memory
//! through a callback, with initialisers including function-pointer jump
//! tables), the `.const` bank, the static/dynamic `.shared` layout, and the
//! per-function layout of registers, kernel parameters and frame storage.
//! `instr.rs` decodes single instructions.
//!
//! Every count taken from the source is bounded here (registers, array sizes,
//! shared and const bytes) so that later stages allocate nothing unbounded.

mod instr;
pub(crate) mod link;
mod smem;

pub use instr::decodes_opcode;

use ptxsim_sem::alu::ITy;
use crate::program::{CONST_WINDOW, FUNC_BASE, FUNC_STRIDE, SHARED_WINDOW};
use crate::program::*;
use ptxsim_analysis::{FlatFunction, FunctionAnalysis, Reconvergence};
use ptxsim_syntax::ast::{self, Expr, FunctionKind, Init, Item, ScalarType, StateSpace, Type};
use ptxsim_syntax::cexpr::{self, CVal};
use ptxsim_syntax::LineIndex;
use std::collections::HashMap;

/// Most registers (of all kinds) one function may declare.
pub const MAX_REGS: u64 = 1 << 14;
/// Most bytes of one module variable, and of all `.const` / static `.shared`.
pub const MAX_VAR_BYTES: u64 = 1 << 30;
pub const MAX_CONST_BYTES: u64 = 1 << 20;
pub const MAX_SHARED_BYTES: u64 = 1 << 20;
/// A bound on one function's frame offsets only: the limit users meet is
/// `Limits::local_bytes_per_thread`, checked when the module is loaded.
pub const MAX_FRAME_BYTES: u64 = 1 << 30;

/// What a name means in an instruction operand.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Sym {
    Reg { slot: u32 },
    Pred(u32),
    /// Absolute global address.
    Global(u64),
    Shared(u64),
    Const(u64),
    Func(FuncId),
    /// Frame-local storage (`.local` variables): frame offset.
    Local(u32),
    /// Frame `.param` storage: frame offset, size.
    FrameParam(u32, u32),
    /// Kernel parameter: offset in the parameter block.
    KernelParam(u32),
}

/// One module of a program being decoded: its name (in messages), its
/// syntax tree and its line index.
pub(crate) struct Unit<'s, 'a> {
    pub name: &'s str,
    pub ast: &'s ast::Module<'a>,
    pub lines: LineIndex,
}

fn linkage_of(l: Option<ast::Spanned<ast::Linkage>>) -> Option<ast::Linkage> {
    l.map(|l| l.value)
}
/// Every function of the units, with the unit that defines it and each
/// unit's names for them.
struct FunctionTable<'s, 'a> {
    /// By id: the definition (a body wins over a declaration).
    funcs: Vec<Option<&'s ast::Function<'a>>>,
    /// By id: the unit whose definition it is.
    owner: Vec<usize>,
    /// Per unit: its function names and their ids.
    unit_ids: Vec<HashMap<&'s str, FuncId>>,
}

/// Numbers the functions of `units`: with `link`, a name with linkage is
/// one function across units (a body wins over a declaration, a `.visible`
/// body over a `.weak` one).
fn function_table<'s, 'a>(units: &'s [Unit<'s, 'a>], link: bool) -> FunctionTable<'s, 'a> {
    use ast::Linkage::{Common, Visible, Weak};
    let shared_name = |l: Option<ast::Spanned<ast::Linkage>>| link && l.is_some();
    let mut funcs: Vec<Option<&'s ast::Function<'a>>> = Vec::new();
    let mut owner: Vec<usize> = Vec::new();
    let mut global_ids: HashMap<&str, FuncId> = HashMap::new();
    let mut unit_ids: Vec<HashMap<&str, FuncId>> = vec![HashMap::new(); units.len()];
    for (u, unit) in units.iter().enumerate() {
        for item in &unit.ast.items {
            let Item::Function(f) = item else { continue };
            let name = f.name.text;
            let id = match unit_ids[u].get(name) {
                Some(&id) => id,
                None => {
                    let known = if shared_name(f.linkage) { global_ids.get(name).copied() } else { None };
                    let id = known.unwrap_or_else(|| {
                        funcs.push(None);
                        owner.push(u);
                        (funcs.len() - 1) as FuncId
                    });
                    if shared_name(f.linkage) {
                        global_ids.entry(name).or_insert(id);
                    }
                    unit_ids[u].insert(name, id);
                    id
                }
            };
            // A body wins over a declaration; a `.visible` body over a `.weak` one.
            let better = match funcs[id as usize] {
                None => true,
                Some(g) => match (g.body.is_some(), f.body.is_some()) {
                    (false, true) => true,
                    (true, true) => link && matches!(linkage_of(g.linkage), Some(Weak | Common)) && linkage_of(f.linkage) == Some(Visible),
                    _ => false,
                },
            };
            if better {
                funcs[id as usize] = Some(&**f);
                owner[id as usize] = u;
            }
        }
    }
    // `.alias b, a;` (PTX ISA 11.6.1): the declared function `b` runs the
    // body of `a`, which the checker made sure the module defines.
    for (u, unit) in units.iter().enumerate() {
        for item in &unit.ast.items {
            let Item::Alias { alias, aliasee, .. } = item else { continue };
            if let (Some(&b), Some(&a)) = (unit_ids[u].get(alias.text), unit_ids[u].get(aliasee.text)) {
                if funcs[b as usize].is_none_or(|f| f.body.is_none()) && funcs[a as usize].is_some_and(|f| f.body.is_some()) {
                    funcs[b as usize] = funcs[a as usize];
                    owner[b as usize] = owner[a as usize];
                }
            }
        }
    }
    FunctionTable { funcs, owner, unit_ids }
}


/// Decodes one program from `units` (already parsed and checked);
/// `alloc_global(size, align)` allocates device memory for each `.global`
/// variable and returns its address. With `link` (several separately
/// compiled modules, checked by `link::check`), the functions and
/// variables declared with a linkage (`.extern`, `.visible`, `.weak`,
/// `.common`) are one name across the units: an `.extern` resolves to the
/// `.visible` definition, or else the first `.weak` one; names without a
/// linkage stay private to their unit. Without `link` (one module, a whole
/// program as ptxas sees it) an `.extern` `.global` variable is allocated
/// like a definition. With `devrt` (the program is linked with
/// libcudadevrt), a direct call of a bodiless cooperative-groups function
/// of that library (`cudaCG*`) decodes to the engine's own
/// (`Op::DevRt`, `Op::GridSync`).
pub(crate) fn decode_units<'s, 'a>(
    units: &'s [Unit<'s, 'a>],
    link: bool,
    devrt: bool,
    alloc_global: &mut dyn FnMut(u64, u64) -> Option<u64>,
) -> Result<(Program, Vec<(u64, Vec<u8>)>), String> {
    use ast::Linkage::{Common, Visible, Weak};
    let named = |u: usize, m: String| if link { format!("{}: {m}", units[u].name) } else { m };

    // Functions first: jump tables and `mov r, f` need their addresses.
    let FunctionTable { funcs, owner, unit_ids } = function_table(units, link);
    let mut ds: Vec<ModuleDecoder<'s, 's, 'a>> = units
        .iter()
        .enumerate()
        .map(|(u, unit)| ModuleDecoder {
            lines: &unit.lines,
            syms: unit_ids[u].iter().map(|(n, id)| (n.to_string(), Sym::Func(*id))).collect(),
            funcs: funcs.clone(),
            tables: HashMap::new(),
            link,
            devrt,
            externs: Vec::new(),
            shared_vars: Vec::new(),
            const_vars: Vec::new(),
        })
        .collect();

    // Module variables, unit by unit; with `link`, the definitions other
    // units may name (a `.visible` one wins over `.weak` ones).
    let mut const_bank: Vec<u8> = Vec::new();
    let mut shared_static: u64 = 0;
    let mut extern_shared: Vec<Vec<String>> = vec![Vec::new(); units.len()];
    let mut global_inits: Vec<(u64, Vec<u8>)> = Vec::new();
    let mut pending: Vec<Vec<(&ast::VarDecl<'_>, usize, u64)>> = vec![Vec::new(); units.len()];
    let mut defs: HashMap<&str, (Sym, bool)> = HashMap::new();
    for (u, unit) in units.iter().enumerate() {
        for item in &unit.ast.items {
            let Item::Var(v) = item else { continue };
            ds[u].declare_module_var(v, &mut const_bank, &mut shared_static, &mut extern_shared[u], alloc_global, &mut pending[u]).map_err(|m| named(u, m))?;
            let weak = match linkage_of(v.linkage) {
                Some(Visible) => false,
                Some(Weak | Common) => true,
                _ => continue,
            };
            if !link || !matches!(v.space.value, StateSpace::Global | StateSpace::Const) {
                continue;
            }
            for d in &v.declarators {
                let Some(&s) = ds[u].syms.get(d.name.text) else { continue };
                match defs.get(d.name.text) {
                    Some((_, false)) => {}
                    Some((_, true)) if weak => {}
                    _ => {
                        defs.insert(d.name.text, (s, weak));
                    }
                }
            }
        }
    }
    for (u, d) in ds.iter_mut().enumerate() {
        for n in std::mem::take(&mut d.externs) {
            let Some((s, _)) = defs.get(n.as_str()) else {
                return Err(named(u, format!("`{n}` is declared `.extern` and no module defines it")));
            };
            d.syms.insert(n, *s);
        }
    }
    // Initialisers, now that every address is known.
    for (u, p) in pending.into_iter().enumerate() {
        for (v, k, addr) in p {
            let decl = &v.declarators[k];
            let bytes = ds[u].init_bytes(v, decl).map_err(|m| named(u, m))?;
            match v.space.value {
                StateSpace::Global => global_inits.push((addr, bytes)),
                StateSpace::Const => {
                    let off = addr as usize;
                    if let Some(dst) = const_bank.get_mut(off..off + bytes.len()) {
                        dst.copy_from_slice(&bytes);
                    }
                }
                _ => {}
            }
        }
    }
    // A CTA's shared memory: the module's variables from 0, then those
    // declared in device functions (any kernel may call them), then the
    // running kernel's own (each kernel's start at the same offset: one
    // kernel runs per CTA), then dynamic (`extern`) memory, after the
    // largest kernel's static part. Function bodies resolve names to
    // offsets as they are decoded, so the extents are measured first.
    let mut device_end = shared_static;
    for f in funcs.iter().flatten().filter(|f| f.kind != FunctionKind::Entry) {
        if let Some(b) = &f.body {
            shared_extent(b, &mut device_end);
        }
    }
    let mut static_end = device_end;
    for f in funcs.iter().flatten().filter(|f| f.kind == FunctionKind::Entry) {
        let mut end = device_end;
        if let Some(b) = &f.body {
            shared_extent(b, &mut end);
        }
        static_end = static_end.max(end);
    }
    let dyn_off = (static_end + 15) & !15;
    for (u, names) in extern_shared.into_iter().enumerate() {
        for n in names {
            ds[u].syms.insert(n, Sym::Shared(dyn_off));
        }
    }

    // Function bodies, each with its unit's names.
    let mut functions = Vec::with_capacity(funcs.len());
    let mut uses = Vec::with_capacity(funcs.len());
    let mut device_cursor = shared_static;
    for (id, f) in funcs.iter().enumerate() {
        let Some(f) = f else { return Err("internal: function slot without a definition".into()) };
        let u = owner[id];
        let mut kernel_cursor = device_end;
        let is_kernel = f.kind == FunctionKind::Entry;
        let before = if is_kernel { device_end } else { device_cursor };
        let cursor = if is_kernel { &mut kernel_cursor } else { &mut device_cursor };
        let (mut func, used) = ds[u].decode_function(id as FuncId, f, cursor).map_err(|m| named(u, m))?;
        func.module = u as u32;
        let after = if is_kernel { kernel_cursor } else { device_cursor };
        uses.push(smem::Uses { shared: used, own: after - before });
        functions.push(func);
    }
    let vars: Vec<&[(u64, u64, u64)]> = ds.iter().map(|d| &d.shared_vars[..]).collect();
    smem::kernel_shared_bytes(&mut functions, &uses, &vars);
    let program = Program {
        functions,
        const_init: const_bank,
        const_vars: ds.iter().flat_map(|d| d.const_vars.iter().cloned()).collect(),
        shared_static: static_end as u32,
        shared_dynamic_offset: dyn_off as u32,
        files: units.iter().map(|u| u.name.to_string()).collect(),
    };
    Ok((program, global_inits))
}

pub(crate) struct ModuleDecoder<'s, 'f, 'a> {
    pub lines: &'s LineIndex,
    pub syms: HashMap<String, Sym>,
    /// Every function of the program, by id (all units).
    pub funcs: Vec<Option<&'f ast::Function<'a>>>,
    /// Call tables: module variables whose initialisers are function names.
    pub tables: HashMap<String, Vec<FuncId>>,
    /// Linking several modules: `.extern` `.global`/`.const` variables are
    /// resolved against other units' definitions (collected in `externs`)
    /// instead of being allocated.
    pub link: bool,
    /// Linked with libcudadevrt: its `cudaCG*` functions are builtins.
    pub devrt: bool,
    pub externs: Vec<String>,
    /// Module-scope `.shared` variables (not `extern`): (offset, size,
    /// alignment), for each kernel's count of what it uses (`smem.rs`).
    pub shared_vars: Vec<(u64, u64, u64)>,
    /// Module-scope `.const` variables: (name, offset in the bank, size).
    pub const_vars: Vec<(String, u64, u64)>,
}

/// Size in bytes of a declared type (0 for opaque/pred).
/// Advances `cursor` past the `.shared` variables declared in `b` (and its
/// nested blocks), laid out as `FuncDecoder::declare_var` lays them out; a
/// size that cannot be computed counts 0 here (decoding reports it).
fn shared_extent(b: &ast::Block<'_>, cursor: &mut u64) {
    for s in &b.stmts {
        match s {
            ast::Statement::Var(v) if v.space.value == StateSpace::Shared => {
                let elem = type_bytes(&v.ty.value) * v.vector.map(|x| x.value as u64).unwrap_or(1);
                let align = v.align.map(|a| a.value).unwrap_or(elem.max(1)).clamp(1, 4096);
                for decl in &v.declarators {
                    let size = var_size(&v.ty.value, v.vector.map(|x| x.value), &decl.dims, None).unwrap_or(0);
                    *cursor = cursor.div_ceil(align) * align + size;
                }
            }
            ast::Statement::Block(inner) => shared_extent(inner, cursor),
            _ => {}
        }
    }
}

pub(crate) fn type_bytes(t: &Type<'_>) -> u64 {
    match t.scalar() {
        Some(s) => (s.bits() as u64).div_ceil(8),
        None => 0,
    }
}

pub(crate) fn var_size(v_ty: &Type<'_>, vector: Option<u8>, dims: &[Option<ast::Spanned<u64>>], init_len: Option<u64>) -> Result<u64, String> {
    let mut n = type_bytes(v_ty) * vector.map(|x| x as u64).unwrap_or(1);
    for (i, dim) in dims.iter().enumerate() {
        let k = match dim {
            Some(s) => s.value,
            None if i == 0 => init_len.unwrap_or(0),
            None => return Err("array with an unsized inner dimension".into()),
        };
        n = n.checked_mul(k).ok_or("array size overflows")?;
    }
    if n > MAX_VAR_BYTES {
        return Err(format!("variable of {n} bytes is larger than the {MAX_VAR_BYTES}-byte limit"));
    }
    Ok(n)
}

/// How many scalar initialisers `init` holds.
pub(crate) fn init_count(i: &Init<'_>) -> u64 {
    match i {
        Init::Expr(_) => 1,
        Init::List(l, _) => l.iter().map(init_count).sum(),
    }
}

fn init_len(init: &Option<Init<'_>>) -> Option<u64> {
    fn count(i: &Init<'_>) -> u64 {
        match i {
            Init::Expr(_) => 1,
            Init::List(l, _) => l.iter().map(count).sum(),
        }
    }
    init.as_ref().map(count)
}

impl<'s, 'f, 'a> ModuleDecoder<'s, 'f, 'a> {
    pub fn line(&self, span: ptxsim_syntax::Span) -> u32 {
        self.lines.line(span.start)
    }
    fn declare_module_var<'v>(
        &mut self,
        v: &'v ast::VarDecl<'a>,
        const_bank: &mut Vec<u8>,
        shared_static: &mut u64,
        extern_shared: &mut Vec<String>,
        alloc_global: &mut dyn FnMut(u64, u64) -> Option<u64>,
        pending: &mut Vec<(&'v ast::VarDecl<'a>, usize, u64)>,
    ) -> Result<(), String> {
        let elem = type_bytes(&v.ty.value) * v.vector.map(|x| x.value as u64).unwrap_or(1);
        let align = v.align.map(|a| a.value).unwrap_or(elem.max(1)).clamp(1, 4096);
        let is_extern = matches!(v.linkage.map(|l| l.value), Some(ast::Linkage::Extern));
        for (k, decl) in v.declarators.iter().enumerate() {
            let size = var_size(&v.ty.value, v.vector.map(|x| x.value), &decl.dims, init_len(&decl.init))
                .map_err(|e| format!("line {}: `{}`: {e}", self.line(decl.span), decl.name.text))?;
            let name = decl.name.text.to_string();
            if let Some(init) = &decl.init {
                let mut fs = Vec::new();
                fn walk(i: &Init<'_>, syms: &HashMap<String, Sym>, fs: &mut Vec<FuncId>) {
                    match i {
                        Init::Expr(Expr::Name(n)) => {
                            if let Some(Sym::Func(f)) = syms.get(n.text) {
                                fs.push(*f);
                            }
                        }
                        Init::Expr(_) => {}
                        Init::List(l, _) => l.iter().for_each(|x| walk(x, syms, fs)),
                    }
                }
                walk(init, &self.syms, &mut fs);
                if !fs.is_empty() {
                    self.tables.insert(name.clone(), fs);
                }
            }
            if self.link && is_extern && matches!(v.space.value, StateSpace::Global | StateSpace::Const) {
                self.externs.push(name);
                continue;
            }
            match v.space.value {
                StateSpace::Global => {
                    let addr = alloc_global(size, align)
                        .ok_or_else(|| format!("line {}: cannot allocate {size} bytes for `{name}`", self.line(decl.span)))?;
                    self.syms.insert(name, Sym::Global(addr));
                    if decl.init.is_some() {
                        pending.push((v, k, addr));
                    }
                }
                StateSpace::Const => {
                    let off = (const_bank.len() as u64).div_ceil(align) * align;
                    if off + size > MAX_CONST_BYTES {
                        return Err(format!("line {}: .const space exceeds {MAX_CONST_BYTES} bytes", self.line(decl.span)));
                    }
                    const_bank.resize((off + size) as usize, 0);
                    self.const_vars.push((name.clone(), off, size));
                    self.syms.insert(name, Sym::Const(off));
                    if decl.init.is_some() {
                        pending.push((v, k, off));
                    }
                }
                StateSpace::Shared => {
                    if is_extern || (decl.dims.first().map(|d| d.is_none()).unwrap_or(false) && decl.init.is_none()) {
                        extern_shared.push(name);
                    } else {
                        let off = (*shared_static).div_ceil(align) * align;
                        if off + size > MAX_SHARED_BYTES {
                            return Err(format!("line {}: .shared space exceeds {MAX_SHARED_BYTES} bytes", self.line(decl.span)));
                        }
                        *shared_static = off + size;
                        self.shared_vars.push((off, size, align));
                        self.syms.insert(name, Sym::Shared(off));
                    }
                }
                _ => {
                    // Module-scope .local and others: not addressable by this engine yet;
                    // instructions naming them decode to `unsupported`.
                }
            }
        }
        Ok(())
    }

    /// Evaluates a constant expression (addresses of symbols included) by
    /// the rules of [`ptxsim_syntax::cexpr`]; a symbol's address is a signed
    /// integer.
    pub fn const_val(&self, e: &Expr<'_>, generic: bool) -> Result<CVal, String> {
        cexpr::eval_with(e, &mut |x| match x {
            Expr::Name(n) => self.symbol_value(n.text, generic).map(|a| CVal::int(a, false)),
            Expr::Generic(n, _) => self.symbol_value(n.text, true).map(|a| CVal::int(a, false)),
            _ => Err("not a constant".to_string()),
        })
        .map_err(|e| e.message())
    }

    /// Evaluates a constant expression to an integer (addresses of symbols
    /// included); a floating-point value is truncated.
    pub fn const_expr(&self, e: &Expr<'_>, generic: bool) -> Result<u64, String> {
        Ok(match self.const_val(e, generic)? {
            CVal::Int { value, .. } => value,
            CVal::Float(f) => f as i64 as u64,
        })
    }

    fn symbol_value(&self, name: &str, generic: bool) -> Result<u64, String> {
        match self.syms.get(name) {
            Some(Sym::Func(id)) => Ok(FUNC_BASE + FUNC_STRIDE * *id as u64),
            Some(Sym::Global(a)) => Ok(*a),
            Some(Sym::Shared(o)) => Ok(if generic { SHARED_WINDOW + o } else { *o }),
            Some(Sym::Const(o)) => Ok(if generic { CONST_WINDOW + o } else { *o }),
            _ => Err(format!("`{name}` is not a constant address")),
        }
    }

    fn init_bytes(&self, v: &ast::VarDecl<'_>, decl: &ast::Declarator<'_>) -> Result<Vec<u8>, String> {
        let elem_ty = v.ty.value.scalar();
        let esize = type_bytes(&v.ty.value) as usize;
        let total = var_size(&v.ty.value, v.vector.map(|x| x.value), &decl.dims, init_len(&decl.init))? as usize;
        let mut out = vec![0u8; total];
        let mut elems: Vec<&Expr<'_>> = Vec::new();
        fn flatten<'e, 'x>(i: &'e Init<'x>, out: &mut Vec<&'e Expr<'x>>) {
            match i {
                Init::Expr(e) => out.push(e),
                Init::List(l, _) => l.iter().for_each(|x| flatten(x, out)),
            }
        }
        if let Some(init) = &decl.init {
            flatten(init, &mut elems);
        }
        for (k, e) in elems.iter().enumerate() {
            let off = k * esize;
            if off + esize > total {
                return Err(format!("line {}: too many initialisers for `{}`", self.line(decl.span), decl.name.text));
            }
            // The mask operator gives one byte of an address, which is what
            // an element of one byte holds (LLVM's packed aggregates); what
            // a wider element holds is not modelled.
            if esize > 1 && has_mask(e) {
                return Err(format!("line {}: the mask operator in an initialiser of {esize}-byte elements is not supported yet", self.line(e.span())));
            }
            let bits: u64 = match (elem_ty, e) {
                (Some(ScalarType::F32), Expr::Float(f, _)) => (f.as_f64() as f32).to_bits() as u64,
                (Some(ScalarType::F64), Expr::Float(f, _)) => f.as_f64().to_bits(),
                (Some(ScalarType::F32), Expr::Int(i, _)) => (i.value as i64 as f32).to_bits() as u64,
                (Some(ScalarType::F64), Expr::Int(i, _)) => (i.value as i64 as f64).to_bits(),
                (Some(ScalarType::F32 | ScalarType::F64), _) => {
                    let v = self
                        .const_val(e, v.space.value != StateSpace::Const || matches!(e, Expr::Generic(..)))
                        .map_err(|m| format!("line {}: {m}", self.line(e.span())))?;
                    let f = match v {
                        CVal::Float(f) => f,
                        CVal::Int { value, unsigned: true } => value as f64,
                        CVal::Int { value, unsigned: false } => value as i64 as f64,
                    };
                    if elem_ty == Some(ScalarType::F32) {
                        (f as f32).to_bits() as u64
                    } else {
                        f.to_bits()
                    }
                }
                _ => self
                    .const_expr(e, v.space.value != StateSpace::Const || matches!(e, Expr::Generic(..)))
                    .map_err(|m| format!("line {}: {m}", self.line(e.span())))?,
            };
            out[off..off + esize].copy_from_slice(&bits.to_le_bytes()[..esize]);
        }
        Ok(out)
    }

    /// Decodes function `f`; also returns the offsets of the module-scope
    /// `.shared` variables its body names.
    fn decode_function(&self, id: FuncId, f: &ast::Function<'_>, shared_cursor: &mut u64) -> Result<(Function, Vec<u64>), String> {
        let is_kernel = f.kind == FunctionKind::Entry;
        let mut func = Function {
            name: f.name.text.to_string(),
            is_kernel,
            defined: f.body.is_some(),
            code: Vec::new(),
            reconv: Vec::new(),
            num_regs: 0,
            num_preds: 0,
            frame_bytes: 0,
            params: Vec::new(),
            rets: Vec::new(),
            kparams: Vec::new(),
            kparam_bytes: 0,
            reqntid: None,
            maxntid: None,
            reqnctapercluster: None,
            explicitcluster: false,
            maxclusterrank: None,
            line: self.line(f.name.span),
            module: 0,
            shared_bytes: 0,
        };
        for dir in &f.directives {
            if let ast::FuncDirective::Perf { name, values, .. } = dir {
                let mut v = [1u32; 3];
                for (i, x) in values.iter().take(3).enumerate() {
                    v[i] = x.value.min(u32::MAX as u64) as u32;
                }
                use ast::PerfDirective as P;
                match P::from_str(name.text) {
                    Some(P::Reqntid) => func.reqntid = Some(v),
                    Some(P::Maxntid) => func.maxntid = Some(v),
                    Some(P::Reqnctapercluster) => func.reqnctapercluster = Some(v),
                    Some(P::Explicitcluster) => func.explicitcluster = true,
                    Some(P::Maxclusterrank) => func.maxclusterrank = Some(v[0]),
                    _ => {}
                }
            }
        }
        let mut fd = instr::FuncDecoder::new(self, id, is_kernel, shared_cursor);
        // Formals.
        if let Some(params) = &f.params {
            for p in params {
                let size = var_size(&p.ty.value, p.vector.map(|x| x.value), &p.dims, None)
                    .map_err(|e| format!("line {}: {e}", self.line(p.span)))?
                    .max(type_bytes(&p.ty.value)) as u32;
                let align = p.align.map(|a| a.value).unwrap_or((type_bytes(&p.ty.value)).max(1)).clamp(1, 256) as u32;
                if is_kernel {
                    let off = func.kparam_bytes.div_ceil(align) * align;
                    func.kparams.push((off, size));
                    func.kparam_bytes = off + size;
                    fd.scope_insert(p.name.text, Sym::KernelParam(off));
                } else {
                    let formal = fd.declare_formal(p, size, align)?;
                    func.params.push(formal);
                }
            }
        }
        if let Some(rets) = &f.returns {
            for p in rets {
                let size = var_size(&p.ty.value, p.vector.map(|x| x.value), &p.dims, None)
                    .map_err(|e| format!("line {}: {e}", self.line(p.span)))?
                    .max(type_bytes(&p.ty.value)) as u32;
                let align = p.align.map(|a| a.value).unwrap_or((type_bytes(&p.ty.value)).max(1)).clamp(1, 256) as u32;
                let formal = fd.declare_formal(p, size, align)?;
                func.rets.push(formal);
            }
        }
        let Some(body) = &f.body else {
            return Ok((func, Vec::new()));
        };
        let flat = FlatFunction::new(f).ok_or("internal: no body")?;
        let analysis = FunctionAnalysis::new(&flat);
        fd.set_flat(&flat);
        fd.walk_block(body)?;
        let code = fd.take_code();
        if code.len() != flat.instrs.len() {
            return Err(format!(
                "internal: decoded {} instructions of `{}` but the analysis numbered {}",
                code.len(),
                func.name,
                flat.instrs.len()
            ));
        }
        func.reconv = analysis
            .simt_reconvergence
            .iter()
            .map(|r| match r {
                Some(Reconvergence::At(j)) => *j as u32,
                Some(Reconvergence::Exit) | None => PC_EXIT,
            })
            .collect();
        let (nregs, npreds, frame) = fd.sizes().map_err(|e| format!("line {}: {e}", func.line))?;
        func.num_regs = nregs;
        func.num_preds = npreds;
        func.frame_bytes = frame;
        func.code = code;
        Ok((func, fd.used_shared()))
    }
}

/// The integer type of a scalar type, if it is one (`.bN` counts as unsigned).
pub(crate) fn ity(s: ScalarType) -> Option<ITy> {
    use ScalarType::*;
    Some(match s {
        B8 | U8 => ITy { bits: 8, signed: false },
        B16 | U16 => ITy { bits: 16, signed: false },
        B32 | U32 => ITy { bits: 32, signed: false },
        B64 | U64 => ITy { bits: 64, signed: false },
        S8 => ITy { bits: 8, signed: true },
        S16 => ITy { bits: 16, signed: true },
        S32 => ITy { bits: 32, signed: true },
        S64 => ITy { bits: 64, signed: true },
        _ => return None,
    })
}

pub(crate) fn fty(s: ScalarType) -> Option<ptxsim_sem::alu::FTy> {
    use ptxsim_sem::alu::FTy;
    Some(match s {
        ScalarType::F16 => FTy::F16,
        ScalarType::Bf16 => FTy::BF16,
        ScalarType::F32 => FTy::F32,
        ScalarType::F64 => FTy::F64,
        _ => return None,
    })
}

pub(crate) fn is_bits_type(s: ScalarType) -> bool {
    matches!(s, ScalarType::B8 | ScalarType::B16 | ScalarType::B32 | ScalarType::B64)
}

/// Whether `e` holds a mask operator (`0xFF00(...)`).
fn has_mask(e: &Expr<'_>) -> bool {
    match e {
        Expr::Mask(..) => true,
        Expr::Unary(_, a, _) => has_mask(a),
        Expr::Binary(_, a, b, _) => has_mask(a) || has_mask(b),
        Expr::Cond(c, a, b, _) => has_mask(c) || has_mask(a) || has_mask(b),
        Expr::Int(..) | Expr::Float(..) | Expr::Name(_) | Expr::Generic(..) => false,
    }
}

//! The device and its modules: [`Device`] (global memory, limits, the
//! device heap, host copies) and [`Module`] (a program loaded onto it:
//! parsed, checked, decoded, its lane kernels chosen and its globals
//! allocated). Launching is `launch.rs`'s (`Device::launch`).

use crate::config::Limits;
use crate::error::{RunError, TrapKind};
use crate::memory::{self, PlaceError};
use crate::{datapath, decode, program};
use std::sync::Arc;

/// The emulated device: global memory and limits.
#[derive(Debug)]
pub struct Device {
    pub(crate) mem: memory::GlobalMemory,
    pub limits: Limits,
    /// What each module variable's allocation is (base → "`.global` variable `x`").
    pub(crate) names: std::collections::HashMap<u64, String>,
}

/// A loaded module: the decoded program, with its globals allocated on the device.
#[derive(Clone, Debug)]
pub struct Module {
    pub program: Arc<program::Program>,
    pub(crate) consts: Arc<Vec<u8>>,
    /// Addresses of the module's `.global` variables.
    pub globals: Vec<(String, u64)>,
    /// Whether some function calls `malloc` or `free` (the device heap).
    uses_heap: bool,
    /// The compiling tier its launches use (`None`: interpreted only).
    tier: Option<Arc<dyn crate::tier::Tier>>,
}

impl Module {
    /// Attaches the compiling tier `tier` (which caches the module's
    /// compiled code): launches from then on run the code it has compiled
    /// (`None`: every launch is interpreted).
    pub fn set_tier(&mut self, tier: Option<Arc<dyn crate::tier::Tier>>) {
        self.tier = tier;
    }

    /// The attached compiling tier.
    pub fn tier(&self) -> Option<&Arc<dyn crate::tier::Tier>> {
        self.tier.as_ref()
    }

    /// Whether the module calls the device `malloc` or `free`: loading it
    /// reserved the device heap, and launching any of its kernels fixes the
    /// heap's size ([`Device::set_heap_size`]).
    pub fn uses_heap(&self) -> bool {
        self.uses_heap
    }

    /// The module-scope `.const` variables: (name, offset in the bank, size).
    pub fn const_vars(&self) -> &[(String, u64, u64)] {
        &self.program.const_vars
    }

    /// The module's `.const` bank as kernels read it.
    pub fn const_bank(&self) -> &[u8] {
        &self.consts
    }

    /// Overwrites `bytes.len()` bytes of the `.const` bank at `offset` (the
    /// host writing a `__constant__` variable); launches from then on read
    /// the new bytes. False when the range is outside the bank.
    pub fn write_const(&mut self, offset: u64, bytes: &[u8]) -> bool {
        let Some(end) = (offset as usize).checked_add(bytes.len()) else { return false };
        if end > self.consts.len() {
            return false;
        }
        if self.consts[offset as usize..end] != *bytes {
            Arc::make_mut(&mut self.consts)[offset as usize..end].copy_from_slice(bytes);
        }
        true
    }

    /// Names of the kernels (`.entry` functions with a body).
    pub fn kernels(&self) -> Vec<&str> {
        self.program.functions.iter().filter(|f| f.is_kernel && f.defined).map(|f| f.name.as_str()).collect()
    }

    /// Kernel parameter sizes in bytes, if `name` is a kernel.
    pub fn kernel_params(&self, name: &str) -> Option<Vec<u32>> {
        self.program
            .functions
            .iter()
            .find(|f| f.is_kernel && f.defined && f.name == name)
            .map(|f| f.kparams.iter().map(|p| p.1).collect())
    }
}

impl Default for Device {
    fn default() -> Self {
        Device::new()
    }
}

impl Device {
    pub fn new() -> Device {
        Device::with_limits(Limits::default())
    }

    pub fn with_limits(limits: Limits) -> Device {
        Device { mem: memory::GlobalMemory::new(), limits, names: Default::default() }
    }

    /// Parses, checks and decodes a module, and allocates its `.global` variables.
    /// `name` is used in rendered diagnostics. A module loaded alone is a
    /// whole program, as `ptxas` without `-c` sees it: a called `.extern`
    /// function needs its definition in the module.
    pub fn load_named(&mut self, name: &str, src: &str) -> Result<Module, RunError> {
        self.load_modules(&[(name, src)], false, false)
    }

    /// Links separately compiled modules as nvlink does (`nvcc -rdc`): each
    /// module is parsed and checked as relocatable code (`ptxas -c`), then
    /// the `.extern` functions and `.global`/`.const` variables of each are
    /// resolved against another's `.visible` definition (or else its first
    /// `.weak` one). Two `.visible` definitions of a name, a called
    /// function or a variable that no module defines, and a declaration
    /// that does not match its definition (parameters, or a variable's
    /// size) are a `load_error` naming the files and lines. `modules`:
    /// (name, text) pairs; names without a linkage stay private to their
    /// module.
    pub fn load_linked(&mut self, modules: &[(&str, &str)]) -> Result<Module, RunError> {
        self.load_modules(modules, true, false)
    }

    /// As [`Device::load_linked`], with libcudadevrt (the CUDA device
    /// runtime library) linked in: a call of its cooperative-groups
    /// functions (`cudaCGGetIntrinsicHandle`, `cudaCGSynchronize`,
    /// `cudaCGSynchronizeGrid`, `cudaCGGetSize`, `cudaCGGetRank`, declared
    /// `.extern .func` without a body) runs the engine's own: the handle is
    /// the grid workspace's address in a cooperative launch
    /// ([`crate::LaunchConfig::cooperative`]) and 0 in any other, and
    /// synchronizing waits at the grid-wide barrier. Without it such a call
    /// is to a function with no body, as a module that does not link the
    /// library is.
    pub fn load_linked_devrt(&mut self, modules: &[(&str, &str)]) -> Result<Module, RunError> {
        self.load_modules(modules, true, true)
    }

    /// nvlink's symbol check over separately compiled modules, without
    /// decoding or allocating anything: the problems [`Device::load_linked`]
    /// would report (duplicate definitions, undefined references,
    /// prototype and size mismatches), one per line. Modules with syntax or
    /// check errors are left out (their own diagnostics say why).
    pub fn link_problems(modules: &[(&str, &str)]) -> Result<(), String> {
        let mut parsed = Vec::with_capacity(modules.len());
        let mut called = Vec::with_capacity(modules.len());
        let mut kept = Vec::with_capacity(modules.len());
        for &(name, src) in modules {
            let p = ptxsim_syntax::parse(src);
            if p.diagnostics.iter().any(|d| d.is_error()) {
                continue;
            }
            let checked = ptxsim_check::check_module_mode(&p.module, usize::MAX, ptxsim_check::Mode::Relocatable);
            if checked.diagnostics.iter().any(|d| d.is_error()) {
                continue;
            }
            let lines = ptxsim_syntax::LineIndex::new(src);
            called.push(checked.unresolved.iter().map(|(n, s)| (n.clone(), lines.line(s.start))).collect::<Vec<_>>());
            parsed.push(p);
            kept.push((name, src));
        }
        let units: Vec<decode::Unit<'_, '_>> =
            kept.iter().zip(&parsed).map(|(&(name, src), p)| decode::Unit { name, ast: &p.module, lines: ptxsim_syntax::LineIndex::new(src) }).collect();
        decode::link::check(&units, &called)
    }

    /// [`Device::load_named`] of a module the caller parsed already
    /// (`parsed` is `ptxsim_syntax::parse(src)`), for a caller that reads
    /// the syntax tree too (the sm_50 lowering): the text is parsed once.
    pub fn load_parsed(&mut self, name: &str, src: &str, parsed: &ptxsim_syntax::Parsed<'_>) -> Result<Module, RunError> {
        self.load_parsed_modules(&[(name, src)], std::slice::from_ref(parsed), false, false)
    }

    fn load_modules(&mut self, modules: &[(&str, &str)], link: bool, devrt: bool) -> Result<Module, RunError> {
        let parsed: Vec<ptxsim_syntax::Parsed<'_>> = modules.iter().map(|&(_, src)| ptxsim_syntax::parse(src)).collect();
        self.load_parsed_modules(modules, &parsed, link, devrt)
    }

    /// Checks, decodes and links `modules` (name, text), parsed as `parsed`.
    fn load_parsed_modules(&mut self, modules: &[(&str, &str)], parsed: &[ptxsim_syntax::Parsed<'_>], link: bool, devrt: bool) -> Result<Module, RunError> {
        use ptxsim_syntax::ast::{Item, Linkage, StateSpace};
        let mode = if link { ptxsim_check::Mode::Relocatable } else { ptxsim_check::Mode::WholeProgram };
        let mut called = Vec::with_capacity(modules.len());
        for (&(name, src), p) in modules.iter().zip(parsed) {
            let file = ptxsim_syntax::SourceFile::new(name, src);
            if p.diagnostics.iter().any(|d| d.is_error()) {
                return Err(RunError::new(TrapKind::LoadError, file.render(&p.diagnostics, false)));
            }
            let checked = ptxsim_check::check_module_mode(&p.module, usize::MAX, mode);
            if checked.diagnostics.iter().any(|d| d.is_error()) {
                return Err(RunError::new(TrapKind::LoadError, file.render(&checked.diagnostics, false)));
            }
            let lines = ptxsim_syntax::LineIndex::new(src);
            called.push(checked.unresolved.iter().map(|(n, s)| (n.clone(), lines.line(s.start))).collect::<Vec<_>>());
        }
        let units: Vec<decode::Unit<'_, '_>> =
            modules.iter().zip(parsed).map(|(&(name, src), p)| decode::Unit { name, ast: &p.module, lines: ptxsim_syntax::LineIndex::new(src) }).collect();
        if link {
            decode::link::check(&units, &called).map_err(|m| RunError::new(TrapKind::LoadError, m))?;
        }
        let name = modules.iter().map(|m| m.0).collect::<Vec<_>>().join(", ");
        let limit = self.limits.global_cap();
        let mem = &mut self.mem;
        let mut addrs = Vec::new();
        let mut refused = false;
        let mut alloc = |size: u64, _align: u64| {
            let a = mem.alloc(size, limit);
            refused |= a.is_none();
            addrs.extend(a);
            a
        };
        let decoded = decode::decode_units(&units, link, devrt, &mut alloc);
        let (mut prog, inits) = match decoded {
            Ok(d) => d,
            Err(m) if refused => {
                return Err(RunError::new(
                    TrapKind::OutOfMemory,
                    format!("{name}: {m}: {} bytes of global memory are allocated and the limit is {limit} bytes (--max-memory)", self.mem.total),
                ))
            }
            Err(m) if link => return Err(RunError::new(TrapKind::LoadError, m)),
            Err(m) => return Err(RunError::new(TrapKind::LoadError, format!("{name}: {m}"))),
        };
        datapath::attach_kernels(&mut prog);
        // Module variables are allocated in declaration order (an `.extern`
        // one, when linking, is another module's).
        let vars = parsed.iter().flat_map(|p| p.module.items.iter()).filter_map(|i| match i {
            Item::Var(v) if v.space.value == StateSpace::Global && !(link && v.linkage.map(|l| l.value) == Some(Linkage::Extern)) => Some(v),
            _ => None,
        });
        let names: Vec<String> = vars.flat_map(|v| v.declarators.iter().map(|d| d.name.text.to_string())).collect();
        let globals: Vec<(String, u64)> = if names.len() == addrs.len() { names.into_iter().zip(addrs).collect() } else { Vec::new() };
        for (n, a) in &globals {
            self.names.insert(*a, format!("`.global` variable `{n}`"));
        }
        // One limit on local storage, at load as at run time.
        let cap = self.limits.local_bytes_per_thread;
        if let Some(f) = prog.functions.iter().find(|f| f.defined && f.frame_bytes > cap) {
            return Err(RunError {
                function: Some(f.name.clone()),
                line: Some(f.line),
                ..RunError::new(
                    TrapKind::OutOfMemory,
                    format!(
                        "local memory exceeds its limit of {cap} bytes per thread: the frame of `{}` ({} bytes of `.local` and `.param` variables) does not fit",
                        f.name, f.frame_bytes
                    ),
                )
            });
        }
        for (addr, bytes) in &inits {
            if !self.mem.write_bytes(*addr, bytes) {
                return Err(RunError::new(TrapKind::LoadError, "internal: initialiser outside its allocation"));
            }
        }
        // The device heap is reserved when the first module that calls
        // `malloc`/`free` is loaded, as CUDA does.
        let uses_heap = prog.functions.iter().any(|f| f.code.iter().any(|i| matches!(i.op, program::Op::Malloc { .. } | program::Op::Free { .. })));
        if uses_heap {
            if let Err(e) = self.reserve_heap() {
                for (_, a) in &globals {
                    self.names.remove(a);
                    self.mem.free(*a);
                }
                return Err(RunError::new(e.kind, format!("{name}: {}", e.message)));
            }
        }
        let consts = Arc::new(prog.const_init.clone());
        Ok(Module { program: Arc::new(prog), consts, globals, uses_heap, tier: None })
    }

    pub fn load(&mut self, src: &str) -> Result<Module, RunError> {
        self.load_named("module.ptx", src)
    }

    /// Allocates `bytes` of zeroed global memory; returns its device address.
    pub fn alloc(&mut self, bytes: u64) -> Result<u64, RunError> {
        let cap = self.limits.global_cap();
        self.mem.alloc(bytes, cap).ok_or_else(|| {
            RunError::new(
                TrapKind::OutOfMemory,
                format!("cannot allocate {bytes} bytes of global memory: {} bytes are allocated and the limit is {cap} bytes (--max-memory)", self.mem.total),
            )
        })
    }

    /// Frees an allocation that [`Device::alloc`] returned (not a module's
    /// `.global` variable). Its bytes count against the memory limit no
    /// more; its addresses are never reused, so a kernel that still uses
    /// them traps `out_of_bounds`. Freeing anything else, or twice, is an
    /// error and changes nothing.
    pub fn free(&mut self, addr: u64) -> Result<(), RunError> {
        if let Some(what) = self.names.get(&addr) {
            return Err(RunError::new(TrapKind::InvalidLaunch, format!("{addr:#x} is {what}, not an allocation")));
        }
        if self.mem.free(addr) {
            Ok(())
        } else {
            Err(RunError::new(TrapKind::InvalidLaunch, format!("{addr:#x} is not the start of a live allocation (freed already, or never allocated)")))
        }
    }

    /// The device heap's size (`CU_LIMIT_MALLOC_HEAP_SIZE`): the size it
    /// has, or will have when a module that calls `malloc` is loaded.
    pub fn heap_size(&self) -> u64 {
        self.limits.malloc_heap_bytes
    }

    /// Sets the device heap's size. Refused (`invalid_launch`) once a kernel
    /// of a module that calls `malloc`/`free` has been launched, as CUDA
    /// refuses `cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE)` then. Before that,
    /// a reserved heap (nothing allocated in it yet) is reserved again with
    /// the new size; `out_of_memory`, with the old size kept, when that does
    /// not fit the memory limit.
    pub fn set_heap_size(&mut self, bytes: u64) -> Result<(), RunError> {
        if self.mem.heap.in_use() {
            return Err(RunError::new(
                TrapKind::InvalidLaunch,
                "the device heap's size cannot change: a kernel that calls `malloc` or `free` has been launched since it was reserved",
            ));
        }
        let old = self.limits.malloc_heap_bytes;
        if self.mem.heap.reservation().is_none() {
            self.limits.malloc_heap_bytes = bytes;
            return Ok(());
        }
        self.release_heap();
        self.limits.malloc_heap_bytes = bytes;
        if let Err(e) = self.reserve_heap() {
            self.limits.malloc_heap_bytes = old;
            self.reserve_heap()?;
            return Err(e);
        }
        Ok(())
    }

    /// Frees the device heap with every block in it (a context going away);
    /// the next module that calls `malloc` reserves it again, and its size
    /// may change until then.
    pub fn release_heap(&mut self) {
        if let Some(base) = self.mem.heap.release() {
            self.names.remove(&base);
            self.mem.free(base);
        }
    }

    /// Readies the device for a module loaded before and loaded again
    /// without decoding (a cache of decoded modules): a module that calls
    /// `malloc`/`free` reserves the device heap, as its first load did.
    /// `out_of_memory` when the heap does not fit.
    pub fn reload(&mut self, module: &Module) -> Result<(), RunError> {
        if module.uses_heap {
            self.reserve_heap()?;
        }
        Ok(())
    }

    /// Reserves the device heap, if not reserved yet: one global
    /// allocation of [`Limits::malloc_heap_bytes`].
    fn reserve_heap(&mut self) -> Result<(), RunError> {
        if self.mem.heap.reservation().is_some() {
            return Ok(());
        }
        let bytes = self.limits.malloc_heap_bytes;
        let cap = self.limits.global_cap();
        let base = self.mem.alloc(bytes, cap).ok_or_else(|| {
            RunError::new(
                TrapKind::OutOfMemory,
                format!(
                    "cannot reserve the device heap of {bytes} bytes (`malloc`): {} bytes of global memory are allocated and the limit is {cap} bytes (--max-memory)",
                    self.mem.total
                ),
            )
        })?;
        self.mem.heap.reserve(base, bytes);
        self.names.insert(base, "the device heap (`malloc`)".to_string());
        Ok(())
    }

    /// Places a zeroed allocation of `size` bytes at address `addr` (host
    /// memory the driver maps at the host's own address): 8-byte aligned,
    /// outside the reserved ranges, overlapping no live allocation, within
    /// the memory limit ([`memory::GlobalMemory::alloc_at`]). Freed with
    /// [`Device::free`]; the address may then be placed again.
    pub fn alloc_at(&mut self, addr: u64, size: u64) -> Result<(), PlaceError> {
        let cap = self.limits.global_cap();
        self.mem.alloc_at(addr, size, cap)
    }

    /// Bytes of global memory allocated (allocations, placed ranges and
    /// module variables).
    pub fn allocated_bytes(&self) -> u64 {
        self.mem.total
    }

    /// Copies host bytes to device memory through a shared reference (the
    /// words are atomics), so it may run while launches hold the device.
    pub fn store(&self, addr: u64, bytes: &[u8]) -> Result<(), RunError> {
        if self.mem.write_bytes(addr, bytes) {
            Ok(())
        } else {
            Err(RunError::new(TrapKind::OutOfBounds, format!("host write of {} bytes at {addr:#x} {}", bytes.len(), self.explain(addr, bytes.len() as u64))))
        }
    }

    /// Copies device memory into `out` (no intermediate buffer).
    pub fn read_into(&self, addr: u64, out: &mut [u8]) -> Result<(), RunError> {
        if self.mem.read_into(addr, out) {
            Ok(())
        } else {
            Err(RunError::new(TrapKind::OutOfBounds, format!("host read of {} bytes at {addr:#x} {}", out.len(), self.explain(addr, out.len() as u64))))
        }
    }

    /// Copies host bytes to device memory.
    pub fn write(&mut self, addr: u64, bytes: &[u8]) -> Result<(), RunError> {
        if self.mem.write_bytes(addr, bytes) {
            Ok(())
        } else {
            Err(RunError::new(TrapKind::OutOfBounds, format!("host write of {} bytes at {addr:#x} {}", bytes.len(), self.explain(addr, bytes.len() as u64))))
        }
    }

    /// Copies device memory back to the host.
    pub fn read(&self, addr: u64, len: u64) -> Result<Vec<u8>, RunError> {
        self.mem
            .read_bytes(addr, len)
            .ok_or_else(|| RunError::new(TrapKind::OutOfBounds, format!("host read of {len} bytes at {addr:#x} {}", self.explain(addr, len))))
    }

    /// The bytes of the allocation holding `addr` from `addr` to its end (0
    /// when no allocation holds it): one binary search.
    pub fn bytes_from(&self, addr: u64) -> u64 {
        self.mem.find(addr, 1).map(|i| {
            let a = &self.mem.allocs[i];
            a.base + a.size - addr
        }).unwrap_or(0)
    }

    /// Where a host access misses: the nearest allocation and the distance.
    fn explain(&self, addr: u64, len: u64) -> String {
        let global: Vec<(u64, u64, String)> =
            self.mem.allocs.iter().map(|a| (a.base, a.size, self.names.get(&a.base).cloned().unwrap_or_else(|| "a device allocation".to_string()))).collect();
        memory::explain_global(&global, addr, len)
    }
}

//! Each kernel's static shared memory, as ptxas allocates it: the
//! module-scope `.shared` variables the kernel names or a function it may
//! call names, those functions' own `.shared` variables, and the kernel's
//! own ([`Function::shared_bytes`]). nvcc writes a kernel's `__shared__`
//! arrays as module-scope variables, so in a module of several kernels
//! each one counts only its own, not the sum of all (which the CTA layout
//! still reserves: every variable keeps one offset for every kernel).

use crate::program::{Callee, Function, Op};

/// What one function's body takes of shared memory.
pub(super) struct Uses {
    /// Offsets of the module-scope variables it names.
    pub shared: Vec<u64>,
    /// Bytes of its own (function-scope) `.shared` variables.
    pub own: u64,
}

/// Sets [`Function::shared_bytes`] of every kernel of `functions`
/// (`uses` by function id, `vars` the module-scope variables of each
/// unit: offset, size, alignment).
pub(super) fn kernel_shared_bytes(functions: &mut [Function], uses: &[Uses], vars: &[&[(u64, u64, u64)]]) {
    let n = functions.len();
    for k in 0..n {
        if !functions[k].is_kernel {
            continue;
        }
        // The functions the kernel may reach: direct callees, the allowed
        // targets of an indirect call, and every function for an indirect
        // call without a list.
        let mut seen = vec![false; n];
        let mut stack = vec![k];
        seen[k] = true;
        while let Some(f) = stack.pop() {
            for ins in &functions[f].code {
                let Op::Call { callee, .. } = &ins.op else { continue };
                let next: Vec<usize> = match callee {
                    Callee::Direct(id) => vec![*id as usize],
                    Callee::Indirect { allowed: Some(list), .. } => list.iter().map(|&id| id as usize).collect(),
                    Callee::Indirect { allowed: None, .. } => (0..n).collect(),
                };
                for g in next {
                    if g < n && !seen[g] {
                        seen[g] = true;
                        stack.push(g);
                    }
                }
            }
        }
        // The module variables named, packed in offset order with their
        // alignments, then the functions' own.
        // (Offsets are the program's, across the units of a link.)
        let mut used: Vec<u64> = (0..n).filter(|&f| seen[f]).flat_map(|f| uses.get(f).map(|u| u.shared.iter().copied()).into_iter().flatten()).collect();
        used.sort_unstable();
        used.dedup();
        let mut bytes = 0u64;
        for off in used {
            if let Some(&(_, size, align)) = vars.iter().flat_map(|v| v.iter()).find(|v| v.0 == off) {
                bytes = bytes.div_ceil(align.max(1)) * align.max(1) + size;
            }
        }
        for f in (0..n).filter(|&f| seen[f]) {
            if let Some(u) = uses.get(f).filter(|u| u.own > 0) {
                bytes = bytes.div_ceil(16) * 16 + u.own;
            }
        }
        functions[k].shared_bytes = bytes.min(u32::MAX as u64) as u32;
    }
}

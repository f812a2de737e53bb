//! Each kernel's static shared memory, as ptxas allocates it: the
//! module-scope `.shared` variables the kernel names or a function it may
//! call names, those functions' own `.shared` variables, and the kernel's
//! own ([`Function::shared_bytes`]). nvcc writes a kernel's `__shared__`
//! arrays as module-scope variables, so in a module of several kernels
//! each one counts only its own, not the sum of all (which the CTA layout
//! still reserves: every variable keeps one offset for every kernel).

use crate::program::{Callee, Function, Op};
use std::collections::{HashMap, HashSet};

/// What one function's body takes of shared memory.
pub(super) struct Uses {
    /// Offsets of the module-scope variables it names.
    pub shared: Vec<u64>,
    /// Bytes of its own (function-scope) `.shared` variables.
    pub own: u64,
}

/// Sets [`Function::shared_bytes`] of every kernel of `functions`
/// (`uses` by function id, `vars` the module-scope variables of each
/// unit: offset, size, alignment). Linear in what each kernel reaches (a
/// module of many kernels that call nothing costs no more than its code).
pub(super) fn kernel_shared_bytes(functions: &mut [Function], uses: &[Uses], vars: &[&[(u64, u64, u64)]]) {
    let n = functions.len();
    // (Offsets are the program's, across the units of a link.)
    let sizes: HashMap<u64, (u64, u64)> = vars.iter().flat_map(|v| v.iter()).map(|&(o, s, a)| (o, (s, a.max(1)))).collect();
    let bytes_of = |reached: &mut dyn Iterator<Item = usize>| -> u64 {
        let reached: Vec<usize> = reached.collect();
        // The module variables named, packed in offset order with their
        // alignments, then the functions' own.
        let mut used: Vec<u64> = reached.iter().filter_map(|&f| uses.get(f)).flat_map(|u| u.shared.iter().copied()).collect();
        used.sort_unstable();
        used.dedup();
        let mut bytes = 0u64;
        for off in used {
            if let Some(&(size, align)) = sizes.get(&off) {
                bytes = bytes.div_ceil(align) * align + size;
            }
        }
        for u in reached.iter().filter_map(|&f| uses.get(f)).filter(|u| u.own > 0) {
            bytes = bytes.div_ceil(16) * 16 + u.own;
        }
        bytes
    };
    let mut everything_bytes: Option<u64> = None;
    let is_kernel: Vec<bool> = functions.iter().map(|f| f.is_kernel).collect();
    for k in 0..n {
        if !functions[k].is_kernel {
            continue;
        }
        // The functions the kernel may reach: direct callees, the allowed
        // targets of an indirect call; an indirect call without a list may
        // reach any function.
        let mut reached = vec![k];
        let mut seen: HashSet<usize> = HashSet::from([k]);
        let mut everything = false;
        let mut i = 0;
        'walk: while i < reached.len() {
            let f = reached[i];
            i += 1;
            for ins in &functions[f].code {
                let Op::Call { callee, .. } = &ins.op else { continue };
                match callee {
                    Callee::Direct(id) => {
                        if (*id as usize) < n && seen.insert(*id as usize) {
                            reached.push(*id as usize);
                        }
                    }
                    Callee::Indirect { allowed: Some(list), .. } => {
                        for &id in list {
                            if (id as usize) < n && seen.insert(id as usize) {
                                reached.push(id as usize);
                            }
                        }
                    }
                    Callee::Indirect { allowed: None, .. } => {
                        everything = true;
                        break 'walk;
                    }
                }
            }
        }
        let bytes = if everything {
            // Every device function (kernels are not called), then the
            // kernel's own.
            let all = *everything_bytes.get_or_insert_with(|| bytes_of(&mut (0..n).filter(|&f| !is_kernel[f])));
            match uses.get(k).map_or(0, |u| u.own) {
                0 => all,
                own => all.div_ceil(16) * 16 + own,
            }
        } else {
            bytes_of(&mut reached.into_iter())
        };
        functions[k].shared_bytes = bytes.min(u32::MAX as u64) as u32;
    }
}

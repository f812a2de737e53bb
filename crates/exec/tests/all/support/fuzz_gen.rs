//! The engine tests' generator of structured random kernels (`engine.rs`'s
//! fuzzing, and `ptxsim-jit`'s differential test of the same programs with
//! the compiling tier on): arithmetic on lane-derived values, divergent
//! if/else, bounded loops, `brx.idx`, direct and indirect calls, early
//! exits and barriers.

#![allow(dead_code)]

const HEADER: &str = ".version 7.8\n.target sm_70\n.address_size 64\n";

/// A kernel `k(.param .u64 out)` around `body` (which leaves each thread's
/// result in `%a`, stored to `out[tid]`), after the functions `funcs`.
pub fn kernel(body: &str, funcs: &str) -> String {
    format!(
        "{HEADER}{funcs}\n.visible .entry k(.param .u64 out)\n{{\n.reg .pred %p, %q;\n.reg .u32 %t, %a, %b, %c, %i, %j;\n.reg .u64 %o, %x;\nld.param.u64 %o, [out];\nmov.u32 %t, %tid.x;\nmul.wide.u32 %x, %t, 4;\nadd.u64 %o, %o, %x;\n{body}\nst.global.u32 [%o], %a;\nret;\n}}\n"
    )
}

/// A tiny generator of structured random kernels: arithmetic on lane-derived
/// values, divergent if/else, bounded loops, brx.idx, and direct calls.
pub struct Gen(pub u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn reg(&mut self) -> String {
        format!("%v{}", self.pick(6))
    }
    fn stmt(&mut self, depth: u32, label: &mut u32, out: &mut String) {
        let k = if depth > 3 { self.pick(4) } else { self.pick(12) };
        match k {
            9 => {
                // A divergent early exit (the thread's output stays 0).
                let a = self.reg();
                out.push_str(&format!("and.b32 %tmp, {a}, 15;\nsetp.eq.u32 %pp, %tmp, {};\n@%pp exit;\n", self.pick(16)));
            }
            10 => {
                // A per-lane indirect call through a .calltargets list.
                *label += 1;
                let l = *label;
                let (d, a) = (self.reg(), self.reg());
                out.push_str(&format!(
                    "mov.u64 %fp, fz;\nand.b32 %tmp, {a}, 1;\nsetp.ne.u32 %pp, %tmp, 0;\n@%pp mov.u64 %fp, fw;\nft{l}: .calltargets fz, fw;\ncall ({d}), %fp, ({a}), ft{l};\n"
                ));
            }
            11 if depth == 0 => {
                // A CTA barrier outside any divergent region; threads that
                // exited earlier release it.
                out.push_str("bar.sync 0;\n");
            }
            0 | 1 => {
                let ops = ["add.u32", "sub.u32", "mul.lo.u32", "xor.b32", "and.b32", "or.b32", "shl.b32", "shr.u32", "min.s32", "max.u32"];
                let op = ops[self.pick(ops.len() as u64) as usize];
                let (d, a) = (self.reg(), self.reg());
                let b = if self.pick(2) == 0 { self.reg() } else { format!("{}", self.pick(40)) };
                out.push_str(&format!("{op} {d}, {a}, {b};\n"));
            }
            2 => {
                let (d, a) = (self.reg(), self.reg());
                out.push_str(&format!("setp.lt.u32 %pp, {a}, {};\nselp.u32 {d}, {a}, {}, %pp;\n", self.pick(50), self.pick(9)));
            }
            3 => {
                let (d, a) = (self.reg(), self.reg());
                out.push_str(&format!("call ({d}), fz, ({a});\n"));
            }
            4 | 5 => {
                *label += 1;
                let l = *label;
                let a = self.reg();
                out.push_str(&format!("and.b32 %tmp, {a}, {};\nsetp.ne.u32 %pp, %tmp, 0;\n@%pp bra ELSE{l};\n", 1 + self.pick(7)));
                for _ in 0..1 + self.pick(3) {
                    self.stmt(depth + 1, label, out);
                }
                out.push_str(&format!("bra JOIN{l};\nELSE{l}:\n"));
                for _ in 0..1 + self.pick(3) {
                    self.stmt(depth + 1, label, out);
                }
                out.push_str(&format!("JOIN{l}:\n"));
            }
            6 | 7 => {
                *label += 1;
                let l = *label;
                let c = format!("%c{depth}");
                let a = self.reg();
                out.push_str(&format!("and.b32 {c}, {a}, 7;\nLOOP{l}:\nsetp.eq.u32 %pp, {c}, 0;\n@%pp bra DONE{l};\nsub.u32 {c}, {c}, 1;\n"));
                for _ in 0..1 + self.pick(3) {
                    self.stmt(depth + 1, label, out);
                }
                out.push_str(&format!("bra LOOP{l};\nDONE{l}:\n"));
            }
            _ => {
                *label += 1;
                let l = *label;
                let a = self.reg();
                out.push_str(&format!("rem.u32 %tmp, {a}, 3;\nbt{l}: .branchtargets C{l}a, C{l}b, C{l}c;\nbrx.idx %tmp, bt{l};\nC{l}a:\n"));
                self.stmt(depth + 1, label, out);
                out.push_str(&format!("bra E{l};\nC{l}b:\n"));
                self.stmt(depth + 1, label, out);
                out.push_str(&format!("bra E{l};\nC{l}c:\n"));
                self.stmt(depth + 1, label, out);
                out.push_str(&format!("E{l}:\n"));
            }
        }
    }
    pub fn program(&mut self) -> String {
        let mut body = String::new();
        let mut label = 0;
        for i in 0..6 {
            body.push_str(&format!("mul.lo.u32 %v{i}, %t, {};\nadd.u32 %v{i}, %v{i}, {};\n", 1 + self.pick(13), self.pick(100)));
        }
        for _ in 0..3 + self.pick(6) {
            self.stmt(0, &mut label, &mut body);
        }
        body.push_str("add.u32 %a, %v0, %v1;\nxor.b32 %a, %a, %v2;\nadd.u32 %a, %a, %v3;\nxor.b32 %a, %a, %v4;\nadd.u32 %a, %a, %v5;\n");
        let funcs = ".func (.reg .u32 r) fz(.reg .u32 x)\n{\n.reg .pred %q;\nsetp.gt.u32 %q, x, 20;\n@%q mov.u32 r, 3;\n@%q ret;\nmad.lo.u32 r, x, 5, 1;\nret;\n}\n.func (.reg .u32 r) fw(.reg .u32 x)\n{\nxor.b32 r, x, 0x55;\nret;\n}";
        let decl = ".reg .u32 %v<6>, %tmp, %c0, %c1, %c2, %c3, %c4, %c5;\n.reg .pred %pp;\n.reg .u64 %fp;\n";
        kernel(&format!("{decl}{body}"), funcs)
    }
}


//! The instruction description's control-flow column agrees with what the
//! analysis does: for every row, an instruction of that opcode is a branch,
//! an indirect branch, a way out of the function, or a call site exactly
//! when its row says so.

use ptxsim_analysis::callgraph::CallGraph;
use ptxsim_analysis::cfg::{terminator, Terminator};
use ptxsim_analysis::FlatFunction;
use ptxsim_isa::{Flow, OPS};
use ptxsim_syntax::ast::Item;

/// A module whose kernel runs `line` (with a label, a `.branchtargets` list
/// and a callee in scope).
fn module(line: &str) -> String {
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n.func g()\n{{\nret;\n}}\n.visible .entry k()\n{{\n.reg .b32 %r<4>;\n.reg .pred %p<2>;\nts: .branchtargets L0;\nL0:\n{line}\nret;\n}}\n"
    )
}

#[test]
fn every_rows_flow_is_what_the_analysis_sees() {
    for row in OPS {
        // Operands of the shape the analysis reads for each kind; the
        // opcode is the row's own (a row naming a form, `mul.wide`, is
        // written as that form).
        let (op, mods) = row.op.split_once('.').map_or((row.op, String::new()), |(o, m)| (o, format!(".{m}")));
        let operands = match row.flow {
            Flow::Branch => " L0",
            Flow::IndirectBranch => " %r1, ts",
            Flow::Call => " g",
            _ => "",
        };
        let src = module(&format!("{op}{mods}{operands};"));
        let parsed = ptxsim_syntax::parse(&src);
        assert!(!parsed.has_errors(), "`{}`: {:?}", row.op, parsed.diagnostics);
        let f = parsed.module.items.iter().filter_map(|i| match i {
            Item::Function(f) if f.name.text == "k" => Some(f),
            _ => None,
        });
        let f = f.last().expect("kernel");
        let flat = FlatFunction::new(f).expect("flattens");
        let i = flat.instrs.iter().find(|i| i.opcode.text == op).expect("the instruction");
        let t = terminator(&flat, i);
        let ok = match row.flow {
            Flow::Branch => matches!(t, Terminator::Branch { .. }),
            Flow::IndirectBranch => matches!(t, Terminator::IndirectBranch { .. }),
            Flow::Ret | Flow::Exit | Flow::Trap => matches!(t, Terminator::Leave { .. }),
            Flow::Seq | Flow::Call | Flow::Barrier => t == Terminator::None,
        };
        assert!(ok, "`{}` is {:?} in its row but the CFG sees {t:?}", row.op, row.flow);
        let sites = CallGraph::new(&parsed.module).functions.iter().find(|(n, _)| n == "k").map(|(_, s)| s.len()).unwrap_or(0);
        assert_eq!(sites == 1, row.flow == Flow::Call, "`{}`: {sites} call sites", row.op);
    }
}

/// A typed row's operand roles say what the analysis defines and uses: a
/// merging video destination (`d.b1`) is written, `c` read; `lop3`'s `d|p`
/// both written, `q` read.
#[test]
fn typed_rows_define_what_their_roles_say() {
    use ptxsim_analysis::insn::{InsnInfo, RegTable};
    let cases = [
        ("vadd.u32.u32.u32 %r0.b1, %r1.h0, %r2, %r3;", vec!["%r0"], vec!["%r1", "%r2", "%r3"]),
        ("vmad.s32.s32.s32 %r0, -%r1, %r2.b3, %r3;", vec!["%r0"], vec!["%r1", "%r2", "%r3"]),
        ("lop3.or.b32 %r0|%p0, %r1, %r2, %r3, 0xfe, !%p1;", vec!["%r0", "%p0"], vec!["%r1", "%r2", "%r3", "%p1"]),
        ("shf.l.wrap.b32 %r3, %r1, %r2, %r0;", vec!["%r3"], vec!["%r1", "%r2", "%r0"]),
    ];
    for (line, defs, uses) in cases {
        let src = module(line);
        let parsed = ptxsim_syntax::parse(&src);
        assert!(!parsed.has_errors(), "`{line}`: {:?}", parsed.diagnostics);
        let f = parsed.module.items.iter().filter_map(|i| match i {
            Item::Function(f) if f.name.text == "k" => Some(f),
            _ => None,
        });
        let flat = FlatFunction::new(f.last().expect("kernel")).expect("flattens");
        let regs = RegTable::new(&flat);
        let op = line.split('.').next().unwrap_or("");
        let i = flat.instrs.iter().find(|i| i.opcode.text == op).expect("the instruction");
        let info = InsnInfo::new(&flat, &regs, i);
        let names = |v: &[u32]| v.iter().map(|r| regs.name(*r)).collect::<Vec<_>>();
        assert_eq!(names(&info.defs), defs, "`{line}` defines");
        assert_eq!(names(&info.uses), uses, "`{line}` uses");
    }
}

//! The call graph on the seeds' call examples (PTX ISA 9.7.12.5 call): the
//! callees of direct calls, of indirect calls through a `.calltargets` list
//! and through a jump table (both `flist`), and the candidates of a call
//! through a `.callprototype` (the functions whose address is taken).
//! Expected callees are read off the seed files by hand.

use ptxsim_analysis::callgraph::{CallGraph, Callees};
use std::path::Path;

fn graph(seed: &str) -> CallGraph {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/seeds").join(seed);
    let text = std::fs::read_to_string(&path).expect("seed file");
    let parsed = ptxsim_syntax::parse(&text);
    assert!(!parsed.has_errors(), "{seed} parses");
    CallGraph::new(&parsed.module)
}

fn callees_of(g: &CallGraph, func: &str) -> Vec<Callees> {
    g.functions.iter().find(|(n, _)| n == func).unwrap_or_else(|| panic!("no function {func}")).1.iter().map(|s| s.callees.clone()).collect()
}

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn direct_calls() {
    // `@p call init;`, `call.uni g, (a);`, `@p call (d), h, (a, b);`
    let g = graph("call_direct.ptx");
    assert_eq!(callees_of(&g, "call_direct"), vec![Callees::Direct("init".into()), Callees::Direct("g".into()), Callees::Direct("h".into())]);
    assert!(g.address_taken.is_empty());
}

#[test]
fn calltargets_list() {
    // `Ftgt: .calltargets foo, bar, baz;  call (retval), %r0, (x, y), Ftgt;`
    let g = graph("call_calltargets.ptx");
    assert_eq!(callees_of(&g, "call_calltargets"), vec![Callees::Targets(names(&["foo", "bar", "baz"]))]);
}

#[test]
fn jump_table() {
    // `.global .u64 jmptbl[5] = { foo, bar, baz };  call (retval), %r0, (x, y), jmptbl;`
    let g = graph("call_jmptbl.ptx");
    assert_eq!(callees_of(&g, "call_jmptbl"), vec![Callees::Targets(names(&["foo", "bar", "baz"]))]);
    assert_eq!(g.address_taken, names(&["bar", "baz", "foo"]));
}

#[test]
fn callprototype_candidates_are_the_address_taken_functions() {
    // `mov.u64 %fp, store_max; @p mov.u64 %fp, store_sum; call dispatch, (%fp, %t);`
    // and in dispatch: `call fptr, (x, y), Fproto;`
    let g = graph("call_callprototype.ptx");
    assert_eq!(callees_of(&g, "call_callprototype"), vec![Callees::Direct("dispatch".into())]);
    assert_eq!(callees_of(&g, "dispatch"), vec![Callees::Prototype { candidates: names(&["store_max", "store_sum"]).into() }]);
    assert!(callees_of(&g, "store_sum").is_empty());
}

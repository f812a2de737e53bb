use ptxsim_analysis::{FlatFunction, FunctionAnalysis, Reconvergence};
use ptxsim_syntax::ast::Item;

#[test]
fn diamond_reconverges_at_join() {
    let src = r#"
.version 7.8
.target sm_70
.address_size 64
.entry k() {
    .reg .pred %p;
    .reg .b32 %r;
    mov.u32 %r, %tid.x;
    setp.lt.u32 %p, %r, 16;
    @%p bra THEN;
    add.u32 %r, %r, 1;
    bra JOIN;
THEN:
    add.u32 %r, %r, 2;
JOIN:
    ret;
}
"#;
    let parsed = ptxsim_syntax::parse(src);
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    let Item::Function(f) = &parsed.module.items[3] else { panic!() };
    let flat = FlatFunction::new(f).unwrap();
    let a = FunctionAnalysis::new(&flat);
    // Instruction 2 is `@%p bra THEN`; JOIN is instruction 6 (`ret`).
    assert_eq!(a.reconvergence[2], Some(Reconvergence::At(6)));
    // The unconditional `bra JOIN` at 4 has its ipdom at JOIN too.
    assert_eq!(a.reconvergence[4], Some(Reconvergence::At(6)));
}

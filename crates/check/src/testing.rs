//! The unit tests' way to check a module: one kernel around a body, and
//! the codes of the errors the checker reports on it.

/// A module of one kernel `k` under `.version version`, `.target target`
/// and `.address_size 64`: `module` at module scope, then the kernel's
/// `body` (declarations and instructions) and a `ret`.
pub(crate) fn kernel(version: &str, target: &str, module: &str, body: &str) -> String {
    format!(".version {version}\n.target {target}\n.address_size 64\n{module}\n.visible .entry k()\n{{\n{body}\nret;\n}}\n")
}

/// The codes of the errors in `src`, which must parse, in order.
pub(crate) fn errors(src: &str) -> Vec<String> {
    let parsed = ptxsim_syntax::parse(src);
    assert!(!parsed.has_errors(), "{src}: {:?}", parsed.diagnostics);
    crate::check_module(&parsed.module).into_iter().filter(|d| d.is_error()).map(|d| d.code.to_string()).collect()
}

/// The code of the first error in `src`, which must parse; `None` where it
/// checks clean.
pub(crate) fn first_error(src: &str) -> Option<String> {
    errors(src).into_iter().next()
}

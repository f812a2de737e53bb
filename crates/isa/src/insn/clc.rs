//! The row `clusterlaunchcontrol` (PTX ISA 9.7.13.17, PTX 8.6, sm_100):
//! its modifier choices, which combinations the manual allows
//! ([`Insn::clc_misfit`], as ptxas 13.5 judges them at `-arch=sm_100a`),
//! and their decode tests. The engine does not model cluster launch
//! control (its row says so). The syntax:
//!
//! ```text
//! clusterlaunchcontrol.try_cancel.async{.shared::cta}.mbarrier::complete_tx::bytes{.multicast::cluster::all}.b128 [addr], [mbar];
//! clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 pred, response;
//! clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {x, y, z, _}, response;
//! clusterlaunchcontrol.query_cancel.get_first_ctaid::{x,y,z}.b32.b128 reg, response;
//! ```

use super::{Insn, Misfit};
use ptxsim_syntax::ast::ScalarType;

crate::choices! {
    /// The operation of a `clusterlaunchcontrol`, written right after the opcode.
    pub enum ClcOp "cluster launch control operation" { TryCancel = ".try_cancel", QueryCancel = ".query_cancel" }
    /// The state space of `try_cancel`'s response.
    pub enum ClcSpace "state space" { SharedCta = ".shared::cta" }
    /// What `query_cancel` reads from a response.
    pub enum ClcQuery "query" {
        IsCanceled = ".is_canceled",
        GetFirstCtaid = ".get_first_ctaid",
        X = ".get_first_ctaid::x",
        Y = ".get_first_ctaid::y",
        Z = ".get_first_ctaid::z",
    }
    /// The vector of `query_cancel.get_first_ctaid`.
    pub enum ClcVec "vector" { V4 = ".v4" }
}

impl ClcOp {
    /// The spelling of `try_cancel`'s `.async` (which follows it).
    pub const ASYNC: &'static str = ".async";
}

const ASYNC: &str = ClcOp::ASYNC;
const MBAR: &str = ".mbarrier::complete_tx::bytes";
const MULTICAST: &str = ".multicast::cluster::all";

impl Insn {
    /// Why a `clusterlaunchcontrol` is not a form the manual has (the
    /// modifier at fault, `""` for the whole instruction); `None` when it
    /// is one, and for every other row.
    pub fn clc_misfit(&self) -> Option<Misfit> {
        use ScalarType::*;
        let Insn::Clusterlaunchcontrol { op, is_async, space, mbar, multicast, query, vec, type1, type2 } = *self else { return None };
        let no = |modifier: &'static str, why: String| Some(Misfit { modifier, why });
        match op {
            ClcOp::TryCancel => {
                if !is_async {
                    return no("", "`clusterlaunchcontrol.try_cancel` is asynchronous: `.try_cancel.async`".into());
                }
                if let Some(q) = query {
                    return no(q.as_str(), format!("`{}` is a query of `clusterlaunchcontrol.query_cancel`", q.as_str()));
                }
                if let Some(v) = vec {
                    return no(v.as_str(), "`clusterlaunchcontrol.try_cancel` takes no vector".into());
                }
                if !mbar {
                    return no("", "`clusterlaunchcontrol.try_cancel.async` completes on an mbarrier: `.mbarrier::complete_tx::bytes`".into());
                }
                if (type1, type2) != (Some(B128), None) {
                    return no("", "`clusterlaunchcontrol.try_cancel.async` takes one type, `.b128`".into());
                }
                None
            }
            ClcOp::QueryCancel => {
                let other = if is_async {
                    Some(ASYNC)
                } else if mbar {
                    Some(MBAR)
                } else if multicast {
                    Some(MULTICAST)
                } else {
                    space.map(|s| s.as_str())
                };
                if let Some(m) = other {
                    return no(m, format!("`{m}` is a modifier of `clusterlaunchcontrol.try_cancel`, not of `query_cancel`"));
                }
                let Some(q) = query else { return no("", "`clusterlaunchcontrol.query_cancel` names its query: `.is_canceled`, `.get_first_ctaid` or `.get_first_ctaid::{x,y,z}`".into()) };
                let (want_vec, want) = match q {
                    ClcQuery::IsCanceled => (false, Pred),
                    ClcQuery::GetFirstCtaid => (true, B32),
                    ClcQuery::X | ClcQuery::Y | ClcQuery::Z => (false, B32),
                };
                if vec.is_some() != want_vec || (type1, type2) != (Some(want), Some(B128)) {
                    let v = if want_vec { ".v4" } else { "" };
                    return no("", format!("`clusterlaunchcontrol.query_cancel{}` takes `{v}{}.b128`", q.as_str(), want.as_str()));
                }
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::dec;
    use crate::{ClcOp, ClcQuery, ClcSpace, ClcVec, DecodeErrorKind as K, Insn};
    use ptxsim_syntax::ast::ScalarType::*;

    fn misfit(t: &str) -> Option<&'static str> {
        dec(t).unwrap_or_else(|e| panic!("{t}: {e:?}")).clc_misfit().map(|m| m.modifier)
    }

    #[test]
    fn both_operations_decode() {
        assert_eq!(
            dec("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 [%r1], [%r2]"),
            Ok(Insn::Clusterlaunchcontrol { op: ClcOp::TryCancel, is_async: true, space: Some(ClcSpace::SharedCta), mbar: true, multicast: true, query: None, vec: None, type1: Some(B128), type2: None })
        );
        assert_eq!(
            dec("clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {%r0, %r1, %r2, _}, %q1"),
            Ok(Insn::Clusterlaunchcontrol { op: ClcOp::QueryCancel, is_async: false, space: None, mbar: false, multicast: false, query: Some(ClcQuery::GetFirstCtaid), vec: Some(ClcVec::V4), type1: Some(B32), type2: Some(B128) })
        );
        let e = |t: &str| dec(t).unwrap_err();
        // "State space incorrect for instruction 'clusterlaunchcontrol.try_cancel.async'" (ptxas 13.5).
        assert!(matches!(e("clusterlaunchcontrol.try_cancel.async.global.mbarrier::complete_tx::bytes.b128 [%r1], [%r2]"), (K::UnexpectedModifier { .. }, s) if s == ".global"));
        // "Multiple .get_first_ctaid::x modifiers specified".
        assert!(matches!(e("clusterlaunchcontrol.query_cancel.is_canceled.get_first_ctaid::x.pred.b128 %p1, %q1"), (K::Conflict { .. }, s) if s == ".get_first_ctaid::x"));
        assert!(matches!(e("clusterlaunchcontrol.query_cancel.is_canceled.u32.b128 %r1, %q1"), (K::TypeNotAllowed { .. }, s) if s == ".u32"));
    }

    /// The forms ptxas 13.5 (`-arch=sm_100a`) accepts and refuses, with its messages.
    #[test]
    fn misfits_are_the_forms_ptxas_refuses() {
        assert_eq!(misfit("clusterlaunchcontrol.try_cancel.async.mbarrier::complete_tx::bytes.b128 [%r1], [%r2]"), None);
        assert_eq!(misfit("clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p1, %q1"), None);
        assert_eq!(misfit("clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %r0, %q1"), None);
        // "Unknown modifier '.try_cancel'" (no `.async`).
        assert_eq!(misfit("clusterlaunchcontrol.try_cancel.shared::cta.mbarrier::complete_tx::bytes.b128 [%r1], [%r2]"), Some(""));
        // ".mbarrier::complete_tx::bytes modifier required for instruction 'clusterlaunchcontrol.try_cancel.async'".
        assert_eq!(misfit("clusterlaunchcontrol.try_cancel.async.shared::cta.b128 [%r1], [%r2]"), Some(""));
        // "Unexpected instruction types specified for 'clusterlaunchcontrol.try_cancel.async'".
        assert_eq!(misfit("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes [%r1], [%r2]"), Some(""));
        // "Unexpected instruction types specified for 'clusterlaunchcontrol.query_cancel'".
        assert_eq!(misfit("clusterlaunchcontrol.query_cancel.is_canceled.b128 %p1, %q1"), Some(""));
        assert_eq!(misfit("clusterlaunchcontrol.query_cancel.get_first_ctaid.b32.b128 %r0, %q1"), Some(""));
        assert_eq!(misfit("clusterlaunchcontrol.query_cancel.get_first_ctaid::y.v4.b32.b128 {%r0, %r1, %r2, _}, %q1"), Some(""));
        // "is_success or get_first_ctaid modifier required for instruction 'clusterlaunchcontrol.query_cancel'".
        assert_eq!(misfit("clusterlaunchcontrol.query_cancel.b32.b128 %r0, %q1"), Some(""));
        // "Illegal modifier '.async' for instruction 'clusterlaunchcontrol.query_cancel'".
        assert_eq!(misfit("clusterlaunchcontrol.query_cancel.is_canceled.async.pred.b128 %p1, %q1"), Some(".async"));
    }
}

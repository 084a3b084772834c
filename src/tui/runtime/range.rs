//! `t` where it runs: a PromQL request switched between an instant and a range query (the
//! last hour, a point a minute), and the words that say how it was asked. Part of the
//! runtime, the IO edge.

use crate::query::promrange::QueryRange;
use crate::query::ProbeRequest;
use crate::tui::state::QueryMode;

/// Applies `t`'s switch to a PromQL request; how it is now asked, when that differs from
/// the guide (said in the status line and recorded with the run).
pub(super) fn switch(req: &mut ProbeRequest, mode: Option<QueryMode>) -> Option<String> {
    if req.lang != crate::tsg::Lang::Promql {
        return None;
    }
    match (mode?, req.target.range) {
        (QueryMode::Range, None) => {
            req.target.range = Some(QueryRange {
                span: std::time::Duration::from_secs(3600),
                step: std::time::Duration::from_secs(60),
            });
            Some("a range query over the last 1h, step 1m (switched with t)".into())
        }
        (QueryMode::Instant, Some(_)) => {
            req.target.range = None;
            Some("an instant query (switched with t; the guide asks for a range)".into())
        }
        _ => None,
    }
}

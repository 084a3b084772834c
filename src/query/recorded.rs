//! Recorded answers for demos: a backend that answers PromQL or KQL probes from a scenario
//! file instead of a live server, and says so in every result. Used by `tsgnav demo`, where
//! no Prometheus or Kusto cluster exists; never used unless a scenario is given.

use chrono::Utc;
use futures::future::BoxFuture;
use serde::Deserialize;

use super::{Backend, Cancel, Executor, OutputSink, ProbeError, ProbeRequest, ProbeResult};
use crate::tsg::Lang;

/// The banner every recorded answer starts with.
pub const BANNER: &str = "[demo data: recorded answer, not a live query]";

/// One recorded answer: the first whose `contains` appears in the query answers it.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Answer {
    pub lang: String,
    pub contains: String,
    pub output: String,
    /// For a PromQL range query: each series' values, oldest first, spread evenly over the
    /// probe's window and ending now (so the chart looks live).
    #[serde(default)]
    pub series: Vec<RecordedSeries>,
}

/// One recorded series of a range answer.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RecordedSeries {
    #[serde(default)]
    pub labels: std::collections::BTreeMap<String, String>,
    pub values: Vec<f64>,
}

impl RecordedSeries {
    /// The points of this series over `span` seconds ending at `end` (unix seconds).
    pub fn points(&self, end: f64, span: f64) -> Vec<(f64, f64)> {
        let n = self.values.len();
        let step = if n > 1 { span / (n - 1) as f64 } else { 0.0 };
        self.values
            .iter()
            .enumerate()
            .map(|(i, v)| (end - span + step * i as f64, *v))
            .collect()
    }
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Answers {
    pub answers: Vec<Answer>,
}

impl Answers {
    /// Parses a scenario's answers file; `name` names it in the error.
    pub fn from_yaml(name: &str, text: &str) -> Result<Answers, String> {
        yaml_serde::from_str(text).map_err(|e| format!("{name}: {e}"))
    }

    /// The recorded output for `code` in `lang`, if any.
    pub fn lookup(&self, lang: Lang, code: &str) -> Option<&str> {
        self.answer(lang, code).map(|a| a.output.as_str())
    }

    /// The recorded answer for `code` in `lang`, if any.
    pub fn answer(&self, lang: Lang, code: &str) -> Option<&Answer> {
        let want = match lang {
            Lang::Promql => "promql",
            Lang::Kql => "kql",
            _ => return None,
        };
        self.answers
            .iter()
            .find(|a| a.lang == want && code.contains(&a.contains))
    }
}

/// Answers PromQL (as the prometheus backend) or KQL (as the kusto backend) from `Answers`.
#[derive(Debug, Clone)]
pub struct RecordedExecutor {
    pub backend: Backend,
    pub answers: std::sync::Arc<Answers>,
}

impl Executor for RecordedExecutor {
    fn backend(&self) -> Backend {
        self.backend
    }

    fn run(
        &self,
        req: ProbeRequest,
        mut out: OutputSink,
        _cancel: Cancel,
    ) -> BoxFuture<'_, ProbeResult> {
        Box::pin(async move {
            let started = Utc::now();
            let target = "demo scenario (recorded)".to_string();
            let mut r = ProbeResult::new(
                req.id.clone(),
                self.backend,
                target,
                req.code.clone(),
                started,
            );
            match self.answers.answer(req.lang, &req.code) {
                Some(a) => {
                    out.write_str(&format!("{BANNER}\n{}", a.output));
                    r.output = out.finish();
                    if let Some(range) = req.target.range {
                        let end = started.timestamp_millis() as f64 / 1000.0;
                        r.series = a
                            .series
                            .iter()
                            .map(|s| super::Series {
                                labels: s.labels.clone(),
                                points: s.points(end, range.span.as_secs_f64()),
                            })
                            .collect();
                    }
                }
                None => {
                    r.status = super::Status::Failed(ProbeError::Unsupported {
                        detail: "the demo scenario has no recorded answer for this query; point tsgnav at a live server to run it".into(),
                    });
                }
            }
            r.ended = Utc::now();
            r
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_matching_answer_of_the_right_language() {
        let a = Answers::from_yaml(
            "t",
            "answers:\n- {lang: promql, contains: cx_pending, output: '3'}\n- {lang: kql, contains: ControlPlaneEvents, output: rows}\n",
        )
        .expect("yaml");
        assert_eq!(
            a.lookup(Lang::Promql, "max(cx_pending_programming_ips_v2)"),
            Some("3")
        );
        assert_eq!(a.lookup(Lang::Kql, "cx_pending"), None);
        assert_eq!(
            a.lookup(Lang::Kql, "union ControlPlaneEvents"),
            Some("rows")
        );
        assert_eq!(a.lookup(Lang::Shell, "cx_pending"), None);
        assert!(Answers::from_yaml("bad.yaml", "answers: [{lang: promql}]").is_err());
    }
}

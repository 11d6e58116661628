//! ADR 0299 clause 4 and its consequences: "a degraded run must say so, or the parent
//! would read a partial answer as a complete one". A run's counts across its turn
//! boundaries (`contextCompactions`, `contextDegraded`, what was dropped), and the report
//! the parent receives: the delegate's final report, with a notice in front when the run
//! lost history.

use serde::{Deserialize, Serialize};
use tsify::Tsify;

use super::turn::DelegateTurnOutcome;
use crate::decode::decode_struct;
use crate::js_whitespace;
use crate::text_build::Owned;

/// A delegate run's counts across its turn boundaries (for the delegation summary).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct RunTally {
    /// Turn boundaries seen.
    #[serde(default)]
    #[tsify(optional)]
    pub boundaries: u32,
    /// Rewrites of the context (compactions and degradations).
    #[serde(default)]
    #[tsify(optional)]
    pub context_compactions: u32,
    /// Whether the run lost history without a complete summary (clause 4).
    #[serde(default)]
    #[tsify(optional)]
    pub context_degraded: bool,
    /// Messages the run dropped in all (neither kept nor summarized).
    #[serde(default)]
    #[tsify(optional)]
    pub dropped_messages: u64,
    /// Their estimated tokens.
    #[serde(default)]
    #[tsify(optional)]
    pub dropped_tokens: u64,
}

decode_struct!(RunTally "RunTally" {
    boundaries: "boundaries" => default,
    context_compactions: "contextCompactions" => default,
    context_degraded: "contextDegraded" => default,
    dropped_messages: "droppedMessages" => default,
    dropped_tokens: "droppedTokens" => default,
});

impl RunTally {
    /// The tally a run's next hook starts from. A run is one run across its models (ADR
    /// 0299 clauses 4 and 6): when a provider error moves it to a fallback, the hook on
    /// the fallback's budget continues the counts of the one before, so a run that
    /// degraded on its first model stays degraded and its report says so. `None`: a new
    /// run, from zero.
    pub fn continued(previous: Option<&RunTally>) -> RunTally {
        previous.cloned().unwrap_or_default()
    }

    /// Count one boundary step.
    pub fn record(&mut self, out: &DelegateTurnOutcome) {
        self.boundaries = self.boundaries.saturating_add(1);
        self.context_compactions = self
            .context_compactions
            .saturating_add(out.context_compactions);
        self.context_degraded |= out.context_degraded;
        if out.context_degraded {
            self.dropped_messages = self
                .dropped_messages
                .saturating_add(out.dropped_messages as u64);
            self.dropped_tokens = self.dropped_tokens.saturating_add(out.dropped_tokens);
        }
    }
}

/// Input of [`report_for_parent`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ReportInput {
    /// The delegate's final report (its last answer).
    pub report: String,
    /// The run's counts (`run` of the hook's reports, or your own).
    #[serde(default)]
    #[tsify(optional)]
    pub run: RunTally,
    /// The model the delegate ran on (named in the notice).
    #[serde(default)]
    #[tsify(optional)]
    pub model_id: Option<String>,
}

decode_struct!(ReportInput "ReportInput" {
    report: "report" => req,
    run: "run" => default,
    model_id: "modelId" => default,
});

/// The report the parent receives.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ParentBoundReport {
    /// What enters the parent's context: the notice (if any), then the report.
    pub text: String,
    /// Whether the run lost history.
    pub degraded: bool,
    /// The notice put in front of the report (`null` when the run lost nothing).
    pub notice: Option<String>,
}

/// The report the parent receives for a delegate's final report and its run's counts:
/// unchanged when the run lost nothing; with a notice in front when it degraded, so the
/// parent does not read a partial answer as a complete one.
pub fn report_for_parent(input: &ReportInput) -> ParentBoundReport {
    let run = &input.run;
    if !run.context_degraded {
        return ParentBoundReport {
            text: input.report.clone(),
            degraded: false,
            notice: None,
        };
    }
    let model = input
        .model_id
        .as_deref()
        .filter(|m| !js_whitespace::is_blank(m))
        .map(|m| format!(" of model \"{m}\""))
        .unwrap_or_default();
    let lost = match run.dropped_messages {
        0 => "part of its working history".owned(),
        1 => format!(
            "part of its working history (1 earlier message, about {} tokens)",
            run.dropped_tokens
        ),
        n => format!(
            "part of its working history ({n} earlier messages, about {} tokens)",
            run.dropped_tokens
        ),
    };
    let notice = format!(
        "[Delegate context degraded] This delegate lost {lost} when its context could not be summarized within the context window{model}. Its report may be incomplete: check the claims that matter, or delegate again with a narrower task."
    );
    ParentBoundReport {
        text: format!("{notice}\n\n{}", input.report),
        degraded: true,
        notice: Some(notice),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fallback_continues_the_run_and_stays_degraded() {
        let before = RunTally {
            boundaries: 3,
            context_compactions: 1,
            context_degraded: true,
            dropped_messages: 4,
            dropped_tokens: 900,
        };
        let mut after = RunTally::continued(Some(&before));
        after.record(&DelegateTurnOutcome::unchanged(
            2,
            10,
            10,
            100,
            crate::compaction::turn::TurnKind::Completed,
        ));
        assert!(after.context_degraded);
        assert_eq!(
            (
                after.boundaries,
                after.context_compactions,
                after.dropped_messages
            ),
            (4, 1, 4)
        );
        assert!(
            report_for_parent(&ReportInput {
                report: "r".into(),
                run: after,
                model_id: None
            })
            .degraded
        );
        assert_eq!(RunTally::continued(None), RunTally::default());
    }

    #[test]
    fn a_run_that_lost_nothing_reports_as_it_is() {
        let r = report_for_parent(&ReportInput {
            report: "done".into(),
            run: RunTally {
                boundaries: 9,
                context_compactions: 3,
                ..RunTally::default()
            },
            model_id: Some("m".into()),
        });
        assert_eq!(r.text, "done");
        assert!(!r.degraded);
        assert_eq!(r.notice, None);
    }

    #[test]
    fn a_degraded_run_says_so_in_front_of_its_report() {
        let r = report_for_parent(&ReportInput {
            report: "Found 3 call sites.".into(),
            run: RunTally {
                boundaries: 4,
                context_compactions: 2,
                context_degraded: true,
                dropped_messages: 12,
                dropped_tokens: 9000,
            },
            model_id: Some("faux/small".into()),
        });
        assert!(r.degraded);
        assert!(r.text.starts_with("[Delegate context degraded] This delegate lost part of its working history (12 earlier messages, about 9000 tokens)"));
        assert!(r.text.contains("model \"faux/small\""));
        assert!(r.text.ends_with("\n\nFound 3 call sites."));
    }
}

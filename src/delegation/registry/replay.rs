//! ADR 0279 clause 12: a rebuild's events replayed through the live transitions.

use super::Registry;
use crate::delegation::binding::ModelBinding;
use crate::delegation::chain::Chain;
use crate::delegation::rebuild::{Event, RebuildPlan};
use crate::delegation::types::{ChainReads, RebuildSkip, RebuildSkipReason};

impl Registry {
    // ---------------------------------------------------------------------- clause 12

    /// Replay a rebuild's events (clause 12) through the live transitions.
    pub(super) fn replay(&mut self, plan: RebuildPlan) {
        let RebuildPlan {
            chains,
            events,
            mut skips,
        } = plan;
        for timed in events {
            let at = timed.at as u64;
            match timed.event {
                Event::Start { chain, run } => {
                    let Some(rebuilt) = chains.get(chain) else {
                        continue;
                    };
                    let Some(started) = rebuilt.runs.get(run) else {
                        continue;
                    };
                    let new_run = started.run.clone();
                    if run == 0 {
                        self.open_chain(Chain {
                            key: rebuilt.key.clone(),
                            agent: rebuilt.agent.clone(),
                            brief: rebuilt.brief.clone(),
                            runs: vec![new_run],
                            objective: started.objective.clone(),
                            reads: ChainReads::default(),
                            last_active: at,
                            model: ModelBinding {
                                key: None,
                                model_id: started.model_id.clone(),
                            },
                            definition: None,
                        });
                        continue;
                    }
                    if !self.chains.contains(&rebuilt.key) {
                        skips.push(RebuildSkip {
                            index: started.last_index,
                            tool_call_id: started.run.tool_call_id.clone(),
                            reason: RebuildSkipReason::ParentGone,
                        });
                        continue;
                    }
                    self.begin_run(&rebuilt.key, new_run, at);
                    if let Some(chain) = self.chains.get_mut(&rebuilt.key) {
                        if !started.objective.is_empty() {
                            chain.objective = started.objective.clone();
                        }
                        chain.model.model_id = started.model_id.clone();
                    }
                }
                Event::Settle { chain, run } => {
                    let Some(rebuilt) = chains.get(chain) else {
                        continue;
                    };
                    let Some(settled) = rebuilt.runs.get(run) else {
                        continue;
                    };
                    let Some(run_index) = self.chains.get(&rebuilt.key).and_then(|held| {
                        held.runs
                            .iter()
                            .position(|r| r.delegation_id == settled.run.delegation_id)
                    }) else {
                        continue; // its chain is gone (a resume the replay skipped)
                    };
                    self.finish_run(
                        &rebuilt.key,
                        run_index,
                        settled.status.clone(),
                        &settled.reads,
                        Some(settled.replays_anything),
                        at,
                    );
                }
                Event::NoHistory { resume } => {
                    if let Some(key) = self.key_of(&resume).cloned() {
                        if self.chains.get(&key).is_some_and(Chain::is_known_empty) {
                            self.drop_chain(&key);
                        }
                    }
                }
            }
        }
        crate::order::sort_by_key(&mut skips, |skip| skip.index);
        self.rebuild_skips = skips;
    }
}

//! ADR 0279 clause 7: an agent's settled chains are bounded, least recently used out.

use std::cmp::Reverse;

use super::Registry;
use crate::delegation::chain::Standing;
use crate::delegation::limits::MAX_RESUMABLE_CHAINS_PER_AGENT;
use crate::text_build::Owned;

impl Registry {
    /// Clause 7 for one agent: keep the most recently used
    /// [`MAX_RESUMABLE_CHAINS_PER_AGENT`] reusable chains and as many that cannot be
    /// resumed; drop the rest. Returns the dropped delegationIds.
    pub(super) fn enforce_bound(&mut self, agent: &str) -> Vec<String> {
        let Some(group) = self.settled_by_agent.get(agent) else {
            return Vec::new();
        };
        self.last_bound_check = group.len();
        let mut reusable: Vec<(u64, &str)> = Vec::new();
        let mut not_reusable: Vec<(u64, &str)> = Vec::new();
        for key in group {
            let Some(chain) = self.chains.get(key) else {
                continue;
            };
            match chain.standing() {
                Some(Standing::Reusable) => reusable.push((chain.last_active, key)),
                Some(Standing::NotReusable) => not_reusable.push((chain.last_active, key)),
                None => {}
            }
        }
        let mut doomed: Vec<String> = Vec::new();
        for group in [&mut reusable, &mut not_reusable] {
            // most recently used first; the key breaks ties deterministically
            crate::order::sort_by_key(group, |&(last_active, key)| (Reverse(last_active), key));
            doomed.extend(
                group
                    .iter()
                    .skip(MAX_RESUMABLE_CHAINS_PER_AGENT)
                    .map(|(_, key)| key.owned()),
            );
        }
        let mut evicted = Vec::new();
        for key in &doomed {
            evicted.extend(self.drop_chain(key));
        }
        evicted
    }

    /// The chain `key` leaves the registry with every reverse-map entry. Returns its
    /// delegationIds.
    pub(super) fn drop_chain(&mut self, key: &str) -> Vec<String> {
        let Some(chain) = self.chains.remove(key) else {
            return Vec::new();
        };
        self.leave_settled_group(key, &chain.agent);
        chain
            .runs
            .into_iter()
            .map(|run| {
                self.by_delegation.remove(&run.delegation_id);
                self.by_tool_call.remove(&run.tool_call_id);
                run.delegation_id
            })
            .collect()
    }

    pub(super) fn leave_settled_group(&mut self, key: &str, agent: &str) {
        if let Some(group) = self.settled_by_agent.get_mut(agent) {
            group.retain(|k| k != key);
            if group.is_empty() {
                self.settled_by_agent.remove(agent);
            }
        }
    }
}

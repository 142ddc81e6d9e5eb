//! The instruction files re-read at a resume, and after an undo (which can
//! bring back the history's earlier instructions): a change is written as
//! one `instructions_set` record, which replay puts where the instructions
//! stand, so every compaction keeps the new ones as it kept the first.

use strata_protocol::{InstructionsSet, RecordBody, ResponseItem, Role};

use super::Agent;
use super::instructions::{Instructions, read_instructions};
use crate::error::Result;
use crate::history::leading_instructions;

impl Agent {
    /// Reads the instruction files again and, when they say something else
    /// than the instructions the session holds, records what they say now.
    pub(crate) fn reread_instructions(&mut self) -> Result<Option<InstructionsSet>> {
        let now = read_instructions(
            self.tools.workspace(),
            self.config.own_instructions.as_deref(),
        )?;
        let current = leading_instructions(self.session.history().items());
        let Some(set) = instructions_change(current, now) else {
            return Ok(None);
        };
        self.session
            .append(RecordBody::InstructionsSet(set.clone()))?;
        self.session.sync()?;
        self.instructions_reread = Some(set.clone());
        Ok(Some(set))
    }

    /// What the last re-read found changed, if anything did since this
    /// agent was made (the front ends say so once).
    pub fn instructions_changed(&self) -> Option<&InstructionsSet> {
        self.instructions_reread.as_ref()
    }
}

/// The record to write when what the files say now differs from the
/// instructions the session holds (`current`, the leading developer
/// message's text); `None` when they agree.
pub fn instructions_change(
    current: Option<&str>,
    now: Option<Instructions>,
) -> Option<InstructionsSet> {
    match (current, now) {
        (None, None) => None,
        (Some(current), Some(now)) if current == now.text => None,
        (_, Some(now)) => Some(InstructionsSet {
            item: Some(ResponseItem::message(Role::Developer, now.text)),
            sources: now.sources,
        }),
        (Some(_), None) => Some(InstructionsSet {
            item: None,
            sources: Vec::new(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use strata_protocol::InstructionSource;

    use super::*;

    fn instructions(text: &str) -> Instructions {
        Instructions {
            text: text.to_owned(),
            sources: vec![InstructionSource {
                label: "AGENTS.md".into(),
                bytes: text.len() as u64,
                omitted: 0,
            }],
        }
    }

    #[test]
    fn the_same_text_or_no_files_either_side_records_nothing() {
        assert_eq!(instructions_change(None, None), None);
        assert_eq!(
            instructions_change(Some("Use tabs."), Some(instructions("Use tabs."))),
            None
        );
    }

    #[test]
    fn new_or_changed_files_record_the_new_text_and_removed_ones_record_none() {
        let changed = instructions_change(Some("Use tabs."), Some(instructions("Use spaces.")))
            .expect("a change");
        assert!(
            matches!(&changed.item, Some(ResponseItem::Message(m)) if m.role == Role::Developer && m.content == "Use spaces.")
        );
        assert_eq!(changed.sources[0].label, "AGENTS.md");
        let added = instructions_change(None, Some(instructions("Use tabs."))).expect("added");
        assert!(added.item.is_some());
        let removed = instructions_change(Some("Use tabs."), None).expect("removed");
        assert_eq!(removed.item, None);
        assert!(removed.sources.is_empty());
    }
}

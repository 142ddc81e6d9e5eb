//! What "allow for this session" allowed, read back from a session's
//! records, so a resumed session asks no more than the live one did.
//!
//! Pure: the records in, the allowances out. Each `approval_decision` the
//! person answered `allow_for_session` is matched with its call (the
//! `function_call` item of the same call id): a write allows its tool kind,
//! a shell command allows what the live answer allowed (its proposed rules,
//! or the command itself). "Always allow" is not rebuilt: its rules are in
//! the workspace's file, which the resumed session reads (and stops
//! trusting if it was edited outside Strata). A fork starts a new session:
//! what its parent allowed is asked again. MCP tools are asked again too
//! (their allowance names a server fingerprint the records do not keep).

use std::collections::HashMap;

use strata_protocol::{ApprovalDecision, DecidedBy, Record, RecordBody, ResponseItem};

use super::args::{RunShellArgs, parse};
use super::{RUN_SHELL, ToolKind, tool_kind};

/// One thing a session's person allowed for the rest of it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SessionAllowance {
    /// Every call of this kind (writes).
    Kind(ToolKind),
    /// This shell command line, as the model sent it.
    Command(String),
}

/// The allowances of the session whose records these are, in the order
/// they were given, each once.
pub fn session_allowances(records: &[Record]) -> Vec<SessionAllowance> {
    let mut calls: HashMap<&str, (&str, &str)> = HashMap::new();
    let mut allowances: Vec<SessionAllowance> = Vec::new();
    for record in records {
        match &record.body {
            RecordBody::ResponseItem(ResponseItem::FunctionCall(call)) => {
                calls.insert(&call.call_id, (&call.name, &call.arguments));
            }
            RecordBody::ApprovalDecision(decision)
                if decision.decision == ApprovalDecision::AllowForSession
                    && decision.by == DecidedBy::Person =>
            {
                let Some((name, arguments)) = calls.get(decision.call_id.as_str()) else {
                    continue;
                };
                if let Some(allowance) = allowance_of(name, arguments)
                    && !allowances.contains(&allowance)
                {
                    allowances.push(allowance);
                }
            }
            RecordBody::SessionForked(_) => {
                calls.clear();
                allowances.clear();
            }
            _ => {}
        }
    }
    allowances
}

fn allowance_of(name: &str, arguments: &str) -> Option<SessionAllowance> {
    match tool_kind(name)? {
        (RUN_SHELL, _) => parse::<RunShellArgs>(RUN_SHELL, arguments)
            .ok()
            .map(|args| SessionAllowance::Command(args.command)),
        (_, ToolKind::Write) => Some(SessionAllowance::Kind(ToolKind::Write)),
        (_, ToolKind::Read | ToolKind::Shell) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_protocol::{
        ApprovalDecisionRecord, ForkPoint, FunctionCall, ItemId, RuleKind, RuleList, RuleRef,
        RuleSource, SessionForked, SessionId,
    };

    fn call(call_id: &str, name: &str, arguments: &str) -> Record {
        Record::now(RecordBody::ResponseItem(ResponseItem::FunctionCall(
            FunctionCall {
                id: ItemId::new(),
                call_id: call_id.into(),
                name: name.into(),
                arguments: arguments.into(),
            },
        )))
    }

    fn decided(call_id: &str, tool: &str, decision: ApprovalDecision, by: DecidedBy) -> Record {
        Record::now(RecordBody::ApprovalDecision(ApprovalDecisionRecord {
            call_id: call_id.into(),
            tool: tool.into(),
            decision,
            by,
            rules: Vec::new(),
        }))
    }

    #[test]
    fn allow_for_session_answers_become_allowances_of_their_calls() {
        let records = vec![
            call("c1", "run_shell", r#"{"command":"cargo test --workspace"}"#),
            decided(
                "c1",
                "run_shell",
                ApprovalDecision::AllowForSession,
                DecidedBy::Person,
            ),
            call(
                "c2",
                "apply_edit",
                r#"{"path":"a","old_text":"x","new_text":"y"}"#,
            ),
            decided(
                "c2",
                "apply_edit",
                ApprovalDecision::AllowForSession,
                DecidedBy::Person,
            ),
            call("c3", "write_file", r#"{"path":"b","content":""}"#),
            decided(
                "c3",
                "write_file",
                ApprovalDecision::AllowForSession,
                DecidedBy::Person,
            ),
        ];
        assert_eq!(
            session_allowances(&records),
            vec![
                SessionAllowance::Command("cargo test --workspace".into()),
                SessionAllowance::Kind(ToolKind::Write),
            ]
        );
    }

    #[test]
    fn other_answers_rules_decisions_and_unknown_calls_allow_nothing() {
        let mut by_rule = decided(
            "c3",
            "run_shell",
            ApprovalDecision::AllowForSession,
            DecidedBy::Rule,
        );
        if let RecordBody::ApprovalDecision(record) = &mut by_rule.body {
            record.rules = vec![RuleRef {
                source: RuleSource::User,
                list: RuleList::Allow,
                kind: RuleKind::Command,
                pattern: "ls*".into(),
            }];
        }
        let records = vec![
            call("c1", "run_shell", r#"{"command":"make"}"#),
            decided(
                "c1",
                "run_shell",
                ApprovalDecision::AllowOnce,
                DecidedBy::Person,
            ),
            call("c2", "run_shell", r#"{"command":"cargo build"}"#),
            decided(
                "c2",
                "run_shell",
                ApprovalDecision::AlwaysAllow,
                DecidedBy::Person,
            ),
            call("c3", "run_shell", r#"{"command":"ls"}"#),
            by_rule,
            decided(
                "missing",
                "run_shell",
                ApprovalDecision::AllowForSession,
                DecidedBy::Person,
            ),
            call("c4", "mcp__everything__echo", "{}"),
            decided(
                "c4",
                "mcp__everything__echo",
                ApprovalDecision::AllowForSession,
                DecidedBy::Person,
            ),
            call("c5", "run_shell", "not json"),
            decided(
                "c5",
                "run_shell",
                ApprovalDecision::AllowForSession,
                DecidedBy::Person,
            ),
        ];
        assert!(session_allowances(&records).is_empty());
    }

    #[test]
    fn a_fork_asks_again_for_what_its_parent_allowed() {
        let records = vec![
            call("c1", "run_shell", r#"{"command":"make"}"#),
            decided(
                "c1",
                "run_shell",
                ApprovalDecision::AllowForSession,
                DecidedBy::Person,
            ),
            Record::now(RecordBody::SessionForked(SessionForked {
                parent_session_id: SessionId::new(),
                parent_records: 2,
                point: ForkPoint::AtItem {
                    item_id: ItemId::new(),
                },
            })),
            call("c2", "write_file", r#"{"path":"b","content":""}"#),
            decided(
                "c2",
                "write_file",
                ApprovalDecision::AllowForSession,
                DecidedBy::Person,
            ),
        ];
        assert_eq!(
            session_allowances(&records),
            vec![SessionAllowance::Kind(ToolKind::Write)]
        );
    }
}

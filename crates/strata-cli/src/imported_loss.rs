//! The loss audit under each of an imported session's compactions in
//! `strata sessions show`: every listed text came from another tool's file,
//! so each goes through `visible_inline`.

use strata_protocol::ImportedLossAudit;

use crate::visible::visible_inline;

/// "  lost at this compaction: 2 paths, 1 command" and the list, or
/// "  nothing lost at this compaction"; says when the summary could not be
/// read and the audit is against the kept messages only.
pub fn loss_lines(audit: &ImportedLossAudit) -> String {
    let basis = if audit.against_summary {
        ""
    } else {
        " (summary unreadable: against the kept messages only)"
    };
    let groups = [
        (&audit.paths, "path", "paths"),
        (&audit.commands, "command", "commands"),
        (&audit.errors, "error", "errors"),
        (&audit.rules, "rule", "rules"),
    ];
    let counts: Vec<String> = groups
        .iter()
        .filter(|(list, _, _)| !list.is_empty())
        .map(|(list, one, many)| {
            let noun = if list.len() == 1 { one } else { many };
            format!("{} {noun}", list.len())
        })
        .collect();
    if counts.is_empty() {
        return format!("  nothing lost at this compaction{basis}\n");
    }
    let mut out = format!("  lost at this compaction{basis}: {}\n", counts.join(", "));
    for (list, one, _) in groups {
        for fact in list {
            out.push_str(&format!("    {one}: {}\n", visible_inline(fact)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lost_facts_are_counted_and_listed_with_control_characters_escaped() {
        let audit = ImportedLossAudit {
            against_summary: true,
            paths: vec!["src/parser/lexer.rs".into(), "evil\u{1b}[2J.rs".into()],
            commands: vec!["cargo test".into()],
            ..ImportedLossAudit::default()
        };
        let text = loss_lines(&audit);
        assert!(text.starts_with("  lost at this compaction: 2 paths, 1 command\n"));
        assert!(text.contains("    path: src/parser/lexer.rs\n"));
        assert!(!text.contains('\u{1b}'), "{text:?}");
    }

    #[test]
    fn an_empty_audit_says_nothing_was_lost_and_against_what() {
        let audit = ImportedLossAudit::default();
        assert_eq!(
            loss_lines(&audit),
            "  nothing lost at this compaction (summary unreadable: against the kept messages only)\n"
        );
    }
}

//! The state sheet: a deterministic record of the session's facts attached
//! to every layered summary. Sheet k is sheet k−1 plus what the span removed
//! by compaction k adds. Past its token budget the oldest files are grouped
//! by folder in the text (and listed in full in the record); a path, a
//! command or a rule is never dropped.

use std::fmt::Write as _;

use strata_protocol::{
    LossAudit, Plan, SHEET_FINAL_MESSAGE_CHARS, SheetCommand, SheetError, SheetFile, SheetGroup,
    StateSheet,
};

use super::estimate::Estimate;
use super::extract::{Facts, paths_in_command};

/// How the sheet's message starts, so it is never mistaken for the person's.
pub const STATE_SHEET_PREFIX: &str = "[State sheet]";

/// The sheet's token budget before the oldest files are grouped.
pub const STATE_SHEET_BUDGET_TOKENS: u64 = 2_000;

/// Files always listed one by one, however long the sheet is.
const NEWEST_FILES_LISTED: usize = 12;

/// What the sheet states about the session beyond its history.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SheetContext {
    /// `ask`, `auto` or `read-only`.
    pub approval_policy: String,
    /// Whether an `AGENTS.md` developer message leads the history.
    pub has_agents_file: bool,
    /// The plan the latest `update_plan` call in the history set; the
    /// previous sheet's stays when the history holds none.
    pub plan: Option<Plan>,
    /// The final assistant message of the latest finished turn in the
    /// history, if any.
    pub final_message: Option<String>,
}

impl SheetContext {
    /// The context with what `items`, the history being compacted, says of
    /// the plan and of the latest finished turn.
    pub fn with_history(self, items: &[strata_protocol::ResponseItem]) -> Self {
        Self {
            plan: crate::plan::latest_plan(items.iter()),
            final_message: crate::plan::latest_final_message(items).map(str::to_owned),
            ..self
        }
    }
}

/// Sheet k from sheet k−1 and the facts of the span compaction k removes.
pub fn build_state_sheet(
    previous: Option<&StateSheet>,
    facts: &Facts,
    context: &SheetContext,
    estimate: Estimate<'_>,
    budget: u64,
) -> StateSheet {
    let mut sheet = previous.cloned().unwrap_or_default();
    sheet.grouped.clear();
    if sheet.first_request.is_none() {
        sheet.first_request = facts.requests.first().cloned();
    }
    if let Some(latest) = facts.requests.last() {
        sheet.latest_request = Some(latest.clone());
    }
    let mut rules = vec![format!("Approval policy: {}.", context.approval_policy)];
    rules.push(if context.has_agents_file {
        "The system prompt and AGENTS.md (kept verbatim above) still apply.".to_owned()
    } else {
        "The system prompt (kept verbatim above) still applies.".to_owned()
    });
    for rule in sheet.rules.iter().skip(2).chain(&facts.rules) {
        if !rules.contains(rule) {
            rules.push(rule.clone());
        }
    }
    sheet.rules = rules;
    for touch in &facts.files {
        sheet.files.retain(|file| file.path != touch.path);
        sheet.files.push(SheetFile {
            path: touch.path.clone(),
            last_action: touch.action.to_owned(),
        });
    }
    for run in &facts.commands {
        sheet
            .commands
            .retain(|command| command.command != run.command);
        sheet.commands.push(SheetCommand {
            command: run.command.clone(),
            exit_code: run.exit_code,
        });
    }
    for error in &facts.errors {
        sheet.errors.push(SheetError {
            subject: error.subject.clone(),
            message: error.message.clone(),
            fixed: false,
        });
    }
    // A success after an error of the same subject fixed it; successes in
    // this span may fix errors of earlier sheets too.
    for success in &facts.successes {
        let position = facts.successes.iter().position(|s| s == success);
        for error in &mut sheet.errors {
            if &error.subject == success && !error.fixed {
                let failed_later = facts
                    .errors
                    .iter()
                    .rposition(|e| &e.subject == success)
                    .zip(position)
                    .is_some_and(|(failed, succeeded)| failed > succeeded);
                error.fixed = !failed_later;
            }
        }
    }
    if let Some(plan) = &context.plan {
        sheet.plan = Some(plan.clone());
    }
    if let Some(message) = &context.final_message {
        sheet.final_message = Some(bounded_final_message(message));
    }
    // The plan names the next step when it has one left; the assistant's
    // wording is only the fallback.
    match sheet.plan.as_ref().and_then(Plan::next_step) {
        Some(step) => sheet.next_step = Some(step.step.clone()),
        None if facts.next_step.is_some() => sheet.next_step = facts.next_step.clone(),
        None => {}
    }
    render_within_budget(&mut sheet, estimate, budget);
    sheet
}

/// `message` up to [`SHEET_FINAL_MESSAGE_CHARS`] characters, marked where cut.
fn bounded_final_message(message: &str) -> String {
    let message = message.trim();
    match message.char_indices().nth(SHEET_FINAL_MESSAGE_CHARS) {
        Some((cut, _)) => format!("{}… [cut]", &message[..cut]),
        None => message.to_owned(),
    }
}

/// Renders the text, grouping the oldest files by folder while it is over
/// `budget`; the newest files stay listed one by one.
fn render_within_budget(sheet: &mut StateSheet, estimate: Estimate<'_>, budget: u64) {
    let groupable = sheet.files.len().saturating_sub(NEWEST_FILES_LISTED);
    let mut grouped_count = 0;
    loop {
        sheet.grouped = group_by_folder(&sheet.files[..grouped_count]);
        sheet.text = render(sheet, grouped_count);
        if estimate.text(&sheet.text) <= budget || grouped_count >= groupable {
            break;
        }
        grouped_count = (grouped_count + groupable.div_ceil(4)).min(groupable);
    }
}

fn folder_of(path: &str) -> String {
    match path.trim_end_matches('/').rsplit_once('/') {
        Some((folder, _)) => format!("{folder}/"),
        None => "./".to_owned(),
    }
}

fn group_by_folder(files: &[SheetFile]) -> Vec<SheetGroup> {
    let mut groups: Vec<SheetGroup> = Vec::new();
    for file in files {
        let folder = folder_of(&file.path);
        match groups.iter_mut().find(|group| group.folder == folder) {
            Some(group) => group.paths.push(file.path.clone()),
            None => groups.push(SheetGroup {
                folder,
                paths: vec![file.path.clone()],
            }),
        }
    }
    groups
}

fn render(sheet: &StateSheet, grouped_count: usize) -> String {
    let mut out = format!(
        "{STATE_SHEET_PREFIX} Kept by Strata from the session's records, not by the summarizer. \
         Item ids refer to the session file: the recall tool returns any removed item by its \
         id, or searches them.\n"
    );
    // Writing to a String cannot fail.
    if let Some(first) = &sheet.first_request {
        let _ = writeln!(out, "\nFirst request (verbatim):\n{first}");
    }
    if let Some(latest) = sheet
        .latest_request
        .as_ref()
        .filter(|l| Some(*l) != sheet.first_request.as_ref())
    {
        let _ = writeln!(out, "\nLatest request (verbatim):\n{latest}");
    }
    out.push_str("\nRules in force:\n");
    for rule in &sheet.rules {
        let _ = writeln!(out, "- {rule}");
    }
    if !sheet.files.is_empty() {
        out.push_str("\nFiles (last action):\n");
        for group in &sheet.grouped {
            let _ = writeln!(
                out,
                "- {} ({} earlier files)",
                group.folder,
                group.paths.len()
            );
        }
        for file in &sheet.files[grouped_count..] {
            let _ = writeln!(out, "- {}: {}", file.path, file.last_action);
        }
    }
    if !sheet.commands.is_empty() {
        out.push_str("\nCommands run (last exit code):\n");
        for command in &sheet.commands {
            match command.exit_code {
                Some(code) => writeln!(out, "- `{}` → {code}", command.command),
                None => writeln!(out, "- `{}` → no exit code", command.command),
            }
            .ok();
        }
    }
    if !sheet.errors.is_empty() {
        out.push_str("\nErrors seen:\n");
        for error in &sheet.errors {
            let state = if error.fixed {
                "fixed later"
            } else {
                "unresolved"
            };
            let _ = writeln!(out, "- {}: {} ({state})", error.subject, error.message);
        }
    }
    if let Some(plan) = &sheet.plan {
        let _ = write!(
            out,
            "\nPlan (your latest update_plan, verbatim):\n{}",
            plan.to_text()
        );
    }
    if let Some(message) = &sheet.final_message {
        let _ = writeln!(
            out,
            "\nYour final message of the latest finished turn (verbatim):\n{message}"
        );
    }
    if let Some(next) = &sheet.next_step {
        let from_plan = sheet
            .plan
            .as_ref()
            .and_then(Plan::next_step)
            .is_some_and(|step| &step.step == next);
        let _ = if from_plan {
            writeln!(out, "\nNext step (from the plan):\n{next}")
        } else {
            writeln!(
                out,
                "\nLast plan or next step the assistant stated (verbatim):\n{next}"
            )
        };
    }
    out
}

/// Whether the sheet carries `path`: listed, or inside a grouped folder
/// (the record lists those in full).
pub fn sheet_has_path(sheet: &StateSheet, path: &str) -> bool {
    sheet.text.contains(path)
        || sheet
            .grouped
            .iter()
            .any(|group| group.paths.iter().any(|p| p == path))
}

/// What the span mentioned that neither the summary nor the sheet carries.
pub fn loss_audit(facts: &Facts, summary: &str, sheet: &StateSheet) -> LossAudit {
    let mut audit = LossAudit::default();
    let mut paths: Vec<&str> = facts.files.iter().map(|f| f.path.as_str()).collect();
    let command_paths: Vec<String> = facts
        .commands
        .iter()
        .flat_map(|c| paths_in_command(&c.command))
        .collect();
    paths.extend(command_paths.iter().map(String::as_str));
    for path in paths {
        if !summary.contains(path)
            && !sheet_has_path(sheet, path)
            && !audit.paths.iter().any(|p| p == path)
        {
            audit.paths.push(path.to_owned());
        }
    }
    for command in &facts.commands {
        let text = &command.command;
        if !summary.contains(text.as_str())
            && !sheet.text.contains(text.as_str())
            && !audit.commands.contains(text)
        {
            audit.commands.push(text.clone());
        }
    }
    for error in &facts.errors {
        if !summary.contains(&error.message) && !sheet.text.contains(&error.message) {
            audit
                .errors
                .push(format!("{}: {}", error.subject, error.message));
        }
    }
    audit
}

#[cfg(test)]
mod tests {
    use strata_protocol::ResponseItem;

    use super::*;
    use crate::compaction::estimate::{Calibration, CharEstimator};
    use crate::compaction::extract::extract;

    fn estimate() -> Estimate<'static> {
        Estimate::new(&CharEstimator, Calibration::default())
    }

    fn context() -> SheetContext {
        SheetContext {
            approval_policy: "ask".into(),
            has_agents_file: true,
            ..SheetContext::default()
        }
    }

    fn read(id: &str, path: &str) -> Vec<ResponseItem> {
        vec![
            ResponseItem::function_call(id, "read_file", format!(r#"{{"path":"{path}"}}"#)),
            ResponseItem::function_call_output(id, "contents"),
        ]
    }

    fn shell(id: &str, command: &str, exit: i32) -> Vec<ResponseItem> {
        vec![
            ResponseItem::function_call(
                id,
                "run_shell",
                serde_json::json!({ "command": command }).to_string(),
            ),
            ResponseItem::function_call_output(id, format!("out\n[exit code: {exit}]")),
        ]
    }

    #[test]
    fn sheet_k_extends_sheet_k_minus_one_and_marks_fixed_errors() {
        let mut first = vec![ResponseItem::user("Add tax rounding. Never edit vendor/.")];
        first.extend(read("a", "src/tax.rs"));
        first.extend(shell("b", "cargo test", 101));
        first.push(ResponseItem::assistant(
            "Next step: fix the rounding in src/tax.rs.",
        ));
        let sheet1 = build_state_sheet(None, &extract(&first), &context(), estimate(), 2_000);
        assert!(sheet1.text.starts_with(STATE_SHEET_PREFIX));
        assert!(sheet1.text.contains("Never edit vendor/"));
        assert!(sheet1.text.contains("Approval policy: ask."));
        assert!(sheet1.text.contains("`cargo test` → 101"));
        assert!(sheet1.text.contains("(unresolved)"));

        let mut second = vec![ResponseItem::user("Go on.")];
        second.extend(shell("c", "cargo test", 0));
        let sheet2 = build_state_sheet(
            Some(&sheet1),
            &extract(&second),
            &context(),
            estimate(),
            2_000,
        );
        assert_eq!(sheet2.first_request, sheet1.first_request);
        assert_eq!(sheet2.latest_request.as_deref(), Some("Go on."));
        assert!(
            sheet2.text.contains("Never edit vendor/"),
            "rules carry over"
        );
        assert!(sheet2.text.contains("src/tax.rs"), "files carry over");
        assert!(sheet2.text.contains("`cargo test` → 0"));
        assert!(sheet2.errors[0].fixed);
        assert_eq!(sheet2.next_step, sheet1.next_step);
    }

    #[test]
    fn past_the_budget_old_files_are_grouped_never_dropped() {
        let mut span = Vec::new();
        for n in 0..80 {
            span.extend(read(
                &format!("c{n}"),
                &format!("src/module_{}/file_number_{n}.rs", n % 4),
            ));
        }
        let facts = extract(&span);
        let sheet = build_state_sheet(None, &facts, &context(), estimate(), 300);
        assert!(!sheet.grouped.is_empty());
        assert_eq!(sheet.files.len(), 80);
        for n in 0..80 {
            let path = format!("src/module_{}/file_number_{n}.rs", n % 4);
            assert!(sheet_has_path(&sheet, &path), "{path}");
        }
        assert!(loss_audit(&facts, "", &sheet).paths.is_empty());
        assert!(
            sheet.text.contains("file_number_79.rs"),
            "the newest stay listed"
        );
    }

    #[test]
    fn the_loss_audit_names_what_neither_summary_nor_sheet_carries() {
        let mut span = read("a", "src/lost.rs");
        span.extend(shell("b", "make lint", 2));
        let facts = extract(&span);
        let empty = StateSheet::default();
        let audit = loss_audit(&facts, "Ran make lint.", &empty);
        assert_eq!(audit.paths, ["src/lost.rs"]);
        assert!(audit.commands.is_empty());
        assert_eq!(audit.errors.len(), 1);
        let sheet = build_state_sheet(None, &facts, &context(), estimate(), 2_000);
        assert_eq!(loss_audit(&facts, "", &sheet), LossAudit::default());
    }
}

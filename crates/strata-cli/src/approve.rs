//! Asking the person about a tool call on the terminal: what will happen
//! (the diff of a write, the command and folder of a shell call), then allow
//! once, allow for this session, always allow (a shell command's proposed
//! rule, shown before it is saved), or deny.

use std::io::Write;

use strata_core::CancellationToken;
use strata_protocol::ApprovalDecision;

use crate::style::{BOLD, DIM, ERROR, Output, WARN, paint};
use crate::terminal::Lines;
use crate::visible::{visible, visible_inline};

/// The person's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    Decided(ApprovalDecision),
    /// Save the offered rule to the workspace's rules, and allow.
    AlwaysAllow,
}

/// Shows the request and waits for an answer. `None` when the turn was
/// cancelled first; the end of input counts as a denial. `always` is the
/// rule "always allow" would save, when one is offered.
pub async fn ask(
    out: Output,
    lines: &mut Lines,
    summary: &str,
    detail: &str,
    always: Option<&str>,
    cancel: &CancellationToken,
) -> std::io::Result<Option<Choice>> {
    // Keys pressed before the question is on screen (a `y` meant for
    // something else) never answer it. Discarded before it is shown, so a
    // key pressed once it is visible always counts.
    let asked = lines.discard_typed_ahead();
    let mut err = out.stderr();
    writeln!(
        err,
        "{} {}",
        paint(WARN, "approval needed:"),
        paint(BOLD, visible_inline(summary))
    )?;
    if detail != summary {
        for line in detail.lines() {
            let line = &*visible(line);
            let styled = match line.chars().next() {
                Some('+') if !line.starts_with("+++") => {
                    paint(anstyle::AnsiColor::Green.on_default(), line)
                }
                Some('-') if !line.starts_with("---") => paint(ERROR, line),
                Some('@') => paint(DIM, line),
                _ => line.to_owned(),
            };
            writeln!(err, "  {styled}")?;
        }
    }
    let question = match always {
        Some(rule) => format!(
            "allow? [y] once  [a] for this session  [r] always allow `{}`  [n] deny:",
            visible_inline(rule)
        ),
        None => "allow? [y] once  [a] for this session  [n] deny:".to_owned(),
    };
    loop {
        write!(err, "{} ", paint(BOLD, &question))?;
        err.flush()?;
        let line = tokio::select! {
            biased;
            () = cancel.cancelled() => return Ok(None),
            line = lines.next_typed_after(asked) => line,
        };
        let Some(line) = line else {
            writeln!(err, "{}", paint(DIM, "(end of input: denied)"))?;
            return Ok(Some(Choice::Decided(ApprovalDecision::Deny)));
        };
        if let Some(choice) = parse_answer(&line, always.is_some()) {
            return Ok(Some(choice));
        }
        let keys = if always.is_some() {
            "y, a, r or n"
        } else {
            "y, a or n"
        };
        writeln!(err, "{}", paint(DIM, format!("answer {keys}")))?;
    }
}

/// `y`/`yes`/`once`, `a`/`always`/`session`, `n`/`no`/`deny`, and, when a
/// rule is offered, `r`/`rule`.
pub fn parse_answer(line: &str, rule_offered: bool) -> Option<Choice> {
    let decided = |decision| Some(Choice::Decided(decision));
    match line.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" | "once" => decided(ApprovalDecision::AllowOnce),
        "a" | "always" | "session" => decided(ApprovalDecision::AllowForSession),
        "n" | "no" | "deny" => decided(ApprovalDecision::Deny),
        "r" | "rule" if rule_offered => Some(Choice::AlwaysAllow),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_parse_loosely_and_anything_else_asks_again() {
        let decided = |decision| Some(Choice::Decided(decision));
        assert_eq!(
            parse_answer(" Y ", false),
            decided(ApprovalDecision::AllowOnce)
        );
        assert_eq!(
            parse_answer("a", false),
            decided(ApprovalDecision::AllowForSession)
        );
        assert_eq!(parse_answer("deny", false), decided(ApprovalDecision::Deny));
        assert_eq!(parse_answer("", false), None);
        assert_eq!(parse_answer("maybe", false), None);
    }

    #[test]
    fn always_allow_is_an_answer_only_when_a_rule_is_offered() {
        assert_eq!(parse_answer("r", true), Some(Choice::AlwaysAllow));
        assert_eq!(parse_answer("rule", true), Some(Choice::AlwaysAllow));
        assert_eq!(parse_answer("r", false), None);
    }
}

//! Asking the person about a tool call on the terminal: what will happen
//! (the diff of a write, the command and folder of a shell call), then allow
//! once, allow for this session, or deny.

use std::io::Write;

use strata_core::CancellationToken;
use strata_protocol::ApprovalDecision;

use crate::style::{BOLD, DIM, ERROR, Output, WARN, paint};
use crate::terminal::Lines;
use crate::visible::{visible, visible_inline};

/// Shows the request and waits for an answer. `None` when the turn was
/// cancelled first; the end of input counts as a denial.
pub async fn ask(
    out: Output,
    lines: &mut Lines,
    summary: &str,
    detail: &str,
    cancel: &CancellationToken,
) -> std::io::Result<Option<ApprovalDecision>> {
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
    loop {
        write!(
            err,
            "{} ",
            paint(BOLD, "allow? [y] once  [a] for this session  [n] deny:")
        )?;
        err.flush()?;
        let line = tokio::select! {
            biased;
            () = cancel.cancelled() => return Ok(None),
            line = lines.next_typed_after(asked) => line,
        };
        let Some(line) = line else {
            writeln!(err, "{}", paint(DIM, "(end of input: denied)"))?;
            return Ok(Some(ApprovalDecision::Deny));
        };
        if let Some(decision) = parse_answer(&line) {
            return Ok(Some(decision));
        }
        writeln!(err, "{}", paint(DIM, "answer y, a or n"))?;
    }
}

/// `y`/`yes`/`once`, `a`/`always`/`session`, `n`/`no`/`deny`.
pub fn parse_answer(line: &str) -> Option<ApprovalDecision> {
    match line.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" | "once" => Some(ApprovalDecision::AllowOnce),
        "a" | "always" | "session" => Some(ApprovalDecision::AllowForSession),
        "n" | "no" | "deny" => Some(ApprovalDecision::Deny),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_parse_loosely_and_anything_else_asks_again() {
        assert_eq!(parse_answer(" Y "), Some(ApprovalDecision::AllowOnce));
        assert_eq!(parse_answer("a"), Some(ApprovalDecision::AllowForSession));
        assert_eq!(parse_answer("deny"), Some(ApprovalDecision::Deny));
        assert_eq!(parse_answer(""), None);
        assert_eq!(parse_answer("maybe"), None);
    }
}

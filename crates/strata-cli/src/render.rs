//! Showing an agent's events as they arrive: the assistant's text streamed
//! to standard output; tool calls, approvals, compactions and errors as
//! compact lines on standard error; spinners only on a terminal. With
//! `--json`, every event is one JSON line on standard output instead.

use std::io::{self, IsTerminal, Write};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use strata_app::transcript::text::{
    compact_arguments, compaction_line, decision_text, outcome_text,
};
use strata_core::CancellationToken;
use strata_core::tools::rules::WORKSPACE_RULES_FILE;
use strata_protocol::{
    AgentEvent, ApprovalDecision, DebugEvent, EventEnvelope, MainlineEvent, ProviderFailure,
    ResponseItem, Role, ToolCallStatus, TurnOutcome,
};

use crate::approve;
use crate::style::{COMPACTION, DIM, ERROR, Output, TOOL, WARN, one_line, paint};
use crate::terminal::Lines;
use crate::visible::{VisibleStream, json_safe, visible_inline};

/// Renders one agent's events.
/// Answers a waiting approval (through the app, as the desktop's
/// `answer_approval` does: "always allow" saves the request's proposed
/// rules there); the error says why the answer was refused.
pub type Answer = Box<dyn Fn(&str, ApprovalDecision) -> Result<(), String> + Send + Sync>;

pub struct Ui {
    out: Output,
    json: bool,
    /// Whether approvals wait for an answer.
    asks: bool,
    answer: Answer,
    /// Where approval answers come from, when someone can answer.
    lines: Option<Lines>,
    spinners: bool,
    spinner: Option<ProgressBar>,
    /// Standard output holds text not yet ended by a newline.
    text_open: bool,
    /// This round streamed text deltas.
    streamed: bool,
    /// The model's thinking is being shown (dimmed); the answer starts on
    /// a line of its own after it.
    thinking: bool,
    /// The streamed text, made safe to print piece by piece.
    stream: VisibleStream,
}

impl Ui {
    pub fn new(out: Output, json: bool, asks: bool, answer: Answer, lines: Option<Lines>) -> Self {
        Self {
            out,
            json,
            asks,
            answer,
            lines,
            spinners: !json && io::stderr().is_terminal(),
            spinner: None,
            text_open: false,
            streamed: false,
            thinking: false,
            stream: VisibleStream::default(),
        }
    }

    /// Approvals from now on belong to another session (`/clear`).
    pub fn answer_with(&mut self, answer: Answer, asks: bool) {
        self.answer = answer;
        self.asks = asks;
    }

    /// The lines typed on the terminal, for a REPL between turns.
    pub fn lines(&mut self) -> Option<&mut Lines> {
        self.lines.as_mut()
    }

    /// Writes one JSON line on standard output.
    pub fn json_line(&mut self, value: &impl serde::Serialize) -> io::Result<()> {
        let text = serde_json::to_string(value).map_err(io::Error::other)?;
        let mut stdout = io::stdout().lock();
        writeln!(stdout, "{}", json_safe(&text))?;
        stdout.flush()
    }

    /// A line on standard error (after ending any streamed text).
    pub fn note(&mut self, text: impl std::fmt::Display) -> io::Result<()> {
        self.settle()?;
        writeln!(self.out.stderr(), "{text}")
    }

    /// Shows one event; asks the person when it is an approval request and
    /// someone can answer.
    pub async fn handle(
        &mut self,
        envelope: &EventEnvelope,
        cancel: &CancellationToken,
    ) -> io::Result<()> {
        if self.json {
            self.json_line(envelope)?;
            if let AgentEvent::Mainline(MainlineEvent::ApprovalRequested {
                call_id,
                summary,
                detail,
                proposed_rules,
                ..
            }) = &envelope.event
            {
                self.approve(call_id, summary, detail, proposed_rules, cancel)
                    .await?;
            }
            return Ok(());
        }
        match &envelope.event {
            AgentEvent::Mainline(event) => self.mainline(event, cancel).await,
            AgentEvent::Debug(event) => self.debug(event),
        }
    }

    async fn mainline(
        &mut self,
        event: &MainlineEvent,
        cancel: &CancellationToken,
    ) -> io::Result<()> {
        match event {
            MainlineEvent::TurnStarted { .. } => Ok(()),
            MainlineEvent::ReasoningDelta { delta, .. } => {
                self.stop_spinner();
                self.thought(delta)
            }
            MainlineEvent::TextDelta { delta, .. } => {
                self.stop_spinner();
                self.end_thinking()?;
                self.streamed = true;
                self.text(delta)
            }
            MainlineEvent::MessageCommitted { item, .. } => match item {
                // Text that arrived whole, without deltas, is shown now.
                ResponseItem::Message(message)
                    if message.role == Role::Assistant && !self.streamed =>
                {
                    self.stop_spinner();
                    self.text(&message.content)
                }
                _ => Ok(()),
            },
            MainlineEvent::ToolCallStarted {
                name, arguments, ..
            } if name == strata_protocol::tool_names::UPDATE_PLAN => {
                match strata_core::plan::parse_plan(arguments) {
                    Ok(plan) => {
                        let lines = plan_lines(&plan);
                        self.note(lines.join("\n"))
                    }
                    Err(message) => self.note(paint(
                        ERROR,
                        format!("  ✗ plan: {}", visible_inline(&message)),
                    )),
                }
            }
            MainlineEvent::ToolCallStarted {
                name, arguments, ..
            } => {
                self.end_thinking()?;
                let name = visible_inline(name);
                self.note(format!(
                    "{} {}",
                    paint(TOOL, format!("→ {name}")),
                    one_line(&compact_arguments(arguments), 120)
                ))?;
                self.start_spinner(format!("running {name}…"));
                Ok(())
            }
            // The plan was shown when the call started; its output says nothing more.
            MainlineEvent::ToolCallFinished {
                name,
                status: ToolCallStatus::Success,
                ..
            } if name == strata_protocol::tool_names::UPDATE_PLAN => Ok(()),
            MainlineEvent::ToolCallFinished {
                name,
                status,
                output,
                duration_ms,
                ..
            } => {
                let name = visible_inline(name);
                let line = match status {
                    ToolCallStatus::Success => paint(
                        DIM,
                        format!("  ✓ {name} · {duration_ms} ms · {}", one_line(output, 100)),
                    ),
                    failure => paint(
                        ERROR,
                        format!(
                            "  ✗ {name} {}: {}",
                            status_text(*failure),
                            one_line(output, 160)
                        ),
                    ),
                };
                self.note(line)
            }
            MainlineEvent::ApprovalRequested {
                call_id,
                summary,
                detail,
                proposed_rules,
                ..
            } => {
                if self.asks && self.lines.is_some() {
                    self.approve(call_id, summary, detail, proposed_rules, cancel)
                        .await
                } else {
                    self.note(paint(
                        WARN,
                        format!(
                            "approval needed: {} — refused, no terminal to ask on \
                             (use --approval auto to allow, or run in a terminal)",
                            visible_inline(summary)
                        ),
                    ))
                }
            }
            MainlineEvent::ApprovalResolved { decision, .. } => self.note(paint(
                DIM,
                format!("  approval: {}", decision_text(*decision)),
            )),
            MainlineEvent::TurnFinished {
                outcome, rounds, ..
            } => {
                if *outcome == TurnOutcome::Completed {
                    self.settle()
                } else {
                    self.note(paint(
                        WARN,
                        format!("turn {} after {rounds} round(s)", outcome_text(*outcome)),
                    ))
                }
            }
            MainlineEvent::Error {
                message,
                model_error,
                ..
            } => match model_error.as_ref().map(ProviderFailure::of) {
                // The sentence a person acts on, then the client's own text.
                Some(failure) => self.note(format!(
                    "{}\n{}",
                    paint(
                        ERROR,
                        format!("error: {}", visible_inline(&failure.sentence))
                    ),
                    paint(
                        DIM,
                        format!("  details: {}", visible_inline(&failure.details))
                    )
                )),
                None => self.note(paint(ERROR, format!("error: {}", visible_inline(message)))),
            },
            MainlineEvent::CompactionCircuitOpen { message, .. } => {
                self.note(paint(WARN, format!("warning: {message}")))
            }
        }
    }

    fn debug(&mut self, event: &DebugEvent) -> io::Result<()> {
        match event {
            DebugEvent::RoundStarted { .. } => {
                self.streamed = false;
                self.start_spinner("thinking…".to_owned());
                Ok(())
            }
            DebugEvent::UsageReported { .. } => Ok(()),
            DebugEvent::Retrying {
                attempt,
                of,
                delay_ms,
                ..
            } => {
                // One line that replaces itself on a terminal; the cause is
                // the same each time, and the final error gives it in full.
                let line = format!("retrying ({attempt}/{of}) in {delay_ms} ms…");
                if self.spinners {
                    self.start_spinner(line);
                    Ok(())
                } else {
                    self.note(paint(DIM, line))
                }
            }
            DebugEvent::HistoryCompacted {
                summary,
                history_items,
                ..
            } => self.note(format!(
                "{}\n{}",
                paint(
                    COMPACTION,
                    format!("══ {} → {history_items} items ══", compaction_line(summary))
                ),
                paint(DIM, format!("   {}", one_line(&summary.summary, 200)))
            )),
            DebugEvent::CompactionIneffective {
                estimated_tokens,
                threshold,
                ..
            } => self.note(paint(
                WARN,
                format!(
                    "warning (compaction_ineffective): the compacted history is still about \
                     {estimated_tokens} tokens (an estimate), close to or above the threshold \
                     {threshold}"
                ),
            )),
            DebugEvent::SummaryFailed {
                attempts, message, ..
            } => self.note(paint(
                WARN,
                format!(
                    "warning: compaction failed after {attempts} attempt(s), the history was \
                     left as it was: {}",
                    visible_inline(message)
                ),
            )),
            DebugEvent::CompactionRefused { message, .. } => self.note(paint(
                WARN,
                format!("warning (compaction_refused): {}", visible_inline(message)),
            )),
            DebugEvent::ToolOutputsEvicted {
                eviction,
                history_items,
                ..
            } => self.note(paint(
                COMPACTION,
                format!(
                    "── {} older tool outputs evicted (no model call): about {} → {} tokens \
                     (estimates), {history_items} items ──",
                    eviction.evicted.len(),
                    eviction.estimated_before,
                    eviction.estimated_after
                ),
            )),
            DebugEvent::LayeredCompacted { compaction, .. } => self.note(paint(
                DIM,
                format!(
                    "   state sheet: {} files, {} commands, {} rules; about {} tokens after \
                     (an estimate); lost paths {}, commands {}",
                    compaction.state_sheet.files.len(),
                    compaction.state_sheet.commands.len(),
                    compaction.state_sheet.rules.len(),
                    compaction.estimated_after,
                    compaction.loss_audit.paths.len(),
                    compaction.loss_audit.commands.len()
                ),
            )),
        }
    }

    async fn approve(
        &mut self,
        call_id: &str,
        summary: &str,
        detail: &str,
        proposed: &[String],
        cancel: &CancellationToken,
    ) -> io::Result<()> {
        if !self.asks {
            return Ok(());
        }
        self.settle()?;
        // The request's own proposal (a redacted command's exact form is
        // never proposed): what the person sees is what is saved.
        let offered = (!proposed.is_empty()).then(|| proposed.join("`, `"));
        let Some(lines) = self.lines.as_mut() else {
            return Ok(());
        };
        let choice =
            approve::ask(self.out, lines, summary, detail, offered.as_deref(), cancel).await?;
        let decision = match choice {
            None => return Ok(()),
            Some(approve::Choice::Decided(decision)) => decision,
            Some(approve::Choice::AlwaysAllow) => ApprovalDecision::AlwaysAllow,
        };
        let answered = (self.answer)(call_id, decision);
        if decision != ApprovalDecision::AlwaysAllow {
            return Ok(());
        }
        let note = match answered {
            Ok(()) => paint(
                DIM,
                format!(
                    "saved always allow `{}` to the workspace's {WORKSPACE_RULES_FILE}",
                    visible_inline(offered.as_deref().unwrap_or_default()),
                ),
            ),
            Err(error) => {
                // Still allowed, as the person wanted, for this session.
                let fallback = (self.answer)(call_id, ApprovalDecision::AllowForSession);
                let what = match fallback {
                    Ok(()) => "allowed for this session only",
                    Err(_) => "not answered",
                };
                paint(
                    WARN,
                    format!(
                        "could not save the rule ({}); {what}",
                        visible_inline(&error)
                    ),
                )
            }
        };
        writeln!(self.out.stderr(), "{note}")?;
        Ok(())
    }

    /// Streamed thinking, dimmed and made safe like the answer's text,
    /// under a `thinking` label.
    fn thought(&mut self, text: &str) -> io::Result<()> {
        if text.is_empty() {
            return Ok(());
        }
        let label = if self.thinking {
            String::new()
        } else {
            paint(DIM, "thinking: ")
        };
        self.thinking = true;
        let shown = self.stream.push(text);
        let mut stdout = self.out.stdout();
        write!(stdout, "{label}{}", paint(DIM, &shown))?;
        stdout.flush()?;
        if !shown.is_empty() {
            self.text_open = !shown.ends_with('\n');
        }
        Ok(())
    }

    /// Ends shown thinking with a blank line before what follows.
    fn end_thinking(&mut self) -> io::Result<()> {
        if !std::mem::take(&mut self.thinking) {
            return Ok(());
        }
        let held = self.stream.finish();
        let mut stdout = self.out.stdout();
        writeln!(stdout, "{}\n", paint(DIM, held))?;
        stdout.flush()?;
        self.text_open = false;
        Ok(())
    }

    fn text(&mut self, text: &str) -> io::Result<()> {
        if text.is_empty() {
            return Ok(());
        }
        let shown = self.stream.push(text);
        let mut stdout = self.out.stdout();
        write!(stdout, "{shown}")?;
        stdout.flush()?;
        if !shown.is_empty() {
            self.text_open = !shown.ends_with('\n');
        }
        Ok(())
    }

    /// Ends streamed text with a newline and clears the spinner, so the
    /// next line starts clean.
    pub fn settle(&mut self) -> io::Result<()> {
        self.stop_spinner();
        self.end_thinking()?;
        let held = self.stream.finish();
        if self.text_open || !held.is_empty() {
            let mut stdout = self.out.stdout();
            writeln!(stdout, "{held}")?;
            stdout.flush()?;
            self.text_open = false;
        }
        Ok(())
    }

    pub fn start_spinner(&mut self, message: String) {
        if !self.spinners {
            return;
        }
        self.stop_spinner();
        let spinner = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg}") {
            spinner.set_style(style);
        }
        spinner.set_message(message);
        spinner.enable_steady_tick(Duration::from_millis(100));
        self.spinner = Some(spinner);
    }

    pub fn stop_spinner(&mut self) {
        if let Some(spinner) = self.spinner.take() {
            spinner.finish_and_clear();
        }
    }
}

fn status_text(status: ToolCallStatus) -> &'static str {
    match status {
        ToolCallStatus::Success => "succeeded",
        ToolCallStatus::Error => "failed",
        ToolCallStatus::Denied => "refused",
        ToolCallStatus::Cancelled => "cancelled",
        ToolCallStatus::TimedOut => "timed out",
    }
}

/// The plan as `strata chat` shows it when the model sets it: a heading with
/// the progress, then one line a step (done ones dimmed), every text made
/// safe for the terminal.
fn plan_lines(plan: &strata_protocol::Plan) -> Vec<String> {
    let (done, all) = plan.progress();
    let mut lines = vec![paint(TOOL, format!("→ plan · {done} of {all} done"))];
    for step in &plan.plan {
        let line = format!("  {} {}", step.status.marker(), visible_inline(&step.step));
        lines.push(match step.status {
            strata_protocol::PlanStepStatus::Completed => paint(DIM, line),
            strata_protocol::PlanStepStatus::InProgress
            | strata_protocol::PlanStepStatus::Pending => line,
        });
    }
    if let Some(explanation) = &plan.explanation {
        lines.push(paint(DIM, format!("  {}", visible_inline(explanation))));
    }
    lines
}

#[cfg(test)]
mod tests {
    use strata_protocol::{Plan, PlanStep, PlanStepStatus};

    use super::plan_lines;

    #[test]
    fn a_plan_is_a_heading_and_a_line_a_step_with_no_escape_reaching_the_terminal() {
        let plan = Plan {
            explanation: Some("why\u{1b}]0;owned\u{7}".into()),
            plan: vec![
                PlanStep {
                    step: "read".into(),
                    status: PlanStepStatus::Completed,
                },
                PlanStep {
                    step: "fix \u{1b}[31mred\u{1b}[0m".into(),
                    status: PlanStepStatus::InProgress,
                },
            ],
        };
        let lines = plan_lines(&plan);
        assert_eq!(lines.len(), 4);
        assert!(lines[0].contains("→ plan · 1 of 2 done"));
        assert!(lines[1].contains("[x] read"));
        assert!(lines[2].starts_with("  [>] fix "));
        // Only the styles this module paints may carry an escape.
        assert!(!lines[2].contains('\u{1b}'), "{:?}", lines[2]);
        assert!(!lines[3].contains('\u{7}'), "{:?}", lines[3]);
    }
}

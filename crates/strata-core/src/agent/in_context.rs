//! The layered summary asked for in the session's own context
//! ([`crate::compaction::build_in_context_summary_request`]): tried first
//! for every summary of the whole history, since it reads back the prompt
//! cache the last round wrote; a reply that is not a plain summary, or an
//! error, falls back to the summarizer's request over the originals.

use super::Agent;
use super::compact::{Done, Summarized, no_smaller_input_fixes};
use crate::compaction::{build_in_context_summary_request, in_context_summary_text};
use crate::tools::CancellationToken;

impl Agent {
    /// `None` when the caller should fall back: the reply called a tool or
    /// had no text, or the request failed in a way a request over the
    /// originals may not (credentials and quota fail the summary at once).
    pub(super) async fn summarize_in_context(
        &self,
        focus: Option<&str>,
        cancel: &CancellationToken,
    ) -> Option<Summarized> {
        let external = self.tools.external_tools();
        let request = build_in_context_summary_request(self.round_request(&external), focus);
        let response = tokio::select! {
            biased;
            () = cancel.cancelled() => return Some(Summarized::Cancelled),
            response = self.gateway.create_response(request) => response,
        };
        let response = match response {
            Ok(response) => response,
            Err(error) if no_smaller_input_fixes(&error) => {
                return Some(Summarized::Failed {
                    attempts: 1,
                    message: error.to_string(),
                });
            }
            Err(_) => return None,
        };
        let text = in_context_summary_text(&response)?;
        let model = if response.model.is_empty() {
            self.config.model.clone()
        } else {
            response.model
        };
        Some(Summarized::Done(Done {
            text,
            model,
            usage: response.usage,
            left_out: 0,
            in_context: true,
        }))
    }
}

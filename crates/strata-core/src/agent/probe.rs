//! A question about the history, asked without recording anything: what
//! `strata eval compaction` asks a compacted session to find out what the
//! model still knows.

use strata_protocol::{ModelError, ModelRequest, ModelResponse, ResponseItem, ToolChoice};

use super::Agent;
use crate::tools::CancellationToken;

impl Agent {
    /// Sends the history as the next round would (its items, the round's
    /// tool specs, since providers refuse tool items without them, and the
    /// output limit) with `question` as a last user message, tool choice
    /// `none` and no streaming; the session file is left as it was.
    /// `None` when cancelled first.
    pub async fn probe(
        &self,
        question: &str,
        cancel: &CancellationToken,
    ) -> Option<Result<ModelResponse, ModelError>> {
        let tools = self.round_tool_specs();
        let tool_choice = (!tools.is_empty()).then_some(ToolChoice::None);
        let mut input = self.session.history().items().to_vec();
        input.push(ResponseItem::user(question));
        let request = ModelRequest {
            model: self.config.model.clone(),
            input,
            tools,
            tool_choice,
            max_output_tokens: self.config.max_output_tokens,
            session_id: None,
            reasoning: None,
            cache_anchors: Vec::new(),
        };
        tokio::select! {
            biased;
            () = cancel.cancelled() => None,
            response = self.gateway.create_response(request) => Some(response),
        }
    }
}

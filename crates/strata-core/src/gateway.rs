//! The seam between the agent and a model. Implementations (HTTP providers,
//! the offline demo model) live in `strata-providers`; core never does HTTP.

use futures::future::BoxFuture;
use futures::stream::BoxStream;
use strata_protocol::{ModelError, ModelEvent, ModelRequest, ModelResponse};

/// A model that can stream a response or answer in one piece.
pub trait ModelGateway: Send + Sync {
    /// Streams one response. Dropping the stream cancels the request.
    fn stream_response(
        &self,
        request: ModelRequest,
    ) -> BoxStream<'static, Result<ModelEvent, ModelError>>;

    /// One whole response, without streaming and without tools; used for
    /// compaction summaries.
    fn create_response(
        &self,
        request: ModelRequest,
    ) -> BoxFuture<'static, Result<ModelResponse, ModelError>>;
}

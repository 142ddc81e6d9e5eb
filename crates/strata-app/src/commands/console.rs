//! The debug console's commands: its folded view from the tail, and the
//! rounds log's exact requests a page at a time.

use std::sync::Arc;

use strata_core::store::round_requests as rounds_of;
use strata_protocol::{ConsoleView, GetRoundRequests, OpenConsole, RoundPage};

use crate::App;
use crate::error::CommandResult;
use crate::library::page_bounds;

impl App {
    /// `open_console`: the console's snapshot. The first page folds the
    /// file afresh (a writer outside this app may have added to it) and
    /// keeps the fold for the turn's live updates; an older page is cut
    /// from the kept fold.
    pub async fn open_console(
        self: &Arc<Self>,
        request: OpenConsole,
    ) -> CommandResult<ConsoleView> {
        let live = self.live(request.session_id);
        self.blocking(move |app| app.console_page(&request, live.as_deref()))
            .await
    }

    /// `round_requests`: a page of the session's rounds (at most
    /// [`MAX_ROUND_PAGE`]), each with the exact request it sent.
    pub async fn round_requests(
        self: &Arc<Self>,
        request: GetRoundRequests,
    ) -> CommandResult<RoundPage> {
        let (offset, limit) = page_bounds(request.offset, request.limit);
        self.blocking(move |app| {
            let read = app.browse(request.session_id)?;
            Ok(rounds_of(&read.meta, &read.records, offset, limit))
        })
        .await
    }
}

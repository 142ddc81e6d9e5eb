//! Every desktop command, declared once in [`with_commands!`]: its name,
//! request type and result type, and who answers it. Everything else that
//! names commands is made from that list: the [`Command`] impls and
//! [`COMMAND_NAMES`] here, the Tauri wrappers and their handler list
//! (src-tauri's commands.rs), the build script's permissions
//! (src-tauri/build.rs) and the TypeScript `Commands` map
//! (ui/src/bindings/Commands.ts, by the bindings test). A test checks the
//! capability file and docs/desktop-commands.md against it.
//!
//! Over IPC every command takes its request as one argument, `request`;
//! a command with events also takes the channel they arrive on, `on_event`.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// An operation of the contract: its request type names what it returns.
pub trait Command {
    /// The command's name over IPC.
    const NAME: &'static str;
    type Output;
}

/// Calls `$callback!` with every command, one row each:
///
/// ```text
/// App name(Request) -> Output;                   // an `App` method of that name
/// App name(Request) -> Output, events Event;     // ... given the caller's event sink
/// Shell name(Request) -> Output[, events Event]; // written by hand in the desktop shell
/// ```
///
/// `Shell` commands need the shell's own objects (the window for a dialog,
/// the system opener, the window's library feed), so src-tauri writes them
/// itself, under the same name; the generated handler list names them too,
/// so a missing one fails the build.
#[macro_export]
macro_rules! with_commands {
    ($callback:ident) => {
        $callback! {
            App app_info($crate::GetAppInfo) -> $crate::AppInfo;
            App list_sessions($crate::ListSessions) -> $crate::SessionPage;
            App search_sessions($crate::SearchSessions) -> $crate::SearchResults;
            App open_session($crate::OpenSession) -> $crate::SessionView;
            App create_session($crate::CreateSession) -> $crate::SessionListItem;
            App send_message($crate::SendMessage) -> $crate::SendOutcome, events $crate::LiveBatch;
            App stop_turn($crate::StopTurn) -> bool;
            App answer_approval($crate::AnswerApproval) -> bool;
            App compact_now($crate::CompactNow) -> $crate::CompactOutcome, events $crate::LiveBatch;
            App rename_session($crate::RenameSession) -> $crate::SessionListItem;
            App delete_session($crate::DeleteSession) -> ();
            App export_session($crate::ExportSession) -> $crate::SessionExport;
            App get_settings($crate::GetSettings) -> $crate::Settings;
            App save_settings($crate::SaveSettings) -> $crate::Settings;
            App set_api_key($crate::SetApiKey) -> ();
            App save_layout($crate::SaveLayout) -> ();
            App switch_profile($crate::SwitchProfile) -> $crate::SessionListItem;
            App provider_kinds($crate::ListProviderKinds) -> ::std::vec::Vec<$crate::ProviderKindInfo>;
            App test_connection($crate::TestConnection) -> $crate::ConnectionReport;
            App list_models($crate::ListModels) -> $crate::ModelList;
            App compaction_views($crate::GetCompactionViews) -> ::std::vec::Vec<$crate::CompactionView>;
            App open_console($crate::OpenConsole) -> $crate::ConsoleView;
            App round_requests($crate::GetRoundRequests) -> $crate::RoundPage;
            App open_transcript($crate::OpenTranscript) -> $crate::TranscriptPage;
            App tool_output($crate::GetToolOutput) -> $crate::ToolOutputText;
            Shell watch_library($crate::WatchLibrary) -> (), events $crate::LibraryChange;
            Shell pick_workspace($crate::PickWorkspace) -> ::std::option::Option<::std::string::String>;
            App compaction_status($crate::GetCompactionStatus) -> $crate::CompactionStatus;
            App set_compaction_policy($crate::SetCompactionPolicy) -> $crate::CompactionStatus;
            App preview_compaction($crate::PreviewCompaction) -> $crate::CompactionPreview;
            App check_threshold($crate::CheckThreshold) -> $crate::ThresholdCheck;
            App session_items($crate::ListSessionItems) -> $crate::SessionItems;
            App pin_item($crate::PinItem) -> $crate::ItemPinned;
            App compact_up_to($crate::CompactUpTo) -> $crate::CompactOutcome, events $crate::LiveBatch;
            App undo_compaction($crate::UndoCompaction) -> $crate::CompactionUndoneView;
            App fork_session($crate::ForkSession) -> $crate::SessionForkView;
            Shell open_external_link($crate::OpenExternalLink) -> ();
            App recent($crate::GetRecent) -> $crate::Recent;
            App remember_open($crate::RememberOpen) -> ();
        }
    };
}

/// Who answers a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handler {
    /// The `App` method of the command's name, through generated glue.
    App,
    /// The desktop shell, by hand.
    Shell,
}

/// One row of the list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommandInfo {
    pub name: &'static str,
    pub handler: Handler,
    /// Whether the command streams events to an `on_event` channel.
    pub events: bool,
}

macro_rules! contract {
    ($($handler:ident $name:ident($request:ty) -> $output:ty $(, events $events:ty)?;)*) => {
        $(impl Command for $request {
            const NAME: &'static str = stringify!($name);
            type Output = $output;
        })*

        /// Every command, in list order.
        pub const COMMANDS: &[CommandInfo] = &[$(CommandInfo {
            name: stringify!($name),
            handler: Handler::$handler,
            events: contract!(@events $($events)?),
        }),*];

        /// Every command's IPC name, in list order.
        pub const COMMAND_NAMES: &[&str] = &[$(stringify!($name)),*];
    };
    (@events) => { false };
    (@events $events:ty) => { true };
}

crate::with_commands!(contract);

/// `pick_workspace`: the native folder picker for a new session's
/// workspace; `None` when cancelled.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PickWorkspace {}

/// `open_external_link`: opens `url` in the system's browser or mail
/// client, after checking it again (the person confirmed it in the UI).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct OpenExternalLink {
    pub url: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_name_appears_once() {
        let mut names = COMMAND_NAMES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), COMMAND_NAMES.len());
        assert_eq!(<crate::SendMessage as Command>::NAME, "send_message");
    }
}

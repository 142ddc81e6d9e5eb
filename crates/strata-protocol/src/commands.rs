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
/// group: App name(Request) -> Output;                   // an `App` method of that name
/// group: App name(Request) -> Output, events Event;     // ... given the caller's event sink
/// group: Shell name(Request) -> Output[, events Event]; // written by hand in the desktop shell
/// ```
///
/// `group` is the command's group (`library`, `imported`, `conversation`, `context`,
/// `console`, `changes`, `settings`, `mcp`, `shell`), the rows of a group together: the
/// headings of docs/desktop-commands.md.
///
/// `Shell` commands need the shell's own objects (the window for a dialog,
/// the system opener, the window's library feed), so src-tauri writes them
/// itself, under the same name; the generated handler list names them too,
/// so a missing one fails the build.
#[macro_export]
macro_rules! with_commands {
    ($callback:ident) => {
        $callback! {
            library: App list_sessions($crate::ListSessions) -> $crate::SessionPage;
            library: App search_sessions($crate::SearchSessions) -> $crate::SearchResults;
            library: App open_session($crate::OpenSession) -> $crate::SessionView;
            library: App open_transcript($crate::OpenTranscript) -> $crate::TranscriptPage;
            library: App create_session($crate::CreateSession) -> $crate::SessionListItem;
            library: App rename_session($crate::RenameSession) -> $crate::SessionListItem;
            library: App delete_session($crate::DeleteSession) -> ();
            library: App export_session($crate::ExportSession) -> $crate::SessionExport;
            library: App fork_session($crate::ForkSession) -> $crate::SessionForkView;
            library: App preview_fork($crate::PreviewFork) -> $crate::ForkPreview;
            library: App recent($crate::GetRecent) -> $crate::Recent;
            library: App remember_open($crate::RememberOpen) -> ();
            imported: App list_imported($crate::ListImported) -> $crate::ImportedPage;
            imported: App open_imported($crate::OpenImported) -> $crate::ImportedSessionView;
            imported: App search_imported($crate::SearchImported) -> $crate::ImportedHits;
            imported: App hide_imported($crate::HideImported) -> ();
            imported: App import_sessions($crate::ImportSessions) -> $crate::ImportReport;
            imported: App import_settings($crate::GetImportSettings) -> $crate::ImportSettingsView;
            imported: App save_import_settings($crate::SaveImportSettings) -> $crate::ImportSettingsView;
            conversation: App send_message($crate::SendMessage) -> $crate::SendOutcome, events $crate::LiveBatch;
            conversation: App stop_turn($crate::StopTurn) -> bool;
            conversation: App answer_approval($crate::AnswerApproval) -> bool;
            conversation: App tool_output($crate::GetToolOutput) -> $crate::ToolOutputText;
            conversation: App set_reasoning($crate::SetReasoning) -> $crate::ReasoningEffort;
            conversation: App list_slash_commands($crate::ListSlashCommands) -> $crate::SlashCommands;
            conversation: App find_workspace_files($crate::FindWorkspaceFiles) -> $crate::WorkspaceFiles;
            context: App compact_now($crate::CompactNow) -> $crate::CompactOutcome, events $crate::LiveBatch;
            context: App compact_up_to($crate::CompactUpTo) -> $crate::CompactOutcome, events $crate::LiveBatch;
            context: App undo_compaction($crate::UndoCompaction) -> $crate::CompactionUndoneView;
            context: App compaction_status($crate::GetCompactionStatus) -> $crate::CompactionStatus;
            context: App set_compaction_policy($crate::SetCompactionPolicy) -> $crate::CompactionStatus;
            context: App preview_compaction($crate::PreviewCompaction) -> $crate::CompactionPreview;
            context: App check_threshold($crate::CheckThreshold) -> $crate::ThresholdCheck;
            context: App session_items($crate::ListSessionItems) -> $crate::SessionItems;
            context: App pin_item($crate::PinItem) -> $crate::ItemPinned;
            context: App compaction_views($crate::GetCompactionViews) -> ::std::vec::Vec<$crate::CompactionView>;
            console: App open_console($crate::OpenConsole) -> $crate::ConsoleView;
            console: App round_requests($crate::GetRoundRequests) -> $crate::RoundPage;
            changes: App list_changes($crate::ListChanges) -> $crate::SessionChanges;
            changes: App change_diff($crate::GetChangeDiff) -> $crate::ChangeDiff;
            changes: App preview_restore($crate::PreviewRestore) -> $crate::RestoreReport;
            changes: App restore_files($crate::RestoreFiles) -> $crate::RestoreReport;
            settings: App app_info($crate::GetAppInfo) -> $crate::AppInfo;
            settings: App get_settings($crate::GetSettings) -> $crate::Settings;
            settings: App save_settings($crate::SaveSettings) -> $crate::Settings;
            settings: App set_api_key($crate::SetApiKey) -> ();
            settings: App save_layout($crate::SaveLayout) -> ();
            settings: App switch_profile($crate::SwitchProfile) -> $crate::SessionListItem;
            settings: App provider_kinds($crate::ListProviderKinds) -> ::std::vec::Vec<$crate::ProviderKindInfo>;
            settings: App test_connection($crate::TestConnection) -> $crate::ConnectionReport;
            settings: App list_models($crate::ListModels) -> $crate::ModelList;
            settings: App list_rules($crate::ListRules) -> $crate::RulesListing;
            settings: App add_rule($crate::AddRule) -> $crate::RulesListing;
            settings: App remove_rule($crate::RemoveRule) -> $crate::RulesListing;
            settings: App get_workspace_network($crate::GetWorkspaceNetwork) -> $crate::WorkspaceNetworkView;
            settings: App save_workspace_network($crate::SaveWorkspaceNetwork) -> $crate::WorkspaceNetworkView;
            mcp: App list_mcp_servers($crate::ListMcpServers) -> $crate::McpServerListing;
            mcp: App add_mcp_server($crate::AddMcpServer) -> $crate::McpServerListing;
            mcp: App remove_mcp_server($crate::RemoveMcpServer) -> $crate::McpServerListing;
            mcp: App set_mcp_server_enabled($crate::SetMcpServerEnabled) -> $crate::McpServerListing;
            mcp: App test_mcp_server($crate::TestMcpServer) -> $crate::McpServerTest;
            mcp: App mcp_server_log($crate::GetMcpServerLog) -> $crate::McpServerLog;
            shell: Shell pick_workspace($crate::PickWorkspace) -> ::std::option::Option<::std::string::String>;
            shell: Shell pick_import_paths($crate::PickImportPaths) -> ::std::vec::Vec<::std::string::String>;
            shell: Shell open_external_link($crate::OpenExternalLink) -> ();
            shell: Shell watch_library($crate::WatchLibrary) -> (), events $crate::LibraryChange;
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
    /// The command's group, as named in the list.
    pub group: &'static str,
    pub handler: Handler,
    /// Whether the command streams events to an `on_event` channel.
    pub events: bool,
}

macro_rules! contract {
    ($($group:ident: $handler:ident $name:ident($request:ty) -> $output:ty $(, events $events:ty)?;)*) => {
        $(impl Command for $request {
            const NAME: &'static str = stringify!($name);
            type Output = $output;
        })*

        /// Every command, in list order.
        pub const COMMANDS: &[CommandInfo] = &[$(CommandInfo {
            name: stringify!($name),
            group: stringify!($group),
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

    #[test]
    fn each_group_is_listed_together_and_shell_holds_exactly_the_shell_commands() {
        let mut seen: Vec<&str> = Vec::new();
        for command in COMMANDS {
            if seen.last() != Some(&command.group) {
                assert!(!seen.contains(&command.group), "{} split", command.group);
                seen.push(command.group);
            }
            assert_eq!(
                command.group == "shell",
                command.handler == Handler::Shell,
                "{}",
                command.name
            );
        }
    }
}

//! TypeScript bindings for the desktop UI, generated with ts-rs into
//! `ui/src/bindings/` and checked in. The test below regenerates them into a
//! temporary folder and fails when the checked-in files differ; it only
//! writes to `ui/src/bindings/` when asked to:
//!
//! ```text
//! make bindings   # STRATA_UPDATE_BINDINGS=1 cargo test -p strata-protocol --lib bindings
//! ```
//!
//! Token counts are `u64` in Rust and `number` in TypeScript (never `bigint`):
//! the export configuration maps every large integer to `number`.
//!
//! Besides ts-rs's files, `Commands.ts` is made from the one command list
//! ([`with_commands!`](crate::with_commands)): the `Commands` map the UI's
//! `call` is generic over, and every `CommandErrorKind`.

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::fs;
    use std::path::{Path, PathBuf};

    use ts_rs::{Config, Dependency, ExportError, TS, TypeVisitor};

    use crate::CompactionEval;
    use crate::ReasoningEffort;
    use crate::SandboxMode;
    use crate::{
        AgentEvent, AnswerApproval, AppInfo, ApprovalDecision, ApprovalKind, ApprovalPolicy,
        ApprovalRequest, CheckThreshold, CommandError, CommandErrorKind, CompactFinished,
        CompactNow, CompactOutcome, CompactPreview, CompactionList, CompactionPreview,
        CompactionStatus, CompactionView, CreateSession, DeleteSession, EventEnvelope,
        ExportFormat, ExportSession, GetAppInfo, GetCompactionStatus, GetCompactionViews,
        GetRoundRequests, GetSettings, GetToolOutput, LibraryChange, ListProviderKinds,
        ListSessions, LiveBatch, LiveEvent, ModelEvent, OpenSession, OpenTranscript,
        PreviewCompaction, ProfileView, ProviderKindInfo, RecordBody, RenameSession, RoundPage,
        SaveLayout, SaveSettings, SearchResults, SearchSessions, SendMessage, SendOutcome,
        SessionContext, SessionDeleted, SessionExport, SessionListItem, SessionPage,
        SessionStarted, SessionVerification, SessionView, SetApiKey, SetCompactionPolicy,
        SetReasoning, Settings, StopTurn, SwitchProfile, ThresholdCheck, ToolOutputText,
        TranscriptPage, TranscriptUpdate, TurnReport, WatchLibrary,
    };
    use crate::{
        CompactUpTo, CompactionUndoneView, ForkSession, ItemPinned, ListSessionItems, PinItem,
        SessionForkView, SessionItems, UndoCompaction,
    };
    use crate::{GetRecent, Recent, RememberOpen};

    const REFRESH: &str =
        "make bindings (STRATA_UPDATE_BINDINGS=1 cargo test -p strata-protocol --lib bindings)";
    const UPDATE_ENV: &str = "STRATA_UPDATE_BINDINGS";

    fn checked_in_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/bindings")
    }

    /// Every type the UI uses, with everything it depends on.
    fn export_into(dir: &Path) -> Result<(), ExportError> {
        let cfg = Config::new().with_large_int("number").with_out_dir(dir);
        AppInfo::export_all(&cfg)?;
        Settings::export_all(&cfg)?;
        ProfileView::export_all(&cfg)?;
        SessionListItem::export_all(&cfg)?;
        SessionView::export_all(&cfg)?;
        TurnReport::export_all(&cfg)?;
        SendOutcome::export_all(&cfg)?;
        CompactOutcome::export_all(&cfg)?;
        CommandError::export_all(&cfg)?;
        ExportFormat::export_all(&cfg)?;
        EventEnvelope::export_all(&cfg)?;
        AgentEvent::export_all(&cfg)?;
        RecordBody::export_all(&cfg)?;
        ApprovalDecision::export_all(&cfg)?;
        ApprovalPolicy::export_all(&cfg)?;
        ApprovalRequest::export_all(&cfg)?;
        ApprovalKind::export_all(&cfg)?;
        ModelEvent::export_all(&cfg)?;
        CompactionView::export_all(&cfg)?;
        RoundPage::export_all(&cfg)?;
        // The command contract's requests (crate::contract).
        GetAppInfo::export_all(&cfg)?;
        SaveLayout::export_all(&cfg)?;
        ListSessions::export_all(&cfg)?;
        SessionPage::export_all(&cfg)?;
        SearchSessions::export_all(&cfg)?;
        SearchResults::export_all(&cfg)?;
        OpenSession::export_all(&cfg)?;
        CreateSession::export_all(&cfg)?;
        SendMessage::export_all(&cfg)?;
        StopTurn::export_all(&cfg)?;
        AnswerApproval::export_all(&cfg)?;
        crate::ListRules::export_all(&cfg)?;
        crate::AddRule::export_all(&cfg)?;
        crate::RemoveRule::export_all(&cfg)?;
        crate::RulesListing::export_all(&cfg)?;
        crate::McpServerListing::export_all(&cfg)?;
        crate::GetWorkspaceNetwork::export_all(&cfg)?;
        crate::SaveWorkspaceNetwork::export_all(&cfg)?;
        crate::WorkspaceNetworkView::export_all(&cfg)?;
        crate::McpServerTest::export_all(&cfg)?;
        crate::McpImportReport::export_all(&cfg)?;
        crate::GetMcpServerLog::export_all(&cfg)?;
        crate::ListMcpServers::export_all(&cfg)?;
        crate::AddMcpServer::export_all(&cfg)?;
        crate::RemoveMcpServer::export_all(&cfg)?;
        crate::TestMcpServer::export_all(&cfg)?;
        crate::SetMcpServerEnabled::export_all(&cfg)?;
        crate::ListSlashCommands::export_all(&cfg)?;
        crate::SlashCommands::export_all(&cfg)?;
        crate::FindWorkspaceFiles::export_all(&cfg)?;
        crate::WorkspaceFiles::export_all(&cfg)?;
        CompactNow::export_all(&cfg)?;
        RenameSession::export_all(&cfg)?;
        DeleteSession::export_all(&cfg)?;
        ExportSession::export_all(&cfg)?;
        SwitchProfile::export_all(&cfg)?;
        GetSettings::export_all(&cfg)?;
        SaveSettings::export_all(&cfg)?;
        SetApiKey::export_all(&cfg)?;
        ListProviderKinds::export_all(&cfg)?;
        ProviderKindInfo::export_all(&cfg)?;
        GetRecent::export_all(&cfg)?;
        Recent::export_all(&cfg)?;
        RememberOpen::export_all(&cfg)?;
        SessionVerification::export_all(&cfg)?;
        GetCompactionViews::export_all(&cfg)?;
        GetRoundRequests::export_all(&cfg)?;
        SessionStarted::export_all(&cfg)?;
        SessionDeleted::export_all(&cfg)?;
        // The transcript the conversation renders (crate::transcript).
        OpenTranscript::export_all(&cfg)?;
        TranscriptPage::export_all(&cfg)?;
        TranscriptUpdate::export_all(&cfg)?;
        LiveEvent::export_all(&cfg)?;
        LiveBatch::export_all(&cfg)?;
        // The debug console (crate::console).
        crate::OpenConsole::export_all(&cfg)?;
        crate::ConsoleView::export_all(&cfg)?;
        crate::ConsoleUpdate::export_all(&cfg)?;
        // The Changes view (crate::changes).
        crate::ListChanges::export_all(&cfg)?;
        crate::SessionChanges::export_all(&cfg)?;
        crate::GetChangeDiff::export_all(&cfg)?;
        crate::ChangeDiff::export_all(&cfg)?;
        crate::PreviewRestore::export_all(&cfg)?;
        crate::RestoreFiles::export_all(&cfg)?;
        crate::RestoreReport::export_all(&cfg)?;
        GetToolOutput::export_all(&cfg)?;
        ToolOutputText::export_all(&cfg)?;
        SessionExport::export_all(&cfg)?;
        WatchLibrary::export_all(&cfg)?;
        LibraryChange::export_all(&cfg)?;
        // The command line's other --json objects (crate::output).
        SessionContext::export_all(&cfg)?;
        CompactionList::export_all(&cfg)?;
        CompactFinished::export_all(&cfg)?;
        CompactionEval::export_all(&cfg)?;
        CompactPreview::export_all(&cfg)?;
        // Context management (issue 11): status, per-session policy,
        // preview and threshold check.
        GetCompactionStatus::export_all(&cfg)?;
        SetCompactionPolicy::export_all(&cfg)?;
        SetReasoning::export_all(&cfg)?;
        ReasoningEffort::export_all(&cfg)?;
        SandboxMode::export_all(&cfg)?;
        crate::SandboxNetwork::export_all(&cfg)?;
        PreviewCompaction::export_all(&cfg)?;
        CheckThreshold::export_all(&cfg)?;
        CompactionStatus::export_all(&cfg)?;
        CompactionPreview::export_all(&cfg)?;
        ThresholdCheck::export_all(&cfg)?;
        // Recall, pins, partial compaction, undo and fork (issue 12).
        ListSessionItems::export_all(&cfg)?;
        SessionItems::export_all(&cfg)?;
        PinItem::export_all(&cfg)?;
        ItemPinned::export_all(&cfg)?;
        CompactUpTo::export_all(&cfg)?;
        UndoCompaction::export_all(&cfg)?;
        CompactionUndoneView::export_all(&cfg)?;
        ForkSession::export_all(&cfg)?;
        SessionForkView::export_all(&cfg)?;
        crate::PreviewFork::export_all(&cfg)?;
        crate::ForkPreview::export_all(&cfg)?;
        fs::write(dir.join("Commands.ts"), commands_ts(&cfg)?)?;
        Ok(())
    }

    /// Exports a command's type, or for `Vec<T>` and `Option<T>` the types in
    /// it, and notes the imports naming it needs.
    struct Types<'a> {
        cfg: &'a Config,
        imports: BTreeMap<String, PathBuf>,
        error: Option<ExportError>,
    }

    impl Types<'_> {
        /// `T`'s TypeScript name; `()` (sent as `null`) is `void`, so the
        /// UI's callers need not look at it.
        fn name<T: TS + 'static + ?Sized>(&mut self) -> String {
            if std::any::TypeId::of::<T>() == std::any::TypeId::of::<()>() {
                return "void".to_owned();
            }
            if T::output_path().is_some() {
                self.visit::<T>();
            } else {
                T::visit_generics(self);
            }
            T::name(self.cfg)
        }
    }

    impl TypeVisitor for Types<'_> {
        fn visit<T: TS + 'static + ?Sized>(&mut self) {
            let Some(dependency) = Dependency::from_ty::<T>(self.cfg) else {
                return;
            };
            if self.error.is_none() {
                self.error = T::export_all(self.cfg).err();
            }
            self.imports
                .insert(dependency.ts_name, dependency.output_path);
        }
    }

    /// `Commands.ts`: one entry per row of the command list.
    fn commands_ts(cfg: &Config) -> Result<String, ExportError> {
        let mut types = Types {
            cfg,
            imports: BTreeMap::new(),
            error: None,
        };
        let mut entries = Vec::new();
        macro_rules! entries {
            ($($group:ident: $handler:ident $name:ident($request:ty) -> $output:ty $(, events $events:ty)?;)*) => {
                $(
                    let request = types.name::<$request>();
                    let result = types.name::<$output>();
                    let events: Option<String> = entries!(@events $($events)?);
                    entries.push((stringify!($name), request, result, events));
                )*
            };
            (@events) => { None };
            (@events $events:ty) => { Some(types.name::<$events>()) };
        }
        crate::with_commands!(entries);
        let kinds = types.name::<CommandErrorKind>();
        if let Some(error) = types.error {
            return Err(error);
        }

        let mut out = String::from(
            "// Generated from strata-protocol's command list (`with_commands!`) by its bindings test. Do not edit this file manually.\n",
        );
        for (name, path) in &types.imports {
            let module = path.with_extension("");
            out.push_str(&format!(
                "import type {{ {name} }} from \"./{}\";\n",
                module.display()
            ));
        }
        out.push_str(
            "\n/**\n * Every desktop command: the `request` it takes, the `result` it returns and, for one with\n * events, what arrives on its `on_event` channel.\n */\nexport type Commands = {\n",
        );
        for (name, request, result, events) in entries {
            let events = events.map(|e| format!(" events: {e};")).unwrap_or_default();
            out.push_str(&format!(
                "  {name}: {{ request: {request}; result: {result};{events} }};\n"
            ));
        }
        out.push_str("};\n\n/** Every kind of command error, in declaration order. */\n");
        let all: Vec<String> = CommandErrorKind::ALL
            .iter()
            .map(|kind| serde_json::to_string(kind).unwrap())
            .collect();
        out.push_str(&format!(
            "export const COMMAND_ERROR_KINDS: readonly {kinds}[] = [{}];\n",
            all.join(", ")
        ));
        Ok(out)
    }

    /// Every file under `dir`, by path relative to it.
    fn files(dir: &Path) -> BTreeMap<PathBuf, String> {
        fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, String>) {
            let Ok(entries) = fs::read_dir(dir) else {
                return;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(root, &path, out);
                } else {
                    let text = fs::read_to_string(&path).unwrap();
                    out.insert(path.strip_prefix(root).unwrap().to_path_buf(), text);
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(dir, dir, &mut out);
        out
    }

    #[test]
    fn checked_in_bindings_match_the_rust_types() {
        let fresh = tempfile::tempdir().unwrap();
        export_into(fresh.path()).unwrap();
        let generated = files(fresh.path());
        assert!(
            generated.len() > 20,
            "only {} bindings generated",
            generated.len()
        );
        for (path, text) in &generated {
            assert!(
                !text.contains("bigint"),
                "{} uses bigint; token counts must be numbers",
                path.display()
            );
        }

        let dir = checked_in_dir();
        if std::env::var_os(UPDATE_ENV).is_some_and(|v| v == "1") {
            if dir.exists() {
                fs::remove_dir_all(&dir).unwrap();
            }
            for (path, text) in &generated {
                let target = dir.join(path);
                fs::create_dir_all(target.parent().unwrap()).unwrap();
                fs::write(target, text).unwrap();
            }
            return;
        }

        let checked_in = files(&dir);
        let mut problems = Vec::new();
        for (path, text) in &generated {
            match checked_in.get(path) {
                None => problems.push(format!("missing: {}", path.display())),
                Some(old) if old != text => problems.push(format!("stale: {}", path.display())),
                Some(_) => {}
            }
        }
        for path in checked_in.keys() {
            if !generated.contains_key(path) {
                problems.push(format!("not generated any more: {}", path.display()));
            }
        }
        assert!(
            problems.is_empty(),
            "ui/src/bindings drifted from the Rust types in strata-protocol:\n  {}\nRefresh them with: {REFRESH}",
            problems.join("\n  ")
        );
    }
}

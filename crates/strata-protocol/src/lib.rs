//! Types shared by every Strata component: the model-visible history, the
//! records of a session file, token usage, and the model gateway's request,
//! event and error types. Everything here is plain data with serde; no I/O.

mod bindings;
mod changes;
mod checkpoint;
mod commands;
mod connection;
mod console;
mod context;
mod contract;
mod desktop;
mod events;
mod failure;
mod file_change;
mod fork;
mod ids;
mod imported;
mod inspect;
mod instructions;
mod items;
mod items_de;
mod mcp_catalog;
mod mcp_servers;
mod mentions;
mod model;
mod network_file;
mod output;
mod plan;
mod pricing;
mod provider;
mod reasoning;
mod recall;
mod recent;
mod records;
mod rules;
mod sandbox;
mod slash;
mod tools;
mod transcript;
mod usage;

pub use changes::{
    CallChanges, ChangeDiff, ChangeGroup, ChangedFile, DiffBody, DiffHunk, DiffLine, DiffTag,
    DiffTarget, DiffWithheld, GetChangeDiff, ListChanges, PreviewRestore, RestoreFiles,
    RestoreTarget, SessionChanges, SessionFileChange,
};
pub use checkpoint::{
    Checkpoint, CheckpointDivergence, CheckpointState, CheckpointUndoPoint, CheckpointUndoRef,
    CheckpointUsage,
};
pub use commands::{
    COMMAND_NAMES, COMMANDS, Command, CommandInfo, Handler, OpenExternalLink, PickWorkspace,
};
pub use connection::{ConnectionReport, ListModels, ModelList, ProviderDraft, TestConnection};
pub use console::{CacheBreak, CacheBreakCause, SessionCost, StepMoney, TurnCost};
pub use console::{
    ChartMarker, ChartPoint, ConsoleStep, ConsoleUpdate, ConsoleView, GaugeReading, LogFamily,
    LogKind, LogRow, LogTone, ModelGroupId, ModelViewGroup, OpenConsole, StepFigures, TokenFigure,
    UndoState,
};
pub use context::{
    CompactionPolicy, CompactionPolicyRecord, CompactionPreview, CompactionStatus, EvictedOutput,
    LayeredCompaction, LossAudit, SHEET_FINAL_MESSAGE_CHARS, SheetCommand, SheetError, SheetFile,
    SheetGroup, StateSheet, ThresholdCheck, ThresholdSetting, ToolOutputsEvicted,
};
pub use contract::{
    AnswerApproval, CONTRACT_FORMAT_VERSION, CheckThreshold, CompactNow, CreateSession,
    DeleteSession, ExportSession, GetAppInfo, GetCompactionStatus, GetCompactionViews,
    GetRoundRequests, GetSettings, GetToolOutput, LibraryChange, ListProviderKinds, ListSessions,
    OpenSession, OpenTranscript, PreviewCompaction, ProviderKindInfo, RenameSession, SaveLayout,
    SaveSettings, SearchHit, SearchHitKind, SearchResults, SearchSessions, SendMessage,
    SessionExport, SessionPage, SessionVerification, SetApiKey, SetCompactionPolicy, SetReasoning,
    StopTurn, SwitchProfile, TextRange, WatchLibrary,
};
pub use contract::{
    CompactUpTo, CompactionUndoneView, ItemPinned, ListSessionItems, PinItem, SessionItems,
    UndoCompaction,
};
pub use desktop::{
    AppInfo, CommandError, CommandErrorKind, CompactOutcome, ExportFormat, ForkOrigin, ProfileView,
    SendOutcome, SessionListItem, SessionView, Settings, Theme, TurnReport,
};
pub use events::{
    AgentEvent, DebugEvent, EVENT_FORMAT_VERSION, EventEnvelope, MainlineEvent, ToolCallStatus,
};
pub use failure::{FailureKind, ProviderFailure, Recovery};
pub use file_change::{
    ChangeCause, ChangeKind, FileChange, FileChangeRow, FileChanges, FileState, RestoreFile,
    RestoreRefusal, RestoreReport, RestoreStep,
};
pub use fork::{ForkFiles, ForkFilesDone, ForkPreview, ForkSession, PreviewFork, SessionForkView};
pub use ids::{ItemId, RoundId, SessionId, TurnId};
pub use imported::{
    GetImportSettings, HideImported, ImportCounts, ImportReport, ImportSessions, ImportSettings,
    ImportSettingsView, ImportSource, ImportedCompactionCard, ImportedCompactionKind, ImportedHits,
    ImportedLossAudit, ImportedPage, ImportedSearchHit, ImportedSessionItem, ImportedSessionView,
    ImportedSummaryView, ImportedWarnings, ListImported, OpenImported, PickImportPaths,
    SaveImportSettings, SearchImported, SessionImported, UnreadableImport,
};
pub use inspect::{CompactionView, RoundPage, RoundView};
pub use instructions::{InstructionSource, InstructionsSet};
pub use items::{
    COMPACTION_SUMMARY_PREFIX, CompactionMetadata, CompactionSummary, CompactionTrigger,
    FunctionCall, FunctionCallOutput, Message, ReasoningItem, ResponseItem, Role,
};
pub use mcp_catalog::{McpCatalog, McpCatalogServer, McpCatalogTool};
pub use mcp_servers::{
    AddMcpServer, GetMcpServerLog, ListMcpServers, McpApprovalMode, McpImportReport,
    McpImportSkipped, McpImportedServer, McpLeftOutTool, McpServerListing, McpServerLog,
    McpServerProblem, McpServerTest, McpServerView, McpTestPhase, McpTestPhaseKind, McpTestTool,
    RemoveMcpServer, SetMcpServerEnabled, TestMcpServer,
};
pub use mentions::{FindWorkspaceFiles, WorkspaceFile, WorkspaceFiles};
pub use model::{
    ModelError, ModelEvent, ModelRequest, ModelResponse, StopReason, ToolChoice, ToolSpec,
};
pub use network_file::{GetWorkspaceNetwork, SaveWorkspaceNetwork, WorkspaceNetworkView};
pub use output::{
    CompactFinished, CompactPreview, CompactResult, CompactionEntry, CompactionEval,
    CompactionList, CostOutput, EvalFixture, OutputKind, PolicyEval, ProbeScore, SessionContext,
    SessionDeleted, SessionStarted,
};
pub use plan::{Plan, PlanStep, PlanStepStatus};
pub use pricing::{
    BilledTokens, CONFIG_PRICE_AS_OF, Cost, MicroUsdPerMtok, ModelPrice, PICO_PER_USD, PRICE_TABLE,
    PRICE_TABLE_DATE, PriceQuote, PriceRow, Usd, is_snapshot_suffix, lookup_price,
};
pub use provider::{
    ProfileChange, ProfileSet, ProviderKind, UnknownProviderKind, endpoint_without_secrets,
};
pub use reasoning::{ReasoningEffort, ReasoningSet, UnknownReasoningEffort};
pub use recall::{
    CompactionRefused, CompactionUndone, ForkPoint, ItemPin, RecordedItem, SessionForked,
};
pub use recent::{GetRecent, Recent, RememberOpen};
pub use records::{
    ApprovalDecision, ApprovalDecisionRecord, CompactionGuardRecord, CompactionSpan, ErrorRecord,
    FIRST_RECORD_FORMAT_VERSION, FullToolOutput, RECORD_FORMAT_VERSION, Record, RecordBody,
    RetryRecord, RoundRecord, SessionMeta, SessionRepaired, TitleSet, TokenUsageRecord,
    TornTailMoved, TurnFinished, TurnOutcome, TurnStarted, UnknownRecord,
};
pub use rules::{
    AddRule, DecidedBy, ListRules, RemoveRule, RuleKind, RuleList, RuleRef, RuleSource,
    RulesConfig, RulesListing,
};
pub use sandbox::{SandboxMode, SandboxNetwork, SandboxSet};
pub use slash::{
    ListSlashCommands, SlashCommand, SlashCommandProblem, SlashCommandSource, SlashCommands,
};
pub use tools::{ApprovalKind, ApprovalPolicy, ApprovalRequest, tool_names};
pub use transcript::{
    ApprovalView, CompactionProblem, LiveBatch, LiveEvent, OUTPUT_PREVIEW_CHARS, OutputPreview,
    RecoveryNotice, ToolEntry, ToolOutputText, ToolState, TranscriptEntry, TranscriptPage,
    TranscriptUpdate, Unsaved,
};
pub use usage::TokenUsage;

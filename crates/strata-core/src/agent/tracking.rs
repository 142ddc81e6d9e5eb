//! Recording the files a call changes: the prior content kept before the
//! call runs, a `file_change` record per changed file after it.

use strata_protocol::{ChangeCause, FileChange, FileState, RecordBody, ToolCallStatus, TurnId};

use super::Agent;
use crate::changes::BlobStore;
use crate::changes::snapshot::{self, Snapshot, SnapshotLimits};
use crate::error::Result;
use crate::tools::{APPLY_EDIT, AnyCall, ToolKind};

/// What was seen before a call, to compare with after it.
pub(super) enum Before {
    Nothing,
    Write {
        path: String,
        state: Option<FileState>,
        cause: ChangeCause,
    },
    Shell(Snapshot),
}

impl Agent {
    fn blobs(&self) -> BlobStore {
        BlobStore::beside(self.session.path()).withholding(&self.tools.config().secrets)
    }

    /// Keeps what `call` may change, before it runs.
    pub(super) fn before_call(&mut self, call: &AnyCall) -> Before {
        // An MCP server's own file changes are not tracked (yet): it runs
        // outside the workspace's handle, beyond what a walk here could
        // attribute to the call.
        let AnyCall::Builtin(call) = call else {
            return Before::Nothing;
        };
        let blobs = self.blobs();
        match call.kind() {
            ToolKind::Read => Before::Nothing,
            ToolKind::Write => {
                let Some(target) = self.tools.write_target(call) else {
                    return Before::Nothing;
                };
                let cause = if call.name() == APPLY_EDIT {
                    ChangeCause::ApplyEdit
                } else {
                    ChangeCause::WriteFile
                };
                Before::Write {
                    path: target.path.to_owned(),
                    state: target.old.map(|bytes| keep(&blobs, bytes)),
                    cause,
                }
            }
            ToolKind::Shell => Before::Shell(snapshot::take(
                self.tools.workspace_root(),
                self.shell_snapshot.as_ref(),
                &blobs,
                SnapshotLimits::default(),
            )),
        }
    }

    /// Records what the call changed, comparing with `before`. A write
    /// that failed changed nothing (and a file changed under it is the
    /// person's, not the tool's); a shell command that failed or was
    /// cancelled may still have changed files.
    pub(super) fn after_call(
        &mut self,
        turn_id: TurnId,
        call_id: &str,
        before: Before,
        status: ToolCallStatus,
    ) -> Result<()> {
        let blobs = self.blobs();
        let record = |path: String, before, after, cause| FileChange {
            path,
            before,
            after,
            cause,
            call_id: call_id.to_owned(),
            turn_id: Some(turn_id),
        };
        let changes = match before {
            Before::Nothing => Vec::new(),
            Before::Write { .. } if status != ToolCallStatus::Success => Vec::new(),
            Before::Write { path, state, cause } => {
                let after = self
                    .tools
                    .file_bytes(&path)
                    .map(|bytes| keep(&blobs, &bytes));
                let same = match (&state, &after) {
                    (None, None) => true,
                    (Some(a), Some(b)) => a.sha256 == b.sha256,
                    _ => false,
                };
                if same {
                    Vec::new()
                } else {
                    vec![record(path, state, after, cause)]
                }
            }
            Before::Shell(before) => {
                let after = snapshot::take(
                    self.tools.workspace_root(),
                    Some(&before),
                    &blobs,
                    SnapshotLimits::default(),
                );
                let changes = snapshot::diff(&before, &after)
                    .into_iter()
                    .map(|change| {
                        record(
                            change.path,
                            change.before,
                            change.after,
                            ChangeCause::RunShell,
                        )
                    })
                    .collect();
                self.shell_snapshot = Some(after);
                changes
            }
        };
        for change in changes {
            self.session.append(RecordBody::FileChange(change))?;
        }
        Ok(())
    }
}

/// `bytes` kept in the store; by hash and size only when that fails.
fn keep(blobs: &BlobStore, bytes: &[u8]) -> FileState {
    blobs.put(bytes).unwrap_or_else(|error| {
        tracing::warn!(%error, "could not keep a file's prior content");
        FileState {
            size: bytes.len() as u64,
            sha256: Some(crate::changes::sha256_hex(bytes)),
            stored: false,
        }
    })
}

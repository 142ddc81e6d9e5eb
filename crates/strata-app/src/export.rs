//! Exports: strata-core's export (a readable Markdown transcript, or the
//! session's records as JSON lines) rendered here and written by the
//! application, so the UI needs no filesystem access: it only picks the path.

use std::path::Path;

use strata_core::store::SessionRead;
use strata_protocol::ExportFormat;
use strata_providers::config::model_label;

use crate::error::{CommandResult, ToCommandError, io};

/// The export's text.
pub fn render(read: &SessionRead, format: ExportFormat) -> CommandResult<String> {
    strata_core::export::export(read, format, model_label).map_err(ToCommandError::to_command_error)
}

/// Writes `text` to `path`, which must be in an existing folder.
pub fn write(path: &Path, text: &str) -> CommandResult<()> {
    std::fs::write(path, text)
        .map_err(|error| io(format!("Could not write {}: {error}", path.display())))
}

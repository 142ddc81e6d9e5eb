//! `export_session`: strata-core's export (a readable Markdown transcript,
//! or the session's records as JSON lines, as the command line writes them)
//! written by the shell, so the UI needs no filesystem access: it only
//! picks the path.

use std::path::{Path, PathBuf};

use strata_core::store::SessionRead;
use strata_protocol::ExportFormat;
use strata_providers::config::model_label;

use crate::errors::{CommandResult, ToCommandError, invalid_input, io};

fn extension(format: ExportFormat) -> &'static str {
    match format {
        ExportFormat::Md => "md",
        ExportFormat::Json => "jsonl",
    }
}

/// Where the export goes: the chosen path, with the format's extension
/// added when the save dialog returned a name without one.
pub fn target_path(chosen: &str, format: ExportFormat) -> CommandResult<PathBuf> {
    let path = PathBuf::from(chosen.trim());
    if !path.is_absolute() || path.file_name().is_none() {
        return Err(invalid_input(format!(
            "Choose a file to export to (got {chosen:?})."
        )));
    }
    if path.extension().is_none() {
        return Ok(path.with_extension(extension(format)));
    }
    Ok(path)
}

/// The export's text.
pub fn render(read: &SessionRead, format: ExportFormat) -> CommandResult<String> {
    strata_core::export::export(read, format, model_label).map_err(ToCommandError::to_command_error)
}

/// Writes `text` to `path`, which must be in an existing folder.
pub fn write(path: &Path, text: &str) -> CommandResult<()> {
    std::fs::write(path, text)
        .map_err(|error| io(format!("Could not write {}: {error}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_without_extension_gets_the_formats() {
        let path = target_path("/tmp/notes", ExportFormat::Md).unwrap();
        assert_eq!(path, Path::new("/tmp/notes.md"));
        let path = target_path("/tmp/notes.txt", ExportFormat::Json).unwrap();
        assert_eq!(path, Path::new("/tmp/notes.txt"));
        assert!(target_path("notes.md", ExportFormat::Md).is_err());
        assert!(target_path("", ExportFormat::Md).is_err());
    }
}

//! Exports: strata-core's export (a readable Markdown transcript, or the
//! session's records as JSON lines) rendered here; the front end writes the
//! text where the person chose (the desktop through its fs plugin, to the
//! one path its save dialog allowed).

use strata_core::store::SessionRead;
use strata_protocol::ExportFormat;
use strata_providers::config::model_label;

use crate::error::AppResult;

/// The export's text.
pub fn render(read: &SessionRead, format: ExportFormat) -> AppResult<String> {
    Ok(strata_core::export::export(read, format, model_label)?)
}

//! `strata sessions export SESSION --format md|json`: a readable Markdown
//! transcript, or the session's records as JSON lines (strata-core's
//! export, the desktop's too).

use std::io::Write;
use std::path::Path;

use strata_providers::config::model_label;

use crate::cli::ExportFormat;
use crate::error::CliError;
use crate::store::Context;

pub fn export(
    ctx: &Context,
    query: &str,
    format: ExportFormat,
    output: Option<&Path>,
) -> crate::error::Result<()> {
    let read = ctx.browse(query)?;
    let format = match format {
        ExportFormat::Md => strata_protocol::ExportFormat::Md,
        ExportFormat::Json => strata_protocol::ExportFormat::Json,
    };
    let text = strata_core::export::export(&read, format, model_label)?;
    match output {
        Some(path) => std::fs::write(path, text).map_err(|source| CliError::Io {
            action: "write",
            path: path.to_owned(),
            source,
        })?,
        None => std::io::stdout().lock().write_all(text.as_bytes())?,
    }
    Ok(())
}

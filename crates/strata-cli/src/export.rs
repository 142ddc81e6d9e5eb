//! `strata sessions export SESSION --format md|json`: a readable Markdown
//! transcript, or the session's records as JSON lines (strata-app's export,
//! the desktop's too).

use std::io::Write;
use std::path::Path;

use crate::cli::ExportFormat;
use crate::error::CliError;
use crate::store::Context;
use crate::visible::{json_safe, visible};

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
    let text = strata_app::export::render(&read, format)?;
    match output {
        Some(path) => std::fs::write(path, text).map_err(|source| CliError::Io {
            action: "write",
            path: path.to_owned(),
            source,
        })?,
        // On standard output (a terminal, or a pipe that may reach one) the
        // Markdown's controls are spelled out and the JSON's C1 and
        // invisible characters escaped; a file gets the text as written.
        None => {
            let shown = match format {
                strata_protocol::ExportFormat::Md => visible(&text),
                strata_protocol::ExportFormat::Json => json_safe(&text),
            };
            std::io::stdout().lock().write_all(shown.as_bytes())?;
        }
    }
    Ok(())
}

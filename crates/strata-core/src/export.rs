//! A session exported for programs: the session's records as JSON lines,
//! exactly the objects of the file (tested with strata-app's export). The
//! readable Markdown transcript is strata-app's, made from the transcript
//! both front ends show.

use crate::error::Result;
use crate::store::SessionRead;

/// Every record the read kept, one JSON object per line, as in the file.
pub fn export_json_lines(read: &SessionRead) -> Result<String> {
    let mut text = String::new();
    for record in &read.records {
        text.push_str(&serde_json::to_string(record)?);
        text.push('\n');
    }
    Ok(text)
}

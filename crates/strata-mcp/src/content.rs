//! A tool result as text for the model: every text part in order, embedded
//! text resources, a line for what cannot be shown as text (images, audio,
//! binary resources, resource links, which are listed, never fetched), and
//! the structured content as JSON when no text part carries it. The text
//! is the server's: untrusted, capped and redacted by strata-core after.

use rmcp::model::{ContentBlock, ResourceContents};

use crate::CallToolResult;

/// The result's text and whether the server flagged it as an error.
#[must_use]
pub fn result_text(result: &CallToolResult) -> (String, bool) {
    let mut parts: Vec<String> = Vec::new();
    for block in &result.content {
        parts.push(match block {
            ContentBlock::Text(text) => text.text.clone(),
            ContentBlock::Image(image) => format!(
                "[image: {}, {} bytes of base64, not shown]",
                image.mime_type,
                image.data.len()
            ),
            ContentBlock::Audio(audio) => format!(
                "[audio: {}, {} bytes of base64, not shown]",
                audio.mime_type,
                audio.data.len()
            ),
            ContentBlock::Resource(embedded) => match &embedded.resource {
                ResourceContents::TextResourceContents { uri, text, .. } => {
                    format!("[resource {uri}]\n{text}")
                }
                ResourceContents::BlobResourceContents { uri, blob, .. } => {
                    format!(
                        "[resource {uri}: {} bytes of base64, not shown]",
                        blob.len()
                    )
                }
                // The SDK's enums are non-exhaustive: a kind added later.
                _ => "[an embedded resource of a kind Strata does not show]".to_owned(),
            },
            ContentBlock::ResourceLink(link) => {
                format!("[resource link: {} ({})]", link.uri, link.name)
            }
            _ => "[a content part of a kind Strata does not show]".to_owned(),
        });
    }
    let has_text = result
        .content
        .iter()
        .any(|block| matches!(block, ContentBlock::Text(_)));
    if let (false, Some(structured)) = (has_text, &result.structured_content) {
        parts.push(structured.to_string());
    }
    (parts.join("\n"), result.is_error == Some(true))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(value: serde_json::Value) -> CallToolResult {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn text_parts_are_joined_and_an_image_is_a_line_not_its_bytes() {
        let (text, error) = result_text(&result(json!({
            "content": [
                {"type": "text", "text": "Echo: hi"},
                {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"},
                {"type": "resource_link", "uri": "test://static/resource/1", "name": "Resource 1"},
            ],
        })));
        assert_eq!(
            text,
            "Echo: hi\n[image: image/png, 8 bytes of base64, not shown]\n\
             [resource link: test://static/resource/1 (Resource 1)]"
        );
        assert!(!error);
    }

    #[test]
    fn structured_content_is_given_when_no_text_carries_it_and_errors_are_flagged() {
        let (text, error) = result_text(&result(json!({
            "content": [],
            "structuredContent": {"sum": 3},
            "isError": true,
        })));
        assert_eq!(text, r#"{"sum":3}"#);
        assert!(error);
    }
}

//! `strata chat`'s built-ins besides `/compact`: `/undo`, `/pin [item]`,
//! `/fork`, `/model [profile]`, `/reasoning [level]` and `/clear`, each
//! through the `App` method the desktop's control of that name calls
//! (`undo_compaction`, `pin_item`, `fork_session`, `switch_profile`,
//! `set_reasoning`; `/clear` starts a session in the same folder as
//! `strata chat` itself does). Without an argument `/model` and
//! `/reasoning` list the choices.

use std::sync::Arc;

use strata_app::App;
use strata_protocol::{
    CommandError, CommandErrorKind, ForkPoint, ForkSession, GetSettings, ItemId, ListSessionItems,
    PinItem, ReasoningEffort, SessionId, SetReasoning, SwitchProfile, UndoCompaction,
};

use crate::visible::visible_inline;

/// A built-in the terminal runs itself (the prompt files' names never
/// shadow these: `strata_app::slash::BUILT_IN_NAMES`).
#[derive(Debug, PartialEq, Eq)]
pub enum Builtin<'a> {
    Undo,
    /// The item id (or prefix) to pin; none: the latest message.
    Pin(Option<&'a str>),
    Fork,
    Model(Option<&'a str>),
    Reasoning(Option<&'a str>),
    Clear,
}

impl<'a> Builtin<'a> {
    /// The built-in `/name arguments` names, if any.
    pub fn parse(name: &str, arguments: &'a str) -> Option<Self> {
        let argument = (!arguments.is_empty()).then_some(arguments);
        Some(match name {
            "undo" => Self::Undo,
            "pin" => Self::Pin(argument),
            "fork" => Self::Fork,
            "model" => Self::Model(argument),
            "reasoning" => Self::Reasoning(argument),
            "clear" => Self::Clear,
            _ => return None,
        })
    }
}

/// What a built-in did: lines to show, or (for `/clear`) that the terminal
/// goes on in a new session in the same folder.
#[derive(Debug, PartialEq, Eq)]
pub enum Done {
    Lines(Vec<String>),
    NewSession,
}

/// Runs `builtin` in session `id`; the error is the app's, to show.
pub async fn run(
    app: &Arc<App>,
    id: SessionId,
    builtin: Builtin<'_>,
) -> Result<Done, CommandError> {
    let lines = match builtin {
        Builtin::Clear => return Ok(Done::NewSession),
        Builtin::Undo => {
            let undone = app
                .undo_compaction(UndoCompaction { session_id: id })
                .await?
                .undone;
            vec![format!(
                "compaction undone: {} items restored, about {} tokens",
                undone.restored.len(),
                undone.estimated_tokens
            )]
        }
        Builtin::Pin(item) => {
            let item = match item {
                Some(item) => item.to_owned(),
                None => latest_message(app, id).await?.to_string(),
            };
            let pinned = app
                .pin_item(PinItem {
                    session_id: id,
                    item,
                    pinned: true,
                })
                .await?;
            vec![format!(
                "pinned item {}: compaction keeps it word for word",
                pinned.item_id
            )]
        }
        Builtin::Fork => {
            let item_id = latest_message(app, id).await?;
            let fork = app
                .fork_session(ForkSession {
                    session_id: id,
                    point: ForkPoint::AtItem { item_id },
                    files: None,
                })
                .await?;
            vec![
                format!(
                    "forked into session {} with {} items in context",
                    fork.session_id, fork.history_items
                ),
                format!(
                    "continue it with: strata chat --session {}",
                    fork.session_id
                ),
            ]
        }
        Builtin::Model(None) => model_choices(app).await?,
        Builtin::Model(Some(wanted)) => {
            let settings = app.get_settings(GetSettings {}).await?;
            let found = settings
                .profiles
                .iter()
                .find(|profile| profile.id == wanted || profile.label.eq_ignore_ascii_case(wanted));
            let Some(profile) = found else {
                return Err(invalid(format!(
                    "There is no profile {}. Type /model to list them.",
                    visible_inline(wanted)
                )));
            };
            app.switch_profile(SwitchProfile {
                session_id: id,
                profile_id: profile.id.clone(),
            })
            .await?;
            vec![format!(
                "switched to {} ({}): from the next turn on the whole history goes there",
                visible_inline(&profile.label),
                visible_inline(&profile.model)
            )]
        }
        Builtin::Reasoning(None) => reasoning_choices(),
        Builtin::Reasoning(Some(level)) => {
            let effort: ReasoningEffort =
                level
                    .parse()
                    .map_err(|error: strata_protocol::UnknownReasoningEffort| {
                        invalid(format!("{error}. Type /reasoning to list the levels."))
                    })?;
            let set = app
                .set_reasoning(SetReasoning {
                    session_id: id,
                    effort,
                })
                .await?;
            vec![format!("reasoning {set} from the next turn on")]
        }
    };
    Ok(Done::Lines(lines))
}

fn invalid(message: String) -> CommandError {
    CommandError::new(CommandErrorKind::InvalidInput, message)
}

/// The session's latest user or assistant message, what `/pin` and
/// `/fork` act on without an item.
async fn latest_message(app: &Arc<App>, id: SessionId) -> Result<ItemId, CommandError> {
    let items = app
        .session_items(ListSessionItems { session_id: id })
        .await?;
    items
        .items
        .into_iter()
        .rev()
        .find(|item| item.kind == "message" && item.in_context)
        .map(|item| item.id)
        .ok_or_else(|| invalid("The session has no message yet.".to_owned()))
}

/// `/model`: the saved profiles, by id, name and model (from the settings).
async fn model_choices(app: &Arc<App>) -> Result<Vec<String>, CommandError> {
    let settings = app.get_settings(GetSettings {}).await?;
    let mut lines = vec!["profiles (/model ID switches to one):".to_owned()];
    lines.extend(settings.profiles.iter().map(|profile| {
        format!(
            "  {} · {} · {}",
            visible_inline(&profile.id),
            visible_inline(&profile.label),
            visible_inline(&profile.model)
        )
    }));
    Ok(lines)
}

/// `/reasoning`: the levels.
fn reasoning_choices() -> Vec<String> {
    let levels: Vec<&str> = ReasoningEffort::ALL.iter().map(|e| e.as_str()).collect();
    vec![format!(
        "reasoning levels (/reasoning LEVEL sets one): {}",
        levels.join(", ")
    )]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_parse_with_and_without_their_argument() {
        assert_eq!(Builtin::parse("undo", ""), Some(Builtin::Undo));
        assert_eq!(Builtin::parse("pin", ""), Some(Builtin::Pin(None)));
        assert_eq!(
            Builtin::parse("pin", "ab12"),
            Some(Builtin::Pin(Some("ab12")))
        );
        assert_eq!(Builtin::parse("model", ""), Some(Builtin::Model(None)));
        assert_eq!(
            Builtin::parse("reasoning", "high"),
            Some(Builtin::Reasoning(Some("high")))
        );
        assert_eq!(Builtin::parse("clear", ""), Some(Builtin::Clear));
        assert_eq!(Builtin::parse("fork", ""), Some(Builtin::Fork));
        assert_eq!(Builtin::parse("review", "x"), None);
    }

    #[test]
    fn reasoning_choices_name_every_level() {
        let lines = reasoning_choices();
        for effort in ReasoningEffort::ALL {
            assert!(lines[0].contains(effort.as_str()), "{lines:?}");
        }
    }
}

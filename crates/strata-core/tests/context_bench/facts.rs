//! The facts the context bench plants and where each is found after a
//! compaction: verbatim in the history, in the state sheet, recallable, or
//! lost.

use strata_core::agent::Agent;
use strata_core::compaction::{STATE_SHEET_PREFIX, item_text, sheet_has_path};

use super::session::{CHECK, DECISION, RULE};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Availability {
    Verbatim,
    Sheet,
    /// Neither, but in the removed items the recall tool searches (only
    /// where rounds offer it: not under base).
    Recallable,
    Lost,
}

impl Availability {
    pub fn label(self) -> &'static str {
        match self {
            Availability::Verbatim => "verbatim",
            Availability::Sheet => "sheet",
            Availability::Recallable => "recallable",
            Availability::Lost => "LOST",
        }
    }
}

/// A planted fact: what to look for, and whether Strata promises to keep it.
pub struct Fact {
    pub name: &'static str,
    pub needle: String,
    /// Also verbatim: an item holding both texts (a tool output, or its
    /// placeholder, naming the call and its exit code).
    pub verbatim_pair: Option<(&'static str, &'static str)>,
    pub promised: bool,
}

pub fn facts(next_step: &str) -> Vec<Fact> {
    let fact = |name, needle: &str, promised| Fact {
        name,
        needle: needle.to_owned(),
        verbatim_pair: None,
        promised,
    };
    vec![
        fact(
            "path src/billing/invoice.rs",
            "src/billing/invoice.rs",
            true,
        ),
        fact("path src/billing/tax.rs", "src/billing/tax.rs", true),
        fact("command check.sh billing", CHECK, true),
        Fact {
            verbatim_pair: Some(("test billing::case_1 ... ok", "[exit code: 0]")),
            ..fact("its last result (exit 0)", &format!("`{CHECK}` → 0"), false)
        },
        fact("rule: never edit vendor/", RULE, true),
        fact("decision: integer cents", DECISION, false),
        fact("current next step", next_step, false),
    ]
}

pub fn classify(agent: &Agent, fact: &Fact) -> Availability {
    let needle = fact.needle.as_str();
    let items = agent.history().items();
    let verbatim = items.iter().any(|item| {
        let text = item_text(item);
        !text.starts_with(STATE_SHEET_PREFIX)
            && (text.contains(needle)
                || fact
                    .verbatim_pair
                    .is_some_and(|(a, b)| text.contains(a) && text.contains(b)))
    });
    let sheet = agent.session().state().last_state_sheet();
    if verbatim {
        Availability::Verbatim
    } else if sheet.is_some_and(|s| s.text.contains(needle) || sheet_has_path(s, needle)) {
        Availability::Sheet
    } else if agent.offers_recall() && recallable(agent, needle) {
        Availability::Recallable
    } else {
        Availability::Lost
    }
}

/// Whether the recall tool's search finds `needle` among the removed items.
fn recallable(agent: &Agent, needle: &str) -> bool {
    let records = agent.session().read_records().unwrap_or_default();
    strata_core::recall::removed_items(&records, agent.history())
        .iter()
        .any(|item| item_text(item).contains(needle))
}

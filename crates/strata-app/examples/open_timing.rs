//! Times every command the desktop runs when a session is opened (and those
//! its debug console runs when opened), beside the whole-file reads they
//! replaced, on one session of a library:
//!
//!     cargo run --release -p strata-app --example open_timing -- STRATA_HOME SESSION_ID [RUNS]
//!
//! Prints the median and the range of each, in milliseconds.

#![allow(clippy::print_stdout)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use strata_app::App;
use strata_app::transcript::{PageAnchor, from_records, page};
use strata_core::StrataPaths;
use strata_protocol::{
    GetCompactionStatus, GetCompactionViews, GetRoundRequests, OpenSession, OpenTranscript,
    SessionId,
};

/// What the desktop asks for when a session opens (ui/src/state/store.ts).
const WITHOUT_RECORDS: u32 = u32::MAX;
const TRANSCRIPT_PAGE: u32 = 200;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: open_timing STRATA_HOME SESSION_ID [RUNS]";
    let home = PathBuf::from(args.next().ok_or(usage)?);
    let id: SessionId = args.next().ok_or(usage)?.parse()?;
    let runs: usize = args.next().map_or(Ok(5), |runs| runs.parse())?;
    let app = Arc::new(App::new(StrataPaths::under(&home), |_| None));
    let runtime = tokio::runtime::Runtime::new()?;
    let time = |name: &str, work: &dyn Fn() -> Result<usize, String>| {
        let mut samples = Vec::new();
        let mut size = 0;
        for _ in 0..runs {
            let started = Instant::now();
            size = work().unwrap_or_else(|error| panic!("{name}: {error}"));
            samples.push(started.elapsed().as_secs_f64() * 1e3);
        }
        samples.sort_by(f64::total_cmp);
        println!(
            "{name:<58} {:>9.1} ms  ({:.1}–{:.1})  {size}",
            samples[samples.len() / 2],
            samples[0],
            samples[samples.len() - 1],
        );
    };
    println!("{:<58} {:>12}  (min–max)  items", "command", "median");
    println!("on open:");
    // The model-visible items and the records a snapshot carries.
    let open_session = |from_record| {
        let request = OpenSession {
            session_id: id,
            from_record,
            without_records: false,
            at_item: None,
        };
        let view = runtime
            .block_on(app.open_session(request))
            .map_err(|e| e.message)?;
        Ok(view.context.len() + view.records.len())
    };
    time("open_session (no records, as the desktop opens)", &|| {
        open_session(Some(WITHOUT_RECORDS))
    });
    time("open_transcript (newest page of 200)", &|| {
        let page = runtime
            .block_on(app.open_transcript(OpenTranscript {
                session_id: id,
                before: None,
                limit: Some(TRANSCRIPT_PAGE),
                at_item: None,
            }))
            .map_err(|e| e.message)?;
        Ok(page.entries.len())
    });
    time("compaction_status", &|| {
        runtime
            .block_on(app.compaction_status(GetCompactionStatus { session_id: id }))
            .map(|_| 1)
            .map_err(|e| e.message)
    });
    println!("when the console opens:");
    time("open_session (every record)", &|| open_session(None));
    time("compaction_views", &|| {
        runtime
            .block_on(app.compaction_views(GetCompactionViews { session_id: id }))
            .map(|views| views.len())
            .map_err(|e| e.message)
    });
    time("round_requests (a page of 50)", &|| {
        let request = GetRoundRequests {
            session_id: id,
            offset: Some(0),
            limit: Some(50),
        };
        runtime
            .block_on(app.round_requests(request))
            .map(|page| page.rounds.len())
            .map_err(|e| e.message)
    });
    println!("baselines, the whole file read as before:");
    time(
        "whole read + replay (open_session, compaction_status)",
        &|| {
            let read = app.browse(id).map_err(|e| e.to_string())?;
            Ok(read.replay().history().len())
        },
    );
    time("whole read + fold + cut (open_transcript)", &|| {
        let read = app.browse(id).map_err(|e| e.to_string())?;
        let entries = from_records(&read.records);
        let page = page(id, entries, PageAnchor::Newest, Some(TRANSCRIPT_PAGE))
            .map_err(|e| e.to_string())?;
        Ok(page.entries.len())
    });
    Ok(())
}

//! The library index behind `sessions list` and `sessions search`, through
//! the built binary: search hits and filters, two processes sharing one
//! index, and an index of random bytes set aside and rebuilt.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use support::Home;

#[test]
fn sessions_search_prints_hits_with_their_item_and_honours_filters() {
    let home = Home::new();
    let widgets = home.compacted_session();
    home.small_session("nothing about stock here, only parsers");
    let text = home
        .run(&["sessions", "search", "stock.csv", "--color", "never"])
        .ok();
    assert!(text.contains(&widgets.to_string()), "{text}");
    assert!(text.contains("Count the widgets"), "{text}");
    assert!(text.contains("user "), "{text}");
    assert!(
        text.contains("How many widgets are in stock.csv?"),
        "{text}"
    );
    let json = home
        .run(&["sessions", "search", "stock", "--json"])
        .json_lines();
    assert_eq!(json.len(), 1);
    let hits = json[0]["hits"].as_array().unwrap();
    assert!(hits.len() >= 2, "{hits:?}");
    assert!(
        hits.iter().all(|hit| hit["item_id"].is_string()),
        "{hits:?}"
    );
    let total = |args: &[&str]| {
        let mut all = vec!["sessions", "search", "stock", "--json"];
        all.extend(args);
        home.run(&all).json_lines()[0]["total"].as_u64().unwrap()
    };
    let everything = total(&[]);
    assert_eq!(total(&["--model", "gpt-test"]) + 1, everything);
    assert_eq!(total(&["--model", "nobody"]), 0);
    assert_eq!(total(&["--since", "2999-01-01"]), 0);
    assert_eq!(total(&["--until", "2000-01-01"]), 0);
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    assert_eq!(total(&["--since", &today, "--until", &today]), everything);
    let workspace = home.workspace.path().display().to_string();
    assert_eq!(total(&["--workspace", &workspace]), everything);
    assert_eq!(total(&["--workspace", "/elsewhere"]), 0);
    let nothing = home.run(&["sessions", "search", "zzzqqq"]);
    assert_eq!((nothing.code, nothing.stdout.as_str()), (0, ""));
    assert!(nothing.stderr.contains("nothing matches"), "{nothing:?}");
    home.run(&["sessions", "search", "  "])
        .fails_with(2, "the search is empty");
    home.run(&["sessions", "search", "x", "--since", "yesterday"])
        .fails_with(2, "YYYY-MM-DD");
}

#[test]
fn two_processes_share_one_index_and_deleting_it_loses_nothing() {
    let home = Home::new();
    for n in 0..24 {
        home.small_session(&format!("parallel question {n}"));
    }
    // No index yet: both searches build it at once while a run appends a
    // new session through its writer.
    let search = [
        "sessions",
        "search",
        "parallel question",
        "--json",
        "--limit",
        "100",
    ];
    let children = [
        home.spawn_piped(&search),
        home.spawn_piped(&search),
        home.spawn_piped(&["run", "-p", "parallel question 24", "--provider", "demo"]),
    ];
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "{output:?}");
        if let Ok(value) = serde_json::from_slice::<serde_json::Value>(&output.stdout) {
            let total = value["total"].as_u64().unwrap();
            assert!((24..=25).contains(&total), "{value}");
        }
    }
    let listed = || home.run(&["sessions", "list", "--json"]).json_lines()[0].clone();
    let searched = || home.run(&search).json_lines()[0].clone();
    let before = listed();
    assert_eq!(before["total"], 25);
    let found = searched();
    // The 25 questions, and the demo model's answer if it quotes one.
    assert!(found["total"].as_u64().unwrap() >= 25, "{found}");
    let index = home
        .store()
        .root()
        .parent()
        .unwrap()
        .join("library.sqlite3");
    assert!(index.exists());
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", index.display()));
    }
    assert_eq!(listed(), before);
    assert_eq!(searched(), found);
}

#[test]
fn sessions_list_json_rebuilds_an_index_of_random_bytes_keeps_it_aside_and_says_so_once() {
    let home = Home::new();
    let older = home.small_session("first question");
    let newer = home.small_session("second question");
    home.run(&["sessions", "list"]).ok();
    let index = home.path().join("library.sqlite3");
    let noise: Vec<u8> = (0..64 * 1024).map(|_| fastrand::u8(..)).collect();
    std::fs::write(&index, &noise).unwrap();
    for side in ["library.sqlite3-wal", "library.sqlite3-shm"] {
        let _ = std::fs::remove_file(home.path().join(side));
    }

    let run = home.run(&["sessions", "list", "--json"]);
    assert_eq!(run.code, 0, "{run:#?}");
    let lines = run.json_lines();
    assert_eq!(lines.len(), 1, "stdout is the one page: {run:#?}");
    assert_eq!(lines[0]["total"], 2);
    let listed: Vec<&str> = lines[0]["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(listed, [newer.to_string(), older.to_string()]);

    let kept: Vec<std::path::PathBuf> = std::fs::read_dir(home.path())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            name.starts_with("library.sqlite3.broken-") && !name.ends_with("-wal")
        })
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(
        std::fs::read(&kept[0]).unwrap() == noise,
        "the damaged file is kept as it was"
    );
    let said: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(said.len(), 1, "one line: {:?}", run.stderr);
    assert!(
        said[0].starts_with("strata: The session index was damaged"),
        "{}",
        said[0]
    );
    assert!(said[0].contains(&*kept[0].to_string_lossy()), "{}", said[0]);
    assert!(
        said[0].contains("rebuilt from the session files"),
        "{}",
        said[0]
    );
    assert_eq!(
        lines[0]["notice"].as_str(),
        Some(&said[0]["strata: ".len()..])
    );

    let again = home.run(&["sessions", "list", "--json"]);
    assert_eq!(again.code, 0, "{again:#?}");
    assert_eq!(again.stderr, "", "said once");
    assert_eq!(again.json_lines()[0]["total"], 2);
    assert!(again.json_lines()[0].get("notice").is_none());
}

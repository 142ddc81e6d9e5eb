use super::*;

/// The program and arguments of every part, or the reason it is
/// unclassifiable.
fn parts(line: &str) -> Result<Vec<Vec<String>>, &'static str> {
    match classify(line) {
        Classified::Commands(commands) => Ok(commands.into_iter().map(|c| c.words).collect()),
        Classified::Unclassifiable { reason, .. } => Err(reason),
    }
}

fn words(list: &[&[&str]]) -> Vec<Vec<String>> {
    list.iter()
        .map(|w| w.iter().map(|s| (*s).to_owned()).collect())
        .collect()
}

#[test]
fn tricky_command_lines_split_into_the_commands_they_run() {
    let table: &[(&str, &[&[&str]])] = &[
        ("cargo test", &[&["cargo", "test"]]),
        (
            "cargo build && cargo test",
            &[&["cargo", "build"], &["cargo", "test"]],
        ),
        ("a||b;c|d&e", &[&["a"], &["b"], &["c"], &["d"], &["e"]]),
        ("a |& b", &[&["a"], &["b"]]),
        (
            "(cd sub && make) ; ls",
            &[&["cd", "sub"], &["make"], &["ls"]],
        ),
        (
            "echo $(rm -rf /)",
            &[&["rm", "-rf", "/"], &["echo", "$(…)"]],
        ),
        (
            "echo \"x $(whoami) y\"",
            &[&["whoami"], &["echo", "x $(…) y"]],
        ),
        ("echo `id`", &[&["id"], &["echo", "`…`"]]),
        ("echo 'a && b' \"c;d\"", &[&["echo", "a && b", "c;d"]]),
        (r"echo a\;b \&\& c", &[&["echo", "a;b", "&&", "c"]]),
        ("env X=1 Y=2 cargo test", &[&["cargo", "test"]]),
        ("X=1 cargo test", &[&["cargo", "test"]]),
        ("env -i -u HOME cargo test", &[&["cargo", "test"]]),
        (
            "bash -c 'git status && rm -rf /'",
            &[&["git", "status"], &["rm", "-rf", "/"]],
        ),
        ("sh -ec \"ls; pwd\"", &[&["ls"], &["pwd"]]),
        ("exec cargo test", &[&["cargo", "test"]]),
        ("! grep -q x f", &[&["grep", "-q", "x", "f"]]),
        (
            "cargo test 2>&1 | tee log",
            &[&["cargo", "test"], &["tee", "log"]],
        ),
        ("ls # && rm -rf /", &[&["ls"]]),
        ("a\nb", &[&["a"], &["b"]]),
        ("echo a\\\nb", &[&["echo", "ab"]]),
        ("\"git\" status", &[&["git", "status"]]),
        ("echo $HOME ${PATH}", &[&["echo", "$HOME", "${PATH}"]]),
        ("'X=1' cmd", &[&["X=1", "cmd"]]),
    ];
    for (line, expected) in table {
        assert_eq!(parts(line), Ok(words(expected)), "{line}");
    }
}

#[test]
fn what_the_parser_cannot_follow_is_unclassifiable() {
    for line in [
        "cat <<EOF\nrm -rf /\nEOF",
        "echo 'unbalanced",
        "echo \"unbalanced",
        "echo `unbalanced",
        "(ls",
        "ls)",
        "eval \"$CMD\"",
        "source ./setup.sh",
        ". ./setup.sh",
        "diff <(ls a) <(ls b)",
        "tee >(wc -l)",
        "$CMD --flag",
        "\"$CMD\" x",
        "$(echo rm) -rf /",
        "`echo rm` -rf /",
        "r*m -rf /",
        "{rm,-rf,/}",
        "if true; then ls; fi",
        "for f in *; do rm $f; done",
        "echo $((1+2))",
        "((x++))",
        "bash -c \"$SCRIPT\"",
        "bash -c \"ls $X\"",
        "echo $'\\x41'",
        "f() { ls; }",
        "echo \\",
        "env -S 'rm -rf /'",
        "case x in x) ls;; esac",
        "ls > ",
    ] {
        assert!(
            matches!(classify(line), Classified::Unclassifiable { .. }),
            "{line:?} was classified: {:?}",
            classify(line)
        );
    }
}

#[test]
fn assignments_and_redirections_are_noted() {
    let Classified::Commands(commands) =
        classify("RUST_LOG=debug env A=b cargo test > out.txt 2>>err.log 2>&1 < in")
    else {
        panic!("unclassifiable");
    };
    let [command] = commands.as_slice() else {
        panic!("{commands:?}");
    };
    assert_eq!(command.assignments, ["RUST_LOG=debug", "A=b"]);
    let written: Vec<_> = command
        .redirections
        .iter()
        .filter_map(Redirection::written_file)
        .collect();
    assert_eq!(written, ["out.txt", "err.log"]);
    assert_eq!(command.redirections.len(), 4);
}

#[test]
fn bash_c_gives_its_assignments_and_redirections_to_every_inner_command() {
    let Classified::Commands(commands) = classify("X=1 bash -c 'a; b' > log") else {
        panic!("unclassifiable");
    };
    assert_eq!(commands.len(), 2);
    for command in &commands {
        assert_eq!(command.assignments, ["X=1"]);
        assert_eq!(command.redirections[0].written_file(), Some("log"));
    }
}

#[test]
fn a_deny_rule_still_sees_the_commands_before_the_unclassifiable_part() {
    let Classified::Unclassifiable { seen, .. } = classify("rm -rf / ; eval x") else {
        panic!("classified");
    };
    assert_eq!(seen[0].words, ["rm", "-rf", "/"]);
}

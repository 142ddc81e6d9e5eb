//! The README shows `examples/compact_and_resume.rs`; this keeps the two equal.

#[test]
fn readme_shows_the_compiled_core_example_verbatim() {
    let readme = include_str!("../../../README.md");
    let example = include_str!("../examples/compact_and_resume.rs");
    assert!(
        readme.contains(example.trim()),
        "README.md's Rust example differs from crates/strata-core/examples/compact_and_resume.rs; copy the example into the README"
    );
}

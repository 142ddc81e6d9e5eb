//! The environment a command gets: an allow-list, so credentials in the
//! person's environment (cloud keys, tokens, passwords, whatever their
//! names) never reach a command unless the person names them.

use std::ffi::{OsStr, OsString};

/// Variables every command gets when Strata has them.
pub const SHELL_ENV_ALLOWED: [&str; 8] = [
    "PATH", "HOME", "USER", "LOGNAME", "LANG", "TERM", "TMPDIR", "SHELL",
];

/// Whether a command gets the variable `name`: one of
/// [`SHELL_ENV_ALLOWED`], a locale setting (`LC_*`), or a name in `extra`
/// (the person's `shell_env`), compared exactly.
pub(super) fn is_allowed(name: &OsStr, extra: &[String]) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    SHELL_ENV_ALLOWED.contains(&name)
        || name.starts_with("LC_")
        || extra.iter().any(|allowed| allowed == name)
}

/// The allowed part of `vars`.
pub(super) fn allowed_env(
    vars: impl IntoIterator<Item = (OsString, OsString)>,
    extra: &[String],
) -> Vec<(OsString, OsString)> {
    vars.into_iter()
        .filter(|(name, _)| is_allowed(name, extra))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(vars: &[(&str, &str)], extra: &[String]) -> Vec<String> {
        let vars = vars
            .iter()
            .map(|(name, value)| (OsString::from(name), OsString::from(value)));
        allowed_env(vars, extra)
            .into_iter()
            .map(|(name, _)| name.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn only_the_allow_list_and_locale_settings_pass_by_default() {
        let vars = [
            ("PATH", "/bin"),
            ("HOME", "/home/a"),
            ("LC_ALL", "C.UTF-8"),
            ("LC_TIME", "C"),
            ("AWS_SECRET_ACCESS_KEY", "x"),
            ("GITHUB_TOKEN", "x"),
            ("MY_DB_PASSWORD", "x"),
            ("FOO", "x"),
            ("path", "lowercase is another name"),
            ("PATHX", "x"),
        ];
        assert_eq!(names(&vars, &[]), ["PATH", "HOME", "LC_ALL", "LC_TIME"]);
    }

    #[test]
    fn configured_names_pass_exactly() {
        let vars = [("FOO", "1"), ("FOOBAR", "2"), ("GITHUB_TOKEN", "3")];
        let extra = ["FOO".to_owned(), "GITHUB_TOKEN".to_owned()];
        assert_eq!(names(&vars, &extra), ["FOO", "GITHUB_TOKEN"]);
    }
}

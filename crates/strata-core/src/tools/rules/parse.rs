//! A shell command line split into the simple commands it runs.
//!
//! Pure and conservative: it understands the operators (`&&`, `||`, `;`,
//! `|`, `|&`, `&`, newlines), subshells `( … )`, command substitutions
//! `$( … )` and backticks (whose commands are parts too), redirections,
//! quotes and escapes, leading assignments, `env`, `exec` and `command`
//! wrappers, and `bash -c '…'`/`sh -c '…'` with a literal argument (parsed
//! again). Anything else a shell could make run, it refuses to guess at:
//! here-documents, process substitution, `eval`, arithmetic, compound
//! keywords, unbalanced quotes, and a command name that comes from an
//! expansion are [`Classified::Unclassifiable`].
//!
//! The words are lexed here rather than with `shlex`/`shell-words`: those
//! split words but take `a;b` or `x&&y` for one word, and the structure
//! (operators, subshells, substitutions) has to be found in the same scan
//! that tracks the quotes.

/// One simple command: its assignments, its program and arguments after
/// quote removal, and its redirections.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SimpleCommand {
    /// `NAME=value` words before the program (and those given to `env`).
    pub assignments: Vec<String>,
    /// The program and its arguments. A word holding an expansion keeps
    /// its text as written (`$HOME`, `$(…)`); the program never does.
    pub words: Vec<String>,
    pub redirections: Vec<Redirection>,
}

impl SimpleCommand {
    pub fn program(&self) -> Option<&str> {
        self.words.first().map(String::as_str)
    }
}

/// A redirection: `2>&1`, `> out.txt`, `< in`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redirection {
    pub op: RedirOp,
    /// The file (or fd for a duplication) as parsed.
    pub target: String,
    /// Whether the target holds an expansion (`$X`, `*`, `$(…)`).
    pub target_expands: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedirOp {
    /// `<`, `<&`.
    Read,
    /// `>`, `>|`, `&>`, `>&` to a file.
    Write,
    /// `>>`, `&>>`.
    Append,
    /// `<>`.
    ReadWrite,
    /// `>&N`, `<&N`, `>&-`: another descriptor, no file.
    Duplicate,
}

impl Redirection {
    /// The file it may create or change; `None` for reads, duplications
    /// and `/dev/null`.
    pub fn written_file(&self) -> Option<&str> {
        match self.op {
            RedirOp::Write | RedirOp::Append | RedirOp::ReadWrite if self.target != "/dev/null" => {
                Some(&self.target)
            }
            RedirOp::Write
            | RedirOp::Append
            | RedirOp::ReadWrite
            | RedirOp::Read
            | RedirOp::Duplicate => None,
        }
    }
}

/// What [`classify`] made of a command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Classified {
    /// Every simple command the line runs, in order of appearance.
    Commands(Vec<SimpleCommand>),
    /// The line holds something this parser does not follow. `seen` are the
    /// commands it found before giving up (a deny rule still applies to them).
    Unclassifiable {
        reason: &'static str,
        seen: Vec<SimpleCommand>,
    },
}

/// Splits `line` into its simple commands.
pub fn classify(line: &str) -> Classified {
    let mut parser = Parser::new(line, 0);
    match parser.list(None) {
        Ok(()) => Classified::Commands(parser.out),
        Err(reason) => Classified::Unclassifiable {
            reason,
            seen: parser.out,
        },
    }
}

pub(super) type Parse<T> = Result<T, &'static str>;

use super::lex::Word;

/// Nesting deeper than this (subshells, substitutions, `bash -c`) is
/// unclassifiable.
const MAX_DEPTH: usize = 16;

/// Words that start shell syntax this parser does not follow.
const RESERVED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for",
    "in", "select", "function", "time", "coproc", "{", "}", "[[", "]]",
];

/// Programs that run their argument as shell code, or change how the shell
/// itself runs later commands.
const EVALUATING: &[&str] = &[
    "eval", "source", ".", "builtin", "trap", "alias", "enable", "hash",
];

/// Shells whose `-c` literal is parsed again.
const SHELLS: &[&str] = &[
    "bash",
    "sh",
    "dash",
    "/bin/bash",
    "/bin/sh",
    "/bin/dash",
    "/usr/bin/bash",
    "/usr/bin/sh",
];

/// A simple command while it is parsed: its words keep what they expand.
#[derive(Debug, Default)]
struct Building {
    assignments: Vec<String>,
    words: Vec<Word>,
    redirections: Vec<Redirection>,
}

impl Building {
    fn program(&self) -> Option<&str> {
        self.words.first().map(|w| w.text.as_str())
    }

    fn done(self) -> SimpleCommand {
        SimpleCommand {
            assignments: self.assignments,
            words: self.words.into_iter().map(|w| w.text).collect(),
            redirections: self.redirections,
        }
    }
}

pub(super) struct Parser {
    pub(super) chars: Vec<char>,
    pub(super) pos: usize,
    pub(super) depth: usize,
    pub(super) out: Vec<SimpleCommand>,
}

impl Parser {
    fn new(line: &str, depth: usize) -> Self {
        Self {
            chars: line.chars().collect(),
            pos: 0,
            depth,
            out: Vec::new(),
        }
    }

    pub(super) fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    pub(super) fn peek_at(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    pub(super) fn eat(&mut self, c: char) -> bool {
        let hit = self.peek() == Some(c);
        if hit {
            self.pos += 1;
        }
        hit
    }

    fn skip_blanks(&mut self) {
        while let Some(c) = self.peek() {
            if c == ' ' || c == '\t' {
                self.pos += 1;
            } else if c == '\\' && self.peek_at(1) == Some('\n') {
                self.pos += 2;
            } else {
                break;
            }
        }
    }

    /// A list of commands up to `end` (`)` for a subshell or substitution)
    /// or the end of the input.
    pub(super) fn list(&mut self, end: Option<char>) -> Parse<()> {
        if self.depth > MAX_DEPTH {
            return Err("nested too deeply");
        }
        loop {
            self.skip_blanks();
            match self.peek() {
                None => return end.map_or(Ok(()), |_| Err("unbalanced parentheses")),
                Some(')') => {
                    return match end {
                        Some(')') => {
                            self.pos += 1;
                            Ok(())
                        }
                        _ => Err("unbalanced parentheses"),
                    };
                }
                Some('#') => {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.pos += 1;
                    }
                }
                Some(';') => {
                    self.pos += 1;
                    if self.eat(';') || self.eat('&') {
                        return Err("case syntax");
                    }
                }
                Some('\n') => self.pos += 1,
                Some('&') if self.peek_at(1) != Some('>') => {
                    self.pos += 1;
                    self.eat('&');
                }
                Some('|') => {
                    self.pos += 1;
                    if !self.eat('|') {
                        self.eat('&');
                    }
                }
                Some('(') => {
                    self.pos += 1;
                    if self.eat('(') {
                        return Err("arithmetic command");
                    }
                    self.depth += 1;
                    self.list(Some(')'))?;
                    self.depth -= 1;
                    // Redirections after a subshell apply to all of it.
                    let mut after = Building::default();
                    self.command_tail(&mut after, false)?;
                    if !after.redirections.is_empty() {
                        self.out.push(after.done());
                    }
                }
                Some(_) => self.simple_command()?,
            }
        }
    }

    /// Words and redirections up to the next operator.
    fn simple_command(&mut self) -> Parse<()> {
        let mut command = Building::default();
        self.command_tail(&mut command, true)?;
        self.finish(command)
    }

    fn command_tail(&mut self, command: &mut Building, words_allowed: bool) -> Parse<()> {
        loop {
            self.skip_blanks();
            match self.peek() {
                None | Some(';' | '|' | '\n' | ')' | '#') => return Ok(()),
                Some('&') if self.peek_at(1) != Some('>') => return Ok(()),
                Some('(') => return Err("parenthesis inside a command"),
                Some('<' | '>' | '&') => self.redirection(command)?,
                Some(_) => {
                    let word = self.word()?;
                    let fd = word.plain()
                        && !word.text.is_empty()
                        && word.text.chars().all(|c| c.is_ascii_digit())
                        && matches!(self.peek(), Some('<' | '>'));
                    if fd {
                        self.redirection(command)?;
                    } else if !words_allowed {
                        return Err("words after a subshell");
                    } else if command.words.is_empty() && is_assignment(&word) {
                        command.assignments.push(word.text);
                    } else {
                        command.words.push(word);
                    }
                }
            }
        }
    }

    fn redirection(&mut self, command: &mut Building) -> Parse<()> {
        let both = self.eat('&');
        let input = self.peek() == Some('<');
        let op = if self.eat('<') {
            if self.eat('<') {
                return Err("here-document");
            }
            if self.eat('(') {
                return Err("process substitution");
            }
            if self.eat('>') {
                RedirOp::ReadWrite
            } else if self.eat('&') {
                RedirOp::Duplicate
            } else {
                RedirOp::Read
            }
        } else if self.eat('>') {
            if self.eat('(') {
                return Err("process substitution");
            }
            if self.eat('>') {
                RedirOp::Append
            } else if self.eat('&') {
                RedirOp::Duplicate
            } else {
                self.eat('|');
                RedirOp::Write
            }
        } else {
            return Err("stray `&`");
        };
        let op = match (both, op) {
            (true, RedirOp::Append) => RedirOp::Append,
            (true, RedirOp::Write) => RedirOp::Write,
            (true, _) => return Err("unknown redirection"),
            (false, op) => op,
        };
        self.skip_blanks();
        if matches!(
            self.peek(),
            None | Some(';' | '|' | '&' | '<' | '>' | '(' | ')' | '\n')
        ) {
            return Err("redirection without a target");
        }
        let target = self.word()?;
        // `>&file` writes the file; `>&2`, `>&-` only duplicate.
        let op = match op {
            RedirOp::Duplicate
                if !(target.text == "-" || target.text.chars().all(|c| c.is_ascii_digit()))
                    || target.text.is_empty() =>
            {
                if input {
                    RedirOp::Read
                } else {
                    RedirOp::Write
                }
            }
            op => op,
        };
        command.redirections.push(Redirection {
            op,
            target: target.text,
            target_expands: target.expands,
        });
        Ok(())
    }

    /// Parses `line` as a nested command line and takes its commands.
    pub(super) fn nested(&mut self, line: &str) -> Parse<Vec<SimpleCommand>> {
        let mut inner = Parser::new(line, self.depth + 1);
        let result = inner.list(None);
        let commands = inner.out.clone();
        self.out.extend(inner.out);
        result.map(|()| commands)
    }

    /// Unwraps `env`/`exec`/`command` and `bash -c '…'`, then keeps the
    /// command.
    fn finish(&mut self, mut command: Building) -> Parse<()> {
        loop {
            match command.program() {
                Some("!") => {
                    command.words.remove(0);
                }
                Some("exec" | "command" | "nohup") => {
                    if command
                        .words
                        .get(1)
                        .is_some_and(|w| w.text.starts_with('-'))
                    {
                        return Err("options to exec/command");
                    }
                    command.words.remove(0);
                }
                Some("env") => unwrap_env(&mut command)?,
                _ => break,
            }
        }
        if let Some(first) = command.words.first() {
            check_program(first)?;
        }
        match command.program() {
            Some(program) if EVALUATING.contains(&program) => Err("evaluates its arguments"),
            Some(program) if RESERVED.contains(&program) => Err("compound command syntax"),
            Some(program) if SHELLS.contains(&program) && is_dash_c(command.words.get(1)) => {
                self.shell_dash_c(command)
            }
            _ => {
                if !command.words.is_empty()
                    || !command.assignments.is_empty()
                    || !command.redirections.is_empty()
                {
                    self.out.push(command.done());
                }
                Ok(())
            }
        }
    }

    /// `bash -c 'script' [name args…]`: the script's commands, each with the
    /// outer command's assignments and redirections.
    fn shell_dash_c(&mut self, command: Building) -> Parse<()> {
        let Some(script) = command.words.get(2) else {
            return Err("shell -c without a script");
        };
        if script.expands {
            return Err("shell -c script is not a plain literal");
        }
        let before = self.out.len();
        self.nested(&script.text)?;
        for inner in &mut self.out[before..] {
            let mut assignments = command.assignments.clone();
            assignments.append(&mut inner.assignments);
            inner.assignments = assignments;
            inner
                .redirections
                .extend(command.redirections.iter().cloned());
        }
        Ok(())
    }
}

fn is_dash_c(word: Option<&Word>) -> bool {
    word.map(|w| w.text.as_str()).is_some_and(|w| {
        w.len() >= 2
            && w.starts_with('-')
            && w.ends_with('c')
            && w[1..].chars().all(|c| matches!(c, 'c' | 'e' | 'u' | 'x'))
    })
}

/// `env [-i] [-u NAME] [NAME=value…] program…`.
fn unwrap_env(command: &mut Building) -> Parse<()> {
    command.words.remove(0);
    while let Some(first) = command.words.first() {
        let text = first.text.as_str();
        if text == "-i" || text == "-" || text == "--ignore-environment" {
            command.words.remove(0);
        } else if text == "-u" || text == "--unset" {
            if command.words.len() < 2 {
                return Err("env -u without a name");
            }
            command.words.drain(..2);
        } else if text.starts_with('-') {
            return Err("options to env");
        } else if is_assignment(first) {
            let word = command.words.remove(0);
            command.assignments.push(word.text);
        } else {
            break;
        }
    }
    Ok(())
}

/// `NAME=value` or `NAME+=value` with the name unquoted.
fn is_assignment(word: &Word) -> bool {
    let text = word.text.as_str();
    let Some(eq) = text.find('=') else {
        return false;
    };
    if word.quoted_at.is_some_and(|at| at <= eq) {
        return false;
    }
    let name = text[..eq].strip_suffix('+').unwrap_or(&text[..eq]);
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A program name must be what runs: no expansion, no glob.
fn check_program(word: &Word) -> Parse<()> {
    if word.expands {
        return Err("the command name comes from an expansion");
    }
    if word.text.is_empty() {
        return Err("empty command name");
    }
    Ok(())
}

//! Words as the shell reads them: quotes, escapes, parameters and
//! command substitutions (whose commands the parser takes as parts).

use super::parse::{Parse, Parser};

#[derive(Clone, Debug, Default)]
pub(super) struct Word {
    pub(super) text: String,
    /// An unquoted `$`, backtick, glob or brace character: the shell may
    /// turn it into something else.
    pub(super) expands: bool,
    /// The length of `text` when the first quote or escape came, if one did
    /// (an assignment's name and an fd number must come before it).
    pub(super) quoted_at: Option<usize>,
}

impl Word {
    fn quote(&mut self) {
        self.quoted_at.get_or_insert(self.text.len());
    }

    pub(super) fn plain(&self) -> bool {
        self.quoted_at.is_none()
    }
}

impl Parser {
    /// One word, quotes removed; command substitutions in it are parsed
    /// and their commands added.
    pub(super) fn word(&mut self) -> Parse<Word> {
        let mut word = Word::default();
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' | '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>' => break,
                '\\' => {
                    self.pos += 1;
                    match self.peek() {
                        None => return Err("escape at the end"),
                        Some('\n') => self.pos += 1,
                        Some(next) => {
                            word.quote();
                            word.text.push(next);
                            self.pos += 1;
                        }
                    }
                }
                '\'' => {
                    self.pos += 1;
                    word.quote();
                    loop {
                        match self.peek() {
                            None => return Err("unbalanced single quote"),
                            Some('\'') => break,
                            Some(inner) => word.text.push(inner),
                        }
                        self.pos += 1;
                    }
                    self.pos += 1;
                }
                '"' => {
                    self.pos += 1;
                    word.quote();
                    self.double_quoted(&mut word)?;
                }
                '$' => self.dollar(&mut word)?,
                '`' => self.backticks(&mut word)?,
                '*' | '?' | '[' | '{' | '}' | '~' => {
                    word.expands = true;
                    word.text.push(c);
                    self.pos += 1;
                }
                _ => {
                    word.text.push(c);
                    self.pos += 1;
                }
            }
        }
        Ok(word)
    }

    fn double_quoted(&mut self, word: &mut Word) -> Parse<()> {
        loop {
            match self.peek() {
                None => return Err("unbalanced double quote"),
                Some('"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some('\\') => {
                    self.pos += 1;
                    match self.peek() {
                        None => return Err("unbalanced double quote"),
                        Some('\n') => self.pos += 1,
                        Some(next @ ('$' | '`' | '"' | '\\')) => {
                            word.text.push(next);
                            self.pos += 1;
                        }
                        Some(_) => word.text.push('\\'),
                    }
                }
                Some('$') => self.dollar(word)?,
                Some('`') => self.backticks(word)?,
                Some(c) => {
                    word.text.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    /// `$` at the cursor: a substitution, a parameter, or a plain `$`.
    fn dollar(&mut self, word: &mut Word) -> Parse<()> {
        self.pos += 1;
        match self.peek() {
            Some('(') => {
                self.pos += 1;
                if self.peek() == Some('(') {
                    return Err("arithmetic expansion");
                }
                self.depth += 1;
                self.list(Some(')'))?;
                self.depth -= 1;
                word.expands = true;
                word.text.push_str("$(…)");
            }
            Some('{') => {
                let start = self.pos;
                while self.peek().is_some_and(|c| c != '}') {
                    if matches!(self.peek(), Some('$' | '`' | '"' | '\'' | '\\')) {
                        return Err("expansion inside a parameter expansion");
                    }
                    self.pos += 1;
                }
                if !self.eat('}') {
                    return Err("unbalanced parameter expansion");
                }
                word.expands = true;
                word.text.push('$');
                word.text.extend(&self.chars[start..self.pos]);
            }
            Some('\'' | '"') => return Err("$'…' or $\"…\" quoting"),
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                word.expands = true;
                word.text.push('$');
                while let Some(c) = self
                    .peek()
                    .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
                {
                    word.text.push(c);
                    self.pos += 1;
                }
            }
            Some(c @ ('0'..='9' | '@' | '*' | '#' | '?' | '$' | '!' | '-')) => {
                word.expands = true;
                word.text.push('$');
                word.text.push(c);
                self.pos += 1;
            }
            _ => word.text.push('$'),
        }
        Ok(())
    }

    /// A backtick substitution: its text unescaped, then parsed as a line.
    fn backticks(&mut self, word: &mut Word) -> Parse<()> {
        self.pos += 1;
        let mut inner = String::new();
        loop {
            match self.peek() {
                None => return Err("unbalanced backtick"),
                Some('`') => break,
                Some('\\') => {
                    self.pos += 1;
                    match self.peek() {
                        Some(c @ ('`' | '\\' | '$')) => inner.push(c),
                        Some(c) => {
                            inner.push('\\');
                            inner.push(c);
                        }
                        None => return Err("unbalanced backtick"),
                    }
                }
                Some(c) => inner.push(c),
            }
            self.pos += 1;
        }
        self.pos += 1;
        self.nested(&inner)?;
        word.expands = true;
        word.text.push_str("`…`");
        Ok(())
    }
}

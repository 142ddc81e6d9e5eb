//! Case folding exactly as the index's trigram tokenizer does it (SQLite
//! FTS5's `sqlite3Fts5UnicodeFold` without diacritic removal, its table
//! ported here), so text the index lists as matching is verified and
//! marked by the same rule: ASCII and most of the Basic Multilingual
//! Plane fold to lower case one character at a time (`ſ` to `s`, the
//! Kelvin sign to `k`, final `ς` to `σ`), Deseret capitals to small,
//! U+FFFE and U+FFFF read as U+FFFD, and NUL characters are skipped, as
//! the tokenizer skips them.

/// Each rule folds a range of `len` code points from `start`: all of them,
/// or, when bit 0 of `flags` is set, every second one from `start`. A
/// folded code point is `(c + OFFSETS[flags >> 1]) & 0xFFFF`.
#[rustfmt::skip]
const RANGES: [(u16, u8, u8); 163] = [
    (65, 14, 26), (181, 64, 1), (192, 14, 23), (216, 14, 7), (256, 1, 48), (306, 1, 6),
    (313, 1, 16), (330, 1, 46), (376, 116, 1), (377, 1, 6), (383, 104, 1), (385, 50, 1),
    (386, 1, 4), (390, 44, 1), (391, 0, 1), (393, 42, 2), (395, 0, 1), (398, 32, 1), (399, 38, 1),
    (400, 40, 1), (401, 0, 1), (403, 42, 1), (404, 46, 1), (406, 52, 1), (407, 48, 1),
    (408, 0, 1), (412, 52, 1), (413, 54, 1), (415, 56, 1), (416, 1, 6), (422, 60, 1), (423, 0, 1),
    (425, 60, 1), (428, 0, 1), (430, 60, 1), (431, 0, 1), (433, 58, 2), (435, 1, 4), (439, 62, 1),
    (440, 0, 1), (444, 0, 1), (452, 2, 1), (453, 0, 1), (455, 2, 1), (456, 0, 1), (458, 2, 1),
    (459, 1, 18), (478, 1, 18), (497, 2, 1), (498, 1, 4), (502, 122, 1), (503, 134, 1),
    (504, 1, 40), (544, 110, 1), (546, 1, 18), (570, 70, 1), (571, 0, 1), (573, 108, 1),
    (574, 68, 1), (577, 0, 1), (579, 106, 1), (580, 28, 1), (581, 30, 1), (582, 1, 10),
    (837, 36, 1), (880, 1, 4), (886, 0, 1), (902, 18, 1), (904, 16, 3), (908, 26, 1),
    (910, 24, 2), (913, 14, 17), (931, 14, 9), (962, 0, 1), (975, 4, 1), (976, 140, 1),
    (977, 142, 1), (981, 146, 1), (982, 144, 1), (984, 1, 24), (1008, 136, 1), (1009, 138, 1),
    (1012, 130, 1), (1013, 128, 1), (1015, 0, 1), (1017, 152, 1), (1018, 0, 1), (1021, 110, 3),
    (1024, 34, 16), (1040, 14, 32), (1120, 1, 34), (1162, 1, 54), (1216, 6, 1), (1217, 1, 14),
    (1232, 1, 88), (1329, 22, 38), (4256, 66, 38), (4295, 66, 1), (4301, 66, 1), (7680, 1, 150),
    (7835, 132, 1), (7838, 96, 1), (7840, 1, 96), (7944, 150, 8), (7960, 150, 6), (7976, 150, 8),
    (7992, 150, 8), (8008, 150, 6), (8025, 151, 8), (8040, 150, 8), (8072, 150, 8),
    (8088, 150, 8), (8104, 150, 8), (8120, 150, 2), (8122, 126, 2), (8124, 148, 1),
    (8126, 100, 1), (8136, 124, 4), (8140, 148, 1), (8152, 150, 2), (8154, 120, 2),
    (8168, 150, 2), (8170, 118, 2), (8172, 152, 1), (8184, 112, 2), (8186, 114, 2),
    (8188, 148, 1), (8486, 98, 1), (8490, 92, 1), (8491, 94, 1), (8498, 12, 1), (8544, 8, 16),
    (8579, 0, 1), (9398, 10, 26), (11264, 22, 47), (11360, 0, 1), (11362, 88, 1), (11363, 102, 1),
    (11364, 90, 1), (11367, 1, 6), (11373, 84, 1), (11374, 86, 1), (11375, 80, 1), (11376, 82, 1),
    (11378, 0, 1), (11381, 0, 1), (11390, 78, 2), (11392, 1, 100), (11499, 1, 4), (11506, 0, 1),
    (42560, 1, 46), (42624, 1, 24), (42786, 1, 14), (42802, 1, 62), (42873, 1, 4), (42877, 76, 1),
    (42878, 1, 10), (42891, 0, 1), (42893, 74, 1), (42896, 1, 4), (42912, 1, 10), (42922, 72, 1),
    (65313, 14, 26),
];

const OFFSETS: [u16; 77] = [
    1, 2, 8, 15, 16, 26, 28, 32, 37, 38, 40, 48, 63, 64, 69, 71, 79, 80, 116, 202, 203, 205, 206,
    207, 209, 210, 211, 213, 214, 217, 218, 219, 775, 7264, 10792, 10795, 23228, 23256, 30204,
    54721, 54753, 54754, 54756, 54787, 54793, 54809, 57153, 57274, 57921, 58019, 58363, 61722,
    65268, 65341, 65373, 65406, 65408, 65410, 65415, 65424, 65436, 65439, 65450, 65462, 65472,
    65476, 65478, 65480, 65482, 65488, 65506, 65511, 65514, 65521, 65527, 65528, 65529,
];

/// The character the tokenizer indexes for `c` (NUL stays NUL: skipped).
#[inline]
pub(crate) fn fold(c: char) -> char {
    let code = u32::from(c);
    if code < 128 {
        return c.to_ascii_lowercase();
    }
    // SQLite's UTF-8 reader takes the two noncharacters for invalid input.
    if code == 0xFFFE || code == 0xFFFF {
        return char::REPLACEMENT_CHARACTER;
    }
    if code < 65_536 {
        // The last rule starting at or before `code`.
        let at = RANGES.partition_point(|&(start, _, _)| u32::from(start) <= code);
        let Some(&(start, flags, len)) = at.checked_sub(1).and_then(|at| RANGES.get(at)) else {
            return c;
        };
        let start = u32::from(start);
        let every_other = u32::from(flags & 1);
        if code < start + u32::from(len) && every_other & (start ^ code) == 0 {
            let offset = u32::from(OFFSETS[usize::from(flags >> 1)]);
            return char::from_u32((code + offset) & 0xFFFF).unwrap_or(c);
        }
        return c;
    }
    if (66_560..66_600).contains(&code) {
        return char::from_u32(code + 40).unwrap_or(c);
    }
    c
}

/// `query` as the tokenizer sees it: folded, NULs dropped.
pub(crate) fn folded(query: &str) -> Vec<char> {
    query.chars().filter(|&c| c != '\0').map(fold).collect()
}

/// The characters outside ASCII that fold into it (`ſ` to `s`, the Kelvin
/// sign to `k`): a needle starting with another ASCII character can only
/// start where its own byte, in either case, is.
const FOLDING_INTO_ASCII: [char; 2] = ['\u{17F}', '\u{212A}'];

/// Where `needle` (see [`folded`]) first occurs in `text` under the fold,
/// as a byte range of `text` (NULs inside it skipped, as the tokenizer
/// skips them).
pub(crate) fn find(text: &str, needle: &[char]) -> Option<(usize, usize)> {
    let first = *needle.first()?;
    let bytes = text.as_bytes();
    // The usual needle starts with an ASCII character no other character
    // folds into: only its two cases can start a match, found with SIMD.
    if first.is_ascii() && FOLDING_INTO_ASCII.iter().all(|&c| fold(c) != first) {
        let (lower, upper) = (first as u8, first.to_ascii_uppercase() as u8);
        return memchr::memchr2_iter(lower, upper, bytes)
            .find_map(|start| matched_at(text, start, needle));
    }
    text.char_indices()
        .filter(|&(_, c)| c != '\0' && fold(c) == first)
        .find_map(|(start, _)| matched_at(text, start, needle))
}

/// The end of `needle` matched at byte `start` of `text` (a character
/// boundary), NULs skipped.
fn matched_at(text: &str, start: usize, needle: &[char]) -> Option<(usize, usize)> {
    let mut rest = text
        .get(start..)?
        .char_indices()
        .filter(|&(_, c)| c != '\0');
    let mut end = start;
    for &wanted in needle {
        let (at, c) = rest.next()?;
        if fold(c) != wanted {
            return None;
        }
        end = start + at + c.len_utf8();
    }
    Some((start, end))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use proptest::prelude::*;
    use rusqlite::Connection;

    use super::{find, fold, folded};

    /// An in-memory trigram index with positions: its phrase match is what
    /// search answered before it verified candidates itself.
    fn phrase_index(texts: &[String]) -> Connection {
        let connection = Connection::open_in_memory().unwrap();
        connection
            .execute_batch("CREATE VIRTUAL TABLE t USING fts5 (body, tokenize = 'trigram')")
            .unwrap();
        for text in texts {
            connection
                .execute("INSERT INTO t (body) VALUES (?1)", [text])
                .unwrap();
        }
        connection
    }

    fn phrase_matches(connection: &Connection, query: &str) -> Vec<i64> {
        let mut statement = connection
            .prepare("SELECT rowid FROM t WHERE t MATCH ?1 ORDER BY rowid")
            .unwrap();
        statement
            .query_map([format!("\"{}\"", query.replace('"', "\"\""))], |row| {
                row.get(0)
            })
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    }

    #[test]
    fn every_character_folds_as_the_trigram_tokenizer_folds_it() {
        // One text per code point ("ccc", a single trigram), then the
        // tokenizer's trigram read back for each.
        let codes: Vec<u32> = (1..0xD800)
            .chain(0xE000..0x1_0000)
            .chain(0x1_0400..0x1_0450)
            .collect();
        let connection = Connection::open_in_memory().unwrap();
        connection
            .execute_batch(
                "CREATE VIRTUAL TABLE t USING fts5 (body, tokenize = 'trigram');
                 CREATE VIRTUAL TABLE v USING fts5vocab (t, 'instance');",
            )
            .unwrap();
        let transaction = connection.unchecked_transaction().unwrap();
        for &code in &codes {
            let c = char::from_u32(code).unwrap();
            transaction
                .execute(
                    "INSERT INTO t (rowid, body) VALUES (?1, ?2)",
                    rusqlite::params![code, c.to_string().repeat(3)],
                )
                .unwrap();
        }
        transaction.commit().unwrap();
        let mut statement = connection.prepare("SELECT doc, term FROM v").unwrap();
        let mut checked = 0;
        for row in statement
            .query_map([], |row| {
                Ok((row.get::<_, u32>(0)?, row.get::<_, String>(1)?))
            })
            .unwrap()
        {
            let (code, term) = row.unwrap();
            let c = char::from_u32(code).unwrap();
            assert_eq!(term, fold(c).to_string().repeat(3), "U+{code:04X}");
            checked += 1;
        }
        assert_eq!(checked, codes.len());
    }

    #[test]
    fn only_the_listed_characters_outside_ascii_fold_into_it() {
        let into_ascii: Vec<char> = (0x80..=0x10_FFFF)
            .filter_map(char::from_u32)
            .filter(|&c| fold(c).is_ascii())
            .collect();
        assert_eq!(into_ascii, super::FOLDING_INTO_ASCII);
    }

    /// Characters where folding is subtle: ASCII and its look-alikes that
    /// fold to it, final sigma, a two-to-one fold, NUL (skipped), Deseret.
    const ALPHABET: &[char] = &[
        'a',
        'A',
        'k',
        'K',
        '\u{212A}',
        's',
        'S',
        '\u{17F}',
        'σ',
        'Σ',
        'ς',
        'é',
        'É',
        'ß',
        '\u{1E9E}',
        'İ',
        'i',
        '\0',
        ' ',
        '"',
        '\u{10400}',
        '\u{10428}',
    ];

    fn text(max: usize) -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(ALPHABET), 0..max)
            .prop_map(|chars| chars.into_iter().collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn find_agrees_with_the_phrase_match_of_the_trigram_index(
            texts in prop::collection::vec(text(24), 1..8),
            query in text(6),
        ) {
            // A query reaches FTS5 as a C string (it ends at a NUL); search
            // drops NULs from queries before they reach either.
            let query: String = query.chars().filter(|&c| c != '\0').collect();
            let needle = folded(&query);
            prop_assume!(needle.len() >= 3);
            let connection = phrase_index(&texts);
            let expected = phrase_matches(&connection, &query);
            let found: Vec<i64> = (1..)
                .zip(&texts)
                .filter(|(_, text)| find(text, &needle).is_some())
                .map(|(rowid, _)| rowid)
                .collect();
            prop_assert_eq!(found, expected);
        }

        #[test]
        fn find_marks_a_range_whose_text_folds_to_the_query(
            text in text(40),
            query in text(5),
        ) {
            let needle = folded(&query);
            if let Some((start, end)) = find(&text, &needle) {
                prop_assert_eq!(folded(&text[start..end]), needle.clone());
                // And it is the first such range.
                let earlier = text[..start].char_indices().any(|(at, _)| {
                    find(&text[at..], &needle).is_some_and(|(s, _)| s == 0)
                });
                prop_assert!(!earlier);
            }
        }
    }
}

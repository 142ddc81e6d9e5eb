//! A byte mutator in the style of libFuzzer's: a few stacked edits per
//! input (bit flips, interesting bytes and numbers, deletions, duplications,
//! dictionary tokens, splices with another corpus entry).

use fastrand::Rng;

/// Inputs never grow past this, so one execution stays short.
pub const MAX_LEN: usize = 64 * 1024;

const INTERESTING_BYTES: &[u8] = b"\0\n\r\"\\{}[]:,. 09-+eE\x7f\x80\xc3\xe2\xf0\xff";
const INTERESTING_NUMBERS: &[&[u8]] = &[
    b"0",
    b"-1",
    b"4294967295",
    b"4294967296",
    b"18446744073709551615",
    b"18446744073709551616",
    b"-9223372036854775809",
    b"1e999",
    b"0.5",
    b"null",
];

/// Returns a mutated copy of `input`; `other` is a corpus entry to splice with.
pub fn mutate(rng: &mut Rng, input: &[u8], other: &[u8], dictionary: &[&[u8]]) -> Vec<u8> {
    let mut data = input.to_vec();
    for _ in 0..rng.usize(1..=4) {
        edit(rng, &mut data, other, dictionary);
    }
    data.truncate(MAX_LEN);
    data
}

fn edit(rng: &mut Rng, data: &mut Vec<u8>, other: &[u8], dictionary: &[&[u8]]) {
    let len = data.len();
    match rng.u8(0..10) {
        0 if len > 0 => {
            let at = rng.usize(0..len);
            data[at] ^= 1 << rng.u8(0..8);
        }
        1 if len > 0 => {
            let at = rng.usize(0..len);
            data[at] = INTERESTING_BYTES[rng.usize(0..INTERESTING_BYTES.len())];
        }
        2 if len > 0 => {
            let start = rng.usize(0..len);
            let end = (start + rng.usize(1..=16.min(len - start))).min(len);
            data.drain(start..end);
        }
        3 if len > 0 => {
            let start = rng.usize(0..len);
            let end = (start + rng.usize(1..=64.min(len - start))).min(len);
            let copy = data[start..end].to_vec();
            let at = rng.usize(0..=len);
            data.splice(at..at, copy);
        }
        4 | 5 if !dictionary.is_empty() => {
            let token = dictionary[rng.usize(0..dictionary.len())];
            let at = rng.usize(0..=len);
            data.splice(at..at, token.iter().copied());
        }
        6 => {
            let token = INTERESTING_NUMBERS[rng.usize(0..INTERESTING_NUMBERS.len())];
            // Replaces a run of digits, or inserts.
            let at = rng.usize(0..=len);
            let end = data[at..]
                .iter()
                .position(|byte| !byte.is_ascii_digit())
                .map_or(len, |offset| at + offset);
            data.splice(at..end, token.iter().copied());
        }
        7 if !other.is_empty() => {
            let from = rng.usize(0..other.len());
            let to = (from + rng.usize(1..=256)).min(other.len());
            let at = rng.usize(0..=len);
            data.splice(at..at, other[from..to].iter().copied());
        }
        8 if len > 0 => data.truncate(rng.usize(0..len)),
        _ => {
            let at = rng.usize(0..=len);
            data.insert(at, rng.u8(..));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutation_is_seeded_and_bounded() {
        let input = b"{\"type\":\"session_meta\"}\n".repeat(10);
        let dictionary: &[&[u8]] = &[b"\"ts\":"];
        let a = mutate(&mut Rng::with_seed(7), &input, b"data: x", dictionary);
        let b = mutate(&mut Rng::with_seed(7), &input, b"data: x", dictionary);
        assert_eq!(a, b);
        let mut rng = Rng::with_seed(1);
        let mut grown = input.clone();
        for _ in 0..10_000 {
            grown = mutate(&mut rng, &grown, &input, dictionary);
            assert!(grown.len() <= MAX_LEN);
        }
    }
}

//! Writing searchable pieces: the text a transaction took, newest lowest.
//!
//! Search lists the newest text first, and FTS5 walks its doclists forwards
//! (ascending row id) several times faster than backwards. So each piece
//! takes a row id below every piece already indexed, the last one read the
//! lowest: ascending row id is newest first. FTS5 starts a new segment
//! whenever a row id is lower than the last one written, so the pieces of a
//! whole transaction are gathered here and written once, in ascending row
//! id order (one segment per transaction, as with increasing row ids).

use rusqlite::{Transaction, params};

use crate::error::Result;
use crate::scan::Piece;

/// Text gathered before it is written anyway, so a transaction of many
/// large files does not hold them all in memory.
const GATHERED_BYTES: usize = 32 * 1024 * 1024;

/// Pieces read in this transaction, oldest first, with their session's row.
#[derive(Default)]
pub(crate) struct NewPieces {
    pieces: Vec<(i64, Piece)>,
    bytes: usize,
}

impl NewPieces {
    /// Adds a session's pieces, in the order they were read (oldest first);
    /// writes what was gathered once it is large.
    pub(crate) fn add(
        &mut self,
        transaction: &Transaction<'_>,
        session: i64,
        pieces: Vec<Piece>,
    ) -> Result<()> {
        self.bytes += pieces.iter().map(|piece| piece.body.len()).sum::<usize>();
        self.pieces
            .extend(pieces.into_iter().map(|piece| (session, piece)));
        if self.bytes >= GATHERED_BYTES {
            self.write(transaction)?;
        }
        Ok(())
    }

    /// Writes the pieces gathered below every row id in use, the last one
    /// read the lowest, in ascending row id order.
    pub(crate) fn write(&mut self, transaction: &Transaction<'_>) -> Result<()> {
        let pieces = std::mem::take(&mut self.pieces);
        self.bytes = 0;
        if pieces.is_empty() {
            return Ok(());
        }
        let lowest: Option<i64> =
            transaction.query_row("SELECT min(rowid) FROM pieces", [], |row| row.get(0))?;
        // Row ids stay below 1, so the first piece ever is 0 and every later
        // one negative: there is always room below.
        let below = lowest.map_or(1, |lowest| lowest.min(1));
        let count = i64::try_from(pieces.len()).unwrap_or(i64::MAX);
        let mut statement = transaction.prepare_cached(
            "INSERT INTO pieces (rowid, session, item_id, kind, body) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        // The newest piece (read last) takes `below - count`, the oldest
        // `below - 1`; newest first is ascending.
        let lowest = below.saturating_sub(count);
        for (rowid, (session, piece)) in (lowest..).zip(pieces.iter().rev()) {
            statement.execute(params![
                rowid,
                session,
                piece.item_id,
                piece.kind,
                piece.body
            ])?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use rusqlite::{Connection, TransactionBehavior};

    use super::NewPieces;
    use crate::scan::Piece;

    fn piece(body: &str) -> Piece {
        Piece {
            item_id: None,
            kind: "user",
            body: format!("needle {body}"),
        }
    }

    /// The bodies in ascending row id order: what search lists first.
    fn newest_first(connection: &Connection) -> Vec<String> {
        let mut statement = connection
            .prepare("SELECT body FROM pieces ORDER BY rowid")
            .unwrap();
        statement
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    }

    #[test]
    fn pieces_read_later_take_lower_row_ids_across_writes_and_transactions() {
        let mut connection = Connection::open_in_memory().unwrap();
        crate::schema::ensure(&mut connection).unwrap();
        for session in 1..=3 {
            connection
                .execute(
                    "INSERT INTO sessions (rowid, id, file_name, workspace, provider_kind, model,
                        created_ms, updated_ms, records, items, turns, rounds, compactions,
                        skipped_lines, file_size, file_mtime_ns, indexed_offset,
                        last_record_offset, last_record_hash)
                     VALUES (?1, ?1, '', '', '', '', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, '')",
                    [session],
                )
                .unwrap();
        }
        let transaction = connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .unwrap();
        let mut new = NewPieces::default();
        new.add(&transaction, 1, vec![piece("a1"), piece("a2")])
            .unwrap();
        new.add(&transaction, 2, vec![piece("b1")]).unwrap();
        // What a large transaction does when it has gathered enough.
        new.write(&transaction).unwrap();
        new.add(&transaction, 3, vec![piece("c1"), piece("c2")])
            .unwrap();
        new.write(&transaction).unwrap();
        transaction.commit().unwrap();
        let transaction = connection.transaction().unwrap();
        let mut new = NewPieces::default();
        new.add(&transaction, 1, vec![piece("a3")]).unwrap();
        new.write(&transaction).unwrap();
        transaction.commit().unwrap();
        let order = ["a3", "c2", "c1", "b1", "a2", "a1"].map(|body| format!("needle {body}"));
        assert_eq!(newest_first(&connection), order);
        // And the full-text index walks them in that order.
        let mut statement = connection
            .prepare("SELECT body FROM texts WHERE texts MATCH '\"nee\"' ORDER BY rowid")
            .unwrap();
        let matched: Vec<String> = statement
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(matched, order);
    }
}

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

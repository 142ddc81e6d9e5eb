//! The person's context operations on a live agent: pin and unpin an item,
//! and undo the latest compaction (both decided in
//! [`crate::context_ops`], each one record).

use strata_protocol::{CompactionUndone, ItemPin};

use super::Agent;
use crate::compaction::Estimate;
use crate::error::Result;

impl Agent {
    /// Pins (`pinned`) or unpins the item `query` names (an id or a unique
    /// prefix); refused under `base` and `off`, for an item not in context,
    /// and when the pins would exceed half the threshold.
    pub fn pin(&mut self, query: &str, pinned: bool) -> Result<ItemPin> {
        let threshold = self.threshold();
        let estimate = Estimate::new(self.estimator.as_ref(), self.calibration);
        crate::context_ops::pin_item(&mut self.session, query, pinned, estimate, threshold)
    }

    /// Restores the history before the latest compaction plus everything
    /// appended since, when the next request's estimate (the restored
    /// history and the tool specs) is under the threshold.
    pub fn undo_compaction(&mut self) -> Result<CompactionUndone> {
        let threshold = self.threshold();
        let overhead = self.request_overhead();
        let estimate = Estimate::new(self.estimator.as_ref(), self.calibration);
        let undone =
            crate::context_ops::undo_compaction(&mut self.session, estimate, overhead, threshold)?;
        // The restored history holds the instructions it had before the
        // compaction; the files may say something newer since.
        self.reread_instructions()?;
        Ok(undone)
    }
}

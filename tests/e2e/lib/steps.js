// The steps of a test file that share one app and one session and run in
// order. After a failed step the rest are skipped (they would only echo the
// failure); once they are done, no model request may be left unanswered and
// the harness is stopped, keeping its folder if a step failed.
//
//   describe("chat", () => {
//     let h;
//     before(async () => { h = await Harness.start("chat"); ... });
//     const step = sharedAppSteps(() => h);
//     step("does one thing", async () => { ... });
//   });

import assert from "node:assert/strict";
import { after, test } from "node:test";

/** Registers the `after` hook that stops `harness()`; returns `step(name, fn)`. */
export function sharedAppSteps(harness) {
  let failed = false;

  after(async () => {
    const h = harness();
    if (h) {
      assert.deepEqual(h.mock.unanswered().map((r) => r.number), [], "no model request left unanswered");
      await h.stop({ failed });
    }
  });

  return (name, fn) =>
    test(name, { timeout: 60_000 }, async (t) => {
      if (failed) return t.skip("an earlier step failed");
      try {
        await fn();
      } catch (error) {
        failed = true;
        throw error;
      }
    });
}

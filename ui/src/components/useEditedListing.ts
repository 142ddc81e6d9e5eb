import { useEffect, useState } from "react";
import { toCommandFailure } from "../api/commands";

/**
 * A settings section's listing that edits replace: loaded with `load` (memoised by the caller; a
 * new one loads again), and `run(edit)` shows the listing an edit answers with, or its refusal.
 */
export function useEditedListing<T>(load: () => Promise<T>) {
  const [listing, setListing] = useState<T | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let current = true;
    load()
      .then((found) => current && setListing(found))
      .catch((failure: unknown) => current && setLoadError(toCommandFailure(failure).message));
    return () => {
      current = false;
    };
  }, [load]);

  /** Runs `edit`; true when it was done (its listing shown), false when refused (its reason shown). */
  const run = async (edit: () => Promise<T>) => {
    setBusy(true);
    try {
      setListing(await edit());
      setError(null);
      return true;
    } catch (failure) {
      setError(toCommandFailure(failure).message);
      return false;
    } finally {
      setBusy(false);
    }
  };

  return { listing, loadError, error, setError, busy, run };
}

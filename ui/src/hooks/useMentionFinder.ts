import { useEffect, useState } from "react";
import type { WorkspaceFile } from "../bindings/WorkspaceFile";

/** How long typing pauses before the workspace is asked. */
export const FIND_DELAY_MS = 120;

/**
 * The paths `find` gives for `query`, asked `FIND_DELAY_MS` after the last keystroke while
 * `query` is not null; `undefined` while the answer for the current query is awaited. A late
 * answer to an older query is dropped; a failed one shows nothing found.
 */
export function useMentionFinder(find: ((query: string) => Promise<WorkspaceFile[]>) | undefined, query: string | null) {
  const [answer, setAnswer] = useState<{ query: string; files: WorkspaceFile[] } | undefined>(undefined);
  useEffect(() => {
    if (!find || query === null) return;
    let current = true;
    const timer = setTimeout(() => {
      find(query)
        .then((files) => {
          if (current) setAnswer({ query, files });
        })
        .catch(() => {
          if (current) setAnswer({ query, files: [] });
        });
    }, FIND_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [find, query]);
  return answer && answer.query === query ? answer.files : undefined;
}

import { useEffect, useState } from "react";
import * as api from "../api/commands";
import type { SandboxNetwork } from "../bindings/SandboxNetwork";

/** A workspace network file's choice and domains, where they apply. */
export interface AppliedWorkspaceNetwork {
  workspace: string;
  network: SandboxNetwork;
  domains: string[];
}

/**
 * The choice of `workspace`'s `.strata/network.toml` when it applies to new sessions there (Strata
 * saved it, or it says off); `null` while it is read, when there is none, or when it cannot be
 * read (a folder being typed, a broken file: the settings' network stands).
 */
export function useAppliedWorkspaceNetwork(workspace: string | null): AppliedWorkspaceNetwork | null {
  const [found, setFound] = useState<AppliedWorkspaceNetwork | null>(null);
  useEffect(() => {
    setFound(null);
    if (!workspace) return;
    let current = true;
    api
      .getWorkspaceNetwork(workspace)
      .then((view) => {
        if (current && view.applied && view.network) setFound({ workspace, network: view.network, domains: view.allow_domains });
      })
      .catch(() => {});
    return () => {
      current = false;
    };
  }, [workspace]);
  return found?.workspace === workspace ? found : null;
}

import { open, save } from "@tauri-apps/plugin-dialog";
import type { ExportFormat } from "../bindings/ExportFormat";

/** Asks which folder a new session works in; `null` when cancelled. */
export async function pickWorkspace(): Promise<string | null> {
  const chosen = await open({ directory: true, multiple: false, title: "Choose the workspace folder" });
  return typeof chosen === "string" ? chosen : null;
}

/** Asks where to save an export; `null` when cancelled. */
export async function pickExportPath(title: string, format: ExportFormat): Promise<string | null> {
  const extension = format === "md" ? "md" : "jsonl";
  const safe = title.replace(/[^\w.-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60) || "session";
  return save({
    title: "Export session",
    defaultPath: `${safe}.${extension}`,
    filters: [
      format === "md"
        ? { name: "Markdown", extensions: ["md"] }
        : { name: "JSON Lines", extensions: ["jsonl"] },
    ],
  });
}
